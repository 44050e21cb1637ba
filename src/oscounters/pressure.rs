//! /proc/pressure/{io,memory} (PSI): the share of time tasks stalled on a resource.

use serde::{Deserialize, Serialize};

/// Cumulative stall time of one resource since boot, µs (`total=` of the some/full lines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pressure {
    /// Time at least one task stalled, µs.
    pub some_us: u64,
    /// Time all non-idle tasks stalled at once, µs.
    pub full_us: u64,
}

/// Parses a PSI file's text; `None` when the `some` line is missing or malformed.
pub fn parse(text: &str) -> Option<Pressure> {
    let total = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))?
            .split_whitespace()
            .find_map(|f| f.strip_prefix("total="))?
            .parse::<u64>()
            .ok()
    };
    Some(Pressure {
        some_us: total("some ")?,
        full_us: total("full ").unwrap_or(0),
    })
}

/// Reads /proc/pressure/`resource` (`io`, `memory`, `cpu`); `None` where PSI is absent.
pub fn read(resource: &str) -> Option<Pressure> {
    parse(&std::fs::read_to_string(format!("/proc/pressure/{resource}")).ok()?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn totals_of_some_and_full() {
        let p = super::parse(
            "some avg10=20.73 avg60=10.64 avg300=5.85 total=233859610\nfull avg10=19.85 avg60=10.17 avg300=5.49 total=218109599\n",
        )
        .unwrap();
        assert_eq!(p.some_us, 233_859_610);
        assert_eq!(p.full_us, 218_109_599);
        assert!(super::parse("garbage").is_none());
    }
}
