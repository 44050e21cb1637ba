//! Many ranks' results as one job's: counts summed, latency percentiles from the merged
//! histograms (bucket counts added exactly, never percentiles averaged), CPU per I/O over the
//! job, each host's counters once, and the figures only a job has: the stonewall (every
//! rank's I/Os until the first rank finished), the spread between ranks, per-host subtotals.

use super::fio::histogram;
use crate::model::cause::Fatal;
use crate::model::ranks::{Count, FirstDone, HostSubtotal, Job, RankSpread};
use crate::model::run::{ErrorSummary, RankRun, Results, SyncSummary};
use crate::model::verify::Verification;
use crate::oscounters::diskstats::DeviceDelta;
use crate::stats::recorder::DirStats;
use crate::stats::series::TimePoint;
use crate::stats::summary::{Ci95, DeviceSecond, DirSummary};
use crate::verify::check::TargetCheck;

/// The summary of one direction over the job: `parts` are the ranks' (those that have it),
/// their histograms added bucket by bucket.
fn merge_dir(parts: &[&DirSummary], seconds: f64) -> DirSummary {
    let mut d = DirStats::default();
    for p in parts {
        d.hist.merge(&histogram(p));
        d.ios += p.ios;
        d.bytes += p.bytes;
        if let Some(z) = &p.zero_sample {
            d.zeros.merge(z);
        }
    }
    DirSummary::of(&d, seconds)
}

/// `merged`'s intervals from the ranks' own of the same figure (`ranks`, one each): the ranks
/// measure independently, so their half-widths add in quadrature; none when any rank has none.
fn intervals(mut merged: DirSummary, ranks: &[&DirSummary]) -> DirSummary {
    let sum = |half: &dyn Fn(&DirSummary) -> Option<f64>, figure: f64| {
        let halves: Option<Vec<f64>> = ranks.iter().map(|p| half(p)).collect();
        let h = halves?.iter().map(|h| h * h).sum::<f64>().sqrt();
        (figure > 0.0).then(|| Ci95 {
            half: h,
            pct: h / figure * 100.0,
        })
    };
    merged.iops_ci95 = sum(&|p| p.iops_ci95.map(|c| c.half), merged.iops);
    merged.bytes_per_s_ci95 = sum(&|p| p.bytes_per_s_ci95.map(|c| c.half), merged.bytes_per_s);
    merged
}

/// I/Os and bytes of a rank up to `t` s into its measured phase: from its counts 100 ms apart,
/// linear between the two around `t` (its totals at its end, `seconds`, so the last stretch
/// counts too); from its per-second series in older files.
fn rank_until(r: &Results, t: f64) -> (f64, f64) {
    if r.counts.is_empty() {
        return until(&r.timeseries, r.seconds, t);
    }
    let end = Count {
        at_s: r.seconds,
        ios: r.total.ios,
        bytes: r.total.bytes,
    };
    let start = Count::default();
    let points: Vec<Count> = std::iter::once(start)
        .chain(
            r.counts
                .iter()
                .copied()
                .filter(|c| c.at_s > 0.0 && c.at_s < r.seconds),
        )
        .chain([end])
        .collect();
    // The first count at or after `t`, and the one before it (strictly before `t`).
    let (a, b) = match points.iter().position(|c| c.at_s >= t) {
        None => return (end.ios as f64, end.bytes as f64),
        Some(0) => return (0.0, 0.0),
        Some(k) => (points[k - 1], points[k]),
    };
    let f = (t - a.at_s) / (b.at_s - a.at_s);
    let at = |x: u64, y: u64| x as f64 + f * (y as f64 - x as f64);
    (at(a.ios, b.ios), at(a.bytes, b.bytes))
}

/// I/Os and bytes of a rank's series up to `t` s: whole seconds, then the share of the second
/// `t` falls in (each point is a rate; the last one covers `seconds − t_s` of a second).
fn until(series: &[TimePoint], seconds: f64, t: f64) -> (f64, f64) {
    let (mut ios, mut bytes) = (0.0, 0.0);
    for p in series {
        let start = p.t_s as f64;
        let len = (seconds - start).clamp(0.0, 1.0);
        let part = (t - start).clamp(0.0, len);
        ios += p.iops * part;
        bytes += p.bytes_per_s * part;
    }
    (ios, bytes)
}

/// Each host once: the first rank of each host, in rank order.
fn first_of_each_host(ranks: &[RankRun]) -> Vec<&RankRun> {
    let mut seen: Vec<&str> = Vec::new();
    ranks
        .iter()
        .filter(|r| {
            let new = !seen.contains(&r.host.as_str());
            if new {
                seen.push(&r.host);
            }
            new
        })
        .collect()
}

