//! Devices of known speed for `selftest`: a loop device over a file in RAM (/dev/shm), and a
//! cgroup that throttles it (cgroup v1 `blkio.throttle.*`, or v2 `io.max`) with this process
//! moved into it while it measures. Everything made here is undone on drop: the process moves
//! back, the group is removed, the loop device detaches (it was set to clear itself when its
//! last user closes it, so a crash detaches it too) and the file is deleted.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

const LOOP_CTL_GET_FREE: libc::c_ulong = 0x4C82;
const LOOP_SET_FD: libc::c_ulong = 0x4C00;
const LOOP_CLR_FD: libc::c_ulong = 0x4C01;
const LOOP_SET_STATUS64: libc::c_ulong = 0x4C04;
const LO_FLAGS_AUTOCLEAR: u32 = 4;

/// `struct loop_info64` (linux/loop.h).
#[repr(C)]
struct LoopInfo64 {
    device: u64,
    inode: u64,
    rdevice: u64,
    offset: u64,
    sizelimit: u64,
    number: u32,
    encrypt_type: u32,
    encrypt_key_size: u32,
    flags: u32,
    file_name: [u8; 64],
    crypt_name: [u8; 64],
    encrypt_key: [u8; 32],
    init: [u64; 2],
}

/// A loop device over a file of `size` bytes in /dev/shm.
pub struct RamLoop {
    /// The device node, e.g. /dev/loop3.
    pub path: PathBuf,
    /// Held open so the device stays attached; its last close detaches it (autoclear).
    device: Option<File>,
    backing: PathBuf,
}

impl RamLoop {
    /// Creates the backing file (`size` bytes of a repeating pattern, so reads never find a
    /// hole) and attaches a free loop device to it.
    pub fn new(tag: &str, size: u64) -> io::Result<Self> {
        let backing = PathBuf::from(format!(
            "/dev/shm/halfpower-{tag}-{}.img",
            std::process::id()
        ));
        let mut me = RamLoop {
            path: PathBuf::new(),
            device: None,
            backing,
        };
        {
            let mut f = File::create(&me.backing)?;
            let chunk: Vec<u8> = (0..1 << 20)
                .map(|i: u32| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
                .collect();
            for _ in 0..size.div_ceil(1 << 20) {
                io::Write::write_all(&mut f, &chunk)?;
            }
        }
        let ctl = OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/loop-control")?;
        // SAFETY: LOOP_CTL_GET_FREE takes no argument and returns a device number.
        let n = unsafe { libc::ioctl(ctl.as_raw_fd(), LOOP_CTL_GET_FREE) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        me.path = PathBuf::from(format!("/dev/loop{n}"));
        let dev = OpenOptions::new().read(true).write(true).open(&me.path)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&me.backing)?;
        // SAFETY: LOOP_SET_FD takes the backing file's descriptor, open for the call.
        if unsafe { libc::ioctl(dev.as_raw_fd(), LOOP_SET_FD, file.as_raw_fd()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: LoopInfo64 is plain data; zeroes are its defaults.
        let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
        info.flags = LO_FLAGS_AUTOCLEAR;
        // SAFETY: `info` is a valid loop_info64 the kernel reads for the call.
        if unsafe { libc::ioctl(dev.as_raw_fd(), LOOP_SET_STATUS64, &info) } < 0 {
            let e = io::Error::last_os_error();
            // SAFETY: LOOP_CLR_FD takes no argument.
            unsafe { libc::ioctl(dev.as_raw_fd(), LOOP_CLR_FD) };
            return Err(e);
        }
        me.device = Some(dev);
        Ok(me)
    }

    /// The device's `MAJ:MIN`.
    pub fn numbers(&self) -> io::Result<(u32, u32)> {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&self.path)?.rdev();
        Ok((libc::major(rdev), libc::minor(rdev)))
    }
}

impl Drop for RamLoop {
    fn drop(&mut self) {
        if let Some(dev) = self.device.take() {
            // Detach now where nobody else holds it; autoclear covers the rest.
            // SAFETY: LOOP_CLR_FD takes no argument.
            unsafe { libc::ioctl(dev.as_raw_fd(), LOOP_CLR_FD) };
        }
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// Limits on a device, per second (0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// Reads and writes per second.
    pub iops: u64,
    /// Bytes per second, each direction.
    pub bytes_per_s: u64,
}

/// A throttling cgroup this process runs in until dropped.
pub struct Throttled {
    dir: PathBuf,
    /// Where this process's tasks were (cgroup.procs of the group it came from).
    home: PathBuf,
}

impl Throttled {
    /// Makes a group that caps device `numbers` at `caps`, and moves this whole process into
    /// it (every thread, so the workers' I/O is charged to it).
    pub fn enter(numbers: (u32, u32), caps: Caps) -> io::Result<Self> {
        let (maj, min) = numbers;
        let v1 = Path::new("/sys/fs/cgroup/blkio");
        let id = format!("halfpower-selftest-{}", std::process::id());
        let (dir, home) = if v1.join("blkio.throttle.read_iops_device").exists() {
            let dir = v1.join(&id);
            std::fs::create_dir_all(&dir)?;
            // 0 lifts a limit.
            let w = |f: &str, v: u64| std::fs::write(dir.join(f), format!("{maj}:{min} {v}"));
            w("blkio.throttle.read_iops_device", caps.iops)?;
            w("blkio.throttle.write_iops_device", caps.iops)?;
            w("blkio.throttle.read_bps_device", caps.bytes_per_s)?;
            w("blkio.throttle.write_bps_device", caps.bytes_per_s)?;
            (dir, v1.join(own_group("blkio").unwrap_or_default()))
        } else {
            let v2 = Path::new("/sys/fs/cgroup");
            if !v2.join("cgroup.controllers").exists() {
                return Err(io::Error::other(
                    "neither cgroup v1 blkio nor cgroup v2 is mounted at /sys/fs/cgroup",
                ));
            }
            let home = v2.join(own_group("").unwrap_or_default());
            // The io controller must be on for the new group (a no-op where it is).
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+io");
            let dir = v2.join(&id);
            std::fs::create_dir_all(&dir)?;
            let lim = |v: u64| {
                if v == 0 {
                    "max".to_string()
                } else {
                    v.to_string()
                }
            };
            std::fs::write(
                dir.join("io.max"),
                format!(
                    "{maj}:{min} riops={} wiops={} rbps={} wbps={}",
                    lim(caps.iops),
                    lim(caps.iops),
                    lim(caps.bytes_per_s),
                    lim(caps.bytes_per_s)
                ),
            )?;
            (dir, home)
        };
        let me = Throttled { dir, home };
        std::fs::write(me.dir.join("cgroup.procs"), std::process::id().to_string())?;
        Ok(me)
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        let _ = std::fs::write(
            self.home.join("cgroup.procs"),
            std::process::id().to_string(),
        );
        let start = std::time::Instant::now();
        while std::fs::remove_dir(&self.dir).is_err() && start.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// This process's group in hierarchy `controller` (v1), or in the unified one (`""`), relative
/// to the hierarchy's root.
fn own_group(controller: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        let hit = if controller.is_empty() {
            ctrls.is_empty()
        } else {
            ctrls.split(',').any(|c| c == controller)
        };
        hit.then(|| path.trim_start_matches('/').to_string())
    })
}
