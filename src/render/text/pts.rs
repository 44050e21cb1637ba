//! The PTS test's text: how each track was purged and preconditioned, one row per round with
//! its tracking variable and the bytes written, the steady-state verdict with both
//! excursions, and the matrix averaged over the measurement window.

use super::table::{Table, figures};
use crate::analysis::pts::{EXCURSION_PCT, RANGE_PCT};
use crate::model::pts::{
    CellAverage, Mix, PtsReport, PtsTest, Purge, PurgeMethod, PurgeState, Round, Track,
    TrackFigure, Tracking, Window,
};
use crate::units::{ByteSize, fmt_latency_ns};
use std::fmt::Write;

/// How a figure of the tracking variable prints (IOPS, MB/s, a latency).
pub fn figure_value(f: TrackFigure, v: f64) -> String {
    match f {
        TrackFigure::Iops => format!("{v:.0} IOPS"),
        TrackFigure::BytesPerS => format!("{:.1} MB/s", v / 1e6),
        TrackFigure::MeanLatencyUs => fmt_latency_ns(v * 1e3),
    }
}

/// Bytes written, in MB (10^6 bytes) or, from 100 GB, GB.
pub fn written(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e11 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.1} MB", b / 1e6)
    }
}

/// The tracking variable named: its cell and figure (`4k 0/100 IOPS`).
pub fn tracking_name(t: &Tracking) -> String {
    let figure = match t.figure {
        TrackFigure::Iops => "IOPS",
        TrackFigure::BytesPerS => "MB/s",
        TrackFigure::MeanLatencyUs => "mean latency",
    };
    format!("{} {} {figure}", ByteSize(t.bs_bytes), t.mix)
}

fn method(m: PurgeMethod) -> &'static str {
    match m {
        PurgeMethod::Discard => "BLKDISCARD",
        PurgeMethod::PunchHole => "hole punching (fallocate)",
        PurgeMethod::None => "nothing (the null engine opens no target)",
    }
}

/// The purge in words.
pub fn purge_sentence(p: &Purge) -> String {
    match p.state {
        PurgeState::Done => format!(
            "purged: {} over {}{}",
            method(p.method),
            ByteSize(p.bytes),
            if p.method == PurgeMethod::PunchHole {
                " (the file's blocks went back to its file system, which may or may not discard them on the device)"
            } else {
                ""
            }
        ),
        PurgeState::NotSupported if p.method == PurgeMethod::None => {
            "NOT purged: the null engine opens no target".to_string()
        }
        PurgeState::NotSupported => format!(
            "NOT purged: {} was refused{}",
            method(p.method),
            p.error
                .as_deref()
                .map_or(String::new(), |e| format!(" ({e})"))
        ),
    }
}

/// A window's two excursions against their bounds.
pub fn window_sentence(f: TrackFigure, w: &Window) -> String {
    format!(
        "window rounds {}–{}: mean {}, max − min {:.1} % of it (≤ {RANGE_PCT:.0} %), fitted line moves {:.1} % (≤ {EXCURSION_PCT:.0} %)",
        w.first_round,
        w.last_round,
        figure_value(f, w.mean),
        w.range_pct,
        w.excursion_pct
    )
}

/// The progress line of one round.
pub fn round_line(t: &Tracking, r: &Round, w: Option<Window>) -> String {
    let mut s = format!(
        "round {}: {} {} ({} written)",
        r.round,
        tracking_name(t),
        figure_value(t.figure, r.tracking),
        written(r.written_bytes)
    );
    if let Some(w) = w {
        let _ = write!(
            s,
            "; {}{}",
            window_sentence(t.figure, &w),
            if w.steady { ": steady" } else { "" }
        );
    }
    s
}

/// The steady-state verdict of a track.
fn steady_line(r: &PtsReport, t: &Track) -> String {
    let f = t.tracking.figure;
    if let (PtsTest::Wsat, Some(w)) = (r.test, t.steady.window) {
        // WSAT does not stop on the rule: it is judged where it ended.
        return format!(
            "{} over its last five rounds: {}",
            if w.steady { "steady" } else { "NOT steady" },
            window_sentence(f, &w)
        );
    }
    match (t.steady.round, t.steady.window) {
        (Some(round), Some(w)) => {
            format!("steady state at round {round}: {}", window_sentence(f, &w))
        }
        (None, Some(w)) => format!(
            "steady state NOT reached in {} rounds{}; the measurement window is the last five: {}",
            t.rounds.len(),
            if r.max_rounds.is_some_and(|m| t.rounds.len() as u32 >= m) {
                " (PTS's most)"
            } else {
                ""
            },
            window_sentence(f, &w)
        ),
        _ => format!(
            "steady state NOT reached: {} rounds ran, fewer than a window of five",
            t.rounds.len()
        ),
    }
}

