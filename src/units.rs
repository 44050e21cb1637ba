//! Parsing and printing of the two units users type: sizes (powers of two) and durations.
//!
//! Sizes follow the storage convention of request sizes: `4k` = 4 KiB = 4096 bytes, `1m` = 1 MiB.
//! Throughput, by contrast, is always printed in MB/s = 10^6 bytes/s (the seeds' MBps); that lives
//! in the renderers (`render`), not here.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A byte count typed as a number with an optional k/m/g/t suffix (powers of 1024).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        let digits_end = lower
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(lower.len());
        let (num, unit) = lower.split_at(digits_end);
        let accepted = "a whole number with an optional suffix k, m, g or t (powers of 1024), e.g. 4k, 1m, 10g";
        if num.is_empty() {
            return Err(format!("'{s}' is not a size: use {accepted}"));
        }
        let n: u64 = num
            .parse()
            .map_err(|_| format!("'{s}' is too large a size: use {accepted}"))?;
        let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
            "" => 0,
            "k" => 10,
            "m" => 20,
            "g" => 30,
            "t" => 40,
            _ => {
                return Err(format!(
                    "unknown size unit '{unit}' in '{s}': use {accepted}"
                ));
            }
        };
        n.checked_mul(1u64 << shift)
            .map(ByteSize)
            .ok_or_else(|| format!("'{s}' is too large a size: use {accepted}"))
    }
}

impl fmt::Display for ByteSize {
    /// Prints the shortest exact form: `4k`, `1m`, `1536` (bytes when no suffix is exact).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        for (shift, suffix) in [(40, "t"), (30, "g"), (20, "m"), (10, "k")] {
            if n != 0 && n % (1u64 << shift) == 0 {
                return write!(f, "{}{}", n >> shift, suffix);
            }
        }
        write!(f, "{n}")
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(ByteSize(n)),
            Raw::S(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A duration typed as a number with a unit: `ms`, `s`, `m` (minutes) or `h`; a bare number is seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Dur(pub Duration);

impl FromStr for Dur {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let accepted = "a number with unit us, ms, s, m or h, e.g. 20us, 500ms, 10s, 2m";
        if lower.starts_with('-') {
            return Err(format!(
                "'{s}' is negative: a duration is zero or more: use {accepted}"
            ));
        }
        let split = lower
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(lower.len());
        let (num, unit) = lower.split_at(split);
        let n: f64 = num
            .parse()
            .map_err(|_| format!("'{s}' is not a duration: use {accepted}"))?;
        let secs = match unit {
            "us" | "µs" => n / 1e6,
            "ms" => n / 1000.0,
            "" | "s" => n,
            "m" | "min" => n * 60.0,
            "h" => n * 3600.0,
            _ => {
                return Err(format!(
                    "unknown duration unit '{unit}' in '{s}': use {accepted}"
                ));
            }
        };
        if !secs.is_finite() || !(0.0..=31_536_000.0).contains(&secs) {
            return Err(format!(
                "'{s}' is out of range: use {accepted} (at most a year)"
            ));
        }
        Ok(Dur(Duration::from_secs_f64(secs)))
    }
}

impl fmt::Display for Dur {
    /// The largest unit that prints the duration whole: `10s`, `1500ms`, `20us` (to the µs).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0.as_micros();
        if us % 1_000_000 == 0 {
            write!(f, "{}s", us / 1_000_000)
        } else if us % 1000 == 0 {
            write!(f, "{}ms", us / 1000)
        } else {
            write!(f, "{us}us")
        }
    }
}

impl Serialize for Dur {
    /// Durations are serialized as seconds (a float), the unit every JSON figure uses.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0.as_secs_f64())
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(f64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) if n.is_finite() && n >= 0.0 => Ok(Dur(Duration::from_secs_f64(n))),
            Raw::N(n) => Err(serde::de::Error::custom(format!(
                "{n} is not a duration in seconds"
            ))),
            Raw::S(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A throughput typed as a number with an optional unit: `550MB/s`, `1.2GB/s`, `800MiB/s`,
/// `550` (MB/s). Decimal units (kB, MB, GB) are powers of 1000, as the seeds' MBps; binary
/// units (KiB, MiB, GiB) powers of 1024. Holds bytes per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

impl FromStr for Rate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let accepted = "a throughput above zero such as 550MB/s, 1.2GB/s or 800MiB/s (a bare number is MB/s = 10^6 bytes/s)";
        let t = s.trim();
        let end = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(end);
        let n: f64 = num
            .parse()
            .map_err(|_| format!("'{s}' is not a throughput: use {accepted}"))?;
        let unit = unit.trim().trim_end_matches("/s").trim_end_matches("ps");
        let scale = match unit.to_ascii_lowercase().as_str() {
            "" | "mb" | "m" => 1e6,
            "b" => 1.0,
            "kb" | "k" => 1e3,
            "gb" | "g" => 1e9,
            "kib" => 1024.0,
            "mib" => 1048576.0,
            "gib" => 1073741824.0,
            _ => return Err(format!("unknown throughput unit in '{s}': use {accepted}")),
        };
        if n <= 0.0 || !n.is_finite() {
            return Err(format!("'{s}' is not a throughput: use {accepted}"));
        }
        Ok(Rate(n * scale))
    }
}

