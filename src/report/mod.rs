//! Results as people and scripts read them: the versioned JSON documents and the terminal
//! tables. Everything here is formatting; nothing measures.

pub mod html;
pub mod model;
pub mod monitor_table;
pub mod profile;
pub mod sweep;
pub mod sweep_table;
pub mod table;

pub use model::{QuickReport, QuickTest, Results, RunReport, SCHEMA_VERSION, TargetInfo};

/// Checks that an output file named by flag `what` can be created: not a directory, in an
/// existing directory. Checked before a run starts, so a long run does not end in an
/// unwritable path.
pub fn check_output(what: &'static str, path: &std::path::Path) -> crate::Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if path.is_dir() || !parent.is_dir() {
        let stdout = if what == "--json" {
            ", or - for stdout"
        } else {
            ""
        };
        Err(crate::Error::invalid(
            what,
            path.display(),
            format!("a writable file path in an existing directory{stdout}"),
        ))
    } else {
        Ok(())
    }
}

/// The current time as RFC 3339 UTC (`2026-11-21T17:02:03Z`).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch as RFC 3339 UTC (civil-from-days, proleptic Gregorian).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::rfc3339(1_795_281_723), "2026-11-21T17:22:03Z");
    }
}
