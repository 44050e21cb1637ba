//! The one measuring session every command that measures goes through: it opens the targets
//! (or adopts those a command opened), runs each point on the engine with its verification, the
//! `[i/n]` lines and the steady rule, repeats points, and turns each run into its results. The
//! engine runner is called from here and nowhere else (`tests/suite/layers.rs` counts).

mod apart;
mod engine;
pub mod job;
mod open;
pub mod pap;
pub mod price;
mod regions;
pub mod verified;

pub use engine::{available_engine, effective_plan};
pub use open::{Sharing, open_targets};
pub use regions::own_region;

use crate::analysis::steady::SteadyRule;
use crate::error::Error;
use crate::model::cause::EngineFallback;
use crate::model::{Results, TargetInfo, Warning};
use crate::plan::{EngineKind, RunPlan};
use crate::runner::{self, Control, Layout};
use crate::signal;
use crate::stats::cpu::ProcessEvents;
use crate::stats::depth::DepthCounts;
use crate::stats::iolog::IoLog;
use crate::stats::window::Mark;
use crate::storage::Target;
use std::io::IsTerminal;
use std::path::PathBuf;
use verified::Policy;

/// Whose a warning is under MPI.
#[derive(Clone, Copy)]
enum Voice {
    /// A rank's own (its targets, its points): each rank says it, named.
    Rank,
    /// The job's (drawn from merged figures or the plan): rank 0 says it, unmarked.
    Job,
}

/// Prints a warning on stderr (in render's words) and keeps it for the JSON record, once: a
/// warning already given (the same open-time warning of each point of a sweep or experiment,
/// the same sentence) is not repeated. Under MPI each rank warns of its own targets and
/// points, named, as the job's stderr mixes them.
pub fn warn(list: &mut Vec<Warning>, w: Warning) {
    say(list, w, Voice::Rank)
}

/// [`warn`] for a warning every rank of an MPI job gives alike (one drawn from the job's merged
/// figures or from the plan, not from a rank's own targets): kept in `list` on every rank, said
/// by rank 0 alone, unmarked; [`warn`] itself for one process.
pub fn warn_job(list: &mut Vec<Warning>, w: Warning) {
    say(list, w, Voice::Job)
}

/// Says the warnings an input log carries (kept in its document already): the first
/// [`crate::render::text::warning::MAX_LOG_WARNINGS`], then how many more.
pub fn warn_of_log(warnings: &[Warning]) {
    for said in crate::render::text::warning::capped(warnings) {
        speak(&said, Voice::Rank);
    }
}

/// Keeps a warning unless the same sentence was kept already, and says it as `voice` says.
fn say(list: &mut Vec<Warning>, w: Warning, voice: Voice) {
    let said = w.to_string();
    if list.iter().any(|x| x.to_string() == said) {
        return;
    }
    speak(&said, voice);
    list.push(w);
}

/// The one voice of warnings on stderr: `halfpower: warning: …`, under MPI a rank's named and
/// the job's by rank 0 alone.
fn speak(said: &str, voice: Voice) {
    match (crate::cluster::many(), voice) {
        (false, _) => crate::output::say!("halfpower: warning: {said}"),
        (true, Voice::Rank) => crate::output::say!(
            "halfpower: rank {}: warning: {said}",
            crate::cluster::rank()
        ),
        (true, Voice::Job) if crate::cluster::rank() == 0 => {
            crate::output::say!("halfpower: warning: {said}")
        }
        (true, Voice::Job) => {}
    }
}

/// How a session runs its points: the decisions its command's plan made.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The engine every point is planned for.
    pub engine: EngineKind,
    /// Why that engine is not io_uring, when it fell back.
    pub engine_fallback: Option<EngineFallback>,
    /// The progress line, the steady-state rule and fio's budget rules.
    pub control: Control,
    /// Seal, record and read back every write (`--verify`, fio's `verify=`).
    pub verify: Option<Policy>,
    /// `[i/n] label` on a terminal before each point.
    pub announce: bool,
    /// A list of points: none starts once Ctrl-C has come, and each with failed I/Os is
    /// warned about by its label. Else (a single run: `run`, `quick`'s tests, fio's jobs) a
    /// point started after Ctrl-C still reports what it measured (nothing), marked interrupted.
    pub list: bool,
    /// The page cache may carry one point's data into the next (warned when buffered).
    pub cache_carries: bool,
    /// Whether the ranks of an MPI job share the targets, and how.
    pub sharing: Sharing,
    /// Limits the user gave (`--limit`), each point's figures held to them.
    pub limits: Vec<crate::model::policy::GivenLimit>,
    /// Read the queue settings that bear on each point and warn of them (not while the doctor
    /// prices them: it changes them on purpose).
    pub setup: bool,
}

