//! Output files: checked before a run starts (so a long run does not end in an unwritable
//! path) and written atomically (a temporary file in the same directory, renamed over the
//! name), so a reader never sees half a document, even when the process is killed.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Whether an output file that exists may be replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refused before anything runs (halfpower's rule for every output file without `--force`).
    Refuse,
    /// Replaced atomically (`--force`; and `halfpower fio --output`, as fio does).
    Replace,
}

impl Existing {
    /// `Replace` when `--force` was given.
    pub fn forced(force: bool) -> Existing {
        if force {
            Existing::Replace
        } else {
            Existing::Refuse
        }
    }
}

/// Checks that an output file named by flag `what` can be created: not a directory, in an
/// existing directory, and not there already unless `existing` says it may be replaced.
pub fn check_output(what: &'static str, path: &Path, existing: Existing) -> crate::Result<()> {
    let parent = parent_dir(path);
    if path.is_dir() || !parent.is_dir() {
        let stdout = if what == "--json" {
            ", or - for stdout"
        } else {
            ""
        };
        return Err(crate::Error::invalid(
            what,
            path.display(),
            format!("a writable file path in an existing directory{stdout}"),
        ));
    }
    if existing == Existing::Refuse && path.exists() && !special(path) {
        return Err(crate::Error::refused(
            path,
            format!(
                "exists; {what} does not replace a file unless --force is given: remove it, name another, or pass --force"
            ),
        ));
    }
    Ok(())
}

/// Where an output lands, as the file system sees it, so that two names of one place (`o.json`
/// and `./o.json`, `/dev/stdout` and `-`, a link and its file) are one destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// Something there already (a file, a device, a pipe): its device and inode.
    Node(u64, u64),
    /// A name not there yet: its directory (made canonical where it exists) and file name.
    Name(PathBuf),
    /// Standard output where it cannot be looked at (closed).
    Stdout,
    /// The null device: it keeps nothing, so any number of outputs may go there.
    Discard,
}

impl Destination {
    /// The destination `path` names.
    pub fn of(path: &Path) -> Destination {
        match std::fs::metadata(path) {
            Ok(m) => Destination::node(&m),
            Err(_) => {
                let dir = parent_dir(path);
                let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| absolute(dir));
                Destination::Name(match path.file_name() {
                    Some(name) => dir.join(name),
                    None => dir,
                })
            }
        }
    }

    /// Standard output, as whatever it is open on (a terminal, a pipe, a file).
    pub fn stdout() -> Destination {
        use std::os::fd::AsFd;
        let open = std::io::stdout().as_fd().try_clone_to_owned();
        match open.and_then(|fd| std::fs::File::from(fd).metadata()) {
            Ok(m) => Destination::node(&m),
            Err(_) => Destination::Stdout,
        }
    }

    fn node(m: &std::fs::Metadata) -> Destination {
        let null = std::fs::metadata("/dev/null").map(|n| n.rdev()).ok();
        if m.file_type().is_char_device() && Some(m.rdev()) == null {
            return Destination::Discard;
        }
        Destination::Node(m.dev(), m.ino())
    }

    /// Whether an output written here and one written at `other` would land in one place.
    pub fn clashes(&self, other: &Destination) -> bool {
        self != &Destination::Discard && self == other
    }
}

/// `path` made absolute from the working directory (its links left as they are).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `path` is there and not a regular file: a device (`/dev/null`, `/dev/stdout`), a
/// FIFO or a socket. Such a name is written into, never replaced: renaming a file over
/// `/dev/null` would turn it into a regular file for every process on the machine.
fn special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to `path` atomically and durably: into a new temporary file beside it,
/// synced, renamed over `path`, then the directory synced, so that the rename itself survives a
/// power cut (a verify state exists for exactly that case). On any failure before the rename
/// the temporary file is removed and `path` is untouched. A device or FIFO (`/dev/null`) is
/// written into directly, never replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `fill` writes, streamed through a buffer (a file too large to
/// build in memory first: `run --io-log`'s line per I/O).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    if special(path) {
        // A device or a FIFO: written into as it is (see `special`).
        let f = std::fs::OpenOptions::new().write(true).open(path)?;
        let mut w = std::io::BufWriter::new(f);
        fill(&mut w)?;
        return w.flush();
    }
    let dir = parent_dir(path);
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Syncs directory `dir` (its entries: a rename into it). A file system that cannot sync a
/// directory (EINVAL) has nothing more to make durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::File::open(dir).and_then(|d| d.sync_all()) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        r => r,
    }
}

/// Writes `line` and a newline to standard error in one write, ignoring a closed stderr. The
/// ranks of an MPI job share one stderr, and `eprintln!` writes a line in pieces, which other
/// ranks' lines can split; one write of a line under the pipe's atomic size arrives whole.
/// Used through [`say!`].
pub fn say_line(mut line: String) {
    line.push('\n');
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// `eprintln!` in one write ([`say_line`]): every line halfpower writes to stderr.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::say_line(::std::format!($($arg)*))
    };
}
pub(crate) use say;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_null_is_written_into_never_replaced() {
        // Once, `--json /dev/null --force` renamed a file over /dev/null: it became a regular
        // file and every later reader of /dev/null (cargo's rustc probe) read its text.
        check_output("--json", Path::new("/dev/null"), Existing::Refuse).unwrap();
        write_atomic(Path::new("/dev/null"), b"{}").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(!m.is_file(), "/dev/null became a regular file");
    }

    #[test]
    fn two_names_of_one_place_are_one_destination() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("o.json");
        let dotted = dir.path().join(".").join("o.json");
        // Not there yet: the same directory and name.
        assert!(Destination::of(&p).clashes(&Destination::of(&dotted)));
        assert!(!Destination::of(&p).clashes(&Destination::of(&dir.path().join("o.html"))));
        // There: the same file, by a link as by its name.
        std::fs::write(&p, b"x").unwrap();
        let link = dir.path().join("link");
        std::fs::hard_link(&p, &link).unwrap();
        assert!(Destination::of(&p).clashes(&Destination::of(&dotted)));
        assert!(Destination::of(&p).clashes(&Destination::of(&link)));
        // The null device keeps nothing: it is no one's.
        let null = Destination::of(Path::new("/dev/null"));
        assert_eq!(null, Destination::Discard);
        assert!(!null.clashes(&Destination::of(Path::new("/dev/null"))));
    }

    #[test]
    fn atomic_writes_replace_whole_files_and_leave_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        let missing = dir.path().join("no/such/dir/x.json");
        assert!(write_atomic(&missing, b"x").is_err());
        assert!(check_output("--json", &missing, Existing::Replace).is_err());
        assert!(check_output("--json", dir.path(), Existing::Replace).is_err());
        assert!(check_output("--json", &p, Existing::Replace).is_ok());
        let err = check_output("--json", &p, Existing::Refuse).unwrap_err();
        assert!(err.to_string().contains("--force"), "{err}");
        let new = dir.path().join("new.json");
        assert!(check_output("--json", &new, Existing::Refuse).is_ok());
    }
}
