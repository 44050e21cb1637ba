//! fio's job-file and command-line grammar, read as fio reads it: `[section]` headers (a name
//! that begins with `global` is a global section), `key=value` and bare `key` lines, whole-line
//! `;`/`#` comments, `include FILE` (relative to the including file), `${VAR}` from the
//! environment (empty when unset, as in fio), and on the command line `--key=value` options
//! where `--name=` starts a new job and earlier options are global.

use super::FioError;
use std::path::{Path, PathBuf};

/// One `key[=value]` as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOption {
    /// The option's name, as written (fio matches names exactly).
    pub key: String,
    /// Its value, `None` for a bare option such as `time_based`.
    pub value: Option<String>,
    /// `FILE:LINE` or `command line`, for messages.
    pub origin: String,
    /// The `${VAR}`s it used that the environment does not set (read as empty, as fio).
    pub unset: Vec<String>,
}

/// A section of a job file, or a job from the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// The name between the brackets (for a command-line job, its `--name`).
    pub name: String,
    /// Whether this is a global section (its name begins with `global`).
    pub global: bool,
    /// Whether fio puts a stonewall before this job: the first job of every job file after
    /// the first.
    pub file_stonewall: bool,
    /// Its options in order.
    pub options: Vec<RawOption>,
}

/// The most nested includes followed (fio itself has no limit; a loop would never end).
const MAX_INCLUDE_DEPTH: usize = 16;

