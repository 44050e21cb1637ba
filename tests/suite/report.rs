//! `halfpower report` and `--html`: every kind renders from fixed fixtures (real outputs of
//! halfpower, see tests/fixtures/report/README.md) with the charts, series and axis titles it
//! must have, nothing undrawable, no script or network reference; the bytes are pinned by
//! snapshots; bad input is one line naming the file, exit 2.

use crate::common;

use common::halfpower;
use halfpower::input::document as input;
use halfpower::model::diagnosis::Verdict;
use halfpower::model::log::Log;
use halfpower::model::{Document, Input};
use halfpower::render::html::{esc, render};
use halfpower::render::words;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report")
        .join(name)
}

fn report_of(names: &[&str]) -> String {
    // Inputs are named by file name so the output does not depend on the checkout's location.
    let diagnose =
        |log: &Log| halfpower::analysis::diagnose::diagnose(std::slice::from_ref(log), None);
    let inputs: Vec<Input> = names
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(fixture(n)).unwrap();
            input::parse(n, &text, &diagnose).expect("fixtures parse")
        })
        .collect();
    render(&inputs)
}

/// Checks what every report must be: one self-contained page, nothing undrawable.
fn check_page(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    for bad in [
        "NaN", "inf\"", "d=\"\"", "<script", "http://", "https://", "url(", "@import", "src=",
    ] {
        assert!(!html.contains(bad), "report contains {bad:?}");
    }
    assert!(html.contains("Content-Security-Policy"));
    assert!(html.contains("prefers-color-scheme:dark"));
    assert!(html.contains("@media print"));
    assert_eq!(
        html.matches("<svg viewBox").count(),
        html.matches("</svg>").count() - html.matches("class=\"sw\"").count()
    );
    assert!(html.contains("<h2>Definitions</h2>"));
}

fn charts(html: &str) -> usize {
    html.matches("<figure class=\"chart\">").count()
}

fn series(html: &str) -> usize {
    html.matches("<g class=\"series\">").count()
}

#[test]
fn run_report_has_its_charts_and_one_series_per_file() {
    let one = report_of(&["run-loop.json"]);
    check_page(&one);
    // MB/s, IOPS, percentiles, histogram, IOPS/MB/s/p99 per second, %util, aqu-sz, CPU.
    assert_eq!(charts(&one), 10, "charts");
    for title in [
        "MB/s (10^6 bytes/s)",
        "I/Os per second",
        "percentile (nines",
        "latency (log scale)",
        "second of the measured window",
        "%util (busy time share)",
        "µs of CPU per I/O",
    ] {
        assert!(one.contains(title), "axis title {title}");
    }
    // One randread run: one line each in percentiles, histogram, 3 per-second, util, aqu-sz.
    assert_eq!(series(&one), 7);
    let two = report_of(&["run-loop.json", "run-file.json"]);
    check_page(&two);
    assert_eq!(charts(&two), 10);
    // The mixed run adds its write direction to percentiles and histogram, and a device each.
    assert_eq!(series(&two), 7 + 2 + 2 + 3 + 2);
    assert!(two.contains("/dev/loop0 randread 4k QD8 T1"));
    assert!(two.contains("randrw 16k QD4 T1"));
    assert!(!one.contains("no data to draw"));
}

#[test]
fn quick_report_has_the_eight_tiles() {
    let html = report_of(&["quick.json"]);
    check_page(&html);
    assert_eq!(html.matches("<div class=\"tile\">").count(), 8);
    for t in [
        "SEQ1M Q8T1 read",
        "SEQ1M Q1T1 write",
        "RND4K Q32T1 read",
        "RND4K Q1T1 write",
    ] {
        assert!(html.contains(t), "{t}");
    }
    assert_eq!(charts(&html), 10);
}

