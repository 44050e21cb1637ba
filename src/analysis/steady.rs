//! Steady state: the rule that ends a point as soon as its throughput is known well enough.
//! The warm-up ends when its transient is over (MSER finds its end in the first half of the
//! warm-up's windows), instead of after a fixed time; the measured phase ends when the 95 %
//! interval of its mean throughput (over short windows, corrected for autocorrelation) is
//! within ±PCT %, after at least [`MIN_MEASURED`], or at `--time`.

use super::uncertainty::{mser, windows};
use std::time::Duration;

/// The shortest measured phase a steady point may have (issue 15: 1 s).
pub const MIN_MEASURED: Duration = Duration::from_secs(1);
/// The shortest adaptive warm-up: MSER needs a handful of windows to see a trend.
pub const MIN_WARMUP: Duration = Duration::from_millis(500);
/// Windows per MSER batch once there are enough windows for batches of five (MSER-5).
const MSER_BATCH: usize = 5;

/// When a point may end early: once the 95 % interval of its mean throughput is within ±`pct`
/// % of it (or, `pts`, once its last five one-second rounds meet SNIA PTS's rule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyRule {
    /// The interval's half-width allowed, % of the mean.
    pub pct: f64,
    /// The shortest measured phase.
    pub min: Duration,
    /// `--steady=pts`: PTS's steady state over one-second rounds ([`super::pts::point_holds`])
    /// instead of the interval.
    pub pts: bool,
}

/// How a steady point ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyOutcome {
    /// Whether the rule held (else the point ran to `--time`).
    pub reached: bool,
    /// The warm-up the point ran until its transient was over, s (the transient removed).
    pub transient_s: f64,
    /// The interval's half-width reached, % of the mean throughput.
    pub ci95_pct: Option<f64>,
}

impl SteadyRule {
    /// The rule `--steady[=PCT]` names.
    pub fn new(pct: f64) -> Self {
        SteadyRule {
            pct,
            min: MIN_MEASURED,
            pts: false,
        }
    }

    /// The rule `--steady=pts` names: PTS's window of five one-second rounds.
    pub fn pts() -> Self {
        SteadyRule {
            pct: f64::INFINITY,
            min: MIN_MEASURED,
            pts: true,
        }
    }

    /// The interval's half-width (% of the mean) of throughput windows `bytes_per_s` of a
    /// measured phase `elapsed` s long, when it holds the rule; None while it does not.
    pub fn holds(&self, bytes_per_s: &[f64], elapsed: f64) -> Option<f64> {
        if elapsed < self.min.as_secs_f64() {
            return None;
        }
        if self.pts && !super::pts::point_holds(bytes_per_s, elapsed) {
            return None;
        }
        let e = windows(bytes_per_s)?;
        (e.mean > 0.0 && e.ci.pct <= self.pct).then_some(e.ci.pct)
    }
}

/// Whether a warm-up whose windows had throughput `bytes_per_s`, `elapsed` s in, has settled:
/// MSER (batches of five windows once there are ten batches, else single windows) finds the
/// end of its transient in the first half.
pub fn settled(bytes_per_s: &[f64], elapsed: f64) -> bool {
    if elapsed < MIN_WARMUP.as_secs_f64() || bytes_per_s.iter().all(|&b| b == 0.0) {
        return false;
    }
    let batch = if bytes_per_s.len() >= 10 * MSER_BATCH {
        MSER_BATCH
    } else {
        1
    };
    mser(bytes_per_s, batch).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_decides_after_the_minimum() {
        let r = SteadyRule::new(2.0);
        let flat = [
            100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 100.1, 99.9,
        ];
        assert_eq!(r.holds(&flat, 0.9), None, "before the minimum");
        let pct = r.holds(&flat, 1.0).unwrap();
        assert!(pct < 1.0, "{pct}");
        let noisy = [
            100.0, 130.0, 70.0, 120.0, 80.0, 125.0, 75.0, 110.0, 90.0, 100.0,
        ];
        assert_eq!(r.holds(&noisy, 1.0), None, "±20 % windows do not give ±2 %");
        assert!(SteadyRule::new(25.0).holds(&noisy, 1.0).is_some());
        assert_eq!(r.holds(&[0.0; 10], 1.0), None, "idle is not steady");
    }

    #[test]
    fn the_pts_rule_needs_five_steady_seconds() {
        let r = SteadyRule::pts();
        assert_eq!(r.holds(&[100.0; 49], 4.9), None, "under five rounds");
        assert!(r.holds(&[100.0; 50], 5.0).is_some());
        // 5 % more each second: range 20 %, but the line climbs 20 % across the window.
        let ramp: Vec<f64> = (0..50).map(|i| 100.0 + (i / 10) as f64 * 5.0).collect();
        assert_eq!(r.holds(&ramp, 5.0), None);
    }

    #[test]
    fn a_warm_up_settles_after_its_ramp() {
        let ramp: Vec<f64> = (1..=10).map(|i| i as f64 * 10.0).collect();
        assert!(!settled(&ramp, 1.0), "still rising");
        let mut after = ramp.clone();
        after.extend([
            100.0, 101.0, 99.0, 100.0, 100.5, 99.5, 100.0, 100.2, 99.8, 100.1,
        ]);
        assert!(settled(&after, 2.0));
        assert!(!settled(&[100.0, 100.0, 100.0], 0.3), "before the minimum");
        assert!(!settled(&[0.0; 10], 1.0), "idle is not settled");
    }
}
