//! `halfpower monitor` against an independent source: sysstat's iostat on the same window, and
//! direct-I/O dd runs of a known request count on a loop device.

use crate::common;

use common::{LoopDev, halfpower, halfpower_spawnable, num, stdout_json, usage_error};
use std::process::{Command, Stdio};
use std::time::Duration;

fn dd(args: &[&str]) {
    let st = Command::new("dd")
        .args(args)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "dd {args:?}");
}

/// Both tools watch the same 2 s window; the only I/O on the device is a burst of dd requests
/// issued well inside it, so both see the same counter totals. Their figures must agree to 2 %
/// or one unit of iostat's last printed digit, and the summed rates must give the request
/// counts dd issued.
#[test]
fn agrees_with_iostat_and_counts_dd_requests() {
    let Some(lo) = LoopDev::new("mon", 64 << 20) else {
        return;
    };
    if Command::new("iostat").arg("-V").output().is_err() {
        panic!("iostat (Debian package sysstat) is needed; .ci/run installs it");
    }
    let name = lo.name();
    std::thread::sleep(Duration::from_millis(300)); // let udev's probe of the new device pass
    let iostat = Command::new("iostat")
        .args(["-x", "-y", &name, "2", "1"])
        .env("LC_ALL", "C")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mon = halfpower_spawnable()
        .args([
            "monitor",
            &name,
            "--interval",
            "2s",
            "--count",
            "1",
            "--json",
            "-",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let dev = lo.path().to_string();
    dd(&[
        &format!("if={dev}"),
        "of=/dev/null",
        "bs=4k",
        "count=3000",
        "iflag=direct",
    ]);
    dd(&[
        "if=/dev/zero",
        &format!("of={dev}"),
        "bs=64k",
        "count=400",
        "oflag=direct",
        "conv=notrunc",
    ]);
    let io = String::from_utf8(iostat.wait_with_output().unwrap().stdout).unwrap();
    let out = mon.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rec: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["device"] == name.as_str())
        .unwrap_or_else(|| panic!("no record for {name}: {text}"));
    let f = |k: &str| {
        rec[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} missing: {rec}"))
    };
    let secs = f("interval_s");
    assert_eq!((f("r_s") * secs).round(), 3000.0, "{rec}");
    assert_eq!((f("w_s") * secs).round(), 400.0, "{rec}");
    assert_eq!((f("w_bytes_s") * secs).round(), 400.0 * 65536.0);

    let header: Vec<&str> = io
        .lines()
        .find(|l| l.starts_with("Device"))
        .unwrap()
        .split_whitespace()
        .collect();
    let row: Vec<&str> = io
        .lines()
        .find(|l| l.starts_with(&name))
        .unwrap()
        .split_whitespace()
        .collect();
    let col = |c: &str| -> f64 {
        row[header
            .iter()
            .position(|h| *h == c)
            .unwrap_or_else(|| panic!("{c}: {header:?}"))]
        .parse()
        .unwrap()
    };
    let agree = |what: &str, ours: f64, theirs: f64| {
        let ok = (ours - theirs).abs() <= 0.02 * theirs.abs()
            || (ours - theirs).abs() <= 0.01 + 1e-9 + 0.005;
        assert!(
            ok,
            "{what}: halfpower {ours} vs iostat {theirs}\n{io}\n{rec}"
        );
    };
    agree("r/s", f("r_s"), col("r/s"));
    agree("w/s", f("w_s"), col("w/s"));
    agree("rkB/s", f("r_bytes_s") / 1024.0, col("rkB/s"));
    agree("wkB/s", f("w_bytes_s") / 1024.0, col("wkB/s"));
    agree("r_await", f("r_await_ms"), col("r_await"));
    agree("w_await", f("w_await_ms"), col("w_await"));
    agree("aqu-sz", f("aqu_sz"), col("aqu-sz"));
    agree("%util", f("util_pct"), col("%util"));

    // The system record's CPU split against iostat's avg-cpu over the same window (iostat's
    // %system includes hard and soft interrupt time), to 2 percentage points.
    let sys: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["device"] == "_system")
        .unwrap();
    let s = |k: &str| {
        sys[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} missing: {sys}"))
    };
    let cpu: Vec<f64> = io
        .lines()
        .skip_while(|l| !l.starts_with("avg-cpu:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no avg-cpu in {io}"))
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    for (what, ours, theirs) in [
        ("%user+%nice", s("cpu_user_pct"), cpu[0] + cpu[1]),
        (
            "%system",
            s("cpu_system_pct") + s("cpu_irq_pct") + s("cpu_softirq_pct"),
            cpu[2],
        ),
        ("%iowait", s("cpu_iowait_pct"), cpu[3]),
        ("%steal", s("cpu_steal_pct"), cpu[4]),
        ("%idle", s("cpu_idle_pct"), cpu[5]),
    ] {
        eprintln!("{what}: halfpower {ours:.2} iostat {theirs}");
        assert!(
            (ours - theirs).abs() <= 2.0,
            "{what}: halfpower {ours:.2} vs iostat {theirs}\n{io}\n{sys}"
        );
    }
}

