//! `halfpower monitor`: the sampling loop's output to the terminal, JSON lines and the log.

use super::export::{self, Output};
use crate::analysis::watch::Watch;
use crate::cli::{JsonDest, MonitorArgs};
use crate::input::profile::read_device_profile;
use crate::model::log::DiskInterval;
use crate::model::monitor::{DeviceRecord, Record, SYSTEM_DEVICE, SystemRecord};
use crate::model::profile::Curve;
use crate::monitor::metrics::Exposed;
use crate::monitor::{Interval, Monitor, MonitorConfig, resolve_device};
use crate::render::csv::{monitor_header, monitor_row};
use crate::render::text::monitor as monitor_table;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The log's format, from its extension.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LogFormat {
    Csv,
    Jsonl,
}

fn log_format(path: &Path) -> crate::Result<LogFormat> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => Ok(LogFormat::Csv),
        Some("jsonl" | "ndjson" | "json") => Ok(LogFormat::Jsonl),
        _ => Err(crate::Error::invalid(
            "--log",
            path.display(),
            "a path ending in .csv (CSV) or .jsonl, .ndjson, .json (JSON lines)",
        )),
    }
}

/// `monitor`'s options lowered once ([`lower`]): what the command decided, so that nothing
/// after the lowering reads its clap struct.
struct MonitorCommand {
    /// DEVICE…, resolved to kernel names (none: every device that moved).
    devices: Vec<String>,
    /// `--interval`, at least 100 ms.
    interval: std::time::Duration,
    /// `--count`: how many intervals (none: until Ctrl-C).
    count: Option<u64>,
    /// `--partitions`.
    partitions: bool,
    /// `--trace`.
    trace: bool,
    /// `--json -`: the records as JSON lines on standard output, in place of the text.
    json_stdout: bool,
    /// The files the records stream to (`--log`, `--json PATH`), each checked: its flag, path
    /// and format.
    streams: Vec<(&'static str, PathBuf, LogFormat)>,
    /// `--profile`'s curves and the device names they apply to (`--profile-device`).
    curves: Option<(Vec<String>, Vec<Curve>)>,
    /// `--listen`'s address.
    listen: Option<std::net::SocketAddr>,
}

/// Lowers `monitor`'s flags, once, into its command: every output checked and the profile
/// read, refusing what cannot run before anything does.
fn lower(args: &MonitorArgs) -> anyhow::Result<MonitorCommand> {
    let interval = args.interval.0;
    if interval < std::time::Duration::from_millis(100) {
        return Err(crate::Error::invalid(
            "--interval",
            args.interval,
            "a duration of at least 100ms, e.g. 1s or 500ms",
        )
        .into());
    }
    if args.count == Some(0) {
        return Err(crate::Error::invalid("--count", 0, "a number of intervals ≥ 1").into());
    }
    let devices = args
        .devices
        .iter()
        .map(|d| resolve_device(d, args.partitions))
        .collect::<crate::Result<Vec<_>>>()?;
    let json_stdout = args.json.dest == Some(JsonDest::Stdout);
    let streams = checked_streams(args, json_stdout)?;
    let curves = curves(args)?;
    Ok(MonitorCommand {
        devices,
        interval,
        count: args.count,
        partitions: args.partitions,
        trace: args.trace,
        json_stdout,
        streams,
        curves,
        listen: args.listen.addr,
    })
}

/// The files `--log` and `--json PATH` stream the records to, with their formats, each
/// checked and holding its own destination (standard output held by `--json -` or the text).
fn checked_streams(
    args: &MonitorArgs,
    json_stdout: bool,
) -> crate::Result<Vec<(&'static str, PathBuf, LogFormat)>> {
    let json_file = args
        .json
        .dest
        .as_ref()
        .and_then(JsonDest::file)
        .map(PathBuf::from);
    let mut outputs = export::Outputs::new(args.force.on);
    outputs.stdout(if json_stdout { "--json" } else { "the text" })?;
    let mut streams = Vec::new();
    for (flag, path, format) in [
        (
            "--log",
            args.log.clone(),
            args.log.as_deref().map(log_format).transpose()?,
        ),
        ("--json", json_file, Some(LogFormat::Jsonl)),
    ] {
        let (Some(path), Some(format)) = (path, format) else {
            continue;
        };
        outputs.file(Output::Stream, flag, &path)?;
        streams.push((flag, path, format));
    }
    Ok(streams)
}

/// Runs `monitor`; returns the exit status.
pub fn monitor(args: MonitorArgs) -> anyhow::Result<u8> {
    let cmd = lower(&args)?;
    let place = Place::find()?;
    // Each host's first rank serves its own host's devices.
    let served = match cmd.listen {
        Some(addr) if place.samples => Some(Exposed::serve(addr, cmd.devices.clone())?),
        _ => None,
    };
    // Created once every output, the profile and the address are known good.
    let mut logs = Vec::new();
    for (flag, path, format) in &cmd.streams {
        if export::speaks_for_the_job() {
            logs.push(open_log(flag, path, *format)?);
        }
    }
    let mut mon = Monitor::start(MonitorConfig {
        devices: cmd.devices,
        partitions: cmd.partitions,
        interval: cmd.interval,
        // One tracer per host: the first rank there.
        trace: cmd.trace && place.samples,
    })?;
    let mut watches: HashMap<String, Watch> = HashMap::new();
    let mut done = 0u64;
    let speaks = export::speaks_for_the_job();
    while cmd.count.is_none_or(|c| done < c) {
        let mine = mon.next_interval();
        if let (Some((_, exposed)), Some(iv)) = (&served, &mine) {
            exposed.publish(&iv.devices, &iv.system, mon.trace_histograms());
        }
        let Some(mut iv) = place.join(mine)? else {
            break;
        };
        annotate(&mut iv.devices, &mut watches, cmd.curves.as_ref());
        done += 1;
        if speaks {
            report(&iv, cmd.json_stdout, &mut logs)?;
        }
        if crate::measure::job::stopped()? {
            break;
        }
    }
    Ok(0)
}

/// One interval of every host: its devices (named `host:disk` when the job spans several
/// hosts), each host's system record (named `host:_system` then) and what changed.
struct JobInterval {
    devices: Vec<DeviceRecord>,
    systems: Vec<SystemRecord>,
    notes: Vec<String>,
}

/// Where this process stands in a monitor of several hosts (one process: alone, sampling).
struct Place {
    /// Whether this rank's records stand for its host: the first rank there.
    samples: bool,
    /// Whether the job spans several hosts (then names carry the host).
    several: bool,
}

/// A sampler's interval as the ranks exchange it: its host, devices, system and notes.
type Shared = (String, Vec<DeviceRecord>, SystemRecord, Vec<String>);

impl Place {
    /// Every rank's host, gathered once (a collective under MPI).
    fn find() -> crate::Result<Place> {
        let hosts = crate::measure::job::every_rank(vec![crate::cluster::host()], |_, h| h)?;
        let me = crate::cluster::rank() as usize;
        let mine = hosts.get(me);
        let mut distinct = hosts.clone();
        distinct.sort();
        distinct.dedup();
        Ok(Place {
            samples: hosts.iter().position(|h| Some(h) == mine) == Some(me),
            several: distinct.len() > 1,
        })
    }

