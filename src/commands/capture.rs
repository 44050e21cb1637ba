//! `halfpower capture DEVICE`: every request the block layer sees on one device for a while,
//! written as a trace (halfpower's or fio's iolog v3) and summarised.

use super::export::{Output, write_whole};
use super::{Exporter, warn};
use crate::access::replay::TraceFormat;
use crate::cli::{CaptureArgs, TraceFileFormat};
use crate::clock::utc_now;
use crate::error::Error;
use crate::model::capture::{CaptureOverhead, CaptureReport};
use crate::model::{Document, Header, Kind};
use crate::monitor::capture::Capture;
use crate::oscounters::host;
use crate::render::text::capture::capture_text;
use crate::stats::cpu::ProcessCpu;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The /dev path and (major, minor) of the whole disk `name` names.
fn device(name: &str) -> crate::Result<(PathBuf, (u32, u32))> {
    let path = if name.starts_with('/') {
        PathBuf::from(name)
    } else {
        PathBuf::from("/dev").join(name)
    };
    let accepted = "a whole block device, such as loop0, sdb or nvme0n1 (or its /dev path)";
    let meta = std::fs::metadata(&path).map_err(|_| Error::invalid("DEVICE", name, accepted))?;
    if !meta.file_type().is_block_device() {
        return Err(Error::invalid("DEVICE", name, accepted));
    }
    let rdev = meta.rdev();
    let dev = (libc::major(rdev), libc::minor(rdev));
    let sys = PathBuf::from(format!("/sys/dev/block/{}:{}/partition", dev.0, dev.1));
    if sys.exists() {
        return Err(Error::invalid(
            "DEVICE",
            name,
            "the whole disk a partition is on (the block layer reports a partition's requests \
             on its disk, with the disk's offsets)",
        ));
    }
    Ok((path, dev))
}

/// How long a capture records without `--time`.
const TIME: Duration = Duration::from_secs(10);

/// `capture`'s options lowered once ([`lower`]).
struct CaptureCommand {
    /// The device as named, and its major:minor.
    path: PathBuf,
    dev: (u32, u32),
    /// `--time`: how long to record.
    time: crate::units::Dur,
    /// `--output`'s trace file.
    trace: Option<PathBuf>,
    /// `--format`: the trace file's.
    format: TraceFormat,
    /// `--quiet`.
    quiet: bool,
}

/// Lowers `capture`'s flags, once, into its command and its exporter (the document and the
/// trace file checked).
fn lower(args: &CaptureArgs) -> anyhow::Result<(CaptureCommand, Exporter<'_>)> {
    let mut exporter = Exporter::checked(&args.output)?;
    exporter.side("--output", args.output_file.path.as_deref())?;
    let (path, dev) = device(&args.device)?;
    let cmd = CaptureCommand {
        path,
        dev,
        // A zero --time is refused by its parser (`units::duration_above_zero`).
        time: args.time.or(TIME),
        trace: args.output_file.path.clone(),
        format: match args.format {
            TraceFileFormat::Halfpower => TraceFormat::Halfpower,
            TraceFileFormat::Fio => TraceFormat::FioV3,
        },
        quiet: args.output.quiet,
    };
    Ok((cmd, exporter))
}

/// Runs `halfpower capture`.
pub fn capture(args: CaptureArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let CaptureCommand {
        path,
        dev,
        time,
        trace,
        format,
        quiet,
    } = cmd;
    let cpu0 = ProcessCpu::now();
    let t0 = Instant::now();
    let cap = Capture::start(dev)?;
    if !quiet {
        crate::output::say!(
            "halfpower: capturing {} for {} (Ctrl-C ends it early)",
            path.display(),
            time
        );
    }
    while t0.elapsed() < time.0 && !crate::signal::interrupted() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let seconds = t0.elapsed().as_secs_f64();
    let (requests, events, lost) = cap.finish();
    let cpu1 = ProcessCpu::now();
    let cpu_s = (cpu1.user_s + cpu1.sys_s) - (cpu0.user_s + cpu0.sys_s);
    let mut warnings = Vec::new();
    if lost > 0 {
        warn(&mut warnings, crate::model::Warning::TracerLost(lost));
    }
    if let Some(out) = &trace {
        let text = match format {
            TraceFormat::Halfpower => crate::render::trace::halfpower(&requests),
            // Capture writes fio's version 3 only (its lowering never picks 2).
            TraceFormat::FioV3 | TraceFormat::FioV2 => {
                crate::render::trace::fio_v3(&requests, &path.display().to_string())
            }
        };
        write_whole(Output::Side, out, text.as_bytes())?;
    }
    let report = CaptureReport {
        header: Header::new(Kind::Capture, command, utc_now()),
        host: host::read(),
        device: path.display().to_string(),
        seconds,
        trace: trace.as_ref().map(|p| p.display().to_string()),
        format,
        summary: crate::analysis::capture::summarize(&requests, seconds),
        overhead: CaptureOverhead {
            cpu_pct: 100.0 * cpu_s / seconds.max(1e-9),
            lost_events: lost,
            events,
        },
        interrupted: crate::signal::interrupted(),
        warnings,
    };
    exporter.emit(
        Document::Capture(Box::new(report.clone())),
        &capture_text(&report),
    )?;
    Ok(if report.interrupted {
        crate::signal::exit_status()
    } else {
        0
    })
}
