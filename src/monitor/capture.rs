//! `capture`'s recorder: the block tracepoints of one device matched into requests (start in
//! the block layer, issue to the driver, completion), each with its operation, flags, offset,
//! size and the two times. Requests already under way when the capture started (no start seen)
//! are left out; a flush without data is recorded when it is issued.

use super::tracepoints::{DevId, Event, Instance, TraceLine, parse_line};
use crate::model::capture::{CapturedOp, CapturedRequest};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Matches one device's events into requests.
#[derive(Debug, Default)]
pub struct Matcher {
    dev: DevId,
    /// Requests started, by start sector; several may share one sector (oldest first).
    started: HashMap<u64, VecDeque<TraceLine>>,
    issued: HashMap<u64, VecDeque<(TraceLine, u64)>>,
    /// Requests completed, times on the trace clock (ns).
    pub done: Vec<CapturedRequest>,
    /// Events of this device read.
    pub events: u64,
}

fn op_of(l: &TraceLine) -> Option<CapturedOp> {
    match (l.rwbs.op, l.sectors) {
        (b'R', s) if s > 0 => Some(CapturedOp::Read),
        (b'W', s) if s > 0 => Some(CapturedOp::Write),
        (b'D', _) => Some(CapturedOp::Discard),
        (b'F' | b'N', 0) => Some(CapturedOp::Flush),
        _ => None,
    }
}

impl Matcher {
    /// A matcher of device `dev`'s events.
    pub fn new(dev: DevId) -> Self {
        Matcher {
            dev,
            ..Matcher::default()
        }
    }

    /// Feeds one event.
    pub fn feed(&mut self, l: TraceLine) {
        if l.dev != self.dev {
            return;
        }
        self.events += 1;
        let Some(op) = op_of(&l) else {
            return;
        };
        if op == CapturedOp::Flush {
            if l.event == Event::Issue {
                self.done.push(request(&l, op, l.t_ns, l.t_ns, l.t_ns));
            }
            return;
        }
        match l.event {
            Event::Start => self.started.entry(l.sector).or_default().push_back(l),
            Event::Issue => {
                if let Some(s) = pop(&mut self.started, l.sector) {
                    self.issued
                        .entry(l.sector)
                        .or_default()
                        .push_back((s, l.t_ns));
                }
            }
            Event::Complete => {
                if let Some((s, issue)) = pop(&mut self.issued, l.sector) {
                    self.done.push(request(&s, op, s.t_ns, issue, l.t_ns));
                }
            }
        }
    }
}

/// The oldest entry at `sector`, removing the sector's queue once empty.
fn pop<T>(map: &mut HashMap<u64, VecDeque<T>>, sector: u64) -> Option<T> {
    let q = map.get_mut(&sector)?;
    let v = q.pop_front();
    if q.is_empty() {
        map.remove(&sector);
    }
    v
}

fn request(s: &TraceLine, op: CapturedOp, start: u64, issue: u64, end: u64) -> CapturedRequest {
    CapturedRequest {
        at_ns: start,
        op,
        offset: s.sector * 512,
        bytes: s.sectors * 512,
        fua: s.rwbs.fua,
        sync: s.rwbs.sync,
        queue_ns: issue.saturating_sub(start),
        device_ns: end.saturating_sub(issue),
    }
}

/// A capture under way: the tracefs instance feeding the matcher.
pub struct Capture {
    instance: Instance,
    matcher: Arc<Mutex<Matcher>>,
}

impl Capture {
    /// Starts capturing device `dev`.
    pub fn start(dev: DevId) -> crate::Result<Capture> {
        let matcher = Arc::new(Mutex::new(Matcher::new(dev)));
        let m = matcher.clone();
        let sink = Box::new(move |line: &str| {
            if let (Some(l), Ok(mut m)) = (parse_line(line), m.lock()) {
                m.feed(l);
            }
        });
        Ok(Capture {
            instance: Instance::start(32768, sink)?,
            matcher,
        })
    }

    /// Stops: the requests completed (sorted by start, times from the first one's start), the
    /// events read and the events the tracer lost.
    pub fn finish(mut self) -> (Vec<CapturedRequest>, u64, u64) {
        self.instance.finish();
        let lost = self.instance.lost();
        let mut m = self.matcher.lock().unwrap_or_else(|p| p.into_inner());
        let mut done = std::mem::take(&mut m.done);
        done.sort_by_key(|r| r.at_ns);
        let t0 = done.first().map_or(0, |r| r.at_ns);
        for r in &mut done {
            r.at_ns -= t0;
        }
        (done, m.events, lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_match_into_requests_of_one_device() {
        let lines = "\
 fio-1 [000] ..... 100.000000: block_io_start: 7,0 WS 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000010: block_rq_issue: 7,0 WS 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000020: block_io_start: 7,1 R 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000030: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [fio]
 <idle>-0 [000] ..s1. 100.000110: block_rq_complete: 7,0 WS () 8 + 8 be,0,4 [0]
 <idle>-0 [000] ..s1. 100.000200: block_rq_complete: 7,0 R () 64 + 8 be,0,4 [0]
 fio-1 [000] ..... 100.000300: block_io_start: 7,0 R 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000310: block_io_start: 7,0 R 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000320: block_rq_issue: 7,0 R 4096 () 8 + 8 be,0,4 [fio]
 fio-1 [000] ..... 100.000330: block_rq_issue: 7,0 R 4096 () 8 + 8 be,0,4 [fio]
 <idle>-0 [000] ..s1. 100.000400: block_rq_complete: 7,0 R () 8 + 8 be,0,4 [0]
 <idle>-0 [000] ..s1. 100.000500: block_rq_complete: 7,0 R () 8 + 8 be,0,4 [0]
";
        let mut m = Matcher::new((7, 0));
        lines.lines().filter_map(parse_line).for_each(|l| m.feed(l));
        assert_eq!(m.done.len(), 4, "{:?}", m.done);
        // Two reads of one sector in flight at once: both kept, oldest matched first.
        assert_eq!(
            (m.done[2].at_ns, m.done[3].at_ns),
            (100_000_300_000, 100_000_310_000)
        );
        let flush = m.done[0];
        assert_eq!(flush.op, CapturedOp::Flush);
        let w = m.done[1];
        assert_eq!(
            (w.op, w.offset, w.bytes, w.sync),
            (CapturedOp::Write, 4096, 4096, true)
        );
        assert_eq!((w.queue_ns, w.device_ns), (10_000, 100_000));
        assert_eq!(m.events, 11, "the other device's event is not counted");
    }
}
