//! Runs one workload over opened targets: spawns a worker thread per target and thread, takes
//! them through warm-up and the measured phase in lock-step (barriers), samples the OS
//! counters and CPU at the edges of the measured window, and merges what the workers recorded.

use crate::analysis::steady::SteadyRule;
use crate::clock::now_ns;
use crate::engine::{BufferArena, Engine, NullEngine, SyncEngine, UringEngine};
use crate::offsets::{OffsetGen, Region};
use crate::oscounters::diskstats::{self, DeviceDelta};
use crate::rng::Rng;
use crate::signal;
use crate::spec::{EngineKind, Workload};
use crate::stats::Recorder;
use crate::stats::cpu::{CpuSnapshot, CpuSummary};
use crate::stats::recorder::{DirStats, ErrorStats};
use crate::stats::summary::{DeviceSecond, TimePoint, merge_series};
use crate::target::Target;
use crate::worker::{Limit, Progress, Worker, WorkerPlan};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

/// Raw results of one target: merged over its threads.
#[derive(Clone, Debug, Default)]
pub struct TargetMeasurement {
    /// Reads.
    pub read: DirStats,
    /// Writes.
    pub write: DirStats,
    /// Failures.
    pub errors: ErrorStats,
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
    /// With a steady-state rule: whether the run ended because it held (else at `--time`).
    pub steady: Option<bool>,
    /// A failure that stopped a worker (submission error), if any.
    pub fatal: Option<String>,
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
    budget: Option<AtomicU64>,
    progress: Vec<Progress>,
    stop: AtomicBool,
    warmup_ns: u64,
    time_ns: u64,
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
        if let Err(e) = worker.phase(eng, Limit::Until(until), None, progress, &shared.stop) {
            fatal = Some(format!("warm-up: {e}"));
        }
    }
    shared.barrier.wait(); // B1: warm-up drained everywhere
    shared.barrier.wait(); // B2: counters sampled, go
    let origin = now_ns();
    let mut rec = Recorder::new(origin);
    if fatal.is_none() {
        let limit = match &shared.budget {
            Some(b) => Limit::Budget(b),
            None => Limit::Until(origin + shared.time_ns),
        };
        if let Err(e) = worker.phase(eng, limit, Some(&mut rec), progress, &shared.stop) {
            fatal = Some(format!("submitting I/O: {e}"));
        }
    }
    rec.finish();
    (rec, fatal)
}

enum AnyEngine {
    Uring(Box<UringEngine>),
    Sync(SyncEngine),
    Null(NullEngine),
}

