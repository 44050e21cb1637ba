//! Every text table the commands print, as printed: each figure column's values end where its
//! header ends (the table writer's promise, `render::text::table`), on real output of `run`
//! (its table, its repetition summary and its disks), `quick`, `scale`, `monitor`, `experiment`,
//! `replay`, `pts` and `diagnose`, and on the profile's tables rendered from a saved profile.

use crate::common;
use halfpower::render::text::table::word_ends;

/// In `text`, the header line starting with `header` and the `rows` lines under it (all
/// non-blank lines up to the first blank one when `None`): each of `figures`, a word of the
/// header, ends where a figure of every row ends.
fn aligned(text: &str, header: &str, figures: &[&str], rows: Option<usize>) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(header))
        .unwrap_or_else(|| panic!("no header '{header}':\n{text}"));
    let head = lines[at];
    let below = lines[at + 1..].iter().take_while(|l| !l.trim().is_empty());
    // A figure's mark (profile's `~` and `!`) hangs one place right of its column.
    let below = below.map(|l| l.replace(['~', '!'], " "));
    let below: Vec<String> = match rows {
        Some(n) => below.take(n).collect(),
        None => below.collect(),
    };
    assert!(!below.is_empty(), "no rows under '{header}':\n{text}");
    let head_ends = word_ends(head);
    for f in figures {
        let at = head
            .find(f)
            .unwrap_or_else(|| panic!("'{f}' not in '{head}'"));
        let end = head[..at].chars().count() + f.chars().count();
        assert!(head_ends.contains(&end));
        for row in &below {
            assert!(
                word_ends(row).contains(&end),
                "'{f}' ends at {end}:\n{head}\n{row}\n{text}"
            );
        }
    }
}

#[test]
fn every_table_sets_its_figures_under_their_headers() {
    // Its runs keep the CPUs busy (the null engine, quick's eight tests): no timing test beside.
    let _turn = common::exclusive();
    let run = common::stdout_text(&[
        "run", "null", "--engine", "null", "--rw", "randrw", "--time", "200ms", "--warmup", "0",
        "--repeat", "2",
    ]);
    aligned(
        &run,
        "TARGET",
        &["IOPS", "MB/s", "p50", "p99", "max", "µs/IO"],
        Some(4),
    );
    aligned(&run, "  FIGURE", &["MEAN", " SD", "±95 %", "±%"], Some(7));
    let dir = tempfile::tempdir().unwrap();
    let quick = common::stdout_text(&[
        "quick",
        dir.path().to_str().unwrap(),
        "--size",
        "8m",
        "--time",
        "100ms",
        "--warmup",
        "0",
        "--quiet",
    ]);
    // Read and write rows alike (the write rows once sat a column right).
    aligned(&quick, "TEST", &["MB/s", "IOPS", "p50", "p99"], Some(8));
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let scale = common::stdout_text(&[
        "scale",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--rw",
        "read",
        "--bs",
        "64k",
        "--size",
        "4m",
        "--time",
        "200ms",
        "--warmup",
        "0",
        "--quiet",
    ]);
    aligned(&scale, "alone", &["MB/s", "IOPS"], Some(2));
    aligned(
        &scale,
        "targets",
        &["MB/s", "alone", "efficiency", "int.", "flt"],
        Some(2),
    );
    let monitor = common::stdout_text(&["monitor", "--count", "1", "--interval", "200ms"]);
    if monitor.contains("Device") {
        aligned(
            &monitor,
            "Device",
            &["r/s", "w/s", "r_await", "%util", "S ms", "Wq ms"],
            None,
        );
    }
}

/// The tables of the other commands, on real output where it takes under a second or two (a
/// run's disks, an experiment, a replay, PTS's rounds and matrix, a diagnosed iostat log), and
/// the profile's three tables from a saved profile.
#[test]
fn the_other_commands_tables_too() {
    // Its runs keep the CPUs busy (PTS's four workers at QD32): no timing test beside.
    let _turn = common::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let file = dir.path().join("f");
    let f = file.to_str().unwrap();
    let run = common::stdout_text(&[
        "run", f, "--size", "8m", "--rw", "read", "--time", "200ms", "--warmup", "0",
    ]);
    if run.contains("DEVICE") {
        aligned(
            &run,
            "DEVICE",
            &[
                "r/s",
                "w/s",
                "rMB/s",
                "r_await",
                "aqu-sz",
                "%util",
                "in-flight",
            ],
            None,
        );
    }
    let exp = common::stdout_text(&[
        "experiment",
        "alignment",
        d,
        "--size",
        "4m",
        "--time",
        "100ms",
        "--warmup",
        "0",
        "--quiet",
    ]);
    aligned(
        &exp,
        "variant",
        &["shift", "size", "QD", "MB/s", "IOPS", "p99 µs", "device"],
        Some(4),
    );
    let trace = dir.path().join("trace");
    let mut t = String::from("# halfpower trace v1\n");
    for i in 0..200u64 {
        t.push_str(&format!(
            "{} R {} 4096\n",
            i * 500,
            (i * 7919 % 2000) * 4096
        ));
    }
    std::fs::write(&trace, t).unwrap();
    let replay = common::stdout_text(&[
        "replay",
        trace.to_str().unwrap(),
        f,
        "--speed",
        "1,10",
        "--quiet",
    ]);
    aligned(
        &replay,
        "  SPEED",
        &["SPEED", "ACHIEVED", "MEAN", "p99", "LATE p99", "INFLIGHT"],
        Some(2),
    );
    let pts_file = dir.path().join("pts");
    let pts = common::stdout_text(&[
        "pts",
        pts_file.to_str().unwrap(),
        "--size",
        "8m",
        "--allow-write",
        "--destroy-data",
        "--test",
        "iops",
        "--bs",
        "4k",
        "--mix",
        "100/0,0/100",
        "--round",
        "20ms",
        "--precondition",
        "8m",
        "--quiet",
    ]);
    // PTS runs at least five rounds.
    aligned(
        &pts,
        "  ROUND",
        &["ROUND", "START s", "END s", "WRITTEN", "IOPS"],
        Some(5),
    );
    aligned(&pts, "      BS", &["BS", "100/0", "0/100"], Some(1));
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/diagnose/iostat-three-disks.txt"
    );
    let diagnosis = common::stdout_text(&["diagnose", log]);
    aligned(
        &diagnosis,
        "Device",
        &["%util", "IOPS", "R ms", "S ms", "Wq ms", "queue"],
        None,
    );
    let saved = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/report/profile.json"
    );
    let text = std::fs::read_to_string(saved).unwrap();
    let profile = match halfpower::input::document::parse(saved, &text, &|_| unreachable!()) {
        Ok(halfpower::model::Input {
            doc: halfpower::model::Document::Profile(p),
            ..
        }) => halfpower::render::text::profile::profile_table(&p),
        _ => panic!("{saved} is not a profile"),
    };
    aligned(&profile, "  size", &["size", "random"], None);
    aligned(
        &profile,
        "rw",
        &["size", "QD", "IOPS", "MB/s", "S ms", "R p99 ms", "dev S ms"],
        None,
    );
    aligned(
        &profile,
        "column",
        &["overhead ms", "ms/KiB", "MB/s", "R²", "at 32k ms"],
        None,
    );
}
