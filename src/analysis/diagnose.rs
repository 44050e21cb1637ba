//! Diagnosis of logs: splits each device's response time into service and queue time where the
//! device model allows it, and applies the seeds' rules (003, 004) to give one verdict per
//! device and interval and for the whole log, with the findings behind each verdict.

use super::device::{
    Classification, ServiceInputs, busy_measurable, classify_log, one_at_a_time, service_method,
};
use super::expect;
use super::fit::least_squares;
use super::queueing::{mm1_queue_ms, queue_time_ms, utilization_law_ms};
use super::rules::{self, Figures, judge};
use crate::model::change::Change;
use crate::model::diagnosis::{
    DIAGNOSE_SCHEMA_VERSION, DeviceDiagnosis, Diagnosis, Evidence, ExpectationSource,
    ExpectedService, Finding, IntervalDiagnosis, ProfileApplied, ProfileMatch, Projection,
    SystemSummary, Verdict,
};
use crate::model::log::{DiskInterval, Log, SystemInterval};
use crate::model::profile::Profile;
use crate::model::{DeviceClass, Kind, ServiceMethod, Serving};
use std::collections::BTreeMap;

/// Share of active intervals a verdict must hold in to become the whole log's verdict.
pub const VERDICT_SHARE: f64 = 0.10;

fn max_opt(it: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    it.flatten()
        .fold(None, |m, v| Some(m.map_or(v, |m: f64| m.max(v))))
}

/// A `--profile` and the device it applies to.
#[derive(Clone, Debug)]
pub struct ProfileFor<'a> {
    /// The profile.
    pub profile: &'a Profile,
    /// The names a log may give that device.
    pub devices: Vec<String>,
    /// How the device was decided.
    pub how: ProfileMatch,
}

