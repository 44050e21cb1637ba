//! The watch thread's loops: during an adaptive warm-up, until its transient is over; during
//! the measured phase, the progress line, the per-second device samples, the short windows of
//! the within-run intervals, and the steady-state rule that may end the phase early.

use super::Shared;
use super::progress::{mark_now, show_progress};
use super::sampler::DeviceSampler;
use crate::analysis::steady::{SteadyRule, settled};
use crate::model::run::SteadyLook;
use crate::plan::RunPlan;
use crate::stats::series::LiveSteady;
use crate::stats::window::{CI_WINDOW_S, Mark, Rates};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How the runner watches a run while it goes, and where its warm-up ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Control {
    /// Show live figures on stderr when it is a terminal.
    pub progress: bool,
    /// Warm up until the transient is over, and end the measured phase once this rule holds
    /// (else both run their full time).
    pub steady: Option<SteadyRule>,
    /// A run that ends by bytes spends its warm-up's I/Os from the same budget (fio's
    /// `ramp_time` counts toward `size`), so the measured phase does what the warm-up left.
    /// Else the warm-up is on top of the budget (`run --bytes`).
    pub warmup_in_budget: bool,
    /// The byte budget is split evenly between the workers, each ending when its share is
    /// done (fio's `numjobs` clones each do `size`), instead of one budget all of them draw on.
    pub budget_per_worker: bool,
    /// Each worker keeps the per-I/O record of its measured phase
    /// ([`crate::stats::iolog`]), handed over in [`super::Measurement::io_log`].
    pub io_log: bool,
    /// Each worker keeps its counts at the edges of periods of this many ns
    /// ([`crate::stats::periods`], fio's averaged logs), handed over in
    /// [`super::Measurement::periods`].
    pub periods_ns: Option<u64>,
    /// The measured window's series is published for a scrape to read (`run --listen`,
    /// [`crate::stats::series::publish`]).
    pub live: bool,
}

impl Control {
    /// Progress as asked, no steady-state rule: what `run` and `quick` use.
    pub fn progress(progress: bool) -> Self {
        Control {
            progress,
            ..Control::default()
        }
    }
}

/// What the watcher saw of a measured phase.
#[derive(Debug, Default)]
pub(super) struct Watched {
    /// The phase's counts every [`CI_WINDOW_S`], the first at its start, the last at its end.
    pub marks: Vec<Mark>,
    /// With a steady-state rule: whether a look held (and stopped the phase).
    pub reached: bool,
    /// With a steady-state rule: its last look (the one that held, else the one at the end).
    pub look: Option<SteadyLook>,
}

/// Watches an adaptive warm-up that started at `t0` and may last until `until`: every
/// [`CI_WINDOW_S`] it takes the warm-up's counts, and raises `shared.warm_stop` once the
/// throughput has settled. Returns how long the warm-up ran, s.
pub(super) fn watch_warmup(shared: &Shared, t0: Instant, until: Instant) -> f64 {
    let step = Duration::from_secs_f64(CI_WINDOW_S);
    let mut marks = vec![Mark::default()];
    let mut next = t0 + step;
    while next < until {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        let m = mark_now(shared, t0);
        marks.push(m);
        let at = m.at_s;
        if settled(&Rates::of(&marks).bytes_per_s, at) {
            shared.warm_stop.store(true, Ordering::Relaxed);
            return at;
        }
        next += step;
    }
    until.saturating_duration_since(t0).as_secs_f64()
}

/// The most windows a measured phase keeps for its intervals (409.6 s of 100-ms windows); even,
/// so that thinning keeps the last mark.
pub(super) const MAX_WINDOWS: usize = 4096;

/// Keeps a long phase at most [`MAX_WINDOWS`] windows: once they are that many, every second
/// mark goes (the first and the last stay) and the windows double, so memory stays flat and
/// the windows stay equal (batch means). Whether it thinned.
fn thin(marks: &mut Vec<Mark>) -> bool {
    if marks.len() <= MAX_WINDOWS {
        return false;
    }
    let mut i = 0;
    marks.retain(|_| {
        i += 1;
        i % 2 == 1
    });
    true
}

