//! The command line end to end on temporary files: exact counts, JSON shape, refusals, Ctrl-C.

use crate::common;
use common::*;
use std::time::{Duration, Instant};

#[test]
fn bytes_runs_issue_exactly_the_requested_ios() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let f = f.to_str().unwrap();
    for (rw, qd, engine) in [
        ("randread", "16", "uring"),
        ("write", "4", "uring"),
        ("randrw", "1", "sync"),
    ] {
        let v = run_json(&[
            "run", f, "--size", "64m", "--bytes", "64m", "--bs", "4k", "--rw", rw, "--qd", qd,
            "--engine", engine, "--warmup", "100ms",
        ]);
        assert_eq!(num(&v, "results.total.ios"), 16384.0, "{rw}");
        assert_eq!(num(&v, "results.total.bytes"), (64u64 << 20) as f64, "{rw}");
        assert_eq!(num(&v, "results.errors.count"), 0.0);
        if rw == "randrw" {
            let r = num(&v, "results.read.ios");
            let w = num(&v, "results.write.ios");
            assert_eq!(r + w, 16384.0);
            assert!((0.4..0.6).contains(&(r / 16384.0)), "read share {r}");
        }
        assert!(!dir.path().join("f").exists(), "created file removed");
    }
}

#[test]
fn threads_and_targets_share_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let v = run_json(&[
        "run",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--size",
        "16m",
        "--bytes",
        "32m",
        "--bs",
        "16k",
        "--threads",
        "3",
        "--qd",
        "5",
        "--rw",
        "randread",
        "--warmup",
        "0",
    ]);
    assert_eq!(num(&v, "results.total.ios"), 2048.0);
    let per: f64 = (0..2)
        .map(|i| num(&v, &format!("results.targets.{i}.total.ios")))
        .sum();
    assert_eq!(per, 2048.0);
    assert_eq!(v["targets"].as_array().unwrap().len(), 2);
}

#[test]
fn json_has_the_keys_scripts_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let v = run_json(&[
        "run",
        f.to_str().unwrap(),
        "--size",
        "32m",
        "--rw",
        "randrw",
        "--time",
        "1s",
        "--warmup",
        "200ms",
        "--qd",
        "4",
    ]);
    assert_eq!(v["schema_version"], 2);
    assert_eq!(v["kind"], "run");
    for key in [
        "results.total.iops",
        "results.total.bytes_per_s",
        "results.read.latency_us.p50",
        "results.read.latency_us.p99",
        "results.read.latency_us.max",
        "results.write.latency_us.p50",
        "results.write.latency_us.p99",
        "results.write.latency_us.max",
        "results.cpu.us_per_io",
        "results.cpu.system_us_per_io",
        "results.cpu.process_user_s",
        "results.cpu.process_sys_s",
        "host.cpus",
        "workload.qd",
        "workload.read_pct",
    ] {
        num(&v, key);
    }
    assert_eq!(v["results"]["interrupted"], false);
    assert!(v["results"]["devices"].is_array());
    for d in v["results"]["devices"].as_array().unwrap() {
        for k in ["name", "util_pct", "reads", "writes"] {
            assert!(!d[k].is_null(), "devices[].{k}");
        }
    }
    assert!(
        !v["workload"]["time"].is_null(),
        "effective options are all written"
    );
    assert!(!v["host"]["kernel"].as_str().unwrap().is_empty());
    let lat = &v["results"]["read"]["latency_us"];
    let order = ["min", "p50", "p90", "p99", "p99.9", "p99.99", "max"];
    for w in order.windows(2) {
        assert!(
            lat[w[0]].as_f64() <= lat[w[1]].as_f64(),
            "{} <= {}: {lat}",
            w[0],
            w[1]
        );
    }
    let buckets = v["results"]["read"]["histogram"].as_array().unwrap();
    let in_buckets: f64 = buckets.iter().map(|b| b["count"].as_f64().unwrap()).sum();
    assert_eq!(
        in_buckets,
        num(&v, "results.read.ios"),
        "the histogram holds every I/O"
    );
    let series = v["results"]["timeseries"].as_array().unwrap();
    assert!(
        !series.is_empty() && series.len() <= 2,
        "{} seconds",
        series.len()
    );
}

