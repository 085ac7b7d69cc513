//! Base-delay history (RFC 6817 §2.4.2 `update_base_delay`, `BASE_HISTORY`): the minimum delay
//! seen over the recent past, kept as per-bucket minima so that an old minimum ages out (a route
//! change, a risen base delay) while a momentary queue never raises the base.
//!
//! Used by LEDBAT ([`crate::cc::ledbat`]: RFC 6817 one-minute buckets aligned to
//! `round_to_minute`, i.e. to multiples of the bucket length) and PropRate
//! ([`crate::cc::proprate`]: buckets of `history / 10` started by the first sample after the
//! previous bucket ran out).

use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Where bucket boundaries lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucketing {
    /// At multiples of the bucket length since time zero (RFC 6817 `round_to_minute(now) !=
    /// round_to_minute(last_rollover)` starts a new bucket).
    Aligned,
    /// A bucket starts with the first sample at least one bucket length after the previous
    /// bucket's start.
    FromFirstSample,
}

/// Minima over the last `max_buckets` buckets of `bucket_len`, oldest first.
#[derive(Clone, Debug)]
pub struct BaseDelayHistory {
    /// (time the bucket began, its minimum).
    buckets: VecDeque<(Time, Dur)>,
    bucket_len: Dur,
    max_buckets: usize,
    bucketing: Bucketing,
}

impl BaseDelayHistory {
    /// An empty history of `max_buckets` buckets of `bucket_len` (at least 1 ns).
    pub fn new(bucket_len: Dur, max_buckets: usize, bucketing: Bucketing) -> BaseDelayHistory {
        BaseDelayHistory {
            buckets: VecDeque::new(),
            bucket_len: bucket_len.max(Dur::from_nanos(1)),
            max_buckets,
            bucketing,
        }
    }

    /// Whether `now` still falls in the bucket that began at `start`.
    fn same_bucket(&self, start: Time, now: Time) -> bool {
        match self.bucketing {
            Bucketing::Aligned => start.nanos() / self.bucket_len.nanos() == now.nanos() / self.bucket_len.nanos(),
            Bucketing::FromFirstSample => now.saturating_since(start) < self.bucket_len,
        }
    }

    /// RFC 6817 `update_base_delay`: lower the current bucket's minimum, or start a new bucket
    /// (dropping the oldest beyond `max_buckets`).
    pub fn update(&mut self, now: Time, delay: Dur) {
        match self.buckets.back() {
            Some(&(start, min)) if self.same_bucket(start, now) => {
                if let Some(b) = self.buckets.back_mut() {
                    b.1 = min.min(delay);
                }
            }
            _ => {
                self.buckets.push_back((now, delay));
                while self.buckets.len() > self.max_buckets {
                    self.buckets.pop_front();
                }
            }
        }
    }

    /// The base delay: the minimum over the buckets, `None` before the first sample.
    pub fn min(&self) -> Option<Dur> {
        self.buckets.iter().map(|b| b.1).min()
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.buckets.clear();
    }

    /// Forget everything but `delay`, measured at `now`.
    pub fn reset(&mut self, now: Time, delay: Dur) {
        self.buckets.clear();
        self.buckets.push_back((now, delay));
    }

    /// Number of buckets held.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether no sample is held.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Dur {
        Dur::from_millis(v)
    }

    #[test]
    fn aligned_buckets_roll_over_at_multiples_of_the_length() {
        let mut h = BaseDelayHistory::new(Dur::from_secs(60), 3, Bucketing::Aligned);
        assert_eq!(h.min(), None);
        h.update(Time::from_secs(59), ms(40));
        h.update(Time::from_secs(60), ms(50)); // a new minute, 1 s later
        assert_eq!(h.len(), 2);
        h.update(Time::from_secs(119), ms(45)); // same minute: lowers it
        assert_eq!(h.len(), 2);
        h.update(Time::from_secs(120), ms(60));
        h.update(Time::from_secs(180), ms(70));
        assert_eq!(h.len(), 3, "at most three buckets");
        assert_eq!(h.min(), Some(ms(45)), "the 40 ms minute aged out");
    }

    #[test]
    fn sliding_buckets_start_at_the_first_sample() {
        let mut h = BaseDelayHistory::new(Dur::from_secs(60), 2, Bucketing::FromFirstSample);
        h.update(Time::from_secs(59), ms(40));
        h.update(Time::from_secs(60), ms(30)); // 1 s after the bucket began: same bucket
        assert_eq!((h.len(), h.min()), (1, Some(ms(30))));
        h.update(Time::from_secs(119), ms(50));
        h.update(Time::from_secs(179), ms(60));
        assert_eq!((h.len(), h.min()), (2, Some(ms(50))));
        h.reset(Time::from_secs(200), ms(80));
        assert_eq!((h.len(), h.min()), (1, Some(ms(80))));
        h.clear();
        assert!(h.is_empty());
    }

    #[test]
    fn a_history_with_a_sample_is_not_empty() {
        let mut h = BaseDelayHistory::new(Dur::from_secs(60), 2, Bucketing::Aligned);
        assert!(h.is_empty());
        h.update(Time::ZERO, ms(10));
        assert!(!h.is_empty());
        h.clear();
        assert!(h.is_empty());
        h.reset(Time::ZERO, ms(20));
        assert!(!h.is_empty());
    }
}
