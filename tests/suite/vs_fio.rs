//! Cross-checks against fio on the same job (fio from Debian's packages; `.ci/run` installs
//! it): every figure `halfpower fio` writes, field by field, against fio's own JSON (`halfpower_fio_fills_every_figure_fio_fills` and its table). Bounds
//! are reasoned from the device (a blkio-throttled loop device) or the workload; these shared
//! machines are noisy, so no bound rests on speed. The engine's CPU-bound IOPS and latency
//! against fio's are in tests/alone/vs_fio_cpu.rs.

use crate::common;

mod fields;
use common::*;
use halfpower::fio::{jobfile::parse_command_line, plan, resolve};
use halfpower::model::fio::{FioNote, FioNoteKind, JobEnding};
use halfpower::render::text::fio::note;
use std::process::Command;

fn fio_available() -> bool {
    Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Every figure `halfpower fio` writes, against fio's on the same jobs and the same throttled
/// device (the table and the checks: tests/suite/vs_fio/fields.rs).
#[test]
fn halfpower_fio_fills_every_figure_fio_fills() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let _turn = common::measuring();
    // The paced cases' depth distributions are compared within 10 points, and a host stall
    // during one of them (a fresh clone here: 45 % at depth 1 against fio's 88 %)
    // spoils that comparison whatever halfpower does: judged on an attempt the product's probe
    // saw quiet (common::judged_when_quiet), or on the last attempt with the depth bounds
    // widened by what the host took (fields::depth_slack).
    common::judged_when_quiet(2, |attempt| {
        let Some(measured) = fields::run_cases(&fields::CASES) else {
            return true;
        };
        if !attempt.quiet() {
            return false;
        }
        let lost = attempt.noise().lost_share();
        let lines = fields::check_cases(&fields::CASES, &measured, lost);
        eprintln!("{lines:#?}");
        true
    });
}

/// fio's JSON text of `fio ARGS` (null engine jobs: no device needed), from its first `{`
/// (fio may print a warning before the document).
fn fio_text(args: &[&str]) -> String {
    let out = Command::new("fio")
        .args(args)
        .arg("--output-format=json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text[text.find('{').unwrap_or(0)..].to_string()
}

/// halfpower's fio JSON text of the same arguments.
fn hp_text(args: &[&str]) -> String {
    let mut all = vec!["fio"];
    all.extend(args);
    all.extend(["--output-format=json", "--quiet"]);
    stdout_text(&all)
}

/// fio's JSON of `fio ARGS`.
fn fio_doc(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&fio_text(args)).unwrap()
}

/// halfpower's fio JSON of the same arguments.
fn hp_doc(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&hp_text(args)).unwrap()
}

/// The sum of a job's `latency_ns`, `latency_us` and `latency_ms`, %.
fn latency_sum(job: &serde_json::Value) -> f64 {
    ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[k].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum()
}

/// A job with one direction has its latencies everywhere fio has them: a size-ended null-engine
/// read of 16 MiB is 4096 I/Os by the job's arithmetic, and its latency buckets hold all of
/// them (100 %), also with unified_rw_reporting=1, whose `mixed` counts every one; the text
/// output has its "lat (…)" lines (`model::stored` checks that reading a run file fills in
/// the histograms it keeps once).
#[test]
fn one_direction_jobs_have_their_latencies_everywhere() {
    let job = [
        "--name=one",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
    ];
    let j = &hp_doc(&job)["jobs"][0];
    assert_eq!(num(&j["read"], "total_ios"), 4096.0);
    let sum = latency_sum(j);
    assert!((sum - 100.0).abs() <= 0.5, "latency buckets add to {sum}");
    let mut mixed = job.to_vec();
    mixed.push("--unified_rw_reporting=1");
    let m = &hp_doc(&mixed)["jobs"][0]["mixed"];
    assert_eq!(num(m, "clat_ns.N"), 4096.0);
    assert_eq!(num(m, "lat_ns.N"), 4096.0);
    assert!(
        num(m, "clat_ns.mean") > 0.0 && num(m, "clat_ns.max") > 0.0,
        "{m}"
    );
    let mut text = vec!["fio"];
    text.extend(job);
    text.push("--quiet");
    let out = stdout_text(&text);
    assert!(
        out.contains("  lat (nsec)   : ") || out.contains("  lat (usec)   : "),
        "{out}"
    );
}

