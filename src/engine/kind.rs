//! Which engine issues the I/O ([`EngineKind`]) and what each can do ([`EngineCaps`]): the one
//! place the runner, the commands and validation learn it. Adding an engine adds its variant
//! here, its file beside this one and its arms in `engine/mod.rs` ([`super::AnyEngine`]).

use serde::{Deserialize, Serialize};

/// The most I/Os one io_uring thread keeps in flight (its ring's limit).
pub const MAX_DEPTH: u32 = 32_768;

/// How I/O is issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// io_uring: one ring per thread, `--qd` I/Os in flight, registered file and buffers.
    #[default]
    Uring,
    /// pread/pwrite: one I/O in flight per thread.
    Sync,
    /// No I/O at all: measures halfpower's own cost per I/O.
    Null,
}

/// What an engine can do: the one place the runner, the commands and validation learn it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineCaps {
    /// The most I/Os one thread keeps in flight.
    pub max_qd: u32,
    /// Whether it can poll for completions before sleeping (`--spin`).
    pub spin: bool,
}

impl EngineKind {
    /// What this engine can do.
    pub fn caps(self) -> EngineCaps {
        match self {
            EngineKind::Uring => EngineCaps {
                max_qd: MAX_DEPTH,
                spin: true,
            },
            // pread/pwrite block: one I/O in flight per thread, nothing to poll.
            EngineKind::Sync => EngineCaps {
                max_qd: 1,
                spin: false,
            },
            // Completes every I/O at once: any depth, never waits.
            EngineKind::Null => EngineCaps {
                max_qd: MAX_DEPTH,
                spin: false,
            },
        }
    }

    /// The name of fio's `ioengine` that does what this engine does (in fio's own output).
    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::Uring => "io_uring",
            EngineKind::Sync => "psync",
            EngineKind::Null => "null",
        }
    }

    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Uring => "uring",
            EngineKind::Sync => "sync",
            EngineKind::Null => "null",
        }
    }
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl crate::units::Choice for EngineKind {
    const ALL: &'static [Self] = &[EngineKind::Uring, EngineKind::Sync, EngineKind::Null];

    fn name(self) -> &'static str {
        EngineKind::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            EngineKind::Uring => {
                "io_uring: one ring per thread, `--qd` I/Os in flight, registered file and buffers"
            }
            EngineKind::Sync => "pread/pwrite: one I/O in flight per thread",
            EngineKind::Null => "No I/O at all: measures halfpower's own cost per I/O",
        }
    }
}
