//! Runs one workload over opened targets: spawns a worker thread per target and thread, takes
//! them through warm-up and the measured phase in lock-step (barriers), samples the OS
//! counters and CPU at the edges of the measured window, and merges what the workers recorded.
//! Orchestration only: the device sampler, the progress line, the watch loop and the results
//! object each have their own file.

mod progress;
pub mod results;
mod sampler;
mod watch;

pub use results::results;
pub use watch::Control;

use crate::access::sample::{Draw, SizePicker};
use crate::analysis::steady::SteadyOutcome;
use crate::clock::now_ns;
use crate::engine::{BufferArena, Engine, NullEngine, SyncEngine, UringEngine};
use crate::offsets::{OffsetGen, Region, Stripe};
use crate::oscounters::diskstats::DeviceDelta;
use crate::rng::Rng;
use crate::signal;
use crate::spec::{EngineKind, Workload};
use crate::stats::Recorder;
use crate::stats::cpu::{CpuSnapshot, CpuSummary};
use crate::stats::recorder::{DirStats, ErrorStats};
use crate::stats::series::SeriesSink;
use crate::stats::series::TimePoint;
use crate::stats::summary::DeviceSecond;
use crate::target::Target;
use crate::worker::{Limit, Pace, Progress, Synthetic, Worker, WorkerPlan};
use sampler::{DeviceSampler, device_snapshot};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::time::Instant;

/// How a run lays its workload over the targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Each target runs the workload with its own workers (`--threads` each).
    #[default]
    Separate,
    /// The targets are one logical target striped in chunks of this many bytes: `--threads`
    /// workers in all, each with every member open.
    Stripe(u64),
}

/// Raw results of one target: merged over its threads.
#[derive(Clone, Debug, Default)]
pub struct TargetMeasurement {
    /// Reads.
    pub read: DirStats,
    /// Writes.
    pub write: DirStats,
    /// Failures.
    pub errors: ErrorStats,
    /// fsyncs and fdatasyncs.
    pub syncs: DirStats,
    /// Queue depth at each submission, I/Os per submit call and per reap.
    pub depth: crate::stats::depth::DepthCounts,
}

/// Everything one run measured, before formatting.
#[derive(Debug)]
pub struct Measurement {
    /// The engine that ran.
    pub engine: EngineKind,
    /// Whether io_uring used a registered file and registered buffers.
    pub registered: Option<(bool, bool)>,
    /// The CPU each worker was pinned to, in worker order (empty: not pinned).
    pub worker_cpus: Vec<usize>,
    /// Measured window: from the start of the measured phase to the last completion, s.
    pub seconds: f64,
    /// Per target, in the order given.
    pub targets: Vec<TargetMeasurement>,
    /// All targets together.
    pub total: TargetMeasurement,
    /// Per-second series of all targets.
    pub series: Vec<TimePoint>,
    /// CPU cost over the window.
    pub cpu: CpuSummary,
    /// OS counters of the disks under the targets (each disk once).
    pub devices: Vec<DeviceDelta>,
    /// The same disks second by second (whole seconds of the measured phase).
    pub device_series: Vec<DeviceSecond>,
    /// Whether Ctrl-C cut the run short.
    pub interrupted: bool,
    /// With a steady-state rule: how the point ended.
    pub steady: Option<SteadyOutcome>,
    /// The measured phase's counts every `stats::window::CI_WINDOW_S`, for its intervals.
    pub marks: Vec<crate::stats::window::Mark>,
    /// A failure that stopped a worker (submission error), if any.
    pub fatal: Option<String>,
    /// How the workload was laid over the targets (with a stripe, `targets` has one entry).
    pub layout: Layout,
}

struct WorkerOutput {
    target: usize,
    rec: Recorder,
    registered: Option<(bool, bool)>,
    fatal: Option<String>,
}

