//! From a target (a file, a block device's path, a kernel name) to its components: the file
//! system holding a file, then each block device (partition → its disk, dm and md → their
//! members, loop → its backing file's place), then the disk's transport (`transport.rs`).

use super::parse;
use super::tree::Tree;
use super::{ComponentKind, Graph, NetVia, Node, Part, QueueLimits, Unresolved};
use crate::oscounters::mounts::{self, Mount};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The deepest stack of block devices followed (a loop over a file on a loop over … ).
pub const MAX_DEPTH: usize = 16;

/// How a target was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetForm {
    /// A file or directory: its file system, then the device beneath.
    File,
    /// A block device's path (`/dev/sda`).
    BlockDevice,
    /// A kernel name (`nvme0n1`).
    KernelName,
}

/// A target walked.
#[derive(Clone, Debug, PartialEq)]
pub struct Walked {
    /// How it was taken.
    pub form: TargetForm,
    /// Its first component, in the graph.
    pub top: usize,
    /// The block device it is or lives on, when there is one (kernel name).
    pub device: Option<String>,
}

/// A target that names nothing.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BadTarget {
    /// No file, block device or kernel name of that name.
    #[error("no such file, block device or kernel name (looked for {looked})")]
    NotFound {
        /// Where it was looked for.
        looked: String,
    },
    /// A file's path under `HALFPOWER_SYSFS` needs the captured mount table.
    #[error(
        "a file's path under HALFPOWER_SYSFS={root} needs the mount table it was captured \
         with, {root}/proc/self/mountinfo (path --capture writes it); or give a block device or \
         kernel name"
    )]
    NoMountTable {
        /// The captured tree.
        root: String,
    },
}

/// Walks targets into one [`Graph`], each component once.
pub struct Walker<'a> {
    pub(super) tree: &'a Tree,
    mounts: Option<Vec<Mount>>,
    used_mounts: Vec<usize>,
    live: bool,
    pub(super) graph: Graph,
    blocks: HashMap<String, usize>,
    keys: HashMap<(ComponentKind, String), usize>,
    stack: Vec<String>,
}

impl<'a> Walker<'a> {
    /// A walker over `tree` with the mount table `mounts` (None: there is none, and a file's
    /// path cannot be placed); `live` when the tree is this machine's /sys (then a target's
    /// path is looked at with stat, else only by its name).
    pub fn new(tree: &'a Tree, mounts: Option<Vec<Mount>>, live: bool) -> Self {
        Walker {
            tree,
            mounts,
            used_mounts: Vec::new(),
            live,
            graph: Graph::default(),
            blocks: HashMap::new(),
            keys: HashMap::new(),
            stack: Vec::new(),
        }
    }

    /// The components walked so far.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The mount table's lines the walks used, in table order (a capture writes them).
    pub fn used_mount_lines(&self) -> Vec<String> {
        let mut idx = self.used_mounts.clone();
        idx.sort_unstable();
        idx.dedup();
        let all = self.mounts.as_deref().unwrap_or_default();
        idx.iter()
            .filter_map(|&i| Some(all.get(i)?.line.clone()))
            .collect()
    }

    /// Walks one target.
    pub fn target(&mut self, arg: &str) -> Result<Walked, BadTarget> {
        self.target_as(arg, self.live)
    }

    /// Walks `arg`; `must_exist` refuses a path this machine does not have (a loop device's
    /// backing file may be gone, and still name its file system).
    fn target_as(&mut self, arg: &str, must_exist: bool) -> Result<Walked, BadTarget> {
        let path = Path::new(arg);
        if self.live {
            if let Ok(meta) = std::fs::metadata(path) {
                use std::os::unix::fs::{FileTypeExt, MetadataExt};
                if meta.file_type().is_block_device() {
                    let (maj, min) = super::super::sysfs::split_dev(meta.rdev());
                    let top = self.by_dev(maj, min);
                    return Ok(self.walked(TargetForm::BlockDevice, top));
                }
                let file = std::fs::canonicalize(path).unwrap_or_else(|_| mounts::absolute(path));
                let top = self.file(&file, Some(meta.dev()));
                return Ok(self.walked(TargetForm::File, top));
            }
            if must_exist && arg.contains('/') {
                return Err(self.not_found(arg));
            }
        }
        if let Some(rest) = arg.strip_prefix("/dev/") {
            let name = match rest.strip_prefix("mapper/") {
                Some(dm) => self.dm_named(dm),
                None => Some(rest.rsplit('/').next().unwrap_or(rest).to_string()),
            };
            if let Some(n) = name.filter(|n| self.known(n)) {
                let top = self.block(&n);
                return Ok(self.walked(TargetForm::BlockDevice, top));
            }
            return Err(self.not_found(arg));
        }
        if !arg.contains('/') && self.known(arg) {
            let top = self.block(arg);
            return Ok(self.walked(TargetForm::KernelName, top));
        }
        // Any other name is a file's path (in a captured tree, the captured machine's).
        if arg.contains('/') || path.exists() {
            if self.mounts.is_none() {
                return Err(BadTarget::NoMountTable {
                    root: self.tree.root().display().to_string(),
                });
            }
            let top = self.file(&mounts::absolute(path), None);
            return Ok(self.walked(TargetForm::File, top));
        }
        Err(self.not_found(arg))
    }

