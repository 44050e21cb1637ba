//! fio's `normal` output: the human summary people who read fio daily know (per job its
//! IOPS/BW line, slat/clat/lat, percentiles, bw/iops samples, latency ranges, CPU, depths;
//! per group the run status; the disk stats), drawn from the same document as the JSON; and the
//! notes of what halfpower does unlike fio for a job.

use crate::model::fio::{
    DirReport, FioDocument, FioJobReport, FioNote, FioNoteKind, JobEnding, LatNs, Ordered,
    SsMetric, SsReport, SsTest,
};
use std::fmt::Write;

/// A number in at most four characters with a 1000- or 1024-step unit, as fio's num2str.
fn short(v: f64, step: f64, units: &[&str]) -> String {
    let mut v = v;
    let mut u = 0;
    while v >= 9999.5 && u + 1 < units.len() {
        v /= step;
        u += 1;
    }
    let n = if v >= 99.95 {
        format!("{v:.0}")
    } else if v >= 9.995 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    format!("{n}{}", units[u])
}

fn iops(v: f64) -> String {
    short(v, 1000.0, &["", "k", "M", "G"])
}

fn mib(bytes_per_s: f64) -> String {
    short(bytes_per_s, 1024.0, &["B", "KiB", "MiB", "GiB", "TiB"])
}

fn mb(bytes_per_s: f64) -> String {
    short(bytes_per_s, 1000.0, &["B", "kB", "MB", "GB", "TB"])
}

/// The unit a latency object is printed in, as fio picks it from the smallest value.
fn lat_unit(l: &LatNs) -> (&'static str, f64) {
    if l.min >= 10_000_000 {
        ("msec", 1e6)
    } else if l.min >= 10_000 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
}

fn lat_line(out: &mut String, label: &str, l: &LatNs) {
    if l.n == 0 {
        return;
    }
    let (unit, div) = lat_unit(l);
    let _ = writeln!(
        out,
        "    {label} ({unit}): min={:.0}, max={:.0}, avg={:.2}, stdev={:.2}",
        l.min as f64 / div,
        l.max as f64 / div,
        l.mean / div,
        l.stddev / div
    );
}

fn percentiles(out: &mut String, label: &str, l: &LatNs) {
    let Some(p) = &l.percentile else { return };
    let (unit, div) = lat_unit(l);
    let _ = writeln!(out, "    {label} percentiles ({unit}):");
    let rows = p.0.len().div_ceil(4);
    for (i, row) in p.0.chunks(4).enumerate() {
        let cells: Vec<String> = row
            .iter()
            .map(|(k, v)| {
                let q: f64 = k.parse().unwrap_or(0.0);
                format!("{:5.2}th=[{:5.0}]", q, *v as f64 / div)
            })
            .collect();
        // fio ends every row but the last with a comma.
        let comma = if i + 1 < rows { "," } else { "" };
        let _ = writeln!(out, "     | {}{comma}", cells.join(", "));
    }
}

fn direction(out: &mut String, name: &str, d: &DirReport) {
    if d.total_ios == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={}/s ({}/s)({}/{}msec)",
        iops(d.iops),
        mib(d.bw_bytes as f64),
        mb(d.bw_bytes as f64),
        mib(d.io_bytes as f64),
        d.runtime
    );
    lat_line(out, "slat", &d.slat_ns);
    lat_line(out, "clat", &d.clat_ns);
    lat_line(out, " lat", &d.lat_ns);
    percentiles(out, "clat", &d.clat_ns);
    percentiles(out, "lat", &d.lat_ns);
    if d.bw_samples > 0 {
        let _ = writeln!(
            out,
            "   bw (  KiB/s): min={}, max={}, per={:.2}%, avg={:.2}, stdev={:.2}, samples={}",
            d.bw_min, d.bw_max, d.bw_agg, d.bw_mean, d.bw_dev, d.bw_samples
        );
        let _ = writeln!(
            out,
            "   iops        : min={}, max={}, avg={:.2}, stdev={:.2}, samples={}",
            d.iops_min, d.iops_max, d.iops_mean, d.iops_stddev, d.iops_samples
        );
    }
}

fn ranges(out: &mut String, unit: &str, r: &Ordered<f64>) {
    let cells: Vec<String> =
        r.0.iter()
            .filter(|(_, v)| *v > 0.0)
            .map(|(k, v)| format!("{k}={:.2}%", v.max(0.01)))
            .collect();
    for row in cells.chunks(5) {
        let _ = writeln!(out, "  lat ({unit})   : {}", row.join(", "));
    }
}