/// The job's results from its ranks' (in rank order, at least one). The window is the longest
/// rank's (last done); `job` carries the stonewall, the spread and the per-host subtotals.
pub fn merge(ranks: &[RankRun], barrier_us: Vec<f64>, gather_us: f64) -> Results {
    let mut r = ranks[0].results.clone();
    let all: Vec<&Results> = ranks.iter().map(|x| &x.results).collect();
    let seconds = all.iter().map(|x| x.seconds).fold(0.0, f64::max);
    r.seconds = seconds;
    let reads: Vec<&DirSummary> = all.iter().filter_map(|x| x.read.as_ref()).collect();
    let writes: Vec<&DirSummary> = all.iter().filter_map(|x| x.write.as_ref()).collect();
    r.read = (!reads.is_empty()).then(|| intervals(merge_dir(&reads, seconds), &reads));
    r.write = (!writes.is_empty()).then(|| intervals(merge_dir(&writes, seconds), &writes));
    let both: Vec<&DirSummary> = reads.iter().chain(&writes).copied().collect();
    // A rank's read and write intervals are not independent: the total's come from its total's.
    let totals: Vec<&DirSummary> = all.iter().map(|x| &x.total).collect();
    r.total = intervals(merge_dir(&both, seconds), &totals);
    r.interrupted = all.iter().any(|x| x.interrupted);
    r.fatal = ranks.iter().find_map(|x| {
        x.results.fatal.as_ref().map(|f| Fatal {
            rank: Some(x.rank),
            ..f.clone()
        })
    });
    r.errors = merge_errors(&all);
    r.targets = all.iter().flat_map(|x| x.targets.clone()).collect();
    r.worker_cpus = all.iter().flat_map(|x| x.worker_cpus.clone()).collect();
    r.steady = None;
    r.sync = merge_sync(all.iter().filter_map(|x| x.sync.as_ref()));
    r.verify = merge_verify(all.iter().filter_map(|x| x.verify.as_ref()));
    r.open_loop = merge_open(all.iter().filter_map(|x| x.open_loop.as_ref()));
    // CPU: every rank's process time; system-wide figures once per host.
    let ios = r.total.ios as f64;
    let mb = r.total.bytes as f64 / 1e6;
    let per = |s: f64, n: f64| if n > 0.0 { s * 1e6 / n } else { 0.0 };
    let user: f64 = all.iter().map(|x| x.cpu.process_user_s).sum();
    let sys: f64 = all.iter().map(|x| x.cpu.process_sys_s).sum();
    let hosts = first_of_each_host(ranks);
    let busy: f64 = hosts.iter().map(|h| h.results.cpu.system_busy_s).sum();
    r.cpu.process_user_s = user;
    r.cpu.process_sys_s = sys;
    r.cpu.process_pct_of_one_cpu = all.iter().map(|x| x.cpu.process_pct_of_one_cpu).sum();
    r.cpu.us_per_io = per(user + sys, ios);
    r.cpu.us_per_mb = per(user + sys, mb);
    r.cpu.system_busy_s = busy;
    r.cpu.system_busy_pct = hosts
        .iter()
        .map(|h| h.results.cpu.system_busy_pct)
        .sum::<f64>()
        / hosts.len().max(1) as f64;
    r.cpu.system_us_per_io = per(busy, ios);
    r.cpu.system_us_per_mb = per(busy, mb);
    (r.devices, r.device_timeseries) = host_devices(ranks, hosts.len() > 1);
    r.timeseries = merge_series(&all);
    r.job = Some(job(ranks, seconds, barrier_us, gather_us));
    r.counts = Vec::new();
    r.host = worst_host(&all);
    // A bucket is read from one series: each rank's own is in its `ranks[]` entry.
    r.bucket = None;
    r
}

/// Each host's disks once, named `host:disk` when the job spans several hosts. Every rank
/// samples the disks under its own targets, so a host's disks are those of all its ranks: each
/// taken from the first rank (in rank order) that has it, with its series.
fn host_devices(ranks: &[RankRun], several_hosts: bool) -> (Vec<DeviceDelta>, Vec<DeviceSecond>) {
    let (mut devices, mut series): (Vec<DeviceDelta>, Vec<DeviceSecond>) = (Vec::new(), Vec::new());
    for x in ranks {
        let tag = |n: &str| match several_hosts {
            true => format!("{}:{n}", x.host),
            false => n.to_string(),
        };
        let new: Vec<&str> = (x.results.devices.iter())
            .map(|d| d.name.as_str())
            .filter(|n| !devices.iter().any(|d| d.name == tag(n)))
            .collect();
        devices.extend(
            x.results
                .devices
                .iter()
                .filter(|d| new.contains(&d.name.as_str()))
                .map(|d| DeviceDelta {
                    name: tag(&d.name),
                    ..d.clone()
                }),
        );
        series.extend(
            (x.results.device_timeseries.iter())
                .filter(|d| new.contains(&d.device.as_str()))
                .map(|d| DeviceSecond {
                    device: tag(&d.device),
                    ..d.clone()
                }),
        );
    }
    (devices, series)
}

