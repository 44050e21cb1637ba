//! A credit bucket of known size against `results.bucket`: a FUSE disk (tests/common/fuse.rs,
//! [`Bucket`]) that serves one request at a time in 0.5 ms while it holds a credit, and
//! otherwise one per credit refilled at 500 a second, starting with 5000. A run at QD4 drains
//! it in about 3.5 s and then reads at the refill's pace: the burst is the server's own rate
//! until it first ran dry, the baseline the refill, the credits spent the 5000 it held. (The
//! issue's 10 000 credits over 20 s say the same at twice the time; CI's 20 minutes are short.)

use crate::common;
use common::fuse::{Bucket, Server, mount_fs_with};
use common::num;
use std::sync::atomic::Ordering;
use std::time::Duration;

const CREDITS: f64 = 5_000.0;
const REFILL: f64 = 500.0;

#[test]
fn a_drained_bucket_reports_its_burst_baseline_and_credits() {
    drained(CREDITS, "9s");
}

/// The issue's own run, by hand (`cargo test --release --test alone -- --ignored
/// the_issues_run`; 20 s): 10 000 credits at the start, `--time 20s`.
#[test]
#[ignore = "the issue's full-size run, 20 s: run by hand"]
fn the_issues_run_of_20_s_on_a_full_bucket() {
    drained(2.0 * CREDITS, "20s");
}

/// `run` at QD4 for `time` on a bucket of `credits`, held to the server's own burst, the
/// refill and the credits.
fn drained(credits: f64, time: &str) {
    let _turn = crate::alone();
    let server = Server::new(64 << 20, Duration::from_micros(500)).bucketed(Bucket {
        credits,
        refill_per_s: REFILL,
        per_kib: false,
    });
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-bucket", 1) else {
        return;
    };
    let disk = fs.disk();
    let probe = common::HostNoise::start(Duration::from_millis(2));
    let json = tempfile::NamedTempFile::new().unwrap();
    let out = common::halfpower()
        .args([
            "run",
            disk.as_str(),
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--time",
            time,
            "--warmup",
            "0",
            "--json",
        ])
        .arg(json.path())
        .args(["--force"])
        .output()
        .unwrap();
    let noise = probe.stop();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The server's own burst: the requests it served before it first ran dry, over the time
    // from the first one's end to then.
    let dry_s = served.dry_at_ns.load(Ordering::SeqCst) as f64 / 1e9;
    let first_s = served.first_end_ns.load(Ordering::SeqCst) as f64 / 1e9;
    let burst = (served.served_when_dry.load(Ordering::SeqCst) as f64 - 1.0) / (dry_s - first_s);
    let b = &doc["results"]["bucket"];
    eprintln!(
        "server: burst {burst:.1}/s until {dry_s:.2} s; halfpower: {b}; changes {}; host {noise}\n{text}",
        doc["results"]["changes"]
    );
    // Each bound adds the share of the time the host took from a thread: a stall of the
    // server lowers the seconds it falls in, which the burst's own level may leave out.
    let lost = noise.lost_share();
    let near = |got: f64, want: f64, tol: f64| (got / want - 1.0).abs() <= tol + lost;
    assert!(
        near(num(b, "burst_iops"), burst, 0.05),
        "burst {} against {burst}",
        b["burst_iops"]
    );
    assert!(
        near(num(b, "baseline_iops"), REFILL, 0.05),
        "baseline {}",
        b["baseline_iops"]
    );
    assert!(
        near(num(b, "credits_ios"), credits, 0.15),
        "credits {}",
        b["credits_ios"]
    );
    // In bytes, each credit is one 4 KiB read: the workload's arithmetic.
    for (bytes, ios) in [
        ("credits_bytes", "credits_ios"),
        ("burst_bytes_per_s", "burst_iops"),
        ("baseline_bytes_per_s", "baseline_iops"),
    ] {
        let per = num(b, bytes) / num(b, ios);
        assert!(
            (per / 4096.0 - 1.0).abs() < 1e-9,
            "{bytes}: {per} bytes per I/O"
        );
    }
    // The burst's end is the server's first dry moment, within the second it fell in (the
    // window began after the mount, by the run's start-up).
    assert!(
        (num(b, "ended_at_s") - dry_s).abs() <= 2.0,
        "ended {} against {dry_s}",
        b["ended_at_s"]
    );
    // The text says both rates beside the blended totals.
    assert!(text.contains("credit bucket: a burst of"), "{text}");
    // Every row of the table is marked a blend; the two rates are rows of their own.
    let rows: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    let blends = rows.iter().filter(|l| l.ends_with(" blend")).count();
    assert_eq!(blends, 2, "the target and the total:\n{text}");
    let rate = |dir: &str| {
        let row = rows
            .iter()
            .find(|l| l.starts_with("credit bucket ") && l.contains(dir));
        row.and_then(|l| l.split_whitespace().nth(3)?.parse::<f64>().ok())
    };
    assert_eq!(
        rate(" burst "),
        Some(num(b, "burst_iops").round()),
        "{text}"
    );
    assert_eq!(
        rate(" base "),
        Some(num(b, "baseline_iops").round()),
        "{text}"
    );
    assert!(
        text.contains("a longer run tends to the baseline"),
        "{text}"
    );
}

