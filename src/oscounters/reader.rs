//! A counter file kept open and re-read from offset 0, so sampling many times a second costs
//! no path lookup (the dominant cost of opening /proc and sysfs files anew).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

/// One /proc or sysfs file, opened on first use.
#[derive(Debug)]
pub struct CounterFile {
    path: PathBuf,
    file: Option<File>,
    buf: String,
}

impl CounterFile {
    /// A reader of `path` (nothing is opened yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        CounterFile {
            path: path.into(),
            file: None,
            buf: String::new(),
        }
    }

    /// The file's current content; `None` when it cannot be read (it vanished, or never was).
    pub fn read(&mut self) -> Option<&str> {
        for attempt in 0..2 {
            if self.file.is_none() {
                self.file = File::open(&self.path).ok();
            }
            let f = self.file.as_mut()?;
            if f.seek(SeekFrom::Start(0)).is_ok() && read_all(f, &mut self.buf).is_ok() {
                return Some(&self.buf);
            }
            // The device went away and came back, or the handle went stale: reopen once.
            self.file = None;
            if attempt == 1 {
                return None;
            }
        }
        None
    }
}

/// Reads to the end into `buf` with plain read calls (`read_to_string` asks for the file's
/// metadata first, one more syscall per sample, and /proc sizes are meaningless anyway).
fn read_all(f: &mut File, buf: &mut String) -> std::io::Result<()> {
    let mut bytes = std::mem::take(buf).into_bytes();
    bytes.clear();
    let mut chunk = [0u8; 4096];
    loop {
        match f.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    *buf = String::from_utf8(bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn rereads_fresh_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c");
        std::fs::write(&p, "1\n").unwrap();
        let mut r = super::CounterFile::new(&p);
        assert_eq!(r.read(), Some("1\n"));
        std::fs::write(&p, "22\n").unwrap();
        assert_eq!(r.read(), Some("22\n"));
        let mut missing = super::CounterFile::new(dir.path().join("none"));
        assert_eq!(missing.read(), None);
    }
}
