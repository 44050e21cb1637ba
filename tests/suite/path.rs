//! `halfpower path`: the chain and the PAP of fixture trees laid out as the kernel lays them out
//! (tests/fixtures/sysfs, made by make.sh there), each PAP against the figure its standard's
//! body publishes (PCI-SIG: 3.938 GB/s for PCIe 3.0 x4, 7.877 for 4.0 x4, 1.969 for 3.0 x2;
//! SATA-IO: 600 MB/s at 6 Gbit/s; STA: 1200 MB/s for 12G SAS; USB-IF: 500 MB/s at 5 Gbit/s),
//! combined by hand; garbage trees; a capture re-read; the PAP a sweep takes from a fixture;
//! and, as root, the live chains of a loop device, the root disk and a file on it.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;

const FIXTURES: &str = "tests/fixtures/sysfs";

/// `HALFPOWER_SYSFS=tests/fixtures/sysfs/TREE halfpower ARGS --json -`.
fn in_tree(tree: &str, args: &[&str]) -> Value {
    crate::common::in_sysfs(&format!("{FIXTURES}/{tree}"), args)
}

fn path_of(tree: &str, target: &str) -> Value {
    in_tree(tree, &["path", target])
}

/// The components from target `t`'s top, following each one's first component beneath:
/// (kind, name).
fn chain(v: &Value, t: usize) -> Vec<(String, String)> {
    let c = v["components"].as_array().unwrap();
    let mut i = v["targets"][t]["top"].as_u64().unwrap() as usize;
    let mut out = Vec::new();
    for _ in 0..32 {
        out.push((
            c[i]["kind"].as_str().unwrap().to_string(),
            c[i]["name"].as_str().unwrap().to_string(),
        ));
        match c[i]["below"].as_array().unwrap().first() {
            Some(b) => i = b.as_u64().unwrap() as usize,
            None => break,
        }
    }
    out
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Target 0's PAP for `dir`: (bytes/s, the component's name, its load).
fn pap(v: &Value, dir: &str) -> (f64, String, f64) {
    let p = &v["targets"][0]["pap"][dir];
    assert!(p.is_object(), "no {dir} PAP: {}", v["targets"][0]["pap"]);
    let i = p["component"].as_u64().unwrap() as usize;
    (
        num(p, "bytes_per_s"),
        v["components"][i]["name"].as_str().unwrap().to_string(),
        num(p, "load"),
    )
}

fn near(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn nvme_links_give_the_pci_sig_rates() {
    let v = path_of("nvme", "nvme0n1");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("disk", "nvme0n1"),
            ("nvme-controller", "nvme0"),
            ("pcie-link", "0000:01:00.0"),
            ("host-bus", "pci0000:00"),
        ])
    );
    let (b, at, load) = pap(&v, "read");
    assert!(near(b, 3.938e9, 0.5e6), "{b}");
    assert_eq!((at.as_str(), load), ("0000:01:00.0", 1.0));
    assert_eq!(pap(&v, "write").0, b);
    assert_eq!(v["components"][2]["encoding"], Value::Null);
    assert_eq!(v["components"][2]["limit"]["encoding"], "128b/130b");

    let v = path_of("nvme", "/dev/nvme1n1");
    assert_eq!(v["targets"][0]["form"], "block-device");
    let (b, at, _) = pap(&v, "read");
    assert!(near(b, 7.877e9, 0.5e6), "{b}");
    assert_eq!(at, "0000:02:00.0");
}

