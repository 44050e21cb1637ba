//! The monitor and diagnose section, per device: utilization, IOPS and response time over
//! time, the response time split into service time and queue time as stacked bands (004
//! Figure 10); paging and CPU beneath (monitor logs only: a diagnose JSON keeps no system
//! series); then the verdicts with their evidence, and the advice.

use super::svg::{Axis, Band, Fmt, Plot, Scale, Series, fmt, plot};
use super::{Definition, esc, table};
use crate::input::timefmt::parse_seconds;
use crate::model::diagnosis::{DeviceDiagnosis, Diagnosis};
use crate::model::log::Log;
use crate::model::{Document, Input};
use crate::render::words;
use std::fmt::Write;

fn diagnosis(i: &Input) -> Option<(&Diagnosis, Option<&Log>)> {
    match &i.doc {
        Document::Monitor(m) => Some((&m.diagnosis, Some(&m.log))),
        Document::Diagnose(d) => Some((d.as_ref(), None)),
        _ => None,
    }
}

/// Seconds since the first timestamp of the input, for every time string `t`; intervals whose
/// time cannot be read are placed by their order.
fn clock<'a>(times: impl Iterator<Item = &'a str>) -> impl Fn(usize, &str) -> f64 {
    let first = times.filter_map(parse_seconds).next();
    move |i: usize, t: &str| match (first, parse_seconds(t)) {
        (Some(f), Some(s)) => s - f,
        _ => i as f64,
    }
}

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

/// The charts of monitor logs or diagnose JSON and the definitions they use.
pub fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
    let all: Vec<(&Diagnosis, Option<&Log>)> = inputs.iter().filter_map(diagnosis).collect();
    let mut names: Vec<&str> = Vec::new();
    for (d, _) in &all {
        for dev in &d.devices {
            if !names.contains(&dev.device.as_str()) {
                names.push(&dev.device);
            }
        }
    }
    let multi = all.len() > 1;
    let mut out = String::new();
    out.push_str("<h2>Verdicts</h2>\n");
    out.push_str(&verdicts_table(&all, labels));
    for name in &names {
        device_block(&mut out, name, &all, labels, multi);
    }
    system_block(&mut out, &all, labels);
    (out, definitions())
}

/// The table of verdicts: one row per device of every input.
fn verdicts_table(all: &[(&Diagnosis, Option<&Log>)], labels: &[String]) -> String {
    let mut rows = Vec::new();
    for ((d, _), label) in all.iter().zip(labels) {
        for dev in &d.devices {
            rows.push(vec![
                dev.device.clone(),
                label.clone(),
                dev.class.to_string(),
                dev.verdict.name().to_string(),
                opt(dev.utilization_pct, 1),
                format!("{:.1}", dev.iops),
                opt(dev.response_ms, 3),
                opt(dev.service_ms, 3),
                opt(dev.queue_ms, 3),
                opt(dev.queue_length, 2),
                dev.service_source.to_string(),
                match (&d.profile, dev.expected_service_ms) {
                    // With a profile, whose expectation each device got.
                    (Some(_), Some(e)) => format!("{e:.3} ({})", dev.expectation_source.name()),
                    _ => opt(dev.expected_service_ms, 3),
                },
            ]);
        }
    }
    table(
        &[
            "device",
            "input",
            "class",
            "verdict",
            "util %",
            "IOPS",
            "response ms",
            "service ms",
            "queue ms",
            "queue length",
            "service from",
            "expected ms",
        ],
        &rows,
    )
}

