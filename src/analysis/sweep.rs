//! Reading a request size × queue depth sweep: the plateau (peak), the half-power point (000:
//! the smallest request or depth that delivers half of the peak), the knee (where doubling
//! stops paying and only adds latency), and a verdict in words. Pure: points in, figures out.

use crate::model::sweep::Point;
pub use crate::model::sweep::{Analysis, Cell, DepthCell};
use crate::spec::RwMode;
use crate::units::ByteSize;

/// Points within this share of the best one form the plateau.
pub const PLATEAU_SHARE: f64 = 0.05;
/// The half-power point: this share of the reference throughput.
pub const HALF_POWER_SHARE: f64 = 0.5;
/// Beyond the knee, each doubling adds less than this share of throughput.
pub const KNEE_GAIN: f64 = 0.10;

/// One measured point as the analysis needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Throughput, bytes/s.
    pub bytes_per_s: f64,
    /// 99th percentile latency, µs, when known (CSV input may lack it).
    pub p99_us: Option<f64>,
}

/// Whether `x` → `next` (throughput `t` → `t_next`) adds less than [`KNEE_GAIN`] per
/// doubling of the parameter.
fn flat_step(x: f64, next: f64, t: f64, t_next: f64) -> bool {
    if t <= 0.0 {
        return t_next <= 0.0;
    }
    let doublings = (next / x).log2().max(1e-9);
    (t_next / t).powf(1.0 / doublings) - 1.0 < KNEE_GAIN
}

/// The knee along one axis: `line` is (parameter, throughput, p99) sorted by parameter. The
/// smallest parameter from which every further step is flat, provided p99 rises on the first
/// of them (when p99 is known).
fn knee_of(line: &[(f64, f64, Option<f64>)]) -> Option<usize> {
    let n = line.len();
    let mut knee = None;
    for i in (0..n.saturating_sub(1)).rev() {
        let (x, t, _) = line[i];
        let (nx, nt, _) = line[i + 1];
        if !flat_step(x, nx, t, nt) {
            break;
        }
        knee = Some(i);
    }
    let i = knee?;
    match (line[i].2, line[i + 1].2) {
        (Some(a), Some(b)) if b <= a => None,
        _ => Some(i),
    }
}

fn values<T: Copy + Ord>(samples: &[Sample], f: impl Fn(&Sample) -> T) -> Vec<T> {
    let mut v: Vec<T> = samples.iter().map(f).collect();
    v.sort();
    v.dedup();
    v
}

fn mb(bytes_per_s: f64) -> String {
    let v = bytes_per_s / 1e6;
    if v >= 100.0 {
        format!("{v:.0} MB/s")
    } else {
        format!("{v:.1} MB/s")
    }
}

/// Analyses the points of one rw mode and thread count. `pap` is the advertised peak,
/// bytes/s. None when there are no points.
pub fn analyse(rw: RwMode, threads: u32, samples: &[Sample], pap: Option<f64>) -> Option<Analysis> {
    // The best point; among equals the one with the smallest depth, then size (the cheapest).
    let best = samples.iter().reduce(|a, b| {
        let better = b.bytes_per_s > a.bytes_per_s
            || (b.bytes_per_s == a.bytes_per_s && (b.qd, b.bs_bytes) < (a.qd, a.bs_bytes));
        if better { b } else { a }
    })?;
    let plateau_pts: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.bytes_per_s >= best.bytes_per_s * (1.0 - PLATEAU_SHARE))
        .collect();
    let peak = plateau_pts.iter().map(|s| s.bytes_per_s).sum::<f64>() / plateau_pts.len() as f64;
    let reference = pap.unwrap_or(peak);
    let half = reference * HALF_POWER_SHARE;
    let sizes = values(samples, |s| s.bs_bytes);
    let depths = values(samples, |s| s.qd);
    let at = |bs: u64, qd: u32| samples.iter().find(|s| s.bs_bytes == bs && s.qd == qd);

    let mut half_power = Vec::new();
    let mut knee = Vec::new();
    for &qd in &depths {
        let line: Vec<&Sample> = sizes.iter().filter_map(|&bs| at(bs, qd)).collect();
        half_power.push(Cell {
            qd,
            bs_bytes: line
                .iter()
                .find(|s| s.bytes_per_s >= half)
                .map(|s| s.bs_bytes),
        });
        let pts: Vec<_> = line
            .iter()
            .map(|s| (s.bs_bytes as f64, s.bytes_per_s, s.p99_us))
            .collect();
        knee.push(Cell {
            qd,
            bs_bytes: knee_of(&pts).map(|i| line[i].bs_bytes),
        });
    }
    let mut half_power_qd = Vec::new();
    let mut knee_qd = Vec::new();
    for &bs in &sizes {
        let line: Vec<&Sample> = depths.iter().filter_map(|&qd| at(bs, qd)).collect();
        half_power_qd.push(DepthCell {
            bs_bytes: bs,
            qd: line.iter().find(|s| s.bytes_per_s >= half).map(|s| s.qd),
        });
        let pts: Vec<_> = line
            .iter()
            .map(|s| (s.qd as f64, s.bytes_per_s, s.p99_us))
            .collect();
        knee_qd.push(DepthCell {
            bs_bytes: bs,
            qd: knee_of(&pts).map(|i| line[i].qd),
        });
    }
    let mut a = Analysis {
        rw,
        threads,
        peak_bytes_per_s: peak,
        best: Cell {
            qd: best.qd,
            bs_bytes: Some(best.bs_bytes),
        },
        plateau: plateau_pts
            .iter()
            .map(|s| Cell {
                qd: s.qd,
                bs_bytes: Some(s.bs_bytes),
            })
            .collect(),
        reference_bytes_per_s: reference,
        pap_bytes_per_s: pap,
        rap_pap: pap.filter(|p| *p > 0.0).map(|p| peak / p),
        half_power,
        half_power_qd,
        knee,
        knee_qd,
        verdict: String::new(),
    };
    a.verdict = verdict(&a);
    Some(a)
}

fn size(bs: u64) -> String {
    ByteSize(bs).to_string()
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
fn verdict(a: &Analysis) -> String {
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
        s += &format!(
            " More depth only adds latency beyond {}.",
            grouped(&depth_knees, |qd, sizes| format!("QD{qd} at {sizes}"))
        );
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

/// Groups points by (rw, threads) in order of first appearance and analyses each group.
pub fn analyse_points(points: &[Point], pap: Option<f64>) -> Vec<Analysis> {
    let mut groups: Vec<(RwMode, u32)> = Vec::new();
    for p in points {
        let key = (p.rw, p.threads);
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    groups
        .iter()
        .filter_map(|(rw, threads)| {
            let samples: Vec<Sample> = points
                .iter()
                .filter(|p| p.rw == *rw && p.threads == *threads)
                .map(|p| Sample {
                    bs_bytes: p.bs_bytes,
                    qd: p.qd,
                    bytes_per_s: p.bytes_per_s,
                    p99_us: p.latency_us.as_ref().map(|l| l.p99),
                })
                .collect();
            analyse(*rw, *threads, &samples, pap)
        })
        .collect()
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
