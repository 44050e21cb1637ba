//! A measured window cut into steps (a run's seconds, a monitor's intervals): the one rule for
//! the last part-step, and the one denominator of a system CPU percentage. `run`'s per-second
//! series, its per-second device figures and `monitor`'s intervals all follow these.

/// A part-step at the end of a window is reported when it is at least this share of a whole
/// step; a shorter one is dropped rather than scaled up, because a rate over a few ms is noise
/// (and the workers' last completions and teardown crowd into it).
pub const MIN_PART_SHARE: f64 = 0.5;

/// A window of `total` seconds cut into steps of `step` seconds, from its start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Length of the window, s.
    pub total: f64,
    /// Length of one step, s.
    pub step: f64,
}

impl Window {
    /// A window of `total` s in steps of `step` s.
    pub fn new(total: f64, step: f64) -> Self {
        Window { total, step }
    }

    /// Whether both lengths are positive numbers (not NaN).
    fn valid(&self) -> bool {
        self.step.is_finite() && self.step > 0.0 && self.total.is_finite() && self.total > 0.0
    }

    /// Length of step `i` (0-based), s: `step` for a whole step, the remainder for the last
    /// part-step when it is at least [`MIN_PART_SHARE`] of a step, else None (also beyond the
    /// window).
    pub fn step_len(&self, i: usize) -> Option<f64> {
        if !self.valid() {
            return None;
        }
        let start = i as f64 * self.step;
        let len = (self.total - start).min(self.step);
        (len >= self.step * MIN_PART_SHARE - 1e-9).then_some(len)
    }

    /// How many steps are reported: the whole steps and a long enough last part-step.
    pub fn steps(&self) -> usize {
        if !self.valid() {
            return 0;
        }
        let whole = (self.total / self.step + 1e-9).floor() as usize;
        whole + usize::from(self.step_len(whole).is_some())
    }
}

/// Length of the short windows a run's throughput is sampled in for its confidence intervals
/// and its steady-state rule, s.
pub const CI_WINDOW_S: f64 = 0.1;

/// Completed I/O counts, all workers together, at one instant of a phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mark {
    /// Seconds since the phase began.
    pub at_s: f64,
    /// I/Os completed.
    pub ios: u64,
    /// Bytes completed.
    pub bytes: u64,
    /// Of those, reads.
    pub read_ios: u64,
    /// Of those, bytes read.
    pub read_bytes: u64,
}

/// The marks at the edges of periods of `period_s` counted from `from_s`: the first mark at or
/// after each edge, half a base window early still counting (the watcher that takes the
/// marks wakes late too), oldest first. Marks are picked by their time, not their count, as a
/// long phase thins them.
pub fn at_edges(marks: &[Mark], from_s: f64, period_s: f64) -> Vec<Mark> {
    let early = CI_WINDOW_S / 2.0;
    let mut picked = Vec::new();
    let mut edge = from_s;
    for m in marks {
        if m.at_s + early >= edge {
            picked.push(*m);
            edge = ((m.at_s + early - from_s) / period_s).floor() * period_s + from_s + period_s;
        }
    }
    picked
}

/// Per-window rates between successive marks: (IOPS, bytes/s) of all I/O, of reads and of
/// writes. A last window shorter than half of the one before it is left out (the one
/// part-step rule).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rates {
    /// All I/Os per second, per window.
    pub iops: Vec<f64>,
    /// All bytes per second.
    pub bytes_per_s: Vec<f64>,
    /// Reads per second.
    pub read_iops: Vec<f64>,
    /// Bytes read per second.
    pub read_bytes_per_s: Vec<f64>,
    /// Writes per second.
    pub write_iops: Vec<f64>,
    /// Bytes written per second.
    pub write_bytes_per_s: Vec<f64>,
}

