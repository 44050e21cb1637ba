//! Reading a trace of requests to replay: halfpower's own format (`capture` writes it) or fio's
//! iolog, versions 2 and 3. Parsers only: each line is checked and a bad one refused with its
//! number; what a replay cannot issue (syncs, trims, file management) is counted and said.
//!
//! halfpower's trace format, version 1 (text, one request per line, `#` starts a comment):
//!
//! ```text
//! # halfpower trace v1
//! # time_us dir offset bytes
//! 0.000 R 1048576 4096
//! 412.5 W 8192 65536
//! ```
//!
//! `time_us` is the request's time in microseconds from the trace's start (non-decreasing),
//! `dir` is `R` (read), `W` (write), `F` (flush) or `D` (discard), `offset` and `bytes` are byte
//! counts. Further fields (capture's flags and times) are ignored by the replay.

pub use crate::access::replay::{TraceFormat, TracedRequest};
use crate::engine::IoDir;
use thiserror::Error;

/// Why a trace cannot be read.
#[derive(Debug, Error, PartialEq)]
pub enum TraceError {
    /// The first line names no format halfpower reads.
    #[error(
        "{file}: not a trace halfpower reads (its first line is '{first}'; accepted: '# halfpower trace v1', 'fio version 2 iolog', 'fio version 3 iolog')"
    )]
    Format {
        /// The trace.
        file: String,
        /// Its first line, shortened.
        first: String,
    },
    /// A line cannot be read.
    #[error("{file} line {line}: {what}")]
    Line {
        /// The trace.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong and what would be accepted.
        what: String,
    },
    /// The trace addresses more than one file or device; a replay has one target.
    #[error(
        "{file}: the trace addresses {count} files ({names}); halfpower replays one onto one target (split the trace per file)"
    )]
    ManyFiles {
        /// The trace.
        file: String,
        /// How many.
        count: usize,
        /// The first few.
        names: String,
    },
    /// Nothing to replay.
    #[error("{file}: no read or write to replay")]
    Empty {
        /// The trace.
        file: String,
    },
}

/// A trace read: its requests in order and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The format it was in.
    pub format: TraceFormat,
    /// The reads and writes, in the trace's order.
    pub requests: Vec<TracedRequest>,
    /// The one file or device it names (fio's iologs), if any.
    pub file: Option<String>,
    /// Syncs and flushes left out.
    pub syncs: u64,
    /// Trims and discards left out.
    pub trims: u64,
}

impl Trace {
    /// Whether the requests carry times (else they are replayed as fast as a depth allows).
    pub fn timed(&self) -> bool {
        self.requests.first().is_some_and(|r| r.at_ns.is_some())
    }

    /// The highest byte any request reaches.
    pub fn end(&self) -> u64 {
        self.requests
            .iter()
            .map(|r| r.offset.saturating_add(r.len))
            .max()
            .unwrap_or(0)
    }

    /// The largest request, bytes.
    pub fn max_len(&self) -> u64 {
        self.requests.iter().map(|r| r.len).max().unwrap_or(0)
    }

    /// The span from the first request's time to the last's, ns (0 without times).
    pub fn span_ns(&self) -> u64 {
        match (self.requests.first(), self.requests.last()) {
            (Some(a), Some(b)) => b.at_ns.unwrap_or(0) - a.at_ns.unwrap_or(0),
            _ => 0,
        }
    }
}

/// Largest request accepted in a trace (halfpower's largest request size).
const MAX_LEN: u64 = 256 << 20;

