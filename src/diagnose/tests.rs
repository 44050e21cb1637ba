//! Whole-log diagnoses of small constructed logs in each input format.

use super::*;

fn serial_interval(time: &str, iops: f64, util: f64, response: f64, queue: f64) -> DiskInterval {
    DiskInterval {
        time: time.into(),
        interval_s: Some(60.0),
        device: "sda".into(),
        class: Some("hdd".into()),
        disks: 1,
        r_s: iops,
        w_s: 0.0,
        r_bytes_s: Some(iops * 8192.0),
        w_bytes_s: Some(0.0),
        response_ms: Some(response),
        util_pct: Some(util),
        queue_length: Some(queue),
        serial: Some(true),
        ..Default::default()
    }
}

/// 004 Figures 9–10: a disk lightly loaded most of the time, with a peak where queue time
/// exceeds service time: the log's verdict is overloaded, the evidence names the peak.
#[test]
fn friedman_peak_is_overloaded() {
    let mut log = Log {
        path: "day.csv".into(),
        format: "monitor-csv",
        ..Default::default()
    };
    for i in 0..8 {
        // 20 I/Os/s at 10 % busy: S = 5 ms, R = 5.5 ms.
        log.disks
            .push(serial_interval(&format!("t{i}"), 20.0, 10.0, 5.5, 0.11));
    }
    // Peak: 150 I/Os/s at 90 % busy: S = 6 ms, R = 30 ms, Wq = 24 ms.
    log.disks
        .push(serial_interval("peak", 150.0, 90.0, 30.0, 4.5));
    log.disks
        .push(serial_interval("peak2", 140.0, 88.0, 25.0, 3.5));
    let d = diagnose(&[log], None);
    let dev = &d.devices[0];
    assert_eq!(dev.verdict, Verdict::Overloaded);
    assert_eq!(dev.intervals[0].verdict, Verdict::Healthy);
    assert!((dev.intervals[8].service_ms.unwrap() - 6.0).abs() < 1e-9);
    assert!((dev.intervals[8].queue_ms.unwrap() - 24.0).abs() < 1e-9);
    assert!(
        dev.evidence.iter().any(|e| e.text.starts_with("at peak:")),
        "{:?}",
        dev.evidence
    );
    assert!(dev.advice.iter().any(|a| a.contains("load balancing")));
    let p = dev.projection.as_ref().unwrap();
    assert_eq!(p.len(), 4);
    assert!(p[1].queue_ms.unwrap() > p[0].queue_ms.unwrap());
}

#[test]
fn paging_makes_a_busy_disk_memory_bound() {
    let mut log = Log {
        path: "m.csv".into(),
        format: "monitor-csv",
        ..Default::default()
    };
    log.disks
        .push(serial_interval("t1", 150.0, 90.0, 30.0, 4.5));
    log.system.push(SystemInterval {
        time: "t1".into(),
        paging_s: Some(40.0),
        cpu_pct: Some(20.0),
        interrupt_pct: Some(1.0),
    });
    let d = diagnose(&[log], None);
    assert_eq!(d.devices[0].verdict, Verdict::MemoryBound);
    assert_eq!(d.system.paging_intervals, 1);
    assert!(d.devices[0].advice[0].contains("memory"));
}

#[test]
fn a_profile_sets_the_expectation() {
    let profile = Profile::from_json(
        r#"{"schema_version":1,"kind":"profile","fits":[{"rw":"read","pattern":"random","overhead_ms":1.0,"ms_per_kib":0.0}]}"#,
    )
    .unwrap();
    let mut log = Log {
        path: "m.csv".into(),
        format: "monitor-csv",
        ..Default::default()
    };
    // 50 I/Os/s at 25 % busy: S = 5 ms against 1 ms expected.
    log.disks.push(serial_interval("t1", 50.0, 25.0, 5.2, 0.26));
    let with = diagnose(std::slice::from_ref(&log), Some(&profile));
    assert_eq!(with.devices[0].verdict, Verdict::Slow);
    assert_eq!(with.devices[0].expected_service_ms, Some(1.0));
    let without = diagnose(&[log], None);
    assert_eq!(
        without.devices[0].verdict,
        Verdict::Healthy,
        "5 ms is typical for a disk"
    );
}

#[test]
fn perfmon_log_end_to_end() {
    let log = parse_log("perf.csv", perfmon::tests_sample()).unwrap();
    let d = diagnose(&[log], None);
    assert_eq!(d.devices.len(), 1);
    let dev = &d.devices[0];
    assert_eq!(dev.class, "unknown");
    assert_eq!(dev.service_source, "utilization-law");
    // 80 % busy at 100 transfers/s: S = 8 ms; R = 20 ms; Wq = 12 ms > S.
    assert!((dev.service_ms.unwrap() - 8.0).abs() < 1e-9);
    assert_eq!(dev.verdict, Verdict::Overloaded);
}

#[test]
fn iostat_parallel_device_gets_no_utilization_law() {
    let log = parse_log("io.txt", iostat::tests_sample()).unwrap();
    let d = diagnose(&[log], None);
    let dev = &d.devices[0];
    assert_eq!(dev.class, "loop");
    assert_eq!(dev.service_ms, None);
    assert_eq!(dev.service_source, "none");
}

#[test]
fn not_a_log_is_an_error() {
    let e = parse_log("x.bin", "hello world\n").unwrap_err();
    assert!(e.contains("not a monitor log"), "{e}");
}
