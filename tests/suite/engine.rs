//! The engines move the right bytes to the right offsets: what one writes, the other reads back.

use halfpower::engine::{BufferArena, Engine, IoDir, IoRequest, SyncEngine, UringEngine};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

const BS: usize = 4096;
const BLOCKS: u64 = 64;

fn pattern(block: u64, buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (block as usize * 31 + i * 7) as u8 ^ (block >> 3) as u8;
    }
}

fn write_all<E: Engine>(eng: &mut E, qd: u32) {
    // Write blocks in a scrambled order, qd at a time.
    let order: Vec<u64> = (0..BLOCKS).map(|i| (i * 37) % BLOCKS).collect();
    for chunk in order.chunks(qd as usize) {
        for (slot, &block) in chunk.iter().enumerate() {
            pattern(block, eng.buffer(slot as u32));
            eng.prepare(IoRequest {
                file: 0,
                dir: IoDir::Write,
                offset: block * BS as u64,
                slot: slot as u32,
                len: BS as u32,
            });
        }
        let mut done = 0;
        while done < chunk.len() {
            eng.submit_and_reap(1, |_, res| {
                assert_eq!(res, BS as i32);
                done += 1;
            })
            .unwrap();
        }
    }
}

fn read_and_check<E: Engine>(eng: &mut E, qd: u32) {
    let mut expect = vec![0u8; BS];
    for first in (0..BLOCKS).step_by(qd as usize) {
        let blocks: Vec<u64> = (first..(first + qd as u64).min(BLOCKS)).collect();
        for (slot, &block) in blocks.iter().enumerate() {
            eng.buffer(slot as u32).fill(0);
            eng.prepare(IoRequest {
                file: 0,
                dir: IoDir::Read,
                offset: block * BS as u64,
                slot: slot as u32,
                len: BS as u32,
            });
        }
        let mut done = Vec::new();
        while done.len() < blocks.len() {
            eng.submit_and_reap(1, |slot, res| {
                assert_eq!(res, BS as i32);
                done.push(slot);
            })
            .unwrap();
        }
        for (slot, &block) in blocks.iter().enumerate() {
            pattern(block, &mut expect);
            assert!(
                eng.buffer(slot as u32) == expect.as_slice(),
                "block {block} differs"
            );
        }
    }
}

fn open(path: &std::path::Path, direct: bool) -> std::fs::File {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(if direct { libc::O_DIRECT } else { 0 })
        .open(path)
        .unwrap()
}

#[test]
fn uring_writes_what_sync_reads_back_and_vice_versa() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    let f = open(&path, false);
    f.set_len(BLOCKS * BS as u64).unwrap();
    for direct in [false, true] {
        let f = open(&path, direct);
        let fd = f.as_raw_fd();
        let qd = 8;
        let mut uring = UringEngine::new(
            &[fd],
            BufferArena::new(qd, BS, 4096).unwrap(),
            BS as u32,
            std::time::Duration::ZERO,
        )
        .unwrap();
        write_all(&mut uring, qd as u32);
        let mut sync = SyncEngine::new(&[fd], BufferArena::new(1, BS, 4096).unwrap(), BS as u32);
        read_and_check(&mut sync, 1);
        // Now the other way round, after clearing the file.
        f.set_len(0).unwrap();
        f.set_len(BLOCKS * BS as u64).unwrap();
        write_all(&mut sync, 1);
        read_and_check(&mut uring, qd as u32);
        // And the file on disk holds the same bytes, read without halfpower.
        let data = std::fs::read(&path).unwrap();
        let mut expect = vec![0u8; BS];
        for b in 0..BLOCKS {
            pattern(b, &mut expect);
            assert_eq!(
                &data[b as usize * BS..(b as usize + 1) * BS],
                expect.as_slice()
            );
        }
    }
}
