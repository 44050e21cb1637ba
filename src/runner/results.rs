//! From what the workers measured to the `results` object of a run document: per target and
//! direction summaries with their latency histograms, and the first error.

use super::{Layout, Measurement, TargetMeasurement};
use crate::analysis::uncertainty::{quantile_ranks, windows};
use crate::model::cause::{EngineFallback, IoFailure};
use crate::model::policy::PolicyLimit;
use crate::model::run::Steady;
use crate::model::{ErrorSummary, Results, TargetResult};
use crate::plan::RunPlan;
use crate::stats::recorder::DirStats;
use crate::stats::summary::Ci95;
use crate::stats::summary::DirSummary;
use crate::stats::window::Rates;
use crate::storage::Target;

/// What a failed I/O returned, from its result: a negative errno, or 0 for a short transfer.
fn failure(res: i32) -> IoFailure {
    match res {
        0 => IoFailure::Short,
        e => IoFailure::Errno { errno: -e },
    }
}

/// The summary of one target's measurement (or of all together, path `*`).
fn target_result(path: String, m: &TargetMeasurement, w: &RunPlan, seconds: f64) -> TargetResult {
    let mut both = DirStats::default();
    both.merge(&m.read);
    both.merge(&m.write);
    let first = m.errors.first.first();
    TargetResult {
        path,
        total: DirSummary::of(&both, seconds),
        read: w.reads().then(|| DirSummary::of(&m.read, seconds)),
        write: w.writes().then(|| DirSummary::of(&m.write, seconds)),
        errors: ErrorSummary {
            count: m.errors.count,
            first_offset: first.map(|f| f.1),
            first_error: first.map(|f| failure(f.2)),
            first_direction: first.map(|f| f.3),
            reads: m.errors.reads,
            writes: m.errors.writes,
            first: m
                .errors
                .first
                .iter()
                .map(|f| crate::model::run::ErrorAt {
                    offset: f.1,
                    error: failure(f.2),
                    direction: f.3,
                })
                .collect(),
            stopped: m.errors.stopped,
        },
    }
}

/// The 95 % interval of figure `f`, a rate over the whole measured window, from the rates of
/// its windows up to the drain: the windows' interval, widened by how far `f` lies from their
/// mean. The drain after the last submission is in `f` and not in the windows; on most
/// devices it runs at the same rate, but a device that holds the last requests (blk-throttle
/// holds them up to a 100-ms slice) moves `f` away from the steady rate, and the interval says
/// so instead of claiming the windows' precision.
fn ci(f: f64, rates: &[f64]) -> Option<Ci95> {
    let e = windows(rates)?;
    if f <= 0.0 || !f.is_finite() {
        return None;
    }
    let half = e.ci.half + (f - e.mean).abs();
    Some(Ci95 {
        half,
        pct: 100.0 * half / f,
    })
}

/// The order-statistic 95 % interval of quantile `q` of `h`, µs.
fn quantile_ci(h: &crate::stats::Histogram, q: f64) -> Option<[f64; 2]> {
    let (lo, hi) = quantile_ranks(h.count(), q)?;
    Some([h.at_rank_ns(lo) / 1000.0, h.at_rank_ns(hi) / 1000.0])
}

/// Adds the within-run intervals to the all-targets result: throughput from the measured
/// phase's 100-ms windows up to the drain (corrected for autocorrelation), percentiles from
/// order statistics.
fn intervals(all: &mut TargetResult, m: &Measurement) {
    // The last mark is taken once every worker has drained: the window that ends there holds
    // the drain after the last submission (a throttle may hold those I/Os for a whole slice),
    // which is not the phase's steady behaviour, so the intervals leave it out.
    let issuing = &m.marks[..m.marks.len().saturating_sub(1)];
    let rates = Rates::of(issuing);
    let mut both = m.total.read.hist.clone();
    both.merge(&m.total.write.hist);
    let dirs = [
        (
            Some(&mut all.total),
            &rates.iops,
            &rates.bytes_per_s,
            Some(&both),
        ),
        (
            all.read.as_mut(),
            &rates.read_iops,
            &rates.read_bytes_per_s,
            Some(&m.total.read.hist),
        ),
        (
            all.write.as_mut(),
            &rates.write_iops,
            &rates.write_bytes_per_s,
            Some(&m.total.write.hist),
        ),
    ];
    for (d, iops, bps, hist) in dirs {
        let Some(d) = d else { continue };
        d.iops_ci95 = ci(d.iops, iops);
        d.bytes_per_s_ci95 = ci(d.bytes_per_s, bps);
        if let Some(h) = hist {
            d.latency_us.p50_ci95 = quantile_ci(h, 0.50);
            d.latency_us.p99_ci95 = quantile_ci(h, 0.99);
        }
    }
}

