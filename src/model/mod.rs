//! The typed documents halfpower writes and reads: run, quick, sweep, profile, monitor records,
//! input logs, diagnoses, paths and PTS tests. This layer is the JSON schema (docs/json-schema.md): plain data with
//! serde derives and the small accessors that read it. Nothing here measures, computes a figure
//! from others, or renders; `analysis` fills these types and `render` draws them.

pub mod bucket;
pub mod capture;
pub mod cause;
pub mod change;
pub mod cloud;
pub mod compare;
pub mod device;
pub mod diagnosis;
pub mod doctor;
pub mod evidence;
pub mod experiment;
pub mod fio;
pub mod host;
pub mod log;
pub mod monitor;
pub mod open;
pub mod path;
pub mod places;
pub mod policy;
pub mod profile;
pub mod pts;
pub mod quick;
pub mod ranks;
pub mod replay;
pub mod run;
pub mod scale;
pub mod selftest;

pub mod sweep;
pub mod verify;
pub mod warning;

pub use device::{ClassEvidence, DeviceClass, ServiceMethod, Serving};
pub use quick::{QuickReport, QuickTest};
pub use run::{
    ErrorSummary, Results, RunReport, SyncSummary, TargetInfo, TargetKind, TargetResult,
};
pub use warning::Warning;

use serde::{Deserialize, Serialize};

/// A monitor log (or an iostat / perfmon log) as `report` draws it: the intervals as read and
/// the diagnosis `diagnose` gives them.
#[derive(Clone, Debug)]
pub struct MonitorDocument {
    /// The intervals as read.
    pub log: log::Log,
    /// Verdicts, evidence and advice.
    pub diagnosis: diagnosis::Diagnosis,
}

/// Any document halfpower reads back, of a known kind.
#[derive(Clone, Debug)]
pub enum Document {
    /// `run --json`.
    Run(Box<RunReport>),
    /// `quick --json`.
    Quick(Box<QuickReport>),
    /// `sweep --json`.
    Sweep(Box<sweep::SweepReport>),
    /// `profile --json`.
    Profile(Box<profile::ProfileReport>),
    /// A monitor log (or iostat / perfmon log) with its diagnosis.
    Monitor(Box<MonitorDocument>),
    /// `diagnose --json`.
    Diagnose(Box<diagnosis::Diagnosis>),
    /// `scale --json`.
    Scale(Box<scale::ScaleReport>),
    /// `experiment --json`.
    Experiment(Box<experiment::ExperimentReport>),
    /// `compare --json`.
    Compare(Box<compare::CompareReport>),
    /// `replay --json`.
    Replay(Box<replay::ReplayReport>),
    /// `capture --json`.
    Capture(Box<capture::CaptureReport>),
    /// `verify --json`.
    Verify(Box<verify::VerifyReport>),
    /// `path --json`.
    Path(Box<path::PathReport>),
    /// `pts --json`.
    Pts(Box<pts::PtsReport>),
    /// `selftest --json`.
    Selftest(Box<selftest::SelftestReport>),
    /// `doctor --json`.
    Doctor(Box<doctor::DoctorReport>),
}

