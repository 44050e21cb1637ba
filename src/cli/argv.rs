//! The words of a command line made ready for clap. A flag whose value is optional
//! (`--ranks[=COUNTS]`, `--steady[=PCT|pts]`: `num_args = 0..=1` with `require_equals`) takes
//! the next word as its value when the flag's own value parser accepts it, as if typed with
//! `=` (`--ranks 2,4` is `--ranks=2,4`); any other word stays what it was (`--ranks /mnt/f`:
//! a target). Clap alone reads `--ranks 2,4 f` as `--ranks` without a value and `2,4` as a
//! target. A target spelled like such a value is written `./2,4`. A negative number after any
//! flag that takes a value is that flag's value (`--size -5m` is `--size=-5m`), for its parser
//! to refuse by name.

use super::Cli;
use clap::parser::ValueSource;
use clap::{Arg, CommandFactory, FromArgMatches};
use std::ffi::{OsStr, OsString};

/// Parses `argv` (the program's name first) into the command line, each flag's help kept to
/// the command it is shown in (`super::tailor`).
pub fn parse(argv: &[OsString]) -> Result<Cli, clap::Error> {
    parse_typed(argv).map(|(cli, _)| cli)
}

/// The words typed for each long flag of the subcommand, before any parser normalised them
/// (`--think 61000ms` is checked as 61 s): an error found after parsing names the value as the
/// user wrote it.
#[derive(Clone, Debug, Default)]
pub struct Typed(Vec<(String, Vec<String>)>);

impl Typed {
    /// The one word typed for `flag` (`--think`), if it was given once with one value.
    pub fn once(&self, flag: &str) -> Option<&str> {
        match self.0.iter().find(|(f, _)| f == flag) {
            Some((_, words)) if words.len() == 1 => Some(&words[0]),
            _ => None,
        }
    }
}

/// [`parse`], and what was typed for each flag.
pub fn parse_typed(argv: &[OsString]) -> Result<(Cli, Typed), clap::Error> {
    let matches = command().try_get_matches_from(joined(argv))?;
    let cli = Cli::from_arg_matches(&matches)?;
    let mut typed = Typed::default();
    if let Some((name, sub)) = matches.subcommand()
        && let Some(def) = Cli::command().find_subcommand(name)
    {
        // Only values typed on the command line: not a flag's implied `true`, not a default.
        let typed_here = |a: &&Arg| {
            a.get_action().takes_values()
                && sub.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine)
        };
        for a in def.get_arguments().filter(typed_here) {
            let (Some(long), Ok(Some(raw))) = (a.get_long(), sub.try_get_raw(a.get_id().as_str()))
            else {
                continue;
            };
            let words = raw.map(|w| w.to_string_lossy().into_owned()).collect();
            typed.0.push((format!("--{long}"), words));
        }
    }
    Ok((cli, typed))
}

/// The command line's definition, as `--help` shows it.
pub fn command() -> clap::Command {
    super::tailor::tailored(Cli::command())
}

/// `argv` with each optional-valued flag of its subcommand joined to the value that follows it.
fn joined(argv: &[OsString]) -> Vec<OsString> {
    let cmd = Cli::command();
    let sub = argv
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, w)| !w.to_string_lossy().starts_with('-'))
        .and_then(|(i, w)| Some((i, cmd.find_subcommand(w)?)));
    let Some((at, sub)) = sub else {
        return argv.to_vec();
    };
    let valued: Vec<&Arg> = sub
        .get_arguments()
        .filter(|a| a.get_long().is_some() && a.get_action().takes_values())
        .collect();
    let mut out = argv[..=at].to_vec();
    let mut words = argv[at + 1..].iter().peekable();
    while let Some(word) = words.next() {
        if word == "--" {
            out.push(word.clone());
            out.extend(words.cloned());
            break;
        }
        let flag = (word.to_str().and_then(|w| w.strip_prefix("--")))
            .and_then(|name| valued.iter().find(|a| a.get_long() == Some(name)));
        match (flag, words.peek()) {
            (Some(a), Some(value))
                if negative(value) || (optional_value(a) && accepts(a, value)) =>
            {
                let mut both = word.clone();
                both.push("=");
                both.push(value);
                out.push(both);
                words.next();
            }
            _ => out.push(word.clone()),
        }
    }
    out
}

