//! The path in words: per target its components from the top down (indented by depth; a
//! component met again is named, not repeated), each with what the kernel says of it, its
//! limit or why it has none, the rate measured through it with `--from`, and the PAP with the
//! component that sets it. The words for components are shared with the HTML report and with
//! the PAP verdicts of `sweep`, `quick` and `scale`.

use crate::analysis::path::pcie_generation;
use crate::model::path::{
    Combine, Component, ComponentKind, ComponentLimit, Encoding, NoLimit, NoPap, Pap, PapFrom,
    PapReached, PapSource, Paps, Part, PathReport, Reading, TargetForm, UnknownLimit, Unresolved,
};
use crate::units::ByteSize;
use std::fmt::Write;

/// A rate in MB/s (10^6 bytes/s), or GB/s from 10 GB/s.
pub fn rate(bytes_per_s: f64) -> String {
    let mb = bytes_per_s / 1e6;
    if mb >= 10_000.0 {
        format!("{:.1} GB/s", mb / 1000.0)
    } else if mb >= 100.0 {
        format!("{mb:.0} MB/s")
    } else {
        format!("{mb:.1} MB/s")
    }
}

/// What a kind of component is called.
pub fn kind_name(k: ComponentKind) -> &'static str {
    use ComponentKind as K;
    match k {
        K::Filesystem => "file system",
        K::Partition => "partition",
        K::Dm => "device mapper",
        K::Md => "md array",
        K::Loop => "loop device",
        K::Disk => "disk",
        K::NvmeController => "NVMe controller",
        K::PcieLink => "PCIe link",
        K::SataLink => "SATA link",
        K::SasLink => "SAS port",
        K::Usb => "USB",
        K::Virtio => "virtio",
        K::Xen => "Xen",
        K::HyperV => "Hyper-V",
        K::Network => "network",
        K::HostBus => "host bus",
        K::Cpu => "CPU",
        K::CgroupIo => "cgroup cap on",
        K::Given => "given limit on",
        K::Unresolved => "unreadable",
    }
}

fn encoding(e: Encoding) -> &'static str {
    match e {
        Encoding::B8b10b => "8b/10b",
        Encoding::B128b130b => "128b/130b",
        Encoding::B128b132b => "128b/132b",
        Encoding::B128b150b => "128b/150b",
        Encoding::B1b1b => "1b/1b flits",
        Encoding::Raw => "as signalled",
    }
}

fn val<T: Shown + Copy>(r: &Reading<T>) -> String {
    match r {
        Reading::Value { value } => value.shown(),
        Reading::Missing { .. } => "?".into(),
        Reading::Unparseable { text, .. } => format!("'{text}'"),
    }
}

/// How a reading's value is written: a rate with one decimal as the kernel writes it (8.0
/// GT/s, 6.0 Gbit/s), a whole number as it is.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for f64 {
    fn shown(&self) -> String {
        if *self >= 100.0 {
            format!("{self:.0}")
        } else {
            format!("{self:.1}")
        }
    }
}

impl Shown for u32 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

/// A PCIe link's speed and width, e.g. `PCIe 3.0 x4` (or `8.0 GT/s x4` when the speed is no
/// generation's).
pub fn pcie_words(gts: &Reading<f64>, width: &Reading<u32>) -> String {
    match (gts.value(), width.value()) {
        (Some(g), Some(w)) => match pcie_generation(g) {
            Some(n) => format!("PCIe {n}.0 x{w}"),
            None => format!("{} GT/s x{w}", g.shown()),
        },
        _ => format!("{} GT/s x{}", val(gts), val(width)),
    }
}

