//! Helpers shared by the integration tests: running the binary, loop devices over /dev/shm that
//! are always detached, and reading JSON results.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The halfpower binary under test.
pub fn halfpower() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("halfpower").unwrap()
}

/// The halfpower binary as a plain `std::process::Command`, for runs that go on in the
/// background while the test does something else.
pub fn halfpower_spawnable() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("halfpower"))
}

/// Runs halfpower with `args` plus `--json -` and parses stdout as the whole JSON document.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--json", "-", "--quiet"]);
    stdout_json(&all)
}

/// Runs halfpower with exactly `args`, asserts success and parses stdout as one JSON document.
pub fn stdout_json<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> serde_json::Value {
    let out = halfpower().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "halfpower {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Whether the tests run as root (loop devices need it).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A loop device over a file in /dev/shm, detached and removed on drop (also when a test fails).
pub struct LoopDev {
    pub dev: PathBuf,
    backing: PathBuf,
}

impl LoopDev {
    /// A loop device of `size` bytes filled with random data; `None` (test skipped) when not
    /// root or losetup is missing.
    pub fn new(tag: &str, size: usize) -> Option<LoopDev> {
        if !is_root() || Command::new("losetup").arg("--version").output().is_err() {
            eprintln!("skipping: loop devices need root and losetup");
            return None;
        }
        let backing = PathBuf::from(format!(
            "/dev/shm/halfpower-test-{tag}-{}.img",
            std::process::id()
        ));
        let mut data = vec![0u8; size];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for chunk in data.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        std::fs::write(&backing, &data).unwrap();
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing)
            .output()
            .unwrap();
        if !out.status.success() {
            let _ = std::fs::remove_file(&backing);
            panic!("losetup failed: {}", String::from_utf8_lossy(&out.stderr));
        }
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Some(LoopDev { dev, backing })
    }

    /// The device path as a string.
    pub fn path(&self) -> &str {
        self.dev.to_str().unwrap()
    }

    /// Kernel name, e.g. `loop3`.
    pub fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().into_owned()
    }
}

/// Runs `cmd` until it succeeds or 10 s pass: io_uring releases its file references
/// asynchronously after a process exits, so a device or mount can stay busy for a moment.
pub fn retry_until_ok(cmd: &mut Command) -> bool {
    let start = std::time::Instant::now();
    loop {
        if cmd.output().is_ok_and(|o| o.status.success()) {
            return true;
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        // `losetup -d` on a busy device only sets autoclear; wait until the kernel let it go.
        let backing = format!("/sys/block/{}/loop/backing_file", self.name());
        let start = std::time::Instant::now();
        while std::path::Path::new(&backing).exists() && start.elapsed().as_secs() < 10 {
            let _ = Command::new("losetup").arg("-d").arg(&self.dev).output();
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// Writes `len` bytes of non-zero data to a new file.
pub fn filled_file(dir: &Path, name: &str, len: usize) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, vec![0xa5u8; len]).unwrap();
    p
}

/// A number from a JSON document by a dotted path (`results.total.iops`).
pub fn num(v: &serde_json::Value, path: &str) -> f64 {
    let mut cur = v;
    for k in path.split('.') {
        cur = match k.parse::<usize>() {
            Ok(i) if cur.is_array() => &cur[i],
            _ => &cur[k],
        };
    }
    cur.as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {cur}"))
}

/// Runs halfpower with `args`, asserts the usage-error exit status 2, and returns stderr.
pub fn usage_error(args: &[&str]) -> String {
    let out = halfpower().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "halfpower {args:?}: {err}");
    err
}
