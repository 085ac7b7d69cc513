//! The sender's RTT estimator: RFC 6298 smoothed RTT, RTT variance and retransmission timeout,
//! with Linux's bounds (`TCP_RTO_MIN` = 200 ms, `TCP_RTO_MAX` = 120 s), the exponential backoff of
//! RFC 6298 §5.5, and the minimum and latest RTT samples.
//!
//! Sources: RFC 6298 §2.2–2.3 (the estimator), §5.5 (backoff); Linux `tcp_rtt_estimator`,
//! `include/net/tcp.h` (`TCP_RTO_MIN`, `TCP_RTO_MAX`).
//!
//! With [`RttEstimator::set_linux`] (the schemes' `linux_rto` parameter, off by default) the RTO is
//! Linux's instead (`net/ipv4/tcp_input.c` `tcp_rtt_estimator`, `include/net/tcp.h`
//! `__tcp_set_rto`, `tcp_bound_rto`), which differs from RFC 6298 in three ways that matter on a
//! path whose queueing delay swings (a cellular trace):
//! - the 200-ms minimum bounds the *variation term*, not the RTO: RTO = SRTT + max(var, 200 ms),
//!   where RFC 6298 (and the default here) has max(SRTT + 4·RTTVAR, 200 ms). With a smooth RTT of
//!   400 ms Linux's RTO is ≥ 600 ms, RFC 6298's can be 420 ms;
//! - the variation term is the largest `mdev` (4 × mean deviation) seen over the last window of
//!   data (`mdev_max`, reset when `snd_una` passes the `snd_nxt` of the previous reset), and the
//!   term falls towards it by only 1/4 per window (`rttvar_us`);
//! - a sample *below* SRTT by more than the mean deviation moves `mdev` with gain 1/32 instead of
//!   1/4 (the Eifel-like rule), so an RTT that falls does not inflate the RTO.
//!
//! The first sample gives RTO = SRTT + max(2·RTT, 200 ms) (Linux: "make sure rto = 3*rtt").
//! Deviation: nanoseconds where Linux keeps microseconds (and rounds the RTO up to a jiffy).

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
    /// Linux's variation state when [`RttEstimator::set_linux`] is on.
    linux: Option<LinuxVar>,
}

/// Linux's RTT state (`struct tcp_sock`), in ns: `srtt8` is `srtt_us` (8 × SRTT; 0 before the
/// first sample), `mdev` is `mdev_us` (4 × the mean deviation), `mdev_max` its largest value this window, `rttvar` the RTO's variation term
/// (`rttvar_us`), `rtt_seq` the `snd_nxt` when the window began.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxVar {
    srtt8: i64,
    mdev: i64,
    mdev_max: i64,
    rttvar: i64,
    rtt_seq: u32,
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
            linux: None,
        }
    }
}

impl RttEstimator {
    /// Compute the RTO as Linux does (see the module's documentation) instead of RFC 6298's.
    pub(crate) fn set_linux(&mut self, on: bool) {
        self.linux = on.then(LinuxVar::default);
    }

    /// Whether the RTO is Linux's ([`RttEstimator::set_linux`]).
    pub(crate) fn is_linux(&self) -> bool {
        self.linux.is_some()
    }

    /// Take an RTT sample from an ACK that left the cumulative ACK at `snd_una`, with `snd_nxt` the
    /// next new segment (segment numbers; only Linux's estimator uses them).
    pub(crate) fn sample_at(&mut self, rtt: Dur, snd_una: u32, snd_nxt: u32) {
        match self.linux {
            Some(v) => self.sample_linux(v, rtt, snd_una, snd_nxt),
            None => self.sample(rtt),
        }
    }

