//! The sweep document (`kind: "sweep"`): one record per point, the analysis per rw mode, the
//! flat CSV, and reading either back for `sweep --from` (also CSV written by other tools).

use super::model::{Results, TargetInfo, Tool};
use crate::analysis::sweep::{self, Analysis, Sample};
use crate::diagnose::log::split_csv;
use crate::error::Error;
use crate::oscounters::host::Host;
use crate::spec::{RwMode, Workload};
use crate::units::ByteSize;
use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use std::path::Path;

/// The latency percentiles a point carries at its top level, µs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencyBrief {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// One point of a sweep: its coordinates, its headline figures, and (when halfpower ran it)
/// the full workload and results exactly as `run --json` writes them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Point {
    /// rw mode.
    pub rw: String,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight per thread.
    pub qd: u32,
    /// Threads per target.
    pub threads: u32,
    /// I/Os per second, all targets.
    pub iops: f64,
    /// Bytes per second, all targets.
    pub bytes_per_s: f64,
    /// Latency of all I/Os, µs (absent in CSV input without it).
    pub latency_us: Option<LatencyBrief>,
    /// Process CPU µs per I/O.
    pub cpu_us_per_io: Option<f64>,
    /// Whether the point ended on the steady-state rule (false: it ran its full time).
    pub steady: bool,
    /// Measured seconds.
    pub seconds: f64,
    /// Every effective option of this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// The run record of this point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Results>,
}

impl Point {
    /// The point of a finished run.
    pub fn of(w: &Workload, r: Results, steady: bool) -> Self {
        let l = &r.total.latency_us;
        Point {
            rw: w.rw.name().into(),
            bs_bytes: w.bs.0,
            qd: w.qd,
            threads: w.threads,
            iops: r.total.iops,
            bytes_per_s: r.total.bytes_per_s,
            latency_us: Some(LatencyBrief {
                p50: l.p50,
                p99: l.p99,
                max: l.max,
            }),
            cpu_us_per_io: Some(r.cpu.us_per_io),
            steady,
            seconds: r.seconds,
            workload: Some(w.clone()),
            results: Some(r),
        }
    }
}

/// The document `halfpower sweep --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepReport {
    /// Layout version.
    pub schema_version: u32,
    /// Always `sweep`.
    pub kind: String,
    /// The writer.
    pub tool: Tool,
    /// The command line.
    pub command: Vec<String>,
    /// When the sweep ended.
    pub date: String,
    /// The host (absent when re-analysing a file).
    pub host: Option<Host>,
    /// The targets (empty when re-analysing a file).
    pub targets: Vec<TargetInfo>,
    /// With `--from`: the file analysed.
    pub source: Option<String>,
    /// The steady-state rule, ± percent, when one was used.
    pub steady_pct: Option<f64>,
    /// Peak advertised performance (`--pap`), bytes/s.
    pub pap_bytes_per_s: Option<f64>,
    /// The points in the order they ran.
    pub points: Vec<Point>,
    /// Per rw mode and thread count.
    pub analysis: Vec<Analysis>,
    /// Whether Ctrl-C cut the sweep short.
    pub interrupted: bool,
    /// Warnings printed during the sweep.
    pub warnings: Vec<String>,
}

/// Groups points by (rw, threads) in order of first appearance and analyses each group.
pub fn analyse(points: &[Point], pap: Option<f64>) -> Vec<Analysis> {
    let mut groups: Vec<(String, u32)> = Vec::new();
    for p in points {
        let key = (p.rw.clone(), p.threads);
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    groups
        .iter()
        .filter_map(|(rw, threads)| {
            let samples: Vec<Sample> = points
                .iter()
                .filter(|p| &p.rw == rw && p.threads == *threads)
                .map(|p| Sample {
                    bs_bytes: p.bs_bytes,
                    qd: p.qd,
                    bytes_per_s: p.bytes_per_s,
                    p99_us: p.latency_us.as_ref().map(|l| l.p99),
                })
                .collect();
            sweep::analyse(rw, *threads, &samples, pap)
        })
        .collect()
}

/// The CSV columns, in order. `sweep --from` needs the first five.
pub const CSV_COLUMNS: [&str; 12] = [
    "rw",
    "bs",
    "qd",
    "threads",
    "mb_per_s",
    "iops",
    "p50_us",
    "p99_us",
    "max_us",
    "cpu_us_per_io",
    "steady",
    "seconds",
];

/// The points as CSV: a header line, then one row per point.
pub fn csv(points: &[Point]) -> String {
    let mut out = CSV_COLUMNS.join(",") + "\n";
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    for p in points {
        let l = p.latency_us.as_ref();
        let _ = writeln!(
            out,
            "{},{},{},{},{:.3},{:.1},{},{},{},{},{},{:.3}",
            p.rw,
            ByteSize(p.bs_bytes),
            p.qd,
            p.threads,
            p.bytes_per_s / 1e6,
            p.iops,
            opt(l.map(|l| l.p50)),
            opt(l.map(|l| l.p99)),
            opt(l.map(|l| l.max)),
            opt(p.cpu_us_per_io),
            p.steady,
            p.seconds
        );
    }
    out
}

fn bad_file(path: &Path, what: impl Into<String>) -> Error {
    Error::invalid("--from", path.display(), what)
}

/// Reads the points of a sweep JSON or a CSV with at least `rw,bs,qd,threads,mb_per_s`.
/// Every problem is an [`Error::Invalid`] naming the file, the line and what is wrong.
pub fn read_points(path: &Path) -> crate::Result<Vec<Point>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| bad_file(path, format!("a readable sweep JSON or CSV file ({e})")))?;
    let points = if text.trim_start().starts_with('{') {
        from_json(path, &text)?
    } else {
        from_csv(path, &text)?
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
    if doc.schema_version == 0 || doc.schema_version > super::SCHEMA_VERSION {
        return Err(bad_file(
            path,
            format!(
                "schema_version 1..={} (it has {}; a newer halfpower wrote it)",
                super::SCHEMA_VERSION,
                doc.schema_version
            ),
        ));
    }
    Ok(doc.points)
}

fn from_csv(path: &Path, text: &str) -> crate::Result<Vec<Point>> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(bad_file(
            path,
            "a CSV with a header line (the file is empty)",
        ));
    };
    let names: Vec<String> = split_csv(header)
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
        let at = |what: &str| format!("line {}: {what}", n + 1);
        let f = split_csv(line).ok_or_else(|| bad_file(path, at("balanced quotes")))?;
        let get = |i: usize| f.get(i).map(|s| s.trim()).unwrap_or("");
        let rw = get(idx[0]);
        RwMode::from_str(rw, true).map_err(|_| {
            bad_file(
                path,
                at(&format!(
                    "rw as read, write, randread, randwrite, rw or randrw (not '{rw}')"
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
            rw: rw.to_ascii_lowercase(),
            bs_bytes: bs.0,
            qd,
            threads,
            iops: num(col("iops")).unwrap_or(mbs * 1e6 / bs.0 as f64),
            bytes_per_s: mbs * 1e6,
            latency_us,
            cpu_us_per_io: num(col("cpu_us_per_io")),
            steady: col("steady").is_some_and(|i| get(i) == "true"),
            seconds: num(col("seconds")).unwrap_or(0.0),
            workload: None,
            results: None,
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
        let a = analyse(&pts, None);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].half_power[0].bs_bytes, Some(65536));
    }

    #[test]
    fn our_csv_reads_back() {
        let f = write("rw,bs,qd,threads,mb_per_s\nrandread,16k,4,2,12.25\n");
        let pts = read_points(f.path()).unwrap();
        let back = write(&csv(&pts));
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
