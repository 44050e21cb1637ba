//! fio's steady-state options (`steadystate`/`ss`, `steadystate_duration`/`ss_dur`,
//! `steadystate_ramp_time`/`ss_ramp`) read with fio 3.33's grammar into [`FioSsOptions`], and
//! the rule they give ([`FioSteady`]), which ends a job as fio's does.

use super::FioError;
use super::number::{self, KbBase, TimeUnit};
use crate::analysis::fio_steady::{FioSteady, SsMetric, SsTest};

/// The option names this file reads.
pub const KEYS: [&str; 6] = [
    "steadystate",
    "ss",
    "steadystate_duration",
    "ss_dur",
    "steadystate_ramp_time",
    "ss_ramp",
];

/// What `steadystate` takes.
const ACCEPTED: &str = "CRITERION:LIMIT with CRITERION iops, iops_slope, bw or bw_slope (fio \
                        3.33's) and LIMIT a number, a percentage of the mean (2%) or for bw a \
                        size per second (10m), e.g. iops:2% or bw_slope:0.1%";

/// A job's steady-state options as fio reads them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FioSsOptions {
    /// What is sampled.
    pub metric: SsMetric,
    /// How the window is judged.
    pub test: SsTest,
    /// The limit, in the metric's unit or % of the mean.
    pub limit: f64,
    /// Whether the limit is a percentage.
    pub pct: bool,
    /// `ss_dur`, µs (0: no steady-state rule, fio's default).
    pub dur_us: u64,
    /// `ss_ramp`, µs.
    pub ramp_us: u64,
}

impl Default for FioSsOptions {
    /// fio's defaults: `iops_slope:0.01%`, no window (off).
    fn default() -> Self {
        FioSsOptions {
            metric: SsMetric::Iops,
            test: SsTest::Slope,
            limit: 0.01,
            pct: true,
            dur_us: 0,
            ramp_us: 0,
        }
    }
}

impl FioSsOptions {
    /// Applies one of [`KEYS`].
    pub fn apply(&mut self, key: &str, value: Option<&str>, base: KbBase) -> Result<(), FioError> {
        let v = value.map(str::trim).unwrap_or("");
        match key {
            "steadystate" | "ss" => self.criterion(key, v, base),
            "steadystate_duration" | "ss_dur" => {
                self.dur_us = number::time_us(key, v, TimeUnit::Seconds)?;
                if self.dur_us > 0 && self.dur_us < 1_000_000 {
                    return Err(FioError::value(
                        key,
                        v,
                        "0 (off) or at least 1 s: fio samples once a second and keeps whole \
                         seconds of the window",
                    ));
                }
                Ok(())
            }
            "steadystate_ramp_time" | "ss_ramp" => {
                self.ramp_us = number::time_us(key, v, TimeUnit::Seconds)?;
                Ok(())
            }
            _ => Err(FioError::Unsupported(key.to_string())),
        }
    }

    /// `steadystate=CRITERION:LIMIT`.
    fn criterion(&mut self, key: &str, v: &str, base: KbBase) -> Result<(), FioError> {
        let bad = || FioError::value(key, v, ACCEPTED);
        let (name, limit) = v.split_once(':').ok_or_else(bad)?;
        (self.metric, self.test) = match name.trim() {
            "iops" => (SsMetric::Iops, SsTest::Deviation),
            "iops_slope" => (SsMetric::Iops, SsTest::Slope),
            "bw" => (SsMetric::Bw, SsTest::Deviation),
            "bw_slope" => (SsMetric::Bw, SsTest::Slope),
            _ => return Err(bad()),
        };
        let limit = limit.trim();
        (self.limit, self.pct) = if let Some(p) = limit.strip_suffix('%') {
            (p.trim().parse::<f64>().map_err(|_| bad())?, true)
        } else if self.metric == SsMetric::Iops {
            (limit.parse::<f64>().map_err(|_| bad())?, false)
        } else {
            (number::bytes(key, limit, base)? as f64, false)
        };
        if !self.limit.is_finite() || self.limit < 0.0 {
            return Err(bad());
        }
        Ok(())
    }

    /// The rule a job with these options runs under (None: `ss_dur` is 0, fio's off).
    pub fn rule(&self) -> Option<FioSteady> {
        (self.dur_us > 0).then(|| FioSteady {
            metric: self.metric,
            test: self.test,
            limit: self.limit,
            pct: self.pct,
            dur_s: self.dur_us / 1_000_000,
            ramp_s: self.ramp_us as f64 / 1e6,
        })
    }

    /// fio's name of the criterion, as its JSON `ss` writes it: `iops:2.000000%`.
    pub fn fio_name(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            match self.metric {
                SsMetric::Iops => "iops",
                SsMetric::Bw => "bw",
            },
            match self.test {
                SsTest::Slope => "_slope",
                SsTest::Deviation => "",
            },
            self.limit as f32,
            if self.pct { "%" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ss(pairs: &[(&str, &str)]) -> Result<FioSsOptions, FioError> {
        let mut o = FioSsOptions::default();
        for (k, v) in pairs {
            o.apply(k, Some(v), KbBase::Binary)?;
        }
        Ok(o)
    }

    #[test]
    fn fios_grammar_and_names() {
        let o = ss(&[
            ("steadystate", "iops:2%"),
            ("ss_dur", "5"),
            ("ss_ramp", "1"),
        ])
        .unwrap();
        assert_eq!(o.fio_name(), "iops:2.000000%", "fio 3.33's JSON ss");
        let r = o.rule().unwrap();
        assert_eq!(
            (r.metric, r.test, r.limit, r.pct),
            (SsMetric::Iops, SsTest::Deviation, 2.0, true)
        );
        assert_eq!((r.dur_s, r.ramp_s), (5, 1.0));
        let o = ss(&[("ss", "bw_slope:10m"), ("steadystate_duration", "2m")]).unwrap();
        assert_eq!(
            (o.limit, o.pct, o.test),
            (10.0 * 1048576.0, false, SsTest::Slope)
        );
        assert_eq!(o.rule().unwrap().dur_s, 120);
        assert_eq!(
            ss(&[("ss", "iops_slope:0.1 %")]).unwrap().fio_name(),
            "iops_slope:0.100000%"
        );
        assert_eq!(ss(&[("ss", "iops:20")]).unwrap().limit, 20.0);
        // fio's default criterion, and off without a window.
        let d = FioSsOptions::default();
        assert_eq!(d.fio_name(), "iops_slope:0.010000%");
        assert!(d.rule().is_none());
    }

    #[test]
    fn what_fio_would_refuse_is_refused_by_name() {
        for (k, v) in [
            ("ss", "iops"),
            ("ss", "lat:2%"),
            ("ss", "iops:x"),
            ("ss", "iops:-1"),
            ("ss_dur", "500ms"),
            ("ss_dur", "x"),
            ("ss_ramp", "-1"),
        ] {
            let e = ss(&[(k, v)]).unwrap_err();
            assert!(
                e.to_string().contains(k) && e.to_string().contains(v),
                "{e}"
            );
        }
    }
}
