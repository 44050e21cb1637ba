//! fio's data patterns (`buffer_pattern`, `verify_pattern`), read with fio 3.33's grammar
//! (lib/pattern.c `parse_and_fill_pattern`), laid over a buffer as fio lays them, and compared
//! with a buffer read back.
//!
//! The grammar: items written one after another with nothing between them, at most
//! [`MAX_PATTERN`] bytes in all:
//!
//! - `0x…` (or `0X…`): hex bytes, the first one from a single digit when the count is odd
//!   (`0xABC` is `0a bc`); a `0` just before another `0x` starts that one (`0xff0x14` is
//!   `ff 14`);
//! - a decimal from −2³¹ to 2³¹ − 1: its bytes little-endian, as few as hold it (`66` is `42`,
//!   `-1024` is `00 fc ff ff`, `0` is `00`); blanks may come before it;
//! - `"…"`: the bytes between the quotes (no escapes);
//! - `'FILE'`: the file's bytes (a regular file, read once, up to what is left of the size);
//! - `%o` (verify_pattern only; fio 3.33 refuses it in buffer_pattern): 8 bytes where each
//!   buffer gets its offset in the file, little-endian; at most [`MAX_OFFSETS`] of them.
//!
//! Where fio 3.33 itself would crash or fill bytes it never set (an empty string or file,
//! `0x0x1`, `0xx1`), the pattern is refused.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Most bytes a pattern holds (fio 3.33's `MAX_PATTERN_SIZE`).
pub const MAX_PATTERN: usize = 512;
/// Most `%o` one pattern holds (fio 3.33's `verify_fmt[8]`).
pub const MAX_OFFSETS: usize = 8;
/// Bytes an offset takes at a `%o`.
const OFFSET_BYTES: usize = 8;
/// The longest decimal fio reads in front of a later `0x` (its `strntol` buffer of 24 bytes).
const STRNTOL_MAX: usize = 23;

/// What a pattern may be written with, said in every error.
pub const GRAMMAR: &str = "a pattern of hex bytes (0xdeadbeef), decimals from -2147483648 to \
     2147483647 (little-endian, as few bytes as hold them), strings in double quotes (\"abc\"), \
     files in single quotes ('FILE') and, in verify_pattern, %o (the block's offset), written \
     one after another, at most 512 bytes";

/// A data pattern: its bytes, and where each `%o` puts the offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The bytes, zeros where a `%o` goes.
    bytes: Vec<u8>,
    /// Where each `%o` starts in `bytes`, in order.
    offsets: Vec<usize>,
}

/// Whether a pattern may hold `%o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formats {
    /// `%o` is the offset (fio's `verify_pattern`).
    Offset,
    /// No format (fio 3.33's `buffer_pattern`).
    None,
}

/// What is wrong with a pattern, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// An empty value.
    #[error("an empty pattern: give {GRAMMAR}")]
    Empty,
    /// A problem at a character of the value (counted from 1).
    #[error("{fault} at character {at}: give {GRAMMAR}")]
    At {
        /// Where, counted from 1.
        at: usize,
        /// What.
        fault: Fault,
    },
}

/// What a pattern's item got wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// Not the start of any item.
    #[error("no hex, decimal, string, file or %o")]
    NoItem,
    /// A decimal outside −2³¹ … 2³¹ − 1.
    #[error("a decimal outside -2147483648 to 2147483647")]
    Range,
    /// A quote without its closing one.
    #[error("a {0} quote that is not closed")]
    Unclosed(&'static str),
    /// An item of no bytes (fio 3.33 crashes on it).
    #[error("an item of no bytes (fio 3.33 aborts on it)")]
    NoBytes,
    /// `0xx…`: fio reads it into bytes it never sets.
    #[error("more than one x after 0 (fio 3.33 fills bytes it never sets)")]
    DoubleX,
    /// More than [`MAX_PATTERN`] bytes.
    #[error("more than 512 bytes")]
    TooLong,
    /// `%o` where no format is taken.
    #[error("%o, which fio 3.33 takes in verify_pattern only")]
    NoFormats,
    /// A `%` that is not `%o`.
    #[error("a format other than %o")]
    UnknownFormat,
    /// More than [`MAX_OFFSETS`] `%o`.
    #[error("more than 8 %o")]
    TooManyOffsets,
    /// A file that cannot be read as a pattern.
    #[error("file {path}: {why}")]
    File {
        /// The path as written.
        path: String,
        /// Why.
        why: String,
    },
    /// A NUL character (fio's value would end there).
    #[error("a NUL character")]
    Nul,
}

