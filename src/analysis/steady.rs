//! Steady state: the rule that ends a point as soon as its throughput is known well enough.
//! The warm-up ends when its transient is over (MSER finds its end in the first half of the
//! warm-up's windows), instead of after a fixed time. The measured phase is looked at a fixed
//! number of times, at [`MIN_MEASURED`] and then each time it has grown by [`LOOK_GROWTH`], the
//! last look at `--time`; each look spends [`ALPHA`] / looks of the error (Bonferroni), so the
//! interval of whichever look stops the point misses with probability at most [`ALPHA`]. A look
//! merges the 100-ms windows after the first into [`BATCHES`] equal batches (batch means),
//! longer while their means stay correlated, checks batches twice as long and keeps the wider
//! interval, and holds when the interval of the throughput is within ±PCT %. The point reports
//! the look's figures and interval (docs/uncertainty.md says why, and what it covers).

use super::fio_steady::FioSteady;
use super::student;
use super::uncertainty::{mean, mser, variance};
use crate::model::run::SteadyLook;
use crate::stats::summary::Ci95;
use crate::stats::window::Mark;
use std::time::Duration;

/// The shortest measured phase a steady point may have (issue 15: 1 s), and its first look.
pub const MIN_MEASURED: Duration = Duration::from_secs(1);
/// The shortest adaptive warm-up: MSER needs a handful of windows to see a trend.
pub const MIN_WARMUP: Duration = Duration::from_millis(500);
/// Windows per MSER batch once there are enough windows for batches of five (MSER-5).
const MSER_BATCH: usize = 5;
/// Each look after the first comes once the measured phase is this many times as long as at
/// the one before: 1, 1.5, 2.25, 3.4, 5.1, 7.6 … s, so a point of `--time` T takes about
/// 1 + log(T) / log(1.5) looks (5 at 5 s, 10 at 30 s) and no look is long after the last.
pub const LOOK_GROWTH: f64 = 1.5;
/// The error of all the looks together: the interval a point reports misses its steady
/// throughput with probability at most this.
pub const ALPHA: f64 = 0.05;
/// The batches a look merges its windows into (fixed-number batch means; Schmeiser 1982
/// recommends 10 to 30): as the phase grows, the batches lengthen instead of multiplying, so
/// they come to span the device's slower swings.
pub const BATCHES: usize = 10;
/// The fewest batches (windows) a look stands on.
pub const MIN_BATCHES: usize = 5;
/// A look also merges its batches in pairs when that leaves at least this many, and keeps
/// the wider interval of the two lengths.
pub const CHECK_BATCHES: usize = 4;

/// When a point may end early: once the 95 % interval of its throughput, spent over the
/// point's looks, is within ±`pct` % of it (or, `pts`, once its last five one-second rounds
/// meet SNIA PTS's rule).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyRule {
    /// The interval's half-width allowed, % of the mean.
    pub pct: f64,
    /// The shortest measured phase, and the first look.
    pub min: Duration,
    /// What holds the rule: the interval, PTS's rounds or fio's window.
    pub kind: RuleKind,
}

/// Which test a steady-state rule applies at its looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuleKind {
    /// `--steady[=PCT]`: the throughput's interval within ±PCT %.
    Interval,
    /// `--steady=pts`: PTS's steady state over one-second rounds
    /// ([`super::pts::point_holds`]), looked at every round.
    Pts,
    /// fio's `steadystate`: its window of per-second samples, looked at every second after a
    /// fixed warm-up (fio's `ramp_time`, not an adaptive one).
    Fio(FioSteady),
    /// `experiment burst`'s drain: a credit bucket emptied, its baseline held for `hold_s`
    /// ([`super::bucket::drained`]), looked at every second, with no warm-up (every credit is
    /// counted from the first I/O).
    Drained {
        /// How long the baseline must hold, s.
        hold_s: f64,
    },
}

/// How a steady point ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyOutcome {
    /// Whether the rule held (else the point ran to `--time`).
    pub reached: bool,
    /// The warm-up the point ran until its transient was over, s (the transient removed).
    pub transient_s: f64,
    /// The rule's last look: the one that held, else the one at the phase's end.
    pub look: Option<SteadyLook>,
}