#[test]
fn littles_law_holds_for_the_reported_latency() {
    // Mean latency × IOPS = mean I/Os in flight (Little's law), at most the queue depth in a
    // closed loop. A slot is empty only from its completion's stamp to its refill's: the worker
    // then reaps the rest of its batch and refills the slots before it, one submission each
    // (src/engine/uring.rs), so a slot waits at most (QD + 1) / 2 I/Os' worth of the worker's
    // CPU on average, or the time the worker waited for a CPU. The bound is taken from the
    // run's own CPU per I/O and run delay (measured on the root disk here: QD1 sync 0.994 in
    // flight against a bound of 0.742, QD8 io_uring 7.53 against 6.90).
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    for (qd, engine) in [(1u32, "sync"), (8, "uring")] {
        let q = qd.to_string();
        let v = run_json(&[
            "run",
            f.to_str().unwrap(),
            "--size",
            "64m",
            "--rw",
            "randread",
            "--qd",
            &q,
            "--engine",
            engine,
            "--time",
            "1s",
            "--warmup",
            "200ms",
        ]);
        let iops = num(&v, "results.total.iops");
        let in_flight = iops * num(&v, "results.read.latency_us.mean") / 1e6;
        let qd = qd as f64;
        let gap_s = (qd + 1.0) / 2.0 * num(&v, "results.cpu.us_per_io") / 1e6;
        let waited = num(&v, "results.host.workers_waited_ms") / 1e3 / num(&v, "results.seconds");
        let low = qd - iops * gap_s - qd * waited;
        assert!(
            in_flight >= low && in_flight <= qd * 1.01,
            "QD {qd} ({engine}): Little's law gives {in_flight:.3} in flight, the worker's \
             CPU and run delay allow down to {low:.3}: {}",
            v["results"]["cpu"]
        );
    }
}

#[test]
fn workers_are_pinned_as_affinity_says() {
    let cpus = |extra: &[&str]| -> Vec<u64> {
        let mut args = vec![
            "run",
            "null",
            "--engine",
            "null",
            "--threads",
            "3",
            "--bytes",
            "1m",
            "--warmup",
            "0",
        ];
        args.extend_from_slice(extra);
        let v = run_json(&args);
        assert_eq!(
            v["workload"]["affinity"],
            extra.get(1).copied().unwrap_or("spread")
        );
        v["results"]["worker_cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect()
    };
    assert_eq!(cpus(&["--affinity", "0"]), [0, 0, 0]);
    assert_eq!(cpus(&["--affinity", "none"]), Vec::<u64>::new());
    let spread = cpus(&[]);
    assert_eq!(spread.len(), 3);
    let n = std::thread::available_parallelism().unwrap().get() as u64;
    if n >= 3 {
        assert_eq!(
            spread,
            [spread[0], spread[0] + 1, spread[0] + 2],
            "round robin"
        );
    } else {
        assert_eq!(
            spread[0],
            spread[2 % n as usize],
            "round robin over {n} CPUs"
        );
    }
}

#[test]
fn keep_keeps_and_existing_files_are_read_without_allow_write() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("kept");
    let fs = f.to_str().unwrap();
    run_json(&[
        "run", fs, "--size", "8m", "--bytes", "1m", "--keep", "--warmup", "0",
    ]);
    assert_eq!(std::fs::metadata(&f).unwrap().len(), 8 << 20);
    let v = run_json(&[
        "run", fs, "--rw", "randread", "--bytes", "4m", "--warmup", "0",
    ]);
    assert_eq!(num(&v, "results.total.ios"), 1024.0);
    assert_eq!(v["targets"][0]["created"], false);
    assert!(f.exists(), "an existing file is never removed");
    halfpower()
        .args(["run", fs, "--rw", "write", "--bytes", "1m"])
        .assert()
        .code(2);
    let v = run_json(&[
        "run",
        fs,
        "--rw",
        "write",
        "--bytes",
        "1m",
        "--allow-write",
        "--warmup",
        "0",
    ]);
    assert_eq!(num(&v, "results.write.ios"), 256.0);
}

