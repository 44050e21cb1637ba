//! /proc/stat's aggregate `cpu` line: system-wide CPU time by state, in clock ticks.

/// System-wide CPU time in seconds, split into busy and idle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SystemCpu {
    /// user + nice + system + irq + softirq + steal, seconds (kernel workers included).
    pub busy_s: f64,
    /// idle + iowait, seconds.
    pub idle_s: f64,
}

/// Parses the `cpu ` line of /proc/stat text; `ticks_per_s` is USER_HZ (sysconf(_SC_CLK_TCK)).
pub fn parse(text: &str, ticks_per_s: f64) -> Option<SystemCpu> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let f = |i: usize| v.get(i).copied().unwrap_or(0) as f64 / ticks_per_s;
    // user nice system idle iowait irq softirq steal (guest is already inside user)
    Some(SystemCpu {
        busy_s: f(0) + f(1) + f(2) + f(5) + f(6) + f(7),
        idle_s: f(3) + f(4),
    })
}

/// Reads /proc/stat now.
pub fn read() -> Option<SystemCpu> {
    // SAFETY: sysconf has no memory-safety preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    parse(&std::fs::read_to_string("/proc/stat").ok()?, hz)
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
}
