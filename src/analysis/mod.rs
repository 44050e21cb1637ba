//! Analysis of measured figures: the queueing laws behind service and queue time, the seeds'
//! thresholds and consistency checks, and the sanity checks a run applies to its own results.

pub mod limits;
pub mod queueing;
pub mod sanity;
