//! The workload's access vocabulary, one definition shared by `run` and `fio`: request-size
//! mixes, offset distributions, the random share, strides, rate limits and think time (types,
//! parsing, printing and validation; the generators that draw from them are in [`sample`]).

pub mod sample;
#[cfg(test)]
mod tests;

use crate::error::Error;
use crate::units::{ByteSize, Dur};
use clap::Args;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Request sizes: one size, or a mix of sizes drawn per request by weight (fio's bssplit):
/// `4k/50:16k/30:64k/20` is 50 % 4 KiB, 30 % 16 KiB and 20 % 64 KiB requests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestSize {
    /// (bytes, weight) pairs in the order given; one pair for a single size.
    parts: Vec<(u64, u32)>,
}

impl RequestSize {
    /// A single request size of `bytes`.
    pub fn fixed(bytes: u64) -> Self {
        RequestSize {
            parts: vec![(bytes, 1)],
        }
    }

    /// A mix of `(bytes, weight)` pairs; `None` when empty or every weight is zero.
    pub fn mix(parts: Vec<(u64, u32)>) -> Option<Self> {
        let parts: Vec<(u64, u32)> = parts.into_iter().filter(|p| p.1 > 0).collect();
        (!parts.is_empty()).then_some(RequestSize { parts })
    }

    /// The size when there is only one.
    pub fn single(&self) -> Option<u64> {
        match self.parts.as_slice() {
            [(b, _)] => Some(*b),
            _ => None,
        }
    }

    /// Whether several sizes are mixed.
    pub fn is_mix(&self) -> bool {
        self.single().is_none()
    }

    /// The largest size (what a buffer must hold).
    pub fn max(&self) -> u64 {
        self.parts.iter().map(|p| p.0).max().unwrap_or(0)
    }

    /// Every size of the mix, in the order given.
    pub fn sizes(&self) -> impl Iterator<Item = u64> + '_ {
        self.parts.iter().map(|p| p.0)
    }

    /// The smallest size (the alignment of offsets in a mix).
    pub fn min(&self) -> u64 {
        self.parts.iter().map(|p| p.0).min().unwrap_or(0)
    }

    /// The mean size weighted by the mix, bytes.
    pub fn mean(&self) -> f64 {
        let total: f64 = self.parts.iter().map(|p| p.1 as f64).sum();
        self.parts
            .iter()
            .map(|&(b, w)| b as f64 * w as f64)
            .sum::<f64>()
            / total.max(1.0)
    }

    /// A mix from (bytes, weight) pairs as fio's bssplit writes them: when some weights are
    /// left out, they are percentages and the blanks share what is left of 100 equally; else
    /// they are relative weights. Says why not when a size is 0, the given percentages pass
    /// 100, or every weight is 0.
    pub fn weighted(parts: Vec<(u64, Option<u32>)>) -> Result<Self, String> {
        if parts.iter().any(|p| p.0 == 0) {
            return Err("a request size of 0".into());
        }
        let blanks = parts.iter().filter(|p| p.1.is_none()).count() as u32;
        let given: u32 = parts.iter().filter_map(|p| p.1).sum();
        if blanks > 0 && given > 100 {
            return Err(format!("the percentages add up to {given}, above 100"));
        }
        let rest = 100u32.saturating_sub(given);
        let (mut left, mut k) = (rest, 0);
        let parts = parts
            .into_iter()
            .map(|(b, w)| match w {
                Some(w) => (b, w),
                None => {
                    k += 1;
                    let share = if k == blanks { left } else { rest / blanks };
                    left -= share;
                    (b, share)
                }
            })
            .collect();
        RequestSize::mix(parts).ok_or_else(|| "every weight is 0".into())
    }

    /// The (bytes, weight) pairs.
    pub fn parts(&self) -> &[(u64, u32)] {
        &self.parts
    }
}

impl From<ByteSize> for RequestSize {
    fn from(b: ByteSize) -> Self {
        RequestSize::fixed(b.0)
    }
}

impl FromStr for RequestSize {
    type Err = String;

