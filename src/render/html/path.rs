//! The path section (000 Figure 1 for this machine): per target, boxes from the application
//! down through the software stack to the device and out through its transport to the host
//! bus, each with its advertised limit and, when a run's figures were given (`path --from`),
//! the rate measured through it; the component that sets the PAP is marked. The table below
//! gives every component's facts in words.

use super::{Definition, esc, table};
use crate::model::path::{Component, ComponentLimit, PathReport, TargetPath};
use crate::model::{Document, Input};
use crate::render::text::path::{facts, kind_name, limit_words, paps_words, rate};
use std::fmt::Write;

const BOX_W: f64 = 230.0;
const BOX_H: f64 = 66.0;
const GAP_X: f64 = 18.0;
const ROW_H: f64 = 92.0;

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "advertised limit",
            text: "what a component can carry by its specification: a link's signalling rate × lanes × its line code's share of data bits ÷ 8 (PCIe 3.0 x4 = 3.938 GB/s, SATA 6 Gbit/s = 600 MB/s), as the kernel reports the link now",
            doc: "docs/path.md",
        },
        Definition {
            name: "PAP",
            text: "peak advertised performance (000): the tightest limit on the path, each component's limit divided by the share of the target's rate it carries (a member of a two-way stripe carries 1/2)",
            doc: "docs/path.md",
        },
        Definition {
            name: "measured",
            text: "with path --from RUN.json: a block device's rate by the kernel's counters over the run, any other component's the run's MB/s times the share it carries",
            doc: "docs/path.md",
        },
    ]
}

/// The drawings and tables of path inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let mut out = String::new();
    for (i, label) in inputs.iter().zip(labels) {
        let Document::Path(r) = &i.doc else {
            continue;
        };
        let _ = writeln!(out, "<h2>The path: {}</h2>", esc(label));
        for t in &r.targets {
            target(&mut out, r, t);
        }
        let rows: Vec<Vec<String>> = r
            .components
            .iter()
            .map(|c| {
                vec![
                    kind_name(c.part.kind()).to_string(),
                    c.name.clone(),
                    facts(c),
                    limit_words(&c.limit),
                    c.measured_bytes_per_s.map_or("-".into(), rate),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "component",
                "name",
                "what the kernel says",
                "limit",
                "measured",
            ],
            &rows,
        ));
    }
    (out, definitions())
}

