//! The expectations file `halfpower profile` writes and `diagnose --profile` reads (schema in
//! docs/profile.md): the fitted lines as both sides see them, and the typical service times by
//! device class used without a profile.

use serde::{Deserialize, Serialize};

/// Version of the profile layout this halfpower reads and writes.
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

/// One fitted column of Friedman's matrix: service_ms = overhead_ms + ms_per_kib × size_kib.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// `read` or `write`.
    pub rw: String,
    /// `sequential`, `random` or `cache-hit`.
    pub pattern: String,
    /// Intercept: the per-request overhead, ms.
    pub overhead_ms: f64,
    /// Slope: transfer time per KiB, ms.
    pub ms_per_kib: f64,
    /// Goodness of fit.
    #[serde(default)]
    pub r2: Option<f64>,
    /// The transfer rate the slope implies, MB/s (10^6 bytes/s).
    #[serde(default)]
    pub transfer_mb_per_s: Option<f64>,
    /// The line's projection at 32 KiB, ms.
    #[serde(default)]
    pub projected_32k_ms: Option<f64>,
    /// Request sizes (bytes) the line was fitted to.
    #[serde(default)]
    pub fitted_bs_bytes: Vec<u64>,
    /// Request sizes (bytes) whose service time fell off the line (left out of the fit).
    #[serde(default)]
    pub off_line_bs_bytes: Vec<u64>,
}

impl Fit {
    /// Expected service time for a request of `kib` KiB, ms.
    pub fn at(&self, kib: f64) -> f64 {
        self.overhead_ms + self.ms_per_kib * kib
    }
}

/// The parts of a profile document diagnose needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Layout version.
    pub schema_version: u32,
    /// Always `profile`.
    pub kind: String,
    /// What was profiled.
    #[serde(default)]
    pub target: Option<String>,
    /// The fitted lines.
    pub fits: Vec<Fit>,
}

impl Profile {
    /// Reads and checks a profile document; the error says what is wrong.
    pub fn from_json(text: &str) -> Result<Profile, String> {
        let p: Profile = serde_json::from_str(text).map_err(|e| format!("not a profile: {e}"))?;
        if p.kind != "profile" {
            return Err(format!("kind is '{}', expected 'profile'", p.kind));
        }
        if p.schema_version > PROFILE_SCHEMA_VERSION || p.schema_version == 0 {
            return Err(format!(
                "schema_version {} is not one this halfpower reads (1..={PROFILE_SCHEMA_VERSION})",
                p.schema_version
            ));
        }
        if p.fits.is_empty() {
            return Err("no fits".into());
        }
        Ok(p)
    }

    /// Expected service time for the mix: reads and writes weighted by `read_share`, each
    /// from the random column (the upper expectation: a log does not say how sequential the
    /// work was), else any column of that direction.
    pub fn expected_ms(&self, read_share: f64, kib: f64) -> Option<f64> {
        let pick = |rw: &str| {
            self.fits
                .iter()
                .find(|f| f.rw == rw && f.pattern == "random")
                .or_else(|| self.fits.iter().find(|f| f.rw == rw))
                .map(|f| f.at(kib))
        };
        match (pick("read"), pick("write")) {
            (Some(r), Some(w)) => Some(read_share * r + (1.0 - read_share) * w),
            (Some(x), None) | (None, Some(x)) => Some(x),
            (None, None) => None,
        }
    }
}

/// What is typical for a device class without a profile: (overhead ms, MB/s of transfer).
/// Deliberately lax (a random 4 KiB request on a 7200 rpm disk, a SATA SSD, an NVMe drive).
pub fn typical(class: &str) -> (f64, f64) {
    match class {
        "hdd" | "disk" | "unknown" => (12.0, 120.0),
        "ssd" => (0.3, 400.0),
        "nvme" => (0.15, 1500.0),
        "loop" | "ram" => (0.1, 1000.0),
        _ => (2.0, 200.0), // virtual, stacked: the backend is unknown
    }
}

/// Typical service time for a class and request size, ms.
pub fn typical_ms(class: &str, kib: f64) -> f64 {
    let (overhead, mb_s) = typical(class);
    overhead + kib * 1024.0 / (mb_s * 1e6) * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const HAND_WRITTEN: &str = r#"{"schema_version":1,"kind":"profile","target":"/dev/sdb",
      "fits":[{"rw":"read","pattern":"random","overhead_ms":5.0,"ms_per_kib":0.01,"r2":0.99},
              {"rw":"write","pattern":"random","overhead_ms":6.0,"ms_per_kib":0.02},
              {"rw":"read","pattern":"sequential","overhead_ms":0.1,"ms_per_kib":0.02}]}"#;

    #[test]
    fn expectation_mixes_reads_and_writes() {
        let p = Profile::from_json(HAND_WRITTEN).unwrap();
        assert!((p.expected_ms(1.0, 4.0).unwrap() - 5.04).abs() < 1e-9);
        assert!((p.expected_ms(0.5, 4.0).unwrap() - (5.04 + 6.08) / 2.0).abs() < 1e-9);
        assert!(Profile::from_json(r#"{"schema_version":9,"kind":"profile","fits":[]}"#).is_err());
        assert!(Profile::from_json(r#"{"schema_version":1,"kind":"run","fits":[]}"#).is_err());
        assert!(Profile::from_json("[]").is_err());
    }

    #[test]
    fn typical_grows_with_size() {
        assert!(typical_ms("hdd", 4.0) > 12.0);
        assert!(typical_ms("nvme", 1024.0) > typical_ms("nvme", 4.0));
    }
}
