//! The sentences of each verdict, finding and class fact, once: the one place their words are
//! checked.

use super::*;
use crate::model::Serving;
use crate::model::diagnosis::Figure;

fn expected(source: ExpectationSource) -> ExpectedService {
    ExpectedService {
        ms: 0.31,
        factor: 2.0,
        source,
        class: DeviceClass::Ssd,
        request_kib: 4.0,
    }
}

#[test]
fn every_actionable_verdict_has_advice_and_a_source() {
    for v in [
        Verdict::Overloaded,
        Verdict::Slow,
        Verdict::MemoryBound,
        Verdict::CpuBound,
        Verdict::Invalid,
    ] {
        assert!(!advice(v).is_empty());
        assert!(rule(v).contains("00"));
    }
    assert!(advice(Verdict::Healthy).is_empty());
    assert!(advice(Verdict::Idle).is_empty());
}

/// 004 Table 6 for a queue: load balancing first; for paging, memory first.
#[test]
fn advice_addresses_the_verdict() {
    assert!(
        advice(Verdict::Overloaded)
            .iter()
            .any(|a| a.contains("load balancing"))
    );
    assert!(advice(Verdict::MemoryBound)[0].contains("memory"));
}

/// The findings about load and queues, each with its words.
fn load_findings() -> Vec<(Finding, &'static str)> {
    vec![
        (
            Finding::UtilizationOutOfRange {
                utilization_pct: 104.2,
            },
            "utilization 104.2 % outside 0..100 %",
        ),
        (
            Finding::BusyBeyondPopulation {
                utilization_pct: 90.0,
                queue_length: 0.3,
            },
            "busy 0.90 of the time but only 0.30 in the system on average (U > N)",
        ),
        (
            Finding::ServiceAboveResponse {
                service_ms: 9.0,
                response_ms: 6.0,
            },
            "service time 9.000 ms above response time 6.000 ms (S > R)",
        ),
        (
            Finding::InterruptSaturated {
                interrupt_pct: 91.5,
                limit_pct: 30.0,
            },
            "interrupt time 91.5 % ≥ 30 %",
        ),
        (
            Finding::ProcessorSaturated {
                cpu_pct: 99.0,
                limit_pct: 95.0,
            },
            "processor busy 99.0 % ≥ 95 %",
        ),
        (Finding::LittleIo { iops: 0.25 }, "0.25 I/O per second"),
        (
            Finding::HardPaging {
                paging_s: 40.0,
                limit_s: 5.0,
            },
            "hard paging 40.0 pages/s > 5",
        ),
        (
            Finding::DiskBusy {
                utilization_pct: 90.0,
            },
            "disk busy 90.0 %",
        ),
        (
            Finding::QueueAboveService {
                queue_ms: 24.0,
                service_ms: 6.0,
            },
            "queue time 24.000 ms > service time 6.000 ms",
        ),
        (
            Finding::BusyAboveLimit {
                utilization_pct: 95.0,
                limit_pct: 85.0,
            },
            "busy 95.0 % > 85 %",
        ),
        (
            Finding::QueuedPerDisk {
                queue_per_disk: 3.0,
                limit: 2.0,
            },
            "3.00 in the system per disk > 2",
        ),
    ]
}

/// The findings about service and response time, each with its words.
fn time_findings(class: &ExpectedService) -> Vec<(Finding, &'static str)> {
    vec![
        (
            Finding::Load {
                iops: 27223.9,
                utilization_pct: 44.8,
            },
            "27223.9 I/O per second at 44.8 % busy",
        ),
        (
            Finding::QuietInterval {
                utilization_pct: 1.4,
                limit_pct: 50.0,
            },
            "busy 1.4 % of the interval: idle most of it, so queue time against service time is \
             not judged (that reading needs a device busy more than 50 % of the time); its \
             response time decides",
        ),
        (
            Finding::FewIos {
                ios: 12.0,
                min_ios: 20.0,
            },
            "only 12 I/Os completed: too few for their mean response time to call the device \
             slow (at least 20)",
        ),
        (
            Finding::BusyIsNotSaturation {
                utilization_pct: 99.9,
            },
            "busy 99.9 %, which does not measure saturation on a device that serves requests in \
             parallel (it only says at least one request was in flight)",
        ),
        (
            Finding::ResponseQueued {
                response_ms: 3.5,
                expected: class.clone(),
                queue_per_disk: 31.5,
            },
            "response time 3.500 ms > 2 × 0.310 ms expected (typical for ssd, 4 KiB requests) \
             with 31.5 in the system per disk: requests wait for the device",
        ),
        (
            Finding::ServiceSlow {
                service_ms: 5.0,
                expected: ExpectedService {
                    ms: 2.0,
                    factor: 1.5,
                    ..expected(ExpectationSource::Profile)
                },
            },
            "service time 5.000 ms > 1.5 × 2.000 ms expected (profile, 4 KiB requests)",
        ),
        (
            Finding::ResponseSlow {
                response_ms: 3.5,
                expected: class.clone(),
            },
            "response time 3.500 ms > 2 × 0.310 ms expected (typical for ssd, 4 KiB requests) \
             with little queued: the device itself is slow",
        ),
        (
            Finding::ServiceAsExpected {
                service_ms: 0.202,
                expected: class.clone(),
            },
            "service time 0.202 ms, expected 0.310 ms (typical for ssd, 4 KiB requests)",
        ),
        (
            Finding::ResponseAsExpected {
                response_ms: 0.35,
                expected: class.clone(),
            },
            "response time 0.350 ms, expected service 0.310 ms (typical for ssd, 4 KiB requests)",
        ),
        (
            Finding::Intervals {
                count: 6,
                active: 6,
                verdict: Verdict::Healthy,
            },
            "6 of 6 active intervals are healthy",
        ),
        (
            Finding::ResponseGrowth {
                slope_ms: 0.02,
                intercept_ms: 0.0,
                r2: 1.0,
                queue_min: 8.0,
                queue_max: 128.0,
                completions_per_s: 50_000.0,
            },
            "response time grows 0.0200 ms per request in the system (R = 0.000 + 0.0200·N, R² \
             1.00, N 8.0–128.0): the device completes about 50000 requests/s however many wait",
        ),
    ]
}

