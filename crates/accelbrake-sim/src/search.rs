//! Searches of sorted sequences that start at the end where the answer usually is.
//!
//! The SACK bookkeeping (the sender's SACKed ranges, the receiver's out-of-order blocks) is a
//! sorted list that a recovery at 1 Gbit/s × 100 ms fills with hundreds of entries, searched on
//! every ACK and every out-of-order segment; the entry wanted is nearly always the highest (the
//! newest data) or the lowest (the cumulative ACK). A galloping search from that end (probes at
//! distance 1, 2, 4, … then a binary search of the last interval) costs O(log k) for an answer
//! k entries from the end, instead of O(log n). The result is exactly
//! `slice::partition_point`'s.

/// First index in `lo..hi` at which `pred` is false, given that it is true before `lo` and false
/// from `hi` on.
#[inline]
fn bisect(mut lo: usize, mut hi: usize, pred: &impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `partition_point` of the indices `0..len` (`pred` true on a prefix, false after), galloping
/// from the back: cheap when the answer is near `len`.
#[inline]
pub(crate) fn partition_point_from_back(len: usize, pred: impl Fn(usize) -> bool) -> usize {
    // Every index at or above `hi` is known to be false.
    let mut hi = len;
    let mut step = 1;
    while hi > 0 {
        let probe = hi.saturating_sub(step);
        if pred(probe) {
            return bisect(probe + 1, hi, &pred);
        }
        hi = probe;
        step *= 2;
    }
    0
}

/// `partition_point` of the indices `0..len`, galloping from the front: cheap when the answer is
/// near 0.
#[inline]
pub(crate) fn partition_point_from_front(len: usize, pred: impl Fn(usize) -> bool) -> usize {
    // Every index below `lo` is known to be true.
    let mut lo = 0;
    let mut step = 1;
    while lo < len {
        let probe = (lo + step - 1).min(len - 1);
        if !pred(probe) {
            return bisect(lo, probe, &pred);
        }
        lo = probe + 1;
        step *= 2;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same answer as `slice::partition_point` for every length up to 70 and every split point,
    /// from both ends.
    #[test]
    fn galloping_searches_agree_with_partition_point() {
        for len in 0..70usize {
            let v: Vec<usize> = (0..len).map(|i| 3 * i + 1).collect();
            for x in 0..=3 * len + 2 {
                let want = v.partition_point(|&e| e < x);
                assert_eq!(
                    partition_point_from_back(len, |i| v[i] < x),
                    want,
                    "back len {len} x {x}"
                );
                assert_eq!(
                    partition_point_from_front(len, |i| v[i] < x),
                    want,
                    "front len {len} x {x}"
                );
            }
        }
    }

    /// The number of probes grows with the distance of the answer from the searched end, not
    /// with the length.
    #[test]
    fn an_answer_at_the_searched_end_takes_one_probe() {
        let probes = std::cell::Cell::new(0);
        let len = 1 << 20;
        assert_eq!(
            partition_point_from_back(len, |_| {
                probes.set(probes.get() + 1);
                true
            }),
            len
        );
        assert_eq!(probes.get(), 1);
        probes.set(0);
        assert_eq!(
            partition_point_from_front(len, |_| {
                probes.set(probes.get() + 1);
                false
            }),
            0
        );
        assert_eq!(probes.get(), 1);
        // Ten from the back: probes at 1, 2, 4, 8, 16 from the end, then a bisection of 8.
        probes.set(0);
        let at = len - 10;
        assert_eq!(
            partition_point_from_back(len, |i| {
                probes.set(probes.get() + 1);
                i < at
            }),
            at
        );
        assert!(probes.get() <= 9, "{} probes", probes.get());
    }
}
