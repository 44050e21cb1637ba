//! fio compatibility: fio's job files and command lines read into typed jobs ([`FioJob`]),
//! grouped as fio groups them, and each job mapped onto a halfpower [`Workload`]. The run
//! itself and fio's output shapes live in `commands::fio` and `render::fio`.

pub mod access;
mod apply;
mod data;
mod extent;
pub mod files;
pub mod jobfile;
pub mod keywords;
pub mod logs;
pub mod mapping;
pub mod number;
pub mod options;
pub mod steady;

use crate::model::fio::{FioNote, FioNoteKind, JobEnding};
use crate::plan::{DEFAULT_SEED, EngineKind, Workload};
use crate::units::{ByteSize, Dur};
use jobfile::Section;
use number::Size;
use options::{FioEngine, JobOptions};
use std::path::PathBuf;
use std::time::Duration;

/// What can be wrong with fio input.
#[derive(Debug, thiserror::Error)]
pub enum FioError {
    /// An option halfpower does not take.
    #[error(
        "option '{0}' is not supported by halfpower fio (docs/fio.md lists the options it takes; \
         --ignore-unknown warns instead of stopping)"
    )]
    Unsupported(String),
    /// A name fio itself does not know (fio 3.33 refuses it too), with what to write instead.
    #[error("option '{option}' is not a fio option (fio refuses it too): {instead}")]
    NotFio {
        /// The option as written.
        option: String,
        /// What fio takes for it.
        instead: String,
    },
    /// An option halfpower takes in principle but cannot run yet.
    #[error("option '{option}' is not supported by halfpower fio yet: {why}")]
    NotYet {
        /// The option.
        option: String,
        /// Why, and what is missing.
        why: String,
    },
    /// A value fio would not accept either, or one halfpower cannot run.
    #[error("invalid value '{value}' for fio option '{option}': use {accepted}")]
    Value {
        /// The option.
        option: String,
        /// The value as written.
        value: String,
        /// What would be accepted.
        accepted: String,
    },
    /// A value that cannot be read, with why; the reason says what would be accepted.
    #[error("invalid value '{value}' for fio option '{option}': {why}")]
    Invalid {
        /// The option.
        option: String,
        /// The value as written.
        value: String,
        /// Why, and what would be accepted.
        why: String,
    },
    /// A line of a job file that is not fio's grammar.
    #[error("{origin}: cannot read '{line}': expected {expected}")]
    Syntax {
        /// `FILE:LINE`.
        origin: String,
        /// The line.
        line: String,
        /// What would be read.
        expected: String,
    },
    /// A job file or include that cannot be read.
    #[error("cannot read job file {path}: {message}")]
    File {
        /// The path.
        path: String,
        /// The OS error.
        message: String,
    },
    /// An error in an option, with where the option was written.
    #[error("{origin}: {inner}")]
    At {
        /// `FILE:LINE` or `command line`.
        origin: String,
        /// The error.
        inner: Box<FioError>,
    },
    /// An error in a value that came from environment variables that are not set.
    #[error(
        "{inner} (the value came from {vars}, not set in the environment: fio reads an unset \
         variable as empty)"
    )]
    Unset {
        /// The error.
        inner: Box<FioError>,
        /// The variables as written, `${FIO_BS}`.
        vars: String,
    },
    /// Jobs halfpower cannot run as fio would (e.g. different jobs at the same time).
    #[error("{0}")]
    Plan(String),
}

impl From<FioError> for crate::Error {
    fn from(e: FioError) -> Self {
        crate::Error::Foreign(Box::new(e))
    }
}

impl FioError {
    /// Builds a [`FioError::Value`].
    pub fn value(option: &str, value: &str, accepted: impl Into<String>) -> Self {
        FioError::Value {
            option: option.to_string(),
            value: value.to_string(),
            accepted: accepted.into(),
        }
    }

    /// Builds a [`FioError::Syntax`].
    pub fn syntax(origin: &str, line: &str, expected: &str) -> Self {
        FioError::Syntax {
            origin: origin.to_string(),
            line: line.to_string(),
            expected: expected.to_string(),
        }
    }
}

/// One fio job: its typed options, the options as written (for fio's `"job options"`), and
/// its group.
#[derive(Clone, Debug, PartialEq)]
pub struct FioJob {
    /// Typed options, the globals before it and its own applied.
    pub opts: JobOptions,
    /// Its own options as written, in order (`"job options"`).
    pub written: Vec<(String, String)>,
    /// fio's group id (reporting): a new group starts at a job with `stonewall`, `new_group`
    /// or `wait_for`, and at the first job of every job file after the first.
    pub group: u32,
    /// Which wave of jobs it runs in: jobs of one wave run at the same time in fio; a new wave
    /// starts where a job waits for those before it (`stonewall`, `wait_for`, a new job file).
    /// `new_group` alone starts a new group, not a new wave.
    pub wave: u32,
}

