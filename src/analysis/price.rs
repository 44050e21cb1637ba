//! The rules of `doctor --price`: which flagged settings are measured both ways (a warn whose
//! fix writes one file of the device's own queue, and bears on the run's kind of I/O), and the
//! ratio of the two halves with its interval (Welch's, over runs alternated A/B so a drift
//! spreads over both).

use crate::model::doctor::{Asked, Check, CheckKind, Fix, Outcome, Price, PriceFigure, Scope};

/// Runs each way, at least: with fewer the interval's t is too wide to tell 10 % apart.
pub const PAIRS: u32 = 3;

/// The change a price makes: one file of a device's queue, set to the value wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// The device.
    pub device: String,
    /// The file.
    pub file: String,
    /// The value wanted.
    pub wanted: String,
}

/// What a check's price would change, or why it is not priced. None when the check is not
/// flagged (`warn`) or belongs to no device.
pub fn change_of(c: &Check, asked: &Asked) -> Option<Result<Planned, Outcome>> {
    let Scope::Device { device } = &c.scope else {
        return None;
    };
    if c.verdict != crate::model::doctor::Verdict::Warn {
        return None;
    }
    let Some(Fix::Write { files, value }) = &c.fix else {
        return Some(Err(Outcome::NotQueue));
    };
    let queue = format!("/block/{device}/queue/");
    let [file] = files.as_slice() else {
        return Some(Err(Outcome::NotQueue));
    };
    if !file.contains(&queue) {
        return Some(Err(Outcome::NotQueue));
    }
    let why_not = match c.kind {
        CheckKind::WriteCache | CheckKind::WritebackThrottling if !asked.writes => {
            Some(Outcome::ReadsOnly)
        }
        CheckKind::ReadAhead if !(asked.buffered && asked.reads) => Some(Outcome::Direct),
        _ => None,
    };
    Some(match why_not {
        Some(o) => Err(o),
        None => Ok(Planned {
            device: device.clone(),
            file: file.clone(),
            wanted: value.clone(),
        }),
    })
}

/// The price from runs alternated as found / as wanted: mean as found over mean as wanted,
/// with Welch's 95 % interval. None with fewer than two runs each way or a zero mean.
pub fn price(
    figure: PriceFigure,
    depth: u32,
    as_found_runs: Vec<f64>,
    wanted_runs: Vec<f64>,
) -> Option<Price> {
    let (ratio, low, high) = super::uncertainty::ratio_welch(&wanted_runs, &as_found_runs)?;
    Some(Price {
        figure,
        depth,
        as_found_runs,
        wanted_runs,
        ratio,
        low: low.max(0.0),
        high,
    })
}

/// The figure a price compares for a run: bytes per second when it is sequential.
pub fn figure_of(asked: &Asked) -> PriceFigure {
    if asked.sequential {
        PriceFigure::BytesPerS
    } else {
        PriceFigure::Iops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::doctor::Verdict;

    fn asked(writes: bool, buffered: bool) -> Asked {
        Asked {
            depth: 32,
            threads: 1,
            bs_bytes: 4096,
            buffered,
            reads: true,
            writes,
            sequential: false,
            worker_cpus: vec![0],
        }
    }

    fn check(kind: CheckKind, file: &str, verdict: Verdict) -> Check {
        Check {
            kind,
            scope: Scope::Device {
                device: "loop3".into(),
            },
            file: file.into(),
            value: Some("x".into()),
            wanted: "y".into(),
            figure: None,
            verdict,
            fix: Some(Fix::Write {
                files: vec![file.into()],
                value: "y".into(),
            }),
        }
    }

    #[test]
    fn a_flagged_queue_file_is_priced_and_the_rest_say_why_not() {
        let sched = check(
            CheckKind::Scheduler,
            "/sys/block/loop3/queue/scheduler",
            Verdict::Warn,
        );
        assert_eq!(
            change_of(&sched, &asked(false, false)),
            Some(Ok(Planned {
                device: "loop3".into(),
                file: "/sys/block/loop3/queue/scheduler".into(),
                wanted: "y".into()
            }))
        );
        let info = check(
            CheckKind::Scheduler,
            "/sys/block/loop3/queue/scheduler",
            Verdict::Info,
        );
        assert_eq!(change_of(&info, &asked(false, false)), None);
        let cache = check(
            CheckKind::WriteCache,
            "/sys/block/loop3/queue/write_cache",
            Verdict::Warn,
        );
        assert_eq!(
            change_of(&cache, &asked(false, false)),
            Some(Err(Outcome::ReadsOnly))
        );
        assert!(matches!(
            change_of(&cache, &asked(true, false)),
            Some(Ok(_))
        ));
        let ra = check(
            CheckKind::ReadAhead,
            "/sys/block/loop3/queue/read_ahead_kb",
            Verdict::Warn,
        );
        assert_eq!(
            change_of(&ra, &asked(false, false)),
            Some(Err(Outcome::Direct))
        );
        let cap = check(
            CheckKind::CgroupIo,
            "/sys/fs/cgroup/blkio/x/blkio.throttle.read_iops_device",
            Verdict::Warn,
        );
        assert_eq!(
            change_of(&cap, &asked(false, false)),
            Some(Err(Outcome::NotQueue))
        );
    }

    #[test]
    fn the_ratio_is_as_found_over_wanted_and_an_interval_holding_one_is_no_cost() {
        let p = price(
            PriceFigure::Iops,
            32,
            vec![62.0, 61.0, 63.0],
            vec![100.0, 99.0, 101.0],
        )
        .unwrap();
        assert!((p.ratio - 0.62).abs() < 1e-9, "{p:?}");
        // Worked by hand: each side's variance of its mean 1/3; relative variance
        // (1/3)/100² + (1/3)/62² = 1.2005e-4; Welch's degrees of freedom (2/3)² / (2 (1/3)² / 2)
        // = 4, t(4, 97.5 %) = 2.776; half-width 2.776 × 0.62 × √1.2005e-4 = 0.01886.
        assert!((p.low - 0.60114).abs() < 2e-4, "{p:?}");
        assert!((p.high - 0.63886).abs() < 2e-4, "{p:?}");
        assert!(p.measurable(), "{p:?}");
        let same = price(PriceFigure::Iops, 32, vec![99.0, 101.0], vec![101.0, 99.0]).unwrap();
        assert!(!same.measurable(), "{same:?}");
        assert!(price(PriceFigure::Iops, 32, vec![1.0], vec![1.0]).is_none());
    }
}
