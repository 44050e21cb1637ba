//! The open loop: each request is issued at its own due time, whether or not earlier ones have
//! completed, and its latency runs from that due time (what an application that asked for it
//! then sees). Due times come from an arrival process at the run's rate ([`Arrival`]: Poisson
//! or even gaps) or from the source itself (a trace).
//!
//! Nothing is delayed silently: a request due while every slot is busy waits for a completion
//! and is issued late; each request's lateness (issue minus due time) is recorded, and those
//! later than [`LATE_NS`](crate::stats::recorder::LATE_NS) are counted. Its latency still runs
//! from the due time, so a device that stalls shows its whole delay (no coordinated omission).
//! Between due times the worker waits in the engine with a timeout ([`Engine::
//! submit_and_reap_until`]), so completions are stamped as they come.

use super::pace::idle_until;
use super::source::{Source, Timing, claim_write};
use super::{Gate, Phase, PhaseEnd, Progress, Wait, Worker};
use crate::clock::now_ns;
use crate::engine::{Engine, IoDir};
use crate::plan::schedule::{Gap, Process, Schedule};
use crate::rng::Rng;
use crate::stats::Recorder;
use crate::stats::recorder::OpenStats;
use std::io;
use std::sync::atomic::AtomicBool;

/// The due times of an open loop's requests, ns after the phase's start: gaps of its rate
/// (the larger of its I/O and byte rates for each request's size), even or exponentially
/// distributed.
#[derive(Clone, Debug)]
pub(super) struct Arrival {
    process: Process,
    gap: Gap,
    next: f64,
    rng: Rng,
}

/// Where a worker's open loop starts: the first request's due time, ns after the phase's start
/// (the workers of a run start staggered over one gap, so their uniform arrivals interleave
/// evenly), and the seed of its random gaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stagger {
    /// The first request's due time, ns after the phase's start.
    pub first_due_ns: u64,
    /// The seed of the random gaps.
    pub seed: u64,
}

impl Arrival {
    /// Arrivals of `process` at `gap` (a worker's share of the rate), from `stagger`'s first
    /// due time (plus one random gap for Poisson arrivals, which start as a process that was
    /// already running).
    pub(super) fn new(process: Process, gap: Gap, stagger: Stagger) -> Self {
        let mut a = Arrival {
            process,
            gap,
            next: stagger.first_due_ns as f64,
            rng: Rng::new(stagger.seed, 0x6172_7269_7661_6c73),
        };
        if a.process == Process::Poisson {
            a.next += a.gap.ns_per_io * a.exponential();
        }
        a
    }

    /// A draw of the exponential distribution of mean 1.
    fn exponential(&mut self) -> f64 {
        // 53 random bits: u in [0, 1), so 1 − u in (0, 1] and its logarithm is finite.
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        -(1.0 - u).ln()
    }

    /// When the next request is due.
    pub(super) fn due(&self) -> u64 {
        self.next as u64
    }

    /// The request due now was `len` bytes: the next one is due one gap later.
    pub(super) fn advance(&mut self, len: u64) {
        let gap = self.gap.after(len);
        self.next += match self.process {
            Process::Poisson => gap * self.exponential(),
            Process::Uniform => gap,
        };
    }
}

