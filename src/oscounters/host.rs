//! Facts about the host a result came from: kernel, CPUs, memory.

use serde::{Deserialize, Serialize};

/// The host, as recorded in every JSON result.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Host {
    /// Host name.
    pub hostname: String,
    /// Kernel release (uname -r).
    pub kernel: String,
    /// Online CPUs.
    pub cpus: usize,
    /// CPU model name, when /proc/cpuinfo has one.
    pub cpu_model: Option<String>,
    /// Total memory, bytes.
    pub memory_bytes: u64,
}

fn uname_field(f: impl Fn(&libc::utsname) -> &[libc::c_char]) -> String {
    // SAFETY: utsname is plain data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: u is a valid, writable utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return String::new();
    }
    let bytes: Vec<u8> = f(&u)
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads the host facts now.
pub fn read() -> Host {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    Host {
        hostname: uname_field(|u| &u.nodename),
        kernel: uname_field(|u| &u.release),
        cpus: online_cpus(),
        cpu_model: cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|s| s.trim().to_string()),
        memory_bytes: meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024),
    }
}

/// CPUs online on the machine (sysconf), whatever this process may use: the CPUs
/// Whether a process (or kernel thread) named `comm` is running now (/proc/*/comm), e.g. ext4's
/// `ext4lazyinit`, which zeroes inode tables in the background after mkfs and writes to the
/// disk meanwhile.
pub fn thread_running(comm: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .any(|e| std::fs::read_to_string(e.path().join("comm")).is_ok_and(|c| c.trim_end() == comm))
}

/// /proc/stat's system-wide times are summed over.
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 { n as usize } else { 1 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn host_has_a_kernel_and_cpus() {
        let h = super::read();
        assert!(!h.kernel.is_empty());
        assert!(h.cpus >= 1);
        assert!(h.memory_bytes > 0);
    }
}
