//! The monitor's terminal output: a system line and an iostat-like table per interval, with
//! service time, queue time and flags.

use super::table::{Table, figures, words};
use crate::model::ServiceMethod;
use crate::model::monitor::{DeviceRecord, Flag, SystemRecord};
use std::fmt::Write;

fn join(flags: &[Flag]) -> String {
    flags.iter().map(|f| f.name()).collect::<Vec<_>>().join(" ")
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |x| format!("{x:.3}"))
}

fn source(s: ServiceMethod) -> &'static str {
    match s {
        ServiceMethod::UtilizationLaw => "util",
        ServiceMethod::Trace => "trace",
        ServiceMethod::InflightEstimate => "est",
        ServiceMethod::None => "-",
    }
}

/// One interval as text: the system line, the header and one row per device.
pub fn interval(system: &SystemRecord, devices: &[DeviceRecord]) -> String {
    let mut out = String::new();
    system_line(&mut out, system);
    device_table(&mut out, devices);
    device_notes(&mut out, devices);
    out
}

/// The host's line: CPU shares, interrupts, swapping and faults, PSI where the kernel has it,
/// and the system's flags, so a slow disk can be told from a busy or paging host.
fn system_line(out: &mut String, system: &SystemRecord) {
    let psi = system
        .psi_io_some_pct
        .map_or(String::new(), |p| format!("  psi io {p:.1}%"));
    let _ = writeln!(
        out,
        "{}  {:.2}s  cpu usr {:.1}% sys {:.1}% iowait {:.1}% irq {:.1}% steal {:.1}%  intr/s {:.0}  swap in/out {:.0}/{:.0} pages/s  majflt/s {:.0}{psi}{}",
        system.time,
        system.interval_s,
        system.cpu_user_pct,
        system.cpu_system_pct,
        system.cpu_iowait_pct,
        system.cpu_irq_pct + system.cpu_softirq_pct,
        system.cpu_steal_pct,
        system.interrupts_s,
        system.swap_in_pages_s,
        system.swap_out_pages_s,
        system.major_faults_s,
        if system.flags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", join(&system.flags))
        }
    );
}

/// The iostat-like table: a header, then one row per device with its service and queue time,
/// where the service time came from, and its flags.
fn device_table(out: &mut String, devices: &[DeviceRecord]) {
    // Each column at least as wide as iostat's, so intervals line up one under another.
    let mut table = Table::new(vec![
        words("Device", 12),
        figures("r/s", 9),
        figures("w/s", 9),
        figures("rMB/s", 8),
        figures("wMB/s", 8),
        figures("rKiB/rq", 8),
        figures("wKiB/rq", 8),
        figures("r_await", 8),
        figures("w_await", 8),
        figures("aqu-sz", 7),
        figures("%util", 6),
        figures("infl", 5),
        figures("S ms", 8),
        figures("Wq ms", 8),
        words("src", 5),
        words("flags", 0),
    ]);
    for d in devices {
        table.row(vec![
            d.device.clone(),
            format!("{:.1}", d.r_s),
            format!("{:.1}", d.w_s),
            format!("{:.2}", d.r_bytes_s / 1e6),
            format!("{:.2}", d.w_bytes_s / 1e6),
            format!("{:.1}", d.rareq_bytes / 1024.0),
            format!("{:.1}", d.wareq_bytes / 1024.0),
            format!("{:.3}", d.r_await_ms),
            format!("{:.3}", d.w_await_ms),
            format!("{:.2}", d.aqu_sz),
            format!("{:.1}", d.util_pct),
            d.inflight.to_string(),
            opt_ms(d.service_ms),
            opt_ms(d.queue_ms),
            source(d.service_source).to_string(),
            join(&d.flags),
        ]);
    }
    out.push_str(&table.render());
}

