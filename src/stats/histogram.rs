//! A mergeable log-linear (HDR) latency histogram with nanosecond resolution.
//!
//! Values below 256 ns have a bucket each; above, every power of two is split into 128 buckets,
//! so a bucket is at most 1/128 of its lower bound wide. Reporting the bucket midpoint bounds the
//! relative error by 1/256 ≈ 0.4 % (the issue asks ≤ 1 %). The range ends at 2^42 ns ≈ 73 min
//! (≥ 1 hour); larger values are counted in the last bucket and flagged by `max`.
//! Recording is one `leading_zeros`, a shift and an increment; merging adds arrays.

use serde::{Deserialize, Serialize};

const SUB_BITS: u32 = 7; // 128 buckets per power of two above the linear range
const LINEAR: u64 = 1 << (SUB_BITS + 1); // 256 exact buckets
/// The largest value (ns) with its own bucket: 2^42 − 1 ≈ 73 minutes.
pub const MAX_TRACKABLE_NS: u64 = (1 << 42) - 1;
const BUCKETS: usize = bucket_index(MAX_TRACKABLE_NS) + 1;

/// The bucket a value falls in.
#[inline]
const fn bucket_index(v: u64) -> usize {
    if v < LINEAR {
        v as usize
    } else {
        let v = if v > MAX_TRACKABLE_NS {
            MAX_TRACKABLE_NS
        } else {
            v
        };
        let msb = 63 - v.leading_zeros();
        let shift = msb - SUB_BITS; // ≥ 1
        ((shift as u64) << SUB_BITS) as usize + (v >> shift) as usize
    }
}

/// Lowest value of bucket `i` and its width.
fn bucket_bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < LINEAR {
        (i, 1)
    } else {
        // i = (shift + 1)·128 + (mantissa − 128) with mantissa = v >> shift in [128, 256).
        let shift = (i >> SUB_BITS) - 1;
        let mantissa = i - (shift << SUB_BITS);
        (mantissa << shift, 1 << shift)
    }
}

/// A latency histogram; see the module docs for its precision.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

