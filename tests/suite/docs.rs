//! The docs against the output: each documented layout's `schema_version` is the one its kind
//! is written with, and each top-level field documented for a run (not marked `"key"?`, present
//! only sometimes) is in a real run's JSON.

use crate::common;
use halfpower::model::Kind;

/// Every Markdown file of the docs, and the README, with its text.
fn docs() -> Vec<(String, String)> {
    let mut out = vec![(
        "README.md".to_string(),
        std::fs::read_to_string("README.md").unwrap(),
    )];
    for e in std::fs::read_dir("docs").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
    out
}

/// The kind a line names (`"kind": "sweep"` or `kind: "sweep"`), if any.
fn kind_named(line: &str) -> Option<&str> {
    let at = line
        .find("kind\": \"")
        .map(|i| i + 8)
        .or(line.find("kind: \"").map(|i| i + 7))?;
    line[at..].split('"').next()
}

/// The number after `schema_version` on a line (`"schema_version": 2`, `schema_version 2`).
fn version_on(line: &str) -> Option<u32> {
    let at = line.find("schema_version")? + "schema_version".len();
    let rest = line[at..].trim_start_matches(['"', '`', ':', ' ']);
    rest.split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn each_documented_version_is_the_one_its_kind_is_written_with() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (file, text) in docs() {
        for (i, line) in text.lines().enumerate() {
            let (Some(kind), Some(v)) = (kind_named(line), version_on(line)) else {
                continue;
            };
            let Some(written) = Kind::named(kind).and_then(Kind::schema_version) else {
                continue;
            };
            seen += 1;
            if v != written {
                wrong.push(format!(
                    "{file}:{}: {kind} {v}, written as {written}: {line}",
                    i + 1
                ));
            }
        }
    }
    assert!(
        seen >= 5,
        "the docs name {seen} versions beside their kinds"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The top-level keys of the run layout in docs/json-schema.md: (key, always there).
fn documented_run_keys() -> Vec<(String, bool)> {
    let text = std::fs::read_to_string("docs/json-schema.md").unwrap();
    let start = text.find("## `kind: \"run\"`").expect("the run section");
    let block = &text[start..];
    let open = block.find("```text\n{").expect("its layout") + "```text\n".len();
    let close = open + block[open..].find("\n```").unwrap();
    block[open..close]
        .lines()
        .filter_map(|l| {
            let key = l.strip_prefix("  \"")?;
            let end = key.find('"')?;
            Some((key[..end].to_string(), !key[end + 1..].starts_with('?')))
        })
        .collect()
}

#[test]
fn each_documented_run_field_is_in_a_runs_json() {
    let keys = documented_run_keys();
    assert!(keys.len() >= 8, "{keys:?}");
    let doc = common::run_json(&[
        "run", "null", "--engine", "null", "--time", "100ms", "--warmup", "0",
    ]);
    let missing: Vec<&String> = keys
        .iter()
        .filter(|(k, always)| *always && doc.get(k).is_none())
        .map(|(k, _)| k)
        .collect();
    assert!(missing.is_empty(), "documented, not written: {missing:?}");
    // And the other way: nothing written at the top that the layout leaves out.
    let undocumented: Vec<&String> = doc
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !keys.iter().any(|(d, _)| d == *k))
        .collect();
    assert!(
        undocumented.is_empty(),
        "written, not documented: {undocumented:?}"
    );
}
