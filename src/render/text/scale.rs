//! The scaling experiment on a terminal: each target alone, each step with its efficiency (and
//! its interval) and per-target shares, the shared components at the limit, and the verdict,
//! worded here from the analysis's limit and flags.

use super::table::{Table, figures, words};
use crate::model::scale::{
    Across, Bottleneck, ComponentKind, ScaleAnalysis, ScaleReport, StepFlag,
};
use std::fmt::Write;

/// What each step adds, in words: one, and several.
pub fn nouns(across: Across) -> (&'static str, &'static str) {
    match across {
        Across::Targets => ("target", "targets"),
        Across::Ranks => ("rank", "ranks"),
    }
}

/// The units a report scales: its targets, or with `--ranks` the ranks that ran alone.
pub fn units(r: &ScaleReport) -> usize {
    match r.across {
        Across::Targets => r.targets.len(),
        Across::Ranks => r.alone.len(),
    }
}

/// With `--targets-per-rank`: how the list was dealt out, and what each step therefore runs.
pub fn dealt_words(r: &ScaleReport) -> Option<String> {
    let n = r.targets_per_rank?;
    let s = if n == 1 { "" } else { "s" };
    Some(format!(
        "Each rank on its own {n} target{s} of the list, dealt out in order (rank r on targets \
         r×{n}+1 to r×{n}+{n}): k ranks run on k×{n} targets, clients and disks together; \
         perfect scaling is the sum of the first k ranks alone, each on its {n}."
    ))
}

fn mb(bytes_per_s: f64) -> String {
    format!("{:.1}", bytes_per_s / 1e6)
}

/// Renders a scale report.
pub fn scale_table(r: &ScaleReport) -> String {
    let mut out = String::new();
    heading_and_alone(&mut out, r);
    steps(&mut out, r);
    shared(&mut out, &r.analysis, r.across);
    limits(&mut out, r);
    let _ = writeln!(out, "\n{}", verdict(&r.analysis, units(r), r.across));
    if let Some(p) = &r.pap {
        let _ = writeln!(
            out,
            "{}",
            super::path::reached_words(
                p,
                "The targets' path, all at once,",
                r.targets.len(),
                "the total"
            )
        );
    }
    if r.interrupted {
        out.push_str("interrupted: the steps measured before Ctrl-C\n");
    }
    out
}

/// The limits that are not the device's and bind in a run alone or in a step.
fn limits(out: &mut String, r: &ScaleReport) {
    let (_, many) = nouns(r.across);
    let alone = r
        .alone
        .iter()
        .map(|a| (format!("{} alone", a.target), a.results.limits.as_slice()));
    let steps = r.steps.iter().map(|s| {
        let label = format!("the step of {} {many}", s.targets);
        (label, s.results.limits.as_slice())
    });
    let runs: Vec<(String, &[crate::model::policy::LimitReach])> = alone.chain(steps).collect();
    super::policy::binding_lines(out, &runs);
}

/// The heading (the workload, per target or per stripe set) and each target alone.
fn heading_and_alone(out: &mut String, r: &ScaleReport) {
    let w = &r.workload;
    let per = match r.stripe_bytes {
        Some(c) => format!(
            "per stripe set (steps 2.. stripe their targets in {} chunks)",
            crate::units::ByteSize(c)
        ),
        None => format!("per {}", nouns(r.across).0),
    };
    let _ = writeln!(
        out,
        "Scaling: {} {} QD{} T{} {per}, MB/s = 10^6 bytes/s",
        w.rw, w.bs, w.qd, w.threads
    );
    if let Some(words) = dealt_words(r) {
        let _ = writeln!(out, "{words}");
    }
    let mut alone = Table::new(vec![
        words("alone", 32),
        figures("MB/s", 10),
        figures("IOPS", 10),
    ]);
    for a in &r.alone {
        alone.row(vec![
            a.target.clone(),
            mb(a.bytes_per_s),
            format!("{:.0}", a.iops),
        ]);
    }
    out.push('\n');
    out.push_str(&alone.render());
}

