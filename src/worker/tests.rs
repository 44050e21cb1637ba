use super::*;
use crate::access::sample::SizePicker;
use crate::engine::{BufferArena, NullEngine};
use crate::offsets::{OffsetGen, Region};
use crate::rng::Rng;

fn plan(qd: u32, read_pct: u8) -> WorkerPlan {
    WorkerPlan {
        source: Synthetic {
            offsets: OffsetGen::random(Region::new(0, 1 << 30, 4096)),
            rng: Rng::new(1, 0),
            read_pct,
            sizes: SizePicker::new(&crate::access::RequestSize::fixed(4096)),
        },
        schedule: Schedule::Closed {
            depth: qd,
            cap: crate::plan::schedule::Gap::default(),
            think: None,
        },
        stagger: Stagger::default(),
        flushes: Flushes::default(),
        write_tag: 0,
        stripe: None,
        verify: None,
        error_grace_ns: None,
        on_error: OnError::Continue,
        payload: Payload::Stamped,
    }
}

#[test]
fn a_budget_is_issued_exactly() {
    let mut w = Worker::new(plan(8, 70));
    let mut eng = NullEngine::new(BufferArena::new(8, 4096, 4096).unwrap(), 4096);
    let budget = AtomicU64::new(16_384);
    let mut rec = Recorder::new(now_ns());
    let progress = Progress::default();
    w.phase(
        &mut eng,
        PhaseEnd::Budget(&budget, u64::MAX),
        Some(&mut rec),
        &progress,
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(rec.ios(), 16_384);
    assert_eq!(rec.read.bytes + rec.write.bytes, 16_384 * 4096);
    assert_eq!(budget.load(Ordering::Relaxed), 0);
    let read_share = rec.read.ios as f64 / 16_384.0;
    assert!((0.66..0.74).contains(&read_share), "{read_share}");
    assert_eq!(progress.ios.load(Ordering::Relaxed), 16_384);
}

#[test]
fn a_sync_follows_exactly_every_nth_write_however_many_slots_are_free() {
    // The null engine completes every request at once, so each pass finds all 8 slots
    // free: the sync must still come after every 3rd write, not after 3 to 10.
    let mut p = plan(8, 0);
    p.flushes.sync_every = 3;
    let mut w = Worker::new(p);
    let mut eng = NullEngine::new(BufferArena::new(8, 4096, 4096).unwrap(), 4096);
    let budget = AtomicU64::new(300);
    let mut rec = Recorder::new(now_ns());
    w.phase(
        &mut eng,
        PhaseEnd::Budget(&budget, u64::MAX),
        Some(&mut rec),
        &Progress::default(),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(rec.write.ios, 300);
    assert_eq!(rec.syncs.ios, 100);
}

#[test]
fn a_deadline_in_the_past_issues_nothing() {
    let mut w = Worker::new(plan(4, 100));
    let mut eng = NullEngine::new(BufferArena::new(4, 4096, 4096).unwrap(), 4096);
    let mut rec = Recorder::new(now_ns());
    w.phase(
        &mut eng,
        PhaseEnd::Until(0),
        Some(&mut rec),
        &Progress::default(),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(rec.ios(), 0);
}

#[test]
fn claim_never_overdraws() {
    let b = AtomicU64::new(5);
    assert_eq!(gate::claim(&b, 4), 4);
    assert_eq!(gate::claim(&b, 4), 1);
    assert_eq!(gate::claim(&b, 4), 0);
}
