//! The quick suite's verdict in words, from its finding: what the device looks like against
//! what is typical for its class, how far one request at a time is from deep queues (the
//! half-power view), and what to try next.

use crate::model::quick::{QuickFinding, QuickReport};
use crate::model::run::TargetInfo;

fn mb(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} GB/s", v / 1000.0)
    } else {
        format!("{v:.0} MB/s")
    }
}

/// The verdict of a quick suite, None when its document holds no finding (older files).
pub fn report_verdict(q: &QuickReport) -> Option<String> {
    q.finding.as_ref().map(|f| verdict(&q.target, f))
}

/// The verdict of a quick suite on `target` that found `f`: sentences, each capitalised and
/// ended with a full stop.
pub fn verdict(target: &TargetInfo, f: &QuickFinding) -> String {
    let class = target.class.unwrap_or_default();
    let mut out = Vec::new();
    let on = target.device.as_ref().map_or(
        "no block device (a memory or network filesystem)".into(),
        |d| format!("a {} device ({d})", class.name()),
    );
    let figures = match (f.seq_mb_s, f.deep_iops) {
        (Some(s), Some(d)) => format!(
            "sequential 1 MiB reads {}, random 4 KiB reads {d:.0} IOPS at depth 32",
            mb(s)
        ),
        _ => "the suite did not finish".into(),
    };
    match &f.typical {
        Some(t) => out.push(format!(
            "{} is on {on}: {figures}, {} a typical {} ({}) and {} its {:.0} IOPS",
            target.path,
            t.seq.name(),
            class.name(),
            mb(t.seq_mb_s),
            t.random.name(),
            t.iops
        )),
        None => out.push(format!(
            "{} is on {on}: {figures} (no typical figures for this class: what is behind it \
             decides)",
            target.path
        )),
    }
    if let Some(q) = &f.qd1 {
        out.push(if q.needs_parallel {
            format!(
                "random reads at QD1 reach {:.0} % of QD32: this device needs parallel \
                 requests to deliver what it can (the half-power view)",
                q.share * 100.0
            )
        } else {
            format!(
                "random reads at QD1 already reach {:.0} % of QD32: latency, not parallelism, \
                 bounds this device",
                q.share * 100.0
            )
        });
    }
    if let Some(c) = &f.on_credits {
        out.push(format!(
            "test {} ran on a credit bucket: {:.0} IOPS until {:.1} s, then a baseline of {:.0} \
             IOPS; its figures blend both, and the rate this target sustains is the baseline's",
            c.test + 1,
            c.burst_iops,
            c.ended_at_s,
            c.baseline_iops
        ));
    }
    if let Some(w) = &f.writes_ahead {
        out.push(format!(
            "writes outran reads in {}: {} against {} ({:.2}×): a write-behind cache acknowledges \
             them before the medium holds them (000's first pitfall of measuring writes), so the \
             write figures are the cache's; `halfpower experiment writecache {}` measures it",
            w.test,
            mb(w.write_mb_s),
            mb(w.read_mb_s),
            w.ratio,
            target.path
        ));
    }
    if !f.limited.is_empty() {
        let tests: Vec<String> = f.limited.iter().map(|i| (i + 1).to_string()).collect();
        out.push(format!(
            "a limit that is not the device's bound test{} {}: {} figures are the limit's (the \
             limit lines name it), not the device's, and are not judged as the device's",
            if tests.len() == 1 { "" } else { "s" },
            tests.join(", "),
            if tests.len() == 1 { "its" } else { "their" }
        ));
    }
    out.push(format!(
        "Next: `halfpower sweep {} --rw randread,read` for the half-power point and the knee, \
         `halfpower scale` to see what several such targets share",
        target.path
    ));
    let sentences: Vec<String> = out
        .iter()
        .map(|s| {
            let mut c = s.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        })
        .collect();
    sentences.join(". ") + "."
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quick::{Qd1Reach, Relation, VsTypical};
    use crate::model::{DeviceClass, TargetKind};

    fn target(class: Option<DeviceClass>, device: Option<&str>) -> TargetInfo {
        TargetInfo {
            path: "/data/halfpower.tst".into(),
            kind: TargetKind::File,
            created: true,
            capacity_bytes: 1 << 30,
            offset_bytes: 0,
            size_bytes: 1 << 30,
            direct: true,
            direct_fallback: None,
            dio_mem_align: 512,
            dio_offset_align: 512,
            device: device.map(Into::into),
            partition: None,
            logical_block_size: Some(512),
            rotational: Some(false),
            class,
            scheduler: None,
            model: None,
        }
    }

    /// One sentence per case: against typical figures, and QD1 needing parallel requests.
    #[test]
    fn an_ssd_that_needs_parallel_requests_in_words() {
        let f = QuickFinding {
            seq_mb_s: Some(540.0),
            deep_iops: Some(90_000.0),
            typical: Some(VsTypical {
                seq_mb_s: 500.0,
                iops: 80_000.0,
                seq: Relation::About,
                random: Relation::Above,
            }),
            qd1: Some(Qd1Reach {
                share: 0.14,
                needs_parallel: true,
            }),
            on_credits: None,
            limited: Vec::new(),
            writes_ahead: None,
        };
        assert_eq!(
            verdict(&target(Some(DeviceClass::Ssd), Some("sda")), &f),
            "/data/halfpower.tst is on a ssd device (sda): sequential 1 MiB reads 540 MB/s, \
             random 4 KiB reads 90000 IOPS at depth 32, about a typical ssd (500 MB/s) and \
             above its 80000 IOPS. Random reads at QD1 reach 14 % of QD32: this device needs \
             parallel requests to deliver what it can (the half-power view). Next: `halfpower \
             sweep /data/halfpower.tst --rw randread,read` for the half-power point and the \
             knee, `halfpower scale` to see what several such targets share."
        );
    }

    /// Without typical figures, latency-bound, no device; and a suite that did not finish.
    #[test]
    fn latency_bound_without_typical_figures_in_words() {
        let f = QuickFinding {
            seq_mb_s: Some(2500.0),
            deep_iops: Some(200.0),
            typical: None,
            qd1: Some(Qd1Reach {
                share: 0.9,
                needs_parallel: false,
            }),
            on_credits: None,
            limited: Vec::new(),
            writes_ahead: None,
        };
        assert_eq!(
            verdict(&target(None, None), &f),
            "/data/halfpower.tst is on no block device (a memory or network filesystem): \
             sequential 1 MiB reads 2.50 GB/s, random 4 KiB reads 200 IOPS at depth 32 (no \
             typical figures for this class: what is behind it decides). Random reads at QD1 \
             already reach 90 % of QD32: latency, not parallelism, bounds this device. Next: \
             `halfpower sweep /data/halfpower.tst --rw randread,read` for the half-power point \
             and the knee, `halfpower scale` to see what several such targets share."
        );
        let v = verdict(
            &target(Some(DeviceClass::Virtual), Some("vda")),
            &QuickFinding::default(),
        );
        assert!(
            v.starts_with(
                "/data/halfpower.tst is on a virtual device (vda): the suite did not finish (no \
                 typical"
            ),
            "{v}"
        );
        assert!(!v.contains("QD1"), "{v}");
        // A suite that ran on credits says which test and both rates.
        let credits = QuickFinding {
            on_credits: Some(crate::model::quick::OnCredits {
                test: 1,
                burst_iops: 1931.0,
                baseline_iops: 500.0,
                ended_at_s: 7.0,
            }),
            ..QuickFinding::default()
        };
        let v = verdict(&target(None, None), &credits);
        assert!(
            v.contains(
                "Test 2 ran on a credit bucket: 1931 IOPS until 7.0 s, then a baseline of 500 \
                 IOPS; its figures blend both"
            ),
            "{v}"
        );
        let cached = QuickFinding {
            writes_ahead: Some(crate::model::quick::WritesAhead {
                test: "SEQ1M Q8T1".into(),
                ratio: 4442.0 / 3158.0,
                write_mb_s: 4442.0,
                read_mb_s: 3158.0,
            }),
            ..QuickFinding::default()
        };
        let v = verdict(&target(None, None), &cached);
        assert!(
            v.contains(
                "Writes outran reads in SEQ1M Q8T1: 4.44 GB/s against 3.16 GB/s (1.41×): a \
                 write-behind cache"
            ) && v.contains("`halfpower experiment writecache /data/halfpower.tst` measures it"),
            "{v}"
        );
        let capped = QuickFinding {
            limited: vec![2, 3],
            ..QuickFinding::default()
        };
        let v = verdict(&target(None, None), &capped);
        assert!(
            v.contains(
                "A limit that is not the device's bound tests 3, 4: their figures are the \
                 limit's (the limit lines name it), not the device's"
            ),
            "{v}"
        );
    }
}