/// One line per step: its total, the sum of its targets alone, efficiency with its interval,
/// I/Os in flight, each target's share, and its mark.
fn steps(out: &mut String, r: &ScaleReport) {
    let (one, many) = nouns(r.across);
    let per = format!("per {one} MB/s");
    let mut table = Table::new(vec![
        words(many, 8),
        figures("MB/s", 10),
        figures("sum alone", 12),
        figures("efficiency", 10),
        figures("95 % int.", 11),
        figures("in flt", 8),
        words(&per, 0),
    ]);
    for (i, s) in r.steps.iter().enumerate() {
        let sum = r.analysis.sum_alone_first_bytes_per_s.get(i).copied();
        let reading = r.analysis.steps.get(i);
        let eff = r.analysis.efficiency.get(i).copied();
        let shares: Vec<String> = s.per_target.iter().map(|p| mb(p.bytes_per_s)).collect();
        let mark = match (
            r.analysis.saturates_at == Some(s.targets),
            reading.and_then(|x| x.flag),
        ) {
            (true, _) => "<- saturates",
            (_, Some(StepFlag::AboveSum)) => "<- above the sum!",
            (_, Some(StepFlag::AboveSumNoise)) => "<- above the sum: noise",
            (_, Some(StepFlag::Dip)) => "<- dip",
            (_, Some(StepFlag::Uncertain)) => "<- within noise",
            _ => "",
        };
        let cells = vec![
            s.targets.to_string(),
            mb(s.bytes_per_s),
            sum.map_or("-".into(), mb),
            eff.map_or("-".into(), |e| format!("{:.0}%", e * 100.0)),
            reading.map_or("-".into(), |x| {
                format!(
                    "{:.0}-{:.0}%",
                    x.efficiency_low * 100.0,
                    x.efficiency_high * 100.0
                )
            }),
            reading
                .and_then(|x| x.inflight)
                .map_or("-".into(), |l| format!("{l:.1}")),
            shares.join(" "),
        ];
        table.row_noted(cells, mark.to_string());
    }
    out.push('\n');
    out.push_str(&table.render());
}

/// The components more than one target (or rank) shares at the limit.
fn shared(out: &mut String, a: &ScaleAnalysis, across: Across) {
    if a.shared.is_empty() {
        return;
    }
    let one = nouns(across).0;
    let _ = writeln!(out, "\nshared by more than one {one} (at the limit):");
    for s in &a.shared {
        let what = match s.kind {
            ComponentKind::Device => "device",
            ComponentKind::Cpu => "CPUs",
        };
        let throttle = match (s.throttle.as_ref(), s.throttle_pct) {
            (Some(_), Some(p)) => format!(", {p:.0} % of its cgroup's throttle"),
            (Some(_), None) => ", throttled by its cgroup".into(),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  {} ({what}, under {}): {} MB/s, {} % busy{throttle}",
            s.component,
            s.targets.len(),
            s.bytes_per_s.map_or("-".into(), mb),
            s.util_pct.map_or("-".into(), |u| format!("{u:.0}"))
        );
    }
}

