//! The pacer: Linux pacing with TSO autosizing (`tcp_tso_autosize`, `sk_pacing_shift` = 10,
//! `tcp_min_tso_segs`). Segments leave in bursts of about 1 ms of data at the pacing rate (at
//! least the controller's minimum burst, at most 64), and a burst is followed by a gap so that
//! the average rate is the pacing rate.
//!
//! Pacing single segments instead makes competing ABC flows' marks nearly random and their
//! windows wander far from the fair share (measured: Jain index 0.63–0.93 instead of ≥ 0.98 in
//! the ABC paper's Fig. 3).

use crate::time::{Dur, Time};

/// Largest burst (Linux caps TSO autosizing at 64 segments here).
const MAX_BURST: f64 = 64.0;

/// Burst pacing state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pacer {
    /// Earliest time the next segment may leave.
    next_send: Time,
    /// Segments left in the current burst.
    burst_left: u32,
    /// Segments sent in the current burst.
    burst_sent: u32,
    /// When the current burst started.
    burst_start: Time,
    /// Pacing rate (bytes/s) and segment size of the current burst.
    rate_size: (f64, u32),
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            next_send: Time::ZERO,
            burst_left: 0,
            burst_sent: 0,
            burst_start: Time::ZERO,
            rate_size: (1.0, 0),
        }
    }
}

impl Pacer {
    /// Earliest time the next segment may leave.
    pub(crate) fn next_send(&self) -> Time {
        self.next_send
    }

    /// Allow sending from `now` on (start of the flow, RTO).
    pub(crate) fn release_at(&mut self, now: Time) {
        self.next_send = now;
    }

    /// A segment of `size` bytes was sent at `now`; `rate` is the controller's pacing rate in
    /// bytes per second (`None`: unpaced) and `min_burst` its smallest burst.
    pub(crate) fn on_sent(&mut self, now: Time, size: u32, rate: Option<f64>, min_burst: u32) {
        let Some(rate) = rate.filter(|r| *r > 0.0 && r.is_finite()) else {
            self.burst_left = 0;
            self.burst_sent = 0;
            return;
        };
        let min_burst = min_burst.clamp(1, 64) as f64;
        let q = ((rate / 1024.0) / size as f64).floor().clamp(min_burst, MAX_BURST) as u32;
        if self.burst_left == 0 {
            self.burst_left = q;
            self.burst_sent = 0;
            self.burst_start = now;
        }
        self.burst_left -= 1;
        self.burst_sent += 1;
        self.rate_size = (rate, size);
        if self.burst_left == 0 {
            self.end_burst();
        }
    }

    /// Close the current burst (full, or cut short by the window or the application, as a TSO skb
    /// with fewer segments): the next one may leave `sent × size / rate` after it began.
    pub(crate) fn end_burst(&mut self) {
        if self.burst_sent > 0 {
            let (rate, size) = self.rate_size;
            self.next_send = self.burst_start + Dur::from_secs_f64(self.burst_sent as f64 * size as f64 / rate);
        }
        self.burst_left = 0;
        self.burst_sent = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::PACING_MIN_BURST;

    #[test]
    fn unpaced_segments_never_wait() {
        let mut p = Pacer::default();
        for _ in 0..10 {
            p.on_sent(Time::ZERO, 1500, None, PACING_MIN_BURST);
        }
        p.end_burst();
        assert_eq!(p.next_send(), Time::ZERO);
    }

    #[test]
    fn bursts_are_about_one_millisecond_of_data_then_a_gap() {
        let mut p = Pacer::default();
        // 15 MB/s: 1 ms ≈ 14.6 kB ≈ 9 segments of 1500 B.
        let rate = 15e6;
        for i in 0..9 {
            assert_eq!(p.next_send(), Time::ZERO, "segment {i} is in the first burst");
            p.on_sent(Time::ZERO, 1500, Some(rate), PACING_MIN_BURST);
        }
        let gap = p.next_send() - Time::ZERO;
        assert!((gap.secs_f64() - 9.0 * 1500.0 / rate).abs() < 1e-9, "{gap}");
    }

    #[test]
    fn a_burst_cut_short_spaces_only_what_was_sent() {
        let mut p = Pacer::default();
        let rate = 300e3; // Slow: the minimum burst of 2 applies.
        p.on_sent(Time::ZERO, 1500, Some(rate), PACING_MIN_BURST);
        assert_eq!(p.next_send(), Time::ZERO, "one more may follow");
        p.end_burst();
        assert!((p.next_send().secs_f64() - 1500.0 / rate).abs() < 1e-9);
        // A minimum burst of 1 spaces every segment.
        let mut p = Pacer::default();
        p.on_sent(Time::ZERO, 1500, Some(rate), 1);
        assert!(p.next_send() > Time::ZERO);
    }

    #[test]
    fn bursts_are_capped_at_64_segments_and_so_is_the_minimum_burst() {
        // 1 GB/s: 1 ms is 651 segments of 1500 B, capped at 64, which are then spaced over
        // 64 · 1500 B / 1 GB/s = 96 µs.
        for (rate, min_burst, gap) in [(1e9, 2, Dur::from_micros(96)), (300e3, 500, Dur::from_millis(320))] {
            let mut p = Pacer::default();
            p.release_at(Time::from_millis(7));
            let t0 = Time::from_millis(7);
            for i in 0..64 {
                assert_eq!(p.next_send(), t0, "segment {i} of the burst at {rate} B/s");
                p.on_sent(t0, 1500, Some(rate), min_burst);
            }
            assert_eq!(p.next_send(), t0 + gap, "{rate} B/s");
            // Closing a burst that is already closed changes nothing.
            p.end_burst();
            assert_eq!(p.next_send(), t0 + gap);
        }
    }

    #[test]
    fn an_unpaced_or_invalid_rate_drops_the_burst_in_progress() {
        for bad in [None, Some(0.0), Some(-5.0), Some(f64::NAN)] {
            let mut p = Pacer::default();
            p.release_at(Time::from_millis(3));
            assert_eq!(p.next_send(), Time::from_millis(3));
            // The first of a burst of 9 (15 MB/s), then a segment without a usable rate.
            p.on_sent(Time::from_millis(3), 1500, Some(15e6), 2);
            p.on_sent(Time::from_millis(3), 1500, bad, 2);
            p.end_burst();
            assert_eq!(p.next_send(), Time::from_millis(3), "{bad:?}: nothing left to space");
        }
    }
}
