//! The sweep on a terminal: per rw mode a request size × queue depth matrix of MB/s with IOPS
//! and p99 beneath, shaded like a heatmap on a colour terminal, with the best, plateau,
//! half-power and knee cells marked, then the verdict in words.

use crate::analysis::sweep::HALF_POWER_SHARE;
use crate::model::policy::LimitReach;
use crate::model::sweep::{Analysis, Support};
use crate::model::sweep::{Point, SweepReport};
use crate::model::warning::Conclusion;
use crate::plan::RwMode;
use crate::units::{ByteSize, fmt_latency_ns};
use std::fmt::Write;

const CELL: usize = 20;

/// What the marks in a cell mean, printed under every matrix.
pub const LEGEND: &str = "* best   P plateau (within 5 % of the best)   H half-power along request \
size (per QD)   h half-power along queue depth (per size)   K knee along request size   k knee \
along queue depth";

fn count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// The marks of the cell (bs, qd) in analysis `a`.
pub fn marks(a: &Analysis, bs: u64, qd: u32) -> String {
    let mut m = String::new();
    let cell = |c: &crate::model::sweep::Cell| c.qd == qd && c.bs_bytes == Some(bs);
    let dcell = |c: &crate::model::sweep::DepthCell| c.bs_bytes == bs && c.qd == Some(qd);
    if cell(&a.best) {
        m.push('*');
    }
    if a.plateau.iter().any(cell) {
        m.push('P');
    }
    if a.half_power.iter().any(cell) {
        m.push('H');
    }
    if a.half_power_qd.iter().any(dcell) {
        m.push('h');
    }
    if a.knee.iter().any(cell) {
        m.push('K');
    }
    if a.knee_qd.iter().any(dcell) {
        m.push('k');
    }
    m
}

/// A 256-colour background for a share of the peak: dark blue (little) to yellow (the peak).
fn shade(share: f64) -> String {
    const RAMP: [u8; 10] = [17, 18, 19, 25, 31, 37, 43, 78, 148, 226];
    let i = ((share.clamp(0.0, 1.0) * (RAMP.len() - 1) as f64).round()) as usize;
    let fg = if i >= 6 { 16 } else { 255 };
    format!("\x1b[48;5;{};38;5;{fg}m", RAMP[i])
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    out + &line + "\n"
}

/// One group's matrix.
fn matrix(out: &mut String, a: &Analysis, points: &[&Point], colour: bool) {
    let mut sizes: Vec<u64> = points.iter().map(|p| p.bs_bytes).collect();
    sizes.sort();
    sizes.dedup();
    let mut depths: Vec<u32> = points.iter().map(|p| p.qd).collect();
    depths.sort();
    depths.dedup();
    let threads = if a.threads > 1 {
        format!(", {} threads", a.threads)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{}{threads}: MB/s, then IOPS and p99, by request size (down) and queue depth (across)",
        a.rw
    );
    // Each depth's name ends where its figures end (10 wide), not over their marks.
    let mut head = format!("{:>6}", "");
    for qd in &depths {
        let _ = write!(head, " {:>10}{:w$}", format!("QD{qd}"), "", w = CELL - 11);
    }
    let _ = writeln!(out, "{}", head.trim_end());
    for &bs in &sizes {
        let mut top = format!("{:>6}", ByteSize(bs).to_string());
        let mut bottom = format!("{:>6}", "");
        for &qd in &depths {
            let p = points.iter().find(|p| p.bs_bytes == bs && p.qd == qd);
            let (t, b) = match p {
                Some(p) => {
                    let m = marks(a, bs, qd);
                    let p99 = p
                        .latency_us
                        .as_ref()
                        .map_or("-".into(), |l| fmt_latency_ns(l.p99 * 1000.0));
                    (
                        format!("{:>10.1} {m:<6}", p.bytes_per_s / 1e6),
                        format!("{:>10} {p99:<7}", count(p.iops)),
                    )
                }
                None => (format!("{:>10} {:6}", "-", ""), format!("{:>18}", "")),
            };
            let share = p.map_or(0.0, |p| {
                if a.peak_bytes_per_s > 0.0 {
                    p.bytes_per_s / a.peak_bytes_per_s
                } else {
                    0.0
                }
            });
            if colour && p.is_some() {
                let (c, r) = (shade(share), "\x1b[0m");
                let _ = write!(top, " {c}{t:<w$}{r}", w = CELL - 1);
                let _ = write!(bottom, " {c}{b:<w$}{r}", w = CELL - 1);
            } else {
                let _ = write!(top, " {t:<w$}", w = CELL - 1);
                let _ = write!(bottom, " {b:<w$}", w = CELL - 1);
            }
        }
        let _ = writeln!(out, "{}", top.trim_end());
        let _ = writeln!(out, "{}", bottom.trim_end());
    }
    out.push_str(&wrap(&verdict(a), 100));
    for c in caveats(a) {
        out.push_str(&wrap(&format!("caveat: {c}"), 100));
    }
    out.push('\n');
}

