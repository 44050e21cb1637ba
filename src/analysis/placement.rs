//! The doctor's placement rules: the interrupt of each worker CPU's hardware queue against the
//! worker's CPU, and the device's NUMA node against the workers' nodes (docs/doctor.md). Pure
//! functions of what `oscounters::placement` read.

use super::doctor::Found;
use crate::affinity::cpu_list;
use crate::model::doctor::{Asked, Check, CheckKind, Fix, Scope, Verdict};
use crate::oscounters::placement::{Placement, irq_of_queue};

/// The checks of where `p`'s work lands for `asked`'s workers: none for a device without
/// hardware queues mapped to interrupts (a loop device, dm) or without a NUMA node.
pub fn placement_checks(p: &Placement, asked: &Asked) -> Found {
    let mut f = Found::default();
    let scope = Scope::Device {
        device: p.device.clone(),
    };
    if let Some(c) = irq_affinity(p, asked, &scope) {
        f.checks.push(c);
    }
    if let Some(c) = numa_node(p, &scope) {
        f.checks.push(c);
    }
    f
}

/// Each worker CPU's queue's interrupt: ok when every one fires on its worker's CPU, info when
/// some fire elsewhere (the fix pins the workers where they fire).
fn irq_affinity(p: &Placement, asked: &Asked, scope: &Scope) -> Option<Check> {
    let mut used = Vec::new();
    let mut away = Vec::new();
    for &cpu in &asked.worker_cpus {
        let Some((q, _)) = p.queues.iter().find(|(_, cpus)| cpus.contains(&cpu)) else {
            continue;
        };
        let Some(irq) = irq_of_queue(&p.irqs, *q) else {
            continue;
        };
        if !irq.cpus.contains(&cpu) {
            away.push((cpu, irq));
        }
        if !used
            .iter()
            .any(|i: &&crate::oscounters::placement::Irq| i.number == irq.number)
        {
            used.push(irq);
        }
    }
    let first = used.first()?;
    let file = away.first().map_or(&first.file, |(_, i)| &i.file);
    let value = used
        .iter()
        .map(|i| format!("{}:{}", i.name, cpu_list(&i.cpus)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut there: Vec<usize> = away.iter().flat_map(|(_, i)| i.cpus.clone()).collect();
    there.sort_unstable();
    there.dedup();
    Some(Check {
        kind: CheckKind::IrqAffinity,
        scope: scope.clone(),
        file: file.display().to_string(),
        value: Some(value),
        wanted: cpu_list(&asked.worker_cpus),
        figure: Some(away.len() as f64),
        verdict: if away.is_empty() {
            Verdict::Ok
        } else {
            Verdict::Info
        },
        fix: (!away.is_empty()).then(|| Fix::Flag {
            flag: "--affinity".into(),
            value: cpu_list(&there),
        }),
    })
}

/// The device's node against the workers': ok when every worker is on it, info when some are
/// not, warn when none is. No check where the platform gives no node (`-1`).
fn numa_node(p: &Placement, scope: &Scope) -> Option<Check> {
    let attr = p.numa.as_ref()?;
    let node: u32 = attr.text.as_deref()?.trim().parse().ok()?;
    if p.cpu_nodes.is_empty() {
        return None;
    }
    let away = p.cpu_nodes.iter().filter(|(_, n)| *n != node).count();
    let verdict = match away {
        0 => Verdict::Ok,
        a if a == p.cpu_nodes.len() => Verdict::Warn,
        _ => Verdict::Info,
    };
    Some(Check {
        kind: CheckKind::NumaNode,
        scope: scope.clone(),
        file: attr.name(),
        value: Some(node.to_string()),
        wanted: format!("workers on node {node}"),
        figure: Some(away as f64),
        verdict,
        fix: (away > 0 && !p.node_cpus.is_empty()).then(|| Fix::Flag {
            flag: "--affinity".into(),
            value: cpu_list(&p.node_cpus),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oscounters::placement::Irq;
    use crate::oscounters::settings::Attr;
    use std::path::PathBuf;

    fn asked(cpus: &[usize]) -> Asked {
        Asked {
            depth: 1,
            threads: 1,
            bs_bytes: 4096,
            buffered: false,
            reads: true,
            writes: false,
            sequential: false,
            worker_cpus: cpus.to_vec(),
        }
    }

    /// Two queues (CPU 0, CPU 1) whose interrupts fire crossed, on node 1 of CPUs 2-3.
    fn crossed() -> Placement {
        let irq = |number: u32, name: &str, cpu: usize| Irq {
            number,
            name: name.into(),
            cpus: vec![cpu],
            file: PathBuf::from(format!("/proc/irq/{number}/effective_affinity_list")),
        };
        Placement {
            device: "nvme0n1".into(),
            queues: vec![(0, vec![0]), (1, vec![1]), (2, vec![2]), (3, vec![3])],
            irqs: vec![
                irq(40, "nvme0q0", 0),
                irq(41, "nvme0q1", 1),
                irq(42, "nvme0q2", 0),
                irq(43, "nvme0q3", 2),
                irq(44, "nvme0q4", 3),
            ],
            numa: Some(Attr {
                file: "/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/numa_node".into(),
                text: Some("1".into()),
            }),
            cpu_nodes: vec![(0, 0), (1, 0), (2, 1), (3, 1)],
            node_cpus: vec![2, 3],
        }
    }

    fn kinds(f: &Found) -> Vec<(CheckKind, Verdict)> {
        f.checks.iter().map(|c| (c.kind, c.verdict)).collect()
    }

    #[test]
    fn workers_away_from_their_interrupts_and_node_are_told_where_to_go() {
        let mut p = crossed();
        p.cpu_nodes.retain(|(c, _)| *c == 0);
        let f = placement_checks(&p, &asked(&[0]));
        assert_eq!(
            kinds(&f),
            [
                (CheckKind::IrqAffinity, Verdict::Info),
                (CheckKind::NumaNode, Verdict::Warn)
            ]
        );
        let irq = &f.checks[0];
        assert_eq!(irq.file, "/proc/irq/41/effective_affinity_list");
        assert_eq!(irq.value.as_deref(), Some("nvme0q1:1"));
        assert_eq!(
            irq.fix,
            Some(Fix::Flag {
                flag: "--affinity".into(),
                value: "1".into()
            })
        );
        assert_eq!(
            f.checks[1].fix,
            Some(Fix::Flag {
                flag: "--affinity".into(),
                value: "2-3".into()
            })
        );
    }

    #[test]
    fn workers_on_their_interrupts_and_node_are_ok_and_a_device_without_them_is_not_checked() {
        let mut p = crossed();
        p.cpu_nodes.retain(|(c, _)| *c >= 2);
        assert_eq!(
            kinds(&placement_checks(&p, &asked(&[2, 3]))),
            [
                (CheckKind::IrqAffinity, Verdict::Ok),
                (CheckKind::NumaNode, Verdict::Ok)
            ]
        );
        p.numa.as_mut().unwrap().text = Some("-1".into());
        p.irqs.clear();
        assert!(placement_checks(&p, &asked(&[2, 3])).checks.is_empty());
    }
}
