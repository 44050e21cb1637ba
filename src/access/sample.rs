//! The generators behind the access vocabulary: a request size drawn from a mix, and a block
//! of the region drawn from a distribution. Zipf and the normal come from `rand_distr`
//! (well-tested samplers); fio's Pareto, the zones and the scattering of popular blocks are
//! a few lines each and written here.

use super::{Distribution, RequestSize, Zone};
use crate::rng::Rng;
use rand_distr::Distribution as _;

impl rand_core::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        (Rng::next_u64(self) >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.fill(dst)
    }
}

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

/// A bijection of [0, n) that scatters the popular ranks of Zipf and Pareto over the region,
/// so the hot blocks are not one contiguous run a drive's cache or read-ahead would favour.
#[derive(Clone, Copy, Debug)]
pub struct Scatter {
    n: u64,
    mask: u64,
    mul: u64,
    add: u64,
}

impl Scatter {
    fn new(n: u64, rng: &mut Rng) -> Self {
        let mask = n.max(2).next_power_of_two() - 1;
        Scatter {
            n,
            mask,
            // An odd multiplier and any addend make x -> (x·mul + add) mod 2^k a bijection;
            // walking the cycle until the value is below n keeps it one on [0, n).
            mul: (rng.next_u64() | 1) & mask | 1,
            add: rng.next_u64() & mask,
        }
    }

    #[inline]
    fn map(&self, mut x: u64) -> u64 {
        loop {
            x = (x.wrapping_mul(self.mul).wrapping_add(self.add)) & self.mask;
            if x < self.n {
                return x;
            }
        }
    }
}

/// Draws block numbers in [0, units) as a [`Distribution`] says.
#[derive(Clone, Debug)]
pub enum Draw {
    /// Uniform.
    Uniform(u64),
    /// Zipf ranks, scattered.
    Zipf(rand_distr::Zipf<f64>, Scatter),
    /// fio's Pareto ranks, scattered.
    Pareto(f64, Scatter),
    /// Normal, redrawn outside the region.
    Normal(rand_distr::Normal<f64>, u64),
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
    /// A generator over `units` blocks of `unit_bytes` each; `rng` picks the scattering.
    /// Refuses zones that do not fit the region.
    pub fn new(
        dist: &Distribution,
        units: u64,
        unit_bytes: u64,
        rng: &mut Rng,
    ) -> Result<Self, String> {
        let units = units.max(1);
        Ok(match dist {
            Distribution::Uniform => Draw::Uniform(units),
            Distribution::Zipf(theta) => Draw::Zipf(
                rand_distr::Zipf::new(units as f64, *theta).map_err(|e| e.to_string())?,
                Scatter::new(units, rng),
            ),
            // fio: rank = n · u^p with p = ln h / ln(1 − h), so P(rank < h·n) = 1 − h.
            Distribution::Pareto(h) => {
                Draw::Pareto(h.ln() / (1.0 - h).ln(), Scatter::new(units, rng))
            }
            Distribution::Normal {
                sigma_pct,
                mean_pct,
            } => Draw::Normal(
                rand_distr::Normal::new(
                    units as f64 * mean_pct / 100.0,
                    units as f64 * sigma_pct / 100.0,
                )
                .map_err(|e| e.to_string())?,
                units,
            ),
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

    /// The popularity rank of the next block for Zipf and Pareto (0 the most popular), before
    /// scattering; the block itself for the others.
    #[inline]
    pub fn rank(&mut self, rng: &mut Rng) -> u64 {
        match self {
            Draw::Uniform(n) => rng.below(*n),
            Draw::Zipf(z, s) => (z.sample(rng) as u64).clamp(1, s.n) - 1,
            Draw::Pareto(p, s) => ((s.n as f64 * unit_f64(rng).powf(*p)) as u64).min(s.n - 1),
            Draw::Normal(d, n) => {
                for _ in 0..64 {
                    let x = d.sample(rng);
                    if x >= 0.0 && x < *n as f64 {
                        return x as u64;
                    }
                }
                (d.mean().max(0.0) as u64).min(*n - 1)
            }
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
            Draw::Zipf(_, s) | Draw::Pareto(_, s) => s.map(r),
            _ => r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_is_a_bijection() {
        for n in [1u64, 2, 3, 1000, 4096, 5000] {
            let s = Scatter::new(n, &mut Rng::new(n, 1));
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = s.map(x) as usize;
                assert!(!seen[y], "n {n}: {x} maps onto a taken {y}");
                seen[y] = true;
            }
        }
    }
}
