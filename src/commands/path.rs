//! `halfpower path`: read each target's path from sysfs (`oscounters::path`), judge what each
//! component can carry and the PAP (`analysis::path`, `analysis::pap`), put a run's figures
//! beside them with `--from`, write the files read with `--capture`.

use super::Exporter;
use super::export::{Output, write_whole};
use crate::analysis::pap::{target_paps, together_paps};
use crate::analysis::path::{components, cpu_component, mean_request_bytes, same_devices};
use crate::cli::PathArgs;
use crate::clock::utc_now;
use crate::measure::pap::{with_caps, with_given};
use crate::model::path::{Component, Measured, MeasuredFrom, PathReport, TargetPath};
use crate::model::{Direction, Document, Header, Kind, RunReport};
use crate::oscounters::path::tree::Tree;
use crate::oscounters::path::{Walk, capture, walk};
use anyhow::Context;

/// Reads `--from`: a run document.
fn read_run(path: &std::path::Path) -> anyhow::Result<RunReport> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading --from {}", path.display()))?;
    let none = |log: &crate::model::log::Log| {
        crate::analysis::diagnose::diagnose(std::slice::from_ref(log), None)
    };
    let shown = path.display().to_string();
    match crate::input::document::parse(&shown, &text, &none)?.doc {
        Document::Run(r) => Ok(*r),
        other => Err(crate::Error::invalid(
            "--from",
            shown,
            format!(
                "a `run --json` document (this is a {} document)",
                other.kind().name()
            ),
        )
        .into()),
    }
}

/// The run's figures, and the CPU as a component.
fn measured(source: &std::path::Path, r: &RunReport) -> (Measured, Component) {
    let res = &r.results;
    let mut cpus: Vec<usize> = res.worker_cpus.clone();
    cpus.sort_unstable();
    cpus.dedup();
    let cpus = if cpus.is_empty() {
        r.host.cpus
    } else {
        cpus.len()
    } as u32;
    let m = Measured {
        source: source.display().to_string(),
        bytes_per_s: res.total.bytes_per_s,
        read_bytes_per_s: res.read.as_ref().map_or(0.0, |d| d.bytes_per_s),
        write_bytes_per_s: res.write.as_ref().map_or(0.0, |d| d.bytes_per_s),
        request_bytes: mean_request_bytes(res.total.bytes, res.total.ios, r.workload.bs.mean()),
        mix: r.workload.bs.is_mix().then(|| r.workload.bs.clone()),
        cpu_us_per_io: res.cpu.us_per_io,
        cpus,
    };
    let cpu = cpu_component(m.cpu_us_per_io, m.cpus, m.request_bytes, m.mix.is_some());
    (m, cpu)
}

/// Refuses a run of other devices than the path's: its figures would stand beside limits they
/// never passed through. Names the run's devices and the path's.
fn check_devices(w: &Walk, source: &std::path::Path, r: &RunReport) -> crate::Result<()> {
    let run: Vec<Option<&str>> = (r.targets.iter())
        .map(|t| t.partition.as_deref().or(t.device.as_deref()))
        .collect();
    let path: Vec<Option<&str>> = w.walked.iter().map(|(_, x)| x.device.as_deref()).collect();
    if same_devices(&path, &run) {
        return Ok(());
    }
    let named = |d: Option<&str>| d.unwrap_or("no block device").to_string();
    let measured: Vec<String> = (r.targets.iter().zip(&run))
        .map(|(t, d)| format!("{} ({})", t.path, named(*d)))
        .collect();
    let on: Vec<String> = (w.walked.iter().zip(&path))
        .map(|((t, _), d)| format!("{t} ({})", named(*d)))
        .collect();
    let targets: Vec<&str> = r.targets.iter().map(|t| t.path.as_str()).collect();
    Err(crate::Error::invalid(
        "--from",
        source.display(),
        format!(
            "a run of the path's own targets, {}: this run measured {}, whose figures would \
             stand beside limits they never passed through (set it beside its own path: \
             halfpower path {} --from {})",
            on.join(", "),
            measured.join(", "),
            targets.join(" "),
            source.display()
        ),
    ))
}

