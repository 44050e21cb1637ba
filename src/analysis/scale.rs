//! Reading a scaling experiment (000: "3 disks saturate a bus"): each step's efficiency (its
//! total ÷ the sum of its targets alone) with its interval, the first step from which the total
//! stays below 90 %, the plateau after it, and what holds it there: the I/Os in flight when the
//! response time is unchanged (Little's law), else the components the targets share. Pure:
//! figures in, figures out; render words them.

use crate::model::scale::{
    Bottleneck, ComponentKind, ScaleAnalysis, Shared, StepFlag, StepReading,
};
use crate::oscounters::diskstats::DeviceDelta;
use crate::oscounters::throttle::{IoField, IoLimit};

/// A step saturates when it delivers less than this share of the sum of its targets alone.
pub const SATURATION_EFFICIENCY: f64 = 0.9;
/// The host's CPUs count as a shared component when this busy (%) at the limit.
pub const CPU_BUSY_PCT: f64 = 90.0;

/// What the analysis needs of one run: a target alone or a step.
#[derive(Clone, Debug)]
pub struct StepFigures<'a> {
    /// Total throughput, bytes/s.
    pub bytes_per_s: f64,
    /// Half-width of its 95 % interval, bytes/s (None: the run had too few windows).
    pub bytes_per_s_half: Option<f64>,
    /// Total I/Os per second.
    pub iops: f64,
    /// Mean response time of its I/Os, µs (0: not measured).
    pub mean_latency_us: f64,
    /// Counters of the devices under and beneath the targets over the step.
    pub devices: &'a [DeviceDelta],
    /// All CPUs' busy share over the step, %.
    pub cpu_busy_pct: f64,
}

impl StepFigures<'_> {
    /// I/Os in flight on average (Little's law), when the response time was measured.
    fn inflight(&self) -> Option<f64> {
        (self.mean_latency_us > 0.0 && self.iops > 0.0)
            .then(|| self.iops * self.mean_latency_us / 1e6)
    }
}

/// A target and the devices it stands on: its own disk first, then everything beneath.
#[derive(Clone, Debug)]
pub struct Stack {
    /// The target's path.
    pub target: String,
    /// Kernel device names, its disk first (empty for a target without a disk).
    pub devices: Vec<String>,
    /// The cgroup's I/O limits on any of them (`oscounters::throttle`), by device name.
    pub throttles: Vec<(String, IoLimit)>,
    /// The cloud provider's volume its disk is (`analysis::cloud`), when it is one.
    pub cloud: Option<crate::model::cloud::CloudDisk>,
}

/// How close device `d` ran to `limit`, % of the nearest of its limits.
fn throttle_pct(d: &DeviceDelta, limit: &IoLimit) -> Option<f64> {
    (IoField::ALL.into_iter())
        .filter_map(|f| {
            let l = limit.get(f).filter(|l| *l > 0.0)?;
            Some(super::policy::device_rate(d, f) / l * 100.0)
        })
        .max_by(f64::total_cmp)
}

/// The components more than one target stands on, with their figures at `at` (the limit step),
/// and the CPUs when they were busy there. Most likely first: a shared device busy at least
/// [`CPU_BUSY_PCT`] %, or running at that share of its cgroup's throttle (it carries every
/// target's I/O itself), then by busy share, then by bytes moved. The CPUs' busy share counts
/// every process on the machine, so they come after such a device.
fn shared(stacks: &[Stack], at: Option<&StepFigures>) -> Vec<Shared> {
    let mut names: Vec<&String> = stacks.iter().flat_map(|s| &s.devices).collect();
    names.sort();
    names.dedup();
    let mut out: Vec<Shared> = names
        .into_iter()
        .filter_map(|name| {
            let above: Vec<String> = stacks
                .iter()
                .filter(|s| s.devices.contains(name))
                .map(|s| s.target.clone())
                .collect();
            (above.len() > 1).then(|| {
                let d = at.and_then(|a| a.devices.iter().find(|d| &d.name == name));
                let throttle = stacks
                    .iter()
                    .flat_map(|s| &s.throttles)
                    .find(|(n, _)| n == name)
                    .map(|(_, l)| *l);
                Shared {
                    component: name.clone(),
                    kind: ComponentKind::Device,
                    targets: above,
                    bytes_per_s: d.map(|d| {
                        (d.read_bytes + d.write_bytes) as f64 / d.seconds.max(f64::MIN_POSITIVE)
                    }),
                    util_pct: d.map(|d| d.util_pct),
                    throttle,
                    throttle_pct: d
                        .zip(throttle.as_ref())
                        .and_then(|(d, l)| throttle_pct(d, l)),
                }
            })
        })
        .collect();
    if let Some(a) = at.filter(|a| a.cpu_busy_pct >= CPU_BUSY_PCT) {
        out.push(Shared {
            component: "cpu".into(),
            kind: ComponentKind::Cpu,
            targets: stacks.iter().map(|s| s.target.clone()).collect(),
            bytes_per_s: None,
            util_pct: Some(a.cpu_busy_pct),
            throttle: None,
            throttle_pct: None,
        });
    }
    let key = |s: &Shared| {
        let util = s.util_pct.unwrap_or(0.0);
        let full = util.max(s.throttle_pct.unwrap_or(0.0));
        (
            s.kind == ComponentKind::Device && full >= CPU_BUSY_PCT,
            util,
            s.bytes_per_s.unwrap_or(0.0),
        )
    };
    out.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then(kb.2.total_cmp(&ka.2))
    });
    out
}

