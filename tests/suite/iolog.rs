//! `run --io-log`: the per-I/O record against the JSON of the same run and against a loop
//! device the kernel throttles to a known IOPS.

use crate::common::{self, LoopDev, Throttle};

/// The JSON's width of the histogram bucket holding `ns` (src/stats/histogram.rs: one ns
/// below 256 ns, then 128 buckets per power of two).
fn bucket_width(ns: f64) -> f64 {
    if ns < 256.0 {
        1.0
    } else {
        2f64.powi(ns.log2().floor() as i32 - 7)
    }
}

/// The `q` quantile of sorted `v` as the JSON defines it: the ⌈q·n⌉-th smallest.
fn quantile(v: &[u64], q: f64) -> f64 {
    let rank = ((q * v.len() as f64).ceil() as usize).max(1);
    v[rank - 1] as f64
}

/// A 3-s mixed random run at QD4 on a device throttled to 2000 IOPS a direction: the log has a
/// line per I/O the JSON counts, its bytes, its directions, its percentiles within a bucket,
/// a line per I/O the kernel counted on the device, and no more lines than the cap allows.
///
/// The test shares the machine with the suite's other tests, so it holds the count to the
/// kernel's and the cap only from above: a closed loop reaches a cap only while its depth
/// covers the round trip (QD4 at 4000 IOPS: 1 ms), and each wake-up on the way (the loop
/// device's worker, the completion's softirq, halfpower's worker) waits for a CPU the other
/// tests hold. Traced here under load: 16 ms from a completion to the next submission, 220
/// IOPS a direction, the throttle's timer idle; the "lost second" of earlier runs (4429 reads
/// in 3 s) was such a run, counted right by both halfpower and the kernel.
#[test]
fn the_io_log_holds_every_measured_io_and_its_latency() {
    let _turn = common::measuring();
    let (Some(lo), Some(cg)) = (LoopDev::new("iolog", 64 << 20), Throttle::new("iolog")) else {
        return;
    };
    cg.limit(&lo.dev, 0, 2000);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("io.csv");
    let log_arg = log.to_str().unwrap();
    let j = cg.run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randrw",
        "--bs",
        "4k",
        "--qd",
        "4",
        "--time",
        "3s",
        "--warmup",
        "0",
        "--allow-write",
        "--io-log",
        log_arg,
    ]);
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t_ns,lat_ns,dir,bytes,offset,target"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let n = |r: &Vec<&str>, i: usize| -> u64 { r[i].parse().unwrap() };
    let t = &j["results"]["total"];
    assert_eq!(rows.len() as f64, common::num(t, "ios"), "a line per I/O");
    let bytes: u64 = rows.iter().map(|r| n(r, 3)).sum();
    assert_eq!(bytes as f64, common::num(t, "bytes"));
    let reads = rows.iter().filter(|r| r[2] == "read").count();
    let writes = rows.iter().filter(|r| r[2] == "write").count();
    assert_eq!(reads + writes, rows.len());
    assert_eq!(reads as f64, common::num(&j["results"]["read"], "ios"));
    assert_eq!(writes as f64, common::num(&j["results"]["write"], "ios"));
    // Completion order, within the measured window, on the one target, inside the device.
    let seconds = common::num(&j["results"], "seconds");
    let times: Vec<u64> = rows.iter().map(|r| n(r, 0)).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    assert!(*times.last().unwrap() as f64 <= seconds * 1e9);
    for r in &rows {
        assert_eq!((r[5], n(r, 4) % 4096), ("0", 0), "{r:?}");
        assert!(n(r, 4) + 4096 <= 64 << 20, "{r:?}");
    }
    // The percentiles from the log's latencies and the JSON's from its histogram: one bucket.
    let mut lat: Vec<u64> = rows.iter().map(|r| n(r, 1)).collect();
    lat.sort_unstable();
    for (q, key) in [(0.5, "p50"), (0.99, "p99")] {
        let json_ns = common::num(&t["latency_us"], key) * 1000.0;
        let log_ns = quantile(&lat, q);
        assert!(
            (log_ns - json_ns).abs() <= bucket_width(json_ns),
            "{key}: log {log_ns} ns, JSON {json_ns} ns"
        );
    }
    // The kernel's count of the group's I/O over the whole process, which measured from its
    // first I/O (no warm-up): every write is a logged one, and every read but the two halfpower
    // makes before measuring (the signature check and the direct-I/O probe at offset 0).
    let kernel = cg.serviced(&lo.dev);
    assert_eq!(
        kernel.1, writes as u64,
        "the kernel's writes against the log's"
    );
    assert!(
        (0..=2).contains(&(kernel.0 as i64 - reads as i64)),
        "the kernel counted {} reads, the log {reads}",
        kernel.0
    );
    // The cap, from above: 2000 a second in each direction, plus one 100-ms slice that
    // blk-throttle may hand out at once and the depth.
    let most = 2000.0 * seconds + 200.0 + 4.0;
    for (dir, count) in [("reads", reads), ("writes", writes)] {
        assert!(
            count > 0 && count as f64 <= most,
            "{count} {dir} in {seconds:.3} s at 2000 IOPS"
        );
    }
}

/// `--io-log` refuses what it cannot do, naming the value, before anything runs.
#[test]
fn the_io_log_refuses_repeats_and_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("io.csv");
    let log_arg = log.to_str().unwrap();
    let base = [
        "run",
        "x",
        "--engine",
        "null",
        "--time",
        "100ms",
        "--warmup",
        "0s",
        "--rate-iops",
        "1000",
    ];
    let mut args = base.to_vec();
    args.extend(["--io-log", log_arg, "--repeat", "2"]);
    let e = common::usage_error(&args);
    assert!(e.contains("--repeat") && e.contains("--io-log"), "{e}");
    std::fs::write(&log, "old").unwrap();
    let mut args = base.to_vec();
    args.extend(["--io-log", log_arg]);
    let e = common::usage_error(&args);
    assert!(e.contains("--force"), "{e}");
    args.extend(["--force", "--quiet"]);
    common::halfpower().args(&args).assert().success();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.lines().count() > 1, "replaced with --force");
}
