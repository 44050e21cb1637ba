//! Every text table the commands print, as printed: each figure column's values end where its
//! header ends (the table writer's promise, `render::text::table`), on real output of `run`
//! (its table and its repetition summary), `quick`, `scale` and `monitor`.

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
    let below: Vec<&&str> = match rows {
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
