//! A credit bucket in a run's per-second series: one step down in I/Os per second to a flat
//! level that lasts to the end, with halfpower's latency rising, is what a token bucket does
//! at a constant offered load when its credits run out (a cloud volume's burst, then its
//! baseline). The burst R, the baseline r and the credits spent C = Σ (rate − r) × 1 s up to
//! the step are read from the seconds each side, each with its interval. `experiment burst`
//! drains a bucket until its baseline has held ([`drained`]), rests, and drains it again: the
//! second drain's credits over the rest are the refill ([`refill`]).

use super::changes::{MIN_SEGMENT, median};
use super::uncertainty::{self, Ci95};
use crate::model::bucket::{Bucket, Refill};
use crate::model::change::{Change, ChangeCause, ChangeFigure, FLAT_PCT};
use crate::model::policy::{LimitReach, PolicyLimit};
use crate::stats::series::TimePoint;

/// The least step down taken for a bucket's end: the baseline at most this share of the burst.
pub const BASELINE_AT_MOST: f64 = 0.8;
/// The fewest whole seconds each side of the step (an interval needs two values).
pub const MIN_SECONDS: usize = 2;

/// The bucket the series `s` of a run shows, given the run's steps `changes` and the limits
/// it ran under: None unless its one IOPS step goes down to at most [`BASELINE_AT_MOST`] of
/// the level before and stays flat to the end, with at least [`MIN_SECONDS`] at each level and
/// the mean latency higher after;
/// the device's own time per I/O did not grow with it (`device-slower`: a write cliff); and no
/// cgroup I/O cap binds (the cap is what holds the level after).
pub fn bucket(s: &[TimePoint], changes: &[Change], limits: &[LimitReach]) -> Option<Bucket> {
    let mut steps = changes.iter().filter(|c| c.figure == ChangeFigure::Iops);
    let c = steps.next()?;
    let capped = limits
        .iter()
        .any(|l| l.binds && matches!(l.limit, PolicyLimit::CgroupIo { .. }));
    if steps.next().is_some()
        || capped
        || c.cause == Some(ChangeCause::DeviceSlower)
        || c.after > BASELINE_AT_MOST * c.before
        || c.evidence.spread_after_pct > FLAT_PCT
    {
        return None;
    }
    // The baseline's seconds: from the first at the level after (within FLAT_PCT of it),
    // looking from the second before the step (the detector may place it a second late).
    let flat = 1.0 + FLAT_PCT / 100.0;
    let k = (c.at_s.round() as usize).saturating_sub(1);
    let j = (k..s.len()).find(|&t| s[t].iops <= flat * c.after)?;
    // The burst's: those before at its level (the last may hold the burst's end).
    let burst: Vec<TimePoint> = (s[..j].iter())
        .filter(|p| p.iops * flat >= c.before)
        .cloned()
        .collect();
    let (burst, after) = (&burst[..], &s[j..]);
    if burst.len() < MIN_SECONDS || after.len() < MIN_SECONDS {
        return None;
    }
    let lat = |x: &[TimePoint]| median(&x.iter().map(|p| p.mean_us).collect::<Vec<_>>());
    let (burst_latency_us, baseline_latency_us) = (lat(burst), lat(after));
    if baseline_latency_us <= burst_latency_us {
        return None;
    }
    let est = |x: &[TimePoint], f: fn(&TimePoint) -> f64| {
        let v: Vec<f64> = x.iter().map(f).collect();
        uncertainty::windows(&v).map(|e| (e.mean, e.ci))
    };
    let (r_burst, r_burst_ci) = est(burst, |p| p.iops)?;
    let (r_base, r_base_ci) = est(after, |p| p.iops)?;
    let b_burst = est(burst, |p| p.bytes_per_s).map_or(0.0, |e| e.0);
    let b_base = est(after, |p| p.bytes_per_s).map_or(0.0, |e| e.0);
    // Every second before the baseline's, the burst's end included, above the refill: the
    // baseline's median second (a client that stalled at the baseline leaves the bucket to
    // gather credits, which a later second spends: such a second is no refill of its own).
    let spent = &s[..j];
    let refill = |f: fn(&TimePoint) -> f64| median(&after.iter().map(f).collect::<Vec<_>>());
    let (r_refill, b_refill) = (refill(|p| p.iops), refill(|p| p.bytes_per_s));
    let credits_ios: f64 = spent.iter().map(|p| p.iops - r_refill).sum();
    let credits_bytes: f64 = spent.iter().map(|p| p.bytes_per_s - b_refill).sum();
    let half = r_base_ci.half * spent.len() as f64;
    Some(Bucket {
        ended_at_s: j as f64,
        burst_iops: r_burst,
        burst_iops_ci95: r_burst_ci,
        burst_bytes_per_s: b_burst,
        baseline_iops: r_base,
        baseline_iops_ci95: r_base_ci,
        baseline_bytes_per_s: b_base,
        credits_ios,
        credits_ios_ci95: Ci95 {
            half,
            pct: if credits_ios != 0.0 {
                100.0 * half / credits_ios.abs()
            } else {
                0.0
            },
        },
        credits_bytes,
        burst_latency_us,
        baseline_latency_us,
    })
}

