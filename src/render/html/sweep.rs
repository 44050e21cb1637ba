//! The sweep charts, per rw mode and thread count: throughput against request size (one line
//! per queue depth, 000 Figures 2–3) with the half-power line and the half-power, knee and
//! plateau points; throughput against queue depth (one line per request size); the request
//! size × queue depth heatmap (001's surface as colour); p99 against throughput (what each
//! doubling of depth costs in latency); and the verdict in words.
//!
//! Several inputs share the axes: colour tells the queue depth (or request size), the dash
//! pattern tells the input.

use super::categories::{Heatmap, heatmap};
use super::svg::{Axis, Fmt, Mark, Plot, Rule, Scale, Series, fmt, plot};
use super::{Definition, esc};
use crate::model::sweep::Analysis;
use crate::model::sweep::{Point, SweepReport};
use crate::model::{Document, Input};
use crate::units::ByteSize;
use std::fmt::Write;

fn groups(sweeps: &[&SweepReport]) -> Vec<(crate::plan::RwMode, u32)> {
    let mut g: Vec<(crate::plan::RwMode, u32)> = Vec::new();
    for s in sweeps {
        for p in &s.points {
            let key = (p.rw, p.threads);
            if !g.contains(&key) {
                g.push(key);
            }
        }
    }
    g
}

fn sorted<T: Ord + Copy>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = it.collect();
    v.sort();
    v.dedup();
    v
}

fn mb(p: &Point) -> f64 {
    p.bytes_per_s / 1e6
}

fn tip(label: &str, p: &Point) -> String {
    let lat = p.latency_us.as_ref().map_or(String::new(), |l| {
        format!(
            ", p50 {}, p99 {}",
            fmt(Fmt::Micros, l.p50),
            fmt(Fmt::Micros, l.p99)
        )
    });
    format!(
        "{label}: {} {} QD{} T{}: {:.1} MB/s, {:.0} IOPS{lat}",
        p.rw,
        ByteSize(p.bs_bytes),
        p.qd,
        p.threads,
        mb(p),
        p.iops
    )
}

/// The charts of sweep inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let sweeps: Vec<&SweepReport> = inputs
        .iter()
        .filter_map(|i| match &i.doc {
            Document::Sweep(s) => Some(s.as_ref()),
            _ => None,
        })
        .collect();
    let multi = sweeps.len() > 1;
    let mut out = String::new();
    for (rw, threads) in groups(&sweeps) {
        let _ = writeln!(
            out,
            "<h2>{} — {} thread(s) per target</h2>",
            esc(rw.name()),
            threads
        );
        let pts: Vec<Vec<&Point>> = sweeps
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter(|p| p.rw == rw && p.threads == threads)
                    .collect()
            })
            .collect();
        let analyses: Vec<Option<&Analysis>> = sweeps
            .iter()
            .map(|s| {
                s.analysis
                    .iter()
                    .find(|a| a.rw == rw && a.threads == threads)
            })
            .collect();
        for ((a, label), s) in analyses.iter().zip(labels).zip(&sweeps) {
            if let Some(a) = a {
                let pap = match crate::render::text::sweep::pap_sentence(s, a) {
                    Some(t) => format!(" {t}"),
                    None => s.pap_bytes_per_s.map_or(String::new(), |p| {
                        format!(" Advertised {:.0} MB/s.", p / 1e6)
                    }),
                };
                let _ = writeln!(
                    out,
                    "<p class=\"verdict\">{}{}{}</p>",
                    if multi {
                        format!("<b>{}</b>: ", esc(label))
                    } else {
                        String::new()
                    },
                    esc(&crate::render::text::sweep::verdict(a)),
                    esc(&pap)
                );
                for c in crate::render::text::sweep::caveats(a) {
                    let _ = writeln!(out, "<p class=\"note\">caveat: {}</p>", esc(&c));
                }
            }
        }
        out.push_str("<div class=\"charts\">\n");
        out.push_str(&by_size(rw.name(), &pts, &analyses, labels, multi));
        out.push_str(&by_depth(rw.name(), &pts, &analyses, labels, multi));
        for (p, label) in pts.iter().zip(labels) {
            if !p.is_empty() {
                out.push_str(&surface(rw.name(), p, multi.then_some(label.as_str())));
            }
        }
        out.push_str(&latency_cost(rw.name(), &pts, labels, multi));
        out.push_str("</div>\n");
    }
    (out, definitions())
}

fn suffix(label: &str, multi: bool) -> String {
    if multi {
        format!(" — {label}")
    } else {
        String::new()
    }
}

/// What a family of lines is drawn along: one line per value of `key` (its colour) and input
/// (its dash), through the points ordered by `order`, each at `at` (None: left out).
struct Lines {
    key: fn(&Point) -> u64,
    name: fn(u64) -> String,
    order: fn(&Point) -> u64,
    at: fn(&Point) -> Option<(f64, f64)>,
}

