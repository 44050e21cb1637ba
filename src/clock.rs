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

/// Lets this thread's sleeps and timed waits end within 1 µs of their time instead of the
/// kernel's default timer slack of 50 µs (an open loop issues each request at its due time).
pub fn precise_sleeps() {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects only the calling thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0) };
}

/// What one read of the monotonic clock costs, ns: the best mean of `batches` batches of
/// `per_batch` reads each, so a batch the host preempted does not raise it.
pub fn read_cost_ns(batches: u32, per_batch: u32) -> f64 {
    (0..batches.max(1))
        .map(|_| {
            let t0 = std::time::Instant::now();
            let mut x = 0u64;
            for _ in 0..per_batch.max(1) {
                x = x.wrapping_add(std::hint::black_box(now_ns()));
            }
            std::hint::black_box(x);
            t0.elapsed().as_nanos() as f64 / f64::from(per_batch.max(1))
        })
        .fold(f64::INFINITY, f64::min)
}

/// A read that took longer than this was interrupted (the reader lost its CPU between the
/// clock and the reading): [`read_stamped`] takes it again.
pub const READ_SPAN: std::time::Duration = std::time::Duration::from_micros(200);

/// Takes a reading of counters with `read`, stamped with the middle of the read. On a busy
/// machine a thread can lose its CPU for tens of ms between reading the clock and reading the
/// counters, which moves counts from one window to the next (seen on a blkio-throttled loop
/// device: 580 then 22 I/Os in two 100-ms windows where 300 and 300 completed); so a read that
/// took longer than [`READ_SPAN`] is taken again, up to four times, then the last is kept.
pub fn read_stamped<T>(mut read: impl FnMut() -> T) -> (std::time::Instant, T) {
    let mut tries = 0;
    loop {
        let a = std::time::Instant::now();
        let v = read();
        let span = a.elapsed();
        tries += 1;
        if span <= READ_SPAN || tries == 4 {
            return (a + span / 2, v);
        }
    }
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
    fn a_clock_read_costs_something_and_little() {
        let ns = super::read_cost_ns(10, 10_000);
        assert!(ns > 0.0 && ns < 100_000.0, "{ns}");
    }

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
    fn a_reading_is_stamped_within_its_read() {
        let before = std::time::Instant::now();
        let (at, v) = super::read_stamped(|| 7);
        assert_eq!(v, 7);
        assert!(at >= before && at <= std::time::Instant::now());
        // A read slower than READ_SPAN is taken again, four times in all.
        let mut reads = 0;
        super::read_stamped(|| {
            reads += 1;
            std::thread::sleep(super::READ_SPAN * 2);
        });
        assert_eq!(reads, 4);
    }

    #[test]
    fn monotonic() {
        let a = super::now_ns();
        let b = super::now_ns();
        assert!(b >= a);
        assert!(a > 0);
    }
}
