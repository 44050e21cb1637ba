//! The workload's flags: clap's side of [`Workload`], [`Setup`], [`Safety`] and [`Access`],
//! one declaration each, lowered into those plain types by `From` (nothing below the commands
//! sees clap), and the parser of every enum a flag names ([`choice`]).

use crate::access::{Access, Arrivals, Distribution, RequestSize};
use crate::affinity::Affinity;
use crate::engine::pattern::{Formats, Pattern};
use crate::plan::{
    Create, DEFAULT_SEED, EngineKind, OnError, Payload, RwMode, Safety, Setup, Workload,
};
use crate::units::{ByteSize, Choice, Dur, Rate};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use std::marker::PhantomData;
use std::time::Duration;

/// `--time DUR`: one declaration for every command that measures or records for a time.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeArg {
    /// «-capture:How long to measure after the warm-up»«capture:How long to record»; Ctrl-C
    /// ends it early and keeps what was «-capture:measured»«capture:recorded» [default:
    /// «-quick,experiment,doctor:10s»«quick:5s per test»«experiment:2s per point; burst 300s per
    /// drain at most»«doctor:10s; with --price 1s per run»].
    #[arg(
        long = "time",
        id = "time",
        value_name = "DUR",
        allow_hyphen_values = true,
        value_parser = crate::units::duration_above_zero
    )]
    pub given: Option<Dur>,
}

impl TimeArg {
    /// The time given, else the command's `default`.
    pub fn or(self, default: Duration) -> Dur {
        self.given.unwrap_or(Dur(default))
    }
}

/// `--warmup DUR`: one declaration for every command that warms up.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct WarmupArg {
    /// Warm-up before measuring«quick: each test»«experiment: each point (none in
    /// burst)»«sweep: each point»; its I/Os are not counted [default: «-experiment,doctor:1s»
    /// «experiment:500ms»«doctor:1s; with --price 300ms»].
    #[arg(
        long = "warmup",
        id = "warmup",
        value_name = "DUR",
        allow_hyphen_values = true
    )]
    pub given: Option<Dur>,
}

impl WarmupArg {
    /// The warm-up given, else the command's `default`.
    pub fn or(self, default: Duration) -> Dur {
        self.given.unwrap_or(Dur(default))
    }
}

/// `--size SIZE`: one declaration for every command that uses a region or makes a file.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct SizeArg {
    /// «-quick:Region size per target»«quick:Size of the scratch file» (k/m/g =
    /// KiB/MiB/GiB«pts:; PTS's capacity»)«-quick:; a file halfpower creates gets this
    /// size»«quick:, at least 1m (its largest request)» [default: «-quick,experiment,pts:the file or device size minus
    /// --offset, 1g for a new file»«pts:the file or device size, 1g for a new file»«quick:1g»
    /// «experiment:256m»].
    #[arg(long = "size", id = "size", value_name = "SIZE")]
    pub given: Option<ByteSize>,
}

/// `--offset SIZE`: one declaration for every command that places I/O on a target.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct OffsetArg {
    /// Start of the region on each target«replay: (where the trace's offset 0 lands)».
    #[arg(
        long = "offset",
        id = "offset",
        value_name = "SIZE",
        default_value = "0"
    )]
    pub at: ByteSize,
}

/// `--engine ENGINE`: one declaration for every command that picks how I/O is issued: `run`,
/// `sweep`, `scale`, `profile` and `doctor` (through [`SetupArgs`]), `pts` and `replay`.
#[derive(Args, Clone, Copy, Debug, PartialEq)]
pub struct EngineArg {
    /// How I/O is issued.
    #[arg(long = "engine", id = "engine", value_name = "ENGINE", value_parser = choice::<EngineKind>(),
          default_value = "uring")]
    pub kind: EngineKind,
}

