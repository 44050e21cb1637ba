//! Safety checks before writing to a block device: is it mounted, used as swap, held by a
//! stacked device, or does it carry a filesystem or partition-table signature?

use crate::oscounters::sysfs;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Bytes read from the start of a device to look for signatures (btrfs' superblock sits at
/// 64 KiB + 64).
const PROBE_BYTES: usize = 70 * 1024;

/// Finds a known on-disk signature in the first bytes of a device; returns its name.
pub fn signature_in(head: &[u8]) -> Option<&'static str> {
    let at = |off: usize, magic: &[u8]| head.get(off..off + magic.len()) == Some(magic);
    let checks: &[(usize, &[u8], &str)] = &[
        (512, b"EFI PART", "a GPT partition table"),
        (4096, b"EFI PART", "a GPT partition table"),
        (1080, &[0x53, 0xef], "an ext2/3/4 filesystem"),
        (0, b"XFSB", "an XFS filesystem"),
        (65536 + 64, b"_BHRfS_M", "a btrfs filesystem"),
        (4086, b"SWAPSPACE2", "a swap area"),
        (4086, b"SWAP-SPACE", "a swap area"),
        (536, b"LVM2 001", "an LVM physical volume"),
        (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
        (3, b"NTFS    ", "an NTFS filesystem"),
        (54, b"FAT12   ", "a FAT filesystem"),
        (54, b"FAT16   ", "a FAT filesystem"),
        (82, b"FAT32   ", "a FAT filesystem"),
        (32769, b"CD001", "an ISO 9660 filesystem"),
        (0, b"hsqs", "a squashfs filesystem"),
        (1024, &[0x10, 0x20, 0xf5, 0xf2], "an F2FS filesystem"),
        (4096, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member"),
        (0, &[0xfc, 0x4e, 0x2b, 0xa9], "an md RAID member"),
        (0, b"BCH\x00", "a bcache device"),
    ];
    for &(off, magic, name) in checks {
        if at(off, magic) {
            return Some(name);
        }
    }
    // A DOS/MBR partition table: boot signature plus at least one typed partition entry.
    if at(510, &[0x55, 0xaa]) && (0..4).any(|i| head.get(446 + 16 * i + 4).is_some_and(|&t| t != 0))
    {
        return Some("a DOS (MBR) partition table");
    }
    None
}

/// Reads the head of `path` and looks for a signature.
pub fn probe_signature(path: &Path) -> std::io::Result<Option<&'static str>> {
    let mut head = vec![0u8; PROBE_BYTES];
    let mut f = File::open(path)?;
    let mut filled = 0;
    while filled < head.len() {
        match f.read(&mut head[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    head.truncate(filled);
    Ok(signature_in(&head))
}

/// Why the whole disk `name` (or one of its partitions) is in use, if it is: mounted, swap,
/// or held by a stacked device.
pub fn in_use(name: &str) -> Option<String> {
    let mut names = vec![name.to_string()];
    names.extend(sysfs::partitions(name));
    let devs: Vec<(String, String)> = names
        .iter()
        .filter_map(|n| {
            let dev = std::fs::read_to_string(format!("/sys/class/block/{n}/dev")).ok()?;
            Some((n.clone(), dev.trim().to_string()))
        })
        .collect();
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let (Some(majmin), Some(point)) = (f.get(2), f.get(4)) {
            if let Some((n, _)) = devs.iter().find(|(_, d)| d == majmin) {
                return Some(format!("{n} is mounted on {point}"));
            }
        }
    }
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        if let Some(dev) = line.split_whitespace().next() {
            let base = Path::new(dev)
                .file_name()
                .map(|b| b.to_string_lossy().into_owned());
            if let Some(b) = base.filter(|b| names.contains(b)) {
                return Some(format!("{b} is in use as swap"));
            }
        }
    }
    for n in &names {
        let h = sysfs::holders(n);
        if !h.is_empty() {
            return Some(format!("{n} is held by {}", h.join(", ")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(off: usize, magic: &[u8]) -> Vec<u8> {
        let mut v = vec![0u8; PROBE_BYTES];
        v[off..off + magic.len()].copy_from_slice(magic);
        v
    }

    #[test]
    fn known_signatures_are_found() {
        assert_eq!(
            signature_in(&with(1080, &[0x53, 0xef])),
            Some("an ext2/3/4 filesystem")
        );
        assert_eq!(
            signature_in(&with(512, b"EFI PART")),
            Some("a GPT partition table")
        );
        assert_eq!(signature_in(&with(0, b"XFSB")), Some("an XFS filesystem"));
        assert_eq!(
            signature_in(&with(65600, b"_BHRfS_M")),
            Some("a btrfs filesystem")
        );
        let mut mbr = with(510, &[0x55, 0xaa]);
        mbr[446 + 4] = 0x83;
        assert_eq!(signature_in(&mbr), Some("a DOS (MBR) partition table"));
    }

    #[test]
    fn blank_and_random_heads_carry_nothing() {
        assert_eq!(signature_in(&vec![0u8; PROBE_BYTES]), None);
        let mut r = crate::rng::Rng::new(3, 3);
        let mut v = vec![0u8; PROBE_BYTES];
        r.fill(&mut v);
        assert_eq!(signature_in(&v), None);
        assert_eq!(signature_in(&[]), None);
    }
}
