//! halfpower's engine against fio on the same job on an unthrottled loop device over RAM
//! (fio from Debian's packages; `.ci/run` installs it): the same I/O count for the same byte
//! budget, and at QD1 and QD16 IOPS, median and mean latency and CPU per I/O held to bounds
//! that catch a regression of the kind this project has had (docs/performance.md). The
//! figures are CPU-bound, so this test is in tests/alone: nothing runs beside it.

use crate::common;
use common::*;
use std::process::Command;

/// fio's JSON for one job on `target`: (iops, lat p50 µs, lat mean µs, total I/Os, CPU ns per
/// I/O).
fn fio(target: &str, rw: &str, qd: u32, extra: &[&str]) -> (f64, f64, f64, f64, f64) {
    let out = Command::new("fio")
        .args([
            "--name=x",
            &format!("--filename={target}"),
            &format!("--rw={rw}"),
            "--bs=4k",
        ])
        .arg(format!("--iodepth={qd}"))
        .args([
            "--ioengine=io_uring",
            "--direct=1",
            "--size=64m",
            "--output-format=json",
            // halfpower's latency runs from submission to completion, which is fio's `lat`
            // (slat + clat); fio's clat alone leaves out the submit call, and on a loop device
            // the I/O often completes inside it (clat p50 of a few µs at 45 µs per I/O).
            "--lat_percentiles=1",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &v["jobs"][0];
    let r = &j["read"];
    let cpu_s = (j["usr_cpu"].as_f64().unwrap() + j["sys_cpu"].as_f64().unwrap()) / 100.0
        * j["job_runtime"].as_f64().unwrap()
        / 1e3;
    let ios = r["total_ios"].as_f64().unwrap();
    (
        r["iops"].as_f64().unwrap(),
        r["lat_ns"]["percentile"]["50.000000"].as_f64().unwrap() / 1e3,
        r["lat_ns"]["mean"].as_f64().unwrap() / 1e3,
        ios,
        cpu_s * 1e9 / ios.max(1.0),
    )
}

#[test]
fn iops_and_latency_agree_with_fio_on_the_same_job() {
    if !have("fio", "--version") {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let _turn = crate::alone();
    // Judged on an attempt the product's probe saw quiet (common::judged_when_quiet).
    common::judged_when_quiet(3, |attempt| {
        let dir = tempfile::tempdir().unwrap();
        let lo = LoopDev::new("fio", 64 << 20);
        let file = dir.path().join("f");
        let target = match &lo {
            Some(lo) => lo.path().to_string(),
            None => {
                // Without root: a prefilled file halfpower keeps for fio to read too.
                run_json(&[
                    "run",
                    file.to_str().unwrap(),
                    "--size",
                    "64m",
                    "--bytes",
                    "4k",
                    "--keep",
                ]);
                file.to_str().unwrap().to_string()
            }
        };
        // Same I/O count: fio's io_size and halfpower's --bytes issue exactly 8192 reads.
        let (_, _, _, fio_ios, _) = fio(&target, "randread", 8, &["--io_size=32m"]);
        let v = run_json(&[
            "run", &target, "--rw", "randread", "--qd", "8", "--bytes", "32m", "--warmup", "0",
        ]);
        assert_eq!(fio_ios, 8192.0);
        assert_eq!(num(&v, "results.total.ios"), fio_ios);

        // QD1 latency on a loop device over RAM depends on where the loop's worker (an unbound
        // kworker) runs and whether its vCPU is awake or must be woken (about 10–17 µs against
        // 45–100 µs on these VMs; three arrangements in one CI attempt, halfpower's fast runs
        // 31–35 µs, fio's 23–24). fio is pinned to the CPU halfpower's worker uses, and at QD1
        // the kernel's unbound workers to that CPU too (UnboundOn), so both tools meet one
        // arrangement (13.7–13.9 µs and 14.8–18.0 then); each figure is the median of five alternating runs of 1 s after half a
        // second's ramp (tens of thousands of reads each: the spread between runs is the
        // host's, not the count's), over the runs that met the same arrangement
        // (one_arrangement: where the workers cannot be placed).
        let cpu = halfpower::affinity::allowed_cpus()
            .ok()
            .and_then(|c| c.first().copied())
            .unwrap_or(0);

        let pin = format!("--cpus_allowed={cpu}");
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let mut judged = Vec::new();
        for qd in [1u32, 16] {
            // At depth the loop's worker stays awake and may use the other CPU, as the tools
            // are compared there for their rate: only QD1's are kept to the worker's CPU.
            let _placed = (qd == 1).then(|| UnboundOn::cpu(cpu));
            let q = qd.to_string();
            let (mut f, mut h): (Vec<[f64; 4]>, Vec<[f64; 4]>) = (vec![], vec![]);
            for _ in 0..5 {
                let (i, l, m, _, c) = fio(
                    &target,
                    "randread",
                    qd,
                    &["--time_based", "--runtime=1", "--ramp_time=500ms", &pin],
                );
                f.push([i, l, m, c]);
                let v = run_json(&[
                    "run", &target, "--rw", "randread", "--qd", &q, "--time", "1s", "--warmup",
                    "500ms",
                ]);
                h.push([
                    num(&v, "results.total.iops"),
                    num(&v, "results.read.latency_us.p50"),
                    num(&v, "results.read.latency_us.mean"),
                    num(&v, "results.cpu.us_per_io") * 1e3,
                ]);
            }
            // Each tool's CPU per I/O over its five runs: the half of its range as a share of
            // its median (one run to the next moves by this much on this host).
            let half_range = |v: &[[f64; 4]]| {
                let c: Vec<f64> = v.iter().map(|x| x[3]).collect();
                let (lo, hi) = c
                    .iter()
                    .fold((f64::MAX, 0f64), |a, x| (a.0.min(*x), a.1.max(*x)));
                (hi - lo) / 2.0 / median(c)
            };
            let (hs, fs) = one_arrangement(&h, &f);
            let cpu_spread = half_range(&hs).max(half_range(&fs));
            let r: Vec<f64> = (0..4)
                .map(|k| {
                    median(hs.iter().map(|x| x[k]).collect())
                        / median(fs.iter().map(|x| x[k]).collect())
                })
                .collect();
            eprintln!(
                "QD{qd}: halfpower / fio: IOPS {:.3}, p50 {:.3}, mean {:.3}, CPU per I/O {:.3} \
                 (halfpower {h:?}; fio {f:?}; compared: {} and {} runs)",
                r[0],
                r[1],
                r[2],
                r[3],
                hs.len(),
                fs.len()
            );
            // halfpower's own mean in flight by Little's law: at most the depth.
            let inflight = median(h.iter().map(|x| x[0] * x[2] * 1e-6).collect());
            judged.push((qd, r, inflight, cpu_spread));
        }
        if !attempt.quiet() {
            return false;
        }
        // The host's share of the attempt (a few % at most when quiet): the runs of one tool
        // may have met more of it than the other's, so each ratio may move by it either way,
        // CPU per I/O too (waking halted vCPUs, caches another guest took).
        let lost = attempt.noise().lost_share();
        let (lo, hi) = (1.0 - lost, 1.0 / (1.0 - lost));
        for (qd, r, inflight, cpu_spread) in judged {
            let (iops, p50, mean, cpu) = (r[0], r[1], r[2], r[3]);
            // Bounds that catch the QD1 regression (p50 15.5–16.4 µs where fio's
            // was 8.5–10.6 and the build before 10.0–10.2: 1.55 times) and a deep queue short of
            // fio (0.64–0.76 of its IOPS at QD8 that day); measured since: QD1 IOPS 1.09, p50
            // 0.96; QD8 0.98, QD32 1.03 of fio's (docs/performance.md).
            assert!(
                (0.8 * lo..1.35 * hi).contains(&iops),
                "QD{qd}: IOPS ratio {iops:.3} (host {lost:.3})"
            );
            if qd == 1 {
                // Slower than fio is the regression this catches. Faster is no defect of
                // halfpower's when its own IOPS say so (fio's p50 was 1.48 times halfpower's on
                // one CI host, fio spending 3 µs more CPU per I/O, with IOPS 0.82 of
                // halfpower's): a latency measured short (a stamp after the submit call, or
                // before the reap) shows instead in Little's law on halfpower's own figures,
                // one I/O always in flight, less only the gap between a completion and the
                // next submission.
                assert!(p50 < 1.25 * hi, "QD1: p50 ratio {p50:.3} (host {lost:.3})");
                assert!(
                    mean < 1.25 * hi,
                    "QD1: mean latency ratio {mean:.3} (host {lost:.3})"
                );
                assert!(
                    (0.9 * lo..=1.02).contains(&inflight),
                    "QD1: mean in flight {inflight:.3} (p50 ratio {p50:.3}, mean {mean:.3})"
                );
            } else {
                // At depth the two tools keep different shares of the depth in flight (fio all
                // of it, refilling as it reaps; halfpower 13-14 of 16 here), so their medians
                // differ by design (0.68-1.1 measured): the deep queue is held to its IOPS and
                // to Little's law on halfpower's own figures.
                assert!(
                    iops >= 0.85 * lo,
                    "QD{qd}: IOPS ratio {iops:.3} (host {lost:.3})"
                );
                assert!(
                    (0.5..=1.02).contains(&(inflight / qd as f64)),
                    "QD{qd}: mean in flight {inflight:.2} (p50 ratio {p50:.3}, mean {mean:.3})"
                );
            }
            // halfpower's CPU per I/O at most fio's, give or take the runs' own spread: the
            // ratio of two medians of five moves by about half a run's range (in CI the two
            // tools' runs spread 10 651–12 863 and 10 954–12 915 ns, whole overlapping, and the
            // medians' ratio was 1.050).
            assert!(
                cpu <= hi * (1.0 + cpu_spread),
                "QD{qd}: CPU per I/O ratio {cpu:.3} (host {lost:.3}, runs' spread {cpu_spread:.3})"
            );
        }
        true
    });
}

/// The kernel's unbound workqueues (a loop device's worker among them) kept to one CPU while
/// it lives (/sys/devices/virtual/workqueue/cpumask), the CPUs they had put back on drop.
struct UnboundOn {
    old: String,
}

impl UnboundOn {
    const FILE: &'static str = "/sys/devices/virtual/workqueue/cpumask";

    /// Keeps them to `cpu`; None where the mask cannot be read or written (not root, an older
    /// kernel): the runs then meet whatever arrangement the scheduler makes.
    fn cpu(cpu: usize) -> Option<UnboundOn> {
        let old = std::fs::read_to_string(Self::FILE).ok()?;
        std::fs::write(Self::FILE, format!("{:x}", 1u64 << cpu.min(63))).ok()?;
        Some(UnboundOn {
            old: old.trim().to_string(),
        })
    }
}

impl Drop for UnboundOn {
    fn drop(&mut self) {
        let _ = std::fs::write(Self::FILE, &self.old);
    }
}

/// The runs of each tool (`[IOPS, p50 µs, mean µs, CPU ns per I/O]`) that met the same
/// arrangement of the host. A read on a loop device over RAM takes 26–30 µs at its median while
/// the loop worker's vCPU is awake and 75–95 µs when each must wake it, and a run keeps one
/// arrangement or the other for seconds at a time (in one attempt: halfpower's five runs three
/// fast and two slow, fio's two and three, medians 1.72 apart in IOPS and 1.0 within either).
/// When the runs' medians span more than twice the fastest, they are split at the geometric
/// middle, and the arrangement in which both tools ran most often (the fast one on a tie) is
/// compared; otherwise, or when no arrangement holds runs of both, all of them.
fn one_arrangement(h: &[[f64; 4]], f: &[[f64; 4]]) -> (Vec<[f64; 4]>, Vec<[f64; 4]>) {
    let p50s = h.iter().chain(f).map(|x| x[1]);
    let (lo, hi) = p50s.fold((f64::MAX, 0f64), |a, p| (a.0.min(p), a.1.max(p)));
    if hi <= 2.0 * lo {
        return (h.to_vec(), f.to_vec());
    }
    let split = (lo * hi).sqrt();
    let side = |v: &[[f64; 4]], fast: bool| -> Vec<[f64; 4]> {
        v.iter()
            .filter(|x| (x[1] < split) == fast)
            .copied()
            .collect()
    };
    let (hf, ff, hs, fs) = (side(h, true), side(f, true), side(h, false), side(f, false));
    let (fast, slow) = (hf.len().min(ff.len()), hs.len().min(fs.len()));
    match (fast, slow) {
        (0, 0) => (h.to_vec(), f.to_vec()),
        (a, b) if a >= b => (hf, ff),
        _ => (hs, fs),
    }
}
