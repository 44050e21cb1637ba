//! `halfpower diagnose` on logs of another machine (issue 12): an `iostat -x -t` log and a
//! perfmon CSV of the same three disks: a SATA SSD at QD32 (90k IOPS, 0.35 ms, aqu-sz 31.5,
//! %util 99.9), an HDD that really is overloaded (180 IOPS, 120 ms, aqu-sz 21.6, %util 99.5)
//! and a quiet disk. The fixtures are in tests/fixtures/diagnose.

use crate::common;

use common::{halfpower, num, stdout_json, usage_error};
use halfpower::model::diagnosis::Finding;
use halfpower::render::words;

fn diagnose(file: &str) -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/diagnose/").to_string() + file;
    stdout_json(&["diagnose", &path, "--json", "-"])
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
    assert_eq!(s["class_evidence"][0]["kind"], "served-in-parallel", "{s}");
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
    // The SSD's evidence that %util does not measure saturation on it, in render's words.
    let said = words::finding(&Finding::BusyIsNotSaturation {
        utilization_pct: 99.9,
    });
    assert!(text.contains(&said), "{text}");
}

/// Issue 23 item 15: a virtio disk busy 1.4 % of each second at 93 I/O/s (60 reads of 4 KiB at
/// 0.25 ms, 33 writes of 8 KiB at 0.45 ms) is idle most of the time: no service time can be
/// read from 14 ms of busy time counted in ticks, and nothing says it is overloaded. Its
/// figures are the fixture's own; a second disk as quiet but answering in 30 ms is slow (its
/// response time says otherwise), and the last second, captured on a VM's idle disk
/// (`iostat -x -t 1`), holds 14 discards that are in %util and aqu-sz and count as I/Os.
#[test]
fn a_quiet_virtio_disk_is_not_overloaded() {
    let d = diagnose("iostat-quiet-virtio.txt");
    let vda = device(&d, "vda");
    assert_eq!(vda["verdict"], "healthy", "{vda}");
    let ivs = vda["intervals"].as_array().unwrap();
    assert_eq!(ivs.len(), 4);
    let response = (60.0 * 0.25 + 33.0 * 0.45) / 93.0;
    for iv in &ivs[..3] {
        assert_eq!(iv["verdict"], "healthy", "{iv}");
        assert_eq!(num(iv, "iops"), 93.0);
        assert_eq!(num(iv, "utilization_pct"), 1.40);
        assert!((num(iv, "response_ms") - response).abs() < 1e-9, "{iv}");
        assert!(iv["service_ms"].is_null(), "no U/X from 14 ms busy: {iv}");
        assert!(iv["queue_ms"].is_null(), "{iv}");
        let quiet = iv["evidence"].as_array().unwrap().iter().any(|e| {
            e["finding"]["kind"] == "quiet-interval"
                && num(&e["finding"], "utilization_pct") == 1.40
        });
        assert!(quiet, "{}", iv["evidence"]);
    }
    // The captured second: 6 reads, 4 writes and 14 discards, each with its own await.
    let burst = &ivs[3];
    assert_eq!(num(burst, "iops"), 24.0, "{burst}");
    let r = (6.0 * 0.67 + 4.0 * 0.25 + 14.0 * 3.86) / 24.0;
    assert!((num(burst, "response_ms") - r).abs() < 1e-9, "{burst}");
    assert_eq!(burst["verdict"], "healthy", "{burst}");
    for iv in ivs {
        assert!(
            iv["service_ms"].as_f64().is_none_or(|s| s > 0.0),
            "a service time of zero: {iv}"
        );
    }
    // Quiet, but 30 ms where a virtual disk's 4 KiB requests are expected to take about 2 ms
    // (expect::typical): the response time decides, and it says slow.
    let vdb = device(&d, "vdb");
    assert_eq!(vdb["verdict"], "slow", "{vdb}");
    assert_eq!(num(vdb, "response_ms"), 30.0);
}

/// The same disk as `halfpower monitor` logged it on a VM (a real record): 61 writes in a
/// second, 0 % busy, and nine in-flight samples that all read 0, which the monitor turned into
/// a Little's-law "service time" of 0.000 ms and a queue time of the whole response time.
#[test]
fn a_service_time_of_zero_decides_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("vda.jsonl");
    std::fs::write(
        &log,
        r#"{"schema_version":2,"time":"2026-11-23T21:42:15.280Z","interval_s":1.000127671,"device":"vda","class":"virtual","disks":1,"r_s":0.0,"w_s":60.99221306316601,"d_s":0.0,"f_s":0.0,"r_bytes_s":0.0,"w_bytes_s":556984.8891822132,"d_bytes_s":0.0,"rrqm_s":0.0,"wrqm_s":74.99042589733526,"rareq_bytes":0.0,"wareq_bytes":9132.065573770491,"r_await_ms":0.0,"w_await_ms":1.1311475409836065,"d_await_ms":0.0,"f_await_ms":0.0,"response_ms":1.1311475409836065,"aqu_sz":0.06999106417084625,"util_pct":0.0,"serving":"parallel","inflight":0,"inflight_mean":0.0,"service_ms":0.0,"queue_ms":1.1311475409836065,"service_source":"inflight-estimate","flags":[]}
"#,
    )
    .unwrap();
    let d = stdout_json(&["diagnose", log.to_str().unwrap(), "--json", "-"]);
    let vda = device(&d, "vda");
    assert_eq!(vda["verdict"], "healthy", "{vda}");
    let iv = &vda["intervals"][0];
    assert!(iv["service_ms"].is_null(), "{iv}");
    assert!((num(iv, "iops") - 60.99221306316601).abs() < 1e-9);
    assert!((num(iv, "response_ms") - 1.1311475409836065).abs() < 1e-9);
}

