//! Axes: how values map to the page (linear, log 2, log 10), where the ticks go, and how
//! numbers print on ticks and in hover text (k/M for thousands, request sizes as 4k/1m,
//! latencies with their unit).

use crate::units::{ByteSize, fmt_latency_ns};

/// How an axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Even steps; starts at 0 unless the data go below it.
    Linear,
    /// Powers of two evenly spaced (request sizes, queue depths); values ≤ 0 are not drawn.
    Log2,
    /// Decades evenly spaced (latencies); values ≤ 0 are not drawn.
    Log10,
}

/// How tick labels and hover figures print a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fmt {
    /// Plain number with k/M/G for thousands (IOPS, MB/s, counts).
    #[default]
    Si,
    /// Bytes as request sizes print (`4k`, `1m`).
    Bytes,
    /// A latency given in µs (`78.6µs`, `1.20ms`).
    Micros,
    /// A plain number (queue depth, seconds).
    Plain,
    /// A count of whole things (targets, ranks): a linear axis ticks whole numbers only.
    Count,
}

/// Formats `v` as `f` says.
pub fn fmt(f: Fmt, v: f64) -> String {
    match f {
        Fmt::Si => si(v),
        Fmt::Bytes if v >= 1.0 && v.fract() == 0.0 => ByteSize(v as u64).to_string(),
        Fmt::Bytes => si(v),
        Fmt::Micros => latency(v),
        Fmt::Plain => trim(v, 2),
        Fmt::Count => format!("{v:.0}"),
    }
}

/// The decimals a tick step of `step` (1, 2 or 5 × a power of ten) needs to print each tick
/// apart: none from 1 up.
fn decimals_of(step: f64) -> usize {
    if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10() - 1e-9).ceil() as usize
    }
}

/// A linear axis's tick `v`, its ticks `step` apart and its largest `top`: one unit for the
/// whole axis (k, M, G; µs or ms) and as many decimals as the step needs, so no two ticks
/// print alike.
fn tick_label(f: Fmt, v: f64, step: f64, top: f64) -> String {
    let (div, unit) = match f {
        Fmt::Si if top.abs() >= 1e9 => (1e9, "G"),
        Fmt::Si if top.abs() >= 1e6 => (1e6, "M"),
        Fmt::Si if top.abs() >= 1e4 => (1e3, "k"),
        Fmt::Micros if top >= 1e6 => (1e6, "s"),
        Fmt::Micros if top >= 1e3 => (1e3, "ms"),
        Fmt::Micros if top >= 1.0 => (1.0, "µs"),
        Fmt::Micros => (1e-3, "ns"),
        Fmt::Si | Fmt::Plain | Fmt::Count => (1.0, ""),
        Fmt::Bytes => return fmt(f, v),
    };
    let s = trim(v / div, decimals_of(step / div));
    if v == 0.0 && f != Fmt::Micros {
        return "0".into();
    }
    format!("{s}{unit}")
}

/// A latency given in µs with its unit and no trailing zeros (`500µs`, `1ms`, `2.5ms`).
fn latency(us: f64) -> String {
    let s = fmt_latency_ns(us * 1e3);
    let unit_at = s.find(|c: char| c.is_alphabetic()).unwrap_or(s.len());
    let (num, unit) = s.split_at(unit_at);
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num}{unit}")
}

/// A number with up to `decimals` decimals and no trailing zeros.
fn trim(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Thousands as k, millions as M, billions as G, with 3 significant digits at most.
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let decimals = match x.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 2,
    };
    format!("{}{suffix}", trim(x, decimals))
}

/// One axis of a plot.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Title with its unit, e.g. `request size (KiB = 1024 bytes)`.
    pub title: String,
    /// The mapping.
    pub scale: Scale,
    /// How values print.
    pub fmt: Fmt,
    /// Ticks to use instead of the computed ones: (value, label).
    pub ticks: Option<Vec<(f64, String)>>,
}

impl Axis {
    /// An axis with computed ticks.
    pub fn new(title: impl Into<String>, scale: Scale, fmt: Fmt) -> Self {
        Axis {
            title: title.into(),
            scale,
            fmt,
            ticks: None,
        }
    }

