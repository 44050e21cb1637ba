//! The fio JSON of one finished job: its figures, its samples (per `bwavgtime`, `iopsavgtime`)
//! and `rate_min` check, assembled from halfpower's results into fio's shape.

use super::Format;
use crate::analysis::fio::{self as figures, Samples};
use crate::fio::options::Unified;
use crate::fio::{FioJob, JobPlan};
use crate::model::fio::{FioJobReport, HalfpowerExtras, Ordered, SsData, SsReport, SyncReport};
use crate::model::{Direction, Results, Warning};
use crate::stats::cpu::ProcessEvents;
use crate::stats::depth::DepthCounts;
use crate::stats::window::{Mark, Rates, at_edges};

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
    /// The measured phase's counts every 100 ms, from which fio's samples are taken.
    pub(super) marks: Vec<Mark>,
    /// Queue depth at each submission, I/Os per submit call and per reap.
    pub(super) depth: DepthCounts,
    /// The process's faults and context switches over the job.
    pub(super) events: ProcessEvents,
    /// Wall-clock ms when the job ended.
    pub(super) ended_ms: u64,
    /// Why the job failed its `rate_min`, if it did.
    pub(super) below_min: Option<Warning>,
    /// With logs of a row per I/O: each worker's per-I/O record, in worker order.
    pub(super) io_log: Vec<crate::stats::iolog::IoLog>,
    /// With averaged logs: each worker's counts at the edges of `log_avg_msec`, in worker
    /// order.
    pub(super) periods: Vec<crate::stats::periods::Periods>,
}

/// fio's `rate_min` and `rate_iops_min` check on a finished job: the first whole second after
/// the first (fio skips its first rate cycle) whose bytes/s or IOPS in a direction fell below
/// that direction's minimum.
pub(super) fn below_min(job: &str, plan: &JobPlan, samples: &[Samples; 2]) -> Option<Warning> {
    for (d, direction) in [(0, Direction::Read), (1, Direction::Write)] {
        let bytes: fn(&(f64, f64)) -> f64 = |s| s.1;
        let iops: fn(&(f64, f64)) -> f64 = |s| s.0;
        let checks = [
            (plan.rate_min[d], false, bytes),
            (plan.rate_iops_min[d], true, iops),
        ];
        for (min, is_iops, value) in checks {
            if min == 0 {
                continue;
            }
            if let Some((i, s)) = samples[d]
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, s)| value(s) < min as f64)
            {
                return Some(Warning::FioRateMin {
                    job: job.to_string(),
                    direction,
                    iops: is_iops,
                    min,
                    value: value(s),
                    second: i + 1,
                });
            }
        }
    }
    None
}

/// Per-period (IOPS, bytes/s) of reads and of writes from the phase's marks: the rates
/// between the marks nearest each multiple of `period_s` (whole seconds for `rate_min`,
/// fio's `bwavgtime`/`iopsavgtime` for its samples). The marks are 100 ms apart until a long
/// phase thins them (400 s and more), so they are picked by their time, not by their count;
/// a last period shorter than `period_s` gives no sample, as in fio.
pub(super) fn samples(marks: &[Mark], period_s: f64) -> [Samples; 2] {
    let picked = at_edges(marks, 0.0, period_s);
    let r = Rates::of(&picked);
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

/// The sampled figures of reads and of writes (and both together, for `mixed`), each sampled
/// as the job's `bwavgtime` and `iopsavgtime` say; `group` is the aggregate bandwidth of the
/// job's group per direction, bytes/s.
fn sampled(r: &Ran, group: [f64; 2]) -> [figures::Sampled; 3] {
    let o = &r.job.opts;
    let bw = samples(&r.marks, o.bw_avg_ms as f64 / 1000.0);
    let iops = samples(&r.marks, o.iops_avg_ms as f64 / 1000.0);
    let dir = |d: usize| {
        let (bw, iops) = figures::sample_stats(&bw[d], &iops[d]);
        figures::Sampled {
            bw,
            iops,
            group_bytes_per_s: group[d],
        }
    };
    let (read, write) = (dir(0), dir(1));
    let mixed = figures::Sampled {
        bw: figures::SampleStat::added(read.bw, write.bw),
        iops: figures::SampleStat::added(read.iops, write.iops),
        group_bytes_per_s: group[0] + group[1],
    };
    [read, write, mixed]
}

/// One job's object in fio's JSON; `group` is its group's aggregate bandwidth per direction,
/// bytes/s (for `bw_agg`).
pub(super) fn job_report(
    r: &Ran,
    started_ms: u64,
    format: Format,
    group: [f64; 2],
) -> FioJobReport {
    let o = &r.job.opts;
    let res = &r.results;
    let pcts = figures::Percentiles {
        clat: o.clat_percentiles.then_some(o.percentile_list.as_slice()),
        lat: o.lat_percentiles.then_some(o.percentile_list.as_slice()),
    };
    let bins = format == Format::JsonPlus;
    let [s_read, s_write, s_mixed] = sampled(r, group);
    let dir = |d: &Option<crate::stats::summary::DirSummary>, s: &figures::Sampled| {
        d.as_ref()
            .map(|d| figures::dir_report(d, res.seconds, s, pcts, bins))
            .unwrap_or_default()
    };
    let apart = o.unified_rw_reporting != Unified::Mixed;
    let together = o.unified_rw_reporting != Unified::None;
    let h = figures::histogram(&res.total);
    let [latency_ns, latency_us, latency_ms] = figures::latency_ranges(&h);
    let [iodepth_level, iodepth_submit, iodepth_complete] = figures::depth_levels(&r.depth);
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
        read: apart.then(|| dir(&res.read, &s_read)),
        write: apart.then(|| dir(&res.write, &s_write)),
        trim: apart.then(Default::default),
        sync: apart.then(|| sync_report(res)),
        mixed: together.then(|| dir(&Some(res.total.clone()), &s_mixed)),
        job_runtime: runtime_ms,
        usr_cpu: pct_of_runtime(res.cpu.process_user_s),
        sys_cpu: pct_of_runtime(res.cpu.process_sys_s),
        ctx: r.events.ctx,
        majf: r.events.majf,
        minf: r.events.minf,
        iodepth_level,
        iodepth_submit,
        iodepth_complete,
        latency_ns,
        latency_us,
        latency_ms,
        latency_depth: o.iodepth,
        latency_target: 0,
        latency_percentile: 100.0,
        latency_window: 0,
        steadystate: steady_report(r),
        desc: o.description.clone(),
        halfpower: extras(r),
    }
}

