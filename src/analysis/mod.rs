//! Analysis of measured figures: for now, the sanity checks a run applies to its own results
//! (is this latency possible for this device, did reads come from the page cache?).

pub mod sanity;
