//! What diagnose reads, whatever the source: per-device and system intervals in one common
//! shape, with the warnings the parser raised on the way.

use serde::{Deserialize, Serialize};

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
    /// Device class when the log knows it (monitor logs), else inferred from the name.
    pub class: Option<String>,
    /// Member disks (md/dm slaves), at least 1.
    pub disks: u32,
    /// Reads per second.
    pub r_s: f64,
    /// Writes per second.
    pub w_s: f64,
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
    /// Its source, as the monitor named it.
    pub service_source: Option<String>,
    /// Split I/Os per second (perfmon), a fragmentation sign.
    pub split_io_s: Option<f64>,
    /// Whether one request at a time is served (serial device): `Some(false)` when the log says
    /// the device is parallel.
    pub serial: Option<bool>,
}

impl DiskInterval {
    /// Completions per second.
    pub fn iops(&self) -> f64 {
        self.r_s + self.w_s
    }

    /// Mean request size, bytes (None without byte rates or I/Os).
    pub fn request_bytes(&self) -> Option<f64> {
        let bytes = self.r_bytes_s? + self.w_bytes_s?;
        (self.iops() > 0.0).then(|| bytes / self.iops())
    }

    /// Share of reads among the I/Os (0..1); 1 when idle.
    pub fn read_share(&self) -> f64 {
        if self.iops() > 0.0 {
            self.r_s / self.iops()
        } else {
            1.0
        }
    }
}

/// The system over one interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemInterval {
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
    pub format: &'static str,
    /// Device intervals in file order.
    pub disks: Vec<DiskInterval>,
    /// System intervals in file order.
    pub system: Vec<SystemInterval>,
    /// Lines or intervals skipped, counters missing: `FILE:LINE: what`.
    pub warnings: Vec<String>,
}

/// The input summary recorded in diagnose's JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputInfo {
    /// Path.
    pub path: String,
    /// `monitor-csv`, `monitor-jsonl`, `iostat`, `perfmon-csv`.
    pub format: String,
    /// Device intervals read.
    pub device_intervals: usize,
    /// System intervals read.
    pub system_intervals: usize,
    /// Warnings raised while reading.
    pub warnings: Vec<String>,
}

impl Log {
    /// The summary of this log.
    pub fn info(&self) -> InputInfo {
        InputInfo {
            path: self.path.clone(),
            format: self.format.into(),
            device_intervals: self.disks.len(),
            system_intervals: self.system.len(),
            warnings: self.warnings.clone(),
        }
    }

    /// Records a warning `PATH:LINE: msg`.
    pub fn warn(&mut self, line: usize, msg: impl std::fmt::Display) {
        self.warnings.push(format!("{}:{line}: {msg}", self.path));
    }
}

/// Splits one CSV line into fields (RFC 4180 quoting, `""` inside quotes); `None` when a quote
/// is left open (a truncated line).
pub fn split_csv(line: &str) -> Option<Vec<String>> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.is_empty() => quoted = true,
            (',', false) => fields.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(cur);
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes() {
        assert_eq!(
            split_csv("\"a,b\",c,\"d \"\"e\"\"\"\r").unwrap(),
            vec!["a,b", "c", "d \"e\""]
        );
        assert_eq!(split_csv("").unwrap(), vec![""]);
        assert!(split_csv("\"open,x").is_none());
    }

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
