//! The headroom search of `replay --headroom`: from the points replayed so far, the next
//! speed to try, or the answer. The speed at which a figure (mean or 99th percentile response
//! time) reaches double its value at speed 1 is bracketed by doubling the speed, then narrowed
//! by bisection (geometric) until the bracket is within the asked precision (2 % unless said),
//! and read off by linear
//! interpolation between its ends. Only points the replayer issued on time count: a point
//! whose requests were late because every slot was busy is the queue limit's answer; one late
//! for any other reason (CPU) ends the search without a figure beyond it. "On time" is judged
//! against the figure: lateness adds to every response time from its due time, so a point
//! whose requests were late by less than [`BEHIND_MEAN_SHARE`] of its mean response time on
//! average moves the figure by less than that, however many were late (a VM whose CPU the
//! host steals now and then makes a few percent of them late by milliseconds).

use crate::model::replay::{Headroom, HeadroomLimit, HeadroomOf};

/// Mean lateness, as a share of the mean response time from due times, above which a point
/// was not replayed on time.
pub const BEHIND_MEAN_SHARE: f64 = 0.05;
/// How many times a point the replayer issued late for want of CPU (not for a full queue) is
/// replayed again before the search takes it as it is: a host that steals the CPU for a few
/// seconds spoils one point, not the whole search.
pub const LATE_RETRIES: u32 = 2;
/// The bracket is narrowed until its ends are within this share of each other, unless asked
/// otherwise (`replay --headroom-precision`).
pub const PRECISION: f64 = 0.02;
/// The fastest speed the search tries.
pub const MAX_SPEED: f64 = 1024.0;

/// What the search needs of one replayed point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    /// Speed.
    pub speed: f64,
    /// Mean response time, µs.
    pub mean_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Mean lateness of the requests' issue after their due times, µs.
    pub late_mean_us: f64,
    /// Whether every slot was busy at some time (max in flight reached its bound).
    pub slots_full: bool,
}

impl Probe {
    fn on_time(&self) -> bool {
        self.late_mean_us <= BEHIND_MEAN_SHARE * self.mean_us
    }

    /// Late because the slots were full: the bound's answer, which counts.
    fn counts(&self) -> bool {
        self.on_time() || self.slots_full
    }

    /// Late for another reason (CPU): the point says nothing of the device.
    pub fn spoiled(&self) -> bool {
        !self.counts()
    }
}

/// The search's next step.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Replay at this speed next.
    Run(f64),
    /// The search is over.
    Done(Headroom),
}

/// Where figure `f` reaches double its value at speed 1 among `points`: `Ok(speed)` once
/// bracketed within `precision` (a share: 0.02 is 2 %), `Err(next speed to try)` while not,
/// `Err(None)` when it cannot be (a limit, or [`MAX_SPEED`]).
fn crossing(points: &[Probe], precision: f64, f: fn(&Probe) -> f64) -> Result<f64, Option<f64>> {
    let base = f(&points[0]);
    let goal = 2.0 * base;
    let counted: Vec<&Probe> = points.iter().filter(|p| p.counts()).collect();
    let below = counted
        .iter()
        .filter(|p| f(p) < goal)
        .max_by(|a, b| a.speed.total_cmp(&b.speed));
    let above = counted
        .iter()
        .filter(|p| f(p) >= goal)
        .min_by(|a, b| a.speed.total_cmp(&b.speed));
    let fastest = points.iter().map(|p| p.speed).fold(1.0, f64::max);
    let stuck = points.iter().any(|p| !p.counts());
    match (below, above) {
        (Some(lo), Some(hi)) if hi.speed <= lo.speed * (1.0 + precision) => {
            let t = (goal - f(lo)) / (f(hi) - f(lo));
            Ok(lo.speed + t.clamp(0.0, 1.0) * (hi.speed - lo.speed))
        }
        (Some(lo), Some(hi)) => {
            let mid = (lo.speed * hi.speed).sqrt();
            // A speed the replayer could not keep up with lies between: no bisection past it.
            let blocked = points
                .iter()
                .any(|p| !p.counts() && p.speed > lo.speed && p.speed <= mid);
            if blocked { Err(None) } else { Err(Some(mid)) }
        }
        (Some(_), None) if stuck || fastest >= MAX_SPEED => Err(None),
        (Some(_), None) => Err(Some((fastest * 2.0).min(MAX_SPEED))),
        // Speed 1 itself already at double: cannot happen (goal = 2 × its value) unless 0.
        (None, _) => Err(None),
    }
}

