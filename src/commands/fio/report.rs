//! The fio JSON of one finished job: its figures, per-second samples and `rate_min` check,
//! assembled from halfpower's results into fio's shape.

use super::Format;
use crate::analysis::fio::{self as figures, Samples};
use crate::fio::{FioJob, JobPlan};
use crate::model::Results;
use crate::model::fio::{FioJobReport, HalfpowerExtras, Ordered, SyncReport};
use crate::stats::cpu::ProcessEvents;
use crate::stats::window::{CI_WINDOW_S, Mark, Rates};

/// One job run: what `figures` needs.
pub(super) struct Ran {
    /// The job as resolved from its sections.
    pub(super) job: FioJob,
    /// What halfpower ran for it.
    pub(super) plan: JobPlan,
    /// halfpower's results of the run.
    pub(super) results: Results,
    /// The file or device it ran on.
    pub(super) target: crate::model::TargetInfo,
    /// Per-second (IOPS, bytes/s) of reads and of writes.
    pub(super) samples: [Samples; 2],
    /// The process's faults and context switches over the job.
    pub(super) events: ProcessEvents,
    /// Wall-clock ms when the job ended.
    pub(super) ended_ms: u64,
    /// Why the job failed its `rate_min`, if it did.
    pub(super) below_min: Option<String>,
}

/// fio's `rate_min` check on a finished job: the first whole second after the first (fio
/// skips its first rate cycle) whose bytes/s in a direction fell below that direction's
/// minimum.
pub(super) fn below_min(plan: &JobPlan, samples: &[Samples; 2]) -> Option<String> {
    for (d, name) in [(0, "read"), (1, "write")] {
        let min = plan.rate_min[d];
        if min == 0 {
            continue;
        }
        if let Some((i, s)) = samples[d]
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, s)| s.1 < min as f64)
        {
            return Some(format!(
                "{name} rate_min {min} B/s not met: {:.0} B/s in second {}",
                s.1,
                i + 1
            ));
        }
    }
    None
}

/// Per-second (IOPS, bytes/s) of reads and of writes from the phase's marks: the marks nearest
/// each whole second. The marks are 100 ms apart until a long phase thins them (400 s and
/// more), so they are picked by their time, not by their count.
pub(super) fn samples(marks: &[Mark]) -> [Samples; 2] {
    let mut per_second: Vec<Mark> = Vec::new();
    let mut next = 0.0;
    for m in marks {
        // Half a base window early still counts as the second (the watcher wakes late too).
        if m.at_s + CI_WINDOW_S / 2.0 >= next {
            per_second.push(*m);
            next = (m.at_s + CI_WINDOW_S / 2.0).floor() + 1.0;
        }
    }
    let r = Rates::of(&per_second);
    let zip = |a: &[f64], b: &[f64]| a.iter().copied().zip(b.iter().copied()).collect();
    [
        zip(&r.read_iops, &r.read_bytes_per_s),
        zip(&r.write_iops, &r.write_bytes_per_s),
    ]
}

/// The options as written, those with an empty value left out (fio's `job options`).
pub(super) fn ordered(pairs: &[(String, String)]) -> Ordered<String> {
    Ordered(
        pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect(),
    )
}