/// Whether `word` reads as a negative number (`-5`, `-5m`, `-.5`): no flag starts so, so after
/// a flag that takes a value it is that value, given to the flag's own parser to refuse by name
/// (clap alone takes it for an unknown flag and advises `-- -5`, which would make it a target).
fn negative(word: &OsStr) -> bool {
    let w = word.to_string_lossy();
    w.strip_prefix('-')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_ascii_digit() || c == '.')
}

/// Whether `a` is a long flag whose value may be left out.
pub fn optional_value(a: &Arg) -> bool {
    a.get_long().is_some()
        && a.get_num_args()
            .is_some_and(|r| r.min_values() == 0 && r.max_values() == 1)
}

/// Whether `a`'s value parser takes `value` (never a word that looks like a flag).
fn accepts(a: &Arg, value: &OsStr) -> bool {
    if value.to_string_lossy().starts_with('-') {
        return false;
    }
    let probe = Arg::new("v")
        .long("v")
        .value_parser(a.get_value_parser().clone());
    clap::Command::new("probe")
        .arg(probe)
        .try_get_matches_from([OsStr::new("probe"), OsStr::new("--v"), value])
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;
    use crate::plan::ranks::RankCounts;

    fn words(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn scale(s: &str) -> crate::cli::ScaleArgs {
        match parse(&words(s)).unwrap().command {
            Some(Command::Scale(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ranks_takes_its_counts_with_or_without_equals() {
        for line in [
            "halfpower scale --ranks 1,2,3 f.{rank}",
            "halfpower scale --ranks=1,2,3 f.{rank}",
            "halfpower scale f.{rank} --ranks 1,2,3",
        ] {
            let a = scale(line);
            assert_eq!(a.ranks, Some(RankCounts::Listed(vec![1, 2, 3])), "{line}");
            assert_eq!(
                a.targets,
                ["f.{rank}"].map(std::path::PathBuf::from),
                "{line}"
            );
        }
    }

    /// A negative value reaches its flag's parser, whose error names the flag and the value;
    /// clap alone would call it an unknown argument and advise `-- -5`.
    #[test]
    fn a_negative_value_is_refused_by_its_flag() {
        for (line, flag, value) in [
            ("halfpower run null --size -5m", "--size", "-5m"),
            ("halfpower run null --rate-iops -5", "--rate-iops", "-5"),
            ("halfpower run null --rate -40MB/s", "--rate", "-40MB/s"),
            ("halfpower run null --qd -1", "--qd", "-1"),
            (
                "halfpower compare a.json b.json --threshold -3",
                "--threshold",
                "-3",
            ),
            ("halfpower sweep null --pap -.5", "--pap", "-.5"),
        ] {
            let err = parse(&words(line)).unwrap_err();
            let said = err.to_string();
            assert_eq!(
                err.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{said}"
            );
            assert!(
                said.contains(&format!("'{value}'")) && said.contains(flag),
                "{line}: {said}"
            );
        }
        // A setting that does nothing alone is refused, not ignored.
        let alone = parse(&words("halfpower run null --think-every 5")).unwrap_err();
        assert!(alone.to_string().contains("--think <DUR>"), "{alone}");
        // Not a number: still a flag of its own.
        let a = scale("halfpower scale --ranks -- -x");
        assert_eq!(a.targets, ["-x"].map(std::path::PathBuf::from));
    }

    #[test]
    fn a_word_the_flag_does_not_take_stays_a_target() {
        let a = scale("halfpower scale --ranks /mnt/f.{rank} g");
        assert_eq!(a.ranks, Some(RankCounts::All));
        assert_eq!(a.targets.len(), 2);
        let a = scale("halfpower scale --ranks --size 1m f");
        assert_eq!(a.ranks, Some(RankCounts::All));
        assert_eq!(a.workload.setup.size.given.map(|s| s.0), Some(1 << 20));
        let a = scale("halfpower scale a b -- --ranks 2");
        assert_eq!(a.ranks, None, "after --, every word is a target");
    }
}
