//! The texts of the link attributes as the kernel writes them (Documentation/ABI): PCI's
//! `current_link_speed` ("8.0 GT/s PCIe"; "8 GT/s" before 5.x; "Unknown"), libata's `sata_spd`
//! ("6.0 Gbps"; "<unknown>"), the SAS transport class's `negotiated_linkrate` ("12.0 Gbit";
//! "Unknown", "Phy disabled"), USB's `speed` in Mbit/s ("5000", "480", "1.5"), a network
//! interface's `speed` in Mbit/s (-1 when unknown), md's `level`. Anything else is `None`.

use super::MdLevel;

/// The number before `unit` at the start of `text` (`"8.0 GT/s PCIe"`, `"GT/s"` → 8.0): finite
/// and above zero.
fn leading_number(text: &str, unit: &str) -> Option<f64> {
    let t = text.trim();
    let (num, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let (num, rest) = match num.strip_suffix(unit) {
        Some(n) => (n, unit),
        None => (num, rest.trim_start()),
    };
    if !rest.starts_with(unit) {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// A PCIe link speed, GT/s.
pub fn pcie_speed(text: &str) -> Option<f64> {
    leading_number(text, "GT/s")
}

/// A PCIe link width, lanes (0 when the link is down).
pub fn pcie_width(text: &str) -> Option<u32> {
    let w: u32 = text.trim().trim_start_matches('x').parse().ok()?;
    (w <= 32).then_some(w)
}

/// A SATA link speed (`sata_spd`), Gbit/s.
pub fn sata_speed(text: &str) -> Option<f64> {
    leading_number(text, "Gbps")
}

/// A SAS phy's negotiated rate, Gbit/s.
pub fn sas_rate(text: &str) -> Option<f64> {
    leading_number(text, "Gbit")
}

/// A USB device's speed, Mbit/s.
pub fn usb_speed(text: &str) -> Option<f64> {
    let v: f64 = text.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// A network interface's speed, Mbit/s (`-1` and 0 say the kernel does not know).
pub fn net_speed(text: &str) -> Option<f64> {
    let v: i64 = text.trim().parse().ok()?;
    (v > 0).then_some(v as f64)
}

/// md/level.
pub fn md_level(text: &str) -> Option<MdLevel> {
    Some(match text.trim() {
        "linear" => MdLevel::Linear,
        "raid0" => MdLevel::Raid0,
        "raid1" => MdLevel::Raid1,
        "raid4" => MdLevel::Raid4,
        "raid5" => MdLevel::Raid5,
        "raid6" => MdLevel::Raid6,
        "raid10" => MdLevel::Raid10,
        "multipath" => MdLevel::Multipath,
        _ => return None,
    })
}

/// The `major:minor` of a `dev` attribute or a mount table's third field.
pub use crate::oscounters::mounts::major_minor;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_spellings() {
        assert_eq!(pcie_speed("8.0 GT/s PCIe"), Some(8.0));
        assert_eq!(pcie_speed("2.5 GT/s PCIe"), Some(2.5));
        assert_eq!(pcie_speed("16 GT/s"), Some(16.0));
        assert_eq!(pcie_speed("8GT/s"), Some(8.0));
        assert_eq!(pcie_speed("Unknown"), None);
        assert_eq!(pcie_speed("Unknown speed"), None);
        assert_eq!(pcie_speed(""), None);
        assert_eq!(pcie_speed("NaN GT/s"), None);
        assert_eq!(pcie_width("4"), Some(4));
        assert_eq!(pcie_width("x16"), Some(16));
        assert_eq!(pcie_width("255"), None);
        assert_eq!(sata_speed("6.0 Gbps"), Some(6.0));
        assert_eq!(sata_speed("<unknown>"), None);
        assert_eq!(sas_rate("12.0 Gbit"), Some(12.0));
        assert_eq!(sas_rate("Phy disabled"), None);
        assert_eq!(usb_speed("5000"), Some(5000.0));
        assert_eq!(usb_speed("1.5"), Some(1.5));
        assert_eq!(usb_speed("unknown"), None);
        assert_eq!(net_speed("-1"), None);
        assert_eq!(net_speed("25000"), Some(25000.0));
        assert_eq!(md_level("raid10\n"), Some(MdLevel::Raid10));
        assert_eq!(md_level("container"), None);
        assert_eq!(major_minor("259:0"), Some((259, 0)));
    }
}