/// All jobs of the input, with the global options as written (`"global options"`) and the
/// warnings of `--ignore-unknown`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JobSet {
    /// Options of the global sections, as written.
    pub global: Vec<(String, String)>,
    /// The jobs in order.
    pub jobs: Vec<FioJob>,
    /// Options ignored under `--ignore-unknown`, one each.
    pub warnings: Vec<crate::model::Warning>,
}

fn apply_all(
    opts: &mut JobOptions,
    section: &Section,
    ignore_unknown: bool,
    warnings: &mut Vec<crate::model::Warning>,
) -> Result<Vec<(String, String)>, FioError> {
    // fio reads kb_base before any size, wherever it is written.
    let (base, rest): (Vec<_>, Vec<_>) = section.options.iter().partition(|o| o.key == "kb_base");
    let mut written = Vec::new();
    for o in base.into_iter().chain(rest) {
        match opts.apply(&o.key, o.value.as_deref()) {
            Ok(()) => written.push((o.key.clone(), o.value.clone().unwrap_or_default())),
            Err(FioError::Unsupported(name) | FioError::NotFio { option: name, .. })
                if ignore_unknown =>
            {
                warnings.push(crate::model::Warning::FioIgnored {
                    origin: o.origin.to_string(),
                    option: name,
                });
            }
            Err(e) => {
                let e = if o.unset.is_empty() {
                    e
                } else {
                    let vars: Vec<String> = o.unset.iter().map(|v| format!("${{{v}}}")).collect();
                    FioError::Unset {
                        inner: Box::new(e),
                        vars: vars.join(", "),
                    }
                };
                return Err(FioError::At {
                    origin: o.origin.clone(),
                    inner: Box::new(e),
                });
            }
        }
    }
    // Keep the order as written (kb_base went first only for parsing).
    let order = |k: &str| section.options.iter().position(|o| o.key == k);
    written.sort_by_key(|(k, _)| order(k));
    Ok(written)
}

/// Resolves sections (command-line sections first, then each job file's) into jobs as fio
/// does: a global section changes the defaults of every job after it; `--section` names keep
/// only those jobs.
pub fn resolve(
    sections: &[Section],
    only: &[String],
    ignore_unknown: bool,
) -> Result<JobSet, FioError> {
    let mut set = JobSet::default();
    let mut defaults = JobOptions::default();
    let (mut group, mut wave) = (0u32, 0u32);
    for s in sections {
        if s.global {
            let w = apply_all(&mut defaults, s, ignore_unknown, &mut set.warnings)?;
            set.global.extend(w);
            continue;
        }
        if !only.is_empty() && !only.contains(&s.name) {
            continue;
        }
        let mut opts = defaults.clone();
        opts.name = s.name.clone();
        let written = apply_all(&mut opts, s, ignore_unknown, &mut set.warnings)?;
        let waits = opts.stonewall || opts.wait_for.is_some() || s.file_stonewall;
        if !set.jobs.is_empty() && (waits || opts.new_group) {
            group += 1;
        }
        if !set.jobs.is_empty() && waits {
            wave += 1;
        }
        set.jobs.push(FioJob {
            opts,
            written,
            group,
            wave,
        });
    }
    if set.jobs.is_empty() {
        return Err(FioError::Plan(if only.is_empty() {
            "no jobs: give a job file or --name=NAME with options".into()
        } else {
            format!("no job section named {} in the input", only.join(", "))
        }));
    }
    Ok(set)
}

/// How a job ends, as fio decides it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ending {
    /// `time_based`: runs for the runtime whatever it has done.
    Time(Duration),
    /// Until `io_size` (or `size`) × `loops` is done, or the runtime if one is set first.
    Bytes {
        /// The runtime, when one is set.
        runtime: Option<Duration>,
    },
}

/// A job as halfpower will run it.
#[derive(Clone, Debug, PartialEq)]
pub struct JobPlan {
    /// The workload (its `bytes` is filled in once the target's region is known).
    pub workload: Workload,
    /// The files or devices: one, or several that the job's requests go to in turn (fio's
    /// `filename=a:b` and `nrfiles`), run as one stripe set in chunks of the request size.
    pub paths: Vec<PathBuf>,
    /// How many clones have files of their own (`numjobs` without `filename`: `paths` holds
    /// one clone's files after another, each run by one worker); 1 when the clones share.
    pub clone_files: u32,
    /// With several files per clone: the stripe's chunk, bytes (the largest request size).
    pub stripe: Option<u64>,
    /// `rate_min` for reads and writes, bytes/s over all clones (0: none): a whole second of
    /// the measured phase below it, after the first, fails the job as in fio.
    pub rate_min: [u64; 2],
    /// `rate_iops_min` for reads and writes, IOPS over all clones (0: none), checked as
    /// `rate_min`.
    pub rate_iops_min: [u64; 2],
    /// How it ends.
    pub ending: Ending,
    /// The size as a share of the target, when given so.
    pub size_pct: Option<f64>,
    /// Wait before starting.
    pub startdelay: Duration,
    /// Differences from fio worth a warning.
    pub notes: Vec<FioNote>,
    /// `verify`: the method fio was asked for; halfpower seals and reads back its own way.
    pub verify: Option<String>,
    /// `steadystate` with `ss_dur`: the rule that ends the job once it holds.
    pub steady: Option<crate::analysis::fio_steady::FioSteady>,
}