/// What the conclusions of `a` are worth, one sentence per conclusion that does not stand as
/// stated (`analysis::sweep::caveats`). Empty when every conclusion is firm.
pub fn caveats(a: &Analysis) -> Vec<String> {
    crate::analysis::sweep::caveats(a)
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// One conclusion's caveat: resting on points that never reached steady state, or on
/// intervals too wide to decide it (`rap_pap`, with the peak only, is said with it).
pub fn caveat(
    rw: RwMode,
    threads: u32,
    conclusion: Conclusion,
    rap_pap: Option<f64>,
    s: &Support,
) -> String {
    let group = if threads > 1 {
        format!("{rw} with {threads} threads")
    } else {
        rw.to_string()
    };
    // The verb agrees with its subject: "the peak rests", "the knees rest".
    let (what, rest, decides) = match (conclusion, rap_pap) {
        (Conclusion::Peak, Some(r)) => (
            format!("the peak and real/advertised = {r:.2}"),
            "rest",
            "the plateau's 5 %",
        ),
        (Conclusion::Peak, None) => ("the peak".to_string(), "rests", "the plateau's 5 %"),
        (Conclusion::HalfPower, _) => (
            "the half-power points".to_string(),
            "rest",
            "which point first reaches half",
        ),
        (Conclusion::Knee, _) => (
            "the knees".to_string(),
            "rest",
            "whether a doubling adds 10 %",
        ),
    };
    let ci = s.ci95_pct_max.map_or(String::new(), |c| {
        format!(" (95 % intervals up to ±{c:.0} %)")
    });
    let on = match s.points {
        1 => "1 point".to_string(),
        n => format!("{n} points"),
    };
    let never = match (s.points, s.unsteady) {
        (1, _) => "it never reached steady state".to_string(),
        (n, u) if n == u => "none of them reached steady state".to_string(),
        (_, u) => format!("{u} of them never reached steady state"),
    };
    if s.unsteady > 0 {
        format!(
            "{group}: {what} {rest} on {on}, and {never}{ci}; read them as rough, not \
             measured: run the points longer (--time) or with a looser --steady"
        )
    } else {
        format!(
            "{group}: {what} {rest} on {on} whose intervals{ci} cannot decide {decides}; \
             measure longer or repeat (--repeat)"
        )
    }
}

fn mb(bytes_per_s: f64) -> String {
    let v = bytes_per_s / 1e6;
    if v >= 100.0 {
        format!("{v:.0} MB/s")
    } else {
        format!("{v:.1} MB/s")
    }
}

fn size(bs: u64) -> String {
    ByteSize(bs).to_string()
}

/// A point as the limits' lines name it: "randread 4k QD8", with "×2 threads" past one.
fn point_label(p: &Point) -> String {
    let threads = if p.threads > 1 {
        format!(" ×{} threads", p.threads)
    } else {
        String::new()
    };
    format!("{} {} QD{}{threads}", p.rw, size(p.bs_bytes), p.qd)
}

/// Lists (axis value, mark) pairs with runs of equal marks folded: "QD4 at 16k–64k".
fn grouped<A: Copy + AxisLabel, M: Copy + PartialEq>(
    pairs: &[(A, M)],
    say: impl Fn(M, String) -> String,
) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < pairs.len() {
        let mut j = i;
        while j + 1 < pairs.len() && pairs[j + 1].1 == pairs[i].1 {
            j += 1;
        }
        let span = if i == j {
            pairs[i].0.label()
        } else {
            format!("{}–{}", pairs[i].0.label(), pairs[j].0.label())
        };
        parts.push(say(pairs[i].1, span));
        i = j + 1;
    }
    parts.join(", ")
}

