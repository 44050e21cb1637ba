//! What each component of a path can carry, from what the kernel says of it: the link-rate
//! arithmetic (signalling rate × lanes × the line code's share of data bits ÷ 8), whether a
//! PCIe link runs below its maximum (down-trained), and how the components beneath one share
//! its load. The PAP that follows from them is `analysis::pap`'s.
//!
//! Line codes: PCIe 2.5 and 5 GT/s 8b/10b, 8 to 32 GT/s 128b/130b (PCIe 3.0 x4 = 8 × 4 ×
//! 128/130 ÷ 8 = 3.938 GB/s; 4.0 x4 = 7.877 GB/s), 64 GT/s PAM4 flits taken at the advertised
//! 8 GB/s per lane; SATA 8b/10b (6 Gbit/s = 600 MB/s); SAS 8b/10b up to 12 Gbit/s (1200 MB/s),
//! 128b/150b at 22.5 (2400 MB/s); USB 3.x 5 Gbit/s 8b/10b (500 MB/s), 10 and 20 Gbit/s
//! 128b/132b, USB 2.0 and slower as signalled (480 Mbit/s = 60 MB/s); a network interface's
//! speed as it says (10000 Mbit/s = 1250 MB/s).

use crate::model::DeviceClass;
use crate::model::path::{Combine, Component, ComponentLimit, Encoding, NoLimit, UnknownLimit};
use crate::oscounters::path::{Graph, MdLevel, Part, Reading};
use crate::oscounters::sysfs::DeviceFacts;
use crate::oscounters::throttle::{IoCap, IoField};

/// The share of the bits on the wire that carry data.
pub fn efficiency(e: Encoding) -> f64 {
    match e {
        Encoding::B8b10b => 8.0 / 10.0,
        Encoding::B128b130b => 128.0 / 130.0,
        Encoding::B128b132b => 128.0 / 132.0,
        Encoding::B128b150b => 128.0 / 150.0,
        Encoding::B1b1b | Encoding::Raw => 1.0,
    }
}

/// The line code of a PCIe link at `gts` GT/s.
pub fn pcie_encoding(gts: f64) -> Encoding {
    if gts <= 5.0 {
        Encoding::B8b10b
    } else if gts < 64.0 {
        Encoding::B128b130b
    } else {
        Encoding::B1b1b
    }
}

/// The PCIe generation running at `gts` GT/s (1 to 6), when it is one.
pub fn pcie_generation(gts: f64) -> Option<u32> {
    [2.5, 5.0, 8.0, 16.0, 32.0, 64.0]
        .iter()
        .position(|&g| (gts - g).abs() < 1e-6)
        .map(|i| i as u32 + 1)
}

/// A PCIe link's data rate, bytes/s, and its line code.
pub fn pcie_bytes_per_s(gts: f64, width: u32) -> (f64, Encoding) {
    let e = pcie_encoding(gts);
    (gts * 1e9 * f64::from(width) * efficiency(e) / 8.0, e)
}

/// A SATA link's data rate at `gbps` Gbit/s (8b/10b), bytes/s.
pub fn sata_bytes_per_s(gbps: f64) -> (f64, Encoding) {
    (
        gbps * 1e9 * efficiency(Encoding::B8b10b) / 8.0,
        Encoding::B8b10b,
    )
}

/// A SAS phy's data rate at `gbit` Gbit/s, bytes/s: 8b/10b up to 12, 128b/150b above.
pub fn sas_bytes_per_s(gbit: f64) -> (f64, Encoding) {
    let e = if gbit <= 12.0 {
        Encoding::B8b10b
    } else {
        Encoding::B128b150b
    };
    (gbit * 1e9 * efficiency(e) / 8.0, e)
}

/// A USB link's data rate at `mbps` Mbit/s, bytes/s: as signalled up to USB 2.0, 8b/10b at 5
/// Gbit/s (Gen 1), 128b/132b above (Gen 2, Gen 2x2, USB4).
pub fn usb_bytes_per_s(mbps: f64) -> (f64, Encoding) {
    let e = if mbps <= 480.0 {
        Encoding::Raw
    } else if mbps <= 5000.0 {
        Encoding::B8b10b
    } else {
        Encoding::B128b132b
    };
    (mbps * 1e6 * efficiency(e) / 8.0, e)
}

/// A network interface's data rate at `mbps` Mbit/s, bytes/s.
pub fn network_bytes_per_s(mbps: f64) -> f64 {
    mbps * 1e6 / 8.0
}

