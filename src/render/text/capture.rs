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
        c.trace.as_ref().map_or(String::new(), |t| format!(
            ": {} requests written to {t} ({})",
            s.requests + s.flushes + s.discards,
            match c.format {
                TraceFormat::Halfpower => "halfpower's format",
                TraceFormat::FioV2 | TraceFormat::FioV3 => "fio's iolog v3",
            }
        )),
    );
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
    out
}
