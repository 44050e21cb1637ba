//! Clocks: the monotonic clock every I/O is stamped with (nanoseconds of CLOCK_MONOTONIC), and
//! the wall clock, used only to date documents and records (RFC 3339, UTC, via `jiff`).
//!
//! One `clock_gettime` through the vDSO per stamp (about 20 ns); a plain `u64` keeps the
//! per-slot stamp arrays small and the subtraction branch-free. No duration is ever measured on
//! the wall clock.

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

/// The current time as RFC 3339 UTC, whole seconds (`2026-11-21T17:02:03Z`).
pub fn utc_now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// Milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds
/// (`2026-11-21T17:22:03.045Z`).
pub fn rfc3339_ms(unix_ms: u64) -> String {
    jiff::Timestamp::from_millisecond(unix_ms.min(i64::MAX as u64) as i64).map_or_else(
        |_| String::new(),
        |t| t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
    )
}

/// Milliseconds since the Unix epoch as ctime(3) writes the time, in UTC
/// (`Mon Nov 23 09:31:26 2026`), as fio's documents date themselves.
pub fn ctime_utc(unix_ms: u64) -> String {
    jiff::Timestamp::from_millisecond(unix_ms.min(i64::MAX as u64) as i64).map_or_else(
        |_| String::new(),
        |t| t.strftime("%a %b %e %H:%M:%S %Y").to_string(),
    )
}

/// Milliseconds since the Unix epoch now.
pub fn unix_ms() -> u64 {
    jiff::Timestamp::now().as_millisecond().max(0) as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::ctime_utc(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(
            super::rfc3339_ms(951_782_400_000),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            super::rfc3339_ms(1_795_281_723_045),
            "2026-11-21T17:22:03.045Z"
        );
        let now = super::utc_now();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z'));
    }

    #[test]
    fn monotonic() {
        let a = super::now_ns();
        let b = super::now_ns();
        assert!(b >= a);
        assert!(a > 0);
    }
}
