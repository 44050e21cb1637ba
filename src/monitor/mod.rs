//! `halfpower monitor`: samples the OS counters every interval and turns each pair of
//! snapshots into per-device records (iostat's figures plus service time, queue time and
//! flags) and one system record (`analysis::monitor`).
//!
//! Which service time a device gets depends on how it serves requests, which
//! `analysis::device` decides from sysfs once per device. A device that serves one at a time
//! (a disk arm) obeys the Utilization Law, S = U / X. A device that serves many at once does
//! not: its %util is only "at least one request in flight", so U / X is busy time per I/O, not
//! a service time. For those the monitor measures device time with the block tracer
//! (`--trace`), estimates it from the in-flight count sampled through the interval by Little's
//! law, or gives none, and says which in `service_source`.

pub mod capture;
pub mod inflight;
pub mod metrics;
pub mod tracepoints;

use crate::analysis::device::{classify, serving};
use crate::analysis::monitor::{
    DeviceContext, DeviceInfo, TraceFigures, device_record, hard_paging, moved, system_record,
};
use crate::clock::rfc3339_ms;
use crate::model::monitor::{DeviceRecord, SystemRecord};
use crate::oscounters::snapshot::{Sample, Sources};
use crate::oscounters::sysfs;
use crate::signal;
use crate::stats::window::part_step_kept;
use inflight::InflightTally;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// In-flight samples taken per interval (at least one every 100 ms for long intervals).
const INFLIGHT_SAMPLES: u32 = 10;

/// What to watch.
#[derive(Clone, Debug)]
pub struct MonitorConfig {
    /// Kernel device names to report every interval; empty = every device that moved.
    pub devices: Vec<String>,
    /// With no `devices`, include partitions too.
    pub partitions: bool,
    /// Interval length.
    pub interval: Duration,
    /// Measure device and OS queue time per request from the block tracepoints.
    pub trace: bool,
}

/// One interval's records, and notes about devices that appeared or vanished.
#[derive(Clone, Debug, Default)]
pub struct Interval {
    /// One record per reported device.
    pub devices: Vec<DeviceRecord>,
    /// The system record.
    pub system: SystemRecord,
    /// Devices that appeared, vanished or were reset in this interval.
    pub notes: Vec<String>,
}

struct DeviceState {
    info: DeviceInfo,
}

/// The sampling loop's state between intervals.
pub struct Monitor {
    cfg: MonitorConfig,
    prev: Sample,
    prev_inflight: HashMap<String, u64>,
    tally: InflightTally,
    states: HashMap<String, DeviceState>,
    tracer: Option<tracepoints::Tracer>,
    cpus: u32,
    sources: Sources,
    partition: HashMap<String, bool>,
    active: HashSet<String>,
    /// The host probe of the current interval (docs/figures.md, "The host").
    probe: Option<crate::stats::host::HostProbe>,
}

impl Monitor {
    /// Takes the first snapshot (and starts the tracer with `cfg.trace`).
    pub fn start(cfg: MonitorConfig) -> crate::Result<Monitor> {
        let tracer = if cfg.trace {
            Some(tracepoints::Tracer::start()?)
        } else {
            None
        };
        let mut sources = Sources::default();
        let prev = Sample::take(&mut sources);
        let prev_inflight = prev
            .disks
            .iter()
            .map(|(n, d)| (n.clone(), d.in_flight))
            .collect();
        Ok(Monitor {
            cfg,
            prev,
            prev_inflight,
            tally: InflightTally::default(),
            states: HashMap::new(),
            tracer,
            cpus: crate::oscounters::host::online_cpus() as u32,
            sources,
            partition: HashMap::new(),
            active: Default::default(),
            probe: Some(crate::stats::host::HostProbe::start(
                crate::clock::now_ns(),
                None,
            )),
        })
    }

    /// The names among `names` this monitor reports, in order.
    fn watched(&mut self, names: Vec<String>) -> Vec<String> {
        let cache = &mut self.partition;
        names
            .into_iter()
            .filter(|n| {
                if self.cfg.devices.is_empty() {
                    self.cfg.partitions
                        || !*cache
                            .entry(n.clone())
                            .or_insert_with(|| sysfs::is_partition(n))
                } else {
                    self.cfg.devices.contains(n)
                }
            })
            .collect()
    }

