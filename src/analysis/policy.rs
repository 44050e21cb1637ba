//! Which limit that is not the device's set a run's figures: each cgroup I/O cap on a device
//! under the targets and the CPU quota, held to what the measured window did of the same
//! figure (docs/figures.md, "Limits that are not the device's").

use super::limits::BUSY_PCT;
use crate::model::Results;
use crate::model::policy::{
    GivenField, GivenLimit, IoCap, IoField, LimitReach, PolicyLimit, ReachFrom,
};
use crate::oscounters::diskstats::DeviceDelta;

/// A limit binds once the window came this close to it (blk-throttle lets I/O through in
/// slices, so a capped window lands a little under or over its cap, never far below it).
pub const BINDS_AT: f64 = 0.9;
/// A CPU quota binds when the kernel held the group off the CPU in at least this share of its
/// periods (whatever share of its quota halfpower's own threads used).
pub const THROTTLED_PERIODS: f64 = 0.5;

/// How close the window of `r` came to each limit of `limits`: those that bind first, then
/// by the share used.
pub fn reach(limits: Vec<PolicyLimit>, r: &Results) -> Vec<LimitReach> {
    let mut out: Vec<LimitReach> = limits
        .into_iter()
        .filter_map(|l| match l {
            PolicyLimit::CgroupIo { device, cap } => Some(cgroup_io(device, cap, r)),
            PolicyLimit::CpuQuota { quota } => (r.seconds > 0.0).then(|| cpu_quota(quota, r)),
            PolicyLimit::Cpus { cpus, online, file } => (r.seconds > 0.0).then(|| {
                cpu_reach(
                    PolicyLimit::Cpus { cpus, online, file },
                    f64::from(cpus),
                    None,
                    r,
                )
            }),
            PolicyLimit::Given { .. } => None,
        })
        .collect();
    order(&mut out);
    out
}

/// Those that bind first, then by the share used.
fn order(limits: &mut [LimitReach]) {
    limits.sort_by(|a, b| b.binds.cmp(&a.binds).then(b.used.total_cmp(&a.used)));
}

/// Adds to `r.limits` how close each target of `r` came to each limit the user gave for it
/// (`--limit`), from halfpower's own count of that target: a provisioned limit holds what the
/// volume does, whichever device counters lie beneath it.
pub fn add_given(r: &mut Results, given: &[GivenLimit]) {
    let mut added = Vec::new();
    for g in given {
        for t in r.targets.iter().filter(|t| g.is_for(&t.path)) {
            for (field, value) in g.fields() {
                let measured = match field {
                    GivenField::Iops => t.total.iops,
                    GivenField::BytesPerS => t.total.bytes_per_s,
                };
                let used = share(measured, value);
                added.push(LimitReach {
                    limit: PolicyLimit::Given {
                        target: t.path.clone(),
                        field,
                        value,
                    },
                    allowed: value,
                    measured,
                    from: ReachFrom::Run,
                    used,
                    throttled_share: None,
                    binds: used >= BINDS_AT,
                });
            }
        }
    }
    if !added.is_empty() {
        r.limits.extend(added);
        order(&mut r.limits);
    }
}

/// Device `d`'s rate over its window of the figure `field` caps (I/Os or bytes per second).
pub fn device_rate(d: &DeviceDelta, field: IoField) -> f64 {
    let n = match field {
        IoField::ReadIops => d.reads,
        IoField::WriteIops => d.writes,
        IoField::ReadBytesPerS => d.read_bytes,
        IoField::WriteBytesPerS => d.write_bytes,
    };
    if d.seconds > 0.0 {
        n as f64 / d.seconds
    } else {
        0.0
    }
}

/// A cap on `device`: the kernel's rate of the capped figure for that device over the window
/// (halfpower's own where the device has no counters).
fn cgroup_io(device: String, cap: IoCap, r: &Results) -> LimitReach {
    let (measured, from) = match r.devices.iter().find(|d| d.name == device) {
        Some(d) => (device_rate(d, cap.field), ReachFrom::DeviceCounters),
        None => {
            let (dir, bytes) = match cap.field {
                IoField::ReadIops => (r.read.as_ref(), false),
                IoField::WriteIops => (r.write.as_ref(), false),
                IoField::ReadBytesPerS => (r.read.as_ref(), true),
                IoField::WriteBytesPerS => (r.write.as_ref(), true),
            };
            let m = dir.map_or(0.0, |d| if bytes { d.bytes_per_s } else { d.iops });
            (m, ReachFrom::Run)
        }
    };
    let allowed = cap.value;
    let used = share(measured, allowed);
    LimitReach {
        limit: PolicyLimit::CgroupIo { device, cap },
        allowed,
        measured,
        from,
        used,
        throttled_share: None,
        binds: used >= BINDS_AT,
    }
}

