//! The doctor's rules on literal files: each planted value warns, a fresh loop device's and
//! this VM's virtio disk's do not.

use super::*;
use crate::oscounters::settings::{HostFiles, IdleState};
use std::path::PathBuf;

fn attr(file: &str, text: Option<&str>) -> Attr {
    Attr {
        file: PathBuf::from(file),
        text: text.map(String::from),
    }
}

/// A queue whose files hold `values` (attribute, text); the rest are a fresh loop device's.
fn queue(values: &[(&str, &str)]) -> QueueFiles {
    let fresh = [
        ("scheduler", "[none] mq-deadline kyber bfq"),
        ("nomerges", "0"),
        ("iostats", "1"),
        ("rq_affinity", "1"),
        ("read_ahead_kb", "2560"),
        ("nr_requests", "128"),
        ("write_cache", "write back"),
        ("wbt_lat_usec", "2000"),
        ("add_random", "0"),
        ("max_sectors_kb", "1280"),
        ("max_hw_sectors_kb", "1280"),
        ("rotational", "0"),
        ("io_poll", "0"),
    ];
    let a = |name: &str| {
        let text = values
            .iter()
            .chain(fresh.iter())
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t);
        attr(&format!("/sys/block/loop3/queue/{name}"), text)
    };
    QueueFiles::read("loop3", a, Some(128))
}

fn asked(depth: u32) -> Asked {
    Asked {
        depth,
        threads: 1,
        bs_bytes: 4096,
        buffered: false,
        reads: true,
        writes: false,
        sequential: false,
        worker_cpus: vec![0],
    }
}

fn warned(f: &Found) -> Vec<(CheckKind, String)> {
    f.checks
        .iter()
        .filter(|c| c.verdict == Verdict::Warn)
        .map(|c| (c.kind, c.file.clone()))
        .collect()
}

#[test]
fn a_fresh_loop_device_warns_of_nothing() {
    let f = device_checks(&queue(&[]), DeviceClass::Loop, &[], &asked(1), 1);
    assert_eq!(warned(&f), vec![]);
    assert!(f.absent.is_empty());
    assert_eq!(f.checks.len(), 12);
}

#[test]
fn each_planted_setting_warns_naming_its_file() {
    for (attr, text, kind) in [
        (
            "scheduler",
            "none mq-deadline kyber [bfq]",
            CheckKind::Scheduler,
        ),
        ("nomerges", "2", CheckKind::Nomerges),
        ("iostats", "0", CheckKind::Iostats),
        ("rq_affinity", "0", CheckKind::RqAffinity),
        ("read_ahead_kb", "0", CheckKind::ReadAhead),
        ("nr_requests", "8", CheckKind::NrRequests),
        ("write_cache", "write through", CheckKind::WriteCache),
        ("max_sectors_kb", "4", CheckKind::MaxSectors),
    ] {
        let mut a = asked(1);
        a.bs_bytes = 1 << 20;
        let f = device_checks(&queue(&[(attr, text)]), DeviceClass::Loop, &[], &a, 1);
        let file = format!("/sys/block/loop3/queue/{attr}");
        assert_eq!(warned(&f), vec![(kind, file.clone())], "{attr}");
        let c = f.checks.iter().find(|c| c.kind == kind).unwrap();
        assert!(matches!(&c.fix, Some(Fix::Write { files, .. }) if files == &[file]));
    }
}

#[test]
fn nr_requests_is_judged_against_the_depth_and_the_tags() {
    let q = queue(&[("nr_requests", "128")]);
    assert_eq!(
        warned(&device_checks(&q, DeviceClass::Loop, &[], &asked(128), 1)),
        vec![]
    );
    let w = device_checks(&q, DeviceClass::Loop, &[], &asked(64), 3);
    let c = w
        .checks
        .iter()
        .find(|c| c.kind == CheckKind::NrRequests)
        .unwrap();
    assert_eq!((c.verdict, c.wanted.as_str()), (Verdict::Warn, ">=192"));
    assert_eq!(
        c.fix,
        Some(Fix::Write {
            files: vec![c.file.clone()],
            value: "192".into()
        })
    );
}

#[test]
fn a_slow_disks_scheduler_and_write_through_are_only_information() {
    let q = queue(&[
        ("scheduler", "none [mq-deadline]"),
        ("write_cache", "write through"),
        ("rotational", "1"),
    ]);
    let f = device_checks(&q, DeviceClass::Virtual, &[], &asked(1), 1);
    assert_eq!(warned(&f), vec![]);
    let info: Vec<CheckKind> = f
        .checks
        .iter()
        .filter(|c| c.verdict == Verdict::Info)
        .map(|c| c.kind)
        .collect();
    assert_eq!(info, vec![CheckKind::Scheduler, CheckKind::WriteCache]);
}

#[test]
fn a_missing_file_is_absent_not_a_check() {
    let mut q = queue(&[]);
    q.nr_requests.text = None;
    let f = device_checks(&q, DeviceClass::Stacked, &[], &asked(1), 1);
    assert!(f.checks.iter().all(|c| c.kind != CheckKind::NrRequests));
    assert_eq!(f.absent[0].file, "/sys/block/loop3/queue/nr_requests");
}

#[test]
fn a_cgroup_cap_warns_with_its_file() {
    let cap = IoCap {
        field: crate::oscounters::throttle::IoField::ReadIops,
        value: 2000.0,
        file: "/sys/fs/cgroup/blkio/t/blkio.throttle.read_iops_device".into(),
        version: CgroupVersion::V1,
    };
    let f = device_checks(
        &queue(&[]),
        DeviceClass::Loop,
        std::slice::from_ref(&cap),
        &asked(1),
        1,
    );
    assert_eq!(warned(&f), vec![(CheckKind::CgroupIo, cap.file.clone())]);
}

