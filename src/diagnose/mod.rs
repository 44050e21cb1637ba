//! `halfpower diagnose`: reads monitor logs, iostat text or perfmon CSV, splits each device's
//! response time into service and queue time, and applies the seeds' rules (003, 004) to give
//! one verdict per device and interval and for the whole log, with evidence and advice.

pub mod iostat;
pub mod log;
pub mod monitor_log;
pub mod perfmon;
pub mod profile;
pub mod rules;
pub mod timefmt;

use crate::analysis::queueing::{mm1_queue_ms, queue_time_ms, utilization_law_ms};
use log::{DiskInterval, InputInfo, Log, SystemInterval};
use profile::Profile;
use rules::{Evidence, Figures, Verdict, judge};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the diagnose JSON layout.
pub const DIAGNOSE_SCHEMA_VERSION: u32 = 1;

/// Share of active intervals a verdict must hold in to become the whole log's verdict.
pub const VERDICT_SHARE: f64 = 0.10;

/// Recognizes the format from the text and parses it; `Err` says why the text is not a log.
pub fn parse_log(path: &str, text: &str) -> Result<Log, String> {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if first.starts_with("\"(PDH-CSV") {
        perfmon::parse(path, text)
    } else if first.starts_with("schema_version,") {
        Ok(monitor_log::parse_csv(path, text))
    } else if first.starts_with('{') {
        Ok(monitor_log::parse_jsonl(path, text))
    } else if first.starts_with("Linux ")
        || text
            .lines()
            .any(|l| l.starts_with("Device") && l.contains("r/s"))
    {
        Ok(iostat::parse(path, text))
    } else {
        let shown: String = first.chars().take(40).collect();
        Err(format!(
            "not a monitor log (CSV or JSON lines), `iostat -x -t` output or perfmon CSV; it starts with '{shown}'"
        ))
    }
}

/// The class of a device whose log does not say.
pub fn infer_class(name: &str) -> String {
    if name.starts_with("PhysicalDisk(") || name.starts_with("LogicalDisk(") {
        "unknown".into()
    } else if name.starts_with("sd") || name.starts_with("hd") {
        "disk".into()
    } else {
        crate::monitor::derive::device_class(name, false, 0).into()
    }
}

/// Whether the Utilization Law may give the service time: the log says the device is serial,
/// or its class serves one request at a time as far as we know (disks of unknown kind are
/// taken as the seeds take them).
fn serial(iv: &DiskInterval, class: &str) -> bool {
    iv.serial
        .unwrap_or(matches!(class, "hdd" | "disk" | "unknown"))
}

/// One interval's diagnosis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IntervalDiagnosis {
    /// End of the interval.
    pub time: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Utilization, %.
    pub utilization_pct: Option<f64>,
    /// I/Os per second.
    pub iops: f64,
    /// Response time, ms.
    pub response_ms: Option<f64>,
    /// Service time, ms.
    pub service_ms: Option<f64>,
    /// Queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// The figures behind the verdict.
    pub evidence: Vec<Evidence>,
}

/// Queue time at a higher load by M/M/1.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Projection {
    /// Load relative to the observed (1.0 = as observed).
    pub load_factor: f64,
    /// Utilization at that load, %.
    pub utilization_pct: f64,
    /// Queue time, ms (absent at or beyond saturation).
    pub queue_ms: Option<f64>,
    /// Response time = service + queue, ms.
    pub response_ms: Option<f64>,
}

/// One device over the whole input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceDiagnosis {
    /// Device or instance name.
    pub device: String,
    /// Device class.
    pub class: String,
    /// The whole log's verdict.
    pub verdict: Verdict,
    /// The rule and its source.
    pub rule: String,
    /// Mean utilization, % (time-weighted).
    pub utilization_pct: Option<f64>,
    /// Mean I/Os per second.
    pub iops: f64,
    /// Mean response time, ms (I/O-weighted).
    pub response_ms: Option<f64>,
    /// Mean service time, ms (I/O-weighted).
    pub service_ms: Option<f64>,
    /// Mean queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// How the service time was obtained.
    pub service_source: String,
    /// Expected service time, ms, and where it comes from.
    pub expected_service_ms: Option<f64>,
    /// `profile` or `typical for CLASS`.
    pub expectation: Option<String>,
    /// Intervals per verdict.
    pub verdict_counts: BTreeMap<String, usize>,
    /// The figures behind the verdict.
    pub evidence: Vec<Evidence>,
    /// Strategies that address it.
    pub advice: Vec<String>,
    /// M/M/1 queue time at more load (serial devices only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<Vec<Projection>>,
    /// A note on the projection's validity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_note: Option<String>,
    /// Every interval.
    pub intervals: Vec<IntervalDiagnosis>,
}