/// What the kernel says of a component, in a few words.
pub fn facts(c: &Component) -> String {
    match &c.part {
        Part::Filesystem { fs_type, source } => format!("{fs_type} on {source}"),
        Part::Partition {
            number, size_bytes, ..
        } => {
            let n = number.map_or(String::new(), |n| format!("number {n}"));
            match size_bytes {
                Some(b) => format!("{n}, {:.1} GB", *b as f64 / 1e9),
                None => n,
            }
        }
        Part::Dm { dm_name, uuid } => {
            let name = dm_name.clone().unwrap_or_default();
            match uuid.as_deref().and_then(|u| u.split('-').next()) {
                Some(p) if !p.is_empty() => format!("{name} ({p})"),
                _ => name,
            }
        }
        Part::Md {
            level, raid_disks, ..
        } => format!(
            "{}, {} disks",
            match level {
                Reading::Value { value } => value.name().to_string(),
                Reading::Missing { .. } => "level ?".to_string(),
                Reading::Unparseable { text, .. } => format!("level '{text}'"),
            },
            raid_disks.map_or("?".into(), |n| n.to_string())
        ),
        Part::Loop { backing_file } => match backing_file {
            Some(f) => format!("over {f}"),
            None => "nothing attached".into(),
        },
        Part::Disk { .. } => disk_facts(c),
        Part::NvmeController { model, transport } => {
            let mut s = transport.clone().unwrap_or_default();
            if let Some(m) = model {
                s = format!("{m}, {s}");
            }
            s
        }
        Part::PcieLink {
            current_gts,
            current_width,
            max_gts,
            max_width,
            ..
        } => format!(
            "{} ({} GT/s x{} of {} GT/s x{}{})",
            pcie_words(current_gts, current_width),
            val(current_gts),
            val(current_width),
            val(max_gts),
            val(max_width),
            if c.down_trained { ": DOWN-TRAINED" } else { "" }
        ),
        Part::SataLink { gbps } => format!("{} Gbit/s", val(gbps)),
        Part::SasLink { phys } => {
            let rates: Vec<String> = phys.iter().map(|p| val(&p.gbit)).collect();
            format!("{} phy(s) at {} Gbit/s", phys.len(), rates.join(" + "))
        }
        Part::Usb { mbps } => format!("{} Mbit/s", val(mbps)),
        Part::Virtio | Part::Xen | Part::HyperV | Part::HostBus => String::new(),
        Part::Network { nic, mbps, .. } => match nic {
            Some(n) => format!("through {n} at {} Mbit/s", val(mbps)),
            None => "interface not known".into(),
        },
        Part::Cpu {
            us_per_io: us,
            request_bytes: b,
            mean,
            ..
        } => format!("{us:.1} µs per I/O of {}", request_size(*b, *mean)),
        Part::CgroupIo { caps, .. } => cgroup_facts(caps),
        Part::Given { iops, bytes_per_s } => {
            let each: Vec<String> = [
                iops.map(|v| format!("{v:.0} IOPS")),
                bytes_per_s.map(|v| format!("{:.2} MB/s", v / 1e6)),
            ]
            .into_iter()
            .flatten()
            .collect();
            format!("{}, reads and writes together (--limit)", each.join(", "))
        }
        // Its limit says why.
        Part::Unresolved { .. } => String::new(),
    }
}

/// Each cap with the file that sets it.
fn cgroup_facts(caps: &[crate::oscounters::throttle::IoCap]) -> String {
    let each: Vec<String> = (caps.iter())
        .map(|c| format!("{} by {}", super::policy::rate(c.field, c.value), c.file))
        .collect();
    each.join(", ")
}

fn disk_facts(c: &Component) -> String {
    let Part::Disk {
        model,
        rotational,
        size_bytes,
        queue,
        ..
    } = &c.part
    else {
        return String::new();
    };
    let mut parts: Vec<String> = Vec::new();
    parts.extend(c.cloud.map(|k| k.name().to_string()));
    parts.extend(model.as_ref().map(|m| m.trim().to_string()));
    if let Some(class) = c.class {
        parts.push(format!("{} class", class.name()));
    }
    match rotational {
        Some(true) => parts.push("rotational".into()),
        Some(false) => parts.push("non-rotational".into()),
        None => {}
    }
    if let Some(b) = size_bytes {
        parts.push(format!("{:.1} GB", *b as f64 / 1e9));
    }
    if let Some(kb) = queue.max_sectors_kb {
        parts.push(format!("requests up to {}", ByteSize(kb * 1024)));
    }
    parts.join(", ")
}