fn host_files() -> HostFiles {
    HostFiles {
        clocksource: attr("/c/current_clocksource", Some("tsc")),
        available: attr("/c/available_clocksource", Some("tsc kvm-clock acpi_pm")),
        governors: vec![],
        idle_driver: attr("/cpu/cpuidle/current_driver", Some("haltpoll")),
        idle_states: vec![
            IdleState {
                cpu: 0,
                name: "POLL".into(),
                exit_us: 0,
                disabled: false,
            },
            IdleState {
                cpu: 0,
                name: "haltpoll".into(),
                exit_us: 1,
                disabled: false,
            },
        ],
        smt_active: attr("/cpu/smt/active", Some("0")),
        siblings: vec![],
        thp: attr("/thp/enabled", Some("always [madvise] never")),
        dirty: [
            attr("/proc/sys/vm/dirty_ratio", Some("20")),
            attr("/proc/sys/vm/dirty_background_ratio", Some("10")),
            attr("/proc/sys/vm/dirty_bytes", Some("0")),
            attr("/proc/sys/vm/dirty_background_bytes", Some("0")),
        ],
    }
}

fn facts() -> HostFacts<'static> {
    HostFacts {
        clock_read_ns: 25.0,
        steal_pct: Some(1.5),
        quota: None,
        allowed: vec![0, 1],
        online: 2,
        cpuset_file: None,
        memory_bytes: 1 << 30,
    }
}

#[test]
fn this_vms_host_warns_of_nothing() {
    let f = host_checks(&host_files(), &facts(), &asked(1));
    assert_eq!(warned(&f), vec![]);
    let steal = f
        .checks
        .iter()
        .find(|c| c.kind == CheckKind::Steal)
        .unwrap();
    assert_eq!((steal.verdict, steal.figure), (Verdict::Info, Some(1.5)));
    assert_eq!(f.absent[0].kind, CheckKind::CpuGovernor);
}

#[test]
fn a_slow_clock_a_powersave_governor_siblings_and_a_small_quota_warn() {
    let mut h = host_files();
    h.clocksource.text = Some("hpet".into());
    h.governors = vec![(0, attr("/cpu0/scaling_governor", Some("powersave")))];
    h.smt_active.text = Some("1".into());
    h.siblings = vec![(0, attr("/cpu0/siblings", Some("0,2")))];
    let quota = CpuQuota {
        version: CgroupVersion::V1,
        file: "/sys/fs/cgroup/cpu/t/cpu.cfs_quota_us".into(),
        quota_us: 50_000,
        period_us: 100_000,
        cpus: 0.5,
    };
    let mut x = facts();
    x.clock_read_ns = 1500.0;
    x.quota = Some(&quota);
    let mut a = asked(1);
    a.threads = 2;
    a.worker_cpus = vec![0, 2];
    let kinds: Vec<CheckKind> = warned(&host_checks(&h, &x, &a))
        .into_iter()
        .map(|w| w.0)
        .collect();
    assert_eq!(
        kinds,
        vec![
            CheckKind::ClockSource,
            CheckKind::CpuGovernor,
            CheckKind::Smt,
            CheckKind::CpuQuota
        ]
    );
}

#[test]
fn dirty_limits_matter_to_buffered_writes_only() {
    let mut a = asked(1);
    let c = |a: &Asked| {
        let f = host_checks(&host_files(), &facts(), a);
        let d = f
            .checks
            .into_iter()
            .find(|c| c.kind == CheckKind::DirtyLimits)
            .unwrap();
        (d.verdict, d.figure)
    };
    assert_eq!(c(&a).0, Verdict::Ok);
    (a.buffered, a.writes) = (true, true);
    assert_eq!(c(&a), (Verdict::Info, Some(0.2 * (1u64 << 30) as f64)));
}

#[test]
fn mount_options_that_change_io() {
    let line = "36 1 254:0 / / rw,strictatime - ext4 /dev/vda rw,discard,data=journal";
    let m = &crate::oscounters::mounts::parse(line)[0];
    assert_eq!(m.options, "rw,strictatime");
    let f = mount_checks(m);
    let v: Vec<(CheckKind, Verdict)> = f.checks.iter().map(|c| (c.kind, c.verdict)).collect();
    assert_eq!(
        v,
        vec![
            (CheckKind::MountDiscard, Verdict::Info),
            (CheckKind::MountAtime, Verdict::Warn),
            (CheckKind::MountJournal, Verdict::Warn),
        ]
    );
    let plain =
        &crate::oscounters::mounts::parse("36 1 254:0 / / rw,relatime - ext4 /dev/vda rw")[0];
    assert!(
        mount_checks(plain)
            .checks
            .iter()
            .all(|c| c.verdict == Verdict::Ok)
    );
}

#[test]
fn a_closed_loops_depth_is_asked_and_an_open_loops_bound_is_not() {
    use crate::plan::{DepthOnEngine, EngineKind, Workload};
    let mut w = Workload {
        qd: 32,
        threads: 2,
        ..Workload::default()
    };
    let engine = EngineKind::Uring;
    let closed = w.plan(engine, DepthOnEngine::Lower).unwrap();
    assert_eq!(super::asked(&closed).depth, closed.qd() * 2);
    w.qd = 1;
    w.setup.access.arrivals = crate::access::Arrivals::Poisson;
    w.setup.access.rate_iops = Some(1000);
    let open = w.plan(engine, DepthOnEngine::Lower).unwrap();
    assert!(open.schedule().slots() > 2);
    assert_eq!(super::asked(&open).depth, 2);
}
