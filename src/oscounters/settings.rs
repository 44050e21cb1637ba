//! The settings that shape a measurement, each read with the file it came from: a block
//! device's queue files (through a sysfs [`Tree`], so a captured tree serves too) and the
//! host's clock, CPU frequency, idle, SMT, huge-page and dirty-page files (live only). The
//! doctor judges them (`analysis::doctor`, docs/doctor.md).

use crate::oscounters::path::tree::Tree;
use std::path::{Path, PathBuf};

/// One file and its trimmed text (None when it is not there or cannot be read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The file, as the user would name it (`/sys/block/loop3/queue/nr_requests`).
    pub file: PathBuf,
    /// Its text, trimmed.
    pub text: Option<String>,
}

impl Attr {
    /// The text parsed as a number.
    pub fn number(&self) -> Option<i64> {
        self.text.as_deref()?.parse().ok()
    }

    /// The active entry of a bracketed list (`none [mq-deadline] bfq`), else the text.
    pub fn active(&self) -> Option<String> {
        let t = self.text.as_deref()?;
        crate::oscounters::sysfs::active_scheduler(t).or_else(|| Some(t.to_string()))
    }

    /// The file as a string.
    pub fn name(&self) -> String {
        self.file.display().to_string()
    }
}

/// A block device's queue settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueFiles {
    /// Kernel name.
    pub device: String,
    /// `queue/scheduler`.
    pub scheduler: Attr,
    /// `queue/nomerges`.
    pub nomerges: Attr,
    /// `queue/iostats`.
    pub iostats: Attr,
    /// `queue/rq_affinity`.
    pub rq_affinity: Attr,
    /// `queue/read_ahead_kb`.
    pub read_ahead_kb: Attr,
    /// `queue/nr_requests`.
    pub nr_requests: Attr,
    /// `queue/write_cache`.
    pub write_cache: Attr,
    /// `queue/wbt_lat_usec`.
    pub wbt_lat_usec: Attr,
    /// `queue/add_random`.
    pub add_random: Attr,
    /// `queue/max_sectors_kb`.
    pub max_sectors_kb: Attr,
    /// `queue/max_hw_sectors_kb`.
    pub max_hw_sectors_kb: Attr,
    /// `queue/rotational`.
    pub rotational: Attr,
    /// `queue/io_poll`.
    pub io_poll: Attr,
    /// The most tags of any of its hardware queues (`mq/*/nr_tags`).
    pub tags: Option<u64>,
}

/// Reads `name`'s queue files from `tree`; each file is named under `/sys/block/NAME/queue`
/// (the tree's root in place of /sys).
pub fn queue(tree: &Tree, name: &str) -> QueueFiles {
    let dir = Path::new("block").join(name).join("queue");
    let shown = tree.root().join(&dir);
    let a = |attr: &str| Attr {
        file: shown.join(attr),
        text: tree.attr(&dir, attr),
    };
    let mq = Path::new("block").join(name).join("mq");
    let tags = tree
        .entries(&mq)
        .iter()
        .filter_map(|q| tree.number(&mq.join(q), "nr_tags"))
        .max();
    QueueFiles::read(name, a, tags)
}

impl QueueFiles {
    /// `device`'s queue with each attribute as `attr` reads it by its file name.
    pub fn read(device: &str, attr: impl Fn(&str) -> Attr, tags: Option<u64>) -> QueueFiles {
        QueueFiles {
            device: device.to_string(),
            scheduler: attr("scheduler"),
            nomerges: attr("nomerges"),
            iostats: attr("iostats"),
            rq_affinity: attr("rq_affinity"),
            read_ahead_kb: attr("read_ahead_kb"),
            nr_requests: attr("nr_requests"),
            write_cache: attr("write_cache"),
            wbt_lat_usec: attr("wbt_lat_usec"),
            add_random: attr("add_random"),
            max_sectors_kb: attr("max_sectors_kb"),
            max_hw_sectors_kb: attr("max_hw_sectors_kb"),
            rotational: attr("rotational"),
            io_poll: attr("io_poll"),
            tags,
        }
    }
}

/// One idle state of a CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleState {
    /// The CPU.
    pub cpu: usize,
    /// The state's name (`POLL`, `C6`).
    pub name: String,
    /// µs to leave it.
    pub exit_us: u64,
    /// Whether it is disabled.
    pub disabled: bool,
}