#[test]
fn sweep_report_draws_each_rw_mode_with_marks_and_the_half_power_line() {
    let html = report_of(&["sweep.json"]);
    check_page(&html);
    // Two rw modes × (by size, by depth, heatmap, p99 against MB/s).
    assert_eq!(charts(&html), 8);
    assert_eq!(html.matches("<h2>read — 1 thread(s)").count(), 1);
    assert_eq!(html.matches("<h2>randread — 1 thread(s)").count(), 1);
    // 3 depths + 4 sizes + 4 sizes per rw mode.
    assert_eq!(series(&html), 2 * (3 + 4 + 4));
    assert_eq!(html.matches("class=\"rule\"").count(), 4);
    assert!(html.contains(">H") && html.contains("K") && html.contains("half-power point at QD"));
    // Heatmaps: 4 sizes × 3 depths per rw mode.
    assert_eq!(html.matches("<g><rect").count(), 2 * 12);
    assert_eq!(html.matches("class=\"verdict\"").count(), 2);
    // Two sweeps share the axes: the dash pattern tells them apart.
    let two = report_of(&["sweep.json", "sweep.json"]);
    assert_eq!(series(&two), 2 * series(&html));
    assert!(two.contains(" d1\""));
    assert!(two.contains("(sweep.json)"));
}

#[test]
fn profile_report_has_table_4_and_a_fitted_line_per_column() {
    let html = report_of(&["profile.json"]);
    check_page(&html);
    assert!(html.contains("004 Table 4"));
    for col in [
        "read sequential",
        "read random",
        "read cache-hit",
        "write sequential",
        "write random",
        "write cache-hit",
    ] {
        assert!(html.contains(&format!("<th>{col}</th>")), "{col}");
    }
    assert_eq!(charts(&html), 6);
    // Measured points and the fitted line per column.
    assert_eq!(series(&html), 12);
    assert!(html.matches("R² = ").count() >= 6);
    // The fixture has off-line points (read random 64k among them): marked.
    assert!(html.contains(">off</text>"));
}

#[test]
fn monitor_and_diagnose_reports_split_response_time() {
    for f in ["monitor.jsonl", "monitor.csv"] {
        let html = report_of(&[f]);
        check_page(&html);
        assert!(html.contains("<h2>loop0</h2>"), "{f}");
        assert!(html.contains("response time = service time + queue time"));
        assert_eq!(html.matches("class=\"band s").count(), 2, "{f}");
        assert!(html.contains("<h2>System</h2>"));
        assert!(html.contains("class=\"verdict\""));
        // utilization, IOPS, split, paging, CPU, interrupts.
        assert_eq!(charts(&html), 6, "{f}");
    }
    let html = report_of(&["diagnose.json"]);
    check_page(&html);
    assert!(html.contains("response time = service time + queue time"));
    assert!(html.contains("need the monitor log itself"));
    assert_eq!(charts(&html), 3);
}

/// A diagnose document written before its findings were data (schema version 1 with the rule,
/// advice, evidence, class evidence and expectation in words: diagnose-v1.json) still reads:
/// the words are left out, the verdict and figures kept, and the report says the rule and the
/// advice from the verdict and shows no evidence.
#[test]
fn an_older_diagnose_document_still_reads() {
    let text = std::fs::read_to_string(fixture("diagnose-v1.json")).unwrap();
    let doc = input::parse("diagnose-v1.json", &text, &|_: &Log| unreachable!()).unwrap();
    let Document::Diagnose(d) = &doc.doc else {
        panic!("not a diagnosis: {doc:?}")
    };
    let dev = &d.devices[0];
    assert_eq!(dev.verdict, Verdict::Healthy);
    assert!(dev.evidence.is_empty() && dev.class_evidence.is_empty());
    assert!(dev.intervals.iter().all(|i| i.evidence.is_empty()));
    assert_eq!(dev.expected_request_kib, None);
    assert!(dev.expected_service_ms.is_some());
    let html = report_of(&["diagnose-v1.json"]);
    check_page(&html);
    let rule = esc(words::rule(Verdict::Healthy));
    assert!(
        html.contains(&format!("<b>loop0: healthy</b> — {rule}</div>")),
        "the rule from the verdict"
    );
    assert!(!html.contains(">evidence</th>"), "no evidence table");
}

