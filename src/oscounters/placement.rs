//! Where a block device's work lands on the CPUs: its hardware queues and the CPUs each serves
//! (`mq/N/cpu_list`), the interrupts of its PCI function (`msi_irqs/`, named in
//! /proc/interrupts, each with the CPUs it fires on, /proc/irq/N/effective_affinity_list), and
//! the function's NUMA node beside the workers' CPUs' nodes. sysfs through [`Tree`] (a capture
//! works); procfs from `HALFPOWER_SYSFS/proc` under a capture, else /proc.

use super::path::tree::Tree;
use super::settings::Attr;
use std::path::{Path, PathBuf};

/// One interrupt of a device's PCI function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Irq {
    /// Its number.
    pub number: u32,
    /// Its name in /proc/interrupts (`nvme0q3`, `virtio1-req.0`).
    pub name: String,
    /// The CPUs it fires on.
    pub cpus: Vec<usize>,
    /// The file those were read from.
    pub file: PathBuf,
}

/// A device's queues, interrupts and node, for workers on some CPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Kernel name.
    pub device: String,
    /// Each hardware queue (its number) and the CPUs it serves.
    pub queues: Vec<(u32, Vec<usize>)>,
    /// Its PCI function's interrupts, by number.
    pub irqs: Vec<Irq>,
    /// Its PCI function's `numa_node` (`-1`: the platform gives none).
    pub numa: Option<Attr>,
    /// Each worker CPU's node (the `nodeN` link in its sysfs directory), where there is one.
    pub cpu_nodes: Vec<(usize, u32)>,
    /// The CPUs of the device's node (`devices/system/node/nodeN/cpulist`).
    pub node_cpus: Vec<usize>,
}

/// A CPU list (`0-3,8`, mq's `0, 1`).
fn cpus(text: &str) -> Vec<usize> {
    match text.parse::<crate::affinity::Affinity>() {
        Ok(crate::affinity::Affinity::Cpus(v)) => v,
        _ => Vec::new(),
    }
}

/// The names of interrupts in the text of /proc/interrupts, by number: the last field of each
/// numbered line.
pub fn irq_names(text: &str) -> Vec<(u32, String)> {
    text.lines()
        .filter_map(|l| {
            let (n, rest) = l.trim_start().split_once(':')?;
            let number = n.trim().parse().ok()?;
            Some((number, rest.split_whitespace().last()?.to_string()))
        })
        .collect()
}

/// The directory of `name`'s PCI function (the nearest above it with `msi_irqs` or
/// `numa_node`), relative to the tree's root.
fn function_dir(tree: &Tree, name: &str) -> Option<PathBuf> {
    let mut dir = tree.resolve(&Path::new("block").join(name)).ok()?;
    while dir.pop() {
        if tree.exists(&dir.join("msi_irqs")) || tree.exists(&dir.join("numa_node")) {
            return Some(dir);
        }
    }
    None
}

/// Reads where `name`'s work lands, for workers on `worker_cpus`.
pub fn read(tree: &Tree, name: &str, worker_cpus: &[usize]) -> Placement {
    let mq = Path::new("block").join(name).join("mq");
    let mut queues: Vec<(u32, Vec<usize>)> = tree
        .entries(&mq)
        .iter()
        .filter_map(|q| Some((q.parse().ok()?, cpus(&tree.attr(&mq.join(q), "cpu_list")?))))
        .collect();
    queues.sort();
    let function = function_dir(tree, name);
    let numa = function.as_ref().and_then(|f| {
        let text = tree.attr(f, "numa_node")?;
        Some(Attr {
            file: tree.root().join(f).join("numa_node"),
            text: Some(text),
        })
    });
    let proc = super::sysfs::proc_root();
    let names = std::fs::read_to_string(proc.join("interrupts"))
        .map(|t| irq_names(&t))
        .unwrap_or_default();
    let mut irqs: Vec<Irq> = function
        .map(|f| tree.entries(&f.join("msi_irqs")))
        .unwrap_or_default()
        .iter()
        .filter_map(|n| {
            let number: u32 = n.parse().ok()?;
            let dir = proc.join("irq").join(number.to_string());
            let (file, text) = ["effective_affinity_list", "smp_affinity_list"]
                .iter()
                .map(|f| dir.join(f))
                .find_map(|p| Some((p.clone(), std::fs::read_to_string(&p).ok()?)))?;
            let name = names.iter().find(|(k, _)| *k == number)?.1.clone();
            Some(Irq {
                number,
                name,
                cpus: cpus(text.trim()),
                file,
            })
        })
        .collect();
    irqs.sort_by_key(|i| i.number);
    let cpu_dir = Path::new("devices/system/cpu");
    let cpu_nodes = worker_cpus
        .iter()
        .filter_map(|&c| {
            let node = tree
                .entries(&cpu_dir.join(format!("cpu{c}")))
                .iter()
                .find_map(|e| e.strip_prefix("node")?.parse().ok())?;
            Some((c, node))
        })
        .collect();
    let node_cpus = numa
        .as_ref()
        .and_then(|a| a.number())
        .and_then(|n| {
            tree.attr(
                Path::new(&format!("devices/system/node/node{n}")),
                "cpulist",
            )
        })
        .map(|t| cpus(&t))
        .unwrap_or_default();
    Placement {
        device: name.to_string(),
        queues,
        irqs,
        numa,
        cpu_nodes,
        node_cpus,
    }
}

/// The interrupt of hardware queue `q` of a device: NVMe names its I/O queues `nvmeXq1…`
/// (q0 is the admin queue), virtio-blk `virtioX-req.0…`. None for other drivers' names.
pub fn irq_of_queue(irqs: &[Irq], q: u32) -> Option<&Irq> {
    let nvme = format!("q{}", q + 1);
    let virtio = format!("-req.{q}");
    irqs.iter().find(|i| {
        (i.name.starts_with("nvme") && i.name.ends_with(&nvme) && {
            let stem = &i.name[..i.name.len() - nvme.len()];
            stem[4..].chars().all(|c| c.is_ascii_digit())
        }) || (i.name.starts_with("virtio") && i.name.ends_with(&virtio))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupts_are_named_by_their_last_field() {
        let text = "           CPU0       CPU1\n 36:          0   15107995  PCI-MSIX-0000:00:02.0   \
                    1-edge      virtio1-req.0\nNMI:          0          0   Non-maskable interrupts\n";
        assert_eq!(irq_names(text), [(36, "virtio1-req.0".to_string())]);
    }

    #[test]
    fn a_queue_finds_its_interrupt_by_the_drivers_name() {
        let irq = |number, name: &str| Irq {
            number,
            name: name.into(),
            cpus: vec![0],
            file: PathBuf::new(),
        };
        let irqs = [
            irq(40, "nvme0q0"),
            irq(41, "nvme0q1"),
            irq(42, "nvme0q11"),
            irq(36, "virtio1-req.0"),
        ];
        assert_eq!(irq_of_queue(&irqs, 0).map(|i| i.number), Some(41));
        assert_eq!(irq_of_queue(&irqs, 10).map(|i| i.number), Some(42));
        assert_eq!(irq_of_queue(&irqs[3..], 0).map(|i| i.number), Some(36));
        assert_eq!(irq_of_queue(&irqs, 5), None);
    }
}
