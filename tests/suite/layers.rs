//! The layers of docs/architecture.md hold: every `crate::MODULE` path in a top-level module's
//! sources names a module of the same layer or one below it, and neither the modules nor the
//! files of one folder import each other in a cycle of any length. Test code (files
//! `tests.rs`/`*_tests.rs` and each item a `#[cfg(test)]` stands on) may reach up, e.g. to
//! check that input reads what render writes. Reads the sources; runs nothing.

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

/// Every `.rs` file under `dir`, recursively, but for test files (`tests.rs`, `*_tests.rs`).
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

/// The line (from 1) of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The top-level modules named by `crate::NAME` in `text`, each with the line of its first
/// mention (doc links count: they name a dependency too).
fn uses(text: &str) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
            found.entry(name).or_insert_with(|| line_at(text, i));
        }
    }
    found
}

pub(super) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the comment or string or char literal that starts at byte `i` of `b`, if one
/// does: `//` and nested `/* */` comments, `"…"` with escapes, raw `r#"…"#` (also with a `b`
/// or `c` prefix), `'x'` and `'\n'` (a lifetime `'a` is none).
fn literal_end(b: &[u8], i: usize) -> Option<usize> {
    let at = |j: usize| b.get(j).copied().unwrap_or(0);
    let find = |from: usize, pat: &[u8]| {
        (from..b.len())
            .find(|&j| b[j..].starts_with(pat))
            .map_or(b.len(), |j| j + pat.len())
    };
    let token_start = |j: usize| j == 0 || !is_ident(b[j - 1]);
    match (at(i), at(i + 1)) {
        (b'/', b'/') => Some((i..b.len()).find(|&j| b[j] == b'\n').unwrap_or(b.len())),
        (b'/', b'*') => {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    (depth, j) = (depth + 1, j + 2);
                } else if b[j..].starts_with(b"*/") {
                    (depth, j) = (depth - 1, j + 2);
                } else {
                    j += 1;
                }
            }
            Some(j.min(b.len()))
        }
        (b'"', _) => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(b.len()))
        }
        (b'r', _) if token_start(i) || (matches!(at(i - 1), b'b' | b'c') && token_start(i - 1)) => {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            (at(i + 1 + hashes) == b'"').then(|| {
                let close = [b"\"".as_slice(), &vec![b'#'; hashes]].concat();
                find(i + 2 + hashes, &close)
            })
        }
        (b'\'', b'\\') => Some(find(i + 3, b"'")),
        (b'\'', c) => {
            let len = match c {
                0..0x80 => 1,
                0xf0.. => 4,
                0xe0.. => 3,
                _ => 2,
            };
            (at(i + 1 + len) == b'\'').then_some(i + 2 + len)
        }
        _ => None,
    }
}

/// `text` as bytes with its comments and string and char literals blanked (newlines kept), so
/// that the braces and attributes left are code.
pub(super) fn code_mask(text: &str) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    let mut i = 0;
    while i < b.len() {
        match literal_end(&b, i) {
            Some(end) => {
                b[i..end]
                    .iter_mut()
                    .filter(|c| **c != b'\n')
                    .for_each(|c| *c = b' ');
                i = end;
            }
            None => i += 1,
        }
    }
    b
}

/// What ends an item: its `;` only (`use`, `const`, `static`, `type`, `let`), its closing
/// brace or `;` (`fn`, `mod`, `impl`, `struct`, …), or either or a `,` (a field, a variant, a
/// match arm, an expression).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Semi,
    Item,
    Other,
}

