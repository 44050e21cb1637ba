//! The layers of docs/architecture.md hold: every `crate::MODULE` path in a top-level module's
//! sources names a module of the same layer or one below it, and no two modules of one layer
//! use each other (no import cycles). Test code (files `tests.rs`/`*_tests.rs` and everything
//! after `#[cfg(test)]`) may reach up, e.g. to check that input reads what render writes.
//! Reads the sources; runs nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first, as docs/architecture.md and src/lib.rs draw them.
const LAYERS: [&[&str]; 8] = [
    &[
        "error", "units", "clock", "signal", "rng", "output", "cluster",
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
