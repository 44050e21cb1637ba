//! The profile document (`kind: "profile"`, docs/profile.md): Friedman's matrix of measured
//! cells, the fitted service-time lines per column, and their tables as 004 prints them.

use super::model::{TargetInfo, Tool};
use crate::analysis::fit::{self, ProgressiveFit};
use crate::diagnose::profile::Fit;
use crate::oscounters::host::Host;
use crate::units::ByteSize;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The three access patterns of Friedman's matrix, in table order.
pub const PATTERNS: [&str; 3] = ["sequential", "random", "cache-hit"];

/// One measured cell: direction × pattern × request size × queue depth.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProfileCell {
    /// `read` or `write`.
    pub rw: String,
    /// `sequential`, `random` or `cache-hit`.
    pub pattern: String,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight.
    pub qd: u32,
    /// I/Os per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// Service time by the Utilization Law with the device 100 % busy, S = 1/IOPS, ms (QD1
    /// cells only: with more in flight the device serves several at once).
    pub service_ms: Option<f64>,
    /// Mean latency, submission to completion, ms.
    pub mean_latency_ms: f64,
    /// 99th percentile latency, ms.
    pub p99_ms: f64,
    /// %util of the disk underneath over the cell, when there is exactly one.
    pub device_util_pct: Option<f64>,
    /// Service time the disk's own counters give, U/X, ms (checks the 100 % busy assumption).
    pub device_service_ms: Option<f64>,
    /// Whether the cell ended on the steady-state rule.
    pub steady: bool,
    /// Measured seconds.
    pub seconds: f64,
}

/// The document `halfpower profile --json` writes; `diagnose --profile` reads its `fits`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProfileReport {
    /// Layout version ([`crate::diagnose::profile::PROFILE_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Always `profile`.
    pub kind: String,
    /// The writer.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the profile ended.
    pub date: String,
    /// The host.
    pub host: Host,
    /// What was profiled (path).
    pub target: String,
    /// The target as the runs saw it.
    pub target_info: TargetInfo,
    /// The measured cells in the order they ran.
    pub cells: Vec<ProfileCell>,
    /// One line per column (read/write × pattern) through the QD1 service times.
    pub fits: Vec<Fit>,
    /// Whether Ctrl-C cut the profile short.
    pub interrupted: bool,
    /// Warnings printed during the profile.
    pub warnings: Vec<String>,
}

impl ProfileReport {
    /// 004 Table 4's cell: the QD1 service time (ms) of `rw` × `pattern` × `bs_bytes`, and
    /// whether that size fell off its column's fitted line.
    pub fn service_cell(&self, rw: &str, pattern: &str, bs_bytes: u64) -> (Option<f64>, bool) {
        let service = self
            .cells
            .iter()
            .find(|c| c.rw == rw && c.pattern == pattern && c.qd == 1 && c.bs_bytes == bs_bytes)
            .and_then(|c| c.service_ms);
        let off = self
            .fits
            .iter()
            .any(|f| f.rw == rw && f.pattern == pattern && f.off_line_bs_bytes.contains(&bs_bytes));
        (service, off)
    }
}

const KIB: f64 = 1024.0;

