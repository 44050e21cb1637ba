//! The options of `halfpower pts`.

use super::OutputArgs;
use crate::model::pts::{Mix, PtsTest};
use crate::units::{ByteSize, Dur};
use clap::Args;
use std::path::PathBuf;

/// Reads a read/write mix as PTS writes it: `R/W` in percent adding up to 100 (`65/35`).
pub fn parse_mix(s: &str) -> Result<Mix, String> {
    let accepted = "a read/write mix in percent adding up to 100, e.g. 65/35 or 0/100";
    let (r, w) = s.split_once('/').ok_or(accepted)?;
    let (r, w): (u8, u8) = match (r.trim().parse(), w.trim().parse()) {
        (Ok(r), Ok(w)) => (r, w),
        _ => return Err(accepted.into()),
    };
    if u16::from(r) + u16::from(w) != 100 {
        return Err(accepted.into());
    }
    Ok(Mix { read_pct: r })
}

/// `halfpower pts`.
#[derive(Args, Debug)]
pub struct PtsArgs {
    /// The file or block device (its whole region is purged and written: an existing one
    /// needs --allow-write --destroy-data; a missing file is created with --size).
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Which PTS test: iops (random block sizes x R/W mixes, tracks 4k 0/100 IOPS),
    /// throughput (sequential 128k and 1m, 100/0 and 0/100, tracks write MB/s per size),
    /// latency (0.5k 4k 8k x 100/0 65/35 0/100 at 1 thread QD1, tracks 4k 0/100 mean latency)
    /// or wsat (random 4k writes from the purged state until 4 x the capacity is written).
    #[arg(long, value_parser = super::choice::<PtsTest>(), value_name = "TEST")]
    pub test: PtsTest,
    /// `--bs`: the matrix's sizes instead of the test's (the IOPS and latency tests need 4k,
    /// their tracking size).
    #[command(flatten)]
    pub bs: super::BsArg,
    /// Read/write mixes of the matrix, comma-separated R/W percentages, instead of the test's
    /// (e.g. 65/35,0/100; every test but wsat needs 0/100, its tracking mix).
    #[arg(long, value_delimiter = ',', value_name = "LIST", value_parser = parse_mix)]
    pub mix: Vec<Mix>,
    /// Time of each cell of the matrix in a round (PTS: one minute); a round runs every cell.
    #[arg(
        long,
        value_name = "DUR",
        allow_hyphen_values = true,
        default_value = "1m"
    )]
    pub round: Dur,
    /// Bytes of sequential 128k writes that precondition the target after the purge
    /// [default: twice the capacity, as PTS asks]; 0 skips it.
    #[arg(long, value_name = "SIZE")]
    pub precondition: Option<ByteSize>,
    /// WSAT: stop once this many bytes have been written [default: 4 x the capacity].
    #[arg(long, value_name = "SIZE")]
    pub wsat_bytes: Option<ByteSize>,
    /// `--threads` (PTS leaves the outstanding I/O to the operator).
    #[command(flatten)]
    pub threads: super::ThreadsArg,
    /// `--qd`.
    #[command(flatten)]
    pub qd: super::QdArg,
    /// `--size`: the region tested (PTS's capacity).
    #[command(flatten)]
    pub size: super::SizeArg,
    /// `--engine`.
    #[command(flatten)]
    pub engine: super::EngineArg,
    /// What it may write to.
    #[command(flatten)]
    pub safety: super::SafetyArgs,
    /// Where the results go.
    #[command(flatten)]
    pub output: OutputArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_read_as_pts_writes_them() {
        assert_eq!(parse_mix("65/35"), Ok(Mix { read_pct: 65 }));
        assert_eq!(parse_mix("0/100"), Ok(Mix { read_pct: 0 }));
        assert_eq!(Mix { read_pct: 95 }.to_string(), "95/5");
        for bad in ["65", "60/30", "a/b", "101/-1", "/"] {
            assert!(parse_mix(bad).is_err(), "{bad}");
        }
    }
}
