//! `monitor --listen`'s metric families (docs/monitor.md, "Metrics"): per device the kernel's
//! counters since monitor started, in base units (seconds, bytes); the latest interval's
//! figures as gauges (service, queue and response time, utilisation, queue size, in flight);
//! the verdict of that interval with its rule; the host (steal, pressure, the probe's
//! stalls and lateness); with `--trace`, device and OS queue time as histograms.

use super::prom::{Family, MetricType, label_of};
use crate::model::change::{Change, ChangeFigure};
use crate::model::diagnosis::DeviceDiagnosis;
use crate::model::monitor::{DeviceRecord, SystemRecord};
use crate::oscounters::diskstats::DiskStat;
use crate::stats::Histogram;

/// What one scrape of `monitor --listen` shows.
pub struct MonitorView<'a> {
    /// Each device's counters since monitor started (or since it first appeared).
    pub totals: &'a [DiskStat],
    /// The latest interval's device records.
    pub devices: &'a [DeviceRecord],
    /// The latest interval's system record.
    pub system: Option<&'a SystemRecord>,
    /// The latest interval diagnosed, a device each.
    pub verdicts: &'a [DeviceDiagnosis],
    /// With `--trace`, each device's traced times since monitor started.
    pub traced: &'a [TracedView<'a>],
}

/// One device's traced times.
pub struct TracedView<'a> {
    /// The device's name.
    pub device: &'a str,
    /// Device time (issue → completion) of each traced request.
    pub device_time: &'a Histogram,
    /// OS queue time (accounting start → issue) of each request whose start was traced.
    pub os_queue: &'a Histogram,
}

/// Cumulative buckets at edges in ns ([`Histogram::edges`]) with their edges in seconds.
fn in_seconds(edges: &[(u64, u64)]) -> Vec<(f64, u64)> {
    (edges.iter())
        .map(|&(edge, n)| (edge as f64 / 1e9, n))
        .collect()
}

/// The traced times as histogram families, a device each.
fn traced(devices: &[TracedView]) -> Vec<Family> {
    let mut device_time = Family::new(
        "halfpower_trace_device_seconds",
        MetricType::Histogram,
        "Device time of each traced request (block_rq_issue to block_rq_complete) since monitor started (--trace).",
    );
    let mut os_queue = Family::new(
        "halfpower_trace_os_queue_seconds",
        MetricType::Histogram,
        "OS queue time of each traced request (block_io_start to block_rq_issue) since monitor started (--trace).",
    );
    for d in devices {
        for (f, h) in [
            (&mut device_time, d.device_time),
            (&mut os_queue, d.os_queue),
        ] {
            let sum = h.sum_ns() as f64 / 1e9;
            f.push_histogram(device(d.device), &in_seconds(&h.edges(4)), sum, h.count());
        }
    }
    vec![device_time, os_queue]
}

fn device(name: &str) -> Vec<(&'static str, String)> {
    vec![("device", name.to_string())]
}

/// The counter families from the kernel's counters since the start.
fn counters(totals: &[DiskStat]) -> Vec<Family> {
    type Get = fn(&DiskStat) -> f64;
    let table: [(&'static str, &'static str, Get); 12] = [
        (
            "halfpower_device_reads_total",
            "Reads completed (/proc/diskstats, since monitor started).",
            |d| d.reads as f64,
        ),
        (
            "halfpower_device_writes_total",
            "Writes completed (/proc/diskstats, since monitor started).",
            |d| d.writes as f64,
        ),
        (
            "halfpower_device_read_bytes_total",
            "Bytes read: sectors read x 512 (/proc/diskstats, since monitor started).",
            |d| d.read_sectors as f64 * 512.0,
        ),
        (
            "halfpower_device_written_bytes_total",
            "Bytes written: sectors written x 512 (/proc/diskstats, since monitor started).",
            |d| d.write_sectors as f64 * 512.0,
        ),
        (
            "halfpower_device_read_merges_total",
            "Reads merged (/proc/diskstats, since monitor started).",
            |d| d.read_merges as f64,
        ),
        (
            "halfpower_device_write_merges_total",
            "Writes merged (/proc/diskstats, since monitor started).",
            |d| d.write_merges as f64,
        ),
        (
            "halfpower_device_discards_total",
            "Discards completed (/proc/diskstats, since monitor started).",
            |d| d.discards as f64,
        ),
        (
            "halfpower_device_flushes_total",
            "Flushes completed (/proc/diskstats, since monitor started).",
            |d| d.flushes as f64,
        ),
        (
            "halfpower_device_read_time_seconds_total",
            "Time spent by all reads (/proc/diskstats, since monitor started).",
            |d| d.read_ms as f64 / 1e3,
        ),
        (
            "halfpower_device_write_time_seconds_total",
            "Time spent by all writes (/proc/diskstats, since monitor started).",
            |d| d.write_ms as f64 / 1e3,
        ),
        (
            "halfpower_device_io_time_seconds_total",
            "Time with at least one request in flight: busy time (/proc/diskstats io_ticks, since monitor started).",
            |d| d.io_ticks_ms as f64 / 1e3,
        ),
        (
            "halfpower_device_weighted_io_time_seconds_total",
            "Requests in flight integrated over time (/proc/diskstats time_in_queue, since monitor started).",
            |d| d.time_in_queue_ms as f64 / 1e3,
        ),
    ];
    table
        .iter()
        .map(|(name, help, get)| {
            let mut f = Family::new(name, MetricType::Counter, help);
            for d in totals {
                f.push(device(&d.name), get(d));
            }
            f
        })
        .collect()
}

