//! `doctor --price`: a flagged queue setting measured both ways on one session's target, runs
//! alternated as found / as wanted ([`PAIRS`] each), the setting put back afterwards
//! (`storage::setting::Changed`: on return, on error, on the first Ctrl-C; a second one writes
//! it back from the signal handler).

use super::Session;
use crate::analysis::price::{PAIRS, figure_of, price};
use crate::model::Warning;
use crate::model::doctor::{Asked, Outcome, PriceFigure};
use crate::plan::RunPlan;
use crate::storage::setting::Changed;
use std::path::Path;

/// One setting to price: its file and the value wanted.
#[derive(Clone, Copy, Debug)]
pub struct Change<'a> {
    /// The setting's file.
    pub file: &'a Path,
    /// The value the other half of the runs is made with.
    pub wanted: &'a str,
}

/// Measures `plan` on the session's targets with `change`'s file as found and as wanted,
/// alternated, `PAIRS` times each; `announce(i, n)` before each run. The file, and every file
/// of its queue that changing it may reset, holds its value as found again when this returns.
pub fn measure(
    session: &mut Session,
    plan: &RunPlan,
    asked: &Asked,
    change: Change<'_>,
    announce: &mut dyn FnMut(u32, u32),
    warnings: &mut Vec<Warning>,
) -> crate::Result<Outcome> {
    let guard = Changed::guard(&[change.file.to_path_buf()])?;
    let figure = figure_of(asked);
    let (mut found, mut wanted) = (Vec::new(), Vec::new());
    for i in 0..PAIRS * 2 {
        let as_found = i % 2 == 0;
        if as_found {
            guard.restore()?;
        } else {
            guard.set(change.file, change.wanted)?;
        }
        announce(i + 1, PAIRS * 2);
        let Some(r) = session.run(plan, "", warnings)? else {
            return Ok(Outcome::Interrupted);
        };
        let v = match figure {
            PriceFigure::Iops => r.total.iops,
            PriceFigure::BytesPerS => r.total.bytes_per_s,
        };
        if as_found { &mut found } else { &mut wanted }.push(v);
    }
    guard.restore()?;
    Ok(price(figure, asked.depth, found, wanted).map_or(Outcome::NoFigure, Outcome::Measured))
}
