//! Reading a request size × queue depth sweep: the plateau (peak), the half-power point (000:
//! the smallest request or depth that delivers half of the peak), the knee (where doubling
//! stops paying and only adds latency). Pure: points in, figures out; render words the verdict
//! (`render::text::sweep::verdict`).

use crate::model::sweep::Point;
pub use crate::model::sweep::{Analysis, Cell, DepthCell, Support};
use crate::model::warning::{Conclusion, Warning};
use crate::plan::RwMode;

/// The caveats of `a`: each conclusion (peak, half-power points, knees) that rests on points
/// and does not stand as stated ([`Support::firm`]), as a warning; render words them.
pub fn caveats(a: &Analysis) -> Vec<Warning> {
    [
        (Conclusion::Peak, a.rap_pap, &a.peak_support),
        (Conclusion::HalfPower, None, &a.half_power_support),
        (Conclusion::Knee, None, &a.knee_support),
    ]
    .into_iter()
    .filter(|(_, _, s)| s.points > 0 && !s.firm())
    .map(|(conclusion, rap_pap, s)| Warning::Caveat {
        rw: a.rw,
        threads: a.threads,
        conclusion,
        rap_pap,
        support: s.clone(),
    })
    .collect()
}

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
    /// The 95 % interval of the throughput, ± %, when known.
    pub ci95_pct: Option<f64>,
    /// Whether it reached steady state; None when it ran without the rule.
    pub steady: Option<bool>,
}

impl Sample {
    /// The throughput's 95 % interval as (low, high), bytes/s: the point itself without one.
    fn range(&self) -> (f64, f64) {
        let c = self.ci95_pct.unwrap_or(0.0).max(0.0) / 100.0;
        (
            self.bytes_per_s * (1.0 - c).max(0.0),
            self.bytes_per_s * (1.0 + c),
        )
    }
}

/// The widest 95 % interval among `pts`, ± % (None when none has one).
fn max_ci(pts: &[&Sample]) -> Option<f64> {
    pts.iter()
        .filter_map(|s| s.ci95_pct)
        .fold(None, |m, c| Some(m.map_or(c, |m: f64| m.max(c))))
}

/// The support of a conclusion resting on `pts`, `uncertain` when its intervals cannot decide
/// it.
fn support(pts: &[&Sample], uncertain: bool) -> Support {
    Support {
        points: pts.len(),
        unsteady: pts.iter().filter(|s| s.steady == Some(false)).count(),
        ci95_pct_max: max_ci(pts),
        uncertain,
    }
}

/// Points each once (by size and depth), in the order met.
fn distinct<'a>(pts: impl IntoIterator<Item = &'a Sample>) -> Vec<&'a Sample> {
    let mut out: Vec<&Sample> = Vec::new();
    for p in pts {
        if !out.iter().any(|q| (q.bs_bytes, q.qd) == (p.bs_bytes, p.qd)) {
            out.push(p);
        }
    }
    out
}

/// Whether the step `a` → `b` (parameters `x` → `nx`) could be flat, and could be not flat,
/// within the two points' intervals: (could be flat, could be steep).
fn step_range(x: f64, nx: f64, a: &Sample, b: &Sample) -> (bool, bool) {
    let ((alo, ahi), (blo, bhi)) = (a.range(), b.range());
    (
        flat_step(x, nx, ahi, blo),
        !flat_step(x, nx, alo.max(1e-300), bhi),
    )
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

/// The points the half-power and knee marks of an analysis rest on, and whether their
/// intervals leave the marks in doubt.
#[derive(Default)]
struct Acc<'a> {
    half: Vec<&'a Sample>,
    half_uncertain: bool,
    knee: Vec<&'a Sample>,
    knee_uncertain: bool,
}

/// The half-power and knee marks along one `line` (sorted by the parameter `x`), as indices:
/// half-power is the first point reaching `half`; it rests on that point and the one before,
/// and is uncertain when either's interval reaches across `band` (half, within the
/// reference's interval). The knee rests on the step into it and every step after, and is
/// uncertain when the intervals allow the step into it to be flat or a later one not to be.
fn marks<'a>(
    line: &[&'a Sample],
    x: fn(&Sample) -> f64,
    half: f64,
    band: (f64, f64),
    acc: &mut Acc<'a>,
) -> (Option<usize>, Option<usize>) {
    let h = line.iter().position(|s| s.bytes_per_s >= half);
    if let Some(i) = h {
        let before = i.checked_sub(1).map(|j| line[j]);
        acc.half.extend(before.iter().chain([&line[i]]));
        acc.half_uncertain |=
            line[i].range().0 < band.1 || before.is_some_and(|b| b.range().1 >= band.0);
    }
    let pts: Vec<_> = line
        .iter()
        .map(|s| (x(s), s.bytes_per_s, s.p99_us))
        .collect();
    let k = knee_of(&pts);
    if let Some(i) = k {
        let from = i.saturating_sub(1);
        acc.knee.extend(&line[from..]);
        for j in from..line.len() - 1 {
            let (can_flat, can_steep) =
                step_range(x(line[j]), x(line[j + 1]), line[j], line[j + 1]);
            acc.knee_uncertain |= if j < i { can_flat } else { can_steep };
        }
    }
    (h, k)
}

