//! Each flag's help speaks of the command it is shown in: every subcommand's flags, read from
//! the definition `--help` prints, hold no segment of another command's (`sweep: …`), no
//! other command in backticks unless as a pointer (`halfpower path`), and no bare name of a
//! command that is not also a common word. Reads the command-line definition; runs nothing.

/// Commands whose names are not also words a flag's help uses in their ordinary sense.
const NAMES_ONLY: &[&str] = &[
    "quick",
    "sweep",
    "scale",
    "experiment",
    "monitor",
    "diagnose",
    "replay",
    "capture",
    "pts",
    "selftest",
    "doctor",
    "profile",
];

/// Flags that take another command's document or log name that command as its kind: only
/// the segment and backtick rules hold them.
const INPUTS: &[(&str, &str)] = &[
    ("report", "results"),
    ("diagnose", "logs"),
    ("diagnose", "profile"),
    ("diagnose", "profile_device"),
    ("monitor", "profile"),
    ("monitor", "profile_device"),
];

/// Where `word` stands as a whole word in `text`, each with the text before it.
fn whole_words<'a>(text: &'a str, word: &str) -> Vec<(&'a str, &'a str)> {
    let part = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = Vec::new();
    for (at, _) in text.match_indices(word) {
        let (before, after) = (&text[..at], &text[at + word.len()..]);
        if !before.ends_with(part) && !after.starts_with(part) {
            out.push((before, after));
        }
    }
    out
}

/// What in `text` (a flag's help in command `own`) speaks of command `other`, if anything;
/// `input`: the flag takes a document, which may be named by the command that writes it.
fn speaks_of(text: &str, own: &str, other: &str, input: bool) -> Option<String> {
    if other == own {
        return None;
    }
    for (before, after) in whole_words(text, other) {
        // A pointer to the other command, or a flag or value of this one spelled alike.
        let pointer = before.ends_with("halfpower ");
        let own_word = before.ends_with("--") || before.ends_with('=') || before.ends_with('|');
        if pointer || own_word {
            continue;
        }
        if after.starts_with(':') {
            return Some(format!("a segment '{other}:'"));
        }
        if before.ends_with('`') {
            return Some(format!("`{other}` in backticks"));
        }
        if NAMES_ONLY.contains(&other) && !input {
            return Some(format!("the command '{other}'"));
        }
    }
    None
}

#[test]
fn each_flags_help_speaks_of_its_own_command() {
    let cmd = halfpower::cli::command();
    let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
    let mut found = Vec::new();
    for sub in cmd.get_subcommands() {
        for a in sub.get_arguments() {
            let help = a.get_long_help().or(a.get_help()).map(|h| h.to_string());
            let Some(help) = help else {
                continue;
            };
            let input = INPUTS.contains(&(sub.get_name(), a.get_id().as_str()));
            for other in &names {
                if let Some(what) = speaks_of(&help, sub.get_name(), other, input) {
                    found.push(format!("{} {}: {what}: {help}", sub.get_name(), a.get_id()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} flags:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The rule itself, on sentences the issue found and on what may stand.
#[test]
fn the_rule_tells_another_commands_text_from_a_pointer() {
    let bad = [
        ("quick", "Region size (pts: PTS's capacity)", "pts"),
        (
            "run",
            "one document (`monitor`: one line per device)",
            "monitor",
        ),
        ("replay", "profile leaves out its write cells", "profile"),
        ("verify", "`run` keeps it in PATH", "run"),
        ("capture", "how long to measure (quick: each test)", "quick"),
    ];
    for (own, text, other) in bad {
        assert!(speaks_of(text, own, other, false).is_some(), "{text}");
    }
    let fine = [
        (
            "run",
            "the PAP of the targets' path (`halfpower path`)",
            "path",
        ),
        ("run", "--steady[=PCT|pts]: =pts once its rounds", "pts"),
        ("sweep", "sweep: a list", "sweep"),
        ("run", "the run's figures and the target's path", "path"),
        ("diagnose", "the expectation from --profile", "profile"),
    ];
    // A document's kind, on a flag that takes one; a segment is still another command's.
    assert_eq!(
        speaks_of("JSON from run, quick or sweep", "report", "sweep", true),
        None
    );
    assert!(speaks_of("(quick: each test)", "report", "quick", true).is_some());
    for (own, text, other) in fine {
        assert_eq!(speaks_of(text, own, other, false), None, "{text}");
    }
}
