//! `halfpower pts` against answers it did not compute: a FUSE disk whose writes take S0 until a
//! known number of bytes has been written since its last purge and S1 after (tests/common/
//! fuse.rs, `Server::with_cliff`; hole punching purges it), so the round in which the cliff
//! falls, the rate past it (one server: at most 1/S1), the bytes written and each write's times
//! (the server's own record) are known; the window matrix against the arithmetic of the rounds it averages; and
//! the refusals.

use crate::common;
use common::fuse::{Served, Server, mount_fs_with};
use common::{halfpower, num, stdout_json, usage_error};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A write's service time before the cliff, and after it.
const S0: Duration = Duration::from_millis(1);
const S1: Duration = Duration::from_millis(3);

pub(crate) fn pts(args: &[&str]) -> Value {
    let mut all = vec!["pts"];
    all.extend(args);
    all.extend(["--allow-write", "--destroy-data", "--json", "-", "--quiet"]);
    stdout_json(&all)
}

fn rounds(track: &Value) -> &Vec<Value> {
    track["rounds"].as_array().unwrap()
}

/// A round as the server saw it: the writes that began within its bytes, how many of them met
/// the cliff's slow service, and the time from the first one's start to the last one's answer.
#[derive(Debug)]
struct Seen {
    writes: usize,
    slow: usize,
    span_s: f64,
    /// How long the server thread, woken for the round's first write, waited for a CPU.
    wake_wait_s: f64,
}

/// Each round of `rs` as the server saw it, its writes found by the bytes written before each
/// (from `first`, the bytes written before the first round) against the rounds' counts.
fn seen(rs: &[Value], first: u64, served: &Served, cliff: u64) -> Vec<Seen> {
    let mut writes = served.writes.lock().unwrap().clone();
    writes.sort_by_key(|w| w.before);
    let mut from = first;
    rs.iter()
        .map(|r| {
            let to = num(r, "written_bytes") as u64;
            let lo = writes.partition_point(|w| w.before < from);
            let hi = writes.partition_point(|w| w.before < to);
            from = to;
            let (a, b) = (&writes[lo], &writes[hi - 1]);
            // Before the first write the thread's whole count bounds its wait.
            let woken = lo.checked_sub(1).map_or(0, |p| writes[p].waited_end_ns);
            Seen {
                writes: hi - lo,
                slow: writes[lo..hi].iter().filter(|w| w.before >= cliff).count(),
                span_s: (b.end_ns - a.start_ns) as f64 / 1e9,
                wake_wait_s: a.waited_start_ns.saturating_sub(woken) as f64 / 1e9,
            }
        })
        .collect()
}

/// Each round's IOPS against the server's own rate over the same writes. halfpower's window
/// (first submission to last completion) holds the server's (first write's start to its last
/// answer ready) and exceeds it by the path at its two edges: 0.15–0.6 ms measured on a quiet
/// host, so 1 ms; plus what the host took there, measured in the same round: the workers' and
/// their io_uring helpers' waits for a CPU, the server thread's wait when woken for the round's
/// first write and the stalls halfpower's probe saw; plus 1 % of the span for what none of these
/// sees (beside three busy loops on 2 CPUs one round ran 4.0 ms over its span with 1.8 ms of
/// waits measured). One write more or fewer in a round of 60 moves it by 1.7 %.
fn check_rates(rs: &[Value], seen: &[Seen]) {
    for (r, s) in rs.iter().zip(seen) {
        let iops = num(r, "tracking");
        assert_eq!(iops, num(r, "cells.0.iops"), "the tracking cell's IOPS");
        let host = &r["cells"][0]["host"];
        let host_s =
            (num(host, "workers_waited_ms") + num(host, "probe.stalled_ms")) / 1e3 + s.wake_wait_s;
        let over = s.writes as f64 / iops - s.span_s;
        assert!(
            (-1e-5..=1e-3 + 0.01 * s.span_s + host_s).contains(&over),
            "round {}: {iops} IOPS, {over:.6} s over the server's {s:?} (host {host_s:.6} s)",
            r["round"]
        );
        // No round runs faster than its writes' service allows (1 % for the clocks).
        let fastest = match s.slow {
            0 => 1.0 / S0.as_secs_f64(),
            n if n == s.writes => 1.0 / S1.as_secs_f64(),
            _ => continue,
        };
        assert!(iops <= 1.01 * fastest, "round {}: {iops} IOPS", r["round"]);
    }
}

