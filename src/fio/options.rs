//! The fio options `halfpower fio` takes, each with fio's meaning, parsed into one typed
//! [`JobOptions`]; every other option is refused by name. Options fio knows and halfpower will
//! take but cannot run yet are refused too (never ignored), with that said.

use super::FioError;
use super::access::FioAccess;
use super::number::{self, KbBase, Size, TimeUnit};
use crate::spec::RwMode;

/// fio's I/O engines as halfpower maps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioEngine {
    /// `io_uring` (halfpower's io_uring engine).
    IoUring,
    /// `libaio`: run by halfpower's io_uring engine (the same asynchronous queue, another API).
    Libaio,
    /// `psync`, `sync`, `pvsync`, `pvsync2`, `vsync`: halfpower's sync engine, one I/O in
    /// flight per job.
    Sync,
    /// `null`: no I/O.
    Null,
}

impl FioEngine {
    fn parse(v: &str) -> Result<Self, FioError> {
        Ok(match v {
            "io_uring" => FioEngine::IoUring,
            "libaio" => FioEngine::Libaio,
            "psync" | "sync" | "pvsync" | "pvsync2" | "vsync" => FioEngine::Sync,
            "null" => FioEngine::Null,
            _ => {
                return Err(FioError::NotYet {
                    option: "ioengine".into(),
                    why: format!(
                        "'{v}' is not implemented; halfpower runs io_uring, libaio (on io_uring), \
                         psync, sync, pvsync, pvsync2, vsync and null"
                    ),
                });
            }
        })
    }

    /// The name fio uses.
    pub fn fio_name(self) -> &'static str {
        match self {
            FioEngine::IoUring => "io_uring",
            FioEngine::Libaio => "libaio",
            FioEngine::Sync => "psync",
            FioEngine::Null => "null",
        }
    }
}

/// fio's `unified_rw_reporting`: how a job's directions are reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unified {
    /// `none`/`0`: `read`, `write` and `trim` apart.
    #[default]
    None,
    /// `mixed`/`1`: one `mixed` object for all directions together, instead of them.
    Mixed,
    /// `both`/`2`: `read`, `write` and `trim` apart, and `mixed` as well.
    Both,
}

/// Every option of one fio job, typed, with fio's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOptions {
    /// `name`.
    pub name: String,
    /// `filename`, as written (a `:`-separated list in fio).
    pub filename: Option<String>,
    /// `directory`.
    pub directory: Option<String>,
    /// `nrfiles`.
    pub nrfiles: u64,
    /// `size`: the job's I/O over all its files (a clone's, with numjobs).
    pub size: Option<Size>,
    /// `filesize`: the size of each file (`size` then only sets how much I/O is done).
    pub filesize: Option<u64>,
    /// `offset`.
    pub offset: Size,
    /// `io_size` (alias `io_limit`).
    pub io_size: Option<u64>,
    /// `rw` / `readwrite`.
    pub rw: RwMode,
    /// The `:N` after `rw` (a sequential stride), when given.
    pub rw_stride: Option<u64>,
    /// `rwmixread` (from `rwmixwrite` too), percent of reads.
    pub rwmixread: u8,
    /// `bs` for reads and for writes (fio's per-direction list; trim is not run).
    pub bs: [u64; 2],
    /// `direct` (fio's default is buffered I/O).
    pub direct: bool,
    /// `invalidate` (on by default, as in fio): drop the files' pages from the page cache
    /// before a buffered job.
    pub invalidate: bool,
    /// `sync`: open with O_SYNC (`1`/`sync`) or O_DSYNC (`dsync`).
    pub sync: bool,
    /// `ioengine` (fio's default is psync).
    pub ioengine: FioEngine,
    /// `iodepth`.
    pub iodepth: u32,
    /// `numjobs`.
    pub numjobs: u32,
    /// `runtime`, µs.
    pub runtime_us: Option<u64>,
    /// `time_based`.
    pub time_based: bool,
    /// `ramp_time`, µs.
    pub ramp_time_us: u64,
    /// `startdelay`, µs.
    pub startdelay_us: u64,
    /// `loops`.
    pub loops: u64,
    /// `randrepeat`.
    pub randrepeat: bool,
    /// `randseed`.
    pub randseed: Option<u64>,
    /// `group_reporting`.
    pub group_reporting: bool,
    /// `stonewall` (alias `wait_for_previous`).
    pub stonewall: bool,
    /// `new_group`.
    pub new_group: bool,
    /// `wait_for`.
    pub wait_for: Option<String>,
    /// `cpus_allowed`.
    pub cpus_allowed: Option<String>,
    /// `clat_percentiles` (on by default in fio).
    pub clat_percentiles: bool,
    /// `lat_percentiles`.
    pub lat_percentiles: bool,
    /// `percentile_list`.
    pub percentile_list: Vec<f64>,
    /// `kb_base`.
    pub kb_base: KbBase,
    /// `unified_rw_reporting`.
    pub unified_rw_reporting: Unified,
    /// `description`: fio writes it as the job's `desc`.
    pub description: Option<String>,
    /// `bwavgtime`: the period of the bandwidth samples (`bw_min` … `bw_samples`), ms.
    pub bw_avg_ms: u64,
    /// `iopsavgtime`: the period of the IOPS samples, ms.
    pub iops_avg_ms: u64,
    /// `verify`: the checksum method asked for (`None`: no verification).
    pub verify: Option<String>,
    /// `norandommap`: random offsets drawn with replacement (halfpower always draws so).
    pub norandommap: bool,
    /// The access options: size mixes, distributions, rates, think time.
    pub access: FioAccess,
}