/// How an axis value is written in the verdict.
trait AxisLabel {
    fn label(&self) -> String;
}

impl AxisLabel for u64 {
    fn label(&self) -> String {
        size(*self)
    }
}

impl AxisLabel for u32 {
    fn label(&self) -> String {
        format!("QD{self}")
    }
}

/// The analysis in words: peak, where half of it is reached, where more stops paying.
pub fn verdict(a: &Analysis) -> String {
    let threads = if a.threads > 1 {
        format!(" with {} threads", a.threads)
    } else {
        String::new()
    };
    let best_bs = a.best.bs_bytes.map_or(String::new(), size);
    let mut s = format!(
        "{}{threads} peaks at {} ({} × QD{}{}).",
        a.rw,
        mb(a.peak_bytes_per_s),
        best_bs,
        a.best.qd,
        match a.plateau.len() {
            1 => String::new(),
            n => format!(", {} points within 5 %", n),
        }
    );
    let what = match a.pap_bytes_per_s {
        Some(p) => format!(
            "half of the advertised {} ({}; real/advertised = {:.2})",
            mb(p),
            mb(p * HALF_POWER_SHARE),
            a.rap_pap.unwrap_or(0.0)
        ),
        None => format!("half of the peak ({})", mb(a.reference_bytes_per_s * 0.5)),
    };
    // Only the depths where half power comes at a smaller size than at any shallower depth.
    let mut smallest = u64::MAX;
    let reached: Vec<String> = a
        .half_power
        .iter()
        .filter_map(|c| {
            let bs = c.bs_bytes.filter(|&bs| bs < smallest)?;
            smallest = bs;
            Some(format!("{} with QD{}", size(bs), c.qd))
        })
        .collect();
    if reached.is_empty() {
        s += &format!(" No point reaches {what}.");
    } else {
        s += &format!(" It reaches {what} at {}.", reached.join(" or "));
    }
    let depth_knees: Vec<(u64, u32)> = a
        .knee_qd
        .iter()
        .filter_map(|k| k.qd.map(|qd| (k.bs_bytes, qd)))
        .collect();
    if !depth_knees.is_empty() {
        let at = grouped(&depth_knees, |qd, sizes| format!("QD{qd} at {sizes}"));
        // A claim about latency needs the latency: CSV input may have no p99.
        s += &if a.latency_known {
            format!(" More depth only adds latency beyond {at}.")
        } else {
            format!(
                " More depth adds less than 10 % per doubling beyond {at} (the input has no \
                 p99, so what it does to latency is not known)."
            )
        };
    }
    let size_knees: Vec<(u32, u64)> = a
        .knee
        .iter()
        .filter_map(|k| k.bs_bytes.map(|bs| (k.qd, bs)))
        .collect();
    if !size_knees.is_empty() {
        s += &format!(
            " Larger requests add less than 10 % per doubling beyond {}.",
            grouped(&size_knees, |bs, depths| format!(
                "{} at {depths}",
                size(bs)
            ))
        );
    }
    s
}

/// The PAP's component when it is the path's: how far the peak got towards it.
pub fn pap_sentence(r: &SweepReport, a: &Analysis) -> Option<String> {
    let (Some(src), Some(ratio), Some(pap)) = (&r.pap_source, a.rap_pap, a.pap_bytes_per_s) else {
        return None;
    };
    (src.from == crate::model::path::PapFrom::Path).then(|| {
        format!(
            "The advertised peak ({}) is {}: {} reached {:.0} % of it.",
            mb(pap),
            super::path::pap_source(src),
            a.rw,
            ratio * 100.0
        )
    })
}