    /// `4k`, or `SIZE/WEIGHT:SIZE/WEIGHT...`; weights are percentages when some are left
    /// blank (`4k/:64k/20` gives the blanks an equal share of what is left of 100), else
    /// relative weights.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let accepted = "a size such as 4k, or a mix SIZE/PERCENT:SIZE/PERCENT... such as \
                        4k/50:16k/30:64k/20 (k/m/g = KiB/MiB/GiB)";
        if !s.contains('/') && !s.contains(':') {
            return s.parse::<ByteSize>().map(|b| RequestSize::fixed(b.0));
        }
        let mut parts = Vec::new();
        for item in s.split(':') {
            let (size, weight) = item
                .split_once('/')
                .ok_or_else(|| format!("'{item}' in '{s}' has no /PERCENT: use {accepted}"))?;
            let b: ByteSize = size.parse()?;
            let w = if weight.trim().is_empty() {
                None
            } else {
                Some(weight.trim().parse::<u32>().map_err(|_| {
                    format!("'{weight}' in '{s}' is not a whole percentage: use {accepted}")
                })?)
            };
            parts.push((b.0, w));
        }
        RequestSize::weighted(parts).map_err(|why| format!("'{s}': {why}: use {accepted}"))
    }
}

impl fmt::Display for RequestSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(b) = self.single() {
            return write!(f, "{}", ByteSize(b));
        }
        for (i, &(b, w)) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{}/{w}", ByteSize(b))?;
        }
        Ok(())
    }
}

impl Serialize for RequestSize {
    /// A single size as its byte count (as before mixes existed); a mix as its text.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.single() {
            Some(b) => s.serialize_u64(b),
            None => s.serialize_str(&self.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for RequestSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(RequestSize::fixed(n)),
            Raw::S(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// One zone of a zoned distribution: a share of the accesses going to a slice of the region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    /// Share of the accesses, percent.
    pub access_pct: f64,
    /// Size of the slice: percent of the region (`zoned`) or bytes (`zoned_abs`).
    pub size: f64,
}

/// Where random offsets fall in the region: fio's `random_distribution`, with fio's meaning
/// (fio 3.33's lib/zipf.c, lib/gauss.c and io_u.c). Zipf, Pareto and the normal draw a
/// popularity rank and spread it over the region with fio's multiplicative hash, so their
/// popular blocks are scattered, not contiguous; a centre (0 to 1) is where the hash starts:
/// Zipf's and Pareto's most popular block sits at that fraction of the region.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Distribution {
    /// Every request-sized block equally likely.
    #[default]
    Uniform,
    /// Zipf with exponent θ > 0, θ ≠ 1: the k-th most popular block is hit about ∝ 1/k^θ
    /// (fio's approximation of Gray et al.).
    Zipf {
        /// The exponent θ.
        theta: f64,
        /// Where the most popular block sits, 0 to 1 of the region (`None`: a random place).
        center: Option<f64>,
    },
    /// fio's Pareto with 0 < h < 1: a share h of the blocks gets a share 1 − h of the
    /// accesses (0.2: the 80/20 rule).
    Pareto {
        /// The share h.
        h: f64,
        /// Where the most popular block sits, 0 to 1 of the region (`None`: a random place).
        center: Option<f64>,
    },
    /// fio's normal: the mean of 12 uniform draws over the blocks (a bell whose deviation is
    /// 1/12 of the region) moved by a uniform deviation of `dev_pct` % of the region, then
    /// hashed over the region as the others. The popularity of blocks follows the bell; their
    /// place does not (fio's offsets spread over the whole region).
    Normal {
        /// fio's deviation, percent of the region (0 ≤ dev < 100).
        dev_pct: f64,
        /// Where the hash starts, 0 to 1 of the region (`None`: at 0).
        center: Option<f64>,
    },
    /// Zones of the region by percent of its size: `zoned:60/10:30/20:10/70`.
    Zoned(Vec<Zone>),
    /// Zones by absolute size from the region's start: `zoned_abs:60/20m:40/1g`.
    ZonedAbs(Vec<Zone>),
}

impl Distribution {
    /// Whether offsets are uniform.
    pub fn is_uniform(&self) -> bool {
        *self == Distribution::Uniform
    }
}

/// What `--dist` and fio's `random_distribution` accept.
pub const DIST_ACCEPTED: &str = "random (or uniform), zipf[:THETA[:CENTRE]] (THETA > 0 and not \
    1; 1.1 when left out), pareto[:H[:CENTRE]] (0 < H < 1; 0.2), normal[:DEV[:CENTRE]] \
    (deviation 0 ≤ DEV < 100 % of the region; 0), zoned:ACCESS%/SIZE%:... or \
    zoned_abs:ACCESS%/SIZE:... (CENTRE from 0 to 1; accesses and zoned sizes add up to 100)";

fn float(s: &str, what: &str, whole: &str) -> Result<f64, String> {
    s.trim()
        .trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("'{s}' in '{whole}' is not a number ({what}): use {DIST_ACCEPTED}"))
}

