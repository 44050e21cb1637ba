//! The doctor in words: a table of checks per scope (host, each device, each mount), then for
//! each one not ok why it matters and the command that fixes it, and each price measured.

use super::table::{Table, words};
use crate::model::doctor::{
    Check, CheckKind, DoctorReport, Fix, Outcome, PriceFigure, Priced, Scope, Verdict,
};
use std::fmt::Write;

/// A check's name as the table shows it.
pub fn label(k: CheckKind) -> &'static str {
    match k {
        CheckKind::ClockSource => "clock source",
        CheckKind::CpuGovernor => "CPU governor",
        CheckKind::CpuIdle => "CPU idle",
        CheckKind::Smt => "SMT",
        CheckKind::Steal => "steal",
        CheckKind::CpuQuota => "CPU quota",
        CheckKind::Cpuset => "cpuset",
        CheckKind::TransparentHugepages => "huge pages",
        CheckKind::DirtyLimits => "dirty limit",
        CheckKind::Scheduler => "scheduler",
        CheckKind::Nomerges => "nomerges",
        CheckKind::Iostats => "iostats",
        CheckKind::RqAffinity => "rq_affinity",
        CheckKind::ReadAhead => "read_ahead_kb",
        CheckKind::NrRequests => "nr_requests",
        CheckKind::WriteCache => "write_cache",
        CheckKind::WritebackThrottling => "wbt_lat_usec",
        CheckKind::AddRandom => "add_random",
        CheckKind::MaxSectors => "max_sectors_kb",
        CheckKind::Rotational => "rotational",
        CheckKind::PollQueues => "io_poll",
        CheckKind::IrqAffinity => "IRQ affinity",
        CheckKind::NumaNode => "NUMA node",
        CheckKind::CgroupIo => "cgroup I/O cap",
        CheckKind::MountDiscard => "discard",
        CheckKind::MountAtime => "atime",
        CheckKind::MountJournal => "journal",
    }
}

/// Why a setting matters, in one sentence.
pub fn why(k: CheckKind) -> &'static str {
    match k {
        CheckKind::ClockSource => {
            "every I/O is stamped twice: a clock that costs a system call a read adds to each latency and caps the rate"
        }
        CheckKind::CpuGovernor => {
            "a governor other than performance clocks the CPU down between I/Os, so low-depth latencies measure the clock-up"
        }
        CheckKind::CpuIdle => {
            "a CPU in a deep idle state takes this long to wake for a completion, which a QD1 latency includes"
        }
        CheckKind::Smt => {
            "two workers on siblings of one core share its execution units, so CPU-bound figures halve"
        }
        CheckKind::Steal => {
            "the hypervisor ran other guests on these CPUs; each run's host section says how much of its own window was taken"
        }
        CheckKind::CpuQuota => {
            "the cgroup's CPU quota stops the workers for the rest of each period once spent: the rate is the quota's"
        }
        CheckKind::Cpuset => {
            "the workers may run only on these CPUs; fewer CPUs than workers share them"
        }
        CheckKind::TransparentHugepages => {
            "the I/O buffers ask for huge pages; without them each buffer is many 4 KiB pages to map and pin"
        }
        CheckKind::DirtyLimits => {
            "a buffered write run smaller than this limit is absorbed by memory, not written to the device"
        }
        CheckKind::Scheduler => {
            "a scheduler queues and reorders each request in software, a cost a fast device's figures include"
        }
        CheckKind::Nomerges => {
            "adjacent requests are no longer merged (2: not even tried), so sequential I/O reaches the device in more, smaller requests"
        }
        CheckKind::Iostats => {
            "the kernel's counters of this device stay empty, and with them the run's device figures"
        }
        CheckKind::RqAffinity => {
            "completions run on whichever CPU took the interrupt, away from the submitting worker's cache"
        }
        CheckKind::ReadAhead => "buffered sequential reads go to the device one request at a time",
        CheckKind::NrRequests => {
            "the queue holds at most this many requests at once: a deeper run waits in the kernel, and its depth is capped"
        }
        CheckKind::WriteCache => {
            "with write through the kernel sends no flushes: durable-write figures look better than the device with its cache"
        }
        CheckKind::WritebackThrottling => {
            "buffered writeback is throttled while reads wait, which lowers a buffered write run's rate"
        }
        CheckKind::AddRandom => "each completion feeds the entropy pool, a small cost per I/O",
        CheckKind::MaxSectors => {
            "a request larger than this is split into several before the device sees it"
        }
        CheckKind::Rotational => {
            "the kernel treats the device as a spinning disk (writeback throttling targets, scheduler choices)"
        }
        CheckKind::PollQueues => "polled completion; halfpower never asks for it, fio's hipri does",
        CheckKind::IrqAffinity => {
            "a completion interrupt on another CPU than the worker that submitted the request wakes that worker across CPUs, microseconds a request at QD1"
        }
        CheckKind::NumaNode => {
            "workers on another node than the device reach its memory and its interrupts across the interconnect, a cost in every request"
        }
        CheckKind::CgroupIo => {
            "this process's cgroup caps the device: a figure at the cap is the cap's, not the device's"
        }
        CheckKind::MountDiscard => {
            "deletes and truncates send a discard inline, which slows them and what runs beside them"
        }
        CheckKind::MountAtime => "each buffered read writes the inode's access time",
        CheckKind::MountJournal => {
            "this mount writes data twice, synchronously, or without flushes: write figures are the mount's"
        }
    }
}

