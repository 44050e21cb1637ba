//! fio's access options (bssplit, bsrange, random_distribution, percentage_random, rate,
//! rate_iops, rate_min, rate_iops_min, thinktime, thinktime_blocks, fsync, fdatasync,
//! end_fsync) read with fio's grammar into [`FioAccess`]; `mapping` puts them onto
//! halfpower's one access vocabulary ([`crate::access`]).

use super::FioError;
use super::number::{self, KbBase, TimeUnit};
use crate::access::{Distribution, RequestSize};

/// The option names this file reads.
pub const KEYS: [&str; 14] = [
    "fsync",
    "fdatasync",
    "end_fsync",
    "bssplit",
    "bsrange",
    "random_distribution",
    "percentage_random",
    "rate",
    "rate_iops",
    "rate_min",
    "ratemin",
    "rate_iops_min",
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
    /// `random_distribution` with its centre (`zipf:1.2:0.5`); per-direction lists must agree.
    pub dist: Distribution,
    /// `percentage_random`.
    pub percentage_random: [u8; 2],
    /// `rate`, bytes per second (0: none).
    pub rate: [u64; 2],
    /// `rate_iops` (0: none).
    pub rate_iops: [u64; 2],
    /// `rate_min` (`ratemin`), bytes per second (0: none).
    pub rate_min: [u64; 2],
    /// `rate_iops_min` (0: none).
    pub rate_iops_min: [u64; 2],
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
            percentage_random: [100, 100],
            rate: [0, 0],
            rate_iops: [0, 0],
            rate_min: [0, 0],
            rate_iops_min: [0, 0],
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
                        .map_err(|why| FioError::Invalid {
                            option: key.into(),
                            value: s.trim().into(),
                            why,
                        })
                })?;
                if r != w {
                    return Err(FioError::NotYet {
                        option: key.into(),
                        why: "different distributions for reads and writes".into(),
                    });
                }
                self.dist = r;
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
            "rate" | "rate_min" | "ratemin" => {
                let r = per_dir(key, v, [0, 0], |s| number::bytes(key, s, base))?;
                if key == "rate" {
                    self.rate = r;
                } else {
                    self.rate_min = r;
                }
            }
            "rate_iops" => self.rate_iops = per_dir(key, v, [0, 0], |s| number::int(key, s))?,
            "rate_iops_min" => {
                self.rate_iops_min = per_dir(key, v, [0, 0], |s| number::int(key, s))?
            }
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