/// Must show: `pts --test iops` with a shrunk matrix (4k 0/100, 300-ms rounds) on a disk of
/// 2 MiB whose writes slow from 1 to 3 ms after 4 MiB of preconditioning and 1.5 MiB more. The
/// server bounds the rate before the cliff at 1000 IOPS (≤ 1.2 MB per round), so the cliff falls
/// in round 2 at the earliest. Each round's IOPS is the server's own rate over its writes, the
/// track stops at PTS's rule, and while the rounds before the cliff ran clearly faster than any
/// after it can, steady state is declared only in a window from the round holding the cliff.
#[test]
fn iops_is_steady_only_after_the_write_cliff() {
    let _turn = common::exclusive();
    const CAPACITY: u64 = 2 << 20;
    const CLIFF: u64 = 2 * CAPACITY + (3 << 19);
    let server = Server::new(CAPACITY, S0).with_cliff(CLIFF, S1).purgeable();
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-cliff", 1) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("iops.html");
    let v = pts(&[
        &fs.disk(),
        "--test",
        "iops",
        "--bs",
        "4k",
        "--mix",
        "0/100",
        "--round",
        "300ms",
        "--threads",
        "1",
        "--qd",
        "4",
        "--html",
        html.to_str().unwrap(),
    ]);
    let t = &v["tracks"][0];
    // The purge happened, once, and the server forgot its writes.
    assert_eq!(t["purge"]["state"], "done", "{}", t["purge"]);
    assert_eq!(t["purge"]["method"], "punch-hole");
    assert_eq!(served.purges.load(Ordering::SeqCst), 1);
    assert_eq!(num(t, "precondition.written_bytes"), (2 * CAPACITY) as f64);
    let rs = rounds(t);
    // Every byte halfpower counts is one the server took, and the other way round.
    let written = served.written.load(Ordering::SeqCst);
    assert_eq!(num(rs.last().unwrap(), "written_bytes"), written as f64);
    let seen = seen(rs, 2 * CAPACITY, &served, CLIFF);
    check_rates(rs, &seen);
    // The round during which the server passed the cliff: the first with a slow write. The
    // server bounds a round before it at 1000 IOPS (≤ 1.2 MB in 300 ms), so not the first.
    let cliff = seen
        .iter()
        .position(|s| s.slow > 0)
        .expect("no round met the cliff")
        + 1;
    let steady_at = num(t, "steady.round") as usize;
    let first = num(t, "steady.window.first_round") as usize;
    let iops: Vec<f64> = rs.iter().map(|r| num(r, "tracking")).collect();
    eprintln!(
        "cliff in round {cliff}, steady at round {steady_at} (window from {first}); {iops:.0?}"
    );
    assert!(cliff >= 2, "cliff in round {cliff}");
    assert!(seen[cliff..].iter().all(|s| s.slow == s.writes), "{seen:?}");
    crate::common::pts::check_steady_stop(t);
    // No window holding a round before the cliff's can be steady while those rounds ran at
    // 1.5/S1 or more: every round past it runs at most 1.01/S1 (check_rates), so such a window's
    // range is at least 1 − 1.01/1.5 = 33 % of its largest value, and so of its mean. On a host
    // that slowed the rounds before the cliff below that, PTS's rule alone decides.
    if iops[..cliff - 1]
        .iter()
        .all(|&x| x >= 1.5 / S1.as_secs_f64())
        && cliff <= 5
    {
        assert_eq!(t["steady"]["reached"], true);
        assert!(first >= cliff, "window from {first}, cliff in {cliff}");
        assert!(steady_at > cliff, "steady at {steady_at}, cliff in {cliff}");
    }
    let page = std::fs::read_to_string(&html).unwrap();
    for chart in [
        "steady-state convergence",
        "measurement window: rounds",
        "mean ± 10 %",
        "mean ± 20 %",
        "least-squares line",
    ] {
        assert!(page.contains(chart), "{chart} not in the report");
    }
}

