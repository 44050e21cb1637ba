//! Every warning in words: the one place a [`Warning`] becomes the sentence printed after
//! `halfpower: warning: ` and kept in a document's `warnings`.

use super::cause::{direct_fallback, engine_fallback, fatal, io_failure};
use crate::model::Document;
use crate::model::compare::WorkloadDifference;
use crate::model::warning::{LineProblem, Shortfall, Warning};
use crate::units::ByteSize;
use std::fmt;

/// `7.5 GB`, `0.0 MB`: a byte count as the shortfall warnings give it.
fn gb(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.1} MB", b / 1e6)
    }
}

/// The most warnings of one log said one by one; the rest are counted.
pub const MAX_LOG_WARNINGS: usize = 10;

/// A log's warnings as they are said: the first [`MAX_LOG_WARNINGS`], then how many more.
pub fn capped(warnings: &[Warning]) -> Vec<String> {
    let mut out: Vec<String> = warnings
        .iter()
        .take(MAX_LOG_WARNINGS)
        .map(Warning::to_string)
        .collect();
    if warnings.len() > MAX_LOG_WARNINGS {
        out.push(Warning::MoreLines(warnings.len() - MAX_LOG_WARNINGS).to_string());
    }
    out
}

/// Every warning `doc` carries, as its command said them: its own, then each log's
/// ([`capped`]).
pub fn said(doc: &Document) -> Vec<String> {
    let own = doc.warnings().iter().map(Warning::to_string);
    own.chain(doc.log_warnings().into_iter().flat_map(capped))
        .collect()
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Written(s) => f.write_str(s),
            Warning::Setting(c) => f.write_str(&super::doctor::bearing(c)),
            Warning::OfRank { rank, warning } => write!(f, "rank {rank}: {warning}"),
            Warning::OfTest {
                test,
                direction,
                warning,
            } => write!(f, "{test} {}: {warning}", direction.name()),
            Warning::ReadFromCache(s) => read_from_cache(f, s),
            Warning::WriteShortfall(s) => write_shortfall(f, s),
            Warning::LogLine {
                path,
                line,
                problem,
            } => write!(f, "{path}:{line}: {}", line_problem(problem)),
            Warning::DirectUnavailable { .. }
            | Warning::CreateDoesNotApply { .. }
            | Warning::Sparse { .. }
            | Warning::BufferedPoints
            | Warning::PointsOnSync(_)
            | Warning::RunOnSync { .. }
            | Warning::QuickOnSync(_)
            | Warning::ExperimentShallow { .. }
            | Warning::ExperimentBuffered { .. } => f.write_str(&opening(self)),
            Warning::PointFailed { .. }
            | Warning::RepetitionFailed { .. }
            | Warning::IoFailed { .. }
            | Warning::Interrupted
            | Warning::ZeroedReads { .. }
            | Warning::BufferedReads { .. }
            | Warning::TooFastForRotating { .. }
            | Warning::MemoryBacked { .. } => f.write_str(&run_end(self)),
            Warning::Caveat { .. }
            | Warning::ShortPrecondition { .. }
            | Warning::NotPurged { .. }
            | Warning::IdleDisk { .. }
            | Warning::NegativeSlope { .. }
            | Warning::TracerLost(_)
            | Warning::NoLoopCounters => f.write_str(&other(self)),
            Warning::OtherFile { .. }
            | Warning::NotReplayed { .. }
            | Warning::IssuedLate { .. }
            | Warning::FioIgnored { .. }
            | Warning::Fio(_)
            | Warning::FioBadBlocks { .. }
            | Warning::FioRateMin { .. }
            | Warning::FirstReport { .. }
            | Warning::NoCounter { .. } => f.write_str(&replay_fio_log(self)),
            Warning::MoreLines(n) => write!(f, "… and {n} more lines like these"),
            Warning::WorkloadsDiffer(d) => workloads_differ(f, d),
            Warning::ProfileUnmatched { devices } => write!(
                f,
                "the profile is for {}, which no log holds; every device is judged by its class \
                 (name the device with --profile-device)",
                devices.join(" or ")
            ),
        }
    }
}

