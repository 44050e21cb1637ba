//! Where each rank's targets come from in `scale --ranks`: every rank the whole list (each its
//! own through `{rank}` and `{host}`), or the list dealt out N per rank
//! (`--targets-per-rank`), so that clients and disks grow together.

use crate::error::{Error, Result};
use std::path::PathBuf;

/// `scale --ranks[=COUNTS]` as typed: every count of ranks up to the job's size, or the
/// counts listed (`2,4,8`); their range and order are checked against the job's size when
/// `scale` lowers them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankCounts {
    /// `--ranks` alone (or `=all`): each rank alone, then every count.
    All,
    /// `--ranks=2,4,8`: rank 0 alone, then these counts.
    Listed(Vec<u32>),
}

impl std::str::FromStr for RankCounts {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        if s == "all" {
            return Ok(RankCounts::All);
        }
        (s.split(','))
            .map(|c| c.trim().parse::<u32>())
            .collect::<std::result::Result<Vec<u32>, _>>()
            .map(RankCounts::Listed)
            .map_err(|_| {
                "rank counts from 1 to the job's size, in increasing order (e.g. --ranks=2,4 or \
                 --ranks 2,4), or --ranks alone for every count"
                    .to_string()
            })
    }
}

impl std::fmt::Display for RankCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RankCounts::All => f.write_str("all"),
            RankCounts::Listed(c) => {
                let shown: Vec<String> = c.iter().map(u32::to_string).collect();
                f.write_str(&shown.join(","))
            }
        }
    }
}

/// How the job's target list is placed on its ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Every rank runs the whole list, `{rank}` and `{host}` placed for it.
    Whole,
    /// The list dealt out this many per rank, in order: rank r takes targets r·N … r·N+N−1
    /// (counting from 0).
    Dealt(u32),
}

/// The placeholders that name a rank's own target, which a dealt list must not hold.
const PLACEHOLDERS: [&str; 2] = ["{rank}", "{host}"];

