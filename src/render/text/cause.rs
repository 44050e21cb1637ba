//! Why a run did not go as asked, in words: direct I/O that fell back, the engine that stood
//! in for io_uring, the failure that stopped a worker and what a failed I/O returned (the
//! warnings that say them are `render::text::warning`'s).

use crate::model::cause::{DirectFallback, EngineFallback, Fatal, IoFailure, Stage};

/// Why direct I/O fell back (`the filesystem refused O_DIRECT at open (…)`).
pub fn direct_fallback(f: &DirectFallback) -> String {
    match f {
        DirectFallback::RefusedAtOpen { error } => {
            format!("the filesystem refused O_DIRECT at open ({error})")
        }
        DirectFallback::Unsupported => {
            "the filesystem does not support direct I/O for this file".to_string()
        }
    }
}

/// Why the engine was replaced (`io_uring unavailable (…)`).
pub fn engine_fallback(f: &EngineFallback) -> String {
    match f {
        EngineFallback::UringUnavailable { error } => format!("io_uring unavailable ({error})"),
    }
}

/// The failure that stopped a worker (`rank 2: submitting I/O: …`).
pub fn fatal(f: &Fatal) -> String {
    let rank = f.rank.map_or(String::new(), |r| format!("rank {r}: "));
    let stage = match f.stage {
        Stage::WarmUp => "warm-up",
        Stage::Submitting => "submitting I/O",
    };
    format!("{rank}{stage}: {}", f.error)
}

/// What a failed I/O returned: `EIO (Input/output error (os error 5))` (the symbolic name of
/// a common errno, then the system's words), or `short transfer`.
pub fn io_failure(f: &IoFailure) -> String {
    let IoFailure::Errno { errno } = *f else {
        return "short transfer".to_string();
    };
    let name = match errno {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::EROFS => "EROFS",
        libc::EAGAIN => "EAGAIN",
        libc::ENXIO => "ENXIO",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        _ => "",
    };
    let msg = std::io::Error::from_raw_os_error(errno);
    if name.is_empty() {
        msg.to_string()
    } else {
        format!("{name} ({msg})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_named_as_before() {
        assert_eq!(
            io_failure(&IoFailure::Errno { errno: libc::EIO }),
            format!("EIO ({})", std::io::Error::from_raw_os_error(libc::EIO))
        );
        assert!(
            io_failure(&IoFailure::Errno {
                errno: libc::ENOSPC
            })
            .starts_with("ENOSPC (")
        );
        assert_eq!(
            io_failure(&IoFailure::Errno {
                errno: libc::EDQUOT
            }),
            std::io::Error::from_raw_os_error(libc::EDQUOT).to_string()
        );
        assert_eq!(io_failure(&IoFailure::Short), "short transfer");
        assert_eq!(
            fatal(&Fatal {
                stage: Stage::Submitting,
                error: "x".into(),
                rank: Some(2)
            }),
            "rank 2: submitting I/O: x"
        );
        assert_eq!(
            fatal(&Fatal {
                stage: Stage::WarmUp,
                error: "x".into(),
                rank: None
            }),
            "warm-up: x"
        );
    }
}
