//! The change-point detector against synthetic series whose steps are known: one step, two,
//! none in pure noise (the false-alarm rate), a stalled second, and the causes from the
//! device's time per I/O.

use super::*;
use crate::rng::Rng;

/// Standard normal deviates (Box–Muller) from a seeded stream.
fn normals(seed: u64, n: usize) -> Vec<f64> {
    let mut r = Rng::new(seed, 13);
    let mut u = || (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (0..n)
        .map(|_| {
            let (a, b) = (u().max(1e-300), u());
            (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
        })
        .collect()
}

/// `levels` (value, seconds) one after another, each second off by `noise` (a share) times a
/// normal deviate.
fn series(seed: u64, levels: &[(f64, usize)], noise: f64) -> Vec<f64> {
    let n = levels.iter().map(|l| l.1).sum();
    let z = normals(seed, n);
    levels
        .iter()
        .flat_map(|&(v, k)| std::iter::repeat_n(v, k))
        .zip(z)
        .map(|(v, z)| v * (1.0 + noise * z))
        .collect()
}

fn iops_only(x: &[f64]) -> Vec<Change> {
    changes(&Series {
        iops: x,
        ..Series::default()
    })
}

#[test]
fn one_step_is_found_where_it_is() {
    let x = series(1, &[(4000.0, 6), (2000.0, 6)], 0.01);
    let c = iops_only(&x);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].figure, ChangeFigure::Iops);
    assert!((c[0].at_s - 6.0).abs() < 0.2, "{:?}", c[0]);
    assert!((c[0].before / 4000.0 - 1.0).abs() < 0.02);
    assert!((c[0].after / 2000.0 - 1.0).abs() < 0.02);
    assert_eq!(c[0].cause, None, "no device counters, no cause");
    assert_eq!(c[0].evidence.seconds_before, 6.0);
}

#[test]
fn a_step_inside_a_second_is_placed_within_it() {
    // The cap fell 0.4 s into second 6: that second did 0.4 × 4000 + 0.6 × 2000.
    let mut x = vec![4000.0; 6];
    x.push(2800.0);
    x.extend([2000.0; 5]);
    let c = iops_only(&x);
    assert_eq!(c.len(), 1, "{c:?}");
    assert!((c[0].at_s - 6.4).abs() < 1e-9, "{:?}", c[0]);
}

#[test]
fn two_steps_in_a_long_series() {
    let x = series(2, &[(1000.0, 40), (3000.0, 30), (500.0, 50)], 0.05);
    let c = iops_only(&x);
    let at: Vec<f64> = c.iter().map(|c| c.at_s).collect();
    assert_eq!(c.len(), 2, "{c:?}");
    assert!(
        (at[0] - 40.0).abs() <= 1.0 && (at[1] - 70.0).abs() <= 1.0,
        "{at:?}"
    );
}

/// Pure noise, 12 and 120 seconds at 1 %, 5 % and 20 %: a change is reported in at most 5 %
/// of 500 series each; most noise is also below the 10 % step.
#[test]
fn pure_noise_reports_no_change() {
    for n in [12, 120] {
        for noise in [0.01, 0.05, 0.2] {
            let found = (0..500)
                .filter(|&s| !iops_only(&series(s + 100, &[(1000.0, n)], noise)).is_empty())
                .count();
            assert!(
                found <= 25,
                "{n} s at {noise}: {found} of 500 with a change"
            );
        }
    }
}

#[test]
fn a_stalled_second_is_no_level() {
    let mut x = vec![4000.0; 12];
    x[5] = 600.0;
    x[9] = 0.0;
    assert!(iops_only(&x).is_empty());
    assert!(iops_only(&[]).is_empty() && iops_only(&[0.0; 20]).is_empty());
    assert!(
        iops_only(&[100.0, 50.0, 100.0, 50.0, 100.0]).is_empty(),
        "too short"
    );
}

/// A cap lowered: throughput halves, the device's time per I/O stays; the latency that
/// doubles with it (Little's law) is the same change, not a second one.
#[test]
fn a_lowered_cap_is_a_cap() {
    let x = series(3, &[(4000.0, 6), (2000.0, 6)], 0.01);
    let p99: Vec<f64> = x.iter().map(|v| 8.0 / v * 1e6 * 1.3).collect();
    let own: Vec<f64> = x.iter().map(|v| 4.0 / v * 1e6).collect();
    let dev = series(4, &[(12.0, 12)], 0.05);
    let c = changes(&Series {
        iops: &x,
        latency: Some((ChangeFigure::P99Us, &p99)),
        device_us: Some(&dev),
        latency_us: Some(&own),
        host_late: None,
    });
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].cause, Some(ChangeCause::Cap));
    let e = c[0].evidence;
    assert!((e.device_us_after.unwrap() / e.device_us_before.unwrap() - 1.0).abs() < 0.2);
    assert!(e.other_after.unwrap() > 1.8 * e.other_before.unwrap());
}

