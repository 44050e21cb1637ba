//! The kernel's block tracepoints in a private tracefs instance that is removed afterwards
//! ([`Instance`]); for `monitor --trace`, per-request OS queue time and device time
//! ([`Tracer`]); `capture` reads the same lines into a trace.
//!
//! A request's OS queue time runs from `block_io_start` (the start of its accounting, the
//! same instant its await starts from) to `block_rq_issue` (handed to the driver); its device
//! time from `block_rq_issue` to `block_rq_complete`. Events are matched by device and start
//! sector. Kernels before 6.5 have no `block_io_start`; there `block_getrq` (request
//! allocated) stands in for it. The instance's clock is set to `mono`, the monotonic clock.
//! Beside each interval's means the tracer keeps both times per device since it started as
//! histograms ([`TraceHistograms`], for `monitor --listen`).

use crate::analysis::monitor::TraceFigures;
use crate::stats::Histogram;
use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

const TRACEFS: &str = "/sys/kernel/tracing";

/// (major, minor) of a whole disk.
pub type DevId = (u32, u32);

/// Which tracepoint a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Accounting start (`block_io_start`, or `block_getrq` on old kernels).
    Start,
    /// Issued to the driver.
    Issue,
    /// Completed.
    Complete,
}

/// The kernel's `rwbs` letters of a request: its operation and flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rwbs {
    /// R, W, D (discard), N (none; a flush alone) or another operation letter.
    pub op: u8,
    /// A cache flush before the data (`F` first), or a flush alone (`FF`, `FN`).
    pub preflush: bool,
    /// Forced unit access (`F` after the operation).
    pub fua: bool,
    /// Synchronous (`S`).
    pub sync: bool,
    /// Metadata (`M`).
    pub meta: bool,
    /// Readahead (`A`).
    pub ahead: bool,
}

impl Rwbs {
    /// Reads the letters as the block tracepoints print them (`WS`, `FWFS`, `RA`, `FF`, `D`).
    pub fn parse(s: &str) -> Option<Rwbs> {
        let b = s.as_bytes();
        let mut r = Rwbs::default();
        let mut i = 0;
        if b.first() == Some(&b'F') {
            r.preflush = true;
            i = 1;
        }
        match b.get(i) {
            Some(&op) if op.is_ascii_uppercase() => r.op = op,
            // `F` alone: a flush.
            None if r.preflush => r.op = b'N',
            _ => return None,
        }
        for &c in &b[i + 1..] {
            match c {
                b'F' => r.fua = true,
                b'S' => r.sync = true,
                b'M' => r.meta = true,
                b'A' => r.ahead = true,
                _ => {}
            }
        }
        Some(r)
    }
}

/// One parsed trace line: event, time (ns on the trace clock), device, start sector, length
/// in sectors and the request's letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// The tracepoint.
    pub event: Event,
    /// Timestamp, ns.
    pub t_ns: u64,
    /// Device.
    pub dev: DevId,
    /// Start sector.
    pub sector: u64,
    /// Length, 512-byte sectors (0 for a flush alone).
    pub sectors: u64,
    /// Operation and flags.
    pub rwbs: Rwbs,
}

/// Parses one line of trace_pipe; `None` for other events and garbage.
pub fn parse_line(line: &str) -> Option<TraceLine> {
    let (head, rest) = line.split_once(": block_")?;
    let (name, body) = rest.split_once(": ")?;
    let event = match name {
        "io_start" | "getrq" => Event::Start,
        "rq_issue" => Event::Issue,
        "rq_complete" => Event::Complete,
        _ => return None,
    };
    let ts = head.split_whitespace().last()?;
    let (s, frac) = ts.split_once('.')?;
    let frac_ns: u64 = format!("{frac:0<9}").get(..9)?.parse().ok()?;
    let t_ns = s.parse::<u64>().ok()?.checked_mul(1_000_000_000)? + frac_ns;
    let (maj, after) = body.split_once(',')?;
    let mut words = after.split_whitespace();
    let min = words.next()?;
    let rwbs = Rwbs::parse(words.next()?)?;
    let (before_plus, after_plus) = body.split_once(" + ")?;
    let sector = before_plus.split_whitespace().last()?.parse().ok()?;
    let sectors: u64 = after_plus.split_whitespace().next()?.parse().ok()?;
    Some(TraceLine {
        event,
        t_ns,
        dev: (maj.trim().parse().ok()?, min.parse().ok()?),
        sector,
        sectors,
        rwbs,
    })
}

