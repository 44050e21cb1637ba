//! Reads halfpower's own monitor logs, CSV or JSON lines, back into intervals.

use super::{csv_records, data_rows};
use crate::model::log::{DiskInterval, Log, LogFormat, SystemInterval};
use crate::model::monitor::{MONITOR_SCHEMA_VERSION, SYSTEM_DEVICE};
use crate::model::warning::LineProblem;
use crate::model::{DeviceClass, ServiceMethod, Serving};
use serde_json::{Map, Value};

/// Parses a monitor JSON-lines log.
pub fn parse_jsonl(path: &str, text: &str) -> Log {
    let mut log = Log {
        path: path.to_string(),
        format: LogFormat::MonitorJsonl,
        ..Default::default()
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => add_record(&mut log, i + 1, &m),
            Ok(_) => log.warn(i + 1, LineProblem::NotAnObject),
            Err(e) => log.warn(i + 1, LineProblem::MalformedJson(e.to_string())),
        }
    }
    log
}

/// Parses a monitor CSV log (header line first).
pub fn parse_csv(path: &str, text: &str) -> Log {
    let mut log = Log {
        path: path.to_string(),
        format: LogFormat::MonitorCsv,
        ..Default::default()
    };
    let mut records = csv_records(text).into_iter();
    let Some((_, Ok(header))) = records.next() else {
        return log;
    };
    for (line, cells) in data_rows(&mut log, records, header.len()) {
        let m: Map<String, Value> = header
            .iter()
            .zip(cells)
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| {
                let val = match v.parse::<f64>() {
                    Ok(f) if k != "device" && k != "time" => {
                        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
                    }
                    _ if v == "true" || v == "false" => Value::Bool(v == "true"),
                    _ if k == "flags" => {
                        Value::Array(v.split(';').map(|s| Value::String(s.into())).collect())
                    }
                    _ => Value::String(v),
                };
                (k.clone(), val)
            })
            .collect();
        add_record(&mut log, line, &m);
    }
    log
}

/// A finite number at key `k` of record `m`.
fn num(m: &Map<String, Value>, k: &str) -> Option<f64> {
    m.get(k).and_then(Value::as_f64).filter(|f| f.is_finite())
}

