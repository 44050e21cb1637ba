//! A batch result (`--prom PATH` of run, quick, sweep and selftest) as a file for
//! node_exporter's textfile collector, the standard home of batch jobs' figures: each figure of
//! the document as a gauge in base units (bytes per second, seconds), latency percentiles as a
//! summary, and when the result was written (`halfpower_result_timestamp_seconds`) so an
//! alert can tell a stale file from a fresh one. Names: docs/monitor.md, "Batch results".

use super::prom::{Family, MetricType};
use crate::model::Document;
use crate::model::quick::QuickReport;
use crate::model::run::RunReport;
use crate::model::selftest::SelftestReport;
use crate::model::sweep::SweepReport;
use crate::stats::summary::DirSummary;

type Labels = Vec<(&'static str, String)>;

/// The families of `doc`, or None for a kind `--prom` is not given to.
pub fn families(doc: &Document) -> Option<Vec<Family>> {
    let (mut out, date) = match doc {
        Document::Run(r) => (run(r), &r.header.date),
        Document::Quick(q) => (quick(q), &q.header.date),
        Document::Sweep(s) => (sweep(s), &s.header.date),
        Document::Selftest(s) => (selftest(s), &s.header.date),
        _ => return None,
    };
    let mut when = Family::new(
        "halfpower_result_timestamp_seconds",
        MetricType::Gauge,
        "When the result was written, Unix time.",
    );
    if let Ok(t) = date.parse::<jiff::Timestamp>() {
        when.push(vec![], t.as_millisecond() as f64 / 1e3);
    }
    out.push(when);
    Some(out)
}

/// IOPS, bytes per second and latency of one summary, into the three families.
fn summary(f: &mut [Family; 3], labels: Labels, s: &DirSummary) {
    f[0].push(labels.clone(), s.iops);
    f[1].push(labels.clone(), s.bytes_per_s);
    let l = &s.latency_us;
    for (q, v) in [
        ("0.5", l.p50),
        ("0.9", l.p90),
        ("0.99", l.p99),
        ("0.999", l.p99_9),
        ("0.9999", l.p99_99),
    ] {
        let mut ql = labels.clone();
        ql.push(("quantile", q.into()));
        f[2].samples.push(super::prom::Sample {
            suffix: "",
            labels: ql,
            value: v / 1e6,
        });
    }
    f[2].samples.push(super::prom::Sample {
        suffix: "_sum",
        labels: labels.clone(),
        value: l.mean / 1e6 * s.ios as f64,
    });
    f[2].samples.push(super::prom::Sample {
        suffix: "_count",
        labels,
        value: s.ios as f64,
    });
}

fn figure_families(what: &'static str) -> [Family; 3] {
    let (iops, bps, lat) = match what {
        "run" => (
            "halfpower_run_iops",
            "halfpower_run_bytes_per_second",
            "halfpower_run_latency_seconds",
        ),
        _ => (
            "halfpower_quick_iops",
            "halfpower_quick_bytes_per_second",
            "halfpower_quick_latency_seconds",
        ),
    };
    [
        Family::new(
            iops,
            MetricType::Gauge,
            "I/Os per second over the measured window.",
        ),
        Family::new(
            bps,
            MetricType::Gauge,
            "Bytes per second over the measured window (MB/s x 10^6).",
        ),
        Family::new(
            lat,
            MetricType::Summary,
            "Latency of each I/O, submission to completion, over the measured window.",
        ),
    ]
}

fn run(r: &RunReport) -> Vec<Family> {
    let mut f = figure_families("run");
    let res = &r.results;
    let rows = std::iter::once(("all".to_string(), res))
        .map(|(t, x)| (t, &x.total, &x.read, &x.write))
        .chain((res.targets.iter()).map(|t| (t.path.clone(), &t.total, &t.read, &t.write)));
    for (target, total, read, write) in rows {
        let l = |d: &str| vec![("target", target.clone()), ("direction", d.to_string())];
        summary(&mut f, l("total"), total);
        for (d, s) in [("read", read), ("write", write)] {
            if let Some(s) = s.as_ref().filter(|s| s.ios > 0) {
                summary(&mut f, l(d), s);
            }
        }
    }
    let mut steady = Family::new(
        "halfpower_run_steady",
        MetricType::Gauge,
        "1 when the run reached the steady state it was asked to (--steady), else 0.",
    );
    if let Some(s) = &res.steady {
        steady.push(vec![], if s.reached { 1.0 } else { 0.0 });
    }
    let mut secs = Family::new(
        "halfpower_run_seconds",
        MetricType::Gauge,
        "Length of the measured window.",
    );
    secs.push(vec![], res.seconds);
    let mut out = f.to_vec();
    out.extend([steady, secs]);
    out
}

/// A quick test's labels: its name and direction (SEQ1M is read, then written).
fn test(t: &crate::model::quick::QuickTest) -> Labels {
    vec![
        ("test", t.name.clone()),
        ("direction", t.direction.to_string()),
    ]
}

fn quick(q: &QuickReport) -> Vec<Family> {
    let mut f = figure_families("quick");
    for t in &q.tests {
        summary(&mut f, test(t), &t.results.total);
    }
    let mut bound = Family::new(
        "halfpower_quick_limited",
        MetricType::Gauge,
        "1 for a test a limit that is not the device's bound (a cgroup's cap, a --limit).",
    );
    for (i, t) in q.tests.iter().enumerate() {
        let limited = q.finding.as_ref().is_some_and(|x| x.limited.contains(&i));
        bound.push(test(t), f64::from(u8::from(limited)));
    }
    let mut out = f.to_vec();
    out.push(bound);
    out
}

fn sweep(s: &SweepReport) -> Vec<Family> {
    let mut bps = Family::new(
        "halfpower_sweep_bytes_per_second",
        MetricType::Gauge,
        "Each point's bytes per second (MB/s x 10^6).",
    );
    let mut iops = Family::new(
        "halfpower_sweep_iops",
        MetricType::Gauge,
        "Each point's I/Os per second.",
    );
    for p in &s.points {
        let l = vec![
            ("rw", p.rw.to_string()),
            ("bs_bytes", p.bs_bytes.to_string()),
            ("qd", p.qd.to_string()),
            ("threads", p.threads.to_string()),
        ];
        bps.push(l.clone(), p.bytes_per_s);
        iops.push(l, p.iops);
    }
    let mut peak = Family::new(
        "halfpower_sweep_peak_bytes_per_second",
        MetricType::Gauge,
        "The plateau: mean of the points within 5 % of the best.",
    );
    let mut half = Family::new(
        "halfpower_sweep_half_power_bs_bytes",
        MetricType::Gauge,
        "The half-power point: per queue depth, the smallest request size reaching half the reference.",
    );
    let mut rap = Family::new(
        "halfpower_sweep_real_over_advertised_ratio",
        MetricType::Gauge,
        "The peak over the advertised rate (--pap or the path's PAP).",
    );
    for a in &s.analysis {
        let l = vec![("rw", a.rw.to_string()), ("threads", a.threads.to_string())];
        peak.push(l.clone(), a.peak_bytes_per_s);
        if let Some(r) = a.rap_pap {
            rap.push(l.clone(), r);
        }
        for c in &a.half_power {
            if let Some(bs) = c.bs_bytes {
                let mut hl = l.clone();
                hl.push(("qd", c.qd.to_string()));
                half.push(hl, bs as f64);
            }
        }
    }
    vec![bps, iops, peak, half, rap]
}

fn selftest(s: &SelftestReport) -> Vec<Family> {
    let g = |name, help, v: f64| {
        let mut f = Family::new(name, MetricType::Gauge, help);
        f.push(vec![], v);
        f
    };
    let st = &s.statement;
    let mut error = Family::new(
        "halfpower_selftest_check_error_ratio",
        MetricType::Gauge,
        "Each known answer's error (docs/figures.md, Self-test: error_pct / 100).",
    );
    let mut held = Family::new(
        "halfpower_selftest_check_held",
        MetricType::Gauge,
        "1 when the known answer held within its bound.",
    );
    for c in &s.checks {
        let l = vec![("check", super::prom::label_of(&c.kind))];
        error.push(l.clone(), c.error_pct / 100.0);
        held.push(l, f64::from(u8::from(c.held)));
    }
    vec![
        g(
            "halfpower_selftest_latency_above_seconds",
            "The statement: latencies above this are measured within halfpower_selftest_latency_within_ratio.",
            st.latency_above_us / 1e6,
        ),
        g(
            "halfpower_selftest_latency_within_ratio",
            "The statement's latency bound.",
            st.latency_within_pct / 100.0,
        ),
        g(
            "halfpower_selftest_rates_within_ratio",
            "The statement's rate bound.",
            st.rates_within_pct / 100.0,
        ),
        g(
            "halfpower_selftest_held",
            "1 when every known answer held.",
            f64::from(u8::from(st.held)),
        ),
        error,
        held,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::selftest::{Check, CheckKind, Known, Statement};

    /// The self-test's statement and checks, each a gauge (the file a nightly self-test
    /// leaves for the collector).
    #[test]
    fn the_selftests_statement_and_checks_are_gauges() {
        let checks = vec![Check {
            kind: CheckKind::ThrottledIops,
            known: 2000.0,
            known_is: Known::Answer,
            measured: 2002.0,
            error_pct: 0.1,
            bound_pct: 2.0,
            held: true,
        }];
        let statement = Statement {
            latency_above_us: 2000.0,
            latency_within_pct: 10.0,
            rates_within_pct: 0.1,
            held: true,
        };
        let r = SelftestReport::for_tests(checks, statement);
        let page = crate::render::prom::text(&families(&Document::Selftest(Box::new(r))).unwrap());
        for line in [
            "halfpower_selftest_latency_above_seconds 0.002",
            "halfpower_selftest_held 1",
            "halfpower_selftest_check_error_ratio{check=\"throttled_iops\"} 0.001",
            "halfpower_selftest_check_held{check=\"throttled_iops\"} 1",
        ] {
            assert!(page.lines().any(|l| l == line), "{line}\n{page}");
        }
        assert!(
            page.lines()
                .any(|l| l == "halfpower_result_timestamp_seconds 1796025600"),
            "{page}"
        );
    }
}
