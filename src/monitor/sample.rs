//! One snapshot of every counter the monitor reads, and the in-flight tally sampled between
//! snapshots.

use crate::clock::now_ns;
use crate::oscounters::diskstats::{self, DiskStat};
use crate::oscounters::pressure::{self, Pressure};
use crate::oscounters::procstat::{self, ProcStat};
use crate::oscounters::reader::CounterFile;
use crate::oscounters::sysfs;
use crate::oscounters::vmstat::{self, VmStat};
use std::collections::{BTreeMap, HashMap};

/// Every counter at one instant.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Monotonic time of the snapshot, ns.
    pub mono_ns: u64,
    /// Wall-clock time, ms since the Unix epoch (for the record's `time` only).
    pub unix_ms: u64,
    /// /proc/diskstats by device name.
    pub disks: BTreeMap<String, DiskStat>,
    /// /proc/stat.
    pub cpu: Option<ProcStat>,
    /// /proc/vmstat.
    pub vm: Option<VmStat>,
    /// /proc/pressure/io.
    pub psi_io: Option<Pressure>,
    /// /proc/pressure/memory.
    pub psi_memory: Option<Pressure>,
}

/// The system-wide counter files, kept open between samples.
#[derive(Debug)]
pub struct Sources {
    diskstats: CounterFile,
    stat: CounterFile,
    vmstat: CounterFile,
    psi_io: CounterFile,
    psi_memory: CounterFile,
    ticks_per_s: f64,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            diskstats: CounterFile::new("/proc/diskstats"),
            stat: CounterFile::new("/proc/stat"),
            vmstat: CounterFile::new("/proc/vmstat"),
            psi_io: CounterFile::new("/proc/pressure/io"),
            psi_memory: CounterFile::new("/proc/pressure/memory"),
            ticks_per_s: procstat::ticks_per_s(),
        }
    }
}

impl Sample {
    /// Reads everything now. Diskstats is read first and the clock stamped right after it, so
    /// the interval matches the disk counters most closely.
    pub fn take(src: &mut Sources) -> Sample {
        let disks = src
            .diskstats
            .read()
            .map(diskstats::parse)
            .unwrap_or_default()
            .into_iter()
            .map(|d| (d.name.clone(), d))
            .collect();
        let mono_ns = now_ns();
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let hz = src.ticks_per_s;
        Sample {
            mono_ns,
            unix_ms,
            disks,
            cpu: src.stat.read().and_then(|t| procstat::parse_full(t, hz)),
            vm: src.vmstat.read().map(vmstat::parse),
            psi_io: src.psi_io.read().and_then(pressure::parse),
            psi_memory: src.psi_memory.read().and_then(pressure::parse),
        }
    }
}

/// Running sums of the in-flight count per device, sampled several times per interval, so
/// Little's law sees a mean rather than two instants.
#[derive(Debug, Default)]
pub struct InflightTally {
    sums: HashMap<String, (u64, u64, u64)>,
    files: HashMap<String, CounterFile>,
}

impl InflightTally {
    /// Reads /sys/class/block/NAME/inflight for each name and adds it.
    pub fn sample<'a>(&mut self, names: impl Iterator<Item = &'a String>) {
        for name in names {
            let file = self.files.entry(name.clone()).or_insert_with(|| {
                CounterFile::new(
                    std::path::Path::new("/sys/class/block")
                        .join(sysfs::sysfs_name(name))
                        .join("inflight"),
                )
            });
            if let Some((r, w)) = file.read().and_then(sysfs::parse_inflight) {
                self.add(name, r + w);
            }
        }
    }

    /// Adds one observation.
    pub fn add(&mut self, name: &str, inflight: u64) {
        let e = self.sums.entry(name.to_string()).or_default();
        e.0 += inflight;
        e.1 += 1;
        e.2 = e.2.max(inflight);
    }

    /// Mean of the observations of `name` (None without any).
    pub fn mean(&self, name: &str) -> Option<f64> {
        self.sums
            .get(name)
            .filter(|e| e.1 > 0)
            .map(|e| e.0 as f64 / e.1 as f64)
    }

    /// The largest observation of `name`.
    pub fn max(&self, name: &str) -> u64 {
        self.sums.get(name).map_or(0, |e| e.2)
    }

    /// Starts a new interval.
    pub fn clear(&mut self) {
        self.sums.clear();
    }
}

/// Formats ms since the epoch as RFC 3339 UTC with milliseconds.
pub fn rfc3339_ms(unix_ms: u64) -> String {
    let base = crate::report::rfc3339(unix_ms / 1000);
    format!("{}.{:03}Z", base.trim_end_matches('Z'), unix_ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_means_and_max() {
        let mut t = InflightTally::default();
        for v in [0, 2, 4] {
            t.add("sda", v);
        }
        assert_eq!(t.mean("sda"), Some(2.0));
        assert_eq!(t.max("sda"), 4);
        assert_eq!(t.mean("sdb"), None);
        t.clear();
        assert_eq!(t.mean("sda"), None);
    }

    #[test]
    fn times_with_milliseconds() {
        assert_eq!(rfc3339_ms(1_795_281_723_045), "2026-11-21T17:22:03.045Z");
    }

    #[test]
    fn a_live_sample_has_a_cpu_line() {
        let s = Sample::take(&mut Sources::default());
        assert!(s.cpu.is_some());
        assert!(s.mono_ns > 0);
    }
}
