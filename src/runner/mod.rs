//! Runs one workload over opened targets: spawns a worker thread per target and thread, takes
//! them through warm-up and the measured phase in lock-step (barriers), samples the OS
//! counters and CPU at the edges of the measured window, and merges what the workers recorded.
//! Orchestration only: the device sampler, the progress line, the watch loop and the results
//! object each have their own file.

mod progress;
pub mod results;
mod sampler;
mod thread;
mod watch;

pub use results::results;
pub use watch::Control;

use crate::analysis::steady::SteadyOutcome;
use crate::oscounters::diskstats::DeviceDelta;
use crate::plan::{EngineKind, RunPlan};
use crate::signal;
use crate::stats::cpu::{CpuSnapshot, CpuSummary};
use crate::stats::host::HostProbe;
use crate::stats::recorder::{DirStats, ErrorStats};
use crate::stats::series::TimePoint;
use crate::stats::summary::DeviceSecond;
use crate::storage::Target;
use sampler::{DeviceSampler, device_snapshot};
use std::io::IsTerminal;
use std::time::Instant;
use thread::{Shared, WorkerId, WorkerOutput, measured_seconds, worker_thread};

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
    /// An open loop's service times, lateness and requests in flight.
    pub open: Option<crate::stats::recorder::OpenStats>,
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
    pub fatal: Option<crate::model::cause::Fatal>,
    /// How the workload was laid over the targets (with a stripe, `targets` has one entry).
    pub layout: Layout,
    /// What the host probe saw over the measured window, with the workers' waits for a CPU.
    pub host: Option<HostMeasurement>,
    /// With [`Control::io_log`]: each worker's per-I/O record, in worker order (target by
    /// target, each target's threads in turn); else empty.
    pub io_log: Vec<crate::stats::iolog::IoLog>,
    /// With [`Control::periods_ns`]: each worker's counts at the period edges, in worker
    /// order; else empty.
    pub periods: Vec<crate::stats::periods::Periods>,
}

/// The host over the measured window: the probe's record, and how long the workers waited
/// for a CPU (summed; None where the kernel keeps no schedstat).
#[derive(Debug)]
pub struct HostMeasurement {
    /// The probe's record.
    pub sample: crate::stats::host::HostSample,
    /// The workers' summed `run_delay`, ns.
    pub waited_ns: Option<u64>,
    /// How many workers ran.
    pub workers: u32,
}

/// A point this rank of an MPI job sits out (`scale --ranks`) while the others run it: the
/// phase barriers a run passes when its engines set up ([`Run::warm_up_and_start`]'s two:
/// set up, start) and when its workers have drained, so the ranks that run meet it at each;
/// it sleeps while it waits, leaving the CPUs to them.
pub fn sit_out() {
    for _ in 0..3 {
        crate::cluster::idle_barrier();
    }
}

/// Runs plan `w` (made for its engine by [`crate::plan::Workload::plan`]) laid over
/// `targets` as `layout` says, watched as `control` says; with `record` (`--verify`) every
/// write is sealed for it and acknowledged in it. The runner's one entry point, reached
/// only through the measuring session (`measure::Session`).
pub fn execute(
    targets: &[Target],
    layout: Layout,
    w: &RunPlan,
    control: Control,
    record: Option<&crate::verify::Record>,
) -> crate::Result<Measurement> {
    // Worker groups: each target alone, or all of them as one stripe set.
    let (groups, stripe): (Vec<&[Target]>, Option<u64>) = match layout {
        Layout::Separate => (targets.chunks(1).collect(), None),
        Layout::Stripe(chunk) => (vec![targets], Some(chunk)),
    };
    let n = groups.len() * w.threads() as usize;
    let shared = Shared::new(w, &control, n, record.cloned());
    let names = device_names(targets);
    // Where the CPU quota's counters are is found here, not at the window's first edge.
    let _ = crate::oscounters::cgroup::cpu_stat();
    let mut sampler = DeviceSampler::new(names.clone());
    let placement = placement(w, n)?;
    let run = Run {
        groups: &groups,
        stripe,
        w,
        shared: &shared,
        placement: &placement,
        control: &control,
        device_names: &names,
    };
    let mut phases = run.threads(&mut sampler);
    setup_result(&shared)?;
    let Some(counters) = phases.counters.take() else {
        return Err(crate::Error::Interrupted);
    };
    Ok(run.measurement(phases, counters, sampler, layout))
}

