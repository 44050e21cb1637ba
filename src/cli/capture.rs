//! The options of `halfpower capture`.

use super::OutputArgs;
use clap::{Args, ValueEnum};

/// The file format `capture` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceFileFormat {
    /// halfpower's trace (docs/replay.md), with flags and the OS queue and device times.
    Halfpower,
    /// fio's iolog version 3 (times in µs), for fio's read_iolog.
    Fio,
}

/// `halfpower capture`.
#[derive(Args, Debug)]
pub struct CaptureArgs {
    /// The block device: a name such as loop0 or nvme0n1, or its /dev path (a whole disk).
    #[arg(value_name = "DEVICE")]
    pub device: String,
    /// `--time` to record.
    #[command(flatten)]
    pub time: super::TimeArg,
    /// `-o`/`--output`: the trace's file.
    #[command(flatten)]
    pub output_file: super::OutputFileArg,
    /// The trace's format (with -o).
    #[arg(
        long,
        value_enum,
        default_value = "halfpower",
        requires = "output_file"
    )]
    pub format: TraceFileFormat,
    /// Where the summary goes.
    #[command(flatten)]
    pub output: OutputArgs,
}
