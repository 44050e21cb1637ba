//! The options of `halfpower path`.

use super::OutputArgs;
use clap::Args;
use std::path::PathBuf;

/// `halfpower path`.
#[derive(Args, Debug)]
pub struct PathArgs {
    /// Files or directories (their file system, then the device beneath), block devices
    /// (/dev/sda, /dev/mapper/NAME) or kernel names (nvme0n1) [default: .].
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// `--from` a `halfpower run --json` document.
    #[command(flatten)]
    pub from: super::FromArg,
    /// `--limit`: a component above its target.
    #[command(flatten)]
    pub limit: super::LimitArg,
    /// Also write the sysfs files the path was read from (and the mount table's lines it
    /// used) to OUT as a gzip'd tar, for `HALFPOWER_SYSFS=DIR halfpower path …` elsewhere.
    #[arg(long, value_name = "OUT.tar.gz")]
    pub capture: Option<PathBuf>,
    /// Output.
    #[command(flatten)]
    pub output: OutputArgs,
}
