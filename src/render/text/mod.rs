//! Terminal output: one module per document kind.

pub mod burst;
pub mod capture;
pub mod cause;
pub mod compare;
pub mod diagnosis;
pub mod doctor;
pub mod experiment;
pub mod fio;
pub mod host;
pub mod monitor;
pub mod path;
pub mod policy;
pub mod profile;
pub mod pts;
pub mod quick;
pub mod replay;
pub mod run;
pub mod scale;
pub mod selftest;
pub mod sweep;
pub mod table;
pub mod trend;
pub mod verify;
pub mod warning;
