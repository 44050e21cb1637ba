//! The I/O engines behind one trait: io_uring, pread/pwrite and null; which one a worker
//! runs ([`AnyEngine`], opened from its [`EngineKind`]), and how the worker's loop is run on it
//! compiled for each ([`Drive`]).
//!
//! A worker prepares requests into numbered slots (one aligned buffer per slot), then asks the
//! engine to submit them and reap completions. The worker, not the engine, stamps each I/O at
//! submission and at completion, so every engine is timed the same way. All `unsafe` I/O code
//! of halfpower lives below this module.

mod buffer;
mod kind;
mod null;
pub mod pattern;
pub mod payload;
mod sync;
mod uring;

pub use buffer::BufferArena;
pub use kind::{EngineCaps, EngineKind, MAX_DEPTH};
pub use null::NullEngine;
pub use sync::SyncEngine;
pub use uring::{UringEngine, uring_available};

use serde::{Deserialize, Serialize};
use std::io;

/// Direction of one I/O (`read`, `write` in documents).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoDir {
    /// Read into the slot's buffer.
    Read,
    /// Write the slot's buffer.
    Write,
}

impl IoDir {
    /// The name as written in documents and tables.
    pub fn name(self) -> &'static str {
        match self {
            IoDir::Read => "read",
            IoDir::Write => "write",
        }
    }
}

impl std::fmt::Display for IoDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// One request: direction, file, byte offset, length and the slot whose buffer it uses.
#[derive(Clone, Copy, Debug)]
pub struct IoRequest {
    /// Read or write.
    pub dir: IoDir,
    /// Which of the engine's files (0 unless a stripe set spans several).
    pub file: u32,
    /// Byte offset on that file.
    pub offset: u64,
    /// Buffer slot (0..queue depth); also the completion's tag.
    pub slot: u32,
    /// Bytes to transfer (at most the engine's buffer length).
    pub len: u32,
}

/// An engine: prepares requests and completes them. Implementations keep at most `depth`
/// requests outstanding, the worker never asks for more.
pub trait Engine {
    /// Whether each request goes to the OS in a call of its own ([`Engine::prepare`] sends it:
    /// io_uring; or the submission calls the OS once per request: pread/pwrite), rather than
    /// all prepared ones in one call. fio's `iodepth_submit` counts calls.
    const SUBMITS_EACH: bool = false;

    /// Takes one request: sends it at once where [`Engine::SUBMITS_EACH`] says so, else queues
    /// it for the next [`Engine::submit_and_reap`].
    fn prepare(&mut self, req: IoRequest);

    /// Submits everything prepared, waits until at least `min_complete` requests have completed
    /// (fewer only if none is outstanding), and calls `on_complete(slot, result)` for each
    /// completion reaped: `result` is bytes transferred, or a negative errno.
    fn submit_and_reap(
        &mut self,
        min_complete: u32,
        on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()>;

    /// Submits everything prepared and reaps what completes until `deadline` (monotonic ns):
    /// returns after the first completions, or at the deadline with none. An open loop waits
    /// so for the next request's due time. Engines that complete every request inside the
    /// submission (sync, null) just submit and reap.
    fn submit_and_reap_until(
        &mut self,
        deadline: u64,
        on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        let _ = deadline;
        self.submit_and_reap(0, on_complete)
    }

    /// The buffer of `slot`, to fill before a write or inspect after a read.
    fn buffer(&mut self, slot: u32) -> &mut [u8];

    /// Flushes every file of the engine to stable storage (fsync, or fdatasync with
    /// `data_only`), blocking; called with nothing in flight. The null engine has nothing to
    /// flush.
    fn sync_files(&mut self, data_only: bool) -> io::Result<()>;

    /// Drops every file of the engine from the page cache (posix_fadvise DONTNEED; dirty pages
    /// stay until written back), so the next buffered reads reach the device; called with
    /// nothing in flight. The null engine has no cache.
    fn drop_cache(&mut self) {}

    /// Gives the blocks of every file of the engine back to the file system as `how` says, so
    /// the next writes allocate again; called with nothing in flight. The null engine has no
    /// blocks.
    fn release(&mut self, how: Release) -> io::Result<()> {
        let _ = how;
        Ok(())
    }
}

/// How a file's blocks are given back between passes (`--create empty` or `sparse` with
/// `Access::reallocate`): the file as halfpower created it, with nothing allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Truncate to `to` bytes (an empty file: every write extends it again).
    Truncate {
        /// The length kept: the region's start.
        to: u64,
    },
    /// Punch a hole over `len` bytes from `from`, keeping the size (a sparse file).
    Punch {
        /// The region's start.
        from: u64,
        /// The region's length.
        len: u64,
    },
}