/// Each component's row under `top`: its longest distance from it (a component several
/// reach is drawn once, below the deepest of them).
fn rows(c: &[Component], top: usize) -> Vec<Option<usize>> {
    let mut row: Vec<Option<usize>> = vec![None; c.len()];
    if top >= c.len() {
        return row;
    }
    row[top] = Some(0);
    // Longest paths by relaxation, at most len rounds (a cycle read from a file stops there).
    for _ in 0..c.len() {
        let mut changed = false;
        for i in 0..c.len() {
            let Some(r) = row[i] else { continue };
            for &b in c[i].below.iter().filter(|&&b| b < c.len() && b != i) {
                if row[b].is_none_or(|rb| rb < r + 1) && r < c.len() {
                    row[b] = Some(r + 1);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    row
}

fn node_box(out: &mut String, c: &Component, x: f64, y: f64, tight: bool) {
    let cls = if tight { " s1" } else { "" };
    let sw = if tight { 3.0 } else { 1.2 };
    let limit = match &c.limit {
        ComponentLimit::Advertised { bytes_per_s, .. } => rate(*bytes_per_s),
        ComponentLimit::None { .. } => "no limit of its own".into(),
        ComponentLimit::Unknown { .. } => "limit unknown".into(),
        ComponentLimit::Policy { .. } => "capped by policy".into(),
    };
    let short: String = facts(c).chars().take(36).collect();
    let _ = write!(
        out,
        "<g><title>{}: {} — {}</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"6\" class=\"frame{cls}\" style=\"stroke-width:{sw}\"/>",
        esc(kind_name(c.part.kind())),
        esc(&facts(c)),
        esc(&limit_words(&c.limit))
    );
    let tx = x + 8.0;
    let _ = write!(
        out,
        "<text x=\"{tx:.1}\" y=\"{:.1}\" class=\"axis\"><tspan font-weight=\"600\">{}</tspan> {}</text>",
        y + 16.0,
        esc(kind_name(c.part.kind())),
        esc(&c.name)
    );
    let _ = write!(
        out,
        "<text x=\"{tx:.1}\" y=\"{:.1}\" class=\"tick\">{}</text>",
        y + 31.0,
        esc(&short)
    );
    let _ = write!(
        out,
        "<text x=\"{tx:.1}\" y=\"{:.1}\" class=\"axis\">{}{}</text>",
        y + 46.0,
        esc(&limit),
        if tight { " — tightest" } else { "" }
    );
    if let Some(m) = c.measured_bytes_per_s {
        let _ = write!(
            out,
            "<text x=\"{tx:.1}\" y=\"{:.1}\" class=\"tick\">measured {}</text>",
            y + 60.0,
            esc(&rate(m))
        );
    }
    out.push_str("</g>\n");
}

/// One target's drawing: the application, the CPU beside it when known, then each row.
fn target(out: &mut String, r: &PathReport, t: &TargetPath) {
    let c = &r.components;
    let row = rows(c, t.top);
    let depth = row.iter().flatten().max().copied().unwrap_or(0) + 1;
    let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for (i, rw) in row.iter().enumerate() {
        if let Some(rw) = rw {
            by_row[*rw].push(i);
        }
    }
    // Room for the CPU's box beside the application's, centred.
    let least = if r.cpu.is_some() { 3 } else { 2 };
    let widest = by_row.iter().map(Vec::len).max().unwrap_or(1).max(least);
    let width = widest as f64 * (BOX_W + GAP_X) + GAP_X;
    let height = (depth + 1) as f64 * ROW_H + 10.0;
    let tight: Vec<usize> = [&t.pap.read, &t.pap.write]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.component))
        .collect();
    let mut pos = vec![(0.0, 0.0); c.len()];
    for (k, ids) in by_row.iter().enumerate() {
        let span = ids.len() as f64 * (BOX_W + GAP_X) - GAP_X;
        let x0 = (width - span) / 2.0;
        for (j, &i) in ids.iter().enumerate() {
            pos[i] = (
                x0 + j as f64 * (BOX_W + GAP_X),
                (k + 1) as f64 * ROW_H + 8.0,
            );
        }
    }
    let _ = writeln!(
        out,
        "<figure class=\"chart\"><figcaption>{}</figcaption>\n<svg viewBox=\"0 0 {width:.0} {height:.0}\" style=\"max-width:{width:.0}px\" role=\"img\" aria-label=\"the path of {}\">",
        esc(&t.target),
        esc(&t.target)
    );
    for (i, rw) in row.iter().enumerate() {
        if rw.is_none() {
            continue;
        }
        for &b in c[i]
            .below
            .iter()
            .filter(|&&b| b < c.len() && row[b].is_some())
        {
            let (x1, y1) = pos[i];
            let (x2, y2) = pos[b];
            let _ = write!(
                out,
                "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{y2:.1}\" class=\"grid\" style=\"stroke:var(--frame)\"/>",
                x1 + BOX_W / 2.0,
                y1 + BOX_H,
                x2 + BOX_W / 2.0
            );
        }
    }
    application(out, r, t, &pos, width);
    for (i, rw) in row.iter().enumerate() {
        if rw.is_some() {
            node_box(out, &c[i], pos[i].0, pos[i].1, tight.contains(&i));
        }
    }
    out.push_str("</svg>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{}</p></figure>",
        esc(&paps_words(c, &t.pap))
    );
}

/// The application's box on the top row (with the run's rate), and the CPU's beside it.
fn application(out: &mut String, r: &PathReport, t: &TargetPath, pos: &[(f64, f64)], width: f64) {
    let x = (width - BOX_W) / 2.0;
    let y = 8.0;
    if let Some(&(tx, ty)) = pos.get(t.top) {
        let _ = write!(
            out,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{ty:.1}\" class=\"grid\" style=\"stroke:var(--frame)\"/>",
            x + BOX_W / 2.0,
            y + BOX_H,
            tx + BOX_W / 2.0
        );
    }
    let _ = write!(
        out,
        "<g><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{BOX_W}\" height=\"{BOX_H}\" rx=\"6\" class=\"frame\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" font-weight=\"600\">application</text>",
        x + 8.0,
        y + 16.0
    );
    if let Some(m) = &r.measured {
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\">measured {}</text>",
            x + 8.0,
            y + 46.0,
            esc(&rate(m.bytes_per_s))
        );
    }
    out.push_str("</g>\n");
    if let Some(cpu) = r.cpu.and_then(|i| r.components.get(i).map(|c| (i, c))) {
        let tight = [&t.pap.read, &t.pap.write]
            .iter()
            .any(|p| p.as_ref().is_some_and(|p| p.component == cpu.0));
        node_box(out, cpu.1, x + BOX_W + GAP_X, y, tight);
    }
}

impl super::Drawn for crate::model::path::PathReport {
    fn describe(&self, _: &str) -> String {
        let t: Vec<&str> = self.targets.iter().map(|t| t.target.as_str()).collect();
        t.join(", ")
    }

    fn origin(&self) -> super::Origin {
        super::Origin::header(&self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
