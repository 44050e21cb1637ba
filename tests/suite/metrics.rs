//! `monitor --listen` as a scraper and a stranger meet it: the page passes `promtool check
//! metrics`, OpenMetrics when asked, 404 for any other path, a client that never sends holds
//! up neither the next scrape nor the monitor, and a busy or bad address is refused with exit
//! 2 before anything is measured.

use crate::common;
use common::prometheus::http_get;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `promtool check metrics` on `page`: its exit status and what it said.
fn promtool(page: &str) -> (bool, String) {
    if !common::have("promtool", "--version") {
        common::unavailable("promtool (Debian's prometheus package)");
        return (true, String::new());
    }
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

#[test]
fn the_endpoint_serves_metrics_and_nothing_else() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_halfpower"))
        .args([
            "monitor",
            "--interval",
            "200ms",
            "--count",
            "25",
            "--listen",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in '{line}'"));
    assert!(
        addr.ip().is_loopback(),
        "a bare port binds loopback: {addr}"
    );
    // The first interval published (200 ms), the page has the host's figures.
    std::thread::sleep(Duration::from_millis(700));
    let (status, page) = http_get(addr, "/metrics", "");
    assert_eq!(status, 200);
    assert!(
        page.contains("# TYPE halfpower_host_steal_ratio gauge"),
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
    assert_eq!(text.matches(" cpu usr ").count(), 25, "{text}");
    for bad in ["localhost:9100", "70000", "1.2.3.4"] {
        let e = common::usage_error(&["monitor", "--count", "1", "--listen", bad]);
        assert!(
            e.contains(&format!("'{bad}'")) && e.contains("ADDR:PORT"),
            "{e}"
        );
    }
}
