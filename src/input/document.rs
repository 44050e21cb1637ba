//! What `halfpower report` reads: recognizes each file's kind (run, quick, sweep, profile or
//! diagnose JSON; a monitor log as JSON lines or CSV, or any log `diagnose` reads), checks its
//! schema version, and refuses files it cannot draw with one line naming the file and why.
//! A log becomes a [`MonitorDocument`] with the diagnosis the caller's `diagnose` gives it.

use crate::error::Error;
use crate::model::diagnosis::Diagnosis;
use crate::model::log::Log;
use crate::model::monitor::MONITOR_SCHEMA_VERSION;
use crate::model::{Document, Input, Kind, MonitorDocument, Results, RunReport};
use serde_json::Value;
use std::path::Path;

/// How a log read for the report gets its diagnosis (`analysis::diagnose`).
pub type Diagnose<'a> = &'a dyn Fn(&Log) -> Diagnosis;

const KINDS: &str = "a run, quick, sweep, profile, scale, experiment, compare, replay, capture, verify, path, pts, selftest, doctor or diagnose JSON, or a monitor log (JSON lines or CSV), iostat -x -t output or perfmon CSV";

fn refuse(path: &str, why: impl Into<String>) -> Error {
    Error::refused(path, why.into())
}

/// The document of `kind` in `v` (a JSON object with that `kind`).
fn typed_document(path: &str, kind: Kind, v: Value) -> crate::Result<Document> {
    if kind == Kind::Monitor {
        return Err(refuse(
            path,
            "a monitor log is JSON lines without a kind, not a document with one",
        ));
    }
    Document::from_json(kind, v)
        .map_err(|e| refuse(path, format!("not a valid {} document: {e}", kind.name())))
}

/// The run document at `path` and its runs (its repetitions, or its one run), for a command
/// that reads runs (`compare`, `trend`); a refusal names `flag` and says it takes `what`.
pub fn runs_of(
    path: &Path,
    flag: &'static str,
    what: &str,
) -> crate::Result<(RunReport, Vec<Results>)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::invalid(flag, &shown, format!("a readable file ({e})")))?;
    let none = |_: &Log| -> Diagnosis { unreachable!("a log is refused before it is diagnosed") };
    let refuse = || Error::invalid(flag, &shown, what);
    if !text.trim_start().starts_with('{') {
        return Err(refuse());
    }
    match parse_expecting(&shown, &text, &none, what)?.doc {
        Document::Run(r) => {
            let runs =
                (r.repeat.as_ref()).map_or_else(|| vec![r.results.clone()], |rep| rep.runs.clone());
            Ok((*r, runs))
        }
        _ => Err(refuse()),
    }
}

/// Parses the text of `path` as one of the kinds the report draws.
pub fn parse(path: &str, text: &str, diagnose: Diagnose) -> crate::Result<Input> {
    parse_expecting(path, text, diagnose, KINDS)
}

/// [`parse`], its refusals saying `expected` is what the command takes (compare: run
/// documents only).
pub fn parse_expecting(
    path: &str,
    text: &str,
    diagnose: Diagnose,
    expected: &str,
) -> crate::Result<Input> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim().is_empty() {
        return Err(refuse(
            path,
            format!("the file is empty; expected {expected}"),
        ));
    }
    let doc = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) if map.contains_key("kind") => {
            let name = map.get("kind").and_then(Value::as_str).unwrap_or("");
            let (kind, supported) =
                match Kind::named(name).and_then(|k| Some((k, k.schema_version()?))) {
                    Some(k) => k,
                    None => {
                        return Err(refuse(
                            path,
                            format!("unknown kind '{name}'; expected {expected}"),
                        ));
                    }
                };
            match map.get("schema_version").and_then(Value::as_u64) {
                Some(v) if v > u64::from(supported) => {
                    return Err(refuse(
                        path,
                        format!(
                            "schema_version {v} is newer than this halfpower ({}) reads (up to {supported}); use a newer halfpower",
                            env!("CARGO_PKG_VERSION")
                        ),
                    ));
                }
                None => {
                    return Err(refuse(
                        path,
                        "no schema_version: not a document halfpower wrote",
                    ));
                }
                _ => {}
            }
            typed_document(path, kind, Value::Object(map))?
        }
        Ok(Value::Object(map)) if !map.contains_key("device") => {
            return Err(refuse(
                path,
                format!(
                    "a JSON object without 'kind': not a halfpower result; expected {expected}"
                ),
            ));
        }
        // A monitor record (JSON lines of one line), several lines of them, or any other log;
        // unless it is one document cut short.
        Ok(Value::Object(_)) => monitor(path, text, diagnose, expected)?,
        Err(_) => match super::cut_short(text) {
            Some(why) => return Err(refuse(path, why)),
            None => monitor(path, text, diagnose, expected)?,
        },
        Ok(_) => {
            return Err(refuse(
                path,
                format!("JSON, but not an object; expected {expected}"),
            ));
        }
    };
    let empty = doc.nothing_to_draw();
    if let Some(why) = empty {
        return Err(refuse(path, format!("{why}: nothing to draw")));
    }
    Ok(Input {
        path: path.to_string(),
        doc,
    })
}

