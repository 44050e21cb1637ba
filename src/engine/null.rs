//! The null engine: completes every request at once without any I/O, so a run measures
//! halfpower's own cost per I/O (offset generation, stamping, recording).

use super::{BufferArena, Engine, IoRequest};
use std::io;

/// Completes each prepared request immediately with the full request size.
pub struct NullEngine {
    arena: BufferArena,
    len: u32,
    queued: Vec<(u32, u32)>,
}

impl NullEngine {
    /// A null engine over `arena` with requests of `len` bytes.
    pub fn new(arena: BufferArena, len: u32) -> Self {
        let depth = arena.slots();
        NullEngine {
            arena,
            len,
            queued: Vec::with_capacity(depth),
        }
    }
}

impl Engine for NullEngine {
    #[inline]
    fn prepare(&mut self, req: IoRequest) {
        self.queued.push((req.slot, req.len));
    }

    #[inline]
    fn submit_and_reap(
        &mut self,
        _min_complete: u32,
        mut on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        for (slot, len) in self.queued.drain(..) {
            on_complete(slot, len as i32);
        }
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.arena.slot_mut(slot, self.len as usize)
    }

    fn sync_files(&mut self, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
}
