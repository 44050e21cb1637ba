//! An experiment on a terminal: its rows, its facts and its verdict.

use crate::model::experiment::{ExperimentReport, Row};
use crate::units::ByteSize;
use std::fmt::Write;

/// A row's `device_share` as printed (`-` without a disk).
pub fn device_share(row: &Row) -> String {
    row.device_share.map_or("-".into(), |x| format!("{x:.2}×"))
}

/// Renders an experiment report.
pub fn experiment_table(r: &ExperimentReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Experiment {} on {} ({}), MB/s = 10^6 bytes/s",
        r.experiment.name(),
        r.target.path,
        if r.target.direct {
            "direct I/O"
        } else {
            "buffered"
        }
    );
    let _ = writeln!(
        out,
        "{:<14} {:>7} {:<6} {:>6} {:>3} {:>10} {:>9} {:>10} {:>10} {:>10} {:>7}",
        "variant",
        "shift",
        "rw",
        "size",
        "QD",
        "MB/s",
        "IOPS",
        "mean µs",
        "p99 µs",
        "CPU µs/MB",
        "device"
    );
    for row in &r.rows {
        let size = row
            .region_bytes
            .map_or(ByteSize(row.bs_bytes).to_string(), |b| {
                format!("{}/{}", ByteSize(row.bs_bytes), ByteSize(b))
            });
        let _ = writeln!(
            out,
            "{:<14} {:>7} {:<6} {:>6} {:>3} {:>10.1} {:>9.0} {:>10.1} {:>10.1} {:>10.0} {:>7}",
            row.variant.name(),
            row.shift_bytes
                .map_or("-".into(), |s| ByteSize(s).to_string()),
            row.rw.name(),
            size,
            row.qd,
            row.bytes_per_s / 1e6,
            row.iops,
            row.mean_us,
            row.p99_us,
            row.cpu_us_per_mb,
            device_share(row)
        );
    }
    if r.rows.iter().any(|x| x.device_read_bytes.is_some()) {
        out.push_str(
            "device: bytes the disk moved in the point's window ÷ the point's own bytes\n",
        );
    }
    for f in &r.facts {
        let _ = writeln!(out, "{}: {}", f.name, f.value);
    }
    let _ = writeln!(out, "\n{}", r.verdict);
    if r.interrupted {
        out.push_str("interrupted: the rows measured before Ctrl-C\n");
    }
    out
}
