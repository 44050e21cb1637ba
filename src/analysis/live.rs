//! What `run --listen` finds in a run while it goes: the changes in its finished seconds so
//! far ([`ChangesSoFar`]), looked for by the same detector as the run's end
//! (`analysis::changes`), over the latest hour, and again only as the series grows.
//!
//! The window is bounded because PELT's cost grows with the square of a series without
//! changes (its candidates are never pruned): an hour of seconds took 66 ms here, a day 19 s.

use super::changes::{Series, changes};
use crate::model::change::{Change, ChangeFigure};
use crate::stats::series::{SeriesSink, TimePoint};
use std::sync::Arc;

/// The most seconds looked at: the latest hour of the run.
pub const WINDOW_S: usize = 3600;

/// The changes of the run being served, kept between scrapes.
#[derive(Default)]
pub struct ChangesSoFar {
    /// The sink read (a new run starts over).
    sink: Option<Arc<SeriesSink>>,
    /// Its finished seconds so far.
    seconds: Vec<TimePoint>,
    /// How many seconds the last look saw.
    looked_at: usize,
    found: Vec<Change>,
}

impl ChangesSoFar {
    /// The changes in `sink`'s finished seconds: looked for again once the series has grown
    /// by a hundredth of the window (each second under 100 s, at most 36 s apart); the
    /// throughput's and the p99's, without the device's time per I/O or the host's wake-ups
    /// that the run's end adds (so without most causes).
    pub fn update(&mut self, sink: &Arc<SeriesSink>) -> &[Change] {
        if !self.sink.as_ref().is_some_and(|s| Arc::ptr_eq(s, sink)) {
            *self = ChangesSoFar {
                sink: Some(sink.clone()),
                ..ChangesSoFar::default()
            };
        }
        let more = sink.finished(self.seconds.len());
        self.seconds.extend(more);
        let n = self.seconds.len();
        let window = n.min(WINDOW_S);
        if n >= self.looked_at + (window / 100).max(1) {
            self.found = look(&self.seconds[n - window..]);
            self.looked_at = n;
        }
        &self.found
    }
}

/// The changes in `seconds`, each placed at its second of the run.
fn look(seconds: &[TimePoint]) -> Vec<Change> {
    let from = seconds.first().map_or(0.0, |p| f64::from(p.t_s));
    let iops: Vec<f64> = seconds.iter().map(|p| p.iops).collect();
    let p99: Vec<f64> = seconds.iter().map(|p| p.p99_us).collect();
    let mean: Vec<f64> = seconds.iter().map(|p| p.mean_us).collect();
    let mut found = changes(&Series {
        iops: &iops,
        latency: Some((ChangeFigure::P99Us, &p99)),
        device_us: None,
        latency_us: Some(&mean),
        host_late: None,
    });
    for c in &mut found {
        c.at_s += from;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Histogram;

    fn second(sink: &SeriesSink, t: u32, ios: u64, ns: u64) {
        let mut h = Histogram::new();
        for _ in 0..ios {
            h.record(ns);
        }
        sink.add(t, 0, ios, ios * 4096, &h);
    }

    /// A step from 4000 to 2000 I/Os a second at second 6 (latency doubling with it) is found
    /// at 6 once the level after it has lasted long enough, and a new run starts over.
    #[test]
    fn a_step_is_found_once_its_level_lasts() {
        let sink = Arc::new(SeriesSink::new(1));
        let mut so_far = ChangesSoFar::default();
        for t in 0..8 {
            let (ios, ns) = if t < 6 {
                (4000, 1_000_000)
            } else {
                (2000, 2_000_000)
            };
            second(&sink, t, ios + u64::from(t % 3) * 7, ns);
        }
        assert!(
            so_far.update(&sink).is_empty(),
            "two seconds after: no level yet"
        );
        for t in 8..12 {
            second(&sink, t, 2000 + u64::from(t % 3) * 7, 2_000_000);
        }
        let c = so_far.update(&sink).to_vec();
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].figure, ChangeFigure::Iops);
        assert!((c[0].at_s - 6.0).abs() <= 0.5, "{c:?}");
        assert!((c[0].after / c[0].before - 0.5).abs() < 0.01, "{c:?}");
        let again = Arc::new(SeriesSink::new(1));
        second(&again, 0, 100, 1000);
        assert!(so_far.update(&again).is_empty(), "a new run starts over");
    }

    /// Past a hundred seconds the series is looked at again only once it has grown by a
    /// hundredth of the window.
    #[test]
    fn a_long_series_is_looked_at_as_it_grows() {
        let sink = Arc::new(SeriesSink::new(1));
        let mut so_far = ChangesSoFar::default();
        for t in 0..200 {
            second(&sink, t, 1000, 1000);
        }
        so_far.update(&sink);
        assert_eq!(so_far.looked_at, 200);
        second(&sink, 200, 1000, 1000);
        so_far.update(&sink);
        assert_eq!(so_far.looked_at, 200, "one second more is under 2");
        second(&sink, 201, 1000, 1000);
        so_far.update(&sink);
        assert_eq!(so_far.looked_at, 202);
    }
}
