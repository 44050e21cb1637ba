//! The limits that are not the device's in words: one line per `results.limits` entry, with
//! the file that sets it, what it allows, what the window did of it, and whether it binds; and
//! the credit bucket a run's series shows (`results.bucket`), whose two rates the run's totals
//! blend.

use crate::model::bucket::Bucket;
use crate::model::policy::{CgroupVersion, GivenField, IoField, LimitReach, PolicyLimit};
use std::fmt::Write as _;

/// The bucket's line and the limits' lines of `r`, as the run's text says them.
pub fn notes(r: &crate::model::Results) -> String {
    let mut out = String::new();
    bucket_line(&mut out, r.bucket.as_ref());
    lines(&mut out, &r.limits);
    out
}

/// One `limit:` line per limit, those that bind first (nothing when none applies).
pub fn lines(out: &mut String, limits: &[LimitReach]) {
    for l in limits {
        let _ = writeln!(out, "{}", line(l));
    }
}

/// One line per limit that binds in any of `points` (a label each, and its window's limits),
/// for a command of many runs (sweep, quick, scale): the limit as the run that came closest to
/// it says it, then the runs it binds in. Nothing when none binds.
pub fn binding_lines(out: &mut String, points: &[(String, &[LimitReach])]) {
    let mut found: Vec<(&LimitReach, Vec<&str>)> = Vec::new();
    for (label, limits) in points {
        for l in limits.iter().filter(|l| l.binds) {
            match found.iter_mut().find(|(f, _)| f.limit == l.limit) {
                Some((closest, labels)) => {
                    labels.push(label);
                    if l.used > closest.used {
                        *closest = l;
                    }
                }
                None => found.push((l, vec![label.as_str()])),
            }
        }
    }
    for (l, labels) in found {
        let _ = writeln!(out, "{}; it binds in {}", line(l), labels.join(", "));
    }
}

/// The credit bucket's line: its burst and baseline with their intervals, the credits spent,
/// and what the totals are (nothing without a bucket).
pub fn bucket_line(out: &mut String, b: Option<&Bucket>) {
    let Some(b) = b else {
        return;
    };
    let _ = writeln!(
        out,
        "credit bucket: a burst of {:.0} IOPS ±{:.0} ({:.2} MB/s) until {:.1} s, then a baseline \
         of {:.0} IOPS ±{:.0} ({:.2} MB/s); {:.0} I/Os ±{:.0} of credit spent ({:.1} MB); the \
         rows marked blend average both, and a longer run tends to the baseline",
        b.burst_iops,
        b.burst_iops_ci95.half,
        b.burst_bytes_per_s / 1e6,
        b.ended_at_s,
        b.baseline_iops,
        b.baseline_iops_ci95.half,
        b.baseline_bytes_per_s / 1e6,
        b.credits_ios,
        b.credits_ios_ci95.half,
        b.credits_bytes / 1e6,
    );
}

/// A figure of `field` per second in its unit: I/Os, or MB/s (10^6 bytes).
pub fn rate(field: IoField, v: f64) -> String {
    match field {
        IoField::ReadIops => format!("{v:.0} reads/s"),
        IoField::WriteIops => format!("{v:.0} writes/s"),
        IoField::ReadBytesPerS => format!("{:.2} MB/s read", v / 1e6),
        IoField::WriteBytesPerS => format!("{:.2} MB/s written", v / 1e6),
    }
}

fn version(v: CgroupVersion) -> &'static str {
    match v {
        CgroupVersion::V1 => "cgroup v1",
        CgroupVersion::V2 => "cgroup v2",
    }
}

