//! `halfpower fio`: fio's job files and command-line options run on halfpower's engine, with
//! fio's JSON (`json`, `json+`) or a summary shaped like fio's (`normal`) as the output.

mod logs;
mod report;
mod waves;

use crate::analysis::fio as figures;
use crate::clock::{ctime_utc, unix_ms};
use crate::commands::export::{self, Output};
use crate::fio::{self, FioError, FioJob, JobPlan, jobfile};
use crate::model::Warning;
use crate::model::fio::FioDocument;
use crate::oscounters::diskstats::DeviceDelta;
use crate::render::text::fio as normal;
use anyhow::Context;
use report::{Ran, group_bandwidth, job_report, ordered};
use std::path::{Path, PathBuf};

/// fio's output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Normal,
    Json,
    JsonPlus,
}

/// What the command line holds besides job options.
#[derive(Clone)]
struct Args {
    format: Format,
    output: Option<PathBuf>,
    sections: Vec<String>,
    ignore_unknown: bool,
    allow_write: bool,
    destroy_data: bool,
    quiet: bool,
    parse_only: bool,
    job_options: Vec<String>,
    files: Vec<PathBuf>,
}

/// `halfpower fio --help`.
pub const HELP: &str = "\
Run fio job files and fio command-line jobs on halfpower's engine, and answer in fio's shapes.

Usage: halfpower fio [JOBFILE...] [--OPTION=VALUE...] [--output-format=normal|json|json+]
                     [--output=FILE] [--section=NAME]... [--ignore-unknown]
                     [--allow-write [--destroy-data]] [--quiet] [--parse-only]

Job options follow fio's grammar: --name=NAME starts a job, options before the first --name
are global. Numbers follow fio's rules (k/m/g are 1024-based unless kb_base=1000; a suffix
with 'ib' takes the other base; bare runtime/ramp_time are seconds). Options halfpower does
not take are refused by name (--ignore-unknown warns instead); docs/fio.md lists them.
Jobs run one group at a time; jobs of one group must be one job (with numjobs clones).
Existing files and devices are written only with --allow-write; created files are removed.
--parse-only reads and plans every job, prints how each would run, and runs nothing.
MB/s means 10^6 bytes/s; fio's KiB/s and MiB/s keep their meaning.
";

fn parse_args(raw: &[String]) -> crate::Result<Option<Args>> {
    let mut a = Args {
        format: Format::Normal,
        output: None,
        sections: Vec::new(),
        ignore_unknown: false,
        allow_write: false,
        destroy_data: false,
        quiet: false,
        parse_only: false,
        job_options: Vec::new(),
        files: Vec::new(),
    };
    for arg in raw {
        let (key, value) = match arg.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (arg.as_str(), None),
        };
        match (key, value) {
            ("--help" | "-h", _) => return Ok(None),
            ("--output-format", Some(v)) => {
                a.format = match v {
                    "normal" => Format::Normal,
                    "json" => Format::Json,
                    "json+" => Format::JsonPlus,
                    _ => {
                        return Err(crate::Error::invalid(
                            "--output-format",
                            v,
                            "normal, json or json+ (terse is not supported)",
                        ));
                    }
                }
            }
            ("--output", Some(v)) => a.output = Some(PathBuf::from(v)),
            ("--section", Some(v)) => a.sections.push(v.to_string()),
            ("--ignore-unknown", None) => a.ignore_unknown = true,
            ("--allow-write", None) => a.allow_write = true,
            ("--destroy-data", None) => a.destroy_data = true,
            ("--quiet", None) => a.quiet = true,
            ("--parse-only", None) => a.parse_only = true,
            ("--output-format" | "--output" | "--section", None) => {
                return Err(crate::Error::invalid("option", key, "a value: --key=value"));
            }
            _ if arg.starts_with("--") => a.job_options.push(arg.clone()),
            _ if arg.starts_with('-') && arg != "-" => {
                return Err(crate::Error::invalid(
                    "option",
                    arg,
                    "fio's long options (--name=x --rw=randread ...) or a job file",
                ));
            }
            _ => a.files.push(PathBuf::from(arg)),
        }
    }
    if a.destroy_data && !a.allow_write {
        return Err(crate::Error::invalid(
            "--destroy-data",
            "",
            "--destroy-data together with --allow-write",
        ));
    }
    Ok(Some(a))
}