/// The job's open-loop record: the counts of every rank added (requests asked for, issued and
/// late), the most in flight in any thread, and the lateness and service times of the rank
/// whose service p99 was highest (each rank keeps only their summaries, which do not add up).
fn merge_open<'a>(
    mut open: impl Iterator<Item = &'a crate::model::open::OpenLoop>,
) -> Option<crate::model::open::OpenLoop> {
    let first = open.next()?.clone();
    Some(open.fold(first, |mut job, o| {
        job.asked_iops = job.asked_iops.zip(o.asked_iops).map(|(a, b)| a + b);
        job.issued += o.issued;
        job.late += o.late;
        job.max_inflight = job.max_inflight.max(o.max_inflight);
        if o.service_us.p99 > job.service_us.p99 {
            job.late_us = o.late_us.clone();
            job.service_us = o.service_us.clone();
        }
        job
    }))
}

/// The job's syncs: every rank's calls added; min, max and mean over all of them (exact); the
/// percentiles the slowest rank's (highest p99), as a rank keeps no histogram of its syncs to
/// add, and no interval (one rank's is not the job's). None when no rank synced.
fn merge_sync<'a>(each: impl Iterator<Item = &'a SyncSummary>) -> Option<SyncSummary> {
    let each: Vec<&SyncSummary> = each.collect();
    let slowest = each
        .iter()
        .max_by(|a, b| a.latency_us.p99.total_cmp(&b.latency_us.p99))?;
    let count: u64 = each.iter().map(|s| s.count).sum();
    let mut l = slowest.latency_us.clone();
    l.min = each
        .iter()
        .map(|s| s.latency_us.min)
        .fold(f64::INFINITY, f64::min);
    l.max = each.iter().map(|s| s.latency_us.max).fold(0.0, f64::max);
    let total_us: f64 = each
        .iter()
        .map(|s| s.latency_us.mean * s.count as f64)
        .sum();
    l.mean = if count > 0 {
        total_us / count as f64
    } else {
        0.0
    };
    (l.p50_ci95, l.p99_ci95) = (None, None);
    Some(SyncSummary {
        count,
        latency_us: l,
    })
}

/// The job's host record: the most disturbed rank's (its stalls and steal), with every flag
/// any rank's record set (the job's figures merge theirs).
fn worst_host(all: &[&Results]) -> Option<crate::model::host::HostNoise> {
    let records = || all.iter().filter_map(|r| r.host.as_ref());
    let disturbed = |h: &crate::model::host::HostNoise| {
        super::host::stalled_share(h) + h.steal_pct.unwrap_or(0.0) / 100.0
    };
    let mut worst = records()
        .max_by(|a, b| disturbed(a).total_cmp(&disturbed(b)))?
        .clone();
    for f in records().flat_map(|h| &h.flags) {
        if !worst.flags.contains(f) {
            worst.flags.push(*f);
        }
    }
    Some(worst)
}

fn merge_errors(all: &[&Results]) -> ErrorSummary {
    let mut e = ErrorSummary::default();
    for x in all {
        let o = &x.errors;
        e.count += o.count;
        e.reads += o.reads;
        e.writes += o.writes;
        e.stopped |= o.stopped;
        if e.first_error.is_none() && o.first_error.is_some() {
            e.first_offset = o.first_offset;
            e.first_error = o.first_error;
            e.first_direction = o.first_direction;
        }
        e.first.extend(o.first.iter().cloned());
    }
    e.first.truncate(crate::stats::recorder::ERRORS_KEPT);
    e
}

/// Second by second over the ranks: rates added; the p99 is the highest rank's (the
/// The ranks' verifications as one (each rank's bad blocks put back on its targets, then
/// counted again by [`Verification::new`]), and their `--verify-while` findings likewise; each
/// rank's own record and state stay in `ranks[]`. None when no rank verified.
fn merge_verify<'a>(each: impl Iterator<Item = &'a Verification>) -> Option<Verification> {
    let each: Vec<&Verification> = each.collect();
    let checks = |vs: &[&Verification]| -> Vec<TargetCheck> {
        vs.iter()
            .flat_map(|v| {
                let mut ts = v.targets.clone();
                for b in &v.bad {
                    if let Some(t) = ts.iter_mut().find(|t| t.path == b.target) {
                        t.bad.push(b.block.clone());
                    }
                }
                ts
            })
            .collect()
    };
    if each.is_empty() {
        return None;
    }
    let during: Vec<&Verification> = each
        .iter()
        .filter_map(|v| v.during_run.as_deref())
        .collect();
    let mut v = Verification::new(None, None, checks(&each));
    v.during_run =
        (!during.is_empty()).then(|| Box::new(Verification::new(None, None, checks(&during))));
    Some(v)
}

