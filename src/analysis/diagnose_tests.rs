//! Whole-log diagnoses of small constructed logs in each input format.

use super::*;
use crate::model::diagnosis::ProfileMatch;
use crate::model::log::LogFormat;
use crate::model::profile::{Fit, Pattern};
use crate::model::{Direction, Serving};

fn serial_interval(time: &str, iops: f64, util: f64, response: f64, queue: f64) -> DiskInterval {
    DiskInterval {
        time: time.into(),
        interval_s: Some(60.0),
        device: "sda".into(),
        class: Some(DeviceClass::Hdd),
        disks: 1,
        r_s: iops,
        w_s: 0.0,
        r_bytes_s: Some(iops * 8192.0),
        w_bytes_s: Some(0.0),
        response_ms: Some(response),
        util_pct: Some(util),
        queue_length: Some(queue),
        serving: Serving::Serial,
        ..Default::default()
    }
}

/// 004 Figures 9–10: a disk lightly loaded most of the time, with a peak where queue time
/// exceeds service time: the log's verdict is overloaded, the evidence names the peak.
#[test]
fn friedman_peak_is_overloaded() {
    let mut log = Log {
        path: "day.csv".into(),
        format: LogFormat::MonitorCsv,
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
        dev.evidence.iter().any(|e| e.at.as_deref() == Some("peak")),
        "{:?}",
        dev.evidence
    );
    // Its advice is the overloaded verdict's, load balancing first (render::words's test).
    let p = dev.projection.as_ref().unwrap();
    assert_eq!(p.len(), 4);
    assert!(p[1].queue_ms.unwrap() > p[0].queue_ms.unwrap());
}

#[test]
fn paging_makes_a_busy_disk_memory_bound() {
    let mut log = Log {
        path: "m.csv".into(),
        format: LogFormat::MonitorCsv,
        ..Default::default()
    };
    log.disks
        .push(serial_interval("t1", 150.0, 90.0, 30.0, 4.5));
    log.system.push(SystemInterval {
        host: None,
        time: "t1".into(),
        paging_s: Some(40.0),
        cpu_pct: Some(20.0),
        interrupt_pct: Some(1.0),
    });
    let d = diagnose(&[log], None);
    assert_eq!(d.devices[0].verdict, Verdict::MemoryBound);
    assert_eq!(d.system.paging_intervals, 1);
    // Its advice is the memory-bound verdict's, memory first (render::words's test).
    assert!(
        d.devices[0].evidence.iter().any(|e| e.finding
            == Finding::HardPaging {
                paging_s: 40.0,
                limit_s: rules::PAGING_PER_S
            }),
        "{:?}",
        d.devices[0].evidence
    );
}

#[test]
fn a_profile_sets_the_expectation() {
    let profile = Profile {
        schema_version: 1,
        kind: Kind::Profile,
        target: None,
        target_info: None,
        curves: Vec::new(),
        fits: vec![Fit {
            rw: Direction::Read,
            pattern: Pattern::Random,
            overhead_ms: 1.0,
            ms_per_kib: 0.0,
            r2: None,
            transfer_mb_per_s: None,
            projected_32k_ms: None,
            fitted_bs_bytes: vec![],
            off_line_bs_bytes: vec![],
            negative_slope: None,
        }],
    };
    let mut log = Log {
        path: "m.csv".into(),
        format: LogFormat::MonitorCsv,
        ..Default::default()
    };
    // 50 I/Os/s at 25 % busy: S = 5 ms against 1 ms expected.
    log.disks.push(serial_interval("t1", 50.0, 25.0, 5.2, 0.26));
    let for_sda = profile_for(&profile, None, std::slice::from_ref(&log)).unwrap();
    assert_eq!(for_sda.how, ProfileMatch::OnlyDevice);
    let with = diagnose(std::slice::from_ref(&log), Some(&for_sda));
    assert_eq!(with.devices[0].verdict, Verdict::Slow);
    assert_eq!(with.devices[0].expected_service_ms, Some(1.0));
    let without = diagnose(&[log], None);
    assert_eq!(
        without.devices[0].verdict,
        Verdict::Healthy,
        "5 ms is typical for a disk"
    );
}

