//! The sync engine: one pread/pwrite per request, in the worker's own thread.

use super::{BufferArena, Engine, IoDir, IoRequest};
use std::io;
use std::os::fd::RawFd;

/// Issues each prepared request as a blocking pread or pwrite.
pub struct SyncEngine {
    fds: Vec<RawFd>,
    arena: BufferArena,
    len: u32,
    queued: Vec<IoRequest>,
}

impl SyncEngine {
    /// A sync engine on the files `fds` (which must outlive it) with requests of `len` bytes.
    pub fn new(fds: &[RawFd], arena: BufferArena, len: u32) -> Self {
        let depth = arena.slots();
        SyncEngine {
            fds: fds.to_vec(),
            arena,
            len,
            queued: Vec::with_capacity(depth),
        }
    }
}

impl Engine for SyncEngine {
    const SUBMITS_EACH: bool = true;

    fn prepare(&mut self, req: IoRequest) {
        self.queued.push(req);
    }

    fn submit_and_reap(
        &mut self,
        _min_complete: u32,
        mut on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        for i in 0..self.queued.len() {
            let req = self.queued[i];
            let buf = self.arena.slot_ptr(req.slot);
            let fd = self.fds[req.file as usize];
            let res = loop {
                // SAFETY: buf points to a live slot of at least `len` bytes owned by this
                // engine; fd is open for the engine's lifetime (the caller's contract).
                let n = unsafe {
                    match req.dir {
                        IoDir::Read => {
                            libc::pread(fd, buf.cast(), req.len as usize, req.offset as libc::off_t)
                        }
                        IoDir::Write => libc::pwrite(
                            fd,
                            buf.cast(),
                            req.len as usize,
                            req.offset as libc::off_t,
                        ),
                    }
                };
                if n >= 0 {
                    break n as i32;
                }
                let err = io::Error::last_os_error();
                if err.kind() != io::ErrorKind::Interrupted {
                    break -err.raw_os_error().unwrap_or(libc::EIO);
                }
            };
            on_complete(req.slot, res);
        }
        self.queued.clear();
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.arena.slot_mut(slot, self.len as usize)
    }

    fn sync_files(&mut self, data_only: bool) -> io::Result<()> {
        super::sync_fds(&self.fds, data_only)
    }

    fn drop_cache(&mut self) {
        super::drop_cache_fds(&self.fds);
    }

    fn release(&mut self, how: super::Release) -> io::Result<()> {
        super::release_fds(&self.fds, how)
    }
}
