//! Each flag is declared once: every subcommand's flags read from clap, grouped by name, and
//! the declarations of one name told apart by their help text, value names and defaults; and,
//! since identical copies read the same from clap, the sources of `src/cli` scanned for the
//! struct fields that declare each long flag. Reads the command-line definition and the
//! sources; runs nothing.

use clap::CommandFactory;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// Long flags that may be declared by more than one struct field in the sources, each with its
/// number of declarations and why. Empty: every flag is one `#[arg(...)]` field, flattened
/// (`#[command(flatten)]`) wherever it is taken.
const DECLARED_MORE_THAN_ONCE: &[(&str, usize, &str)] = &[];

/// Where a struct field declares a long flag: `file:line field`.
type Sites = Vec<String>;

/// A token of Rust source, comments left out.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    /// A char literal, a number or a lifetime: nothing the scanner reads.
    Other,
    Punct(char),
}

/// `src`'s tokens, each with its line: identifiers, string literals (their text, escapes left
/// as written, raw strings read whole) and punctuation; comments (`//`, `///`, `/* */`) are
/// skipped, so an attribute quoted in a doc comment declares nothing.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let count_lines = |from: usize, to: usize| c[from..to].iter().filter(|&&x| x == '\n').count();
    while i < c.len() {
        let start = i;
        let start_line = line;
        match c[i] {
            '\n' => i += 1,
            x if x.is_whitespace() => i += 1,
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => {
                i += 1;
                while i < c.len() && c[i] != '"' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push((
                    Tok::Str(c[start + 1..i.min(c.len()) - 1].iter().collect()),
                    start_line,
                ));
            }
            // Raw strings: r"…", r#"…"#, br"…" and the like.
            'r' | 'b'
                if {
                    let j = start + usize::from(c[i] == 'b' && c.get(i + 1) == Some(&'r')) + 1;
                    (c[i] == 'r' || j == start + 2)
                        && c[j..].iter().take_while(|&&x| x == '#').count() + j < c.len()
                        && c[j + c[j..].iter().take_while(|&&x| x == '#').count()] == '"'
                } =>
            {
                let j = start + usize::from(c[i] == 'b') + 1;
                let hashes = c[j..].iter().take_while(|&&x| x == '#').count();
                let body = j + hashes + 1;
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let rest: String = c[body..].iter().collect();
                let len = rest.find(&close).map_or(rest.len(), |n| n);
                let text: String = rest[..len].to_string();
                i = body + text.chars().count() + close.chars().count();
                out.push((Tok::Str(text), start_line));
            }
            '\'' => {
                // A char literal ('o', '\'', '\u{41}') or a lifetime ('a).
                if c.get(i + 1) == Some(&'\\') {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if c.get(i + 2) == Some(&'\'') {
                    i += 3;
                } else {
                    i += 1;
                    while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                        i += 1;
                    }
                }
                out.push((Tok::Other, start_line));
            }
            x if x.is_alphabetic() || x == '_' => {
                // Raw identifiers (`r#type`) read as the name they stand for.
                if x == 'r' && c.get(i + 1) == Some(&'#') {
                    i += 2;
                }
                let from = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push((Tok::Ident(c[from..i].iter().collect()), start_line));
            }
            x if x.is_ascii_digit() => {
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == '.') {
                    i += 1;
                }
                out.push((Tok::Other, start_line));
            }
            x => {
                i += 1;
                out.push((Tok::Punct(x), start_line));
            }
        }
        line += count_lines(start, i.min(c.len()));
    }
    out
}