/// The lines beneath the table: each device's changes (timed from monitor's start), then its
/// headroom where it has one.
fn device_notes(out: &mut String, devices: &[DeviceRecord]) {
    for d in devices {
        for c in &d.changes {
            let _ = write!(out, "change {} (from monitor's start):", d.device);
            crate::render::text::run::change_line(out, c);
        }
    }
    for d in devices {
        if let Some(h) = &d.headroom {
            let _ = writeln!(
                out,
                "headroom {}: {}",
                d.device,
                crate::render::words::interval_headroom(h)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_device_with_service_and_queue() {
        let d = DeviceRecord {
            device: "sda".into(),
            r_s: 5000.0,
            util_pct: 100.0,
            service_ms: Some(0.2),
            queue_ms: Some(0.0),
            service_source: ServiceMethod::UtilizationLaw,
            flags: vec![Flag::Busy],
            ..Default::default()
        };
        let text = interval(&SystemRecord::default(), &[d]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].contains("S ms") && lines[1].contains("Wq ms"));
        assert!(lines[2].starts_with("sda"));
        assert!(
            lines[2].contains("0.200")
                && lines[2].contains("util")
                && lines[2].ends_with("busy>85%")
        );
    }

    /// Response and service times in one precision: S 0.022 beside r_await 0.02 once read
    /// as service longer than response.
    #[test]
    fn every_time_column_has_the_same_decimals() {
        let d = DeviceRecord {
            device: "vda".into(),
            r_s: 900.0,
            r_await_ms: 0.0246,
            service_ms: Some(0.022),
            queue_ms: Some(0.0026),
            ..Default::default()
        };
        let text = interval(&SystemRecord::default(), &[d]);
        let row: Vec<&str> = text.lines().nth(2).unwrap().split_whitespace().collect();
        assert_eq!(
            (row[7], row[12], row[13]),
            ("0.025", "0.022", "0.003"),
            "{text}"
        );
    }

    #[test]
    fn a_placed_interval_gets_a_headroom_line_under_the_table() {
        use crate::model::diagnosis::{CurvePlace, WorkloadHeadroom};
        let place = CurvePlace {
            source: crate::model::profile::CurveSource::Sweep,
            rw: crate::plan::RwMode::Randread,
            bs_bytes: 4096,
            size_matches: true,
            peak_iops: 2000.0,
            peak_inflight: 4,
            knee_iops: Some(1900.0),
            knee_inflight: Some(1),
            to_peak: 4.0,
            to_knee: Some(3.8),
            curve_latency_ms: Some(0.5),
        };
        let d = DeviceRecord {
            device: "loop3".into(),
            r_s: 500.0,
            headroom: Some(WorkloadHeadroom {
                observed_iops: 500.0,
                observed_read_pct: 100.0,
                observed_request_bytes: 4096.0,
                curve: Some(place),
                ..Default::default()
            }),
            ..Default::default()
        };
        let text = interval(
            &SystemRecord::default(),
            &[d.clone(), DeviceRecord::default()],
        );
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with("headroom loop3: this interval: 500 IOPS"),
            "{last}"
        );
        assert!(last.contains("4.0× to the peak") && last.contains("3.8× to the knee"));
        assert_eq!(
            text.lines().filter(|l| l.starts_with("headroom")).count(),
            1
        );
    }
    #[test]
    fn a_step_found_with_an_interval_is_a_line_under_the_table() {
        use crate::model::change::{Change, ChangeEvidence, ChangeFigure};
        let step = Change {
            at_s: 5.0,
            figure: ChangeFigure::Iops,
            before: 4000.0,
            after: 2000.0,
            cause: None,
            evidence: ChangeEvidence::default(),
        };
        let d = DeviceRecord {
            device: "loop3".into(),
            r_s: 2000.0,
            changes: vec![step],
            ..Default::default()
        };
        let text = interval(&SystemRecord::default(), &[d, DeviceRecord::default()]);
        let said: Vec<&str> = text.lines().filter(|l| l.starts_with("change")).collect();
        assert_eq!(said.len(), 1, "{text}");
        assert!(
            said[0].starts_with(
                "change loop3 (from monitor's start):  at 5.0 s: IOPS 4000 → 2000 (-50 %)"
            ),
            "{}",
            said[0]
        );
    }
}