/// `--max-inflight N`: one declaration for the open loop of `run` & co. and `replay`.
#[derive(Args, Clone, Copy, Debug, Default, PartialEq)]
pub struct MaxInflightArg {
    /// «-replay:Open loop (--arrivals): »«replay:The replay keeps »at most N requests in flight
    /// per thread; a request due while N are in flight waits for a completion and counts as
    /// late [default: 256«-replay:, fewer for requests over 1m»].
    #[arg(long = "max-inflight", id = "max_inflight", value_name = "N", value_parser = crate::units::count::<u32>)]
    pub n: Option<u32>,
}

/// `--rw MODE[,MODE…]`: one declaration for `run`, `scale` and `sweep`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct RwArg {
    /// Direction and pattern«sweep: (a comma-separated list, a point each)» [default:
    /// «-sweep,experiment:read»«sweep:read,randread,write,randwrite»«experiment:read; burst
    /// randread»].
    #[arg(long = "rw", id = "rw", value_name = "MODE", value_delimiter = ',',
          value_parser = choice::<RwMode>())]
    pub given: Vec<RwMode>,
}

/// `--qd N[,N…]`: one declaration for `run`, `scale`, `sweep` and `pts`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct QdArg {
    /// I/Os in flight per thread«sweep: (a comma-separated list, a point each)» [default:
    /// «-sweep,pts,experiment:1»«sweep:1,4,16,64»«pts:32; latency 1»«experiment:1; burst 16»].
    #[arg(long = "qd", id = "qd", value_name = "N", value_delimiter = ',', value_parser = crate::units::count::<u32>)]
    pub given: Vec<u32>,
}

/// `--threads N[,N…]`: one declaration for `run`, `scale`, `sweep` and `pts`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct ThreadsArg {
    /// Threads per target, each with its own io_uring ring«sweep: (a comma-separated list, a
    /// point each)» [default: «-pts:1»«pts:4; latency 1»].
    #[arg(
        long = "threads",
        id = "threads",
        value_name = "N",
        value_delimiter = ',',
        value_parser = crate::units::count::<u32>
    )]
    pub given: Vec<u32>,
}

/// `--bs SIZE[,SIZE…]`: one declaration for `run`, `scale`, `sweep`, `pts`, `experiment` and
/// `verify`.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct BsArg {
    /// «-verify:Request size»«verify:The block size to read back without a state: the smallest
    /// request size of the run that wrote» (k/m/g = KiB/MiB/GiB)«run,scale:, or a mix drawn per
    /// request such as 4k/50:16k/30:64k/20 (percent of requests: they add up to 100, or blanks
    /// share what is left, 4k/50:16k/:64k/)»«sweep,pts:; a comma-separated list, a point
    /// each»«experiment: of alignment, allocation and burst» [default:
    /// «-sweep,pts,experiment,verify:4k»«sweep:4k,16k,64k,256k,1m»«pts:the test's»«experiment:64k;
    /// burst 4k»«verify:4k»].
    #[arg(long = "bs", id = "bs", value_name = "SIZE", value_delimiter = ',',
          value_parser = RequestSize::from_percentages)]
    pub given: Vec<RequestSize>,
}

impl BsArg {
    /// The sizes given, each a single size (a mix is refused by name: it is run's and scale's).
    pub fn sizes(&self) -> crate::Result<Vec<ByteSize>> {
        self.given
            .iter()
            .map(|r| match r.parts() {
                [(bytes, _)] => Ok(ByteSize(*bytes)),
                _ => Err(crate::Error::invalid(
                    "--bs",
                    r,
                    "one request size here (a mix is run's and scale's)",
                )),
            })
            .collect()
    }

    /// The one size given, if any (a list or a mix is refused by name).
    pub fn size(&self) -> crate::Result<Option<ByteSize>> {
        one("--bs", &self.sizes()?)
    }
}

/// The one value of a flag that takes a list only in `sweep`: `None` when not given, refused
/// (naming the flag and what was given) when more than one.
pub fn one<T: Clone + std::fmt::Display>(
    flag: &'static str,
    given: &[T],
) -> crate::Result<Option<T>> {
    match given {
        [] => Ok(None),
        [v] => Ok(Some(v.clone())),
        many => Err(crate::Error::invalid(
            flag,
            many.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(","),
            "one value here (a comma-separated list is sweep's)",
        )),
    }
}

