//! The io_uring engine: one ring per worker thread, `depth` I/Os in flight.
//!
//! The ring is set up as fio sets up its own: SINGLE_ISSUER (the worker is the only submitter)
//! and DEFER_TASKRUN (completions are posted when the worker asks for them, and a waiting
//! worker is woken once as many as it waits for are ready), each dropped where the kernel
//! refuses it. With COOP_TASKRUN instead, each completion notified the worker on its own: at
//! QD8 on a virtio disk halfpower issued 0.88 of the I/Os DEFER_TASKRUN did, at QD32 on a
//! loop device over RAM 0.82–0.93, at the same or more CPU per I/O, on this project's VM and on
//! a 16-vCPU machine alike (docs/performance.md). An earlier report of DEFER_TASKRUN leaving a
//! closed loop's worker asleep about 1 ms after its completions (QD1 on a loop device) did not
//! recur in any condition tried since (idle, a CPU hog beside the worker or on its CPU, both
//! CPUs busy), so no flag is chosen here against it.
//! The target's file descriptor and the slot buffers are registered so each I/O skips the file
//! lookup and page pinning (READ_FIXED and WRITE_FIXED). Each step falls back to the plain form
//! when the kernel refuses it.
//!
//! Each request is submitted as it is prepared, by an `io_uring_enter` of its own that asks for
//! events with no minimum, so the same call posts the completions that came meanwhile; the
//! worker sleeps only when the completions it waits for are not there after that. This is how
//! fio submits (one call per request). Submitting a worker's refills together after it had
//! reaped them all left the device's queue that much shorter meanwhile: at QD8 on a loop device
//! over RAM one call per request issued 1.08 times the I/Os of one call per batch, at QD32 1.09
//! times, at the same CPU per I/O (docs/performance.md). Submitting and waiting in one call puts
//! the thread to sleep before the device has started on the request (at QD1 on a loop device
//! most reads then paid a wake-up: p50 9.8 µs instead of 5 µs).
//!
//! With `--spin DUR` the wait first polls: it runs the ring's pending completions without
//! sleeping (GETEVENTS with a minimum of 0), yielding the CPU between polls so that a kernel
//! thread sharing it (a loop worker, softirq) can finish the I/O, and sleeps only after DUR.
//! On a VM, where waking a halted vCPU costs tens of µs, that gave 1.2× fio's IOPS at QD32 on a
//! loop device, at 2.8 µs of CPU per I/O instead of 1.6 (docs/performance.md).

use super::{BufferArena, Engine, IoDir, IoRequest};
use io_uring::{IoUring, opcode, squeue, types};
use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

/// `IORING_ENTER_GETEVENTS` (the io-uring crate keeps its constants private).
const ENTER_GETEVENTS: u32 = 1;
/// `IORING_ENTER_REGISTERED_RING`: the descriptor passed is an index among the registered ones.
const ENTER_REGISTERED_RING: u32 = 16;
/// `IORING_REGISTER_RING_FDS` (Linux 5.18).
const REGISTER_RING_FDS: libc::c_uint = 20;
/// `IORING_UNREGISTER_RING_FDS`.
const UNREGISTER_RING_FDS: libc::c_uint = 21;

/// `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// The ring's descriptor as `io_uring_enter` takes it: its index among this thread's registered
/// ring descriptors, which spares the kernel a descriptor lookup on every call, or the plain
/// descriptor where registering is refused.
#[derive(Clone, Copy)]
struct RingFd {
    fd: i32,
    flag: u32,
}

impl RingFd {
    /// Registers `ring`'s descriptor for the calling thread (the only one that enters it).
    fn register(ring: &IoUring) -> Self {
        use std::os::fd::AsRawFd;
        let raw = ring.as_raw_fd();
        let mut up = RsrcUpdate {
            offset: u32::MAX,
            resv: 0,
            data: raw as u64,
        };
        // SAFETY: `up` is a valid io_uring_rsrc_update the kernel reads and fills for the call.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                raw,
                REGISTER_RING_FDS,
                &mut up as *mut RsrcUpdate,
                1 as libc::c_uint,
            )
        };
        if rc == 1 {
            RingFd {
                fd: up.offset as i32,
                flag: ENTER_REGISTERED_RING,
            }
        } else {
            RingFd { fd: raw, flag: 0 }
        }
    }

    /// Gives the registration back (it holds the ring open until the thread exits otherwise).
    fn unregister(self, ring: &IoUring) {
        use std::os::fd::AsRawFd;
        if self.flag == 0 {
            return;
        }
        let mut up = RsrcUpdate {
            offset: self.fd as u32,
            resv: 0,
            data: 0,
        };
        // SAFETY: as in `register`.
        unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                ring.as_raw_fd(),
                UNREGISTER_RING_FDS,
                &mut up as *mut RsrcUpdate,
                1 as libc::c_uint,
            )
        };
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        self.ring_fd.unregister(&self.ring);
    }
}

