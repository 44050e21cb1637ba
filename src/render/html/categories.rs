//! Charts over categories rather than a numeric x axis: grouped bars (one group per test, one
//! bar per input file) and heatmaps (request size × queue depth, coloured by throughput).

use super::axis::nice_step;
use super::svg::{CHAR_W, Fmt, LegendEntry, Swatch, WIDTH, figure, fmt, legend};
use super::{c, esc};
use std::fmt::Write;

const LEFT: f64 = 64.0;
const RIGHT: f64 = 18.0;
const TOP: f64 = 14.0;

/// One bar per category, for one input.
#[derive(Clone, Debug, Default)]
pub struct BarSeries {
    /// Legend entry.
    pub name: String,
    /// Colour index.
    pub colour: usize,
    /// Value per category (None: no bar).
    pub values: Vec<Option<f64>>,
    /// Hover text per category.
    pub tips: Vec<String>,
    /// A 95 % interval (low, high) per category, drawn as a whisker over the bar (empty: none).
    pub errors: Vec<Option<(f64, f64)>>,
}

/// Grouped bars.
#[derive(Clone, Debug, Default)]
pub struct Bars {
    /// Caption.
    pub title: String,
    /// Vertical axis title with its unit.
    pub y_title: String,
    /// How values print.
    pub fmt: Fmt,
    /// Category names along the bottom.
    pub categories: Vec<String>,
    /// One series per input.
    pub series: Vec<BarSeries>,
    /// A sentence under the chart.
    pub note: String,
}

/// The top of a bar chart's axis: a round number at or above `max`, and the tick step.
fn nice_max(max: f64) -> (f64, f64) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 0.2);
    }
    let step = nice_step(max, 5);
    ((max / step).ceil() * step, step)
}

/// Where a bar chart's parts go: its axis top, group and bar widths, and the baseline.
struct BarLayout {
    /// Value at the top of the axis.
    top: f64,
    /// Width of one category's group.
    group: f64,
    /// Width of one bar.
    bar: f64,
    /// Number of bars per group (at least 1).
    k: f64,
    /// Whether category labels are slanted (too long to fit their group).
    slanted: bool,
    /// Baseline y (the value 0).
    y0: f64,
}

impl BarLayout {
    /// The y of value `v`.
    fn py(&self, v: f64) -> f64 {
        self.y0 - v / self.top * (self.y0 - TOP)
    }
}

/// The largest finite value or interval top of all series (0 when none).
fn bars_max(b: &Bars) -> f64 {
    b.series
        .iter()
        .flat_map(|s| {
            s.values
                .iter()
                .flatten()
                .chain(s.errors.iter().flatten().map(|e| &e.1))
        })
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// Renders grouped bars as a `<figure>`.
pub fn bars(b: &Bars) -> String {
    let max = bars_max(b);
    let (top, step) = nice_max(max);
    let n = b.categories.len().max(1);
    let group = (WIDTH - LEFT - RIGHT) / n as f64;
    let longest = b
        .categories
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1) as f64
        * CHAR_W;
    let slanted = longest > group - 4.0;
    let bottom = if slanted { 24.0 + longest * 0.6 } else { 40.0 };
    let height = 220.0 + bottom;
    let y0 = height - bottom;
    let k = b.series.len().max(1) as f64;
    let bar = ((group - 8.0) / k).clamp(2.0, 48.0);
    let l = BarLayout {
        top,
        group,
        bar,
        k,
        slanted,
        y0,
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg viewBox="0 0 {WIDTH} {}" role="img" aria-label="{}">"#,
        c(height),
        esc(&b.title)
    );
    bar_grid(&mut svg, b, &l, step);
    for (ci, cat) in b.categories.iter().enumerate() {
        bar_group(&mut svg, b, &l, ci, cat);
    }
    let _ = writeln!(
        svg,
        r#"<path class="frame" d="M{} {}V{}H{}"/><text class="axis" transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        c(LEFT),
        c(TOP),
        c(y0),
        c(WIDTH - RIGHT),
        c((y0 + TOP) / 2.0),
        esc(&b.y_title)
    );
    svg.push_str("</svg>\n");
    let entries: Vec<LegendEntry> = if b.series.len() > 1 {
        b.series
            .iter()
            .map(|s| (s.name.clone(), s.colour, 0, Swatch::Block))
            .collect()
    } else {
        Vec::new()
    };
    figure(&b.title, &svg, &legend(&entries), &b.note)
}