fn env(k: &str) -> Option<String> {
    std::env::var(k).ok()
}

fn read_file(p: &Path) -> std::io::Result<String> {
    if p == Path::new("-") {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(p)
    }
}

/// Reads every job: the command line's first, then each job file's.
fn job_set(a: &Args) -> Result<fio::JobSet, FioError> {
    let mut sections = jobfile::parse_command_line(&a.job_options, &env)?;
    for (i, f) in a.files.iter().enumerate() {
        let text = read_file(f).map_err(|e| FioError::File {
            path: f.display().to_string(),
            message: e.to_string(),
        })?;
        sections.extend(jobfile::parse_file(f, &text, i == 0, &read_file, &env)?);
    }
    fio::resolve(&sections, &a.sections, a.ignore_unknown)
}

/// How one job would run, for `--parse-only`: its workload, ending, and the notes.
fn plan_line(job: &FioJob, p: &JobPlan) -> String {
    let w = &p.workload;
    // Many files are shown by the first and the last.
    let files = match p.paths.as_slice() {
        [first, .., last] if p.paths.len() > 4 => format!(
            "{}:…:{} ({} files)",
            first.display(),
            last.display(),
            p.paths.len()
        ),
        all => all
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
    };
    let mut line = format!(
        "{}: {} {} {} QD{} T{} {} {}",
        job.opts.name,
        files,
        w.rw.name(),
        w.bs,
        w.qd,
        w.threads,
        w.setup.engine.name(),
        if w.setup.buffered {
            "buffered"
        } else {
            "direct"
        },
    );
    let access = w.setup.access.summary();
    if !access.is_empty() {
        line.push_str(&format!(", {access}"));
    }
    match p.ending {
        fio::Ending::Time(t) => line.push_str(&format!(", for {}", crate::units::Dur(t))),
        fio::Ending::Bytes { runtime } => {
            line.push_str(", until its size is done");
            if let Some(t) = runtime {
                line.push_str(&format!(" or {}", crate::units::Dur(t)));
            }
        }
    }
    if p.steady.is_some() {
        let ss = &job.opts.ss;
        line.push_str(&format!(
            ", or once steady ({} over {} s after {} s)",
            ss.fio_name(),
            ss.dur_us / 1_000_000,
            ss.ramp_us as f64 / 1e6
        ));
    }
    line.push('\n');
    for n in &p.notes {
        line.push_str(&format!("  note: {}\n", crate::render::text::fio::note(n)));
    }
    line
}

/// Checks every file the jobs write before any runs: `--output` and each log file, each in a
/// writable directory and each its own (fio replaces them, and so does halfpower fio).
fn check_outputs(a: &Args, set: &fio::JobSet) -> crate::Result<()> {
    let mut outs = export::Outputs::new(false);
    if let Some(out) = &a.output {
        outs.file(Output::Fio, "--output", out)?;
    }
    let mut seen = std::collections::HashSet::new();
    // fio numbers its jobs from 1, each numjobs clone a job of its own (as `logs::write`).
    let mut number = 1;
    for job in &set.jobs {
        let o = &job.opts;
        for k in 0..o.numjobs as usize {
            for (kind, name) in o.logs.files(number + k, &o.name) {
                // A file several clones append to (`per_job_logs=0`) is one output.
                if seen.insert(name.clone()) {
                    outs.file(Output::Fio, kind.option(), std::path::Path::new(&name))?;
                }
            }
        }
        number += o.numjobs as usize;
    }
    Ok(())
}

