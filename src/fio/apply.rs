//! Applying one fio option to a [`JobOptions`]: the options refused or taken as they are
//! first, then the option families (job and files, access pattern, I/O path, timing,
//! reporting), each a function that says whether the option was one of its own.

use super::FioError;
use super::number::{self, KbBase, TimeUnit};
use super::options::{
    ContinueOnError, Fallocate, FioEngine, JobOptions, NOT_YET, OpenSync, Unified, VERIFY_METHODS,
};
use crate::engine::pattern::{Formats, Pattern};
use crate::plan::RwMode;

/// Options that change nothing halfpower measures, taken as fio takes them.
const NO_EFFECT: [&str; 8] = [
    "thread",
    // tiobench's spelling, which fio 3.33 takes for `thread`.
    "threads",
    "iodepth_batch",
    "iodepth_batch_submit",
    "iodepth_batch_complete",
    "iodepth_batch_complete_min",
    "iodepth_batch_complete_max",
    "iodepth_low",
];

/// The shortest sample period halfpower can give: its counts are taken every 100 ms
/// (`stats::window::CI_WINDOW_S`).
const MIN_AVG_MS: u64 = 100;

/// One family of options: applies the option when it is one of the family's and says whether
/// it was.
type Family = fn(&mut JobOptions, &str, Option<&str>) -> Result<bool, FioError>;

/// Every family of options [`JobOptions::apply`] tries, in turn.
const FAMILIES: [Family; 5] = [
    JobOptions::apply_job_and_files,
    JobOptions::apply_pattern,
    JobOptions::apply_io_path,
    JobOptions::apply_timing,
    JobOptions::apply_reporting,
];

impl JobOptions {
    /// Applies one option. `kb_base` must already be set (fio reads it before the sizes).
    pub fn apply(&mut self, key: &str, value: Option<&str>) -> Result<(), FioError> {
        if let Some((_, why)) = NOT_YET.iter().find(|(k, _)| *k == key) {
            let v = value.unwrap_or("1");
            let harmless = v.split(',').all(|p| p.trim() == "0" || p.trim().is_empty())
                || (key == "verify" && v == "none");
            if harmless {
                return Ok(());
            }
            return Err(FioError::NotYet {
                option: key.to_string(),
                why: (*why).to_string(),
            });
        }
        if NO_EFFECT.contains(&key) {
            return Ok(());
        }
        if key == "random_center" {
            return Err(FioError::NotFio {
                option: key.into(),
                instead: "give the centre after the distribution's value, e.g. \
                          random_distribution=zipf:1.2:0.5 or normal:5:0.3"
                    .into(),
            });
        }
        if super::access::KEYS.contains(&key) {
            return self.access.apply(key, value, self.kb_base);
        }
        if super::steady::KEYS.contains(&key) {
            return self.ss.apply(key, value, self.kb_base);
        }
        if super::logs::KEYS.contains(&key) {
            return self.logs.apply(key, value);
        }
        for family in FAMILIES {
            if family(self, key, value)? {
                return Ok(());
            }
        }
        Err(FioError::Unsupported(key.to_string()))
    }