/// Draws a bar chart's horizontal grid lines with their value labels, every `step`.
fn bar_grid(svg: &mut String, b: &Bars, l: &BarLayout, step: f64) {
    let ticks = (l.top / step).round() as usize;
    for i in 0..=ticks {
        let v = step * i as f64;
        let y = l.py(v);
        let _ = writeln!(
            svg,
            r#"<line class="grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/><text class="tick" x="{3}" y="{4}" text-anchor="end">{5}</text>"#,
            c(LEFT),
            c(y),
            c(WIDTH - RIGHT),
            c(LEFT - 5.0),
            c(y + 4.0),
            esc(&fmt(b.fmt, v))
        );
    }
}

/// Draws one category's group: a bar (and whisker) per series, then the category's label.
fn bar_group(svg: &mut String, b: &Bars, l: &BarLayout, ci: usize, cat: &str) {
    let (group, bar, k, y0) = (l.group, l.bar, l.k, l.y0);
    let gx = LEFT + group * ci as f64 + (group - bar * k) / 2.0;
    for (si, s) in b.series.iter().enumerate() {
        let Some(v) = s
            .values
            .get(ci)
            .copied()
            .flatten()
            .filter(|v| v.is_finite())
        else {
            continue;
        };
        let tip = s.tips.get(ci).map_or(String::new(), |t| esc(t));
        let _ = writeln!(
            svg,
            r#"<rect class="fill s{}" x="{}" y="{}" width="{}" height="{}"><title>{tip}</title></rect>"#,
            s.colour % super::svg::COLOURS,
            c(gx + bar * si as f64),
            c(l.py(v)),
            c(bar - 1.0),
            c(y0 - l.py(v))
        );
        if let Some((lo, hi)) = s.errors.get(ci).copied().flatten() {
            let x = gx + bar * si as f64 + (bar - 1.0) / 2.0;
            let _ = writeln!(
                svg,
                r#"<path class="frame" d="M{0} {1}V{2}M{3} {1}H{4}M{3} {2}H{4}"><title>{tip} (95 % interval)</title></path>"#,
                c(x),
                c(l.py(lo.max(0.0))),
                c(l.py(hi)),
                c(x - 3.0),
                c(x + 3.0)
            );
        }
    }
    let cx = LEFT + group * (ci as f64 + 0.5);
    if l.slanted {
        let _ = writeln!(
            svg,
            r#"<text class="tick" transform="translate({} {}) rotate(-35)" text-anchor="end">{}</text>"#,
            c(cx + 4.0),
            c(y0 + 12.0),
            esc(cat)
        );
    } else {
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            c(cx),
            c(y0 + 15.0),
            esc(cat)
        );
    }
}

/// A grid of coloured cells: rows down, columns across.
#[derive(Clone, Debug, Default)]
pub struct Heatmap {
    /// Caption.
    pub title: String,
    /// What the columns are (with unit).
    pub x_title: String,
    /// What the rows are.
    pub y_title: String,
    /// Column labels.
    pub columns: Vec<String>,
    /// Row labels.
    pub rows: Vec<String>,
    /// Value per row and column, with its hover text.
    pub cells: Vec<Vec<Option<(f64, String)>>>,
    /// How values print inside the cells.
    pub fmt: Fmt,
    /// A sentence under the chart.
    pub note: String,
}

/// Viridis-like colour for t in 0..=1 (dark blue → green → yellow), readable in both schemes.
pub fn ramp(t: f64) -> (u8, u8, u8) {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    } * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Where a heatmap's cells go and how they are coloured.
struct HeatLayout {
    /// Smallest finite cell value.
    lo: f64,
    /// Largest finite cell value.
    hi: f64,
    /// Largest minus smallest (1 when they are equal).
    span: f64,
    /// Cell width.
    cw: f64,
    /// Cell height.
    ch: f64,
    /// Left edge of the grid.
    x0: f64,
    /// Top edge of the grid.
    y0: f64,
}

