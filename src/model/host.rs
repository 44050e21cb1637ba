//! What the host did to halfpower while it measured (`results.host`): the hypervisor's steal,
//! a sleeping probe's lateness, the workers' own waits for a CPU, CPU pressure and the clock
//! source; and which figures the host could have moved (docs/figures.md, "The host").

use super::Direction;
use serde::{Deserialize, Serialize};

/// The host over one measured window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostNoise {
    /// The window the probe covered, s.
    pub seconds: f64,
    /// CPU time the hypervisor stole, % of all CPU time (/proc/stat).
    pub steal_pct: Option<f64>,
    /// Time some task waited for a CPU, % of the window (PSI `cpu some`; absent without PSI).
    pub cpu_pressure_pct: Option<f64>,
    /// The kernel's clock source (`tsc`, `kvm-clock`, …).
    pub clocksource: Option<String>,
    /// The sleeping probe.
    pub probe: Probe,
    /// Time halfpower's workers and their io_uring helper threads were ready to run and waited
    /// for a CPU, ms, summed (their schedstat `run_delay`; absent where the kernel keeps none).
    pub workers_waited_ms: Option<f64>,
    /// Workers that ran (the denominator of `workers_waited_ms` as a share of the window).
    pub workers: u32,
    /// The figures of these results the host could have moved (empty on a quiet host).
    #[serde(default)]
    pub flags: Vec<HostFlag>,
}

/// The probe: a thread that sleeps to deadlines as halfpower's pacing does.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Probe {
    /// Its mean period, µs (each drawn evenly from half to one and a half times this).
    pub period_us: f64,
    /// How many times it woke.
    pub wakeups: u64,
    /// How late it woke, µs: median.
    pub late_p50_us: f64,
    /// 99th percentile, µs.
    pub late_p99_us: f64,
    /// Latest, µs.
    pub late_max_us: f64,
    /// Share of its wake-ups over 1 ms late (0–1).
    pub over_1ms_share: f64,
    /// Its wake-ups over 1 ms late: the stalls it saw.
    pub stalls: u64,
    /// The time those stalls lasted, ms (each its lateness plus the mean time from a stall's
    /// start to the next deadline: exact on average for stalls longer than the period).
    pub stalled_ms: f64,
    /// Its own CPU time, % of one CPU over the window.
    pub cpu_pct: f64,
}

/// A figure the host could have moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFlag {
    /// Which figure.
    pub figure: HostFigure,
    /// Its direction, for a latency (absent: the total, or a figure of the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// Why.
    pub cause: HostCause,
}

/// The figures a flag can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostFigure {
    /// I/Os per second and bytes per second: the process was stalled for a share of the window.
    Throughput,
    /// The median latency.
    P50,
    /// The 90th percentile.
    P90,
    /// The 99th percentile.
    P99,
    /// The 99.9th percentile.
    P99_9,
    /// The 99.99th percentile.
    P99_99,
    /// The largest latency.
    Max,
    /// The steady-state verdict.
    Steady,
    /// The steps found in the per-second series.
    Changes,
}

/// What the host did that could have moved a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostCause {
    /// This process was kept off the CPU (the probe's stalls, the workers' waits).
    Stalled,
    /// The hypervisor stole CPU time.
    Steal,
}

impl HostNoise {
    /// Whether the host could have moved any figure.
    pub fn interfered(&self) -> bool {
        !self.flags.is_empty()
    }

    /// The flag on `figure` (of `direction`, or of the whole run), if any.
    pub fn flag(&self, figure: HostFigure, direction: Option<Direction>) -> Option<&HostFlag> {
        self.flags
            .iter()
            .find(|f| f.figure == figure && (f.direction.is_none() || f.direction == direction))
    }
}

/// Where in a document a host record belongs: which run, point, cell or step.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// The document's one run (or its first repetition).
    Run,
    /// Repetition `n` (1-based) of a run.
    Repetition(usize),
    /// A quick-suite test, by name.
    Test(String),
    /// A sweep point.
    Point {
        /// rw mode.
        rw: crate::plan::RwMode,
        /// Request size, bytes.
        bs_bytes: u64,
        /// Depth per thread.
        qd: u32,
        /// Threads.
        threads: u32,
    },
    /// A profile cell.
    Cell {
        /// Direction.
        rw: Direction,
        /// Pattern.
        pattern: super::profile::Pattern,
        /// Request size, bytes.
        bs_bytes: u64,
        /// Depth.
        qd: u32,
    },
    /// A target measured alone before a scale.
    Alone(String),
    /// A scale step over this many targets.
    Step(usize),
    /// An experiment row.
    Row(super::experiment::Variant, u64),
    /// A replay at this speed.
    Speed(f64),
    /// A phase of the self-test.
    Phase(super::selftest::Phase),
    /// A PTS round's cell.
    Round {
        /// The round.
        round: u32,
        /// Request size, bytes.
        bs_bytes: u64,
        /// Mix.
        mix: super::pts::Mix,
    },
}

