//! `halfpower fio` (issue 14): fio's job files and command lines, fio's JSON shape, and the
//! same jobs run by fio and by halfpower on one throttled loop device (a device of known
//! speed), job by job.

use crate::common;

mod averaged;
mod jobs;
mod logs;
mod options;
mod patterns;
mod steady;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn fio_available() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        unavailable("fio");
    }
    ok
}

/// A job for fio and halfpower on one 64-MiB loop device the kernel throttles: the device, its
/// cgroup, and the job file (`text` of the device's path) in a temporary directory.
struct Throttled {
    throttle: Throttle,
    /// The device, detached when the test ends.
    _lo: LoopDev,
    dir: tempfile::TempDir,
    job: std::path::PathBuf,
}

impl Throttled {
    /// None where fio, root or loop devices are missing (each says which).
    fn new(tag: &str, bytes_per_s: u64, iops: u64, text: impl Fn(&str) -> String) -> Option<Self> {
        if !fio_available() {
            return None;
        }
        let throttle = Throttle::new(tag)?;
        let lo = LoopDev::new(tag, 64 << 20)?;
        throttle.limit(&lo.dev, bytes_per_s, iops);
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join(format!("{tag}.fio"));
        std::fs::write(&job, text(lo.path())).unwrap();
        Some(Throttled {
            throttle,
            _lo: lo,
            dir,
            job,
        })
    }