/// Under MPI with several ranks, this rank's counts every 100 ms of its measured phase (the
/// watcher's marks), for the job's stonewall; none for one process.
fn counts(m: &Measurement) -> Vec<crate::model::ranks::Count> {
    if !crate::cluster::many() {
        return Vec::new();
    }
    (m.marks.iter())
        .map(|k| crate::model::ranks::Count {
            at_s: k.at_s,
            ios: k.ios,
            bytes: k.bytes,
        })
        .collect()
}

/// The results of measurement `m` of plan `plan` over `targets`.
pub fn results(
    m: &Measurement,
    plan: &RunPlan,
    targets: &[Target],
    engine_fallback: Option<EngineFallback>,
) -> Results {
    let (w, slots) = (plan, plan.schedule().slots());
    let mut all = target_result("*".into(), &m.total, w, m.seconds);
    intervals(&mut all, m);
    let mut r = Results {
        engine: m.engine,
        engine_fallback,
        registered_file: m.registered.map(|r| r.0),
        registered_buffers: m.registered.map(|r| r.1),
        worker_cpus: m.worker_cpus.clone(),
        seconds: m.seconds,
        interrupted: m.interrupted,
        steady: m.steady.map(|s| Steady {
            reached: s.reached,
            transient_s: s.transient_s,
            ci95_pct: s.look.map(|l| l.bytes_per_s_ci95.pct),
            look: s.look,
        }),
        fatal: m.fatal.clone(),
        total: all.total,
        read: all.read,
        write: all.write,
        errors: all.errors,
        verify: None,
        open_loop: m.total.open.as_ref().map(|o| {
            crate::model::open::OpenLoop::of(
                o,
                plan.schedule().arrivals(),
                plan.schedule().iops(),
                slots,
            )
        }),
        job: None,
        ranks: Vec::new(),
        counts: counts(m),
        sync: (m.total.syncs.ios > 0).then(|| crate::model::SyncSummary {
            count: m.total.syncs.ios,
            latency_us: crate::stats::summary::LatencySummary::of(&m.total.syncs.hist),
        }),
        targets: match m.layout {
            Layout::Separate => targets
                .iter()
                .zip(&m.targets)
                .map(|(t, tm)| target_result(t.path.display().to_string(), tm, w, m.seconds))
                .collect(),
            // One logical target: named by its members.
            Layout::Stripe(_) => {
                let names: Vec<String> = targets
                    .iter()
                    .map(|t| t.path.display().to_string())
                    .collect();
                m.targets
                    .iter()
                    .map(|tm| {
                        target_result(format!("stripe({})", names.join("+")), tm, w, m.seconds)
                    })
                    .collect()
            }
        },
        cpu: m.cpu.clone(),
        devices: m.devices.clone(),
        timeseries: m.series.clone(),
        device_timeseries: m.device_series.clone(),
        changes: changes(m, targets),
        host: None,
        limits: Vec::new(),
        setup: Vec::new(),
        bucket: None,
    };
    r.host = m.host.as_ref().map(|h| host(h, &r, slots));
    r.limits = crate::analysis::policy::reach(policy_limits(&r.devices), &r);
    r.bucket = crate::analysis::bucket::bucket(&r.timeseries, &r.changes, &r.limits);
    r
}

/// The limits that are not the device's as they stand at the window's end: the cgroup caps on
/// each disk watched under the targets, and the CPU quota on this process.
fn policy_limits(devices: &[crate::oscounters::diskstats::DeviceDelta]) -> Vec<PolicyLimit> {
    let dirs = crate::oscounters::cgroup::dirs("blkio");
    let mut out: Vec<PolicyLimit> = devices
        .iter()
        .flat_map(|d| {
            crate::oscounters::throttle::caps_of(&d.name, &dirs)
                .into_iter()
                .map(|cap| PolicyLimit::CgroupIo {
                    device: d.name.clone(),
                    cap,
                })
        })
        .collect();
    out.extend(crate::oscounters::cgroup::cpu_quota().map(|quota| PolicyLimit::CpuQuota { quota }));
    out.extend(cpus_limit());
    out
}