#[test]
fn null_engine_opens_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = halfpower()
        .current_dir(dir.path())
        .args([
            "run", "null", "--engine", "null", "--bytes", "400m", "--bs", "4k", "--warmup", "0",
            "--json", "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(num(&v, "results.total.ios"), 102_400.0);
    assert_eq!(v["results"]["engine"], "null");
    assert!(!dir.path().join("null").exists());
    assert!(
        num(&v, "results.cpu.us_per_io") < 50.0,
        "a no-op I/O costs well under 50 µs"
    );
}

/// Each bad invocation: exit 2, one line on stderr naming the bad value, nothing on stdout.
#[test]
fn bad_invocations_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap().to_string();
    let existing = filled_file(dir.path(), "existing", 1 << 20);
    let ex = existing.to_str().unwrap().to_string();
    let new = format!("{d}/new");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["run".into(), new.clone(), "--bs".into(), "4q".into()],
            "4q",
        ),
        (
            vec!["run".into(), new.clone(), "--qd".into(), "0".into()],
            "--qd '0'",
        ),
        // A list is sweep's; one value elsewhere, and the refusal names what was given.
        (
            vec!["run".into(), new.clone(), "--qd".into(), "4,8".into()],
            "--qd '4,8': one value here",
        ),
        (
            vec![
                "sweep".into(),
                new.clone(),
                "--bs".into(),
                "4k/50:64k/50".into(),
            ],
            "--bs '4k/50:64k/50': one request size here",
        ),
        (
            vec![
                "scale".into(),
                new.clone(),
                format!("{d}/new2"),
                "--rw".into(),
                "read,write".into(),
            ],
            "--rw 'read,write': one value here",
        ),
        (
            vec![
                "pts".into(),
                new.clone(),
                "--test".into(),
                "iops".into(),
                "--threads".into(),
                "2,4".into(),
            ],
            "--threads '2,4': one value here",
        ),
        (
            vec!["quick".into(), d.clone(), "--repeat".into(), "0".into()],
            "'0' for '--repeat <N>': 0 is not in 1..=1000",
        ),
        (
            vec![
                "sweep".into(),
                new.clone(),
                "--repeat".into(),
                "1001".into(),
            ],
            "1001 is not in 1..=1000",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--bs".into(),
                "4k/60:64k/50".into(),
            ],
            "add up to 110, not 100",
        ),
        (
            vec!["run".into(), new.clone(), "--qd".into(), "-3".into()],
            "-3",
        ),
        (
            vec!["run".into(), new.clone(), "--threads".into(), "0".into()],
            "--threads '0'",
        ),
        (
            vec!["run".into(), new.clone(), "--rw".into(), "sideways".into()],
            "sideways",
        ),
        (
            vec!["run".into(), new.clone(), "--affinity".into(), "3-1".into()],
            "3-1",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--engine".into(),
                "sync".into(),
                "--spin".into(),
                "20us".into(),
            ],
            "--spin '20us'",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--affinity".into(),
                "1023".into(),
            ],
            "--affinity '1023'",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--time".into(),
                "10parsecs".into(),
            ],
            "10parsecs",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--time".into(),
                "1s".into(),
                "--bytes".into(),
                "1m".into(),
            ],
            "--bytes",
        ),
        (
            vec!["run".into(), new.clone(), "--bytes".into(), "5000".into()],
            "--bytes '5000'",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--engine".into(),
                "sync".into(),
                "--qd".into(),
                "4".into(),
            ],
            "--qd '4'",
        ),
        (
            vec!["run".into(), new.clone(), "--read-pct".into(), "30".into()],
            "--read-pct '30'",
        ),
        (
            vec![
                "run".into(),
                new.clone(),
                "--rw".into(),
                "rw".into(),
                "--read-pct".into(),
                "130".into(),
            ],
            "130",
        ),
        (
            vec!["run".into(), new.clone(), "--engine".into(), "fast".into()],
            "fast",
        ),
        (
            vec!["run".into(), new.clone(), "--destroy-data".into()],
            "--allow-write",
        ),
        (vec!["run".into(), d.clone()], "directory"),
        (
            vec!["run".into(), "/nonexistent-dir/f".into()],
            "/nonexistent-dir",
        ),
        (vec!["run".into(), "/dev/null".into()], "/dev/null"),
        (
            vec!["run".into(), new.clone(), "--size".into(), "100t".into()],
            "not enough free space",
        ),
        (
            vec!["run".into(), ex.clone(), "--bs".into(), "1000".into()],
            "--bs '1000'",
        ),
        (
            vec!["run".into(), ex.clone(), "--rw".into(), "write".into()],
            "--allow-write",
        ),
        (
            vec!["run".into(), ex.clone(), "--offset".into(), "2m".into()],
            "--offset '2m'",
        ),
        (
            vec!["run".into(), ex.clone(), "--size".into(), "4m".into()],
            "--size",
        ),
        (
            vec![
                "run".into(),
                ex.clone(),
                "--json".into(),
                "/nonexistent-dir/out.json".into(),
            ],
            "/nonexistent-dir/out.json",
        ),
        (vec!["run".into()], "TARGET"),
        (
            vec!["quick".into(), "/nonexistent-dir".into()],
            "/nonexistent-dir",
        ),
        (
            vec!["quick".into(), d.clone(), "--size".into(), "0x10".into()],
            "0x10",
        ),
        (vec!["--frobnicate".into()], "--frobnicate"),
    ];
    for (args, needle) in cases {
        let out = halfpower()
            .args(&args)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed on stdout");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line, got: {err}"
        );
        assert!(err.starts_with("halfpower: "), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err} lacks {needle}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("existing")],
        "nothing created is left behind"
    );
}

