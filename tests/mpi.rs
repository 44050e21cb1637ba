//! halfpower under MPI: three ranks on one machine (`mpirun --oversubscribe -np 3`) run one
//! job; rank 0's document holds every rank's results and the job's, whose totals are the sums
//! of the ranks' exactly and whose latency histogram is the ranks' buckets added (its
//! percentiles recomputed here from those buckets by the documented rule); a rank that cannot
//! open its target ends the whole job within seconds, naming itself.
//!
//! The MPI build (`--features mpi`, Debian's libopenmpi-dev and libclang-dev) goes to
//! target/mpi (profile mpi-test: unoptimized, it is checked, not timed) so the tests' default
//! binary stays the one without MPI.

#[path = "mpi/commands.rs"]
mod commands;
mod common;
#[path = "mpi/defects.rs"]
mod defects;
#[path = "mpi/monitor.rs"]
mod monitor;
#[path = "mpi/scale_ranks.rs"]
mod scale_ranks;
#[path = "mpi/sharing.rs"]
mod sharing;
#[path = "mpi/slurm.rs"]
mod slurm;

use common::unavailable;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// The MPI build of halfpower, built here when missing or stale; `None` (skipped, or failed
/// in CI) without mpirun or the MPI development files.
pub(crate) fn mpi_halfpower() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_mpi_halfpower).clone()
}

