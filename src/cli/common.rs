//! The flags several commands share, each defined once: where results go (`--json`, `--html`,
//! `--force`, `--quiet`, `-o`), `--repeat`, `--verify-state`, `--from`, `--profile` and
//! `--reads-only`.

use clap::Args;
use std::path::PathBuf;

/// The most repetitions `--repeat` takes.
pub const MAX_REPEAT: u32 = 1000;

/// `--repeat N` of `run`, `quick` and `sweep`: one definition, one range.
#[derive(Args, Debug, Clone, Copy, PartialEq)]
pub struct RepeatArg {
    /// Measure N times (1 to 1000) and give each figure its mean, spread and t-based 95 %
    /// interval over them: «run:the workload runs again on targets opened (a created file
    /// filled) afresh»«quick:the tests interleave (every test once, then again)»«sweep:the
    /// points interleave (every point once, then again)».
    #[arg(long = "repeat", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT as i64))]
    pub n: u32,
}

/// Where `--json` sends its document: parsed once from `PATH` or `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonDest {
    /// `-`: standard output, instead of the text.
    Stdout,
    /// A file, written atomically.
    File(PathBuf),
}

impl JsonDest {
    /// Reads `--json`'s value: `-` for stdout, else a path (not empty).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "-" => Ok(JsonDest::Stdout),
            "" => Err("an empty path: give a PATH, or - for stdout".to_string()),
            p => Ok(JsonDest::File(PathBuf::from(p))),
        }
    }

    /// The file, where it is one.
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            JsonDest::Stdout => None,
            JsonDest::File(p) => Some(p),
        }
    }
}

/// `--verify-state PATH`: one definition for `run`, which keeps the record, and `verify`,
/// which judges by it.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct StateArg {
    /// The record of every block's last acknowledged write, 4 bytes per block: «-verify:kept in
    /// PATH (implies --verify; an existing state is continued), for `halfpower verify` to judge
    /// every block it names»«verify:as `halfpower run --verify-state PATH` kept it, each block it
    /// names judged by the last write it records».
    #[arg(long = "verify-state", id = "verify_state", value_name = "PATH")]
    pub path: Option<PathBuf>,
}

/// `-o`/`--output PATH`: one definition for `report` and `capture`.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct OutputFileArg {
    /// Write «-capture:the HTML report to PATH [default: halfpower-report.html next to the first
    /// RESULT]»«capture:the trace to PATH (without it, none is written)».
    #[arg(short = 'o', long = "output", id = "output_file", value_name = "PATH")]
    pub path: Option<PathBuf>,
}

/// `--from FILE`: one definition for `sweep` and `path`, which read a document instead of
/// measuring.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct FromArg {
    /// Read FILE instead of measuring: «sweep:a sweep JSON, or a CSV with the columns
    /// rw,bs,qd,threads,mb_per_s (bs with units, e.g. 64k; p99_us optional), re-analysed»«-sweep:a
    /// `halfpower run --json` document whose figures stand beside the limits (the rate through
    /// each component, and the CPU as a component where the CPUs given to halfpower saturate
    /// at the run's CPU time per I/O and request size)».
    #[arg(long = "from", id = "from", value_name = "FILE")]
    pub path: Option<PathBuf>,
}

/// `--listen [ADDR:]PORT`: one definition for every command that serves `/metrics`.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct ListenArg {
    /// Serve Prometheus metrics at http://ADDR:PORT/metrics while it runs (OpenMetrics when the
    /// scraper asks for it): a bare PORT binds 127.0.0.1 only; give ADDR:PORT (0.0.0.0:9100) to
    /// be scraped from elsewhere; port 0 takes a free port, said on stderr. Any other path
    /// answers 404. The metrics: the docs, "Metrics for Prometheus".
    #[arg(long = "listen", id = "listen", value_name = "[ADDR:]PORT", value_parser = crate::serve::parse_listen)]
    pub addr: Option<std::net::SocketAddr>,
}

/// `--prom PATH`: one definition for run, quick, sweep and selftest.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct PromArg {
    /// Also write the result's figures to PATH (ending in .prom) in Prometheus's text format,
    /// atomically, for node_exporter's textfile collector: IOPS, bytes per second and
    /// latency quantiles in base units, and the time of the result. Replaced on every run,
    /// as the collector expects of a batch job. Metric names: the docs, "Batch results".
    #[arg(long = "prom", id = "prom", value_name = "PATH")]
    pub path: Option<PathBuf>,
}