fn values<T: Copy + Ord>(samples: &[Sample], f: impl Fn(&Sample) -> T) -> Vec<T> {
    let mut v: Vec<T> = samples.iter().map(f).collect();
    v.sort();
    v.dedup();
    v
}

/// The marks of every line of the grid: per depth along size (half-power, knee), then per size
/// along depth; their support gathered in `acc`.
fn grid_marks<'a>(
    samples: &'a [Sample],
    half: f64,
    band: (f64, f64),
    acc: &mut Acc<'a>,
) -> GridMarks {
    let sizes = values(samples, |s| s.bs_bytes);
    let depths = values(samples, |s| s.qd);
    let at = |bs: u64, qd: u32| samples.iter().find(|s| s.bs_bytes == bs && s.qd == qd);
    let mut half_power = Vec::new();
    let mut knee = Vec::new();
    for &qd in &depths {
        let line: Vec<&Sample> = sizes.iter().filter_map(|&bs| at(bs, qd)).collect();
        let (h, k) = marks(&line, |s| s.bs_bytes as f64, half, band, acc);
        half_power.push(Cell {
            qd,
            bs_bytes: h.map(|i| line[i].bs_bytes),
        });
        knee.push(Cell {
            qd,
            bs_bytes: k.map(|i| line[i].bs_bytes),
        });
    }
    let mut half_power_qd = Vec::new();
    let mut knee_qd = Vec::new();
    for &bs in &sizes {
        let line: Vec<&Sample> = depths.iter().filter_map(|&qd| at(bs, qd)).collect();
        let (h, k) = marks(&line, |s| s.qd as f64, half, band, acc);
        half_power_qd.push(DepthCell {
            bs_bytes: bs,
            qd: h.map(|i| line[i].qd),
        });
        knee_qd.push(DepthCell {
            bs_bytes: bs,
            qd: k.map(|i| line[i].qd),
        });
    }
    GridMarks {
        half_power,
        knee,
        half_power_qd,
        knee_qd,
    }
}

/// The half-power and knee marks of a grid, along each axis.
struct GridMarks {
    half_power: Vec<Cell>,
    knee: Vec<Cell>,
    half_power_qd: Vec<DepthCell>,
    knee_qd: Vec<DepthCell>,
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

    // The half-power mark within the reference's own interval (the peak's, when it is the
    // reference).
    let peak_c = match pap {
        None => max_ci(&plateau_pts).unwrap_or(0.0) / 100.0,
        Some(_) => 0.0,
    };
    let band = (half * (1.0 - peak_c).max(0.0), half * (1.0 + peak_c));
    let mut acc = Acc::default();
    let GridMarks {
        half_power,
        knee,
        half_power_qd,
        knee_qd,
    } = grid_marks(samples, half, band, &mut acc);
    let peak_support = support(
        &plateau_pts,
        max_ci(&plateau_pts).is_some_and(|c| c > PLATEAU_SHARE * 100.0),
    );
    Some(Analysis {
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
        latency_known: samples.iter().all(|s| s.p99_us.is_some()),
        peak_support,
        half_power_support: support(&distinct(acc.half), acc.half_uncertain),
        knee_support: support(&distinct(acc.knee), acc.knee_uncertain),
    })
}

/// Groups points by (rw, threads) in order of first appearance and analyses each group.
pub fn analyse_points(points: &[Point], pap: Option<f64>) -> Vec<Analysis> {
    analyse_points_by(points, &|_| pap)
}

/// [`analyse_points`] with a PAP per rw mode (a path's PAP for writes is lower than for reads
/// through mirrors).
pub fn analyse_points_by(points: &[Point], pap: &dyn Fn(RwMode) -> Option<f64>) -> Vec<Analysis> {
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
                    ci95_pct: p.ci95_pct,
                    steady: p.steady_state(),
                })
                .collect();
            analyse(*rw, *threads, &samples, pap(*rw))
        })
        .collect()
}

#[cfg(test)]
#[path = "sweep_tests.rs"]
mod tests;