/// Puts the run's rates beside the components: a block device's by its counters, any
/// other's the run's rate × the share it carries (the targets sharing the run's rate equally).
fn attach(c: &mut [Component], tops: &[usize], m: &Measured, r: &RunReport) {
    let dir = if m.read_bytes_per_s >= m.write_bytes_per_s {
        Direction::Read
    } else {
        Direction::Write
    };
    let n = tops.len().max(1) as f64;
    let starts: Vec<(usize, f64)> = tops.iter().map(|&t| (t, 1.0 / n)).collect();
    let load = crate::analysis::pap::loads(c, &starts, dir);
    for (i, comp) in c.iter_mut().enumerate() {
        let counted = r.results.devices.iter().find(|d| d.name == comp.name);
        if let Some(d) = counted.filter(|d| d.seconds > 0.0) {
            comp.measured_bytes_per_s = Some((d.read_bytes + d.write_bytes) as f64 / d.seconds);
            comp.measured_from = Some(MeasuredFrom::DeviceCounters);
        } else if load.get(i).is_some_and(|&l| l > 0.0) {
            comp.measured_bytes_per_s = Some(m.bytes_per_s * load[i]);
            comp.measured_from = Some(MeasuredFrom::RunShare);
        }
    }
}

/// `path`'s options lowered once ([`lower`]).
struct PathCommand {
    /// The targets (none given: the working directory).
    targets: Vec<String>,
    /// `--from`'s run document, read: its path and its report.
    from: Option<(std::path::PathBuf, RunReport)>,
    /// `--limit`'s limits.
    limits: Vec<crate::model::policy::GivenLimit>,
    /// `--capture`'s archive.
    capture: Option<std::path::PathBuf>,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `path`'s flags, once, into its command (`--from` read) and its exporter (the
/// document and `--capture` checked).
fn lower(args: &PathArgs) -> anyhow::Result<(PathCommand, Exporter<'_>)> {
    let mut exporter = Exporter::checked(&args.output)?;
    exporter.side("--capture", args.capture.as_deref())?;
    let from = match args.from.path.as_deref() {
        Some(p) => Some((p.to_path_buf(), read_run(p)?)),
        None => None,
    };
    let targets = if args.targets.is_empty() {
        vec![".".to_string()]
    } else {
        args.targets.clone()
    };
    let cmd = PathCommand {
        limits: super::lower::given_limits(&args.limit, &targets)?,
        targets,
        from,
        capture: args.capture.clone(),
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower path`.
pub fn path(args: PathArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let PathCommand {
        targets,
        from: run_from,
        limits: given,
        capture: capture_to,
        quiet,
    } = cmd;
    let tree = Tree::open();
    let w = walk(&tree, &targets)?;
    let mut comps = components(&w.graph);
    let mut tops: Vec<usize> = w.walked.iter().map(|(_, x)| x.top).collect();
    let from = match &run_from {
        Some((src, r)) => {
            check_devices(&w, src, r)?;
            Some((measured(src, r), r))
        }
        None => None,
    };
    let request_bytes = from.as_ref().map(|((m, _), _)| m.request_bytes);
    with_caps(&mut comps, &mut tops, request_bytes);
    with_given(&mut comps, &mut tops, &targets, &given, request_bytes);
    let mut cpu = None;
    let mut meas = None;
    if let Some(((m, c), r)) = from {
        attach(&mut comps, &tops, &m, r);
        comps.push(c);
        cpu = Some(comps.len() - 1);
        meas = Some(m);
    }
    let carriers: Vec<usize> = cpu.into_iter().collect();
    let report = PathReport {
        header: Header::new(Kind::Path, command, utc_now()),
        sysfs_root: tree.root().display().to_string(),
        targets: (w.walked.iter().zip(&tops))
            .map(|((t, x), &top)| TargetPath {
                target: t.clone(),
                form: x.form,
                device: x.device.clone(),
                top,
                pap: target_paps(&comps, top, &carriers),
            })
            .collect(),
        together: (tops.len() > 1).then(|| together_paps(&comps, &tops, &carriers)),
        components: comps,
        measured: meas,
        cpu,
        warnings: Vec::new(),
    };
    if let Some(out) = &capture_to {
        let bytes = capture::archive(&tree, &w.mount_lines).with_context(|| {
            format!(
                "archiving the sysfs files read from {}",
                tree.root().display()
            )
        })?;
        write_whole(Output::Side, out, &bytes)?;
        if !quiet {
            crate::output::say!(
                "halfpower: {} sysfs entries captured to {} (unpack it into DIR and run \
                 HALFPOWER_SYSFS=DIR halfpower path {})",
                tree.touched().len(),
                out.display(),
                targets.join(" ")
            );
        }
    }
    let text = crate::render::text::path::path_text(&report);
    exporter.emit(Document::Path(Box::new(report)), &text)?;
    Ok(0)
}
