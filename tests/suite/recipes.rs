//! docs/architecture.md's "How to add …" recipes hold: what one must touch to add a
//! subcommand (at most 5 files), an engine or a request source (at most 3) is read from the
//! sources, so a change that spreads one of them over more files fails here. Reads the
//! sources; runs nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir` with its text before `#[cfg(test)]`, tests' own files left
/// out (tests may name anything).
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
            continue;
        }
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.extension().is_none_or(|x| x != "rs") || stem == "tests" || stem.ends_with("_tests") {
            continue;
        }
        let rel = p
            .strip_prefix(src())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let all = std::fs::read_to_string(&p).unwrap();
        // Up to an inline test module (one declared as its own file, `mod tests;`, is that
        // file, left out above).
        let text = all
            .split("#[cfg(test)]\nmod tests {")
            .next()
            .unwrap_or("")
            .to_string();
        out.push((rel, text));
    }
}

fn all_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    sources(&src(), &mut out);
    out.sort();
    out
}

/// Whether `text` holds `word` with no identifier character on either side.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The variants of `enum NAME` in `text`, in order.
fn variants(text: &str, name: &str) -> Vec<String> {
    let start = text
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("enum {name} not found"));
    let body = &text[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("\n}").unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("///") && !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let v: String = l
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!v.is_empty()).then_some(v)
        })
        .collect()
}

/// The files (outside `own`) that hold a `match` naming every variant of `enum_name` as a
/// pattern (`Enum::V =>`, `Enum::V |` or `Enum::V(..) =>`): the places the compiler sends
/// whoever adds a variant.
fn exhaustive_matches(enum_name: &str, variants: &[String], own: &[&str]) -> Vec<String> {
    all_sources()
        .into_iter()
        .filter(|(rel, _)| !own.contains(&rel.as_str()))
        .filter(|(_, text)| matches_every(text, enum_name, variants))
        .map(|(rel, _)| rel)
        .collect()
}

/// Whether `text` names every variant of `enum_name` as a pattern.
fn matches_every(text: &str, enum_name: &str, variants: &[String]) -> bool {
    let pattern = |v: &str| {
        let head = format!("{enum_name}::{v}");
        text.match_indices(&head).any(|(i, _)| {
            let rest = text[i + head.len()..].trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(r) => r.find(')').map_or("", |j| r[j + 1..].trim_start()),
                None => rest,
            };
            rest.starts_with("=>") || rest.starts_with('|') || rest.starts_with("if ")
        })
    };
    variants.iter().all(|v| pattern(v))
}

#[test]
fn a_subcommand_takes_at_most_five_files() {
    // cli/mod.rs's `Command` (the variant), its arguments (cli/mod.rs or cli/NAME.rs),
    // commands/mod.rs (the module and the dispatch arm), commands/NAME.rs (or a folder of its
    // own) and its docs page.
    let cli = std::fs::read_to_string(src().join("cli/mod.rs")).unwrap();
    let commands = variants(&cli, "Command");
    assert!(commands.len() >= 17, "{commands:?}");
    let files = all_sources();
    let mut over = Vec::new();
    for variant in &commands {
        let name = variant.to_lowercase();
        let args = format!("{variant}Args");
        let own = |rel: &str| {
            rel == format!("commands/{name}.rs") || rel.starts_with(&format!("commands/{name}/"))
        };
        let knows: BTreeSet<&str> = files
            .iter()
            .filter(|(rel, _)| !own(rel))
            .filter(|(_, text)| {
                has_word(text, &args)
                    || text.contains(&format!("Command::{variant}"))
                    || text.contains(&format!(" {name}::{name}(args"))
            })
            .map(|(rel, _)| rel.as_str())
            .collect();
        let allowed = ["cli/mod.rs", "commands/mod.rs", &format!("cli/{name}.rs")];
        let stray: Vec<&&str> = knows.iter().filter(|f| !allowed.contains(&&***f)).collect();
        // The search finds the variant and the dispatch arm that are there.
        assert!(
            knows.contains("cli/mod.rs") && knows.contains("commands/mod.rs"),
            "{variant}: {knows:?}"
        );
        // Its own module and its docs page make the other two of the five.
        if knows.len() > 3 || !stray.is_empty() {
            over.push(format!("{variant}: {knows:?}"));
        }
    }
    assert!(
        over.is_empty(),
        "subcommands known outside cli/, commands/mod.rs and their own module:\n{}",
        over.join("\n")
    );
}

