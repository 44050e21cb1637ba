//! `halfpower doctor`: reads every host and queue setting that shapes a figure
//! (`oscounters::settings`), along each target's path (`oscounters::path::walk`), and judges
//! each (`analysis::doctor`) for the run its workload flags describe. Changes nothing.

use super::Exporter;
use crate::analysis::doctor::{Found, HostFacts, device_checks, host_checks, mount_checks};
use crate::cli::DoctorArgs;
use crate::clock::utc_now;
use crate::model::doctor::{Asked, DoctorReport, DoctorTarget};
use crate::model::{Document, Header, Kind};
use crate::oscounters::path::tree::Tree;
use crate::oscounters::path::{Part, Walk, walk};
use crate::oscounters::{cgroup, mounts, settings, sysfs, throttle};
use crate::plan::DepthOnEngine;
use crate::plan::Workload;

/// The doctor's plan, lowered once from its flags.
struct DoctorPlan {
    targets: Vec<String>,
    asked: Asked,
}

/// Lowers the flags: the run the workload flags describe, and the CPUs its workers would use.
fn lower(args: &DoctorArgs) -> crate::Result<DoctorPlan> {
    let w = Workload::try_from(args.workload.clone())?;
    let plan = w.plan(w.setup.engine, DepthOnEngine::Lower)?;
    let allowed = crate::affinity::allowed_cpus().unwrap_or_default();
    let workers = plan.threads() as usize * args.targets.len().max(1);
    let placed = plan.setup().affinity.plan(workers, &allowed)?;
    let mut asked = crate::analysis::doctor::asked(&plan);
    asked.worker_cpus = placed.iter().flatten().copied().collect();
    if asked.worker_cpus.is_empty() {
        asked.worker_cpus = allowed;
    }
    Ok(DoctorPlan {
        targets: args.targets.clone(),
        asked,
    })
}

/// `halfpower doctor`.
pub fn doctor(args: DoctorArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let exporter = Exporter::checked(&args.output)?;
    let plan = lower(&args)?;
    let host = crate::oscounters::host::read();
    let mut found = host_found(&plan.asked, host.memory_bytes);
    let mut targets = Vec::new();
    if !plan.targets.is_empty() {
        let tree = Tree::open();
        let w = walk(&tree, &plan.targets)?;
        targets = devices_of(&w);
        path_found(&tree, &w, &targets, &plan.asked, &mut found);
    }
    let report = DoctorReport {
        header: Header::new(Kind::Doctor, command, utc_now()),
        host,
        asked: plan.asked,
        targets,
        checks: found.checks,
        absent: found.absent,
    };
    let text = crate::render::text::doctor::doctor_text(&report);
    exporter.emit(Document::Doctor(Box::new(report)), &text)?;
    Ok(0)
}

/// The host's checks: its files, a clock's cost, half a second's steal, the cgroup's quota
/// and cpuset.
fn host_found(asked: &Asked, memory_bytes: u64) -> Found {
    let files = settings::host(&asked.worker_cpus);
    let before = crate::stats::host::HostCounters::now();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let steal_pct = before.steal_pct(&crate::stats::host::HostCounters::now());
    let quota = cgroup::cpu_quota();
    let online = cgroup::online_cpus().unwrap_or(0) as usize;
    let facts = HostFacts {
        clock_read_ns: crate::clock::read_cost_ns(10, 10_000),
        steal_pct,
        quota: quota.as_ref(),
        allowed: crate::affinity::allowed_cpus().unwrap_or_default(),
        online,
        cpuset_file: cgroup::cpuset_file(online as u32),
        memory_bytes,
    };
    host_checks(&files, &facts, asked)
}

/// Each target and the block devices beneath it, top first.
fn devices_of(w: &Walk) -> Vec<DoctorTarget> {
    w.walked
        .iter()
        .map(|(target, found)| {
            let mut devices = Vec::new();
            let mut todo = vec![found.top];
            let mut seen = std::collections::BTreeSet::new();
            while let Some(i) = todo.pop() {
                if !seen.insert(i) {
                    continue;
                }
                let n = &w.graph.nodes[i];
                if is_queue(&n.part) {
                    devices.push(n.name.clone());
                }
                todo.extend(n.below.iter().rev());
            }
            DoctorTarget {
                target: target.clone(),
                devices,
            }
        })
        .collect()
}

/// Whether a component has a request queue of its own (a partition's is its disk's).
fn is_queue(p: &Part) -> bool {
    matches!(
        p,
        Part::Disk { .. } | Part::Loop { .. } | Part::Dm { .. } | Part::Md { .. }
    )
}

/// The checks of every device and mount along the walk, each once.
fn path_found(tree: &Tree, w: &Walk, targets: &[DoctorTarget], asked: &Asked, f: &mut Found) {
    let live = !sysfs::overridden();
    let dirs = if live {
        cgroup::dirs("blkio")
    } else {
        Vec::new()
    };
    let mut done = std::collections::BTreeSet::new();
    for name in targets.iter().flat_map(|t| &t.devices) {
        if !done.insert(name.clone()) {
            continue;
        }
        let on = targets.iter().filter(|t| t.devices.contains(name)).count() as u32;
        let q = settings::queue(tree, name);
        let class = crate::analysis::device::classify(&sysfs::facts(name));
        let caps = if live {
            throttle::caps_of(name, &dirs)
        } else {
            Vec::new()
        };
        let d = device_checks(&q, class, &caps, asked, on);
        f.checks.extend(d.checks);
        f.absent.extend(d.absent);
    }
    let table = mounts::read();
    for n in &w.graph.nodes {
        if let Part::Filesystem { .. } = n.part
            && let Some(m) = table
                .iter()
                .rev()
                .find(|m| m.mount_point.as_os_str() == n.name.as_str())
        {
            f.checks.extend(mount_checks(m).checks);
        }
    }
}
