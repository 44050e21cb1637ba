//! `halfpower sweep`: run the request size × queue depth × threads product per rw mode, or
//! re-analyse a sweep from a file, and report the plateau, half-power point and knee.

use super::points::{PointRunner, distinct, steady_rule};
use super::{check_dest, check_output_dests, write_html, write_json};
use crate::cli::SweepArgs;
use crate::oscounters::host;
use crate::report::html::input::Document;
use crate::report::model::Tool;
use crate::report::sweep::{self, Point, SweepReport};
use crate::report::sweep_table::sweep_table;
use crate::report::{SCHEMA_VERSION, utc_now};
use crate::signal;
use crate::spec::Workload;
use anyhow::Context;
use std::io::IsTerminal;

/// The workloads of the sweep in the order they run: rw, threads, request size, queue depth.
fn shapes(args: &SweepArgs) -> crate::Result<Vec<Workload>> {
    distinct(
        "--rw",
        &args.rw.iter().map(|r| r.name()).collect::<Vec<_>>(),
    )?;
    distinct("--bs", &args.bs)?;
    distinct("--qd", &args.qd)?;
    distinct("--threads", &args.threads)?;
    let mut out = Vec::new();
    for &rw in &args.rw {
        for &threads in &args.threads {
            for &bs in &args.bs {
                for &qd in &args.qd {
                    out.push(
                        Workload {
                            rw,
                            read_pct: None,
                            bs,
                            qd,
                            threads,
                            setup: args.point.setup.clone(),
                        }
                        .validated()?,
                    );
                }
            }
        }
    }
    Ok(out)
}

fn label(w: &Workload) -> String {
    format!("{} {} QD{} T{}", w.rw.name(), w.bs, w.qd, w.threads)
}

fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Writes the report where the flags say; returns the exit status.
fn finish(args: &SweepArgs, report: &SweepReport, status: u8) -> anyhow::Result<u8> {
    if let Some(path) = &args.csv {
        std::fs::write(path, sweep::csv(&report.points))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if !write_json(&args.output, report)? {
        print!("{}", sweep_table(report, colour()));
    }
    if report.points.is_empty() {
        if args.output.html.is_some() {
            eprintln!("halfpower: no points were measured, so no HTML report was written");
        }
    } else {
        write_html(&args.output, Document::Sweep(Box::new(report.clone())))?;
    }
    Ok(status)
}

/// Runs `halfpower sweep`.
pub fn sweep(args: SweepArgs, command: Vec<String>) -> anyhow::Result<u8> {
    check_output_dests(&args.output)?;
    check_dest("--csv", args.csv.as_deref())?;
    let pap = args.pap.map(|r| r.0);
    let mut report = SweepReport {
        schema_version: SCHEMA_VERSION,
        kind: "sweep".into(),
        tool: Tool::default(),
        command,
        date: String::new(),
        host: None,
        targets: Vec::new(),
        source: None,
        steady_pct: args.point.steady,
        pap_bytes_per_s: pap,
        points: Vec::new(),
        analysis: Vec::new(),
        interrupted: false,
        warnings: Vec::new(),
    };
    if let Some(from) = &args.from {
        report.points = sweep::read_points(from)?;
        report.source = Some(from.display().to_string());
        report.steady_pct = None;
        report.analysis = sweep::analyse(&report.points, pap);
        report.date = utc_now();
        return finish(&args, &report, 0);
    }
    let steady = steady_rule(&args.point)?;
    let shapes = shapes(&args)?;
    let mut runner = PointRunner::open(
        &args.targets,
        &shapes,
        steady,
        args.output.quiet,
        &mut report.warnings,
    )?;
    report.targets = runner.infos();
    for w in &shapes {
        let Some((results, reached)) = runner.run(w, &label(w), &mut report.warnings)? else {
            break;
        };
        report.points.push(Point::of(w, results, reached));
    }
    let status = runner.exit_status();
    drop(runner); // removes a file the sweep created, also after Ctrl-C
    report.interrupted = signal::interrupted();
    report.analysis = sweep::analyse(&report.points, pap);
    report.host = Some(host::read());
    report.date = utc_now();
    finish(&args, &report, status)
}
