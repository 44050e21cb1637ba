//! The experiment document (`kind: "experiment"`): one of 000's pitfalls measured on a target,
//! as rows of run records (variant × direction × request size × depth), a few facts, and what
//! it found (`analysis::experiments`), which render words in one line.

use super::run::{Results, TargetInfo};
use super::{Direction, Header};
use crate::oscounters::host::Host;
use crate::stats::summary::Ci95;
use serde::{Deserialize, Serialize};

/// Which experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A credit bucket drained until its baseline holds, rested, and drained again: the burst,
    /// the baseline, the credits and the refill per second of rest (a cloud volume's bursting).
    Burst,
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
            ExperimentKind::Burst => "burst",
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
    /// A saturating load until a credit bucket's baseline has held (`burst`'s first drain).
    Drain,
    /// The same after a rest (`burst`'s second drain): the credits the rest put back.
    AfterRest,
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
            Variant::Drain => "drain",
            Variant::AfterRest => "after-rest",
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
    /// With `after-rest`: the time since the drain before it ended, s (the rest, plus what this
    /// point took to start beyond the one before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_s: Option<f64>,
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
    /// The within-run 95 % interval of `bytes_per_s` (`results`' own, docs/uncertainty.md):
    /// absent when the point had too few windows for one (and in files before issue 44).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_s_ci95: Option<Ci95>,
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
    /// The device's bytes in the point's own direction ÷ the point's own bytes: 1 when the
    /// device moved exactly what the point did, 0 for a buffered write still in the page cache.
    /// The other direction's bytes are someone else's (a read point does not write) and are
    /// said apart (files before issue 37 added both directions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_share: Option<f64>,
    /// ext4's background inode-table zeroing (`ext4lazyinit`) was running when the point ended:
    /// a likely writer of the other direction's bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lazy_init: bool,
    /// The run record.
    pub results: Results,
}

impl Row {
    /// The device's share in direction `rw` of `own` bytes moved by the point.
    pub fn share_of(rw: Direction, read_bytes: u64, write_bytes: u64, own: u64) -> Option<f64> {
        let mine = match rw {
            Direction::Read => read_bytes,
            Direction::Write => write_bytes,
        };
        (own > 0).then(|| mine as f64 / own as f64)
    }

    /// The bytes the device moved in the other direction than the point's (not the point's).
    pub fn other_direction_bytes(&self) -> Option<u64> {
        match self.rw {
            Direction::Read => self.device_write_bytes,
            Direction::Write => self.device_read_bytes,
        }
    }
}

/// A fact about the target the experiment reports beside its rows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", from = "FactShape")]
pub enum Fact {
    /// The write-cache setting of the disk under the target (`queue/write_cache`).
    WriteCache {
        /// The disk, e.g. `sda`.
        disk: String,
        /// The setting as sysfs writes it: `write back` or `write through`.
        setting: String,
    },
    /// The cache size the regions' latencies point to (`cache`).
    CacheSize {
        /// The size, bytes; None when no region's latency jumped.
        bytes: Option<u64>,
    },
}

/// A fact as it is read: tagged by `kind`, or as files before the tag wrote it (a `name` and
/// its `value` in words).
#[derive(Deserialize)]
#[serde(untagged)]
enum FactShape {
    /// Tagged by `kind`.
    Tagged(TaggedFact),
    /// `{"name": "sda queue/write_cache", "value": "write back"}` or `{"name": "cache size
    /// estimate", "value": "8m"}` (or `"none found"`).
    Named {
        /// What it is.
        name: String,
        /// Its value, in words.
        value: String,
    },
}

/// [`Fact`]'s own tagged shape (what it writes).
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum TaggedFact {
    WriteCache { disk: String, setting: String },
    CacheSize { bytes: Option<u64> },
}

impl From<FactShape> for Fact {
    fn from(f: FactShape) -> Self {
        match f {
            FactShape::Tagged(TaggedFact::WriteCache { disk, setting }) => {
                Fact::WriteCache { disk, setting }
            }
            FactShape::Tagged(TaggedFact::CacheSize { bytes }) => Fact::CacheSize { bytes },
            FactShape::Named { name, value } => match name.strip_suffix(" queue/write_cache") {
                Some(disk) => Fact::WriteCache {
                    disk: disk.to_string(),
                    setting: value,
                },
                None => Fact::CacheSize {
                    bytes: value.parse::<crate::units::ByteSize>().ok().map(|b| b.0),
                },
            },
        }
    }
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
    /// What the experiment found (`analysis::experiments`), the figures its verdict is worded
    /// from (`render::text::experiment::verdict`); absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<ExperimentFinding>,
    /// Whether Ctrl-C cut it short.
    pub interrupted: bool,
    /// Warnings printed on the way.
    pub warnings: Vec<super::Warning>,
}

