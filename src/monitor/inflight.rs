//! The in-flight counts sampled between the monitor's snapshots, so Little's law sees a mean
//! over the interval rather than two instants.

use crate::oscounters::reader::CounterFile;
use crate::oscounters::sysfs;
use std::collections::HashMap;

/// Running sums of the in-flight count per device, sampled several times per interval, so
/// Little's law sees a mean rather than two instants.
#[derive(Debug, Default)]
pub struct InflightTally {
    sums: HashMap<String, (u64, u64, u64)>,
    files: HashMap<String, CounterFile>,
}

impl InflightTally {
    /// Reads /sys/class/block/NAME/inflight for each name and adds it.
    pub fn sample<'a>(&mut self, names: impl Iterator<Item = &'a String>) {
        for name in names {
            let file = self.files.entry(name.clone()).or_insert_with(|| {
                CounterFile::new(
                    std::path::Path::new("/sys/class/block")
                        .join(sysfs::sysfs_name(name))
                        .join("inflight"),
                )
            });
            if let Some((r, w)) = file.read().and_then(sysfs::parse_inflight) {
                self.add(name, r + w);
            }
        }
    }

    /// Adds one observation.
    pub fn add(&mut self, name: &str, inflight: u64) {
        let e = self.sums.entry(name.to_string()).or_default();
        e.0 += inflight;
        e.1 += 1;
        e.2 = e.2.max(inflight);
    }

    /// Mean of the observations of `name` when at least `min_samples` were taken (None
    /// otherwise: a reading or two is not a mean over the interval).
    pub fn mean(&self, name: &str, min_samples: u64) -> Option<f64> {
        self.sums
            .get(name)
            .filter(|e| e.1 >= min_samples.max(1))
            .map(|e| e.0 as f64 / e.1 as f64)
    }

    /// The largest observation of `name`.
    pub fn max(&self, name: &str) -> u64 {
        self.sums.get(name).map_or(0, |e| e.2)
    }

    /// Starts a new interval.
    pub fn clear(&mut self) {
        self.sums.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_means_and_max() {
        let mut t = InflightTally::default();
        for v in [0, 2, 4] {
            t.add("sda", v);
        }
        assert_eq!(t.mean("sda", 3), Some(2.0));
        assert_eq!(t.mean("sda", 4), None, "too few samples");
        assert_eq!(t.max("sda"), 4);
        assert_eq!(t.mean("sdb", 1), None);
        t.clear();
        assert_eq!(t.mean("sda", 1), None);
    }
}
