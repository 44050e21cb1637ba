//! I/O errors at chosen offsets, from a small FUSE file system in this test: one file whose
//! reads fail with EIO wherever a bad range lies (opened with FOPEN_DIRECT_IO, so every
//! request reaches the file system with its own offset and length). A run reports exactly
//! those offsets, counts them per direction and exits 1; `--on-error stop` (the default) ends
//! a run one second after its first failure, `--on-error continue` runs to the end.
//!
//! A second file system is a disk with a volatile write cache: writes reach its durable image
//! only when an fsync completes, and a power cut loses the rest. Verification after the cut
//! tells the lost writes the disk never promised (lost-unflushed) from those it had (stale).

use crate::common;

use common::fuse::{Mounted, getattr_disk, lookup_disk, mount_fs, open_direct};
use common::{halfpower, is_root, num, unavailable};
use fuser::{
    Errno, FileHandle, Filesystem, INodeNo, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyEntry,
    Request,
};
use std::ffi::OsStr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SIZE: u64 = 4 << 20;

/// A root directory holding one file, `disk`, whose reads fail inside `bad` ranges.
struct Faulty {
    data: Vec<u8>,
    bad: Vec<std::ops::Range<u64>>,
}

impl Filesystem for Faulty {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        lookup_disk(parent, name, SIZE, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        getattr_disk(ino, SIZE, reply);
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: fuser::ReplyOpen) {
        open_direct(reply);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let end = (offset + size as u64).min(SIZE);
        if self.bad.iter().any(|r| r.start < end && offset < r.end) {
            reply.error(Errno::EIO);
        } else {
            reply.data(&self.data[offset.min(SIZE) as usize..end as usize]);
        }
    }
}

/// The fault file system mounted; `None` (test skipped, or failed in CI) without root or
/// /dev/fuse.
fn mount(bad: Vec<std::ops::Range<u64>>) -> Option<Mounted> {
    mount_fs(Faulty {
        data: (0..SIZE).map(|i| (i * 31 % 251) as u8).collect(),
        bad,
    })
}

