//! SNIA PTS v2.0.2's steady state: a measurement window of five consecutive rounds whose
//! tracking variable stays within a data excursion of 20 % of the window's mean (max − min)
//! and whose least-squares line moves by at most 10 % of that mean across the window (the
//! slope excursion); at most 25 rounds. Both bounds are needed: a steady ramp
//! ([90, 95, 100, 105, 110]) has a range of 20 % and passes the first, but its line climbs 20 %
//! and fails the second, which a slope-only rule such as fio's `iops_slope:10%` (slope per
//! second against the mean) does not see over short rounds. Also the window averages of a
//! matrix, and `--steady=pts` for a point's throughput windows.

use crate::model::pts::{Cell, CellAverage, Round, SteadyState, Window};

/// Rounds in a measurement window.
pub const WINDOW_ROUNDS: usize = 5;
/// The most rounds a steady-state test runs.
pub const MAX_ROUNDS: u32 = 25;
/// The data excursion allowed: max − min within the window, % of its mean.
pub const RANGE_PCT: f64 = 20.0;
/// The slope excursion allowed: the fitted line's rise or fall across the window, % of its mean.
pub const EXCURSION_PCT: f64 = 10.0;
/// A round of a point under `--steady=pts`, s: its throughput windows are summed into rounds
/// this long, so the point runs at least five of them.
pub const POINT_ROUND_S: f64 = 1.0;
/// Relative slack on both bounds, for values that sit on a bound up to rounding (20 % of a
/// mean computed in floating point).
const SLACK: f64 = 1e-9;

/// PTS's rule over `values`, the tracking variable of consecutive rounds from `first_round`:
/// their mean, range and least-squares line against the round number, and whether the
/// window is steady (exactly [`WINDOW_ROUNDS`] values, a positive mean, both excursions
/// within their bounds). `values` must not be empty.
pub fn check(first_round: u32, values: &[f64]) -> Window {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // x = 0, 1, … n−1: the slope per round does not depend on where the rounds start.
    let x_mean = (n - 1.0) / 2.0;
    let (sxy, sxx) = values
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(sxy, sxx), (i, &y)| {
            let dx = i as f64 - x_mean;
            (sxy + dx * (y - mean), sxx + dx * dx)
        });
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let pct = |v: f64| {
        if mean != 0.0 {
            v / mean.abs() * 100.0
        } else {
            f64::INFINITY
        }
    };
    let range_pct = pct(max - min);
    let excursion_pct = pct(slope.abs() * (n - 1.0));
    let within = |v: f64, bound: f64| v <= bound * (1.0 + SLACK);
    Window {
        first_round,
        last_round: first_round + values.len() as u32 - 1,
        mean,
        min,
        max,
        range_pct,
        slope,
        intercept: mean - slope * x_mean,
        excursion_pct,
        steady: values.len() == WINDOW_ROUNDS
            && mean > 0.0
            && within(range_pct, RANGE_PCT)
            && within(excursion_pct, EXCURSION_PCT),
    }
}

/// The window ending at the last of `tracking` (the values of rounds 1, 2, …), once there are
/// five rounds.
pub fn last_window(tracking: &[f64]) -> Option<Window> {
    let n = tracking.len();
    (n >= WINDOW_ROUNDS).then(|| {
        check(
            (n - WINDOW_ROUNDS + 1) as u32,
            &tracking[n - WINDOW_ROUNDS..],
        )
    })
}

/// The first window of `tracking` that is steady, if any: where a test that stops on the
/// rule would have stopped.
pub fn first_steady(tracking: &[f64]) -> Option<Window> {
    (WINDOW_ROUNDS..=tracking.len())
        .map(|end| {
            check(
                (end - WINDOW_ROUNDS + 1) as u32,
                &tracking[end - WINDOW_ROUNDS..end],
            )
        })
        .find(|w| w.steady)
}

/// How a track of rounds with tracking values `tracking` ended: the first steady window (where
/// a test that stops on the rule stops), else the last five rounds as the measurement window,
/// unsteady.
pub fn steady_state(tracking: &[f64]) -> SteadyState {
    match first_steady(tracking) {
        Some(w) => SteadyState {
            reached: true,
            round: Some(w.last_round),
            window: Some(w),
        },
        None => SteadyState {
            reached: false,
            round: None,
            window: last_window(tracking),
        },
    }
}

/// How a run that does not stop on the rule (WSAT) ended: its last five rounds as the
/// measurement window, steady or not. The plateau of a device before its write cliff may meet
/// the rule early on, so the first steady window would say nothing about where it ended.
pub fn final_state(tracking: &[f64]) -> SteadyState {
    let window = last_window(tracking);
    let reached = window.is_some_and(|w| w.steady);
    SteadyState {
        reached,
        round: window.filter(|_| reached).map(|w| w.last_round),
        window,
    }
}

/// Each cell of the matrix averaged over the rounds `first..=last` (1-based) of `rounds`: the
/// mean of its IOPS, bytes per second and mean latency, and its largest latency. Cells are
/// matched by request size and mix, in the first round's order.
pub fn window_matrix(rounds: &[Round], first: u32, last: u32) -> Vec<CellAverage> {
    let window: Vec<&Round> = rounds
        .iter()
        .filter(|r| (first..=last).contains(&r.round))
        .collect();
    let Some(head) = window.first() else {
        return Vec::new();
    };
    head.cells
        .iter()
        .map(|c| {
            let same: Vec<&Cell> = window
                .iter()
                .filter_map(|r| {
                    r.cells
                        .iter()
                        .find(|o| o.bs_bytes == c.bs_bytes && o.mix == c.mix)
                })
                .collect();
            let mean = |f: &dyn Fn(&Cell) -> f64| {
                same.iter().map(|c| f(c)).sum::<f64>() / same.len() as f64
            };
            CellAverage {
                bs_bytes: c.bs_bytes,
                mix: c.mix,
                iops: mean(&|c| c.iops),
                bytes_per_s: mean(&|c| c.bytes_per_s),
                mean_latency_us: mean(&|c| c.latency_us.mean),
                max_latency_us: same.iter().map(|c| c.latency_us.max).fold(0.0, f64::max),
            }
        })
        .collect()
}