    fn not_found(&self, arg: &str) -> BadTarget {
        let name = arg.rsplit('/').next().unwrap_or(arg);
        BadTarget::NotFound {
            looked: format!(
                "{}{}",
                if self.live && arg.contains('/') {
                    format!("{arg} and ")
                } else {
                    String::new()
                },
                self.tree.root().join("class/block").join(name).display()
            ),
        }
    }

    /// Whether class/block has an entry `name` (which may still lead nowhere: then its
    /// component says why).
    fn known(&self, name: &str) -> bool {
        !name.is_empty()
            && !name.contains("..")
            && self
                .tree
                .entry_exists(&Path::new("class/block").join(super::super::sysfs::sysfs_name(name)))
    }

    /// The dm device whose dm/name is `name`.
    fn dm_named(&self, name: &str) -> Option<String> {
        self.tree
            .entries(Path::new("class/block"))
            .into_iter()
            .filter(|n| n.starts_with("dm-"))
            .find(|n| {
                self.tree
                    .attr(&Path::new("class/block").join(n), "dm/name")
                    .is_some_and(|d| d == name)
            })
    }

    fn walked(&self, form: TargetForm, top: usize) -> Walked {
        let device = self.first_device(top);
        Walked { form, top, device }
    }

    /// The first block device at or beneath `top`.
    fn first_device(&self, top: usize) -> Option<String> {
        let mut i = top;
        for _ in 0..=MAX_DEPTH {
            let n = self.graph.nodes.get(i)?;
            if matches!(
                n.part.kind(),
                ComponentKind::Partition
                    | ComponentKind::Dm
                    | ComponentKind::Md
                    | ComponentKind::Loop
                    | ComponentKind::Disk
            ) {
                return Some(n.name.clone());
            }
            i = *n.below.first()?;
        }
        None
    }

    pub(super) fn push(&mut self, name: String, part: Part) -> usize {
        self.graph.nodes.push(Node {
            name,
            part,
            below: Vec::new(),
        });
        self.graph.nodes.len() - 1
    }

    /// The node of `part` named `name`, made once: (index, whether it is new).
    pub(super) fn keyed(&mut self, name: &str, part: Part) -> (usize, bool) {
        let key = (part.kind(), name.to_string());
        if let Some(&i) = self.keys.get(&key) {
            return (i, false);
        }
        let i = self.push(name.to_string(), part);
        self.keys.insert(key, i);
        (i, true)
    }

    pub(super) fn link(&mut self, above: usize, below: usize) {
        let b = &mut self.graph.nodes[above].below;
        if above != below && !b.contains(&below) {
            b.push(below);
        }
    }

    fn unresolved(&mut self, name: &str, why: Unresolved) -> usize {
        self.push(name.to_string(), Part::Unresolved { why })
    }

    /// The file system holding `file` (absolute), and what it is mounted from; `dev` is the
    /// file's `st_dev` when it was looked at.
    fn file(&mut self, file: &Path, dev: Option<u64>) -> usize {
        let found = self.mount_of(file, dev);
        let Some((at, m)) = found else {
            let name = file.display().to_string();
            return self.unresolved(&name, Unresolved::NoMount { file: name.clone() });
        };
        self.used_mounts.push(at);
        let point = m.mount_point.display().to_string();
        let (fs, new) = self.keyed(
            &point,
            Part::Filesystem {
                fs_type: m.fs_type.clone(),
                source: m.source.clone(),
            },
        );
        if !new {
            return fs;
        }
        let below = if m.major != 0 {
            Some(self.by_dev(m.major, m.minor))
        } else if let Some(dev) = m.source.strip_prefix("/dev/").filter(|d| self.known(d)) {
            Some(self.block(dev))
        } else if is_network_fs(&m.fs_type) {
            Some(self.network(NetVia::NetworkFs, &m.source))
        } else {
            None
        };
        if let Some(b) = below {
            self.link(fs, b);
        }
        fs
    }

