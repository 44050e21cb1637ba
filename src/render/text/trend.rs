//! A trend on a terminal: the runs oldest first, then one row per figure: its value in the
//! first run and its ratio at each step and over the whole series, marked when significant.

use super::run::{figure_unit, figure_value};
use super::table::{Table, figures, words};
use crate::model::compare::{CompareMethod, FigureComparison};
use crate::model::run::RunFigure;
use crate::model::trend::{TrendReport, TrendStep};
use std::fmt::Write;

/// A ratio's cell: `×1.502*` when significant, `×0.998` when not, `×1.020?` without an
/// interval.
pub(crate) fn cell(f: &FigureComparison) -> String {
    let mark = if f.significant {
        "*"
    } else if f.method == CompareMethod::None {
        "?"
    } else {
        ""
    };
    format!("×{:.3}{mark}", f.ratio)
}

/// The cell of `figure` at `step`, `-` where one of its runs lacks the figure (the text's and
/// the report's).
pub(crate) fn at(step: &TrendStep, figure: RunFigure) -> String {
    step.figure(figure).map_or_else(|| "-".to_string(), cell)
}

/// Renders a trend.
pub fn trend_text(r: &TrendReport) -> String {
    let mut out = String::from("Runs, oldest first:\n");
    for (i, run) in r.runs.iter().enumerate() {
        let reps = match run.repetitions {
            1 => String::new(),
            n => format!(" ({n} repetitions)"),
        };
        let _ = writeln!(out, "  {}  {}  {}{reps}", i + 1, run.date, run.path);
    }
    let mut columns = vec![words("figure", 22), figures("first", 8)];
    let heads: Vec<String> = (r.steps.iter())
        .map(|s| format!("{} → {}", s.from + 1, s.to + 1))
        .collect();
    columns.extend(heads.iter().map(|h| figures(h, 8)));
    columns.push(figures("last/first", 10));
    let mut table = Table::new(columns);
    for f in &r.overall.figures {
        let first = format!("{} {}", figure_value(f.figure, f.a), figure_unit(f.figure));
        let mut row = vec![f.figure.to_string(), first];
        row.extend(r.steps.iter().map(|s| at(s, f.figure)));
        row.push(cell(f));
        table.row(row);
    }
    out.push_str(&table.render());
    let _ = writeln!(
        out,
        "× the later run's figure over the earlier's; * significant: its 95 % interval excludes 1 \
         and the change exceeds {:.1} %; ? no interval on one side",
        r.threshold * 100.0
    );
    out
}
