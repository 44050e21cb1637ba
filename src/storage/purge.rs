//! PTS's purge: returning a target's region to the state of no writes before a test. A block
//! device is asked with BLKDISCARD (the kernel's discard over the range: TRIM, UNMAP,
//! Deallocate); a file with fallocate(PUNCH_HOLE), which gives its blocks back to the file
//! system. A target that refuses is recorded as not purged, with the operating system's answer:
//! nothing here claims a purge that did not happen.

use super::Target;
use crate::error::{Error, Result};
use crate::model::TargetKind;
use crate::model::pts::{Purge, PurgeMethod, PurgeState};

/// `_IO(0x12, 119)`: discard a byte range of a block device (linux/fs.h).
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Whether an error says the target cannot do this at all (rather than that it failed).
fn unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EOPNOTSUPP | libc::ENOTTY | libc::ENOSYS)
    )
}

/// Purges the region of `t` (its offset and size): BLKDISCARD on a block device,
/// fallocate(PUNCH_HOLE | KEEP_SIZE) on a file. A refusal that says the target cannot (not
/// supported) is a [`PurgeState::NotSupported`] record; any other failure is an error.
pub fn purge(t: &Target) -> Result<Purge> {
    let method = match (t.kind, t.fd()) {
        (TargetKind::BlockDevice, fd) if fd >= 0 => PurgeMethod::Discard,
        (TargetKind::File, fd) if fd >= 0 => PurgeMethod::PunchHole,
        _ => PurgeMethod::None,
    };
    let record = |state, error| Purge {
        state,
        method,
        bytes: t.size,
        error,
    };
    let rc = match method {
        PurgeMethod::None => return Ok(record(PurgeState::NotSupported, None)),
        PurgeMethod::Discard => {
            let range: [u64; 2] = [t.offset, t.size];
            // SAFETY: BLKDISCARD reads two u64s from the pointer, which stays valid for the call.
            unsafe { libc::ioctl(t.fd(), BLKDISCARD as _, range.as_ptr()) }
        }
        PurgeMethod::PunchHole => {
            // SAFETY: fallocate on an open descriptor has no memory effects.
            unsafe {
                libc::fallocate(
                    t.fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    t.offset as libc::off_t,
                    t.size as libc::off_t,
                )
            }
        }
    };
    if rc == 0 {
        return Ok(record(PurgeState::Done, None));
    }
    let e = std::io::Error::last_os_error();
    if unsupported(&e) {
        return Ok(record(PurgeState::NotSupported, Some(e.to_string())));
    }
    Err(Error::io(format!("purging {}", t.path.display()), e))
}
