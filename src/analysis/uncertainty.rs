//! How well a figure is known: 95 % confidence intervals of a mean from a series of short
//! windows (corrected for autocorrelation by an effective sample size), the end of a warm-up
//! transient (MSER), intervals of a ratio from repetitions (Welch) or from two intervals (delta
//! method; one side's repetitions lending their spread to a single run), and order-statistic
//! intervals of latency percentiles. Pure functions, tested
//! against textbook cases in `uncertainty_tests.rs`.
//!
//! Why an effective sample size: successive windows of a storage run are correlated (a busy
//! second follows a busy second), so the naive s/√n understates the error. The integrated
//! autocorrelation time τ is estimated with Geyer's initial positive sequence (the sums of
//! adjacent autocorrelation pairs, up to the first that is not positive); the n windows then
//! carry the information of n/τ independent ones. τ is floored at [`MIN_TAU`] = 1: an
//! anti-correlated series is never credited with more than its window count.

pub use crate::stats::summary::Ci95;

/// A mean and its interval, with what the interval rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Samples.
    pub n: usize,
    /// Effective number of independent samples (n / τ).
    pub n_eff: f64,
    /// The 95 % interval.
    pub ci: Ci95,
}

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom (df < 1 gives the
/// value for 1).
pub fn t95(df: f64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    if df < 30.5 {
        // Between table entries the lower df (the wider interval) is taken.
        TABLE[(df.floor().max(1.0) as usize).min(30) - 1]
    } else {
        1.96 + 2.4 / df
    }
}

/// The mean of `x` (0 when empty).
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len().max(1) as f64
}

/// The sample variance of `x` (n − 1 in the denominator; 0 below two values).
pub fn variance(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64
}

/// The smallest autocorrelation time taken: n windows never count as more than n independent
/// ones. Windows that alternate (a throttle releasing I/O in slices) would give τ < 1 and a
/// narrower interval, but a short run's estimate of that alternation also hides slower swings:
/// with a floor of 0.25, a steady 64k QD16 point on a blkio-throttled loop device stopped 7.9 %
/// from its known throughput with ±2 % claimed (docs/performance.md). A wrong interval is worse
/// than a wide one.
pub const MIN_TAU: f64 = 1.0;

/// The integrated autocorrelation time of `x` by Geyer's initial positive sequence (at least
/// [`MIN_TAU`]).
pub fn autocorrelation_time(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 8 {
        return 1.0; // too few windows to estimate correlations
    }
    let m = mean(x);
    let c0 = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n as f64;
    if c0 <= 0.0 {
        return 1.0;
    }
    let rho =
        |k: usize| (0..n - k).map(|i| (x[i] - m) * (x[i + k] - m)).sum::<f64>() / n as f64 / c0;
    let mut tau = -1.0;
    let mut k = 0;
    while k + 1 < n / 2 {
        let pair = rho(k) + rho(k + 1);
        if pair <= 0.0 {
            break;
        }
        tau += 2.0 * pair;
        k += 2;
    }
    tau.max(MIN_TAU)
}

/// The mean of `x` with a 95 % interval that treats its values as independent.
pub fn naive(x: &[f64]) -> Option<Estimate> {
    estimate(x, 1.0)
}

/// The mean of `x` (equal-length windows of one run) with a 95 % interval corrected for
/// autocorrelation. None with fewer than 2 values or a zero mean.
pub fn windows(x: &[f64]) -> Option<Estimate> {
    estimate(x, autocorrelation_time(x))
}

fn estimate(x: &[f64], tau: f64) -> Option<Estimate> {
    let n = x.len();
    let mean = mean(x);
    if n < 2 || mean == 0.0 || !mean.is_finite() {
        return None;
    }
    let sd = variance(x).sqrt();
    let n_eff = (n as f64 / tau).max(1.0);
    let half = t95(n_eff - 1.0) * sd / n_eff.sqrt();
    Some(Estimate {
        mean,
        sd,
        n,
        n_eff,
        ci: Ci95 {
            half,
            pct: half / mean.abs() * 100.0,
        },
    })
}

/// MSER truncation: the number of leading values to drop so that the rest's mean is known
/// best (White's Marginal Standard Error Rule: minimise Σ(x − x̄)² / (n − d)² over the rest),
/// with values batched by `batch` (MSER-5 batches by 5). The first half is searched; a minimum
/// at its end (the statistic still falling) means the series has not settled: None.
pub fn mser(x: &[f64], batch: usize) -> Option<usize> {
    let batch = batch.max(1);
    let z: Vec<f64> = x
        .chunks(batch)
        .filter(|c| c.len() == batch)
        .map(mean)
        .collect();
    let k = z.len();
    if k < 2 {
        return None;
    }
    let score = |d: usize| {
        let rest = &z[d..];
        let m = mean(rest);
        rest.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (rest.len() as f64).powi(2)
    };
    let half = k / 2;
    let best = (0..=half).min_by(|&a, &b| score(a).total_cmp(&score(b)))?;
    (best < half || half == 0).then_some(best * batch)
}