    /// The job's interval from this rank's `iv` (a collective under MPI): None when any rank's
    /// interval was cut short (Ctrl-C), so that every rank stops together.
    fn join(&self, iv: Option<Interval>) -> crate::Result<Option<JobInterval>> {
        let ended = iv.is_none();
        let mine: Option<Shared> = iv
            .filter(|_| self.samples)
            .map(|i| (crate::cluster::host(), i.devices, i.system, i.notes));
        let all = crate::measure::job::every_rank(vec![(ended, mine)], |_, x| x)?;
        if all.iter().any(|x| x.0) {
            return Ok(None);
        }
        let mut job = JobInterval {
            devices: Vec::new(),
            systems: Vec::new(),
            notes: Vec::new(),
        };
        for (host, devices, mut system, notes) in all.into_iter().filter_map(|x| x.1) {
            let tag = |name: &str| match self.several {
                true => format!("{host}:{name}"),
                false => name.to_string(),
            };
            job.devices.extend(devices.into_iter().map(|mut d| {
                d.device = tag(&d.device);
                d
            }));
            system.device = tag(&system.device);
            job.systems.push(system);
            job.notes.extend(notes.iter().map(|n| match self.several {
                true => format!("{host}: {n}"),
                false => n.clone(),
            }));
        }
        Ok(Some(job))
    }
}

/// Prints the job's interval (a table per host, or JSON lines) and appends it to the logs.
fn report(iv: &JobInterval, json_stdout: bool, logs: &mut [Log]) -> anyhow::Result<()> {
    for n in &iv.notes {
        crate::output::say!("halfpower: {n}");
    }
    let records: Vec<Record> = (iv.devices.iter().cloned())
        .map(|d| Record::Device(Box::new(d)))
        .chain((iv.systems.iter().cloned()).map(|s| Record::System(Box::new(s))))
        .collect();
    // The interval's text (or JSON lines, `--json -`), printed at once.
    let mut text = String::new();
    if json_stdout {
        for r in &records {
            text.push_str(&serde_json::to_string(r)?);
            text.push('\n');
        }
    } else {
        for system in &iv.systems {
            // A host's devices: all of them for one host, else those named `host:…`.
            let prefix = system.device.strip_suffix(SYSTEM_DEVICE).unwrap_or("");
            let devices: Vec<DeviceRecord> = (iv.devices.iter())
                .filter(|d| d.device.starts_with(prefix))
                .cloned()
                .collect();
            text.push_str(&monitor_table::interval(system, &devices));
            text.push('\n');
        }
    }
    export::print_result(&text)?;
    for (stream, format) in logs.iter_mut() {
        let lines = (records.iter())
            .map(|r| match format {
                LogFormat::Csv => Ok(monitor_row(r)),
                LogFormat::Jsonl => serde_json::to_string(r),
            })
            .collect::<Result<Vec<String>, _>>()?;
        stream.write_lines(&lines)?;
    }
    Ok(())
}

/// What monitor adds to each device's interval: the steps first found with it, and with
/// `--profile` (`curves`: the names it applies to and their curves) its place on the curve.
fn annotate(
    devices: &mut [DeviceRecord],
    watches: &mut HashMap<String, Watch>,
    curves: Option<&(Vec<String>, Vec<Curve>)>,
) {
    for d in devices.iter_mut() {
        let watch = watches.entry(d.device.clone()).or_default();
        d.changes = watch.push(DiskInterval::from(&*d));
    }
    if let Some((names, curves)) = curves {
        for d in devices.iter_mut().filter(|d| names.contains(&d.device)) {
            d.headroom = Some(crate::analysis::curve::place(
                curves,
                &DiskInterval::from(&*d),
            ));
        }
    }
}

/// The curves of `--profile` and the device names they apply to (the profile's own, or
/// `--profile-device`).
fn curves(args: &MonitorArgs) -> anyhow::Result<Option<(Vec<String>, Vec<Curve>)>> {
    let Some(p) = &args.curve.profile else {
        return Ok(None);
    };
    let bad = |why: String| crate::Error::invalid("--profile", p.display(), why);
    let text = std::fs::read_to_string(p)
        .map_err(|e| bad(format!("a readable sweep or profile JSON file ({e})")))?;
    let profile =
        read_device_profile(&text).map_err(|e| bad(format!("a sweep or profile document: {e}")))?;
    if profile.curves.is_empty() {
        return Err(bad(
            "a sweep, or a profile with random cells at two depths: this one has no curve".into(),
        )
        .into());
    }
    let names = match &args.curve.profile_device {
        Some(n) => vec![n.clone()],
        None => profile.measured_on(),
    };
    if names.is_empty() {
        return Err(bad("a profile that names its disk, or --profile-device NAME".into()).into());
    }
    Ok(Some((names, profile.curves)))
}

/// A log file opened for writing, through the exporter, and its format.
type Log = (export::Stream, LogFormat);

/// Creates the file `flag` names (checked already) and writes the CSV header when it has one.
fn open_log(flag: &'static str, path: &Path, format: LogFormat) -> anyhow::Result<Log> {
    let mut stream = export::Stream::open(flag, path)?;
    if format == LogFormat::Csv {
        stream.write_lines(&[monitor_header()])?;
    }
    Ok((stream, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_formats_by_extension() {
        assert_eq!(log_format(Path::new("a.csv")).unwrap(), LogFormat::Csv);
        assert_eq!(log_format(Path::new("a.JSONL")).unwrap(), LogFormat::Jsonl);
        assert!(log_format(Path::new("a.txt")).is_err());
    }
}
