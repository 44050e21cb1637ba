//! Flushes count in the write rate, as fio counts them: a FUSE disk whose writes take a known
//! time and whose fsync takes a known, much longer time (tests/common/fuse.rs,
//! `Server::flushing`), so a window that leaves the flush out is seen at once. The window is
//! held between the disk's known minimum (its writes and flushes back to back) and the test's
//! own clock around the process.

use crate::common;
use common::fuse::{Server, mount_fs_with};
use common::num;
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A write's service time, and a flush's.
const WRITE: Duration = Duration::from_millis(2);
const FLUSH: Duration = Duration::from_millis(300);

/// halfpower with `args` (plus JSON on stdout), and the wall time of the whole process, s.
fn timed(args: &[&str]) -> (Value, f64) {
    let t = Instant::now();
    let out = common::halfpower().args(args).output().unwrap();
    let wall = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "halfpower {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (serde_json::from_slice(&out.stdout).unwrap(), wall)
}

/// Holds `seconds` (the window a rate was computed over) between the disk's minimum for
/// `writes` writes and `flushes` flushes and the process's wall time, and the rate to the
/// workload's bytes over that window.
fn judge(what: &str, seconds: f64, wall: f64, writes: u32, flushes: u32, rate_b: f64) {
    let least = writes as f64 * WRITE.as_secs_f64() + flushes as f64 * FLUSH.as_secs_f64();
    assert!(
        (least..=wall).contains(&seconds),
        "{what}: the window is {seconds:.3} s; the disk needs at least {least:.3} s for {writes} \
         writes and {flushes} flushes, and the process took {wall:.3} s"
    );
    let bytes = writes as f64 * (1 << 20) as f64;
    assert!(
        (rate_b - bytes / seconds).abs() <= 1e-6 * rate_b,
        "{what}: {rate_b} B/s is not {bytes} B over {seconds} s"
    );
}

/// `run --end-fsync` and `--fsync N`: the window runs to the last flush's end (before, it ended
/// at the last write, and 4 MiB written in 8 ms then flushed for 300 ms read 500 MB/s).
#[test]
fn run_counts_its_flushes_in_the_window() {
    let server = Server::new(8 << 20, WRITE).flushing(FLUSH);
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-flush", 1) else {
        return;
    };
    let disk = fs.disk();
    let base = [
        "run",
        disk.as_str(),
        "--rw",
        "write",
        "--bs",
        "1m",
        "--qd",
        "1",
        "--size",
        "4m",
        "--bytes",
        "4m",
        "--warmup",
        "0",
        "--allow-write",
        "--quiet",
        "--json",
        "-",
    ];
    for (extra, flushes) in [(&["--end-fsync"][..], 1), (&["--fsync", "2"][..], 2)] {
        let before = served.flushes.load(Ordering::SeqCst);
        let mut args = base.to_vec();
        args.extend(extra);
        let (v, wall) = timed(&args);
        let r = &v["results"];
        assert_eq!(num(r, "sync.count"), flushes as f64, "{extra:?}");
        assert_eq!(
            served.flushes.load(Ordering::SeqCst) - before,
            flushes as u64,
            "{extra:?}: the disk's own count of flushes"
        );
        let rate = num(r, "total.mb_per_s") * 1e6;
        judge(
            &format!("run {extra:?}"),
            num(r, "seconds"),
            wall,
            4,
            flushes,
            rate,
        );
    }
}

/// `halfpower fio` with `end_fsync=1`: fio's runtime, and its bandwidth, include the flush.
#[test]
fn fio_counts_the_end_flush_in_its_runtime() {
    let server = Server::new(8 << 20, WRITE).flushing(FLUSH);
    let Some(fs) = mount_fs_with(server, "halfpower-fioflush", 1) else {
        return;
    };
    let disk = fs.disk();
    let (v, wall) = timed(&[
        "fio",
        "--name=flush",
        &format!("--filename={disk}"),
        "--size=4m",
        "--rw=write",
        "--bs=1m",
        "--direct=1",
        "--end_fsync=1",
        "--allow-write",
        "--quiet",
        "--output-format=json",
    ]);
    let job = &v["jobs"][0];
    assert_eq!(num(&job["sync"], "total_ios"), 1.0);
    let runtime = num(job, "job_runtime") / 1e3;
    // fio's runtime is whole milliseconds: the rate is the bytes over it to that precision.
    let rate = num(&job["write"], "bw_bytes");
    let bytes = (4u64 << 20) as f64;
    assert!(
        (rate - bytes / runtime).abs() <= rate * 0.001 / runtime + 1.0,
        "{rate} B/s over {runtime} s"
    );
    judge(
        "fio end_fsync=1",
        runtime,
        wall + 0.0005,
        4,
        1,
        bytes / runtime,
    );
}

