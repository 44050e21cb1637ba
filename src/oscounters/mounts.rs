//! The mount table (/proc/self/mountinfo): which mount holds a file, its type, what is
//! mounted and the `major:minor` of its device. Under `HALFPOWER_SYSFS=DIR` the table is
//! DIR/proc/self/mountinfo (what `path --capture` writes), so a file's path resolves on the
//! machine it was captured on.

use std::path::{Component, Path, PathBuf};

/// One line of the mount table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// The line as read (a capture writes it back).
    pub line: String,
    /// `major` of the mounted device (0 for file systems without a block device).
    pub major: u32,
    /// `minor`.
    pub minor: u32,
    /// Where it is mounted.
    pub mount_point: PathBuf,
    /// File system type.
    pub fs_type: String,
    /// What is mounted (`/dev/sda2`, `server:/export`, `tmpfs`).
    pub source: String,
    /// The directory of the file system that is mounted there (`/` but for bind mounts and a
    /// cgroup namespace's view).
    pub root: String,
    /// The file system's own options (a v1 cgroup hierarchy's controllers are among them).
    pub super_options: String,
    /// The mount's own options (`rw,relatime`, `noatime`, `sync`).
    pub options: String,
}

/// `major:minor` as the kernel writes a device number.
pub fn major_minor(text: &str) -> Option<(u32, u32)> {
    let (a, b) = text.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Undoes the table's octal escapes (`\040` for a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 4 <= b.len() {
            let oct = &b[i + 1..i + 4];
            if oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
                let v = oct.iter().fold(0u32, |a, c| a * 8 + u32::from(c - b'0'));
                if let Ok(v) = u8::try_from(v) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses the text of a mountinfo file; lines it cannot read are left out.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (head, tail) = line.split_once(" - ")?;
            let h: Vec<&str> = head.split_whitespace().collect();
            let t: Vec<&str> = tail.split_whitespace().collect();
            let (major, minor) = major_minor(h.get(2)?)?;
            Some(Mount {
                line: line.to_string(),
                major,
                minor,
                mount_point: PathBuf::from(unescape(h.get(4)?)),
                fs_type: unescape(t.first()?),
                source: unescape(t.get(1).unwrap_or(&"")),
                root: unescape(h.get(3)?),
                super_options: t.get(2).unwrap_or(&"").to_string(),
                options: h.get(5).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// Where the mount table is read from: DIR/proc/self/mountinfo under `HALFPOWER_SYSFS=DIR`
/// (None when the capture has none), else /proc/self/mountinfo.
pub fn table_path() -> Option<PathBuf> {
    let p = crate::oscounters::sysfs::proc_root().join("self/mountinfo");
    (!crate::oscounters::sysfs::overridden() || p.exists()).then_some(p)
}

/// Reads the mount table from [`table_path`]; empty when there is none.
pub fn read() -> Vec<Mount> {
    table_path()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|t| parse(&t))
        .unwrap_or_default()
}

/// `p` made absolute against the current directory, with `.` and `..` taken lexically.
pub fn absolute(p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// The mount holding the absolute path `file`: the longest mount point it lies under, the
/// last such in the table (a later mount on the same point hides an earlier one).
pub fn holding<'a>(mounts: &'a [Mount], file: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| file.starts_with(&m.mount_point))
        .fold(None, |best: Option<&Mount>, m| match best {
            Some(b) if b.mount_point.components().count() > m.mount_point.components().count() => {
                Some(b)
            }
            _ => Some(m),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 27 8:2 / /mnt/my\\040data rw,relatime shared:5 - xfs /dev/sda2 rw
31 27 0:40 / /mnt/my\\040data/tmp rw - tmpfs tmpfs rw
32 27 8:3 / /mnt/my\\040data rw - ext4 /dev/sda3 rw
garbage line
";

    #[test]
    fn the_longest_and_latest_mount_holds_a_file() {
        let m = parse(TABLE);
        assert_eq!(m.len(), 5);
        assert_eq!(m[2].mount_point, Path::new("/mnt/my data"));
        assert_eq!(m[2].fs_type, "xfs");
        assert_eq!(
            (m[2].root.as_str(), m[2].super_options.as_str()),
            ("/", "rw")
        );
        assert_eq!(m[1].super_options, "rw,discard");
        let h = holding(&m, Path::new("/mnt/my data/f")).unwrap();
        assert_eq!((h.major, h.minor, h.source.as_str()), (8, 3, "/dev/sda3"));
        let h = holding(&m, Path::new("/mnt/my data/tmp/x")).unwrap();
        assert_eq!(h.fs_type, "tmpfs");
        assert_eq!(
            holding(&m, Path::new("/home/u")).unwrap().source,
            "/dev/vda"
        );
        assert_eq!(holding(&m[..1], Path::new("/home")), None);
        assert_eq!(absolute(Path::new("/a/./b/../c")), Path::new("/a/c"));
        assert_eq!(unescape("a\\134b\\04"), "a\\b\\04");
    }
}
