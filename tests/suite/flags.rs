//! Each flag is declared once: every subcommand's flags read from clap, grouped by name, and
//! the declarations of one name told apart by their help text, value names and defaults.
//! Reads the command-line definition; runs nothing.

use clap::CommandFactory;
use std::collections::{BTreeMap, BTreeSet};

/// Flags still declared in more than one clap struct, with how many declarations each has
/// (issue 35 folds each into one shared declaration). The test fails when a flag is declared
/// once more, and when one of these is folded without the list following (none is left).
const NOT_YET_ONE: &[(&str, usize)] = &[];

/// What tells one declaration of a flag from another: its help, value names and defaults.
type Declaration = (String, Vec<String>, Vec<String>);

/// Every long flag of every subcommand: its declarations and the subcommands that have each.
fn declarations() -> BTreeMap<String, BTreeMap<Declaration, Vec<String>>> {
    let cmd = halfpower::cli::Cli::command();
    // clap's own checks first (two arguments of one id in a command, a group naming none).
    cmd.clone().debug_assert();
    let mut by: BTreeMap<String, BTreeMap<Declaration, Vec<String>>> = BTreeMap::new();
    for sub in cmd.get_subcommands() {
        for a in sub.get_arguments() {
            let Some(long) = a.get_long() else {
                continue;
            };
            let decl = (
                a.get_help().map(|h| h.to_string()).unwrap_or_default(),
                a.get_value_names()
                    .unwrap_or_default()
                    .iter()
                    .map(|v| v.to_string())
                    .collect(),
                a.get_default_values()
                    .iter()
                    .map(|v| v.to_string_lossy().into_owned())
                    .collect(),
            );
            by.entry(long.to_string())
                .or_default()
                .entry(decl)
                .or_default()
                .push(sub.get_name().to_string());
        }
    }
    by
}

#[test]
fn each_flag_is_declared_once() {
    let all = declarations();
    let shared = all
        .values()
        .filter(|d| d.values().map(Vec::len).sum::<usize>() > 1);
    assert!(
        shared.count() >= 20,
        "the flags of run, sweep, scale and profile's shared groups are found"
    );
    let mut wrong = Vec::new();
    for (flag, decls) in &all {
        let allowed = NOT_YET_ONE
            .iter()
            .find(|(f, _)| f == flag)
            .map_or(1, |(_, n)| *n);
        if decls.len() != allowed {
            let each: Vec<String> = decls
                .iter()
                .map(|((help, _, _), cmds)| {
                    let short: String = help.chars().take(60).collect();
                    format!("    {}: {short}", cmds.join(","))
                })
                .collect();
            wrong.push(format!(
                "--{flag}: {} declarations (expected {allowed})\n{}",
                decls.len(),
                each.join("\n")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every flag of the list is still a flag.
    for (flag, _) in NOT_YET_ONE {
        assert!(
            all.contains_key(*flag),
            "--{flag} is gone: drop it from the list"
        );
    }
}

#[test]
fn shared_output_flags_read_the_same_everywhere() {
    let all = declarations();
    for flag in [
        "json",
        "force",
        "html",
        "quiet",
        "repeat",
        "profile",
        "profile-device",
        "reads-only",
        "time",
        "warmup",
        "size",
        "steady",
        "rw",
        "qd",
        "threads",
        "offset",
        "max-inflight",
        "from",
        "output",
        "verify-state",
        "bs",
    ] {
        let decls = &all[flag];
        assert_eq!(decls.len(), 1, "--{flag}: {decls:?}");
        let cmds: BTreeSet<&String> = decls.values().flatten().collect();
        assert!(cmds.len() >= 2, "--{flag} is shared: {cmds:?}");
    }
    assert!(all["force"].values().flatten().any(|c| c == "monitor"));
    assert!(all["force"].values().flatten().any(|c| c == "report"));
}

/// Every flag whose value may be left out (`--ranks[=COUNTS]`, `--steady[=PCT|pts]`) reads a
/// value the same with `=` and as the next word, in every subcommand that has it: `scale
/// --ranks 1,2,3 f` is `scale --ranks=1,2,3 f`, never `--ranks` alone with a target `1,2,3`.
#[test]
fn an_optional_value_reads_the_same_with_or_without_equals() {
    let cmd = halfpower::cli::Cli::command();
    let mut checked = BTreeSet::new();
    for sub in cmd.get_subcommands() {
        // A value for each positional argument (TARGET: the subcommands of such flags take
        // paths).
        let positionals: Vec<String> = sub.get_positionals().map(|_| "x".to_string()).collect();
        for a in sub
            .get_arguments()
            .filter(|a| halfpower::cli::optional_value(a))
        {
            let long = a.get_long().unwrap();
            // Values each flag takes; a new flag of an optional value adds its own here.
            let values: &[&str] = match long {
                "ranks" => &["1,2,3", "all"],
                "steady" => &["5", "pts"],
                _ => panic!("--{long} takes an optional value: give it sample values here"),
            };
            for v in values {
                let v = v.to_string();
                let line = |flag: Vec<String>| -> String {
                    let mut argv = vec!["halfpower".to_string(), sub.get_name().to_string()];
                    argv.extend(flag);
                    argv.extend(positionals.iter().cloned());
                    let parsed =
                        halfpower::cli::parse(&argv.iter().map(Into::into).collect::<Vec<_>>());
                    format!("{:?}", parsed.map_err(|e| e.to_string()))
                };
                let equals = line(vec![format!("--{long}={v}")]);
                let apart = line(vec![format!("--{long}"), v.clone()]);
                assert!(
                    equals.starts_with("Ok("),
                    "{} --{long}={v}: {equals}",
                    sub.get_name()
                );
                assert_eq!(apart, equals, "{} --{long} {v}", sub.get_name());
            }
            checked.insert(long.to_string());
        }
    }
    assert!(
        checked.contains("ranks") && checked.contains("steady"),
        "the flags of optional values are found: {checked:?}"
    );
}