/// An io_uring ring bound to one target and one buffer arena.
pub struct UringEngine {
    ring: IoUring,
    fds: Vec<RawFd>,
    fixed_file: bool,
    fixed_buffers: bool,
    // Declared after `ring` so the ring (and its registration of these buffers) is dropped first.
    arena: BufferArena,
    len: u32,
    /// How long a wait polls before it sleeps, ns (0: sleep at once).
    spin_ns: u64,
    /// Whether a wait can carry a timeout (IORING_FEAT_EXT_ARG, Linux 5.11).
    timed_wait: bool,
    /// Every request goes to io_uring's worker threads (IOSQE_ASYNC) instead of being tried
    /// inline first.
    punt: bool,
    /// The descriptor `io_uring_enter` is given.
    ring_fd: RingFd,
}

/// Whether this kernel lets this process create an io_uring ring (it may be compiled out,
/// or disabled by `kernel.io_uring_disabled`, or blocked by a seccomp filter).
pub fn uring_available() -> io::Result<()> {
    IoUring::new(2).map(|_| ())
}

impl UringEngine {
    /// Sets up a ring of `arena.slots()` entries on the files `fds`, which must stay open for the
    /// engine's lifetime, whose waits poll for up to `spin` before sleeping. Call from the
    /// thread that will use it (SINGLE_ISSUER, DEFER_TASKRUN).
    pub fn new(fds: &[RawFd], arena: BufferArena, len: u32, spin: Duration) -> io::Result<Self> {
        let entries = (arena.slots() as u32).next_power_of_two().max(2);
        let mut builder = IoUring::builder();
        builder.setup_single_issuer().setup_defer_taskrun();
        let ring = builder
            .setup_cqsize(entries * 2)
            .build(entries)
            .or_else(|_| IoUring::builder().setup_cqsize(entries * 2).build(entries))
            .or_else(|_| IoUring::new(entries))?;
        let fixed_file = ring.submitter().register_files(fds).is_ok();
        let ring_fd = RingFd::register(&ring);
        let timed_wait = ring.params().is_feature_ext_arg();
        let iovecs = arena.iovecs(len as usize);
        // SAFETY: the iovecs point into `arena`, which the engine owns and drops after the ring
        // (field order), so the registered memory outlives the registration.
        let fixed_buffers = iovecs.len() <= u16::MAX as usize
            && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(UringEngine {
            ring,
            fds: fds.to_vec(),
            fixed_file,
            fixed_buffers,
            arena,
            len,
            spin_ns: spin.as_nanos().min(u64::MAX as u128) as u64,
            timed_wait,
            punt: false,
            ring_fd,
        })
    }

    /// Sends every request to io_uring's worker threads (IOSQE_ASYNC) when `on`, so that no
    /// submission waits for the device, whatever the file system does with a non-blocking
    /// attempt; costs a hand-over to a worker thread per request.
    pub fn always_async(&mut self, on: bool) {
        self.punt = on;
    }

    /// Whether the file descriptor and the buffers are registered (for the record).
    pub fn registered(&self) -> (bool, bool) {
        (self.fixed_file, self.fixed_buffers)
    }