/// fio's default period of the bandwidth and IOPS samples (`bwavgtime`, `iopsavgtime`), ms.
pub const DEFAULT_AVG_MS: u64 = 500;

/// The shortest sample period halfpower can give: its counts are taken every 100 ms
/// (`stats::window::CI_WINDOW_S`).
const MIN_AVG_MS: u64 = 100;

/// fio's default percentiles.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

impl Default for JobOptions {
    fn default() -> Self {
        JobOptions {
            name: String::new(),
            filename: None,
            directory: None,
            nrfiles: 1,
            size: None,
            filesize: None,
            offset: Size::Bytes(0),
            io_size: None,
            rw: RwMode::Read,
            rw_stride: None,
            rwmixread: 50,
            bs: [4096, 4096],
            direct: false,
            invalidate: true,
            sync: false,
            ioengine: FioEngine::Sync,
            iodepth: 1,
            numjobs: 1,
            runtime_us: None,
            time_based: false,
            ramp_time_us: 0,
            startdelay_us: 0,
            loops: 1,
            randrepeat: true,
            randseed: None,
            group_reporting: false,
            stonewall: false,
            new_group: false,
            wait_for: None,
            cpus_allowed: None,
            clat_percentiles: true,
            lat_percentiles: false,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            kb_base: KbBase::Binary,
            unified_rw_reporting: Unified::None,
            description: None,
            bw_avg_ms: DEFAULT_AVG_MS,
            iops_avg_ms: DEFAULT_AVG_MS,
            verify: None,
            norandommap: false,
            access: FioAccess::default(),
        }
    }
}

impl JobOptions {
    /// Whether the job reads.
    pub fn reads(&self) -> bool {
        match self.rw {
            RwMode::Read | RwMode::Randread => true,
            RwMode::Write | RwMode::Randwrite => false,
            RwMode::Rw | RwMode::Randrw => self.rwmixread > 0,
        }
    }

    /// Whether the job writes.
    pub fn writes(&self) -> bool {
        match self.rw {
            RwMode::Read | RwMode::Randread => false,
            RwMode::Write | RwMode::Randwrite => true,
            RwMode::Rw | RwMode::Randrw => self.rwmixread < 100,
        }
    }
}

/// Options fio has and halfpower will take, but cannot run yet: refused, with this reason.
pub const NOT_YET: [(&str, &str); 0] = [];