    /// With `--trace`, each reported device's traced times since monitor started, by name.
    pub fn trace_histograms(&mut self) -> Vec<(String, tracepoints::TraceHistograms)> {
        let Some(mut all) = self.tracer.as_ref().map(|t| t.histograms()) else {
            return Vec::new();
        };
        let names = self.watched(self.prev.disks.keys().cloned().collect());
        let mut out: Vec<_> = (names.into_iter())
            .filter_map(|n| {
                let d = &self.prev.disks[&n];
                Some((n, all.remove(&(d.major, d.minor))?))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Waits one interval (sampling in-flight counts meanwhile) and returns its records. On
    /// Ctrl-C the interval ends early and is still returned (`interval_s` says how long it
    /// was); `None` when it was too short to mean anything.
    pub fn next_interval(&mut self) -> Option<Interval> {
        let start = self.prev.mono_ns;
        let samples = self.sample_in_flight(start);
        let now = Sample::take(&mut self.sources);
        let secs = now.mono_ns.saturating_sub(start) as f64 / 1e9;
        if !part_step_kept(secs, self.cfg.interval.as_secs_f64()) {
            return None;
        }
        let time = rfc3339_ms(now.unix_ms);
        let mut system = system_record(&self.prev, &now, &time, self.cpus);
        if let Some(h) = self.probe.take().and_then(|p| p.stop()) {
            system.host_stalled_ms = Some(h.stalled_ns as f64 / 1e6);
            system.probe_late_max_us = Some(h.late.max_ns() as f64 / 1e3);
        }
        self.probe = Some(crate::stats::host::HostProbe::start(now.mono_ns, None));
        let paging = hard_paging(&system);
        let traced = self.tracer.as_mut().map(|t| t.drain());
        let end = IntervalEnd {
            time,
            secs,
            samples,
            paging,
            traced,
        };
        let mut out = Interval {
            system,
            ..Default::default()
        };
        let mut active = HashSet::new();
        for name in self.watched(now.disks.keys().cloned().collect()) {
            self.device(&name, &now, &end, &mut out, &mut active);
        }
        for name in self.watched(self.prev.disks.keys().cloned().collect()) {
            if !now.disks.contains_key(&name) {
                out.notes.push(format!("{name} vanished"));
            }
        }
        self.prev_inflight = now
            .disks
            .iter()
            .map(|(n, d)| (n.clone(), d.in_flight))
            .collect();
        self.prev = now;
        self.active = active;
        Some(out)
    }

    /// Sleeps until the interval that began at `start` ends (or Ctrl-C), sampling the
    /// in-flight counts on the way. Returns the number of steps the interval was cut into.
    fn sample_in_flight(&mut self, start: u64) -> u32 {
        // In-flight counts are sampled between snapshots only for devices that were busy in
        // the last interval (or were named): an idle system costs one wake-up per interval.
        let names: Vec<String> = self
            .watched(self.prev.disks.keys().cloned().collect())
            .into_iter()
            .filter(|n| !self.cfg.devices.is_empty() || self.active.contains(n))
            .collect();
        self.tally.clear();
        let samples = if names.is_empty() {
            1
        } else {
            INFLIGHT_SAMPLES
        };
        let step = self.cfg.interval.as_nanos() as u64 / samples as u64;
        for k in 1..=samples {
            if !sleep_until(start + step * k as u64) {
                break;
            }
            if k < samples {
                self.tally.sample(names.iter());
            }
        }
        samples
    }

    /// Adds device `name`'s record over the interval ending at `now` to `out`, or a note
    /// saying why it has none; a device with a record goes into `active`.
    fn device(
        &mut self,
        name: &str,
        now: &Sample,
        end: &IntervalEnd,
        out: &mut Interval,
        active: &mut HashSet<String>,
    ) {
        let after = &now.disks[name];
        let Some(before) = self.prev.disks.get(name) else {
            out.notes
                .push(format!("{name} appeared; reported from the next interval"));
            return;
        };
        let explicit = !self.cfg.devices.is_empty();
        if !explicit && !moved(before, after) {
            return;
        }
        self.tally.add(name, after.in_flight);
        let state = self
            .states
            .entry(name.to_string())
            .or_insert_with(|| DeviceState {
                info: device_info(name),
            });
        let start_inflight = self.prev_inflight.get(name).copied().unwrap_or(0);
        let cx = DeviceContext {
            time: &end.time,
            secs: end.secs,
            info: &state.info,
            // Sampled through the interval only for devices active in the previous one;
            // the first busy interval has just the reading at its end, which is no mean.
            inflight_mean: self.tally.mean(name, u64::from(end.samples / 2).max(2)),
            inflight_end: after.in_flight,
            inflight_start: start_inflight,
            paging: end.paging,
            trace: end
                .traced
                .as_ref()
                .and_then(|t| t.get(&(after.major, after.minor)).copied()),
        };
        match device_record(before, after, &cx) {
            Some(r) => {
                active.insert(name.to_string());
                out.devices.push(r)
            }
            None => out.notes.push(format!(
                "{name} was reset (removed and created again); interval skipped"
            )),
        }
    }
}

/// What the records of one interval share.
struct IntervalEnd {
    /// Interval end, RFC 3339.
    time: String,
    /// Interval length, s.
    secs: f64,
    /// The steps the in-flight sampling cut the interval into.
    samples: u32,
    /// Hard paging in the interval.
    paging: bool,
    /// The tracer's figures per device, with `--trace`.
    traced: Option<HashMap<tracepoints::DevId, TraceFigures>>,
}

/// Class, service and member disks of device `name`, from sysfs.
fn device_info(name: &str) -> DeviceInfo {
    let facts = sysfs::facts(name);
    let class = classify(&facts);
    let disks = facts.slaves.len().max(1) as u32;
    DeviceInfo {
        class,
        serving: serving(
            class,
            disks,
            facts.rotational == Some(true),
            facts.hw_queues.unwrap_or(1),
        ),
        disks,
    }
}

/// Sleeps until the monotonic instant `target_ns` (an absolute deadline, so intervals do not
/// drift); false when Ctrl-C came first.
fn sleep_until(target_ns: u64) -> bool {
    let ts = libc::timespec {
        tv_sec: (target_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (target_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        if signal::interrupted() {
            return false;
        }
        // SAFETY: `ts` is a valid timespec; a null remainder is allowed with TIMER_ABSTIME.
        let rc = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if rc == 0 {
            return !signal::interrupted();
        }
        if rc != libc::EINTR {
            // Should not happen; fall back to a relative sleep so the loop cannot spin.
            let now = crate::clock::now_ns();
            if now >= target_ns {
                return true;
            }
            std::thread::sleep(Duration::from_nanos(target_ns - now));
        }
    }
}

/// Resolves what the user named into the kernel name /proc/diskstats uses: the name itself,
/// `/dev/NAME` (symlinks such as /dev/mapper/x followed), or any path on a block device (its
/// whole disk, or its partition with `partitions`).
pub fn resolve_device(arg: &str, partitions: bool) -> crate::Result<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let known: Vec<String> = crate::oscounters::diskstats::read()
        .into_iter()
        .map(|d| d.name)
        .collect();
    if known.iter().any(|k| k == arg) {
        return Ok(arg.to_string());
    }
    // The kernel name of a sysfs block directory.
    let name_of = |dir: &std::path::Path| {
        dir.file_name()
            .map(|n| n.to_string_lossy().replace('!', "/"))
    };
    let found = std::fs::metadata(arg).ok().and_then(|m| {
        let named_node = m.file_type().is_block_device();
        let (disk, partition) = sysfs::disk_dir(if named_node { m.rdev() } else { m.dev() })?;
        // A device node names itself; a path on a filesystem names its whole disk unless
        // partitions were asked for.
        match partition {
            Some(p) if named_node || partitions => Some(p.replace('!', "/")),
            _ => name_of(&disk),
        }
    });
    match found {
        Some(n) if known.contains(&n) => Ok(n),
        _ => Err(crate::Error::invalid(
            "DEVICE",
            arg,
            format!(
                "a device name from /proc/diskstats, /dev/NAME, or a path on a block device; known: {}",
                known.join(" ")
            ),
        )),
    }
}
