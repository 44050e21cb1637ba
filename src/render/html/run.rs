//! The run and quick charts: IOPS and MB/s per test (the quick suite also as
//! CrystalDiskMark's eight tiles), latency percentiles on a "nines" axis, the latency
//! histogram, the per-second series with the disk's %util and queue size beneath, and CPU
//! µs per I/O. Every input is one series; every test is one category or line.

use super::categories::{BarSeries, Bars, bars};
use super::svg::{Axis, Fmt, Mark, Plot, Scale, Series, fmt, plot};
use super::{Definition, esc, table};
use crate::model::Results;
use crate::model::change::ChangeFigure;
use crate::model::{Document, Input};
use crate::stats::series::TimePoint;
use crate::stats::summary::{DeviceSecond, DirSummary};
use crate::stats::window::Window;
use crate::units::fmt_latency_ns;
use std::fmt::Write;

/// One test of an input: a direction of a run, or one of the quick suite's tests.
struct Test<'a> {
    name: String,
    summary: &'a DirSummary,
    results: &'a Results,
}

fn directions(r: &Results) -> Vec<(&'static str, &DirSummary)> {
    let mut v = Vec::new();
    if let Some(d) = &r.read {
        v.push(("read", d));
    }
    if let Some(d) = &r.write {
        v.push(("write", d));
    }
    if v.is_empty() {
        v.push(("total", &r.total));
    }
    v
}