/// fio's checksum methods for `verify`: each becomes halfpower's own seal (a header and a
/// CRC-32C per block) and read-back.
pub const VERIFY_METHODS: [&str; 16] = [
    "md5",
    "crc64",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha1",
    "sha256",
    "sha512",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "meta",
];

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

/// Every option name `halfpower fio` takes (for the docs and `--ignore-unknown`).
pub const SUPPORTED: [&str; 47] = [
    "name",
    "filename",
    "directory",
    "nrfiles",
    "size",
    "filesize",
    "offset",
    "io_size",
    "io_limit",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "direct",
    "invalidate",
    "buffered",
    "sync",
    "ioengine",
    "iodepth",
    "numjobs",
    "runtime",
    "timeout",
    "time_based",
    "ramp_time",
    "startdelay",
    "loops",
    "randrepeat",
    "randseed",
    "group_reporting",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "wait_for",
    "cpus_allowed",
    "clat_percentiles",
    "lat_percentiles",
    "percentile_list",
    "kb_base",
    "unified_rw_reporting",
    "description",
    "bwavgtime",
    "iopsavgtime",
    "blocksize_unaligned",
    "bs_unaligned",
    "norandommap",
];

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

fn pct(option: &str, v: &str) -> Result<u8, FioError> {
    let n = number::int(option, v)?;
    u8::try_from(n)
        .ok()
        .filter(|p| *p <= 100)
        .ok_or_else(|| FioError::value(option, v, "a percentage from 0 to 100"))
}

fn u32_in(option: &str, v: &str, max: u32) -> Result<u32, FioError> {
    let n = number::int(option, v)?;
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| FioError::value(option, v, format!("a whole number from 1 to {max}")))
}

