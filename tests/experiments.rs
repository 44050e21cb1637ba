//! `halfpower experiment` (issue 13): each experiment runs on a scratch file in a temporary
//! directory, writes its rows, facts and verdict, and removes what it created. Their verdict
//! logic is unit-tested on synthetic rows in src/analysis/experiments_tests.rs.

mod common;

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
    assert!(!v["verdict"].as_str().unwrap().is_empty());
    assert!(
        !v["verdict"].as_str().unwrap().starts_with("nothing"),
        "{}",
        v["verdict"]
    );
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
    assert!(v["verdict"].as_str().unwrap().contains("CPU per MB"));
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
    assert_eq!(v["facts"][0]["name"], "cache size estimate");
}

#[test]
fn writecache_compares_write_through_and_write_back() {
    let dir = tempfile::tempdir().unwrap();
    let v = run("writecache", dir.path());
    assert_eq!(variants(&v), ["write-back", "write-through"]);
    assert!(
        v["verdict"]
            .as_str()
            .unwrap()
            .contains("write-through runs at")
    );
    // The device's own setting is reported beside the figures, when there is a device.
    if let Some(disk) = v["target"]["device"].as_str() {
        assert_eq!(
            v["facts"][0]["name"],
            format!("{disk} queue/write_cache"),
            "{}",
            v["facts"]
        );
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
    // One row per variant: aligned and three shifts; then the verdict after a blank line.
    let rows = lines.iter().filter(|l| l.contains(" read ")).count();
    assert_eq!(rows, 4, "{text}");
    assert!(text.contains("misalign"), "{text}");
}