fn lines(pts: &[Vec<&Point>], labels: &[String], multi: bool, how: Lines) -> Vec<Series> {
    let keys = sorted(pts.iter().flatten().map(|p| (how.key)(p)));
    let mut out = Vec::new();
    for (f, (points, label)) in pts.iter().zip(labels).enumerate() {
        for (ci, k) in keys.iter().enumerate() {
            let mut line: Vec<(&Point, (f64, f64))> = points
                .iter()
                .filter(|p| (how.key)(p) == *k)
                .filter_map(|p| (how.at)(p).map(|xy| (*p, xy)))
                .collect();
            line.sort_by_key(|(p, _)| (how.order)(p));
            if line.is_empty() {
                continue;
            }
            out.push(Series {
                dash: f,
                ..Series::line(
                    format!("{}{}", (how.name)(*k), suffix(label, multi)),
                    line.iter().map(|(_, xy)| *xy).collect(),
                    line.iter().map(|(q, _)| tip(label, q)).collect(),
                    ci,
                )
            });
        }
    }
    out
}

fn by_size(
    rw: &str,
    pts: &[Vec<&Point>],
    analyses: &[Option<&Analysis>],
    labels: &[String],
    multi: bool,
) -> String {
    let mut p = Plot::new(
        format!("{rw}: throughput against request size, one line per queue depth"),
        Axis::new("request size (log 2; k = KiB)", Scale::Log2, Fmt::Bytes),
        Axis::new("MB/s (10^6 bytes/s)", Scale::Linear, Fmt::Si),
    );
    p.series = lines(
        pts,
        labels,
        multi,
        Lines {
            key: |p| u64::from(p.qd),
            name: |qd| format!("QD{qd}"),
            order: |p| p.bs_bytes,
            at: |p| Some((p.bs_bytes as f64, mb(p))),
        },
    );
    for (f, (points, label)) in pts.iter().zip(labels).enumerate() {
        let Some(a) = analyses[f] else { continue };
        p.rules.push(Rule {
            y: a.reference_bytes_per_s / 2e6,
            label: format!(
                "half of {} {:.0} MB/s{}",
                if a.pap_bytes_per_s.is_some() {
                    "advertised"
                } else {
                    "peak"
                },
                a.reference_bytes_per_s / 1e6,
                suffix(label, multi)
            ),
        });
        let at = |qd: u32, bs: u64| points.iter().find(|p| p.qd == qd && p.bs_bytes == bs);
        let mut marks = |cells: &[crate::model::sweep::Cell], letter: &str, what: &str| {
            for c in cells {
                if let Some(q) = c.bs_bytes.and_then(|bs| at(c.qd, bs)) {
                    p.marks.push(Mark {
                        x: q.bs_bytes as f64,
                        y: mb(q),
                        label: letter.into(),
                        tip: format!("{what} at QD{}: {}", c.qd, tip(label, q)),
                    });
                }
            }
        };
        marks(&a.half_power, "H", "half-power point");
        marks(&a.knee, "K", "knee");
        let plateau: Vec<_> = a
            .plateau
            .iter()
            .filter(|c| **c != a.best)
            .copied()
            .collect();
        marks(&plateau, "P", "plateau (within 5 % of the best)");
        marks(std::slice::from_ref(&a.best), "*", "best");
    }
    p.note = "H: smallest request size reaching half the reference at that depth; K: knee (each further doubling adds < 10 % while p99 rises); P: plateau (within 5 % of the best); *: best point. Dashed line: half of the reference.".into();
    if multi {
        p.note.push_str(" Dash pattern tells the inputs apart.");
    }
    plot(&p)
}

