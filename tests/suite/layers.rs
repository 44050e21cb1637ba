//! The layers of docs/architecture.md hold: every `crate::MODULE` path in a top-level module's
//! sources names a module of the same layer or one below it, and no two modules of one layer
//! use each other (no import cycles). Test code (files `tests.rs`/`*_tests.rs` and everything
//! after `#[cfg(test)]`) may reach up, e.g. to check that input reads what render writes.
//! Reads the sources; runs nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first, as docs/architecture.md and src/lib.rs draw them.
const LAYERS: [&[&str]; 9] = [
    &[
        "error", "units", "clock", "signal", "rng", "output", "cluster", "serve",
    ],
    &[
        "oscounters",
        "engine",
        "affinity",
        "offsets",
        "access",
        "verify",
    ],
    &["stats", "plan"],
    &["model"],
    &["analysis", "input", "fio"],
    &["render"],
    &["storage", "worker", "runner", "monitor"],
    &["measure"],
    &["cli", "commands"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let stem = p.file_stem().unwrap().to_string_lossy();
            if stem != "tests" && !stem.ends_with("_tests") {
                out.push(p);
            }
        }
    }
}

/// The top-level modules named by `crate::NAME` in `text` (doc links count: they name a
/// dependency too).
fn uses(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && name.chars().next().unwrap().is_ascii_lowercase() {
            found.insert(name);
        }
    }
    found
}

#[test]
fn every_module_uses_only_its_layer_and_those_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        assert!(
            layer_of(&name).is_some(),
            "module {name} is in no layer: add it to docs/architecture.md, src/lib.rs and here"
        );
        let mut files = Vec::new();
        if p.is_dir() {
            sources(&p, &mut files);
        } else {
            files.push(p.clone());
        }
        let used = graph.entry(name.clone()).or_default();
        for f in files {
            let all = std::fs::read_to_string(&f).unwrap();
            let text = all.split("#[cfg(test)]").next().unwrap_or("");
            used.extend(uses(text).into_iter().filter(|u| *u != name));
        }
    }
    let mut wrong = Vec::new();
    for (module, used) in &graph {
        let own = layer_of(module).unwrap();
        for u in used {
            match layer_of(u) {
                None => wrong.push(format!("{module} uses crate::{u}, which is no module")),
                Some(l) if l > own => wrong.push(format!(
                    "{module} (layer {}) uses {u} (layer {})",
                    own + 1,
                    l + 1
                )),
                Some(l) if l == own && graph.get(u).is_some_and(|b| b.contains(module)) => {
                    wrong.push(format!("{module} and {u} use each other"))
                }
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
    // The check can fail: a made-up upward use is caught.
    assert!(uses("use crate::commands::x;").contains("commands"));
}

/// The sibling files and folders of `dir` each `.rs` file there names through `super::NAME`
/// (or `crate::…::NAME` with the folder's own path), keyed by file stem; `mod.rs` is left
/// out, as a folder's own module is above its children.
fn sibling_uses(dir: &Path, module_path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut names = BTreeSet::new();
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            names.insert(stem);
        } else if p.extension().is_some_and(|x| x == "rs") && stem != "mod" {
            names.insert(stem.clone());
            if stem != "tests" && !stem.ends_with("_tests") {
                files.push((stem, p));
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (stem, p) in files {
        let all = std::fs::read_to_string(&p).unwrap();
        let text = all.split("#[cfg(test)]").next().unwrap_or("");
        let mut used = BTreeSet::new();
        for prefix in ["super::".to_string(), format!("crate::{module_path}::")] {
            for (i, _) in text.match_indices(prefix.as_str()) {
                let rest = &text[i + prefix.len()..];
                let group: Vec<String> = if let Some(inner) = rest.strip_prefix('{') {
                    let inner = &inner[..inner.find('}').unwrap_or(inner.len())];
                    inner
                        .split(',')
                        .map(|s| s.trim().split("::").next().unwrap_or("").to_string())
                        .collect()
                } else {
                    vec![
                        rest.chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect(),
                    ]
                };
                used.extend(
                    group
                        .into_iter()
                        .filter(|n| names.contains(n) && *n != stem),
                );
            }
        }
        graph.insert(stem, used);
    }
    graph
}

/// The files of a cycle in `graph`, if it has one (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            return Some(path[i..].to_vec());
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Every folder under `dir` (itself included), with its module path.
fn folders(dir: &Path, module_path: String, out: &mut Vec<(std::path::PathBuf, String)>) {
    out.push((dir.to_path_buf(), module_path.clone()));
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let inner = if module_path.is_empty() {
                name
            } else {
                format!("{module_path}::{name}")
            };
            folders(&p, inner, out);
        }
    }
}

#[test]
fn no_two_files_of_one_folder_use_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    folders(&src, String::new(), &mut all);
    let mut circles = Vec::new();
    for (dir, module_path) in all.iter().filter(|(_, m)| !m.is_empty()) {
        if let Some(c) = cycle(&sibling_uses(dir, module_path)) {
            circles.push(format!("{module_path}: {}", c.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "files that use each other:\n{}",
        circles.join("\n")
    );
    // The check can fail: a made-up circle is found.
    let made: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycle(&made), Some(vec!["a".to_string(), "b".to_string()]));
}

/// Every source file under src/: its path from there and its text.
fn src_texts(src: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(f).unwrap())
        })
        .collect()
}

