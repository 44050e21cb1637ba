//! Lowering what the commands share from their flags: a point's steady-state rule and the
//! lists of values a command runs one point for each.

use crate::analysis::steady::SteadyRule;
use crate::cli::{PointArgs, SteadyArg};
use crate::error::Error;

/// The steady-state rule of a point's `--steady[=PCT|pts]`, checked against its other options.
pub(super) fn steady_rule(p: &PointArgs) -> crate::Result<Option<SteadyRule>> {
    steady_rule_of(p.steady.rule, p.setup.bytes.is_some())
}

/// The steady-state rule of `--steady[=PCT|pts]` (`run`'s, or a point's); refuses a percentage
/// outside (0, 100) and a rule for a run of a fixed byte count (`by_bytes`).
pub(super) fn steady_rule_of(
    steady: Option<SteadyArg>,
    by_bytes: bool,
) -> crate::Result<Option<SteadyRule>> {
    let Some(steady) = steady else {
        return Ok(None);
    };
    let shown = match steady {
        SteadyArg::Pct(pct) if !(pct.is_finite() && pct > 0.0 && pct < 100.0) => {
            return Err(Error::invalid(
                "--steady",
                pct,
                "a spread in percent above 0 and below 100, e.g. --steady=2, or pts",
            ));
        }
        SteadyArg::Pct(pct) => pct.to_string(),
        SteadyArg::Pts => "pts".to_string(),
    };
    if by_bytes {
        return Err(Error::invalid(
            "--steady",
            shown,
            "no --steady with --bytes (a point of a fixed byte count has no time to shorten)",
        ));
    }
    Ok(Some(match steady {
        SteadyArg::Pct(pct) => SteadyRule::new(pct),
        SteadyArg::Pts => SteadyRule::pts(),
    }))
}

/// Refuses an empty list or one that names a value twice.
pub(super) fn distinct<T: PartialEq + std::fmt::Display>(
    what: &'static str,
    list: &[T],
) -> crate::Result<()> {
    let shown = || {
        list.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if list.is_empty() {
        return Err(Error::invalid(
            what,
            "",
            "a comma-separated list of at least one value",
        ));
    }
    for (i, v) in list.iter().enumerate() {
        if list[..i].contains(v) {
            return Err(Error::invalid(
                what,
                shown(),
                format!("each value once ({v} appears twice)"),
            ));
        }
    }
    Ok(())
}

/// The limits of `--limit`, each `target=` named as the command names that target (`targets`,
/// as given): the same path, or one that resolves to the same file or device. A `target=` that
/// is none of them is refused, naming them.
pub(super) fn given_limits(
    arg: &crate::cli::LimitArg,
    targets: &[String],
) -> crate::Result<Vec<crate::model::policy::GivenLimit>> {
    let same = |a: &str, b: &str| {
        a == b
            || matches!(
                (std::fs::canonicalize(a), std::fs::canonicalize(b)),
                (Ok(x), Ok(y)) if x == y
            )
    };
    let mut limits = arg.limits()?;
    for g in &mut limits {
        let Some(t) = &g.target else {
            continue;
        };
        match targets.iter().find(|x| same(t, x)) {
            Some(x) => g.target = Some(x.clone()),
            None => {
                return Err(Error::invalid(
                    "--limit",
                    format!("target={t}"),
                    format!("one of the targets: {}", targets.join(", ")),
                ));
            }
        }
    }
    Ok(limits)
}

/// `--threshold` as a share (2 % is 0.02); refuses 100 % or more.
pub(super) fn threshold(t: &crate::cli::ThresholdArg) -> crate::Result<f64> {
    if !(t.pct.is_finite() && (0.0..100.0).contains(&t.pct)) {
        return Err(Error::invalid(
            "--threshold",
            t.pct,
            "a percentage from 0 to below 100, e.g. 2",
        ));
    }
    Ok(t.pct / 100.0)
}
