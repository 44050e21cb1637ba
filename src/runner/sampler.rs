//! The disks under a run's targets, sampled once a second of the measured phase by the watch
//! thread, for the per-second %util and queue size beside the I/O series.

use crate::oscounters::diskstats::{self, DeviceDelta};
use crate::stats::summary::DeviceSecond;
use crate::stats::window::{Window, part_step_kept};
use std::time::{Duration, Instant};

/// The diskstats lines of the disks named `names`.
pub(super) fn device_snapshot(names: &[String]) -> Vec<diskstats::DiskStat> {
    diskstats::read()
        .into_iter()
        .filter(|d| names.contains(&d.name))
        .collect()
}

/// Samples /proc/diskstats for the disks under the targets once a second of the measured
/// phase, for the per-second %util and queue size beside the I/O series.
pub(super) struct DeviceSampler {
    /// When to sample next (None: no disks, or not started).
    pub next: Option<Instant>,
    names: Vec<String>,
    last: Option<(Instant, Vec<diskstats::DiskStat>)>,
    second: u32,
    /// Each sample with the instant its second began.
    out: Vec<(Instant, DeviceSecond)>,
}

impl DeviceSampler {
    pub fn new(names: Vec<String>) -> Self {
        DeviceSampler {
            names,
            next: None,
            last: None,
            second: 0,
            out: Vec::new(),
        }
    }

    /// Takes the first sample at `at` (the start of the measured phase), when there are disks.
    pub fn start(&mut self, at: Instant) {
        if !self.names.is_empty() {
            self.next = Some(at);
        }
    }

    /// Samples the last part-second once the workers are done, when it is long enough to be
    /// reported ([`part_step_kept`]).
    pub fn finish(&mut self) {
        if self
            .last
            .as_ref()
            .is_some_and(|(then, _)| part_step_kept(then.elapsed().as_secs_f64(), 1.0))
        {
            self.sample();
        }
        self.next = None;
    }

    /// The seconds the I/O series also reports: those of [`Window`] over the measured
    /// `seconds` (whole seconds, and a last part-second of at least half a second), so the
    /// device figures line up with the I/O figures second by second.
    pub fn series(self, seconds: f64) -> Vec<DeviceSecond> {
        let steps = Window::new(seconds, 1.0).steps() as u32;
        self.out
            .into_iter()
            .filter(|(_, d)| d.t_s < steps)
            .map(|(_, d)| d)
            .collect()
    }

    /// Samples the disks now: closes the second that began at the last sample.
    pub fn sample(&mut self) {
        // Stamped with the middle of the read, as the watcher's marks are.
        let (now, snap) = crate::clock::read_stamped(|| device_snapshot(&self.names));
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
