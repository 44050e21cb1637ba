//! halfpower's results in fio's terms: each fio job's run record turned into fio's per-job
//! figures (bandwidth in KiB/s, latency objects in ns, percentiles keyed as fio keys them,
//! latency ranges, per-second bandwidth samples) and the disks into `disk_util`. Pure
//! computation; docs/fio.md says how each figure is defined and where it differs from fio's.

use crate::analysis::uncertainty::{mean, variance};
use crate::model::fio::{DirReport, DiskUtil, LatNs, Ordered};
use crate::oscounters::diskstats::DeviceDelta;
use crate::stats::depth::{BUCKETS, DepthCounts};
use crate::stats::histogram::Histogram;
use crate::stats::summary::DirSummary;

/// Per-second samples of one direction: (IOPS, bytes/s) of each whole second.
pub type Samples = Vec<(f64, f64)>;

/// fio's percentile key: `99.000000`.
pub fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

/// The histogram a direction's summary carries.
pub fn histogram(d: &DirSummary) -> Histogram {
    Histogram::from_buckets(
        &d.histogram,
        (d.latency_us.min * 1000.0).round() as u64,
        (d.latency_us.max * 1000.0).round() as u64,
        d.latency_us.mean * 1000.0,
    )
}

/// A latency object (`clat_ns`, `lat_ns`) of a direction, with `percentiles` and `bins`
/// (json+) when asked.
pub fn lat_ns(d: &DirSummary, percentiles: Option<&[f64]>, bins: bool) -> LatNs {
    let h = histogram(d);
    LatNs {
        min: h.min_ns(),
        max: h.max_ns(),
        mean: h.mean_ns(),
        stddev: h.stddev_ns(),
        n: h.count(),
        percentile: percentiles.map(|ps| {
            Ordered(
                ps.iter()
                    .map(|&p| (percentile_key(p), h.quantile_ns(p / 100.0).round() as u64))
                    .collect(),
            )
        }),
        bins: bins.then(|| {
            Ordered(
                d.histogram
                    .iter()
                    .map(|b| ((b.low_ns + (b.width_ns - 1) / 2).to_string(), b.count))
                    .collect(),
            )
        }),
    }
}

/// fio's latency ranges: the upper bound of each and its key, per unit.
const NS_BOUNDS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
const MS_BOUNDS: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];

/// `latency_ns`, `latency_us`, `latency_ms`: the share of I/Os (%) in each of fio's ranges
/// (`"250"` under `latency_us` holds the I/Os above 100 µs and at most 250 µs; the last key of
/// `latency_ms`, `">=2000"`, everything from 2 s).
pub fn latency_ranges(h: &Histogram) -> [Ordered<f64>; 3] {
    let n = h.count().max(1) as f64;
    let share = |lo: f64, hi: f64| 100.0 * h.count_between(lo, hi) as f64 / n;
    let unit = |scale: f64, bounds: &[u64], first_low: f64| {
        let mut lo = first_low;
        bounds
            .iter()
            .map(|&b| {
                let hi = b as f64 * scale;
                let v = share(lo, hi);
                lo = hi;
                (b.to_string(), v)
            })
            .collect::<Vec<_>>()
    };
    let ns = unit(1.0, &NS_BOUNDS, -1.0);
    let us = unit(1e3, &NS_BOUNDS, 1e3);
    let mut ms = unit(1e6, &MS_BOUNDS, 1e6);
    ms.push((">=2000".into(), share(2e9, f64::INFINITY)));
    [Ordered(ns), Ordered(us), Ordered(ms)]
}

/// Shares (%) of `counts` over `total`, keyed `keys`, as fio's `stat_calc_dist`: a bucket
/// that holds anything shows at least 0.1.
fn shares(counts: &[u64; BUCKETS], total: u64, keys: [&str; BUCKETS]) -> Ordered<f64> {
    Ordered(
        keys.iter()
            .zip(counts)
            .map(|(k, &n)| {
                let pct = if total > 0 {
                    100.0 * n as f64 / total as f64
                } else {
                    0.0
                };
                let pct = if n > 0 { pct.max(0.1) } else { pct };
                (k.to_string(), pct)
            })
            .collect(),
    )
}

