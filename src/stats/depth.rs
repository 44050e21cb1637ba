//! How deep the queue was, counted as fio counts it (`iodepth_level`): each request at the
//! number of requests the job holds once it is sent (sent and not yet reaped, itself
//! included: fio's `cur_depth` at `io_u_mark_depth`, one request a commit at fio's default
//! `iodepth_batch=1`). fio reaps one completion at a time when it needs a slot
//! (`iodepth_batch_complete_max` defaults to 1), so a request it sends into a full queue
//! counts at the full depth even when the device finished several at once, while after a
//! wait for everything (a rate cap, thinktime) it refills from 1. halfpower reaps every
//! completion there is at once, so [`DepthCounts::submit_call`] counts each request as
//! fio's loop would have held it: those of a refill after a reap for a free slot one out,
//! one in, at the depth before; the rest, and all after a wait for everything, at their own
//! depth (1, 2, 3, … into an empty queue). Per submit call, how many I/Os it sent;
/// Number of buckets of each count (fio's `FIO_IO_U_MAP_NR`).
pub const BUCKETS: usize = 7;

/// The queue-depth counts of a measured phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthCounts {
    /// Reads and writes submitted, by the I/Os in flight with them: 1, 2–3, 4–7, 8–15, 16–31,
    /// 32–63, 64 and more.
    pub level: [u64; BUCKETS],
    /// Submit calls that sent at least one I/O, by how many they sent: 0, 1–4, 5–8, 9–16,
    /// 17–32, 33–64, more than 64.
    pub submit: [u64; BUCKETS],
    /// Reaps, by how many completions each returned (same buckets as `submit`).
    pub complete: [u64; BUCKETS],
}

/// The `level` bucket of `depth` I/Os in flight (fio's `io_u_mark_depth`).
#[inline]
fn level_bucket(depth: u32) -> usize {
    if depth <= 1 {
        0
    } else {
        (depth.ilog2() as usize).min(BUCKETS - 1)
    }
}

/// The `submit`/`complete` bucket of a call that carried `n` I/Os (fio's `__io_u_mark_map`).
#[inline]
fn batch_bucket(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

impl DepthCounts {
    /// `n` reads and writes sent between two reaps, in one call or (`each`) one call each,
    /// after which `in_flight` I/Os (those `n` included) are outstanding, `held` of the
    /// completions reaped just before having been reaped for a free slot (fio would hold them
    /// until it sends their replacements): with `b = in_flight − n` and `m = min(held, n)`, the
    /// k-th request counts at `b + max(k, m)`.
    #[inline]
    pub fn submit_call(&mut self, n: u32, in_flight: u32, held: u32, each: bool) {
        let before = in_flight.saturating_sub(n);
        let m = held.min(n);
        for k in 1..=n {
            self.level[level_bucket(before + k.max(m))] += 1;
        }
        if each {
            self.submit[batch_bucket(1)] += u64::from(n);
        } else {
            self.submit[batch_bucket(n)] += 1;
        }
    }

    /// One reap that returned `n` completions.
    #[inline]
    pub fn reap_call(&mut self, n: u32) {
        self.complete[batch_bucket(n)] += 1;
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &DepthCounts) {
        for (a, b) in [
            (&mut self.level, &other.level),
            (&mut self.submit, &other.submit),
            (&mut self.complete, &other.complete),
        ] {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_fios() {
        let levels: Vec<usize> = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 1000]
            .iter()
            .map(|&d| level_bucket(d))
            .collect();
        assert_eq!(levels, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
        let batches: Vec<usize> = [0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65]
            .iter()
            .map(|&n| batch_bucket(n))
            .collect();
        assert_eq!(batches, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }

    #[test]
    fn a_call_into_an_empty_queue_counts_each_request_at_its_own_depth() {
        // fio's four commits at depths 1, 2, 3, 4 (fio 3.33, thinktime_blocks=4 iodepth=4:
        // "1": 25, "2": 50, "4": 25).
        let mut d = DepthCounts::default();
        d.submit_call(4, 4, 0, false);
        assert_eq!(&d.level[..3], &[1, 2, 1]);
        assert_eq!(d.submit[1], 1);
    }

    #[test]
    fn a_refill_after_a_reap_for_a_slot_counts_at_the_depth_fio_held() {
        // 4 in flight, 3 finished at once: fio reaps one, sends one (4 held), three times.
        let mut d = DepthCounts::default();
        d.submit_call(3, 4, 3, false);
        assert_eq!(d.level[2], 3);
        // 2 reaped for a slot, 3 sent (the queue had room for one more): 4, 4, then 5.
        let mut d = DepthCounts::default();
        d.submit_call(3, 5, 2, false);
        assert_eq!(d.level[2], 3);
        assert_eq!(d.level.iter().sum::<u64>(), 3);
    }

    #[test]
    fn an_engine_that_sends_each_request_counts_a_call_each() {
        // io_uring here, and fio at iodepth_batch=1: four requests are four calls of one.
        let mut d = DepthCounts::default();
        d.submit_call(4, 4, 0, true);
        assert_eq!(&d.level[..3], &[1, 2, 1], "the depths are the same");
        assert_eq!((d.submit[1], d.submit[2]), (4, 0));
    }

    #[test]
    fn merging_adds_every_bucket() {
        let mut a = DepthCounts::default();
        a.submit_call(1, 4, 0, false);
        let mut b = DepthCounts::default();
        b.submit_call(3, 5, 0, false);
        b.reap_call(70);
        a.merge(&b);
        assert_eq!(
            a.level[1], 1,
            "the call's first I/O found 2 in flight: depth 3"
        );
        assert_eq!(a.level[2], 3, "4 (a's), then 4 and 5 (b's 2nd and 3rd)");
        assert_eq!(a.submit[1], 2);
        assert_eq!(a.complete[6], 1);
    }
}