/// Issue 23 item 16: a profile measured on sdc (a file on sdc1: random reads 0.5 ms + 0.01 ms
/// per KiB) sets sdc's expectation, its line at the log's 8 KiB requests, 0.58 ms, and nobody
/// else's: sda (an SSD) is judged by its class, said so. `--profile-device` moves it; a profile
/// that names no disk cannot be given to a log of three devices.
#[test]
fn a_profile_applies_to_the_device_it_was_measured_on() {
    let dir = tempfile::tempdir().unwrap();
    let fits = r#""fits":[{"rw":"read","pattern":"random","overhead_ms":0.5,"ms_per_kib":0.01}]"#;
    let measured = dir.path().join("sdc.json");
    std::fs::write(
        &measured,
        format!(
            r#"{{"schema_version":1,"kind":"profile","target":"/data/f","target_info":{{"device":"sdc","partition":"sdc1"}},{fits}}}"#
        ),
    )
    .unwrap();
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/diagnose/iostat-three-disks.txt"
    );
    let p = measured.to_str().unwrap();
    let d = stdout_json(&["diagnose", log, "--profile", p, "--json", "-"]);
    assert_eq!(d["profile"]["devices"], serde_json::json!(["sdc", "sdc1"]));
    assert_eq!(d["profile"]["how"], "measured");
    assert_eq!(d["profile"]["found"], true);
    let sdc = device(&d, "sdc");
    assert_eq!(sdc["expectation_source"], "profile", "{sdc}");
    assert!((num(sdc, "expected_service_ms") - (0.5 + 0.01 * 8.0)).abs() < 1e-9);
    // 2 ms where its own profile expects 0.58 ms (× 1.5 allowed): slow.
    assert_eq!(sdc["verdict"], "slow", "{sdc}");
    let sda = device(&d, "sda");
    assert_eq!(sda["expectation_source"], "class", "{sda}");
    // docs/monitor.md: an SSD's typical service time is 0.3 ms plus the transfer at 400 MB/s.
    let ssd_4k = 0.3 + 4096.0 / 400e6 * 1000.0;
    assert!(
        (num(sda, "expected_service_ms") - ssd_4k).abs() < 1e-9,
        "{sda}"
    );
    let text = common::stdout_text(&["diagnose", log, "--profile", p]);
    assert!(
        text.contains("the profile describes sdc or sdc1 only: this device is judged by its class"),
        "{text}"
    );
    // Named for sda instead: sda gets the line at 4 KiB, sdc its class.
    let d = stdout_json(&[
        "diagnose",
        log,
        "--profile",
        p,
        "--profile-device",
        "sda",
        "--json",
        "-",
    ]);
    assert_eq!(d["profile"]["how"], "named");
    let sda = device(&d, "sda");
    assert!(
        (num(sda, "expected_service_ms") - 0.54).abs() < 1e-9,
        "{sda}"
    );
    assert_eq!(device(&d, "sdc")["expectation_source"], "class");
    // A profile that names no disk, for a log of three: which one it describes is unknown.
    let anon = dir.path().join("anon.json");
    std::fs::write(
        &anon,
        format!(r#"{{"schema_version":1,"kind":"profile",{fits}}}"#),
    )
    .unwrap();
    let err = common::usage_error(&["diagnose", log, "--profile", anon.to_str().unwrap()]);
    assert!(
        err.contains("--profile-device") && err.contains("sda, sdb, sdc"),
        "{err}"
    );
    // A profile of a disk the log does not hold: everyone by class, and a warning.
    let other = dir.path().join("nvme.json");
    std::fs::write(
        &other,
        format!(r#"{{"schema_version":1,"kind":"profile","target":"/dev/nvme0n1",{fits}}}"#),
    )
    .unwrap();
    let out = common::halfpower()
        .args([
            "diagnose",
            log,
            "--profile",
            other.to_str().unwrap(),
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the profile is for nvme0n1, which no log holds"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["profile"]["found"], false);
    for dev in d["devices"].as_array().unwrap() {
        assert_eq!(dev["expectation_source"], "class", "{dev}");
    }
}

/// A result document given as a log is refused in one line that says what it is, not with a
/// warning per line of it (a run.json printed 11 511 warnings before its error).
#[test]
fn a_result_document_is_not_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    halfpower()
        .args([
            "run", "x", "--engine", "null", "--time", "200ms", "--warmup", "0", "--quiet",
        ])
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let lines = std::fs::read_to_string(&json).unwrap().lines().count();
    assert!(lines > 100, "a document of {lines} lines");
    let err = usage_error(&["diagnose", json.to_str().unwrap()]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("a halfpower run result, not a log"), "{err}");
}

/// A log with many bad lines warns about the first ten and counts the rest.
#[test]
fn a_log_s_warnings_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("bad.jsonl");
    let good = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/monitor.jsonl"
    ))
    .unwrap();
    let text = good.clone() + &"{not json\n".repeat(50);
    std::fs::write(&log, text).unwrap();
    let out = halfpower().arg("diagnose").arg(&log).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("warning").count(), 11, "{err}");
    assert!(err.contains("… and 40 more"), "{err}");
}

