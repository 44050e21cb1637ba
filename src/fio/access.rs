//! fio's access options (bssplit, bsrange, random_distribution, random_center,
//! percentage_random, rate, rate_iops, rate_min, thinktime, thinktime_blocks) read with fio's
//! grammar, and mapped onto halfpower's one access vocabulary ([`crate::access`]).

use super::FioError;
use super::number::{self, KbBase, TimeUnit};
use super::options::JobOptions;
use crate::access::{Distribution, RequestSize};
use crate::spec::Workload;
use crate::units::{ByteSize, Dur};
use std::time::Duration;

/// The option names this file reads.
pub const KEYS: [&str; 13] = [
    "fsync",
    "fdatasync",
    "end_fsync",
    "bssplit",
    "bsrange",
    "random_distribution",
    "random_center",
    "percentage_random",
    "rate",
    "rate_iops",
    "rate_min",
    "thinktime",
    "thinktime_blocks",
];

/// The access options of one fio job; per-direction values as [read, write].
#[derive(Clone, Debug, PartialEq)]
pub struct FioAccess {
    /// `bssplit`.
    pub bssplit: Option<[RequestSize; 2]>,
    /// `bsrange`, (min, max) bytes.
    pub bsrange: Option<[(u64, u64); 2]>,
    /// `random_distribution` (fio's per-direction lists must agree).
    pub dist: Distribution,
    /// `random_center`, 0 to 1.
    pub center: Option<f64>,
    /// `percentage_random`.
    pub percentage_random: [u8; 2],
    /// `rate`, bytes per second (0: none).
    pub rate: [u64; 2],
    /// `rate_iops` (0: none).
    pub rate_iops: [u64; 2],
    /// `rate_min`, bytes per second (0: none).
    pub rate_min: [u64; 2],
    /// `thinktime`, µs.
    pub thinktime_us: u64,
    /// `thinktime_blocks`.
    pub thinktime_blocks: u32,
    /// `fsync`: after every this many writes (0: never).
    pub fsync: u64,
    /// `fdatasync`: after every this many writes (0: never).
    pub fdatasync: u64,
    /// `end_fsync`.
    pub end_fsync: bool,
}

impl Default for FioAccess {
    fn default() -> Self {
        FioAccess {
            bssplit: None,
            bsrange: None,
            dist: Distribution::Uniform,
            center: None,
            percentage_random: [100, 100],
            rate: [0, 0],
            rate_iops: [0, 0],
            rate_min: [0, 0],
            thinktime_us: 0,
            thinktime_blocks: 1,
            fsync: 0,
            fdatasync: 0,
            end_fsync: false,
        }
    }
}

/// fio's per-direction list `read[,write[,trim]]`: a missing write repeats the read value, an
/// empty one keeps `default`.
fn per_dir<T: Clone>(
    key: &str,
    v: &str,
    default: [T; 2],
    mut one: impl FnMut(&str) -> Result<T, FioError>,
) -> Result<[T; 2], FioError> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(FioError::value(
            key,
            v,
            "up to three values: read,write,trim",
        ));
    }
    let read = if parts[0].trim().is_empty() {
        default[0].clone()
    } else {
        one(parts[0])?
    };
    let write = match parts.get(1).map(|s| s.trim()) {
        None => read.clone(),
        Some("") => default[1].clone(),
        Some(s) => one(s)?,
    };
    Ok([read, write])
}

fn bssplit(key: &str, v: &str, base: KbBase) -> Result<RequestSize, FioError> {
    let mut parts = Vec::new();
    for item in v.split(':') {
        let (size, pct) = item.split_once('/').unwrap_or((item, ""));
        let b = number::bytes(key, size, base)?;
        let w = match pct.trim() {
            "" => None,
            p => Some(number::int(key, p)? as u32),
        };
        parts.push((b, w));
    }
    RequestSize::weighted(parts).map_err(|why| {
        FioError::value(
            key,
            v,
            format!("SIZE/PERCENT:SIZE/PERCENT..., e.g. 4k/50:64k/50 ({why})"),
        )
    })
}

