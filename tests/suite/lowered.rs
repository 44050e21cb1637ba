//! Issue 47: each command lowered once. A command's clap struct is read by its lowering
//! (`fn lower` and the helpers only it calls) and by nothing after it.

use super::layers::{code_mask, is_ident, without_tests};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every command that takes clap options: its source (a file, or a folder of them), and the
/// function that runs it after its lowering. `fio` takes fio's own grammar, parsed once by its
/// `parse_args` into a struct of its own, and has no clap struct to read.
const LOWERED: &[(&str, &str)] = &[
    ("commands/run.rs", "run"),
    ("commands/quick.rs", "quick"),
    ("commands/sweep.rs", "sweep"),
    ("commands/profile.rs", "profile"),
    ("commands/scale.rs", "scale"),
    ("commands/experiment", "experiment"),
    ("commands/replay.rs", "replay"),
    ("commands/pts", "pts"),
    ("commands/monitor.rs", "monitor"),
    ("commands/diagnose.rs", "diagnose"),
    ("commands/report.rs", "report"),
    ("commands/compare.rs", "compare"),
    ("commands/trend.rs", "trend"),
    ("commands/verify.rs", "verify"),
    ("commands/capture.rs", "capture"),
    ("commands/path.rs", "path"),
    ("commands/selftest.rs", "selftest"),
    ("commands/doctor.rs", "doctor"),
];

/// The texts of a command's sources, test items blanked, its comments and literals too.
fn command_code(rel: &str) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(rel);
    let files: Vec<_> = if src.is_dir() {
        let mut f: Vec<_> = (std::fs::read_dir(&src).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        f.sort();
        f
    } else {
        vec![src]
    };
    let mut all = String::new();
    for f in files {
        let text = without_tests(&std::fs::read_to_string(&f).unwrap());
        all.push_str(&String::from_utf8(code_mask(&text)).unwrap());
        all.push('\n');
    }
    all
}

/// A top-level function: its name, its parameter list and its body.
struct Function<'a> {
    name: &'a str,
    params: &'a str,
    body: &'a str,
}

/// The top-level functions of `code` (formatted sources: a function starts at a line's start
/// and its body ends at a line `}`).
fn functions(code: &str) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        let line = &code[code[..at].rfind('\n').map_or(0, |i| i + 1)..at];
        let top = ["", "pub ", "pub(super) ", "pub(crate) "].contains(&line);
        let rest = &code[at + 3..];
        let len = rest.bytes().take_while(|&b| is_ident(b)).count();
        let (Some(open), Some(brace)) = (rest.find('('), rest.find('{')) else {
            continue;
        };
        let Some(close) = rest[brace..].find("\n}\n") else {
            continue;
        };
        if top && len > 0 {
            out.push(Function {
                name: &rest[..len],
                params: &rest[open..brace],
                body: &rest[brace..brace + close],
            });
        }
    }
    out
}

/// Whether a parameter list names a clap type (the cli's `…Args` and `…Arg` structs).
fn takes_clap(params: &str) -> bool {
    params
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| w.ends_with("Args") || w.ends_with("Arg"))
}

/// Whether `body` calls the function `name`.
fn calls(body: &str, name: &str) -> bool {
    body.match_indices(&format!("{name}(")).any(|(i, _)| {
        // A method of the same name (`w.plan(`) is not the function.
        let before = body.as_bytes().get(i.wrapping_sub(1)).copied();
        !before.is_some_and(|b| is_ident(b) || b == b'.')
    })
}

/// What breaks the rule in a command's code whose entry is `entry`: a read of `args.` in the
/// entry after its `lower(` call, and a function that takes a clap type called from anywhere
/// but the lowering (the entry may call only `lower` itself).
fn breaches(code: &str, entry: &str) -> Vec<String> {
    let fns = functions(code);
    let mut found = Vec::new();
    let Some(run) = fns.iter().find(|f| f.name == entry) else {
        return vec![format!("no fn {entry}")];
    };
    match run.body.find("lower(") {
        None => found.push(format!("{entry} calls no lower(")),
        Some(at) => {
            let reads = run.body[at..].matches("args.").count();
            found.extend((reads > 0).then(|| format!("{reads} reads of args. after lower(")));
        }
    }
    let lowering: BTreeSet<&str> = (fns.iter())
        .filter(|f| f.name != entry && takes_clap(f.params))
        .map(|f| f.name)
        .collect();
    let mut callers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in &fns {
        for &l in &lowering {
            if f.name != l && calls(f.body, l) {
                callers.entry(l).or_default().push(f.name);
            }
        }
    }
    for (l, by) in callers {
        for b in by {
            let allowed = lowering.contains(b) || (b == entry && l == "lower");
            found.extend((!allowed).then(|| format!("{b} calls {l}, which takes a clap type")));
        }
    }
    found
}

