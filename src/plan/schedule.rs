//! When a run's requests are issued: one [`Schedule`], chosen when the plan is made and held in
//! final units (ns between requests), so the worker reads it and never the options.

use crate::access::{Access, Arrivals};

/// A rate as the gap between two requests of the whole run, ns: per request and per byte (a
/// request waits the larger of the two for its size). Zero in both is no rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Gap {
    /// Nanoseconds per request (0: no I/O rate).
    pub ns_per_io: f64,
    /// Nanoseconds per byte (0: no byte rate).
    pub ns_per_byte: f64,
}

impl Gap {
    /// The gap of `--rate-iops` and `--rate` (bytes per second).
    pub fn of(access: &Access) -> Gap {
        Gap {
            ns_per_io: access.rate_iops.map_or(0.0, |r| 1e9 / r as f64),
            ns_per_byte: access.rate.map_or(0.0, |r| 1e9 / r.0 as f64),
        }
    }

    /// Whether there is a rate at all.
    pub fn is_rated(&self) -> bool {
        self.ns_per_io > 0.0 || self.ns_per_byte > 0.0
    }

    /// The gap of each of `workers` that share this rate equally.
    pub fn shared(self, workers: u32) -> Gap {
        let n = f64::from(workers.max(1));
        Gap {
            ns_per_io: self.ns_per_io * n,
            ns_per_byte: self.ns_per_byte * n,
        }
    }

    /// The gap that follows a request of `len` bytes.
    #[inline]
    pub fn after(&self, len: u64) -> f64 {
        self.ns_per_io.max(len as f64 * self.ns_per_byte)
    }

    /// When the next request is due, ns after the start, once `ios` requests of `bytes` in
    /// all have been issued.
    #[inline]
    pub fn due(&self, ios: u64, bytes: u64) -> u64 {
        (ios as f64 * self.ns_per_io).max(bytes as f64 * self.ns_per_byte) as u64
    }
}

/// A pause after every `every` requests (`--think`, `--think-every`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Think {
    /// The pause, ns.
    pub ns: u64,
    /// Requests between two pauses.
    pub every: u32,
}

/// The arrival process of an open loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Process {
    /// Exponentially distributed gaps (many independent users).
    Poisson,
    /// Even gaps.
    Uniform,
}

/// When a run's requests are issued, with its rates in final units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// Each worker keeps `depth` requests in flight; a rate cap (`cap`, the whole run's) holds
    /// the next request until it is due, and `think` pauses the worker.
    Closed {
        /// Requests in flight per worker (`--qd`, fitted to the engine).
        depth: u32,
        /// The whole run's rate cap (no rate: uncapped).
        cap: Gap,
        /// The think time, if any.
        think: Option<Think>,
    },
    /// Each request is issued at its own due time, whether or not earlier ones completed.
    Open {
        /// How the gaps are drawn.
        process: Process,
        /// The whole run's arrival rate.
        gap: Gap,
        /// The most requests in flight per worker (`--max-inflight`, fitted to the engine).
        slots: u32,
    },
    /// A replayed trace's requests at their own times divided by the replay's speed.
    Trace {
        /// The most requests in flight (`--max-inflight`, fitted to the engine).
        slots: u32,
        /// The trace's times are divided by this (2: twice as fast; `replay --speed`).
        speed: f64,
    },
}

impl Schedule {
    /// The schedule of `access` on `depth` requests in flight (a closed loop's depth, an
    /// open loop's bound), `trace` when a replayed trace brings its own times.
    pub fn of(access: &Access, depth: u32) -> Schedule {
        match access.arrivals {
            Arrivals::Closed => Schedule::Closed {
                depth,
                cap: Gap::of(access),
                think: access.think.map(|t| Think {
                    ns: t.0.as_nanos() as u64,
                    every: access.think_every,
                }),
            },
            Arrivals::Poisson | Arrivals::Uniform => Schedule::Open {
                process: if access.arrivals == Arrivals::Poisson {
                    Process::Poisson
                } else {
                    Process::Uniform
                },
                gap: Gap::of(access),
                slots: depth,
            },
            Arrivals::Trace => Schedule::Trace {
                slots: depth,
                speed: 1.0,
            },
        }
    }