    /// Linux `tcp_rtt_estimator` then `tcp_set_rto` (`__tcp_set_rto` + `tcp_bound_rto`), with
    /// Linux's scaling: `srtt8` is 8 × SRTT, `mdev` 4 × the mean deviation.
    fn sample_linux(&mut self, mut v: LinuxVar, rtt: Dur, snd_una: u32, snd_nxt: u32) {
        self.latest_rtt = Some(rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        let rto_min = RTO_MIN.0 as i64;
        let mut m = rtt.0 as i64;
        if v.srtt8 != 0 {
            m -= v.srtt8 >> 3; // m is now the error of the estimate
            v.srtt8 += m; // srtt = 7/8 srtt + 1/8 rtt
            if m < 0 {
                m = -m - (v.mdev >> 2);
                if m > 0 {
                    m >>= 3; // a falling RTT: gain 1/32 (Linux's Eifel-like rule)
                }
            } else {
                m -= v.mdev >> 2;
            }
            v.mdev += m; // mdev = 3/4 mdev + |error|
            if v.mdev > v.mdev_max {
                v.mdev_max = v.mdev;
                v.rttvar = v.rttvar.max(v.mdev_max);
            }
            if snd_una > v.rtt_seq {
                // A window of data acknowledged since the last reset: the term decays by 1/4
                // towards this window's largest mdev, which starts over at the RTO minimum.
                if v.mdev_max < v.rttvar {
                    v.rttvar -= (v.rttvar - v.mdev_max) >> 2;
                }
                v.rtt_seq = snd_nxt;
                v.mdev_max = rto_min;
            }
        } else {
            v.srtt8 = m << 3;
            v.mdev = m << 1; // "make sure rto = 3*rtt"
            v.rttvar = v.mdev.max(rto_min);
            v.mdev_max = v.rttvar;
            v.rtt_seq = snd_nxt;
        }
        v.srtt8 = v.srtt8.max(1);
        let srtt = v.srtt8 >> 3;
        self.srtt = Some(Dur(srtt as u64));
        // Not used for the RTO here; kept as Linux reports it (tcpi_rttvar = mdev / 4).
        self.rttvar = Dur((v.mdev >> 2).max(0) as u64);
        self.rto = Dur((srtt + v.rttvar) as u64).min(RTO_MAX);
        self.linux = Some(v);
    }

    /// Take an RTT sample (RFC 6298).
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
    fn linux_rto_floors_the_variation_term_not_the_rto_worked_by_hand() {
        // tcp_rtt_estimator by hand, ms. Segments: snd_una / snd_nxt per sample.
        let mut r = RttEstimator::default();
        r.set_linux(true);
        // First sample 400: mdev = 800, rttvar = max(800, 200) = 800, RTO = 400 + 800 = 1200
        // (= 3 × RTT); the window ends when snd_una passes 10.
        r.sample_at(Dur::from_millis(400), 1, 10);
        assert_eq!(r.rto(), Dur::from_millis(1200));
        // 400 again, snd_una 11 > 10: m = 0 − 800/4 = −200 → mdev 600; mdev_max stays 800, no
        // rise; a new window: rttvar −= (800 − 800)/4 = 800; mdev_max = 200, rtt_seq = 20.
        r.sample_at(Dur::from_millis(400), 11, 20);
        assert_eq!(r.rto(), Dur::from_millis(1200));
        // 400 at snd_una 21: mdev 600 → 450, and > mdev_max 200: mdev_max = 450 (rttvar stays
        // 800); a new window: rttvar −= (800 − 450)/4 → 712.5; mdev_max = 200.
        r.sample_at(Dur::from_millis(400), 21, 30);
        assert_eq!(r.rto(), Dur::from_micros(400_000 + 712_500));
        // Many windows of a steady 400 ms: mdev → 0, so every window's mdev_max is the 200-ms
        // floor and rttvar decays to it: RTO → 400 + 200 = 600 ms. RFC 6298 would give
        // max(400 + 4·0, 200) = 400 ms.
        for w in 3..200u32 {
            r.sample_at(Dur::from_millis(400), w * 10 + 1, w * 10 + 10);
        }
        let rto = r.rto();
        assert!(
            rto >= Dur::from_millis(600) && rto < Dur::from_micros(600_010),
            "{rto:?}"
        );
        let mut rfc = RttEstimator::default();
        for _ in 0..200 {
            rfc.sample(Dur::from_millis(400));
        }
        assert!(rfc.rto() < Dur::from_micros(400_010), "{:?}", rfc.rto());
    }

    #[test]
    fn linux_rto_window_ends_only_once_snd_una_is_past_rtt_seq_worked_by_hand() {
        // Linux: `after(tp->snd_una, tp->rtt_seq)`, strictly. ms; RTO = SRTT + rttvar.
        let ms = Dur::from_micros;
        let mut r = RttEstimator::default();
        r.set_linux(true);
        // 400: mdev 800, rttvar 800, mdev_max 800, rtt_seq 10; tcpi_rttvar = mdev/4 = 200.
        r.sample_at(Dur::from_millis(400), 1, 10);
        assert_eq!((r.rto(), r.rttvar), (Dur::from_millis(1200), Dur::from_millis(200)));
        // snd_una 10 is not past rtt_seq 10: mdev 800 − 200 = 600, no new window.
        r.sample_at(Dur::from_millis(400), 10, 20);
        assert_eq!((r.rto(), r.rttvar), (Dur::from_millis(1200), Dur::from_millis(150)));
        // snd_una 11: mdev 600 − 150 = 450; a new window: rttvar stays 800 (mdev_max 800),
        // mdev_max = 200, rtt_seq = 30.
        r.sample_at(Dur::from_millis(400), 11, 30);
        assert_eq!(r.rto(), Dur::from_millis(1200));
        // snd_una 31: mdev 450 − 112.5 = 337.5 > mdev_max 200 → mdev_max 337.5; a new window:
        // rttvar −= (800 − 337.5)/4 → 684.375. (Had snd_una 10 started a window, mdev_max would
        // have been 450 here and rttvar 712.5.)
        r.sample_at(Dur::from_millis(400), 31, 40);
        assert_eq!(r.rto(), ms(400_000 + 684_375));
        assert_eq!(r.rttvar, ms(84_375));
    }

    #[test]
    fn linux_rto_a_falling_rtt_moves_mdev_by_one_thirty_second() {
        let mut r = RttEstimator::default();
        r.set_linux(true);
        r.sample_at(Dur::from_millis(400), 1, 10); // mdev 800
        r.sample_at(Dur::from_millis(400), 1, 10); // mdev 600, same window
                                                   // 80 ms (320 below SRTT 400): m = 320 − 600/4 = 170 > 0 → 170/8 = 21.25 → mdev 621.25;
                                                   // SRTT = 400 − 320/8 = 360. mdev_max was 800 (first sample), rttvar 800: RTO 1160.
                                                   // (RFC 6298's gain 1/4 would move its deviation by 80, not 21.25.)
        r.sample_at(Dur::from_millis(80), 1, 10);
        assert_eq!(r.srtt(), Some(Dur::from_millis(360)));
        assert_eq!(r.linux.unwrap().mdev, 621_250_000);
        assert_eq!(r.rto(), Dur::from_millis(1160));
        // A rise (720 vs SRTT 360, error 360): full gain, m = 360 − 621.25/4 = 204.6875 → mdev
        // 825.9375 > mdev_max 800 and > rttvar 800: rttvar = 825.9375; SRTT = 360 + 360/8 = 405;
        // RTO = 1230.9375.
        r.sample_at(Dur::from_millis(720), 1, 10);
        assert_eq!(r.srtt(), Some(Dur::from_millis(405)));
        assert_eq!(r.rto(), Dur::from_nanos(405_000_000 + 825_937_500));
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
