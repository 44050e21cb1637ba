//! Change points: steps in a per-second series (a run's throughput and latency, a monitored
//! device's), each with its levels and, where the device's counters tell, its cause.
//!
//! The detector is penalised least squares on the logarithm of the series (a step is a ratio,
//! and the noise of a rate is a share of it), solved exactly by PELT (Killick, Fearnhead &
//! Eckley 2012). Its penalty per change is [`PENALTY`] × σ² × ln n, the modified BIC's size,
//! with σ the series' own noise, estimated from the median absolute difference of successive
//! values (robust to the steps themselves). A level must last [`MIN_SEGMENT`] values, so one
//! stalled second is no level of its own. Neighbouring levels are then merged unless they are
//! a step that matters and one beyond their own noise: medians at least [`MIN_STEP`] apart,
//! and means whose Welch t exceeds the critical value at 5 % over the n places a step could
//! be (each level with its own variance: an uneven stretch is one level, not many). Each
//! level is summarised by its median. Tested on synthetic series with known steps in `changes_tests.rs`.

use super::student;
use super::uncertainty::{mean, variance};
use crate::model::change::{Change, ChangeCause, ChangeEvidence, ChangeFigure, FLAT_PCT};
use std::ops::Range;

/// The penalty per change in units of σ² ln n (the modified BIC's 3; BIC's 2 gave one false
/// change in about ten 12-s series of pure noise).
pub const PENALTY: f64 = 3.0;
/// The fewest values (seconds) a level lasts.
pub const MIN_SEGMENT: usize = 3;

/// A latency step that starts within this many values of a step of I/Os per second is that
/// step seen in latency and is not a change of its own.
pub const NEAR: usize = 2;
/// The smallest step reported, as a share of the level before: a second of a throttled loop
/// device on this VM varies by up to 3 %, and two runs by up to 18 %.
pub const MIN_STEP: f64 = 0.10;
/// The smallest noise assumed, as a share (0.5 %): a series flatter than that (the null
/// engine's) would otherwise make any wobble significant.
const MIN_NOISE: f64 = 0.005;

