//! `halfpower scale` on disks of known speed on a bus of known speed (issue 13): loop devices
//! over slices of one loop device, throttled by blkio (tests/common/mod.rs, `Bus`).

use crate::common;

use common::{Bus, LoopDev, num};
use serde_json::Value;

/// blk-throttle dispatches a group's bios in slices: what a slice allows is released at once,
/// the rest waits for the next. A run's drain waits up to one slice (measured: runs of `--time
/// 2s` last 2.08–2.10 s), and one jiffy (4 ms at HZ = 250) of rounding comes on top.
const SLICE_S: f64 = 0.104;

/// How far a backlogged throttle of `rate` bytes/s can be from `rate` over a window of `seconds`:
/// at each end of the window it can be up to one slice's budget ahead or behind, and each of
/// `devices` can pass one more `bs` request. As a share of `rate`.
fn throttle_bound(rate: f64, seconds: f64, devices: usize, bs: f64) -> f64 {
    (2.0 * SLICE_S * rate + devices as f64 * bs) / (rate * seconds)
}

/// One run (an `alone` entry or a step) against what the throttle allows, `want` bytes/s, over
/// `disks` (kernel names): within the slice bound of its own length. Its figure must also agree
/// with the kernel's counters of those disks over the same window (within 3 %: the device
/// window and the I/O window differ by a few ms, tests/suite/loopdev.rs) — if not, halfpower's
/// figure is wrong and this panics. A figure that agrees with the counters but not with the
/// throttle is the device's own shortfall (the machine held its loop workers back): Err.
fn against_throttle(run: &Value, disks: &[String], want: f64, bs: f64) -> Result<(), String> {
    let got = num(run, "bytes_per_s");
    let seconds = num(run, "results.seconds");
    let devs = run["results"]["devices"].as_array().unwrap();
    let counted: f64 = disks
        .iter()
        .map(|name| {
            let d = devs.iter().find(|d| d["name"] == name.as_str());
            let d = d.unwrap_or_else(|| panic!("no counters of {name}: {run}"));
            (num(d, "read_bytes") + num(d, "write_bytes")) / num(d, "seconds")
        })
        .sum();
    assert!(
        (got / counted - 1.0).abs() <= 0.03,
        "halfpower {got} B/s, the kernel's counters of {disks:?} {counted} B/s"
    );
    let bound = throttle_bound(want, seconds, disks.len(), bs);
    if got > want * (1.0 + bound) {
        panic!("{got} B/s over {seconds} s is more than the throttle allows: {want} B/s + {bound}");
    }
    if got < want * (1.0 - bound) {
        return Err(format!(
            "{got} B/s over {seconds} s, the throttle allows {want} B/s (± {:.1} %), the \
             counters agree ({counted} B/s): the device delivered less",
            bound * 100.0
        ));
    }
    Ok(())
}

/// Runs `measure` until every run in it is within the throttle's bound, at most twice: a second
/// measurement only when the first fell short on the device's own counters too.
fn measured_within_throttle(
    measure: impl Fn() -> Value,
    check: impl Fn(&Value) -> Result<(), String>,
) -> Value {
    let v = measure();
    match check(&v) {
        Ok(()) => v,
        Err(why) => {
            eprintln!("measuring again: {why}");
            let v = measure();
            check(&v).unwrap_or_else(|why| panic!("twice: {why}"));
            v
        }
    }
}

/// I/Os one target keeps in flight: `--threads` × `--qd` as the workload ran (QD1 on the sync
/// engine, should io_uring be disabled while the test runs).
fn depth(v: &Value) -> f64 {
    num(v, "workload.threads") * num(v, "workload.qd")
}

