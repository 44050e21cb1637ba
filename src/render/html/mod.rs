//! The self-contained HTML report (`halfpower report`, `--html` on run, quick, sweep and
//! profile): one file of HTML, CSS and inline SVG, with no script, font or network request,
//! readable with JavaScript off, printable, in light and dark schemes.
//!
//! `input::document` recognizes and checks what it is given; one module per kind draws its charts
//! ([`run`] for run and quick, [`sweep`], [`profile`], [`monitor`] for monitor logs and
//! diagnose JSON) with the chart writers in [`svg`] and [`categories`]; this module wraps
//! them in the page: header (host, kernel, version, command, date per input), the sections,
//! and a footer defining every figure drawn. The same inputs always give the same bytes.

mod axis;
pub mod categories;
mod compare;
mod doctor;
mod experiment;
mod marks;
mod monitor;
mod path;
mod profile;
mod pts;
mod replay;
mod run;
mod scale;
mod selftest;
pub mod svg;
mod sweep;
mod trend;
mod verify;

use crate::model::{Document, Input, Kind};
use std::fmt::Write;

/// Formats a coordinate with one decimal (stable output).
pub(crate) fn c(v: f64) -> String {
    format!("{v:.1}")
}

/// Escapes text for HTML and SVG content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// How the legend names an input: its target and the options that tell it apart; the file
/// name is added when two inputs would otherwise read the same.
pub fn labels(inputs: &[Input]) -> Vec<String> {
    let base: Vec<String> = inputs.iter().map(describe).collect();
    base.iter()
        .zip(inputs)
        .map(|(b, i)| {
            if base.iter().filter(|o| *o == b).count() > 1 {
                let file = std::path::Path::new(&i.path)
                    .file_name()
                    .map_or(i.path.clone(), |f| f.to_string_lossy().into_owned());
                format!("{b} ({file})")
            } else {
                b.clone()
            }
        })
        .collect()
}

/// What each kind of document gives the report, in the kind's own module: how the legend
/// names an input (`path`: the file it was read from), where it came from, and the section of
/// every input of the kind. [`crate::model::with_documents!`]'s table dispatches to it.
trait Drawn {
    fn describe(&self, path: &str) -> String;
    fn origin(&self) -> Origin;
    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>);
}

/// The dispatch on every kind, expanded from the table of kinds.
macro_rules! drawn {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, )*) => {
        fn describe(i: &Input) -> String {
            match &i.doc {
                $(Document::$variant(r) => Drawn::describe(&**r, &i.path),)*
            }
        }

        fn origin(i: &Input) -> Origin {
            match &i.doc {
                $(Document::$variant(r) => Drawn::origin(&**r),)*
            }
        }

        fn section(kind: Kind, inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
            match kind {
                $(Kind::$variant => <$ty as Drawn>::section(inputs, labels),)*
            }
        }
    };
}

crate::model::with_documents!(drawn);

/// One row of the header: what an input is and where it came from.
struct Origin {
    host: String,
    kernel: String,
    version: String,
    command: String,
    date: String,
}

impl Origin {
    /// A measured document's: its host and its header.
    fn of(host: &crate::oscounters::host::Host, h: &crate::model::Header) -> Origin {
        Origin {
            host: format!("{} ({} CPUs)", host.hostname, host.cpus),
            kernel: host.kernel.clone(),
            version: h.tool.version.clone(),
            command: h.command.join(" "),
            date: h.date.clone(),
        }
    }

    /// A document that records no host: its header only.
    fn header(h: &crate::model::Header) -> Origin {
        Origin {
            host: none(),
            kernel: none(),
            version: h.tool.version.clone(),
            command: h.command.join(" "),
            date: h.date.clone(),
        }
    }
}

/// What a header cell shows where the document records nothing.
fn none() -> String {
    "-".to_string()
}

const CSS: &str = include_str!("report.css");

