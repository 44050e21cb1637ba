//! Timestamps as the input logs write them, turned into seconds so intervals can be measured.
//! Parsing is `jiff`'s strptime over the forms iostat and perfmon print; a zone offset is
//! ignored, since only differences between the timestamps of one log are used.

use jiff::civil::DateTime;

/// The forms tried, in order: ISO 8601 with `T` or a space (optionally fractional seconds),
/// iostat's `%x %X` in the C and en_US locales, and perfmon's `MM/DD/YYYY HH:MM:SS.fff`.
const FORMS: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%m/%d/%y %H:%M:%S%.f",
    "%m/%d/%Y %H:%M:%S%.f",
    "%m/%d/%y %I:%M:%S %p",
    "%m/%d/%Y %I:%M:%S %p",
];

/// `s` without a trailing zone: `Z`, `+0000`, `-05:00`.
fn without_zone(s: &str) -> &str {
    let s = s.trim();
    if let Some(rest) = s.strip_suffix('Z') {
        return rest;
    }
    // A sign after the time of day (position > 10 skips the date's dashes), then digits and
    // at most one colon.
    match s.rfind(['+', '-']) {
        Some(i)
            if i > 10
                && s[i + 1..].len() >= 2
                && s[i + 1..].chars().all(|c| c.is_ascii_digit() || c == ':') =>
        {
            &s[..i]
        }
        _ => s,
    }
}

/// Seconds since the epoch (of the civil time as written; any zone offset is ignored) of the
/// forms `2026-11-21T17:31:28+0000`, `2026-11-21T17:31:28.045Z`, `2026-11-21 17:31:28`,
/// `11/21/26 17:31:26`, `11/21/2026 05:31:26 PM` and perfmon's `11/21/2026 17:31:26.045`.
pub fn parse_seconds(s: &str) -> Option<f64> {
    let s = without_zone(s);
    let dt: DateTime = FORMS.iter().find_map(|f| DateTime::strptime(f, s).ok())?;
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(ts.as_second() as f64 + f64::from(ts.subsec_nanosecond()) / 1e9)
}

#[cfg(test)]
mod tests {
    use super::parse_seconds;

    #[test]
    fn forms() {
        let a = parse_seconds("2026-11-21T17:31:28+0000").unwrap();
        assert_eq!(a, 1_795_282_288.0);
        assert_eq!(parse_seconds("2026-11-21T17:31:29.5Z").unwrap() - a, 1.5);
        assert_eq!(parse_seconds("2026-11-21T17:31:28-05:00").unwrap(), a);
        assert_eq!(parse_seconds("11/21/26 17:31:28").unwrap(), a);
        assert_eq!(parse_seconds("11/21/2026 05:31:28 PM").unwrap(), a);
        assert_eq!(
            parse_seconds("11/21/2026 12:00:00 AM").unwrap(),
            a - 17.0 * 3600.0 - 31.0 * 60.0 - 28.0
        );
        assert_eq!(parse_seconds("11/21/2026 17:31:28.250").unwrap() - a, 0.25);
        assert_eq!(parse_seconds("2026-11-21 17:31:28").unwrap(), a);
        assert!(parse_seconds("yesterday").is_none());
        assert!(parse_seconds("13/45/2026 10:00:00").is_none());
        assert!(parse_seconds("Device r/s w/s").is_none());
    }
}
