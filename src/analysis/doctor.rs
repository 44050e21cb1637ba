//! The doctor's rules: each host, device and mount setting judged against what a measurement
//! wants, with the fix as data (docs/doctor.md has the table these rules implement). Pure
//! functions of what `oscounters::settings` read.

use crate::affinity::Affinity;
use crate::model::DeviceClass;
use crate::model::doctor::{Absent, Asked, Check, CheckKind, Fix, Scope, Verdict};
use crate::oscounters::cgroup::{CgroupVersion, CpuQuota};
use crate::oscounters::mounts::Mount;
use crate::oscounters::settings::{Attr, HostFiles, QueueFiles};
use crate::oscounters::throttle::IoCap;

/// A clock read slower than this (ns) is a system call per timestamp (hpet, acpi_pm).
pub const CLOCK_READ_NS: f64 = 200.0;
/// An idle state slower to leave than this (µs) adds to a QD1 latency.
pub const IDLE_EXIT_US: u64 = 10;
/// Read-ahead below this (KiB) sends a buffered sequential read a request at a time.
pub const READ_AHEAD_KB: i64 = 128;

/// Checks and the files this host lacks.
#[derive(Debug, Default)]
pub struct Found {
    /// The checks made.
    pub checks: Vec<Check>,
    /// Files looked for and not there.
    pub absent: Vec<Absent>,
}

impl Found {
    /// A check of `kind` on `a`: absent when the file is not there, else `judge(value)` →
    /// (verdict, wanted, fix value).
    fn attr(
        &mut self,
        kind: CheckKind,
        scope: &Scope,
        a: &Attr,
        judge: impl FnOnce(&str) -> (Verdict, String, Option<String>),
    ) {
        let Some(value) = a.active() else {
            self.absent.push(Absent {
                kind,
                file: a.name(),
            });
            return;
        };
        let (verdict, wanted, fix) = judge(&value);
        self.checks.push(Check {
            kind,
            scope: scope.clone(),
            file: a.name(),
            value: Some(value),
            wanted,
            figure: None,
            verdict,
            fix: fix.map(|value| Fix::Write {
                files: vec![a.name()],
                value,
            }),
        });
    }
}

/// Whether a class is fast enough that a scheduler's own cost shows in its figures.
fn fast(class: DeviceClass) -> bool {
    matches!(
        class,
        DeviceClass::Nvme | DeviceClass::Loop | DeviceClass::Ram
    )
}

/// `verdict` unless the value is `want`, with `want` as the fix.
fn equal(value: &str, want: &str, verdict: Verdict) -> (Verdict, String, Option<String>) {
    if value == want {
        (Verdict::Ok, want.to_string(), None)
    } else {
        (verdict, want.to_string(), Some(want.to_string()))
    }
}

