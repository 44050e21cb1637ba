//! Reads `iostat -x -t` text (sysstat 10 to 12, any time format) into intervals.

use super::timefmt::parse_seconds;
use crate::model::log::{DiskInterval, Log, LogFormat, SystemInterval};
use crate::model::warning::{LineProblem, Warning};

/// Parses iostat's extended report. The first report (averages since boot) is dropped when
/// later ones follow.
pub fn parse(path: &str, text: &str) -> Log {
    let mut reader = Reader::new(path);
    for (i, raw) in text.lines().enumerate() {
        reader.line(i + 1, raw.trim_end_matches('\r'));
    }
    reader.finish(path)
}

/// The parser's state between lines: the report being read and what was read so far.
struct Reader {
    /// The log being built (its warnings as they come).
    log: Log,
    /// Reports (time stamps) seen so far.
    report: usize,
    /// The current report's time stamp, as written.
    time: String,
    /// The previous report's time, seconds.
    prev_secs: Option<f64>,
    /// Seconds since the previous report.
    interval: Option<f64>,
    /// The current device header's column names (empty outside a device table).
    columns: Vec<String>,
    /// The next line holds the `avg-cpu` values.
    in_cpu: bool,
    /// The device rows of each report.
    disks: Vec<Vec<DiskInterval>>,
    /// The CPU rows of each report.
    system: Vec<Vec<SystemInterval>>,
}

impl Reader {
    /// A reader of file `path` before its first line.
    fn new(path: &str) -> Reader {
        Reader {
            log: Log {
                path: path.to_string(),
                format: LogFormat::Iostat,
                ..Default::default()
            },
            report: 0,
            time: String::new(),
            prev_secs: None,
            interval: None,
            columns: Vec::new(),
            in_cpu: false,
            disks: Vec::new(),
            system: Vec::new(),
        }
    }

    /// Reads line `n` (without its line end).
    fn line(&mut self, n: usize, line: &str) {
        if line.trim().is_empty() {
            self.columns.clear();
            return;
        }
        if line.starts_with("Linux ") {
            return;
        }
        if let Some(secs) = parse_seconds(line) {
            self.start_report(line, secs);
            return;
        }
        if line.starts_with("avg-cpu:") {
            self.in_cpu = true;
            return;
        }
        if self.in_cpu {
            self.in_cpu = false;
            self.cpu_row(n, line);
            return;
        }
        if line.starts_with("Device") {
            self.columns = line.split_whitespace().map(str::to_string).collect();
            return;
        }
        if self.columns.is_empty() {
            self.log.warn(n, LineProblem::OutsideReport);
            return;
        }
        self.device_row(n, line);
    }

    /// A time stamp line at `secs`: a new report begins.
    fn start_report(&mut self, line: &str, secs: f64) {
        self.time = line.trim().to_string();
        self.interval = self.prev_secs.map(|p| secs - p);
        self.prev_secs = Some(secs);
        self.report += 1;
        self.disks.push(Vec::new());
        self.system.push(Vec::new());
    }

    /// The values under `avg-cpu:` (%user %nice %system %iowait %steal %idle).
    fn cpu_row(&mut self, n: usize, line: &str) {
        let v: Vec<f64> = line
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if v.len() == 6 {
            if let Some(s) = self.system.last_mut() {
                s.push(SystemInterval {
                    host: None,
                    time: self.time.clone(),
                    paging_s: None,
                    cpu_pct: Some(100.0 - v[5] - v[3]),
                    interrupt_pct: None,
                });
            }
        } else {
            self.log.warn(n, LineProblem::AvgCpu);
        }
    }