/// Reads trace `text` (named `file` in errors).
pub fn parse(file: &str, text: &str) -> Result<Trace, TraceError> {
    let first = text.lines().next().unwrap_or("").trim();
    let format = match first {
        "# halfpower trace v1" => TraceFormat::Halfpower,
        "fio version 2 iolog" => TraceFormat::FioV2,
        "fio version 3 iolog" => TraceFormat::FioV3,
        _ => {
            return Err(TraceError::Format {
                file: file.into(),
                first: first.chars().take(60).collect(),
            });
        }
    };
    let mut p = Parser {
        file,
        trace: Trace {
            format,
            requests: Vec::new(),
            file: None,
            syncs: 0,
            trims: 0,
        },
        files: Vec::new(),
        waited_ns: None,
        last_ns: 0,
    };
    for (i, line) in text.lines().enumerate().skip(1) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        match format {
            TraceFormat::Halfpower => p.halfpower_line(i + 1, &fields)?,
            TraceFormat::FioV2 => p.fio_line(i + 1, None, &fields)?,
            TraceFormat::FioV3 => {
                let at = p.number(i + 1, fields[0], "a time in µs")?;
                p.fio_line(i + 1, Some(at.saturating_mul(1000)), &fields[1..])?
            }
        }
    }
    if p.files.len() > 1 {
        return Err(TraceError::ManyFiles {
            file: file.into(),
            count: p.files.len(),
            names: p
                .files
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    p.trace.file = p.files.pop();
    if p.trace.requests.is_empty() {
        return Err(TraceError::Empty { file: file.into() });
    }
    Ok(p.trace)
}

/// The state of one parse.
struct Parser<'a> {
    file: &'a str,
    trace: Trace,
    files: Vec<String>,
    /// fio v2: the time its `wait` actions add up to (None until the first `wait`).
    waited_ns: Option<u64>,
    /// The last request's time, ns (times must not go back).
    last_ns: u64,
}

impl Parser<'_> {
    fn bad(&self, line: usize, what: impl Into<String>) -> TraceError {
        TraceError::Line {
            file: self.file.into(),
            line,
            what: what.into(),
        }
    }

    fn number(&self, line: usize, s: &str, what: &str) -> Result<u64, TraceError> {
        s.parse()
            .map_err(|_| self.bad(line, format!("'{s}' is not {what} (a whole number)")))
    }

    /// Adds a request at `at_ns` after checking its time and size.
    fn push(
        &mut self,
        line: usize,
        at_ns: Option<u64>,
        dir: IoDir,
        offset: u64,
        len: u64,
    ) -> Result<(), TraceError> {
        if len == 0 || len > MAX_LEN {
            return Err(self.bad(
                line,
                format!("a request of {len} bytes; accepted: 1 byte to 256 MiB"),
            ));
        }
        if offset.checked_add(len).is_none() {
            return Err(self.bad(line, format!("offset {offset} + {len} bytes overflows")));
        }
        if let Some(t) = at_ns {
            if t < self.last_ns {
                return Err(self.bad(
                    line,
                    format!(
                        "time {} µs is before the previous request's {} µs (times must not go back)",
                        t / 1000,
                        self.last_ns / 1000
                    ),
                ));
            }
            self.last_ns = t;
        }
        self.trace.requests.push(TracedRequest {
            at_ns,
            dir,
            offset,
            len,
        });
        Ok(())
    }

    fn halfpower_line(&mut self, line: usize, f: &[&str]) -> Result<(), TraceError> {
        if f.len() < 4 {
            return Err(self.bad(
                line,
                format!("{} fields; expected: time_us dir offset bytes", f.len()),
            ));
        }
        let us: f64 = f[0]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0 && *t < 1e15)
            .ok_or_else(|| self.bad(line, format!("'{}' is not a time in µs", f[0])))?;
        let offset = self.number(line, f[2], "an offset in bytes")?;
        let len = self.number(line, f[3], "a length in bytes")?;
        let at = Some((us * 1000.0).round() as u64);
        match f[1] {
            "R" => self.push(line, at, IoDir::Read, offset, len),
            "W" => self.push(line, at, IoDir::Write, offset, len),
            "F" => {
                self.trace.syncs += 1;
                Ok(())
            }
            "D" => {
                self.trace.trims += 1;
                Ok(())
            }
            d => Err(self.bad(line, format!("direction '{d}'; accepted: R, W, F, D"))),
        }
    }

    /// One line of a fio iolog after its time (v3), if any.
    fn fio_line(&mut self, line: usize, at: Option<u64>, f: &[&str]) -> Result<(), TraceError> {
        let (name, action) = match f {
            [name, action, ..] => (*name, *action),
            _ => return Err(self.bad(line, "expected: [time] filename action [offset length]")),
        };
        match (action, f.len()) {
            ("add" | "open" | "close", 2) => {
                if action == "add" && !self.files.iter().any(|x| x == name) {
                    self.files.push(name.to_string());
                }
                return Ok(());
            }
            ("sync" | "datasync", _) => {
                self.trace.syncs += 1;
                return Ok(());
            }
            ("wait", 4) if at.is_none() => {
                let us = self.number(line, f[2], "a wait in µs")?;
                self.waited_ns = Some(self.waited_ns.unwrap_or(0) + us.saturating_mul(1000));
                return Ok(());
            }
            _ => {}
        }
        if f.len() != 4 {
            return Err(self.bad(
                line,
                format!(
                    "'{action}' with {} fields; expected: filename action offset length",
                    f.len()
                ),
            ));
        }
        if !self.files.iter().any(|x| x == name) {
            self.files.push(name.to_string());
        }
        let offset = self.number(line, f[2], "an offset in bytes")?;
        let len = self.number(line, f[3], "a length in bytes")?;
        // A v2 log with waits has times; one without has none.
        let at = at.or(self.waited_ns);
        let first_timed = self.trace.requests.first().map(|r| r.at_ns.is_some());
        if first_timed.is_some_and(|t| t != at.is_some()) {
            return Err(self.bad(
                line,
                "a 'wait' after requests without one: times cannot be given to the earlier ones",
            ));
        }
        match action {
            "read" => self.push(line, at, IoDir::Read, offset, len),
            "write" => self.push(line, at, IoDir::Write, offset, len),
            "trim" => {
                self.trace.trims += 1;
                Ok(())
            }
            a => Err(self.bad(
                line,
                format!("action '{a}'; accepted: add, open, close, read, write, sync, datasync, trim, wait (v2)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halfpower_trace_reads_times_directions_and_skips_flushes() {
        let t = parse(
            "t",
            "# halfpower trace v1\n# time_us dir offset bytes\n0 R 0 4096\n500.5 W 8192 65536 q=3\n600 F 0 0\n",
        )
        .unwrap();
        assert_eq!(t.requests.len(), 2);
        assert_eq!(t.requests[1].at_ns, Some(500_500));
        assert_eq!(t.requests[1].dir, IoDir::Write);
        assert_eq!((t.syncs, t.end(), t.max_len()), (1, 8192 + 65536, 65536));
        assert!(t.timed());
    }

    #[test]
    fn fio_v3_times_are_microseconds_and_v2_waits_add_up() {
        let v3 = parse(
            "t",
            "fio version 3 iolog\n0 /dev/x add\n0 /dev/x open\n10 /dev/x read 0 4096\n2000 /dev/x write 4096 4096\n",
        )
        .unwrap();
        assert_eq!(v3.requests[1].at_ns, Some(2_000_000));
        assert_eq!(v3.file.as_deref(), Some("/dev/x"));
        let v2 = parse(
            "t",
            "fio version 2 iolog\n/f add\n/f open\n/f wait 1000 0\n/f read 0 4096\n/f wait 500 0\n/f read 0 4096\n",
        )
        .unwrap();
        assert_eq!(v2.requests[1].at_ns, Some(1_500_000));
        let untimed = parse("t", "fio version 2 iolog\n/f read 0 4096\n").unwrap();
        assert!(!untimed.timed());
    }

    #[test]
    fn bad_traces_are_refused_with_their_line() {
        let cases = [
            ("garbage\n", "not a trace"),
            ("# halfpower trace v1\n0 R 0\n", "line 2: 3 fields"),
            ("# halfpower trace v1\n0 X 0 4096\n", "direction 'X'"),
            (
                "# halfpower trace v1\n5 R 0 4096\n4 R 0 4096\n",
                "line 3: time 4 µs",
            ),
            ("# halfpower trace v1\n0 R 0 0\n", "0 bytes"),
            (
                "# halfpower trace v1\n0 R 18446744073709551615 4096\n",
                "overflows",
            ),
            (
                "fio version 3 iolog\nx /f read 0 4096\n",
                "'x' is not a time",
            ),
            (
                "fio version 2 iolog\n/a read 0 4096\n/b read 0 4096\n",
                "2 files",
            ),
            ("fio version 2 iolog\n/a add\n", "no read or write"),
            (
                "fio version 2 iolog\n/a read 0 4096\n/a wait 5 0\n/a read 0 4096\n",
                "'wait' after",
            ),
        ];
        for (text, want) in cases {
            let e = parse("t", text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
