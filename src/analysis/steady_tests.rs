//! The steady-state rule against series whose steady throughput is known: constant rates, a
//! throttle's slices, and many random series run through the whole sequence of looks, where
//! the reported interval must hold the known rate at least 95 % of the time.

use super::*;
use crate::rng::Rng;

/// 100-ms marks whose windows complete `per_window` I/Os of 4 KiB each (rounded, the
/// rounding carried), the first at 0.
fn marks(per_window: &[f64]) -> Vec<Mark> {
    let mut out = vec![Mark::default()];
    let mut total = 0.0;
    for (k, w) in per_window.iter().enumerate() {
        total += w.max(0.0);
        let ios = total.round() as u64;
        out.push(Mark {
            at_s: (k + 1) as f64 * 0.1,
            ios,
            bytes: ios * 4096,
            read_ios: ios,
            read_bytes: ios * 4096,
        });
    }
    out
}

/// Standard normal deviates (Box–Muller) from a seeded stream.
fn normals(seed: u64, n: usize) -> Vec<f64> {
    let mut r = Rng::new(seed, 11);
    let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let (a, b) = (u().max(1e-300), u());
            (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
        })
        .collect()
}

/// The whole rule over a phase of at most `max_s`: a look at each scheduled time, the point
/// stopped at the first that holds, else the last look at the end. The reported look and
/// whether it held.
fn run_rule(rule: &SteadyRule, m: &[Mark], max_s: f64) -> (SteadyLook, bool) {
    let at = rule.schedule(max_s);
    for (i, &t) in at.iter().enumerate() {
        let upto = ((t / 0.1).round() as usize).min(m.len() - 1);
        if let Some((l, holds)) = rule.look(&m[..=upto], i + 1, at.len()) {
            if holds || i + 1 == at.len() {
                return (l, holds);
            }
        }
    }
    unreachable!("the last look is always taken")
}

#[test]
fn looks_come_at_fixed_times_up_to_the_end() {
    let r = SteadyRule::new(2.0);
    assert_eq!(r.schedule(5.0), vec![1.0, 1.5, 2.25, 3.375, 5.0]);
    assert_eq!(r.schedule(1.0), vec![1.0]);
    assert_eq!(r.schedule(0.6), vec![1.0], "the minimum is the only look");
    assert_eq!(r.schedule(30.0).len(), 10);
}

#[test]
fn a_constant_rate_holds_at_the_first_look_and_the_burst_is_left_out() {
    let r = SteadyRule::new(2.0);
    // A throttle at 4000 IOPS: a fresh slice's burst in the first window, then 400 per window.
    let mut w = vec![800.0];
    w.extend([400.0; 14]);
    let m = marks(&w);
    assert!(r.look(&m[..=9], 1, 5).is_none() || !r.look(&m[..=9], 1, 5).unwrap().1);
    let (l, holds) = r.look(&m[..=10], 1, 5).unwrap();
    assert!(holds, "{l:?}");
    assert_eq!(l.iops, 4000.0, "the first window's burst is left out");
    assert_eq!(l.bytes_per_s, 4000.0 * 4096.0);
    assert!(l.iops_ci95.half < 1e-6);
    assert_eq!((l.batches, l.from_s, l.at_s), (9, 0.1, 1.0));
    assert!((l.critical_t - student::two_sided(0.01, 8.0)).abs() < 1e-12);
    assert!(
        r.look(&marks(&[0.0; 12]), 1, 1).is_some_and(|(_, h)| !h),
        "idle is not steady"
    );
    // Too few windows after the first: no look.
    assert!(look(&marks(&[400.0; 5]), 1, 1).is_none());
}

#[test]
fn batches_lengthen_with_the_phase_and_end_at_the_look() {
    let m = marks(&[400.0; 53]);
    let l = look(&m, 3, 5).unwrap();
    // 52 windows after the first: 5 per batch, 10 batches, the two earliest windows left out.
    assert_eq!(l.batches, 10);
    assert!((l.window_s - 0.5).abs() < 1e-9);
    assert!((l.from_s - 0.3).abs() < 1e-9 && (l.at_s - 5.3).abs() < 1e-9);
}