/// Why a component could not be read.
pub fn unresolved(u: &Unresolved) -> String {
    match u {
        Unresolved::NotInSysfs { path } => format!("{path} is not in the sysfs tree"),
        Unresolved::LinkLoop { path } => format!("the links at {path} go round in a loop"),
        Unresolved::OutsideTree { path } => format!("the link at {path} leads out of the tree"),
        Unresolved::Cycle { name } => format!("{name} is stacked on itself"),
        Unresolved::TooDeep => format!(
            "stacked deeper than {} devices",
            crate::oscounters::path::MAX_DEPTH
        ),
        Unresolved::NoMount { file } => format!("no mount holds {file}"),
        Unresolved::WhichNic { candidates } => format!(
            "sysfs does not say which of {} carries it",
            candidates.join(", ")
        ),
        Unresolved::NoNic => "no network interface is up".into(),
    }
}

/// A limit, or why there is none.
pub fn limit_words(l: &ComponentLimit) -> String {
    match l {
        ComponentLimit::Advertised {
            bytes_per_s,
            encoding: e,
        } => match e {
            Some(e) => format!("{} ({})", rate(*bytes_per_s), encoding(*e)),
            None => rate(*bytes_per_s),
        },
        ComponentLimit::None { why } => format!("no limit: {}", no_limit(*why)),
        ComponentLimit::Unknown { why } => format!("unknown: {}", unknown_limit(why)),
        ComponentLimit::Policy {
            read_bytes_per_s,
            write_bytes_per_s,
            request_bytes,
        } => {
            let one = |v: &Option<f64>| v.map_or("not capped in bytes".to_string(), rate);
            let at = request_bytes.map_or(String::new(), |b| {
                format!(" (I/O caps at {} requests)", request_size(b, false))
            });
            format!(
                "reads {}, writes {}{at}",
                one(read_bytes_per_s),
                one(write_bytes_per_s)
            )
        }
    }
}

/// Why a component has no limit of its own.
pub fn no_limit(n: NoLimit) -> &'static str {
    match n {
        NoLimit::Software => "software, it costs CPU time",
        NoLimit::NoMediaRate => "the kernel gives no media rate",
        NoLimit::MemoryBacked => "memory",
        NoLimit::ControllerRate => "a controller's rate is not in sysfs",
        NoLimit::VirtualBus => "a hypervisor's queue has no link rate",
        NoLimit::EmulatedLink => "the hypervisor makes this link up",
        NoLimit::HostBusRate => "the host bus's rate is not in sysfs",
        NoLimit::NeedsRequestSize => "an I/O cap needs a request size (--from a run)",
        NoLimit::Provisioned => {
            "a cloud volume: the provider provisions its rate, which the OS cannot see \
             (give it: --limit)"
        }
    }
}

/// Why a limit could not be told.
pub fn unknown_limit(u: &UnknownLimit) -> String {
    match u {
        UnknownLimit::Missing { attribute } => format!("{attribute} is missing"),
        UnknownLimit::Unparseable { attribute, text } => {
            format!("{attribute} reads '{text}', not a rate")
        }
        UnknownLimit::LinkDown => "the link is down (width 0)".into(),
        UnknownLimit::NoPhys => "the port has no phys".into(),
        UnknownLimit::Unresolved { why } => unresolved(why),
    }
}

