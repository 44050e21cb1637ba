//! The PTS section, PTS's own plots per track: steady-state convergence (the tracking
//! variable, and every request size at its mix, per round), the measurement window (its rounds
//! with the window's mean, the ±10 % and ±20 % bands around it and the least-squares line),
//! the matrix averaged over the window as a heatmap, and for WSAT the IOPS of each round
//! against time and against the bytes written since the purge.

use super::categories::{Heatmap, heatmap};
use super::svg::{Axis, Band, Fmt, Mark, Plot, Rule, Scale, Series, plot};
use super::{Definition, esc, table};
use crate::model::pts::{Cell, PtsReport, PtsTest, Round, Track, TrackFigure};
use crate::model::{Document, Input};
use crate::render::text::pts::{
    figure_value, purge_sentence, tracking_name, window_sentence, written,
};
use crate::units::ByteSize;
use std::fmt::Write;

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "tracking variable",
            text: "the figure of one cell of the matrix that must settle: IOPS of 4k 0/100 (IOPS, WSAT), MB/s of 0/100 at each size (throughput), mean latency of 4k 0/100 (latency)",
            doc: "docs/pts.md",
        },
        Definition {
            name: "measurement window",
            text: "five consecutive rounds; steady when max − min of the tracking variable is at most 20 % of their mean and the least-squares line through them rises or falls by at most 10 % of it from the first round to the last",
            doc: "docs/pts.md, Steady state",
        },
        Definition {
            name: "written",
            text: "bytes written to the target since its purge, preconditioning included, at the end of a round (halfpower's count of completed writes)",
            doc: "docs/pts.md",
        },
    ]
}

/// The axis, unit scale and tick format of a tracking figure.
fn y_axis(f: TrackFigure) -> (Axis, f64) {
    match f {
        TrackFigure::Iops => (Axis::new("IOPS", Scale::Linear, Fmt::Si), 1.0),
        TrackFigure::BytesPerS => (
            Axis::new("MB/s (10^6 bytes/s)", Scale::Linear, Fmt::Si),
            1e-6,
        ),
        TrackFigure::MeanLatencyUs => (Axis::new("mean latency", Scale::Linear, Fmt::Micros), 1.0),
    }
}

fn value(f: TrackFigure, c: &Cell) -> f64 {
    match f {
        TrackFigure::Iops => c.iops,
        TrackFigure::BytesPerS => c.bytes_per_s,
        TrackFigure::MeanLatencyUs => c.latency_us.mean,
    }
}

fn round_axis() -> Axis {
    Axis::new("round", Scale::Linear, Fmt::Count)
}

/// Steady-state convergence: every request size at the tracking mix, per round.
fn convergence(t: &Track) -> String {
    let f = t.tracking.figure;
    let (y, k) = y_axis(f);
    let mut p = Plot::new(
        format!(
            "steady-state convergence: {} mix, per round",
            t.tracking.mix
        ),
        round_axis(),
        y,
    );
    for (i, &bs) in t.bs_bytes.iter().enumerate() {
        let cells: Vec<(u32, &Cell)> = t
            .rounds
            .iter()
            .filter_map(|r| {
                r.cells
                    .iter()
                    .find(|c| c.bs_bytes == bs && c.mix == t.tracking.mix)
                    .map(|c| (r.round, c))
            })
            .collect();
        if cells.is_empty() {
            continue;
        }
        let name = if bs == t.tracking.bs_bytes {
            format!("{} (tracking)", ByteSize(bs))
        } else {
            ByteSize(bs).to_string()
        };
        p.series.push(Series::line(
            name,
            cells
                .iter()
                .map(|(n, c)| (f64::from(*n), value(f, c) * k))
                .collect(),
            cells
                .iter()
                .map(|(n, c)| format!("round {n}: {}", figure_value(f, value(f, c))))
                .collect(),
            i,
        ));
    }
    let steady = t
        .steady
        .round
        .and_then(|n| t.rounds.iter().find(|r| r.round == n));
    if let Some(r) = steady {
        let n = r.round;
        p.marks.push(Mark {
            x: f64::from(n),
            y: r.tracking * k,
            label: "steady".into(),
            tip: format!("steady state at round {n}"),
        });
    }
    p.note = match t.steady.round {
        Some(n) => format!("Steady state at round {n}."),
        None => "Steady state not reached.".into(),
    };
    plot(&p)
}