fn build_mpi_halfpower() -> Option<PathBuf> {
    // The session directories' bases earlier test processes left (empty once their jobs ended).
    for e in std::fs::read_dir(std::env::temp_dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        if e.file_name()
            .to_string_lossy()
            .starts_with("halfpower-ompi-")
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    if !common::have("mpirun", "--version") {
        unavailable("mpirun (Debian's openmpi-bin)");
        return None;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "--profile",
            "mpi-test",
            "--quiet",
            "--features",
            "mpi",
            "--target-dir",
        ])
        .arg(root.join("target/mpi"))
        .current_dir(&root)
        .output()
        .unwrap();
    if !out.status.success() {
        unavailable(&format!(
            "an MPI build of halfpower (libopenmpi-dev, libclang-dev): {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return None;
    }
    Some(root.join("target/mpi/mpi-test/halfpower"))
}

thread_local! {
    /// Whether this test's jobs are timed against a rate of their own (see [`paced`]).
    static PACED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks this test's MPI jobs as judged against rate caps (`--rate-iops`, fio's `rate_iops`,
/// a trace's pace): each runs with no other timing test beside it, as its paced workers need
/// a CPU at each due time (three jobs of three ranks on two CPUs held ranks back for whole
/// stretches: 1107 IOPS against 3 × 400, 1232 against 3 × 500 in one CI run). Each test runs
/// on a thread of its own, so the mark ends with the test.
pub(crate) fn paced() {
    PACED.with(|p| p.set(true));
}

fn mpirun(np: u32, hp: &PathBuf, args: &[&str]) -> std::process::Output {
    mpirun_in(None, np, hp, args)
}

/// [`mpirun`] in directory `dir` (where a relative path lands), else in the tests' own.
fn mpirun_in(
    dir: Option<&std::path::Path>,
    np: u32,
    hp: &PathBuf,
    args: &[&str],
) -> std::process::Output {
    // Its ranks oversubscribe the CPUs: never beside a job timed against a throttle (which
    // takes `common::exclusive`); a paced job takes it too.
    let (_shared, _alone) = match PACED.with(|p| p.get()) {
        true => (None, Some(common::exclusive())),
        false => (Some(common::measuring()), None),
    };
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", &np.to_string()]).arg(hp);
    if let Some(d) = dir {
        c.current_dir(d);
    }
    ompi_env(&mut c).args(args).output().unwrap()
}

/// Open MPI's settings for a job on this one machine, as root.
pub(crate) fn ompi_env(c: &mut Command) -> &mut Command {
    // Each job its own session directory's base: two mpiruns starting at once otherwise race
    // to create the shared /tmp/ompi.HOST.UID and one fails ("mkdir: File exists").
    static JOBS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = JOBS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let base = std::env::temp_dir().join(format!("halfpower-ompi-{}-{n}", std::process::id()));
    let _ = std::fs::create_dir_all(&base);
    c.env("OMPI_MCA_orte_tmpdir_base", &base)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl", "self,vader,tcp")
        // One machine: start the ranks directly, no ssh needed.
        .env("OMPI_MCA_plm", "isolated")
}

/// Runs `halfpower ARGS --json FILE --quiet` as a job of three ranks in `dir`, asserts it
/// succeeded, and returns the job's document.
pub(crate) fn three_rank_job(
    hp: &PathBuf,
    dir: &std::path::Path,
    args: &[&str],
) -> serde_json::Value {
    let json = dir.join("job.json");
    let mut all = args.to_vec();
    all.extend(["--json", json.to_str().unwrap(), "--quiet"]);
    let out = mpirun(3, hp, &all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// The documented percentile rule (docs/figures.md): the midpoint of the bucket holding the
/// ⌈q·N⌉-th smallest value, clamped to [min, max]; the N-th is the max.
fn percentile(buckets: &[(u64, u64, u64)], q: f64, min: f64, max: f64) -> f64 {
    let n: u64 = buckets.iter().map(|b| b.2).sum();
    let rank = ((q * n as f64).ceil() as u64).max(1);
    if rank == n {
        return max;
    }
    let mut seen = 0;
    for &(low, width, count) in buckets {
        seen += count;
        if seen >= rank {
            return (low as f64 + (width as f64 - 1.0) / 2.0).clamp(min, max);
        }
    }
    max
}

#[test]
fn three_ranks_make_one_job_with_exact_totals_and_merged_histograms() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let io_log = dir.path().join("io.{rank}.csv");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randrw",
            "--qd",
            "4",
            "--bytes",
            "8m",
            "--warmup",
            "200ms",
            "--io-log",
            io_log.to_str().unwrap(),
        ],
    );
    let ranks = v["ranks"].as_array().unwrap();
    assert_eq!(ranks.len(), 3);
    assert_eq!(v["results"]["job"]["ranks"], 3);
    let sum = |key: &str| -> u64 {
        ranks
            .iter()
            .map(|r| r["results"]["total"][key].as_u64().unwrap())
            .sum()
    };
    let total = &v["results"]["total"];
    assert_eq!(total["ios"].as_u64().unwrap(), sum("ios"));
    assert_eq!(total["bytes"].as_u64().unwrap(), sum("bytes"));
    assert_eq!(sum("ios"), 3 * 2048, "8 MiB of 4 KiB requests per rank");
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(r["rank"], i as u64);
    }
    // Each direction: the ranks' buckets added here, against the job's histogram and figures.
    for dir in ["read", "write"] {
        let mut buckets: Vec<(u64, u64, u64)> = Vec::new();
        let (mut min, mut max) = (f64::INFINITY, 0.0f64);
        for r in ranks {
            let d = &r["results"][dir];
            min = min.min(d["latency_us"]["min"].as_f64().unwrap());
            max = max.max(d["latency_us"]["max"].as_f64().unwrap());
            for b in d["histogram"].as_array().unwrap() {
                let low = b["low_ns"].as_u64().unwrap();
                let c = b["count"].as_u64().unwrap();
                match buckets.iter_mut().find(|x| x.0 == low) {
                    Some(x) => x.2 += c,
                    None => buckets.push((low, b["width_ns"].as_u64().unwrap(), c)),
                }
            }
        }
        buckets.sort();
        let job = &v["results"][dir];
        let job_buckets: Vec<(u64, u64, u64)> = job["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["low_ns"].as_u64().unwrap(),
                    b["width_ns"].as_u64().unwrap(),
                    b["count"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            job_buckets, buckets,
            "{dir}: the buckets are the ranks' added"
        );
        let count: u64 = buckets.iter().map(|b| b.2).sum();
        assert_eq!(
            count,
            job["ios"].as_u64().unwrap(),
            "{dir}: one count per I/O"
        );
        let (min_ns, max_ns) = (min * 1000.0, max * 1000.0);
        for (q, key) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99")] {
            let want = percentile(&buckets, q, min_ns, max_ns) / 1000.0;
            let got = job["latency_us"][key].as_f64().unwrap();
            assert!(
                (got - want).abs() <= 1e-9 * want.max(1.0),
                "{dir} {key}: {got} vs {want}"
            );
        }
    }
    every_io_against_the_merged_histograms(&v, dir.path());
    let first = &v["results"]["job"]["first_done"];
    assert!(first["ios"].as_f64().unwrap() <= sum("ios") as f64 + 1e-6);
    assert!(first["seconds"].as_f64().unwrap() <= v["results"]["seconds"].as_f64().unwrap());
    assert_eq!(
        v["results"]["job"]["barrier_us"].as_array().unwrap().len(),
        3
    );
    for r in 0..3 {
        assert!(
            !dir.path().join(format!("f.{r}")).exists(),
            "rank {r}'s file removed"
        );
    }
}

/// The job's histograms and percentiles against every I/O of every rank: each rank's per-I/O
/// log (`run --io-log`, `dir/io.{rank}.csv`) concatenated, each latency counted in the job's
/// bucket that holds it (exact counts, none outside), and p50/p99 as the ⌈q·N⌉-th smallest
/// of them, within the bucket the job reports.
fn every_io_against_the_merged_histograms(v: &serde_json::Value, dir: &std::path::Path) {
    let mut all: Vec<(String, u64)> = Vec::new();
    for r in 0..3 {
        let text = std::fs::read_to_string(dir.join(format!("io.{r}.csv"))).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("t_ns,lat_ns,dir,bytes,offset,target"));
        let rows: Vec<(String, u64)> = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[2].to_string(), f[1].parse().unwrap())
            })
            .collect();
        let ios = v["ranks"][r]["results"]["total"]["ios"].as_u64().unwrap();
        assert_eq!(ios, 2048, "8 MiB of 4 KiB requests on rank {r}");
        assert_eq!(
            rows.len() as u64,
            ios,
            "rank {r}: a line per I/O it counted"
        );
        all.extend(rows);
    }
    for d in ["read", "write"] {
        let job = &v["results"][d];
        let mut lat: Vec<u64> = all.iter().filter(|x| x.0 == d).map(|x| x.1).collect();
        assert_eq!(lat.len() as u64, job["ios"].as_u64().unwrap(), "{d}");
        let buckets: Vec<(u64, u64, u64)> = job["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let n = |k: &str| b[k].as_u64().unwrap();
                (n("low_ns"), n("width_ns"), n("count"))
            })
            .collect();
        let mut counted = vec![0u64; buckets.len()];
        for &ns in &lat {
            let i = buckets
                .iter()
                .position(|b| (b.0..b.0 + b.1).contains(&ns))
                .unwrap_or_else(|| panic!("{d}: {ns} ns in none of the job's buckets"));
            counted[i] += 1;
        }
        let counts: Vec<u64> = buckets.iter().map(|b| b.2).collect();
        assert_eq!(
            counted, counts,
            "{d}: the job's buckets count every rank's I/Os"
        );
        lat.sort_unstable();
        for (q, key) in [(0.5, "p50"), (0.99, "p99")] {
            let rank = ((q * lat.len() as f64).ceil() as usize).max(1);
            let exact = lat[rank - 1];
            let got = job["latency_us"][key].as_f64().unwrap() * 1000.0;
            let b = buckets
                .iter()
                .find(|b| (b.0..b.0 + b.1).contains(&exact))
                .unwrap();
            assert!(
                (got - exact as f64).abs() <= b.1 as f64,
                "{d} {key}: job {got} ns, every I/O's {exact} ns (bucket {b:?})"
            );
        }
    }
}

