//! Limits that are not the device's (`results.limits`): a cgroup's I/O cap on a device under a
//! target, a cgroup's CPU quota and a limit the user gave (`--limit`: what a provider
//! provisions, which the OS cannot see), each with what it allows, what the measured window did of
//! the same figure, and whether it set the run's figures (analysis::policy's rule).

pub use crate::oscounters::cgroup::{CgroupVersion, CpuQuota};
pub use crate::oscounters::throttle::{IoCap, IoField};
use serde::{Deserialize, Serialize};

/// A limit set by policy, not by the hardware.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PolicyLimit {
    /// A cgroup's cap on one figure of a device under a target (`blkio.throttle.*`, `io.max`).
    CgroupIo {
        /// The kernel's name of the device (`loop3`, `nvme0n1`).
        device: String,
        /// The cap.
        cap: IoCap,
    },
    /// A cgroup's CPU quota on this process (`cpu.max`, `cpu.cfs_quota_us`).
    CpuQuota {
        /// The quota.
        quota: CpuQuota,
    },
    /// Fewer CPUs than the machine has for this process to run on: its cpuset group's, or
    /// its affinity (`taskset`).
    Cpus {
        /// The CPUs it may run on.
        cpus: u32,
        /// The machine's online CPUs.
        online: u32,
        /// The cpuset file that narrows them (absent: the affinity alone does).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
    /// A limit the user gave (`--limit`) on one target.
    Given {
        /// The target, as the run names it.
        target: String,
        /// The figure it holds.
        field: GivenField,
        /// What it allows: I/Os or bytes per second.
        value: f64,
    },
}

/// A limit the user gave (`--limit SPEC`): what a provider provisions for a volume (its IOPS,
/// its MB/s), which the OS cannot see.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GivenLimit {
    /// The target it is for, as given (`target=`); None: each target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// I/Os per second, reads and writes together (`iops=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    /// Bytes per second, both directions together (`mbps=`, MB/s = 10^6 bytes/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_s: Option<f64>,
}

impl GivenLimit {
    /// Whether it is for the target named `path` (every target when it names none; a command
    /// names its `target=` as it names the target, `commands::limits`).
    pub fn is_for(&self, path: &str) -> bool {
        self.target.as_deref().is_none_or(|t| t == path)
    }

    /// Its figures, one by one.
    pub fn fields(&self) -> Vec<(GivenField, f64)> {
        [
            self.iops.map(|v| (GivenField::Iops, v)),
            self.bytes_per_s.map(|v| (GivenField::BytesPerS, v)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// The figure a given limit holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GivenField {
    /// I/Os per second, reads and writes together.
    Iops,
    /// Bytes per second, both directions together.
    BytesPerS,
}

/// Where a reach's measured figure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReachFrom {
    /// The kernel's counters of the capped device (/proc/diskstats) over the window.
    DeviceCounters,
    /// halfpower's own counts, where the device has no counters.
    Run,
    /// This process's CPU time (getrusage) over the window.
    CpuTime,
}

/// One limit and how close the measured window came to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitReach {
    /// The limit.
    pub limit: PolicyLimit,
    /// What it allows: I/Os or bytes per second for a cap, CPUs for a quota.
    pub allowed: f64,
    /// The same figure over the measured window.
    pub measured: f64,
    /// Where `measured` comes from.
    pub from: ReachFrom,
    /// measured ÷ allowed.
    pub used: f64,
    /// A CPU quota: the share of its enforcement periods in which the kernel held the group
    /// off the CPU (`cpu.stat`), absent where the counters were not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttled_share: Option<f64>,
    /// Whether this limit set the window's figures rather than the device.
    pub binds: bool,
}
