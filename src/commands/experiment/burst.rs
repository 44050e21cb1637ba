//! `experiment burst`'s own: its defaults, the flags only it takes, and the rest between its
//! drains (the drains are points like any experiment's, ended by `SteadyRule::drained`).

use crate::Error;
use crate::cli::ExperimentArgs;
use crate::model::experiment::ExperimentKind;
use crate::plan::RwMode;
use crate::signal;

/// burst's defaults: each drain's longest time, the rest, the baseline's hold, the request
/// size, pattern and depth (a saturating load).
pub(super) const BURST_TIME: std::time::Duration = std::time::Duration::from_secs(300);
pub(super) const REST: std::time::Duration = std::time::Duration::from_secs(60);
pub(super) const HOLD: std::time::Duration = std::time::Duration::from_secs(5);
pub(super) const BURST_BS: u64 = 4 << 10;
pub(super) const BURST_RW: RwMode = RwMode::Randread;
pub(super) const BURST_QD: u32 = 16;

/// Refuses what does not apply to the experiment named: burst's own flags in another, a
/// warm-up in burst (a drain counts its credits from the first I/O), and burst under MPI (each
/// rank's drain would end at its own time, and the bucket is the volume's, not a rank's).
pub(super) fn check_flags(args: &ExperimentArgs) -> crate::Result<()> {
    let name = args.name.name();
    if args.name != ExperimentKind::Burst {
        let dur = |d: Option<crate::units::Dur>| d.map(|d| d.to_string());
        let list = |v: Vec<String>| (!v.is_empty()).then(|| v.join(","));
        let given = [
            (
                "--rw",
                list(args.rw.given.iter().map(|m| m.to_string()).collect()),
            ),
            (
                "--qd",
                list(args.qd.given.iter().map(|q| q.to_string()).collect()),
            ),
            ("--rest", dur(args.rest)),
            ("--hold", dur(args.hold)),
        ];
        return match given.into_iter().find_map(|(f, v)| Some((f, v?))) {
            Some((flag, value)) => Err(Error::invalid(
                flag,
                value,
                format!("nothing in experiment {name}: it applies to experiment burst only"),
            )),
            None => Ok(()),
        };
    }
    if let Some(w) = args.warmup.given {
        return Err(Error::invalid(
            "--warmup",
            w,
            "none in experiment burst: each drain counts the credits it spends from its first \
             I/O (--hold sets how long its baseline must hold)",
        ));
    }
    if crate::cluster::many() {
        return Err(Error::invalid(
            "NAME",
            name,
            "one process: under MPI each rank's drain would end at its own time",
        )
        .alike());
    }
    Ok(())
}

/// Sleeps for `d`, or until Ctrl-C.
pub(super) fn rest(d: std::time::Duration) {
    let end = std::time::Instant::now() + d;
    while !signal::interrupted() {
        let left = end.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
    }
}
