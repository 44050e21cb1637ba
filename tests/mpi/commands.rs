//! Issue 36: `sweep` on disks behind a capped bus, `profile` and `experiment` under MPI, three
//! ranks: every point's totals are the ranks' sums, and one figure of each command meets an
//! answer known from the flags or the caps.

use crate::common::{Bus, num};
use crate::{mpi_halfpower, ompi_env, three_rank_job, totals_are_the_ranks_sums};
use serde_json::Value;
use std::path::Path;

/// blk-throttle's slice: 100 ms and a jiffy at HZ = 250 (tests/suite/scale.rs).
const SLICE_S: f64 = 0.104;
/// How far apart the ranks leave the barrier that starts the measured phase: three
/// busy-polling ranks on two CPUs, one of them waiting a few of the scheduler's 1.5-ms slices.
const SKEW_S: f64 = 0.01;
/// Each disk's caps, and the bus's: 3 × 40 MB/s is more than the bus carries.
const DISK_BPS: f64 = 40e6;
const DISK_IOPS: f64 = 200.0;
const BUS_BPS: f64 = 100e6;
/// The sweep's request sizes and each point's length.
const SIZES: [f64; 3] = [65536.0, 131072.0, 262144.0];
const SECONDS: f64 = 5.0;

/// What the caps let three ranks, each on its own disk, move at request size `bs`, bytes/s:
/// 3 × 200 × 64 KiB = 39.3 MB/s, 78.6 MB/s at 128 KiB, and the bus's 100 MB/s at 256 KiB
/// (each disk's 40 MB/s is then more than its third of the bus).
fn capped(bs: f64) -> f64 {
    (3.0 * (DISK_IOPS * bs).min(DISK_BPS)).min(BUS_BPS)
}

/// How far the job's figure over `seconds` can be from a backlogged cap of `rate`, as a share:
/// a slice's budget ahead at the start and behind at the end, one more request per disk
/// (tests/suite/scale.rs's throttle_bound for three disks), and the ranks' start skew. At 5 s
/// and 256 KiB: 4.3 % + 0.2 %.
fn bound(rate: f64, seconds: f64, bs: f64) -> f64 {
    (2.0 * SLICE_S * rate + 3.0 * bs) / (rate * seconds) + SKEW_S / seconds
}

