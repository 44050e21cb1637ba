//! Reading a scaling experiment (000: "3 disks saturate a bus"): how far each step's total falls
//! short of the sum of its targets alone, where it first falls below 90 %, the plateau after
//! that, and the components the targets share that can explain it. Pure: figures in, figures
//! out.

use crate::model::scale::{ComponentKind, ScaleAnalysis, Shared};
use crate::oscounters::diskstats::DeviceDelta;

/// A step saturates when it delivers less than this share of the sum of its targets alone.
pub const SATURATION_EFFICIENCY: f64 = 0.9;
/// The host's CPUs count as a shared component when this busy (%) at the limit.
pub const CPU_BUSY_PCT: f64 = 90.0;

/// What the analysis needs of one step.
#[derive(Clone, Debug)]
pub struct StepFigures<'a> {
    /// Total throughput, bytes/s.
    pub bytes_per_s: f64,
    /// Counters of the devices under and beneath the targets over the step.
    pub devices: &'a [DeviceDelta],
    /// All CPUs' busy share over the step, %.
    pub cpu_busy_pct: f64,
}

/// A target and the devices it stands on: its own disk first, then everything beneath.
#[derive(Clone, Debug)]
pub struct Stack {
    /// The target's path.
    pub target: String,
    /// Kernel device names, its disk first (empty for a target without a disk).
    pub devices: Vec<String>,
}

fn mb(bytes_per_s: f64) -> String {
    let v = bytes_per_s / 1e6;
    if v >= 100.0 {
        format!("{v:.0} MB/s")
    } else {
        format!("{v:.1} MB/s")
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, x) if x != 11 => "st",
        (2, x) if x != 12 => "nd",
        (3, x) if x != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn how_many(k: usize, n: usize) -> String {
    match (k, n) {
        (k, n) if k == n && n == 2 => "both targets".into(),
        (k, n) if k == n => format!("all {n} targets"),
        (k, n) => format!("{k} of the {n} targets"),
    }
}

/// The components more than one target stands on, with their figures at `at` (the limit step),
/// and the CPUs when they were busy there.
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
                Shared {
                    component: name.clone(),
                    kind: ComponentKind::Device,
                    targets: above,
                    bytes_per_s: d.map(|d| {
                        (d.read_bytes + d.write_bytes) as f64 / d.seconds.max(f64::MIN_POSITIVE)
                    }),
                    util_pct: d.map(|d| d.util_pct),
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
        });
    }
    // The most likely limit first: the busiest, then the one moving the most bytes.
    out.sort_by(|a, b| {
        let key = |s: &Shared| (s.util_pct.unwrap_or(0.0), s.bytes_per_s.unwrap_or(0.0));
        key(b)
            .0
            .total_cmp(&key(a).0)
            .then(key(b).1.total_cmp(&key(a).1))
    });
    out
}