/// Opens `halfpower fio` with fio job `opts` on a new file in `dir` under strace; the flags
/// of the file's open.
fn open_flags(dir: &std::path::Path, opts: &[&str]) -> String {
    let f = dir.join("s.dat");
    let log = dir.join("strace.log");
    let _ = std::fs::remove_file(&f);
    let status = std::process::Command::new("strace")
        .args(["-f", "-e", "trace=openat", "-o"])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("halfpower"))
        .args([
            "fio",
            "--name=s",
            "--size=1m",
            "--rw=write",
            "--bs=64k",
            "--quiet",
        ])
        .arg(format!("--filename={}", f.display()))
        .args(opts)
        .arg("--output-format=json")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    text.lines()
        .rfind(|l| l.contains("s.dat\"") && l.contains("O_RDWR") && !l.contains("O_CREAT"))
        .unwrap_or_else(|| panic!("the job's open of its file is not in strace's record:\n{text}"))
        .to_string()
}

/// fio's `sync=1` opens with O_SYNC (a write waits for the file's metadata too, its
/// modification time among it), `sync=dsync` with O_DSYNC: halfpower opened both O_DSYNC, and
/// an O_SYNC job read 1.57 times fio's rate on ext4.
#[test]
fn fio_opens_as_its_sync_option_says() {
    if !common::have("strace", "-V") {
        common::unavailable("strace (apt-get install strace)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let full = open_flags(dir.path(), &["--sync=1"]);
    assert!(full.contains("O_SYNC"), "{full}");
    let data = open_flags(dir.path(), &["--sync=dsync"]);
    assert!(
        data.contains("O_DSYNC") && !data.contains("O_SYNC"),
        "{data}"
    );
    let none = open_flags(dir.path(), &[]);
    assert!(!none.contains("SYNC"), "{none}");
}

/// 4 KiB blocks of `path` that hold anything but zeros, and the blocks allocated (st_blocks).
fn written_and_allocated(path: &std::path::Path) -> (usize, u64) {
    use std::os::unix::fs::MetadataExt;
    let data = std::fs::read(path).unwrap();
    let written = data
        .chunks(4096)
        .filter(|b| b.iter().any(|&x| x != 0))
        .count();
    (written, std::fs::metadata(path).unwrap().blocks() * 512)
}

/// A job that only writes gets its new file as fio lays it out (filesetup.c: fallocate, not
/// written): every block reserved and none written before the job writes it. fio 3.33 leaves
/// its file so; halfpower's is read while its job writes 4 blocks a second. halfpower wrote
/// the whole file first, so each first write to a block overwrote data where fio's converted
/// an unwritten extent, and its syncing jobs ran 1.2 to 1.5 times fio's rate on ext4.
#[test]
fn fio_lays_out_a_write_only_jobs_file_as_fio_does() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("l.dat");
    let job = |f: &std::path::Path| {
        [
            "--name=l".to_string(),
            format!("--filename={}", f.display()),
            "--size=1m".into(),
            "--rw=randwrite".into(),
            "--bs=4k".into(),
            "--rate_iops=4".into(),
            "--time_based".into(),
            "--runtime=2".into(),
        ]
    };
    if common::have("fio", "--version") {
        let out = std::process::Command::new("fio")
            .args(job(&f))
            .args(["--runtime=1", "--output-format=json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let (written, allocated) = written_and_allocated(&f);
        assert!(
            allocated >= 1 << 20 && written <= 8,
            "fio: {written} blocks written, {allocated} B allocated"
        );
        std::fs::remove_file(&f).unwrap();
    } else {
        common::unavailable("fio (apt-get install fio)");
    }
    let mut child = common::halfpower_spawnable()
        .arg("fio")
        .args(job(&f))
        .args(["--quiet", "--output-format=json"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !f.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Past any layout: the job has been writing for a while, at 4 blocks a second.
    std::thread::sleep(Duration::from_millis(500));
    let (written, allocated) = written_and_allocated(&f);
    assert!(child.wait().unwrap().success());
    assert!(
        allocated >= 1 << 20 && written <= 8,
        "halfpower: {written} of 256 blocks written, {allocated} B allocated, half a second in"
    );
}
