//! Under MPI, the targets no two ranks may share unasked. A path without `{rank}` or `{host}`
//! names one file for every rank (on a shared file system the same file), so ranks that each
//! create it or write it collide; a block device is its host's own, so only ranks of one host
//! writing it collide. Reading one existing file or device from every rank is allowed. Every
//! rank's targets are gathered before any is opened, so every rank refuses alike, and rank 0
//! alone says so ([`crate::Error::Alike`]).

use super::job::every_rank;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

/// What is at a target's path as this rank finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Found {
    /// Nothing: the rank would create a file.
    Missing,
    /// A block device: its host's own.
    Device,
    /// A file (or anything else that is one object wherever it is seen from).
    File,
}

/// One target of one rank: its path as given, as placed for the rank, and what is there.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Opening {
    rank: u32,
    host: String,
    given: String,
    placed: String,
    found: Found,
}

impl Opening {
    /// What two ranks open alike: the same path, a device only on the same host.
    fn key(&self) -> (String, Option<&str>) {
        let host = (self.found == Found::Device).then_some(self.host.as_str());
        (self.placed.clone(), host)
    }
}

/// Refuses (on every rank alike, before anything is opened) a target that ranks of this job
/// would collide on: a file two ranks would create, or write (`writes`) over, or a device two
/// ranks of one host would write. A collective: every rank calls it at the same step. Nothing
/// for one process.
pub(super) fn check(given: &[PathBuf], placed: &[PathBuf], writes: bool) -> crate::Result<()> {
    if !crate::cluster::many() {
        return Ok(());
    }
    let host = crate::cluster::host();
    let mine = given
        .iter()
        .zip(placed)
        .map(|(g, p)| Opening {
            rank: 0,
            host: host.clone(),
            given: g.display().to_string(),
            placed: p.display().to_string(),
            found: match std::fs::metadata(p) {
                Err(_) => Found::Missing,
                Ok(md) if md.file_type().is_block_device() => Found::Device,
                Ok(_) => Found::File,
            },
        })
        .collect();
    let all = every_rank(mine, |rank, o| Opening { rank, ..o })?;
    match collision(&all, writes) {
        Some(e) => Err(Error::Alike(Box::new(e))),
        None => Ok(()),
    }
}

/// The first collision among every rank's `all` targets, as the usage error that names it.
fn collision(all: &[Opening], writes: bool) -> Option<Error> {
    let mut by: std::collections::BTreeMap<_, Vec<&Opening>> = Default::default();
    for o in all {
        by.entry(o.key()).or_default().push(o);
    }
    let mut groups: Vec<Vec<&Opening>> = by.into_values().filter(|g| g.len() > 1).collect();
    groups.sort_by_key(|g| g[0].rank);
    groups.into_iter().find_map(|g| {
        let created = g.iter().any(|o| o.found == Found::Missing);
        (created || writes).then(|| refusal(&g, created))
    })
}

/// The usage error for ranks `g` on one target: it names the path as given, the ranks, what
/// they would do, and the remedies (`{rank}`, `run --shared`).
fn refusal(g: &[&Opening], created: bool) -> Error {
    let first = g[0];
    let ranks = ranks_named(&g.iter().map(|o| o.rank).collect::<Vec<_>>());
    let accepted = if first.found == Found::Device {
        format!(
            "a device of one rank per host under MPI: {ranks} on host {} would write this one \
             device; give each rank its own (a path with {{rank}}, e.g. a link per rank), or run \
             one rank per host",
            first.host
        )
    } else {
        let what = if created {
            "create this one file"
        } else {
            "write over this one file"
        };
        format!(
            "a path of each rank's own under MPI: {ranks} would each {what}; put {{rank}} or \
             {{host}} in it for a file per rank ({}.{{rank}}), or share one file with `run \
             --shared` (a region of --size bytes per rank)",
            first.given
        )
    };
    Error::invalid("TARGET", &first.given, accepted)
}

/// `ranks 0, 1 and 2`; past four, the first two and how many more.
fn ranks_named(ranks: &[u32]) -> String {
    let n = ranks.len();
    let shown: Vec<String> = ranks.iter().map(u32::to_string).collect();
    match n {
        0 | 1 => format!("rank {}", shown.join("")),
        2..=4 => format!("ranks {} and {}", shown[..n - 1].join(", "), shown[n - 1]),
        _ => format!("ranks {}, {} and {} more", shown[0], shown[1], n - 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(rank: u32, host: &str, path: &str, found: Found) -> Opening {
        Opening {
            rank,
            host: host.into(),
            given: path.into(),
            placed: path.into(),
            found,
        }
    }

    #[test]
    fn a_file_every_rank_would_create_is_refused_naming_both_remedies() {
        let all: Vec<Opening> = (0..3)
            .map(|r| at(r, "h", "/d/one.dat", Found::Missing))
            .collect();
        for writes in [false, true] {
            let e = collision(&all, writes).expect("refused");
            assert_eq!(e.exit_code(), 2);
            let s = e.to_string();
            assert!(s.starts_with("invalid TARGET '/d/one.dat'"), "{s}");
            assert!(s.contains("ranks 0, 1 and 2 would each create"), "{s}");
            assert!(s.contains("{rank}") && s.contains("--shared"), "{s}");
            assert!(!s.contains('\n'), "one line: {s}");
        }
    }

    #[test]
    fn an_existing_file_is_refused_when_written_and_shared_when_read() {
        let all: Vec<Opening> = (0..2).map(|r| at(r, "h", "/d/f", Found::File)).collect();
        assert!(
            collision(&all, false).is_none(),
            "every rank may read one file"
        );
        let s = collision(&all, true).expect("refused").to_string();
        assert!(s.contains("ranks 0 and 1 would each write over"), "{s}");
    }

    #[test]
    fn a_device_is_each_hosts_own() {
        let spread = [
            at(0, "a", "/dev/sdb", Found::Device),
            at(1, "b", "/dev/sdb", Found::Device),
        ];
        assert!(
            collision(&spread, true).is_none(),
            "one rank per host writes its own"
        );
        let one_host = [
            at(0, "a", "/dev/sdb", Found::Device),
            at(1, "a", "/dev/sdb", Found::Device),
        ];
        assert!(
            collision(&one_host, false).is_none(),
            "two ranks may read one device"
        );
        let s = collision(&one_host, true).expect("refused").to_string();
        assert!(s.contains("ranks 0 and 1 on host a would write"), "{s}");
    }

    #[test]
    fn paths_of_each_ranks_own_never_collide() {
        let all: Vec<Opening> = (0..3)
            .map(|r| at(r, "h", &format!("/d/f.{r}"), Found::Missing))
            .collect();
        assert!(collision(&all, true).is_none());
    }

    #[test]
    fn many_ranks_are_named_by_count() {
        assert_eq!(ranks_named(&[0, 1]), "ranks 0 and 1");
        assert_eq!(ranks_named(&[0, 1, 2, 3]), "ranks 0, 1, 2 and 3");
        assert_eq!(
            ranks_named(&(0..64).collect::<Vec<_>>()),
            "ranks 0, 1 and 62 more"
        );
    }
}
