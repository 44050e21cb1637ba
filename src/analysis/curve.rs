//! Placing an observed load on a device's measured curve (`diagnose --profile`): its busiest
//! interval against the throughput and response time the device reached at the nearest mix of
//! direction and request size, and how far that is from the curve's knee and peak.

use crate::model::diagnosis::{CurvePlace, WorkloadHeadroom};
use crate::model::log::DiskInterval;
use crate::model::profile::Curve;
use crate::plan::RwMode;

/// A curve's size matches an observed mean request within this factor.
pub const SIZE_FACTOR: f64 = 1.5;

/// The rw modes a load of `read_pct` % reads is compared with, nearest first: random before
/// sequential (a log does not tell them apart; the random curve is the lower).
fn modes_for(read_pct: f64) -> [RwMode; 2] {
    if read_pct >= 90.0 {
        [RwMode::Randread, RwMode::Read]
    } else if read_pct <= 10.0 {
        [RwMode::Randwrite, RwMode::Write]
    } else {
        [RwMode::Randrw, RwMode::Rw]
    }
}

/// The busiest interval of `ivs` (most I/Os per second) with I/O in it, as the load placed.
pub fn busiest<'a>(ivs: impl Iterator<Item = &'a DiskInterval>) -> Option<&'a DiskInterval> {
    ivs.filter(|iv| iv.iops() > 0.0)
        .max_by(|a, b| a.iops().total_cmp(&b.iops()))
}

/// `iv` placed on the nearest of `curves`.
pub fn place(curves: &[Curve], iv: &DiskInterval) -> WorkloadHeadroom {
    let rw_ios = iv.r_s + iv.w_s;
    let read_pct = if rw_ios > 0.0 {
        100.0 * iv.r_s / rw_ios
    } else {
        0.0
    };
    let bytes = iv.r_bytes_s.unwrap_or(0.0) + iv.w_bytes_s.unwrap_or(0.0);
    let request = if rw_ios > 0.0 { bytes / rw_ios } else { 0.0 };
    let iops = iv.iops();
    let distance = |c: &Curve| (c.bs_bytes as f64 / request.max(1.0)).log2().abs();
    let nearest = modes_for(read_pct).into_iter().find_map(|rw| {
        curves
            .iter()
            .filter(|c| c.rw == rw && !c.points.is_empty())
            .min_by(|a, b| distance(a).total_cmp(&distance(b)))
    });
    WorkloadHeadroom {
        at: iv.time.clone(),
        observed_iops: iops,
        observed_read_pct: read_pct,
        observed_request_bytes: request,
        observed_response_ms: iv.response_ms,
        curve: nearest.map(|c| on(c, iops, distance(c) <= SIZE_FACTOR.log2())),
    }
}

/// The load `iops` on curve `c`.
fn on(c: &Curve, iops: f64, size_matches: bool) -> CurvePlace {
    let peak = c
        .points
        .iter()
        .max_by(|a, b| a.iops.total_cmp(&b.iops))
        .copied()
        .unwrap_or_default();
    let knee = c
        .knee_inflight
        .and_then(|k| c.points.iter().find(|p| p.inflight == k));
    CurvePlace {
        source: c.source,
        rw: c.rw,
        bs_bytes: c.bs_bytes,
        size_matches,
        peak_iops: peak.iops,
        peak_inflight: peak.inflight,
        knee_iops: knee.map(|k| k.iops),
        knee_inflight: knee.map(|k| k.inflight),
        to_peak: peak.iops / iops,
        to_knee: knee.map(|k| k.iops / iops),
        curve_latency_ms: latency_at(c, iops),
    }
}

/// The curve's response time at `iops`: at its lightest load when `iops` is below it, else
/// interpolated between the two loads whose rates bracket it on the rising part (none above
/// the peak, or without response times).
fn latency_at(c: &Curve, iops: f64) -> Option<f64> {
    let first = c.points.first()?;
    if iops <= first.iops {
        return first.latency_ms;
    }
    c.points.windows(2).find_map(|w| {
        let (a, b) = (w[0], w[1]);
        if b.iops <= a.iops || !(a.iops..=b.iops).contains(&iops) {
            return None;
        }
        let f = (iops - a.iops) / (b.iops - a.iops);
        Some(a.latency_ms? + f * (b.latency_ms? - a.latency_ms?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile::{CurvePoint, CurveSource};

    fn point(inflight: u32, iops: f64, ms: f64) -> CurvePoint {
        CurvePoint {
            inflight,
            iops,
            latency_ms: Some(ms),
        }
    }

    fn interval(r_s: f64, w_s: f64, bytes: f64) -> DiskInterval {
        DiskInterval {
            time: "12:00:05".into(),
            device: "sdb".into(),
            r_s,
            w_s,
            r_bytes_s: Some(r_s * bytes),
            w_bytes_s: Some(w_s * bytes),
            response_ms: Some(0.6),
            ..DiskInterval::default()
        }
    }

    /// A disk capped at 2000 IOPS (4k random reads): 1000 at QD1 (1 ms), 2000 from QD2 (the
    /// knee), latency doubling with each doubling of depth beyond it.
    fn capped() -> Curve {
        Curve {
            source: CurveSource::Sweep,
            rw: RwMode::Randread,
            bs_bytes: 4096,
            points: vec![
                point(1, 1000.0, 1.0),
                point(2, 2000.0, 1.0),
                point(4, 2000.0, 2.0),
                point(8, 2000.0, 4.0),
            ],
            knee_inflight: Some(2),
        }
    }

    #[test]
    fn a_load_of_500_iops_has_four_times_to_the_knee_and_the_peak() {
        let h = place(&[capped()], &interval(500.0, 0.0, 4096.0));
        let c = h.curve.unwrap();
        assert_eq!(
            (c.rw, c.bs_bytes, c.size_matches),
            (RwMode::Randread, 4096, true)
        );
        assert_eq!((c.peak_iops, c.knee_iops), (2000.0, Some(2000.0)));
        assert_eq!((c.to_peak, c.to_knee), (4.0, Some(4.0)));
        assert_eq!(
            c.curve_latency_ms,
            Some(1.0),
            "below QD1's rate: QD1's response"
        );
        let h = place(&[capped()], &interval(1500.0, 0.0, 4096.0));
        assert_eq!(h.curve.unwrap().curve_latency_ms, Some(1.0));
    }

    #[test]
    fn a_mix_no_curve_covers_is_said_and_sizes_far_off_are_marked() {
        let h = place(&[capped()], &interval(0.0, 300.0, 4096.0));
        assert!(h.curve.is_none(), "writes on a read curve");
        let h = place(&[capped()], &interval(300.0, 0.0, 65536.0));
        assert!(!h.curve.unwrap().size_matches, "64k against a 4k curve");
        assert_eq!(
            place(&[capped()], &interval(300.0, 10.0, 4096.0))
                .observed_read_pct
                .round(),
            97.0
        );
    }

    #[test]
    fn the_busiest_interval_is_placed() {
        let ivs = [
            interval(10.0, 0.0, 4096.0),
            interval(700.0, 0.0, 4096.0),
            interval(0.0, 0.0, 0.0),
        ];
        assert_eq!(busiest(ivs.iter()).unwrap().r_s, 700.0);
    }
}
