//! `halfpower experiment` (issue 13): each experiment runs on a scratch file in a temporary
//! directory, writes its rows, facts and finding, and removes what it created. Their findings
//! are unit-tested on synthetic rows in src/analysis/experiments_tests.rs, their words in
//! src/render/text/experiment.rs.

use crate::common;

use common::{num, run_json, usage_error};

fn run(name: &str, dir: &std::path::Path) -> serde_json::Value {
    let v = run_json(&[
        "experiment",
        name,
        dir.to_str().unwrap(),
        "--size",
        "16m",
        "--time",
        "200ms",
        "--warmup",
        "0",
    ]);
    assert_eq!(v["kind"], "experiment");
    assert_eq!(v["experiment"], name);
    // A finding of this experiment's own, not "nothing to compare".
    assert_eq!(v["finding"]["kind"], name, "{}", v["finding"]);
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(left.is_empty(), "{name} left files behind: {left:?}");
    for r in v["rows"].as_array().unwrap() {
        assert!(num(r, "bytes_per_s") > 0.0, "{r}");
        assert!(r["results"]["total"]["ios"].as_u64().unwrap() > 0);
    }
    v
}

fn variants(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variant"].as_str().unwrap().to_string())
        .collect();
    out.dedup();
    out.sort();
    out.dedup();
    out
}

#[test]
fn buffering_compares_direct_and_buffered_by_size() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("buffering", dir.path());
    assert_eq!(variants(&v), ["buffered", "direct"]);
    assert_eq!(
        v["rows"].as_array().unwrap().len(),
        2 * 2 * 5,
        "2 directions × 2 × 5 sizes"
    );
    // Buffered against direct CPU per MB (and MB/s), per direction.
    let ratios = v["finding"]["ratios"].as_array().unwrap();
    assert!(!ratios.is_empty(), "{}", v["finding"]);
    for r in ratios {
        assert!(num(r, "cpu") > 0.0 && num(r, "speed") > 0.0, "{r}");
    }
    // One pass each: every point moved the whole 16 MiB file.
    for r in v["rows"].as_array().unwrap() {
        assert_eq!(r["results"]["total"]["bytes"], 16 << 20, "{}", r["variant"]);
    }
}

#[test]
fn allocation_writes_a_written_an_extended_and_a_sparse_file() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("allocation", dir.path());
    assert_eq!(variants(&v), ["extending", "preallocated", "sparse"]);
    for r in v["rows"].as_array().unwrap() {
        // Exactly one pass: the extended file grew to the full size.
        assert_eq!(r["results"]["total"]["bytes"], 16 << 20);
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    let err = usage_error(&["experiment", "allocation", file.path().to_str().unwrap()]);
    assert!(err.contains("a directory"), "{err}");
}

#[test]
fn alignment_shifts_the_same_random_reads() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("alignment", dir.path());
    let shifts: Vec<u64> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["shift_bytes"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(shifts, [0, 512, 4096, 32768]);
}

#[test]
fn cache_measures_hits_prefetch_random_and_regions() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("cache", dir.path());
    assert_eq!(variants(&v), ["cache-hit", "prefetch", "random", "region"]);
    let regions: Vec<u64> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["variant"] == "region")
        .map(|r| r["region_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(regions, [256 << 10, 1 << 20, 4 << 20, 16 << 20]);
    assert_eq!(v["facts"][0]["kind"], "cache-size", "{}", v["facts"]);
}

#[test]
fn writecache_compares_write_through_and_write_back() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("writecache", dir.path());
    assert_eq!(variants(&v), ["write-back", "write-through"]);
    // Write-through's share of write-back, per depth.
    let shares = v["finding"]["shares"].as_array().unwrap();
    assert!(!shares.is_empty(), "{}", v["finding"]);
    // The device's own setting is reported beside the figures, when there is a device.
    if let Some(disk) = v["target"]["device"].as_str() {
        assert_eq!(v["facts"][0]["kind"], "write-cache", "{}", v["facts"]);
        assert_eq!(v["facts"][0]["disk"], disk, "{}", v["facts"]);
    }
    assert_eq!(
        v["rows"].as_array().unwrap().len(),
        2 * 3 * 2,
        "2 depths × 3 sizes × 2"
    );
}

#[test]
fn the_text_output_is_the_table_and_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::halfpower()
        .args([
            "experiment",
            "alignment",
            dir.path().to_str().unwrap(),
            "--size",
            "16m",
            "--time",
            "200ms",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Experiment alignment on "), "{text}");
    assert!(
        lines[1].starts_with("variant") && lines[1].contains("MB/s"),
        "{text}"
    );
    // One row per variant: aligned and three shifts; then the verdict after a blank line, and
    // one line on the host. Other writers on the disk meanwhile (the root disk here) get a line
    // of their own per point, not a row.
    let rows = lines
        .iter()
        .filter(|l| {
            l.contains(" read ") && !l.starts_with("host:") && !l.contains("not this point's")
        })
        .count();
    assert_eq!(rows, 4, "{text}");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("host:")).count(),
        1,
        "{text}"
    );
    assert!(text.contains("misalign"), "{text}");
}