impl Placement {
    /// Lowers `--targets-per-rank` for a job of `ranks` ranks: refuses (usage errors) a list
    /// that is not exactly ranks × N long, naming both numbers; a path with `{rank}` or
    /// `{host}` (each rank's targets are its share of the list already); and a path given
    /// twice (it would be two ranks' disk).
    pub fn lower(per_rank: Option<u32>, paths: &[PathBuf], ranks: u32) -> Result<Placement> {
        let Some(n) = per_rank else {
            return Ok(Placement::Whole);
        };
        if n == 0 {
            return Err(Error::invalid(
                "--targets-per-rank",
                n,
                "one or more targets per rank",
            ));
        }
        let want = u64::from(ranks) * u64::from(n);
        if paths.len() as u64 != want {
            return Err(Error::invalid(
                "--targets-per-rank",
                n,
                format!(
                    "a list of exactly {ranks} ranks × {n} = {want} targets, one share of {n} \
                     per rank of the job (the list has {} target{})",
                    paths.len(),
                    if paths.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let mut seen = std::collections::HashSet::with_capacity(paths.len());
        for p in paths {
            let s = p.to_string_lossy();
            if let Some(ph) = PLACEHOLDERS.iter().find(|ph| s.contains(*ph)) {
                return Err(Error::invalid(
                    "TARGET",
                    p.display(),
                    format!(
                        "a path without {ph} with --targets-per-rank (rank r takes the list's \
                         targets r·N+1 … r·N+N: they are its own already); or {ph} without \
                         --targets-per-rank"
                    ),
                ));
            }
            if !seen.insert(p.as_path()) {
                return Err(Error::invalid(
                    "TARGET",
                    p.display(),
                    "each target once in a list dealt out with --targets-per-rank (each is \
                     one rank's)",
                ));
            }
        }
        Ok(Placement::Dealt(n))
    }

    /// Rank `rank`'s targets of the job's list (the whole list unless dealt; a rank beyond
    /// the list's shares has none).
    pub fn targets(self, paths: &[PathBuf], rank: u32) -> &[PathBuf] {
        match self {
            Placement::Whole => paths,
            Placement::Dealt(n) => {
                let (n, r) = (n as usize, rank as usize);
                let start = r.saturating_mul(n).min(paths.len());
                &paths[start..start.saturating_add(n).min(paths.len())]
            }
        }
    }

    /// N, when the list is dealt out (the document's `targets_per_rank`).
    pub fn per_rank(self) -> Option<u32> {
        match self {
            Placement::Whole => None,
            Placement::Dealt(n) => Some(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize) -> Vec<PathBuf> {
        (0..n)
            .map(|i| PathBuf::from(format!("/dev/d{i}")))
            .collect()
    }

    #[test]
    fn rank_r_takes_targets_r_n_to_r_n_plus_n_minus_1_in_order() {
        let paths = list(6);
        let p = Placement::lower(Some(2), &paths, 3).unwrap();
        assert_eq!(p, Placement::Dealt(2));
        assert_eq!(p.per_rank(), Some(2));
        let names = |r| -> Vec<String> {
            (p.targets(&paths, r).iter())
                .map(|t| t.display().to_string())
                .collect()
        };
        assert_eq!(names(0), ["/dev/d0", "/dev/d1"]);
        assert_eq!(names(1), ["/dev/d2", "/dev/d3"]);
        assert_eq!(names(2), ["/dev/d4", "/dev/d5"]);
        // Every target is exactly one rank's.
        let dealt: Vec<PathBuf> = (0..3).flat_map(|r| p.targets(&paths, r).to_vec()).collect();
        assert_eq!(dealt, paths);
        assert!(p.targets(&paths, 3).is_empty(), "no share beyond the job");
        let one = Placement::lower(Some(1), &paths[..3], 3).unwrap();
        assert_eq!(one.targets(&paths[..3], 1), &paths[1..2]);
    }

    #[test]
    fn rank_counts_read_as_typed() {
        assert_eq!("all".parse::<RankCounts>(), Ok(RankCounts::All));
        let listed: RankCounts = "2, 4,8".parse().unwrap();
        assert_eq!(listed, RankCounts::Listed(vec![2, 4, 8]));
        assert_eq!(listed.to_string(), "2,4,8");
        for bad in ["", "2,", "a", "/mnt/f.{rank}", "-1"] {
            assert!(bad.parse::<RankCounts>().is_err(), "{bad}");
        }
    }

    #[test]
    fn without_the_flag_every_rank_runs_the_whole_list() {
        let paths = vec![PathBuf::from("/mnt/{rank}/f"), PathBuf::from("/g")];
        let p = Placement::lower(None, &paths, 4).unwrap();
        assert_eq!(p, Placement::Whole);
        assert_eq!(p.per_rank(), None);
        assert_eq!(p.targets(&paths, 3), &paths[..]);
    }

    #[test]
    fn a_list_not_ranks_times_n_long_is_refused_naming_both_numbers() {
        for len in [5, 7, 1] {
            let e = Placement::lower(Some(2), &list(len), 3).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let s = e.to_string();
            assert!(s.starts_with("invalid --targets-per-rank '2'"), "{s}");
            assert!(s.contains("3 ranks × 2 = 6 targets"), "{s}");
            assert!(s.contains(&format!("the list has {len} target")), "{s}");
        }
        let e = Placement::lower(Some(0), &list(0), 3).unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn placeholders_and_repeated_paths_are_refused_by_name() {
        for bad in ["/mnt/{rank}/f", "/mnt/{host}.f"] {
            let mut paths = list(3);
            paths[1] = PathBuf::from(bad);
            let e = Placement::lower(Some(1), &paths, 3).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let s = e.to_string();
            let ph = if bad.contains("{rank}") {
                "{rank}"
            } else {
                "{host}"
            };
            assert!(s.contains(&format!("invalid TARGET '{bad}'")), "{s}");
            assert!(
                s.contains(&format!("without {ph} with --targets-per-rank")),
                "{s}"
            );
        }
        let mut paths = list(4);
        paths[3] = paths[0].clone();
        let e = Placement::lower(Some(2), &paths, 2).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("'/dev/d0'") && s.contains("each target once"),
            "{s}"
        );
    }
}
