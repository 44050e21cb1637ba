//! fio's rules for numbers, sizes, times and switches, exactly as fio reads them: `k/m/g/t/p`
//! multiply by `kb_base` (1024 unless the job says 1000), a suffix containing `ib` takes the
//! other base (`4KiB` is 4000 under the default base, `4ki` is 4096), a bare time is in the
//! option's own unit (seconds for runtime, microseconds for thinktime), and `0x` is hex.

use super::FioError;
use super::keywords::{self, Keywords};
use std::sync::OnceLock;

/// fio's base for size suffixes (`kb_base`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KbBase {
    /// `k` = 1024 (fio's default); `KiB`-style suffixes are then 1000-based.
    #[default]
    Binary,
    /// `k` = 1000; `KiB`-style suffixes are then 1024-based.
    Decimal,
}

impl KbBase {
    /// The `kb_base` option's value.
    pub fn parse(option: &str, v: &str) -> Result<Self, FioError> {
        match v.trim() {
            "1024" => Ok(KbBase::Binary),
            "1000" => Ok(KbBase::Decimal),
            _ => Err(FioError::value(option, v, "1024 or 1000")),
        }
    }

    fn mult(self, suffix: &str) -> u64 {
        let swapped = suffix.contains("ib");
        match (self, swapped) {
            (KbBase::Binary, false) | (KbBase::Decimal, true) => 1024,
            _ => 1000,
        }
    }
}

/// A size: a whole number (decimal or `0x` hex) with fio's optional suffix. `N%` is returned as
/// [`Size::Percent`] where the option takes one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// A share of the file or device, percent.
    Percent(f64),
}

/// Splits `s` into its number and suffix the way fio does: digits (or hex after `0x`), then
/// whatever follows, lower-cased, cut at the first blank.
fn split(s: &str) -> (&str, String, u32) {
    let t = s.trim();
    let (body, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(rest) => (rest, 16),
        None => (t, 10),
    };
    let end = body
        .find(|c: char| !c.is_digit(radix) && c != '.')
        .unwrap_or(body.len());
    let (num, rest) = body.split_at(end);
    let suffix = rest
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    (num, suffix, radix)
}

/// This host's keyword values, read once.
fn host() -> &'static Keywords {
    static HOST: OnceLock<Keywords> = OnceLock::new();
    HOST.get_or_init(Keywords::host)
}

/// Reads `v` with `read` after fio's keywords are replaced and worked out (`8*$mb_memory`), as
/// fio does before it reads any option; an error names the value as written and what the
/// keywords made of it.
fn with_keywords<T>(
    option: &str,
    v: &str,
    read: impl FnOnce(&str) -> Result<T, FioError>,
) -> Result<T, FioError> {
    if !v.contains('$') {
        return read(v);
    }
    let x = keywords::expand(v, host())
        .map_err(|e| FioError::value(option, v, format!("{} ({e})", keywords::ACCEPTED)))?;
    read(&x).map_err(|e| match e {
        FioError::Value {
            option, accepted, ..
        } => FioError::Value {
            option,
            value: format!("{v} (= {x})"),
            accepted,
        },
        other => other,
    })
}

/// A value in parentheses worked out (`(2*4096)`), as fio builds with arithmetic read any
/// number: None when `v` is not in parentheses. fio's own parser there ranks `%` above `*`, `/`
/// and `^` (bc ranks it with `*`), so `%` beside those is refused rather than read one way.
fn parenthesized(option: &str, v: &str) -> Option<Result<u64, FioError>> {
    let t = v.trim();
    t.starts_with('(').then(|| {
        let refuse = |why: String| FioError::value(option, v, why);
        if t.contains('%') && t.contains(['*', '/', '^']) {
            return Err(refuse(format!(
                "{}; % beside * / ^ needs its own parentheses (fio and bc rank it differently)",
                keywords::ACCEPTED
            )));
        }
        let n = keywords::eval(t).map_err(|e| refuse(format!("{} ({e})", keywords::ACCEPTED)))?;
        u64::try_from(n).map_err(|_| refuse(format!("a value from 0 to {}", u64::MAX)))
    })
}

const SIZE_ACCEPTED: &str = "a whole number with an optional suffix k, m, g, t or p (kb_base: 1024 by default; \
     KiB-style suffixes take the other base), e.g. 4k, 1m, 10g";

