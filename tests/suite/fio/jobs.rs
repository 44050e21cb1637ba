//! How `halfpower fio` handles jobs (issue 23), against fio 3.33 and the kernel's counters:
//! the files of numjobs clones, planning many files in linear time and stopping on SIGTERM,
//! every job of a wave set up before any is measured, fio's `invalidate`, refusals that say
//! what is wrong, and ten jobs' IOPS beside fio's on a throttled device.

use super::*;

/// The names and sizes of the files in `dir`, sorted.
pub(super) fn listing(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| {
                    let len = e.metadata().map_or(0, |m| m.len());
                    (e.file_name().to_string_lossy().into_owned(), len)
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `numjobs` without `filename` gives each clone files of its own, as fio does: fio 3.33 and
/// halfpower, on the same job in two empty directories, lay out the same files (`jb.0.0`,
/// `jb.1.0`, 8 MiB each: the whole size per clone, not shared), and each writes 16 MiB.
/// halfpower removes what it created when the job ends, so its directory is read while the
/// job runs (the files are laid out before the measured second starts and stay until it ends).
#[test]
fn numjobs_without_filename_gives_each_clone_its_own_file() {
    if !fio_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (fio_dir, hp_dir) = (dir.path().join("fio"), dir.path().join("hp"));
    for d in [&fio_dir, &hp_dir] {
        std::fs::create_dir(d).unwrap();
    }
    let job = |d: &Path| -> Vec<String> {
        [
            "--name=jb".to_string(),
            format!("--directory={}", d.display()),
            "--numjobs=2".into(),
            "--size=8m".into(),
            "--rw=write".into(),
            "--bs=64k".into(),
            "--group_reporting".into(),
            "--output-format=json".into(),
        ]
        .to_vec()
    };
    let out = Command::new("fio").args(job(&fio_dir)).output().unwrap();
    assert!(out.status.success());
    let fio: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fio_files = listing(&fio_dir);
    assert_eq!(
        fio_files,
        [
            ("jb.0.0".to_string(), 8 << 20),
            ("jb.1.0".to_string(), 8 << 20)
        ]
    );
    // The same job, slowed by a rate cap (2 × 4 MiB/s) so that its files stay a while.
    let mut args = vec!["fio".to_string(), "--quiet".into(), "--rate=4m".into()];
    args.extend(job(&hp_dir));
    let child = halfpower_spawnable()
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let t0 = std::time::Instant::now();
    while seen != fio_files && t0.elapsed().as_secs() < 30 {
        seen = listing(&hp_dir);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(seen, fio_files, "halfpower's files while the job ran");
    let hp: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (doc, who) in [(&fio, "fio"), (&hp, "halfpower")] {
        assert_eq!(
            num(&doc["jobs"][0]["write"], "io_bytes"),
            (16 << 20) as f64,
            "{who}"
        );
    }
    assert!(
        listing(&hp_dir).is_empty(),
        "halfpower removes the files it made"
    );
}

/// What fio's examples met: each refusal says what is wrong with the value as written. A
/// backwards stride is named as such (not "use a whole number"), a value that came from an
/// unset `${VAR}` names the variable, a distribution error reads as one sentence, fio's
/// `random_center` (which fio 3.33 does not know) points to the centre form, and tiobench's
/// `threads=1`, which fio takes, is taken.
#[test]
fn refusals_name_what_is_wrong() {
    let base = [
        "fio",
        "--name=x",
        "--ioengine=null",
        "--size=1m",
        "--parse-only",
    ];
    let err = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        usage_error(&a)
    };
    let e = err(&["--rw=read:-8k"]);
    assert!(
        e.contains("backwards") && !e.contains("whole number"),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("env.fio");
    std::fs::write(
        &job,
        "[x]\nioengine=null\nsize=1m\nbs=${HALFPOWER_TEST_UNSET_BS}\n",
    )
    .unwrap();
    let out = halfpower()
        .args(["fio", job.to_str().unwrap(), "--parse-only"])
        .env_remove("HALFPOWER_TEST_UNSET_BS")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("${HALFPOWER_TEST_UNSET_BS}") && e.contains("not set"),
        "{e}"
    );
    let e = err(&["--rw=randread", "--random_distribution=sequence:1"]);
    assert!(
        !e.contains("use unknown") && e.contains("not a distribution"),
        "{e}"
    );
    let e = err(&["--rw=randread", "--random_center=0.5"]);
    assert!(
        e.contains("not a fio option") && e.contains("zipf:1.2:0.5"),
        "{e}"
    );
    let mut a = base.to_vec();
    a.push("--threads=1");
    stdout_text(&a);
}

/// fio's filecreate example has 16 jobs of 31 250 files each in one wave: 500 000 files whose
/// names must all differ. Compared in pairs that is 1.25 × 10^11 comparisons, minutes at a
/// nanosecond each (halfpower spun for over ten minutes on it); hashed, it is 500 000
/// insertions, under a second (0.9 s measured on this machine). 20 s separates the two with
/// room for a busy machine.
#[test]
fn many_files_plan_in_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("many.fio");
    let mut text = String::from("[global]\nnrfiles=31250\nioengine=null\nfilesize=4k\n");
    for i in 0..16 {
        text.push_str(&format!("[t{i}]\n"));
    }
    std::fs::write(&job, text).unwrap();
    let t0 = std::time::Instant::now();
    let plan = stdout_text(&["fio", job.to_str().unwrap(), "--parse-only"]);
    let took = t0.elapsed().as_secs_f64();
    assert_eq!(plan.matches("(31250 files)").count(), 16, "{plan}");
    assert!(took < 20.0, "planning 500 000 files took {took:.1} s");
}

/// SIGTERM while jobs are being planned ends the process at once with 143 (128 + SIGTERM), as
/// it does during a run. 10 000 jobs of 100 000 files each take minutes to plan (10^9 names);
/// the signal is sent once the process has installed its handler (its SigCgt in
/// /proc/PID/status), and the process must be gone within 5 s.
#[test]
fn sigterm_while_planning_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("huge.fio");
    let mut text =
        String::from("[global]\nnrfiles=100000\nioengine=null\nfilesize=4k\nstonewall\n");
    for i in 0..10_000 {
        text.push_str(&format!("[t{i}]\n"));
    }
    std::fs::write(&job, text).unwrap();
    let mut child = halfpower_spawnable()
        .args(["fio", job.to_str().unwrap(), "--parse-only"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let catches_term = || {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("SigCgt:"))?.to_string();
                u64::from_str_radix(line["SigCgt:".len()..].trim(), 16).ok()
            })
            .is_some_and(|mask| mask & (1 << (libc::SIGTERM - 1)) != 0)
    };
    let t0 = std::time::Instant::now();
    while !catches_term() && t0.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(catches_term(), "the handler was never installed");
    // SAFETY: kill sends a signal to the child this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let t1 = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t1.elapsed().as_secs() >= 5 {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let status = status.expect("still planning 5 s after SIGTERM");
    assert_eq!(status.code(), Some(143), "{status:?}");
}