/// The devices of `logs`, each once, in name order.
pub fn log_devices(logs: &[Log]) -> Vec<String> {
    let mut names: Vec<String> = logs
        .iter()
        .flat_map(|l| l.disks.iter().map(|d| d.device.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Which device of `logs` `profile` applies to: the one the user `named`, else the disk the
/// profile was measured on, else the logs' only device. `Err` with the logs' devices when the
/// profile names no disk and the logs hold several: nothing says which one it describes.
pub fn profile_for<'a>(
    profile: &'a Profile,
    named: Option<&str>,
    logs: &[Log],
) -> Result<ProfileFor<'a>, Vec<String>> {
    let (devices, how) = match named {
        Some(n) => (vec![n.to_string()], ProfileMatch::Named),
        None => (profile.measured_on(), ProfileMatch::Measured),
    };
    if !devices.is_empty() {
        return Ok(ProfileFor {
            profile,
            devices,
            how,
        });
    }
    match log_devices(logs).as_slice() {
        [only] => Ok(ProfileFor {
            profile,
            devices: vec![only.clone()],
            how: ProfileMatch::OnlyDevice,
        }),
        several => Err(several.to_vec()),
    }
}

/// Diagnoses every device in `logs`. A profile sets the expectation of the device it applies
/// to; every other device is judged by its class.
pub fn diagnose(logs: &[Log], profile: Option<&ProfileFor>) -> Diagnosis {
    let mut by_device: BTreeMap<&str, Vec<(&DiskInterval, Option<&SystemInterval>)>> =
        BTreeMap::new();
    let mut all_sys = Vec::new();
    for log in logs {
        // Each disk with its own host's system interval (`host:disk` with `host:_system` in a
        // log of several hosts).
        let sys: BTreeMap<(Option<&str>, &str), &SystemInterval> = (log.system.iter())
            .map(|s| ((s.host.as_deref(), s.time.as_str()), s))
            .collect();
        all_sys.extend(log.system.iter());
        for iv in &log.disks {
            let host = iv.device.split_once(':').map(|(h, _)| h);
            let of = |h| sys.get(&(h, iv.time.as_str())).copied();
            by_device
                .entry(iv.device.as_str())
                .or_default()
                .push((iv, of(host).or_else(|| of(None))));
        }
    }
    let applies = |name: &str| {
        profile
            .filter(|p| p.devices.iter().any(|d| d == name))
            .map(|p| p.profile)
    };
    let applied = profile.map(|p| ProfileApplied {
        devices: p.devices.clone(),
        how: p.how,
        found: by_device.keys().any(|n| p.devices.iter().any(|d| d == n)),
    });
    let devices = by_device
        .into_iter()
        .map(|(name, ivs)| diagnose_device(name, &ivs, applies(name)))
        .collect();
    Diagnosis {
        schema_version: DIAGNOSE_SCHEMA_VERSION,
        kind: Kind::Diagnose,
        inputs: logs.iter().map(Log::info).collect(),
        profile: applied,
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
    class: DeviceClass,
    iv: &DiskInterval,
) -> ExpectedService {
    let kib = iv.request_bytes().unwrap_or(4096.0) / 1024.0;
    let (ms, factor, source) =
        match profile.and_then(|p| expect::profile_ms(p, iv.read_share(), kib)) {
            Some(ms) => (ms, rules::PROFILE_FACTOR, ExpectationSource::Profile),
            None => (
                expect::typical_ms(class, kib),
                rules::TYPICAL_FACTOR,
                ExpectationSource::Class,
            ),
        };
    ExpectedService {
        ms,
        factor,
        source,
        class,
        request_kib: kib,
    }
}

/// The service time of one interval and how it was obtained. A service time the log carries
/// (a monitor log) is kept, unless it is no time at all (zero: an in-flight estimate whose
/// samples caught nothing), or came from U/X over too little busy time to count, or from U/X on
/// a device the data shows serving in parallel in an interval with more than one request at a
/// time (monitor logs before schema version 2 could record that). Otherwise the method is
/// chosen by `analysis::device`.
fn service(iv: &DiskInterval, c: &Classification) -> (Option<f64>, ServiceMethod) {
    let busy = iv.util_pct.map(|u| u / 100.0);
    let single = busy
        .zip(iv.queue_length)
        .is_some_and(|(u, n)| one_at_a_time(u, n));
    let measurable = busy.is_some_and(|u| busy_measurable(u, iv.interval_s.unwrap_or(1.0)));
    let logged = iv.service_source.unwrap_or(ServiceMethod::None);
    let discard = logged == ServiceMethod::UtilizationLaw
        && (!measurable || (c.serving != Serving::Serial && !single));
    let kept = iv.service_ms.filter(|s| s.is_finite() && *s > 0.0);
    if let (Some(s), false) = (kept, discard || logged == ServiceMethod::None) {
        return (Some(s), logged);
    }
    let inputs = ServiceInputs {
        one_at_a_time: single,
        busy_measurable: measurable,
        ..Default::default()
    };
    match service_method(c.serving, inputs) {
        ServiceMethod::UtilizationLaw => {
            match busy.and_then(|u| utilization_law_ms(u, iv.iops())) {
                Some(s) if s > 0.0 => (Some(s), ServiceMethod::UtilizationLaw),
                _ => (None, ServiceMethod::None),
            }
        }
        _ => (None, ServiceMethod::None),
    }
}

fn figures(
    iv: &DiskInterval,
    sys: Option<&SystemInterval>,
    c: &Classification,
    profile: Option<&Profile>,
) -> (Figures, ServiceMethod) {
    let (service, method) = service(iv, c);
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
            serving: c.serving,
            paging_s: sys.and_then(|s| s.paging_s),
            cpu_pct: sys.and_then(|s| s.cpu_pct),
            interrupt_pct: sys.and_then(|s| s.interrupt_pct),
            interval_ios: iv.interval_s.map(|t| t * iv.iops()),
            expected_ms: Some(expectation(profile, c.class, iv)),
        },
        method,
    )
}

/// How response time grows with the number in the system over a log's active intervals, for a
/// device without a service time: the least-squares line R = a + b·N. When it fits (R² ≥ 0.9
/// over at least 4 intervals whose N spans a factor of 2), 1/b is the completion rate the
/// device holds however many wait (Little's law at saturation).
fn growth(all: &[(f64, Figures)]) -> Option<Evidence> {
    let pts: Vec<(f64, f64)> = all
        .iter()
        .filter(|(_, f)| f.iops >= 0.5)
        .filter_map(|(_, f)| Some((f.queue_length?, f.response_ms?)))
        .collect();
    let (lo, hi) = pts
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), p| (l.min(p.0), h.max(p.0)));
    if pts.len() < 4 || hi < 2.0 * lo.max(0.5) {
        return None;
    }
    let line = least_squares(&pts)?;
    if line.r2 < 0.9 || line.slope <= 0.0 {
        return None;
    }
    Some(Evidence::new(Finding::ResponseGrowth {
        slope_ms: line.slope,
        intercept_ms: line.intercept,
        r2: line.r2,
        queue_min: lo,
        queue_max: hi,
        completions_per_s: 1000.0 / line.slope,
    }))
}

