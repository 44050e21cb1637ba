//! The comparison document (`kind: "compare"`): per figure, the ratio of run B to run A with
//! its 95 % interval and whether the difference is significant (`analysis::compare`).

use super::Header;
use serde::{Deserialize, Serialize};

/// Where a ratio's interval comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareMethod {
    /// Welch, from the repetitions of both runs (`--repeat`).
    Repetitions,
    /// One side repeated, the other a single run: the repeated side's run-to-run spread for
    /// both (the single run's within-run interval when wider); a single run within the range of
    /// the other side's runs is never significant.
    RepeatedSide,
    /// The delta method, from each single run's within-run interval.
    WithinRun,
    /// No interval: a figure without one on some side (CPU µs/IO of single runs).
    None,
}

/// One figure compared.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FigureComparison {
    /// The figure (written as its path in a run's `results`).
    pub figure: super::run::RunFigure,
    /// Its value in A (the mean of A's repetitions).
    pub a: f64,
    /// Its value in B.
    pub b: f64,
    /// B / A.
    pub ratio: f64,
    /// The 95 % interval of the ratio (absent without one).
    pub ci95_low: Option<f64>,
    /// Its upper end.
    pub ci95_high: Option<f64>,
    /// Whether the interval excludes 1, the change exceeds the threshold, and (one side
    /// repeated) the single run lies outside the range of the other side's runs.
    pub significant: bool,
    /// Where the interval comes from.
    pub method: CompareMethod,
}

/// The document `halfpower compare --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CompareReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The file of run A.
    pub a: String,
    /// The file of run B.
    pub b: String,
    /// The smallest change that counts, as a share (0.02 = 2 %).
    pub threshold: f64,
    /// Each figure both runs have.
    pub figures: Vec<FigureComparison>,
}