/// The fix as a command line.
pub fn fix(f: &Fix) -> String {
    match f {
        Fix::Write { files, value } => {
            let v = if value.contains(' ') {
                format!("'{value}'")
            } else {
                value.clone()
            };
            match files.as_slice() {
                [one] => format!("echo {v} > {one}"),
                many => format!("echo {v} | tee {}", many.join(" ")),
            }
        }
        Fix::Remount {
            mount_point,
            option,
        } => format!("mount -o remount,{option} {mount_point}"),
        Fix::Flag { flag, value } => format!("{flag} {value}"),
        Fix::Command(c) => c.clone(),
    }
}

/// What a check belongs to, as a reader names it.
pub fn scope(s: &Scope) -> String {
    match s {
        Scope::Host => "host".into(),
        Scope::Device { device } => device.clone(),
        Scope::Mount { mount_point } => mount_point.clone(),
    }
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "ok",
        Verdict::Info => "info",
        Verdict::Warn => "WARN",
    }
}

/// One finding in a sentence: what, where, why, and the fix.
pub fn finding(c: &Check) -> String {
    let value = c.value.as_deref().unwrap_or("?");
    let mut s = format!(
        "{} {} {value} ({}; wanted {}): {}",
        scope(&c.scope),
        label(c.kind),
        c.file,
        c.wanted,
        why(c.kind)
    );
    if let Some(f) = &c.fix {
        let _ = write!(s, "; fix: {}", fix(f));
    }
    s
}

/// A setting that bears on a run, as its warning says it: no depth, so a sweep says it once.
pub fn bearing(c: &Check) -> String {
    let mut s = format!(
        "{} {} is {} ({}): {}",
        scope(&c.scope),
        label(c.kind),
        c.value.as_deref().unwrap_or("?"),
        c.file,
        why(c.kind)
    );
    if let Some(f) = &c.fix {
        let _ = write!(s, "; fix: {}", fix(f));
    }
    s
}

/// A price in a line: `loop3 scheduler bfq: 0.62× the IOPS of none at QD32 (0.58–0.66)`.
pub fn priced(p: &Priced) -> String {
    let head = format!("{} {} {}", p.device, label(p.kind), p.as_found);
    match &p.outcome {
        Outcome::Measured(m) => {
            let figure = match m.figure {
                PriceFigure::Iops => "IOPS",
                PriceFigure::BytesPerS => "MB/s",
            };
            let mut s = format!(
                "{head}: {:.2}× the {figure} of {} at QD{} ({:.2}–{:.2})",
                m.ratio, p.wanted, m.depth, m.low, m.high
            );
            if !m.measurable() {
                s.push_str(": no measurable cost here");
            }
            s
        }
        Outcome::ReadsOnly => format!("{head}: not priced: the run only reads"),
        Outcome::Direct => format!("{head}: not priced: the run reads direct, not buffered"),
        Outcome::NotQueue => {
            format!(
                "{head}: not priced: not a queue file (a cgroup's cap: run's limits say if it binds)"
            )
        }
        Outcome::Interrupted => format!("{head}: not priced: interrupted"),
        Outcome::NoFigure => format!("{head}: not priced: a run measured no I/O"),
    }
}

