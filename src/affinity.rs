//! Which CPU each worker thread runs on (`--affinity`).
//!
//! By default halfpower pins worker k (targets × threads, in order) to the k-th CPU this process
//! may use, round robin, as DiskSpd does. Left to the scheduler, the CPU that waits for a
//! completion and the CPUs that produce it (a loop device's kworker, the softirq thread) settle
//! differently from run to run, and on a virtual machine each cross-CPU wake-up of a halted vCPU
//! costs tens of µs: the same QD1 job on a loop device gave 14k–41k IOPS unpinned and 39k–50k
//! pinned (docs/performance.md). `--affinity none` leaves placement to the scheduler;
//! a list such as `0-3,8` pins round robin over those CPUs.

use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::io;
use std::str::FromStr;

/// Largest CPU number accepted in a list (the size of the kernel's default CPU set type).
pub const MAX_CPU: usize = libc::CPU_SETSIZE as usize - 1;

const ACCEPTED: &str = "spread (one CPU per worker, round robin), none (the scheduler places \
                        workers), or a CPU list such as 0-3,8";

/// Where worker threads run.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Affinity {
    /// Worker k on the k-th CPU the process may use, round robin.
    #[default]
    Spread,
    /// No pinning: the scheduler places and moves the workers.
    None,
    /// Worker k on the (k mod n)-th CPU of this list (ascending, no repeats).
    Cpus(Vec<usize>),
}

impl FromStr for Affinity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "spread" => return Ok(Affinity::Spread),
            "none" => return Ok(Affinity::None),
            _ => {}
        }
        let bad = |why: &str| format!("'{s}' {why}: use {ACCEPTED}");
        let mut cpus = Vec::new();
        for part in s.trim().split(',') {
            let num = |t: &str| -> Result<usize, String> {
                let n: usize = t.trim().parse().map_err(|_| bad("is not a CPU list"))?;
                if n > MAX_CPU {
                    return Err(bad(&format!("names CPU {n}, above {MAX_CPU}")));
                }
                Ok(n)
            };
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (num(a)?, num(b)?),
                None => (num(part)?, num(part)?),
            };
            if lo > hi {
                return Err(bad(&format!("has a descending range {lo}-{hi}")));
            }
            cpus.extend(lo..=hi);
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(Affinity::Cpus(cpus))
    }
}

impl fmt::Display for Affinity {
    /// `spread`, `none`, or the list with runs folded into ranges (`0-3,8`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Affinity::Spread => f.write_str("spread"),
            Affinity::None => f.write_str("none"),
            Affinity::Cpus(cpus) => f.write_str(&cpu_list(cpus)),
        }
    }
}

impl Serialize for Affinity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Affinity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// A CPU list with consecutive CPUs folded into ranges: `[0, 1, 2, 3, 8]` → `0-3,8`.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    out.join(",")
}

impl Affinity {
    /// The CPU of each of `workers` workers (None: not pinned), given the CPUs the process may
    /// use. A listed CPU outside `allowed` is the user's error.
    pub fn plan(&self, workers: usize, allowed: &[usize]) -> Result<Vec<Option<usize>>> {
        let over: &[usize] = match self {
            Affinity::None => return Ok(vec![None; workers]),
            Affinity::Spread => allowed,
            Affinity::Cpus(cpus) => {
                if let Some(c) = cpus.iter().find(|c| !allowed.contains(c)) {
                    return Err(Error::invalid(
                        "--affinity",
                        self,
                        format!(
                            "CPU {c} is not one this process may use; it may use {}",
                            cpu_list(allowed)
                        ),
                    ));
                }
                cpus
            }
        };
        if over.is_empty() {
            return Ok(vec![None; workers]);
        }
        Ok((0..workers).map(|k| Some(over[k % over.len()])).collect())
    }
}

/// The CPUs this process may run on (its affinity mask: taskset, cpuset cgroup), ascending.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is a plain bit array; all zeros is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed; pid 0 is this thread.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..=MAX_CPU)
        // SAFETY: c ≤ MAX_CPU < CPU_SETSIZE, so the bit read is inside `set`.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Pins the calling thread to `cpu`.
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu > MAX_CPU {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: as in `allowed_cpus`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: cpu ≤ MAX_CPU < CPU_SETSIZE (checked above), so the bit set is inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: `set` is a valid cpu_set_t of the size passed; pid 0 is the calling thread.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_three_forms() {
        assert_eq!("spread".parse::<Affinity>().unwrap(), Affinity::Spread);
        assert_eq!("none".parse::<Affinity>().unwrap(), Affinity::None);
        let a: Affinity = "8,0-3,2".parse().unwrap();
        assert_eq!(a, Affinity::Cpus(vec![0, 1, 2, 3, 8]));
        assert_eq!(a.to_string(), "0-3,8");
        assert_eq!(cpu_list(&[1, 3, 4, 5, 7]), "1,3-5,7");
    }

    #[test]
    fn refuses_what_is_not_a_cpu_list() {
        for bad in ["", "x", "3-1", "0-", "-2", "1,,2", "99999", "all"] {
            let err = bad.parse::<Affinity>().unwrap_err();
            assert!(err.contains("spread"), "{bad}: {err}");
        }
    }

    #[test]
    fn round_robin_over_the_allowed_or_listed_cpus() {
        let allowed = [0, 1, 2, 3];
        assert_eq!(
            Affinity::Spread.plan(6, &allowed).unwrap(),
            [0, 1, 2, 3, 0, 1].map(Some)
        );
        assert_eq!(Affinity::None.plan(2, &allowed).unwrap(), [None, None]);
        assert_eq!(
            Affinity::Cpus(vec![1, 3]).plan(3, &allowed).unwrap(),
            [1, 3, 1].map(Some)
        );
        let err = Affinity::Cpus(vec![5]).plan(1, &allowed).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("0-3"), "{err}");
    }

    #[test]
    fn serde_round_trips_as_a_string() {
        let a = Affinity::Cpus(vec![0, 2]);
        let j = serde_json::to_string(&a).unwrap();
        assert_eq!(j, "\"0,2\"");
        assert_eq!(serde_json::from_str::<Affinity>(&j).unwrap(), a);
    }

    #[test]
    fn pinning_narrows_the_calling_thread_to_one_cpu() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        let last = *allowed.last().unwrap();
        // In a thread of its own, so the test harness's threads keep their affinity.
        let seen = std::thread::spawn(move || {
            pin_current_thread(last).unwrap();
            allowed_cpus().unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(seen, [last]);
        assert!(pin_current_thread(MAX_CPU + 1).is_err());
    }
}