fn setup_engine(
    t: &Target,
    kind: EngineKind,
    w: &Workload,
    qd: u32,
    seed: u64,
) -> std::io::Result<AnyEngine> {
    let bs = w.bs.0 as u32;
    let mut arena = BufferArena::new(qd as usize, bs as usize, t.mem_align as usize)?;
    // Incompressible write data, different per worker.
    Rng::new(seed, 0xb0f).fill(arena.all_mut());
    Ok(match kind {
        EngineKind::Uring => AnyEngine::Uring(Box::new(UringEngine::new(
            t.fd(),
            arena,
            bs,
            w.setup.spin.0,
        )?)),
        EngineKind::Sync => AnyEngine::Sync(SyncEngine::new(t.fd(), arena, bs)),
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

fn worker_thread(
    t: &Target,
    id: WorkerId,
    w: &Workload,
    engine: EngineKind,
    shared: &Shared,
) -> WorkerOutput {
    let WorkerId {
        target: ti,
        thread: th,
        index: me,
        cpu,
    } = id;
    let bs = w.bs.0 as u32;
    let qd = if engine == EngineKind::Sync { 1 } else { w.qd };
    let stream = ((ti as u64) << 32) | th as u64;
    // A workload may address less than the opened region (profile's cache-hit cells).
    let size = w.setup.size.map_or(t.size, |s| s.0.min(t.size));
    let region = Region::new(t.offset, size, w.bs.0);
    let plan = WorkerPlan {
        offsets: if w.rw.is_random() {
            OffsetGen::random(region)
        } else {
            OffsetGen::sequential(region, th, w.threads)
        },
        rng: Rng::new(w.setup.seed, stream),
        read_pct: w.read_pct.unwrap_or(w.rw.default_read_pct()),
        qd,
        bs,
    };
    let pinned = match cpu {
        Some(c) => crate::affinity::pin_current_thread(c)
            .map_err(|e| format!("pinning worker {me} to CPU {c} (--affinity): {e}")),
        None => Ok(()),
    };
    let engine_result = pinned.and_then(|()| {
        setup_engine(t, engine, w, qd, w.setup.seed ^ stream).map_err(|e| {
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

fn device_snapshot(names: &[String]) -> Vec<diskstats::DiskStat> {
    diskstats::read()
        .into_iter()
        .filter(|d| names.contains(&d.name))
        .collect()
}

/// Samples /proc/diskstats for the disks under the targets once a second of the measured
/// phase, for the per-second %util and queue size beside the I/O series.
struct DeviceSampler {
    names: Vec<String>,
    /// When to sample next (None: no disks, or not started).
    next: Option<Instant>,
    last: Option<(Instant, Vec<diskstats::DiskStat>)>,
    second: u32,
    /// Each sample with the instant its second began.
    out: Vec<(Instant, DeviceSecond)>,
}

impl DeviceSampler {
    fn new(names: Vec<String>) -> Self {
        DeviceSampler {
            names,
            next: None,
            last: None,
            second: 0,
            out: Vec::new(),
        }
    }

    /// Takes the first sample at `at` (the start of the measured phase), when there are disks.
    fn start(&mut self, at: Instant) {
        if !self.names.is_empty() {
            self.next = Some(at);
        }
    }

    /// Samples the last part-second once the workers are done, when it is long enough
    /// (≥ 200 ms) to say something; [`DeviceSampler::series`] drops it if it was idle tail.
    fn finish(&mut self) {
        if self
            .last
            .as_ref()
            .is_some_and(|(then, _)| then.elapsed() >= Duration::from_millis(200))
        {
            self.sample();
        }
        self.next = None;
    }

    /// The seconds that began at least 200 ms before the end of the measured window
    /// (`t0` + `seconds`): a second that began later would show the workers' teardown.
    fn series(self, t0: Instant, seconds: f64) -> Vec<DeviceSecond> {
        let end = seconds - 0.2;
        self.out
            .into_iter()
            .filter(|(began, _)| (*began - t0).as_secs_f64() < end)
            .map(|(_, d)| d)
            .collect()
    }

    fn sample(&mut self) {
        let now = Instant::now();
        let snap = device_snapshot(&self.names);
        if let Some((then, before)) = &self.last {
            for a in &snap {
                if let Some(b) = before.iter().find(|b| b.name == a.name) {
                    let d = DeviceDelta::between(b, a, now - *then);
                    self.out.push((
                        *then,
                        DeviceSecond {
                            t_s: self.second,
                            device: d.name,
                            util_pct: d.util_pct,
                            aqu_sz: d.aqu_sz,
                        },
                    ));
                }
            }
            self.second += 1;
        }
        self.last = Some((now, snap));
        self.next = self.next.map(|n| n + Duration::from_secs(1));
    }
}

/// Measured I/Os and bytes completed so far, all workers together.
fn completed(shared: &Shared) -> (u64, u64) {
    shared.progress.iter().fold((0, 0), |(i, b), p| {
        (
            i + p.ios.load(Ordering::Relaxed),
            b + p.bytes.load(Ordering::Relaxed),
        )
    })
}

fn show_progress(shared: &Shared, started: Instant, w: &Workload, last: &mut (u64, u64, Instant)) {
    let (ios, bytes) = completed(shared);
    let dt = last.2.elapsed().as_secs_f64().max(1e-3);
    let iops = (ios - last.0) as f64 / dt;
    let mbs = (bytes - last.1) as f64 / dt / 1e6;
    *last = (ios, bytes, Instant::now());
    let of = match (w.setup.time, w.io_budget()) {
        (Some(t), _) => format!("{:.1}s / {}", started.elapsed().as_secs_f64(), t),
        (None, Some(b)) => format!("{} / {} I/Os", ios, b),
        _ => String::new(),
    };
    eprint!("\r\x1b[K  {of}   {iops:>10.0} IOPS   {mbs:>9.1} MB/s");
    let _ = std::io::stderr().flush();
}

/// How the runner watches a run while it goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Control {
    /// Show live figures on stderr when it is a terminal.
    pub progress: bool,
    /// End the measured phase once this rule holds (else it runs its full time).
    pub steady: Option<SteadyRule>,
}

impl Control {
    /// Progress as asked, no steady-state rule: what `run` and `quick` use.
    pub fn progress(progress: bool) -> Self {
        Control {
            progress,
            steady: None,
        }
    }
}

/// Watches the measured phase until every worker is done: redraws the progress line every
/// 250 ms, and with a steady-state rule, closes a window every `rule.window` and raises
/// `shared.stop` once the rule holds. Returns whether it did.
fn watch(
    shared: &Shared,
    handles: &[std::thread::ScopedJoinHandle<'_, WorkerOutput>],
    t0: Instant,
    w: &Workload,
    steady: Option<SteadyRule>,
    progress: bool,
    sampler: &mut DeviceSampler,
) -> bool {
    let tick = Duration::from_millis(250);
    let mut last = (0, 0, Instant::now());
    let mut next_tick = progress.then_some(t0 + tick);
    let mut windows: Vec<u64> = Vec::new();
    let mut window_start_bytes = 0;
    let mut next_window = steady.map(|r| t0 + r.window);
    let mut reached = false;
    while let Some(wake) = [next_tick, next_window, sampler.next]
        .into_iter()
        .flatten()
        .min()
    {
        if handles.iter().all(|h| h.is_finished()) {
            break;
        }
        std::thread::sleep(wake.saturating_duration_since(Instant::now()).min(tick));
        let now = Instant::now();
        if let Some(nt) = next_tick.filter(|&nt| now >= nt) {
            show_progress(shared, t0, w, &mut last);
            next_tick = Some(nt + tick);
        }
        if sampler.next.is_some_and(|ns| now >= ns) {
            sampler.sample();
        }
        if let (Some(nw), Some(rule)) = (next_window, steady) {
            if now >= nw {
                let bytes = completed(shared).1;
                windows.push(bytes - window_start_bytes);
                window_start_bytes = bytes;
                next_window = Some(nw + rule.window);
                if rule.holds(&windows) {
                    shared.stop.store(true, Ordering::Relaxed);
                    reached = true;
                    next_window = None;
                }
            }
        }
    }
    reached
}

/// Runs workload `w` (validated) with `engine` on `targets`, watched as `control` says.
pub fn execute(
    targets: &[Target],
    w: &Workload,
    engine: EngineKind,
    control: Control,
) -> crate::Result<Measurement> {
    let threads = w.threads as usize;
    let n = targets.len() * threads;
    let shared = Shared {
        barrier: Barrier::new(n + 1),
        setup_error: Mutex::new(None),
        budget: w.io_budget().map(AtomicU64::new),
        progress: (0..n).map(|_| Progress::default()).collect(),
        stop: AtomicBool::new(false),
        warmup_ns: w.setup.warmup.0.as_nanos() as u64,
        time_ns: w.setup.time.map_or(0, |t| t.0.as_nanos() as u64),
    };
    let mut device_names: Vec<String> = targets
        .iter()
        .filter_map(|t| t.device.as_ref().map(|d| d.name.clone()))
        .collect();
    device_names.sort();
    device_names.dedup();
    let progress = control.progress && std::io::stderr().is_terminal();
    let mut sampler = DeviceSampler::new(device_names.clone());
    // A process whose affinity cannot be read runs unpinned.
    let allowed = crate::affinity::allowed_cpus().unwrap_or_default();
    let placement = w.setup.affinity.plan(n, &allowed)?;

    let (outputs, before, after, t0, t1, reached) = std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(n);
        for (ti, t) in targets.iter().enumerate() {
            for th in 0..w.threads {
                let index = ti * threads + th as usize;
                let id = WorkerId {
                    target: ti,
                    thread: th,
                    index,
                    cpu: placement[index],
                };
                let shared = &shared;
                handles.push(s.spawn(move || worker_thread(t, id, w, engine, shared)));
            }
        }
        shared.barrier.wait(); // B0
        let failed = shared
            .setup_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some();
        let mut before = None;
        let mut after = None;
        let mut t0 = Instant::now();
        let mut t1 = t0;
        let mut reached = false;
        if !failed {
            shared.barrier.wait(); // B1
            before = Some((device_snapshot(&device_names), CpuSnapshot::now()));
            t0 = Instant::now();
            sampler.start(t0);
            shared.barrier.wait(); // B2
            reached = watch(
                &shared,
                &handles,
                t0,
                w,
                control.steady,
                progress,
                &mut sampler,
            );
        }
        let outputs: Vec<WorkerOutput> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        if !failed {
            sampler.finish();
            t1 = Instant::now();
            after = Some((device_snapshot(&device_names), CpuSnapshot::now()));
            if progress {
                eprint!("\r\x1b[K");
            }
        }
        (outputs, before, after, t0, t1, reached)
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

    let mut per_target = vec![TargetMeasurement::default(); targets.len()];
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
        }
        fatal = fatal.or_else(|| o.fatal.clone());
        registered = registered.or(o.registered);
    }
    let window = t1 - t0;
    let ios = total.read.ios + total.write.ios;
    // The window of the figures: first measured submission to last measured completion.
    let seconds = if ios > 0 {
        (last - origin) as f64 / 1e9
    } else {
        window.as_secs_f64()
    };
    let series: Vec<&[crate::stats::recorder::SecondSample]> =
        outputs.iter().map(|o| o.rec.series.as_slice()).collect();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
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
        series: merge_series(&series, seconds),
        cpu: CpuSummary::between(&before.1, &after.1, window.as_secs_f64(), ios, bytes, cpus),
        devices,
        device_series: sampler.series(t0, seconds),
        targets: per_target,
        total,
        interrupted: signal::interrupted(),
        steady: control.steady.map(|_| reached),
        fatal,
    })
}
