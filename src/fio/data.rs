//! What a fio job's writes carry and how they are checked: `verify`, `verify_pattern` and
//! `buffer_pattern` lowered into the workload's payload ([`Payload`]) and the verification
//! method, with a note where halfpower's bytes or checks differ from fio's.

use super::FioError;
use super::options::JobOptions;
use crate::model::fio::{FioNote, FioNoteKind, JobEnding};
use crate::plan::{Payload, Workload};

/// Sets the payload of `w` (whose request sizes are known) for job `o`, which ends as
/// `ending`; returns the verification method in force (fio's `verify`, or `pattern` where
/// `verify_pattern` implies it), with the notes it calls for.
pub(super) fn lower(
    o: &JobOptions,
    w: &mut Workload,
    ending: JobEnding,
) -> Result<(Option<String>, Vec<FioNote>), FioError> {
    let note = |kind| super::note(o, kind);
    let method = match (&o.verify, &o.verify_pattern) {
        (Some(m), None) if m == "pattern" => {
            return Err(FioError::value(
                "verify",
                m,
                "verify=pattern together with verify_pattern=PATTERN (fio 3.33 aborts \
                 without one)",
            ));
        }
        (Some(m), _) => Some(m.clone()),
        // fio: verify_pattern verifies unless verify was given (then as it says).
        (None, Some(_)) if !o.verify_set => Some("pattern".to_string()),
        (None, _) => None,
    };
    let mut notes = Vec::new();
    w.setup.payload = match (&method, &o.verify_pattern, &o.buffer_pattern) {
        (Some(m), Some(p), _) => {
            // Verified, the pattern goes over each block (fio: over each write).
            if w.bs.is_mix() && (p.has_offsets() || w.bs.min() % p.len() as u64 != 0) {
                return Err(FioError::NotYet {
                    option: "verify_pattern".into(),
                    why: format!(
                        "{p} with a mix of request sizes: fio lays the pattern over each \
                         write from its start, halfpower's record checks each block of the \
                         smallest size (give one bs, or a pattern without %o whose length \
                         divides it)"
                    ),
                });
            }
            notes.push(note(FioNoteKind::VerifyPattern {
                method: o.verify_set.then(|| m.clone()),
                ending,
            }));
            Payload::Pattern(Box::new(p.clone()))
        }
        (Some(m), None, _) => {
            notes.push(note(FioNoteKind::Verify {
                method: m.clone(),
                ending,
            }));
            Payload::Stamped
        }
        (None, _, Some(p)) if o.writes() => {
            notes.push(note(FioNoteKind::BufferPattern));
            Payload::Pattern(Box::new(p.clone()))
        }
        (None, _, _) => Payload::Stamped,
    };
    Ok((method, notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::RequestSize;

    fn lowered(pairs: &[(&str, &str)]) -> Result<(Option<String>, Payload), FioError> {
        let mut o = JobOptions {
            name: "j".into(),
            rw: crate::plan::RwMode::Write,
            ..JobOptions::default()
        };
        for (k, v) in pairs {
            o.apply(k, Some(v))?;
        }
        let mut w = Workload {
            rw: o.rw,
            bs: RequestSize::fixed(o.bs[1]),
            ..Workload::default()
        };
        if let Some(split) = &o.access.bssplit {
            w.bs = split[1].clone();
        }
        let (m, _) = lower(&o, &mut w, JobEnding::Size)?;
        Ok((m, w.setup.payload))
    }

    #[test]
    fn patterns_go_where_fio_writes_them() {
        let p = |t| {
            crate::engine::pattern::Pattern::parse(t, crate::engine::pattern::Formats::Offset)
                .unwrap()
        };
        // buffer_pattern alone: written, not verified.
        assert_eq!(
            lowered(&[("buffer_pattern", "0xa5")]).unwrap(),
            (None, Payload::Pattern(Box::new(p("0xa5"))))
        );
        // verify_pattern alone verifies with it; verify=pattern the same.
        for given in [
            &[("verify_pattern", "0xb6%o")][..],
            &[("verify", "pattern"), ("verify_pattern", "0xb6%o")],
        ] {
            assert_eq!(
                lowered(given).unwrap(),
                (
                    Some("pattern".into()),
                    Payload::Pattern(Box::new(p("0xb6%o")))
                )
            );
        }
        // A checksum with a pattern: the pattern is written and compared.
        assert_eq!(
            lowered(&[("verify", "crc32c"), ("verify_pattern", "1")]).unwrap(),
            (Some("crc32c".into()), Payload::Pattern(Box::new(p("1"))))
        );
        // Under a checksum, buffer_pattern is not written (fio fills random data too).
        assert_eq!(
            lowered(&[("verify", "md5"), ("buffer_pattern", "0xa5")]).unwrap(),
            (Some("md5".into()), Payload::Stamped)
        );
        // verify=none turns verify_pattern off, wherever it is written.
        for order in [
            &[("verify", "none"), ("verify_pattern", "1")][..],
            &[("verify_pattern", "1"), ("verify", "0")],
        ] {
            assert_eq!(lowered(order).unwrap(), (None, Payload::Stamped));
        }
        // fio 3.33 aborts on verify=pattern without a pattern.
        assert!(lowered(&[("verify", "pattern")]).is_err());
        // A mix: only where each block gets the bytes each write would.
        let mix = [
            ("bssplit", "4k/50:8k/50"),
            ("time_based", "1"),
            ("runtime", "1"),
        ];
        assert!(lowered(&[&mix[..], &[("verify_pattern", "0x0102")]].concat()).is_ok());
        for bad in ["0x010203", "%o"] {
            assert!(matches!(
                lowered(&[&mix[..], &[("verify_pattern", bad)]].concat()),
                Err(FioError::NotYet { .. })
            ));
        }
    }
}
