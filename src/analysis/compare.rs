//! Repetitions and comparisons: each figure's mean, spread and t-based interval over `--repeat`
//! runs, and whether run B really differs from run A: the ratio B/A with its 95 % interval
//! (Welch when both have repetitions; when one side has, its run-to-run spread for both; else
//! the delta method on each run's within-run interval), significant only when the interval
//! excludes 1, the change exceeds a practical threshold, and a single run lies outside the
//! range of the other side's repetitions.

use super::uncertainty::{ratio_from_intervals, ratio_one_repeated, ratio_welch, repetitions};
use crate::model::Results;
use crate::model::RunReport;
use crate::model::compare::{AccessSetting, CompareMethod, FigureComparison, WorkloadDifference};
use crate::model::run::{FIGURES, FigureStat};
use crate::stats::summary::Ci95;

/// The default practical threshold of `compare`: smaller changes are not called significant.
pub const THRESHOLD: f64 = 0.02;

/// Each figure of [`FIGURES`] that every run has, over the runs.
pub fn summarize(runs: &[Results]) -> Vec<FigureStat> {
    FIGURES
        .iter()
        .filter_map(|f| {
            let values: Vec<f64> = runs.iter().map(|r| f.value(r)).collect::<Option<_>>()?;
            let e = repetitions(&values);
            let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
            Some(FigureStat {
                figure: *f,
                mean,
                sd: e.map_or(0.0, |e| e.sd),
                ci95: e.map_or(Ci95::default(), |e| e.ci),
                values,
            })
        })
        .filter(|s| s.mean > 0.0 || s.values.iter().any(|v| *v != 0.0))
        .collect()
}

/// Compares run B (its repetitions `b`) with run A (`a`), figure by figure.
pub fn compare(a: &[Results], b: &[Results], threshold: f64) -> Vec<FigureComparison> {
    FIGURES
        .iter()
        .filter_map(|f| {
            let va: Vec<f64> = a.iter().map(|r| f.value(r)).collect::<Option<_>>()?;
            let vb: Vec<f64> = b.iter().map(|r| f.value(r)).collect::<Option<_>>()?;
            let (ma, mb) = (mean(&va)?, mean(&vb)?);
            if ma <= 0.0 || mb <= 0.0 {
                return None;
            }
            let half = |r: &Results| f.interval(r).map(|(lo, hi)| (hi - lo) / 2.0);
            // The single run of a one-sided comparison, and the repeated side's range.
            let mut single_in_range = false;
            let (interval, method) = match (va.len() >= 2, vb.len() >= 2) {
                (true, true) => (ratio_welch(&va, &vb), CompareMethod::Repetitions),
                (true, false) | (false, true) => {
                    let (rep, single, is_b) = if va.len() >= 2 {
                        (&va, (vb[0], half(&b[0])), true)
                    } else {
                        (&vb, (va[0], half(&a[0])), false)
                    };
                    let lo = rep.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = rep.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    single_in_range = (lo..=hi).contains(&single.0);
                    (
                        ratio_one_repeated(rep, single.0, single.1, is_b),
                        CompareMethod::RepeatedSide,
                    )
                }
                (false, false) => match (half(&a[0]), half(&b[0])) {
                    (Some(ha), Some(hb)) => (
                        ratio_from_intervals(ma, ha, mb, hb),
                        CompareMethod::WithinRun,
                    ),
                    _ => (None, CompareMethod::None),
                },
            };
            let ratio = mb / ma;
            // A single run within the range of the other side's runs is one more such run.
            let significant = !single_in_range
                && interval.is_some_and(|(_, lo, hi)| {
                    (lo > 1.0 || hi < 1.0) && (ratio - 1.0).abs() > threshold
                });
            Some(FigureComparison {
                figure: *f,
                a: ma,
                b: mb,
                ratio,
                ci95_low: interval.map(|i| i.1),
                ci95_high: interval.map(|i| i.2),
                significant,
                method: if interval.is_some() {
                    method
                } else {
                    CompareMethod::None
                },
            })
        })
        .collect()
}