/// One non-empty bucket, as written to JSON.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Bucket {
    /// Lowest latency in the bucket, ns.
    pub low_ns: u64,
    /// Bucket width, ns (the bucket is `[low_ns, low_ns + width_ns)`).
    pub width_ns: u64,
    /// I/Os whose latency fell in the bucket.
    pub count: u64,
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            count: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Counts one latency.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[bucket_index(ns)] += 1;
        self.count += 1;
        self.sum_ns += ns as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds every count of `other` into `self`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += *b;
        }
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Empties the histogram, keeping its memory.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.sum_ns = 0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact smallest value, ns (0 when empty).
    pub fn min_ns(&self) -> u64 {
        if self.count == 0 { 0 } else { self.min_ns }
    }

    /// Exact largest value, ns.
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// Exact sum of the values, ns.
    pub fn sum_ns(&self) -> u128 {
        self.sum_ns
    }

    /// Exact mean, ns (0 when empty).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// The value at quantile `q` (0..=1): the midpoint of the bucket holding the
    /// ⌈q·n⌉-th smallest value, clamped to the exact min and max.
    pub fn quantile_ns(&self, q: f64) -> f64 {
        let rank = (q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64;
        self.at_rank_ns(rank.max(1))
    }

    /// The value of the `rank`-th smallest value (1-based): the midpoint of its bucket, clamped
    /// to the exact min and max, as [`Histogram::quantile_ns`] reports it.
    pub fn at_rank_ns(&self, rank: u64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = rank.clamp(1, self.count);
        if rank == self.count {
            return self.max_ns as f64;
        }
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, width) = bucket_bounds(i);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                return mid.clamp(self.min_ns as f64, self.max_ns as f64);
            }
        }
        self.max_ns as f64
    }

    /// The cumulative counts at edges of this histogram's buckets, `per_octave` of them in
    /// each power of two from 256 ns (1, 2, 4 … 128; a quarter-octave's edges are 256, 320,
    /// 384, 448, 512 … ns) up to the largest value seen: (edge ns, values below it). A value
    /// of exactly an edge counts in the next, one nanosecond from Prometheus's `le`.
    pub fn edges(&self, per_octave: u64) -> Vec<(u64, u64)> {
        let per_octave = per_octave.clamp(1, 1 << SUB_BITS);
        let next = |e: u64| {
            let base = 1u64 << (63 - e.leading_zeros());
            e + base / per_octave
        };
        let mut out = Vec::new();
        if self.count == 0 {
            return out;
        }
        let mut below = 0u64;
        let mut edge = LINEAR;
        for (i, &c) in self.counts.iter().enumerate() {
            while bucket_bounds(i).0 >= edge {
                out.push((edge, below));
                edge = next(edge);
            }
            below += c;
            if below == self.count && c > 0 {
                break;
            }
        }
        out.push((edge, below));
        out
    }

    /// The non-empty buckets in increasing order.
    pub fn buckets(&self) -> Vec<Bucket> {
        self.sparse()
            .map(|(i, count)| {
                let (low_ns, width_ns) = bucket_bounds(i);
                Bucket {
                    low_ns,
                    width_ns,
                    count,
                }
            })
            .collect()
    }

    /// The non-empty buckets as (index, count): a compact form for per-second snapshots.
    pub fn sparse(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (i, *c))
    }

    /// Adds counts given in the form [`Histogram::sparse`] returns. The sum is not restored;
    /// min and max widen to the bucket bounds, so quantiles are not clamped inside a bucket.
    pub fn add_sparse(&mut self, buckets: &[(u32, u64)]) {
        for &(i, c) in buckets {
            if let Some(slot) = self.counts.get_mut(i as usize) {
                *slot += c;
                self.count += c;
                let (low, width) = bucket_bounds(i as usize);
                self.min_ns = self.min_ns.min(low);
                self.max_ns = self.max_ns.max(low + width - 1);
            }
        }
    }

    /// A histogram rebuilt from the buckets a record carries ([`Histogram::buckets`]), with
    /// the exact min, max and mean it also carries (ns), so quantiles clamp and the mean is exact.
    pub fn from_buckets(buckets: &[Bucket], min_ns: u64, max_ns: u64, mean_ns: f64) -> Self {
        let mut h = Histogram::new();
        for b in buckets {
            let i = bucket_index(b.low_ns);
            h.counts[i] += b.count;
            h.count += b.count;
        }
        if h.count > 0 {
            h.min_ns = min_ns;
            h.max_ns = max_ns;
            h.sum_ns = (mean_ns * h.count as f64).round() as u128;
        }
        h
    }

    /// Standard deviation, ns, from the bucket midpoints around the exact mean (each value is
    /// within half a bucket, ≤ 0.2 %, of its midpoint). 0 below two values.
    pub fn stddev_ns(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let m = self.mean_ns();
        let ss: f64 = self
            .sparse()
            .map(|(i, c)| {
                let (low, width) = bucket_bounds(i);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                c as f64 * (mid - m).powi(2)
            })
            .sum();
        (ss / (self.count - 1) as f64).sqrt()
    }

    /// How many recorded values lie in `(above_ns, up_to_ns]`, counted by bucket midpoint.
    pub fn count_between(&self, above_ns: f64, up_to_ns: f64) -> u64 {
        self.sparse()
            .filter(|&(i, _)| {
                let (low, width) = bucket_bounds(i);
                let mid = low as f64 + (width as f64 - 1.0) / 2.0;
                mid > above_ns && mid <= up_to_ns
            })
            .map(|(_, c)| c)
            .sum()
    }
}

#[cfg(test)]
mod tests {

    /// The cumulative counts at a quarter-octave's edges: values below each edge, the last
    /// edge above the largest value (what `run --listen` exports as `le` buckets).
    #[test]
    fn edges_count_the_values_below_each() {
        let mut h = Histogram::new();
        for v in [100, 300, 300, 500, 1000, 2999] {
            h.record(v);
        }
        assert_eq!(
            h.edges(4),
            vec![
                (256, 1),
                (320, 3),
                (384, 3),
                (448, 3),
                (512, 4),
                (640, 4),
                (768, 4),
                (896, 4),
                (1024, 5),
                (1280, 5),
                (1536, 5),
                (1792, 5),
                (2048, 5),
                (2560, 5),
                (3072, 6),
            ]
        );
        assert_eq!(h.edges(1).last(), Some(&(4096, 6)));
        assert!(Histogram::new().edges(4).is_empty());
    }
    use super::*;

