//! Results as people and programs read them: terminal tables and text, CSV, and the HTML report.
//! Everything here reads the typed documents of `model` and formats them; nothing measures, and
//! nothing computes a figure the document does not already hold.

pub mod csv;
pub mod html;
pub mod iolog;
pub mod metrics;
pub mod prom;
pub mod text;
pub mod textfile;
pub mod trace;
pub mod words;