/// The CPUs this process may run on, when fewer than the machine's online CPUs (its cpuset
/// group, or its affinity).
fn cpus_limit() -> Option<PolicyLimit> {
    let online = crate::oscounters::cgroup::online_cpus()?;
    let cpus = crate::affinity::allowed_cpus().ok()?.len() as u32;
    (cpus > 0 && cpus < online).then(|| PolicyLimit::Cpus {
        cpus,
        online,
        file: crate::oscounters::cgroup::cpuset_file(online),
    })
}

/// `results.host`: the probe's record and the workers' waits (each with `slots` in flight), with the figures of `r` the
/// host could have moved.
fn host(h: &super::HostMeasurement, r: &Results, slots: u32) -> crate::model::host::HostNoise {
    let shape = crate::analysis::host::RunShape {
        depth: u64::from(slots) * u64::from(h.workers),
        open_loop: r.open_loop.is_some(),
        read: r.read.as_ref(),
        write: r.write.as_ref(),
        steady: r.steady.is_some(),
        changes: &r.changes,
    };
    crate::analysis::host::noise(
        &h.sample,
        h.waited_ns,
        h.workers,
        crate::oscounters::sched::clocksource(),
        &shape,
    )
}

/// The steps in the run's per-second series: I/Os per second and p99 latency, with the
/// targets' own disks' time per I/O each second (Little's law: their summed queue size over
/// the run's I/Os per second) and the run's mean latency each second for the cause, and the
/// host probe's latest wake-up each second (a p99 step no larger is the host's to make).
fn changes(m: &Measurement, targets: &[Target]) -> Vec<crate::model::change::Change> {
    use crate::analysis::changes::{Series, changes, host_added_us, time_per_io_us};
    let iops: Vec<f64> = m.series.iter().map(|p| p.iops).collect();
    let p99: Vec<f64> = m.series.iter().map(|p| p.p99_us).collect();
    let mean: Vec<f64> = m.series.iter().map(|p| p.mean_us).collect();
    let mut names: Vec<&str> = targets
        .iter()
        .filter_map(|t| t.device.as_ref().map(|d| d.name.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    let device_us: Vec<f64> = m
        .series
        .iter()
        .map(|p| {
            let queue: Vec<f64> = m
                .device_series
                .iter()
                .filter(|d| d.t_s == p.t_s && names.contains(&d.device.as_str()))
                .map(|d| d.aqu_sz)
                .collect();
            if queue.len() < names.len() {
                f64::NAN
            } else {
                time_per_io_us(queue.iter().sum(), p.iops)
            }
        })
        .collect();
    let host_late: Option<Vec<f64>> = m.host.as_ref().map(|h| {
        m.series
            .iter()
            .map(|p| {
                h.sample
                    .per_second
                    .iter()
                    .find(|s| s.t_s == p.t_s)
                    .map_or(f64::NAN, |s| {
                        host_added_us(s.max_late_ns as f64 / 1e3, s.steal_pct)
                    })
            })
            .collect()
    });
    changes(&Series {
        iops: &iops,
        latency: Some((crate::model::change::ChangeFigure::P99Us, &p99)),
        device_us: (!names.is_empty()).then_some(&device_us[..]),
        latency_us: Some(&mean),
        host_late: host_late.as_deref(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_off_its_windows_mean_gets_a_wider_interval() {
        let rates = [100.0, 102.0, 98.0, 100.0, 101.0, 99.0, 100.0, 100.0];
        let same = ci(100.0, &rates).unwrap();
        let off = ci(90.0, &rates).unwrap();
        assert!(
            (off.half - same.half - 10.0).abs() < 1e-9,
            "{off:?} {same:?}"
        );
        assert!(off.pct > 100.0 * 10.0 / 90.0);
        assert!(ci(0.0, &rates).is_none());
    }
}
