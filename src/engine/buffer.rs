//! One aligned allocation per worker, cut into equal slots: the buffers of its in-flight I/Os.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::io;

/// `slots` buffers of `slot_size` bytes, each aligned to `align` (a power of two ≥ the
/// device's direct-I/O memory alignment; halfpower uses at least 4096).
pub struct BufferArena {
    ptr: *mut u8,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the arena owns its allocation exclusively; moving it to another thread moves the
// ownership, and nothing else holds the pointer once the engine that registered it is dropped.
unsafe impl Send for BufferArena {}

impl BufferArena {
    /// Allocates zeroed buffers. `slot_size` is rounded up to `align` so every slot is aligned.
    pub fn new(slots: usize, slot_size: usize, align: usize) -> io::Result<Self> {
        let align = align.max(4096).next_power_of_two();
        let stride = slot_size.div_ceil(align) * align;
        let total = stride
            .checked_mul(slots.max(1))
            .ok_or_else(|| io::Error::other("buffer arena too large"))?;
        let layout = Layout::from_size_align(total, align).map_err(io::Error::other)?;
        // SAFETY: layout has a non-zero size (stride ≥ align ≥ 4096, slots ≥ 1).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {total} bytes of I/O buffers"),
            ));
        }
        Ok(BufferArena {
            ptr,
            layout,
            slot_size: stride,
            slots: slots.max(1),
        })
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Start of slot `i` (stride-aligned).
    pub fn slot_ptr(&self, i: u32) -> *mut u8 {
        assert!((i as usize) < self.slots, "slot {i} out of range");
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(i as usize * self.slot_size) }
    }

    /// Slot `i` as a slice of `len` bytes (`len` ≤ the slot size).
    pub fn slot_mut(&mut self, i: u32, len: usize) -> &mut [u8] {
        assert!(len <= self.slot_size);
        // SAFETY: the slot lies inside the allocation, is initialized (zeroed at allocation)
        // and &mut self guarantees no other Rust reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), len) }
    }

    /// The whole allocation as one slice.
    pub fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in slot_mut, for the whole allocation.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// (address, length) of each slot, for registering with io_uring.
    pub fn iovecs(&self, len: usize) -> Vec<libc::iovec> {
        (0..self.slots as u32)
            .map(|i| libc::iovec {
                iov_base: self.slot_ptr(i).cast(),
                iov_len: len,
            })
            .collect()
    }
}

impl Drop for BufferArena {
    fn drop(&mut self) {
        // SAFETY: ptr came from alloc_zeroed with this layout and is freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let mut a = BufferArena::new(3, 5000, 512).unwrap();
        for i in 0..3 {
            assert_eq!(a.slot_ptr(i) as usize % 4096, 0);
        }
        a.slot_mut(1, 5000).fill(7);
        assert!(a.slot_mut(0, 5000).iter().all(|&b| b == 0));
        assert!(a.slot_mut(2, 5000).iter().all(|&b| b == 0));
        assert_eq!(a.iovecs(5000).len(), 3);
    }
}