/// unified_rw_reporting=both writes `read`, `write`, `trim`, `sync` and then `mixed`, in fio's
/// order, and `mixed` counts what `read` and `write` count together.
#[test]
fn unified_both_reports_each_direction_and_all_together() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let job = [
        "--name=both",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--size=16m",
        "--unified_rw_reporting=both",
    ];
    // The objects in the order the text has them (a parsed Value sorts its keys).
    let keys = |text: &str| -> Vec<String> {
        let mut at: Vec<(usize, String)> = ["read", "write", "trim", "sync", "mixed"]
            .iter()
            .filter_map(|k| {
                let (a, b) = (format!("\"{k}\" : {{"), format!("\"{k}\": {{"));
                text.find(&a).or(text.find(&b)).map(|i| (i, k.to_string()))
            })
            .collect();
        at.sort();
        at.into_iter().map(|x| x.1).collect()
    };
    let (fio, hp) = (fio_text(&job), hp_text(&job));
    assert_eq!(keys(&fio), ["read", "write", "trim", "sync", "mixed"]);
    assert_eq!(keys(&hp), keys(&fio));
    let hp: serde_json::Value = serde_json::from_str(&hp).unwrap();
    let j = &hp["jobs"][0];
    let both = num(&j["read"], "total_ios") + num(&j["write"], "total_ios");
    assert_eq!(both, 4096.0);
    assert_eq!(num(&j["mixed"], "total_ios"), both);
}

/// iodepth_level is measured: a null-engine job paced at 25 IOPS with iodepth=6 completes
/// each request before the next is due, so every one goes out alone ("1": 100), as fio's own
/// null engine reports; `iodepth_submit` and `iodepth_complete` count one I/O per call ("4",
/// fio's bucket of 1 to 4). A tool kept off the CPU for longer than the 40 ms between two
/// requests sends the late ones together (2 points of the 50 each), so ≥ 90 % is asked.
#[test]
fn iodepth_level_is_measured_at_each_submission() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let job = [
        "--name=paced",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--iodepth=6",
        "--rate_iops=25",
        "--time_based",
        "--runtime=2",
    ];
    for doc in [fio_doc(&job), hp_doc(&job)] {
        let j = &doc["jobs"][0];
        assert!(
            num(&j["iodepth_level"], "1") >= 90.0,
            "{}",
            j["iodepth_level"]
        );
        assert!(
            num(&j["iodepth_submit"], "4") >= 90.0,
            "{}",
            j["iodepth_submit"]
        );
        assert!(
            num(&j["iodepth_complete"], "4") >= 90.0,
            "{}",
            j["iodepth_complete"]
        );
    }
    // Unpaced, halfpower's null engine completes at once too, but every free slot is filled
    // before the next reap, and each reap is for a free slot: fio, reaping one at a time,
    // would hold 6 at each submission (fio's "4" bucket, 4–7). fio's own null engine completes
    // each request as it is queued, so fio shows "1": 100 there.
    // The first call, into an empty queue, counts 1 to 6 (3 of the 4096 reads below "4").
    let j = &hp_doc(&job[..6])["jobs"][0];
    assert!(
        num(&j["iodepth_level"], "4") >= 99.8,
        "{}",
        j["iodepth_level"]
    );
}

/// io_uring sends each request in a call of its own, as fio does at its default
/// `iodepth_batch=1`: a full QD8 queue on a loop device shows every submit call in fio's bucket
/// of 1–4 in both tools (halfpower counted its refills between two reaps as one call before,
/// some in the "8" bucket, though each was its own `io_uring_enter`).
#[test]
fn io_uring_submit_calls_are_one_request_each_as_fios() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let Some(lo) = common::LoopDev::new("submitcalls", 16 << 20) else {
        return;
    };
    let file = format!("--filename={}", lo.path());
    let job = [
        "--name=deep",
        file.as_str(),
        "--ioengine=io_uring",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=8",
        "--size=16m",
        "--io_size=32m",
    ];
    for (tool, doc) in [("fio", fio_doc(&job)), ("halfpower", hp_doc(&job))] {
        let j = &doc["jobs"][0];
        assert_eq!(
            num(&j["iodepth_submit"], "4"),
            100.0,
            "{tool}: {}",
            j["iodepth_submit"]
        );
        // Reaps, unlike submissions, take what is there: no claim on their buckets.
        assert!(num(&j["read"], "total_ios") == 8192.0, "{tool}");
    }
}