#[test]
fn a_rank_that_cannot_open_its_target_ends_the_job_naming_itself() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Ranks 0 and 2 have a directory for their file; rank 1 has none.
    for r in [0, 2] {
        std::fs::create_dir(dir.path().join(r.to_string())).unwrap();
    }
    let target = dir.path().join("{rank}").join("f");
    let start = Instant::now();
    let out = mpirun(
        3,
        &hp,
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--time",
            "30s",
            "--quiet",
        ],
    );
    let took = start.elapsed();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rank 1 of 3"), "{err}");
    assert!(
        took < Duration::from_secs(20),
        "ended after {took:?}, not the 30 s run"
    );
}

/// `--shared`: three ranks write one file, each its own 2-MiB region, every block sealed: a
/// region that overlapped another's would read back another rank's blocks (another record:
/// stale or misdirected), so a clean verification on every rank shows the regions apart.
#[test]
fn shared_ranks_write_their_own_regions_of_one_file() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            file.to_str().unwrap(),
            "--shared",
            "--size",
            "2m",
            "--rw",
            "write",
            "--bs",
            "64k",
            "--bytes",
            "2m",
            "--warmup",
            "0",
            "--verify",
            "--keep",
        ],
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        6 << 20,
        "three regions"
    );
    for (i, r) in v["ranks"].as_array().unwrap().iter().enumerate() {
        let ver = &r["results"]["verify"];
        assert_eq!(
            ver["blocks_checked"], 32,
            "rank {i}: 2 MiB of 64 KiB blocks"
        );
        assert_eq!(ver["bad"].as_array().unwrap().len(), 0, "rank {i}: {ver}");
    }
    assert_eq!(v["results"]["total"]["bytes"], 6 << 20);
    // The job's verification is the ranks' together; only the three phase barriers count.
    assert_eq!(v["results"]["verify"]["blocks_checked"], 96);
    assert_eq!(v["results"]["verify"]["bad"].as_array().unwrap().len(), 0);
    assert_eq!(
        v["results"]["job"]["barrier_us"].as_array().unwrap().len(),
        3
    );
}