/// One device's part of the page: its heading, charts (utilization, IOPS, response time
/// split) and then its verdicts per input.
fn device_block(
    out: &mut String,
    name: &str,
    all: &[(&Diagnosis, Option<&Log>)],
    labels: &[String],
    multi: bool,
) {
    let _ = writeln!(out, "<h2>{}</h2>", esc(name));
    let devs: Vec<(Option<&DeviceDiagnosis>, &String)> = all
        .iter()
        .zip(labels)
        .map(|((d, _), l)| (d.devices.iter().find(|x| x.device == *name), l))
        .collect();
    out.push_str("<div class=\"charts\">\n");
    out.push_str(&device_chart(
        name,
        &devs,
        multi,
        "utilization",
        "utilization, % of the interval busy",
        |i| i.utilization_pct,
        Fmt::Plain,
    ));
    out.push_str(&device_chart(
        name,
        &devs,
        multi,
        "I/Os per second",
        "I/Os per second",
        |i| Some(i.iops),
        Fmt::Si,
    ));
    for (dev, label) in &devs {
        let Some(dev) = dev else { continue };
        out.push_str(&split(name, dev, if multi { Some(label) } else { None }));
    }
    out.push_str("</div>\n");
    for (dev, label) in &devs {
        let Some(dev) = dev else { continue };
        verdict(out, dev, if multi { Some(label) } else { None });
    }
}

/// One figure per interval over time for a device, a line per input that has it.
fn device_chart(
    name: &str,
    devs: &[(Option<&DeviceDiagnosis>, &String)],
    multi: bool,
    title: &str,
    y: &str,
    get: fn(&crate::model::diagnosis::IntervalDiagnosis) -> Option<f64>,
    f: Fmt,
) -> String {
    let mut p = Plot::new(
        format!("{name}: {title}"),
        Axis::new(
            "seconds since the log's first interval",
            Scale::Linear,
            Fmt::Plain,
        ),
        Axis::new(y, Scale::Linear, f),
    );
    for (k, (dev, label)) in devs.iter().enumerate() {
        let Some(dev) = dev else { continue };
        let at = clock(dev.intervals.iter().map(|i| i.time.as_str()));
        let pts: Vec<(f64, f64)> = dev
            .intervals
            .iter()
            .enumerate()
            .map(|(i, iv)| (at(i, &iv.time), get(iv).unwrap_or(f64::NAN)))
            .collect();
        let tips = dev
            .intervals
            .iter()
            .zip(&pts)
            .map(|(iv, (_, y))| {
                format!(
                    "{label}: {}: {} ({})",
                    iv.time,
                    fmt(f, *y),
                    iv.verdict.name()
                )
            })
            .collect();
        let name = if multi { label.as_str() } else { "" };
        p.series.push(Series::line(name, pts, tips, k));
    }
    plot(&p)
}

/// The system part: paging and CPU charts from monitor logs, or their peaks in a note when
/// only diagnose JSON has them.
fn system_block(out: &mut String, all: &[(&Diagnosis, Option<&Log>)], labels: &[String]) {
    let logs: Vec<(&Log, &String)> = all
        .iter()
        .zip(labels)
        .filter_map(|((_, l), n)| l.map(|l| (l, n)))
        .collect();
    if logs.iter().any(|(l, _)| !l.system.is_empty()) {
        out.push_str("<h2>System</h2>\n<div class=\"charts\">\n");
        out.push_str(&system(&logs, "hard paging", "pages per second", |s| {
            s.paging_s
        }));
        out.push_str(&system(&logs, "processor busy", "% of all CPUs", |s| {
            s.cpu_pct
        }));
        out.push_str(&system(
            &logs,
            "interrupt time",
            "% of all CPUs (hard + soft)",
            |s| s.interrupt_pct,
        ));
        out.push_str("</div>\n");
    } else if all.iter().any(|(_, l)| l.is_none()) {
        out.push_str("<p class=\"note\">Paging and CPU over time need the monitor log itself: a diagnose JSON keeps only their peaks.</p>\n");
        for ((d, _), label) in all.iter().zip(labels) {
            let s = &d.system;
            let _ = writeln!(
                out,
                "<p class=\"note\">{}: highest hard paging {} pages/s ({} intervals above 5/s), highest processor busy {} %, highest interrupt time {} %.</p>",
                esc(label),
                opt(s.paging_s_max, 1),
                s.paging_intervals,
                opt(s.cpu_pct_max, 1),
                opt(s.interrupt_pct_max, 1)
            );
        }
    }
}

