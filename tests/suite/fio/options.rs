//! fio options that decide how a job ends or where it writes, against fio 3.33 and the
//! arithmetic of the job: `filename_format`, `rate_iops_min` (and `ratemin`), `exitall` and
//! `continue_on_error`.

use super::jobs::listing;
use super::*;

/// The files fio 3.33 lays out for a `filename_format` are the files halfpower plans: two
/// clones named `data-$jobnum-$jobname.$filenum`, three files `f$filenum` of one job, and
/// clones that share one file when the format has no `$jobnum`.
#[test]
fn filename_format_names_the_files_fio_lays_out() {
    if !fio_available() {
        return;
    }
    let cases = [
        ("data-$jobnum-$jobname.$filenum", 2, 1),
        ("f$filenum", 1, 3),
        ("shared", 3, 1),
    ];
    for (format, numjobs, nrfiles) in cases {
        let dir = tempfile::tempdir().unwrap();
        let args = |d: &Path| -> Vec<String> {
            vec![
                "--name=jb".into(),
                format!("--directory={}", d.display()),
                format!("--filename_format={format}"),
                format!("--numjobs={numjobs}"),
                format!("--nrfiles={nrfiles}"),
                "--size=256k".into(),
                "--rw=write".into(),
                "--bs=64k".into(),
            ]
        };
        let out = Command::new("fio").args(args(dir.path())).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut fio_files: Vec<String> = listing(dir.path()).into_iter().map(|f| f.0).collect();
        fio_files.sort();
        let mut plan = vec!["fio".to_string(), "--parse-only".into()];
        plan.extend(args(dir.path()));
        let out = halfpower().args(&plan).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // "jb: DIR/a:DIR/b write …": the files halfpower would run on, by name.
        let files = text.split_whitespace().nth(1).unwrap();
        let mut planned: Vec<String> = files
            .split(':')
            .map(|p| {
                Path::new(p)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        planned.sort();
        planned.dedup();
        assert_eq!(planned, fio_files, "{format}: {text}");
    }
}

/// A null-engine job capped at 1000 IOPS fails `rate_iops_min=2000` (EIO, exit 1, the option
/// named) and passes `rate_iops_min=500`; `ratemin` is fio's other name of `rate_min`.
#[test]
fn rate_iops_min_and_ratemin_fail_a_job_below_them() {
    let _turn = crate::common::measuring();
    let job = |min: &str| {
        halfpower()
            .args([
                "fio",
                "--name=x",
                "--ioengine=null",
                "--rw=read",
                "--bs=4k",
                "--size=64m",
                "--rate_iops=1000",
                min,
                "--time_based",
                "--runtime=3",
                "--output-format=json",
                "--quiet",
            ])
            .output()
            .unwrap()
    };
    for (min, fails, named) in [
        ("--rate_iops_min=2000", true, "rate_iops_min"),
        ("--rate_iops_min=500", false, ""),
        ("--ratemin=8m", true, "rate_min"),
    ] {
        let out = job(min);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(i32::from(fails)), "{min}: {stderr}");
        assert_eq!(v["jobs"][0]["error"], if fails { 5 } else { 0 }, "{min}");
        assert!(stderr.contains(named), "{min}: {stderr}");
    }
}

/// `exitall` is taken, with a note, where every job beside it ends at the same time, and
/// refused by name (exit 2) where one would end before the other.
#[test]
fn exitall_is_taken_where_it_changes_nothing() {
    let job = |second_runtime: &str| {
        halfpower()
            .args([
                "fio",
                "--parse-only",
                "--ioengine=null",
                "--rw=read",
                "--size=1m",
                "--time_based",
                "--exitall",
                "--name=a",
                "--runtime=1",
                "--name=b",
                second_runtime,
            ])
            .output()
            .unwrap()
    };
    let same = job("--runtime=1");
    let stderr = String::from_utf8_lossy(&same.stderr);
    assert!(same.status.success(), "{stderr}");
    assert!(
        String::from_utf8_lossy(&same.stdout).contains("exitall changes nothing here"),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let apart = job("--runtime=2");
    let stderr = String::from_utf8_lossy(&apart.stderr);
    assert_eq!(apart.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("exitall"), "{stderr}");
}

/// `continue_on_error` with fio's values: `io` makes halfpower run to its end whatever fails,
/// `none` stops, and `read` (`write`) in a job that does both goes on after that direction's
/// failures only (`tests/suite/faults.rs` runs it against failing writes).
#[test]
fn continue_on_error_maps_onto_on_error() {
    let run = |rw: &str, value: &str| {
        halfpower()
            .args([
                "fio",
                "--name=x",
                "--ioengine=null",
                &format!("--rw={rw}"),
                "--size=1m",
                &format!("--continue_on_error={value}"),
                "--output-format=json",
                "--quiet",
            ])
            .output()
            .unwrap()
    };
    for (rw, value, expected) in [
        ("randread", "io", "continue"),
        ("randread", "1", "continue"),
        ("randread", "none", "stop"),
        ("randread", "read", "continue"),
        ("randrw", "read", "continue-reads"),
        ("randrw", "write", "continue-writes"),
        ("randwrite", "read", "continue-reads"),
    ] {
        let out = run(rw, value);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            v["jobs"][0]["halfpower"]["workload"]["on_error"], expected,
            "{rw} {value}"
        );
    }
}