#[test]
fn a_down_trained_link_is_flagged_and_sets_the_pap() {
    let v = path_of("nvme", "nvme2n1");
    let link = v["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "pcie-link")
        .unwrap()
        .clone();
    assert_eq!(link["down_trained"], true, "{link}");
    assert_eq!(num(&link["current_width"], "value"), 2.0);
    assert_eq!(num(&link["max_width"], "value"), 4.0);
    let (b, at, _) = pap(&v, "read");
    assert!(near(b, 1.969e9, 0.5e6), "{b}");
    assert_eq!(at, "0000:03:00.0");
    let text = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/nvme"))
        .args(["path", "nvme2n1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("DOWN-TRAINED"), "{text}");
    // The links that run as they can are not flagged.
    let v = path_of("nvme", "nvme0n1");
    assert!(
        (v["components"].as_array().unwrap())
            .iter()
            .all(|c| c.get("down_trained").is_none())
    );
}

#[test]
fn partitions_dm_and_files_continue_on_the_disk() {
    let v = path_of("nvme", "nvme0n1p1");
    assert_eq!(chain(&v, 0)[0], ("partition".into(), "nvme0n1p1".into()));
    assert_eq!(chain(&v, 0)[1], ("disk".into(), "nvme0n1".into()));
    assert!(near(pap(&v, "read").0, 3.938e9, 0.5e6));

    let v = path_of("nvme", "/dev/mapper/vg0-data");
    assert_eq!(
        chain(&v, 0)[..3],
        pairs(&[
            ("dm", "dm-0"),
            ("partition", "nvme0n1p2"),
            ("disk", "nvme0n1")
        ])[..]
    );
    assert_eq!(v["components"][0]["dm_name"], "vg0-data");
    assert!(near(pap(&v, "read").0, 3.938e9, 0.5e6));

    // A file: the captured mount table places it on /srv/data (xfs on dm-0).
    let v = path_of("nvme", "/srv/data/db/file");
    assert_eq!(v["targets"][0]["form"], "file");
    assert_eq!(v["targets"][0]["device"], "dm-0");
    let c = &v["components"][0];
    assert_eq!(
        (c["kind"].as_str(), c["name"].as_str()),
        (Some("filesystem"), Some("/srv/data"))
    );
    assert_eq!(c["fs_type"], "xfs");
    assert_eq!(chain(&v, 0)[1], ("dm".into(), "dm-0".into()));
    // tmpfs has no device beneath: no PAP, and why.
    let v = path_of("nvme", "/tmp/x");
    assert_eq!(chain(&v, 0), pairs(&[("filesystem", "/tmp")]));
    assert_eq!(v["targets"][0]["pap"]["why_none"], "no-limit-on-path");
}

#[test]
fn nvme_multipath_adds_its_paths() {
    let v = path_of("nvme-multipath", "nvme0n1");
    let c = &v["components"];
    let disk = &c[v["targets"][0]["top"].as_u64().unwrap() as usize];
    assert_eq!(disk["combine"]["rule"], "multipath");
    let ctrls: Vec<&str> = (disk["below"].as_array().unwrap().iter())
        .map(|i| c[i.as_u64().unwrap() as usize]["name"].as_str().unwrap())
        .collect();
    assert_eq!(ctrls, ["nvme0", "nvme1"]);
    // Two PCIe 3.0 x4 links, each carrying half: 2 × 3.938 GB/s.
    let (b, at, load) = pap(&v, "read");
    assert!(near(b, 2.0 * 3.938e9, 1e6), "{b}");
    assert_eq!((at.as_str(), load), ("0000:04:00.0", 0.5));
    assert_eq!(num(&v["targets"][0]["pap"]["read"], "alike"), 1.0);
}

#[test]
fn a_pcie_switchs_uplink_caps_the_drives_behind_it() {
    // Each drive alone: its own 3.0 x4 link, then the switch's 3.0 x4 uplink (both 3.938 GB/s).
    let v = path_of("nvme-switch", "nvme1n1");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("disk", "nvme1n1"),
            ("nvme-controller", "nvme1"),
            ("pcie-link", "0000:04:00.0"),
            ("pcie-link", "0000:01:00.0"),
            ("host-bus", "pci0000:00"),
        ])
    );
    // RAID 0 over both: the members' links would give 2 × 3.938, the one uplink both halves
    // cross carries all of it: 3.938 GB/s.
    let v = path_of("nvme-switch", "md0");
    let (b, at, load) = pap(&v, "read");
    assert!(near(b, 3.938e9, 0.5e6), "{b}");
    assert_eq!((at.as_str(), load), ("0000:01:00.0", 1.0));
}

