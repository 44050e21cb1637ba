//! `sweep --from`: the points of a sweep JSON, or of a CSV with at least
//! `rw,bs,qd,threads,mb_per_s` (halfpower's own `--csv`, or another tool's).

use crate::error::Error;
use crate::model::sweep::{LatencyBrief, Point};
use crate::plan::RwMode;
use crate::units::ByteSize;
use crate::units::Choice;
use serde::Deserialize;
use std::path::Path;

fn bad_file(path: &Path, what: impl Into<String>) -> Error {
    Error::invalid("--from", path.display(), what)
}

/// Reads the points of a sweep JSON or a CSV with at least `rw,bs,qd,threads,mb_per_s`.
/// Every problem is an [`Error::Invalid`] naming the file, the line and what is wrong.
pub fn read_points(path: &Path) -> crate::Result<Vec<Point>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad_file(path, format!("a readable sweep JSON or CSV file ({e})")))?;
    points_from_text(path, &text)
}

/// [`read_points`] of the text of file `path`.
pub fn points_from_text(path: &Path, text: &str) -> crate::Result<Vec<Point>> {
    let points = if text.trim_start().starts_with('{') {
        from_json(path, text)?
    } else {
        from_csv(path, text)?
    };
    if points.is_empty() {
        return Err(bad_file(
            path,
            "a sweep with at least one point (it has none)",
        ));
    }
    let mut seen = Vec::new();
    for p in &points {
        let key = (&p.rw, p.bs_bytes, p.qd, p.threads);
        if seen.contains(&key) {
            return Err(bad_file(
                path,
                format!(
                    "each point once (rw {} bs {} qd {} threads {} appears twice)",
                    p.rw,
                    ByteSize(p.bs_bytes),
                    p.qd,
                    p.threads
                ),
            ));
        }
        seen.push(key);
    }
    Ok(points)
}

fn from_json(path: &Path, text: &str) -> crate::Result<Vec<Point>> {
    #[derive(Deserialize)]
    struct Doc {
        schema_version: u32,
        kind: String,
        points: Vec<Point>,
    }
    let doc: Doc = serde_json::from_str(text)
        .map_err(|e| bad_file(path, format!("a sweep JSON document ({e})")))?;
    if doc.kind != "sweep" {
        return Err(bad_file(
            path,
            format!("a sweep JSON document (its kind is '{}')", doc.kind),
        ));
    }
    if doc.schema_version == 0 || doc.schema_version > crate::model::SCHEMA_VERSION {
        return Err(bad_file(
            path,
            format!(
                "schema_version 1..={} (it has {}; a newer halfpower wrote it)",
                crate::model::SCHEMA_VERSION,
                doc.schema_version
            ),
        ));
    }
    Ok(doc.points)
}

/// The points of a CSV with at least `rw,bs,qd,threads,mb_per_s`, in line order; the first
/// line that cannot be read is the error.
fn from_csv(path: &Path, text: &str) -> crate::Result<Vec<Point>> {
    let mut lines = super::csv_records(text)
        .into_iter()
        .filter(|(_, r)| !matches!(r, Ok(c) if c.iter().all(|x| x.trim().is_empty())));
    let Some((_, header)) = lines.next() else {
        return Err(bad_file(
            path,
            "a CSV with a header line (the file is empty)",
        ));
    };
    let columns = CsvColumns::of(path, header.unwrap_or_default())?;
    let mut points = Vec::new();
    for (n, line) in lines {
        let f = line.map_err(|e| bad_file(path, at_line(n, &format!("readable CSV ({e})"))))?;
        points.push(columns.point(path, n, &f)?);
    }
    Ok(points)
}

/// `what`, said of line `n`.
fn at_line(n: usize, what: &str) -> String {
    format!("line {n}: {what}")
}

/// The `what` column of line `n` as a whole number (`text` as written).
fn whole(path: &Path, n: usize, what: &str, text: &str) -> crate::Result<u32> {
    text.parse().map_err(|_| {
        bad_file(
            path,
            at_line(n, &format!("{what} as a whole number (not '{text}')")),
        )
    })
}

/// The `rw` of line `n` (`text` as written).
fn rw_of(path: &Path, n: usize, text: &str) -> crate::Result<RwMode> {
    RwMode::named_ignoring_case(text).ok_or(()).map_err(|_| {
        bad_file(
            path,
            at_line(
                n,
                &format!("rw as read, write, randread, randwrite, rw or randrw (not '{text}')"),
            ),
        )
    })
}

/// The `mb_per_s` of line `n` (`text` as written): a finite number, at least zero.
fn mb_per_s_of(path: &Path, n: usize, text: &str) -> crate::Result<f64> {
    text.parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            bad_file(
                path,
                at_line(n, &format!("mb_per_s as a number >= 0 (not '{text}')")),
            )
        })
}

/// A sweep CSV's header: its column names, lowercased.
struct CsvColumns {
    /// The header's names, trimmed and lowercased.
    names: Vec<String>,
}

/// The columns every sweep CSV has.
const REQUIRED: [&str; 5] = ["rw", "bs", "qd", "threads", "mb_per_s"];

