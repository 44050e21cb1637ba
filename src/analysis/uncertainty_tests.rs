//! The interval math against textbook cases.

use super::*;
use crate::rng::Rng;

/// Standard normal deviates (Box–Muller) from a seeded stream.
fn normals(seed: u64, n: usize) -> Vec<f64> {
    let mut r = Rng::new(seed, 7);
    let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let (a, b) = (u().max(1e-300), u());
            (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
        })
        .collect()
}

/// AR(1): x_t = φ x_{t−1} + e_t, started in its stationary distribution; mean 0.
fn ar1(seed: u64, n: usize, phi: f64) -> Vec<f64> {
    let e = normals(seed, n);
    let mut x = Vec::with_capacity(n);
    let mut prev = e[0] / (1.0 - phi * phi).sqrt();
    for v in e {
        prev = phi * prev + v;
        x.push(prev);
    }
    x
}

#[test]
fn student_t_quantiles() {
    assert_eq!(t95(1.0), 12.706);
    assert_eq!(t95(9.0), 2.262);
    assert_eq!(t95(9.7), 2.262, "the lower df between entries");
    assert!((t95(60.0) - 2.000).abs() < 0.002);
    assert!((t95(1e6) - 1.96).abs() < 0.001);
}

/// A textbook sample: mean 10.5, s = 1.581, n = 10 ⇒ 10.5 ± 2.262 × 1.581/√10 = ± 1.131.
#[test]
fn a_small_normal_sample() {
    let x = [10.0, 12.0, 9.0, 11.0, 13.0, 8.0, 10.0, 12.0, 11.0, 9.0];
    let e = naive(&x).unwrap();
    assert_eq!(e.mean, 10.5);
    assert!((e.sd - 1.5811).abs() < 1e-4);
    assert!((e.ci.half - 1.131).abs() < 0.001, "{}", e.ci.half);
    assert!((e.ci.pct - 10.77).abs() < 0.01);
    assert!(naive(&[5.0]).is_none());
    assert!(naive(&[0.0, 0.0]).is_none());
}

/// Share of `reps` series of length `n` whose interval holds the true mean 0.
fn coverage(reps: u64, n: usize, phi: f64, f: fn(&[f64]) -> Option<Estimate>) -> f64 {
    let hits = (0..reps)
        .filter(|&s| {
            // Shift by 100 so the mean is not 0 (the interval's % needs a mean); truth 100.
            let x: Vec<f64> = ar1(s + 1, n, phi).iter().map(|v| v + 100.0).collect();
            let e = f(&x).unwrap();
            (e.mean - 100.0).abs() <= e.ci.half
        })
        .count();
    hits as f64 / reps as f64
}

/// Independent normal samples: both intervals hold the mean about 95 % of the time.
#[test]
fn independent_samples_are_covered_95_percent() {
    let naive_cov = coverage(400, 200, 0.0, naive);
    let corrected = coverage(400, 200, 0.0, windows);
    assert!((0.92..=0.98).contains(&naive_cov), "{naive_cov}");
    assert!((0.92..=0.99).contains(&corrected), "{corrected}");
}

/// AR(1) with φ = 0.8 (τ = 9): the naive interval is far too narrow (it covers about 55 % of
/// the time), the corrected one is not.
#[test]
fn correlated_samples_need_the_correction() {
    let naive_cov = coverage(300, 1000, 0.8, naive);
    let corrected = coverage(300, 1000, 0.8, windows);
    assert!(naive_cov < 0.7, "naive {naive_cov}");
    assert!(corrected > 0.88, "corrected {corrected}");
    let tau = autocorrelation_time(&ar1(99, 20_000, 0.8));
    assert!(
        (tau - 9.0).abs() < 1.5,
        "τ of AR(1) 0.8 is (1+φ)/(1−φ) = 9: {tau}"
    );
}

/// Windows that alternate (a throttle releasing I/O in slices) are never credited with more
/// than their count: τ stays at 1, so the interval is the naive one, not narrower.
#[test]
fn alternating_windows_get_no_credit() {
    let x: Vec<f64> = (0..40)
        .map(|i| if i % 2 == 0 { 92.0 } else { 108.0 })
        .collect();
    assert_eq!(autocorrelation_time(&x), 1.0);
    let (a, b) = (windows(&x).unwrap(), naive(&x).unwrap());
    assert!((a.ci.half - b.ci.half).abs() < 1e-9, "{a:?} vs {b:?}");
}

