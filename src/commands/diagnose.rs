//! `halfpower diagnose`: reads the logs, applies the rules, prints text or JSON.

use crate::analysis::diagnose::{diagnose as run_rules, log_devices, profile_for};
use crate::cli::DiagnoseArgs;
use crate::input::parse_log;
use crate::input::profile::read_device_profile;
use crate::model::Warning;
use crate::render::text::diagnosis::diagnosis_text;
use std::path::PathBuf;

/// Runs `diagnose`; returns the exit status.
pub fn diagnose(args: DiagnoseArgs) -> anyhow::Result<u8> {
    let (cmd, exporter) = lower(&args)?;
    let logs = read_logs(&cmd.logs)?;
    let applied = match &cmd.profile {
        None => None,
        Some((path, p)) => Some(
            profile_for(p, cmd.profile_device.as_deref(), &logs).map_err(|several| {
                crate::Error::invalid(
                    "--profile",
                    path.display(),
                    format!(
                        "a profile that names the disk it was measured on, or \
                         --profile-device NAME for the device of the logs it describes (they \
                         hold {})",
                        several.join(", ")
                    ),
                )
            })?,
        ),
    };
    if let Some(a) = &applied {
        if !log_devices(&logs).iter().any(|n| a.devices.contains(n)) {
            let unmatched = Warning::ProfileUnmatched {
                devices: a.devices.clone(),
            };
            crate::measure::warn(&mut Vec::new(), unmatched);
        }
    }
    let d = run_rules(&logs, applied.as_ref());
    let text = diagnosis_text(&d);
    exporter.emit(crate::model::Document::Diagnose(Box::new(d)), &text)?;
    Ok(0)
}

/// `diagnose`'s options lowered once ([`lower`]).
struct DiagnoseCommand {
    /// The logs.
    logs: Vec<PathBuf>,
    /// `--profile`'s file and the profile read from it.
    profile: Option<(PathBuf, crate::model::profile::Profile)>,
    /// `--profile-device`.
    profile_device: Option<String>,
}

/// Lowers `diagnose`'s flags, once, into its command (`--profile` read and checked) and its
/// exporter.
fn lower(args: &DiagnoseArgs) -> anyhow::Result<(DiagnoseCommand, super::Exporter<'_>)> {
    let exporter = super::Exporter::checked(&args.output)?;
    let profile = match &args.curve.profile {
        None => None,
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                crate::Error::invalid(
                    "--profile",
                    p.display(),
                    format!("a readable profile JSON file ({e})"),
                )
            })?;
            let profile = read_device_profile(&text).map_err(|e| {
                crate::Error::invalid(
                    "--profile",
                    p.display(),
                    format!("a profile as docs/profile.md defines it: {e}"),
                )
            })?;
            Some((p.clone(), profile))
        }
    };
    let cmd = DiagnoseCommand {
        logs: args.logs.clone(),
        profile,
        profile_device: args.curve.profile_device.clone(),
    };
    Ok((cmd, exporter))
}

/// Reads and parses every log, each with at least one complete device interval.
fn read_logs(paths: &[PathBuf]) -> crate::Result<Vec<crate::model::log::Log>> {
    let mut logs = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| crate::Error::invalid("LOG", &shown, format!("a readable file ({e})")))?;
        let text = String::from_utf8_lossy(&bytes);
        let log =
            parse_log(&shown, &text).map_err(|why| crate::Error::invalid("LOG", &shown, why))?;
        crate::measure::warn_of_log(&log.warnings);
        if log.disks.is_empty() {
            return Err(crate::Error::invalid(
                "LOG",
                &shown,
                "a log with at least one complete device interval",
            ));
        }
        logs.push(log);
    }
    Ok(logs)
}
