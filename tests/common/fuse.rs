//! FUSE file systems for the tests: the mount guard (unmounted and removed on drop, also when a
//! test fails) and [`Server`], a disk of known queueing: one file served by `k` servers, each
//! holding a request for a constant time S (a single server under Poisson arrivals is an M/D/1
//! queue, whose mean response time queueing theory gives exactly), optionally with a write
//! cliff (writes slow down once a known number of bytes has been written, as an SSD's once its
//! cache or spare area is used up) and a purge (hole punching returns it to no bytes written).

use super::{is_root, unavailable};
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, LockOwner, MountOption,
    OpenFlags, ReplyAttr, ReplyData, ReplyEmpty, ReplyEntry, ReplyWrite, Request, WriteFlags,
};
use std::ffi::OsStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

const TTL: Duration = Duration::from_secs(60);

/// The attributes of inode `ino`: a directory or a regular file of `size` bytes.
pub fn attr(ino: u64, kind: FileType, size: u64) -> FileAttr {
    FileAttr {
        ino: INodeNo(ino),
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind,
        perm: if kind == FileType::Directory {
            0o755
        } else {
            0o644
        },
        nlink: 1,
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

/// A FUSE file system, mounted on a temporary directory: unmounted (lazily, so a process
/// still holding the file cannot keep it) and the directory removed on drop, also when a test
/// fails. fuser's own unmount on drop goes through fusermount, which a root test without fuse3
/// lacks, so the guard unmounts itself.
pub struct Mounted {
    session: Option<fuser::BackgroundSession>,
    dir: tempfile::TempDir,
}

impl Mounted {
    pub fn disk(&self) -> String {
        self.dir.path().join("disk").to_str().unwrap().to_string()
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .output();
        if let Some(s) = self.session.take() {
            let _ = s.join();
        }
    }
}

/// `lookup` of a file system whose root holds one file, `disk`, of `size` bytes.
pub fn lookup_disk(parent: INodeNo, name: &OsStr, size: u64, reply: ReplyEntry) {
    if u64::from(parent) == 1 && name == "disk" {
        reply.entry(
            &TTL,
            &attr(2, FileType::RegularFile, size),
            fuser::Generation(0),
        );
    } else {
        reply.error(Errno::ENOENT);
    }
}

/// `getattr` of that file system: the root (inode 1) and `disk` (inode 2).
pub fn getattr_disk(ino: INodeNo, size: u64, reply: ReplyAttr) {
    match u64::from(ino) {
        1 => reply.attr(&TTL, &attr(1, FileType::Directory, 0)),
        2 => reply.attr(&TTL, &attr(2, FileType::RegularFile, size)),
        _ => reply.error(Errno::ENOENT),
    }
}

/// `open` with FOPEN_DIRECT_IO: every request reaches the file system with its own offset
/// and length.
pub fn open_direct(reply: fuser::ReplyOpen) {
    reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
}

/// `fs` mounted with two threads; `None` (test skipped, or failed in CI) without root or
/// /dev/fuse.
pub fn mount_fs<F: Filesystem + Send + 'static>(fs: F) -> Option<Mounted> {
    mount_fs_with(fs, "halfpower-faults", 2)
}

/// `fs` mounted under `name` with `threads` threads serving requests; `None` (test skipped,
/// or failed in CI) without root or /dev/fuse.
pub fn mount_fs_with<F: Filesystem + Send + 'static>(
    fs: F,
    name: &str,
    threads: usize,
) -> Option<Mounted> {
    if !is_root() || !std::path::Path::new("/dev/fuse").exists() {
        unavailable("root and /dev/fuse (for the tests' FUSE file systems)");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = fuser::Config::default();
    cfg.mount_options = vec![MountOption::FSName(name.into())];
    cfg.n_threads = Some(threads);
    let session = fuser::spawn_mount(fs, dir.path(), &cfg).expect("mounting the FUSE file system");
    Some(Mounted {
        session: Some(session),
        dir,
    })
}

/// The calling thread's schedstat `run_delay`, ns (0 where the kernel keeps none).
fn run_delay_ns() -> u64 {
    halfpower::oscounters::sched::run_delay_ns().unwrap_or(0)
}

/// What a [`Server`] counts, readable while it runs: requests served, and the sum and sum of
/// squares of their service times (ns), from the handler's start to its reply.
#[derive(Debug, Default)]
pub struct Served {
    /// Requests served.
    pub count: AtomicU64,
    /// Sum of service times, ns.
    pub sum_ns: AtomicU64,
    /// Sum of squared service times, ns² / 1000 (µs·ns, to stay within 64 bits).
    pub sum_sq: AtomicU64,
    /// When the first and the last request of the current count ended (ns since the mount).
    pub first_end_ns: AtomicU64,
    /// Likewise, the last.
    pub last_end_ns: AtomicU64,
    /// Bytes written since the mount or the last purge (not cleared by [`Served::reset`]: it
    /// is the disk's state, not a count of a run).
    pub written: AtomicU64,
    /// Purges taken (hole punching of a [`Server::purgeable`] server).
    pub purges: AtomicU64,
    /// Writes served at the cliff's slower time since the mount.
    pub slow_writes: AtomicU64,
    /// Each write since the mount or the last purge, kept by a server with a cliff.
    pub writes: Mutex<Vec<WriteSpan>>,
    /// fsyncs and fdatasyncs answered (by a server with a flush time).
    pub flushes: AtomicU64,
    /// A bucketed server: when a request first found too few credits (ns since the mount; 0
    /// while it never has), and the requests served before it.
    pub dry_at_ns: AtomicU64,
    /// Likewise, requests completed by then.
    pub served_when_dry: AtomicU64,
    /// A bucketed server: the longest pause between two requests' credits (s), and the credits
    /// the request after it found (what the pause put back, on top of what was left).
    pub rest: Mutex<(f64, f64)>,
}

/// One write as its server saw it: the bytes written before it since the last purge, when its
/// handler began and when it had its answer ready (ns since the mount), and the server thread's
/// time waiting for a CPU (schedstat `run_delay`, ns since the thread began) at both.
#[derive(Clone, Copy, Debug)]
pub struct WriteSpan {
    /// Bytes written since the last purge when it began.
    pub before: u64,
    /// When its handler began.
    pub start_ns: u64,
    /// When its answer was ready, just before it was sent.
    pub end_ns: u64,
    /// The thread's `run_delay` when the handler began.
    pub waited_start_ns: u64,
    /// Likewise, when the answer was ready.
    pub waited_end_ns: u64,
}

impl Served {
    /// Starts counting afresh.
    pub fn reset(&self) {
        for a in [
            &self.count,
            &self.sum_ns,
            &self.sum_sq,
            &self.first_end_ns,
            &self.last_end_ns,
        ] {
            a.store(0, Ordering::SeqCst);
        }
    }

    /// Mean service time, s.
    pub fn mean_s(&self) -> f64 {
        self.sum_ns.load(Ordering::SeqCst) as f64 / self.count.load(Ordering::SeqCst) as f64 / 1e9
    }

    /// Second moment of the service time, s².
    pub fn second_moment_s2(&self) -> f64 {
        self.sum_sq.load(Ordering::SeqCst) as f64 * 1e3
            / self.count.load(Ordering::SeqCst) as f64
            / 1e18
    }

    /// Requests completed per second between the first and the last completion counted.
    pub fn rate(&self) -> f64 {
        let n = self.count.load(Ordering::SeqCst);
        let span =
            self.last_end_ns.load(Ordering::SeqCst) - self.first_end_ns.load(Ordering::SeqCst);
        (n - 1) as f64 / (span as f64 / 1e9)
    }
}

/// A disk of known queueing: one file, `disk`, of `size` bytes, whose every request (read or
/// write, opened FOPEN_DIRECT_IO so each reaches the file system) holds one of the mount's
/// threads for `service`: the last 300 µs spinning, so the time is constant to a few µs rather
/// than the scheduler's wake-up. Mounted with one thread it is a single server: M/D/1 under
/// Poisson arrivals.
pub struct Server {
    /// Bytes in the file.
    pub size: u64,
    /// Time each request holds its server (a request of 0 bytes: see `per_kib_ns`).
    pub service: Duration,
    /// What each KiB of a request adds to its service time, ns (negative: larger requests are
    /// served faster, as from a cache that keeps large blocks).
    pub per_kib_ns: i64,
    /// Counts of what was served.
    pub served: Arc<Served>,
    /// Time added to every request's service time, ns: a test changes it while the server is
    /// mounted (clone the `Arc` before mounting) to make the disk slower at a known moment.
    pub added_ns: Arc<AtomicU64>,
    /// The mount's start, for the counts' times.
    pub epoch: Instant,
    /// Writes slow down once this many bytes have been written since the mount or the last
    /// purge: every write that begins after them is held for the cliff's time instead.
    pub cliff: Option<Cliff>,
    /// Whether fallocate(PUNCH_HOLE) purges the disk (else it answers ENOSYS, as a file system
    /// without fallocate, and the kernel reports EOPNOTSUPP).
    pub purgeable: bool,
    /// The time an fsync or fdatasync holds its server (`None`: it answers ENOSYS, which the
    /// kernel takes as done at once).
    pub flush: Option<Duration>,
    /// A credit bucket in front of the disk (a cloud volume's burst credits).
    pub bucket: Option<Bucket>,
    /// Requests from an asynchronous caller (a loop device's direct I/O) reach the server
    /// side by side, up to 256 (FUSE_ASYNC_DIO; else the kernel sends one at a time), and each
    /// is held asleep, without the last 300 µs spinning: for k servers of a service time long
    /// against the host's wake-up delays.
    pub parallel: bool,
    /// Its credits and when they were last refilled.
    credits: Mutex<(f64, Instant)>,
    zeros: Vec<u8>,
}

/// A credit bucket: each request spends one credit (or one per KiB, `per_kib`); while it
/// holds them it is served in the disk's own time, else it waits for the credits it lacks,
/// which refill at `refill_per_s` up to `credits` (where they start, and stay while idle).
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    /// Credits at the start, and the most it holds.
    pub credits: f64,
    /// Credits added each second.
    pub refill_per_s: f64,
    /// Whether a request costs its KiB (a bucket of bytes) rather than one credit.
    pub per_kib: bool,
}

