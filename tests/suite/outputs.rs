//! Issue 47, "one output path": every file each command writes where a flag (or a flag's
//! default) names it, met when it is there already. halfpower's rule (docs/report.md,
//! `commands/export.rs`) is that such a file is refused before anything runs, unless `--force`:
//! exit status 2, one line on stderr naming the flag and the path, the file as it was, nothing
//! printed or created, and at once, where the command would otherwise measure for 30 s. The
//! files replaced by design (fio's `--output` and logs, as fio replaces them; `--prom`, as a
//! batch job's textfile is) are held to that instead, and a verify state is continued.
//!
//! One table, [`rows`]: a row per file (the command line, the flag, how the path is given and
//! what is expected), so that adding a command's file is one row. A row whose file does not
//! keep the rule yet carries `known_gap`: its finding is printed and the test passes, and the
//! test fails once the gap is gone, so the mark is removed with it.

use crate::common::halfpower_spawnable;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What every existing file holds before its row runs.
const KEPT: &str = "kept: a file that was here before\n";

/// A refusal comes at once: a measuring row asks for 30 s, so this is well under it.
const QUICK: Duration = Duration::from_secs(5);

/// A refused row still running after this is stopped (SIGINT, then SIGKILL): it measures.
const REFUSED_LIMIT: Duration = Duration::from_secs(12);

/// A row that runs to its end (a replaced or continued file) is given this long.
const RUN_LIMIT: Duration = Duration::from_secs(90);

const RUN_A: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/report/run-file.json"
);
const RUN_B: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/report/run-loop.json"
);
const SWEEP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/report/sweep.json"
);
const IOSTAT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/diagnose/iostat-three-disks.txt"
);

/// How a row's path reaches the command.
#[derive(Clone, Copy, Debug)]
enum Given {
    /// `FLAG PATH`, two words.
    Spaced,
    /// `FLAG=PATH`, one word (fio's grammar).
    Joined,
    /// `FLAG=STEM` (fio's logs): the command names the file from the stem.
    Stem(&'static str),
    /// Not on the command line: the flag's default, a name in the working directory.
    Default,
}

/// What the command does with the file that is there.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Refused before anything runs (the rule).
    Refused,
    /// Replaced by the command's own output, as documented for this file.
    Replaced,
    /// Read and carried on, as documented (`run --verify-state`: the record is continued).
    Continued,
}

/// One file of one command, met already there.
struct Row {
    /// The command line without the path (`given` adds it).
    args: Vec<&'static str>,
    /// The flag that names the file (and that a refusal names).
    flag: &'static str,
    given: Given,
    /// The file, in the row's working directory.
    file: &'static str,
    expect: Expect,
    /// Makes the file instead of [`KEPT`]: a command line, the flag and the path added.
    prepare: Option<Vec<&'static str>>,
    /// Why the file does not keep the rule yet (issue 47); `None` where it does.
    known_gap: Option<&'static str>,
}

