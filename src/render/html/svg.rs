//! A small SVG chart writer for the HTML report: lines and points on linear, log-2 and log-10
//! axes (with reference lines, labelled marks and stacked bands), grouped bars, and heatmaps.
//!
//! Why our own: the report must be one self-contained file that renders with JavaScript off
//! and prints, and its bytes must not change for the same input (snapshot tests pin them).
//! Every figure a reader may want to read exactly is on hover through an SVG `<title>`.
//! Colours come from CSS classes (`s0`…`s7`, dashes `d0`…`d3`) so that the page's light and
//! dark schemes restyle the charts; only heatmap cells carry their own fill.

pub use super::axis::{Axis, Fmt, Scale, fmt, si};
use super::axis::{Domain, domain};
use super::{c, esc};
use std::fmt::Write;

/// Width of every chart's drawing, SVG user units.
pub const WIDTH: f64 = 640.0;
/// Height of a plot's drawing.
pub const HEIGHT: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 18.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 46.0;
/// Series colours; a series' colour index wraps around.
pub const COLOURS: usize = 8;
/// Dash patterns (the first is solid); a series' dash index wraps around.
pub const DASHES: usize = 4;
/// Rough width of one character of tick text (11 px sans-serif), for spacing labels.
pub(super) const CHAR_W: f64 = 6.4;

/// One line (or set of points) on a plot.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Legend entry (empty: none).
    pub name: String,
    /// (x, y) in data units; points an axis cannot show are skipped.
    pub points: Vec<(f64, f64)>,
    /// Hover text per point; a point is drawn as a dot only when it has one (a fitted line's
    /// samples have none).
    pub tips: Vec<String>,
    /// Colour index.
    pub colour: usize,
    /// Dash index (0 = solid).
    pub dash: usize,
    /// Join the points with a line (else points only).
    pub line: bool,
}

impl Series {
    /// A solid line through `points` with a dot and hover text per point.
    pub fn line(
        name: impl Into<String>,
        points: Vec<(f64, f64)>,
        tips: Vec<String>,
        colour: usize,
    ) -> Self {
        Series {
            name: name.into(),
            points,
            tips,
            colour,
            dash: 0,
            line: true,
        }
    }
}

/// A labelled point drawn over the series (half-power, knee, plateau, off-line points).
#[derive(Clone, Debug)]
pub struct Mark {
    /// Position, data units.
    pub x: f64,
    /// Position, data units.
    pub y: f64,
    /// A letter or short word drawn beside it.
    pub label: String,
    /// Hover text.
    pub tip: String,
}

/// A horizontal reference line (e.g. half of the reference throughput).
#[derive(Clone, Debug)]
pub struct Rule {
    /// Height, data units.
    pub y: f64,
    /// Text at its right end.
    pub label: String,
}

/// A band between two curves, for stacked areas (service time under queue time).
#[derive(Clone, Debug, Default)]
pub struct Band {
    /// Legend entry.
    pub name: String,
    /// Colour index.
    pub colour: usize,
    /// x of each step.
    pub x: Vec<f64>,
    /// Lower edge per step.
    pub low: Vec<f64>,
    /// Upper edge per step.
    pub high: Vec<f64>,
}

/// A plot: axes, series, marks, rules and bands.
#[derive(Clone, Debug)]
pub struct Plot {
    /// Caption.
    pub title: String,
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// Lines and points.
    pub series: Vec<Series>,
    /// Labelled points.
    pub marks: Vec<Mark>,
    /// Reference lines.
    pub rules: Vec<Rule>,
    /// Stacked bands, drawn first.
    pub bands: Vec<Band>,
    /// Hover columns: (x, text) — a full-height strip per x that shows the text.
    pub columns: Vec<(f64, String)>,
    /// A sentence under the chart.
    pub note: String,
}

impl Plot {
    /// An empty plot on these axes.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        Plot {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            marks: Vec::new(),
            rules: Vec::new(),
            bands: Vec::new(),
            columns: Vec::new(),
            note: String::new(),
        }
    }
}

struct Frame {
    x: Domain,
    y: Domain,
    xa: Axis,
    ya: Axis,
}

impl Frame {
    fn px(&self, v: f64) -> f64 {
        let t = self.xa.t(v);
        LEFT + (t - self.x.lo) / (self.x.hi - self.x.lo) * (WIDTH - LEFT - RIGHT)
    }
    fn py(&self, v: f64) -> f64 {
        let t = self.ya.t(v);
        HEIGHT - BOTTOM - (t - self.y.lo) / (self.y.hi - self.y.lo) * (HEIGHT - TOP - BOTTOM)
    }
    fn ok(&self, x: f64, y: f64) -> bool {
        self.xa.drawable(x) && self.ya.drawable(y)
    }
}

