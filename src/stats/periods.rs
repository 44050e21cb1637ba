//! A worker's counts at the edges of fixed periods of its measured phase, per direction, for
//! fio's averaged logs (`log_avg_msec`): at the first completion at or after each edge, before
//! it is counted, the direction's cumulative I/Os, bytes and latency sum, with that
//! completion's own time and latency. fio starts a latency row at exactly that completion
//! (stat.c `add_log_sample`), and the counts before it are the period's I/Os for its rates.
//!
//! The recorder takes each edge in its cold path, behind the one boundary comparison it makes
//! per I/O anyway (`Recorder::complete`), so the per-I/O work does not grow; the memory grows
//! with the periods, not with the I/Os: 48 bytes an edge, one per period and direction (a 1-ms
//! period of a job that reads and writes: 96 KB a second).

use crate::engine::IoDir;

/// A direction's cumulative counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// I/Os completed.
    pub ios: u64,
    /// Bytes of those.
    pub bytes: u64,
    /// Their latencies added, ns.
    pub lat_ns: u128,
}

impl Totals {
    /// `self` less `earlier`.
    pub fn since(&self, earlier: &Totals) -> Totals {
        Totals {
            ios: self.ios - earlier.ios,
            bytes: self.bytes - earlier.bytes,
            lat_ns: self.lat_ns - earlier.lat_ns,
        }
    }

    fn add(&mut self, other: &Totals) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.lat_ns += other.lat_ns;
    }
}

/// One direction at one period edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The counts of the I/Os completed before the edge.
    pub before: Totals,
    /// The first completion at or after the edge: its time, ns since the origin (it may lie
    /// beyond the next edge when a period had no completion), and its latency, ns.
    pub first: (u64, u64),
}

/// One group of I/Os of a latency row: those after the previous row's first completion up
/// to and including this row's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// When the row is written: its first completion, or the end for the last group, ns
    /// since the origin.
    pub t_ns: u64,
    /// The group's I/Os.
    pub ios: u64,
    /// Their latencies added, ns.
    pub lat_ns: u128,
}

/// The edges of one worker (or of several, merged), per direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Periods {
    period_ns: u64,
    edges: [Vec<Edge>; 2],
    /// Each direction's counts at the end of the phase.
    end: [Totals; 2],
}

impl Periods {
    /// No edges yet, of periods of `period_ns` (at least 1).
    pub fn new(period_ns: u64) -> Self {
        Periods {
            period_ns: period_ns.max(1),
            edges: [Vec::new(), Vec::new()],
            end: [Totals::default(); 2],
        }
    }

    /// The length of a period, ns.
    pub fn period_ns(&self) -> u64 {
        self.period_ns
    }

    /// The next edge of `dir` not yet passed, ns since the origin.
    pub fn next_edge(&self, dir: IoDir) -> u64 {
        (self.edges[dir as usize].len() as u64 + 1) * self.period_ns
    }

    /// A completion of `dir` at `t_ns` (since the origin) that took `lat_ns`, with `before`
    /// the direction's counts before it: an edge for every edge up to `t_ns` not yet passed.
    /// Returns the next edge.
    pub fn cross(&mut self, dir: IoDir, t_ns: u64, lat_ns: u64, before: Totals) -> u64 {
        while self.next_edge(dir) <= t_ns {
            self.edges[dir as usize].push(Edge {
                before,
                first: (t_ns, lat_ns),
            });
        }
        self.next_edge(dir)
    }

    /// The phase is over: each direction's counts at its end.
    pub fn finish(&mut self, end: [Totals; 2]) {
        self.end = end;
    }

    /// The periods of several workers as one: at each edge the counts added and the earliest
    /// first completion (a worker whose last completion came before an edge adds its end
    /// counts there). All of `all` have one period; None when `all` is empty.
    pub fn merged(all: &[&Periods]) -> Option<Periods> {
        let first = all.first()?;
        let mut m = Periods::new(first.period_ns);
        for d in 0..2 {
            let n = all.iter().map(|p| p.edges[d].len()).max().unwrap_or(0);
            for k in 0..n {
                let mut e = Edge {
                    before: Totals::default(),
                    first: (u64::MAX, 0),
                };
                for p in all {
                    match p.edges[d].get(k) {
                        Some(x) => {
                            e.before.add(&x.before);
                            e.first = e.first.min(x.first);
                        }
                        None => e.before.add(&p.end[d]),
                    }
                }
                m.edges[d].push(e);
            }
            for p in all {
                m.end[d].add(&p.end[d]);
            }
        }
        Some(m)
    }

    /// The counts of `dir` before edge `k` (edge 0: the origin; past the last edge passed,
    /// the end's).
    fn before(&self, dir: IoDir, k: usize) -> Totals {
        match k {
            0 => Totals::default(),
            _ => self.edges[dir as usize]
                .get(k - 1)
                .map_or(self.end[dir as usize], |e| e.before),
        }
    }

