//! The trend document (`kind: "trend"`): runs of one workload in time order, each step from a
//! run to the next and the last against the first compared figure by figure
//! (`analysis::compare`, as `compare` does for two).

use super::Header;
use super::compare::FigureComparison;
use serde::{Deserialize, Serialize};

/// One run of the trend, as read.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrendRun {
    /// Its file.
    pub path: String,
    /// When it ended (its document's date, RFC 3339 UTC).
    pub date: String,
    /// Its repetitions (1 for a run without `--repeat`).
    pub repetitions: usize,
}

/// Two runs of the trend compared: `to` against `from` (indices into the report's `runs`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrendStep {
    /// The earlier run.
    pub from: usize,
    /// The later run.
    pub to: usize,
    /// Each figure both runs have: its ratio `to`/`from`, the ratio's 95 % interval, whether
    /// the change is significant.
    pub figures: Vec<FigureComparison>,
}

impl TrendStep {
    /// The comparison of `figure` at this step, if both its runs have the figure.
    pub fn figure(&self, figure: super::run::RunFigure) -> Option<&FigureComparison> {
        self.figures.iter().find(|f| f.figure == figure)
    }
}

/// The document `halfpower trend --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrendReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The runs, oldest first.
    pub runs: Vec<TrendRun>,
    /// The smallest change that counts, as a share (0.02 = 2 %).
    pub threshold: f64,
    /// Each run against the one before it.
    pub steps: Vec<TrendStep>,
    /// The last run against the first: the drift over the whole series.
    pub overall: TrendStep,
    /// Warnings.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for TrendReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.runs.len() < 2).then_some("the trend has fewer than two runs")
    }
}
