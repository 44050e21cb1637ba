//! The queueing laws the seeds use to split a device's response time into service time and
//! queue time, with the conditions under which each one holds.
//!
//! * Utilization Law (004): S = U / X. Valid for a device that serves one request at a time
//!   (a disk arm); on a device that serves many at once, U / X is only busy time per I/O.
//! * Little's law: N = X · R, for any stable system; with N the mean number at the device
//!   proper (sampled in-flight), R is the time a request spends there.
//! * M/M/1 (004): Wq = S · u / (1 − u), for one server with random (open) arrivals.

/// Service time from the Utilization Law, ms: `util` in 0..=1, `iops` completions per second.
/// `None` when nothing completed.
pub fn utilization_law_ms(util: f64, iops: f64) -> Option<f64> {
    (iops > 0.0 && util.is_finite()).then(|| util / iops * 1000.0)
}

/// Queue time, ms: response time minus service time, clamped at 0 (measurement noise can make
/// the service time estimate exceed the mean response time slightly).
pub fn queue_time_ms(response_ms: f64, service_ms: f64) -> f64 {
    (response_ms - service_ms).max(0.0)
}

/// Time per request at a stage holding `mean_in_flight` requests on average while `iops`
/// leave it (Little's law, R = N / X), ms.
pub fn littles_law_ms(mean_in_flight: f64, iops: f64) -> Option<f64> {
    (iops > 0.0 && mean_in_flight.is_finite()).then(|| mean_in_flight / iops * 1000.0)
}

/// M/M/1 queue time, ms, for service time `service_ms` at utilization `util` (0..1);
/// `None` at or above saturation, where an open queue grows without bound.
pub fn mm1_queue_ms(service_ms: f64, util: f64) -> Option<f64> {
    (0.0..1.0)
        .contains(&util)
        .then(|| service_ms * util / (1.0 - util))
}

/// The share of a disk set's capacity in use, from the sum of its disks' busy fractions (NT's
/// Avg. Disk Queue Length of a set is that sum): `sum / disks`.
pub fn set_capacity_used(avg_queue_length_sum: f64, disks: usize) -> f64 {
    if disks == 0 {
        0.0
    } else {
        avg_queue_length_sum / disks as f64
    }
}

/// The share of interrupts a device caused: total interrupts per second minus the rate of the
/// other known sources (e.g. the clock), over the total.
pub fn interrupt_share(total_per_s: f64, other_per_s: f64) -> f64 {
    if total_per_s <= 0.0 {
        0.0
    } else {
        ((total_per_s - other_per_s) / total_per_s).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// 004: about 5000 sequential 4 KB reads/s with the disk 100 % busy ⇒ 0.2 ms each.
    #[test]
    fn friedman_5000_reads_at_full_busy_is_0_2_ms() {
        let s = utilization_law_ms(1.0, 5000.0).unwrap();
        assert!(close(s, 0.2, 1e-12), "{s}");
        assert_eq!(utilization_law_ms(0.5, 0.0), None);
    }

    /// 004: Wq = Ws·u/(1−u); at 50 % busy the queue time equals the service time, at 80 % it is
    /// four times it.
    #[test]
    fn friedman_mm1_queue_time() {
        assert!(close(mm1_queue_ms(0.2, 0.5).unwrap(), 0.2, 1e-12));
        assert!(close(mm1_queue_ms(5.0, 0.8).unwrap(), 20.0, 1e-9));
        assert_eq!(mm1_queue_ms(5.0, 0.0), Some(0.0));
        assert_eq!(mm1_queue_ms(5.0, 1.0), None);
    }

    /// 003: disks of a five-disk set busy 30, 33, 38, 0, 0 % ⇒ Avg. Disk Queue Length 1.01 ⇒
    /// about 20 % of the set's capacity, not 101 %.
    #[test]
    fn nt_five_disk_set() {
        let sum: f64 = [0.30, 0.33, 0.38, 0.0, 0.0].iter().sum();
        assert!(close(sum, 1.01, 1e-12));
        let used = set_capacity_used(sum, 5);
        assert!(close(used, 0.20, 0.005), "{used}");
    }

    /// 003: a three-disk set reading 66 % and 70 % of the time, one idle ⇒ 1.36 ⇒ about 45 %.
    #[test]
    fn nt_three_disk_set() {
        let sum = 0.66 + 0.70 + 0.0;
        assert!(close(sum, 1.36, 1e-12));
        let used = set_capacity_used(sum, 3);
        assert!(close(used, 0.45, 0.005), "{used}");
    }

    /// 003: 426.5 interrupts/s minus 100 clock interrupts ⇒ 76.5 % from the disk, and with
    /// 91.5 % of processor time in interrupts about 70 % of the processor.
    #[test]
    fn nt_interrupt_share() {
        let share = interrupt_share(426.5, 100.0);
        assert!(close(share * 100.0, 76.5, 0.1), "{share}");
        assert!(close(share * 91.5, 70.0, 0.1));
        assert_eq!(interrupt_share(0.0, 100.0), 0.0);
    }

    #[test]
    fn queue_time_is_clamped_and_littles_law_holds() {
        assert_eq!(queue_time_ms(1.0, 1.2), 0.0);
        assert!(close(queue_time_ms(3.0, 1.0), 2.0, 1e-12));
        // 32 in flight at 160 000 IOPS ⇒ 0.2 ms each.
        assert!(close(littles_law_ms(32.0, 160_000.0).unwrap(), 0.2, 1e-12));
        assert_eq!(littles_law_ms(1.0, 0.0), None);
    }
}