/// Must show: WSAT on a disk of 1 MiB whose writes slow after 1.5 MiB (from the purge) writes
/// 4 MiB in 200-ms rounds, and its IOPS falls where the bytes written pass the cliff: each
/// round's IOPS is the server's own rate over the writes its bytes hold, the first round holding
/// a slow write is the one whose bytes pass 1.5 MiB, and no round past it runs faster than the
/// slow service allows.
#[test]
fn wsat_shows_the_cliff_at_its_byte_count() {
    let _turn = common::exclusive();
    const CAPACITY: u64 = 1 << 20;
    const CLIFF: u64 = 3 << 19;
    let server = Server::new(CAPACITY, S0).with_cliff(CLIFF, S1).purgeable();
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-wsat", 1) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("wsat.html");
    let v = pts(&[
        &fs.disk(),
        "--test",
        "wsat",
        "--round",
        "200ms",
        "--threads",
        "1",
        "--qd",
        "4",
        "--html",
        html.to_str().unwrap(),
    ]);
    let t = &v["tracks"][0];
    assert_eq!(t["purge"]["state"], "done");
    assert!(t["precondition"].is_null(), "WSAT starts from the purge");
    assert_eq!(num(&v, "wsat_bytes"), (4 * CAPACITY) as f64);
    let rs = rounds(t);
    let at = |i: usize| num(&rs[i], "written_bytes");
    let n = rs.len();
    assert_eq!(at(n - 1), served.written.load(Ordering::SeqCst) as f64);
    assert!(at(n - 1) >= (4 * CAPACITY) as f64 && at(n - 2) < (4 * CAPACITY) as f64);
    let iops: Vec<f64> = rs.iter().map(|r| num(r, "tracking")).collect();
    let seen = seen(rs, 0, &served, CLIFF);
    check_rates(rs, &seen);
    // The first round that met the cliff, by the server's count: not the first round (the
    // server bounds it at 1000 IOPS, 0.8 MB in 200 ms), and every later round met only the
    // slow service. Where it falls by bytes is where halfpower's IOPS falls: each round's IOPS
    // is the server's own rate over the same writes (check_rates).
    let drop = seen
        .iter()
        .position(|s| s.slow > 0)
        .expect("no round met the cliff");
    eprintln!(
        "IOPS {iops:.0?}; the cliff in round {} from {:.0} bytes, at {CLIFF}",
        drop + 1,
        if drop >= 1 { at(drop - 1) } else { 0.0 }
    );
    assert!(drop >= 1, "the first round runs before the cliff");
    assert!(
        at(drop - 1) <= CLIFF as f64 && (CLIFF as f64) < at(drop),
        "cliff at {CLIFF}, the round {}..{}",
        at(drop - 1),
        at(drop)
    );
    assert!(
        seen[drop + 1..].iter().all(|s| s.slow == s.writes),
        "{seen:?}"
    );
    // WSAT judges its last five rounds by PTS's rule, worked here from their IOPS: max − min
    // within 20 % of their mean and the least-squares line's rise across them within 10 %. The
    // disk is flat past the cliff, but five 200-ms rounds of about 60 writes each can miss the
    // rule on a busy host (…, 323, 313, 319, 313, 281: a fall of 11 %), so the
    // verdict is checked against the rounds rather than assumed.
    let five = &iops[n - 5..];
    let flat = crate::common::pts::pts_steady(five);
    assert_eq!(t["steady"]["reached"], flat, "{five:?}: {t}");
    assert_eq!(num(t, "steady.window.last_round") as usize, n);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("WSAT: IOPS against bytes written"));
    assert!(page.contains("WSAT: IOPS against time"));
    // `halfpower report` reads the document back and draws the same plots.
    let json = dir.path().join("wsat.json");
    std::fs::write(&json, v.to_string()).unwrap();
    let again = dir.path().join("again.html");
    let out = halfpower()
        .args([
            "report",
            json.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&again).unwrap();
    assert!(page.contains("WSAT: IOPS against bytes written"));
    assert!(page.contains("measurement window: rounds"));
}

