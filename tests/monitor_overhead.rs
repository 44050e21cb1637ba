//! The monitor's own cost, checked on every CI run: 20 one-second intervals over all devices
//! must take less than 0.5 % of one core (user + system CPU of the process, from getrusage of
//! the waited-for child; process start included). This file holds one test so that no other
//! child process of the test binary counts in RUSAGE_CHILDREN. docs/monitor.md has the 60 s
//! figure measured by bench/monitor-overhead.sh.

mod common;

use common::halfpower_spawnable;
use std::process::Stdio;
use std::time::Instant;

fn children_cpu_s() -> f64 {
    // SAFETY: getrusage fills the plain struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: u is a valid, writable rusage.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) }, 0);
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[test]
fn monitor_costs_under_half_a_percent_of_one_core() {
    let before = children_cpu_s();
    let t0 = Instant::now();
    let status = halfpower_spawnable()
        .args([
            "monitor",
            "--interval",
            "1s",
            "--count",
            "20",
            "--json",
            "-",
        ])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    let wall = t0.elapsed().as_secs_f64();
    assert!(status.success());
    let cpu = children_cpu_s() - before;
    let share = cpu / wall * 100.0;
    eprintln!("monitor: {cpu:.4} CPU-s over {wall:.2} s = {share:.3} % of one core");
    assert!(wall >= 19.0, "{wall}");
    assert!(share < 0.5, "{share:.3} % of one core");
}