impl Document {
    /// Why the document holds nothing to draw, when it does not: the one rule `report` refuses
    /// an input by and `--html` skips a report by.
    pub fn nothing_to_draw(&self) -> Option<&'static str> {
        match self {
            Document::Sweep(s) if s.points.is_empty() => Some("the sweep has no points"),
            Document::Quick(q) if q.tests.is_empty() => Some("the quick suite has no tests"),
            Document::Profile(p) if p.cells.is_empty() => Some("the profile has no cells"),
            Document::Scale(s) if s.steps.len() < 2 => Some("the scale has fewer than two steps"),
            Document::Experiment(e) if e.rows.is_empty() => Some("the experiment has no rows"),
            Document::Diagnose(d) if d.devices.is_empty() => Some("the diagnosis has no devices"),
            Document::Capture(_) => Some("a capture's summary has no chart (replay its trace)"),
            Document::Verify(v) if v.verification.targets.is_empty() => {
                Some("the verification checked no target")
            }
            Document::Path(p) if p.targets.is_empty() => Some("the path has no targets"),
            Document::Pts(p) if p.tracks.iter().all(|t| t.rounds.is_empty()) => {
                Some("the PTS test has no rounds")
            }
            _ => None,
        }
    }

    /// The warnings the document carries as its own (those of a monitor log or a diagnosis
    /// are each log's: [`Document::log_warnings`]).
    pub fn warnings(&self) -> &[Warning] {
        match self {
            Document::Run(r) => &r.warnings,
            Document::Quick(q) => &q.warnings,
            Document::Sweep(s) => &s.warnings,
            Document::Profile(p) => &p.warnings,
            Document::Scale(s) => &s.warnings,
            Document::Experiment(e) => &e.warnings,
            Document::Replay(r) => &r.warnings,
            Document::Capture(c) => &c.warnings,
            Document::Path(p) => &p.warnings,
            Document::Pts(p) => &p.warnings,
            Document::Selftest(t) => &t.warnings,
            Document::Compare(c) => &c.warnings,
            Document::Monitor(_)
            | Document::Diagnose(_)
            | Document::Verify(_)
            | Document::Doctor(_) => &[],
        }
    }

    /// The warnings of each log a monitor log or a diagnosis was read from (none for any other
    /// kind), one list per log.
    pub fn log_warnings(&self) -> Vec<&[Warning]> {
        match self {
            Document::Monitor(m) => vec![&m.log.warnings],
            Document::Diagnose(d) => d.inputs.iter().map(|i| &i.warnings[..]).collect(),
            _ => Vec::new(),
        }
    }

    /// The document's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Document::Run(_) => Kind::Run,
            Document::Quick(_) => Kind::Quick,
            Document::Sweep(_) => Kind::Sweep,
            Document::Profile(_) => Kind::Profile,
            Document::Monitor(_) => Kind::Monitor,
            Document::Diagnose(_) => Kind::Diagnose,
            Document::Scale(_) => Kind::Scale,
            Document::Experiment(_) => Kind::Experiment,
            Document::Compare(_) => Kind::Compare,
            Document::Replay(_) => Kind::Replay,
            Document::Capture(_) => Kind::Capture,
            Document::Verify(_) => Kind::Verify,
            Document::Path(_) => Kind::Path,
            Document::Pts(_) => Kind::Pts,
            Document::Selftest(_) => Kind::Selftest,
            Document::Doctor(_) => Kind::Doctor,
        }
    }
}

/// A document writes itself as the command that made it does (`--json`); a monitor log, whose
/// records are JSON lines of their own, writes its diagnosis.
impl Serialize for Document {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Document::Run(r) => r.serialize(s),
            Document::Quick(q) => q.serialize(s),
            Document::Sweep(w) => w.serialize(s),
            Document::Profile(p) => p.serialize(s),
            Document::Monitor(m) => m.diagnosis.serialize(s),
            Document::Diagnose(d) => d.serialize(s),
            Document::Scale(c) => c.serialize(s),
            Document::Experiment(e) => e.serialize(s),
            Document::Compare(c) => c.serialize(s),
            Document::Replay(r) => r.serialize(s),
            Document::Capture(c) => c.serialize(s),
            Document::Verify(v) => v.serialize(s),
            Document::Path(p) => p.serialize(s),
            Document::Pts(p) => p.serialize(s),
            Document::Selftest(t) => t.serialize(s),
            Document::Doctor(d) => d.serialize(s),
        }
    }
}

/// One input file and what it holds.
#[derive(Clone, Debug)]
pub struct Input {
    /// The path as given.
    pub path: String,
    /// Its content.
    pub doc: Document,
}

/// Version of the layouts of every kind but profile and diagnose (which have their own); bumped
/// on any incompatible change. 2 (2026-11-25): verdicts, causes and facts became kinds with
/// their data (docs/json-schema.md, "Versions"); version 1 files still read.
pub const SCHEMA_VERSION: u32 = 2;