/// fio's `iodepth_level`, `iodepth_submit` and `iodepth_complete` from halfpower's counts:
/// the share of reads and writes submitted at each in-flight depth (counted once their submit
/// call has sent them, its own I/Os included), and the share of submit calls and of reaps by
/// how many I/Os each carried.
pub fn depth_levels(d: &DepthCounts) -> [Ordered<f64>; 3] {
    const LEVELS: [&str; BUCKETS] = ["1", "2", "4", "8", "16", "32", ">=64"];
    const BATCHES: [&str; BUCKETS] = ["0", "4", "8", "16", "32", "64", ">=64"];
    let total = |c: &[u64; BUCKETS]| c.iter().sum::<u64>();
    [
        shares(&d.level, total(&d.level), LEVELS),
        shares(&d.submit, total(&d.submit), BATCHES),
        shares(&d.complete, total(&d.complete), BATCHES),
    ]
}

/// fio's summary of a set of per-period samples (`bw_*`, `iops_*`): smallest, largest, mean,
/// sample standard deviation, count; all 0 without samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleStat {
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation (n − 1; 0 below two samples).
    pub dev: f64,
    /// How many.
    pub n: u64,
}

impl SampleStat {
    /// The summary of `x`.
    pub fn of(x: &[f64]) -> Self {
        if x.is_empty() {
            return SampleStat::default();
        }
        SampleStat {
            min: x.iter().copied().fold(f64::INFINITY, f64::min),
            max: x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean: mean(x),
            dev: variance(x).sqrt(),
            n: x.len() as u64,
        }
    }

    /// fio's `mixed` samples: the directions' summaries added term by term (smallest to
    /// smallest, mean to mean, counts and sums of squares too), as its `sum_stat` does.
    pub fn added(a: SampleStat, b: SampleStat) -> Self {
        if a.n == 0 {
            return b;
        }
        if b.n == 0 {
            return a;
        }
        let squares = |s: SampleStat| s.dev * s.dev * (s.n as f64 - 1.0);
        let n = a.n + b.n;
        SampleStat {
            min: a.min + b.min,
            max: a.max + b.max,
            mean: a.mean + b.mean,
            dev: ((squares(a) + squares(b)) / (n as f64 - 1.0)).sqrt(),
            n,
        }
    }
}

/// The per-period samples of one direction: its (IOPS, bytes/s) in each period, those
/// periods without any of its I/O left out as fio leaves them out; bandwidth in KiB/s.
pub fn sample_stats(bw: &Samples, iops: &Samples) -> (SampleStat, SampleStat) {
    let kib: Vec<f64> = bw
        .iter()
        .filter(|s| s.1 > 0.0)
        .map(|s| s.1 / 1024.0)
        .collect();
    let ios: Vec<f64> = iops.iter().filter(|s| s.0 > 0.0).map(|s| s.0).collect();
    (SampleStat::of(&kib), SampleStat::of(&ios))
}

/// fio's `bw_agg`: the mean sampled bandwidth (whole KiB/s) as a share of the group's
/// aggregate `agg_bytes_per_s`, at most 100; 100 when the group moved under 1 KiB/s.
pub fn share_of_group(mean_kib: f64, agg_bytes_per_s: f64) -> f64 {
    if agg_bytes_per_s > 1024.0 {
        (mean_kib.trunc() * 100.0 / (agg_bytes_per_s / 1024.0)).min(100.0)
    } else {
        100.0
    }
}

/// Which latency objects carry percentiles, and which: fio's percentile_list under `clat_ns`
/// (unless clat_percentiles=0) and under `lat_ns` (with lat_percentiles=1).
#[derive(Clone, Copy, Debug, Default)]
pub struct Percentiles<'a> {
    /// For `clat_ns`.
    pub clat: Option<&'a [f64]>,
    /// For `lat_ns`.
    pub lat: Option<&'a [f64]>,
}

/// The per-period samples of a direction: bandwidth (KiB/s) and IOPS, and the group's
/// aggregate bandwidth (bytes/s) that `bw_agg` is a share of.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sampled {
    /// Bandwidth samples, KiB/s.
    pub bw: SampleStat,
    /// IOPS samples.
    pub iops: SampleStat,
    /// The group's bandwidth in this direction, bytes/s.
    pub group_bytes_per_s: f64,
}

