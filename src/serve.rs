//! The `/metrics` endpoint of `monitor --listen`: a small HTTP/1.1 server on its own threads
//! that answers `GET /metrics` with the page its caller renders at each scrape, in Prometheus's
//! text format or, when the scraper's `Accept` asks for it, OpenMetrics.
//!
//! Written here rather than taken from a crate (tiny_http, hyper): it answers one path with one
//! page, and the safety rules are the whole of it — loopback unless told otherwise, nothing but
//! `GET`/`HEAD /metrics` (404 for any other path, 405 for any other method), a request read
//! within [`READ_TIMEOUT`] and at most [`MAX_REQUEST`] bytes, at most [`MAX_CONNECTIONS`] at once
//! (503 beyond), so that a slow or hostile client cannot stall the measurement, which never waits
//! on this server.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// How long a client has to send its request, and to take the answer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(2);
/// The largest request head read (a scrape's is a few hundred bytes).
pub const MAX_REQUEST: usize = 8192;
/// Connections served at once; more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 4;

/// Which exposition format a scraper asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Prometheus's text format, version 0.0.4.
    Text,
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
}

impl Format {
    /// The `Content-Type` of a page in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// Renders the page for one scrape.
pub type Render = Arc<dyn Fn(Format) -> String + Send + Sync>;

/// Parses `--listen`'s `[ADDR:]PORT`: a bare port is 127.0.0.1's; an address is taken only
/// when given (`0.0.0.0:9100`, `[::1]:9100`). Port 0 asks the kernel for a free port.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    let accepted = "PORT (on 127.0.0.1) or ADDR:PORT, e.g. 9100, 127.0.0.1:9100, [::1]:9100 \
                    or 0.0.0.0:9100";
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    match s.parse::<SocketAddr>() {
        Ok(a) => Ok(a),
        Err(_) => Err(format!("'{s}' is not {accepted}")),
    }
}

/// Serves `render`'s page on `addr` for `--listen`, saying where on stderr; an address that
/// cannot be bound (in use, not this host's, refused) is the user's to fix, exit 2, before
/// anything is measured.
pub fn listen(addr: SocketAddr, render: Render) -> crate::Result<Server> {
    let server = Server::start(addr, render).map_err(|e| {
        crate::Error::invalid(
            "--listen",
            addr,
            format!("an address and port this host lets halfpower bind: {e}"),
        )
    })?;
    crate::output::say!(
        "halfpower: serving metrics at http://{}/metrics",
        server.addr()
    );
    Ok(server)
}

/// The server: its address, and a flag its threads read to stop.
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Binds `addr` and serves `render`'s page from a thread of its own.
    pub fn start(addr: SocketAddr, render: Render) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::Builder::new()
            .name("hp-metrics".into())
            .spawn(move || accept(listener, render, flag))?;
        Ok(Server { addr, stop })
    }

    /// The address bound (the kernel's port when 0 was asked).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    /// Stops accepting: the flag, then a connection of its own to wake the blocked `accept`.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = (self.addr.to_socket_addrs().ok())
            .and_then(|mut a| a.next())
            .map(|a| TcpStream::connect_timeout(&a, Duration::from_millis(200)));
    }
}

