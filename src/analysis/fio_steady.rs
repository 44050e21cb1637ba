//! fio's steady state (`steadystate`, `ss_dur`, `ss_ramp`): once `ss_ramp` is over, the job's
//! IOPS or bandwidth each second, in a rolling window of `ss_dur` seconds, judged by their
//! largest deviation from the window's mean or by their least-squares slope, as fio 3.33's
//! steadystate.c judges them; the job ends at the first second whose window holds.
//!
//! The samples are taken from the measured phase's 100-ms marks (the mark nearest each whole
//! second after the ramp), rounded to whole IOPS and bytes per second as fio keeps them (fio
//! truncates, and scales a late second's count up where it should scale it down). The same
//! function decides while the job runs (the watcher stops the phase) and afterwards (fio's
//! JSON `steadystate` section), so both see the same window.

pub use crate::model::fio::{SsMetric, SsTest};
use crate::stats::window::{CI_WINDOW_S, Mark, at_edges};

/// fio's check interval (`ss_check_interval`, 1 s in fio 3.33).
pub const INTERVAL_S: f64 = 1.0;

/// A fio job's steady-state rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FioSteady {
    /// What is sampled.
    pub metric: SsMetric,
    /// How the window is judged.
    pub test: SsTest,
    /// The limit: % of the window's mean when `pct`, else IOPS or bytes/s (per second for a
    /// slope).
    pub limit: f64,
    /// Whether `limit` is a percentage of the window's mean.
    pub pct: bool,
    /// The window, whole seconds (`ss_dur`; fio drops the fraction).
    pub dur_s: u64,
    /// How long the job runs before the first sample's second starts (`ss_ramp`), s.
    pub ramp_s: f64,
}

/// One judgement of a full window, in fio's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct FioSsLook {
    /// Whether the criterion was below the limit.
    pub attained: bool,
    /// The criterion (% of the mean when the limit is).
    pub criterion: f64,
    /// The largest deviation from the mean (a deviation rule; 0 for a slope rule, as in fio).
    pub max_deviation: f64,
    /// The slope per second (a slope rule; 0 for a deviation rule, as in fio).
    pub slope: f64,
    /// The window's IOPS, oldest first.
    pub iops: Vec<u64>,
    /// The window's bandwidth, bytes/s, oldest first.
    pub bw: Vec<u64>,
}

impl FioSsLook {
    /// fio's `iops_mean`: the window's whole mean.
    pub fn iops_mean(&self) -> u64 {
        whole_mean(&self.iops)
    }

    /// fio's `bw_mean`, bytes/s.
    pub fn bw_mean(&self) -> u64 {
        whole_mean(&self.bw)
    }
}

fn whole_mean(x: &[u64]) -> u64 {
    if x.is_empty() {
        0
    } else {
        x.iter().sum::<u64>() / x.len() as u64
    }
}

impl FioSteady {
    /// Samples in a window (at least one).
    pub fn intervals(&self) -> usize {
        (self.dur_s as f64 / INTERVAL_S).max(1.0) as usize
    }

    /// When the watcher looks, s into a measured phase of at most `max_s`: each second from the
    /// first full window on (a mark half a window early counts, as in [`FioSteady::samples`]).
    pub fn schedule(&self, max_s: f64) -> Vec<f64> {
        let mut at = Vec::new();
        let mut k = self.intervals();
        loop {
            let t = self.ramp_s + k as f64 * INTERVAL_S - CI_WINDOW_S / 2.0;
            if t >= max_s {
                return at;
            }
            at.push(t);
            k += 1;
        }
    }

    /// The (IOPS, bytes/s) of each whole second after the ramp that `marks` cover, oldest
    /// first: the rates between the first marks at or after each second's edge (half a
    /// 100-ms window early counts), rounded to whole numbers.
    pub fn samples(&self, marks: &[Mark]) -> Vec<(u64, u64)> {
        at_edges(marks, self.ramp_s, INTERVAL_S)
            .windows(2)
            .map(|w| {
                let dt = (w[1].at_s - w[0].at_s).max(1e-9);
                let per_s = |a: u64, b: u64| (b.saturating_sub(a) as f64 / dt).round() as u64;
                (per_s(w[0].ios, w[1].ios), per_s(w[0].bytes, w[1].bytes))
            })
            .collect()
    }

