//! `--limit SPEC` and the files it may name (`--limit @FILE`, one SPEC a line, `#` comments):
//! a provider's provisioned limits, which the OS cannot see. SPEC is a comma-separated list of
//! `iops=N` (I/Os per second, reads and writes together), `mbps=N` (MB/s, 10^6 bytes/s, both
//! directions together) and `target=PATH` (the target it is for; each target without it).

use crate::Error;
use crate::model::policy::GivenLimit;

/// What `--limit` accepts, for its errors.
const ACCEPTED: &str = "a comma-separated list of iops=N (I/Os per second, reads and writes \
                        together), mbps=N (MB/s = 10^6 bytes/s) and target=PATH, with iops or \
                        mbps, each once, N a positive number: iops=3000,mbps=125";

/// One SPEC.
pub fn parse_spec(spec: &str) -> crate::Result<GivenLimit> {
    let bad = |why: &str| Error::invalid("--limit", spec, format!("{why}; {ACCEPTED}"));
    let mut g = GivenLimit::default();
    for part in spec.split(',').map(str::trim) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(bad(&format!("'{part}' has no '='")));
        };
        let (key, value) = (key.trim(), value.trim());
        // The value times `unit`, positive and finite.
        let number = |unit: f64| -> crate::Result<f64> {
            match value.parse::<f64>().map(|v| v * unit) {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(bad(&format!("{key} '{value}' is not a positive number"))),
            }
        };
        let slot_taken = match key {
            "iops" => g.iops.replace(number(1.0)?).is_some(),
            "mbps" => g.bytes_per_s.replace(number(1e6)?).is_some(),
            "target" if value.is_empty() => return Err(bad("target= names no target")),
            "target" => g.target.replace(value.to_string()).is_some(),
            other => return Err(bad(&format!("unknown key '{other}'"))),
        };
        if slot_taken {
            return Err(bad(&format!("{key} is given twice")));
        }
    }
    if g.iops.is_none() && g.bytes_per_s.is_none() {
        return Err(bad("it limits nothing"));
    }
    Ok(g)
}

/// A file of SPECs, one a line (blank lines and `#` comments skipped); `shown` names it in
/// errors.
pub fn parse_file(shown: &str, text: &str) -> crate::Result<Vec<GivenLimit>> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| {
            parse_spec(l).map_err(|e| {
                Error::invalid(
                    "--limit",
                    format!("@{shown}"),
                    format!("line {}: {e}", i + 1),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_give_iops_bytes_and_target() {
        let g = parse_spec("iops=3000,mbps=125").unwrap();
        assert_eq!(
            (g.iops, g.bytes_per_s, g.target),
            (Some(3000.0), Some(125e6), None)
        );
        let g = parse_spec(" mbps = 62.5 , target=/dev/nvme1n1").unwrap();
        assert_eq!(g.bytes_per_s, Some(62.5e6));
        assert_eq!(g.target.as_deref(), Some("/dev/nvme1n1"));
    }

    #[test]
    fn bad_specs_name_what_is_wrong() {
        for (spec, says) in [
            ("", "has no '='"),
            ("iops", "has no '='"),
            ("iops=-5", "not a positive number"),
            ("iops=0", "not a positive number"),
            ("iops=NaN", "not a positive number"),
            ("mbps=1e400", "not a positive number"),
            ("mbps=1e303", "not a positive number"),
            ("iops=1,iops=2", "given twice"),
            ("bw=5", "unknown key 'bw'"),
            ("target=/dev/sda", "limits nothing"),
            ("target=,iops=5", "names no target"),
        ] {
            let e = parse_spec(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
            assert!(e.contains("iops=3000,mbps=125"), "{spec}: {e}");
        }
    }

    #[test]
    fn a_file_holds_one_spec_a_line() {
        let text = "# volumes\niops=3000,target=/dev/a\n\n  mbps=125 # the instance\n";
        let v = parse_file("l.txt", text).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].bytes_per_s, Some(125e6));
        let e = parse_file("l.txt", "iops=1\nnope\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("@l.txt") && e.contains("line 2"), "{e}");
    }
}