/// Replaces `${VAR}` with the environment's value (empty when unset, as fio does).
pub fn substitute(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                out.push_str(&env(&after[..j]).unwrap_or_default());
                rest = &after[j + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The names of the `${VAR}`s in `s` that `env` does not set.
pub fn unset_variables(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) if j > 0 => {
                let name = &after[..j];
                if env(name).is_none() && !out.iter().any(|n| n == name) {
                    out.push(name.to_string());
                }
                rest = &after[j + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// A job-file line without its trailing comment: fio cuts a line at the first `;` or `#`
/// (`numjobs=4 ; one per CPU` is `numjobs=4`).
fn uncommented(line: &str) -> &str {
    line.find([';', '#']).map_or(line, |i| &line[..i])
}

fn split_option(line: &str, origin: String, env: &dyn Fn(&str) -> Option<String>) -> RawOption {
    let unset = unset_variables(line, env);
    let line = substitute(line, env);
    match line.split_once('=') {
        Some((k, v)) => RawOption {
            key: k.trim().to_string(),
            value: Some(v.trim().to_string()),
            origin,
            unset,
        },
        None => RawOption {
            key: line.trim().to_string(),
            value: None,
            origin,
            unset,
        },
    }
}

fn is_comment_or_blank(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty() || t.starts_with(';') || t.starts_with('#')
}

/// Reads the job file `path` (text `text`) into sections. `read` opens included files.
pub fn parse_file(
    path: &Path,
    text: &str,
    first_file: bool,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, FioError> {
    let mut sections: Vec<Section> = Vec::new();
    let mut pending_stonewall = !first_file;
    let mut lines = Vec::new();
    collect_lines(path, text, read, 0, &mut lines)?;
    for (origin, line) in lines {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                return Err(FioError::syntax(
                    &origin,
                    t,
                    "a section header such as [job1]",
                ));
            };
            let global = name.starts_with("global");
            sections.push(Section {
                name: name.to_string(),
                global,
                file_stonewall: !global && std::mem::take(&mut pending_stonewall),
                options: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(FioError::syntax(
                &origin,
                t,
                "options inside a [section]; the file must start with one",
            ));
        };
        section
            .options
            .push(split_option(uncommented(t), origin, env));
    }
    Ok(sections)
}

/// The file's meaningful lines with their origins, includes expanded in place.
fn collect_lines(
    path: &Path,
    text: &str,
    read: &dyn Fn(&Path) -> std::io::Result<String>,
    depth: usize,
    out: &mut Vec<(String, String)>,
) -> Result<(), FioError> {
    for (i, line) in text.lines().enumerate() {
        if is_comment_or_blank(line) {
            continue;
        }
        let origin = format!("{}:{}", path.display(), i + 1);
        let t = line.trim();
        if let Some(name) = t.strip_prefix("include") {
            if name.starts_with(char::is_whitespace) {
                if depth >= MAX_INCLUDE_DEPTH {
                    return Err(FioError::syntax(
                        &origin,
                        t,
                        "includes nested at most 16 deep",
                    ));
                }
                let name = PathBuf::from(name.trim());
                let full = if name.is_relative() && !name.exists() {
                    path.parent().unwrap_or(Path::new(".")).join(&name)
                } else {
                    name
                };
                let inner = read(&full).map_err(|e| FioError::File {
                    path: full.display().to_string(),
                    message: e.to_string(),
                })?;
                let mut nested = Vec::new();
                collect_lines(&full, &inner, read, depth + 1, &mut nested)?;
                if let Some((o, l)) = nested.iter().find(|(_, l)| l.trim().starts_with('[')) {
                    return Err(FioError::syntax(
                        o,
                        l.trim(),
                        "no new sections in an included file",
                    ));
                }
                out.extend(nested);
                continue;
            }
        }
        out.push((origin, line.to_string()));
    }
    Ok(())
}

/// Reads fio-style command-line job options (`--key=value` or `--key`, already separated from
/// halfpower's own and from job files): options before the first `--name` form a global
/// section, each `--name=` starts a job.
pub fn parse_command_line(
    args: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, FioError> {
    let mut sections = vec![Section {
        name: "global".into(),
        global: true,
        file_stonewall: false,
        options: Vec::new(),
    }];
    for a in args {
        let Some(body) = a.strip_prefix("--") else {
            return Err(FioError::syntax("command line", a, "--option=value"));
        };
        let opt = split_option(body, "command line".into(), env);
        if opt.key == "name" {
            sections.push(Section {
                name: opt.value.clone().unwrap_or_default(),
                global: false,
                file_stonewall: false,
                options: Vec::new(),
            });
        }
        sections
            .last_mut()
            .expect("one section at least")
            .options
            .push(opt);
    }
    if sections[0].options.is_empty() {
        sections.remove(0);
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn files(
        map: HashMap<&'static str, &'static str>,
    ) -> impl Fn(&Path) -> std::io::Result<String> {
        move |p: &Path| {
            map.get(p.to_str().unwrap())
                .map(|s| s.to_string())
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
        }
    }

    #[test]
    fn sections_options_and_comments() {
        let text = "; a comment\n# another\n[global]\nbs=4k\n  rw = randread \ntime_based\n\n[job1]\niodepth=16\n[global-2]\ndirect=1\n[job2]\n";
        let s = parse_file(
            Path::new("j.fio"),
            text,
            true,
            &files(HashMap::new()),
            &no_env,
        )
        .unwrap();
        assert_eq!(s.len(), 4);
        assert!(s[0].global && !s[1].global && s[2].global && !s[3].global);
        assert_eq!(s[0].options[1].key, "rw");
        assert_eq!(s[0].options[1].value.as_deref(), Some("randread"));
        assert_eq!(s[0].options[2].value, None);
        assert_eq!(s[0].options[2].origin, "j.fio:6");
        assert_eq!(s[1].name, "job1");
        assert!(!s[1].file_stonewall);
    }

    #[test]
    fn later_files_start_with_a_stonewall() {
        let s = parse_file(
            Path::new("b.fio"),
            "[a]\n[b]\n",
            false,
            &files(HashMap::new()),
            &no_env,
        )
        .unwrap();
        assert!(s[0].file_stonewall && !s[1].file_stonewall);
    }

    #[test]
    fn includes_are_relative_and_flat() {
        let map = HashMap::from([
            ("dir/common.fio", "bs=64k\n; c\n"),
            ("dir/bad.fio", "[x]\n"),
        ]);
        let s = parse_file(
            Path::new("dir/j.fio"),
            "[j]\ninclude common.fio\nrw=read\n",
            true,
            &files(map.clone()),
            &no_env,
        )
        .unwrap();
        assert_eq!(s[0].options.len(), 2);
        assert_eq!(s[0].options[0].origin, "dir/common.fio:1");
        assert!(
            parse_file(
                Path::new("dir/j.fio"),
                "[j]\ninclude bad.fio\n",
                true,
                &files(map),
                &no_env
            )
            .is_err()
        );
        assert!(
            parse_file(
                Path::new("j.fio"),
                "[j]\ninclude missing.fio\n",
                true,
                &files(HashMap::new()),
                &no_env
            )
            .is_err()
        );
    }

    #[test]
    fn options_before_a_section_are_refused() {
        assert!(
            parse_file(
                Path::new("j.fio"),
                "bs=4k\n[j]\n",
                true,
                &files(HashMap::new()),
                &no_env
            )
            .is_err()
        );
        assert!(
            parse_file(
                Path::new("j.fio"),
                "[j\n",
                true,
                &files(HashMap::new()),
                &no_env
            )
            .is_err()
        );
    }

    #[test]
    fn environment_variables_substitute() {
        let env = |k: &str| (k == "SIZE").then(|| "2g".to_string());
        assert_eq!(substitute("size=${SIZE}", &env), "size=2g");
        assert_eq!(substitute("x=${UNSET}y", &env), "x=y");
        assert_eq!(substitute("x=${", &env), "x=${");
        assert_eq!(
            unset_variables("x=${UNSET}${SIZE}${UNSET}", &env),
            ["UNSET"]
        );
        let s = parse_file(
            Path::new("j.fio"),
            "[j]\nsize=${SIZE}\n",
            true,
            &files(HashMap::new()),
            &env,
        )
        .unwrap();
        assert_eq!(s[0].options[0].value.as_deref(), Some("2g"));
    }

    #[test]
    fn command_line_jobs() {
        let args: Vec<String> = [
            "--bs=4k",
            "--name=a",
            "--rw=read",
            "--name=b",
            "--time_based",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let s = parse_command_line(&args, &no_env).unwrap();
        assert_eq!(s.len(), 3);
        assert!(s[0].global);
        assert_eq!(s[1].name, "a");
        assert_eq!(s[1].options.len(), 2);
        assert_eq!(s[2].options[1].key, "time_based");
        let only_jobs = parse_command_line(&["--name=x".to_string()], &no_env).unwrap();
        assert_eq!(only_jobs.len(), 1);
    }
}