    /// One device's row under the current header.
    fn device_row(&mut self, n: usize, line: &str) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() != self.columns.len() {
            self.log.warn(
                n,
                LineProblem::Fields {
                    fields: cells.len(),
                    header: self.columns.len(),
                },
            );
            return;
        }
        let row = Row {
            columns: &self.columns,
            cells: &cells,
        };
        let (Some(r_s), Some(w_s)) = (row.get(&["r/s"]), row.get(&["w/s"])) else {
            self.log.warn(n, LineProblem::NoRates);
            return;
        };
        // Discards (sysstat 12) are in %util and aqu-sz, so they are I/Os of the interval too.
        let d_s = row.get(&["d/s"]).unwrap_or(0.0);
        let response = row.response_ms(r_s, w_s, d_s);
        if self.interval.is_some_and(|s| s <= 0.0) {
            self.log.warn(n, LineProblem::ZeroInterval);
            return;
        }
        let interval = DiskInterval {
            time: self.time.clone(),
            interval_s: self.interval,
            device: cells[0].to_string(),
            class: None,
            disks: 1,
            r_s,
            w_s,
            d_s,
            r_bytes_s: row.bytes_s(&["rkB/s"], &["rMB/s"], &["rsec/s"]),
            w_bytes_s: row.bytes_s(&["wkB/s"], &["wMB/s"], &["wsec/s"]),
            response_ms: response,
            util_pct: row.get(&["%util"]),
            queue_length: row.get(&["aqu-sz", "avgqu-sz"]),
            service_ms: None,
            service_source: None,
            split_io_s: None,
            serving: Default::default(),
        };
        if let Some(d) = self.disks.last_mut() {
            d.push(interval);
        }
    }

    /// The log, without the first report (averages since boot) when later ones follow.
    fn finish(self, path: &str) -> Log {
        let mut log = self.log;
        let skip_first = self.report > 1;
        if skip_first {
            log.warnings.push(Warning::FirstReport {
                path: path.to_string(),
            });
        }
        let skip = usize::from(skip_first);
        log.disks = self.disks.into_iter().skip(skip).flatten().collect();
        log.system = self.system.into_iter().skip(skip).flatten().collect();
        log
    }
}

/// One device row's cells and the header they stand under.
struct Row<'a> {
    /// The header's column names.
    columns: &'a [String],
    /// The row's cells, as many as columns.
    cells: &'a [&'a str],
}

impl Row<'_> {
    /// The finite number in the first of `names` the header has (a decimal comma read too).
    fn get(&self, names: &[&str]) -> Option<f64> {
        names.iter().find_map(|name| {
            let i = self.columns.iter().position(|c| c == name)?;
            self.cells[i]
                .replace(',', ".")
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
        })
    }

    /// Bytes/s from a column in kB/s (`k`), else MB/s (`m`), else sectors/s (`sec`).
    fn bytes_s(&self, k: &[&str], m: &[&str], sec: &[&str]) -> Option<f64> {
        self.get(k)
            .map(|v| v * 1024.0)
            .or_else(|| self.get(m).map(|v| v * 1024.0 * 1024.0))
            .or_else(|| self.get(sec).map(|v| v * 512.0))
    }

    /// The mean response time over reads, writes and discards, weighted by their rates.
    fn response_ms(&self, r_s: f64, w_s: f64, d_s: f64) -> Option<f64> {
        let r_await = self.get(&["r_await", "await"]);
        let w_await = self.get(&["w_await", "await"]);
        let d_await = self.get(&["d_await"]).unwrap_or(0.0);
        let ios = r_s + w_s + d_s;
        match (r_await, w_await) {
            (Some(r), Some(w)) if ios > 0.0 => Some((r * r_s + w * w_s + d_await * d_s) / ios),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        }
    }
}

/// The test sample, for the whole-log tests.
#[cfg(test)]
pub fn tests_sample() -> &'static str {
    tests::SAMPLE
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const SAMPLE: &str = "Linux 6.18.44-fc-v669 (vm) \t11/21/26 \t_x86_64_\t(2 CPU)

11/21/26 17:31:26
avg-cpu:  %user   %nice %system %iowait  %steal   %idle
          15.36    0.00   12.46    8.02    0.05   64.11

Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util
loop0         14250.99  57005.27     0.09   0.00    0.17     4.00    7.34     69.64     0.28   3.71    0.09     9.49    0.01    107.56     0.00   0.00    1.27 16384.50    0.06    0.03    2.44  12.69


11/21/26 17:31:27
avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           1.14    0.00   31.43   31.43    0.00   36.00

Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util
loop0         9794.00  39176.00     0.00   0.00    0.07     4.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00    0.00    0.72  74.80
vda              0.00      0.00
";

    #[test]
    fn reports_after_the_first() {
        let log = parse("io.txt", SAMPLE);
        assert_eq!(log.disks.len(), 1);
        let d = &log.disks[0];
        assert_eq!(d.device, "loop0");
        assert_eq!(d.interval_s, Some(1.0));
        assert_eq!(d.r_s, 9794.0);
        assert_eq!(d.r_bytes_s, Some(39176.0 * 1024.0));
        assert_eq!(d.util_pct, Some(74.8));
        assert_eq!(d.queue_length, Some(0.72));
        assert!((d.response_ms.unwrap() - 0.07).abs() < 1e-9);
        assert_eq!(log.system.len(), 1);
        assert!((log.system[0].cpu_pct.unwrap() - 32.57).abs() < 1e-9);
        assert!(
            log.warnings
                .iter()
                .any(|w| w.to_string().starts_with("io.txt:17:")),
            "{:?}",
            log.warnings
        );
    }
}
