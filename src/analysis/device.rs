//! The device model, decided in one place: what class a disk is, whether it serves one request
//! at a time, and which method may give its service time. `monitor`, `diagnose`, `profile` and
//! `report` all take these answers from here.
//!
//! Why it matters: the Utilization Law (S = U / X) and the seeds' "busy above 85 % with more
//! than 2 queued" rule hold for a device that serves one request at a time, a disk arm. A device
//! that serves many at once (flash, NVMe, arrays, virtual and network disks) is "busy" whenever
//! at least one request is in flight, so %util says nothing about saturation and U / X is busy
//! time per I/O, which can be a hundred times shorter than the time a request takes.
//!
//! Live, the class comes from sysfs. For a log from another machine it comes from the name and
//! from the data: a serial device cannot serve a request in under [`SERIAL_MIN_SERVICE_MS`], so
//! U / X below that with several requests in the system means they were served in parallel; a
//! U / X of a seek ([`SEEK_MIN_SERVICE_MS`]) on small requests is what a single arm shows.

use crate::model::log::DiskInterval;
use crate::model::{ClassEvidence, DeviceClass, ServiceMethod, Serving};
use crate::oscounters::sysfs::DeviceFacts;

/// Shortest time a device serving one request at a time can take per request, ms: below it, a
/// busy device with a queue must have served requests in parallel (a disk's command overhead
/// and transfer of even 4 KiB take longer; 004's fastest case, sequential reads from the track
/// buffer, is 0.2 ms).
pub const SERIAL_MIN_SERVICE_MS: f64 = 0.1;
/// Busy time per request that only a mechanical seek explains for requests of at most
/// [`SEEK_MAX_REQUEST_BYTES`], ms.
pub const SEEK_MIN_SERVICE_MS: f64 = 2.0;
/// Largest mean request size for which [`SEEK_MIN_SERVICE_MS`] is read as a seek, bytes.
pub const SEEK_MAX_REQUEST_BYTES: f64 = 64.0 * 1024.0;
/// Utilization from which an interval can show how the device serves, %.
pub const EVIDENCE_UTIL_PCT: f64 = 50.0;
/// Mean number in the system above which requests overlapped, when it also exceeds the busy
/// share by [`ONE_AT_A_TIME_SLACK`].
pub const OVERLAP_QUEUE: f64 = 1.5;
/// The mean number in the system N is never below the busy share U (Little's law); an interval
/// with N ≤ U × this (+ 0.05) held about one request whenever it was busy.
pub const ONE_AT_A_TIME_SLACK: f64 = 1.1;

/// The class a device name alone tells (`unknown` for names like `sda` that any kind of disk
/// carries).
pub fn class_from_name(name: &str) -> DeviceClass {
    let starts = |p: &[&str]| p.iter().any(|x| name.starts_with(x));
    if starts(&["loop"]) {
        DeviceClass::Loop
    } else if starts(&["zram", "ram", "pmem"]) {
        DeviceClass::Ram
    } else if starts(&["nbd", "rbd", "drbd"]) {
        DeviceClass::Network
    } else if starts(&["md", "dm-"]) {
        DeviceClass::Stacked
    } else if starts(&["nvme"]) {
        DeviceClass::Nvme
    } else if starts(&["vd", "xvd"]) {
        DeviceClass::Virtual
    } else {
        DeviceClass::Unknown
    }
}

/// Hypervisors' disk vendors.
const VIRTUAL_VENDORS: &[&str] = &["QEMU", "VMware", "Msft", "VBOX", "Google", "Amazon", "Xen"];
/// Words in a device's sysfs path that name a virtual bus.
const VIRTUAL_BUSES: &[&str] = &["virtio", "vmbus", "VMBUS", "xen", "vbd-"];