#[derive(Default)]
struct Acc {
    requests: u64,
    os_queue_ns: u64,
    device_ns: u64,
}

/// One device's traced requests since the tracer started.
#[derive(Clone, Debug, Default)]
pub struct TraceHistograms {
    /// Device time (issue → completion) of every request matched.
    pub device: Histogram,
    /// OS queue time (accounting start → issue) of every request whose start was traced.
    pub os_queue: Histogram,
}

/// Matches start, issue and completion of requests and sums the two times per device.
#[derive(Default)]
pub struct Matcher {
    started: HashMap<(DevId, u64), u64>,
    issued: HashMap<(DevId, u64), (u64, Option<u64>)>,
    acc: HashMap<DevId, Acc>,
    since_start: HashMap<DevId, TraceHistograms>,
}

impl Matcher {
    /// Feeds one event.
    pub fn feed(&mut self, l: TraceLine) {
        if l.sectors == 0 {
            // A flush alone: no data, no sector to match by.
            return;
        }
        let key = (l.dev, l.sector);
        match l.event {
            Event::Start => {
                self.started.insert(key, l.t_ns);
            }
            Event::Issue => {
                let start = self.started.remove(&key);
                self.issued.insert(key, (l.t_ns, start));
            }
            Event::Complete => {
                if let Some((issue, start)) = self.issued.remove(&key) {
                    let device = l.t_ns.saturating_sub(issue);
                    let queue = start.map(|s| issue.saturating_sub(s));
                    let a = self.acc.entry(l.dev).or_default();
                    a.requests += 1;
                    a.device_ns += device;
                    a.os_queue_ns += queue.unwrap_or(0);
                    let h = self.since_start.entry(l.dev).or_default();
                    h.device.record(device);
                    if let Some(q) = queue {
                        h.os_queue.record(q);
                    }
                }
            }
        }
    }

    /// The figures since the last drain, per device; forgets requests pending for more than
    /// a minute (their other half was lost).
    pub fn drain(&mut self, now_ns: u64) -> HashMap<DevId, TraceFigures> {
        let old = now_ns.saturating_sub(60_000_000_000);
        self.started.retain(|_, t| *t >= old);
        self.issued.retain(|_, (t, _)| *t >= old);
        std::mem::take(&mut self.acc)
            .into_iter()
            .filter(|(_, a)| a.requests > 0)
            .map(|(dev, a)| {
                let n = a.requests as f64;
                (
                    dev,
                    TraceFigures {
                        requests: a.requests,
                        os_queue_ms: a.os_queue_ns as f64 / n / 1e6,
                        device_ms: a.device_ns as f64 / n / 1e6,
                    },
                )
            })
            .collect()
    }

    /// Each device's histograms since the start.
    pub fn histograms(&self) -> HashMap<DevId, TraceHistograms> {
        self.since_start.clone()
    }
}

/// A private tracefs instance with the block events enabled and a thread that hands every
/// line of its trace_pipe to a sink; removed (and tracefs unmounted, if halfpower mounted it)
/// on drop.
pub struct Instance {
    path: PathBuf,
    mounted: bool,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
}

/// A running tracer: a tracefs instance feeding the matcher of `monitor --trace`.
pub struct Tracer {
    _instance: Instance,
    matcher: Arc<Mutex<Matcher>>,
}

fn write(path: &Path, value: &str) -> std::io::Result<()> {
    fs::write(path, value)
}

fn trace_err(what: &str, e: std::io::Error) -> crate::Error {
    crate::Error::io(
        format!("tracing: {what} (needs root and tracefs at {TRACEFS})"),
        e,
    )
}

