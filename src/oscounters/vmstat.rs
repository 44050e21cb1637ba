//! /proc/vmstat: the paging counters the seeds' memory rule needs (hard paging rules disks out).

use serde::{Deserialize, Serialize};

/// The paging counters halfpower watches, cumulative since boot (pages or events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VmStat {
    /// Pages swapped in.
    pub pswpin: u64,
    /// Pages swapped out.
    pub pswpout: u64,
    /// Major page faults (a fault that had to read from disk).
    pub pgmajfault: u64,
    /// Pages scanned by direct reclaim (allocations that had to wait for memory).
    pub pgscan_direct: u64,
    /// Refaults of recently evicted pages (anon + file; `workingset_refault` on old kernels).
    pub workingset_refault: u64,
}

/// Parses /proc/vmstat text; absent keys stay 0.
pub fn parse(text: &str) -> VmStat {
    let mut v = VmStat::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(key), Some(val)) = (it.next(), it.next()) else {
            continue;
        };
        let Ok(n) = val.parse::<u64>() else { continue };
        match key {
            "pswpin" => v.pswpin = n,
            "pswpout" => v.pswpout = n,
            "pgmajfault" => v.pgmajfault = n,
            "pgscan_direct" => v.pgscan_direct = n,
            "workingset_refault" | "workingset_refault_anon" | "workingset_refault_file" => {
                v.workingset_refault += n
            }
            _ => {}
        }
    }
    v
}

/// Reads /proc/vmstat now (`None` when it cannot be read).
pub fn read() -> Option<VmStat> {
    std::fs::read_to_string("/proc/vmstat")
        .ok()
        .map(|t| parse(&t))
}

#[cfg(test)]
mod tests {
    #[test]
    fn picks_the_paging_counters() {
        let v = super::parse(
            "nr_free_pages 5\nworkingset_refault_anon 3\nworkingset_refault_file 4\npswpin 7\npswpout 8\npgmajfault 9\npgscan_direct 10\nbogus\n",
        );
        assert_eq!((v.pswpin, v.pswpout, v.pgmajfault), (7, 8, 9));
        assert_eq!((v.pgscan_direct, v.workingset_refault), (10, 7));
    }
}