/// The code of a source file: its text before its unit tests.
fn code(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or("")
}

#[test]
fn only_the_measuring_session_runs_the_engine() {
    // The runner's entry point and its results.
    let calls = ["runner::execute(", "runner::results("];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut outside = Vec::new();
    for (rel, all) in src_texts(&src) {
        if rel.starts_with("measure/") {
            continue;
        }
        let text = code(&all);
        for c in calls {
            outside.extend(text.match_indices(c).map(|_| format!("{rel}: {c}")));
        }
    }
    assert!(
        outside.is_empty(),
        "the engine run outside src/measure/ (go through measure::Session):\n{}",
        outside.join("\n")
    );
    let inside = std::fs::read_to_string(src.join("measure/mod.rs")).unwrap();
    assert!(
        inside.contains("runner::execute(") && inside.contains("runner::results("),
        "the search names the runner's call"
    );
}

#[test]
fn no_clap_below_the_commands() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, all) in src_texts(&src) {
        let top = rel.split(['/', '.']).next().unwrap_or("");
        if matches!(top, "cli" | "commands" | "main" | "lib") {
            continue;
        }
        let text = code(&all);
        if text.contains("clap::") || text.contains("use clap") {
            found.push(rel);
        }
    }
    assert!(
        found.is_empty(),
        "clap below cli/ and commands/ (declare the flag in src/cli and lower it there): {found:?}"
    );
    let cli = std::fs::read_to_string(src.join("cli/workload.rs")).unwrap();
    assert!(
        cli.contains("use clap"),
        "the search finds clap where it is"
    );
}

/// Every line to stderr goes through `say!` (one write), so the ranks of an MPI job, which
/// share one stderr, never split each other's lines as `eprintln!`'s piecewise writes can.
#[test]
fn every_stderr_line_is_one_write() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, all) in src_texts(&src) {
        found.extend(code(&all).match_indices("eprintln!(").map(|_| rel.clone()));
    }
    assert!(found.is_empty(), "eprintln! instead of say!: {found:?}");
    let main = std::fs::read_to_string(src.join("main.rs")).unwrap();
    assert!(
        main.contains("say_line("),
        "the search finds say_line where it is"
    );
}

/// CI lints with the `mpi` feature only (.ci/run): that covers every line only while no code
/// is compiled just without the feature, which is one type alias (cluster's `Universe`) and the
/// `allow` that goes with a parameter only MPI reads.
#[test]
fn nothing_is_compiled_only_without_mpi() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, text) in src_texts(&src) {
        for (i, line) in text.lines().enumerate() {
            if line.contains("not(feature = \"mpi\")") {
                found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    let allowed = |l: &String| {
        l.starts_with("cluster.rs:")
            && (l.ends_with("#[cfg(not(feature = \"mpi\"))]")
                || l.ends_with("allow(unused_variables))]"))
    };
    assert!(found.iter().all(allowed), "{found:#?}");
    assert_eq!(found.len(), 2, "the search finds the alias: {found:#?}");
    let cluster = std::fs::read_to_string(src.join("cluster.rs")).unwrap();
    let alias = cluster
        .split("#[cfg(not(feature = \"mpi\"))]")
        .nth(1)
        .unwrap_or("");
    assert!(
        alias.trim_start().starts_with("type Universe = "),
        "only the alias is compiled without the feature"
    );
}
