//! Terminal tables: one row per target and direction, then the disks' counters and the CPU
//! cost; the quick suite as an 8-row table.

use super::table::{Table, figures, words};
use crate::model::change::{Change, ChangeFigure};
use crate::model::run::RunFigure;
use crate::model::{QuickReport, Results, RunReport};
use crate::stats::cpu::BusySource;
use crate::stats::summary::DirSummary;
use crate::units::fmt_latency_ns;
use std::fmt::Write;

fn lat(us: f64) -> String {
    fmt_latency_ns(us * 1000.0)
}

fn shorten(path: &str, width: usize) -> String {
    if path.chars().count() <= width {
        path.to_string()
    } else {
        let tail: String = path
            .chars()
            .rev()
            .take(width - 1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("…{tail}")
    }
}

/// Renders the results of one run.
pub fn results_table(r: &Results) -> String {
    let mut out = String::new();
    target_rows(&mut out, r);
    precision_lines(&mut out, r);
    change_lines(&mut out, &r.changes);
    super::policy::bucket_line(&mut out, r.bucket.as_ref());
    devices_table(&mut out, r);
    cpu_lines(&mut out, r);
    super::policy::lines(&mut out, &r.limits);
    error_lines(&mut out, r);
    out
}

/// The table of targets: a row per target and direction, then the total over all targets.
fn target_rows(out: &mut String, r: &Results) {
    let mut table = Table::new(vec![
        words("TARGET", 24),
        words("DIR", 5),
        figures("IOPS", 11),
        figures("MB/s", 10),
        figures("p50", 9),
        figures("p99", 9),
        figures("max", 9),
        figures("CPU µs/IO", 9),
    ]);
    // On a credit bucket every row averages the burst and the baseline: each says so, and the
    // two rates follow as rows of their own.
    let note = if r.bucket.is_some() { "blend" } else { "" };
    let mut row = |name: &str, dir: &str, d: &DirSummary, cpu: Option<f64>| {
        let cells = vec![
            name.to_string(),
            dir.to_string(),
            format!("{:.0}", d.iops),
            format!("{:.2}", d.mb_per_s),
            lat(d.latency_us.p50),
            lat(d.latency_us.p99),
            lat(d.latency_us.max),
            cpu.map_or(String::from("-"), |c| format!("{c:.2}")),
        ];
        table.row_noted(cells, note.to_string());
    };
    for t in &r.targets {
        let name = shorten(&t.path, 24);
        if let Some(d) = &t.read {
            row(&name, "read", d, None);
        }
        if let Some(d) = &t.write {
            row(&name, "write", d, None);
        }
        if t.read.is_some() && t.write.is_some() {
            row(&name, "both", &t.total, None);
        }
    }
    row("all targets", "total", &r.total, Some(r.cpu.us_per_io));
    if let Some(b) = &r.bucket {
        for (dir, iops, bytes) in [
            ("burst", b.burst_iops, b.burst_bytes_per_s),
            ("base", b.baseline_iops, b.baseline_bytes_per_s),
        ] {
            let mut cells = vec!["credit bucket".into(), dir.into(), format!("{iops:.0}")];
            cells.push(format!("{:.2}", bytes / 1e6));
            cells.extend(["-", "-", "-", "-"].map(String::from));
            table.row(cells);
        }
    }
    out.push_str(&table.render());
}

/// The run's 95 % intervals and whether it reached a steady state, when known.
fn precision_lines(out: &mut String, r: &Results) {
    if let (Some(i), Some(b)) = (r.total.iops_ci95, r.total.bytes_per_s_ci95) {
        let _ = writeln!(
            out,
            "95 % intervals within this run (100-ms windows, corrected for autocorrelation): \
             IOPS ±{:.1} %, MB/s ±{:.1} %; run-to-run variation is usually larger (--repeat)",
            i.pct, b.pct
        );
    }
    if let Some(s) = &r.steady {
        let _ = writeln!(
            out,
            "steady state: {} after a {:.1}-s warm-up transient{}",
            if s.reached {
                "reached"
            } else {
                "not reached by --time"
            },
            s.transient_s,
            s.ci95_pct
                .map_or(String::new(), |p| format!(", interval ±{p:.1} %"))
        );
    }
}

/// The steps found in the run's per-second series (nothing when it stayed at one level): when,
/// in which figure, from which level to which, and the cause with the times that told it.
pub fn change_lines(out: &mut String, changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    let _ = writeln!(out, "changes over time (steps in the per-second series):");
    for c in changes {
        change_line(out, c);
    }
}

/// One step, on a line of its own: when, in which figure, from which level to which, and the
/// cause with the times that told it.
pub fn change_line(out: &mut String, c: &Change) {
    // Latencies in the run table's own units (a null device's p99 of 50 ns is not "0 µs").
    let (name, level): (&str, fn(f64) -> String) = match c.figure {
        ChangeFigure::Iops => ("IOPS", |v| format!("{v:.0}")),
        ChangeFigure::P99Us => ("p99", |v| fmt_latency_ns(v * 1e3)),
        ChangeFigure::ResponseMs => ("response time", |v| fmt_latency_ns(v * 1e6)),
    };
    let pct = 100.0 * (c.after / c.before - 1.0);
    let _ = write!(
        out,
        "  at {:.1} s: {name} {} → {} ({pct:+.0} %)",
        c.at_s,
        level(c.before),
        level(c.after)
    );
    let e = &c.evidence;
    let times = match (
        e.device_us_before,
        e.device_us_after,
        e.latency_us_before,
        e.latency_us_after,
    ) {
        (Some(d0), Some(d1), Some(l0), Some(l1)) => format!(
            ": the device's own time per I/O {d0:.0} → {d1:.0} µs, halfpower's mean latency {l0:.0} → {l1:.0} µs"
        ),
        _ => String::new(),
    };
    let cause = crate::render::words::change_cause(c.cause);
    let _ = writeln!(out, "; {cause}{times}");
}

/// The disks' counters over the run, a row per device (nothing when none was watched).
fn devices_table(out: &mut String, r: &Results) {
    if r.devices.is_empty() {
        return;
    }
    let mut t = Table::new(vec![
        words("DEVICE", 12),
        figures("r/s", 10),
        figures("w/s", 10),
        figures("rMB/s", 9),
        figures("wMB/s", 9),
        figures("r_await", 9),
        figures("w_await", 9),
        figures("aqu-sz", 7),
        figures("%util", 6),
        figures("merges", 8),
        figures("in-flight", 0),
    ]);
    for d in &r.devices {
        let mb_s = |bytes: u64| format!("{:.2}", bytes as f64 / d.seconds.max(1e-9) / 1e6);
        t.row(vec![
            d.name.clone(),
            format!("{:.1}", d.r_s),
            format!("{:.1}", d.w_s),
            mb_s(d.read_bytes),
            mb_s(d.write_bytes),
            format!("{:.2}", d.r_await_ms),
            format!("{:.2}", d.w_await_ms),
            format!("{:.2}", d.aqu_sz),
            format!("{:.1}", d.util_pct),
            (d.read_merges + d.write_merges).to_string(),
            d.in_flight_end.to_string(),
        ]);
    }
    let _ = writeln!(out);
    out.push_str(&t.render());
}

/// The CPU cost, then the engine, worker placement and measured time.
fn cpu_lines(out: &mut String, r: &Results) {
    let c = &r.cpu;
    let _ = writeln!(
        out,
        "\nCPU: halfpower {:.2} s user + {:.2} s sys ({:.1} % of one CPU) = {:.2} µs/IO, {:.1} µs/MB; \
         system-wide busy {:.1} % = {:.2} µs/IO, {:.1} µs/MB{}",
        c.process_user_s,
        c.process_sys_s,
        c.process_pct_of_one_cpu,
        c.us_per_io,
        c.us_per_mb,
        c.system_busy_pct,
        c.system_us_per_io,
        c.system_us_per_mb,
        match c.system_busy_source {
            BusySource::Ticks => "",
            BusySource::ProcessFloor =>
                " (at least halfpower's own: the kernel's tick-sampled counters missed a worker \
                 that sleeps between ticks)",
        }
    );
    let _ = write!(
        out,
        "engine {}{}, {}, {:.2} s measured",
        r.engine,
        match (r.registered_file, r.registered_buffers) {
            (Some(true), Some(true)) => " (registered file and buffers)",
            (Some(_), Some(_)) => " (not all registered)",
            _ => "",
        },
        placement(&r.worker_cpus),
        r.seconds
    );
    if r.interrupted {
        let _ = write!(out, ", INTERRUPTED");
    }
    let _ = writeln!(out);
}

/// The failed I/Os, when any: how many, the first error, and the first offsets.
fn error_lines(out: &mut String, r: &Results) {
    if r.errors.count > 0 {
        let _ = writeln!(
            out,
            "ERRORS: {} I/Os failed ({} reads, {} writes); first: {} on {} at offset {}{}",
            r.errors.count,
            r.errors.reads,
            r.errors.writes,
            r.errors
                .first_error
                .as_ref()
                .map_or("?".to_string(), super::cause::io_failure),
            r.errors.first_direction.map_or("?", |d| d.name()),
            r.errors.first_offset.unwrap_or(0),
            if r.errors.stopped {
                "; stopped 1 s after the first (--on-error stop)"
            } else {
                ""
            }
        );
        if r.errors.first.len() > 1 {
            let at: Vec<String> = r
                .errors
                .first
                .iter()
                .map(|e| e.offset.to_string())
                .collect();
            let _ = writeln!(out, "  failed at offsets {}", at.join(", "));
        }
    }
}

/// What an open loop asked and how faithfully it issued it, and the service times beside the
/// latency from due times in the table.
pub fn open_loop_lines(o: &crate::model::open::OpenLoop, achieved_iops: f64) -> String {
    let us = |v: f64| fmt_latency_ns(v * 1e3);
    let asked = o
        .asked_iops
        .map_or_else(String::new, |a| format!("asked {a:.0} IOPS, "));
    format!(
        "open loop ({} arrivals): {asked}achieved {achieved_iops:.0}; {} issued, {} late (more \
         than 1 ms after their due time); lateness p50 {}, p99 {}, max {}; at most {} in \
         flight per thread (limit {})\n  latency above runs from each request's due time; \
         service time (submission to completion) mean {}, p50 {}, p99 {}, max {}\n",
        o.arrivals.name(),
        o.issued,
        o.late,
        us(o.late_us.p50),
        us(o.late_us.p99),
        us(o.late_us.max),
        o.max_inflight,
        o.inflight_limit,
        us(o.service_us.mean),
        us(o.service_us.p50),
        us(o.service_us.p99),
        us(o.service_us.max),
    )
}

/// A workload's depth as the reports name it: `QD8` for a closed loop, `open` for an open
/// loop, whose `qd` is no depth (its bound is `max_inflight`).
pub fn depth(w: &crate::plan::Workload) -> String {
    if w.setup.access.arrivals.is_closed() {
        format!("QD{}", w.qd)
    } else {
        "open".to_string()
    }
}

/// Renders a `run` report.
pub fn run_table(r: &RunReport) -> String {
    let w = &r.workload;
    let mut out = format!("{}\n{}", headline(r), results_table(&r.results));
    if let Some(j) = &r.results.job {
        job_line(&mut out, j);
    }
    if let Some(o) = &r.results.open_loop {
        out.push_str(&open_loop_lines(o, r.results.total.iops));
    }
    if let Some(v) = &r.results.verify {
        out.push_str(&super::verify::lines(v));
    }
    if let Some(s) = &r.results.sync {
        let _ = writeln!(
            out,
            "syncs: {} ({}), mean {:.1} µs, p99 {:.1} µs, max {:.1} µs",
            s.count,
            if w.setup.access.fdatasync.is_some() {
                "fdatasync"
            } else {
                "fsync"
            },
            s.latency_us.mean,
            s.latency_us.p99,
            s.latency_us.max
        );
    }
    if let Some(rep) = &r.repeat {
        repeat_lines(&mut out, rep);
    }
    out
}

/// The run's first line: the workload as the reader asked for it (pattern, size, depth,
/// threads, caching, mix, spin and access pattern), so the table beneath needs no legend.
fn headline(r: &RunReport) -> String {
    let w = &r.workload;
    let depth = depth(w);
    let mut head = format!(
        "{} {} {depth} T{} {}{}",
        w.rw.name(),
        w.bs,
        w.threads,
        if r.targets.iter().all(|t| t.direct) {
            "direct"
        } else {
            "buffered"
        },
        if w.setup.write_through {
            write_through(w)
        } else {
            ""
        }
    );
    if w.rw.is_mixed() {
        let _ = write!(head, " {}% reads", w.read_pct.unwrap_or(50));
    }
    if !w.setup.spin.0.is_zero() {
        let _ = write!(head, " spin {}", w.setup.spin);
    }
    let access = w.setup.access.summary();
    if !access.is_empty() {
        let _ = write!(head, ", {access}");
    }
    head
}

/// An MPI job's line: ranks and hosts, the stonewall figures of the first rank done, and the
/// spread between the fastest and slowest rank.
fn job_line(out: &mut String, j: &crate::model::ranks::Job) {
    let _ = writeln!(
        out,
        "job: {} ranks on {} host(s); first done (rank {}) at {:.2} s: {:.0} IOPS, {:.2} MB/s \
         (stonewall); ranks {:.0}-{:.0} IOPS (fastest/slowest {:.3})",
        j.ranks,
        j.hosts.len(),
        j.first_done.rank,
        j.first_done.seconds,
        j.first_done.iops,
        j.first_done.bytes_per_s / 1e6,
        j.spread.slowest_iops,
        j.spread.fastest_iops,
        j.spread.ratio
    );
}

/// The repetitions' summary: per figure its mean, standard deviation and 95 % interval.
fn repeat_lines(out: &mut String, rep: &crate::model::run::Repeat) {
    let _ = writeln!(
        out,
        "\nOver {} repetitions (the table above is the first): mean, standard deviation, \
         t-based 95 % interval",
        rep.runs.len()
    );
    let mut table = Table::new(vec![
        words("FIGURE", 22),
        words("UNIT", 5),
        figures("MEAN", 12),
        figures("SD", 12),
        figures("±95 %", 12),
        figures("±%", 8),
    ])
    .indented(2);
    for f in &rep.figures {
        let v = |x: f64| figure_value(f.figure, x);
        table.row(vec![
            f.figure.to_string(),
            figure_unit(f.figure).to_string(),
            v(f.mean),
            v(f.sd),
            v(f.ci95.half),
            format!("{:.1}%", f.ci95.pct),
        ]);
    }
    out.push_str(&table.render());
}

/// The unit a repetition summary and `compare` print `figure` in.
pub fn figure_unit(figure: RunFigure) -> &'static str {
    match figure {
        RunFigure::TotalIops => "IOPS",
        RunFigure::TotalBytesPerS => "MB/s",
        RunFigure::CpuUsPerIo => "µs/IO",
        _ => "µs",
    }
}