/// The median of `x` (0 when empty).
pub fn median(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// A device's own time per I/O by Little's law, µs: the requests it held on average (`queue`,
/// iostat's aqu-sz) over the I/Os it completed per second; NaN (unknown) without I/O.
pub fn time_per_io_us(queue: f64, iops: f64) -> f64 {
    if iops > 0.0 {
        1e6 * queue / iops
    } else {
        f64::NAN
    }
}

/// The robust spread of `x`: 1.4826 × its median absolute deviation, % of its median.
pub fn spread_pct(x: &[f64]) -> f64 {
    let m = median(x);
    if m <= 0.0 {
        return 0.0;
    }
    let dev: Vec<f64> = x.iter().map(|v| (v - m).abs()).collect();
    100.0 * 1.4826 * median(&dev) / m
}

/// The noise σ of `y` (the logarithms), from successive differences: MAD / 0.6745 / √2.
fn noise(y: &[f64]) -> f64 {
    let d: Vec<f64> = y.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    (median(&d) / 0.6745 / std::f64::consts::SQRT_2).max(MIN_NOISE)
}

/// The levels of `y` by PELT: the ranges of the optimal segmentation under penalty `beta`
/// per change, each at least [`MIN_SEGMENT`] long.
fn pelt(y: &[f64], beta: f64) -> Vec<Range<usize>> {
    let n = y.len();
    if n < 2 * MIN_SEGMENT {
        return std::iter::once(0..n).collect();
    }
    let mut s1 = vec![0.0; n + 1];
    let mut s2 = vec![0.0; n + 1];
    for (i, v) in y.iter().enumerate() {
        s1[i + 1] = s1[i] + v;
        s2[i + 1] = s2[i] + v * v;
    }
    // The squared deviations of y[a..b] from their mean.
    let cost = |a: usize, b: usize| {
        let (s, q, k) = (s1[b] - s1[a], s2[b] - s2[a], (b - a) as f64);
        (q - s * s / k).max(0.0)
    };
    let mut f = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    f[0] = -beta;
    let mut candidates = vec![0usize];
    for t in MIN_SEGMENT..=n {
        for &s in candidates.iter().filter(|&&s| t - s >= MIN_SEGMENT) {
            let v = f[s] + cost(s, t) + beta;
            if v < f[t] {
                f[t] = v;
                last[t] = s;
            }
        }
        let ft = f[t];
        candidates.retain(|&s| t - s < MIN_SEGMENT || f[s] + cost(s, t) <= ft);
        if t + MIN_SEGMENT <= n && ft.is_finite() {
            candidates.push(t);
        }
    }
    let mut cuts = vec![n];
    let mut t = n;
    while t > 0 {
        t = last[t];
        cuts.push(t);
    }
    cuts.reverse();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Whether levels `a` and `b` of `y` (logarithms) differ beyond noise: Welch's t of their
/// means beyond the two-sided critical value at 5 % / n (the n places a step could be), each
/// level's variance its own (at least the smallest noise).
fn distinct(y: &[f64], a: &Range<usize>, b: &Range<usize>) -> (bool, f64) {
    let (ya, yb) = (&y[a.clone()], &y[b.clone()]);
    let (na, nb) = (ya.len() as f64, yb.len() as f64);
    let floor = MIN_NOISE * MIN_NOISE;
    let (va, vb) = (variance(ya).max(floor) / na, variance(yb).max(floor) / nb);
    let t = (mean(yb) - mean(ya)).abs() / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    (t >= student::two_sided(0.05 / y.len() as f64, df), t)
}

/// Merges neighbouring levels that are not a step: medians of `x` less than [`MIN_STEP`]
/// apart, or means of `y` (its logarithms) within noise ([`distinct`]); the weakest pair
/// first, until every step is both.
fn merge_weak(x: &[f64], y: &[f64], mut levels: Vec<Range<usize>>) -> Vec<Range<usize>> {
    loop {
        // The weakest pair that is no step: its Welch t, or 0 for one below the smallest step.
        let weak = |i: usize| -> Option<f64> {
            let (a, b) = (&levels[i], &levels[i + 1]);
            let (ma, mb) = (median(&x[a.clone()]), median(&x[b.clone()]));
            if ma > 0.0 && mb > 0.0 && (mb / ma).ln().abs() < (1.0 + MIN_STEP).ln() {
                return Some(0.0);
            }
            let (ok, t) = distinct(y, a, b);
            (!ok).then_some(t)
        };
        let Some(i) = (0..levels.len().saturating_sub(1))
            .filter_map(|i| weak(i).map(|t| (i, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
        else {
            return levels;
        };
        let merged = levels[i].start..levels[i + 1].end;
        levels.splice(i..=i + 1, [merged]);
    }
}

/// The levels of series `x` (positive values; a zero is taken as 1/1000 of the median) and
/// its noise σ (of the logarithm).
pub fn levels(x: &[f64]) -> (Vec<Range<usize>>, f64) {
    let floor = median(x) * 1e-3;
    if x.len() < 2 * MIN_SEGMENT || floor <= 0.0 {
        return (std::iter::once(0..x.len()).collect(), 0.0);
    }
    let y: Vec<f64> = x.iter().map(|v| v.max(floor).ln()).collect();
    let sigma = noise(&y);
    let beta = PENALTY * sigma * sigma * (x.len() as f64).ln();
    (merge_weak(x, &y, pelt(&y, beta)), sigma)
}

/// When a rate's step happened within its boundary second: the level changed at `k` (the
/// first value of the new level), and a second on either side of it whose rate lies between
/// the levels was split between them (a rate mixes its levels linearly).
fn refine(x: &[f64], k: usize, before: f64, after: f64) -> f64 {
    let share_before = |v: f64| ((v - after) / (before - after)).clamp(0.0, 1.0);
    let (inside, before_edge) = (share_before(x[k]), share_before(x[k - 1]));
    if inside > 0.1 {
        k as f64 + inside
    } else if before_edge < 0.9 {
        (k - 1) as f64 + before_edge
    } else {
        k as f64
    }
}

/// The series of one run or device that changes are looked for in, second by second.
#[derive(Clone, Debug, Default)]
pub struct Series<'a> {
    /// I/Os per second.
    pub iops: &'a [f64],
    /// A latency per second, and which figure it is.
    pub latency: Option<(ChangeFigure, &'a [f64])>,
    /// The device's time per I/O each second, µs (NaN where unknown).
    pub device_us: Option<&'a [f64]>,
    /// halfpower's own mean latency each second, µs: the device's time and any wait above it.
    pub latency_us: Option<&'a [f64]>,
    /// What the host could add to a latency halfpower stamped in each second, in the latency
    /// series' unit (NaN where unknown; [`host_added_us`]). None for latencies the kernel
    /// times (a monitored device's response time).
    pub host_late: Option<&'a [f64]>,
}

/// The changes in `s`: steps in throughput, and steps in latency that are not those of a
/// throughput step (within 2 s of one; in a closed loop the two move together, Little's
/// law) and larger than the host's late wake-ups then, each judged within the throughput's
/// level it falls in ([`within_level`]), and each with its cause where the device's time per
/// I/O tells.
pub fn changes(s: &Series) -> Vec<Change> {
    let mut out = Vec::new();
    let (iops_levels, iops_noise) = levels(s.iops);
    let lat_levels = s.latency.map(|(f, l)| (f, l, levels(l)));
    for i in 1..iops_levels.len() {
        let (a, b) = (&iops_levels[i - 1], &iops_levels[i]);
        let mut c = change(ChangeFigure::Iops, s.iops, a, b, iops_noise, s);
        c.at_s = refine(s.iops, b.start, c.before, c.after);
        if let Some((_, l, _)) = &lat_levels {
            c.evidence.other_before = Some(median(&l[a.clone()]));
            c.evidence.other_after = Some(median(&l[b.clone()]));
        }
        c.cause = cause(&c);
        out.push(c);
    }
    if let Some((figure, l, (lat, lat_noise))) = lat_levels {
        for i in 1..lat.len() {
            let near = iops_levels[1..]
                .iter()
                .any(|r| r.start.abs_diff(lat[i].start) <= NEAR);
            if near {
                continue;
            }
            let (a, b) = &within_level(&iops_levels, &lat[i - 1], &lat[i]);
            let (ma, mb) = (median(&l[a.clone()]), median(&l[b.clone()]));
            let small = ma > 0.0 && mb > 0.0 && (mb / ma).ln().abs() < (1.0 + MIN_STEP).ln();
            if small || within_host(s.host_late, l, a, b) {
                continue;
            }
            let mut c = change(figure, l, a, b, lat_noise, s);
            c.evidence.other_before = Some(median(&s.iops[a.clone()]));
            c.evidence.other_after = Some(median(&s.iops[b.clone()]));
            // A latency that grows is a throughput that would fall in a closed loop; only
            // the device's own time tells why (a cap holds throughput, not latency).
            c.cause = cause(&c).filter(|k| *k == ChangeCause::DeviceSlower);
            out.push(c);
        }
    }
    out.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    out
}

/// What the host could add to one latency stamped in a second, µs: its probe's latest wake-up
/// then (`late_us`), or the time it stole from each CPU then (`steal_pct` of the second), the
/// larger. A stolen stretch delays whatever thread held that CPU (a FUSE server's, the loop
/// device's worker), which the probe on another CPU does not see (CI: seconds of 2.5–4.8 %
/// steal whose probe woke within 6 ms raised a per-second p99 from 10.7 to 17 ms).
pub fn host_added_us(late_us: f64, steal_pct: Option<f64>) -> f64 {
    let stolen = steal_pct.map_or(0.0, |p| p / 100.0 * 1e6);
    if late_us.is_nan() && steal_pct.is_none() {
        return f64::NAN;
    }
    late_us.max(stolen)
}

/// Latency levels `a` and `b` cut to the throughput's level their step falls in (a step not
/// near the throughput's: [`NEAR`]): what the seconds around the step did at one rate. A
/// latency level that runs across a throughput step mixes two rates, and its medians (of the
/// latency, the device's time, the host's) are the longer rate's.
fn within_level(
    iops_levels: &[Range<usize>],
    a: &Range<usize>,
    b: &Range<usize>,
) -> (Range<usize>, Range<usize>) {
    let Some(level) = iops_levels.iter().find(|r| r.contains(&b.start)) else {
        return (a.clone(), b.clone());
    };
    (
        a.start.max(level.start)..a.end,
        b.start..b.end.min(level.end),
    )
}

/// Whether the step between levels `a` and `b` of latency series `l` is no larger than what
/// the host could add to a stamped latency in those seconds (the larger of the two levels'
/// medians of `host`, [`host_added_us`] each second): the host alone could have made it. A throttled device's per-second p99 can be the slowest of its quick I/Os, which
/// is the host's lateness and moves with it (CI: 224 → 98 µs on a steady cap).
fn within_host(host: Option<&[f64]>, l: &[f64], a: &Range<usize>, b: &Range<usize>) -> bool {
    let Some(host) = host else {
        return false;
    };
    let late = |r: &Range<usize>| median(host.get(r.clone()).unwrap_or_default());
    let step = (median(&l[b.clone()]) - median(&l[a.clone()])).abs();
    step <= late(a).max(late(b))
}

/// The change between levels `a` and `b` of series `x` of `figure` (one of `s`'s), its cause
/// not yet told.
fn change(
    figure: ChangeFigure,
    x: &[f64],
    a: &Range<usize>,
    b: &Range<usize>,
    noise: f64,
    s: &Series,
) -> Change {
    let level = |series: Option<&[f64]>, r: &Range<usize>| {
        series.map(|d| median(&d[r.clone()])).filter(|v| *v > 0.0)
    };
    let dev = |r: &Range<usize>| level(s.device_us, r);
    let own = |r: &Range<usize>| level(s.latency_us, r);
    Change {
        at_s: b.start as f64,
        figure,
        before: median(&x[a.clone()]),
        after: median(&x[b.clone()]),
        cause: None,
        evidence: ChangeEvidence {
            seconds_before: a.len() as f64,
            seconds_after: b.len() as f64,
            spread_before_pct: spread_pct(&x[a.clone()]),
            spread_after_pct: spread_pct(&x[b.clone()]),
            noise_pct: 100.0 * noise,
            device_us_before: dev(a),
            device_us_after: dev(b),
            latency_us_before: own(a),
            latency_us_after: own(b),
            other_before: None,
            other_after: None,
        },
    }
}

/// The cause of change `c`, from where the time per I/O that came with it was spent: in the
/// device (its own time per I/O, from its counters) or outside it (halfpower's mean latency
/// less the device's: a throttle's queue). `device-slower` when the device's time grew by at
/// least half of halfpower's; otherwise, when the device's time moved by less than half of
/// halfpower's and the level after is flat, `cap` from a flat level and `burst-ended` from an
/// uneven higher one. None without both times, or when nothing fits.
pub fn cause(c: &Change) -> Option<ChangeCause> {
    let e = &c.evidence;
    let device = e.device_us_after? - e.device_us_before?;
    let own = e.latency_us_after? - e.latency_us_before?;
    if own > 0.0 && device >= 0.5 * own {
        return Some(ChangeCause::DeviceSlower);
    }
    if own == 0.0 || device.abs() >= 0.5 * own.abs() || e.spread_after_pct > FLAT_PCT {
        return None;
    }
    if e.spread_before_pct <= FLAT_PCT {
        Some(ChangeCause::Cap)
    } else if c.after < c.before {
        Some(ChangeCause::BurstEnded)
    } else {
        None
    }
}

#[cfg(test)]
#[path = "changes_tests.rs"]
mod tests;
