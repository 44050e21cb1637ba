//! Block devices in sysfs: from a file's `st_dev` or a device node's `st_rdev` to the whole
//! disk underneath (a partition resolves to its disk), and the disk's queue attributes. Every
//! read goes under [`root`]: /sys, or the tree `HALFPOWER_SYSFS` names (a captured one).

use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// The disk under a target, as recorded in results.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BlockDevice {
    /// Kernel name of the whole disk, as in /proc/diskstats (e.g. `nvme0n1`, `loop3`).
    pub name: String,
    /// The partition the target lives on, when it is one (e.g. `nvme0n1p2`).
    pub partition: Option<String>,
    /// `major:minor` of the whole disk.
    pub dev: String,
    /// Whether the kernel considers it rotational (queue/rotational).
    pub rotational: Option<bool>,
    /// The active I/O scheduler (queue/scheduler, the bracketed one).
    pub scheduler: Option<String>,
    /// Logical block size, bytes.
    pub logical_block_size: Option<u32>,
    /// Maximum requests the scheduler queues (queue/nr_requests).
    pub nr_requests: Option<u32>,
    /// Capacity, bytes.
    pub size_bytes: Option<u64>,
    /// Model string, when the driver reports one.
    pub model: Option<String>,
}

/// The variable naming another sysfs tree to read instead of /sys (a `path --capture`).
pub const SYSFS_ENV: &str = "HALFPOWER_SYSFS";

