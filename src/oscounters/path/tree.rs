//! A sysfs tree read from its root, as the kernel lays it out: paths are resolved component by
//! component, following the relative symbolic links of /sys/block, /sys/class/block and
//! /sys/dev/block into /sys/devices, never out of the root (a captured tree may hold anything)
//! and never round a loop. Every file, directory and link read is recorded, so `path
//! --capture` can write exactly what a walk needed.

use super::{Reading, Unresolved};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most symbolic links one resolution follows (the kernel's own limit).
pub const MAX_LINKS: usize = 40;
/// The most bytes read of one attribute.
const MAX_ATTR_BYTES: u64 = 64 * 1024;

/// A sysfs tree at a root; paths given to it and returned by it are relative to the root.
#[derive(Debug)]
pub struct Tree {
    root: PathBuf,
    touched: RefCell<BTreeSet<PathBuf>>,
}

impl Tree {
    /// The tree at `root` (/sys, or a captured copy).
    pub fn at(root: impl Into<PathBuf>) -> Tree {
        Tree {
            root: root.into(),
            touched: RefCell::new(BTreeSet::new()),
        }
    }

    /// The tree halfpower reads: `HALFPOWER_SYSFS`, else /sys.
    pub fn open() -> Tree {
        Tree::at(crate::oscounters::sysfs::root())
    }

    /// The root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every path read so far, relative to the root, in order.
    pub fn touched(&self) -> Vec<PathBuf> {
        self.touched.borrow().iter().cloned().collect()
    }

    fn touch(&self, rel: &Path) {
        self.touched.borrow_mut().insert(rel.to_path_buf());
    }

    /// Resolves `rel` to the path without links it names, relative to the root.
    pub fn resolve(&self, rel: &Path) -> Result<PathBuf, Unresolved> {
        let shown = || rel.display().to_string();
        let mut todo: Vec<OsString> = Vec::new();
        push_front(&mut todo, rel).map_err(|_| Unresolved::OutsideTree { path: shown() })?;
        let mut cur = PathBuf::new();
        let mut links = 0usize;
        while let Some(c) = todo.pop() {
            if c == ".." {
                if !cur.pop() {
                    return Err(Unresolved::OutsideTree { path: shown() });
                }
                continue;
            }
            let next = cur.join(&c);
            let full = self.root.join(&next);
            let meta = std::fs::symlink_metadata(&full)
                .map_err(|_| Unresolved::NotInSysfs { path: shown() })?;
            if meta.file_type().is_symlink() {
                links += 1;
                if links > MAX_LINKS {
                    return Err(Unresolved::LinkLoop { path: shown() });
                }
                self.touch(&next);
                let target = std::fs::read_link(&full)
                    .map_err(|_| Unresolved::NotInSysfs { path: shown() })?;
                push_front(&mut todo, &target)
                    .map_err(|_| Unresolved::OutsideTree { path: shown() })?;
            } else {
                cur = next;
            }
        }
        Ok(cur)
    }

    /// The text of attribute `name` of directory `dir` (resolved), trimmed.
    pub fn attr(&self, dir: &Path, name: &str) -> Option<String> {
        let rel = self.resolve(&dir.join(name)).ok()?;
        let f = std::fs::File::open(self.root.join(&rel)).ok()?;
        let mut bytes = Vec::new();
        f.take(MAX_ATTR_BYTES).read_to_end(&mut bytes).ok()?;
        self.touch(&rel);
        Some(String::from_utf8_lossy(&bytes).trim().to_string())
    }

    /// Attribute `name` of `dir` parsed by `parse`: its value, or that it is missing, or its
    /// text when `parse` refuses it.
    pub fn reading<T>(
        &self,
        dir: &Path,
        name: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Reading<T> {
        let attribute = dir.join(name).display().to_string();
        match self.attr(dir, name) {
            None => Reading::Missing { attribute },
            Some(text) => match parse(&text) {
                Some(value) => Reading::Value { value },
                None => Reading::Unparseable {
                    attribute,
                    text: text.chars().take(64).collect(),
                },
            },
        }
    }

    /// A numeric attribute, when it is one.
    pub fn number(&self, dir: &Path, name: &str) -> Option<u64> {
        self.attr(dir, name)?.parse().ok()
    }

    /// The names in directory `dir` (resolved), sorted; empty when it is not one.
    pub fn entries(&self, dir: &Path) -> Vec<String> {
        let Ok(rel) = self.resolve(dir) else {
            return Vec::new();
        };
        let Ok(rd) = std::fs::read_dir(self.root.join(&rel)) else {
            return Vec::new();
        };
        self.touch(&rel);
        let mut out: Vec<String> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    /// Whether `rel` names something (through links).
    pub fn exists(&self, rel: &Path) -> bool {
        self.resolve(rel)
            .is_ok_and(|r| std::fs::symlink_metadata(self.root.join(r)).is_ok())
    }

    /// Whether `rel` itself is there, a link (even a broken one) or not (its parents must be
    /// directories).
    pub fn entry_exists(&self, rel: &Path) -> bool {
        std::fs::symlink_metadata(self.root.join(rel)).is_ok()
    }

    /// Whether `rel` is a directory (through links).
    pub fn is_dir(&self, rel: &Path) -> bool {
        self.resolve(rel)
            .is_ok_and(|r| std::fs::metadata(self.root.join(r)).is_ok_and(|m| m.is_dir()))
    }

    /// The last component of the link `rel` points to (a driver's name), without following
    /// it further.
    pub fn link_name(&self, rel: &Path) -> Option<String> {
        let target = std::fs::read_link(self.root.join(rel)).ok()?;
        self.touch(rel);
        target.file_name().map(|f| f.to_string_lossy().into_owned())
    }
}

/// Puts the components of `p` in front of the stack `todo` (which pops its last element
/// first); an absolute `p` leads out of the tree.
fn push_front(todo: &mut Vec<OsString>, p: &Path) -> Result<(), ()> {
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => parts.push(n.to_os_string()),
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return Err(()),
        }
    }
    todo.extend(parts.into_iter().rev());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_are_followed_inside_the_root_only() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("devices/x/block/sda")).unwrap();
        std::fs::write(r.join("devices/x/block/sda/size"), "8\n").unwrap();
        std::fs::create_dir_all(r.join("block")).unwrap();
        symlink("../devices/x/block/sda", r.join("block/sda")).unwrap();
        symlink("/etc", r.join("block/out")).unwrap();
        symlink("../../../..", r.join("block/up")).unwrap();
        symlink("loopb", r.join("block/loopa")).unwrap();
        symlink("loopa", r.join("block/loopb")).unwrap();
        let t = Tree::at(r);
        assert_eq!(
            t.resolve(Path::new("block/sda")).unwrap(),
            Path::new("devices/x/block/sda")
        );
        assert_eq!(t.attr(Path::new("block/sda"), "size").as_deref(), Some("8"));
        assert!(matches!(
            t.resolve(Path::new("block/out")),
            Err(Unresolved::OutsideTree { .. })
        ));
        assert!(matches!(
            t.resolve(Path::new("block/up")),
            Err(Unresolved::OutsideTree { .. })
        ));
        assert!(matches!(
            t.resolve(Path::new("block/loopa")),
            Err(Unresolved::LinkLoop { .. })
        ));
        assert!(matches!(
            t.resolve(Path::new("block/none")),
            Err(Unresolved::NotInSysfs { .. })
        ));
        let touched = t.touched();
        assert!(touched.contains(&PathBuf::from("block/sda")));
        assert!(touched.contains(&PathBuf::from("devices/x/block/sda/size")));
    }
}