/// Draws the frame: grid, ticks, tick labels and axis titles.
fn axes(out: &mut String, f: &Frame) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (HEIGHT - BOTTOM, TOP);
    let xspan = f.x.hi - f.x.lo;
    // Thin x labels that would collide.
    let widest =
        f.x.ticks
            .iter()
            .map(|t| t.1.chars().count())
            .max()
            .unwrap_or(1) as f64
            * CHAR_W
            + 6.0;
    let mut last_x = f64::NEG_INFINITY;
    for (t, label) in &f.x.ticks {
        let x = LEFT + (t - f.x.lo) / xspan * (x1 - x0);
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>"#,
            c(x),
            c(y0),
            c(y1)
        );
        if x - last_x >= widest {
            let _ = writeln!(
                out,
                r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                c(x),
                c(y0 + 15.0),
                esc(label)
            );
            last_x = x;
        }
    }
    let yspan = f.y.hi - f.y.lo;
    let mut last_y = f64::INFINITY;
    for (t, label) in &f.y.ticks {
        let y = y0 - (t - f.y.lo) / yspan * (y0 - y1);
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>"#,
            c(x0),
            c(y),
            c(x1)
        );
        if last_y - y >= 13.0 {
            let _ = writeln!(
                out,
                r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#,
                c(x0 - 5.0),
                c(y + 4.0),
                esc(label)
            );
            last_y = y;
        }
    }
    let _ = writeln!(
        out,
        r#"<path class="frame" d="M{} {}V{}H{}"/>"#,
        c(x0),
        c(y1),
        c(y0),
        c(x1)
    );
    let _ = writeln!(
        out,
        r#"<text class="axis" x="{}" y="{}" text-anchor="middle">{}</text>"#,
        c((x0 + x1) / 2.0),
        c(HEIGHT - 8.0),
        esc(&f.xa.title)
    );
    let _ = writeln!(
        out,
        r#"<text class="axis" transform="translate(14 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        c((y0 + y1) / 2.0),
        esc(&f.ya.title)
    );
}

fn svg_open(out: &mut String, height: f64, label: &str) {
    let _ = writeln!(
        out,
        r#"<svg viewBox="0 0 {} {}" role="img" aria-label="{}">"#,
        WIDTH,
        height,
        esc(label)
    );
}

/// How a legend entry's swatch is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swatch {
    /// A line segment (with the series' dash).
    Line,
    /// A dot (points without a line).
    Dot,
    /// A filled block (bars, bands).
    Block,
}

/// A legend entry: name, colour, dash, swatch.
pub type LegendEntry = (String, usize, usize, Swatch);

