//! From two snapshots to the records of one interval: iostat's figures per device, the split
//! of response time into service and queue time (by the method `analysis::device` picks), the
//! flags, and the system figures.

use super::device::{ServiceInputs, busy_measurable, one_at_a_time, service_method};
use super::limits::{
    BUSY_PCT, PAGING_PER_S, QUEUE_PER_DISK, busy_beyond_population, service_beyond_response,
};
use super::queueing::{littles_law_ms, queue_time_ms, utilization_law_ms};
use crate::model::monitor::{
    DeviceRecord, Flag, MONITOR_SCHEMA_VERSION, SYSTEM_DEVICE, SystemRecord,
};
use crate::model::{DeviceClass, ServiceMethod, Serving};
use crate::oscounters::diskstats::{DeviceDelta, DiskStat, counter_delta};
use crate::oscounters::pressure::Pressure;
use crate::oscounters::snapshot::Sample;
use crate::stats::window::cpu_pct;

/// What the monitor knows about a device besides its counters.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// Class (`analysis::device::classify`).
    pub class: DeviceClass,
    /// How it serves requests (`analysis::device::serving`).
    pub serving: Serving,
    /// Member disks (md/dm slaves), at least 1.
    pub disks: u32,
}

/// Requests the block tracer matched for one device in one interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TraceFigures {
    /// Requests completed with both stamps.
    pub requests: u64,
    /// Mean OS queue time (accounting start → issue to the driver), ms.
    pub os_queue_ms: f64,
    /// Mean device time (issue → completion), ms.
    pub device_ms: f64,
}

/// The 64-bit event counters went down: the device was removed and created again between the
/// snapshots, and its interval cannot be computed.
pub fn counters_reset(before: &DiskStat, after: &DiskStat) -> bool {
    (before.major, before.minor) != (after.major, after.minor)
        || after.reads < before.reads
        || after.writes < before.writes
        || after.read_sectors < before.read_sectors
        || after.write_sectors < before.write_sectors
        || after.discards < before.discards
        || after.flushes < before.flushes
}

/// Whether the device did anything in the interval.
pub fn moved(before: &DiskStat, after: &DiskStat) -> bool {
    after.reads != before.reads
        || after.writes != before.writes
        || after.discards != before.discards
        || after.flushes != before.flushes
        || after.io_ticks_ms != before.io_ticks_ms
        || after.in_flight > 0
}

/// Everything one device record needs besides the two snapshots.
#[derive(Clone, Debug)]
pub struct DeviceContext<'a> {
    /// Interval end, RFC 3339.
    pub time: &'a str,
    /// Interval length, s.
    pub secs: f64,
    /// Class and service of the device.
    pub info: &'a DeviceInfo,
    /// Mean in-flight count sampled through the interval; None when it was not sampled
    /// during the interval (a device that was idle before: one reading at the end is no mean).
    pub inflight_mean: Option<f64>,
    /// Requests at the driver at the end (sampled).
    pub inflight_end: u64,
    /// In flight at the start of the interval.
    pub inflight_start: u64,
    /// Hard paging in this interval.
    pub paging: bool,
    /// Tracer figures, with `--trace`.
    pub trace: Option<TraceFigures>,
}

