//! /proc/diskstats: one line per block device, 14, 18 or 20 columns depending on the kernel
//! (Documentation/admin-guide/iostats.rst), and deltas between two samples.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The counters of one device as the kernel prints them (missing columns are 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskStat {
    /// Major number.
    pub major: u32,
    /// Minor number.
    pub minor: u32,
    /// Kernel name, e.g. `nvme0n1`, `loop0` (sysfs writes '/' as '!').
    pub name: String,
    /// Reads completed.
    pub reads: u64,
    /// Reads merged.
    pub read_merges: u64,
    /// Sectors (512 bytes) read.
    pub read_sectors: u64,
    /// Milliseconds spent by all reads.
    pub read_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// Milliseconds spent by all writes.
    pub write_ms: u64,
    /// I/Os currently in progress.
    pub in_flight: u64,
    /// Milliseconds during which at least one I/O was in progress (busy time).
    pub io_ticks_ms: u64,
    /// Weighted milliseconds: the sum over time of the I/Os in progress.
    pub time_in_queue_ms: u64,
    /// Discards completed.
    pub discards: u64,
    /// Discards merged.
    pub discard_merges: u64,
    /// Sectors discarded.
    pub discard_sectors: u64,
    /// Milliseconds spent by all discards.
    pub discard_ms: u64,
    /// Flushes completed.
    pub flushes: u64,
    /// Milliseconds spent by all flushes.
    pub flush_ms: u64,
}

/// Parses one line of /proc/diskstats; `None` for a line with fewer than 14 columns or a
/// non-numeric counter.
pub fn parse_line(line: &str) -> Option<DiskStat> {
    let mut it = line.split_whitespace();
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    let name = it.next()?.to_string();
    let nums: Vec<u64> = it.map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if nums.len() < 11 {
        return None;
    }
    let f = |i: usize| nums.get(i).copied().unwrap_or(0);
    Some(DiskStat {
        major,
        minor,
        name,
        reads: f(0),
        read_merges: f(1),
        read_sectors: f(2),
        read_ms: f(3),
        writes: f(4),
        write_merges: f(5),
        write_sectors: f(6),
        write_ms: f(7),
        in_flight: f(8),
        io_ticks_ms: f(9),
        time_in_queue_ms: f(10),
        discards: f(11),
        discard_merges: f(12),
        discard_sectors: f(13),
        discard_ms: f(14),
        flushes: f(15),
        flush_ms: f(16),
    })
}

/// Parses the whole file's text, skipping malformed lines.
pub fn parse(text: &str) -> Vec<DiskStat> {
    text.lines().filter_map(parse_line).collect()
}

/// Reads /proc/diskstats now (empty when it cannot be read, e.g. in a restricted container).
pub fn read() -> Vec<DiskStat> {
    std::fs::read_to_string("/proc/diskstats")
        .map(|t| parse(&t))
        .unwrap_or_default()
}

/// The difference `after − before` of a counter. Counters only grow; a smaller value means a
/// 32-bit field wrapped (some kernels keep the ms fields in 32 bits), so add 2^32.
pub fn counter_delta(before: u64, after: u64) -> u64 {
    if after >= before {
        after - before
    } else if before <= u32::MAX as u64 {
        after + (1u64 << 32) - before
    } else {
        0
    }
}

/// The counters of `after` since `before` (of the same device): what it did between them,
/// `in_flight` as at `after`.
pub fn since(before: &DiskStat, after: &DiskStat) -> DiskStat {
    let d = counter_delta;
    DiskStat {
        major: after.major,
        minor: after.minor,
        name: after.name.clone(),
        reads: d(before.reads, after.reads),
        read_merges: d(before.read_merges, after.read_merges),
        read_sectors: d(before.read_sectors, after.read_sectors),
        read_ms: d(before.read_ms, after.read_ms),
        writes: d(before.writes, after.writes),
        write_merges: d(before.write_merges, after.write_merges),
        write_sectors: d(before.write_sectors, after.write_sectors),
        write_ms: d(before.write_ms, after.write_ms),
        in_flight: after.in_flight,
        io_ticks_ms: d(before.io_ticks_ms, after.io_ticks_ms),
        time_in_queue_ms: d(before.time_in_queue_ms, after.time_in_queue_ms),
        discards: d(before.discards, after.discards),
        discard_merges: d(before.discard_merges, after.discard_merges),
        discard_sectors: d(before.discard_sectors, after.discard_sectors),
        discard_ms: d(before.discard_ms, after.discard_ms),
        flushes: d(before.flushes, after.flushes),
        flush_ms: d(before.flush_ms, after.flush_ms),
    }
}

