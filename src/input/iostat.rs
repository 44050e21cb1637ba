//! Reads `iostat -x -t` text (sysstat 10 to 12, any time format) into intervals.

use super::timefmt::parse_seconds;
use crate::model::log::{DiskInterval, Log, LogFormat, SystemInterval};

/// Parses iostat's extended report. The first report (averages since boot) is dropped when
/// later ones follow.
pub fn parse(path: &str, text: &str) -> Log {
    let mut log = Log {
        path: path.to_string(),
        format: LogFormat::Iostat,
        ..Default::default()
    };
    let mut report = 0usize;
    let mut time = String::new();
    let mut prev_secs: Option<f64> = None;
    let mut interval: Option<f64> = None;
    let mut columns: Vec<String> = Vec::new();
    let mut in_cpu = false;
    let mut disks: Vec<Vec<DiskInterval>> = Vec::new();
    let mut system: Vec<Vec<SystemInterval>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let n = i + 1;
        if line.trim().is_empty() {
            columns.clear();
            continue;
        }
        if line.starts_with("Linux ") {
            continue;
        }
        if let Some(secs) = parse_seconds(line) {
            time = line.trim().to_string();
            interval = prev_secs.map(|p| secs - p);
            prev_secs = Some(secs);
            report += 1;
            disks.push(Vec::new());
            system.push(Vec::new());
            continue;
        }
        if line.starts_with("avg-cpu:") {
            in_cpu = true;
            continue;
        }
        if in_cpu {
            in_cpu = false;
            let v: Vec<f64> = line
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if v.len() == 6 {
                if let Some(s) = system.last_mut() {
                    s.push(SystemInterval {
                        time: time.clone(),
                        paging_s: None,
                        cpu_pct: Some(100.0 - v[5] - v[3]),
                        interrupt_pct: None,
                    });
                }
            } else {
                log.warn(n, "avg-cpu line without 6 values; skipped");
            }
            continue;
        }
        if line.starts_with("Device") {
            columns = line.split_whitespace().map(str::to_string).collect();
            continue;
        }
        if columns.is_empty() {
            log.warn(n, "line outside a report; skipped");
            continue;
        }
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() != columns.len() {
            log.warn(
                n,
                format!(
                    "{} fields where the header has {}; line skipped",
                    cells.len(),
                    columns.len()
                ),
            );
            continue;
        }
        let get = |names: &[&str]| -> Option<f64> {
            names.iter().find_map(|name| {
                let i = columns.iter().position(|c| c == name)?;
                cells[i]
                    .replace(',', ".")
                    .parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
            })
        };
        let (Some(r_s), Some(w_s)) = (get(&["r/s"]), get(&["w/s"])) else {
            log.warn(n, "no numeric r/s and w/s; line skipped");
            continue;
        };
        let kib = |k: &[&str], m: &[&str], sec: &[&str]| {
            get(k)
                .map(|v| v * 1024.0)
                .or_else(|| get(m).map(|v| v * 1024.0 * 1024.0))
                .or_else(|| get(sec).map(|v| v * 512.0))
        };
        let r_await = get(&["r_await", "await"]);
        let w_await = get(&["w_await", "await"]);
        // Discards (sysstat 12) are in %util and aqu-sz, so they are I/Os of the interval too.
        let d_s = get(&["d/s"]).unwrap_or(0.0);
        let d_await = get(&["d_await"]).unwrap_or(0.0);
        let ios = r_s + w_s + d_s;
        let response = match (r_await, w_await) {
            (Some(r), Some(w)) if ios > 0.0 => Some((r * r_s + w * w_s + d_await * d_s) / ios),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
        if interval.is_some_and(|s| s <= 0.0) {
            log.warn(n, "zero-length interval; skipped");
            continue;
        }
        if let Some(d) = disks.last_mut() {
            d.push(DiskInterval {
                time: time.clone(),
                interval_s: interval,
                device: cells[0].to_string(),
                class: None,
                disks: 1,
                r_s,
                w_s,
                d_s,
                r_bytes_s: kib(&["rkB/s"], &["rMB/s"], &["rsec/s"]),
                w_bytes_s: kib(&["wkB/s"], &["wMB/s"], &["wsec/s"]),
                response_ms: response,
                util_pct: get(&["%util"]),
                queue_length: get(&["aqu-sz", "avgqu-sz"]),
                service_ms: None,
                service_source: None,
                split_io_s: None,
                serving: Default::default(),
            });
        }
    }
    let skip_first = report > 1;
    if skip_first {
        log.warnings.push(format!(
            "{path}: first report (averages since boot) left out"
        ));
    }
    let skip = usize::from(skip_first);
    log.disks = disks.into_iter().skip(skip).flatten().collect();
    log.system = system.into_iter().skip(skip).flatten().collect();
    log
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
            log.warnings.iter().any(|w| w.starts_with("io.txt:17:")),
            "{:?}",
            log.warnings
        );
    }
}