/// Little's law in a closed loop: each step keeps `depth` I/Os in flight (the job's arithmetic:
/// threads × QD × targets), so IOPS × mean response time is `depth`, less the drain at the end
/// (up to a slice, at a falling depth) and the moments between a completion and the next
/// submission. The analysis's own figure (`reading`, checked after every step's) is that
/// product.
fn little(step: &Value, depth: f64, seconds: f64) -> impl Fn(&Value) + use<> {
    let l = num(step, "iops") * num(step, "results.total.latency_us.mean") / 1e6;
    assert!(
        l <= depth * 1.01 && l >= depth * (1.0 - 2.0 * SLICE_S / seconds),
        "{l} in flight by Little's law, the job keeps {depth}"
    );
    move |reading: &Value| {
        assert!(
            (num(reading, "inflight") / l - 1.0).abs() < 1e-6,
            "{reading}"
        )
    }
}

/// 000's "3 disks saturate a bus": disks of 40 MB/s each on a bus of 100 MB/s give steps of
/// 40, 80, 100, 100 MB/s, each within the throttle's slice bound of its run length (about 10 %
/// for 2 s); the total saturates at 3 (the 3rd step's 83 % is judged with its interval, the
/// 4th's 62 % confirms it), the limit is the bus, named first in `shared` with its cgroup
/// throttle whatever else keeps the CPUs busy.
#[test]
fn three_disks_of_40_saturate_a_bus_of_100() {
    let _turn = crate::common::measuring();
    let Some(bus) = Bus::new("scale", 4, 32 << 20, 40_000_000, 100_000_000) else {
        return;
    };
    let mut args = vec!["scale"];
    args.extend(bus.disk_paths());
    args.extend([
        "--rw", "read", "--bs", "256k", "--qd", "4", "--time", "2s", "--warmup", "300ms",
    ]);
    let bus_name = bus.bus.name();
    let names: Vec<String> = bus
        .disks
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let want = [40e6, 80e6, 100e6, 100e6];
    let v = measured_within_throttle(
        || bus.throttle.run_json(&args),
        |v| {
            for (a, name) in v["alone"].as_array().unwrap().iter().zip(&names) {
                against_throttle(a, std::slice::from_ref(name), 40e6, 262144.0)?;
            }
            for (k, s) in v["steps"].as_array().unwrap().iter().enumerate() {
                let disks = &names[..=k];
                if k < 2 {
                    against_throttle(s, disks, want[k], 262144.0)?;
                } else {
                    // The bus carries the total: check it on the bus's own counters.
                    against_throttle(s, std::slice::from_ref(&bus_name), want[k], 262144.0)?;
                }
            }
            Ok(())
        },
    );
    assert_eq!(v["kind"], "scale");
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "one step per added target");
    assert_eq!(v["alone"].as_array().unwrap().len(), 4);
    let an = &v["analysis"];
    let readings: Vec<_> = steps
        .iter()
        .enumerate()
        .map(|(k, s)| little(s, depth(&v) * (k + 1) as f64, num(s, "results.seconds")))
        .collect();
    for (k, reading) in readings.into_iter().enumerate() {
        reading(&an["steps"][k]);
        // The known efficiency (the throttle's arithmetic) lies in the step's interval, widened
        // by the slice bounds of the step and of the runs alone.
        let known = want[k] / (40e6 * (k + 1) as f64);
        let r = &an["steps"][k];
        let slack = 2.0 * throttle_bound(40e6, 2.0, 1, 262144.0);
        assert!(
            num(r, "efficiency_low") - slack <= known && known <= num(r, "efficiency_high") + slack,
            "known efficiency {known}: {r}"
        );
    }
    assert_eq!(an["saturates_at"], 3, "{an}");
    assert_eq!(an["limit"], "shared", "{an}");
    let bound = throttle_bound(100e6, 2.0, 1, 262144.0);
    assert!(
        (num(an, "limit_bytes_per_s") / 100e6 - 1.0).abs() <= bound,
        "{an}"
    );
    let shared = an["shared"].as_array().unwrap();
    assert_eq!(shared[0]["component"], bus_name.as_str(), "{an}");
    assert_eq!(shared[0]["targets"].as_array().unwrap().len(), 4);
    assert_eq!(num(&shared[0], "throttle.read_bytes_per_s"), 100e6, "{an}");
    assert!(num(&shared[0], "throttle_pct") >= 90.0, "{an}");
    // The document holds what the verdict is worded from (render's tests check the words):
    // linear up to 2 (the known efficiencies above), the bus from the 3rd.
    // Each target's share of the last step carries its own disk's and the bus's counters.
    for pt in steps[3]["per_target"].as_array().unwrap() {
        let names: Vec<&str> = pt["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{pt}");
        assert!(names.contains(&bus_name.as_str()), "{names:?}");
    }
    // The bus's own counters at the limit carry the total.
    assert!(
        (num(&shared[0], "bytes_per_s") / 100e6 - 1.0).abs() <= bound,
        "{an}"
    );
}