/// Fits `service_ms = overhead_ms + ms_per_kib × size_kib` per column through the QD1 cells
/// that have a service time, from the smallest sizes up (see [`fit::progressive`]).
pub fn fits_of(cells: &[ProfileCell]) -> Vec<Fit> {
    let mut out = Vec::new();
    for rw in ["read", "write"] {
        for pattern in PATTERNS {
            let col: Vec<&ProfileCell> = cells
                .iter()
                .filter(|c| c.rw == rw && c.pattern == pattern && c.qd == 1)
                .filter(|c| c.service_ms.is_some_and(f64::is_finite))
                .collect();
            let pts: Vec<(f64, f64)> = col
                .iter()
                .map(|c| (c.bs_bytes as f64 / KIB, c.service_ms.unwrap_or(0.0)))
                .collect();
            let Some(ProgressiveFit {
                line,
                used,
                off_line,
            }) = fit::progressive(&pts)
            else {
                continue;
            };
            let sizes = |idx: &[usize]| {
                let mut v: Vec<u64> = idx.iter().map(|&i| col[i].bs_bytes).collect();
                v.sort();
                v
            };
            out.push(Fit {
                rw: rw.into(),
                pattern: pattern.into(),
                overhead_ms: line.intercept,
                ms_per_kib: line.slope,
                r2: Some(line.r2),
                transfer_mb_per_s: fit::transfer_mb_per_s(line.slope),
                projected_32k_ms: Some(line.at(32.0)),
                fitted_bs_bytes: sizes(&used),
                off_line_bs_bytes: sizes(&off_line),
            });
        }
    }
    out
}

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| {
        if v < 10.0 {
            format!("{v:.3}")
        } else {
            format!("{v:.2}")
        }
    })
}

/// 004 Table 4: service time (ms) by request size (rows) and read/write × pattern (columns),
/// a `~` after a value that fell off its column's line.
fn service_table(out: &mut String, r: &ProfileReport) {
    let mut sizes: Vec<u64> = r.cells.iter().map(|c| c.bs_bytes).collect();
    sizes.sort();
    sizes.dedup();
    let cols: Vec<(&str, &str)> = ["read", "write"]
        .into_iter()
        .flat_map(|rw| PATTERNS.iter().map(move |p| (rw, *p)))
        .filter(|(rw, _)| r.cells.iter().any(|c| c.rw == *rw))
        .collect();
    let _ = writeln!(
        out,
        "Service time, ms (S = 1/IOPS at QD1, the Utilization Law with the device 100 % busy)"
    );
    let _ = write!(out, "{:>6}", "size");
    for (rw, p) in &cols {
        let _ = write!(out, " {:>16}", format!("{rw} {p}"));
    }
    out.push('\n');
    for bs in &sizes {
        let _ = write!(out, "{:>6}", ByteSize(*bs).to_string());
        for (rw, p) in &cols {
            let (service, off) = r.service_cell(rw, p, *bs);
            let v = ms(service);
            let _ = write!(out, " {:>16}", if off { format!("{v}~") } else { v });
        }
        out.push('\n');
    }
}