/// The sweep as a job of three ranks started inside the bus's cgroup (the ranks inherit it),
/// each on `dir/d.{rank}`, a symbolic link to its disk.
fn sweep_on_the_bus(hp: &Path, bus: &Bus, dir: &Path) -> Value {
    let json = dir.join("sweep.json");
    let _ = std::fs::remove_file(&json); // a first attempt's
    let target = dir.join("d.{rank}");
    let args = [
        "--oversubscribe",
        "-np",
        "3",
        hp.to_str().unwrap(),
        "sweep",
        target.to_str().unwrap(),
        "--rw",
        "randread",
        "--bs",
        "64k,128k,256k",
        "--qd",
        "4",
        "--time",
        "5s",
        "--warmup",
        "300ms",
        "--json",
        json.to_str().unwrap(),
        "--quiet",
    ];
    let mut c = bus.throttle.command_of(Path::new("mpirun"), &args);
    let out = ompi_env(&mut c).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// One point against the caps. Above the bound, or below it while the bus's own counters
/// (rank 0's window) carried the caps' rate, halfpower's figure is wrong: this panics. Below
/// it with the counters below too, the device delivered less (its loop workers were held
/// back): Err.
fn point_against_caps(p: &Value, bus_name: &str) -> Result<(), String> {
    let bs = num(p, "bs_bytes");
    let (want, got) = (capped(bs), num(p, "bytes_per_s"));
    let seconds = num(p, "results.seconds");
    let b = bound(want, seconds, bs);
    eprintln!(
        "{bs} B: {:.2} MB/s over {seconds:.3} s, the caps allow {:.2} MB/s ± {:.1} %",
        got / 1e6,
        want / 1e6,
        b * 100.0
    );
    assert!(
        got <= want * (1.0 + b),
        "{bs} B: {got} B/s above {want} B/s + {b}"
    );
    if got >= want * (1.0 - b) {
        return Ok(());
    }
    let devs = p["results"]["devices"].as_array().unwrap();
    let bus = devs.iter().find(|d| d["name"] == bus_name).unwrap();
    let counted = num(bus, "read_bytes") / num(bus, "seconds");
    assert!(
        counted < want * (1.0 - b),
        "{bs} B: {got} B/s, the bus's counters carried {counted} B/s of {want} B/s"
    );
    Err(format!(
        "{bs} B: {got} B/s and {counted} B/s on the bus, the caps allow {want} B/s"
    ))
}

/// Each point's devices: every rank's disk and the bus, once each (the symbolic links were
/// followed to the block devices), each disk's counters its own rank's bytes exactly.
fn every_disk_once(p: &Value, disks: &[String], bus_name: &str) {
    let devs = p["results"]["devices"].as_array().unwrap();
    let mut names: Vec<&str> = devs.iter().map(|d| d["name"].as_str().unwrap()).collect();
    names.sort();
    let mut want: Vec<&str> = disks.iter().map(String::as_str).chain([bus_name]).collect();
    want.sort();
    assert_eq!(names, want, "{}", p["results"]["devices"]);
    for (rank, disk) in p["results"]["ranks"].as_array().unwrap().iter().zip(disks) {
        let d = devs.iter().find(|d| d["name"] == disk.as_str()).unwrap();
        assert_eq!(d["read_bytes"], rank["results"]["total"]["bytes"], "{disk}");
    }
}

/// The sweep's analysis against the caps: the plateau is the bus's 100 MB/s (256k alone, 128k's
/// 78.6 MB/s is 21 % below), and the half-power point, the smallest size reaching half the
/// plateau, is the one the caps' arithmetic gives (128k: 64k's 39.3 MB/s is under 50).
fn analysis_against_caps(a: &Value) {
    let peak = num(a, "peak_bytes_per_s");
    assert_eq!(num(a, "reference_bytes_per_s"), peak, "no PAP: {a}");
    let b = bound(BUS_BPS, SECONDS, SIZES[2]);
    eprintln!(
        "plateau {:.2} MB/s against the bus's 100 ± {:.1} %",
        peak / 1e6,
        b * 100.0
    );
    assert!((peak / BUS_BPS - 1.0).abs() <= b, "plateau {peak} B/s: {a}");
    assert_eq!(a["plateau"].as_array().unwrap().len(), 1, "{a}");
    assert_eq!(num(&a["plateau"][0], "bs_bytes"), SIZES[2], "{a}");
    // The arithmetic's answer, unambiguous within every point's bound.
    let half = BUS_BPS / 2.0;
    let known = *SIZES.iter().find(|&&bs| capped(bs) >= half).unwrap();
    for bs in SIZES {
        let (lo, hi) = (
            1.0 - bound(capped(bs), SECONDS, bs),
            1.0 + bound(capped(bs), SECONDS, bs),
        );
        let apart = capped(bs) * hi < half * (1.0 - b) || capped(bs) * lo > half * (1.0 + b);
        assert!(
            apart,
            "{bs} B: the caps leave the half-power point to the bounds"
        );
    }
    let cells = a["half_power"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "one depth: {a}");
    eprintln!(
        "half-power at {} B, the caps' answer {known} B",
        cells[0]["bs_bytes"]
    );
    assert_eq!(num(&cells[0], "bs_bytes"), known, "{a}");
    assert_eq!(cells[0]["qd"], 4, "{a}");
}

/// `sweep` under MPI on three disks of 40 MB/s and 200 IOPS behind a bus of 100 MB/s (000's
/// three disks saturating a bus), each rank on its own disk through a symbolic link: every
/// point within the caps' bound, its totals the ranks' sums, every disk's counters its rank's;
/// the plateau is the bus and the half-power point the caps' 128k. Measured again (once) only
/// when the bus's own counters show that the device delivered less. Run by
/// tests/mpi/scale_ranks.rs beside the other jobs timed against a throttle (they need little
/// CPU), with no other timing test beside them: another test's ranks busy-polling on these two
/// CPUs held a rank back 0.6 s.
pub(crate) fn sweep_on_disks_behind_a_capped_bus_finds_the_bus_and_the_half_power_size(hp: &Path) {
    let Some(bus) = Bus::new("mpisweep", 3, 32 << 20, DISK_BPS as u64, BUS_BPS as u64) else {
        return;
    };
    for d in &bus.disks {
        bus.throttle.limit(d, DISK_BPS as u64, DISK_IOPS as u64);
    }
    let dir = tempfile::tempdir().unwrap();
    for (i, d) in bus.disks.iter().enumerate() {
        std::os::unix::fs::symlink(d, dir.path().join(format!("d.{i}"))).unwrap();
    }
    let bus_name = bus.bus.name();
    let disks: Vec<String> = (bus.disks.iter())
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let judged = |v: &Value| -> Result<(), String> {
        let points = v["points"].as_array().unwrap();
        points
            .iter()
            .try_for_each(|p| point_against_caps(p, &bus_name))
    };
    let mut v = sweep_on_the_bus(hp, &bus, dir.path());
    if let Err(why) = judged(&v) {
        eprintln!("measuring again: {why}");
        v = sweep_on_the_bus(hp, &bus, dir.path());
        judged(&v).unwrap_or_else(|why| panic!("twice: {why}"));
    }
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        totals_are_the_ranks_sums(&p["results"], &format!("{}", p["bs_bytes"]));
        every_disk_once(p, &disks, &bus_name);
    }
    for (t, disk) in v["targets"].as_array().unwrap().iter().zip(&disks) {
        assert_eq!(t["device"], disk.as_str(), "{t}");
    }
    analysis_against_caps(&v["analysis"][0]);
}