/// A write cliff: after `after_bytes` written, each write holds its server for `service`.
#[derive(Clone, Copy, Debug)]
pub struct Cliff {
    /// Bytes written before the cliff.
    pub after_bytes: u64,
    /// A write's service time past it.
    pub service: Duration,
}

impl Server {
    /// A server of `size` bytes with service time `service`.
    pub fn new(size: u64, service: Duration) -> Self {
        Server {
            size,
            service,
            per_kib_ns: 0,
            served: Arc::new(Served::default()),
            added_ns: Arc::new(AtomicU64::new(0)),
            epoch: Instant::now(),
            cliff: None,
            purgeable: false,
            flush: None,
            bucket: None,
            parallel: false,
            credits: Mutex::new((0.0, Instant::now())),
            zeros: vec![0; 1 << 20],
        }
    }

    /// The same server taking requests side by side (see [`Server::parallel`]).
    pub fn parallel(mut self) -> Self {
        self.parallel = true;
        self
    }

    /// The same server behind credit bucket `b`, full at the mount.
    pub fn bucketed(mut self, b: Bucket) -> Self {
        self.credits = Mutex::new((b.credits, Instant::now()));
        self.bucket = Some(b);
        self
    }

    /// Takes the credits a request of `bytes` costs, waiting (the server held) for those it
    /// lacks; the first time it lacks them is counted in [`Served::dry_at_ns`].
    fn spend(&self, bytes: u64) {
        let Some(b) = self.bucket else {
            return;
        };
        let cost = if b.per_kib {
            bytes as f64 / 1024.0
        } else {
            1.0
        };
        let mut c = self.credits.lock().unwrap();
        let idle = c.1.elapsed().as_secs_f64();
        let refill = |c: &mut (f64, Instant)| {
            let now = Instant::now();
            c.0 = (c.0 + (now - c.1).as_secs_f64() * b.refill_per_s).min(b.credits);
            c.1 = now;
        };
        refill(&mut c);
        if let Ok(mut rest) = self.served.rest.lock() {
            if idle > rest.0 {
                *rest = (idle, c.0);
            }
        }
        if c.0 < cost {
            let s = &self.served;
            let at = (c.1 - self.epoch).as_nanos() as u64;
            if s.dry_at_ns
                .compare_exchange(0, at, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                s.served_when_dry
                    .store(s.count.load(Ordering::SeqCst), Ordering::SeqCst);
            }
            self.hold_for(c.1, Duration::from_secs_f64((cost - c.0) / b.refill_per_s));
            refill(&mut c);
        }
        c.0 -= cost;
    }