/// System figures over the whole input.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SystemSummary {
    /// System intervals read.
    pub intervals: usize,
    /// Highest hard-paging rate, pages/s.
    pub paging_s_max: Option<f64>,
    /// Intervals with hard paging above 5 pages/s.
    pub paging_intervals: usize,
    /// Highest processor busy, %.
    pub cpu_pct_max: Option<f64>,
    /// Highest interrupt time, %.
    pub interrupt_pct_max: Option<f64>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Layout version.
    pub schema_version: u32,
    /// Always `diagnose`.
    pub kind: String,
    /// The files read.
    pub inputs: Vec<InputInfo>,
    /// One entry per device.
    pub devices: Vec<DeviceDiagnosis>,
    /// The system.
    pub system: SystemSummary,
}

fn max_opt(it: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    it.flatten()
        .fold(None, |m, v| Some(m.map_or(v, |m: f64| m.max(v))))
}

/// Diagnoses every device in `logs`.
pub fn diagnose(logs: &[Log], profile: Option<&Profile>) -> Diagnosis {
    let mut by_device: BTreeMap<&str, Vec<(&DiskInterval, Option<&SystemInterval>)>> =
        BTreeMap::new();
    let mut all_sys = Vec::new();
    for log in logs {
        let sys: BTreeMap<&str, &SystemInterval> =
            log.system.iter().map(|s| (s.time.as_str(), s)).collect();
        all_sys.extend(log.system.iter());
        for iv in &log.disks {
            by_device
                .entry(iv.device.as_str())
                .or_default()
                .push((iv, sys.get(iv.time.as_str()).copied()));
        }
    }
    let devices = by_device
        .into_iter()
        .map(|(name, ivs)| diagnose_device(name, &ivs, profile))
        .collect();
    Diagnosis {
        schema_version: DIAGNOSE_SCHEMA_VERSION,
        kind: "diagnose".into(),
        inputs: logs.iter().map(Log::info).collect(),
        devices,
        system: SystemSummary {
            intervals: all_sys.len(),
            paging_s_max: max_opt(all_sys.iter().map(|s| s.paging_s)),
            paging_intervals: all_sys
                .iter()
                .filter(|s| s.paging_s.is_some_and(|p| p > rules::PAGING_PER_S))
                .count(),
            cpu_pct_max: max_opt(all_sys.iter().map(|s| s.cpu_pct)),
            interrupt_pct_max: max_opt(all_sys.iter().map(|s| s.interrupt_pct)),
        },
    }
}

fn expectation(
    profile: Option<&Profile>,
    class: &str,
    iv: &DiskInterval,
) -> Option<(f64, f64, String)> {
    let kib = iv.request_bytes().unwrap_or(4096.0) / 1024.0;
    match profile.and_then(|p| p.expected_ms(iv.read_share(), kib)) {
        Some(e) => Some((
            e,
            rules::PROFILE_FACTOR,
            format!("profile, {kib:.0} KiB requests"),
        )),
        None => Some((
            profile::typical_ms(class, kib),
            rules::TYPICAL_FACTOR,
            format!("typical for {class}, {kib:.0} KiB requests"),
        )),
    }
}

fn figures(
    iv: &DiskInterval,
    sys: Option<&SystemInterval>,
    class: &str,
    profile: Option<&Profile>,
) -> (Figures, String) {
    let serial = serial(iv, class);
    let (service, source) = match (iv.service_ms, &iv.service_source) {
        (Some(s), Some(src)) => (Some(s), src.clone()),
        (Some(s), None) => (Some(s), "log".to_string()),
        (None, _) if serial => (
            iv.util_pct
                .and_then(|u| utilization_law_ms(u / 100.0, iv.iops())),
            "utilization-law".to_string(),
        ),
        (None, _) => (None, "none".to_string()),
    };
    let queue = match (iv.response_ms, service) {
        (Some(r), Some(s)) => Some(queue_time_ms(r, s)),
        _ => None,
    };
    (
        Figures {
            iops: iv.iops(),
            util_pct: iv.util_pct,
            response_ms: iv.response_ms,
            service_ms: service,
            queue_ms: queue,
            queue_length: iv.queue_length,
            disks: iv.disks,
            serial,
            paging_s: sys.and_then(|s| s.paging_s),
            cpu_pct: sys.and_then(|s| s.cpu_pct),
            interrupt_pct: sys.and_then(|s| s.interrupt_pct),
            interval_ios: iv.interval_s.map(|t| t * iv.iops()),
            expected_ms: expectation(profile, class, iv),
        },
        source,
    )
}