impl JobOptions {
    /// Applies one option. `kb_base` must already be set (fio reads it before the sizes).
    pub fn apply(&mut self, key: &str, value: Option<&str>) -> Result<(), FioError> {
        let base = self.kb_base;
        let need =
            || value.ok_or_else(|| FioError::value(key, "", "a value (write it as key=value)"));
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
            return self.access.apply(key, value, base);
        }
        match key {
            "name" => self.name = need()?.to_string(),
            // fio adds a job's filename to the one it inherited (two files, the size split
            // between them), so a second filename makes a list.
            "filename" => {
                let f = need()?;
                self.filename = Some(match self.filename.take() {
                    Some(before) => format!("{before}:{f}"),
                    None => f.to_string(),
                });
            }
            "directory" => self.directory = Some(need()?.to_string()),
            "nrfiles" => self.nrfiles = u32_in(key, need()?, 1_000_000)? as u64,
            "size" => self.size = Some(number::size(key, need()?, base, true)?),
            "filesize" => {
                let v = need()?;
                if v.contains('-') && !v.trim().starts_with('(') && !v.contains('$') {
                    return Err(FioError::NotYet {
                        option: key.into(),
                        why: format!("a range of file sizes ({v}): give one size"),
                    });
                }
                self.filesize = Some(number::bytes(key, v, base)?).filter(|b| *b > 0);
            }
            "offset" => self.offset = number::size(key, need()?, base, true)?,
            "io_size" | "io_limit" => self.io_size = Some(number::bytes(key, need()?, base)?),
            "rw" | "readwrite" => {
                let v = need()?;
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
                    Some(s) => Some(number::bytes(key, s, base)?),
                    None => None,
                };
            }
            "rwmixread" => self.rwmixread = pct(key, need()?)?,
            "rwmixwrite" => self.rwmixread = 100 - pct(key, need()?)?,
            "bs" | "blocksize" => {
                let v = need()?;
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
                    Some("") => self.bs[1],
                    Some(s) => number::bytes(key, s, base)?,
                };
                self.bs = [read, write];
            }
            "direct" => self.direct = number::switch(key, value)?,
            "invalidate" => self.invalidate = number::switch(key, value)?,
            "buffered" => self.direct = !number::switch(key, value)?,
            "sync" => {
                self.sync = match value.map(str::trim) {
                    None | Some("1") | Some("sync") | Some("dsync") => true,
                    Some("0") | Some("none") => false,
                    Some(v) => return Err(FioError::value(key, v, "0, 1, none, sync or dsync")),
                }
            }
            "ioengine" => self.ioengine = FioEngine::parse(need()?)?,
            "iodepth" => self.iodepth = u32_in(key, need()?, crate::spec::MAX_QD)?,
            "numjobs" => self.numjobs = u32_in(key, need()?, crate::spec::MAX_THREADS)?,
            "runtime" | "timeout" => {
                let us = number::time_us(key, need()?, TimeUnit::Seconds)?;
                self.runtime_us = (us > 0).then_some(us);
            }
            "time_based" => self.time_based = number::switch(key, value)?,
            "ramp_time" => self.ramp_time_us = number::time_us(key, need()?, TimeUnit::Seconds)?,
            "startdelay" => self.startdelay_us = number::time_us(key, need()?, TimeUnit::Seconds)?,
            "loops" => self.loops = u32_in(key, need()?, 1_000_000)? as u64,
            "randrepeat" => self.randrepeat = number::switch(key, value)?,
            "randseed" => self.randseed = Some(number::int(key, need()?)?),
            "group_reporting" => self.group_reporting = number::switch(key, value)?,
            "stonewall" | "wait_for_previous" => self.stonewall = number::switch(key, value)?,
            "new_group" => self.new_group = number::switch(key, value)?,
            "wait_for" => self.wait_for = Some(need()?.to_string()),
            "cpus_allowed" => self.cpus_allowed = Some(need()?.to_string()),
            "clat_percentiles" => self.clat_percentiles = number::switch(key, value)?,
            "lat_percentiles" => self.lat_percentiles = number::switch(key, value)?,
            "percentile_list" => {
                let v = need()?;
                let list: Result<Vec<f64>, _> = v
                    .split(':')
                    .map(|p| {
                        p.trim()
                            .parse::<f64>()
                            .ok()
                            .filter(|q| *q > 0.0 && *q <= 100.0)
                            .ok_or_else(|| {
                                FioError::value(key, v, "percentiles above 0 and at most 100 separated by ':', e.g. 50:99:99.9")
                            })
                    })
                    .collect();
                self.percentile_list = list?;
            }
            "kb_base" => self.kb_base = KbBase::parse(key, need()?)?,
            "verify" => {
                let v = need()?.trim();
                self.verify = match v {
                    "none" | "0" => None,
                    m if VERIFY_METHODS.contains(&m) => Some(m.to_string()),
                    _ => {
                        return Err(FioError::value(
                            key,
                            v,
                            format!(
                                "none or a checksum method ({}); pattern verification is not \
                                 halfpower's",
                                VERIFY_METHODS.join(", ")
                            ),
                        ));
                    }
                };
            }
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
            "description" => self.description = Some(need()?.to_string()),
            "bwavgtime" | "iopsavgtime" => {
                let v = need()?;
                let ms = number::time_us(key, v, TimeUnit::Millis)? / 1000;
                if ms < MIN_AVG_MS {
                    return Err(FioError::value(
                        key,
                        v,
                        format!(
                            "at least {MIN_AVG_MS} ms (halfpower counts the I/Os done every \
                             {MIN_AVG_MS} ms)"
                        ),
                    ));
                }
                match key {
                    "bwavgtime" => self.bw_avg_ms = ms,
                    _ => self.iops_avg_ms = ms,
                }
            }
            // halfpower always draws random offsets with replacement, which is what
            // norandommap asks for (docs/fio.md: jobs without it touch each block once a pass).
            "norandommap" => self.norandommap = number::switch(key, value)?,
            "blocksize_unaligned" | "bs_unaligned" => {
                if number::switch(key, value)? {
                    return Err(FioError::NotYet {
                        option: key.to_string(),
                        why: "halfpower issues whole, aligned requests only".into(),
                    });
                }
            }
            _ => return Err(FioError::Unsupported(key.to_string())),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(opts: &[(&str, Option<&str>)]) -> Result<JobOptions, FioError> {
        let mut j = JobOptions::default();
        for (k, v) in opts {
            j.apply(k, *v)?;
        }
        Ok(j)
    }

    #[test]
    fn fio_defaults() {
        let j = JobOptions::default();
        assert!(!j.direct, "fio's default is buffered I/O");
        assert_eq!(j.ioengine, FioEngine::Sync);
        assert_eq!(j.bs, [4096, 4096]);
        assert_eq!(j.iodepth, 1);
    }

    #[test]
    fn options_take_fio_values() {
        let j = job(&[
            ("rw", Some("randrw")),
            ("rwmixwrite", Some("30")),
            ("bs", Some("4k,64k")),
            ("direct", Some("1")),
            ("ioengine", Some("libaio")),
            ("iodepth", Some("16")),
            ("runtime", Some("30")),
            ("time_based", None),
            ("ramp_time", Some("2s")),
            ("size", Some("50%")),
        ])
        .unwrap();
        assert_eq!(j.rw, RwMode::Randrw);
        assert_eq!(j.rwmixread, 70);
        assert_eq!(j.bs, [4096, 65536]);
        assert!(j.direct && j.time_based);
        assert_eq!(j.ioengine, FioEngine::Libaio);
        assert_eq!(j.runtime_us, Some(30_000_000));
        assert_eq!(j.ramp_time_us, 2_000_000);
        assert_eq!(j.size, Some(Size::Percent(50.0)));
        assert_eq!(job(&[("bs", Some("8k"))]).unwrap().bs, [8192, 8192]);
        assert_eq!(
            job(&[("rw", Some("read:64k"))]).unwrap().rw_stride,
            Some(65536)
        );
    }

    #[test]
    fn unknown_options_are_refused_by_name() {
        match job(&[("zonemode", Some("zbd"))]) {
            Err(FioError::Unsupported(name)) => assert_eq!(name, "zonemode"),
            other => panic!("{other:?}"),
        }
        // fio 3.33 has no random_center ("unrecognized option"): the centre goes after the
        // distribution's value.
        let e = job(&[("random_center", Some("0.5"))]).unwrap_err();
        assert!(matches!(e, FioError::NotFio { .. }), "{e:?}");
        assert!(e.to_string().contains("zipf:1.2:0.5"), "{e}");
        assert_eq!(
            job(&[("verify", Some("crc32c"))])
                .unwrap()
                .verify
                .as_deref(),
            Some("crc32c")
        );
        assert_eq!(job(&[("verify", Some("none"))]).unwrap().verify, None);
        assert!(job(&[("verify", Some("pattern"))]).is_err());
        assert!(job(&[("rate_iops", Some("0"))]).is_ok());
        assert!(job(&[("random_distribution", Some("random"))]).is_ok());
        assert!(job(&[("verify", Some("md5"))]).is_ok());
        assert!(job(&[("iodepth", Some("0"))]).is_err());
        assert!(job(&[("rw", Some("trim"))]).is_err());
        assert!(job(&[("ioengine", Some("spdk"))]).is_err());
    }

    #[test]
    fn every_listed_option_is_known() {
        for &k in SUPPORTED.iter().chain(&super::super::access::KEYS) {
            let v = match k {
                "rw" | "readwrite" => "read",
                "ioengine" => "psync",
                "kb_base" => "1024",
                "percentile_list" => "50:99",
                "bssplit" => "4k/50:8k/50",
                "bsrange" => "4k-8k",
                "random_distribution" => "zipf:1.1",
                "rate_min" => "0",
                "sync" | "unified_rw_reporting" | "blocksize_unaligned" | "bs_unaligned" => "0",
                "bwavgtime" | "iopsavgtime" => "500",
                "name" | "filename" | "directory" | "wait_for" | "cpus_allowed" => "x",
                _ => "1",
            };
            job(&[(k, Some(v))]).unwrap_or_else(|e| panic!("{k}: {e}"));
        }
    }
}
