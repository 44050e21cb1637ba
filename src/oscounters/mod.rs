//! Readers of the operating system's own counters: /proc/diskstats, block-device sysfs
//! attributes, /proc/stat and host facts. One reader per source, shared by `run` and (later)
//! `monitor`.

pub mod diskstats;
pub mod host;
pub mod procstat;
pub mod sysfs;
