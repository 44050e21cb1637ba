//! The per-second series of a run, merged across workers while the run goes, so that its memory
//! does not grow with the run's length beyond a few dozen bytes per second.
//!
//! Each worker hands over each of its seconds once it is over (I/Os, bytes and the non-empty
//! latency buckets). A second stays pending, its buckets kept sparse, until every worker has
//! handed it over; then it becomes one [`TimePoint`] (counts and the p99 of the merged
//! buckets, exact to the histogram's resolution) and its buckets are dropped. Workers hand over
//! seconds about when they end, so one or two seconds are pending at a time; a worker stalled
//! in a long I/O keeps seconds pending, each holding only the buckets seen in it.

use super::Histogram;
use super::window::Window;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// One second of the whole run (all targets and threads).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TimePoint {
    /// Second since the start of the measured window (0-based).
    pub t_s: u32,
    /// I/Os per second in it.
    pub iops: f64,
    /// Bytes per second in it.
    pub bytes_per_s: f64,
    /// 99th percentile latency of the I/Os completed in it, µs.
    pub p99_us: f64,
    /// Mean latency of the I/Os completed in it, µs (exact: the workers' sums; 0 in files
    /// written before it was kept).
    #[serde(default)]
    pub mean_us: f64,
    /// The host probe's stalled time counted in this second, ms (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_stalled_ms: Option<f64>,
    /// CPU time the hypervisor stole in this second, % of all CPU time (absent in older
    /// files and where /proc/stat has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_pct: Option<f64>,
}

/// One second being gathered from the workers.
#[derive(Debug, Default)]
struct Pending {
    ios: u64,
    bytes: u64,
    /// I/Os and bytes per target.
    per_target: Vec<(u64, u64)>,
    /// Non-empty buckets (index, count), sorted by index.
    buckets: Vec<(u32, u64)>,
    /// Sum of the latencies, ns.
    sum_ns: f64,
    /// Workers that handed this second over.
    reported: usize,
}

/// A finished second before it is scaled by its length: counts and the p99, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Done {
    ios: u64,
    bytes: u64,
    p99_ns: f64,
    mean_ns: f64,
}

#[derive(Debug, Default)]
struct Inner {
    pending: BTreeMap<u32, Pending>,
    done: Vec<Option<Done>>,
    live: Live,
    steady: Option<LiveSteady>,
}

/// The steady-state rule's latest look at the measured phase while it goes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LiveSteady {
    /// Whether a look held (the phase then ends).
    pub reached: bool,
    /// The look's index (1-based), and of how many the phase may take.
    pub look: usize,
    /// How many looks the phase may take.
    pub of: usize,
    /// Bytes per second over the look's windows.
    pub bytes_per_s: f64,
    /// Its 95 % interval's half-width, % of it.
    pub half_pct: f64,
}

/// The seconds finished so far, added up (what `run --listen` serves).
#[derive(Debug, Default)]
struct Live {
    per_target: Vec<(u64, u64)>,
    hist: Histogram,
    sum_ns: f64,
    last: Option<(u32, Done)>,
}

/// What a run's finished seconds add up to while it goes: per target I/Os and bytes, the
/// latency histogram's cumulative counts at its bucket edges, four to a power of two, and the latest second.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveSeries {
    /// I/Os and bytes of each target, in target order.
    pub per_target: Vec<(u64, u64)>,
    /// (edge ns, I/Os below it), increasing, at each quarter of a power of two
    /// ([`Histogram::edges`]).
    pub edges: Vec<(u64, u64)>,
    /// I/Os in the histogram, and the sum of their latencies, ns.
    pub count: u64,
    /// The sum of the latencies, ns.
    pub sum_ns: f64,
    /// The latest finished second: its index, I/Os and bytes.
    pub last: Option<(u32, u64, u64)>,
    /// With a steady-state rule, its latest look.
    pub steady: Option<LiveSteady>,
}

/// Where the workers of one run hand over their seconds.
#[derive(Debug)]
pub struct SeriesSink {
    workers: usize,
    targets: usize,
    inner: Mutex<Inner>,
}

/// The sink of the run being measured, when its command serves it (`run --listen`).
static PUBLISHED: Mutex<Option<std::sync::Arc<SeriesSink>>> = Mutex::new(None);

/// Makes `sink` the one a scrape reads, from the start of its measured window.
pub fn publish(sink: std::sync::Arc<SeriesSink>) {
    *PUBLISHED.lock().unwrap_or_else(|p| p.into_inner()) = Some(sink);
}