/// Direction of an I/O as documents name it (`read`, `write`).
pub type Direction = crate::engine::IoDir;

/// What a document is: its `kind` field, spelled once, by [`Kind::name`] (the JSON reads and
/// writes that name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `halfpower run`.
    Run,
    /// `halfpower quick`.
    Quick,
    /// `halfpower sweep`.
    Sweep,
    /// `halfpower profile`.
    Profile,
    /// `halfpower diagnose`.
    Diagnose,
    /// `halfpower scale`.
    Scale,
    /// `halfpower experiment`.
    Experiment,
    /// `halfpower compare`.
    Compare,
    /// A monitor log (its records carry no kind; the name is used by `report`).
    Monitor,
    /// `halfpower verify`.
    Verify,
    /// `halfpower replay`.
    Replay,
    /// `halfpower capture`.
    Capture,
    /// `halfpower path`.
    Path,
    /// `halfpower pts`.
    Pts,
    /// `halfpower selftest`.
    Selftest,
    /// `halfpower doctor`.
    Doctor,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 16] = [
        Kind::Run,
        Kind::Quick,
        Kind::Sweep,
        Kind::Profile,
        Kind::Diagnose,
        Kind::Scale,
        Kind::Experiment,
        Kind::Compare,
        Kind::Monitor,
        Kind::Verify,
        Kind::Replay,
        Kind::Capture,
        Kind::Path,
        Kind::Pts,
        Kind::Selftest,
        Kind::Doctor,
    ];

    /// The kind named `name` as written in `kind`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The newest layout version of a document of this kind this halfpower reads and writes;
    /// none for a monitor log (its records carry their own, and no kind).
    pub fn schema_version(self) -> Option<u32> {
        match self {
            Kind::Profile => Some(profile::PROFILE_SCHEMA_VERSION),
            Kind::Diagnose => Some(diagnosis::DIAGNOSE_SCHEMA_VERSION),
            Kind::Monitor => None,
            _ => Some(SCHEMA_VERSION),
        }
    }

    /// The name as written in `kind`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Run => "run",
            Kind::Quick => "quick",
            Kind::Sweep => "sweep",
            Kind::Profile => "profile",
            Kind::Diagnose => "diagnose",
            Kind::Scale => "scale",
            Kind::Experiment => "experiment",
            Kind::Compare => "compare",
            Kind::Monitor => "monitor",
            Kind::Verify => "verify",
            Kind::Replay => "replay",
            Kind::Capture => "capture",
            Kind::Path => "path",
            Kind::Pts => "pts",
            Kind::Selftest => "selftest",
            Kind::Doctor => "doctor",
        }
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Kind::named(&name).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            serde::de::Error::custom(format!(
                "unknown kind '{name}', expected one of {}",
                known.join(", ")
            ))
        })
    }
}

/// What every measured document begins with (flattened into it: the JSON keys are the
/// document's own): its layout version, kind, writer, command line and date.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Header {
    /// Layout version; bumped on any incompatible change.
    pub schema_version: u32,
    /// What the document is.
    pub kind: Kind,
    /// The writer.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the measurement ended (RFC 3339 UTC).
    pub date: String,
}

impl Header {
    /// The header of a `kind` document at its kind's layout ([`Kind::schema_version`]),
    /// written by this halfpower for `command` at `date`.
    pub fn new(kind: Kind, command: Vec<String>, date: String) -> Self {
        Header {
            schema_version: kind.schema_version().unwrap_or(SCHEMA_VERSION),
            kind,
            tool: Tool::default(),
            command,
            date,
        }
    }
}

/// The program that wrote a document.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    /// Always `halfpower`.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: "halfpower".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// Reads a ratio that JSON may hold as null: serde_json writes a non-finite number (a ratio
/// over a zero throughput) as null, which reads back as NaN.
pub(crate) fn null_as_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}