/// The sentence of one limit.
pub fn line(l: &LimitReach) -> String {
    let verdict = |what: &str| {
        if l.binds {
            format!("{what} binds, not the device")
        } else {
            "it does not bind".to_string()
        }
    };
    match &l.limit {
        PolicyLimit::CgroupIo { device, cap } => format!(
            "limit: {device} is capped at {} by {} ({}); the device did {} ({:.2} of it{}): {}",
            rate(cap.field, cap.value),
            cap.file,
            version(cap.version),
            rate(cap.field, l.measured),
            l.used,
            match l.from {
                crate::model::policy::ReachFrom::Run => ", halfpower's count",
                _ => "",
            },
            verdict("the cgroup's cap")
        ),
        PolicyLimit::CpuQuota { quota } => {
            let held = l.throttled_share.map_or(String::new(), |s| {
                format!(
                    ", the group held off the CPU in {:.0} % of its periods",
                    s * 100.0
                )
            });
            format!(
                "limit: a CPU quota of {:.2} CPU ({} µs per {} µs) set by {} ({}); halfpower \
                 used {:.3} CPU ({:.2} of it){held}: {}",
                quota.cpus,
                quota.quota_us,
                quota.period_us,
                quota.file,
                version(quota.version),
                l.measured,
                l.used,
                verdict("the CPU quota")
            )
        }
        PolicyLimit::Cpus { cpus, online, file } => format!(
            "limit: halfpower may run on {cpus} of the {online} CPUs ({}); it used {:.2} CPU \
             ({:.2} of them): {}",
            file.as_deref()
                .map_or("its affinity, taskset".to_string(), |f| format!(
                    "set by {f}"
                )),
            l.measured,
            l.used,
            verdict(if file.is_some() {
                "the cpuset"
            } else {
                "its CPU affinity"
            })
        ),
        PolicyLimit::Given {
            target,
            field,
            value,
        } => {
            let figure = |v: f64| match field {
                GivenField::Iops => format!("{v:.0} IOPS"),
                GivenField::BytesPerS => format!("{:.2} MB/s", v / 1e6),
            };
            format!(
                "limit: {target} is given {} (--limit); halfpower did {} ({:.2} of it): {}",
                figure(*value),
                figure(l.measured),
                l.used,
                verdict("the given limit")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::{CpuQuota, IoCap, ReachFrom};

    const FILE: &str = "/sys/fs/cgroup/blkio/hp/blkio.throttle.read_iops_device";

    /// loop3's read cap of 2000 IOPS, reached at `measured` reads a second.
    fn read_cap(measured: f64) -> LimitReach {
        LimitReach {
            limit: PolicyLimit::CgroupIo {
                device: "loop3".into(),
                cap: IoCap {
                    field: IoField::ReadIops,
                    value: 2000.0,
                    file: FILE.into(),
                    version: CgroupVersion::V1,
                },
            },
            allowed: 2000.0,
            measured,
            from: ReachFrom::DeviceCounters,
            used: measured / 2000.0,
            throttled_share: None,
            binds: measured >= 1800.0,
        }
    }

    #[test]
    fn a_cap_is_said_once_for_the_runs_it_binds_in() {
        let qd1 = [read_cap(900.0)];
        let qd8 = [read_cap(1990.0)];
        let qd32 = [read_cap(2030.0)];
        let points = [
            ("QD1".to_string(), &qd1[..]),
            ("QD8".to_string(), &qd8[..]),
            ("QD32".to_string(), &qd32[..]),
        ];
        let mut out = String::new();
        binding_lines(&mut out, &points);
        assert_eq!(
            out,
            format!(
                "limit: loop3 is capped at 2000 reads/s by {FILE} (cgroup v1); the device did \
                 2030 reads/s (1.01 of it): the cgroup's cap binds, not the device; it binds \
                 in QD8, QD32\n"
            )
        );
        out.clear();
        binding_lines(&mut out, &points[..1]);
        assert!(out.is_empty(), "{out}");
    }

    #[test]
    fn each_limit_names_its_file_value_and_verdict() {
        let cap = read_cap(2012.25);
        let s = line(&cap);
        assert_eq!(
            s,
            format!(
                "limit: loop3 is capped at 2000 reads/s by {FILE} (cgroup v1); the device did \
                 2012 reads/s (1.01 of it): the cgroup's cap binds, not the device"
            )
        );
        let quota = LimitReach {
            limit: PolicyLimit::CpuQuota {
                quota: CpuQuota {
                    version: CgroupVersion::V2,
                    file: "/sys/fs/cgroup/t/cpu.max".into(),
                    quota_us: 10_000,
                    period_us: 100_000,
                    cpus: 0.1,
                },
            },
            allowed: 0.1,
            measured: 0.0995,
            from: ReachFrom::CpuTime,
            used: 0.995,
            throttled_share: Some(0.95),
            binds: false,
        };
        let s = line(&quota);
        assert!(s.contains("0.10 CPU (10000 µs per 100000 µs) set by /sys/fs/cgroup/t/cpu.max"));
        assert!(
            s.contains("in 95 % of its periods") && s.ends_with("it does not bind"),
            "{s}"
        );
        let mut out = String::new();
        lines(&mut out, &[]);
        bucket_line(&mut out, None);
        assert!(out.is_empty());
    }

    #[test]
    fn a_bucket_says_both_rates_and_its_credits() {
        let ci = |half: f64| crate::stats::summary::Ci95 { half, pct: 0.0 };
        let b = Bucket {
            ended_at_s: 7.0,
            burst_iops: 1931.1,
            burst_iops_ci95: ci(9.9),
            burst_bytes_per_s: 1931.1 * 4096.0,
            baseline_iops: 500.2,
            baseline_iops_ci95: ci(2.2),
            baseline_bytes_per_s: 500.2 * 4096.0,
            credits_ios: 10_018.0,
            credits_ios_ci95: ci(17.6),
            credits_bytes: 10_018.0 * 4096.0,
            burst_latency_us: 2070.0,
            baseline_latency_us: 8000.0,
        };
        let mut out = String::new();
        bucket_line(&mut out, Some(&b));
        assert_eq!(
            out,
            "credit bucket: a burst of 1931 IOPS ±10 (7.91 MB/s) until 7.0 s, then a baseline of \
             500 IOPS ±2 (2.05 MB/s); 10018 I/Os ±18 of credit spent (41.0 MB); the rows marked \
             blend average both, and a longer run tends to the baseline\n"
        );
    }

    #[test]
    fn a_cpuset_and_a_given_limit_say_what_they_allow() {
        let reach = |limit, allowed, measured: f64| LimitReach {
            limit,
            allowed,
            measured,
            from: ReachFrom::CpuTime,
            used: measured / allowed,
            throttled_share: None,
            binds: measured / allowed >= 0.9,
        };
        let set = reach(
            PolicyLimit::Cpus {
                cpus: 1,
                online: 2,
                file: Some("/sys/fs/cgroup/cpuset/t/cpuset.effective_cpus".into()),
            },
            1.0,
            0.98,
        );
        assert_eq!(
            line(&set),
            "limit: halfpower may run on 1 of the 2 CPUs (set by \
             /sys/fs/cgroup/cpuset/t/cpuset.effective_cpus); it used 0.98 CPU (0.98 of them): the \
             cpuset binds, not the device"
        );
        let taskset = PolicyLimit::Cpus {
            cpus: 1,
            online: 2,
            file: None,
        };
        assert!(line(&reach(taskset, 1.0, 0.2)).contains("(its affinity, taskset)"));
        let given = PolicyLimit::Given {
            target: "/dev/nvme1n1".into(),
            field: GivenField::BytesPerS,
            value: 125e6,
        };
        assert_eq!(
            line(&reach(given, 125e6, 62.5e6)),
            "limit: /dev/nvme1n1 is given 125.00 MB/s (--limit); halfpower did 62.50 MB/s (0.50 \
             of it): it does not bind"
        );
    }
}
