//! Ctrl-C: the first SIGINT (or SIGTERM) sets a flag that workers and loops poll, so a run stops
//! promptly and still reports what it measured (exit status 130, or 143 for SIGTERM); a second
//! one exits at once, after writing back the settings a measurement changed ([`set_restore`]).

use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Files and the values a second signal writes back before the process exits (null: none).
static RESTORE: AtomicPtr<Vec<(CString, Vec<u8>)>> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_signal(sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second signal: the user insists. Only async-signal-safe calls here: open, write,
        // close and _exit, on a list built (and never freed) before.
        let list = RESTORE.load(Ordering::SeqCst);
        if !list.is_null() {
            // SAFETY: a non-null RESTORE points to a leaked Vec that is never freed or changed.
            for (file, value) in unsafe { &*list } {
                if !holds(file, value) {
                    // SAFETY: a valid C string and buffer; each call is async-signal-safe.
                    unsafe {
                        let fd = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                        if fd >= 0 {
                            libc::write(fd, value.as_ptr().cast(), value.len());
                            libc::close(fd);
                        }
                    }
                }
            }
        }
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Whether `file` reads `value` (trimmed; the bracketed entry of a list, `none [bfq]`): a
/// value the kernel derived is left alone rather than pinned by writing it. Async-signal-safe:
/// read(2) into a buffer on the stack.
fn holds(file: &CString, value: &[u8]) -> bool {
    let mut buf = [0u8; 512];
    // SAFETY: a valid C string; open, read and close are async-signal-safe.
    let n = unsafe {
        let fd = libc::open(file.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let Ok(n) = usize::try_from(n) else {
        return false;
    };
    let text = &buf[..n];
    let open = text.iter().position(|&b| b == b'[');
    let close = text.iter().position(|&b| b == b']');
    let active = match (open, close) {
        (Some(a), Some(b)) if a < b => &text[a + 1..b],
        _ => text.trim_ascii(),
    };
    active == value
}

/// Installs the SIGINT/SIGTERM handler (idempotent).
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a valid handler is a correct argument; the handler
        // only touches an atomic and calls _exit.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            sa.sa_flags = 0; // no SA_RESTART: a blocking wait returns EINTR and sees the flag
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// The files (and their values, in the order given) that a second signal writes back before
/// the process exits; an empty list clears it. Each list is leaked: the handler may be reading
/// the one it replaces.
pub fn set_restore(files: Vec<(&OsStr, &[u8])>) {
    let list: Vec<(CString, Vec<u8>)> = files
        .into_iter()
        .filter_map(|(f, v)| Some((CString::new(f.as_bytes()).ok()?, v.to_vec())))
        .collect();
    let new = if list.is_empty() {
        std::ptr::null_mut()
    } else {
        Box::into_raw(Box::new(list))
    };
    RESTORE.store(new, Ordering::SeqCst);
}

/// Whether the user asked to stop.
#[inline]
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The signal that stopped this process (SIGINT or SIGTERM), None while none has come.
pub fn raised() -> Option<i32> {
    interrupted().then(|| SIGNAL.load(Ordering::SeqCst))
}

/// Takes `sig` as if it had come to this process (another rank of the job was stopped by it),
/// unless a signal came here already: every rank then stops at the same point, with the same
/// exit status.
pub fn adopt(sig: i32) {
    if !INTERRUPTED.swap(true, Ordering::SeqCst) {
        SIGNAL.store(sig, Ordering::SeqCst);
    }
}

/// The exit status of a run the user stopped: 128 + the signal (130 for SIGINT, 143 for
/// SIGTERM), as shells report a process killed by it.
pub fn exit_status() -> u8 {
    match SIGNAL.load(Ordering::SeqCst) {
        libc::SIGTERM => 143,
        _ => 130,
    }
}
