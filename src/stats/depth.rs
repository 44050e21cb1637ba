//! How deep the queue was, counted as fio counts it: at each submit call, every I/O it sends
//! is counted at the number of I/Os in flight once it is sent (those not yet reaped, the call's
//! own included: fio's `io_u_mark_depth` at commit); per submit call, how many I/Os it sent;
//! per reap, how many completions it returned. One increment each, into seven fixed buckets,
//! per worker; merged after the run. fio's `iodepth_level`, `iodepth_submit` and
//! `iodepth_complete` are these counts as shares (`analysis::fio`).

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
    /// One submit call that sent `n` reads and writes, after which `in_flight` I/Os (those
    /// `n` included) are outstanding.
    #[inline]
    pub fn submit_call(&mut self, n: u32, in_flight: u32) {
        self.level[level_bucket(in_flight)] += n as u64;
        self.submit[batch_bucket(n)] += 1;
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
    fn merging_adds_every_bucket() {
        let mut a = DepthCounts::default();
        a.submit_call(1, 4);
        let mut b = DepthCounts::default();
        b.submit_call(3, 5);
        b.reap_call(70);
        a.merge(&b);
        assert_eq!(a.level[2], 4, "each I/O of a call at the depth after it");
        assert_eq!(a.submit[1], 2);
        assert_eq!(a.complete[6], 1);
    }
}
