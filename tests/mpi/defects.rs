//! What each rank says and checks under MPI: a `run`'s warnings are each rank's own (its
//! targets judged on its own results) once, not the job's repeated by every rank; the job's
//! syncs are every rank's; `fio` is printed by rank 0 alone and fails when any rank fell below
//! its `rate_iops_min`; only rank 0 checks the output paths it alone writes.

use super::{mpi_halfpower, three_rank_job};

/// Buffered reads of a small file come from the page cache (or from a file system without
/// disk counters): each rank warns of its own file, named alone, and of no other rank's.
#[test]
fn run_warnings_are_each_ranks_own_once() {
    let Some(hp) = mpi_halfpower() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("f.{rank}");
    let v = three_rank_job(
        &hp,
        dir.path(),
        &[
            "run",
            target.to_str().unwrap(),
            "--size",
            "4m",
            "--rw",
            "read",
            "--bs",
            "64k",
            "--buffered",
            "--time",
            "1s",
            "--warmup",
            "200ms",
        ],
    );
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let file = |r: u32| dir.path().join(format!("f.{r}")).display().to_string();
    for r in 0..3 {
        let own: Vec<&&str> = warnings
            .iter()
            .filter(|w| w.starts_with(&format!("rank {r}: ")))
            .collect();
        assert!(
            own.iter().any(|w| w.contains(&file(r))),
            "rank {r} warns of its file: {warnings:#?}"
        );
        for other in (0..3).filter(|&o| o != r) {
            assert!(
                own.iter().all(|w| !w.contains(&file(other))),
                "rank {r} warns only of its own file: {warnings:#?}"
            );
        }
    }
    let distinct: std::collections::HashSet<&&str> = warnings.iter().collect();
    assert_eq!(distinct.len(), warnings.len(), "each warning once");
}