impl CsvColumns {
    /// The columns of `header`; an error naming those of [`REQUIRED`] it lacks.
    fn of(path: &Path, header: Vec<String>) -> crate::Result<CsvColumns> {
        let columns = CsvColumns {
            names: header
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
        };
        let missing: Vec<&str> = REQUIRED
            .iter()
            .copied()
            .filter(|n| columns.col(n).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(bad_file(
                path,
                format!(
                    "a CSV whose header has the columns rw,bs,qd,threads,mb_per_s (missing: {})",
                    missing.join(",")
                ),
            ));
        }
        Ok(columns)
    }

    /// The index of column `name`.
    fn col(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|h| h == name)
    }

    /// The point of line `n`, whose fields are `f`.
    fn point(&self, path: &Path, n: usize, f: &[String]) -> crate::Result<Point> {
        let get = |i: usize| f.get(i).map(|s| s.trim()).unwrap_or("");
        let field = |name: &str| get(self.col(name).unwrap_or(0));
        let rw = rw_of(path, n, field("rw"))?;
        let bs: ByteSize = field("bs")
            .parse()
            .map_err(|e: String| bad_file(path, at_line(n, &format!("bs: {e}"))))?;
        let qd = whole(path, n, "qd", field("qd"))?;
        let threads = whole(path, n, "threads", field("threads"))?;
        let mbs = mb_per_s_of(path, n, field("mb_per_s"))?;
        if bs.0 == 0 || qd == 0 || threads == 0 {
            return Err(bad_file(path, at_line(n, "bs, qd and threads above zero")));
        }
        let num = |c: Option<usize>| c.and_then(|i| get(i).parse::<f64>().ok());
        let latency_us = num(self.col("p99_us")).map(|p99v| LatencyBrief {
            p50: num(self.col("p50_us")).unwrap_or(f64::NAN),
            p99: p99v,
            max: num(self.col("max_us")).unwrap_or(f64::NAN),
        });
        Ok(Point {
            rw,
            bs_bytes: bs.0,
            qd,
            threads,
            iops: num(self.col("iops")).unwrap_or(mbs * 1e6 / bs.0 as f64),
            bytes_per_s: mbs * 1e6,
            latency_us,
            cpu_us_per_io: num(self.col("cpu_us_per_io")),
            steady: self.col("steady").and_then(|i| match get(i).trim() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }),
            ci95_pct: None,
            seconds: num(self.col("seconds")),
            engine: None,
            workload: None,
            results: None,
            repeat: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        f
    }

    #[test]
    fn csv_from_another_tool_is_read() {
        let f = write("rw,bs,qd,threads,mb_per_s\nread,4k,1,1,20.5\nread,64k,1,1,200\n");
        let pts = read_points(f.path()).unwrap();
        assert_eq!(pts.len(), 2);
        assert_eq!(pts[1].bs_bytes, 65536);
        assert_eq!(pts[1].bytes_per_s, 200e6);
        assert!(pts[0].latency_us.is_none());
        let a = crate::analysis::sweep::analyse_points(&pts, None);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].half_power[0].bs_bytes, Some(65536));
    }

    #[test]
    fn our_csv_reads_back() {
        let f = write("rw,bs,qd,threads,mb_per_s\nrandread,16k,4,2,12.25\n");
        let pts = read_points(f.path()).unwrap();
        let back = write(&crate::render::csv::sweep_csv(&pts));
        let again = read_points(back.path()).unwrap();
        assert_eq!(again[0].bs_bytes, 16384);
        assert_eq!(again[0].threads, 2);
        assert!((again[0].bytes_per_s - 12.25e6).abs() < 1.0);
    }

    #[test]
    fn bad_files_name_the_problem() {
        let cases = [
            ("rw,bs,qd,mb_per_s\nread,4k,1,5\n", "missing: threads"),
            ("", "empty"),
            ("rw,bs,qd,threads,mb_per_s\n", "at least one point"),
            ("rw,bs,qd,threads,mb_per_s\nread,4q,1,1,5\n", "line 2: bs"),
            (
                "rw,bs,qd,threads,mb_per_s\nsideways,4k,1,1,5\n",
                "not 'sideways'",
            ),
            (
                "rw,bs,qd,threads,mb_per_s\nread,4k,x,1,5\n",
                "qd as a whole",
            ),
            (
                "rw,bs,qd,threads,mb_per_s\nread,4k,1,1,-5\n",
                "mb_per_s as a number",
            ),
            (
                "rw,bs,qd,threads,mb_per_s\nread,4k,1,1,5\nread,4k,1,1,6\n",
                "twice",
            ),
            (
                r#"{"schema_version":1,"kind":"run","points":[]}"#,
                "its kind is 'run'",
            ),
            (
                r#"{"schema_version":7,"kind":"sweep","points":[]}"#,
                "newer halfpower",
            ),
            (r#"{"kind":"sweep"}"#, "a sweep JSON document"),
        ];
        for (text, want) in cases {
            let f = write(text);
            let err = read_points(f.path()).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            assert!(err.to_string().contains(want), "{text:?}: {err}");
        }
    }
}
