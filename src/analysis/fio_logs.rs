//! The rows of fio 3.33's averaged logs (`log_avg_msec`), from a job's counts at the period
//! edges (`stats::periods`) or, for `log_max_value`, from its per-I/O record; pure arithmetic,
//! each rule fio's own (stat.c):
//!
//! - Bandwidth and IOPS: a row per whole period of the job and direction with I/O in it, at
//!   the period's end, its value the period's bytes × 1000 / ms / 1024 (KiB/s) or I/Os × 1000
//!   / ms, in integers (`__add_samples`). fio's helper thread takes these while the job runs,
//!   so the part-period at the end has no row.
//! - Latency: per direction, a row at the first completion in each period after the first
//!   that has one, holding the mean of the I/Os since the previous row's (that one
//!   included), rounded half up (`add_log_sample`); and when the job ends, a row at that
//!   time holding the I/Os since the last row, if there are any (`finalize_logs`). On a
//!   throttled device those are the I/Os that waited out the last slice.
//! - Submission latency (halfpower measures none: 0): fio logs it at each submission, so
//!   its rows are those the completions start before the job stops issuing, then the last
//!   row when it ends.

use crate::engine::IoDir;
use crate::stats::iolog::IoRecord;
use crate::stats::periods::{Periods, Span};

/// One row of an averaged log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// ms since the measured phase began.
    pub t_ms: u64,
    /// The value: KiB/s, IOPS or ns.
    pub value: u64,
    /// 0 for reads, 1 for writes.
    pub dir: u8,
}

/// What a rate row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// KiB/s.
    Bw,
    /// I/Os per second.
    Iops,
}

const MS: u64 = 1_000_000;

fn dir_code(d: IoDir) -> u8 {
    u8::from(d == IoDir::Write)
}

/// fio's integer rate of `count` (bytes or I/Os) over `ms`: × 1000 / ms, then / 1024 for KiB.
pub fn rate(count: u64, ms: u64, rate: Rate) -> u64 {
    let per_s = count.saturating_mul(1000) / ms.max(1);
    match rate {
        Rate::Bw => per_s / 1024,
        Rate::Iops => per_s,
    }
}

/// fio's rounded mean of `n` latencies adding up to `sum_ns`: the mean + 0.5, truncated.
pub fn mean_ns(sum_ns: u128, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    (sum_ns as f64 / n as f64 + 0.5) as u64
}

/// The rate rows of `p` for the directions `dirs`, over a job that ran `end_ns`: a row per
/// whole period and direction with I/O in it, in time order (reads first).
pub fn rate_rows(p: &Periods, dirs: &[IoDir], kind: Rate, end_ns: u64) -> Vec<Row> {
    let n = (end_ns / p.period_ns()) as usize;
    let ms = p.period_ns() / MS;
    let per: Vec<_> = dirs.iter().map(|&d| (d, p.per_period(d, n))).collect();
    let mut out = Vec::new();
    for k in 0..n {
        for (d, counts) in &per {
            let c = counts[k];
            if c.ios == 0 {
                continue;
            }
            let count = match kind {
                Rate::Bw => c.bytes,
                Rate::Iops => c.ios,
            };
            out.push(Row {
                t_ms: (k as u64 + 1) * ms,
                value: rate(count, ms, kind),
                dir: dir_code(*d),
            });
        }
    }
    out
}

/// Rows of `spans` of each direction merged in time order (at one time, reads first).
fn in_time_order(per_dir: Vec<(IoDir, Vec<Span>)>, value: impl Fn(&Span) -> u64) -> Vec<Row> {
    let mut out: Vec<(u64, Row)> = per_dir
        .iter()
        .flat_map(|(d, spans)| {
            spans.iter().map(|s| {
                let row = Row {
                    t_ms: s.t_ns / MS,
                    value: value(s),
                    dir: dir_code(*d),
                };
                (s.t_ns, row)
            })
        })
        .collect();
    out.sort_by_key(|r| (r.0, r.1.dir));
    out.into_iter().map(|r| r.1).collect()
}

/// The mean-latency rows of `p` for `dirs`, over a job that ended at `end_ns`.
pub fn latency_rows(p: &Periods, dirs: &[IoDir], end_ns: u64) -> Vec<Row> {
    let per = dirs
        .iter()
        .map(|&d| (d, p.latency_spans(d, end_ns)))
        .collect();
    in_time_order(per, |s| mean_ns(s.lat_ns, s.ios))
}

