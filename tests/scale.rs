//! `halfpower scale` on disks of known speed on a bus of known speed (issue 13): loop devices
//! over slices of one loop device, throttled by blkio (tests/common/mod.rs, `Bus`).

mod common;

use common::{Bus, num};

/// 000's "3 disks saturate a bus": disks of 40 MB/s each on a bus of 100 MB/s give steps of
/// about 40, 80, 100, 100 MB/s; the total saturates at 3, the limit is the bus, and the bus is
/// the component all four share.
#[test]
fn three_disks_of_40_saturate_a_bus_of_100() {
    let Some(bus) = Bus::new("scale", 4, 32 << 20, 40_000_000, 100_000_000) else {
        return;
    };
    let mut args = vec!["scale"];
    args.extend(bus.disk_paths());
    args.extend([
        "--rw", "read", "--bs", "256k", "--qd", "4", "--time", "2s", "--warmup", "300ms",
    ]);
    let v = bus.throttle.run_json(&args);
    assert_eq!(v["kind"], "scale");
    let steps: Vec<f64> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| num(s, "bytes_per_s") / 1e6)
        .collect();
    let want = [40.0, 80.0, 100.0, 100.0];
    assert_eq!(
        steps.len(),
        want.len(),
        "one step per added target: {steps:?}"
    );
    assert_eq!(v["alone"].as_array().unwrap().len(), 4);
    for (got, want) in steps.iter().zip(want) {
        // blkio throttling holds a rate to a few % over 2 s; 10 % leaves room for the VM.
        assert!((got - want).abs() <= want * 0.1, "steps {steps:?}");
    }
    for a in v["alone"].as_array().unwrap() {
        assert!((num(a, "bytes_per_s") / 1e6 - 40.0).abs() <= 4.0, "{a}");
    }
    let an = &v["analysis"];
    assert_eq!(an["saturates_at"], 3, "{an}");
    assert!(
        (num(an, "limit_bytes_per_s") / 1e6 - 100.0).abs() <= 10.0,
        "{an}"
    );
    let bus_name = bus.bus.name();
    let shared = an["shared"].as_array().unwrap();
    assert_eq!(shared[0]["component"], bus_name.as_str(), "{an}");
    assert_eq!(shared[0]["targets"].as_array().unwrap().len(), 4);
    let verdict = an["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("up to 2") && verdict.contains(&bus_name) && verdict.contains("3rd"),
        "{verdict}"
    );
    // Each target's share of the last step carries its own disk's and the bus's counters.
    for pt in v["steps"][3]["per_target"].as_array().unwrap() {
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
        (num(&shared[0], "bytes_per_s") / 1e6 - 100.0).abs() <= 10.0,
        "{an}"
    );
}

/// Without a device: two null targets scale until the CPUs run out, and the CPUs are named.
/// One target is a usage error.
#[test]
fn null_targets_share_the_cpus_and_one_target_is_refused() {
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
}

/// `--stripe`: each step is one logical target striped over its disks; with no bus limit, three
/// disks of 30 MB/s give about 30, 60, 90 MB/s, and each member carries its share.
#[test]
fn a_stripe_set_spreads_a_sequential_read_over_its_members() {
    let Some(bus) = Bus::new("stripe", 3, 32 << 20, 30_000_000, 0) else {
        return;
    };
    let mut args = vec!["scale"];
    args.extend(bus.disk_paths());
    args.extend([
        "--stripe", "256k", "--rw", "read", "--bs", "256k", "--qd", "6",
    ]);
    args.extend(["--time", "2s", "--warmup", "300ms"]);
    let v = bus.throttle.run_json(&args);
    assert_eq!(v["stripe_bytes"], 256 * 1024);
    let steps = v["steps"].as_array().unwrap();
    for (s, want) in steps.iter().zip([30.0, 60.0, 90.0]) {
        let got = num(s, "bytes_per_s") / 1e6;
        assert!(
            (got - want).abs() <= want * 0.1,
            "{got} MB/s, want {want}: {s}"
        );
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
    for p in shares {
        assert!((num(p, "bytes_per_s") / 1e6 - 30.0).abs() <= 4.0, "{p}");
    }
    assert_eq!(v["analysis"]["saturates_at"], serde_json::Value::Null);
}
