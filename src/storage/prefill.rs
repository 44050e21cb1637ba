//! Creating a scratch file: check free space, preallocate, fill with incompressible data so no
//! read ever hits a hole, flush it and drop it from the page cache.

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::signal;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Room left free beside a scratch file so the filesystem does not fill to the brim:
/// 1 MiB plus 1/64 of the file, at most 64 MiB.
fn free_space_margin(size: u64) -> u64 {
    ((1 << 20) + size / 64).min(64 << 20)
}

/// Removes a file halfpower created when dropped, unless told to keep it.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Scratch {
    /// The file to remove.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Bytes available to an unprivileged writer in the filesystem holding `dir`.
pub fn free_bytes(dir: &Path) -> Result<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::invalid("path", dir.display(), "a path without NUL bytes"))?;
    // SAFETY: statvfs is plain data.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is a valid C string and s a writable statvfs.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(Error::io(
            format!("checking free space in {}", dir.display()),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(s.f_bavail as u64 * s.f_frsize as u64)
}

/// Creates `path` (which must not exist) as `create` says: `size` bytes of random data, a
/// sparse file of `size` bytes, or an empty file; returns the guard that removes it again.
/// Refuses when the filesystem lacks `size` plus a margin.
pub fn create_as(
    path: &Path,
    create: crate::plan::Create,
    size: u64,
    seed: u64,
    keep: bool,
) -> Result<Scratch> {
    use crate::plan::Create;
    match create {
        Create::Filled => create_filled(path, size, seed, keep),
        Create::Sparse | Create::Empty | Create::Allocated => {
            let file = create_new(path, size)?;
            let guard = Scratch {
                path: path.to_path_buf(),
                keep,
            };
            match create {
                Create::Sparse => file
                    .set_len(size)
                    .map_err(|e| Error::io(format!("sizing {}", path.display()), e))?,
                Create::Allocated => allocate(&file, path, size)?,
                _ => {}
            }
            Ok(guard)
        }
    }
}

/// Creates `path` (which must not exist) with `size` bytes of random data, returning the guard
/// that removes it again. Refuses when the filesystem lacks `size` plus a margin.
pub fn create_filled(path: &Path, size: u64, seed: u64, keep: bool) -> Result<Scratch> {
    let mut file = create_new(path, size)?;
    let guard = Scratch {
        path: path.to_path_buf(),
        keep,
    };
    fill(&mut file, path, size, seed)?;
    Ok(guard)
}

/// Creates `path` (which must not exist, in an existing directory with room for `size` bytes
/// plus a margin), empty.
fn create_new(path: &Path, size: u64) -> Result<File> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(Error::invalid(
            "TARGET",
            path.display(),
            format!(
                "a file in an existing directory ({} does not exist) or a block device",
                dir.display()
            ),
        ));
    }
    let free = free_bytes(&dir)?;
    let margin = free_space_margin(size);
    if free < size.saturating_add(margin) {
        return Err(Error::refused(
            path,
            format!(
                "not enough free space: {} needs {} MB plus a {} MB margin, {} has {} MB free; \
                 use a smaller --size or another directory",
                path.display(),
                size / 1_000_000,
                margin.div_ceil(1_000_000),
                dir.display(),
                free / 1_000_000
            ),
        ));
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                Error::refused(
                    path,
                    format!("cannot create the file here ({e}); choose a writable directory"),
                )
            }
            _ => Error::io(format!("creating {}", path.display()), e),
        })
}

/// Reserves `size` bytes of `file` with fallocate(2) (mode 0: the length set, the blocks
/// allocated and unwritten). Where the filesystem has no fallocate, the length is set instead
/// (a sparse file, which is what such a filesystem gives fio too).
fn allocate(file: &File, path: &Path, size: u64) -> Result<()> {
    // SAFETY: the fd is open for writing; fallocate only changes the file's allocation.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, size as libc::off_t) };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::ENOSPC) {
        return Err(Error::refused(
            path,
            "not enough free space to preallocate the file",
        ));
    }
    file.set_len(size)
        .map_err(|e| Error::io(format!("sizing {}", path.display()), e))
}

fn fill(file: &mut File, path: &Path, size: u64, seed: u64) -> Result<()> {
    let fd = file.as_raw_fd();
    // Preallocated in one piece where the filesystem can; the writes below fill every block.
    allocate(file, path, size)?;
    let mut rng = Rng::new(seed, 0x5eed_f111);
    let mut buf = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        if signal::interrupted() {
            return Err(Error::Interrupted);
        }
        let n = left.min(buf.len() as u64) as usize;
        rng.fill(&mut buf[..n]);
        file.write_all(&buf[..n]).map_err(|e| {
            if e.raw_os_error() == Some(libc::ENOSPC) {
                Error::refused(
                    path,
                    "ran out of space while filling the file; use a smaller --size",
                )
            } else {
                Error::io(format!("filling {}", path.display()), e)
            }
        })?;
        left -= n as u64;
    }
    file.sync_all()
        .map_err(|e| Error::io(format!("flushing {}", path.display()), e))?;
    // SAFETY: fd is valid; the advice only drops clean cached pages of this file.
    unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_files_are_full_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        {
            let g = create_filled(&p, 3 << 20, 1, false).unwrap();
            let md = std::fs::metadata(g.path()).unwrap();
            assert_eq!(md.len(), 3 << 20);
            use std::os::unix::fs::MetadataExt;
            assert!(md.blocks() * 512 >= 3 << 20, "not sparse");
            let data = std::fs::read(&p).unwrap();
            let zeros = data.iter().filter(|&&b| b == 0).count();
            assert!(zeros < data.len() / 100, "incompressible data");
        }
        assert!(!p.exists());
    }

    #[test]
    fn a_missing_directory_is_a_usage_error() {
        let err = create_filled(Path::new("/nonexistent-dir/x"), 1 << 20, 1, false).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("/nonexistent-dir"));
    }

    #[test]
    fn too_big_is_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("huge");
        let err = create_filled(&p, u64::MAX / 2, 1, false).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("not enough free space"), "{err}");
        assert!(!p.exists());
    }
}
