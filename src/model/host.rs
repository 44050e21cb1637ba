//! What the host did to halfpower while it measured (`results.host`): the hypervisor's steal,
//! a sleeping probe's lateness, the workers' own waits for a CPU, CPU pressure and the clock
//! source; and which figures the host could have moved (docs/figures.md, "The host").

use super::Direction;
use serde::{Deserialize, Serialize};

/// The host over one measured window.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostNoise {
    /// The window the probe covered, s.
    pub seconds: f64,
    /// CPU time the hypervisor stole, % of all CPU time (/proc/stat).
    pub steal_pct: Option<f64>,
    /// Time some task waited for a CPU, % of the window (PSI `cpu some`; absent without PSI).
    pub cpu_pressure_pct: Option<f64>,
    /// The kernel's clock source (`tsc`, `kvm-clock`, …).
    pub clocksource: Option<String>,
    /// The sleeping probe.
    pub probe: Probe,
    /// Time halfpower's workers and their io_uring helper threads were ready to run and waited
    /// for a CPU, ms, summed (their schedstat `run_delay`; absent where the kernel keeps none).
    pub workers_waited_ms: Option<f64>,
    /// Workers that ran (the denominator of `workers_waited_ms` as a share of the window).
    pub workers: u32,
    /// The figures of these results the host could have moved (empty on a quiet host).
    #[serde(default)]
    pub flags: Vec<HostFlag>,
}

/// The probe: a thread that sleeps to deadlines as halfpower's pacing does.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Probe {
    /// Its mean period, µs (each drawn evenly from half to one and a half times this).
    pub period_us: f64,
    /// How many times it woke.
    pub wakeups: u64,
    /// How late it woke, µs: median.
    pub late_p50_us: f64,
    /// 99th percentile, µs.
    pub late_p99_us: f64,
    /// Latest, µs.
    pub late_max_us: f64,
    /// Share of its wake-ups over 1 ms late (0–1).
    pub over_1ms_share: f64,
    /// Its wake-ups over 1 ms late: the stalls it saw.
    pub stalls: u64,
    /// The time those stalls lasted, ms (each its lateness plus the mean time from a stall's
    /// start to the next deadline: exact on average for stalls longer than the period).
    pub stalled_ms: f64,
    /// Its own CPU time, % of one CPU over the window.
    pub cpu_pct: f64,
}

/// A figure the host could have moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFlag {
    /// Which figure.
    pub figure: HostFigure,
    /// Its direction, for a latency (absent: the total, or a figure of the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// Why.
    pub cause: HostCause,
}

/// The figures a flag can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostFigure {
    /// I/Os per second and bytes per second: the process was stalled for a share of the window.
    Throughput,
    /// The median latency.
    P50,
    /// The 90th percentile.
    P90,
    /// The 99th percentile.
    P99,
    /// The 99.9th percentile.
    P99_9,
    /// The 99.99th percentile.
    P99_99,
    /// The largest latency.
    Max,
    /// The steady-state verdict.
    Steady,
    /// The steps found in the per-second series.
    Changes,
}

/// What the host did that could have moved a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostCause {
    /// This process was kept off the CPU (the probe's stalls, the workers' waits).
    Stalled,
    /// The hypervisor stole CPU time.
    Steal,
}

impl HostNoise {
    /// Whether the host could have moved any figure.
    pub fn interfered(&self) -> bool {
        !self.flags.is_empty()
    }

    /// The flag on `figure` (of `direction`, or of the whole run), if any.
    pub fn flag(&self, figure: HostFigure, direction: Option<Direction>) -> Option<&HostFlag> {
        self.flags
            .iter()
            .find(|f| f.figure == figure && (f.direction.is_none() || f.direction == direction))
    }
}