/// fio's `steadystate` object of a job with a steady-state rule: the first window that held
/// (the one that ended it), else the last.
fn steady_report(r: &Ran) -> Option<SsReport> {
    let rule = r.plan.steady?;
    let o = &r.job.opts.ss;
    let l = rule.outcome(&r.marks);
    Some(SsReport {
        ss: o.fio_name(),
        duration: rule.dur_s,
        attained: u8::from(l.attained),
        criterion: format!(
            "{:.6}{}",
            l.criterion as f32,
            if rule.pct { "%" } else { "" }
        ),
        max_deviation: l.max_deviation,
        slope: l.slope,
        data: SsData {
            bw_mean: l.bw_mean(),
            iops_mean: l.iops_mean(),
            iops: l.iops,
            bw: l.bw,
        },
        metric: rule.metric,
        test: rule.test,
        pct: rule.pct,
        value: l.criterion,
    })
}

/// halfpower's own figures of a job, under its `halfpower` key.
fn extras(r: &Ran) -> HalfpowerExtras {
    let res = &r.results;
    HalfpowerExtras {
        workload: r.plan.workload.clone(),
        engine: res.engine,
        // One file, the stripe set of a job's files (`stripe(a+b)`), or each clone's own.
        target: if res.targets.is_empty() {
            r.target.path.clone()
        } else {
            let names: Vec<&str> = res.targets.iter().map(|t| t.path.as_str()).collect();
            names.join(", ")
        },
        direct: r.target.direct,
        cpu_us_per_io: res.cpu.us_per_io,
        system_busy_pct: res.cpu.system_busy_pct,
        iops_ci95_pct: res.total.iops_ci95.map(|c| c.pct),
        devices: res.devices.clone(),
        notes: r.plan.notes.clone(),
        verify: res.verify.clone(),
    }
}

/// fio's sync object from halfpower's syncs (stddev is not kept for them: 0).
fn sync_report(res: &Results) -> SyncReport {
    res.sync
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
        })
}

/// The aggregate bandwidth of each group's jobs, reads and writes, bytes/s: their bytes over
/// the longest job's time, as fio's group statistics (`ran` in job order, groups in order).
pub(super) fn group_bandwidth(ran: &[Ran]) -> Vec<(u32, [f64; 2])> {
    let mut out: Vec<(u32, [f64; 2])> = Vec::new();
    for g in ran.chunk_by(|a, b| a.job.group == b.job.group) {
        let longest = g.iter().map(|r| r.results.seconds).fold(0.0, f64::max);
        let bytes = |f: fn(&Results) -> u64| g.iter().map(|r| f(&r.results)).sum::<u64>() as f64;
        let per_s = |b: f64| if longest > 0.0 { b / longest } else { 0.0 };
        out.push((
            g[0].job.group,
            [
                per_s(bytes(|r| r.read.as_ref().map_or(0, |d| d.bytes))),
                per_s(bytes(|r| r.write.as_ref().map_or(0, |d| d.bytes))),
            ],
        ));
    }
    out
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
            let [r, w] = samples(&marks(step, (10.0 / step).round() as usize), 1.0);
            assert_eq!(r.len(), 10, "step {step}");
            assert!(r.iter().all(|s| (s.0 - 1000.0).abs() < 1.0), "{r:?}");
            assert!(w.iter().all(|s| s.0 == 0.0));
        }
    }
}
