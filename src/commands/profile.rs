//! `halfpower profile`: Friedman's characterization matrix (004 Tables 2–4) on one target,
//! turned into service-time expectations that `diagnose --profile` reads.

use super::points::{PointRunner, steady_rule};
use super::{check_output_dests, warn, write_html, write_json};
use crate::analysis::queueing::utilization_law_ms;
use crate::cli::ProfileArgs;
use crate::diagnose::profile::PROFILE_SCHEMA_VERSION;
use crate::oscounters::host;
use crate::report::html::input::Document;
use crate::report::model::{Results, Tool};
use crate::report::profile::{ProfileCell, ProfileReport, fits_of, profile_table};
use crate::report::utc_now;
use crate::signal;
use crate::spec::{RwMode, Setup, Workload};
use crate::units::ByteSize;

/// The cache-hit region: small enough to stay in a device's cache (004's "100 % hit").
pub const CACHE_HIT_BYTES: u64 = 1 << 20;

/// One cell to run: its place in the matrix and its workload.
struct Plan {
    rw: &'static str,
    pattern: &'static str,
    workload: Workload,
}

fn plans(args: &ProfileArgs) -> crate::Result<Vec<Plan>> {
    let sizes: &[u64] = if args.quick {
        &[4 << 10, 16 << 10, 64 << 10]
    } else {
        &[4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20]
    };
    let dirs: &[&str] = if args.reads_only {
        &["read"]
    } else {
        &["read", "write"]
    };
    let mut out = Vec::new();
    for &rw in dirs {
        let write = rw == "write";
        for pattern in crate::report::profile::PATTERNS {
            let (mode, depths): (RwMode, &[u32]) = match (pattern, write) {
                ("sequential", false) => (RwMode::Read, &[1]),
                ("sequential", true) => (RwMode::Write, &[1]),
                ("random", false) => (RwMode::Randread, &[1, 4]),
                ("random", true) => (RwMode::Randwrite, &[1, 4]),
                (_, false) => (RwMode::Randread, &[1]),
                (_, true) => (RwMode::Randwrite, &[1]),
            };
            for &qd in depths {
                for &bs in sizes {
                    let setup = if pattern == "cache-hit" {
                        Setup {
                            size: Some(ByteSize(CACHE_HIT_BYTES.max(bs))),
                            ..args.point.setup.clone()
                        }
                    } else {
                        args.point.setup.clone()
                    };
                    let workload = Workload {
                        rw: mode,
                        read_pct: None,
                        bs: ByteSize(bs),
                        qd,
                        threads: 1,
                        setup,
                    }
                    .validated()?;
                    out.push(Plan {
                        rw,
                        pattern,
                        workload,
                    });
                }
            }
        }
    }
    Ok(out)
}

fn cell(p: &Plan, r: &Results, steady: bool) -> ProfileCell {
    let d = if p.rw == "read" { &r.read } else { &r.write };
    let d = d.as_ref().unwrap_or(&r.total);
    // The disk's own view, when exactly one disk is underneath.
    let (util, dev_s) = match r.devices.as_slice() {
        [dev] => (
            Some(dev.util_pct),
            utilization_law_ms(dev.util_pct / 100.0, dev.r_s + dev.w_s),
        ),
        _ => (None, None),
    };
    ProfileCell {
        rw: p.rw.into(),
        pattern: p.pattern.into(),
        bs_bytes: p.workload.bs.0,
        qd: p.workload.qd,
        iops: d.iops,
        bytes_per_s: d.bytes_per_s,
        service_ms: (p.workload.qd == 1)
            .then(|| utilization_law_ms(1.0, d.iops))
            .flatten(),
        mean_latency_ms: d.latency_us.mean / 1000.0,
        p99_ms: d.latency_us.p99 / 1000.0,
        device_util_pct: util,
        device_service_ms: dev_s,
        steady,
        seconds: r.seconds,
    }
}

/// Runs `halfpower profile`.
pub fn profile(args: ProfileArgs, command: Vec<String>) -> anyhow::Result<u8> {
    check_output_dests(&args.output)?;
    let steady = steady_rule(&args.point)?;
    let plans = plans(&args)?;
    let shapes: Vec<Workload> = plans.iter().map(|p| p.workload.clone()).collect();
    let mut warnings = Vec::new();
    let mut runner = PointRunner::open(
        std::slice::from_ref(&args.target),
        &shapes,
        steady,
        args.output.quiet,
        &mut warnings,
    )?;
    let target_info = runner.infos().remove(0);
    let mut cells = Vec::new();
    for p in &plans {
        let w = &p.workload;
        let name = format!("{} {} {} QD{}", p.rw, p.pattern, w.bs, w.qd);
        let Some((r, reached)) = runner.run(w, &name, &mut warnings)? else {
            break;
        };
        cells.push(cell(p, &r, reached));
    }
    let status = runner.exit_status();
    drop(runner); // removes a file the profile created, also after Ctrl-C
    busy_warning(&cells, &mut warnings);
    let report = ProfileReport {
        schema_version: PROFILE_SCHEMA_VERSION,
        kind: "profile".into(),
        tool: Tool::default(),
        command,
        date: utc_now(),
        host: host::read(),
        target: args.target.display().to_string(),
        target_info,
        fits: fits_of(&cells),
        cells,
        interrupted: signal::interrupted(),
        warnings,
    };
    if !write_json(&args.output, &report)? {
        print!("{}", profile_table(&report));
    }
    if report.cells.is_empty() {
        if args.output.html.is_some() {
            eprintln!("halfpower: no cells were measured, so no HTML report was written");
        }
    } else {
        write_html(&args.output, Document::Profile(Box::new(report)))?;
    }
    Ok(status)
}

/// S = 1/IOPS assumes the device is busy all the time at QD1. When the disk's %util says
/// otherwise, part of each S is host time between I/Os; say how much.
fn busy_warning(cells: &[ProfileCell], warnings: &mut Vec<String>) {
    let idle: Vec<&ProfileCell> = cells
        .iter()
        .filter(|c| c.qd == 1 && c.device_util_pct.is_some_and(|u| u < 90.0))
        .collect();
    if let Some(worst) = idle.iter().min_by(|a, b| {
        a.device_util_pct
            .unwrap_or(0.0)
            .total_cmp(&b.device_util_pct.unwrap_or(0.0))
    }) {
        warn(
            warnings,
            format!(
                "{} of the QD1 cells kept the disk less than 90 % busy (lowest: {} {} {} at {:.0} %), \
                 so their S = 1/IOPS includes host time between I/Os; the disk's own U/X is in the \
                 dev S column (JSON device_service_ms). A virtual or stacked device may not report \
                 %util faithfully",
                idle.len(),
                worst.rw,
                worst.pattern,
                ByteSize(worst.bs_bytes),
                worst.device_util_pct.unwrap_or(0.0)
            ),
        );
    }
}
