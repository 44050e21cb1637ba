//! The monitor's records: one per device per interval and one `_system` record per interval,
//! written as JSON lines or CSV rows (`render::csv`, one header for both kinds).

use super::device::{DeviceClass, ServiceMethod, Serving};
use serde::{Deserialize, Serialize};

/// Version of the monitor record layout; bumped on any incompatible change. Version 2 replaced
/// `serial` (a bool) with `serving` and gave `class` its fixed set of names.
pub const MONITOR_SCHEMA_VERSION: u32 = 2;

/// The `device` value of the system-wide record.
pub const SYSTEM_DEVICE: &str = "_system";

/// A condition worth a look, raised on a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Flag {
    /// A serial device busy above 85 % (003).
    #[serde(rename = "busy>85%")]
    Busy,
    /// A serial device with more than 2 requests in the system per member disk (003).
    #[serde(rename = "queue>2/disk")]
    Queue,
    /// Hard paging above 5 pages/s while the device worked (003).
    #[serde(rename = "paging")]
    Paging,
    /// Busy share above the mean number in the system: counters that contradict Little's law.
    #[serde(rename = "U>N")]
    BusyBeyondPopulation,
    /// Service time above the response time that contains it.
    #[serde(rename = "S>R")]
    ServiceBeyondResponse,
    /// In-flight count at the end differs from the start by more than the mean queue.
    #[serde(rename = "unstable-queue")]
    UnstableQueue,
    /// Processors busy above 90 % (system record).
    #[serde(rename = "cpu>90%")]
    Cpu,
    /// Interrupt time above 30 % (system record).
    #[serde(rename = "irq>30%")]
    Irq,
}

impl Flag {
    /// The name as written in records and tables.
    pub fn name(self) -> &'static str {
        match self {
            Flag::Busy => "busy>85%",
            Flag::Queue => "queue>2/disk",
            Flag::Paging => "paging",
            Flag::BusyBeyondPopulation => "U>N",
            Flag::ServiceBeyondResponse => "S>R",
            Flag::UnstableQueue => "unstable-queue",
            Flag::Cpu => "cpu>90%",
            Flag::Irq => "irq>30%",
        }
    }
}

impl std::fmt::Display for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// What one device did over one interval (iostat -x terms plus the decomposition).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceRecord {
    /// Layout version ([`MONITOR_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// End of the interval, RFC 3339 UTC with milliseconds.
    pub time: String,
    /// Interval length, s (monotonic clock).
    pub interval_s: f64,
    /// Kernel device name as in /proc/diskstats.
    pub device: String,
    /// Device class (`analysis::device`).
    pub class: DeviceClass,
    /// Member disks behind it (md/dm slaves; 1 for a plain disk).
    pub disks: u32,
    /// Reads completed per second.
    pub r_s: f64,
    /// Writes completed per second.
    pub w_s: f64,
    /// Discards completed per second.
    pub d_s: f64,
    /// Flushes completed per second.
    pub f_s: f64,
    /// Bytes read per second.
    pub r_bytes_s: f64,
    /// Bytes written per second.
    pub w_bytes_s: f64,
    /// Bytes discarded per second.
    pub d_bytes_s: f64,
    /// Read requests merged per second.
    pub rrqm_s: f64,
    /// Write requests merged per second.
    pub wrqm_s: f64,
    /// Mean read request size, bytes.
    pub rareq_bytes: f64,
    /// Mean write request size, bytes.
    pub wareq_bytes: f64,
    /// Mean time of a read from its start of accounting to completion, ms (iostat r_await).
    pub r_await_ms: f64,
    /// Same for writes, ms.
    pub w_await_ms: f64,
    /// Same for discards, ms.
    pub d_await_ms: f64,
    /// Same for flushes, ms.
    pub f_await_ms: f64,
    /// Response time: mean over reads, writes and discards, ms.
    pub response_ms: f64,
    /// Mean number of requests in the system (OS queue + device), iostat aqu-sz.
    pub aqu_sz: f64,
    /// Share of the interval with at least one request in flight, %.
    pub util_pct: f64,
    /// How the device serves requests: `serial` (the Utilization Law and the busy/queue rule
    /// apply), `parallel` or `unknown`.
    pub serving: Serving,
    /// Requests at the driver at the end of the interval (reads + writes, sampled).
    pub inflight: u64,
    /// Mean of the in-flight samples taken during the interval.
    pub inflight_mean: f64,
    /// Service time, ms (see `service_source`); absent when none could be had.
    pub service_ms: Option<f64>,
    /// Queue time = response − service, clamped at 0, ms; absent without a service time.
    pub queue_ms: Option<f64>,
    /// How the service time was obtained.
    pub service_source: ServiceMethod,
    /// Requests the tracer matched this interval (with `--trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced: Option<u64>,
    /// Where this interval lies on the device's measured curve of its mix (with `monitor
    /// --profile`): its headroom to the knee and the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<super::diagnosis::WorkloadHeadroom>,
    /// Steps in this device's I/Os per second (or response time) that `monitor` first found at
    /// the end of this interval, looking over its recent intervals (`analysis::watch`): each
    /// said once, `at_s` from the start of monitor's first interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<super::change::Change>,
    /// Conditions worth a look: `busy>85%`, `queue>2/disk` (serial devices only), `paging`,
    /// `U>N`, `S>R`, `unstable-queue`.
    pub flags: Vec<Flag>,
}

