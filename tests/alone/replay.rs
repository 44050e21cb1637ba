//! `halfpower replay` against answers it did not compute: traces of known shape replayed on a
//! loop device over RAM (the achieved rate and duration are the trace's, bursts are as deep as
//! written), the headroom on the disk of known queueing (tests/common/fuse.rs: M/D/1, whose
//! mean response time doubles from ρ = 1/3 at ρ = 0.75, a speed of 2.25), and bad traces.

use crate::common;
use common::fuse::{Server, mount_fs_with};
use common::{LoopDev, halfpower, num, stdout_json};
use std::time::Duration;

/// Writes a halfpower trace of `times` (µs), reads of 4 KiB spread over 64 MiB.
fn trace(dir: &std::path::Path, name: &str, times: &[u64]) -> String {
    let mut s = String::from("# halfpower trace v1\n");
    for (i, t) in times.iter().enumerate() {
        s.push_str(&format!(
            "{t} R {} 4096\n",
            (i as u64 * 7919 % 16_000) * 4096
        ));
    }
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p.to_str().unwrap().to_string()
}

fn replay(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["replay"];
    all.extend(args);
    all.extend(["--json", "-", "--quiet"]);
    stdout_json(&all)
}

#[test]
fn even_and_bursty_traces_replay_at_their_own_pace() {
    let Some(lo) = LoopDev::new("replay", 64 << 20) else {
        return;
    };
    let _turn = crate::alone();
    // Judged on an attempt the product's probe saw quiet (common::judged_when_quiet); the
    // lateness bound also adds what the host did during its own replay.
    common::judged_when_quiet(2, |attempt| {
        let mut judge: Vec<Box<dyn FnOnce()>> = Vec::new();
        let dir = tempfile::tempdir().unwrap();
        // 250 IOPS evenly spaced for 5 s; 48-request bursts every 200 ms for 5 s. (The bounds
        // below hold rates and spans within 1 %, where one response time on this device is a
        // few hundredths of a %, and the lateness's mean: 5 s hold 1250 and 1200 requests.)
        let even: Vec<u64> = (0..1250).map(|i| i * 4000).collect();
        let bursts: Vec<u64> = (0..25 * 48).map(|i| (i / 48) * 200_000).collect();
        for (name, times, depth) in [("even", &even, 1.0), ("bursts", &bursts, 48.0)] {
            let t = trace(dir.path(), name, times);
            let html = dir.path().join(format!("{name}.html"));
            // The host's own lateness for a thread pacing itself at the trace's rate, meanwhile.
            let probe = common::HostNoise::start(std::time::Duration::from_millis(4));
            let v = replay(&[&t, lo.path(), "--html", html.to_str().unwrap()]);
            let noise = probe.stop();
            // The report draws response time against offered load, the trace's point marked and
            // the doubling line drawn.
            let page = std::fs::read_to_string(&html).unwrap();
            let p = v["points"][0].clone();
            let n = times.len() as f64;
            let span_s = *times.last().unwrap() as f64 / 1e6;
            judge.push(Box::new(move || {
            assert!(
                page.contains("<svg") && page.contains("double the trace"),
                "{name}"
            );
            let (achieved, asked, secs) = (
                p["achieved_iops"].as_f64().unwrap(),
                p["asked_iops"].as_f64().unwrap(),
                p["seconds"].as_f64().unwrap(),
            );
            eprintln!(
                "{name}: asked {asked:.1} achieved {achieved:.1} IOPS over {secs:.3} s (trace {span_s} s), late p99 {} µs, max in flight {}",
                p["late_us"]["p99"], p["max_inflight"]
            );
            assert_eq!(p["issued"].as_f64().unwrap(), n);
            assert!((asked * span_s / n - 1.0).abs() < 1e-9);
            // The window runs to the last completion: the span plus one response time.
            assert!(
                (secs / span_s - 1.0).abs() < 0.01,
                "{name}: {secs} s for {span_s} s"
            );
            assert!(
                (achieved / asked - 1.0).abs() < 0.01,
                "{name}: {achieved} of {asked}"
            );
            // On time as a whole: the mean lateness within 0.5 ms of what the host makes any
            // thread pacing itself meanwhile (the probe). The mean, not the p99: one host stall
            // of a few ms during one burst makes all its 48 requests (2 % of the trace) late by
            // it, which moves the p99 to the stall's length but the mean by 2 % of it
            // (measured here: quiet runs 104 µs mean, 176 µs p99; one stalled
            // burst 339 µs mean, 6 ms p99, the probe's own p99 0.8 ms).
            eprintln!("{name}: host {noise:?}");
            let late = &p["late_us"];
            assert!(
                late["mean"].as_f64().unwrap() < 500.0 + noise.late_mean_us,
                "{name}: late mean {} µs, the probe's {} µs: {p}",
                late["mean"],
                noise.late_mean_us
            );
            // A burst of 48 due at once is 48 in flight (the loop device cannot finish one before
            // the 48th is issued: each takes tens of µs, issuing 48 a few µs).
            let inflight = p["max_inflight"].as_f64().unwrap();
            if depth > 1.0 {
                assert_eq!(inflight, depth, "{p}");
            } else {
                // Evenly spaced 4 ms apart, a request overlaps the next ones only while it takes
                // longer than that, or while the worker, stalled, has not yet reaped it when
                // the requests due meanwhile go out: at most 1 + ⌈(its longest time + the
                // latest issue) / 4 ms⌉ in flight (2 on a quiet host).
                let longest = p["service_us"]["max"].as_f64().unwrap();
                let latest = late["max"].as_f64().unwrap();
                assert!(
                    inflight <= 1.0 + ((longest + latest) / 4000.0).ceil(),
                    "{p}"
                );
            }
            }));
        }
        if !attempt.quiet() {
            return false;
        }
        for j in judge {
            j();
        }
        true
    });
}

