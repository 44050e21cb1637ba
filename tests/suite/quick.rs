//! `halfpower quick`'s region: refused when smaller than the suite's largest request (its 1 MiB
//! sequential tests), as `run` refuses a `--size` smaller than `--bs`; at that size every test
//! runs without a failed I/O.

use crate::common::{halfpower, stdout_json};

/// The suite's largest request, as quick names its tests (SEQ1M).
const LARGEST: u64 = 1 << 20;

#[test]
fn a_region_smaller_than_the_largest_request_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let half = format!("{}k", LARGEST / 2 / 1024);
    let out = halfpower()
        .args(["quick", d, "--size", &half, "--time", "100ms"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let smallest = format!("{}m", LARGEST >> 20);
    assert!(
        err.contains(&format!("'{half}'")) && err.contains(&smallest),
        "names the value and the smallest accepted: {err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty(), "nothing measured");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no file");
}

#[test]
fn at_the_smallest_region_no_io_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let size = LARGEST.to_string();
    let q = stdout_json(&[
        "quick", d, "--size", &size, "--time", "100ms", "--warmup", "0", "--quiet", "--json", "-",
    ]);
    let tests = q["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 8);
    for t in tests {
        assert_eq!(t["results"]["errors"]["count"], 0, "{}", t["name"]);
        assert!(t["results"]["total"]["ios"].as_u64().unwrap() > 0, "{t}");
    }
}
