//! Parsing of the access vocabulary, and statistical tests of its generators: chi-square tests
//! of counts against the exact probabilities, Kolmogorov–Smirnov tests against the exact CDFs.
//! Seeds are fixed, so each test is deterministic; the critical values are those of a false
//! alarm probability of 10^-6, so a correct generator passes them with any seed.

use super::sample::{Draw, SizePicker};
use super::*;
use crate::offsets::{OffsetGen, Region};
use crate::rng::Rng;

/// Critical value of χ² with `k` degrees of freedom at a false-alarm rate of 10^-6
/// (Wilson–Hilferty; z = 4.753).
fn chi2_critical(k: usize) -> f64 {
    let k = k as f64;
    let z = 4.753;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// χ² of `counts` against `probs` (which sum to 1); bins expected below 5 are merged.
fn chi2(counts: &[u64], probs: &[f64]) -> (f64, usize) {
    let n: u64 = counts.iter().sum();
    let (mut stat, mut bins) = (0.0, 0);
    let (mut c, mut p) = (0u64, 0.0);
    for (&ci, &pi) in counts.iter().zip(probs) {
        c += ci;
        p += pi;
        if p * n as f64 >= 5.0 {
            let e = p * n as f64;
            stat += (c as f64 - e).powi(2) / e;
            bins += 1;
            c = 0;
            p = 0.0;
        }
    }
    if p > 0.0 {
        let e = p * n as f64;
        stat += (c as f64 - e).powi(2) / e;
        bins += 1;
    }
    (stat, bins.max(2) - 1)
}

fn assert_chi2(counts: &[u64], probs: &[f64], what: &str) {
    let (stat, df) = chi2(counts, probs);
    let crit = chi2_critical(df);
    assert!(
        stat < crit,
        "{what}: χ² {stat:.1} ≥ {crit:.1} at {df} degrees of freedom"
    );
}

/// The KS statistic of `samples` (in [0, 1]) against `cdf`; critical value at 10^-6 is
/// sqrt(-ln(10^-6 / 2) / 2) / sqrt(n) ≈ 2.70 / sqrt(n).
fn assert_ks(mut samples: Vec<f64>, cdf: impl Fn(f64) -> f64, what: &str) {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    let d = samples
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max);
    let crit = 2.70 / n.sqrt();
    assert!(d < crit, "{what}: KS D {d:.5} ≥ {crit:.5}");
}

/// erf by Abramowitz–Stegun 7.1.26 (error below 1.5e-7, far below the KS bound).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    y.copysign(x)
}

