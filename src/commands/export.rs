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
//! | `State` | `run --verify-state` | continued: read before the run, replaced after it | whole, atomically, once the run is read back; by every rank, its own |
//! | `Textfile` | `--prom` of run, quick, sweep, selftest (a name ending in `.prom`) | replaced, as node_exporter's textfile collector expects of a batch job | whole, atomically, with the document |
//!
//! Result text on standard output (a command's text, fio's reports and `--parse-only` plan
//! lines, monitor's intervals) is printed by [`print_result`] alone, by the process that speaks
//! for the job.
//!
//! Every path is checked before anything runs (not a directory, in an existing directory, and
//! the rule for an existing file), so a long run never ends in an unwritable path, and each
//! claims its destination in the command's [`Outputs`]: two outputs naming one place (the same
//! file by any name, or standard output, which holds the text unless `--json -` takes it) are
//! refused, as the second would overwrite or interleave with the first. The null device keeps
//! nothing and may take any number. Under MPI
//! rank 0 checks and writes every output for the job, and the other ranks neither check nor
//! write; but a `RankLog` holds one rank's own I/Os, and each rank checks and writes its own
//! (its path placed with `{rank}`).

use crate::cli::{JsonDest, OutputArgs};
use crate::output::{Destination, Existing};
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
    /// A verified run's record of its blocks (`--verify-state`), continued when it exists:
    /// read before the run, replaced after it; written by every rank (its own).
    State,
    /// The result's figures for node_exporter's textfile collector (`--prom`).
    Textfile,
}

impl Output {
    /// Whether every rank of an MPI job checks and writes it (its own), not rank 0 alone.
    pub(crate) fn every_rank(self) -> bool {
        matches!(self, Output::RankLog | Output::State)
    }

