//! The merge of ranks' results checked against one histogram of every value, the stonewall,
//! the spread, the per-host subtotals, the devices and the syncs.

use super::*;
use crate::stats::histogram::Histogram;

/// A rank that did `ios` reads of 4 KiB at latencies `lat_ns` (cycled) over `seconds`,
/// `iops_per_s` in each whole second of its series.
fn rank(n: u32, host: &str, ios: u64, seconds: f64, lat_ns: &[u64]) -> RankRun {
    let mut d = DirStats::default();
    for k in 0..ios {
        d.ios += 1;
        d.bytes += 4096;
        d.hist.record(lat_ns[k as usize % lat_ns.len()]);
    }
    let s = DirSummary::of(&d, seconds);
    let per_s = ios as f64 / seconds;
    let mut results = Results {
        seconds,
        read: Some(s.clone()),
        total: s,
        ..Results::default()
    };
    results.cpu.process_sys_s = ios as f64 * 2e-6;
    results.timeseries = (0..seconds.ceil() as u32)
        .map(|t| TimePoint {
            t_s: t,
            iops: per_s,
            bytes_per_s: per_s * 4096.0,
            p99_us: 10.0 * (n + 1) as f64,
            ..TimePoint::default()
        })
        .collect();
    RankRun {
        rank: n,
        host: host.into(),
        results,
    }
}

#[test]
fn open_loop_counts_add_up_and_the_slowest_rank_gives_the_times() {
    use crate::model::open::OpenLoop;
    let open = |issued: u64, late: u64, p99: f64, max_inflight: u32| OpenLoop {
        asked_iops: Some(100.0),
        issued,
        late,
        max_inflight,
        service_us: crate::stats::summary::LatencySummary {
            p99,
            ..Default::default()
        },
        ..OpenLoop::default()
    };
    let mut ranks = [
        rank(0, "a", 10, 1.0, &[1_000]),
        rank(1, "a", 10, 1.0, &[1_000]),
        rank(2, "b", 10, 1.0, &[1_000]),
    ];
    for (r, o) in ranks.iter_mut().zip([
        open(100, 1, 50.0, 3),
        open(99, 0, 900.0, 2),
        open(98, 2, 70.0, 9),
    ]) {
        r.results.open_loop = Some(o);
    }
    let job = merge(&ranks, Vec::new(), 0.0).open_loop.unwrap();
    assert_eq!((job.issued, job.late, job.max_inflight), (297, 3, 9));
    assert_eq!(job.asked_iops, Some(300.0));
    assert_eq!(job.service_us.p99, 900.0);
}

#[test]
fn syncs_add_up_with_exact_extremes_and_mean_and_the_slowest_ranks_percentiles() {
    use crate::stats::summary::LatencySummary;
    let sync = |count: u64, min: f64, mean: f64, p99: f64, max: f64| SyncSummary {
        count,
        latency_us: LatencySummary {
            min,
            mean,
            p50: mean,
            p99,
            max,
            p50_ci95: Some([mean, mean]),
            ..LatencySummary::default()
        },
    };
    let mut ranks = [
        rank(0, "a", 10, 1.0, &[1_000]),
        rank(1, "a", 10, 1.0, &[1_000]),
        rank(2, "b", 10, 1.0, &[1_000]),
    ];
    ranks[0].results.sync = Some(sync(10, 50.0, 100.0, 300.0, 400.0));
    ranks[1].results.sync = Some(sync(30, 20.0, 200.0, 900.0, 1000.0));
    let s = merge(&ranks, Vec::new(), 0.0).sync.unwrap();
    assert_eq!(s.count, 40);
    assert_eq!((s.latency_us.min, s.latency_us.max), (20.0, 1000.0));
    assert_eq!(s.latency_us.mean, (10.0 * 100.0 + 30.0 * 200.0) / 40.0);
    assert_eq!((s.latency_us.p50, s.latency_us.p99), (200.0, 900.0));
    assert_eq!(
        s.latency_us.p50_ci95, None,
        "one rank's interval is not the job's"
    );
    assert!(merge(&ranks[2..], Vec::new(), 0.0).sync.is_none());
}

