//! The delivery-rate sampler, after Linux `net/ipv4/tcp_rate.c` (and the IETF draft
//! "Delivery Rate Estimation", draft-cheng-iccrg-delivery-rate-estimation).
//!
//! Each transmitted segment records a [`TxRecord`]: how much the connection had delivered when it
//! was sent, when that count last grew, when its send interval began and whether the application
//! limited the sender. When segments are delivered, the most recently sent one gives the sample:
//! segments delivered since it was sent, over the longer of its send and ACK intervals.

use crate::cc::RateSample;
use crate::packet::MSS;
use crate::time::{Dur, Time};

/// Rate-sample bookkeeping of one transmitted segment (`tx.delivered`, `tx.delivered_mstamp`,
/// `tx.first_tx_mstamp`, `tx.is_app_limited` in Linux's `tcp_skb_cb`).
#[derive(Clone, Copy, Debug, Default)]
///
/// Kept small (32 bytes with the scoreboard's flags, see `scoreboard::Seg`): a sender holds one
/// per segment in flight, thousands at a BDP of 1 Gbit/s × 100 ms, and reads each back once when
/// it is delivered, so its size is cache traffic on every data packet.
pub(crate) struct TxRecord {
    /// Last (re)transmission time.
    pub(crate) sent: Time,
    /// When `delivered` last grew, as of its transmission.
    pub(crate) delivered_time: Time,
    /// Start of the send interval it belongs to.
    pub(crate) first_sent: Time,
    /// The low 32 bits of the connection's `delivered` count when it was sent. The full count is
    /// recovered exactly when the segment is delivered ([`RateSampler::on_delivered`]): fewer than
    /// 2^32 segments can be delivered while one is in flight (sequence numbers are 32-bit).
    pub(crate) delivered: u32,
    /// Sent while the application limited the sender.
    pub(crate) app_limited: bool,
}

/// The rate-sample candidate gathered while processing one ACK (Linux `struct rate_sample`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RateState {
    valid: bool,
    prior_delivered: u64,
    prior_time: Time,
    app_limited: bool,
    send_interval: Dur,
    sent: Time,
}

/// The connection-wide state of the sampler.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RateSampler {
    /// Segments delivered (acknowledged or SACKed) so far (Linux `tp->delivered`).
    delivered: u64,
    /// When `delivered` last grew (`delivered_mstamp`).
    delivered_time: Time,
    /// Send time of the most recently delivered segment's interval start (`first_tx_mstamp`).
    first_sent_time: Time,
    /// Non-zero while application-limited: `delivered + pipe` at that moment (`tp->app_limited`).
    app_limited_until: u64,
}

impl RateSampler {
    /// Segments delivered so far.
    pub(crate) fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The app-limited mark (0 when not application-limited).
    #[cfg(test)]
    pub(crate) fn app_limited_until(&self) -> u64 {
        self.app_limited_until
    }