/// A JSON-lines and a CSV log from a real run read back into `diagnose`, which gives the loop
/// device a verdict; the tracer measures device time and leaves no instance behind.
#[test]
fn logs_feed_diagnose_and_trace_cleans_up() {
    let Some(lo) = LoopDev::new("diag", 32 << 20) else {
        return;
    };
    // Never beside `capture`'s test (exclusive), whose tracefs instance it would find.
    let _turn = crate::common::measuring();
    let name = lo.name();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("m.csv");
    let mon = halfpower_spawnable()
        .args([
            "monitor",
            &name,
            "--interval",
            "300ms",
            "--count",
            "10",
            "--trace",
            "--json",
            "-",
            "--log",
        ])
        .arg(&csv)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // Reads for longer than an interval (16 000 of 512 bytes: 0.4–0.6 s here), so that one
    // interval both counts them in diskstats and has them traced: the tracer's reader hands
    // over what it has read when an interval ends, and a burst shorter than an interval that
    // falls at its end is counted in that interval but traced in the next (in CI:
    // no line said "trace").
    dd(&[
        &format!("if={}", lo.path()),
        "of=/dev/null",
        "bs=512",
        "count=16000",
        "iflag=direct",
    ]);
    // Its tracefs instance is named by its process id (other tests' monitors may run beside it).
    let instance = format!("halfpower-{}", mon.id());
    let out = mon.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.iter().filter(|v| v["device"] == "_system").count(),
        10
    );
    // The intervals that traced matched most of the reads the kernel counted in them
    // (diskstats' r/s over the interval): a burst's reads counted at an interval's end are
    // traced in the next, and beside the suite's other tests the tracer matched 13 739 of the
    // 16 000 its intervals counted. The tracer's reader parses trace_pipe's text and falls
    // behind while the CPUs are saturated (a fresh clone's suite: idle 0 %, 3900 of 8778 over
    // the three intervals dd read in, the rest still in the buffers when the fourth ended): ten
    // intervals (3 s) leave it the time dd does not take (0.4–2 s) to catch up in. Not a fixed
    // share of the 16 000: dd at QD1 may read for longer than the intervals.
    let (traced, counted) = lines
        .iter()
        .filter(|v| v["device"] == name.as_str())
        .filter_map(|v| Some((v["traced"].as_f64()?, num(v, "r_s") * num(v, "interval_s"))))
        .fold((0.0, 0.0), |(t, c), (a, b)| (t + a, c + b));
    assert!(
        traced > 0.0 && traced >= 0.5 * counted,
        "tracer matched {traced} of the {counted:.0} reads its intervals counted: {text}"
    );
    assert!(
        lines.iter().any(|v| v["service_source"] == "trace"),
        "{text}"
    );
    let leftovers: Vec<_> = std::fs::read_dir("/sys/kernel/tracing/instances")
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| *n == instance)
                .collect()
        })
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let jsonl = dir.path().join("m.jsonl");
    std::fs::write(&jsonl, &text).unwrap();
    for log in [&csv, &jsonl] {
        let d = stdout_json(&[
            std::ffi::OsStr::new("diagnose"),
            log.as_os_str(),
            "--json".as_ref(),
            "-".as_ref(),
        ]);
        assert_eq!(d["kind"], "diagnose");
        let dev = d["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["device"] == name.as_str())
            .unwrap();
        for key in [
            "verdict",
            "utilization_pct",
            "iops",
            "response_ms",
            "service_ms",
            "queue_ms",
            "queue_length",
            "evidence",
            "expected_request_kib",
            "intervals",
        ] {
            assert!(dev.get(key).is_some(), "{key} missing in {dev}");
        }
        assert_eq!(dev["intervals"].as_array().unwrap().len(), 10);
    }
}

