//! `diagnose --profile`: reads and checks what a device was measured to do: a profile document
//! (its fitted service-time lines, and its random cells as short curves of load), or a sweep
//! document (no lines; its points as curves of throughput and response time against depth,
//! with the knee its analysis found).

use crate::model::Kind;
use crate::model::profile::{
    Curve, CurvePoint, CurveSource, PROFILE_SCHEMA_VERSION, Pattern, Profile, ProfileCell,
    ProfiledDisk,
};
use crate::model::sweep::SweepReport;
use crate::plan::RwMode;

/// Reads and checks a profile document; the error says what is wrong.
pub fn read_profile(text: &str) -> Result<Profile, String> {
    let mut p: Profile = serde_json::from_str(text).map_err(|e| format!("not a profile: {e}"))?;
    if p.kind != Kind::Profile {
        return Err(format!("kind is '{}', expected 'profile'", p.kind.name()));
    }
    if p.schema_version > PROFILE_SCHEMA_VERSION || p.schema_version == 0 {
        return Err(format!(
            "schema_version {} is not one this halfpower reads (1..={PROFILE_SCHEMA_VERSION})",
            p.schema_version
        ));
    }
    if p.fits.is_empty() {
        return Err("no fits".into());
    }
    #[derive(serde::Deserialize)]
    struct Cells {
        #[serde(default)]
        cells: Vec<ProfileCell>,
    }
    let cells = serde_json::from_str::<Cells>(text).map_or_else(|_| Vec::new(), |c| c.cells);
    p.curves = profile_curves(&cells);
    Ok(p)
}

/// Reads what `--profile` names: a profile document, or a sweep document as the device's
/// curves (its fitted lines none: expectations then come from the device's class).
pub fn read_device_profile(text: &str) -> Result<Profile, String> {
    let kind = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(String::from));
    if kind.as_deref() != Some("sweep") {
        return read_profile(text);
    }
    let s: SweepReport = serde_json::from_str(text).map_err(|e| format!("not a sweep: {e}"))?;
    let curves = sweep_curves(&s);
    if curves.is_empty() {
        return Err("a sweep without two depths of one rw mode and size: no curve".into());
    }
    let first = s.targets.first();
    Ok(Profile {
        schema_version: PROFILE_SCHEMA_VERSION,
        kind: Kind::Profile,
        target: first.map(|t| t.path.clone()),
        target_info: first.map(|t| ProfiledDisk {
            device: t.device.clone(),
            partition: t.partition.clone(),
        }),
        fits: Vec::new(),
        curves,
    })
}

/// One curve per rw mode and size of a sweep with at least two loads, its knee from the
/// sweep's analysis of that mode.
fn sweep_curves(s: &SweepReport) -> Vec<Curve> {
    let mut curves: Vec<Curve> = Vec::new();
    for p in &s.points {
        let point = CurvePoint {
            inflight: p.qd * p.threads,
            iops: p.iops,
            latency_ms: p.results.as_ref().map(|r| r.total.latency_us.mean / 1000.0),
        };
        match curves
            .iter_mut()
            .find(|c| c.rw == p.rw && c.bs_bytes == p.bs_bytes)
        {
            Some(c) => c.points.push(point),
            None => curves.push(Curve {
                source: CurveSource::Sweep,
                rw: p.rw,
                bs_bytes: p.bs_bytes,
                points: vec![point],
                knee_inflight: None,
            }),
        }
    }
    for c in &mut curves {
        c.points.sort_by_key(|p| p.inflight);
        c.knee_inflight = s
            .analysis
            .iter()
            .filter(|a| a.rw == c.rw)
            .flat_map(|a| a.knee_qd.iter().map(move |k| (a.threads, k)))
            .find(|(_, k)| k.bs_bytes == c.bs_bytes)
            .and_then(|(threads, k)| k.qd.map(|q| q * threads));
    }
    curves.retain(|c| c.points.len() >= 2);
    curves
}

/// The random cells of a profile as curves: reads and writes per size, at depths 1 and 4.
fn profile_curves(cells: &[ProfileCell]) -> Vec<Curve> {
    let mut curves: Vec<Curve> = Vec::new();
    for c in cells.iter().filter(|c| c.pattern == Pattern::Random) {
        let rw = match c.rw {
            crate::model::Direction::Read => RwMode::Randread,
            crate::model::Direction::Write => RwMode::Randwrite,
        };
        let point = CurvePoint {
            inflight: c.qd * c.threads,
            iops: c.iops,
            latency_ms: Some(c.mean_latency_ms),
        };
        match curves
            .iter_mut()
            .find(|k| k.rw == rw && k.bs_bytes == c.bs_bytes)
        {
            Some(k) => k.points.push(point),
            None => curves.push(Curve {
                source: CurveSource::Profile,
                rw,
                bs_bytes: c.bs_bytes,
                points: vec![point],
                knee_inflight: None,
            }),
        }
    }
    for c in &mut curves {
        c.points.sort_by_key(|p| p.inflight);
    }
    curves.retain(|c| c.points.len() >= 2);
    curves
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile as a person might write it by hand.
    pub const HAND_WRITTEN: &str = r#"{"schema_version":1,"kind":"profile","target":"/dev/sdb",
      "fits":[{"rw":"read","pattern":"random","overhead_ms":5.0,"ms_per_kib":0.01,"r2":0.99},
              {"rw":"write","pattern":"random","overhead_ms":6.0,"ms_per_kib":0.02},
              {"rw":"read","pattern":"sequential","overhead_ms":0.1,"ms_per_kib":0.02}]}"#;

    #[test]
    fn profiles_are_checked() {
        let p = read_profile(HAND_WRITTEN).unwrap();
        assert_eq!(p.fits.len(), 3);
        assert!(p.curves.is_empty(), "a hand-written profile has no cells");
        assert!(read_profile(r#"{"schema_version":9,"kind":"profile","fits":[]}"#).is_err());
        assert!(read_profile(r#"{"schema_version":1,"kind":"run","fits":[]}"#).is_err());
        assert!(read_profile(r#"{"schema_version":1,"kind":"profile","fits":[]}"#).is_err());
        assert!(read_profile("[]").is_err());
        assert!(read_device_profile(r#"{"kind":"sweep","schema_version":2}"#).is_err());
    }
}
