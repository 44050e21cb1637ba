//! Readers of the operating system's own counters: /proc/diskstats, block-device sysfs
//! attributes, /proc/stat, /proc/vmstat, PSI, cgroups (where they are, their CPU quota and
//! I/O limits), schedstat and host facts. One reader per source, shared by `run` and `monitor`.

pub mod cgroup;
pub mod diskstats;
pub mod host;
pub mod mounts;
pub mod path;
pub mod placement;
pub mod pressure;
pub mod procstat;
pub mod reader;
pub mod sched;
pub mod settings;
pub mod snapshot;
pub mod sysfs;
pub mod throttle;
pub mod vmstat;