/// What a device did over a window, in iostat's terms.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DeviceDelta {
    /// Device name.
    pub name: String,
    /// Window length, seconds.
    pub seconds: f64,
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Reads merged into others before reaching the device.
    pub read_merges: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Flushes completed.
    pub flushes: u64,
    /// Reads per second.
    pub r_s: f64,
    /// Writes per second.
    pub w_s: f64,
    /// Mean time of a read from queueing to completion, ms (iostat r_await).
    pub r_await_ms: f64,
    /// Mean time of a write, ms (iostat w_await).
    pub w_await_ms: f64,
    /// Busy time over the window, % (iostat %util).
    pub util_pct: f64,
    /// Mean number of I/Os in progress (iostat aqu-sz).
    pub aqu_sz: f64,
    /// I/Os in progress at the end of the window.
    pub in_flight_end: u64,
}

impl DeviceDelta {
    /// The delta between two samples of the same device taken `elapsed` apart.
    pub fn between(before: &DiskStat, after: &DiskStat, elapsed: Duration) -> Self {
        let d = counter_delta;
        let secs = elapsed.as_secs_f64();
        let ms = secs * 1000.0;
        let reads = d(before.reads, after.reads);
        let writes = d(before.writes, after.writes);
        let per = |n: u64, t: u64| if n == 0 { 0.0 } else { t as f64 / n as f64 };
        let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
        let share = |t: u64| if ms > 0.0 { t as f64 / ms } else { 0.0 };
        DeviceDelta {
            name: after.name.clone(),
            seconds: secs,
            reads,
            writes,
            read_bytes: d(before.read_sectors, after.read_sectors) * 512,
            write_bytes: d(before.write_sectors, after.write_sectors) * 512,
            read_merges: d(before.read_merges, after.read_merges),
            write_merges: d(before.write_merges, after.write_merges),
            flushes: d(before.flushes, after.flushes),
            r_s: rate(reads),
            w_s: rate(writes),
            r_await_ms: per(reads, d(before.read_ms, after.read_ms)),
            w_await_ms: per(writes, d(before.write_ms, after.write_ms)),
            util_pct: (share(d(before.io_ticks_ms, after.io_ticks_ms)) * 100.0).min(100.0),
            aqu_sz: share(d(before.time_in_queue_ms, after.time_in_queue_ms)),
            in_flight_end: after.in_flight,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
   7       0 loop0 1000 10 8000 500 200 0 1600 300 0 700 800 0 0 0 0
 259       0 nvme0n1 5 0 40 1 2 0 16 1 3 4 5 0 0 0 0 7 2
   8       1 sda1 1 2 3 4 5 6 7 8 9 10 11
 253       0 dm-0 bad line
";

    #[test]
    fn parses_14_18_and_20_columns() {
        let v = parse(SAMPLE);
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].name, "loop0");
        assert_eq!(v[0].reads, 1000);
        assert_eq!(v[0].read_sectors, 8000);
        assert_eq!(v[0].time_in_queue_ms, 800);
        assert_eq!(v[1].flushes, 7);
        assert_eq!(v[1].flush_ms, 2);
        assert_eq!(v[1].in_flight, 3);
        assert_eq!(v[2].discards, 0);
    }

    #[test]
    fn delta_in_iostat_terms() {
        let a = parse_line("7 0 loop0 1000 0 8000 500 0 0 0 0 0 1000 2000").unwrap();
        let b = parse_line("7 0 loop0 6000 0 48000 1500 100 0 800 50 2 1900 4000").unwrap();
        let dd = DeviceDelta::between(&a, &b, Duration::from_secs(1));
        assert_eq!(dd.reads, 5000);
        assert_eq!(dd.read_bytes, 40000 * 512);
        assert_eq!(dd.r_s, 5000.0);
        assert!((dd.r_await_ms - 0.2).abs() < 1e-9);
        assert!((dd.w_await_ms - 0.5).abs() < 1e-9);
        assert!((dd.util_pct - 90.0).abs() < 1e-9);
        assert!((dd.aqu_sz - 2.0).abs() < 1e-9);
        assert_eq!(dd.in_flight_end, 2);
    }

    #[test]
    fn a_32_bit_wrap_is_undone() {
        assert_eq!(counter_delta(u32::MAX as u64 - 9, 10), 20);
        assert_eq!(counter_delta(5, 7), 2);
    }
}
