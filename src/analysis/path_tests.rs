//! The link arithmetic against the figures the standards' own documents give (not computed by
//! halfpower): PCI-SIG quotes 3.938 GB/s for a 3.0 x4 link and 7.877 GB/s for 4.0 x4, 985 MB/s
//! and 1.969 GB/s per 3.0 and 4.0 lane, 500 MB/s per 2.0 lane; SATA-IO 600 MB/s for 6 Gbit/s;
//! SCSI Trade Association 1200 MB/s for 12G SAS and 2400 MB/s for 24G (22.5 Gbit/s); USB-IF
//! 500 MB/s for 5 Gbit/s, 60 MB/s for 480 Mbit/s.

use super::*;
use crate::analysis::pap;
use crate::model::Direction;
use crate::oscounters::path::SasPhy;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn pcie_links_give_the_pci_sig_figures() {
    assert!(close(pcie_bytes_per_s(8.0, 4).0, 3.938e9, 0.5e6));
    assert!(close(pcie_bytes_per_s(16.0, 4).0, 7.877e9, 0.5e6));
    assert!(close(pcie_bytes_per_s(8.0, 1).0, 984.6e6, 0.1e6));
    assert!(close(pcie_bytes_per_s(16.0, 1).0, 1969.2e6, 0.1e6));
    assert!(close(pcie_bytes_per_s(5.0, 1).0, 500e6, 1.0));
    assert!(close(pcie_bytes_per_s(2.5, 1).0, 250e6, 1.0));
    assert!(close(pcie_bytes_per_s(32.0, 16).0, 63.015e9, 0.01e9));
    assert!(close(pcie_bytes_per_s(64.0, 16).0, 128e9, 1.0));
    assert_eq!(pcie_encoding(5.0), Encoding::B8b10b);
    assert_eq!(pcie_encoding(8.0), Encoding::B128b130b);
    assert_eq!(pcie_generation(16.0), Some(4));
    assert_eq!(pcie_generation(7.0), None);
}

#[test]
fn serial_links_give_their_bodies_figures() {
    assert!(close(sata_bytes_per_s(6.0).0, 600e6, 1.0));
    assert!(close(sata_bytes_per_s(3.0).0, 300e6, 1.0));
    assert!(close(sas_bytes_per_s(12.0).0, 1200e6, 1.0));
    assert!(close(sas_bytes_per_s(22.5).0, 2400e6, 1.0));
    assert!(close(usb_bytes_per_s(5000.0).0, 500e6, 1.0));
    assert!(close(usb_bytes_per_s(480.0).0, 60e6, 1.0));
    assert!(close(usb_bytes_per_s(10000.0).0, 1212.1e6, 0.1e6));
    assert!(close(network_bytes_per_s(10000.0), 1250e6, 1.0));
}

#[test]
fn the_cpu_saturates_where_000_says() {
    // 000: 64 KB requests at ~1.3 ms of one CPU each: about 50 MBps.
    let b = cpu_saturation_bytes_per_s(1280.0, 1, 64_000.0).unwrap();
    assert!(close(b, 50e6, 1.0));
    assert_eq!(cpu_saturation_bytes_per_s(0.0, 2, 4096.0), None);
    assert_eq!(cpu_saturation_bytes_per_s(f64::NAN, 2, 4096.0), None);
}

fn link(gts: f64, w: u32, max_gts: f64, max_w: u32) -> Part {
    Part::PcieLink {
        current_gts: Reading::Value { value: gts },
        current_width: Reading::Value { value: w },
        max_gts: Reading::Value { value: max_gts },
        max_width: Reading::Value { value: max_w },
        emulated: false,
    }
}

#[test]
fn down_trained_links_are_flagged() {
    assert!(down_trained(&link(8.0, 2, 8.0, 4)));
    assert!(down_trained(&link(5.0, 4, 8.0, 4)));
    assert!(!down_trained(&link(8.0, 4, 8.0, 4)));
    assert!(!down_trained(&Part::HostBus));
}

