//! Student's t distribution: its distribution function and its quantiles at any level, for
//! intervals whose error is spent over several looks (`analysis::steady`), where the tabled
//! 95 % value is not the one needed. Pure functions, tested against published table values.

/// ln Γ(x) for x > 0 (Lanczos' approximation, g = 7, 9 terms: about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum: f64 = G[1..]
        .iter()
        .enumerate()
        .fold(G[0], |s, (i, g)| s + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The continued fraction of the regularized incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        for aa in [
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ] {
            d = 1.0 + aa * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + aa / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function I_x(a, b), for x in [0, 1].
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The fraction converges fast below the mean, (a + 1) / (a + b + 2); above it, by symmetry.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// P(T ≤ t) for Student's t with `df` > 0 degrees of freedom.
pub fn cdf(t: f64, df: f64) -> f64 {
    let tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// The quantile of Student's t with `df` > 0 degrees of freedom at probability `p` in (0, 1):
/// the t with P(T ≤ t) = p (bisection on [`cdf`] to 1e-10).
pub fn quantile(p: f64, df: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p < 0.5 {
        return -quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    while hi - lo > 1e-10 * hi.max(1.0) {
        let mid = 0.5 * (lo + hi);
        if cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The two-sided critical value at error `alpha`: the t that |T| exceeds with probability
/// `alpha` (1.96-like for a large `df` and `alpha` 0.05).
pub fn two_sided(alpha: f64, df: f64) -> f64 {
    quantile(1.0 - alpha / 2.0, df)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from the standard table (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.2).
    #[test]
    fn quantiles_match_the_table() {
        for (p, df, want) in [
            (0.975, 1.0, 12.706),
            (0.975, 4.0, 2.776),
            (0.975, 9.0, 2.262),
            (0.975, 30.0, 2.042),
            (0.995, 4.0, 4.604),
            (0.995, 9.0, 3.250),
            (0.995, 20.0, 2.845),
            (0.999, 9.0, 4.297),
            (0.95, 9.0, 1.833),
            (0.975, 1e6, 1.960),
        ] {
            let got = quantile(p, df);
            assert!(
                (got - want).abs() < 1.5e-3,
                "t({p}, {df}) = {got}, table {want}"
            );
        }
        assert_eq!(quantile(0.5, 5.0), 0.0);
        assert!((quantile(0.025, 9.0) + 2.262).abs() < 1.5e-3);
        assert!((two_sided(0.05, 9.0) - 2.262).abs() < 1.5e-3);
    }

    #[test]
    fn the_distribution_function_is_a_distribution() {
        assert!((cdf(0.0, 3.0) - 0.5).abs() < 1e-12);
        // df = 1 is Cauchy: P(T ≤ 1) = 3/4.
        assert!((cdf(1.0, 1.0) - 0.75).abs() < 1e-9);
        // df = 2: P(T ≤ t) = 1/2 + t / (2 √(2 + t²)).
        let t: f64 = 1.5;
        assert!((cdf(t, 2.0) - (0.5 + t / (2.0 * (2.0 + t * t).sqrt()))).abs() < 1e-9);
        assert!((cdf(-t, 2.0) + cdf(t, 2.0) - 1.0).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }
}