#[test]
fn a_slower_device_is_device_slower() {
    // One I/O in flight: halfpower's latency 2 → 4 ms, of which the device's 1.9 → 3.9 ms.
    let x = series(5, &[(500.0, 6), (250.0, 6)], 0.01);
    let own: Vec<f64> = x.iter().map(|v| 1e6 / v).collect();
    let dev = series(6, &[(1900.0, 6), (3900.0, 6)], 0.01);
    let c = changes(&Series {
        iops: &x,
        latency: None,
        device_us: Some(&dev),
        latency_us: Some(&own),
        host_late: None,
    });
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].cause, Some(ChangeCause::DeviceSlower));
}

/// An open loop: throughput held by the arrivals, latency up fourfold with the device's time.
#[test]
fn a_latency_step_alone_is_reported_with_its_cause() {
    let x = series(7, &[(1000.0, 20)], 0.01);
    let lat = series(8, &[(200.0, 10), (800.0, 10)], 0.03);
    let dev = series(9, &[(150.0, 10), (700.0, 10)], 0.03);
    let own = series(10, &[(180.0, 10), (750.0, 10)], 0.03);
    let c = changes(&Series {
        iops: &x,
        latency: Some((ChangeFigure::P99Us, &lat)),
        device_us: Some(&dev),
        latency_us: Some(&own),
        host_late: None,
    });
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].figure, ChangeFigure::P99Us);
    assert_eq!(c[0].at_s, 10.0);
    assert_eq!(c[0].cause, Some(ChangeCause::DeviceSlower));
}

/// A burst: an uneven high rate spending credit, then a flat baseline; the device's time
/// per I/O unchanged.
#[test]
fn an_uneven_burst_then_a_flat_baseline_is_burst_ended() {
    let mut x = series(10, &[(3000.0, 8)], 0.25);
    x.extend(series(11, &[(1000.0, 10)], 0.01));
    let dev = series(12, &[(300.0, 18)], 0.03);
    let own: Vec<f64> = x.iter().map(|v| 8.0 / v * 1e6).collect();
    let c = changes(&Series {
        iops: &x,
        latency: None,
        device_us: Some(&dev),
        latency_us: Some(&own),
        host_late: None,
    });
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(c[0].evidence.spread_before_pct > FLAT_PCT);
    assert_eq!(c[0].cause, Some(ChangeCause::BurstEnded));
}

#[test]
fn medians_and_spreads() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    assert_eq!(median(&[]), 0.0);
    assert_eq!(spread_pct(&[100.0; 5]), 0.0);
    assert!((spread_pct(&[90.0, 100.0, 110.0]) - 14.826).abs() < 1e-9);
}

/// CI's steady 4000-IOPS cap at QD4: each second's p99 was the slowest of its quick I/Os,
/// 224 µs for 6 s then 98 µs. A step no larger than the host's latest wake-ups each second is
/// not the device's; the same step on a host that wakes within 40 µs is one change.
#[test]
fn a_p99_step_within_the_hosts_late_wake_ups_is_no_change() {
    let x = [4000.0; 12];
    let p99 = [
        231.0, 218.0, 224.0, 240.0, 212.0, 226.0, 97.0, 102.0, 95.0, 98.0, 110.0, 91.0,
    ];
    let at = |late: f64| {
        let host = [late; 12];
        changes(&Series {
            iops: &x,
            latency: Some((ChangeFigure::P99Us, &p99)),
            host_late: Some(&host),
            ..Series::default()
        })
    };
    assert!(at(150.0).is_empty(), "{:?}", at(150.0));
    let c = at(40.0);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!((c[0].figure, c[0].at_s), (ChangeFigure::P99Us, 6.0));
}