/// A size option's value (`bs`, `size`, `offset`, `io_size`, `rate`…), `allow_percent` for
/// the options that also take `N%`.
pub fn size(option: &str, v: &str, base: KbBase, allow_percent: bool) -> Result<Size, FioError> {
    with_keywords(option, v, |x| size_of(option, x, base, allow_percent))
}

fn size_of(option: &str, v: &str, base: KbBase, allow_percent: bool) -> Result<Size, FioError> {
    if let Some(n) = parenthesized(option, v) {
        return n.map(Size::Bytes);
    }
    let (num, suffix, radix) = split(v);
    if num.is_empty() {
        return Err(FioError::value(option, v, SIZE_ACCEPTED));
    }
    if suffix.starts_with('%') {
        if !allow_percent {
            return Err(FioError::value(option, v, SIZE_ACCEPTED));
        }
        let p: f64 = num
            .parse()
            .map_err(|_| FioError::value(option, v, "a percentage such as 50%"))?;
        if !(0.0..=100.0).contains(&p) {
            return Err(FioError::value(option, v, "a percentage from 0 to 100"));
        }
        return Ok(Size::Percent(p));
    }
    let n =
        u64::from_str_radix(num, radix).map_err(|_| FioError::value(option, v, SIZE_ACCEPTED))?;
    let pow = match suffix.chars().next() {
        None | Some('b') => 0,
        Some('k') => 1,
        Some('m') => 2,
        Some('g') => 3,
        Some('t') => 4,
        Some('p') => 5,
        Some(_) => return Err(FioError::value(option, v, SIZE_ACCEPTED)),
    };
    let mult = base.mult(&suffix);
    (0..pow)
        .try_fold(n, |acc, _| acc.checked_mul(mult))
        .map(Size::Bytes)
        .ok_or_else(|| FioError::value(option, v, SIZE_ACCEPTED))
}

/// A size that must be bytes (no percentage).
pub fn bytes(option: &str, v: &str, base: KbBase) -> Result<u64, FioError> {
    match size(option, v, base, false)? {
        Size::Bytes(b) => Ok(b),
        Size::Percent(_) => Err(FioError::value(option, v, SIZE_ACCEPTED)),
    }
}

/// The unit a bare time value is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds (runtime, ramp_time, startdelay).
    Seconds,
    /// Milliseconds (bwavgtime, iopsavgtime).
    Millis,
    /// Microseconds (thinktime).
    Micros,
}

/// A time option's value in microseconds. As fio: `us`/`usec` and `ms`/`msec` prefixes, and
/// exactly `s`, `m`, `h` or `d`; a bare number is in `unit`.
pub fn time_us(option: &str, v: &str, unit: TimeUnit) -> Result<u64, FioError> {
    with_keywords(option, v, |x| time_of(option, x, unit))
}

