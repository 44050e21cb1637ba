//! PTS's steady-state rule worked from a track's own rounds, for the tests of `halfpower pts`
//! in the suite and alone.

use crate::common::num;
use serde_json::Value;

/// PTS's steady-state rule on five values: max − min within 20 % of their mean, and the
/// least-squares line's rise across them within 10 % of it.
pub fn pts_steady(five: &[f64]) -> bool {
    let mean = five.iter().sum::<f64>() / 5.0;
    let range = five.iter().copied().fold(f64::MIN, f64::max)
        - five.iter().copied().fold(f64::MAX, f64::min);
    let slope = five
        .iter()
        .enumerate()
        .map(|(i, y)| (i as f64 - 2.0) * (y - mean))
        .sum::<f64>()
        / 10.0;
    range <= 0.2 * mean && (4.0 * slope).abs() <= 0.1 * mean
}

/// A track stops at the first window of five rounds that meets PTS's rule, or after 25 rounds;
/// checked from the rounds' own tracking values.
pub fn check_steady_stop(t: &Value) {
    let values: Vec<f64> = t["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| num(r, "tracking"))
        .collect();
    let n = values.len();
    assert!(n >= 5, "{t}");
    for end in 5..n {
        assert!(
            !pts_steady(&values[end - 5..end]),
            "rounds {}..{end} were steady, yet the track went on: {values:?}",
            end - 4
        );
    }
    let last = pts_steady(&values[n - 5..]);
    assert_eq!(t["steady"]["reached"], last, "{values:?}");
    assert!(last || n == 25, "{values:?}");
    assert_eq!(num(t, "steady.window.last_round") as usize, n);
}
