//! The options of `halfpower replay`.

use super::OutputArgs;
use clap::Args;
use std::path::PathBuf;

/// Reads `--headroom-precision`: a percentage (a trailing `%` allowed) from 0.1 to 50, as a
/// share.
fn parse_precision(s: &str) -> Result<f64, String> {
    match s.strip_suffix('%').unwrap_or(s).parse::<f64>() {
        Ok(p) if (0.1..=50.0).contains(&p) => Ok(p / 100.0),
        _ => Err("a percentage from 0.1 to 50 (e.g. 2 or 5%)".into()),
    }
}

/// `halfpower replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace: halfpower's own (`halfpower capture`), or a fio iolog (version 2 or 3).
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// The file or block device to replay it on (offsets are the trace's, from --offset).
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Speeds to replay at: the trace's times are divided by each (2 = twice as fast).
    #[arg(long, value_delimiter = ',', value_name = "LIST", default_value = "1",
          value_parser = crate::units::factor)]
    pub speed: Vec<f64>,
    /// Also search the speeds at which the mean and the 99th percentile response time double
    /// against speed 1 (doubling, then bisection to --headroom-precision), and name what
    /// limited them.
    #[arg(long)]
    pub headroom: bool,
    /// How narrow the headroom search's bracket gets before the crossing is read off, in
    /// percent of its lower speed (0.1 to 50): each halving of it costs about one more
    /// replay per figure.
    #[arg(long, value_name = "PCT", value_parser = parse_precision, requires = "headroom",
          default_value_t = 100.0 * crate::analysis::headroom::PRECISION)]
    pub headroom_precision: f64,
    /// Which figures' doubling the headroom search looks for (each costs its own bisection).
    #[arg(long, value_name = "FIGURE", requires = "headroom",
          value_parser = super::choice::<crate::model::replay::HeadroomOf>(),
          default_value = "both")]
    pub headroom_of: crate::model::replay::HeadroomOf,
    /// Under MPI, one trace for the whole job: request i goes to rank i mod N, each at its own
    /// time from the job's common start, so the job replays the trace at its own pace. (Without
    /// it, each rank replays all of TRACE: name one per rank with `{rank}`.)
    #[arg(long)]
    pub shard: bool,
    /// `--reads-only`.
    #[command(flatten)]
    pub reads_only: super::ReadsOnlyArg,
    /// Wrap offsets beyond the target around it (else a trace larger than the target is
    /// refused).
    #[arg(long)]
    pub wrap: bool,
    /// `--max-inflight`.
    #[command(flatten)]
    pub max_inflight: super::MaxInflightArg,
    /// A trace without times (a fio iolog v2 without `wait`) is issued as fast as N requests
    /// in flight allow.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::units::count::<u32>)]
    pub depth: u32,
    /// `--offset` where the trace's offset 0 lands.
    #[command(flatten)]
    pub offset: super::OffsetArg,
    /// `--engine`.
    #[command(flatten)]
    pub engine: super::EngineArg,
    /// What the trace's writes may go to.
    #[command(flatten)]
    pub safety: super::SafetyArgs,
    /// Where the results go.
    #[command(flatten)]
    pub output: OutputArgs,
}
