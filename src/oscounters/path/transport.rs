//! A disk's transport, read from its place in sysfs' device tree: each directory above it
//! names what it hangs off. `nvmeN` under `nvme/` is an NVMe controller; `ataN` an ATA port
//! (its host link's `sata_spd`); `port-H:N` a SAS port (its phys' `negotiated_linkrate`); a USB
//! device or hub has `speed`; `virtioN`, `vbd-*` (Xen) and `VMBUS:*` (Hyper-V) are virtual;
//! `sessionN` is iSCSI; a run of PCI functions (`0000:01:00.0`) pairs up into PCIe links, the
//! lower function naming each (an endpoint and its port; a switch's upstream port and the
//! port above it); `pciDDDD:BB` is the host bus.

use super::walk::{Walker, is_nvme_controller_name};
use super::{NetVia, Part, Reading, SasPhy, parse};
use std::path::{Path, PathBuf};

/// A PCI function's name: `DDDD:BB:DD.F` (the domain may be longer).
fn is_pci_function(n: &str) -> bool {
    let parts: Vec<&str> = n.split(':').collect();
    let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    match parts.as_slice() {
        [dom, bus, devfn] => {
            dom.len() >= 4
                && hex(dom)
                && bus.len() == 2
                && hex(bus)
                && devfn.split_once('.').is_some_and(|(d, f)| {
                    d.len() == 2 && hex(d) && f.len() == 1 && f.bytes().all(|b| b.is_ascii_digit())
                })
        }
        _ => false,
    }
}

/// A PCI root's name: `pciDDDD:BB`.
fn is_host_bus(n: &str) -> bool {
    n.strip_prefix("pci").is_some_and(|r| {
        r.split_once(':').is_some_and(|(d, b)| {
            !d.is_empty()
                && d.bytes().all(|c| c.is_ascii_hexdigit())
                && !b.is_empty()
                && b.bytes().all(|c| c.is_ascii_hexdigit())
        })
    })
}

