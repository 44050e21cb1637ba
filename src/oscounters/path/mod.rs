//! The data path of a target as sysfs lays it out: the file system a file lives on, the
//! partition, the stacked devices (dm, md, loop and its backing file), the disk, and the
//! transport up to the host bus (NVMe controller, PCIe links, SATA and SAS links, USB,
//! virtio/Xen/Hyper-V, network). Only what the kernel says, parsed into typed facts; what each
//! component can carry is `analysis::path`'s. Reads [`tree::Tree`], rooted at /sys or at
//! `HALFPOWER_SYSFS`, which records every file it reads for `path --capture`.

pub mod capture;
pub mod parse;
mod transport;
pub mod tree;
mod walk;

pub use walk::{BadTarget, MAX_DEPTH, TargetForm, Walked, Walker};

use serde::{Deserialize, Serialize};

/// An attribute as read: its value, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Reading<T> {
    /// The attribute's value.
    Value {
        /// The value, in the unit its field names.
        value: T,
    },
    /// The attribute is not there.
    Missing {
        /// The attribute, relative to the sysfs root.
        attribute: String,
    },
    /// The attribute is there but its text is not what the kernel writes.
    Unparseable {
        /// The attribute, relative to the sysfs root.
        attribute: String,
        /// Its text (at most 64 characters).
        text: String,
    },
}

impl<T: Copy> Reading<T> {
    /// The value, when there is one.
    pub fn value(&self) -> Option<T> {
        match self {
            Reading::Value { value } => Some(*value),
            _ => None,
        }
    }
}

/// An md array's RAID level (md/level).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MdLevel {
    /// Concatenation.
    Linear,
    /// Stripes.
    Raid0,
    /// Mirrors.
    Raid1,
    /// Stripes with a parity disk.
    Raid4,
    /// Stripes with rotating parity.
    Raid5,
    /// Stripes with two parities.
    Raid6,
    /// Striped mirrors.
    Raid10,
    /// md's own multipath personality.
    Multipath,
}

impl MdLevel {
    /// The name as md/level writes it.
    pub fn name(self) -> &'static str {
        match self {
            MdLevel::Linear => "linear",
            MdLevel::Raid0 => "raid0",
            MdLevel::Raid1 => "raid1",
            MdLevel::Raid4 => "raid4",
            MdLevel::Raid5 => "raid5",
            MdLevel::Raid6 => "raid6",
            MdLevel::Raid10 => "raid10",
            MdLevel::Multipath => "multipath",
        }
    }
}

/// What carries a network block device's requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetVia {
    /// An iSCSI session.
    Iscsi,
    /// The network block device driver (nbd).
    Nbd,
    /// A Ceph RBD image.
    Rbd,
    /// NVMe over TCP or RDMA.
    NvmeFabrics,
    /// A network file system (NFS, CIFS, …).
    NetworkFs,
}

/// The queue limits the kernel sets for a disk (queue/…).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueLimits {
    /// queue/logical_block_size, bytes.
    pub logical_block_size: Option<u64>,
    /// queue/physical_block_size, bytes.
    pub physical_block_size: Option<u64>,
    /// queue/max_sectors_kb: the largest request the kernel sends, KiB.
    pub max_sectors_kb: Option<u64>,
    /// queue/max_hw_sectors_kb: the largest the device takes, KiB.
    pub max_hw_sectors_kb: Option<u64>,
    /// queue/nr_requests.
    pub nr_requests: Option<u64>,
    /// The active scheduler (queue/scheduler, the bracketed one).
    pub scheduler: Option<String>,
}

/// One SAS phy of a port and the rate it negotiated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SasPhy {
    /// The phy's name (`phy-0:0`).
    pub name: String,
    /// sas_phy/NAME/negotiated_linkrate, Gbit/s.
    pub gbit: Reading<f64>,
}

/// Why a component could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Unresolved {
    /// The name or path is not in the sysfs tree.
    NotInSysfs {
        /// What was looked up, relative to the sysfs root.
        path: String,
    },
    /// Symbolic links there lead round in a loop (or through more than 40 links).
    LinkLoop {
        /// Where, relative to the sysfs root.
        path: String,
    },
    /// A link there leads out of the sysfs tree.
    OutsideTree {
        /// Where, relative to the sysfs root.
        path: String,
    },
    /// Devices there are stacked on themselves.
    Cycle {
        /// The device met again.
        name: String,
    },
    /// The stack is deeper than halfpower follows ([`MAX_DEPTH`]).
    TooDeep,
    /// No mount holds the file (the mount table has no `/`).
    NoMount {
        /// The file.
        file: String,
    },
    /// Several network interfaces are up and sysfs does not say which one carries it.
    WhichNic {
        /// The interfaces that are up.
        candidates: Vec<String>,
    },
    /// No network interface is up, or none says its speed.
    NoNic,
}