/// MSER drops a ramp-up, and says when a series has not settled.
#[test]
fn mser_finds_the_end_of_a_transient() {
    let mut x = vec![20.0, 45.0, 70.0, 90.0];
    x.extend(normals(3, 40).iter().map(|v| 100.0 + v));
    // The four ramp values go (MSER may take some noise with them, never the ramp's rest).
    let d = mser(&x, 1).unwrap();
    assert!((4..22).contains(&d), "{d}");
    let d5 = mser(&x, 5).unwrap();
    assert!(d5 >= 5 && d5 % 5 == 0, "whole batches of five: {d5}");
    let ramp: Vec<f64> = (0..40).map(|i| i as f64).collect();
    assert_eq!(mser(&ramp, 1), None, "a ramp never settles");
    let flat: Vec<f64> = normals(4, 40).iter().map(|v| 100.0 + v).collect();
    assert!(mser(&flat, 1).is_some(), "noise around a level has settled");
}

/// Ratios: Welch from repetitions, the delta method from two intervals.
#[test]
fn ratio_intervals() {
    let a = [2000.0, 2010.0, 1990.0];
    let b = [3000.0, 3015.0, 2985.0];
    let (r, lo, hi) = ratio_welch(&a, &b).unwrap();
    assert!((r - 1.5).abs() < 1e-9);
    assert!(lo < 1.5 && hi > 1.5 && hi - lo < 0.05, "{lo}..{hi}");
    let same = [2000.0, 1990.0, 2012.0];
    let (r, lo, hi) = ratio_welch(&a, &same).unwrap();
    assert!(lo < 1.0 && hi > 1.0, "{r} {lo}..{hi}");
    let (r, lo, hi) = ratio_from_intervals(100.0, 2.0, 150.0, 3.0).unwrap();
    assert!((r - 1.5).abs() < 1e-12);
    assert!((hi - lo - 2.0 * 1.5 * (0.02f64.powi(2) * 2.0).sqrt()).abs() < 1e-9);
    assert!(ratio_welch(&[1.0], &b).is_none());
}

/// One side repeated: three runs of N(1000, 100²) and one more run of the same. The interval is
/// the prediction interval of a new run (t with 2 degrees of freedom), so it holds B/A = 1 in
/// 95 % of trials exactly for normal runs; 4000 trials put the share within ±0.7 % (two binomial
/// standard deviations).
#[test]
fn one_repeated_side_covers_the_next_run() {
    let z = normals(23, 4 * 4000);
    let covered = z
        .chunks(4)
        .filter(|c| {
            let a: Vec<f64> = c[..3].iter().map(|x| 1000.0 + 100.0 * x).collect();
            let b = 1000.0 + 100.0 * c[3];
            let (_, lo, hi) = ratio_one_repeated(&a, b, None, true).unwrap();
            lo <= 1.0 && 1.0 <= hi
        })
        .count() as f64
        / 4000.0;
    assert!((covered - 0.95).abs() < 0.007, "{covered}");
    // The inverse ratio: A single, B repeated.
    let (r, lo, hi) = ratio_one_repeated(&[1800.0, 2000.0, 2200.0], 2200.0, None, false).unwrap();
    assert!((r - 2000.0 / 2200.0).abs() < 1e-12);
    assert!((hi - r - 4.303 * (200f64.powi(2) * (1.0 + 1.0 / 3.0)).sqrt() / 2200.0).abs() < 1e-9);
    assert!(lo < r);
    assert!(ratio_one_repeated(&[1.0], 1.0, None, true).is_none());
}

#[test]
fn order_statistic_ranks() {
    assert_eq!(quantile_ranks(100, 0.5), Some((40, 61)));
    let (lo, hi) = quantile_ranks(10_000, 0.99).unwrap();
    assert!(lo < 9900 && hi > 9900 && hi <= 10_000);
    assert_eq!(quantile_ranks(0, 0.5), None);
    assert_eq!(quantile_ranks(1, 0.99), Some((1, 1)));
}

/// The mean of four figures each ±2: its half-width is √(4 × 2²) / 4 = 1, half of one
/// figure's, as for a mean of four independent values; one figure is its own.
#[test]
fn a_mean_of_intervals_narrows_as_the_root_of_their_number() {
    assert_eq!(mean_half_from_intervals(&[2.0; 4]), Some(1.0));
    assert_eq!(mean_half_from_intervals(&[3.0]), Some(3.0));
    // ±3 and ±4: √25 / 2.
    assert_eq!(mean_half_from_intervals(&[3.0, 4.0]), Some(2.5));
    assert_eq!(mean_half_from_intervals(&[]), None);
}
