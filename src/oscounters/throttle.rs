//! The I/O limits this process's cgroup puts on a block device: cgroup v1
//! `blkio.throttle.{read,write}_{bps,iops}_device` and cgroup v2 `io.max`, the tightest over the
//! cgroup and its ancestors (a limit anywhere above applies). A throttled device is a limit
//! halfpower can name (containers set them; the tests build disks of known speed with them).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Limits on one device, each `None` when unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IoLimit {
    /// Read bytes per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes_per_s: Option<f64>,
    /// Write bytes per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes_per_s: Option<f64>,
    /// Reads per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_iops: Option<f64>,
    /// Writes per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iops: Option<f64>,
}

impl IoLimit {
    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        self.read_bytes_per_s.is_some()
            || self.write_bytes_per_s.is_some()
            || self.read_iops.is_some()
            || self.write_iops.is_some()
    }

    /// The tighter of two limits, field by field.
    fn min(self, o: IoLimit) -> IoLimit {
        let m = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        IoLimit {
            read_bytes_per_s: m(self.read_bytes_per_s, o.read_bytes_per_s),
            write_bytes_per_s: m(self.write_bytes_per_s, o.write_bytes_per_s),
            read_iops: m(self.read_iops, o.read_iops),
            write_iops: m(self.write_iops, o.write_iops),
        }
    }
}

/// The value a v1 throttle file sets for `dev` (`M:m`): lines of `M:m VALUE`.
fn v1_value(text: &str, dev: &str) -> Option<f64> {
    text.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        (f.next()? == dev)
            .then(|| f.next()?.parse::<u64>().ok())?
            .filter(|&v| v > 0)
            .map(|v| v as f64)
    })
}

/// The limits a v2 `io.max` sets for `dev`: `M:m rbps=N wbps=N riops=N wiops=N` (`max`: none).
pub fn parse_io_max(text: &str, dev: &str) -> IoLimit {
    let mut out = IoLimit::default();
    for l in text.lines() {
        let mut f = l.split_whitespace();
        if f.next() != Some(dev) {
            continue;
        }
        for kv in f {
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            let v = v.parse::<u64>().ok().map(|v| v as f64);
            match k {
                "rbps" => out.read_bytes_per_s = v,
                "wbps" => out.write_bytes_per_s = v,
                "riops" => out.read_iops = v,
                "wiops" => out.write_iops = v,
                _ => {}
            }
        }
    }
    out
}

/// The cgroup v1 blkio path and the v2 path of this process, from /proc/self/cgroup's text.
pub fn parse_self_cgroup(text: &str) -> (Option<String>, Option<String>) {
    let mut v1 = None;
    let mut v2 = None;
    for l in text.lines() {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next(), f.next(), f.next());
        let (Some(c), Some(p)) = (controllers, path) else {
            continue;
        };
        if c.is_empty() {
            v2 = Some(p.to_string());
        } else if c.split(',').any(|c| c == "blkio") {
            v1 = Some(p.to_string());
        }
    }
    (v1, v2)
}

/// `dir` and each of its ancestors up to `root`.
fn up_to(root: &Path, rel: &str) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut cur = root.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        cur.push(part);
        out.push(cur.clone());
    }
    out
}

/// The limits this process's cgroups set on kernel device `name` (e.g. `loop2`), the tightest
/// over each cgroup and its ancestors; `None` when nothing limits it.
pub fn limits(name: &str) -> Option<IoLimit> {
    let dev = std::fs::read_to_string(format!(
        "/sys/class/block/{}/dev",
        super::sysfs::sysfs_name(name)
    ))
    .ok()?;
    let dev = dev.trim();
    let (v1, v2) = parse_self_cgroup(&std::fs::read_to_string("/proc/self/cgroup").ok()?);
    let mut out = IoLimit::default();
    if let Some(rel) = v1 {
        for dir in up_to(Path::new("/sys/fs/cgroup/blkio"), &rel) {
            let read = |f: &str| {
                std::fs::read_to_string(dir.join(f))
                    .ok()
                    .and_then(|t| v1_value(&t, dev))
            };
            out = out.min(IoLimit {
                read_bytes_per_s: read("blkio.throttle.read_bps_device"),
                write_bytes_per_s: read("blkio.throttle.write_bps_device"),
                read_iops: read("blkio.throttle.read_iops_device"),
                write_iops: read("blkio.throttle.write_iops_device"),
            });
        }
    }
    if let Some(rel) = v2 {
        for root in ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"] {
            for dir in up_to(Path::new(root), &rel) {
                if let Ok(t) = std::fs::read_to_string(dir.join("io.max")) {
                    out = out.min(parse_io_max(&t, dev));
                }
            }
        }
    }
    out.any().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_of_v1_and_v2_files() {
        let v1 = "7:2 100000000\n8:0 5000\n";
        assert_eq!(v1_value(v1, "7:2"), Some(1e8));
        assert_eq!(v1_value(v1, "7:20"), None);
        assert_eq!(v1_value("7:2 0\n", "7:2"), None, "0 is no limit");
        let m = parse_io_max("8:16 rbps=2097152 wbps=max riops=max wiops=120\n", "8:16");
        assert_eq!(m.read_bytes_per_s, Some(2097152.0));
        assert_eq!(m.write_bytes_per_s, None);
        assert_eq!(m.write_iops, Some(120.0));
        assert!(!parse_io_max("8:16 rbps=1\n", "8:0").any());
        let tight = IoLimit {
            read_bytes_per_s: Some(5.0),
            ..IoLimit::default()
        }
        .min(IoLimit {
            read_bytes_per_s: Some(3.0),
            read_iops: Some(9.0),
            ..IoLimit::default()
        });
        assert_eq!(tight.read_bytes_per_s, Some(3.0));
        assert_eq!(tight.read_iops, Some(9.0));
    }

    #[test]
    fn the_cgroups_of_this_process() {
        let text = "9:name=systemd:/\n7:blkio:/test-1\n4:memory:/x\n0::/user.slice/a\n";
        assert_eq!(
            parse_self_cgroup(text),
            (Some("/test-1".into()), Some("/user.slice/a".into()))
        );
        let both = "3:cpu,blkio:/b\n";
        assert_eq!(parse_self_cgroup(both).0.as_deref(), Some("/b"));
        assert_eq!(up_to(Path::new("/r"), "/a/b").len(), 3);
        assert_eq!(up_to(Path::new("/r"), "/").len(), 1);
    }
}