/// The measurement window: its rounds, the mean with ±10 % and ±20 % bands, the fitted line.
fn window_plot(t: &Track) -> Option<String> {
    let w = t.steady.window?;
    let f = t.tracking.figure;
    let (mut y, k) = y_axis(f);
    // Zoomed on the window: its rounds across, the mean ± 20 % up.
    y.ticks = Some(
        [0.8, 0.9, 1.0, 1.1, 1.2]
            .iter()
            .map(|s| (w.mean * s * k, super::svg::fmt(y.fmt, w.mean * s * k)))
            .collect(),
    );
    let mut x = round_axis();
    x.ticks = Some(
        (w.first_round..=w.last_round)
            .map(|n| (f64::from(n), n.to_string()))
            .collect(),
    );
    let mut p = Plot::new(
        format!(
            "measurement window: rounds {}–{} ({})",
            w.first_round,
            w.last_round,
            if w.steady { "steady" } else { "not steady" }
        ),
        x,
        y,
    );
    let (a, b) = (f64::from(w.first_round), f64::from(w.last_round));
    for (pct, colour) in [(20.0, 6), (10.0, 2)] {
        p.bands.push(Band {
            name: format!("mean ± {pct:.0} %"),
            colour,
            x: vec![a, b],
            low: vec![w.mean * (1.0 - pct / 100.0) * k; 2],
            high: vec![w.mean * (1.0 + pct / 100.0) * k; 2],
        });
    }
    p.rules.push(Rule {
        y: w.mean * k,
        label: "mean".into(),
    });
    let rounds: Vec<&Round> = t
        .rounds
        .iter()
        .filter(|r| (w.first_round..=w.last_round).contains(&r.round))
        .collect();
    p.series.push(Series::line(
        tracking_name(&t.tracking),
        rounds
            .iter()
            .map(|r| (f64::from(r.round), r.tracking * k))
            .collect(),
        rounds
            .iter()
            .map(|r| format!("round {}: {}", r.round, figure_value(f, r.tracking)))
            .collect(),
        0,
    ));
    let end = w.intercept + w.slope * (b - a);
    p.series.push(Series {
        name: "least-squares line".into(),
        points: vec![(a, w.intercept * k), (b, end * k)],
        tips: Vec::new(),
        colour: 1,
        dash: 1,
        line: true,
    });
    p.note = window_sentence(f, &w);
    Some(plot(&p))
}

/// The matrix averaged over the window: request sizes down, mixes across.
fn matrix(t: &Track) -> Option<String> {
    if t.window_matrix.is_empty() {
        return None;
    }
    let f = t.tracking.figure;
    let cells = t
        .bs_bytes
        .iter()
        .map(|&bs| {
            t.mixes
                .iter()
                .map(|&m| {
                    t.window_matrix
                        .iter()
                        .find(|c| c.bs_bytes == bs && c.mix == m)
                        .map(|c| {
                            let v = match f {
                                TrackFigure::Iops => c.iops,
                                TrackFigure::BytesPerS => c.bytes_per_s / 1e6,
                                TrackFigure::MeanLatencyUs => c.mean_latency_us,
                            };
                            let tip = format!(
                                "{} {m}: {:.0} IOPS, {:.1} MB/s, mean {:.1} µs, max {:.1} µs",
                                ByteSize(bs),
                                c.iops,
                                c.bytes_per_s / 1e6,
                                c.mean_latency_us,
                                c.max_latency_us
                            );
                            (v, tip)
                        })
                })
                .collect()
        })
        .collect();
    let (what, fmt) = match f {
        TrackFigure::Iops => ("IOPS", Fmt::Si),
        TrackFigure::BytesPerS => ("MB/s", Fmt::Si),
        TrackFigure::MeanLatencyUs => ("mean latency", Fmt::Micros),
    };
    Some(heatmap(&Heatmap {
        title: format!("{what} over the measurement window: request size × R/W mix"),
        x_title: "R/W mix (% reads / % writes)".into(),
        y_title: "request size".into(),
        columns: t.mixes.iter().map(ToString::to_string).collect(),
        rows: t
            .bs_bytes
            .iter()
            .map(|&b| ByteSize(b).to_string())
            .collect(),
        cells,
        fmt,
        note: "Each cell is the mean of its five rounds in the window (brighter is higher).".into(),
    }))
}

