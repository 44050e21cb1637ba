//! The fio options `halfpower fio` takes, each with fio's meaning, parsed into one typed
//! [`JobOptions`]; every other option is refused by name. Options fio knows and halfpower will
//! take but cannot run yet are refused too (never ignored), with that said.

use super::FioError;
use super::access::FioAccess;
use super::logs::FioLogOptions;
use super::number::{KbBase, Size};
use super::steady::FioSsOptions;
use crate::engine::pattern::Pattern;
use crate::plan::RwMode;

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
    /// The engine fio calls `v`; an engine halfpower does not run is refused.
    pub(super) fn parse(v: &str) -> Result<Self, FioError> {
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
    pub sync: OpenSync,
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
    /// `verify`: the method asked for, a checksum or `pattern` (`None`: no verification).
    pub verify: Option<String>,
    /// Whether `verify` was given at all (`verify_pattern` verifies unless it was).
    pub verify_set: bool,
    /// `verify_pattern`: what verified writes carry, checked on the way back.
    pub verify_pattern: Option<Pattern>,
    /// `buffer_pattern`: what writes carry without verification.
    pub buffer_pattern: Option<Pattern>,
    /// `norandommap`: random offsets drawn with replacement (halfpower always draws so).
    pub norandommap: bool,
    /// `gtod_reduce`: fio's fewer clock reads; halfpower stamps every I/O regardless.
    pub gtod_reduce: bool,
    /// `create_on_open`: fio creates a job's files when it opens them rather than before the
    /// job; halfpower lays them out before measuring either way.
    pub create_on_open: bool,
    /// `overwrite`: a writing job's missing files are written in full before it starts.
    pub overwrite: bool,
    /// `fallocate`: how a missing file of a job that only writes is laid out.
    pub fallocate: Fallocate,
    /// `filename_format`: how a job without `filename` names its files (`$jobname`, `$jobnum`,
    /// `$filenum`; fio's default `$jobname.$jobnum.$filenum`).
    pub filename_format: Option<String>,
    /// `exitall`: when one job of a wave ends, the others end too.
    pub exitall: bool,
    /// `continue_on_error`: which failures a job goes on after.
    pub continue_on_error: ContinueOnError,
    /// The access options: size mixes, distributions, rates, think time.
    pub access: FioAccess,
    /// The steady-state options: `steadystate`, `ss_dur`, `ss_ramp`.
    pub ss: FioSsOptions,
    /// The log options: `write_bw_log`, `write_iops_log`, `write_lat_log`, `log_avg_msec`.
    pub logs: FioLogOptions,
}

/// fio's `continue_on_error`: which errors a job goes on after (fio's default: none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContinueOnError {
    /// Stop at the first error (`none`, `0`).
    None,
    /// Go on after read errors.
    Read,
    /// Go on after write errors.
    Write,
    /// Go on after read and write errors (`io`).
    Io,
    /// Go on after verification failures.
    Verify,
    /// Go on after any error (`all`, `1`).
    All,
}

impl ContinueOnError {
    /// fio's grammar.
    pub fn parse(key: &str, v: Option<&str>) -> Result<Self, FioError> {
        Ok(match v.map(str::trim) {
            Some("none") | Some("0") => ContinueOnError::None,
            Some("read") => ContinueOnError::Read,
            Some("write") => ContinueOnError::Write,
            Some("io") => ContinueOnError::Io,
            Some("verify") => ContinueOnError::Verify,
            None | Some("") | Some("all") | Some("1") => ContinueOnError::All,
            Some(x) => {
                return Err(FioError::value(
                    key,
                    x,
                    "none, read, write, io, verify, all, 0 or 1",
                ));
            }
        })
    }
}

/// fio's `sync`: how a job's files are opened for writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenSync {
    /// `0`, `none`: neither.
    None,
    /// `1`, `sync`: O_SYNC (data and metadata).
    Sync,
    /// `dsync`: O_DSYNC (data, and the metadata needed to read it).
    Dsync,
}

/// fio's `fallocate`: how a job that only writes gets a file that does not exist yet
/// (filesetup.c: reserved, sized or left empty; never written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallocate {
    /// `none`, `0`: created empty; the writes extend it.
    None,
    /// `native` (fio's default), `posix`, `1`: fallocate(2), the blocks reserved unwritten.
    Reserve,
    /// `truncate`: its size set with ftruncate, no blocks allocated (sparse).
    Truncate,
}

