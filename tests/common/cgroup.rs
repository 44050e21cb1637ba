//! A cgroup v1 `cpu` group with a CFS quota, for a host that interferes on purpose (a known
//! stall each period) and a CPU that binds before the device does.

use std::path::{Path, PathBuf};

/// A cgroup v1 `cpu` group with a CFS quota; removed on drop.
pub struct CpuQuota {
    dir: PathBuf,
}

impl CpuQuota {
    /// `quota_us` of CPU time per `period_us`, or None (test skipped) without root or cgroup
    /// v1's cpu controller.
    pub fn new(tag: &str, period_us: u64, quota_us: u64) -> Option<CpuQuota> {
        let root = Path::new("/sys/fs/cgroup/cpu");
        if !super::is_root() || !root.join("cpu.cfs_quota_us").exists() {
            super::unavailable("root and cgroup v1's cpu controller (/sys/fs/cgroup/cpu)");
            return None;
        }
        let dir = root.join(format!("halfpower-test-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpu.cfs_period_us"), period_us.to_string()).unwrap();
        std::fs::write(dir.join("cpu.cfs_quota_us"), quota_us.to_string()).unwrap();
        Some(CpuQuota { dir })
    }

    /// The group's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// (`nr_periods`, `nr_throttled`, `throttled_time` in ms) so far.
    pub fn stat(&self) -> (u64, u64, f64) {
        let s = std::fs::read_to_string(self.dir.join("cpu.stat")).unwrap();
        let field = |k: &str| -> f64 {
            s.lines()
                .find_map(|l| l.strip_prefix(k)?.trim().parse().ok())
                .unwrap()
        };
        (
            field("nr_periods ") as u64,
            field("nr_throttled ") as u64,
            field("throttled_time ") / 1e6,
        )
    }

    /// (`nr_throttled`, `throttled_time` in ms) so far.
    pub fn throttled(&self) -> (u64, f64) {
        let (_, n, ms) = self.stat();
        (n, ms)
    }

    /// halfpower with `args` plus `--json - --quiet`, started inside the group.
    pub fn run_json(&self, args: &[&str]) -> serde_json::Value {
        super::halfpower_json_in(&self.dir, args)
    }
}

impl Drop for CpuQuota {
    fn drop(&mut self) {
        super::remove_cgroup(&self.dir);
    }
}

/// A cgroup v1 `cpuset` group narrowed to some CPUs; removed on drop.
pub struct Cpuset {
    dir: PathBuf,
}

impl Cpuset {
    /// A group allowed `cpus` (the kernel's list format, `0`, `0-1`) and memory node 0, or None
    /// (test skipped) without root or cgroup v1's cpuset controller.
    pub fn new(tag: &str, cpus: &str) -> Option<Cpuset> {
        let root = Path::new("/sys/fs/cgroup/cpuset");
        if !super::is_root() || !root.join("cpuset.cpus").exists() {
            super::unavailable("root and cgroup v1's cpuset controller (/sys/fs/cgroup/cpuset)");
            return None;
        }
        let dir = root.join(format!("halfpower-test-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpuset.cpus"), cpus).unwrap();
        std::fs::write(dir.join("cpuset.mems"), "0").unwrap();
        Some(Cpuset { dir })
    }

    /// The group's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Cpuset {
    fn drop(&mut self) {
        super::remove_cgroup(&self.dir);
    }
}