#[test]
fn ctrl_c_stops_promptly_and_still_reports() {
    stopped_by(libc::SIGINT, 130);
}

#[test]
fn sigterm_stops_promptly_and_exits_143() {
    stopped_by(libc::SIGTERM, 143);
}

/// A 60-s run sent `signal` after 1.5 s of measuring stops within 3 s (it stops issuing at
/// once; draining, writing the JSON and removing the file take the rest), writes its partial
/// results marked interrupted, exits `code` and removes the file it created.
fn stopped_by(signal: i32, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let json = dir.path().join("out.json");
    let bin = assert_cmd::cargo::cargo_bin("halfpower");
    let started = Instant::now();
    let mut child = std::process::Command::new(bin)
        .args([
            "run",
            f.to_str().unwrap(),
            "--size",
            "32m",
            "--rw",
            "randread",
            "--qd",
            "4",
            "--time",
            "60s",
            "--warmup",
            "200ms",
            "--json",
        ])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the file exists and the run has had time to measure.
    while !f.exists() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill with a valid pid and signal.
    let sent = Instant::now();
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(3),
        "stopped promptly: {:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(code));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["results"]["interrupted"], true);
    assert!(num(&v, "results.total.ios") > 0.0);
    assert!(num(&v, "results.seconds") < 30.0);
    assert!(!f.exists(), "the created file is removed after Ctrl-C");
}

