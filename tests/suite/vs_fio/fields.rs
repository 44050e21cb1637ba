//! Every figure of `halfpower fio`'s JSON against fio 3.x's on the same job and the same device:
//! a loop device throttled by blkio to 2000 IOPS and 40 MB/s each way, so the device, not the
//! machine, sets the rates. Each [`Case`] of [`CASES`] runs once under fio and once under
//! `halfpower fio`, then:
//!
//! - every numeric field fio fills with a non-zero value is non-zero in halfpower's job object
//!   (a walk over fio's object; [`CANNOT_FILL`] lists, with the reason, what halfpower cannot
//!   fill, and [`DISTRIBUTIONS`] the maps compared as distributions instead);
//! - `latency_ns` + `latency_us` + `latency_ms` add up to 100 ± 0.5 %;
//! - IOPS and bandwidth per direction agree within [`rate_tolerance`];
//! - the mean latency is bounded as the case's [`ClatBound`] says;
//! - `iodepth_level` agrees within 10 points per bucket;
//! - and the case's own check, if it has one.
//!
//! To add a job, add a [`Case`] to [`CASES`], on the device itself or in a directory of an
//! ext4 file system on a second loop device under the same throttle ([`On`]).

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// The throttle every case runs under, IOPS each way.
const LIMIT_IOPS: u64 = 2000;
/// And bytes per second each way.
const LIMIT_BPS: u64 = 40_000_000;
/// blk-throttle grants I/O in slices of 100 ms (`throtl_slice`).
const SLICE_S: f64 = 0.1;

/// How a case's mean latency is bounded.
#[derive(Clone, Copy, Debug)]
pub enum ClatBound {
    /// The throttle is the bottleneck and the queue stays full: by Little's law the mean
    /// latency is (I/Os in flight) / IOPS in both tools, so the I/O-weighted mean over the
    /// directions agrees as the IOPS do, within [`rate_tolerance`]. halfpower's latency runs
    /// from submission to completion, which is fio's `lat` (fio's `clat` leaves the submit
    /// call out), so fio's `lat_ns` is the one compared.
    Little,
    /// Paced well below what the device does: each request completes before the next is due,
    /// so both tools' mean lies below the pacing interval, ms. Its size is the loop device's
    /// own service time and how long each tool waits for the CPU, which this shared machine
    /// does not hold steady (fio alone measured means from 28 µs to 4.5 ms at 50 IOPS here),
    /// so the two means are not compared.
    BelowInterval(f64),
}

/// Where a case's job does its I/O.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum On {
    /// The throttled loop device itself: `filename=DEV size=48m`.
    Device,
    /// A directory of an ext4 file system on a throttled loop device (`directory=DIR`, no
    /// filename: each tool names and lays out the job's files, which are removed before each
    /// tool's run; halfpower's report must name each file fio laid out).
    Directory,
}

/// One job run by both tools.
pub struct Case {
    /// The job's name.
    pub name: &'static str,
    /// Where it runs.
    pub on: On,
    /// Its options (fio's command-line form without the dashes).
    pub options: &'static [&'static str],
    /// How its mean latency is bounded.
    pub clat: ClatBound,
    /// A check of its own on (fio's job object, halfpower's job object).
    /// The last argument is [`depth_slack`]'s, in points of a share.
    pub extra: Option<fn(&Value, &Value, f64)>,
}

/// Options every case has.
const COMMON: [&str; 2] = ["ioengine=io_uring", "direct=1"];