/// The class of a live disk from its sysfs facts. Virtual disks often claim to be rotational,
/// so the bus and vendor are read before `rotational`.
pub fn classify(f: &DeviceFacts) -> DeviceClass {
    let by_name = class_from_name(&f.name);
    if by_name != DeviceClass::Unknown {
        return by_name;
    }
    if !f.slaves.is_empty() {
        return DeviceClass::Stacked;
    }
    let path = f.device_path.as_deref().unwrap_or("");
    let vendor = f.vendor.as_deref().unwrap_or("");
    let driver = f.driver.as_deref().unwrap_or("");
    if VIRTUAL_BUSES.iter().any(|b| path.contains(b))
        || VIRTUAL_VENDORS.iter().any(|v| vendor.starts_with(v))
        || driver.starts_with("virtio")
    {
        DeviceClass::Virtual
    } else if path.contains("/session") {
        DeviceClass::Network // iSCSI
    } else if f.rotational == Some(true) {
        DeviceClass::Hdd
    } else if f.name.starts_with("sd") || f.name.starts_with("hd") || f.name.starts_with("mmcblk") {
        DeviceClass::Ssd
    } else {
        DeviceClass::Unknown
    }
}

/// How a device of `class` serves requests. A stacked device over one rotating disk (`disks`
/// 1, `rotational`) is serial; over several it serves one request per member at once. A device
/// of unknown class with more than one hardware queue (`hw_queues`, blk-mq's `mq/` entries)
/// takes requests on several queues at once, so it serves in parallel.
pub fn serving(class: DeviceClass, disks: u32, rotational: bool, hw_queues: u32) -> Serving {
    match class {
        DeviceClass::Hdd => Serving::Serial,
        DeviceClass::Stacked if disks <= 1 && rotational => Serving::Serial,
        DeviceClass::Unknown if hw_queues > 1 && !rotational => Serving::Parallel,
        DeviceClass::Unknown => Serving::Unknown,
        _ => Serving::Parallel,
    }
}

/// Whether an interval held about one request whenever the device was busy: `util` the busy
/// share (0..1), `aqu` the mean number in the system. Then busy time per completion is the
/// service time on any device, serial or not.
pub fn one_at_a_time(util: f64, aqu: f64) -> bool {
    util > 0.0 && aqu <= util * ONE_AT_A_TIME_SLACK + 0.05
}

/// The longest tick the kernel may count busy time in, ms: diskstats' `io_ticks` grows by whole
/// jiffies (10 ms at HZ 100, the coarsest common setting; 4 ms at HZ 250, 1 ms at HZ 1000).
pub const COARSEST_TICK_MS: f64 = 10.0;
/// Ticks of busy time an interval needs before U / X is a service time: busy time counted in
/// whole ticks is off by up to a tick per busy period, a relative error of about 1/√k over k
/// ticks at low load (each short request adds a whole tick or none), so 25 ticks keep it near
/// ±20 %.
pub const MIN_BUSY_TICKS: f64 = 25.0;

/// Whether busy share `util` (0..1) over `secs` is enough busy time for U / X: at least
/// [`MIN_BUSY_TICKS`] of the coarsest tick (250 ms; a quarter of a 1-s interval). A disk busy
/// 14 ms in a second was seen busy in one or two ticks, and U / X from that says nothing.
pub fn busy_measurable(util: f64, secs: f64) -> bool {
    util.is_finite() && util * secs * 1000.0 >= MIN_BUSY_TICKS * COARSEST_TICK_MS
}

/// What an interval offers towards its service time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServiceInputs {
    /// The block tracer measured the interval.
    pub traced: bool,
    /// The interval held about one request whenever the device was busy ([`one_at_a_time`]).
    pub one_at_a_time: bool,
    /// Enough busy time for U / X ([`busy_measurable`]).
    pub busy_measurable: bool,
    /// In-flight counts were sampled through the interval and caught requests in flight (a
    /// mean of 0 says the samples missed them, not that they took no time).
    pub inflight_sampled: bool,
}