/// The rate at which `cpus` CPUs are saturated by I/Os of `request_bytes` that cost
/// `us_per_io` µs of CPU each, bytes/s (000: "CPU will saturate at 50 MBps"); None without a
/// cost. For a run's mix of sizes both are its means over the same I/Os (CPU time ÷ I/Os,
/// bytes ÷ I/Os: [`mean_request_bytes`]), so the rate is CPUs × the run's bytes per CPU second.
pub fn cpu_saturation_bytes_per_s(us_per_io: f64, cpus: u32, request_bytes: f64) -> Option<f64> {
    (us_per_io.is_finite() && us_per_io > 0.0 && cpus > 0 && request_bytes.is_finite())
        .then(|| f64::from(cpus) * 1e6 / us_per_io * request_bytes)
}

/// A run's bytes per I/O: its bytes ÷ its I/Os, the mean over the same I/Os its CPU µs per I/O
/// is (a mix of 4k/50:16k/30:64k/20 moves about 20 070 bytes an I/O, not its largest 64k);
/// `planned` (the mix's weighted mean) when it completed none.
pub fn mean_request_bytes(bytes: u64, ios: u64, planned: f64) -> f64 {
    if ios > 0 {
        bytes as f64 / ios as f64
    } else {
        planned
    }
}

fn unknown<T>(r: &Reading<T>) -> UnknownLimit {
    match r {
        Reading::Missing { attribute } => UnknownLimit::Missing {
            attribute: attribute.clone(),
        },
        Reading::Unparseable { attribute, text } => UnknownLimit::Unparseable {
            attribute: attribute.clone(),
            text: text.clone(),
        },
        // A value: its own caller decides; a width of 0 is a link that is down.
        Reading::Value { .. } => UnknownLimit::LinkDown,
    }
}

fn advertised((bytes_per_s, e): (f64, Encoding)) -> ComponentLimit {
    ComponentLimit::Advertised {
        bytes_per_s,
        encoding: Some(e),
    }
}

fn from_reading(r: &Reading<f64>, rate: impl Fn(f64) -> (f64, Encoding)) -> ComponentLimit {
    match r.value() {
        Some(v) => advertised(rate(v)),
        None => ComponentLimit::Unknown { why: unknown(r) },
    }
}

/// What a component can carry, from its facts (`class` for a disk).
pub fn limit(part: &Part, class: Option<DeviceClass>) -> ComponentLimit {
    let none = |why| ComponentLimit::None { why };
    match part {
        Part::Filesystem { .. }
        | Part::Partition { .. }
        | Part::Dm { .. }
        | Part::Md { .. }
        | Part::Loop { .. } => none(NoLimit::Software),
        Part::Disk { .. } if class == Some(DeviceClass::Ram) => none(NoLimit::MemoryBacked),
        Part::Disk { .. } => none(NoLimit::NoMediaRate),
        Part::NvmeController { .. } => none(NoLimit::ControllerRate),
        Part::Virtio | Part::Xen | Part::HyperV => none(NoLimit::VirtualBus),
        Part::HostBus => none(NoLimit::HostBusRate),
        Part::PcieLink { emulated: true, .. } => none(NoLimit::EmulatedLink),
        Part::PcieLink {
            current_gts,
            current_width,
            ..
        } => match (current_gts.value(), current_width.value()) {
            (Some(g), Some(w)) if w > 0 => advertised(pcie_bytes_per_s(g, w)),
            (Some(_), Some(_)) => ComponentLimit::Unknown {
                why: UnknownLimit::LinkDown,
            },
            (None, _) => ComponentLimit::Unknown {
                why: unknown(current_gts),
            },
            (_, None) => ComponentLimit::Unknown {
                why: unknown(current_width),
            },
        },
        Part::SataLink { gbps } => from_reading(gbps, sata_bytes_per_s),
        Part::SasLink { phys } => sas_limit(phys),
        Part::Usb { mbps } => from_reading(mbps, usb_bytes_per_s),
        Part::Network {
            mbps, unknown_nic, ..
        } => match (mbps.value(), unknown_nic) {
            (Some(v), _) => ComponentLimit::Advertised {
                bytes_per_s: network_bytes_per_s(v),
                encoding: Some(Encoding::Raw),
            },
            (None, Some(why)) => ComponentLimit::Unknown {
                why: UnknownLimit::Unresolved { why: why.clone() },
            },
            (None, None) => ComponentLimit::Unknown { why: unknown(mbps) },
        },
        Part::Cpu {
            us_per_io,
            cpus,
            request_bytes,
            ..
        } => match cpu_saturation_bytes_per_s(*us_per_io, *cpus, *request_bytes) {
            Some(b) => ComponentLimit::Advertised {
                bytes_per_s: b,
                encoding: None,
            },
            None => ComponentLimit::Unknown {
                why: UnknownLimit::Unparseable {
                    attribute: "cpu.us_per_io".into(),
                    text: us_per_io.to_string(),
                },
            },
        },
        Part::CgroupIo { caps, .. } => policy_limit(caps, None),
        Part::Given { iops, bytes_per_s } => given_limit(*iops, *bytes_per_s, None),
        Part::Unresolved { why } => ComponentLimit::Unknown {
            why: UnknownLimit::Unresolved { why: why.clone() },
        },
    }
}

