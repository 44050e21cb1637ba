//! The PAP a measuring command sets its figures against (`sweep`, `quick`, `scale`): `--pap`
//! when given, else the path's of its targets, read from sysfs (`oscounters::path`) with the
//! cgroup caps and the limits the user gave set above them, and judged by `analysis::pap`;
//! `path` builds its report from the same components ([`with_caps`], [`with_given`]).

use crate::analysis::pap::{for_mix, together_paps};
use crate::analysis::path::{cgroup_component, components, given_component};
use crate::model::path::{Component, PapFrom, PapSource, Paps};
use crate::model::policy::GivenLimit;
use crate::oscounters::path::tree::Tree;
use crate::oscounters::path::{Part, walk};
use crate::oscounters::sysfs;

/// The path of targets run side by side, and its PAP, as `sweep`, `quick` and `scale` take it.
struct PathPap {
    components: Vec<Component>,
    paps: Paps,
}

impl PathPap {
    /// The PAP for a workload reading `read_share` (0..1) of its bytes, and where it comes from.
    fn for_mix(&self, read_share: f64) -> Option<(f64, PapSource)> {
        let p = for_mix(&self.paps, read_share)?;
        let mut c = self.components.get(p.component)?.clone();
        c.below.clear();
        Some((
            p.bytes_per_s,
            PapSource {
                from: PapFrom::Path,
                component: Some(c),
                load: Some(p.load),
                complete: Some(p.complete),
            },
        ))
    }
}

/// The path's PAP of `targets` side by side (each carrying an equal share); None when a
/// target cannot be placed or nothing on the path advertises a rate.
fn path_pap(targets: &[String], given: &[GivenLimit]) -> Option<PathPap> {
    let tree = Tree::open();
    let w = walk(&tree, targets).ok()?;
    let mut comps = components(&w.graph);
    let mut tops: Vec<usize> = w.walked.iter().map(|(_, x)| x.top).collect();
    with_caps(&mut comps, &mut tops, None);
    with_given(&mut comps, &mut tops, targets, given, None);
    let paps = together_paps(&comps, &tops, &[]);
    paps.read.as_ref()?;
    Some(PathPap {
        components: comps,
        paps,
    })
}

/// Each block device of the walk that this process's cgroups cap gets a component of its caps
/// set above it (the cap holds the I/O before the device sees it), an I/O cap taken at
/// `request_bytes`; a target that is the device itself starts at its caps (`tops`). Read from
/// the live system only, not from a captured sysfs tree.
pub fn with_caps(comps: &mut Vec<Component>, tops: &mut [usize], request_bytes: Option<f64>) {
    if sysfs::overridden() {
        return;
    }
    let devices: Vec<usize> = (0..comps.len())
        .filter(|&i| {
            matches!(
                comps[i].part,
                Part::Disk { .. }
                    | Part::Partition { .. }
                    | Part::Loop { .. }
                    | Part::Dm { .. }
                    | Part::Md { .. }
            )
        })
        .collect();
    let dirs = crate::oscounters::cgroup::dirs("blkio");
    for k in devices {
        let caps = crate::oscounters::throttle::caps_of(&comps[k].name, &dirs);
        if caps.is_empty() {
            continue;
        }
        let at = comps.len();
        for c in comps.iter_mut() {
            c.below
                .iter_mut()
                .filter(|b| **b == k)
                .for_each(|b| *b = at);
        }
        tops.iter_mut().filter(|t| **t == k).for_each(|t| *t = at);
        let name = comps[k].name.clone();
        comps.push(cgroup_component(&name, caps, k, request_bytes));
    }
}

/// Each limit the user gave (`--limit`) gets a component set above its target's top (every
/// target's when it names none), which the PAP follows where it is the tightest; its I/Os are
/// taken at `request_bytes`.
pub fn with_given(
    comps: &mut Vec<Component>,
    tops: &mut [usize],
    targets: &[String],
    given: &[GivenLimit],
    request_bytes: Option<f64>,
) {
    for g in given {
        for (t, top) in targets.iter().zip(tops.iter_mut()) {
            if g.is_for(t) {
                comps.push(given_component(t, g, *top, request_bytes));
                *top = comps.len() - 1;
            }
        }
    }
}

/// The PAP a command takes: `--pap` when given, else the path's of its targets.
pub struct PapChoice {
    flag: Option<f64>,
    path: Option<PathPap>,
}

impl PapChoice {
    /// `--pap`'s value when given, else the path of `targets` under the limits `given` (none
    /// when empty).
    pub fn new(flag: Option<f64>, targets: &[String], given: &[GivenLimit]) -> Self {
        let path = match flag {
            None if !targets.is_empty() => path_pap(targets, given),
            _ => None,
        };
        PapChoice { flag, path }
    }

    /// The PAP for a workload reading `read_share` (0..1) of its bytes.
    pub fn for_share(&self, read_share: f64) -> Option<f64> {
        self.flag
            .or_else(|| Some(self.path.as_ref()?.for_mix(read_share)?.0))
    }

    /// Where the PAP for `read_share` comes from.
    pub fn source(&self, read_share: f64) -> Option<PapSource> {
        if self.flag.is_some() {
            return Some(flag_source());
        }
        Some(self.path.as_ref()?.for_mix(read_share)?.1)
    }

    /// Says on stderr where the PAP comes from when it is the path's.
    pub fn announce(&self, quiet: bool) {
        if quiet || self.flag.is_some() {
            return;
        }
        let said = |share: f64| {
            let (b, s) = (self.for_share(share)?, self.source(share)?);
            Some(format!(
                "{} from {}",
                crate::render::text::path::rate(b),
                crate::render::text::path::pap_source(&s)
            ))
        };
        match (said(1.0), said(0.0)) {
            (Some(r), Some(w)) if r == w => {
                crate::output::say!("halfpower: PAP {r} (--pap overrides it)")
            }
            (Some(r), Some(w)) => {
                crate::output::say!(
                    "halfpower: PAP for reads {r}, for writes {w} (--pap overrides it)"
                )
            }
            _ => {}
        }
    }
}

/// The path's PAP of `targets` side by side for a workload reading `read_share` of its bytes,
/// set against `measured` (bytes/s); None when the path has none.
pub fn reached(
    targets: &[String],
    read_share: f64,
    measured: Option<f64>,
    given: &[GivenLimit],
) -> Option<crate::model::path::PapReached> {
    let (pap, source) = path_pap(targets, given)?.for_mix(read_share)?;
    Some(crate::model::path::PapReached {
        pap_bytes_per_s: pap,
        source,
        measured_bytes_per_s: measured,
        reached: crate::analysis::pap::reached(measured, pap),
    })
}

/// The `--pap` flag's source record.
fn flag_source() -> PapSource {
    PapSource {
        from: PapFrom::Flag,
        component: None,
        load: None,
        complete: None,
    }
}
