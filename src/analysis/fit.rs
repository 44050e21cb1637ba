//! Service time as a straight line of request size (004: `y = m·x + b`, b the per-request
//! overhead, m the transfer time per KiB), fitted the way 004 fits it: from the smallest
//! sizes upwards, leaving out the points where another bottleneck has taken over.

/// A least-squares line `y = intercept + slope·x` and how well it fits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// y at x = 0.
    pub intercept: f64,
    /// Change of y per unit of x.
    pub slope: f64,
    /// Coefficient of determination of the points it was fitted to (1 for two points).
    pub r2: f64,
}

impl Line {
    /// y at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Ordinary least squares through `points` (x, y). None with fewer than two distinct x.
pub fn least_squares(points: &[(f64, f64)]) -> Option<Line> {
    let n = points.len() as f64;
    if points.len() < 2 || points.iter().any(|(x, y)| !x.is_finite() || !y.is_finite()) {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_tot: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let ss_res: f64 = points
        .iter()
        .map(|p| (p.1 - (intercept + slope * p.0)).powi(2))
        .sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    Some(Line {
        intercept,
        slope,
        r2,
    })
}

/// The standard error of the slope of `line` fitted to `points` by least squares; None with
/// fewer than three points (two points leave no residual to estimate it from).
pub fn slope_se(points: &[(f64, f64)], line: &Line) -> Option<f64> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let ss_res: f64 = points.iter().map(|p| (p.1 - line.at(p.0)).powi(2)).sum();
    (sxx > 0.0).then(|| (ss_res / (n - 2) as f64 / sxx).sqrt())
}

/// How far a point may lie from the line through the smaller sizes before it counts as off
/// the line: 15 % of the projection (004's 64 KiB reads lie 21 % below theirs), or 5 µs when
/// that is more (timer and scheduling noise on sub-millisecond service times).
pub const OFF_LINE_SHARE: f64 = 0.15;
/// The absolute floor of [`OFF_LINE_SHARE`], in the unit of y (ms).
pub const OFF_LINE_FLOOR_MS: f64 = 0.005;

/// A line fitted to the points that follow it, and the points that do not.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressiveFit {
    /// The line through the points that stayed on it.
    pub line: Line,
    /// Indices (into the input) of the points the line was fitted to.
    pub used: Vec<usize>,
    /// Indices of the points that fell off the line, left out of the fit.
    pub off_line: Vec<usize>,
}

/// Fits from the smallest x upwards, as 004 does: the two smallest points define the first
/// line; each larger point joins (and the line is refitted) when it lies within
/// [`OFF_LINE_SHARE`] of the current line's projection, else it is marked off the line.
/// `points` need not be sorted. None with fewer than two points or equal x values.
pub fn progressive(points: &[(f64, f64)]) -> Option<ProgressiveFit> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0));
    if order.len() < 2 {
        return None;
    }
    let mut used = vec![order[0], order[1]];
    let mut line = least_squares(&[points[order[0]], points[order[1]]])?;
    let mut off_line = Vec::new();
    for &i in &order[2..] {
        let (x, y) = points[i];
        let projected = line.at(x);
        let tolerance = (projected.abs() * OFF_LINE_SHARE).max(OFF_LINE_FLOOR_MS);
        if (y - projected).abs() <= tolerance {
            used.push(i);
            let pts: Vec<(f64, f64)> = used.iter().map(|&u| points[u]).collect();
            line = least_squares(&pts)?;
        } else {
            off_line.push(i);
        }
    }
    Some(ProgressiveFit {
        line,
        used,
        off_line,
    })
}

/// The transfer rate a slope in ms per KiB implies, MB/s (10^6 bytes/s); None unless the
/// slope is positive.
pub fn transfer_mb_per_s(ms_per_kib: f64) -> Option<f64> {
    (ms_per_kib > 0.0).then(|| 1024.0 / (ms_per_kib / 1000.0) / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_a_line() {
        let pts: Vec<(f64, f64)> = (1..=5).map(|x| (x as f64, 2.0 + 0.5 * x as f64)).collect();
        let l = least_squares(&pts).unwrap();
        assert!((l.intercept - 2.0).abs() < 1e-12 && (l.slope - 0.5).abs() < 1e-12);
        assert!((l.r2 - 1.0).abs() < 1e-12);
        let noisy = [(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)];
        let l = least_squares(&noisy).unwrap();
        assert!((l.slope - 0.5).abs() < 1e-12 && (l.r2 - 0.25).abs() < 1e-12);
        assert!(least_squares(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
        assert!(least_squares(&[(1.0, 1.0)]).is_none());
        assert!(least_squares(&[(1.0, f64::NAN), (2.0, 1.0)]).is_none());
    }

    /// 004 Table 4, sequential reads: 0.20 ms at 4 KiB and 0.51 ms at 16 KiB project "just
    /// under 1 ms" at 32 KiB; the 64 KiB point (1.38 ms, the link saturated) is off the line.
    #[test]
    fn friedmans_sequential_reads() {
        let pts = [(4.0, 0.20), (16.0, 0.51), (64.0, 1.38)];
        let f = progressive(&pts).unwrap();
        assert_eq!(f.off_line, vec![2]);
        assert_eq!(f.used, vec![0, 1]);
        let at32 = f.line.at(32.0);
        assert!((at32 - 0.9233).abs() < 0.001, "{at32}");
        assert!(at32 < 1.0);
        assert!((f.line.slope - 0.31 / 12.0).abs() < 1e-12);
        // 0.0258 ms per KiB is a 39.6 MB/s transfer rate.
        let rate = transfer_mb_per_s(f.line.slope).unwrap();
        assert!((rate - 39.64).abs() < 0.01, "{rate}");
        // Writes: 0.27 and 0.63 project "just over 1 ms" at 32 KiB; 64 KiB is off too.
        let w = progressive(&[(64.0, 1.39), (4.0, 0.27), (16.0, 0.63)]).unwrap();
        assert!(w.line.at(32.0) > 1.0 && w.line.at(32.0) < 1.2);
        assert_eq!(w.off_line, vec![0]);
    }

    #[test]
    fn points_on_the_line_join_it() {
        // 0.1 ms overhead + 0.01 ms/KiB, with small noise: every point stays.
        let pts = [
            (4.0, 0.141),
            (16.0, 0.259),
            (64.0, 0.745),
            (256.0, 2.66),
            (1024.0, 10.4),
        ];
        let f = progressive(&pts).unwrap();
        assert!(f.off_line.is_empty(), "{f:?}");
        assert_eq!(f.used.len(), 5);
        assert!(f.line.r2 > 0.999);
        assert!((f.line.slope - 0.01).abs() < 0.0005);
    }

    #[test]
    fn negative_or_zero_slope_has_no_rate() {
        assert_eq!(transfer_mb_per_s(0.0), None);
        assert_eq!(transfer_mb_per_s(-0.1), None);
    }
}