    /// The mount holding `file` (its index in the table, and the mount): among those of the
    /// file's device when `dev` is known, else by its path alone.
    fn mount_of(&self, file: &Path, dev: Option<u64>) -> Option<(usize, Mount)> {
        let all = self.mounts.as_deref().unwrap_or_default();
        let by_dev = dev.map(super::super::sysfs::split_dev);
        let same: Vec<Mount> = (all.iter())
            .filter(|m| by_dev.is_some_and(|d| (m.major, m.minor) == d))
            .cloned()
            .collect();
        let m = mounts::holding(&same, file).or_else(|| mounts::holding(all, file))?;
        Some((all.iter().position(|x| x == m)?, m.clone()))
    }

    /// The block device `major:minor`.
    fn by_dev(&mut self, major: u32, minor: u32) -> usize {
        let rel = PathBuf::from(format!("dev/block/{major}:{minor}"));
        match self.tree.resolve(&rel) {
            Ok(dir) => self.block_dir(&dir),
            Err(why) => self.unresolved(&format!("{major}:{minor}"), why),
        }
    }

    /// The block device of kernel name `name`.
    fn block(&mut self, name: &str) -> usize {
        let rel = Path::new("class/block").join(super::super::sysfs::sysfs_name(name));
        match self.tree.resolve(&rel) {
            Ok(dir) => self.block_dir(&dir),
            Err(why) => self.unresolved(name, why),
        }
    }