/// What a cgroup's caps let through in bytes/s, each direction on its own: the least of its
/// bytes cap and its I/O cap × `request_bytes` (an I/O cap alone, without a request size, says
/// nothing of bytes: no limit that can be told).
pub fn policy_limit(caps: &[IoCap], request_bytes: Option<f64>) -> ComponentLimit {
    let cap = |f: IoField| caps.iter().find(|c| c.field == f).map(|c| c.value);
    let one = |bytes: IoField, ios: IoField| {
        let by_ios = cap(ios).zip(request_bytes).map(|(n, b)| n * b);
        match (cap(bytes), by_ios) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    };
    let read = one(IoField::ReadBytesPerS, IoField::ReadIops);
    let write = one(IoField::WriteBytesPerS, IoField::WriteIops);
    if read.is_none() && write.is_none() {
        return ComponentLimit::None {
            why: NoLimit::NeedsRequestSize,
        };
    }
    ComponentLimit::Policy {
        read_bytes_per_s: read,
        write_bytes_per_s: write,
        request_bytes: request_bytes.filter(|_| caps.iter().any(|c| is_ios(c.field))),
    }
}

/// What a limit the user gave lets through in bytes/s, reads and writes together: the least
/// of its bytes and its I/Os × `request_bytes` (I/Os alone, without a request size, say
/// nothing of bytes).
pub fn given_limit(
    iops: Option<f64>,
    bytes_per_s: Option<f64>,
    request_bytes: Option<f64>,
) -> ComponentLimit {
    let by_ios = iops.zip(request_bytes).map(|(n, b)| n * b);
    let Some(l) = [bytes_per_s, by_ios].into_iter().flatten().reduce(f64::min) else {
        return ComponentLimit::None {
            why: NoLimit::NeedsRequestSize,
        };
    };
    ComponentLimit::Policy {
        read_bytes_per_s: Some(l),
        write_bytes_per_s: Some(l),
        request_bytes: request_bytes.filter(|_| iops.is_some()),
    }
}

/// The component of a limit the user gave on a target, set above the component `below` (the
/// target's top), its rate at `request_bytes` where its I/Os need one.
pub fn given_component(
    target: &str,
    g: &crate::model::policy::GivenLimit,
    below: usize,
    request_bytes: Option<f64>,
) -> Component {
    let part = Part::Given {
        iops: g.iops,
        bytes_per_s: g.bytes_per_s,
    };
    Component {
        name: target.to_string(),
        limit: given_limit(g.iops, g.bytes_per_s, request_bytes),
        part,
        class: None,
        cloud: None,
        below: vec![below],
        combine: Combine::Chain,
        down_trained: false,
        measured_bytes_per_s: None,
        measured_from: None,
    }
}

fn is_ios(f: IoField) -> bool {
    matches!(f, IoField::ReadIops | IoField::WriteIops)
}

/// The component of a cgroup's `caps` on `device`, set above the component `below` (the
/// device's), its rate at `request_bytes` where an I/O cap needs one.
pub fn cgroup_component(
    device: &str,
    caps: Vec<IoCap>,
    below: usize,
    request_bytes: Option<f64>,
) -> Component {
    let limit = policy_limit(&caps, request_bytes);
    Component {
        name: device.to_string(),
        part: Part::CgroupIo {
            device: device.to_string(),
            caps,
        },
        class: None,
        cloud: None,
        below: vec![below],
        combine: Combine::Chain,
        limit,
        down_trained: false,
        measured_bytes_per_s: None,
        measured_from: None,
    }
}

/// A SAS port carries what its phys negotiated together (a wide port adds them); phys that
/// did not negotiate a rate add nothing.
fn sas_limit(phys: &[crate::oscounters::path::SasPhy]) -> ComponentLimit {
    let rates: Vec<(f64, Encoding)> = phys
        .iter()
        .filter_map(|p| p.gbit.value().map(sas_bytes_per_s))
        .collect();
    match (rates.first(), phys.first()) {
        (Some(&(_, e)), _) => ComponentLimit::Advertised {
            bytes_per_s: rates.iter().map(|r| r.0).sum(),
            encoding: Some(e),
        },
        (None, Some(p)) => ComponentLimit::Unknown {
            why: unknown(&p.gbit),
        },
        (None, None) => ComponentLimit::Unknown {
            why: UnknownLimit::NoPhys,
        },
    }
}