/// How the components beneath share the load.
pub fn combine_words(c: Combine) -> &'static str {
    match c {
        Combine::Chain => "",
        Combine::Stripe => "striped: members add up",
        Combine::Mirror => "mirrored: reads add up, writes go to every member",
        Combine::Parity { .. } => "striped with parity: reads add up, writes lose the parity",
        Combine::Raid10 { .. } => "striped mirrors: reads add up, writes go to each copy",
        Combine::Linear => "concatenated: one member may carry it all",
        Combine::Multipath => "paths to one device: they add up",
        Combine::Assumed => "several members, sysfs does not say how: taken as concatenated",
    }
}

/// A component named with its kind and the fact that matters, e.g. `the PCIe link
/// 0000:01:00.0 (PCIe 3.0 x4)`.
pub fn component_label(c: &Component) -> String {
    let what = kind_name(c.part.kind());
    let detail = match &c.part {
        Part::PcieLink {
            current_gts,
            current_width,
            ..
        } => format!(" ({})", pcie_words(current_gts, current_width)),
        Part::SataLink { gbps } => format!(" ({} Gbit/s)", val(gbps)),
        Part::Usb { mbps } => format!(" ({} Mbit/s)", val(mbps)),
        Part::Network { nic: Some(n), .. } => format!(" ({n})"),
        _ => String::new(),
    };
    format!("the {what} {}{detail}", c.name)
}

fn pap_line(c: &[Component], p: &Pap) -> String {
    let label = c.get(p.component).map_or("?".into(), component_label);
    let mut s = format!("{}, set by {label}", rate(p.bytes_per_s));
    if (p.load - 1.0).abs() > 1e-9 {
        let _ = write!(s, ", which carries {:.2} of it", p.load);
    }
    if p.alike > 0 {
        let _ = write!(s, " (and {} more alike)", p.alike);
    }
    if !p.complete {
        s.push_str("; at most, as some limits are unknown");
    }
    s
}

/// The PAP of a path in words.
pub fn paps_words(c: &[Component], p: &Paps) -> String {
    match (&p.read, &p.write) {
        (Some(r), Some(w)) if (r.bytes_per_s - w.bytes_per_s).abs() <= r.bytes_per_s * 1e-9 => {
            format!("PAP for reads and writes: {}", pap_line(c, r))
        }
        (Some(r), Some(w)) => format!(
            "PAP for reads: {}; for writes: {}",
            pap_line(c, r),
            pap_line(c, w)
        ),
        _ => match p.why_none {
            Some(NoPap::UnknownLimits) => {
                let names: Vec<String> = (p.unknown.iter())
                    .filter_map(|&i| c.get(i))
                    .map(|x| format!("{} ({})", x.name, limit_words(&x.limit)))
                    .collect();
                format!("PAP unknown: {}", names.join("; "))
            }
            _ => "no PAP: nothing on this path advertises a rate".into(),
        },
    }
}

/// Where a PAP came from, for `sweep`, `quick` and `scale`: `--pap`, or the path's component.
pub fn pap_source(s: &PapSource) -> String {
    match (s.from, &s.component) {
        (PapFrom::Path, Some(c)) => {
            let mut w = format!("the path's PAP, {}", component_label(c));
            if s.complete == Some(false) {
                w.push_str(" (at most: some limits on the path are unknown)");
            }
            w
        }
        _ => "--pap".into(),
    }
}

/// A PAP a measuring command took from the path of `subject` (run side by side as
/// `targets`, when several), and how far `what` got towards it.
pub fn reached_words(p: &PapReached, subject: &str, targets: usize, what: &str) -> String {
    let by = p
        .source
        .component
        .as_ref()
        .map_or("?".into(), component_label);
    let mut s = format!(
        "{subject} has a PAP of {}, set by {by}",
        rate(p.pap_bytes_per_s)
    );
    if let (Some(load), true) = (p.source.load, targets > 1) {
        let crossing = (load * targets as f64).round();
        if crossing > 1.0 {
            let _ = write!(s, ", which {crossing:.0} of the {targets} targets share");
        }
    }
    if p.source.complete == Some(false) {
        s.push_str(" (at most: some limits on the path are unknown)");
    }
    match (p.measured_bytes_per_s, p.reached) {
        (Some(m), Some(r)) => format!(
            "{s}: {what} ({}) reached {:.0} % of it.",
            rate(m),
            r * 100.0
        ),
        _ => format!("{s}."),
    }
}

