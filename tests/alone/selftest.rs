//! `halfpower selftest` checked by value on this machine: every bound it states holds against
//! the known answers it ran (the paced null engine, the throttled loop device, the kernel's count
//! of the same device), the figures it reports agree with what this test reads itself (the clock
//! source from sysfs, the caps it was told, the host record of each phase), it finishes within a
//! minute, and it leaves no loop device, cgroup or file behind.

use crate::common;
use common::num;

/// What of the self-test's own making is left: backing files in /dev/shm, loop devices over them,
/// and its cgroups.
fn leftovers() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["/dev/shm", "/sys/fs/cgroup/blkio", "/sys/fs/cgroup"] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("halfpower-selftest") {
                    out.push(format!("{dir}/{name}"));
                }
            }
        }
    }
    let loops = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    out.extend(
        loops
            .lines()
            .filter(|l| l.contains("halfpower-selftest") && !l.contains("(deleted)"))
            .map(String::from),
    );
    out
}

#[test]
fn every_stated_bound_holds_against_its_known_answers() {
    let _turn = crate::alone();
    if !common::is_root() {
        common::unavailable("root (the self-test's throttled loop device)");
        return;
    }
    let t = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("selftest.prom");
    let out = common::halfpower()
        .args(["selftest", "--json", "-", "--quiet", "--prom"])
        .arg(&prom)
        .output()
        .unwrap();
    let took = t.elapsed().as_secs_f64();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    eprintln!("{}", serde_json::to_string_pretty(&doc["checks"]).unwrap());
    eprintln!("{}", doc["statement"]);
    assert_eq!(doc["kind"], "selftest");
    assert!(took < 60.0, "the self-test took {took:.1} s");
    // The device's checks ran (root is here, and the loop driver and a cgroup: CI has both).
    assert!(
        doc["skipped"].as_array().unwrap().is_empty(),
        "{}",
        doc["skipped"]
    );
    let checks = doc["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 6, "{checks:?}");
    // Each known answer against the bound the self-test states, recomputed here from its
    // figures rather than read from its `held`.
    let s = &doc["statement"];
    let (above, within, rates) = (
        num(s, "latency_above_us"),
        num(s, "latency_within_pct"),
        num(s, "rates_within_pct"),
    );
    for c in checks {
        let (known, measured) = (num(c, "known"), num(c, "measured"));
        match c["kind"].as_str().unwrap() {
            "paced_latency" => assert!(
                measured <= above * within / 100.0,
                "the paced requests' p99 error {measured} µs, stated: above {above} µs within \
                 {within} %"
            ),
            kind => {
                let bound = if kind.starts_with("throttled") {
                    2.0
                } else {
                    rates
                };
                let err = 100.0 * (measured / known - 1.0);
                assert!(
                    err.abs() <= bound,
                    "{kind}: {measured} against {known}: {err:+.3} %"
                );
            }
        }
        assert_eq!(c["held"], true, "{c}");
    }
    assert_eq!(s["held"], true);
    assert_eq!(out.status.code(), Some(0));
    // The textfile says the statement held, and each check's error, as the document.
    let page = std::fs::read_to_string(&prom).unwrap();
    let (ok, said) = common::prometheus::promtool(&page);
    assert!(ok, "promtool: {said}\n{page}");
    assert!(
        page.lines().any(|l| l == "halfpower_selftest_held 1"),
        "{page}"
    );
    let errors = page
        .lines()
        .filter(|l| l.starts_with("halfpower_selftest_check_error_ratio{"))
        .count();
    assert_eq!(errors, checks.len(), "{page}");
    // The knowns are the caps this test knows the self-test sets, and the paced rate.
    let known = |k: &str| {
        checks
            .iter()
            .find(|c| c["kind"] == k)
            .map(|c| num(c, "known"))
            .unwrap()
    };
    assert_eq!(known("paced_rate"), 20_000.0);
    assert_eq!(known("throttled_iops"), 2000.0);
    assert_eq!(known("throttled_bandwidth"), 40e6);
    // The clock source is the kernel's.
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap();
    assert_eq!(doc["clock"]["source"], source.trim());
    // The rate bound is what the phases' own host records support: never narrower than the
    // largest stalled-plus-stolen share of any phase.
    for p in doc["hosts"].as_array().unwrap() {
        let h = &p["host"];
        let disturbed = 100.0 * num(h, "probe.stalled_ms") / 1e3 / num(h, "seconds")
            + h["steal_pct"].as_f64().unwrap_or(0.0);
        assert!(
            rates + 1e-9 >= disturbed.min(100.0),
            "{p} against {rates} %"
        );
    }
    // Nothing of its making is left (a loop device detaches when its last user closes it, which
    // the kernel finishes shortly after).
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    // Its report section draws.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("s.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let page = common::report_page(&json);
    assert!(
        page.contains("measured within"),
        "no statement in the report"
    );
}