/// Analyses a scaling experiment: `alone[i]` is target i's throughput alone (bytes/s), `steps[n
/// - 1]` the first n together, `stacks` what each target stands on.
pub fn analyse(alone: &[f64], steps: &[StepFigures], stacks: &[Stack]) -> ScaleAnalysis {
    let first: Vec<f64> = (1..=steps.len())
        .map(|n| alone.iter().take(n).sum())
        .collect();
    let efficiency: Vec<f64> = steps
        .iter()
        .zip(&first)
        .map(|(s, sum)| if *sum > 0.0 { s.bytes_per_s / sum } else { 0.0 })
        .collect();
    let saturates_at = efficiency
        .iter()
        .position(|e| *e < SATURATION_EFFICIENCY)
        .map(|i| i + 1);
    let limit = saturates_at.map(|n| {
        let after = &steps[n - 1..];
        after.iter().map(|s| s.bytes_per_s).sum::<f64>() / after.len() as f64
    });
    let at = saturates_at.map(|n| &steps[n - 1]).or_else(|| steps.last());
    let shared = shared(stacks, at);
    let n = steps.len();
    let verdict = match (saturates_at, limit) {
        (Some(sat), Some(limit)) => {
            let linear = if sat > 1 {
                format!("the targets scale linearly up to {}", sat - 1)
            } else {
                "the targets do not scale even at the first step".into()
            };
            let cause = match shared.first() {
                Some(s) if s.kind == ComponentKind::Cpu => format!(
                    "the host's processors ({:.0} % busy) cap the total",
                    s.util_pct.unwrap_or(0.0)
                ),
                Some(s) => format!(
                    "{}, which {} share, caps the total",
                    s.component,
                    how_many(s.targets.len(), stacks.len().max(n))
                ),
                None => "something the targets share that halfpower cannot see (a controller, \
                         a bus, a hypervisor's limit) caps the total"
                    .into(),
            };
            format!(
                "{linear}; from the {}, {cause} at {}",
                ordinal(sat),
                mb(limit)
            )
        }
        _ => match steps.last().zip(first.last()) {
            Some((s, sum)) => format!(
                "the targets scale linearly: all {n} together deliver {}, {:.0} % of the sum \
                 of each alone ({})",
                mb(s.bytes_per_s),
                s.bytes_per_s / sum.max(f64::MIN_POSITIVE) * 100.0,
                mb(*sum)
            ),
            None => "nothing was measured".into(),
        },
    };
    ScaleAnalysis {
        sum_alone_bytes_per_s: alone.iter().sum(),
        sum_alone_first_bytes_per_s: first,
        efficiency,
        saturates_at,
        limit_bytes_per_s: limit,
        shared,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, mb_s: f64, util: f64) -> DeviceDelta {
        DeviceDelta {
            name: name.into(),
            seconds: 1.0,
            read_bytes: (mb_s * 1e6) as u64,
            util_pct: util,
            ..Default::default()
        }
    }

    fn stacks(n: usize, bus: &str) -> Vec<Stack> {
        (1..=n)
            .map(|i| Stack {
                target: format!("/dev/loop{i}"),
                devices: vec![format!("loop{i}"), bus.to_string()],
            })
            .collect()
    }

    /// 000's bus: disks of 40 MB/s each on a bus of 100 MB/s: 40, 80, 100, 100.
    #[test]
    fn three_disks_saturate_a_bus() {
        let devs = [dev("loop0", 100.0, 100.0), dev("loop1", 33.0, 100.0)];
        let steps: Vec<StepFigures> = [40e6, 80e6, 100e6, 100e6]
            .iter()
            .map(|&b| StepFigures {
                bytes_per_s: b,
                devices: &devs,
                cpu_busy_pct: 20.0,
            })
            .collect();
        let a = analyse(&[40e6; 4], &steps, &stacks(4, "loop0"));
        assert_eq!(a.saturates_at, Some(3));
        assert!((a.limit_bytes_per_s.unwrap() - 100e6).abs() < 1.0);
        assert_eq!(a.sum_alone_bytes_per_s, 160e6);
        assert!((a.efficiency[2] - 100.0 / 120.0).abs() < 1e-12);
        assert_eq!(a.shared.len(), 1);
        assert_eq!(a.shared[0].component, "loop0");
        assert_eq!(a.shared[0].targets.len(), 4);
        assert_eq!(
            a.verdict,
            "the targets scale linearly up to 2; from the 3rd, loop0, which all 4 targets \
             share, caps the total at 100 MB/s"
        );
    }

    #[test]
    fn linear_scaling_and_a_busy_cpu() {
        let none: [DeviceDelta; 0] = [];
        let steps: Vec<StepFigures> = [50e6, 99e6]
            .iter()
            .map(|&b| StepFigures {
                bytes_per_s: b,
                devices: &none,
                cpu_busy_pct: 95.0,
            })
            .collect();
        let a = analyse(&[50e6, 50e6], &steps, &stacks(2, "vda"));
        assert_eq!(a.saturates_at, None);
        assert!(
            a.verdict.starts_with("the targets scale linearly: all 2"),
            "{}",
            a.verdict
        );
        assert!(a.shared.iter().any(|s| s.kind == ComponentKind::Cpu));
        assert_eq!(a.shared[0].component, "cpu", "the busiest first");
        // Nothing shared: say what cannot be seen.
        let steps: Vec<StepFigures> = [50e6, 60e6]
            .iter()
            .map(|&b| StepFigures {
                bytes_per_s: b,
                devices: &none,
                cpu_busy_pct: 10.0,
            })
            .collect();
        let lone = vec![
            Stack {
                target: "a".into(),
                devices: vec!["sda".into()],
            },
            Stack {
                target: "b".into(),
                devices: vec!["sdb".into()],
            },
        ];
        let a = analyse(&[50e6, 50e6], &steps, &lone);
        assert_eq!(a.saturates_at, Some(2));
        assert!(a.verdict.contains("cannot see"), "{}", a.verdict);
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(22), "22nd");
    }
}
