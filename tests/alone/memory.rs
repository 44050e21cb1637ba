//! Memory does not grow with run length (issue 12). In tests/alone: two runs of 14 s side by
//! side, nothing else beside them.

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

/// Resident memory (KiB) of a running child, from /proc.
fn rss_kib(child: &std::process::Child) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Memory does not grow with run length: the per-second series keeps a few dozen bytes per
/// second, not a histogram, so a running process's resident memory stays put once the run is
/// under way. Measured within one process, from its 5th to its 13th second: the histograms'
/// pages are then mostly there (a histogram is a fixed array whose pages the kernel maps as its
/// buckets are first hit; a run that meets a longer host stall later maps a few more).
/// Measured here: 4 KiB from the 8th to the 26th second. A histogram kept per second would map
/// at least one page (4 KiB) a second, 32 KiB over these 8 s (injected: 1012 KiB over 28 s);
/// the bound is half that, 16 KiB.
/// Two runs side by side, the smaller growth counts (a thread arena can grow once in either).
#[test]
fn memory_does_not_grow_with_run_length() {
    let _turn = crate::alone();
    let mut children = [start("14s"), start("14s")];
    std::thread::sleep(std::time::Duration::from_secs(5));
    let early: Vec<i64> = children.iter().map(rss_kib).collect();
    std::thread::sleep(std::time::Duration::from_secs(8));
    let late: Vec<i64> = children.iter().map(rss_kib).collect();
    for c in &mut children {
        assert!(c.wait().unwrap().success());
    }
    let growth = (late[0] - early[0]).min(late[1] - early[1]);
    assert!(
        growth <= 16,
        "resident memory grew {growth} KiB from the 5th to the 13th second \
         (at 5 s {early:?} KiB, at 13 s {late:?} KiB)"
    );
}