#[test]
fn quick_suite_runs_eight_tests_and_cleans_up() {
    let _turn = crate::common::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let v = stdout_json(&[
        "quick", d, "--size", "32m", "--time", "300ms", "--warmup", "100ms", "--json", "-",
    ]);
    assert_eq!(v["kind"], "quick");
    let tests = v["tests"].as_array().unwrap();
    let names: Vec<String> = tests
        .iter()
        .map(|t| {
            format!(
                "{} {}",
                t["name"].as_str().unwrap(),
                t["direction"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            "SEQ1M Q8T1 read",
            "SEQ1M Q8T1 write",
            "SEQ1M Q1T1 read",
            "SEQ1M Q1T1 write",
            "RND4K Q32T1 read",
            "RND4K Q32T1 write",
            "RND4K Q1T1 read",
            "RND4K Q1T1 write"
        ]
    );
    // Issue 13: the suite's finding (render words it, with the next command to run), with the
    // half-power view of QD1 against QD32.
    let f = &v["finding"];
    assert_eq!(num(f, "seq_mb_s"), num(&tests[0], "results.total.mb_per_s"));
    assert_eq!(num(f, "deep_iops"), num(&tests[4], "results.total.iops"));
    let share = 100.0 * num(&tests[6], "results.total.iops") / num(&tests[4], "results.total.iops");
    let found = 100.0 * num(f, "qd1.share");
    assert_eq!(format!("{found:.0}"), format!("{share:.0}"), "{f}");
    assert_eq!(f["qd1"]["needs_parallel"], found < 50.0, "{f}");
    for t in tests {
        assert!(num(t, "results.total.ios") > 0.0, "{t}");
        assert_eq!(
            t["workload"]["qd"],
            t["name"]
                .as_str()
                .unwrap()
                .rsplit('Q')
                .next()
                .unwrap()
                .trim_end_matches("T1")
                .parse::<u32>()
                .unwrap()
        );
    }
    assert!(!dir.path().join("halfpower.tst").exists());
    // A leftover scratch file is never overwritten.
    std::fs::write(dir.path().join("halfpower.tst"), b"mine").unwrap();
    usage_error(&["quick", d, "--size", "16m"]);
    assert_eq!(
        std::fs::read(dir.path().join("halfpower.tst")).unwrap(),
        b"mine"
    );
}

#[test]
fn help_states_the_units() {
    let out = halfpower().args(["run", "--help"]).output().unwrap();
    // clap wraps the text at the terminal's width: compare with the line breaks as spaces.
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(out.status.success());
    assert!(text.contains("powers of two"), "{text}");
    assert!(text.contains("MB/s = 10^6 bytes"), "{text}");
    assert!(text.contains("us, ms, s, m"), "{text}");
}

/// A halfpower built without the `mpi` feature, started as one of several processes by mpirun
/// or srun, refuses (exit 2) instead of running independent copies, and so does any halfpower
/// started as one of several tasks of a Slurm step with no process manager; as one of one it
/// runs.
#[test]
fn without_mpi_a_copy_among_many_refuses() {
    for var in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"] {
        let out = halfpower()
            .env(var, "3")
            .args([
                "run", "x", "--engine", "null", "--time", "100ms", "--warmup", "0",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{var}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--features mpi") && err.contains("3 processes"),
            "{err}"
        );
    }
    // `srun -n 3` with Slurm's default `--mpi=none`: tasks without a process manager.
    let out = halfpower()
        .env("SLURM_STEP_NUM_TASKS", "3")
        .args(["run", "x", "--engine", "null", "--time", "100ms"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("SLURM_STEP_NUM_TASKS=3") && err.contains("--mpi=pmix"),
        "{err}"
    );
    halfpower()
        .env("SLURM_STEP_NUM_TASKS", "1")
        .args([
            "run", "x", "--engine", "null", "--time", "100ms", "--warmup", "0", "--quiet",
        ])
        .assert()
        .success();
    halfpower()
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .args([
            "run", "x", "--engine", "null", "--time", "100ms", "--warmup", "0", "--quiet",
        ])
        .assert()
        .success();
}

/// One process is rank 0 of 1: the document is a run's as before, plus `ranks` holding that
/// one rank's results (the same as `results`), and no job figures.
#[test]
fn a_single_process_is_one_rank() {
    let v = common::run_json(&[
        "run", "x", "--engine", "null", "--time", "200ms", "--warmup", "0",
    ]);
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 1);
    assert_eq!(ranks[0]["rank"], 0);
    assert_eq!(ranks[0]["results"], v["results"]);
    assert!(v["results"].get("job").is_none());
}

/// A run killed with SIGKILL leaves no JSON at all, never half of one: results are written only
/// whole, to a temporary file renamed over the name.
#[test]
fn sigkill_leaves_no_half_written_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let mut child = halfpower_spawnable()
        .args([
            "run", "x", "--engine", "null", "--time", "30s", "--warmup", "0", "--json",
        ])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "nothing written: {left:?}");
}

