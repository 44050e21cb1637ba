//! The I/O limits this process's cgroup puts on a block device: cgroup v1
//! `blkio.throttle.{read,write}_{bps,iops}_device` and cgroup v2 `io.max`, the tightest over the
//! cgroup and its ancestors (a limit anywhere above applies), each with the file that sets it.
//! A throttled device is a limit halfpower can name (containers set them; the tests build disks
//! of known speed with them).

use super::cgroup::{self, CgroupVersion};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What one cap limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoField {
    /// Read bytes per second (v1 `read_bps_device`, v2 `rbps`).
    ReadBytesPerS,
    /// Written bytes per second (`write_bps_device`, `wbps`).
    WriteBytesPerS,
    /// Reads per second (`read_iops_device`, `riops`).
    ReadIops,
    /// Writes per second (`write_iops_device`, `wiops`).
    WriteIops,
}

impl IoField {
    /// Every field, in the order of [`IoLimit`]'s.
    pub const ALL: [IoField; 4] = [
        IoField::ReadBytesPerS,
        IoField::WriteBytesPerS,
        IoField::ReadIops,
        IoField::WriteIops,
    ];

    /// The v1 file that sets it.
    fn v1_file(self) -> &'static str {
        match self {
            IoField::ReadBytesPerS => "blkio.throttle.read_bps_device",
            IoField::WriteBytesPerS => "blkio.throttle.write_bps_device",
            IoField::ReadIops => "blkio.throttle.read_iops_device",
            IoField::WriteIops => "blkio.throttle.write_iops_device",
        }
    }
}

