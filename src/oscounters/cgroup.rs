//! Where this process's cgroups are and the CPU limit they set: each v1 hierarchy's group and
//! the v2 group (/proc/self/cgroup), found under their mount points (/proc/self/mountinfo: a
//! v1 hierarchy is the `cgroup` mount whose options name its controller, v2 the `cgroup2`
//! mount), each with its ancestors up to the mount, since a limit anywhere above applies. The
//! CPU quota is `cpu.max` (v2) or `cpu.cfs_quota_us` over `cpu.cfs_period_us` (v1), and the
//! kernel counts the periods it throttled the group in its `cpu.stat`.

use super::mounts::{self, Mount};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which cgroup interface a file belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CgroupVersion {
    /// A v1 hierarchy of its own per controller (`blkio`, `cpu`).
    V1,
    /// The unified v2 hierarchy.
    V2,
}

/// This process's groups, from /proc/self/cgroup's text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Membership {
    /// Each v1 hierarchy: its controllers and this process's group in it.
    pub v1: Vec<(Vec<String>, String)>,
    /// The v2 group (`0::PATH`), if the process has one.
    pub v2: Option<String>,
}

/// Reads /proc/self/cgroup's lines `ID:CONTROLLERS:PATH` (v2's with no controllers).
pub fn parse_membership(text: &str) -> Membership {
    let mut m = Membership::default();
    for l in text.lines() {
        let mut f = l.splitn(3, ':');
        let (Some(_), Some(c), Some(p)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if c.is_empty() {
            m.v2 = Some(p.to_string());
        } else {
            m.v1.push((c.split(',').map(str::to_string).collect(), p.to_string()));
        }
    }
    m
}

/// The directory of `group` under mount `m` and each of its ancestors up to the mount point,
/// the group's own first; empty when the mount does not show the group (another namespace's
/// root).
fn up_from(m: &Mount, group: &str) -> Vec<PathBuf> {
    let root = m.root.trim_end_matches('/');
    let Some(rel) = group.strip_prefix(root) else {
        return Vec::new();
    };
    if !rel.is_empty() && !rel.starts_with('/') {
        return Vec::new();
    }
    let mut out = vec![m.mount_point.clone()];
    let mut cur = m.mount_point.clone();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        cur.push(part);
        out.push(cur.clone());
    }
    out.reverse();
    out
}

/// The directories of the groups that can limit this process through `controller` (`blkio`
/// or `cpu` in v1; `io` or `cpu` in v2), nearest first: the v1 hierarchy's, then the v2
/// group's where v2 has the controller enabled at its root.
pub fn dirs_in(
    member: &Membership,
    table: &[Mount],
    controller: &str,
) -> Vec<(CgroupVersion, PathBuf)> {
    let mut out = Vec::new();
    let v1 = member
        .v1
        .iter()
        .find(|(cs, _)| cs.iter().any(|c| c == controller));
    let v1_mount =
        |m: &&Mount| m.fs_type == "cgroup" && m.super_options.split(',').any(|o| o == controller);
    if let (Some((_, group)), Some(m)) = (v1, table.iter().find(v1_mount)) {
        out.extend(
            up_from(m, group)
                .into_iter()
                .map(|d| (CgroupVersion::V1, d)),
        );
    }
    let v2_name = if controller == "blkio" {
        "io"
    } else {
        controller
    };
    if let (Some(group), Some(m)) = (&member.v2, table.iter().find(|m| m.fs_type == "cgroup2")) {
        let enabled = std::fs::read_to_string(m.mount_point.join("cgroup.controllers"))
            .is_ok_and(|t| t.split_whitespace().any(|c| c == v2_name));
        if enabled {
            out.extend(
                up_from(m, group)
                    .into_iter()
                    .map(|d| (CgroupVersion::V2, d)),
            );
        }
    }
    out
}

/// [`dirs_in`] for this process now (the live /proc/self files, never a capture's).
pub fn dirs(controller: &str) -> Vec<(CgroupVersion, PathBuf)> {
    let member = std::fs::read_to_string("/proc/self/cgroup")
        .map(|t| parse_membership(&t))
        .unwrap_or_default();
    let table = std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| mounts::parse(&t))
        .unwrap_or_default();
    dirs_in(&member, &table, controller)
}

/// A CPU quota: `quota_us` of CPU time in each `period_us`, so at most `cpus` CPUs on average.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuQuota {
    /// The interface that set it.
    pub version: CgroupVersion,
    /// The file that sets it (`…/cpu.max`, `…/cpu.cfs_quota_us`).
    pub file: String,
    /// CPU time allowed per period, µs.
    pub quota_us: u64,
    /// The period, µs.
    pub period_us: u64,
    /// quota ÷ period: the CPUs the group may use on average.
    pub cpus: f64,
}