/// The root of the sysfs tree halfpower reads: `HALFPOWER_SYSFS` when set and not empty, else
/// /sys.
pub fn root() -> PathBuf {
    std::env::var_os(SYSFS_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/sys"), PathBuf::from)
}

/// Whether `HALFPOWER_SYSFS` puts another tree in place of /sys.
pub fn overridden() -> bool {
    std::env::var_os(SYSFS_ENV).is_some_and(|v| !v.is_empty())
}

/// procfs as a capture keeps it: `HALFPOWER_SYSFS/proc` under a capture (`path --capture`
/// writes its mountinfo there), else /proc.
pub fn proc_root() -> PathBuf {
    if overridden() {
        root().join("proc")
    } else {
        PathBuf::from("/proc")
    }
}

/// `root()/class/block/NAME` for a name in diskstats spelling.
fn class_block(name: &str) -> PathBuf {
    root().join("class/block").join(sysfs_name(name))
}

/// /sys/class/block/NAME of this machine, whatever `HALFPOWER_SYSFS` says: what decides
/// whether a write is safe ([`partitions`], [`read_only`], [`holders`]) is never read from a
/// captured tree.
fn live_class_block(name: &str) -> PathBuf {
    Path::new("/sys/class/block").join(sysfs_name(name))
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

/// The active scheduler from the text of queue/scheduler, e.g. `none [mq-deadline] kyber`.
pub fn active_scheduler(text: &str) -> Option<String> {
    let t = text.trim();
    if let (Some(a), Some(b)) = (t.find('['), t.find(']')) {
        if a < b {
            return Some(t[a + 1..b].to_string());
        }
    }
    (!t.is_empty()).then(|| t.to_string())
}

/// Splits a `dev_t` into (major, minor).
pub fn split_dev(dev: u64) -> (u32, u32) {
    (libc::major(dev), libc::minor(dev))
}

/// The sysfs directory of the whole disk holding `dev`, and the partition name if any.
pub fn disk_dir(dev: u64) -> Option<(PathBuf, Option<String>)> {
    disk_dir_in(&root(), dev)
}

fn disk_dir_in(root: &Path, dev: u64) -> Option<(PathBuf, Option<String>)> {
    let (maj, min) = split_dev(dev);
    let path = fs::canonicalize(root.join(format!("dev/block/{maj}:{min}"))).ok()?;
    if path.join("partition").exists() {
        let part = path.file_name()?.to_string_lossy().into_owned();
        Some((path.parent()?.to_path_buf(), Some(part)))
    } else {
        Some((path, None))
    }
}

/// Resolves the disk holding `dev` (`st_dev` of a file or `st_rdev` of a block device node);
/// `None` when there is none (tmpfs, overlayfs, btrfs' anonymous devices, NFS).
pub fn resolve(dev: u64) -> Option<BlockDevice> {
    let (dir, partition) = disk_dir(dev)?;
    describe_dir(&dir, partition)
}

/// [`resolve`] in this machine's /sys whatever `HALFPOWER_SYSFS` says: the device whose
/// safety a write is judged by.
pub fn resolve_live(dev: u64) -> Option<BlockDevice> {
    let (dir, partition) = disk_dir_in(Path::new("/sys"), dev)?;
    describe_dir(&dir, partition)
}

/// The sysfs spelling of a kernel device name: /proc/diskstats writes `cciss/c0d0` where sysfs
/// has `cciss!c0d0`.
pub fn sysfs_name(kernel_name: &str) -> String {
    kernel_name.replace('/', "!")
}

/// Describes the device `name` as /proc/diskstats spells it. For a partition, the record is
/// its disk's, with `partition` set; `None` when sysfs does not know the name.
pub fn describe(name: &str) -> Option<BlockDevice> {
    let path = fs::canonicalize(class_block(name)).ok()?;
    if path.join("partition").exists() {
        describe_dir(path.parent()?, Some(name.to_string()))
    } else {
        describe_dir(&path, None)
    }
}

/// Whether `name` (diskstats spelling) is a partition.
pub fn is_partition(name: &str) -> bool {
    class_block(name).join("partition").exists()
}

/// Parses the text of an `inflight` attribute: reads and writes in flight.
pub fn parse_inflight(text: &str) -> Option<(u64, u64)> {
    let mut it = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

fn describe_dir(dir: &Path, partition: Option<String>) -> Option<BlockDevice> {
    let q = dir.join("queue");
    let num = |p: PathBuf| read_trim(&p).and_then(|s| s.parse::<u64>().ok());
    Some(BlockDevice {
        name: dir.file_name()?.to_string_lossy().replace('!', "/"),
        partition,
        dev: read_trim(&dir.join("dev")).unwrap_or_default(),
        rotational: num(q.join("rotational")).map(|v| v == 1),
        scheduler: read_trim(&q.join("scheduler")).and_then(|s| active_scheduler(&s)),
        logical_block_size: num(q.join("logical_block_size")).map(|v| v as u32),
        nr_requests: num(q.join("nr_requests")).map(|v| v as u32),
        size_bytes: num(dir.join("size")).map(|s| s * 512),
        model: read_trim(&dir.join("device/model")).filter(|m| !m.is_empty()),
    })
}

/// What sysfs says about a disk that tells how it serves requests (read by
/// [`facts`], judged by `analysis::device::classify`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFacts {
    /// Kernel name as /proc/diskstats spells it.
    pub name: String,
    /// queue/rotational.
    pub rotational: Option<bool>,
    /// Devices it is stacked on (md members, dm targets).
    pub slaves: Vec<String>,
    /// Hardware queues of a blk-mq device (entries of /sys/block/NAME/mq).
    pub hw_queues: Option<u32>,
    /// The driver bound to its device (`sd`, `virtio_blk`, `nvme`, …).
    pub driver: Option<String>,
    /// device/vendor, trimmed (`ATA`, `QEMU`, `VMware`, `Msft`, …).
    pub vendor: Option<String>,
    /// The device's path in sysfs' device tree (it names the bus: `virtio`, `vmbus`, `usb`,
    /// `session` for iSCSI, …).
    pub device_path: Option<String>,
}

/// Reads the [`DeviceFacts`] of disk `name` (diskstats spelling); every fact sysfs lacks is
/// `None` or empty.
pub fn facts(name: &str) -> DeviceFacts {
    let dir = class_block(name);
    let link = |p: PathBuf| {
        fs::read_link(&p)
            .ok()
            .and_then(|l| l.file_name().map(|f| f.to_string_lossy().into_owned()))
    };
    DeviceFacts {
        name: name.to_string(),
        rotational: read_trim(&dir.join("queue/rotational")).map(|v| v == "1"),
        slaves: slaves(name),
        hw_queues: fs::read_dir(dir.join("mq"))
            .ok()
            .map(|rd| rd.filter_map(|e| e.ok()).count() as u32),
        driver: link(dir.join("device/driver")),
        vendor: read_trim(&dir.join("device/vendor")).filter(|v| !v.is_empty()),
        device_path: fs::canonicalize(dir.join("device"))
            .ok()
            .map(|p| p.to_string_lossy().into_owned()),
    }
}

/// Names of the partitions of disk `name` (from /sys/class/block/NAME/*/partition, always of
/// this machine).
pub fn partitions(name: &str) -> Vec<String> {
    let Ok(rd) = fs::read_dir(live_class_block(name)) else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .filter(|e| e.path().join("partition").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Whether the kernel marks block device `name` (a disk or a partition) read-only:
/// /sys/class/block/NAME/ro is 1 (`losetup -r`, `blockdev --setro`, a write-protected medium).
pub fn read_only(name: &str) -> bool {
    fs::read_to_string(live_class_block(name).join("ro")).is_ok_and(|t| t.trim() == "1")
}

/// Devices `name` is built from (md members, dm targets): /sys/class/block/NAME/slaves.
pub fn slaves(name: &str) -> Vec<String> {
    fs::read_dir(class_block(name).join("slaves"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The devices directly beneath disk `name` (diskstats spelling): the members of a dm or md
/// device (`slaves`), or the disk holding a loop device's backing file (the block device
/// itself when the backing file is one, else the disk of the file's filesystem, if any).
pub fn beneath(name: &str) -> Vec<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let mut out = slaves(name);
    let dir = class_block(name);
    if let Some(backing) = read_trim(&dir.join("loop/backing_file")) {
        let disk = fs::metadata(&backing).ok().and_then(|m| {
            let dev = if m.file_type().is_block_device() {
                m.rdev()
            } else {
                m.dev()
            };
            resolve(dev).map(|d| d.name)
        });
        out.extend(disk);
    }
    out.retain(|d| d != name);
    out
}

/// Every device beneath disk `name`, recursively (a loop device over a loop device over a
/// file on `vda` gives both), each once, nearest first.
pub fn stack(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        for b in beneath(&n) {
            if b != name && !out.contains(&b) {
                out.push(b.clone());
                todo.push(b);
            }
        }
    }
    out
}

/// Devices stacked on `name` (device mapper, md): /sys/class/block/NAME/holders.
pub fn holders(name: &str) -> Vec<String> {
    fs::read_dir(live_class_block(name).join("holders"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_in_brackets() {
        assert_eq!(
            active_scheduler("none [mq-deadline] kyber\n").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(active_scheduler("none").as_deref(), Some("none"));
        assert_eq!(active_scheduler(""), None);
    }

    #[test]
    fn bang_names() {
        assert_eq!(sysfs_name("cciss/c0d0"), "cciss!c0d0");
        assert_eq!(sysfs_name("sda"), "sda");
    }

    #[test]
    fn the_root_filesystem_resolves_or_is_virtual() {
        use std::os::unix::fs::MetadataExt;
        let dev = fs::metadata("/").unwrap().dev();
        if let Some(d) = resolve(dev) {
            assert!(!d.name.is_empty());
            assert!(d.dev.contains(':'));
        }
    }
}
