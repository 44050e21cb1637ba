//! An atomic write is durable: strace's record of the calls shows the temporary file synced,
//! renamed over the result, and the directory synced after the rename, so a power cut right
//! after a run keeps the result (and a verify state) it reported written.

use crate::common;

#[test]
fn the_directory_is_synced_after_the_rename() {
    if !common::have("strace", "-V") {
        common::unavailable("strace (apt-get install strace)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let log = dir.path().join("strace.log");
    let status = std::process::Command::new("strace")
        .args([
            "-f",
            "-e",
            "trace=openat,fsync,fdatasync,rename,renameat,renameat2",
            "-o",
        ])
        .arg(&log)
        .arg(assert_cmd::cargo::cargo_bin("halfpower"))
        .args([
            "run", "null", "--engine", "null", "--bytes", "4k", "--warmup", "0",
        ])
        .args(["--quiet", "--json"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let d = dir.path().to_str().unwrap();
    // openat(AT_FDCWD, "DIR/.r.json.PID.tmp", …) = FD
    let fd_of = |l: &str| {
        l.rsplit("= ")
            .next()
            .and_then(|s| s.trim().parse::<i64>().ok())
    };
    let tmp_open = lines
        .iter()
        .position(|l| l.contains("openat(") && l.contains(".r.json.") && l.contains(".tmp\""))
        .unwrap_or_else(|| panic!("no temporary file opened:\n{text}"));
    let tmp_fd = fd_of(lines[tmp_open]).unwrap();
    let rename = lines
        .iter()
        .position(|l| l.contains("rename") && l.contains(&format!("{d}/r.json\"")))
        .unwrap_or_else(|| panic!("no rename onto the result:\n{text}"));
    let synced = |fd: i64, from: usize, to: usize| {
        lines[from..to]
            .iter()
            .any(|l| l.contains(&format!("fsync({fd})")) || l.contains(&format!("fdatasync({fd})")))
    };
    assert!(
        synced(tmp_fd, tmp_open, rename),
        "temporary file not synced before the rename:\n{text}"
    );
    let dir_open = lines[rename..]
        .iter()
        .position(|l| l.contains("openat(") && l.contains(&format!("\"{d}\"")))
        .map(|i| i + rename)
        .unwrap_or_else(|| panic!("the directory was not opened after the rename:\n{text}"));
    let dir_fd = fd_of(lines[dir_open]).unwrap();
    assert!(
        synced(dir_fd, dir_open, lines.len()),
        "the directory was not synced after the rename:\n{text}"
    );
    assert!(out.exists());
}