    /// Judges one window of samples as fio does.
    pub fn judge(&self, window: &[(u64, u64)]) -> FioSsLook {
        let iops: Vec<u64> = window.iter().map(|s| s.0).collect();
        let bw: Vec<u64> = window.iter().map(|s| s.1).collect();
        let y: Vec<f64> = match self.metric {
            SsMetric::Iops => &iops,
            SsMetric::Bw => &bw,
        }
        .iter()
        .map(|&v| v as f64)
        .collect();
        let n = y.len() as f64;
        let mean = y.iter().sum::<f64>() / n;
        let (mut max_deviation, mut slope) = (0.0, 0.0);
        let value = match self.test {
            SsTest::Deviation => {
                max_deviation = y.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
                max_deviation
            }
            SsTest::Slope => {
                let sum_x = n * (n - 1.0) / 2.0;
                let sum_x_sq = (n - 1.0) * n * (2.0 * n - 1.0) / 6.0;
                let sum_xy: f64 = y.iter().enumerate().map(|(i, v)| i as f64 * v).sum();
                let sum_y = mean * n;
                slope = (sum_xy - sum_x * sum_y / n) / (sum_x_sq - sum_x * sum_x / n);
                slope
            }
        };
        let criterion = if self.pct {
            100.0 * value / mean
        } else {
            value
        };
        FioSsLook {
            // A window of no I/O, or a one-sample slope, is never steady (NaN is below nothing).
            attained: criterion.abs() < self.limit,
            criterion,
            max_deviation,
            slope,
            iops,
            bw,
        }
    }

    /// The look at a phase whose marks end now: its last full window, if it has one.
    pub fn look_now(&self, marks: &[Mark]) -> Option<FioSsLook> {
        let s = self.samples(marks);
        let n = self.intervals();
        (s.len() >= n).then(|| self.judge(&s[s.len() - n..]))
    }