    /// What happens to an existing file: fio's are replaced, as fio does, and a state file
    /// is continued (read, then replaced); every other is replaced only with `--force`.
    pub(crate) fn existing(self, force: bool) -> Existing {
        match self {
            Output::Fio | Output::Textfile | Output::State => Existing::Replace,
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
fn check(output: Output, flag: &'static str, path: &Path, force: bool) -> crate::Result<()> {
    if !speaks_for_the_job() && !output.every_rank() {
        return Ok(());
    }
    crate::output::check_output(flag, path, output.existing(force))
}

/// Every output of one command, each checked before anything runs and each holding its own
/// destination: the one place a command's output paths are collected.
pub(crate) struct Outputs {
    /// `--force`.
    force: bool,
    /// The destinations taken so far: where, by which flag, and what it writes (the path as
    /// given, or standard output).
    taken: Vec<(Destination, &'static str, String)>,
}

impl Outputs {
    /// No output yet, under `--force` when `force`.
    pub(crate) fn new(force: bool) -> Self {
        Outputs {
            force,
            taken: Vec::new(),
        }
    }

    /// Checks `path` (named by `flag`) as `output`'s rule says and takes its destination.
    pub(crate) fn file(
        &mut self,
        output: Output,
        flag: &'static str,
        path: &Path,
    ) -> crate::Result<()> {
        let named = path.display().to_string();
        self.take(flag, &named, &named, Destination::of(path))?;
        check(output, flag, path, self.force)
    }

    /// Takes standard output for `who` (`--json` given `-`, or the text).
    pub(crate) fn stdout(&mut self, who: &'static str) -> crate::Result<()> {
        self.take(who, "-", "standard output", Destination::stdout())
    }

    /// Refuses `dest` (`given` to `who`, which writes `what`) when an output took it already;
    /// else takes it.
    fn take(
        &mut self,
        who: &'static str,
        given: &str,
        what: &str,
        dest: Destination,
    ) -> crate::Result<()> {
        if let Some((_, other, theirs)) = self.taken.iter().find(|t| t.0.clashes(&dest)) {
            return Err(crate::Error::invalid(
                who,
                given,
                format!(
                    "a path no other output writes: {other} writes {theirs} already (each \
                     output needs its own file)"
                ),
            ));
        }
        self.taken.push((dest, who, what.to_string()));
        Ok(())
    }
}

/// Whether this process writes the outputs and prints the report: one process, or rank 0 of
/// an MPI job (every rank holds the job's figures; one writes them).
pub(crate) fn speaks_for_the_job() -> bool {
    crate::cluster::rank() == 0
}

/// Prints result text on standard output: the one way a command prints its results (its text,
/// fio's reports and plan lines, monitor's intervals), by the process that speaks for the job
/// alone (the other ranks of an MPI job print nothing).
pub(crate) fn print_result(text: &str) -> crate::Result<()> {
    if !speaks_for_the_job() {
        return Ok(());
    }
    let mut so = std::io::stdout().lock();
    (so.write_all(text.as_bytes()))
        .and_then(|()| so.flush())
        .map_err(|e| crate::Error::io("writing to stdout", e))
}

/// Writes a whole output file (any kind but a stream) atomically: complete or not at all.
pub(crate) fn write_whole(output: Output, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    debug_assert!(
        output != Output::Stream,
        "a stream is written record by record"
    );
    if !speaks_for_the_job() && !output.every_rank() {
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
    if !speaks_for_the_job() && !output.every_rank() {
        return Ok(());
    }
    crate::output::write_atomic_with(path, fill)
        .with_context(|| format!("writing {}", path.display()))
}

/// A stream output (`monitor`'s `--json` and `--log` files), opened once it was checked: its
/// records are written and flushed as they come, a batch at a time.
pub(crate) struct Stream {
    out: std::io::BufWriter<std::fs::File>,
    path: std::path::PathBuf,
}

impl Stream {
    /// Creates the file `flag` names (checked already).
    pub(crate) fn open(flag: &'static str, path: &Path) -> crate::Result<Stream> {
        let file = std::fs::File::create(path).map_err(|e| {
            crate::Error::invalid(flag, path.display(), format!("a writable file path ({e})"))
        })?;
        Ok(Stream {
            out: std::io::BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    /// Appends `lines`, each ended by a newline, and flushes them to the file.
    pub(crate) fn write_lines(&mut self, lines: &[String]) -> anyhow::Result<()> {
        let mut write = || -> std::io::Result<()> {
            for l in lines {
                writeln!(self.out, "{l}")?;
            }
            self.out.flush()
        };
        write().with_context(|| format!("writing {}", self.path.display()))
    }
}

/// A command's result document's destinations, checked before anything runs: the one way to
/// emit the document, so no command writes to a path it did not check first.
pub(crate) struct Exporter<'a> {
    out: &'a OutputArgs,
    /// The command's outputs: the document's and any other file it writes.
    outputs: Outputs,
    /// `--prom`: where the result's figures go for the textfile collector.
    prom: Option<std::path::PathBuf>,
}

impl<'a> Exporter<'a> {
    /// Checks that a `--json PATH` and an `--html PATH` can be written (not a directory, parent
    /// exists, not there already unless `--force`), so a long run does not end in an
    /// unwritable path, and takes standard output for the JSON (`--json -`) or the text.
    pub(crate) fn checked(out: &'a OutputArgs) -> crate::Result<Self> {
        let mut outputs = Outputs::new(out.force.on);
        match &out.json.dest {
            Some(JsonDest::Stdout) => outputs.stdout("--json")?,
            _ => outputs.stdout("the text")?,
        }
        let json = out.json.dest.as_ref().and_then(JsonDest::file);
        for (flag, path) in [("--json", json), ("--html", out.html.as_deref())] {
            if let Some(p) = path {
                outputs.file(Output::Document, flag, p)?;
            }
        }
        Ok(Exporter {
            out,
            outputs,
            prom: None,
        })
    }

    /// Checks `--prom PATH` (a name ending in `.prom`: the collector reads only those, and
    /// no other file can be replaced by mistake); the document's figures go there at the end.
    pub(crate) fn prom(&mut self, path: Option<&Path>) -> crate::Result<()> {
        let Some(p) = path else { return Ok(()) };
        if p.extension().and_then(|e| e.to_str()) != Some("prom") {
            return Err(crate::Error::invalid(
                "--prom",
                p.display(),
                "a path ending in .prom (node_exporter's textfile collector reads only those)",
            ));
        }
        self.outputs.file(Output::Textfile, "--prom", p)?;
        self.prom = Some(p.to_path_buf());
        Ok(())
    }

    /// Checks a side file of the command (`Output::Side`) named by `flag`, under the same
    /// `--force`, a destination of its own.
    pub(crate) fn side(&mut self, flag: &'static str, path: Option<&Path>) -> crate::Result<()> {
        path.map_or(Ok(()), |p| self.outputs.file(Output::Side, flag, p))
    }

    /// The command's outputs, for one beside the document's (`run --io-log`,
    /// `--verify-state`).
    pub(crate) fn outputs(&mut self) -> &mut Outputs {
        &mut self.outputs
    }

    /// The one output step of every command that measures or judges: the document's JSON
    /// where `--json` says, its `text` on stdout unless the JSON went there, and its HTML
    /// report when `--html` asks and it holds something to draw (else says why not).
    pub(crate) fn emit(&self, doc: crate::model::Document, text: &str) -> anyhow::Result<()> {
        if !speaks_for_the_job() {
            return Ok(());
        }
        let out = self.out;
        if let Some(path) = &self.prom
            && let Some(families) = crate::render::textfile::families(&doc)
        {
            let page = crate::render::prom::text(&families);
            write_whole(Output::Textfile, path, page.as_bytes())?;
        }
        if !write_json(out, &doc)? {
            let hosts = crate::render::text::host::lines(&doc.hosts());
            print_result(&format!("{text}{hosts}"))?;
        }
        let Some(path) = &out.html else {
            return Ok(());
        };
        if let Some(why) = doc.nothing_to_draw() {
            crate::output::say!("halfpower: {why}, so no HTML report was written");
            return Ok(());
        }
        let source = match out.json.dest.as_ref().and_then(JsonDest::file) {
            Some(j) => j.display().to_string(),
            None => "(this run; its JSON was not saved)".to_string(),
        };
        let input = crate::model::Input { path: source, doc };
        let html = crate::render::html::render(std::slice::from_ref(&input));
        write_whole(Output::Document, path, html.as_bytes())?;
        crate::output::say!("halfpower: report written to {}", path.display());
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
    fn a_destination_taken_twice_is_refused_naming_both_flags() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("o.json");
        let mut outputs = Outputs::new(false);
        outputs.file(Output::Document, "--json", &json).unwrap();
        outputs
            .file(Output::Side, "--csv", &dir.path().join("o.csv"))
            .unwrap();
        let again = dir.path().join(".").join("o.json");
        let err = outputs
            .file(Output::Document, "--html", &again)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--html") && err.contains("--json") && err.contains("o.json"),
            "{err}"
        );
        // The null device takes any number.
        for flag in ["--log", "--capture"] {
            outputs
                .file(Output::Side, flag, Path::new("/dev/null"))
                .unwrap();
        }
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