/// The parse of one item: the bytes it adds and how far it reaches.
struct Item {
    bytes: Vec<u8>,
    end: usize,
    offset: bool,
}

impl Pattern {
    /// Reads `text` with fio 3.33's grammar; `formats` says whether `%o` is taken.
    pub fn parse(text: &str, formats: Formats) -> Result<Pattern, PatternError> {
        let s = text.as_bytes();
        if s.is_empty() {
            return Err(PatternError::Empty);
        }
        if let Some(nul) = s.iter().position(|&c| c == 0) {
            return Err(PatternError::At {
                at: nul + 1,
                fault: Fault::Nul,
            });
        }
        let mut p = Pattern {
            bytes: Vec::new(),
            offsets: Vec::new(),
        };
        let mut at = 0;
        while at < s.len() {
            let room = MAX_PATTERN - p.bytes.len();
            let item = item(s, at, room, formats, p.offsets.len())
                .map_err(|fault| PatternError::At { at: at + 1, fault })?;
            if item.offset {
                p.offsets.push(p.bytes.len());
            }
            p.bytes.extend_from_slice(&item.bytes);
            at = item.end;
        }
        Ok(p)
    }

    /// Its length, bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Never empty (a parsed pattern holds a byte at least).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Whether it holds a `%o`.
    pub fn has_offsets(&self) -> bool {
        !self.offsets.is_empty()
    }

    /// Fills `buf`, about to be written at byte `offset` of its file, as fio does: the pattern
    /// from the buffer's start, the offset at each `%o` of its first copy, and that copy
    /// repeated to the end. Never inlined: the worker's loop stays as small as without it.
    #[inline(never)]
    pub fn fill(&self, buf: &mut [u8], offset: u64) {
        let n = self.bytes.len().min(buf.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        let o = offset.to_le_bytes();
        for &at in self.offsets.iter().filter(|&&at| at < n) {
            let k = (n - at).min(OFFSET_BYTES);
            buf[at..at + k].copy_from_slice(&o[..k]);
        }
        let mut done = n;
        while done < buf.len() {
            let k = done.min(buf.len() - done);
            buf.copy_within(..k, done);
            done += k;
        }
    }

    /// Whether `buf`, read at byte `offset` of its file, holds what [`Pattern::fill`] writes
    /// there.
    pub fn matches(&self, buf: &[u8], offset: u64) -> bool {
        let n = self.bytes.len().min(buf.len());
        let mut first = [0u8; MAX_PATTERN];
        self.fill(&mut first[..n], offset);
        // The first copy as expected, and every later byte equal to the one a copy earlier.
        buf[..n] == first[..n] && buf[n..] == buf[..buf.len() - n]
    }

    /// Whether 8 bytes in a row of what it writes can all be zero (a `%o` can be): then zeros
    /// read back may be its own data.
    pub fn may_write_zero_words(&self) -> bool {
        let n = self.bytes.len();
        self.has_offsets() || (0..n).any(|start| (0..8).all(|k| self.bytes[(start + k) % n] == 0))
    }
}

/// The item of `s` starting at `at`, with `room` bytes left and `offsets` `%o` so far.
fn item(s: &[u8], at: usize, room: usize, formats: Formats, offsets: usize) -> Result<Item, Fault> {
    if room == 0 {
        return Err(Fault::TooLong);
    }
    let (bytes, end, offset) = match s[at] {
        b'"' => {
            let (inner, end) = quoted(s, at, "double")?;
            (inner.to_vec(), end, false)
        }
        b'\'' => {
            let (inner, end) = quoted(s, at, "single")?;
            (file(&String::from_utf8_lossy(inner), room)?, end, false)
        }
        b'%' => {
            if formats == Formats::None {
                return Err(Fault::NoFormats);
            }
            if s.get(at + 1) != Some(&b'o') {
                return Err(Fault::UnknownFormat);
            }
            if offsets == MAX_OFFSETS {
                return Err(Fault::TooManyOffsets);
            }
            (vec![0; OFFSET_BYTES], at + 2, true)
        }
        _ => number(s, at)?,
    };
    if bytes.is_empty() {
        return Err(Fault::NoBytes);
    }
    if bytes.len() > room {
        return Err(Fault::TooLong);
    }
    Ok(Item { bytes, end, offset })
}

/// The bytes between the quote at `at` and the next one, and where the item ends.
fn quoted<'a>(s: &'a [u8], at: usize, which: &'static str) -> Result<(&'a [u8], usize), Fault> {
    let q = s[at];
    let len = s[at + 1..]
        .iter()
        .position(|&c| c == q)
        .ok_or(Fault::Unclosed(which))?;
    Ok((&s[at + 1..at + 1 + len], at + 2 + len))
}