/// The kind of the item that starts at byte `i` of the code mask `m`, after its attributes.
fn kind_at(m: &[u8], mut i: usize) -> Kind {
    let word = |i: usize| {
        let i = i + m[i..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        let len = m[i..].iter().take_while(|&&c| is_ident(c)).count();
        (i, &m[i..i + len])
    };
    loop {
        let (at, w) = word(i);
        i = at + w.len();
        match w {
            b"pub" => {
                let (at, _) = word(i);
                if m.get(at) == Some(&b'(') {
                    i = m[at..]
                        .iter()
                        .position(|&c| c == b')')
                        .map_or(m.len(), |p| at + p + 1);
                }
            }
            b"unsafe" | b"async" | b"extern" | b"default" => {}
            b"const" if matches!(word(i).1, b"fn" | b"unsafe" | b"async" | b"extern") => {}
            b"use" | b"const" | b"static" | b"type" | b"let" => return Kind::Semi,
            b"fn" | b"mod" | b"impl" | b"trait" | b"enum" | b"struct" | b"union"
            | b"macro_rules" => return Kind::Item,
            _ => return Kind::Other,
        }
    }
}

/// The end of the item that a `#[cfg(test)]` ending at byte `from` of the code mask `m` stands
/// on: past its further attributes, to its closing brace or its `;` (or `,`, see [`Kind`]), or
/// to the brace that closes what holds it.
fn item_end(m: &[u8], mut from: usize) -> usize {
    loop {
        from += m[from..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        if !m[from..].starts_with(b"#[") {
            break;
        }
        let mut depth = 0;
        while from < m.len() {
            depth += match m[from] {
                b'[' => 1,
                b']' => -1,
                _ => 0,
            };
            from += 1;
            if depth == 0 {
                break;
            }
        }
    }
    let kind = kind_at(m, from);
    let (mut depth, mut angle) = (0i32, 0i32);
    for i in from..m.len() {
        match m[i] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth < 0 {
                    return i;
                }
                if depth == 0 && m[i] == b'}' && kind != Kind::Semi {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            b',' if depth == 0 && angle == 0 && kind == Kind::Other => return i + 1,
            b'<' if depth == 0 => angle += 1,
            b'>' if depth == 0 && !matches!(m[i - 1], b'-' | b'=') => angle = (angle - 1).max(0),
            _ => {}
        }
    }
    m.len()
}

/// `text` without its test code: each item a `#[cfg(test)]` stands on (a module, function,
/// `impl`, `use`, …), from the attribute to the item's end, is blanked; every other line is
/// kept, and so are the line numbers.
pub(super) fn without_tests(text: &str) -> String {
    const ATTR: &[u8] = b"#[cfg(test)]";
    let mask = code_mask(text);
    let mut out = text.as_bytes().to_vec();
    let mut i = 0;
    while let Some(k) = mask[i..].windows(ATTR.len()).position(|w| w == ATTR) {
        let start = i + k;
        let end = item_end(&mask, start + ATTR.len());
        out[start..end]
            .iter_mut()
            .filter(|c| **c != b'\n')
            .for_each(|c| *c = b' ');
        i = end;
    }
    // Whole characters were blanked: the test code's bounds are ASCII.
    String::from_utf8(out).unwrap()
}

/// Who uses whom: for each user, each module or file it uses and where first (`file:line`).
type Edges = BTreeMap<String, BTreeMap<String, String>>;

type Graph = BTreeMap<String, BTreeSet<String>>;

fn graph_of(edges: &Edges) -> Graph {
    edges
        .iter()
        .map(|(n, used)| (n.clone(), used.keys().cloned().collect()))
        .collect()
}

/// The cycles of `graph`, each as its path back to where it starts (`[a, b, c, a]`): one for
/// each edge a depth-first search finds back into its path, so every graph with a cycle gets
/// at least one, and an acyclic graph none.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    fn visit<'g>(
        n: &'g str,
        graph: &'g Graph,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
        found: &mut Vec<Vec<String>>,
    ) {
        path.push(n);
        for m in graph.get(n).into_iter().flatten() {
            if let Some(i) = path.iter().position(|p| p == m) {
                let mut c: Vec<String> = path[i..].iter().map(|s| s.to_string()).collect();
                c.push(m.clone());
                found.push(c);
            } else if !done.contains(m.as_str()) {
                visit(m, graph, path, done, found);
            }
        }
        path.pop();
        done.insert(n);
    }
    let (mut done, mut found) = (BTreeSet::new(), Vec::new());
    for n in graph.keys() {
        if !done.contains(n.as_str()) {
            visit(n, graph, &mut Vec::new(), &mut done, &mut found);
        }
    }
    found
}

