//! A device's queue settings changed for a measurement and put back (`doctor --price`): the
//! files as found are read before the first change, handed to the signal handler (a second
//! Ctrl-C writes them back before it exits) and written back on drop, also after an error or
//! the first Ctrl-C.
//!
//! The kernel resets some attributes when others are written: a scheduler switch sets
//! `nr_requests` and writeback throttling to the new scheduler's defaults, and a change of the
//! queue's limits (`write_cache`, `max_sectors_kb`, `rotational`) recomputes `read_ahead_kb`.
//! So a guard keeps those too, and puts everything back in [`ORDER`]: a file is written after
//! every file whose write could reset it.

use crate::error::Error;
use std::path::{Path, PathBuf};

/// Queue attributes in the order they are put back: each after those whose write resets it.
pub const ORDER: [&str; 12] = [
    "scheduler",
    "write_cache",
    "max_sectors_kb",
    "rotational",
    "nr_requests",
    "wbt_lat_usec",
    "nomerges",
    "iostats",
    "rq_affinity",
    "add_random",
    "io_poll",
    "read_ahead_kb",
];

/// The attributes the kernel may reset when `attr` is written.
fn resets(attr: &str) -> &'static [&'static str] {
    match attr {
        "scheduler" => &["nr_requests", "wbt_lat_usec"],
        "write_cache" | "max_sectors_kb" | "rotational" => &["read_ahead_kb"],
        _ => &[],
    }
}

/// Where `file`'s attribute stands in [`ORDER`] (files it does not name come last but one:
/// read-ahead is always written last).
fn rank(file: &Path) -> usize {
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    ORDER
        .iter()
        .position(|a| *a == name)
        .unwrap_or(ORDER.len() - 1)
}

/// A setting file's value as a write takes it: trimmed, and the active entry of a bracketed
/// list (`none [bfq]` → `bfq`).
pub fn read_value(file: &Path) -> crate::Result<String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::io(format!("reading {}", file.display()), e))?;
    Ok(crate::oscounters::sysfs::active_scheduler(&text).unwrap_or_default())
}

/// Writes `value` to `file` and reads it back: an error when the kernel refused it or kept
/// another value.
pub fn write_value(file: &Path, value: &str) -> crate::Result<()> {
    std::fs::write(file, value)
        .map_err(|e| Error::io(format!("writing '{value}' to {}", file.display()), e))?;
    let now = read_value(file)?;
    if now != value {
        return Err(Error::refused(
            file,
            format!("wrote '{value}', it reads '{now}'"),
        ));
    }
    Ok(())
}

/// Setting files as found, put back when dropped.
#[derive(Debug)]
pub struct Changed {
    /// Each file and its value as found, in [`ORDER`].
    found: Vec<(PathBuf, String)>,
}

impl Changed {
    /// Reads `files` and every file of their queues that a write to them may reset (those
    /// the kernel lacks are left out), and hands them to the signal handler.
    pub fn guard(files: &[PathBuf]) -> crate::Result<Changed> {
        let mut all: Vec<PathBuf> = Vec::new();
        for f in files {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let dir = f.parent().unwrap_or(Path::new("/"));
            let more = resets(name).iter().map(|a| dir.join(a));
            for p in std::iter::once(f.clone()).chain(more) {
                if !all.contains(&p) && (p == *f || p.exists()) {
                    all.push(p);
                }
            }
        }
        all.sort_by_key(|p| rank(p));
        let mut found = Vec::with_capacity(all.len());
        for p in all {
            let v = read_value(&p)?;
            found.push((p, v));
        }
        let c = Changed { found };
        crate::signal::set_restore(
            c.found
                .iter()
                .map(|(p, v)| (p.as_os_str(), v.as_bytes()))
                .collect(),
        );
        Ok(c)
    }

    /// Sets `file` to `value` and reads it back, as the fix's command would: what the kernel
    /// resets with it (a scheduler's own `nr_requests`, writeback throttling) is the fix's too.
    pub fn set(&self, file: &Path, value: &str) -> crate::Result<()> {
        write_value(file, value)
    }

    /// Puts every file back as found, in order, writing only those that differ, then reads
    /// them all again: an error names the first that does not hold its value. Only what
    /// differs is written: a value the kernel derived (writeback throttling off under bfq)
    /// comes back with what it derives from, and writing it would pin it (`wbt_lat_usec` 0
    /// written by hand stays 0 under every later scheduler).
    pub fn restore(&self) -> crate::Result<()> {
        for (p, v) in &self.found {
            if read_value(p)? != *v {
                write_value(p, v)?;
            }
        }
        // A later write may have reset an earlier file (a limits change, read-ahead): check all.
        for (p, v) in &self.found {
            let now = read_value(p)?;
            if now != *v {
                return Err(Error::refused(
                    p,
                    format!("holds '{now}' after the others were put back, not '{v}'"),
                ));
            }
        }
        Ok(())
    }
}

impl Drop for Changed {
    fn drop(&mut self) {
        // Twice at most: a write the kernel undid as a side effect of a later one is written
        // again on the second pass.
        let done = self.restore().or_else(|_| self.restore());
        if let Err(e) = done {
            crate::output::say!("halfpower: error: putting a setting back: {e}");
        }
        crate::signal::set_restore(Vec::new());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scheduler_is_put_back_before_what_its_switch_resets() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path();
        for (a, v) in [
            ("scheduler", "none [bfq]"),
            ("nr_requests", "8"),
            ("wbt_lat_usec", "0"),
            ("read_ahead_kb", "0"),
        ] {
            std::fs::write(q.join(a), v).unwrap();
        }
        let c = Changed::guard(&[q.join("read_ahead_kb"), q.join("scheduler")]).unwrap();
        let names: Vec<_> = c
            .found
            .iter()
            .map(|(p, v)| (p.file_name().unwrap().to_str().unwrap(), v.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("scheduler", "bfq"),
                ("nr_requests", "8"),
                ("wbt_lat_usec", "0"),
                ("read_ahead_kb", "0")
            ]
        );
        c.set(&q.join("scheduler"), "none").unwrap();
        std::fs::write(q.join("nr_requests"), "128").unwrap(); // as a switch resets it
        assert_eq!(read_value(&q.join("scheduler")).unwrap(), "none");
        drop(c);
        assert_eq!(read_value(&q.join("scheduler")).unwrap(), "bfq");
        assert_eq!(read_value(&q.join("nr_requests")).unwrap(), "8");
    }

    #[test]
    fn a_file_that_is_not_there_is_an_error_naming_it() {
        let e = Changed::guard(&[PathBuf::from("/nonexistent/queue/scheduler")]).unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent/queue/scheduler"),
            "{e}"
        );
    }
}
