//! /proc/stat: system-wide CPU time by state, interrupts, context switches and blocked tasks.

use serde::{Deserialize, Serialize};

/// System-wide CPU time in seconds, split into busy and idle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SystemCpu {
    /// user + nice + system + irq + softirq + steal, seconds (kernel workers included).
    pub busy_s: f64,
    /// idle + iowait, seconds.
    pub idle_s: f64,
}

/// The aggregate `cpu` line by state (seconds, all CPUs together) and the system counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProcStat {
    /// Time in user mode (nice included; guest time is already inside), s.
    pub user_s: f64,
    /// Time in kernel mode outside interrupts, s.
    pub system_s: f64,
    /// Idle time, s.
    pub idle_s: f64,
    /// Idle time while some task waited for I/O, s.
    pub iowait_s: f64,
    /// Time in hard interrupts, s.
    pub irq_s: f64,
    /// Time in soft interrupts, s.
    pub softirq_s: f64,
    /// Time stolen by the hypervisor, s.
    pub steal_s: f64,
    /// Interrupts serviced since boot (first field of `intr`).
    pub interrupts: u64,
    /// Context switches since boot.
    pub context_switches: u64,
    /// Tasks blocked on I/O right now (a gauge, not a counter).
    pub procs_blocked: u64,
}

impl ProcStat {
    /// Busy and idle seconds as `run` reports them.
    pub fn system_cpu(&self) -> SystemCpu {
        SystemCpu {
            busy_s: self.user_s + self.system_s + self.irq_s + self.softirq_s + self.steal_s,
            idle_s: self.idle_s + self.iowait_s,
        }
    }

    /// All CPU time, s (the denominator of the CPU percentages).
    pub fn total_s(&self) -> f64 {
        let c = self.system_cpu();
        c.busy_s + c.idle_s
    }
}

/// Parses /proc/stat text; `ticks_per_s` is USER_HZ (sysconf(_SC_CLK_TCK)). `None` without a
/// well-formed `cpu ` line.
pub fn parse_full(text: &str, ticks_per_s: f64) -> Option<ProcStat> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 4 {
        return None;
    }
    let f = |i: usize| v.get(i).copied().unwrap_or(0) as f64 / ticks_per_s;
    let first = |key: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    // user nice system idle iowait irq softirq steal (guest is already inside user)
    Some(ProcStat {
        user_s: f(0) + f(1),
        system_s: f(2),
        idle_s: f(3),
        iowait_s: f(4),
        irq_s: f(5),
        softirq_s: f(6),
        steal_s: f(7),
        interrupts: first("intr "),
        context_switches: first("ctxt "),
        procs_blocked: first("procs_blocked "),
    })
}

/// Parses the `cpu ` line into busy and idle seconds.
pub fn parse(text: &str, ticks_per_s: f64) -> Option<SystemCpu> {
    parse_full(text, ticks_per_s).map(|p| p.system_cpu())
}

/// USER_HZ, the unit of /proc/stat's CPU fields.
pub fn ticks_per_s() -> f64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

/// Reads /proc/stat now.
pub fn read_full() -> Option<ProcStat> {
    parse_full(&std::fs::read_to_string("/proc/stat").ok()?, ticks_per_s())
}

/// Reads /proc/stat's busy and idle time now.
pub fn read() -> Option<SystemCpu> {
    read_full().map(|p| p.system_cpu())
}

#[cfg(test)]
mod tests {
    #[test]
    fn busy_and_idle() {
        let text = "cpu  100 20 30 400 50 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        let c = super::parse(text, 100.0).unwrap();
        assert!((c.busy_s - 1.71).abs() < 1e-9);
        assert!((c.idle_s - 4.5).abs() < 1e-9);
    }

    #[test]
    fn system_counters() {
        let text = "cpu  100 20 30 400 50 6 7 8 0 0\nintr 4265 1 2 3\nctxt 99\nbtime 1\nprocs_running 2\nprocs_blocked 3\n";
        let p = super::parse_full(text, 100.0).unwrap();
        assert_eq!(
            (p.interrupts, p.context_switches, p.procs_blocked),
            (4265, 99, 3)
        );
        assert!((p.user_s - 1.2).abs() < 1e-9);
        assert!((p.iowait_s - 0.5).abs() < 1e-9);
        assert!(super::parse_full("cpu  x\n", 100.0).is_none());
    }
}