/// A cycle of `edges` with where each of its steps is taken.
fn describe(cycle: &[String], edges: &Edges) -> String {
    let at: Vec<String> = cycle
        .windows(2)
        .map(|w| format!("{} at {}", w[1], edges[&w[0]][&w[1]]))
        .collect();
    format!("{} ({})", cycle.join(" -> "), at.join(", "))
}

/// The top-level modules under `src` and the modules their code uses.
fn module_edges(src: &Path) -> Edges {
    let mut edges = Edges::new();
    for e in std::fs::read_dir(src).unwrap() {
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
        files.sort();
        let used = edges.entry(name.clone()).or_default();
        for f in files {
            let rel = f.strip_prefix(src).unwrap().to_string_lossy().into_owned();
            let text = without_tests(&std::fs::read_to_string(&f).unwrap());
            for (u, line) in uses(&text).into_iter().filter(|(u, _)| *u != name) {
                used.entry(u).or_insert_with(|| format!("{rel}:{line}"));
            }
        }
    }
    edges
}

#[test]
fn every_module_uses_only_its_layer_and_those_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = module_edges(&src);
    let mut wrong = Vec::new();
    for (module, used) in &edges {
        let own = layer_of(module).unwrap();
        for (u, at) in used {
            match layer_of(u) {
                None => wrong.push(format!(
                    "{at}: {module} uses crate::{u}, which is no module"
                )),
                Some(l) if l > own => wrong.push(format!(
                    "{at}: {module} (layer {}) uses {u} (layer {})",
                    own + 1,
                    l + 1
                )),
                _ => {}
            }
        }
    }
    for c in cycles(&graph_of(&edges)) {
        wrong.push(format!("import cycle {}", describe(&c, &edges)));
    }
    assert!(wrong.is_empty(), "layering broken:\n{}", wrong.join("\n"));
}

/// The sibling files and folders of `dir` each `.rs` file there names through `super::NAME`
/// (or `crate::…::NAME` with the folder's own path), keyed by file stem; `mod.rs` is left
/// out, as a folder's own module is above its children.
fn sibling_uses(dir: &Path, module_path: &str) -> Edges {
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
    let folder = module_path.replace("::", "/");
    let mut graph = Edges::new();
    for (stem, p) in files {
        let text = without_tests(&std::fs::read_to_string(&p).unwrap());
        let mut used = BTreeMap::new();
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
                for n in group
                    .into_iter()
                    .filter(|n| names.contains(n) && *n != stem)
                {
                    let at = format!("{folder}/{stem}.rs:{}", line_at(&text, i));
                    used.entry(n).or_insert(at);
                }
            }
        }
        graph.insert(stem, used);
    }
    graph
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
fn no_files_of_one_folder_use_each_other_in_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    folders(&src, String::new(), &mut all);
    let mut circles = Vec::new();
    for (dir, module_path) in all.iter().filter(|(_, m)| !m.is_empty()) {
        let edges = sibling_uses(dir, module_path);
        for c in cycles(&graph_of(&edges)) {
            circles.push(format!("{module_path}: {}", describe(&c, &edges)));
        }
    }
    assert!(
        circles.is_empty(),
        "files that use each other:\n{}",
        circles.join("\n")
    );
}