/// Something a worker does with its engine, whichever it is (the runner's phases): called with
/// each engine's own type, so the worker's loop is compiled for each.
pub trait Drive {
    /// What it returns.
    type Out;

    /// Does it on `eng`.
    fn drive<E: Engine>(self, eng: &mut E) -> Self::Out;
}

/// The engine of one worker, whichever kind.
pub enum AnyEngine {
    /// io_uring.
    Uring(Box<UringEngine>),
    /// pread/pwrite.
    Sync(SyncEngine),
    /// No I/O.
    Null(NullEngine),
}

impl AnyEngine {
    /// Opens engine `kind` on `fds` with the buffers of `arena`, requests of at most `len`
    /// bytes, polling for `spin` before sleeping where the engine can; `punt` sends every
    /// request to io_uring's worker threads (an open loop on a file system, which must never
    /// wait in its submission).
    pub fn open(
        kind: EngineKind,
        fds: &[std::os::fd::RawFd],
        arena: BufferArena,
        len: u32,
        spin: std::time::Duration,
        punt: bool,
    ) -> io::Result<AnyEngine> {
        Ok(match kind {
            EngineKind::Uring => {
                let mut e = UringEngine::new(fds, arena, len, spin)?;
                e.always_async(punt);
                AnyEngine::Uring(Box::new(e))
            }
            EngineKind::Sync => AnyEngine::Sync(SyncEngine::new(fds, arena, len)),
            EngineKind::Null => AnyEngine::Null(NullEngine::new(arena, len)),
        })
    }

    /// Whether the file descriptor and the buffers are registered (io_uring's, for the
    /// record); `None` for an engine that registers nothing.
    pub fn registered(&self) -> Option<(bool, bool)> {
        match self {
            AnyEngine::Uring(e) => Some(e.registered()),
            AnyEngine::Sync(_) | AnyEngine::Null(_) => None,
        }
    }

    /// Does `d` on this engine, with its own type.
    pub fn drive<D: Drive>(&mut self, d: D) -> D::Out {
        match self {
            AnyEngine::Uring(e) => d.drive(e.as_mut()),
            AnyEngine::Sync(e) => d.drive(e),
            AnyEngine::Null(e) => d.drive(e),
        }
    }
}

/// Drops each of `fds` from the page cache (posix_fadvise DONTNEED over the whole file).
pub(crate) fn drop_cache_fds(fds: &[std::os::fd::RawFd]) {
    for &fd in fds {
        // SAFETY: fd is open for the engine's lifetime (the engines' contract); the call takes
        // no pointers, and a failure only leaves pages cached.
        unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}

/// Gives back the blocks of each of `fds` as `how` says.
pub(crate) fn release_fds(fds: &[std::os::fd::RawFd], how: Release) -> io::Result<()> {
    for &fd in fds {
        // SAFETY: fd is open for the engine's lifetime (the engines' contract); the calls take
        // no pointers.
        let rc = unsafe {
            match how {
                Release::Truncate { to } => libc::ftruncate(fd, to as libc::off_t),
                Release::Punch { from, len } => libc::fallocate(
                    fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    from as libc::off_t,
                    len as libc::off_t,
                ),
            }
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// fsync or fdatasync each of `fds`.
pub(crate) fn sync_fds(fds: &[std::os::fd::RawFd], data_only: bool) -> io::Result<()> {
    for &fd in fds {
        // SAFETY: fd is open for the engine's lifetime (the engines' contract); the calls take
        // no pointers.
        let rc = unsafe {
            if data_only {
                libc::fdatasync(fd)
            } else {
                libc::fsync(fd)
            }
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