/// One overwrite rule for every output file: an existing one is refused before anything runs
/// (exit 2, naming the file and --force) and left as it was; with --force it is replaced.
/// `--json PATH|-` means the same in every command, diagnose and monitor included.
#[test]
fn every_output_file_follows_one_overwrite_rule() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.csv");
    std::fs::write(&old, "keep me").unwrap();
    let o = old.to_str().unwrap();
    let data = filled_file(dir.path(), "data", 1 << 20);
    let data = data.to_str().unwrap();
    let iostat = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/iostat-loop.txt");
    let points = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/sweep-points.csv");
    let null = [
        "run", "x", "--engine", "null", "--time", "100ms", "--warmup", "0",
    ];
    let cases: Vec<Vec<&str>> = vec![
        [&null[..], &["--json", o]].concat(),
        [&null[..], &["--html", o]].concat(),
        vec!["diagnose", iostat, "--json", o],
        vec!["diagnose", iostat, "--html", o],
        vec!["monitor", "--count", "1", "--log", o],
        vec!["monitor", "--count", "1", "--json", o],
        vec!["sweep", "--from", points, "--csv", o],
        vec!["sweep", "--from", points, "--json", o],
        vec!["verify", data, "--bs", "4k", "--json", o],
    ];
    for args in &cases {
        let err = usage_error(args);
        assert!(
            err.contains(o) && err.contains("--force"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&old).unwrap(),
            "keep me",
            "{args:?}"
        );
    }
    // With --force the file is replaced by the command's document.
    let forced = [&null[..], &["--json", o, "--force", "--quiet"]].concat();
    halfpower().args(&forced).assert().success();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    assert_eq!(doc["kind"], "run");
    halfpower()
        .args(["diagnose", iostat, "--json", o, "--force"])
        .assert()
        .success();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    assert!(
        doc["devices"].as_array().is_some_and(|d| !d.is_empty()),
        "{doc}"
    );
    // `--json -` prints the document; verify takes --quiet like every command.
    let d = stdout_json(&["diagnose", iostat, "--json", "-"]);
    assert!(d["devices"].is_array());
    let v = stdout_json(&["verify", data, "--bs", "4k", "--quiet", "--json", "-"]);
    assert_eq!(v["kind"], "verify");
    // verify writes its report as every command does, and `report` draws a verify document.
    let page = format!("{o}.verify.html");
    let json = format!("{o}.verify.json");
    halfpower()
        .args(["verify", data, "--bs", "4k", "--quiet", "--html", &page])
        .args(["--json", &json])
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("halfpower verify report") && html.contains("<svg"),
        "{html}"
    );
    let again = format!("{o}.again.html");
    halfpower()
        .args(["report", &json, "-o", &again])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&again).unwrap().contains("<svg"));
}