/// Watches the measured phase until every worker is done (woken the moment the last one is):
/// takes the phase's counts every [`CI_WINDOW_S`], redraws the progress line every 250 ms,
/// samples the disks once a second, and with a steady-state rule raises `shared.stop` once it
/// holds.
pub(super) fn watch(
    shared: &Shared,
    t0: Instant,
    w: &RunPlan,
    steady: Option<SteadyRule>,
    progress: bool,
    sampler: &mut DeviceSampler,
) -> Watched {
    let tick = Duration::from_millis(250);
    let mut window = Duration::from_secs_f64(CI_WINDOW_S);
    let mut last = (0, 0, Instant::now());
    let mut next_tick = progress.then_some(t0 + tick);
    let mut next_mark = t0 + window;
    // The workers start the phase from zero counts (the runner zeroed them before it began).
    let mut out = Watched {
        marks: vec![Mark::default()],
        ..Watched::default()
    };
    let mut looks = Looks::new(steady, w);
    loop {
        let wake = [next_tick, Some(next_mark), sampler.next]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(next_mark);
        if shared.wait_all_done(wake.saturating_duration_since(Instant::now()).min(tick)) {
            break;
        }
        let now = Instant::now();
        if let Some(nt) = next_tick.filter(|&nt| now >= nt) {
            show_progress(shared, t0, w, &mut last);
            next_tick = Some(nt + tick);
        }
        if sampler.next.is_some_and(|ns| now >= ns) {
            sampler.sample();
        }
        if now >= next_mark {
            let m = mark_now(shared, t0);
            out.marks.push(m);
            let at = m.at_s;
            next_mark += window;
            if thin(&mut out.marks) {
                next_mark += window;
                window *= 2;
            }
            if !out.reached && looks.due(at) {
                if let Some((look, holds)) = looks.take(&out.marks, false) {
                    shared.series.set_steady(live_look(&look, holds));
                    out.look = Some(look);
                    if holds {
                        shared.stop.store(true, Ordering::Relaxed);
                        out.reached = true;
                    }
                }
            }
        }
    }
    // A point that ran to its end is looked at once more, over the windows it issued in.
    if !out.reached {
        out.look = looks.take(&out.marks, true).map(|l| l.0).or(out.look);
        if let Some(look) = &out.look {
            shared.series.set_steady(live_look(look, false));
        }
    }
    // The phase's end: the counts once every worker has drained.
    out.marks.push(mark_now(shared, t0));
    out
}

/// A look as a scrape shows it (`run --listen`).
fn live_look(look: &SteadyLook, holds: bool) -> LiveSteady {
    LiveSteady {
        reached: holds,
        look: look.index,
        of: look.of,
        bytes_per_s: look.bytes_per_s,
        half_pct: look.bytes_per_s_ci95.pct,
    }
}

/// The steady-state rule's looks at one measured phase: when each is due, and how many.
struct Looks {
    rule: Option<SteadyRule>,
    /// The times of the looks, s into the phase (the last at its end).
    at: Vec<f64>,
    /// The next look (0-based).
    next: usize,
}

impl Looks {
    /// The looks `rule` takes at a phase of workload `w` (at most its `--time`).
    fn new(rule: Option<SteadyRule>, w: &RunPlan) -> Self {
        let at = rule.map_or(Vec::new(), |r| {
            r.schedule(w.setup().time.map_or(0.0, |t| t.0.as_secs_f64()))
        });
        Looks { rule, at, next: 0 }
    }

    /// Whether a look before the last is due at `at_s` (the last is taken at the end).
    fn due(&self, at_s: f64) -> bool {
        self.next + 1 < self.at.len() && at_s >= self.at[self.next] - 1e-6
    }

    /// Takes the next look at `marks` (`last`: the one at the phase's end), and moves on past
    /// every look whose time has come.
    fn take(&mut self, marks: &[Mark], last: bool) -> Option<(SteadyLook, bool)> {
        let rule = self.rule?;
        let at_s = marks.last()?.at_s;
        let index = if last { self.at.len() } else { self.next + 1 };
        while self.next + 1 < self.at.len() && at_s >= self.at[self.next] - 1e-6 {
            self.next += 1;
        }
        rule.look(marks, index, self.at.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_halves_the_windows_and_keeps_both_ends() {
        let mut marks: Vec<Mark> = (0..=MAX_WINDOWS)
            .map(|i| Mark {
                at_s: i as f64 * 0.1,
                ios: i as u64,
                ..Mark::default()
            })
            .collect();
        let last = *marks.last().unwrap();
        assert!(thin(&mut marks));
        assert_eq!(marks.len() - 1, MAX_WINDOWS / 2);
        assert_eq!(*marks.last().unwrap(), last);
        assert_eq!(marks[1].ios, 2, "equal windows, twice as long");
        assert!(!thin(&mut marks), "below the bound nothing goes");
    }
}