fn zones(spec: &str, whole: &str, absolute: bool) -> Result<Vec<Zone>, String> {
    let mut out = Vec::new();
    for item in spec.split(':') {
        let (a, z) = item
            .split_once('/')
            .ok_or_else(|| format!("zone '{item}' in '{whole}' has no '/': use {DIST_ACCEPTED}"))?;
        let access_pct = float(a, "access percentage", whole)?;
        let size = if absolute {
            z.parse::<ByteSize>()?.0 as f64
        } else if z.trim().is_empty() {
            // fio: an empty size takes what the zones before it left of 100 %.
            100.0 - out.iter().map(|z: &Zone| z.size).sum::<f64>()
        } else {
            float(z, "size percentage", whole)?
        };
        if access_pct < 0.0 || size <= 0.0 {
            return Err(format!(
                "zone '{item}' in '{whole}': accesses must be ≥ 0 and sizes > 0"
            ));
        }
        out.push(Zone { access_pct, size });
    }
    let access: f64 = out.iter().map(|z| z.access_pct).sum();
    if (access - 100.0).abs() > 1e-6 {
        return Err(format!(
            "the zones' accesses in '{whole}' add up to {access}, not 100: use {DIST_ACCEPTED}"
        ));
    }
    let size: f64 = out.iter().map(|z| z.size).sum();
    if !absolute && (size - 100.0).abs() > 1e-6 {
        return Err(format!(
            "the zones' sizes in '{whole}' add up to {size} %, not 100: use {DIST_ACCEPTED}"
        ));
    }
    Ok(out)
}

/// fio's `VALUE[:CENTRE]` after a distribution's name (`default` when there is none), the
/// centre checked to lie from 0 to 1.
fn value_and_center(
    arg: Option<&str>,
    default: f64,
    what: &str,
    whole: &str,
) -> Result<(f64, Option<f64>), String> {
    let Some(arg) = arg else {
        return Ok((default, None));
    };
    let (v, c) = match arg.split_once(':') {
        Some((v, c)) => (v, Some(c)),
        None => (arg, None),
    };
    let v = float(v, what, whole)?;
    let center = match c {
        None => None,
        Some(c) => {
            let c = float(c, "centre", whole)?;
            if !(0.0..=1.0).contains(&c) {
                return Err(format!(
                    "centre {c} in '{whole}': use a centre from 0 to 1 (a fraction of the \
                     region, e.g. zipf:1.2:0.5)"
                ));
            }
            Some(c)
        }
    };
    Ok((v, center))
}

impl FromStr for Distribution {
    type Err = String;

    /// fio's grammar: `zipf`, `pareto` and `normal` take an optional value and an optional
    /// centre after it (`zipf:1.2:0.5`), with fio's defaults and ranges.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let (name, arg) = match t.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (t, None),
        };
        match name.to_ascii_lowercase().as_str() {
            "uniform" | "random" if arg.is_none() => Ok(Distribution::Uniform),
            "zipf" => {
                let (theta, center) = value_and_center(arg, 1.1, "θ", s)?;
                if theta <= 0.0 || theta > 100.0 || theta == 1.0 {
                    return Err(format!(
                        "zipf θ {theta} in '{s}': use θ > 0 (up to 100) and not 1 (fio's \
                         generator divides by 1 − θ), e.g. 0.99 or 1.2"
                    ));
                }
                Ok(Distribution::Zipf { theta, center })
            }
            "pareto" => {
                let (h, center) = value_and_center(arg, 0.2, "h", s)?;
                if h <= 0.0 || h >= 1.0 {
                    return Err(format!("pareto h {h} in '{s}': use 0 < h < 1, e.g. 0.2"));
                }
                Ok(Distribution::Pareto { h, center })
            }
            "normal" => {
                let (dev_pct, center) = value_and_center(arg, 0.0, "deviation %", s)?;
                if !(0.0..100.0).contains(&dev_pct) {
                    return Err(format!(
                        "normal deviation {dev_pct} in '{s}': use 0 ≤ deviation < 100 (percent \
                         of the region)"
                    ));
                }
                Ok(Distribution::Normal { dev_pct, center })
            }
            "zoned" | "zoned_abs" => {
                let arg = arg
                    .filter(|a| !a.is_empty())
                    .ok_or_else(|| format!("'{s}' needs zones: use {DIST_ACCEPTED}"))?;
                let abs = name.eq_ignore_ascii_case("zoned_abs");
                let z = zones(arg, s, abs)?;
                Ok(if abs {
                    Distribution::ZonedAbs(z)
                } else {
                    Distribution::Zoned(z)
                })
            }
            _ => Err(format!("'{s}' is not a distribution: use {DIST_ACCEPTED}")),
        }
    }
}

