//! From merged raw counts to the figures halfpower prints and writes: per-direction summaries
//! (IOPS, MB/s, latency percentiles in µs) and the per-second series.

use super::Histogram;
use super::histogram::Bucket;
use super::recorder::{DirStats, SecondSample};
use serde::{Deserialize, Serialize};

/// Latency percentiles of one direction, µs (submission to completion of each I/O).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    /// Smallest (exact).
    pub min: f64,
    /// Mean (exact).
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    #[serde(rename = "p99.9")]
    pub p99_9: f64,
    /// 99.99th percentile.
    #[serde(rename = "p99.99")]
    pub p99_99: f64,
    /// Largest (exact).
    pub max: f64,
}

impl LatencySummary {
    /// Percentiles of `h`, converted from ns to µs.
    pub fn of(h: &Histogram) -> Self {
        let us = |ns: f64| ns / 1000.0;
        LatencySummary {
            min: us(h.min_ns() as f64),
            mean: us(h.mean_ns()),
            p50: us(h.quantile_ns(0.50)),
            p90: us(h.quantile_ns(0.90)),
            p99: us(h.quantile_ns(0.99)),
            p99_9: us(h.quantile_ns(0.999)),
            p99_99: us(h.quantile_ns(0.9999)),
            max: us(h.max_ns() as f64),
        }
    }
}

/// What one direction (or the total) did over the measured window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DirSummary {
    /// I/Os completed.
    pub ios: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// I/Os per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// 10^6 bytes per second.
    pub mb_per_s: f64,
    /// Latency percentiles, µs.
    pub latency_us: LatencySummary,
    /// Non-empty histogram buckets (ns).
    pub histogram: Vec<Bucket>,
}

impl DirSummary {
    /// The summary of `d` over `seconds`.
    pub fn of(d: &DirStats, seconds: f64) -> Self {
        let rate = |n: u64| {
            if seconds > 0.0 {
                n as f64 / seconds
            } else {
                0.0
            }
        };
        DirSummary {
            ios: d.ios,
            bytes: d.bytes,
            iops: rate(d.ios),
            bytes_per_s: rate(d.bytes),
            mb_per_s: rate(d.bytes) / 1e6,
            latency_us: LatencySummary::of(&d.hist),
            histogram: d.hist.buckets(),
        }
    }
}

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
}

/// One second of one disk under the targets, sampled by the runner's watch thread at whole
/// seconds of the measured phase (so within a few ms of the I/O series' seconds).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DeviceSecond {
    /// Second since the start of the measured phase (0-based), as [`TimePoint::t_s`].
    pub t_s: u32,
    /// Kernel device name.
    pub device: String,
    /// Busy time in that second, % (iostat %util).
    pub util_pct: f64,
    /// Mean number of I/Os in progress in it (iostat aqu-sz).
    pub aqu_sz: f64,
}

/// Merges per-worker second samples by second index; the last second is scaled by its real
/// length `last_second_s` (a run of 2.5 s has a half last second).
pub fn merge_series(samples: &[&[SecondSample]], total_seconds: f64) -> Vec<TimePoint> {
    let n = samples
        .iter()
        .flat_map(|s| s.iter().map(|x| x.second as usize + 1))
        .max()
        .unwrap_or(0);
    let mut ios = vec![0u64; n];
    let mut bytes = vec![0u64; n];
    let mut hists: Vec<Histogram> = Vec::with_capacity(n);
    hists.resize_with(n, Histogram::new);
    for worker in samples {
        for s in worker.iter() {
            let i = s.second as usize;
            ios[i] += s.ios;
            bytes[i] += s.bytes;
            hists[i].add_sparse(&s.buckets);
        }
    }
    (0..n)
        .map(|i| {
            let len = (total_seconds - i as f64).clamp(1e-3, 1.0);
            TimePoint {
                t_s: i as u32,
                iops: ios[i] as f64 / len,
                bytes_per_s: bytes[i] as f64 / len,
                p99_us: hists[i].quantile_ns(0.99) / 1000.0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_merge_across_workers_and_scale_the_tail() {
        let a = vec![
            SecondSample {
                second: 0,
                ios: 100,
                bytes: 409_600,
                buckets: vec![(200, 100)],
            },
            SecondSample {
                second: 1,
                ios: 50,
                bytes: 204_800,
                buckets: vec![(200, 50)],
            },
        ];
        let b = vec![SecondSample {
            second: 0,
            ios: 10,
            bytes: 40_960,
            buckets: vec![(250, 10)],
        }];
        let s = merge_series(&[&a, &b], 1.5);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].iops, 110.0);
        assert_eq!(s[1].iops, 100.0); // 50 I/Os in half a second
        assert!(s[0].p99_us > 0.0);
    }

    #[test]
    fn rates_use_the_window() {
        let mut d = DirStats::default();
        for _ in 0..1000 {
            d.ios += 1;
            d.bytes += 4096;
            d.hist.record(100_000);
        }
        let s = DirSummary::of(&d, 0.5);
        assert_eq!(s.iops, 2000.0);
        assert_eq!(s.mb_per_s, 2000.0 * 4096.0 / 1e6);
        assert!((s.latency_us.p50 - 100.0).abs() < 0.5);
        assert_eq!(s.histogram.len(), 1);
    }
}