    /// Linux `tcp_rate_skb_sent`: the record of a segment sent at `now`. A new send interval
    /// starts when nothing is outstanding (`packets_out` = 0).
    pub(crate) fn on_sent(&mut self, now: Time, nothing_outstanding: bool) -> TxRecord {
        if nothing_outstanding {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxRecord {
            app_limited: self.app_limited_until != 0,
            sent: now,
            // Truncated on purpose: see `TxRecord::delivered`.
            delivered: self.delivered as u32,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
        }
    }

    /// Linux `tcp_rate_check_app_limited`: the application, not the window, limits the sender
    /// with `pipe` segments in flight.
    pub(crate) fn mark_app_limited(&mut self, pipe: u32) {
        self.app_limited_until = (self.delivered + pipe as u64).max(1);
    }

    /// Linux `tcp_rate_skb_delivered`: count a newly delivered segment and keep the rate-sample
    /// information of the most recently sent one.
    pub(crate) fn on_delivered(&mut self, now: Time, seg: &TxRecord, rs: &mut RateState) {
        // `seg.delivered` holds the low 32 bits of the count at its transmission, at most 2^32 - 1
        // deliveries ago: the wrapping difference is the exact distance.
        let prior_delivered = self.delivered - u64::from((self.delivered as u32).wrapping_sub(seg.delivered));
        self.delivered += 1;
        self.delivered_time = now;
        if !rs.valid || seg.sent > rs.sent {
            *rs = RateState {
                valid: true,
                prior_delivered,
                prior_time: seg.delivered_time,
                app_limited: seg.app_limited,
                send_interval: seg.sent - seg.first_sent,
                sent: seg.sent,
            };
            self.first_sent_time = seg.sent;
        }
    }

    /// Linux `tcp_rate_gen`: the sample for this ACK, or `None` if it would be unreliable.
    pub(crate) fn sample(&mut self, now: Time, rs: &RateState, min_rtt: Option<Dur>) -> Option<RateSample> {
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        if !rs.valid {
            return None;
        }
        let delivered = self.delivered - rs.prior_delivered;
        let ack_interval = now.saturating_since(rs.prior_time);
        let interval = rs.send_interval.max(ack_interval);
        // An interval shorter than the minimum RTT means ACK compression: not a valid sample.
        if interval.0 == 0 || min_rtt.is_some_and(|m| interval < m) {
            return None;
        }
        Some(RateSample {
            delivery_rate: delivered as f64 * MSS as f64 / interval.secs_f64(),
            delivered,
            interval,
            prior_delivered: rs.prior_delivered,
            is_app_limited: rs.app_limited,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_uses_the_longer_of_send_and_ack_intervals() {
        let mut r = RateSampler::default();
        // Four segments sent 10 ms apart from t = 0.
        let tx: Vec<TxRecord> = (0..4).map(|i| r.on_sent(Time::from_millis(10 * i), i == 0)).collect();
        assert_eq!(tx[3].first_sent, Time::ZERO);
        // All four delivered at 100 ms: send interval 30 ms, ACK interval 100 ms.
        let mut rs = RateState::default();
        for t in &tx {
            r.on_delivered(Time::from_millis(100), t, &mut rs);
        }
        let s = r.sample(Time::from_millis(100), &rs, None).expect("a sample");
        assert_eq!(s.delivered, 4);
        assert_eq!(s.interval, Dur::from_millis(100));
        assert!((s.delivery_rate - 4.0 * MSS as f64 / 0.1).abs() < 1e-6);
        assert_eq!(r.delivered(), 4);
    }

    #[test]
    fn intervals_shorter_than_the_min_rtt_give_no_sample() {
        let mut r = RateSampler::default();
        let tx = r.on_sent(Time::ZERO, true);
        let mut rs = RateState::default();
        r.on_delivered(Time::from_millis(10), &tx, &mut rs);
        assert!(r
            .sample(Time::from_millis(10), &rs, Some(Dur::from_millis(20)))
            .is_none());
        assert!(r.sample(Time::from_millis(10), &RateState::default(), None).is_none());
    }

    #[test]
    fn app_limited_mark_lasts_until_the_marked_amount_is_delivered() {
        let mut r = RateSampler::default();
        r.mark_app_limited(2);
        assert_eq!(r.app_limited_until(), 2);
        let tx = r.on_sent(Time::ZERO, true);
        assert!(tx.app_limited);
        let mut rs = RateState::default();
        for _ in 0..2 {
            r.on_delivered(Time::from_millis(50), &tx, &mut rs);
        }
        r.sample(Time::from_millis(50), &rs, None);
        assert_eq!(r.app_limited_until(), 2, "not more than 2 delivered yet");
        r.on_delivered(Time::from_millis(60), &tx, &mut rs);
        let s = r.sample(Time::from_millis(60), &rs, None).expect("a sample");
        assert!(s.is_app_limited);
        assert_eq!(r.app_limited_until(), 0);
    }

    /// Hand-worked after Linux `tcp_rate.c`: each send records the delivered count and the
    /// interval start of the latest delivery; the sample comes from the most recently sent of
    /// the segments an ACK delivers, whatever their order.
    #[test]
    fn records_follow_the_latest_delivery_and_the_latest_sent_segment_gives_the_sample() {
        let ms = Time::from_millis;
        let mut r = RateSampler::default();
        let tx0 = r.on_sent(ms(0), true);
        let tx1 = r.on_sent(ms(10), false);
        let mut rs = RateState::default();
        r.on_delivered(ms(40), &tx0, &mut rs);
        let tx2 = r.on_sent(ms(45), false);
        assert_eq!((tx2.delivered, tx2.delivered_time, tx2.first_sent), (1, ms(40), ms(0)));
        r.on_delivered(ms(50), &tx1, &mut rs);
        let tx3 = r.on_sent(ms(55), false);
        assert_eq!((tx3.delivered, tx3.delivered_time, tx3.first_sent), (2, ms(50), ms(10)));
        assert!(!tx3.app_limited);
        // Both delivered by one ACK at 100 ms, the later-sent one first.
        let mut rs = RateState::default();
        r.on_delivered(ms(100), &tx3, &mut rs);
        r.on_delivered(ms(100), &tx2, &mut rs);
        let s = r.sample(ms(100), &rs, Some(Dur::from_millis(50))).expect("a sample");
        // From tx3: 4 − 2 delivered over max(55 − 10, 100 − 50) = 50 ms (= min RTT: valid).
        assert_eq!(
            (s.delivered, s.interval, s.prior_delivered),
            (2, Dur::from_millis(50), 2)
        );
        assert!((s.delivery_rate - 2.0 * MSS as f64 / 0.05).abs() < 1e-6);
        assert!(!s.is_app_limited);
    }

    #[test]
    fn a_first_segment_sent_at_time_zero_gives_a_sample_and_a_zero_interval_none() {
        let mut r = RateSampler::default();
        let tx = r.on_sent(Time::ZERO, true);
        let mut rs = RateState::default();
        r.on_delivered(Time::from_millis(50), &tx, &mut rs);
        let s = r.sample(Time::from_millis(50), &rs, None).expect("a sample");
        assert_eq!((s.delivered, s.interval), (1, Dur::from_millis(50)));
        // Sent and delivered at the same instant: no interval, no sample.
        let mut r = RateSampler::default();
        let tx = r.on_sent(Time::from_millis(10), true);
        let mut rs = RateState::default();
        r.on_delivered(Time::from_millis(10), &tx, &mut rs);
        assert!(r.sample(Time::from_millis(10), &rs, None).is_none());
    }

    #[test]
    fn app_limited_mark_is_delivered_plus_pipe_and_never_zero() {
        let mut r = RateSampler::default();
        r.mark_app_limited(0);
        assert_eq!(r.app_limited_until(), 1);
        let tx = r.on_sent(Time::ZERO, true);
        let mut rs = RateState::default();
        for _ in 0..3 {
            r.on_delivered(Time::from_millis(5), &tx, &mut rs);
        }
        r.mark_app_limited(2);
        assert_eq!(r.app_limited_until(), 5);
    }

    /// A record keeps only the low 32 bits of `delivered`: the count at its transmission is
    /// recovered exactly across a 2^32 boundary, and far from one (a record sent before the
    /// count passed 2^32 and delivered after it).
    #[test]
    fn prior_delivered_is_recovered_exactly_across_the_32_bit_boundary() {
        for start in [0, u64::from(u32::MAX) - 2, 5 * (1u64 << 32) + 7] {
            let mut r = RateSampler {
                delivered: start,
                ..RateSampler::default()
            };
            let tx = r.on_sent(Time::ZERO, true);
            let others: Vec<TxRecord> = (1..=5).map(|i| r.on_sent(Time::from_millis(i), false)).collect();
            let mut rs = RateState::default();
            for o in &others {
                r.on_delivered(Time::from_millis(100), o, &mut rs);
            }
            // The earliest-sent record is delivered last and so is not the newest: a fresh state.
            let mut rs = RateState::default();
            r.on_delivered(Time::from_millis(200), &tx, &mut rs);
            assert_eq!(rs.prior_delivered, start, "start {start}");
            assert_eq!(r.delivered(), start + 6);
            let s = r.sample(Time::from_millis(200), &rs, None).expect("a sample");
            assert_eq!(s.delivered, 6, "start {start}");
        }
    }
}
