//! `experiment burst` on a terminal: each drain's bucket (its burst, baseline and credits,
//! never the drain's blended mean as the device's), and the refill in words.

use super::table::{Table, figures, words};
use crate::model::bucket::{Bucket, Refill};
use crate::model::experiment::Row;
use crate::units::ByteSize;

/// The drains' table: per drain, its time, whether its baseline held, and its bucket.
pub fn rows(out: &mut String, rows: &[Row]) {
    let mut table = Table::new(vec![
        words("drain", 11),
        words("rw", 9),
        figures("size", 6),
        figures("QD", 4),
        figures("seconds", 8),
        figures("held", 5),
        figures("burst IOPS", 14),
        figures("baseline IOPS", 16),
        figures("credits (I/Os)", 16),
        figures("ended s", 8),
    ]);
    for row in rows {
        let mut line = vec![
            row.variant.name().to_string(),
            row.rw.name().to_string(),
            ByteSize(row.bs_bytes).to_string(),
            row.qd.to_string(),
        ];
        line.extend(cells(row));
        table.row(line);
    }
    out.push_str(&table.render());
    out.push_str(
        "held: the drain ended once its baseline had held for --hold (else at --time); \
         credits: the I/Os done above the baseline before it\n",
    );
}

/// A drain's cells, as the text and the report show them: its seconds, whether its baseline
/// held, its burst, baseline and credits (each ± its interval's half-width), when its burst
/// ended ("-" without a bucket).
pub fn cells(row: &Row) -> [String; 6] {
    let held = row.results.steady.as_ref().is_some_and(|s| s.reached);
    let b = row.results.bucket.as_ref();
    let pm = |f: fn(&Bucket) -> (f64, f64)| {
        b.map_or("-".into(), |b| {
            let (v, half) = f(b);
            format!("{v:.0} ±{half:.0}")
        })
    };
    [
        format!("{:.1}", row.results.seconds),
        (if held { "yes" } else { "no" }).into(),
        pm(|b| (b.burst_iops, b.burst_iops_ci95.half)),
        pm(|b| (b.baseline_iops, b.baseline_iops_ci95.half)),
        pm(|b| (b.credits_ios, b.credits_ios_ci95.half)),
        b.map_or("-".into(), |b| format!("{:.1}", b.ended_at_s)),
    ]
}

/// The bucket's rates in words.
fn rates(b: &Bucket) -> String {
    format!(
        "a burst of {:.0} IOPS ({:.2} MB/s) while credits lasted, then a baseline of {:.0} IOPS \
         ({:.2} MB/s); the bucket held {:.0} I/Os of credit ({:.1} MB)",
        b.burst_iops,
        b.burst_bytes_per_s / 1e6,
        b.baseline_iops,
        b.baseline_bytes_per_s / 1e6,
        b.credits_ios,
        b.credits_bytes / 1e6
    )
}

/// What the two drains found, in one line.
pub fn verdict(r: &Refill) -> String {
    let Some(first) = &r.first else {
        return "no credit bucket: the drain showed no burst above a flat baseline held for \
                --hold within its --time (no bucket, or credits that outlast --time: a longer \
                --time tells)"
            .into();
    };
    let again = match (&r.second, r.refill_ios_per_s) {
        (Some(_), Some(per_s)) => {
            let half = r.refill_ios_per_s_ci95.map_or(0.0, |c| c.half);
            let bytes = r.refill_bytes_per_s.unwrap_or(0.0);
            if r.full {
                format!(
                    "after a rest of {:.1} s the bucket was full again: a refill of at least \
                     {per_s:.0} I/Os ({:.2} MB) per second of rest (a shorter --rest measures \
                     it)",
                    r.rest_s,
                    bytes / 1e6
                )
            } else {
                format!(
                    "after a rest of {:.1} s it held {:.0} I/Os: a refill of {per_s:.0} ±{half:.0} \
                     I/Os ({:.2} MB) per second of rest",
                    r.rest_s,
                    r.second.as_ref().map_or(0.0, |b| b.credits_ios),
                    bytes / 1e6
                )
            }
        }
        _ if r.rest_s > 0.0 => format!(
            "after a rest of {:.1} s the drain showed no burst again: the rest put back too few \
             credits for one (a longer --rest tells)",
            r.rest_s
        ),
        _ => "the second drain did not run".into(),
    };
    format!("{}; {again}", rates(first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::summary::Ci95;

    fn bucket(credits: f64) -> Bucket {
        Bucket {
            burst_iops: 1930.0,
            burst_bytes_per_s: 1930.0 * 4096.0,
            baseline_iops: 500.0,
            baseline_bytes_per_s: 500.0 * 4096.0,
            credits_ios: credits,
            credits_bytes: credits * 4096.0,
            ..Bucket::default()
        }
    }

    #[test]
    fn the_verdict_says_each_rate_and_the_refill_or_why_not() {
        let r = Refill {
            first: Some(bucket(10_000.0)),
            second: Some(bucket(5_000.0)),
            rest_s: 10.0,
            refill_ios_per_s: Some(500.0),
            refill_ios_per_s_ci95: Some(Ci95 {
                half: 12.0,
                pct: 2.4,
            }),
            refill_bytes_per_s: Some(500.0 * 4096.0),
            full: false,
        };
        assert_eq!(
            verdict(&r),
            "a burst of 1930 IOPS (7.91 MB/s) while credits lasted, then a baseline of 500 IOPS \
             (2.05 MB/s); the bucket held 10000 I/Os of credit (41.0 MB); after a rest of 10.0 s \
             it held 5000 I/Os: a refill of 500 ±12 I/Os (2.05 MB) per second of rest"
        );
        let full = Refill {
            full: true,
            ..r.clone()
        };
        assert!(verdict(&full).contains("full again: a refill of at least 500 I/Os"));
        let short = Refill {
            second: None,
            refill_ios_per_s: None,
            ..r.clone()
        };
        assert!(verdict(&short).contains("no burst again"));
        assert!(verdict(&Refill::default()).starts_with("no credit bucket"));
    }
}
