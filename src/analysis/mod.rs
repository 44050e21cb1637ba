//! Computation on measured figures, pure functions from figures to figures: the queueing laws
//! behind service and queue time, the device model, the seeds' thresholds and rules, the
//! sanity checks a run applies to its own results, the steady-state rule, least-squares
//! service-time lines, the half-power/knee/plateau reading of a sweep, and the diagnosis of
//! logs. Each is tested against the seeds' worked examples. Nothing here reads the OS or a
//! file, or formats output.

pub mod bucket;
pub mod capture;
pub mod changes;
pub mod cloud;
pub mod compare;
pub mod curve;
pub mod device;
pub mod diagnose;
pub mod doctor;
pub mod expect;
pub mod experiments;
pub mod fio;
pub mod fio_logs;
pub mod fio_steady;
pub mod fit;
pub mod headroom;
pub mod host;
pub mod limits;
pub mod live;
pub mod monitor;
pub mod pap;
pub mod path;
pub mod placement;
pub mod policy;
pub mod price;
pub mod profile;
pub mod pts;
pub mod queueing;
pub mod quick;
pub mod ranks;
pub mod rules;
pub mod sanity;
pub mod scale;
pub mod selftest;
pub mod steady;
pub mod student;
pub mod sweep;
pub mod uncertainty;
pub mod watch;