/// Jobs of one wave start measuring together, once every job's files are laid out, as in fio.
/// Two read-only jobs on one ext4 file system over a loop device: "small" lays out 1 MiB,
/// "big" 128 MiB (written, then flushed). Neither job writes, so the disk's own counters over
/// "small"'s measured window (`halfpower.devices`) must show no more than the file system's
/// housekeeping (< 1 MiB written). When each job laid out its own file inside its own thread,
/// "small" started measuring while "big" was still being written, 128 MiB of it.
#[test]
fn every_job_of_a_wave_is_set_up_before_any_is_measured() {
    let Some(fs) = Ext4::new("fiosetup", 160 << 20) else {
        return;
    };
    let job = fs.dir.path().join("wave.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\ndirectory={}\nrw=randread\nbs=4k\ndirect=1\ntime_based\nruntime=2\n\
             \n[small]\nsize=1m\n\n[big]\nsize=128m\n",
            fs.path()
        ),
    )
    .unwrap();
    let v = stdout_json(&[
        "fio",
        job.to_str().unwrap(),
        "--output-format=json",
        "--quiet",
    ]);
    let name = fs.lo.name();
    for j in v["jobs"].as_array().unwrap() {
        let dev = j["halfpower"]["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} not among {j}"));
        eprintln!(
            "{}: {} bytes written, {} read in its window",
            j["jobname"], dev["write_bytes"], dev["read_bytes"]
        );
        assert!(num(dev, "read_bytes") > 0.0, "{dev}");
        assert!(
            num(dev, "write_bytes") < (1 << 20) as f64,
            "job {} measured while files were being laid out: {dev}",
            j["jobname"]
        );
    }
}

