//! Block-device tests on loop devices over /dev/shm files (root only; always detached).

mod common;
use common::*;

#[test]
fn device_counters_move_by_exactly_the_measured_ios() {
    let Some(lo) = LoopDev::new("count", 64 << 20) else {
        return;
    };
    let v = run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "8",
        "--bytes",
        "16m",
        "--warmup",
        "300ms",
    ]);
    assert_eq!(num(&v, "results.total.ios"), 4096.0);
    let devs = v["results"]["devices"].as_array().unwrap();
    let d = devs
        .iter()
        .find(|d| d["name"] == lo.name().as_str())
        .expect("the loop device is reported");
    // Warm-up I/Os are drained before the window opens, so the kernel saw exactly ours.
    assert_eq!(num(d, "reads") + num(d, "read_merges"), 4096.0, "{d}");
    assert_eq!(num(d, "read_bytes"), (16u64 << 20) as f64);
    assert_eq!(num(d, "writes"), 0.0);
    assert_eq!(v["targets"][0]["kind"], "block-device");
    assert_eq!(v["targets"][0]["device"], lo.name().as_str());

    let v = run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randwrite",
        "--bs",
        "8k",
        "--qd",
        "4",
        "--bytes",
        "64m",
        "--allow-write",
        "--warmup",
        "0",
    ]);
    let d = &v["results"]["devices"][0];
    assert_eq!(num(d, "writes") + num(d, "write_merges"), 8192.0, "{d}");
    assert_eq!(num(d, "write_bytes"), (64u64 << 20) as f64);
    // The kernel counts busy time in jiffies (4 ms at HZ 250): the 8192 writes span tens of ms,
    // so some busy time must show (8 MiB, a few ms, could show none).
    assert!(
        num(d, "util_pct") > 0.0 && num(d, "util_pct") <= 100.0,
        "{d}"
    );
}

#[test]
fn writes_to_a_block_device_need_permission_and_respect_signatures() {
    let Some(lo) = LoopDev::new("safety", 8 << 20) else {
        return;
    };
    let err = usage_error(&["run", lo.path(), "--rw", "write", "--bytes", "1m"]);
    assert!(err.contains("--allow-write"), "{err}");

    // Put an ext4 superblock magic where ext4 keeps it.
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&lo.dev)
        .unwrap();
    f.write_all_at(&[0x53, 0xef], 1080).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let err = usage_error(&[
        "run",
        lo.path(),
        "--rw",
        "write",
        "--bytes",
        "1m",
        "--allow-write",
    ]);
    assert!(
        err.contains(lo.path()) && err.contains("ext2/3/4") && err.contains("--destroy-data"),
        "{err}"
    );
    // Reading is always allowed.
    run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randread",
        "--bytes",
        "1m",
        "--warmup",
        "0",
    ]);
    // And the user can insist.
    let v = run_json(&[
        "run",
        lo.path(),
        "--rw",
        "write",
        "--bytes",
        "1m",
        "--allow-write",
        "--destroy-data",
        "--warmup",
        "0",
    ]);
    assert_eq!(num(&v, "results.write.ios"), 256.0);
}

#[test]
fn a_mounted_device_is_refused() {
    let Some(lo) = LoopDev::new("mounted", 32 << 20) else {
        return;
    };
    if !common::have("mkfs.ext4", "-V") {
        common::unavailable("mkfs.ext4");
        return;
    }
    let ok = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&lo.dev)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let mnt = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .arg(&lo.dev)
        .arg(mnt.path())
        .status()
        .unwrap()
        .success();
    if !mounted {
        common::unavailable("permission to mount");
        return;
    }
    struct Unmount<'a>(&'a std::path::Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            retry_until_ok(std::process::Command::new("umount").arg(self.0));
        }
    }
    let _guard = Unmount(mnt.path());
    let err = usage_error(&[
        "run",
        lo.path(),
        "--rw",
        "randwrite",
        "--bytes",
        "1m",
        "--allow-write",
    ]);
    assert!(err.contains("is mounted on"), "{err}");
    // A file on that filesystem resolves to the loop device underneath.
    let f = mnt.path().join("f");
    let v = run_json(&[
        "run",
        f.to_str().unwrap(),
        "--size",
        "8m",
        "--rw",
        "randread",
        "--bytes",
        "4m",
        "--warmup",
        "0",
    ]);
    assert_eq!(v["targets"][0]["device"], lo.name().as_str());
    let d = &v["results"]["devices"][0];
    assert_eq!(num(d, "reads") + num(d, "read_merges"), 1024.0, "{d}");
}

/// The per-second %util and queue size (`results.device_timeseries`) add up to the window's
/// figures from the same device's before/after counters, and cover the measured seconds.
#[test]
fn per_second_device_figures_agree_with_the_window() {
    let Some(lo) = LoopDev::new("perSecond", 64 << 20) else {
        return;
    };
    let v = run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "8",
        "--time",
        "3s",
        "--warmup",
        "200ms",
    ]);
    let name = lo.name();
    let window = v["results"]["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name.as_str())
        .expect("the loop device is reported")
        .clone();
    let seconds: Vec<&serde_json::Value> = v["results"]["device_timeseries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["device"] == name.as_str())
        .collect();
    assert!((2..=4).contains(&seconds.len()), "{seconds:?}");
    for (i, s) in seconds.iter().enumerate() {
        assert_eq!(num(s, "t_s"), i as f64);
    }
    let mean = |k: &str| seconds.iter().map(|s| num(s, k)).sum::<f64>() / seconds.len() as f64;
    for k in ["util_pct", "aqu_sz"] {
        let (per_second, whole) = (mean(k), num(&window, k));
        assert!(whole > 0.0, "{k}: {window}");
        assert!(
            (per_second / whole - 1.0).abs() < 0.25,
            "{k}: per-second mean {per_second:.2} vs window {whole:.2}"
        );
    }
}

/// The device counters' window closes when the last worker drains, not when the watch thread
/// next wakes (it slept up to 250 ms, which diluted every device rate and %util of a short run
/// by that much): the window is within 50 ms of the I/O window, here on a 1-s run.
#[test]
fn the_device_window_is_the_io_window() {
    let Some(lo) = LoopDev::new("window", 64 << 20) else {
        return;
    };
    for _ in 0..3 {
        let v = run_json(&[
            "run",
            lo.path(),
            "--rw",
            "randread",
            "--qd",
            "4",
            "--time",
            "1s",
            "--warmup",
            "0",
        ]);
        let io = num(&v, "results.seconds");
        let dev = num(&v["results"]["devices"][0], "seconds");
        assert!(
            dev >= io - 0.01 && dev - io < 0.05,
            "device window {dev} s, I/O window {io} s"
        );
    }
}
