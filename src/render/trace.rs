//! Captured requests as trace files: halfpower's format (docs/replay.md) and fio's iolog
//! version 3 (times in µs from the start, the device's path on every line) so fio can replay it.

use crate::model::capture::{CapturedOp, CapturedRequest};
use std::fmt::Write;

/// halfpower's trace, version 1, with capture's extra fields: flags (`S` sync, `F` FUA, `-`
/// none), OS queue time and device time in µs.
pub fn halfpower(requests: &[CapturedRequest]) -> String {
    let mut out = String::with_capacity(requests.len() * 40 + 64);
    out.push_str("# halfpower trace v1\n# time_us dir offset bytes flags q_us d_us\n");
    for r in requests {
        let flags = match (r.sync, r.fua) {
            (true, true) => "SF",
            (true, false) => "S",
            (false, true) => "F",
            (false, false) => "-",
        };
        let _ = writeln!(
            out,
            "{:.3} {} {} {} {flags} {:.1} {:.1}",
            r.at_ns as f64 / 1e3,
            r.op.letter(),
            r.offset,
            r.bytes,
            r.queue_ns as f64 / 1e3,
            r.device_ns as f64 / 1e3,
        );
    }
    out
}

/// fio's iolog version 3 of `requests` on `file`: the file added and opened at 0, one line per
/// request (flushes as `sync`, discards as `trim`), closed after the last.
pub fn fio_v3(requests: &[CapturedRequest], file: &str) -> String {
    let mut out = String::with_capacity(requests.len() * 48 + 64);
    let _ = writeln!(out, "fio version 3 iolog\n0 {file} add\n0 {file} open");
    let mut last = 0;
    for r in requests {
        let us = r.at_ns / 1000;
        last = us;
        let _ = match r.op {
            CapturedOp::Read => writeln!(out, "{us} {file} read {} {}", r.offset, r.bytes),
            CapturedOp::Write => writeln!(out, "{us} {file} write {} {}", r.offset, r.bytes),
            CapturedOp::Discard => writeln!(out, "{us} {file} trim {} {}", r.offset, r.bytes),
            CapturedOp::Flush => writeln!(out, "{us} {file} sync 0 0"),
        };
    }
    let _ = writeln!(out, "{last} {file} close");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::trace::parse;

    #[test]
    fn both_formats_read_back_as_written() {
        let reqs = [
            CapturedRequest {
                at_ns: 0,
                op: CapturedOp::Read,
                offset: 4096,
                bytes: 4096,
                fua: false,
                sync: true,
                queue_ns: 1500,
                device_ns: 80_000,
            },
            CapturedRequest {
                at_ns: 2_500_000,
                op: CapturedOp::Write,
                offset: 1 << 20,
                bytes: 65536,
                fua: true,
                sync: true,
                queue_ns: 0,
                device_ns: 120_000,
            },
        ];
        for text in [halfpower(&reqs), fio_v3(&reqs, "/dev/loop7")] {
            let t = parse("t", &text).unwrap();
            assert_eq!(t.requests.len(), 2, "{text}");
            assert_eq!(t.requests[1].at_ns, Some(2_500_000));
            assert_eq!(t.requests[1].len, 65536);
            assert_eq!(t.requests[0].offset, 4096);
        }
    }
}