/// The value at key `k` of record `m` read as a `T`, when it reads.
fn parse<T: serde::de::DeserializeOwned>(m: &Map<String, Value>, k: &str) -> Option<T> {
    m.get(k)
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// Adds record `m`, read from `line`, to `log` as a system or a disk interval, or warns why
/// it cannot.
fn add_record(log: &mut Log, line: usize, m: &Map<String, Value>) {
    let text = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(problem) = schema_problem(m) {
        log.warn(line, problem);
        return;
    }
    let (Some(device), Some(time)) = (text("device"), text("time")) else {
        log.warn(line, LineProblem::NoDeviceOrTime);
        return;
    };
    let interval = num(m, "interval_s");
    if interval.is_none_or(|s| s <= 0.0) {
        log.warn(line, LineProblem::NoInterval);
        return;
    }
    // `host:_system` in a log of several hosts (`monitor` under MPI).
    let host = (device.strip_suffix(SYSTEM_DEVICE))
        .and_then(|h| h.strip_suffix(':'))
        .filter(|h| !h.is_empty())
        .map(str::to_string);
    if device == SYSTEM_DEVICE || host.is_some() {
        log.system.push(system_interval(m, host, time));
        return;
    }
    match disk_interval(m, device, time, interval) {
        Ok(d) => log.disks.push(d),
        Err(problem) => log.warn(line, problem),
    }
}

/// Why record `m`'s schema version cannot be read here (none, or a newer one), if it cannot.
fn schema_problem(m: &Map<String, Value>) -> Option<LineProblem> {
    match num(m, "schema_version") {
        Some(v) if v as u32 <= MONITOR_SCHEMA_VERSION && v >= 1.0 => None,
        Some(v) => Some(LineProblem::NewerSchema {
            version: v,
            supported: MONITOR_SCHEMA_VERSION,
        }),
        None => Some(LineProblem::NoSchemaVersion),
    }
}

/// The system interval of record `m` (of `host` in a log of several hosts).
fn system_interval(m: &Map<String, Value>, host: Option<String>, time: String) -> SystemInterval {
    let num = |k: &str| num(m, k);
    let pct = |k: &str| num(k).unwrap_or(0.0);
    let cpu = num("cpu_idle_pct").map(|idle| 100.0 - idle - pct("cpu_iowait_pct"));
    let paging = match (num("swap_in_pages_s"), num("swap_out_pages_s")) {
        (Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
    SystemInterval {
        host,
        time,
        paging_s: paging,
        cpu_pct: cpu,
        interrupt_pct: num("cpu_irq_pct").map(|i| i + pct("cpu_softirq_pct")),
    }
}

/// The disk interval of record `m` for `device`, or the problem when it has no rates.
fn disk_interval(
    m: &Map<String, Value>,
    device: String,
    time: String,
    interval: Option<f64>,
) -> Result<DiskInterval, LineProblem> {
    let num = |k: &str| num(m, k);
    let (Some(r_s), Some(w_s)) = (num("r_s"), num("w_s")) else {
        return Err(LineProblem::NoRecordRates(device));
    };
    let source: Option<ServiceMethod> = parse(m, "service_source");
    // Version 2 records `serving`. Version 1 had a `serial` bool set from the first intervals'
    // in-flight samples, which could call a parallel device serial: it is ignored, and
    // `analysis::device` derives the service from the class (which version 1 also recorded).
    let serving: Serving = parse(m, "serving").unwrap_or_default();
    let class: Option<DeviceClass> = parse(m, "class");
    Ok(DiskInterval {
        time,
        interval_s: interval,
        device,
        class,
        disks: num("disks").map_or(1, |d| d.max(1.0) as u32),
        r_s,
        w_s,
        d_s: num("d_s").unwrap_or(0.0),
        r_bytes_s: num("r_bytes_s"),
        w_bytes_s: num("w_bytes_s"),
        response_ms: num("response_ms"),
        util_pct: num("util_pct"),
        queue_length: num("aqu_sz"),
        service_ms: num("service_ms"),
        service_source: source,
        split_io_s: None,
        serving,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::monitor::{DeviceRecord, Flag, Record, SystemRecord};
    use crate::render::csv::{monitor_header as csv_header, monitor_row as csv_row};

    fn records() -> Vec<Record> {
        vec![
            Record::Device(Box::new(DeviceRecord {
                schema_version: 2,
                time: "2026-11-21T10:00:01.000Z".into(),
                interval_s: 1.0,
                device: "sda".into(),
                class: DeviceClass::Hdd,
                disks: 1,
                r_s: 100.0,
                util_pct: 80.0,
                response_ms: 20.0,
                aqu_sz: 2.0,
                service_ms: Some(8.0),
                queue_ms: Some(12.0),
                service_source: ServiceMethod::UtilizationLaw,
                serving: Serving::Serial,
                flags: vec![Flag::Busy],
                ..Default::default()
            })),
            Record::System(Box::new(SystemRecord {
                schema_version: 2,
                time: "2026-11-21T10:00:01.000Z".into(),
                interval_s: 1.0,
                device: "_system".into(),
                cpu_idle_pct: 70.0,
                cpu_iowait_pct: 10.0,
                swap_in_pages_s: 3.0,
                swap_out_pages_s: 4.0,
                ..Default::default()
            })),
        ]
    }

    #[test]
    fn csv_and_jsonl_read_back_the_same() {
        let recs = records();
        let csv = std::iter::once(csv_header())
            .chain(recs.iter().map(csv_row))
            .collect::<Vec<_>>()
            .join("\n");
        let jsonl = recs
            .iter()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let a = parse_csv("m.csv", &csv);
        let b = parse_jsonl("m.jsonl", &jsonl);
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        assert!(b.warnings.is_empty(), "{:?}", b.warnings);
        assert_eq!(a.disks, b.disks);
        assert_eq!(a.system, b.system);
        let d = &a.disks[0];
        assert_eq!(
            (d.device.as_str(), d.r_s, d.service_ms),
            ("sda", 100.0, Some(8.0))
        );
        assert_eq!(d.serving, Serving::Serial);
        assert_eq!(d.class, Some(DeviceClass::Hdd));
        assert_eq!(a.system[0].paging_s, Some(7.0));
        assert_eq!(a.system[0].cpu_pct, Some(20.0));
    }

    #[test]
    fn bad_lines_are_skipped_with_file_and_line() {
        let text = "{\"schema_version\":1,\"time\":\"t\",\"interval_s\":1,\"device\":\"sda\",\"r_s\":1,\"w_s\":0}\n{\"schema_version\":1,\"ti\n[1]\n{\"schema_version\":1,\"time\":\"t\",\"interval_s\":0,\"device\":\"sda\",\"r_s\":1,\"w_s\":0}\n{\"schema_version\":99,\"time\":\"t\",\"interval_s\":1,\"device\":\"sda\"}\n";
        let log = parse_jsonl("x.jsonl", text);
        assert_eq!(log.disks.len(), 1);
        assert_eq!(log.warnings.len(), 4, "{:?}", log.warnings);
        assert!(
            log.warnings[0]
                .to_string()
                .starts_with("x.jsonl:2: malformed JSON")
        );
        assert!(log.warnings[2].to_string().contains("zero-length"));
        assert!(log.warnings[3].to_string().contains("newer"));
        let csv = format!("{}\nshort,row\n", csv_header());
        let log = parse_csv("x.csv", &csv);
        assert!(
            log.warnings[0].to_string().starts_with("x.csv:2:"),
            "{:?}",
            log.warnings
        );
    }
}