/// Response time stacked as service time (below) and queue time (above), 004 Figure 10.
fn split(name: &str, dev: &DeviceDiagnosis, label: Option<&String>) -> String {
    let at = clock(dev.intervals.iter().map(|i| i.time.as_str()));
    let x: Vec<f64> = dev
        .intervals
        .iter()
        .enumerate()
        .map(|(i, iv)| at(i, &iv.time))
        .collect();
    let service: Vec<f64> = dev
        .intervals
        .iter()
        .map(|i| i.service_ms.unwrap_or(f64::NAN))
        .collect();
    let queue: Vec<f64> = dev
        .intervals
        .iter()
        .map(|i| i.queue_ms.unwrap_or(f64::NAN))
        .collect();
    let mut p = Plot::new(
        format!(
            "{name}: response time = service time + queue time{}",
            label.map_or(String::new(), |l| format!(" — {l}"))
        ),
        Axis::new(
            "seconds since the log's first interval",
            Scale::Linear,
            Fmt::Plain,
        ),
        Axis::new("ms per I/O", Scale::Linear, Fmt::Plain),
    );
    push_split_bands(&mut p, &x, &service, &queue);
    p.series.push(response_series(dev, &x));
    p.columns = interval_columns(dev, &x);
    p.note = service_note(dev);
    plot(&p)
}

/// The two stacked bands of 004 Figure 10: service time from zero, queue time on top of it.
fn push_split_bands(p: &mut Plot, x: &[f64], service: &[f64], queue: &[f64]) {
    p.bands.push(Band {
        name: "service time".into(),
        colour: 0,
        x: x.to_vec(),
        low: vec![0.0; x.len()],
        high: service.to_vec(),
    });
    p.bands.push(Band {
        name: "queue time".into(),
        colour: 1,
        x: x.to_vec(),
        low: service.to_vec(),
        high: service.iter().zip(queue).map(|(s, q)| s + q).collect(),
    });
}

/// The measured response time drawn over the bands, so a gap between line and bands shows.
fn response_series(dev: &DeviceDiagnosis, x: &[f64]) -> Series {
    Series::line(
        "response time",
        dev.intervals
            .iter()
            .zip(x)
            .map(|(iv, x)| (*x, iv.response_ms.unwrap_or(f64::NAN)))
            .collect(),
        dev.intervals
            .iter()
            .map(|iv| format!("{}: response {} ms", iv.time, opt(iv.response_ms, 3)))
            .collect(),
        7,
    )
}

/// One hover text per interval with all its figures and verdict, placed at its time.
fn interval_columns(dev: &DeviceDiagnosis, x: &[f64]) -> Vec<(f64, String)> {
    dev.intervals
        .iter()
        .zip(x)
        .map(|(iv, x)| {
            (
                *x,
                format!(
                    "{}: response {} ms = service {} + queue {} ms; {} % busy, {:.1} IOPS; {}",
                    iv.time,
                    opt(iv.response_ms, 3),
                    opt(iv.service_ms, 3),
                    opt(iv.queue_ms, 3),
                    opt(iv.utilization_pct, 1),
                    iv.iops,
                    iv.verdict.name()
                ),
            )
        })
        .collect()
}

/// The note under the chart: where the service time came from, or why there is none.
fn service_note(dev: &DeviceDiagnosis) -> String {
    if dev.service_ms.is_some() {
        format!(
            "Service time from {}; queue time = response time − service time.",
            dev.service_source
        )
    } else {
        "No service time: a parallel device (SSD, NVMe, RAID) without `monitor --trace` has none, so only its response time is drawn.".into()
    }
}

fn verdict(out: &mut String, dev: &DeviceDiagnosis, label: Option<&String>) {
    let _ = writeln!(
        out,
        "<div class=\"verdict\"><b>{}{}: {}</b> — {}</div>",
        esc(&dev.device),
        label.map_or(String::new(), |l| format!(" ({})", esc(l))),
        esc(dev.verdict.name()),
        esc(words::rule(dev.verdict))
    );
    if !dev.evidence.is_empty() {
        let rows: Vec<Vec<String>> = dev
            .evidence
            .iter()
            .map(|e| {
                vec![
                    e.finding.figure().name().to_string(),
                    format!("{:.3}", e.finding.value()),
                    words::evidence(e),
                ]
            })
            .collect();
        out.push_str(
            &table(&["figure", "value", "evidence"], &rows)
                .replace("<td>", "<td class=\"l\">")
                .replace("<th>", "<th class=\"l\">"),
        );
    }
    let advice = words::advice(dev.verdict);
    if !advice.is_empty() {
        out.push_str("<ul class=\"advice\">\n");
        for a in advice {
            let _ = writeln!(out, "<li>{}</li>", esc(a));
        }
        out.push_str("</ul>\n");
    }
}

