//! `halfpower verify`: reading a target back later, against the state file a verified run kept
//! or on its own (a verified run itself is `measure::verified`).

use crate::cli::VerifyArgs;
use crate::clock::utc_now;
use crate::model::verify::{Verification, VerifyNote, VerifyReport};
use crate::model::{Document, Header, Kind};
use crate::render::text;
use crate::verify::check::{Scope, check};
use crate::verify::table::State;
use crate::{Error, Result};

/// Runs `halfpower verify`.
pub fn verify(args: VerifyArgs, command: Vec<String>) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    crate::signal::install();
    let verification = match &cmd.against {
        Against::State(p) => against_state(p, &cmd.targets)?,
        Against::Pattern(bs) => whole(&cmd.targets, *bs)?,
    };
    let status = verification.exit_status();
    if status == 2 && cmd.json_on_stdout {
        // The JSON on stdout says it too; the reason for the status goes to stderr.
        for s in text::verify::other_sizes(&verification) {
            crate::output::say!("halfpower: {s}");
        }
    }
    let text = text::verify::lines(&verification);
    let report = VerifyReport {
        header: Header::new(Kind::Verify, command, utc_now()),
        verification,
    };
    exporter.emit(Document::Verify(Box::new(report)), &text)?;
    Ok(if crate::signal::interrupted() {
        crate::signal::exit_status()
    } else {
        status
    })
}

/// What the blocks are checked against.
enum Against {
    /// `--verify-state`'s record.
    State(std::path::PathBuf),
    /// Each block's own header, blocks of `--bs` bytes.
    Pattern(u64),
}

/// `verify`'s options lowered once ([`lower`]).
struct VerifyCommand {
    /// What the blocks are checked against.
    against: Against,
    /// The targets (with a state, none: every target it records).
    targets: Vec<std::path::PathBuf>,
    /// Whether the JSON goes to stdout (`--json -`).
    json_on_stdout: bool,
}

/// Lowers `verify`'s flags, once, into its command and its exporter.
fn lower(args: &VerifyArgs) -> anyhow::Result<(VerifyCommand, super::Exporter<'_>)> {
    let exporter = super::Exporter::checked(&args.output)?;
    let against = match (&args.verify_state.path, args.bs.size()?) {
        (Some(p), _) => Against::State(p.clone()),
        (None, Some(bs)) => Against::Pattern(bs.0),
        (None, None) => unreachable!("clap requires --verify-state or --bs"),
    };
    let cmd = VerifyCommand {
        against,
        targets: args.targets.clone(),
        json_on_stdout: args.output.json.dest == Some(crate::cli::JsonDest::Stdout),
    };
    Ok((cmd, exporter))
}

/// `halfpower verify --verify-state P [TARGET...]`: the blocks state `p` records on `targets`
/// (every target it records when none is named).
fn against_state(p: &std::path::Path, targets: &[std::path::PathBuf]) -> Result<Verification> {
    let state = State::load(p)?;
    let wanted: Vec<String> = if targets.is_empty() {
        state.tables.iter().map(|t| t.path.clone()).collect()
    } else {
        targets.iter().map(|t| t.display().to_string()).collect()
    };
    let mut checks = Vec::new();
    for path in &wanted {
        let table = state
            .tables
            .iter()
            .find(|t| &t.path == path)
            .ok_or_else(|| {
                let known: Vec<&str> = state.tables.iter().map(|t| t.path.as_str()).collect();
                Error::invalid(
                    "TARGET",
                    path,
                    format!("a target the state records: {}", known.join(", ")),
                )
            })?;
        let scope = Scope::Record {
            id: state.id,
            table,
            pattern: None,
        };
        checks.push(
            check(std::path::Path::new(path), scope).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Error::invalid(
                    "TARGET",
                    path,
                    format!("a target that exists: the state records it, yet {e}"),
                ),
                _ => Error::io(format!("reading {path} back"), e),
            })?,
        );
    }
    let mut v = Verification::new(Some(state.id), Some(p.display().to_string()), checks);
    if state.tables.iter().any(|t| !t.flushes_recorded) {
        v.notes.push(VerifyNote::NoFlushRecorded);
    }
    Ok(v)
}

/// `halfpower verify TARGET... --bs SIZE`: every block of each whole target.
fn whole(targets: &[std::path::PathBuf], bs: u64) -> Result<Verification> {
    if targets.is_empty() {
        return Err(Error::invalid(
            "TARGET",
            "(none)",
            "with --bs, one or more targets",
        ));
    }
    if bs < 512 || bs % 512 != 0 {
        return Err(Error::invalid(
            "--bs",
            crate::units::ByteSize(bs),
            "a multiple of 512 bytes",
        ));
    }
    let mut checks = Vec::new();
    for p in targets {
        let size = size_of(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::invalid(
                "TARGET",
                p.display(),
                format!("a file or block device to read ({e})"),
            ),
            _ => Error::io(format!("opening {}", p.display()), e),
        })?;
        let scope = Scope::Whole { block: bs, size };
        checks.push(check(p, scope).map_err(|e| Error::io(format!("reading {}", p.display()), e))?);
    }
    Ok(Verification::new(None, None, checks))
}

/// The bytes of a file or block device (its end).
fn size_of(p: &std::path::Path) -> std::io::Result<u64> {
    use std::io::Seek;
    std::fs::File::open(p)?.seek(std::io::SeekFrom::End(0))
}
