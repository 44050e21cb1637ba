//! fio's data patterns: `buffer_pattern` and `verify_pattern` write the bytes fio 3.33 writes
//! (the same job by both tools on two loop devices, read back with plain reads, and each
//! byte checked against the pattern as this test spells it), and pattern verification finds a
//! block the test damaged itself, as fio finds it.

use super::fio_available;
use crate::common::*;
use serde_json::Value;
use std::os::unix::fs::FileExt;
use std::process::Command;

/// The first `len` bytes of `dev`, read through the page cache after dropping it.
fn bytes_of(dev: &LoopDev, len: usize) -> Vec<u8> {
    let _ = Command::new("blockdev")
        .args(["--flushbufs", dev.path()])
        .status();
    let f = std::fs::File::open(dev.path()).unwrap();
    let mut buf = vec![0u8; len];
    f.read_exact_at(&mut buf, 0).unwrap();
    buf
}

/// Runs fio with `job` (options without `--`) on `dev`; it must succeed. A verifying job's
/// state file (`local-fio-0-verify.state`, fio's `verify_state_save`) is not written: it would
/// land in the tests' working directory, the checkout.
fn fio(dev: &LoopDev, job: &[&str]) -> String {
    let mut c = Command::new("fio");
    c.args([
        "--name=fio",
        &format!("--filename={}", dev.path()),
        "--verify_state_save=0",
    ]);
    c.args(job.iter().map(|o| format!("--{o}")));
    let out = c.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fio {job:?}: {text}");
    text
}

/// Runs `halfpower fio` with `job` on `dev`: its exit status and the job's JSON.
fn halfpower_fio(dev: &LoopDev, job: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec![
        "fio".to_string(),
        "--name=hp".into(),
        format!("--filename={}", dev.path()),
        "--output-format=json".into(),
        "--allow-write".into(),
        "--quiet".into(),
    ];
    args.extend(job.iter().map(|o| format!("--{o}")));
    let out = halfpower().args(&args).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (out.status.code(), v["jobs"][0].clone())
}

