//! The integration tests, as one test binary (cargo runs binaries one after another, the tests of
//! one binary side by side): each module was a binary of its own before. Tests that need the
//! process or the machine to themselves are in tests/alone; MPI's in tests/mpi.rs.

#[path = "../common/mod.rs"]
mod common;

mod access;
mod browser;
mod burst;
mod cli;
mod compare;
mod destinations;
mod diagnose;
mod docs;
mod doctor;
mod doctor_price;
mod durable;
mod engine;
mod experiments;
mod faults;
mod figures;
mod fio;
mod flags;
mod flushes;
mod fuzz_parsers;
mod fuzz_path;
mod help;
mod iolog;
mod layers;
mod limits;
mod loopdev;
mod lowered;
mod metrics;
mod monitor;
mod monitor_checks;
mod outputs;
mod path;
mod pts;
mod pts_known;
mod quick;
mod recipes;
mod report;
mod scale;
mod sweep;
mod tables;
mod trend;
mod verify;
mod vs_fio;
mod warnings;