/// The whole report.
pub fn doctor_text(r: &DoctorReport) -> String {
    let mut out = String::new();
    let a = &r.asked;
    let _ = writeln!(
        out,
        "doctor on {} for a run of {} B requests, {} in flight on {} worker(s){}",
        r.host.hostname,
        a.bs_bytes,
        a.depth,
        a.threads,
        if a.buffered { ", buffered" } else { "" }
    );
    for t in &r.targets {
        let _ = writeln!(out, "target {}: {}", t.target, t.devices.join(" → "));
    }
    let mut scopes: Vec<&Scope> = Vec::new();
    for c in &r.checks {
        if !scopes.contains(&&c.scope) {
            scopes.push(&c.scope);
        }
    }
    for s in scopes {
        let _ = writeln!(out, "\n{}:", scope(s));
        let mut t = Table::new(vec![
            words("VERDICT", 5),
            words("CHECK", 15),
            words("VALUE", 22),
            words("WANTED", 24),
            words("FILE", 0),
        ])
        .indented(2);
        for c in r.checks.iter().filter(|c| &c.scope == s) {
            t.row(vec![
                verdict(c.verdict).to_string(),
                label(c.kind).to_string(),
                c.value.as_deref().unwrap_or("-").to_string(),
                c.wanted.clone(),
                c.file.clone(),
            ]);
        }
        out.push_str(&t.render());
    }
    let notes: Vec<&Check> = r
        .checks
        .iter()
        .filter(|c| c.verdict != Verdict::Ok)
        .collect();
    if !notes.is_empty() {
        out.push('\n');
    }
    for c in notes {
        let _ = writeln!(out, "{}: {}", verdict(c.verdict).to_lowercase(), finding(c));
    }
    if !r.prices.is_empty() {
        out.push_str("\nprices (runs alternated with the setting as found and as wanted):\n");
    }
    for p in &r.prices {
        let _ = writeln!(out, "  {}", priced(p));
    }
    let _ = write!(
        out,
        "\n{} warn, {} info, {} ok",
        r.count(Verdict::Warn),
        r.count(Verdict::Info),
        r.count(Verdict::Ok)
    );
    if !r.absent.is_empty() {
        let names: Vec<&str> = r.absent.iter().map(|a| label(a.kind)).collect();
        let _ = write!(out, "; not on this kernel or host: {}", names.join(", "));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::doctor::Price;

    fn priced_with(outcome: Outcome) -> Priced {
        Priced {
            kind: CheckKind::Scheduler,
            device: "loop3".into(),
            file: "/sys/block/loop3/queue/scheduler".into(),
            as_found: "bfq".into(),
            wanted: "none".into(),
            target: "/dev/loop3".into(),
            outcome,
        }
    }

    fn price(low: f64, high: f64) -> Outcome {
        Outcome::Measured(Price {
            figure: PriceFigure::Iops,
            depth: 32,
            as_found_runs: vec![],
            wanted_runs: vec![],
            ratio: 0.62,
            low,
            high,
        })
    }

    #[test]
    fn a_price_is_a_ratio_with_its_interval_or_no_measurable_cost() {
        assert_eq!(
            priced(&priced_with(price(0.58, 0.66))),
            "loop3 scheduler bfq: 0.62× the IOPS of none at QD32 (0.58–0.66)"
        );
        assert!(priced(&priced_with(price(0.3, 1.1))).ends_with(": no measurable cost here"));
        assert_eq!(
            priced(&priced_with(Outcome::ReadsOnly)),
            "loop3 scheduler bfq: not priced: the run only reads"
        );
    }
}
