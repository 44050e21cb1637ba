//! fio's log options (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`,
//! `log_avg_msec`, `log_hist_msec`, `log_hist_coarseness`, `log_max_value`, `per_job_logs`,
//! `log_offset`) read with fio 3.33's grammar into [`FioLogOptions`], and the names fio gives
//! the files.

use super::FioError;
use super::number;

/// The option names this file reads.
pub const KEYS: [&str; 10] = [
    "write_bw_log",
    "write_iops_log",
    "write_lat_log",
    "write_hist_log",
    "log_avg_msec",
    "log_hist_msec",
    "log_hist_coarseness",
    "log_max_value",
    "per_job_logs",
    "log_offset",
];

/// The bins of fio's latency histograms (stat.h: 29 groups of 2^6).
pub const HIST_BINS: usize = 29 << 6;

/// fio's bin of a latency of `ns` (stat.c `plat_val_to_idx`): the value itself below 128,
/// above that 64 bins per power of two (the six bits below the highest set bit), the last bin
/// holding everything from about 2^34 ns (17 s) on.
pub fn fio_bin(ns: u64) -> usize {
    const BITS: u32 = 6;
    let msb = 63 - ns.max(1).leading_zeros();
    if msb <= BITS {
        return ns as usize;
    }
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) << BITS) as usize;
    let offset = ((ns >> error_bits) & ((1 << BITS) - 1)) as usize;
    (base + offset).min(HIST_BINS - 1)
}

/// What a job logs, as fio's options say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FioLogOptions {
    /// `write_bw_log`: the files' stem.
    pub bw: Option<String>,
    /// `write_iops_log`.
    pub iops: Option<String>,
    /// `write_lat_log`: `_lat`, `_clat` and `_slat` files.
    pub lat: Option<String>,
    /// `write_hist_log`: the `_clat_hist` file.
    pub hist: Option<String>,
    /// `log_avg_msec`: one row per this many ms (0: a row per I/O, fio's default).
    pub avg_ms: u64,
    /// `log_hist_msec`: a histogram row per this many ms (0: none, fio's default).
    pub hist_ms: u64,
    /// `log_hist_coarseness` (0–6): each histogram row sums 2^this of fio's 1856 bins.
    pub hist_coarseness: u32,
    /// `log_max_value`: averaged latency rows hold each period's largest latency.
    pub max_value: bool,
    /// `per_job_logs`: the job's number in the file name (fio's default).
    pub per_job: bool,
    /// `log_offset`: an offset column.
    pub offset: bool,
}

impl Default for FioLogOptions {
    fn default() -> Self {
        FioLogOptions {
            bw: None,
            iops: None,
            lat: None,
            hist: None,
            avg_ms: 0,
            hist_ms: 0,
            hist_coarseness: 0,
            max_value: false,
            per_job: true,
            offset: false,
        }
    }
}

/// One kind of log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// Bandwidth, KiB/s.
    Bw,
    /// I/Os per second.
    Iops,
    /// Total latency, ns.
    Lat,
    /// Completion latency, ns.
    Clat,
    /// Submission latency, ns.
    Slat,
    /// Completion latency histograms, in fio's bins.
    ClatHist,
}

impl LogKind {
    /// The job option that asks for this log.
    pub fn option(self) -> &'static str {
        match self {
            LogKind::Bw => "write_bw_log",
            LogKind::Iops => "write_iops_log",
            LogKind::Lat | LogKind::Clat | LogKind::Slat => "write_lat_log",
            LogKind::ClatHist => "write_hist_log",
        }
    }

    /// fio's suffix of the file name.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
            LogKind::ClatHist => "clat_hist",
        }
    }
}

impl FioLogOptions {
    /// Applies one of [`KEYS`].
    pub fn apply(&mut self, key: &str, value: Option<&str>) -> Result<(), FioError> {
        // Without a value fio names the files after the job (empty here: see `files`).
        let stem = |v: Option<&str>| -> Result<String, FioError> {
            Ok(v.map(str::trim).unwrap_or("").to_string())
        };
        match key {
            "write_bw_log" => self.bw = Some(stem(value)?),
            "write_iops_log" => self.iops = Some(stem(value)?),
            "write_lat_log" => self.lat = Some(stem(value)?),
            "write_hist_log" => self.hist = Some(stem(value)?),
            "log_avg_msec" => {
                self.avg_ms = number::int(key, value.unwrap_or("").trim())?;
            }
            "log_hist_msec" => {
                self.hist_ms = number::int(key, value.unwrap_or("").trim())?;
            }
            "log_hist_coarseness" => {
                let v = value.unwrap_or("").trim();
                match number::int(key, v)? {
                    c @ 0..=6 => self.hist_coarseness = c as u32,
                    _ => return Err(FioError::value(key, v, "an integer from 0 to 6")),
                }
            }
            "log_max_value" => self.max_value = number::switch(key, value)?,
            "per_job_logs" => self.per_job = number::switch(key, value)?,
            "log_offset" => self.offset = number::switch(key, value)?,
            _ => return Err(FioError::Unsupported(key.to_string())),
        }
        Ok(())
    }

