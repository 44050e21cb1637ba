//! The workload's access vocabulary, one definition shared by `run` and `fio`: request-size
//! mixes, offset distributions, the random share, strides, rate limits and think time (types,
//! parsing, printing and validation; the generators that draw from them are in [`sample`]).

mod dist;
pub mod replay;
pub mod sample;

#[cfg(test)]
mod tests;

pub use dist::{DIST_ACCEPTED, Distribution, Zone};

use crate::error::Error;
use crate::units::{ByteSize, Dur};
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

    /// A size or mix as `--bs` takes it: as [`FromStr`], but the percentages of a mix whose
    /// every share is given must add up to 100 (`4k/60:64k/50` is refused, not scaled to
    /// 110); fio's `bssplit` and stored documents keep relative weights.
    pub fn from_percentages(s: &str) -> Result<Self, String> {
        let mix: RequestSize = s.parse()?;
        let blank = s
            .split(':')
            .any(|i| i.split_once('/').is_some_and(|(_, w)| w.trim().is_empty()));
        let total: u32 = mix.parts.iter().map(|p| p.1).sum();
        if mix.is_mix() && !blank && total != 100 {
            return Err(format!(
                "'{s}': the percentages add up to {total}, not 100 (leave one blank, as in \
                 4k/60:64k/, for the rest)"
            ));
        }
        Ok(mix)
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

/// How a workload's offsets and pace are drawn (`cli::AccessArgs`'s flags, a fio job's), beyond
/// its direction and size; checked with the rest of the workload (`plan::Workload::plan`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Access {
    /// `--dist`: where random offsets fall.
    #[serde(default)]
    pub dist: Distribution,
    /// `--random-pct`: the share of requests at a random offset, %.
    #[serde(default = "hundred")]
    pub random_pct: u8,
    /// `--random-run`: requests per random offset (the others sequential after it).
    #[serde(default = "one")]
    pub random_run: u32,
    /// `--stride`: a sequential mode's distance from one request's start to the next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<ByteSize>,
    /// Cap the whole run's throughput at SIZE bytes per second (k/m/g = KiB/MiB/GiB per
    /// second: 40m is 41.9 MB/s), shared equally by all workers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<ByteSize>,
    /// `--rate-iops` as given; a plan reads it from its `plan::Schedule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<u64>,
    /// `--arrivals` as given: closed loop or an open loop's process; a plan reads it from its
    /// `plan::Schedule`.
    #[serde(default, skip_serializing_if = "Arrivals::is_closed")]
    pub arrivals: Arrivals,
    /// Open loop (--arrivals): at most N requests in flight per thread; a request due while N
    /// are in flight waits for a completion and counts as late [default: 256, fewer for
    /// requests over 1m].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_inflight: Option<u32>,
    /// `--think`: the pause after every `think_every` requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Dur>,
    /// Requests issued between two pauses of --think.
    #[serde(default = "one")]
    pub think_every: u32,
    /// `--fsync`: an fsync after every N writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u32>,
    /// `--fdatasync`: an fdatasync after every N writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdatasync: Option<u32>,
    /// `--end-fsync`: one fsync once the measured phase has drained.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_fsync: bool,
    /// `--invalidate`: the target dropped from the page cache every pass.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invalidate: bool,
    /// On a file halfpower creates empty or sparse (`--create`), written by one thread: give
    /// its blocks back after every pass over the region (the writes in flight completed
    /// first: an empty file truncated, a sparse one's region punched), so every pass allocates
    /// as the first did (fio's unlink_each_loop, without the unlink). No flag: `experiment
    /// allocation` sets it. Closed loop only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reallocate: bool,
}

/// When a workload's requests are issued (`--arrivals`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Each thread keeps its depth in flight; a rate cap delays the next request until the
    /// earlier ones have completed (closed loop).
    #[default]
    Closed,
    /// Open loop with exponentially distributed gaps (a Poisson process).
    Poisson,
    /// Open loop with even gaps.
    Uniform,
    /// Open loop at a replayed trace's own times (`halfpower replay`; not an option).
    Trace,
}

impl Arrivals {
    /// Whether this is the closed loop.
    pub fn is_closed(&self) -> bool {
        *self == Arrivals::Closed
    }

    /// The name as written on the command line and in documents.
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Closed => "closed",
            Arrivals::Poisson => "poisson",
            Arrivals::Uniform => "uniform",
            Arrivals::Trace => "trace",
        }
    }
}

/// Most requests in flight per thread accepted by `--max-inflight`.
pub const MAX_INFLIGHT: u32 = 4096;

