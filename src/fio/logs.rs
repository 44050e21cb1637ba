//! fio's log options (`write_bw_log`, `write_iops_log`, `write_lat_log`, `log_avg_msec`,
//! `per_job_logs`, `log_offset`, and the refused `write_hist_log`, `log_max_value`) read with
//! fio 3.33's grammar into [`FioLogOptions`], and the names fio gives the files.

use super::FioError;
use super::number;

/// The option names this file reads.
pub const KEYS: [&str; 8] = [
    "write_bw_log",
    "write_iops_log",
    "write_lat_log",
    "write_hist_log",
    "log_avg_msec",
    "log_max_value",
    "per_job_logs",
    "log_offset",
];

/// What a job logs, as fio's options say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FioLogOptions {
    /// `write_bw_log`: the files' stem.
    pub bw: Option<String>,
    /// `write_iops_log`.
    pub iops: Option<String>,
    /// `write_lat_log`: `_lat`, `_clat` and `_slat` files.
    pub lat: Option<String>,
    /// `log_avg_msec`: one row per this many ms (0: a row per I/O, fio's default).
    pub avg_ms: u64,
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
            avg_ms: 0,
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
}

impl LogKind {
    /// fio's suffix of the file name.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
            LogKind::Lat => "lat",
            LogKind::Clat => "clat",
            LogKind::Slat => "slat",
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
            "log_avg_msec" => {
                self.avg_ms = number::int(key, value.unwrap_or("").trim())?;
            }
            "per_job_logs" => self.per_job = number::switch(key, value)?,
            "log_offset" => self.offset = number::switch(key, value)?,
            "write_hist_log" | "log_max_value" => {
                if key == "log_max_value" && !number::switch(key, value)? {
                    return Ok(());
                }
                return Err(FioError::NotYet {
                    option: key.into(),
                    why: "halfpower writes fio's bw, iops and latency logs (per I/O or \
                          averaged); histogram logs and per-period maxima are not written"
                        .into(),
                });
            }
            _ => return Err(FioError::Unsupported(key.to_string())),
        }
        Ok(())
    }

    /// Whether any log is asked for.
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some()
    }

    /// Whether the logs hold a row per I/O (no `log_avg_msec`, fio's default).
    pub fn per_io(&self) -> bool {
        self.any() && self.avg_ms == 0
    }

    /// Refuses what halfpower cannot log yet. Rows per I/O (no `log_avg_msec`) come from the
    /// per-I/O record, for any job of one process; averaged rows from the measured phase's
    /// 100-ms counts and per-second latency, so not periods those cannot give, latency other
    /// than per whole second, latency of a job that reads and writes, nor clones (fio logs
    /// each apart). `ranks`: the MPI job's ranks (each holds only its own I/Os).
    pub fn check(&self, numjobs: u32, mixed: bool, ranks: u32) -> Result<(), FioError> {
        if !self.any() {
            return Ok(());
        }
        let not_yet = |why: &str| FioError::NotYet {
            option: "log_avg_msec".into(),
            why: why.into(),
        };
        if self.avg_ms == 0 {
            if ranks > 1 {
                return Err(not_yet(
                    "fio's logs with a row per I/O under MPI (each rank holds its own I/Os): \
                     give log_avg_msec, or run `halfpower run --io-log` for every rank's",
                ));
            }
            return Ok(());
        }
        if self.avg_ms % 100 != 0 {
            return Err(FioError::value(
                "log_avg_msec",
                &self.avg_ms.to_string(),
                "0 (a row per I/O) or a multiple of 100 (halfpower counts I/O every 100 ms)",
            ));
        }
        if self.lat.is_some() && self.avg_ms % 1000 != 0 {
            return Err(not_yet(
                "averaged latency is logged per whole second (halfpower's per-second mean): \
                 give log_avg_msec a multiple of 1000 with write_lat_log, or 0 for a row per I/O",
            ));
        }
        if self.lat.is_some() && mixed {
            return Err(not_yet(
                "the averaged latency log of a job that reads and writes (halfpower's \
                 per-second mean covers both directions together); log_avg_msec=0 logs a row \
                 per I/O with its direction",
            ));
        }
        if numjobs > 1 {
            return Err(not_yet(
                "averaged logs of numjobs clones (fio writes one per clone); log_avg_msec=0 \
                 logs a row per I/O in each clone's own files",
            ));
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
        let o = logs(&[("write_iops_log", "z"), ("per_job_logs", "0")]).unwrap();
        assert_eq!(o.files(3, "j")[0].1, "z_iops.log");
        // Without a value, the job's name.
        let o = logs(&[("write_bw_log", "")]).unwrap();
        assert_eq!(o.files(2, "seq")[0].1, "seq_bw.2.log");
        assert!(
            o.check(2, true, 1).is_ok(),
            "a row per I/O, of clones and mixed jobs"
        );
        assert!(o.check(1, false, 3).is_err(), "not under MPI");
    }

    #[test]
    fn what_cannot_be_logged_is_refused_by_name() {
        let base = [("write_lat_log", "x"), ("log_avg_msec", "1000")];
        assert!(logs(&base).unwrap().check(1, false, 1).is_ok());
        assert!(logs(&base).unwrap().check(2, false, 1).is_err());
        assert!(logs(&base).unwrap().check(1, true, 1).is_err());
        let half = logs(&[("write_lat_log", "x"), ("log_avg_msec", "500")]).unwrap();
        assert!(half.check(1, false, 1).is_err());
        let bw = logs(&[("write_bw_log", "x"), ("log_avg_msec", "500")]).unwrap();
        assert!(bw.check(1, true, 1).is_ok());
        let odd = logs(&[("write_bw_log", "x"), ("log_avg_msec", "250")]).unwrap();
        assert!(odd.check(1, false, 1).is_err());
        for (k, v) in [("write_hist_log", "h"), ("log_max_value", "1")] {
            let e = logs(&[(k, v)]).unwrap_err().to_string();
            assert!(e.contains(k), "{e}");
        }
        assert!(logs(&[("log_max_value", "0")]).is_ok());
    }
}
