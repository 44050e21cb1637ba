//! CPU cost of a run: the process's own user and system time (getrusage) and the system-wide
//! busy time (/proc/stat, which includes kernel workers such as loop or io-wq threads), turned
//! into CPU µs per I/O and per MB.

use super::window::cpu_busy_pct;
use crate::oscounters::cgroup::{self, CpuStat};
use crate::oscounters::procstat::{self, SystemCpu};
use serde::{Deserialize, Serialize};

/// Context switches and page faults of this process so far (getrusage), as fio reports them
/// per job (`ctx`, `majf`, `minf`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessEvents {
    /// Voluntary and involuntary context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majf: u64,
    /// Minor page faults.
    pub minf: u64,
}

impl ProcessEvents {
    /// getrusage(RUSAGE_SELF) now.
    pub fn now() -> Self {
        // SAFETY: rusage is plain data and getrusage only writes it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: ru is writable.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        ProcessEvents {
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw).max(0) as u64,
            majf: ru.ru_majflt.max(0) as u64,
            minf: ru.ru_minflt.max(0) as u64,
        }
    }

    /// The events since `before`.
    pub fn since(self, before: ProcessEvents) -> Self {
        ProcessEvents {
            ctx: self.ctx.saturating_sub(before.ctx),
            majf: self.majf.saturating_sub(before.majf),
            minf: self.minf.saturating_sub(before.minf),
        }
    }
}

/// CPU time of this process, seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ProcessCpu {
    /// User time.
    pub user_s: f64,
    /// System (kernel) time spent on the process's behalf.
    pub sys_s: f64,
}

impl ProcessCpu {
    /// getrusage(RUSAGE_SELF) now: all threads of the process.
    pub fn now() -> Self {
        // SAFETY: rusage is plain data and getrusage only writes it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: ru is writable.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        ProcessCpu {
            user_s: tv(ru.ru_utime),
            sys_s: tv(ru.ru_stime),
        }
    }
}

/// Both CPU counters at one instant.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuSnapshot {
    /// This process.
    pub process: ProcessCpu,
    /// The whole system (None where /proc/stat is unreadable).
    pub system: Option<SystemCpu>,
    /// The throttling of the cgroup whose CPU quota limits this process (None without one).
    pub cgroup: Option<CpuStat>,
}

impl CpuSnapshot {
    /// Reads both now.
    pub fn now() -> Self {
        CpuSnapshot {
            process: ProcessCpu::now(),
            system: procstat::read(),
            cgroup: cgroup::cpu_stat(),
        }
    }
}

/// CPU cost over the measured window, as written to JSON under `results.cpu`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuSummary {
    /// Process user time, s.
    pub process_user_s: f64,
    /// Process system time, s.
    pub process_sys_s: f64,
    /// Process CPU (user + system) as % of one CPU over the window.
    pub process_pct_of_one_cpu: f64,
    /// Process CPU µs per I/O (user + system).
    pub us_per_io: f64,
    /// Process CPU µs per MB (10^6 bytes) transferred.
    pub us_per_mb: f64,
    /// System-wide busy CPU time, s (all CPUs, every process and kernel thread).
    pub system_busy_s: f64,
    /// System-wide busy time as % of all CPUs over the window (busy / (busy + idle) from
    /// /proc/stat: at most 100).
    pub system_busy_pct: f64,
    /// System-wide busy CPU µs per I/O.
    pub system_us_per_io: f64,
    /// System-wide busy CPU µs per MB.
    pub system_us_per_mb: f64,
    /// What set the system-wide figures: the kernel's tick-sampled counters, or this process's
    /// own CPU time where those counted less (older files: the counters).
    #[serde(default, skip_serializing_if = "BusySource::is_ticks")]
    pub system_busy_source: BusySource,
    /// Under a cgroup CPU quota: its enforcement periods over the window and those in which
    /// the kernel held the group off the CPU (`cpu.stat`; absent without a quota).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<CgroupCpu>,
}

/// A CPU quota's enforcement over the window, from the group's `cpu.stat`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CgroupCpu {
    /// Enforcement periods that elapsed with the group runnable.
    pub periods: u64,
    /// Periods in which the group used up its quota and was held off the CPU.
    pub throttled_periods: u64,
    /// The time it was held off, ms.
    pub throttled_ms: f64,
}