#[test]
fn a_command_reads_its_flags_only_in_its_lowering() {
    let mut found = Vec::new();
    for (rel, entry) in LOWERED {
        let code = command_code(rel);
        found.extend(
            breaches(&code, entry)
                .into_iter()
                .map(|b| format!("{rel}: {b}")),
        );
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_search_for_reads_after_the_lowering_can_fail() {
    let good = "fn lower(args: &XArgs) -> P {\n    check(args)\n}\n\
                fn check(args: &XArgs) -> P {\n    P(args.y)\n}\n\
                pub fn x(args: XArgs) {\n    let p = lower(&args);\n    go(&p);\n}\n";
    assert_eq!(breaches(good, "x"), Vec::<String>::new());
    let read = good.replace("    go(&p);", "    go(&p, args.z);");
    assert_eq!(breaches(&read, "x"), ["1 reads of args. after lower("]);
    let helper = format!("{good}fn go(p: &P, a: &XArgs) {{\n    a.z;\n}}\n");
    let helper = helper.replace("    go(&p);", "    go(&p, &args);");
    assert_eq!(
        breaches(&helper, "x"),
        ["x calls go, which takes a clap type"]
    );
    let method = good.replace("    go(&p);", "    p.check();");
    assert_eq!(breaches(&method, "x"), Vec::<String>::new());
    let none = good.replace("lower(&args)", "plan(&args)");
    assert_eq!(breaches(&none, "x"), ["x calls no lower("]);
}

/// Every command the dispatch runs with a clap struct has a row in [`LOWERED`], so a command
/// added later is held to the rule too.
#[test]
fn every_command_is_held_to_its_lowering() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands/mod.rs");
    let text = std::fs::read_to_string(src).unwrap();
    let mut missing = Vec::new();
    for line in text.lines().filter(|l| l.contains("Some(Command::")) {
        let Some((_, call)) = line.split_once("=> ") else {
            continue;
        };
        let Some((module, rest)) = call.split_once("::") else {
            continue;
        };
        let entry: String = rest.chars().take_while(|&c| c != '(').collect();
        if module == "fio" {
            continue;
        }
        let listed = (LOWERED.iter()).any(|(rel, e)| {
            *e == entry && rel.trim_end_matches(".rs").ends_with(&format!("/{module}"))
        });
        if !listed {
            missing.push(format!("{module}::{entry}"));
        }
    }
    assert!(missing.is_empty(), "not in LOWERED: {}", missing.join(", "));
    assert!(text.contains("Some(Command::Run(args)) => run::run("));
}

/// The doc lines of `b` that repeat one of `a`'s word for word (those over 30 characters: a
/// flag's name alone may well repeat).
fn repeated_docs(a: &str, b: &str) -> Vec<String> {
    let docs = |t: &str| -> Vec<String> {
        (t.lines().map(str::trim))
            .filter(|l| l.starts_with("///") && l.len() > 30)
            .map(String::from)
            .collect()
    };
    let of_a = docs(a);
    docs(b).into_iter().filter(|l| of_a.contains(l)).collect()
}

/// Issue 47: the workload's option types come in pairs (clap's `WorkloadArgs`, `SetupArgs`,
/// `AccessArgs` in cli/, the plain `Workload`, `Setup`, `Access` below it, which cannot take
/// clap), but each option's text is written once: the flag's help in cli/workload.rs, and on
/// the plain side what the value is to the code, naming the flag. 54 lines were copies.
#[test]
fn the_workload_options_are_described_once() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let cli = std::fs::read_to_string(src.join("cli/workload.rs")).unwrap();
    let mut found = Vec::new();
    for plain in ["plan/mod.rs", "access/mod.rs"] {
        let text = std::fs::read_to_string(src.join(plain)).unwrap();
        found.extend(
            repeated_docs(&cli, &text)
                .into_iter()
                .map(|l| format!("{plain}: {l}")),
        );
    }
    assert!(
        found.is_empty(),
        "doc lines written twice:\n{}",
        found.join("\n")
    );
    let planted = "    /// Go through the page cache (default is direct I/O, O_DIRECT).\n";
    assert_eq!(
        repeated_docs(&cli, planted).len(),
        1,
        "the search finds a copy"
    );
}