/// WSAT: IOPS per round against time, or against the bytes written since the purge.
fn wsat(t: &Track, by_bytes: bool) -> String {
    let gb = t
        .rounds
        .last()
        .is_some_and(|r| r.written_bytes as f64 >= 1e11);
    let (unit, per) = if gb { ("GB", 1e9) } else { ("MB", 1e6) };
    let x = if by_bytes {
        Axis::new(
            format!(
                "written since the purge ({unit} = 10^{} bytes)",
                if gb { 9 } else { 6 }
            ),
            Scale::Linear,
            Fmt::Si,
        )
    } else {
        Axis::new("time since the first round (s)", Scale::Linear, Fmt::Plain)
    };
    let mut p = Plot::new(
        if by_bytes {
            "WSAT: IOPS against bytes written"
        } else {
            "WSAT: IOPS against time"
        },
        x,
        Axis::new("IOPS", Scale::Linear, Fmt::Si),
    );
    p.series.push(Series::line(
        tracking_name(&t.tracking),
        t.rounds
            .iter()
            .map(|r| {
                let at = if by_bytes {
                    r.written_bytes as f64 / per
                } else {
                    r.end_s
                };
                (at, r.tracking)
            })
            .collect(),
        t.rounds
            .iter()
            .map(|r| {
                format!(
                    "round {}: {:.0} IOPS, {:.1}–{:.1} s, {} written",
                    r.round,
                    r.tracking,
                    r.start_s,
                    r.end_s,
                    written(r.written_bytes)
                )
            })
            .collect(),
        0,
    ));
    p.note = "Each point is one round, drawn at its end.".into();
    plot(&p)
}

/// One track's charts and its rounds as a table.
fn track(out: &mut String, r: &PtsReport, t: &Track) {
    let _ = writeln!(
        out,
        "<h3>track {}</h3>\n<p>{}</p>\n<div class=\"charts\">",
        esc(&tracking_name(&t.tracking)),
        esc(&purge_sentence(&t.purge))
    );
    if r.test == PtsTest::Wsat {
        out.push_str(&wsat(t, false));
        out.push_str(&wsat(t, true));
    } else {
        out.push_str(&convergence(t));
    }
    if let Some(w) = window_plot(t) {
        out.push_str(&w);
    }
    if let Some(m) = matrix(t).filter(|_| t.window_matrix.len() > 1) {
        out.push_str(&m);
    }
    out.push_str("</div>\n");
    let rows: Vec<Vec<String>> = t
        .rounds
        .iter()
        .map(|round| {
            vec![
                round.round.to_string(),
                format!("{:.2}", round.start_s),
                format!("{:.2}", round.end_s),
                written(round.written_bytes),
                figure_value(t.tracking.figure, round.tracking),
            ]
        })
        .collect();
    out.push_str(&table(
        &["round", "start s", "end s", "written", "tracking variable"],
        &rows,
    ));
}

/// The charts and tables of PTS inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Pts(r) = &i.doc else {
            continue;
        };
        let _ = writeln!(
            out,
            "<h2>{}</h2>\n<p>capacity {}, {} thread(s) × QD {}, {} s per cell and round</p>",
            esc(label),
            ByteSize(r.capacity_bytes),
            r.threads,
            r.qd,
            r.round_s
        );
        for t in &r.tracks {
            track(&mut out, r, t);
        }
    }
    (out, definitions())
}

impl super::Drawn for crate::model::pts::PtsReport {
    fn describe(&self, _: &str) -> String {
        format!("PTS {} on {}", self.test.name(), self.target)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
