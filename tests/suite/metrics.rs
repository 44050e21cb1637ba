//! `monitor --listen` as a scraper and a stranger meet it: the page passes `promtool check
//! metrics`, OpenMetrics when asked, 404 for any other path, a client that never sends holds
//! up neither the next scrape nor the monitor, and a busy or bad address is refused with exit
//! 2 before anything is measured.

use crate::common;
use common::prometheus::{http_get, promtool, spawn_listening};
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Each device's (reads, writes) completed, as /proc/diskstats says now.
fn diskstats() -> std::collections::HashMap<String, (u64, u64)> {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((
                f.get(2)?.to_string(),
                (f.get(3)?.parse().ok()?, f.get(7)?.parse().ok()?),
            ))
        })
        .collect()
}

#[test]
fn the_endpoint_serves_metrics_and_nothing_else() {
    const INTERVALS: usize = 60;
    // Never beside `capture`'s test, whose tracefs instance it would find.
    let _turn = common::measuring();
    let before = diskstats();
    // 60 intervals (12 s): the monitor must outlive every step below, whose time is the host's
    // (flushes, promtool, two more processes); at 25 (5 s) a loaded host once saw it exit
    // before the last request, which the kernel then reset.
    let (child, addr) = spawn_listening(&[
        "monitor",
        "--interval",
        "200ms",
        "--count",
        &INTERVALS.to_string(),
        "--trace",
        "--listen",
        "0",
    ]);
    // monitor took its counters' base between `before` and `started` (it says its address
    // once it serves, after taking them).
    let started = diskstats();
    assert!(
        addr.ip().is_loopback(),
        "a bare port binds loopback: {addr}"
    );
    // Writes of the test's own, so a disk moves: a file beside the build, flushed every
    // 100 ms until the scrape, so the latest interval (200 ms), whose devices the page names,
    // holds some whenever monitor's first snapshot came (the tracer's start may delay it).
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut f = std::fs::File::create(dir.path().join("w")).unwrap();
    for _ in 0..10 {
        f.write_all(&vec![7u8; 128 << 10]).unwrap();
        f.sync_all().unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    let at_scrape = diskstats();
    let (status, page) = http_get(addr, "/metrics", "");
    let after = diskstats();
    assert_eq!(status, 200);
    // Each device's counters are the kernel's since monitor started: between what the kernel
    // counted from the latest possible base to the scrape, and from the earliest to after it.
    let mut writes_seen = false;
    for (name, (r0, w0)) in &before {
        let value = |metric: &str| {
            let series = format!("{metric}{{device=\"{name}\"}} ");
            (page.lines().find_map(|l| l.strip_prefix(series.as_str())))
                .map(|v| v.parse::<f64>().unwrap() as u64)
        };
        let (Some(reads), Some(writes)) = (
            value("halfpower_device_reads_total"),
            value("halfpower_device_writes_total"),
        ) else {
            continue;
        };
        let (r1, w1) = started[name];
        let (r2, w2) = at_scrape[name];
        let (r3, w3) = after[name];
        assert!(
            (r2 - r1..=r3 - r0).contains(&reads),
            "{name}: reads {reads}, the kernel's {}..={}",
            r2 - r1,
            r3 - r0
        );
        assert!(
            (w2 - w1..=w3 - w0).contains(&writes),
            "{name}: writes {writes}, the kernel's {}..={}",
            w2 - w1,
            w3 - w0
        );
        writes_seen |= w2 > w1;
    }
    assert!(
        writes_seen,
        "no disk the page counts took the test's writes:\n{page}"
    );
    assert!(
        page.contains("# TYPE halfpower_host_steal_ratio gauge"),
        "{page}"
    );
    // The test's flushed writes were traced: a device has both histograms.
    assert!(
        page.lines()
            .any(|l| l.starts_with("halfpower_trace_device_seconds_count{"))
            && page.contains("# TYPE halfpower_trace_os_queue_seconds histogram"),
        "{page}"
    );
    let (ok, said) = promtool(&page);
    assert!(ok, "promtool: {said}\n{page}");
    let (status, om) = http_get(
        addr,
        "/metrics",
        "Accept: application/openmetrics-text; version=1.0.0\r\n",
    );
    assert_eq!(status, 200);
    assert!(om.ends_with("# EOF\n"), "{om}");
    assert_eq!(http_get(addr, "/", "").0, 404);
    assert_eq!(http_get(addr, "/metrics/../x", "").0, 404);
    // A client that connects and never sends: the next scrape is answered at once.
    let silent = TcpStream::connect(addr).unwrap();
    let t = Instant::now();
    let (status, _) = http_get(addr, "/metrics", "");
    assert_eq!(status, 200);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    // A port in use, while this one serves: exit 2, one line naming the option and value.
    let busy = format!("127.0.0.1:{}", addr.port());
    let err2 = common::usage_error(&["monitor", "--count", "1", "--listen", &busy]);
    assert!(
        err2.contains(&format!("invalid --listen '{busy}'")) && err2.lines().count() == 1,
        "{err2}"
    );
    drop(silent);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    // The monitor went on through all of it: every interval printed.
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches(" cpu usr ").count(), INTERVALS, "{text}");
    for bad in ["localhost:9100", "70000", "1.2.3.4"] {
        let e = common::usage_error(&["monitor", "--count", "1", "--listen", bad]);
        assert!(
            e.contains(&format!("'{bad}'")) && e.contains("ADDR:PORT"),
            "{e}"
        );
    }
}

