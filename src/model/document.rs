//! Documents of every kind, made from the table of kinds ([`crate::model::with_documents!`], in
//! `model/mod.rs` beside the kinds' modules): [`Document`] and [`Kind`] are expanded from it,
//! as a layer above that handles every kind (the HTML report) expands its own code. What
//! differs by kind lives with the kind's type, behind [`Report`].

use super::Warning;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What every kind of document answers, each in its own module: adding a kind is its type, this
/// trait's impl beside it, and one row in [`crate::model::with_documents!`].
pub trait Report: Clone + std::fmt::Debug + Serialize + DeserializeOwned {
    /// Its newest layout version; none for a kind whose records carry their own.
    const SCHEMA: Option<u32> = Some(super::SCHEMA_VERSION);

    /// The warnings it carries as its own.
    fn warnings(&self) -> &[Warning] {
        &[]
    }

    /// The warnings of each log it was read from, one list per log (a monitor log's, a
    /// diagnosis's).
    fn log_warnings(&self) -> Vec<&[Warning]> {
        Vec::new()
    }

    /// Why it holds nothing to draw, when it does not.
    fn nothing_to_draw(&self) -> Option<&'static str> {
        None
    }
}

/// Makes [`Document`] and [`Kind`] from the table.
macro_rules! documents {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty) = $name:literal, )*) => {
        /// Any document halfpower writes or reads back, of a known kind.
        #[derive(Clone, Debug)]
        pub enum Document {
            $( $(#[$doc])* $variant(Box<$ty>), )*
        }

        /// What a document is: its `kind` field, spelled once, by [`Kind::name`] (the JSON
        /// reads and writes that name).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Kind {
            $( $(#[$doc])* $variant, )*
        }

        impl Kind {
            /// Every kind.
            pub const ALL: &[Kind] = &[$(Kind::$variant,)*];

            /// The name as written in `kind`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$variant => $name,)*
                }
            }

            /// The newest layout version of a document of this kind this halfpower reads and
            /// writes; none for a monitor log (its records carry their own, and no kind).
            pub fn schema_version(self) -> Option<u32> {
                match self {
                    $(Kind::$variant => <$ty as Report>::SCHEMA,)*
                }
            }
        }

        impl Document {
            /// The document's kind.
            pub fn kind(&self) -> Kind {
                match self {
                    $(Document::$variant(_) => Kind::$variant,)*
                }
            }

            /// The warnings the document carries as its own (those of a monitor log or a
            /// diagnosis are each log's: [`Document::log_warnings`]).
            pub fn warnings(&self) -> &[Warning] {
                match self {
                    $(Document::$variant(r) => r.warnings(),)*
                }
            }

            /// The warnings of each log a monitor log or a diagnosis was read from (none for
            /// any other kind), one list per log.
            pub fn log_warnings(&self) -> Vec<&[Warning]> {
                match self {
                    $(Document::$variant(r) => r.log_warnings(),)*
                }
            }

            /// Why the document holds nothing to draw, when it does not: the one rule `report`
            /// refuses an input by and `--html` skips a report by.
            pub fn nothing_to_draw(&self) -> Option<&'static str> {
                match self {
                    $(Document::$variant(r) => r.nothing_to_draw(),)*
                }
            }

            /// The document of `kind` in `v`, a JSON object of that kind.
            pub fn from_json(kind: Kind, v: serde_json::Value) -> serde_json::Result<Document> {
                Ok(match kind {
                    $(Kind::$variant => Document::$variant(Box::new(serde_json::from_value(v)?)),)*
                })
            }
        }

        /// A document writes itself as the command that made it does (`--json`).
        impl Serialize for Document {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Document::$variant(r) => r.serialize(s),)*
                }
            }
        }
    };
}

crate::model::with_documents!(documents);