/// What a component is, with the facts the kernel gives about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Part {
    /// A mounted file system (the component's name is its mount point).
    Filesystem {
        /// Its type (`ext4`, `xfs`, `tmpfs`, …).
        fs_type: String,
        /// What is mounted (`/dev/sda2`, a server's export, …).
        source: String,
    },
    /// A partition of a disk.
    Partition {
        /// Its number (`partition`).
        number: Option<u32>,
        /// Where it starts on the disk, bytes (`start` × 512).
        start_bytes: Option<u64>,
        /// Its size, bytes (`size` × 512).
        size_bytes: Option<u64>,
    },
    /// A device-mapper device.
    Dm {
        /// dm/name.
        dm_name: Option<String>,
        /// dm/uuid (its prefix names the user: `LVM-`, `CRYPT-`, `mpath-`).
        uuid: Option<String>,
    },
    /// An md (software RAID) array.
    Md {
        /// md/level.
        level: Reading<MdLevel>,
        /// md/raid_disks.
        raid_disks: Option<u32>,
        /// md/chunk_size, bytes.
        chunk_bytes: Option<u64>,
    },
    /// A loop device.
    Loop {
        /// loop/backing_file (absent when nothing is attached).
        backing_file: Option<String>,
    },
    /// A whole disk (or an NVMe namespace).
    Disk {
        /// device/model.
        model: Option<String>,
        /// device/vendor.
        vendor: Option<String>,
        /// The driver bound to its device.
        driver: Option<String>,
        /// queue/rotational.
        rotational: Option<bool>,
        /// Capacity, bytes.
        size_bytes: Option<u64>,
        /// Hardware queues (entries of mq/).
        hw_queues: Option<u32>,
        /// Its place in sysfs' device tree, relative to the root.
        device_path: String,
        /// Queue limits.
        queue: QueueLimits,
    },
    /// An NVMe controller.
    NvmeController {
        /// model.
        model: Option<String>,
        /// transport (`pcie`, `tcp`, `rdma`, `fc`, `loop`).
        transport: Option<String>,
    },
    /// A PCI Express link: between a device and the port above it, named by the device.
    PcieLink {
        /// current_link_speed, GT/s.
        current_gts: Reading<f64>,
        /// current_link_width, lanes.
        current_width: Reading<u32>,
        /// max_link_speed, GT/s.
        max_gts: Reading<f64>,
        /// max_link_width, lanes.
        max_width: Reading<u32>,
        /// The PCI function of a virtual device (virtio-pci): its link is the hypervisor's
        /// invention and says nothing of a rate.
        emulated: bool,
    },
    /// A SATA link (an ATA port's host link).
    SataLink {
        /// ataN/linkN/ata_link/linkN/sata_spd, Gbit/s.
        gbps: Reading<f64>,
    },
    /// A SAS port: one phy, or several (a wide port).
    SasLink {
        /// Its phys.
        phys: Vec<SasPhy>,
    },
    /// A USB device or hub and the speed it runs at.
    Usb {
        /// speed, Mbit/s.
        mbps: Reading<f64>,
    },
    /// A virtio device (a hypervisor's queue).
    Virtio,
    /// A Xen virtual block device.
    Xen,
    /// A Hyper-V VMBus device.
    HyperV,
    /// A network between the host and the storage.
    Network {
        /// What carries the requests.
        via: NetVia,
        /// The interface taken to carry it.
        nic: Option<String>,
        /// class/net/NIC/speed, Mbit/s.
        mbps: Reading<f64>,
        /// Why no interface could be named, when none was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unknown_nic: Option<Unresolved>,
    },
    /// The host's bus (a PCI root: `pci0000:00`).
    HostBus,
    /// The CPUs given to halfpower, from a run's measured CPU time per I/O (not from sysfs).
    Cpu {
        /// Process CPU µs per I/O.
        us_per_io: f64,
        /// CPUs the process may use.
        cpus: u32,
        /// Bytes per I/O: the request size, or the mean of a run's mix of sizes (its bytes ÷ its
        /// I/Os).
        request_bytes: f64,
        /// Whether `request_bytes` is the mean of a mix of sizes.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        mean: bool,
    },
    /// A cgroup's caps on the I/O this process sends to the device beneath
    /// (`blkio.throttle.*`, `io.max`): a limit of policy, not of the hardware.
    CgroupIo {
        /// The kernel's name of the capped device.
        device: String,
        /// Each cap, the tightest over the groups, with the file that sets it.
        caps: Vec<crate::oscounters::throttle::IoCap>,
    },
    /// A limit the user gave on the target above it (`--limit`): what a provider provisions,
    /// which the OS cannot see; reads and writes together.
    Given {
        /// I/Os per second.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        iops: Option<f64>,
        /// Bytes per second.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes_per_s: Option<f64>,
    },
    /// Something that could not be read.
    Unresolved {
        /// Why.
        why: Unresolved,
    },
}

