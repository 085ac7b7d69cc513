//! The sender's RTT estimator: RFC 6298 smoothed RTT, RTT variance and retransmission timeout,
//! with Linux's bounds (`TCP_RTO_MIN` = 200 ms, `TCP_RTO_MAX` = 120 s), the exponential backoff of
//! RFC 6298 §5.5, and the minimum and latest RTT samples.
//!
//! Sources: RFC 6298 §2.2–2.3 (the estimator), §5.5 (backoff); Linux `tcp_rtt_estimator`,
//! `include/net/tcp.h` (`TCP_RTO_MIN`, `TCP_RTO_MAX`).

use crate::time::Dur;

/// Linux `TCP_RTO_MIN`.
pub const RTO_MIN: Dur = Dur::from_millis(200);
/// RFC 6298 §2.1 initial RTO.
pub const RTO_INITIAL: Dur = Dur::from_secs(1);
/// Linux `TCP_RTO_MAX`.
pub const RTO_MAX: Dur = Dur::from_secs(120);
/// Largest backoff multiplier.
const MAX_BACKOFF: u32 = 1 << 10;

/// RFC 6298 RTT and RTO state of one connection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    rto: Dur,
    backoff: u32,
    min_rtt: Option<Dur>,
    latest_rtt: Option<Dur>,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            rto: RTO_INITIAL,
            backoff: 1,
            min_rtt: None,
            latest_rtt: None,
        }
    }
}

impl RttEstimator {
    /// Take an RTT sample.
    pub(crate) fn sample(&mut self, rtt: Dur) {
        self.latest_rtt = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        // RFC 6298 §2.2–2.3.
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Dur(rtt.0 / 2);
            }
            Some(srtt) => {
                let diff = Dur(srtt.0.abs_diff(rtt.0));
                self.rttvar = Dur((3 * self.rttvar.0 + diff.0) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + rtt.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(rtt);
        self.rto = (srtt + self.rttvar.saturating_mul(4)).max(RTO_MIN).min(RTO_MAX);
    }

    /// Smoothed RTT (none before the first sample).
    pub(crate) fn srtt(&self) -> Option<Dur> {
        self.srtt
    }

    /// Smallest RTT sampled.
    pub(crate) fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// Most recent RTT sample.
    pub(crate) fn latest(&self) -> Option<Dur> {
        self.latest_rtt
    }

    /// The RTO without backoff.
    #[cfg(test)]
    pub(crate) fn rto(&self) -> Dur {
        self.rto
    }

    /// The RTO with the current backoff applied, capped at [`RTO_MAX`].
    pub(crate) fn backed_off_rto(&self) -> Dur {
        self.rto.saturating_mul(self.backoff as u64).min(RTO_MAX)
    }

    /// RFC 6298 §5.5: double the backoff after an expiry.
    pub(crate) fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }

    /// Forget the backoff (new data was acknowledged, or a spurious RTO was undone).
    pub(crate) fn reset_backoff(&mut self) {
        self.backoff = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut r = RttEstimator::default();
        assert_eq!(r.backed_off_rto(), RTO_INITIAL);
        r.sample(Dur::from_millis(100));
        assert_eq!(r.srtt(), Some(Dur::from_millis(100)));
        // RTO = SRTT + 4 · RTTVAR = 100 + 4 · 50.
        assert_eq!(r.rto(), Dur::from_millis(300));
    }

    #[test]
    fn later_samples_are_smoothed_with_one_eighth_and_one_quarter() {
        let mut r = RttEstimator::default();
        r.sample(Dur::from_millis(100));
        r.sample(Dur::from_millis(20));
        // RTTVAR = 3/4 · 50 + 1/4 · 80 = 57.5; SRTT = 7/8 · 100 + 1/8 · 20 = 90.
        assert_eq!(r.srtt(), Some(Dur::from_millis(90)));
        assert_eq!(r.rto(), Dur::from_millis(90 + 230));
        assert_eq!(r.min_rtt(), Some(Dur::from_millis(20)));
        assert_eq!(r.latest(), Some(Dur::from_millis(20)));
    }

    #[test]
    fn rto_is_bounded_below_by_the_linux_minimum() {
        let mut r = RttEstimator::default();
        for _ in 0..50 {
            r.sample(Dur::from_millis(10));
        }
        assert_eq!(r.rto(), RTO_MIN);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_rto() {
        let mut r = RttEstimator::default();
        r.sample(Dur::from_millis(100));
        r.back_off();
        assert_eq!(r.backed_off_rto(), Dur::from_millis(600));
        for _ in 0..20 {
            r.back_off();
        }
        assert_eq!(r.backed_off_rto(), RTO_MAX);
        r.reset_backoff();
        assert_eq!(r.backed_off_rto(), Dur::from_millis(300));
    }

    #[test]
    fn a_third_sample_and_the_upper_bound() {
        let mut r = RttEstimator::default();
        for ms in [100, 20, 130] {
            r.sample(Dur::from_millis(ms));
        }
        // RTTVAR = 3/4 · 57.5 + 1/4 · |90 − 130| = 53.125 ms; SRTT = 7/8 · 90 + 1/8 · 130 = 95 ms.
        assert_eq!(r.srtt(), Some(Dur::from_millis(95)));
        assert_eq!(r.rto(), Dur::from_micros(95_000 + 4 * 53_125));
        assert_eq!(r.min_rtt(), Some(Dur::from_millis(20)));
        assert_eq!(r.latest(), Some(Dur::from_millis(130)));
        // A 100 s sample: RTO = 100 + 4 · 50 = 300 s, capped at Linux's 120 s.
        let mut r = RttEstimator::default();
        r.sample(Dur::from_secs(100));
        assert_eq!(r.rto(), RTO_MAX);
        // The backoff stops doubling at 1024 (no overflow however many expiries).
        for _ in 0..40 {
            r.back_off();
        }
        assert_eq!(r.backoff, MAX_BACKOFF);
    }
}