/// per-second histograms are not kept, so it bounds the job's p99 from above).
fn merge_series(all: &[&Results]) -> Vec<TimePoint> {
    let mut out: Vec<TimePoint> = Vec::new();
    for x in all {
        for p in &x.timeseries {
            match out.iter_mut().find(|q| q.t_s == p.t_s) {
                Some(q) => {
                    // The mean over both, each weighted by its I/Os.
                    let ios = q.iops + p.iops;
                    if ios > 0.0 {
                        q.mean_us = (q.mean_us * q.iops + p.mean_us * p.iops) / ios;
                    }
                    q.iops += p.iops;
                    q.bytes_per_s += p.bytes_per_s;
                    q.p99_us = q.p99_us.max(p.p99_us);
                }
                None => out.push(p.clone()),
            }
        }
    }
    out.sort_by_key(|p| p.t_s);
    out
}

/// The figures only a job has: the stonewall, the spread between ranks and the per-host
/// subtotals, over `seconds` (the job's), with the barrier and gather times.
fn job(ranks: &[RankRun], seconds: f64, barrier_us: Vec<f64>, gather_us: f64) -> Job {
    let first_done = first_done(ranks);
    let t = first_done.seconds;
    Job {
        ranks: ranks.len() as u32,
        first_done,
        spread: spread(ranks, t, seconds),
        hosts: hosts(ranks, seconds),
        barrier_us,
        gather_us,
    }
}

/// The stonewall: every rank's I/Os until the first rank finished (each rank's count at that
/// instant), and their rates.
fn first_done(ranks: &[RankRun]) -> FirstDone {
    let first = ranks
        .iter()
        .min_by(|a, b| a.results.seconds.total_cmp(&b.results.seconds))
        .expect("at least one rank");
    let t = first.results.seconds;
    let (mut ios, mut bytes) = (0.0, 0.0);
    for x in ranks {
        let (i, b) = if x.results.seconds <= t {
            (x.results.total.ios as f64, x.results.total.bytes as f64)
        } else {
            rank_until(&x.results, t)
        };
        ios += i;
        bytes += b;
    }
    let rate = |n: f64| if t > 0.0 { n / t } else { 0.0 };
    FirstDone {
        seconds: t,
        rank: first.rank,
        ios,
        bytes,
        iops: rate(ios),
        bytes_per_s: rate(bytes),
    }
}

/// The slowest and fastest ranks by IOPS, between the first rank's end `t` and the job's
/// `seconds`.
fn spread(ranks: &[RankRun], t: f64, seconds: f64) -> RankSpread {
    let by_iops =
        |a: &&RankRun, b: &&RankRun| a.results.total.iops.total_cmp(&b.results.total.iops);
    let slow = ranks.iter().min_by(by_iops).expect("at least one rank");
    let fast = ranks.iter().max_by(by_iops).expect("at least one rank");
    RankSpread {
        slowest_rank: slow.rank,
        slowest_iops: slow.results.total.iops,
        fastest_rank: fast.rank,
        fastest_iops: fast.results.total.iops,
        ratio: if slow.results.total.iops > 0.0 {
            fast.results.total.iops / slow.results.total.iops
        } else {
            0.0
        },
        seconds: [t, seconds],
    }
}

/// Each host's subtotal of its ranks, in the order the hosts first appear, rates over the
/// job's `seconds`.
fn hosts(ranks: &[RankRun], seconds: f64) -> Vec<HostSubtotal> {
    let mut hosts: Vec<HostSubtotal> = Vec::new();
    for x in ranks {
        let i = match hosts.iter().position(|h| h.host == x.host) {
            Some(i) => i,
            None => {
                hosts.push(HostSubtotal {
                    host: x.host.clone(),
                    ..HostSubtotal::default()
                });
                hosts.len() - 1
            }
        };
        let h = &mut hosts[i];
        h.ranks.push(x.rank);
        h.ios += x.results.total.ios;
        h.bytes += x.results.total.bytes;
        h.cpu_us_per_io += (x.results.cpu.process_user_s + x.results.cpu.process_sys_s) * 1e6;
    }
    for h in &mut hosts {
        h.iops = if seconds > 0.0 {
            h.ios as f64 / seconds
        } else {
            0.0
        };
        h.bytes_per_s = if seconds > 0.0 {
            h.bytes as f64 / seconds
        } else {
            0.0
        };
        h.cpu_us_per_io = if h.ios > 0 {
            h.cpu_us_per_io / h.ios as f64
        } else {
            0.0
        };
    }
    hosts
}

#[cfg(test)]
#[path = "ranks_tests.rs"]
mod tests;
