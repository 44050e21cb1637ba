//! Tests that need the test process and the machine to themselves, one at a time: io_uring
//! disabled machine-wide (no_uring), a child's peak RSS that includes what it inherited from this
//! process (memory), the context switches of a worker that must have the CPUs to itself
//! (spin), CPU-bound figures compared with fio's (vs_fio_cpu), and response times compared with
//! queueing theory or with a paced job's within 10 % (open_loop, replay, capture: on 2 shared
//! cores, tests running beside them delayed the FUSE server's wake-ups enough to fail them in
//! CI), and levels over time or runs within 5 % of a throttle's (changes,
//! compare: beside the suite's other tests a 2900-IOPS cap gave 1933 and a flat level spread
//! 10 %), and the monitor's own CPU time (monitor_overhead: 0.87 % of a core
//! beside the suite's tests, 0.046 % alone), the host probe against a CPU quota's
//! stalls (host), PTS's latency test within 0.5 ms of a FUSE disk's service time (pts_latency),
//! the self-test's known answers (selftest), and a credit bucket's burst, baseline and
//! credits against a FUSE disk's (bucket). Each takes [`alone`] first, so no two of them
//! run side by side.

#[path = "../common/mod.rs"]
mod common;

mod bucket;
mod capture;
mod changes;
mod compare;
mod host;
mod memory;
mod metrics;
mod monitor_overhead;
mod no_uring;
mod open_loop;
mod pts_latency;
mod replay;
mod selftest;
mod spin;
mod vs_fio_cpu;

/// The turn of one test: held while it runs, so the tests of this binary run one at a time
/// whatever `--test-threads` says.
pub fn alone() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}