impl Instance {
    /// Mounts tracefs if needed, creates the instance (`buffer_kb` per CPU, the monotonic
    /// clock), enables the request's start, issue and completion events and starts handing
    /// each line read to `sink`.
    pub fn start(buffer_kb: u32, sink: Box<dyn FnMut(&str) + Send>) -> crate::Result<Instance> {
        let root = Path::new(TRACEFS);
        let mut mounted = false;
        if !root.join("instances").is_dir() {
            let status = std::process::Command::new("mount")
                .args(["-t", "tracefs", "nodev", TRACEFS])
                .status()
                .map_err(|e| trace_err("running mount", e))?;
            if !status.success() || !root.join("instances").is_dir() {
                return Err(trace_err(
                    "mounting tracefs",
                    std::io::Error::other("mount failed"),
                ));
            }
            mounted = true;
        }
        let path = root.join(format!("instances/halfpower-{}", std::process::id()));
        let mut t = Instance {
            path: path.clone(),
            mounted,
            stop: Arc::new(AtomicBool::new(false)),
            reader: None,
        };
        fs::create_dir(&path).map_err(|e| trace_err("creating a tracefs instance", e))?;
        write(&path.join("trace_clock"), "mono").map_err(|e| trace_err("trace_clock", e))?;
        let _ = write(&path.join("buffer_size_kb"), &buffer_kb.to_string());
        let ev = path.join("events/block");
        let start_event = if ev.join("block_io_start").is_dir() {
            "block_io_start"
        } else {
            "block_getrq"
        };
        for e in [start_event, "block_rq_issue", "block_rq_complete"] {
            write(&ev.join(e).join("enable"), "1").map_err(|err| trace_err(e, err))?;
        }
        let pipe = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path.join("trace_pipe"))
            .map_err(|e| trace_err("opening trace_pipe", e))?;
        let stop = t.stop.clone();
        t.reader = Some(std::thread::spawn(move || read_loop(pipe, &stop, sink)));
        Ok(t)
    }

    /// Events the instance's buffers lost (overwritten before they were read, or dropped),
    /// summed over the CPUs.
    pub fn lost(&self) -> u64 {
        let Ok(cpus) = fs::read_dir(self.path.join("per_cpu")) else {
            return 0;
        };
        cpus.flatten()
            .filter_map(|c| fs::read_to_string(c.path().join("stats")).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        matches!(k.trim(), "overrun" | "dropped events")
                            .then(|| v.trim().parse::<u64>().ok())?
                    })
                    .collect::<Vec<_>>()
            })
            .sum()
    }

    /// Stops tracing and waits until every line already traced has reached the sink.
    pub fn finish(&mut self) {
        let _ = write(&self.path.join("tracing_on"), "0");
        // The reader drains what the buffers hold, then stops at the first empty read.
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.reader.take() {
            let _ = h.join();
        }
    }
}

impl Tracer {
    /// Starts an instance feeding the matcher.
    pub fn start() -> crate::Result<Tracer> {
        let matcher = Arc::new(Mutex::new(Matcher::default()));
        let m = matcher.clone();
        let sink = Box::new(move |line: &str| {
            if let (Some(l), Ok(mut m)) = (parse_line(line), m.lock()) {
                m.feed(l);
            }
        });
        Ok(Tracer {
            _instance: Instance::start(8192, sink)?,
            matcher,
        })
    }

    /// The figures of the requests completed since the last call.
    pub fn drain(&mut self) -> HashMap<DevId, TraceFigures> {
        let now = crate::clock::now_ns();
        self.matcher
            .lock()
            .map(|mut m| m.drain(now))
            .unwrap_or_default()
    }

    /// Each device's histograms of the requests completed since the tracer started.
    pub fn histograms(&self) -> HashMap<DevId, TraceHistograms> {
        self.matcher
            .lock()
            .map(|m| m.histograms())
            .unwrap_or_default()
    }
}