#[test]
fn unreadable_links_are_unknown_with_why() {
    let mut p = link(8.0, 0, 8.0, 4);
    assert_eq!(
        limit(&p, None),
        ComponentLimit::Unknown {
            why: UnknownLimit::LinkDown
        }
    );
    if let Part::PcieLink { current_gts, .. } = &mut p {
        *current_gts = Reading::Unparseable {
            attribute: "a".into(),
            text: "fast".into(),
        };
    }
    assert!(matches!(
        limit(&p, None),
        ComponentLimit::Unknown {
            why: UnknownLimit::Unparseable { .. }
        }
    ));
    let sas = Part::SasLink {
        phys: vec![
            SasPhy {
                name: "phy-0:0".into(),
                gbit: Reading::Value { value: 12.0 },
            },
            SasPhy {
                name: "phy-0:1".into(),
                gbit: Reading::Unparseable {
                    attribute: "x".into(),
                    text: "Phy disabled".into(),
                },
            },
        ],
    };
    assert_eq!(limit(&sas, None).bytes_per_s(), Some(1200e6));
    assert!(matches!(
        limit(&Part::SasLink { phys: vec![] }, None),
        ComponentLimit::Unknown {
            why: UnknownLimit::NoPhys
        }
    ));
}

fn comp(part: Part, below: Vec<usize>) -> Component {
    let mut c = cpu_component(1.0, 1, 1.0, false);
    c.combine = combine(&part, below.len());
    c.limit = limit(&part, None);
    c.part = part;
    c.below = below;
    c
}

fn sata(gbps: f64) -> Part {
    Part::SataLink {
        gbps: Reading::Value { value: gbps },
    }
}

fn md(level: MdLevel) -> Part {
    Part::Md {
        level: Reading::Value { value: level },
        raid_disks: Some(2),
        chunk_bytes: None,
    }
}

/// md → two disks → a SATA link each → one HBA link `hba` (5 GT/s x`lanes`).
fn array(level: MdLevel, lanes: u32) -> Vec<Component> {
    let disk = || Part::Virtio; // any part without a limit stands for a disk here
    vec![
        comp(md(level), vec![1, 2]),
        comp(disk(), vec![3]),
        comp(disk(), vec![4]),
        comp(sata(6.0), vec![5]),
        comp(sata(6.0), vec![5]),
        comp(link(5.0, lanes, 5.0, lanes), vec![]),
    ]
}

#[test]
fn stripes_add_and_a_shared_link_caps_their_sum() {
    // Two 600 MB/s links behind an HBA of 5 GT/s x4 (2000 MB/s): 1200 MB/s, at the links.
    let c = array(MdLevel::Raid0, 4);
    let p = pap::paps(&c, &[(0, 1.0)]);
    let r = p.read.unwrap();
    assert!(close(r.bytes_per_s, 1200e6, 1.0));
    assert_eq!((r.component, r.alike, r.load), (3, 1, 0.5));
    // The same behind 5 GT/s x1 (500 MB/s): the HBA's link caps the sum.
    let c = array(MdLevel::Raid0, 1);
    let r = pap::paps(&c, &[(0, 1.0)]).read.unwrap();
    assert!(close(r.bytes_per_s, 500e6, 1.0));
    assert_eq!((r.component, r.load), (5, 1.0));
}

#[test]
fn mirrors_add_reads_and_write_at_the_slowest() {
    let c = array(MdLevel::Raid1, 4);
    let p = pap::paps(&c, &[(0, 1.0)]);
    assert!(close(p.read.unwrap().bytes_per_s, 1200e6, 1.0));
    assert!(close(p.write.clone().unwrap().bytes_per_s, 600e6, 1.0));
    // Behind 500 MB/s, both mirrors' writes cross the HBA link: 250 MB/s.
    let c = array(MdLevel::Raid1, 1);
    let w = pap::paps(&c, &[(0, 1.0)]).write.unwrap();
    assert!(close(w.bytes_per_s, 250e6, 1.0));
    assert_eq!((w.component, w.load), (5, 2.0));
}

#[test]
fn shares_by_rule() {
    let r = Direction::Read;
    let w = Direction::Write;
    assert_eq!(pap::share(Combine::Stripe, 4, w), 0.25);
    assert_eq!(pap::share(Combine::Parity { parity: 1 }, 4, w), 1.0 / 3.0);
    assert_eq!(pap::share(Combine::Parity { parity: 2 }, 4, r), 0.25);
    assert_eq!(pap::share(Combine::Raid10 { copies: 2 }, 4, w), 0.5);
    assert_eq!(pap::share(Combine::Linear, 4, r), 1.0);
    assert_eq!(
        combine(&md(MdLevel::Raid6), 4),
        Combine::Parity { parity: 2 }
    );
    assert_eq!(combine(&md(MdLevel::Raid0), 1), Combine::Chain);
}