/// The jobs. Where the throttle is to be the bottleneck (Little), the depth covers a round trip
/// of 16 ms at the caps (32 / 2000 IOPS): a closed loop reaches a cap only while its depth
/// covers the round trip, and beside the suite's other tests each wake-up on the loop's path
/// may wait for a CPU (at QD4, 2 ms, one tool read 495 IOPS under the 2000 cap).
pub const CASES: [Case; 11] = [
    Case {
        on: On::Device,
        name: "read-only",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=32",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: None,
    },
    Case {
        on: On::Device,
        name: "write-only",
        options: &["rw=write", "bs=4k", "iodepth=32", "time_based", "runtime=2"],
        clat: ClatBound::Little,
        extra: None,
    },
    Case {
        on: On::Device,
        name: "randrw",
        options: &[
            "rw=randrw",
            "rwmixread=70",
            "bs=8k",
            "iodepth=32",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: None,
    },
    Case {
        on: On::Device,
        name: "unified-mixed",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=32",
            "unified_rw_reporting=1",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: Some(only_mixed),
    },
    Case {
        on: On::Device,
        name: "unified-both",
        options: &[
            "rw=randrw",
            "bs=4k",
            "iodepth=64",
            "unified_rw_reporting=both",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: Some(mixed_is_read_and_write),
    },
    Case {
        on: On::Device,
        name: "rate-capped",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=10",
            "rate_iops=1000",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::BelowInterval(1.0),
        extra: Some(at_the_rate_cap),
    },
    Case {
        on: On::Device,
        name: "think",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=4",
            "thinktime=5000",
            "thinktime_blocks=4",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::BelowInterval(5.0),
        extra: Some(refilled_from_empty),
    },
    Case {
        on: On::Device,
        name: "size-with-ramp",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=32",
            "size=24m",
            "ramp_time=1",
        ],
        clat: ClatBound::Little,
        extra: Some(ramp_counts_toward_size),
    },
    Case {
        on: On::Directory,
        name: "two-clones",
        options: &[
            "rw=read",
            "bs=64k",
            "iodepth=4",
            "numjobs=2",
            "group_reporting",
            "size=24m",
        ],
        clat: ClatBound::Little,
        extra: Some(each_clone_its_own_size),
    },
    Case {
        on: On::Device,
        name: "normal",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=32",
            "random_distribution=normal:5",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: None,
    },
    Case {
        on: On::Device,
        name: "zipf",
        options: &[
            "rw=randread",
            "bs=4k",
            "iodepth=32",
            "random_distribution=zipf:1.2",
            "time_based",
            "runtime=2",
        ],
        clat: ClatBound::Little,
        extra: None,
    },
];

/// Fields fio fills that halfpower cannot, each with the reason (a `*` stands for any one key).
pub const CANNOT_FILL: [(&str, &str); 4] = [
    (
        "*.slat_ns.*",
        "halfpower submits and waits in one io_uring_enter call, so it has no instant between \
         preparing a request and the kernel taking it to time apart: its latency is fio's lat, \
         and slat stays N = 0 (docs/fio.md)",
    ),
    (
        "usr_cpu",
        "the kernel splits a process's CPU time between user and system by the mode its threads \
         were in at each timer tick; a process that runs briefly between waits can have every \
         tick land in one mode and read 0 in the other (halfpower's sys_cpu once read 0 here \
         over 2 s): their sum is checked instead",
    ),
    (
        "sys_cpu",
        "as usr_cpu: the split is sampled by ticks; their sum is checked instead",
    ),
    (
        "majf",
        "major page faults count what each process had to page in from disk (its own binary \
         and libraries), not anything the job did",
    ),
];

/// Maps keyed by a range, compared as distributions: their sums and the checks above, not
/// bucket by bucket (a 0.1 % bucket in one tool's run may be empty in the other's).
/// `latency_*` move across a bucket edge because fio's clat starts after the submit call and
/// halfpower's latency before it; `iodepth_submit`/`_complete` count calls, and halfpower
/// refills every free slot in one call where fio sends each request in its own
/// (iodepth_batch=1): there only the bucket fio holds most of must be non-zero.
pub const DISTRIBUTIONS: [&str; 6] = [
    "latency_ns",
    "latency_us",
    "latency_ms",
    "iodepth_level",
    "iodepth_submit",
    "iodepth_complete",
];

/// Whether `path` (dotted) matches `pattern`, `*` standing for one key.
fn matches(pattern: &str, path: &str) -> bool {
    let (p, k): (Vec<&str>, Vec<&str>) = (pattern.split('.').collect(), path.split('.').collect());
    p.len() == k.len() && p.iter().zip(&k).all(|(a, b)| *a == "*" || a == b)
}

/// Walks fio's `f` and halfpower's `h` (the same place in both documents, `path` dotted) and
/// adds to `out` every numeric leaf of `f` that is non-zero while `h`'s is zero or missing,
/// except under [`DISTRIBUTIONS`] (at the top) and where [`CANNOT_FILL`] excuses it.
fn walk(f: &Value, h: Option<&Value>, path: &str, out: &mut Vec<String>) {
    match f {
        Value::Object(m) => {
            for (k, x) in m {
                if path.is_empty() && DISTRIBUTIONS.contains(&k.as_str()) {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(x, h.and_then(|h| h.get(k)), &p, out);
            }
        }
        Value::Number(n) => {
            let fio = n.as_f64().unwrap_or(0.0);
            let mine = h.and_then(Value::as_f64).unwrap_or(0.0);
            let excused = CANNOT_FILL.iter().any(|(pat, _)| matches(pat, path));
            if fio != 0.0 && mine == 0.0 && !excused {
                out.push(format!("{path}: fio {fio}, halfpower {h:?}"));
            }
        }
        _ => {}
    }
}

/// The numeric fields fio fills and halfpower leaves zero or out, that [`CANNOT_FILL`] does not
/// excuse.
pub fn unfilled(fio: &Value, hp: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(fio, Some(hp), "", &mut out);
    out
}

/// The buckets of map `key` of a job, in order.
fn buckets(job: &Value, key: &str) -> Vec<(String, f64)> {
    job[key]
        .as_object()
        .unwrap_or_else(|| panic!("no {key} in {job}"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
        .collect()
}

/// The sum of fio's three latency maps, %.
fn latency_sum(job: &Value) -> f64 {
    ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| buckets(job, k))
        .map(|b| b.1)
        .sum()
}

/// The relative difference two tools' rates may show over a measured window of `seconds`:
/// blk-throttle grants I/O per 100-ms slice, so a tool's window may open with a slice's grant
/// already there (the first after idle) or close with a slice's I/Os still held (which its
/// drain counts over a longer window): each tool may be off the throttle's rate by one slice
/// over T, so 2 × 0.1 s / T between the two, plus 2 % for the rounding of rates over T.
pub fn rate_tolerance(seconds: f64) -> f64 {
    2.0 * SLICE_S / seconds + 0.02
}

/// The directions a job reports rates in: `mixed` alone with unified_rw_reporting=1, else
/// `read` and `write`.
fn directions(job: &Value) -> Vec<&'static str> {
    if job.get("read").is_none() {
        vec!["mixed"]
    } else {
        vec!["read", "write"]
    }
}

/// The mean latency over every I/O of `job`, ns, from `object` (`lat_ns` or `clat_ns`) of each
/// direction, weighted by their counts.
fn mean_latency(job: &Value, object: &str) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for d in directions(job) {
        let l = &job[d][object];
        sum += num(l, "mean") * num(l, "N");
        n += num(l, "N");
    }
    sum / n.max(1.0)
}

/// Runs `program` with a job's options and `extra` arguments in the throttle's cgroup; its
/// JSON. fio may print a warning line before the document; it is skipped.
fn run(throttle: &Throttle, program: &Path, extra: &[&str], options: &[String]) -> Value {
    let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    args.extend(options.iter().map(|o| format!("--{o}")));
    args.push("--output-format=json".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = throttle.command_of(program, &refs).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} {refs:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let start = text.find('{').unwrap_or(0);
    serde_json::from_str(&text[start..])
        .unwrap_or_else(|e| panic!("{} {refs:?}: {e}: {text}", program.display()))
}

/// Checks one case; returns its line for the summary.
fn check(case: &Case, fio: &Value, hp: &Value, slack: f64) -> String {
    let name = case.name;
    assert_eq!(fio["jobname"], hp["jobname"]);
    let missing = unfilled(fio, hp);
    assert!(
        missing.is_empty(),
        "{name}: fields fio fills and halfpower does not: {missing:#?}"
    );
    let cpu = |j: &Value| num(j, "usr_cpu") + num(j, "sys_cpu");
    assert!(cpu(fio) == 0.0 || cpu(hp) > 0.0, "{name}: no CPU time");
    // fio 3.33 counts in its latency buckets, but not in the total they are shares of, the
    // requests in flight when ramp_time ends (size-with-ramp at iodepth=32: 100.75 %, 32 of
    // 4144 reads), so its sum may exceed 100 by the depth's share of the total.
    let ramp_depth = |job: &Value| {
        let depth = case
            .options
            .iter()
            .find_map(|o| o.strip_prefix("iodepth="))
            .map_or(1.0, |d| d.parse().unwrap());
        let ios: f64 = directions(job)
            .iter()
            .map(|d| num(&job[*d], "total_ios"))
            .sum();
        let ramps = case.options.iter().any(|o| o.starts_with("ramp_time="));
        if ramps && std::ptr::eq(job, fio) {
            100.0 * depth / ios.max(1.0)
        } else {
            0.0
        }
    };
    for job in [fio, hp] {
        let sum = latency_sum(job);
        assert!(
            (sum - 100.0).abs() <= 0.5 + ramp_depth(job),
            "{name}: latency buckets add to {sum}"
        );
    }
    for key in ["iodepth_submit", "iodepth_complete"] {
        let f = buckets(fio, key);
        let top = f.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        let h = buckets(hp, key);
        let mine = h.iter().find(|b| b.0 == top.0).unwrap().1;
        assert!(mine > 0.0, "{name}: {key} {f:?} vs {h:?}");
    }
    let (f, h) = (buckets(fio, "iodepth_level"), buckets(hp, "iodepth_level"));
    let top = |b: &[(String, f64)]| -> String {
        let t = b.iter().max_by(|x, y| x.1.total_cmp(&y.1)).unwrap();
        format!("\"{}\": {:.1}", t.0, t.1)
    };
    let levels = format!("iodepth_level fio {} halfpower {}", top(&f), top(&h));
    for (a, b) in f.iter().zip(&h) {
        assert!(
            (a.1 - b.1).abs() <= 10.0 + slack,
            "{name}: iodepth_level {f:?} vs {h:?} (host slack {slack:.1} points)"
        );
    }
    let seconds = num(fio, "job_runtime") / 1000.0;
    let tol = rate_tolerance(seconds);
    let mut line = format!("{name}: tolerance {:.0} %", 100.0 * tol);
    for d in directions(fio) {
        for key in ["iops", "bw_bytes"] {
            let (a, b) = (num(&fio[d], key), num(&hp[d], key));
            line.push_str(&format!(", {d}.{key} fio {a:.0} halfpower {b:.0}"));
            if a > 0.0 {
                assert!((b / a - 1.0).abs() <= tol, "{name}: {d}.{key} {line}");
            }
        }
    }
    let (fl, hl) = (mean_latency(fio, "lat_ns"), mean_latency(hp, "clat_ns"));
    line.push_str(&format!(
        ", mean latency µs fio {:.1} halfpower {:.1}",
        fl / 1e3,
        hl / 1e3
    ));
    match case.clat {
        ClatBound::Little => assert!((hl / fl - 1.0).abs() <= tol, "{name}: {line}"),
        ClatBound::BelowInterval(ms) => {
            assert!(fl < ms * 1e6 && hl < ms * 1e6, "{name}: {line}");
        }
    }
    if let Some(extra) = case.extra {
        extra(fio, hp, slack);
    }
    line.push_str(&format!(", {levels}"));
    line
}

/// With unified_rw_reporting=1 only `mixed` is written, and it holds every I/O.
fn only_mixed(fio: &Value, hp: &Value, _slack: f64) {
    for job in [fio, hp] {
        assert!(
            job.get("read").is_none() && job.get("write").is_none(),
            "{job}"
        );
        assert_eq!(
            num(&job["mixed"], "clat_ns.N"),
            num(&job["mixed"], "total_ios")
        );
    }
}

/// With unified_rw_reporting=both, `read` and `write` are there and `mixed` adds them up.
fn mixed_is_read_and_write(fio: &Value, hp: &Value, _slack: f64) {
    for job in [fio, hp] {
        let total = num(&job["read"], "total_ios") + num(&job["write"], "total_ios");
        assert_eq!(num(&job["mixed"], "total_ios"), total, "{job}");
        let samples = num(&job["read"], "bw_samples") + num(&job["write"], "bw_samples");
        assert_eq!(num(&job["mixed"], "bw_samples"), samples, "{job}");
    }
}

/// rate_iops=1000 for 2 s (half the throttle's rate, so it never holds a request): 2000 reads
/// in each tool, within 2 %, each issued with nothing else in flight: the device answers in
/// tens of µs, well under the 1 ms between two, and a request goes out beside an earlier one
/// only when a tool is kept off the CPU for longer than that (fio 3.33 here: "1": 99.7,
/// "2": 0.25, "4": 0.1), less [`depth_slack`] where the host held a CPU. fio counted "4": 100
/// for halfpower's old invented level.
fn at_the_rate_cap(fio: &Value, hp: &Value, slack: f64) {
    for job in [fio, hp] {
        let n = num(&job["read"], "total_ios");
        assert!(
            (n / 2000.0 - 1.0).abs() <= 0.02,
            "{n} reads at 1000 IOPS for 2 s"
        );
        assert!(
            num(&job["iodepth_level"], "1") >= 90.0 - slack,
            "{} (host slack {slack:.1} points)",
            job["iodepth_level"]
        );
    }
}

/// thinktime_blocks=4 at iodepth=4: after each pause the queue refills from empty, one request
/// at depth 1, 2, 3 and 4 (fio's buckets "1", "2" (2–3), "4"): 25/50/25 % by the arithmetic of
/// the refill, as fio 3.33 counts it (24.98/49.96/25.06 on a loop device). Before the fix
/// halfpower counted all four at the depth after its one submit call: "4": 100.
fn refilled_from_empty(fio: &Value, hp: &Value, _slack: f64) {
    for job in [fio, hp] {
        let l = &job["iodepth_level"];
        for (bucket, share) in [("1", 25.0), ("2", 50.0), ("4", 25.0)] {
            assert!((num(l, bucket) - share).abs() <= 3.0, "{l}");
        }
    }
}

/// size=24m of 4 KiB reads is 6144 I/Os in all, ramp_time's included (fio counts them toward
/// size): 1 s of ramp at the throttle's 2000 IOPS takes 2000 of them, ± one 100-ms slice's 200
/// at each end, so the measured phase holds 6144 − 2000 ± 400.
fn ramp_counts_toward_size(fio: &Value, hp: &Value, _slack: f64) {
    let expected = 6144.0 - LIMIT_IOPS as f64;
    for job in [fio, hp] {
        let n = num(&job["read"], "total_ios");
        assert!(
            (n - expected).abs() <= 400.0,
            "{n} measured I/Os, {expected} expected"
        );
    }
}

/// numjobs=2 without a filename, size=24m of 64 KiB reads: each clone reads its own file of
/// 24 MiB once (fio gives each clone its own size), 768 reads in all in both tools.
fn each_clone_its_own_size(fio: &Value, hp: &Value, _slack: f64) {
    for job in [fio, hp] {
        assert_eq!(num(&job["read"], "total_ios"), 768.0, "{job}");
    }
}

/// The files in `dir` with their sizes, sorted by name.
fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().len())
        })
        .collect();
    v.sort();
    v
}

