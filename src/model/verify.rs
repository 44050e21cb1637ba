//! The documents of data verification: what reading targets back found, as `run --verify`
//! records it in its results and `halfpower verify` writes it (`kind: "verify"`).

use super::Header;
use crate::verify::check::{BadBlock, FaultCounts, MAX_LISTED, SizeCount, TargetCheck};
use serde::{Deserialize, Serialize};

/// One bad block of one target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TargetBadBlock {
    /// The target's path.
    pub target: String,
    /// The block.
    #[serde(flatten)]
    pub block: BadBlock,
}

/// Something about a verification that changes how its counts read (its sentence is in
/// render).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VerifyNote {
    /// The state (version 1) recorded no flush: no write is known durable, so every lost write
    /// counts as lost-unflushed.
    NoFlushRecorded,
    /// The flush before the state was saved failed: writes acknowledged after the last
    /// completed flush are recorded as not durable.
    FlushFailed {
        /// The target.
        target: String,
        /// The error the flush returned.
        error: String,
    },
    /// The state records a file halfpower created for the run and removes at its end: it
    /// cannot be verified later.
    ScratchRemoved {
        /// The file.
        target: String,
    },
}

/// What reading the written blocks back found, over all targets.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Verification {
    /// The record's id (every block written under it carries it); absent when a whole target
    /// was read without a record.
    pub record: Option<u64>,
    /// The state file, when there is one.
    pub state: Option<String>,
    /// The pattern every block was written with and compared with (fio's `verify_pattern`,
    /// `run --write-pattern`) instead of a seal, as hex runs and `%o`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Blocks read and judged, all targets.
    pub blocks_checked: u64,
    /// Of those, bad, by fault.
    pub faults: FaultCounts,
    /// The first bad blocks (at most 1000), target by target in offset order.
    pub bad: Vec<TargetBadBlock>,
    /// Blocks that could not be read.
    pub read_errors: u64,
    /// Blocks with no trace of a seal (whole-target reads): nothing to judge.
    #[serde(default)]
    pub unsealed: u64,
    /// Writes after the last completed flush that were lost (allowed after a power cut).
    #[serde(default)]
    pub lost_unflushed: u64,
    /// Blocks sealed at another block length (whole-target reads), by length: not judged.
    #[serde(default)]
    pub other_block_sizes: Vec<SizeCount>,
    /// What changes how the counts read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<VerifyNote>,
    /// Per target (its own bad list is in `bad`).
    pub targets: Vec<TargetCheck>,
    /// With `--verify-while`: what the run's own reads found while it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during_run: Option<Box<Verification>>,
}

impl Verification {
    /// Gathers the targets' checks.
    pub fn new(record: Option<u64>, state: Option<String>, mut targets: Vec<TargetCheck>) -> Self {
        let mut v = Verification {
            record,
            state,
            ..Verification::default()
        };
        for t in &mut targets {
            v.blocks_checked += t.blocks_checked;
            v.read_errors += t.read_errors;
            v.faults.corrupt += t.faults.corrupt;
            v.faults.misdirected += t.faults.misdirected;
            v.faults.torn += t.faults.torn;
            v.faults.stale += t.faults.stale;
            v.faults.unwritten += t.faults.unwritten;
            v.unsealed += t.unsealed;
            v.lost_unflushed += t.lost_unflushed;
            for o in &t.other_block_sizes {
                match v
                    .other_block_sizes
                    .iter_mut()
                    .find(|s| s.block_size == o.block_size)
                {
                    Some(s) => s.blocks += o.blocks,
                    None => v.other_block_sizes.push(*o),
                }
            }
            for b in std::mem::take(&mut t.bad) {
                if v.bad.len() < MAX_LISTED {
                    v.bad.push(TargetBadBlock {
                        target: t.path.clone(),
                        block: b,
                    });
                }
            }
        }
        v.other_block_sizes.sort_by_key(|s| s.block_size);
        v.targets = targets;
        v
    }

    /// The exit status it calls for: 1 when a block is bad or unreadable; else 2 when blocks
    /// were sealed at another block length (the `--bs` given does not fit them: a usage
    /// error); else 0.
    pub fn exit_status(&self) -> u8 {
        if !self.clean() {
            1
        } else if !self.other_block_sizes.is_empty() {
            2
        } else {
            0
        }
    }

    /// Whether every block checked was good and readable.
    pub fn clean(&self) -> bool {
        self.faults.total() == 0
            && self.read_errors == 0
            && self.during_run.as_ref().is_none_or(|d| d.clean())
    }
}

/// The document `halfpower verify --json` writes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct VerifyReport {
    /// Layout version, kind, writer, command line and date.
    #[serde(flatten)]
    pub header: Header,
    /// What was found.
    #[serde(flatten)]
    pub verification: Verification,
}

impl super::Report for VerifyReport {
    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.verification.targets.is_empty()).then_some("the verification checked no target")
    }
}