/// `measured` as a share of `allowed` (0 when nothing is allowed).
fn share(measured: f64, allowed: f64) -> f64 {
    if allowed > 0.0 {
        measured / allowed
    } else {
        0.0
    }
}

/// A limit on this process's CPUs (a quota, or the CPUs it may run on), allowing `allowed`
/// CPUs: the CPUs it used over the window against them, and for a quota the share of its
/// periods the kernel throttled (`throttled_share`). It binds when either says the CPUs were
/// used up while the busiest disk under the targets still had idle time (below `BUSY_PCT`).
fn cpu_reach(
    limit: PolicyLimit,
    allowed: f64,
    throttled_share: Option<f64>,
    r: &Results,
) -> LimitReach {
    let measured = (r.cpu.process_user_s + r.cpu.process_sys_s) / r.seconds;
    let used = share(measured, allowed);
    let busiest = r.devices.iter().map(|d| d.util_pct).fold(0.0, f64::max);
    let used_up = used >= BINDS_AT || throttled_share.is_some_and(|s| s >= THROTTLED_PERIODS);
    LimitReach {
        limit,
        allowed,
        measured,
        from: ReachFrom::CpuTime,
        used,
        throttled_share,
        binds: used_up && busiest < BUSY_PCT,
    }
}

/// A CPU quota: [`cpu_reach`] of its CPUs, with the share of its periods the kernel throttled
/// (`cpu.stat`).
fn cpu_quota(quota: crate::model::policy::CpuQuota, r: &Results) -> LimitReach {
    let (allowed, throttled) = (quota.cpus, r.cpu.cgroup.map(|g| g.throttled_share()));
    cpu_reach(PolicyLimit::CpuQuota { quota }, allowed, throttled, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::{CgroupVersion, CpuQuota};
    use crate::stats::cpu::CgroupCpu;

    fn cap(field: IoField, value: f64) -> IoCap {
        IoCap {
            field,
            value,
            file: "/sys/fs/cgroup/blkio/t/blkio.throttle.read_iops_device".into(),
            version: CgroupVersion::V1,
        }
    }

    fn device(name: &str, reads: u64, util_pct: f64) -> DeviceDelta {
        DeviceDelta {
            name: name.into(),
            seconds: 4.0,
            reads,
            read_bytes: reads * 4096,
            r_s: reads as f64 / 4.0,
            util_pct,
            ..DeviceDelta::default()
        }
    }

    fn quota(cpus: f64) -> PolicyLimit {
        PolicyLimit::CpuQuota {
            quota: CpuQuota {
                version: CgroupVersion::V2,
                file: "/sys/fs/cgroup/t/cpu.max".into(),
                quota_us: (cpus * 100_000.0) as u64,
                period_us: 100_000,
                cpus,
            },
        }
    }

    #[test]
    fn a_cap_binds_by_the_kernels_count_of_its_device() {
        // 8050 reads in 4 s under a cap of 2000/s (blk-throttle's slices let a little more
        // through): used 1.006, binds; the same cap on a run of 960/s does not.
        let mut r = Results {
            seconds: 4.0,
            devices: vec![device("loop3", 8050, 3.0), device("vda", 4, 1.0)],
            ..Results::default()
        };
        let caps = |v| PolicyLimit::CgroupIo {
            device: "loop3".into(),
            cap: cap(IoField::ReadIops, v),
        };
        let got = reach(vec![caps(2000.0)], &r);
        assert_eq!(got.len(), 1);
        let g = &got[0];
        assert_eq!((g.measured, g.from), (2012.5, ReachFrom::DeviceCounters));
        assert!((g.used - 1.00625).abs() < 1e-12 && g.binds);
        r.devices[0] = device("loop3", 3840, 3.0);
        let g = &reach(vec![caps(2000.0)], &r)[0];
        assert!((g.used - 0.48).abs() < 1e-12 && !g.binds);
        // The bytes of the same reads against a bytes cap of 8 MB/s: 3840 × 4096 / 4 s.
        let bytes = PolicyLimit::CgroupIo {
            device: "loop3".into(),
            cap: cap(IoField::ReadBytesPerS, 8e6),
        };
        let g = &reach(vec![bytes], &r)[0];
        assert!((g.measured - 3_932_160.0).abs() < 1e-6);
        // A device without counters: the run's own figure.
        let other = PolicyLimit::CgroupIo {
            device: "nbd0".into(),
            cap: cap(IoField::WriteIops, 100.0),
        };
        let g = &reach(vec![other], &r)[0];
        assert_eq!((g.measured, g.from, g.binds), (0.0, ReachFrom::Run, false));
    }

    #[test]
    fn a_cpu_quota_binds_while_the_disk_has_idle_time() {
        // 0.398 s of CPU in 4 s under 0.1 CPU, 39 of 40 periods throttled, the disk 4 % busy.
        let mut r = Results {
            seconds: 4.0,
            devices: vec![device("loop3", 100_000, 4.0)],
            ..Results::default()
        };
        r.cpu.process_user_s = 0.1;
        r.cpu.process_sys_s = 0.298;
        r.cpu.cgroup = Some(CgroupCpu {
            periods: 40,
            throttled_periods: 39,
            throttled_ms: 3500.0,
        });
        let g = &reach(vec![quota(0.1)], &r)[0];
        assert!((g.measured - 0.0995).abs() < 1e-12 && (g.used - 0.995).abs() < 1e-9);
        assert_eq!(
            (g.from, g.throttled_share, g.binds),
            (ReachFrom::CpuTime, Some(0.975), true)
        );
        // Throttled in most periods though halfpower used little of it (others in the group).
        r.cpu.process_sys_s = 0.0;
        assert!(reach(vec![quota(0.1)], &r)[0].binds);
        // The same with the disk 97 % busy: the disk, not the quota.
        r.devices[0].util_pct = 97.0;
        assert!(!reach(vec![quota(0.1)], &r)[0].binds);
        // A quota far above the use, never throttled.
        r.devices[0].util_pct = 4.0;
        r.cpu.cgroup = Some(CgroupCpu::default());
        let g = &reach(vec![quota(4.0)], &r)[0];
        assert!(!g.binds && g.used < 0.01);
        // Those that bind come first.
        r.cpu.cgroup = None;
        r.cpu.process_sys_s = 0.298;
        let caps = PolicyLimit::CgroupIo {
            device: "loop3".into(),
            cap: cap(IoField::ReadIops, 1e6),
        };
        let all = reach(vec![caps, quota(0.1)], &r);
        assert!(all[0].binds && matches!(all[0].limit, PolicyLimit::CpuQuota { .. }));
        assert!(!all[1].binds);
        // No window, no CPU share.
        r.seconds = 0.0;
        assert!(reach(vec![quota(0.1)], &r).is_empty());
    }

    /// A limit the user gave is held to each target's own count: one for every target, one
    /// for the target it names; it binds at 0.9 of what it allows.
    #[test]
    fn a_given_limit_is_held_to_each_targets_own_figures() {
        let target = |path: &str, iops: f64| crate::model::TargetResult {
            path: path.into(),
            total: crate::stats::summary::DirSummary {
                iops,
                bytes_per_s: iops * 4096.0,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut r = Results {
            seconds: 4.0,
            targets: vec![target("/dev/a", 2990.0), target("/dev/b", 1000.0)],
            ..Results::default()
        };
        let every = GivenLimit {
            iops: Some(3000.0),
            ..GivenLimit::default()
        };
        let one = GivenLimit {
            target: Some("/dev/b".into()),
            bytes_per_s: Some(125e6),
            ..GivenLimit::default()
        };
        add_given(&mut r, &[every, one]);
        assert_eq!(r.limits.len(), 3, "{:?}", r.limits);
        let first = &r.limits[0];
        assert!(first.binds && (first.used - 2990.0 / 3000.0).abs() < 1e-12);
        assert_eq!(
            first.limit,
            PolicyLimit::Given {
                target: "/dev/a".into(),
                field: GivenField::Iops,
                value: 3000.0
            }
        );
        assert!(
            r.limits[1..]
                .iter()
                .all(|l| !l.binds && l.from == ReachFrom::Run)
        );
        let bytes = r.limits.iter().find(|l| l.allowed == 125e6).unwrap();
        assert!((bytes.measured - 4_096_000.0).abs() < 1e-6);
    }

    /// A cpuset of one CPU of two binds once halfpower used 0.9 of it while the disk idled;
    /// not when it used less, nor when the disk was busy.
    #[test]
    fn a_cpuset_binds_when_its_cpus_are_used_up_and_the_disk_idles() {
        let set = || PolicyLimit::Cpus {
            cpus: 1,
            online: 2,
            file: None,
        };
        let mut r = Results {
            seconds: 2.0,
            devices: vec![device("loop3", 100_000, 4.0)],
            ..Results::default()
        };
        r.cpu.process_user_s = 0.9;
        r.cpu.process_sys_s = 1.0;
        let g = &reach(vec![set()], &r)[0];
        assert!((g.measured - 0.95).abs() < 1e-12 && g.binds, "{g:?}");
        assert_eq!((g.allowed, g.from), (1.0, ReachFrom::CpuTime));
        r.cpu.process_sys_s = 0.5;
        assert!(!reach(vec![set()], &r)[0].binds);
        r.cpu.process_sys_s = 1.0;
        r.devices[0].util_pct = 97.0;
        assert!(!reach(vec![set()], &r)[0].binds);
    }
}