/// The realisation's own answer: the speed at which this trace's mean response time on a
/// single server of constant time `s` (Lindley's recursion) reaches double its own at speed 1.
fn lindley_doubling(times_s: &[f64], s: f64) -> f64 {
    let mean = |speed: f64| {
        let (mut free, mut sum) = (0.0f64, 0.0);
        for t in times_s {
            let a = t / speed;
            free = free.max(a) + s;
            sum += free - a;
        }
        sum / times_s.len() as f64
    };
    let goal = 2.0 * mean(1.0);
    let (mut lo, mut hi) = (1.0, 4.0);
    for _ in 0..50 {
        let mid = (lo + hi) / 2.0;
        if mean(mid) < goal { lo = mid } else { hi = mid }
    }
    lo
}

#[test]
fn headroom_of_a_poisson_trace_at_a_third_of_md1_is_2_25() {
    let _turn = crate::alone();
    // Both bounds add what the host did during the attempt, so the one attempt is judged
    // however the host behaved (measuring again would only double the test's 50 s).
    common::judged_when_quiet(1, |attempt| {
        // S = 5 ms: long beside the host's stalls of 1–8 ms (tests/alone/open_loop.rs).
        let server = Server::new(64 << 20, Duration::from_millis(5));
        let served = server.served.clone();
        let Some(fs) = mount_fs_with(server, "halfpower-md1", 1) else {
            return true;
        };
        let disk = fs.disk();
        // S with the FUSE path: the server's own count while saturated.
        served.reset();
        let _ = common::run_json(&[
            "run", &disk, "--rw", "randread", "--qd", "4", "--time", "2s", "--warmup", "0",
        ]);
        let s = 1.0 / served.rate();
        // Poisson arrivals at ρ = 1/3 for 10 s (about 650 requests), from this test's own
        // generator (xorshift): this realisation doubles its mean on an exact M/D/1 at 2.14
        // (20 s: 2.20; theory 2.25), which the first bound below holds within its 10 %, and the
        // second is judged against this realisation itself.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut t = 0.0;
        let mut times_s = Vec::new();
        while t < 10.0 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            t += -(1.0 - u).ln() * 3.0 * s;
            times_s.push(t);
        }
        let dir = tempfile::tempdir().unwrap();
        let us: Vec<u64> = times_s.iter().map(|t| (t * 1e6) as u64).collect();
        let tr = trace(dir.path(), "poisson", &us);
        // A bracket of 10 %, not the default 2 %: the bounds below are 8–10 %, and linear
        // interpolation across a 10 % stretch of this smooth curve is off by about 0.5 % (M/D/1's
        // mean read off its chord from speed 2.1 to 2.31 doubles at 2.238, the curve at 2.25);
        // the narrower points per figure cost a minute of CI's 20.
        // The mean's doubling only (`--headroom-of mean`): the 99th percentile's bisection
        // took three more replays (18 of the test's 51 s) for a figure no bound here judges.
        let v = replay(&[
            &tr,
            &disk,
            "--headroom",
            "--headroom-precision",
            "10%",
            "--headroom-of",
            "mean",
        ]);
        assert_eq!(v["headroom"]["precision"], 0.1);
        assert_eq!(v["headroom"]["of"], "mean");
        assert!(v["headroom"]["speed_at_double_p99"].is_null());
        let h = &v["headroom"];
        for p in v["points"].as_array().unwrap() {
            eprintln!(
                "speed {:.3}: mean {:.0} µs, late {:.0} µs on average",
                num(p, "speed"),
                num(p, "latency_us.mean"),
                num(p, "late_us.mean")
            );
        }
        eprintln!("headroom {h}; warnings {}", v["warnings"]);
        let found = num(&v, "headroom.speed_at_double_mean");
        let own = lindley_doubling(&times_s, s);
        eprintln!(
            "S {:.3} ms, {} requests: headroom {found:.3} (this trace on an exact M/D/1: {own:.3}; \
             theory 2.25), p99 {}, limit {}, {} points",
            s * 1e3,
            times_s.len(),
            h["speed_at_double_p99"],
            h["limit"],
            v["points"].as_array().unwrap().len()
        );
        if !attempt.quiet() {
            return false;
        }
        // Plus what the host's stalls add: each delays the replaying thread and the server's
        // wake-ups by about the probe's mean lateness (tests/alone/open_loop.rs), a share of S
        // that moves the doubling point by less than itself.
        let host = 2.0 * attempt.noise().late_mean_us * 1e-6 / s;
        assert!(
            (found / 2.25 - 1.0).abs() < 0.10 + host,
            "{found} (host {host:.3})"
        );
        // The realisation's own answer leaves out what the FUSE path adds to each response (about
        // 5 % of S) and the service's variation under a busy host (c² up to 0.1): 8 %.
        assert!(
            (found / own - 1.0).abs() < 0.08 + host,
            "{found} against {own} (host {host:.3})"
        );
        assert_eq!(h["limit"], "device");
        true
    });
}

