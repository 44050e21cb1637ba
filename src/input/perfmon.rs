//! Reads Windows performance-monitor CSV (`typeperf -f CSV`, `relog -f csv`): PDH-CSV 4.0
//! headers, `\\HOST\Object(Instance)\Counter` columns, quoted values, blank first samples, CRLF.

use super::timefmt::parse_seconds;
use super::{csv_records, data_rows};
use crate::model::log::{DiskInterval, Log, LogFormat, SystemInterval};
use crate::model::warning::{LineProblem, Warning};
use std::collections::BTreeMap;

/// A column's parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Object, e.g. `PhysicalDisk`.
    pub object: String,
    /// Instance, e.g. `0 C:` (empty for objects without instances).
    pub instance: String,
    /// Counter, e.g. `% Idle Time`.
    pub counter: String,
}

/// Splits `\\HOST\Object(Instance)\Counter`. The instance runs from the first `(` to the last
/// `)` before the counter, so names with spaces, colons and parentheses survive.
pub fn parse_column(s: &str) -> Option<Column> {
    let rest = s.strip_prefix("\\\\")?;
    let (_host, rest) = rest.split_once('\\')?;
    let (objpart, counter) = rest.rsplit_once('\\')?;
    let (object, instance) = match objpart.find('(') {
        Some(i) if objpart.ends_with(')') => (&objpart[..i], &objpart[i + 1..objpart.len() - 1]),
        _ => (objpart, ""),
    };
    Some(Column {
        object: object.to_string(),
        instance: instance.to_string(),
        counter: counter.to_string(),
    })
}

const KNOWN_OBJECTS: &[&str] = &[
    "PhysicalDisk",
    "LogicalDisk",
    "Memory",
    "Processor",
    "System",
];

/// Parses a perfmon CSV. `Err` (with a one-line reason) when the header has none of the
/// English object names: a localized log, or not a disk log at all.
pub fn parse(path: &str, text: &str) -> Result<Log, String> {
    let mut log = Log {
        path: path.to_string(),
        format: LogFormat::PerfmonCsv,
        ..Default::default()
    };
    let mut records = csv_records(text).into_iter();
    let header = match records.next() {
        Some((_, Ok(h))) => h,
        _ => return Err("the header line is not valid CSV".into()),
    };
    let cols: Vec<Option<Column>> = header.iter().skip(1).map(|h| parse_column(h)).collect();
    check_english(&cols)?;
    let layout = Layout::of(&cols);
    layout.warn_missing(&mut log, path);
    let mut prev: Option<f64> = None;
    for (n, cells) in data_rows(&mut log, records, header.len()) {
        let time = cells[0].trim().to_string();
        let Some(secs) = parse_seconds(&time) else {
            log.warn(n, LineProblem::UnreadableTime(time));
            continue;
        };
        let interval = prev.map(|p| secs - p);
        prev = Some(secs);
        let Some(interval) = interval else {
            continue; // the first sample of a typeperf log is blank: rates need two samples
        };
        if interval <= 0.0 {
            log.warn(n, LineProblem::ZeroInterval);
            continue;
        }
        layout.disk_samples(&mut log, n, &time, interval, &cells);
        layout.system_sample(&mut log, time, &cells);
    }
    Ok(log)
}

/// `Err` unless some column is one of the English objects a diagnosis reads.
fn check_english(cols: &[Option<Column>]) -> Result<(), String> {
    if cols
        .iter()
        .flatten()
        .any(|c| KNOWN_OBJECTS.contains(&c.object.as_str()))
    {
        return Ok(());
    }
    let example = cols.iter().flatten().next().map_or(String::new(), |c| {
        format!(" (found object '{}', counter '{}')", c.object, c.counter)
    });
    Err(format!(
        "no PhysicalDisk, LogicalDisk, Memory or Processor counters{example}; localized (non-English) counter names are not supported: record the log on an English system or relog it with English counter names"
    ))
}

/// The finite number in the cell of column `i` (counted after the time column).
fn value(cells: &[String], i: usize) -> Option<f64> {
    cells
        .get(i + 1)?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
}

/// Where the counters a diagnosis reads are in a row.
struct Layout {
    /// (object, instance) -> counter -> column index (after the time column).
    disks: BTreeMap<(String, String), BTreeMap<String, usize>>,
    /// `Memory\Counter` or `Processor\Counter` (of `_Total`) -> column index.
    sys: BTreeMap<String, usize>,
}

impl Layout {
    /// The disk and system counters among `cols` (the `_Total` disk instances left out).
    fn of(cols: &[Option<Column>]) -> Layout {
        let mut disks: BTreeMap<(String, String), BTreeMap<String, usize>> = BTreeMap::new();
        let mut sys: BTreeMap<String, usize> = BTreeMap::new();
        for (i, c) in cols.iter().enumerate() {
            let Some(c) = c else { continue };
            match c.object.as_str() {
                "PhysicalDisk" | "LogicalDisk" if c.instance != "_Total" => {
                    disks
                        .entry((c.object.clone(), c.instance.clone()))
                        .or_default()
                        .insert(c.counter.clone(), i);
                }
                "Memory" => {
                    sys.insert(format!("Memory\\{}", c.counter), i);
                }
                "Processor" if c.instance == "_Total" => {
                    sys.insert(format!("Processor\\{}", c.counter), i);
                }
                _ => {}
            }
        }
        Layout { disks, sys }
    }

    /// A warning for each disk without one of the counters the rules need.
    fn warn_missing(&self, log: &mut Log, path: &str) {
        for ((object, inst), counters) in &self.disks {
            for needed in [
                "% Idle Time",
                "Disk Transfers/sec",
                "Avg. Disk sec/Transfer",
            ] {
                if !counters.contains_key(needed) {
                    log.warnings.push(Warning::NoCounter {
                        path: path.to_string(),
                        disk: format!("{object}({inst})"),
                        counter: needed.to_string(),
                    });
                }
            }
        }
    }