impl Settings {
    /// Points on `engine` (with its fallback's reason), the progress line and the `[i/n]`
    /// lines unless `quiet`, no steady rule, no verification.
    pub fn new(
        (engine, engine_fallback): (EngineKind, Option<EngineFallback>),
        quiet: bool,
    ) -> Self {
        // Under MPI rank 0 speaks for the job.
        let speaks = !quiet && crate::cluster::rank() == 0;
        Settings {
            engine,
            engine_fallback,
            control: Control::progress(speaks),
            verify: None,
            announce: speaks,
            list: true,
            cache_carries: true,
            sharing: Sharing::Apart,
            limits: Vec::new(),
            setup: true,
        }
    }

    /// These settings with the steady-state rule `rule` (`--steady`): adaptive warm-up, and a
    /// measured phase that ends once it holds.
    pub fn steady(mut self, rule: Option<SteadyRule>) -> Self {
        self.control.steady = rule;
        self
    }
}

/// What one point measured: its results, with the counts the window marks held, the depths
/// it kept and this process's events over its run (fio's logs and reports read them).
#[derive(Debug)]
pub struct Point {
    /// The point's results (with its verification, when verified).
    pub results: Results,
    /// The measured phase's counts at each window edge.
    pub marks: Vec<Mark>,
    /// Queue depths at submission, I/Os per submit and per reap, all targets together.
    pub depth: DepthCounts,
    /// Context switches and page faults over the run (not its verification's read-back).
    pub events: ProcessEvents,
    /// With [`Control::io_log`]: this rank's workers' per-I/O records, in worker order.
    pub io_log: Vec<IoLog>,
    /// With [`Control::periods_ns`]: this rank's workers' counts at the period edges, in
    /// worker order.
    pub periods: Vec<crate::stats::periods::Periods>,
    /// With a verify policy's state file: this rank's record, flushed, for the command to keep
    /// there through its exporter (`export::Output::State`).
    pub state: Option<Vec<u8>>,
}

/// Targets opened once and the way every point runs on them.
pub struct Session {
    /// The opened targets; dropping them removes files halfpower created.
    targets: Vec<Target>,
    settings: Settings,
    total: usize,
    done: usize,
    status: u8,
    /// Whether this rank runs the points (`scale --ranks` has the others sit out).
    taking_part: bool,
}

impl Session {
    /// Opens `paths` for every workload in `shapes` (each planned for the settings' engine):
    /// for writing when any of them writes, with the largest request size as the smallest
    /// region, and checks every request size against the targets' direct-I/O alignment before
    /// anything runs. Warns once that buffered points share the page cache, and of a fallback.
    pub fn open(
        paths: &[PathBuf],
        shapes: &[RunPlan],
        settings: Settings,
        warnings: &mut Vec<Warning>,
    ) -> crate::Result<Self> {
        let opening = RunPlan::opening(shapes)?;
        if opening.setup().buffered && settings.cache_carries {
            warn_job(warnings, Warning::BufferedPoints);
        }
        if let Some(f) = &settings.engine_fallback {
            warn(warnings, Warning::PointsOnSync(f.clone()));
        }
        let targets = open_targets(paths, &opening, settings.sharing, warnings)?;
        open::check_sizes(&targets, shapes)?;
        Ok(Self::adopt(targets, settings, shapes.len()))
    }

    /// A session over targets its command opened itself ([`open_targets`]: quick's scratch
    /// file, fio's laid-out files), for `total` points.
    pub fn adopt(targets: Vec<Target>, settings: Settings, total: usize) -> Self {
        Session {
            targets,
            settings,
            total,
            done: 0,
            status: 0,
            taking_part: true,
        }
    }

    /// This process's targets as the JSON describes them.
    pub fn infos(&self) -> Vec<TargetInfo> {
        self.targets.iter().map(Target::info).collect()
    }

    /// Every rank's targets under MPI, in rank order (every rank calls this at the same step);
    /// [`Session::infos`] for one process.
    pub fn job_infos(&self) -> crate::Result<Vec<TargetInfo>> {
        job::every_rank(self.infos(), |_, t| t)
    }

    /// Whether this rank runs the points that follow (true) or sits them out while the others
    /// do, joining their results (`scale --ranks`); every rank must run at least one.
    pub fn take_part(&mut self, yes: bool) {
        self.taking_part = yes;
    }

