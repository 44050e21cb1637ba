//! fio's access options ([`super::access::FioAccess`]) mapped onto halfpower's one access
//! vocabulary ([`crate::access`]) in a job's workload.

use super::FioError;
use super::options::JobOptions;
use crate::access::{Access, RequestSize};
use crate::model::fio::{FioNote, FioNoteKind};
use crate::plan::Workload;
use crate::units::{ByteSize, Dur};
use std::time::Duration;

/// The value that applies to a job's directions: the read one, the write one, or the one both
/// share (a mixed job whose two values differ is refused, naming `option`).
fn one_for<T: Clone + PartialEq>(
    o: &JobOptions,
    pair: &[T; 2],
    option: &str,
) -> Result<T, FioError> {
    match (o.reads(), o.writes()) {
        (true, true) if pair[0] != pair[1] => Err(FioError::NotYet {
            option: option.into(),
            why: "different values for reads and writes in one job".into(),
        }),
        (false, true) => Ok(pair[1].clone()),
        _ => Ok(pair[0].clone()),
    }
}

/// Sets the access options of `w` from job `o`, whose request size is already in `w.bs`.
pub fn plan(o: &JobOptions, w: &mut Workload, notes: &mut Vec<FioNote>) -> Result<(), FioError> {
    request_sizes(o, w)?;
    order(o, w, notes)?;
    let s = &mut w.setup.access;
    rates(o, s)?;
    syncs(o, s, notes)?;
    think(o, s, notes);
    Ok(())
}

/// Replaces `w.bs` with the mix of `bssplit` or `bsrange` when the job sets one.
fn request_sizes(o: &JobOptions, w: &mut Workload) -> Result<(), FioError> {
    let a = &o.access;
    if let Some(split) = &a.bssplit {
        w.bs = one_for(o, split, "bssplit")?;
    } else if let Some(range) = &a.bsrange {
        let (lo, hi) = one_for(o, range, "bsrange")?;
        // fio draws a length uniformly from [lo, lo + hi) and rounds it down to a multiple of
        // lo, retrying above hi: every multiple of lo up to hi equally often.
        let n = hi / lo;
        if n > 65_536 {
            return Err(FioError::value(
                "bsrange",
                &format!("{lo}-{hi}"),
                "a range of at most 65536 multiples of its minimum",
            ));
        }
        w.bs = RequestSize::mix((1..=n).map(|k| (k * lo, 1)).collect())
            .unwrap_or(RequestSize::fixed(lo));
    }
    Ok(())
}

/// The order of the offsets: a random job's distribution, share of random requests and runs,
/// or a sequential job's gap between requests (`rw=read:GAP`).
fn order(o: &JobOptions, w: &mut Workload, notes: &mut Vec<FioNote>) -> Result<(), FioError> {
    let a = &o.access;
    let s = &mut w.setup.access;
    if w.rw.is_random() {
        s.dist = a.dist.clone();
        if w.bs.is_mix() && s.dist.is_uniform() && !o.norandommap {
            let option = if a.bsrange.is_some() && a.bssplit.is_none() {
                "bsrange"
            } else {
                "bssplit"
            };
            notes.push(super::note(
                o,
                FioNoteKind::RandomMapMix {
                    option: option.into(),
                    mean_bytes: w.bs.mean(),
                },
            ));
        }
        s.random_pct = one_for(o, &a.percentage_random, "percentage_random")?;
        if let Some(n) = o.rw_stride.filter(|n| *n > 1) {
            s.random_run = u32::try_from(n).map_err(|_| {
                FioError::value("rw", &n.to_string(), "a run of at most 2^32 - 1 requests")
            })?;
        }
    } else if let Some(gap) = o.rw_stride.filter(|g| *g > 0) {
        let bs = w.bs.single().ok_or_else(|| FioError::NotYet {
            option: "rw".into(),
            why: "a sequential gap (rw=read:GAP) with a mix of request sizes".into(),
        })?;
        s.stride = Some(ByteSize(bs + gap));
    }
    Ok(())
}

/// The job's caps (`rate`, `rate_iops`), totalled over its numjobs clones.
fn rates(o: &JobOptions, s: &mut Access) -> Result<(), FioError> {
    let a = &o.access;
    let clones = o.numjobs as u64;
    let rate = one_for(o, &a.rate, "rate")?;
    let rate_iops = one_for(o, &a.rate_iops, "rate_iops")?;
    if (rate > 0 || rate_iops > 0) && o.reads() && o.writes() {
        return Err(FioError::NotYet {
            option: if rate > 0 { "rate" } else { "rate_iops" }.into(),
            why: "fio caps each direction of a mixed job on its own; halfpower caps the total"
                .into(),
        });
    }
    // fio's rate is per job, and each numjobs clone is a job: halfpower's cap is the total.
    s.rate = (rate > 0).then_some(ByteSize(rate * clones));
    s.rate_iops = (rate_iops > 0).then_some(rate_iops * clones);
    Ok(())
}