/// The checks of one device's queue, for `asked` with `on_device` targets on it.
pub fn device_checks(
    q: &QueueFiles,
    class: DeviceClass,
    caps: &[IoCap],
    asked: &Asked,
    on_device: u32,
) -> Found {
    let mut f = Found::default();
    let s = Scope::Device {
        device: q.device.clone(),
    };
    let quick = fast(class);
    f.attr(CheckKind::Scheduler, &s, &q.scheduler, |v| {
        equal(v, "none", if quick { Verdict::Warn } else { Verdict::Info })
    });
    f.attr(CheckKind::Nomerges, &s, &q.nomerges, |v| {
        let verdict = if v == "2" {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        equal(v, "0", verdict)
    });
    f.attr(CheckKind::Iostats, &s, &q.iostats, |v| {
        equal(v, "1", Verdict::Warn)
    });
    f.attr(CheckKind::RqAffinity, &s, &q.rq_affinity, |v| match v {
        "1" | "2" => (Verdict::Ok, "1|2".into(), None),
        _ => (Verdict::Warn, "1|2".into(), Some("1".into())),
    });
    f.attr(CheckKind::ReadAhead, &s, &q.read_ahead_kb, |v| {
        let kb: i64 = v.parse().unwrap_or(0);
        let wanted = format!(">={READ_AHEAD_KB}");
        match kb {
            0 => (Verdict::Warn, wanted, Some(READ_AHEAD_KB.to_string())),
            k if k < READ_AHEAD_KB => (Verdict::Info, wanted, Some(READ_AHEAD_KB.to_string())),
            _ => (Verdict::Ok, wanted, None),
        }
    });
    let need = (u64::from(asked.depth) * u64::from(on_device.max(1))).max(q.tags.unwrap_or(0));
    f.attr(CheckKind::NrRequests, &s, &q.nr_requests, |v| {
        let have: u64 = v.parse().unwrap_or(0);
        let wanted = format!(">={need}");
        if have >= need {
            (Verdict::Ok, wanted, None)
        } else {
            (Verdict::Warn, wanted, Some(need.to_string()))
        }
    });
    f.attr(CheckKind::WriteCache, &s, &q.write_cache, |v| {
        // Only where a volatile cache is known to be there (a loop device's page cache) is
        // "write through" a setting rather than the drive's truth.
        let verdict = if class == DeviceClass::Loop {
            Verdict::Warn
        } else {
            Verdict::Info
        };
        equal(v, "write back", verdict)
    });
    f.attr(CheckKind::WritebackThrottling, &s, &q.wbt_lat_usec, |v| {
        let on = v.parse::<i64>().is_ok_and(|n| n > 0);
        let verdict = if on && asked.writes && asked.buffered {
            Verdict::Info
        } else {
            Verdict::Ok
        };
        (verdict, "0".into(), on.then(|| "0".into()))
    });
    f.attr(CheckKind::AddRandom, &s, &q.add_random, |v| {
        equal(v, "0", Verdict::Info)
    });
    max_sectors(&mut f, &s, q, asked);
    if quick {
        f.attr(CheckKind::Rotational, &s, &q.rotational, |v| {
            equal(v, "0", Verdict::Info)
        });
    }
    f.attr(CheckKind::PollQueues, &s, &q.io_poll, |_| {
        (Verdict::Ok, "any".into(), None)
    });
    for c in caps {
        f.checks.push(cgroup_cap(&s, c));
    }
    f
}

/// `max_sectors_kb` against the request size and what the hardware allows.
fn max_sectors(f: &mut Found, s: &Scope, q: &QueueFiles, asked: &Asked) {
    let hw = q.max_hw_sectors_kb.number().unwrap_or(i64::MAX);
    let bs_kb = i64::try_from(asked.bs_bytes.div_ceil(1024)).unwrap_or(i64::MAX);
    let want = bs_kb.min(hw);
    f.attr(CheckKind::MaxSectors, s, &q.max_sectors_kb, |v| {
        let have: i64 = v.parse().unwrap_or(0);
        let wanted = format!(">={want}");
        if have < want {
            (Verdict::Warn, wanted, Some(want.to_string()))
        } else if have < hw && hw != i64::MAX {
            (Verdict::Info, wanted, None)
        } else {
            (Verdict::Ok, wanted, None)
        }
    });
}

/// A cgroup's cap on the device: the figure is the cap's.
fn cgroup_cap(s: &Scope, c: &IoCap) -> Check {
    let value = match c.version {
        CgroupVersion::V1 => "0".to_string(),
        CgroupVersion::V2 => "max".to_string(),
    };
    Check {
        kind: CheckKind::CgroupIo,
        scope: s.clone(),
        file: c.file.clone(),
        value: Some(format!("{}", c.value)),
        wanted: "no cap".into(),
        figure: Some(c.value),
        verdict: Verdict::Warn,
        fix: Some(Fix::Write {
            files: vec![c.file.clone()],
            value,
        }),
    }
}

/// A block device a session's targets use, with its queue as read when the session opened.
#[derive(Clone, Debug)]
pub struct Bearing {
    /// Its queue files.
    pub queue: QueueFiles,
    /// Its class.
    pub class: DeviceClass,
    /// Whether a target is on it directly (not a member beneath one).
    pub top: bool,
    /// How many of the session's targets are on it.
    pub on: u32,
}

/// The run `w` describes, as the doctor's checks take it (its workers' CPUs left empty). Its
/// depth is a closed loop's; an open loop's bound on requests in flight (256 by default) is
/// not a depth it keeps, so it counts one request per worker.
pub fn asked(w: &crate::plan::RunPlan) -> Asked {
    let per_worker = match w.schedule() {
        crate::plan::Schedule::Closed { depth, .. } => depth,
        _ => 1,
    };
    Asked {
        depth: per_worker * w.threads(),
        threads: w.threads(),
        bs_bytes: w.bs().max(),
        buffered: w.setup().buffered,
        reads: w.reads(),
        writes: w.writes(),
        sequential: !w.rw().is_random(),
        worker_cpus: Vec::new(),
    }
}

/// The settings that bear on what `asked` is about to measure, each a warn: iostats off on
/// any device under a target (its counters, and the run's device figures, stay empty);
/// nr_requests below the depth on a target's device (the depth is capped); read-ahead off
/// under buffered sequential reads; a scheduler on a fast device.
pub fn bearing(devices: &[Bearing], asked: &Asked) -> Vec<Check> {
    let mut out = Vec::new();
    for b in devices {
        let depth = u64::from(asked.depth) * u64::from(b.on.max(1));
        let capped = b
            .queue
            .nr_requests
            .number()
            .is_some_and(|n| u64::try_from(n).unwrap_or(0) < depth);
        let read_ahead = asked.buffered && asked.sequential && asked.reads;
        let found = device_checks(&b.queue, b.class, &[], asked, b.on);
        out.extend(found.checks.into_iter().filter(|c| {
            c.verdict == Verdict::Warn
                && match c.kind {
                    CheckKind::Iostats => true,
                    CheckKind::NrRequests => b.top && capped,
                    CheckKind::ReadAhead => b.top && read_ahead,
                    CheckKind::Scheduler => b.top,
                    _ => false,
                }
        }));
    }
    out
}

/// What the host-wide checks are made from besides its files.
#[derive(Clone, Debug, Default)]
pub struct HostFacts<'a> {
    /// ns per clock read (the best of several batches).
    pub clock_read_ns: f64,
    /// Steal over a short window, % of the CPUs' time.
    pub steal_pct: Option<f64>,
    /// The process's CPU quota.
    pub quota: Option<&'a CpuQuota>,
    /// The CPUs this process may run on.
    pub allowed: Vec<usize>,
    /// Online CPUs.
    pub online: usize,
    /// The cpuset file that sets `allowed`, when one does.
    pub cpuset_file: Option<String>,
    /// Memory, bytes (for a dirty ratio's bytes).
    pub memory_bytes: u64,
}

