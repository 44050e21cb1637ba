//! fio's JSON document (`--output-format=json`, `json+`) as typed structs whose fields, names
//! and order are fio's, so tools that read fio's output read halfpower's. halfpower's own
//! figures ride along under one key fio does not use (`"halfpower"` per job).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// A JSON object whose keys keep their order (fio writes `"job options"` as given and
/// percentiles in increasing order; a sorted map would put "10.000000" before "5.000000").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// The whole document.
#[derive(Clone, Debug, Serialize)]
pub struct FioDocument {
    /// `"halfpower-X.Y.Z (fio-compatible)"`.
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// Unix time of the end of the run, s.
    pub timestamp: u64,
    /// The same, ms.
    pub timestamp_ms: u64,
    /// The same as ctime(3) writes it.
    pub time: String,
    /// The options of the global sections, as written (absent when there are none).
    #[serde(rename = "global options", skip_serializing_if = "Option::is_none")]
    pub global_options: Option<Ordered<String>>,
    /// Every job.
    pub jobs: Vec<FioJobReport>,
    /// The disks underneath, over all jobs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disk_util: Vec<DiskUtil>,
}

/// Latency statistics in nanoseconds, as fio writes `slat_ns`, `clat_ns` and `lat_ns`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LatNs {
    /// Smallest, ns.
    pub min: u64,
    /// Largest, ns.
    pub max: u64,
    /// Mean, ns.
    pub mean: f64,
    /// Standard deviation, ns (from halfpower's histogram, within its 0.4 % bucket width).
    pub stddev: f64,
    /// Number of I/Os (0 where halfpower does not measure the figure).
    #[serde(rename = "N")]
    pub n: u64,
    /// Percentiles, keyed as fio keys them (`"99.000000"`), ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<Ordered<u64>>,
    /// `json+` only: every non-empty histogram bucket, keyed by its value in ns, with its count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<Ordered<u64>>,
}

/// One direction of a job (`read`, `write`, `trim`), fio's fields in fio's order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DirReport {
    /// Bytes moved.
    pub io_bytes: u64,
    /// KiB moved.
    pub io_kbytes: u64,
    /// Bytes per second.
    pub bw_bytes: u64,
    /// KiB per second (integer, as fio).
    pub bw: u64,
    /// I/Os per second.
    pub iops: f64,
    /// Measured time, ms.
    pub runtime: u64,
    /// I/Os completed.
    pub total_ios: u64,
    /// I/Os that came back short.
    pub short_ios: u64,
    /// I/Os dropped (never in halfpower).
    pub drop_ios: u64,
    /// Submission latency: not measured apart by halfpower (N = 0); see docs/fio.md.
    pub slat_ns: LatNs,
    /// Completion latency: halfpower's per-I/O latency (see docs/fio.md).
    pub clat_ns: LatNs,
    /// Total latency: the same per-I/O latency.
    pub lat_ns: LatNs,
    /// Smallest per-second bandwidth, KiB/s.
    pub bw_min: u64,
    /// Largest per-second bandwidth, KiB/s.
    pub bw_max: u64,
    /// This job's share of its group's bandwidth, %.
    pub bw_agg: f64,
    /// Mean per-second bandwidth, KiB/s.
    pub bw_mean: f64,
    /// Its standard deviation, KiB/s.
    pub bw_dev: f64,
    /// Number of per-second samples.
    pub bw_samples: u64,
    /// Smallest per-second IOPS.
    pub iops_min: u64,
    /// Largest per-second IOPS.
    pub iops_max: u64,
    /// Mean per-second IOPS.
    pub iops_mean: f64,
    /// Its standard deviation.
    pub iops_stddev: f64,
    /// Number of per-second samples.
    pub iops_samples: u64,
}

/// fio's `sync` object: the fsyncs and fdatasyncs of the job and their latency.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncReport {
    /// fsyncs issued.
    pub total_ios: u64,
    /// Their latency.
    pub lat_ns: LatNs,
}

