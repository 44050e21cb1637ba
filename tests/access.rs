//! The access vocabulary on `run`, end to end with the null engine (no device, no root): rate
//! caps held over time, think time, request-size mixes, distributions in the record, refusals.

mod common;
use common::*;

/// A capped null run issues on an absolute schedule (request k at k / rate), catching up when
/// it falls behind, so the only error is the lag at the very end: well under 1 % of 10 s on any
/// machine that schedules a thread within 100 ms.
#[test]
fn an_iops_cap_is_held_within_one_percent_over_ten_seconds() {
    let v = run_json(&[
        "run",
        "null",
        "--engine",
        "null",
        "--rw",
        "randread",
        "--qd",
        "8",
        "--threads",
        "2",
        "--rate-iops",
        "4000",
        "--time",
        "10s",
        "--warmup",
        "200ms",
    ]);
    let iops = num(&v, "results.total.iops");
    assert!(
        (iops / 4000.0 - 1.0).abs() < 0.01,
        "{iops} IOPS against a cap of 4000"
    );
    assert_eq!(num(&v, "workload.rate_iops"), 4000.0);
}

#[test]
fn a_byte_rate_cap_holds_with_a_mix_of_sizes_drawn_by_weight() {
    let v = run_json(&[
        "run",
        "null",
        "--engine",
        "null",
        "--rw",
        "randwrite",
        "--qd",
        "4",
        "--bs",
        "4k/50:64k/30:256k/20",
        "--rate",
        "40m",
        "--time",
        "5s",
        "--warmup",
        "200ms",
    ]);
    let bps = num(&v, "results.total.bytes_per_s");
    let cap = 40.0 * 1048576.0;
    assert!((bps / cap - 1.0).abs() < 0.01, "{bps} B/s against {cap}");
    // Bytes per I/O is the mix's mean within the sampling error of the I/Os drawn.
    let ios = num(&v, "results.total.ios");
    let mean = num(&v, "results.total.bytes") / ios;
    let expect = 0.5 * 4096.0 + 0.3 * 65536.0 + 0.2 * 262144.0;
    // Standard deviation of one size is about 95 KiB; five of them over √ios.
    let sd = 97_000.0 / ios.sqrt();
    assert!(
        (mean - expect).abs() < 5.0 * sd,
        "{mean} vs {expect} ± {sd}"
    );
    assert_eq!(v["workload"]["bs"], "4k/50:64k/30:256k/20");
}

/// With think time the worker waits for its requests, then pauses: at most `every` requests
/// per pause, so the pause bounds the rate from above; sleeping overshoots, never undershoots.
#[test]
fn think_time_bounds_the_rate() {
    let v = run_json(&[
        "run",
        "null",
        "--engine",
        "null",
        "--qd",
        "4",
        "--think",
        "2ms",
        "--think-every",
        "4",
        "--time",
        "1s",
        "--warmup",
        "0",
    ]);
    let iops = num(&v, "results.total.iops");
    // 4 per 2 ms is 2000 IOPS at most; a sleep that overshot by a whole 2 ms each time would
    // still give 1000.
    assert!((1000.0..=2000.0 * 1.01).contains(&iops), "{iops}");
    assert_eq!(num(&v, "workload.think"), 0.002);
}

#[test]
fn distributions_and_strides_are_recorded_and_run() {
    let v = run_json(&[
        "run",
        "null",
        "--engine",
        "null",
        "--rw",
        "randrw",
        "--dist",
        "zipf:1.1",
        "--random-pct",
        "80",
        "--random-run",
        "2",
        "--time",
        "200ms",
        "--warmup",
        "0",
    ]);
    assert_eq!(v["workload"]["dist"], "zipf:1.1");
    assert_eq!(num(&v, "workload.random_pct"), 80.0);
    assert!(num(&v, "results.total.ios") > 0.0);
    let s = run_json(&[
        "run", "null", "--engine", "null", "--rw", "read", "--stride", "64k", "--time", "100ms",
        "--warmup", "0",
    ]);
    assert_eq!(s["workload"]["stride"], 65536);
}

#[test]
fn access_options_that_do_not_fit_are_refused_by_name() {
    let n = ["run", "null", "--engine", "null", "--time", "100ms"];
    let cases: &[(&[&str], &str)] = &[
        (&["--dist", "zipf:0"], "--dist"),
        (&["--rw", "read", "--dist", "zipf:1.2"], "--dist"),
        (
            &["--rw", "randread", "--dist", "zoned_abs:50/1g:50/1g"],
            "--dist",
        ),
        (&["--rw", "read", "--random-pct", "50"], "--random-pct"),
        (&["--rw", "randread", "--stride", "8k"], "--stride"),
        (&["--rw", "read", "--stride", "2k"], "--stride"),
        (&["--rate-iops", "0"], "--rate-iops"),
        (&["--bs", "4k/50:8k/60:16k/"], "--bs"),
    ];
    for (extra, flag) in cases {
        let mut args = n.to_vec();
        args.extend_from_slice(extra);
        let err = usage_error(&args);
        assert!(err.contains(flag), "{extra:?}: {err}");
    }
    let mut args: Vec<&str> = ["run", "null", "--engine", "null"].to_vec();
    args.extend(["--bytes", "1m", "--bs", "4k/50:8k/50"]);
    assert!(usage_error(&args).contains("--bytes"));
}

/// --fsync N flushes after every N writes, once everything in flight has completed, and
/// counts and times the flushes apart: 1024 writes with --fsync 8 are 128 fsyncs, and
/// --end-fsync adds one. halfpower fio maps fio's fsync the same way (fio 3.33 itself reports
/// 127 here: it skips the flush after the last batch when the job ends).
#[test]
fn fsync_every_n_writes_is_counted_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f");
    let f = f.to_str().unwrap();
    let v = run_json(&[
        "run",
        f,
        "--size",
        "4m",
        "--bytes",
        "4m",
        "--rw",
        "write",
        "--bs",
        "4k",
        "--qd",
        "4",
        "--fsync",
        "8",
        "--end-fsync",
        "--warmup",
        "0",
    ]);
    assert_eq!(num(&v, "results.total.ios"), 1024.0);
    assert_eq!(num(&v, "results.sync.count"), 129.0);
    assert!(num(&v, "results.sync.latency_us.mean") > 0.0);
    let v = run_json(&[
        "run",
        f,
        "--size",
        "4m",
        "--bytes",
        "4m",
        "--rw",
        "randrw",
        "--bs",
        "4k",
        "--fdatasync",
        "16",
        "--warmup",
        "0",
    ]);
    let writes = num(&v, "results.write.ios");
    assert_eq!(num(&v, "results.sync.count"), (writes / 16.0).floor());
    let fio = stdout_json(&[
        "fio",
        "--name=x",
        &format!("--filename={f}"),
        "--size=4m",
        "--rw=write",
        "--bs=4k",
        "--fsync=8",
        "--output-format=json",
        "--quiet",
    ]);
    assert_eq!(num(&fio["jobs"][0]["sync"], "total_ios"), 128.0);
    assert!(usage_error(&["run", "null", "--engine", "null", "--fsync", "8"]).contains("--fsync"));
}
