//! Steady state: the rule that ends a sweep point early, once its throughput has stopped
//! moving (fio's `steadystate=bw:2%`, judged on whole windows rather than a slope).

use std::time::Duration;

/// When a measured phase may end early: once the throughput of each of the last `windows`
/// windows of length `window` lies within ±`pct` % of their mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyRule {
    /// Allowed spread around the mean, percent.
    pub pct: f64,
    /// Length of one window.
    pub window: Duration,
    /// How many consecutive windows must agree.
    pub windows: usize,
}

impl SteadyRule {
    /// The rule `--steady[=PCT]` names: three 1-s windows within ±PCT %.
    pub fn new(pct: f64) -> Self {
        SteadyRule {
            pct,
            window: Duration::from_secs(1),
            windows: 3,
        }
    }

    /// Whether the last `self.windows` entries of `per_window` (bytes completed in each
    /// window, oldest first) are steady. An idle stretch (all zero) is not steady.
    pub fn holds(&self, per_window: &[u64]) -> bool {
        if self.windows == 0 || per_window.len() < self.windows {
            return false;
        }
        let last = &per_window[per_window.len() - self.windows..];
        let mean = last.iter().sum::<u64>() as f64 / last.len() as f64;
        mean > 0.0
            && last
                .iter()
                .all(|&x| (x as f64 - mean).abs() <= mean * self.pct / 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_windows_within_two_percent() {
        let r = SteadyRule::new(2.0);
        assert!(!r.holds(&[100, 100]), "two windows are not enough");
        assert!(
            r.holds(&[50, 100, 101, 99]),
            "the ramp before does not count"
        );
        assert!(
            !r.holds(&[100, 100, 95]),
            "95 is 3.3 % below the mean of 98.3"
        );
        assert!(
            r.holds(&[100, 100, 98]),
            "98 is 1.3 % below the mean of 99.3"
        );
        assert!(
            !r.holds(&[100, 100, 97]),
            "97 is 2.02 % below the mean of 99"
        );
        assert!(!r.holds(&[0, 0, 0]), "idle is not steady");
        let loose = SteadyRule::new(10.0);
        assert!(loose.holds(&[100, 100, 90]));
    }
}
