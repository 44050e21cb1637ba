//! Property tests ("fuzzing") of the three log parsers and the rules behind them: no input,
//! random or a mangled corpus file, makes them panic. The corpus lives in tests/corpus; proptest
//! keeps any failing case in proptest-regressions/.

use halfpower::analysis::diagnose::diagnose;
use halfpower::input::parse_log;
use proptest::prelude::*;

const CORPUS: &[&str] = &[
    "tests/corpus/perfmon-typeperf.csv",
    "tests/corpus/iostat-loop.txt",
    "tests/corpus/monitor.csv",
    "tests/corpus/monitor.jsonl",
];

fn check(text: &str) {
    if let Ok(log) = parse_log("fuzz", text) {
        let d = diagnose(&[log], None);
        serde_json::to_string(&d).unwrap();
    }
}

#[test]
fn the_corpus_parses_cleanly() {
    for path in CORPUS {
        let text = std::fs::read_to_string(path).unwrap();
        let log = parse_log(path, &text).unwrap();
        assert!(!log.disks.is_empty(), "{path}");
        let d = diagnose(&[log], None);
        assert!(!d.devices.is_empty(), "{path}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,400}") {
        check(&s);
    }

    #[test]
    fn random_header_shapes_never_panic(
        head in prop::sample::select(vec!["\"(PDH-CSV 4.0)\",", "schema_version,", "{", "Linux x\n\nDevice r/s w/s\n"]),
        body in "[ -~\\r\\n\"\\\\(),.:/%0-9]{0,300}",
    ) {
        check(&format!("{head}{body}"));
    }

    #[test]
    fn mangled_corpus_never_panics(
        file in 0..CORPUS.len(),
        cut in 0.0f64..1.0,
        flips in prop::collection::vec((0.0f64..1.0, any::<u8>()), 0..8),
        dup in 0.0f64..1.0,
    ) {
        let mut bytes = std::fs::read(CORPUS[file]).unwrap();
        for (at, b) in flips {
            let i = (at * bytes.len() as f64) as usize;
            if i < bytes.len() {
                bytes[i] = b;
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        let d = (dup * lines.len() as f64) as usize;
        let mut mixed: Vec<&str> = lines.clone();
        if d < lines.len() {
            mixed.insert(d, lines[d]);
        }
        let joined = mixed.join("\n");
        let end = (cut * joined.len() as f64) as usize;
        let end = (0..=end).rev().find(|&e| joined.is_char_boundary(e)).unwrap_or(0);
        check(&joined[..end]);
        check(&joined);
    }
}