/// What the workloads of runs `a` and `b` set differently: its shape (rw, the read share of a
/// mix, bs, qd, threads, targets), how its I/O went (the engine that ran, buffered,
/// write-through) and its access pattern; not its length, region, seed or which targets (what
/// a comparison of two devices or two runs changes on purpose).
pub fn differences(a: &RunReport, b: &RunReport) -> Vec<WorkloadDifference> {
    use WorkloadDifference as D;
    let (wa, wb) = (&a.workload, &b.workload);
    let (sa, sb) = (&wa.setup, &wb.setup);
    let mixed = |w: &crate::plan::Workload| w.reads() && w.writes();
    let pct = |w: &crate::plan::Workload| w.read_pct.unwrap_or(50);
    let each = [
        (wa.rw != wb.rw).then_some(D::Rw(wa.rw, wb.rw)),
        (wa.rw == wb.rw && mixed(wa) && pct(wa) != pct(wb)).then(|| D::ReadPct(pct(wa), pct(wb))),
        (wa.bs != wb.bs).then(|| D::Bs(wa.bs.clone(), wb.bs.clone())),
        (wa.qd != wb.qd).then_some(D::Qd(wa.qd, wb.qd)),
        (wa.threads != wb.threads).then_some(D::Threads(wa.threads, wb.threads)),
        (a.targets.len() != b.targets.len())
            .then_some(D::Targets(a.targets.len(), b.targets.len())),
        (a.results.engine != b.results.engine)
            .then_some(D::Engine(a.results.engine, b.results.engine)),
        (sa.buffered != sb.buffered).then_some(D::Buffered(sa.buffered, sb.buffered)),
        (sa.write_through != sb.write_through)
            .then_some(D::WriteThrough(sa.write_through, sb.write_through)),
        (sa.write_through && sb.write_through && sa.sync_metadata != sb.sync_metadata)
            .then_some(D::SyncMetadata(sa.sync_metadata, sb.sync_metadata)),
        (sa.access != sb.access).then(|| D::Access(access_differences(&sa.access, &sb.access))),
    ];
    each.into_iter().flatten().collect()
}

