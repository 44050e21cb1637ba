//! The sweep document (`kind: "sweep"`): one record per point, and the analysis per rw mode
//! (plateau, half-power point, knee) that `analysis::sweep` fills.

use super::Header;
use super::run::{Results, TargetInfo};
use crate::oscounters::host::Host;
use crate::plan::{EngineKind, RunPlan, RwMode, Workload};
use serde::{Deserialize, Serialize};

/// The latency percentiles a point carries at its top level, µs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencyBrief {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// One point of a sweep: its coordinates, its headline figures, and (when halfpower ran it)
/// the full workload and results exactly as `run --json` writes them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Point {
    /// rw mode.
    pub rw: RwMode,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Threads per target.
    pub threads: u32,
    /// I/Os per second, all targets.
    pub iops: f64,
    /// Bytes per second, all targets.
    pub bytes_per_s: f64,
    /// Latency of all I/Os, µs (absent in CSV input without it).
    pub latency_us: Option<LatencyBrief>,
    /// Process CPU µs per I/O.
    pub cpu_us_per_io: Option<f64>,
    /// Whether the point ended on the steady-state rule (false: it ran its full time under the
    /// rule); null when unknown: a point run without the rule, or read from a CSV that does not
    /// say (issue 37).
    #[serde(default)]
    pub steady: Option<bool>,
    /// The 95 % interval of its throughput, ± % of it: within the run, or over the repetitions
    /// with `--repeat` (absent in CSV input and older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95_pct: Option<f64>,
    /// Measured seconds; null when unknown (a CSV without the column).
    #[serde(default)]
    pub seconds: Option<f64>,
    /// The engine that ran the point (absent for points read from another tool's CSV).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineKind>,
    /// Every effective option of this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// The run record of this point (with `--repeat`, the first repetition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Results>,
    /// With `--repeat N`: every repetition and each figure's spread; the point's `iops`,
    /// `bytes_per_s` and `ci95_pct` are then the repetitions' mean and t-based interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<super::run::Repeat>,
}

impl Point {
    /// Whether the point reached steady state (with `--repeat`, in every repetition): None
    /// when it ran without the steady-state rule, or the file does not say (a CSV's own
    /// `steady` column is taken when it has one). A point whose series shows a credit bucket
    /// (`results.bucket`: a burst, then the baseline) is not steady, rule or none.
    pub fn steady_state(&self) -> Option<bool> {
        let runs: Vec<&Results> = match &self.repeat {
            Some(r) => r.runs.iter().collect(),
            None => self.results.iter().collect(),
        };
        if runs.iter().any(|r| r.bucket.is_some()) {
            return Some(false);
        }
        let states: Vec<bool> = runs
            .iter()
            .filter_map(|r| r.steady.map(|s| s.reached))
            .collect();
        if states.is_empty() {
            return if runs.is_empty() { self.steady } else { None };
        }
        Some(states.iter().all(|&x| x))
    }

    /// The point of a finished run. A point run under the steady-state rule reports the
    /// figures and the interval of the rule's last look (`results.steady.look`), which the rule
    /// judged; `results.total` keeps the whole measured window's, drain included.
    pub fn of(w: &RunPlan, r: Results) -> Self {
        let steady = r.steady.map(|s| s.reached);
        let look = r.steady.and_then(|s| s.look);
        let l = &r.total.latency_us;
        Point {
            rw: w.rw(),
            bs_bytes: w.bs().max(),
            qd: w.qd(),
            threads: w.threads(),
            iops: look.map_or(r.total.iops, |l| l.iops),
            bytes_per_s: look.map_or(r.total.bytes_per_s, |l| l.bytes_per_s),
            latency_us: Some(LatencyBrief {
                p50: l.p50,
                p99: l.p99,
                max: l.max,
            }),
            cpu_us_per_io: Some(r.cpu.us_per_io),
            steady,
            ci95_pct: look.map_or(r.total.bytes_per_s_ci95.map(|c| c.pct), |l| {
                Some(l.bytes_per_s_ci95.pct)
            }),
            seconds: Some(r.seconds),
            engine: Some(r.engine),
            workload: Some(w.record()),
            results: Some(r),
            repeat: None,
        }
    }
}

