//! Readers of the operating system's own counters: /proc/diskstats, block-device sysfs
//! attributes, /proc/stat, /proc/vmstat, PSI, cgroup I/O limits, schedstat and host facts. One reader per source, shared by
//! `run` and `monitor`.

pub mod diskstats;
pub mod host;
pub mod path;
pub mod pressure;
pub mod procstat;
pub mod reader;
pub mod sched;
pub mod snapshot;
pub mod sysfs;
pub mod throttle;
pub mod vmstat;