fn run(disk: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = halfpower()
        .args([
            "run", disk, "--bs", "4k", "--qd", "4", "--warmup", "0", "--json", "-",
        ])
        .args(["--quiet"])
        .args(extra)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

#[test]
fn errors_at_chosen_offsets_are_reported_with_those_offsets() {
    let bad = [65536u64, 1056768, 3 << 20];
    let Some(fs) = mount(bad.iter().map(|&o| o..o + 1).collect()) else {
        return;
    };
    let disk = &fs.disk();
    // Every block once, in order: exactly the three bad ones fail.
    let (code, v) = run(
        disk,
        &["--rw", "read", "--bytes", "4m", "--on-error", "continue"],
    );
    assert_eq!(code, Some(1), "failed I/Os exit 1");
    let e = &v["results"]["errors"];
    assert_eq!(e["count"], 3, "{e}");
    assert_eq!(
        (e["reads"].as_u64(), e["writes"].as_u64()),
        (Some(3), Some(0))
    );
    let mut offsets: Vec<u64> = e["first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["offset"].as_u64().unwrap())
        .collect();
    offsets.sort();
    assert_eq!(offsets, bad);
    let eio = |f: &serde_json::Value| {
        f["error"] == serde_json::json!({"kind": "errno", "errno": libc::EIO})
    };
    assert!(e["first"].as_array().unwrap().iter().all(eio), "{e}");
    assert_eq!(e["stopped"], false);
    assert_eq!(v["results"]["targets"][0]["errors"]["count"], 3);
    // The good blocks were all read.
    assert_eq!(num(&v, "results.read.ios") as u64, 1024 - 3);
}

#[test]
fn on_error_stop_ends_the_run_a_second_after_the_first_failure() {
    let _turn = crate::common::measuring();
    // Every other 64-KiB stretch fails: a random read fails about every second time.
    let bad = (0..SIZE / 131072)
        .map(|k| k * 131072..k * 131072 + 65536)
        .collect();
    let Some(fs) = mount(bad) else {
        return;
    };
    let disk = &fs.disk();
    let (code, v) = run(disk, &["--rw", "randread", "--time", "30s"]);
    assert_eq!(code, Some(1));
    let e = &v["results"]["errors"];
    assert_eq!(e["stopped"], true, "{e}");
    assert!(num(&v, "results.errors.count") > 0.0);
    // One second of grace, then the drain of at most 4 requests: far below the 30 s asked.
    let s = num(&v, "results.seconds");
    assert!((0.9..5.0).contains(&s), "stopped after {s} s");
    assert_eq!(
        e["first"].as_array().unwrap().len(),
        16,
        "the first 16 kept"
    );

    let (code, v) = run(
        disk,
        &["--rw", "randread", "--time", "2s", "--on-error", "continue"],
    );
    assert_eq!(code, Some(1));
    assert_eq!(v["results"]["errors"]["stopped"], false);
    let s = num(&v, "results.seconds");
    assert!(s >= 1.9, "ran its full 2 s: {s}");
}

/// `--on-error continue-writes` (fio's `continue_on_error=write`) runs a mixed workload to its
/// end while every write fails (the fault file system takes no write: ENOSYS) and its reads
/// succeed; `continue-reads` stops it a second after its first failed write.
#[test]
fn on_error_by_direction_goes_on_after_that_direction_only() {
    let _turn = crate::common::measuring();
    let Some(fs) = mount(Vec::new()) else {
        return;
    };
    let disk = &fs.disk();
    let mixed = [
        "--rw",
        "randrw",
        "--time",
        "2s",
        "--allow-write",
        "--on-error",
    ];
    let (code, v) = run(disk, &[&mixed[..], &["continue-writes"]].concat());
    assert_eq!(code, Some(1));
    let e = &v["results"]["errors"];
    assert_eq!(e["stopped"], false, "{e}");
    assert!(e["writes"].as_u64() > Some(0) && e["reads"] == 0, "{e}");
    let s = num(&v, "results.seconds");
    assert!(s >= 1.9, "ran its full 2 s: {s}");
    assert!(num(&v, "results.read.ios") > 0.0);

    let (code, v) = run(disk, &[&mixed[..], &["continue-reads"]].concat());
    assert_eq!(code, Some(1));
    let e = &v["results"]["errors"];
    assert_eq!(e["stopped"], true, "{e}");
    // Not before its second of grace (it may end with the run's own 2 s on a busy host).
    let s = num(&v, "results.seconds");
    assert!(s >= 0.9, "stopped a second after the first failure: {s} s");
}

/// A tmpfs of 2 MiB under a sparse 8-MiB file under a loop device: writes past what the tmpfs
/// holds fail (ENOSPC from the file system, as the loop device passes it on). Unmounted and
/// detached on drop, also when the test fails.
struct FullTmpfs {
    dir: tempfile::TempDir,
    dev: Option<String>,
}

impl FullTmpfs {
    fn new() -> Option<FullTmpfs> {
        if !is_root() || !common::have("losetup", "--version") {
            unavailable("root, mount and losetup (for a loop device over a full tmpfs)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=2m", "halfpower-full"])
            .arg(dir.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "mounting a 2-MiB tmpfs");
        let mut me = FullTmpfs { dir, dev: None };
        let img = me.dir.path().join("img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(8 << 20)
            .unwrap();
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&img)
            .output()
            .unwrap();
        assert!(out.status.success(), "losetup");
        me.dev = Some(String::from_utf8_lossy(&out.stdout).trim().to_string());
        Some(me)
    }
}

impl Drop for FullTmpfs {
    fn drop(&mut self) {
        if let Some(d) = &self.dev {
            common::detach_loop(Path::new(d), &self.dir.path().join("img"));
        }
        let mut umount = std::process::Command::new("umount");
        umount.arg(self.dir.path());
        common::retry_until_ok(&mut umount);
    }
}

#[test]
fn writes_to_a_full_file_system_fail_with_enospc_and_are_counted_as_writes() {
    let Some(full) = FullTmpfs::new() else {
        return;
    };
    let dev = full.dev.clone().unwrap();
    let out = halfpower()
        .args([
            "run", &dev, "--rw", "write", "--bs", "64k", "--qd", "4", "--warmup", "0",
        ])
        .args([
            "--bytes",
            "8m",
            "--allow-write",
            "--on-error",
            "continue",
            "--json",
            "-",
        ])
        .args(["--quiet"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &v["results"]["errors"];
    // 128 writes of 64 KiB; the tmpfs holds 32 of them, give or take: it has held 33 (seen
    // in CI; its page accounting is not exact to the page). Up to 40 may succeed.
    let failed = e["writes"].as_u64().unwrap();
    assert!((88..=128).contains(&failed), "{e}");
    assert_eq!(e["reads"], 0);
    assert_eq!(num(&v, "results.write.ios") as u64 + failed, 128);
    let first = &e["first_error"];
    assert_eq!(first["kind"], "errno", "{first}");
    assert!(
        [libc::ENOSPC, libc::EIO]
            .iter()
            .any(|&n| first["errno"] == n),
        "{first}"
    );
}

/// What the disk with a volatile write cache holds.
#[derive(Default)]
struct CacheDisk {
    /// What survives a power cut.
    durable: Vec<u8>,
    /// Writes acknowledged since the last flush, in order; `true` for one the disk will lose
    /// at the flush (a broken promise, made on purpose).
    cache: Vec<(u64, Vec<u8>, bool)>,
    /// Writes acknowledged, ever.
    writes: u64,
    /// The numbers (1, 2, …) of the writes the disk loses at their flush.
    lies: Vec<u64>,
    /// Power is cut at the first flush once this many writes have been acknowledged: the
    /// cache is lost and that flush fails.
    cut_after: u64,
    /// Flushes completed.
    flushes: u64,
    /// Whether power was cut.
    cut: bool,
}

/// A root directory holding one file, `disk`: a disk with a volatile write cache.
struct Volatile(Arc<Mutex<CacheDisk>>);

impl Filesystem for Volatile {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        lookup_disk(parent, name, SIZE, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        getattr_disk(ino, SIZE, reply);
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: fuser::ReplyOpen) {
        open_direct(reply);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let d = self.0.lock().unwrap();
        let (start, end) = (offset.min(SIZE), (offset + size as u64).min(SIZE));
        let mut out = d.durable[start as usize..end as usize].to_vec();
        // The cache answers reads of what it holds, in the order it was written.
        for (at, data, _) in &d.cache {
            for (k, &b) in data.iter().enumerate() {
                let o = at + k as u64;
                if (start..end).contains(&o) {
                    out[(o - start) as usize] = b;
                }
            }
        }
        reply.data(&out);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: fuser::WriteFlags,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: fuser::ReplyWrite,
    ) {
        let mut d = self.0.lock().unwrap();
        if offset + data.len() as u64 > SIZE {
            return reply.error(Errno::ENOSPC);
        }
        d.writes += 1;
        let lie = d.lies.contains(&d.writes);
        d.cache.push((offset, data.to_vec(), lie));
        reply.written(data.len() as u32);
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: fuser::ReplyEmpty,
    ) {
        let mut d = self.0.lock().unwrap();
        if d.writes >= d.cut_after {
            // The power cut: the cache is gone, the flush never completes.
            d.cache.clear();
            d.cut = true;
            return reply.error(Errno::EIO);
        }
        for (at, data, lie) in std::mem::take(&mut d.cache) {
            if !lie {
                d.durable[at as usize..at as usize + data.len()].copy_from_slice(&data);
            }
        }
        d.flushes += 1;
        reply.ok();
    }
}

/// A sequential verified write of `n` 4-KiB blocks from `offset_k` KiB, flushed every 64
/// writes, under state `state`: its JSON and exit status.
fn flushed_write(
    disk: &str,
    state: &str,
    offset_k: u64,
    n: u64,
) -> (Option<i32>, serde_json::Value) {
    let (offset, bytes) = (format!("{offset_k}k"), format!("{}k", 4 * n));
    let out = halfpower()
        .args(["run", disk, "--rw", "write", "--bs", "4k", "--qd", "1"])
        .args([
            "--warmup", "0", "--offset", &offset, "--size", "2m", "--bytes", &bytes,
        ])
        .args(["--fsync", "64", "--allow-write", "--verify-state", state])
        .args(["--json", "-", "--quiet"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

#[test]
fn a_power_cut_loses_only_what_the_disk_never_promised() {
    let disk = Arc::new(Mutex::new(CacheDisk {
        durable: vec![0; SIZE as usize],
        // Run B's writes 100, 200 and 300 (run A writes 536 first): flushed, yet lost.
        lies: vec![636, 736, 836],
        // Run B ends at write 1036: halfpower's own flush after it meets the power cut.
        cut_after: 1036,
        ..CacheDisk::default()
    }));
    let Some(fs) = mount_fs(Volatile(disk.clone())) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let (state, path) = (state.to_str().unwrap(), &fs.disk());
    // Run A: blocks 0..535 once, every write flushed (the last ones by halfpower at the end).
    let (code, a) = flushed_write(path, state, 0, 536);
    assert_eq!(code, Some(0), "{a}");
    assert_eq!(a["results"]["verify"]["lost_unflushed"], 0);
    // 8 flushes of the workload and halfpower's own: everything run A wrote is durable.
    assert_eq!(disk.lock().unwrap().flushes, 9);
    assert!(disk.lock().unwrap().cache.is_empty());

    // Run B: blocks 64..563 from 256 KiB, flushed after its writes 64, 128, …, 448; the flush
    // after write 500 fails (power cut). Lost: writes 449..500, blocks 512..563 — over run A's
    // flushed first generation for 512..535, over zeros for 536..563. And the disk broke its
    // promise for blocks 163, 263 and 363 (run B's writes 100, 200, 300: flushed, never kept).
    let (code, b) = flushed_write(path, state, 256, 500);
    assert!(disk.lock().unwrap().cut, "power was cut");
    assert_eq!(code, Some(1), "a broken promise is bad: {b}");
    let lost: Vec<u64> = (512..564).map(|k| k * 4096).collect();
    let stale = [163u64 * 4096, 263 * 4096, 363 * 4096];
    let check = |v: &serde_json::Value| {
        assert_eq!(v["blocks_checked"], 564, "blocks 0..563: {v}");
        assert_eq!(v["lost_unflushed"], 52, "{v}");
        assert_eq!(
            v["targets"][0]["lost_unflushed_offsets"],
            serde_json::json!(lost)
        );
        assert_eq!(v["faults"]["stale"], 3, "{v}");
        let bad: Vec<(u64, u64, u64)> = v["bad"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let g = |k: &str| b[k]["generation"].as_u64().unwrap();
                (b["offset"].as_u64().unwrap(), g("expected"), g("found"))
            })
            .collect();
        assert_eq!(
            bad,
            stale.map(|o| (o, 2, 1)),
            "found generation 1 where 2 was flushed"
        );
        assert_eq!(v["targets"][0]["good"], 564 - 52 - 3);
    };
    // The run's own read-back (after the cut) and a later verify against the state agree.
    check(&b["results"]["verify"]);
    let notes = &b["results"]["verify"]["notes"];
    assert_eq!(notes[0]["kind"], "flush_failed", "{notes}");
    let out = halfpower()
        .args(["verify", "--verify-state", state, "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    check(&serde_json::from_slice(&out.stdout).unwrap());
}

#[test]
fn a_point_with_failed_ios_is_named_in_the_warnings_even_when_quiet() {
    let bad = [65536u64, 1056768, 3 << 20];
    let Some(fs) = mount(bad.iter().map(|&o| o..o + 1).collect()) else {
        return;
    };
    let out = halfpower()
        .args([
            "sweep",
            &fs.disk(),
            "--rw",
            "read",
            "--bs",
            "4k",
            "--qd",
            "1",
        ])
        .args(["--bytes", "4m", "--on-error", "continue", "--warmup", "0"])
        .args(["--json", "-", "--quiet"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "failed I/Os exit 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    // The three bad blocks the file system failed, counted in the point and said by its label.
    assert!(
        warnings.iter().any(|w| w.contains(": 3 I/O errors")),
        "{warnings:?}"
    );
}

/// A run and a sweep point with failed I/Os say so on every output (stderr, the JSON's
/// warnings, `--html` and `report` of the JSON) and exit 1.
#[test]
fn failed_ios_are_warned_on_every_output() {
    let bad = [65536u64, 1056768, 3 << 20];
    let Some(fs) = mount(bad.iter().map(|&o| o..o + 1).collect()) else {
        return;
    };
    let disk = &fs.disk();
    let dir = tempfile::tempdir().unwrap();
    let every_block = [
        "--bs", "4k", "--rw", "read", "--bytes", "4m", "--warmup", "0",
    ];
    let continued = ["--on-error", "continue"];
    for command in [&["run", disk][..], &["sweep", disk, "--qd", "1"]] {
        let args = [command, &every_block, &continued].concat();
        let (code, warnings) = crate::warnings::said_everywhere(dir.path(), &args);
        assert_eq!(code, Some(1), "{args:?}: failed I/Os exit 1");
        // The blocks the file system failed, counted.
        let n = bad.len();
        let counted = |w: &String| {
            w.contains(&format!("{n} I/Os failed")) || w.contains(&format!("{n} I/O errors"))
        };
        assert!(warnings.iter().any(counted), "{args:?}: {warnings:?}");
    }
}
