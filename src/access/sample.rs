//! The generators behind the access vocabulary: a request size drawn from a mix, and a block
//! of the region drawn from a distribution. Zipf, Pareto and the normal follow fio 3.33's
//! generators step by step (lib/zipf.c, lib/gauss.c: the same arithmetic, halfpower's own
//! random numbers), so their offsets fall where fio's do; the zones are fio's too.

use super::{Distribution, RequestSize, Zone};
use crate::rng::Rng;

/// A uniform number in [0, 1) with 53 random bits.
#[inline]
pub fn unit_f64(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Draws request sizes from a [`RequestSize`] by weight.
#[derive(Clone, Debug)]
pub struct SizePicker {
    sizes: Vec<u64>,
    /// Running sums of the weights.
    cum: Vec<u64>,
}

impl SizePicker {
    /// A picker for `rs`.
    pub fn new(rs: &RequestSize) -> Self {
        let mut acc = 0;
        let (sizes, cum) = rs
            .parts()
            .iter()
            .map(|&(b, w)| {
                acc += w as u64;
                (b, acc)
            })
            .unzip();
        SizePicker { sizes, cum }
    }

    /// The size of the next request, bytes.
    #[inline]
    pub fn pick(&self, rng: &mut Rng) -> u64 {
        if self.sizes.len() == 1 {
            return self.sizes[0];
        }
        let total = *self.cum.last().unwrap_or(&1);
        let r = rng.below(total);
        self.sizes[self.cum.partition_point(|&c| c <= r)]
    }
}

/// fio's multiplicative hash of a rank (hash.h's `__hash_u64`, the golden ratio in 64 bits).
#[inline]
pub fn fio_hash(rank: u64) -> u64 {
    rank.wrapping_mul(0x61C8_8646_80B5_83EB)
}

/// 32 random bits, as fio's default generator (tausworthe) gives them.
#[inline]
fn rand32(rng: &mut Rng) -> u32 {
    (rng.next_u64() >> 32) as u32
}

/// Where a hashed rank lands: `(hash + off) mod n`, with fio's wrapping 64-bit sum.
#[inline]
fn place(rank: u64, off: u64, n: u64) -> u64 {
    fio_hash(rank).wrapping_add(off) % n
}

/// fio's start of the hash for a centre: `n · centre` (Zipf, Pareto), or a random 32-bit one
/// without.
fn start_at(n: u64, center: Option<f64>, rng: &mut Rng) -> u64 {
    match center {
        Some(c) => (n as f64 * c) as u64,
        None => rand32(rng) as u64,
    }
}

/// fio's Zipf generator (lib/zipf.c): its constants for `n` blocks and exponent θ.
#[derive(Clone, Debug)]
pub struct Zipf {
    n: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
    off: u64,
}

/// fio sums ζ(n) over at most this many terms (its ZIPF_MAX_GEN).
const ZIPF_MAX_GEN: u64 = 10_000_000;

impl Zipf {
    fn new(n: u64, theta: f64, center: Option<f64>, rng: &mut Rng) -> Self {
        let zetan: f64 = (1..=n.min(ZIPF_MAX_GEN))
            .map(|i| (1.0 / i as f64).powf(theta))
            .sum();
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        Zipf {
            n,
            theta,
            zetan,
            alpha: 1.0 / (1.0 - theta),
            eta: (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
            off: start_at(n, center, rng),
        }
    }

    /// The popularity rank of the next block, 0 the most popular.
    fn rank(&self, rng: &mut Rng) -> u64 {
        let u = rand32(rng) as f64 / u32::MAX as f64;
        let z = u * self.zetan;
        let val = if z < 1.0 {
            1
        } else if z < 1.0 + 0.5f64.powf(self.theta) {
            2
        } else {
            1 + (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        val - 1
    }
}

/// fio's normal (lib/gauss.c): the mean of 12 draws over the blocks, moved by a uniform
/// deviation, then hashed.
#[derive(Clone, Debug)]
pub struct Gauss {
    n: u64,
    /// fio's `stddev`: the width of the uniform deviation, blocks.
    stddev: u64,
    off: u64,
}

/// fio averages this many uniform draws (its GAUSS_ITERS).
const GAUSS_ITERS: u64 = 12;

impl Gauss {
    fn new(n: u64, dev_pct: f64, center: Option<f64>) -> Self {
        let stddev = if dev_pct > 0.0 {
            ((n as f64 * dev_pct / 100.0).ceil() as u64).min(n / 2)
        } else {
            0
        };
        // fio adds n·(centre − 0.5) to the hashed value: a rotation of the region.
        let off = center.map_or(0, |c| {
            let shift = (n as f64 * (c - 0.5)) as i64;
            shift.rem_euclid(n as i64) as u64
        });
        Gauss { n, stddev, off }
    }

    /// The bell's value before hashing, in [0, n].
    fn rank(&self, rng: &mut Rng) -> u64 {
        let n = self.n;
        let sum: u64 = (0..GAUSS_ITERS).map(|_| rng.below(n + 1)).sum();
        let sum = sum.div_ceil(GAUSS_ITERS);
        if self.stddev == 0 {
            return sum;
        }
        let r = rand32(rng) as f64 / (u32::MAX as f64 + 1.0);
        let mut dev = (self.stddev as f64 * r) as i64 - (self.stddev / 2) as i64;
        // fio halves the deviation until the sum stays inside the region.
        while dev != 0 && !(0..n as i64).contains(&(sum as i64 + dev)) {
            dev /= 2;
        }
        (sum as i64 + dev) as u64
    }
}

/// Draws block numbers in [0, units) as a [`Distribution`] says, placing them as fio does.
#[derive(Clone, Debug)]
pub enum Draw {
    /// Uniform.
    Uniform(u64),
    /// fio's Zipf ranks, hashed over the region.
    Zipf(Zipf),
    /// fio's Pareto ranks, hashed: blocks, the exponent, the hash's start.
    Pareto(u64, f64, u64),
    /// fio's normal, hashed.
    Normal(Gauss),
    /// Zones: running sums of the access shares (to 1), and each zone's first block and count.
    Zoned(Vec<f64>, Vec<(u64, u64)>),
}

/// Splits `units` blocks into zones as `zones` says (sizes in percent, or bytes when `bytes`
/// gives the size of a block).
fn zone_blocks(zones: &[Zone], units: u64, bytes: Option<u64>) -> Result<Vec<(u64, u64)>, String> {
    let mut out = Vec::with_capacity(zones.len());
    let mut start = 0u64;
    let mut cum = 0.0;
    for z in zones {
        cum += z.size;
        let end = match bytes {
            None => ((cum / 100.0) * units as f64).round() as u64,
            Some(b) => (cum / b as f64).round() as u64,
        };
        if end <= start || end > units {
            return Err(match bytes {
                None => format!(
                    "a zone of {} % is less than one request of the {units}-request region",
                    z.size
                ),
                Some(_) => format!(
                    "the zones end at request {end} of a region of {units} requests (each zone must \
                     hold at least one request and all must fit in the region)"
                ),
            });
        }
        out.push((start, end - start));
        start = end;
    }
    Ok(out)
}

impl Draw {
    /// A generator over `units` blocks of `unit_bytes` each; `rng` picks where the hash of
    /// Zipf and Pareto starts when no centre is given. Refuses zones that do not fit the region.
    pub fn new(
        dist: &Distribution,
        units: u64,
        unit_bytes: u64,
        rng: &mut Rng,
    ) -> Result<Self, String> {
        let units = units.max(1);
        Ok(match dist {
            Distribution::Uniform => Draw::Uniform(units),
            Distribution::Zipf { theta, center } => {
                Draw::Zipf(Zipf::new(units, *theta, *center, rng))
            }
            // fio: rank = (n − 1) · u^p with p = ln h / ln(1 − h), so P(rank < h·n) ≈ 1 − h.
            Distribution::Pareto { h, center } => Draw::Pareto(
                units,
                h.ln() / (1.0 - h).ln(),
                start_at(units, *center, rng),
            ),
            Distribution::Normal { dev_pct, center } => {
                Draw::Normal(Gauss::new(units, *dev_pct, *center))
            }
            Distribution::Zoned(z) | Distribution::ZonedAbs(z) => {
                let bytes = matches!(dist, Distribution::ZonedAbs(_)).then_some(unit_bytes);
                let blocks = zone_blocks(z, units, bytes)?;
                let mut acc = 0.0;
                let cum = z
                    .iter()
                    .map(|z| {
                        acc += z.access_pct / 100.0;
                        acc
                    })
                    .collect();
                Draw::Zoned(cum, blocks)
            }
        })
    }

    /// The popularity rank of the next block for Zipf and Pareto (0 the most popular) and the
    /// bell's value for the normal, before hashing; the block itself for the others.
    #[inline]
    pub fn rank(&mut self, rng: &mut Rng) -> u64 {
        match self {
            Draw::Uniform(n) => rng.below(*n),
            Draw::Zipf(z) => z.rank(rng),
            Draw::Pareto(n, p, _) => {
                let u = rand32(rng) as f64 / u32::MAX as f64;
                ((*n - 1) as f64 * u.powf(*p)) as u64
            }
            Draw::Normal(g) => g.rank(rng),
            Draw::Zoned(cum, zones) => {
                let r = unit_f64(rng);
                let i = cum.partition_point(|&c| c <= r).min(zones.len() - 1);
                let (start, count) = zones[i];
                start + rng.below(count)
            }
        }
    }

    /// The next block.
    #[inline]
    pub fn unit(&mut self, rng: &mut Rng) -> u64 {
        let r = self.rank(rng);
        match self {
            Draw::Zipf(z) => place(r, z.off, z.n),
            Draw::Pareto(n, _, off) => place(r, *off, *n),
            Draw::Normal(g) => place(r, g.off, g.n),
            _ => r,
        }
    }
}