impl CgroupCpu {
    /// The change from `before` to `after` (None unless both were read).
    fn between(before: Option<CpuStat>, after: Option<CpuStat>) -> Option<CgroupCpu> {
        let (b, a) = (before?, after?);
        Some(CgroupCpu {
            periods: a.periods.saturating_sub(b.periods),
            throttled_periods: a.throttled.saturating_sub(b.throttled),
            throttled_ms: a.throttled_ns.saturating_sub(b.throttled_ns) as f64 / 1e6,
        })
    }

    /// The share of the periods throttled (0 when none elapsed).
    pub fn throttled_share(&self) -> f64 {
        if self.periods == 0 {
            0.0
        } else {
            self.throttled_periods as f64 / self.periods as f64
        }
    }
}

/// Where the system-wide busy time comes from. /proc/stat charges each tick (every 1–10 ms) to
/// what the CPU was doing at that instant, so a thread that runs between ticks and sleeps
/// across them (a paced worker) is missed: a run at 2000 IOPS whose worker was 215 ms on a CPU
/// moved /proc/stat by 3 jiffies. The process's own time (getrusage, from the scheduler's
/// clock) is exact, and the whole system cannot have been busier than less than it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BusySource {
    /// /proc/stat's busy time, at least the process's own.
    #[default]
    Ticks,
    /// /proc/stat counted less than this process's own CPU time: the figure is the process's,
    /// a floor (the kernel's threads working for it meanwhile are not in it).
    ProcessFloor,
}

impl BusySource {
    /// Whether the figure is /proc/stat's own (serde's test for leaving the key out).
    pub fn is_ticks(&self) -> bool {
        *self == BusySource::Ticks
    }
}