    /// The JSON `program` (fio, or halfpower with `extra` first) writes of the job, run in
    /// the throttled cgroup; it must succeed.
    fn json(&self, program: &Path, extra: &[&str]) -> Value {
        let mut args = extra.to_vec();
        args.extend([self.job.to_str().unwrap(), "--output-format=json"]);
        let out = self.throttle.command_of(program, &args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The keys of every object in `v`, depth first, as `path: k1,k2,…` lines (arrays by their
/// first element), leaving out `skip` keys.
fn shape(v: &Value, path: &str, skip: &[&str], out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            let keys: Vec<&str> = m
                .keys()
                .map(String::as_str)
                .filter(|k| !skip.contains(k))
                .collect();
            out.push(format!("{path}: {}", keys.join(",")));
            for k in keys {
                shape(&m[k], &format!("{path}.{k}"), skip, out);
            }
        }
        Value::Array(a) => {
            if let Some(first) = a.first() {
                shape(first, &format!("{path}[0]"), skip, out);
            }
        }
        _ => {}
    }
}

/// The same null-engine job, once by fio and once by halfpower: every object has fio's keys in
/// fio's order (halfpower adds only its `halfpower` key; maps whose keys are values, such as
/// the percentiles and `job options`, are compared by their own tests).
#[test]
fn the_json_has_fios_keys_in_fios_order() {
    if !fio_available() {
        return;
    }
    let job = [
        "--name=shape",
        "--ioengine=null",
        "--rw=randrw",
        "--bs=4k",
        "--iodepth=4",
        "--size=64m",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
    ];
    let fio = Command::new("fio").args(job).output().unwrap();
    assert!(fio.status.success());
    let fio: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let mut args = vec!["fio"];
    args.extend(job);
    args.push("--quiet");
    let hp = stdout_json(&args);
    let skip = [
        "halfpower",
        "percentile",
        "job options",
        "bins",
        "global options",
        "disk_util",
    ];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    shape(&fio, "", &skip, &mut a);
    shape(&hp, "", &skip, &mut b);
    assert_eq!(a, b);
    assert_eq!(hp["jobs"][0]["job options"]["rw"], "randrw");
    assert!(
        hp["jobs"][0]["job options"].get("time_based").is_none(),
        "bare options are left out, as fio does"
    );
    let p = hp["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap();
    let keys: Vec<&String> = p.keys().collect();
    let fio_keys: Vec<&String> = fio["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, fio_keys);
    assert!(
        hp["fio version"]
            .as_str()
            .unwrap()
            .starts_with("halfpower-")
    );
}

/// What a KDiskMark-style reader takes from the document agrees with itself: bw is bw_bytes
/// in KiB/s, IOPS is total_ios over the runtime, and Little's law ties the mean completion
/// latency to the queue depth.
#[test]
fn a_kdiskmark_style_parse_reads_consistent_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kdm");
    let hp = stdout_json(&[
        "fio",
        "--name=kdm",
        &format!("--filename={}", file.display()),
        "--size=32m",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=io_uring",
        "--iodepth=8",
        "--direct=1",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
        "--quiet",
    ]);
    let j = &hp["jobs"][0];
    assert_eq!(j["error"], 0);
    let r = &j["read"];
    let (bw, bw_bytes) = (num(r, "bw"), num(r, "bw_bytes"));
    assert!((bw - bw_bytes / 1024.0).abs() <= 1.0, "{bw} {bw_bytes}");
    let iops = num(r, "iops");
    let from_count = num(r, "total_ios") / (num(r, "runtime") / 1000.0);
    assert!(
        (iops / from_count - 1.0).abs() < 0.01,
        "{iops} vs {from_count}"
    );
    let clat_s = num(r, "clat_ns.mean") / 1e9;
    let in_flight = iops * clat_s;
    assert!(
        in_flight > 4.0 && in_flight < 8.5,
        "Little's law: {in_flight} in flight at QD8"
    );
    assert!(!file.exists(), "the file halfpower created is removed");
}

/// A sequential fill without a runtime writes exactly its size, as fio does.
#[test]
fn a_sequential_fill_writes_exactly_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("fill.fio");
    std::fs::write(
        &job,
        format!(
            "; a fill\n[global]\ndirectory={}\nioengine=psync\n\n[fill]\nrw=write\nbs=128k\nsize=12m\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let hp = stdout_json(&[
        "fio",
        job.to_str().unwrap(),
        "--output-format=json",
        "--quiet",
    ]);
    let w = &hp["jobs"][0]["write"];
    assert_eq!(num(w, "io_bytes"), (12 << 20) as f64);
    assert_eq!(num(w, "total_ios"), 96.0);
    assert_eq!(num(&hp["jobs"][0]["read"], "total_ios"), 0.0);
    assert_eq!(hp["global options"]["ioengine"], "psync");
}

/// fio's keywords and arithmetic: `$pagesize`, `$ncpus` and a sum of them (fio 3.33 works the
/// sum out with bc) give the same job in fio and in halfpower, whose sizes match the host's page
/// size and CPU count read independently (`getconf`, `nproc`); a value in parentheses is worked
/// out too, and a sum that mixes in a size suffix is refused by name.
#[test]
fn keywords_and_arithmetic_size_a_job_as_fio_does() {
    if !fio_available() {
        return;
    }
    let sh = |cmd: &str| -> u64 {
        let o = Command::new("sh").args(["-c", cmd]).output().unwrap();
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    };
    let (page, cpus) = (sh("getconf PAGESIZE"), sh("nproc"));
    let want = page * cpus * 8 + 2 * page;
    let dir = tempfile::tempdir().unwrap();
    let written = |tool: &str, file: &str| -> (f64, f64) {
        let job = dir.path().join(format!("{tool}.fio"));
        std::fs::write(
            &job,
            format!(
                "[kw]\nfilename={}\nioengine=psync\nrw=write\nbs=$pagesize\n\
                 size=$pagesize*$ncpus*8+2*$pagesize\n",
                dir.path().join(file).display()
            ),
        )
        .unwrap();
        let v: Value = if tool == "fio" {
            let o = Command::new("fio")
                .args([job.to_str().unwrap(), "--output-format=json"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            serde_json::from_slice(&o.stdout).unwrap()
        } else {
            stdout_json(&[
                "fio",
                job.to_str().unwrap(),
                "--output-format=json",
                "--quiet",
            ])
        };
        let w = &v["jobs"][0]["write"];
        (num(w, "io_bytes"), num(w, "total_ios"))
    };
    let fio = written("fio", "by-fio");
    let hp = written("hp", "by-halfpower");
    assert_eq!(fio, (want as f64, (want / page) as f64));
    assert_eq!(hp, fio);

    // In parentheses (fio builds with arithmetic): bs=(2*4096) is 8 KiB.
    let plan = stdout_text(&[
        "fio",
        "--name=p",
        "--ioengine=null",
        "--rw=read",
        "--bs=(2*4096)",
        "--size=(64*1024)",
        "--parse-only",
    ]);
    assert!(plan.contains(" 8k "), "{plan}");
    // A size suffix inside the sum: fio's bc cannot read it, and halfpower says why.
    let err = usage_error(&[
        "fio",
        "--name=p",
        "--ioengine=null",
        "--rw=read",
        "--size=1m",
        "--bs=2*$pagesize+4k",
        "--parse-only",
    ]);
    assert!(
        err.contains("2*$pagesize+4k") && err.contains("(2*4096)"),
        "{err}"
    );
}

/// fio's verify becomes halfpower's: every block sealed, and read back after the job; the
/// result is in the job's `halfpower` object, and a job that only reads cannot verify.
#[test]
fn verify_seals_and_reads_back_a_jobs_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("v");
    let hp = stdout_json(&[
        "fio",
        "--name=v",
        &format!("--filename={}", f.display()),
        "--rw=randwrite",
        "--bs=4k",
        "--size=2m",
        "--iodepth=8",
        "--direct=1",
        "--verify=crc32c",
        "--output-format=json",
        "--quiet",
    ]);
    let j = &hp["jobs"][0];
    assert_eq!(j["error"], 0);
    assert_eq!(num(&j["write"], "total_ios"), 512.0, "size=2m of 4k writes");
    let v = &j["halfpower"]["verify"];
    // 512 random writes over 512 blocks: every block written at least once is checked.
    assert!(
        num(v, "blocks_checked") > 0.0 && num(v, "blocks_checked") <= 512.0,
        "{v}"
    );
    assert_eq!(v["bad"].as_array().unwrap().len(), 0);
    let notes = &j["halfpower"]["notes"];
    assert!(
        notes
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == "verify" && n["method"] == "crc32c" && n["job"] == j["jobname"]),
        "{notes}"
    );
    let err = usage_error(&[
        "fio",
        "--name=r",
        "--rw=randread",
        "--size=1m",
        "--verify=md5",
        &format!("--filename={}", dir.path().join("r").display()),
    ]);
    assert!(err.contains("--verify") && err.contains("writes"), "{err}");
}

#[test]
fn unknown_options_exit_2_by_name_unless_ignored() {
    let err = usage_error(&["fio", "--name=x", "--zonemode=zbd", "--size=1m"]);
    assert!(
        err.contains("'zonemode'") && err.contains("not supported"),
        "{err}"
    );
    // fio 3.33 aborts on verify=pattern without a pattern.
    let err = usage_error(&["fio", "--name=x", "--verify=pattern", "--size=1m"]);
    assert!(err.contains("verify_pattern"), "{err}");
    let err = usage_error(&["fio", "--name=x", "--verify=crc", "--size=1m"]);
    assert!(err.contains("verify") && err.contains("crc32c"), "{err}");
    let err = usage_error(&["fio", "--name=x", "--buffer_pattern=0x0x1", "--size=1m"]);
    assert!(
        err.contains("buffer_pattern") && err.contains("0x0x1") && err.contains("aborts"),
        "{err}"
    );
    let err = usage_error(&[
        "fio",
        "--filename=hp-fio-not-there",
        "--size=1m",
        "--name=a",
        "--name=b",
    ]);
    assert!(
        err.contains("same time") && err.contains("stonewall"),
        "{err}"
    );
    let err = usage_error(&["fio", "--output-format=terse", "--name=a"]);
    assert!(err.contains("terse"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out = halfpower()
        .args([
            "fio",
            "--name=x",
            "--zonemode=zbd",
            "--ioengine=null",
            "--size=1m",
        ])
        .args([
            "--time_based",
            "--runtime=100ms",
            "--ignore-unknown",
            "--quiet",
        ])
        .args([
            "--output-format=json",
            &format!("--output={}/o.json", dir.path().display()),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("'zonemode'"));
    assert!(out.stdout.is_empty(), "--output takes the document");
    let doc: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("o.json")).unwrap()).unwrap();
    assert_eq!(doc["jobs"][0]["jobname"], "x");
}

#[test]
fn sections_includes_and_environment_variables() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("common.inc"),
        "ioengine=null\ntime_based\nruntime=100ms\n",
    )
    .unwrap();
    let job = dir.path().join("two.fio");
    std::fs::write(
        &job,
        "[global]\ninclude common.inc\nsize=${HP_TEST_SIZE}\n[first]\nrw=read\n[second]\nrw=randwrite\nstonewall\n",
    )
    .unwrap();
    let out = halfpower()
        .env("HP_TEST_SIZE", "8m")
        .args([
            "fio",
            job.to_str().unwrap(),
            "--section=second",
            "--output-format=json",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["jobs"][0]["jobname"], "second");
    assert_eq!(doc["global options"]["size"], "8m");
    assert_eq!(
        num(&doc["jobs"][0]["halfpower"]["workload"], "size"),
        (8 << 20) as f64
    );
}

/// Jobs without stonewall run at the same time, in fio and in halfpower: a reader and a writer
/// on one loop device throttled to 2000 IOPS each way each get about 2000 IOPS, in both tools,
/// and halfpower's two measured windows overlap. At iodepth=32 each covers a 16-ms round trip
/// at its cap: beside the suite's other tests each wake-up on the loop's path may wait for a
/// CPU, and a closed loop reaches a cap only while its depth covers the round trip.
#[test]
fn jobs_of_one_wave_run_at_the_same_time() {
    let _turn = crate::common::measuring();
    let Some(t) = Throttled::new("fiowave", 0, 2000, |dev| {
        format!(
            "[global]\nfilename={}\nioengine=libaio\ndirect=1\ntime_based\nruntime=2\n\
             size=48m\niodepth=32\nbs=4k\n\n[reader]\nrw=randread\n\n[writer]\nrw=randwrite\n",
            dev
        )
    }) else {
        return;
    };
    let run = |program: &Path, extra: &[&str]| t.json(program, extra);
    let fio = run(Path::new("fio"), &[]);
    let t0 = std::time::Instant::now();
    let hp = run(
        &assert_cmd::cargo::cargo_bin("halfpower"),
        &["fio", "--allow-write", "--quiet"],
    );
    // Two 2-s jobs one after the other would take at least 4 s.
    let wall = t0.elapsed().as_secs_f64();
    assert!(wall < 3.6, "the jobs ran one after the other: {wall:.1} s");
    for (doc, who) in [(&fio, "fio"), (&hp, "halfpower")] {
        let jobs = doc["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 2, "{who}");
        let r = num(&jobs[0]["read"], "iops");
        let w = num(&jobs[1]["write"], "iops");
        // Each direction has its own 2000-IOPS cap; run together, each still gets it.
        for x in [r, w] {
            assert!(
                (0.85 * 2000.0..=1.15 * 2000.0).contains(&x),
                "{who}: {r} {w}"
            );
        }
    }
}

/// A job on several files (`filename=a:b`, `nrfiles`) sends its requests to them in turn and
/// divides its size between them, as fio does: a sequential 8 MiB fill over two files is
/// 2048 writes of 4 KiB in both tools, and fio leaves two 4-MiB files.
#[test]
fn a_job_on_two_files_divides_its_size_between_them() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let args = |tool: &str| {
        let mut v: Vec<String> = if tool == "fio" {
            vec![]
        } else {
            vec!["fio".into(), "--quiet".into()]
        };
        v.extend(
            [
                "--name=two",
                &format!("--directory={d}/{tool}"),
                "--filename=a:b",
                "--size=8m",
                "--rw=write",
                "--bs=4k",
                "--output-format=json",
            ]
            .map(String::from),
        );
        v
    };
    for tool in ["fio", "halfpower"] {
        std::fs::create_dir(dir.path().join(tool)).unwrap();
    }
    let out = std::process::Command::new("fio")
        .args(args("fio"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let fio: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hp = stdout_json(&args("halfpower"));
    for (doc, who) in [(&fio, "fio"), (&hp, "halfpower")] {
        assert_eq!(num(&doc["jobs"][0]["write"], "total_ios"), 2048.0, "{who}");
    }
    for f in ["a", "b"] {
        let len = std::fs::metadata(dir.path().join("fio").join(f))
            .unwrap()
            .len();
        assert_eq!(len, 4 << 20, "fio's {f}");
    }
    assert_eq!(
        hp["jobs"][0]["halfpower"]["target"],
        format!("stripe({d}/halfpower/a+{d}/halfpower/b)")
    );
    // halfpower removes the files it created.
    assert!(
        std::fs::read_dir(dir.path().join("halfpower"))
            .unwrap()
            .next()
            .is_none()
    );
}

/// rate_min fails a job, as in fio, when a whole second after the first falls below it: a
/// null-engine job capped at 1000 IOPS of 4 KiB (4.1 MB/s) fails a rate_min of 8m (EIO in
/// `error`, exit status 1) and passes one of 1m.
#[test]
fn rate_min_fails_a_job_below_it() {
    let _turn = crate::common::measuring();
    let job = |min: &str| {
        halfpower()
            .args([
                "fio",
                "--name=x",
                "--ioengine=null",
                "--rw=read",
                "--bs=4k",
                "--size=64m",
                "--rate_iops=1000",
                &format!("--rate_min={min}"),
                "--time_based",
                "--runtime=3",
                "--output-format=json",
                "--quiet",
            ])
            .output()
            .unwrap()
    };
    let slow = job("8m");
    assert_eq!(slow.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&slow.stdout).unwrap();
    assert_eq!(v["jobs"][0]["error"], libc_eio());
    assert!(String::from_utf8_lossy(&slow.stderr).contains("rate_min"));
    let fine = job("1m");
    assert_eq!(fine.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&fine.stdout).unwrap();
    assert_eq!(v["jobs"][0]["error"], 0);
}

/// EIO, as fio writes it in `error`.
fn libc_eio() -> i64 {
    5
}