/// One direction in fio's terms. `seconds` is the measured time; `sampled` its per-period
/// samples; `percentiles` where fio's list goes; `bins` for json+.
pub fn dir_report(
    d: &DirSummary,
    seconds: f64,
    sampled: &Sampled,
    percentiles: Percentiles<'_>,
    bins: bool,
) -> DirReport {
    let kib = |bps: f64| bps / 1024.0;
    let bytes_per_s = if seconds > 0.0 {
        d.bytes as f64 / seconds
    } else {
        0.0
    };
    let (bw, iops) = (sampled.bw, sampled.iops);
    DirReport {
        io_bytes: d.bytes,
        io_kbytes: d.bytes / 1024,
        bw_bytes: bytes_per_s.round() as u64,
        bw: kib(bytes_per_s).round() as u64,
        iops: d.iops,
        runtime: (seconds * 1000.0).round() as u64,
        total_ios: d.ios,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: LatNs::default(),
        clat_ns: lat_ns(d, percentiles.clat, bins),
        lat_ns: lat_ns(d, percentiles.lat, false),
        bw_min: bw.min.round() as u64,
        bw_max: bw.max.round() as u64,
        bw_agg: if bw.n > 0 {
            share_of_group(bw.mean, sampled.group_bytes_per_s)
        } else {
            0.0
        },
        bw_mean: bw.mean,
        bw_dev: bw.dev,
        bw_samples: bw.n,
        iops_min: iops.min.round() as u64,
        iops_max: iops.max.round() as u64,
        iops_mean: iops.mean,
        iops_stddev: iops.dev,
        iops_samples: iops.n,
    }
}

