//! The live progress line on stderr: measured I/Os and throughput since the last redraw.

use super::Shared;
use crate::clock::read_stamped;
use crate::plan::RunPlan;
use crate::stats::window::Mark;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// The current phase's I/Os and bytes completed so far, all workers together.
pub(super) fn completed(shared: &Shared) -> (u64, u64) {
    let m = mark(shared);
    (m.ios, m.bytes)
}

/// The current phase's counts now, all workers together, stamped with the time since `t0`
/// at the middle of their read ([`read_stamped`]).
pub(super) fn mark_now(shared: &Shared, t0: Instant) -> Mark {
    let (at, m) = read_stamped(|| mark(shared));
    Mark {
        at_s: at.saturating_duration_since(t0).as_secs_f64(),
        ..m
    }
}

/// The current phase's counts, all workers together (not stamped).
fn mark(shared: &Shared) -> Mark {
    shared.progress.iter().fold(Mark::default(), |m, p| Mark {
        at_s: 0.0,
        ios: m.ios + p.ios.load(Ordering::Relaxed),
        bytes: m.bytes + p.bytes.load(Ordering::Relaxed),
        read_ios: m.read_ios + p.read_ios.load(Ordering::Relaxed),
        read_bytes: m.read_bytes + p.read_bytes.load(Ordering::Relaxed),
    })
}

/// Redraws the progress line: elapsed time or I/Os against the limit, IOPS and MB/s since
/// the last redraw (`last`: I/Os, bytes and when).
pub(super) fn show_progress(
    shared: &Shared,
    started: Instant,
    w: &RunPlan,
    last: &mut (u64, u64, Instant),
) {
    let (ios, bytes) = completed(shared);
    let dt = last.2.elapsed().as_secs_f64().max(1e-3);
    let iops = (ios - last.0) as f64 / dt;
    let mbs = (bytes - last.1) as f64 / dt / 1e6;
    *last = (ios, bytes, Instant::now());
    let of = match (w.setup().time, w.io_budget()) {
        (Some(t), _) => format!("{:.1}s / {}", started.elapsed().as_secs_f64(), t),
        (None, Some(b)) => format!("{} / {} I/Os", ios, b),
        _ => String::new(),
    };
    eprint!("\r\x1b[K  {of}   {iops:>10.0} IOPS   {mbs:>9.1} MB/s");
    let _ = std::io::stderr().flush();
}
