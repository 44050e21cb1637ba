//! Every file and stream a command writes, each kind under one rule, and the one way a
//! command emits its result document ([`Exporter`]). The rules, in one table:
//!
//! | output ([`Output`]) | flags | an existing file | written |
//! |---|---|---|---|
//! | `Document` | `--json`, `--html` of every command that measures or judges | refused unless `--force` | whole, atomically, at the end; `--json -` on stdout in place of the text |
//! | `Side` | `sweep --csv`, `path --capture`, `capture -o` | refused unless `--force` | whole, atomically |
//! | `Report` | `report -o` | refused unless `--force` | whole, atomically |
//! | `Stream` | `monitor --json`, `monitor --log` | refused unless `--force` | record by record, flushed every interval; `--json -` on stdout |
//! | `Fio` | `fio --output`, fio's `write_*_log` files | replaced, as fio replaces them | whole, atomically |
//! | `RankLog` | `run --io-log` | refused unless `--force` | whole, atomically, streamed; by every rank, its own |
//!
//! Every path is checked before anything runs (not a directory, in an existing directory, and
//! the rule for an existing file), so a long run never ends in an unwritable path. Under MPI
//! rank 0 checks and writes every output for the job, and the other ranks neither check nor
//! write; but a `RankLog` holds one rank's own I/Os, and each rank checks and writes its own
//! (its path placed with `{rank}`).

use crate::cli::{JsonDest, OutputArgs};
use crate::output::Existing;
use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// What a command writes, for the rule it follows (the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// A result document (`--json`, `--html`).
    Document,
    /// A file beside the result document (`sweep --csv`, `path --capture`, `capture -o`).
    Side,
    /// `report`'s HTML (`-o`).
    Report,
    /// monitor's records, streamed (`--json`, `--log`).
    Stream,
    /// fio's output and logs (`fio --output`, `write_*_log`).
    Fio,
    /// A rank's own record (`run --io-log`), written by every rank.
    RankLog,
}

impl Output {
    /// What happens to an existing file: fio's are replaced, as fio does; every other is
    /// replaced only with `--force`.
    pub(crate) fn existing(self, force: bool) -> Existing {
        match self {
            Output::Fio => Existing::Replace,
            Output::Document | Output::Side | Output::Report | Output::Stream | Output::RankLog => {
                Existing::forced(force)
            }
        }
    }
}

/// Checks, before anything runs, that `path` (named by `flag`) can be written as `output`'s
/// rule says, `force` being `--force`. Under MPI only rank 0 checks, as it alone writes: the
/// path may not exist on the other ranks' hosts, and rank 0's refusal ends the whole job
/// (`commands::main` aborts it).
pub(crate) fn check(
    output: Output,
    flag: &'static str,
    path: &Path,
    force: bool,
) -> crate::Result<()> {
    if !speaks_for_the_job() && output != Output::RankLog {
        return Ok(());
    }
    crate::output::check_output(flag, path, output.existing(force))
}

/// Whether this process writes the outputs and prints the report: one process, or rank 0 of
/// an MPI job (every rank holds the job's figures; one writes them).
pub(crate) fn speaks_for_the_job() -> bool {
    crate::cluster::rank() == 0
}