#[test]
fn fsync_drains_refill_the_queue_and_say_so() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let Some(lo) = common::LoopDev::new("fsyncdepth", 16 << 20) else {
        return;
    };
    let (name, file) = (
        "--name=synced".to_string(),
        format!("--filename={}", lo.path()),
    );
    let job = [
        name.as_str(),
        file.as_str(),
        "--ioengine=io_uring",
        "--direct=1",
        "--rw=randwrite",
        "--bs=4k",
        "--iodepth=4",
        "--fsync=4",
        "--time_based",
        "--runtime=1",
    ];
    // halfpower waits for the 4 writes in flight before each fsync, so every refill starts
    // from an empty queue: depths 1, 2, 3, 4, which is 25/50/25 % by the arithmetic.
    let mut writable = vec!["--allow-write"];
    writable.extend(job);
    let doc = hp_doc(&writable);
    let j = &doc["jobs"][0];
    let l = &j["iodepth_level"];
    for (bucket, share) in [("1", 25.0), ("2", 50.0), ("4", 25.0)] {
        assert!((num(l, bucket) - share).abs() <= 0.5, "{l}");
    }
    let writes = num(&j["write"], "total_ios");
    let syncs = num(&j["sync"], "total_ios");
    assert!(
        (syncs - writes / 4.0).abs() <= 1.0,
        "{syncs} syncs, {writes} writes"
    );
    let notes = &doc["jobs"][0]["halfpower"]["notes"];
    assert!(
        notes
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == "sync_drains" && n["every"] == 4),
        "{notes}"
    );
    // fio sends each fsync beside the writes in flight, so its queue stays full: "4" holds
    // (nearly) every write. The difference is fio's behaviour, said by the note.
    let f = fio_doc(&job);
    assert!(
        num(&f["jobs"][0]["iodepth_level"], "4") >= 90.0,
        "{}",
        f["jobs"][0]["iodepth_level"]
    );
}

/// ramp_time counts toward a size-ended job's size, as in fio: 2048 null-engine reads paced at
/// 1000 IOPS with 0.5 s of ramp leave 2048 − 500 for the measured phase (± 5 % for where the
/// pacing starts), in both tools.
#[test]
fn ramp_time_counts_toward_size() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let job = [
        "--name=ramp",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=8m",
        "--rate_iops=1000",
        "--ramp_time=500ms",
    ];
    for (who, doc) in [("fio", fio_doc(&job)), ("halfpower", hp_doc(&job))] {
        let n = num(&doc["jobs"][0]["read"], "total_ios");
        assert!((n / 1548.0 - 1.0).abs() <= 0.05, "{who}: {n} measured I/Os");
    }
}

