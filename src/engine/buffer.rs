//! One aligned allocation per worker, cut into equal slots: the buffers of its in-flight I/Os.
//!
//! The arena is an anonymous mapping of its own, aligned to 2 MiB and advised MADV_HUGEPAGE, so
//! that where the kernel grants transparent huge pages a large buffer is physically contiguous.
//! A request's buffer then makes one or a few DMA segments instead of one per 4 KiB page: with
//! 4 KiB pages a 1 MiB direct read needs 256 segments, more than a virtio disk takes in one
//! request (max_segments 254 here), and every such read was split in two on its way to the disk.

use std::io;

/// Huge-page size the arena is aligned to (x86-64 and arm64 with 4 KiB base pages).
const HUGE: usize = 2 << 20;

/// `slots` buffers of `slot_size` bytes, each aligned to `align` (a power of two ≥ the
/// device's direct-I/O memory alignment; halfpower uses at least 4096).
pub struct BufferArena {
    /// Start of the mapping (what munmap takes).
    map: *mut u8,
    /// Length of the mapping.
    map_len: usize,
    /// First slot: `map` rounded up to 2 MiB.
    ptr: *mut u8,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the arena owns its allocation exclusively; moving it to another thread moves the
// ownership, and nothing else holds the pointer once the engine that registered it is dropped.
unsafe impl Send for BufferArena {}

impl BufferArena {
    /// Allocates zeroed buffers (anonymous memory reads as zero). `slot_size` is rounded up to
    /// `align` so every slot is aligned.
    pub fn new(slots: usize, slot_size: usize, align: usize) -> io::Result<Self> {
        let align = align.max(4096).next_power_of_two();
        let stride = slot_size.div_ceil(align) * align;
        let total = stride
            .checked_mul(slots.max(1))
            .ok_or_else(|| io::Error::other("buffer arena too large"))?;
        let map_len = total
            .checked_add(HUGE.max(align))
            .ok_or_else(|| io::Error::other("buffer arena too large"))?;
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!(
                    "cannot allocate {total} bytes of I/O buffers ({})",
                    io::Error::last_os_error()
                ),
            ));
        }
        let map = map.cast::<u8>();
        let skip = (map as usize).next_multiple_of(HUGE.max(align)) - map as usize;
        // SAFETY: skip < HUGE.max(align), so ptr..ptr+total lies inside the mapping.
        let ptr = unsafe { map.add(skip) };
        // Advice only: without transparent huge pages the arena is ordinary 4 KiB pages.
        // SAFETY: the range is part of our own mapping.
        unsafe { libc::madvise(ptr.cast(), total, libc::MADV_HUGEPAGE) };
        Ok(BufferArena {
            map,
            map_len,
            ptr,
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
        // SAFETY: the slot lies inside the mapping, is initialized (anonymous memory is zero)
        // and &mut self guarantees no other Rust reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), len) }
    }

    /// The whole allocation as one slice.
    pub fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in slot_mut, for the whole allocation.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.slot_size * self.slots) }
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
        // SAFETY: map and map_len are the mapping made in new(), unmapped once.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
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
        assert_eq!(a.slot_ptr(0) as usize % HUGE, 0);
    }
}