#[test]
fn bad_traces_and_targets_are_refused_with_exit_2() {
    let _turn = crate::alone();
    let Some(lo) = LoopDev::new("replay-bad", 8 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let cases = [
        (write("garbled", "hello\n"), vec![], "not a trace"),
        (
            write("truncated", "# halfpower trace v1\n0 R 0 4096\n10 R 40"),
            vec![],
            "line 3",
        ),
        (
            write(
                "two-files",
                "fio version 2 iolog\n/a read 0 4096\n/b read 0 4096\n",
            ),
            vec![],
            "2 files",
        ),
        (
            write("beyond", "# halfpower trace v1\n0 R 16777216 4096\n"),
            vec![],
            "--wrap",
        ),
        (
            write("untimed", "fio version 2 iolog\n/a read 0 4096\n"),
            vec!["--speed", "2"],
            "without times",
        ),
        (
            write("write", "# halfpower trace v1\n0 W 0 4096\n"),
            vec![],
            "--allow-write",
        ),
    ];
    for (path, extra, want) in cases {
        let out = halfpower()
            .args(["replay", &path, lo.path()])
            .args(&extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert!(err.contains(want), "{path}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // Wrapped, a trace beyond the target replays; writes as reads need no --allow-write; a
    // trace without times is issued at the stated depth and says so.
    let v = replay(&[
        &dir.path().join("beyond").to_string_lossy(),
        lo.path(),
        "--wrap",
    ]);
    assert_eq!(v["wrapped"], true);
    assert_eq!(
        (num(&v, "points.0.issued"), num(&v, "points.0.errors")),
        (1.0, 0.0)
    );
    let v = replay(&[
        &dir.path().join("write").to_string_lossy(),
        lo.path(),
        "--reads-only",
    ]);
    assert_eq!(v["reads_only"], true);
    assert_eq!(v["trace"]["reads"], 0);
    let untimed = write(
        "untimed4",
        &format!("fio version 2 iolog\n{}", "/a read 0 4096\n".repeat(64)),
    );
    let v = replay(&[&untimed, lo.path(), "--depth", "4"]);
    assert_eq!(v["trace"]["timed"], false);
    // Its requests were of /a, not of the target: said, naming both.
    assert!(
        v["warnings"].as_array().unwrap().iter().any(|w| {
            let w = w.as_str().unwrap();
            w.contains("/a;") && w.contains(lo.path())
        }),
        "{}",
        v["warnings"]
    );
    // All 64 reads, at most 4 in flight, as the text says.
    assert_eq!(num(&v, "points.0.issued"), 64.0);
    assert!(num(&v, "points.0.max_inflight") <= 4.0);
    let out = halfpower()
        .args(["replay", &untimed, lo.path(), "--depth", "4"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("as fast as --depth allowed"));
}
