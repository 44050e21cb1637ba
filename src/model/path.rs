//! The path document (`kind: "path"`): for each target the components between the application
//! and the media (000 Figure 1), each with what the kernel says of it and its advertised limit
//! (or none, and why), how the components beneath it share its load, and the PAP: the tightest
//! limit on the path and which component sets it. `analysis::path` fills it.

use super::DeviceClass;
use super::Header;
pub use crate::oscounters::path::{
    ComponentKind, MdLevel, NetVia, Part, QueueLimits, Reading, SasPhy, TargetForm, Unresolved,
};
use serde::{Deserialize, Serialize};

/// A line code: how many of the bits on the wire carry data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Encoding {
    /// 8 data bits in 10 (PCIe 1.x/2.x, SATA, SAS up to 12G, USB 3.x Gen 1).
    #[serde(rename = "8b/10b")]
    B8b10b,
    /// 128 in 130 (PCIe 3.0 to 5.0).
    #[serde(rename = "128b/130b")]
    B128b130b,
    /// 128 in 132 (USB 3.x Gen 2, USB4).
    #[serde(rename = "128b/132b")]
    B128b132b,
    /// 128 in 150 (SAS-4, 22.5 Gbit/s: its 24G).
    #[serde(rename = "128b/150b")]
    B128b150b,
    /// PAM4 flits, every bit data as advertised (PCIe 6.0).
    #[serde(rename = "1b/1b")]
    B1b1b,
    /// The rate as signalled, no block code (USB 2.0, a network interface's speed).
    #[serde(rename = "raw")]
    Raw,
}

/// Why a component has no advertised limit of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoLimit {
    /// A layer of software (file system, partition, dm, md, loop): what it costs is CPU time.
    Software,
    /// A disk: the kernel gives no media rate.
    NoMediaRate,
    /// Memory (zram, a RAM disk, pmem): no link to limit it.
    MemoryBacked,
    /// An NVMe controller: its rate is not in sysfs (its link is).
    ControllerRate,
    /// A hypervisor's queue (virtio, Xen, Hyper-V): no link with a rate.
    VirtualBus,
    /// A virtual device's PCI link, which the hypervisor makes up.
    EmulatedLink,
    /// The host bus: its rate is not in sysfs.
    HostBusRate,
    /// A cgroup's cap of I/Os per second only: its rate in bytes needs a request size (a
    /// run's, `--from`).
    NeedsRequestSize,
    /// A cloud provider's volume (`cloud`): its rate is what the provider provisions, which
    /// the OS cannot see (the user gives it: `--limit`).
    Provisioned,
}

/// Why a component's limit could not be told.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum UnknownLimit {
    /// The attribute that gives it is missing.
    Missing {
        /// The attribute, relative to the sysfs root.
        attribute: String,
    },
    /// The attribute's text is not what the kernel writes.
    Unparseable {
        /// The attribute.
        attribute: String,
        /// Its text.
        text: String,
    },
    /// The link is down (width 0).
    LinkDown,
    /// A SAS port without phys.
    NoPhys,
    /// The component itself could not be read.
    Unresolved {
        /// Why.
        why: Unresolved,
    },
}

/// What a component can carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ComponentLimit {
    /// An advertised rate.
    Advertised {
        /// Bytes per second, data only (after the line code).
        bytes_per_s: f64,
        /// The line code taken off the signalling rate (absent for the CPU).
        encoding: Option<Encoding>,
    },
    /// None of its own.
    None {
        /// Why.
        why: NoLimit,
    },
    /// One it should have, but it could not be read.
    Unknown {
        /// Why.
        why: UnknownLimit,
    },
    /// A cap set by policy (a cgroup's), each direction on its own: the least of its bytes
    /// cap and its I/O cap times the request size.
    Policy {
        /// Reads, bytes/s (absent: no cap on them that a rate in bytes can be told of).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        read_bytes_per_s: Option<f64>,
        /// Writes, bytes/s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        write_bytes_per_s: Option<f64>,
        /// The request size an I/O cap was taken at, bytes (absent without one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_bytes: Option<f64>,
    },
}

impl ComponentLimit {
    /// The advertised rate, bytes/s (a policy's in neither direction alone: see
    /// [`ComponentLimit::bytes_per_s_in`]).
    pub fn bytes_per_s(&self) -> Option<f64> {
        match self {
            ComponentLimit::Advertised { bytes_per_s, .. } => Some(*bytes_per_s),
            _ => None,
        }
    }

    /// The most it carries in direction `dir`, bytes/s.
    pub fn bytes_per_s_in(&self, dir: super::Direction) -> Option<f64> {
        match self {
            ComponentLimit::Policy {
                read_bytes_per_s,
                write_bytes_per_s,
                ..
            } => match dir {
                super::Direction::Read => *read_bytes_per_s,
                super::Direction::Write => *write_bytes_per_s,
            },
            _ => self.bytes_per_s(),
        }
    }
}

/// How the components beneath one share its load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Combine {
    /// One beneath, carrying all of it.
    Chain,
    /// Stripes (RAID 0): each of n carries 1/n.
    Stripe,
    /// Mirrors (RAID 1): reads 1/n each, writes all of it each.
    Mirror,
    /// Stripes with parity (RAID 4/5/6): reads 1/n each, writes 1/(n − parity) each.
    Parity {
        /// Parity disks per stripe.
        parity: u32,
    },
    /// Striped mirrors (RAID 10): reads 1/n each, writes copies/n each.
    Raid10 {
        /// Copies of each block.
        copies: u32,
    },
    /// Concatenated (linear): any one may carry all of it.
    Linear,
    /// Paths to one device (multipath): each of n carries 1/n.
    Multipath,
    /// Several beneath, sysfs does not say how (a dm table): taken as linear.
    Assumed,
}