/// The checks can fail: a made-up upward use is found, and test code is told from the rest.
#[test]
fn the_checks_read_uses_and_leave_out_only_test_code() {
    assert!(uses("use crate::commands::x;").contains_key("commands"));
    assert_eq!(uses("\n//! [`crate::render`]\n")["render"], 2);
    let text = "#[cfg(test)] fn f() {}\nuse crate::render::x;\n";
    let kept = without_tests(text);
    assert!(!kept.contains("fn f") && kept.contains("use crate::render::x;"));
    let text = "#[cfg(test)] mod tests { fn x() { let s = \"}\"; } }\nuse crate::a;\n";
    let kept = without_tests(text);
    assert!(!kept.contains("fn x") && !kept.contains("let s"), "{kept}");
    assert!(kept.contains("use crate::a;"), "{kept}");
    assert_eq!(kept.lines().count(), text.lines().count());
    let text = "fn a() {}\n#[cfg(test)]\n#[path = \"t.rs\"]\nmod tests;\nuse crate::b;\n\
        #[cfg(test)] impl X { fn c() -> char { '{' } /* } */ // }\n}\n\
        #[cfg(test)]\npub(crate) fn d<A, B>(s: &str) -> [u8; 2] where A: Copy, B: Copy {\n\
            let r = r#\"}\"#; let l: &'static str = s; [0; 2] }\n\
        #[cfg(test)] use crate::e::{f, g};\nuse crate::h;\n\
        const S: &str = \"#[cfg(test)] fn i() {\";\nuse crate::j;\n";
    let kept = without_tests(text);
    for gone in ["tests", "t.rs", "fn c", "/* }", "fn d", "r#", "crate::e"] {
        assert!(!kept.contains(gone), "{gone} kept:\n{kept}");
    }
    for stays in [
        "fn a() {}",
        "crate::b;",
        "crate::h;",
        "fn i() {",
        "crate::j;",
    ] {
        assert!(kept.contains(stays), "{stays} dropped:\n{kept}");
    }
    assert_eq!(uses(&kept)["j"], text.lines().count());
}

