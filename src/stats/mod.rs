//! Measured figures: latency histograms, per-worker recorders, per-second series, CPU cost,
//! and the summaries they merge into.

pub mod cpu;
pub mod histogram;
pub mod recorder;
pub mod summary;

pub use histogram::Histogram;
pub use recorder::Recorder;