/// One setting two compared runs set differently: its name, A's value and B's.
pub(crate) fn difference(d: &WorkloadDifference) -> String {
    use WorkloadDifference as D;
    let yes = |b: bool| if b { "on" } else { "off" };
    let (what, a, b) = match d {
        D::Rw(a, b) => ("rw", a.to_string(), b.to_string()),
        D::ReadPct(a, b) => ("read share", format!("{a} %"), format!("{b} %")),
        D::Bs(a, b) => ("bs", a.to_string(), b.to_string()),
        D::Qd(a, b) => ("qd", a.to_string(), b.to_string()),
        D::Threads(a, b) => ("threads", a.to_string(), b.to_string()),
        D::Targets(a, b) => ("targets", a.to_string(), b.to_string()),
        D::Engine(a, b) => ("engine", a.to_string(), b.to_string()),
        D::Buffered(a, b) => ("buffered", yes(*a).into(), yes(*b).into()),
        D::WriteThrough(a, b) => ("write-through", yes(*a).into(), yes(*b).into()),
        D::SyncMetadata(a, b) => {
            let flag = |m: bool| if m { "O_SYNC" } else { "O_DSYNC" };
            ("write-through", flag(*a).into(), flag(*b).into())
        }
        D::Access(settings) => {
            let each: Vec<&str> = settings.iter().map(|s| access_setting(*s)).collect();
            return format!("the access pattern ({})", each.join(", "));
        }
    };
    format!("{what} {a} in A, {b} in B")
}

/// An access setting as a difference names it.
fn access_setting(s: crate::model::compare::AccessSetting) -> &'static str {
    use crate::model::compare::AccessSetting as S;
    match s {
        S::Distribution => "offset distribution",
        S::RandomShare => "random share",
        S::Stride => "stride",
        S::Rate => "rate cap",
        S::Arrivals => "closed or open loop",
        S::Think => "think time",
        S::Flushes => "fsync",
        S::Invalidate => "cache dropped every pass",
        S::Reallocate => "blocks given back every pass",
    }
}

/// `compare` of two runs of different workloads.
fn workloads_differ(f: &mut fmt::Formatter<'_>, d: &[WorkloadDifference]) -> fmt::Result {
    let each: Vec<String> = d.iter().map(difference).collect();
    write!(
        f,
        "A and B ran different workloads ({}): each ratio sets one workload against another, \
         not only one system or run against another",
        each.join("; ")
    )
}

fn read_from_cache(f: &mut fmt::Formatter<'_>, s: &Shortfall) -> fmt::Result {
    write!(
        f,
        "{}: read {}, the device ({}) read {}: {:.0} % came from a cache (the page \
         cache, for buffered reads) or a file system that compresses or deduplicates, \
         so the read figures are not the device's",
        s.paths,
        gb(s.app),
        s.disk,
        gb(s.device),
        s.pct
    )
}

fn write_shortfall(f: &mut fmt::Formatter<'_>, s: &Shortfall) -> fmt::Result {
    write!(
        f,
        "{}: wrote {}, the device ({}) wrote {} in the window: {:.0} % did not reach \
         it (still in the page cache, or compressed or deduplicated on the way), so the \
         write figures are not the device's",
        s.paths,
        gb(s.app),
        s.disk,
        gb(s.device),
        s.pct
    )
}

/// The warnings of opening targets and choosing the engine (empty for any other).
fn opening(w: &Warning) -> String {
    match w {
        Warning::DirectUnavailable { path, fallback } => format!(
            "{path}: direct I/O unavailable ({}); running buffered, so reads may come from the \
             page cache. Put the target on a filesystem that supports O_DIRECT (ext4, xfs) or use \
             a block device.",
            direct_fallback(fallback)
        ),
        Warning::CreateDoesNotApply { path, create } => format!(
            "{path}: exists, so --create {} does not apply: the workload writes over it as it is",
            create.name()
        ),
        Warning::Sparse {
            path,
            allocated,
            len,
        } => format!(
            "{path}: the file is sparse ({allocated} of {len} bytes allocated); reads of holes \
             never reach the disk. Fill it first (e.g. let halfpower create it) or give a block \
             device."
        ),
        Warning::BufferedPoints => "points run buffered (--buffered): the page cache carries \
             one point's data into the next, so reads may be cache hits rather than device I/O. \
             Leave out --buffered for independent points"
            .to_string(),
        Warning::PointsOnSync(why) => format!(
            "{}; every point runs on the sync engine, one I/O in flight per thread",
            engine_fallback(why)
        ),
        Warning::RunOnSync { fallback, qd } => format!(
            "{}; running --engine sync with 1 I/O in flight per thread instead of QD {qd}. \
             Enable io_uring (sysctl kernel.io_uring_disabled=0) or use --threads for parallelism",
            engine_fallback(fallback)
        ),
        Warning::QuickOnSync(why) => format!(
            "{}; the deep-queue tests run on the sync engine as one I/O in flight on \
             each of as many threads (Q32T1 becomes Q1T32), named as they ran",
            engine_fallback(why)
        ),
        Warning::ExperimentShallow { qd, engine } => {
            format!("io_uring unavailable: points run at QD{qd} on the {engine} engine")
        }
        Warning::ExperimentBuffered { path } => format!(
            "{path} ran buffered (direct I/O unavailable): the page cache takes part in every \
             point"
        ),
        _ => String::new(),
    }
}