fn iostat_log(disks: Vec<DiskInterval>) -> Log {
    Log {
        path: "iostat.txt".into(),
        format: LogFormat::Iostat,
        disks,
        ..Default::default()
    }
}

/// Issue 12: an SSD at QD32 (90k IOPS, 0.35 ms, aqu-sz 31.5, %util 99.9) is healthy and gets
/// no U/X service time (0.011 ms would be a lie) and no M/M/1 projection.
#[test]
fn an_ssd_at_qd32_is_not_overloaded() {
    let ivs = (0..5)
        .map(|i| DiskInterval::reads("sda", &format!("t{i}"), 90_000.0, 4.0, 99.9, 31.5, 0.35))
        .collect();
    let d = diagnose(&[iostat_log(ivs)], None);
    let dev = &d.devices[0];
    assert_eq!(dev.verdict, Verdict::Healthy, "{:?}", dev.evidence);
    assert_eq!(dev.serving, Serving::Parallel);
    assert_eq!(dev.class, DeviceClass::Ssd);
    assert_eq!(dev.service_ms, None);
    assert_eq!(dev.queue_ms, None);
    assert_eq!(dev.service_source, ServiceMethod::None);
    assert!(dev.projection.is_none());
}

/// Issue 12: an HDD that really is overloaded (180 IOPS, 120 ms, aqu-sz 21.6, util 99.5) is
/// still called overloaded, with S ≈ 5.5 ms from the Utilization Law.
#[test]
fn an_overloaded_hdd_is_still_overloaded() {
    let ivs = (0..5)
        .map(|i| DiskInterval::reads("sdb", &format!("t{i}"), 180.0, 8.0, 99.5, 21.6, 120.0))
        .collect();
    let d = diagnose(&[iostat_log(ivs)], None);
    let dev = &d.devices[0];
    assert_eq!(dev.verdict, Verdict::Overloaded);
    assert_eq!(
        (dev.class, dev.serving),
        (DeviceClass::Hdd, Serving::Serial)
    );
    assert_eq!(dev.service_source, ServiceMethod::UtilizationLaw);
    assert!(
        (dev.service_ms.unwrap() - 5.528).abs() < 0.01,
        "{:?}",
        dev.service_ms
    );
    assert!(dev.projection.is_some());
}

/// A quiet disk is healthy (or idle), whatever it is.
#[test]
fn a_quiet_disk_is_healthy() {
    let ivs = (0..5)
        .map(|i| DiskInterval::reads("sdc", &format!("t{i}"), 12.0, 8.0, 2.0, 0.024, 2.0))
        .collect();
    let d = diagnose(&[iostat_log(ivs)], None);
    assert_eq!(d.devices[0].verdict, Verdict::Healthy);
}

/// A parallel device whose response time grows in step with its queue, ten times the
/// expectation, is overloaded, and the evidence names the rate it holds.
#[test]
fn a_saturated_parallel_device_is_overloaded() {
    // 50 000 IOPS whatever the depth: R = N / 50 000 s.
    let ivs = [8.0, 16.0, 32.0, 64.0, 128.0]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            DiskInterval::reads(
                "nvme0n1",
                &format!("t{i}"),
                50_000.0,
                4.0,
                100.0,
                *n,
                n / 50.0,
            )
        })
        .collect();
    let d = diagnose(&[iostat_log(ivs)], None);
    let dev = &d.devices[0];
    assert_eq!(dev.verdict, Verdict::Overloaded, "{:?}", dev.evidence);
    assert!(
        dev.evidence.iter().any(|e| matches!(
            e.finding,
            Finding::ResponseGrowth { completions_per_s, .. } if completions_per_s.round() == 50000.0
        )),
        "{:?}",
        dev.evidence
    );
}

/// A parallel device that held one request at a time gets U/X: then it is the service time.
#[test]
fn one_request_at_a_time_gives_a_service_time_on_any_device() {
    let ivs = vec![DiskInterval::reads(
        "loop0", "t", 9794.0, 4.0, 74.8, 0.72, 0.07,
    )];
    let d = diagnose(&[iostat_log(ivs)], None);
    let dev = &d.devices[0];
    assert_eq!(dev.class, DeviceClass::Loop);
    assert_eq!(dev.service_source, ServiceMethod::UtilizationLaw);
    assert!((dev.service_ms.unwrap() - 0.0764).abs() < 0.001);
}