fn mb_s(bytes_per_s: f64) -> String {
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

fn how_many(k: usize, n: usize, many: &str) -> String {
    match (k, n) {
        (k, n) if k == n && n == 2 => format!("both {many}"),
        (k, n) if k == n => format!("all {n} {many}"),
        (k, n) => format!("{k} of the {n} {many}"),
    }
}

fn pct(x: f64) -> String {
    format!("{:.0} %", x * 100.0)
}

/// What holds the total at the saturating step, in words.
fn cause(a: &ScaleAnalysis, at: usize, (targets, many): (usize, &str), limit: f64) -> String {
    let r = a.steps.iter().find(|s| s.targets == at);
    let times = r.and_then(|r| Some((r.response_us?, r.response_alone_us?)));
    let response = times.map_or(String::new(), |(w, wa)| {
        format!(" (response time {w:.0} µs against {wa:.0} µs alone)")
    });
    match a.limit {
        Bottleneck::Depth => match r.and_then(|r| Some((r.inflight?, r.inflight_alone?))) {
            Some((l, la)) => format!(
                "the I/Os in flight hold the total at {}: {l:.1} in flight against {la:.1} for \
                 the same {many} alone{response}; by Little's law in flight ÷ response time \
                 accounts for the total, and nothing the {many} share is needed to explain it. \
                 Give the step more depth (--qd, --threads)",
                mb_s(limit)
            ),
            None => format!("the I/Os in flight hold the total at {}", mb_s(limit)),
        },
        Bottleneck::Cpu => format!(
            "the host's processors ({:.0} % busy) cap the total at {}{response}",
            a.shared.first().and_then(|s| s.util_pct).unwrap_or(0.0),
            mb_s(limit)
        ),
        Bottleneck::Shared | Bottleneck::None => match a.shared.first() {
            Some(s) => format!(
                "{}, which {} share, caps the total at {}{}{response}",
                s.component,
                how_many(s.targets.len(), targets, many),
                mb_s(limit),
                match s.throttle_pct {
                    Some(p) if p >= 90.0 => format!(", {p:.0} % of its cgroup's I/O throttle"),
                    _ => String::new(),
                }
            ),
            None => match a.instance {
                Some(k) => format!(
                    "something the {many} share that halfpower cannot see caps the total at \
                     {}{response}: each is a {}, so most likely the instance's storage \
                     bandwidth, a cap the provider sets per instance",
                    mb_s(limit),
                    k.name()
                ),
                None => format!(
                    "something the {many} share that halfpower cannot see (a controller, a \
                     bus, a hypervisor's limit, a network) caps the total at {}{response}",
                    mb_s(limit)
                ),
            },
        },
    }
}

/// The steps whose intervals are too wide to judge, with their intervals.
fn too_wide(a: &ScaleAnalysis) -> String {
    let each: Vec<String> = (a.steps.iter())
        .filter(|s| a.unjudged.contains(&s.targets))
        .map(|s| {
            format!(
                "{} ({}, interval {:.0}–{:.0} %)",
                s.targets,
                pct(s.efficiency),
                s.efficiency_low * 100.0,
                s.efficiency_high * 100.0
            )
        })
        .collect();
    let (steps, have) = match each.len() {
        1 => ("step", "has an interval"),
        _ => ("steps", "have intervals"),
    };
    format!(
        "{steps} {} {have} reaching below {}, too wide to tell; measure longer or repeat",
        each.join(", "),
        pct(crate::analysis::scale::SATURATION_EFFICIENCY)
    )
}

/// The verdict of a scaling analysis that found no limit: linear, unless an interval is too
/// wide to judge.
fn unlimited(a: &ScaleAnalysis, many: &str) -> String {
    let n = a.steps.len();
    let Some((sum, s)) = a.sum_alone_first_bytes_per_s.last().zip(a.steps.last()) else {
        return "nothing was measured".into();
    };
    let verdict = match a.unjudged.is_empty() {
        true => format!("the {many} scale linearly:"),
        false => format!(
            "whether the {many} scale linearly cannot be judged: {};",
            too_wide(a)
        ),
    };
    format!(
        "{verdict} all {n} together deliver {}, {} of the sum of each alone ({})",
        mb_s(s.efficiency * sum),
        pct(s.efficiency),
        mb_s(*sum)
    )
}

/// The verdict of a scaling analysis over `targets` targets (or ranks, as `across` says): where
/// the total stops growing and what holds it, then a sentence per flagged step.
pub fn verdict(a: &ScaleAnalysis, targets: usize, across: Across) -> String {
    let n = a.steps.len();
    let targets = targets.max(n);
    let many = nouns(across).1;
    let mut out = match (a.saturates_at, a.limit_bytes_per_s) {
        (Some(sat), Some(limit)) => {
            // The step before the saturating one (steps may skip counts: --ranks=2,4,8; an
            // older document without its readings had every count).
            let before = match a.steps.is_empty() {
                true => (sat > 1).then(|| sat - 1),
                false => a.steps.iter().map(|s| s.targets).filter(|&k| k < sat).max(),
            };
            let linear = if let Some(k) = before.filter(|_| !a.unjudged.is_empty()) {
                format!(
                    "up to {k}, whether the {many} scale linearly cannot be judged: {}",
                    too_wide(a)
                )
            } else if let Some(k) = before {
                format!("the {many} scale linearly up to {k}")
            } else {
                format!("the {many} do not scale even at the first step")
            };
            format!(
                "{linear}; from the {}, {}",
                ordinal(sat),
                cause(a, sat, (targets, many), limit)
            )
        }
        _ => unlimited(a, many),
    };
    for s in &a.steps {
        let interval = format!(
            "{}, interval {:.0}–{:.0} %",
            pct(s.efficiency),
            s.efficiency_low * 100.0,
            s.efficiency_high * 100.0
        );
        let response = s
            .response_us
            .zip(s.response_alone_us)
            .map_or(String::new(), |(w, wa)| {
                format!(", response time {w:.0} µs against {wa:.0} µs alone")
            });
        let _ = match s.flag {
            Some(StepFlag::AboveSum) => write!(
                out,
                ". Step {} delivered more than its {many} alone ({interval}{response}), which \
                 the same {many} cannot do together unless something held them back alone: \
                 noise between runs, a cache warmed by an earlier step, CPUs that sleep between \
                 I/Os at a low depth; repeat or measure longer before trusting the efficiencies",
                s.targets
            ),
            Some(StepFlag::AboveSumNoise) => write!(
                out,
                ". Step {} measured more than its {many} alone ({interval}), which they cannot \
                 do together: its figure is noise within its interval, and says nothing about \
                 scaling beyond it",
                s.targets
            ),
            Some(StepFlag::Dip) => write!(
                out,
                ". Step {} fell below 90 % ({interval}) but a later step did not: a dip, not \
                 the limit",
                s.targets
            ),
            Some(StepFlag::Uncertain) => write!(
                out,
                ". Step {} is below 90 % ({interval}) but not beyond its interval, and no later \
                 step is clearly below: it cannot be judged; measure longer",
                s.targets
            ),
            None => Ok(()),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scale::{Shared, StepReading};

    fn step(n: usize, e: f64, l: f64, w: f64) -> StepReading {
        StepReading {
            targets: n,
            efficiency: e,
            efficiency_low: e * 0.99,
            efficiency_high: e * 1.01,
            inflight: Some(l),
            inflight_alone: Some(4.0 * n as f64),
            response_us: Some(w),
            response_alone_us: Some(26_000.0),
            flag: None,
        }
    }

    fn bus() -> ScaleAnalysis {
        ScaleAnalysis {
            sum_alone_first_bytes_per_s: vec![40e6, 80e6, 120e6, 160e6],
            efficiency: vec![1.0, 1.0, 0.833, 0.625],
            steps: vec![
                step(1, 1.0, 4.0, 26_000.0),
                step(2, 1.0, 8.0, 26_000.0),
                step(3, 0.833, 12.0, 31_200.0),
                step(4, 0.625, 16.0, 41_600.0),
            ],
            saturates_at: Some(3),
            limit: Bottleneck::Shared,
            limit_bytes_per_s: Some(100e6),
            shared: vec![Shared {
                component: "loop0".into(),
                kind: ComponentKind::Device,
                targets: (1..=4).map(|i| format!("/dev/loop{i}")).collect(),
                bytes_per_s: Some(100e6),
                util_pct: Some(100.0),
                throttle: None,
                throttle_pct: None,
            }],
            ..ScaleAnalysis::default()
        }
    }

    /// Two targets of 100 MB/s alone (±1 %), then steps of the given MB/s ± %: the analysis
    /// on them, and its verdict.
    fn analysed(steps: &[(f64, f64)]) -> String {
        use crate::analysis::scale::{StepFigures, analyse};
        let fig = |mb_s: f64, half_pct: f64| StepFigures {
            bytes_per_s: mb_s * 1e6,
            bytes_per_s_half: Some(mb_s * 1e6 * half_pct / 100.0),
            iops: mb_s * 1e6 / 65536.0,
            mean_latency_us: 0.0,
            devices: &[],
            cpu_busy_pct: 10.0,
        };
        let alone: Vec<StepFigures> = (0..steps.len()).map(|_| fig(100.0, 1.0)).collect();
        let steps: Vec<StepFigures> = steps.iter().map(|&(b, h)| fig(b, h)).collect();
        verdict(&analyse(&alone, &steps, &[]), steps.len(), Across::Targets)
    }

    /// The stripe: step 2 at 200 MB/s of the 2 × 100 alone is 100 % by its figure,
    /// but ±100 % of its own (an interval of 0–200 %) reaches below 90 %: no verdict of linear
    /// scaling, the step named with its interval. ±2 % supports it.
    #[test]
    fn linear_scaling_only_when_the_interval_supports_it() {
        let tight = analysed(&[(100.0, 1.0), (200.0, 2.0)]);
        assert!(
            tight.starts_with("the targets scale linearly: all 2"),
            "{tight}"
        );
        let wide = analysed(&[(100.0, 1.0), (200.0, 100.0)]);
        assert!(!wide.contains("scale linearly:"), "{wide}");
        assert!(
            wide.starts_with("whether the targets scale linearly cannot be judged")
                && wide.contains(
                    "step 2 (100 %, interval 0–200 %) has an interval reaching below 90 %"
                )
                && wide.contains("too wide"),
            "{wide}"
        );
        // Before a limit: steps 3 and 4 at 50 % of 300 and 400 are clearly below 90 %.
        let limited = analysed(&[(100.0, 1.0), (200.0, 100.0), (150.0, 1.0), (200.0, 1.0)]);
        assert!(
            limited.starts_with("up to 2, whether the targets scale linearly cannot be judged"),
            "{limited}"
        );
        assert!(limited.contains("from the 3rd"), "{limited}");
    }

    #[test]
    fn the_verdict_names_the_limit_it_found() {
        assert_eq!(
            verdict(&bus(), 4, Across::Targets),
            "the targets scale linearly up to 2; from the 3rd, loop0, which all 4 targets \
             share, caps the total at 100 MB/s (response time 31200 µs against 26000 µs alone)"
        );
        let mut a = bus();
        a.shared.clear();
        assert!(
            verdict(&a, 4, Across::Targets).contains("cannot see"),
            "{}",
            verdict(&a, 4, Across::Targets)
        );
        a.limit = Bottleneck::Depth;
        let v = verdict(&a, 4, Across::Targets);
        assert!(v.contains("I/Os in flight") && !v.contains("share,"), "{v}");
        a.saturates_at = None;
        a.limit_bytes_per_s = None;
        a.limit = Bottleneck::None;
        a.steps[1].flag = Some(StepFlag::AboveSum);
        a.steps[2].flag = Some(StepFlag::Dip);
        let v = verdict(&a, 4, Across::Targets);
        assert!(v.starts_with("the targets scale linearly: all 4"), "{v}");
        assert!(
            v.contains("Step 2 delivered more than its targets alone"),
            "{v}"
        );
        assert!(v.contains("Step 3 fell below 90 %"), "{v}");
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(22), "22nd");
    }

    #[test]
    fn a_dealt_list_is_said_and_recorded_and_absent_otherwise() {
        let text = include_str!("../../../tests/fixtures/report/scale.json");
        let mut r: ScaleReport = serde_json::from_str(text).unwrap();
        assert_eq!(r.targets_per_rank, None, "older files have none");
        assert!(dealt_words(&r).is_none());
        let plain = serde_json::to_value(&r).unwrap();
        assert!(
            plain.get("targets_per_rank").is_none(),
            "absent unless dealt"
        );
        assert!(!scale_table(&r).contains("dealt out"));
        r.across = Across::Ranks;
        r.targets_per_rank = Some(2);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["targets_per_rank"], 2);
        let back: ScaleReport = serde_json::from_value(v).unwrap();
        assert_eq!(back.targets_per_rank, Some(2));
        let table = scale_table(&r);
        let second = table.lines().nth(1).unwrap();
        assert!(
            second.starts_with("Each rank on its own 2 targets of the list, dealt out in order")
                && second.contains("(rank r on targets r×2+1 to r×2+2)")
                && second.contains("k ranks run on k×2 targets"),
            "{table}"
        );
    }
}
