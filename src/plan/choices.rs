//! The plan's kinds as choices of a flag: each one's name and help line.

use super::{Create, OnError, RwMode};
use crate::units::Choice;

impl Choice for RwMode {
    const ALL: &'static [Self] = &[
        RwMode::Read,
        RwMode::Write,
        RwMode::Randread,
        RwMode::Randwrite,
        RwMode::Rw,
        RwMode::Randrw,
    ];

    fn name(self) -> &'static str {
        RwMode::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            RwMode::Read => "Sequential reads",
            RwMode::Write => "Sequential writes",
            RwMode::Randread => "Uniform random reads",
            RwMode::Randwrite => "Uniform random writes",
            RwMode::Rw => "Sequential mix of reads and writes (`--read-pct`, default 50)",
            RwMode::Randrw => "Random mix of reads and writes (`--read-pct`, default 50)",
        }
    }
}

impl Choice for Create {
    const ALL: &'static [Self] = &[
        Create::Filled,
        Create::Sparse,
        Create::Empty,
        Create::Allocated,
    ];

    fn name(self) -> &'static str {
        Create::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Create::Filled => {
                "Written with incompressible data before any I/O (every block is allocated and holds data, so reads reach the device)"
            }
            Create::Sparse => {
                "Its size set without writing (a sparse file: the filesystem allocates blocks as they are first written). Write-only workloads"
            }
            Create::Empty => {
                "Zero length: every write extends it (appending). Write-only workloads"
            }
            Create::Allocated => {
                "Its blocks reserved with fallocate(2), not written: each first write converts an unwritten extent (fio's layout for a job that only writes). Write-only workloads"
            }
        }
    }
}

impl Choice for OnError {
    const ALL: &'static [Self] = &[
        OnError::Stop,
        OnError::Continue,
        OnError::ContinueReads,
        OnError::ContinueWrites,
    ];

    fn name(self) -> &'static str {
        OnError::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            OnError::Stop => {
                "Go on for one second after the first failure (to see whether it is a burst), then stop"
            }
            OnError::Continue => "Run to the end whatever fails",
            OnError::ContinueReads => {
                "Run to the end whatever reads fail; stop one second after the first failed write"
            }
            OnError::ContinueWrites => {
                "Run to the end whatever writes fail; stop one second after the first failed read"
            }
        }
    }
}