/// The warnings of a run's end and of its figures (empty for any other).
fn run_end(w: &Warning) -> String {
    let failed = |what: &str, errors: &u64, stop: &Option<crate::model::cause::Fatal>| {
        format!(
            "{what}: {errors} I/O errors{}; its figures cover the I/Os that completed. Check \
             the device (dmesg) before trusting this point",
            stop.as_ref()
                .map_or(String::new(), |s| format!(", stopped: {}", fatal(s)))
        )
    };
    match w {
        Warning::PointFailed {
            label,
            errors,
            fatal: stop,
        } => failed(label, errors, stop),
        Warning::RepetitionFailed {
            repetition,
            errors,
            fatal: stop,
        } => failed(&format!("repetition {repetition}"), errors, stop),
        Warning::IoFailed {
            count,
            first,
            offset,
        } => format!(
            "{count} I/Os failed (first: {} at offset {offset}); the figures count only the \
             successful ones. Check the device's kernel log (dmesg) and free space",
            first.as_ref().map_or("?".to_string(), io_failure)
        ),
        Warning::Interrupted => {
            "interrupted: the figures cover only the time measured before Ctrl-C".to_string()
        }
        Warning::ZeroedReads {
            path,
            share,
            zero_sectors,
            sectors,
            reads,
        } => format!(
            "{path}: {:.1} % of the read data sampled came back zero ({zero_sectors} of {sectors} \
             sectors in {reads} reads checked): blocks halfpower did not write, which a TRIMmed \
             SSD or a thin volume answers without touching its media, so the read figures may \
             not be the media's; write the region first (run --rw write) to measure the media",
            share * 100.0
        ),
        Warning::BufferedReads { path, p50_us } => format!(
            "{path}: buffered reads (median {p50_us:.1} µs) may come from the page cache and then \
             measure memory, not the device; drop --buffered to measure the device"
        ),
        Warning::TooFastForRotating {
            path,
            p50_us,
            device,
        } => format!(
            "{path}: median random-read latency {p50_us:.1} µs is too low for a rotating disk \
             ({}); the reads hit a cache (drive or controller) or a tiny region, or the disk is \
             not really rotational. Use a larger --size than the cache",
            device.as_deref().unwrap_or("?")
        ),
        Warning::MemoryBacked { path, p50_us } => format!(
            "{path}: median read latency {p50_us:.2} µs is below what any block device does; the \
             target is memory-backed (tmpfs, a loop device over RAM) or a cache answers. \
             Measure the real device to learn what it does"
        ),
        _ => String::new(),
    }
}

/// The warnings particular to sweep, pts, profile, capture and selftest (empty for any
/// other).
fn other(w: &Warning) -> String {
    match w {
        Warning::Caveat {
            rw,
            threads,
            conclusion,
            rap_pap,
            support,
        } => super::sweep::caveat(*rw, *threads, *conclusion, *rap_pap, support),
        Warning::ShortPrecondition { bytes, capacity } => format!(
            "preconditioning wrote {} where PTS asks twice the capacity ({}): the rounds may \
             start from a state PTS would not measure",
            ByteSize(*bytes),
            ByteSize(2 * capacity)
        ),
        Warning::NotPurged { target, purge } => format!(
            "{target}: {}; the test runs from whatever state earlier writes left, which PTS does \
             not allow: its rounds may differ from those of a purged target",
            super::pts::purge_sentence(purge)
        ),
        Warning::IdleDisk {
            cells,
            rw,
            pattern,
            bs_bytes,
            util_pct,
        } => format!(
            "{cells} of the QD1 cells kept the disk less than 90 % busy (lowest: {} {} {} at \
             {util_pct:.0} %), so their S = 1/IOPS includes host time between I/Os; the disk's \
             own U/X is in the dev S column (JSON device_service_ms). A virtual or stacked \
             device may not report %util faithfully",
            rw.name(),
            pattern.name(),
            ByteSize(*bs_bytes)
        ),
        Warning::NegativeSlope {
            rw,
            pattern,
            ms_per_kib,
            why,
        } => super::profile::negative_slope(*rw, *pattern, *ms_per_kib, *why),
        Warning::TracerLost(lost) => format!(
            "the tracer lost {lost} events: requests are missing from the trace and the \
             summary (a busier device than its buffers hold)"
        ),
        Warning::NoLoopCounters => {
            "the loop device's own counters were not found: no comparison with the kernel"
                .to_string()
        }
        _ => String::new(),
    }
}

