//! `halfpower doctor` against settings planted on a loop device (issue 46): each of eight
//! planted settings is flagged as warn naming its file, and with them put back none is; a
//! clean host warns of nothing; a captured NVMe tree is judged without root.

use crate::common;
use common::{LoopDev, Throttle, stdout_json};
use serde_json::Value;
use std::collections::BTreeMap;

/// The queue attributes the doctor reads, as the loop device holds them.
const ATTRS: [&str; 13] = [
    "scheduler",
    "nomerges",
    "iostats",
    "rq_affinity",
    "read_ahead_kb",
    "nr_requests",
    "write_cache",
    "wbt_lat_usec",
    "add_random",
    "max_sectors_kb",
    "max_hw_sectors_kb",
    "rotational",
    "io_poll",
];

pub fn queue_file(dev: &str, attr: &str) -> String {
    format!("/sys/block/{dev}/queue/{attr}")
}

/// A queue file's value (the active scheduler of the bracketed list).
pub fn read(dev: &str, attr: &str) -> String {
    let t = std::fs::read_to_string(queue_file(dev, attr)).unwrap();
    let t = t.trim();
    match (t.find('['), t.find(']')) {
        (Some(a), Some(b)) => t[a + 1..b].to_string(),
        _ => t.to_string(),
    }
}

/// Whether `dev`'s queue offers bfq (said as unavailable, failing in CI, when not).
pub fn offers_bfq(dev: &str) -> bool {
    let offered = std::fs::read_to_string(queue_file(dev, "scheduler")).unwrap();
    let yes = offered.contains("bfq");
    if !yes {
        common::unavailable("the bfq scheduler (CONFIG_IOSCHED_BFQ)");
    }
    yes
}

pub fn values(dev: &str) -> BTreeMap<&'static str, String> {
    ATTRS.iter().map(|a| (*a, read(dev, a))).collect()
}

/// A setting planted on a queue, put back when dropped (loop devices keep their settings
/// after they are detached, and the next test to get the number would inherit them). A
/// `Vec` of them puts them back in the order they were planted.
pub struct Planted {
    file: String,
    old: String,
}

impl Planted {
    pub fn set(dev: &str, attr: &str, value: &str) -> Planted {
        let old = read(dev, attr);
        let file = queue_file(dev, attr);
        std::fs::write(&file, value).unwrap();
        assert_eq!(read(dev, attr), value, "{file}");
        Planted { file, old }
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.file, &self.old);
    }
}