/// The error of an engine whose setup failed, if one did.
fn setup_result(shared: &Shared) -> crate::Result<()> {
    if let Some(msg) = shared
        .setup_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        return Err(crate::Error::io(
            msg,
            std::io::Error::other("engine setup failed"),
        ));
    }
    Ok(())
}

/// Each disk's counters over the measured `window`, from `before` and `after` it (a disk
/// missing from `before` is left out).
fn device_deltas(
    before: &Counters,
    after: &Counters,
    window: std::time::Duration,
) -> Vec<DeviceDelta> {
    after
        .0
        .iter()
        .filter_map(|a| {
            let b = before.0.iter().find(|b| b.name == a.name)?;
            Some(DeviceDelta::between(b, a, window))
        })
        .collect()
}

/// The workers' per-I/O records, taken out of their outputs in worker order.
fn take_logs(outputs: &mut [WorkerOutput]) -> Vec<crate::stats::iolog::IoLog> {
    outputs
        .iter_mut()
        .filter_map(|o| o.rec.log.take().map(|l| *l))
        .collect()
}

/// The workers' counts at the period edges, taken out of their outputs in worker order.
fn take_periods(outputs: &mut [WorkerOutput]) -> Vec<crate::stats::periods::Periods> {
    outputs
        .iter_mut()
        .filter_map(|o| o.rec.periods.take().map(|p| *p))
        .collect()
}

/// The probe's seconds into the run's series, second by second.
fn host_series(series: &mut [TimePoint], sample: &crate::stats::host::HostSample) {
    for p in series {
        if let Some(h) = sample.per_second.iter().find(|h| h.t_s == p.t_s) {
            p.host_stalled_ms = Some(h.stalled_ns as f64 / 1e6);
            p.steal_pct = h.steal_pct;
        }
    }
}

