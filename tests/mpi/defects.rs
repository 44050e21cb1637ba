//! What each rank says and checks under MPI: a `run`'s warnings are each rank's own (its
//! targets judged on its own results) once, not the job's repeated by every rank; the job's
//! syncs are every rank's; `fio` is printed by rank 0 alone and fails when any rank fell below
//! its `rate_iops_min`; only rank 0 checks the output paths it alone writes (its document and
//! `--prom` textfile, of the job's figures); the stonewall of a
//! run under a second counts every rank's bytes.

use super::{mpi_halfpower, mpirun, three_rank_job};
use std::time::{Duration, Instant};

/// Buffered reads of a small file come from the page cache (or from a file system without
/// disk counters): each rank warns of its own file, named alone, and of no other rank's.
#[test]
fn run_warnings_are_each_ranks_own_once() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--rw",
            "read",
            "--bs",
            "64k",
            "--buffered",
            "--time",
            "1s",
            "--warmup",
            "200ms",
        ],
    );
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let file = |r: u32| dir.path().join(format!("f.{r}")).display().to_string();
    for r in 0..3 {
        let own: Vec<&&str> = warnings
            .iter()
            .filter(|w| w.starts_with(&format!("rank {r}: ")))
            .collect();
        assert!(
            own.iter().any(|w| w.contains(&file(r))),
            "rank {r} warns of its file: {warnings:#?}"
        );
        for other in (0..3).filter(|&o| o != r) {
            assert!(
                own.iter().all(|w| !w.contains(&file(other))),
                "rank {r} warns only of its own file: {warnings:#?}"
            );
        }
    }
    let distinct: std::collections::HashSet<&&str> = warnings.iter().collect();
    assert_eq!(distinct.len(), warnings.len(), "each warning once");
}

/// `--fsync 1`: every rank's syncs are the job's, counted once each.
#[test]
fn the_jobs_syncs_are_every_ranks() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "write",
            "--bs",
            "64k",
            "--bytes",
            "1m",
            "--fsync",
            "1",
            "--warmup",
            "0",
        ],
    );
    let ranks = v["ranks"].as_array().unwrap();
    let counts: Vec<u64> = ranks
        .iter()
        .map(|r| r["results"]["sync"]["count"].as_u64().unwrap())
        .collect();
    let sync = &v["results"]["sync"];
    assert_eq!(sync["count"].as_u64().unwrap(), counts.iter().sum::<u64>());
    assert_eq!(counts, [16, 16, 16], "one sync per 64-KiB write of 1 MiB");
    let max = |s: &serde_json::Value| s["latency_us"]["max"].as_f64().unwrap();
    let slowest = ranks
        .iter()
        .map(|r| max(&r["results"]["sync"]))
        .fold(0.0, f64::max);
    assert_eq!(max(sync), slowest);
}

