//! halfpower: what can this storage really do, how far is a workload from it, and why.
//!
//! The library holds everything; `main.rs` only calls [`commands::main`]. The measurement path
//! is `spec` (validated workload) → `target` (open, create, check) → `runner` (threads and
//! phases) → `worker` + `engine` (the I/O loop) → `stats` (histograms, CPU) → `report`.

pub mod affinity;
pub mod analysis;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod diagnose;
pub mod engine;
pub mod error;
pub mod monitor;
pub mod offsets;
pub mod oscounters;
pub mod report;
pub mod rng;
pub mod runner;
pub mod signal;
pub mod spec;
pub mod stats;
pub mod target;
pub mod units;
pub mod worker;

pub use error::{Error, Result};
