//! How much of its files a job covers and for how long: the files' sizes, the offset, and
//! whether it ends by time or by bytes, set in its workload.

use super::number::Size;
use super::options::JobOptions;
use super::{Ending, FioError, files};
use crate::plan::Workload;
use crate::units::{ByteSize, Dur};
use std::time::Duration;

/// Sizes the job's files in `w` as fio does: `filesize` each, or the job's `size` divided
/// between one clone's files. Returns the stripe chunk when a clone has several files, and the
/// size as a share of the target when it is given so.
pub(super) fn file_sizes(
    o: &JobOptions,
    files: &files::JobFiles,
    w: &mut Workload,
) -> Result<(Option<u64>, Option<f64>), FioError> {
    let per_clone = files.per_clone();
    // A job on several files goes to them in turn, a request at a time: one stripe set in
    // chunks of the request size (so every size of a mix must divide the largest).
    let stripe = (per_clone > 1).then(|| w.bs.max());
    if stripe.is_some() && w.bs.parts().iter().any(|p| w.bs.max() % p.0 != 0) {
        return Err(FioError::NotYet {
            option: "filename".into(),
            why: "several files with request sizes that do not all divide the largest".into(),
        });
    }
    let mut size_pct = None;
    match (o.filesize, o.size) {
        (Some(f), None | Some(Size::Bytes(_))) => w.setup.size = Some(ByteSize(f)),
        (Some(_), Some(Size::Percent(_))) => {
            return Err(FioError::NotYet {
                option: "size".into(),
                why: "a size in percent together with filesize".into(),
            });
        }
        // fio divides a clone's size between its files.
        (None, Some(Size::Bytes(b))) => w.setup.size = Some(ByteSize(b / per_clone)),
        (None, Some(Size::Percent(_))) if files.paths.len() > 1 => {
            return Err(FioError::NotYet {
                option: "size".into(),
                why: "a size in percent on several files".into(),
            });
        }
        (None, Some(Size::Percent(p))) if p > 0.0 => size_pct = Some(p),
        (None, Some(Size::Percent(_))) => {
            return Err(FioError::value("size", "0%", "a share above 0 %"));
        }
        (None, None) => {}
    }
    Ok((stripe, size_pct))
}

/// Sets the job's `offset` in `w`: bytes (a percentage of the target is not implemented yet).
pub(super) fn offset(o: &JobOptions, w: &mut Workload) -> Result<(), FioError> {
    match o.offset {
        Size::Bytes(b) => w.setup.offset = ByteSize(b),
        Size::Percent(0.0) => {}
        Size::Percent(_) => {
            return Err(FioError::NotYet {
                option: "offset".into(),
                why: "offsets as a percentage are not implemented yet".into(),
            });
        }
    }
    Ok(())
}

/// How the job ends (its runtime, or its bytes), set in `w`; a time-based job needs a
/// runtime, and a mix of request sizes needs a time-based job.
pub(super) fn ending(o: &JobOptions, w: &mut Workload) -> Result<Ending, FioError> {
    let runtime = o.runtime_us.map(Duration::from_micros);
    let ending = match (o.time_based, runtime) {
        (true, Some(t)) => Ending::Time(t),
        (true, None) => {
            return Err(FioError::NotYet {
                option: "time_based".into(),
                why: "a time-based job without a runtime runs until stopped in fio; give it a \
                      runtime"
                    .into(),
            });
        }
        (false, runtime) => Ending::Bytes { runtime },
    };
    if matches!(ending, Ending::Bytes { .. }) && w.bs.is_mix() {
        return Err(FioError::NotYet {
            option: if o.access.bsrange.is_some() {
                "bsrange"
            } else {
                "bssplit"
            }
            .into(),
            why: "a job with a mix of request sizes that ends by size (add time_based and a \
                  runtime)"
                .into(),
        });
    }
    if let Ending::Time(t) = ending {
        w.setup.time = Some(Dur(t));
    } else {
        w.setup.time = runtime.map(Dur);
    }
    Ok(ending)
}
