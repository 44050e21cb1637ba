//! Labelled marks on a plot (H, K, P, *, off): marks closer than a ring's width share one
//! ring, and each ring's letters go where they overlap no other letters, inside the plot.

use super::{c, esc};
use std::fmt::Write;

/// Rings closer than this (SVG units) are one ring.
const MERGE: f64 = 6.0;
/// Width of one letter at the marks' 12 px bold, and the label height.
const LETTER_W: f64 = 8.0;
const LABEL_H: f64 = 13.0;

/// A label's box: left, top, right, bottom.
type Box4 = (f64, f64, f64, f64);

fn overlaps(a: Box4, b: Box4) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Draws marks given in SVG coordinates as (x, y, letters, hover text) inside `area`
/// (left, top, right, bottom).
pub fn draw(out: &mut String, marks: &[(f64, f64, &str, &str)], area: Box4) {
    // Merge marks on (nearly) one spot: a half-power point that is also the knee.
    let mut spots: Vec<(f64, f64, Vec<&str>, Vec<&str>)> = Vec::new();
    for &(x, y, label, tip) in marks {
        match spots
            .iter_mut()
            .find(|s| (s.0 - x).abs() < MERGE && (s.1 - y).abs() < MERGE)
        {
            Some(s) => {
                if !s.2.contains(&label) {
                    s.2.push(label);
                }
                s.3.push(tip);
            }
            None => spots.push((x, y, vec![label], vec![tip])),
        }
    }
    let mut placed: Vec<Box4> = Vec::new();
    for (x, y, labels, tips) in &spots {
        let text = labels.join("");
        let w = text.chars().count() as f64 * LETTER_W;
        // Candidate places around the ring, nearest first, then further up and down.
        let mut candidates: Vec<(f64, f64)> = Vec::new();
        for dy in [-8.0, 17.0, -21.0, 30.0, -34.0, 43.0] {
            candidates.push((x + 8.0, y + dy));
            candidates.push((x - 8.0 - w, y + dy));
        }
        let fits = |(lx, by): (f64, f64)| {
            let b = (lx, by - LABEL_H + 2.0, lx + w, by + 2.0);
            let inside =
                b.0 >= area.0 && b.2 <= area.2 + 14.0 && b.1 >= area.1 - 12.0 && b.3 <= area.3;
            inside && !placed.iter().any(|p| overlaps(*p, b))
        };
        let (lx, by) = candidates
            .iter()
            .copied()
            .find(|&p| fits(p))
            .unwrap_or(candidates[0]);
        placed.push((lx, by - LABEL_H + 2.0, lx + w, by + 2.0));
        let _ = writeln!(
            out,
            r#"<g class="mark"><circle cx="{}" cy="{}" r="7"/><text x="{}" y="{}">{}</text><title>{}</title></g>"#,
            c(*x),
            c(*y),
            c(lx),
            c(by),
            esc(&text),
            esc(&tips.join("\n"))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_marks_share_a_ring_and_labels_do_not_overlap() {
        let mut out = String::new();
        let marks = [
            (100.0, 100.0, "H", "a"),
            (102.0, 101.0, "K", "b"),
            (100.0, 112.0, "P", "c"),
            (100.0, 124.0, "*", "d"),
        ];
        draw(&mut out, &marks, (0.0, 0.0, 640.0, 300.0));
        assert_eq!(out.matches("<g class=\"mark\">").count(), 3);
        assert!(out.contains(">HK</text>"));
        let attr = |t: &str, k: &str| -> f64 {
            let a = t.find(&format!("{k}=\"")).unwrap() + k.len() + 2;
            t[a..a + t[a..].find('"').unwrap()].parse().unwrap()
        };
        let boxes: Vec<Box4> = out
            .lines()
            .filter(|l| l.contains("<text"))
            .map(|l| {
                let t = &l[l.find("<text").unwrap()..];
                let (x, y) = (attr(t, "x"), attr(t, "y"));
                (x, y - LABEL_H + 2.0, x + 2.0 * LETTER_W, y + 2.0)
            })
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} {b:?}\n{out}");
            }
        }
    }
}