/// One cap on a device and the file that sets it (the tightest over the groups).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoCap {
    /// What it limits.
    pub field: IoField,
    /// Its value: bytes or I/Os per second.
    pub value: f64,
    /// The file that sets it.
    pub file: String,
    /// The interface of that file.
    pub version: CgroupVersion,
}

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

    /// The value of `field`.
    pub fn get(&self, field: IoField) -> Option<f64> {
        match field {
            IoField::ReadBytesPerS => self.read_bytes_per_s,
            IoField::WriteBytesPerS => self.write_bytes_per_s,
            IoField::ReadIops => self.read_iops,
            IoField::WriteIops => self.write_iops,
        }
    }

    /// The limit the caps `caps` set together (the tightest of each field).
    pub fn from_caps(caps: &[IoCap]) -> IoLimit {
        let one = |field: IoField| {
            let mut f = caps.iter().filter(|c| c.field == field).map(|c| c.value);
            f.next().map(|v| f.fold(v, f64::min))
        };
        IoLimit {
            read_bytes_per_s: one(IoField::ReadBytesPerS),
            write_bytes_per_s: one(IoField::WriteBytesPerS),
            read_iops: one(IoField::ReadIops),
            write_iops: one(IoField::WriteIops),
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

/// The caps the groups in `dirs` (nearest first, as `cgroup::dirs` lists them) set on the
/// device numbered `dev` (`M:m`): for each field the tightest, named by the file that sets it
/// (the nearest of equal ones).
pub fn caps_in(dirs: &[(CgroupVersion, PathBuf)], dev: &str) -> Vec<IoCap> {
    let mut out: Vec<IoCap> = Vec::new();
    let mut keep = |field: IoField, value: Option<f64>, file: &Path, version: CgroupVersion| {
        let Some(value) = value else {
            return;
        };
        match out.iter_mut().find(|c| c.field == field) {
            Some(c) if c.value <= value => {}
            Some(c) => {
                c.value = value;
                c.file = file.display().to_string();
                c.version = version;
            }
            None => out.push(IoCap {
                field,
                value,
                file: file.display().to_string(),
                version,
            }),
        }
    };
    for (version, dir) in dirs {
        match version {
            CgroupVersion::V1 => {
                for field in IoField::ALL {
                    let file = dir.join(field.v1_file());
                    let value = std::fs::read_to_string(&file)
                        .ok()
                        .and_then(|t| v1_value(&t, dev));
                    keep(field, value, &file, *version);
                }
            }
            CgroupVersion::V2 => {
                let file = dir.join("io.max");
                if let Ok(t) = std::fs::read_to_string(&file) {
                    let l = parse_io_max(&t, dev);
                    for field in IoField::ALL {
                        keep(field, l.get(field), &file, *version);
                    }
                }
            }
        }
    }
    out.sort_by_key(|c| IoField::ALL.iter().position(|f| *f == c.field));
    out
}

/// The device number (`M:m`) of kernel block device `name` (e.g. `loop2`).
fn dev_number(name: &str) -> Option<String> {
    let dev = std::fs::read_to_string(format!(
        "/sys/class/block/{}/dev",
        super::sysfs::sysfs_name(name)
    ))
    .ok()?;
    Some(dev.trim().to_string())
}

/// The caps this process's cgroups set on kernel device `name` (e.g. `loop2`), each the
/// tightest over each cgroup and its ancestors, with its file; empty when nothing limits it.
pub fn caps(name: &str) -> Vec<IoCap> {
    caps_of(name, &cgroup::dirs("blkio"))
}

/// [`caps`] under this process's groups `dirs` (`cgroup::dirs("blkio")`), read once for many
/// devices.
pub fn caps_of(name: &str, dirs: &[(CgroupVersion, PathBuf)]) -> Vec<IoCap> {
    dev_number(name).map_or_else(Vec::new, |dev| caps_in(dirs, &dev))
}

/// The limits this process's cgroups set on kernel device `name`, the tightest over each
/// cgroup and its ancestors; `None` when nothing limits it.
pub fn limits(name: &str) -> Option<IoLimit> {
    let l = IoLimit::from_caps(&caps(name));
    l.any().then_some(l)
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
    }

    #[test]
    fn caps_are_the_tightest_with_the_files_that_set_them() {
        let (near, far) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let v1 = |d: &tempfile::TempDir, f: &str, t: &str| std::fs::write(d.path().join(f), t);
        v1(&near, "blkio.throttle.read_iops_device", "7:2 2000\n").unwrap();
        v1(&far, "blkio.throttle.read_iops_device", "7:2 1000\n7:3 5\n").unwrap();
        v1(&near, "blkio.throttle.write_bps_device", "7:2 3000000\n").unwrap();
        v1(&far, "blkio.throttle.write_bps_device", "7:2 3000000\n").unwrap();
        let v2 = tempfile::tempdir().unwrap();
        std::fs::write(
            v2.path().join("io.max"),
            "7:2 rbps=max wbps=max riops=1500 wiops=9\n",
        )
        .unwrap();
        let dirs = [
            (CgroupVersion::V1, near.path().to_path_buf()),
            (CgroupVersion::V1, far.path().to_path_buf()),
            (CgroupVersion::V2, v2.path().to_path_buf()),
        ];
        let c = caps_in(&dirs, "7:2");
        let file = |d: &tempfile::TempDir, f: &str| d.path().join(f).display().to_string();
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(c[0].field, IoField::WriteBytesPerS);
        assert_eq!(
            c[0].file,
            file(&near, "blkio.throttle.write_bps_device"),
            "the nearest"
        );
        assert_eq!((c[1].field, c[1].value), (IoField::ReadIops, 1000.0));
        assert_eq!(c[1].file, file(&far, "blkio.throttle.read_iops_device"));
        assert_eq!((c[2].field, c[2].value), (IoField::WriteIops, 9.0));
        assert_eq!(
            (c[2].file.clone(), c[2].version),
            (file(&v2, "io.max"), CgroupVersion::V2)
        );
        let l = IoLimit::from_caps(&c);
        assert_eq!(
            (l.read_iops, l.write_iops, l.read_bytes_per_s),
            (Some(1000.0), Some(9.0), None)
        );
        assert!(caps_in(&dirs, "7:9").is_empty());
        assert!(caps_in(&[], "7:2").is_empty());
    }
}
