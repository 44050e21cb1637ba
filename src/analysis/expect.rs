//! What a request should take: from a profile's fitted lines (`diagnose --profile`), or the
//! typical service times of a device class when there is no profile.

use crate::model::profile::{Pattern, Profile};
use crate::model::{DeviceClass, Direction};

/// Expected service time for the mix, ms: reads and writes weighted by `read_share`, each from
/// the random column of `profile` (the upper expectation: a log does not say how sequential the
/// work was), else any column of that direction. A line with a negative slope is no model of a
/// transfer and is passed over. None when the profile has no usable line of either direction.
pub fn profile_ms(profile: &Profile, read_share: f64, kib: f64) -> Option<f64> {
    let pick = |rw: Direction| {
        profile
            .fits
            .iter()
            .find(|f| f.rw == rw && f.pattern == Pattern::Random && f.usable())
            .or_else(|| profile.fits.iter().find(|f| f.rw == rw && f.usable()))
            .map(|f| f.at(kib))
    };
    match (pick(Direction::Read), pick(Direction::Write)) {
        (Some(r), Some(w)) => Some(read_share * r + (1.0 - read_share) * w),
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

/// What is typical for a device class: the one table behind every comparison with a class
/// (a 7200 rpm disk, a SATA SSD, a PCIe 3 NVMe drive; deliberately round and lax).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Typical {
    /// Fixed cost of one request without a queue (seek and rotation, or controller), ms.
    pub overhead_ms: f64,
    /// Transfer rate within one request, MB/s: with `overhead_ms`, the service time of a
    /// request of any size (diagnose without a profile).
    pub transfer_mb_s: f64,
    /// Peak figures at depth for the quick suite: (sequential 1 MiB MB/s, random 4 KiB reads
    /// per second at depth 32); None where the class does not tell (virtual, network, stacked
    /// and memory-backed devices depend on what is behind them).
    pub peak: Option<(f64, f64)>,
}

/// The typical figures of `class`.
pub fn typical(class: DeviceClass) -> Typical {
    let t = |overhead_ms, transfer_mb_s, peak| Typical {
        overhead_ms,
        transfer_mb_s,
        peak,
    };
    match class {
        DeviceClass::Hdd => t(12.0, 120.0, Some((150.0, 300.0))),
        DeviceClass::Unknown => t(12.0, 120.0, None),
        DeviceClass::Ssd => t(0.3, 400.0, Some((500.0, 80_000.0))),
        DeviceClass::Nvme => t(0.15, 1500.0, Some((3000.0, 500_000.0))),
        DeviceClass::Loop | DeviceClass::Ram => t(0.1, 1000.0, None),
        // The backend is unknown.
        DeviceClass::Virtual | DeviceClass::Stacked | DeviceClass::Network => t(2.0, 200.0, None),
    }
}

/// Typical service time for a class and request size, ms.
pub fn typical_ms(class: DeviceClass, kib: f64) -> f64 {
    let t = typical(class);
    t.overhead_ms + kib * 1024.0 / (t.transfer_mb_s * 1e6) * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile::Fit;

    fn fit(rw: Direction, pattern: Pattern, overhead_ms: f64, ms_per_kib: f64) -> Fit {
        Fit {
            rw,
            pattern,
            overhead_ms,
            ms_per_kib,
            r2: None,
            transfer_mb_per_s: None,
            projected_32k_ms: None,
            fitted_bs_bytes: vec![],
            off_line_bs_bytes: vec![],
            negative_slope: None,
        }
    }

    #[test]
    fn expectation_mixes_reads_and_writes() {
        let p = Profile {
            schema_version: 1,
            kind: crate::model::Kind::Profile,
            target: None,
            target_info: None,
            curves: Vec::new(),
            fits: vec![
                fit(Direction::Read, Pattern::Random, 5.0, 0.01),
                fit(Direction::Write, Pattern::Random, 6.0, 0.02),
                fit(Direction::Read, Pattern::Sequential, 0.1, 0.02),
            ],
        };
        assert!((profile_ms(&p, 1.0, 4.0).unwrap() - 5.04).abs() < 1e-9);
        assert!((profile_ms(&p, 0.5, 4.0).unwrap() - (5.04 + 6.08) / 2.0).abs() < 1e-9);
    }

    #[test]
    fn typical_grows_with_size() {
        assert!(typical_ms(DeviceClass::Hdd, 4.0) > 12.0);
        assert!(typical_ms(DeviceClass::Nvme, 1024.0) > typical_ms(DeviceClass::Nvme, 4.0));
    }
}
