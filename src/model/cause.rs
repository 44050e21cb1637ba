//! Why a run did not go as asked: direct I/O that fell back to buffered, an engine that stood
//! in for io_uring, the failure that stopped a worker, and what a failed I/O returned. Each is
//! a kind with its data (an OS error's text is data); render words them. Documents of layout 1
//! written before these were kinds hold a sentence instead: each reads that back too.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Reads a value written now (by `now`, its derived form) or, where a file holds a string (as
/// files written before it was a kind do), from that sentence by `then`; `what` names it in
/// the error for a sentence halfpower never wrote.
fn now_or_then<'de, D: Deserializer<'de>, T>(
    d: D,
    now: fn(serde_json::Value) -> serde_json::Result<T>,
    then: fn(&str) -> Option<T>,
    what: &str,
) -> Result<T, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => then(&s)
            .ok_or_else(|| D::Error::custom(format!("{what} {s:?}: not one halfpower writes"))),
        v => now(v).map_err(D::Error::custom),
    }
}

/// Implements Serialize and Deserialize for a type derived with `#[serde(remote = "Self")]`:
/// written in its derived form, read in it or from its old sentence by `$then`.
macro_rules! now_or_then {
    ($t:ty, $then:path, $what:literal) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$t>::serialize(self, s)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                now_or_then(d, |v| <$t>::deserialize(v), $then, $what)
            }
        }
    };
}

/// Why direct I/O on a target fell back to buffered I/O.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(remote = "Self", tag = "kind", rename_all = "snake_case")]
pub enum DirectFallback {
    /// The filesystem refused O_DIRECT when the target was opened.
    RefusedAtOpen {
        /// The error the open returned.
        error: String,
    },
    /// The filesystem accepted O_DIRECT at open but does not do direct I/O on this file (no
    /// direct-I/O alignment, or a direct read refused).
    Unsupported,
}

impl DirectFallback {
    /// The kind an old file's sentence says.
    fn from_sentence(s: &str) -> Option<Self> {
        if s == "the filesystem does not support direct I/O for this file" {
            return Some(DirectFallback::Unsupported);
        }
        let error = s
            .strip_prefix("the filesystem refused O_DIRECT at open (")?
            .strip_suffix(')')?;
        Some(DirectFallback::RefusedAtOpen {
            error: error.to_string(),
        })
    }
}

now_or_then!(
    DirectFallback,
    DirectFallback::from_sentence,
    "direct_fallback"
);

/// Why the engine asked for was replaced.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(remote = "Self", tag = "kind", rename_all = "snake_case")]
pub enum EngineFallback {
    /// The kernel refused io_uring (compiled out, `kernel.io_uring_disabled`, a seccomp
    /// filter): the sync engine ran instead.
    UringUnavailable {
        /// The error setting up a ring returned.
        error: String,
    },
}

impl EngineFallback {
    /// The kind an old file's sentence says.
    fn from_sentence(s: &str) -> Option<Self> {
        let error = s
            .strip_prefix("io_uring unavailable (")?
            .strip_suffix(')')?;
        Some(EngineFallback::UringUnavailable {
            error: error.to_string(),
        })
    }
}

now_or_then!(
    EngineFallback,
    EngineFallback::from_sentence,
    "engine_fallback"
);

/// The phase of a run a worker failed in.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The warm-up, before the measured phase.
    WarmUp,
    /// Submitting the measured phase's I/O.
    Submitting,
}

/// A failure that stopped a worker (and so the run) early.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(remote = "Self")]
pub struct Fatal {
    /// When it failed.
    pub stage: Stage,
    /// The error the engine returned.
    pub error: String,
    /// Under MPI: the rank whose worker failed (absent for one process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
}

impl Fatal {
    /// The failure an old file's sentence says (`rank N: ` first under MPI).
    fn from_sentence(s: &str) -> Option<Self> {
        let (rank, rest) = match s.strip_prefix("rank ").and_then(|r| r.split_once(": ")) {
            Some((n, rest)) => (Some(n.parse().ok()?), rest),
            None => (None, s),
        };
        let (stage, error) = if let Some(e) = rest.strip_prefix("warm-up: ") {
            (Stage::WarmUp, e)
        } else {
            (Stage::Submitting, rest.strip_prefix("submitting I/O: ")?)
        };
        Some(Fatal {
            stage,
            error: error.to_string(),
            rank,
        })
    }
}

now_or_then!(Fatal, Fatal::from_sentence, "fatal");

/// What a failed I/O returned.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(remote = "Self", tag = "kind", rename_all = "snake_case")]
pub enum IoFailure {
    /// It moved fewer bytes than asked (and no error).
    Short,
    /// An error.
    Errno {
        /// The error number (positive: 5 is EIO).
        errno: i32,
    },
}

impl IoFailure {
    /// The failure an old file's sentence names: `short transfer`, or an OS error's text,
    /// which ends with its number (`EIO (Input/output error (os error 5))`).
    fn from_sentence(s: &str) -> Option<Self> {
        if s == "short transfer" {
            return Some(IoFailure::Short);
        }
        let (_, tail) = s.rsplit_once("(os error ")?;
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        Some(IoFailure::Errno {
            errno: digits.parse().ok()?,
        })
    }
}