#[test]
fn counts_add_up_and_percentiles_come_from_the_merged_buckets() {
    let ranks = [
        rank(0, "a", 1000, 2.0, &[10_000, 20_000]),
        rank(1, "a", 3000, 2.0, &[40_000]),
        rank(2, "b", 2000, 1.0, &[5_000, 80_000]),
    ];
    let r = merge(&ranks, vec![1.0, 2.0, 3.0], 4.0);
    assert_eq!(r.total.ios, 6000);
    assert_eq!(r.read.as_ref().unwrap().bytes, 6000 * 4096);
    assert_eq!(r.seconds, 2.0, "the last rank done");
    assert_eq!(r.total.iops, 3000.0);
    // One histogram of all 6000 raw values, recorded here apart from the ranks' buckets.
    let mut all = Histogram::new();
    for (n, lat) in [
        (1000, &[10_000, 20_000][..]),
        (3000, &[40_000]),
        (2000, &[5_000, 80_000]),
    ] {
        for k in 0..n {
            all.record(lat[k % lat.len()]);
        }
    }
    assert_eq!(all.count(), 6000);
    let l = &r.read.as_ref().unwrap().latency_us;
    assert_eq!(l.p50, all.quantile_ns(0.5) / 1000.0);
    assert_eq!(l.p99, all.quantile_ns(0.99) / 1000.0);
    assert_eq!((l.min, l.max), (5.0, 80.0));
    assert!((r.cpu.us_per_io - 2.0).abs() < 1e-9);
    let job = r.job.unwrap();
    // Rank 2 finished first, at 1 s: ranks 0 and 1 had done half of theirs.
    assert_eq!(job.first_done.rank, 2);
    assert_eq!(job.first_done.seconds, 1.0);
    assert!((job.first_done.ios - (500.0 + 1500.0 + 2000.0)).abs() < 1e-6);
    assert!((job.first_done.iops - 4000.0).abs() < 1e-6);
    assert_eq!((job.spread.slowest_rank, job.spread.fastest_rank), (0, 2));
    assert_eq!(job.spread.ratio, 4.0);
    assert_eq!(job.spread.seconds, [1.0, 2.0]);
    assert_eq!(job.hosts.len(), 2);
    assert_eq!(
        (job.hosts[0].ios, job.hosts[0].ranks.clone()),
        (4000, vec![0, 1])
    );
    assert_eq!(
        job.hosts[1].iops, 1000.0,
        "host b's I/Os over the job's 2 s"
    );
    // Second 0 adds every rank's rate; the p99 is the highest rank's.
    assert_eq!(r.timeseries[0].iops, 500.0 + 1500.0 + 2000.0);
    assert_eq!(r.timeseries[0].p99_us, 30.0);
    assert_eq!(r.timeseries[1].iops, 2000.0);
}

#[test]
fn verification_adds_up_over_the_ranks() {
    use crate::verify::block::Fault;
    use crate::verify::check::{BadBlock, Seen};
    let check = |path: &str, blocks: u64, bad: u64| {
        let mut t = TargetCheck {
            path: path.into(),
            blocks_checked: blocks,
            ..TargetCheck::default()
        };
        t.faults.corrupt = bad;
        t.bad = (0..bad)
            .map(|i| BadBlock {
                offset: i * 4096,
                kind: Fault::Corrupt,
                expected: Seen::default(),
                found: None,
                sector_generations: Vec::new(),
            })
            .collect();
        t
    };
    let mut ranks = [
        rank(0, "a", 10, 1.0, &[1000]),
        rank(1, "a", 10, 1.0, &[1000]),
    ];
    ranks[0].results.verify = Some(Verification::new(None, None, vec![check("f.0", 100, 0)]));
    ranks[1].results.verify = Some(Verification::new(None, None, vec![check("f.1", 50, 2)]));
    let v = merge(&ranks, Vec::new(), 0.0).verify.unwrap();
    assert_eq!((v.blocks_checked, v.faults.corrupt), (150, 2));
    assert_eq!(v.bad.len(), 2);
    assert!(v.bad.iter().all(|b| b.target == "f.1"));
    assert!(!v.clean());
    assert!(merge(&ranks[..1], Vec::new(), 0.0).verify.unwrap().clean());
}

/// Each rank samples the disks under its own targets (here its own disk and a bus they
/// share): the job has every rank's disk and the bus once, each from the first rank that
/// has it, with its series; a second host's disks are named `host:disk`.
#[test]
fn every_ranks_disks_are_the_hosts_each_once() {
    let dev = |name: &str, read_bytes: u64| DeviceDelta {
        name: name.into(),
        read_bytes,
        ..DeviceDelta::default()
    };
    let second = |device: &str| DeviceSecond {
        device: device.into(),
        ..DeviceSecond::default()
    };
    let mut ranks = [
        rank(0, "a", 10, 1.0, &[1_000]),
        rank(1, "a", 10, 1.0, &[1_000]),
        rank(2, "b", 10, 1.0, &[1_000]),
    ];
    for (r, (disk, bus)) in ranks.iter_mut().zip([(10, 30), (20, 31), (40, 32)]) {
        let own = format!("d{}", r.rank);
        r.results.devices = vec![dev("bus", bus), dev(&own, disk)];
        r.results.device_timeseries = vec![second("bus"), second(&own)];
    }
    let r = merge(&ranks, Vec::new(), 0.0);
    let got: Vec<(&str, u64)> = (r.devices.iter())
        .map(|d| (d.name.as_str(), d.read_bytes))
        .collect();
    let want = [("a:bus", 30), ("a:d0", 10), ("a:d1", 20)];
    assert_eq!(got, [&want[..], &[("b:bus", 32), ("b:d2", 40)]].concat());
    let series: Vec<&str> = (r.device_timeseries.iter())
        .map(|d| d.device.as_str())
        .collect();
    assert_eq!(series, ["a:bus", "a:d0", "a:d1", "b:bus", "b:d2"]);
    // One host: plain names.
    let r = merge(&ranks[..2], Vec::new(), 0.0);
    let names: Vec<&str> = r.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["bus", "d0", "d1"]);
}