/// Empties `dir` (the files a tool laid out for the previous run).
fn clear(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
}

/// A throttled loop device for one tool, and a throttled file system when a case lays out files.
struct Place {
    lo: LoopDev,
    _fs: Option<Ext4>,
    dir: Option<std::path::PathBuf>,
}

impl Place {
    fn new(tag: &str, throttle: &Throttle, files: bool) -> Option<Place> {
        let lo = LoopDev::new(tag, 64 << 20)?;
        throttle.limit(&lo.dev, LIMIT_BPS, LIMIT_IOPS);
        let fs = if files {
            let fs = Ext4::new(&format!("{tag}fs"), 96 << 20)?;
            throttle.limit(&fs.lo.dev, LIMIT_BPS, LIMIT_IOPS);
            Some(fs)
        } else {
            None
        };
        let dir = fs.as_ref().map(|f| f.dir.path().join("jobs"));
        if let Some(d) = &dir {
            std::fs::create_dir(d).unwrap();
        }
        Some(Place { lo, _fs: fs, dir })
    }

    /// A case's options, placed here.
    fn options(&self, case: &Case) -> Vec<String> {
        let place = match (case.on, &self.dir) {
            (On::Device, _) => vec![format!("filename={}", self.lo.path()), "size=48m".into()],
            (On::Directory, Some(d)) => vec![format!("directory={}", d.display())],
            (On::Directory, None) => unreachable!("a file system is made for directory cases"),
        };
        std::iter::once(format!("name={}", case.name))
            .chain(place)
            .chain(COMMON.iter().chain(case.options).map(|o| o.to_string()))
            .collect()
    }
}