/// The one rule for where a service time comes from: the block tracer when it measured the
/// interval; the Utilization Law for a serial device or an interval that held one request at a
/// time, when its busy time is long enough to count; Little's law on sampled in-flight counts
/// when they were sampled; else none.
pub fn service_method(serving: Serving, i: ServiceInputs) -> ServiceMethod {
    if i.traced {
        ServiceMethod::Trace
    } else if (serving == Serving::Serial || i.one_at_a_time) && i.busy_measurable {
        ServiceMethod::UtilizationLaw
    } else if i.inflight_sampled {
        ServiceMethod::InflightEstimate
    } else {
        ServiceMethod::None
    }
}

/// A device of a log, classified.
#[derive(Clone, Debug, PartialEq)]
pub struct Classification {
    /// The class.
    pub class: DeviceClass,
    /// How it serves requests.
    pub serving: Serving,
    /// The facts that decided it.
    pub evidence: Vec<ClassEvidence>,
}

/// What one interval shows about how the device serves, if anything.
fn interval_evidence(iv: &DiskInterval) -> Option<(Serving, ClassEvidence)> {
    let util = iv.util_pct?;
    let aqu = iv.queue_length?;
    let iops = iv.iops();
    if util < EVIDENCE_UTIL_PCT || iops <= 0.0 {
        return None;
    }
    let s = util / 100.0 / iops * 1000.0;
    if s < SERIAL_MIN_SERVICE_MS && aqu > OVERLAP_QUEUE && !one_at_a_time(util / 100.0, aqu) {
        return Some((
            Serving::Parallel,
            ClassEvidence::ServedInParallel {
                at: iv.time.clone(),
                utilization_pct: util,
                iops,
                busy_per_io_ms: s,
                queue_length: aqu,
                serial_min_ms: SERIAL_MIN_SERVICE_MS,
            },
        ));
    }
    // Without byte counters (some perfmon logs) the size is unknown and taken as small.
    let size = iv.request_bytes();
    if s >= SEEK_MIN_SERVICE_MS && size.is_none_or(|b| b <= SEEK_MAX_REQUEST_BYTES) {
        return Some((
            Serving::Serial,
            ClassEvidence::Seek {
                at: iv.time.clone(),
                busy_per_io_ms: s,
                request_kib: size.map(|b| b / 1024.0),
                utilization_pct: util,
            },
        ));
    }
    None
}