impl CpuSummary {
    /// The cost between two snapshots `seconds` apart for `ios` I/Os moving `bytes`. The
    /// system share is of all the machine's CPUs ([`cpu_busy_pct`]), whatever CPUs this process
    /// may use.
    pub fn between(
        before: &CpuSnapshot,
        after: &CpuSnapshot,
        seconds: f64,
        ios: u64,
        bytes: u64,
    ) -> Self {
        let user = (after.process.user_s - before.process.user_s).max(0.0);
        let sys = (after.process.sys_s - before.process.sys_s).max(0.0);
        let (ticked, idle) = match (before.system, after.system) {
            (Some(b), Some(a)) => (
                (a.busy_s - b.busy_s).max(0.0),
                (a.idle_s - b.idle_s).max(0.0),
            ),
            _ => (0.0, 0.0),
        };
        // No less than this process's own CPU time (BusySource), taken from idle's ticks.
        let own = user + sys;
        let (busy, idle, source) = if before.system.is_some() && ticked < own {
            let total = ticked + idle;
            (own, (total - own).max(0.0), BusySource::ProcessFloor)
        } else {
            (ticked, idle, BusySource::Ticks)
        };
        let per_io = |cpu_s: f64| {
            if ios == 0 {
                0.0
            } else {
                cpu_s * 1e6 / ios as f64
            }
        };
        let per_mb = |cpu_s: f64| {
            if bytes == 0 {
                0.0
            } else {
                cpu_s * 1e6 / (bytes as f64 / 1e6)
            }
        };
        let pct = |cpu_s: f64, n: f64| {
            if seconds > 0.0 {
                cpu_s / seconds / n * 100.0
            } else {
                0.0
            }
        };
        CpuSummary {
            process_user_s: user,
            process_sys_s: sys,
            process_pct_of_one_cpu: pct(user + sys, 1.0),
            us_per_io: per_io(user + sys),
            us_per_mb: per_mb(user + sys),
            system_busy_s: busy,
            system_busy_pct: cpu_busy_pct(busy, idle),
            system_us_per_io: per_io(busy),
            system_us_per_mb: per_mb(busy),
            system_busy_source: source,
            cgroup: CgroupCpu::between(before.cgroup, after.cgroup),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_per_io_and_per_mb() {
        let before = CpuSnapshot {
            process: ProcessCpu {
                user_s: 1.0,
                sys_s: 2.0,
            },
            system: Some(SystemCpu {
                busy_s: 10.0,
                idle_s: 5.0,
            }),
            cgroup: Some(CpuStat {
                periods: 10,
                throttled: 1,
                throttled_ns: 5_000_000,
            }),
        };
        let after = CpuSnapshot {
            process: ProcessCpu {
                user_s: 1.5,
                sys_s: 2.5,
            },
            system: Some(SystemCpu {
                busy_s: 12.0,
                idle_s: 7.0,
            }),
            cgroup: Some(CpuStat {
                periods: 30,
                throttled: 16,
                throttled_ns: 1_505_000_000,
            }),
        };
        // 1 s of process CPU for 100 000 I/Os of 4096 bytes over 2 s on 2 CPUs: 2 CPU-s busy
        // and 2 idle system-wide.
        let c = CpuSummary::between(&before, &after, 2.0, 100_000, 409_600_000);
        assert!((c.us_per_io - 10.0).abs() < 1e-9);
        assert!((c.us_per_mb - 1e6 / 409.6).abs() < 1e-6);
        assert!((c.system_us_per_io - 20.0).abs() < 1e-9);
        assert!((c.process_pct_of_one_cpu - 50.0).abs() < 1e-9);
        assert!((c.system_busy_pct - 50.0).abs() < 1e-9);
        // 20 periods, 15 of them throttled, for 1.5 s in all.
        let g = c.cgroup.unwrap();
        assert_eq!((g.periods, g.throttled_periods), (20, 15));
        assert!(
            (g.throttled_ms - 1500.0).abs() < 1e-9 && (g.throttled_share() - 0.75).abs() < 1e-12
        );
    }

    #[test]
    fn the_system_is_never_less_busy_than_the_process() {
        let snap = |own: f64, busy: f64, idle: f64| CpuSnapshot {
            process: ProcessCpu {
                user_s: own / 2.0,
                sys_s: own / 2.0,
            },
            system: Some(SystemCpu {
                busy_s: busy,
                idle_s: idle,
            }),
            cgroup: None,
        };
        // 0.215 s of the process's CPU in 5 s on 2 CPUs; the ticks saw 0.012 s (3 jiffies).
        let c = CpuSummary::between(
            &snap(0.0, 0.0, 0.0),
            &snap(0.215, 0.012, 9.988),
            5.0,
            10_000,
            1,
        );
        assert_eq!(c.system_busy_source, BusySource::ProcessFloor);
        assert!((c.system_busy_s - 0.215).abs() < 1e-9);
        assert!(
            (c.system_busy_pct - 2.15).abs() < 1e-9,
            "{}",
            c.system_busy_pct
        );
        assert!((c.system_us_per_io - c.us_per_io).abs() < 1e-9);
        // Ticks that saw more than the process keep their own figure.
        let c = CpuSummary::between(&snap(0.0, 0.0, 0.0), &snap(0.215, 0.3, 9.7), 5.0, 10_000, 1);
        assert_eq!(c.system_busy_source, BusySource::Ticks);
        assert!((c.system_busy_s - 0.3).abs() < 1e-9);
        // Without /proc/stat nothing is said of the system.
        let mut after = snap(0.215, 0.0, 0.0);
        after.system = None;
        let mut before = snap(0.0, 0.0, 0.0);
        before.system = None;
        let c = CpuSummary::between(&before, &after, 5.0, 10_000, 1);
        assert_eq!(
            (c.system_busy_s, c.system_busy_source),
            (0.0, BusySource::Ticks)
        );
        assert_eq!(c.cgroup, None, "no quota, no key");
    }

    #[test]
    fn the_process_clock_moves_when_working() {
        let a = ProcessCpu::now();
        let mut x = 0u64;
        let t = std::time::Instant::now();
        while t.elapsed().as_millis() < 50 {
            x = x.wrapping_add(std::hint::black_box(1));
        }
        let b = ProcessCpu::now();
        assert!(b.user_s + b.sys_s > a.user_s + a.sys_s, "{x}");
    }
}