fn by_depth(
    rw: &str,
    pts: &[Vec<&Point>],
    analyses: &[Option<&Analysis>],
    labels: &[String],
    multi: bool,
) -> String {
    let mut p = Plot::new(
        format!("{rw}: throughput against queue depth, one line per request size"),
        Axis::new(
            "queue depth (I/Os in flight per thread, log 2)",
            Scale::Log2,
            Fmt::Plain,
        ),
        Axis::new("MB/s (10^6 bytes/s)", Scale::Linear, Fmt::Si),
    );
    p.series = lines(
        pts,
        labels,
        multi,
        Lines {
            key: |p| p.bs_bytes,
            name: |bs| ByteSize(bs).to_string(),
            order: |p| u64::from(p.qd),
            at: |p| Some((f64::from(p.qd), mb(p))),
        },
    );
    for (f, (points, label)) in pts.iter().zip(labels).enumerate() {
        let Some(a) = analyses[f] else { continue };
        p.rules.push(Rule {
            y: a.reference_bytes_per_s / 2e6,
            label: format!("half of the reference{}", suffix(label, multi)),
        });
        let at = |qd: u32, bs: u64| points.iter().find(|p| p.qd == qd && p.bs_bytes == bs);
        for (cells, letter, what) in [
            // The text's letters: h and k along queue depth, H and K along request size.
            (&a.half_power_qd, "h", "half-power depth"),
            (&a.knee_qd, "k", "knee depth"),
        ] {
            for c in cells {
                if let Some(q) = c.qd.and_then(|qd| at(qd, c.bs_bytes)) {
                    p.marks.push(Mark {
                        x: f64::from(q.qd),
                        y: mb(q),
                        label: letter.into(),
                        tip: format!("{what} for {}: {}", ByteSize(c.bs_bytes), tip(label, q)),
                    });
                }
            }
        }
    }
    p.note =
        "H: smallest depth reaching half the reference at that request size; K: knee depth.".into();
    plot(&p)
}

fn surface(rw: &str, points: &[&Point], label: Option<&str>) -> String {
    let sizes = sorted(points.iter().map(|p| p.bs_bytes));
    let depths = sorted(points.iter().map(|p| p.qd));
    let cells = sizes
        .iter()
        .map(|bs| {
            depths
                .iter()
                .map(|qd| {
                    points
                        .iter()
                        .find(|p| p.bs_bytes == *bs && p.qd == *qd)
                        .map(|p| (mb(p), tip(label.unwrap_or(rw), p)))
                })
                .collect()
        })
        .collect();
    heatmap(&Heatmap {
        title: format!(
            "{rw}: MB/s over request size × queue depth{}",
            label.map_or(String::new(), |l| format!(" — {l}"))
        ),
        x_title: "queue depth (I/Os in flight per thread)".into(),
        y_title: "request size".into(),
        columns: depths.iter().map(|d| format!("QD{d}")).collect(),
        rows: sizes.iter().map(|b| ByteSize(*b).to_string()).collect(),
        cells,
        fmt: Fmt::Si,
        note: "Brighter is faster (linear from the slowest to the fastest cell).".into(),
    })
}

fn latency_cost(rw: &str, pts: &[Vec<&Point>], labels: &[String], multi: bool) -> String {
    let mut p = Plot::new(
        format!("{rw}: p99 latency against throughput, one line per request size"),
        Axis::new("MB/s (10^6 bytes/s)", Scale::Linear, Fmt::Si),
        Axis::new("p99 latency (log scale)", Scale::Log10, Fmt::Micros),
    );
    p.series = lines(
        pts,
        labels,
        multi,
        Lines {
            key: |p| p.bs_bytes,
            name: |bs| ByteSize(bs).to_string(),
            order: |p| u64::from(p.qd),
            at: |p| p.latency_us.as_ref().map(|l| (mb(p), l.p99)),
        },
    );
    p.note = "Each step along a line doubles the queue depth: a step that moves up more than right buys little throughput for much latency.".into();
    plot(&p)
}

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "MB/s, IOPS",
            text: "Each point's throughput over its measured window, all targets together (10^6 bytes per second).",
            doc: "docs/figures.md, section 'Per target, per direction'",
        },
        Definition {
            name: "p99",
            text: "99th percentile of the point's I/O latencies, submission to completion.",
            doc: "docs/figures.md, section 'Per target, per direction'",
        },
        Definition {
            name: "reference",
            text: "What half-power is half of: the advertised peak (--pap) when given, else the plateau (mean of the points within 5 % of the best).",
            doc: "docs/sweep.md, section 'The analysis'",
        },
        Definition {
            name: "half-power point (H)",
            text: "Per queue depth, the smallest request size whose throughput reaches half the reference; per request size, the smallest depth.",
            doc: "docs/sweep.md, section 'The analysis'",
        },
        Definition {
            name: "knee (K)",
            text: "The step after which every further doubling adds less than 10 % throughput while p99 rises.",
            doc: "docs/sweep.md, section 'The analysis'",
        },
        Definition {
            name: "plateau, best (*)",
            text: "The best point, and the points within 5 % of it.",
            doc: "docs/sweep.md, section 'The analysis'",
        },
    ]
}

impl super::Drawn for crate::model::sweep::SweepReport {
    fn describe(&self, path: &str) -> String {
        let t: Vec<&str> = self.targets.iter().map(|t| t.path.as_str()).collect();
        if t.is_empty() {
            self.source.clone().unwrap_or_else(|| path.to_string())
        } else {
            t.join(", ")
        }
    }

    fn origin(&self) -> super::Origin {
        match &self.host {
            Some(h) => super::Origin::of(h, &self.header),
            None => super::Origin::header(&self.header),
        }
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
