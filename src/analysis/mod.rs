//! Analysis of measured figures: the queueing laws behind service and queue time, and the
//! sanity checks a run applies to its own results.

pub mod queueing;
pub mod sanity;