/// Where a component's measured rate comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MeasuredFrom {
    /// The kernel's counters of that block device over the run's window.
    DeviceCounters,
    /// The run's throughput × the share of it the component carries.
    RunShare,
}

/// One component of the path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Component {
    /// Its name: a kernel name, a mount point, a PCI address, a port.
    pub name: String,
    /// What it is (`kind`) and what the kernel says of it.
    #[serde(flatten)]
    pub part: Part,
    /// A disk's class (`analysis::device`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<DeviceClass>,
    /// A disk that is a cloud provider's block device, by what sysfs names it
    /// (`analysis::cloud`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud: Option<super::cloud::CloudDisk>,
    /// The components beneath it (indices into `components`).
    pub below: Vec<usize>,
    /// How they share its load.
    pub combine: Combine,
    /// What it can carry.
    pub limit: ComponentLimit,
    /// A PCIe link running below its own maximum width or speed (down-trained).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub down_trained: bool,
    /// With `--from`: the rate measured through it, bytes/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_bytes_per_s: Option<f64>,
    /// Where `measured_bytes_per_s` comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_from: Option<MeasuredFrom>,
}

/// The peak advertised performance in one direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pap {
    /// The tightest limit on the path, as a rate of the target, bytes/s: the component's
    /// limit over its load.
    pub bytes_per_s: f64,
    /// The component that sets it (index into `components`).
    pub component: usize,
    /// The share of the target's rate that component carries (0.5: one of two stripes; 2: a
    /// link both mirrors' writes cross).
    pub load: f64,
    /// Other components that set the same limit (the other members' links).
    pub alike: usize,
    /// Whether every component's limit was known (else the PAP is at most this).
    pub complete: bool,
}

/// Why a path has no PAP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoPap {
    /// No component on it advertises a rate (a virtual disk, a RAM disk).
    NoLimitOnPath,
    /// The components that would have could not be read.
    UnknownLimits,
}

/// The PAP of a path for reads and for writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Paps {
    /// For reads.
    pub read: Option<Pap>,
    /// For writes (lower than reads through mirrors and parity).
    pub write: Option<Pap>,
    /// Why there is none, when there is none.
    pub why_none: Option<NoPap>,
    /// Components whose limit is unknown.
    pub unknown: Vec<usize>,
}

/// One target and its path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetPath {
    /// The target as given.
    pub target: String,
    /// How it was taken.
    pub form: TargetForm,
    /// The block device it is or lives on (kernel name).
    pub device: Option<String>,
    /// Its first component (index into `components`).
    pub top: usize,
    /// Its PAP.
    pub pap: Paps,
}

/// With `--from`: the run whose figures stand beside the limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The run document read.
    pub source: String,
    /// Its throughput, all targets, bytes/s.
    pub bytes_per_s: f64,
    /// Its reads, bytes/s.
    pub read_bytes_per_s: f64,
    /// Its writes, bytes/s.
    pub write_bytes_per_s: f64,
    /// Its bytes per I/O: the request size, or with a mix of sizes the mean over its I/Os
    /// (its bytes ÷ its I/Os; written as the largest size before issue 44).
    pub request_bytes: f64,
    /// Its mix of request sizes, when it mixed sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<crate::access::RequestSize>,
    /// Its process CPU µs per I/O.
    pub cpu_us_per_io: f64,
    /// CPUs the run's process could use.
    pub cpus: u32,
}

/// The document `halfpower path --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The sysfs tree read (/sys, or `HALFPOWER_SYSFS`).
    pub sysfs_root: String,
    /// Every component, each once (a component two targets share is one).
    pub components: Vec<Component>,
    /// The targets.
    pub targets: Vec<TargetPath>,
    /// With several targets: the PAP of all of them at once, each carrying an equal share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub together: Option<Paps>,
    /// With `--from`: the run's figures (and the CPU among the components).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// The CPU component, with `--from` (index into `components`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<usize>,
    /// Warnings.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for PathReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.targets.is_empty()).then_some("the path has no targets")
    }
}

/// Where a PAP came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PapFrom {
    /// `--pap`.
    Flag,
    /// The path of the targets (`halfpower path`).
    Path,
}

/// Where a PAP came from, as `sweep`, `quick` and `scale` record it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PapSource {
    /// `--pap` or the path.
    pub from: PapFrom,
    /// From the path: the component that sets it (its `below` left empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<Component>,
    /// The share of the rate that component carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<f64>,
    /// From the path: whether every limit on it was known (else the PAP is at most this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete: Option<bool>,
}

/// A PAP a measuring command (`quick`, `scale`) took from the path, and how far its figure got
/// towards it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PapReached {
    /// The PAP, bytes/s.
    pub pap_bytes_per_s: f64,
    /// Where it came from.
    pub source: PapSource,
    /// The figure set against it, bytes/s (`quick`: SEQ1M Q8T1 reads; `scale`: the limit the
    /// total stopped at, else its last step).
    pub measured_bytes_per_s: Option<f64>,
    /// Measured over PAP.
    pub reached: Option<f64>,
}