/// The sink published last, if any.
pub fn published() -> Option<std::sync::Arc<SeriesSink>> {
    PUBLISHED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Adds sorted sparse `b` into sorted sparse `a`.
fn merge_sparse(a: &[(u32, u64)], b: impl Iterator<Item = (u32, u64)>) -> Vec<(u32, u64)> {
    let mut out = Vec::with_capacity(a.len() + 8);
    let mut a = a.iter().copied().peekable();
    let mut b = b.peekable();
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                out.push((x.0, x.1 + y.1));
                a.next();
                b.next();
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.push(x);
                a.next();
            }
            (_, Some(y)) => {
                out.push(y);
                b.next();
            }
            (Some(x), None) => {
                out.push(x);
                a.next();
            }
            (None, None) => return out,
        }
    }
}

/// Second `t_s` of `len` seconds, finished as `d`.
fn point(t_s: usize, d: Done, len: f64) -> TimePoint {
    TimePoint {
        t_s: t_s as u32,
        iops: d.ios as f64 / len,
        bytes_per_s: d.bytes as f64 / len,
        p99_us: d.p99_ns / 1000.0,
        mean_us: d.mean_ns / 1000.0,
        ..TimePoint::default()
    }
}

fn finish_one(p: &Pending) -> Done {
    let mut h = Histogram::new();
    h.add_sparse(&p.buckets);
    Done {
        ios: p.ios,
        bytes: p.bytes,
        p99_ns: h.quantile_ns(0.99),
        mean_ns: if h.count() == 0 {
            0.0
        } else {
            p.sum_ns / h.count() as f64
        },
    }
}

impl Live {
    /// Adds finished second `second` (`p`, finished as `done`).
    fn add(&mut self, second: u32, p: &Pending, done: Done) {
        if self.per_target.len() < p.per_target.len() {
            self.per_target.resize(p.per_target.len(), (0, 0));
        }
        for (t, (ios, bytes)) in p.per_target.iter().enumerate() {
            self.per_target[t].0 += ios;
            self.per_target[t].1 += bytes;
        }
        self.hist.add_sparse(&p.buckets);
        self.sum_ns += p.sum_ns;
        if self.last.is_none_or(|(s, _)| second > s) {
            self.last = Some((second, done));
        }
    }
}

impl SeriesSink {
    /// A sink for `workers` workers of one target.
    pub fn new(workers: usize) -> Self {
        Self::for_targets(workers, 1)
    }

    /// A sink for `workers` workers over `targets` targets.
    pub fn for_targets(workers: usize, targets: usize) -> Self {
        SeriesSink {
            workers: workers.max(1),
            targets: targets.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// One worker's second `second` on target `target`: `ios` I/Os of `bytes` bytes, with
    /// latency buckets `hist`. Each worker hands each second over at most once.
    pub fn add(&self, second: u32, target: usize, ios: u64, bytes: u64, hist: &Histogram) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let p = inner.pending.entry(second).or_default();
        p.ios += ios;
        p.bytes += bytes;
        p.per_target.resize(self.targets.max(target + 1), (0, 0));
        p.per_target[target].0 += ios;
        p.per_target[target].1 += bytes;
        p.sum_ns += hist.mean_ns() * hist.count() as f64;
        p.buckets = merge_sparse(&p.buckets, hist.sparse().map(|(i, c)| (i as u32, c)));
        p.reported += 1;
        if p.reported >= self.workers {
            let done = finish_one(p);
            if let Some(p) = inner.pending.remove(&second) {
                inner.live.add(second, &p, done);
            }
            let i = second as usize;
            if inner.done.len() <= i {
                inner.done.resize(i + 1, None);
            }
            inner.done[i] = Some(done);
        }
    }

    /// What the seconds finished so far add up to.
    pub fn live(&self) -> LiveSeries {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let l = &inner.live;
        LiveSeries {
            per_target: l.per_target.clone(),
            edges: l.hist.edges(4),
            count: l.hist.count(),
            sum_ns: l.sum_ns,
            last: l.last.map(|(s, d)| (s, d.ios, d.bytes)),
            steady: inner.steady,
        }
    }

    /// Keeps the steady-state rule's latest look, for a scrape.
    pub fn set_steady(&self, look: LiveSteady) {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).steady = Some(look);
    }

