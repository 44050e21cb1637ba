//! With io_uring disabled by sysctl (issue 12), no record claims a depth that did not run: run
//! records QD 1 and the sync engine, quick names its tests by the threads that stood in for
//! depth, profile runs its QD4 cells as 4 threads, and sweep refuses a depth axis (exit 2).
//!
//! `kernel.io_uring_disabled` is machine-wide: this test is in tests/alone, whose tests run one
//! at a time after the other binaries' (cargo runs test binaries one after another), and the
//! setting is restored on drop, also when the test fails.

use crate::common;

use common::{num, run_json, usage_error};

const SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

/// Sets io_uring_disabled and puts the old value back when dropped.
struct Disabled(String);

impl Disabled {
    fn new() -> Option<Disabled> {
        let old = std::fs::read_to_string(SYSCTL).ok()?;
        std::fs::write(SYSCTL, "2").ok()?;
        Some(Disabled(old))
    }
}

impl Drop for Disabled {
    fn drop(&mut self) {
        let _ = std::fs::write(SYSCTL, self.0.trim());
    }
}

#[test]
fn without_io_uring_every_record_says_what_ran() {
    let _turn = crate::alone();
    if !common::is_root() {
        common::unavailable("root (to set kernel.io_uring_disabled)");
        return;
    }
    let Some(_guard) = Disabled::new() else {
        common::unavailable("the sysctl kernel.io_uring_disabled");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let path = f.to_str().unwrap();

    let v = run_json(&[
        "run", path, "--size", "16m", "--rw", "randread", "--qd", "32", "--time", "300ms",
        "--warmup", "0",
    ]);
    assert_eq!(
        v["workload"]["qd"], 1,
        "the record says QD 1: {}",
        v["workload"]
    );
    assert_eq!(v["workload"]["engine"], "sync");
    assert_eq!(v["results"]["engine"], "sync");
    let fallback = &v["results"]["engine_fallback"];
    assert_eq!(fallback["kind"], "uring_unavailable", "{fallback}");
    assert!(
        !fallback["error"].as_str().unwrap().is_empty(),
        "the kernel's error: {fallback}"
    );
    // The warning the user saw says so in words.
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("io_uring unavailable (")),
        "{}",
        v["warnings"]
    );
    // Little's law agrees: about one I/O in flight, not 32.
    let in_flight = num(&v, "results.total.iops") * num(&v, "results.read.latency_us.mean") / 1e6;
    assert!(in_flight < 1.5, "{in_flight} in flight");

    let q = run_json(&[
        "quick",
        dir.path().to_str().unwrap(),
        "--size",
        "16m",
        "--time",
        "200ms",
        "--warmup",
        "0",
    ]);
    for t in q["tests"].as_array().unwrap() {
        let w = &t["workload"];
        assert_eq!(w["qd"], 1, "{}", t["name"]);
        assert_eq!(t["results"]["engine"], "sync");
        let name = t["name"].as_str().unwrap();
        assert!(
            name.ends_with(&format!("Q1T{}", w["threads"])),
            "{name} names the shape that ran: {w}"
        );
    }
    assert!(
        q["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "RND4K Q1T32")
    );

    let p = run_json(&[
        "profile",
        path,
        "--quick",
        "--reads-only",
        "--time",
        "100ms",
        "--warmup",
        "0",
    ]);
    for c in p["cells"].as_array().unwrap() {
        assert_eq!(c["qd"], 1, "{c}");
        assert_eq!(c["engine"], "sync");
        assert!(c["threads"] == 1 || c["threads"] == 4, "{c}");
    }

    let err = usage_error(&[
        "sweep", path, "--rw", "randread", "--qd", "1,32", "--time", "100ms",
    ]);
    assert!(err.contains("--qd") && err.contains("threads"), "{err}");
}
