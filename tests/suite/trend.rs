//! `halfpower trend`: runs taken in time order, each step and the whole series compared figure
//! by figure; runs of another workload refused. On copies of a fixture the test edits itself
//! (dates and IOPS), so it knows each ratio; on devices of known speed in tests/alone/trend.rs.

use crate::common::{halfpower, stdout_json, usage_error};
use serde_json::Value;

const RUN: &str = "tests/fixtures/report/run-loop.json";

/// The fixture with its date and its IOPS (and their interval) set by the test, written to
/// `dir/name`.
fn copy(dir: &std::path::Path, name: &str, date: &str, iops_factor: f64) -> String {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    v["date"] = date.into();
    let iops = v["results"]["total"]["iops"].as_f64().unwrap();
    v["results"]["total"]["iops"] = (iops * iops_factor).into();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

fn figure<'a>(step: &'a Value, name: &str) -> &'a Value {
    (step["figures"].as_array().unwrap().iter())
        .find(|f| f["figure"] == name)
        .unwrap_or_else(|| panic!("no {name} in {step}"))
}

#[test]
fn runs_are_taken_in_time_order_and_each_step_is_its_ratio() {
    let dir = tempfile::tempdir().unwrap();
    // Given newest first: the trend takes them by date.
    let third = copy(dir.path(), "c.json", "2026-03-01T00:00:00Z", 2.0);
    let first = copy(dir.path(), "a.json", "2026-01-01T00:00:00Z", 1.0);
    let second = copy(dir.path(), "b.json", "2026-02-01T00:00:00Z", 2.0);
    let v = stdout_json(&["trend", &third, &first, &second, "--json", "-"]);
    assert_eq!(v["kind"], "trend");
    let paths: Vec<&str> = (v["runs"].as_array().unwrap().iter())
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [&first, &second, &third]);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(
        (steps[0]["from"].as_u64(), steps[0]["to"].as_u64()),
        (Some(0), Some(1))
    );
    // The IOPS the test set: ×2 from the first to the second, ×1 from the second to the third.
    let ratio = |s: &Value| figure(s, "total.iops")["ratio"].as_f64().unwrap();
    assert!((ratio(&steps[0]) - 2.0).abs() < 1e-9, "{}", steps[0]);
    assert!((ratio(&steps[1]) - 1.0).abs() < 1e-9, "{}", steps[1]);
    assert!(
        (ratio(&v["overall"]) - 2.0).abs() < 1e-9,
        "{}",
        v["overall"]
    );
    assert_eq!(figure(&steps[1], "total.iops")["significant"], false);
    // The figures themselves: the first run's IOPS as the fixture holds it, the last's twice it.
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    let iops = fixture["results"]["total"]["iops"].as_f64().unwrap();
    let overall = figure(&v["overall"], "total.iops");
    assert_eq!(overall["a"].as_f64(), Some(iops), "{overall}");
    assert!(
        (overall["b"].as_f64().unwrap() - 2.0 * iops).abs() < 1e-6 * iops,
        "{overall}"
    );
    assert!(
        v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["repetitions"] == 1)
    );
    // A figure the test left alone is the same in every run.
    assert!(
        (figure(&v["overall"], "total.bytes_per_s")["ratio"]
            .as_f64()
            .unwrap()
            - 1.0)
            .abs()
            < 1e-9
    );
    // The text: a row per figure, a column per step and the last against the first.
    let out = halfpower()
        .args(["trend", &first, &second, &third])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let row = (text.lines())
        .find(|l| l.starts_with("total.iops"))
        .unwrap_or_else(|| panic!("{text}"));
    // Each ratio, marked `?`: the fixture's single run has no interval for IOPS.
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cells[cells.len() - 3..],
        ["×2.000?", "×1.000?", "×2.000?"],
        "{text}"
    );
    assert!(text.contains("1 → 2") && text.contains("2 → 3"), "{text}");
}

#[test]
fn a_run_of_another_workload_or_a_single_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut other: Value = serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    other["workload"]["rw"] = "write".into();
    let b = dir.path().join("b.json");
    std::fs::write(&b, serde_json::to_string(&other).unwrap()).unwrap();
    let json = dir.path().join("t.json");
    let err = usage_error(&[
        "trend",
        RUN,
        b.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        err.contains(b.to_str().unwrap()) && err.contains("rw"),
        "{err}"
    );
    assert!(!json.exists(), "nothing written");
    let err = usage_error(&["trend", RUN]);
    assert!(err.contains("RUN.json"), "{err}");
    let err = usage_error(&["trend", RUN, "tests/fixtures/report/sweep.json"]);
    assert!(err.contains("trend reads run results"), "{err}");
}
