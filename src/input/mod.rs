//! Reading files into documents: other tools' logs (iostat, perfmon), halfpower's own monitor
//! logs, sweep CSV/JSON for `sweep --from`, profile files for `diagnose --profile`, and any
//! result for `report`. Parsers only: every problem is a warning or a one-line refusal naming
//! the file; nothing here computes a figure the file does not hold.

pub mod document;
pub mod iostat;
pub mod limit;
pub mod monitor_log;
pub mod perfmon;
pub mod profile;
pub mod sweep;
pub mod timefmt;
pub mod trace;

use crate::model::log::Log;
use crate::model::warning::LineProblem;

/// The data rows of a log's CSV records after its header: blank rows are left out; a row that
/// cannot be read, or whose field count is not the header's `width`, is warned about in `log`
/// (file and line) and skipped.
pub fn data_rows(
    log: &mut Log,
    records: impl Iterator<Item = (usize, Result<Vec<String>, String>)>,
    width: usize,
) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (line, cells) in records {
        match cells {
            Ok(c) if c.iter().all(|x| x.trim().is_empty()) => {}
            Ok(c) if c.len() != width => log.warn(
                line,
                LineProblem::CsvFields {
                    fields: c.len(),
                    header: width,
                },
            ),
            Ok(c) => out.push((line, c)),
            Err(e) => log.warn(line, LineProblem::UnreadableCsv(e)),
        }
    }
    out
}

/// The records of CSV `text` (RFC 4180, through the `csv` crate: quoted commas, doubled quotes,
/// CRLF, ragged rows), each with the line it starts on (1-based), or why it could not be read.
pub fn csv_records(text: &str) -> Vec<(usize, Result<Vec<String>, String>)> {
    // The csv crate counts a CRLF line end as the start of the next record's line, so line
    // numbers drift by one per CRLF record; line ends are made LF first.
    let text = text.trim_start_matches('\u{feff}').replace("\r\n", "\n");
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    let mut rec = csv::StringRecord::new();
    loop {
        let line = r.position().line() as usize;
        match r.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let line = rec.position().map_or(line, |p| p.line() as usize);
                out.push((line, Ok(rec.iter().map(str::to_string).collect())))
            }
            Err(e) => {
                let line = e.position().map_or(line, |p| p.line() as usize);
                out.push((line, Err(e.to_string())));
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    break;
                }
            }
        }
    }
    out
}

/// The `kind` of a whole-text JSON document of halfpower's (a result, not JSON lines).
/// Why `text` reads as one JSON document cut short (a file copied or written in part), not as
/// JSON lines: it opens an object that its first line does not close, and the text ends inside
/// it. None for anything else.
pub fn cut_short(text: &str) -> Option<String> {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    let first = text.lines().next()?;
    if !first.starts_with('{') || serde_json::from_str::<serde_json::Value>(first).is_ok() {
        return None;
    }
    let e = serde_json::from_str::<serde_json::Value>(text).err()?;
    e.is_eof().then(|| {
        format!(
            "the JSON ends early, at line {} column {}: the file was cut short or is still being \
             written",
            e.line(),
            e.column()
        )
    })
}

fn result_kind(text: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("kind")?.as_str().map(str::to_string)
}

/// Recognizes the format from the text and parses it; `Err` says why the text is not a log.
pub fn parse_log(path: &str, text: &str) -> Result<Log, String> {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    if first.starts_with("\"(PDH-CSV") {
        perfmon::parse(path, text)
    } else if first.starts_with("schema_version,") {
        Ok(monitor_log::parse_csv(path, text))
    } else if first.starts_with('{') {
        if let Some(why) = cut_short(text) {
            return Err(why);
        }
        if let Some(kind) = result_kind(text) {
            return Err(format!(
                "a halfpower {kind} result, not a log (`halfpower report` draws it; diagnose \
                 reads monitor logs, `iostat -x -t` output and perfmon CSV)"
            ));
        }
        Ok(monitor_log::parse_jsonl(path, text))
    } else if first.starts_with("Linux ")
        || text
            .lines()
            .any(|l| l.starts_with("Device") && l.contains("r/s"))
    {
        Ok(iostat::parse(path, text))
    } else {
        let shown: String = first.chars().take(40).collect();
        Err(format!(
            "not a monitor log (CSV or JSON lines), `iostat -x -t` output or perfmon CSV; it starts with '{shown}'"
        ))
    }
}

#[cfg(test)]
mod cut_tests {
    use super::*;

    /// A pretty-printed document cut at any byte reads as cut short; JSON lines, whole or with
    /// a cut last line, do not (their lines are read one by one).
    #[test]
    fn a_document_cut_short_is_told_from_json_lines() {
        let doc = "{\n  \"schema_version\": 2,\n  \"kind\": \"run\",\n  \"results\": [1, 2]\n}\n";
        for cut in 3..doc.len() - 2 {
            let why = cut_short(&doc[..cut]).unwrap_or_else(|| panic!("{cut}: {}", &doc[..cut]));
            assert!(why.starts_with("the JSON ends early, at line"), "{why}");
        }
        assert_eq!(cut_short(doc), None);
        let lines = "{\"schema_version\":2,\"device\":\"sda\"}\n{\"schema_version\":2,\"dev";
        assert_eq!(cut_short(lines), None);
        assert_eq!(cut_short("Linux 6.1 (host)"), None);
        let said = parse_log("t.json", &doc[..40]).unwrap_err();
        assert!(said.starts_with("the JSON ends early"), "{said}");
    }
}