fn monitor(path: &str, text: &str, diagnose: Diagnose, expected: &str) -> crate::Result<Document> {
    if text.trim_start().starts_with('{') {
        for line in text.lines().filter(|l| !l.trim().is_empty()).take(1) {
            let v: Value = serde_json::from_str(line).map_err(|e| {
                refuse(
                    path,
                    format!("line 1 is not JSON ({e}); expected {expected}"),
                )
            })?;
            if let Some(n) = v.get("schema_version").and_then(Value::as_u64)
                && n > u64::from(MONITOR_SCHEMA_VERSION)
            {
                return Err(refuse(
                    path,
                    format!(
                        "monitor schema_version {n} is newer than this halfpower reads (up to {MONITOR_SCHEMA_VERSION}); use a newer halfpower"
                    ),
                ));
            }
        }
    }
    let log = super::parse_log(path, text).map_err(|why| refuse(path, why))?;
    if log.disks.is_empty() {
        return Err(refuse(
            path,
            "no device intervals in the log: nothing to draw",
        ));
    }
    let diagnosis = diagnose(&log);
    Ok(Document::Monitor(Box::new(MonitorDocument {
        log,
        diagnosis,
    })))
}

/// Reads and parses every file; all must be of one kind.
pub fn read_all(paths: &[impl AsRef<Path>], diagnose: Diagnose) -> crate::Result<Vec<Input>> {
    let mut inputs: Vec<Input> = Vec::new();
    for p in paths {
        let path = p.as_ref().display().to_string();
        let text = std::fs::read(p.as_ref())
            .map_err(|e| refuse(&path, format!("cannot read it ({e})")))?;
        let text = String::from_utf8(text)
            .map_err(|_| refuse(&path, format!("not UTF-8 text; expected {KINDS}")))?;
        let input = parse(&path, &text, diagnose)?;
        if let Some(first) = inputs.first()
            && first.doc.kind() != input.doc.kind()
        {
            return Err(refuse(
                &path,
                format!(
                    "a {} result, but {} is a {} result; one report draws one kind, so make one report per kind",
                    input.doc.kind().name(),
                    first.path,
                    first.doc.kind().name()
                ),
            ));
        }
        inputs.push(input);
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> String {
        let none = |_: &Log| -> Diagnosis { unreachable!("no log is diagnosed here") };
        parse("f.json", text, &none).unwrap_err().to_string()
    }

    /// A command that takes one kind says that kind, not the report's fourteen.
    #[test]
    fn a_refusal_says_what_the_command_takes() {
        let none = |_: &Log| -> Diagnosis { unreachable!("no log is diagnosed here") };
        let run_only = |text: &str| {
            parse_expecting("a.json", text, &none, "a run document")
                .unwrap_err()
                .to_string()
        };
        for text in ["", r#"{"kind":"tea","schema_version":1}"#, "[1]", "{x"] {
            let said = run_only(text);
            assert!(said.ends_with("expected a run document"), "{said}");
            assert!(!said.contains("quick"), "{said}");
        }
        assert!(why("[1]").contains("a run, quick, sweep"));
    }

    #[test]
    fn refuses_what_it_cannot_draw_naming_the_file() {
        assert!(why("").starts_with("f.json: the file is empty"));
        assert!(why(r#"{"kind":"tea","schema_version":1}"#).contains("unknown kind 'tea'"));
        assert!(
            why(r#"{"kind":"run","schema_version":99}"#).contains("schema_version 99 is newer")
        );
        assert!(why(r#"{"kind":"run"}"#).contains("no schema_version"));
        assert!(why(r#"{"kind":"run","schema_version":1}"#).contains("not a valid run document"));
        assert!(why(r#"{"name":"x"}"#).contains("without 'kind'"));
        assert!(why("[1,2]").contains("not an object"));
        assert!(why("hello world\n").contains("not a monitor log"));
        assert!(
            why(r#"{"schema_version":7,"device":"sda","time":"x"}"#)
                .contains("monitor schema_version 7")
        );
        for e in [why(""), why("[1]"), why("x")] {
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    /// A document written before warnings were kinds (and in older words: "virtual disks often
    /// claim to be") still reads: each warning as the sentence the file holds, written back
    /// unchanged.
    #[test]
    fn older_warnings_read_back_as_their_sentences() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/report/run-file.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let none = |_: &Log| -> Diagnosis { unreachable!("no log is diagnosed here") };
        let Document::Run(r) = parse("run-file.json", &text, &none).unwrap().doc else {
            panic!("not a run");
        };
        let file: Value = serde_json::from_str(&text).unwrap();
        let crate::model::Warning::Written(said) = &r.warnings[0] else {
            panic!("{:?}", r.warnings);
        };
        assert!(said.contains("(virtual disks often claim to be)"), "{said}");
        assert_eq!(serde_json::to_value(&r.warnings).unwrap(), file["warnings"]);
    }
}