fn depths(r: &Ordered<f64>) -> String {
    r.0.iter()
        .map(|(k, v)| format!("{k}={v:.1}%"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn job(out: &mut String, j: &FioJobReport, time: &str) {
    let w = &j.halfpower.workload;
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
        j.jobname,
        j.groupid,
        w.threads,
        j.error,
        std::process::id(),
        time
    );
    if let Some(d) = &j.desc {
        let _ = writeln!(out, "  Description  : [{d}]");
    }
    let dirs = [("read", &j.read), ("write", &j.write), ("mixed", &j.mixed)];
    for (name, d) in dirs {
        if let Some(d) = d {
            direction(out, name, d);
        }
    }
    let [ns, us, ms] = [&j.latency_ns, &j.latency_us, &j.latency_ms];
    ranges(out, "nsec", ns);
    ranges(out, "usec", us);
    ranges(out, "msec", ms);
    let _ = writeln!(
        out,
        "  cpu          : usr={:.2}%, sys={:.2}%, ctx={}, majf={}, minf={}",
        j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf
    );
    let _ = writeln!(out, "  IO depths    : {}", depths(&j.iodepth_level));
    let _ = writeln!(out, "     submit    : {}", depths(&j.iodepth_submit));
    let _ = writeln!(out, "     complete  : {}", depths(&j.iodepth_complete));
    let ios = |d: &Option<DirReport>| d.as_ref().map_or(0, |d| d.total_ios);
    // With unified_rw_reporting=mixed only `mixed` is there; with `both` it repeats the others.
    let (reads, writes) = match (&j.read, &j.write) {
        (None, None) => (ios(&j.mixed), 0),
        _ => (ios(&j.read), ios(&j.write)),
    };
    let _ = writeln!(
        out,
        "     issued rwts: total={reads},{writes},0,0 short=0,0,0,0 dropped=0,0,0,0"
    );
    let _ = writeln!(
        out,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        j.latency_target, j.latency_window, j.latency_percentile, j.latency_depth
    );
    if let Some(ss) = &j.steadystate {
        steady_line(out, ss);
    }
    let h = &j.halfpower;
    let ci = h
        .iops_ci95_pct
        .map_or(String::new(), |p| format!(", IOPS ±{p:.1}% (95% interval)"));
    let _ = writeln!(
        out,
        "  halfpower    : engine={}, target={}, direct={}, cpu={:.2}us/IO, system busy={:.1}%{ci}",
        h.engine, h.target, h.direct, h.cpu_us_per_io, h.system_busy_pct
    );
    out.push('\n');
}

/// fio's steady-state line: whether it held, the window's means and the criterion.
fn steady_line(out: &mut String, ss: &SsReport) {
    let bw = ss.data.bw_mean as f64;
    let metric = match ss.metric {
        SsMetric::Iops => "iops",
        SsMetric::Bw => "bw",
    };
    let test = match ss.test {
        SsTest::Slope => " slope",
        SsTest::Deviation => " mean dev",
    };
    let _ = writeln!(
        out,
        "  steadystate  : attained={}, bw={}/s ({}/s), iops={}, {metric}{test}={:.3}{}",
        if ss.attained == 1 { "yes" } else { "no" },
        mib(bw),
        mb(bw),
        ss.data.iops_mean,
        ss.value,
        if ss.pct { "%" } else { "" }
    );
}

fn status_line(out: &mut String, label: &str, d: &DirReport) {
    let bw = d.bw_bytes as f64;
    let _ = writeln!(
        out,
        "{label:>7}: bw={}/s ({}/s), {}/s-{}/s ({}/s-{}/s), io={} ({}), run={}-{}msec",
        mib(bw),
        mb(bw),
        mib(bw),
        mib(bw),
        mb(bw),
        mb(bw),
        mib(d.io_bytes as f64),
        mb(d.io_bytes as f64),
        d.runtime,
        d.runtime
    );
}

/// The whole `normal` output of a document.
pub fn render(doc: &FioDocument) -> String {
    let mut out = String::new();
    for j in &doc.jobs {
        let w = &j.halfpower.workload;
        let (lo, hi) = (w.bs.min(), w.bs.max());
        let _ = writeln!(
            out,
            "{}: (g={}): rw={}, bs=(R) {lo}B-{hi}B, (W) {lo}B-{hi}B, (T) {lo}B-{hi}B, ioengine={}, iodepth={}",
            j.jobname,
            j.groupid,
            w.rw.name(),
            j.halfpower.engine.fio_name(),
            w.qd
        );
    }
    let _ = writeln!(out, "{}", doc.fio_version);
    out.push('\n');
    for j in &doc.jobs {
        job(&mut out, j, &doc.time);
    }
    for j in &doc.jobs {
        let _ = writeln!(out, "Run status group {} (all jobs):", j.groupid);
        for (label, d) in [("READ", &j.read), ("WRITE", &j.write), ("MIXED", &j.mixed)] {
            if let Some(d) = d.as_ref().filter(|d| d.total_ios > 0) {
                status_line(&mut out, label, d);
            }
        }
        out.push('\n');
    }
    if !doc.disk_util.is_empty() {
        let _ = writeln!(out, "Disk stats (read/write):");
        for d in &doc.disk_util {
            let _ = writeln!(
                out,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks,
                d.write_ticks,
                d.in_queue,
                d.util
            );
        }
    }
    out
}

/// The sentence of a note (`job 'j': ioengine=libaio runs on …`).
pub fn note(n: &FioNote) -> String {
    let what = match &n.kind {
        FioNoteKind::Libaio => {
            "ioengine=libaio runs on halfpower's io_uring engine (the same queue depth)".to_string()
        }
        FioNoteKind::SyncDepth { engine, iodepth } => format!(
            "ioengine={engine} keeps one I/O in flight (fio ignores iodepth={iodepth} there too)"
        ),
        FioNoteKind::ClonesTogether { numjobs } => {
            format!("its {numjobs} clones are reported together, as with group_reporting")
        }
        FioNoteKind::RandomMapMix { option, mean_bytes } => format!(
            "without norandommap fio keeps a map of the blocks done and shortens a request that \
             would overlap them, so its {option} requests are smaller than the mix says \
             (4k/50:16k/30:64k/20 averages 11.7 KiB in fio 3.33, 20.1 KiB with norandommap); \
             halfpower always draws as norandommap: the mix's mean, {:.1} KiB (docs/fio.md)",
            mean_bytes / 1024.0
        ),
        FioNoteKind::ThinktimeWaits => {
            "thinktime waits for the requests in flight before each pause, as fio does".to_string()
        }
        FioNoteKind::GtodReduce => "gtod_reduce changes nothing here: halfpower reads the clock \
             at each I/O's submission and completion, so its latencies are all reported (fio \
             with gtod_reduce leaves out clat, slat and lat)"
            .to_string(),
        FioNoteKind::CreateOnOpen => "create_on_open changes nothing here: the files are laid \
             out before the job is measured, and their creation is in no figure"
            .to_string(),
        FioNoteKind::Exitall => "exitall changes nothing here: every job running beside it \
             ends at the same time (halfpower refuses exitall where they would end apart)"
            .to_string(),
        FioNoteKind::SyncDrains { every } => format!(
            "each sync after {every} writes waits for the writes in flight, so it covers them; \
             fio on an async engine sends it beside them and keeps its queue full, so \
             iodepth_level differs (halfpower refills from 1 after each sync)"
        ),
        FioNoteKind::Verify { method, ending } => verify_note(method, *ending),
        FioNoteKind::VerifyPattern { method, ending } => pattern_note(method, *ending),
        FioNoteKind::BufferPattern => "buffer_pattern writes the pattern over every write, \
             as fio does, instead of halfpower's data (different in every 512-byte sector): a \
             device that compresses or deduplicates may store far fewer bytes than the job \
             wrote, and its write figures may then not be the medium's"
            .to_string(),
    };
    format!("job '{}': {what}", n.job)
}

/// What halfpower's verification of a job does, and how fio's differs in what it reports.
fn verify_note(method: &str, ending: JobEnding) -> String {
    let how = format!(
        "verify={method} seals every block with halfpower's header and CRC-32C and reads the \
         written blocks back after the job (docs/verify.md); "
    );
    how + verify_unlike(ending)
}

/// What halfpower's pattern verification of a job does, and where fio's bytes differ.
fn pattern_note(method: &Option<String>, ending: JobEnding) -> String {
    let how = "writes the pattern over every block (the block's offset at each %o) and after \
               the job compares every block it wrote with it (a job that only reads: every \
               block of its region; docs/verify.md); ";
    let given = match method.as_deref() {
        Some("pattern") => format!("verify=pattern with verify_pattern {how}"),
        Some(m) => format!(
            "verify={m} with verify_pattern {how}fio also puts its own header ({m}) at the \
             start of each block, halfpower writes the pattern alone; "
        ),
        None => format!(
            "verify_pattern {how}fio (verify unset) also puts its own header at the start of \
             each block, halfpower writes the pattern alone (as fio's verify=pattern); "
        ),
    };
    given + verify_unlike(ending)
}

/// How fio's report of a verified job differs from halfpower's.
fn verify_unlike(ending: JobEnding) -> &'static str {
    match ending {
        JobEnding::Size => {
            "fio counts its verify reads under `read` (and in job_runtime), halfpower reports \
             them only under `halfpower.verify`: `read` holds the job's own reads"
        }
        JobEnding::Time => {
            "fio verifies a time_based job only after a pass that wrote all of its size within \
             the runtime (it warns \"verification read phase will never start\" otherwise), \
             halfpower verifies every block the job wrote"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fit_four_characters_as_in_fio() {
        assert_eq!(iops(942_566.0), "943k");
        assert_eq!(iops(12_345.0), "12.3k");
        assert_eq!(iops(3000.0), "3000");
        assert_eq!(iops(5.5), "5.50");
        assert_eq!(mib(3678.0 * 1048576.0), "3678MiB");
        assert_eq!(mib(11.7 * 1048576.0), "11.7MiB");
        assert_eq!(mb(12_300_000.0), "12.3MB");
    }
}