/// The access settings `a` and `b` set differently. `a` is taken apart field by field, with
/// no rest pattern: a setting added to `Access` does not compile here until it is named.
fn access_differences(a: &crate::access::Access, b: &crate::access::Access) -> Vec<AccessSetting> {
    use AccessSetting as S;
    let crate::access::Access {
        dist,
        random_pct,
        random_run,
        stride,
        rate,
        rate_iops,
        arrivals,
        max_inflight,
        think,
        think_every,
        fsync,
        fdatasync,
        end_fsync,
        invalidate,
        reallocate,
    } = a;
    let each = [
        (*dist != b.dist, S::Distribution),
        (
            *random_pct != b.random_pct || *random_run != b.random_run,
            S::RandomShare,
        ),
        (*stride != b.stride, S::Stride),
        (*rate != b.rate || *rate_iops != b.rate_iops, S::Rate),
        (
            *arrivals != b.arrivals || *max_inflight != b.max_inflight,
            S::Arrivals,
        ),
        (*think != b.think || *think_every != b.think_every, S::Think),
        (
            *fsync != b.fsync || *fdatasync != b.fdatasync || *end_fsync != b.end_fsync,
            S::Flushes,
        ),
        (*invalidate != b.invalidate, S::Invalidate),
        (*reallocate != b.reallocate, S::Reallocate),
    ];
    each.into_iter()
        .filter_map(|(differ, s)| differ.then_some(s))
        .collect()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run::RunFigure;

    fn run(iops: f64, half_pct: Option<f64>) -> Results {
        let mut r = Results::default();
        r.total.iops = iops;
        r.total.bytes_per_s = iops * 4096.0;
        r.total.iops_ci95 = half_pct.map(|p| Ci95 {
            half: iops * p / 100.0,
            pct: p,
        });
        r.cpu.us_per_io = 2.0;
        r
    }

    /// 2000 against 3000 IOPS, three repetitions each: B is 1.5× A, significant.
    #[test]
    fn a_real_difference_is_significant() {
        let a = [run(2000.0, None), run(2010.0, None), run(1990.0, None)];
        let b = [run(3000.0, None), run(2985.0, None), run(3012.0, None)];
        let c = compare(&a, &b, THRESHOLD);
        let iops = c.iter().find(|f| f.figure == RunFigure::TotalIops).unwrap();
        assert!((iops.ratio - 1.5).abs() < 0.01);
        assert!(iops.significant);
        assert_eq!(iops.method, CompareMethod::Repetitions);
        assert!(iops.ci95_low.unwrap() > 1.45 && iops.ci95_high.unwrap() < 1.55);
        let cpu = c
            .iter()
            .find(|f| f.figure == RunFigure::CpuUsPerIo)
            .unwrap();
        assert!(!cpu.significant, "equal CPU cost");
    }

    /// The same cap twice: not significant. A 1 % change with a tight interval is below the
    /// practical threshold.
    #[test]
    fn noise_and_small_changes_are_not_significant() {
        let a = [run(2000.0, None), run(2040.0, None), run(1970.0, None)];
        let b = [run(2010.0, None), run(1980.0, None), run(2030.0, None)];
        let iops = &compare(&a, &b, THRESHOLD)[0];
        assert!(!iops.significant, "{iops:?}");
        let a = [run(1000.0, Some(0.1))];
        let b = [run(1010.0, Some(0.1))];
        let iops = &compare(&a, &b, THRESHOLD)[0];
        assert_eq!(iops.method, CompareMethod::WithinRun);
        assert!(iops.ci95_low.unwrap() > 1.0, "the interval excludes 1");
        assert!(!iops.significant, "but 1 % is under the 2 % threshold");
        let cpu = compare(&a, &b, THRESHOLD)
            .into_iter()
            .find(|f| f.figure == RunFigure::CpuUsPerIo)
            .unwrap();
        assert_eq!(cpu.method, CompareMethod::None);
    }

    /// The case: A three runs of 1800, 2000 and 2200 IOPS (±1 % within each), B one run
    /// of 2200 with ±1 %. B/A = 1.10, and within-run intervals called it significant; B equals
    /// one of A's runs, so it is not. One 3200-IOPS run is, beyond A's spread.
    #[test]
    fn one_repeated_side_lends_its_spread() {
        let a = [
            run(1800.0, Some(1.0)),
            run(2000.0, Some(1.0)),
            run(2200.0, Some(1.0)),
        ];
        let iops = |c: Vec<FigureComparison>| {
            c.into_iter()
                .find(|f| f.figure == RunFigure::TotalIops)
                .unwrap()
        };
        let x = iops(compare(&a, &[run(2200.0, Some(1.0))], THRESHOLD));
        assert!((x.ratio - 1.1).abs() < 1e-9);
        assert_eq!(x.method, CompareMethod::RepeatedSide);
        assert!(!x.significant, "{x:?}");
        // s = 200: 1.1 ± 4.303 × √(200²/3 + 200²) / 2000 = ± 0.497.
        assert!(
            (x.ci95_high.unwrap() - x.ratio - 0.4968).abs() < 0.001,
            "{x:?}"
        );
        // Just outside A's range but within its spread: still not significant.
        let x = iops(compare(&a, &[run(2300.0, Some(1.0))], THRESHOLD));
        assert!(!x.significant, "{x:?}");
        let x = iops(compare(&a, &[run(3200.0, Some(1.0))], THRESHOLD));
        assert!(x.significant, "{x:?}");
        // The other way round: A single, B repeated.
        let x = iops(compare(&[run(2200.0, Some(1.0))], &a, THRESHOLD));
        assert!((x.ratio - 2000.0 / 2200.0).abs() < 1e-9);
        assert_eq!(x.method, CompareMethod::RepeatedSide);
        assert!(!x.significant, "{x:?}");
        // Repetitions without spread and a single run outside them: the within-run interval.
        let same = [run(2000.0, Some(1.0)), run(2000.0, Some(1.0))];
        let x = iops(compare(&same, &[run(2200.0, Some(1.0))], THRESHOLD));
        assert!(x.significant, "{x:?}");
    }

    #[test]
    fn repetitions_are_summarized() {
        let s = summarize(&[run(100.0, None), run(110.0, None), run(90.0, None)]);
        let iops = s.iter().find(|f| f.figure == RunFigure::TotalIops).unwrap();
        assert_eq!(iops.values, vec![100.0, 110.0, 90.0]);
        assert_eq!(iops.mean, 100.0);
        assert!((iops.sd - 10.0).abs() < 1e-9);
        // t(2) = 4.303: 4.303 × 10 / √3 = 24.84.
        assert!((iops.ci95.half - 24.84).abs() < 0.01);
        assert!(
            s.iter().all(|f| f.figure != RunFigure::ReadP50),
            "no reads recorded"
        );
    }
}
