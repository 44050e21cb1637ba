//! Warnings about results that cannot be what the user meant to measure, as kinds with their
//! figures (`render::text::warning` words each, with what to do).

use crate::model::warning::Shortfall;
use crate::model::{DeviceClass, Results, TargetInfo, TargetKind, Warning};
use crate::plan::RunPlan;

/// Median latency below which random reads cannot have come from a rotating disk's platters
/// (a seek plus half a rotation takes milliseconds).
const ROTATIONAL_MIN_RANDOM_READ_US: f64 = 1000.0;
/// Median latency below which a direct read cannot have reached any block device.
const DEVICE_MIN_READ_US: f64 = 2.0;

/// Share of the bytes the application moved that the device may miss before the two are said
/// to disagree. With direct I/O every byte reaches the device inside the window (both phases
/// drain before the counters are read), so a shortfall is a cache, a file system that
/// compresses or deduplicates, or data not yet written back; 10 % leaves room for I/O in
/// flight at the window's edges.
pub const DEVICE_SHORTFALL: f64 = 0.10;
/// Fewest bytes compared: below 1 MiB a few requests at the window's edges are a large share.
pub const MIN_COMPARED_BYTES: u64 = 1 << 20;

/// Bytes read and written by the application on the targets over disk `disk`, when the
/// results say which targets they were (per target, or all targets on that one disk).
fn app_bytes(disk: &str, targets: &[TargetInfo], r: &Results) -> Option<(u64, u64)> {
    let on = |t: &TargetInfo| t.kind != TargetKind::Null && t.device.as_deref() == Some(disk);
    let dir = |d: &Option<crate::stats::summary::DirSummary>| d.as_ref().map_or(0, |d| d.bytes);
    if r.targets.len() == targets.len() {
        let mine = targets.iter().zip(&r.targets).filter(|(t, _)| on(t));
        Some(mine.fold((0, 0), |(a, b), (_, tr)| {
            (a + dir(&tr.read), b + dir(&tr.write))
        }))
    } else if targets.iter().all(on) {
        Some((dir(&r.read), dir(&r.write)))
    } else {
        None
    }
}

/// Where the bytes the application moved and the disk's own counters over the same window
/// disagree: reads the disk did not serve (a cache answered), writes it did not receive
/// (still in the page cache, or compressed or deduplicated on the way). Each warning gives
/// both figures.
pub fn device_bytes(targets: &[TargetInfo], r: &Results) -> Vec<Warning> {
    let mut disks: Vec<&str> = targets.iter().filter_map(|t| t.device.as_deref()).collect();
    disks.sort_unstable();
    disks.dedup();
    let mut out = Vec::new();
    for disk in disks {
        // A disk whose kernel counters are off (iostats 0) counts nothing: said as that.
        let uncounted = r.setup.iter().any(|c| {
            c.kind == crate::model::doctor::CheckKind::Iostats
                && matches!(&c.scope, crate::model::doctor::Scope::Device { device } if device == disk)
        });
        if uncounted {
            continue;
        }
        let (Some((read, written)), Some(dev)) = (
            app_bytes(disk, targets, r),
            r.devices.iter().find(|d| d.name == disk),
        ) else {
            continue;
        };
        let paths: Vec<&str> = targets
            .iter()
            .filter(|t| t.device.as_deref() == Some(disk))
            .map(|t| t.path.as_str())
            .collect();
        let paths = paths.join(", ");
        let short = |app: u64, seen: u64| {
            (app >= MIN_COMPARED_BYTES && (seen as f64) < app as f64 * (1.0 - DEVICE_SHORTFALL))
                .then(|| 100.0 * (1.0 - seen as f64 / app as f64))
        };
        let shortfall = |app: u64, device: u64, pct: f64| Shortfall {
            paths: paths.clone(),
            disk: disk.to_string(),
            app,
            device,
            pct,
        };
        if let Some(pct) = short(read, dev.read_bytes) {
            out.push(Warning::ReadFromCache(shortfall(read, dev.read_bytes, pct)));
        }
        if let Some(pct) = short(written, dev.write_bytes) {
            out.push(Warning::WriteShortfall(shortfall(
                written,
                dev.write_bytes,
                pct,
            )));
        }
    }
    out
}

/// Share of the sampled read data that came back zero from which it is warned about: halfpower's
/// own data is never zero where it is checked, so any real share is data it did not write.
pub const ZERO_SHARE: f64 = 0.01;

/// Reads that returned zeroed blocks, per target, with the share the sample found.
pub fn zeroed_reads(r: &Results) -> Vec<Warning> {
    let mut out = Vec::new();
    for t in &r.targets {
        let Some(z) = t.read.as_ref().and_then(|d| d.zero_sample) else {
            continue;
        };
        let Some(share) = z.share().filter(|s| *s >= ZERO_SHARE) else {
            continue;
        };
        out.push(Warning::ZeroedReads {
            path: t.path.clone(),
            share,
            zero_sectors: z.zero_sectors,
            sectors: z.sectors,
            reads: z.reads,
        });
    }
    out
}

/// The warnings the end of a run calls for: its failed I/Os (the first one's error and
/// offset), and Ctrl-C cutting it short.
pub fn run_end(r: &Results) -> Vec<Warning> {
    let mut out = Vec::new();
    if r.errors.count > 0 {
        out.push(Warning::IoFailed {
            count: r.errors.count,
            first: r.errors.first_error,
            offset: r.errors.first_offset.unwrap_or(0),
        });
    }
    if r.interrupted {
        out.push(Warning::Interrupted);
    }
    out
}

/// The warnings that the figures of one run call for (those its failed I/Os and Ctrl-C call for
/// are [`run_end`]'s).
pub fn check(w: &RunPlan, targets: &[TargetInfo], r: &Results) -> Vec<Warning> {
    let mut out = device_bytes(targets, r);
    // A pattern with zeros in it reads back zeros of its own.
    if !w.setup().payload.may_read_back_zeros() {
        out.extend(zeroed_reads(r));
    }
    let counted = |t: &TargetInfo| {
        t.device
            .as_deref()
            .is_some_and(|d| r.devices.iter().any(|x| x.name == d))
    };
    for (t, tr) in targets.iter().zip(&r.targets) {
        let Some(read) = tr.read.as_ref().filter(|d| d.ios > 0) else {
            continue;
        };
        let p50 = read.latency_us.p50;
        // With the disk's counters, the comparison above says what came from a cache.
        if !t.direct && t.kind != TargetKind::Null {
            if counted(t) {
                continue;
            }
            out.push(Warning::BufferedReads {
                path: t.path.clone(),
                p50_us: p50,
            });
        } else if t.class == Some(DeviceClass::Hdd)
            && w.rw().is_random()
            && p50 < ROTATIONAL_MIN_RANDOM_READ_US
        {
            out.push(Warning::TooFastForRotating {
                path: t.path.clone(),
                p50_us: p50,
                device: t.device.clone(),
            });
        } else if t.kind != TargetKind::Null && t.direct && p50 < DEVICE_MIN_READ_US {
            out.push(Warning::MemoryBacked {
                path: t.path.clone(),
                p50_us: p50,
            });
        }
    }
    out
}