/// The issue's full size, by hand (`cargo test --release --test alone -- --ignored
/// the_issues_bucket`; about a minute, too long for CI): 10 000 credits refilled at 500 a
/// second, a drain at QD4, a rest of 10 s, a drain again. The burst is the server's own rate
/// until it first ran dry (within 5 %), the baseline the refill (5 %), the credits the 10 000
/// (15 %), and the refill 500 a second (10 %): the bucket's own known answers, alone on the
/// machine.
#[test]
#[ignore = "the issue's full-size bucket, about a minute: run by hand"]
fn the_issues_bucket_drained_rested_and_drained() {
    let _turn = crate::alone();
    let server = Server::new(64 << 20, Duration::from_micros(500)).bucketed(Bucket {
        credits: 2.0 * CREDITS,
        refill_per_s: REFILL,
        per_kib: false,
    });
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-bucket-full", 1) else {
        return;
    };
    let disk = fs.disk();
    let json = tempfile::NamedTempFile::new().unwrap();
    let probe = common::HostNoise::start(Duration::from_millis(2));
    let out = common::halfpower()
        .args([
            "experiment",
            "burst",
            disk.as_str(),
            "--size",
            "32m",
            "--qd",
            "4",
        ])
        .args(["--rest", "10s", "--time", "60s", "--json"])
        .arg(json.path())
        .args(["--force"])
        .output()
        .unwrap();
    let noise = probe.stop();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path()).unwrap()).unwrap();
    let dry_s = served.dry_at_ns.load(Ordering::SeqCst) as f64 / 1e9;
    let first_s = served.first_end_ns.load(Ordering::SeqCst) as f64 / 1e9;
    let burst = (served.served_when_dry.load(Ordering::SeqCst) as f64 - 1.0) / (dry_s - first_s);
    let f = &doc["finding"];
    eprintln!("server: burst {burst:.1}/s; halfpower: {f}; host {noise}\n{text}");
    let lost = noise.lost_share();
    let near = |got: f64, want: f64, tol: f64| (got / want - 1.0).abs() <= tol + lost;
    let b = &f["first"];
    assert!(near(num(b, "burst_iops"), burst, 0.05), "burst {b}");
    assert!(near(num(b, "baseline_iops"), REFILL, 0.05), "baseline {b}");
    assert!(
        near(num(b, "credits_ios"), 2.0 * CREDITS, 0.15),
        "credits {b}"
    );
    assert!(near(num(f, "refill_ios_per_s"), REFILL, 0.10), "refill {f}");
}
