//! What diagnose reads, whatever the source: per-device and system intervals in one common
//! shape, with the warnings the parser raised on the way. `input` fills it from each format.

use super::device::{DeviceClass, ServiceMethod, Serving};
use serde::{Deserialize, Serialize};

/// The format a log was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// halfpower monitor, CSV.
    #[default]
    MonitorCsv,
    /// halfpower monitor, JSON lines.
    MonitorJsonl,
    /// `iostat -x -t` text.
    Iostat,
    /// Windows performance monitor CSV (typeperf, relog).
    PerfmonCsv,
}

impl LogFormat {
    /// The name as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            LogFormat::MonitorCsv => "monitor-csv",
            LogFormat::MonitorJsonl => "monitor-jsonl",
            LogFormat::Iostat => "iostat",
            LogFormat::PerfmonCsv => "perfmon-csv",
        }
    }
}

impl std::fmt::Display for LogFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One device over one interval, as any of the input formats gives it. Figures a format lacks
/// are `None`, and the rules that need them are skipped with a warning.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiskInterval {
    /// End of the interval as the log wrote it.
    pub time: String,
    /// Interval length, s (`None` where the log has no timestamps to tell).
    pub interval_s: Option<f64>,
    /// Device or perfmon instance name.
    pub device: String,
    /// Device class when the log knows it (monitor logs); else `analysis::device` infers it.
    pub class: Option<DeviceClass>,
    /// Member disks (md/dm slaves), at least 1.
    pub disks: u32,
    /// Reads per second.
    pub r_s: f64,
    /// Writes per second.
    pub w_s: f64,
    /// Discards per second (iostat's d/s, monitor's d_s; 0 where the log has none). They are
    /// in the device's busy time, queue and response time, so they count as I/Os here.
    pub d_s: f64,
    /// Bytes read per second.
    pub r_bytes_s: Option<f64>,
    /// Bytes written per second.
    pub w_bytes_s: Option<f64>,
    /// Mean response time, ms.
    pub response_ms: Option<f64>,
    /// Utilization, %.
    pub util_pct: Option<f64>,
    /// Mean number in the system (aqu-sz, Avg. Disk Queue Length).
    pub queue_length: Option<f64>,
    /// Service time the log already carries (monitor logs), ms.
    pub service_ms: Option<f64>,
    /// How the monitor obtained it.
    pub service_source: Option<ServiceMethod>,
    /// Split I/Os per second (perfmon), a fragmentation sign.
    pub split_io_s: Option<f64>,
    /// How the device serves requests, when the log says (monitor logs).
    pub serving: Serving,
}

impl DiskInterval {
    /// Completions per second: reads, writes and discards.
    pub fn iops(&self) -> f64 {
        self.r_s + self.w_s + self.d_s
    }

    /// Reads and writes per second (the I/Os that move data).
    fn data_iops(&self) -> f64 {
        self.r_s + self.w_s
    }

    /// Mean read/write request size, bytes (None without byte rates or such I/Os).
    pub fn request_bytes(&self) -> Option<f64> {
        let bytes = self.r_bytes_s? + self.w_bytes_s?;
        (self.data_iops() > 0.0).then(|| bytes / self.data_iops())
    }

    /// A one-second interval of device `device` ending at `time` with `iops` reads of `kib`
    /// KiB, `util` % busy, `aqu` in the system and `r_ms` response time, as iostat gives it:
    /// the analysis tests' building block.
    #[cfg(test)]
    pub(crate) fn reads(
        device: &str,
        time: &str,
        iops: f64,
        kib: f64,
        util: f64,
        aqu: f64,
        r_ms: f64,
    ) -> Self {
        DiskInterval {
            time: time.into(),
            interval_s: Some(1.0),
            device: device.into(),
            disks: 1,
            r_s: iops,
            r_bytes_s: Some(iops * kib * 1024.0),
            w_bytes_s: Some(0.0),
            response_ms: Some(r_ms),
            util_pct: Some(util),
            queue_length: Some(aqu),
            ..Default::default()
        }
    }

    /// Share of reads among the reads and writes (0..1); 1 when there are none.
    pub fn read_share(&self) -> f64 {
        if self.data_iops() > 0.0 {
            self.r_s / self.data_iops()
        } else {
            1.0
        }
    }
}

/// The system over one interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemInterval {
    /// The host it is of, in a log of several hosts (`monitor` under MPI: `host:_system`);
    /// None in a log of one.
    pub host: Option<String>,
    /// End of the interval.
    pub time: String,
    /// Hard paging, pages (or page reads + writes) per second.
    pub paging_s: Option<f64>,
    /// Processor busy, % (all CPUs).
    pub cpu_pct: Option<f64>,
    /// Interrupt time (hard + soft), %.
    pub interrupt_pct: Option<f64>,
}

/// One input file, parsed.
#[derive(Clone, Debug, Default)]
pub struct Log {
    /// Where it came from.
    pub path: String,
    /// Which format it was.
    pub format: LogFormat,
    /// Device intervals in file order.
    pub disks: Vec<DiskInterval>,
    /// System intervals in file order.
    pub system: Vec<SystemInterval>,
    /// Lines or intervals skipped, counters missing.
    pub warnings: Vec<super::Warning>,
}

/// The input summary recorded in diagnose's JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputInfo {
    /// Path.
    pub path: String,
    /// `monitor-csv`, `monitor-jsonl`, `iostat`, `perfmon-csv`.
    pub format: LogFormat,
    /// Device intervals read.
    pub device_intervals: usize,
    /// System intervals read.
    pub system_intervals: usize,
    /// Warnings raised while reading.
    pub warnings: Vec<super::Warning>,
}

impl Log {
    /// The summary of this log.
    pub fn info(&self) -> InputInfo {
        InputInfo {
            path: self.path.clone(),
            format: self.format,
            device_intervals: self.disks.len(),
            system_intervals: self.system.len(),
            warnings: self.warnings.clone(),
        }
    }

    /// Records that line `line` was skipped, and why.
    pub fn warn(&mut self, line: usize, problem: super::warning::LineProblem) {
        self.warnings.push(super::Warning::LogLine {
            path: self.path.clone(),
            line,
            problem,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_figures() {
        let d = DiskInterval {
            r_s: 75.0,
            w_s: 25.0,
            r_bytes_s: Some(300_000.0),
            w_bytes_s: Some(100_000.0),
            ..Default::default()
        };
        assert_eq!(d.iops(), 100.0);
        assert_eq!(d.request_bytes(), Some(4000.0));
        assert_eq!(d.read_share(), 0.75);
    }
}