/// The open loop's bound on requests in flight per thread when `--max-inflight` is not given:
/// 256, fewer when that many buffers of the largest request would pass 256 MiB.
pub fn default_max_inflight(max_bs: u64) -> u32 {
    ((256u64 << 20) / max_bs.max(1)).clamp(1, 256) as u32
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
            arrivals: Arrivals::Closed,
            max_inflight: None,
            think: None,
            think_every: 1,
            fsync: None,
            fdatasync: None,
            end_fsync: false,
            invalidate: false,
            reallocate: false,
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
        let what = match self.arrivals {
            Arrivals::Closed => "rate cap".to_string(),
            open => format!("open loop, {} arrivals at", open.name()),
        };
        if let Some(r) = self.rate {
            parts.push(format!("{what} {:.2} MB/s", r.0 as f64 / 1e6));
        }
        if let Some(r) = self.rate_iops {
            parts.push(format!("{what} {r} IOPS"));
        }
        if let Some(n) = self.max_inflight {
            parts.push(format!("at most {n} in flight"));
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
        if self.invalidate {
            parts.push("page cache dropped after each pass".into());
        }
        if self.reallocate {
            parts.push("blocks given back after each pass".into());
        }
        parts.join(", ")
    }

    /// Checks the options against a workload that is `random` or sequential, whose largest
    /// request is `max_bs` bytes, and that `writes` or not.
    pub fn check(&self, random: bool, max_bs: u64, writes: bool) -> crate::error::Result<()> {
        let a = self;
        if a.invalidate && !a.arrivals.is_closed() {
            return Err(Error::invalid(
                "--invalidate",
                "on",
                "--invalidate in a closed loop (leave out --arrivals)",
            ));
        }
        // Each refusal names the one rule the value breaks.
        const ONLY_RANDOM: &str =
            "only with a random --rw (randread, randwrite, randrw): this --rw is sequential";
        if a.random_pct > 100 {
            return Err(Error::invalid(
                "--random-pct",
                a.random_pct,
                "a percentage from 0 to 100",
            ));
        }
        if !random && a.random_pct != 100 {
            return Err(Error::invalid("--random-pct", a.random_pct, ONLY_RANDOM));
        }
        if a.random_run == 0 {
            return Err(Error::invalid("--random-run", 0, "a count of 1 or more"));
        }
        if !random && a.random_run != 1 {
            return Err(Error::invalid("--random-run", a.random_run, ONLY_RANDOM));
        }
        if !random && !a.dist.is_uniform() {
            return Err(Error::invalid("--dist", &a.dist, ONLY_RANDOM));
        }
        if let Some(st) = a.stride {
            if random {
                return Err(Error::invalid(
                    "--stride",
                    st,
                    "only with a sequential --rw (read, write, rw): this --rw is random",
                ));
            }
            if st.0 < max_bs {
                return Err(Error::invalid(
                    "--stride",
                    st,
                    format!("at least the request size ({})", ByteSize(max_bs)),
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
        a.check_arrivals()?;
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
            if t.0 > std::time::Duration::from_secs(60) {
                return Err(Error::invalid("--think", t, "a pause of at most 60s"));
            }
            if a.think_every == 0 {
                return Err(Error::invalid(
                    "--think-every",
                    0,
                    "1 or more requests between two pauses of --think",
                ));
            }
        }
        Ok(())
    }

    /// Refuses open-loop arrivals without a rate, or with think time or syncs (both wait for
    /// the requests in flight: a closed loop's notions), and `--max-inflight` out of range or
    /// without open-loop arrivals.
    fn check_arrivals(&self) -> crate::error::Result<()> {
        let a = self;
        if let Some(n) = a.max_inflight {
            if a.arrivals.is_closed() || n == 0 || n > MAX_INFLIGHT {
                return Err(Error::invalid(
                    "--max-inflight",
                    n,
                    format!(
                        "a count from 1 to {MAX_INFLIGHT}, with --arrivals poisson or uniform \
                         (a closed loop's depth is --qd)"
                    ),
                ));
            }
        }
        if a.arrivals.is_closed() {
            return Ok(());
        }
        if a.arrivals == Arrivals::Trace {
            // `replay`'s own (`Workload::plan_replay`): the trace's times are its rate.
            if a.rate.is_some() || a.rate_iops.is_some() {
                return Err(Error::invalid(
                    "--arrivals",
                    "trace",
                    "no --rate-iops or --rate with a trace's own times (replay's --speed scales \
                     them)",
                ));
            }
        } else if a.rate.is_none() && a.rate_iops.is_none() {
            return Err(Error::invalid(
                "--arrivals",
                a.arrivals.name(),
                "a rate for the arrivals: --rate-iops N or --rate SIZE (per second), or \
                 --arrivals closed",
            ));
        }
        let waits = [
            ("--think", a.think.is_some()),
            ("--fsync", a.fsync.is_some()),
            ("--fdatasync", a.fdatasync.is_some()),
        ];
        if let Some((flag, _)) = waits.iter().find(|(_, on)| *on) {
            return Err(Error::invalid(
                "--arrivals",
                a.arrivals.name(),
                format!(
                    "--arrivals closed with {flag}: it waits for the requests in flight, which \
                     an open loop never does"
                ),
            ));
        }
        Ok(())
    }
}

impl crate::units::Choice for Arrivals {
    const ALL: &'static [Self] = &[Arrivals::Closed, Arrivals::Poisson, Arrivals::Uniform];

    fn name(self) -> &'static str {
        Arrivals::name(self)
    }

    fn help(self) -> &'static str {
        match self {
            Arrivals::Closed => {
                "Each thread keeps its depth in flight; a rate cap delays the next request until the earlier ones have completed (closed loop)"
            }
            Arrivals::Poisson => {
                "Open loop with exponentially distributed gaps (a Poisson process)"
            }
            Arrivals::Uniform => "Open loop with even gaps",
            // A replayed trace's own times: no option names it.
            Arrivals::Trace => "",
        }
    }
}
