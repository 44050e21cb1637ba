//! `halfpower fio`: fio's job files and command-line options run on halfpower's engine, with
//! fio's JSON (`json`, `json+`) or a summary shaped like fio's (`normal`) as the output.

use super::run::{effective_workload, open_targets};
use crate::analysis::fio::{self as figures, Samples};
use crate::clock::{ctime_utc, unix_ms};
use crate::fio::{self, Ending, FioError, FioJob, JobPlan, jobfile};
use crate::model::Results;
use crate::model::fio::{FioDocument, FioJobReport, HalfpowerExtras, Ordered, SyncReport};
use crate::render::text::fio as normal;
use crate::runner::{self, Control, Layout};
use crate::stats::cpu::ProcessEvents;
use crate::stats::window::{Mark, Rates};
use crate::units::ByteSize;
use anyhow::Context;
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

/// One job run: what `figures` needs.
struct Ran {
    job: FioJob,
    plan: JobPlan,
    results: Results,
    target: crate::model::TargetInfo,
    samples: [Samples; 2],
    events: ProcessEvents,
    ended_ms: u64,
    /// Why the job failed its `rate_min`, if it did.
    below_min: Option<String>,
}

/// fio's `rate_min` check on a finished job: the first whole second after the first (fio
/// skips its first rate cycle) whose bytes/s in a direction fell below that direction's
/// minimum.
fn below_min(plan: &JobPlan, samples: &[Samples; 2]) -> Option<String> {
    for (d, name) in [(0, "read"), (1, "write")] {
        let min = plan.rate_min[d];
        if min == 0 {
            continue;
        }
        if let Some((i, s)) = samples[d]
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, s)| s.1 < min as f64)
        {
            return Some(format!(
                "{name} rate_min {min} B/s not met: {:.0} B/s in second {}",
                s.1,
                i + 1
            ));
        }
    }
    None
}

/// Per-second (IOPS, bytes/s) of reads and of writes from the phase's 100-ms marks.
fn samples(marks: &[Mark]) -> [Samples; 2] {
    let per_second: Vec<Mark> = marks.iter().step_by(10).copied().collect();
    let r = Rates::of(&per_second);
    let zip = |a: &[f64], b: &[f64]| a.iter().copied().zip(b.iter().copied()).collect();
    [
        zip(&r.read_iops, &r.read_bytes_per_s),
        zip(&r.write_iops, &r.write_bytes_per_s),
    ]
}

fn run_job(job: &FioJob, a: &Args, warnings: &mut Vec<String>) -> anyhow::Result<Ran> {
    let plan = fio::plan(job, a.allow_write, a.destroy_data)?;
    for n in &plan.notes {
        super::warn(warnings, n.clone());
    }
    let (mut w, fallback) = effective_workload(&plan.workload, warnings);
    let paths = plan.paths.clone();
    if let Some(pct) = plan.size_pct {
        let probe = open_targets(&paths, &w, warnings)?;
        let whole = probe[0].capacity.saturating_sub(w.setup.offset.0);
        let unit = w.bs.max();
        let bytes = (whole as f64 * pct / 100.0) as u64 / unit * unit;
        w.setup.size = Some(ByteSize(bytes.max(unit)));
    }
    if !plan.startdelay.is_zero() {
        std::thread::sleep(plan.startdelay);
    }
    let targets = open_targets(&paths, &w, warnings)?;
    let region: u64 = targets.iter().map(|t| t.size).sum();
    if let Some(b) = plan.budget(&job.opts, region) {
        if b == 0 {
            return Err(FioError::Plan(format!(
                "job '{}': io_size/size is smaller than one request (bs {})",
                job.opts.name, w.bs
            ))
            .into());
        }
        w.setup.bytes = Some(ByteSize(b));
        if let Ending::Bytes { runtime: None } = plan.ending {
            w.setup.time = None;
        }
    }
    let w = w.validated()?;
    let before = ProcessEvents::now();
    let layout = plan.stripe.map_or(Layout::Separate, Layout::Stripe);
    let verify = crate::cli::VerifyOpts {
        verify: plan.verify.is_some(),
        ..Default::default()
    };
    if verify.on() && plan.stripe.is_some() {
        return Err(FioError::Plan(format!(
            "job '{}': verify on several files is not supported by halfpower fio",
            job.opts.name
        ))
        .into());
    }
    super::verify::check_workload(&verify, &w, 1)?;
    let control = Control::progress(!a.quiet);
    let (m, record) = super::verify::execute(&verify, &targets, layout, &w, control)?;
    let events = ProcessEvents::now().since(before);
    let mut results = runner::results(&m, &w, &targets, fallback);
    if let Some(r) = &record {
        let v = super::verify::finish(&verify, r, &targets)?;
        if !v.clean() {
            super::warn(
                warnings,
                format!(
                    "job '{}': verify found bad blocks: {}",
                    job.opts.name,
                    crate::render::text::verify::lines(&v).trim_end()
                ),
            );
        }
        results.verify = Some(v);
    }
    let target = targets[0].info();
    let samples = samples(&m.marks);
    let plan = JobPlan {
        workload: w,
        ..plan
    };
    let below = below_min(&plan, &samples);
    if let Some(why) = &below {
        super::warn(warnings, format!("job '{}': {why}", job.opts.name));
    }
    Ok(Ran {
        job: job.clone(),
        plan,
        results,
        target,
        samples,
        events,
        ended_ms: unix_ms(),
        below_min: below,
    })
}