/// Whether `a` and `b` are one figure: equal but for the last bit, which serde_json's float
/// parser (without its `float_roundtrip` feature) may miss by one ulp.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// The value of the sample `series` (name and labels as written) in a textfile page.
fn sample(page: &str, series: &str) -> f64 {
    let line = page
        .lines()
        .find(|l| l.starts_with(series) && l[series.len()..].starts_with(' '))
        .unwrap_or_else(|| panic!("no '{series}' in\n{page}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Issue 49: `--prom PATH` writes the result's figures for node_exporter's textfile collector:
/// `promtool check metrics` passes on each, each figure is the JSON's own in base units, an
/// existing file is replaced (each batch run replaces its file), and a name not ending in
/// `.prom` is refused before anything runs.
#[test]
fn batch_results_go_to_a_textfile_the_collector_reads() {
    // Its runs keep the CPUs busy (the null engine, quick's eight tests): no timing test beside.
    let _turn = common::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let at = |name: &str| d.join(name).to_str().unwrap().to_string();
    let prom = at("run.prom");
    std::fs::write(&prom, "old\n").unwrap();
    let run = common::run_json(&[
        "run", "null", "--engine", "null", "--rw", "randrw", "--time", "200ms", "--warmup", "0",
        "--prom", &prom,
    ]);
    let page = std::fs::read_to_string(&prom).unwrap();
    let (ok, said) = promtool(&page);
    assert!(ok, "{said}\n{page}");
    let total = &run["results"]["total"];
    let all = "{target=\"all\",direction=\"total\"";
    let iops = sample(&page, &format!("halfpower_run_iops{all}}}"));
    assert!(same(iops, total["iops"].as_f64().unwrap()), "{iops}");
    let p99 = sample(
        &page,
        &format!("halfpower_run_latency_seconds{all},quantile=\"0.99\"}}"),
    );
    assert!((p99 * 1e6 - total["latency_us"]["p99"].as_f64().unwrap()).abs() < 1e-9);
    assert_eq!(
        sample(
            &page,
            &format!("halfpower_run_latency_seconds_count{all}}}")
        ),
        total["ios"].as_f64().unwrap()
    );
    let qprom = at("quick.prom");
    let quick = common::stdout_json(&[
        "quick",
        d.to_str().unwrap(),
        "--size",
        "8m",
        "--time",
        "100ms",
        "--warmup",
        "0",
        "--quiet",
        "--prom",
        &qprom,
        "--json",
        "-",
    ]);
    let page = std::fs::read_to_string(&qprom).unwrap();
    let (ok, said) = promtool(&page);
    assert!(ok, "{said}\n{page}");
    for t in quick["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let dir = t["direction"].as_str().unwrap();
        let series =
            format!("halfpower_quick_bytes_per_second{{test=\"{name}\",direction=\"{dir}\"}}");
        let v = sample(&page, &series);
        assert!(
            same(v, t["results"]["total"]["bytes_per_s"].as_f64().unwrap()),
            "{series} {v}"
        );
    }
    let saved = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report/sweep.json"
    );
    let sprom = at("sweep.prom");
    let sweep = common::stdout_json(&["sweep", "--from", saved, "--prom", &sprom, "--json", "-"]);
    let page = std::fs::read_to_string(&sprom).unwrap();
    let (ok, said) = promtool(&page);
    assert!(ok, "{said}\n{page}");
    let a = &sweep["analysis"][0];
    let series = format!(
        "halfpower_sweep_peak_bytes_per_second{{rw=\"{}\",threads=\"{}\"}}",
        a["rw"].as_str().unwrap(),
        a["threads"]
    );
    let peak = sample(&page, &series);
    assert!(
        same(peak, a["peak_bytes_per_s"].as_f64().unwrap()),
        "{peak}"
    );
    let err = common::usage_error(&[
        "run",
        "null",
        "--engine",
        "null",
        "--time",
        "100ms",
        "--prom",
        &at("run.txt"),
    ]);
    assert!(
        err.contains("invalid --prom") && err.contains(".prom"),
        "{err}"
    );
    assert!(!d.join("run.txt").exists());
}