#[test]
fn request_sizes_parse_print_and_serialize() {
    let one: RequestSize = "64k".parse().unwrap();
    assert_eq!(one.single(), Some(65536));
    assert_eq!(serde_json::to_string(&one).unwrap(), "65536");
    let mix: RequestSize = "4k/50:16k/30:64k/20".parse().unwrap();
    assert_eq!(mix.parts(), &[(4096, 50), (16384, 30), (65536, 20)]);
    assert_eq!((mix.min(), mix.max()), (4096, 65536));
    assert!((mix.mean() - (0.5 * 4096.0 + 0.3 * 16384.0 + 0.2 * 65536.0)).abs() < 1e-9);
    let json = serde_json::to_string(&mix).unwrap();
    assert_eq!(json, "\"4k/50:16k/30:64k/20\"");
    assert_eq!(serde_json::from_str::<RequestSize>(&json).unwrap(), mix);
    assert_eq!(
        serde_json::from_str::<RequestSize>("4096").unwrap(),
        RequestSize::fixed(4096)
    );
    // Blanks share what is left of 100 (fio's bssplit).
    let blank: RequestSize = "4k/:8k/:64k/20".parse().unwrap();
    assert_eq!(blank.parts(), &[(4096, 40), (8192, 40), (65536, 20)]);
    for bad in [
        "4k/60:8k/50:1m/",
        "4k/x",
        "0/50:4k/50",
        "4k/0:8k/0",
        "4k:8k",
    ] {
        let e = bad.parse::<RequestSize>().unwrap_err();
        assert!(
            e.contains("4k/50:16k/30") || e.contains("size"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn distributions_parse_and_print_back() {
    for s in [
        "uniform",
        "zipf:1.2",
        "zipf:1.2:0.5",
        "pareto:0.2",
        "pareto:0.3:0.25",
        "normal:10",
        "normal:10:0.3",
        "zoned:60/10:30/20:10/70",
        "zoned_abs:60/20m:40/1g",
    ] {
        let d: Distribution = s.parse().unwrap();
        assert_eq!(d.to_string(), s);
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<Distribution>(&json).unwrap(), d);
    }
    // fio's defaults when the value is left out.
    for (short, full) in [
        ("random", "uniform"),
        ("zipf", "zipf:1.1"),
        ("pareto", "pareto:0.2"),
        ("normal", "normal:0"),
    ] {
        assert_eq!(short.parse::<Distribution>().unwrap().to_string(), full);
    }
    for bad in [
        "zipf:0",
        "zipf:1",
        "zipf:1.2:1.5",
        "zipf:",
        "pareto:1",
        "normal:100",
        "normal:5:50",
        "gauss:5",
        "zoned:60/10:30/20",
        "zoned:60/50:40/40",
        "lognormal:1",
    ] {
        let e = bad.parse::<Distribution>().unwrap_err();
        assert!(e.contains("use"), "{bad}: {e}");
    }
}

#[test]
fn sizes_are_drawn_by_weight() {
    let mix: RequestSize = "4k/50:16k/30:64k/20".parse().unwrap();
    let p = SizePicker::new(&mix);
    let mut rng = Rng::new(1, 2);
    let mut counts = [0u64; 3];
    for _ in 0..100_000 {
        counts[match p.pick(&mut rng) {
            4096 => 0,
            16384 => 1,
            65536 => 2,
            other => panic!("size {other} not in the mix"),
        }] += 1;
    }
    assert_chi2(&counts, &[0.5, 0.3, 0.2], "bssplit");
}

#[test]
fn uniform_blocks_are_uniform() {
    let mut d = Draw::new(&Distribution::Uniform, 64, 4096, &mut Rng::new(0, 0)).unwrap();
    let mut rng = Rng::new(3, 0);
    let mut counts = vec![0u64; 64];
    for _ in 0..64_000 {
        counts[d.unit(&mut rng) as usize] += 1;
    }
    assert_chi2(&counts, &[1.0 / 64.0; 64], "uniform");
}

#[test]
fn zipf_puts_its_top_ranks_where_fio_does() {
    let n = 1000u64;
    let theta = 1.2;
    let zipf = |center| Distribution::Zipf { theta, center };
    let mut d = Draw::new(&zipf(None), n, 4096, &mut Rng::new(5, 0)).unwrap();
    let mut rng = Rng::new(6, 0);
    let mut counts = [0u64; 3];
    for _ in 0..200_000 {
        counts[d.rank(&mut rng).min(2) as usize] += 1;
    }
    // fio's generator gives rank 0 exactly when u·ζ(n) < 1 and rank 1 below 1 + 2^-θ.
    let zeta: f64 = (1..=n).map(|k| (k as f64).powf(-theta)).sum();
    let p0 = 1.0 / zeta;
    let p1 = 0.5f64.powf(theta) / zeta;
    assert_chi2(&counts, &[p0, p1, 1.0 - p0 - p1], "zipf:1.2 top ranks");
    // With a centre, the most popular block is at that fraction of the region (fio's hash of
    // rank 0 is 0), and rank 1 at the golden-ratio hash of 1 from there.
    let mut d = Draw::new(&zipf(Some(0.25)), n, 4096, &mut Rng::new(5, 0)).unwrap();
    let mut hits = vec![0u64; n as usize];
    for _ in 0..100_000 {
        hits[d.unit(&mut rng) as usize] += 1;
    }
    let top = |h: &[u64], k: usize| {
        let mut idx: Vec<usize> = (0..h.len()).collect();
        idx.sort_by_key(|&i| std::cmp::Reverse(h[i]));
        idx[k] as u64
    };
    assert_eq!(top(&hits, 0), 250);
    assert_eq!(
        top(&hits, 1),
        (super::sample::fio_hash(1).wrapping_add(250)) % n
    );
}

#[test]
fn pareto_gives_h_of_the_blocks_one_minus_h_of_the_accesses() {
    let n = 10_000u64;
    let h = 0.2;
    let dist = Distribution::Pareto { h, center: None };
    let mut d = Draw::new(&dist, n, 4096, &mut Rng::new(7, 0)).unwrap();
    let mut rng = Rng::new(8, 0);
    let ranks: Vec<f64> = (0..50_000)
        .map(|_| d.rank(&mut rng) as f64 / (n - 1) as f64)
        .collect();
    let hot = ranks.iter().filter(|&&r| r < h).count() as f64 / ranks.len() as f64;
    assert!((hot - (1.0 - h)).abs() < 0.01, "{hot}");
    // fio: rank = ⌊(n − 1)·u^p⌋, so P(rank < k) = (k/(n − 1))^(1/p): bins between ranks at
    // every 2 % of that CDF (ranks repeat near 0, so some edges merge).
    let m = (n - 1) as f64;
    let p = h.ln() / (1.0 - h).ln();
    let cdf = |k: u64| (k as f64 / m).powf(1.0 / p).min(1.0);
    let mut edges: Vec<u64> = (0..=50)
        .map(|j| (m * (j as f64 / 50.0).powf(p)).ceil() as u64)
        .collect();
    edges.dedup();
    let probs: Vec<f64> = edges.windows(2).map(|e| cdf(e[1]) - cdf(e[0])).collect();
    let mut counts = vec![0u64; probs.len()];
    for r in ranks {
        let k = (r * m).round() as u64;
        counts[(edges.partition_point(|&e| e <= k) - 1).min(probs.len() - 1)] += 1;
    }
    assert_chi2(&counts, &probs, "pareto:0.2");
}

#[test]
fn the_normal_bell_is_fios_mean_of_twelve_draws() {
    let n = 100_000u64;
    let dist: Distribution = "normal:0".parse().unwrap();
    let mut d = Draw::new(&dist, n, 4096, &mut Rng::new(0, 0)).unwrap();
    let mut rng = Rng::new(9, 0);
    let xs: Vec<f64> = (0..40_000)
        .map(|_| d.rank(&mut rng) as f64 / n as f64)
        .collect();
    // The mean of 12 uniform draws on [0, 1]: mean 1/2, deviation 1/12 (Irwin–Hall, within
    // 0.2 % of the normal CDF, below the KS bound of 1.35 %).
    assert_ks(
        xs,
        |x| 0.5 * (1.0 + erf((x - 0.5) / (std::f64::consts::SQRT_2 / 12.0))),
        "normal:0",
    );
    // fio's deviation widens the bell by a uniform shift of dev % of the region.
    let wide: Distribution = "normal:30".parse().unwrap();
    let mut d = Draw::new(&wide, n, 4096, &mut Rng::new(0, 0)).unwrap();
    let xs: Vec<f64> = (0..40_000)
        .map(|_| d.rank(&mut rng) as f64 / n as f64 - 0.5)
        .collect();
    let var = xs.iter().map(|x| x * x).sum::<f64>() / xs.len() as f64;
    let want = 1.0 / 144.0 + 0.3f64.powi(2) / 12.0;
    assert!((var / want - 1.0).abs() < 0.05, "{var} vs {want}");
}

#[test]
fn zones_get_their_share_uniformly() {
    let n = 1000u64;
    let dist: Distribution = "zoned:60/10:30/20:10/70".parse().unwrap();
    let mut d = Draw::new(&dist, n, 4096, &mut Rng::new(0, 0)).unwrap();
    let mut rng = Rng::new(10, 0);
    let mut zone = [0u64; 3];
    let mut first = vec![0u64; 100];
    for _ in 0..100_000 {
        let b = d.unit(&mut rng);
        let z = if b < 100 {
            first[b as usize] += 1;
            0
        } else if b < 300 {
            1
        } else {
            2
        };
        zone[z] += 1;
    }
    assert_chi2(&zone, &[0.6, 0.3, 0.1], "zone shares");
    assert_chi2(&first, &[0.01; 100], "uniform inside the hot zone");
    let abs: Distribution = "zoned_abs:70/400k:30/3600k".parse().unwrap();
    let mut d = Draw::new(&abs, 1000, 4096, &mut Rng::new(0, 0)).unwrap();
    let hot = (0..10_000).filter(|_| d.unit(&mut rng) < 100).count() as u64;
    assert_chi2(&[hot, 10_000 - hot], &[0.7, 0.3], "zoned_abs");
    // Zones beyond the region are refused.
    let big: Distribution = "zoned_abs:70/400k:30/1g".parse().unwrap();
    assert!(Draw::new(&big, 1000, 4096, &mut rng).is_err());
}

#[test]
fn a_random_share_continues_sequentially_the_rest_of_the_time() {
    let region = Region::new(0, 1 << 30, 4096);
    let mut g = OffsetGen::drawn(region, Draw::Uniform(region.blocks), 30, 1);
    let mut rng = Rng::new(11, 0);
    let mut prev_end = u64::MAX;
    let mut continued = 0u64;
    for _ in 0..100_000 {
        let off = g.next(&mut rng, 4096);
        continued += (off == prev_end) as u64;
        prev_end = off + 4096;
    }
    // 70 % continue (a random draw lands right after the previous one with chance 2^-18).
    assert_chi2(
        &[continued, 100_000 - continued],
        &[0.7, 0.3],
        "percentage_random",
    );
}

#[test]
fn runs_strides_and_mixed_sizes_stay_aligned_inside_the_region() {
    let region = Region::new(1 << 20, 1 << 24, 4096);
    let mut g = OffsetGen::drawn(region, Draw::Uniform(region.blocks), 100, 4);
    let mut rng = Rng::new(12, 0);
    let offs: Vec<u64> = (0..400).map(|_| g.next(&mut rng, 4096)).collect();
    for run in offs.chunks(4) {
        // Each follows the previous one, or wraps to the region's start after its last block.
        let next =
            |a: u64, b: u64| b == a + 4096 || (b == 1 << 20 && a == (1 << 20) + (1 << 24) - 4096);
        assert!(run.windows(2).all(|w| next(w[0], w[1])), "{run:?}");
    }
    let mut s = OffsetGen::sequential(Region::new(0, 10 * 4096, 4096), 0, 1, Some(3 * 4096));
    let steps: Vec<u64> = (0..5).map(|_| s.next(&mut rng, 4096) / 4096).collect();
    assert_eq!(steps, vec![0, 3, 6, 9, 0]);
    let mix: RequestSize = "4k/50:64k/30:1m/20".parse().unwrap();
    let p = SizePicker::new(&mix);
    let region = Region::new(4096, 3 << 20, mix.min());
    let mut z = OffsetGen::drawn(
        region,
        Draw::new(&"zipf:0.8".parse().unwrap(), region.blocks, 4096, &mut rng).unwrap(),
        100,
        1,
    );
    for _ in 0..100_000 {
        let len = p.pick(&mut rng);
        let off = z.next(&mut rng, len);
        assert_eq!(off % 4096, 0);
        assert!(off >= 4096 && off + len <= 4096 + (3 << 20), "{off} {len}");
    }
}

/// A bad think-time setting names the option that is wrong, with its value.
#[test]
fn think_time_errors_name_the_option_at_fault() {
    let think = |every: u32, secs: u64| Access {
        think: Some(Dur(std::time::Duration::from_secs(secs))),
        think_every: every,
        ..Access::default()
    };
    let said = |a: Access| a.check(true, 4096, false).unwrap_err().to_string();
    let zero = said(think(0, 1));
    assert!(
        zero.contains("--think-every") && zero.contains("'0'"),
        "{zero}"
    );
    let long = said(think(1, 61));
    assert!(
        long.contains("--think '61s'") && long.contains("at most 60s"),
        "{long}"
    );
    assert!(think(4, 1).check(true, 4096, false).is_ok());
}

/// An option a workload's pattern cannot take is refused for that, not by a rule its value
/// already meets (--stride 8k is at least a 4k request; what is wrong is a random --rw).
#[test]
fn a_refusal_names_the_rule_the_value_breaks() {
    let said = |a: Access, random: bool| a.check(random, 4096, false).unwrap_err().to_string();
    let stride = Access {
        stride: Some(ByteSize(8192)),
        ..Access::default()
    };
    let s = said(stride, true);
    assert!(
        s.contains("--stride '8k'") && s.contains("this --rw is random"),
        "{s}"
    );
    assert!(!s.contains("at least"), "{s}");
    let short = Access {
        stride: Some(ByteSize(2048)),
        ..Access::default()
    };
    assert!(said(short, false).contains("at least the request size (4k)"));
    let zipf = Access {
        dist: "zipf:1.2".parse().unwrap(),
        ..Access::default()
    };
    let s = said(zipf, false);
    assert!(
        s.contains("--dist 'zipf:1.2'") && s.contains("this --rw is sequential"),
        "{s}"
    );
    assert!(!s.contains("uniform"), "{s}");
}