/// A writing job's flushes: `fsync` or `fdatasync` every n writes, and `end_fsync`.
fn syncs(o: &JobOptions, s: &mut Access, notes: &mut Vec<FioNote>) -> Result<(), FioError> {
    let a = &o.access;
    let writes = o.writes();
    match (a.fsync, a.fdatasync) {
        (0, 0) => {}
        (n, 0) | (0, n) if writes => {
            let n = u32::try_from(n).map_err(|_| {
                FioError::value("fsync", &n.to_string(), "a count of writes below 2^32")
            })?;
            if a.fsync > 0 {
                s.fsync = Some(n);
            } else {
                s.fdatasync = Some(n);
            }
            if o.iodepth > 1 {
                notes.push(super::note(o, FioNoteKind::SyncDrains { every: n }));
            }
        }
        (_, 0) | (0, _) => {}
        _ => {
            return Err(FioError::NotYet {
                option: "fdatasync".into(),
                why: "fsync and fdatasync in one job".into(),
            });
        }
    }
    s.end_fsync = a.end_fsync && writes;
    Ok(())
}

/// The job's think time (`thinktime`, every `thinktime_blocks` requests).
fn think(o: &JobOptions, s: &mut Access, notes: &mut Vec<FioNote>) {
    let a = &o.access;
    if a.thinktime_us > 0 {
        s.think = Some(Dur(Duration::from_micros(a.thinktime_us)));
        s.think_every = a.thinktime_blocks;
        if o.iodepth > 1 {
            notes.push(super::note(o, FioNoteKind::ThinktimeWaits));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(pairs: &[(&str, &str)]) -> Result<Workload, FioError> {
        let mut o = JobOptions {
            name: "j".into(),
            ..JobOptions::default()
        };
        for (k, v) in pairs {
            o.apply(k, Some(v))?;
        }
        let mut w = Workload {
            rw: o.rw,
            bs: RequestSize::fixed(o.bs[0]),
            ..Workload::default()
        };
        plan(&o, &mut w, &mut Vec::new())?;
        Ok(w)
    }

    #[test]
    fn bssplit_and_bsrange_become_mixes() {
        let w = planned(&[("rw", "randread"), ("bssplit", "4k/10:64k/:1m/30")]).unwrap();
        assert_eq!(w.bs.parts(), &[(4096, 10), (65536, 60), (1 << 20, 30)]);
        let w = planned(&[("rw", "randwrite"), ("bssplit", "4k/100,8k/50:16k/50")]).unwrap();
        assert_eq!(w.bs.parts(), &[(8192, 50), (16384, 50)]);
        let w = planned(&[("rw", "read"), ("bsrange", "4k-16k")]).unwrap();
        assert_eq!(
            w.bs.parts(),
            &[(4096, 1), (8192, 1), (12288, 1), (16384, 1)]
        );
        // kb_base applies: 4KiB is 4000 bytes under fio's default base.
        let w = planned(&[("rw", "read"), ("bssplit", "4KiB/50:8k/50")]).unwrap();
        assert_eq!(w.bs.parts()[0].0, 4000);
        assert!(matches!(
            planned(&[("rw", "randrw"), ("bssplit", "4k/100,8k/100")]),
            Err(FioError::NotYet { .. })
        ));
    }

    #[test]
    fn distributions_rates_and_think_time_map_onto_the_workload() {
        let w = planned(&[
            ("rw", "randread"),
            ("random_distribution", "normal:5:0.25"),
            ("percentage_random", "70"),
            ("rate_iops", "500"),
            ("numjobs", "2"),
            ("thinktime", "250"),
            ("thinktime_blocks", "8"),
        ])
        .unwrap();
        let a = &w.setup.access;
        assert_eq!(a.dist.to_string(), "normal:5:0.25");
        assert_eq!(a.random_pct, 70);
        assert_eq!(
            a.rate_iops,
            Some(1000),
            "per job in fio, so twice for two clones"
        );
        assert_eq!(a.think, Some(Dur(Duration::from_micros(250))));
        assert_eq!(a.think_every, 8);
        let w = planned(&[("rw", "write"), ("rate", ",10m")]).unwrap();
        assert_eq!(w.setup.access.rate, Some(ByteSize(10 << 20)));
        let w = planned(&[("rw", "read"), ("rate", ",10m")]).unwrap();
        assert_eq!(
            w.setup.access.rate, None,
            "a write cap does not touch reads"
        );
        let w = planned(&[("rw", "read:12k"), ("bs", "4k")]).unwrap();
        assert_eq!(w.setup.access.stride, Some(ByteSize(16 << 10)));
        let w = planned(&[("rw", "randread:8")]).unwrap();
        assert_eq!(w.setup.access.random_run, 8);
        for bad in [
            &[("rw", "randrw"), ("rate", "1m")][..],
            &[
                ("rw", "randread"),
                ("random_distribution", "zipf:1.2,pareto:0.2"),
            ],
        ] {
            assert!(planned(bad).is_err(), "{bad:?}");
        }
        let mut o = JobOptions::default();
        assert!(o.apply("random_distribution", Some("zipf:0")).is_err());
        assert!(o.apply("thinktime_blocks", Some("0")).is_err());
    }
}