/// One device's record over the interval, or `None` when its counters were reset.
pub fn device_record(
    before: &DiskStat,
    after: &DiskStat,
    cx: &DeviceContext,
) -> Option<DeviceRecord> {
    if counters_reset(before, after) || cx.secs <= 0.0 {
        return None;
    }
    // The figures `run` also reports come from the one definition in DeviceDelta; discards,
    // flushes and the combined response time are added here.
    let dd = DeviceDelta::between(before, after, std::time::Duration::from_secs_f64(cx.secs));
    let d = counter_delta;
    let secs = dd.seconds;
    let discards = after.discards - before.discards;
    let flushes = after.flushes - before.flushes;
    let rate = |n: u64| n as f64 / secs;
    let per = |t: u64, n: u64| if n == 0 { 0.0 } else { t as f64 / n as f64 };
    let db = d(before.discard_sectors, after.discard_sectors) * 512;
    let dt = d(before.discard_ms, after.discard_ms);
    let ios = dd.reads + dd.writes + discards;
    let response = per(
        d(before.read_ms, after.read_ms) + d(before.write_ms, after.write_ms) + dt,
        ios,
    );
    let split = split_response(cx, &dd, ios, response);
    let flags = flags(cx, &dd, ios, split.service, response);
    Some(DeviceRecord {
        schema_version: MONITOR_SCHEMA_VERSION,
        time: cx.time.to_string(),
        interval_s: secs,
        device: after.name.clone(),
        class: cx.info.class,
        disks: cx.info.disks,
        r_s: dd.r_s,
        w_s: dd.w_s,
        d_s: rate(discards),
        f_s: rate(flushes),
        r_bytes_s: dd.read_bytes as f64 / secs,
        w_bytes_s: dd.write_bytes as f64 / secs,
        d_bytes_s: db as f64 / secs,
        rrqm_s: rate(dd.read_merges),
        wrqm_s: rate(dd.write_merges),
        rareq_bytes: per(dd.read_bytes, dd.reads),
        wareq_bytes: per(dd.write_bytes, dd.writes),
        r_await_ms: dd.r_await_ms,
        w_await_ms: dd.w_await_ms,
        d_await_ms: per(dt, discards),
        f_await_ms: per(d(before.flush_ms, after.flush_ms), flushes),
        response_ms: response,
        aqu_sz: dd.aqu_sz,
        util_pct: dd.util_pct,
        serving: cx.info.serving,
        inflight: cx.inflight_end,
        inflight_mean: cx.inflight_mean.unwrap_or(cx.inflight_end as f64),
        service_ms: split.service,
        queue_ms: split.queue,
        service_source: split.source,
        traced: cx.trace.map(|t| t.requests),
        headroom: None,
        changes: Vec::new(),
        flags,
    })
}

/// An interval's response time split into service and queue time.
struct Split {
    /// Service time, ms, when a method gave one.
    service: Option<f64>,
    /// Queue time, ms, with a service time.
    queue: Option<f64>,
    /// The method that gave the service time (`None` without one).
    source: ServiceMethod,
}

/// Splits `response` (ms, over the interval's `ios` requests, discards included) into service
/// and queue time by the method `analysis::device` picks for the device and the data.
fn split_response(cx: &DeviceContext, dd: &DeviceDelta, ios: u64, response: f64) -> Split {
    let secs = dd.seconds;
    let util = dd.util_pct / 100.0;
    let aqu = dd.aqu_sz;
    let iops = ios as f64 / secs;
    let traced = cx.trace.filter(|t| t.requests > 0);
    let method = if ios == 0 {
        ServiceMethod::None
    } else {
        service_method(
            cx.info.serving,
            ServiceInputs {
                traced: traced.is_some(),
                one_at_a_time: one_at_a_time(util, aqu),
                busy_measurable: busy_measurable(util, secs),
                inflight_sampled: cx.inflight_mean.is_some_and(|n| n > 0.0),
            },
        )
    };
    let service = match method {
        ServiceMethod::Trace => traced.map(|t| t.device_ms),
        ServiceMethod::UtilizationLaw => utilization_law_ms(util, iops),
        ServiceMethod::InflightEstimate => cx.inflight_mean.and_then(|n| littles_law_ms(n, iops)),
        ServiceMethod::None => None,
    };
    let source = if service.is_some() {
        method
    } else {
        ServiceMethod::None
    };
    let queue = match (source, traced) {
        (ServiceMethod::Trace, Some(t)) => Some(t.os_queue_ms),
        _ => service.map(|s| queue_time_ms(response, s)),
    };
    Split {
        service,
        queue,
        source,
    }
}

