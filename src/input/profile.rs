//! `diagnose --profile`: reads and checks the profile document's fitted lines.

use crate::model::Kind;
use crate::model::profile::{PROFILE_SCHEMA_VERSION, Profile};

/// Reads and checks a profile document; the error says what is wrong.
pub fn read_profile(text: &str) -> Result<Profile, String> {
    let p: Profile = serde_json::from_str(text).map_err(|e| format!("not a profile: {e}"))?;
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
    Ok(p)
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
        assert!(read_profile(r#"{"schema_version":9,"kind":"profile","fits":[]}"#).is_err());
        assert!(read_profile(r#"{"schema_version":1,"kind":"run","fits":[]}"#).is_err());
        assert!(read_profile(r#"{"schema_version":1,"kind":"profile","fits":[]}"#).is_err());
        assert!(read_profile("[]").is_err());
    }
}
