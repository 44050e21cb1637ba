//! Ctrl-C: the first SIGINT (or SIGTERM) sets a flag that workers and loops poll, so a run stops
//! promptly and still reports what it measured; a second one exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // Second signal: the user insists. Only async-signal-safe calls here.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
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