/// Windows that alternate (a throttle granting one window's excess from the next) merge into
/// batches whose means are nearly independent and near the cap.
#[test]
fn alternating_windows_are_merged() {
    let w: Vec<f64> = (0..40)
        .map(|k| if k % 2 == 0 { 300.0 } else { 500.0 })
        .collect();
    let l = look(&marks(&w), 1, 1).unwrap();
    assert!(!l.correlated);
    assert!((l.iops - 4000.0).abs() < 60.0, "{l:?}");
}

/// Share of `reps` random phases whose reported interval holds the known rate (400 I/Os per
/// window), and the share that stopped early, under `rule` with looks up to 5 s.
fn coverage(rule: &SteadyRule, reps: u64, window: impl Fn(u64) -> Vec<f64>) -> (f64, f64) {
    let mut hits = 0;
    let mut early = 0;
    for s in 0..reps {
        let (l, held) = run_rule(rule, &marks(&window(s)), 5.0);
        hits += usize::from((l.iops - 4000.0).abs() <= l.iops_ci95.half);
        early += usize::from(held && l.index < l.of);
    }
    (hits as f64 / reps as f64, early as f64 / reps as f64)
}

/// The former rule: a 95 % interval (autocorrelation-corrected 100-ms windows, the first
/// kept) at every window after 1 s, stopped at the first within ±`pct` %. Whether the
/// interval it stopped with held the known rate.
fn former_rule_covers(w: &[f64], pct: f64) -> bool {
    let m = marks(w);
    for k in 10..m.len() {
        let rates = crate::stats::window::Rates::of(&m[..=k]).iops;
        let e = crate::analysis::uncertainty::windows(&rates).unwrap();
        if e.ci.pct <= pct || k + 1 == m.len() {
            return (e.mean - 4000.0).abs() <= e.ci.half;
        }
    }
    unreachable!()
}

/// Independent windows (±3 %) and windows correlated as AR(1) with φ = 0.5 (τ = 3 windows):
/// the interval reported at whichever look stops the point holds the known rate in ≥ 95 % of
/// 2000 phases (less one point for the simulation's own error), most of them stopping before
/// the end. The former rule, a 95 % interval at every window, holds it less often.
#[test]
fn the_reported_interval_covers_under_repeated_looks() {
    let rule = SteadyRule::new(2.5);
    let iid = |s: u64| -> Vec<f64> {
        normals(s + 1, 51)
            .iter()
            .map(|z| 400.0 + 12.0 * z)
            .collect()
    };
    let (cov, early) = coverage(&rule, 2000, iid);
    assert!(cov >= 0.94, "independent windows: coverage {cov}");
    assert!(early > 0.5, "stopped early in {early}");
    eprintln!("coverage: independent windows {cov} (early {early})");
    let ar = |s: u64| -> Vec<f64> {
        let e = normals(s + 10_000, 51);
        let mut x = e[0] / 0.75f64.sqrt();
        e.iter()
            .map(|v| {
                x = 0.5 * x + v;
                400.0 + 8.0 * x
            })
            .collect()
    };
    let (cov, early) = coverage(&rule, 2000, ar);
    assert!(cov >= 0.93, "AR(1) windows: coverage {cov}");
    assert!(early > 0.3, "stopped early in {early}");
    let former = (0..2000)
        .filter(|&s| former_rule_covers(&ar(s), 2.5))
        .count();
    assert!(
        (former as f64) < cov * 2000.0 - 100.0,
        "the former rule covered {former} of 2000, this one {cov}"
    );
    eprintln!("coverage: AR(1) φ = 0.5 {cov} (early {early}), former rule {former} / 2000");
}