/// Without a device: two null targets scale until the CPUs run out, and the CPUs are named.
/// One target is a usage error.
#[test]
fn null_targets_share_the_cpus_and_one_target_is_refused() {
    let _turn = crate::common::exclusive();
    let v = common::run_json(&[
        "scale", "a", "b", "--engine", "null", "--time", "300ms", "--warmup", "0",
    ]);
    assert_eq!(v["steps"].as_array().unwrap().len(), 2);
    assert_eq!(v["alone"].as_array().unwrap().len(), 2);
    let eff = v["analysis"]["efficiency"].as_array().unwrap();
    assert_eq!(eff[0], 1.0, "step 1 is the first target alone");
    // With 2 CPUs both null workers run flat out: the CPUs are busy at the second step.
    let cpus = std::thread::available_parallelism().unwrap().get();
    if cpus <= 2 {
        assert!(
            v["analysis"]["shared"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["component"] == "cpu"),
            "{}",
            v["analysis"]
        );
    }
    let err = common::usage_error(&["scale", "a", "--engine", "null"]);
    assert!(err.contains("TARGET"), "{err}");
    // A stripe over n runs --threads × n workers: at most 1024 in all.
    let err = common::usage_error(&[
        "scale",
        "a",
        "b",
        "--engine",
        "null",
        "--stripe",
        "4k",
        "--threads",
        "600",
    ]);
    assert!(
        err.contains("--threads '600'") && err.contains("at most 512"),
        "{err}"
    );
}

/// `--targets-per-rank` deals targets out to the ranks of `--ranks`: without it, and as 0, a
/// usage error naming what it needs (the dealing itself: tests/mpi/scale_ranks.rs).
#[test]
fn targets_per_rank_needs_ranks_and_one_or_more() {
    let err = common::usage_error(&["scale", "a", "b", "--targets-per-rank", "1"]);
    assert!(err.contains("--ranks"), "{err}");
    let err = common::usage_error(&["scale", "a", "--ranks", "--targets-per-rank", "0"]);
    assert!(err.contains("'0' for '--targets-per-rank"), "{err}");
}

