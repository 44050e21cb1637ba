//! Opening one target: resolving what the user named, creating a missing file, the write
//! safety rules, the open flags (O_DIRECT with its fallback, O_DSYNC), the alignment direct
//! I/O needs and the region the workload addresses.

use super::{Scratch, Target, TargetKind, create_as, safety};
use crate::error::{Error, Result};
use crate::model::Warning;
use crate::model::cause::DirectFallback;
use crate::oscounters::sysfs::{self, BlockDevice};
use crate::plan::{Create, DEFAULT_FILE_SIZE, EngineKind, RunPlan};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

fn statx_dio_align(file: &File) -> Option<(u32, u32)> {
    // SAFETY: statx is plain data.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: an empty path with AT_EMPTY_PATH refers to the fd; st is writable.
    let rc = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut st,
        )
    };
    (rc == 0 && st.stx_mask & libc::STATX_DIOALIGN != 0)
        .then_some((st.stx_dio_mem_align, st.stx_dio_offset_align))
}

/// Opens `path` with O_DIRECT if `direct`, and O_DSYNC (O_SYNC with `sync_metadata`) if
/// the workload writes through.
fn open_with(path: &Path, write: bool, direct: bool, w: &RunPlan) -> std::io::Result<File> {
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if w.setup().write_through {
        flags |= if w.setup().sync_metadata {
            libc::O_SYNC
        } else {
            libc::O_DSYNC
        };
    }
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(flags)
        .open(path)
}

/// Reads one aligned block at offset 0 to learn whether the target really accepts O_DIRECT
/// (some filesystems accept the flag at open and refuse the I/O).
fn direct_read_works(file: &File, align: u32) -> bool {
    let Ok(mut arena) = crate::engine::BufferArena::new(1, align as usize, align as usize) else {
        return false;
    };
    let buf = arena.slot_mut(0, align as usize);
    // SAFETY: buf is a live, aligned, writable buffer of `align` bytes.
    let n = unsafe { libc::pread(file.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    n >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
}

/// Checks that the offset distribution fits a region of `size` bytes on `path` (zones).
fn check_dist(w: &RunPlan, size: u64, path: &Path) -> Result<()> {
    let dist = &w.setup().access.dist;
    if w.rw().is_random() && !dist.is_uniform() {
        let align = w.bs().min().max(1);
        let mut rng = crate::rng::Rng::new(0, 0);
        crate::access::sample::Draw::new(dist, size / align, align, &mut rng).map_err(|why| {
            Error::invalid(
                "--dist",
                dist,
                format!("zones that fit the region of {}: {why}", path.display()),
            )
        })?;
    }
    Ok(())
}

/// Resolves, creates if needed, checks and opens one target for workload `w` (already
/// validated). Warnings go to `warn`, each with what to do about it.
pub fn open(path: &Path, w: &RunPlan, warn: &mut dyn FnMut(Warning)) -> Result<Target> {
    open_as(path, w, None, warn)
}

/// Opens a file that rank 0 of this MPI job created for every rank's region (`run --shared`),
/// `len` bytes as the job asked (an empty file grows towards it as the ranks write), for
/// workload `w` (this rank's region): as a file made for the run, so it is written without
/// `--allow-write`, an empty one holds the job's regions and no warning says that `--create`
/// does not apply. Rank 0 removes it; this target never does.
pub fn open_made(
    path: &Path,
    w: &RunPlan,
    len: u64,
    warn: &mut dyn FnMut(Warning),
) -> Result<Target> {
    open_as(path, w, Some(len), warn)
}

/// [`open`], or [`open_made`] with the job's length `made`.
fn open_as(
    path: &Path,
    w: &RunPlan,
    made: Option<u64>,
    warn: &mut dyn FnMut(Warning),
) -> Result<Target> {
    if w.setup().engine == EngineKind::Null {
        return open_null(path, w);
    }
    let writes = w.writes();
    let (md, scratch) = match made {
        Some(_) => (inspect(path)?, None),
        None => stat_or_create(path, w)?,
    };
    // The length of a file made for this run, an empty one's included (it grows as written).
    let made = made.or_else(|| {
        let size = w.setup().size.map_or(DEFAULT_FILE_SIZE, |s| s.0);
        scratch.is_some().then_some(w.setup().offset.0 + size)
    });
    let kind = kind_of(path, &md)?;
    let device = match kind {
        TargetKind::BlockDevice => sysfs::resolve(md.rdev()),
        _ => sysfs::resolve(md.dev()),
    };
    if writes && made.is_none() {
        // Judged on this machine's /sys, never on a HALFPOWER_SYSFS tree.
        let live = match kind {
            TargetKind::BlockDevice => sysfs::resolve_live(md.rdev()),
            _ => sysfs::resolve_live(md.dev()),
        };
        check_write_allowed(path, kind, live.as_ref(), w)?;
    }
    let (mut file, mut fallback) = open_direct(path, w, writes)?;
    let capacity = capacity(&file, kind, &md, made, w);
    let lbs = device
        .as_ref()
        .and_then(|d| d.logical_block_size)
        .unwrap_or(512);
    let (mem_align, offset_align) =
        dio_align(path, w, writes, kind, lbs, &mut file, &mut fallback)?;
    if let Some(f) = &fallback {
        warn(Warning::DirectUnavailable {
            path: path.display().to_string(),
            fallback: f.clone(),
        });
    }
    let direct = !w.setup().buffered && fallback.is_none();
    let (mem_align, offset_align) = if direct {
        (mem_align.max(512), offset_align.max(512))
    } else {
        (4096, 1)
    };
    if direct {
        check_direct_sizes(path, w, offset_align)?;
    }
    let size = region(path, w, capacity)?;
    check_dist(w, size, path)?;
    warn_as_it_is(path, w, kind, &md, made.is_some(), warn);
    Ok(Target {
        path: path.to_path_buf(),
        kind,
        file: Some(file),
        made_by_job: scratch.is_none() && made.is_some(),
        scratch,
        capacity,
        offset: w.setup().offset.0,
        size,
        direct,
        direct_fallback: fallback,
        mem_align,
        offset_align,
        device,
    })
}

/// The target's capacity, bytes: a block device's size, an empty file made for the run
/// (which grows as it is written) the length it was made for (`made`), else the file's length.
fn capacity(
    file: &File,
    kind: TargetKind,
    md: &std::fs::Metadata,
    made: Option<u64>,
    w: &RunPlan,
) -> u64 {
    match (kind, made) {
        (TargetKind::BlockDevice, _) => {
            // SAFETY: lseek on a valid fd has no memory effects.
            let end = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_END) };
            if end < 0 { 0 } else { end as u64 }
        }
        (_, Some(len)) if w.setup().create == Create::Empty => len.max(md.len()),
        _ => md.len(),
    }
}