/// The cases, each run by fio and by halfpower side by side, each tool on its own twin of a
/// throttled loop device (and file system): every device is its own cap, and a throttled run
/// takes little CPU, so the two runs meet only in the host's noise, which the judgement
/// carries (`lost`). The pairs of documents, case by case.
pub fn run_cases(cases: &[Case]) -> Option<Vec<(Value, Value)>> {
    let throttle = Throttle::new("fiofields")?;
    let files = cases.iter().any(|c| c.on == On::Directory);
    let theirs = Place::new("fiofields-fio", &throttle, files)?;
    let ours = Place::new("fiofields-hp", &throttle, files)?;
    let hp = assert_cmd::cargo::cargo_bin("halfpower");
    let mut lines = Vec::new();
    for case in cases {
        let (fio, mine) = std::thread::scope(|s| {
            let fio = s.spawn(|| run(&throttle, Path::new("fio"), &[], &theirs.options(case)));
            let extra = ["fio", "--allow-write", "--quiet"];
            let mine = run(&throttle, &hp, &extra, &ours.options(case));
            (fio.join().unwrap(), mine)
        });
        if let (Some(d), Some(fio_dir), On::Directory) = (&ours.dir, &theirs.dir, case.on) {
            // fio leaves its files; halfpower removes the ones it made (tests/suite/fio/jobs.rs
            // compares their names and sizes with fio's while the job runs). What halfpower ran
            // on is in its report: the same names as fio's files.
            assert!(
                files_in(d).is_empty(),
                "{}: halfpower's files left",
                case.name
            );
            let names: Vec<String> = files_in(fio_dir).into_iter().map(|f| f.0).collect();
            clear(fio_dir);
            let target = mine["jobs"][0]["halfpower"]["target"]
                .as_str()
                .unwrap_or("")
                .to_string();
            for n in &names {
                assert!(
                    target.contains(n.as_str()),
                    "{}: {n} not in {target}",
                    case.name
                );
            }
        }
        lines.push((fio["jobs"][0].clone(), mine["jobs"][0].clone()));
    }
    Some(lines)
}

