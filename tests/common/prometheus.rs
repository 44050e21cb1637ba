//! A real Prometheus for the tests (Debian's package, installed by .ci/run): a private
//! instance scraping the given targets every second, its data in a temporary directory,
//! stopped on drop; and the few lines of HTTP the tests speak to it and to halfpower.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `GET path` (with `headers`) from `addr`: the status and the body.
pub fn http_get(addr: SocketAddr, path: &str, headers: &str) -> (u16, String) {
    let mut c = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        c,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |x| x.1).to_string();
    (status, body)
}

/// Starts halfpower with `args` (among them `--listen 0`), its stdout piped, and returns it
/// with the address it says on stderr that it serves; its stderr is drained from then on, so
/// it never blocks writing there.
pub fn spawn_listening(args: &[&str]) -> (Child, SocketAddr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_halfpower"));
    cmd.args(args);
    listening(cmd)
}

/// Starts `cmd` (halfpower with `--listen 0`, in a cgroup, say) as [`spawn_listening`] does.
pub fn listening(mut cmd: Command) -> (Child, SocketAddr) {
    use std::io::{BufRead, BufReader};
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in '{line}'"));
    std::thread::spawn(move || for _ in err.lines() {});
    (child, addr)
}

/// A query string's value, percent-encoded.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A free port on 127.0.0.1 (the kernel's, released for the caller to bind).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running Prometheus.
pub struct Prometheus {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    /// Starts Prometheus scraping `target` every second; `None` (test skipped, or failed in
    /// CI) where it is not installed.
    pub fn scraping(target: SocketAddr) -> Option<Prometheus> {
        if !super::have("prometheus", "--version") {
            super::unavailable("prometheus (Debian's package)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("p.yml");
        std::fs::write(
            &config,
            format!(
                "global: {{scrape_interval: 1s, scrape_timeout: 900ms}}\n\
                 scrape_configs:\n  - job_name: halfpower\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let p = Prometheus {
            child,
            addr,
            _dir: dir,
        };
        let t = Instant::now();
        while TcpStream::connect(addr).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "prometheus did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(p)
    }

    /// The API's answer to `query` evaluated at `time` (Unix seconds): its `data.result`.
    pub fn query(&self, query: &str, time: f64) -> serde_json::Value {
        let path = format!("/api/v1/query?query={}&time={time:.3}", encode(query));
        let (status, body) = http_get(self.addr, &path, "");
        assert_eq!(status, 200, "{query}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        v["data"]["result"].clone()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `promtool check metrics` on `page`: its exit status and what it said.
pub fn promtool(page: &str) -> (bool, String) {
    if !super::have("promtool", "--version") {
        super::unavailable("promtool (Debian's prometheus package)");
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