/// The gauge families of the latest interval's device records.
fn gauges(devices: &[DeviceRecord]) -> Vec<Family> {
    type Get = fn(&DeviceRecord) -> Option<f64>;
    let table: [(&'static str, &'static str, Get); 6] = [
        (
            "halfpower_device_service_seconds",
            "Service time per request over the latest interval (see halfpower_device_service_source).",
            |d| d.service_ms.map(|s| s / 1e3),
        ),
        (
            "halfpower_device_queue_seconds",
            "Queue time per request over the latest interval: response minus service time.",
            |d| d.queue_ms.map(|s| s / 1e3),
        ),
        (
            "halfpower_device_response_seconds",
            "Response time per request over the latest interval (reads, writes and discards).",
            |d| Some(d.response_ms / 1e3),
        ),
        (
            "halfpower_device_utilization_ratio",
            "Share of the latest interval with at least one request in flight (0-1).",
            |d| Some(d.util_pct / 100.0),
        ),
        (
            "halfpower_device_queue_size",
            "Mean number of requests in the system over the latest interval (iostat aqu-sz).",
            |d| Some(d.aqu_sz),
        ),
        (
            "halfpower_device_in_flight",
            "Requests at the driver at the end of the latest interval.",
            |d| Some(d.inflight as f64),
        ),
    ];
    let mut out: Vec<Family> = table
        .iter()
        .map(|(name, help, get)| {
            let mut f = Family::new(name, MetricType::Gauge, help);
            for d in devices {
                if let Some(v) = get(d) {
                    f.push(device(&d.device), v);
                }
            }
            f
        })
        .collect();
    let mut interval = Family::new(
        "halfpower_interval_seconds",
        MetricType::Gauge,
        "Length of the latest interval.",
    );
    if let Some(d) = devices.first() {
        interval.push(vec![], d.interval_s);
    }
    out.push(interval);
    let mut source = Family::new(
        "halfpower_device_service_source",
        MetricType::Gauge,
        "How the service time was had (1 for the method named by the label).",
    );
    for d in devices {
        let mut l = device(&d.device);
        l.push(("method", label_of(&d.service_source)));
        source.push(l, 1.0);
    }
    out.push(source);
    out
}

/// The verdict of each device over the latest interval, 1 with the verdict and its rule (the
/// first finding behind it; `none` for a verdict without one) as labels.
fn verdicts(devices: &[DeviceDiagnosis]) -> Family {
    let mut f = Family::new(
        "halfpower_device_verdict",
        MetricType::Gauge,
        "The latest interval's verdict (003, 004): 1 for the verdict and rule named by the labels.",
    );
    for d in devices {
        let rule = (d.evidence.first())
            .and_then(|e| serde_json::to_value(&e.finding).ok())
            .and_then(|v| v["kind"].as_str().map(str::to_string))
            .unwrap_or_else(|| "none".into());
        let mut l = device(&d.device);
        l.push(("verdict", d.verdict.name().to_string()));
        l.push(("rule", rule));
        f.push(l, 1.0);
    }
    f
}

/// The host over the latest interval.
fn host(s: &SystemRecord) -> Vec<Family> {
    let gauge = |name, help, v: Option<f64>| {
        let mut f = Family::new(name, MetricType::Gauge, help);
        if let Some(v) = v {
            f.push(vec![], v);
        }
        f
    };
    vec![
        gauge(
            "halfpower_host_steal_ratio",
            "Share of all CPUs' time stolen by the hypervisor over the latest interval (0-1).",
            Some(s.cpu_steal_pct / 100.0),
        ),
        gauge(
            "halfpower_host_cpu_busy_ratio",
            "Share of all CPUs' time busy (not idle, not waiting for I/O) over the latest interval (0-1).",
            Some((100.0 - s.cpu_idle_pct - s.cpu_iowait_pct) / 100.0),
        ),
        gauge(
            "halfpower_host_cpu_pressure_ratio",
            "PSI cpu some: share of the latest interval with at least one runnable task waiting for a CPU (0-1).",
            s.psi_cpu_some_pct.map(|p| p / 100.0),
        ),
        gauge(
            "halfpower_host_io_pressure_ratio",
            "PSI io some: share of the latest interval with at least one task stalled on I/O (0-1).",
            s.psi_io_some_pct.map(|p| p / 100.0),
        ),
        gauge(
            "halfpower_host_memory_pressure_ratio",
            "PSI memory some over the latest interval (0-1).",
            s.psi_memory_some_pct.map(|p| p / 100.0),
        ),
        gauge(
            "halfpower_host_probe_stalled_seconds",
            "Time the host probe (a thread sleeping to 1-ms deadlines) could not run in the latest interval.",
            s.host_stalled_ms.map(|m| m / 1e3),
        ),
        gauge(
            "halfpower_host_probe_late_max_seconds",
            "The host probe's latest wake-up in the latest interval, how late.",
            s.probe_late_max_us.map(|u| u / 1e6),
        ),
    ]
}