/// One host record of a document, with the results it belongs to where the document keeps them.
#[derive(Clone, Debug)]
pub struct HostOf<'a> {
    /// Where it belongs.
    pub place: Place,
    /// The record.
    pub noise: &'a HostNoise,
    /// The results it judged (absent where the document keeps only brief figures).
    pub results: Option<&'a super::Results>,
}

/// Adds `r`'s host record, if it has one, at `place`.
fn push<'a>(out: &mut Vec<HostOf<'a>>, place: Place, r: &'a super::Results) {
    if let Some(noise) = &r.host {
        out.push(HostOf {
            place,
            noise,
            results: Some(r),
        });
    }
}

impl super::Document {
    /// Every host record of the document, in its order: one per measured run, point, cell or
    /// step.
    pub fn hosts(&self) -> Vec<HostOf<'_>> {
        use super::Document as D;
        let mut out = Vec::new();
        match self {
            D::Run(r) => match &r.repeat {
                Some(rep) if rep.runs.len() > 1 => {
                    for (i, x) in rep.runs.iter().enumerate() {
                        push(&mut out, Place::Repetition(i + 1), x);
                    }
                }
                _ => push(&mut out, Place::Run, &r.results),
            },
            D::Quick(q) => {
                for t in &q.tests {
                    push(&mut out, Place::Test(t.name.clone()), &t.results);
                }
            }
            D::Sweep(s) => {
                for p in &s.points {
                    if let Some(r) = &p.results {
                        let place = Place::Point {
                            rw: p.rw,
                            bs_bytes: p.bs_bytes,
                            qd: p.qd,
                            threads: p.threads,
                        };
                        push(&mut out, place, r);
                    }
                }
            }
            D::Scale(s) => {
                for a in &s.alone {
                    push(&mut out, Place::Alone(a.target.clone()), &a.results);
                }
                for st in &s.steps {
                    push(&mut out, Place::Step(st.targets), &st.results);
                }
            }
            D::Experiment(e) => {
                for row in &e.rows {
                    push(
                        &mut out,
                        Place::Row(row.variant, row.bs_bytes),
                        &row.results,
                    );
                }
            }
            _ => self.bare_hosts(&mut out),
        }
        out
    }
    /// The host records of documents that keep them without a run record beside them
    /// (profile cells, replay speeds, PTS rounds, self-test phases).
    fn bare_hosts<'a>(&'a self, out: &mut Vec<HostOf<'a>>) {
        use super::Document as D;
        match self {
            D::Profile(p) => {
                for c in &p.cells {
                    if let Some(noise) = &c.host {
                        let place = Place::Cell {
                            rw: c.rw,
                            pattern: c.pattern,
                            bs_bytes: c.bs_bytes,
                            qd: c.qd,
                        };
                        out.push(HostOf {
                            place,
                            noise,
                            results: None,
                        });
                    }
                }
            }
            D::Replay(r) => {
                for p in &r.points {
                    if let Some(noise) = &p.host {
                        out.push(HostOf {
                            place: Place::Speed(p.speed),
                            noise,
                            results: None,
                        });
                    }
                }
            }
            D::Pts(p) => {
                for t in &p.tracks {
                    for r in &t.rounds {
                        for c in &r.cells {
                            if let Some(noise) = &c.host {
                                let place = Place::Round {
                                    round: r.round,
                                    bs_bytes: c.bs_bytes,
                                    mix: c.mix,
                                };
                                out.push(HostOf {
                                    place,
                                    noise,
                                    results: None,
                                });
                            }
                        }
                    }
                }
            }
            D::Selftest(t) => {
                for p in &t.hosts {
                    out.push(HostOf {
                        place: Place::Phase(p.phase),
                        noise: &p.host,
                        results: None,
                    });
                }
            }
            _ => {}
        }
    }
}
