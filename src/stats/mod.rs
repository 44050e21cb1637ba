//! Measured figures: latency histograms, per-worker recorders, the per-second series, CPU
//! cost, queue-depth counts, the per-I/O record, the counts at fio's log periods, measured
//! windows, the host probe, and the summaries they merge into.

pub mod cpu;
pub mod depth;
pub mod histogram;
pub mod host;
pub mod iolog;
pub mod periods;
pub mod recorder;
pub mod series;
pub mod summary;
pub mod window;

pub use histogram::Histogram;
pub use recorder::Recorder;