/// halfpower's figures that fio does not have, under `"halfpower"` in each job.
#[derive(Clone, Debug, Serialize)]
pub struct HalfpowerExtras {
    /// The workload that ran, in halfpower's terms (engine, queue depth, threads, request size).
    pub workload: crate::plan::Workload,
    /// The engine that ran (`uring`, `sync`, `null`).
    pub engine: crate::plan::EngineKind,
    /// What the job ran on as halfpower opened it: one file or device, a stripe set of a
    /// clone's files (`stripe(a+b)`), or the files of clones that each have their own, joined
    /// with `, ` (`d/jb.0.0, d/jb.1.0`).
    pub target: String,
    /// Whether I/O bypassed the page cache.
    pub direct: bool,
    /// Process CPU µs per I/O.
    pub cpu_us_per_io: f64,
    /// System-wide busy CPU, % of all CPUs.
    pub system_busy_pct: f64,
    /// The 95 % interval of IOPS, ± %.
    pub iops_ci95_pct: Option<f64>,
    /// The disks underneath: %util, average queue size, r_await and w_await (ms).
    pub devices: Vec<crate::oscounters::diskstats::DeviceDelta>,
    /// What differs from fio for this job.
    pub notes: Vec<FioNote>,
    /// With `verify`: what reading the written blocks back found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<super::verify::Verification>,
}

/// Something halfpower does unlike fio for one job, worth a warning (its sentence is in
/// render: `render::text::fio::note`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FioNote {
    /// The job's name.
    pub job: String,
    /// What differs (its `kind` and data, beside `job`).
    #[serde(flatten)]
    pub kind: FioNoteKind,
}

/// How a job ends, as a note tells it.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JobEnding {
    /// When its size is done.
    Size,
    /// At its runtime (`time_based`).
    Time,
}

/// What a [`FioNote`] says differs from fio.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FioNoteKind {
    /// `ioengine=libaio` runs on halfpower's io_uring engine, at the same queue depth.
    Libaio,
    /// A synchronous engine keeps one I/O in flight: `iodepth` is ignored, as in fio.
    SyncDepth {
        /// The engine as fio names it (`psync`).
        engine: String,
        /// The `iodepth` the job gave.
        iodepth: u32,
    },
    /// The job's clones (`numjobs`) are reported together, as with `group_reporting`.
    ClonesTogether {
        /// How many clones.
        numjobs: u32,
    },
    /// A random job with a mix of request sizes and no `norandommap`: fio's random map
    /// shortens its requests, halfpower draws the mix as with `norandommap`.
    RandomMapMix {
        /// The option that gave the mix (`bssplit` or `bsrange`).
        option: String,
        /// The mix's mean request size, bytes.
        mean_bytes: f64,
    },
    /// With several I/Os in flight, `thinktime` waits for them before each pause, as fio does.
    ThinktimeWaits,
    /// `gtod_reduce`: accepted; halfpower stamps each I/O at its submission and completion
    /// whatever fio would have left out, so every latency figure is there.
    GtodReduce,
    /// `create_on_open`: accepted; the files are laid out before the job is measured, as
    /// without it (the creation is not in any figure either way).
    CreateOnOpen,
    /// `exitall`: accepted where it changes nothing: the jobs of its wave end at the same time
    /// (or it runs alone); a wave whose jobs end apart is refused.
    Exitall,
    /// With several I/Os in flight, each `fsync`/`fdatasync` waits for the writes in flight
    /// (so it covers them); fio on an async engine sends it beside them, so its queue stays
    /// full where halfpower's drains and refills (`iodepth_level` differs).
    SyncDrains {
        /// Writes between two syncs.
        every: u32,
    },
    /// `verify`: halfpower seals and reads back its own way, and reports unlike fio.
    Verify {
        /// The method fio was asked for (`crc32c`, `md5`, …).
        method: String,
        /// How the job ends (fio's reports of the two differ).
        ending: JobEnding,
    },
    /// `verify_pattern`: every block is written with the pattern and compared with it.
    VerifyPattern {
        /// fio's `verify` as given (`pattern`, or a method under which fio also writes its
        /// header), or none (fio's default with a pattern writes its header too).
        method: Option<String>,
        /// How the job ends.
        ending: JobEnding,
    },
    /// `buffer_pattern`: the job writes the pattern, as fio does, not halfpower's data.
    BufferPattern,
}