    /// Whether any log is asked for.
    pub fn any(&self) -> bool {
        self.rates_or_latency() || self.hist.is_some()
    }

    /// Whether a bandwidth, IOPS or latency log is asked for.
    fn rates_or_latency(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some()
    }

    /// Whether the bandwidth, IOPS and latency logs hold a row per I/O (no `log_avg_msec`,
    /// fio's default).
    pub fn per_io(&self) -> bool {
        self.rates_or_latency() && self.avg_ms == 0
    }

    /// Whether the histogram log has rows (fio writes an empty file without `log_hist_msec`).
    pub fn histograms(&self) -> bool {
        self.hist.is_some() && self.hist_ms > 0
    }

    /// Whether the logs are made from the per-I/O record: rows per I/O, histograms, and the
    /// largest latency of each period.
    pub fn needs_record(&self) -> bool {
        self.per_io() || self.histograms() || self.latency_maxima()
    }

    /// Whether averaged latency rows hold each period's largest latency (`log_max_value`;
    /// fio's bandwidth and IOPS logs have one rate per period, so their maximum is it).
    pub fn latency_maxima(&self) -> bool {
        self.max_value && self.lat.is_some() && self.avg_ms > 0
    }

    /// With averaged bandwidth, IOPS or latency logs: the period the workers keep their counts
    /// at, ns (`log_avg_msec`).
    pub fn periods_ns(&self) -> Option<u64> {
        (self.rates_or_latency() && self.avg_ms > 0).then(|| self.avg_ms * 1_000_000)
    }

    /// Refuses what halfpower cannot log yet: any log under MPI (`ranks` > 1). Each rank
    /// holds only its own I/Os and periods, and one file of the job's would need them merged
    /// period by period; rank 0's alone would not be the job's. Averaged rows come from the
    /// workers' counts at each period's edge, for any period, direction and clone.
    pub fn check(&self, ranks: u32) -> Result<(), FioError> {
        if ranks > 1 && self.any() {
            let option = match () {
                _ if self.histograms() => "write_hist_log",
                _ if self.per_io() => "log_avg_msec",
                _ if self.latency_maxima() => "log_max_value",
                _ => "log_avg_msec",
            };
            return Err(FioError::NotYet {
                option: option.into(),
                why: "fio's logs under MPI (each rank holds only its own I/Os and periods): run \
                      `halfpower run --io-log` for every rank's"
                    .into(),
            });
        }
        Ok(())
    }