fn time_of(option: &str, v: &str, unit: TimeUnit) -> Result<u64, FioError> {
    let accepted = "a whole number with an optional unit us, ms, s, m, h or d, e.g. 30s";
    let unit_us: u64 = match unit {
        TimeUnit::Seconds => 1_000_000,
        TimeUnit::Millis => 1_000,
        TimeUnit::Micros => 1,
    };
    // In parentheses a time is in the option's own unit too (fio's str_to_decimal scales it
    // to µs and back for the options counted in seconds).
    if let Some(n) = parenthesized(option, v) {
        return n?
            .checked_mul(unit_us)
            .ok_or_else(|| FioError::value(option, v, accepted));
    }
    let (num, suffix, radix) = split(v);
    if num.is_empty() || radix != 10 {
        return Err(FioError::value(option, v, accepted));
    }
    let n: u64 = num
        .parse()
        .map_err(|_| FioError::value(option, v, accepted))?;
    let mult: u64 = if suffix.is_empty() {
        unit_us
    } else if suffix.starts_with("us") {
        1
    } else if suffix.starts_with("ms") {
        1000
    } else {
        match suffix.as_str() {
            "s" => 1_000_000,
            "m" => 60_000_000,
            "h" => 3_600_000_000,
            "d" => 86_400_000_000,
            _ => return Err(FioError::value(option, v, accepted)),
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| FioError::value(option, v, accepted))
}

/// A whole number (`iodepth`, `numjobs`, `loops`, percentages).
pub fn int(option: &str, v: &str) -> Result<u64, FioError> {
    with_keywords(option, v, |x| int_of(option, x))
}

fn int_of(option: &str, v: &str) -> Result<u64, FioError> {
    if let Some(n) = parenthesized(option, v) {
        return n;
    }
    let (num, suffix, radix) = split(v);
    if num.is_empty() || !suffix.is_empty() {
        return Err(FioError::value(option, v, "a whole number"));
    }
    u64::from_str_radix(num, radix).map_err(|_| FioError::value(option, v, "a whole number"))
}

/// A switch: a bare option is on; else `0`/`1` (fio also reads any number as its truth).
pub fn switch(option: &str, v: Option<&str>) -> Result<bool, FioError> {
    match v.map(str::trim) {
        None | Some("") => Ok(true),
        Some(s) => int(option, s)
            .map(|n| n != 0)
            .map_err(|_| FioError::value(option, s, "0 or 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(v: &str) -> u64 {
        bytes("bs", v, KbBase::Binary).unwrap()
    }

    #[test]
    fn sizes_follow_fio_rules() {
        assert_eq!(b("4k"), 4096);
        assert_eq!(b("4K"), 4096);
        assert_eq!(b("4ki"), 4096);
        assert_eq!(b("4KiB"), 4000);
        assert_eq!(b("4kb"), 4096);
        assert_eq!(b("1m"), 1 << 20);
        assert_eq!(b("2g"), 2 << 30);
        assert_eq!(b("512"), 512);
        assert_eq!(b("0x1000"), 4096);
        assert_eq!(bytes("bs", "4k", KbBase::Decimal).unwrap(), 4000);
        assert_eq!(bytes("bs", "4KiB", KbBase::Decimal).unwrap(), 4096);
        assert_eq!(
            size("size", "50%", KbBase::Binary, true).unwrap(),
            Size::Percent(50.0)
        );
        assert!(size("bs", "50%", KbBase::Binary, false).is_err());
        assert!(bytes("bs", "4x", KbBase::Binary).is_err());
        assert!(bytes("bs", "", KbBase::Binary).is_err());
        assert!(bytes("bs", "99999999999p", KbBase::Binary).is_err());
    }

    #[test]
    fn times_follow_fio_rules() {
        use TimeUnit::*;
        assert_eq!(time_us("runtime", "30", Seconds).unwrap(), 30_000_000);
        assert_eq!(time_us("runtime", "30s", Seconds).unwrap(), 30_000_000);
        assert_eq!(time_us("runtime", "2m", Seconds).unwrap(), 120_000_000);
        assert_eq!(time_us("runtime", "500ms", Seconds).unwrap(), 500_000);
        assert_eq!(time_us("thinktime", "50", Micros).unwrap(), 50);
        assert_eq!(time_us("thinktime", "2ms", Micros).unwrap(), 2000);
        assert_eq!(time_us("runtime", "1h", Seconds).unwrap(), 3_600_000_000);
        assert!(time_us("runtime", "10 parsecs", Seconds).is_err());
    }

    #[test]
    fn parentheses_and_keywords() {
        assert_eq!(b("(2*4096)"), 8192);
        assert_eq!(int("iodepth", "(4+4)").unwrap(), 8);
        // A time in parentheses is in the option's own unit, as fio reads it.
        assert_eq!(
            time_us("runtime", "(30)", TimeUnit::Seconds).unwrap(),
            30_000_000
        );
        assert_eq!(time_us("thinktime", "(30)", TimeUnit::Micros).unwrap(), 30);
        let page = Keywords::host().pagesize;
        assert_eq!(b("$pagesize"), page);
        assert_eq!(b("2*$pagesize"), 2 * page);
        for bad in ["(2*7%4)", "(2^64)", "(1 0)", "(4k*2)", "(-1)"] {
            assert!(size("bs", bad, KbBase::Binary, false).is_err(), "{bad}");
        }
        // An error names the value as written and what the keywords made of it.
        let e = size("bs", "$ncpus-99999", KbBase::Binary, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("$ncpus-99999 (= -"), "{e}");
    }

    #[test]
    fn switches_and_ints() {
        assert!(switch("direct", None).unwrap());
        assert!(switch("direct", Some("1")).unwrap());
        assert!(!switch("direct", Some("0")).unwrap());
        assert!(switch("direct", Some("yes")).is_err());
        assert_eq!(int("iodepth", "32").unwrap(), 32);
        assert!(int("iodepth", "32k").is_err());
    }
}