/// Sectors read and written since boot by kernel device `name`, from /proc/diskstats, in bytes.
fn diskstats_bytes(name: &str) -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let f: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 9 && f[2] == name)
        .unwrap_or_else(|| panic!("{name} is not in /proc/diskstats"))[3..10]
        .iter()
        .map(|x| x.parse().unwrap())
        .collect();
    (f[2] * 512, f[6] * 512)
}

/// `buffering` on ext4 on a loop device: every point starts clean (synced and dropped), so a
/// direct point's window sees exactly its own bytes reach the device (the job's arithmetic:
/// one pass over the 16-MiB file), within 2 % for the file system's own metadata. Before the
/// fix the cache was dropped only before buffered points and each direct write from 16k up
/// also flushed the previous buffered point's dirty pages: 2.00× its bytes. A buffered read
/// from a dropped cache reads the whole file from the device; a buffered write leaves its
/// bytes in the page cache (0 in its window). Over the whole experiment /proc/diskstats, read
/// by the test, counts every byte: 10 passes read, 10 written and the scratch file's fill.
#[test]
fn buffering_charges_each_point_only_its_own_device_bytes() {
    let Some(lo) = common::LoopDev::new("buffering", 64 << 20) else {
        return;
    };
    if !common::have("mkfs.ext4", "-V") {
        common::unavailable("mkfs.ext4");
        return;
    }
    // No lazy inode-table or journal initialisation: nothing writes behind the test's back.
    let ok = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
        .arg(&lo.dev)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfs.ext4 failed");
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
            common::retry_until_ok(std::process::Command::new("umount").arg(self.0));
        }
    }
    let _guard = Unmount(mnt.path());
    let dir = mnt.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let name = lo.name();
    let before = diskstats_bytes(&name);
    let v = run_json(&[
        "experiment",
        "buffering",
        dir.to_str().unwrap(),
        "--size",
        "16m",
    ]);
    let after = diskstats_bytes(&name);
    assert_eq!(v["target"]["device"], name.as_str());
    const OWN: f64 = (16 << 20) as f64;
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    let (mut read, mut written) = (0.0, 0.0);
    for r in rows {
        assert_eq!(num(r, "results.total.bytes"), OWN);
        let d = r["results"]["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no counters of {name}: {r}"));
        let (dr, dw) = (num(d, "read_bytes"), num(d, "write_bytes"));
        let what = format!(
            "{} {} {}: device read {dr}, wrote {dw}",
            r["variant"], r["rw"], r["bs_bytes"]
        );
        match (r["variant"].as_str().unwrap(), r["rw"].as_str().unwrap()) {
            ("direct", "read") | ("buffered", "read") => {
                assert!((dr / OWN - 1.0).abs() <= 0.02, "{what}");
                assert!(dw <= 0.02 * OWN, "{what}");
            }
            ("direct", "write") => {
                assert!((dw / OWN - 1.0).abs() <= 0.02, "{what}");
                assert!(dr <= 0.02 * OWN, "{what}");
            }
            ("buffered", "write") => assert!(dw <= 0.02 * OWN, "{what}"),
            other => panic!("unexpected row {other:?}"),
        }
        read += dr;
        written += dw;
    }
    // The rows carry those counters.
    for r in rows {
        let d = r["results"]["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name.as_str())
            .unwrap();
        let (dr, dw) = (num(d, "read_bytes"), num(d, "write_bytes"));
        assert_eq!(num(r, "device_read_bytes"), dr);
        assert_eq!(num(r, "device_write_bytes"), dw);
        // The share is the point's own direction's (issue 37, item 4).
        let mine = if r["rw"] == "read" { dr } else { dw };
        assert!((num(r, "device_share") - mine / OWN).abs() < 1e-9);
    }
    // The kernel's own count over the whole experiment: the rows' windows hold what the
    // device read; the writes add the scratch file's fill and the first four buffered passes,
    // each written back before the next point, 16 MiB each, plus metadata (journal, inodes).
    // The last buffered pass may die in the page cache with the scratch file.
    let total_read = (after.0 - before.0) as f64;
    let total_written = (after.1 - before.1) as f64;
    assert!(
        total_read >= read && total_read <= 10.0 * OWN * 1.02,
        "read {total_read}, rows {read}"
    );
    assert!(
        total_written >= written + 5.0 * OWN && total_written <= 11.0 * OWN * 1.02,
        "wrote {total_written}, rows {written}"
    );
}