/// The next step of the search over `points` (the first at speed 1), narrowing each bracket
/// of the figures `of` names to within `precision` (a share of its lower end).
pub fn next(points: &[Probe], precision: f64, of: HeadroomOf) -> Step {
    let mean = of
        .mean()
        .then(|| crossing(points, precision, |p| p.mean_us));
    let p99 = of.p99().then(|| crossing(points, precision, |p| p.p99_us));
    for r in [&mean, &p99].into_iter().flatten() {
        if let Err(Some(s)) = r {
            return Step::Run(*s);
        }
    }
    let fastest = points.iter().map(|p| p.speed).fold(1.0, f64::max);
    let missed = [&mean, &p99].into_iter().flatten().any(|r| r.is_err());
    let limit = if missed {
        if points.iter().any(|p| !p.counts()) {
            HeadroomLimit::Replayer
        } else {
            HeadroomLimit::NotReached
        }
    } else {
        // The first point at or past the crossing (the mean's, when searched) tells what held
        // the requests.
        let at = mean.or(p99).and_then(|r| r.ok()).unwrap_or(fastest);
        match points
            .iter()
            .filter(|p| p.speed >= at)
            .min_by(|a, b| a.speed.total_cmp(&b.speed))
        {
            Some(p) if !p.on_time() && p.slots_full => HeadroomLimit::QueueLimit,
            _ => HeadroomLimit::Device,
        }
    };
    Step::Done(Headroom {
        speed_at_double_mean: mean.and_then(|r| r.ok()),
        speed_at_double_p99: p99.and_then(|r| r.ok()),
        limit,
        fastest_tried: fastest,
        precision,
        of,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays an M/D/1 queue's mean response time (S = 1, ρ = speed / 3) as the device.
    fn md1(speed: f64) -> Probe {
        let rho = speed / 3.0;
        let r = if rho < 1.0 {
            1.0 + rho / (2.0 * (1.0 - rho))
        } else {
            1e9
        };
        Probe {
            speed,
            mean_us: r,
            p99_us: r * 3.0,
            late_mean_us: 0.0,
            slots_full: false,
        }
    }

    fn search(device: impl Fn(f64) -> Probe) -> (Headroom, usize) {
        search_within(PRECISION, device)
    }

    fn search_within(precision: f64, device: impl Fn(f64) -> Probe) -> (Headroom, usize) {
        search_of(precision, HeadroomOf::Both, device)
    }

    fn search_of(
        precision: f64,
        of: HeadroomOf,
        device: impl Fn(f64) -> Probe,
    ) -> (Headroom, usize) {
        let mut points = vec![device(1.0)];
        loop {
            match next(&points, precision, of) {
                Step::Run(s) => points.push(device(s)),
                Step::Done(h) => return (h, points.len()),
            }
        }
    }

    #[test]
    fn the_md1_queue_doubles_at_2_25_times_its_third() {
        // From ρ = 1/3 (R = 1.25 S), R = 2.5 S at ρ = 0.75: speed 2.25.
        let (h, runs) = search(md1);
        let s = h.speed_at_double_mean.unwrap();
        assert!((s / 2.25 - 1.0).abs() < 0.02, "{s}");
        assert_eq!(h.limit, HeadroomLimit::Device);
        assert!(runs < 16, "{runs} runs");
    }

    #[test]
    fn one_figure_alone_takes_fewer_points_and_finds_the_same_crossing() {
        // A tail that grows faster than the mean: the 99th percentile doubles first (between
        // 1.5 and 2), so searching both takes a bisection of its own.
        let md1 = |s: f64| {
            let p = md1(s);
            Probe {
                p99_us: p.mean_us * (1.0 + s),
                ..p
            }
        };
        let (both, both_runs) = search(md1);
        let (mean, mean_runs) = search_of(PRECISION, HeadroomOf::Mean, md1);
        assert_eq!(mean.speed_at_double_mean, both.speed_at_double_mean);
        assert_eq!(
            (mean.speed_at_double_p99, mean.of),
            (None, HeadroomOf::Mean)
        );
        assert!(mean_runs < both_runs, "{mean_runs} against {both_runs}");
        let (p99, _) = search_of(PRECISION, HeadroomOf::P99, md1);
        assert_eq!(p99.speed_at_double_p99, both.speed_at_double_p99);
        assert_eq!(p99.speed_at_double_mean, None);
        assert_eq!(p99.limit, HeadroomLimit::Device);
    }

    #[test]
    fn a_coarser_precision_takes_fewer_points_and_stays_within_it() {
        let (fine, fine_runs) = search(md1);
        let (coarse, coarse_runs) = search_within(0.05, md1);
        let s = coarse.speed_at_double_mean.unwrap();
        // Linear interpolation inside a 5 % bracket of a convex curve: within the bracket.
        assert!((s / 2.25 - 1.0).abs() < 0.05, "{s}");
        assert!(coarse_runs < fine_runs, "{coarse_runs} against {fine_runs}");
        assert!(fine.speed_at_double_mean.is_some());
    }

    #[test]
    fn a_replayer_that_falls_behind_gives_no_figure_beyond() {
        let (h, _) = search(|s| Probe {
            late_mean_us: if s > 1.5 { 0.2 } else { 0.0 },
            ..md1(s)
        });
        assert_eq!(h.limit, HeadroomLimit::Replayer);
        assert_eq!(h.speed_at_double_mean, None);
    }

    #[test]
    fn a_few_late_requests_count_only_by_what_they_add() {
        // 3 % of requests 4 ms late on a 6-ms response (a host stealing CPU now and then): a
        // mean lateness of 0.12 ms, 2 % of the figure, keeps the point; 10 % of them 4 ms late
        // (0.4 ms, 6.7 %) does not.
        let p = |share: f64| Probe {
            speed: 1.0,
            mean_us: 6000.0,
            p99_us: 20000.0,
            late_mean_us: share * 4000.0,
            slots_full: false,
        };
        assert!(p(0.03).on_time());
        assert!(!p(0.10).on_time());
    }

    #[test]
    fn a_flat_device_is_not_reached() {
        let (h, _) = search(|s| Probe {
            speed: s,
            mean_us: 10.0,
            p99_us: 20.0,
            late_mean_us: 0.0,
            slots_full: false,
        });
        assert_eq!(h.limit, HeadroomLimit::NotReached);
        assert_eq!(h.fastest_tried, MAX_SPEED);
    }
}
