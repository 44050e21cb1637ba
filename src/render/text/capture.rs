//! The capture's summary in words and figures.

use crate::access::replay::TraceFormat;
use crate::model::capture::CaptureReport;
use crate::units::fmt_latency_ns;
use std::fmt::Write;

/// Renders a capture report.
pub fn capture_text(c: &CaptureReport) -> String {
    let s = &c.summary;
    let us = |v: f64| fmt_latency_ns(v * 1e3);
    let mut out = format!(
        "capture of {} for {:.2} s{}\n",
        c.device,
        c.seconds,
        c.trace.as_ref().map_or(
            ": no trace written (-o PATH writes one)".to_string(),
            |t| format!(
                ": {} requests written to {t} ({})",
                s.requests + s.flushes + s.discards,
                match c.format {
                    TraceFormat::Halfpower => "halfpower's format",
                    TraceFormat::FioV2 | TraceFormat::FioV3 => "fio's iolog v3",
                }
            )
        ),
    );
    if s.requests + s.flushes + s.discards == 0 {
        // No figure of an empty window: a mean of "0ns" would read as a fast device.
        out.push_str("  no requests: the device was idle while captured\n");
        cost_line(&mut out, c);
        return out;
    }
    let sizes: Vec<String> = s
        .sizes
        .iter()
        .map(|z| format!("{}/{:.1}%", crate::units::ByteSize(z.bytes), z.pct))
        .collect();
    let _ = writeln!(
        out,
        "  {} reads and writes: {:.1} IOPS ({:.1} over the {:.2} s from the first to the last), {:.2} MB/s, {:.1} % reads, sizes {}",
        s.requests,
        s.iops,
        s.span_iops,
        s.span_s,
        s.bytes_per_s / 1e6,
        s.read_pct,
        sizes.join(" ")
    );
    let _ = writeln!(
        out,
        "  {:.1} % sequential; busiest 100 ms {:.2}× the mean; in flight mean {:.2}, max {}; {} flushes, {} discards",
        s.sequential_pct,
        s.peak_to_mean_100ms,
        s.inflight_mean,
        s.inflight_max,
        s.flushes,
        s.discards
    );
    let _ = writeln!(
        out,
        "  response time (block layer to completion) mean {}, p50 {}, p99 {}, max {}; at the device mean {}, p99 {}",
        us(s.latency_us.mean),
        us(s.latency_us.p50),
        us(s.latency_us.p99),
        us(s.latency_us.max),
        us(s.device_us.mean),
        us(s.device_us.p99),
    );
    cost_line(&mut out, c);
    out
}

/// What the capture cost, and what the tracer lost.
fn cost_line(out: &mut String, c: &CaptureReport) {
    let _ = writeln!(
        out,
        "  cost: halfpower {:.2} % of one CPU, {} events read, {} lost by the tracer{}",
        c.overhead.cpu_pct,
        c.overhead.events,
        c.overhead.lost_events,
        if c.overhead.lost_events > 0 {
            " (requests are missing from the trace)"
        } else {
            ""
        }
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Header, Kind};

    fn report(trace: Option<&str>, requests: u64) -> CaptureReport {
        CaptureReport {
            header: Header::new(Kind::Capture, vec![], String::new()),
            host: crate::oscounters::host::read(),
            device: "/dev/vda".into(),
            seconds: 3.0,
            trace: trace.map(Into::into),
            format: TraceFormat::Halfpower,
            summary: crate::model::capture::CaptureSummary {
                requests,
                ..Default::default()
            },
            overhead: Default::default(),
            interrupted: false,
            warnings: Vec::new(),
        }
    }

    /// Without -o it says no trace was written; an idle window says so, with no figures.
    #[test]
    fn an_idle_capture_without_a_trace_says_both() {
        let text = capture_text(&report(None, 0));
        assert!(text.starts_with("capture of /dev/vda for 3.00 s: no trace written (-o PATH"));
        assert!(text.contains("no requests: the device was idle"), "{text}");
        assert!(
            !text.contains("mean") && text.contains("cost: halfpower"),
            "{text}"
        );
        let text = capture_text(&report(Some("t.trace"), 12));
        assert!(text.contains(": 12 requests written to t.trace"), "{text}");
        assert!(
            text.contains("response time") && !text.contains("no requests"),
            "{text}"
        );
    }
}