    /// The I/Os of `dir` completed in each of the first `n` periods.
    pub fn per_period(&self, dir: IoDir, n: usize) -> Vec<Totals> {
        (0..n)
            .map(|k| self.before(dir, k + 1).since(&self.before(dir, k)))
            .collect()
    }

    /// The groups of `dir`'s latency rows, as fio's `add_log_sample` makes them: a row at the
    /// first completion in each period after the first that has one, holding the I/Os since
    /// the previous row's (that one included), and at `end_ns` a last row holding those after
    /// the last (fio's `finalize_logs`), if any.
    pub fn latency_spans(&self, dir: IoDir, end_ns: u64) -> Vec<Span> {
        // The row ends: each first completion that starts a row (the first at or after edge
        // k+1 that lies in period k+1, before edge k+2), with the I/Os and latency up to it,
        // it included; then the end, with everything.
        let ends = self.edges[dir as usize]
            .iter()
            .enumerate()
            .filter(|(k, e)| e.first.0 < (*k as u64 + 2) * self.period_ns)
            .map(|(_, e)| {
                let (t, lat) = e.first;
                (t, e.before.ios + 1, e.before.lat_ns + u128::from(lat))
            });
        let end = self.end[dir as usize];
        let mut out: Vec<Span> = Vec::new();
        let mut prev = (0u64, 0u128);
        for (t_ns, ios, lat_ns) in ends.chain(std::iter::once((end_ns, end.ios, end.lat_ns))) {
            if ios > prev.0 {
                out.push(Span {
                    t_ns,
                    ios: ios - prev.0,
                    lat_ns: lat_ns - prev.1,
                });
                prev = (ios, lat_ns);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Feeds completions (time ms, latency ns) of reads into periods of `period_ms`, as the
    /// recorder does, and finishes them.
    fn fed(period_ms: u64, ios: &[(u64, u64)]) -> Periods {
        let mut p = Periods::new(period_ms * MS);
        let mut sum = Totals::default();
        for &(t, lat) in ios {
            if t * MS >= p.next_edge(IoDir::Read) {
                p.cross(IoDir::Read, t * MS, lat, sum);
            }
            sum.add(&Totals {
                ios: 1,
                bytes: 4096,
                lat_ns: lat.into(),
            });
        }
        p.finish([sum, Totals::default()]);
        p
    }

    #[test]
    fn latency_rows_start_at_each_periods_first_completion() {
        // Periods of 100 ms: completions at 10, 50 | 120, 130 | (none) | 340 | 420, 450, end.
        let p = fed(
            100,
            &[
                (10, 1),
                (50, 2),
                (120, 3),
                (130, 4),
                (340, 5),
                (420, 6),
                (450, 7),
            ],
        );
        let spans = p.latency_spans(IoDir::Read, 480 * MS);
        let rows: Vec<(u64, u64, u128)> = spans
            .iter()
            .map(|s| (s.t_ns / MS, s.ios, s.lat_ns))
            .collect();
        // 120 starts the first row (10, 50, 120); 340 the next (130, 340): the period from
        // 200 had none; 420 the next (420 alone); then the rest (450) at the end.
        assert_eq!(
            rows,
            [(120, 3, 6), (340, 2, 9), (420, 1, 6), (480, 1, 7)],
            "{spans:?}"
        );
    }

    #[test]
    fn no_last_row_when_the_last_completion_started_one() {
        let p = fed(100, &[(10, 1), (100, 2)]);
        let spans = p.latency_spans(IoDir::Read, 100 * MS);
        assert_eq!(spans.len(), 1);
        assert_eq!((spans[0].t_ns, spans[0].ios), (100 * MS, 2));
    }

    #[test]
    fn each_periods_ios_from_the_edges() {
        let p = fed(100, &[(10, 1), (50, 2), (120, 3), (340, 5), (420, 6)]);
        let n: Vec<u64> = p.per_period(IoDir::Read, 5).iter().map(|t| t.ios).collect();
        assert_eq!(n, [2, 1, 0, 1, 1]);
        assert_eq!(p.per_period(IoDir::Write, 2)[1], Totals::default());
    }

    #[test]
    fn workers_merge_into_one_series() {
        // Two workers: one ends early, the other's first completion in period 1 comes first.
        let a = fed(100, &[(10, 1), (150, 2)]);
        let b = fed(100, &[(20, 3), (110, 4), (230, 5)]);
        let m = Periods::merged(&[&a, &b]).unwrap();
        let all = fed(100, &[(10, 1), (20, 3), (110, 4), (150, 2), (230, 5)]);
        assert_eq!(
            m.latency_spans(IoDir::Read, 250 * MS),
            all.latency_spans(IoDir::Read, 250 * MS)
        );
        assert_eq!(m.per_period(IoDir::Read, 2), all.per_period(IoDir::Read, 2));
        assert!(Periods::merged(&[]).is_none());
    }
}