fn tests(i: &Input) -> Vec<Test<'_>> {
    match &i.doc {
        Document::Run(r) => directions(&r.results)
            .into_iter()
            .map(|(name, summary)| Test {
                name: name.to_string(),
                summary,
                results: &r.results,
            })
            .collect(),
        Document::Quick(q) => q
            .tests
            .iter()
            .flat_map(|t| {
                directions(&t.results)
                    .into_iter()
                    .map(move |(_, summary)| Test {
                        name: format!("{} {}", t.name, t.direction),
                        summary,
                        results: &t.results,
                    })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The test names of all inputs, in order of first appearance.
fn categories(all: &[Vec<Test<'_>>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in all.iter().flatten() {
        if !names.contains(&t.name) {
            names.push(t.name.clone());
        }
    }
    names
}

fn per_test_bars(
    title: &str,
    y_title: &str,
    all: &[Vec<Test<'_>>],
    labels: &[String],
    value: impl Fn(&Test<'_>) -> f64,
    tip: impl Fn(&Test<'_>) -> String,
) -> String {
    let cats = categories(all);
    let series = all
        .iter()
        .zip(labels)
        .enumerate()
        .map(|(k, (tests, label))| {
            let find = |c: &String| tests.iter().find(|t| &t.name == c);
            BarSeries {
                errors: Vec::new(),
                name: label.clone(),
                colour: k,
                values: cats.iter().map(|c| find(c).map(&value)).collect(),
                tips: cats
                    .iter()
                    .map(|c| {
                        find(c).map_or(String::new(), |t| {
                            format!("{label} — {}: {}", t.name, tip(t))
                        })
                    })
                    .collect(),
            }
        })
        .collect();
    bars(&Bars {
        title: title.into(),
        y_title: y_title.into(),
        fmt: Fmt::Si,
        categories: cats,
        series,
        note: String::new(),
    })
}

/// Where a percentile sits on the "nines" axis: −log10(1 − p); max one step past p99.99.
const NINES: [(&str, f64); 7] = [
    ("p50", 0.301),
    ("p90", 1.0),
    ("p99", 2.0),
    ("p99.9", 3.0),
    ("p99.99", 4.0),
    ("max", 5.0),
    ("min", -0.5),
];

fn percentiles(d: &DirSummary) -> [f64; 7] {
    let l = &d.latency_us;
    [l.p50, l.p90, l.p99, l.p99_9, l.p99_99, l.max, l.min]
}

/// Latency buckets re-binned to 10 bins per decade: (bin centre µs, share of I/Os %).
fn histogram_bins(d: &DirSummary) -> Vec<(f64, f64)> {
    let total: u64 = d.histogram.iter().map(|b| b.count).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut bins: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
    for b in &d.histogram {
        let mid_us = (b.low_ns as f64 + b.width_ns as f64 / 2.0).max(1.0) / 1e3;
        *bins
            .entry((mid_us.log10() * 10.0).floor() as i64)
            .or_default() += b.count;
    }
    bins.into_iter()
        .map(|(k, n)| {
            (
                10f64.powf((k as f64 + 0.5) / 10.0),
                n as f64 * 100.0 / total as f64,
            )
        })
        .collect()
}

fn series_name(label: &str, test: &str, one_test: bool) -> String {
    if one_test {
        label.to_string()
    } else {
        format!("{label} — {test}")
    }
}

/// The charts of run or quick inputs and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let all: Vec<Vec<Test<'_>>> = inputs.iter().map(tests).collect();
    let one_test = categories(&all).len() == 1;
    let mut out = String::new();
    if inputs.iter().all(|i| matches!(i.doc, Document::Quick(_))) {
        tiles(&mut out, &all, labels);
    }
    for (i, l) in inputs.iter().zip(labels) {
        summary_line(&mut out, i, l);
    }
    out.push_str("<h2>Throughput</h2>\n<div class=\"charts\">\n");
    out.push_str(&per_test_bars(
        "MB/s per test",
        "MB/s (10^6 bytes/s)",
        &all,
        labels,
        |t| t.summary.mb_per_s,
        |t| format!("{:.2} MB/s, {:.0} IOPS", t.summary.mb_per_s, t.summary.iops),
    ));
    out.push_str(&per_test_bars(
        "IOPS per test",
        "I/Os per second",
        &all,
        labels,
        |t| t.summary.iops,
        |t| format!("{:.0} IOPS, {:.2} MB/s", t.summary.iops, t.summary.mb_per_s),
    ));
    out.push_str("</div>\n<h2>Latency</h2>\n<div class=\"charts\">\n");
    out.push_str(&plot(&percentile_plot(&all, labels, one_test)));
    out.push_str(&plot(&histogram_plot(&all, labels, one_test)));
    out.push_str("</div>\n<h2>Over time</h2>\n<div class=\"charts\">\n");
    time_series(&mut out, &all, labels, one_test);
    out.push_str("</div>\n<h2>CPU cost</h2>\n<div class=\"charts\">\n");
    out.push_str(&per_test_bars(
        "CPU µs per I/O (halfpower's process)",
        "µs of CPU per I/O",
        &all,
        labels,
        |t| t.results.cpu.us_per_io,
        |t| {
            format!(
                "process {:.2} µs/IO, {:.1} µs/MB; system-wide {:.2} µs/IO",
                t.results.cpu.us_per_io, t.results.cpu.us_per_mb, t.results.cpu.system_us_per_io
            )
        },
    ));
    out.push_str("</div>\n");
    devices_table(&mut out, inputs, labels);
    (out, definitions())
}

/// The line under the heading for one input: a quick suite's verdict, or what a run ran.
fn summary_line(out: &mut String, i: &Input, l: &str) {
    if let Document::Quick(q) = &i.doc
        && let Some(v) = crate::render::text::quick::report_verdict(q)
    {
        let _ = writeln!(
            out,
            "<p class=\"verdict\"><b>{}</b>: {}</p>",
            esc(l),
            esc(&v)
        );
    }
    if let Document::Run(r) = &i.doc {
        let w = &r.workload;
        let _ = writeln!(
            out,
            "<p class=\"note\">{}: {} {} {} × {} thread(s) per target, {} engine, {:.2} s measured{}{}.</p>",
            esc(l),
            esc(w.rw.name()),
            w.bs,
            crate::render::text::run::depth(w),
            w.threads,
            r.results.engine,
            r.results.seconds,
            if r.results.interrupted {
                ", interrupted by Ctrl-C"
            } else {
                ""
            },
            if r.results.errors.count > 0 {
                ", with failed I/Os"
            } else {
                ""
            },
        );
        // The limits that are not the device's, as the text says them.
        for line in crate::render::text::policy::notes(&r.results).lines() {
            let _ = writeln!(out, "<p class=\"note\">{}: {}</p>", esc(l), esc(line));
        }
    }
}

/// Latency percentiles on the "nines" axis, a line per test of every input.
fn percentile_plot(all: &[Vec<Test<'_>>], labels: &[String], one_test: bool) -> Plot {
    let mut p = Plot::new(
        "Latency percentiles",
        Axis {
            ticks: Some(NINES.iter().map(|(n, x)| (*x, n.to_string())).collect()),
            ..Axis::new(
                "percentile (nines: each step ten times rarer)",
                Scale::Linear,
                Fmt::Plain,
            )
        },
        Axis::new(
            "latency, submission to completion",
            Scale::Log10,
            Fmt::Micros,
        ),
    );
    let mut k = 0;
    for (tests, label) in all.iter().zip(labels) {
        for t in tests {
            let v = percentiles(t.summary);
            let name = series_name(label, &t.name, one_test);
            let mut pts: Vec<(f64, f64)> = NINES.iter().zip(v).map(|((_, x), y)| (*x, y)).collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let tips = pts
                .iter()
                .map(|(x, y)| {
                    let n = NINES.iter().find(|(_, nx)| nx == x).map_or("", |n| n.0);
                    format!("{name}: {n} = {}", fmt_latency_ns(y * 1e3))
                })
                .collect();
            p.series.push(Series::line(name, pts, tips, k));
            k += 1;
        }
    }
    p.note = "min, p50 … p99.99 and max of every I/O's latency (HDR histogram, ≤ 1 % error; min and max exact).".into();
    p
}

/// The latency histogram, ten bins per decade, a line per test of every input.
fn histogram_plot(all: &[Vec<Test<'_>>], labels: &[String], one_test: bool) -> Plot {
    let mut h = Plot::new(
        "Latency histogram",
        Axis::new("latency (log scale)", Scale::Log10, Fmt::Micros),
        Axis::new("share of I/Os per bin, %", Scale::Linear, Fmt::Plain),
    );
    let mut k = 0;
    for (tests, label) in all.iter().zip(labels) {
        for t in tests {
            let bins = histogram_bins(t.summary);
            let name = series_name(label, &t.name, one_test);
            let tips = bins
                .iter()
                .map(|(x, y)| {
                    format!(
                        "{name}: {:.2} % of I/Os between {} and {}",
                        y,
                        fmt_latency_ns(x * 10f64.powf(-0.05) * 1e3),
                        fmt_latency_ns(x * 10f64.powf(0.05) * 1e3)
                    )
                })
                .collect();
            h.series.push(Series::line(name, bins, tips, k));
            k += 1;
        }
    }
    h.note = "The histogram's buckets regrouped ten per decade of latency.".into();
    h
}

/// Each input's runs, once each, named for the legend: a run's directions share one series, a
/// quick suite has one run per test.
fn runs<'a>(
    all: &[Vec<Test<'a>>],
    labels: &[String],
    one_test: bool,
) -> Vec<(String, &'a Results)> {
    let mut out: Vec<(String, &Results)> = Vec::new();
    for (tests, label) in all.iter().zip(labels) {
        for t in tests {
            if out.iter().any(|(_, r)| std::ptr::eq(*r, t.results)) {
                continue;
            }
            let name = if matches!(t.name.as_str(), "read" | "write" | "total") {
                label.clone()
            } else {
                series_name(label, &t.name, one_test)
            };
            out.push((name, t.results));
        }
    }
    out
}

fn time_series(out: &mut String, all: &[Vec<Test<'_>>], labels: &[String], one_test: bool) {
    let runs = runs(all, labels, one_test);
    io_charts(out, &runs);
    device_charts(out, &runs);
}

/// IOPS, MB/s and p99 latency per second, one line per run, its changes and host events marked.
fn io_charts(out: &mut String, runs: &[(String, &Results)]) {
    let x = || Axis::new("second of the measured window", Scale::Linear, Fmt::Plain);
    type Pick = fn(&TimePoint) -> f64;
    let charts: [(&str, &str, Scale, Fmt, Pick); 3] = [
        (
            "IOPS per second",
            "I/Os per second",
            Scale::Linear,
            Fmt::Si,
            |p| p.iops,
        ),
        ("MB/s per second", "MB/s", Scale::Linear, Fmt::Si, |p| {
            p.bytes_per_s / 1e6
        }),
        (
            "p99 latency per second",
            "p99 latency",
            Scale::Log10,
            Fmt::Micros,
            |p| p.p99_us,
        ),
    ];
    let figures = [Some(ChangeFigure::Iops), None, Some(ChangeFigure::P99Us)];
    for ((title, y_title, scale, f, get), figure) in charts.into_iter().zip(figures) {
        let mut p = Plot::new(title, x(), Axis::new(y_title, scale, f));
        for (name, r) in runs {
            p.marks.extend(change_marks(name, r, figure));
            if figure == Some(ChangeFigure::Iops) {
                p.marks.extend(host_marks(name, r));
            }
        }
        for (k, (name, r)) in runs.iter().enumerate() {
            let pts: Vec<(f64, f64)> = whole_seconds(r)
                .map(|tp| (tp.t_s as f64 + 0.5, get(tp)))
                .collect();
            let tips = pts
                .iter()
                .map(|(x, y)| format!("{name}: second {:.0}: {}", x - 0.5, fmt(f, *y)))
                .collect();
            p.series.push(Series::line(name.clone(), pts, tips, k));
        }
        out.push_str(&plot(&p));
    }
}

/// The disks' %util and queue size per second, one line per run and disk, beside the I/O series.
fn device_charts(out: &mut String, runs: &[(String, &Results)]) {
    let x = || Axis::new("second of the measured window", Scale::Linear, Fmt::Plain);
    type PickDevice = fn(&DeviceSecond) -> f64;
    let device_charts: [(&str, &str, PickDevice); 2] = [
        ("Disk %util per second", "%util (busy time share)", |d| {
            d.util_pct
        }),
        (
            "Disk queue size per second",
            "aqu-sz (mean I/Os in the OS and device)",
            |d| d.aqu_sz,
        ),
    ];
    for (title, y_title, get) in device_charts {
        let mut p = Plot::new(title, x(), Axis::new(y_title, Scale::Linear, Fmt::Plain));
        for (name, r) in runs {
            let mut devices: Vec<&str> = r
                .device_timeseries
                .iter()
                .map(|d| d.device.as_str())
                .collect();
            devices.sort_unstable();
            devices.dedup();
            for dev in devices {
                let name = format!("{name} — {dev}");
                let pts: Vec<(f64, f64)> = r
                    .device_timeseries
                    .iter()
                    .filter(|d| d.device == dev)
                    .map(|d| (d.t_s as f64 + 0.5, get(d)))
                    .collect();
                let tips = pts
                    .iter()
                    .map(|(x, y)| format!("{name}: second {:.0}: {y:.2}", x - 0.5))
                    .collect();
                let colour = p.series.len();
                p.series.push(Series::line(name, pts, tips, colour));
            }
        }
        p.note = "From /proc/diskstats, sampled once a second beside the I/O series (no disk: a null target or a file system without one).".into();
        out.push_str(&plot(&p));
    }
}

/// The changes of `r` found in `figure`, marked where the level after begins: Δ, the levels
/// and the cause on hover.
fn change_marks(name: &str, r: &Results, figure: Option<ChangeFigure>) -> Vec<Mark> {
    r.changes
        .iter()
        .filter(|c| Some(c.figure) == figure)
        .map(|c| Mark {
            x: c.at_s,
            y: c.after,
            label: "Δ".into(),
            tip: format!(
                "{name}: a change at {:.1} s, {:.0} → {:.0}; {}",
                c.at_s,
                c.before,
                c.after,
                crate::render::words::change_cause(c.cause)
            ),
        })
        .collect()
}

/// The seconds of `r` in which the host probe counted a stall, marked H on the IOPS series:
/// the stalled time and the steal on hover.
fn host_marks(name: &str, r: &Results) -> Vec<Mark> {
    whole_seconds(r)
        .filter(|t| t.host_stalled_ms.is_some_and(|s| s > 0.0))
        .map(|t| Mark {
            x: t.t_s as f64 + 0.5,
            y: t.iops,
            label: "H".into(),
            tip: format!(
                "{name}: second {}: the host stalled this process {:.1} ms (steal {:.1} %): \
                 this second's figures are the host's as much as the device's",
                t.t_s,
                t.host_stalled_ms.unwrap_or(0.0),
                t.steal_pct.unwrap_or(0.0)
            ),
        })
        .collect()
}

/// The series' seconds that [`Window`] reports. Files of this version hold no others; files
/// of older versions may end in a short part-second whose rate stands on a handful of I/Os.
fn whole_seconds(r: &Results) -> impl Iterator<Item = &TimePoint> {
    let keep = Window::new(r.seconds, 1.0).steps() as u32;
    r.timeseries.iter().filter(move |t| t.t_s < keep)
}

fn devices_table(out: &mut String, inputs: &[Input], labels: &[String]) {
    let mut rows = Vec::new();
    for (i, l) in inputs.iter().zip(labels) {
        let results: Vec<(String, &Results)> = match &i.doc {
            Document::Run(r) => vec![(l.clone(), &r.results)],
            Document::Quick(q) => q
                .tests
                .iter()
                .map(|t| (format!("{l} — {} {}", t.name, t.direction), &t.results))
                .collect(),
            _ => Vec::new(),
        };
        for (name, r) in results {
            for d in &r.devices {
                rows.push(vec![
                    name.clone(),
                    d.name.clone(),
                    format!("{:.1}", d.r_s),
                    format!("{:.1}", d.w_s),
                    format!("{:.2}", d.r_await_ms),
                    format!("{:.2}", d.w_await_ms),
                    format!("{:.2}", d.aqu_sz),
                    format!("{:.1}", d.util_pct),
                ]);
            }
        }
    }
    if !rows.is_empty() {
        out.push_str("<h2>Disks underneath, over the measured window</h2>\n");
        out.push_str(&table(
            &[
                "series",
                "device",
                "r/s",
                "w/s",
                "r_await ms",
                "w_await ms",
                "aqu-sz",
                "%util",
            ],
            &rows,
        ));
    }
}

/// CrystalDiskMark's eight tiles: rows of tests, read left and write right; one figure per input.
fn tiles(out: &mut String, all: &[Vec<Test<'_>>], labels: &[String]) {
    out.push_str("<h2>Quick suite</h2>\n<div class=\"tiles\">\n");
    for name in categories(all) {
        let _ = writeln!(out, "<div class=\"tile\"><h3>{}</h3>", esc(&name));
        for (k, (tests, label)) in all.iter().zip(labels).enumerate() {
            if let Some(t) = tests.iter().find(|t| t.name == name) {
                let _ = writeln!(
                    out,
                    "<div class=\"v\" title=\"{}\"><svg class=\"sw\" viewBox=\"0 0 12 12\"><rect class=\"fill s{}\" width=\"12\" height=\"12\"/></svg>{:.2} MB/s</div><div class=\"sub\">{:.0} IOPS · p99 {}</div>",
                    esc(label),
                    k % super::svg::COLOURS,
                    t.summary.mb_per_s,
                    t.summary.iops,
                    esc(&fmt_latency_ns(t.summary.latency_us.p99 * 1e3))
                );
            }
        }
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n");
}

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "IOPS",
            text: "I/Os completed in the measured window (warm-up excluded) divided by its length.",
            doc: "docs/figures.md, section 'Per target, per direction'",
        },
        Definition {
            name: "MB/s",
            text: "Bytes transferred in the measured window divided by its length, in 10^6 bytes per second.",
            doc: "docs/figures.md, section 'Per target, per direction'",
        },
        Definition {
            name: "latency",
            text: "Time of each I/O from its submission to its completion, each stamped on its own with the monotonic clock; percentiles from an HDR histogram with ≤ 1 % error.",
            doc: "docs/figures.md, section 'Per target, per direction'",
        },
        Definition {
            name: "per-second series",
            text: "I/Os, bytes and p99 of the I/Os completed in each whole second of the measured window.",
            doc: "docs/figures.md, section 'Per-second series'",
        },
        Definition {
            name: "%util, aqu-sz",
            text: "From /proc/diskstats deltas of the disk underneath: share of time with at least one I/O in flight, and mean number of I/Os in flight (iostat's definitions).",
            doc: "docs/figures.md, section 'Device counters'",
        },
        Definition {
            name: "CPU µs per I/O",
            text: "halfpower's user + system CPU time over the window divided by the I/Os completed; the system-wide figure counts all CPUs' busy time from /proc/stat.",
            doc: "docs/figures.md, section 'CPU'",
        },
    ]
}

impl super::Drawn for crate::model::RunReport {
    fn describe(&self, _: &str) -> String {
        let w = &self.workload;
        let targets: Vec<&str> = self.targets.iter().map(|t| t.path.as_str()).collect();
        let mut s = format!(
            "{} {} {} {} T{}",
            targets.join(", "),
            w.rw.name(),
            w.bs,
            crate::render::text::run::depth(w),
            w.threads
        );
        if w.setup.buffered {
            s.push_str(" buffered");
        }
        if w.setup.write_through {
            s.push_str(crate::render::text::run::write_through(w));
        }
        if self.results.engine != crate::plan::EngineKind::Uring {
            s.push(' ');
            s.push_str(&self.results.engine.to_string());
        }
        s
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}

impl super::Drawn for crate::model::QuickReport {
    fn describe(&self, _: &str) -> String {
        format!("{} on {}", self.target.path, self.host.hostname)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