/// One job's object in fio's JSON.
pub(super) fn job_report(r: &Ran, started_ms: u64, format: Format) -> FioJobReport {
    let o = &r.job.opts;
    let res = &r.results;
    let pcts = figures::Percentiles {
        clat: o.clat_percentiles.then_some(o.percentile_list.as_slice()),
        lat: o.lat_percentiles.then_some(o.percentile_list.as_slice()),
    };
    let bins = format == Format::JsonPlus;
    let dir = |d: &Option<crate::stats::summary::DirSummary>, k: usize| {
        d.as_ref()
            .map(|d| figures::dir_report(d, res.seconds, &r.samples[k], pcts, bins))
    };
    let (read, write, mixed) = if o.unified_rw_reporting {
        let both: Samples = r.samples[0]
            .iter()
            .zip(r.samples[1].iter())
            .map(|(a, b)| (a.0 + b.0, a.1 + b.1))
            .collect();
        (
            None,
            None,
            Some(figures::dir_report(
                &res.total,
                res.seconds,
                &both,
                pcts,
                bins,
            )),
        )
    } else {
        (
            Some(dir(&res.read, 0).unwrap_or_default()),
            Some(dir(&res.write, 1).unwrap_or_default()),
            None,
        )
    };
    let h = figures::histogram(&res.total);
    let [latency_ns, latency_us, latency_ms] = figures::latency_ranges(&h);
    let runtime_ms = (res.seconds * 1000.0).round() as u64;
    let pct_of_runtime = |s: f64| {
        if res.seconds > 0.0 {
            100.0 * s / res.seconds
        } else {
            0.0
        }
    };
    FioJobReport {
        jobname: o.name.clone(),
        groupid: r.job.group,
        // fio reports EIO for failed I/O and for a job below its rate_min, EILSEQ for a block
        // that fails verification.
        error: if res.errors.first_error.is_some() || r.below_min.is_some() {
            libc::EIO
        } else if res.verify.as_ref().is_some_and(|v| !v.clean()) {
            libc::EILSEQ
        } else {
            0
        },
        eta: i32::MAX as u64,
        elapsed: r.ended_ms.saturating_sub(started_ms).div_ceil(1000),
        job_options: ordered(&r.job.written),
        read,
        write,
        trim: (!o.unified_rw_reporting).then(Default::default),
        mixed,
        // fio's sync object from halfpower's syncs (stddev is not kept for them: 0).
        sync: res
            .sync
            .as_ref()
            .map_or_else(SyncReport::default, |s| SyncReport {
                total_ios: s.count,
                lat_ns: crate::model::fio::LatNs {
                    min: (s.latency_us.min * 1000.0).round() as u64,
                    max: (s.latency_us.max * 1000.0).round() as u64,
                    mean: s.latency_us.mean * 1000.0,
                    n: s.count,
                    ..Default::default()
                },
            }),
        job_runtime: runtime_ms,
        usr_cpu: pct_of_runtime(res.cpu.process_user_s),
        sys_cpu: pct_of_runtime(res.cpu.process_sys_s),
        ctx: r.events.ctx,
        majf: r.events.majf,
        minf: r.events.minf,
        iodepth_level: figures::iodepth_levels(r.plan.workload.qd),
        iodepth_submit: figures::not_measured_depths(),
        iodepth_complete: figures::not_measured_depths(),
        latency_ns,
        latency_us,
        latency_ms,
        latency_depth: o.iodepth,
        latency_target: 0,
        latency_percentile: 100.0,
        latency_window: 0,
        halfpower: HalfpowerExtras {
            workload: r.plan.workload.clone(),
            engine: res.engine,
            // One file, or the stripe set of a job's files (`stripe(a+b)`).
            target: res
                .targets
                .first()
                .map_or_else(|| r.target.path.clone(), |t| t.path.clone()),
            direct: r.target.direct,
            cpu_us_per_io: res.cpu.us_per_io,
            system_busy_pct: res.cpu.system_busy_pct,
            iops_ci95_pct: res.total.iops_ci95.map(|c| c.pct),
            devices: res.devices.clone(),
            notes: r.plan.notes.clone(),
            verify: res.verify.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(step: f64, n: usize) -> Vec<Mark> {
        (0..=n)
            .map(|i| Mark {
                at_s: i as f64 * step,
                ios: (i as f64 * step * 1000.0) as u64,
                bytes: (i as f64 * step * 4096e3) as u64,
                read_ios: (i as f64 * step * 1000.0) as u64,
                read_bytes: (i as f64 * step * 4096e3) as u64,
            })
            .collect()
    }

    #[test]
    fn samples_are_whole_seconds_however_far_apart_the_marks_are() {
        for step in [0.1, 0.2] {
            let [r, w] = samples(&marks(step, (10.0 / step).round() as usize));
            assert_eq!(r.len(), 10, "step {step}");
            assert!(r.iter().all(|s| (s.0 - 1000.0).abs() < 1.0), "{r:?}");
            assert!(w.iter().all(|s| s.0 == 0.0));
        }
    }
}