/// Renders a heatmap as a `<figure>`: colour by value on a linear scale from the smallest to
/// the largest cell, the value printed in each cell, exact figures on hover.
pub fn heatmap(h: &Heatmap) -> String {
    let vals: Vec<f64> = h
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|c| c.0)
        .filter(|v| v.is_finite())
        .collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let nr = h.rows.len().max(1) as f64;
    let nc = h.columns.len().max(1) as f64;
    let cw = (WIDTH - LEFT - RIGHT) / nc;
    let ch = (cw * 0.55).clamp(18.0, 30.0);
    let height = TOP + 40.0 + ch * nr + 44.0;
    let x0 = LEFT;
    let y0 = TOP + 20.0;
    let l = HeatLayout {
        lo,
        hi,
        span,
        cw,
        ch,
        x0,
        y0,
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg viewBox="0 0 {WIDTH} {}" role="img" aria-label="{}">"#,
        c(height),
        esc(&h.title)
    );
    let _ = writeln!(
        svg,
        r#"<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>"#,
        c(x0 + (WIDTH - LEFT - RIGHT) / 2.0),
        c(TOP + 2.0),
        esc(&h.x_title)
    );
    for (ci, label) in h.columns.iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            c(x0 + cw * (ci as f64 + 0.5)),
            c(y0 - 5.0),
            esc(label)
        );
    }
    for (ri, label) in h.rows.iter().enumerate() {
        heat_row(&mut svg, h, &l, ri, label);
    }
    let _ = writeln!(
        svg,
        r#"<text class="axis" transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        c(y0 + ch * nr / 2.0),
        esc(&h.y_title)
    );
    heat_key(&mut svg, h, &l, nr, !vals.is_empty());
    svg.push_str("</svg>\n");
    figure(&h.title, &svg, "", &h.note)
}

/// Draws one heatmap row: its label, then a coloured cell per column with its value when it
/// fits and its hover text.
fn heat_row(svg: &mut String, h: &Heatmap, l: &HeatLayout, ri: usize, label: &str) {
    let (lo, span, cw, ch, x0, y0) = (l.lo, l.span, l.cw, l.ch, l.x0, l.y0);
    let fits = |s: &str| s.chars().count() as f64 * CHAR_W <= cw - 4.0;
    let y = y0 + ch * ri as f64;
    let _ = writeln!(
        svg,
        r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#,
        c(x0 - 5.0),
        c(y + ch / 2.0 + 4.0),
        esc(label)
    );
    for (ci, cell) in h.cells.get(ri).into_iter().flatten().enumerate() {
        let Some((v, tip)) = cell.as_ref().filter(|c| c.0.is_finite()) else {
            continue;
        };
        let (r, g, b) = ramp((v - lo) / span);
        let light = 0.299 * r as f64 + 0.587 * g as f64 + 0.114 * b as f64 > 140.0;
        let x = x0 + cw * ci as f64;
        let text = fmt(h.fmt, *v);
        let label = if fits(&text) {
            format!(
                r#"<text class="cell{}" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                if light { " dark" } else { "" },
                c(x + cw / 2.0),
                c(y + ch / 2.0 + 4.0),
                esc(&text)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            svg,
            "<g><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#{r:02x}{g:02x}{b:02x}\"/>{label}<title>{}</title></g>",
            c(x + 0.5),
            c(y + 0.5),
            c(cw - 1.0),
            c(ch - 1.0),
            esc(tip)
        );
    }
}

/// Draws the colour key under a heatmap's `nr` rows: ten steps, with the smallest and largest
/// value at its ends when any cell has one.
fn heat_key(svg: &mut String, h: &Heatmap, l: &HeatLayout, nr: f64, any_value: bool) {
    // Colour key under the grid: smallest value, ten steps, largest value.
    let ky = l.y0 + l.ch * nr + 14.0;
    let kw = 20.0;
    let kx = l.x0 + 52.0;
    for i in 0..10 {
        let (r, g, b) = ramp(i as f64 / 9.0);
        let _ = writeln!(
            svg,
            "<rect x=\"{}\" y=\"{}\" width=\"{kw}\" height=\"10\" fill=\"#{r:02x}{g:02x}{b:02x}\"/>",
            c(kx + kw * i as f64),
            c(ky)
        );
    }
    if any_value {
        let _ = writeln!(
            svg,
            r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text><text class="tick" x="{}" y="{}" text-anchor="start">{}</text>"#,
            c(kx - 4.0),
            c(ky + 9.0),
            esc(&fmt(h.fmt, l.lo)),
            c(kx + kw * 10.0 + 4.0),
            c(ky + 9.0),
            esc(&fmt(h.fmt, l.hi)),
        );
    }
}
