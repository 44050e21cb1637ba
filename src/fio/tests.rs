//! Tests of job resolution and of the mapping onto workloads.

use super::jobfile::{parse_command_line, parse_file};
use super::*;
use crate::model::fio::{FioNote, FioNoteKind};
use crate::plan::RwMode;
use std::path::{Path, PathBuf};

fn sections(text: &str) -> Vec<Section> {
    parse_file(
        Path::new("t.fio"),
        text,
        true,
        &|_| Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        &|_| None,
    )
    .unwrap()
}

const SSD_TEST_LIKE: &str = "\
[global]
bs=4k
ioengine=libaio
iodepth=4
size=64m
direct=1
runtime=5
filename=/tmp/x

[seq-read]
rw=read
stonewall

[rand-read]
rw=randread
stonewall

[rand-write]
rw=randwrite
iodepth=8
stonewall
";

#[test]
fn globals_flow_into_jobs_and_stonewalls_make_groups() {
    let set = resolve(&sections(SSD_TEST_LIKE), &[], false).unwrap();
    assert_eq!(set.jobs.len(), 3);
    assert_eq!(set.global.len(), 7);
    let groups: Vec<u32> = set.jobs.iter().map(|j| j.group).collect();
    assert_eq!(groups, [0, 1, 2]);
    assert_eq!(set.jobs[2].opts.iodepth, 8);
    assert_eq!(set.jobs[1].opts.iodepth, 4);
    assert_eq!(
        set.jobs[0].written,
        [
            ("rw".into(), "read".into()),
            ("stonewall".into(), String::new())
        ]
    );
    let p = plan(&set.jobs[1], false, false).unwrap();
    assert_eq!(p.workload.rw, RwMode::Randread);
    assert_eq!(p.workload.qd, 4);
    assert!(!p.workload.setup.buffered);
    assert_eq!(p.workload.setup.engine, EngineKind::Uring);
    assert_eq!(p.workload.setup.size, Some(ByteSize(64 << 20)));
    assert_eq!(
        p.ending,
        Ending::Bytes {
            runtime: Some(Duration::from_secs(5))
        }
    );
    assert_eq!(p.budget(&set.jobs[1].opts, 64 << 20), Some(64 << 20));
    assert_eq!(p.paths, vec![PathBuf::from("/tmp/x")]);
}

#[test]
fn jobs_without_a_stonewall_share_a_group() {
    let set = resolve(&sections("[a]\n[b]\n[c]\nnew_group\n"), &[], false).unwrap();
    let groups: Vec<u32> = set.jobs.iter().map(|j| j.group).collect();
    assert_eq!(groups, [0, 0, 1]);
}

#[test]
fn a_global_section_changes_only_later_jobs() {
    let set = resolve(&sections("[a]\n[global]\nbs=64k\n[b]\n"), &[], false).unwrap();
    assert_eq!(set.jobs[0].opts.bs, [4096, 4096]);
    assert_eq!(set.jobs[1].opts.bs, [65536, 65536]);
}

#[test]
fn kb_base_applies_to_sizes_written_before_it() {
    let set = resolve(&sections("[a]\nbs=4k\nkb_base=1000\n"), &[], false).unwrap();
    assert_eq!(set.jobs[0].opts.bs, [4000, 4000]);
    assert_eq!(
        set.jobs[0].written[0].0, "bs",
        "job options keep the written order"
    );
}

#[test]
fn sections_can_be_chosen() {
    let set = resolve(&sections(SSD_TEST_LIKE), &["rand-read".into()], false).unwrap();
    assert_eq!(set.jobs.len(), 1);
    assert!(resolve(&sections(SSD_TEST_LIKE), &["nope".into()], false).is_err());
}

#[test]
fn unknown_options_stop_unless_ignored() {
    let s = sections("[a]\nzonemode=zbd\nrw=write\n");
    let e = resolve(&s, &[], false).unwrap_err().to_string();
    assert!(e.contains("t.fio:2") && e.contains("'zonemode'"), "{e}");
    let set = resolve(&s, &[], true).unwrap();
    assert_eq!(set.warnings.len(), 1);
    assert_eq!(set.jobs[0].opts.rw, RwMode::Write);
}

