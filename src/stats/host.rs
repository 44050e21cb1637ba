//! The host probe: a light thread that sleeps to deadlines as halfpower's pacing does and
//! stamps how late each wake-up comes, with the hypervisor's steal time and the kernel's CPU
//! pressure, over a measured window and second by second. A figure the host could have moved
//! is judged from this (`analysis::host`), not from the figure itself.
//!
//! The probe sleeps a period drawn evenly from [P/2, 3P/2] (P = [`PERIOD_NS`]), so that it does
//! not lock in step with a periodic disturbance (a CFS quota's 100-ms period). A wake-up late
//! by more than [`STALL_NS`] counts as a stall. A stall longer than the period began, on
//! average, the forward recurrence time of the probe's deadlines before the deadline it spoiled
//! (13/24 of P for this draw), and a shorter one that a deadline fell into began, on average,
//! as long before it as the wake-up was late; so each stall is counted as its lateness plus the
//! smaller of the two. Stalls are counted within a few ms each; those shorter than the period
//! are hit with the chance their length over the period gives, so a run's total of short
//! stalls is undercounted (docs/figures.md). Deadlines that passed during a stall are skipped:
//! one stall, one late wake-up.

use super::Histogram;
use crate::clock::now_ns;
use crate::oscounters::{pressure, procstat};
use std::sync::{Arc, Condvar, Mutex};

/// The probe's mean period in a run, ns: 50 wake-ups a second.
pub const PERIOD_NS: u64 = 20_000_000;

/// A wake-up later than this is a stall, ns.
pub const STALL_NS: u64 = 1_000_000;

/// The mean time from a random instant to the probe's next deadline, ns: E[X²]/(2E[X]) for
/// periods X uniform on [P/2, 3P/2], at the run's period.
pub const FORWARD_NS: u64 = forward_ns(PERIOD_NS);

/// [`FORWARD_NS`] for a mean period of `period_ns`.
pub const fn forward_ns(period_ns: u64) -> u64 {
    period_ns * 13 / 24
}

/// /proc/stat's steal and all CPU time, and PSI's CPU `some` total, at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostCounters {
    /// Steal, s (all CPUs).
    pub steal_s: f64,
    /// All CPU time, s (all CPUs).
    pub total_s: f64,
    /// PSI cpu `some` since boot, µs (None: no PSI).
    pub cpu_some_us: Option<u64>,
}

impl HostCounters {
    /// Reads them now.
    pub fn now() -> Self {
        let stat = procstat::read_full().unwrap_or_default();
        HostCounters {
            steal_s: stat.steal_s,
            total_s: stat.total_s(),
            cpu_some_us: pressure::read("cpu").map(|p| p.some_us),
        }
    }

    /// Steal between `self` and `later`, % of all CPU time (None: no CPU time passed).
    pub fn steal_pct(&self, later: &Self) -> Option<f64> {
        let total = later.total_s - self.total_s;
        (total > 0.0).then(|| 100.0 * (later.steal_s - self.steal_s).max(0.0) / total)
    }

    /// CPU pressure between `self` and `later` over `seconds`, % of the time some task waited
    /// for a CPU.
    pub fn pressure_pct(&self, later: &Self, seconds: f64) -> Option<f64> {
        let (a, b) = (self.cpu_some_us?, later.cpu_some_us?);
        (seconds > 0.0).then(|| (100.0 * b.saturating_sub(a) as f64 / 1e6 / seconds).min(100.0))
    }
}

/// One second of the probe's record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostSecond {
    /// Second since the window's start (0-based).
    pub t_s: u32,
    /// Stalled time counted in it, ns.
    pub stalled_ns: u64,
    /// Its latest wake-up, ns late.
    pub max_late_ns: u64,
    /// Steal in it, % of all CPU time.
    pub steal_pct: Option<f64>,
}

/// What the probe saw over a window.
#[derive(Clone, Debug, Default)]
pub struct HostSample {
    /// The window, s.
    pub seconds: f64,
    /// The mean period, ns.
    pub period_ns: u64,
    /// How late each wake-up came, ns.
    pub late: Histogram,
    /// Wake-ups later than [`STALL_NS`].
    pub stalls: u64,
    /// The stalled time counted from them, ns.
    pub stalled_ns: u64,
    /// The probe's own CPU time, ns.
    pub cpu_ns: u64,
    /// The counters at the window's start and end.
    pub counters: (HostCounters, HostCounters),
    /// Second by second.
    pub per_second: Vec<HostSecond>,
}