/// The direct-I/O alignments (memory, offset) of the opened `file`, from statx or the
/// device's logical block size `lbs`. Where direct I/O was asked for and does not work,
/// reopens `file` buffered and sets `fallback`.
fn dio_align(
    path: &Path,
    w: &RunPlan,
    writes: bool,
    kind: TargetKind,
    lbs: u32,
    file: &mut File,
    fallback: &mut Option<DirectFallback>,
) -> Result<(u32, u32)> {
    let asked_direct = fallback.is_none() && !w.setup().buffered;
    let (mem_align, offset_align) = match statx_dio_align(file) {
        Some((m, o)) if m > 0 && o > 0 => (m, o),
        Some(_) if asked_direct && kind == TargetKind::File => (0, 0), // filesystem: no direct I/O
        _ => (lbs, lbs),
    };
    if asked_direct && (offset_align == 0 || !direct_read_works(file, offset_align.max(512))) {
        *fallback = Some(DirectFallback::Unsupported);
        *file = open_with(path, writes, false, w)
            .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    }
    Ok((mem_align, offset_align))
}

/// Refuses a request size, stride or offset of `w` that is not a multiple of the direct-I/O
/// alignment `offset_align` of `path`.
fn check_direct_sizes(path: &Path, w: &RunPlan, offset_align: u32) -> Result<()> {
    let sizes = w.bs().parts().iter().map(|p| ("--bs", p.0));
    let stride = w.setup().access.stride.map(|s| ("--stride", s.0));
    for (what, v) in sizes
        .chain(stride)
        .chain([("--offset", w.setup().offset.0)])
    {
        check_aligned(what, v, offset_align, path)?;
    }
    Ok(())
}