impl SteadyRule {
    /// The rule `--steady[=PCT]` names.
    pub fn new(pct: f64) -> Self {
        SteadyRule {
            pct,
            min: MIN_MEASURED,
            kind: RuleKind::Interval,
        }
    }

    /// The rule `--steady=pts` names: PTS's window of five one-second rounds.
    pub fn pts() -> Self {
        SteadyRule {
            pct: f64::INFINITY,
            min: MIN_MEASURED,
            kind: RuleKind::Pts,
        }
    }

    /// The rule of a fio job's `steadystate`, `ss_dur` and `ss_ramp`.
    pub fn fio(rule: FioSteady) -> Self {
        SteadyRule {
            pct: f64::INFINITY,
            min: MIN_MEASURED,
            kind: RuleKind::Fio(rule),
        }
    }

    /// The rule of `experiment burst`'s drains: the baseline held for `hold_s`.
    pub fn drained(hold_s: f64) -> Self {
        SteadyRule {
            pct: f64::INFINITY,
            min: MIN_MEASURED,
            kind: RuleKind::Drained { hold_s },
        }
    }

    /// Whether the warm-up before the measured phase lasts until its transient is over (else
    /// it is the workload's fixed warm-up).
    pub fn adaptive_warmup(&self) -> bool {
        !matches!(self.kind, RuleKind::Fio(_) | RuleKind::Drained { .. })
    }

    /// When the rule looks in a measured phase of at most `max_s` seconds: from the minimum,
    /// [`LOOK_GROWTH`] times later each time, and last at `max_s` (the phase's end). Their
    /// number is fixed before the phase starts, so each look's share of the error is too.
    /// PTS's rule and a drain's (no interval, so no error to spend) look after every
    /// one-second round.
    pub fn schedule(&self, max_s: f64) -> Vec<f64> {
        if let RuleKind::Fio(f) = self.kind {
            let mut at = f.schedule(max_s);
            at.push(max_s.max(self.min.as_secs_f64()));
            return at;
        }
        let mut at = Vec::new();
        let mut t = self.min.as_secs_f64();
        while t < max_s * (1.0 - 1e-9) {
            at.push(t);
            t = if matches!(self.kind, RuleKind::Pts | RuleKind::Drained { .. }) {
                t + 1.0
            } else {
                t * LOOK_GROWTH
            };
        }
        at.push(max_s.max(self.min.as_secs_f64()));
        at
    }

    /// Look number `index` (1-based) of `of` at a measured phase whose counts every 100 ms
    /// are `marks` (the first at its start, the last now): the throughput since the end of
    /// its first window and its interval at error [`ALPHA`] / `of`, and whether that holds
    /// the rule. None with fewer than [`MIN_BATCHES`] windows after the first.
    pub fn look(&self, marks: &[Mark], index: usize, of: usize) -> Option<(SteadyLook, bool)> {
        let l = look(marks, index, of)?;
        let judged = match self.kind {
            RuleKind::Pts => {
                let rates = crate::stats::window::Rates::of(marks).bytes_per_s;
                super::pts::point_holds(&rates, l.at_s)
            }
            RuleKind::Interval => !l.correlated && l.bytes_per_s_ci95.pct <= self.pct,
            RuleKind::Fio(f) => f.look_now(marks).is_some_and(|x| x.attained),
            RuleKind::Drained { hold_s } => {
                let rates = crate::stats::window::Rates::of(marks).bytes_per_s;
                super::bucket::drained(&rates, l.at_s, hold_s)
            }
        };
        let holds = l.at_s >= self.min.as_secs_f64() - 1e-9 && l.bytes_per_s > 0.0 && judged;
        Some((l, holds))
    }
}

