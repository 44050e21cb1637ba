//! Warnings about results that cannot be what the user meant to measure, each with what to do.

use crate::model::{DeviceClass, Results, TargetInfo, TargetKind};
use crate::spec::Workload;

/// Median latency below which random reads cannot have come from a rotating disk's platters
/// (a seek plus half a rotation takes milliseconds).
const ROTATIONAL_MIN_RANDOM_READ_US: f64 = 1000.0;
/// Median latency below which a direct read cannot have reached any block device.
const DEVICE_MIN_READ_US: f64 = 2.0;

/// The warnings that the figures of one run call for.
pub fn check(w: &Workload, targets: &[TargetInfo], r: &Results) -> Vec<String> {
    let mut out = Vec::new();
    for (t, tr) in targets.iter().zip(&r.targets) {
        let Some(read) = tr.read.as_ref().filter(|d| d.ios > 0) else {
            continue;
        };
        let p50 = read.latency_us.p50;
        if !t.direct && t.kind != TargetKind::Null {
            out.push(format!(
                "{}: buffered reads (median {p50:.1} µs) may come from the page cache and then \
                 measure memory, not the device; drop --buffered to measure the device",
                t.path
            ));
        } else if t.class == Some(DeviceClass::Hdd)
            && w.rw.is_random()
            && p50 < ROTATIONAL_MIN_RANDOM_READ_US
        {
            out.push(format!(
                "{}: median random-read latency {p50:.1} µs is too low for a rotating disk ({}); \
                 the reads hit a cache (drive or controller) or a tiny region, or the disk is not \
                 really rotational. Use a larger --size than the cache",
                t.path,
                t.device.as_deref().unwrap_or("?")
            ));
        } else if t.kind != TargetKind::Null && t.direct && p50 < DEVICE_MIN_READ_US {
            out.push(format!(
                "{}: median read latency {p50:.2} µs is below what any block device does; the \
                 target is memory-backed (tmpfs, a loop device over RAM) or a cache answers. \
                 Measure the real device to learn what it does",
                t.path
            ));
        }
    }
    if r.errors.count > 0 {
        out.push(format!(
            "{} I/Os failed (first: {} at offset {}); the figures count only the successful ones. \
             Check the device's kernel log (dmesg) and free space",
            r.errors.count,
            r.errors.first_error.as_deref().unwrap_or("?"),
            r.errors.first_offset.unwrap_or(0)
        ));
    }
    if r.interrupted {
        out.push("interrupted: the figures cover only the time measured before Ctrl-C".into());
    }
    out
}