#[test]
fn scale_report_draws_total_against_perfect_scaling_and_the_bars_per_step() {
    let html = report_of(&["scale.json"]);
    check_page(&html);
    assert_eq!(charts(&html), 2, "total line chart and per-target bars");
    assert!(html.contains("perfect scaling"));
    assert!(html.contains("3 targets together"));
    assert!(html.contains("the targets scale linearly up to 2"));
    assert!(
        html.contains("<td>loop0</td>"),
        "the shared bus in the table"
    );
}

#[test]
fn experiment_report_draws_its_variants_and_says_its_verdict() {
    let html = report_of(&["experiment.json"]);
    check_page(&html);
    assert_eq!(charts(&html), 1);
    assert!(html.contains("write-through") && html.contains("write-back"));
    assert!(html.contains("write-through runs at"), "the verdict");
    assert!(html.contains("queue/write_cache"), "the device's setting");
}

#[test]
fn snapshots_pin_the_bytes() {
    for (name, files) in [
        ("run", &["run-loop.json"][..]),
        ("quick", &["quick.json"]),
        ("sweep", &["sweep.json"]),
        ("profile", &["profile.json"]),
        ("monitor", &["monitor.jsonl"]),
        ("diagnose", &["diagnose.json"]),
        ("scale", &["scale.json"]),
        ("experiment", &["experiment.json"]),
    ] {
        let html = report_of(files);
        assert_eq!(html, report_of(files), "{name}: same input, same bytes");
        insta::assert_snapshot!(name, html);
    }
}

/// A fixture as JSON, edited back to how halfpower wrote it before findings (issue 24): the
/// verdict a sentence, facts a name and a value.
fn older(name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
    edit(&mut v);
    v.to_string()
}

/// Documents written before findings still read and report the same: sweep and scale words
/// come from their analysis (the old sentence is ignored); an experiment's finding is rebuilt
/// from its rows and its named facts read as facts; a quick suite gets the finding of its
/// tests.
#[test]
fn documents_with_verdicts_in_words_still_report_the_same() {
    let diagnose =
        |log: &Log| halfpower::analysis::diagnose::diagnose(std::slice::from_ref(log), None);
    for name in ["sweep.json", "scale.json"] {
        let text = older(name, |v| {
            let said = serde_json::json!("an older sentence");
            match v["analysis"].as_array_mut() {
                Some(groups) => groups.iter_mut().for_each(|a| a["verdict"] = said.clone()),
                None => v["analysis"]["verdict"] = said,
            }
        });
        let inputs = vec![input::parse(name, &text, &diagnose).expect("an older file parses")];
        assert_eq!(render(&inputs), report_of(&[name]), "{name}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("experiment.json");
    let report = |text: &str| {
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join("r.html");
        halfpower()
            .arg("report")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .arg("--force")
            .assert()
            .success();
        std::fs::read_to_string(&out).unwrap()
    };
    let old = older("experiment.json", |v| {
        let o = v.as_object_mut().unwrap();
        o.remove("finding");
        o.insert(
            "facts".into(),
            serde_json::json!([{"name": "vda queue/write_cache", "value": "write back"}]),
        );
        o.insert("verdict".into(), serde_json::json!("an older sentence"));
    });
    let now = std::fs::read_to_string(fixture("experiment.json")).unwrap();
    let html = report(&old);
    assert!(html.contains("write-through runs at 24 % (±13 %) at QD1 and 72 % (±19 %) at QD8"));
    assert!(html.contains("<td>vda queue/write_cache</td>"));
    assert_eq!(html, report(&now), "the same report as the current file's");
    let path = dir.path().join("quick.json");
    std::fs::copy(fixture("quick.json"), &path).unwrap();
    let out = dir.path().join("q.html");
    halfpower()
        .arg("report")
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains("<p class=\"verdict\">") && html.contains("Next: `halfpower sweep"),
        "the quick suite's verdict, from its tests"
    );
}

#[test]
fn report_command_writes_next_to_the_first_input_and_never_overwrites_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sweep.json");
    std::fs::copy(fixture("sweep.json"), &src).unwrap();
    halfpower().arg("report").arg(&src).assert().success();
    let out = dir.path().join("halfpower-report.html");
    let first = std::fs::read_to_string(&out).unwrap();
    assert!(first.contains("halfpower sweep report"));
    let refused = halfpower().arg("report").arg(&src).assert().code(2);
    let err = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        err.contains("halfpower-report.html") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    halfpower()
        .arg("report")
        .arg(&src)
        .arg("--force")
        .assert()
        .success();
    let other = dir.path().join("two.html");
    halfpower()
        .arg("report")
        .arg(&src)
        .arg(fixture("sweep.json"))
        .arg("-o")
        .arg(&other)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&other).unwrap().contains(" d1\""));
}