/// fio's `disk_util`: each disk's counters summed over every job's measured window (in the
/// order the disks first appear), its %util weighted by each window's length.
pub fn disk_util(deltas: &[&DeviceDelta]) -> Vec<DiskUtil> {
    let mut out: Vec<(DiskUtil, f64)> = Vec::new();
    for d in deltas {
        let i = match out.iter().position(|(u, _)| u.name == d.name) {
            Some(i) => i,
            None => {
                out.push((
                    DiskUtil {
                        name: d.name.clone(),
                        read_ios: 0,
                        write_ios: 0,
                        read_merges: 0,
                        write_merges: 0,
                        read_ticks: 0,
                        write_ticks: 0,
                        in_queue: 0,
                        util: 0.0,
                    },
                    0.0,
                ));
                out.len() - 1
            }
        };
        let (u, seconds) = &mut out[i];
        u.read_ios += d.reads;
        u.write_ios += d.writes;
        u.read_merges += d.read_merges;
        u.write_merges += d.write_merges;
        u.read_ticks += (d.r_await_ms * d.reads as f64).round() as u64;
        u.write_ticks += (d.w_await_ms * d.writes as f64).round() as u64;
        u.in_queue += (d.aqu_sz * d.seconds * 1000.0).round() as u64;
        let total = *seconds + d.seconds;
        if total > 0.0 {
            u.util = (u.util * *seconds + d.util_pct * d.seconds) / total;
        }
        *seconds = total;
    }
    out.into_iter().map(|(u, _)| u).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::recorder::DirStats;

    fn summary(latencies_ns: &[u64], seconds: f64) -> DirSummary {
        let mut d = DirStats::default();
        for &l in latencies_ns {
            d.ios += 1;
            d.bytes += 4096;
            d.hist.record(l);
        }
        DirSummary::of(&d, seconds)
    }

    #[test]
    fn a_direction_in_fio_units() {
        let lats: Vec<u64> = (0..1000).map(|i| 100_000 + i * 100).collect();
        let d = summary(&lats, 2.0);
        let samples = vec![(400.0, 400.0 * 4096.0), (600.0, 600.0 * 4096.0)];
        let p = Percentiles {
            clat: Some(&[50.0, 99.0]),
            lat: None,
        };
        let (bw, iops) = sample_stats(&samples, &samples);
        let sampled = Sampled {
            bw,
            iops,
            group_bytes_per_s: 2_048_000.0,
        };
        let r = dir_report(&d, 2.0, &sampled, p, true);
        assert_eq!(r.io_bytes, 4_096_000);
        assert_eq!(r.io_kbytes, 4000);
        assert_eq!(r.bw, 2000, "KiB/s: 4000 KiB over 2 s");
        assert_eq!(r.bw_bytes, 2_048_000);
        assert_eq!(r.runtime, 2000);
        assert_eq!(r.total_ios, 1000);
        assert_eq!((r.bw_min, r.bw_max, r.bw_samples), (1600, 2400, 2));
        assert_eq!((r.iops_min, r.iops_max), (400, 600));
        assert!((r.iops_mean - 500.0).abs() < 1e-9);
        assert_eq!(r.slat_ns.n, 0, "submission latency is not measured apart");
        assert_eq!(r.clat_ns.n, 1000);
        let p = r.clat_ns.percentile.as_ref().unwrap();
        assert_eq!(p.0[0].0, "50.000000");
        let p50 = p.0[0].1 as f64;
        assert!((p50 / 149_950.0 - 1.0).abs() < 0.005, "{p50}");
        let sum: u64 = r.clat_ns.bins.as_ref().unwrap().0.iter().map(|b| b.1).sum();
        assert_eq!(sum, 1000);
        assert!(r.lat_ns.percentile.is_none());
        // Standard deviation of 100..199.9 µs in 0.1-µs steps: 28.9 µs.
        assert!(
            (r.clat_ns.stddev / 28_882.0 - 1.0).abs() < 0.01,
            "{}",
            r.clat_ns.stddev
        );
    }

    #[test]
    fn latency_ranges_add_up_and_land_where_fio_puts_them() {
        let d = summary(&[1_500, 150_000, 150_000, 3_000_000_000], 1.0);
        let [ns, us, ms] = latency_ranges(&histogram(&d));
        let total: f64 = [&ns, &us, &ms]
            .iter()
            .flat_map(|o| o.0.iter().map(|e| e.1))
            .sum();
        assert!((total - 100.0).abs() < 1e-9, "{total}");
        let get = |o: &Ordered<f64>, k: &str| o.0.iter().find(|e| e.0 == k).unwrap().1;
        assert_eq!(get(&us, "2"), 25.0);
        assert_eq!(get(&us, "250"), 50.0);
        assert_eq!(get(&ms, ">=2000"), 25.0);
        assert_eq!(get(&ns, "1000"), 0.0);
    }

    #[test]
    fn depth_levels_are_shares_of_what_was_counted() {
        let mut d = DepthCounts::default();
        for _ in 0..999 {
            d.submit_call(1, 1, 0, false);
        }
        d.submit_call(1, 6, 0, false);
        d.reap_call(1);
        d.reap_call(2);
        let [level, submit, complete] = depth_levels(&d);
        assert_eq!(level.0[0], ("1".to_string(), 99.9));
        assert_eq!(
            level.0[2],
            ("4".to_string(), 0.1),
            "6 in flight is fio's '4' bucket"
        );
        assert_eq!(
            submit.0[1],
            ("4".to_string(), 100.0),
            "1000 calls of one I/O"
        );
        assert_eq!(complete.0[1].1, 100.0);
        let [none, ..] = depth_levels(&DepthCounts::default());
        assert!(none.0.iter().all(|e| e.1 == 0.0));
    }

    #[test]
    fn samples_as_fio_sums_and_summarizes_them() {
        assert_eq!(SampleStat::of(&[]), SampleStat::default());
        assert!(SampleStat::of(&[]).mean.is_sign_positive(), "never -0.0");
        let r = SampleStat::of(&[100.0, 300.0]);
        let w = SampleStat::of(&[50.0]);
        let m = SampleStat::added(r, w);
        assert_eq!((m.min, m.max, m.mean, m.n), (150.0, 350.0, 250.0, 3));
        // Sum of squares 20 000 over 3 − 1.
        assert!((m.dev - 100.0).abs() < 1e-9, "{}", m.dev);
        let (bw, iops) = sample_stats(&vec![(0.0, 0.0), (2.0, 2048.0)], &vec![(0.0, 0.0)]);
        assert_eq!(
            (bw.n, bw.mean, iops.n),
            (1, 2.0, 0),
            "periods without I/O are left out"
        );
        assert_eq!(share_of_group(999.9, 1024.0 * 1000.0), 99.9);
        assert_eq!(share_of_group(2000.0, 1024.0 * 1000.0), 100.0);
    }
}
