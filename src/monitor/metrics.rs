//! What `monitor --listen` serves: at each scrape, the kernel's counters of each device since
//! monitor started (read from /proc/diskstats then, so a counter is as fresh as the scrape and
//! equals the kernel's own difference), beside the latest interval's records and verdicts
//! (`render::metrics`), and with `--trace` the traced times since the start as histograms.
//! The sampling loop publishes an interval and never waits on a scrape.

use crate::analysis::diagnose::diagnose;
use crate::analysis::monitor::counters_reset;
use crate::model::diagnosis::DeviceDiagnosis;
use crate::model::log::{DiskInterval, Log, LogFormat, SystemInterval};
use crate::model::monitor::{DeviceRecord, SystemRecord};
use crate::monitor::tracepoints::TraceHistograms;
use crate::oscounters::diskstats::{self, DiskStat, since};
use crate::render::metrics::{MonitorView, TracedView, monitor_families};
use crate::render::prom;
use crate::serve::{Format, Render, Server};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// The latest interval, as published.
#[derive(Default)]
struct Latest {
    devices: Vec<DeviceRecord>,
    system: Option<SystemRecord>,
    verdicts: Vec<DeviceDiagnosis>,
    traced: Vec<(String, TraceHistograms)>,
}

/// The state a scrape reads: the devices named on the command line (else those of the latest
/// interval), each device's counters when monitor first saw it, and the latest interval.
pub struct Exposed {
    named: Vec<String>,
    bases: Mutex<HashMap<String, DiskStat>>,
    latest: Mutex<Latest>,
}

impl Exposed {
    /// Takes the counters at the start and serves them on `addr` (`serve::listen`).
    pub fn serve(addr: SocketAddr, named: Vec<String>) -> crate::Result<(Server, Arc<Exposed>)> {
        let bases = (diskstats::read().into_iter())
            .map(|d| (d.name.clone(), d))
            .collect();
        let me = Arc::new(Exposed {
            named,
            bases: Mutex::new(bases),
            latest: Mutex::new(Latest::default()),
        });
        let page = me.clone();
        let render: Render = Arc::new(move |f| page.page(f));
        Ok((crate::serve::listen(addr, render)?, me))
    }

    /// Publishes an interval: its records, each device's verdict over it (the diagnosis
    /// `diagnose` gives the same records read from a log) and the traced times so far.
    pub fn publish(
        &self,
        devices: &[DeviceRecord],
        system: &SystemRecord,
        traced: Vec<(String, TraceHistograms)>,
    ) {
        let log = Log {
            path: "monitor".into(),
            format: LogFormat::MonitorJsonl,
            disks: devices.iter().map(DiskInterval::from).collect(),
            system: vec![SystemInterval::from(system)],
            warnings: Vec::new(),
        };
        let verdicts = diagnose(&[log], None).devices;
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Latest {
            devices: devices.to_vec(),
            system: Some(system.clone()),
            verdicts,
            traced,
        };
    }

    /// The page of one scrape.
    fn page(&self, format: Format) -> String {
        let latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        let names: Vec<&str> = match self.named.is_empty() {
            true => latest.devices.iter().map(|d| d.device.as_str()).collect(),
            false => self.named.iter().map(String::as_str).collect(),
        };
        let totals = self.totals(&names);
        let traced: Vec<TracedView> = (latest.traced.iter())
            .map(|(name, h)| TracedView {
                device: name,
                device_time: &h.device,
                os_queue: &h.os_queue,
            })
            .collect();
        let families = monitor_families(&MonitorView {
            totals: &totals,
            devices: &latest.devices,
            system: latest.system.as_ref(),
            verdicts: &latest.verdicts,
            traced: &traced,
        });
        prom::page(format, &families)
    }

    /// Each of `names`' counters now since its base (a device first seen now, or created again
    /// since, starts from now).
    fn totals(&self, names: &[&str]) -> Vec<DiskStat> {
        let now: HashMap<String, DiskStat> = (diskstats::read().into_iter())
            .map(|d| (d.name.clone(), d))
            .collect();
        let mut bases = self.bases.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = Vec::new();
        for name in names {
            let Some(cur) = now.get(*name) else { continue };
            let base = bases.entry(name.to_string()).or_insert_with(|| cur.clone());
            if counters_reset(base, cur) {
                *base = cur.clone();
            }
            out.push(since(base, cur));
        }
        out
    }
}