/// The ranks' own results of a point against the job's: the job's I/O and byte counts are the
/// ranks' summed exactly, and there are three ranks, in order.
pub(crate) fn totals_are_the_ranks_sums(results: &serde_json::Value, what: &str) {
    let ranks = results["ranks"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {results}"));
    assert_eq!(ranks.len(), 3, "{what}");
    for key in ["ios", "bytes"] {
        let sum: u64 = ranks
            .iter()
            .map(|r| r["results"]["total"][key].as_u64().unwrap())
            .sum();
        assert_eq!(
            results["total"][key].as_u64().unwrap(),
            sum,
            "{what}: {key}"
        );
    }
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(r["rank"], i as u64, "{what}");
    }
    assert_eq!(results["job"]["ranks"], 3, "{what}");
}

/// Every rank capped at `per_rank` I/Os per second: the job's rate is three times it. Each
/// rank's pacer issues at due times counted from the point's start, catching up after a
/// stall, so only a stall in the point's last moments costs I/Os: 5 % of a 2-s point is
/// 100 ms.
fn at_three_caps(results: &serde_json::Value, per_rank: f64, what: &str) {
    let iops = results["total"]["iops"].as_f64().unwrap();
    let want = 3.0 * per_rank;
    assert!(
        (iops / want - 1.0).abs() <= 0.05,
        "{what}: {iops:.0} IOPS against 3 × {per_rank}"
    );
}