/// Whether a drain has emptied its bucket: its 100-ms windows' rates (`bytes_per_s`, equal
/// windows over `elapsed` s from the phase's start) summed into whole seconds as the run's
/// per-second series counts them, the last `hold_s` of them (at least the change detector's
/// [`MIN_SEGMENT`], so the series then holds a level of its own at the baseline) flat, each
/// within [`FLAT_PCT`] of their median, and that median at most [`BASELINE_AT_MOST`] of the
/// burst before them (the highest rate that [`MIN_SECONDS`] seconds in a row held: one fast
/// second is no burst).
pub fn drained(bytes_per_s: &[f64], elapsed: f64, hold_s: f64) -> bool {
    if bytes_per_s.is_empty() || elapsed <= 0.0 {
        return false;
    }
    let window_s = elapsed / bytes_per_s.len() as f64;
    let per = ((1.0 / window_s).round() as usize).max(1);
    let rounds: Vec<f64> = bytes_per_s
        .chunks_exact(per)
        .map(|c| c.iter().sum::<f64>() / per as f64)
        .collect();
    let held = (hold_s.ceil() as usize).max(MIN_SEGMENT);
    if rounds.len() < held + MIN_SECONDS {
        return false;
    }
    let (before, last) = rounds.split_at(rounds.len() - held);
    let level = median(last);
    let flat = last
        .iter()
        .all(|r| (r - level).abs() <= FLAT_PCT / 100.0 * level);
    let burst = before
        .windows(MIN_SECONDS)
        .map(|w| w.iter().copied().fold(f64::INFINITY, f64::min))
        .fold(0.0, f64::max);
    level > 0.0 && flat && level <= BASELINE_AT_MOST * burst
}

