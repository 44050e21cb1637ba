//! The files a fio job runs on, named as fio names them: a `filename` list (`a:b`, shared by
//! the job's `numjobs` clones), or without one `filename_format` (by default
//! `directory/NAME.CLONE.FILE`) for each clone and each of its `nrfiles`, so every clone has
//! files of its own unless the format leaves out `$jobnum`.

use super::FioError;
use super::options::JobOptions;
use std::path::PathBuf;

/// The files of one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobFiles {
    /// Every file: one clone's files after another when clones have their own.
    pub paths: Vec<PathBuf>,
    /// How many clones have files of their own (`numjobs` without `filename`); 1 when all the
    /// clones share the same files.
    pub groups: u32,
}

impl JobFiles {
    /// How many files one clone goes to (its requests go to them in turn).
    pub fn per_clone(&self) -> u64 {
        (self.paths.len() / self.groups.max(1) as usize) as u64
    }
}

/// The files of job `o`, as fio names them.
pub fn of(o: &JobOptions) -> Result<JobFiles, FioError> {
    let dir = o.directory.as_deref();
    let at = |f: &str| match dir {
        Some(d) if !f.starts_with('/') => PathBuf::from(d).join(f),
        _ => PathBuf::from(f),
    };
    let files = match &o.filename {
        Some(f) => {
            if o.nrfiles > 1 {
                return Err(FioError::NotYet {
                    option: "nrfiles".into(),
                    why: "nrfiles together with filename".into(),
                });
            }
            // fio separates files with ':'; `\:` is a literal colon.
            let paths: Vec<PathBuf> = f
                .replace("\\:", "\u{0}")
                .split(':')
                .filter(|p| !p.is_empty())
                .map(|p| at(&p.replace('\u{0}', ":")))
                .collect();
            JobFiles { paths, groups: 1 }
        }
        None => {
            if o.numjobs > 1 && o.nrfiles > 1 {
                return Err(FioError::NotYet {
                    option: "nrfiles".into(),
                    why: format!(
                        "numjobs={} clones with nrfiles={} files each (every clone on its own \
                         set of files); give a filename list the clones share, or nrfiles=1",
                        o.numjobs, o.nrfiles
                    ),
                });
            }
            let base = PathBuf::from(dir.unwrap_or("."));
            let format = o.filename_format.as_deref().unwrap_or(DEFAULT_FORMAT);
            check_format(format, o)?;
            // Without $jobnum every clone names the same files: they share them.
            let groups = if format.contains("$jobnum") {
                o.numjobs
            } else {
                1
            };
            let paths = (0..groups as u64)
                .flat_map(|clone| (0..o.nrfiles).map(move |file| (clone, file)))
                .map(|(clone, file)| {
                    base.join(
                        format
                            .replace("$jobname", &o.name)
                            .replace("$jobnum", &clone.to_string())
                            .replace("$filenum", &file.to_string()),
                    )
                })
                .collect();
            JobFiles { paths, groups }
        }
    };
    if files.paths.is_empty() {
        return Err(FioError::value("filename", "", "a file or device name"));
    }
    Ok(files)
}

/// fio's default `filename_format`.
pub const DEFAULT_FORMAT: &str = "$jobname.$jobnum.$filenum";

/// Refuses a `filename_format` halfpower cannot name files by: `$clientuid` (fio's
/// client/server mode) and several files of a clone that the format would give one name.
fn check_format(format: &str, o: &JobOptions) -> Result<(), FioError> {
    if format.contains("$clientuid") {
        return Err(FioError::NotYet {
            option: "filename_format".into(),
            why: "$clientuid names files of fio's client/server mode, which halfpower does not \
                  have; use $jobname, $jobnum and $filenum"
                .into(),
        });
    }
    if o.nrfiles > 1 && !format.contains("$filenum") {
        return Err(FioError::value(
            "filename_format",
            format,
            "a format with $filenum when nrfiles is more than 1 (each file needs its own name)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(pairs: &[(&str, &str)]) -> JobOptions {
        let mut o = JobOptions {
            name: "jb".into(),
            ..JobOptions::default()
        };
        for (k, v) in pairs {
            o.apply(k, Some(v)).unwrap();
        }
        o
    }

    #[test]
    fn files_are_named_as_fio_names_them() {
        let names = |f: JobFiles| {
            f.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        let f = of(&job(&[("numjobs", "2"), ("directory", "/d")])).unwrap();
        assert_eq!((f.groups, f.per_clone()), (2, 1));
        assert_eq!(names(f), ["/d/jb.0.0", "/d/jb.1.0"]);
        let f = of(&job(&[("nrfiles", "3")])).unwrap();
        assert_eq!((f.groups, f.per_clone()), (1, 3));
        assert_eq!(names(f), ["./jb.0.0", "./jb.0.1", "./jb.0.2"]);
        // Clones share a filename list, as in fio.
        let f = of(&job(&[("numjobs", "4"), ("filename", "a:b\\:c")])).unwrap();
        assert_eq!((f.groups, f.per_clone()), (1, 2));
        assert_eq!(names(f), ["a", "b:c"]);
        assert!(of(&job(&[("numjobs", "2"), ("nrfiles", "2")])).is_err());
    }

    #[test]
    fn filename_format_names_files_as_fio_does() {
        let names = |f: JobFiles| -> Vec<String> {
            f.paths.iter().map(|p| p.display().to_string()).collect()
        };
        // fio's default, written out, is the default.
        let f = of(&job(&[
            ("numjobs", "2"),
            ("filename_format", DEFAULT_FORMAT),
        ]))
        .unwrap();
        assert_eq!(names(f), ["./jb.0.0", "./jb.1.0"]);
        let f = of(&job(&[
            ("numjobs", "2"),
            ("directory", "/d"),
            ("filename_format", "data-$jobnum-$jobname"),
        ]))
        .unwrap();
        assert_eq!(
            (f.groups, names(f)),
            (2, vec!["/d/data-0-jb".into(), "/d/data-1-jb".into()])
        );
        // Without $jobnum the clones share one file, as fio's clones open the same name.
        let f = of(&job(&[
            ("numjobs", "4"),
            ("filename_format", "shared.$filenum"),
        ]))
        .unwrap();
        assert_eq!((f.groups, names(f)), (1, vec!["./shared.0".to_string()]));
        let f = of(&job(&[("nrfiles", "2"), ("filename_format", "f$filenum")])).unwrap();
        assert_eq!(names(f), ["./f0", "./f1"]);
        for bad in [
            job(&[("nrfiles", "2"), ("filename_format", "one")]),
            job(&[("filename_format", "x.$clientuid")]),
        ] {
            let e = of(&bad).unwrap_err().to_string();
            assert!(e.contains("filename_format"), "{e}");
        }
    }
}
