//! fio's log files of a finished job, as fio 3.33 writes them. Without `log_avg_msec` (fio's
//! default), a row per I/O from the per-I/O record (`stats::iolog`), each numjobs clone in
//! files of its own: `time (ms), value, direction, block size, [offset,] 0` (the offset
//! column with `log_offset`, the priority 0), the time in whole ms since the measured phase
//! began, each row in completion order; the `_slat` rows at each I/O's submission, in that
//! order, as fio logs them (io_u.c `io_u_queued`); an IOPS row's value is 1 and a bandwidth
//! row's is the I/O's bytes × 10^6 / its latency in ns, as fio's `add_bw_sample` computes it.
//! With `log_avg_msec`: rows `time (ms), value, direction, 0, [0,] 0` (block size 0 for an
//! average) made by `analysis::fio_logs` from each clone's counts at every period's edge
//! (`stats::periods`), as fio makes them: bandwidth (KiB/s) and IOPS per whole period,
//! latency (ns) from each period's first completion, and a last latency row for the I/Os after
//! the last of those. halfpower measures one latency from submission to completion, so the
//! `_lat` and `_clat` files hold it and `_slat` holds 0, as `slat_ns` does in its JSON.

use super::report::Ran;
use crate::analysis::fio_logs::{self, Rate, Row};
use crate::commands::export::{self, Output};
use crate::engine::IoDir;
use crate::fio::logs::{HIST_BINS, LogKind, fio_bin};
use crate::stats::iolog::{IoLog, IoRecord, merged};
use crate::stats::periods::Periods;
use anyhow::Context;
use std::fmt::Write;

/// Writes the logs job `r` asks for, `n` being its number in fio's count of jobs (1-based):
/// each numjobs clone's own files, or with `per_job_logs=0` one file of each kind holding
/// every clone's rows, one clone after another (fio appends each clone's to it).
pub(super) fn write(r: &Ran, n: usize) -> anyhow::Result<()> {
    let o = &r.job.opts;
    if !o.logs.any() {
        return Ok(());
    }
    let numjobs = o.numjobs as usize;
    let clones: Vec<JobClone> = clones(&r.io_log, numjobs)
        .into_iter()
        .zip(clones(&r.periods, numjobs))
        .map(|(logs, periods)| JobClone {
            logs,
            periods: Periods::merged(&periods.iter().collect::<Vec<_>>()),
        })
        .collect();
    // Each file once, with the clones whose rows it holds.
    let mut files: Vec<(String, LogKind, Vec<usize>)> = Vec::new();
    for k in 0..clones.len() {
        for (kind, name) in o.logs.files(n + k, &o.name) {
            match files.iter_mut().find(|f| f.0 == name) {
                Some(f) => f.2.push(k),
                None => files.push((name, kind, vec![k])),
            }
        }
    }
    for (name, kind, of) in files {
        let path = std::path::Path::new(&name);
        export::write_streamed(Output::Fio, path, |w| {
            of.iter()
                .try_for_each(|&k| clone_rows(w, r, &clones[k], kind))
        })
        .with_context(|| format!("writing fio's log {name}"))?;
    }
    Ok(())
}

/// What one numjobs clone recorded: its workers' per-I/O records (with a log that needs
/// them) and their counts at the period edges, merged (with averaged logs).
struct JobClone<'a> {
    logs: &'a [IoLog],
    periods: Option<Periods>,
}

/// The rows of one log of kind `kind` of clone `c` of job `r`.
fn clone_rows(
    w: &mut dyn std::io::Write,
    r: &Ran,
    c: &JobClone,
    kind: LogKind,
) -> std::io::Result<()> {
    let l = &r.job.opts.logs;
    match kind {
        LogKind::ClatHist if l.histograms() => hist_rows(w, c.logs, l.hist_ms, l.hist_coarseness),
        // fio's file is empty without log_hist_msec.
        LogKind::ClatHist => Ok(()),
        _ if l.per_io() => per_io_rows(w, c.logs, kind, l.offset),
        _ => {
            let offset = if l.offset { ", 0" } else { "" };
            let mut out = String::new();
            for row in averaged(r, c, kind) {
                let (t, v, d) = (row.t_ms, row.value, row.dir);
                let _ = writeln!(out, "{t}, {v}, {d}, 0{offset}, 0");
            }
            w.write_all(out.as_bytes())
        }
    }
}