/// Runs `halfpower fio`.
pub fn fio(raw: Vec<String>) -> anyhow::Result<u8> {
    let Some(a) = parse_args(&raw)? else {
        export::print_result(HELP)?;
        return Ok(0);
    };
    let set = job_set(&a).map_err(crate::Error::from)?;
    check_outputs(&a, &set)?;
    let mut warnings = Vec::new();
    for w in &set.warnings {
        super::warn(&mut warnings, w.clone());
    }
    // Every job maps onto a workload before anything runs; waves run one after another, the
    // jobs of a wave at the same time (as in fio).
    waves::plan_all(&set, &a)?;
    if a.parse_only {
        return Ok(0);
    }
    let started_ms = unix_ms();
    let (ran, disk_deltas) = run_waves(&set, &a, &mut warnings)?;
    let ended = unix_ms();
    // fio numbers its jobs from 1, each numjobs clone a job of its own.
    let mut number = 1;
    for r in &ran {
        logs::write(r, number)?;
        number += r.job.opts.numjobs as usize;
    }
    let doc = document(&set, &ran, &disk_deltas, a.format, started_ms, ended);
    emit(&doc, &a)?;
    let failed = ran
        .iter()
        .any(|r| r.results.exit_status() != 0 || r.below_min.is_some());
    Ok(if failed || crate::signal::interrupted() {
        1
    } else {
        0
    })
}

/// Runs the waves one after another until the last or a stop: the jobs that ran, and the
/// disks' counters that stand for each wave.
fn run_waves(
    set: &fio::JobSet,
    a: &Args,
    warnings: &mut Vec<Warning>,
) -> anyhow::Result<(Vec<Ran>, Vec<DeviceDelta>)> {
    let mut ran: Vec<Ran> = Vec::new();
    let mut disk_deltas = Vec::new();
    for wave in set.jobs.chunk_by(|x, y| x.wave == y.wave) {
        if crate::measure::job::stopped()? {
            break;
        }
        let done = waves::run_wave(wave, a, warnings)?;
        // Jobs of one wave share their disks' counters over overlapping windows: the longest
        // job's window stands for the wave, so no disk is counted twice.
        if let Some(longest) = done
            .iter()
            .max_by(|x, y| x.results.seconds.total_cmp(&y.results.seconds))
        {
            disk_deltas.extend(longest.results.devices.iter().cloned());
        }
        ran.extend(done);
    }
    Ok((ran, disk_deltas))
}

/// fio's document of the jobs that ran: each job's report with its group's bandwidth, and the
/// disks' utilization over every wave.
fn document(
    set: &fio::JobSet,
    ran: &[Ran],
    disk_deltas: &[DeviceDelta],
    format: Format,
    started_ms: u64,
    ended: u64,
) -> FioDocument {
    let deltas: Vec<_> = disk_deltas.iter().collect();
    let disks = figures::disk_util(&deltas);
    let groups = group_bandwidth(ran);
    FioDocument {
        fio_version: format!("halfpower-{} (fio-compatible)", env!("CARGO_PKG_VERSION")),
        timestamp: ended / 1000,
        timestamp_ms: ended,
        time: ctime_utc(ended),
        global_options: (!set.global.is_empty()).then(|| ordered(&set.global)),
        jobs: ran
            .iter()
            .map(|r| {
                let group = groups
                    .iter()
                    .find(|g| g.0 == r.job.group)
                    .map_or([0.0; 2], |g| g.1);
                job_report(r, started_ms, format, group)
            })
            .collect(),
        disk_util: disks,
    }
}

/// Writes the document in the asked format to --output, or prints it (under MPI, rank 0 only).
fn emit(doc: &FioDocument, a: &Args) -> anyhow::Result<()> {
    let text = match a.format {
        Format::Json | Format::JsonPlus => {
            serde_json::to_string_pretty(doc).context("encoding fio's JSON")? + "\n"
        }
        Format::Normal => normal::render(doc),
    };
    match &a.output {
        Some(p) => export::write_whole(Output::Fio, p, text.as_bytes())?,
        // Under MPI the report is the job's: rank 0 prints it.
        None => export::print_result(&text)?,
    }
    Ok(())
}