/// A look at `marks` (see [`SteadyRule::look`]) with the error spent over `of` looks.
pub fn look(marks: &[Mark], index: usize, of: usize) -> Option<SteadyLook> {
    // The first window starts from an empty queue (the warm-up drained before the barrier),
    // and on a throttled device it holds the burst of a fresh slice: left out.
    let interior = marks.get(1..)?;
    let n = interior.len().checked_sub(1)?;
    if n < MIN_BATCHES {
        return None;
    }
    let (per, correlated) = batch_size(interior);
    let mut l = batched(interior, per, of);
    // Correlation longer than a batch shows as more variance in batches twice as long: the
    // wider of the two intervals is kept.
    if n / (2 * per) >= CHECK_BATCHES {
        let twice = batched(interior, 2 * per, of);
        if twice.bytes_per_s_ci95.pct > l.bytes_per_s_ci95.pct + 1e-9 {
            l = twice;
        }
    }
    Some(SteadyLook {
        index,
        correlated,
        ..l
    })
}

/// The figures and intervals of the batches of `per` windows between `marks` that end at
/// the last, at error [`ALPHA`] / `of`.
fn batched(marks: &[Mark], per: usize, of: usize) -> SteadyLook {
    let edges = edges(marks, per);
    let batches = edges.len() - 1;
    let (first, last) = (edges[0], edges[batches]);
    let critical_t = student::two_sided(ALPHA / of.max(1) as f64, (batches - 1) as f64);
    let figure = |f: fn(&Mark) -> u64| -> (f64, Ci95) {
        let value = rate(&first, &last, f);
        let half = critical_t * (variance(&rates(&edges, f)) / batches as f64).sqrt();
        let pct = if value > 0.0 {
            100.0 * half / value
        } else {
            f64::INFINITY
        };
        (value, Ci95 { half, pct })
    };
    let (iops, iops_ci95) = figure(|m| m.ios);
    let (bytes_per_s, bytes_per_s_ci95) = figure(|m| m.bytes);
    SteadyLook {
        index: 0,
        of,
        at_s: last.at_s,
        from_s: first.at_s,
        window_s: (last.at_s - first.at_s) / batches as f64,
        batches,
        correlated: false,
        critical_t,
        iops,
        iops_ci95,
        bytes_per_s,
        bytes_per_s_ci95,
    }
}

/// The rate of count `f` between marks `a` and `b`, per second.
fn rate(a: &Mark, b: &Mark, f: fn(&Mark) -> u64) -> f64 {
    f(b).saturating_sub(f(a)) as f64 / (b.at_s - a.at_s).max(1e-9)
}

/// The edges of the batches of `per` windows that end at the last mark (windows that do not
/// fill a batch are left out at the start).
fn edges(marks: &[Mark], per: usize) -> Vec<Mark> {
    let n = marks.len() - 1;
    marks[n - n / per * per..]
        .iter()
        .step_by(per)
        .copied()
        .collect()
}

/// The rate of count `f` in each batch between `edges`.
fn rates(edges: &[Mark], f: fn(&Mark) -> u64) -> Vec<f64> {
    edges.windows(2).map(|w| rate(&w[0], &w[1], f)).collect()
}

/// The lag-1 autocorrelation of `x` (0 when it does not vary).
pub fn lag1(x: &[f64]) -> f64 {
    let m = mean(x);
    let c0: f64 = x.iter().map(|v| (v - m).powi(2)).sum();
    if c0 <= 0.0 {
        return 0.0;
    }
    x.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / c0
}

/// Windows per batch for the 100-ms windows between `marks`, and whether the batch means were
/// still correlated at the longest batches allowed. Batches start at 1/[`BATCHES`] of the
/// phase (at least one window) and double while their means are correlated — a lag-1
/// autocorrelation above 1.645/√batches, which independent batches exceed once in 20 — and
/// doubling leaves at least [`MIN_BATCHES`]. Merging windows this way makes them long enough
/// to be nearly independent on the device at hand: a throttle's 100-ms slices, which make one
/// window's excess the next one's shortfall, average out within a batch.
fn batch_size(marks: &[Mark]) -> (usize, bool) {
    let n = marks.len() - 1;
    let mut per = (n / BATCHES).max(1);
    loop {
        let batches = n / per;
        let correlated =
            lag1(&rates(&edges(marks, per), |m| m.bytes)) > 1.645 / (batches as f64).sqrt();
        if !correlated || n / (per * 2) < MIN_BATCHES {
            return (per, correlated);
        }
        per *= 2;
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
#[path = "steady_tests.rs"]
mod tests;