/// What the intervals of one device came to: each interval's diagnosis, its length and
/// figures, and how often each method gave the service time of an interval with I/O.
struct Judged {
    /// One diagnosis per interval, in log order.
    intervals: Vec<IntervalDiagnosis>,
    /// Each interval's length (s, 1 when the log does not say) and figures.
    all: Vec<(f64, Figures)>,
    /// Intervals with I/O per service-time method.
    methods: BTreeMap<ServiceMethod, usize>,
}

/// The class and service of device `name` from what its intervals say and show.
fn classify_device(name: &str, ivs: &[(&DiskInterval, Option<&SystemInterval>)]) -> Classification {
    let said_class = ivs.iter().find_map(|(iv, _)| iv.class);
    let said_serving = ivs
        .iter()
        .map(|(iv, _)| iv.serving)
        .find(|s| *s != Serving::Unknown)
        .unwrap_or_default();
    let disks: Vec<&DiskInterval> = ivs.iter().map(|(iv, _)| *iv).collect();
    classify_log(name, said_class, said_serving, &disks)
}

/// Judges each interval of a device classified as `c`.
fn judge_intervals(
    ivs: &[(&DiskInterval, Option<&SystemInterval>)],
    c: &Classification,
    profile: Option<&Profile>,
) -> Judged {
    let mut judged = Judged {
        intervals: Vec::new(),
        all: Vec::new(),
        methods: BTreeMap::new(),
    };
    for (iv, sys) in ivs {
        let (f, method) = figures(iv, *sys, c, profile);
        let (verdict, evidence) = judge(&f);
        if f.iops > 0.0 {
            *judged.methods.entry(method).or_default() += 1;
        }
        judged.intervals.push(IntervalDiagnosis {
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
        judged.all.push((iv.interval_s.unwrap_or(1.0), f));
    }
    judged
}

/// The mean of a figure over the intervals that have it, weighted by their I/Os (`by_io`) or
/// by their length.
fn weighted_mean(
    all: &[(f64, Figures)],
    get: impl Fn(&Figures) -> Option<f64>,
    by_io: bool,
) -> Option<f64> {
    let (mut num, mut den) = (0.0, 0.0);
    for (dt, f) in all {
        if let Some(v) = get(f) {
            let w = if by_io { f.iops * dt } else { *dt };
            num += v * w;
            den += w;
        }
    }
    (den > 0.0).then(|| num / den)
}

/// The I/O rate over the whole log (time-weighted); 0 over no time.
fn mean_iops(all: &[(f64, Figures)]) -> f64 {
    let t: f64 = all.iter().map(|(t, _)| t).sum();
    if t > 0.0 {
        all.iter().map(|(dt, f)| f.iops * dt).sum::<f64>() / t
    } else {
        0.0
    }
}

/// The whole log's verdict from its active intervals: the first of the problems that holds in
/// at least [`VERDICT_SHARE`] of them, else invalid when half are, else healthy (idle without
/// active intervals).
fn log_verdict(active: &[&IntervalDiagnosis]) -> Verdict {
    let share = |v: Verdict| {
        active.iter().filter(|i| i.verdict == v).count() as f64 / active.len().max(1) as f64
    };
    if active.is_empty() {
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
    }
}

/// The evidence for the log's `verdict`: how many active intervals hold it, and the evidence
/// of the worst of them (longest queue, else response time).
fn verdict_evidence(active: &[&IntervalDiagnosis], verdict: Verdict) -> Vec<Evidence> {
    let mut evidence = Vec::new();
    let n = active.iter().filter(|i| i.verdict == verdict).count();
    if verdict != Verdict::Idle {
        evidence.push(Evidence::new(Finding::Intervals {
            count: n,
            active: active.len(),
            verdict,
        }));
    }
    if let Some(worst) = active
        .iter()
        .filter(|i| i.verdict == verdict)
        .max_by(|a, b| {
            let key = |i: &IntervalDiagnosis| i.queue_ms.or(i.response_ms).unwrap_or(0.0);
            key(a).total_cmp(&key(b))
        })
    {
        for e in &worst.evidence {
            evidence.push(Evidence {
                at: Some(worst.time.clone()),
                finding: e.finding.clone(),
            });
        }
    }
    evidence
}

/// Queue and response time at 1, 1.1, 1.25 and 1.5 times the load, by M/M/1. M/M/1 describes
/// one server: only a serial device with a service time, a utilization and I/O gets one.
fn projection(
    serving: Serving,
    service: Option<f64>,
    util: Option<f64>,
    iops: f64,
) -> Option<Vec<Projection>> {
    match (serving, service, util) {
        (Serving::Serial, Some(s), Some(u)) if iops > 0.0 => Some(
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
    }
}

/// The changes in a device's intervals: its I/Os per second, its response time (when every
/// interval has one) and its own time per I/O (Little's law: queue length over I/Os per
/// second), found per interval and put in seconds by the intervals' median length.
pub fn device_changes(ivs: &[(&DiskInterval, Option<&SystemInterval>)]) -> Vec<Change> {
    use super::changes::{Series, changes, median, time_per_io_us};
    let iops: Vec<f64> = ivs.iter().map(|(iv, _)| iv.r_s + iv.w_s).collect();
    let response: Option<Vec<f64>> = ivs.iter().map(|(iv, _)| iv.response_ms).collect();
    let device_us: Vec<f64> = ivs
        .iter()
        .zip(&iops)
        .map(|((iv, _), &n)| iv.queue_length.map_or(f64::NAN, |q| time_per_io_us(q, n)))
        .collect();
    let lengths: Vec<f64> = ivs.iter().filter_map(|(iv, _)| iv.interval_s).collect();
    let step = Some(median(&lengths)).filter(|s| *s > 0.0).unwrap_or(1.0);
    let mut found = changes(&Series {
        iops: &iops,
        latency: response
            .as_deref()
            .map(|r| (crate::model::change::ChangeFigure::ResponseMs, r)),
        device_us: Some(&device_us),
        latency_us: None,
        host_late: None,
    });
    for c in &mut found {
        c.at_s *= step;
        c.evidence.seconds_before *= step;
        c.evidence.seconds_after *= step;
    }
    found
}

/// Diagnoses one device from its intervals (each with the system interval of its time).
fn diagnose_device(
    name: &str,
    ivs: &[(&DiskInterval, Option<&SystemInterval>)],
    profile: Option<&Profile>,
) -> DeviceDiagnosis {
    let c = classify_device(name, ivs);
    let Judged {
        intervals,
        all,
        methods,
    } = judge_intervals(ivs, &c, profile);
    // Whole-log figures: time-weighted rates, I/O-weighted times.
    let iops = mean_iops(&all);
    let mut counts: BTreeMap<Verdict, usize> = BTreeMap::new();
    for i in &intervals {
        *counts.entry(i.verdict).or_default() += 1;
    }
    let active: Vec<&IntervalDiagnosis> = intervals
        .iter()
        .filter(|i| i.verdict != Verdict::Idle)
        .collect();
    let verdict = log_verdict(&active);
    let mut evidence = verdict_evidence(&active, verdict);
    let service = weighted_mean(&all, |f| f.service_ms, true);
    if c.serving != Serving::Serial && service.is_none() && verdict != Verdict::Idle {
        evidence.extend(growth(&all));
    }
    let util = weighted_mean(&all, |f| f.util_pct, false);
    let projection = projection(c.serving, service, util, iops);
    let exp = ivs.first().map(|(iv, _)| expectation(profile, c.class, iv));
    DeviceDiagnosis {
        device: name.to_string(),
        class: c.class,
        serving: c.serving,
        class_evidence: c.evidence,
        verdict,
        utilization_pct: util,
        iops,
        response_ms: weighted_mean(&all, |f| f.response_ms, true),
        service_ms: service,
        queue_ms: weighted_mean(&all, |f| f.queue_ms, true),
        queue_length: weighted_mean(&all, |f| f.queue_length, false),
        service_source: methods
            .into_iter()
            .max_by_key(|(_, c)| *c)
            .map_or(ServiceMethod::None, |(s, _)| s),
        expected_service_ms: exp.as_ref().map(|e| e.ms),
        expectation_source: exp.as_ref().map_or(ExpectationSource::Class, |e| e.source),
        expected_request_kib: exp.map(|e| e.request_kib),
        verdict_counts: counts,
        evidence,
        projection,
        changes: device_changes(ivs),
        headroom: profile.filter(|p| !p.curves.is_empty()).and_then(|p| {
            Some(super::curve::place(
                &p.curves,
                super::curve::busiest(ivs.iter().map(|(iv, _)| *iv))?,
            ))
        }),
        intervals,
    }
}

#[cfg(test)]
#[path = "diagnose_tests.rs"]
mod tests;