/// Maps a job onto a halfpower workload. `setup` carries halfpower's own permissions
/// (`allow_write`, `destroy_data`).
pub fn plan(job: &FioJob, allow_write: bool, destroy_data: bool) -> Result<JobPlan, FioError> {
    let o = &job.opts;
    let mut notes = Vec::new();
    let files = files::of(o)?;
    let paths = files.paths.clone();
    let mut w = shape(o, &files)?;
    mapping::plan(o, &mut w, &mut notes)?;
    engine_and_depth(o, &mut w, &mut notes);
    page_cache(o, &mut w);
    layout(o, &files, &mut w);
    w.setup.on_error = on_error(o);
    o.logs.check(crate::cluster::size())?;
    if o.exitall {
        notes.push(note(o, FioNoteKind::Exitall));
    }
    run_setup(o, &mut w, allow_write, destroy_data)?;
    let (stripe, size_pct) = extent::file_sizes(o, &files, &mut w)?;
    extent::offset(o, &mut w)?;
    let ending = extent::ending(o, &mut w)?;
    let (verify, data_notes) = data::lower(
        o,
        &mut w,
        match ending {
            Ending::Bytes { .. } => JobEnding::Size,
            Ending::Time(_) => JobEnding::Time,
        },
    )?;
    notes.extend(data_notes);
    let (rate_min, rate_iops_min) = minimums(o);
    Ok(JobPlan {
        workload: w,
        paths,
        clone_files: files.groups,
        stripe,
        rate_min,
        rate_iops_min,
        ending,
        size_pct,
        startdelay: Duration::from_micros(o.startdelay_us),
        notes,
        verify,
        steady: o.ss.rule(),
    })
}

/// The workload's direction, read share, request size and threads for job `o` on `files`.
fn shape(o: &JobOptions, files: &files::JobFiles) -> Result<Workload, FioError> {
    let mut w = Workload {
        rw: o.rw,
        ..Workload::default()
    };
    w.read_pct = o.rw.is_mixed().then_some(o.rwmixread);
    w.bs = ByteSize(request_size(o, &w)?).into();
    // Clones with files of their own are one worker on each; clones that share files are
    // that many workers on them.
    w.threads = if files.groups > 1 { 1 } else { o.numjobs };
    Ok(w)
}

/// The warm-up, seed, halfpower's permissions and the CPUs in `w`.
fn run_setup(
    o: &JobOptions,
    w: &mut Workload,
    allow_write: bool,
    destroy_data: bool,
) -> Result<(), FioError> {
    w.setup.warmup = Dur(Duration::from_micros(o.ramp_time_us));
    w.setup.seed = match (o.randseed, o.randrepeat) {
        (Some(s), _) => s,
        (None, true) => DEFAULT_SEED,
        (None, false) => crate::clock::now_ns() ^ DEFAULT_SEED,
    };
    w.setup.safety.allow_write = allow_write;
    w.setup.safety.destroy_data = destroy_data;
    w.setup.affinity = match &o.cpus_allowed {
        Some(list) => list
            .parse()
            .map_err(|e: String| FioError::value("cpus_allowed", list, e))?,
        None => crate::affinity::Affinity::None,
    };
    Ok(())
}

/// The job's `rate_min` and `rate_iops_min`, totalled over its clones, for the directions
/// it does (a value given once applies to both in fio).
fn minimums(o: &JobOptions) -> ([u64; 2], [u64; 2]) {
    let rate_min = [
        if o.reads() { o.access.rate_min[0] } else { 0 } * o.numjobs as u64,
        if o.writes() { o.access.rate_min[1] } else { 0 } * o.numjobs as u64,
    ];
    let rate_iops_min = [
        if o.reads() {
            o.access.rate_iops_min[0]
        } else {
            0
        } * o.numjobs as u64,
        if o.writes() {
            o.access.rate_iops_min[1]
        } else {
            0
        } * o.numjobs as u64,
    ];
    (rate_min, rate_iops_min)
}

