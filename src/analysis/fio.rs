//! halfpower's results in fio's terms: each fio job's run record turned into fio's per-job
//! figures (bandwidth in KiB/s, latency objects in ns, percentiles keyed as fio keys them,
//! latency ranges, per-second bandwidth samples) and the disks into `disk_util`. Pure
//! computation; docs/fio.md says how each figure is defined and where it differs from fio's.

use crate::analysis::uncertainty::{mean, variance};
use crate::model::fio::{DirReport, DiskUtil, LatNs, Ordered};
use crate::oscounters::diskstats::DeviceDelta;
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

/// The share (%) of submissions at each in-flight depth, fio's keys. halfpower's workers
/// refill every free slot before they wait, so every submission of the measured phase goes
/// out with the queue at the job's depth (by construction, not measured; docs/fio.md).
pub fn iodepth_levels(qd: u32) -> Ordered<f64> {
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let at = match qd {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    };
    Ordered(
        keys.iter()
            .enumerate()
            .map(|(i, k)| (k.to_string(), if i == at { 100.0 } else { 0.0 }))
            .collect(),
    )
}

/// fio's `iodepth_submit`/`iodepth_complete` keys, all zero: halfpower does not count how many
/// I/Os each submit call or reap carries.
pub fn not_measured_depths() -> Ordered<f64> {
    Ordered(
        ["0", "4", "8", "16", "32", "64", ">=64"]
            .iter()
            .map(|k| (k.to_string(), 0.0))
            .collect(),
    )
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

/// One direction in fio's terms. `seconds` is the measured time; `samples` the per-second
/// rates; `percentiles` where fio's list goes; `bins` for json+.
pub fn dir_report(
    d: &DirSummary,
    seconds: f64,
    samples: &Samples,
    percentiles: Percentiles<'_>,
    bins: bool,
) -> DirReport {
    let kib = |bps: f64| bps / 1024.0;
    let bw: Vec<f64> = samples.iter().map(|s| kib(s.1)).collect();
    let iops: Vec<f64> = samples.iter().map(|s| s.0).collect();
    let min = |x: &[f64]| x.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |x: &[f64]| x.iter().copied().fold(0.0, f64::max);
    let some = !samples.is_empty();
    let bytes_per_s = if seconds > 0.0 {
        d.bytes as f64 / seconds
    } else {
        0.0
    };
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
        bw_min: if some { min(&bw).round() as u64 } else { 0 },
        bw_max: max(&bw).round() as u64,
        bw_agg: 100.0,
        bw_mean: mean(&bw),
        bw_dev: variance(&bw).sqrt(),
        bw_samples: samples.len() as u64,
        iops_min: if some { min(&iops).round() as u64 } else { 0 },
        iops_max: max(&iops).round() as u64,
        iops_mean: mean(&iops),
        iops_stddev: variance(&iops).sqrt(),
        iops_samples: samples.len() as u64,
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
        let r = dir_report(&d, 2.0, &samples, p, true);
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
    fn depth_levels() {
        let l = iodepth_levels(16);
        assert_eq!(l.0[4], ("16".to_string(), 100.0));
        assert_eq!(l.0.iter().map(|e| e.1).sum::<f64>(), 100.0);
        assert_eq!(iodepth_levels(1).0[0].1, 100.0);
        assert_eq!(iodepth_levels(128).0[6].1, 100.0);
    }
}
