//! The experiment document (`kind: "experiment"`): one of 000's pitfalls measured on a target,
//! as rows of run records (variant × direction × request size × depth), a few facts, and a
//! verdict in one line (`analysis::experiments`).

use super::run::{Results, TargetInfo};
use super::{Direction, Header};
use crate::oscounters::host::Host;
use clap::ValueEnum;
use serde::{Deserialize, Serialize};

/// Which experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ExperimentKind {
    /// Direct against buffered reads and writes by request size: MB/s and CPU per MB
    /// (000 Figures 2–4, "avoid file-system buffering above 16 KB").
    Buffering,
    /// Sequential writes into a written file, a file extended as it is written, and a sparse
    /// (truncated) file, at QD1 and QD8 (000 §5.3, "extending a file forces synchronous writes").
    Allocation,
    /// The same random reads at aligned offsets and shifted by 512 B, 4 KiB and half the
    /// request size (000 §5.4, "misaligned stripes cost 20 %").
    Alignment,
    /// Re-reads of one small region, reads just behind the last one and random reads by request
    /// size, and random reads over growing regions to find the cache's size (000 Table 3).
    Cache,
    /// Write-through (O_DSYNC) against write-back at QD1 and QD8 by request size (000's WCE
    /// discussion: "3-deep writes approximate WCE").
    Writecache,
}

impl ExperimentKind {
    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ExperimentKind::Buffering => "buffering",
            ExperimentKind::Allocation => "allocation",
            ExperimentKind::Alignment => "alignment",
            ExperimentKind::Cache => "cache",
            ExperimentKind::Writecache => "writecache",
        }
    }
}

/// What one row varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// O_DIRECT: the page cache bypassed.
    Direct,
    /// Through the page cache.
    Buffered,
    /// Writes over a file already written (every block allocated).
    Preallocated,
    /// Writes that extend an empty file (each allocates and grows it).
    Extending,
    /// Writes into a sparse file of the full size (each allocates its blocks).
    Sparse,
    /// Offsets at multiples of the request size (`shift_bytes` 0).
    Aligned,
    /// Offsets shifted by `shift_bytes` from alignment.
    Shifted,
    /// Random reads within one small region read over and over (a cache's hits).
    CacheHit,
    /// Sequential reads: each just behind the last (a read-ahead's hits).
    Prefetch,
    /// Uniform random reads over the whole target.
    Random,
    /// Random reads confined to a region of `region_bytes` (finding the cache's size).
    Region,
    /// Writes opened O_DSYNC: each returns once on stable storage.
    WriteThrough,
    /// Ordinary writes: the device may acknowledge from its cache.
    WriteBack,
}

impl Variant {
    /// The name as written in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Direct => "direct",
            Variant::Buffered => "buffered",
            Variant::Preallocated => "preallocated",
            Variant::Extending => "extending",
            Variant::Sparse => "sparse",
            Variant::Aligned => "aligned",
            Variant::Shifted => "shifted",
            Variant::CacheHit => "cache-hit",
            Variant::Prefetch => "prefetch",
            Variant::Random => "random",
            Variant::Region => "region",
            Variant::WriteThrough => "write-through",
            Variant::WriteBack => "write-back",
        }
    }
}

/// One measured point of an experiment.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    /// What this row varies.
    pub variant: Variant,
    /// With `shifted`: the shift from alignment, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift_bytes: Option<u64>,
    /// With `region` (and `cache-hit`): the size of the region read, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region_bytes: Option<u64>,
    /// Read or write.
    pub rw: Direction,
    /// Request size, bytes.
    pub bs_bytes: u64,
    /// I/Os in flight.
    pub qd: u32,
    /// I/Os per second.
    pub iops: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
    /// Mean latency, µs.
    pub mean_us: f64,
    /// 99th percentile latency, µs.
    pub p99_us: f64,
    /// halfpower's CPU per MB moved, µs (user + system, which includes the kernel's copying for
    /// buffered I/O).
    pub cpu_us_per_mb: f64,
    /// The whole machine's CPU per MB, µs (kernel threads too: writeback, loop workers).
    pub system_cpu_us_per_mb: f64,
    /// Bytes the disk under the target read over the point's window (/proc/diskstats; absent
    /// without a disk, e.g. on tmpfs). Other I/O on that disk counts too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_read_bytes: Option<u64>,
    /// Bytes it wrote over the point's window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_write_bytes: Option<u64>,
    /// (`device_read_bytes` + `device_write_bytes`) ÷ the point's own bytes: 1 when the device
    /// moved exactly what the point did, 0 for a buffered write still in the page cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_share: Option<f64>,
    /// The run record.
    pub results: Results,
}

/// A fact about the target the experiment reports beside its rows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Fact {
    /// What it is.
    pub name: String,
    /// Its value, in words.
    pub value: String,
}

/// The document `halfpower experiment --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ExperimentReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// The host.
    pub host: Host,
    /// Which experiment.
    pub experiment: ExperimentKind,
    /// The target (for `allocation`, the first of its files).
    pub target: TargetInfo,
    /// The measured rows, in the order they ran.
    pub rows: Vec<Row>,
    /// Facts about the target (the device's write-cache setting, the cache size found).
    pub facts: Vec<Fact>,
    /// What the experiment found, in one line.
    pub verdict: String,
    /// Whether Ctrl-C cut it short.
    pub interrupted: bool,
    /// Warnings printed on the way.
    pub warnings: Vec<String>,
}