/// The interval's flags: saturation (on a serial device), paging, and counters that
/// contradict each other.
fn flags(
    cx: &DeviceContext,
    dd: &DeviceDelta,
    ios: u64,
    service: Option<f64>,
    response: f64,
) -> Vec<Flag> {
    let util = dd.util_pct / 100.0;
    let aqu = dd.aqu_sz;
    let mut flags = Vec::new();
    // %util and the queue measure saturation only on a device that serves one at a time.
    if cx.info.serving == Serving::Serial {
        if dd.util_pct > BUSY_PCT {
            flags.push(Flag::Busy);
        }
        if aqu / cx.info.disks.max(1) as f64 > QUEUE_PER_DISK {
            flags.push(Flag::Queue);
        }
    }
    if cx.paging && ios > 0 {
        flags.push(Flag::Paging);
    }
    // Counters that contradict each other (Friedman's consistency checks).
    if busy_beyond_population(util, aqu) {
        flags.push(Flag::BusyBeyondPopulation);
    }
    if service.is_some_and(|s| ios > 0 && service_beyond_response(s, response, Some(ios as f64))) {
        flags.push(Flag::ServiceBeyondResponse);
    }
    let drift = cx.inflight_end.abs_diff(cx.inflight_start) as f64;
    if drift > 2.0f64.max(aqu) {
        flags.push(Flag::UnstableQueue);
    }
    flags
}

/// The system record over the interval between `a` and `b`.
pub fn system_record(a: &Sample, b: &Sample, time: &str, cpus: u32) -> SystemRecord {
    let secs = b.mono_ns.saturating_sub(a.mono_ns) as f64 / 1e9;
    let rate = |x: u64, y: u64| {
        if secs > 0.0 {
            y.saturating_sub(x) as f64 / secs
        } else {
            0.0
        }
    };
    let mut r = SystemRecord {
        schema_version: MONITOR_SCHEMA_VERSION,
        time: time.to_string(),
        interval_s: secs,
        device: SYSTEM_DEVICE.to_string(),
        cpus,
        ..Default::default()
    };
    if let (Some(x), Some(y)) = (a.cpu, b.cpu) {
        let total = y.total_s() - x.total_s();
        let pct = |p: f64, q: f64| cpu_pct(q - p, total);
        r.cpu_user_pct = pct(x.user_s, y.user_s);
        r.cpu_system_pct = pct(x.system_s, y.system_s);
        r.cpu_iowait_pct = pct(x.iowait_s, y.iowait_s);
        r.cpu_irq_pct = pct(x.irq_s, y.irq_s);
        r.cpu_softirq_pct = pct(x.softirq_s, y.softirq_s);
        r.cpu_steal_pct = pct(x.steal_s, y.steal_s);
        r.cpu_idle_pct = pct(x.idle_s, y.idle_s);
        r.interrupts_s = rate(x.interrupts, y.interrupts);
        r.context_switches_s = rate(x.context_switches, y.context_switches);
        r.procs_blocked = y.procs_blocked;
    }
    if let (Some(x), Some(y)) = (a.vm, b.vm) {
        r.swap_in_pages_s = rate(x.pswpin, y.pswpin);
        r.swap_out_pages_s = rate(x.pswpout, y.pswpout);
        r.major_faults_s = rate(x.pgmajfault, y.pgmajfault);
        r.direct_scan_pages_s = rate(x.pgscan_direct, y.pgscan_direct);
        r.refaults_s = rate(x.workingset_refault, y.workingset_refault);
    }
    let psi = |x: Option<Pressure>, y: Option<Pressure>, full: bool| {
        let (x, y) = (x?, y?);
        let (p, q) = if full {
            (x.full_us, y.full_us)
        } else {
            (x.some_us, y.some_us)
        };
        (secs > 0.0).then(|| (q.saturating_sub(p) as f64 / 1e6 / secs * 100.0).min(100.0))
    };
    r.psi_io_some_pct = psi(a.psi_io, b.psi_io, false);
    r.psi_io_full_pct = psi(a.psi_io, b.psi_io, true);
    r.psi_memory_some_pct = psi(a.psi_memory, b.psi_memory, false);
    r.psi_memory_full_pct = psi(a.psi_memory, b.psi_memory, true);
    r.psi_cpu_some_pct = psi(a.psi_cpu, b.psi_cpu, false);
    if hard_paging(&r) {
        r.flags.push(Flag::Paging);
    }
    if r.cpu_idle_pct + r.cpu_iowait_pct < 10.0 && a.cpu.is_some() {
        r.flags.push(Flag::Cpu);
    }
    if r.cpu_irq_pct + r.cpu_softirq_pct > 30.0 {
        r.flags.push(Flag::Irq);
    }
    r
}