    /// The value in axis units (its log for log axes).
    pub(super) fn t(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log2 => v.log2(),
            Scale::Log10 => v.log10(),
        }
    }

    /// Whether the axis can show `v` (finite; positive on log axes).
    pub(super) fn drawable(&self, v: f64) -> bool {
        v.is_finite() && (self.scale == Scale::Linear || v > 0.0)
    }
}

/// The range an axis shows, in transformed units, and its ticks.
pub(super) struct Domain {
    /// Low end, axis units.
    pub lo: f64,
    /// High end, axis units.
    pub hi: f64,
    /// Ticks: position in axis units, label.
    pub ticks: Vec<(f64, String)>,
}

pub(super) fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span / target as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let n = raw / mag;
    mag * if n <= 1.0 {
        1.0
    } else if n <= 2.0 {
        2.0
    } else if n <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// The range and ticks of `axis` for `values`: the axis's own ticks when it has them, else
/// computed ones; values the axis cannot draw are left out.
pub(super) fn domain(axis: &Axis, values: &[f64]) -> Domain {
    let vals: Vec<f64> = values
        .iter()
        .copied()
        .filter(|&v| axis.drawable(v))
        .collect();
    if let Some(ticks) = &axis.ticks {
        return given_ticks(axis, ticks, &vals);
    }
    let (min, max) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let (min, max) = if vals.is_empty() {
        (1.0, 2.0)
    } else {
        (min, max)
    };
    match axis.scale {
        Scale::Linear => linear(axis, min, max),
        Scale::Log2 | Scale::Log10 => logarithmic(axis, min, max),
    }
}

/// The domain of an axis with ticks of its own: wide enough for its ticks and the values,
/// padded so no tick sits on the edge.
fn given_ticks(axis: &Axis, ticks: &[(f64, String)], vals: &[f64]) -> Domain {
    let ts: Vec<f64> = ticks.iter().map(|t| axis.t(t.0)).collect();
    let all = ts
        .iter()
        .chain(vals.iter().map(|&v| axis.t(v)).collect::<Vec<_>>().iter())
        .copied()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let pad = ((all.1 - all.0) * 0.04).max(0.1);
    Domain {
        lo: all.0 - pad,
        hi: all.1 + pad,
        ticks: {
            let mut t: Vec<(f64, String)> =
                ticks.iter().map(|(v, l)| (axis.t(*v), l.clone())).collect();
            t.sort_by(|a, b| a.0.total_cmp(&b.0));
            t
        },
    }
}

/// A linear domain from 0 (or below, for negative data) to a round tick above `max`, with
/// about five evenly spaced ticks.
fn linear(axis: &Axis, min: f64, max: f64) -> Domain {
    let lo = min.min(0.0);
    let hi = if max > lo { max } else { lo + 1.0 };
    let step = nice_step(hi - lo, 5);
    // Whole things tick at whole numbers: no half a target.
    let step = if axis.fmt == Fmt::Count {
        step.max(1.0)
    } else {
        step
    };
    let lo = (lo / step).floor() * step;
    let hi = (hi / step).ceil() * step;
    let n = ((hi - lo) / step).round() as usize;
    let top = lo.abs().max(hi.abs());
    let ticks = (0..=n)
        .map(|i| {
            let v = lo + step * i as f64;
            (v, tick_label(axis.fmt, v, step, top))
        })
        .collect();
    Domain { lo, hi, ticks }
}

