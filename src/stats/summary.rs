//! From merged raw counts to the figures halfpower prints and writes: per-direction summaries
//! (IOPS, MB/s, latency percentiles in µs) and the per-second series.

use super::Histogram;
use super::histogram::Bucket;
use super::recorder::{DirStats, ZeroSample};
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
    /// 95 % interval of the median, µs, from order statistics (assumes independent latencies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ci95: Option<[f64; 2]>,
    /// 95 % interval of the 99th percentile, µs, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ci95: Option<[f64; 2]>,
}

/// A 95 % confidence interval: its half-width, absolute and as a share of the figure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ci95 {
    /// Half-width, in the figure's unit.
    pub half: f64,
    /// Half-width as a share of the figure, %.
    pub pct: f64,
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
            p50_ci95: None,
            p99_ci95: None,
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
    /// 95 % interval of `iops` from the run's 100-ms windows (absent without enough windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_ci95: Option<Ci95>,
    /// 95 % interval of `bytes_per_s`, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_s_ci95: Option<Ci95>,
    /// Latency percentiles, µs.
    pub latency_us: LatencySummary,
    /// Non-empty histogram buckets (ns).
    pub histogram: Vec<Bucket>,
    /// Reads: their data sampled for blocks that came back zero (absent when none was
    /// checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_sample: Option<ZeroSample>,
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
            iops_ci95: None,
            bytes_per_s_ci95: None,
            latency_us: LatencySummary::of(&d.hist),
            histogram: d.hist.buckets(),
            zero_sample: (d.zeros.reads > 0).then_some(d.zeros),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
