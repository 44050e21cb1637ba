//! The library's typed errors, and which of them are the user's to fix (exit status 2).

use std::io;
use std::path::PathBuf;

/// Everything that can stop halfpower from producing a result.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value the user typed is not acceptable; says what would be.
    #[error("invalid {what} '{value}': {accepted}")]
    Invalid {
        /// The option or argument, e.g. `--bs`.
        what: &'static str,
        /// The value as given.
        value: String,
        /// What would be accepted instead.
        accepted: String,
    },
    /// halfpower refuses to touch a target as asked (safety rules, wrong kind of file).
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The target.
        path: PathBuf,
        /// Why, and what to pass to go ahead when that is possible.
        reason: String,
    },
    /// An operating-system call failed where nothing the user typed was wrong. The OS error
    /// is part of the message and not also its `source()`: a chain printed whole (`{:#}`, as
    /// `main` prints every error) would say it twice.
    #[error("{context}: {os}")]
    Io {
        /// What halfpower was doing.
        context: String,
        /// The OS error (not named `source`: thiserror would make it the error's source).
        os: io::Error,
    },
    /// Input in another tool's language that halfpower cannot read or run (a fio job file
    /// or option: `halfpower fio`); the error itself is typed where that language lives.
    #[error("{0}")]
    Foreign(Box<dyn std::error::Error + Send + Sync>),
    /// The run was stopped by the user (Ctrl-C) before it could produce anything.
    #[error("interrupted")]
    Interrupted,
    /// An error every rank of an MPI job reached alike, decided from what the ranks shared at
    /// one step (every rank's targets, gathered before any is opened): rank 0 says it once and
    /// every rank ends with its status, none left waiting for another.
    #[error("{0}")]
    Alike(Box<Error>),
}

impl Error {
    /// Builds an [`Error::Io`] from the last OS error with the given context.
    pub fn io(context: impl Into<String>, os: io::Error) -> Self {
        Error::Io {
            context: context.into(),
            os,
        }
    }

    /// Builds an [`Error::Invalid`].
    pub fn invalid(what: &'static str, value: impl ToString, accepted: impl Into<String>) -> Self {
        Error::Invalid {
            what,
            value: value.to_string(),
            accepted: accepted.into(),
        }
    }

    /// Builds an [`Error::Refused`].
    pub fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// This error as one every rank of an MPI job reached alike ([`Error::Alike`]): decided
    /// from what every rank holds the same (the command line, the job's size).
    pub fn alike(self) -> Self {
        match self {
            Error::Alike(_) => self,
            e => Error::Alike(Box::new(e)),
        }
    }

    /// The process exit status this error maps to: 2 for usage errors, 130 for Ctrl-C, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Invalid { .. } | Error::Refused { .. } | Error::Foreign(_) => 2,
            Error::Interrupted => crate::signal::exit_status(),
            Error::Io { .. } => 1,
            Error::Alike(e) => e.exit_code(),
        }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// An OS error is said once however the error is printed: alone, as `main` prints a chain
    /// (`{:#}`), and under a context of its own.
    #[test]
    fn an_os_error_is_said_once() {
        let e = Error::io("creating /d/f", io::Error::from_raw_os_error(libc::EEXIST));
        assert_eq!(
            e.to_string(),
            format!("creating /d/f: {}", io::Error::from_raw_os_error(17))
        );
        let chain = anyhow::Error::from(e);
        let said = format!("{chain:#}");
        assert_eq!(said.matches("(os error 17)").count(), 1, "{said}");
        let said = format!("{:#}", chain.context("opening the targets"));
        assert_eq!(said.matches("(os error 17)").count(), 1, "{said}");
    }
}