fn accept(listener: TcpListener, render: Render, stop: Arc<AtomicBool>) {
    let open = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut conn) = conn else { continue };
        let _ = conn.set_read_timeout(Some(READ_TIMEOUT));
        let _ = conn.set_write_timeout(Some(READ_TIMEOUT));
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = respond(&mut conn, 503, "text/plain", "busy\n", false);
            continue;
        }
        let (render, mine) = (render.clone(), open.clone());
        let spawned = std::thread::Builder::new()
            .name("hp-metrics-conn".into())
            .spawn(move || {
                serve(conn, &render);
                mine.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// What a request asks for.
#[derive(Debug, PartialEq, Eq)]
enum Asked {
    /// The metrics, in a format; `head` for HEAD (no body).
    Metrics { format: Format, head: bool },
    /// Another path.
    NotFound,
    /// Another method.
    BadMethod,
    /// Not a request (or too long).
    Bad,
}

/// Reads one request head and answers it; the connection is closed after.
fn serve(mut conn: TcpStream, render: &Render) {
    let Some(head) = read_head(&mut conn) else {
        let _ = respond(&mut conn, 400, "text/plain", "bad request\n", false);
        return;
    };
    let _ = match asked(&head) {
        Asked::Metrics { format, head } => {
            respond(&mut conn, 200, format.content_type(), &render(format), head)
        }
        Asked::NotFound => respond(&mut conn, 404, "text/plain", "not found: /metrics\n", false),
        Asked::BadMethod => respond(&mut conn, 405, "text/plain", "GET only\n", false),
        Asked::Bad => respond(&mut conn, 400, "text/plain", "bad request\n", false),
    };
}

/// The request head (up to the blank line), or None on a time-out, an error or more than
/// [`MAX_REQUEST`] bytes.
fn read_head(conn: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && !buf.windows(2).any(|w| w == b"\n\n") {
        let n = conn.read(&mut chunk).ok()?;
        if n == 0 || buf.len() + n > MAX_REQUEST {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8(buf).ok()
}

fn asked(head: &str) -> Asked {
    let mut lines = head.lines();
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let (Some(method), Some(target)) = (first.next(), first.next()) else {
        return Asked::Bad;
    };
    let path = target.split('?').next().unwrap_or("");
    if path != "/metrics" {
        return Asked::NotFound;
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return Asked::BadMethod,
    };
    let open_metrics = lines.any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("accept") && v.contains("application/openmetrics-text")
        })
    });
    Asked::Metrics {
        format: if open_metrics {
            Format::OpenMetrics
        } else {
            Format::Text
        },
        head: head_only,
    }
}

fn respond(
    conn: &mut TcpStream,
    status: u16,
    content_type: &str,
    body: &str,
    head_only: bool,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Service Unavailable",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    if !head_only {
        out.push_str(body);
    }
    conn.write_all(out.as_bytes())?;
    conn.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_port_is_loopbacks_and_an_address_is_taken_as_given() {
        assert_eq!(parse_listen("9100").unwrap().to_string(), "127.0.0.1:9100");
        assert_eq!(parse_listen("0.0.0.0:9").unwrap().to_string(), "0.0.0.0:9");
        assert_eq!(parse_listen("[::1]:9").unwrap().to_string(), "[::1]:9");
        for bad in ["", "x", "70000", "localhost:9100", "1.2.3.4", ":9"] {
            let e = parse_listen(bad).unwrap_err();
            assert!(
                e.contains(&format!("'{bad}'")) && e.contains("ADDR:PORT"),
                "{e}"
            );
        }
    }

    #[test]
    fn only_get_or_head_of_metrics_is_served() {
        let om = "GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n";
        assert_eq!(
            asked(om),
            Asked::Metrics {
                format: Format::OpenMetrics,
                head: false
            }
        );
        assert_eq!(
            asked("HEAD /metrics?x=1 HTTP/1.0\r\n\r\n"),
            Asked::Metrics {
                format: Format::Text,
                head: true
            }
        );
        assert_eq!(asked("GET / HTTP/1.1\r\n\r\n"), Asked::NotFound);
        assert_eq!(asked("GET /metrics/x HTTP/1.1\r\n\r\n"), Asked::NotFound);
        assert_eq!(asked("POST /metrics HTTP/1.1\r\n\r\n"), Asked::BadMethod);
        assert_eq!(asked("\r\n\r\n"), Asked::Bad);
    }

    /// A real connection: the page, a 404, and a client that never sends does not keep the
    /// next scrape waiting.
    #[test]
    fn it_answers_over_tcp_and_a_silent_client_holds_nothing() {
        let render: Render = Arc::new(|f| format!("# page {f:?}\n"));
        let s = Server::start(parse_listen("0").unwrap(), render).unwrap();
        let get = |req: &str| {
            let mut c = TcpStream::connect(s.addr()).unwrap();
            c.write_all(req.as_bytes()).unwrap();
            let mut out = String::new();
            c.read_to_string(&mut out).unwrap();
            out
        };
        let silent: Vec<TcpStream> = (0..MAX_CONNECTIONS - 1)
            .map(|_| TcpStream::connect(s.addr()).unwrap())
            .collect();
        let t = std::time::Instant::now();
        let page = get("GET /metrics HTTP/1.1\r\n\r\n");
        assert!(t.elapsed() < READ_TIMEOUT, "{:?}", t.elapsed());
        assert!(
            page.starts_with("HTTP/1.1 200") && page.ends_with("# page Text\n"),
            "{page}"
        );
        assert!(page.contains("text/plain; version=0.0.4"), "{page}");
        assert!(get("GET /x HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        drop(silent);
    }
}