#[derive(Default)]
struct Flag {
    stop: bool,
}

/// A running probe; [`HostProbe::stop`] ends it and hands back what it saw.
pub struct HostProbe {
    flag: Arc<(Mutex<Flag>, Condvar)>,
    thread: Option<std::thread::JoinHandle<HostSample>>,
}

impl HostProbe {
    /// Starts the probe on `cpu` (None: wherever the scheduler puts it); its window and its
    /// seconds count from `origin_ns` (monotonic). On the CPU a worker is pinned to, it is
    /// stalled when that worker is: a CPU quota throttles each CPU's share of a process
    /// separately, so a probe elsewhere can run on through a worker's stall.
    pub fn start(origin_ns: u64, cpu: Option<usize>) -> Self {
        Self::with_period(origin_ns, cpu, PERIOD_NS)
    }

    /// [`HostProbe::start`] with a mean period of `period_ns` (a test's probe wakes more often
    /// than a run's).
    pub fn with_period(origin_ns: u64, cpu: Option<usize>, period_ns: u64) -> Self {
        let period_ns = period_ns.max(2);
        let flag = Arc::new((Mutex::new(Flag::default()), Condvar::new()));
        let theirs = flag.clone();
        let thread = std::thread::Builder::new()
            .name("host-probe".into())
            .spawn(move || {
                if let Some(c) = cpu {
                    // Unpinned, it still measures the host, only not that CPU's share of it.
                    let _ = crate::affinity::pin_current_thread(c);
                }
                probe(origin_ns, period_ns, &theirs)
            })
            .ok();
        HostProbe { flag, thread }
    }

    /// Stops the probe at once (its sleep is cut short) and returns its record (None: the
    /// thread could not be started).
    pub fn stop(mut self) -> Option<HostSample> {
        self.signal_stop();
        self.thread.take()?.join().ok()
    }

    fn signal_stop(&self) {
        let (m, c) = &*self.flag;
        m.lock().unwrap_or_else(|p| p.into_inner()).stop = true;
        c.notify_all();
    }
}

impl Drop for HostProbe {
    fn drop(&mut self) {
        self.signal_stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The calling thread's CPU time, ns.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The probe's loop: sleep to the next deadline, stamp the lateness, until stopped.
fn probe(origin_ns: u64, period_ns: u64, flag: &(Mutex<Flag>, Condvar)) -> HostSample {
    crate::clock::precise_sleeps();
    let cpu0 = thread_cpu_ns();
    let mut rng = crate::rng::Rng::new(origin_ns, 0x0005_7a11);
    let mut rec = Record::new(origin_ns, period_ns);
    let mut due = origin_ns.max(now_ns()) + next_period(&mut rng, period_ns);
    let (m, c) = flag;
    let mut guard = m.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let now = now_ns();
        if !guard.stop && now < due {
            let wait = std::time::Duration::from_nanos(due - now);
            guard = c
                .wait_timeout(guard, wait)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            continue;
        }
        if guard.stop {
            break;
        }
        rec.woke(due, now);
        due += next_period(&mut rng, period_ns);
        if due <= now {
            // Deadlines that passed during a stall are skipped: one stall, one late wake-up.
            due = now + next_period(&mut rng, period_ns);
        }
    }
    drop(guard);
    rec.finish(thread_cpu_ns().saturating_sub(cpu0))
}

/// A period drawn evenly from [P/2, 3P/2] for a mean of P = `period_ns`.
fn next_period(rng: &mut crate::rng::Rng, period_ns: u64) -> u64 {
    period_ns / 2 + rng.below(period_ns)
}

/// The probe's record as it goes.
struct Record {
    origin_ns: u64,
    sample: HostSample,
    /// The counters at the start of the current second.
    second_start: HostCounters,
}

impl Record {
    fn new(origin_ns: u64, period_ns: u64) -> Self {
        let c = HostCounters::now();
        Record {
            origin_ns,
            sample: HostSample {
                period_ns,
                counters: (c, c),
                ..HostSample::default()
            },
            second_start: c,
        }
    }

