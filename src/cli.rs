//! The command line: clap derive structs and nothing else. Workload options come from
//! [`crate::spec::Workload`], so flags, job files and JSON share one definition.

use crate::spec::Workload;
use crate::units::{ByteSize, Dur};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const UNITS: &str = "Units: sizes take k, m, g, t suffixes and are powers of two (4k = 4096 bytes, \
1m = 1 MiB). Durations take ms, s, m (minutes) or h (a bare number is seconds). Throughput is \
printed in MB/s = 10^6 bytes per second. Latency runs from the submission of each I/O to its \
completion.";

/// halfpower: what can this storage really do, how far is a workload from it, and why.
///
/// Without a subcommand, runs the quick suite on a scratch file in the current directory.
#[derive(Parser, Debug)]
#[command(name = "halfpower", version, after_help = UNITS, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run one workload against files or block devices and measure it.
    #[command(after_help = UNITS)]
    Run(RunArgs),
    /// The quick suite: sequential 1 MiB and random 4 KiB reads and writes at QD 1 and deep
    /// queues (CrystalDiskMark's matrix) on a scratch file.
    #[command(after_help = UNITS)]
    Quick(QuickArgs),
}

/// Where results go.
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Write the results as one JSON document to PATH, or to stdout with `-` (then no table).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// `halfpower run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Files or block devices. A missing file is created, filled with incompressible data and
    /// removed at the end (unless --keep). With --engine null, only a name.
    #[arg(value_name = "TARGET", required = true)]
    pub targets: Vec<PathBuf>,
    /// The workload.
    #[command(flatten)]
    pub workload: Workload,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `halfpower quick`.
#[derive(Args, Debug)]
pub struct QuickArgs {
    /// Directory for the scratch file `halfpower.tst` [default: .]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Size of the scratch file.
    #[arg(long, value_name = "SIZE", default_value = "1g")]
    pub size: ByteSize,
    /// Measured time per test.
    #[arg(long, value_name = "DUR", default_value = "5s")]
    pub time: Dur,
    /// Warm-up before each test; its I/Os are not counted.
    #[arg(long, value_name = "DUR", default_value = "1s")]
    pub warmup: Dur,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}
