//! halfpower: what can this storage really do, how far is a workload from it, and why.
//!
//! The library holds everything; `main.rs` only calls [`commands::main`]. Layers, each using
//! only those below it (docs/architecture.md):
//!
//! 1. base: [`error`], [`units`], [`clock`], [`signal`], [`rng`], [`output`], [`cluster`] (the
//!    ranks of an MPI job, or one process)
//! 2. the machine: [`oscounters`] (/proc and sysfs), [`engine`] (io_uring, sync, null),
//!    [`affinity`], [`offsets`], [`access`] (size mixes, distributions, rate caps, think time),
//!    [`verify`] (sealed blocks, the record of writes, reading back)
//! 3. measured figures: [`stats`] (histograms, recorders, CPU, windows), [`plan`] (workload)
//! 4. typed documents: [`model`] (the JSON schema)
//! 5. computation and reading: [`analysis`] (pure figures from figures), [`input`] (parsers
//!    into documents), [`fio`] (fio's job files into workloads)
//! 6. output: [`render`] (text, CSV, HTML)
//! 7. measuring: [`storage`], [`worker`], [`runner`], [`monitor`]
//! 8. one measuring session: [`measure`] (targets, points, repeats, verification)
//! 9. [`cli`] and [`commands`] on top.

#![warn(missing_docs)]

pub mod access;
pub mod affinity;
pub mod analysis;
pub mod cli;
pub mod clock;
pub mod cluster;
pub mod commands;
pub mod engine;
pub mod error;
pub mod fio;
pub mod input;
pub mod measure;
pub mod model;
pub mod monitor;
pub mod offsets;
pub mod oscounters;
pub mod output;
pub mod plan;
pub mod render;
pub mod rng;
pub mod runner;
pub mod serve;
pub mod signal;
pub mod stats;
pub mod storage;
pub mod units;
pub mod verify;
pub mod worker;

pub use error::{Error, Result};