#[test]
fn sata_sas_and_usb_links_give_their_bodies_rates() {
    let v = path_of("sata", "sda");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("disk", "sda"),
            ("sata-link", "ata1"),
            ("host-bus", "pci0000:00")
        ])
    );
    assert_eq!(v["components"][0]["class"], "ssd");
    let (b, at, _) = pap(&v, "read");
    assert!(near(b, 600e6, 1.0), "{b}");
    assert_eq!(at, "ata1");

    let v = path_of("sas", "sdf");
    assert_eq!(
        chain(&v, 0)[..3],
        pairs(&[
            ("disk", "sdf"),
            ("sas-link", "port-2:0"),
            ("pcie-link", "0000:02:00.0")
        ])[..]
    );
    let (b, at, _) = pap(&v, "read");
    assert!(near(b, 1200e6, 1.0), "{b}");
    assert_eq!(at, "port-2:0");

    let v = path_of("usb", "sdg");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("disk", "sdg"),
            ("usb", "2-1"),
            ("usb", "usb2"),
            ("host-bus", "pci0000:00")
        ])
    );
    let (b, at, _) = pap(&v, "read");
    assert!(near(b, 500e6, 1.0), "{b}");
    assert_eq!(at, "2-1");
}

#[test]
fn md_raid0_adds_its_members_unless_their_hba_is_tighter() {
    // Two 600 MB/s SATA links on the chipset's AHCI: 1200 MB/s, each link carrying half.
    let v = path_of("sata", "md0");
    assert_eq!(v["components"][0]["combine"]["rule"], "stripe");
    let (b, at, load) = pap(&v, "read");
    assert!(near(b, 1200e6, 1.0), "{b}");
    assert_eq!((at.as_str(), load), ("ata2", 0.5));
    // The same on an AHCI card in a PCIe 2.0 x1 slot (5 GT/s × 8/10 ÷ 8 = 500 MB/s), which
    // both members cross.
    let v = path_of("sata", "md1");
    let (b, at, load) = pap(&v, "write");
    assert!(near(b, 500e6, 1.0), "{b}");
    assert_eq!((at.as_str(), load), ("0000:03:00.0", 1.0));
}

#[test]
fn a_loop_device_continues_on_its_backing_files_disk() {
    let v = path_of("sata", "loop0");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("loop", "loop0"),
            ("filesystem", "/data"),
            ("partition", "sda1"),
            ("disk", "sda"),
            ("sata-link", "ata1"),
            ("host-bus", "pci0000:00"),
        ])
    );
    assert_eq!(v["components"][0]["backing_file"], "/data/disk.img");
    assert!(near(pap(&v, "read").0, 600e6, 1.0));
}

#[test]
fn a_virtio_disk_has_no_link_limit_and_says_why() {
    let v = path_of("virtio", "vda");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("disk", "vda"),
            ("virtio", "virtio2"),
            ("pcie-link", "0000:01:00.0"),
            ("host-bus", "pci0000:00")
        ])
    );
    let c = &v["components"];
    assert_eq!(c[0]["class"], "virtual");
    assert_eq!(c[1]["limit"]["state"], "none");
    assert_eq!(c[1]["limit"]["why"], "virtual-bus");
    // QEMU's made-up 2.5 GT/s x1 is not taken as a limit.
    assert_eq!(c[2]["limit"]["why"], "emulated-link");
    let p = &v["targets"][0]["pap"];
    assert!(p["read"].is_null());
    assert_eq!(p["why_none"], "no-limit-on-path");
}