    /// The opened targets.
    pub fn targets(&self) -> &[Target] {
        &self.targets
    }

    /// Runs one point, `w` as planned for the session's engine. None once Ctrl-C has come
    /// (before or during it, when it measured nothing); else its results (with how a steady
    /// point ended in `steady`).
    pub fn run(
        &mut self,
        w: &RunPlan,
        label: &str,
        warnings: &mut Vec<Warning>,
    ) -> crate::Result<Option<Results>> {
        self.run_on(0..self.targets.len(), Layout::Separate, w, label, warnings)
    }

    /// [`Session::run`] on the targets `which` only, laid out as `layout` says (`scale`
    /// runs subsets, and stripe sets).
    pub fn run_on(
        &mut self,
        which: std::ops::Range<usize>,
        layout: Layout,
        w: &RunPlan,
        label: &str,
        warnings: &mut Vec<Warning>,
    ) -> crate::Result<Option<Results>> {
        Ok(self
            .point_on(which, layout, w, label, warnings)?
            .map(|p| p.results))
    }

    /// [`Session::run_on`] with the point's window marks and depths. An announced point with
    /// failed I/Os is warned about in `warnings`.
    pub fn point_on(
        &mut self,
        which: std::ops::Range<usize>,
        layout: Layout,
        w: &RunPlan,
        label: &str,
        warnings: &mut Vec<Warning>,
    ) -> crate::Result<Option<Point>> {
        let targets = &self.targets[which];
        if self.settings.list && job::stopped()? {
            return Ok(None);
        }
        // The one refusal of a steady-state rule under MPI, whichever command and rule (the
        // edge names the value as typed).
        if let (true, Some(_)) = (crate::cluster::many(), self.settings.control.steady) {
            return Err(Error::invalid(
                "--steady",
                "on",
                "no --steady under MPI (each rank would end its point at its own time)",
            ));
        }
        self.done += 1;
        if self.settings.announce && std::io::stderr().is_terminal() {
            crate::output::say!("[{}/{}] {label}", self.done, self.total);
        }
        debug_assert_eq!(w.setup().engine, self.settings.engine);
        if !self.taking_part {
            runner::sit_out();
            return Ok(Some(self.joined(job::join(None)?, label, warnings)));
        }
        // The queue settings that bear on this point, read now (sysfs only): said once each.
        let setup = if self.settings.setup {
            crate::analysis::doctor::bearing(&bearings(targets), &crate::analysis::doctor::asked(w))
        } else {
            Vec::new()
        };
        for c in &setup {
            warn(warnings, Warning::Setting(Box::new(c.clone())));
        }
        let policy = self.settings.verify.as_ref();
        let control = self.settings.control;
        let before = ProcessEvents::now();
        // With a verify policy, every write is sealed for the record and acknowledged in it.
        let record = verified::prepare(policy, w, targets)?;
        let m = match runner::execute(targets, layout, w, control, record.as_ref()) {
            Ok(m) => m,
            Err(Error::Interrupted) => return Ok(None),
            Err(e) => return Err(e),
        };
        let events = ProcessEvents::now().since(before);
        let fallback = self.settings.engine_fallback.clone();
        let mut r = runner::results(&m, w, targets, fallback);
        r.setup = setup;
        crate::analysis::policy::add_given(&mut r, &self.settings.limits);
        let mut state = None;
        if let (Some(rec), Some(p)) = (&record, policy) {
            r.verify = Some(verified::finish(p, rec, targets)?);
            state = verified::kept(p, rec)?;
        }
        // Under MPI, the job's point: every rank's results merged, on every rank.
        let mut p = self.joined(job::join(Some(r))?, label, warnings);
        (p.marks, p.depth, p.events) = (m.marks, m.total.depth, events);
        (p.io_log, p.periods, p.state) = (m.io_log, m.periods, state);
        Ok(Some(p))
    }

    /// The job's point `r` as this session keeps it: a listed point with failed I/Os warned
    /// about by its label, the exit status raised to its own (no marks, depths or events: the
    /// caller that ran it adds them).
    fn joined(&mut self, r: Results, label: &str, warnings: &mut Vec<Warning>) -> Point {
        if self.settings.list && (r.errors.count > 0 || r.fatal.is_some()) {
            warn_job(
                warnings,
                Warning::PointFailed {
                    label: label.to_string(),
                    errors: r.errors.count,
                    fatal: r.fatal.clone(),
                },
            );
        }
        self.status = self.status.max(r.exit_status());
        Point {
            results: r,
            marks: Vec::new(),
            depth: DepthCounts::default(),
            events: ProcessEvents::default(),
            io_log: Vec::new(),
            periods: Vec::new(),
            state: None,
        }
    }

