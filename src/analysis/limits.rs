//! The seeds' thresholds and the consistency checks between counters, in one place for
//! `monitor`'s flags and `diagnose`'s verdicts.

/// Busy share above which a disk is a bottleneck candidate, % (003: "above 85 %").
pub const BUSY_PCT: f64 = 85.0;
/// Mean requests in the system per disk above which a busy disk is a bottleneck (003: "greater
/// than 2 per disk").
pub const QUEUE_PER_DISK: f64 = 2.0;
/// Hard paging rate that rules the disks out, pages/s (003: "less than 5 per second").
pub const PAGING_PER_S: f64 = 5.0;

/// U > N: the busy share (0..1) exceeds the mean number in the system, which Little's law
/// forbids (whenever the device is busy at least one request is in it). Small intervals of
/// tick-granular accounting are tolerated.
pub fn busy_beyond_population(util: f64, mean_in_system: f64) -> bool {
    util > mean_in_system + 0.05 && util > 0.05
}

/// S > R: a service time above the response time that contains it. `ios`, when known, is the
/// interval's completions: diskstats keeps each time sum in whole ms, so the mean response may be
/// short by up to 1 ms spread over them.
pub fn service_beyond_response(service_ms: f64, response_ms: f64, ios: Option<f64>) -> bool {
    let rounding = ios.filter(|n| *n > 0.0).map_or(0.0, |n| 1.0 / n);
    service_ms > response_ms * 1.05 + 0.01 + rounding
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consistency_checks() {
        assert!(busy_beyond_population(0.9, 0.5));
        assert!(!busy_beyond_population(0.9, 2.0));
        assert!(!busy_beyond_population(0.04, 0.0));
        assert!(service_beyond_response(9.0, 5.0, None));
        assert!(
            !service_beyond_response(0.2, 0.0, Some(2.0)),
            "whole-ms rounding"
        );
        assert!(service_beyond_response(0.2, 0.0, Some(1000.0)));
    }
}