/// `sweep` under MPI: every point is one job of the three ranks.
#[test]
fn sweep_points_are_jobs_of_every_rank() {
    paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "sweep",
            target.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randread",
            "--bs",
            "4k,8k",
            "--qd",
            "1,2",
            "--time",
            "2s",
            "--warmup",
            "0",
            "--rate-iops",
            "500",
        ],
    );
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        let what = format!("{} QD{}", p["bs_bytes"], p["qd"]);
        totals_are_the_ranks_sums(&p["results"], &what);
        at_three_caps(&p["results"], 500.0, &what);
    }
    assert_eq!(
        v["targets"].as_array().unwrap().len(),
        3,
        "every rank's target"
    );
}

/// `scale` under MPI: each step is one job; k targets per rank, each capped, make 3 × k caps.
#[test]
fn scale_steps_are_jobs_of_every_rank() {
    paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.{rank}");
    let b = dir.path().join("b.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "scale",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--size",
            "8m",
            "--rw",
            "randread",
            "--time",
            "2s",
            "--warmup",
            "0",
            "--rate-iops",
            "400",
        ],
    );
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for s in steps {
        let k = s["targets"].as_u64().unwrap();
        let what = format!("{k} target(s)");
        totals_are_the_ranks_sums(&s["results"], &what);
        // The cap is the run's, shared by its workers: 400 per rank at every step.
        at_three_caps(&s["results"], 400.0, &what);
    }
}

/// `quick` under MPI: each rank its own scratch file, every test one job.
#[test]
fn quick_tests_are_jobs_of_every_rank() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "quick",
            dir.path().to_str().unwrap(),
            "--size",
            "8m",
            "--time",
            "300ms",
            "--warmup",
            "0",
        ],
    );
    let tests = v["tests"].as_array().unwrap();
    assert!(tests.len() >= 8, "{}", tests.len());
    for t in tests {
        totals_are_the_ranks_sums(&t["results"], t["name"].as_str().unwrap());
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("halfpower.tst"))
        .collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
}

/// `pts` stays on one host (SNIA's tests are of one device) and says so.
#[test]
fn pts_under_mpi_is_refused_by_name() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let out = mpirun(3, &hp, &["pts", "--test", "iops", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pts stays on one host"), "{err}");
}

/// `replay` under MPI: each rank replays its own trace (`{rank}`) on its own file, from a
/// common start; the job issues every rank's requests at the traces' own rate, three times
/// one trace's.
#[test]
fn replay_is_one_job_of_every_ranks_trace() {
    paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 400 reads of 4 KiB evenly over 2 s per rank: 200 IOPS each.
    for r in 0..3 {
        let mut s = String::from("# halfpower trace v1\n");
        for i in 0..400u64 {
            s.push_str(&format!(
                "{} R {} 4096\n",
                i * 5000,
                (i * 7919 % 2048) * 4096
            ));
        }
        std::fs::write(dir.path().join(format!("t.{r}")), s).unwrap();
    }
    let trace = dir.path().join("t.{rank}");
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &["replay", trace.to_str().unwrap(), target.to_str().unwrap()],
    );
    let p = &v["points"][0];
    // Asked, as achieved, is the job's: each rank's trace asks 400 requests over 1.995 s.
    let asked = p["asked_iops"].as_f64().unwrap();
    assert!((asked - 3.0 * 400.0 / 1.995).abs() < 1e-6, "{asked} asked");
    let iops = p["achieved_iops"].as_f64().unwrap();
    // The last request is due at 1.995 s: the job's window is about 2 s (its last rank's), and
    // a request issued late still completes within it (one 4-KiB read of a file).
    assert!(
        (iops / 600.0 - 1.0).abs() <= 0.05,
        "{iops:.0} IOPS against 3 × 200"
    );
}