/// The host's checks for `asked`.
pub fn host_checks(h: &HostFiles, facts: &HostFacts, asked: &Asked) -> Found {
    let mut f = Found::default();
    clock(&mut f, h, facts.clock_read_ns);
    let s = Scope::Host;
    for (_, g) in &h.governors {
        f.attr(CheckKind::CpuGovernor, &s, g, |v| {
            equal(v, "performance", Verdict::Warn)
        });
    }
    if h.governors.is_empty() {
        f.absent.push(Absent {
            kind: CheckKind::CpuGovernor,
            file: "/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor".into(),
        });
    }
    cpu_idle(&mut f, h);
    smt(&mut f, h, asked);
    f.checks.push(Check {
        kind: CheckKind::Steal,
        scope: Scope::Host,
        file: "/proc/stat".into(),
        value: facts.steal_pct.map(|p| format!("{p:.2}%")),
        wanted: "0".into(),
        figure: facts.steal_pct,
        verdict: if facts.steal_pct.is_some_and(|p| p > 0.0) {
            Verdict::Info
        } else {
            Verdict::Ok
        },
        fix: None,
    });
    cpus(&mut f, facts, asked);
    f.attr(CheckKind::TransparentHugepages, &s, &h.thp, |v| match v {
        "never" => (
            Verdict::Info,
            "always|madvise".into(),
            Some("madvise".into()),
        ),
        _ => (Verdict::Ok, "always|madvise".into(), None),
    });
    dirty(&mut f, h, facts, asked);
    f
}

