//! Ranks on one path: a file every rank would create (no `{rank}`, no `--shared`) is refused
//! before anything runs, in one line naming both remedies, and so is one `--verify-state` for
//! every rank; one existing file may be read by every rank; and `--shared` lays out one file for every rank's region in each `--create`
//! mode, rank 0 creating it at the job's full size before any other rank opens it.

use super::{mpi_halfpower, mpirun};

/// Lines of `err` that halfpower wrote (mpirun adds its own banners).
fn said(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.contains("halfpower:")).collect()
}

/// IOR's default start: three ranks, one file that is not there. Every rank would create it;
/// the job is refused (usage error, exit 2) before any rank made it, and halfpower says so
/// once, naming the path, `{rank}` and `--shared`.
#[test]
fn one_path_that_every_rank_would_create_is_refused_before_anything_runs() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.dat");
    let out = mpirun(
        3,
        &hp,
        &[
            "run",
            one.to_str().unwrap(),
            "--size",
            "64m",
            "--rw",
            "write",
            "--allow-write",
            "--time",
            "1s",
            "--quiet",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let lines = said(&err);
    assert_eq!(lines.len(), 1, "said once: {err}");
    let line = lines[0];
    assert!(
        line.contains(&format!("TARGET '{}'", one.display()))
            && line.contains("{rank}")
            && line.contains("--shared"),
        "{line}"
    );
    assert!(!one.exists(), "refused before any rank created it");
    // One record of verified writes for every rank: each would save its own over the others'.
    let (each, state) = (dir.path().join("f.{rank}"), dir.path().join("state.json"));
    let out = mpirun(
        3,
        &hp,
        &[
            "run",
            each.to_str().unwrap(),
            "--size",
            "1m",
            "--rw",
            "write",
            "--time",
            "1s",
            "--quiet",
            "--verify-state",
            state.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("--verify-state '{}'", state.display())) && err.contains("{rank}"),
        "{err}"
    );
    assert!(
        !state.exists() && !dir.path().join("f.0").exists(),
        "nothing ran"
    );
}

/// One existing file read by every rank is no collision: the job runs, every rank on it.
#[test]
fn one_existing_file_may_be_read_by_every_rank() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![7u8; 4 << 20]).unwrap();
    let v = super::three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            data.to_str().unwrap(),
            "--rw",
            "randread",
            "--bytes",
            "1m",
            "--warmup",
            "0",
        ],
    );
    assert_eq!(v["results"]["job"]["ranks"], 3);
    assert_eq!(
        v["results"]["total"]["bytes"],
        3 << 20,
        "1 MiB read by each rank"
    );
    assert_eq!(
        std::fs::metadata(&data).unwrap().len(),
        4 << 20,
        "left as it was"
    );
}

/// `--shared` in every `--create` mode: three ranks each write their own 1-MiB region of one
/// missing file whole (`--bytes 1m`, 64-KiB requests) and read it back. The job succeeds with
/// no warning (the file is the job's, made as asked, and the run only writes), every rank
/// verifies its 16 blocks clean (a region that overlapped another's would read another rank's
/// blocks), and the file kept is three regions long. Without `--keep` rank 0 removes it.
#[test]
fn shared_makes_one_file_for_every_region_in_each_create_mode() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hpshared");
    let json = dir.path().join("job.json");
    let job = |create: &str, keep: bool| {
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--shared",
            "--create",
            create,
            "--size",
            "1m",
            "--rw",
            "write",
            "--bs",
            "64k",
            "--bytes",
            "1m",
            "--warmup",
            "0",
            "--verify",
            "--quiet",
            "--json",
            json.to_str().unwrap(),
            "--force",
        ];
        if keep {
            args.push("--keep");
        }
        let out = mpirun(3, &hp, &args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "--create {create}: {err}");
        assert!(
            said(&err).is_empty(),
            "--create {create}: nothing to say: {err}"
        );
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(
            v["warnings"].as_array().unwrap().len(),
            0,
            "--create {create}"
        );
        v
    };
    for create in ["empty", "sparse", "filled"] {
        let v = job(create, true);
        for (i, r) in v["ranks"].as_array().unwrap().iter().enumerate() {
            let ver = &r["results"]["verify"];
            assert_eq!(ver["blocks_checked"], 16, "--create {create}, rank {i}");
            assert_eq!(ver["bad"].as_array().unwrap().len(), 0, "rank {i}: {ver}");
        }
        for (i, t) in v["targets"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                t["offset_bytes"],
                (i as u64) << 20,
                "--create {create}: {t}"
            );
            assert_eq!(t["created"], true, "--create {create}: the job's file: {t}");
        }
        assert_eq!(v["results"]["total"]["bytes"], 3 << 20, "--create {create}");
        let len = std::fs::metadata(&file).unwrap().len();
        assert_eq!(len, 3 << 20, "--create {create}: three regions");
        std::fs::remove_file(&file).unwrap();
    }
    job("sparse", false);
    assert!(!file.exists(), "removed by rank 0 at the end");
}