/// `replay --shard` under MPI: one trace dealt out to three ranks, request i to rank i mod 3,
/// each at its own time: the job replays the trace once at its own pace (41 IOPS, not three
/// times it), each request once; and the headroom search runs on the job's merged points to
/// its end on every rank alike. The disk is the tests' FUSE server, one request at a time in
/// S = 10 ms: response times long beside three ranks' lateness on two CPUs (50–100 µs here,
/// 306 µs on a CI host that stole 3 %: at S = 5 ms that was 5.02 % of the mean, past the 5 %
/// the search allows a point), and a limit known to be reached (ρ = 1 at speed 4.9).
#[test]
fn one_trace_sharded_over_the_ranks_is_replayed_once_at_its_pace() {
    paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let server = common::fuse::Server::new(8 << 20, Duration::from_millis(10));
    let Some(fs) = common::fuse::mount_fs_with(server, "halfpower-shard", 1) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 40 reads of 4 KiB every 50 ms: the last due at 1.95 s, 20.51 IOPS asked.
    let mut s = String::from("# halfpower trace v1\n");
    for i in 0..40u64 {
        s.push_str(&format!(
            "{} R {} 4096\n",
            i * 50_000,
            (i * 7919 % 2048) * 4096
        ));
    }
    let trace = dir.path().join("t");
    std::fs::write(&trace, s).unwrap();
    let (t, disk) = (trace.to_str().unwrap().to_string(), fs.disk());
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "replay",
            &t,
            &disk,
            "--shard",
            "--headroom",
            "--headroom-precision",
            "25",
        ],
    );
    let p = &v["points"][0];
    assert_eq!(p["speed"], 1.0);
    let asked = p["asked_iops"].as_f64().unwrap();
    assert!((asked - 40.0 / 1.95).abs() < 1e-6, "{asked} asked");
    // Every request once: the ranks' shares add up to the trace (whole, it would be 120).
    assert_eq!(p["issued"], 40);
    let iops = p["achieved_iops"].as_f64().unwrap();
    assert!(
        (iops / asked - 1.0).abs() <= 0.05,
        "{iops:.1} IOPS against {asked:.1}"
    );
    // The search went on past speed 1 on every rank alike (a rank that stopped or took
    // another step would have hung or failed the job) and found the server's limit: at
    // most 100 IOPS, about 4.9 times the trace's pace.
    let h = &v["headroom"];
    assert_eq!(h["precision"], 0.25);
    for p in v["points"].as_array().unwrap() {
        eprintln!(
            "speed {} mean {} late {}",
            p["speed"], p["latency_us"]["mean"], p["late_us"]["mean"]
        );
    }
    assert!(v["points"].as_array().unwrap().len() >= 3, "{h}");
    if let Some(at) = h["speed_at_double_mean"].as_f64() {
        assert!(at <= 5.0 * 1.25, "{h}");
    }
    // A trace per rank and --shard contradict each other.
    let each = dir.path().join("t.{rank}");
    let out = std::process::Command::new(&hp)
        .args(["replay", each.to_str().unwrap(), &disk, "--shard"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard"));
}

/// `fio` under MPI: a job file's job runs on every rank at once, each rank at its own
/// `rate_iops`; fio's report is the job's.
#[test]
fn a_fio_job_runs_on_every_rank() {
    paced();
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("j.fio");
    let file = dir.path().join("f.{rank}");
    std::fs::write(
        &job,
        format!(
            "[j]\nfilename={}\nsize=8m\nrw=randread\nbs=4k\nioengine=io_uring\ndirect=1\n\
             rate_iops=300\ntime_based=1\nruntime=2\n",
            file.display()
        ),
    )
    .unwrap();
    let out_json = dir.path().join("fio.json");
    let out = mpirun(
        3,
        &hp,
        &[
            "fio",
            job.to_str().unwrap(),
            "--output-format=json",
            &format!("--output={}", out_json.display()),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_json).unwrap()).unwrap();
    let read = &v["jobs"][0]["read"];
    let iops = read["iops"].as_f64().unwrap();
    assert!(
        (iops / 900.0 - 1.0).abs() <= 0.05,
        "{iops:.0} IOPS against 3 × 300: {read}"
    );
    // Each rank laid out its own file and removed it, as a single halfpower fio does.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("f."))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