/// `--limit SPEC|@FILE`: one definition for `run`, `quick`, `sweep`, `scale` and `path`.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct LimitArg {
    /// A limit the OS cannot see, such as a cloud volume's provisioned rate: iops=N (I/Os per
    /// second, reads and writes together), mbps=N (MB/s = 10^6 bytes/s), target=PATH (the
    /// target it is for; else each target), e.g. iops=3000,mbps=125; repeatable; @FILE reads
    /// one SPEC a line. Said beside the run's figures, and the PAP follows the tightest.
    #[arg(long = "limit", id = "limit", value_name = "SPEC|@FILE")]
    pub given: Vec<String>,
}

impl LimitArg {
    /// The limits given, each `@FILE` read.
    pub fn limits(&self) -> crate::Result<Vec<crate::model::policy::GivenLimit>> {
        let mut out = Vec::new();
        for spec in &self.given {
            match spec.strip_prefix('@') {
                Some(file) => {
                    let text = std::fs::read_to_string(file)
                        .map_err(|e| crate::Error::io(format!("reading --limit @{file}"), e))?;
                    out.extend(crate::input::limit::parse_file(file, &text)?);
                }
                None => out.push(crate::input::limit::parse_spec(spec)?),
            }
        }
        Ok(out)
    }
}

/// `--json PATH|-`: one definition for every command that writes JSON.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct JsonArg {
    /// Write the results as JSON to PATH, or to stdout with `-` (then no table): «-monitor:one
    /// document»«monitor:one line per device per interval and one `_system` line».
    #[arg(long = "json", id = "json", value_name = "PATH|-", value_parser = JsonDest::parse)]
    pub dest: Option<JsonDest>,
}

/// A device's measured curves and service times, for `monitor` and `diagnose`.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct CurveArgs {
    /// A `halfpower profile` (schema: docs/profile.md) or `halfpower sweep --json` of a device:
    /// its curves place «-diagnose:each interval»«diagnose:the busiest interval» of that device
    /// on the curve of its mix, with its headroom to the knee and the peak«diagnose:; its
    /// service times are that device's expectations (every other device is judged by its
    /// class)».
    #[arg(long, value_name = "PROFILE.json|SWEEP.json")]
    pub profile: Option<PathBuf>,
    /// The device the --profile describes (its kernel name, or its name in the log: sdb,
    /// nvme0n1), instead of the disk the profile names.
    #[arg(long, value_name = "NAME", requires = "profile")]
    pub profile_device: Option<String>,
}

/// `--reads-only`: one definition for `profile` and `replay`.
#[derive(Args, Debug, Clone, Copy, Default, PartialEq)]
pub struct ReadsOnlyArg {
    /// Issue no writes, so no --allow-write is needed: «profile:the write cells are left
    /// out»«replay:the trace's writes are issued as reads of the same blocks (said in the
    /// result)».
    #[arg(long = "reads-only", id = "reads_only")]
    pub on: bool,
}

/// `--threshold`: one definition for the commands that judge changes between runs (`compare`,
/// `trend`).
#[derive(Args, Debug, Clone, Copy, PartialEq)]
pub struct ThresholdArg {
    /// The smallest change that counts as significant, in percent.
    #[arg(long = "threshold", id = "threshold", value_name = "PCT", default_value_t = 2.0, value_parser = crate::units::percent)]
    pub pct: f64,
}

/// `--force`: one definition for every command that writes files.
#[derive(Args, Debug, Clone, Copy, Default, PartialEq)]
pub struct ForceArg {
    /// Replace output files that exist; without it an existing one is refused before anything
    /// runs.
    #[arg(long = "force", id = "force")]
    pub on: bool,
}

/// Where results go: the same flags with the same meaning in every command that writes a
/// result document.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct OutputArgs {
    /// `--json`.
    #[command(flatten)]
    pub json: JsonArg,
    /// Also write a self-contained HTML report with charts to PATH (as `halfpower report`
    /// draws it).
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// `--force`.
    #[command(flatten)]
    pub force: ForceArg,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}