/// The averaged rows of one log of kind `kind` of clone `c` of job `r`: the clone's periods
/// over the job's measured window (its end is fio's `finalize_logs`); with `log_max_value`,
/// the latency rows' maxima from the clone's per-I/O record.
fn averaged(r: &Ran, c: &JobClone, kind: LogKind) -> Vec<Row> {
    let o = &r.job.opts;
    let Some(p) = &c.periods else {
        return Vec::new();
    };
    let dirs: Vec<IoDir> = [(IoDir::Read, o.reads()), (IoDir::Write, o.writes())]
        .iter()
        .filter(|d| d.1)
        .map(|d| d.0)
        .collect();
    let end_ns = ((r.results.seconds * 1e9) as u64).max(1);
    // Where the job stops issuing: its runtime, else its end.
    let issued_ns = match r.plan.workload.setup.time {
        Some(t) => (t.0.as_nanos() as u64).min(end_ns),
        None => end_ns,
    };
    match kind {
        LogKind::Bw => fio_logs::rate_rows(p, &dirs, Rate::Bw, end_ns),
        LogKind::Iops => fio_logs::rate_rows(p, &dirs, Rate::Iops, end_ns),
        LogKind::Slat => fio_logs::slat_rows(p, &dirs, issued_ns, end_ns),
        _ if o.logs.latency_maxima() => {
            fio_logs::latency_rows_of(merged(c.logs), o.logs.avg_ms, end_ns / 1_000_000, true)
        }
        _ => fio_logs::latency_rows(p, &dirs, end_ns),
    }
}

/// The histogram rows of one clone's records `logs`, as fio 3.33's `add_clat_sample` and
/// `flush_hist_samples` make them: per direction, each completion counted in its fio bin;
/// once `ms` or more have passed since the direction's last row (its first completion at the
/// start), a row at that completion's time (whole ms) with its direction and size and the
/// bins counted since, each sum of 2^`coarseness` bins; the next period is due `ms` after the
/// last was (fio keeps the drift). The partial period at the end has no row, as in fio.
fn hist_rows(
    w: &mut dyn std::io::Write,
    logs: &[IoLog],
    ms: u64,
    coarseness: u32,
) -> std::io::Result<()> {
    let mut last = [0u64; 2];
    let mut bins = [vec![0u64; HIST_BINS], vec![0u64; HIST_BINS]];
    let stride = 1usize << coarseness;
    let mut line = String::new();
    for r in merged(logs) {
        let d = usize::from(r.dir() == crate::engine::IoDir::Write);
        let elapsed = r.t_ns / 1_000_000;
        bins[d][fio_bin(r.lat_ns)] += 1;
        if last[d] == 0 {
            last[d] = elapsed;
        }
        let this = elapsed.saturating_sub(last[d]);
        if this < ms {
            continue;
        }
        line.clear();
        let _ = write!(line, "{elapsed}, {d}, {}", r.bytes);
        for c in bins[d].chunks(stride) {
            let _ = write!(line, ", {}", c.iter().sum::<u64>());
        }
        writeln!(w, "{line}")?;
        bins[d].fill(0);
        last[d] = elapsed - (this - ms);
    }
    Ok(())
}

/// What the workers of each of `numjobs` clones recorded (`of`, one item a worker): worker
/// `i` of `n` is clone `i × numjobs / n` (one worker a clone, or one a clone's file, in
/// clone order).
fn clones<T>(of: &[T], numjobs: usize) -> Vec<&[T]> {
    let n = of.len();
    let numjobs = numjobs.max(1);
    (0..numjobs)
        .map(|k| {
            let first = (0..n).find(|i| i * numjobs / n >= k).unwrap_or(n);
            let end = (0..n).find(|i| i * numjobs / n > k).unwrap_or(n);
            &of[first..end]
        })
        .collect()
}

