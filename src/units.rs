//! Parsing and printing of the units users type, one parser per kind of quantity: sizes
//! (powers of two), durations and throughputs (powers of ten).
//!
//! Sizes follow the storage convention of request sizes: `4k` = 4 KiB = 4096 bytes, `1m` = 1 MiB.
//! Throughput, by contrast, is MB/s = 10^6 bytes/s (the seeds' MBps) wherever it is typed or
//! printed: `40m` as a rate is 40 MB/s; a unit written out (`MB/s`, `MiB/s`, `GB/s`) is taken
//! as written.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A typed quantity split where its number ends: `1.5m` is (`1.5`, `m`).
fn number_and_unit(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s.split_at(end)
}

/// A byte count typed as a number with an optional k/m/g/t suffix (powers of 1024).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    /// A whole or decimal number with an optional suffix: `4k`, `1.5m` (1536 KiB), `64KiB`;
    /// the bytes it names must be whole.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let accepted = "a number with an optional suffix k, m, g or t (KiB, MiB, GiB, TiB: \
                        powers of 1024), e.g. 4k, 1m, 1.5g, 10g";
        let lower = s.trim().to_ascii_lowercase();
        if lower.starts_with('-') {
            return Err(format!(
                "'{s}' is negative: a size is 0 or more: use {accepted}"
            ));
        }
        let (num, unit) = number_and_unit(&lower);
        let shift = match unit.trim().trim_end_matches("ib").trim_end_matches('b') {
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
        let too_large = || format!("'{s}' is too large a size: use {accepted}");
        if !num.contains('.') {
            let n: u64 = match num.parse() {
                Ok(n) => n,
                Err(_) if num.is_empty() => {
                    return Err(format!("'{s}' is not a size: use {accepted}"));
                }
                Err(_) => return Err(too_large()),
            };
            return n
                .checked_mul(1u64 << shift)
                .map(ByteSize)
                .ok_or_else(too_large);
        }
        let n: f64 = num
            .parse()
            .map_err(|_| format!("'{s}' is not a size: use {accepted}"))?;
        let bytes = n * (1u64 << shift) as f64;
        if bytes >= u64::MAX as f64 {
            return Err(too_large());
        }
        if bytes.fract() != 0.0 {
            return Err(format!(
                "'{s}' is not a whole number of bytes ({bytes}): use {accepted}"
            ));
        }
        Ok(ByteSize(bytes as u64))
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
        let (num, unit) = number_and_unit(&lower);
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
        let accepted = "a throughput above zero such as 550MB/s, 1.2GB/s, 800MiB/s or 40m \
                        (k, m, g: 10^3, 10^6, 10^9 bytes/s; a bare number is MB/s = 10^6 bytes/s)";
        let t = s.trim();
        if t.starts_with('-') {
            return Err(format!("'{s}' is negative: use {accepted}"));
        }
        let (num, unit) = number_and_unit(t);
        let n: f64 = num
            .parse()
            .map_err(|_| format!("'{s}' is not a throughput: use {accepted}"))?;
        let unit = unit.trim().to_ascii_lowercase();
        let unit = unit.trim_end_matches("/s").trim_end_matches("ps");
        let scale = match unit {
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

/// A duration above zero, such as a run's `--time`: `0` is refused as typed.
pub fn duration_above_zero(s: &str) -> Result<Dur, String> {
    let d: Dur = s.parse()?;
    if d.0.is_zero() {
        return Err(format!(
            "'{s}' is no time: use a duration above zero, e.g. 10s"
        ));
    }
    Ok(d)
}

/// A number above zero, or why not, with `accepted` said after the value.
fn above_zero(s: &str, accepted: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) if v < 0.0 => Err(format!("'{s}' is negative: use {accepted}")),
        _ => Err(format!("'{s}' is not {accepted}")),
    }
}

/// A percentage above zero, such as a threshold: `2`, `0.5`, `2%`.
pub fn percent(s: &str) -> Result<f64, String> {
    above_zero(s, "a percentage above 0, e.g. 2 or 0.5")
}

/// A factor above zero, such as a speed: `2` (twice as fast), `0.5`.
pub fn factor(s: &str) -> Result<f64, String> {
    above_zero(s, "a factor above 0, e.g. 2 or 0.5")
}

/// A count typed as a whole number, 0 or more: `--qd 8`, `--rate-iops 2000`.
pub fn count<T: FromStr>(s: &str) -> Result<T, String> {
    let accepted = "a whole number, 0 or more, e.g. 8";
    if s.trim().starts_with('-') {
        return Err(format!("'{s}' is negative: use {accepted}"));
    }
    s.trim()
        .parse()
        .map_err(|_| format!("'{s}' is not {accepted} (or is too large)"))
}

