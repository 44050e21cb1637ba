//! `sweep --from`: the points of a sweep JSON, or of a CSV with at least
//! `rw,bs,qd,threads,mb_per_s` (halfpower's own `--csv`, or another tool's).

use crate::error::Error;
use crate::model::sweep::{LatencyBrief, Point};
use crate::spec::RwMode;
use crate::units::ByteSize;
use clap::ValueEnum;
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
    let names: Vec<String> = header
        .unwrap_or_default()
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let col = |name: &str| names.iter().position(|h| h == name);
    let required = ["rw", "bs", "qd", "threads", "mb_per_s"];
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|n| col(n).is_none())
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
    let idx: Vec<usize> = required.iter().map(|n| col(n).unwrap_or(0)).collect();
    let (p50, p99, max) = (col("p50_us"), col("p99_us"), col("max_us"));
    let mut points = Vec::new();
    for (n, line) in lines {
        let at = |what: &str| format!("line {n}: {what}");
        let f = line.map_err(|e| bad_file(path, at(&format!("readable CSV ({e})"))))?;
        let get = |i: usize| f.get(i).map(|s| s.trim()).unwrap_or("");
        let rw_text = get(idx[0]);
        let rw = RwMode::from_str(rw_text, true).map_err(|_| {
            bad_file(
                path,
                at(&format!(
                    "rw as read, write, randread, randwrite, rw or randrw (not '{rw_text}')"
                )),
            )
        })?;
        let bs: ByteSize = get(idx[1])
            .parse()
            .map_err(|e: String| bad_file(path, at(&format!("bs: {e}"))))?;
        let qd: u32 = get(idx[2]).parse().map_err(|_| {
            bad_file(
                path,
                at(&format!("qd as a whole number (not '{}')", get(idx[2]))),
            )
        })?;
        let threads: u32 = get(idx[3]).parse().map_err(|_| {
            bad_file(
                path,
                at(&format!(
                    "threads as a whole number (not '{}')",
                    get(idx[3])
                )),
            )
        })?;
        let mbs: f64 = get(idx[4])
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                bad_file(
                    path,
                    at(&format!(
                        "mb_per_s as a number >= 0 (not '{}')",
                        get(idx[4])
                    )),
                )
            })?;
        if bs.0 == 0 || qd == 0 || threads == 0 {
            return Err(bad_file(path, at("bs, qd and threads above zero")));
        }
        let num = |c: Option<usize>| c.and_then(|i| get(i).parse::<f64>().ok());
        let latency_us = num(p99).map(|p99v| LatencyBrief {
            p50: num(p50).unwrap_or(f64::NAN),
            p99: p99v,
            max: num(max).unwrap_or(f64::NAN),
        });
        points.push(Point {
            rw,
            bs_bytes: bs.0,
            qd,
            threads,
            iops: num(col("iops")).unwrap_or(mbs * 1e6 / bs.0 as f64),
            bytes_per_s: mbs * 1e6,
            latency_us,
            cpu_us_per_io: num(col("cpu_us_per_io")),
            steady: col("steady").is_some_and(|i| get(i) == "true"),
            ci95_pct: None,
            seconds: num(col("seconds")).unwrap_or(0.0),
            engine: None,
            workload: None,
            results: None,
            repeat: None,
        });
    }
    Ok(points)
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