    /// The job's name, its files and their sizes.
    fn apply_job_and_files(&mut self, key: &str, value: Option<&str>) -> Result<bool, FioError> {
        let base = self.kb_base;
        match key {
            "name" => self.name = need(key, value)?.to_string(),
            // fio adds a job's filename to the one it inherited (two files, the size split
            // between them), so a second filename makes a list.
            "filename" => {
                let f = need(key, value)?;
                self.filename = Some(match self.filename.take() {
                    Some(before) => format!("{before}:{f}"),
                    None => f.to_string(),
                });
            }
            "directory" => self.directory = Some(need(key, value)?.to_string()),
            "filename_format" => self.filename_format = Some(need(key, value)?.to_string()),
            "nrfiles" => self.nrfiles = u32_in(key, need(key, value)?, 1_000_000)? as u64,
            "size" => self.size = Some(number::size(key, need(key, value)?, base, true)?),
            "filesize" => {
                let v = need(key, value)?;
                if v.contains('-') && !v.trim().starts_with('(') && !v.contains('$') {
                    return Err(FioError::NotYet {
                        option: key.into(),
                        why: format!("a range of file sizes ({v}): give one size"),
                    });
                }
                self.filesize = Some(number::bytes(key, v, base)?).filter(|b| *b > 0);
            }
            "offset" => self.offset = number::size(key, need(key, value)?, base, true)?,
            "io_size" | "io_limit" => {
                self.io_size = Some(number::bytes(key, need(key, value)?, base)?)
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The access pattern: direction, read share, request sizes and random offsets.
    fn apply_pattern(&mut self, key: &str, value: Option<&str>) -> Result<bool, FioError> {
        match key {
            "rw" | "readwrite" => self.apply_rw(key, need(key, value)?)?,
            "rwmixread" => self.rwmixread = pct(key, need(key, value)?)?,
            "rwmixwrite" => self.rwmixread = 100 - pct(key, need(key, value)?)?,
            "bs" | "blocksize" => self.bs = block_sizes(key, need(key, value)?, self)?,
            "blocksize_unaligned" | "bs_unaligned" => {
                if number::switch(key, value)? {
                    return Err(FioError::NotYet {
                        option: key.to_string(),
                        why: "halfpower issues whole, aligned requests only".into(),
                    });
                }
            }
            // halfpower always draws random offsets with replacement, which is what
            // norandommap asks for (docs/fio.md: jobs without it touch each block once a pass).
            "norandommap" => self.norandommap = number::switch(key, value)?,
            "randrepeat" => self.randrepeat = number::switch(key, value)?,
            "randseed" => self.randseed = Some(number::int(key, need(key, value)?)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `rw` (or `readwrite`) set to `v`, with its stride when it has one.
    fn apply_rw(&mut self, key: &str, v: &str) -> Result<(), FioError> {
        let (mode, stride) = rw_mode(v)?;
        if stride.is_some_and(|s| s.trim_start().starts_with('-')) {
            return Err(FioError::NotYet {
                option: key.into(),
                why: format!(
                    "{v}: backwards sequential I/O (a negative stride) is not supported; \
                     halfpower's sequential streams go forwards (rw=read:8k leaves gaps)"
                ),
            });
        }
        self.rw = mode;
        self.rw_stride = match stride {
            Some(s) => Some(number::bytes(key, s, self.kb_base)?),
            None => None,
        };
        Ok(())
    }

    /// How the I/O is done: page cache or not, sync, engine, depth, clones, CPUs, verification,
    /// errors, the layout of missing files.
    fn apply_io_path(&mut self, key: &str, value: Option<&str>) -> Result<bool, FioError> {
        match key {
            "direct" => self.direct = number::switch(key, value)?,
            "invalidate" => self.invalidate = number::switch(key, value)?,
            "buffered" => self.direct = !number::switch(key, value)?,
            "sync" => {
                self.sync = match value.map(str::trim) {
                    None | Some("1") | Some("sync") => OpenSync::Sync,
                    Some("dsync") => OpenSync::Dsync,
                    Some("0") | Some("none") => OpenSync::None,
                    Some(v) => return Err(FioError::value(key, v, "0, 1, none, sync or dsync")),
                }
            }
            "ioengine" => self.ioengine = FioEngine::parse(need(key, value)?)?,
            "iodepth" => self.iodepth = u32_in(key, need(key, value)?, crate::plan::MAX_QD)?,
            "numjobs" => self.numjobs = u32_in(key, need(key, value)?, crate::plan::MAX_THREADS)?,
            "cpus_allowed" => self.cpus_allowed = Some(need(key, value)?.to_string()),
            "verify" => {
                self.verify = verify_method(key, need(key, value)?.trim())?;
                self.verify_set = true;
            }
            "verify_pattern" => {
                self.verify_pattern = Some(pattern(key, need(key, value)?, Formats::Offset)?)
            }
            "buffer_pattern" => {
                self.buffer_pattern = Some(pattern(key, need(key, value)?, Formats::None)?)
            }
            "continue_on_error" => self.continue_on_error = ContinueOnError::parse(key, value)?,
            "overwrite" => self.overwrite = number::switch(key, value)?,
            "fallocate" => self.fallocate = Fallocate::parse(key, value)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// When the job runs and for how long: runtime, ramp, start delay, loops, ordering.
    fn apply_timing(&mut self, key: &str, value: Option<&str>) -> Result<bool, FioError> {
        let seconds = |v| number::time_us(key, v, TimeUnit::Seconds);
        match key {
            "runtime" | "timeout" => {
                let us = seconds(need(key, value)?)?;
                self.runtime_us = (us > 0).then_some(us);
            }
            "time_based" => self.time_based = number::switch(key, value)?,
            "ramp_time" => self.ramp_time_us = seconds(need(key, value)?)?,
            "startdelay" => self.startdelay_us = seconds(need(key, value)?)?,
            "loops" => self.loops = u32_in(key, need(key, value)?, 1_000_000)? as u64,
            "stonewall" | "wait_for_previous" => self.stonewall = number::switch(key, value)?,
            "exitall" => self.exitall = number::switch(key, value)?,
            "wait_for" => self.wait_for = Some(need(key, value)?.to_string()),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// What is reported and how: groups, percentiles, units, directions, sample periods.
    fn apply_reporting(&mut self, key: &str, value: Option<&str>) -> Result<bool, FioError> {
        match key {
            "group_reporting" => self.group_reporting = number::switch(key, value)?,
            "gtod_reduce" => self.gtod_reduce = number::switch(key, value)?,
            "create_on_open" => self.create_on_open = number::switch(key, value)?,
            "new_group" => self.new_group = number::switch(key, value)?,
            "clat_percentiles" => self.clat_percentiles = number::switch(key, value)?,
            "lat_percentiles" => self.lat_percentiles = number::switch(key, value)?,
            "percentile_list" => self.percentile_list = percentiles(key, need(key, value)?)?,
            "kb_base" => self.kb_base = KbBase::parse(key, need(key, value)?)?,
            "unified_rw_reporting" => {
                self.unified_rw_reporting = match value.map(str::trim) {
                    None | Some("1") | Some("mixed") => Unified::Mixed,
                    Some("2") | Some("both") => Unified::Both,
                    Some("0") | Some("none") => Unified::None,
                    Some(v) => {
                        return Err(FioError::value(key, v, "none, mixed, both, 0, 1 or 2"));
                    }
                }
            }
            "description" => self.description = Some(need(key, value)?.to_string()),
            "bwavgtime" => self.bw_avg_ms = avg_ms(key, need(key, value)?)?,
            "iopsavgtime" => self.iops_avg_ms = avg_ms(key, need(key, value)?)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The value of option `key`, which must have one.
fn need<'a>(key: &str, value: Option<&'a str>) -> Result<&'a str, FioError> {
    value.ok_or_else(|| FioError::value(key, "", "a value (write it as key=value)"))
}

/// `rw`'s mode and the stride after its `:`, as written.
fn rw_mode(v: &str) -> Result<(RwMode, Option<&str>), FioError> {
    let (mode, stride) = match v.split_once(':') {
        Some((m, s)) => (m, Some(s)),
        None => (v, None),
    };
    let m = match mode {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "randread" => RwMode::Randread,
        "randwrite" => RwMode::Randwrite,
        "rw" | "readwrite" => RwMode::Rw,
        "randrw" => RwMode::Randrw,
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => {
            return Err(FioError::NotYet {
                option: "rw".into(),
                why: format!("rw={mode}: trim is not implemented"),
            });
        }
        _ => {
            return Err(FioError::value(
                "rw",
                v,
                "read, write, randread, randwrite, rw, readwrite or randrw (trim modes are not \
                 supported)",
            ));
        }
    };
    Ok((m, stride))
}

/// A percentage from 0 to 100.
fn pct(option: &str, v: &str) -> Result<u8, FioError> {
    let n = number::int(option, v)?;
    u8::try_from(n)
        .ok()
        .filter(|p| *p <= 100)
        .ok_or_else(|| FioError::value(option, v, "a percentage from 0 to 100"))
}

/// A whole number from 1 to `max`.
fn u32_in(option: &str, v: &str, max: u32) -> Result<u32, FioError> {
    let n = number::int(option, v)?;
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| FioError::value(option, v, format!("a whole number from 1 to {max}")))
}

/// `bs` as [read, write] from fio's `read,write,trim` list (`job` gives the base and the
/// sizes an empty entry keeps).
fn block_sizes(key: &str, v: &str, job: &JobOptions) -> Result<[u64; 2], FioError> {
    let base = job.kb_base;
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 3 {
        return Err(FioError::value(
            key,
            v,
            "up to three sizes: read,write,trim",
        ));
    }
    let read = number::bytes(key, parts[0], base)?;
    // fio: an empty entry keeps the default; a missing one repeats the read size.
    let write = match parts.get(1).map(|s| s.trim()) {
        None => read,
        Some("") => job.bs[1],
        Some(s) => number::bytes(key, s, base)?,
    };
    Ok([read, write])
}

/// `verify`'s method: a checksum or `pattern` (`None` for `none` or `0`).
fn verify_method(key: &str, v: &str) -> Result<Option<String>, FioError> {
    match v {
        "none" | "0" => Ok(None),
        m if VERIFY_METHODS.contains(&m) || m == "pattern" => Ok(Some(m.to_string())),
        _ => Err(FioError::value(
            key,
            v,
            format!(
                "none, pattern (with verify_pattern) or a checksum method ({})",
                VERIFY_METHODS.join(", ")
            ),
        )),
    }
}

/// A `buffer_pattern` or `verify_pattern` in fio's grammar.
fn pattern(key: &str, v: &str, formats: Formats) -> Result<Pattern, FioError> {
    Pattern::parse(v, formats).map_err(|e| FioError::Invalid {
        option: key.into(),
        value: v.into(),
        why: e.to_string(),
    })
}

/// `percentile_list`: percentiles above 0 and at most 100, separated by `:`.
fn percentiles(key: &str, v: &str) -> Result<Vec<f64>, FioError> {
    v.split(':')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|q| *q > 0.0 && *q <= 100.0)
                .ok_or_else(|| {
                    FioError::value(
                        key,
                        v,
                        "percentiles above 0 and at most 100 separated by ':', e.g. 50:99:99.9",
                    )
                })
        })
        .collect()
}

/// `bwavgtime` or `iopsavgtime`, ms: at least [`MIN_AVG_MS`].
fn avg_ms(key: &str, v: &str) -> Result<u64, FioError> {
    let ms = number::time_us(key, v, TimeUnit::Millis)? / 1000;
    if ms < MIN_AVG_MS {
        return Err(FioError::value(
            key,
            v,
            format!(
                "at least {MIN_AVG_MS} ms (halfpower counts the I/Os done every {MIN_AVG_MS} ms)"
            ),
        ));
    }
    Ok(ms)
}