/// The first `n` runs alone as one: their throughput summed with its interval's half-width,
/// and their I/Os in flight and IOPS summed. With fewer than `n` runs alone (`scale --ranks`
/// with a list of counts measures rank 0 alone only), the first stands for each of `n`: n
/// times its figures, and n times its half-width (one measurement counted n times, its error
/// with it).
fn first_alone(alone: &[StepFigures], n: usize) -> (f64, f64, Option<f64>, f64) {
    if alone.len() >= n || alone.is_empty() {
        let first = &alone[..n.min(alone.len())];
        let half = (first.iter())
            .map(|a| a.bytes_per_s_half.unwrap_or(0.0).powi(2))
            .sum::<f64>()
            .sqrt();
        return (
            first.iter().map(|a| a.bytes_per_s).sum(),
            half,
            first.iter().map(StepFigures::inflight).sum(),
            first.iter().map(|a| a.iops).sum(),
        );
    }
    let (a, k) = (&alone[0], n as f64);
    (
        k * a.bytes_per_s,
        k * a.bytes_per_s_half.unwrap_or(0.0),
        a.inflight().map(|l| k * l),
        k * a.iops,
    )
}

/// The reading of a step of `n` targets (or ranks): its efficiency against the first n alone,
/// with an interval from the step's and the runs alone's intervals (relative errors in
/// quadrature; step 1 is the first target's own run, so exact), and Little's law figures of
/// both.
fn reading(n: usize, step: &StepFigures, alone: &[StepFigures]) -> StepReading {
    let (sum, alone_half, inflight_alone, iops_alone) = first_alone(alone, n);
    let e = if sum > 0.0 {
        step.bytes_per_s / sum
    } else {
        0.0
    };
    let rel = if n == 1 || sum <= 0.0 || step.bytes_per_s <= 0.0 {
        0.0
    } else {
        let step_rel = step.bytes_per_s_half.unwrap_or(0.0) / step.bytes_per_s;
        (step_rel.powi(2) + (alone_half / sum).powi(2)).sqrt()
    };
    StepReading {
        targets: n,
        efficiency: e,
        efficiency_low: (e * (1.0 - rel)).max(0.0),
        efficiency_high: e * (1.0 + rel),
        inflight: step.inflight(),
        inflight_alone,
        response_us: step.inflight().map(|_| step.mean_latency_us),
        // Σ in flight ÷ Σ IOPS: the mean response time of all their I/Os.
        response_alone_us: inflight_alone
            .filter(|_| iops_alone > 0.0)
            .map(|l| l / iops_alone * 1e6),
        flag: None,
    }
}

/// The saturating step and each step's flag. A step is clearly below 90 % when its interval's
/// upper end is, clearly at or above when its lower end is. The total saturates at the first
/// step below 90 % by its figure from which no step is clearly at or above 90 % and at least
/// one is clearly below; a step below 90 % with a clearly linear step after it is a dip, one
/// with no step clearly below from it on cannot be judged.
fn judge(r: &mut [StepReading]) -> Option<usize> {
    let clearly_below = |s: &StepReading| s.efficiency_high < SATURATION_EFFICIENCY;
    let clearly_linear = |s: &StepReading| s.efficiency_low >= SATURATION_EFFICIENCY;
    let mut saturates_at = None;
    for i in 0..r.len() {
        let later_linear = r[i + 1..].iter().any(clearly_linear);
        let below_from_here = r[i..].iter().any(clearly_below);
        let flag = if r[i].efficiency_low > 1.0 {
            Some(StepFlag::AboveSum)
        } else if r[i].efficiency > 1.0 {
            Some(StepFlag::AboveSumNoise)
        } else if r[i].efficiency >= SATURATION_EFFICIENCY || saturates_at.is_some() {
            None
        } else if later_linear {
            Some(StepFlag::Dip)
        } else if below_from_here {
            saturates_at = Some(r[i].targets);
            None
        } else {
            Some(StepFlag::Uncertain)
        };
        r[i].flag = flag;
    }
    saturates_at
}