/// A whole percentage from 0 to 100: `--read-pct 70`.
pub fn whole_pct(s: &str) -> Result<u8, String> {
    let accepted = "a whole percentage from 0 to 100, e.g. 70";
    match s.trim().trim_end_matches('%').parse::<i64>() {
        Ok(v) if (0..=100).contains(&v) => Ok(v as u8),
        Ok(_) => Err(format!("'{s}' is outside 0 to 100: use {accepted}")),
        Err(_) => Err(format!("'{s}' is not {accepted}")),
    }
}

/// Formats a latency given in nanoseconds with a unit that keeps 3–4 significant digits.
pub fn fmt_latency_ns(ns: f64) -> String {
    // Each unit up to where its rounding would print 1000 of it (999 960 ns is 1.00ms, not
    // 1000.0µs).
    if !ns.is_finite() {
        "-".to_string()
    } else if ns < 999.5 {
        format!("{ns:.0}ns")
    } else if ns < 999_950.0 {
        format!("{:.1}µs", ns / 1e3)
    } else if ns < 999_995_000.0 {
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
        // A rate's suffix is decimal, as its unit is: 40m is 40 MB/s, not 40 MiB/s.
        assert_eq!("40m".parse::<Rate>().unwrap().0, 40e6);
        assert_eq!("1.5m".parse::<Rate>().unwrap().0, 1.5e6);
        assert_eq!("40 MB/s".parse::<Rate>().unwrap().0, 40e6);
        assert_eq!("3.5GB/s".parse::<Rate>().unwrap().0, 3.5e9);
        let neg = "-5".parse::<Rate>().unwrap_err();
        assert!(neg.starts_with("'-5' is negative"), "{neg}");
        for bad in ["", "fast", "0", "-5MB/s", "5 furlongs/s", "1.2.3"] {
            let err = bad.parse::<Rate>().unwrap_err();
            assert!(err.contains("550MB/s"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_latency_takes_the_unit_its_rounding_reaches() {
        assert_eq!(fmt_latency_ns(999.4), "999ns");
        assert_eq!(fmt_latency_ns(999.6), "1.0µs");
        assert_eq!(fmt_latency_ns(999_940.0), "999.9µs");
        assert_eq!(fmt_latency_ns(999_960.0), "1.00ms");
        assert_eq!(fmt_latency_ns(999_996_000.0), "1.00s");
        assert_eq!(fmt_latency_ns(f64::NAN), "-");
    }

    #[test]
    fn counts_and_whole_percentages_say_what_they_take() {
        assert_eq!((count::<u32>("8"), whole_pct("70%")), (Ok(8), Ok(70)));
        let err = count::<u64>("-5").unwrap_err();
        assert_eq!(
            err,
            "'-5' is negative: use a whole number, 0 or more, e.g. 8"
        );
        assert!(
            count::<u32>("1.5")
                .unwrap_err()
                .contains("whole number, 0 or more")
        );
        assert!(count::<u8>("300").unwrap_err().contains("too large"));
        for bad in ["101", "-1", "x"] {
            assert!(
                whole_pct(bad).unwrap_err().contains("from 0 to 100"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_time_of_zero_is_refused_as_typed() {
        assert_eq!(
            duration_above_zero("0"),
            Err("'0' is no time: use a duration above zero, e.g. 10s".to_string())
        );
        assert!(duration_above_zero("-1s").unwrap_err().contains("negative"));
        assert_eq!(
            duration_above_zero("1ms"),
            Ok(Dur(Duration::from_millis(1)))
        );
    }

    #[test]
    fn percentages_and_factors_are_above_zero() {
        assert_eq!(
            (percent("2"), percent("0.5%"), factor("2")),
            (Ok(2.0), Ok(0.5), Ok(2.0))
        );
        for bad in ["-3", "0", "x", "", "inf", "NaN"] {
            let err = percent(bad).unwrap_err();
            assert!(err.starts_with(&format!("'{bad}' is")), "{err}");
            assert!(err.contains("a percentage above 0"), "{err}");
            assert!(factor(bad).unwrap_err().contains("a factor above 0"));
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
        // Decimals where the bytes come out whole.
        assert_eq!("1.5k".parse::<ByteSize>().unwrap().0, 1536);
        assert_eq!("1.5m".parse::<ByteSize>().unwrap().0, 3 << 19);
        assert_eq!("0.25 GiB".parse::<ByteSize>().unwrap().0, 1 << 28);
        let neg = "-5m".parse::<ByteSize>().unwrap_err();
        assert!(neg.starts_with("'-5m' is negative"), "{neg}");
    }

    #[test]
    fn bad_sizes_name_the_value_and_the_accepted_form() {
        for bad in [
            "",
            "k",
            "4q",
            "-1",
            "-5m",
            "1.3k",
            "0.5",
            "1.2.3",
            "99999999999999999999",
            "1e30",
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