/// Classifies a device of a log named `name`. What the log itself says (`said_class`, and
/// `said_serving` other than unknown: halfpower's monitor logs) is taken as is; otherwise the
/// name, then the intervals' evidence decide. A name that fixes the class (nvme, loop, …)
/// wins over the data.
pub fn classify_log(
    name: &str,
    said_class: Option<DeviceClass>,
    said_serving: Serving,
    intervals: &[&DiskInterval],
) -> Classification {
    if let Some(class) = said_class.filter(|c| *c != DeviceClass::Unknown) {
        let serving = if said_serving == Serving::Unknown {
            serving(class, 1, class == DeviceClass::Hdd, 1)
        } else {
            said_serving
        };
        return Classification {
            class,
            serving,
            evidence: vec![ClassEvidence::Recorded { class, serving }],
        };
    }
    let by_name = class_from_name(name);
    if by_name != DeviceClass::Unknown {
        return Classification {
            class: by_name,
            serving: serving(by_name, 1, false, 1),
            evidence: vec![ClassEvidence::Name {
                name: name.to_string(),
                class: by_name,
            }],
        };
    }
    let found: Vec<(Serving, ClassEvidence)> = intervals
        .iter()
        .filter_map(|iv| interval_evidence(iv))
        .collect();
    let first = |kind: Serving| {
        found
            .iter()
            .find(|(s, _)| *s == kind)
            .map(|(_, t)| t.clone())
    };
    // Parallel service is proof; a seek-like interval is only consistent with one arm.
    if let Some(seen) = first(Serving::Parallel) {
        return Classification {
            class: DeviceClass::Ssd,
            serving: Serving::Parallel,
            evidence: vec![seen, ClassEvidence::TakenAsSsd],
        };
    }
    if said_serving != Serving::Unknown {
        return Classification {
            class: DeviceClass::Unknown,
            serving: said_serving,
            evidence: vec![ClassEvidence::LogRecorded {
                serving: said_serving,
            }],
        };
    }
    if let Some(seen) = first(Serving::Serial) {
        return Classification {
            class: DeviceClass::Hdd,
            serving: Serving::Serial,
            evidence: vec![seen, ClassEvidence::TakenAsRotating],
        };
    }
    Classification {
        class: DeviceClass::Unknown,
        serving: Serving::Unknown,
        evidence: vec![ClassEvidence::Undecided {
            name: name.to_string(),
            busy_pct: EVIDENCE_UTIL_PCT,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(name: &str) -> DeviceFacts {
        DeviceFacts {
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn live_classes() {
        assert_eq!(classify(&facts("loop3")), DeviceClass::Loop);
        assert_eq!(classify(&facts("nvme0n1")), DeviceClass::Nvme);
        assert_eq!(classify(&facts("vda")), DeviceClass::Virtual);
        assert_eq!(classify(&facts("dm-0")), DeviceClass::Stacked);
        assert_eq!(classify(&facts("zram0")), DeviceClass::Ram);
        assert_eq!(classify(&facts("nbd0")), DeviceClass::Network);
        let hdd = DeviceFacts {
            rotational: Some(true),
            ..facts("sda")
        };
        assert_eq!(classify(&hdd), DeviceClass::Hdd);
        assert_eq!(classify(&facts("sda")), DeviceClass::Ssd);
        // QEMU's SCSI disks claim to rotate.
        let qemu = DeviceFacts {
            vendor: Some("QEMU".into()),
            ..hdd.clone()
        };
        assert_eq!(classify(&qemu), DeviceClass::Virtual);
        let virtio_scsi = DeviceFacts {
            device_path: Some(
                "/sys/devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/0:0:0:0".into(),
            ),
            ..hdd.clone()
        };
        assert_eq!(classify(&virtio_scsi), DeviceClass::Virtual);
        let iscsi = DeviceFacts {
            device_path: Some("/sys/devices/platform/host3/session1/target3:0:0/3:0:0:0".into()),
            ..facts("sdb")
        };
        assert_eq!(classify(&iscsi), DeviceClass::Network);
        let md = DeviceFacts {
            slaves: vec!["sdb".into(), "sdc".into()],
            ..facts("data")
        };
        assert_eq!(classify(&md), DeviceClass::Stacked);
    }

    #[test]
    fn only_a_disk_arm_is_serial() {
        assert_eq!(serving(DeviceClass::Hdd, 1, true, 1), Serving::Serial);
        assert_eq!(serving(DeviceClass::Ssd, 1, false, 1), Serving::Parallel);
        assert_eq!(serving(DeviceClass::Loop, 1, false, 1), Serving::Parallel);
        assert_eq!(serving(DeviceClass::Stacked, 1, true, 1), Serving::Serial);
        assert_eq!(serving(DeviceClass::Stacked, 4, true, 1), Serving::Parallel);
        assert_eq!(serving(DeviceClass::Unknown, 1, false, 1), Serving::Unknown);
        // Several blk-mq hardware queues take requests at once; a rotating disk still does not.
        assert_eq!(
            serving(DeviceClass::Unknown, 1, false, 4),
            Serving::Parallel
        );
        assert_eq!(serving(DeviceClass::Unknown, 1, true, 4), Serving::Unknown);
    }

    #[test]
    fn one_method_per_situation() {
        use ServiceMethod::*;
        let i = |traced, one_at_a_time, busy_measurable, inflight_sampled| ServiceInputs {
            traced,
            one_at_a_time,
            busy_measurable,
            inflight_sampled,
        };
        assert_eq!(
            service_method(Serving::Parallel, i(true, false, true, true)),
            Trace
        );
        assert_eq!(
            service_method(Serving::Serial, i(false, false, true, false)),
            UtilizationLaw
        );
        assert_eq!(
            service_method(Serving::Parallel, i(false, true, true, true)),
            UtilizationLaw
        );
        assert_eq!(
            service_method(Serving::Parallel, i(false, false, true, true)),
            InflightEstimate
        );
        assert_eq!(
            service_method(Serving::Parallel, i(false, false, true, false)),
            None
        );
        assert_eq!(
            service_method(Serving::Unknown, i(false, false, true, false)),
            None
        );
        // Too little busy time for U/X: a serial disk falls back to sampled in-flight, or none.
        assert_eq!(
            service_method(Serving::Serial, i(false, true, false, true)),
            InflightEstimate
        );
        assert_eq!(
            service_method(Serving::Serial, i(false, true, false, false)),
            None
        );
        // 1.4 % of a second is 14 ms, one or two ticks; a quarter of a second is 25 at HZ 100.
        assert!(!busy_measurable(0.014, 1.0));
        assert!(busy_measurable(0.25, 1.0));
        assert!(busy_measurable(0.1, 60.0));
        // QD1 with host gaps: 0.6 busy, 0.6 in the system.
        assert!(one_at_a_time(0.6, 0.6));
        assert!(!one_at_a_time(0.999, 31.5));
        assert!(!one_at_a_time(0.0, 0.0));
    }

    fn iv(iops: f64, kib: f64, util: f64, aqu: f64, r_ms: f64) -> DiskInterval {
        DiskInterval::reads("sda", "t", iops, kib, util, aqu, r_ms)
    }

    /// The SSD of issue 12: 90k IOPS, 0.35 ms, aqu-sz 31.5, %util 99.9 — U/X 0.011 ms.
    #[test]
    fn an_ssd_at_qd32_serves_in_parallel() {
        let a = iv(90_000.0, 4.0, 99.9, 31.5, 0.35);
        let c = classify_log("sda", None, Serving::Unknown, &[&a]);
        assert_eq!(c.serving, Serving::Parallel);
        assert_eq!(c.class, DeviceClass::Ssd);
        assert!(
            matches!(c.evidence[0], ClassEvidence::ServedInParallel { busy_per_io_ms, .. }
                if (busy_per_io_ms - 0.011).abs() < 0.0005),
            "{:?}",
            c.evidence
        );
    }

    /// The overloaded HDD: 180 IOPS of 8 KiB, 120 ms, aqu-sz 21.6, util 99.5 — U/X 5.5 ms.
    #[test]
    fn an_overloaded_hdd_looks_serial() {
        let a = iv(180.0, 8.0, 99.5, 21.6, 120.0);
        let c = classify_log("sdb", None, Serving::Unknown, &[&a]);
        assert_eq!((c.class, c.serving), (DeviceClass::Hdd, Serving::Serial));
        assert!(
            matches!(c.evidence[0], ClassEvidence::Seek { busy_per_io_ms, .. }
                if (busy_per_io_ms - 5.53).abs() < 0.005),
            "{:?}",
            c.evidence
        );
    }

    #[test]
    fn a_quiet_disk_tells_nothing_and_names_and_logs_decide_first() {
        let quiet = iv(12.0, 8.0, 3.0, 0.05, 2.0);
        let c = classify_log("sdc", None, Serving::Unknown, &[&quiet]);
        assert_eq!(
            (c.class, c.serving),
            (DeviceClass::Unknown, Serving::Unknown)
        );
        let busy_ssd = iv(90_000.0, 4.0, 99.9, 31.5, 0.35);
        let c = classify_log("nvme0n1", None, Serving::Unknown, &[&busy_ssd]);
        assert_eq!((c.class, c.serving), (DeviceClass::Nvme, Serving::Parallel));
        let c = classify_log("sdd", Some(DeviceClass::Hdd), Serving::Serial, &[&busy_ssd]);
        assert_eq!(c.class, DeviceClass::Hdd);
        // A v1 monitor log said only "serial": the data's proof of parallel service wins.
        let c = classify_log("sde", None, Serving::Serial, &[&busy_ssd]);
        assert_eq!(c.serving, Serving::Parallel);
    }
}