impl super::Report for ExperimentReport {
    fn warnings(&self) -> &[super::Warning] {
        &self.warnings
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.rows.is_empty()).then_some("the experiment has no rows")
    }
}

/// Why an experiment had nothing to compare: the rows it lacked.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Missing {
    /// No direct and buffered rows of the same size (`buffering`).
    DirectAndBuffered,
    /// No preallocated rows, or none to set against them (`allocation`).
    Preallocated,
    /// No aligned row (`alignment`).
    Aligned,
    /// No shifted rows (`alignment`).
    Shifted,
    /// No write-through and write-back rows of the same size and depth (`writecache`).
    WriteThroughAndWriteBack,
}

/// The 95 % interval of a ratio, its low and high ends (absent where a point had none).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    /// Low end.
    pub low: f64,
    /// High end.
    pub high: f64,
}

impl Interval {
    /// Half its width: the ± of a ratio at its middle.
    pub fn half(self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

/// Buffered against direct I/O in one direction, over the sizes from `from_bytes` up.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct BufferingRatio {
    /// Read or write.
    pub rw: Direction,
    /// The mean over the sizes of buffered ÷ direct CPU per MB (before issue 44: the median).
    pub cpu: f64,
    /// Its interval: Student's t over the sizes' ratios (a point's CPU time has no interval of
    /// its own), so it holds the sizes' spread as well as each point's noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ci95: Option<Interval>,
    /// The mean over the sizes of buffered ÷ direct MB/s (before issue 44: the median).
    pub speed: f64,
    /// Its interval, from each point's within-run interval of MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_ci95: Option<Interval>,
}

/// One allocating variant's throughput against the preallocated file's at one depth.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct AllocationShare {
    /// `extending` or `sparse`.
    pub variant: Variant,
    /// I/Os in flight.
    pub qd: u32,
    /// Its MB/s ÷ the preallocated file's.
    #[serde(deserialize_with = "super::null_as_nan")]
    pub share: f64,
    /// Its interval, from both points' within-run intervals of MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<Interval>,
}

/// One shift's throughput against the aligned reads'.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct ShiftShare {
    /// The shift from alignment, bytes.
    pub shift_bytes: u64,
    /// Its MB/s ÷ the aligned reads'.
    #[serde(deserialize_with = "super::null_as_nan")]
    pub share: f64,
    /// Its interval, from both points' within-run intervals of MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<Interval>,
}

/// What the shifts show, judged by their shares' 95 % intervals against no difference (1).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AlignmentOutcome {
    /// A shift's interval lies wholly below 1, by more than any shift gains: misalignment
    /// costs.
    Costs {
        /// The shift that costs most, bytes.
        shift_bytes: u64,
        /// The throughput it loses: 1 − its share.
        #[serde(deserialize_with = "super::null_as_nan")]
        cost: f64,
        /// Its interval's half-width (absent in files before issue 44, judged by a 10 % band).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        half: Option<f64>,
    },
    /// A shift's interval lies wholly above 1, which only run-to-run noise explains (a shift
    /// cannot make the same reads faster): a cost no larger cannot be told apart.
    Noise {
        /// The largest gain: its share − 1.
        #[serde(deserialize_with = "super::null_as_nan")]
        gain: f64,
        /// Its interval's half-width (absent in files before issue 44).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        half: Option<f64>,
    },
    /// Every shift's interval holds 1: no cost measurable.
    Free {
        /// Within ± this share: the widest interval's half-width (before issue 44, a fixed
        /// band of 0.1).
        within: f64,
    },
    /// A point had too few windows for an interval, and no other shows a difference.
    NoInterval,
}

/// What the regions' latencies say of the cache's size.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CacheSizeFound {
    /// Random reads stay fast up to a region of `bytes` and slow down beyond it.
    Found {
        /// The largest fast region, bytes.
        bytes: u64,
    },
    /// Latency stays flat up to the largest region tried.
    Flat {
        /// The largest region, bytes.
        up_to_bytes: u64,
    },
    /// No region rows: the size was not probed.
    NotProbed,
}

/// Write-through's throughput against write-back's at one depth.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct DepthShare {
    /// I/Os in flight.
    pub qd: u32,
    /// The mean over the sizes of write-through ÷ write-back MB/s (before issue 44: the
    /// median).
    pub share: f64,
    /// Its interval, from each point's within-run interval of MB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<Interval>,
}

