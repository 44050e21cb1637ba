//! Targets: resolving what the user named (file, block device, or a name for the null engine),
//! creating and filling missing files, enforcing the write-safety rules, opening with the
//! requested flags (O_DIRECT, O_DSYNC), finding the alignment direct I/O needs, and PTS's
//! purge of a target's region (`purge`).

pub mod known;
mod open;
mod prefill;
pub mod purge;
pub mod safety;
pub mod setting;

pub use open::{open, open_made};
pub use prefill::{Scratch, create_as, create_filled, free_bytes};

use crate::model::TargetInfo;
use crate::oscounters::sysfs::{self, BlockDevice};
use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};
use std::path::PathBuf;

pub use crate::model::TargetKind;

/// An opened, checked target, ready for workers.
#[derive(Debug)]
pub struct Target {
    /// The path as given.
    pub path: PathBuf,
    /// File, block device or null.
    pub kind: TargetKind,
    /// The open file (None for the null engine).
    pub file: Option<File>,
    /// Removes a file halfpower created, when dropped.
    pub scratch: Option<Scratch>,
    /// A file rank 0 of this MPI job created for every rank (`run --shared`): made for the
    /// run, and removed by rank 0, not here.
    pub made_by_job: bool,
    /// Size of the file or device, bytes.
    pub capacity: u64,
    /// First byte of the region the workload addresses.
    pub offset: u64,
    /// Length of that region, bytes.
    pub size: u64,
    /// Whether I/O bypasses the page cache (O_DIRECT).
    pub direct: bool,
    /// Why direct I/O was asked for but not used, when that happened.
    pub direct_fallback: Option<crate::model::cause::DirectFallback>,
    /// Alignment of buffers in memory for direct I/O, bytes.
    pub mem_align: u32,
    /// Alignment of offsets and lengths for direct I/O, bytes.
    pub offset_align: u32,
    /// The disk underneath, when there is one.
    pub device: Option<BlockDevice>,
}

impl Target {
    /// The raw descriptor (-1 for the null engine).
    pub fn fd(&self) -> RawFd {
        self.file.as_ref().map_or(-1, |f| f.as_raw_fd())
    }

    /// Whether halfpower created this file for the run (here, or on rank 0 for the job).
    pub fn created(&self) -> bool {
        self.scratch.is_some() || self.made_by_job
    }

    /// Writes back and drops this target's pages from the page cache (fdatasync, then
    /// posix_fadvise DONTNEED over the whole file): the next buffered read reaches the device.
    /// Only this file's pages, never the system's cache.
    pub fn drop_cache(&self) {
        if let Some(f) = &self.file {
            // SAFETY: plain system calls on an open descriptor; failure only leaves pages cached.
            unsafe {
                libc::fdatasync(f.as_raw_fd());
                libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
            }
        }
    }

    /// The target as documents describe it.
    pub fn info(&self) -> TargetInfo {
        let d = self.device.as_ref();
        TargetInfo {
            path: self.path.display().to_string(),
            kind: self.kind,
            created: self.created(),
            capacity_bytes: self.capacity,
            offset_bytes: self.offset,
            size_bytes: self.size,
            direct: self.direct,
            direct_fallback: self.direct_fallback.clone(),
            dio_mem_align: self.mem_align,
            dio_offset_align: self.offset_align,
            device: d.map(|d| d.name.clone()),
            partition: d.and_then(|d| d.partition.clone()),
            logical_block_size: d.and_then(|d| d.logical_block_size),
            rotational: d.and_then(|d| d.rotational),
            class: d.map(|d| crate::analysis::device::classify(&sysfs::facts(&d.name))),
            scheduler: d.and_then(|d| d.scheduler.clone()),
            model: d.and_then(|d| d.model.clone()),
        }
    }
}