/// Writes a whole output file (any kind but a stream) atomically: complete or not at all.
pub(crate) fn write_whole(output: Output, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    debug_assert!(
        output != Output::Stream,
        "a stream is written record by record"
    );
    if !speaks_for_the_job() {
        return Ok(());
    }
    crate::output::write_atomic(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Writes a whole output file atomically from what `fill` streams into it: on rank 0 alone,
/// except a [`Output::RankLog`], which every rank writes (its own).
pub(crate) fn write_streamed(
    output: Output,
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    if !speaks_for_the_job() && output != Output::RankLog {
        return Ok(());
    }
    crate::output::write_atomic_with(path, fill)
        .with_context(|| format!("writing {}", path.display()))
}

/// Opens a stream output (`monitor`'s `--json` and `--log` files) once it was checked; its
/// records are written and flushed as they come.
pub(crate) fn open_stream(
    flag: &'static str,
    path: &Path,
) -> crate::Result<std::io::BufWriter<std::fs::File>> {
    let file = std::fs::File::create(path).map_err(|e| {
        crate::Error::invalid(flag, path.display(), format!("a writable file path ({e})"))
    })?;
    Ok(std::io::BufWriter::new(file))
}

/// A command's result document's destinations, checked before anything runs: the one way to
/// emit the document, so no command writes to a path it did not check first.
pub(crate) struct Exporter<'a> {
    out: &'a OutputArgs,
}

impl<'a> Exporter<'a> {
    /// Checks that a `--json PATH` and an `--html PATH` can be written (not a directory, parent
    /// exists, not there already unless `--force`), so a long run does not end in an
    /// unwritable path.
    pub(crate) fn checked(out: &'a OutputArgs) -> crate::Result<Self> {
        let json = out.json.dest.as_ref().and_then(JsonDest::file);
        for (flag, path) in [("--html", out.html.as_deref()), ("--json", json)] {
            if let Some(p) = path {
                check(Output::Document, flag, p, out.force.on)?;
            }
        }
        Ok(Exporter { out })
    }

    /// Checks a side file of the command (`Output::Side`) named by `flag`, under the same
    /// `--force`.
    pub(crate) fn side(&self, flag: &'static str, path: Option<&Path>) -> crate::Result<()> {
        path.map_or(Ok(()), |p| check(Output::Side, flag, p, self.out.force.on))
    }

    /// The one output step of every command that measures or judges: the document's JSON
    /// where `--json` says, its `text` on stdout unless the JSON went there, and its HTML
    /// report when `--html` asks and it holds something to draw (else says why not).
    pub(crate) fn emit(&self, doc: crate::model::Document, text: &str) -> anyhow::Result<()> {
        if !speaks_for_the_job() {
            return Ok(());
        }
        let out = self.out;
        if !write_json(out, &doc)? {
            print!("{text}{}", crate::render::text::host::lines(&doc.hosts()));
        }
        let Some(path) = &out.html else {
            return Ok(());
        };
        if let Some(why) = doc.nothing_to_draw() {
            eprintln!("halfpower: {why}, so no HTML report was written");
            return Ok(());
        }
        let source = match out.json.dest.as_ref().and_then(JsonDest::file) {
            Some(j) => j.display().to_string(),
            None => "(this run; its JSON was not saved)".to_string(),
        };
        let input = crate::model::Input { path: source, doc };
        let html = crate::render::html::render(std::slice::from_ref(&input));
        write_whole(Output::Document, path, html.as_bytes())?;
        eprintln!("halfpower: report written to {}", path.display());
        Ok(())
    }
}

/// Writes a JSON document where `--json` says (`-` = stdout; a file atomically) and reports
/// whether stdout got it.
fn write_json<T: serde::Serialize>(out: &OutputArgs, doc: &T) -> anyhow::Result<bool> {
    let Some(dest) = &out.json.dest else {
        return Ok(false);
    };
    let text = serde_json::to_string_pretty(doc).context("encoding the JSON result")?;
    match dest {
        JsonDest::Stdout => {
            let mut so = std::io::stdout().lock();
            writeln!(so, "{text}").context("writing JSON to stdout")?;
            Ok(true)
        }
        JsonDest::File(path) => {
            write_whole(Output::Document, path, (text + "\n").as_bytes())?;
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fio_replaces_a_file_without_force() {
        for o in [
            Output::Document,
            Output::Side,
            Output::Report,
            Output::Stream,
            Output::RankLog,
        ] {
            assert_eq!(o.existing(false), Existing::Refuse, "{o:?}");
            assert_eq!(o.existing(true), Existing::Replace, "{o:?}");
        }
        assert_eq!(Output::Fio.existing(false), Existing::Replace);
    }

    #[test]
    fn an_existing_side_file_is_refused_without_force_and_replaced_with_it() {
        let dir = std::env::temp_dir().join(format!("hp-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("points.csv");
        std::fs::write(&f, "old").unwrap();
        assert!(check(Output::Side, "--csv", &f, false).is_err());
        check(Output::Side, "--csv", &f, true).unwrap();
        check(Output::Fio, "--output", &f, false).unwrap();
        write_whole(Output::Side, &f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
