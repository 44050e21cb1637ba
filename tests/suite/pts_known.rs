//! `halfpower pts --test throughput` and `--test latency` on devices of known answer: a loop
//! device whose reads and writes blkio throttles to a known rate (every cell of a sequential
//! test at QD4 runs at that rate), and a FUSE disk that serves one request at a time in a known,
//! size-dependent time (every QD1 cell's latency is at least that time, and its IOPS at most
//! one over it). The steady-state verdicts are checked against PTS's rule worked from the
//! rounds' tracking values.

use crate::common;
use common::fuse::{Server, mount_fs_with};
use common::{LoopDev, Throttle, num};
use serde_json::Value;
use std::time::Duration;

/// PTS's steady-state rule on five values: max − min within 20 % of their mean, and the
/// least-squares line's rise across them within 10 % of it.
pub(crate) fn pts_steady(five: &[f64]) -> bool {
    let mean = five.iter().sum::<f64>() / 5.0;
    let range = five.iter().copied().fold(f64::MIN, f64::max)
        - five.iter().copied().fold(f64::MAX, f64::min);
    let slope = five
        .iter()
        .enumerate()
        .map(|(i, y)| (i as f64 - 2.0) * (y - mean))
        .sum::<f64>()
        / 10.0;
    range <= 0.2 * mean && (4.0 * slope).abs() <= 0.1 * mean
}