/// `profile` under MPI: each cell is a job of the three ranks, each rank reading `--bytes 1m`
/// of its own file, so every cell moves 3 MiB in 3 MiB / bs requests. With three I/Os in
/// flight (one per rank) 1/IOPS is no service time: none is given, and no line fitted.
#[test]
fn profile_cells_are_jobs_of_every_rank() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("p.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "profile",
            target.to_str().unwrap(),
            "--quick",
            "--reads-only",
            "--size",
            "8m",
            "--bytes",
            "1m",
            "--warmup",
            "0",
        ],
    );
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12, "3 patterns × 3 sizes, and QD4 random");
    for c in cells {
        let what = format!("{} {} QD{}", c["pattern"], c["bs_bytes"], c["qd"]);
        let r = &c["results"];
        totals_are_the_ranks_sums(r, &what);
        assert_eq!(num(r, "total.bytes"), 3.0 * 1048576.0, "{what}");
        assert_eq!(num(r, "total.ios"), 3.0 * 1048576.0 / num(c, "bs_bytes"));
        assert_eq!(num(c, "iops"), num(r, "read.iops"), "{what}: the job's");
        assert!(
            c["service_ms"].is_null() && c["device_service_ms"].is_null(),
            "{c}"
        );
    }
    assert_eq!(v["fits"].as_array().unwrap().len(), 0, "{}", v["fits"]);
    for r in 0..3 {
        assert!(
            !dir.path().join(format!("p.{r}")).exists(),
            "rank {r}'s file removed"
        );
    }
}

/// Files under `dir` whose names start with `prefix`, anywhere below it.
fn left_in(dir: &Path, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            out.extend(left_in(&e.path(), prefix));
        } else if name.starts_with(prefix) {
            out.push(name);
        }
    }
    out
}

/// `experiment` under MPI: every point of `buffering` (each rank in its own `{rank}`
/// directory) and of `allocation` (three ranks in one directory, each with its own files) is
/// a job whose totals are the ranks' sums, in whole requests of its size (each point measures
/// for --time, 200 ms here, in as many passes over each rank's 2-MiB file as fit). No scratch
/// file is left.
#[test]
fn experiment_points_are_jobs_of_every_rank() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for r in 0..3 {
        std::fs::create_dir(dir.path().join(r.to_string())).unwrap();
    }
    let each = dir.path().join("{rank}");
    let shared = dir.path().to_str().unwrap();
    for (name, target, points) in [
        ("buffering", each.to_str().unwrap(), 20),
        ("allocation", shared, 6),
    ] {
        let out = tempfile::tempdir().unwrap(); // the document, apart from the targets
        let v = three_rank_job(
            &hp,
            out.path(),
            &[
                "experiment",
                name,
                target,
                "--size",
                "2m",
                "--time",
                "200ms",
                "--warmup",
                "0",
            ],
        );
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), points, "{name}");
        for row in rows {
            let what = format!(
                "{name} {} {} {}",
                row["variant"], row["rw"], row["bs_bytes"]
            );
            let r = &row["results"];
            totals_are_the_ranks_sums(r, &what);
            let ios = num(r, "total.ios");
            assert!(ios >= 3.0, "{what}: every rank's requests");
            assert_eq!(num(r, "total.bytes"), ios * num(row, "bs_bytes"), "{what}");
            let dir = row["rw"].as_str().unwrap();
            assert_eq!(
                num(row, "bytes_per_s"),
                num(r, &format!("{dir}.bytes_per_s"))
            );
        }
    }
    let left = left_in(dir.path(), "halfpower-experiment");
    assert!(left.is_empty(), "scratch files left: {left:?}");
}