/// The values given, else `default`.
pub fn list<T: Copy>(given: &[T], default: &[T]) -> Vec<T> {
    if given.is_empty() {
        default.to_vec()
    } else {
        given.to_vec()
    }
}

/// The parser of an enum a flag names: its values and their help from [`Choice`].
#[derive(Clone, Copy, Debug)]
pub struct ChoiceParser<T>(PhantomData<T>);

/// The parser of flag values naming a `T`.
pub fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

impl<T: Choice> ChoiceParser<T> {
    fn values() -> impl Iterator<Item = PossibleValue> {
        T::ALL
            .iter()
            .map(|v| PossibleValue::new(v.name()).help(v.help()))
    }
}

impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        // clap's own refusal (the value, the flag and the values it takes) for a wrong name.
        let name = PossibleValuesParser::new(Self::values()).parse_ref(cmd, arg, value)?;
        T::ALL
            .iter()
            .copied()
            .find(|v| v.name() == name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
    }
}

/// Every option of one workload: its shape (direction, request size, queue depth, threads)
/// and its [`Setup`]. Sizes are powers of two (4k = 4096 bytes); durations take ms, s, m or h.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct WorkloadArgs {
    /// `--rw`.
    #[command(flatten)]
    pub rw: RwArg,
    /// Share of reads in percent for `rw` and `randrw` [default: 50].
    #[arg(long, value_name = "N", value_parser = crate::units::whole_pct)]
    pub read_pct: Option<u8>,
    /// `--bs`.
    #[command(flatten)]
    pub bs: BsArg,
    /// `--qd`.
    #[command(flatten)]
    pub qd: QdArg,
    /// `--threads`.
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// How the run is timed, where it goes and what it may touch.
    #[command(flatten)]
    pub setup: SetupArgs,
}

/// The options of a run besides its shape: timing, region, engine, open flags and the write
/// permissions. `run` takes them with one shape; `sweep` and `profile` with many shapes.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct SetupArgs {
    /// `--time`.
    #[command(flatten)]
    pub time: TimeArg,
    /// Measure exactly this many bytes (split over all threads and targets) instead of a time.
    #[arg(long, value_name = "SIZE", conflicts_with = "time")]
    pub bytes: Option<ByteSize>,
    /// `--warmup`.
    #[command(flatten)]
    pub warmup: WarmupArg,
    /// `--size`.
    #[command(flatten)]
    pub size: SizeArg,
    /// `--offset`.
    #[command(flatten)]
    pub offset: OffsetArg,
    /// `--engine`.
    #[command(flatten)]
    pub engine: EngineArg,
    /// Go through the page cache (default is direct I/O, O_DIRECT).
    #[arg(long)]
    pub buffered: bool,
    /// Open with O_DSYNC: each write returns once it is on stable storage.
    #[arg(long)]
    pub write_through: bool,
    /// Seed of the random offsets and data (same seed, same offsets).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, value_parser = crate::units::count::<u64>)]
    pub seed: u64,
    /// What it may write to.
    #[command(flatten)]
    pub safety: SafetyArgs,
    /// Keep a file halfpower created instead of removing it at the end.
    #[arg(long)]
    pub keep: bool,
    /// How a missing file is created: filled (written with incompressible data first), sparse
    /// (size set, blocks allocated as written), empty (every write extends it) or allocated
    /// (fallocate(2), unwritten); all but the first only for workloads that only write.
    #[arg(long, value_parser = choice::<Create>(), value_name = "HOW", default_value = "filled")]
    pub create: Create,
    /// Where worker threads are placed: spread (worker k on the k-th CPU this process may use,
    /// round robin), none (the scheduler places them) or a CPU list such as 0-3,8.
    #[arg(long, value_name = "spread|none|LIST", default_value = "spread")]
    pub affinity: Affinity,
    /// io_uring: after submitting, poll for completions for up to DUR before sleeping (e.g.
    /// 20us). Saves the wake-up on fast devices; the polling is CPU time and counts in CPU µs/IO.
    #[arg(
        long,
        value_name = "DUR",
        allow_hyphen_values = true,
        default_value = "0"
    )]
    pub spin: Dur,
    /// When I/Os fail (EIO, ENOSPC, …): stop (one second after the first failure), continue
    /// to the end, or continue after the failures of one direction only (continue-reads,
    /// continue-writes). Failures are counted per target and direction either way, and exit 1.
    #[arg(long, value_parser = choice::<OnError>(), value_name = "HOW", default_value = "stop")]
    pub on_error: OnError,
    /// Write this pattern instead of halfpower's stamped random data, repeated over each
    /// write from its start, in fio's grammar: hex (0xdeadbeef), decimals, "strings",
    /// 'FILE' and %o (the write's offset), one after another, at most 512 bytes. A
    /// compressing or deduplicating device may store far fewer bytes than it was given. With
    /// --verify: over each block, and every block read back is compared with it (a workload
    /// that only reads compares every block of its region).
    #[arg(long, value_name = "PATTERN", value_parser = write_pattern)]
    pub write_pattern: Option<Pattern>,
    /// Offset distribution, random share, stride, rate cap and think time.
    #[command(flatten)]
    pub access: AccessArgs,
}

