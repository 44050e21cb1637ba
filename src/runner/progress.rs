//! The live progress line on stderr: measured I/Os and throughput since the last redraw.

use super::Shared;
use crate::spec::Workload;
use crate::stats::window::Mark;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The current phase's I/Os and bytes completed so far, all workers together.
pub(super) fn completed(shared: &Shared) -> (u64, u64) {
    let m = mark(shared, 0.0);
    (m.ios, m.bytes)
}

/// A read of the counters that took longer than this was interrupted (the watcher preempted
/// between its clock and the counters): it is taken again.
const MARK_SPAN: Duration = Duration::from_micros(200);

/// The current phase's counts now, all workers together, stamped with the time since `t0`
/// (the middle of the read). On a busy machine the watcher can lose its CPU for tens of ms
/// between reading the clock and reading the counters, which shifts counts from one 100-ms
/// window to the next (seen on a blkio-throttled loop device: 580 then 22 I/Os where 300 and
/// 300 completed); so a read that took longer than [`MARK_SPAN`] is taken again (up to four
/// times, then the last is kept).
pub(super) fn mark_now(shared: &Shared, t0: Instant) -> Mark {
    let mut tries = 0;
    loop {
        let a = t0.elapsed();
        let m = mark(shared, 0.0);
        let b = t0.elapsed();
        tries += 1;
        if b.saturating_sub(a) <= MARK_SPAN || tries == 4 {
            return Mark {
                at_s: (a + b.saturating_sub(a) / 2).as_secs_f64(),
                ..m
            };
        }
    }
}

/// The current phase's counts, all workers together, stamped `at_s` into the phase.
pub(super) fn mark(shared: &Shared, at_s: f64) -> Mark {
    shared.progress.iter().fold(
        Mark {
            at_s,
            ..Mark::default()
        },
        |m, p| Mark {
            at_s,
            ios: m.ios + p.ios.load(Ordering::Relaxed),
            bytes: m.bytes + p.bytes.load(Ordering::Relaxed),
            read_ios: m.read_ios + p.read_ios.load(Ordering::Relaxed),
            read_bytes: m.read_bytes + p.read_bytes.load(Ordering::Relaxed),
        },
    )
}

/// Redraws the progress line: elapsed time or I/Os against the limit, IOPS and MB/s since
/// the last redraw (`last`: I/Os, bytes and when).
pub(super) fn show_progress(
    shared: &Shared,
    started: Instant,
    w: &Workload,
    last: &mut (u64, u64, Instant),
) {
    let (ios, bytes) = completed(shared);
    let dt = last.2.elapsed().as_secs_f64().max(1e-3);
    let iops = (ios - last.0) as f64 / dt;
    let mbs = (bytes - last.1) as f64 / dt / 1e6;
    *last = (ios, bytes, Instant::now());
    let of = match (w.setup.time, w.io_budget()) {
        (Some(t), _) => format!("{:.1}s / {}", started.elapsed().as_secs_f64(), t),
        (None, Some(b)) => format!("{} / {} I/Os", ios, b),
        _ => String::new(),
    };
    eprint!("\r\x1b[K  {of}   {iops:>10.0} IOPS   {mbs:>9.1} MB/s");
    let _ = std::io::stderr().flush();
}