/// Each pattern as this test spells its bytes, written by both tools over 256 KiB of 4k
/// writes: the two devices hold the same bytes, and they are the pattern from each write's
/// start (fio restarts it at every buffer: "abc" over 4096 bytes ends mid-copy).
#[test]
fn buffer_pattern_writes_the_bytes_fio_writes() {
    if !fio_available() {
        return;
    }
    let (Some(a), Some(b)) = (
        LoopDev::new("pat-hp", 1 << 20),
        LoopDev::new("pat-fio", 1 << 20),
    ) else {
        return;
    };
    let long = format!("0x{}", "5a".repeat(300) + &"c3".repeat(212));
    let cases: [(&str, Vec<u8>); 5] = [
        ("0xdeadbeef", vec![0xde, 0xad, 0xbe, 0xef]),
        ("\"abc\"", b"abc".to_vec()),
        ("-100xab\"1\"", vec![0xf6, 0xff, 0xff, 0xff, 0xab, b'1']),
        ("0xFF0X1", vec![0xff, 0x01]),
        (&long, [vec![0x5a; 300], vec![0xc3; 212]].concat()),
    ];
    let job = |p: &str| {
        [
            "rw=write",
            "bs=4k",
            "size=256k",
            "direct=1",
            "ioengine=psync",
            &format!("buffer_pattern={p}"),
        ]
        .map(String::from)
    };
    for (pattern, spelled) in &cases {
        let j = job(pattern);
        let j: Vec<&str> = j.iter().map(String::as_str).collect();
        let (code, hp) = halfpower_fio(&a, &j);
        assert_eq!(code, Some(0), "{pattern}: {hp}");
        assert!(
            hp["halfpower"]["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["kind"] == "buffer_pattern"),
            "{hp}"
        );
        fio(&b, &j);
        let (ours, theirs) = (bytes_of(&a, 256 << 10), bytes_of(&b, 256 << 10));
        for (i, x) in ours.iter().enumerate() {
            let want = spelled[(i % 4096) % spelled.len()];
            assert_eq!(*x, want, "{pattern}: byte {i}");
        }
        assert!(ours == theirs, "{pattern}: the devices differ");
    }
}

/// `verify=pattern` with `%o`: every 4k block holds the pattern with its own offset, in both
/// tools, and halfpower's read-back finds every block good.
#[test]
fn verify_pattern_puts_each_blocks_offset_where_fio_does() {
    if !fio_available() {
        return;
    }
    let (Some(a), Some(b)) = (
        LoopDev::new("vpat-hp", 1 << 20),
        LoopDev::new("vpat-fio", 1 << 20),
    ) else {
        return;
    };
    let job = [
        "rw=write",
        "bs=4k",
        "size=256k",
        "direct=1",
        "verify=pattern",
        "verify_pattern=0xaabb%o\"xy\"",
    ];
    let (code, hp) = halfpower_fio(&a, &job);
    assert_eq!(code, Some(0), "{hp}");
    let v = &hp["halfpower"]["verify"];
    assert_eq!(v["blocks_checked"], 64, "{v}");
    assert_eq!(v["targets"][0]["good"], 64, "{v}");
    assert_eq!(v["pattern"], "0xaabb%o0x7879", "{v}");
    fio(&b, &job);
    let (ours, theirs) = (bytes_of(&a, 256 << 10), bytes_of(&b, 256 << 10));
    for (k, block) in ours.chunks(4096).enumerate() {
        let mut copy = vec![0xaa, 0xbb];
        copy.extend(((k * 4096) as u64).to_le_bytes());
        copy.extend(b"xy");
        for (i, x) in block.iter().enumerate() {
            assert_eq!(*x, copy[i % copy.len()], "block {k}, byte {i}");
        }
    }
    assert!(ours == theirs, "the devices differ");
}

/// Written with a pattern, one block then damaged with dd: a job that reads the region back
/// with the pattern finds exactly that block (error 84, exit 1), and so does fio 3.33.
#[test]
fn pattern_verification_finds_the_block_damaged_after_writing() {
    if !fio_available() {
        return;
    }
    let Some(dev) = LoopDev::new("vpat-dd", 1 << 20) else {
        return;
    };
    let pattern = "verify_pattern=0x5aa5%o";
    let common = ["bs=4k", "size=512k", "direct=1", pattern];
    let (code, w) = halfpower_fio(&dev, &[&common[..], &["rw=randwrite"]].concat());
    assert_eq!(code, Some(0), "{w}");
    assert_eq!(w["halfpower"]["verify"]["faults"]["corrupt"], 0, "{w}");
    // Over the whole region first, so every block holds the pattern.
    let (code, _) = halfpower_fio(&dev, &[&common[..], &["rw=write"]].concat());
    assert_eq!(code, Some(0));
    let damaged = 77 * 4096;
    let ok = Command::new("dd")
        .args([
            "if=/dev/urandom",
            &format!("of={}", dev.path()),
            "bs=4k",
            "count=1",
            "seek=77",
            "oflag=direct",
            "conv=notrunc",
        ])
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "dd");
    let (code, r) = halfpower_fio(&dev, &[&common[..], &["rw=read"]].concat());
    assert_eq!(code, Some(1), "{r}");
    assert_eq!(r["error"], 84, "EILSEQ, as fio");
    let v = &r["halfpower"]["verify"];
    assert_eq!(v["blocks_checked"], 128, "{v}");
    let bad: Vec<(u64, &str)> = v["bad"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["offset"].as_u64().unwrap(), b["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(bad, [(damaged, "corrupt")], "{v}");
    // fio reads the same job back and stops at the same block.
    let out = Command::new("fio")
        .args(["--name=check", &format!("--filename={}", dev.path())])
        .args(["--rw=read", "--verify=pattern", "--verify_state_save=0"])
        .args(common.iter().map(|o| format!("--{o}")))
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("offset {damaged},")) && said.contains("err=84"),
        "{said}"
    );
}
