//! Metric families in Prometheus's text exposition format (0.0.4) and in OpenMetrics 1.0.0:
//! `# HELP` and `# TYPE` before each family, label values escaped, counters named `…_total`,
//! histograms as cumulative `_bucket{le}` lines with `_sum` and `_count`. The format is a few
//! lines of text; a crate's registry (prometheus, prometheus-client) would add a second model
//! of figures halfpower already holds.

use std::fmt::Write;

/// What a family's samples are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricType {
    /// Only goes up; the name ends in `_total`.
    Counter,
    /// A value now.
    Gauge,
    /// Cumulative buckets, `_sum` and `_count`.
    Histogram,
    /// Quantiles (a `quantile` label), `_sum` and `_count`.
    Summary,
}

/// One sample: the suffix it adds to the family's name (`_bucket`, `_sum`, `_count`, or
/// nothing), its labels and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Added to the family's name.
    pub suffix: &'static str,
    /// Label names and values, in order.
    pub labels: Vec<(&'static str, String)>,
    /// The value.
    pub value: f64,
}

/// One metric family.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// The full name (a counter's with its `_total`).
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Its type.
    pub kind: MetricType,
    /// Its samples.
    pub samples: Vec<Sample>,
}

impl Family {
    /// A family without samples yet.
    pub fn new(name: &'static str, kind: MetricType, help: &'static str) -> Self {
        Family {
            name,
            help,
            kind,
            samples: Vec::new(),
        }
    }

    /// Adds a sample of the family's own name.
    pub fn push(&mut self, labels: Vec<(&'static str, String)>, value: f64) {
        self.samples.push(Sample {
            suffix: "",
            labels,
            value,
        });
    }

    /// Adds a histogram of `labels`: `buckets` as (upper bound, count at or below it) in
    /// increasing order, the `+Inf` bucket being `count`, then `_sum` and `_count`.
    pub fn push_histogram(
        &mut self,
        labels: Vec<(&'static str, String)>,
        buckets: &[(f64, u64)],
        sum: f64,
        count: u64,
    ) {
        for &(le, n) in buckets {
            let mut l = labels.clone();
            l.push(("le", number(le)));
            self.samples.push(Sample {
                suffix: "_bucket",
                labels: l,
                value: n as f64,
            });
        }
        let mut l = labels.clone();
        l.push(("le", "+Inf".into()));
        let s = |suffix, labels, value| Sample {
            suffix,
            labels,
            value,
        };
        self.samples.push(s("_bucket", l, count as f64));
        self.samples.push(s("_sum", labels.clone(), sum));
        self.samples.push(s("_count", labels, count as f64));
    }
}

/// A unit enum's JSON name (its serde name), for a label value.
pub fn label_of(v: &impl serde::Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => "unknown".into(),
    }
}

/// A value as the formats write it: integers without a fraction, `NaN`, `+Inf`, `-Inf`.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A label value escaped: backslash, double quote and newline.
fn escape(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn sample_line(out: &mut String, name: &str, s: &Sample) {
    let _ = write!(out, "{name}{}", s.suffix);
    if !s.labels.is_empty() {
        let labels: Vec<String> = (s.labels.iter())
            .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
            .collect();
        let _ = write!(out, "{{{}}}", labels.join(","));
    }
    let _ = writeln!(out, " {}", number(s.value));
}

/// The families in Prometheus's text format (a family without samples is left out).
pub fn text(families: &[Family]) -> String {
    let mut out = String::new();
    for f in families.iter().filter(|f| !f.samples.is_empty()) {
        let kind = match f.kind {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Histogram => "histogram",
            MetricType::Summary => "summary",
        };
        let _ = writeln!(out, "# HELP {} {}", f.name, f.help);
        let _ = writeln!(out, "# TYPE {} {kind}", f.name);
        for s in &f.samples {
            sample_line(&mut out, f.name, s);
        }
    }
    out
}

/// The families as a scraper asked for them (`Accept`).
pub fn page(format: crate::serve::Format, families: &[Family]) -> String {
    match format {
        crate::serve::Format::Text => text(families),
        crate::serve::Format::OpenMetrics => open_metrics(families),
    }
}

/// The families in OpenMetrics: a counter's family named without `_total` (its samples keep
/// it), and `# EOF` at the end.
pub fn open_metrics(families: &[Family]) -> String {
    let mut out = String::new();
    for f in families.iter().filter(|f| !f.samples.is_empty()) {
        let (family, kind) = match f.kind {
            MetricType::Counter => (f.name.strip_suffix("_total").unwrap_or(f.name), "counter"),
            MetricType::Gauge => (f.name, "gauge"),
            MetricType::Histogram => (f.name, "histogram"),
            MetricType::Summary => (f.name, "summary"),
        };
        let _ = writeln!(out, "# TYPE {family} {kind}");
        let _ = writeln!(out, "# HELP {family} {}", f.help);
        for s in &f.samples {
            sample_line(&mut out, f.name, s);
        }
    }
    out.push_str("# EOF\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn families() -> Vec<Family> {
        let mut reads = Family::new(
            "halfpower_device_reads_total",
            MetricType::Counter,
            "Reads completed.",
        );
        reads.push(vec![("device", "loop0".into())], 2000.0);
        let mut s = Family::new(
            "halfpower_device_service_seconds",
            MetricType::Gauge,
            "Service time.",
        );
        s.push(vec![("device", "a\"b\\c\nd".into())], 0.0005);
        let mut h = Family::new(
            "halfpower_latency_seconds",
            MetricType::Histogram,
            "Latency.",
        );
        h.push_histogram(vec![], &[(0.001, 3), (0.01, 9)], 0.05, 10);
        let empty = Family::new("halfpower_unused", MetricType::Gauge, "Nothing.");
        vec![reads, s, h, empty]
    }

    #[test]
    fn text_has_help_type_escaped_labels_and_cumulative_buckets() {
        assert_eq!(
            text(&families()),
            "# HELP halfpower_device_reads_total Reads completed.\n\
             # TYPE halfpower_device_reads_total counter\n\
             halfpower_device_reads_total{device=\"loop0\"} 2000\n\
             # HELP halfpower_device_service_seconds Service time.\n\
             # TYPE halfpower_device_service_seconds gauge\n\
             halfpower_device_service_seconds{device=\"a\\\"b\\\\c\\nd\"} 0.0005\n\
             # HELP halfpower_latency_seconds Latency.\n\
             # TYPE halfpower_latency_seconds histogram\n\
             halfpower_latency_seconds_bucket{le=\"0.001\"} 3\n\
             halfpower_latency_seconds_bucket{le=\"0.01\"} 9\n\
             halfpower_latency_seconds_bucket{le=\"+Inf\"} 10\n\
             halfpower_latency_seconds_sum 0.05\n\
             halfpower_latency_seconds_count 10\n"
        );
    }

    #[test]
    fn open_metrics_names_counters_without_total_and_ends_with_eof() {
        let om = open_metrics(&families());
        assert!(om.starts_with(
            "# TYPE halfpower_device_reads counter\n# HELP halfpower_device_reads Reads completed.\n\
             halfpower_device_reads_total{device=\"loop0\"} 2000\n"
        ));
        assert!(
            om.ends_with("halfpower_latency_seconds_count 10\n# EOF\n"),
            "{om}"
        );
    }
}