/// The disks under the targets and every device beneath them (a loop device's backing disk, a
/// dm device's members), so shared components show their own counters; each once.
fn device_names(targets: &[Target]) -> Vec<String> {
    let mut names: Vec<String> = targets
        .iter()
        .filter_map(|t| t.device.as_ref())
        .flat_map(|d| {
            std::iter::once(d.name.clone()).chain(crate::oscounters::sysfs::stack(&d.name))
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The CPU each of `n` workers is pinned to, as `--affinity` says.
fn placement(w: &RunPlan, n: usize) -> crate::Result<Vec<Option<usize>>> {
    // A process whose affinity cannot be read runs unpinned.
    let mut allowed = crate::affinity::allowed_cpus().unwrap_or_default();
    // Ranks of an MPI job on one host spread over its CPUs in turn, not all from the first.
    if w.setup().affinity == crate::affinity::Affinity::Spread && !allowed.is_empty() {
        let shift = crate::cluster::local_rank() as usize * n % allowed.len();
        allowed.rotate_left(shift);
    }
    w.setup().affinity.plan(n, &allowed)
}

/// The OS disk counters and the CPU's at one edge of the measured window.
type Counters = (Vec<crate::oscounters::diskstats::DiskStat>, CpuSnapshot);

/// What the run's threads left: their outputs, the counters at both edges of the measured
/// window (none when setup failed or Ctrl-C came first), the window's instants, what the
/// watcher saw, and an adaptive warm-up's length.
struct Phases {
    outputs: Vec<WorkerOutput>,
    counters: Option<(Counters, Counters)>,
    t0: Instant,
    t1: Instant,
    watched: watch::Watched,
    transient_s: Option<f64>,
    /// The host probe's record over the measured window.
    host: Option<crate::stats::host::HostSample>,
}

/// One run's threads: what they run on and how.
struct Run<'a> {
    groups: &'a [&'a [Target]],
    stripe: Option<u64>,
    w: &'a RunPlan,
    shared: &'a Shared,
    placement: &'a [Option<usize>],
    control: &'a Control,
    device_names: &'a [String],
}

impl Run<'_> {
    /// The measurement of what the threads left (`phases`) and the counters at the measured
    /// window's edges, the disks second by second from `sampler`, laid out as `layout`.
    fn measurement(
        &self,
        mut phases: Phases,
        (before, after): (Counters, Counters),
        sampler: DeviceSampler,
        layout: Layout,
    ) -> Measurement {
        let (shared, w) = (self.shared, self.w);
        let n = self.groups.len() * w.threads() as usize;
        let merged = merge(&phases.outputs, self.groups.len());
        let io_log = take_logs(&mut phases.outputs);
        let periods = take_periods(&mut phases.outputs);
        let window = phases.t1 - phases.t0;
        let ios = merged.total.read.ios + merged.total.write.ios;
        let seconds = if ios > 0 {
            let ended_early = shared.stop.load(std::sync::atomic::Ordering::Relaxed);
            measured_seconds(shared.time_ns, &shared.budget, ended_early, merged.busy_s)
        } else {
            window.as_secs_f64()
        };
        let bytes = merged.total.read.bytes + merged.total.write.bytes;
        let host = phases.host.map(|sample| HostMeasurement {
            sample,
            waited_ns: merged.waited_ns,
            workers: n as u32,
        });
        let mut series = shared.series.finish(seconds);
        if let Some(h) = &host {
            host_series(&mut series, &h.sample);
        }
        let devices = device_deltas(&before, &after, window);
        Measurement {
            engine: w.setup().engine,
            registered: merged.registered,
            worker_cpus: self.placement.iter().flatten().copied().collect(),
            seconds,
            series,
            cpu: CpuSummary::between(&before.1, &after.1, window.as_secs_f64(), ios, bytes),
            devices,
            device_series: sampler.series(seconds),
            targets: merged.per_target,
            total: merged.total,
            interrupted: signal::interrupted(),
            steady: self.control.steady.as_ref().map(|_| SteadyOutcome {
                reached: phases.watched.reached,
                transient_s: phases.transient_s.unwrap_or(0.0),
                look: phases.watched.look,
            }),
            marks: phases.watched.marks,
            fatal: merged.fatal,
            layout,
            host,
            io_log,
            periods,
        }
    }

    /// Spawns the workers and takes them through setup, warm-up and the measured phase in
    /// lock-step (barriers B0, B0b, B1, B2), sampling the counters at the window's edges.
    fn threads(&self, sampler: &mut DeviceSampler) -> Phases {
        let (shared, w) = (self.shared, self.w);
        std::thread::scope(|s| {
            let mut handles = Vec::with_capacity(self.placement.len());
            for (ti, &group) in self.groups.iter().enumerate() {
                for th in 0..w.threads() {
                    let index = ti * w.threads() as usize + th as usize;
                    let id = WorkerId {
                        target: ti,
                        thread: th,
                        index,
                        cpu: self.placement[index],
                    };
                    let stripe = self.stripe;
                    handles.push(s.spawn(move || worker_thread(group, stripe, id, w, shared)));
                }
            }
            shared.barrier.wait(); // B0
            let failed = shared.setup_failed();
            let mut phases = Phases {
                outputs: Vec::new(),
                counters: None,
                t0: Instant::now(),
                t1: Instant::now(),
                watched: watch::Watched::default(),
                transient_s: None,
                host: None,
            };
            let started = (!failed).then(|| self.warm_up_and_start(sampler, &mut phases));
            phases.outputs = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            if let Some((before, probe)) = started {
                sampler.finish();
                phases.t1 = Instant::now();
                phases.host = probe.stop();
                let after = (device_snapshot(self.device_names), CpuSnapshot::now());
                phases.counters = Some((before, after));
                // Every rank has drained before any gathers.
                crate::cluster::phase_barrier();
                if self.progress() {
                    eprint!("\r\x1b[K");
                }
            }
            phases
        })
    }

    /// Whether the progress line is drawn.
    fn progress(&self) -> bool {
        self.control.progress && std::io::stderr().is_terminal()
    }

    /// With every engine set up: the warm-up (watched for its transient when steady), then the
    /// counters at the start of the measured window, which it starts and watches to its end.
    /// Returns the counters at its start, and the host probe started with it.
    fn warm_up_and_start(
        &self,
        sampler: &mut DeviceSampler,
        phases: &mut Phases,
    ) -> (Counters, HostProbe) {
        let shared = self.shared;
        // Every rank of an MPI job has its engines set up before any warms up.
        crate::cluster::phase_barrier();
        shared.barrier.wait(); // B0b
        if self.control.steady.is_some_and(|r| r.adaptive_warmup()) && shared.warmup_ns > 0 {
            let w0 = Instant::now();
            let until = w0 + std::time::Duration::from_nanos(shared.warmup_ns);
            phases.transient_s = Some(watch::watch_warmup(shared, w0, until));
        }
        shared.barrier.wait(); // B1
        // Every rank starts measuring at once; the counters are read after the wait, so the
        // disks' and CPU's window is the measured one.
        crate::cluster::phase_barrier();
        let before = (device_snapshot(self.device_names), CpuSnapshot::now());
        // The measured phase's counts start from zero (no worker runs until B2).
        for p in &shared.progress {
            p.reset();
        }
        // The workers' window starts first, the watcher's after it: a phase the watcher stops
        // after a time has lasted at least that time for the workers too.
        let origin = crate::clock::now_ns();
        let probe = HostProbe::start(origin, self.placement.iter().flatten().next().copied());
        phases.t0 = Instant::now();
        shared
            .origin_ns
            .store(origin, std::sync::atomic::Ordering::Release);
        sampler.start(phases.t0);
        if self.control.live {
            crate::stats::series::publish(shared.series.clone());
        }
        shared.barrier.wait(); // B2
        let progress = self.progress();
        phases.watched = watch::watch(
            shared,
            phases.t0,
            self.w,
            self.control.steady,
            progress,
            sampler,
        );
        (before, probe)
    }
}