/// How many points a paced job's share at each depth may move for what the host did (`lost`:
/// [`Noise::lost_share`]). A paced request goes out beside an earlier one only when a
/// thread on its path (the tool's, the loop device's worker, the completion's) was kept off
/// its CPU past the gap between two requests: at most the share of the time the host held a
/// CPU, for each of those three threads. At most 40 points, so that depth 1 keeps half the
/// requests at the rate cap: halfpower's old invented level put all of them at 4.
pub fn depth_slack(lost: f64) -> f64 {
    (3.0 * 100.0 * lost).min(40.0)
}

/// Judges what [`run_cases`] measured, case by case: a line per case. `lost` is the share of
/// the time the host took while they ran ([`Noise::lost_share`]).
pub fn check_cases(cases: &[Case], measured: &[(Value, Value)], lost: f64) -> Vec<String> {
    let slack = depth_slack(lost);
    cases
        .iter()
        .zip(measured)
        .map(|(case, (fio, mine))| check(case, fio, mine, slack))
        .collect()
}

#[test]
fn paths_match_with_wildcards() {
    assert!(matches("*.slat_ns.*", "read.slat_ns.mean"));
    assert!(!matches("*.slat_ns.*", "read.clat_ns.mean"));
    assert!(!matches("*.slat_ns.*", "slat_ns.mean"));
}

#[test]
fn the_walk_finds_what_halfpower_leaves_out() {
    let fio: Value = serde_json::json!({
        "read": {"iops": 5.0, "slat_ns": {"mean": 3.0}, "drop_ios": 0},
        "latency_us": {"10": 50.0},
        "majf": 1,
        "ctx": 7
    });
    let hp: Value = serde_json::json!({
        "read": {"iops": 0.0, "slat_ns": {"mean": 0.0}, "drop_ios": 0},
        "latency_us": {"10": 0.0},
        "majf": 0
    });
    let missing = unfilled(&fio, &hp);
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(missing[0].starts_with("ctx") && missing[1].starts_with("read.iops"));
}