fn ordered(pairs: &[(String, String)]) -> Ordered<String> {
    Ordered(
        pairs
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect(),
    )
}

fn job_report(r: &Ran, started_ms: u64, format: Format) -> FioJobReport {
    let o = &r.job.opts;
    let res = &r.results;
    let pcts = figures::Percentiles {
        clat: o.clat_percentiles.then_some(o.percentile_list.as_slice()),
        lat: o.lat_percentiles.then_some(o.percentile_list.as_slice()),
    };
    let bins = format == Format::JsonPlus;
    let dir = |d: &Option<crate::stats::summary::DirSummary>, k: usize| {
        d.as_ref()
            .map(|d| figures::dir_report(d, res.seconds, &r.samples[k], pcts, bins))
    };
    let (read, write, mixed) = if o.unified_rw_reporting {
        let both: Samples = r.samples[0]
            .iter()
            .zip(r.samples[1].iter())
            .map(|(a, b)| (a.0 + b.0, a.1 + b.1))
            .collect();
        (
            None,
            None,
            Some(figures::dir_report(
                &res.total,
                res.seconds,
                &both,
                pcts,
                bins,
            )),
        )
    } else {
        (
            Some(dir(&res.read, 0).unwrap_or_default()),
            Some(dir(&res.write, 1).unwrap_or_default()),
            None,
        )
    };
    let h = figures::histogram(&res.total);
    let [latency_ns, latency_us, latency_ms] = figures::latency_ranges(&h);
    let runtime_ms = (res.seconds * 1000.0).round() as u64;
    let pct_of_runtime = |s: f64| {
        if res.seconds > 0.0 {
            100.0 * s / res.seconds
        } else {
            0.0
        }
    };
    FioJobReport {
        jobname: o.name.clone(),
        groupid: r.job.group,
        // fio reports EIO for failed I/O and for a job below its rate_min, EILSEQ for a block
        // that fails verification.
        error: if res.errors.first_error.is_some() || r.below_min.is_some() {
            libc::EIO
        } else if res.verify.as_ref().is_some_and(|v| !v.clean()) {
            libc::EILSEQ
        } else {
            0
        },
        eta: i32::MAX as u64,
        elapsed: r.ended_ms.saturating_sub(started_ms).div_ceil(1000),
        job_options: ordered(&r.job.written),
        read,
        write,
        trim: (!o.unified_rw_reporting).then(Default::default),
        mixed,
        // fio's sync object from halfpower's syncs (stddev is not kept for them: 0).
        sync: res
            .sync
            .as_ref()
            .map_or_else(SyncReport::default, |s| SyncReport {
                total_ios: s.count,
                lat_ns: crate::model::fio::LatNs {
                    min: (s.latency_us.min * 1000.0).round() as u64,
                    max: (s.latency_us.max * 1000.0).round() as u64,
                    mean: s.latency_us.mean * 1000.0,
                    n: s.count,
                    ..Default::default()
                },
            }),
        job_runtime: runtime_ms,
        usr_cpu: pct_of_runtime(res.cpu.process_user_s),
        sys_cpu: pct_of_runtime(res.cpu.process_sys_s),
        ctx: r.events.ctx,
        majf: r.events.majf,
        minf: r.events.minf,
        iodepth_level: figures::iodepth_levels(r.plan.workload.qd),
        iodepth_submit: figures::not_measured_depths(),
        iodepth_complete: figures::not_measured_depths(),
        latency_ns,
        latency_us,
        latency_ms,
        latency_depth: o.iodepth,
        latency_target: 0,
        latency_percentile: 100.0,
        latency_window: 0,
        halfpower: HalfpowerExtras {
            workload: r.plan.workload.clone(),
            engine: res.engine,
            // One file, or the stripe set of a job's files (`stripe(a+b)`).
            target: res
                .targets
                .first()
                .map_or_else(|| r.target.path.clone(), |t| t.path.clone()),
            direct: r.target.direct,
            cpu_us_per_io: res.cpu.us_per_io,
            system_busy_pct: res.cpu.system_busy_pct,
            iops_ci95_pct: res.total.iops_ci95.map(|c| c.pct),
            devices: res.devices.clone(),
            notes: r.plan.notes.clone(),
            verify: res.verify.clone(),
        },
    }
}

