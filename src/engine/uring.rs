//! The io_uring engine: one ring per worker thread, `depth` I/Os in flight.
//!
//! The ring is set up with SINGLE_ISSUER where the kernel has it (the worker is the only
//! submitter), and with COOP_TASKRUN for a closed loop, DEFER_TASKRUN for an open one. Both
//! choices are measured, and why they differ is not yet understood (Linux 6.18, 2 vCPUs,
//! 2026-11-26). On a loop device over RAM, DEFER_TASKRUN intermittently left a closed loop's
//! waiting worker asleep for about a millisecond after its completions: QD1 969–3705 IOPS
//! (p50 up to 1.17 ms), where COOP_TASKRUN gave 10 358–11 871 and fio 10 055–20 264, in
//! alternating runs. With COOP_TASKRUN, an open loop replaying onto a loop device over a FUSE
//! disk issued its requests about 1 ms late: the block layer's mean response was 1.5–1.65
//! times fio's at the same rate, in 3 of 3 attempts. With DEFER_TASKRUN it matched within 10 %.
//! The target's file descriptor and the slot buffers are registered so each I/O skips the file
//! lookup and page pinning (READ_FIXED and WRITE_FIXED). Each step falls back to the plain form
//! when the kernel refuses it.
//!
//! New requests are submitted by one `io_uring_enter` and waited for by the next, as fio and
//! liburing's submit-then-wait do. Submitting and waiting in one call put the thread to sleep
//! before the device had started on the request: on a loop device that made most QD1 reads pay a
//! wake-up (p50 9.8 µs instead of 5 µs, 35k instead of 50–58k IOPS; docs/performance.md).
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
}

/// Whether this kernel lets this process create an io_uring ring (it may be compiled out,
/// or disabled by `kernel.io_uring_disabled`, or blocked by a seccomp filter).
pub fn uring_available() -> io::Result<()> {
    IoUring::new(2).map(|_| ())
}

impl UringEngine {
    /// Sets up a ring of `arena.slots()` entries on the files `fds`, which must stay open for the
    /// engine's lifetime, whose waits poll for up to `spin` before sleeping. Call from the
    /// thread that will use it (SINGLE_ISSUER). `open_loop`: the worker issues at due times
    /// (DEFER_TASKRUN, else COOP_TASKRUN: see the module's doc).
    pub fn new(
        fds: &[RawFd],
        arena: BufferArena,
        len: u32,
        spin: Duration,
        open_loop: bool,
    ) -> io::Result<Self> {
        let entries = (arena.slots() as u32).next_power_of_two().max(2);
        let mut builder = IoUring::builder();
        builder.setup_single_issuer();
        if open_loop {
            builder.setup_defer_taskrun();
        } else {
            builder.setup_coop_taskrun();
        }
        let ring = builder
            .setup_cqsize(entries * 2)
            .build(entries)
            .or_else(|_| IoUring::builder().setup_cqsize(entries * 2).build(entries))
            .or_else(|_| IoUring::new(entries))?;
        let fixed_file = ring.submitter().register_files(fds).is_ok();
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

    /// Polls for up to `spin_ns` until `want` completions are in the completion queue; returns
    /// whether they are (else the caller sleeps for them).
    fn poll(&mut self, want: usize) -> bool {
        let start = crate::clock::now_ns();
        loop {
            // SAFETY: no argument is passed, so no pointer is read by the kernel.
            let ran = unsafe {
                self.ring
                    .submitter()
                    .enter::<libc::sigset_t>(0, 0, ENTER_GETEVENTS, None)
            };
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
            match self.ring.submit_and_wait(want) {
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
        if !self.ring.submission().is_empty() {
            match self.ring.submit() {
                Ok(_) => {}
                Err(e) if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EBUSY)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
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
        // SAFETY: no argument is passed, so no pointer is read by the kernel.
        let _ = unsafe {
            self.ring
                .submitter()
                .enter::<libc::sigset_t>(0, 0, ENTER_GETEVENTS, None)
        };
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
    }

    #[inline]
    fn submit_and_reap(
        &mut self,
        min_complete: u32,
        mut on_complete: impl FnMut(u32, i32),
    ) -> io::Result<()> {
        self.submit_prepared()?;
        if !(self.spin_ns > 0 && self.poll(min_complete as usize)) {
            self.sleep_for(min_complete as usize)?;
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
}
