//! The scheduler's per-thread statistics (/proc/thread-self/schedstat) and the kernel's clock
//! source: how long a thread was ready to run and waited for a CPU.

/// The calling thread's `run_delay`: time spent ready to run and waiting on a run queue, ns
/// (the second field of schedstat). None where the kernel keeps no schedstat.
pub fn run_delay_ns() -> Option<u64> {
    parse_run_delay(&std::fs::read_to_string("/proc/thread-self/schedstat").ok()?)
}

/// [`run_delay_ns`] of the calling thread plus that of its io_uring helpers (the kernel's
/// `iou-wrk-TID` threads, which carry requests a file system cannot take without blocking, as
/// FUSE's, and whose waits for a CPU delay the completions the worker sees). A helper that
/// exited between two readings takes its count with it, so a difference can only fall short.
pub fn run_delay_with_helpers_ns() -> Option<u64> {
    let own = run_delay_ns()?;
    // SAFETY: gettid takes no arguments and cannot fail.
    let tid = unsafe { libc::gettid() };
    let name = format!("iou-wrk-{tid}");
    let helpers: u64 = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| std::fs::read_to_string(e.path().join("comm")).is_ok_and(|c| c.trim() == name))
        .filter_map(|e| parse_run_delay(&std::fs::read_to_string(e.path().join("schedstat")).ok()?))
        .sum();
    Some(own + helpers)
}

/// The `run_delay` field of a schedstat line (`on-CPU ns, run_delay ns, timeslices`).
pub fn parse_run_delay(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

/// The kernel's current clock source (`tsc`, `kvm-clock`, `hpet`, `arch_sys_counter`, …).
pub fn clocksource() -> Option<String> {
    let s =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn run_delay_is_the_second_field() {
        assert_eq!(super::parse_run_delay("709484 1234 2\n"), Some(1234));
        assert_eq!(super::parse_run_delay("709484"), None);
        assert_eq!(super::parse_run_delay("a b c"), None);
    }

    #[test]
    fn this_thread_has_a_run_delay_here() {
        // Linux with CONFIG_SCHED_INFO, as every kernel this project runs on.
        assert!(super::run_delay_ns().is_some());
    }
}