/// Issue 25 item 4: headroom without a trace. A loop device throttled to 2000 IOPS is swept
/// (4 KiB random reads at QD 32 and 64: the cap reached at both, so the knee and the peak are
/// the cap), then monitored while a workload paced at 500 IOPS runs on it. The depths cover a
/// round trip of 16 ms at the cap: beside the suite's other tests each wake-up on the loop's
/// path may wait for a CPU, and a closed loop reaches a cap only while its depth covers the
/// round trip (QD1's 0.5 ms did not). `diagnose LOG
/// --profile SWEEP` places the busiest interval on the sweep's curve: 2000 / 500 = 4× to the
/// peak and to the knee, within 15 % (the sweep's 2-s points are off the cap by at most one
/// 100-ms slice each way plus rounding, 12 %; the paced load is on schedule to 1 %).
#[test]
fn a_workload_is_placed_on_the_devices_swept_curve() {
    use common::{LoopDev, Throttle, halfpower_spawnable};
    let (Some(lo), Some(cg)) = (LoopDev::new("curve", 64 << 20), Throttle::new("curve")) else {
        return;
    };
    let _turn = common::measuring();
    cg.limit(std::path::Path::new(lo.path()), 0, 2000);
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep.json");
    let s = sweep.to_str().unwrap();
    let swept = cg.run_json(&[
        "sweep",
        lo.path(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "32,64",
        "--time",
        "2s",
        "--warmup",
        "200ms",
        "--size",
        "32m",
    ]);
    std::fs::write(&sweep, swept.to_string()).unwrap();
    let log = dir.path().join("day.csv");
    // monitor places each interval on the same curve as it goes (a line under its table).
    let mon = halfpower_spawnable()
        .args(["monitor", &lo.name(), "--interval", "1s", "--count", "5"])
        .args([
            "--profile",
            s,
            "--profile-device",
            &lo.name(),
            "--json",
            "-",
            "--log",
        ])
        .arg(&log)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    cg.run_json(&[
        "run",
        lo.path(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--rate-iops",
        "500",
        "--qd",
        "8",
        "--time",
        "5s",
        "--warmup",
        "0",
        "--size",
        "32m",
    ]);
    let out = mon.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines = String::from_utf8_lossy(&out.stdout);
    // The busiest interval's record: the least room to the peak.
    let least = lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| r["device"] == lo.name().as_str())
        .filter_map(|r| r["headroom"]["curve"]["to_peak"].as_f64())
        .fold(f64::INFINITY, f64::min);
    assert!((least / 4.0 - 1.0).abs() < 0.15, "{least}: {lines}");
    let l = log.to_str().unwrap();
    let d = stdout_json(&[
        "diagnose",
        l,
        "--profile",
        s,
        "--profile-device",
        &lo.name(),
        "--json",
        "-",
    ]);
    let h = &device(&d, &lo.name())["headroom"];
    eprintln!("{h}");
    let c = &h["curve"];
    assert_eq!(
        (c["rw"].as_str(), c["bs_bytes"].as_u64()),
        (Some("randread"), Some(4096))
    );
    assert_eq!(c["size_matches"], true);
    assert!((num(h, "observed_iops") / 500.0 - 1.0).abs() < 0.05, "{h}");
    assert!((num(c, "to_peak") / 4.0 - 1.0).abs() < 0.15, "{c}");
    // The knee is the sweep's: the depth from which throughput stays flat while p99 grows
    // (analysis::sweep). On the throttle it is QD32 when QD64's p99 is higher, else none.
    match swept["analysis"][0]["knee_qd"][0]["qd"].as_u64() {
        Some(qd) => {
            assert_eq!(c["knee_inflight"].as_u64(), Some(qd), "{c}");
            assert!((num(c, "to_knee") / 4.0 - 1.0).abs() < 0.15, "{c}");
        }
        None => assert!(c["to_knee"].is_null(), "{c}"),
    }
    let text = common::stdout_text(&[
        "diagnose",
        l,
        "--profile",
        s,
        "--profile-device",
        &lo.name(),
    ]);
    assert!(text.contains("headroom: "), "{text}");
}
