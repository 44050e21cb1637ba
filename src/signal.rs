//! Ctrl-C: the first SIGINT (or SIGTERM) sets a flag that workers and loops poll, so a run stops
//! promptly and still reports what it measured (exit status 130, or 143 for SIGTERM); a second
//! one exits at once.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second signal: the user insists. Only async-signal-safe calls here.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
    SIGNAL.store(sig, Ordering::SeqCst);
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