/// The index just past the bracket that closes the one at `t[open]`.
fn past_group(t: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0i32;
    for (k, (tok, _)) in t.iter().enumerate().skip(open) {
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// The long names one field's `#[arg(...)]` items give it (`field` its name): `long` (the
/// field's name, `_` read as `-`), `long = "x"`, `long("x")`, and the long aliases (`alias`,
/// `visible_alias`, `aliases`, `visible_aliases`), which clap also reads as the flag.
fn long_names(items: &[Vec<Tok>], field: &str) -> Result<Vec<String>, String> {
    let mut long = None;
    let mut aliases = Vec::new();
    for item in items {
        let Some(Tok::Ident(key)) = item.first() else {
            continue;
        };
        let strings = || -> Vec<String> {
            item[1..]
                .iter()
                .filter_map(|t| match t {
                    Tok::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect()
        };
        match key.as_str() {
            "long" => match &item[1..] {
                [] => long = Some(field.replace('_', "-")),
                [Tok::Punct('='), Tok::Str(s)]
                | [Tok::Punct('('), Tok::Str(s), Tok::Punct(')')] => long = Some(s.clone()),
                other => return Err(format!("`long` not given as a string literal: {other:?}")),
            },
            "alias" | "visible_alias" | "aliases" | "visible_aliases" => {
                let names = strings();
                if names.is_empty() {
                    return Err(format!("`{key}` not given as string literals"));
                }
                aliases.extend(names);
            }
            _ => {}
        }
    }
    Ok(long.into_iter().chain(aliases).collect())
}

/// Every long flag a struct field declares in `sources` (each a name for the messages and its
/// text), with where: a field under `#[arg(...)]` (or clap's older `#[clap(...)]`) attributes
/// that give it a long name. Fields without `long` (positional arguments) and
/// `#[command(flatten)]` fields declare none.
fn declared_longs(sources: &[(String, String)]) -> BTreeMap<String, Sites> {
    let mut by: BTreeMap<String, Sites> = BTreeMap::new();
    for (name, src) in sources {
        let t = tokens(src);
        let mut i = 0;
        // The items of the `#[arg(...)]` attributes read since the last field, and the line
        // of the first.
        let mut pending: Vec<Vec<Tok>> = Vec::new();
        let mut pending_line = 0;
        while i < t.len() {
            let is = |k: usize, want: &Tok| t.get(k).is_some_and(|(tok, _)| tok == want);
            if is(i, &Tok::Punct('#')) && is(i + 1, &Tok::Punct('[')) {
                let end = past_group(&t, i + 1);
                let arg = matches!(&t.get(i + 2), Some((Tok::Ident(a), _)) if a == "arg" || a == "clap")
                    && is(i + 3, &Tok::Punct('('));
                if arg {
                    if pending.is_empty() {
                        pending_line = t[i].1;
                    }
                    // The attribute's items, split at its top-level commas.
                    let inner = &t[i + 4..end.saturating_sub(2).max(i + 4)];
                    let (mut depth, mut item) = (0i32, Vec::new());
                    for (tok, _) in inner {
                        match tok {
                            Tok::Punct('(' | '[' | '{') => depth += 1,
                            Tok::Punct(')' | ']' | '}') => depth -= 1,
                            Tok::Punct(',') if depth == 0 => {
                                pending.push(std::mem::take(&mut item));
                                continue;
                            }
                            _ => {}
                        }
                        item.push(tok.clone());
                    }
                    pending.push(item);
                }
                i = end;
                continue;
            }
            if pending.is_empty() {
                i += 1;
                continue;
            }
            // What follows the attributes: a field is `[pub[(…)]] name: Type`.
            let mut k = i;
            if is(k, &Tok::Ident("pub".into())) {
                k += 1;
                if is(k, &Tok::Punct('(')) {
                    k = past_group(&t, k);
                }
            }
            if let (Some((Tok::Ident(field), _)), true, false) = (
                t.get(k),
                is(k + 1, &Tok::Punct(':')),
                is(k + 2, &Tok::Punct(':')),
            ) {
                match long_names(&pending, field) {
                    Ok(longs) => {
                        for long in longs {
                            by.entry(long)
                                .or_default()
                                .push(format!("{name}:{pending_line} {field}"));
                        }
                    }
                    Err(e) => panic!("{name}:{pending_line} {field}: {e}"),
                }
                i = k + 2;
            } else {
                i += 1;
            }
            pending.clear();
        }
    }
    by
}

/// The sources of the command line: every `.rs` file under `src/cli`, each named by its path
/// from the crate's root.
fn cli_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("src/cli")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p: PathBuf = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.strip_prefix(root).unwrap().display().to_string();
            (name, text)
        })
        .collect()
}

/// The flags declared by more than one field (beyond the list's allowance), each with where.
fn declared_twice(by: &BTreeMap<String, Sites>) -> Vec<String> {
    by.iter()
        .filter(|(flag, sites)| {
            let allowed = DECLARED_MORE_THAN_ONCE
                .iter()
                .find(|(f, _, _)| f == flag)
                .map_or(1, |(_, n, _)| *n);
            sites.len() != allowed
        })
        .map(|(flag, sites)| {
            format!(
                "--{flag}: {} declarations\n    {}",
                sites.len(),
                sites.join("\n    ")
            )
        })
        .collect()
}

/// Identical copies of a flag read the same from clap; in the sources each is a field of its
/// own. Every long flag is declared by one field of one struct, flattened where it is shared.
#[test]
fn each_flag_is_declared_by_one_field_in_the_sources() {
    let by = declared_longs(&cli_sources());
    assert!(
        by.len() >= 60,
        "the scanner finds the flags of src/cli: {:?}",
        by.keys().collect::<Vec<_>>()
    );
    let wrong = declared_twice(&by);
    assert!(
        wrong.is_empty(),
        "declare each flag once (a struct of its own in src/cli, `#[command(flatten)]` where it \
         is taken):\n{}",
        wrong.join("\n")
    );
    for (flag, _, _) in DECLARED_MORE_THAN_ONCE {
        assert!(
            by.contains_key(*flag),
            "--{flag} is gone: drop it from DECLARED_MORE_THAN_ONCE"
        );
    }
}

/// The scanner misses no declaration: the long flags it finds in the sources are those clap
/// has (besides the `--help` and `--version` clap adds), so a flag declared in a form it cannot
/// read, or outside `src/cli`, fails here rather than going uncounted.
#[test]
fn the_source_scanner_finds_every_flag_clap_has() {
    let mut cmd = halfpower::cli::Cli::command();
    cmd.build();
    let mut from_clap = BTreeSet::new();
    let mut commands = vec![cmd];
    while let Some(c) = commands.pop() {
        for a in c.get_arguments() {
            from_clap.extend(a.get_long().map(str::to_string));
            from_clap.extend(
                a.get_all_aliases()
                    .into_iter()
                    .flatten()
                    .map(str::to_string),
            );
        }
        commands.extend(c.get_subcommands().cloned());
    }
    let from_sources: BTreeSet<String> = declared_longs(&cli_sources()).into_keys().collect();
    for auto in ["help", "version"] {
        if !from_sources.contains(auto) {
            from_clap.remove(auto);
        }
    }
    assert_eq!(
        from_sources.difference(&from_clap).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "declared in src/cli but not a flag of any command"
    );
    assert_eq!(
        from_clap.difference(&from_sources).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "flags of clap the source scanner does not find"
    );
}

/// The scanner reports a copy planted beside the real sources: a second `--engine`.
#[test]
fn the_source_scanner_reports_a_planted_duplicate() {
    let mut sources = cli_sources();
    assert!(declared_twice(&declared_longs(&sources)).is_empty());
    sources.push((
        "planted.rs".into(),
        "struct Planted {\n    /// How I/O is issued.\n    #[arg(long)] engine: EngineKind,\n}\n"
            .into(),
    ));
    let by = declared_longs(&sources);
    assert_eq!(by["engine"].len(), 2, "{:?}", by["engine"]);
    assert!(by["engine"].contains(&"planted.rs:3 engine".to_string()));
    let wrong = declared_twice(&by);
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].starts_with("--engine: 2 declarations"),
        "{wrong:?}"
    );
}

