//! The quick-suite document (`kind: "quick"`): CrystalDiskMark's matrix as run records.

use super::run::{Results, TargetInfo};
use super::{Direction, Header};
use crate::oscounters::host::Host;
use crate::plan::Workload;
use serde::{Deserialize, Serialize};

/// One test of the quick suite.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QuickTest {
    /// CrystalDiskMark-style name, e.g. `SEQ1M Q8T1`.
    pub name: String,
    /// `read` or `write`.
    pub direction: Direction,
    /// The workload of this test.
    pub workload: Workload,
    /// What it measured (with `--repeat`, the first repetition).
    pub results: Results,
    /// With `--repeat N`: every repetition and each figure's spread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<super::run::Repeat>,
}

/// The document `halfpower quick --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QuickReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// The scratch file.
    pub target: TargetInfo,
    /// The tests run, in order.
    pub tests: Vec<QuickTest>,
    /// Whether Ctrl-C cut the suite short.
    pub interrupted: bool,
    /// What the suite found (`analysis::quick`), the figures its verdict is worded from
    /// (`render::text::quick::verdict`); absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<QuickFinding>,
    /// The scratch file's path's PAP for reads, and how far SEQ1M Q8T1 reads got towards it
    /// (absent when the path has none, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pap: Option<super::path::PapReached>,
    /// Warnings printed during the suite.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for QuickReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.tests.is_empty()).then_some("the quick suite has no tests")
    }
}

/// How a measured figure stands against the typical one of its device class.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// More than 1.5× the typical figure.
    Above,
    /// Within a factor of 1.5 of it.
    About,
    /// Less than the typical figure ÷ 1.5.
    Below,
}

impl Relation {
    /// The name as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Relation::Above => "above",
            Relation::About => "about",
            Relation::Below => "below",
        }
    }
}

/// The suite's read figures against the typical ones of the device's class.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct VsTypical {
    /// The class's typical sequential read throughput, MB/s.
    pub seq_mb_s: f64,
    /// The class's typical random 4 KiB read IOPS at depth 32.
    pub iops: f64,
    /// The measured sequential reads against `seq_mb_s`.
    pub seq: Relation,
    /// The measured random reads against `iops`.
    pub random: Relation,
}

/// Random reads with one I/O in flight against 32 (the half-power view of the suite).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Qd1Reach {
    /// QD1's IOPS ÷ QD32's.
    #[serde(deserialize_with = "super::null_as_nan")]
    pub share: f64,
    /// Whether `share` is below one half: the device needs parallel requests to deliver what
    /// it can (else latency, not parallelism, bounds it).
    pub needs_parallel: bool,
}

/// What the quick suite found: the figures its verdict is worded from.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct QuickFinding {
    /// Sequential 1 MiB reads at QD8, MB/s (absent when the suite did not run them).
    pub seq_mb_s: Option<f64>,
    /// Random 4 KiB reads with 32 in flight, IOPS (absent when the suite did not run them).
    pub deep_iops: Option<f64>,
    /// Both figures against the class's typical ones; absent when either is or the class has
    /// no typical figures.
    pub typical: Option<VsTypical>,
    /// QD1 random reads against QD32; absent without both.
    pub qd1: Option<Qd1Reach>,
    /// The first test whose series shows a credit bucket (a burst, then the baseline): the
    /// suite ran on credits (absent when none did, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_credits: Option<OnCredits>,
    /// The tests (indices into `tests`) whose window a limit that is not the device's bound
    /// (`results.limits`): their figures are the limit's. `typical` and `qd1` are left out when
    /// they would judge such a figure as the device's. Empty when none; absent in older files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limited: Vec<usize>,
    /// Writes that ran clearly faster than the reads of the same test (a write-behind cache
    /// acknowledging them before the medium holds them): the test where they led most. Absent
    /// when none did, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes_ahead: Option<WritesAhead>,
}

/// A quick test whose writes outran its reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct WritesAhead {
    /// The test's name (`SEQ1M Q8T1`).
    pub test: String,
    /// Its writes' MB/s over its reads'.
    pub ratio: f64,
    /// The writes' MB/s.
    pub write_mb_s: f64,
    /// The reads' MB/s.
    pub read_mb_s: f64,
}

/// A quick test that ran on a credit bucket (its `results.bucket`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct OnCredits {
    /// The test, an index into `tests`.
    pub test: usize,
    /// Its burst, IOPS.
    pub burst_iops: f64,
    /// Its baseline, IOPS.
    pub baseline_iops: f64,
    /// When the burst had ended, s into the test.
    pub ended_at_s: f64,
}
