//! The monitor's wire records: one per device per interval and one `_system` record per
//! interval, as JSON lines and as CSV rows (one header for both kinds).

use serde::{Deserialize, Serialize};

/// Version of the monitor record layout; bumped on any incompatible change.
pub const MONITOR_SCHEMA_VERSION: u32 = 1;

/// The `device` value of the system-wide record.
pub const SYSTEM_DEVICE: &str = "_system";

/// Where a record's service time comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceSource {
    /// S = U / X: the device serves one request at a time (rotational, or never more than one
    /// in flight), so busy time per completion is the service time.
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
    /// Device class: `hdd`, `ssd`, `nvme`, `virtual`, `loop`, `stacked`, `ram`.
    pub class: String,
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
    /// Serves one request at a time (rotational, or never seen with more than one in flight):
    /// the Utilization Law and the busy/queue rule apply.
    pub serial: bool,
    /// Requests at the driver at the end of the interval (reads + writes, sampled).
    pub inflight: u64,
    /// Mean of the in-flight samples taken during the interval.
    pub inflight_mean: f64,
    /// Service time, ms (see `service_source`); absent when none could be had.
    pub service_ms: Option<f64>,
    /// Queue time = response − service, clamped at 0, ms; absent without a service time.
    pub queue_ms: Option<f64>,
    /// How the service time was obtained.
    pub service_source: ServiceSource,
    /// Requests the tracer matched this interval (with `--trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traced: Option<u64>,
    /// Conditions worth a look: `busy>85%`, `queue>2/disk`, `paging`, `U>N`, `S>R`,
    /// `unstable-queue`.
    pub flags: Vec<String>,
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
    /// `paging` (swap traffic > 5 pages/s), `cpu>90%`, `irq>30%`.
    pub flags: Vec<String>,
}

/// One line of a monitor log.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Record {
    /// A device's interval.
    Device(DeviceRecord),
    /// The system's interval.
    System(SystemRecord),
}

/// Columns of the CSV log: device columns, then the system columns a device row leaves empty.
/// `flags` are joined with `;`.
pub const CSV_COLUMNS: &[&str] = &[
    "schema_version",
    "time",
    "interval_s",
    "device",
    "class",
    "disks",
    "r_s",
    "w_s",
    "d_s",
    "f_s",
    "r_bytes_s",
    "w_bytes_s",
    "d_bytes_s",
    "rrqm_s",
    "wrqm_s",
    "rareq_bytes",
    "wareq_bytes",
    "r_await_ms",
    "w_await_ms",
    "d_await_ms",
    "f_await_ms",
    "response_ms",
    "aqu_sz",
    "util_pct",
    "serial",
    "inflight",
    "inflight_mean",
    "service_ms",
    "queue_ms",
    "service_source",
    "traced",
    "flags",
    "cpus",
    "cpu_user_pct",
    "cpu_system_pct",
    "cpu_iowait_pct",
    "cpu_irq_pct",
    "cpu_softirq_pct",
    "cpu_steal_pct",
    "cpu_idle_pct",
    "interrupts_s",
    "context_switches_s",
    "procs_blocked",
    "swap_in_pages_s",
    "swap_out_pages_s",
    "major_faults_s",
    "direct_scan_pages_s",
    "refaults_s",
    "psi_io_some_pct",
    "psi_io_full_pct",
    "psi_memory_some_pct",
    "psi_memory_full_pct",
];

/// The CSV header line (no newline).
pub fn csv_header() -> String {
    CSV_COLUMNS.join(",")
}

/// One CSV row (no newline) for `rec`, in [`CSV_COLUMNS`] order.
pub fn csv_row(rec: &Record) -> String {
    let value = serde_json::to_value(rec).unwrap_or_default();
    CSV_COLUMNS
        .iter()
        .map(|c| match value.get(*c) {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => csv_field(s),
            Some(serde_json::Value::Array(a)) => csv_field(
                &a.iter()
                    .filter_map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(";"),
            ),
            Some(serde_json::Value::Number(n)) => match n.as_f64() {
                Some(f) if n.is_f64() => format_num(f),
                _ => n.to_string(),
            },
            Some(v) => v.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A number as the CSV log writes it: enough digits to reproduce iostat's two decimals.
fn format_num(f: f64) -> String {
    if f == f.trunc() && f.abs() < 1e15 {
        format!("{f:.0}")
    } else {
        let s = format!("{f:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Quotes a field when it holds a comma, quote or newline.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_record_field_has_a_csv_column() {
        for rec in [
            Record::Device(DeviceRecord::default()),
            Record::System(SystemRecord::default()),
        ] {
            let v = serde_json::to_value(&rec).unwrap();
            for key in v.as_object().unwrap().keys() {
                assert!(CSV_COLUMNS.contains(&key.as_str()), "{key} has no column");
            }
        }
    }

    #[test]
    fn csv_rows_line_up_with_the_header() {
        let d = DeviceRecord {
            device: "sda".into(),
            r_s: 12.5,
            flags: vec!["busy>85%".into(), "paging".into()],
            service_ms: Some(0.2),
            ..Default::default()
        };
        let row = csv_row(&Record::Device(d));
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), CSV_COLUMNS.len());
        let col = |n: &str| cells[CSV_COLUMNS.iter().position(|c| *c == n).unwrap()];
        assert_eq!(col("device"), "sda");
        assert_eq!(col("r_s"), "12.5");
        assert_eq!(col("flags"), "busy>85%;paging");
        assert_eq!(col("service_ms"), "0.2");
        assert_eq!(col("queue_ms"), "");
        assert_eq!(col("service_source"), "none");
        assert_eq!(col("cpu_user_pct"), "");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
