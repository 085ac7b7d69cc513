//! The SACK scoreboard of RFC 6675: per-segment SACKed / lost / retransmitted flags for the
//! outstanding segments `snd_una..snd_nxt`, the pipe estimate, and `IsLost` loss marking with
//! DupThresh = 3 (a segment is lost once three segments above it are SACKed).
//!
//! Each entry also holds the segment's delivery-rate record ([`TxRecord`], Linux `tcp_rate.c`),
//! handed to a callback when the segment is delivered.

use super::rate::TxRecord;
use crate::search::{partition_point_from_back, partition_point_from_front};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// RFC 6675 DupThresh.
pub(crate) const DUP_THRESH: usize = 3;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4;

/// Per-segment scoreboard entry: RFC 6675 state flags and the rate-sample record, flattened so
/// that the flags share the record's padding: 32 bytes, two entries to a cache line (it was 48:
/// a flag byte padded to 8 in front of a 40-byte record). An entry is written when its segment is
/// sent and read back when it is delivered, thousands of segments later at 1 Gbit/s × 100 ms, so
/// both are cache misses and the entry's size is their number.
#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    sent: Time,
    delivered_time: Time,
    first_sent: Time,
    delivered: u32,
    app_limited: bool,
    flags: u8,
}

impl Seg {
    #[inline]
    fn new(flags: u8, tx: TxRecord) -> Seg {
        Seg {
            sent: tx.sent,
            delivered_time: tx.delivered_time,
            first_sent: tx.first_sent,
            delivered: tx.delivered,
            app_limited: tx.app_limited,
            flags,
        }
    }

    /// The segment's rate-sample record.
    #[inline]
    fn tx(&self) -> TxRecord {
        TxRecord {
            sent: self.sent,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent,
            delivered: self.delivered,
            app_limited: self.app_limited,
        }
    }
}

/// RFC 6675 `pipe` membership: not SACKed, and not lost unless retransmitted.
fn in_pipe(flags: u8) -> bool {
    flags & SACKED == 0 && (flags & LOST == 0 || flags & RETRANS != 0)
}

/// The scoreboard of one sender.
#[derive(Debug, Default)]
pub(crate) struct Scoreboard {
    snd_una: u32,
    snd_nxt: u32,
    /// Entries for segments `snd_una..snd_nxt`.
    segs: VecDeque<Seg>,
    pipe: u32,
    /// The three highest SACKed segments, highest first.
    top_sacked: [Option<u32>; DUP_THRESH],
    /// Segments below this were checked by loss marking.
    lost_upto: u32,
    /// Lowest segment that may need a retransmission.
    retx_cursor: u32,
    /// Lost segments not yet retransmitted.
    lost_pending: u32,
    /// SACKed segments as sorted, disjoint, non-adjacent half-open ranges (those wholly below
    /// `snd_una` are pruned on cumulative ACKs). A receiver repeats its SACK blocks on every ACK,
    /// each one a little longer; this lets [`Scoreboard::sack`] visit only the segments it has not
    /// seen SACKed before, instead of every segment of every block (which made an ACK in a
    /// recovery with a window of thousands of segments cost thousands of steps). Exactly the set
    /// of segments `>= snd_una` whose flags hold `SACKED` (flags are never un-SACKed).
    sacked: Vec<(u32, u32)>,
    /// Detect lost retransmissions (RACK, see [`Scoreboard::mark_lost_retransmissions`]).
    rack: bool,
    /// With `rack`: each retransmission still to be judged, `(segment, its transmission time)`,
    /// in transmission order (so in time order). At most one entry per outstanding segment that
    /// was retransmitted since the last RTO, plus stale ones dropped as they reach the front.
    retx_times: VecDeque<(u32, Time)>,
}

impl Scoreboard {
    /// Give back spare heap capacity (contents unchanged).
    pub(crate) fn shrink(&mut self) {
        self.segs.shrink_to_fit();
        self.sacked.shrink_to_fit();
        self.retx_times.shrink_to_fit();
    }