impl fmt::Display for Distribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, zs: &[Zone], abs: bool| {
            for (i, z) in zs.iter().enumerate() {
                if i > 0 {
                    f.write_str(":")?;
                }
                if abs {
                    write!(f, "{}/{}", z.access_pct, ByteSize(z.size as u64))?;
                } else {
                    write!(f, "{}/{}", z.access_pct, z.size)?;
                }
            }
            Ok(())
        };
        let centred = |f: &mut fmt::Formatter<'_>, name: &str, v: f64, c: &Option<f64>| {
            write!(f, "{name}:{v}")?;
            match c {
                Some(c) => write!(f, ":{c}"),
                None => Ok(()),
            }
        };
        match self {
            Distribution::Uniform => f.write_str("uniform"),
            Distribution::Zipf { theta, center } => centred(f, "zipf", *theta, center),
            Distribution::Pareto { h, center } => centred(f, "pareto", *h, center),
            Distribution::Normal { dev_pct, center } => centred(f, "normal", *dev_pct, center),
            Distribution::Zoned(z) => {
                f.write_str("zoned:")?;
                list(f, z, false)
            }
            Distribution::ZonedAbs(z) => {
                f.write_str("zoned_abs:")?;
                list(f, z, true)
            }
        }
    }
}

impl Serialize for Distribution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Distribution {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// How the offsets and the pace of a workload are drawn, beyond its direction and size.
#[derive(Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Access {
    /// Random modes: where offsets fall, as fio's random_distribution: uniform,
    /// zipf[:THETA[:CENTRE]], pareto[:H[:CENTRE]], normal[:DEV%[:CENTRE]],
    /// zoned:ACCESS%/SIZE%:... or zoned_abs:ACCESS%/SIZE:... (docs/fio.md)
    #[arg(long, value_name = "DIST", default_value = "uniform")]
    #[serde(default)]
    pub dist: Distribution,
    /// Random modes: percent of requests at a random offset; the others continue where the
    /// previous request ended (fio's percentage_random).
    #[arg(long, value_name = "N", default_value_t = 100)]
    #[serde(default = "hundred")]
    pub random_pct: u8,
    /// Random modes: requests per random offset; each random request is followed by N − 1
    /// sequential ones (fio's rw=randread:N).
    #[arg(long, value_name = "N", default_value_t = 1)]
    #[serde(default = "one")]
    pub random_run: u32,
    /// Sequential modes: distance from one request's start to the next (default: the request
    /// size; larger leaves gaps, fio's rw=read:GAP).
    #[arg(long, value_name = "SIZE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<ByteSize>,
    /// Cap the whole run's throughput at SIZE bytes per second (k/m/g = KiB/MiB/GiB per
    /// second: 40m is 41.9 MB/s), shared equally by all workers.
    #[arg(long, value_name = "SIZE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<ByteSize>,
    /// Cap the whole run at N I/Os per second, shared equally by all workers.
    #[arg(long, value_name = "N")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<u64>,
    /// Pause DUR (e.g. 500us) after every --think-every requests, once those in flight have
    /// completed (fio's thinktime).
    #[arg(long, value_name = "DUR")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Dur>,
    /// Requests issued between two pauses of --think.
    #[arg(long, value_name = "N", default_value_t = 1)]
    #[serde(default = "one")]
    pub think_every: u32,
    /// After every N writes, let the requests in flight complete and fsync the target (fio's
    /// fsync); the syncs are counted and timed apart (`results.sync`).
    #[arg(long, value_name = "N", conflicts_with = "fdatasync")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u32>,
    /// As --fsync with fdatasync (data only, not metadata that reads do not need).
    #[arg(long, value_name = "N")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdatasync: Option<u32>,
    /// fsync once more when the measured phase has drained (fio's end_fsync).
    #[arg(long)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_fsync: bool,
}