/// `--write-pattern`'s value in fio's pattern grammar.
fn write_pattern(v: &str) -> Result<Pattern, String> {
    Pattern::parse(v, Formats::Offset).map_err(|e| e.to_string())
}

/// The write permissions, one definition for every command that writes: halfpower never
/// writes to an existing file or device without `--allow-write`, nor to a mounted or signed
/// device without `--destroy-data` too.
#[derive(Args, Clone, Copy, Debug, PartialEq)]
pub struct SafetyArgs {
    /// Allow writes to existing files and block devices.
    #[arg(long)]
    pub allow_write: bool,
    /// With --allow-write: also write to a block device that is mounted or carries a
    /// filesystem or partition table (destroys it).
    #[arg(long, requires = "allow_write")]
    pub destroy_data: bool,
}

/// How the offsets and the pace of a workload are drawn, beyond its direction and size.
#[derive(Args, Clone, Debug, PartialEq)]
pub struct AccessArgs {
    /// Random modes: where offsets fall, as fio's random_distribution: uniform,
    /// zipf[:THETA[:CENTRE]], pareto[:H[:CENTRE]], normal[:DEV%[:CENTRE]],
    /// zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/SIZE:... (docs/fio.md)
    #[arg(long, value_name = "DIST", default_value = "uniform")]
    pub dist: Distribution,
    /// Random modes: percent of requests at a random offset; the others continue where the
    /// previous request ended (fio's percentage_random).
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = crate::units::whole_pct)]
    pub random_pct: u8,
    /// Random modes: requests per random offset; each random request is followed by N − 1
    /// sequential ones (fio's rw=randread:N).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::units::count::<u32>)]
    pub random_run: u32,
    /// Sequential modes: distance from one request's start to the next (default: the request
    /// size; larger leaves gaps, fio's rw=read:GAP).
    #[arg(long, value_name = "SIZE")]
    pub stride: Option<ByteSize>,
    /// Cap the whole run's throughput at RATE, shared equally by all workers: MB/s = 10^6
    /// bytes/s, so 40, 40m and 40MB/s are all 40 MB/s; a unit written out is taken as written
    /// (kB/s, GB/s, MiB/s, GiB/s); decimals as 1.5m.
    #[arg(long, value_name = "RATE")]
    pub rate: Option<Rate>,
    /// Cap the whole run at N I/Os per second, shared equally by all workers.
    #[arg(long, value_name = "N", value_parser = crate::units::count::<u64>)]
    pub rate_iops: Option<u64>,
    /// When requests are issued: closed (each thread keeps --qd in flight; --rate-iops and
    /// --rate pace it, as fio's rate_iops) or an open loop at --rate-iops or --rate, where each
    /// request is issued at its own due time whether or not earlier ones have completed:
    /// poisson (random gaps, as many independent users) or uniform (even gaps). Open-loop
    /// latency runs from the due time, as the application waiting sees it (docs/figures.md).
    #[arg(long, value_parser = choice::<Arrivals>(), value_name = "HOW", default_value = "closed")]
    pub arrivals: Arrivals,
    /// `--max-inflight`.
    #[command(flatten)]
    pub max_inflight: MaxInflightArg,
    /// Pause DUR (e.g. 500us) after every --think-every requests, once those in flight have
    /// completed (fio's thinktime).
    #[arg(long, value_name = "DUR", allow_hyphen_values = true)]
    pub think: Option<Dur>,
    /// Requests issued between two pauses of --think (only with --think).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "think",
          value_parser = crate::units::count::<u32>)]
    pub think_every: u32,
    /// After every N writes, let the requests in flight complete and fsync the target (fio's
    /// fsync); the syncs are counted and timed apart (`results.sync`).
    #[arg(long, value_name = "N", conflicts_with = "fdatasync", value_parser = crate::units::count::<u32>)]
    pub fsync: Option<u32>,
    /// As --fsync with fdatasync (data only, not metadata that reads do not need).
    #[arg(long, value_name = "N", value_parser = crate::units::count::<u32>)]
    pub fdatasync: Option<u32>,
    /// fsync once more when the measured phase has drained (fio's end_fsync).
    #[arg(long)]
    pub end_fsync: bool,
    /// With --buffered: drop the target from the page cache before the first request and
    /// after every pass over the region (each region's worth of bytes a thread issues, once
    /// the requests in flight have completed), so every pass reads from the device (fio's
    /// invalidate, applied before a job and each of its loops). Closed loop only.
    #[arg(long)]
    pub invalidate: bool,
}