/// `run --listen`'s families: per target (and `all`) the measured window's I/Os and bytes so
/// far, the latency histogram at halfpower's bucket edges (four to a power of two), the latest second's
/// rates; with `--steady` the rule's latest look; the changes found so far. Counts grow a
/// second at a time, as each second ends for every worker.
pub fn run_families(
    live: &crate::stats::series::LiveSeries,
    targets: &[String],
    changes: &[Change],
) -> Vec<Family> {
    let mut ios = Family::new(
        "halfpower_run_ios_total",
        MetricType::Counter,
        "I/Os completed in the measured window so far (warm-up excluded), by the seconds finished.",
    );
    let mut bytes = Family::new(
        "halfpower_run_bytes_total",
        MetricType::Counter,
        "Bytes moved in the measured window so far (warm-up excluded), by the seconds finished.",
    );
    let all = live
        .per_target
        .iter()
        .fold((0, 0), |a, x| (a.0 + x.0, a.1 + x.1));
    let named = (targets.iter().map(String::as_str)).zip(live.per_target.iter().copied());
    for (name, (n, b)) in std::iter::once(("all", all)).chain(named) {
        ios.push(vec![("target", name.to_string())], n as f64);
        bytes.push(vec![("target", name.to_string())], b as f64);
    }
    let mut lat = Family::new(
        "halfpower_run_latency_seconds",
        MetricType::Histogram,
        "Latency of each I/O in the measured window so far, at halfpower's bucket edges (four to a power of two from 256 ns).",
    );
    lat.push_histogram(
        vec![],
        &in_seconds(&live.edges),
        live.sum_ns / 1e9,
        live.count,
    );
    let mut iops = Family::new(
        "halfpower_run_iops",
        MetricType::Gauge,
        "I/Os per second in the latest finished second.",
    );
    let mut bps = Family::new(
        "halfpower_run_bytes_per_second",
        MetricType::Gauge,
        "Bytes per second in the latest finished second.",
    );
    if let Some((_, n, b)) = live.last {
        iops.push(vec![], n as f64);
        bps.push(vec![], b as f64);
    }
    let mut out = vec![ios, bytes, lat, iops, bps];
    if let Some(s) = &live.steady {
        out.extend(steady(s));
    }
    out.extend(changes_so_far(changes));
    out
}

/// The steady-state rule's latest look (`--steady`).
fn steady(s: &crate::stats::series::LiveSteady) -> Vec<Family> {
    let gauge = |name, help, v: f64| {
        let mut f = Family::new(name, MetricType::Gauge, help);
        f.push(vec![], v);
        f
    };
    vec![
        gauge(
            "halfpower_run_steady_reached",
            "1 once the steady-state rule held (the run then ends), else 0.",
            f64::from(u8::from(s.reached)),
        ),
        gauge(
            "halfpower_run_steady_look",
            "The steady-state rule's latest look (1-based).",
            s.look as f64,
        ),
        gauge(
            "halfpower_run_steady_bytes_per_second",
            "Bytes per second over the latest look's windows.",
            s.bytes_per_s,
        ),
        gauge(
            "halfpower_run_steady_interval_ratio",
            "The latest look's 95 % interval half-width, as a share of its bytes per second.",
            s.half_pct / 100.0,
        ),
    ]
}

/// The changes found so far, per figure: how many, and the latest's second and ratio.
fn changes_so_far(changes: &[Change]) -> Vec<Family> {
    let mut count = Family::new(
        "halfpower_run_changes",
        MetricType::Gauge,
        "Changes found so far in the run's per-second series (within its latest hour), by figure.",
    );
    let mut at = Family::new(
        "halfpower_run_last_change_seconds",
        MetricType::Gauge,
        "When the latest change came, seconds into the measured window.",
    );
    let mut ratio = Family::new(
        "halfpower_run_last_change_ratio",
        MetricType::Gauge,
        "The latest change's level after over its level before.",
    );
    for figure in [ChangeFigure::Iops, ChangeFigure::P99Us] {
        let label = || vec![("figure", label_of(&figure))];
        let of: Vec<&Change> = changes.iter().filter(|c| c.figure == figure).collect();
        count.push(label(), of.len() as f64);
        if let Some(c) = of.last() {
            at.push(label(), c.at_s);
            let mut l = label();
            l.push(("cause", c.cause.as_ref().map_or("none".into(), label_of)));
            ratio.push(l, c.after / c.before);
        }
    }
    vec![count, at, ratio]
}

/// Every family of one scrape.
pub fn monitor_families(v: &MonitorView) -> Vec<Family> {
    let mut out = counters(v.totals);
    out.extend(gauges(v.devices));
    out.push(verdicts(v.verdicts));
    if !v.traced.is_empty() {
        out.extend(traced(v.traced));
    }
    if let Some(s) = v.system {
        out.extend(host(s));
    }
    out
}