/// The clock source and what a read costs.
fn clock(f: &mut Found, h: &HostFiles, read_ns: f64) {
    let Some(cur) = h.clocksource.active() else {
        f.absent.push(Absent {
            kind: CheckKind::ClockSource,
            file: h.clocksource.name(),
        });
        return;
    };
    let tsc_there = h
        .available
        .text
        .as_deref()
        .is_some_and(|t| t.split_whitespace().any(|c| c == "tsc"));
    let verdict = if read_ns > CLOCK_READ_NS {
        Verdict::Warn
    } else if cur != "tsc" && tsc_there {
        Verdict::Info
    } else {
        Verdict::Ok
    };
    f.checks.push(Check {
        kind: CheckKind::ClockSource,
        scope: Scope::Host,
        file: h.clocksource.name(),
        value: Some(cur.clone()),
        wanted: format!("<={CLOCK_READ_NS} ns a read"),
        figure: Some(read_ns),
        verdict,
        fix: (verdict != Verdict::Ok && tsc_there && cur != "tsc").then(|| Fix::Write {
            files: vec![h.clocksource.name()],
            value: "tsc".into(),
        }),
    });
}

/// The deepest enabled idle state of the worker CPUs.
fn cpu_idle(f: &mut Found, h: &HostFiles) {
    let Some(driver) = h.idle_driver.active() else {
        f.absent.push(Absent {
            kind: CheckKind::CpuIdle,
            file: h.idle_driver.name(),
        });
        return;
    };
    let deepest = h
        .idle_states
        .iter()
        .filter(|s| !s.disabled)
        .map(|s| s.exit_us)
        .max()
        .unwrap_or(0);
    let slow = deepest > IDLE_EXIT_US;
    f.checks.push(Check {
        kind: CheckKind::CpuIdle,
        scope: Scope::Host,
        file: h.idle_driver.name(),
        value: Some(driver),
        wanted: format!("<={IDLE_EXIT_US} µs to wake"),
        figure: Some(deepest as f64),
        verdict: if slow { Verdict::Info } else { Verdict::Ok },
        fix: slow.then(|| Fix::Command(format!("cpupower idle-set -D {IDLE_EXIT_US}"))),
    });
}

/// Two workers on siblings of one core share it.
fn smt(f: &mut Found, h: &HostFiles, asked: &Asked) {
    let Some(active) = h.smt_active.active() else {
        return;
    };
    let workers: Vec<usize> = asked
        .worker_cpus
        .iter()
        .copied()
        .take(asked.threads as usize)
        .collect();
    let siblings_of = |sib: &Attr| match sib.text.as_deref()?.parse::<Affinity>() {
        Ok(Affinity::Cpus(v)) => Some(v),
        _ => None,
    };
    let shared = workers.iter().any(|&a| {
        h.siblings.iter().any(|(c, sib)| {
            *c == a
                && siblings_of(sib)
                    .is_some_and(|s| s.iter().any(|&b| b != a && workers.contains(&b)))
        })
    });
    let verdict = if shared {
        Verdict::Warn
    } else if active == "1" {
        Verdict::Info
    } else {
        Verdict::Ok
    };
    f.checks.push(Check {
        kind: CheckKind::Smt,
        scope: Scope::Host,
        file: h.smt_active.name(),
        value: Some(active),
        wanted: "workers on distinct cores".into(),
        figure: None,
        verdict,
        fix: shared.then(|| Fix::Flag {
            flag: "--affinity".into(),
            value: "one CPU per core".into(),
        }),
    });
}

