//! Data verification on a loop device: a device written twice under one state verifies clean;
//! then one block has bytes flipped, one is overwritten by another block, one gets its first
//! generation back, and one is torn (first half generation 2, second half generation 1), and
//! `halfpower verify` names exactly those four, each with its kind, after checking every block.

use crate::common;

use common::{LoopDev, halfpower, num, stdout_json};
use std::os::unix::fs::FileExt;

const BLOCK: u64 = 4096;
const SIZE: usize = 8 << 20;

fn read_block(f: &std::fs::File, i: u64) -> Vec<u8> {
    let mut b = vec![0u8; BLOCK as usize];
    f.read_exact_at(&mut b, i * BLOCK).unwrap();
    b
}

fn write_all(dev: &str, state: &str) {
    // Every block once, sequentially, no warm-up: each run adds one generation to each block.
    halfpower()
        .args([
            "run", dev, "--rw", "write", "--bs", "4k", "--qd", "8", "--warmup", "0",
        ])
        .args([
            "--bytes",
            "8m",
            "--allow-write",
            "--quiet",
            "--verify-state",
            state,
        ])
        .assert()
        .success();
}

#[test]
fn verify_names_each_damaged_block_and_its_kind() {
    let Some(dev) = LoopDev::new("verify", SIZE) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let state = state.to_str().unwrap();
    write_all(dev.path(), state);
    let img = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dev.backing())
        .unwrap();
    // Generation 1 of blocks 300 and 400, kept to put back later.
    let (old300, old400) = (read_block(&img, 300), read_block(&img, 400));
    write_all(dev.path(), state);

    // Untouched: every block checked, all good, exit 0.
    let v = stdout_json(&["verify", "--verify-state", state, "--json", "-"]);
    assert_eq!(v["kind"], "verify");
    let blocks = SIZE as u64 / BLOCK;
    assert_eq!(num(&v, "blocks_checked") as u64, blocks);
    assert_eq!(v["bad"].as_array().unwrap().len(), 0, "{v}");

    // The damage, through the file under the device.
    let mut b = read_block(&img, 100);
    b[1000] ^= 0xff;
    b[3000] ^= 0x01;
    img.write_all_at(&b, 100 * BLOCK).unwrap();
    img.write_all_at(&read_block(&img, 7), 200 * BLOCK).unwrap();
    img.write_all_at(&old300, 300 * BLOCK).unwrap();
    let mut torn = read_block(&img, 400);
    torn[2048..].copy_from_slice(&old400[2048..]);
    img.write_all_at(&torn, 400 * BLOCK).unwrap();
    img.sync_all().unwrap();

    let out = halfpower()
        .args(["verify", "--verify-state", state, "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "bad blocks exit 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        num(&v, "blocks_checked") as u64,
        blocks,
        "every block checked"
    );
    let bad: Vec<(u64, &str)> = v["bad"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["offset"].as_u64().unwrap(), b["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        bad,
        [
            (100 * BLOCK, "corrupt"),
            (200 * BLOCK, "misdirected"),
            (300 * BLOCK, "stale"),
            (400 * BLOCK, "torn"),
        ],
        "{v}"
    );
    let by_offset = |o: u64| {
        v["bad"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["offset"] == o)
            .unwrap()
            .clone()
    };
    let mis = by_offset(200 * BLOCK);
    assert_eq!(
        mis["found"]["offset"],
        7 * BLOCK,
        "the block that landed there"
    );
    let stale = by_offset(300 * BLOCK);
    assert_eq!(stale["expected"]["generation"], 2);
    assert_eq!(stale["found"]["generation"], 1);
    let torn = by_offset(400 * BLOCK);
    assert_eq!(torn["sector_generations"], serde_json::json!([2, 1]));
    for k in ["corrupt", "misdirected", "stale", "torn"] {
        assert_eq!(v["faults"][k], 1, "{k}");
    }
    assert_eq!(v["faults"]["unwritten"], 0);

    // Without the state, a whole-device read still finds what needs no record.
    let out = halfpower()
        .args(["verify", dev.path(), "--bs", "4k", "--json", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(num(&v, "blocks_checked") as u64, blocks);
    for (k, n) in [
        ("corrupt", 1),
        ("misdirected", 1),
        ("torn", 1),
        ("stale", 0),
    ] {
        assert_eq!(v["faults"][k], n, "{k} without a record: {v}");
    }
}

#[test]
fn a_verified_random_run_checks_what_it_wrote_and_reports_it() {
    let Some(dev) = LoopDev::new("verify-run", 4 << 20) else {
        return;
    };
    let v = common::run_json(&[
        "run",
        dev.path(),
        "--rw",
        "randrw",
        "--bs",
        "4k/50:16k/50",
        "--qd",
        "16",
        "--threads",
        "2",
        "--time",
        "1s",
        "--warmup",
        "0",
        "--allow-write",
        "--verify",
    ]);
    let checked = num(&v, "results.verify.blocks_checked") as u64;
    // Blocks written at least once: no more than the device holds, and at least one.
    assert!(checked > 0 && checked <= 1024, "{checked}");
    assert_eq!(v["results"]["verify"]["bad"].as_array().unwrap().len(), 0);
    assert_eq!(v["results"]["verify"]["read_errors"], 0);
    assert!(v["results"]["verify"]["state"].is_null());
}

#[test]
fn verify_refuses_what_it_cannot_check() {
    for (args, needle) in [
        (
            &["run", "x", "--engine", "null", "--rw", "write", "--verify"][..],
            "--engine",
        ),
        (&["run", "x", "--rw", "randread", "--verify"][..], "writes"),
        (
            &[
                "run",
                "x",
                "--rw",
                "write",
                "--bs",
                "4k/50:6k/50",
                "--verify",
            ][..],
            "multiple",
        ),
        (&["verify", "x"][..], "--verify-state"),
    ] {
        let e = common::usage_error(args);
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}

#[test]
fn reads_are_judged_while_the_run_goes_on() {
    let Some(dev) = LoopDev::new("verify-while", 1 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let state = state.to_str().unwrap();
    // Reads and writes racing over 256 blocks on two threads: a block is judged only when no
    // write of it was in flight or completed during the read, so none may come out bad.
    let v = common::run_json(&[
        "run",
        dev.path(),
        "--rw",
        "randrw",
        "--qd",
        "16",
        "--threads",
        "2",
        "--time",
        "2s",
        "--warmup",
        "0",
        "--allow-write",
        "--verify-while",
        "--verify-state",
        state,
    ]);
    let during = &v["results"]["verify"]["during_run"];
    assert!(num(during, "blocks_checked") > 1000.0, "{during}");
    assert_eq!(during["bad"].as_array().unwrap().len(), 0, "{during}");
    // A block damaged under the record is found by a plain sequential read of the device.
    let img = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dev.backing())
        .unwrap();
    let mut b = read_block(&img, 10);
    b[100] ^= 0x10;
    img.write_all_at(&b, 10 * BLOCK).unwrap();
    img.sync_all().unwrap();
    let out = halfpower()
        .args([
            "run",
            dev.path(),
            "--rw",
            "read",
            "--bytes",
            "1m",
            "--warmup",
            "0",
        ])
        .args([
            "--verify-while",
            "--verify-state",
            state,
            "--json",
            "-",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let during = &v["results"]["verify"]["during_run"];
    assert_eq!(
        during["blocks_checked"], 256,
        "every block read once and judged"
    );
    assert_eq!(during["faults"]["corrupt"], 1);
    assert_eq!(during["bad"][0]["offset"], 10 * BLOCK);
    assert_eq!(
        v["results"]["verify"]["faults"]["corrupt"], 1,
        "and at the end"
    );
}

/// `halfpower verify` with `args` plus `--json -`: exit status, document, stderr.
fn verify_json(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = halfpower()
        .arg("verify")
        .args(args)
        .args(["--json", "-"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    (out.status.code(), v, err)
}

/// Bytes no write of halfpower's could leave: a fixed pseudo-random stream.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn blocks_without_a_seal_are_not_judged_and_a_wrong_block_size_is_named() {
    let Some(dev) = LoopDev::new("verify-unsealed", SIZE) else {
        return;
    };
    let blocks = SIZE as u64 / BLOCK;
    // Every block written by a run without --verify (stamped sectors, no seal), then block 0
    // zeroed: nothing of a seal anywhere.
    halfpower()
        .args([
            "run",
            dev.path(),
            "--rw",
            "write",
            "--bs",
            "4k",
            "--bytes",
            "8m",
        ])
        .args(["--warmup", "0", "--allow-write", "--quiet"])
        .assert()
        .success();
    let img = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dev.backing())
        .unwrap();
    img.write_all_at(&[0u8; BLOCK as usize], 0).unwrap();
    img.sync_all().unwrap();
    let (code, v, _) = verify_json(&[dev.path(), "--bs", "4k"]);
    assert_eq!(code, Some(0), "nothing bad: {}", v["faults"]);
    assert_eq!(v["blocks_checked"], blocks);
    assert_eq!(v["unsealed"], blocks, "{}", v["faults"]);
    assert_eq!(v["bad"].as_array().unwrap().len(), 0);
    let text = common::stdout_text(&["verify", dev.path(), "--bs", "4k"]);
    assert!(
        text.contains(&format!(
            "{blocks} blocks carry no seal of halfpower's: nothing to judge"
        )),
        "{text}"
    );

    // 256 sealed blocks from 1 MiB.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let state = state.to_str().unwrap();
    halfpower()
        .args([
            "run",
            dev.path(),
            "--rw",
            "write",
            "--bs",
            "4k",
            "--offset",
            "1m",
        ])
        .args([
            "--size",
            "1m",
            "--bytes",
            "1m",
            "--warmup",
            "0",
            "--allow-write",
        ])
        .args(["--quiet", "--verify-state", state])
        .assert()
        .success();
    // Read at 8k and 2k: the seals' own length is named, nothing judged bad; a usage error.
    for (bs, read, sealed) in [("8k", 8192u64, 128u64), ("2k", 2048, 512)] {
        let (code, v, err) = verify_json(&[dev.path(), "--bs", bs]);
        assert_eq!(code, Some(2), "--bs {bs}: {}", v["faults"]);
        assert_eq!(
            v["other_block_sizes"],
            serde_json::json!([{"block_size": 4096, "blocks": sealed}]),
            "--bs {bs}"
        );
        assert_eq!(v["unsealed"], SIZE as u64 / read - sealed, "--bs {bs}");
        assert_eq!(v["faults"]["corrupt"], 0, "--bs {bs}: {}", v["faults"]);
        assert_eq!(v["bad"].as_array().unwrap().len(), 0, "--bs {bs}");
        assert!(
            err.contains("written with 4k blocks") && err.contains("use --bs 4k"),
            "{err}"
        );
    }

    // Random bytes over all of block 300, over the first half of block 400.
    img.write_all_at(&noise(4096, 300), 300 * BLOCK).unwrap();
    img.write_all_at(&noise(2048, 400), 400 * BLOCK).unwrap();
    img.sync_all().unwrap();
    let kinds = |v: &serde_json::Value| -> Vec<(u64, String)> {
        v["bad"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["offset"].as_u64().unwrap() / BLOCK,
                    b["kind"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    // Without the state: block 400 keeps marked sectors (damaged); block 300 keeps no trace
    // of its seal, so it is unsealed like the blocks never sealed.
    let (code, v, _) = verify_json(&[dev.path(), "--bs", "4k"]);
    assert_eq!(code, Some(1));
    assert_eq!(kinds(&v), [(400, "corrupt".to_string())], "{}", v["faults"]);
    assert_eq!(v["unsealed"], blocks - 256 + 1);
    assert_eq!(v["targets"][0]["good"], 254);
    // With it, both are where the record's blocks should be: corrupt, not unwritten.
    let (code, v, _) = verify_json(&["--verify-state", state]);
    assert_eq!(code, Some(1));
    assert_eq!(v["blocks_checked"], 256);
    assert_eq!(
        kinds(&v),
        [(300, "corrupt".to_string()), (400, "corrupt".to_string())],
        "{v}"
    );
    assert_eq!(v["faults"]["unwritten"], 0);

    // A state that is not there: a usage error, said once.
    let missing = dir.path().join("missing.state");
    let missing = missing.to_str().unwrap();
    let err = common::usage_error(&["verify", "--verify-state", missing]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    assert!(err.contains(missing), "{err}");
}

#[test]
fn a_state_for_a_file_halfpower_removes_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    for keep in [false, true] {
        let file = dir.path().join(format!("scratch-{keep}"));
        let out = halfpower()
            .arg("run")
            .arg(&file)
            .args([
                "--rw", "write", "--bs", "4k", "--size", "1m", "--bytes", "1m",
            ])
            .args(["--warmup", "0", "--json", "-", "--quiet", "--verify-state"])
            .arg(&state)
            .args(keep.then_some("--keep"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let notes = &v["results"]["verify"]["notes"];
        // The file is gone after the run exactly when the warning said it would be.
        assert_eq!(file.exists(), keep);
        let name = file.to_str().unwrap();
        assert_eq!(
            err.contains("cannot be verified later") && err.contains(name),
            !keep,
            "{err}"
        );
        if keep {
            assert!(notes.is_null(), "{notes}");
        } else {
            assert_eq!(notes[0]["kind"], "scratch_removed");
            assert_eq!(notes[0]["target"], name);
        }
        std::fs::remove_file(&state).unwrap();
    }
}

/// Flush requests the kernel has completed on block device `name` (field 16 of its stat).
fn flushes(name: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    stat.split_whitespace().nth(15).unwrap().parse().unwrap()
}

#[test]
fn a_verified_run_flushes_its_target_before_it_saves_its_state() {
    let Some(dev) = LoopDev::new("verify-flush", SIZE) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let before = flushes(&dev.name());
    // 1024 buffered writes, an fsync after every 256: the workload flushes 4 times.
    halfpower()
        .args([
            "run",
            dev.path(),
            "--rw",
            "write",
            "--bs",
            "4k",
            "--qd",
            "1",
        ])
        .args([
            "--bytes",
            "4m",
            "--warmup",
            "0",
            "--buffered",
            "--fsync",
            "256",
        ])
        .args(["--allow-write", "--quiet", "--verify-state"])
        .arg(&state)
        .assert()
        .success();
    // The kernel counted one flush more: halfpower's, before the state was saved.
    assert_eq!(flushes(&dev.name()) - before, 4 + 1);
    // So the state records no write as unflushed.
    let raw = std::fs::read(&state).unwrap();
    let nl = raw.iter().position(|&c| c == b'\n').unwrap();
    let head: serde_json::Value = serde_json::from_slice(&raw[..nl]).unwrap();
    assert_eq!(head["version"], 2);
    assert_eq!(head["targets"][0]["unflushed"], 0, "{head}");
}

/// Random 4k writes over a file of random bytes, read back at 8k without the state: every
/// block that holds a 4k seal is a seal of another size (exit 2, naming 4096), none is called
/// damaged; only this test wrote the file, and it damaged nothing (issue 37, item 1: "4 bad
/// (corrupt 4)" before).
#[test]
fn a_larger_block_size_than_the_seals_is_refused_not_called_damage() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let state = dir.path().join("s.state");
    std::fs::write(&f, noise(16 << 20, 37)).unwrap();
    halfpower()
        .args([
            "run",
            f.to_str().unwrap(),
            "--size",
            "16m",
            "--rw",
            "randwrite",
        ])
        .args([
            "--bs", "4k", "--qd", "8", "--bytes", "8m", "--warmup", "0", "--keep",
        ])
        .args([
            "--quiet",
            "--allow-write",
            "--verify-state",
            state.to_str().unwrap(),
        ])
        .assert()
        .success();
    let (code, v, err) = verify_json(&[f.to_str().unwrap(), "--bs", "8k"]);
    let ver = &v;
    assert_eq!(code, Some(2), "{err}");
    let faults = &ver["faults"];
    for k in ["corrupt", "misdirected", "torn", "stale", "unwritten"] {
        assert_eq!(faults[k], 0, "{k}: {ver}");
    }
    let sizes = ver["other_block_sizes"].as_array().unwrap();
    assert!(sizes.iter().any(|s| s["block_size"] == 4096), "{sizes:?}");
    // With the seals' own size everything written reads back good.
    let (code, v, err) = verify_json(&[f.to_str().unwrap(), "--bs", "4k"]);
    assert_eq!(code, Some(0), "{err}: {}", v["faults"]);
}
