//! `halfpower doctor`: reads every host and queue setting that shapes a figure
//! (`oscounters::settings`), along each target's path (`oscounters::path::walk`), and judges
//! each (`analysis::doctor`) for the run its workload flags describe. Changes nothing, unless
//! `--price --allow-change` measures each flagged queue setting both ways (`measure::price`).

use super::Exporter;
use crate::analysis::doctor::{Found, HostFacts, device_checks, host_checks, mount_checks};
use crate::analysis::price::Planned;
use crate::cli::DoctorArgs;
use crate::clock::utc_now;
use crate::measure::price::{self, Change};
use crate::measure::{Session, Settings};
use crate::model::Warning;
use crate::model::doctor::{Asked, Check, DoctorReport, DoctorTarget, Fix, Outcome, Priced, Scope};
use crate::model::{Document, Header, Kind};
use crate::oscounters::path::tree::Tree;
use crate::oscounters::path::{Part, Walk, walk};
use crate::oscounters::{cgroup, mounts, settings, sysfs, throttle};
use crate::plan::Workload;
use crate::plan::{DepthOnEngine, RunPlan};
use anyhow::Context;

/// The doctor's plan, lowered once from its flags.
struct DoctorPlan {
    targets: Vec<String>,
    asked: Asked,
    /// With `--price`: the workload each setting is measured with.
    price: Option<Workload>,
    quiet: bool,
}

/// A price's run unless `--time` or `--bytes` is given, and its warm-up unless `--warmup` is.
const PRICE_TIME: std::time::Duration = std::time::Duration::from_secs(1);
const PRICE_WARMUP: std::time::Duration = std::time::Duration::from_millis(300);

/// `--price`'s workload, refused without root, targets or the live sysfs.
fn price_workload(args: &DoctorArgs, w: &Workload) -> crate::Result<Option<Workload>> {
    if !args.price {
        return Ok(None);
    }
    if args.targets.is_empty() {
        return Err(crate::Error::invalid(
            "--price",
            "without a TARGET",
            "one or more TARGETs: it measures their devices' queue settings",
        ));
    }
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if uid != 0 {
        return Err(crate::Error::invalid(
            "--price",
            format!("as uid {uid}"),
            "root: it writes /sys/block/NAME/queue files",
        ));
    }
    if sysfs::overridden() {
        return Err(crate::Error::invalid(
            "--price",
            "under HALFPOWER_SYSFS",
            "the live /sys: a fixture tree has no device to measure",
        ));
    }
    let mut w = w.clone();
    let given = &args.workload.setup;
    if given.time.given.is_none() && given.bytes.is_none() {
        w.setup.time = Some(crate::units::Dur(PRICE_TIME));
    }
    if given.warmup.given.is_none() {
        w.setup.warmup = crate::units::Dur(PRICE_WARMUP);
    }
    Ok(Some(w.validated()?))
}

/// Lowers the flags, once: the run the workload flags describe, the CPUs its workers would
/// use, and the exporter (the document checked).
fn lower(args: &DoctorArgs) -> anyhow::Result<(DoctorPlan, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
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
    let plan = DoctorPlan {
        targets: args.targets.clone(),
        asked,
        price: price_workload(args, &w)?,
        quiet: args.output.quiet,
    };
    Ok((plan, exporter))
}

/// `halfpower doctor`.
pub fn doctor(args: DoctorArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (plan, exporter) = lower(&args)?;
    let host = crate::oscounters::host::read();
    let mut found = host_found(&plan.asked, host.memory_bytes);
    let mut targets = Vec::new();
    if !plan.targets.is_empty() {
        let tree = Tree::open();
        let w = walk(&tree, &plan.targets)?;
        targets = devices_of(&w);
        path_found(&tree, &w, &targets, &plan.asked, &mut found);
    }
    let prices = match &plan.price {
        Some(w) => price_all(w, &plan, &targets, &found.checks)?,
        None => Vec::new(),
    };
    let status = if crate::signal::interrupted() {
        crate::signal::exit_status()
    } else {
        0
    };
    let report = DoctorReport {
        header: Header::new(Kind::Doctor, command, utc_now()),
        host,
        asked: plan.asked,
        targets,
        checks: found.checks,
        absent: found.absent,
        prices,
    };
    let text = crate::render::text::doctor::doctor_text(&report);
    exporter.emit(Document::Doctor(Box::new(report)), &text)?;
    Ok(status)
}

