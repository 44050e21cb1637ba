//! The diagnosis document (`kind: "diagnose"`): per device a verdict with its evidence, the
//! response-time split, and every interval; filled by `analysis::diagnose`. The rule, advice and
//! evidence in words are `render::words`'s.

use super::Kind;
use super::device::{ClassEvidence, DeviceClass, ServiceMethod, Serving};
use super::evidence::{class_evidence_list, evidence_list};
use super::log::InputInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use super::evidence::{Evidence, ExpectationSource, ExpectedService, Figure, Finding, Verdict};

/// Version of the diagnose JSON layout. 2 (2026-11-25): findings and class facts became kinds
/// with their numbers; version 1 files still read.
pub const DIAGNOSE_SCHEMA_VERSION: u32 = 2;

/// How diagnose decided which device a `--profile` applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProfileMatch {
    /// The profile names the disk it was measured on (`target_info.device`, or a `/dev/NAME`
    /// target).
    Measured,
    /// The user named the device with `--profile-device`.
    Named,
    /// The profile names no disk and the logs hold one device.
    OnlyDevice,
}

/// The `--profile` of a diagnosis and the devices it applies to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileApplied {
    /// The names a log may give the device the profile applies to.
    pub devices: Vec<String>,
    /// How that device was decided.
    pub how: ProfileMatch,
    /// Whether a device of the logs carries one of those names (if not, every device is judged
    /// by its class).
    pub found: bool,
}

/// One interval's diagnosis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IntervalDiagnosis {
    /// End of the interval.
    pub time: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Utilization, %.
    pub utilization_pct: Option<f64>,
    /// I/Os per second.
    pub iops: f64,
    /// Response time, ms.
    pub response_ms: Option<f64>,
    /// Service time, ms.
    pub service_ms: Option<f64>,
    /// Queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// The findings behind the verdict (files of older versions held them in words only: they
    /// read as none).
    #[serde(deserialize_with = "evidence_list")]
    pub evidence: Vec<Evidence>,
}

/// Queue time at a higher load by M/M/1.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Projection {
    /// Load relative to the observed (1.0 = as observed).
    pub load_factor: f64,
    /// Utilization at that load, %.
    pub utilization_pct: f64,
    /// Queue time, ms (absent at or beyond saturation).
    pub queue_ms: Option<f64>,
    /// Response time = service + queue, ms.
    pub response_ms: Option<f64>,
}

/// One device over the whole input.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceDiagnosis {
    /// Device or instance name.
    pub device: String,
    /// Device class (`analysis::device`: from the log, or inferred from the name and the data).
    pub class: DeviceClass,
    /// How the device serves requests (absent in files of older versions: unknown).
    #[serde(default)]
    pub serving: Serving,
    /// The facts that decided `class` and `serving` (files of older versions held them in
    /// words only: they read as none).
    #[serde(default, deserialize_with = "class_evidence_list")]
    pub class_evidence: Vec<ClassEvidence>,
    /// The whole log's verdict.
    pub verdict: Verdict,
    /// Mean utilization, % (time-weighted).
    pub utilization_pct: Option<f64>,
    /// Mean I/Os per second.
    pub iops: f64,
    /// Mean response time, ms (I/O-weighted).
    pub response_ms: Option<f64>,
    /// Mean service time, ms (I/O-weighted).
    pub service_ms: Option<f64>,
    /// Mean queue time, ms.
    pub queue_ms: Option<f64>,
    /// Mean number in the system.
    pub queue_length: Option<f64>,
    /// How the service time was obtained (the method of most active intervals).
    pub service_source: ServiceMethod,
    /// Expected service time, ms, for the first interval's mean request size.
    pub expected_service_ms: Option<f64>,
    /// That request size, KiB (absent in files of older versions).
    #[serde(default)]
    pub expected_request_kib: Option<f64>,
    /// Where `expected_service_ms` comes from: the profile measured on this device, or the
    /// class (also when a profile of another device was given).
    #[serde(default)]
    pub expectation_source: ExpectationSource,
    /// Intervals per verdict.
    pub verdict_counts: BTreeMap<Verdict, usize>,
    /// The findings behind the verdict (files of older versions held them in words only: they
    /// read as none).
    #[serde(deserialize_with = "evidence_list")]
    pub evidence: Vec<Evidence>,
    /// M/M/1 queue time at more load (serial devices only; valid for open arrivals only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<Vec<Projection>>,
    /// With a `--profile` of this device that holds curves (a sweep, or a profile's random
    /// cells): its busiest interval placed on the curve of its mix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<WorkloadHeadroom>,
    /// Steps in the device's I/Os per second and response time over the log
    /// (`analysis::changes`), `at_s` from the end of its first interval; the cause only where
    /// the device's own time per I/O tells (a log has no latency from above the device).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<crate::model::change::Change>,
    /// Every interval.
    pub intervals: Vec<IntervalDiagnosis>,
}