/// The cycle search can fail: it finds cycles of every length, and none where there are none.
#[test]
fn the_cycle_search_finds_every_length() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let three = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(cycles(&three), vec![path(&["a", "b", "c", "a"])]);
    let two = graph(&[("a", "b"), ("b", "a")]);
    assert_eq!(cycles(&two), vec![path(&["a", "b", "a"])]);
    let acyclic = graph(&[("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("b", "d")]);
    assert!(cycles(&acyclic).is_empty());
    let edges: Edges = [("a", "b"), ("b", "a")]
        .iter()
        .map(|(x, y)| {
            (
                x.to_string(),
                BTreeMap::from([(y.to_string(), format!("{x}.rs:1"))]),
            )
        })
        .collect();
    assert_eq!(
        describe(&cycles(&graph_of(&edges))[0], &edges),
        "a -> b -> a (b at a.rs:1, a at b.rs:1)"
    );
}

/// Every source file under src/: its path from there and its text.
pub(super) fn src_texts(src: &Path) -> Vec<(String, String)> {
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
        let text = without_tests(&all);
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

/// Where in `text` a field `name` is read (`.name` not followed by a call's `(`).
fn field_reads(text: &str, name: &str) -> usize {
    let pat = format!(".{name}");
    (text.match_indices(&pat))
        .filter(|(i, _)| {
            let rest = &text.as_bytes()[i + pat.len()..];
            !rest.first().is_some_and(|&b| b == b'(' || is_ident(b))
        })
        .count()
}

/// Issue 47: the runner takes plans. Below the commands, the measuring layers read a run's
/// rates and arrival process only from its `Schedule` (never the raw `--rate-iops` and
/// `--arrivals`); storage, the runner and its workers take plans, never the options behind one.
#[test]
fn the_runner_reads_the_plan_not_the_options() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, all) in src_texts(&src) {
        let text = without_tests(&all);
        let layer = ["runner/", "measure/", "storage/", "stats/", "monitor/"];
        if layer.iter().any(|l| rel.starts_with(l)) {
            for field in ["rate_iops", "arrivals"] {
                let n = field_reads(&text, field);
                found.extend((n > 0).then(|| format!("{rel}: .{field} read {n} times")));
            }
        }
        // Storage, the runner and its workers take plans: no workload (the options behind a
        // plan) as a type, and a plan's copy of it (`RunPlan::record`) is for documents only.
        let takes_plans = ["runner/", "worker/", "storage/", "engine/"];
        if takes_plans.iter().any(|l| rel.starts_with(l)) && type_named(&text, "Workload") {
            found.push(format!("{rel}: names the type Workload"));
        }
        let documents = ["commands/", "model/", "plan/"];
        if !documents.iter().any(|l| rel.starts_with(l)) && text.contains(".record()") {
            found.push(format!("{rel}: asks a plan for its workload's record"));
        }
    }
    let plan = std::fs::read_to_string(src.join("plan/run_plan.rs")).unwrap();
    assert!(
        !plan.contains("pub fn workload("),
        "RunPlan::workload is back"
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
    // The search can fail: a field read is found, a method call is not.
    assert_eq!(
        field_reads("w.setup.access.rate_iops.map(f)", "rate_iops"),
        1
    );
    assert_eq!(field_reads("plan.schedule().arrivals()", "arrivals"), 0);
    assert!(type_named("fn open(w: &Workload)", "Workload"));
    assert!(!type_named(
        "/// made by [`crate::plan::Workload::plan`]\nfn x() {}",
        "Workload"
    ));
}

/// Whether `text` names the type `name` in code (not in a `//` comment).
fn type_named(text: &str, name: &str) -> bool {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|code| {
            code.match_indices(name).any(|(i, _)| {
                let b = code.as_bytes();
                let before = i.checked_sub(1).map(|j| b[j]);
                let after = b.get(i + name.len()).copied();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
        })
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
        let text = without_tests(&all);
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
        found.extend(
            without_tests(&all)
                .match_indices("eprintln!(")
                .map(|_| rel.clone()),
        );
    }
    assert!(found.is_empty(), "eprintln! instead of say!: {found:?}");
    let main = std::fs::read_to_string(src.join("main.rs")).unwrap();
    assert!(
        main.contains("say_line("),
        "the search finds say_line where it is"
    );
}

/// Issue 47: results reach stdout one way, `commands::export` (`print_result`, `--json -`):
/// no command prints by itself (fio's reports and plan lines, monitor's intervals did); and
/// output files one way too, the exporter's atomic writes.
#[test]
fn every_result_is_printed_and_written_by_the_exporter() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (rel, all) in src_texts(&src) {
        if rel == "commands/export.rs" || rel == "output.rs" {
            continue;
        }
        let code = String::from_utf8(code_mask(&without_tests(&all))).unwrap();
        let prints = [
            "print!(",
            "println!(",
            "io::stdout().lock()",
            "io::stdout().write",
        ];
        for p in prints {
            for (i, _) in code.match_indices(p) {
                let after_e = i > 0 && code.as_bytes()[i - 1] == b'e';
                if !after_e {
                    found.push(format!("{rel}:{}: {p}", line_at(&code, i)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "printed outside the exporter:\n{}",
        found.join("\n")
    );
    // And every output file is written by it: the atomic writer is called there alone (the
    // verify state was written by the verify layer).
    let writers: Vec<String> = (src_texts(&src).into_iter())
        .filter(|(rel, all)| {
            rel != "commands/export.rs"
                && rel != "output.rs"
                && without_tests(all).contains("write_atomic")
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        writers.is_empty(),
        "files written outside the exporter: {writers:?}"
    );
    let export = std::fs::read_to_string(src.join("commands/export.rs")).unwrap();
    assert!(
        export.contains("io::stdout().lock()"),
        "the search finds the exporter's"
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