    /// The files asked for, each with its kind and name: `STEM_KIND.N.log` for the job
    /// numbered `n` (1-based, as fio numbers its jobs), `STEM_KIND.log` without per-job logs;
    /// an option without a value takes the job's name `job` as its stem, as in fio.
    pub fn files(&self, n: usize, job: &str) -> Vec<(LogKind, String)> {
        let name = |stem: &str, kind: LogKind| {
            let stem = if stem.is_empty() { job } else { stem };
            if self.per_job {
                format!("{stem}_{}.{n}.log", kind.suffix())
            } else {
                format!("{stem}_{}.log", kind.suffix())
            }
        };
        let mut out = Vec::new();
        if let Some(s) = &self.bw {
            out.push((LogKind::Bw, name(s, LogKind::Bw)));
        }
        if let Some(s) = &self.iops {
            out.push((LogKind::Iops, name(s, LogKind::Iops)));
        }
        if let Some(s) = &self.lat {
            for k in [LogKind::Lat, LogKind::Clat, LogKind::Slat] {
                out.push((k, name(s, k)));
            }
        }
        if let Some(s) = &self.hist {
            out.push((LogKind::ClatHist, name(s, LogKind::ClatHist)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs(pairs: &[(&str, &str)]) -> Result<FioLogOptions, FioError> {
        let mut o = FioLogOptions::default();
        for (k, v) in pairs {
            o.apply(k, Some(v))?;
        }
        Ok(o)
    }

    #[test]
    fn latencies_fall_in_fios_bins() {
        // Below 128 ns each value is its own bin; then 64 bins per power of two.
        for (ns, bin) in [
            (0, 0),
            (1, 1),
            (127, 127),
            (128, 128),
            (129, 128),
            (130, 129),
        ] {
            assert_eq!(fio_bin(ns), bin, "{ns} ns");
        }
        assert_eq!(fio_bin(255), 191);
        assert_eq!(fio_bin(256), 192);
        // 1 ms: highest bit 19, so 13 error bits; 1 000 000 >> 13 = 122, whose low six bits
        // are 58, after the 14 × 64 bins below the group.
        assert_eq!(fio_bin(1_000_000), 14 * 64 + 58);
        assert_eq!(fio_bin(u64::MAX), HIST_BINS - 1);
        assert_eq!(fio_bin(1 << 40), HIST_BINS - 1);
    }

    #[test]
    fn files_are_named_as_fio_names_them() {
        let o = logs(&[
            ("write_bw_log", "x"),
            ("write_lat_log", "y"),
            ("log_avg_msec", "1000"),
        ])
        .unwrap();
        let names: Vec<String> = o.files(1, "j").into_iter().map(|f| f.1).collect();
        assert_eq!(
            names,
            ["x_bw.1.log", "y_lat.1.log", "y_clat.1.log", "y_slat.1.log"]
        );
        let o = logs(&[("write_hist_log", "h")]).unwrap();
        assert_eq!(o.files(2, "j")[0].1, "h_clat_hist.2.log");
        assert!(
            !o.histograms() && !o.needs_record(),
            "no rows without log_hist_msec"
        );
        let o = logs(&[("write_iops_log", "z"), ("per_job_logs", "0")]).unwrap();
        assert_eq!(o.files(3, "j")[0].1, "z_iops.log");
        // Without a value, the job's name.
        let o = logs(&[("write_bw_log", "")]).unwrap();
        assert_eq!(o.files(2, "seq")[0].1, "seq_bw.2.log");
        assert!(o.check(1).is_ok(), "a row per I/O");
        assert!(o.check(3).is_err(), "not under MPI");
    }

    #[test]
    fn any_period_is_taken_and_what_cannot_be_logged_is_refused_by_name() {
        for avg in ["1", "100", "250", "500", "1000", "1500"] {
            let o = logs(&[("write_lat_log", "x"), ("log_avg_msec", avg)]).unwrap();
            assert!(o.check(1).is_ok() && !o.needs_record(), "every {avg} ms");
            let ms: u64 = avg.parse().unwrap();
            assert_eq!(o.periods_ns(), Some(ms * 1_000_000));
        }
        let per_io = logs(&[("write_iops_log", "x")]).unwrap();
        assert_eq!(per_io.periods_ns(), None, "a row per I/O keeps no periods");
        let hist_only = logs(&[("write_hist_log", "h"), ("log_avg_msec", "500")]).unwrap();
        assert_eq!(
            hist_only.periods_ns(),
            None,
            "the histograms have their own period"
        );
        let e = logs(&[("log_hist_coarseness", "7")])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("log_hist_coarseness") && e.contains("0 to 6"),
            "{e}"
        );
        let hist = logs(&[("write_hist_log", "h"), ("log_hist_msec", "500")]).unwrap();
        assert!(hist.check(1).is_ok());
        let e = hist.check(2).unwrap_err().to_string();
        assert!(e.contains("write_hist_log"), "{e}");
        let max = logs(&[
            ("write_lat_log", "x"),
            ("log_avg_msec", "1000"),
            ("log_max_value", "1"),
        ])
        .unwrap();
        assert!(max.latency_maxima() && max.needs_record() && !max.per_io());
        assert!(max.check(2).is_err(), "not under MPI");
        let avg = logs(&[("write_bw_log", "x"), ("log_avg_msec", "100")]).unwrap();
        assert!(avg.check(1).is_ok());
        let e = avg.check(4).unwrap_err().to_string();
        assert!(
            e.contains("log_avg_msec") && e.contains("--io-log"),
            "averaged rows under MPI would be rank 0's alone: {e}"
        );
    }
}