/// The request size, bytes, of the directions `w` does: one job cannot mix a read size and
/// another write size yet.
fn request_size(o: &JobOptions, w: &Workload) -> Result<u64, FioError> {
    Ok(match (w.reads(), w.writes()) {
        (true, true) if o.bs[0] != o.bs[1] => {
            return Err(FioError::NotYet {
                option: "bs".into(),
                why: "different read and write sizes in one job are not implemented yet".into(),
            });
        }
        (false, true) => o.bs[1],
        _ => o.bs[0],
    })
}

/// The engine and queue depth in `w`, with a note where halfpower runs them unlike fio or
/// reports the clones together.
fn engine_and_depth(o: &JobOptions, w: &mut Workload, notes: &mut Vec<FioNote>) {
    w.setup.engine = match o.ioengine {
        FioEngine::IoUring | FioEngine::Libaio => EngineKind::Uring,
        FioEngine::Sync => EngineKind::Sync,
        FioEngine::Null => EngineKind::Null,
    };
    if o.ioengine == FioEngine::Libaio {
        notes.push(note(o, FioNoteKind::Libaio));
    }
    w.qd = if o.ioengine == FioEngine::Sync {
        1
    } else {
        o.iodepth
    };
    if o.ioengine == FioEngine::Sync && o.iodepth > 1 {
        notes.push(note(
            o,
            FioNoteKind::SyncDepth {
                engine: o.ioengine.fio_name().to_string(),
                iodepth: o.iodepth,
            },
        ));
    }
    if o.numjobs > 1 && !o.group_reporting {
        notes.push(note(o, FioNoteKind::ClonesTogether { numjobs: o.numjobs }));
    }
    if o.gtod_reduce {
        notes.push(note(o, FioNoteKind::GtodReduce));
    }
    if o.create_on_open {
        notes.push(note(o, FioNoteKind::CreateOnOpen));
    }
}

/// How the job's files are laid out when they do not exist, as fio lays them out
/// (filesetup.c's extend_file): written in full for a job that reads or has `overwrite`, else
/// as `fallocate` says (fio's default reserves the blocks unwritten, so each first write
/// converts an extent, which a sync then commits). Files that all exist are used as they are,
/// by fio and halfpower alike.
fn layout(o: &JobOptions, files: &files::JobFiles, w: &mut Workload) {
    let missing = files.paths.iter().any(|p| !p.exists());
    w.setup.create = if !missing || o.reads() || o.overwrite {
        crate::plan::Create::Filled
    } else {
        o.fallocate.create()
    };
}

/// What the job does after an I/O error: fio's default stops it (halfpower goes on one second
/// to see whether the errors are a burst, then stops); `read` (`write`) goes on after failed
/// reads (writes) and stops after the others. Failed verification never stops halfpower's
/// read-back (every bad block is reported), so `verify` changes nothing.
fn on_error(o: &JobOptions) -> crate::plan::OnError {
    use crate::plan::OnError;
    use options::ContinueOnError as C;
    match o.continue_on_error {
        C::None | C::Verify => OnError::Stop,
        C::Io | C::All => OnError::Continue,
        C::Read if !o.writes() => OnError::Continue,
        C::Write if !o.reads() => OnError::Continue,
        C::Read => OnError::ContinueReads,
        C::Write => OnError::ContinueWrites,
    }
}

/// Buffered or direct I/O and O_SYNC in `w`. fio's `invalidate` drops a buffered job's files
/// from the page cache before the job (`commands::fio`) and again before each pass: each of
/// its `loops`, and each time a time-based sequential job starts over (`--invalidate`).
fn page_cache(o: &JobOptions, w: &mut Workload) {
    w.setup.buffered = !o.direct;
    w.setup.access.invalidate =
        w.setup.buffered && o.invalidate && (o.loops > 1 || (o.time_based && !o.rw.is_random()));
    w.setup.write_through = o.sync != options::OpenSync::None;
    w.setup.sync_metadata = o.sync == options::OpenSync::Sync;
}

/// Note `kind` for job `o`.
pub(crate) fn note(o: &JobOptions, kind: FioNoteKind) -> FioNote {
    FioNote {
        job: o.name.clone(),
        kind,
    }
}

impl JobPlan {
    /// For a job that ends by bytes: each clone does `io_size` (or `size` when `filesize`
    /// sized the files, else its files' region) `loops` times, in whole requests, as fio does.
    /// `region` is the region of all the job's files, bytes.
    pub fn budget(&self, job: &JobOptions, region: u64) -> Option<u64> {
        match self.ending {
            Ending::Time(_) => None,
            Ending::Bytes { .. } => {
                let bs = self.workload.bs.max();
                let sized = match (job.filesize, job.size) {
                    (Some(_), Some(Size::Bytes(b))) => Some(b),
                    _ => None,
                };
                let own = region / self.clone_files.max(1) as u64;
                let per_clone = job.io_size.or(sized).unwrap_or(own) / bs * bs;
                Some(per_clone * job.loops * job.numjobs as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests;