#[test]
fn bad_input_is_one_line_naming_the_file_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let mut empty_sweep: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("sweep.json")).unwrap()).unwrap();
    empty_sweep["points"] = serde_json::json!([]);
    let mut newer: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("profile.json")).unwrap()).unwrap();
    newer["schema_version"] = serde_json::json!(2);
    let cases = [
        (
            write("unknown.json", r#"{"kind":"benchmark","schema_version":1}"#),
            "unknown kind 'benchmark'",
        ),
        (
            write("newer.json", &newer.to_string()),
            "schema_version 2 is newer",
        ),
        (
            write("empty-sweep.json", &empty_sweep.to_string()),
            "the sweep has no points",
        ),
        (write("garbage.txt", "hello\nworld\n"), "not a monitor log"),
        (write("empty.json", ""), "the file is empty"),
        (dir.path().join("missing.json"), "cannot read it"),
    ];
    for (path, why) in &cases {
        let out = halfpower()
            .arg("report")
            .arg(path)
            .arg("-o")
            .arg(dir.path().join("r.html"))
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&*path.display().to_string()) && err.contains(why),
            "{why}: {err}"
        );
    }
    let out = halfpower()
        .arg("report")
        .arg(fixture("sweep.json"))
        .arg(fixture("run-loop.json"))
        .arg("-o")
        .arg(dir.path().join("r.html"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("run-loop.json: a run result, but") && err.contains("is a sweep result"),
        "{err}"
    );
    assert!(!dir.path().join("r.html").exists());
    halfpower().arg("report").assert().code(2);
    let out = halfpower()
        .arg("report")
        .arg(fixture("sweep.json"))
        .arg("-o")
        .arg(dir.path().join("no/such/dir/r.html"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("an existing directory"), "{err}");
}

#[test]
fn html_flag_writes_the_report_of_a_64_point_sweep_under_2_mb() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("sweep.html");
    let json = dir.path().join("sweep.json");
    halfpower()
        .args(["sweep", "null", "--engine", "null", "--rw", "randread"])
        .args([
            "--bs",
            "4k,8k,16k,32k,64k,128k,256k,512k",
            "--qd",
            "1,2,4,8,16,32,64,128",
        ])
        .args(["--time", "20ms", "--warmup", "0", "--quiet", "--json"])
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .assert()
        .success();
    let text = std::fs::read_to_string(&html).unwrap();
    check_page(&text);
    assert!(text.len() < 2_000_000, "{} bytes", text.len());
    assert_eq!(text.matches("<g><rect").count(), 64);
    assert_eq!(charts(&text), 4);
    // The same report from the saved JSON.
    let again = dir.path().join("again.html");
    halfpower()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(charts(&std::fs::read_to_string(&again).unwrap()), 4);
    // --html refuses an existing file before anything runs.
    let out = halfpower()
        .args([
            "run", "null", "--engine", "null", "--time", "10ms", "--warmup", "0", "--html",
        ])
        .arg(&html)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("sweep.html") && err.contains("exists"),
        "{err}"
    );
    let run_html = dir.path().join("run.html");
    halfpower()
        .args([
            "run", "null", "--engine", "null", "--time", "300ms", "--warmup", "0", "--quiet",
            "--html",
        ])
        .arg(&run_html)
        .assert()
        .success();
    let run = std::fs::read_to_string(&run_html).unwrap();
    check_page(&run);
    assert!(run.contains("halfpower run report"));
}