/// The null engine's pretend target: a name and a region, nothing opened.
fn open_null(path: &Path, w: &RunPlan) -> Result<Target> {
    let size = w.setup().size.map_or(DEFAULT_FILE_SIZE, |s| s.0);
    check_dist(w, size, path)?;
    Ok(Target {
        path: path.to_path_buf(),
        kind: TargetKind::Null,
        file: None,
        made_by_job: false,
        scratch: None,
        capacity: w.setup().offset.0 + size,
        offset: w.setup().offset.0,
        size,
        direct: !w.setup().buffered,
        direct_fallback: None,
        mem_align: 4096,
        offset_align: 1,
        device: None,
    })
}

/// The target's metadata, creating it first (with the guard that removes it) when it does
/// not exist.
fn stat_or_create(path: &Path, w: &RunPlan) -> Result<(std::fs::Metadata, Option<Scratch>)> {
    let mut scratch = None;
    let md = match std::fs::metadata(path) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let size = w.setup().offset.0 + w.setup().size.map_or(DEFAULT_FILE_SIZE, |s| s.0);
            scratch = Some(create_as(
                path,
                w.setup().create,
                size,
                w.setup().seed,
                w.setup().keep,
            )?);
            inspect(path)?
        }
        Err(e) => {
            return Err(Error::refused(
                path,
                format!("cannot inspect the target: {e}"),
            ));
        }
    };
    Ok((md, scratch))
}

/// The metadata of a file made for the run.
fn inspect(path: &Path) -> Result<std::fs::Metadata> {
    std::fs::metadata(path).map_err(|e| Error::io(format!("inspecting {}", path.display()), e))
}

/// A regular file or a block device; anything else is refused, saying what it is.
fn kind_of(path: &Path, md: &std::fs::Metadata) -> Result<TargetKind> {
    let ft = md.file_type();
    if ft.is_file() {
        Ok(TargetKind::File)
    } else if ft.is_block_device() {
        Ok(TargetKind::BlockDevice)
    } else if ft.is_dir() {
        Err(Error::invalid(
            "TARGET",
            path.display(),
            "a regular file or a block device, not a directory (`halfpower quick DIR` takes a directory)",
        ))
    } else {
        Err(Error::invalid(
            "TARGET",
            path.display(),
            "a regular file or a block device (this is a character device, FIFO or socket)",
        ))
    }
}

