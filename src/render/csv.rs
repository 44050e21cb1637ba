//! CSV as halfpower writes it, through the `csv` crate (RFC 4180 quoting): the sweep's one row
//! per point and the monitor log's one row per device or system record.

use crate::model::monitor::Record;
use crate::model::sweep::Point;
use crate::units::ByteSize;

/// One CSV line of `fields` (quoted where needed), without the line end.
fn line<I, S>(fields: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<[u8]>,
{
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    // Writing to memory cannot fail; an empty record would be the only other error.
    let _ = w.write_record(fields);
    let bytes = w.into_inner().unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

/// The sweep CSV columns, in order. `sweep --from` needs the first five.
pub const SWEEP_COLUMNS: [&str; 12] = [
    "rw",
    "bs",
    "qd",
    "threads",
    "mb_per_s",
    "iops",
    "p50_us",
    "p99_us",
    "max_us",
    "cpu_us_per_io",
    "steady",
    "seconds",
];

/// The points as CSV: a header line, then one row per point.
pub fn sweep_csv(points: &[Point]) -> String {
    let mut out = line(SWEEP_COLUMNS) + "\n";
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    for p in points {
        let l = p.latency_us.as_ref();
        out += &line([
            p.rw.name().to_string(),
            ByteSize(p.bs_bytes).to_string(),
            p.qd.to_string(),
            p.threads.to_string(),
            format!("{:.3}", p.bytes_per_s / 1e6),
            format!("{:.1}", p.iops),
            opt(l.map(|l| l.p50)),
            opt(l.map(|l| l.p99)),
            opt(l.map(|l| l.max)),
            opt(p.cpu_us_per_io),
            p.steady.map_or(String::new(), |s| s.to_string()),
            p.seconds.map_or(String::new(), |s| format!("{s:.3}")),
        ]);
        out.push('\n');
    }
    out
}

/// Columns of the CSV log: device columns, then the system columns a device row leaves empty.
/// `flags` are joined with `;`.
pub const MONITOR_COLUMNS: &[&str] = &[
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
    "serving",
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
    "host_stalled_ms",
    "probe_late_max_us",
];

/// The monitor log's CSV header line (no newline).
pub fn monitor_header() -> String {
    line(MONITOR_COLUMNS)
}

/// One monitor CSV row (no newline) for `rec`, in [`MONITOR_COLUMNS`] order.
pub fn monitor_row(rec: &Record) -> String {
    let value = serde_json::to_value(rec).unwrap_or_default();
    line(MONITOR_COLUMNS.iter().map(|c| {
        match value.get(*c) {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(";"),
            Some(serde_json::Value::Number(n)) => match n.as_f64() {
                Some(f) if n.is_f64() => format_num(f),
                _ => n.to_string(),
            },
            Some(v) => v.to_string(),
        }
    }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::monitor::DeviceRecord;

    #[test]
    fn every_record_field_has_a_csv_column() {
        for rec in [
            Record::Device(Box::default()),
            Record::System(Box::default()),
        ] {
            let v = serde_json::to_value(&rec).unwrap();
            for key in v.as_object().unwrap().keys() {
                assert!(
                    MONITOR_COLUMNS.contains(&key.as_str()),
                    "{key} has no column"
                );
            }
        }
    }

    #[test]
    fn csv_rows_line_up_with_the_header() {
        let d = DeviceRecord {
            device: "sda".into(),
            r_s: 12.5,
            flags: vec![
                crate::model::monitor::Flag::Busy,
                crate::model::monitor::Flag::Paging,
            ],
            service_ms: Some(0.2),
            ..Default::default()
        };
        let row = monitor_row(&Record::Device(Box::new(d)));
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), MONITOR_COLUMNS.len());
        let col = |n: &str| cells[MONITOR_COLUMNS.iter().position(|c| *c == n).unwrap()];
        assert_eq!(col("device"), "sda");
        assert_eq!(col("r_s"), "12.5");
        assert_eq!(col("flags"), "busy>85%;paging");
        assert_eq!(col("service_ms"), "0.2");
        assert_eq!(col("queue_ms"), "");
        assert_eq!(col("service_source"), "none");
        assert_eq!(col("cpu_user_pct"), "");
        assert_eq!(line(["a,b", "c"]), "\"a,b\",c");
    }
}
