//! Property tests ("fuzzing") of the path reader: fixture trees with attributes overwritten by
//! random text, files removed and links pointed anywhere (round in loops, out of the tree) are
//! walked, judged, drawn and written; nothing may panic, and every limit that cannot be read
//! says why. The link texts' parsers take random strings too.

use halfpower::analysis::{pap, path};
use halfpower::model::path::ComponentLimit;
use halfpower::oscounters::mounts;
use halfpower::oscounters::path::tree::Tree;
use halfpower::oscounters::path::{Walker, parse};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const TREES: &[&str] = &[
    "nvme",
    "nvme-multipath",
    "nvme-switch",
    "sata",
    "sas",
    "usb",
    "virtio",
    "garbage",
];

fn cases(n: u32) -> u32 {
    std::env::var("HALFPOWER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

/// Copies `from` into `to`, links as links; returns the files and links copied (relative).
fn copy(from: &Path, to: &Path, rel: &Path, files: &mut Vec<PathBuf>, links: &mut Vec<PathBuf>) {
    std::fs::create_dir_all(to.join(rel)).unwrap();
    let mut names: Vec<_> = std::fs::read_dir(from.join(rel))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    for n in names {
        let r = rel.join(&n);
        let meta = std::fs::symlink_metadata(from.join(&r)).unwrap();
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(from.join(&r)).unwrap();
            std::os::unix::fs::symlink(target, to.join(&r)).unwrap();
            links.push(r);
        } else if meta.is_dir() {
            copy(from, to, &r, files, links);
        } else {
            std::fs::copy(from.join(&r), to.join(&r)).unwrap();
            files.push(r);
        }
    }
}

/// Walks every block device of the tree at `root` and a few files, and judges, renders and
/// writes what it finds.
fn walk_all(root: &Path) {
    let tree = Tree::at(root);
    let table = std::fs::read_to_string(root.join("proc/self/mountinfo"))
        .ok()
        .map(|t| mounts::parse(&t));
    let mut w = Walker::new(&tree, table, false);
    let mut names = tree.entries(Path::new("class/block"));
    names.extend(
        [
            "/data/disk.img",
            "/srv/data/x",
            "/tmp/y",
            "/dev/mapper/vg0-data",
        ]
        .map(String::from),
    );
    let tops: Vec<usize> = names
        .iter()
        .filter_map(|n| w.target(n).ok())
        .map(|x| x.top)
        .collect();
    let comps = path::components(w.graph());
    for c in &comps {
        if let ComponentLimit::Advertised { bytes_per_s, .. } = c.limit {
            assert!(bytes_per_s.is_finite() && bytes_per_s > 0.0, "{c:?}");
        }
        serde_json::to_string(c).unwrap();
    }
    for &t in &tops {
        let p = pap::target_paps(&comps, t, &[]);
        if let Some(r) = &p.read {
            assert!(r.bytes_per_s.is_finite() && r.bytes_per_s > 0.0);
        }
        halfpower::render::text::path::paps_words(&comps, &p);
    }
    pap::together_paps(&comps, &tops, &[]);
    let _ = halfpower::oscounters::path::capture::archive(&tree, &w.used_mount_lines());
}

const LINK_TARGETS: &[&str] = &[
    "..",
    "../..",
    "/etc",
    "loopx",
    ".",
    "a/../../../..",
    "",
    "x/y/z",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    #[test]
    fn mangled_trees_never_panic(
        which in 0..TREES.len(),
        rewrites in prop::collection::vec((0.0f64..1.0, "\\PC{0,24}"), 0..12),
        removals in prop::collection::vec(0.0f64..1.0, 0..6),
        relinks in prop::collection::vec((0.0f64..1.0, 0..LINK_TARGETS.len()), 0..6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let from = Path::new("tests/fixtures/sysfs").join(TREES[which]);
        let (mut files, mut links) = (Vec::new(), Vec::new());
        copy(&from, dir.path(), Path::new(""), &mut files, &mut links);
        let pick = |v: &[PathBuf], at: f64| v.get((at * v.len() as f64) as usize).cloned();
        for (at, text) in rewrites {
            if let Some(f) = pick(&files, at) {
                std::fs::write(dir.path().join(f), text).unwrap();
            }
        }
        for at in removals {
            if let Some(f) = pick(&files, at) {
                let _ = std::fs::remove_file(dir.path().join(f));
            }
        }
        for (at, t) in relinks {
            if let Some(l) = pick(&links, at) {
                let p = dir.path().join(&l);
                let _ = std::fs::remove_file(&p);
                let _ = std::os::unix::fs::symlink(LINK_TARGETS[t], &p);
            }
        }
        walk_all(dir.path());
    }

    #[test]
    fn link_texts_never_panic(s in "\\PC{0,40}") {
        let _ = (parse::pcie_speed(&s), parse::pcie_width(&s), parse::sata_speed(&s));
        let _ = (parse::sas_rate(&s), parse::usb_speed(&s), parse::net_speed(&s));
        let _ = (parse::md_level(&s), parse::major_minor(&s), mounts::parse(&s));
        if let Some(v) = parse::pcie_speed(&s) {
            prop_assert!(v.is_finite() && v > 0.0);
        }
    }
}

#[test]
fn every_fixture_walks_cleanly() {
    for t in TREES {
        walk_all(&Path::new("tests/fixtures/sysfs").join(t));
    }
}