/// A track stops at the first window of five rounds that meets PTS's rule, or after 25 rounds;
/// checked from the rounds' own tracking values.
pub(crate) fn check_steady_stop(t: &Value) {
    let values: Vec<f64> = t["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| num(r, "tracking"))
        .collect();
    let n = values.len();
    assert!(n >= 5, "{t}");
    for end in 5..n {
        assert!(
            !pts_steady(&values[end - 5..end]),
            "rounds {}..{end} were steady, yet the track went on: {values:?}",
            end - 4
        );
    }
    let last = pts_steady(&values[n - 5..]);
    assert_eq!(t["steady"]["reached"], last, "{values:?}");
    assert!(last || n == 25, "{values:?}");
    assert_eq!(num(t, "steady.window.last_round") as usize, n);
}

/// The cap every cell of the throughput test meets, bytes/s, reads and writes alike.
const CAP: u64 = 40_000_000;

/// blk-throttle lets a group that was idle dispatch one slice's worth at once (100 ms of its
/// rate, the kernel's default slice for a throttled queue), so a window of T seconds that
/// begins with a fresh slice may carry up to (T + 0.1) × CAP bytes; the requests already in
/// flight when the window opens (`in_flight` bytes: QD × the request size) were charged to
/// the throttle before it and complete inside it. The bound on a cell's rate is
/// (CAP × (T + 0.1) + in_flight) / T, plus 2 % for the clocks at the window's edges (a 0.6-s
/// cell of 128k at QD4 carried 47.87 MB/s, 0.115 s of the cap beyond its own). From below,
/// QD4 keeps the throttle's queue full, so a cell loses only the first request's wait: 10 %.
fn within_cap(bytes_per_s: f64, secs: f64, in_flight: f64) -> bool {
    let cap = CAP as f64;
    (0.9 * cap..=(cap * (secs + 0.1) + in_flight) / secs * 1.02).contains(&bytes_per_s)
}

/// Must show: on a 16 MiB loop device throttled to 40 MB/s each way, every cell of the
/// throughput test (sequential 128k and 1m, 100/0 and 0/100, QD4) runs at 40 MB/s, and so does
/// its window average; preconditioning writes what it was asked at that rate; the tracking
/// variable is the 0/100 cell's MB/s of the track's size.
#[test]
fn throughput_test_meets_a_throttled_devices_rate() {
    let _turn = common::measuring();
    let (Some(lo), Some(cg)) = (LoopDev::new("ptsbw", 16 << 20), Throttle::new("ptsbw")) else {
        return;
    };
    cg.limit(&lo.dev, CAP, 0);
    let v = cg.run_json(&[
        "pts",
        lo.path(),
        "--test",
        "throughput",
        "--round",
        "500ms",
        "--threads",
        "1",
        "--qd",
        "4",
        "--precondition",
        "8m",
        "--allow-write",
        "--destroy-data",
    ]);
    let tracks = v["tracks"].as_array().unwrap();
    let sizes: Vec<u64> = tracks
        .iter()
        .map(|t| t["tracking"]["bs_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(
        sizes,
        [128 << 10, 1 << 20],
        "one track per size, 128k first"
    );
    for t in tracks {
        let bs = t["tracking"]["bs_bytes"].as_u64().unwrap();
        let p = &t["precondition"];
        assert_eq!(num(p, "written_bytes"), (8 << 20) as f64, "{p}");
        let rate = num(p, "written_bytes") / num(p, "seconds");
        assert!(
            within_cap(rate, num(p, "seconds"), 0.0),
            "preconditioning {rate} B/s: {p}"
        );
        for r in t["rounds"].as_array().unwrap() {
            let cells = r["cells"].as_array().unwrap();
            assert_eq!(cells.len(), 2, "100/0 and 0/100 of {bs}: {r}");
            for c in cells {
                assert_eq!(c["bs_bytes"].as_u64(), Some(bs), "{c}");
                let (got, secs) = (num(c, "bytes_per_s"), num(c, "seconds"));
                eprintln!(
                    "{bs} B, {}: round {}: {:.2} MB/s over {secs:.3} s",
                    c["mix"],
                    r["round"],
                    got / 1e6
                );
                assert!(
                    within_cap(got, secs, (4 * bs) as f64),
                    "{got} B/s over {secs} s: {c}"
                );
                let per_io = num(c, "bytes_per_s") / num(c, "iops");
                assert!((per_io / bs as f64 - 1.0).abs() < 1e-9, "{c}");
            }
            let write = cells.iter().find(|c| c["mix"] == 0).unwrap();
            assert_eq!(num(r, "tracking"), num(write, "bytes_per_s"));
        }
        for avg in t["window_matrix"].as_array().unwrap() {
            assert!(
                within_cap(num(avg, "bytes_per_s"), 0.5, (4 * bs) as f64),
                "{avg}"
            );
        }
        check_steady_stop(t);
    }
}

/// The FUSE disk's service time: 2 ms, plus 100 µs per KiB.
const BASE: Duration = Duration::from_millis(2);
const PER_KIB_NS: i64 = 100_000;

/// Must show: on a FUSE disk serving one request at a time in 2 ms + 100 µs per KiB (0.5k, 4k,
/// 8k: 2.05, 2.4, 2.8 ms), every cell of the latency test (one thread, QD1) has a mean and a
/// least latency of at least the server's time, a least latency within 0.5 ms of it (the
/// fastest wake-up of the FUSE path: 0.05–0.3 ms measured), at most one I/O in flight (IOPS ×
/// mean latency ≤ 1) and so an IOPS of at most one over the server's time; the tracking
/// variable is the 4k 0/100 cell's mean latency.
#[test]
fn latency_test_meets_a_known_service_time() {
    let _turn = common::exclusive();
    let server = Server::new(1 << 20, BASE).sloped(PER_KIB_NS).purgeable();
    let service_ms = |bs: f64| (BASE.as_nanos() as f64 + PER_KIB_NS as f64 * bs / 1024.0) / 1e6;
    let Some(fs) = mount_fs_with(server, "halfpower-ptslat", 1) else {
        return;
    };
    let v = crate::pts::pts(&[
        &fs.disk(),
        "--test",
        "latency",
        "--round",
        "150ms",
        "--precondition",
        "512k",
    ]);
    let t = &v["tracks"][0];
    assert_eq!(t["purge"]["state"], "done", "{}", t["purge"]);
    for r in t["rounds"].as_array().unwrap() {
        let cells = r["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 9, "3 mixes × 3 sizes: {r}");
        for c in cells {
            let s = service_ms(num(c, "bs_bytes"));
            let (mean, min) = (
                num(c, "latency_us.mean") / 1e3,
                num(c, "latency_us.min") / 1e3,
            );
            let iops = num(c, "iops");
            assert!(
                min >= s * 0.999 && min <= s + 0.5,
                "least {min} ms, server {s}: {c}"
            );
            assert!(mean >= min, "{c}");
            assert!(iops * mean / 1e3 <= 1.01, "{iops} IOPS × {mean} ms: {c}");
            assert!(iops <= 1.01e3 / s, "{iops} IOPS against 1/{s} ms: {c}");
        }
        let write4k = cells
            .iter()
            .find(|c| c["bs_bytes"] == 4096 && c["mix"] == 0)
            .unwrap();
        assert_eq!(num(r, "tracking"), num(write4k, "latency_us.mean"));
    }
    for avg in t["window_matrix"].as_array().unwrap() {
        let s = service_ms(num(avg, "bs_bytes"));
        let mean = num(avg, "mean_latency_us") / 1e3;
        eprintln!(
            "{} B, {}: window mean {mean:.3} ms, server {s:.3} ms, {:.1} IOPS",
            avg["bs_bytes"],
            avg["mix"],
            num(avg, "iops")
        );
        assert!(mean >= s, "{mean} ms against the server's {s}: {avg}");
    }
    check_steady_stop(t);
}