/// Refuses what halfpower cannot run of a wave of concurrent jobs: `group_reporting` over
/// several different jobs (fio would merge their reports), and two jobs on one file that does
/// not exist yet (both would create it).
fn check_waves(set: &fio::JobSet, a: &Args) -> crate::Result<()> {
    for wave in set.jobs.chunk_by(|x, y| x.wave == y.wave) {
        if wave.len() < 2 {
            continue;
        }
        for pair in wave.windows(2) {
            if pair[0].group == pair[1].group
                && (pair[0].opts.group_reporting || pair[1].opts.group_reporting)
            {
                return Err(FioError::NotYet {
                    option: "group_reporting".into(),
                    why: format!(
                        "jobs '{}' and '{}' run at the same time in one group, and fio would \
                         report them as one; halfpower reports each job (drop group_reporting, \
                         or put new_group in '{}')",
                        pair[0].opts.name, pair[1].opts.name, pair[1].opts.name
                    ),
                }
                .into());
            }
        }
        let mut paths = Vec::new();
        for job in wave {
            for p in fio::plan(job, a.allow_write, a.destroy_data)?.paths {
                if !p.exists() && paths.contains(&p) {
                    return Err(FioError::Plan(format!(
                        "jobs of one wave (running at the same time) would both create {}: create \
                     it first (and pass --allow-write to write to it), give each job its own \
                     file, or put stonewall between them",
                        p.display()
                    ))
                    .into());
                }
                paths.push(p);
            }
        }
    }
    Ok(())
}

/// Runs the jobs of one wave at the same time, each on its own thread, and returns them in
/// job order. The progress line is off when more than one job runs.
fn run_wave(wave: &[FioJob], a: &Args, warnings: &mut Vec<String>) -> anyhow::Result<Vec<Ran>> {
    if let [job] = wave {
        return Ok(vec![run_job(job, a, warnings)?]);
    }
    let quiet = Args {
        quiet: true,
        ..a.clone()
    };
    let outcomes: Vec<(anyhow::Result<Ran>, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = wave
            .iter()
            .map(|job| {
                let quiet = &quiet;
                s.spawn(move || {
                    let mut w = Vec::new();
                    (run_job(job, quiet, &mut w), w)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut ran = Vec::with_capacity(wave.len());
    for (r, w) in outcomes {
        warnings.extend(w);
        ran.push(r?);
    }
    Ok(ran)
}

/// How one job would run, for `--parse-only`: its workload, ending, and the notes.
fn plan_line(job: &FioJob, p: &JobPlan) -> String {
    let w = &p.workload;
    let mut line = format!(
        "{}: {} {} {} QD{} T{} {} {}",
        job.opts.name,
        p.paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
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
    line.push('\n');
    for n in &p.notes {
        line.push_str(&format!("  note: {n}\n"));
    }
    line
}

/// Runs `halfpower fio`.
pub fn fio(raw: Vec<String>) -> anyhow::Result<u8> {
    let Some(a) = parse_args(&raw)? else {
        print!("{HELP}");
        return Ok(0);
    };
    if let Some(out) = &a.output {
        crate::output::check_output("--output", out)?;
    }
    let set = job_set(&a).map_err(crate::Error::from)?;
    let mut warnings = Vec::new();
    for w in &set.warnings {
        super::warn(&mut warnings, w.clone());
    }
    // Waves run one after another, the jobs of a wave at the same time (as in fio).
    check_waves(&set, &a)?;
    // Every job maps onto a workload before anything runs.
    for job in &set.jobs {
        let plan = fio::plan(job, a.allow_write, a.destroy_data).map_err(crate::Error::from)?;
        if a.parse_only {
            print!("{}", plan_line(job, &plan));
        }
    }
    if a.parse_only {
        return Ok(0);
    }
    let started_ms = unix_ms();
    let mut ran: Vec<Ran> = Vec::new();
    let mut disk_deltas = Vec::new();
    for wave in set.jobs.chunk_by(|x, y| x.wave == y.wave) {
        if crate::signal::interrupted() {
            break;
        }
        let done = run_wave(wave, &a, &mut warnings)?;
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
    let ended = unix_ms();
    let deltas: Vec<_> = disk_deltas.iter().collect();
    let disks = figures::disk_util(&deltas);
    let doc = FioDocument {
        fio_version: format!("halfpower-{} (fio-compatible)", env!("CARGO_PKG_VERSION")),
        timestamp: ended / 1000,
        timestamp_ms: ended,
        time: ctime_utc(ended),
        global_options: (!set.global.is_empty()).then(|| ordered(&set.global)),
        jobs: ran
            .iter()
            .map(|r| job_report(r, started_ms, a.format))
            .collect(),
        disk_util: disks,
    };
    let text = match a.format {
        Format::Json | Format::JsonPlus => {
            serde_json::to_string_pretty(&doc).context("encoding fio's JSON")? + "\n"
        }
        Format::Normal => normal::render(&doc),
    };
    match &a.output {
        Some(p) => crate::output::write_atomic(p, text.as_bytes())
            .with_context(|| format!("writing {}", p.display()))?,
        None => print!("{text}"),
    }
    let failed = ran
        .iter()
        .any(|r| r.results.exit_status() != 0 || r.below_min.is_some());
    Ok(if failed || crate::signal::interrupted() {
        1
    } else {
        0
    })
}
