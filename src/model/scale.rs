//! The scale document (`kind: "scale"`): each target alone, then the first 1..N targets together
//! (or striped into one), each step a run record, and where the total stops growing and why
//! (`analysis::scale`).

use super::Header;
use super::run::{Results, TargetInfo};
use crate::oscounters::diskstats::DeviceDelta;
use crate::oscounters::host::Host;
use crate::oscounters::throttle::IoLimit;
use crate::plan::Workload;
use serde::{Deserialize, Serialize};

/// What a scaling experiment adds step by step.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Across {
    /// Targets of one process, side by side or striped.
    #[default]
    Targets,
    /// Ranks of an MPI job (`--ranks`), each with all its own targets (with
    /// `--targets-per-rank`, its share of the job's list).
    Ranks,
}

/// One target (or with `--ranks`, one rank) run alone.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Alone {
    /// The target's path.
    pub target: String,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// I/Os per second.
    pub iops: f64,
    /// The run record.
    pub results: Results,
}

/// One target's share of a step.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PerTarget {
    /// The target's path.
    pub target: String,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// I/Os per second.
    pub iops: f64,
    /// The step's counters of the devices under this target: its disk and every device
    /// beneath it (a loop device's backing disk, a dm device's members).
    #[serde(default)]
    pub devices: Vec<DeviceDelta>,
}

/// The first `targets` targets run together (or, with `--stripe`, striped into one).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Step {
    /// How many targets: the first n, in the order given.
    pub targets: usize,
    /// Worker threads the step ran, each with `workload.qd` I/Os in flight: `--threads` per
    /// target, or `--threads` × n for a stripe over n, so every step keeps the depth of its
    /// targets alone. 0 in older files.
    #[serde(default)]
    pub threads: u32,
    /// Bytes per second, all of them together.
    pub bytes_per_s: f64,
    /// I/Os per second, all together.
    pub iops: f64,
    /// Each target's share (for a stripe: the bytes that went to each member).
    pub per_target: Vec<PerTarget>,
    /// Counters of every device under the targets and beneath them, over the step.
    pub devices: Vec<DeviceDelta>,
    /// The machine's CPUs busy over the step, % of all.
    pub cpu_busy_pct: f64,
    /// The run record.
    pub results: Results,
}

/// What a shared component is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComponentKind {
    /// A block device beneath more than one target (a disk under partitions, the backing
    /// device of loop devices, a member of dm/md devices).
    Device,
    /// The host's processors, when they were busy at the limit.
    Cpu,
}

/// A component more than one target depends on, measured at the limit.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Shared {
    /// Its name: a kernel device name, or `cpu`.
    pub component: String,
    /// Device or CPU.
    pub kind: ComponentKind,
    /// The targets above it.
    pub targets: Vec<String>,
    /// Its throughput at the limit step, bytes/s (devices).
    pub bytes_per_s: Option<f64>,
    /// Its busy share at the limit step, % (a device's %util, or the CPUs' busy share).
    pub util_pct: Option<f64>,
    /// The I/O limits this process's cgroup sets on it (blkio throttling, io.max), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<IoLimit>,
    /// How close it ran to that limit at the limit step: the highest of its read and write
    /// bytes/s and IOPS over their limits, % (throttled bios wait above the device, so a
    /// throttled device's %util does not show it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle_pct: Option<f64>,
}

/// What holds the total where it stops growing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bottleneck {
    /// Nothing: no step is judged below 90 % of the sum of its targets alone.
    #[default]
    None,
    /// The I/Os in flight: the step kept fewer in flight than its targets did alone, at their
    /// response time (Little's law: IOPS = in flight ÷ response time explains the total).
    Depth,
    /// Something the targets share: the response time rose. `shared` names it first when
    /// halfpower can see it.
    Shared,
    /// The host's processors (busy ≥ 90 % at the limit), the response time having risen.
    Cpu,
}

/// What is unusual about a step's efficiency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepFlag {
    /// Above 100 % beyond its interval: the targets together cannot deliver more than the sum
    /// of each alone, so the runs differ more than their intervals say (noise between runs, a
    /// cache warmed by an earlier step).
    AboveSum,
    /// Above 100 % by its figure but not beyond its interval: impossible for the targets
    /// themselves, so the figure is noise (the step's or the runs alone's) that its interval
    /// allows; the step says nothing about scaling beyond that interval.
    AboveSumNoise,
    /// Below 90 % while a later step is clearly not: a dip, not the limit.
    Dip,
    /// Below 90 % by its figure but not beyond its interval, and no later step is clearly
    /// below: it cannot be judged.
    Uncertain,
}