/// The document `halfpower sweep --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host (absent when re-analysing a file).
    pub host: Option<Host>,
    /// The targets (empty when re-analysing a file).
    pub targets: Vec<TargetInfo>,
    /// With `--from`: the file analysed.
    pub source: Option<String>,
    /// The steady-state rule, ± percent, when one was used.
    pub steady_pct: Option<f64>,
    /// Whether the rule was SNIA PTS's (`--steady=pts`, docs/pts.md; absent when not).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub steady_pts: bool,
    /// Peak advertised performance (`--pap`, else the path's PAP of the targets for reads, or
    /// for the first rw mode; each analysis has its own), bytes/s.
    pub pap_bytes_per_s: Option<f64>,
    /// Where the PAP comes from: `--pap` or the path (absent without a PAP and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pap_source: Option<super::path::PapSource>,
    /// The points in the order they ran.
    pub points: Vec<Point>,
    /// Per rw mode and thread count.
    pub analysis: Vec<Analysis>,
    /// Whether Ctrl-C cut the sweep short.
    pub interrupted: bool,
    /// Warnings printed during the sweep.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for SweepReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.points.is_empty()).then_some("the sweep has no points")
    }
}

/// A point on the request size × queue depth grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Request size, bytes; None where no size reaches the mark at this depth.
    pub bs_bytes: Option<u64>,
}

/// Per request size: the queue depth where a mark is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthCell {
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight per thread; None where no depth reaches the mark at this size.
    pub qd: Option<u32>,
}

/// How far a conclusion of a sweep's analysis can be trusted: the points it rests on, how many
/// of them never reached steady state, and their widest interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Support {
    /// Points the conclusion rests on.
    pub points: usize,
    /// Of them, points run under the steady-state rule that never reached it.
    pub unsteady: usize,
    /// The widest 95 % interval of their throughput, ± % (absent when none has one, as in CSV
    /// input).
    pub ci95_pct_max: Option<f64>,
    /// Whether, within those intervals, the conclusion could be otherwise (the plateau's 5 %,
    /// the half-power crossing, or the knee's 10 % per doubling cannot be told apart).
    pub uncertain: bool,
}

impl Support {
    /// Whether the conclusion stands as stated: every point steady (or not under the rule) and
    /// the intervals decide it.
    pub fn firm(&self) -> bool {
        self.unsteady == 0 && !self.uncertain
    }
}

fn yes() -> bool {
    true
}

/// The analysis of one rw mode (and thread count) of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The rw mode.
    pub rw: RwMode,
    /// Threads per target of these points.
    pub threads: u32,
    /// The plateau: mean throughput of the points within 5 % of the best, bytes/s.
    pub peak_bytes_per_s: f64,
    /// The best point.
    pub best: Cell,
    /// The points on the plateau.
    pub plateau: Vec<Cell>,
    /// What half-power is half of: `--pap` when given, else the peak, bytes/s.
    pub reference_bytes_per_s: f64,
    /// Peak advertised performance (`--pap`), bytes/s.
    pub pap_bytes_per_s: Option<f64>,
    /// Real over advertised: peak / PAP.
    pub rap_pap: Option<f64>,
    /// Per queue depth, the smallest request size reaching half of the reference.
    pub half_power: Vec<Cell>,
    /// Per request size, the smallest queue depth reaching half of the reference.
    pub half_power_qd: Vec<DepthCell>,
    /// Per queue depth, the request size after which doubling adds < 10 % while p99 rises.
    pub knee: Vec<Cell>,
    /// Per request size, the queue depth after which doubling adds < 10 % while p99 rises.
    pub knee_qd: Vec<DepthCell>,
    /// Whether every point has a p99 (CSV input may not): without it a knee is only where
    /// throughput stops growing, and nothing is said of latency.
    #[serde(default = "yes")]
    pub latency_known: bool,
    /// What the peak (and real/advertised) rests on: the plateau's points.
    #[serde(default)]
    pub peak_support: Support,
    /// What the half-power points rest on: each crossing's point and the one before it.
    #[serde(default)]
    pub half_power_support: Support,
    /// What the knees rest on: each knee's point, the one before it, and every point after.
    #[serde(default)]
    pub knee_support: Support,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_on_credits_is_not_steady() {
        let mut p: Point = serde_json::from_str(
            r#"{"rw": "randread", "bs_bytes": 4096, "qd": 4, "threads": 1, "iops": 929.0,
                "bytes_per_s": 3805184.0, "latency_us": null, "cpu_us_per_io": null}"#,
        )
        .unwrap();
        p.results = Some(Results::default());
        assert_eq!(p.steady_state(), None, "no rule, no bucket");
        p.results.as_mut().unwrap().bucket = Some(super::super::bucket::Bucket::default());
        assert_eq!(p.steady_state(), Some(false));
    }
}
