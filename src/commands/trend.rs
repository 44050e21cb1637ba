//! `halfpower trend RUN.json...`: runs of one workload in time order; each run against the one
//! before it, and the last against the first, figure by figure (`analysis::compare`, each
//! change judged as `compare` judges two runs).

use super::Exporter;
use crate::analysis::compare::{compare, differences};
use crate::cli::TrendArgs;
use crate::clock::utc_now;
use crate::input::document::runs_of;
use crate::model::trend::{TrendReport, TrendRun, TrendStep};
use crate::model::{Document, Header, Kind, Results, RunReport};
use crate::render::text::trend::trend_text;
use std::path::PathBuf;

/// What trend reads, as its refusals say.
const WHAT: &str = "a `halfpower run --json` document (trend reads run results)";

/// `trend`'s options lowered once ([`lower`]).
struct TrendCommand {
    /// The run documents, as given.
    runs: Vec<PathBuf>,
    /// `--threshold`, as a share.
    threshold: f64,
}

/// Lowers `trend`'s flags, once, into its command and its exporter.
fn lower(args: &TrendArgs) -> anyhow::Result<(TrendCommand, Exporter<'_>)> {
    let exporter = Exporter::checked(&args.output)?;
    let cmd = TrendCommand {
        runs: args.runs.clone(),
        threshold: super::lower::threshold(&args.threshold)?,
    };
    Ok((cmd, exporter))
}

/// A run as read: its file, its document and its runs (repetitions, or its one run).
type Read = (PathBuf, RunReport, Vec<Results>);

/// Reads every run, oldest first (stable: as given when two dates are equal), and refuses one
/// whose workload is not the first's: a trend follows one workload.
fn read_runs(paths: &[PathBuf]) -> crate::Result<Vec<Read>> {
    let mut read = Vec::with_capacity(paths.len());
    for p in paths {
        let (report, runs) = runs_of(p, "RUN.json", WHAT)?;
        read.push((p.clone(), report, runs));
    }
    read.sort_by(|a, b| a.1.header.date.cmp(&b.1.header.date));
    let first = &read[0];
    for (p, r, _) in &read[1..] {
        let differ = differences(&first.1, r);
        if !differ.is_empty() {
            let each: Vec<String> = (differ.iter())
                .map(crate::render::text::warning::difference)
                .collect();
            return Err(crate::Error::invalid(
                "RUN.json",
                p.display(),
                format!(
                    "a run of the workload of {} (it differs: {}); compare sets two \
                     workloads against each other",
                    first.0.display(),
                    each.join("; ")
                ),
            ));
        }
    }
    Ok(read)
}

/// Runs `halfpower trend`.
pub fn trend(args: TrendArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let read = read_runs(&cmd.runs)?;
    let step = |from: usize, to: usize| TrendStep {
        from,
        to,
        figures: compare(&read[from].2, &read[to].2, cmd.threshold),
    };
    let report = TrendReport {
        header: Header::new(Kind::Trend, command, utc_now()),
        runs: (read.iter())
            .map(|(p, r, runs)| TrendRun {
                path: p.display().to_string(),
                date: r.header.date.clone(),
                repetitions: runs.len(),
            })
            .collect(),
        threshold: cmd.threshold,
        steps: (1..read.len()).map(|i| step(i - 1, i)).collect(),
        overall: step(0, read.len() - 1),
        warnings: Vec::new(),
    };
    let text = trend_text(&report);
    exporter.emit(Document::Trend(Box::new(report)), &text)?;
    Ok(0)
}