/// The submission-latency rows (all 0) of `p` for `dirs`, over a job that stopped issuing at
/// `issued_ns` and ended at `end_ns`: the latency rows started before `issued_ns`, then one
/// at the end holding the rest, if there is any.
pub fn slat_rows(p: &Periods, dirs: &[IoDir], issued_ns: u64, end_ns: u64) -> Vec<Row> {
    let per = dirs
        .iter()
        .map(|&d| {
            let spans = p.latency_spans(d, end_ns);
            let kept = spans.iter().take_while(|s| s.t_ns < issued_ns).count();
            let mut out = spans[..kept].to_vec();
            if kept < spans.len() {
                out.push(Span {
                    t_ns: end_ns,
                    ios: 0,
                    lat_ns: 0,
                });
            }
            (d, out)
        })
        .collect();
    in_time_order(per, |_| 0)
}

/// One direction's window as fio keeps it (`avg_window`, `avg_last`).
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    n: u64,
    sum: u128,
    max: u64,
    last_ms: u64,
}

/// The latency rows fio writes of the I/Os `ios` (in completion order), as its
/// `add_log_sample` and `finalize_logs` do, I/O by I/O, with periods of `avg_ms` and the job
/// ending at `end_ms`: each row the mean of its I/Os, or with `max` their largest latency.
pub fn latency_rows_of<'a>(
    ios: impl Iterator<Item = &'a IoRecord>,
    avg_ms: u64,
    end_ms: u64,
    max: bool,
) -> Vec<Row> {
    let value = |w: &Window| if max { w.max } else { mean_ns(w.sum, w.n) };
    let mut win = [Window::default(); 2];
    let mut out = Vec::new();
    for r in ios {
        let d = dir_code(r.dir());
        let w = &mut win[d as usize];
        let elapsed = r.t_ns / MS;
        w.n += 1;
        w.sum += u128::from(r.lat_ns);
        w.max = w.max.max(r.lat_ns);
        if elapsed < w.last_ms + avg_ms.max(1) {
            continue;
        }
        out.push(Row {
            t_ms: elapsed,
            value: value(w),
            dir: d,
        });
        *w = Window {
            last_ms: elapsed - elapsed % avg_ms.max(1),
            ..Window::default()
        };
    }
    for (d, w) in win.iter().enumerate() {
        if w.n > 0 {
            out.push(Row {
                t_ms: end_ms,
                value: value(w),
                dir: d as u8,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Recorder;
    use crate::stats::iolog::IoLog;

    /// A recorder keeping both the periods of `avg_ms` and the per-I/O record, fed `ios`:
    /// (completion ms, latency ns, direction), from an origin of 7 ns.
    fn recorded(avg_ms: u64, ios: &[(f64, u64, IoDir)]) -> Recorder {
        let origin = 7;
        let mut rec = Recorder::new(origin);
        rec.keep_log(0);
        rec.keep_periods(avg_ms * MS);
        for &(t_ms, lat, dir) in ios {
            let t = origin + (t_ms * MS as f64) as u64;
            rec.complete(dir, 4096, lat, t, || (0, 0));
        }
        rec.finish();
        rec
    }

    /// Completions of a throttled device, as fio saw them: bursts at each 100-ms slice, the
    /// first I/Os of a burst slow (they waited for it), a direction missing from some periods.
    fn bursts() -> Vec<(f64, u64, IoDir)> {
        let mut ios = Vec::new();
        for slice in 0..31u64 {
            let start = slice as f64 * 100.0 + 3.5;
            for i in 0..40u64 {
                let lat = if i < 4 {
                    95_000_000 + i * 1000
                } else {
                    20_000 + i
                };
                let dir = if i % 7 == 3 && slice % 5 != 2 {
                    IoDir::Write
                } else {
                    IoDir::Read
                };
                ios.push((start + i as f64 * 0.05, lat, dir));
            }
        }
        ios
    }

    #[test]
    fn latency_rows_from_the_edges_are_fios_from_each_io() {
        let ios = bursts();
        let both = [IoDir::Read, IoDir::Write];
        for avg in [1, 7, 100, 250, 500, 1000] {
            let rec = recorded(avg, &ios);
            let p = rec.periods.as_deref().unwrap();
            let log: &IoLog = rec.log.as_deref().unwrap();
            let end_ms = 3090;
            let fio = latency_rows_of(log.iter(), avg, end_ms, false);
            assert_eq!(latency_rows(p, &both, end_ms * MS), fio, "every {avg} ms");
            // The last row holds the I/Os after the last period's first completion.
            let last = fio.iter().rev().find(|r| r.dir == 0).unwrap();
            assert_eq!(last.t_ms, end_ms, "every {avg} ms");
        }
    }

    #[test]
    fn fios_rows_of_a_throttled_second() {
        // Periods of 1000 ms: the rows start at 1003, 2003, 3003 (each burst's first, slow,
        // read); the last row at the end holds the two other slow reads of the last burst
        // and the fast reads after them.
        let ios: Vec<_> = bursts()
            .into_iter()
            .filter(|i| i.2 == IoDir::Read)
            .collect();
        let rec = recorded(1000, &ios);
        let rows = latency_rows(rec.periods.as_deref().unwrap(), &[IoDir::Read], 3090 * MS);
        let times: Vec<u64> = rows.iter().map(|r| r.t_ms).collect();
        assert_eq!(times, [1003, 2003, 3003, 3090]);
        let fast: u64 = (4..40).filter(|i| i % 7 != 3).map(|i| 20_000 + i).sum();
        let n = (4..40).filter(|i| i % 7 != 3).count() as u64;
        let want = (2 * 95_000_000 + 1000 + 2000 + fast) as f64 / (2 + n) as f64;
        assert_eq!(rows[3].value, (want + 0.5) as u64);
    }

    #[test]
    fn rates_per_whole_period_in_fios_integers() {
        let ios = bursts();
        let rec = recorded(100, &ios);
        let p = rec.periods.as_deref().unwrap();
        let both = [IoDir::Read, IoDir::Write];
        // 3.05 s: 30 whole periods; reads each, writes in those of slices not 2 mod 5.
        let iops = rate_rows(p, &both, Rate::Iops, 3_050 * MS);
        let reads: Vec<&Row> = iops.iter().filter(|r| r.dir == 0).collect();
        assert_eq!(reads.len(), 30);
        assert_eq!(iops.iter().filter(|r| r.dir == 1).count(), 24);
        assert_eq!((reads[0].t_ms, reads[29].t_ms), (100, 3000));
        // Slice 2: 40 reads in 100 ms; slice 3: 34.
        assert_eq!((reads[2].value, reads[3].value), (400, 340));
        let bw = rate_rows(p, &both, Rate::Bw, 3_050 * MS);
        assert_eq!(bw[0].value, 34 * 4096 * 1000 / 100 / 1024);
        assert_eq!(rate(1000, 3, Rate::Iops), 333_333);
        assert_eq!(rate(4096 * 7, 3, Rate::Bw), 9333);
    }

    #[test]
    fn submission_rows_stop_with_the_issuing() {
        let ios: Vec<_> = bursts()
            .into_iter()
            .filter(|i| i.2 == IoDir::Read)
            .collect();
        let rec = recorded(1000, &ios);
        let p = rec.periods.as_deref().unwrap();
        let rows = slat_rows(p, &[IoDir::Read], 3000 * MS, 3090 * MS);
        let times: Vec<(u64, u64)> = rows.iter().map(|r| (r.t_ms, r.value)).collect();
        assert_eq!(times, [(1003, 0), (2003, 0), (3090, 0)]);
    }

    #[test]
    fn maxima_of_each_row() {
        let ios = bursts();
        let rec = recorded(1000, &ios);
        let log = rec.log.as_deref().unwrap();
        let rows = latency_rows_of(log.iter(), 1000, 3090, true);
        // Every read row holds a burst's slow reads; the writes of the last burst after its
        // first are fast, the slowest 20 038 ns (its 39th I/O).
        assert!(
            rows.iter()
                .filter(|r| r.dir == 0)
                .all(|r| r.value >= 95_000_000),
            "{rows:?}"
        );
        assert_eq!(rows.last().map(|r| (r.t_ms, r.value)), Some((3090, 20_038)));
    }
}