fn bsrange(key: &str, v: &str, base: KbBase) -> Result<(u64, u64), FioError> {
    let (lo, hi) = v
        .split_once('-')
        .ok_or_else(|| FioError::value(key, v, "MIN-MAX, e.g. 4k-64k"))?;
    let (lo, hi) = (number::bytes(key, lo, base)?, number::bytes(key, hi, base)?);
    if lo == 0 || hi < lo {
        return Err(FioError::value(key, v, "MIN-MAX with 0 < MIN ≤ MAX"));
    }
    Ok((lo, hi))
}

impl FioAccess {
    /// Applies one of [`KEYS`].
    pub fn apply(&mut self, key: &str, value: Option<&str>, base: KbBase) -> Result<(), FioError> {
        if key == "end_fsync" {
            self.end_fsync = number::switch(key, value)?;
            return Ok(());
        }
        let v = value.ok_or_else(|| FioError::value(key, "", "a value (write it as key=value)"))?;
        match key {
            "fsync" => self.fsync = number::int(key, v)?,
            "fdatasync" => self.fdatasync = number::int(key, v)?,
            "bssplit" => {
                let d = [RequestSize::fixed(4096), RequestSize::fixed(4096)];
                self.bssplit = Some(per_dir(key, v, d, |s| bssplit(key, s, base))?);
            }
            "bsrange" => {
                let d = [(4096, 4096); 2];
                self.bsrange = Some(per_dir(key, v, d, |s| bsrange(key, s, base))?);
            }
            "random_distribution" => {
                let d = Distribution::Uniform;
                let [r, w] = per_dir(key, v, [d.clone(), d], |s| {
                    s.trim()
                        .parse::<Distribution>()
                        .map_err(|e| FioError::value(key, s, e))
                })?;
                if r != w {
                    return Err(FioError::NotYet {
                        option: key.into(),
                        why: "different distributions for reads and writes".into(),
                    });
                }
                self.dist = r;
            }
            "random_center" => {
                let c = v
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|c| (0.0..=1.0).contains(c))
                    .ok_or_else(|| FioError::value(key, v, "a number from 0 to 1"))?;
                self.center = Some(c);
            }
            "percentage_random" => {
                self.percentage_random = per_dir(key, v, [100, 100], |s| {
                    let n = number::int(key, s)?;
                    u8::try_from(n)
                        .ok()
                        .filter(|p| *p <= 100)
                        .ok_or_else(|| FioError::value(key, s, "a percentage from 0 to 100"))
                })?;
            }
            "rate" | "rate_min" => {
                let r = per_dir(key, v, [0, 0], |s| number::bytes(key, s, base))?;
                if key == "rate" {
                    self.rate = r;
                } else {
                    self.rate_min = r;
                }
            }
            "rate_iops" => self.rate_iops = per_dir(key, v, [0, 0], |s| number::int(key, s))?,
            "thinktime" => self.thinktime_us = number::time_us(key, v, TimeUnit::Micros)?,
            "thinktime_blocks" => {
                let n = number::int(key, v)?;
                self.thinktime_blocks = u32::try_from(n)
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| FioError::value(key, v, "a whole number of 1 or more"))?;
            }
            _ => return Err(FioError::Unsupported(key.to_string())),
        }
        Ok(())
    }
}

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
pub fn plan(o: &JobOptions, w: &mut Workload, notes: &mut Vec<String>) -> Result<(), FioError> {
    let a = &o.access;
    let name = &o.name;
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
    let s = &mut w.setup.access;
    if w.rw.is_random() {
        s.dist = match (&a.dist, a.center) {
            (Distribution::Normal { sigma_pct, .. }, Some(c)) => Distribution::Normal {
                sigma_pct: *sigma_pct,
                mean_pct: c * 100.0,
            },
            (d, _) => d.clone(),
        };
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
    if a.thinktime_us > 0 {
        s.think = Some(Dur(Duration::from_micros(a.thinktime_us)));
        s.think_every = a.thinktime_blocks;
        if o.iodepth > 1 {
            notes.push(format!(
                "job '{name}': thinktime waits for the requests in flight before each pause, as \
                 fio does"
            ));
        }
    }
    Ok(())
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
            ("random_distribution", "normal:5"),
            ("random_center", "0.25"),
            ("percentage_random", "70"),
            ("rate_iops", "500"),
            ("numjobs", "2"),
            ("thinktime", "250"),
            ("thinktime_blocks", "8"),
        ])
        .unwrap();
        let a = &w.setup.access;
        assert_eq!(a.dist.to_string(), "normal:5:25");
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