#[test]
fn paths_without_limits_or_with_cycles_say_so() {
    let c = vec![comp(Part::Virtio, vec![1]), comp(Part::HostBus, vec![0])];
    let p = pap::paps(&c, &[(0, 1.0)]);
    assert_eq!(p.read, None);
    assert_eq!(p.why_none, Some(crate::model::path::NoPap::NoLimitOnPath));
    let c = vec![comp(link(8.0, 4, 8.0, 4), vec![5, 0])];
    let p = pap::paps(&c, &[(0, 1.0), (9, 1.0)]);
    assert!(close(p.read.unwrap().bytes_per_s, 3.938e9, 0.5e6));
}

#[test]
fn a_run_matches_only_the_paths_own_devices() {
    // A file's run on sda1 beside the path of another file on sda1, and a stripe's two disks.
    assert!(same_devices(&[Some("sda1")], &[Some("sda1")]));
    assert!(same_devices(
        &[Some("sdb"), Some("sdc")],
        &[Some("sdc"), Some("sdb")]
    ));
    // Another device, one beneath (sda under loop0) or above, half a stripe either way.
    assert!(!same_devices(&[Some("sda")], &[Some("loop0")]));
    assert!(!same_devices(&[Some("loop0")], &[Some("sda")]));
    assert!(!same_devices(&[Some("sdb"), Some("sdc")], &[Some("sdb")]));
    assert!(!same_devices(&[Some("sdb")], &[Some("sdb"), Some("sdc")]));
    // Files without a device (tmpfs) match each other, not a device; no run target, nothing.
    assert!(same_devices(&[None], &[None]));
    assert!(!same_devices(&[Some("sda")], &[None]));
    assert!(!same_devices(&[Some("sda")], &[]));
}

#[test]
fn a_cgroup_cap_limits_each_direction_by_bytes_or_by_ios_at_a_size() {
    use crate::oscounters::cgroup::CgroupVersion;
    let cap = |field, value| IoCap {
        field,
        value,
        file: "f".into(),
        version: CgroupVersion::V1,
    };
    // 50 MB/s of reads, 1000 writes a second: writes need a size to be told in bytes.
    let caps = vec![
        cap(IoField::ReadBytesPerS, 5e7),
        cap(IoField::WriteIops, 1000.0),
    ];
    let policy = |r, w, size| ComponentLimit::Policy {
        read_bytes_per_s: r,
        write_bytes_per_s: w,
        request_bytes: size,
    };
    assert_eq!(policy_limit(&caps, None), policy(Some(5e7), None, None));
    // At 4 KiB the writes' cap is 4.096 MB/s; with 2000 reads a second too, the tighter:
    // 2000 × 4096 = 8.192 MB/s.
    let mut more = caps.clone();
    more.push(cap(IoField::ReadIops, 2000.0));
    assert_eq!(
        policy_limit(&more, Some(4096.0)),
        policy(Some(8_192_000.0), Some(4_096_000.0), Some(4096.0))
    );
    let ios_only = [cap(IoField::ReadIops, 2000.0)];
    assert_eq!(
        policy_limit(&ios_only, None),
        ComponentLimit::None {
            why: NoLimit::NeedsRequestSize
        }
    );
    // Above a device without a limit of its own, the cap sets the PAP of reads only; above a
    // stripe member it carries that member's half, so the target's PAP is twice the cap.
    let c = vec![
        comp(Part::Virtio, vec![]),
        cgroup_component("loop0", caps.clone(), 0, None),
    ];
    let p = pap::target_paps(&c, 1, &[]);
    let r = p.read.unwrap();
    assert_eq!((r.bytes_per_s, r.component), (5e7, 1));
    assert!(p.write.is_none());
    let mut c = array(MdLevel::Raid0, 16);
    c.push(cgroup_component("sda", caps, 3, None));
    c[1].below = vec![6];
    let r = pap::paps(&c, &[(0, 1.0)]).read.unwrap();
    assert_eq!((r.bytes_per_s, r.component, r.load), (1e8, 6, 0.5));
    assert_eq!(pap::share(Combine::Chain, 1, Direction::Write), 1.0);
}