/// fio's `invalidate` (on by default) drops a buffered job's files from the page cache before
/// the job, so its reads reach the device; with `invalidate=0` a warm cache answers them. A
/// loop device is read once to warm its cache, then a buffered 16 MiB sequential read runs:
/// the device's own counters (/proc/diskstats) show at least 16 MiB read by default and by fio
/// 3.33, and under 1 MiB with `invalidate=0`.
#[test]
fn invalidate_drops_the_cache_before_a_buffered_job() {
    if !fio_available() {
        return;
    }
    let Some(lo) = LoopDev::new("fioinval", 32 << 20) else {
        return;
    };
    let name = lo.name();
    // The kernel empties a block device's cache when its last opener closes it: the test holds
    // it open.
    let mut held = std::fs::File::open(&lo.dev).unwrap();
    let mut read_mib = |program: &Path, extra: &[&str]| -> f64 {
        use std::io::{Read, Seek};
        held.rewind().unwrap();
        std::io::copy(&mut (&mut held).take(32 << 20), &mut std::io::sink()).unwrap(); // warm
        let before = disk_sectors(&name).0;
        let mut args = extra.to_vec();
        let file = format!("--filename={}", lo.path());
        args.extend([
            "--name=r",
            file.as_str(),
            "--rw=read",
            "--bs=64k",
            "--size=16m",
            "--output-format=json",
        ]);
        let out = Command::new(program).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (disk_sectors(&name).0 - before) as f64 * 512.0 / (1 << 20) as f64
    };
    let hp = assert_cmd::cargo::cargo_bin("halfpower");
    let fio = read_mib(Path::new("fio"), &[]);
    let default = read_mib(&hp, &["fio", "--quiet"]);
    let kept = read_mib(&hp, &["fio", "--quiet", "--invalidate=0"]);
    eprintln!("device MiB read: fio {fio:.1}, halfpower {default:.1}, invalidate=0 {kept:.1}");
    assert!(fio >= 16.0, "fio read {fio:.1} MiB from the device");
    assert!(
        default >= 16.0,
        "halfpower read {default:.1} MiB from the device"
    );
    assert!(
        kept < 1.0,
        "invalidate=0 read {kept:.1} MiB from the device"
    );
    // And before every pass: with loops=3 each of the three passes reads its 16 MiB from the
    // device (halfpower once read the first only: 16 MiB, the later passes from the cache).
    // Readahead may read past the 16 MiB, by at most the device's window each pass.
    let ra = std::fs::read_to_string(format!("/sys/block/{name}/queue/read_ahead_kb"))
        .unwrap()
        .trim()
        .parse::<f64>()
        .unwrap()
        / 1024.0;
    let fio = read_mib(Path::new("fio"), &["--loops=3"]);
    let default = read_mib(&hp, &["fio", "--quiet", "--loops=3"]);
    let kept = read_mib(&hp, &["fio", "--quiet", "--loops=3", "--invalidate=0"]);
    eprintln!(
        "loops=3, device MiB read: fio {fio:.1}, halfpower {default:.1}, invalidate=0 {kept:.1}"
    );
    assert!(fio >= 48.0, "fio read {fio:.1} MiB from the device");
    assert!(
        (48.0..=48.0 + 3.0 * ra).contains(&default),
        "halfpower read {default:.1} MiB from the device, readahead {ra} MiB"
    );
    assert!(
        kept < 1.0,
        "invalidate=0 read {kept:.1} MiB from the device"
    );
    // `run --invalidate` is the same drop, before the first pass and after each: 48 MiB of
    // sequential reads over a 16 MiB region (a warm cache, held open) read the device three
    // times over; without it, never.
    let mut run_mib =
        |invalidate: bool| -> f64 { read_mib_run(&mut held, &name, lo.path(), invalidate) };
    let (again, once) = (run_mib(true), run_mib(false));
    eprintln!("run --bytes 48m over 16 MiB: --invalidate {again:.1} MiB, without {once:.1}");
    assert!(
        (48.0..=48.0 + 3.0 * ra).contains(&again),
        "--invalidate: {again:.1} MiB, readahead {ra} MiB"
    );
    assert!(once < 1.0, "without --invalidate: {once:.1} MiB");
}