    /// Each disk's interval from row `n` (`cells`), ending at `time`, `interval` s long.
    fn disk_samples(&self, log: &mut Log, n: usize, time: &str, interval: f64, cells: &[String]) {
        for ((object, inst), c) in &self.disks {
            let get = |name: &str| c.get(name).and_then(|&i| value(cells, i));
            let transfers = get("Disk Transfers/sec");
            let reads = get("Disk Reads/sec");
            let writes = get("Disk Writes/sec");
            let (r_s, w_s) = match (reads, writes, transfers) {
                (Some(r), Some(w), _) => (r, w),
                (_, _, Some(t)) => (t, 0.0),
                _ => {
                    log.warn(n, LineProblem::NoTransferRate(format!("{object}({inst})")));
                    continue;
                }
            };
            let idle = get("% Idle Time");
            log.disks.push(DiskInterval {
                time: time.to_string(),
                interval_s: Some(interval),
                device: format!("{object}({inst})"),
                class: None,
                disks: 1,
                r_s,
                w_s,
                d_s: 0.0,
                r_bytes_s: get("Disk Read Bytes/sec"),
                w_bytes_s: get("Disk Write Bytes/sec"),
                response_ms: get("Avg. Disk sec/Transfer").map(|s| s * 1000.0),
                util_pct: idle.map(|i| 100.0 - i),
                queue_length: get("Avg. Disk Queue Length"),
                service_ms: None,
                service_source: None,
                split_io_s: get("Split IO/Sec"),
                serving: Default::default(),
            });
        }
    }

    /// The system interval from a row (`cells`) ending at `time`, when the log has system
    /// counters.
    fn system_sample(&self, log: &mut Log, time: String, cells: &[String]) {
        if self.sys.is_empty() {
            return;
        }
        let get = |name: &str| self.sys.get(name).and_then(|&i| value(cells, i));
        let paging = match (
            get("Memory\\Page Reads/sec"),
            get("Memory\\Page Writes/sec"),
        ) {
            (Some(r), Some(w)) => Some(r + w),
            (Some(r), None) => Some(r),
            _ => get("Memory\\Pages/sec"),
        };
        log.system.push(SystemInterval {
            host: None,
            time,
            paging_s: paging,
            cpu_pct: get("Processor\\% Processor Time"),
            interrupt_pct: get("Processor\\% Interrupt Time"),
        });
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

    /// The shape typeperf writes: zone in the header, a blank first sample, CRLF, instance
    /// names with spaces, colons and parentheses, a _Total column.
    pub(crate) const SAMPLE: &str = "\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\",\"\\\\HOST\\PhysicalDisk(0 C: (boot))\\% Idle Time\",\"\\\\HOST\\PhysicalDisk(0 C: (boot))\\Disk Transfers/sec\",\"\\\\HOST\\PhysicalDisk(0 C: (boot))\\Avg. Disk sec/Transfer\",\"\\\\HOST\\PhysicalDisk(0 C: (boot))\\Avg. Disk Queue Length\",\"\\\\HOST\\PhysicalDisk(_Total)\\% Idle Time\",\"\\\\HOST\\Memory\\Pages/sec\",\"\\\\HOST\\Processor(_Total)\\% Interrupt Time\"\r
\"11/21/2026 17:00:00.000\",\" \",\" \",\" \",\" \",\" \",\" \",\" \"\r
\"11/21/2026 17:00:15.000\",\"20.0\",\"100\",\"0.020\",\"2.0\",\"20.0\",\"1.5\",\"3.0\"\r
\"11/21/2026 17:00:30.000\",\"10.0\",\"110\",\"0.030\r
";

    #[test]
    fn columns_with_parentheses_in_the_instance() {
        let c =
            parse_column("\\\\HOST\\PhysicalDisk(0 C: (boot))\\Avg. Disk sec/Transfer").unwrap();
        assert_eq!(c.object, "PhysicalDisk");
        assert_eq!(c.instance, "0 C: (boot)");
        assert_eq!(c.counter, "Avg. Disk sec/Transfer");
        let m = parse_column("\\\\HOST\\Memory\\Pages/sec").unwrap();
        assert_eq!((m.object.as_str(), m.instance.as_str()), ("Memory", ""));
        assert!(parse_column("Time").is_none());
    }

    #[test]
    fn typeperf_log() {
        let log = parse("perf.csv", SAMPLE).unwrap();
        assert_eq!(log.disks.len(), 1, "the _Total instance is not diagnosed");
        let d = &log.disks[0];
        assert_eq!(d.device, "PhysicalDisk(0 C: (boot))");
        assert_eq!(d.interval_s, Some(15.0));
        assert_eq!(d.util_pct, Some(80.0));
        assert_eq!(d.iops(), 100.0);
        assert!((d.response_ms.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(d.queue_length, Some(2.0));
        assert_eq!(log.system[0].paging_s, Some(1.5));
        assert_eq!(log.system[0].interrupt_pct, Some(3.0));
        assert!(
            log.warnings
                .iter()
                .any(|w| w.to_string().starts_with("perf.csv:4:")),
            "{:?}",
            log.warnings
        );
    }

    #[test]
    fn localized_counters_are_a_clear_error() {
        let text = "\"(PDH-CSV 4.0)\",\"\\\\HOST\\Datenträger(0 C:)\\Leerlaufzeit (%)\"\n\"11/21/2026 17:00:00.000\",\"1\"\n";
        let e = parse("de.csv", text).unwrap_err();
        assert!(e.contains("localized") && e.contains("Datenträger"), "{e}");
    }
}