/// The workers' records merged per target and in all, with the first failure, io_uring's
/// registration and the span from the first submission to the last completion.
struct Merged {
    per_target: Vec<TargetMeasurement>,
    total: TargetMeasurement,
    fatal: Option<crate::model::cause::Fatal>,
    registered: Option<(bool, bool)>,
    busy_s: f64,
    /// The workers' summed waits for a CPU, ns.
    waited_ns: Option<u64>,
}

/// Merges the workers' outputs over `targets` targets.
fn merge(outputs: &[WorkerOutput], targets: usize) -> Merged {
    let mut m = Merged {
        per_target: vec![TargetMeasurement::default(); targets],
        total: TargetMeasurement::default(),
        fatal: None,
        registered: None,
        busy_s: 0.0,
        waited_ns: None,
    };
    let origin = outputs.iter().map(|o| o.rec.origin_ns).min().unwrap_or(0);
    let last = outputs
        .iter()
        .map(|o| o.rec.last_ns)
        .max()
        .unwrap_or(origin);
    for o in outputs {
        for t in [&mut m.per_target[o.target], &mut m.total] {
            t.read.merge(&o.rec.read);
            t.write.merge(&o.rec.write);
            t.errors.merge(&o.rec.errors);
            t.syncs.merge(&o.rec.syncs);
            t.depth.merge(&o.rec.depth);
            if let Some(open) = &o.rec.open {
                t.open.get_or_insert_with(Default::default).merge(open);
            }
        }
        m.fatal = m.fatal.take().or_else(|| o.fatal.clone());
        if let Some(w) = o.rec.waited_ns {
            m.waited_ns = Some(m.waited_ns.unwrap_or(0) + w);
        }
        m.registered = m.registered.or(o.registered);
    }
    m.busy_s = (last - origin) as f64 / 1e9;
    m
}
