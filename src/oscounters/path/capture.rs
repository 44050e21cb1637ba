//! `path --capture`: the sysfs files, directories and links a walk read, and the mount-table
//! lines it used, as a gzip'd tar laid out as the tree is (links kept as links), so that
//! `HALFPOWER_SYSFS=DIR halfpower path …` re-runs the walk on another machine.

use super::tree::Tree;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most bytes kept of one file.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The archive of what `tree` recorded, with the mount table `mount_lines` as
/// proc/self/mountinfo (left out when empty).
pub fn archive(tree: &Tree, mount_lines: &[String]) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    let touched = tree.touched();
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for p in &touched {
        dirs.extend(
            p.ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
                .map(Path::to_path_buf),
        );
    }
    if !mount_lines.is_empty() {
        dirs.insert(PathBuf::from("proc"));
        dirs.insert(PathBuf::from("proc/self"));
    }
    for d in &dirs {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(0o755);
        h.set_size(0);
        tar.append_data(&mut h, d, std::io::empty())?;
    }
    for p in &touched {
        let full = tree.root().join(p);
        let meta = std::fs::symlink_metadata(&full)?;
        let mut h = tar::Header::new_gnu();
        if meta.file_type().is_symlink() {
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_mode(0o777);
            h.set_size(0);
            tar.append_link(&mut h, p, std::fs::read_link(&full)?)?;
        } else if meta.is_dir() {
            if !dirs.contains(p) {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_mode(0o755);
                h.set_size(0);
                tar.append_data(&mut h, p, std::io::empty())?;
            }
        } else {
            let mut bytes = Vec::new();
            // A file that cannot be read now (a write-only attribute) is kept empty.
            if let Ok(f) = std::fs::File::open(&full) {
                let _ = f.take(MAX_FILE_BYTES).read_to_end(&mut bytes);
            }
            file(&mut tar, p, &bytes)?;
        }
    }
    if !mount_lines.is_empty() {
        let text = mount_lines.join("\n") + "\n";
        file(&mut tar, Path::new("proc/self/mountinfo"), text.as_bytes())?;
    }
    let mut gz = tar.into_inner()?;
    gz.flush()?;
    gz.finish()
}

fn file<W: Write>(tar: &mut tar::Builder<W>, p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Regular);
    h.set_mode(0o444);
    h.set_size(bytes.len() as u64);
    tar.append_data(&mut h, p, bytes)
}
