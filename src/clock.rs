//! The monotonic clock every I/O is stamped with: nanoseconds of CLOCK_MONOTONIC.
//!
//! One `clock_gettime` through the vDSO per stamp (about 20 ns); a plain `u64` keeps the
//! per-slot stamp arrays small and the subtraction branch-free.

/// Nanoseconds since an arbitrary fixed point (boot), from CLOCK_MONOTONIC.
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn monotonic() {
        let a = super::now_ns();
        let b = super::now_ns();
        assert!(b >= a);
        assert!(a > 0);
    }
}
