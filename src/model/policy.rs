//! Limits that are not the device's (`results.limits`): a cgroup's I/O cap on a device under a
//! target and a cgroup's CPU quota, each with what it allows, what the measured window did of
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
