//! Analysis of measured figures: the queueing laws behind service and queue time, the seeds'
//! thresholds and consistency checks, the sanity checks a run applies to its own results, the
//! steady-state rule, least-squares service-time lines, and the half-power/knee/plateau
//! reading of a sweep.

pub mod fit;
pub mod limits;
pub mod queueing;
pub mod sanity;
pub mod steady;
pub mod sweep;
