//! `--spin`: a wait that polls instead of sleeping keeps the worker on its CPU. One test in its
//! own binary, so that no sibling test competes for the CPUs while the shares are compared.

mod common;

use common::{LoopDev, num, run_json};

/// The worker's CPU share (% of one CPU) and IOPS for QD8 random reads with `--spin spin`.
fn share(dev: &str, spin: &str) -> (f64, f64) {
    let v = run_json(&[
        "run", dev, "--rw", "randread", "--bs", "4k", "--qd", "8", "--time", "1s", "--warmup", "0",
        "--spin", spin,
    ]);
    assert_eq!(
        v["workload"]["spin"].as_f64(),
        Some(spin.parse::<f64>().unwrap_or(1.0))
    );
    (
        num(&v, "results.cpu.process_pct_of_one_cpu"),
        num(&v, "results.total.iops"),
    )
}

#[test]
fn spinning_keeps_the_worker_on_its_cpu() {
    let Some(lo) = LoopDev::new("spin", 64 << 20) else {
        return;
    };
    // Sleeping waits: the worker is idle while the loop device works (≈ 30 % measured). Once in
    // a while the kernel runs the loop device's completions as the worker's own task work on
    // its CPU, which counts as the worker's time (66 % seen once in CI-like runs): the lower of
    // two runs is the sleeping wait's share.
    let sleeping = share(lo.path(), "0").0.min(share(lo.path(), "0").0);
    // A 1 s poll outlasts every 4k read, so the worker never sleeps (≈ 86 % measured; the rest
    // is yielded to kernel threads sharing its CPU).
    let (spinning, iops) = share(lo.path(), "1s");
    assert!(iops > 0.0);
    assert!(
        spinning >= 50.0 && spinning >= 1.5 * sleeping,
        "CPU share with --spin 1s {spinning:.1} %, without {sleeping:.1} %"
    );
}