    /// A wake-up at `now` for deadline `due`.
    fn woke(&mut self, due: u64, now: u64) {
        let late = now.saturating_sub(due);
        let s = &mut self.sample;
        s.late.record(late);
        let second = (due.saturating_sub(self.origin_ns) / 1_000_000_000) as u32;
        self.roll_to(second);
        let cur = self
            .sample
            .per_second
            .last_mut()
            .expect("rolled to this second");
        cur.max_late_ns = cur.max_late_ns.max(late);
        if late > STALL_NS {
            let stalled = late + forward_ns(self.sample.period_ns).min(late);
            cur.stalled_ns += stalled;
            self.sample.stalls += 1;
            self.sample.stalled_ns += stalled;
        }
    }

    /// Opens second `t` (and any skipped before it), closing the steal of the one before.
    fn roll_to(&mut self, t: u32) {
        let open = self.sample.per_second.last().map(|s| s.t_s);
        if open.is_some_and(|o| o >= t) {
            return;
        }
        if open.is_some() {
            let now = HostCounters::now();
            if let Some(last) = self.sample.per_second.last_mut() {
                last.steal_pct = self.second_start.steal_pct(&now);
            }
            self.second_start = now;
        }
        let from = open.map_or(0, |o| o + 1);
        for s in from..=t {
            self.sample.per_second.push(HostSecond {
                t_s: s,
                ..HostSecond::default()
            });
        }
    }

    fn finish(mut self, cpu_ns: u64) -> HostSample {
        let end = HostCounters::now();
        if let Some(last) = self.sample.per_second.last_mut() {
            last.steal_pct = self.second_start.steal_pct(&end);
        }
        self.sample.counters.1 = end;
        self.sample.cpu_ns = cpu_ns;
        self.sample.seconds = now_ns().saturating_sub(self.origin_ns) as f64 / 1e9;
        self.sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_stall_counts_twice_its_lateness() {
        let mut r = Record::new(0, PERIOD_NS);
        r.woke(10_000_000, 12_000_000); // 2 ms late: a stall of about 4 ms
        assert_eq!(r.finish(0).stalled_ns, 4_000_000);
    }

    #[test]
    fn a_stall_counts_its_lateness_plus_the_mean_forward_time() {
        let mut r = Record::new(0, PERIOD_NS);
        r.woke(10_000_000, 10_050_000); // 50 µs late: no stall
        r.woke(1_500_000_000, 1_530_000_000); // 30 ms late, in second 1
        let s = r.finish(0);
        assert_eq!(s.stalls, 1);
        assert_eq!(s.stalled_ns, 30_000_000 + FORWARD_NS);
        assert_eq!(s.late.count(), 2);
        assert_eq!(s.per_second.len(), 2);
        assert_eq!(s.per_second[1].stalled_ns, 30_000_000 + FORWARD_NS);
        assert_eq!(s.per_second[0].max_late_ns, 50_000);
    }

    #[test]
    fn the_forward_time_is_that_of_uniform_periods() {
        // E[X²]/(2E[X]) for X uniform on [P/2, 3P/2], by simulation of the draw.
        let mut rng = crate::rng::Rng::new(1, 2);
        let (mut s1, mut s2) = (0f64, 0f64);
        for _ in 0..200_000 {
            let x = next_period(&mut rng, PERIOD_NS) as f64;
            s1 += x;
            s2 += x * x;
        }
        let fwd = s2 / (2.0 * s1);
        assert!((fwd / FORWARD_NS as f64 - 1.0).abs() < 0.01, "{fwd}");
    }

    #[test]
    fn stop_ends_the_sleep_at_once() {
        let p = HostProbe::start(now_ns(), None);
        std::thread::sleep(std::time::Duration::from_millis(60));
        let t = std::time::Instant::now();
        let s = p.stop().unwrap();
        assert!(t.elapsed() < std::time::Duration::from_millis(PERIOD_NS / 2_000_000));
        assert!(s.late.count() >= 1, "{s:?}");
        assert!(s.seconds >= 0.06);
    }
}