/// `cpu.max`'s text: `QUOTA PERIOD` in µs; `max …` is no quota.
pub fn parse_cpu_max(text: &str) -> Option<(u64, u64)> {
    let mut f = text.split_whitespace();
    let quota = f.next()?.parse::<u64>().ok()?;
    let period = f.next().map_or(Some(100_000), |p| p.parse::<u64>().ok())?;
    (quota > 0 && period > 0).then_some((quota, period))
}

/// v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` texts; a quota of -1 is none.
pub fn parse_cfs(quota: &str, period: &str) -> Option<(u64, u64)> {
    let q = quota.trim().parse::<i64>().ok()?;
    let p = period.trim().parse::<u64>().ok()?;
    (q > 0 && p > 0).then_some((q as u64, p))
}

/// The quota a group's directory sets, if any.
fn quota_in(version: CgroupVersion, dir: &Path) -> Option<CpuQuota> {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let (file, (quota_us, period_us)) = match version {
        CgroupVersion::V2 => ("cpu.max", parse_cpu_max(&read("cpu.max")?)?),
        CgroupVersion::V1 => (
            "cpu.cfs_quota_us",
            parse_cfs(&read("cpu.cfs_quota_us")?, &read("cpu.cfs_period_us")?)?,
        ),
    };
    Some(CpuQuota {
        version,
        file: dir.join(file).display().to_string(),
        quota_us,
        period_us,
        cpus: quota_us as f64 / period_us as f64,
    })
}

/// The tightest quota over this process's groups and their ancestors, with the directory
/// that sets it (whose `cpu.stat` counts its throttling); resolved once per process.
fn tightest() -> &'static Option<(CpuQuota, CgroupVersion, PathBuf)> {
    static ONCE: OnceLock<Option<(CpuQuota, CgroupVersion, PathBuf)>> = OnceLock::new();
    ONCE.get_or_init(|| {
        dirs("cpu")
            .into_iter()
            .filter_map(|(v, d)| Some((quota_in(v, &d)?, v, d)))
            .fold(None, |best: Option<(CpuQuota, _, _)>, q| match best {
                Some(b) if b.0.cpus <= q.0.cpus => Some(b),
                _ => Some(q),
            })
    })
}

/// The CPU quota that limits this process: the tightest of its groups' (None without one).
/// Its value is read again each call (a quota changed during a run is read as it stands).
pub fn cpu_quota() -> Option<CpuQuota> {
    let (_, v, dir) = tightest().as_ref()?;
    quota_in(*v, dir)
}

/// How many CPUs a CPU list names (`0-3,6`: the kernel's list format of `cpuset.cpus`,
/// `/sys/devices/system/cpu/online`); None when it is not one.
pub fn parse_cpu_list(text: &str) -> Option<u32> {
    let mut n = 0u32;
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?);
        n = n.checked_add(b.checked_sub(a)?.checked_add(1)?)?;
    }
    Some(n)
}

/// The machine's online CPUs (`/sys/devices/system/cpu/online`).
pub fn online_cpus() -> Option<u32> {
    parse_cpu_list(&std::fs::read_to_string("/sys/devices/system/cpu/online").ok()?)
}

/// The file of the nearest cpuset group of this process that allows fewer than `online`
/// CPUs (v1 `cpuset.effective_cpus`, v2 `cpuset.cpus.effective`), if any.
pub fn cpuset_file(online: u32) -> Option<String> {
    dirs("cpuset").into_iter().find_map(|(v, d)| {
        let file = d.join(match v {
            CgroupVersion::V1 => "cpuset.effective_cpus",
            CgroupVersion::V2 => "cpuset.cpus.effective",
        });
        let n = parse_cpu_list(&std::fs::read_to_string(&file).ok()?)?;
        (n > 0 && n < online).then(|| file.display().to_string())
    })
}

/// The throttling the kernel counted for a group (`cpu.stat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuStat {
    /// Enforcement periods that have elapsed with the group runnable.
    pub periods: u64,
    /// Those in which the group used up its quota and was held off the CPU.
    pub throttled: u64,
    /// The time it was held off, ns.
    pub throttled_ns: u64,
}

/// `cpu.stat`'s text: v1's `throttled_time` is in ns, v2's `throttled_usec` in µs.
pub fn parse_cpu_stat(text: &str) -> Option<CpuStat> {
    let mut s = CpuStat::default();
    let mut seen = false;
    for l in text.lines() {
        let mut f = l.split_whitespace();
        let (Some(k), Some(v)) = (f.next(), f.next().and_then(|v| v.parse::<u64>().ok())) else {
            continue;
        };
        match k {
            "nr_periods" => (s.periods, seen) = (v, true),
            "nr_throttled" => s.throttled = v,
            "throttled_time" => s.throttled_ns = v,
            "throttled_usec" => s.throttled_ns = v.saturating_mul(1000),
            _ => {}
        }
    }
    seen.then_some(s)
}