/// A table from a header row and body rows; cells are escaped, the first column is left-aligned.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table>\n<thead><tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for cell in r {
            let _ = write!(out, "<td>{}</td>", esc(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// What the host did while each input measured, a sentence per input that has host records
/// (docs/figures.md, "The host"); the ones whose figures it could have moved stand out.
fn host_notes(out: &mut String, inputs: &[Input], labels: &[String]) {
    for (i, l) in inputs.iter().zip(labels) {
        let hosts = i.doc.hosts();
        let text = crate::render::text::host::lines(&hosts);
        if text.is_empty() {
            continue;
        }
        let class = if hosts.iter().any(|h| h.noise.interfered()) {
            "verdict"
        } else {
            "note"
        };
        let _ = writeln!(
            out,
            "<p class=\"{class}\"><b>{}</b>: {}</p>",
            esc(l),
            esc(text.trim_end())
        );
    }
}

/// Every warning of each input, worded as its command said it (`render::text::warning`): a
/// figure a warning qualifies (reads served by a cache, data that came back zeroed, failed
/// I/Os) is not the device's, and the page says so as the terminal did.
fn warning_notes(out: &mut String, inputs: &[Input], labels: &[String]) {
    for (i, l) in inputs.iter().zip(labels) {
        for w in crate::render::text::warning::said(&i.doc) {
            let _ = writeln!(
                out,
                "<p class=\"verdict warning\"><b>{}</b>: warning: {}</p>",
                esc(l),
                esc(&w)
            );
        }
    }
}

/// A figure with several words: the definitions printed in the footer.
pub struct Definition {
    /// The figure's name as the charts use it.
    pub name: &'static str,
    /// What it is, where it is timed from and to, its unit.
    pub text: &'static str,
    /// Where the docs define it: file and section name.
    pub doc: &'static str,
}

/// Renders the report of `inputs` (one kind, checked by `input::document::read_all`).
pub fn render(inputs: &[Input]) -> String {
    let kind = inputs.first().map_or(Kind::Run, |i| i.doc.kind());
    let labels = labels(inputs);
    let (body, defs) = section(kind, inputs, &labels);
    let mut out = String::new();
    let title = format!("halfpower {} report", kind.name());
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
<meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let rows: Vec<Vec<String>> = inputs
        .iter()
        .zip(&labels)
        .map(|(i, l)| {
            let o = origin(i);
            vec![
                i.path.clone(),
                l.clone(),
                o.host,
                o.kernel,
                o.version,
                o.date,
                o.command,
            ]
        })
        .collect();
    out.push_str(&table(
        &[
            "file",
            "series",
            "host",
            "kernel",
            "halfpower",
            "date",
            "command line",
        ],
        &rows,
    ));
    let _ = writeln!(
        out,
        "<p class=\"note\">Report written by halfpower {}. MB/s = 10<sup>6</sup> bytes per second; request sizes 4k, 1m = KiB, MiB (powers of two). Hover over a point, bar or cell for its exact figures.</p>\n</header>\n<main>",
        env!("CARGO_PKG_VERSION")
    );
    host_notes(&mut out, inputs, &labels);
    warning_notes(&mut out, inputs, &labels);
    out.push_str(&doctor::setup_section(inputs, &labels));
    out.push_str(&body);
    out.push_str("</main>\n<footer>\n");
    // No heading over nothing: a page without definitions ends with its sections.
    if !defs.is_empty() {
        out.push_str("<h2>Definitions</h2>\n<dl>\n");
    }
    for d in &defs {
        let _ = writeln!(
            out,
            "<dt>{}</dt><dd>{} <span class=\"doc\">({})</span></dd>",
            esc(d.name),
            esc(d.text),
            esc(d.doc)
        );
    }
    if !defs.is_empty() {
        out.push_str("</dl>\n");
    }
    out.push_str("</footer>\n</body>\n</html>\n");
    out
}

/// The default output: `halfpower-report.html` next to the first input.
pub fn default_output(first: &std::path::Path) -> std::path::PathBuf {
    first
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(
            || std::path::PathBuf::from("halfpower-report.html"),
            |p| p.join("halfpower-report.html"),
        )
}
