//! Steps found while a device is watched: `monitor` hands each device's intervals to a
//! [`Watch`], which looks for changes over the recent ones as `diagnose` does over a whole log
//! (`diagnose::device_changes`) and gives each change once, when it is first found.
//!
//! A change can be found only once the level after it has lasted [`MIN_SEGMENT`] intervals,
//! so it is said that many intervals after it happened, or later. Later intervals may move a
//! change's estimated time by a fraction of an interval; one found again within
//! [`SAME_WITHIN`] intervals of one already said is the same change and is not said twice.
//! What was said is not taken back. Only steps between two levels of work are said: the start
//! and the end of a workload (a level whose median is no I/O) are not steps of the device.
//! A step of latency waits [`NEAR`] intervals more: a step of I/Os per second within that many
//! intervals of it is the same change (as `diagnose` counts it), and one whose first interval
//! was partial is found only then.

use super::changes::{MIN_SEGMENT, NEAR};
use super::diagnose::device_changes;
use crate::model::change::{Change, ChangeFigure};
use crate::model::log::DiskInterval;
use std::collections::VecDeque;

/// The most recent intervals searched (at 1-s intervals, two minutes: a step is said within a
/// few intervals of it). The search's cost grows faster than the window: over a noisy series
/// with a step every 200 intervals it took 77 µs per interval on average (at most 0.28 ms)
/// with 120, 0.24 ms with 300 and 0.67 ms with 600 (release build, this 2-vCPU VM), per device.
pub const WINDOW: usize = 120;

/// A change found within this many intervals of one already said is that one again.
pub const SAME_WITHIN: f64 = 2.0;

/// One device's recent intervals and the changes said so far.
#[derive(Debug, Default)]
pub struct Watch {
    recent: VecDeque<DiskInterval>,
    /// Intervals dropped from the front of `recent`.
    dropped: usize,
    /// When each change said so far happened, s from the start of the first interval.
    said: Vec<f64>,
}

impl Watch {
    /// Adds the interval that just ended; the changes first found with it, `at_s` (and the
    /// evidence's seconds) from the start of the first interval ever added.
    pub fn push(&mut self, iv: DiskInterval) -> Vec<Change> {
        if self.recent.len() == WINDOW {
            self.recent.pop_front();
            self.dropped += 1;
        }
        self.recent.push_back(iv);
        if self.recent.len() < 2 * MIN_SEGMENT {
            return Vec::new();
        }
        let ivs: Vec<_> = self.recent.iter().map(|iv| (iv, None)).collect();
        let lengths: Vec<f64> = self.recent.iter().filter_map(|iv| iv.interval_s).collect();
        let step = Some(super::changes::median(&lengths))
            .filter(|s| *s > 0.0)
            .unwrap_or(1.0);
        let mut new = Vec::new();
        for mut c in device_changes(&ivs) {
            if c.before <= 0.0 || c.after <= 0.0 {
                continue;
            }
            let lasted = self.recent.len() as f64 - c.at_s / step;
            if c.figure != ChangeFigure::Iops && lasted < (MIN_SEGMENT + NEAR) as f64 - 0.5 {
                continue;
            }
            c.at_s += self.dropped as f64 * step;
            if self
                .said
                .iter()
                .any(|s| (s - c.at_s).abs() <= SAME_WITHIN * step)
            {
                continue;
            }
            self.said.push(c.at_s);
            new.push(c);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(iops: f64) -> DiskInterval {
        DiskInterval {
            interval_s: Some(1.0),
            device: "sdz".into(),
            r_s: iops,
            disks: 1,
            ..DiskInterval::default()
        }
    }

    /// Feeds `series` one interval at a time; every change said, with the interval it was
    /// said at (0-based).
    fn watch(series: &[f64]) -> Vec<(usize, Change)> {
        let mut w = Watch::default();
        let mut out = Vec::new();
        for (i, &x) in series.iter().enumerate() {
            out.extend(w.push(iv(x)).into_iter().map(|c| (i, c)));
        }
        out
    }

    /// A level of 4000 with ±1 % of alternating noise, `n` long.
    fn level(at: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| at * if i % 2 == 0 { 1.01 } else { 0.99 })
            .collect()
    }

    #[test]
    fn a_step_is_said_once_when_its_new_level_has_lasted() {
        let mut s = level(4000.0, 8);
        s.extend(level(2000.0, 20));
        let said = watch(&s);
        assert_eq!(said.len(), 1, "{said:?}");
        let (when, c) = &said[0];
        assert!((c.at_s - 8.0).abs() <= 0.5, "{c:?}");
        assert!((c.before / 4000.0 - 1.0).abs() < 0.02, "{c:?}");
        assert!((c.after / 2000.0 - 1.0).abs() < 0.02, "{c:?}");
        // Not before the new level has MIN_SEGMENT intervals (8, 9, 10 are indices 8..=10).
        assert!(*when >= 8 + MIN_SEGMENT - 1, "said at interval {when}");
        assert!(*when <= 8 + 2 * MIN_SEGMENT, "said at interval {when}");
    }

    /// The lowered cap of tests/alone/changes.rs as monitor saw it: the interval of the step is
    /// half at each level, and the device's response time falls with its load at the step's
    /// first interval. One change is said, of I/Os per second, as `diagnose` finds it.
    #[test]
    fn a_step_with_a_partial_interval_is_said_as_one_step_of_iops() {
        let mut iops = level(4000.0, 8);
        iops.push(3000.0);
        iops.extend(level(2000.0, 12));
        let mut w = Watch::default();
        let mut said = Vec::new();
        for (i, &x) in iops.iter().enumerate() {
            let response = if i < 8 { 0.021 } else { 0.0175 };
            let iv = DiskInterval {
                response_ms: Some(response * if i % 2 == 0 { 1.01 } else { 0.99 }),
                ..iv(x)
            };
            said.extend(w.push(iv));
        }
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0].figure, ChangeFigure::Iops, "{said:?}");
        assert!((said[0].at_s - 8.5).abs() <= 0.5, "{said:?}");
    }

    #[test]
    fn a_steady_device_has_no_change_and_idle_edges_are_none() {
        assert!(watch(&level(4000.0, 40)).is_empty());
        let mut s = vec![0.0; 6];
        s.extend(level(3000.0, 12));
        s.extend(vec![0.0; 6]);
        assert!(watch(&s).is_empty(), "{:?}", watch(&s));
    }

    #[test]
    fn times_count_from_the_first_interval_after_the_window_moves_on() {
        let mut s = level(4000.0, WINDOW + 50);
        s.extend(level(1000.0, 10));
        let said = watch(&s);
        assert_eq!(said.len(), 1, "{said:?}");
        let at = said[0].1.at_s;
        assert!((at - (WINDOW + 50) as f64).abs() <= 0.5, "{at}");
    }
}