/// Every flag docs/ and README.md name exists in halfpower's --help (of some command), or is
/// another program's (cargo, mpirun/srun, fio's own options that `halfpower fio` reads).
#[test]
fn every_flag_in_the_docs_exists() {
    let others = [
        // cargo
        "--release",
        "--no-fail-fast",
        "--features",
        "--test",
        "--nocapture",
        "--lib",
        "--ignored",
        "--check",
        "--all-targets",
        "--no-run",
        "--target-dir",
        "--tests",
        "--timings",
        "--report-time",
        // mpirun, srun
        "--mpi",
        "--oversubscribe",
        "--ntasks-per-node",
        "--hostfile",
        // sbatch, and Open MPI's configure (docs/mpi.md)
        "--nodes",
        "--exclusive",
        "--job-name",
        "--with-pmi",
        // hdparm, which docs/pts.md names for a purge halfpower does not do
        "--security-erase",
        // fio's command line, read by `halfpower fio` with fio's grammar (docs/fio.md)
        "--name",
        "--ioengine",
        "--iodepth",
        "--filename",
        "--direct",
        "--time_based",
        "--runtime",
        "--ramp_time",
        "--lat_percentiles",
        "--iomem",
        "--output-format",
        "--section",
        "--ignore-unknown",
        "--parse-only",
        "--output",
        "--read_iolog",
        "--replay_no_stall",
    ];
    let commands = [
        "run",
        "quick",
        "sweep",
        "profile",
        "scale",
        "experiment",
        "monitor",
        "diagnose",
        "report",
        "compare",
        "verify",
        "replay",
        "capture",
        "path",
        "selftest",
        "pts",
        "doctor",
    ];
    let mut help = String::new();
    for c in commands {
        let out = halfpower().args([c, "--help"]).output().unwrap();
        help += &String::from_utf8_lossy(&out.stdout);
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(format!("{root}/docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.push(format!("{root}/README.md").into());
    let mut missing = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("--") {
            let flag: String = text[i + 2..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            let starts = flag.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            let before = text[..i].chars().next_back();
            if !starts || before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') {
                continue;
            }
            let flag = format!("--{}", flag.trim_end_matches('-'));
            let known = help.contains(&format!("{flag} "))
                || help.contains(&format!("{flag}\n"))
                || help.contains(&format!("{flag}["))
                || help.contains(&format!("{flag}="))
                || help.contains(&format!("{flag},"));
            if !known && !others.contains(&flag.as_str()) {
                missing.push(format!(
                    "{}: {flag}",
                    f.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "flags in the docs that no --help knows: {missing:?}"
    );
}

/// Messages a new user met wrong (issue 37, item 6), each as it reads now.
#[test]
fn refusals_and_help_say_what_applies() {
    // capture's help ends with its own footer, not replay's.
    let help = stdout_text(&["capture", "--help"]);
    assert!(help.contains("tracepoints"), "{help}");
    assert!(
        !help.contains("Each request is issued at its due time"),
        "{help}"
    );
    // A negative duration is named as such, with no tip about `--`.
    let e = usage_error(&["run", "null", "--engine", "null", "--time", "-5s"]);
    assert!(e.contains("'-5s' is negative"), "{e}");
    assert!(!e.contains("-- -5"), "{e}");
    // A region past the end names the offset it starts from.
    let dir = tempfile::tempdir().unwrap();
    let f = filled_file(dir.path(), "f", 64 << 20);
    let e = usage_error(&[
        "run",
        f.to_str().unwrap(),
        "--offset",
        "63m",
        "--size",
        "2m",
        "--time",
        "1s",
    ]);
    assert!(e.contains("1048576 of them from --offset 63m"), "{e}");
    assert!(!e.contains("from offset 0"), "{e}");
    // pts and replay have no --rw: their refusal to write says the workload writes.
    let trace = dir.path().join("w.trace");
    std::fs::write(
        &trace,
        "# halfpower trace v1\n0 W 0 4096\n100 W 4096 4096\n",
    )
    .unwrap();
    for args in [
        vec!["pts", f.to_str().unwrap(), "--test", "latency"],
        vec!["replay", trace.to_str().unwrap(), f.to_str().unwrap()],
    ] {
        let out = halfpower().args(&args).output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} ran");
        assert!(
            e.contains("writes to it") || e.contains("--allow-write"),
            "{args:?}: {e}"
        );
        assert!(!e.contains("--rw"), "{args:?}: {e}");
    }
}

/// Issue 48: a value refused after its parser normalised it is named as the user typed it
/// (`--think 61000ms` was refused as '61s', `--qd 00` as '0'), with or without `=`; one item of
/// a list is named alone (`3000` of `--bs 4k,3000`).
#[test]
fn a_value_refused_after_parsing_is_named_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let f = f.to_str().unwrap();
    let null = ["run", "null", "--engine", "null", "--time", "100ms"];
    for (extra, said) in [
        (&["--think", "61000ms"][..], "invalid --think '61000ms'"),
        (&["--think=61000ms"], "invalid --think '61000ms'"),
        (&["--qd", "00"], "invalid --qd '00'"),
    ] {
        let mut args = null.to_vec();
        args.extend(extra);
        let err = usage_error(&args);
        assert!(err.contains(said), "{extra:?}: {err}");
    }
    let err = usage_error(&["sweep", f, "--bs", "4k,3000", "--allow-write"]);
    assert!(err.contains("invalid --bs '3000'"), "{err}");
    let err = usage_error(&["run", f, "--bs", "8k", "--size", "4096"]);
    assert!(err.contains("invalid --size '4096'"), "{err}");
}