/// The kinds of component, as named in JSON (`kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComponentKind {
    /// [`Part::Filesystem`].
    Filesystem,
    /// [`Part::Partition`].
    Partition,
    /// [`Part::Dm`].
    Dm,
    /// [`Part::Md`].
    Md,
    /// [`Part::Loop`].
    Loop,
    /// [`Part::Disk`].
    Disk,
    /// [`Part::NvmeController`].
    NvmeController,
    /// [`Part::PcieLink`].
    PcieLink,
    /// [`Part::SataLink`].
    SataLink,
    /// [`Part::SasLink`].
    SasLink,
    /// [`Part::Usb`].
    Usb,
    /// [`Part::Virtio`].
    Virtio,
    /// [`Part::Xen`].
    Xen,
    /// [`Part::HyperV`].
    HyperV,
    /// [`Part::Network`].
    Network,
    /// [`Part::HostBus`].
    HostBus,
    /// [`Part::Cpu`].
    Cpu,
    /// [`Part::CgroupIo`].
    CgroupIo,
    /// [`Part::Given`].
    Given,
    /// [`Part::Unresolved`].
    Unresolved,
}

impl Part {
    /// The part's kind.
    pub fn kind(&self) -> ComponentKind {
        use ComponentKind as K;
        match self {
            Part::Filesystem { .. } => K::Filesystem,
            Part::Partition { .. } => K::Partition,
            Part::Dm { .. } => K::Dm,
            Part::Md { .. } => K::Md,
            Part::Loop { .. } => K::Loop,
            Part::Disk { .. } => K::Disk,
            Part::NvmeController { .. } => K::NvmeController,
            Part::PcieLink { .. } => K::PcieLink,
            Part::SataLink { .. } => K::SataLink,
            Part::SasLink { .. } => K::SasLink,
            Part::Usb { .. } => K::Usb,
            Part::Virtio => K::Virtio,
            Part::Xen => K::Xen,
            Part::HyperV => K::HyperV,
            Part::Network { .. } => K::Network,
            Part::HostBus => K::HostBus,
            Part::Cpu { .. } => K::Cpu,
            Part::CgroupIo { .. } => K::CgroupIo,
            Part::Given { .. } => K::Given,
            Part::Unresolved { .. } => K::Unresolved,
        }
    }
}

/// One component read from sysfs and the components directly beneath it (towards the media,
/// then out through the transport to the host bus).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Its name: a kernel name, a mount point, a PCI address, a port.
    pub name: String,
    /// What it is.
    pub part: Part,
    /// Indices of the components beneath it, in the graph's `nodes`.
    pub below: Vec<usize>,
}

/// Every component of the targets walked, each once: a component two targets (or two members
/// of an array) pass through is one node with two above it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    /// The components.
    pub nodes: Vec<Node>,
}

/// What the walk of some targets found.
pub struct Walk {
    /// Every component of the targets.
    pub graph: Graph,
    /// Each target as given and where it starts.
    pub walked: Vec<(String, Walked)>,
    /// The mount-table lines the walk used.
    pub mount_lines: Vec<String>,
}

/// Walks `targets` in `tree` (this machine's /sys unless `HALFPOWER_SYSFS` says otherwise).
pub fn walk(tree: &tree::Tree, targets: &[String]) -> crate::Result<Walk> {
    let live = !crate::oscounters::sysfs::overridden();
    let table = crate::oscounters::mounts::table_path().map(|_| crate::oscounters::mounts::read());
    let mut w = Walker::new(tree, table, live);
    let mut walked = Vec::new();
    for t in targets {
        let found = w.target(t).map_err(|e| {
            crate::Error::invalid(
                "TARGET",
                t,
                format!(
                    "{e}; expected a file or directory, a block device (/dev/sda, \
                     /dev/mapper/NAME) or a kernel name (nvme0n1)"
                ),
            )
        })?;
        walked.push((t.clone(), found));
    }
    Ok(Walk {
        mount_lines: w.used_mount_lines(),
        graph: w.graph().clone(),
        walked,
    })
}
