//! The quick-suite document (`kind: "quick"`): CrystalDiskMark's matrix as run records.

use super::run::{Results, TargetInfo};
use super::{Direction, Header};
use crate::oscounters::host::Host;
use crate::spec::Workload;
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
    /// What the suite found, in words (`analysis::quick`); absent in older files.
    #[serde(default)]
    pub verdict: String,
    /// Warnings printed during the suite.
    pub warnings: Vec<String>,
}