impl Rates {
    /// The rates between consecutive `marks` (the first mark is the phase's start).
    pub fn of(marks: &[Mark]) -> Self {
        let mut r = Rates::default();
        for (k, pair) in marks.windows(2).enumerate() {
            let (a, b) = (pair[0], pair[1]);
            let dt = b.at_s - a.at_s;
            let last = k + 2 == marks.len();
            let full = if k == 0 {
                dt
            } else {
                marks[k].at_s - marks[k - 1].at_s
            };
            if dt <= 0.0 || (last && k > 0 && !part_step_kept(dt, full)) {
                continue;
            }
            let rate = |x: u64, y: u64| y.saturating_sub(x) as f64 / dt;
            r.iops.push(rate(a.ios, b.ios));
            r.bytes_per_s.push(rate(a.bytes, b.bytes));
            r.read_iops.push(rate(a.read_ios, b.read_ios));
            r.read_bytes_per_s.push(rate(a.read_bytes, b.read_bytes));
            r.write_iops
                .push(rate(a.ios - a.read_ios, b.ios - b.read_ios));
            r.write_bytes_per_s
                .push(rate(a.bytes - a.read_bytes, b.bytes - b.read_bytes));
        }
        r
    }
}

/// Whether a part-step of `len` s is long enough to report, for a step of `step` s (the same
/// rule as [`Window::step_len`], for a monitor interval cut short by Ctrl-C).
pub fn part_step_kept(len: f64, step: f64) -> bool {
    len >= step * MIN_PART_SHARE - 1e-9
}

/// Share of all the machine's CPUs that were busy, %, from /proc/stat's deltas of busy and idle
/// time (summed over every CPU, whatever CPUs this process may use). 0 when nothing elapsed.
pub fn cpu_busy_pct(busy_s: f64, idle_s: f64) -> f64 {
    cpu_pct(busy_s, busy_s + idle_s)
}

/// `part_s` of CPU time (one state's delta from /proc/stat) as % of `total_s`, the busy + idle
/// delta of all CPUs: the one denominator of every system CPU percentage.
pub fn cpu_pct(part_s: f64, total_s: f64) -> f64 {
    if total_s > 0.0 {
        (part_s / total_s * 100.0).clamp(0.0, 100.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_steps_at_least_half_a_step_are_kept() {
        let w = Window::new(2.5, 1.0);
        assert_eq!(w.steps(), 3);
        assert_eq!(w.step_len(0), Some(1.0));
        assert_eq!(w.step_len(2), Some(0.5));
        assert_eq!(w.step_len(3), None);
        let short = Window::new(2.2, 1.0);
        assert_eq!(short.steps(), 2);
        assert_eq!(short.step_len(2), None);
        assert_eq!(Window::new(3.0, 1.0).steps(), 3);
        assert_eq!(Window::new(0.0, 1.0).steps(), 0);
        assert_eq!(Window::new(0.3, 1.0).steps(), 0);
        assert!(part_step_kept(0.5, 1.0));
        assert!(!part_step_kept(0.2, 1.0));
    }

    #[test]
    fn rates_between_marks_leave_out_a_short_last_window() {
        let m = |at_s: f64, ios: u64, read_ios: u64| Mark {
            at_s,
            ios,
            bytes: ios * 4096,
            read_ios,
            read_bytes: read_ios * 4096,
        };
        let marks = [
            m(0.0, 0, 0),
            m(0.1, 100, 70),
            m(0.2, 210, 140),
            m(0.23, 240, 160),
        ];
        let r = Rates::of(&marks);
        assert_eq!(r.iops.len(), 2, "30 ms of a 100-ms window is left out");
        assert!((r.iops[1] - 1100.0).abs() < 1e-6);
        assert!((r.read_iops[0] - 700.0).abs() < 1e-6);
        assert!((r.write_iops[0] - 300.0).abs() < 1e-6);
        assert!((r.bytes_per_s[0] - 4_096_000.0).abs() < 1e-3);
    }

    #[test]
    fn cpu_share_of_all_cpus() {
        // 2 CPUs over 1 s: 1.5 CPU-s busy, 0.5 idle.
        assert_eq!(cpu_busy_pct(1.5, 0.5), 75.0);
        assert_eq!(cpu_busy_pct(0.0, 0.0), 0.0);
        assert_eq!(cpu_busy_pct(2.0, 0.0), 100.0);
    }
}