    /// The same server whose writes take `service` once `after_bytes` have been written.
    pub fn with_cliff(mut self, after_bytes: u64, service: Duration) -> Self {
        self.cliff = Some(Cliff {
            after_bytes,
            service,
        });
        self
    }

    /// The same server taking purges: hole punching forgets every byte written.
    pub fn purgeable(mut self) -> Self {
        self.purgeable = true;
        self
    }

    /// The same server whose fsync and fdatasync each take `service`: a disk with a volatile
    /// cache that a flush empties in a known time.
    pub fn flushing(mut self, service: Duration) -> Self {
        self.flush = Some(service);
        self
    }

    /// The same server whose service time changes by `per_kib_ns` with each KiB requested.
    pub fn sloped(mut self, per_kib_ns: i64) -> Self {
        self.per_kib_ns = per_kib_ns;
        self
    }

    /// The service time of a request of `bytes` (with the time added now).
    pub fn service_of(&self, bytes: u64) -> Duration {
        let ns = self.service.as_nanos() as i64
            + self.added_ns.load(Ordering::Relaxed) as i64
            + self.per_kib_ns * bytes as i64 / 1024;
        Duration::from_nanos(ns.max(0) as u64)
    }

    /// Holds the calling thread until `start` + the service time of a request of `bytes`.
    fn hold(&self, start: Instant, bytes: u64) {
        self.hold_for(start, self.service_of(bytes));
    }