/// What write-through against write-back says of the device's write cache, judged by the
/// shares' 95 % intervals.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WriteCacheOutcome {
    /// Write-through's share at the shallowest depth has an interval that holds 1: no cost
    /// measurable, so no volatile cache shows (or one protected and acknowledged as stable).
    NoVolatileCache,
    /// The device acknowledges from its cache, and deeper queues win back part of it (the
    /// deepest depth's share above the shallowest's beyond both intervals).
    DepthWinsBack,
    /// The device acknowledges from its cache, and depth does not measurably win it back.
    DepthDoesNot,
    /// The shallowest depth's share (or the deepest's) has no interval: nothing is judged.
    NoInterval,
}

/// What an experiment found: the figures and judgements its verdict is worded from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ExperimentFinding {
    /// The rows held nothing to compare.
    NothingToCompare {
        /// What they lacked.
        missing: Missing,
    },
    /// `buffering`: buffered against direct, per direction.
    Buffering {
        /// The smallest request size compared, bytes (000's 16 KB).
        from_bytes: u64,
        /// Per direction with rows of both.
        ratios: Vec<BufferingRatio>,
        /// Whether buffering costs CPU in some direction: its CPU ratio's interval lies wholly
        /// above 1 (before issue 44: the ratio above 1.1).
        costly: bool,
    },
    /// `allocation`: extending and sparse files against a written one, per depth.
    Allocation {
        /// Per depth and allocating variant.
        shares: Vec<AllocationShare>,
        /// Whether allocating costs: some share's interval lies wholly below 1 (before issue
        /// 44: the worst share below 0.9).
        costly: bool,
        /// When no share costs and each has an interval: no cost measurable within ± this
        /// share, the widest interval's half-width (absent otherwise, and in older files).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        within: Option<f64>,
    },
    /// `alignment`: shifted offsets against aligned ones.
    Alignment {
        /// Per shift, in the order they ran.
        shifts: Vec<ShiftShare>,
        /// What they show.
        outcome: AlignmentOutcome,
    },
    /// `cache`: latency by access pattern at the smallest size, and the cache's size.
    Cache {
        /// The request size of the latencies, bytes.
        bs_bytes: u64,
        /// Mean latency of cache hits, µs.
        cache_hit_us: Option<f64>,
        /// Mean latency of read-ahead hits, µs.
        prefetch_us: Option<f64>,
        /// Mean latency of random reads, µs.
        random_us: Option<f64>,
        /// What the regions say of the cache's size.
        size: CacheSizeFound,
    },
    /// `writecache`: write-through against write-back, per depth.
    Writecache {
        /// Per depth, shallowest first.
        shares: Vec<DepthShare>,
        /// What they say of the write cache.
        outcome: WriteCacheOutcome,
    },
    /// `burst`: the bucket the two drains show, and the refill.
    Burst(Box<super::bucket::Refill>),
}

impl crate::units::Choice for ExperimentKind {
    const ALL: &'static [Self] = &[
        ExperimentKind::Buffering,
        ExperimentKind::Allocation,
        ExperimentKind::Alignment,
        ExperimentKind::Cache,
        ExperimentKind::Writecache,
        ExperimentKind::Burst,
    ];

    fn name(self) -> &'static str {
        ExperimentKind::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            ExperimentKind::Buffering => {
                r#"Direct against buffered reads and writes by request size: MB/s and CPU per MB (000 Figures 2–4, "avoid file-system buffering above 16 KB")"#
            }
            ExperimentKind::Allocation => {
                r#"Sequential writes into a written file, a file extended as it is written, and a sparse (truncated) file, at QD1 and QD8 (000 §5.3, "extending a file forces synchronous writes")"#
            }
            ExperimentKind::Alignment => {
                r#"The same random reads at aligned offsets and shifted by 512 B, 4 KiB and half the request size (000 §5.4, "misaligned stripes cost 20 %")"#
            }
            ExperimentKind::Cache => {
                "Re-reads of one small region, reads just behind the last one and random reads by request size, and random reads over growing regions to find the cache's size (000 Table 3)"
            }
            ExperimentKind::Writecache => {
                r#"Write-through (O_DSYNC) against write-back at QD1 and QD8 by request size (000's WCE discussion: "3-deep writes approximate WCE")"#
            }
            ExperimentKind::Burst => {
                "A saturating load until a credit bucket's baseline holds (--hold), a rest (--rest), and the same again: the burst, the baseline, the credits and the refill per second of rest (a cloud volume's bursting)"
            }
        }
    }
}