/// The HTML legend under a chart.
pub fn legend(entries: &[LegendEntry]) -> String {
    let mut out = String::new();
    let named: Vec<_> = entries.iter().filter(|e| !e.0.is_empty()).collect();
    if named.is_empty() {
        return out;
    }
    out.push_str("<ul class=\"legend\">");
    for (name, colour, dash, swatch) in named {
        let (colour, dash) = (colour % COLOURS, dash % DASHES);
        let sw = match swatch {
            Swatch::Line => {
                format!(r#"<line class="line s{colour} d{dash}" x1="1" y1="6" x2="23" y2="6"/>"#)
            }
            Swatch::Dot => format!(r#"<circle class="dot s{colour}" cx="12" cy="6" r="4"/>"#),
            Swatch::Block => {
                format!(r#"<rect class="fill s{colour}" x="4" y="1" width="16" height="10"/>"#)
            }
        };
        let _ = write!(
            out,
            r#"<li><svg class="sw" viewBox="0 0 24 12" width="24" height="12">{sw}</svg>{}</li>"#,
            esc(name)
        );
    }
    out.push_str("</ul>\n");
    out
}

/// Wraps a chart's SVG, legend and note in a `<figure>` with its caption.
pub(super) fn figure(title: &str, svg: &str, legend: &str, note: &str) -> String {
    let note = if note.is_empty() {
        String::new()
    } else {
        format!("<p class=\"note\">{}</p>\n", esc(note))
    };
    format!(
        "<figure class=\"chart\">\n<figcaption>{}</figcaption>\n{svg}{legend}{note}</figure>\n",
        esc(title)
    )
}

/// Whether any series, band, mark or rule has a point both axes can show.
fn has_data(p: &Plot) -> bool {
    p.series.iter().any(|s| {
        s.points
            .iter()
            .any(|&(x, y)| p.x.drawable(x) && p.y.drawable(y))
    }) || p.bands.iter().any(|b| {
        b.x.iter()
            .zip(&b.high)
            .any(|(&x, &y)| p.x.drawable(x) && p.y.drawable(y))
    })
}

fn no_data(title: &str, note: &str) -> String {
    let mut svg = String::new();
    svg_open(&mut svg, 60.0, title);
    let _ = writeln!(
        svg,
        r#"<text class="axis" x="{}" y="34" text-anchor="middle">no data to draw</text>"#,
        c(WIDTH / 2.0)
    );
    svg.push_str("</svg>\n");
    figure(title, &svg, "", note)
}

/// The frame a plot is drawn in: domains fitted to every drawable point, band, mark and rule.
fn plot_frame(p: &Plot) -> Frame {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for s in &p.series {
        for &(x, y) in &s.points {
            if p.x.drawable(x) && p.y.drawable(y) {
                xs.push(x);
                ys.push(y);
            }
        }
    }
    for b in &p.bands {
        xs.extend(&b.x);
        ys.extend(b.low.iter().chain(&b.high));
    }
    xs.extend(p.marks.iter().map(|m| m.x));
    ys.extend(p.marks.iter().map(|m| m.y));
    ys.extend(p.rules.iter().map(|r| r.y));
    Frame {
        x: domain(&p.x, &xs),
        y: domain(&p.y, &ys),
        xa: p.x.clone(),
        ya: p.y.clone(),
    }
}

/// Draws the stacked bands: an area per band, or a short bar when it has one step.
fn draw_bands(svg: &mut String, p: &Plot, f: &Frame) {
    for b in &p.bands {
        let pts: Vec<(f64, f64, f64)> = (0..b.x.len().min(b.low.len()).min(b.high.len()))
            .map(|i| (b.x[i], b.low[i], b.high[i]))
            .filter(|&(x, l, h)| {
                f.ok(x, h) && (p.y.scale == Scale::Linear || l > 0.0) && l.is_finite()
            })
            .collect();
        if let [(x, l, h)] = pts.as_slice() {
            // One step: a short bar from low to high.
            let (top, bottom) = (f.py(*h), f.py(*l));
            let _ = writeln!(
                svg,
                r#"<rect class="band s{}" x="{}" y="{}" width="14" height="{}"><title>{}</title></rect>"#,
                b.colour % COLOURS,
                c(f.px(*x) - 7.0),
                c(top),
                c((bottom - top).max(0.0)),
                esc(&b.name)
            );
            continue;
        }
        if pts.len() < 2 {
            continue;
        }
        let mut d = String::new();
        for (i, (x, _, h)) in pts.iter().enumerate() {
            let _ = write!(
                d,
                "{}{} {}",
                if i == 0 { "M" } else { "L" },
                c(f.px(*x)),
                c(f.py(*h))
            );
        }
        for (x, l, _) in pts.iter().rev() {
            let _ = write!(d, "L{} {}", c(f.px(*x)), c(f.py(*l)));
        }
        let _ = writeln!(
            svg,
            r#"<path class="band s{}" d="{d}Z"><title>{}</title></path>"#,
            b.colour % COLOURS,
            esc(&b.name)
        );
    }
}

/// Draws the horizontal reference lines with their labels.
fn draw_rules(svg: &mut String, p: &Plot, f: &Frame) {
    for r in &p.rules {
        if !p.y.drawable(r.y) {
            continue;
        }
        let y = f.py(r.y);
        let _ = writeln!(
            svg,
            r#"<line class="rule" x1="{0}" y1="{2}" x2="{1}" y2="{2}"><title>{3}</title></line>"#,
            c(LEFT),
            c(WIDTH - RIGHT),
            c(y),
            esc(&r.label)
        );
        let _ = writeln!(
            svg,
            r#"<text class="rulelabel" x="{}" y="{}" text-anchor="end">{}</text>"#,
            c(WIDTH - RIGHT - 4.0),
            c(y - 4.0),
            esc(&r.label)
        );
    }
}

/// Draws each series as a group: its line (if joined) and a dot per point with hover text.
fn draw_series(svg: &mut String, p: &Plot, f: &Frame) {
    for s in &p.series {
        let pts: Vec<(usize, f64, f64)> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, (x, y))| f.ok(*x, *y))
            .map(|(i, &(x, y))| (i, f.px(x), f.py(y)))
            .collect();
        let cls = format!("s{} d{}", s.colour % COLOURS, s.dash % DASHES);
        let _ = writeln!(svg, r#"<g class="series"><title>{}</title>"#, esc(&s.name));
        if s.line && pts.len() > 1 {
            let mut d = String::new();
            for (k, (_, x, y)) in pts.iter().enumerate() {
                let _ = write!(d, "{}{} {}", if k == 0 { "M" } else { "L" }, c(*x), c(*y));
            }
            let _ = writeln!(svg, r#"<path class="line {cls}" d="{d}"/>"#);
        }
        for (i, x, y) in &pts {
            let Some(tip) = s.tips.get(*i).map(|t| esc(t)) else {
                continue;
            };
            let _ = writeln!(
                svg,
                r#"<circle class="dot s{}" cx="{}" cy="{}" r="3"><title>{tip}</title></circle>"#,
                s.colour % COLOURS,
                c(*x),
                c(*y)
            );
        }
        svg.push_str("</g>\n");
    }
}

/// Draws the labelled marks that both axes can show.
fn draw_marks(svg: &mut String, p: &Plot, f: &Frame) {
    let marks: Vec<(f64, f64, &str, &str)> = p
        .marks
        .iter()
        .filter(|m| f.ok(m.x, m.y))
        .map(|m| (f.px(m.x), f.py(m.y), m.label.as_str(), m.tip.as_str()))
        .collect();
    super::marks::draw(svg, &marks, (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM));
}

/// Draws the full-height hover strips, one per column.
fn draw_columns(svg: &mut String, p: &Plot, f: &Frame) {
    let w = (WIDTH - LEFT - RIGHT) / p.columns.len().max(1) as f64;
    for (x, tip) in &p.columns {
        if !p.x.drawable(*x) {
            continue;
        }
        let _ = writeln!(
            svg,
            r#"<rect class="hit" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>"#,
            c(f.px(*x) - w / 2.0),
            c(TOP),
            c(w),
            c(HEIGHT - TOP - BOTTOM),
            esc(tip)
        );
    }
}

/// The legend entries of a plot: its bands (blocks), then its series (lines or dots).
fn plot_legend(p: &Plot) -> Vec<LegendEntry> {
    let mut entries: Vec<LegendEntry> = p
        .bands
        .iter()
        .map(|b| (b.name.clone(), b.colour, 0, Swatch::Block))
        .collect();
    entries.extend(p.series.iter().map(|s| {
        let swatch = if s.line { Swatch::Line } else { Swatch::Dot };
        (s.name.clone(), s.colour, s.dash, swatch)
    }));
    entries
}

/// Renders a plot as a `<figure>` with its SVG, legend and note.
pub fn plot(p: &Plot) -> String {
    if !has_data(p) {
        return no_data(&p.title, &p.note);
    }
    let f = plot_frame(p);
    let mut svg = String::new();
    svg_open(&mut svg, HEIGHT, &p.title);
    axes(&mut svg, &f);
    draw_bands(&mut svg, p, &f);
    draw_rules(&mut svg, p, &f);
    draw_series(&mut svg, p, &f);
    draw_marks(&mut svg, p, &f);
    draw_columns(&mut svg, p, &f);
    svg.push_str("</svg>\n");
    figure(&p.title, &svg, &legend(&plot_legend(p)), &p.note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_an_axis_cannot_show_are_left_out_never_drawn_as_nan() {
        let mut p = Plot::new(
            "t",
            Axis::new("x", Scale::Log2, Fmt::Plain),
            Axis::new("y", Scale::Log10, Fmt::Micros),
        );
        p.series.push(Series {
            name: "s".into(),
            points: vec![
                (0.0, 1.0),
                (1.0, f64::NAN),
                (2.0, 10.0),
                (4.0, -3.0),
                (8.0, 100.0),
            ],
            tips: vec!["a".into(); 5],
            line: true,
            ..Series::default()
        });
        let svg = plot(&p);
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        assert_eq!(svg.matches("<circle class=\"dot").count(), 2);
        assert!(svg.contains("<path class=\"line"));
    }

    #[test]
    fn an_empty_plot_says_so_instead_of_drawing_empty_paths() {
        let p = Plot::new(
            "empty",
            Axis::new("x", Scale::Linear, Fmt::Plain),
            Axis::new("y", Scale::Linear, Fmt::Plain),
        );
        let svg = plot(&p);
        assert!(svg.contains("no data to draw"));
        assert!(!svg.contains("<path"));
    }

    #[test]
    fn marks_on_one_spot_share_a_ring() {
        let mut p = Plot::new(
            "m",
            Axis::new("x", Scale::Linear, Fmt::Plain),
            Axis::new("y", Scale::Linear, Fmt::Plain),
        );
        p.series.push(Series {
            points: vec![(1.0, 1.0), (2.0, 2.0)],
            line: true,
            ..Series::default()
        });
        for label in ["H", "K"] {
            p.marks.push(Mark {
                x: 2.0,
                y: 2.0,
                label: label.into(),
                tip: label.into(),
            });
        }
        let svg = plot(&p);
        assert_eq!(svg.matches("<g class=\"mark\">").count(), 1);
        assert!(svg.contains(">HK</text>"));
    }
}
