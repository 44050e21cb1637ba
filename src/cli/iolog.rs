//! `--io-log PATH`: the per-I/O record of `run`'s measured phase as CSV.

use clap::Args;
use std::path::PathBuf;

/// `--io-log PATH`.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct IoLogArg {
    /// Also write one CSV line per I/O of the measured phase (the warm-up left out) to PATH,
    /// in completion order under the header t_ns,lat_ns,dir,bytes,offset,target: completion
    /// time in ns since the measured phase began, latency in ns, read or write, bytes, byte
    /// offset in the target, and the target's index (from 0, as the JSON lists them). Kept in
    /// memory while the run goes: 32 bytes per I/O. Under MPI every rank writes its own, so
    /// PATH must hold {rank} (and may hold {host}). Not with --repeat.
    #[arg(long = "io-log", id = "io_log", value_name = "PATH")]
    pub path: Option<PathBuf>,
}