/// `--steady=pts` for one point: its throughput windows (`bytes_per_s`, equal windows over
/// `elapsed` s) summed into rounds of [`POINT_ROUND_S`] (or one window, when windows are
/// longer), counted back from the last window; whether the last five rounds meet PTS's rule.
pub fn point_holds(bytes_per_s: &[f64], elapsed: f64) -> bool {
    if bytes_per_s.is_empty() || elapsed <= 0.0 {
        return false;
    }
    let window_s = elapsed / bytes_per_s.len() as f64;
    let per_round = ((POINT_ROUND_S / window_s).round() as usize).max(1);
    let needed = per_round * WINDOW_ROUNDS;
    if bytes_per_s.len() < needed {
        return false;
    }
    let rounds: Vec<f64> = bytes_per_s[bytes_per_s.len() - needed..]
        .chunks(per_round)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    check(1, &rounds).steady
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two windows with known answers.
    #[test]
    fn a_ramp_fails_on_its_slope_and_a_zigzag_is_steady() {
        let ramp = check(3, &[90.0, 95.0, 100.0, 105.0, 110.0]);
        // Range 110 − 90 = 20 = 20 % of 100: the data excursion passes, just.
        assert_eq!(ramp.mean, 100.0);
        assert!((ramp.range_pct - 20.0).abs() < 1e-12, "{ramp:?}");
        // Slope 5 per round over 4 steps: the line rises 20 = 20 % > 10 %.
        assert!((ramp.slope - 5.0).abs() < 1e-12);
        assert!((ramp.excursion_pct - 20.0).abs() < 1e-12);
        assert!(
            (ramp.intercept - 90.0).abs() < 1e-12,
            "the line starts at 90"
        );
        assert!(!ramp.steady);
        assert_eq!((ramp.first_round, ramp.last_round), (3, 7));
        // fio's iops_slope:10% judges the slope per second against the mean: with 60-s rounds
        // 5/60 = 0.083 per second is 0.083 % of 100, far inside 10 %.
        let fio_pct = ramp.slope / 60.0 / ramp.mean * 100.0;
        assert!(fio_pct < 0.1, "{fio_pct}");

        let zigzag = check(1, &[100.0, 110.0, 90.0, 110.0, 90.0]);
        assert_eq!(zigzag.mean, 100.0);
        assert!((zigzag.range_pct - 20.0).abs() < 1e-12);
        // Σ(x − 2)(y − 100) = −10 + 10 − 20 = −20 over Σ(x − 2)² = 10: −2 per round, 8 %.
        assert!((zigzag.slope + 2.0).abs() < 1e-12, "{zigzag:?}");
        assert!((zigzag.excursion_pct - 8.0).abs() < 1e-12);
        assert!(zigzag.steady);
    }

    #[test]
    fn the_range_alone_can_fail_and_windows_need_five_rounds() {
        // Flat line (slope 0), but max − min = 30 % of the mean.
        let wide = check(1, &[85.0, 115.0, 100.0, 115.0, 85.0]);
        assert!(wide.excursion_pct < 1e-9 && wide.range_pct > 29.9 && !wide.steady);
        assert!(!check(1, &[100.0; 4]).steady, "four rounds are no window");
        assert!(check(1, &[100.0; 5]).steady);
        assert!(
            !check(1, &[0.0; 5]).steady,
            "nothing measured is not steady"
        );
    }

    #[test]
    fn the_first_steady_window_is_where_the_test_stops() {
        // A cliff at round 3: rounds 3..7 are the first five after it.
        let t = [1000.0, 990.0, 250.0, 251.0, 249.0, 250.0, 252.0, 250.0];
        let s = steady_state(&t);
        assert!(s.reached);
        assert_eq!(s.round, Some(7));
        assert_eq!(s.window.unwrap().first_round, 3);
        let never = steady_state(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert!(!never.reached && never.round.is_none());
        assert_eq!(never.window.unwrap().first_round, 2, "the last five rounds");
        assert!(steady_state(&[1.0, 1.0]).window.is_none());
        // WSAT: flat before the cliff, then flat after it; judged on its last five rounds.
        let wsat = final_state(&t);
        assert_eq!((wsat.reached, wsat.round), (true, Some(8)));
        assert_eq!(wsat.window.unwrap().first_round, 4);
        let falling = final_state(&[1000.0, 990.0, 980.0, 500.0, 400.0, 300.0]);
        assert!(!falling.reached && falling.round.is_none());
    }

    #[test]
    fn a_point_is_judged_on_one_second_rounds() {
        // 100-ms windows: 4.9 s of a flat 100 are not five rounds yet; 5 s are.
        assert!(!point_holds(&[100.0; 49], 4.9));
        assert!(point_holds(&[100.0; 50], 5.0));
        // A ramp inside the last five seconds: each second 5 % above the one before.
        let ramp: Vec<f64> = (0..50).map(|i| 100.0 + (i / 10) as f64 * 5.0).collect();
        assert!(!point_holds(&ramp, 5.0));
        // Early transient, then flat: only the last five rounds count.
        let mut settled = vec![10.0; 30];
        settled.extend([100.0; 50]);
        assert!(point_holds(&settled, 8.0));
        // Windows thinned to 2 s each: one window per round.
        assert!(point_holds(&[100.0; 5], 10.0));
    }
}
