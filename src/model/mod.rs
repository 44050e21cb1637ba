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
pub mod document;
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
pub mod trend;
pub mod verify;
pub mod warning;

pub use device::{ClassEvidence, DeviceClass, ServiceMethod, Serving};
pub use document::{Document, Kind, Report};
pub use quick::{QuickReport, QuickTest};
pub use run::{
    ErrorSummary, Results, RunReport, SyncSummary, TargetInfo, TargetKind, TargetResult,
};
pub use warning::Warning;

use serde::{Deserialize, Serialize};

/// The table of document kinds: calls `$then!` with one row per kind, `Variant(Type) = "name",`
/// each after its doc comment. A new kind is one row here.
macro_rules! with_documents {
    ($then:ident) => {
        $then! {
            /// `halfpower run`.
            Run($crate::model::run::RunReport) = "run",
            /// `halfpower quick`.
            Quick($crate::model::quick::QuickReport) = "quick",
            /// `halfpower sweep`.
            Sweep($crate::model::sweep::SweepReport) = "sweep",
            /// `halfpower profile`.
            Profile($crate::model::profile::ProfileReport) = "profile",
            /// `halfpower diagnose`.
            Diagnose($crate::model::diagnosis::Diagnosis) = "diagnose",
            /// `halfpower scale`.
            Scale($crate::model::scale::ScaleReport) = "scale",
            /// `halfpower experiment`.
            Experiment($crate::model::experiment::ExperimentReport) = "experiment",
            /// `halfpower compare`.
            Compare($crate::model::compare::CompareReport) = "compare",
            /// A monitor log (or iostat / perfmon log) with its diagnosis; its records carry no
            /// kind (the name is `report`'s).
            Monitor($crate::model::MonitorDocument) = "monitor",
            /// `halfpower verify`.
            Verify($crate::model::verify::VerifyReport) = "verify",
            /// `halfpower replay`.
            Replay($crate::model::replay::ReplayReport) = "replay",
            /// `halfpower capture`.
            Capture($crate::model::capture::CaptureReport) = "capture",
            /// `halfpower path`.
            Path($crate::model::path::PathReport) = "path",
            /// `halfpower pts`.
            Pts($crate::model::pts::PtsReport) = "pts",
            /// `halfpower selftest`.
            Selftest($crate::model::selftest::SelftestReport) = "selftest",
            /// `halfpower doctor`.
            Doctor($crate::model::doctor::DoctorReport) = "doctor",
            /// `halfpower trend`.
            Trend($crate::model::trend::TrendReport) = "trend",
        }
    };
}
pub(crate) use with_documents;

/// A monitor log (or an iostat / perfmon log) as `report` draws it: the intervals as read and
/// the diagnosis `diagnose` gives them.
#[derive(Clone, Debug)]
pub struct MonitorDocument {
    /// The intervals as read.
    pub log: log::Log,
    /// Verdicts, evidence and advice.
    pub diagnosis: diagnosis::Diagnosis,
}

impl Report for MonitorDocument {
    const SCHEMA: Option<u32> = None;

    fn log_warnings(&self) -> Vec<&[Warning]> {
        vec![&self.log.warnings]
    }
}

/// A monitor log writes its diagnosis: its records are JSON lines of their own.
impl Serialize for MonitorDocument {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.diagnosis.serialize(s)
    }
}

/// A monitor log is read as its lines (`input::document`), never as one JSON document.
impl<'de> Deserialize<'de> for MonitorDocument {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "a monitor log is JSON lines without a kind, not a document with one",
        ))
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

impl Kind {
    /// The kind named `name` as written in `kind`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
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