/// Whether a PCIe link runs narrower or slower than it can (down-trained).
pub fn down_trained(part: &Part) -> bool {
    let Part::PcieLink {
        current_gts,
        current_width,
        max_gts,
        max_width,
        emulated: false,
    } = part
    else {
        return false;
    };
    let less = |c: Option<f64>, m: Option<f64>| matches!((c, m), (Some(c), Some(m)) if c < m);
    less(current_gts.value(), max_gts.value())
        || less(
            current_width.value().map(f64::from),
            max_width.value().map(f64::from),
        )
}

/// How the `n` components beneath `part` share its load.
pub fn combine(part: &Part, n: usize) -> Combine {
    if n <= 1 {
        return Combine::Chain;
    }
    match part {
        Part::Md { level, .. } => match level.value() {
            Some(MdLevel::Raid0) => Combine::Stripe,
            Some(MdLevel::Raid1) => Combine::Mirror,
            Some(MdLevel::Raid4 | MdLevel::Raid5) => Combine::Parity { parity: 1 },
            Some(MdLevel::Raid6) => Combine::Parity { parity: 2 },
            Some(MdLevel::Raid10) => Combine::Raid10 { copies: 2 },
            Some(MdLevel::Linear) => Combine::Linear,
            Some(MdLevel::Multipath) => Combine::Multipath,
            None => Combine::Assumed,
        },
        Part::Dm { uuid, .. } if uuid.as_deref().is_some_and(|u| u.starts_with("mpath-")) => {
            Combine::Multipath
        }
        Part::Disk { .. } => Combine::Multipath,
        _ => Combine::Assumed,
    }
}

/// A disk's class from its facts (`analysis::device::classify`).
fn class_of(name: &str, part: &Part) -> Option<DeviceClass> {
    let Part::Disk {
        rotational,
        hw_queues,
        driver,
        vendor,
        device_path,
        ..
    } = part
    else {
        return None;
    };
    Some(super::device::classify(&DeviceFacts {
        name: name.to_string(),
        rotational: *rotational,
        slaves: Vec::new(),
        hw_queues: *hw_queues,
        driver: driver.clone(),
        vendor: vendor.clone(),
        device_path: Some(device_path.clone()),
    }))
}

/// A disk's cloud provider, from its model, vendor and driver (`analysis::cloud`).
fn cloud_of(part: &Part) -> Option<crate::model::cloud::CloudDisk> {
    let Part::Disk {
        model,
        vendor,
        driver,
        ..
    } = part
    else {
        return None;
    };
    super::cloud::recognise(model.as_deref(), vendor.as_deref(), driver.as_deref())
}

/// The components of a walked graph, each with its class, limit, rule and flags.
pub fn components(g: &Graph) -> Vec<Component> {
    g.nodes
        .iter()
        .map(|n| {
            let class = class_of(&n.name, &n.part);
            let cloud = cloud_of(&n.part);
            Component {
                name: n.name.clone(),
                class,
                cloud,
                below: n.below.clone(),
                combine: combine(&n.part, n.below.len()),
                limit: match cloud {
                    Some(c) if c.provisioned() => ComponentLimit::None {
                        why: NoLimit::Provisioned,
                    },
                    _ => limit(&n.part, class),
                },
                down_trained: down_trained(&n.part),
                measured_bytes_per_s: None,
                measured_from: None,
                part: n.part.clone(),
            }
        })
        .collect()
}

/// The CPU as a component: the CPUs given to halfpower, saturated at the rate a run's CPU
/// cost per I/O allows at its request size.
pub fn cpu_component(us_per_io: f64, cpus: u32, request_bytes: f64, mean: bool) -> Component {
    let part = Part::Cpu {
        us_per_io,
        cpus,
        request_bytes,
        mean,
    };
    Component {
        name: format!("{cpus} CPUs"),
        class: None,
        cloud: None,
        below: Vec::new(),
        combine: Combine::Chain,
        limit: limit(&part, None),
        down_trained: false,
        measured_bytes_per_s: None,
        measured_from: None,
        part,
    }
}

/// Whether a run measured the targets of a path: `run` holds the block device each of the
/// run's targets is or lives on (its partition, else its disk: kernel names; None without one),
/// `path` the same of each path target. They match when each run target's device is a path
/// target's and each path target's a run target's (a file on tmpfs, without a device, matches
/// another such). Else the run's figures are another device's, and the path would set them
/// beside limits they never passed through (a run of sda beside loop0's path, which holds sda
/// beneath it, too: its I/O never passed through loop0).
pub fn same_devices(path: &[Option<&str>], run: &[Option<&str>]) -> bool {
    !run.is_empty() && run.iter().all(|r| path.contains(r)) && path.iter().all(|p| run.contains(p))
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;
