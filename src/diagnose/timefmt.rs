//! Timestamps as the input logs write them, turned into seconds so intervals can be measured.

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn hms(t: &str) -> Option<f64> {
    let mut it = t.split(':');
    let h: f64 = it.next()?.trim().parse().ok()?;
    let m: f64 = it.next()?.trim().parse().ok()?;
    let s: f64 = it.next().unwrap_or("0").trim().parse().ok()?;
    (h < 24.0 && m < 60.0 && s < 61.0).then_some(h * 3600.0 + m * 60.0 + s)
}

/// Seconds since the epoch (ignoring any zone offset: only differences are used) of the forms
/// `2026-11-21T17:31:28+0000`, `2026-11-21T17:31:28.045Z`, `2026-11-21 17:31:28`,
/// `11/21/26 17:31:26`, `11/21/2026 05:31:26 PM` and perfmon's `11/21/2026 17:31:26.045`.
pub fn parse_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let (date, rest) = s.split_once(['T', ' '])?;
    let (y, m, d) = if date.contains('-') {
        let mut it = date.split('-');
        (
            it.next()?.parse::<i64>().ok()?,
            it.next()?.parse::<i64>().ok()?,
            it.next()?.parse::<i64>().ok()?,
        )
    } else {
        let mut it = date.split('/');
        let m = it.next()?.parse::<i64>().ok()?;
        let d = it.next()?.parse::<i64>().ok()?;
        let y = it.next()?.parse::<i64>().ok()?;
        (if y < 100 { 2000 + y } else { y }, m, d)
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let rest = rest.trim();
    let (clock, pm, am) = match rest.rsplit_once(' ') {
        Some((c, "PM")) => (c, true, false),
        Some((c, "AM")) => (c, false, true),
        _ => (rest, false, false),
    };
    let clock = clock.trim_end_matches('Z').split(['+']).next()?.trim();
    // A trailing -HHMM zone (after the seconds) is cut off too.
    let clock = match clock.rfind('-') {
        Some(i) if i > 5 => &clock[..i],
        _ => clock,
    };
    let mut t = hms(clock)?;
    if pm && t < 12.0 * 3600.0 {
        t += 12.0 * 3600.0;
    }
    if am && t >= 12.0 * 3600.0 {
        t -= 12.0 * 3600.0;
    }
    Some(days_from_civil(y, m, d) as f64 * 86_400.0 + t)
}

#[cfg(test)]
mod tests {
    use super::parse_seconds;

    #[test]
    fn forms() {
        let a = parse_seconds("2026-11-21T17:31:28+0000").unwrap();
        assert_eq!(a, 1_795_282_288.0);
        assert_eq!(parse_seconds("2026-11-21T17:31:29.5Z").unwrap() - a, 1.5);
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
    }
}