/// One job as fio reports it.
#[derive(Clone, Debug, Serialize)]
pub struct FioJobReport {
    /// The job's name.
    pub jobname: String,
    /// Its group.
    pub groupid: u32,
    /// 0, or the errno of the first failed I/O.
    pub error: i32,
    /// Seconds left (fio writes INT_MAX once done).
    pub eta: u64,
    /// Seconds since the whole run began.
    pub elapsed: u64,
    /// Its own options as written.
    #[serde(rename = "job options")]
    pub job_options: Ordered<String>,
    /// Reads (absent with `unified_rw_reporting=mixed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<DirReport>,
    /// Writes (absent with `unified_rw_reporting=mixed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<DirReport>,
    /// Trims (never issued; absent with `unified_rw_reporting=mixed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirReport>,
    /// fsyncs and fdatasyncs (absent with `unified_rw_reporting=mixed`, as in fio).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncReport>,
    /// `unified_rw_reporting=mixed` or `both`: every direction together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed: Option<DirReport>,
    /// Measured time, ms.
    pub job_runtime: u64,
    /// User CPU, % of the runtime.
    pub usr_cpu: f64,
    /// System CPU, % of the runtime.
    pub sys_cpu: f64,
    /// Context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majf: u64,
    /// Minor page faults.
    pub minf: u64,
    /// Share of submissions made at each in-flight depth, %.
    pub iodepth_level: Ordered<f64>,
    /// Share of submit calls by how many I/Os each carried, %.
    pub iodepth_submit: Ordered<f64>,
    /// Share of reaps by how many completions each returned, %.
    pub iodepth_complete: Ordered<f64>,
    /// Share of I/Os by latency, ns ranges, %.
    pub latency_ns: Ordered<f64>,
    /// µs ranges, %.
    pub latency_us: Ordered<f64>,
    /// ms ranges, %.
    pub latency_ms: Ordered<f64>,
    /// fio's latency target depth (the job's iodepth).
    pub latency_depth: u32,
    /// fio's latency target (none: 0).
    pub latency_target: u64,
    /// fio's latency percentile (100).
    pub latency_percentile: f64,
    /// fio's latency window (0).
    pub latency_window: u64,
    /// A job run with `steadystate` and `ss_dur`: how its steady state was judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SsReport>,
    /// The job's `description`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
    /// halfpower's own figures.
    pub halfpower: HalfpowerExtras,
}

/// What fio's criterion measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsMetric {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    Bw,
}

/// How fio's criterion judges the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsTest {
    /// Every sample within the limit of the window's mean (`iops`, `bw`).
    Deviation,
    /// The least-squares slope of the window within the limit (`iops_slope`, `bw_slope`).
    Slope,
}

/// fio's `steadystate` object: the criterion, whether it held, and the window it was judged on.
#[derive(Clone, Debug, Serialize)]
pub struct SsReport {
    /// The criterion and limit as fio writes them (`iops:2.000000%`).
    pub ss: String,
    /// The window, s.
    pub duration: u64,
    /// 1 when the criterion held (and ended the job), else 0.
    pub attained: u8,
    /// The criterion's value, with `%` when the limit is a percentage.
    pub criterion: String,
    /// The window's largest deviation from its mean (deviation criteria).
    pub max_deviation: f64,
    /// The window's least-squares slope per second (slope criteria).
    pub slope: f64,
    /// The window's samples.
    pub data: SsData,
    /// What the criterion measured (for the text line).
    #[serde(skip)]
    pub metric: SsMetric,
    /// How it judged the window.
    #[serde(skip)]
    pub test: SsTest,
    /// Whether the criterion is a percentage of the mean.
    #[serde(skip)]
    pub pct: bool,
    /// The criterion's value, as a number.
    #[serde(skip)]
    pub value: f64,
}

/// The samples of fio's steady-state window, oldest first.
#[derive(Clone, Debug, Serialize)]
pub struct SsData {
    /// Mean bandwidth, bytes/s (whole).
    pub bw_mean: u64,
    /// Mean IOPS (whole).
    pub iops_mean: u64,
    /// IOPS each second.
    pub iops: Vec<u64>,
    /// Bandwidth each second, bytes/s.
    pub bw: Vec<u64>,
}

/// One disk, as fio's `disk_util`.
#[derive(Clone, Debug, Serialize)]
pub struct DiskUtil {
    /// Kernel name.
    pub name: String,
    /// Reads completed.
    pub read_ios: u64,
    /// Writes completed.
    pub write_ios: u64,
    /// Reads merged.
    pub read_merges: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Time reads spent, ms.
    pub read_ticks: u64,
    /// Time writes spent, ms.
    pub write_ticks: u64,
    /// Weighted time in queue, ms.
    pub in_queue: u64,
    /// Busy, %.
    pub util: f64,
}