/// The ratio b/a of two means with a 95 % interval by the delta method, from each mean's own
/// interval half-width (used when each side is one run with a within-run interval).
pub fn ratio_from_intervals(a: f64, a_half: f64, b: f64, b_half: f64) -> Option<(f64, f64, f64)> {
    if a <= 0.0 || b <= 0.0 {
        return None;
    }
    let r = b / a;
    // Half-widths are 1.96-ish standard errors; the relative errors add in quadrature.
    let rel = ((a_half / a).powi(2) + (b_half / b).powi(2)).sqrt();
    Some((r, r * (1.0 - rel), r * (1.0 + rel)))
}

/// The half-width of the 95 % interval of the mean of independent figures, from each one's
/// own half-width (the delta method, as [`ratio_from_intervals`]: in quadrature, over their
/// number). None when there are none.
pub fn mean_half_from_intervals(halves: &[f64]) -> Option<f64> {
    (!halves.is_empty())
        .then(|| halves.iter().map(|h| h * h).sum::<f64>().sqrt() / halves.len() as f64)
}

/// The ratio mean(b)/mean(a) of two sets of independent repetitions with a 95 % interval:
/// Welch's standard error of each mean, combined by the delta method, with the
/// Welch–Satterthwaite degrees of freedom.
pub fn ratio_welch(a: &[f64], b: &[f64]) -> Option<(f64, f64, f64)> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, mb) = (mean(a), mean(b));
    if ma <= 0.0 || mb <= 0.0 {
        return None;
    }
    let (sa, sb) = (variance(a) / a.len() as f64, variance(b) / b.len() as f64);
    let r = mb / ma;
    let rel_var = sa / ma.powi(2) + sb / mb.powi(2);
    let df = if sa + sb > 0.0 {
        (sa + sb).powi(2) / (sa.powi(2) / (a.len() - 1) as f64 + sb.powi(2) / (b.len() - 1) as f64)
    } else {
        (a.len() + b.len() - 2) as f64
    };
    let half = t95(df) * r * rel_var.sqrt();
    Some((r, r - half, r + half))
}

/// The ratio of two means when only one side has repetitions (`repeated`, at least 2) and the
/// other is a single run (`single`, with its within-run interval half-width `single_half`), as
/// (ratio, low, high) of `single / mean(repeated)`, or its inverse with `single_is_b` false.
/// The single run is one more draw of the same process: it carries the repeated side's
/// run-to-run standard deviation s (or its own within-run interval's, when wider), the repeated
/// side's mean s/√n. The difference's standard error, √(s²/n + s²), times t with n − 1 degrees
/// of freedom (s is estimated from n runs) over A's value is the ratio's half-width: the
/// prediction interval of a new run, on the scale of A.
pub fn ratio_one_repeated(
    repeated: &[f64],
    single: f64,
    single_half: Option<f64>,
    single_is_b: bool,
) -> Option<(f64, f64, f64)> {
    let n = repeated.len();
    let m = mean(repeated);
    if n < 2 || m <= 0.0 || single <= 0.0 {
        return None;
    }
    let sd = variance(repeated).sqrt();
    let sd_single = sd.max(single_half.map_or(0.0, |h| h / 1.96));
    let se = (sd.powi(2) / n as f64 + sd_single.powi(2)).sqrt();
    let (r, a) = if single_is_b {
        (single / m, m)
    } else {
        (m / single, single)
    };
    let half = t95((n - 1) as f64) * se / a;
    Some((r, r - half, r + half))
}

/// The mean, standard deviation and t-based 95 % interval of independent repetitions.
pub fn repetitions(x: &[f64]) -> Option<Estimate> {
    naive(x)
}

/// The ranks (1-based, in 1..=n) bounding a 95 % order-statistic interval of quantile `q` from
/// `n` independent samples (the normal approximation of the binomial).
pub fn quantile_ranks(n: u64, q: f64) -> Option<(u64, u64)> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let sd = (nf * q * (1.0 - q)).sqrt();
    let lo = (nf * q - 1.96 * sd).floor().max(1.0) as u64;
    let hi = ((nf * q + 1.96 * sd).ceil() + 1.0).min(nf) as u64;
    Some((lo.min(n), hi.max(lo.min(n))))
}

#[cfg(test)]
#[path = "uncertainty_tests.rs"]
mod tests;