/// A target that refuses the purge is said to be unpurged, with the system's answer, and the
/// disk's own count shows its earlier writes were kept: halfpower claims no purge. The window
/// matrix is the mean of the window's rounds cell by cell, the tracking variable the tracking
/// cell's, and the bytes written add up (arithmetic on the document's own numbers).
#[test]
fn an_unsupported_purge_is_said_and_the_matrix_adds_up() {
    let _turn = common::exclusive();
    const CAPACITY: u64 = 1 << 20;
    let server = Server::new(CAPACITY, Duration::from_micros(200));
    let served = server.served.clone();
    let Some(fs) = mount_fs_with(server, "halfpower-nopurge", 1) else {
        return;
    };
    let disk = fs.disk();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&disk)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &[7u8; 8192]))
        .unwrap();
    let before = served.written.load(Ordering::SeqCst);
    assert_eq!(before, 8192);
    let v = pts(&[
        &disk,
        "--test",
        "iops",
        "--bs",
        "4k,8k",
        "--mix",
        "50/50,0/100",
        "--round",
        "100ms",
        "--threads",
        "1",
        "--qd",
        "2",
    ]);
    let t = &v["tracks"][0];
    assert_eq!(t["purge"]["state"], "not-supported", "{}", t["purge"]);
    assert!(
        t["purge"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("not supported")),
        "{}",
        t["purge"]
    );
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("NOT purged")),
        "{}",
        v["warnings"]
    );
    assert_eq!(served.purges.load(Ordering::SeqCst), 0);
    let rs = rounds(t);
    // The disk kept the 8 KiB written before: nothing was purged.
    assert_eq!(
        served.written.load(Ordering::SeqCst) - before,
        num(rs.last().unwrap(), "written_bytes") as u64
    );
    let mut written = num(t, "precondition.written_bytes");
    for r in rs {
        let cells = r["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 4, "2 mixes × 2 sizes");
        written += cells.iter().map(|c| num(c, "written_bytes")).sum::<f64>();
        assert_eq!(num(r, "written_bytes"), written);
        let track = cells
            .iter()
            .find(|c| c["bs_bytes"] == 4096 && c["mix"] == 0)
            .unwrap();
        assert_eq!(num(r, "tracking"), num(track, "iops"));
    }
    let (first, last) = (
        num(t, "steady.window.first_round"),
        num(t, "steady.window.last_round"),
    );
    assert_eq!(last - first, 4.0);
    for avg in t["window_matrix"].as_array().unwrap() {
        let of: Vec<&Value> = rs
            .iter()
            .filter(|r| (first..=last).contains(&num(r, "round")))
            .map(|r| {
                r["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["bs_bytes"] == avg["bs_bytes"] && c["mix"] == avg["mix"])
                    .unwrap()
            })
            .collect();
        assert_eq!(of.len(), 5);
        let mean = of.iter().map(|c| num(c, "iops")).sum::<f64>() / 5.0;
        assert!((num(avg, "iops") - mean).abs() <= 1e-9 * mean, "{avg}");
        let max = of
            .iter()
            .map(|c| num(c, "latency_us.max"))
            .fold(0.0, f64::max);
        assert_eq!(num(avg, "max_latency_us"), max);
    }
}

/// Refused before anything runs, exit 2, naming the value and what is accepted: an existing
/// target without --destroy-data (left as it was), a matrix without its tracking cell, a mix
/// that does not add up, and an outstanding I/O the latency test fixes.
#[test]
fn refusals_name_the_value_and_touch_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = common::filled_file(dir.path(), "data", 1 << 20);
    let path = f.to_str().unwrap();
    let out = halfpower()
        .args([
            "pts",
            path,
            "--test",
            "iops",
            "--allow-write",
            "--round",
            "100ms",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--destroy-data"), "{err}");
    assert_eq!(std::fs::read(&f).unwrap(), vec![0xa5u8; 1 << 20]);
    let base = ["pts", path, "--allow-write", "--destroy-data"];
    let cases: [(&[&str], &str); 5] = [
        (&["--test", "iops", "--bs", "8k,64k"], "--bs '8k,64k'"),
        (&["--test", "iops", "--mix", "65/35"], "--mix '65/35'"),
        (&["--test", "iops", "--mix", "60/30"], "'60/30'"),
        (&["--test", "latency", "--qd", "4"], "--qd '4'"),
        (&["--test", "wsat", "--mix", "100/0"], "--mix '100/0'"),
    ];
    for (args, want) in cases {
        let mut all = base.to_vec();
        all.extend(args);
        let err = usage_error(&all);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&f).unwrap(), vec![0xa5u8; 1 << 20]);
}

/// `sweep --steady=pts`: a point ends once its last five one-second rounds meet PTS's rule, so
/// never before 5 s of measuring (the null engine: halfpower's own steady pace).
#[test]
fn sweep_points_stop_on_pts_steady_state() {
    let _turn = common::exclusive();
    let v = stdout_json(&[
        "sweep",
        "null",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "1",
        "--rate-iops",
        "20000",
        "--steady=pts",
        "--time",
        "8s",
        "--json",
        "-",
        "--quiet",
    ]);
    assert_eq!(v["steady_pts"], true);
    assert!(v["steady_pct"].is_null());
    let p = &v["points"][0];
    let secs = num(p, "seconds");
    assert_eq!(p["steady"], true, "{p}");
    // Fifty 100-ms windows of the watcher's clock; the phase's seconds come from the workers'
    // own clock reads at its edges, which may fall within a millisecond inside the watcher's
    // (measured: 4.9999997 s).
    assert!((5.0 - 1e-3..8.0).contains(&secs), "{secs} s");
}

/// `run --steady=pts`: the same rule ends a run, so never before five one-second rounds of
/// measuring, and before --time on the null engine's steady pace.
#[test]
fn run_stops_on_pts_steady_state() {
    let _turn = common::exclusive();
    let v = stdout_json(&[
        "run",
        "null",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--rate-iops",
        "20000",
        "--steady=pts",
        "--time",
        "8s",
        "--json",
        "-",
        "--quiet",
    ]);
    let r = &v["results"];
    let secs = num(r, "seconds");
    assert_eq!(r["steady"]["reached"], true, "{}", r["steady"]);
    // Fifty 100-ms windows of the watcher's clock; the phase's seconds come from the workers'
    // own clock reads at its edges, which may fall within a millisecond inside the watcher's
    // (measured: 4.9999997 s).
    assert!((5.0 - 1e-3..8.0).contains(&secs), "{secs} s");
    let err = usage_error(&[
        "run",
        "null",
        "--engine",
        "null",
        "--steady=pts",
        "--bytes",
        "1m",
    ]);
    assert!(err.contains("--steady 'pts'"), "{err}");
}