#[test]
fn until_takes_whole_seconds_then_a_share_of_the_last() {
    let s: Vec<TimePoint> = [100.0, 200.0, 300.0]
        .iter()
        .enumerate()
        .map(|(t, &iops)| TimePoint {
            t_s: t as u32,
            iops,
            bytes_per_s: iops,
            ..TimePoint::default()
        })
        .collect();
    assert_eq!(until(&s, 2.5, 1.5).0, 100.0 + 100.0);
    // The last point is a rate over its half second: 150 I/Os in all.
    assert_eq!(until(&s, 2.5, 10.0).0, 100.0 + 200.0 + 150.0);
}

/// The job's throughput interval: two ranks measured independently with half-widths of 3 and
/// 4 (in their own units) give the job √(3² + 4²) = 5, its share of the job's figure; one rank
/// without an interval leaves the job without one.
#[test]
fn the_jobs_interval_is_the_ranks_in_quadrature() {
    let mut ranks = vec![
        rank(0, "h", 1000, 1.0, &[1000]),
        rank(1, "h", 1000, 1.0, &[1000]),
    ];
    for (r, half) in ranks.iter_mut().zip([3.0, 4.0]) {
        r.results.total.iops_ci95 = Some(Ci95 { half, pct: 0.0 });
        r.results.total.bytes_per_s_ci95 = Some(Ci95 {
            half: half * 1e3,
            pct: 0.0,
        });
    }
    let job = merge(&ranks, Vec::new(), 0.0).total;
    let iops = job.iops_ci95.unwrap();
    assert!((iops.half - 5.0).abs() < 1e-9, "{iops:?}");
    assert!((iops.pct - 5.0 / job.iops * 100.0).abs() < 1e-9);
    assert!((job.bytes_per_s_ci95.unwrap().half - 5e3).abs() < 1e-6);
    ranks[1].results.total.iops_ci95 = None;
    assert!(merge(&ranks, Vec::new(), 0.0).total.iops_ci95.is_none());
}

/// The job of runs under a second, which have no per-second series (a part-second under
/// half a second is dropped): three ranks of 4 KiB reads, rank 0 done first at 0.25 s. Each
/// rank's count at 0.25 s is read between its counts 100 ms apart: rank 1 (20 000 IOPS
/// throughout) 4000 at 0.2 s and 6000 at 0.3 s, so 5000; rank 2 (1000 in its first 100 ms,
/// 3000 in each after) 4000 and 7000, so 5500 (not its 8200 × 0.25/0.34 = 6029); rank 0 all
/// its 2500. 13 000 I/Os in 0.25 s: 52 000 IOPS, 212.992 MB/s. The series alone counted rank
/// 0's 2500 and nothing of the others.
#[test]
fn the_stonewall_reads_each_ranks_count_at_the_first_ranks_end() {
    use crate::model::ranks::Count;
    use crate::stats::window::Window;
    let with = |n: u32, seconds: f64, marks: &[(f64, u64)]| {
        let ios = marks.last().unwrap().1;
        let mut r = rank(n, "a", ios, seconds, &[1_000]);
        assert_eq!(Window::new(seconds, 1.0).steps(), 0, "no second to report");
        r.results.timeseries.clear();
        r.results.counts = std::iter::once(Count::default())
            .chain(marks.iter().map(|&(at_s, ios)| Count {
                at_s,
                ios,
                bytes: ios * 4096,
            }))
            .collect();
        r
    };
    let ranks = [
        with(0, 0.25, &[(0.1, 1000), (0.2, 2000), (0.2502, 2500)]),
        with(
            1,
            0.32,
            &[(0.1, 2000), (0.2, 4000), (0.3, 6000), (0.3203, 6400)],
        ),
        with(
            2,
            0.34,
            &[(0.1, 1000), (0.2, 4000), (0.3, 7000), (0.3401, 8200)],
        ),
    ];
    let r = merge(&ranks, Vec::new(), 0.0);
    let first = r.job.unwrap().first_done;
    assert_eq!((first.rank, first.seconds), (0, 0.25));
    assert!((first.ios - 13_000.0).abs() < 1e-6, "{first:?}");
    assert!((first.bytes - 13_000.0 * 4096.0).abs() < 1e-3, "{first:?}");
    assert!((first.iops - 52_000.0).abs() < 1e-6, "{first:?}");
    assert!((first.bytes_per_s - 212.992e6).abs() < 1.0, "{first:?}");
    assert!(r.counts.is_empty(), "the job's results keep no counts");
}