    /// The block device whose directory (resolved) is `dir`, and everything beneath it.
    fn block_dir(&mut self, dir: &Path) -> usize {
        let name = dir
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().replace('!', "/"));
        if self.stack.contains(&name) {
            return self.unresolved(&name, Unresolved::Cycle { name: name.clone() });
        }
        if let Some(&i) = self.blocks.get(&name) {
            return i;
        }
        if self.stack.len() >= MAX_DEPTH {
            return self.unresolved(&name, Unresolved::TooDeep);
        }
        self.stack.push(name.clone());
        let i = self.push(name.clone(), Part::HostBus);
        self.blocks.insert(name.clone(), i);
        let (part, below) = self.block_part(dir, &name);
        self.graph.nodes[i].part = part;
        for b in below {
            self.link(i, b);
        }
        self.stack.pop();
        i
    }

    /// What the block device at `dir` is, and the components directly beneath it.
    fn block_part(&mut self, dir: &Path, name: &str) -> (Part, Vec<usize>) {
        let t = self.tree;
        if let Some(p) = t.attr(dir, "partition") {
            let part = Part::Partition {
                number: p.parse().ok(),
                start_bytes: t.number(dir, "start").map(|s| s.saturating_mul(512)),
                size_bytes: t.number(dir, "size").map(|s| s.saturating_mul(512)),
            };
            let below = match dir.parent() {
                Some(d) if !d.as_os_str().is_empty() => vec![self.block_dir(d)],
                _ => Vec::new(),
            };
            return (part, below);
        }
        if t.is_dir(&dir.join("dm")) {
            let part = Part::Dm {
                dm_name: t.attr(dir, "dm/name"),
                uuid: t.attr(dir, "dm/uuid").filter(|u| !u.is_empty()),
            };
            return (part, self.slaves(dir));
        }
        if t.is_dir(&dir.join("md")) {
            let md = dir.join("md");
            let part = Part::Md {
                level: t.reading(&md, "level", parse::md_level),
                raid_disks: t.number(&md, "raid_disks").map(|n| n as u32),
                chunk_bytes: t.number(&md, "chunk_size"),
            };
            return (part, self.slaves(dir));
        }
        if name.starts_with("loop") {
            let backing = t
                .attr(&dir.join("loop"), "backing_file")
                .map(|b| b.trim_end_matches(" (deleted)").to_string());
            let below = backing.as_deref().map(|b| self.place(b));
            return (
                Part::Loop {
                    backing_file: backing,
                },
                below.into_iter().collect(),
            );
        }
        self.disk(dir, name)
    }

    /// Where a loop device's backing file is: a block device, or a file's file system.
    fn place(&mut self, backing: &str) -> usize {
        match self.target_as(backing, false) {
            Ok(w) => w.top,
            Err(_) => self.unresolved(
                backing,
                Unresolved::NotInSysfs {
                    path: backing.to_string(),
                },
            ),
        }
    }

    /// The devices in `dir`/slaves, each through its own link there.
    fn slaves(&mut self, dir: &Path) -> Vec<usize> {
        let names = self.tree.entries(&dir.join("slaves"));
        names
            .iter()
            .map(|n| match self.tree.resolve(&dir.join("slaves").join(n)) {
                Ok(d) => self.block_dir(&d),
                Err(why) => self.unresolved(n, why),
            })
            .collect()
    }

    /// A whole disk, and its transport.
    fn disk(&mut self, dir: &Path, name: &str) -> (Part, Vec<usize>) {
        let t = self.tree;
        let q = dir.join("queue");
        let device = t.resolve(&dir.join("device")).ok();
        let parent = dir.parent().map(Path::to_path_buf).unwrap_or_default();
        let driver = device.as_ref().and_then(|d| {
            t.link_name(&d.join("driver"))
                .or_else(|| t.link_name(&d.join("device/driver")))
        });
        let model = t
            .attr(dir, "device/model")
            .or_else(|| t.attr(&parent, "model"))
            .filter(|m| !m.is_empty());
        let part = Part::Disk {
            model,
            vendor: t.attr(dir, "device/vendor").filter(|v| !v.is_empty()),
            driver,
            rotational: t.attr(&q, "rotational").map(|r| r == "1"),
            size_bytes: t.number(dir, "size").map(|s| s.saturating_mul(512)),
            hw_queues: t
                .is_dir(&dir.join("mq"))
                .then(|| t.entries(&dir.join("mq")).len() as u32),
            device_path: device
                .as_ref()
                .unwrap_or(&dir.to_path_buf())
                .display()
                .to_string(),
            queue: QueueLimits {
                logical_block_size: t.number(&q, "logical_block_size"),
                physical_block_size: t.number(&q, "physical_block_size"),
                max_sectors_kb: t.number(&q, "max_sectors_kb"),
                max_hw_sectors_kb: t.number(&q, "max_hw_sectors_kb"),
                nr_requests: t.number(&q, "nr_requests"),
                scheduler: t
                    .attr(&q, "scheduler")
                    .and_then(|s| super::super::sysfs::active_scheduler(&s)),
            },
        };
        let below = if parent
            .file_name()
            .is_some_and(|p| p.to_string_lossy().starts_with("nvme-subsys"))
        {
            self.multipath(dir, &parent)
        } else if name.starts_with("nbd") {
            vec![self.network(NetVia::Nbd, name)]
        } else if name.starts_with("rbd") {
            vec![self.network(NetVia::Rbd, name)]
        } else {
            self.transport(dir, false).into_iter().take(1).collect()
        };
        (part, below)
    }

    /// The controllers an NVMe multipath namespace (under nvme-subsystem/nvme-subsysN) is
    /// reached through: its multipath/ entries (the paths, nvmeXcYnZ, under their
    /// controllers), else the subsystem's links to its controllers.
    fn multipath(&mut self, dir: &Path, subsys: &Path) -> Vec<usize> {
        let t = self.tree;
        let mut ctrls: Vec<PathBuf> = (t.entries(&dir.join("multipath")).iter())
            .filter_map(|p| t.resolve(&dir.join("multipath").join(p)).ok())
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        if ctrls.is_empty() {
            ctrls = (t.entries(subsys).iter())
                .filter(|n| is_nvme_controller_name(n))
                .filter_map(|n| t.resolve(&subsys.join(n)).ok())
                .collect();
        }
        ctrls
            .iter()
            .filter_map(|c| self.transport(c, true).first().copied())
            .collect()
    }

    /// A network component carrying `what`: the one interface that is up, when there is one.
    pub(super) fn network(&mut self, via: NetVia, what: &str) -> usize {
        let t = self.tree;
        let net = Path::new("class/net");
        let up: Vec<String> = (t.entries(net).into_iter())
            .filter(|n| n != "lo")
            .filter(|n| {
                t.resolve(&net.join(n))
                    .is_ok_and(|d| !d.starts_with("devices/virtual"))
            })
            .filter(|n| t.attr(&net.join(n), "operstate").is_some_and(|o| o == "up"))
            .collect();
        let (nic, mbps, unknown_nic) = match up.as_slice() {
            [one] => (
                Some(one.clone()),
                t.reading(&net.join(one), "speed", parse::net_speed),
                None,
            ),
            [] => (None, missing("class/net/*/speed"), Some(Unresolved::NoNic)),
            many => (
                None,
                missing("class/net/*/speed"),
                Some(Unresolved::WhichNic {
                    candidates: many.to_vec(),
                }),
            ),
        };
        self.keyed(
            what,
            Part::Network {
                via,
                nic,
                mbps,
                unknown_nic,
            },
        )
        .0
    }
}

fn missing(attribute: &str) -> super::Reading<f64> {
    super::Reading::Missing {
        attribute: attribute.to_string(),
    }
}

/// `nvme` followed by digits: a controller's name.
pub(super) fn is_nvme_controller_name(n: &str) -> bool {
    n.strip_prefix("nvme")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

fn is_network_fs(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "nfs" | "nfs4" | "cifs" | "smb3" | "ceph" | "glusterfs" | "9p" | "fuse.sshfs" | "lustre"
    )
}
