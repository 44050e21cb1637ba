//! One snapshot of every system counter the monitor reads: /proc/diskstats, /proc/stat,
//! /proc/vmstat and pressure stall information, stamped on the monotonic clock.

use super::diskstats::{self, DiskStat};
use super::pressure::{self, Pressure};
use super::procstat::{self, ProcStat};
use super::reader::CounterFile;
use super::vmstat::{self, VmStat};
use crate::clock::now_ns;
use std::collections::BTreeMap;

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
    /// /proc/pressure/cpu.
    pub psi_cpu: Option<Pressure>,
}

/// The system-wide counter files, kept open between samples.
#[derive(Debug)]
pub struct Sources {
    diskstats: CounterFile,
    stat: CounterFile,
    vmstat: CounterFile,
    psi_io: CounterFile,
    psi_memory: CounterFile,
    psi_cpu: CounterFile,
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
            psi_cpu: CounterFile::new("/proc/pressure/cpu"),
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
        let unix_ms = crate::clock::unix_ms();
        let hz = src.ticks_per_s;
        Sample {
            mono_ns,
            unix_ms,
            disks,
            cpu: src.stat.read().and_then(|t| procstat::parse_full(t, hz)),
            vm: src.vmstat.read().map(vmstat::parse),
            psi_io: src.psi_io.read().and_then(pressure::parse),
            psi_memory: src.psi_memory.read().and_then(pressure::parse),
            psi_cpu: src.psi_cpu.read().and_then(pressure::parse),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_sample_has_a_cpu_line() {
        let s = Sample::take(&mut Sources::default());
        assert!(s.cpu.is_some());
        assert!(s.mono_ns > 0);
    }
}