impl TryFrom<WorkloadArgs> for Workload {
    type Error = crate::Error;

    /// The workload the flags ask for, in one step: converted, checked and every default filled
    /// ([`Workload::validated`]); refuses a list where one value is taken. What is left is
    /// fitting it to the engine that runs it ([`Workload::plan`]).
    fn try_from(a: WorkloadArgs) -> crate::Result<Self> {
        let d = Workload::default();
        Workload {
            rw: one("--rw", &a.rw.given)?.unwrap_or(d.rw),
            read_pct: a.read_pct,
            bs: one("--bs", &a.bs.given)?.unwrap_or(d.bs.clone()),
            qd: one("--qd", &a.qd.given)?.unwrap_or(d.qd),
            threads: one("--threads", &a.threads.given)?.unwrap_or(d.threads),
            setup: a.setup.into(),
        }
        .validated()
    }
}

impl From<SetupArgs> for Setup {
    fn from(a: SetupArgs) -> Self {
        Setup {
            time: a.time.given,
            bytes: a.bytes,
            warmup: a.warmup.or(Setup::default().warmup.0),
            size: a.size.given,
            offset: a.offset.at,
            engine: a.engine.kind,
            buffered: a.buffered,
            write_through: a.write_through,
            sync_metadata: false,
            seed: a.seed,
            safety: a.safety.into(),
            keep: a.keep,
            create: a.create,
            affinity: a.affinity,
            spin: a.spin,
            on_error: a.on_error,
            payload: a
                .write_pattern
                .map_or(Payload::Stamped, |p| Payload::Pattern(Box::new(p))),
            access: a.access.into(),
        }
    }
}

impl From<SafetyArgs> for Safety {
    fn from(a: SafetyArgs) -> Self {
        Safety {
            allow_write: a.allow_write,
            destroy_data: a.destroy_data,
        }
    }
}

impl From<AccessArgs> for Access {
    fn from(a: AccessArgs) -> Self {
        Access {
            dist: a.dist,
            random_pct: a.random_pct,
            random_run: a.random_run,
            stride: a.stride,
            rate: a.rate.map(|r| ByteSize(r.0.round() as u64)),
            rate_iops: a.rate_iops,
            arrivals: a.arrivals,
            max_inflight: a.max_inflight.n,
            think: a.think,
            think_every: a.think_every,
            fsync: a.fsync,
            fdatasync: a.fdatasync,
            end_fsync: a.end_fsync,
            invalidate: a.invalidate,
            reallocate: false,
        }
    }
}