    /// After the phase: the first window that held, else the last full one, else (too short
    /// for one) the samples there are, not attained.
    pub fn outcome(&self, marks: &[Mark]) -> FioSsLook {
        let s = self.samples(marks);
        let n = self.intervals();
        if s.len() < n {
            return FioSsLook {
                attained: false,
                criterion: 0.0,
                max_deviation: 0.0,
                slope: 0.0,
                iops: s.iter().map(|x| x.0).collect(),
                bw: s.iter().map(|x| x.1).collect(),
            };
        }
        let mut last = None;
        for end in n..=s.len() {
            let l = self.judge(&s[end - n..end]);
            if l.attained {
                return l;
            }
            last = Some(l);
        }
        last.expect("at least one full window")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(metric: SsMetric, test: SsTest, limit: f64, pct: bool) -> FioSteady {
        FioSteady {
            metric,
            test,
            limit,
            pct,
            dur_s: 5,
            ramp_s: 1.0,
        }
    }

    /// Marks every 100 ms of a phase doing `iops(second)` 4-KiB I/Os per second.
    fn marks(seconds: usize, iops: impl Fn(usize) -> u64) -> Vec<Mark> {
        let mut out = vec![Mark::default()];
        let (mut ios, mut t) = (0u64, 0.0);
        for k in 0..seconds * 10 {
            ios += iops(k / 10) / 10;
            t += 0.1;
            out.push(Mark {
                at_s: t,
                ios,
                bytes: ios * 4096,
                ..Mark::default()
            });
        }
        out
    }

    #[test]
    fn fios_own_window_is_judged_as_fio_judged_it() {
        // fio 3.33's steadystate section of a 2000-IOPS throttled loop device, randwrite 4k,
        // steadystate=iops:2%, ss_dur=5, ss_ramp=1: these samples, criterion 0.059964 %,
        // max_deviation 1.2, slope 0, iops_mean 2001, bw_mean 8196920.
        let r = rule(SsMetric::Iops, SsTest::Deviation, 2.0, true);
        let w = [
            (2002, 8200200),
            (2000, 8192000),
            (2002, 8200200),
            (2000, 8192000),
            (2002, 8200200),
        ];
        let l = r.judge(&w);
        assert!(l.attained);
        assert!((l.criterion - 0.059964).abs() < 1e-6, "{}", l.criterion);
        assert!((l.max_deviation - 1.2).abs() < 1e-9);
        assert_eq!(l.slope, 0.0);
        assert_eq!(l.iops_mean(), 2001);
        assert_eq!(l.bw_mean(), 8196920);
    }

    #[test]
    fn a_slope_is_least_squares_per_second() {
        let r = rule(SsMetric::Iops, SsTest::Slope, 1.0, true);
        // 1000, 1010, … 1040: slope 10 IOPS/s, 1 % of the mean 1020 is 10.2: 0.98 % < 1 %.
        let w: Vec<(u64, u64)> = (0..5).map(|i| (1000 + 10 * i, 0)).collect();
        let l = r.judge(&w);
        assert!((l.slope - 10.0).abs() < 1e-9);
        assert!((l.criterion - 100.0 * 10.0 / 1020.0).abs() < 1e-9);
        assert!(l.attained);
        // Falling just as fast: the same size, also within.
        let down: Vec<(u64, u64)> = (0..5).map(|i| (1040 - 10 * i, 0)).collect();
        assert!(r.judge(&down).attained && r.judge(&down).slope < 0.0);
        let tight = rule(SsMetric::Iops, SsTest::Slope, 0.9, true);
        assert!(!tight.judge(&w).attained);
        // An absolute limit on bandwidth's slope, bytes/s per second.
        let bw = rule(SsMetric::Bw, SsTest::Slope, 5.0, false);
        let w: Vec<(u64, u64)> = (0..5).map(|i| (0, 1_000_000 + 4 * i)).collect();
        assert!(bw.judge(&w).attained);
        // A window of no I/O is never steady.
        assert!(!r.judge(&[(0, 0); 5]).attained);
        assert!(
            !rule(SsMetric::Iops, SsTest::Deviation, 2.0, true)
                .judge(&[(0, 0); 5])
                .attained
        );
    }

    #[test]
    fn samples_are_whole_seconds_after_the_ramp() {
        let r = rule(SsMetric::Iops, SsTest::Deviation, 2.0, true);
        // 4000 IOPS in the first second (the ramp), 2000 after.
        let m = marks(8, |s| if s == 0 { 4000 } else { 2000 });
        let s = r.samples(&m);
        assert_eq!(s.len(), 7, "seconds 1-2 … 7-8");
        assert!(s.iter().all(|x| x.0 == 2000 && x.1 == 2000 * 4096), "{s:?}");
        // The first window is full at 6 s: looks from 5.95 s, one a second.
        assert_eq!(r.schedule(8.0).len(), 3);
        assert!((r.schedule(8.0)[0] - 5.95).abs() < 1e-9);
        // Stopped at 6 s, the window that held is seconds 1-6.
        let stopped = &m[..=60];
        assert!(r.look_now(stopped).unwrap().attained);
        assert!(r.look_now(&m[..=59]).is_none(), "not yet a full window");
        let o = r.outcome(&m);
        assert!(o.attained && o.iops == vec![2000; 5]);
    }

    #[test]
    fn a_drifting_phase_never_holds_and_reports_its_last_window() {
        let r = rule(SsMetric::Iops, SsTest::Deviation, 2.0, true);
        let m = marks(10, |s| 1000 + 100 * s as u64);
        let o = r.outcome(&m);
        assert!(!o.attained);
        assert_eq!(o.iops, vec![1500, 1600, 1700, 1800, 1900]);
        // Too short for a window: what there is, not attained.
        let short = r.outcome(&marks(3, |_| 2000));
        assert!(!short.attained && short.iops.len() == 2);
    }
}