    /// Heap capacity of the segment and SACK-range lists (tests of [`Scoreboard::shrink`]).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> (usize, usize) {
        (self.segs.capacity(), self.sacked.capacity())
    }

    /// Lowest unacknowledged segment.
    pub(crate) fn snd_una(&self) -> u32 {
        self.snd_una
    }

    /// Next new segment.
    pub(crate) fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }

    /// Segments in flight (RFC 6675 pipe).
    pub(crate) fn pipe(&self) -> u32 {
        self.pipe
    }

    /// Lost segments not yet retransmitted.
    pub(crate) fn lost_pending(&self) -> u32 {
        self.lost_pending
    }

    fn flags(&mut self, seq: u32) -> &mut u8 {
        &mut self.segs[(seq - self.snd_una) as usize].flags
    }

    fn set_flags(&mut self, seq: u32, new: u8) {
        let f = self.flags(seq);
        let old = *f;
        *f = new;
        match (in_pipe(old), in_pipe(new)) {
            (true, false) => self.pipe -= 1,
            (false, true) => self.pipe += 1,
            _ => {}
        }
    }

    /// A new segment (`snd_nxt`) was sent.
    pub(crate) fn push(&mut self, tx: TxRecord) {
        // Grow by half rather than double (10 flows at 1 Gbit/s overshoot to just past
        // 4 096 segments each in slow start; doubling kept 8 192 entries, 2.4 MB for the 10).
        if self.segs.len() == self.segs.capacity() {
            self.segs.reserve_exact((self.segs.capacity() / 2).max(4));
        }
        self.segs.push_back(Seg::new(0, tx));
        self.snd_nxt += 1;
        self.pipe += 1;
    }

    /// Turn lost-retransmission detection (RACK) on or off.
    pub(crate) fn set_rack(&mut self, on: bool) {
        self.rack = on;
        if !on {
            self.retx_times.clear();
        }
    }

    /// Lost segment `seq` was retransmitted with the rate record `tx`.
    pub(crate) fn retransmitted(&mut self, seq: u32, tx: TxRecord) {
        if self.rack {
            self.retx_times.push_back((seq, tx.sent));
        }
        let i = (seq - self.snd_una) as usize;
        let f = self.segs[i].flags;
        // Only `next_lost`'s answer is retransmitted: lost, not SACKed, not yet retransmitted
        // (a lost retransmission has its RETRANS bit cleared when it is marked lost again). So
        // the segment leaves the "lost" state for "retransmitted", which is in the pipe again.
        debug_assert!(
            f & LOST != 0 && f & (RETRANS | SACKED) == 0,
            "segment {seq} retransmitted with flags {f:#x}"
        );
        self.segs[i] = Seg::new(f | RETRANS, tx);
        self.pipe += 1;
        self.lost_pending -= 1;
        self.retx_cursor = seq + 1;
    }

    /// Lowest lost segment not yet retransmitted.
    pub(crate) fn next_lost(&mut self) -> Option<u32> {
        if self.lost_pending == 0 {
            return None;
        }
        let mut s = self.retx_cursor.max(self.snd_una);
        while s < self.snd_nxt {
            let f = self.segs[(s - self.snd_una) as usize].flags;
            if f & LOST != 0 && f & RETRANS == 0 && f & SACKED == 0 {
                self.retx_cursor = s;
                return Some(s);
            }
            s += 1;
        }
        // Counter drifted (segments acknowledged before retransmission): resynchronise.
        self.lost_pending = 0;
        None
    }

    /// The cumulative ACK moved to `cum` (at most `snd_nxt`): drop the entries below it.
    /// `delivered` is called, in order, with the record of each segment not SACKed before.
    /// Returns the number of such newly delivered segments.
    pub(crate) fn ack_cumulative(&mut self, cum: u32, mut delivered: impl FnMut(&TxRecord)) -> u32 {
        let mut acked = 0;
        while self.snd_una < cum {
            let seg = self.segs.pop_front().unwrap_or(Seg {
                flags: SACKED,
                ..Seg::default()
            });
            let f = seg.flags;
            if in_pipe(f) {
                self.pipe -= 1;
            }
            if f & SACKED == 0 {
                acked += 1;
                delivered(&seg.tx());
                if f & LOST != 0 && f & RETRANS == 0 {
                    self.lost_pending = self.lost_pending.saturating_sub(1);
                }
            }
            self.snd_una += 1;
        }
        let una = self.snd_una;
        let sacked = &self.sacked;
        let below = partition_point_from_front(sacked.len(), |i| sacked[i].1 <= una);
        if below > 0 {
            self.sacked.drain(..below);
        }
        acked
    }

    /// A SACK block `start..end` arrived: mark the segments in it SACKed, calling `delivered`
    /// with the record of each newly SACKed one, in increasing order. Returns their number.
    /// Segments already SACKed are skipped range by range (see `sacked`), so the cost is the
    /// number of newly SACKed segments plus the number of SACKed ranges, not the block's length.
    pub(crate) fn sack(&mut self, start: u32, end: u32, mut delivered: impl FnMut(&TxRecord)) -> u32 {
        let (start, end) = (start.max(self.snd_una), end.min(self.snd_nxt));
        if start >= end {
            return 0;
        }
        let mut acked = 0;
        // First known range that ends at or after `start` (ranges that merely touch it merge).
        // Both searches gallop from the highest range: blocks are nearly always at the top.
        let sacked = &self.sacked;
        let first = partition_point_from_back(sacked.len(), |i| sacked[i].1 < start);
        let mut s = start;
        let mut i = first;
        while s < end {
            // The gap [s, gap_end) holds no SACKed segment; the next range begins at gap_end.
            let gap_end = match self.sacked.get(i) {
                Some(&(rs, re)) if rs <= s => {
                    s = re;
                    i += 1;
                    continue;
                }
                Some(&(rs, _)) => rs.min(end),
                None => end,
            };
            for q in s..gap_end {
                let f = *self.flags(q);
                debug_assert_eq!(f & SACKED, 0, "segment {q} SACKed but not in the SACKed ranges");
                if f & LOST != 0 && f & RETRANS == 0 {
                    self.lost_pending = self.lost_pending.saturating_sub(1);
                }
                self.set_flags(q, f | SACKED);
                acked += 1;
                delivered(&self.segs[(q - self.snd_una) as usize].tx());
                self.note_sacked(q);
            }
            s = gap_end;
        }
        // Merge [start, end) with the ranges it overlaps or touches: ranges first..last.
        let sacked = &self.sacked;
        let last = partition_point_from_back(sacked.len(), |i| sacked[i].0 <= end);
        if first < last {
            let lo = self.sacked[first].0.min(start);
            let hi = self.sacked[last - 1].1.max(end);
            self.sacked[first] = (lo, hi);
            self.sacked.drain(first + 1..last);
        } else {
            self.sacked.insert(first, (start, end));
        }
        acked
    }

    fn note_sacked(&mut self, seq: u32) {
        // Keep the DupThresh highest SACKed segments.
        let mut v = seq;
        for slot in self.top_sacked.iter_mut() {
            match *slot {
                Some(s) if s >= v => {}
                Some(s) => {
                    *slot = Some(v);
                    v = s;
                }
                None => {
                    *slot = Some(v);
                    return;
                }
            }
        }
    }

    /// RFC 6675 loss marking: every segment below the DupThresh-th highest SACKed one that is
    /// neither SACKed nor already lost becomes lost. Returns the number newly marked.
    pub(crate) fn mark_lost(&mut self) -> u32 {
        let mut lost = 0u32;
        if let Some(threshold) = self.top_sacked[DUP_THRESH - 1] {
            let from = self.lost_upto.max(self.snd_una);
            for s in from..threshold.min(self.snd_nxt) {
                let f = *self.flags(s);
                if f & (SACKED | LOST) == 0 {
                    self.set_flags(s, f | LOST);
                    self.lost_pending += 1;
                    self.retx_cursor = self.retx_cursor.min(s);
                    lost += 1;
                }
            }
            self.lost_upto = self.lost_upto.max(threshold);
        }
        lost
    }

    /// RACK's detection of lost retransmissions (RFC 8985 §6.2, Linux `tcp_rack_detect_loss`):
    /// `newest` is the latest transmission time among the segments this ACK delivered; a
    /// retransmitted segment still neither SACKed nor acknowledged whose retransmission left more
    /// than `reo_wnd` before it is lost again (on this simulator's FIFO paths nothing is
    /// reordered, so a later transmission delivered first means a drop). It goes back to the
    /// lost-not-retransmitted state, to be retransmitted again. Returns the number newly marked.
    /// Only with `rack` on; RFC 6675 `IsLost` never re-marks a retransmitted segment.
    pub(crate) fn mark_lost_retransmissions(&mut self, newest: Time, reo_wnd: Dur) -> u32 {
        let mut lost = 0;
        while let Some(&(seq, sent)) = self.retx_times.front() {
            let stale = seq < self.snd_una || self.segs[(seq - self.snd_una) as usize].sent != sent;
            if !stale && sent + reo_wnd >= newest {
                break;
            }
            self.retx_times.pop_front();
            if stale {
                continue;
            }
            let f = *self.flags(seq);
            if f & SACKED == 0 && f & RETRANS != 0 {
                self.set_flags(seq, (f | LOST) & !RETRANS);
                self.lost_pending += 1;
                self.retx_cursor = self.retx_cursor.min(seq);
                lost += 1;
            }
        }
        lost
    }

    /// RTO expiry with RACK (Linux ≥ 4.18 `tcp_timeout_mark_lost`): the first outstanding
    /// segment and every unSACKed one sent at least `horizon` (RACK's RTT plus reordering window)
    /// before `now` are lost; the ones sent more recently stay in flight (Linux: "don't mark
    /// recently sent ones lost yet"), to be judged by SACKs, RACK or the next RTO.
    pub(crate) fn mark_timed_out_lost(&mut self, now: Time, horizon: Dur) {
        for s in self.snd_una..self.snd_nxt {
            let seg = self.segs[(s - self.snd_una) as usize];
            let f = seg.flags;
            if f & SACKED != 0 || (f & LOST != 0 && f & RETRANS == 0) {
                continue;
            }
            if s == self.snd_una || seg.sent + horizon <= now {
                self.set_flags(s, (f | LOST) & !RETRANS);
                self.lost_pending += 1;
            }
        }
        self.lost_upto = self.snd_una;
        self.retx_cursor = self.snd_una;
    }

    /// RTO expiry (RFC 6298 §5, RFC 6675 §5.1): every unSACKed outstanding segment is lost and
    /// retransmission restarts from `snd_una`.
    pub(crate) fn mark_all_lost(&mut self) {
        self.retx_times.clear();
        self.lost_pending = 0;
        for s in self.snd_una..self.snd_nxt {
            let f = *self.flags(s);
            if f & SACKED == 0 {
                self.set_flags(s, LOST);
                self.lost_pending += 1;
            }
        }
        self.lost_upto = self.snd_nxt;
        self.retx_cursor = self.snd_una;
    }

    /// A spurious RTO is undone: segments marked lost but not yet retransmitted are in flight
    /// again, and SACK-based loss detection looks at them again.
    pub(crate) fn undo_lost(&mut self) {
        for s in self.snd_una..self.snd_nxt {
            let f = *self.flags(s);
            if f & LOST != 0 && f & (RETRANS | SACKED) == 0 {
                self.set_flags(s, f & !LOST);
                self.lost_pending = self.lost_pending.saturating_sub(1);
            }
        }
        self.lost_upto = self.snd_una;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u32) -> Scoreboard {
        let mut b = Scoreboard::default();
        for _ in 0..n {
            b.push(TxRecord::default());
        }
        b
    }

    /// The entries grow by half, not by doubling: a window that just outgrows a power of two
    /// (10 flows at 1 Gbit/s overshooting in slow start) does not keep twice its room.
    #[test]
    fn the_scoreboard_grows_by_half() {
        let mut b = Scoreboard::default();
        let mut growths = 0;
        for n in 1..=10_000usize {
            let before = b.segs.capacity();
            b.push(TxRecord::default());
            growths += usize::from(b.segs.capacity() != before);
            assert!(
                b.segs.capacity() <= (n + n / 2).max(8),
                "{} entries kept for {n} segments",
                b.segs.capacity()
            );
        }
        // Geometric growth, so a push costs O(1) amortised: 4 · 1.5^k reaches 10 000 at k = 20.
        assert!(growths <= 22, "{growths} growths for 10 000 segments");
    }

    /// Entries are read back once per delivered segment, thousands of segments after they were
    /// written: two to a cache line.
    #[test]
    fn a_scoreboard_entry_is_32_bytes_and_keeps_its_record() {
        assert_eq!(std::mem::size_of::<Seg>(), 32);
        let tx = TxRecord {
            sent: Time(7),
            delivered_time: Time(5),
            first_sent: Time(3),
            delivered: u32::MAX,
            app_limited: true,
        };
        let s = Seg::new(SACKED | LOST, tx);
        let back = s.tx();
        assert_eq!(
            (
                back.sent,
                back.delivered_time,
                back.first_sent,
                back.delivered,
                back.app_limited,
                s.flags
            ),
            (Time(7), Time(5), Time(3), u32::MAX, true, SACKED | LOST)
        );
    }

    #[test]
    fn pipe_counts_outstanding_segments_not_sacked_or_lost() {
        let mut b = board(10);
        assert_eq!(b.pipe(), 10);
        assert_eq!(b.ack_cumulative(2, |_| {}), 2);
        assert_eq!(b.sack(3, 6, |_| {}), 3);
        assert_eq!(b.pipe(), 5);
        assert_eq!(b.sack(3, 6, |_| {}), 0, "SACKing again delivers nothing");
        // Cumulatively acknowledging SACKed segments delivers only the hole.
        let mut n = 0;
        assert_eq!(b.ack_cumulative(6, |_| n += 1), 1);
        assert_eq!(n, 1);
        assert_eq!(b.pipe(), 4);
    }

    fn at(ms: u64) -> TxRecord {
        TxRecord {
            sent: Time::from_millis(ms),
            ..TxRecord::default()
        }
    }

    #[test]
    fn rack_marks_a_retransmission_lost_once_a_later_one_is_delivered() {
        let mut b = board(10);
        b.set_rack(true);
        b.sack(3, 6, |_| {});
        assert_eq!(b.mark_lost(), 3, "0, 1, 2");
        b.retransmitted(0, at(100));
        b.retransmitted(1, at(110));
        b.retransmitted(2, at(120));
        assert_eq!((b.lost_pending(), b.pipe()), (0, 7));
        let reo = Dur::from_millis(5);
        // Delivered segments sent at 110 ms: only 0 (100 + 5 < 110) is lost again.
        assert_eq!(b.mark_lost_retransmissions(Time::from_millis(110), reo), 1);
        assert_eq!((b.lost_pending(), b.pipe()), (1, 6));
        assert_eq!(b.next_lost(), Some(0));
        // 1 is acknowledged meanwhile (stale), 2 is SACKed: neither is lost again.
        b.retransmitted(0, at(200));
        b.sack(2, 3, |_| {});
        b.ack_cumulative(2, |_| {});
        assert_eq!(b.mark_lost_retransmissions(Time::from_millis(300), reo), 0);
        assert_eq!(b.retx_times.len(), 0, "judged entries are dropped");
        // An RTO forgets pending retransmissions; RFC 6675 alone (rack off) records none.
        let mut c = board(4);
        c.set_rack(true);
        c.mark_all_lost();
        c.retransmitted(0, at(10));
        c.mark_all_lost();
        assert!(c.retx_times.is_empty());
        c.set_rack(false);
        c.retransmitted(1, at(20));
        assert_eq!(c.mark_lost_retransmissions(Time::from_millis(1000), reo), 0);
    }

    #[test]
    fn an_rto_with_rack_marks_only_the_head_and_the_segments_sent_long_enough_ago() {
        // Segments 0..6 sent at 0, 10, ..., 50 ms; 2 SACKed; 1 lost and retransmitted at 55 ms.
        let mut b = Scoreboard::default();
        b.set_rack(true);
        for i in 0..6 {
            b.push(at(10 * i));
        }
        b.sack(2, 3, |_| {});
        b.set_flags(1, LOST);
        b.lost_pending += 1;
        b.retransmitted(1, at(55));
        // RTO at 60 ms with a 25 ms horizon: 0 (the head) and 3 (sent at 30) are lost; 1 (sent
        // again at 55), 4 and 5 (40, 50) stay in flight; 2 is SACKed.
        b.mark_timed_out_lost(Time::from_millis(60), Dur::from_millis(25));
        let lost: Vec<u32> = (0..6).filter(|&s| b.segs[s as usize].flags & LOST != 0).collect();
        assert_eq!(lost, vec![0, 1, 3], "1 keeps its earlier mark");
        assert_eq!((b.lost_pending(), b.pipe()), (2, 3));
        assert_eq!(
            b.segs[1].flags & RETRANS,
            RETRANS,
            "the recent retransmission stays in flight"
        );
        assert_eq!(b.next_lost(), Some(0));
        // Without RACK every unSACKed segment is lost.
        b.mark_all_lost();
        assert_eq!((b.lost_pending(), b.pipe()), (5, 0));
    }

    #[test]
    fn a_hole_is_lost_once_dupthresh_segments_above_it_are_sacked() {
        let mut b = board(10);
        b.ack_cumulative(2, |_| {});
        b.sack(3, 5, |_| {});
        assert_eq!(b.mark_lost(), 0, "two SACKed segments above are not enough");
        b.sack(5, 6, |_| {});
        assert_eq!(b.mark_lost(), 1);
        assert_eq!(b.mark_lost(), 0, "marked once");
        assert_eq!(b.lost_pending(), 1);
        assert_eq!(b.pipe(), 4);
        assert_eq!(b.next_lost(), Some(2));
        b.retransmitted(2, TxRecord::default());
        assert_eq!(b.pipe(), 5, "a retransmission is in flight again");
        assert_eq!(b.next_lost(), None);
    }

    #[test]
    fn rto_marks_everything_unsacked_lost_and_undo_restores_it() {
        let mut b = board(5);
        b.sack(2, 3, |_| {});
        b.mark_all_lost();
        assert_eq!(b.lost_pending(), 4);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.next_lost(), Some(0));
        b.retransmitted(0, TxRecord::default());
        b.undo_lost();
        assert_eq!(b.lost_pending(), 0);
        assert_eq!(b.pipe(), 4, "1 retransmitted + 3 back in flight");
    }

    /// The range-skipping `sack` delivers exactly what a segment-by-segment walk of every block
    /// would (same segments, same order, same pipe and loss state), over random blocks,
    /// cumulative ACKs, sends, retransmissions and RTOs.
    #[test]
    fn sack_ranges_match_a_segment_by_segment_walk() {
        random_walk(7, 20_000, None, false);
    }

    /// A shorter walk with spurious-RTO undos every 13 steps, checking after every step that
    /// `lost_pending` and `next_lost` agree with the per-segment flags (the lost segments not
    /// retransmitted nor SACKed: their number, and the lowest).
    #[test]
    fn next_lost_and_lost_pending_follow_the_flags_over_a_random_walk() {
        random_walk(8, 4_000, Some(13), true);
    }

    /// A random walk over the scoreboard's operations (seeded), checked against a naive model.
    fn random_walk(seed: u64, steps: u32, undo_every: Option<u32>, check_lost: bool) {
        use crate::time::Time;
        let mut rng = crate::rng::Rng::stream(seed, 0);
        let mut b = Scoreboard::default();
        let mut naive: std::collections::BTreeSet<u32> = Default::default();
        let tx = |seq: u32| TxRecord {
            sent: Time(u64::from(seq)),
            ..TxRecord::default()
        };
        for _ in 0..200 {
            b.push(tx(b.snd_nxt()));
        }
        for step in 0..steps {
            let (una, nxt) = (b.snd_una(), b.snd_nxt());
            match rng.below(10) {
                0 => {
                    let cum = una + rng.below(u64::from(nxt - una) / 4 + 1) as u32;
                    let mut want = Vec::new();
                    for q in una..cum {
                        if !naive.remove(&q) {
                            want.push(q);
                        }
                    }
                    let mut got = Vec::new();
                    b.ack_cumulative(cum, |t| got.push(t.sent.0 as u32));
                    assert_eq!(got, want, "step {step}");
                    for _ in 0..rng.below(60) {
                        b.push(tx(b.snd_nxt()));
                    }
                }
                1 if step % 997 == 0 => b.mark_all_lost(),
                1 if undo_every.is_some_and(|k| step % k == 0) => b.undo_lost(),
                2 => {
                    b.mark_lost();
                    if let Some(q) = b.next_lost() {
                        b.retransmitted(q, tx(q));
                    }
                }
                _ => {
                    let lo = una.saturating_sub(5) + rng.below(u64::from(nxt - una) + 5) as u32;
                    let hi = lo + rng.below(80) as u32;
                    let mut want = Vec::new();
                    for q in lo.max(una)..hi.min(nxt) {
                        if naive.insert(q) {
                            want.push(q);
                        }
                    }
                    let mut got = Vec::new();
                    let n = b.sack(lo, hi, |t| got.push(t.sent.0 as u32));
                    assert_eq!(n as usize, got.len());
                    assert_eq!(got, want, "step {step}: block {lo}..{hi}");
                }
            }
            // The ranges are sorted, disjoint, non-adjacent and hold exactly the SACKed segments.
            assert!(b.sacked.windows(2).all(|w| w[0].1 < w[1].0), "{:?}", b.sacked);
            let from_ranges: std::collections::BTreeSet<u32> = b
                .sacked
                .iter()
                .flat_map(|&(s, e)| s..e)
                .filter(|&q| q >= b.snd_una())
                .collect();
            assert_eq!(from_ranges, naive, "step {step}");
            let pipe = (b.snd_una()..b.snd_nxt())
                .filter(|&q| in_pipe(b.segs[(q - b.snd_una()) as usize].flags))
                .count();
            assert_eq!(pipe as u32, b.pipe(), "step {step}");
            if !check_lost {
                continue;
            }
            // The lost segments awaiting a retransmission, from the flags: their number is
            // `lost_pending` and the lowest is what `next_lost` returns.
            let pending: Vec<u32> = (b.snd_una()..b.snd_nxt())
                .filter(|&q| b.segs[(q - b.snd_una()) as usize].flags & (LOST | RETRANS | SACKED) == LOST)
                .collect();
            assert_eq!(pending.len() as u32, b.lost_pending(), "step {step}");
            assert_eq!(b.next_lost(), pending.first().copied(), "step {step}");
        }
    }

    /// Hand-worked: after a spurious RTO is undone, a segment already retransmitted stays
    /// retransmitted (in flight, not lost again) when SACK-based loss marking looks again.
    #[test]
    fn undo_keeps_retransmissions_and_loss_marking_skips_them() {
        let mut b = board(10);
        assert_eq!(b.sack(4, 7, |_| {}), 3);
        assert_eq!(b.mark_lost(), 4, "0..4 lost below the third-highest SACKed segment");
        assert_eq!((b.lost_pending(), b.pipe()), (4, 3));
        assert_eq!(b.next_lost(), Some(0));
        b.retransmitted(0, TxRecord::default());
        assert_eq!((b.lost_pending(), b.pipe()), (3, 4));
        assert_eq!(b.segs[0].flags, LOST | RETRANS);
        b.undo_lost();
        assert_eq!((b.lost_pending(), b.pipe()), (0, 7), "1, 2, 3 in flight again");
        assert_eq!(b.next_lost(), None);
        assert_eq!(b.mark_lost(), 3, "1, 2, 3 lost again; the retransmitted 0 is not");
        assert_eq!((b.lost_pending(), b.pipe()), (3, 4));
        assert_eq!(b.next_lost(), Some(1));
        let flags: Vec<u8> = b.segs.iter().map(|s| s.flags).collect();
        assert_eq!(
            flags,
            [LOST | RETRANS, LOST, LOST, LOST, SACKED, SACKED, SACKED, 0, 0, 0]
        );
    }

    /// A lost segment that is SACKed later needs no retransmission: it leaves `lost_pending`
    /// and `next_lost` passes over it (hand-worked).
    #[test]
    fn a_lost_segment_sacked_later_is_not_retransmitted() {
        let mut b = board(12);
        b.sack(4, 7, |_| {});
        assert_eq!(b.mark_lost(), 4);
        assert_eq!(b.next_lost(), Some(0));
        b.retransmitted(0, TxRecord::default());
        assert_eq!(b.sack(1, 2, |_| {}), 1);
        assert_eq!((b.lost_pending(), b.pipe()), (2, 6));
        assert_eq!(b.next_lost(), Some(2));
        b.retransmitted(2, TxRecord::default());
        assert_eq!(b.next_lost(), Some(3));
        // A cumulative ACK over the lost 3 (never retransmitted) also settles it.
        let mut n = 0;
        assert_eq!(b.ack_cumulative(4, |_| n += 1), 3, "0, 2 and 3; 1 was SACKed");
        assert_eq!(n, 3);
        assert_eq!((b.lost_pending(), b.pipe()), (0, 5));
        assert_eq!(b.next_lost(), None);
    }

    /// `next_lost` resynchronises a counter that claims lost segments where none is left (the
    /// guard of its loop end, which the bookkeeping above never needs) instead of reading past
    /// the outstanding segments.
    #[test]
    fn next_lost_resynchronises_a_drifted_counter() {
        let mut b = board(3);
        b.lost_pending = 2;
        assert_eq!(b.next_lost(), None);
        assert_eq!(b.lost_pending(), 0);
    }

    /// The SACKed ranges wholly below `snd_una` are dropped on cumulative ACKs (memory stays
    /// bounded by the outstanding window), a range straddling it is kept.
    #[test]
    fn cumulative_acks_prune_the_sacked_ranges_below_snd_una() {
        let mut b = board(10);
        b.sack(2, 4, |_| {});
        b.sack(6, 8, |_| {});
        assert_eq!(b.sacked, [(2, 4), (6, 8)]);
        assert_eq!(b.ack_cumulative(5, |_| {}), 3, "0, 1 and 4");
        assert_eq!(b.sacked, [(6, 8)]);
        assert_eq!(b.ack_cumulative(7, |_| {}), 1, "5");
        assert_eq!(b.sacked, [(6, 8)], "straddles snd_una = 7");
        assert_eq!(b.ack_cumulative(8, |_| {}), 0);
        assert!(b.sacked.is_empty());
        assert_eq!((b.pipe(), b.snd_una()), (2, 8));
    }

    /// The DupThresh highest SACKed segments, not the first or the latest SACKed, set the loss
    /// threshold when SACK blocks arrive out of order (hand-worked).
    #[test]
    fn loss_threshold_is_the_third_highest_sacked_segment_whatever_the_order() {
        let mut b = board(12);
        b.sack(9, 10, |_| {});
        b.sack(1, 3, |_| {});
        b.sack(6, 8, |_| {});
        assert_eq!(b.top_sacked, [Some(9), Some(7), Some(6)]);
        assert_eq!(b.mark_lost(), 4, "0, 3, 4 and 5: unSACKed below 6");
        assert_eq!((b.lost_pending(), b.pipe()), (4, 3));
        assert_eq!(b.next_lost(), Some(0));
    }
}