/// Renders a profile: the service-time table, the measured cells, and the fitted lines.
pub fn profile_table(r: &ProfileReport) -> String {
    let mut out = String::new();
    service_table(&mut out, r);
    out.push('\n');
    let _ = writeln!(
        out,
        "{:<6} {:<11} {:>6} {:>3} {:>10} {:>9} {:>10} {:>10} {:>9} {:>10}",
        "rw", "pattern", "size", "QD", "IOPS", "MB/s", "S ms", "mean ms", "dev %util", "dev S ms"
    );
    for c in &r.cells {
        let _ = writeln!(
            out,
            "{:<6} {:<11} {:>6} {:>3} {:>10.0} {:>9.1} {:>10} {:>10} {:>9} {:>10}",
            c.rw,
            c.pattern,
            ByteSize(c.bs_bytes).to_string(),
            c.qd,
            c.iops,
            c.bytes_per_s / 1e6,
            ms(c.service_ms),
            ms(Some(c.mean_latency_ms)),
            c.device_util_pct.map_or("-".into(), |u| format!("{u:.1}")),
            ms(c.device_service_ms)
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "Fitted lines: service ms = overhead + ms/KiB x size (from the smallest sizes up; ~ = off the line, left out)"
    );
    let _ = writeln!(
        out,
        "{:<17} {:>11} {:>10} {:>10} {:>7} {:>11}  off the line",
        "column", "overhead ms", "ms/KiB", "MB/s", "R²", "at 32k ms"
    );
    for f in &r.fits {
        let off: Vec<String> = f
            .off_line_bs_bytes
            .iter()
            .map(|b| ByteSize(*b).to_string())
            .collect();
        let _ = writeln!(
            out,
            "{:<17} {:>11.4} {:>10.5} {:>10} {:>7.4} {:>11}  {}",
            format!("{} {}", f.rw, f.pattern),
            f.overhead_ms,
            f.ms_per_kib,
            f.transfer_mb_per_s
                .map_or("-".into(), |v| format!("{v:.1}")),
            f.r2.unwrap_or(f64::NAN),
            ms(f.projected_32k_ms),
            if off.is_empty() {
                "-".into()
            } else {
                off.join(" ")
            }
        );
    }
    if r.interrupted {
        out.push_str("interrupted: the tables hold the cells measured before Ctrl-C\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(rw: &str, pattern: &str, kib: u64, service_ms: f64) -> ProfileCell {
        ProfileCell {
            rw: rw.into(),
            pattern: pattern.into(),
            bs_bytes: kib * 1024,
            qd: 1,
            iops: 1000.0 / service_ms,
            bytes_per_s: 1000.0 / service_ms * (kib * 1024) as f64,
            service_ms: Some(service_ms),
            mean_latency_ms: service_ms,
            p99_ms: service_ms,
            device_util_pct: None,
            device_service_ms: None,
            steady: false,
            seconds: 1.0,
        }
    }

    /// 004 Table 4 as cells: the sequential read line projects 0.92 ms at 32 KiB, the 64 KiB
    /// point is off it; the document reads back as a profile diagnose accepts.
    #[test]
    fn friedmans_table_4() {
        let table = [
            (4, [0.20, 7.14, 0.27, 5.00]),
            (16, [0.51, 9.09, 0.63, 5.62]),
            (64, [1.38, 10.00, 1.39, 5.56]),
        ];
        let mut cells = Vec::new();
        for (kib, row) in table {
            cells.push(cell("read", "sequential", kib, row[0]));
            cells.push(cell("read", "random", kib, row[1]));
            cells.push(cell("write", "sequential", kib, row[2]));
            cells.push(cell("write", "random", kib, row[3]));
        }
        let fits = fits_of(&cells);
        assert_eq!(fits.len(), 4);
        let seq = fits
            .iter()
            .find(|f| f.rw == "read" && f.pattern == "sequential")
            .unwrap();
        assert!((seq.projected_32k_ms.unwrap() - 0.923).abs() < 0.001);
        assert_eq!(seq.off_line_bs_bytes, vec![64 * 1024]);
        assert_eq!(seq.fitted_bs_bytes, vec![4096, 16384]);
        let report = ProfileReport {
            schema_version: 1,
            kind: "profile".into(),
            tool: Tool::default(),
            command: vec![],
            date: String::new(),
            host: crate::oscounters::host::read(),
            target: "/dev/sdb".into(),
            target_info: TargetInfo {
                path: "/dev/sdb".into(),
                kind: "block-device".into(),
                created: false,
                capacity_bytes: 1 << 30,
                offset_bytes: 0,
                size_bytes: 1 << 30,
                direct: true,
                direct_fallback: None,
                dio_mem_align: 512,
                dio_offset_align: 512,
                device: None,
                partition: None,
                logical_block_size: None,
                rotational: None,
                scheduler: None,
                model: None,
            },
            cells,
            fits,
            interrupted: false,
            warnings: vec![],
        };
        let text = serde_json::to_string(&report).unwrap();
        let p = crate::diagnose::profile::Profile::from_json(&text).unwrap();
        assert_eq!(p.fits.len(), 4);
        // diagnose's expectation for 4 KiB random reads is the random read line at 4 KiB.
        assert!((p.expected_ms(1.0, 4.0).unwrap() - 7.14).abs() < 0.01);
        let table = profile_table(&report);
        assert!(table.contains("1.380~"), "{table}");
        assert!(table.contains("0.923"), "{table}");
    }
}
