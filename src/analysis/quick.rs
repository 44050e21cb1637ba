//! The quick suite's verdict in words: what the device looks like against what is typical for
//! its class, how far one request at a time is from deep queues (the half-power view), and
//! what to try next.

use crate::model::{Direction, QuickTest, TargetInfo};
use crate::spec::RwMode;

/// Below this share of the deep-queue figure, QD1 is said to leave the device idle.
pub const PARALLEL_SHARE: f64 = 0.5;

/// The test of direction `dir` and `rw` with `inflight` I/Os in flight (depth × threads, so a
/// suite the sync engine ran with threads counts the same).
fn test(tests: &[QuickTest], rw: RwMode, dir: Direction, inflight: u32) -> Option<&QuickTest> {
    tests.iter().find(|t| {
        t.workload.rw == rw && t.direction == dir && t.workload.qd * t.workload.threads == inflight
    })
}

fn compare(measured: f64, typical: f64) -> &'static str {
    if measured > typical * 1.5 {
        "above"
    } else if measured < typical / 1.5 {
        "below"
    } else {
        "about"
    }
}

fn mb(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} GB/s", v / 1000.0)
    } else {
        format!("{v:.0} MB/s")
    }
}

/// The verdict of a quick suite on `target`.
pub fn verdict(target: &TargetInfo, tests: &[QuickTest]) -> String {
    let class = target.class.unwrap_or_default();
    let seq = test(tests, RwMode::Read, Direction::Read, 8).map(|t| t.results.total.mb_per_s);
    let deep = test(tests, RwMode::Randread, Direction::Read, 32).map(|t| t.results.total.iops);
    let qd1 = test(tests, RwMode::Randread, Direction::Read, 1).map(|t| t.results.total.iops);
    let mut out = Vec::new();
    let on = target.device.as_ref().map_or(
        "no block device (a memory or network filesystem)".into(),
        |d| format!("a {} device ({d})", class.name()),
    );
    let figures = match (seq, deep) {
        (Some(s), Some(d)) => format!(
            "sequential 1 MiB reads {}, random 4 KiB reads {d:.0} IOPS at depth 32",
            mb(s)
        ),
        _ => "the suite did not finish".into(),
    };
    match (super::expect::typical(class).peak, seq, deep) {
        (Some((ts, ti)), Some(s), Some(d)) => out.push(format!(
            "{} is on {on}: {figures}, {} a typical {} ({}) and {} its {ti:.0} IOPS",
            target.path,
            compare(s, ts),
            class.name(),
            mb(ts),
            compare(d, ti)
        )),
        _ => out.push(format!(
            "{} is on {on}: {figures} (no typical figures for this class: what is behind it \
             decides)",
            target.path
        )),
    }
    if let (Some(one), Some(d)) = (qd1, deep) {
        let share = one / d.max(f64::MIN_POSITIVE);
        out.push(if share < PARALLEL_SHARE {
            format!(
                "random reads at QD1 reach {:.0} % of QD32: this device needs parallel \
                 requests to deliver what it can (the half-power view)",
                share * 100.0
            )
        } else {
            format!(
                "random reads at QD1 already reach {:.0} % of QD32: latency, not parallelism, \
                 bounds this device",
                share * 100.0
            )
        });
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
    use crate::model::{DeviceClass, Results, TargetKind};
    use crate::spec::Workload;
    use crate::units::ByteSize;

    fn t(rw: RwMode, bs: u64, qd: u32, mb_s: f64, iops: f64) -> QuickTest {
        let mut results = Results::default();
        results.total.mb_per_s = mb_s;
        results.total.iops = iops;
        QuickTest {
            name: String::new(),
            direction: Direction::Read,
            workload: Workload {
                rw,
                bs: ByteSize(bs).into(),
                qd,
                ..Workload::default()
            },
            results,
            repeat: None,
        }
    }

    fn target(class: Option<DeviceClass>) -> TargetInfo {
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
            device: Some("sda".into()),
            partition: None,
            logical_block_size: Some(512),
            rotational: Some(false),
            class,
            scheduler: None,
            model: None,
        }
    }

    /// An SSD whose QD1 random reads reach 14 % of QD32: it needs parallel requests.
    #[test]
    fn an_ssd_that_needs_parallel_requests() {
        let tests = vec![
            t(RwMode::Read, 1 << 20, 8, 540.0, 515.0),
            t(RwMode::Randread, 4096, 32, 368.0, 90_000.0),
            t(RwMode::Randread, 4096, 1, 51.6, 12_600.0),
        ];
        let v = verdict(&target(Some(DeviceClass::Ssd)), &tests);
        assert!(v.contains("a ssd device (sda)"), "{v}");
        assert!(v.contains("about a typical ssd (500 MB/s)"), "{v}");
        assert!(v.contains("QD1 reach 14 % of QD32"), "{v}");
        assert!(v.contains("needs parallel requests"), "{v}");
        assert!(v.contains("halfpower sweep /data/halfpower.tst"), "{v}");
    }

    /// A disk that QD1 already saturates, of a class without typical figures.
    #[test]
    fn latency_bound_and_no_typical_figures() {
        let tests = vec![
            t(RwMode::Read, 1 << 20, 8, 200.0, 190.0),
            t(RwMode::Randread, 4096, 32, 0.8, 200.0),
            t(RwMode::Randread, 4096, 1, 0.7, 180.0),
        ];
        let v = verdict(&target(Some(DeviceClass::Virtual)), &tests);
        assert!(v.contains("already reach 90 %"), "{v}");
        assert!(v.contains("no typical figures"), "{v}");
        // The sync engine's threads count as depth.
        let mut threaded = tests.clone();
        threaded[1].workload.qd = 1;
        threaded[1].workload.threads = 32;
        assert!(verdict(&target(None), &threaded).contains("90 %"));
    }
}
