//! Measured figures: latency histograms, per-worker recorders, the per-second series, CPU
//! cost, measured windows, and the summaries they merge into.

pub mod cpu;
pub mod histogram;
pub mod recorder;
pub mod series;
pub mod summary;
pub mod window;

pub use histogram::Histogram;
pub use recorder::Recorder;