/// `--stripe`: each step is one logical target striped over its disks, run by `--threads` × n
/// workers so it keeps the depth of its members alone; with no bus limit, three disks of 30
/// MB/s give 30, 60, 90 MB/s within the throttle's slice bound, each member carries its share
/// (its own counters), and Little's law finds 6 × n I/Os in flight.
#[test]
fn a_stripe_set_spreads_a_sequential_read_over_its_members() {
    let _turn = crate::common::measuring();
    let Some(bus) = Bus::new("stripe", 3, 32 << 20, 30_000_000, 0) else {
        return;
    };
    let mut args = vec!["scale"];
    args.extend(bus.disk_paths());
    args.extend([
        "--stripe", "256k", "--rw", "read", "--bs", "256k", "--qd", "6",
    ]);
    args.extend(["--time", "2s", "--warmup", "300ms"]);
    let names: Vec<String> = bus
        .disks
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let v = measured_within_throttle(
        || bus.throttle.run_json(&args),
        |v| {
            for (k, s) in v["steps"].as_array().unwrap().iter().enumerate() {
                against_throttle(s, &names[..=k], 30e6 * (k + 1) as f64, 262144.0)?;
            }
            Ok(())
        },
    );
    assert_eq!(v["stripe_bytes"], 256 * 1024);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    let readings: Vec<_> = steps
        .iter()
        .enumerate()
        .map(|(k, s)| little(s, depth(&v) * (k + 1) as f64, num(s, "results.seconds")))
        .collect();
    for (k, (s, reading)) in steps.iter().zip(readings).enumerate() {
        reading(&v["analysis"]["steps"][k]);
        assert_eq!(s["threads"], k + 1, "threads × members: {}", s["threads"]);
    }
    let last = &steps[2];
    assert_eq!(last["results"]["targets"].as_array().unwrap().len(), 1);
    assert!(
        last["results"]["targets"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("stripe(")
    );
    let shares = last["per_target"].as_array().unwrap();
    assert_eq!(shares.len(), 3, "{last}");
    let seconds = num(last, "results.seconds");
    for p in shares {
        let bound = throttle_bound(30e6, seconds, 1, 262144.0);
        assert!((num(p, "bytes_per_s") / 30e6 - 1.0).abs() <= bound, "{p}");
    }
    assert_eq!(v["analysis"]["saturates_at"], Value::Null);
    assert_eq!(v["analysis"]["limit"], "none");
}

/// The stripe: two unthrottled loop devices, random 4k reads at QD1. Each alone keeps 1
/// I/O in flight; the stripe over both keeps 2 (threads × QD × members, the job's arithmetic),
/// which Little's law checks from the measured latency: IOPS × mean response time. Whatever
/// the efficiency (the CPUs of a 2-core machine decide it), the analysis names a shared
/// component or the CPUs only when the response time rose past the targets' alone.
#[test]
fn a_stripe_keeps_its_members_depth_by_littles_law() {
    let _turn = crate::common::measuring();
    let Some(a) = LoopDev::new("stripe-qd-a", 32 << 20) else {
        return;
    };
    let Some(b) = LoopDev::new("stripe-qd-b", 32 << 20) else {
        return;
    };
    let v = common::run_json(&[
        "scale",
        a.path(),
        b.path(),
        "--stripe",
        "4k",
        "--bs",
        "4k",
        "--qd",
        "1",
        "--rw",
        "randread",
        "--time",
        "1s",
        "--warmup",
        "200ms",
    ]);
    let an = &v["analysis"];
    let alone = v["alone"].as_array().unwrap();
    for x in alone {
        let l = num(x, "iops") * num(x, "results.total.latency_us.mean") / 1e6;
        assert!(l > 0.8 && l <= 1.01, "alone: {l} in flight at QD1");
    }
    let s = &v["steps"][1];
    let w = num(s, "results.total.latency_us.mean");
    let l = num(s, "iops") * w / 1e6;
    // A worker has nothing in flight only between a completion and its next submission: well
    // under a fifth of the time even on a busy machine (measured 0.5 %).
    assert!(
        l > 1.6 && l <= 2.02,
        "stripe: {l} in flight, the job keeps 2"
    );
    assert_eq!(s["threads"], 2);
    let r = &an["steps"][1];
    assert!((num(r, "inflight") / l - 1.0).abs() < 1e-6, "{r}");
    // The targets alone: their mean response time, weighted by their IOPS.
    let iops: f64 = alone.iter().map(|x| num(x, "iops")).sum();
    let inflight: f64 = alone
        .iter()
        .map(|x| num(x, "iops") * num(x, "results.total.latency_us.mean") / 1e6)
        .sum();
    let wa = inflight / iops * 1e6;
    let limit = an["limit"].as_str().unwrap();
    if limit == "shared" || limit == "cpu" {
        assert!(
            w > wa / 0.9,
            "{limit} with response {w} µs against {wa} µs alone: {an}"
        );
    }
    // Clearly below 90 % (its interval's upper end is) with the response time of the targets
    // alone: the depth holds the total. A step whose interval straddles 90 % is not judged.
    if num(r, "efficiency_high") < 0.9 && w <= wa / 0.9 {
        assert_eq!(limit, "depth", "{an}");
    }
    if num(r, "efficiency") < 0.9 && limit == "none" {
        assert_eq!(r["flag"], "uncertain", "{an}");
        assert!(num(r, "efficiency_high") >= 0.9, "{an}");
    }
}