impl fmt::Display for Rate {
    /// Prints MB/s (10^6 bytes per second).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}MB/s", self.0 / 1e6)
    }
}

/// Formats a latency given in nanoseconds with a unit that keeps 3–4 significant digits.
pub fn fmt_latency_ns(ns: f64) -> String {
    if !ns.is_finite() {
        "-".to_string()
    } else if ns < 1_000.0 {
        format!("{ns:.0}ns")
    } else if ns < 1_000_000.0 {
        format!("{:.1}µs", ns / 1e3)
    } else if ns < 1_000_000_000.0 {
        format!("{:.2}ms", ns / 1e6)
    } else {
        format!("{:.2}s", ns / 1e9)
    }
}

/// An enum a user names on the command line (`--rw`, `--engine`, …): every value the user may
/// name with its name and a line of help. The command line builds its parser from this, so the
/// types below it need no command-line crate.
pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value a user may name, in the order help lists them.
    const ALL: &'static [Self];
    /// The name as typed.
    fn name(self) -> &'static str;
    /// What it means, in one line for `--help`.
    fn help(self) -> &'static str;
    /// The value named `s` (ASCII case ignored), if any.
    fn named_ignoring_case(s: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_decimal_unless_binary() {
        assert_eq!("550MB/s".parse::<Rate>().unwrap().0, 550e6);
        assert_eq!("550".parse::<Rate>().unwrap().0, 550e6);
        assert_eq!("8.5MBps".parse::<Rate>().unwrap().0, 8.5e6);
        assert_eq!("1.2 GB/s".parse::<Rate>().unwrap().0, 1.2e9);
        assert_eq!("800MiB/s".parse::<Rate>().unwrap().0, 800.0 * 1048576.0);
        for bad in ["", "fast", "0", "-5MB/s", "5 furlongs/s", "1.2.3"] {
            let err = bad.parse::<Rate>().unwrap_err();
            assert!(err.contains("550MB/s"), "{bad}: {err}");
        }
    }

    #[test]
    fn sizes_are_powers_of_two() {
        assert_eq!("4k".parse::<ByteSize>().unwrap().0, 4096);
        assert_eq!("4K".parse::<ByteSize>().unwrap().0, 4096);
        assert_eq!("1m".parse::<ByteSize>().unwrap().0, 1 << 20);
        assert_eq!("1MiB".parse::<ByteSize>().unwrap().0, 1 << 20);
        assert_eq!("2g".parse::<ByteSize>().unwrap().0, 2 << 30);
        assert_eq!("512".parse::<ByteSize>().unwrap().0, 512);
        assert_eq!("0".parse::<ByteSize>().unwrap().0, 0);
    }

    #[test]
    fn bad_sizes_name_the_value_and_the_accepted_form() {
        for bad in [
            "",
            "k",
            "4q",
            "-1",
            "1.5k",
            "99999999999999999999",
            "16777216t",
        ] {
            let err = bad.parse::<ByteSize>().unwrap_err();
            assert!(err.contains("k, m, g or t"), "{bad}: {err}");
        }
    }

    #[test]
    fn sizes_print_back_exactly() {
        for s in ["4k", "1m", "3g", "1536", "1t"] {
            assert_eq!(s.parse::<ByteSize>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn durations() {
        assert_eq!(
            "500ms".parse::<Dur>().unwrap().0,
            Duration::from_millis(500)
        );
        assert_eq!("10s".parse::<Dur>().unwrap().0, Duration::from_secs(10));
        assert_eq!("10".parse::<Dur>().unwrap().0, Duration::from_secs(10));
        assert_eq!("2m".parse::<Dur>().unwrap().0, Duration::from_secs(120));
        assert_eq!(
            "1.5s".parse::<Dur>().unwrap().0,
            Duration::from_millis(1500)
        );
        for bad in ["", "s", "10x", "-1s", "1e999s", "nan"] {
            assert!(bad.parse::<Dur>().is_err(), "{bad}");
        }
        assert_eq!("1500ms".parse::<Dur>().unwrap().to_string(), "1500ms");
        assert_eq!("20us".parse::<Dur>().unwrap().0, Duration::from_micros(20));
        assert_eq!("20µs".parse::<Dur>().unwrap().to_string(), "20us");
        assert_eq!("0".parse::<Dur>().unwrap().to_string(), "0s");
    }

    #[test]
    fn serde_round_trip() {
        let b: ByteSize = serde_json::from_str("\"64k\"").unwrap();
        assert_eq!(b.0, 65536);
        assert_eq!(serde_json::to_string(&b).unwrap(), "65536");
        let d: Dur = serde_json::from_str("2.5").unwrap();
        assert_eq!(d.0, Duration::from_millis(2500));
    }

    #[test]
    fn latency_units() {
        assert_eq!(fmt_latency_ns(850.0), "850ns");
        assert_eq!(fmt_latency_ns(12_340.0), "12.3µs");
        assert_eq!(fmt_latency_ns(2_500_000.0), "2.50ms");
    }
}