    /// Holds the calling thread until `start` + `service`: asleep, then the last 300 µs
    /// spinning.
    fn hold_for(&self, start: Instant, service: Duration) {
        let spin = Duration::from_micros(if self.parallel { 0 } else { 300 });
        if service > spin {
            std::thread::sleep(service - spin);
        }
        while start.elapsed() < service {
            std::hint::spin_loop();
        }
    }

    /// Counts a request that started at `start` and has just been answered.
    fn count(&self, start: Instant) {
        let end = Instant::now();
        let ns = (end - start).as_nanos() as u64;
        let s = &self.served;
        let at = (end - self.epoch).as_nanos() as u64;
        if s.count.fetch_add(1, Ordering::SeqCst) == 0 {
            s.first_end_ns.store(at, Ordering::SeqCst);
        }
        s.last_end_ns.fetch_max(at, Ordering::SeqCst);
        s.sum_ns.fetch_add(ns, Ordering::SeqCst);
        s.sum_sq.fetch_add(ns * (ns / 1000), Ordering::SeqCst);
    }
}

impl Filesystem for Server {
    fn init(&mut self, _req: &Request, config: &mut fuser::KernelConfig) -> std::io::Result<()> {
        if self.parallel {
            config
                .add_capabilities(fuser::InitFlags::FUSE_ASYNC_DIO)
                .map_err(|_| std::io::Error::other("the kernel lacks FUSE_ASYNC_DIO"))?;
            let _ = config.set_max_background(256);
            let _ = config.set_congestion_threshold(256);
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        lookup_disk(parent, name, self.size, reply);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        getattr_disk(ino, self.size, reply);
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: fuser::ReplyOpen) {
        open_direct(reply);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let start = Instant::now();
        self.spend(size as u64);
        self.hold(start, size as u64);
        let len = (size as u64).min(self.size.saturating_sub(offset)) as usize;
        reply.data(&self.zeros[..len.min(self.zeros.len())]);
        self.count(start);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let start = Instant::now();
        let waited_start_ns = run_delay_ns();
        let len = data.len() as u64;
        self.spend(len);
        let before = self.served.written.fetch_add(len, Ordering::SeqCst);
        match self.cliff {
            Some(c) if before >= c.after_bytes => {
                self.served.slow_writes.fetch_add(1, Ordering::SeqCst);
                self.hold_for(start, c.service);
            }
            _ => self.hold(start, len),
        }
        if self.cliff.is_some() {
            let ns = |t: Instant| (t - self.epoch).as_nanos() as u64;
            self.served.writes.lock().unwrap().push(WriteSpan {
                before,
                start_ns: ns(start),
                end_ns: ns(Instant::now()),
                waited_start_ns,
                waited_end_ns: run_delay_ns(),
            });
        }
        reply.written(data.len() as u32);
        self.count(start);
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        let Some(service) = self.flush else {
            reply.error(Errno::ENOSYS);
            return;
        };
        self.hold_for(Instant::now(), service);
        self.served.flushes.fetch_add(1, Ordering::SeqCst);
        reply.ok();
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _offset: u64,
        _length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        if !self.purgeable {
            reply.error(Errno::ENOSYS);
        } else if mode & libc::FALLOC_FL_PUNCH_HOLE == 0 {
            reply.error(Errno::EOPNOTSUPP);
        } else {
            self.served.written.store(0, Ordering::SeqCst);
            self.served.writes.lock().unwrap().clear();
            self.served.purges.fetch_add(1, Ordering::SeqCst);
            reply.ok();
        }
    }
}
