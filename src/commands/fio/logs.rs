//! fio's log files of a finished job, as fio 3.33 writes them with `log_avg_msec`: a row per
//! period and direction, `time (ms), value, direction, 0, [0,] 0` (block size 0 for an
//! average, the offset column with `log_offset`, the priority 0). Bandwidth (KiB/s) and IOPS
//! come from the measured phase's 100-ms counts, latency (ns) from its exact per-second means;
//! halfpower measures one latency from submission to completion, so the `_lat` and `_clat`
//! files hold it and `_slat` holds 0, as `slat_ns` does in its JSON.

use super::report::{Ran, samples};
use crate::commands::export::{self, Output};
use crate::fio::logs::LogKind;
use anyhow::Context;
use std::fmt::Write;

/// Writes the logs job `r` asks for, `n` being its number in fio's count of jobs (1-based).
pub(super) fn write(r: &Ran, n: usize) -> anyhow::Result<()> {
    let o = &r.job.opts;
    if !o.logs.any() {
        return Ok(());
    }
    for (kind, name) in o.logs.files(n, &o.name) {
        let text = rows(r, kind);
        let path = std::path::Path::new(&name);
        export::write_whole(Output::Fio, path, text.as_bytes())
            .with_context(|| format!("writing fio's log {name}"))?;
    }
    Ok(())
}

/// The rows of one log of job `r`.
fn rows(r: &Ran, kind: LogKind) -> String {
    let o = &r.job.opts;
    let avg_ms = o.logs.avg_ms;
    let offset = if o.logs.offset { ", 0" } else { "" };
    let dirs: Vec<u8> = [(0u8, o.reads()), (1, o.writes())]
        .iter()
        .filter(|d| d.1)
        .map(|d| d.0)
        .collect();
    let mut out = String::new();
    let mut row = |k: usize, value: u64, ddir: u8| {
        let t = (k as u64 + 1) * avg_ms;
        let _ = writeln!(out, "{t}, {value}, {ddir}, 0{offset}, 0");
    };
    match kind {
        LogKind::Bw | LogKind::Iops => {
            let per_dir = samples(&r.marks, avg_ms as f64 / 1000.0);
            let periods = per_dir.iter().map(Vec::len).max().unwrap_or(0);
            for k in 0..periods {
                for &d in &dirs {
                    let Some(&(iops, bytes_per_s)) = per_dir[d as usize].get(k) else {
                        continue;
                    };
                    let value = if kind == LogKind::Bw {
                        bytes_per_s / 1024.0
                    } else {
                        iops
                    };
                    row(k, value.round() as u64, d);
                }
            }
        }
        LogKind::Lat | LogKind::Clat | LogKind::Slat => {
            // Whole periods of whole seconds, each the I/O-weighted mean of its seconds.
            let per = (avg_ms / 1000).max(1) as usize;
            let seconds = &r.results.timeseries;
            for (k, chunk) in seconds.chunks_exact(per).enumerate() {
                let ios: f64 = chunk.iter().map(|s| s.iops).sum();
                let mean_us = if ios > 0.0 {
                    chunk.iter().map(|s| s.iops * s.mean_us).sum::<f64>() / ios
                } else {
                    0.0
                };
                let value = if kind == LogKind::Slat {
                    0
                } else {
                    (mean_us * 1000.0).round() as u64
                };
                row(k, value, dirs[0]);
            }
        }
    }
    out
}