now_or_then!(IoFailure, IoFailure::from_sentence, "error");

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: for<'de> Deserialize<'de>>(json: &str) -> T {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn every_kind_reads_back_what_it_writes() {
        let f = Fatal {
            stage: Stage::WarmUp,
            error: "Input/output error (os error 5)".into(),
            rank: None,
        };
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(
            text,
            r#"{"stage":"warm_up","error":"Input/output error (os error 5)"}"#
        );
        assert_eq!(read::<Fatal>(&text), f);
        let e = IoFailure::Errno { errno: 28 };
        let text = serde_json::to_string(&e).unwrap();
        assert_eq!(text, r#"{"kind":"errno","errno":28}"#);
        assert_eq!(read::<IoFailure>(&text), e);
        let d = DirectFallback::Unsupported;
        assert_eq!(
            read::<DirectFallback>(&serde_json::to_string(&d).unwrap()),
            d
        );
        let u = EngineFallback::UringUnavailable { error: "x".into() };
        let text = serde_json::to_string(&u).unwrap();
        assert_eq!(text, r#"{"kind":"uring_unavailable","error":"x"}"#);
        assert_eq!(read::<EngineFallback>(&text), u);
    }

    #[test]
    fn the_sentences_of_older_files_read_as_their_kinds() {
        assert_eq!(
            read::<IoFailure>(r#""EIO (Input/output error (os error 5))""#),
            IoFailure::Errno { errno: 5 }
        );
        assert_eq!(
            read::<IoFailure>(r#""Disk quota exceeded (os error 122)""#),
            IoFailure::Errno { errno: 122 }
        );
        assert_eq!(read::<IoFailure>(r#""short transfer""#), IoFailure::Short);
        assert_eq!(
            read::<DirectFallback>(
                r#""the filesystem refused O_DIRECT at open (Invalid argument (os error 22))""#
            ),
            DirectFallback::RefusedAtOpen {
                error: "Invalid argument (os error 22)".into()
            }
        );
        assert_eq!(
            read::<DirectFallback>(r#""the filesystem does not support direct I/O for this file""#),
            DirectFallback::Unsupported
        );
        assert_eq!(
            read::<EngineFallback>(
                r#""io_uring unavailable (Operation not permitted (os error 1))""#
            ),
            EngineFallback::UringUnavailable {
                error: "Operation not permitted (os error 1)".into()
            }
        );
        assert_eq!(
            read::<Fatal>(r#""rank 3: submitting I/O: No space left on device (os error 28)""#),
            Fatal {
                stage: Stage::Submitting,
                error: "No space left on device (os error 28)".into(),
                rank: Some(3),
            }
        );
        assert_eq!(
            read::<Fatal>(r#""warm-up: boom""#),
            Fatal {
                stage: Stage::WarmUp,
                error: "boom".into(),
                rank: None,
            }
        );
        assert!(serde_json::from_str::<Fatal>(r#""something else""#).is_err());
        assert!(serde_json::from_str::<IoFailure>(r#""EIO""#).is_err());
    }
    #[test]
    fn a_run_written_with_sentences_reads_them_as_kinds() {
        let text = include_str!("../../tests/fixtures/report/run-file.json")
            .replacen(
                r#""direct_fallback": null"#,
                r#""direct_fallback": "the filesystem does not support direct I/O for this file""#,
                1,
            )
            .replacen(
                r#""engine_fallback": null"#,
                r#""engine_fallback": "io_uring unavailable (Operation not permitted (os error 1))""#,
                1,
            )
            .replacen(
                r#""fatal": null"#,
                r#""fatal": "warm-up: Input/output error (os error 5)""#,
                1,
            )
            .replacen(
                r#""first_error": null,
      "first_direction": null"#,
                r#""first_error": "ENOSPC (No space left on device (os error 28))",
      "first_direction": "write",
      "first": [{"offset": 8192, "error": "short transfer", "direction": "write"}]"#,
                1,
            );
        let doc: crate::model::RunReport = serde_json::from_str(&text).unwrap();
        assert_eq!(
            doc.targets[0].direct_fallback,
            Some(DirectFallback::Unsupported)
        );
        let r = &doc.results;
        assert!(matches!(
            r.engine_fallback,
            Some(EngineFallback::UringUnavailable { .. })
        ));
        assert_eq!(r.fatal.as_ref().map(|f| f.stage), Some(Stage::WarmUp));
        assert_eq!(
            r.errors.first_error,
            Some(IoFailure::Errno {
                errno: libc::ENOSPC
            })
        );
        assert_eq!(r.errors.first[0].error, IoFailure::Short);
        // Written again, each is its kind.
        let v = serde_json::to_value(&doc).unwrap();
        assert_eq!(v["results"]["errors"]["first_error"]["kind"], "errno");
        assert_eq!(v["results"]["fatal"]["stage"], "warm_up");
    }
}