#[test]
fn each_finding_in_words() {
    let class = expected(ExpectationSource::Class);
    let mut cases = load_findings();
    cases.extend(time_findings(&class));
    for (f, said) in &cases {
        assert_eq!(finding(f), *said, "{f:?}");
    }
    let at = Evidence {
        at: Some("peak".into()),
        finding: cases[8].0.clone(),
    };
    assert_eq!(
        evidence(&at),
        "at peak: queue time 24.000 ms > service time 6.000 ms"
    );
    assert_eq!(at.finding.figure(), Figure::QueueMs);
    assert_eq!(at.finding.value(), 24.0);
}

#[test]
fn each_class_fact_in_words() {
    let cases = [
        (
            ClassEvidence::Recorded {
                class: DeviceClass::Hdd,
                serving: Serving::Serial,
            },
            "class hdd and serial service as the monitor recorded them",
        ),
        (
            ClassEvidence::Name {
                name: "nvme0n1".into(),
                class: DeviceClass::Nvme,
            },
            "class nvme from the name nvme0n1",
        ),
        (
            ClassEvidence::ServedInParallel {
                at: "t0".into(),
                utilization_pct: 99.9,
                iops: 90_000.0,
                busy_per_io_ms: 0.0111,
                queue_length: 31.5,
                serial_min_ms: 0.1,
            },
            "at t0: busy 99.9 % at 90000 I/O/s is U/X = 0.011 ms per request with 31.5 in the \
             system; one request at a time cannot take under 0.1 ms, so they were served in \
             parallel",
        ),
        (
            ClassEvidence::TakenAsSsd,
            "taken as an SSD (or an array, SAN or virtual volume that serves like one)",
        ),
        (
            ClassEvidence::LogRecorded {
                serving: Serving::Serial,
            },
            "serial service as the log recorded it",
        ),
        (
            ClassEvidence::Seek {
                at: "t0".into(),
                busy_per_io_ms: 5.5278,
                request_kib: Some(8.0),
                utilization_pct: 99.5,
            },
            "at t0: U/X = 5.53 ms per request of 8 KiB at 99.5 % busy: the time of a seek, as \
             one disk arm serving one request at a time shows",
        ),
        (
            ClassEvidence::Seek {
                at: "t0".into(),
                busy_per_io_ms: 5.5278,
                request_kib: None,
                utilization_pct: 99.5,
            },
            "at t0: U/X = 5.53 ms per request at 99.5 % busy: the time of a seek, as one disk \
             arm serving one request at a time shows",
        ),
        (ClassEvidence::TakenAsRotating, "taken as a rotating disk"),
        (
            ClassEvidence::Undecided {
                name: "sdc".into(),
                busy_pct: 50.0,
            },
            "neither the name sdc nor a busy interval (≥ 50 %) tells how the device serves \
             requests; no service time is taken from U/X except in intervals that held one \
             request at a time",
        ),
    ];
    for (c, said) in &cases {
        assert_eq!(class_evidence(c), *said, "{c:?}");
    }
}

/// The issue's load: 115 573 IOPS observed against a profile peak of 104 534 was worded "0.9×
/// to the peak"; it lies beyond the peak, 115 573 ÷ 104 534 = 1.11 times it (and beyond a knee
/// of 90 000: 1.28×). A load below both keeps "N× to the peak".
#[test]
fn a_load_beyond_the_peak_is_said_to_be_beyond_it() {
    use crate::model::diagnosis::{CurvePlace, WorkloadHeadroom};
    let place = |observed: f64| WorkloadHeadroom {
        at: "12:00:05".into(),
        observed_iops: observed,
        observed_read_pct: 100.0,
        observed_request_bytes: 4096.0,
        curve: Some(CurvePlace {
            source: crate::model::profile::CurveSource::Profile,
            rw: crate::plan::RwMode::Randread,
            bs_bytes: 4096,
            size_matches: true,
            peak_iops: 104_534.0,
            peak_inflight: 4,
            knee_iops: Some(90_000.0),
            knee_inflight: Some(2),
            to_peak: 104_534.0 / observed,
            to_knee: Some(90_000.0 / observed),
            curve_latency_ms: None,
        }),
        ..WorkloadHeadroom::default()
    };
    let beyond = headroom(&place(115_573.0));
    assert!(!beyond.contains("to the peak"), "{beyond}");
    assert!(beyond.contains("beyond the peak, 1.11× it,"), "{beyond}");
    assert!(
        beyond.contains("beyond the knee, 1.28× its 90000 IOPS with 2 in flight"),
        "{beyond}"
    );
    let below = headroom(&place(26_133.5));
    assert!(
        below.contains("4.0× to the peak, 3.4× to the knee"),
        "{below}"
    );
}
