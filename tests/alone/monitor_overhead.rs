//! The monitor's own cost, checked on every CI run: 10 one-second intervals over all devices
//! must take less than 0.5 % of one core (user + system CPU of the process, from getrusage of
//! the child, from wait4; process start included). Alone: beside the suite's other tests its
//! CPU time read 0.87 % of a core; by itself 0.30 % over 10 intervals and 0.35 % over 20 (about
//! 3 ms an interval, so the share does not fall with a longer run).
//! docs/monitor.md has the 60 s figure measured by bench/monitor-overhead.sh.

use crate::common;

use common::halfpower_spawnable;
use std::process::Stdio;
use std::time::Instant;

/// CPU seconds (user + system) of `child` once it has exited, from wait4, and whether it
/// exited with status 0.
// The child is reaped by wait4, which also gives its resource usage; Child::wait cannot.
#[allow(clippy::zombie_processes)]
fn cpu_s_of(child: std::process::Child) -> (f64, bool) {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for the child spawned by the caller; status and u are writable.
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut u) }, pid);
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (tv(u.ru_utime) + tv(u.ru_stime), ok)
}

#[test]
fn monitor_costs_under_half_a_percent_of_one_core() {
    let _turn = crate::alone();
    let t0 = Instant::now();
    let child = halfpower_spawnable()
        .args([
            "monitor",
            "--interval",
            "1s",
            "--count",
            "10",
            "--json",
            "-",
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (cpu, ok) = cpu_s_of(child);
    let wall = t0.elapsed().as_secs_f64();
    assert!(ok);
    let share = cpu / wall * 100.0;
    eprintln!("monitor: {cpu:.4} CPU-s over {wall:.2} s = {share:.3} % of one core");
    assert!(wall >= 9.0, "{wall}");
    assert!(share < 0.5, "{share:.3} % of one core");
}
