//! Glue per subcommand: parse the command line, run, print. `main.rs` calls [`main`].

mod capture;
mod compare;
mod diagnose;
mod doctor;
mod experiment;
mod export;
mod fio;
mod lower;
mod monitor;
mod path;
mod profile;
mod pts;
mod quick;
mod replay;
mod report;
mod run;
mod scale;
mod selftest;
mod sweep;
mod trend;
mod verify;

use crate::cli::{Cli, Command, QuickArgs};
use std::ffi::OsString;

/// The launcher's variable and world size when this process is one of several that mpirun
/// (Open MPI) or an MPI process manager (MPICH, Slurm's PMI) started; asked only of a build
/// without the `mpi` feature.
fn launched_as_many() -> Option<(&'static str, u64)> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .into_iter()
        .find_map(|var| {
            let n: u64 = std::env::var(var).ok()?.trim().parse().ok()?;
            (n > 1).then_some((var, n))
        })
}

/// Parses `argv`, runs the command and returns the exit status: 0 success, 1 failure, 2 usage
/// error, 130 interrupted.
pub fn main(argv: Vec<OsString>) -> anyhow::Result<u8> {
    let (cli, typed) = match crate::cli::parse_typed(&argv) {
        Ok(parsed) => parsed,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return Ok(0);
            }
            crate::output::say!("halfpower: {}", one_line(&e.render().to_string()));
            return Ok(2);
        }
    };
    if !cfg!(feature = "mpi")
        && let Some((var, n)) = launched_as_many()
    {
        crate::output::say!(
            "halfpower: started as one of {n} processes ({var}={n}: mpirun or srun), but this \
             halfpower was built without MPI, so the {n} copies would measure independently and \
             no one would add them up. Build it with `cargo build --release --features mpi`, \
             or run it without mpirun"
        );
        return Ok(2);
    }
    if let Some(n) = crate::cluster::unjoined_tasks() {
        crate::output::say!(
            "halfpower: started as one of {n} tasks of a Slurm step (SLURM_STEP_NUM_TASKS={n}) \
             with no MPI process manager, so the {n} copies would measure independently and no \
             one would add them up. Run `srun --mpi=pmix -n {n} halfpower …` with halfpower \
             built with `--features mpi`, or srun one task"
        );
        return Ok(2);
    }
    // MPI (with the `mpi` feature, under mpirun or srun) lives until this function returns.
    let _mpi = crate::cluster::init();
    if crate::cluster::many() && !runs_as_one_job(&cli.command) {
        if crate::cluster::rank() == 0 {
            crate::output::say!(
                "halfpower: under MPI ({} ranks) the measuring commands run as one job (run, \
                 quick, sweep, profile, scale, experiment, replay, fio; monitor writes one log \
                 of every host); pts stays on one host \
                 (SNIA's tests are of one device), and the others read or judge files: run \
                 them without mpirun",
                crate::cluster::size()
            );
        }
        return Ok(2);
    }
    crate::signal::install();
    let command: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = dispatch(cli, command).map_err(|e| as_typed(e, &typed));
    match result {
        Err(e) if crate::cluster::many() => failed_rank(e),
        done => done,
    }
}

/// `e` naming the value of its option as the user typed it, where a parser had normalised it
/// (`invalid --think '61000ms'`, not `'61s'`). A value that is one item of what was typed
/// (`3000` of `--bs 4k,3000`), or an option typed more than once or not at all, stays as said.
fn as_typed(mut e: anyhow::Error, typed: &crate::cli::Typed) -> anyhow::Error {
    fn mend(e: &mut crate::Error, typed: &crate::cli::Typed) {
        match e {
            crate::Error::Invalid { what, value, .. } => {
                if let Some(word) = typed.once(what)
                    && !(word.contains(',') && word.contains(value.as_str()))
                {
                    *value = word.to_string();
                }
            }
            crate::Error::Alike(inner) => mend(inner, typed),
            _ => {}
        }
    }
    if let Some(inner) = e.downcast_mut::<crate::Error>() {
        mend(inner, typed);
    }
    e
}