/// Swap traffic above [`PAGING_PER_S`].
pub fn hard_paging(r: &SystemRecord) -> bool {
    r.swap_in_pages_s + r.swap_out_pages_s > PAGING_PER_S
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oscounters::diskstats::parse_line;

    fn info(rotational: bool) -> DeviceInfo {
        DeviceInfo {
            class: if rotational {
                DeviceClass::Hdd
            } else {
                DeviceClass::Ssd
            },
            serving: if rotational {
                Serving::Serial
            } else {
                Serving::Parallel
            },
            disks: 1,
        }
    }

    fn cx<'a>(info: &'a DeviceInfo, inflight_mean: Option<f64>) -> DeviceContext<'a> {
        DeviceContext {
            time: "t",
            secs: 1.0,
            info,
            inflight_mean,
            inflight_end: 1,
            inflight_start: 1,
            paging: false,
            trace: None,
        }
    }

    /// 004's worked example as counters: 5000 reads in 1 s with the disk busy the whole second
    /// ⇒ service time 0.2 ms by the Utilization Law; response 0.2 ms ⇒ no queue time.
    #[test]
    fn five_thousand_reads_at_full_busy() {
        let a = parse_line("8 0 sda 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let b = parse_line("8 0 sda 5000 0 40000 1000 0 0 0 0 1 1000 1000").unwrap();
        let i = info(true);
        let r = device_record(&a, &b, &cx(&i, None)).unwrap();
        assert_eq!(r.r_s, 5000.0);
        assert_eq!(r.rareq_bytes, 4096.0);
        assert_eq!(r.service_source, ServiceMethod::UtilizationLaw);
        assert!((r.service_ms.unwrap() - 0.2).abs() < 1e-12);
        assert!(r.queue_ms.unwrap().abs() < 1e-12);
        assert!(r.flags.contains(&Flag::Busy));
        assert!(!r.flags.contains(&Flag::Queue));
    }

    /// A serial disk with a queue: 100 I/Os/s, 80 % busy, 20 ms mean response ⇒ S = 8 ms,
    /// Wq = 12 ms, mean number in system 2 (Little), not above 2 per disk.
    #[test]
    fn serial_disk_with_queue() {
        let a = parse_line("8 0 sda 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let b = parse_line("8 0 sda 100 0 800 2000 0 0 0 0 0 800 2000").unwrap();
        let i = info(true);
        let r = device_record(&a, &b, &cx(&i, None)).unwrap();
        assert!((r.service_ms.unwrap() - 8.0).abs() < 1e-9);
        assert!((r.queue_ms.unwrap() - 12.0).abs() < 1e-9);
        assert!((r.aqu_sz - 2.0).abs() < 1e-9);
        assert!(r.flags.is_empty(), "{:?}", r.flags);
    }

    /// A parallel device is never given U/X: with sampled in-flight 16 at 80 000 IOPS the
    /// device time is 0.2 ms (Little), labelled an estimate.
    #[test]
    fn parallel_device_uses_littles_law() {
        let a = parse_line("259 0 nvme0n1 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let b = parse_line("259 0 nvme0n1 80000 0 640000 40000 0 0 0 0 16 1000 40000").unwrap();
        let i = info(false);
        let r = device_record(&a, &b, &cx(&i, Some(16.0))).unwrap();
        assert_eq!(r.service_source, ServiceMethod::InflightEstimate);
        assert!((r.service_ms.unwrap() - 0.2).abs() < 1e-9);
        assert!((r.queue_ms.unwrap() - 0.3).abs() < 1e-9);
        let no_inflight = device_record(&a, &b, &cx(&i, None)).unwrap();
        assert_eq!(no_inflight.service_source, ServiceMethod::None);
        assert_eq!(no_inflight.service_ms, None);
    }

    #[test]
    fn contradictions_are_flagged() {
        // Busy 90 % of the time with a mean of 0.5 in the system: U > N.
        let a = parse_line("8 0 sda 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let b = parse_line("8 0 sda 100 0 800 500 0 0 0 0 0 900 500").unwrap();
        let i = info(true);
        let r = device_record(&a, &b, &cx(&i, None)).unwrap();
        assert!(
            r.flags.contains(&Flag::BusyBeyondPopulation),
            "{:?}",
            r.flags
        );
        // Service 9 ms > response 5 ms.
        assert!(
            r.flags.contains(&Flag::ServiceBeyondResponse),
            "{:?}",
            r.flags
        );
        let mut c = cx(&i, None);
        c.inflight_start = 0;
        c.inflight_end = 9;
        let r = device_record(&a, &b, &c).unwrap();
        assert!(r.flags.contains(&Flag::UnstableQueue));
    }

    #[test]
    fn a_reset_device_gives_no_record_and_ms_fields_wrap() {
        let a = parse_line("8 0 sda 100 0 800 500 0 0 0 0 0 900 500").unwrap();
        let b = parse_line("8 0 sda 5 0 40 5 0 0 0 0 0 9 5").unwrap();
        let i = info(true);
        assert!(device_record(&a, &b, &cx(&i, None)).is_none());
        let a = parse_line("8 0 sda 100 0 800 4294967290 0 0 0 0 0 4294967000 4294967290").unwrap();
        let b = parse_line("8 0 sda 110 0 880 4 0 0 0 0 0 4 4").unwrap();
        let r = device_record(&a, &b, &cx(&i, None)).unwrap();
        assert!((r.r_await_ms - 1.0).abs() < 1e-9);
    }

    /// Issue 23: nine in-flight samples that caught nothing are no estimate (a mean of 0 made
    /// a service time of 0.000 ms), and 4 ms of busy time (one tick at HZ 250) is no U/X.
    #[test]
    fn quiet_intervals_give_no_service_time() {
        let i = info(false);
        let a = parse_line("254 0 vda 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let b = parse_line("254 0 vda 0 0 0 0 61 75 1088 69 0 0 69").unwrap();
        let r = device_record(&a, &b, &cx(&i, Some(0.0))).unwrap();
        assert_eq!(r.service_source, ServiceMethod::None);
        assert_eq!(r.service_ms, None);
        let c = parse_line("254 0 vda 0 0 0 0 5 0 80 21 0 4 21").unwrap();
        let r = device_record(&a, &c, &cx(&i, None)).unwrap();
        assert_eq!(r.service_ms, None, "U/X from one tick: {r:?}");
        let serial = info(true);
        let r = device_record(&a, &c, &cx(&serial, None)).unwrap();
        assert_eq!(r.service_ms, None, "{r:?}");
    }

    /// Issue 12: a parallel device busy 99.9 % at QD32 is not flagged busy, and gets no U/X
    /// service time without a sampled in-flight mean; the same device at QD1 gets U/X, which
    /// is then its service time.
    #[test]
    fn parallel_devices_are_not_judged_by_util() {
        let i = info(false);
        let a = parse_line("8 0 sda 0 0 0 0 0 0 0 0 0 0 0").unwrap();
        let deep = parse_line("8 0 sda 90000 0 720000 31500 0 0 0 0 32 999 31500").unwrap();
        let r = device_record(&a, &deep, &cx(&i, None)).unwrap();
        assert_eq!(r.service_source, ServiceMethod::None);
        assert_eq!(r.service_ms, None);
        assert!(
            !r.flags.contains(&Flag::Busy) && !r.flags.contains(&Flag::Queue),
            "{:?}",
            r.flags
        );
        let qd1 = parse_line("8 0 sda 10000 0 80000 600 0 0 0 0 1 600 600").unwrap();
        let r = device_record(&a, &qd1, &cx(&i, None)).unwrap();
        assert_eq!(r.service_source, ServiceMethod::UtilizationLaw);
        assert!((r.service_ms.unwrap() - 0.06).abs() < 1e-9);
    }
}
