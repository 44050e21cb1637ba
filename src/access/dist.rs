//! Where random offsets fall: fio's `random_distribution` as one type, [`Distribution`], read
//! and written in fio's grammar (`zipf:1.2:0.5`) for `run --dist`, fio's job files and JSON.

use crate::units::ByteSize;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

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