/// The checks of `doc` with verdict `warn`, as (scope's device or "host", kind, file).
fn warned(doc: &Value) -> Vec<(String, String, String)> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "warn")
        .map(|c| {
            (
                c["device"]
                    .as_str()
                    .unwrap_or(c["scope"].as_str().unwrap())
                    .to_string(),
                c["kind"].as_str().unwrap().to_string(),
                c["file"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn doctor_in(cg: &Throttle, dev: &str) -> Value {
    cg.run_json(&["doctor", dev])
}

#[test]
fn eight_planted_settings_are_each_flagged_with_their_file() {
    // Declared first, dropped last: the plants are put back while the device is there.
    let Some(lo) = LoopDev::new("doctor", 16 << 20) else {
        return;
    };
    let Some(cg) = Throttle::new("doctor") else {
        return;
    };
    let name = lo.name();
    let before = values(&name);
    if !offers_bfq(&name) {
        return;
    }
    // bfq first: switching the scheduler resets nr_requests. read_ahead_kb last: a write to
    // write_cache (a queue limit since Linux 6.11) sets it back to the device's default.
    // Put back in the same order, for the same reasons.
    let plants = [
        ("scheduler", "bfq", "scheduler"),
        ("nr_requests", "8", "nr-requests"),
        ("write_cache", "write through", "write-cache"),
        ("nomerges", "2", "nomerges"),
        ("iostats", "0", "iostats"),
        ("rq_affinity", "0", "rq-affinity"),
        ("read_ahead_kb", "0", "read-ahead"),
    ];
    let planted: Vec<Planted> = plants
        .iter()
        .map(|(a, v, _)| Planted::set(&name, a, v))
        .collect();
    cg.limit(&lo.dev, 0, 2000);
    let doc = doctor_in(&cg, lo.path());
    let mut want: Vec<(String, String, String)> = plants
        .iter()
        .map(|(a, _, k)| (name.clone(), k.to_string(), queue_file(&name, a)))
        .collect();
    let cap = std::fs::canonicalize(cg.dir())
        .unwrap()
        .join("blkio.throttle.read_iops_device");
    want.push((name.clone(), "cgroup-io".into(), cap.display().to_string()));
    want.sort();
    let mut got: Vec<_> = warned(&doc).into_iter().filter(|w| w.0 == name).collect();
    got.sort();
    // The cap on writes is a second cgroup-io check, of its own file.
    got.retain(|w| !w.2.ends_with("write_iops_device"));
    assert_eq!(got, want, "{}", doc["checks"]);
    // Each fix writes the wanted value to the file named.
    for c in doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "warn")
    {
        assert_eq!(c["fix"]["write"]["files"][0], c["file"], "{c}");
    }

    // Put back, and the cap lifted: nothing on the device is flagged.
    drop(planted);
    for f in ["read_iops_device", "write_iops_device"] {
        let n = std::fs::metadata(&lo.dev).map(|m| {
            use std::os::unix::fs::MetadataExt;
            let r = m.rdev();
            format!("{}:{}", libc::major(r), libc::minor(r))
        });
        std::fs::write(
            cg.dir().join(format!("blkio.throttle.{f}")),
            format!("{} 0", n.unwrap()),
        )
        .unwrap();
    }
    let doc = doctor_in(&cg, lo.path());
    let flagged: Vec<_> = warned(&doc).into_iter().filter(|w| w.0 == name).collect();
    assert!(flagged.is_empty(), "{flagged:?}");
    assert_eq!(values(&name), before);
}

/// This machine's host, as CI's and a developer's VM are set: nothing warns, and each check
/// names its file and what it wants.
#[test]
fn a_clean_host_warns_of_nothing_and_names_every_file() {
    let doc = stdout_json(&["doctor", "--json", "-"]);
    assert_eq!(doc["kind"], "doctor");
    assert_eq!(warned(&doc), vec![], "{}", doc["checks"]);
    for c in doc["checks"].as_array().unwrap() {
        assert!(!c["file"].as_str().unwrap().is_empty(), "{c}");
        assert!(!c["wanted"].as_str().unwrap().is_empty(), "{c}");
        assert_eq!(c["scope"], "host");
    }
    let kinds: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    for k in ["clock-source", "steal", "cpu-quota", "cpuset"] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    let text = common::halfpower().args(["doctor"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("\n0 warn,"), "{text}");
}

/// The best of ten batches of 10 000 monotonic clock reads, ns a read, as the test times them.
fn clock_read_ns() -> f64 {
    (0..10)
        .map(|_| {
            let t0 = std::time::Instant::now();
            for _ in 0..10_000 {
                let mut ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                // SAFETY: a valid, writable timespec.
                unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
                std::hint::black_box(ts);
            }
            t0.elapsed().as_nanos() as f64 / 10_000.0
        })
        .fold(f64::INFINITY, f64::min)
}

/// The doctor's clock-source figure is what a read of the clock costs: within a factor of 2 of
/// the test's own timing of the same call before and after it (the best of ten batches each,
/// so a batch the host preempted moves neither; a unit or a loop wrong is a factor of 1000 or
/// 10 000).
#[test]
fn the_clock_reads_cost_is_what_the_tests_own_reads_cost() {
    let before = clock_read_ns();
    let doc = stdout_json(&["doctor", "--json", "-"]);
    let own = before.min(clock_read_ns());
    let clock = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "clock-source")
        .cloned()
        .unwrap();
    let figure = clock["figure"].as_f64().unwrap();
    assert!(
        figure / own > 0.5 && figure / own < 2.0,
        "doctor {figure:.1} ns a read, the test's own {own:.1} ns"
    );
}

/// `doctor ARGS --json -` on the captured NVMe tree (tests/fixtures/sysfs/nvme, made by
/// make.sh); it must succeed.
fn captured_doctor(args: &[&str]) -> Value {
    common::in_sysfs(NVME_TREE, &[&["doctor"], args].concat())
}

/// The captured NVMe tree.
const NVME_TREE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sysfs/nvme");

/// The check of `kind` on `device` in a doctor's JSON.
fn check_of(doc: &Value, kind: &str, device: &str) -> Value {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == kind && c["device"] == device)
        .cloned()
        .unwrap_or_else(|| panic!("no {kind} on {device}: {}", doc["checks"]))
}

/// A captured tree (tests/fixtures/sysfs/nvme, made by make.sh) is judged without root: an LVM
/// volume's path reaches its NVMe disk through a partition, whose queue is the disk's; the
/// disk's 64 requests hold a run of QD32 and cap one of QD128.
#[test]
fn a_captured_nvme_tree_is_judged_for_the_depth_asked() {
    let root = NVME_TREE;
    let doctor = |qd: &str| captured_doctor(&["dm-0", "--qd", qd]);
    let nr = |doc: &Value| check_of(doc, "nr-requests", "nvme0n1");
    let shallow = doctor("32");
    assert_eq!(
        shallow["targets"][0]["devices"],
        serde_json::json!(["dm-0", "nvme0n1"])
    );
    assert_eq!(nr(&shallow)["verdict"], "ok");
    let deep = nr(&doctor("128"));
    assert_eq!(
        (&deep["verdict"], &deep["wanted"]),
        (&"warn".into(), &">=128".into())
    );
    assert_eq!(
        deep["file"],
        format!("{root}/block/nvme0n1/queue/nr_requests")
    );
    // The captured disk has no iostats file: it is absent, not judged.
    let absent = shallow["absent"].as_array().unwrap();
    assert!(absent.iter().any(|a| a["kind"] == "iostats"), "{absent:?}");
}

/// The same tree's NVMe disk has two hardware queues, for CPU 0 and CPU 1, whose interrupts
/// fire crossed (nvme0q1 on CPU 1, nvme0q2 on CPU 0), on node 1 of a machine whose CPUs 0-1 are
/// node 0: a worker pinned to CPU 0 is told its queue's interrupt fires on CPU 1 (info) and
/// that it is on another node than the disk (warn), each with the file read and `--affinity`
/// as the fix.
#[test]
fn a_captured_nvme_disks_interrupts_and_node_are_judged_for_the_workers_cpu() {
    let root = NVME_TREE;
    let doc = captured_doctor(&["nvme0n1", "--affinity", "0"]);
    let check = |kind: &str| check_of(&doc, kind, "nvme0n1");
    let irq = check("irq-affinity");
    assert_eq!(
        (&irq["verdict"], &irq["value"], &irq["wanted"]),
        (&"info".into(), &"nvme0q1:1".into(), &"0".into())
    );
    assert_eq!(
        irq["file"],
        format!("{root}/proc/irq/41/effective_affinity_list")
    );
    assert_eq!(irq["fix"]["flag"]["value"], "1");
    let numa = check("numa-node");
    assert_eq!(
        (&numa["verdict"], &numa["value"]),
        (&"warn".into(), &"1".into())
    );
    assert_eq!(
        numa["file"],
        format!("{root}/devices/pci0000:00/0000:00:01.1/0000:01:00.0/numa_node")
    );
    assert_eq!(numa["fix"]["flag"]["value"], "2-3");
}

/// `halfpower run` on `lo` in the cgroup `cg`, capped there at 2000 IOPS: a run beside the
/// suite's timing tests takes their turn (common::measuring) and little CPU (an unthrottled
/// loop device over RAM at QD32 keeps both CPUs busy: beside the PTS write-cliff test, which
/// holds a FUSE disk's rounds to its server's own time, one round ran 11.6 ms long).
fn capped_run(cg: &Throttle, lo: &LoopDev, extra: &[&str]) -> std::process::Output {
    cg.limit(&lo.dev, 0, 2000);
    let mut args = vec!["run", lo.path(), "--rw", "randread"];
    args.extend(extra);
    args.extend(["--time", "300ms", "--warmup", "0", "--json", "-"]);
    cg.command(&args).output().unwrap()
}

/// `run` with one setting planted that bears on it: exactly one warning, naming the setting
/// and its file, and the finding in `results.setup` (no measurement: sysfs is read).
fn run_warns_once(attr: &str, value: &str, kind: &str, qd: &str) {
    let Some(lo) = LoopDev::new(&format!("doctor-{kind}"), 16 << 20) else {
        return;
    };
    let Some(cg) = Throttle::new(&format!("doctor-{kind}")) else {
        return;
    };
    let _turn = common::measuring();
    let name = lo.name();
    let before = values(&name);
    let planted = Planted::set(&name, attr, value);
    let out = capped_run(&cg, &lo, &["--qd", qd]);
    drop(planted);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("halfpower: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].contains(&queue_file(&name, attr)), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let setup = doc["results"]["setup"].as_array().unwrap();
    assert_eq!(setup.len(), 1, "{setup:?}");
    assert_eq!(
        (&setup[0]["kind"], &setup[0]["verdict"]),
        (&kind.into(), &"warn".into())
    );
    assert_eq!(
        doc["warnings"].as_array().unwrap().len(),
        1,
        "{}",
        doc["warnings"]
    );
    assert_eq!(values(&name), before);
    // The report has a section for it, with the file and the fix.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    std::fs::write(&json, &out.stdout).unwrap();
    let page = common::report_page(&json);
    let setup = &page[page.find("<h2>Setup</h2>").expect("a Setup section")..];
    assert!(setup.contains(&queue_file(&name, attr)), "{setup}");
}

#[test]
fn a_run_deeper_than_nr_requests_warns_once() {
    run_warns_once("nr_requests", "8", "nr-requests", "32");
}

/// Also no second warning that a cache served the reads: the device's counters are off, not
/// short.
#[test]
fn a_run_without_iostats_warns_once() {
    run_warns_once("iostats", "0", "iostats", "4");
}

/// At a depth the queue holds, nr_requests 8 bears on nothing: no warning. Nor for an open
/// loop, whose bound on requests in flight (256) is not a depth it keeps.
#[test]
fn a_run_within_nr_requests_is_not_warned() {
    let Some(lo) = LoopDev::new("doctor-shallow", 16 << 20) else {
        return;
    };
    let Some(cg) = Throttle::new("doctor-shallow") else {
        return;
    };
    let _turn = common::measuring();
    let name = lo.name();
    let _planted = Planted::set(&name, "nr_requests", "8");
    let open = ["--arrivals", "poisson", "--rate-iops", "500"];
    for extra in [&["--qd", "8"][..], &open[..]] {
        let out = capped_run(&cg, &lo, extra);
        // No setting warned of (a busy host may still be, as for any run).
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("nr_requests"), "{extra:?}: {err}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(doc["results"].get("setup").is_none(), "{extra:?}");
    }
}