/// Opens the target with the flags asked for; when the filesystem refuses O_DIRECT at open,
/// opens it buffered and says why (the second value).
fn open_direct(path: &Path, w: &RunPlan, writes: bool) -> Result<(File, Option<DirectFallback>)> {
    let direct = !w.setup().buffered;
    match open_with(path, writes, direct, w) {
        Ok(f) => Ok((f, None)),
        Err(e) if direct && e.raw_os_error() == Some(libc::EINVAL) => {
            let why = DirectFallback::RefusedAtOpen {
                error: e.to_string(),
            };
            let f = open_with(path, writes, false, w)
                .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
            Ok((f, Some(why)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            Err(Error::refused(path, format!("cannot open the target: {e}")))
        }
        Err(e) => Err(Error::io(format!("opening {}", path.display()), e)),
    }
}

/// The length of the region the workload addresses on a target of `capacity` bytes: `--size`
/// or the rest after `--offset`, refused when it does not fit or holds less than a request.
fn region(path: &Path, w: &RunPlan, capacity: u64) -> Result<u64> {
    if w.setup().offset.0 >= capacity {
        return Err(Error::invalid(
            "--offset",
            w.setup().offset,
            format!(
                "less than the size of {} ({capacity} bytes)",
                path.display()
            ),
        ));
    }
    let size = w
        .setup()
        .size
        .map_or(capacity - w.setup().offset.0, |s| s.0);
    if w.setup().offset.0 + size > capacity || size < w.bs().max() {
        return Err(Error::invalid(
            "--size",
            crate::units::ByteSize(size),
            format!(
                "from --bs ({}) to {} bytes: {} holds {capacity} bytes{}",
                w.bs(),
                capacity - w.setup().offset.0,
                path.display(),
                match w.setup().offset.0 {
                    0 => String::new(),
                    _ => format!(
                        ", {} of them from --offset {}",
                        capacity - w.setup().offset.0,
                        w.setup().offset
                    ),
                }
            ),
        ));
    }
    Ok(size)
}

/// Warns about an existing target used as it is (not `made` for the run): `--create` that
/// cannot apply, and, when the workload reads, a sparse file whose holes reads never take to
/// the disk.
fn warn_as_it_is(
    path: &Path,
    w: &RunPlan,
    kind: TargetKind,
    md: &std::fs::Metadata,
    made: bool,
    warn: &mut dyn FnMut(Warning),
) {
    if made {
        return;
    }
    if w.setup().create != Create::Filled {
        warn(Warning::CreateDoesNotApply {
            path: path.display().to_string(),
            create: w.setup().create,
        });
    }
    if kind == TargetKind::File && w.reads() && md.blocks() * 512 < md.len() {
        warn(Warning::Sparse {
            path: path.display().to_string(),
            allocated: md.blocks() * 512,
            len: md.len(),
        });
    }
}

/// Refuses a size or offset that direct I/O on `path` cannot use.
fn check_aligned(what: &'static str, v: u64, align: u32, path: &Path) -> Result<()> {
    if v % align as u64 == 0 {
        return Ok(());
    }
    Err(Error::invalid(
        what,
        crate::units::ByteSize(v),
        format!(
            "a multiple of {align} bytes, the direct-I/O alignment of {} (or pass --buffered)",
            path.display()
        ),
    ))
}

impl Target {
    /// Checks that requests of `bs` bytes fit this opened target: aligned for direct I/O and
    /// no larger than its region. `sweep` and `profile` open a target once for many sizes.
    pub fn check_request_size(&self, bs: u64) -> Result<()> {
        if self.direct {
            check_aligned("--bs", bs, self.offset_align, &self.path)?;
        }
        if bs > self.size {
            return Err(Error::invalid(
                "--bs",
                crate::units::ByteSize(bs),
                format!(
                    "at most the region size ({} bytes) of {}",
                    self.size,
                    self.path.display()
                ),
            ));
        }
        Ok(())
    }
}

/// Why a target cannot be written, if it cannot: a block device the kernel marks read-only,
/// or a file on a file system mounted read-only.
fn read_only(path: &Path, kind: TargetKind, device: Option<&str>) -> Option<String> {
    match (kind, device) {
        (TargetKind::BlockDevice, Some(name)) if sysfs::read_only(name) => Some(format!(
            "is a read-only block device (/sys/class/block/{name}/ro is 1)"
        )),
        (TargetKind::File, _) => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
            // SAFETY: statvfs is plain data.
            let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
            // SAFETY: c is a valid C string and s a writable statvfs.
            let ok = unsafe { libc::statvfs(c.as_ptr(), &mut s) } == 0;
            (ok && s.f_flag & libc::ST_RDONLY != 0)
                .then(|| "is on a file system mounted read-only".to_string())
        }
        _ => None,
    }
}

fn check_write_allowed(
    path: &Path,
    kind: TargetKind,
    device: Option<&BlockDevice>,
    w: &RunPlan,
) -> Result<()> {
    let what = match kind {
        TargetKind::BlockDevice => "a block device",
        _ => "an existing file",
    };
    if !w.setup().safety.allow_write {
        return Err(Error::refused(
            path,
            format!(
                "is {what} and the workload writes to it ({} requests); pass --allow-write \
                 to let halfpower overwrite its contents",
                w.rw().name()
            ),
        ));
    }
    let name = device.map(|d| d.partition.clone().unwrap_or_else(|| d.name.clone()));
    if let Some(why) = read_only(path, kind, name.as_deref()) {
        return Err(Error::refused(
            path,
            format!(
                "{why}; the workload writes to it ({} requests), so nothing was run",
                w.rw().name()
            ),
        ));
    }
    if kind != TargetKind::BlockDevice || w.setup().safety.destroy_data {
        return Ok(());
    }
    if let Some(why) = name.as_deref().and_then(safety::in_use) {
        return Err(Error::refused(
            path,
            format!(
                "{why}; writing would destroy its data. Pass --destroy-data as well if that is intended"
            ),
        ));
    }
    match safety::probe_signature(path) {
        Ok(Some(sig)) => Err(Error::refused(
            path,
            format!(
                "carries {sig}; writing would destroy it. Pass --destroy-data as well if that is intended"
            ),
        )),
        Ok(None) => Ok(()),
        Err(e) => Err(Error::io(
            format!("reading the head of {}", path.display()),
            e,
        )),
    }
}
