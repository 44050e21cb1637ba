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

/// Cases per property: `n`, or `HALFPOWER_FUZZ_CASES` for a longer run (docs/verify.md).
fn cases(n: u32) -> u32 {
    std::env::var("HALFPOWER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

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
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

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

/// The other readers of files a user hands over: documents for `report` (and `compare`),
/// sweep points for `sweep --from`, fio job files (parsed, resolved and planned) and
/// verification state files. None may panic on any input.
mod other_inputs {
    use halfpower::fio::jobfile::parse_file;
    use halfpower::fio::{plan, resolve};
    use halfpower::input::document;
    use halfpower::input::sweep::points_from_text;
    use halfpower::verify::table::State;
    use proptest::prelude::*;
    use std::path::Path;

    const DOCUMENTS: &[&str] = &[
        "tests/fixtures/report/run-loop.json",
        "tests/fixtures/report/quick.json",
        "tests/fixtures/report/sweep.json",
        "tests/fixtures/report/profile.json",
        "tests/fixtures/report/scale.json",
        "tests/fixtures/report/experiment.json",
        "tests/fixtures/report/diagnose.json",
        "tests/fixtures/report/monitor.jsonl",
    ];
    const JOBS: &str = "tests/corpus/fio-mixed.fio";
    const POINTS: &str = "tests/corpus/sweep-points.csv";

    fn document(text: &str) {
        let diagnose = |l: &halfpower::model::log::Log| {
            halfpower::analysis::diagnose::diagnose(std::slice::from_ref(l), None)
        };
        let _ = document::parse("fuzz.json", text, &diagnose);
    }

    fn job_file(text: &str) {
        let no_include = |_: &Path| Err(std::io::Error::other("no includes while fuzzing"));
        let env = |v: &str| (v == "SIZE").then(|| "4m".to_string());
        if let Ok(sections) = parse_file(Path::new("fuzz.fio"), text, true, &no_include, &env) {
            for ignore in [false, true] {
                if let Ok(set) = resolve(&sections, &[], ignore) {
                    for job in &set.jobs {
                        let _ = plan(job, false, false);
                    }
                }
            }
        }
    }

    fn points(text: &str) {
        let _ = points_from_text(Path::new("fuzz.csv"), text);
    }

    fn state(bytes: &[u8]) {
        let _ = State::parse(Path::new("fuzz.state"), bytes);
    }

    /// `bytes` with a few bytes replaced and cut at a point.
    fn mangle(mut bytes: Vec<u8>, flips: &[(f64, u8)], cut: f64) -> Vec<u8> {
        for &(at, b) in flips {
            let i = (at * bytes.len() as f64) as usize;
            if i < bytes.len() {
                bytes[i] = b;
            }
        }
        bytes.truncate((cut * bytes.len() as f64) as usize + 1);
        bytes
    }

    /// A small valid state file: one target of 64 blocks, a few written.
    fn a_state() -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s");
        let mut s = State {
            id: 5,
            block_size: 4096,
            tables: vec![],
        };
        let i = s.table_for("/dev/loop9", 64);
        for b in [0u64, 7, 63] {
            assert!(s.tables[i].claim(b * 4096, 4096));
            s.tables[i].release(b * 4096, 4096, true);
        }
        std::fs::write(&p, s.to_bytes().unwrap()).unwrap();
        std::fs::read(&p).unwrap()
    }

    #[test]
    fn the_corpus_reads_cleanly() {
        for d in DOCUMENTS {
            let text = std::fs::read_to_string(d).unwrap();
            let diagnose = |l: &halfpower::model::log::Log| {
                halfpower::analysis::diagnose::diagnose(std::slice::from_ref(l), None)
            };
            document::parse(d, &text, &diagnose).unwrap_or_else(|e| panic!("{d}: {e}"));
        }
        let text = std::fs::read_to_string(JOBS).unwrap();
        let no_include = |_: &Path| Err(std::io::Error::other("none"));
        let sections = parse_file(Path::new(JOBS), &text, true, &no_include, &|_| None).unwrap();
        let set = resolve(&sections, &[], false).unwrap();
        assert_eq!(set.jobs.len(), 2, "a reader (numjobs=2) and a writer");
        let text = std::fs::read_to_string(POINTS).unwrap();
        assert_eq!(points_from_text(Path::new(POINTS), &text).unwrap().len(), 5);
        let s = State::parse(Path::new("s"), &a_state()).unwrap();
        assert_eq!(s.tables[0].written(), 3);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(super::cases(300)))]

        #[test]
        fn random_text_never_panics(s in "\\PC{0,300}") {
            document(&s);
            job_file(&s);
            points(&s);
            state(s.as_bytes());
        }

        #[test]
        fn job_file_shapes_never_panic(
            lines in prop::collection::vec(
                (prop::sample::select(vec![
                    "rw", "bs", "bssplit", "bsrange", "size", "offset", "iodepth", "numjobs",
                    "rate", "rate_iops", "rate_min", "thinktime", "random_distribution",
                    "filename", "nrfiles", "runtime", "time_based", "rwmixread", "fsync",
                    "percentage_random", "kb_base", "include", "stonewall", "[global]", "[j]",
                    "buffer_pattern", "verify_pattern", "verify", "continue_on_error",
                ]), "[ -~]{0,24}"),
                0..12,
            ),
        ) {
            let text: String = lines
                .iter()
                .map(|(k, v)| if k.starts_with('[') { format!("{k}\n") } else { format!("{k}={v}\n") })
                .collect();
            job_file(&text);
        }

        #[test]
        fn keyword_arithmetic_never_panics(
            key in prop::sample::select(vec!["bs", "size", "iodepth", "runtime", "thinktime", "rate"]),
            parts in prop::collection::vec(
                "(\\$pagesize|\\$ncpus|\\$mb_memory|[0-9]{1,40}|[-+*/%^()k ])", 0..24),
        ) {
            job_file(&format!("[j]\nrw=read\nfilename=f\n{key}={}\n", parts.concat()));
        }

        #[test]
        fn mangled_inputs_never_panic(
            doc in 0..DOCUMENTS.len(),
            flips in prop::collection::vec((0.0f64..1.0, any::<u8>()), 0..8),
            cut in 0.0f64..1.0,
        ) {
            let d = mangle(std::fs::read(DOCUMENTS[doc]).unwrap(), &flips, cut);
            document(&String::from_utf8_lossy(&d));
            let j = mangle(std::fs::read(JOBS).unwrap(), &flips, cut);
            job_file(&String::from_utf8_lossy(&j));
            let p = mangle(std::fs::read(POINTS).unwrap(), &flips, cut);
            points(&String::from_utf8_lossy(&p));
            state(&mangle(a_state(), &flips, cut));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// Traces for `replay`: random lines under each accepted first line never panic, and
    /// whatever parses has requests that stay within u64 and times that never go back.
    #[test]
    fn random_traces_never_panic(
        head in prop::sample::select(vec!["# halfpower trace v1\n", "fio version 2 iolog\n", "fio version 3 iolog\n", ""]),
        body in "([0-9 ]{0,12}(R|W|F|D|X|/f|add|open|read|write|wait|trim|sync)?[ 0-9a-z./-]{0,30}\n){0,12}",
    ) {
        if let Ok(t) = halfpower::input::trace::parse("fuzz", &format!("{head}{body}")) {
            prop_assert!(!t.requests.is_empty());
            prop_assert!(t.requests.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
            let _ = (t.end(), t.span_ns(), t.max_len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// fio's data patterns (`buffer_pattern`, `verify_pattern`, `run --write-pattern`): items
    /// of fio's grammar and stray characters never panic; whatever parses is 1 to 512 bytes,
    /// reads back from its written form as itself, and a buffer it fills matches it at that
    /// offset (and, with a %o, at no other).
    #[test]
    fn patterns_never_panic_and_read_back_as_themselves(
        parts in prop::collection::vec(
            "(0[xX][0-9a-fA-F]{0,12}|-?[0-9]{1,12}|\"[ -~]{0,6}\"?|%o|%|'[a-z./]{0,6}'?|[ +xX0-9|])",
            0..40),
        len in 1usize..9000,
        offset in any::<u64>(),
    ) {
        use halfpower::engine::pattern::{Formats, Pattern};
        let text = parts.concat();
        let _ = Pattern::parse(&text, Formats::None);
        if let Ok(p) = Pattern::parse(&text, Formats::Offset) {
            prop_assert!((1..=512).contains(&p.len()));
            let again = Pattern::parse(&p.to_string(), Formats::Offset);
            prop_assert_eq!(again.as_ref(), Ok(&p));
            let mut buf = vec![0u8; len];
            p.fill(&mut buf, offset);
            prop_assert!(p.matches(&buf, offset));
            if p.has_offsets() && len >= p.len() {
                prop_assert!(!p.matches(&buf, offset ^ 1));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(400)))]

    /// `--limit` files: random lines of keys and values never panic, and whatever parses holds
    /// only positive, finite limits.
    #[test]
    fn random_limit_files_never_panic(
        lines in prop::collection::vec(
            prop::collection::vec(
                (prop::sample::select(vec!["iops", "mbps", "target", "bw", ""]), "[ -~]{0,12}"),
                0..4,
            ),
            0..6,
        ),
    ) {
        let text: String = lines
            .iter()
            .map(|l| {
                let spec: Vec<String> = l.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{}\n", spec.join(","))
            })
            .collect();
        if let Ok(limits) = halfpower::input::limit::parse_file("fuzz", &text) {
            for g in limits {
                for v in [g.iops, g.bytes_per_s].into_iter().flatten() {
                    prop_assert!(v.is_finite() && v > 0.0);
                }
            }
        }
    }
}