#[test]
fn an_engine_takes_at_most_three_files() {
    // engine/NAME.rs (the `Engine`), engine/kind.rs (its `EngineKind`, caps and names),
    // engine/mod.rs (`AnyEngine`: opened and driven): no match over every engine elsewhere.
    let kind = std::fs::read_to_string(src().join("engine/kind.rs")).unwrap();
    let engines = variants(&kind, "EngineKind");
    assert_eq!(engines, ["Uring", "Sync", "Null"]);
    let elsewhere =
        exhaustive_matches("EngineKind", &engines, &["engine/kind.rs", "engine/mod.rs"]);
    assert!(
        elsewhere.is_empty(),
        "matches over every engine: {elsewhere:?}"
    );
    let any = std::fs::read_to_string(src().join("engine/mod.rs")).unwrap();
    let arms = variants(&any, "AnyEngine");
    assert_eq!(arms, ["Uring", "Sync", "Null"]);
    let elsewhere = exhaustive_matches("AnyEngine", &arms, &["engine/mod.rs"]);
    assert!(
        elsewhere.is_empty(),
        "matches over every engine: {elsewhere:?}"
    );
    assert_eq!(
        exhaustive_matches("AnyEngine", &arms, &[]),
        ["engine/mod.rs"]
    );
    // The search finds the ones that are there.
    assert_eq!(
        exhaustive_matches("EngineKind", &engines, &[]),
        ["engine/kind.rs", "engine/mod.rs"]
    );
}

#[test]
fn a_request_source_takes_at_most_three_files() {
    // Its file (or worker/source.rs), worker/source.rs (`Requests`), and runner/thread.rs,
    // which builds it: no other file matches over every source.
    let text = std::fs::read_to_string(src().join("worker/source.rs")).unwrap();
    let sources = variants(&text, "Requests");
    assert_eq!(sources, ["Synthetic", "Replay"]);
    assert!(exhaustive_matches("Requests", &sources, &["worker/source.rs"]).is_empty());
    // The search finds the matches that are there.
    assert_eq!(
        exhaustive_matches("Requests", &sources, &[]),
        ["worker/source.rs"]
    );
    let builders: Vec<String> = all_sources()
        .into_iter()
        .filter(|(rel, t)| rel != "worker/source.rs" && t.contains("Requests::"))
        .map(|(rel, _)| rel)
        .collect();
    assert_eq!(builders, ["runner/thread.rs"]);
}

#[test]
fn the_word_search_finds_only_whole_names() {
    assert!(has_word("use crate::cli::RunArgs;", "RunArgs"));
    assert!(!has_word("struct PreRunArgs;", "RunArgs"));
    assert!(!has_word("RunArgsX", "RunArgs"));
    let text = "pub enum E {\n    /// a\n    A(u8),\n    #[default]\n    B,\n}\n";
    assert_eq!(variants(text, "E"), ["A", "B"]);
}

/// The rows of the table of document kinds (`with_documents!` in model/mod.rs): each kind's
/// variant and its type's path under `model`.
fn document_rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(src().join("model/mod.rs")).unwrap();
    let table = &text[text.find("macro_rules! with_documents").expect("the table")..];
    let table = &table[..table.find("\n}\n").unwrap()];
    table
        .lines()
        .map(str::trim)
        .filter_map(|l| {
            let (variant, rest) = l.split_once("($crate::model::")?;
            let ty = rest.split_once(')')?.0;
            Some((variant.to_string(), ty.to_string()))
        })
        .collect()
}

#[test]
fn a_document_kind_takes_one_file_per_layer() {
    // A kind is its type and `Report` impl in model/NAME.rs, one row in model/mod.rs's table
    // (with its `pub mod` line), its text in render/text/NAME.rs and its HTML (`Drawn`) in
    // render/html/NAME.rs, each with its module line: no match over every kind anywhere, as
    // `Document`, `Kind` and the report's dispatch are expanded from the table.
    let rows = document_rows();
    assert!(rows.len() >= 16, "{rows:?}");
    let kinds: Vec<String> = rows.iter().map(|(v, _)| v.clone()).collect();
    for name in ["Document", "Kind"] {
        let found = exhaustive_matches(name, &kinds, &[]);
        assert!(found.is_empty(), "matches over every {name}: {found:?}");
    }
    let files = all_sources();
    let implements = |dir: &str, tr: &str, ty: &str| {
        (files.iter().filter(|(rel, _)| rel.starts_with(dir))).any(|(_, t)| {
            t.lines().any(|l| {
                l.starts_with("impl ")
                    && l.contains(&format!("{tr} for "))
                    && [" ", "::"].iter().any(|sep| {
                        l.ends_with(&format!("{sep}{ty} {{"))
                            || l.ends_with(&format!("{sep}{ty} {{}}"))
                    })
            })
        })
    };
    let mut missing = Vec::new();
    for (variant, path) in &rows {
        let ty = path.rsplit("::").next().unwrap();
        if !implements("model/", "Report", ty) {
            missing.push(format!("{variant}: no Report impl for {ty} in model/"));
        }
        if !implements("render/html/", "Drawn", ty) {
            missing.push(format!("{variant}: no Drawn impl for {ty} in render/html/"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    // The search finds a match over every kind, and only one over every kind.
    let arms: Vec<String> = kinds.iter().map(|k| format!("Kind::{k} => 1,")).collect();
    assert!(matches_every(&arms.join("\n"), "Kind", &kinds));
    assert!(!matches_every(&arms[1..].join("\n"), "Kind", &kinds));
}