fn read_loop(mut pipe: fs::File, stop: &AtomicBool, mut sink: Box<dyn FnMut(&str) + Send>) {
    let mut buf = vec![0u8; 1 << 16];
    let mut carry = String::new();
    // Once stopped, what the buffers still hold is read before the loop ends.
    loop {
        match pipe.read(&mut buf) {
            Ok(0) if stop.load(Ordering::Relaxed) => break,
            Ok(0) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Ok(n) => {
                carry.push_str(&String::from_utf8_lossy(&buf[..n]));
                let complete = carry.rfind('\n').map_or(0, |i| i + 1);
                carry[..complete].lines().for_each(&mut *sink);
                carry.drain(..complete);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.finish();
        // The instance can only go once its trace_pipe is closed (the reader has ended).
        for _ in 0..50 {
            if fs::remove_dir(&self.path).is_ok() || !self.path.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if self.mounted {
            let _ = std::process::Command::new("umount").arg(TRACEFS).status();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = "\
              dd-24832   [001] .....  3126.551607: block_io_start: 254,0 RA 16384 () 12580504 + 32 be,0,4 [bash]
              dd-24832   [001] .....  3126.551634: block_rq_issue: 254,0 RA 16384 () 12580504 + 32 be,0,4 [bash]
          <idle>-0       [001] ..s1.  3126.552883: block_rq_complete: 254,0 RA () 12580504 + 32 be,0,4 [0]
     kworker/1:1-99      [001] .....  3126.552900: block_rq_issue: 254,0 FF 0 () 0 + 0 none,0,0 [kworker/1:1]
   my prog [x]-7         [000] .....  3126.553000: block_rq_issue: 7,0 W 4096 () 8 + 8 be,0,4 [my prog]
          <idle>-0       [000] ..s1.  3126.553500: block_rq_complete: 7,0 W () 8 + 8 be,0,4 [0]
";

    #[test]
    fn lines_parse() {
        let all: Vec<TraceLine> = LINES.lines().filter_map(parse_line).collect();
        assert_eq!(all[3].sectors, 0, "the flush");
        assert!(all[3].rwbs.preflush && all[3].rwbs.op == b'F');
        assert_eq!(all[4].rwbs.op, b'W');
        let v: Vec<TraceLine> = all.into_iter().filter(|l| l.sectors > 0).collect();
        assert_eq!(v.len(), 5);
        assert_eq!(v[0].sectors, 32);
        assert_eq!(v[0].event, Event::Start);
        assert_eq!(v[0].t_ns, 3_126_551_607_000);
        assert_eq!(v[0].dev, (254, 0));
        assert_eq!(v[0].sector, 12_580_504);
        assert_eq!(v[3].dev, (7, 0));
        assert!(parse_line("garbage").is_none());
        assert!(parse_line("x: block_rq_issue: 1,2 R 3 () nope + 8").is_none());
    }

    #[test]
    fn matching_splits_queue_and_device_time() {
        let mut m = Matcher::default();
        LINES.lines().filter_map(parse_line).for_each(|l| m.feed(l));
        let f = m.drain(3_126_600_000_000);
        let vda = f[&(254, 0)];
        assert_eq!(vda.requests, 1);
        assert!((vda.os_queue_ms - 0.027).abs() < 1e-9);
        assert!((vda.device_ms - 1.249).abs() < 1e-9);
        let loop0 = f[&(7, 0)];
        assert_eq!(loop0.requests, 1);
        assert_eq!(loop0.os_queue_ms, 0.0);
        assert!((loop0.device_ms - 0.5).abs() < 1e-9);
        assert!(m.drain(0).is_empty());
        // The histograms keep every request since the start, drained or not.
        let h = m.histograms();
        assert_eq!(h[&(254, 0)].device.count(), 1);
        assert_eq!(h[&(254, 0)].device.sum_ns(), 1_249_000);
        assert_eq!(h[&(254, 0)].os_queue.sum_ns(), 27_000);
        assert_eq!(h[&(7, 0)].device.sum_ns(), 500_000);
        assert_eq!(h[&(7, 0)].os_queue.count(), 0, "no start traced");
    }
}