/// The system-wide figures of one interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemRecord {
    /// Layout version.
    pub schema_version: u32,
    /// End of the interval, RFC 3339 UTC.
    pub time: String,
    /// Interval length, s.
    pub interval_s: f64,
    /// Always [`SYSTEM_DEVICE`].
    pub device: String,
    /// Online CPUs.
    pub cpus: u32,
    /// User time (nice included), % of all CPUs.
    pub cpu_user_pct: f64,
    /// Kernel time outside interrupts, %.
    pub cpu_system_pct: f64,
    /// Idle while waiting for I/O, %.
    pub cpu_iowait_pct: f64,
    /// Hard-interrupt time, %.
    pub cpu_irq_pct: f64,
    /// Soft-interrupt time, %.
    pub cpu_softirq_pct: f64,
    /// Stolen by the hypervisor, %.
    pub cpu_steal_pct: f64,
    /// Idle, %.
    pub cpu_idle_pct: f64,
    /// Interrupts per second.
    pub interrupts_s: f64,
    /// Context switches per second.
    pub context_switches_s: f64,
    /// Tasks blocked on I/O at the end of the interval.
    pub procs_blocked: u64,
    /// Pages swapped in per second.
    pub swap_in_pages_s: f64,
    /// Pages swapped out per second.
    pub swap_out_pages_s: f64,
    /// Major page faults per second.
    pub major_faults_s: f64,
    /// Pages scanned by direct reclaim per second.
    pub direct_scan_pages_s: f64,
    /// Working-set refaults per second.
    pub refaults_s: f64,
    /// PSI io `some`: share of time at least one task stalled on I/O, %.
    pub psi_io_some_pct: Option<f64>,
    /// PSI io `full`, %.
    pub psi_io_full_pct: Option<f64>,
    /// PSI memory `some`, %.
    pub psi_memory_some_pct: Option<f64>,
    /// PSI memory `full`, %.
    pub psi_memory_full_pct: Option<f64>,
    /// PSI cpu `some`: share of time at least one runnable task waited for a CPU, % (absent
    /// in older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub psi_cpu_some_pct: Option<f64>,
    /// The host probe's stalled time in the interval, ms (docs/figures.md, "The host"; absent
    /// in older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_stalled_ms: Option<f64>,
    /// The probe's latest wake-up in the interval, µs late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_late_max_us: Option<f64>,
    /// `paging` (swap traffic > 5 pages/s), `cpu>90%`, `irq>30%`.
    pub flags: Vec<Flag>,
}

/// One line of a monitor log.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Record {
    /// A device's interval (boxed, as is the system's: each is hundreds of bytes).
    Device(Box<DeviceRecord>),
    /// The system's interval.
    System(Box<SystemRecord>),
}

impl From<&SystemRecord> for super::log::SystemInterval {
    /// The system interval a diagnosis reads from a system record (as `input::monitor_log`
    /// reads the same record from a log).
    fn from(s: &SystemRecord) -> Self {
        super::log::SystemInterval {
            host: None,
            time: s.time.clone(),
            paging_s: Some(s.swap_in_pages_s + s.swap_out_pages_s),
            cpu_pct: Some(100.0 - s.cpu_idle_pct - s.cpu_iowait_pct),
            interrupt_pct: Some(s.cpu_irq_pct + s.cpu_softirq_pct),
        }
    }
}

impl From<&DeviceRecord> for super::log::DiskInterval {
    /// The interval a diagnosis reads from a device record (what `input::monitor_log` reads
    /// from the same record written to a log).
    fn from(d: &DeviceRecord) -> Self {
        super::log::DiskInterval {
            time: d.time.clone(),
            interval_s: Some(d.interval_s),
            device: d.device.clone(),
            class: Some(d.class),
            disks: d.disks.max(1),
            r_s: d.r_s,
            w_s: d.w_s,
            d_s: d.d_s,
            r_bytes_s: Some(d.r_bytes_s),
            w_bytes_s: Some(d.w_bytes_s),
            response_ms: Some(d.response_ms),
            util_pct: Some(d.util_pct),
            queue_length: Some(d.aqu_sz),
            service_ms: d.service_ms,
            service_source: Some(d.service_source),
            split_io_s: None,
            serving: d.serving,
        }
    }
}