fn diagnose_device(
    name: &str,
    ivs: &[(&DiskInterval, Option<&SystemInterval>)],
    profile: Option<&Profile>,
) -> DeviceDiagnosis {
    let class = ivs
        .iter()
        .find_map(|(iv, _)| iv.class.clone())
        .unwrap_or_else(|| infer_class(name));
    let mut intervals = Vec::new();
    let mut all = Vec::new();
    let mut sources: BTreeMap<String, usize> = BTreeMap::new();
    for (iv, sys) in ivs {
        let (f, source) = figures(iv, *sys, &class, profile);
        let (verdict, evidence) = judge(&f);
        if f.iops > 0.0 {
            *sources.entry(source).or_default() += 1;
        }
        intervals.push(IntervalDiagnosis {
            time: iv.time.clone(),
            verdict,
            utilization_pct: f.util_pct,
            iops: f.iops,
            response_ms: f.response_ms,
            service_ms: f.service_ms,
            queue_ms: f.queue_ms,
            queue_length: f.queue_length,
            evidence,
        });
        all.push((iv.interval_s.unwrap_or(1.0), f));
    }
    // Whole-log figures: time-weighted rates, I/O-weighted times.
    let t: f64 = all.iter().map(|(t, _)| t).sum();
    let wmean = |get: &dyn Fn(&Figures) -> Option<f64>, by_io: bool| -> Option<f64> {
        let (mut num, mut den) = (0.0, 0.0);
        for (dt, f) in &all {
            if let Some(v) = get(f) {
                let w = if by_io { f.iops * dt } else { *dt };
                num += v * w;
                den += w;
            }
        }
        (den > 0.0).then(|| num / den)
    };
    let iops = if t > 0.0 {
        all.iter().map(|(dt, f)| f.iops * dt).sum::<f64>() / t
    } else {
        0.0
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for i in &intervals {
        *counts.entry(i.verdict.name().into()).or_default() += 1;
    }
    let active: Vec<&IntervalDiagnosis> = intervals
        .iter()
        .filter(|i| i.verdict != Verdict::Idle)
        .collect();
    let share = |v: Verdict| {
        active.iter().filter(|i| i.verdict == v).count() as f64 / active.len().max(1) as f64
    };
    let verdict = if active.is_empty() {
        Verdict::Idle
    } else if let Some(v) = [
        Verdict::MemoryBound,
        Verdict::Overloaded,
        Verdict::CpuBound,
        Verdict::Slow,
    ]
    .into_iter()
    .find(|v| share(*v) >= VERDICT_SHARE)
    {
        v
    } else if share(Verdict::Invalid) >= 0.5 {
        Verdict::Invalid
    } else {
        Verdict::Healthy
    };
    let mut evidence = Vec::new();
    let n = active.iter().filter(|i| i.verdict == verdict).count();
    if verdict != Verdict::Idle {
        evidence.push(Evidence {
            figure: "intervals".into(),
            value: n as f64,
            text: format!(
                "{n} of {} active intervals are {}",
                active.len(),
                verdict.name()
            ),
        });
    }
    if let Some(worst) = active
        .iter()
        .filter(|i| i.verdict == verdict)
        .max_by(|a, b| {
            a.queue_ms
                .unwrap_or(0.0)
                .total_cmp(&b.queue_ms.unwrap_or(0.0))
        })
    {
        for e in &worst.evidence {
            evidence.push(Evidence {
                figure: e.figure.clone(),
                value: e.value,
                text: format!("at {}: {}", worst.time, e.text),
            });
        }
    }
    let service = wmean(&|f| f.service_ms, true);
    let util = wmean(&|f| f.util_pct, false);
    let is_serial = all.iter().all(|(_, f)| f.serial);
    let projection = match (is_serial, service, util) {
        (true, Some(s), Some(u)) if iops > 0.0 => Some(
            [1.0, 1.1, 1.25, 1.5]
                .into_iter()
                .map(|k| {
                    let uu = u / 100.0 * k;
                    let q = mm1_queue_ms(s, uu);
                    Projection {
                        load_factor: k,
                        utilization_pct: uu * 100.0,
                        queue_ms: q,
                        response_ms: q.map(|q| q + s),
                    }
                })
                .collect(),
        ),
        _ => None,
    };
    let first = ivs.first().map(|(iv, _)| *iv);
    let exp = first.and_then(|iv| expectation(profile, &class, iv));
    DeviceDiagnosis {
        device: name.to_string(),
        class,
        verdict,
        rule: verdict.rule().into(),
        utilization_pct: util,
        iops,
        response_ms: wmean(&|f| f.response_ms, true),
        service_ms: service,
        queue_ms: wmean(&|f| f.queue_ms, true),
        queue_length: wmean(&|f| f.queue_length, false),
        service_source: sources.into_iter().max_by_key(|(_, c)| *c).map_or("none".into(), |(s, _)| s),
        expected_service_ms: exp.as_ref().map(|e| e.0),
        expectation: exp.map(|e| e.2),
        verdict_counts: counts,
        evidence,
        advice: verdict.advice().iter().map(|a| a.to_string()).collect(),
        projection_note: projection.as_ref().map(|_| "M/M/1: valid for open arrivals only (requests arrive independently of completions); a closed workload with a fixed number of outstanding requests queues less".into()),
        projection,
        intervals,
    }
}

#[cfg(test)]
mod tests;
