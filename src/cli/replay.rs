//! The options of `halfpower replay`.

use super::OutputArgs;
use crate::plan::EngineKind;
use clap::Args;
use std::path::PathBuf;

/// `halfpower replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace: halfpower's own (`capture`), or a fio iolog (version 2 or 3).
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// The file or block device to replay it on (offsets are the trace's, from --offset).
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Speeds to replay at: the trace's times are divided by each (2 = twice as fast).
    #[arg(long, value_delimiter = ',', value_name = "LIST", default_value = "1")]
    pub speed: Vec<f64>,
    /// Also search the speeds at which the mean and the 99th percentile response time double
    /// against speed 1 (doubling, then bisection to 2 %), and name what limited them.
    #[arg(long)]
    pub headroom: bool,
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
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub depth: u32,
    /// `--offset` where the trace's offset 0 lands.
    #[command(flatten)]
    pub offset: super::OffsetArg,
    /// How I/O is issued.
    #[arg(long, value_parser = super::choice::<EngineKind>(), default_value = "uring")]
    pub engine: EngineKind,
    /// What the trace's writes may go to.
    #[command(flatten)]
    pub safety: super::SafetyArgs,
    /// Where the results go.
    #[command(flatten)]
    pub output: OutputArgs,
}
