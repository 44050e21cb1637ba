//! The halfpower command: parse, run, print errors on one line, exit with the right status.

use std::process::ExitCode;

fn main() -> ExitCode {
    match halfpower::commands::main(std::env::args_os().collect()) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            halfpower::output::say_line(format!("halfpower: {err:#}"));
            ExitCode::from(halfpower::commands::exit_code(&err))
        }
    }
}