/// `v`, a value of `figure` as documents hold it (bytes/s, µs, I/Os/s), in `figure_unit`'s
/// unit with the decimals that unit reads by.
pub fn figure_value(figure: RunFigure, v: f64) -> String {
    match figure {
        RunFigure::TotalIops => format!("{v:.0}"),
        RunFigure::TotalBytesPerS => format!("{:.2}", v / 1e6),
        RunFigure::CpuUsPerIo => format!("{v:.3}"),
        _ => format!("{v:.2}"),
    }
}

/// Renders the quick suite as CrystalDiskMark does: one row per test and direction.
pub fn quick_table(q: &QuickReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "quick suite on {} ({} MB, {})",
        q.target.path,
        q.target.size_bytes / 1_000_000,
        if q.target.direct {
            "direct I/O"
        } else {
            "buffered"
        }
    );
    let mut table = Table::new(vec![
        words("TEST", 12),
        words("DIR", 5),
        figures("MB/s", 10),
        figures("IOPS", 11),
        figures("p50", 9),
        figures("p99", 9),
    ]);
    for t in &q.tests {
        let d = &t.results.total;
        let cells = vec![
            t.name.clone(),
            t.direction.to_string(),
            format!("{:.2}", d.mb_per_s),
            format!("{:.0}", d.iops),
            lat(d.latency_us.p50),
            lat(d.latency_us.p99),
        ];
        table.row_noted(cells, test_marks(&t.results));
    }
    out.push_str(&table.render());
    let limited: Vec<(String, &[crate::model::policy::LimitReach])> = q
        .tests
        .iter()
        .map(|t| {
            (
                format!("{} {}", t.name, t.direction),
                t.results.limits.as_slice(),
            )
        })
        .collect();
    super::policy::binding_lines(&mut out, &limited);
    if let Some(v) = super::quick::report_verdict(q) {
        let _ = writeln!(out, "\n{v}");
    }
    if let Some(p) = &q.pap {
        let _ = writeln!(
            out,
            "{}",
            super::path::reached_words(p, "The scratch file's path", 1, "SEQ1M Q8T1 reads")
        );
    }
    out
}

