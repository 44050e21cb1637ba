//! Memory does not grow with run length (issue 12). A test binary of its own: a child's peak
//! RSS includes what it inherited from the test process before exec, so nothing else may run
//! (and allocate) in this process meanwhile.

mod common;

use common::halfpower_spawnable;

/// Peak RSS (KiB) of `halfpower run null --engine null --time SECS`, from wait4.
// The child is reaped by wait4, which also gives its resource usage; Child::wait cannot.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(secs: &str) -> i64 {
    let child = halfpower_spawnable()
        .args([
            "run", "null", "--engine", "null", "--time", secs, "--warmup", "0",
        ])
        .args(["--json", "-", "--quiet"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
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
/// second, not a 36 KiB histogram, so 30 more seconds cost at most 512 KiB of peak RSS.
#[test]
fn memory_does_not_grow_with_run_length() {
    let short = peak_rss_kib("10s");
    let long = peak_rss_kib("40s");
    assert!(
        long - short <= 512,
        "peak RSS {short} KiB after 10 s, {long} KiB after 40 s"
    );
}