/// The window's matrix: request sizes down, mixes across, the track's figure in each cell
/// (and the largest latency for the latency test).
fn matrix(t: &Track) -> String {
    let f = t.tracking.figure;
    let mut out = format!(
        "  measurement window averages ({}):\n",
        match f {
            TrackFigure::Iops => "IOPS",
            TrackFigure::BytesPerS => "MB/s",
            TrackFigure::MeanLatencyUs => "mean latency / max latency",
        }
    );
    let mut columns = vec![figures("BS", 6)];
    columns.extend(t.mixes.iter().map(|m| figures(&m.to_string(), 19)));
    let mut table = Table::new(columns).indented(2);
    let find = |bs: u64, m: Mix| -> Option<&CellAverage> {
        t.window_matrix
            .iter()
            .find(|c| c.bs_bytes == bs && c.mix == m)
    };
    for &bs in &t.bs_bytes {
        let mut row = vec![ByteSize(bs).to_string()];
        row.extend(t.mixes.iter().map(|&m| {
            find(bs, m).map_or("-".to_string(), |c| match f {
                TrackFigure::Iops => format!("{:.0}", c.iops),
                TrackFigure::BytesPerS => format!("{:.1}", c.bytes_per_s / 1e6),
                TrackFigure::MeanLatencyUs => format!(
                    "{} / {}",
                    fmt_latency_ns(c.mean_latency_us * 1e3),
                    fmt_latency_ns(c.max_latency_us * 1e3)
                ),
            })
        }));
        table.row(row);
    }
    out.push_str(&table.render());
    out
}

/// One track: purge, preconditioning, rounds, verdict and matrix.
fn track(out: &mut String, r: &PtsReport, t: &Track) {
    let _ = writeln!(
        out,
        "track {}: {} × {} ({}), {}",
        tracking_name(&t.tracking),
        t.bs_bytes.len(),
        t.mixes.len(),
        if t.sequential { "sequential" } else { "random" },
        purge_sentence(&t.purge)
    );
    match &t.precondition {
        Some(p) => {
            let _ = writeln!(
                out,
                "  preconditioned: {} of sequential {} writes in {:.1} s",
                ByteSize(p.written_bytes),
                ByteSize(p.bs_bytes),
                p.seconds
            );
        }
        None => out.push_str("  no preconditioning: WSAT starts from the purged state\n"),
    }
    let name = tracking_name(&t.tracking);
    let mut table = Table::new(vec![
        figures("ROUND", 5),
        figures("START s", 9),
        figures("END s", 9),
        figures("WRITTEN", 12),
        figures(&name, 14),
    ])
    .indented(2);
    for round in &t.rounds {
        table.row(vec![
            round.round.to_string(),
            format!("{:.2}", round.start_s),
            format!("{:.2}", round.end_s),
            written(round.written_bytes),
            figure_value(t.tracking.figure, round.tracking),
        ]);
    }
    out.push_str(&table.render());
    let _ = writeln!(out, "  {}", steady_line(r, t));
    if !t.window_matrix.is_empty() {
        out.push_str(&matrix(t));
    }
}

/// Renders a PTS report.
pub fn pts_text(r: &PtsReport) -> String {
    let mut out = format!(
        "PTS {} on {} (capacity {}, {} thread{} × QD {}, {} s per cell and round",
        r.test.name(),
        r.target,
        ByteSize(r.capacity_bytes),
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        r.qd,
        r.round_s
    );
    match r.wsat_bytes {
        Some(b) => {
            let _ = write!(out, ", until {} written)", ByteSize(b));
        }
        None => out.push(')'),
    }
    out.push('\n');
    for t in &r.tracks {
        track(&mut out, r, t);
    }
    if r.interrupted {
        out.push_str("interrupted (Ctrl-C): the figures cover the rounds that completed\n");
    }
    out
}