#[test]
fn command_line_jobs_resolve() {
    let args: Vec<String> = [
        "--direct=1",
        "--name=randr",
        "--rw=randread",
        "--ioengine=io_uring",
        "--iodepth=32",
        "--filename=/dev/null0",
        "--time_based",
        "--runtime=3s",
        "--numjobs=2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let set = resolve(&parse_command_line(&args, &|_| None).unwrap(), &[], false).unwrap();
    let p = plan(&set.jobs[0], false, false).unwrap();
    assert_eq!(p.workload.qd, 32);
    assert_eq!(p.workload.threads, 2);
    assert_eq!(p.ending, Ending::Time(Duration::from_secs(3)));
    assert_eq!(p.workload.setup.time, Some(Dur(Duration::from_secs(3))));
    assert_eq!(
        p.notes,
        [FioNote {
            job: "randr".into(),
            kind: FioNoteKind::ClonesTogether { numjobs: 2 }
        }],
        "clones reported together"
    );
}

#[test]
fn fio_defaults_map_onto_workloads() {
    let set = resolve(&sections("[job]\nsize=1m\nrw=write\n"), &[], false).unwrap();
    let p = plan(&set.jobs[0], false, false).unwrap();
    assert!(p.workload.setup.buffered, "fio is buffered unless direct=1");
    assert_eq!(p.workload.setup.engine, EngineKind::Sync);
    assert_eq!(p.workload.setup.warmup, Dur(Duration::ZERO));
    assert_eq!(p.paths, vec![PathBuf::from("./job.0.0")]);
    assert_eq!(p.ending, Ending::Bytes { runtime: None });
    assert_eq!(p.budget(&set.jobs[0].opts, 1 << 20), Some(1 << 20));
    let looped = resolve(
        &sections("[job]\nsize=1m\nloops=3\nio_size=256k\n"),
        &[],
        false,
    )
    .unwrap();
    let p = plan(&looped.jobs[0], false, false).unwrap();
    assert_eq!(p.budget(&looped.jobs[0].opts, 1 << 20), Some(768 << 10));
}

#[test]
fn what_cannot_run_yet_is_refused() {
    for text in [
        "[a]\nfilename=/a\nnrfiles=2\n",
        "[a]\nrw=randrw\nbs=4k,64k\n",
        "[a]\nrw=randread\nbssplit=4k/50:8k/50\n",
        "[a]\nrw=randrw\nrate=1m\n",
        "[a]\ntime_based\n",
    ] {
        let set = resolve(&sections(text), &[], false).unwrap();
        assert!(plan(&set.jobs[0], false, false).is_err(), "{text}");
    }
}

#[test]
fn comments_escaped_colons_and_zero_offsets_read_as_in_fio() {
    let text = "[a]\nnumjobs=2 ; one per disk\nfilename=/dev/disk/by-path/pci-0\\:1\t; or a file\n\
                offset=0%\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\n";
    let set = resolve(&sections(text), &[], false).unwrap();
    let o = &set.jobs[0].opts;
    assert_eq!(o.numjobs, 2);
    let p = plan(&set.jobs[0], false, false).unwrap();
    assert_eq!(p.paths, vec![PathBuf::from("/dev/disk/by-path/pci-0:1")]);
    assert_eq!(p.workload.setup.offset.0, 0);
    assert_eq!(
        p.workload.setup.access.dist.to_string(),
        "zoned:50/5:30/15:20/80"
    );
}

#[test]
fn new_group_starts_a_report_group_but_not_a_wave() {
    let set = resolve(
        &sections("[a]\n[b]\nnew_group\n[c]\nstonewall\n"),
        &[],
        false,
    )
    .unwrap();
    let g: Vec<(u32, u32)> = set.jobs.iter().map(|j| (j.group, j.wave)).collect();
    // b runs beside a in fio (a new group only for reporting); c waits for both.
    assert_eq!(g, vec![(0, 0), (1, 0), (2, 1)]);
}

#[test]
fn a_jobs_filename_adds_to_the_inherited_one_as_in_fio() {
    // fio 3.33 runs this job on both files, the size split between them.
    let set = resolve(
        &sections("[global]\nfilename=a\n[j]\nfilename=b\n"),
        &[],
        false,
    )
    .unwrap();
    assert_eq!(set.jobs[0].opts.filename.as_deref(), Some("a:b"));
    let p = plan(&set.jobs[0], false, false).unwrap();
    assert_eq!(p.paths, vec![PathBuf::from("a"), PathBuf::from("b")]);
    assert_eq!(p.stripe, Some(4096));
}

#[test]
fn files_and_their_sizes_follow_fio() {
    let planned = |text: &str| {
        let set = resolve(&sections(text), &[], false).unwrap();
        plan(&set.jobs[0], false, false).unwrap()
    };
    // numjobs without filename: a file per clone, each the whole size, one worker on each.
    let p = planned("[jb]\nnumjobs=3\nsize=8m\n");
    assert_eq!(p.paths.len(), 3);
    assert_eq!((p.clone_files, p.workload.threads), (3, 1));
    assert_eq!(p.workload.setup.size, Some(ByteSize(8 << 20)));
    assert_eq!(
        p.budget(
            &resolve(&sections("[jb]\nnumjobs=3\nsize=8m\n"), &[], false)
                .unwrap()
                .jobs[0]
                .opts,
            3 * (8 << 20)
        ),
        Some(3 * (8 << 20))
    );
    // Shared files: the clones are workers on them.
    let p = planned("[jb]\nnumjobs=3\nsize=8m\nfilename=f\n");
    assert_eq!((p.clone_files, p.workload.threads), (1, 3));
    // filesize sizes each file; size then only says how much I/O a clone does.
    let text = "[jb]\nnrfiles=3\nfilesize=3m\nsize=4m\n";
    let p = planned(text);
    assert_eq!(p.workload.setup.size, Some(ByteSize(3 << 20)));
    let opts = &resolve(&sections(text), &[], false).unwrap().jobs[0].opts;
    assert_eq!(p.budget(opts, 9 << 20), Some(4 << 20));
    assert_eq!(
        planned("[jb]\nnrfiles=2\nfilesize=3m\n")
            .workload
            .setup
            .size,
        Some(ByteSize(3 << 20))
    );
}

/// Options that change nothing in halfpower's measurement are taken with a note saying so
/// (issue 37, item 9), not refused.
#[test]
fn options_that_change_nothing_here_are_taken_with_a_note() {
    let args: Vec<String> = [
        "--name=g",
        "--rw=randread",
        "--ioengine=io_uring",
        "--filename=/dev/null0",
        "--size=1m",
        "--gtod_reduce=1",
        "--create_on_open=1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let set = resolve(&parse_command_line(&args, &|_| None).unwrap(), &[], false).unwrap();
    let p = plan(&set.jobs[0], false, false).unwrap();
    let kinds: Vec<&FioNoteKind> = p.notes.iter().map(|n| &n.kind).collect();
    assert_eq!(
        kinds,
        [&FioNoteKind::GtodReduce, &FioNoteKind::CreateOnOpen]
    );
    let words: Vec<String> = p.notes.iter().map(crate::render::text::fio::note).collect();
    assert!(
        words[0].starts_with("job 'g': gtod_reduce changes nothing here"),
        "{words:?}"
    );
    assert!(
        words[1].contains("create_on_open changes nothing here"),
        "{words:?}"
    );
    // Off, they say nothing.
    let off: Vec<String> = args.iter().map(|a| a.replace("=1", "=0")).collect();
    let set = resolve(&parse_command_line(&off, &|_| None).unwrap(), &[], false).unwrap();
    assert!(plan(&set.jobs[0], false, false).unwrap().notes.is_empty());
}

/// The layout of a missing file, as fio's filesetup.c lays it out, and the open flags of
/// `sync`: a job that only writes gets it reserved unwritten (`fallocate`'s default), sized
/// (`truncate`) or empty (`none`); one that reads or has `overwrite` gets it written; a file
/// that exists is used as it is. `keep` has no halfpower layout and is refused by name.
#[test]
fn missing_files_are_laid_out_as_fio_lays_them_out() {
    use crate::plan::Create;
    let job = |extra: &[&str]| -> Result<JobPlan, String> {
        let mut args: Vec<String> = ["--name=l", "--filename=/nonexistent/l.dat", "--size=1m"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let sections = parse_command_line(&args, &|_| None).map_err(|e| e.to_string())?;
        let set = resolve(&sections, &[], false).map_err(|e| e.to_string())?;
        plan(&set.jobs[0], true, false).map_err(|e| e.to_string())
    };
    let create = |extra: &[&str]| job(extra).unwrap().workload.setup.create;
    assert_eq!(create(&["--rw=write"]), Create::Allocated);
    assert_eq!(
        create(&["--rw=randwrite", "--fallocate=posix"]),
        Create::Allocated
    );
    assert_eq!(create(&["--rw=write", "--fallocate=none"]), Create::Empty);
    assert_eq!(create(&["--rw=write", "--fallocate=0"]), Create::Empty);
    assert_eq!(
        create(&["--rw=write", "--fallocate=truncate"]),
        Create::Sparse
    );
    assert_eq!(create(&["--rw=write", "--overwrite=1"]), Create::Filled);
    assert_eq!(create(&["--rw=randrw"]), Create::Filled);
    assert_eq!(create(&["--rw=read"]), Create::Filled);
    let err = job(&["--rw=write", "--fallocate=keep"]).unwrap_err();
    assert!(err.contains("fallocate") && err.contains("keep"), "{err}");
    let err = job(&["--rw=write", "--fallocate=sometimes"]).unwrap_err();
    assert!(
        err.contains("sometimes") && err.contains("truncate"),
        "{err}"
    );
    // A file that exists is written over as it is, by fio and halfpower alike.
    let args: Vec<String> = [
        "--name=e",
        "--filename=/dev/null",
        "--size=1m",
        "--rw=write",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let set = resolve(&parse_command_line(&args, &|_| None).unwrap(), &[], false).unwrap();
    let p = plan(&set.jobs[0], true, false).unwrap();
    assert_eq!(p.workload.setup.create, Create::Filled);
    let sync = |v: &str| {
        let s = job(&["--rw=write", &format!("--sync={v}")])
            .unwrap()
            .workload
            .setup;
        (s.write_through, s.sync_metadata)
    };
    assert_eq!(sync("1"), (true, true));
    assert_eq!(sync("sync"), (true, true));
    assert_eq!(sync("dsync"), (true, false));
    assert_eq!(sync("0"), (false, false));
}