    /// The most requests a worker has in flight: the closed loop's depth, or the open loop's
    /// slots.
    pub fn slots(&self) -> u32 {
        match *self {
            Schedule::Closed { depth, .. } => depth,
            Schedule::Open { slots, .. } | Schedule::Trace { slots, .. } => slots,
        }
    }

    /// The kind, as `--arrivals` names it.
    pub fn arrivals(&self) -> Arrivals {
        match self {
            Schedule::Closed { .. } => Arrivals::Closed,
            Schedule::Open {
                process: Process::Poisson,
                ..
            } => Arrivals::Poisson,
            Schedule::Open {
                process: Process::Uniform,
                ..
            } => Arrivals::Uniform,
            Schedule::Trace { .. } => Arrivals::Trace,
        }
    }

    /// The whole run's rate in I/Os per second, where one is set (`--rate-iops`): an open
    /// loop's arrival rate, a closed loop's cap.
    pub fn iops(&self) -> Option<f64> {
        let gap = match self {
            Schedule::Closed { cap, .. } => cap,
            Schedule::Open { gap, .. } => gap,
            Schedule::Trace { .. } => return None,
        };
        (gap.ns_per_io > 0.0).then(|| 1e9 / gap.ns_per_io)
    }

    /// When a trace's request at `trace_ns` into the trace is due, ns into the replay: its
    /// time divided by the speed (a trace's only; the time as it is otherwise).
    #[inline]
    pub fn trace_due(&self, trace_ns: u64) -> u64 {
        match self {
            Schedule::Trace { speed, .. } => (trace_ns as f64 / speed) as u64,
            Schedule::Closed { .. } | Schedule::Open { .. } => trace_ns,
        }
    }

    /// This schedule replaying at `speed` (a trace's; others are left as they are).
    pub fn at_speed(self, speed: f64) -> Schedule {
        match self {
            Schedule::Trace { slots, .. } => Schedule::Trace { slots, speed },
            other => other,
        }
    }

    /// Where worker `index` of an open loop starts, ns after the phase's start: `index` gaps
    /// of the whole run's rate, so the workers' arrivals interleave evenly (0 otherwise).
    pub fn offset_ns(&self, index: usize) -> u64 {
        match self {
            Schedule::Open { gap, .. } => (index as f64 * gap.ns_per_io) as u64,
            Schedule::Closed { .. } | Schedule::Trace { .. } => 0,
        }
    }

    /// This schedule for each of `workers` that share its rate equally.
    pub fn shared(self, workers: u32) -> Schedule {
        match self {
            Schedule::Closed { depth, cap, think } => Schedule::Closed {
                depth,
                cap: cap.shared(workers),
                think,
            },
            Schedule::Open {
                process,
                gap,
                slots,
            } => Schedule::Open {
                process,
                gap: gap.shared(workers),
                slots,
            },
            Schedule::Trace { slots, speed } => Schedule::Trace { slots, speed },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{ByteSize, Dur};

    #[test]
    fn rates_become_gaps_and_are_shared_by_the_workers() {
        let a = Access {
            rate_iops: Some(2000),
            rate: Some(ByteSize(1 << 20)),
            think: Some(Dur(std::time::Duration::from_micros(500))),
            think_every: 3,
            ..Access::default()
        };
        let s = Schedule::of(&a, 8);
        let Schedule::Closed { depth, cap, think } = s.shared(4) else {
            panic!("{s:?}")
        };
        assert_eq!(depth, 8);
        assert_eq!(cap.ns_per_io, 4.0 * 500_000.0);
        assert_eq!(cap.ns_per_byte, 4.0 * 1e9 / f64::from(1 << 20));
        assert_eq!(
            think,
            Some(Think {
                ns: 500_000,
                every: 3
            })
        );
        assert_eq!(s.arrivals(), Arrivals::Closed);
    }

    #[test]
    fn an_open_loop_keeps_its_bound_apart_from_a_depth() {
        let a = Access {
            rate_iops: Some(1000),
            arrivals: Arrivals::Poisson,
            ..Access::default()
        };
        let s = Schedule::of(&a, 256);
        assert_eq!(s.slots(), 256);
        assert_eq!(s.arrivals(), Arrivals::Poisson);
        assert_eq!(Gap::of(&a).after(4096), 1e6);
        assert_eq!(Gap::of(&a).due(3, 0), 3_000_000);
    }
}