    /// The whole seconds finished so far from second `from` on, up to the first still pending
    /// (as [`SeriesSink::finish`] gives them, without the host's figures).
    pub fn finished(&self, from: usize) -> Vec<TimePoint> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let done = inner.done.get(from..).unwrap_or_default();
        (done.iter().enumerate())
            .map_while(|(i, d)| Some(point(from + i, (*d)?, 1.0)))
            .collect()
    }

    /// Seconds still waiting for a worker (for tests and the memory bound).
    pub fn pending(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.pending.len())
    }

    /// The series over a measured window of `seconds`: one point per reported step of
    /// [`Window`] (whole seconds, and a last part-second of at least half a second, its rates
    /// over its real length). Seconds some worker never handed over are finished with what the
    /// others gave; seconds nobody reported are zero.
    pub fn finish(&self, seconds: f64) -> Vec<TimePoint> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let pending = std::mem::take(&mut inner.pending);
        for (second, p) in pending {
            let i = second as usize;
            if inner.done.len() <= i {
                inner.done.resize(i + 1, None);
            }
            inner.done[i] = Some(finish_one(&p));
        }
        let window = Window::new(seconds, 1.0);
        (0..window.steps())
            .filter_map(|i| {
                let len = window.step_len(i)?;
                let d = inner.done.get(i).copied().flatten().unwrap_or_default();
                Some(point(i, d, len))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(ns: &[u64]) -> Histogram {
        let mut h = Histogram::new();
        for &v in ns {
            h.record(v);
        }
        h
    }

    #[test]
    fn seconds_merge_across_workers_and_scale_the_tail() {
        let sink = SeriesSink::new(2);
        sink.add(0, 0, 100, 409_600, &hist(&[200; 100]));
        assert_eq!(sink.pending(), 1);
        sink.add(0, 0, 10, 40_960, &hist(&[250; 10]));
        assert_eq!(sink.pending(), 0, "both workers reported second 0");
        sink.add(1, 0, 50, 204_800, &hist(&[200; 50]));
        let s = sink.finish(1.5);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].iops, 110.0);
        assert_eq!(s[1].iops, 100.0, "50 I/Os in half a second");
        assert!(s[0].p99_us > 0.0);
        // A part-second under half a second is not reported.
        assert_eq!(sink.finish(1.2).len(), 1);
    }

    /// The seconds finished so far stop at the first one a worker has not handed over.
    #[test]
    fn finished_seconds_stop_at_the_first_pending() {
        let sink = SeriesSink::new(2);
        for _worker in 0..2 {
            sink.add(0, 0, 100, 409_600, &hist(&[200; 100]));
            sink.add(2, 0, 7, 0, &hist(&[200; 7]));
        }
        sink.add(1, 0, 30, 0, &hist(&[200; 30]));
        let f = sink.finished(0);
        assert_eq!(f.len(), 1, "second 1 waits for a worker: {f:?}");
        assert_eq!(
            (f[0].t_s, f[0].iops, f[0].bytes_per_s),
            (0, 200.0, 819_200.0)
        );
        sink.add(1, 0, 30, 0, &hist(&[200; 30]));
        let f = sink.finished(1);
        assert_eq!(
            f.iter().map(|p| (p.t_s, p.iops)).collect::<Vec<_>>(),
            [(1, 60.0), (2, 14.0)]
        );
        assert!(sink.finished(5).is_empty());
    }

    /// The merged p99 is the p99 of all latencies of the second, not a mean of the workers'.
    #[test]
    fn p99_of_the_merged_buckets() {
        let sink = SeriesSink::new(2);
        let fast: Vec<u64> = vec![1_000; 980];
        let slow: Vec<u64> = vec![100_000; 20];
        sink.add(0, 0, 980, 0, &hist(&fast));
        sink.add(0, 0, 20, 0, &hist(&slow));
        let all: Vec<u64> = fast.iter().chain(&slow).copied().collect();
        let want = hist(&all).quantile_ns(0.99) / 1000.0;
        let got = sink.finish(1.0)[0].p99_us;
        assert!((got - want).abs() / want < 0.01, "{got} vs {want}");
    }

    #[test]
    fn sparse_merge_adds_counts() {
        let a = [(1, 2), (5, 1)];
        let b = [(0, 1), (5, 3), (9, 1)];
        assert_eq!(
            merge_sparse(&a, b.into_iter()),
            vec![(0, 1), (1, 2), (5, 4), (9, 1)]
        );
    }
}