    /// Measures every point of `shapes` `n` times, interleaved (every point once, then every
    /// point again, so a drift over time spreads over all points instead of biasing the last
    /// ones), until Ctrl-C (the point it cut is the last): each point's runs, in order. `label`
    /// names point `i` of `shapes` in its repetition `k` (both from 0).
    pub fn interleaved(
        &mut self,
        shapes: &[RunPlan],
        n: u32,
        label: impl Fn(usize, u32) -> String,
        warnings: &mut Vec<Warning>,
    ) -> crate::Result<Vec<Vec<Results>>> {
        self.total = shapes.len() * n as usize;
        let mut runs: Vec<Vec<Results>> = vec![Vec::new(); shapes.len()];
        for k in 0..n {
            for (i, w) in shapes.iter().enumerate() {
                let Some(r) = self.run(w, &label(i, k), warnings)? else {
                    return Ok(runs);
                };
                let cut = r.interrupted;
                runs[i].push(r);
                if cut {
                    return Ok(runs);
                }
            }
        }
        Ok(runs)
    }

    /// The exit status the points call for ([`exit_status`]).
    pub fn exit_status(&self) -> u8 {
        exit_status(self.status)
    }
}

/// The one exit status of a measuring command: the signal's after Ctrl-C or SIGTERM (130,
/// 143), even if no result was cut; else `worst`, the worst of its results' (1 when any
/// failed I/Os, else 0).
pub fn exit_status(worst: u8) -> u8 {
    if signal::interrupted() {
        crate::signal::exit_status()
    } else {
        worst
    }
}

/// What [`independent`] runs measured.
#[derive(Debug)]
pub struct Repeated {
    /// Every run's results, in order.
    pub runs: Vec<Results>,
    /// The targets of the last run (every rank's under MPI).
    pub infos: Vec<TargetInfo>,
    /// With [`Control::io_log`]: the last run's per-I/O records of this rank, in worker order.
    pub io_log: Vec<IoLog>,
    /// With a verify policy's state file: the last run's record, this rank's, to keep there.
    pub state: Option<Vec<u8>>,
}

/// `n` independent runs of `w` on `paths` (`run --repeat`): each opens the targets afresh (a
/// created file filled again) and removes what it created. Stops at Ctrl-C after the first.
pub fn independent(
    paths: &[PathBuf],
    w: &RunPlan,
    n: u32,
    settings: &Settings,
    warnings: &mut Vec<Warning>,
) -> crate::Result<Repeated> {
    let mut done = Repeated {
        runs: Vec::new(),
        infos: Vec::new(),
        io_log: Vec::new(),
        state: None,
    };
    for k in 0..n {
        if k > 0 && job::stopped()? {
            break;
        }
        if n > 1 && settings.control.progress {
            crate::output::say!("halfpower: repetition {} of {}", k + 1, n);
        }
        let targets = open_targets(paths, w, settings.sharing, warnings)?;
        let all = 0..targets.len();
        let mut session = Session::adopt(targets, settings.clone(), 1);
        let Some(p) = session.point_on(all, Layout::Separate, w, "", warnings)? else {
            if done.runs.is_empty() {
                return Err(Error::Interrupted);
            }
            break;
        };
        done.infos = session.job_infos()?;
        done.io_log = p.io_log;
        done.state = p.state;
        done.runs.push(p.results);
    }
    Ok(done)
}

/// The block devices under `targets` with their queues: each target's own device (`top`),
/// then the devices beneath it, each once, with how many of the targets are on it.
fn bearings(targets: &[Target]) -> Vec<crate::analysis::doctor::Bearing> {
    let tree = crate::oscounters::path::tree::Tree::open();
    let mut out: Vec<crate::analysis::doctor::Bearing> = Vec::new();
    for d in targets.iter().filter_map(|t| t.device.as_ref()) {
        let below = crate::oscounters::sysfs::stack(&d.name);
        for (i, name) in std::iter::once(&d.name).chain(&below).enumerate() {
            if let Some(b) = out.iter_mut().find(|b| &b.queue.device == name) {
                b.on += 1;
                b.top |= i == 0;
                continue;
            }
            out.push(crate::analysis::doctor::Bearing {
                queue: crate::oscounters::settings::queue(&tree, name),
                class: crate::analysis::device::classify(&crate::oscounters::sysfs::facts(name)),
                top: i == 0,
                on: 1,
            });
        }
    }
    out
}