impl<S: Source> Worker<S> {
    /// Runs one phase as an open loop (see the module's doc) and drains it. As
    /// [`Worker::phase`]; with `rec`, its open-loop counts go to `rec.open`. Due times count
    /// from the recorder's origin (the run's measured start) or from now in a warm-up.
    pub(super) fn phase_open<E: Engine>(
        &mut self,
        eng: &mut E,
        limit: PhaseEnd<'_>,
        mut rec: Option<&mut Recorder>,
        progress: &Progress,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        crate::clock::precise_sleeps();
        let start = rec.as_deref().map_or_else(now_ns, |r| r.origin_ns);
        if let Some(r) = rec.as_deref_mut() {
            r.open = Some(Box::<OpenStats>::default());
        }
        // Due times from the arrival process, or (a trace) from the source.
        let mut arrival = match self.plan.schedule {
            Schedule::Open { process, gap, .. } => {
                Some(Arrival::new(process, gap, self.plan.stagger))
            }
            Schedule::Closed { .. } | Schedule::Trace { .. } => None,
        };
        let mut p = Phase::new(Gate::new(limit, self.plan.schedule.slots()), &self.plan);
        progress.publish(&p.counts);
        loop {
            self.stop_after_grace(&p, rec.as_deref_mut(), stop);
            let due = start
                + match (&arrival, self.plan.source.timing()) {
                    (Some(a), _) => a.due(),
                    (None, Timing::At(t)) => self.plan.schedule.trace_due(t),
                    // A trace's request without a time is due at once.
                    (None, Timing::Untimed) => 0,
                    (None, Timing::End) => break,
                };
            if !p.gate.open(due, stop) {
                break;
            }
            p.now = now_ns();
            if due > p.now {
                // Not yet due: take completions as they come until it is.
                if p.inflight > 0 {
                    self.reap_as::<E, true>(eng, &mut p, Wait::Until(due), rec.as_deref_mut())?;
                    progress.publish(&p.counts);
                } else {
                    idle_until(due, stop);
                }
                continue;
            }
            let Some(&slot) = p.free.last() else {
                // Due, and every slot is busy: it waits for one, and will be late.
                self.reap_as::<E, true>(eng, &mut p, Wait::For(1), rec.as_deref_mut())?;
                progress.publish(&p.counts);
                continue;
            };
            let r = self.plan.source.next();
            let r = match (&self.plan.verify, r.dir) {
                (Some(v), IoDir::Write) => match claim_write(&mut self.plan.source, v, r) {
                    Some(r) => r,
                    None => {
                        return Err(io::Error::other(format!(
                            "--verify: no free block for a write of {} bytes at {}",
                            r.len, r.logical
                        )));
                    }
                },
                _ => r,
            };
            p.gate.took();
            p.free.pop();
            if let Some(a) = arrival.as_mut() {
                a.advance(r.len);
            }
            self.issue(eng, slot, r, Some(due), p.judge_reads);
            p.inflight += 1;
            p.batch += 1;
            if let Some(open) = rec.as_deref_mut().and_then(|r| r.open.as_deref_mut()) {
                open.issued(due, self.submitted_ns[slot as usize], p.inflight);
            }
        }
        while p.inflight > 0 {
            let all = p.inflight;
            self.reap_as::<E, true>(eng, &mut p, Wait::For(all), rec.as_deref_mut())?;
            progress.publish(&p.counts);
        }
        p.gate.give_back();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(process: Process, ns_per_io: f64) -> Arrival {
        let gap = Gap {
            ns_per_io,
            ns_per_byte: 0.0,
        };
        Arrival::new(
            process,
            gap,
            Stagger {
                first_due_ns: 0,
                seed: 7,
            },
        )
    }

    #[test]
    fn uniform_arrivals_are_even() {
        let mut a = arrival(Process::Uniform, 4_000_000.0);
        let dues: Vec<u64> = (0..4)
            .map(|_| {
                let d = a.due();
                a.advance(4096);
                d
            })
            .collect();
        assert_eq!(dues, [0, 4_000_000, 8_000_000, 12_000_000]);
    }

    #[test]
    fn poisson_gaps_have_the_rate_mean_and_an_exponential_spread() {
        // 100 000 gaps of mean 1 ms: the mean within 1 % (5 standard errors), the standard
        // deviation equal to the mean (exponential) within 2 %, and P(gap > mean) = 1/e.
        let mut a = arrival(Process::Poisson, 1e6);
        let n = 100_000;
        let mut prev = a.due() as f64;
        let (mut sum, mut sq, mut over) = (0.0, 0.0, 0u32);
        for _ in 0..n {
            a.advance(4096);
            let g = a.due() as f64 - prev;
            prev = a.due() as f64;
            sum += g;
            sq += g * g;
            over += u32::from(g > 1e6);
        }
        let mean = sum / n as f64;
        let sd = (sq / n as f64 - mean * mean).sqrt();
        assert!((mean / 1e6 - 1.0).abs() < 0.01, "mean gap {mean}");
        assert!((sd / mean - 1.0).abs() < 0.02, "sd {sd} mean {mean}");
        let share = over as f64 / n as f64;
        assert!((share - (-1f64).exp()).abs() < 0.01, "{share}");
    }

    #[test]
    fn a_byte_rate_spaces_requests_by_their_size() {
        // 1 ns per byte: a 4 KiB request is followed 4096 ns later, a 64 KiB one 65536 ns.
        let gap = Gap {
            ns_per_io: 0.0,
            ns_per_byte: 1.0,
        };
        let mut a = Arrival::new(Process::Uniform, gap, Stagger::default());
        a.advance(4096);
        assert_eq!(a.due(), 4096);
        a.advance(65536);
        assert_eq!(a.due(), 4096 + 65536);
    }
}