/// fio samples bandwidth and IOPS every bwavgtime/iopsavgtime (500 ms unless set), so a job of
/// 0.9 s has one sample of each, and 4 at 200 ms; a job shorter than a period has none and
/// zeros, never -0.0. Both counts match fio's on the same null-engine job; a job's
/// `description` is its `desc`, as in fio.
#[test]
fn samples_follow_bwavgtime_and_desc_is_written() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let base = [
        "--name=short",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=16m",
        "--rate_iops=1000",
        "--time_based",
        "--runtime=900ms",
        "--description=a short job",
    ];
    // fio 3.33's helper thread wakes for the IOPS period, so both periods are set together.
    let short: &[&str] = &["--bwavgtime=200", "--iopsavgtime=200"];
    for (extra, samples) in [(&[][..], 1.0), (short, 4.0)] {
        let mut job = base.to_vec();
        job.extend(extra);
        let (fio, hp) = (fio_doc(&job), hp_doc(&job));
        for (who, doc) in [("fio", &fio), ("halfpower", &hp)] {
            let r = &doc["jobs"][0]["read"];
            assert_eq!(num(r, "bw_samples"), samples, "{who} {extra:?}: {r}");
            assert_eq!(num(r, "iops_samples"), samples, "{who} {extra:?}: {r}");
            // 1000 IOPS of 4 KiB: 4000 KiB/s.
            assert!(
                (num(r, "bw_mean") / 4000.0 - 1.0).abs() < 0.05,
                "{who}: {r}"
            );
            assert_eq!(doc["jobs"][0]["desc"], "a short job");
        }
    }
    let mut job = base.to_vec();
    job[7] = "--runtime=300ms";
    let r = &hp_doc(&job)["jobs"][0]["read"];
    assert_eq!(num(r, "bw_samples"), 0.0);
    assert_eq!(r["bw_mean"].to_string(), "0.0", "{r}");
}

/// A verify job says how fio would report its verification differently: a size-ended one's
/// verify reads go under `read` in fio, a time_based one is verified by fio only after a pass
/// that wrote its whole size (checked here on fio itself).
#[test]
fn verify_notes_say_how_fio_reports_verification() {
    let notes = |extra: &[&str]| {
        let mut args: Vec<String> = [
            "--name=v",
            "--filename=/tmp/halfpower-never-created",
            "--rw=write",
            "--size=1m",
            "--verify=crc32c",
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        let sections = parse_command_line(&args, &|_| None).unwrap();
        let set = resolve(&sections, &[], false).unwrap();
        plan(&set.jobs[0], false, false).unwrap().notes
    };
    let verify = |ending| FioNote {
        job: "v".into(),
        kind: FioNoteKind::Verify {
            method: "crc32c".into(),
            ending,
        },
    };
    let sized = verify(JobEnding::Size);
    assert!(notes(&[]).contains(&sized), "{:?}", notes(&[]));
    let timed = verify(JobEnding::Time);
    let time_based = ["--time_based", "--runtime=1"];
    assert!(
        notes(&time_based).contains(&timed),
        "{:?}",
        notes(&time_based)
    );
    // In words, as the warning and --parse-only give them.
    let said = note(&sized);
    assert!(
        said.contains("fio counts its verify reads under `read`"),
        "{said}"
    );
    let said = note(&timed);
    assert!(
        said.contains("fio verifies a time_based job only after"),
        "{said}"
    );
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("v");
    let fio = fio_doc(&[
        "--name=v",
        &format!("--filename={}", f.display()),
        "--rw=write",
        "--bs=4k",
        "--size=1m",
        "--verify=crc32c",
        "--verify_state_save=0",
    ]);
    assert_eq!(
        num(&fio["jobs"][0]["read"], "total_ios"),
        256.0,
        "fio's verify reads"
    );
}

/// A paced job lasts its runtime, idle end included: null-engine reads at 20 IOPS over a 1-s
/// runtime are measured over at least 1000 ms (fio 3.33: 20 or 21 reads over 1001 ms), not
/// over the 0.95 s between the first submission and the last completion (20 / 0.95 = 21.05).
#[test]
fn a_paced_job_lasts_its_runtime() {
    if !fio_available() {
        common::unavailable("fio (apt-get install fio)");
        return;
    }
    let job = [
        "--name=paced",
        "--ioengine=null",
        "--rw=randread",
        "--size=16m",
        "--rate_iops=20",
        "--time_based",
        "--runtime=1",
    ];
    for (who, doc) in [("fio", fio_doc(&job)), ("halfpower", hp_doc(&job))] {
        let r = &doc["jobs"][0]["read"];
        assert!(num(r, "runtime") >= 1000.0, "{who}: {r}");
        let n = num(r, "total_ios");
        assert!((20.0..=21.0).contains(&n), "{who}: {r}");
        let per_s = n / (num(r, "runtime") / 1000.0);
        assert!((num(r, "iops") / per_s - 1.0).abs() < 1e-3, "{who}: {r}");
    }
}