/// Shared state of one run's threads.
struct Shared {
    barrier: Barrier,
    setup_error: Mutex<Option<String>>,
    /// The run's I/O budget: none, one all workers draw on, or one per worker.
    budget: Vec<AtomicU64>,
    /// The warm-up spends I/Os of `budget` ([`Control::warmup_in_budget`]).
    warmup_in_budget: bool,
    progress: Vec<Progress>,
    stop: AtomicBool,
    /// Ends an adaptive warm-up (steady state) once its transient is over.
    warm_stop: AtomicBool,
    series: Arc<SeriesSink>,
    warmup_ns: u64,
    time_ns: u64,
    /// Workers whose measured phase has ended (drained), and the signal that one has.
    done: Mutex<usize>,
    done_signal: Condvar,
    workers: usize,
    /// With `--verify`: the record the workers seal their writes for.
    record: Option<crate::verify::Record>,
}

impl Shared {
    /// The budget worker `me` draws on, if the run ends by bytes.
    fn budget_of(&self, me: usize) -> Option<&AtomicU64> {
        match self.budget.len() {
            0 => None,
            1 => self.budget.first(),
            _ => self.budget.get(me),
        }
    }

    /// A worker's measured phase has ended: counted, and the watcher woken.
    fn worker_done(&self) {
        *self.done.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.done_signal.notify_all();
    }

    /// Waits up to `timeout` for every worker's measured phase to end; whether they all have.
    /// The watcher wakes at once when the last one ends, so the counters sampled after it
    /// cover the I/O window, not a watcher's sleep beyond it.
    fn wait_all_done(&self, timeout: std::time::Duration) -> bool {
        let guard = self.done.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = self
            .done_signal
            .wait_timeout_while(guard, timeout, |d| *d < self.workers)
            .unwrap_or_else(|p| p.into_inner());
        *guard >= self.workers
    }
}

fn drive<E: Engine>(
    eng: &mut E,
    mut worker: Worker,
    shared: &Shared,
    me: usize,
) -> (Recorder, Option<String>) {
    let progress = &shared.progress[me];
    let mut fatal = None;
    if shared.warmup_ns > 0 {
        let until = now_ns() + shared.warmup_ns;
        let stop = &shared.warm_stop;
        let limit = match (shared.budget_of(me), shared.warmup_in_budget) {
            (Some(b), true) => Limit::Budget(b, until),
            _ => Limit::Until(until),
        };
        if let Err(e) = worker.phase(eng, limit, None, progress, stop) {
            fatal = Some(format!("warm-up: {e}"));
        }
    }
    shared.barrier.wait(); // B1: warm-up drained everywhere
    shared.barrier.wait(); // B2: counters sampled, go
    let origin = now_ns();
    let mut rec = Recorder::with_series(origin, Some(shared.series.clone()));
    if fatal.is_none() {
        let limit = match shared.budget_of(me) {
            // fio's jobs that end by size may also have a runtime: whichever comes first.
            Some(b) => Limit::Budget(
                b,
                match shared.time_ns {
                    0 => u64::MAX,
                    t => origin + t,
                },
            ),
            None => Limit::Until(origin + shared.time_ns),
        };
        if let Err(e) = worker.phase(eng, limit, Some(&mut rec), progress, &shared.stop) {
            fatal = Some(format!("submitting I/O: {e}"));
        }
    }
    rec.finish();
    shared.worker_done();
    (rec, fatal)
}

/// The window of the figures: from the first measured submission to the last measured
/// completion (`busy_s`), and at least the phase's time when it ran to its end: paced workers
/// (a rate cap, think time) may sit idle after their last completion until the deadline, and
/// that time is part of the workload (at 20 IOPS for 2 s the last of 40 reads completes near
/// 1.95 s; 40 / 1.95 would claim 20.5 IOPS). A phase stopped early (`stopped`: steady state,
/// errors; or Ctrl-C) or ended by its byte budget ends at its last completion.
fn measured_seconds(time_ns: u64, budget: &[AtomicU64], stopped: bool, busy_s: f64) -> f64 {
    let budget_left = budget
        .iter()
        .all(|b| b.load(std::sync::atomic::Ordering::Relaxed) > 0);
    if time_ns > 0 && budget_left && !stopped && !signal::interrupted() {
        busy_s.max(time_ns as f64 / 1e9)
    } else {
        busy_s
    }
}

