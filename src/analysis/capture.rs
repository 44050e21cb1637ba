//! A captured workload in figures (`capture`'s summary): rate, read share, size mix,
//! sequentiality, burstiness per 100 ms, requests in flight, response times. Pure arithmetic
//! over the requests; nothing here reads the kernel.

use crate::model::capture::{CaptureSummary, CapturedOp, CapturedRequest, SizeShare};
use crate::stats::Histogram;
use crate::stats::summary::LatencySummary;
use std::collections::HashMap;

/// The summary of `requests` (sorted by time) captured over `seconds`.
pub fn summarize(requests: &[CapturedRequest], seconds: f64) -> CaptureSummary {
    let data: Vec<&CapturedRequest> = requests
        .iter()
        .filter(|r| matches!(r.op, CapturedOp::Read | CapturedOp::Write))
        .collect();
    let n = data.len() as u64;
    let reads = data.iter().filter(|r| r.op == CapturedOp::Read).count() as u64;
    let count = |op| requests.iter().filter(|r| r.op == op).count() as u64;
    let mut sizes: HashMap<u64, u64> = HashMap::new();
    let (mut lat, mut dev) = (Histogram::new(), Histogram::new());
    let mut next: HashMap<CapturedOp, u64> = HashMap::new();
    let mut sequential = 0u64;
    for r in &data {
        *sizes.entry(r.bytes).or_default() += 1;
        lat.record(r.queue_ns + r.device_ns);
        dev.record(r.device_ns);
        if next.get(&r.op) == Some(&r.offset) {
            sequential += 1;
        }
        next.insert(r.op, r.offset + r.bytes);
    }
    let mut sizes: Vec<SizeShare> = sizes
        .into_iter()
        .map(|(bytes, c)| SizeShare {
            bytes,
            pct: 100.0 * c as f64 / n.max(1) as f64,
        })
        .collect();
    sizes.sort_by(|a, b| b.pct.total_cmp(&a.pct).then(a.bytes.cmp(&b.bytes)));
    sizes.truncate(8);
    let (inflight_mean, inflight_max) = inflight(&data, seconds);
    let span_s = match (data.first(), data.last()) {
        (Some(a), Some(b)) => (b.at_ns - a.at_ns) as f64 / 1e9,
        _ => 0.0,
    };
    let pct = |a: u64| 100.0 * a as f64 / n.max(1) as f64;
    CaptureSummary {
        requests: n,
        reads,
        flushes: count(CapturedOp::Flush),
        discards: count(CapturedOp::Discard),
        iops: n as f64 / seconds.max(1e-9),
        span_s,
        span_iops: if span_s > 0.0 { n as f64 / span_s } else { 0.0 },
        read_pct: pct(reads),
        bytes_per_s: data.iter().map(|r| r.bytes).sum::<u64>() as f64 / seconds.max(1e-9),
        sizes,
        sequential_pct: pct(sequential),
        peak_to_mean_100ms: peak_to_mean(&data, seconds),
        inflight_mean,
        inflight_max,
        latency_us: LatencySummary::of(&lat),
        device_us: LatencySummary::of(&dev),
    }
}

/// The busiest 100 ms against the mean of the whole 100-ms windows.
fn peak_to_mean(data: &[&CapturedRequest], seconds: f64) -> f64 {
    let bins = ((seconds / 0.1).floor() as usize).max(1);
    let mut counts = vec![0u64; bins];
    for r in data {
        let b = (r.at_ns / 100_000_000) as usize;
        if let Some(c) = counts.get_mut(b) {
            *c += 1;
        }
    }
    let mean = counts.iter().sum::<u64>() as f64 / bins as f64;
    let peak = counts.iter().copied().max().unwrap_or(0) as f64;
    if mean > 0.0 { peak / mean } else { 0.0 }
}

/// Requests in flight from start to completion: the time-weighted mean over `seconds` and
/// the most at once.
fn inflight(data: &[&CapturedRequest], seconds: f64) -> (f64, u32) {
    let mut edges: Vec<(u64, i32)> = Vec::with_capacity(data.len() * 2);
    let mut busy_ns = 0u128;
    for r in data {
        let end = r.at_ns + r.queue_ns + r.device_ns;
        edges.push((r.at_ns, 1));
        edges.push((end, -1));
        busy_ns += u128::from(end - r.at_ns);
    }
    // Completions before starts at the same instant: a request that ends as another begins
    // was not in flight with it.
    edges.sort_unstable();
    let (mut now, mut max) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        max = max.max(now);
    }
    (busy_ns as f64 / 1e9 / seconds.max(1e-9), max as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(at_us: u64, op: CapturedOp, offset: u64, bytes: u64, dev_us: u64) -> CapturedRequest {
        CapturedRequest {
            at_ns: at_us * 1000,
            op,
            offset,
            bytes,
            fua: false,
            sync: false,
            queue_ns: 0,
            device_ns: dev_us * 1000,
        }
    }

    #[test]
    fn figures_are_the_arithmetic_of_the_requests() {
        // 1 s: 3 reads of 4k (two sequential), 1 write of 64k, 1 flush; all in the first
        // 100 ms, each 100 µs at the device, the first two overlapping.
        let r = [
            req(0, CapturedOp::Read, 0, 4096, 100),
            req(50, CapturedOp::Read, 4096, 4096, 100),
            req(1000, CapturedOp::Write, 1 << 20, 65536, 100),
            req(2000, CapturedOp::Read, 1 << 30, 4096, 100),
            req(3000, CapturedOp::Flush, 0, 0, 0),
        ];
        let s = summarize(&r, 1.0);
        assert_eq!((s.requests, s.reads, s.flushes), (4, 3, 1));
        assert_eq!(s.iops, 4.0);
        assert!((s.span_s - 0.002).abs() < 1e-12);
        assert!((s.span_iops - 2000.0).abs() < 1e-6);
        assert_eq!(s.read_pct, 75.0);
        assert_eq!(
            s.sizes[0],
            SizeShare {
                bytes: 4096,
                pct: 75.0
            }
        );
        assert_eq!(s.sequential_pct, 25.0);
        assert_eq!(s.inflight_max, 2);
        assert!((s.inflight_mean - 400e-6).abs() < 1e-12);
        // All 4 in the first of ten windows: peak 4, mean 0.4.
        assert!((s.peak_to_mean_100ms - 10.0).abs() < 1e-9);
        assert!((s.device_us.mean - 100.0).abs() < 1e-9);
    }
}
