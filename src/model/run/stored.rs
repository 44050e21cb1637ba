//! How a run's latency histograms are stored: each once in a file (a repeat is written empty),
//! every one whole in memory. [`keep_once`] empties the repeats before writing, [`fill_in`]
//! copies them back after reading.

use super::{Results, TargetResult};
use crate::stats::summary::DirSummary;

/// Whether the results have exactly one direction.
fn one_direction(t: &TargetResult) -> bool {
    t.read.is_some() != t.write.is_some()
}

/// The directions and total of `t`, mutable.
fn parts(t: &mut TargetResult) -> [Option<&mut DirSummary>; 3] {
    [Some(&mut t.total), t.read.as_mut(), t.write.as_mut()]
}

/// Empties each histogram that repeats another: a one-direction total (its direction's) and
/// a single target's (the run's).
pub(super) fn keep_once(r: &mut Results) {
    let one = r.read.is_some() != r.write.is_some();
    if one {
        r.total.histogram.clear();
    }
    match r.targets.as_mut_slice() {
        [only] => parts(only)
            .into_iter()
            .flatten()
            .for_each(|d| d.histogram.clear()),
        all => {
            for t in all.iter_mut().filter(|t| one_direction(t)) {
                t.total.histogram.clear();
            }
        }
    }
}

/// Copies `from`'s histogram into `to` when `to`'s is empty and it counted I/Os.
fn fill(to: &mut DirSummary, from: Option<&DirSummary>) {
    if to.histogram.is_empty() && to.ios > 0 {
        if let Some(f) = from {
            to.histogram = f.histogram.clone();
        }
    }
}

/// The direction of a one-direction `t`.
fn the_direction(t: &TargetResult) -> Option<&DirSummary> {
    t.read.as_ref().or(t.write.as_ref())
}

/// Fills in every histogram [`keep_once`] emptied, from the one it repeats.
pub(super) fn fill_in(r: &mut Results) {
    if r.read.is_some() != r.write.is_some() {
        let d = r.read.as_ref().or(r.write.as_ref()).cloned();
        fill(&mut r.total, d.as_ref());
    }
    let single = r.targets.len() == 1;
    for t in &mut r.targets {
        if single {
            fill(&mut t.total, Some(&r.total));
            if let Some(d) = t.read.as_mut() {
                fill(d, r.read.as_ref());
            }
            if let Some(d) = t.write.as_mut() {
                fill(d, r.write.as_ref());
            }
        } else if one_direction(t) {
            let d = the_direction(t).cloned();
            fill(&mut t.total, d.as_ref());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::recorder::DirStats;

    fn dir(latencies: &[u64]) -> DirSummary {
        let mut d = DirStats::default();
        for &l in latencies {
            d.ios += 1;
            d.bytes += 4096;
            d.hist.record(l);
        }
        DirSummary::of(&d, 1.0)
    }

    fn one_direction_run(targets: usize) -> Results {
        let read = dir(&[1000, 2000, 3000]);
        let target = TargetResult {
            path: "t".into(),
            total: read.clone(),
            read: Some(read.clone()),
            write: None,
            errors: Default::default(),
        };
        Results {
            total: read.clone(),
            read: Some(read),
            targets: vec![target; targets],
            ..Results::default()
        }
    }

    #[test]
    fn a_file_keeps_each_histogram_once_and_reading_it_fills_them_all_in() {
        for targets in [1, 2] {
            let r = one_direction_run(targets);
            let text = serde_json::to_string(&r).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["total"]["histogram"], serde_json::json!([]));
            assert_eq!(v["targets"][0]["total"]["histogram"], serde_json::json!([]));
            assert_eq!(v["read"]["histogram"].as_array().unwrap().len(), 3);
            let back: Results = serde_json::from_str(&text).unwrap();
            assert_eq!(back, r, "{targets} targets");
        }
    }

    #[test]
    fn a_file_written_before_reads_whole() {
        // A one-direction run on one target written when files kept each histogram once.
        let text = include_str!("../../../tests/fixtures/report/run-loop.json");
        let doc: crate::model::RunReport = serde_json::from_str(text).unwrap();
        let count = |d: &DirSummary| d.histogram.iter().map(|b| b.count).sum::<u64>();
        let r = &doc.results;
        assert!(r.total.ios > 0);
        assert_eq!(count(&r.total), r.total.ios);
        assert_eq!(count(&r.targets[0].total), r.total.ios);
    }
}