fn numbered(n: &str, prefix: &str) -> bool {
    n.strip_prefix(prefix)
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A USB device's name: `usbN` (a root hub) or `B-P[.P…]` (no `:`, which interfaces have).
fn is_usb_device(n: &str) -> bool {
    numbered(n, "usb")
        || n.split_once('-').is_some_and(|(b, p)| {
            !b.is_empty()
                && b.bytes().all(|c| c.is_ascii_digit())
                && !p.is_empty()
                && p.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        })
}

impl Walker<'_> {
    /// The components above `dir` in the device tree (and `dir` itself when `include_self`),
    /// nearest first, each linked to the next; returns them in that order.
    pub(super) fn transport(&mut self, dir: &Path, include_self: bool) -> Vec<usize> {
        let mut chain: Vec<usize> = Vec::new();
        let mut pci: Vec<PathBuf> = Vec::new();
        let mut virtual_bus = false;
        let skip = usize::from(!include_self);
        for anc in dir.ancestors().skip(skip) {
            if anc.components().count() <= 1 {
                break;
            }
            let name = anc
                .file_name()
                .map_or(String::new(), |f| f.to_string_lossy().into_owned());
            if is_pci_function(&name) {
                pci.push(anc.to_path_buf());
                continue;
            }
            chain.extend(self.pcie_links(&pci, virtual_bus));
            pci.clear();
            let found = self.hop(anc, &name);
            if let Some(i) = found {
                virtual_bus |= matches!(
                    self.graph.nodes[i].part,
                    Part::Virtio | Part::Xen | Part::HyperV
                );
                chain.push(i);
            }
        }
        chain.extend(self.pcie_links(&pci, virtual_bus));
        chain.dedup();
        for w in chain.windows(2) {
            self.link(w[0], w[1]);
        }
        chain
    }

    /// The component the device-tree directory `anc` (named `name`) is, if it is one.
    fn hop(&mut self, anc: &Path, name: &str) -> Option<usize> {
        let t = self.tree;
        let parent = anc
            .parent()
            .and_then(Path::file_name)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_nvme_controller_name(name) && (parent == "nvme" || parent == "ctl") {
            let transport = t.attr(anc, "transport");
            let fabric = matches!(transport.as_deref(), Some("tcp" | "rdma" | "fc"));
            let (ctrl, _) = self.keyed(
                name,
                Part::NvmeController {
                    model: t.attr(anc, "model").filter(|m| !m.is_empty()),
                    transport,
                },
            );
            if fabric {
                let net = self.network(NetVia::NvmeFabrics, name);
                self.link(ctrl, net);
            }
            return Some(ctrl);
        }
        let part = if is_host_bus(name) {
            Part::HostBus
        } else if numbered(name, "ata") {
            Part::SataLink {
                gbps: self.sata_speed(anc, name),
            }
        } else if name.starts_with("port-") && name.contains(':') {
            Part::SasLink {
                phys: self.sas_phys(anc),
            }
        } else if is_usb_device(name) && t.exists(&anc.join("speed")) {
            Part::Usb {
                mbps: t.reading(anc, "speed", parse::usb_speed),
            }
        } else if numbered(name, "virtio") {
            Part::Virtio
        } else if name.starts_with("vbd-") {
            Part::Xen
        } else if name.starts_with("VMBUS") || name.starts_with("vmbus") {
            Part::HyperV
        } else if numbered(name, "session") {
            return Some(self.network(NetVia::Iscsi, name));
        } else {
            return None;
        };
        Some(self.keyed(name, part).0)
    }

    /// The speed of ATA port `ata`'s host link: ataN/linkN/ata_link/linkN/sata_spd (else the
    /// first link the port has).
    fn sata_speed(&self, ata: &Path, name: &str) -> Reading<f64> {
        let t = self.tree;
        let own = format!("link{}", &name[3..]);
        let links = t.entries(ata);
        let link = if links.contains(&own) {
            Some(own)
        } else {
            links.into_iter().find(|l| l.starts_with("link"))
        };
        let Some(link) = link else {
            return Reading::Missing {
                attribute: (ata.join(format!("link{n}/ata_link/link{n}/sata_spd", n = &name[3..])))
                    .display()
                    .to_string(),
            };
        };
        let dir = ata.join(&link).join("ata_link").join(&link);
        t.reading(&dir, "sata_spd", parse::sata_speed)
    }

    /// The phys of SAS port `port` (its `phy-*` links) and their negotiated rates.
    fn sas_phys(&self, port: &Path) -> Vec<SasPhy> {
        let t = self.tree;
        (t.entries(port).into_iter())
            .filter(|p| p.starts_with("phy-"))
            .map(|p| {
                let gbit = match t.resolve(&port.join(&p)) {
                    Ok(dir) => t.reading(
                        &dir.join("sas_phy").join(&p),
                        "negotiated_linkrate",
                        parse::sas_rate,
                    ),
                    Err(_) => Reading::Missing {
                        attribute: port.join(&p).display().to_string(),
                    },
                };
                SasPhy { name: p, gbit }
            })
            .collect()
    }

    /// The links of a run of PCI functions, nearest first: the functions pair up from the
    /// bottom (a device and the port above it), each link read from its lower function (the
    /// upper one when the lower has none); a pair without link attributes (conventional PCI,
    /// a root-complex-integrated device) is no link.
    fn pcie_links(&mut self, run: &[PathBuf], emulated: bool) -> Vec<usize> {
        let t = self.tree;
        let mut out = Vec::new();
        for pair in run.chunks(2) {
            let has = |d: &Path| t.exists(&d.join("current_link_speed"));
            let lower = &pair[0];
            let dir = match pair.get(1) {
                _ if has(lower) => lower,
                Some(upper) if has(upper) => upper,
                _ => continue,
            };
            let name = lower
                .file_name()
                .map_or(String::new(), |f| f.to_string_lossy().into_owned());
            let part = Part::PcieLink {
                current_gts: t.reading(dir, "current_link_speed", parse::pcie_speed),
                current_width: t.reading(dir, "current_link_width", parse::pcie_width),
                max_gts: t.reading(dir, "max_link_speed", parse::pcie_speed),
                max_width: t.reading(dir, "max_link_width", parse::pcie_width),
                emulated,
            };
            out.push(self.keyed(&name, part).0);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_the_device_tree() {
        assert!(is_pci_function("0000:01:00.0"));
        assert!(is_pci_function("10000:e1:00.7"));
        assert!(!is_pci_function("0000:01:00"));
        assert!(!is_pci_function("0:0:0:0"));
        assert!(is_host_bus("pci0000:00"));
        assert!(!is_host_bus("pci_bus"));
        assert!(is_usb_device("2-1.4"));
        assert!(is_usb_device("usb2"));
        assert!(!is_usb_device("2-1:1.0"));
        assert!(!is_usb_device("end_device-0:0"));
    }
}
