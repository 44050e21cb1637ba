//! Every warning a command says is on each of its outputs: stderr (`halfpower: warning: …`),
//! the JSON's `warnings` and the HTML page, both `--html` and `report` of the JSON. A warning
//! says a figure is not the device's (reads that came back zeroed, reads a cache served, failed
//! I/Os); a page without it would show those figures as the device's.

use crate::common::halfpower;
use halfpower::render::html::esc;
use std::path::Path;

/// Every warning of document `doc` (its `warnings`, and a diagnosis's `inputs[].warnings`).
fn warnings_of(doc: &serde_json::Value) -> Vec<String> {
    let own = doc["warnings"].as_array().into_iter().flatten();
    let inputs = doc["inputs"].as_array().into_iter().flatten();
    let logs = inputs.flat_map(|i| i["warnings"].as_array().into_iter().flatten());
    own.chain(logs)
        .map(|w| w.as_str().expect("a warning is a sentence").to_string())
        .collect()
}

/// Asserts that `page` shows every warning of `doc` as a warning.
pub fn on_the_page(doc: &serde_json::Value, page: &str) {
    for w in warnings_of(doc) {
        assert!(
            page.contains(&format!("warning: {}</p>", esc(&w))),
            "the page leaves out the warning {w:?}"
        );
    }
}

/// Runs halfpower with `args` plus `--json` and `--html` files in `dir`, then `report` of the
/// JSON: asserts that every warning of the JSON was said on stderr and is on both pages, and
/// returns the exit status and the warnings.
pub fn said_everywhere(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let (json, html, page) = (
        dir.join("w.json"),
        dir.join("w.html"),
        dir.join("report.html"),
    );
    let out = halfpower()
        .args(args)
        .args(["--quiet", "--force", "--json"])
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {stderr}"));
    halfpower()
        .arg("report")
        .arg(&json)
        .args(["--force", "-o"])
        .arg(&page)
        .assert()
        .success();
    let warnings = warnings_of(&doc);
    for w in &warnings {
        assert!(
            stderr.contains(&format!("halfpower: warning: {w}\n")),
            "stderr did not say {w:?}: {stderr}"
        );
    }
    on_the_page(&doc, &std::fs::read_to_string(&html).unwrap());
    on_the_page(&doc, &std::fs::read_to_string(&page).unwrap());
    (out.status.code(), warnings)
}

/// A sparse file the test made: every read comes back zero (holes), and none reaches the disk.
#[test]
fn zeroed_reads_are_warned_on_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let holes = dir.path().join("holes");
    std::fs::File::create(&holes)
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    let holes = holes.to_str().unwrap();
    let (code, warnings) = said_everywhere(
        dir.path(),
        &["run", holes, "--time", "500ms", "--warmup", "0"],
    );
    assert_eq!(code, Some(0));
    assert!(
        warnings.iter().any(|w| w.contains("came back zero")),
        "the zeroed reads are warned about: {warnings:?}"
    );
}

/// A small file the test wrote, read buffered over and over: the page cache serves it. On
/// tmpfs, where no disk's counters could say otherwise (beside a shared disk, another process's
/// reads would blur the comparison), the warning does not depend on other processes.
#[test]
fn reads_a_cache_served_are_warned_on_every_output() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let small = dir.path().join("small");
    let data: Vec<u8> = (0..4u32 << 20).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&small, data).unwrap();
    let small = small.to_str().unwrap();
    let args = [
        "run",
        small,
        "--buffered",
        "--time",
        "500ms",
        "--warmup",
        "0",
    ];
    let (code, warnings) = said_everywhere(dir.path(), &args);
    assert_eq!(code, Some(0));
    assert!(
        warnings.iter().any(|w| w.contains("page cache")),
        "the cache's reads are warned about: {warnings:?}"
    );
}

/// Every stored document of every kind `report` draws: its warnings are on its page.
#[test]
fn report_shows_every_warning_of_every_fixture() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report");
    let dir = tempfile::tempdir().unwrap();
    let mut warned = 0;
    for f in std::fs::read_dir(&fixtures).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let page = dir.path().join("page.html");
        halfpower()
            .arg("report")
            .arg(&f)
            .args(["--force", "-o"])
            .arg(&page)
            .assert()
            .success();
        on_the_page(&doc, &std::fs::read_to_string(&page).unwrap());
        warned += warnings_of(&doc).len();
    }
    assert!(warned > 0, "some fixture has warnings to show");
}