/// The scanner reads each form a flag is declared in, and nothing else.
#[test]
fn the_source_scanner_reads_each_form_of_declaration() {
    let src = r##"
/// A doc comment quoting `#[arg(long)] quoted: u32,` declares nothing.
#[derive(Args)]
pub struct Forms {
    /// Positional: no flag.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// `-v`/`--very-loud`.
    #[arg(short, long)]
    pub very_loud: bool,
    /// Named apart from its field; a help with "#[arg(long)] x: u8" and `)]` in a string.
    #[arg(
        long = "renamed-flag",
        id = "renamed",
        help = "not #[arg(long)] here: )]",
        short = 'r',
        value_parser = clap::value_parser!(u32).range(1..=9)
    )]
    pub(crate) field_name: u32,
    /// The call form, and long_help that is not long.
    #[arg(long("called"), long_help = "x")]
    called_field: Option<String>,
    /// Two attributes on one field.
    #[arg(value_name = "N")]
    #[arg(long, visible_alias = "also", aliases = ["again", "more"])]
    // A line comment between attributes and the field.
    pub r#type: u8,
    /* #[arg(long)] commented: u8, */
    /// Flattened: declares nothing itself.
    #[command(flatten)]
    pub engine: EngineArg,
    /// Only `long_help`: no flag.
    #[arg(short = 'q', long_help = r#"raw "string" with #[arg(long)] inside"#)]
    pub quiet_short: bool,
}

enum Sub {
    Variant {
        #[arg(long)]
        in_variant: bool,
    },
}
"##;
    let by = declared_longs(&[("forms.rs".into(), src.into())]);
    let names: Vec<(&str, &str)> = by
        .iter()
        .flat_map(|(long, sites)| {
            sites
                .iter()
                .map(move |s| (long.as_str(), s.split_once(' ').unwrap().1))
        })
        .collect();
    assert_eq!(
        names,
        [
            ("again", "type"),
            ("also", "type"),
            ("called", "called_field"),
            ("in-variant", "in_variant"),
            ("more", "type"),
            ("renamed-flag", "field_name"),
            ("type", "type"),
            ("very-loud", "very_loud"),
        ]
    );
    assert_eq!(by["very-loud"], ["forms.rs:9 very_loud"]);
    assert_eq!(by["renamed-flag"], ["forms.rs:12 field_name"]);
}