fn form(f: TargetForm) -> &'static str {
    match f {
        TargetForm::File => "file",
        TargetForm::BlockDevice => "block device",
        TargetForm::KernelName => "kernel name",
    }
}

fn tree(
    out: &mut String,
    c: &[Component],
    i: usize,
    depth: usize,
    seen: &mut Vec<bool>,
    tight: &[usize],
) {
    let Some(comp) = c.get(i) else {
        return;
    };
    let pad = "  ".repeat(depth + 1);
    if std::mem::replace(&mut seen[i], true) {
        let _ = writeln!(
            out,
            "{pad}{} {} (shared: above)",
            kind_name(comp.part.kind()),
            comp.name
        );
        return;
    }
    let mark = if tight.contains(&i) {
        "  <- tightest"
    } else {
        ""
    };
    let measured = comp
        .measured_bytes_per_s
        .map_or(String::new(), |m| format!("  measured {}", rate(m)));
    let _ = writeln!(
        out,
        "{pad}{:<15} {:<14} {}  [{}]{measured}{mark}",
        kind_name(comp.part.kind()),
        comp.name,
        facts(comp),
        limit_words(&comp.limit)
    );
    let how = combine_words(comp.combine);
    if !how.is_empty() {
        let _ = writeln!(out, "{pad}  ({how})");
    }
    if depth < 64 {
        for &b in &comp.below {
            tree(out, c, b, depth + 1, seen, tight);
        }
    }
}

/// A run's bytes per I/O: its request size, or the mean of its mix ("20068 bytes on average").
fn request_size(bytes: f64, mean: bool) -> String {
    match mean {
        true => format!("{bytes:.0} bytes on average"),
        false => ByteSize(bytes.round() as u64).to_string(),
    }
}

/// The path document as text.
pub fn path_text(r: &PathReport) -> String {
    let mut out = String::new();
    if r.sysfs_root != "/sys" {
        let _ = writeln!(out, "sysfs read from {}", r.sysfs_root);
    }
    let c = &r.components;
    for t in &r.targets {
        let _ = writeln!(out, "{} ({})", t.target, form(t.form));
        let mut seen = vec![false; c.len()];
        let tight: Vec<usize> = [&t.pap.read, &t.pap.write]
            .iter()
            .filter_map(|p| p.as_ref().map(|p| p.component))
            .collect();
        if let Some(cpu) = r.cpu {
            tree(&mut out, c, cpu, 0, &mut seen, &tight);
        }
        tree(&mut out, c, t.top, 0, &mut seen, &tight);
        let _ = writeln!(out, "  {}", paps_words(c, &t.pap));
        out.push('\n');
    }
    if let Some(p) = &r.together {
        let _ = writeln!(
            out,
            "All {} targets at once: {}",
            r.targets.len(),
            paps_words(c, p)
        );
    }
    if let Some(m) = &r.measured {
        let size = match &m.mix {
            Some(mix) => format!("{mix} requests ({})", request_size(m.request_bytes, true)),
            None => format!("{} requests", request_size(m.request_bytes, false)),
        };
        let _ = writeln!(
            out,
            "Measured ({}): {} at {size}, {:.1} µs of CPU per I/O on {} CPUs",
            m.source,
            rate(m.bytes_per_s),
            m.cpu_us_per_io,
            m.cpus
        );
    }
    if c.iter().any(|x| x.down_trained) {
        out.push_str(
            "A down-trained link runs narrower or slower than it can (a card in a smaller slot, a \
             bad contact, power saving): a classic cause of \"my NVMe is half as fast\".\n",
        );
    }
    out
}