/// The path a target's runs open: as given, or /dev/NAME for a kernel name.
fn target_path(t: &str) -> std::path::PathBuf {
    let dev = std::path::Path::new("/dev").join(t);
    if !t.contains('/') && dev.exists() {
        dev
    } else {
        std::path::PathBuf::from(t)
    }
}

/// One check's price on the session's target (its `target` left empty), or why it has none.
fn price_one(
    session: &mut Session,
    (run, plan): (&RunPlan, &DoctorPlan),
    c: &Check,
    change: Result<Planned, Outcome>,
    warnings: &mut Vec<Warning>,
) -> crate::Result<Priced> {
    let device = match &c.scope {
        Scope::Device { device } => device.clone(),
        _ => String::new(),
    };
    let wanted = match &c.fix {
        Some(Fix::Write { value, .. }) => value.clone(),
        _ => c.wanted.clone(),
    };
    let outcome = match change {
        Err(o) => o,
        Ok(_) if crate::signal::interrupted() => Outcome::Interrupted,
        Ok(p) => {
            let mut announce = |i: u32, n: u32| {
                if !plan.quiet {
                    crate::output::say!(
                        "halfpower: doctor: pricing {} of {}, run {i} of {n}",
                        crate::render::text::doctor::label(c.kind),
                        p.device
                    );
                }
            };
            let change = Change {
                file: std::path::Path::new(&p.file),
                wanted: &p.wanted,
            };
            price::measure(session, run, &plan.asked, change, &mut announce, warnings)?
        }
    };
    Ok(Priced {
        kind: c.kind,
        device,
        file: c.file.clone(),
        as_found: c.value.clone().unwrap_or_default(),
        wanted,
        target: String::new(),
        outcome,
    })
}

/// Each flagged setting of each target's devices priced on that target (a device under
/// several targets on the first), or the reason it is not.
fn price_all(
    w: &Workload,
    plan: &DoctorPlan,
    targets: &[DoctorTarget],
    checks: &[Check],
) -> anyhow::Result<Vec<Priced>> {
    let mut warnings = Vec::new();
    let (run, fallback) = crate::measure::effective_plan(w, &mut warnings)?;
    let mut out: Vec<Priced> = Vec::new();
    for t in targets {
        let mine: Vec<(&Check, Result<Planned, Outcome>)> = checks
            .iter()
            .filter(|c| matches!(&c.scope, Scope::Device { device } if t.devices.contains(device)))
            .filter(|c| !out.iter().any(|p| p.kind == c.kind && p.file == c.file))
            .filter_map(|c| Some((c, crate::analysis::price::change_of(c, &plan.asked)?)))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let settings = Settings {
            announce: false,
            setup: false,
            ..Settings::new((run.setup().engine, fallback.clone()), true)
        };
        let path = target_path(&t.target);
        let mut session =
            Session::open(&[path], std::slice::from_ref(&run), settings, &mut warnings)
                .with_context(|| format!("opening {} for --price", t.target))?;
        for (c, change) in mine {
            let one = price_one(&mut session, (&run, plan), c, change, &mut warnings)?;
            out.push(Priced {
                target: t.target.clone(),
                ..one
            });
        }
    }
    Ok(out)
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
        let placed = crate::oscounters::placement::read(tree, name, &asked.worker_cpus);
        f.checks
            .extend(crate::analysis::placement::placement_checks(&placed, asked).checks);
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