/// Cloud volumes are named by the strings their providers' own udev rules match (padded as
/// the kernel writes them), their limit is the provider's to provision, and the text says so
/// and how to give it; the links beneath still count (the EBS volume's made-up PCIe link is
/// the PAP the path can tell).
#[test]
fn cloud_volumes_are_named_and_their_limit_is_provisioned() {
    let v = in_tree("cloud", &["path", "nvme0n1", "sda", "sdb"]);
    let c = v["components"].as_array().unwrap();
    let disk = |t: usize| &c[v["targets"][t]["top"].as_u64().unwrap() as usize];
    for (t, name, cloud) in [
        (0, "nvme0n1", "aws-ebs"),
        (1, "sda", "google-persistent-disk"),
        (2, "sdb", "azure-disk"),
    ] {
        let d = disk(t);
        assert_eq!(
            (d["name"].as_str(), &d["cloud"]),
            (Some(name), &Value::from(cloud))
        );
        assert_eq!(d["limit"]["state"], "none", "{d}");
        assert_eq!(d["limit"]["why"], "provisioned", "{d}");
    }
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/cloud"))
        .args(["path", "nvme0n1", "sda"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for words in ["AWS EBS volume", "Google Persistent Disk", "--limit"] {
        assert!(text.contains(words), "{words}: {text}");
    }
    // The volume's provisioned rate, given: a component above it, the same rate both ways,
    // and the PAP follows it (125 MB/s, far below the PCIe link's 3.9 GB/s).
    let v = in_tree(
        "cloud",
        &["path", "nvme0n1", "--limit", "iops=3000,mbps=125"],
    );
    let (bytes, name, load) = pap(&v, "read");
    assert_eq!(
        (bytes, name.as_str(), load),
        (125e6, "nvme0n1", 1.0),
        "{}",
        v["targets"]
    );
    let top = &v["components"][v["targets"][0]["top"].as_u64().unwrap() as usize];
    assert_eq!(
        (top["kind"].as_str(), num(top, "iops")),
        (Some("given"), 3000.0),
        "{top}"
    );
    assert_eq!(num(&top["limit"], "write_bytes_per_s"), 125e6, "{top}");
    // One for a target that is not among them is refused by name.
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/cloud"))
        .args(["path", "nvme0n1", "--limit", "iops=5,target=sdz"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("target=sdz") && e.contains("one of the targets: nvme0n1"),
        "{e}"
    );
    // A hardware NVMe disk is no provider's.
    let hw = path_of("nvme", "nvme1n1");
    assert!(
        hw["components"][hw["targets"][0]["top"].as_u64().unwrap() as usize]["cloud"].is_null()
    );
}

#[test]
fn garbage_in_the_tree_is_unknown_with_why() {
    let v = in_tree(
        "garbage",
        &["path", "loopx", "outside", "up", "md0", "nvme0n1", "sdb"],
    );
    let c = v["components"].as_array().unwrap();
    let limit_of = |t: usize| {
        let i = v["targets"][t]["top"].as_u64().unwrap() as usize;
        c[i]["limit"].clone()
    };
    assert_eq!(limit_of(0)["why"]["why"]["reason"], "link-loop");
    assert_eq!(limit_of(1)["why"]["why"]["reason"], "outside-tree");
    assert_eq!(limit_of(2)["why"]["why"]["reason"], "outside-tree");
    let md = &c[v["targets"][3]["top"].as_u64().unwrap() as usize];
    assert_eq!(md["level"]["state"], "unparseable");
    assert_eq!(md["level"]["text"], "raid-seven");
    assert!(
        c.iter().any(|x| x["why"]["reason"] == "cycle"),
        "md0 on itself is named"
    );
    let link = c
        .iter()
        .find(|x| x["name"] == "0000:01:00.0")
        .expect("the NVMe's link");
    assert_eq!(link["limit"]["why"]["reason"], "unparseable");
    assert_eq!(link["limit"]["why"]["text"], "Unknown");
    for t in 0..6 {
        let p = &v["targets"][t]["pap"];
        assert!(p["read"].is_null(), "target {t}: {p}");
        assert_eq!(p["why_none"], "unknown-limits", "target {t}");
    }
    let ata2 = c.iter().find(|x| x["name"] == "ata2").unwrap();
    assert_eq!(ata2["limit"]["why"]["reason"], "missing");
}

#[test]
fn bad_targets_exit_2_naming_the_value() {
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/sas"))
        .args(["path", "sdz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'sdz'") && err.contains("kernel name"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // A file's path needs the captured mount table, which the sas tree has not.
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/sas"))
        .args(["path", "/srv/f"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("proc/self/mountinfo"));
}

/// Unpacks a `--capture` archive into `dir`.
fn unpack(archive: &Path, dir: &Path) {
    let f = std::fs::File::open(archive).unwrap();
    tar::Archive::new(flate2::read::GzDecoder::new(f))
        .unpack(dir)
        .unwrap();
}

/// The components and PAPs of a path document, without where they were read.
fn essence(v: &Value) -> (Value, Value) {
    let paps: Vec<Value> = (v["targets"].as_array().unwrap().iter())
        .map(|t| t["pap"].clone())
        .collect();
    (v["components"].clone(), Value::Array(paps))
}

#[test]
fn a_capture_reruns_to_the_same_path() {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("path.tar.gz");
    let a = archive.to_str().unwrap();
    let first = in_tree("sata", &["path", "loop0", "md1", "--capture", a, "--quiet"]);
    let tree = dir.path().join("tree");
    unpack(&archive, &tree);
    assert!(
        std::fs::symlink_metadata(tree.join("class/block/md1"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "links stay links"
    );
    let again = halfpower()
        .env("HALFPOWER_SYSFS", &tree)
        .args(["path", "loop0", "md1", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(essence(&again), essence(&first));
    // Only what the walk read: md0's members are not in it.
    assert!(!tree.join("class/block/sdb").exists());
    assert!(
        std::fs::read_to_string(tree.join("proc/self/mountinfo"))
            .unwrap()
            .contains(" /data ")
    );
}

#[test]
fn a_run_puts_its_rates_and_its_cpu_beside_the_limits() {
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/report/run-loop.json").unwrap(),
    )
    .unwrap();
    let v = in_tree(
        "sata",
        &[
            "path",
            "loop0",
            "--from",
            "tests/fixtures/report/run-loop.json",
        ],
    );
    let c = v["components"].as_array().unwrap();
    // The CPU: 2 CPUs at the run's µs per I/O saturate at 2 × 10^6 / µs × 4096 bytes.
    let us = num(&run["results"]["cpu"], "us_per_io");
    let cpu = &c[v["cpu"].as_u64().unwrap() as usize];
    assert_eq!(cpu["kind"], "cpu");
    let want = 2.0 * 1e6 / us * 4096.0;
    assert!(near(num(&cpu["limit"], "bytes_per_s"), want, 1.0), "{cpu}");
    // loop0 by its own counters in the run; the SATA link by the run's rate (one chain).
    let dev = &run["results"]["devices"][0];
    let loop0 = c.iter().find(|x| x["name"] == "loop0").unwrap();
    let counted = (num(dev, "read_bytes") + num(dev, "write_bytes")) / num(dev, "seconds");
    assert!(near(num(loop0, "measured_bytes_per_s"), counted, 1.0));
    assert_eq!(loop0["measured_from"], "device-counters");
    let ata1 = c.iter().find(|x| x["name"] == "ata1").unwrap();
    let total = num(&run["results"]["total"], "bytes_per_s");
    assert!(near(num(ata1, "measured_bytes_per_s"), total, 1.0));
    // 600 MB/s is tighter than the CPU's ~2.6 GB/s.
    assert!(near(pap(&v, "read").0, 600e6, 1.0));
    // The report draws it, the tightest marked.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("p.json");
    std::fs::write(&json, serde_json::to_string(&v).unwrap()).unwrap();
    let page = common::report_page(&json);
    for want in ["application", "ata1", "tightest", "measured", "600 MB/s"] {
        assert!(page.contains(want), "{want} missing from the report");
    }
}

/// The mix, 4k/50:16k/30:64k/20: the run's fixture with its workload made that mix
/// and its bytes those of its I/Os drawn in those shares (the test's own arithmetic). The CPU
/// saturates at 2 CPUs × 10^6 ÷ µs per I/O × the run's bytes per I/O (bytes ÷ I/Os, about
/// 20 070), not × its largest size, 64k (3.3× more: the 14.3 GB/s beside 4.4).
#[test]
fn a_mix_of_sizes_saturates_the_cpu_at_its_mean_size() {
    let mut run: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/report/run-loop.json").unwrap(),
    )
    .unwrap();
    let ios = run["results"]["total"]["ios"].as_u64().unwrap();
    let (n4, n16) = (ios / 2, ios * 3 / 10);
    let bytes = n4 * 4096 + n16 * 16384 + (ios - n4 - n16) * 65536;
    run["workload"]["bs"] = "4k/50:16k/30:64k/20".into();
    run["results"]["total"]["bytes"] = bytes.into();
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("mix.json");
    std::fs::write(&from, serde_json::to_string(&run).unwrap()).unwrap();
    let v = in_tree("sata", &["path", "loop0", "--from", from.to_str().unwrap()]);
    let us = num(&run["results"]["cpu"], "us_per_io");
    let mean = bytes as f64 / ios as f64;
    assert!((mean - 20070.4).abs() < 1.0, "{mean}");
    let cpu = &v["components"][v["cpu"].as_u64().unwrap() as usize];
    let want = 2.0 * 1e6 / us * mean;
    assert!(
        near(num(&cpu["limit"], "bytes_per_s"), want, 1.0),
        "{cpu} against {want}"
    );
    assert!(near(num(cpu, "request_bytes"), mean, 1e-6), "{cpu}");
    assert_eq!(v["measured"]["mix"], "4k/50:16k/30:64k/20");
    let text = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/sata"))
        .args(["path", "loop0", "--from", from.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let said = format!("per I/O of {mean:.0} bytes on average");
    assert!(text.contains(&said), "{text}");
    assert!(!text.contains("of 64k"), "{text}");
}

/// A run of another device beside a path: refused, exit 2, naming the run's device and the
/// path's (the run measured loop0; sda lies beneath loop0, but the run's I/O passed through
/// loop0, which sda's path does not hold). Its own device's path takes it.
#[test]
fn a_run_of_another_device_is_refused_naming_both() {
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/sata"))
        .args([
            "path",
            "sda",
            "--from",
            "tests/fixtures/report/run-loop.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("own targets, sda (sda): this run measured /dev/loop0 (loop0), whose"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    in_tree(
        "sata",
        &[
            "path",
            "loop0",
            "--from",
            "tests/fixtures/report/run-loop.json",
        ],
    );
}

/// 000 Figure 3's unbuffered-write curve (half power at 128 KB against the 8.5 MB/s disk),
/// scaled by 600/8.5 onto a SATA SSD.
const FIG3_SATA: &str = "tests/corpus/sweep-000-fig3-sata.csv";

#[test]
fn sweep_takes_the_fixtures_pap_when_no_pap_is_given() {
    let v = in_tree("sata", &["sweep", "--from", FIG3_SATA, "--path-of", "sda"]);
    assert!(near(num(&v, "pap_bytes_per_s"), 600e6, 1.0));
    assert_eq!(v["pap_source"]["from"], "path");
    assert_eq!(v["pap_source"]["component"]["name"], "ata1");
    let a = &v["analysis"][0];
    // 000: half power at 128 KB; the curve tops out at 6.4/8.5 of the PAP.
    assert_eq!(num(&a["half_power"][0], "bs_bytes"), 131072.0);
    assert!(near(num(a, "rap_pap"), 6.4 / 8.5, 1e-3), "{a}");
    // --pap wins over the path, and says so.
    let v = in_tree(
        "sata",
        &[
            "sweep",
            "--from",
            FIG3_SATA,
            "--path-of",
            "sda",
            "--pap",
            "1200MB/s",
        ],
    );
    assert_eq!(num(&v, "pap_bytes_per_s"), 1200e6);
    assert_eq!(v["pap_source"]["from"], "flag");
    // Without a target, no PAP (as before).
    let v = in_tree("sata", &["sweep", "--from", FIG3_SATA]);
    assert!(v["pap_bytes_per_s"].is_null());
    assert!(v.get("pap_source").is_none());
    // The verdict names the component.
    let out = halfpower()
        .env("HALFPOWER_SYSFS", format!("{FIXTURES}/sata"))
        .args(["sweep", "--from", FIG3_SATA, "--path-of", "sda"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    assert!(text.contains("the SATA link ata1"), "{text}");
    assert!(text.contains("reached 75 % of it"), "{text}");
}

// ---- live, as root ----

/// The mount holding `p` and its type, as findmnt says.
fn findmnt(p: &Path) -> Option<(String, String)> {
    let out = std::process::Command::new("findmnt")
        .args(["-n", "-o", "TARGET,FSTYPE", "-T"])
        .arg(p)
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout);
    let mut f = s.split_whitespace();
    Some((f.next()?.to_string(), f.next()?.to_string()))
}

fn live(args: &[&str]) -> Value {
    let mut all = vec!["path"];
    all.extend(args);
    all.extend(["--json", "-"]);
    stdout_json(&all)
}

#[test]
fn live_a_loop_device_over_a_file_continues_on_its_disk() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let backing = filled_file(dir.path(), "loop.img", 4 << 20);
    let Some(lo) = LoopDev::over(&backing) else {
        return;
    };
    let v = live(&[lo.path()]);
    let ch = chain(&v, 0);
    assert_eq!(ch[0], ("loop".into(), lo.name()));
    let c0 = &v["components"][0];
    // losetup's own account of the backing file.
    let back = std::process::Command::new("losetup")
        .args(["-n", "-O", "BACK-FILE"])
        .arg(&lo.dev)
        .output()
        .unwrap();
    assert_eq!(
        c0["backing_file"].as_str().unwrap(),
        String::from_utf8_lossy(&back.stdout).trim()
    );
    let (mount, fstype) = findmnt(&backing).expect("findmnt");
    assert_eq!(ch[1], ("filesystem".into(), mount));
    assert_eq!(v["components"][1]["fs_type"], fstype.as_str());
    // …and continues on the device that file system is mounted from.
    let src = std::process::Command::new("findmnt")
        .args(["-n", "-o", "SOURCE", "-T"])
        .arg(&backing)
        .output()
        .unwrap();
    let src = String::from_utf8_lossy(&src.stdout).trim().to_string();
    if let Some(dev) = src.strip_prefix("/dev/") {
        let dev = dev.rsplit('/').next().unwrap();
        assert!(ch.iter().any(|(_, n)| n == dev), "{ch:?} lacks {dev}");
    }
    drop(lo);
    // Over a file in /dev/shm: tmpfs, nothing beneath, no PAP.
    let Some(shm) = LoopDev::new("path", 1 << 20) else {
        return;
    };
    let v = live(&[shm.path()]);
    let (mount, _) = findmnt(shm.backing()).expect("findmnt");
    assert_eq!(
        chain(&v, 0),
        pairs(&[("loop", &shm.name()), ("filesystem", &mount)])
    );
    assert_eq!(v["targets"][0]["pap"]["why_none"], "no-limit-on-path");
}

#[test]
fn live_the_root_disk_and_a_file_on_it_give_their_chains() {
    let file = Path::new("Cargo.toml").canonicalize().unwrap();
    let (mount, fstype) = findmnt(&file).expect("findmnt");
    let v = live(&[file.to_str().unwrap()]);
    let ch = chain(&v, 0);
    assert_eq!(ch[0], ("filesystem".into(), mount.clone()));
    assert_eq!(v["components"][0]["fs_type"], fstype.as_str());
    // The disk beneath, as lsblk names the mount's source and its parent.
    let src = std::process::Command::new("findmnt")
        .args(["-n", "-o", "SOURCE", "-T"])
        .arg(&file)
        .output()
        .unwrap();
    let src = String::from_utf8_lossy(&src.stdout).trim().to_string();
    if !src.starts_with("/dev/") {
        // overlay, tmpfs, a network file system: nothing beneath the file system to compare.
        assert_eq!(v["components"][0]["source"], src.as_str());
        return;
    }
    let name = Path::new(&src)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(ch.iter().any(|(_, n)| *n == name), "{ch:?} lacks {name}");
    // The disk's device as /sys/block/NAME/device links it: on this machine a virtio disk,
    // which has no link with a rate.
    let disk = ch.iter().find(|(k, _)| k == "disk").unwrap().1.clone();
    let dev = std::fs::read_link(format!("/sys/block/{disk}/device")).ok();
    let dev_name = dev
        .as_ref()
        .and_then(|d| d.file_name())
        .map(|f| f.to_string_lossy().into_owned());
    let whole = live(&[&format!("/dev/{disk}")]);
    let disk_c = &whole["components"][0];
    if let Some(d) = &dev_name {
        assert!(
            disk_c["device_path"]
                .as_str()
                .unwrap()
                .ends_with(d.as_str()),
            "{disk_c}"
        );
    }
    if let Some(virtio) = dev_name.filter(|d| d.starts_with("virtio")) {
        assert_eq!(
            chain(&whole, 0)[..2],
            pairs(&[("disk", &disk), ("virtio", &virtio)])[..]
        );
        assert_eq!(disk_c["class"], "virtual");
        assert_eq!(whole["targets"][0]["pap"]["why_none"], "no-limit-on-path");
    }
}

/// `quick` and `scale` on files here, read through the nvme fixture's mount table (which puts
/// `/` on nvme0n1p1 behind PCIe 3.0 x4): the PAP they record is the fixture's, and how far
/// their figure got is that figure over it.
#[test]
fn quick_and_scale_take_the_paths_pap() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    if dir.path().starts_with("/tmp") || dir.path().starts_with("/srv/data") {
        unavailable("a build directory outside the nvme fixture's /tmp and /srv/data mounts");
        return;
    }
    let d = dir.path().to_str().unwrap();
    let q = in_tree(
        "nvme",
        &[
            "quick", d, "--size", "8m", "--time", "100ms", "--warmup", "0", "--quiet",
        ],
    );
    let p = &q["pap"];
    assert!(near(num(p, "pap_bytes_per_s"), 3.938e9, 0.5e6), "{p}");
    assert_eq!(p["source"]["component"]["name"], "0000:01:00.0");
    let seq = (q["tests"].as_array().unwrap().iter())
        .find(|t| t["name"] == "SEQ1M Q8T1" && t["direction"] == "read")
        .unwrap();
    let measured = num(&seq["results"]["total"], "bytes_per_s");
    assert!(near(num(p, "measured_bytes_per_s"), measured, 1.0));
    assert!(near(
        num(p, "reached"),
        measured / num(p, "pap_bytes_per_s"),
        1e-12
    ));

    let (a, b) = (format!("{d}/a"), format!("{d}/b"));
    let s = in_tree(
        "nvme",
        &[
            "scale", &a, &b, "--rw", "read", "--bs", "64k", "--size", "4m", "--time", "100ms",
            "--warmup", "0", "--quiet",
        ],
    );
    let p = &s["pap"];
    // Both files on one file system: the link carries both halves.
    assert!(near(num(p, "pap_bytes_per_s"), 3.938e9, 0.5e6), "{p}");
    assert_eq!(num(&p["source"], "load"), 1.0);
    let last = s["steps"].as_array().unwrap().last().unwrap();
    let total = s["analysis"]["limit_bytes_per_s"]
        .as_f64()
        .unwrap_or_else(|| num(last, "bytes_per_s"));
    assert!(near(num(p, "measured_bytes_per_s"), total, 1.0));
}

/// A captured tree never decides whether a write is safe: with HALFPOWER_SYSFS pointing at a
/// tree where the read-only loop device's number is a writable disk of another name, the write
/// is still refused as this machine's /sys marks the device.
#[test]
fn a_captured_tree_never_decides_whether_a_write_is_safe() {
    let Some(lo) = LoopDev::read_only("path-ro", 1 << 20) else {
        return;
    };
    let dev = std::fs::read_to_string(format!("/sys/class/block/{}/dev", lo.name())).unwrap();
    let tree = tempfile::tempdir().unwrap();
    let fake = tree.path().join("devices/virtual/block/fake0");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("ro"), "0\n").unwrap();
    std::fs::write(fake.join("dev"), &dev).unwrap();
    std::fs::create_dir_all(tree.path().join("dev/block")).unwrap();
    std::os::unix::fs::symlink(
        "../../devices/virtual/block/fake0",
        tree.path().join("dev/block").join(dev.trim()),
    )
    .unwrap();
    let out = halfpower()
        .env("HALFPOWER_SYSFS", tree.path())
        .args([
            "run",
            lo.path(),
            "--rw",
            "write",
            "--bytes",
            "64k",
            "--allow-write",
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("/sys/class/block/{}/ro is 1", lo.name())),
        "{err}"
    );
}

/// The lent H100 machine's own tree (Firecracker, captured there with
/// `path / --capture`): its virtio disk sits on the root bus with no PCIe link of its own.
#[test]
fn a_firecracker_virtio_disk_as_captured_on_a_lent_machine() {
    // The capture holds what `path /` read: the root file system's chain.
    let v = path_of("firecracker", "/");
    assert_eq!(
        chain(&v, 0),
        pairs(&[
            ("filesystem", "/"),
            ("disk", "vda"),
            ("virtio", "virtio0"),
            ("host-bus", "pci0000:00")
        ])
    );
    let c = &v["components"];
    assert_eq!(c[1]["class"], "virtual");
    assert_eq!(c[2]["limit"]["why"], "virtual-bus");
    assert_eq!(v["targets"][0]["pap"]["why_none"], "no-limit-on-path");
}
