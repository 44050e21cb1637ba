//! The open loop against a disk of known queueing (tests/common/fuse.rs, [`Server`]): one file
//! served one request at a time in a constant time S. Under Poisson arrivals at utilisation ρ
//! it is an M/D/1 queue, whose mean response time is R = S (1 + ρ / (2 (1 − ρ))) (Pollaczek–
//! Khinchine with a constant service time), plus the FUSE path's own delay outside the server
//! (measured at a rate so low that nothing queues). A closed loop at the same rate never finds
//! a queue (each request waits for the one before) and reads about S: coordinated omission.

use crate::common;
use common::fuse::{Server, mount_fs_with};
use common::{num, run_json};
use std::time::Duration;

/// The server's time per request, ms: long beside the FUSE path's own cost (tens of µs) and
/// beside the host's stalls (a VM whose host steals 2–6 % of the CPU holds a thread now and
/// then for 1–8 ms: at S = 2 ms that moved the mean by 10–14 %).
const S_MS: u64 = 5;

#[test]
fn open_loop_poisson_arrivals_meet_the_md1_queue() {
    let _turn = crate::alone();
    // Judged on an attempt the product's probe saw quiet (common::judged_when_quiet); each
    // bound also adds what the host did during its own run. A host that interferes makes the
    // light run's path delay its own (CI, steal 5 %: 1583 µs against 212-262 µs, its probe
    // late 145 µs on average), so a disturbed first attempt is measured again.
    common::judged_when_quiet(2, |attempt| {
        let server = Server::new(64 << 20, Duration::from_millis(S_MS));
        let served = server.served.clone();
        let Some(fs) = mount_fs_with(server, "halfpower-md1", 1) else {
            return true;
        };
        // Every bound is judged once the attempt has measured (common::Attempt::quiet).
        let mut judge: Vec<Box<dyn FnOnce()>> = Vec::new();
        let disk = fs.disk();
        // S with the FUSE path included: the rate the server itself counts while saturated.
        // The host's lateness meanwhile (and during the light run below) inflates what is
        // measured of S by about its mean per request.
        let s_probe = common::HostNoise::start(Duration::from_millis(S_MS));
        served.reset();
        let sat = run_json(&[
            "run", &disk, "--rw", "randread", "--qd", "4", "--time", "2s", "--warmup", "0",
        ]);
        let s = 1.0 / served.rate();
        let s_own = served.mean_s();
        let (cv2, hp_sat) = (
            served.second_moment_s2() / (s_own * s_own) - 1.0,
            num(&sat, "results.total.iops"),
        );
        eprintln!(
            "S {:.3} ms (saturated: {:.1}/s counted by the server, {hp_sat:.1} IOPS by halfpower); \
             the handler's own {:.3} ms, squared coefficient of variation {cv2:.4}",
            s * 1e3,
            1.0 / s,
            s_own * 1e3
        );
        judge.push(Box::new(move || {
            assert!(
                (hp_sat * s - 1.0).abs() < 0.02,
                "halfpower {hp_sat} IOPS, server {}",
                1.0 / s
            )
        }));
        // The path's own delay outside the server: what a light load (ρ = 0.1, where M/D/1 adds
        // 5.6 % of S) measures beyond the queue's answer. It is mostly the wake-up of the idle
        // server thread (a closed loop, whose next request meets a server that just replied, does
        // not pay it): 212–262 µs measured on these VMs (CI and a developer's). The
        // bound only keeps it from swamping the queueing term being tested (≥ 0.21 S from ρ 0.3).
        // Pollaczek–Khinchine: R = S (1 + ρ (1 + c²) / (2 (1 − ρ))), c² the squared coefficient of
        // variation of the service, which the server measures while the run goes on (0: M/D/1;
        // a busy host's late wake-ups make it 0.03–0.16 instead of 0.0003).
        let md1 = |rho: f64| s * (1.0 + rho / (2.0 * (1.0 - rho)));
        let mg1 = |rho: f64, c2: f64| s * (1.0 + rho * (1.0 + c2) / (2.0 * (1.0 - rho)));
        let light = (0.1 / s).round().to_string();
        let alone = run_json(&[
            "run",
            &disk,
            "--rw",
            "randread",
            "--arrivals",
            "poisson",
            "--rate-iops",
            &light,
            "--time",
            "8s",
            "--warmup",
            "0",
        ]);
        let rho_light = num(&alone, "results.total.iops") * s;
        let d = num(&alone, "results.read.latency_us.mean") / 1e6 - md1(rho_light);
        let s_noise = s_probe.stop();
        // S and d rest on this stretch: its host counts for the attempt.
        attempt.include(&s_noise);
        eprintln!(
            "FUSE path outside the server: {:.1} µs (host {s_noise:?})",
            d * 1e6
        );
        // A host late by L on average while S was measured saturated, and less so during the
        // light run, makes S look up to about 2 L longer than the light run's (a compiler
        // beside the test: S 5.53 ms saturated, d = -100 µs with the probe 64 µs late): d's
        // floor is -2 L, its ceiling 0.2 S + 2 L.
        let host_s = 2.0 * s_noise.late_mean_us * 1e-6;
        judge.push(Box::new(move || {
            assert!(
                (-host_s..0.2 * s + host_s).contains(&d),
                "path delay {d} s (host {host_s} s)"
            )
        }));
        // The known answer is this realisation's own queue: the due times halfpower drew
        // (`--io-log`: completion minus latency from due) fed through Lindley's recursion with
        // the server's S, plus the path's d. So the run's length buys no precision against the
        // queue's own slow wanderings (its waits are correlated over about 1 / (1 − √ρ)²
        // services, ~20 S at ρ 0.6: 20 s of one realisation gave 0.87-1.06 of the M/G/1
        // expectation on four attempts), only enough requests to fill the queue: ρ 0.3 over
        // 6 s, ρ 0.6 over 10 s (the queue's term 0.21 and 0.75 times S).
        for (rho, secs) in [(0.3, 6), (0.6, 10)] {
            let rate = (rho / s).round().to_string();
            let t = format!("{secs}s");
            served.reset();
            let probe = common::HostNoise::start(Duration::from_millis(S_MS));
            let dir = tempfile::tempdir().unwrap();
            let log = dir.path().join("io.csv");
            let open = run_json(&[
                "run",
                &disk,
                "--rw",
                "randread",
                "--arrivals",
                "poisson",
                "--rate-iops",
                &rate,
                "--time",
                &t,
                "--warmup",
                "1s",
                "--io-log",
                log.to_str().unwrap(),
            ]);
            let noise = probe.stop();
            // The server's own time per request over this run, and the path's share of a
            // saturated cycle beside it: S as this stretch of the host gave it (S measured
            // saturated in a noisier stretch, 5.37 ms against 5.1-5.2, put M/G/1 12 % above a
            // run at ρ 0.6: the queue's term grows as S / (1 − ρ)).
            let s_run = served.mean_s() + (s - s_own);
            let closed = run_json(&[
                "run",
                &disk,
                "--rw",
                "randread",
                "--rate-iops",
                &rate,
                "--time",
                "2s",
                "--warmup",
                "0",
            ]);
            // The utilisation of this realisation of the arrivals (a fixed seed): its own count.
            let achieved = num(&open, "results.total.iops");
            let rho_real = achieved * s;
            let own = served.mean_s();
            let c2 = (served.second_moment_s2() - own * own) / (s * s);
            let r_md1 = mg1(rho_real, c2) + d;
            let r_own = lindley_mean_s(&log, s_run) + d;
            let got = num(&open, "results.read.latency_us.mean") / 1e6;
            let shut = num(&closed, "results.read.latency_us.mean") / 1e6;
            let late = num(&open, "results.open_loop.late");
            eprintln!(
                "ρ {rho} asked, {rho_real:.3} realised ({achieved:.1} IOPS): open loop {:.3} ms, \
                 its own arrivals' queue at S {:.3} ms: {:.3} ms ({:.3}), M/G/1 (c² {c2:.4}) {:.3} \
                 ms; closed loop {:.3} ms ({:.2} of M/G/1); {late} late; host {noise:?}",
                got * 1e3,
                s_run * 1e3,
                r_own * 1e3,
                got / r_own,
                r_md1 * 1e3,
                shut * 1e3,
                shut / r_md1,
            );
            // Within 10 %, plus what the host's stalls add meanwhile: each delays the issuing
            // thread and the server's wake-ups by about the probe's own mean lateness, which the
            // path delay d, measured in another stretch of time, does not hold (a host stealing
            // 4–6 % of the CPU moved the ratio by 12–16 %, its probe late by 170–400 µs on
            // average).
            let tol = 0.10 + 2.0 * noise.late_mean_us * 1e-6 / r_own;
            // At most 2 % more requests over 1 ms late than 1.5 times the share of the probe's
            // wake-ups the host made that late: the worker waits in the engine rather than in a
            // plain sleep and shares the two CPUs with the FUSE server's thread (a host
            // stealing 4 % made 4.5 % of the probe's wake-ups late and 6.4 % of the requests).
            let allowed = (0.02 + 1.5 * noise.over_1ms_share) * achieved * secs as f64;
            judge.push(Box::new(move || {
                assert!(
                    (got / r_own - 1.0).abs() < tol,
                    "ρ {rho}: {got} s against its arrivals' queue {r_own} s (within {tol})"
                );
                // The closed loop at this rate never queues: it reads the lone request's time.
                assert!((shut / s - 1.0).abs() < 0.10, "closed loop {shut} s");
                assert!(
                    shut / r_md1 < 1.0 - rho / 3.0,
                    "closed loop {shut} s, M/D/1 {r_md1} s"
                );
                assert!(late <= allowed, "{late} late, {allowed} allowed");
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

/// The mean response time of the queue the run's own arrivals make at a single server of
/// constant service `s`, s: the due times from an `--io-log` (completion minus the latency from
/// due), in order, through Lindley's recursion W' = max(0, W + s − gap), each response W + s.
fn lindley_mean_s(log: &std::path::Path, s: f64) -> f64 {
    let text = std::fs::read_to_string(log).unwrap();
    let mut due: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',');
            let t: f64 = f.next().unwrap().parse().unwrap();
            let lat: f64 = f.next().unwrap().parse().unwrap();
            (t - lat) / 1e9
        })
        .collect();
    due.sort_by(f64::total_cmp);
    assert!(
        due.len() > 100,
        "{} requests in {}",
        due.len(),
        log.display()
    );
    let (mut w, mut sum) = (0.0f64, 0.0);
    for (i, t) in due.iter().enumerate() {
        if i > 0 {
            w = (w + s - (t - due[i - 1])).max(0.0);
        }
        sum += w + s;
    }
    sum / due.len() as f64
}