/// The bytes of file `path`, at most `room` of them (fio 3.33 reads it once).
fn file(path: &str, room: usize) -> Result<Vec<u8>, Fault> {
    use std::io::Read;
    let fault = |why: String| Fault::File {
        path: path.to_string(),
        why,
    };
    let f = std::fs::File::open(path).map_err(|e| fault(e.to_string()))?;
    // A pipe or a device could block or never end: a regular file only.
    if !f.metadata().map_err(|e| fault(e.to_string()))?.is_file() {
        return Err(fault("not a regular file".into()));
    }
    let mut out = Vec::new();
    f.take(room as u64)
        .read_to_end(&mut out)
        .map_err(|e| fault(e.to_string()))?;
    Ok(out)
}

/// A hex run or a decimal at `at`: its bytes, where it ends, and no offset.
fn number(s: &[u8], at: usize) -> Result<(Vec<u8>, usize, bool), Fault> {
    let rest = &s[at..];
    let xs = rest.iter().skip(1).take_while(|c| matches!(c, b'x' | b'X'));
    let xs = if rest[0] == b'0' { xs.count() } else { 0 };
    let digits = rest[(1 + xs).min(rest.len())..]
        .iter()
        .take_while(|c| c.is_ascii_hexdigit())
        .count();
    if xs == 0 || digits == 0 {
        return decimal(s, at).map(|(b, end)| (b, end, false));
    }
    if xs > 1 {
        return Err(Fault::DoubleX);
    }
    let hex = &rest[2..2 + digits];
    // A last 0 just before an x starts the next hex run (fio's "0xff0x14").
    let n = match rest.get(2 + digits) {
        Some(b'x' | b'X') if hex[digits - 1] == b'0' => digits - 1,
        _ => digits,
    };
    let value = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
    let mut bytes = Vec::with_capacity(n.div_ceil(2));
    let (head, tail) = hex[..n].split_at(n % 2);
    bytes.extend(head.iter().map(|&c| value(c)));
    bytes.extend(tail.chunks(2).map(|d| value(d[0]) << 4 | value(d[1])));
    Ok((bytes, at + 2 + n, false))
}

/// A decimal at `at` as fio reads it: `strtol` over the rest, or, when a `0x` comes later, over
/// what lies before it (at most 23 characters after leading spaces, fio's `strntol`). Its
/// bytes little-endian, as few as hold it, and where it ends.
fn decimal(s: &[u8], at: usize) -> Result<(Vec<u8>, usize), Fault> {
    let rest = &s[at..];
    let ahead = rest
        .windows(2)
        .position(|w| w[0] == b'0' && matches!(w[1], b'x' | b'X'));
    let span = match ahead {
        Some(p) if p > 0 => {
            let spaces = rest[..p].iter().take_while(|&&c| c == b' ').count();
            if p - spaces > STRNTOL_MAX || p == spaces {
                return Err(Fault::NoItem);
            }
            &rest[..p]
        }
        _ => rest,
    };
    let (value, len) = strtol(span).ok_or(Fault::NoItem)?;
    let v = i32::try_from(value).map_err(|_| Fault::Range)?;
    let mut u = v as u32;
    let mut bytes = vec![];
    if u == 0 {
        bytes.push(0);
    }
    while u != 0 {
        bytes.push(u as u8);
        u >>= 8;
    }
    Ok((bytes, at + len))
}

/// C's `strtol` in base 10: blanks, a sign, digits. The value (saturated past ±2⁶³) and the
/// characters read; `None` when there is no digit.
fn strtol(s: &[u8]) -> Option<(i64, usize)> {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
        .count();
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = s[i.min(s.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let magnitude = s[i..i + digits].iter().fold(0i64, |v, &d| {
        v.saturating_mul(10).saturating_add((d - b'0') as i64)
    });
    Some((if negative { -magnitude } else { magnitude }, i + digits))
}

/// The pattern as hex runs and `%o`, which reads back as the same pattern.
impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut from = 0;
        let hex = |f: &mut fmt::Formatter<'_>, b: &[u8]| -> fmt::Result {
            if b.is_empty() {
                return Ok(());
            }
            f.write_str("0x")?;
            b.iter().try_for_each(|x| write!(f, "{x:02x}"))
        };
        for &at in &self.offsets {
            hex(f, &self.bytes[from..at])?;
            f.write_str("%o")?;
            from = at + OFFSET_BYTES;
        }
        hex(f, &self.bytes[from..])
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Pattern::parse(&text, Formats::Offset).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