impl Fallocate {
    /// fio's grammar; `keep` (blocks reserved past a zero length) has no halfpower layout.
    pub fn parse(key: &str, v: Option<&str>) -> Result<Self, FioError> {
        Ok(match v.map(str::trim) {
            Some("none") | Some("0") => Fallocate::None,
            Some("native") | Some("posix") | Some("1") => Fallocate::Reserve,
            Some("truncate") => Fallocate::Truncate,
            Some("keep") => {
                return Err(FioError::NotYet {
                    option: key.into(),
                    why: "keep: blocks reserved past the end of an empty file are not a layout \
                          halfpower makes (none, native, posix and truncate are)"
                        .into(),
                });
            }
            Some(x) => {
                return Err(FioError::value(
                    key,
                    x,
                    "none, native, posix, truncate, 0 or 1",
                ));
            }
            None => {
                return Err(FioError::value(
                    key,
                    "",
                    "none, native, posix, truncate, 0 or 1",
                ));
            }
        })
    }

    /// The halfpower layout of a missing file.
    pub fn create(self) -> crate::plan::Create {
        use crate::plan::Create;
        match self {
            Fallocate::None => Create::Empty,
            Fallocate::Reserve => Create::Allocated,
            Fallocate::Truncate => Create::Sparse,
        }
    }
}

/// fio's default period of the bandwidth and IOPS samples (`bwavgtime`, `iopsavgtime`), ms.
pub const DEFAULT_AVG_MS: u64 = 500;

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
            sync: OpenSync::None,
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
            verify_set: false,
            verify_pattern: None,
            buffer_pattern: None,
            norandommap: false,
            gtod_reduce: false,
            create_on_open: false,
            overwrite: false,
            fallocate: Fallocate::Reserve,
            filename_format: None,
            exitall: false,
            continue_on_error: ContinueOnError::None,
            access: FioAccess::default(),
            ss: FioSsOptions::default(),
            logs: FioLogOptions::default(),
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

/// Every option name `halfpower fio` takes (for the docs and `--ignore-unknown`).
pub const SUPPORTED: [&str; 56] = [
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
    "gtod_reduce",
    "create_on_open",
    "overwrite",
    "fallocate",
    "filename_format",
    "exitall",
    "continue_on_error",
    "buffer_pattern",
    "verify_pattern",
];

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
        assert!(job(&[("verify", Some("crc"))]).is_err());
        let j = job(&[
            ("verify", Some("pattern")),
            ("verify_pattern", Some("0xa5%o")),
        ])
        .unwrap();
        assert_eq!(j.verify.as_deref(), Some("pattern"));
        assert!(j.verify_pattern.is_some_and(|p| p.has_offsets()));
        // fio 3.33 takes no format in buffer_pattern.
        let e = job(&[("buffer_pattern", Some("0xa5%o"))]).unwrap_err();
        assert!(e.to_string().contains("verify_pattern only"), "{e}");
        assert!(job(&[("rate_iops", Some("0"))]).is_ok());
        assert!(job(&[("random_distribution", Some("random"))]).is_ok());
        assert!(job(&[("verify", Some("md5"))]).is_ok());
        assert!(job(&[("iodepth", Some("0"))]).is_err());
        assert!(job(&[("rw", Some("trim"))]).is_err());
        assert!(job(&[("ioengine", Some("spdk"))]).is_err());
    }

    #[test]
    fn every_listed_option_is_known() {
        for &k in SUPPORTED
            .iter()
            .chain(&super::super::access::KEYS)
            .chain(&super::super::steady::KEYS)
            .chain(&super::super::logs::KEYS)
        {
            let v = match k {
                "rw" | "readwrite" => "read",
                "ioengine" => "psync",
                "kb_base" => "1024",
                "percentile_list" => "50:99",
                "bssplit" => "4k/50:8k/50",
                "bsrange" => "4k-8k",
                "random_distribution" => "zipf:1.1",
                "rate_min" => "0",
                "steadystate" | "ss" => "iops:2%",
                "log_max_value" | "log_offset" | "per_job_logs" => "0",
                "log_avg_msec" => "1000",
                "sync" | "unified_rw_reporting" | "blocksize_unaligned" | "bs_unaligned" => "0",
                "bwavgtime" | "iopsavgtime" => "500",
                "name" | "filename" | "directory" | "wait_for" | "cpus_allowed" => "x",
                "filename_format" => "$jobname.$jobnum.$filenum",
                "continue_on_error" => "io",
                "buffer_pattern" | "verify_pattern" => "0xa5",
                _ => "1",
            };
            job(&[(k, Some(v))]).unwrap_or_else(|e| panic!("{k}: {e}"));
        }
    }
}