/// One step as the analysis judged it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StepReading {
    /// How many targets: the first n.
    pub targets: usize,
    /// Its throughput ÷ the sum of the first n targets alone.
    pub efficiency: f64,
    /// The 95 % interval of `efficiency` (the step's and the runs alone's intervals combined;
    /// step 1 is the first target's own run: no interval).
    pub efficiency_low: f64,
    /// Its upper end.
    pub efficiency_high: f64,
    /// I/Os in flight on average, by Little's law: IOPS × mean response time.
    pub inflight: Option<f64>,
    /// The same, summed over the first n targets alone.
    pub inflight_alone: Option<f64>,
    /// Mean response time of the step's I/Os, µs.
    pub response_us: Option<f64>,
    /// Mean response time of the first n targets alone, µs (weighted by their IOPS).
    pub response_alone_us: Option<f64>,
    /// What is unusual about it, if anything.
    pub flag: Option<StepFlag>,
}

/// Where the total stops growing.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ScaleAnalysis {
    /// The sum of every target alone, bytes/s: what perfect scaling would reach.
    pub sum_alone_bytes_per_s: f64,
    /// Per step n: the sum of the first n targets alone, bytes/s.
    pub sum_alone_first_bytes_per_s: Vec<f64>,
    /// Per step n: its throughput ÷ the sum of the first n targets alone.
    pub efficiency: Vec<f64>,
    /// Each step judged: its efficiency with its interval, Little's law figures and a flag.
    #[serde(default)]
    pub steps: Vec<StepReading>,
    /// The first n below 90 % of the sum of those n alone from which no step is clearly at or
    /// above 90 % and some step is clearly below (beyond its interval); None if none.
    pub saturates_at: Option<usize>,
    /// The steps before `saturates_at` (every step without it) whose interval reaches below
    /// 90 %, a dip's aside: whether the targets scale linearly up to them cannot be judged,
    /// whatever their figures (empty in older files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudged: Vec<usize>,
    /// What holds the total from `saturates_at` on (`none` without saturation).
    #[serde(default)]
    pub limit: Bottleneck,
    /// The plateau from `saturates_at` on: the mean throughput of those steps, bytes/s.
    pub limit_bytes_per_s: Option<f64>,
    /// Components under more than one target (and the CPU when busy ≥ 90 %), at the limit.
    pub shared: Vec<Shared>,
    /// With a shared limit no device shows: the provider whose network volumes every target
    /// is, whose per-instance storage bandwidth is then what they likely share (the OS cannot
    /// see it); absent otherwise and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<super::cloud::CloudDisk>,
}

/// The document `halfpower scale --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScaleReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// The workload each target ran (per target; with `--stripe`, per stripe set).
    pub workload: Workload,
    /// With `--stripe`: the chunk size, bytes.
    pub stripe_bytes: Option<u64>,
    /// What each step adds: a target, or with `--ranks` a rank of the job.
    #[serde(default)]
    pub across: Across,
    /// With `--ranks --targets-per-rank N`: N, the job's list dealt out N per rank (rank r on
    /// targets r·N … r·N+N−1), so step k runs k ranks on k·N targets; absent otherwise (each
    /// rank on its whole list) and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub targets_per_rank: Option<u32>,
    /// The targets, in order.
    pub targets: Vec<TargetInfo>,
    /// Each target alone.
    pub alone: Vec<Alone>,
    /// Steps 1..N.
    pub steps: Vec<Step>,
    /// Where it stops scaling and why.
    pub analysis: ScaleAnalysis,
    /// The PAP of the targets' path all at once (each an equal share), and how far the total
    /// got towards it (absent when the path has none, and in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pap: Option<super::path::PapReached>,
    /// Whether Ctrl-C cut it short.
    pub interrupted: bool,
    /// Warnings printed on the way.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for ScaleReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.steps.len() < 2).then_some("the scale has fewer than two steps")
    }
}
