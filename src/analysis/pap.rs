//! The PAP of a path (000's peak advertised performance): the tightest limit on it and the
//! component that sets it. Each component carries a share of the target's rate (its load):
//! the top carries all of it, and each passes shares down by its rule (`Combine`): a stripe of
//! n gives each member 1/n, a mirror 1/n of reads and all of its writes, a chain all. A
//! component several members pass through adds their shares (the link of one HBA under both
//! halves of a stripe carries 1/2 + 1/2), so a shared component caps their sum. The PAP is the
//! least limit ÷ load over the path.

use crate::model::Direction;
use crate::model::path::{Combine, Component, ComponentLimit, NoPap, Pap, Paps};
use std::collections::VecDeque;

/// The share of its load a component with rule `c` and `n` beneath passes to each of them.
pub fn share(c: Combine, n: usize, dir: Direction) -> f64 {
    let nf = n.max(1) as f64;
    let read = dir == Direction::Read;
    match c {
        Combine::Chain | Combine::Linear | Combine::Assumed => 1.0,
        Combine::Stripe | Combine::Multipath => 1.0 / nf,
        Combine::Mirror => {
            if read {
                1.0 / nf
            } else {
                1.0
            }
        }
        Combine::Parity { parity } => {
            if read {
                1.0 / nf
            } else {
                1.0 / (nf - f64::from(parity)).max(1.0)
            }
        }
        Combine::Raid10 { copies } => {
            if read {
                1.0 / nf
            } else {
                (f64::from(copies) / nf).min(1.0)
            }
        }
    }
}

/// The components reachable from `starts`, in `c`.
fn reachable(c: &[Component], starts: &[(usize, f64)]) -> Vec<bool> {
    let mut seen = vec![false; c.len()];
    let mut todo: Vec<usize> = starts
        .iter()
        .map(|s| s.0)
        .filter(|&i| i < c.len())
        .collect();
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        todo.extend(c[i].below.iter().copied().filter(|&b| b < c.len()));
    }
    seen
}

/// Each component's load in direction `dir` when each `(component, share)` of `starts`
/// carries that share of the rate: a component's load is the sum of what those above it pass
/// down (0 where unreachable; a cycle in a file read back passes nothing round it).
pub fn loads(c: &[Component], starts: &[(usize, f64)], dir: Direction) -> Vec<f64> {
    let on = reachable(c, starts);
    let mut indeg = vec![0usize; c.len()];
    for (i, comp) in c.iter().enumerate().filter(|(i, _)| on[*i]) {
        for &b in comp.below.iter().filter(|&&b| b < c.len() && b != i) {
            indeg[b] += 1;
        }
    }
    let mut load = vec![0.0; c.len()];
    for &(i, s) in starts.iter().filter(|s| s.0 < c.len()) {
        load[i] += s;
    }
    let mut ready: VecDeque<usize> = (0..c.len()).filter(|&i| on[i] && indeg[i] == 0).collect();
    while let Some(i) = ready.pop_front() {
        let below: Vec<usize> = (c[i].below.iter().copied())
            .filter(|&b| b < c.len() && b != i)
            .collect();
        let s = share(c[i].combine, c[i].below.len(), dir);
        for b in below {
            load[b] += load[i] * s;
            indeg[b] -= 1;
            if indeg[b] == 0 {
                ready.push_back(b);
            }
        }
    }
    load
}

/// The PAP in direction `dir` of a rate entering at `starts`.
pub fn pap(c: &[Component], starts: &[(usize, f64)], dir: Direction) -> (Option<Pap>, Vec<usize>) {
    let load = loads(c, starts, dir);
    let on = reachable(c, starts);
    let unknown: Vec<usize> = (0..c.len())
        .filter(|&i| on[i] && matches!(c[i].limit, ComponentLimit::Unknown { .. }))
        .collect();
    let bounds: Vec<(usize, f64)> = (0..c.len())
        .filter(|&i| on[i] && load[i] > 0.0)
        .filter_map(|i| Some((i, c[i].limit.bytes_per_s_in(dir)? / load[i])))
        .filter(|b| b.1.is_finite())
        .collect();
    let best = bounds
        .iter()
        .copied()
        .reduce(|a, b| if b.1 < a.1 { b } else { a });
    let pap = best.map(|(i, bytes)| Pap {
        bytes_per_s: bytes,
        component: i,
        load: load[i],
        alike: bounds
            .iter()
            .filter(|b| b.0 != i && (b.1 - bytes).abs() <= bytes * 1e-9)
            .count(),
        complete: unknown.is_empty(),
    });
    (pap, unknown)
}

/// The PAP of a path for reads and writes, the rate entering at `starts`.
pub fn paps(c: &[Component], starts: &[(usize, f64)]) -> Paps {
    let (read, unknown) = pap(c, starts, Direction::Read);
    let (write, _) = pap(c, starts, Direction::Write);
    let why_none = match (&read, unknown.is_empty()) {
        (Some(_), _) => None,
        (None, true) => Some(NoPap::NoLimitOnPath),
        (None, false) => Some(NoPap::UnknownLimits),
    };
    Paps {
        read,
        write,
        why_none,
        unknown,
    }
}

/// The PAP of one target whose path starts at `top`, with `carriers` (the CPU) carrying all of
/// its rate too.
pub fn target_paps(c: &[Component], top: usize, carriers: &[usize]) -> Paps {
    let starts: Vec<(usize, f64)> = std::iter::once((top, 1.0))
        .chain(carriers.iter().map(|&k| (k, 1.0)))
        .collect();
    paps(c, &starts)
}

/// The PAP of several targets at once, each carrying an equal share (what `sweep` and `scale`
/// run side by side), with `carriers` carrying the total.
pub fn together_paps(c: &[Component], tops: &[usize], carriers: &[usize]) -> Paps {
    let n = tops.len().max(1) as f64;
    let starts: Vec<(usize, f64)> = (tops.iter().map(|&t| (t, 1.0 / n)))
        .chain(carriers.iter().map(|&k| (k, 1.0)))
        .collect();
    paps(c, &starts)
}

/// How far `measured` got towards `pap` (measured ÷ PAP), both bytes/s; None without both.
pub fn reached(measured: Option<f64>, pap: f64) -> Option<f64> {
    measured
        .filter(|m| m.is_finite() && *m >= 0.0)
        .filter(|_| pap.is_finite() && pap > 0.0)
        .map(|m| m / pap)
}

/// The PAP for a workload that reads `read_share` (0..1) of its bytes: the tighter of the
/// two directions when it does both, the one it does otherwise.
pub fn for_mix(p: &Paps, read_share: f64) -> Option<&Pap> {
    match (&p.read, &p.write) {
        (Some(r), _) if read_share >= 1.0 => Some(r),
        (_, Some(w)) if read_share <= 0.0 => Some(w),
        (Some(r), Some(w)) => Some(if w.bytes_per_s < r.bytes_per_s { w } else { r }),
        (r, w) => r.as_ref().or(w.as_ref()),
    }
}