    /// `io_uring_enter(to_submit, min_complete, flags)` with no argument.
    #[inline]
    fn enter(&self, to_submit: u32, min_complete: u32, flags: u32) -> io::Result<u32> {
        // SAFETY: no argument pointer is passed (null, size 0); the descriptor is this ring's.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.ring_fd.fd,
                to_submit,
                min_complete,
                flags | self.ring_fd.flag,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(rc as u32)
        }
    }

    /// Polls for up to `spin_ns` until `want` completions are in the completion queue; returns
    /// whether they are (else the caller sleeps for them).
    fn poll(&mut self, want: usize) -> bool {
        let start = crate::clock::now_ns();
        loop {
            let ran = self.enter(0, 0, ENTER_GETEVENTS);
            if self.ring.completion().len() >= want {
                return true;
            }
            if ran.is_err() || crate::clock::now_ns().saturating_sub(start) >= self.spin_ns {
                return false;
            }
            // SAFETY: sched_yield takes no arguments and cannot fail on Linux.
            unsafe { libc::sched_yield() };
        }
    }

    /// Sleeps until `want` completions are in the completion queue, or a signal or a completion
    /// backlog ends the wait early (the caller reaps what is there).
    fn sleep_for(&mut self, want: usize) -> io::Result<()> {
        loop {
            let n = self.ring.submission().len() as u32;
            match self.enter(n, want as u32, ENTER_GETEVENTS) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {
                    // A signal (Ctrl-C) woke the wait: reap what is there, the caller decides.
                    if !self.ring.completion().is_empty() {
                        return Ok(());
                    }
                }
                // Completion queue overflow backlog: reap first, then submit again.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    /// Submits what was prepared; an interruption or a completion backlog is left to the wait
    /// that follows.
    fn submit_prepared(&mut self) -> io::Result<()> {
        let n = self.ring.submission().len() as u32;
        if n == 0 {
            return Ok(());
        }
        // GETEVENTS with no minimum: the same call posts the completions that came meanwhile
        // (deferred task work runs only when asked for).
        match self.enter(n, 0, ENTER_GETEVENTS) {
            Ok(_) => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Waits until a completion is in the completion queue or `deadline` (monotonic ns) has
    /// passed: one timed wait where the kernel has them, else short sleeps between polls.
    fn wait_until(&mut self, deadline: u64) -> io::Result<()> {
        let left = deadline.saturating_sub(crate::clock::now_ns());
        if left == 0 || !self.ring.completion().is_empty() {
            return Ok(());
        }
        if self.timed_wait {
            let ts = types::Timespec::new()
                .sec(left / 1_000_000_000)
                .nsec((left % 1_000_000_000) as u32);
            let args = types::SubmitArgs::new().timespec(&ts);
            return match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => Ok(()),
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                    ) =>
                {
                    Ok(())
                }
                Err(e) => Err(e),
            };
        }
        let _ = self.enter(0, 0, ENTER_GETEVENTS);
        if self.ring.completion().is_empty() {
            std::thread::sleep(Duration::from_nanos(left.min(50_000)));
        }
        Ok(())
    }

    fn entry(&self, req: IoRequest) -> squeue::Entry {
        let buf = self.arena.slot_ptr(req.slot);
        let (fixed, fd) = (
            types::Fixed(req.file),
            types::Fd(self.fds[req.file as usize]),
        );
        let e = match (req.dir, self.fixed_buffers, self.fixed_file) {
            (IoDir::Read, true, true) => {
                opcode::ReadFixed::new(fixed, buf, req.len, req.slot as u16)
                    .offset(req.offset)
                    .build()
            }
            (IoDir::Read, true, false) => opcode::ReadFixed::new(fd, buf, req.len, req.slot as u16)
                .offset(req.offset)
                .build(),
            (IoDir::Read, false, true) => opcode::Read::new(fixed, buf, req.len)
                .offset(req.offset)
                .build(),
            (IoDir::Read, false, false) => opcode::Read::new(fd, buf, req.len)
                .offset(req.offset)
                .build(),
            (IoDir::Write, true, true) => {
                opcode::WriteFixed::new(fixed, buf, req.len, req.slot as u16)
                    .offset(req.offset)
                    .build()
            }
            (IoDir::Write, true, false) => {
                opcode::WriteFixed::new(fd, buf, req.len, req.slot as u16)
                    .offset(req.offset)
                    .build()
            }
            (IoDir::Write, false, true) => opcode::Write::new(fixed, buf, req.len)
                .offset(req.offset)
                .build(),
            (IoDir::Write, false, false) => opcode::Write::new(fd, buf, req.len)
                .offset(req.offset)
                .build(),
        };
        let e = e.user_data(req.slot as u64);
        if self.punt {
            e.flags(squeue::Flags::ASYNC)
        } else {
            e
        }
    }
}

impl Engine for UringEngine {
    const SUBMITS_EACH: bool = true;

    #[inline]
    fn prepare(&mut self, req: IoRequest) {
        let entry = self.entry(req);
        // SAFETY: the buffer and fd referenced by the entry stay valid until its completion is
        // reaped: the arena and fd outlive the ring, and a slot is not reused before completion.
        let pushed = unsafe { self.ring.submission().push(&entry) };
        // The ring has at least `slots` entries and the worker never has more outstanding.
        debug_assert!(pushed.is_ok(), "submission queue full");
        if pushed.is_err() {
            // Flush and retry once; with the depth contract this does not happen.
            let _ = self.ring.submit();
            // SAFETY: as above.
            let _ = unsafe { self.ring.submission().push(&entry) };
        }
        // Each request goes to the device at once (module doc). A failure leaves it queued, and
        // the submission before the next wait meets the same failure and reports it.
        let _ = self.submit_prepared();
    }

    #[inline]
    fn submit_and_reap(
        &mut self,
        min_complete: u32,
        mut on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        self.submit_prepared()?;
        let want = min_complete as usize;
        let ready = self.ring.completion().len() >= want || self.spin_ns > 0 && self.poll(want);
        if !ready {
            self.sleep_for(want)?;
        }
        for cqe in self.ring.completion() {
            on_complete(cqe.user_data() as u32, cqe.result());
        }
        Ok(())
    }

    fn submit_and_reap_until(
        &mut self,
        deadline: u64,
        mut on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        self.submit_prepared()?;
        self.wait_until(deadline)?;
        for cqe in self.ring.completion() {
            on_complete(cqe.user_data() as u32, cqe.result());
        }
        Ok(())
    }

    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.arena.slot_mut(slot, self.len as usize)
    }

    fn sync_files(&mut self, data_only: bool) -> io::Result<()> {
        super::sync_fds(&self.fds, data_only)
    }

    fn drop_cache(&mut self) {
        super::drop_cache_fds(&self.fds);
    }

    fn release(&mut self, how: super::Release) -> io::Result<()> {
        super::release_fds(&self.fds, how)
    }
}