/// A run's I/O budget as [`Shared::budget`] holds it: `ios` in one, or split as evenly as
/// whole I/Os allow between `workers` (the first ones take the remainder).
fn split_budget(ios: Option<u64>, workers: Option<usize>) -> Vec<AtomicU64> {
    match (ios, workers) {
        (None, _) => Vec::new(),
        (Some(ios), Some(n)) if n > 1 => {
            let n = n as u64;
            (0..n)
                .map(|i| AtomicU64::new(ios / n + u64::from(i < ios % n)))
                .collect()
        }
        (Some(ios), _) => vec![AtomicU64::new(ios)],
    }
}

enum AnyEngine {
    Uring(Box<UringEngine>),
    Sync(SyncEngine),
    Null(NullEngine),
}

fn setup_engine(
    group: &[Target],
    kind: EngineKind,
    w: &Workload,
    qd: u32,
    seed: u64,
) -> std::io::Result<AnyEngine> {
    let bs = w.bs.max() as u32;
    let align = group.iter().map(|t| t.mem_align).max().unwrap_or(4096);
    let fds: Vec<_> = group.iter().map(Target::fd).collect();
    let mut arena = BufferArena::new(qd as usize, bs as usize, align as usize)?;
    // Incompressible write data, different per worker.
    Rng::new(seed, 0xb0f).fill(arena.all_mut());
    Ok(match kind {
        EngineKind::Uring => {
            AnyEngine::Uring(Box::new(UringEngine::new(&fds, arena, bs, w.setup.spin.0)?))
        }
        EngineKind::Sync => AnyEngine::Sync(SyncEngine::new(&fds, arena, bs)),
        EngineKind::Null => AnyEngine::Null(NullEngine::new(arena, bs)),
    })
}

/// Which worker a thread is: its target, its thread number there, its index over all
/// workers, and the CPU it is pinned to.
#[derive(Clone, Copy)]
struct WorkerId {
    target: usize,
    thread: u32,
    index: usize,
    cpu: Option<usize>,
}