/// MiB the device `name` read while `halfpower run` read 48 MiB buffered and sequentially over
/// the first 16 MiB of `dev`, its cache warmed first through `held`.
fn read_mib_run(held: &mut std::fs::File, name: &str, dev: &str, invalidate: bool) -> f64 {
    use std::io::{Read, Seek};
    held.rewind().unwrap();
    std::io::copy(&mut (&mut *held).take(32 << 20), &mut std::io::sink()).unwrap();
    let before = disk_sectors(name).0;
    let mut args = vec![
        "run",
        dev,
        "--rw",
        "read",
        "--bs",
        "64k",
        "--size",
        "16m",
        "--bytes",
        "48m",
        "--buffered",
        "--warmup",
        "0",
        "--quiet",
    ];
    if invalidate {
        args.push("--invalidate");
    }
    stdout_text(&args);
    (disk_sectors(name).0 - before) as f64 * 512.0 / (1 << 20) as f64
}

/// fio's job, fio's IOPS: each job of one job file runs under fio and under halfpower at the
/// same time, each tool on its own of two twin loop devices throttled to 2000 IOPS and 40 MB/s
/// each way (each in its own cgroup); halfpower's IOPS must be within 15 % of fio's, job by
/// job, and the rate-capped job within 2 % of its cap in both. Side by side, each job of one
/// tool meets the host the other's meets, and the test takes half the time of one after the
/// other (46 s, the longest of the suite's exclusive tests).
///
/// Each job starts 300 ms after the last ended (`startdelay`). blk-throttle counts a busy
/// group's allowance over a slice (100 ms) that runs on while the group keeps dispatching, so a
/// job that starts at once after one that used less of a limit inherits what that one left: a
/// slice or two of I/Os more in a 2-s job (halfpower, whose stonewalled jobs follow each other
/// without a pause, read 2176 IOPS under the 2000 cap in a first job that followed fio's last,
/// 641 at 64 KiB under the 610 the bytes allow, 2102 where fio had 1968). After an idle slice
/// every job starts a fresh one in either tool (then 4004, 1224, 4008, 4001 I/Os in both).
///
/// A closed loop reaches a cap only while its depth covers the round trip (depth / cap), and
/// beside the suite's other tests each wake-up on the loop's path may wait for a CPU: in CI,
/// at QD4 and QD8, halfpower's mixed and psync jobs read 1796 and 1670 IOPS where fio had 2908
/// and 2000, and fio's first job twice 1570 and 1699 under the 2000 cap, with every CPU's
/// probe quiet (they sleep 10 ms and see no sub-millisecond delays). So each job whose rate a
/// cap sets runs deep enough to cover 10 ms or more at it (iodepth 8 to 32), and the one that
/// cannot (psync: one I/O in flight, 0.5 ms at 2000 IOPS) is held to its cap from above only.
/// Every job's bytes are the kernel's count of its window (its `halfpower.devices`: the
/// loop device's /proc/diskstats at the window's edges, with nothing in flight there).
#[test]
fn jobs_match_fio_on_a_throttled_device() {
    let _turn = crate::common::exclusive();
    let job = |dev: &str| {
        format!(
            "[global]\nfilename={}\nioengine=libaio\ndirect=1\ntime_based\nruntime=2\nsize=48m\n\
             startdelay=300ms\n\n\
             [rand-read-4k]\nrw=randread\nbs=4k\niodepth=32\n\n\
             [seq-read-64k]\nrw=read\nbs=64k\niodepth=8\nstonewall\n\n\
             [rand-write-4k]\nrw=randwrite\nbs=4k\niodepth=32\nstonewall\n\n\
             [mixed-70-30]\nrw=randrw\nrwmixread=70\nbs=8k\niodepth=32\nstonewall\n\n\
             [psync-16k]\nioengine=psync\nrw=randread\nbs=16k\nstonewall\n\n\
             [rate-capped]\nrw=randread\nbs=4k\niodepth=8\nrate_iops=800\nstonewall\n\n\
             [bssplit-zipf]\nrw=randread\nbssplit=4k/50:16k/30:64k/20\n\
             random_distribution=zipf:1.1\niodepth=32\nstonewall\n\n\
             [pareto-half-random]\nrw=randwrite\nbs=4k\nrandom_distribution=pareto:0.2\n\
             percentage_random=50\niodepth=32\nstonewall\n\n\
             [seq-gaps]\nrw=read:64k\nbs=64k\niodepth=8\nstonewall\n\n\
             [think-2ms]\nrw=randread\nbs=4k\nthinktime=2ms\nthinktime_blocks=2\niodepth=2\nstonewall\n",
            dev
        )
    };
    let Some(for_fio) = Throttled::new("fio", CAP_BYTES, CAP_IOPS, job) else {
        return;
    };
    let Some(for_hp) = Throttled::new("fio-hp", CAP_BYTES, CAP_IOPS, job) else {
        return;
    };
    // On a stormy host one tool's 2-s job can lose 10 % (in CI: fio 1774 IOPS on the
    // bssplit job where the caps allow 1993, halfpower 2102): judged on an attempt the
    // product's probe saw quiet (common::judged_when_quiet).
    common::judged_when_quiet(2, |attempt| {
        let (fio, hp) = std::thread::scope(|s| {
            let fio = s.spawn(|| for_fio.json(Path::new("fio"), &[]));
            let hp = for_hp.json(
                &assert_cmd::cargo::cargo_bin("halfpower"),
                &["fio", "--allow-write", "--quiet"],
            );
            (fio.join().unwrap(), hp)
        });
        if !attempt.quiet() {
            return false;
        }
        let (fj, hj) = (
            fio["jobs"].as_array().unwrap(),
            hp["jobs"].as_array().unwrap(),
        );
        assert_eq!(fj.len(), 10);
        assert_eq!(hj.len(), 10);
        let mut report = Vec::new();
        for (f, h) in fj.iter().zip(hj) {
            assert_eq!(f["jobname"], h["jobname"]);
            let iops = |j: &Value| num(&j["read"], "iops") + num(&j["write"], "iops");
            let (a, b) = (iops(f), iops(h));
            let dev = &h["halfpower"]["devices"][0];
            report.push(format!(
                "{}: fio {a:.0} halfpower {b:.0} ({:.3}; the kernel {:.0} I/Os in {:.3} s)",
                f["jobname"],
                b / a,
                dev["reads"].as_f64().unwrap_or(0.0) + dev["writes"].as_f64().unwrap_or(0.0),
                dev["seconds"].as_f64().unwrap_or(0.0),
            ));
            assert!(a > 100.0, "fio ran: {report:?}");
        }
        // A job that sleeps between requests (think-2ms: 2 ms after every 2) loses the host's
        // lateness L at each wake-up, a share L / cycle of its rate, in either tool: the two
        // may differ by twice that (a host late 264 µs on average: fio 738, halfpower 870 IOPS).
        let late_s = attempt.noise().late_mean_us * 1e-6;
        let lost = attempt.noise().lost_share();
        for (f, h) in fj.iter().zip(hj) {
            let iops = |j: &Value| num(&j["read"], "iops") + num(&j["write"], "iops");
            // Where the device's caps alone set a job's rate, that rate is the known answer:
            // halfpower within 5 % of it (less the host's share). fio is the reference
            // elsewhere, and here too unless its own figure missed the known answer by more
            // than 5 %: twice in CI fio's first job read 1570 and 1699 IOPS under the 2000
            // cap (halfpower 2002 beside the first) with the host quiet, which says nothing
            // of halfpower.
            let name = f["jobname"].as_str().unwrap();
            let bytes = |j: &Value| num(&j["read"], "io_bytes") + num(&j["write"], "io_bytes");
            let dev = &h["halfpower"]["devices"][0];
            assert_eq!(
                bytes(h),
                num(dev, "read_bytes") + num(dev, "write_bytes"),
                "{name}: halfpower's bytes against the kernel's count of its window: {report:#?}"
            );
            if name == "psync-16k" {
                assert!(iops(h) <= 1.05 * CAP_IOPS as f64, "{report:#?}");
                continue;
            }
            let reference = match known(name) {
                Some(cap) => {
                    let r = iops(h) / cap;
                    assert!(
                        r <= 1.05 && r >= 0.95 - lost,
                        "at the caps' {cap:.0} (host {lost:.3}): {report:#?}"
                    );
                    if (iops(f) / cap - 1.0).abs() <= 0.05 {
                        iops(f)
                    } else {
                        eprintln!("fio missed the known {cap:.0}: {report:?}");
                        cap
                    }
                }
                None => iops(f),
            };
            let r = iops(h) / reference;
            let host = if f["jobname"] == "think-2ms" {
                2.0 * late_s * iops(f) / 2.0
            } else {
                0.0
            };
            assert!(
                (r - 1.0).abs() <= 0.15 + host,
                "job by job within 15 % of fio (plus {host:.3} for the host): {report:#?}"
            );
            if f["jobname"] == "rate-capped" {
                for j in [f, h] {
                    let r = iops(j) / 800.0;
                    assert!((0.98..=1.02).contains(&r), "rate cap 800: {report:#?}");
                }
            }
        }
        eprintln!("{report:#?}");
        true
    });
}

/// The throttled device's caps, each way: I/Os and bytes per second.
const CAP_IOPS: u64 = 2000;
const CAP_BYTES: u64 = 40_000_000;

/// The IOPS the device's caps (2000 I/Os and 40 MB/s each way) alone set for a job of the
/// ten, where they do: 4k and 16k requests at any depth are held to 2000 I/Os (16 KiB × 2000
/// = 32.8 MB/s, under the byte cap), 64 KiB ones to 40 MB/s (610 per second), the rate-capped
/// job to its 800. None where the mix of directions, sizes or think time sets it.
fn known(job: &str) -> Option<f64> {
    match job {
        "rand-read-4k" | "rand-write-4k" | "psync-16k" | "pareto-half-random" => {
            Some(CAP_IOPS as f64)
        }
        "seq-read-64k" | "seq-gaps" => Some(CAP_BYTES as f64 / 65536.0),
        "rate-capped" => Some(800.0),
        _ => None,
    }
}
