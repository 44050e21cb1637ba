//! `halfpower diagnose` on logs of another machine (issue 12): an `iostat -x -t` log and a
//! perfmon CSV of the same three disks: a SATA SSD at QD32 (90k IOPS, 0.35 ms, aqu-sz 31.5,
//! %util 99.9), an HDD that really is overloaded (180 IOPS, 120 ms, aqu-sz 21.6, %util 99.5)
//! and a quiet disk. The fixtures are in tests/fixtures/diagnose.

mod common;

use common::{num, stdout_json};

fn diagnose(file: &str) -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/diagnose/").to_string() + file;
    stdout_json(&["diagnose", &path, "--json"])
}

fn device<'a>(d: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    d["devices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["device"] == name)
        .unwrap_or_else(|| panic!("no {name} in {d}"))
}

fn check_three_disks(d: &serde_json::Value, ssd: &str, hdd: &str, quiet: &str) {
    // The SSD serves requests in parallel: U/X (0.011 ms) is no service time, %util 99.9 is no
    // saturation, and M/M/1 does not apply.
    let s = device(d, ssd);
    assert_eq!(s["verdict"], "healthy", "{s}");
    assert_eq!(s["serving"], "parallel");
    assert_eq!(s["class"], "ssd");
    assert!(s["service_ms"].is_null(), "no U/X service time: {s}");
    assert!(s["queue_ms"].is_null());
    assert_eq!(s["service_source"], "none");
    assert!(s.get("projection").is_none_or(|p| p.is_null()));
    assert!(
        s["class_evidence"][0]
            .as_str()
            .unwrap()
            .contains("parallel"),
        "{s}"
    );
    for iv in s["intervals"].as_array().unwrap() {
        assert!(iv["service_ms"].is_null());
        assert_ne!(iv["verdict"], "overloaded");
    }
    // The HDD is overloaded, its service time from the Utilization Law: 0.995 / 180 s.
    let h = device(d, hdd);
    assert_eq!(h["verdict"], "overloaded", "{h}");
    assert_eq!(h["serving"], "serial");
    assert_eq!(h["service_source"], "utilization-law");
    assert!(
        (num(h, "service_ms") - 0.995 / 180.0 * 1000.0).abs() < 0.01,
        "{h}"
    );
    assert!(num(h, "queue_ms") > num(h, "service_ms"));
    // The quiet disk is healthy.
    let q = device(d, quiet);
    assert_eq!(q["verdict"], "healthy", "{q}");
}

#[test]
fn iostat_log_of_an_ssd_an_overloaded_hdd_and_a_quiet_disk() {
    let d = diagnose("iostat-three-disks.txt");
    assert_eq!(d["inputs"][0]["format"], "iostat");
    check_three_disks(&d, "sda", "sdb", "sdc");
}

#[test]
fn perfmon_log_of_the_same_disks() {
    let d = diagnose("perfmon-three-disks.csv");
    assert_eq!(d["inputs"][0]["format"], "perfmon-csv");
    check_three_disks(
        &d,
        "PhysicalDisk(0 C:)",
        "PhysicalDisk(1 D:)",
        "PhysicalDisk(2 E:)",
    );
}

#[test]
fn the_text_says_how_each_device_serves() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/diagnose/iostat-three-disks.txt"
    );
    let out = common::halfpower()
        .args(["diagnose", path])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let sda = text.lines().find(|l| l.starts_with("sda ")).unwrap();
    assert!(
        sda.contains("ssd") && sda.contains("parallel") && sda.contains("healthy"),
        "{sda}"
    );
    assert!(text.contains("does not measure saturation"), "{text}");
}
