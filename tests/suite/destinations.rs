//! One destination, one output: two outputs of a command naming the same place (one file by any
//! name, or standard output, which holds the text unless `--json -` takes it) are refused
//! before anything runs, with exit 2 and one line naming the path and both flags; the null
//! device keeps nothing and takes any number.

use crate::common::halfpower;

#[test]
fn two_outputs_naming_one_place_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let points = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/sweep-points.csv");
    let run = [
        "run", "t.dat", "--size", "1m", "--time", "1s", "--warmup", "0",
    ];
    let sweep = [
        "sweep", "t.dat", "--size", "1m", "--rw", "read", "--bs", "4k",
    ];
    // (the command line, the value refused, the flag that took the place first, the second)
    let cases: Vec<(Vec<&str>, &str, &str, &str)> = vec![
        (
            [&run[..], &["--json", "o.json", "--html", "o.json"]].concat(),
            "o.json",
            "--json",
            "--html",
        ),
        (
            [&run[..], &["--json", "o.json", "--html", "./o.json"]].concat(),
            "./o.json",
            "--json",
            "--html",
        ),
        (
            [&run[..], &["--html", "l.csv", "--io-log", "l.csv"]].concat(),
            "l.csv",
            "--html",
            "--io-log",
        ),
        (
            [
                &run[..],
                &["--rw", "write", "--json", "s", "--verify-state", "s"],
            ]
            .concat(),
            "s",
            "--json",
            "--verify-state",
        ),
        (
            [&run[..], &["--json", "-", "--html", "/dev/stdout"]].concat(),
            "/dev/stdout",
            "--json",
            "--html",
        ),
        (
            [&sweep[..], &["--json", "s.json", "--csv", "s.json"]].concat(),
            "s.json",
            "--json",
            "--csv",
        ),
        (
            vec![
                "sweep", "--from", points, "--json", "s.json", "--csv", "s.json",
            ],
            "s.json",
            "--json",
            "--csv",
        ),
        (
            vec![
                "monitor", "--count", "1", "--log", "m.json", "--json", "m.json",
            ],
            "m.json",
            "--log",
            "--json",
        ),
        (
            vec!["path", "--json", "p.tar.gz", "--capture", "p.tar.gz"],
            "p.tar.gz",
            "--json",
            "--capture",
        ),
        (
            vec!["capture", "loop0", "--html", "c", "-o", "c"],
            "c",
            "--html",
            "--output",
        ),
        (
            vec!["quick", ".", "--size", "1m", "--json", "q", "--html", "q"],
            "q",
            "--json",
            "--html",
        ),
    ];
    for (args, value, first, second) in &cases {
        let out = halfpower()
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        let named = format!("'{value}'");
        assert!(
            err.contains(&named) && err.contains(first) && err.contains(second),
            "{args:?}: names {value}, {first} and {second}: {err}"
        );
        // Nothing was created: no output, no target, no scratch file.
        assert_eq!(
            crate::common::names_in(dir.path()),
            Vec::<String>::new(),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing measured");
    }
}

/// Standard output holds the text unless `--json -` takes it, so a file output naming it would
/// mix two documents there.
#[test]
fn standard_output_holds_one_document() {
    let out = halfpower()
        .args(["run", "x", "--engine", "null", "--time", "100ms"])
        .args(["--warmup", "0", "--html", "/dev/stdout"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("'/dev/stdout'") && err.contains("--html") && err.contains("the text"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing measured: {err}");
}

/// The null device keeps nothing: any number of outputs may go there, and outputs of their own
/// names are written each to its own.
#[test]
fn the_null_device_and_distinct_names_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let null = [
        "run", "x", "--engine", "null", "--time", "100ms", "--warmup", "0",
    ];
    halfpower()
        .args(null)
        .args(["--quiet", "--json", "/dev/null", "--html", "/dev/null"])
        .assert()
        .success();
    let (json, html) = (dir.path().join("r.json"), dir.path().join("r.html"));
    halfpower()
        .args(null)
        .args(["--quiet", "--json"])
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .success();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["kind"], "run");
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}