#[test]
fn bad_monitor_and_diagnose_input_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let garbage = d.join("garbage.txt");
    std::fs::write(&garbage, "hello\nworld\n").unwrap();
    let localized = d.join("de.csv");
    std::fs::write(
        &localized,
        "\"(PDH-CSV 4.0)\",\"\\\\H\\Datenträger(0 C:)\\Leerlaufzeit (%)\"\r\n",
    )
    .unwrap();
    let bad_profile = d.join("p.json");
    std::fs::write(&bad_profile, "{\"kind\":\"run\"}").unwrap();
    let g = garbage.to_str().unwrap();
    for (args, needle) in [
        (vec!["monitor", "no-such-disk"], "no-such-disk"),
        (vec!["monitor", "--interval", "0s"], "--interval"),
        (vec!["monitor", "--count", "0"], "--count"),
        (
            vec!["monitor", "--log", "/tmp/x.txt", "--count", "1"],
            ".csv",
        ),
        (vec!["diagnose", g], "not a monitor log"),
        (vec!["diagnose", "/no/such/log.csv"], "/no/such/log.csv"),
        (vec!["diagnose", localized.to_str().unwrap()], "localized"),
        (
            vec![
                "diagnose",
                "tests/corpus/iostat-loop.txt",
                "--profile",
                bad_profile.to_str().unwrap(),
            ],
            "--profile",
        ),
    ] {
        let err = usage_error(&args);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

/// Malformed lines are skipped with a warning naming file and line; the rest is diagnosed.
#[test]
fn malformed_lines_are_skipped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string("tests/corpus/monitor.jsonl").unwrap();
    let path = dir.path().join("cut.jsonl");
    std::fs::write(&path, format!("{good}{{\"schema_version\":1,\"tim\n")).unwrap();
    let n = good.lines().count() + 1;
    let out = halfpower().arg("diagnose").arg(&path).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cut.jsonl:{n}: malformed JSON")),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict"));
}

/// Issue 12: a device that serves requests in parallel (a loop device) is never taken as
/// serial, not even in its first busy interval (when in-flight counts were not yet sampled):
/// no interval with more than one request at a time gets a service time from U/X, and no
/// busy/queue flag is raised on %util.
#[test]
fn a_parallel_device_is_never_serial_in_its_first_busy_interval() {
    let Some(lo) = LoopDev::new("firstbusy", 64 << 20) else {
        return;
    };
    let name = lo.name();
    let mon = halfpower_spawnable()
        .args([
            "monitor",
            &name,
            "--interval",
            "500ms",
            "--count",
            "4",
            "--json",
            "-",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let load = halfpower_spawnable()
        .args([
            "run",
            lo.path(),
            "--rw",
            "randread",
            "--qd",
            "32",
            "--time",
            "1s",
        ])
        .args(["--warmup", "0", "--quiet", "--json", "-"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(load.success());
    let out = mon.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["device"] == name.as_str())
        .collect();
    assert!(
        records.iter().any(|r| num(r, "aqu_sz") > 4.0),
        "the load showed a queue: {text}"
    );
    for r in &records {
        assert_eq!(r["serving"], "parallel", "{r}");
        assert_eq!(r["class"], "loop", "{r}");
        let (util, aqu) = (num(r, "util_pct") / 100.0, num(r, "aqu_sz"));
        if aqu > util * 1.1 + 0.05 {
            assert_ne!(r["service_source"], "utilization-law", "{r}");
        }
        let flags = r["flags"].as_array().unwrap();
        assert!(
            !flags.iter().any(|f| f == "busy>85%" || f == "queue>2/disk"),
            "{r}"
        );
    }
}