/// The rows of one log of a row per I/O of the workers `logs` of one clone.
fn per_io_rows(
    w: &mut dyn std::io::Write,
    logs: &[IoLog],
    kind: LogKind,
    offset: bool,
) -> std::io::Result<()> {
    let row = |w: &mut dyn std::io::Write, t_ns: u64, value: u64, r: &IoRecord| {
        let ddir = u8::from(r.dir() == crate::engine::IoDir::Write);
        let t = t_ns / 1_000_000;
        match offset {
            true => writeln!(w, "{t}, {value}, {ddir}, {}, {}, 0", r.bytes, r.offset),
            false => writeln!(w, "{t}, {value}, {ddir}, {}, 0", r.bytes),
        }
    };
    if kind == LogKind::Slat {
        // Logged at submission, in the order of submissions.
        let mut at: Vec<(u64, &IoRecord)> = merged(logs)
            .map(|r| (r.t_ns.saturating_sub(r.lat_ns), r))
            .collect();
        at.sort_by_key(|a| a.0);
        return at.into_iter().try_for_each(|(t, r)| row(w, t, 0, r));
    }
    merged(logs).try_for_each(|r| {
        let value = match kind {
            LogKind::Iops => 1,
            LogKind::Bw if r.lat_ns == 0 => 0,
            LogKind::Bw => u64::from(r.bytes) * 1_000_000 / r.lat_ns,
            _ => r.lat_ns,
        };
        row(w, r.t_ns, value, r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_map_onto_clones_in_order() {
        let logs: Vec<IoLog> = (0..4).map(IoLog::new).collect();
        let sizes = |c: Vec<&[IoLog]>| c.iter().map(|s| s.len()).collect::<Vec<_>>();
        assert_eq!(sizes(clones(&logs, 4)), [1, 1, 1, 1]);
        assert_eq!(sizes(clones(&logs, 2)), [2, 2], "a clone's two files");
        assert_eq!(sizes(clones(&logs, 1)), [4]);
        assert_eq!(clones(&logs, 2)[1][0].iter().count(), 0);
    }

    #[test]
    fn histogram_rows_as_fio_makes_them() {
        let mut log = IoLog::new(0);
        // Reads completing at 1, 2, ..., 12 ms, each of 1 µs, and one write of 200 ns at 7 ms.
        for ms in 1..=12u64 {
            log.push(
                ms * 1_000_000,
                1000,
                crate::engine::IoDir::Read,
                4096,
                (0, 0),
            );
            if ms == 7 {
                log.push(7_000_001, 200, crate::engine::IoDir::Write, 512, (0, 0));
            }
        }
        let mut out = Vec::new();
        hist_rows(&mut out, std::slice::from_ref(&log), 5, 6).unwrap();
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
            .collect();
        // The first read starts the period (1 ms); rows at 6 ms (the reads of 1..=6) and 11 ms
        // (7..=11); 12 ms is a partial period. The write starts its own and has no row.
        assert_eq!(rows.len(), 2, "{text}");
        let bin = fio_bin(1000) / 64;
        for (row, (t, n)) in rows.iter().zip([(6, 6), (11, 5)]) {
            assert_eq!(row.len(), 3 + HIST_BINS / 64, "{text}");
            assert_eq!(&row[..3], &[t, 0, 4096], "{text}");
            assert_eq!(row[3 + bin], n, "{text}");
            assert_eq!(row[3..].iter().sum::<u64>(), n, "{text}");
        }
    }

    #[test]
    fn a_row_per_io_as_fio_writes_it() {
        let mut log = IoLog::new(0);
        // Completed at 3.5 ms after 2 ms (submitted at 1.5 ms); then at 4 ms after 0.5 ms.
        log.push(
            3_500_000,
            2_000_000,
            crate::engine::IoDir::Read,
            4096,
            (0, 8192),
        );
        log.push(
            4_000_000,
            500_000,
            crate::engine::IoDir::Write,
            4096,
            (0, 0),
        );
        let text = |kind, offset| {
            let mut out = Vec::new();
            per_io_rows(&mut out, std::slice::from_ref(&log), kind, offset).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text(LogKind::Lat, false),
            "3, 2000000, 0, 4096, 0\n4, 500000, 1, 4096, 0\n"
        );
        assert_eq!(
            text(LogKind::Bw, true),
            "3, 2048, 0, 4096, 8192, 0\n4, 8192, 1, 4096, 0, 0\n"
        );
        assert_eq!(
            text(LogKind::Iops, false),
            "3, 1, 0, 4096, 0\n4, 1, 1, 4096, 0\n"
        );
        // Submitted at 1.5 ms and 3.5 ms: in that order.
        assert_eq!(
            text(LogKind::Slat, false),
            "1, 0, 0, 4096, 0\n3, 0, 1, 4096, 0\n"
        );
    }
}
