//! Memory does not grow with run length (issue 12). In tests/alone: a child's peak RSS
//! includes what it inherited from the test process before exec, so nothing else may run (and
//! allocate) in this process meanwhile.

use crate::common;

use common::halfpower_spawnable;

/// Starts `halfpower run null --engine null --time SECS`.
fn start(secs: &str) -> std::process::Child {
    halfpower_spawnable()
        .args([
            "run", "null", "--engine", "null", "--time", secs, "--warmup", "0",
        ])
        .args(["--json", "-", "--quiet"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Peak RSS (KiB) of a child started by [`start`], from wait4.
// The child is reaped by wait4, which also gives its resource usage; Child::wait cannot.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(child: std::process::Child) -> i64 {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for the child spawned above; status and ru are writable.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(rc, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    ru.ru_maxrss
}

/// Memory does not grow with run length: the per-second series keeps a few dozen bytes per
/// second, not a 36 KiB histogram, so a run costs at most 17 KiB more peak RSS per second
/// (512 KiB over the 30 s between these runs; a histogram per second would cost 1080 KiB).
/// Peak RSS of the same run varies by up to 300 KiB from run to run (thread arenas, measured
/// 2026-11-25: 6800–7096 KiB over six 2-s runs), so each length runs twice and the smaller peak
/// counts. All four start together (from the same state of this process) and run side by side.
#[test]
fn memory_does_not_grow_with_run_length() {
    let _turn = crate::alone();
    let children = [start("34s"), start("34s"), start("4s"), start("4s")];
    let peaks: Vec<i64> = children.into_iter().map(peak_rss_kib).collect();
    let (long, short) = (peaks[0].min(peaks[1]), peaks[2].min(peaks[3]));
    assert!(
        long - short <= 30 * 512 / 30,
        "peak RSS {short} KiB after 4 s, {long} KiB after 34 s (each the smaller of two runs: {peaks:?})"
    );
}