/// One worker on `group`: one target, or every member of a stripe set (`stripe` its chunk).
fn worker_thread(
    group: &[Target],
    stripe: Option<u64>,
    id: WorkerId,
    w: &Workload,
    engine: EngineKind,
    shared: &Shared,
) -> WorkerOutput {
    let t = &group[0];
    let WorkerId {
        target: ti,
        thread: th,
        index: me,
        cpu,
    } = id;
    let qd = w.qd.min(engine.caps().max_qd);
    let stream = ((ti as u64) << 32) | th as u64;
    // A workload may address less than the opened region (profile's cache-hit cells).
    let size_of = |t: &Target| w.setup.size.map_or(t.size, |s| s.0.min(t.size));
    let (region, layout) = match stripe {
        Some(chunk) => {
            let sizes: Vec<u64> = group.iter().map(size_of).collect();
            let starts = group.iter().map(|t| t.offset).collect();
            (
                Region::new(0, Stripe::logical_size(chunk, &sizes), w.bs.min()),
                Some(Stripe::new(chunk, starts)),
            )
        }
        None => (Region::new(t.offset, size_of(t), w.bs.min()), None),
    };
    let a = &w.setup.access;
    // The scattering of popular blocks is the same for every worker of a target (one hot set).
    let mut scatter_rng = Rng::new(w.setup.seed, 0x5ca7 + ti as u64);
    // Zones are checked against each target's region when it is opened; a stripe set's
    // logical region is checked here.
    let offsets = if w.rw.is_random() {
        Draw::new(&a.dist, region.blocks, region.align, &mut scatter_rng)
            .map(|d| OffsetGen::drawn(region, d, a.random_pct, a.random_run))
            .map_err(|e| format!("--dist {}: {e}", a.dist))
    } else {
        Ok(OffsetGen::sequential(
            region,
            th,
            w.threads,
            a.stride.map(|s| s.0),
        ))
    };
    let workers = shared.workers as f64;
    let (offsets, offsets_error) = match offsets {
        Ok(o) => (o, None),
        Err(e) => (OffsetGen::random(region), Some(e)),
    };
    let plan = WorkerPlan {
        source: Synthetic {
            offsets,
            rng: Rng::new(w.setup.seed, stream),
            read_pct: w.read_pct.unwrap_or(w.rw.default_read_pct()),
            sizes: SizePicker::new(&w.bs),
        },
        qd,
        pace: Pace {
            ns_per_io: a.rate_iops.map_or(0.0, |r| 1e9 * workers / r as f64),
            ns_per_byte: a.rate.map_or(0.0, |r| 1e9 * workers / r.0 as f64),
            think_ns: a.think.map_or(0, |t| t.0.as_nanos() as u64),
            think_every: a.think_every,
            sync_every: a.fsync.or(a.fdatasync).unwrap_or(0),
            data_only: a.fdatasync.is_some(),
            end_sync: a.end_fsync,
        },
        // Different per run too (the clock), so a rewrite never repeats an earlier run's data.
        write_tag: Rng::new(w.setup.seed ^ now_ns(), stream ^ 0x7772_6974).next_u64(),
        stripe: layout,
        verify: shared.record.as_ref().map(|r| r.writer(ti, 0, me)),
        error_grace_ns: (w.setup.on_error == crate::spec::OnError::Stop)
            .then_some(crate::spec::ERROR_GRACE_NS),
    };
    let pinned = match cpu {
        Some(c) => crate::affinity::pin_current_thread(c)
            .map_err(|e| format!("pinning worker {me} to CPU {c} (--affinity): {e}")),
        None => Ok(()),
    };
    let engine_result = offsets_error.map_or(pinned, Err).and_then(|()| {
        setup_engine(group, engine, w, qd, w.setup.seed ^ stream).map_err(|e| {
            format!(
                "setting up the {} engine on {}: {e}",
                engine.name(),
                t.path.display()
            )
        })
    });
    let mut out = WorkerOutput {
        target: ti,
        rec: Recorder::new(0),
        registered: None,
        fatal: None,
    };
    let mut eng = match engine_result {
        Ok(e) => Some(e),
        Err(e) => {
            let mut slot = shared.setup_error.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert(e);
            None
        }
    };
    shared.barrier.wait(); // B0: every engine set up (or failed)
    if shared
        .setup_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .is_some()
    {
        return out;
    }
    shared.barrier.wait(); // B0b: every rank of an MPI job set up too
    let worker = Worker::new(plan);
    let (rec, fatal) = match eng.as_mut() {
        Some(AnyEngine::Uring(e)) => {
            out.registered = Some(e.registered());
            drive(e.as_mut(), worker, shared, me)
        }
        Some(AnyEngine::Sync(e)) => drive(e, worker, shared, me),
        Some(AnyEngine::Null(e)) => drive(e, worker, shared, me),
        None => unreachable!("setup errors return above"),
    };
    out.rec = rec;
    out.fatal = fatal;
    out
}

/// Runs workload `w` (validated, and as its engine runs it: [`Workload::run_by`]) on
/// `targets`, each with its own workers, watched as `control` says.
pub fn execute(targets: &[Target], w: &Workload, control: Control) -> crate::Result<Measurement> {
    execute_laid(targets, Layout::Separate, w, control)
}

/// [`execute_laid`] with every write sealed for `record` and acknowledged in it (`--verify`).
pub fn execute_verified(
    targets: &[Target],
    layout: Layout,
    w: &Workload,
    control: Control,
    record: &crate::verify::Record,
) -> crate::Result<Measurement> {
    execute_inner(targets, layout, w, control, Some(record.clone()))
}

/// [`execute`] with the workload laid over the targets as `layout` says.
pub fn execute_laid(
    targets: &[Target],
    layout: Layout,
    w: &Workload,
    control: Control,
) -> crate::Result<Measurement> {
    execute_inner(targets, layout, w, control, None)
}