/// The CPU quota and the cpuset against the workers.
fn cpus(f: &mut Found, facts: &HostFacts, asked: &Asked) {
    let workers = f64::from(asked.threads.max(1));
    match facts.quota {
        Some(q) => f.checks.push(Check {
            kind: CheckKind::CpuQuota,
            scope: Scope::Host,
            file: q.file.clone(),
            value: Some(format!("{} {}", q.quota_us, q.period_us)),
            wanted: "none".into(),
            figure: Some(q.cpus),
            verdict: if q.cpus < workers {
                Verdict::Warn
            } else {
                Verdict::Info
            },
            fix: Some(Fix::Write {
                files: vec![q.file.clone()],
                value: match q.version {
                    CgroupVersion::V1 => "-1".into(),
                    CgroupVersion::V2 => "max".into(),
                },
            }),
        }),
        None => f.checks.push(Check {
            kind: CheckKind::CpuQuota,
            scope: Scope::Host,
            file: "cpu.max | cpu.cfs_quota_us".into(),
            value: None,
            wanted: "none".into(),
            figure: None,
            verdict: Verdict::Ok,
            fix: None,
        }),
    }
    let allowed = facts.allowed.len();
    let verdict = if (allowed as f64) < workers {
        Verdict::Warn
    } else if allowed < facts.online {
        Verdict::Info
    } else {
        Verdict::Ok
    };
    f.checks.push(Check {
        kind: CheckKind::Cpuset,
        scope: Scope::Host,
        file: facts
            .cpuset_file
            .clone()
            .unwrap_or_else(|| "sched_getaffinity".into()),
        value: Some(format!("{allowed} of {} CPUs", facts.online)),
        wanted: format!(">={}", asked.threads.max(1)),
        figure: Some(allowed as f64),
        verdict,
        fix: (verdict == Verdict::Warn).then(|| Fix::Flag {
            flag: "--threads".into(),
            value: allowed.to_string(),
        }),
    });
}

/// Dirty-page limits, for a buffered run that writes.
fn dirty(f: &mut Found, h: &HostFiles, facts: &HostFacts, asked: &Asked) {
    let [ratio, _, bytes, _] = &h.dirty;
    let Some(r) = ratio.number() else {
        return;
    };
    let limit = match bytes.number() {
        Some(b) if b > 0 => b as f64,
        _ => r as f64 / 100.0 * facts.memory_bytes as f64,
    };
    let matters = asked.buffered && asked.writes;
    f.checks.push(Check {
        kind: CheckKind::DirtyLimits,
        scope: Scope::Host,
        file: ratio.name(),
        value: ratio.text.clone(),
        wanted: "a run writing more than this".into(),
        figure: Some(limit),
        verdict: if matters { Verdict::Info } else { Verdict::Ok },
        fix: None,
    });
}

/// The checks of a mount's options.
pub fn mount_checks(m: &Mount) -> Found {
    let mut f = Found::default();
    let s = Scope::Mount {
        mount_point: m.mount_point.display().to_string(),
    };
    let opts: Vec<&str> = m
        .options
        .split(',')
        .chain(m.super_options.split(','))
        .collect();
    let has = |o: &str| opts.contains(&o);
    let file = "/proc/self/mountinfo".to_string();
    let remount = |option: &str| {
        Some(Fix::Remount {
            mount_point: m.mount_point.display().to_string(),
            option: option.into(),
        })
    };
    let mut push = |kind, value: &str, wanted: &str, verdict, fix| {
        f.checks.push(Check {
            kind,
            scope: s.clone(),
            file: file.clone(),
            value: Some(value.to_string()),
            wanted: wanted.into(),
            figure: None,
            verdict,
            fix,
        })
    };
    let discard = has("discard");
    push(
        CheckKind::MountDiscard,
        if discard { "discard" } else { "nodiscard" },
        "nodiscard",
        if discard { Verdict::Info } else { Verdict::Ok },
        discard.then(|| remount("nodiscard")).flatten(),
    );
    let strict = has("strictatime");
    push(
        CheckKind::MountAtime,
        if strict {
            "strictatime"
        } else if has("noatime") {
            "noatime"
        } else {
            "relatime"
        },
        "noatime|relatime",
        if strict { Verdict::Warn } else { Verdict::Ok },
        strict.then(|| remount("noatime")).flatten(),
    );
    let journal = ["data=journal", "sync", "nobarrier", "barrier=0", "wsync"]
        .into_iter()
        .find(|o| has(o));
    let (value, verdict, fix) = match journal {
        Some(o @ ("nobarrier" | "barrier=0")) => (o, Verdict::Warn, remount("barrier")),
        Some("sync") => ("sync", Verdict::Warn, remount("async")),
        Some(o) => (o, Verdict::Warn, None),
        None if has("data=writeback") => ("data=writeback", Verdict::Info, None),
        None => ("default", Verdict::Ok, None),
    };
    push(CheckKind::MountJournal, value, "default", verdict, fix);
    f
}

#[cfg(test)]
#[path = "doctor_tests.rs"]
mod tests;
