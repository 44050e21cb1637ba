//! `halfpower compare` on devices of known speed (issue 15): a loop device throttled by blkio
//! to 2000 and then 3000 IOPS, three repetitions each, compares as 1.5× (within 5 %) and
//! significant; two sets of runs at the same cap compare as not significant.

mod common;

use common::{LoopDev, Throttle, num, stdout_json};

/// Three 3-s repetitions. blk-throttle dispatches in 100-ms slices: it lets a slice's worth of
/// requests through at once and holds the rest to the next slice, so the drain at the end of a
/// run can wait up to 100 ms, which lowers a run's IOPS by up to 0.1 / 3 ≈ 3 % (1-s runs lost
/// up to 10 %, seen as 1.60 instead of 1.5). The throttled device's speed is known only to
/// that precision over a run this short.
fn runs(throttle: &Throttle, dev: &str, json: &std::path::Path) {
    let out = throttle
        .command(&[
            "run",
            dev,
            "--rw",
            "randread",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--time",
            "3s",
            "--warmup",
            "300ms",
            "--repeat",
            "3",
            "--quiet",
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn iops(c: &serde_json::Value) -> &serde_json::Value {
    c["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["figure"] == "total.iops")
        .unwrap()
}

#[test]
fn a_fifty_percent_faster_cap_is_significant_and_the_same_cap_is_not() {
    let Some(throttle) = Throttle::new("compare") else {
        return;
    };
    let Some(lo) = LoopDev::new("compare", 64 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.json"),
        dir.path().join("b.json"),
        dir.path().join("c.json"),
    );
    throttle.limit(&lo.dev, 0, 2000);
    runs(&throttle, lo.path(), &a);
    throttle.limit(&lo.dev, 0, 3000);
    runs(&throttle, lo.path(), &b);
    throttle.limit(&lo.dev, 0, 2000);
    runs(&throttle, lo.path(), &c);

    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
    assert_eq!(v["repeat"]["runs"].as_array().unwrap().len(), 3);
    let f = &v["repeat"]["figures"][0];
    assert_eq!(f["figure"], "total.iops");
    assert!((num(f, "mean") - 2000.0).abs() < 100.0, "{f}");

    let ab = stdout_json(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
        "-",
    ]);
    let x = iops(&ab);
    assert_eq!(x["method"], "repetitions");
    assert!((num(x, "ratio") - 1.5).abs() <= 0.075, "{x}");
    assert_eq!(x["significant"], true, "{x}");
    assert!(num(x, "ci95_low") > 1.0);

    let ac = stdout_json(&[
        "compare",
        a.to_str().unwrap(),
        c.to_str().unwrap(),
        "--json",
        "-",
    ]);
    let x = iops(&ac);
    assert_eq!(x["significant"], false, "{x}");
    assert!((num(x, "ratio") - 1.0).abs() < 0.05, "{x}");
}