/// CI (run 44): one I/O in flight on a disk whose service time doubles 6 s in (5 → 10 ms, 194
/// → 98 IOPS). The host's stalls raised seconds 3–5's p99 to the slow level's, so the p99's
/// levels fell at 3 s, not 6: a p99 step not near the throughput's, and a level after it that
/// spans the throughput's step, whose device time (the median over 9 s, mostly the slow 6)
/// called it `device-slower`. A latency level is judged only within the throughput's level it
/// starts in: seconds 3–5 against 0–2, where the device's time did not move and the host's
/// wake-ups account for the step.
#[test]
fn a_latency_step_is_judged_within_the_throughputs_levels() {
    let iops = [
        194.0, 194.0, 194.0, 194.0, 194.0, 194.0, 98.0, 98.0, 98.0, 98.0, 98.0, 98.0,
    ];
    let p99 = [
        7913.0, 7650.0, 8120.0, 11050.0, 11400.0, 11305.0, 10289.0, 11124.0, 10617.0, 11316.0,
        10551.0, 10420.0,
    ];
    let dev = [
        5252.0, 5250.0, 5260.0, 5255.0, 5258.0, 5249.0, 10150.0, 10160.0, 10155.0, 10158.0,
        10152.0, 10153.0,
    ];
    let own = dev.map(|d| d + 60.0);
    let host = [
        2700.0, 2500.0, 2900.0, 6000.0, 6200.0, 5800.0, 400.0, 1500.0, 300.0, 1200.0, 350.0, 300.0,
    ];
    let c = changes(&Series {
        iops: &iops,
        latency: Some((ChangeFigure::P99Us, &p99)),
        device_us: Some(&dev),
        latency_us: Some(&own),
        host_late: Some(&host),
    });
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!((c[0].figure, c[0].at_s), (ChangeFigure::Iops, 6.0));
    assert_eq!(c[0].cause, Some(ChangeCause::DeviceSlower));
}

/// CI (row 52): one I/O in flight, service time doubled 6 s in. Seconds 6–8 of the slow level
/// held a p99 of 17 ms, then 10.7 ms (about 96 reads a second: a p99 is its second slowest),
/// while the mean and the device's time did not move. The probe woke at most a few ms late
/// in them (the step got through on its wake-ups), but the host stole 2.5–4.8 % of each CPU:
/// 25–48 ms a second it could add to a read. That step is the host's; with no steal it is one.
#[test]
fn a_p99_step_within_the_time_the_host_stole_is_no_change() {
    let iops = [
        189.0, 191.0, 182.0, 177.0, 187.0, 182.0, 96.0, 96.0, 94.0, 97.0, 98.0, 98.0,
    ];
    let p99 = [
        6898.0, 7586.0, 10584.0, 11174.0, 7062.0, 7946.0, 16908.0, 17170.0, 16515.0, 11338.0,
        10748.0, 10682.0,
    ];
    let own = [
        5258.0, 5232.0, 5506.0, 5632.0, 5361.0, 5450.0, 10447.0, 10441.0, 10570.0, 10295.0,
        10235.0, 10199.0,
    ];
    let dev = own.map(|m| m - 100.0);
    let late_ms = [3.0, 0.4, 4.5, 5.0, 0.4, 5.0, 0.4, 4.9, 5.5, 0.4, 0.3, 0.3];
    let steal = [0.5, 0.0, 4.3, 4.4, 2.0, 2.9, 2.5, 3.0, 4.8, 0.5, 0.0, 0.0];
    let at = |steal: &[f64]| {
        let host: Vec<f64> = (0..12)
            .map(|i| host_added_us(late_ms[i] * 1e3, Some(steal[i])))
            .collect();
        changes(&Series {
            iops: &iops,
            latency: Some((ChangeFigure::P99Us, &p99)),
            device_us: Some(&dev),
            latency_us: Some(&own),
            host_late: Some(&host),
        })
    };
    let c = at(&steal);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!((c[0].figure, c[0].at_s), (ChangeFigure::Iops, 6.0));
    assert_eq!(c[0].cause, Some(ChangeCause::DeviceSlower));
    let c = at(&[0.0; 12]);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!((c[1].figure, c[1].at_s), (ChangeFigure::P99Us, 9.0));
}

/// The host's addition is the larger of its probe's latest wake-up and the time it stole from
/// each CPU in the second; unknown only when both are.
#[test]
fn the_hosts_addition_is_its_late_wake_up_or_its_steal() {
    assert_eq!(host_added_us(2000.0, Some(0.1)), 2000.0);
    assert_eq!(host_added_us(2000.0, Some(3.0)), 30_000.0);
    assert_eq!(host_added_us(f64::NAN, Some(1.0)), 10_000.0);
    assert_eq!(host_added_us(500.0, None), 500.0);
    assert!(host_added_us(f64::NAN, None).is_nan());
}