fn system(
    logs: &[(&Log, &String)],
    title: &str,
    y: &str,
    get: fn(&crate::model::log::SystemInterval) -> Option<f64>,
) -> String {
    let mut p = Plot::new(
        format!("System: {title}"),
        Axis::new(
            "seconds since the log's first interval",
            Scale::Linear,
            Fmt::Plain,
        ),
        Axis::new(y, Scale::Linear, Fmt::Plain),
    );
    for (k, (log, label)) in logs.iter().enumerate() {
        let at = clock(log.system.iter().map(|s| s.time.as_str()));
        let pts: Vec<(f64, f64)> = log
            .system
            .iter()
            .enumerate()
            .map(|(i, s)| (at(i, &s.time), get(s).unwrap_or(f64::NAN)))
            .collect();
        let tips = log
            .system
            .iter()
            .zip(&pts)
            .map(|(s, (_, v))| format!("{label}: {}: {v:.2}", s.time))
            .collect();
        let name = if logs.len() > 1 { label.as_str() } else { "" };
        p.series.push(Series::line(name, pts, tips, k));
    }
    plot(&p)
}

fn definitions() -> Vec<Definition> {
    vec![
        Definition {
            name: "utilization",
            text: "Share of the interval with at least one request in flight (iostat %util).",
            doc: "docs/monitor.md, section 'Monitor figures'",
        },
        Definition {
            name: "response time",
            text: "Mean time of a request from its start of accounting in the OS to its completion, ms (iostat await).",
            doc: "docs/monitor.md, section 'Monitor figures'",
        },
        Definition {
            name: "service time",
            text: "Time the device spends on one request: the Utilization Law U/X on a serial device, measured per request from block tracepoints with --trace, or a Little's-law estimate from sampled in-flight requests.",
            doc: "docs/monitor.md, section 'Monitor figures'",
        },
        Definition {
            name: "queue time",
            text: "Response time minus service time, clamped at 0.",
            doc: "docs/monitor.md, section 'Monitor figures'",
        },
        Definition {
            name: "verdict",
            text: "The seeds' rules (busy > 85 %, queue > 2 per disk, paging rules out memory, service time against expectation) applied per interval and to the whole log.",
            doc: "docs/monitor.md, section 'Diagnose rules'",
        },
    ]
}

impl super::Drawn for crate::model::MonitorDocument {
    fn describe(&self, _: &str) -> String {
        self.log.path.clone()
    }

    fn origin(&self) -> super::Origin {
        let first = (self.log.disks.first()).map_or(String::new(), |d| d.time.clone());
        let last = (self.log.disks.last()).map_or(String::new(), |d| d.time.clone());
        super::Origin {
            host: super::none(),
            kernel: super::none(),
            version: super::none(),
            command: format!("{} log", self.log.format),
            date: format!("{first} … {last}"),
        }
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}

impl super::Drawn for crate::model::diagnosis::Diagnosis {
    fn describe(&self, path: &str) -> String {
        let paths: Vec<&str> = self.inputs.iter().map(|i| i.path.as_str()).collect();
        if paths.is_empty() {
            path.to_string()
        } else {
            paths.join(", ")
        }
    }

    fn origin(&self) -> super::Origin {
        super::Origin {
            host: super::none(),
            kernel: super::none(),
            version: super::none(),
            command: "halfpower diagnose".into(),
            date: super::none(),
        }
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}

impl super::Drawn for crate::model::capture::CaptureReport {
    fn describe(&self, _: &str) -> String {
        format!("capture of {}", self.device)
    }

    fn origin(&self) -> super::Origin {
        super::Origin::of(&self.host, &self.header)
    }

    fn section(inputs: &[Input], labels: &[String]) -> (String, Vec<Definition>) {
        section(inputs, labels)
    }
}
