//! `halfpower compare`: two runs of different workloads are compared with a warning that names
//! each setting that differs; two runs of one workload without one.

use crate::common::halfpower;

const RUN: &str = "tests/fixtures/report/run-loop.json";

/// The pair: a randread 4k QD8 run (the fixture) against the same document made a 1m
/// write at QD1 (the edit is the test's own, so it knows each difference).
#[test]
fn runs_of_different_workloads_are_compared_with_a_warning_naming_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    let mut other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(RUN).unwrap()).unwrap();
    assert_eq!(
        (
            other["workload"]["rw"].as_str(),
            other["workload"]["bs"].as_u64()
        ),
        (Some("randread"), Some(4096))
    );
    other["workload"]["rw"] = "write".into();
    other["workload"]["bs"] = (1u64 << 20).into();
    other["workload"]["qd"] = 1.into();
    let b = dir.path().join("b.json");
    std::fs::write(&b, serde_json::to_string(&other).unwrap()).unwrap();
    let json = dir.path().join("c.json");
    let out = halfpower()
        .args(["compare", RUN, b.to_str().unwrap(), "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let said = "A and B ran different workloads (rw randread in A, write in B; bs 4k in A, 1m \
                in B; qd 8 in A, 1 in B)";
    assert!(
        err.contains(&format!("halfpower: warning: {said}")),
        "{err}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let kept = doc["warnings"].as_array().unwrap();
    assert!(
        kept.len() == 1 && kept[0].as_str().unwrap().starts_with(said),
        "{kept:?}"
    );
    // The report says it too, in the same words.
    let page = crate::common::report_page(&json);
    assert!(page.contains("A and B ran different workloads (rw randread in A"));
    // The same workload: no warning.
    let same = halfpower().args(["compare", RUN, RUN]).output().unwrap();
    assert!(same.status.success());
    assert!(
        !String::from_utf8_lossy(&same.stderr).contains("warning"),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
}
