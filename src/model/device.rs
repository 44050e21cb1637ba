//! The device model as documents record it: what kind of device a disk is, whether it serves one
//! request at a time, how a record's service time was obtained, and what decided the first two.
//! `analysis::device` decides all of them; every command reads them from here.

use serde::{Deserialize, Serialize};

/// What kind of device a disk is, as far as halfpower can tell.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum DeviceClass {
    /// A rotating disk: one arm, one request at a time.
    Hdd,
    /// A SATA/SAS solid-state disk (or a volume that behaves like one).
    Ssd,
    /// An NVMe namespace: many hardware queues.
    Nvme,
    /// A paravirtual or emulated disk of a virtual machine (virtio, Xen, Hyper-V, VMware).
    Virtual,
    /// A loop device over a file.
    Loop,
    /// Memory-backed: zram, brd ramdisks, persistent memory.
    Ram,
    /// Device mapper or md: a device stacked over others.
    Stacked,
    /// A device on the network: NBD, RBD, iSCSI, DRBD.
    Network,
    /// Not known (a log from another machine that does not tell).
    #[default]
    #[serde(alias = "disk")]
    Unknown,
}

impl DeviceClass {
    /// The name as written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Hdd => "hdd",
            DeviceClass::Ssd => "ssd",
            DeviceClass::Nvme => "nvme",
            DeviceClass::Virtual => "virtual",
            DeviceClass::Loop => "loop",
            DeviceClass::Ram => "ram",
            DeviceClass::Stacked => "stacked",
            DeviceClass::Network => "network",
            DeviceClass::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for DeviceClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// How a device serves requests: the question every queueing figure depends on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Serving {
    /// One request at a time (a disk arm): the Utilization Law gives the service time, and
    /// %util measures saturation.
    Serial,
    /// Many at once (flash, NVMe, arrays, virtual and network disks): %util is only "at least
    /// one request in flight" and U/X is busy time per I/O, not a service time.
    Parallel,
    /// Not known.
    #[default]
    Unknown,
}

impl Serving {
    /// The name as written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Serving::Serial => "serial",
            Serving::Parallel => "parallel",
            Serving::Unknown => "unknown",
        }
    }
}

/// Where a record's service time comes from.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceMethod {
    /// S = U / X: valid when the device served one request at a time in the interval (a
    /// serial device, or a queue that never held more than about one request).
    UtilizationLaw,
    /// Measured per request from the kernel's block tracepoints (issue → complete).
    Trace,
    /// Little's law on the sampled in-flight count at the driver, N / X: an estimate.
    InflightEstimate,
    /// No service time: nothing completed, or the device serves many requests at once and no
    /// measurement was available.
    #[default]
    None,
}

impl ServiceMethod {
    /// The name as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ServiceMethod::UtilizationLaw => "utilization-law",
            ServiceMethod::Trace => "trace",
            ServiceMethod::InflightEstimate => "inflight-estimate",
            ServiceMethod::None => "none",
        }
    }
}

impl std::fmt::Display for ServiceMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One fact that decided a device's class and how it serves (`render::words` says it in words).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ClassEvidence {
    /// The monitor recorded class and serving (halfpower's own logs).
    Recorded {
        /// The class.
        class: DeviceClass,
        /// How it serves.
        serving: Serving,
    },
    /// The device's name tells its class.
    Name {
        /// The name.
        name: String,
        /// The class it tells.
        class: DeviceClass,
    },
    /// A busy interval's U/X is shorter than a device serving one request at a time can take,
    /// with several in the system: requests were served in parallel.
    ServedInParallel {
        /// The end of the interval.
        at: String,
        /// Utilization, %.
        utilization_pct: f64,
        /// I/Os per second.
        iops: f64,
        /// U/X, ms per request.
        busy_per_io_ms: f64,
        /// Mean number in the system.
        queue_length: f64,
        /// The shortest time a device serving one request at a time can take, ms.
        serial_min_ms: f64,
    },
    /// Parallel service proven, the class taken as an SSD (or what serves like one).
    TakenAsSsd,
    /// The log recorded how the device serves, nothing tells its class.
    LogRecorded {
        /// How it serves.
        serving: Serving,
    },
    /// A busy interval's U/X on small requests is the time of a seek.
    Seek {
        /// The end of the interval.
        at: String,
        /// U/X, ms per request.
        busy_per_io_ms: f64,
        /// Mean request size, KiB (absent: the log has no byte counters).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_kib: Option<f64>,
        /// Utilization, %.
        utilization_pct: f64,
    },
    /// A seek seen, the class taken as a rotating disk.
    TakenAsRotating,
    /// Neither the name nor a busy interval tells how the device serves.
    Undecided {
        /// The name.
        name: String,
        /// Utilization from which an interval can tell, %.
        busy_pct: f64,
    },
}
