//! Where each host record of a document belongs ([`Place`]) and the walk that finds every
//! one ([`super::Document::hosts`]), for the render layer's one word on the host.

use super::Direction;
use super::host::HostNoise;

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
    /// A `scale --ranks` step over this many ranks.
    Ranks(usize),
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
                    let place = match s.across {
                        super::scale::Across::Targets => Place::Step(st.targets),
                        super::scale::Across::Ranks => Place::Ranks(st.targets),
                    };
                    push(&mut out, place, &st.results);
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
