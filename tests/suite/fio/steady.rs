//! fio's steady state (`steadystate`, `ss_dur`, `ss_ramp`) against fio 3.33 on a device whose
//! answer is known: a loop device throttled to a flat 2000 IOPS is steady from its first
//! second, so the first full window (after the ramp) holds in both tools.

use super::*;

/// The window's largest deviation from its mean, % of the mean: the criterion recomputed from
/// the samples a tool reported.
fn deviation_pct(iops: &[Value]) -> f64 {
    let x: Vec<f64> = iops.iter().map(|v| v.as_f64().unwrap()).collect();
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    100.0 * x.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max) / mean
}

/// A flat 2000-IOPS device with `steadystate=iops:2%`, `ss_dur=5`, `ss_ramp=1` and
/// `runtime=30`: fio 3.33 attains it and ends after about 7 s. halfpower must attain it, end
/// before 15 s and not before the ramp and one full window (6 s), write fio's `steadystate`
/// object with fio's keys, and its criterion must be the one its own samples give. At iodepth=32
/// the job covers a 16-ms round trip at the cap, so the suite's other tests delaying the wake-ups
/// on the loop's path do not take it off the cap (a closed loop reaches a cap only while its
/// depth covers the round trip).
#[test]
fn steadystate_ends_a_flat_job_as_fio_does() {
    let _turn = crate::common::measuring();
    let Some(t) = Throttled::new("fiossteady", 400_000_000, 2000, |dev| {
        format!(
            "[ss]\nfilename={}\nrw=randwrite\nbs=4k\ndirect=1\nioengine=io_uring\niodepth=32\n\
             runtime=30\ntime_based\nsteadystate=iops:2%\nss_dur=5\nss_ramp=1\n",
            dev
        )
    }) else {
        return;
    };
    let run = |program: &Path, extra: &[&str]| t.json(program, extra)["jobs"][0].clone();
    common::judged_when_quiet(2, |attempt| {
        let fio = run(Path::new("fio"), &[]);
        let hp = run(
            &assert_cmd::cargo::cargo_bin("halfpower"),
            &["fio", "--allow-write", "--destroy-data", "--quiet"],
        );
        let (f, h) = (&fio["steadystate"], &hp["steadystate"]);
        // The shape and the rule's names hold whatever the host did.
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(keys(f), keys(h), "fio's keys: {f:#}\nhalfpower's: {h:#}");
        assert_eq!(keys(&f["data"]), keys(&h["data"]));
        assert_eq!(h["ss"], "iops:2.000000%");
        assert_eq!(h["ss"], f["ss"]);
        assert_eq!(h["duration"], 5);
        let samples = h["data"]["iops"].as_array().unwrap();
        assert_eq!(samples.len(), 5, "{h:#}");
        let runtime_ms = hp["job_runtime"].as_f64().unwrap();
        // No window is full before the ramp and five seconds (the last mark may come half a
        // 100-ms window early).
        assert!(
            runtime_ms >= 5950.0,
            "ended before a full window: {runtime_ms} ms"
        );
        // The criterion is the one the reported samples give.
        let crit: f64 = h["criterion"]
            .as_str()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap();
        assert!(
            (crit - deviation_pct(samples)).abs() < 1e-3,
            "criterion {crit} against the samples' {}",
            deviation_pct(samples)
        );
        if !attempt.quiet() {
            return false;
        }
        // A host that stalled the process for more than the rule's 2 % of a second can make
        // any tool's flat device look unsteady; below that the window at 6 s must hold.
        let noise = attempt.noise();
        if noise.stalled_pct > 2.0 {
            eprintln!(
                "the host stalled {:.1} % of the time: the 15-s bound is not judged",
                noise.stalled_pct
            );
            return true;
        }
        eprintln!(
            "fio: attained {} after {} ms, iops_mean {}; halfpower: attained {} after {runtime_ms} ms, iops_mean {}",
            f["attained"],
            fio["job_runtime"],
            f["data"]["iops_mean"],
            h["attained"],
            h["data"]["iops_mean"]
        );
        assert_eq!(f["attained"], 1, "fio attains it on the flat device: {f:#}");
        assert_eq!(h["attained"], 1, "{h:#}");
        assert!(runtime_ms < 15_000.0, "{runtime_ms} ms");
        let mean = h["data"]["iops_mean"].as_f64().unwrap();
        assert!(
            (mean / 2000.0 - 1.0).abs() < 0.05,
            "the cap's 2000 IOPS: {mean}"
        );
        true
    });
}

/// fio's own example steadystate.fio plans, each job with its rule: `ss=iops:10%` over 30 s after
/// 10 s, and `ss=bw_slope:1%` over 10 s after 5 s (it was refused by name before).
#[test]
fn fios_steadystate_example_plans_with_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("steadystate.fio");
    std::fs::write(
        &job,
        "[global]\nthreads=1\ngroup_reporting\ntime_based\nsize=128m\n\n\
         [ss-write]\nfilename=/dev/null\nrw=write\nbs=128k\nnumjobs=4\nruntime=5m\n\
         ss=iops:10%\nss_dur=30s\nss_ramp=10s\n\n\
         [ss-read]\nnew_group\nstonewall\nfilename=/dev/zero\nrw=randread\nbs=4k\nnumjobs=4\n\
         runtime=5m\nss=bw_slope:1%\nss_dur=10s\nss_ramp=5s\n",
    )
    .unwrap();
    let out = halfpower()
        .args(["fio", "--parse-only", job.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("ss-")).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].ends_with("or once steady (iops:10.000000% over 30 s after 10 s)"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("or once steady (bw_slope:1.000000% over 10 s after 5 s)"),
        "{text}"
    );
}