/// Ranks 1 and 2 fall below their `rate_iops_min` (1000 and 2000 at 200 IOPS), rank 0 has
/// none (`0000`): the job fails on every rank, rank 0's report says so (fio's EIO), and it
/// alone prints, on stdout, one document; `--parse-only`'s plan is printed once.
#[test]
fn a_fio_job_fails_when_any_rank_falls_below_its_minimum() {
    super::paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    let file = dir.path().join("f.{rank}");
    std::fs::write(
        &job,
        format!(
            "[j]\nfilename={}\nsize=4m\nrw=randread\nbs=4k\nioengine=io_uring\ndirect=1\n\
             rate_iops=200\nrate_iops_min=${{OMPI_COMM_WORLD_RANK}}000\ntime_based=1\n\
             runtime=2\n",
            file.display()
        ),
    )
    .unwrap();
    let job = job.to_str().unwrap();
    let out = mpirun(3, &hp, &["fio", job, "--output-format=json", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("one document on stdout ({e}): {err}"));
    assert_eq!(v["jobs"][0]["error"], libc::EIO, "{err}");
    let plan = mpirun(3, &hp, &["fio", job, "--parse-only"]);
    assert!(plan.status.success());
    let plan = String::from_utf8_lossy(&plan.stdout);
    assert_eq!(plan.matches("j: ").count(), 1, "{plan}");
}

/// The output's directory exists only where rank 0 looks (ranks 1 and 2 are given another,
/// missing one): rank 0 alone checks and writes, so the job runs. A path rank 0 refuses ends
/// the job at once with the usage error's status.
#[test]
fn only_rank_0_checks_the_output_path() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let (json, missing) = (dir.path().join("job.json"), dir.path().join("no/job.json"));
    let run = |json: &std::path::Path, time: &'static str| {
        [
            "run",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--time",
            time,
            "--warmup",
            "0",
            "--quiet",
            "--json",
        ]
        .into_iter()
        .map(String::from)
        .chain([json.display().to_string(), "--prom".into()])
        .chain([json.with_extension("prom").display().to_string()])
        .collect::<Vec<String>>()
    };
    // mpirun's MPMD form: rank 0 with one command line, ranks 1 and 2 with another.
    let mut args = run(&json, "1s");
    args.extend([":", "-np", "2", hp.to_str().unwrap()].map(String::from));
    args.extend(run(&missing, "1s"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = mpirun(1, &hp, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["results"]["job"]["ranks"], 3);
    // The textfile too is rank 0's, of the job's figures: its IOPS the document's, and its
    // count of I/Os every rank's.
    let prom = std::fs::read_to_string(json.with_extension("prom")).unwrap();
    let all = "{target=\"all\",direction=\"total\"";
    let sample = |series: String| -> f64 {
        (prom
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{series} ") as &str)))
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no {series} in {prom}"))
    };
    let iops = sample(format!("halfpower_run_iops{all}}}"));
    let job = v["results"]["total"]["iops"].as_f64().unwrap();
    assert!(
        (iops - job).abs() <= 1e-9 * job,
        "{iops} against the document's {job}"
    );
    let count = sample(format!("halfpower_run_latency_seconds_count{all}}}"));
    let ranks: f64 = (v["ranks"].as_array().unwrap().iter())
        .map(|r| r["results"]["total"]["ios"].as_f64().unwrap())
        .sum();
    assert_eq!(count, ranks, "the ranks' I/Os");

    let start = Instant::now();
    let args = run(&missing, "30s");
    let out = mpirun(3, &hp, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("rank 0 of 3"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20), "{err}");
}

/// A warning every rank gives alike (here buffered points, a sweep's plan) is said once, by rank
/// 0, not once per rank.
#[test]
fn a_warning_of_the_whole_job_is_said_once() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let json = dir.path().join("s.json");
    let out = mpirun(
        3,
        &hp,
        &[
            "sweep",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--rw",
            "read",
            "--bs",
            "64k",
            "--qd",
            "1,2",
            "--buffered",
            "--time",
            "300ms",
            "--warmup",
            "0",
            "--quiet",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let said = err.matches("points run buffered (--buffered)").count();
    assert_eq!(said, 1, "{err}");
    assert!(
        !err.contains("rank 1: warning: points run buffered"),
        "{err}"
    );
}

/// `run --io-log` under MPI: a path without `{rank}` is refused by name (every rank would
/// write one file).
#[test]
fn an_io_log_without_rank_is_refused() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let run = |log: &str| {
        [
            "run",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--rw",
            "randrw",
            "--bytes",
            "4m",
            "--warmup",
            "200ms",
            "--io-log",
        ]
        .into_iter()
        .map(String::from)
        .chain([dir.path().join(log).display().to_string()])
        .collect::<Vec<String>>()
    };
    let one = run("io.csv");
    let out = mpirun(3, &hp, &one.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--io-log") && err.contains("io.csv"), "{err}");
    // With `{rank}`, each rank's own log, a line per I/O of its own: the three-rank job of
    // tests/mpi.rs (every_io_against_the_merged_histograms).
}

/// An OS error is said once: rank 1's target is a program that is running (the kernel refuses
/// to open it for writing, ETXTBSY), so rank 1 fails opening it and ends the job, and its
/// message gives the OS error once, not once as its text and again as its cause.
#[test]
fn an_os_error_is_said_once() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for r in 0..3 {
        std::fs::create_dir(dir.path().join(r.to_string())).unwrap();
    }
    for r in [0, 2] {
        std::fs::write(dir.path().join(format!("{r}/f")), vec![0u8; 1 << 20]).unwrap();
    }
    let busy = dir.path().join("1/f");
    std::fs::copy("/bin/sleep", &busy).unwrap();
    let mut running = std::process::Command::new(&busy).arg("60").spawn().unwrap();
    // spawn returns once the copy runs: from then on it cannot be opened for writing.
    let refused = std::fs::OpenOptions::new()
        .write(true)
        .open(&busy)
        .unwrap_err();
    assert_eq!(refused.raw_os_error(), Some(libc::ETXTBSY), "{refused}");
    let target = dir.path().join("{rank}/f");
    let out = mpirun(
        3,
        &hp,
        &[
            "run",
            target.to_str().unwrap(),
            "--rw",
            "write",
            "--allow-write",
            "--time",
            "1s",
            "--quiet",
        ],
    );
    let _ = running.kill();
    let _ = running.wait();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    let os = std::io::Error::from_raw_os_error(libc::ETXTBSY).to_string();
    assert!(
        err.contains("rank 1 of 3") && err.contains(&format!("{}: {os}", busy.display())),
        "{err}"
    );
    assert_eq!(err.matches(&os).count(), 1, "the OS error once: {err}");
}

/// A job of three ranks of 0.3 s each (under a second: no rank has a per-second series). The
/// ranks start together and stop issuing at the same deadline, so the first rank's end is
/// within a drain of each rank's: the stonewall holds nearly every rank's bytes, at least 90 %
/// of each rank's bytes × (first end ÷ its own end). It counted the first rank's alone (a
/// third: 1.6 against 4.5 GB/s in the issue).
#[test]
fn the_stonewall_of_a_run_under_a_second_counts_every_rank() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randread",
            "--qd",
            "4",
            "--time",
            "300ms",
            "--warmup",
            "100ms",
        ],
    );
    let first = &v["results"]["job"]["first_done"];
    let t = first["seconds"].as_f64().unwrap();
    let ranks = v["ranks"].as_array().unwrap();
    let (mut expected, mut all) = (0.0, 0.0);
    for r in ranks {
        let res = &r["results"];
        let (bytes, seconds) = (
            res["total"]["bytes"].as_f64().unwrap(),
            res["seconds"].as_f64().unwrap(),
        );
        assert!(seconds < 1.0, "{seconds}");
        assert!(res["timeseries"].as_array().unwrap().is_empty());
        assert!(
            res.get("counts").is_none(),
            "the counts stay out of documents"
        );
        expected += bytes * (t / seconds).min(1.0);
        all += bytes;
    }
    let got = first["bytes"].as_f64().unwrap();
    assert!(
        got >= 0.9 * expected && got <= all + 1e-6,
        "stonewall {got} bytes against {expected} (of {all}) from the ranks' own"
    );
    let rate = first["bytes_per_s"].as_f64().unwrap();
    assert!((rate - got / t).abs() <= 1e-6 * rate, "{first}");
}

/// A steady-state rule under MPI is refused in one place, the measuring session, for every
/// command that has `--steady` (each rank would end its point at its own time): exit 2 naming
/// the value as typed, before a point is measured, and the files the job created removed.
#[test]
fn steady_is_refused_under_mpi_by_every_command() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let target = target.to_str().unwrap();
    for (args, typed) in [
        (
            vec!["run", target, "--size", "4m", "--time", "5s", "--steady=3"],
            "3",
        ),
        (
            vec![
                "sweep",
                target,
                "--size",
                "4m",
                "--bs",
                "4k",
                "--qd",
                "1",
                "--steady=pts",
            ],
            "pts",
        ),
    ] {
        let start = Instant::now();
        let out = mpirun(2, &hp, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("invalid --steady '{typed}'")),
            "{args:?}: {err}"
        );
        assert!(start.elapsed() < Duration::from_secs(20), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}