    #[test]
    fn rebuilt_from_buckets_it_keeps_quantiles_mean_and_spread() {
        let mut h = Histogram::new();
        let values: Vec<u64> = (0..10_000u64)
            .map(|i| 1_000 + (i * 7919) % 90_000)
            .collect();
        for &v in &values {
            h.record(v);
        }
        let r = Histogram::from_buckets(&h.buckets(), h.min_ns(), h.max_ns(), h.mean_ns());
        assert_eq!(r.count(), h.count());
        for q in [0.01, 0.5, 0.99, 0.9999] {
            assert_eq!(r.quantile_ns(q), h.quantile_ns(q));
        }
        assert!((r.mean_ns() - h.mean_ns()).abs() < 1e-3);
        let m = values.iter().sum::<u64>() as f64 / values.len() as f64;
        let exact = (values.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>()
            / (values.len() - 1) as f64)
            .sqrt();
        assert!(
            (r.stddev_ns() / exact - 1.0).abs() < 0.005,
            "{} vs {exact}",
            r.stddev_ns()
        );
        assert_eq!(r.count_between(0.0, 1e12), 10_000);
        assert_eq!(r.count_between(0.0, 999.0), 0);
    }

    #[test]
    fn buckets_are_contiguous_and_cover_the_range() {
        let mut expected_low = 0;
        for i in 0..BUCKETS {
            let (low, width) = bucket_bounds(i);
            assert_eq!(low, expected_low, "bucket {i}");
            assert_eq!(bucket_index(low), i);
            assert_eq!(bucket_index(low + width - 1), i);
            expected_low = low + width;
        }
        assert_eq!(expected_low, MAX_TRACKABLE_NS + 1);
        const { assert!(MAX_TRACKABLE_NS >= 3_600_000_000_000, "at least one hour") };
    }

    #[test]
    fn relative_error_below_one_percent() {
        let mut v = 1u64;
        while v < MAX_TRACKABLE_NS {
            let mut h = Histogram::new();
            h.record(v);
            h.record(v + 1_000_000_000_000); // so min/max clamping does not hide the error
            let got = h.quantile_ns(0.5);
            let err = (got - v as f64).abs() / v as f64;
            assert!(err <= 0.004, "{v}: {got} ({err})");
            v = v * 3 / 2 + 1;
        }
    }

    #[test]
    fn quantiles_of_a_uniform_distribution() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        assert_eq!(h.count(), 100_000);
        assert_eq!(h.min_ns(), 1000);
        assert_eq!(h.max_ns(), 100_000_000);
        assert!((h.mean_ns() - 50_000_500.0).abs() < 1.0);
        for (q, want) in [(0.5, 50e6), (0.9, 90e6), (0.99, 99e6), (0.999, 99.9e6)] {
            let got = h.quantile_ns(q);
            assert!((got - want).abs() / want < 0.01, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile_ns(1.0), 100_000_000.0);
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = Histogram::new();
        let mut b = Histogram::new();
        let mut all = Histogram::new();
        for v in 0..10_000u64 {
            let x = v * v % 7919 * 1000 + 17;
            if v % 3 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a.buckets(), all.buckets());
        assert_eq!(a.mean_ns(), all.mean_ns());
        assert_eq!(a.min_ns(), all.min_ns());
        assert_eq!(a.max_ns(), all.max_ns());
    }

    #[test]
    fn huge_values_land_in_the_last_bucket() {
        let mut h = Histogram::new();
        h.record(u64::MAX);
        assert_eq!(h.count(), 1);
        assert_eq!(h.max_ns(), u64::MAX);
        assert_eq!(h.buckets().len(), 1);
    }

    #[test]
    fn sparse_round_trip_keeps_counts() {
        let mut h = Histogram::new();
        for v in [100, 5000, 5000, 77_000_000] {
            h.record(v);
        }
        let sparse: Vec<(u32, u64)> = h.sparse().map(|(i, c)| (i as u32, c)).collect();
        let mut g = Histogram::new();
        g.add_sparse(&sparse);
        assert_eq!(g.count(), 4);
        assert_eq!(g.buckets(), h.buckets());
        // A quantile of the rebuilt histogram is its bucket's midpoint, not clamped below it.
        let q = g.quantile_ns(0.5);
        assert!((q - 5000.0).abs() / 5000.0 < 0.004, "{q}");
    }

    #[test]
    fn a_histogram_read_back_from_its_buckets_merges_exactly() {
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for k in 0..5000u64 {
            let v = 100 + k * k % 1_000_003;
            if k % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            all.record(v);
        }
        let back = |h: &Histogram| {
            Histogram::from_buckets(&h.buckets(), h.min_ns(), h.max_ns(), h.mean_ns())
        };
        let mut merged = back(&a);
        merged.merge(&back(&b));
        assert_eq!(merged.count(), all.count());
        assert_eq!(merged.buckets(), all.buckets());
        for q in [0.5, 0.9, 0.99, 0.999] {
            assert_eq!(merged.quantile_ns(q), all.quantile_ns(q));
        }
        assert_eq!(
            (merged.min_ns(), merged.max_ns()),
            (all.min_ns(), all.max_ns())
        );
    }
}