/// What a quick test's row says beside its figures: its failed I/Os (the figures count only
/// the others) and Ctrl-C cutting it short.
fn test_marks(r: &Results) -> String {
    let mut marks = Vec::new();
    if r.errors.count > 0 {
        marks.push(format!("{} I/Os failed", r.errors.count));
    }
    if r.interrupted {
        marks.push("interrupted".to_string());
    }
    if marks.is_empty() {
        String::new()
    } else {
        format!(" ({})", marks.join(", "))
    }
}

/// Where the workers ran: `worker on CPU 0`, `workers on CPUs 0,1,0` or `workers not pinned`.
fn placement(cpus: &[usize]) -> String {
    match cpus {
        [] => "workers not pinned".into(),
        [c] => format!("worker on CPU {c}"),
        _ => {
            let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
            format!("workers on CPUs {}", list.join(","))
        }
    }
}

/// How a write-through workload opens its targets, as the headline says it.
pub fn write_through(w: &crate::plan::Workload) -> &'static str {
    if w.setup.sync_metadata {
        " write-through (O_SYNC)"
    } else {
        " write-through (O_DSYNC)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::change::{ChangeCause, ChangeEvidence};

    /// The repetition summary: a header over right-aligned columns, each figure in its unit
    /// (bytes/s once printed raw to four decimals).
    #[test]
    fn repetitions_line_up_in_their_units() {
        use crate::model::run::{FigureStat, Repeat};
        let stat = |figure, mean: f64, sd: f64| FigureStat {
            figure,
            values: Vec::new(),
            mean,
            sd,
            ci95: crate::stats::summary::Ci95 {
                half: 2.5 * sd,
                pct: 250.0 * sd / mean,
            },
        };
        let rep = Repeat {
            runs: vec![Results::default(); 3],
            figures: vec![
                stat(RunFigure::TotalIops, 13_326_002.8, 554_935.4),
                stat(RunFigure::TotalBytesPerS, 54_583_307_471.2, 2_273_015_435.5),
                stat(RunFigure::ReadP50, 0.03, 0.0),
            ],
        };
        let mut out = String::new();
        repeat_lines(&mut out, &rep);
        let lines: Vec<&str> = out.lines().skip(2).collect();
        // Each figure ends where its column's name does (counted in characters: µ is two
        // bytes), and every row is as wide as the header.
        let end = |l: &str, w: &str| {
            l.find(w)
                .map(|i| l[..i].chars().count() + w.chars().count())
        };
        assert_eq!(end(lines[0], "MEAN"), end(lines[1], "13326003"), "{out}");
        assert_eq!(end(lines[0], "MEAN"), end(lines[2], "54583.31"), "{out}");
        assert_eq!(end(lines[0], "SD"), end(lines[2], "2273.02"), "{out}");
        assert_eq!(end(lines[0], "MEAN"), end(lines[3], "0.03"), "{out}");
        let width = |l: &str| l.chars().count();
        assert!(lines.iter().all(|l| width(l) == width(lines[0])), "{out}");
    }

    /// The tables pad kinds to their columns (quick's write rows once sat a column right).
    #[test]
    fn kinds_fill_their_columns() {
        use crate::model::Direction;
        assert_eq!(
            format!("{:<6}|{:>6}|", Direction::Read, Direction::Write),
            "read  | write|"
        );
        assert_eq!(
            format!("{:<9}|", crate::plan::RwMode::Randread),
            "randread |"
        );
    }

    #[test]
    fn on_a_credit_bucket_each_row_is_a_blend_and_both_rates_are_rows() {
        let mut r = Results::default();
        assert!(!results_table(&r).contains("blend"));
        r.bucket = Some(crate::model::bucket::Bucket {
            burst_iops: 1931.4,
            burst_bytes_per_s: 1931.4 * 4096.0,
            baseline_iops: 500.2,
            baseline_bytes_per_s: 500.2 * 4096.0,
            ..Default::default()
        });
        let text = results_table(&r);
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[1][..2], ["all", "targets"], "{text}");
        assert_eq!(rows[1].last(), Some(&"blend"), "{text}");
        assert_eq!(rows[2][..5], ["credit", "bucket", "burst", "1931", "7.91"]);
        assert_eq!(rows[3][..5], ["credit", "bucket", "base", "500", "2.05"]);
        // The rates sit in the table's own IOPS and MB/s columns.
        let col = |row: usize, word: &str| text.lines().nth(row).unwrap().find(word).unwrap();
        assert_eq!(col(2, "1931") + 4, col(0, "IOPS") + 4);
        assert_eq!(col(3, "2.05") + 4, col(0, "MB/s") + 4);
    }

    #[test]
    fn changes_are_listed_with_their_levels_cause_and_times() {
        let mut out = String::new();
        change_lines(&mut out, &[]);
        assert!(out.is_empty(), "a run at one level lists nothing");
        let c = Change {
            at_s: 6.0,
            figure: ChangeFigure::Iops,
            before: 4000.0,
            after: 2000.0,
            cause: Some(ChangeCause::Cap),
            evidence: ChangeEvidence {
                device_us_before: Some(19.0),
                device_us_after: Some(18.0),
                latency_us_before: Some(999.0),
                latency_us_after: Some(2000.0),
                ..ChangeEvidence::default()
            },
        };
        change_lines(&mut out, &[c]);
        assert!(
            out.contains("at 6.0 s: IOPS 4000 → 2000 (-50 %); cause cap"),
            "{out}"
        );
        assert!(out.contains("time per I/O 19 → 18 µs"), "{out}");
        assert!(out.contains("mean latency 999 → 2000 µs"), "{out}");
    }

    #[test]
    fn latency_steps_keep_their_units_below_a_microsecond() {
        let mut out = String::new();
        for (figure, before, after) in [
            (ChangeFigure::P99Us, 0.03, 0.054),
            (ChangeFigure::P99Us, 150.0, 2500.0),
            (ChangeFigure::ResponseMs, 5.25, 8.119),
        ] {
            let c = Change {
                at_s: 9.0,
                figure,
                before,
                after,
                cause: None,
                evidence: ChangeEvidence::default(),
            };
            change_line(&mut out, &c);
        }
        assert!(out.contains("p99 30ns → 54ns (+80 %)"), "{out}");
        assert!(out.contains("p99 150.0µs → 2.50ms (+1567 %)"), "{out}");
        assert!(
            out.contains("response time 5.25ms → 8.12ms (+55 %)"),
            "{out}"
        );
    }
}