/// The warnings of replay and fio, and of reading logs (empty for any other).
fn replay_fio_log(w: &Warning) -> String {
    match w {
        Warning::OtherFile { file, target } => format!(
            "the trace addresses {file}; its requests went to {target} at the offsets it recorded"
        ),
        Warning::NotReplayed { syncs, trims } => format!(
            "the trace's {syncs} syncs/flushes and {trims} trims/discards were not replayed"
        ),
        Warning::IssuedLate {
            speed,
            late_us,
            share,
            mean_us,
            attempt,
            of,
        } => format!(
            "speed {speed}: requests were issued {late_us:.0} µs late on average, over {:.0} % \
             of the mean response time ({mean_us:.0} µs), with slots free: the CPU was not the \
             replayer's; replaying it again ({attempt} of {of})",
            100.0 * share
        ),
        Warning::FioIgnored { origin, option } => format!(
            "{origin}: option '{option}' is not supported by halfpower fio; ignored \
             (--ignore-unknown)"
        ),
        Warning::Fio(note) => super::fio::note(note),
        Warning::FioBadBlocks { job, verification } => format!(
            "job '{job}': verify found bad blocks: {}",
            super::verify::lines(verification).trim_end()
        ),
        Warning::FioRateMin {
            job,
            direction,
            iops,
            min,
            value,
            second,
        } => {
            let (option, unit) = if *iops {
                ("rate_iops_min", "IOPS")
            } else {
                ("rate_min", "B/s")
            };
            format!(
                "job '{job}': {} {option} {min} {unit} not met: {value:.0} {unit} in second \
                 {second}",
                direction.name()
            )
        }
        Warning::FirstReport { path } => {
            format!("{path}: first report (averages since boot) left out")
        }
        Warning::NoCounter {
            path,
            disk,
            counter,
        } => {
            format!("{path}: {disk} has no '{counter}' counter; the rules that need it are skipped")
        }
        _ => String::new(),
    }
}

/// Why a log line was skipped (after `PATH:LINE: `).
fn line_problem(p: &LineProblem) -> String {
    match p {
        LineProblem::CsvFields { fields, header } => {
            format!("{fields} fields where the header has {header} (truncated line?); line skipped")
        }
        LineProblem::UnreadableCsv(e) => format!("unreadable CSV ({e}); line skipped"),
        LineProblem::Fields { fields, header } => {
            format!("{fields} fields where the header has {header}; line skipped")
        }
        LineProblem::OutsideReport => "line outside a report; skipped".into(),
        LineProblem::AvgCpu => "avg-cpu line without 6 values; skipped".into(),
        LineProblem::NoRates => "no numeric r/s and w/s; line skipped".into(),
        LineProblem::ZeroInterval => "zero-length interval; skipped".into(),
        LineProblem::UnreadableTime(t) => format!("unreadable time '{t}'; line skipped"),
        LineProblem::NoTransferRate(disk) => format!("{disk}: no transfer rate; sample skipped"),
        LineProblem::NotAnObject => "not a JSON object; line skipped".into(),
        LineProblem::MalformedJson(e) => format!("malformed JSON ({e}); line skipped"),
        LineProblem::NewerSchema { version, supported } => format!(
            "schema_version {version} is newer than this halfpower reads ({supported}); line \
             skipped"
        ),
        LineProblem::NoSchemaVersion => "no schema_version; line skipped".into(),
        LineProblem::NoDeviceOrTime => "no device or time; line skipped".into(),
        LineProblem::NoInterval => "zero-length or missing interval_s; interval skipped".into(),
        LineProblem::NoRecordRates(device) => format!("{device}: no r_s/w_s; line skipped"),
    }
}

#[cfg(test)]
#[path = "warning_tests.rs"]
mod tests;