/// Ends this rank of an MPI job after `e`. An error every rank reached alike at one step:
/// rank 0 says it once, no rank ends before it has (mpirun ends the job at the first rank's
/// failed status), and each ends with its status. Any other: no rank may be left waiting in
/// a barrier, so this one names itself and aborts the job.
fn failed_rank(e: anyhow::Error) -> anyhow::Result<u8> {
    if alike(&e) {
        if crate::cluster::rank() == 0 {
            crate::output::say!("halfpower: {e:#}");
        }
        crate::cluster::barrier();
        return Ok(exit_code(&e));
    }
    crate::output::say!(
        "halfpower: rank {} of {} on {} failed: {e:#}",
        crate::cluster::rank(),
        crate::cluster::size(),
        crate::cluster::host()
    );
    crate::cluster::abort(exit_code(&e).max(1) as i32);
}

/// Whether `command` runs as one job of every rank under MPI: the measuring commands, each
/// point of which the measuring session joins across the ranks (`measure::job`).
fn runs_as_one_job(command: &Option<Command>) -> bool {
    matches!(
        command,
        Some(
            Command::Run(_)
                | Command::Quick(_)
                | Command::Sweep(_)
                | Command::Profile(_)
                | Command::Scale(_)
                | Command::Experiment(_)
                | Command::Replay(_)
                | Command::Fio(_)
                | Command::Monitor(_)
        ) | None
    )
}

fn dispatch(cli: Cli, command: Vec<String>) -> anyhow::Result<u8> {
    match cli.command {
        Some(Command::Run(args)) => run::run(args, command),
        Some(Command::Quick(args)) => quick::quick(args, command),
        Some(Command::Monitor(args)) => monitor::monitor(args),
        Some(Command::Diagnose(args)) => diagnose::diagnose(args),
        Some(Command::Sweep(args)) => sweep::sweep(args, command),
        Some(Command::Scale(args)) => scale::scale(args, command),
        Some(Command::Experiment(args)) => experiment::experiment(args, command),
        Some(Command::Profile(args)) => profile::profile(args, command),
        Some(Command::Report(args)) => report::report(args),
        Some(Command::Compare(args)) => compare::compare(args, command),
        Some(Command::Trend(args)) => trend::trend(args, command),
        Some(Command::Fio(args)) => fio::fio(args.args),
        Some(Command::Verify(args)) => verify::verify(args, command),
        Some(Command::Replay(args)) => replay::replay(args, command),
        Some(Command::Capture(args)) => capture::capture(args, command),
        Some(Command::Path(args)) => path::path(args, command),
        Some(Command::Pts(args)) => pts::pts(args, command),
        Some(Command::Selftest(args)) => selftest::selftest(args, command),
        Some(Command::Doctor(args)) => doctor::doctor(args, command),
        None => quick::quick(QuickArgs::default_for_main(), command),
    }
}

/// Folds clap's multi-line message into one line: the error and its details, without the
/// usage block and the `--help` hint.
fn one_line(msg: &str) -> String {
    msg.lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim_start_matches("error: ")
        .to_string()
}

/// The exit status for an error that reached the top: the library's own classification when
/// it is a [`crate::Error`], else 1.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    err.chain()
        .find_map(|e| e.downcast_ref::<crate::Error>())
        .map_or(1, crate::Error::exit_code)
}

/// Whether `err` is one every rank of an MPI job reached alike ([`crate::Error::Alike`]).
fn alike(err: &anyhow::Error) -> bool {
    err.chain()
        .find_map(|e| e.downcast_ref::<crate::Error>())
        .is_some_and(|e| matches!(e, crate::Error::Alike(_)))
}

use crate::measure::warn;
use export::Exporter;

#[cfg(test)]
mod tests {
    #[test]
    fn clap_messages_become_one_line() {
        let msg = "error: the following required arguments were not provided:\n  <TARGET>...\n\nUsage: halfpower run <TARGET>...\n\nFor more information, try '--help'.\n";
        assert_eq!(
            super::one_line(msg),
            "the following required arguments were not provided: <TARGET>..."
        );
    }
}