fn execute_inner(
    targets: &[Target],
    layout: Layout,
    w: &Workload,
    control: Control,
    record: Option<crate::verify::Record>,
) -> crate::Result<Measurement> {
    let engine = w.setup.engine;
    let threads = w.threads as usize;
    // Worker groups: each target alone, or all of them as one stripe set.
    let (groups, stripe): (Vec<&[Target]>, Option<u64>) = match layout {
        Layout::Separate => (targets.chunks(1).collect(), None),
        Layout::Stripe(chunk) => (vec![targets], Some(chunk)),
    };
    let n = groups.len() * threads;
    let shared = Shared {
        barrier: Barrier::new(n + 1),
        setup_error: Mutex::new(None),
        budget: split_budget(w.io_budget(), control.budget_per_worker.then_some(n)),
        warmup_in_budget: control.warmup_in_budget,
        progress: (0..n).map(|_| Progress::default()).collect(),
        stop: AtomicBool::new(false),
        warm_stop: AtomicBool::new(false),
        series: Arc::new(SeriesSink::new(n)),
        // A steady point warms up until its transient is over, at most for its --time.
        warmup_ns: match (control.steady, w.setup.time) {
            (Some(_), Some(t)) => t.0.as_nanos() as u64,
            _ => w.setup.warmup.0.as_nanos() as u64,
        },
        time_ns: w.setup.time.map_or(0, |t| t.0.as_nanos() as u64),
        done: Mutex::new(0),
        done_signal: Condvar::new(),
        workers: n,
        record,
    };
    // The disks under the targets and every device beneath them (a loop device's backing
    // disk, a dm device's members), so shared components show their own counters.
    let mut device_names: Vec<String> = targets
        .iter()
        .filter_map(|t| t.device.as_ref())
        .flat_map(|d| {
            std::iter::once(d.name.clone()).chain(crate::oscounters::sysfs::stack(&d.name))
        })
        .collect();
    device_names.sort();
    device_names.dedup();
    let progress = control.progress && std::io::stderr().is_terminal();
    let mut sampler = DeviceSampler::new(device_names.clone());
    // A process whose affinity cannot be read runs unpinned.
    let mut allowed = crate::affinity::allowed_cpus().unwrap_or_default();
    // Ranks of an MPI job on one host spread over its CPUs in turn, not all from the first.
    if w.setup.affinity == crate::affinity::Affinity::Spread && !allowed.is_empty() {
        let shift = crate::cluster::local_rank() as usize * n % allowed.len();
        allowed.rotate_left(shift);
    }
    let placement = w.setup.affinity.plan(n, &allowed)?;

    let (outputs, before, after, t0, t1, watched, transient_s) = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(n);
        for (ti, &group) in groups.iter().enumerate() {
            for th in 0..w.threads {
                let index = ti * threads + th as usize;
                let id = WorkerId {
                    target: ti,
                    thread: th,
                    index,
                    cpu: placement[index],
                };
                let shared = &shared;
                handles.push(s.spawn(move || worker_thread(group, stripe, id, w, engine, shared)));
            }
        }
        shared.barrier.wait(); // B0
        let failed = shared
            .setup_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        if !failed {
            // Every rank of an MPI job has its engines set up before any warms up.
            crate::cluster::phase_barrier();
            shared.barrier.wait(); // B0b
        }
        let mut before = None;
        let mut after = None;
        let mut t0 = Instant::now();
        let mut t1 = t0;
        let mut watched = watch::Watched::default();
        let mut transient_s = None;
        if !failed {
            if control.steady.is_some() && shared.warmup_ns > 0 {
                let w0 = Instant::now();
                let until = w0 + std::time::Duration::from_nanos(shared.warmup_ns);
                transient_s = Some(watch::watch_warmup(&shared, w0, until));
            }
            shared.barrier.wait(); // B1
            // Every rank starts measuring at once; the counters are read after the wait, so
            // the disks' and CPU's window is the measured one.
            crate::cluster::phase_barrier();
            before = Some((device_snapshot(&device_names), CpuSnapshot::now()));
            // The measured phase's counts start from zero (no worker runs until B2).
            for p in &shared.progress {
                p.reset();
            }
            t0 = Instant::now();
            sampler.start(t0);
            shared.barrier.wait(); // B2
            watched = watch::watch(&shared, t0, w, control.steady, progress, &mut sampler);
        }
        let outputs: Vec<WorkerOutput> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        if !failed {
            sampler.finish();
            t1 = Instant::now();
            after = Some((device_snapshot(&device_names), CpuSnapshot::now()));
            // Every rank has drained before any gathers.
            crate::cluster::phase_barrier();
            if progress {
                eprint!("\r\x1b[K");
            }
        }
        (outputs, before, after, t0, t1, watched, transient_s)
    });
    if let Some(msg) = shared
        .setup_error
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
    {
        return Err(crate::Error::io(
            msg,
            std::io::Error::other("engine setup failed"),
        ));
    }
    let (Some(before), Some(after)) = (before, after) else {
        return Err(crate::Error::Interrupted);
    };

    let mut per_target = vec![TargetMeasurement::default(); groups.len()];
    let mut total = TargetMeasurement::default();
    let mut fatal = None;
    let mut registered = None;
    let origin = outputs.iter().map(|o| o.rec.origin_ns).min().unwrap_or(0);
    let last = outputs
        .iter()
        .map(|o| o.rec.last_ns)
        .max()
        .unwrap_or(origin);
    for o in &outputs {
        for m in [&mut per_target[o.target], &mut total] {
            m.read.merge(&o.rec.read);
            m.write.merge(&o.rec.write);
            m.errors.merge(&o.rec.errors);
            m.syncs.merge(&o.rec.syncs);
            m.depth.merge(&o.rec.depth);
        }
        fatal = fatal.or_else(|| o.fatal.clone());
        registered = registered.or(o.registered);
    }
    let window = t1 - t0;
    let ios = total.read.ios + total.write.ios;
    let seconds = if ios > 0 {
        let ended_early = shared.stop.load(std::sync::atomic::Ordering::Relaxed);
        measured_seconds(
            shared.time_ns,
            &shared.budget,
            ended_early,
            (last - origin) as f64 / 1e9,
        )
    } else {
        window.as_secs_f64()
    };
    let bytes = total.read.bytes + total.write.bytes;
    let devices = after
        .0
        .iter()
        .filter_map(|a| {
            let b = before.0.iter().find(|b| b.name == a.name)?;
            Some(DeviceDelta::between(b, a, window))
        })
        .collect();
    Ok(Measurement {
        engine,
        registered,
        worker_cpus: placement.iter().flatten().copied().collect(),
        seconds,
        series: shared.series.finish(seconds),
        cpu: CpuSummary::between(&before.1, &after.1, window.as_secs_f64(), ios, bytes),
        devices,
        device_series: sampler.series(seconds),
        targets: per_target,
        total,
        interrupted: signal::interrupted(),
        steady: control.steady.map(|_| SteadyOutcome {
            reached: watched.reached.is_some(),
            transient_s: transient_s.unwrap_or(0.0),
            ci95_pct: watched.reached,
        }),
        marks: watched.marks,
        fatal,
        layout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn loads(v: &[AtomicU64]) -> Vec<u64> {
        v.iter().map(|b| b.load(Ordering::Relaxed)).collect()
    }

    #[test]
    fn a_budget_is_shared_or_split_into_whole_ios() {
        assert!(split_budget(None, Some(4)).is_empty());
        assert_eq!(loads(&split_budget(Some(10), None)), [10]);
        assert_eq!(loads(&split_budget(Some(10), Some(1))), [10]);
        // Each of 4 clones does its own share; the shares add up to the whole.
        assert_eq!(loads(&split_budget(Some(10), Some(4))), [3, 3, 2, 2]);
        assert_eq!(loads(&split_budget(Some(768), Some(2))), [384, 384]);
    }
}