/// System figures over the whole input.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SystemSummary {
    /// System intervals read.
    pub intervals: usize,
    /// Highest hard-paging rate, pages/s.
    pub paging_s_max: Option<f64>,
    /// Intervals with hard paging above 5 pages/s.
    pub paging_intervals: usize,
    /// Highest processor busy, %.
    pub cpu_pct_max: Option<f64>,
    /// Highest interrupt time, %.
    pub interrupt_pct_max: Option<f64>,
}

/// The whole result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Diagnosis {
    /// Layout version.
    pub schema_version: u32,
    /// Always `diagnose`.
    pub kind: Kind,
    /// The files read.
    pub inputs: Vec<InputInfo>,
    /// With `--profile`: the device it applies to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileApplied>,
    /// One entry per device.
    pub devices: Vec<DeviceDiagnosis>,
    /// The system.
    pub system: SystemSummary,
}

impl super::Report for Diagnosis {
    const SCHEMA: Option<u32> = Some(DIAGNOSE_SCHEMA_VERSION);

    fn log_warnings(&self) -> Vec<&[super::Warning]> {
        self.inputs.iter().map(|i| &i.warnings[..]).collect()
    }

    fn nothing_to_draw(&self) -> Option<&'static str> {
        (self.devices.is_empty()).then_some("the diagnosis has no devices")
    }
}

/// The observed workload placed on the device's measured curve (`diagnose --profile` with a
/// sweep, or a profile's random cells): how far its busiest interval is from the knee and the
/// peak of what the device did at the nearest mix.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkloadHeadroom {
    /// The busiest interval (end time).
    pub at: String,
    /// Its I/Os per second.
    pub observed_iops: f64,
    /// Its share of reads, %.
    pub observed_read_pct: f64,
    /// Its mean request size, bytes.
    pub observed_request_bytes: f64,
    /// Its response time, ms.
    pub observed_response_ms: Option<f64>,
    /// Where it lies on the curve of its mix; none when no curve has its direction of I/O.
    pub curve: Option<CurvePlace>,
}

/// Where an observed load lies on one measured curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePlace {
    /// Where the curve was measured.
    pub source: super::profile::CurveSource,
    /// The curve's rw mode.
    pub rw: crate::plan::RwMode,
    /// Its request size, bytes.
    pub bs_bytes: u64,
    /// Whether that size is within a factor of 1.5 of the observed mean request.
    pub size_matches: bool,
    /// The most I/Os per second the curve reached, and with how many in flight.
    pub peak_iops: f64,
    /// Requests in flight at the peak.
    pub peak_inflight: u32,
    /// I/Os per second at the knee (where more depth stops adding throughput); none when the
    /// curve never bends within what was measured.
    pub knee_iops: Option<f64>,
    /// Requests in flight at the knee.
    pub knee_inflight: Option<u32>,
    /// Peak ÷ observed: how many times the load could grow before the device is saturated.
    pub to_peak: f64,
    /// Knee ÷ observed: how many times before response time climbs with every request added.
    pub to_knee: Option<f64>,
    /// The curve's response time at the observed rate (interpolated between its loads), ms.
    pub curve_latency_ms: Option<f64>,
}