/// The steps before `saturates_at` (every step without it) whose interval reaches below 90 %,
/// a dip's aside (a later step clearly at or above 90 % stands for it): linear scaling up to
/// them is not shown, however near 100 % their figures.
fn unjudged(r: &[StepReading], saturates_at: Option<usize>) -> Vec<usize> {
    r.iter()
        .filter(|s| saturates_at.is_none_or(|at| s.targets < at))
        .filter(|s| s.efficiency_low < SATURATION_EFFICIENCY && s.flag != Some(StepFlag::Dip))
        .map(|s| s.targets)
        .collect()
}

/// What holds the total at the saturating step `at`: the depth when the response time stayed
/// within 1 / 0.9 of the targets' alone (then IOPS = in flight ÷ that response time accounts
/// for the total: Little's law), or when fewer I/Os in flight cost more than the longer
/// response time; else the first shared component (the CPUs, or a device or something unseen).
fn limit(at: &StepReading, shared: &[Shared]) -> Bottleneck {
    if let (Some(l), Some(la), Some(w), Some(wa)) = (
        at.inflight,
        at.inflight_alone,
        at.response_us,
        at.response_alone_us,
    ) {
        let depth_share = l / la;
        let response_share = wa / w;
        if response_share >= SATURATION_EFFICIENCY || depth_share < response_share {
            return Bottleneck::Depth;
        }
    }
    match shared.first() {
        Some(s) if s.kind == ComponentKind::Cpu => Bottleneck::Cpu,
        _ => Bottleneck::Shared,
    }
}

/// The provider whose network volumes every target is (one provider, a provisioned kind): what
/// such volumes share that no device shows is likely their instance's storage bandwidth, a
/// cap the provider sets per instance.
fn instance(stacks: &[Stack]) -> Option<crate::model::cloud::CloudDisk> {
    let first = stacks.first()?.cloud?;
    (first.provisioned() && stacks.iter().all(|s| s.cloud == Some(first))).then_some(first)
}

/// Analyses a scaling experiment: `alone[i]` is target i alone, `steps[n - 1]` the first n
/// together, `stacks` what each target stands on. Render words the verdict
/// (`render::text::scale::verdict`).
pub fn analyse(alone: &[StepFigures], steps: &[StepFigures], stacks: &[Stack]) -> ScaleAnalysis {
    let sizes: Vec<usize> = (1..=steps.len()).collect();
    analyse_sizes(alone, steps, &sizes, stacks)
}

/// [`analyse`] of steps of any sizes: `steps[i]` ran the first `sizes[i]` targets (or ranks),
/// in increasing order; `alone` holds each of them alone, or only the first (which then stands
/// for each: `scale --ranks` with a list of counts).
pub fn analyse_sizes(
    alone: &[StepFigures],
    steps: &[StepFigures],
    sizes: &[usize],
    stacks: &[Stack],
) -> ScaleAnalysis {
    let mut readings: Vec<StepReading> = (steps.iter().zip(sizes))
        .map(|(s, &n)| reading(n, s, alone))
        .collect();
    let saturates_at = judge(&mut readings);
    let from = saturates_at.and_then(|n| sizes.iter().position(|&k| k == n));
    let limit_bps = from.map(|i| {
        let after = &steps[i..];
        after.iter().map(|s| s.bytes_per_s).sum::<f64>() / after.len() as f64
    });
    let at = from.map(|i| &steps[i]).or_else(|| steps.last());
    let shared = shared(stacks, at);
    let limit = from.map_or(Bottleneck::None, |i| limit(&readings[i], &shared));
    let unseen =
        limit == Bottleneck::Shared && !shared.iter().any(|s| s.kind == ComponentKind::Device);
    let instance = unseen.then(|| instance(stacks)).flatten();
    ScaleAnalysis {
        instance,
        sum_alone_bytes_per_s: alone.iter().map(|a| a.bytes_per_s).sum(),
        sum_alone_first_bytes_per_s: sizes.iter().map(|&n| first_alone(alone, n).0).collect(),
        efficiency: readings.iter().map(|r| r.efficiency).collect(),
        unjudged: unjudged(&readings, saturates_at),
        steps: readings,
        saturates_at,
        limit,
        limit_bytes_per_s: limit_bps,
        shared,
    }
}

#[cfg(test)]
#[path = "scale_tests.rs"]
mod tests;