impl Row {
    /// The file as the command line names it: `FLAG PATH` (refused unless `--force`).
    fn new(args: &[&'static str], flag: &'static str, file: &'static str) -> Row {
        Row {
            args: args.to_vec(),
            flag,
            given: Given::Spaced,
            file,
            expect: Expect::Refused,
            prepare: None,
            known_gap: None,
        }
    }

    fn given(self, given: Given) -> Row {
        Row { given, ..self }
    }

    fn expect(self, expect: Expect) -> Row {
        Row { expect, ..self }
    }

    fn prepared(self, args: &[&'static str]) -> Row {
        let prepare = Some(args.to_vec());
        Row { prepare, ..self }
    }

    /// A row known to break the rule, and why (none now: kept for the next one found).
    #[allow(dead_code)]
    fn gap(self, why: &'static str) -> Row {
        let known_gap = Some(why);
        Row { known_gap, ..self }
    }

    /// `args` with the path added as `given` says.
    fn command_line(&self, args: &[&'static str]) -> Vec<String> {
        let mut line: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match self.given {
            Given::Spaced => line.extend([self.flag.to_string(), self.file.to_string()]),
            Given::Joined => line.push(format!("{}={}", self.flag, self.file)),
            Given::Stem(stem) => line.push(format!("{}={stem}", self.flag)),
            Given::Default => {}
        }
        line
    }

    /// How the table names the row: the command (its first words, `--from` with its file),
    /// the flag and the file.
    fn name(&self) -> String {
        let mut words = Vec::new();
        let mut args = self.args.iter();
        while let Some(a) = args.next().filter(|_| words.len() < 3) {
            match *a {
                "--from" => words.extend([*a, args.next().map_or("", |f| short(f))]),
                a if a.starts_with('-') => break,
                a => words.push(short(a)),
            }
        }
        let how = match (self.given, &self.prepare) {
            (Given::Default, _) => " (its default)",
            (Given::Stem(_), _) => " (from the stem)",
            (_, Some(_)) => " (one it kept)",
            _ => "",
        };
        format!("{} {} {}{how}", words.join(" "), self.flag, self.file)
    }
}

/// A fixture's path as a table shows it: its file name.
fn short(arg: &str) -> &str {
    arg.rsplit('/').next().unwrap_or(arg)
}

/// `run`, `quick`, `sweep`, `profile` and `scale`, each on the null engine (quick on a 1 MiB
/// scratch file) for 30 s, unless refused at once; the replacing rows for a moment.
fn measuring_rows() -> Vec<Row> {
    let run = [
        "run", "null", "--engine", "null", "--time", "30s", "--warmup", "0",
    ];
    let run_short = [
        "run", "null", "--engine", "null", "--time", "200ms", "--warmup", "0",
    ];
    let quick = [
        "quick", ".", "--size", "1m", "--time", "30s", "--warmup", "0",
    ];
    let quick_short = [
        "quick", ".", "--size", "1m", "--time", "100ms", "--warmup", "0",
    ];
    let sweep = [
        "sweep", "null", "--engine", "null", "--rw", "read", "--bs", "4k", "--qd", "1", "--time",
        "30s", "--warmup", "0",
    ];
    let sweep_short = [&sweep[..10], &["--time", "100ms", "--warmup", "0"]].concat();
    let profile = [
        "profile",
        "null",
        "--engine",
        "null",
        "--quick",
        "--reads-only",
        "--time",
        "30s",
    ];
    let scale = [
        "scale", "null", "null2", "--engine", "null", "--time", "30s",
    ];
    // A state kept by a verified run on a 1 MiB file, then given again.
    let verified = [
        "run", "f", "--size", "1m", "--rw", "write", "--warmup", "0", "--quiet",
    ];
    let keep_state = [&verified[..], &["--time", "200ms", "--keep"]].concat();
    let continue_state = [&verified[..], &["--time", "200ms", "--allow-write"]].concat();
    let long_verified = [&verified[..], &["--time", "30s"]].concat();
    vec![
        Row::new(&run, "--json", "o.json"),
        Row::new(&run, "--html", "o.html"),
        Row::new(&run, "--io-log", "io.csv"),
        // docs/monitor.md, "Batch results": a batch job rewrites its textfile each run.
        Row::new(&run_short, "--prom", "o.prom").expect(Expect::Replaced),
        // A file that is not a state is refused as one (docs/verify.md) before the run...
        Row::new(&long_verified, "--verify-state", "state"),
        // ... and a state is continued by design (docs/verify.md: same id, generations on).
        Row::new(&continue_state, "--verify-state", "state")
            .prepared(&keep_state)
            .expect(Expect::Continued),
        Row::new(&quick, "--json", "o.json"),
        Row::new(&quick, "--html", "o.html"),
        Row::new(&quick_short, "--prom", "o.prom").expect(Expect::Replaced),
        Row::new(&sweep, "--json", "o.json"),
        Row::new(&sweep, "--html", "o.html"),
        Row::new(&sweep, "--csv", "o.csv"),
        Row::new(&sweep_short, "--prom", "o.prom").expect(Expect::Replaced),
        Row::new(&["sweep", "--from", SWEEP], "--json", "o.json"),
        Row::new(&["sweep", "--from", SWEEP], "--html", "o.html"),
        Row::new(&["sweep", "--from", SWEEP], "--csv", "o.csv"),
        Row::new(&["sweep", "--from", SWEEP], "--prom", "o.prom").expect(Expect::Replaced),
        Row::new(&profile, "--json", "o.json"),
        Row::new(&profile, "--html", "o.html"),
        Row::new(&scale, "--json", "o.json"),
        Row::new(&scale, "--html", "o.html"),
    ]
}

/// Every experiment (a scratch file in `d`, 30 s a point), `replay` (a trace whose second
/// request is due at 30 s), `pts` (30-s rounds), `monitor` (one 30-s interval), `capture`
/// (30 s; refused before its device is looked at) and `selftest` (about 8 s without its device).
fn other_measuring_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for kind in [
        "buffering",
        "allocation",
        "alignment",
        "cache",
        "writecache",
        "burst",
    ] {
        let args = ["experiment", kind, "d", "--size", "1m", "--time", "30s"];
        rows.push(Row::new(&args, "--json", "o.json"));
        rows.push(Row::new(&args, "--html", "o.html"));
    }
    let replay = ["replay", "slow.trace", "null", "--engine", "null"];
    let pts = [
        "pts", "null", "--engine", "null", "--test", "latency", "--round", "30s", "--size", "1m",
    ];
    let monitor = ["monitor", "--interval", "30s", "--count", "1"];
    let capture = ["capture", "loop0", "--time", "30s"];
    rows.extend([
        Row::new(&replay, "--json", "o.json"),
        Row::new(&replay, "--html", "o.html"),
        Row::new(&pts, "--json", "o.json"),
        Row::new(&pts, "--html", "o.html"),
        Row::new(&monitor, "--json", "o.jsonl"),
        Row::new(&monitor, "--log", "o.csv"),
        Row::new(&monitor, "--log", "o.jsonl"),
        Row::new(&capture, "-o", "o.trace"),
        Row::new(&capture, "--output", "o.trace"),
        Row::new(&capture, "--json", "o.json"),
        Row::new(&capture, "--html", "o.html"),
        Row::new(&["selftest", "--no-device"], "--json", "o.json"),
        Row::new(&["selftest", "--no-device"], "--html", "o.html"),
        Row::new(&["selftest", "--no-device", "--quiet"], "--prom", "o.prom")
            .expect(Expect::Replaced),
    ]);
    rows
}

/// The commands that read documents, logs, sysfs or a target: they refuse as the others do.
fn reading_rows() -> Vec<Row> {
    let verify = ["verify", "blocks", "--bs", "4k"];
    vec![
        Row::new(&["diagnose", IOSTAT], "--json", "o.json"),
        Row::new(&["diagnose", IOSTAT], "--html", "o.html"),
        Row::new(&["report", RUN_A], "-o", "o.html"),
        Row::new(&["report", RUN_A], "--output", "o.html"),
        // Without -o the report goes next to its first RESULT (r.json, a copy of a fixture).
        Row::new(&["report", "r.json"], "-o", "halfpower-report.html").given(Given::Default),
        Row::new(&["compare", RUN_A, RUN_B], "--json", "o.json"),
        Row::new(&["compare", RUN_A, RUN_B], "--html", "o.html"),
        Row::new(&["trend", RUN_B, RUN_B], "--json", "o.json"),
        Row::new(&["trend", RUN_B, RUN_B], "--html", "o.html"),
        Row::new(&verify, "--json", "o.json"),
        Row::new(&verify, "--html", "o.html"),
        Row::new(&["path"], "--capture", "o.tar.gz"),
        Row::new(&["path"], "--json", "o.json"),
        Row::new(&["path"], "--html", "o.html"),
        Row::new(&["doctor"], "--json", "o.json"),
        Row::new(&["doctor"], "--html", "o.html"),
    ]
}

/// `fio`'s `--output` and its `write_*_log` files are replaced, as fio replaces them
/// (docs/fio.md; `export::Output::Fio`): a 1 MiB job on the null engine.
fn fio_rows() -> Vec<Row> {
    let job = [
        "fio",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
        "--bs=4k",
    ];
    let json = [&job[..], &["--output-format=json"]].concat();
    let logged = [&job[..], &["--output=/dev/null"]].concat();
    let one_log = [&logged[..], &["--per_job_logs=0"]].concat();
    let log = |flag, file| {
        Row::new(&logged, flag, file)
            .given(Given::Stem("hp"))
            .expect(Expect::Replaced)
    };
    vec![
        Row::new(&job, "--output", "o.txt")
            .given(Given::Joined)
            .expect(Expect::Replaced),
        Row::new(&json, "--output", "o.json")
            .given(Given::Joined)
            .expect(Expect::Replaced),
        log("--write_bw_log", "hp_bw.1.log"),
        log("--write_iops_log", "hp_iops.1.log"),
        log("--write_lat_log", "hp_lat.1.log"),
        log("--write_lat_log", "hp_clat.1.log"),
        log("--write_lat_log", "hp_slat.1.log"),
        log("--write_hist_log", "hp_clat_hist.1.log"),
        Row::new(&one_log, "--write_bw_log", "hp_bw.log")
            .given(Given::Stem("hp"))
            .expect(Expect::Replaced),
    ]
}

/// The table: every file of every command.
fn rows() -> Vec<Row> {
    [
        measuring_rows(),
        other_measuring_rows(),
        reading_rows(),
        fio_rows(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// What a row's command did.
struct Outcome {
    /// `None`: still running at its limit, then stopped.
    status: Option<ExitStatus>,
    took: Duration,
    stdout: String,
    stderr: String,
    /// The file before and after (`None`: not there).
    before: Option<Vec<u8>>,
    after: Option<Vec<u8>>,
    /// The working directory's names before and after.
    names: (Vec<String>, Vec<String>),
}

/// The row's working directory: the things its command lines name, then the file.
fn stage(row: &Row, dir: &Path) {
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("blocks"), vec![0xa5u8; 1 << 20]).unwrap();
    let trace = "# halfpower trace v1\n0 R 0 4096\n30000000 R 4096 4096\n";
    std::fs::write(dir.join("slow.trace"), trace).unwrap();
    std::fs::copy(RUN_A, dir.join("r.json")).unwrap();
    match &row.prepare {
        None => std::fs::write(dir.join(row.file), KEPT).unwrap(),
        Some(args) => {
            let line = row.command_line(args);
            let out = halfpower_spawnable()
                .args(&line)
                .current_dir(dir)
                .output()
                .unwrap();
            assert!(
                out.status.success() && dir.join(row.file).is_file(),
                "{line:?} makes the file: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// Waits for `child` until `limit`; past it, Ctrl-C (halfpower stops and cleans up), then
/// SIGKILL. The exit status, or `None` when it had to be stopped.
fn wait_until(
    child: &mut std::process::Child,
    start: Instant,
    limit: Duration,
) -> Option<ExitStatus> {
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let grace = Instant::now();
    while grace.elapsed() < Duration::from_secs(5) {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Runs the row in a directory of its own, its output in another.
fn perform(row: &Row) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    stage(row, dir.path());
    let file = dir.path().join(row.file);
    let before = (
        std::fs::read(&file).ok(),
        crate::common::names_in(dir.path()),
    );
    let (so, se) = (logs.path().join("stdout"), logs.path().join("stderr"));
    let start = Instant::now();
    let mut child = halfpower_spawnable()
        .args(row.command_line(&row.args))
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&so).unwrap())
        .stderr(std::fs::File::create(&se).unwrap())
        .spawn()
        .unwrap();
    let limit = match row.expect {
        Expect::Refused => REFUSED_LIMIT,
        Expect::Replaced | Expect::Continued => RUN_LIMIT,
    };
    let status = wait_until(&mut child, start, limit);
    Outcome {
        status,
        took: start.elapsed(),
        stdout: std::fs::read_to_string(&so).unwrap_or_default(),
        stderr: std::fs::read_to_string(&se).unwrap_or_default(),
        before: before.0,
        after: std::fs::read(&file).ok(),
        names: (before.1, crate::common::names_in(dir.path())),
    }
}

/// How the file fared: kept, gone, or what it holds now.
fn fate(o: &Outcome) -> &'static str {
    match (&o.before, &o.after) {
        (_, None) => "removed",
        (b, a) if b == a => "kept as it was",
        _ => "overwritten",
    }
}

/// The exit status as a table shows it.
fn status_of(o: &Outcome) -> String {
    match o.status {
        Some(s) => s.code().map_or(format!("{s}"), |c| format!("exit {c}")),
        None => format!("still running at {:.0?}, stopped", o.took),
    }
}

/// What a refused row did against the rule: nothing when it kept it.
fn refusal_problems(row: &Row, o: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    if o.status.and_then(|s| s.code()) != Some(2) {
        problems.push(format!("{} (not 2)", status_of(o)));
    } else if o.took > QUICK {
        problems.push(format!("refused late, after {:.1?}", o.took));
    }
    if fate(o) != "kept as it was" {
        problems.push(format!("the file was {}", fate(o)));
    }
    let lines: Vec<&str> = o.stderr.lines().collect();
    let named = o.stderr.contains(row.file) && o.stderr.contains(row.flag);
    if lines.len() != 1 || !named {
        problems.push(format!(
            "stderr is not one line naming {} and {}: {:?}",
            row.flag,
            row.file,
            o.stderr.trim_end()
        ));
    }
    if !o.stdout.is_empty() {
        problems.push(format!("printed on stdout: {:.120?}", o.stdout));
    }
    if o.names.0 != o.names.1 {
        problems.push(format!("the directory changed: {:?}", o.names.1));
    }
    problems
}

/// The id a verify state's header line holds.
fn state_id(bytes: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(bytes);
    let head: serde_json::Value = serde_json::from_str(text.lines().next()?).ok()?;
    head["id"].as_u64()
}

/// What a replacing or continuing row did against its documented behaviour.
fn run_problems(row: &Row, o: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    // Exit 1 is a result too (selftest's statement not held on a busy host): written alike.
    if !matches!(o.status.and_then(|s| s.code()), Some(0 | 1)) {
        problems.push(format!("{}: {:?}", status_of(o), o.stderr.trim_end()));
    }
    // (fio's histogram log is empty without log_hist_msec, as fio's: replaced all the same.)
    if fate(o) != "overwritten" {
        problems.push(format!("the file was {}", fate(o)));
    }
    if row.expect == Expect::Continued {
        let (was, is) = (o.before.as_deref(), o.after.as_deref());
        if was.and_then(state_id).is_none() || was.and_then(state_id) != is.and_then(state_id) {
            problems.push("the state was not continued (another id)".to_string());
        }
    }
    problems
}

/// The row's line in the table, and its problems (none: it did as expected).
fn judge(row: &Row, o: &Outcome) -> (String, Vec<String>) {
    let problems = match row.expect {
        Expect::Refused => refusal_problems(row, o),
        Expect::Replaced | Expect::Continued => run_problems(row, o),
    };
    let did = format!("{}, {:.2?}, the file {}", status_of(o), o.took, fate(o));
    let expect = format!("{:?}", row.expect);
    (format!("{:<58} {expect:<10} {did}", row.name()), problems)
}

#[test]
fn every_output_file_that_exists_is_refused_before_anything_runs_or_kept_as_documented() {
    // The rows that run (the replaced and continued files, a self-test) keep the CPUs busy:
    // no timing test beside them.
    let _turn = crate::common::exclusive();
    let started = Instant::now();
    let (mut failures, mut gaps, mut stale) = (Vec::new(), Vec::new(), Vec::new());
    let rows = rows();
    for row in &rows {
        let outcome = perform(row);
        let (line, problems) = judge(row, &outcome);
        eprintln!("{line}");
        let found = problems.join("; ");
        match (row.known_gap, problems.is_empty()) {
            (None, true) => {}
            (None, false) => failures.push(format!("{}: {found}", row.name())),
            (Some(why), false) => gaps.push(format!("{}: {why}: {found}", row.name())),
            (Some(why), true) => stale.push(format!("{}: {why}", row.name())),
        }
    }
    for g in &gaps {
        eprintln!("known gap (issue 47): {g}");
    }
    eprintln!(
        "{} rows, {} known gaps, in {:.1?}",
        rows.len(),
        gaps.len(),
        started.elapsed()
    );
    assert!(
        stale.is_empty(),
        "known gaps no longer there (remove their known_gap): {stale:#?}"
    );
    assert!(failures.is_empty(), "files against the rule: {failures:#?}");
}

/// fio's log files are checked with its `--output` before any job runs: a log in a missing
/// directory, and a log and the report naming one file, are each refused at once with exit 2
/// and one line naming the job option and the file (they were found only after the job ran,
/// or not at all: the report replaced the log).
#[test]
fn fio_log_files_are_checked_before_any_job_runs() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    let job = [
        "fio",
        "--name=j",
        "--ioengine=null",
        "--size=1m",
        "--rw=read",
        "--bs=4k",
        "--runtime=30",
        "--time_based",
    ];
    let missing = format!("--write_bw_log={}", at("nodir/hp"));
    let clash = (
        format!("--write_bw_log={}", at("hp")),
        format!("--output={}", at("hp_bw.1.log")),
    );
    for (extra, named) in [
        (vec![missing.as_str()], at("nodir/hp_bw.1.log")),
        (vec![clash.0.as_str(), clash.1.as_str()], at("hp_bw.1.log")),
    ] {
        let args: Vec<&str> = job.iter().copied().chain(extra).collect();
        let started = Instant::now();
        let err = crate::common::usage_error(&args);
        assert!(started.elapsed() < QUICK, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("write_bw_log") && err.contains(&named),
            "{err}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