/// The refill a drain, a rest of `rest_s` and a second drain show: the second drain's credits
/// (what the rest put back into an empty bucket) per second of rest, with their interval; the
/// bucket `full` when the second drain found as many credits as the first within both
/// intervals (the rest may have outlasted the refill, so the rate is a lower bound).
pub fn refill(first: Option<Bucket>, second: Option<Bucket>, rest_s: f64) -> Refill {
    let mut r = Refill {
        first,
        second,
        rest_s,
        ..Refill::default()
    };
    if let (Some(a), Some(b), true) = (&r.first, &r.second, rest_s > 0.0) {
        r.refill_ios_per_s = Some(b.credits_ios / rest_s);
        r.refill_ios_per_s_ci95 = Some(Ci95 {
            half: b.credits_ios_ci95.half / rest_s,
            pct: b.credits_ios_ci95.pct,
        });
        r.refill_bytes_per_s = Some(b.credits_bytes / rest_s);
        let slack = a.credits_ios_ci95.half + b.credits_ios_ci95.half;
        r.full = b.credits_ios + slack >= a.credits_ios;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::change::ChangeEvidence;

    /// The disk: one request at a time, 0.5 ms each on credit (about 1930/s with the
    /// path's own time), 500 credits a second, 10 000 at the start, 4 KiB reads at QD4 for
    /// 20 s: credits last 10 000 / (1930 − 500) ≈ 7 s.
    fn drained_series() -> (Vec<TimePoint>, Change) {
        let iops = |t: u32| match t {
            0..=6 => 1930.0 + if t % 2 == 0 { 8.0 } else { -8.0 },
            _ => 500.0 + if t % 2 == 0 { 3.0 } else { -3.0 },
        };
        let s: Vec<TimePoint> = (0..20)
            .map(|t| TimePoint {
                t_s: t,
                iops: iops(t),
                bytes_per_s: iops(t) * 4096.0,
                p99_us: if t < 7 { 2100.0 } else { 8100.0 },
                mean_us: if t < 7 { 2070.0 } else { 8000.0 },
                ..TimePoint::default()
            })
            .collect();
        let c = Change {
            at_s: 7.0,
            figure: ChangeFigure::Iops,
            before: 1930.0,
            after: 500.0,
            cause: None,
            evidence: ChangeEvidence {
                seconds_before: 7.0,
                seconds_after: 13.0,
                spread_after_pct: 0.9,
                ..ChangeEvidence::default()
            },
        };
        (s, c)
    }

    #[test]
    fn a_drained_bucket_gives_its_burst_baseline_and_credits() {
        let (s, c) = drained_series();
        let b = bucket(&s, &[c], &[]).unwrap();
        assert_eq!(b.ended_at_s, 7.0);
        assert!(
            (b.burst_iops - 1930.0 - 8.0 / 7.0).abs() < 1e-9,
            "{}",
            b.burst_iops
        );
        assert!((b.baseline_iops - 500.0).abs() < 0.5, "{}", b.baseline_iops);
        assert!(b.burst_iops_ci95.half > 0.0 && b.burst_iops_ci95.half < 20.0);
        assert!(b.baseline_iops_ci95.half > 0.0 && b.baseline_iops_ci95.half < 5.0);
        // 7 s at 1930 (±8 in turn: 8 more) above the refill, the baseline's median second
        // (497: seven of its thirteen seconds are 500 − 3).
        assert!(
            (b.credits_ios - (13_518.0 - 7.0 * 497.0)).abs() < 1e-6,
            "{}",
            b.credits_ios
        );
        assert!((b.credits_bytes / b.credits_ios - 4096.0).abs() < 1.0);
        assert!(b.credits_ios_ci95.half > 0.0);
        assert_eq!(
            (b.burst_latency_us, b.baseline_latency_us),
            (2070.0, 8000.0)
        );
        assert!((b.baseline_bytes_per_s / b.baseline_iops - 4096.0).abs() < 1e-6);
    }

    #[test]
    fn what_is_not_a_bucket() {
        let (s, c) = drained_series();
        // A device that got slower (a write cliff).
        let slower = Change {
            cause: Some(ChangeCause::DeviceSlower),
            ..c
        };
        assert!(bucket(&s, &[slower], &[]).is_none());
        // Two steps; a small one; a level after that is not flat; a step up.
        assert!(bucket(&s, &[c, Change { at_s: 12.0, ..c }], &[]).is_none());
        assert!(bucket(&s, &[Change { after: 1800.0, ..c }], &[]).is_none());
        let mut uneven = c;
        uneven.evidence.spread_after_pct = 25.0;
        assert!(bucket(&s, &[uneven], &[]).is_none());
        let up = Change {
            before: 500.0,
            after: 1930.0,
            ..c
        };
        assert!(bucket(&s, &[up], &[]).is_none());
        // Too short a burst, too short a baseline.
        let mut short = s.clone();
        short[1..].iter_mut().for_each(|p| p.iops = 500.0);
        assert!(bucket(&short, &[Change { at_s: 1.0, ..c }], &[]).is_none());
        assert!(bucket(&s[..8], &[c], &[]).is_none());
        // The detector a second late or early: the same seconds.
        let late = bucket(&s, &[Change { at_s: 8.0, ..c }], &[]).unwrap();
        let early = bucket(&s, &[Change { at_s: 6.0, ..c }], &[]).unwrap();
        assert_eq!(late, bucket(&s, &[c], &[]).unwrap());
        assert!((early.credits_ios - late.credits_ios).abs() < 1e-9);
        // Latency that did not rise: the offered load fell, not the device's rate.
        let mut calm = s.clone();
        calm.iter_mut().for_each(|p| p.mean_us = 2070.0);
        assert!(bucket(&calm, &[c], &[]).is_none());
        // No step at all.
        assert!(bucket(&s, &[], &[]).is_none());
    }

    #[test]
    fn a_binding_cgroup_cap_holds_the_level_not_a_bucket() {
        use crate::model::policy::{CgroupVersion, IoCap, IoField, ReachFrom};
        let (s, c) = drained_series();
        let cap = LimitReach {
            limit: PolicyLimit::CgroupIo {
                device: "loop3".into(),
                cap: IoCap {
                    field: IoField::ReadIops,
                    value: 500.0,
                    file: "f".into(),
                    version: CgroupVersion::V1,
                },
            },
            allowed: 500.0,
            measured: 1000.0,
            from: ReachFrom::DeviceCounters,
            used: 2.0,
            throttled_share: None,
            binds: true,
        };
        assert!(bucket(&s, &[c], std::slice::from_ref(&cap)).is_none());
        let loose = LimitReach {
            binds: false,
            ..cap
        };
        assert!(bucket(&s, &[c], &[loose]).is_some());
    }

    /// 100-ms windows of a drain: `burst` for `burst_s`, then `base` for `base_s`, with a
    /// ±2 % ripple.
    fn windows(burst: f64, burst_s: f64, base: f64, base_s: f64) -> Vec<f64> {
        let n = ((burst_s + base_s) * 10.0).round() as usize;
        (0..n)
            .map(|i| {
                let level = if (i as f64) < burst_s * 10.0 {
                    burst
                } else {
                    base
                };
                level * if i % 2 == 0 { 1.02 } else { 0.98 }
            })
            .collect()
    }

    #[test]
    fn a_drain_ends_once_its_baseline_has_held() {
        let mb = 1e6;
        // 4 s of burst, then 3 s at a quarter: held for 3 s, not for 4.
        let w = windows(8.0 * mb, 4.0, 2.0 * mb, 3.0);
        assert!(drained(&w, 7.0, 3.0));
        assert!(!drained(&w, 7.0, 4.0));
        // Still bursting, or just stepped down.
        assert!(!drained(&windows(8.0 * mb, 6.0, 2.0 * mb, 0.0), 6.0, 3.0));
        assert!(!drained(&windows(8.0 * mb, 4.0, 2.0 * mb, 2.0), 6.0, 3.0));
        // A flat device never drains, and a step to 0.9 of the burst is no baseline.
        assert!(!drained(&windows(8.0 * mb, 0.0, 8.0 * mb, 9.0), 9.0, 3.0));
        assert!(!drained(&windows(8.0 * mb, 4.0, 7.2 * mb, 5.0), 9.0, 3.0));
        // One fast second is no burst.
        let mut spike = windows(2.0 * mb, 0.0, 2.0 * mb, 8.0);
        spike[..10].iter_mut().for_each(|x| *x = 8.0 * mb);
        assert!(!drained(&spike, 8.0, 3.0));
        // An uneven tail is not held.
        let mut uneven = w.clone();
        uneven[60..].iter_mut().for_each(|x| *x *= 1.3);
        assert!(!drained(&uneven, 7.0, 3.0));
        assert!(!drained(&[], 0.0, 3.0));
    }

    #[test]
    fn the_refill_is_the_second_drains_credits_per_second_of_rest() {
        let (s, c) = drained_series();
        let first = bucket(&s, &[c], &[]).unwrap();
        let half = Bucket {
            credits_ios: first.credits_ios / 2.0,
            credits_bytes: first.credits_bytes / 2.0,
            ..first.clone()
        };
        let r = refill(Some(first.clone()), Some(half.clone()), 10.0);
        let per_s = r.refill_ios_per_s.unwrap();
        assert!((per_s - first.credits_ios / 20.0).abs() < 1e-9, "{per_s}");
        assert!((r.refill_bytes_per_s.unwrap() / per_s - 4096.0).abs() < 1e-6);
        let ci = r.refill_ios_per_s_ci95.unwrap();
        assert!((ci.half - half.credits_ios_ci95.half / 10.0).abs() < 1e-9);
        assert!(!r.full);
        // As many credits as the first drain's: the rest filled the bucket.
        assert!(refill(Some(first.clone()), Some(first.clone()), 10.0).full);
        // Without a second bucket (a rest too short for a burst), no refill is said.
        let none = refill(Some(first), None, 10.0);
        assert_eq!((none.refill_ios_per_s, none.full), (None, false));
    }
}