/// A log 2 or log 10 domain over whole powers, ticked at powers (at most about ten); a log 10
/// axis of two decades or fewer also gets 2× and 5× ticks so it has enough to read by.
fn logarithmic(axis: &Axis, min: f64, max: f64) -> Domain {
    let base = if axis.scale == Scale::Log2 {
        2f64
    } else {
        10f64
    };
    let lo = axis.t(min).floor();
    let hi = axis.t(max).ceil().max(lo + 1.0);
    let span = (hi - lo) as usize;
    let every = span.div_ceil(10).max(1);
    let mut ticks: Vec<(f64, String)> = (0..=span)
        .step_by(every)
        .map(|i| {
            let e = lo + i as f64;
            (e, fmt(axis.fmt, base.powf(e)))
        })
        .collect();
    if axis.scale == Scale::Log10 && span <= 2 {
        for e in lo as i64..hi as i64 {
            for m in [2.0, 5.0] {
                let v = m * 10f64.powi(e as i32);
                ticks.push((v.log10(), fmt(axis.fmt, v)));
            }
        }
        ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Domain { lo, hi, ticks }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_short_and_exact_enough() {
        assert_eq!(si(4544.2), "4544");
        assert_eq!(si(12.34), "12.3");
        assert_eq!(si(101_377.0), "101k");
        assert_eq!(si(12_345.0), "12.3k");
        assert_eq!(si(2.5e6), "2.5M");
        assert_eq!(fmt(Fmt::Bytes, 4096.0), "4k");
        assert_eq!(fmt(Fmt::Bytes, 1_048_576.0), "1m");
        assert_eq!(fmt(Fmt::Micros, 1000.0), "1ms");
        assert_eq!(fmt(Fmt::Micros, 216.6), "216.6µs");
        assert_eq!(fmt(Fmt::Micros, 0.5), "500ns");
        assert_eq!(fmt(Fmt::Plain, 0.5), "0.5");
    }

    /// The labels of a linear axis over `values`.
    fn labels(f: Fmt, values: &[f64]) -> Vec<String> {
        let d = domain(&Axis::new("", Scale::Linear, f), values);
        d.ticks.into_iter().map(|t| t.1).collect()
    }

    /// Ticks print apart, round, in one unit per axis; a count axis ticks whole things.
    #[test]
    fn linear_ticks_are_distinct_round_and_in_one_unit() {
        // Response times of a few hundredths of a ms once read 0, 0.01, 0.01, 0.01, 0.02.
        assert_eq!(
            labels(Fmt::Plain, &[0.004, 0.027]),
            ["0", "0.01", "0.02", "0.03"]
        );
        assert_eq!(
            labels(Fmt::Plain, &[0.0, 0.024]),
            ["0", "0.005", "0.01", "0.015", "0.02", "0.025"]
        );
        assert_eq!(
            labels(Fmt::Si, &[120.0, 4617.0]),
            ["0", "1000", "2000", "3000", "4000", "5000"]
        );
        assert_eq!(
            labels(Fmt::Si, &[0.0, 101_500.0]),
            ["0", "50k", "100k", "150k"]
        );
        assert_eq!(
            labels(Fmt::Si, &[100_000.0, 102_300.0]).len(),
            labels(Fmt::Si, &[100_000.0, 102_300.0])
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        );
        // Two or three targets: never 0.5 or 1.5 of one.
        assert_eq!(labels(Fmt::Count, &[1.0, 2.0]), ["0", "1", "2"]);
        assert_eq!(labels(Fmt::Count, &[1.0, 3.0]), ["0", "1", "2", "3"]);
        // A latency axis says one unit: ms throughout once it passes 1000 µs.
        assert_eq!(
            labels(Fmt::Micros, &[0.0, 1800.0]),
            ["0ms", "0.5ms", "1ms", "1.5ms", "2ms"]
        );
        assert_eq!(
            labels(Fmt::Micros, &[0.0, 700.0]),
            ["0µs", "200µs", "400µs", "600µs", "800µs"]
        );
        for (f, vals) in [
            (Fmt::Plain, [0.0, 0.0031]),
            (Fmt::Si, [0.0, 2.6e6]),
            (Fmt::Micros, [3.0, 7.2]),
        ] {
            let l = labels(f, &vals);
            let apart: std::collections::BTreeSet<&String> = l.iter().collect();
            assert_eq!(apart.len(), l.len(), "{l:?}");
        }
    }

    #[test]
    fn log_axes_tick_at_powers() {
        let d = domain(
            &Axis::new("", Scale::Log2, Fmt::Bytes),
            &[4096.0, 262_144.0],
        );
        let labels: Vec<&str> = d.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["4k", "8k", "16k", "32k", "64k", "128k", "256k"]);
        let d = domain(&Axis::new("", Scale::Log10, Fmt::Micros), &[150.0, 9000.0]);
        assert_eq!(d.lo, 2.0);
        assert_eq!(d.hi, 4.0);
        // A linear axis starts at 0 and ends on a round tick above the data.
        let d = domain(&Axis::new("", Scale::Linear, Fmt::Si), &[120.0, 4617.0]);
        assert_eq!((d.lo, d.hi), (0.0, 5000.0));
    }
}