fn pap_line(r: &SweepReport, a: &Analysis) -> String {
    pap_sentence(r, a).map_or(String::new(), |t| wrap(&t, 100))
}

/// Renders a sweep: one matrix per analysed group, the legend once.
pub fn sweep_table(r: &SweepReport, colour: bool) -> String {
    let mut out = String::new();
    for a in &r.analysis {
        let pts: Vec<&Point> = r
            .points
            .iter()
            .filter(|p| p.rw == a.rw && p.threads == a.threads)
            .collect();
        matrix(&mut out, a, &pts, colour);
        out.push_str(&pap_line(r, a));
    }
    if r.analysis.is_empty() {
        out.push_str("no points measured\n");
    } else {
        out.push_str(&wrap(LEGEND, 100));
    }
    let limited: Vec<(String, &[LimitReach])> = r
        .points
        .iter()
        .filter_map(|p| Some((point_label(p), p.results.as_ref()?.limits.as_slice())))
        .collect();
    super::policy::binding_lines(&mut out, &limited);
    if r.interrupted {
        out.push_str("interrupted: the matrix holds the points measured before Ctrl-C\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each depth's name sits over its figures: its last character in the column of theirs.
    #[test]
    fn depth_names_end_over_their_figures() {
        let pts = [
            point(4096, 1, 10.0),
            point(4096, 8, 40.0),
            point(65536, 1, 30.0),
            point(65536, 8, 90.0),
        ];
        let a = analyse(&pts, None).remove(0);
        let refs: Vec<&Point> = pts.iter().collect();
        let mut out = String::new();
        matrix(&mut out, &a, &refs, false);
        let lines: Vec<&str> = out.lines().collect();
        let end = |line: &str, word: &str| line.find(word).map(|i| i + word.len());
        let (head, row) = (lines[1], lines[2]);
        assert_eq!(end(head, "QD1"), end(row, "10.0"), "{out}");
        assert_eq!(end(head, "QD8"), end(row, "40.0"), "{out}");
    }
    use crate::analysis::sweep::analyse_points as analyse;
    use crate::model::sweep::{Cell, DepthCell, LatencyBrief, Support};
    use crate::model::{Header, Kind};
    use crate::plan::RwMode;

    fn point(bs: u64, qd: u32, mb: f64) -> Point {
        Point {
            rw: RwMode::Randread,
            bs_bytes: bs,
            qd,
            threads: 1,
            iops: mb * 1e6 / bs as f64,
            bytes_per_s: mb * 1e6,
            latency_us: Some(LatencyBrief {
                p50: 100.0,
                p99: 100.0 * qd as f64,
                max: 1000.0,
            }),
            cpu_us_per_io: None,
            steady: None,
            seconds: Some(1.0),
            ci95_pct: None,
            engine: None,
            workload: None,
            results: None,
            repeat: None,
        }
    }

    #[test]
    fn matrix_marks_and_shades_cells() {
        let points = vec![
            point(4096, 1, 40.0),
            point(4096, 4, 150.0),
            point(65536, 1, 300.0),
            point(65536, 4, 310.0),
        ];
        let r = SweepReport {
            header: Header::new(Kind::Sweep, vec![], String::new()),
            host: None,
            targets: vec![],
            source: None,
            steady_pct: None,
            steady_pts: false,
            pap_bytes_per_s: None,
            pap_source: None,
            analysis: analyse(&points, None),
            points,
            interrupted: false,
            warnings: vec![],
        };
        let plain = sweep_table(&r, false);
        assert!(!plain.contains("\x1b["));
        // Half of the 305 MB/s plateau is 152.5: 4k × QD4 (150) falls just short. 64k × QD4
        // is the best; 64k × QD1 is on the plateau, half-power along both axes, and the knee
        // along depth (QD4 adds 3 % while p99 quadruples).
        let row = plain
            .lines()
            .find(|l| l.trim_start().starts_with("64k"))
            .unwrap();
        assert!(row.contains("310.0 *PH"), "{plain}");
        assert!(row.contains("300.0 PHhk"), "{plain}");
        assert!(plain.contains("half-power along request size"));
        let coloured = sweep_table(&r, true);
        assert_eq!(
            coloured.matches("\x1b[48;5;").count(),
            8,
            "two lines per cell"
        );
        assert!(
            coloured.contains("\x1b[48;5;226"),
            "the peak in the brightest shade"
        );
    }

    fn cell(qd: u32, kib: u64) -> Cell {
        Cell {
            qd,
            bs_bytes: Some(kib * 1024),
        }
    }

    fn depth(kib: u64, qd: Option<u32>) -> DepthCell {
        DepthCell {
            bs_bytes: kib * 1024,
            qd,
        }
    }

    fn analysed() -> Analysis {
        Analysis {
            rw: RwMode::Randread,
            threads: 1,
            peak_bytes_per_s: 498e6,
            best: cell(4, 64),
            plateau: vec![cell(4, 64), cell(16, 64)],
            reference_bytes_per_s: 498e6,
            pap_bytes_per_s: None,
            rap_pap: None,
            // QD16 reaches half at no smaller size than QD4: not said.
            half_power: vec![cell(1, 64), cell(4, 16), cell(16, 16)],
            half_power_qd: vec![],
            knee: vec![cell(1, 256), cell(4, 64), cell(16, 64)],
            knee_qd: vec![
                depth(4, Some(16)),
                depth(16, Some(4)),
                depth(64, Some(4)),
                depth(256, None),
            ],
            latency_known: true,
            peak_support: Support::default(),
            half_power_support: Support::default(),
            knee_support: Support::default(),
        }
    }

    /// A caveat's verb agrees with its subject: the peak rests, the knees rest (issue 37).
    #[test]
    fn caveats_agree_in_number() {
        let unsteady = Support {
            points: 1,
            unsteady: 1,
            ci95_pct_max: None,
            uncertain: true,
        };
        let a = Analysis {
            peak_support: unsteady.clone(),
            knee_support: unsteady,
            ..analysed()
        };
        let c = caveats(&a);
        assert!(
            c[0].starts_with("randread: the peak rests on 1 point,"),
            "{c:?}"
        );
        assert!(
            c[1].starts_with("randread: the knees rest on 1 point,"),
            "{c:?}"
        );
    }

    /// The verdict words the analysis: peak and plateau, the half-power points, the knees
    /// along depth and along size with equal marks folded.
    #[test]
    fn the_verdict_words_peak_half_power_and_knees() {
        assert_eq!(
            verdict(&analysed()),
            "randread peaks at 498 MB/s (64k × QD4, 2 points within 5 %). It reaches half of \
             the peak (249 MB/s) at 64k with QD1 or 16k with QD4. More depth only adds latency \
             beyond QD16 at 4k, QD4 at 16k–64k. Larger requests add less than 10 % per \
             doubling beyond 256k at QD1, 64k at QD4–QD16."
        );
    }

    /// Against an advertised figure no point reaches, with threads, and without p99: nothing
    /// is said of latency.
    #[test]
    fn the_verdict_against_an_advertised_peak_without_p99() {
        let a = Analysis {
            rw: RwMode::Write,
            threads: 2,
            peak_bytes_per_s: 6.4e6,
            best: cell(1, 1024),
            plateau: vec![cell(1, 1024)],
            reference_bytes_per_s: 9e6,
            pap_bytes_per_s: Some(9e6),
            rap_pap: Some(0.71),
            half_power: vec![Cell {
                qd: 1,
                bs_bytes: None,
            }],
            knee: vec![],
            knee_qd: vec![depth(4, Some(1))],
            latency_known: false,
            ..analysed()
        };
        assert_eq!(
            verdict(&a),
            "write with 2 threads peaks at 6.4 MB/s (1m × QD1). No point reaches half of the \
             advertised 9.0 MB/s (4.5 MB/s; real/advertised = 0.71). More depth adds less than \
             10 % per doubling beyond QD1 at 4k (the input has no p99, so what it does to \
             latency is not known)."
        );
    }
}
