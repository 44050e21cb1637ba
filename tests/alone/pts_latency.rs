//! `halfpower pts --test latency` on a FUSE disk that serves one request at a time in a known,
//! size-dependent time: every QD1 cell's latency is at least that time, its least within
//! 0.5 ms of it, and its IOPS at most one over it. The 0.5 ms is the host's fastest wake-up of
//! the FUSE path, so the test runs alone: beside the suite's other tests each cell's least
//! latency was up to 11.7 ms for a 2.4-ms service.

use crate::common;
use common::fuse::{Server, mount_fs_with};
use common::num;
use serde_json::Value;
use std::time::Duration;

/// `halfpower pts` with `args`, writing allowed, its JSON.
fn pts(args: &[&str]) -> Value {
    let mut all = vec!["pts"];
    all.extend(args);
    all.extend(["--allow-write", "--destroy-data", "--json", "-", "--quiet"]);
    common::stdout_json(&all)
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
    let _turn = crate::alone();
    let server = Server::new(1 << 20, BASE).sloped(PER_KIB_NS).purgeable();
    let service_ms = |bs: f64| (BASE.as_nanos() as f64 + PER_KIB_NS as f64 * bs / 1024.0) / 1e6;
    let Some(fs) = mount_fs_with(server, "halfpower-ptslat", 1) else {
        return;
    };
    let v = pts(&[
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
    common::pts::check_steady_stop(t);
}