fn hundred() -> u8 {
    100
}

fn one() -> u32 {
    1
}

impl Default for Access {
    fn default() -> Self {
        Access {
            dist: Distribution::Uniform,
            random_pct: 100,
            random_run: 1,
            stride: None,
            rate: None,
            rate_iops: None,
            think: None,
            think_every: 1,
            fsync: None,
            fdatasync: None,
            end_fsync: false,
        }
    }
}

impl Access {
    /// The options that differ from the defaults, in words for a heading (empty when none):
    /// `zipf:1.2, 30 % random, runs of 4, rate cap 40m/s, think 1ms every 4`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.dist.is_uniform() {
            parts.push(self.dist.to_string());
        }
        if self.random_pct != 100 {
            parts.push(format!("{} % random", self.random_pct));
        }
        if self.random_run != 1 {
            parts.push(format!("runs of {}", self.random_run));
        }
        if let Some(s) = self.stride {
            parts.push(format!("stride {s}"));
        }
        if let Some(r) = self.rate {
            parts.push(format!("rate cap {r}/s ({:.1} MB/s)", r.0 as f64 / 1e6));
        }
        if let Some(r) = self.rate_iops {
            parts.push(format!("rate cap {r} IOPS"));
        }
        if let Some(t) = self.think {
            parts.push(format!("think {t} every {}", self.think_every));
        }
        if let Some(n) = self.fsync {
            parts.push(format!("fsync every {n} writes"));
        }
        if let Some(n) = self.fdatasync {
            parts.push(format!("fdatasync every {n} writes"));
        }
        if self.end_fsync {
            parts.push("fsync at the end".into());
        }
        parts.join(", ")
    }

    /// Checks the options against a workload that is `random` or sequential, whose largest
    /// request is `max_bs` bytes, and that `writes` or not.
    pub fn check(&self, random: bool, max_bs: u64, writes: bool) -> crate::error::Result<()> {
        let a = self;
        if a.random_pct > 100 || (!random && a.random_pct != 100) {
            return Err(Error::invalid(
                "--random-pct",
                a.random_pct,
                "a percentage from 0 to 100, with a random --rw (randread, randwrite, randrw)",
            ));
        }
        if a.random_run == 0 || (!random && a.random_run != 1) {
            return Err(Error::invalid(
                "--random-run",
                a.random_run,
                "a count of 1 or more, with a random --rw",
            ));
        }
        if !random && !a.dist.is_uniform() {
            return Err(Error::invalid(
                "--dist",
                &a.dist,
                "uniform with a sequential --rw (use randread, randwrite or randrw for a distribution)",
            ));
        }
        if let Some(st) = a.stride {
            if random || st.0 < max_bs {
                return Err(Error::invalid(
                    "--stride",
                    st,
                    format!(
                        "a size of at least the request size ({}) with a sequential --rw",
                        ByteSize(max_bs)
                    ),
                ));
            }
        }
        if a.rate == Some(ByteSize(0)) || a.rate_iops == Some(0) {
            return Err(Error::invalid(
                if a.rate_iops == Some(0) {
                    "--rate-iops"
                } else {
                    "--rate"
                },
                0,
                "a rate above zero, or no rate option for an uncapped run",
            ));
        }
        for (flag, n) in [("--fsync", a.fsync), ("--fdatasync", a.fdatasync)] {
            if let Some(n) = n {
                if n == 0 || !writes {
                    return Err(Error::invalid(
                        flag,
                        n,
                        "a count of writes of 1 or more, with a workload that writes",
                    ));
                }
            }
        }
        if a.end_fsync && !writes {
            return Err(Error::invalid(
                "--end-fsync",
                "",
                "a workload that writes (--rw write, randwrite, rw or randrw)",
            ));
        }
        if let Some(t) = a.think {
            if a.think_every == 0 || t.0 > std::time::Duration::from_secs(60) {
                return Err(Error::invalid(
                    "--think",
                    t,
                    "a pause of at most 60s, with --think-every 1 or more",
                ));
            }
        }
        Ok(())
    }
}