/// The host's settings that shape a measurement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostFiles {
    /// `current_clocksource`.
    pub clocksource: Attr,
    /// `available_clocksource`.
    pub available: Attr,
    /// Each worker CPU's `cpufreq/scaling_governor`.
    pub governors: Vec<(usize, Attr)>,
    /// `cpuidle/current_driver`.
    pub idle_driver: Attr,
    /// The idle states of the worker CPUs.
    pub idle_states: Vec<IdleState>,
    /// `smt/active`.
    pub smt_active: Attr,
    /// Each worker CPU's `topology/thread_siblings_list`.
    pub siblings: Vec<(usize, Attr)>,
    /// `transparent_hugepage/enabled`.
    pub thp: Attr,
    /// `vm/dirty_ratio`, `dirty_background_ratio`, `dirty_bytes`, `dirty_background_bytes`.
    pub dirty: [Attr; 4],
}

/// The directory of the CPUs' files.
const CPU_DIR: &str = "/sys/devices/system/cpu";

/// Reads a live file as an [`Attr`].
fn live(file: impl Into<PathBuf>) -> Attr {
    let file = file.into();
    let text = std::fs::read_to_string(&file)
        .ok()
        .map(|t| t.trim().to_string());
    Attr { file, text }
}

/// Reads the host's settings for workers on `cpus`.
pub fn host(cpus: &[usize]) -> HostFiles {
    let clock = "/sys/devices/system/clocksource/clocksource0";
    let cpu = |n: usize, rest: &str| format!("{CPU_DIR}/cpu{n}/{rest}");
    let governors = cpus
        .iter()
        .map(|&n| (n, live(cpu(n, "cpufreq/scaling_governor"))))
        .filter(|(_, a)| a.text.is_some())
        .collect();
    let mut idle_states = Vec::new();
    for &n in cpus {
        let dir = PathBuf::from(cpu(n, "cpuidle"));
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut states: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|s| s.starts_with("state"))
            .collect();
        states.sort();
        for s in states {
            let read = |f: &str| live(dir.join(&s).join(f)).text;
            idle_states.push(IdleState {
                cpu: n,
                name: read("name").unwrap_or_else(|| s.clone()),
                exit_us: read("latency").and_then(|t| t.parse().ok()).unwrap_or(0),
                disabled: read("disable").is_some_and(|t| t == "1"),
            });
        }
    }
    let vm = |f: &str| live(format!("/proc/sys/vm/{f}"));
    HostFiles {
        clocksource: live(format!("{clock}/current_clocksource")),
        available: live(format!("{clock}/available_clocksource")),
        governors,
        idle_driver: live(format!("{CPU_DIR}/cpuidle/current_driver")),
        idle_states,
        smt_active: live(format!("{CPU_DIR}/smt/active")),
        siblings: cpus
            .iter()
            .map(|&n| (n, live(cpu(n, "topology/thread_siblings_list"))))
            .filter(|(_, a)| a.text.is_some())
            .collect(),
        thp: live("/sys/kernel/mm/transparent_hugepage/enabled"),
        dirty: [
            vm("dirty_ratio"),
            vm("dirty_background_ratio"),
            vm("dirty_bytes"),
            vm("dirty_background_bytes"),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_files_are_named_under_sys_block_and_read() {
        let d = tempfile::tempdir().unwrap();
        let q = d.path().join("block/loop9/queue");
        std::fs::create_dir_all(&q).unwrap();
        std::fs::write(q.join("scheduler"), "none mq-deadline [bfq]\n").unwrap();
        std::fs::write(q.join("nr_requests"), "8\n").unwrap();
        for (h, t) in [("0", "128"), ("1", "64")] {
            let m = d.path().join("block/loop9/mq").join(h);
            std::fs::create_dir_all(&m).unwrap();
            std::fs::write(m.join("nr_tags"), t).unwrap();
        }
        let tree = Tree::at(d.path());
        let f = queue(&tree, "loop9");
        assert_eq!(f.scheduler.active().as_deref(), Some("bfq"));
        assert_eq!(f.nr_requests.number(), Some(8));
        assert_eq!(
            f.nr_requests.file,
            d.path().join("block/loop9/queue/nr_requests")
        );
        assert_eq!(f.iostats.text, None);
        assert_eq!(f.tags, Some(128));
    }

    #[test]
    fn the_hosts_files_are_read_live() {
        let h = host(&[0]);
        assert!(h.clocksource.name().ends_with("current_clocksource"));
        assert_eq!(h.dirty.len(), 4);
    }
}