/// The `cpu.stat` of the group whose quota limits this process (None without a quota).
pub fn cpu_stat() -> Option<CpuStat> {
    let (_, _, dir) = tightest().as_ref()?;
    parse_cpu_stat(&std::fs::read_to_string(dir.join("cpu.stat")).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu
38 31 0:35 / /sys/fs/cgroup/blkio rw - cgroup cgroup rw,blkio
40 31 0:37 /ns /sys/fs/cgroup/net_cls rw - cgroup cgroup rw,net_cls
";

    #[test]
    fn the_groups_of_this_process_under_their_mounts() {
        let m = parse_membership(
            "9:name=systemd:/\n7:blkio:/hp-1/a\n3:cpu,cpuacct:/\n2:net_cls:/x\n0::/user.slice\n",
        );
        assert_eq!(m.v2.as_deref(), Some("/user.slice"));
        assert_eq!(m.v1[1], (vec!["blkio".to_string()], "/hp-1/a".to_string()));
        // The v2 mount in a directory of the test's, with `io` enabled and `cpu` not.
        let v2 = tempfile::tempdir().unwrap();
        std::fs::write(v2.path().join("cgroup.controllers"), "memory io\n").unwrap();
        let line = format!(
            "41 31 0:38 / {} rw - cgroup2 cgroup2 rw\n",
            v2.path().display()
        );
        let table = mounts::parse(&format!("{TABLE}{line}"));
        let blkio = dirs_in(&m, &table, "blkio");
        let want = [
            (
                CgroupVersion::V1,
                PathBuf::from("/sys/fs/cgroup/blkio/hp-1/a"),
            ),
            (
                CgroupVersion::V1,
                PathBuf::from("/sys/fs/cgroup/blkio/hp-1"),
            ),
            (CgroupVersion::V1, PathBuf::from("/sys/fs/cgroup/blkio")),
            (CgroupVersion::V2, v2.path().join("user.slice")),
            (CgroupVersion::V2, v2.path().to_path_buf()),
        ];
        assert_eq!(blkio, want);
        // A controller that is one of several in a line, and not enabled in v2.
        assert_eq!(dirs_in(&m, &table, "cpu").len(), 1);
        // Only v2's, enabled there.
        assert_eq!(dirs_in(&m, &table, "memory").len(), 2);
        // A mount of the hierarchy's /ns shows only groups under /ns.
        assert!(dirs_in(&m, &table, "net_cls").is_empty());
        let ns = parse_membership("2:net_cls:/ns/y\n");
        assert_eq!(dirs_in(&ns, &table, "net_cls").len(), 2);
        assert!(dirs_in(&Membership::default(), &table, "blkio").is_empty());
    }

    #[test]
    fn quotas_and_their_throttling() {
        assert_eq!(parse_cpu_max("10000 100000\n"), Some((10_000, 100_000)));
        assert_eq!(parse_cpu_max("max 100000\n"), None);
        assert_eq!(parse_cpu_max("garbage"), None);
        assert_eq!(parse_cfs("-1\n", "100000\n"), None);
        assert_eq!(parse_cfs("25000\n", "100000\n"), Some((25_000, 100_000)));
        assert_eq!(parse_cfs("25000\n", "0\n"), None);
        let v1 = "nr_periods 40\nnr_throttled 39\nthrottled_time 3500000000\nnr_bursts 0\n";
        let s = parse_cpu_stat(v1).unwrap();
        assert_eq!(
            (s.periods, s.throttled, s.throttled_ns),
            (40, 39, 3_500_000_000)
        );
        let v2 = "usage_usec 9\nnr_periods 10\nnr_throttled 2\nthrottled_usec 7\n";
        assert_eq!(parse_cpu_stat(v2).unwrap().throttled_ns, 7000);
        assert_eq!(
            parse_cpu_stat("usage_usec 9\n"),
            None,
            "no quota's counters"
        );
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("cpu.max"), "10000 100000\n").unwrap();
        let q = quota_in(CgroupVersion::V2, d.path()).unwrap();
        assert_eq!((q.quota_us, q.period_us, q.cpus), (10_000, 100_000, 0.1));
        assert!(q.file.ends_with("/cpu.max"));
        assert_eq!(quota_in(CgroupVersion::V1, d.path()), None);
    }

    #[test]
    fn cpu_lists_count_their_cpus() {
        assert_eq!(parse_cpu_list("0-1\n"), Some(2));
        assert_eq!(parse_cpu_list("0-3,6,8-9"), Some(7));
        assert_eq!(parse_cpu_list("5"), Some(1));
        assert_eq!(parse_cpu_list(""), Some(0));
        for bad in ["3-1", "a", "0-", "0-4294967295,0-4294967295"] {
            assert_eq!(parse_cpu_list(bad), None, "{bad}");
        }
    }
}
