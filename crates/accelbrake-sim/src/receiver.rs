//! The TCP-like receiver: cumulative ACK + SACK, delayed ACKs, ECN echo.
//!
//! * ACK every second full segment, or when the delayed-ACK timer (default 40 ms, Linux's
//!   `TCP_ATO_MIN`) expires; immediately for out-of-order segments, duplicates and segments that fill
//!   a hole (RFC 5681 §4.2). Linux's quick-ACK mode at connection start is not modelled.
//! * SACK (RFC 2018): up to 3 blocks, the block holding the segment that triggered the ACK first,
//!   then the highest other blocks.
//! * Echo modes: **per-packet** (ABC §4.2 and §6, DCTCP's state machine): the receiver remembers the
//!   mark of the segments a pending delayed ACK covers; when a segment with a different mark arrives
//!   it first sends the pending ACK with the old mark, so every ACK's echo is exactly the mark of the
//!   segments it covers. **Classic** (RFC 3168): after a CE segment every ACK carries ECE until a
//!   segment with CWR arrives.
//! * A scheme may add a [`ReceiverHook`] (Sprout's forecaster): it sees every data packet and
//!   fills the `feedback` bytes of every ACK.
//! * The timestamp echo of an ACK is the send time of the segment that triggered it (TSecr), which
//!   gives the sender an RTT sample per ACK as Linux gets with timestamps.

use crate::packet::{Echo, Ecn, Packet, SackBlock, MAX_SACK_BLOCKS};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// How the receiver reports ECN marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoMode {
    /// Per-packet echo of accelerate / brake / CE (ABC, DCTCP-style).
    PerPacket,
    /// RFC 3168: ECE from a CE segment until CWR.
    Classic,
}

/// Receiver configuration.
#[derive(Clone, Copy, Debug)]
pub struct ReceiverConfig {
    /// ECN echo mode.
    pub echo: EchoMode,
    /// ACK every this many in-order segments (1 disables delayed ACKs; RFC 5681: 2).
    pub ack_every: u32,
    /// Delayed-ACK timeout (Linux `TCP_ATO_MIN` = 40 ms; RFC 5681 allows up to 500 ms).
    pub delack_timeout: Dur,
    /// Granularity of the receiver's timestamp clock (Linux TSval: 1 ms). ACKs carry the arrival
    /// time of the echoed segment rounded down to it, for one-way-delay estimates.
    pub ts_granularity: Dur,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            echo: EchoMode::Classic,
            ack_every: 2,
            delack_timeout: Dur::from_millis(40),
            ts_granularity: Dur::from_millis(1),
        }
    }
}

/// Receiver counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReceiverStats {
    /// Data packets received (including duplicates).
    pub packets: u64,
    /// Data bytes received on the wire (IP bytes, including duplicates).
    pub bytes: u64,
    /// Segments delivered in order to the application.
    pub delivered_segments: u64,
    /// Duplicate segments received.
    pub duplicates: u64,
    /// ACKs sent.
    pub acks: u64,
}

/// The receiver-side half of a scheme whose receiver computes feedback (Sprout's forecast). It
/// takes time only from `now`, like a controller.
pub trait ReceiverHook: Send + std::fmt::Debug {
    /// A data packet arrived (duplicates and out-of-order packets included).
    fn on_data(&mut self, now: Time, pkt: &Packet);
    /// The feedback to put in an ACK sent at `now`.
    fn feedback(&mut self, now: Time) -> [u8; 6];
    /// A copy (the receiver is `Clone`).
    fn clone_box(&self) -> Box<dyn ReceiverHook>;
}

impl Clone for Box<dyn ReceiverHook> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A receiver.
#[derive(Clone, Debug)]
pub struct Receiver {
    flow: u32,
    cfg: ReceiverConfig,
    /// Next expected segment.
    rcv_nxt: u32,
    /// Out-of-order ranges above `rcv_nxt`, sorted and disjoint.
    ooo: VecDeque<SackBlock>,
    /// In-order segments not yet acknowledged.
    pending: u32,
    /// Mark of the pending segments.
    pending_echo: Echo,
    /// Explicit feedback (XCP, RCP) of the segments the next ACK covers, NaN if none: XCP's add up,
    /// RCP's rates take the minimum (see [`crate::packet::ExplicitKind`]).
    pending_xfb: f32,
    /// Timestamp to echo for the pending ACK.
    pending_ts: Time,
    /// Arrival time of the segment whose timestamp is echoed.
    pending_rx: Time,
    /// Delayed-ACK deadline.
    delack_at: Option<Time>,
    /// Classic mode: ECE is being sent.
    ece: bool,
    /// The scheme's receiver-side computation, if any.
    hook: Option<Box<dyn ReceiverHook>>,
    /// Counters.
    pub stats: ReceiverStats,
}

impl Receiver {
    /// Give back spare heap capacity (contents unchanged).
    pub(crate) fn shrink(&mut self) {
        self.ooo.shrink_to_fit();
    }

    /// A receiver for `flow`.
    pub fn new(flow: u32, cfg: ReceiverConfig) -> Receiver {
        Receiver {
            flow,
            cfg,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            pending: 0,
            pending_echo: Echo::None,
            pending_xfb: crate::packet::NO_FEEDBACK,
            pending_ts: Time::ZERO,
            pending_rx: Time::ZERO,
            delack_at: None,
            ece: false,
            hook: None,
            stats: ReceiverStats::default(),
        }
    }

    /// This receiver with a scheme's hook.
    pub fn with_hook(mut self, hook: Box<dyn ReceiverHook>) -> Receiver {
        self.hook = Some(hook);
        self
    }

    /// Next expected segment (everything below was delivered in order).
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    /// When the receiver needs to be woken (delayed-ACK timer).
    pub fn next_wakeup(&self) -> Option<Time> {
        self.delack_at
    }

    fn mark_of(&mut self, pkt: &Packet) -> Echo {
        match self.cfg.echo {
            EchoMode::PerPacket => match pkt.ecn {
                Ecn::NotEct => Echo::None,
                Ecn::Ect1 => Echo::Accelerate,
                Ecn::Ect0 => Echo::Brake,
                Ecn::Ce => Echo::Ce,
            },
            EchoMode::Classic => {
                if pkt.ecn == Ecn::Ce {
                    self.ece = true;
                } else if pkt.cwr {
                    self.ece = false;
                }
                if self.ece {
                    Echo::Ce
                } else {
                    Echo::None
                }
            }
        }
    }

    fn emit<O: AckSink + ?Sized>(
        &mut self,
        now: Time,
        echo: Echo,
        ts: Time,
        rx: Time,
        latest: Option<u32>,
        out: &mut O,
    ) {
        let ack = out.next_ack();
        *ack = Packet::ack(self.flow, self.rcv_nxt, echo, ts, now);
        ack.set_xfb(std::mem::replace(&mut self.pending_xfb, crate::packet::NO_FEEDBACK));
        let g = self.cfg.ts_granularity.0.max(1);
        ack.rx_ts = Time(rx.0 / g * g);
        if let Some(h) = self.hook.as_mut() {
            ack.feedback = h.feedback(now);
        }
        // SACK blocks: the one holding `latest` first, then the highest others.
        let mut n = 0;
        // The block holding the latest segment: blocks are sorted and disjoint, so it is the
        // first one ending after it (a recovery can leave thousands of holes: a search galloping
        // from the highest block, where new data nearly always lands).
        let first = latest.and_then(|s| {
            let ooo = &self.ooo;
            let i = crate::search::partition_point_from_back(ooo.len(), |i| ooo[i].end <= s);
            self.ooo.get(i).is_some_and(|b| b.start <= s).then_some(i)
        });
        if let Some(i) = first {
            ack.sack[0] = self.ooo[i];
            n = 1;
        }
        for (i, b) in self.ooo.iter().enumerate().rev() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if Some(i) != first {
                ack.sack[n] = *b;
                n += 1;
            }
        }
        ack.n_sack = n as u8;
        self.stats.acks += 1;
        self.pending = 0;
        self.delack_at = None;
    }

    /// A data segment arrived; ACKs to send are pushed to `out`.
    pub fn on_data<O: AckSink + ?Sized>(&mut self, now: Time, pkt: &Packet, out: &mut O) {
        self.stats.packets += 1;
        self.stats.bytes += pkt.size as u64;
        if let Some(h) = self.hook.as_mut() {
            h.on_data(now, pkt);
        }
        let mark = self.mark_of(pkt);
        // DCTCP-style: a change of mark flushes the pending delayed ACK with the old mark.
        if self.pending > 0 && mark != self.pending_echo {
            let (e, ts, rx) = (self.pending_echo, self.pending_ts, self.pending_rx);
            self.emit(now, e, ts, rx, None, out);
        }
        if let Some(h) = pkt.explicit() {
            // XCP echoes H_feedback to the sender (Katabi et al. §3.1): one ACK for two segments
            // carries the sum of their window changes; RCP echoes the path's rate (the minimum).
            let old = self.pending_xfb;
            self.pending_xfb = if old.is_nan() {
                h.feedback
            } else {
                match h.kind {
                    crate::packet::ExplicitKind::Xcp => old + h.feedback,
                    crate::packet::ExplicitKind::Rcp => old.min(h.feedback),
                }
            };
        }
        let seq = pkt.seq;
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            self.stats.delivered_segments += 1;
            let filled_hole = !self.ooo.is_empty();
            if let Some(b) = self.ooo.front().copied() {
                if b.start == self.rcv_nxt {
                    self.stats.delivered_segments += (b.end - b.start) as u64;
                    self.rcv_nxt = b.end;
                    self.ooo.pop_front();
                }
            }
            self.pending += 1;
            self.pending_echo = mark;
            self.pending_ts = pkt.ts;
            self.pending_rx = now;
            if filled_hole || self.pending >= self.cfg.ack_every {
                self.emit(now, mark, pkt.ts, now, None, out);
            } else if self.delack_at.is_none() {
                self.delack_at = Some(now + self.cfg.delack_timeout);
            }
        } else if seq > self.rcv_nxt {
            self.insert_ooo(seq);
            self.emit(now, mark, pkt.ts, now, Some(seq), out);
        } else {
            self.stats.duplicates += 1;
            self.emit(now, mark, pkt.ts, now, None, out);
        }
    }

    fn insert_ooo(&mut self, seq: u32) {
        // From the highest block: new data nearly always lands at or above it.
        let ooo = &self.ooo;
        let i = crate::search::partition_point_from_back(ooo.len(), |i| ooo[i].end < seq);
        if let Some(b) = self.ooo.get_mut(i) {
            if b.start <= seq && seq < b.end {
                self.stats.duplicates += 1;
                return;
            }
            if b.end == seq {
                b.end += 1;
                if let Some(next) = self.ooo.get(i + 1).copied() {
                    if next.start == seq + 1 {
                        self.ooo[i].end = next.end;
                        self.ooo.remove(i + 1);
                    }
                }
                return;
            }
            if b.start == seq + 1 {
                b.start = seq;
                return;
            }
        }
        self.ooo.insert(
            i,
            SackBlock {
                start: seq,
                end: seq + 1,
            },
        );
    }

    /// The delayed-ACK timer may have expired.
    pub fn on_timer<O: AckSink + ?Sized>(&mut self, now: Time, out: &mut O) {
        if let Some(t) = self.delack_at {
            if t <= now && self.pending > 0 {
                let (e, ts, rx) = (self.pending_echo, self.pending_ts, self.pending_rx);
                self.emit(now, e, ts, rx, None, out);
            } else if t <= now {
                self.delack_at = None;
            }
        }
    }
}

/// Where a [`Receiver`] puts the ACKs it sends: a `Vec<Packet>`, or the engine's packet arena
/// (each ACK is then written where it stays while in the network).
pub trait AckSink {
    /// A place for one more ACK, counted as sent: the receiver overwrites all of it.
    fn next_ack(&mut self) -> &mut Packet;
}

impl AckSink for Vec<Packet> {
    fn next_ack(&mut self) -> &mut Packet {
        self.push(Packet::ack(0, 0, Echo::None, Time::ZERO, Time::ZERO));
        self.last_mut().expect("just pushed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;

    fn seg(seq: u32, ecn: Ecn) -> Packet {
        Packet::data(0, seq, MTU, ecn, Time::from_millis(seq as u64))
    }

    fn per_packet() -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                echo: EchoMode::PerPacket,
                ..Default::default()
            },
        )
    }

    #[test]
    fn acks_every_second_segment_and_on_timer() {
        let mut r = per_packet();
        let mut out = Vec::new();
        let t = Time::from_millis(1);
        r.on_data(t, &seg(0, Ecn::Ect1), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.next_wakeup(), Some(t + Dur::from_millis(40)));
        r.on_data(t, &seg(1, Ecn::Ect1), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 2);
        r.on_data(t, &seg(2, Ecn::Ect1), &mut out);
        r.on_timer(Time::from_millis(41), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].seq, 3);
        assert_eq!(r.next_wakeup(), None);
    }

    #[test]
    fn a_change_of_mark_flushes_the_pending_ack_with_the_old_mark() {
        let mut r = per_packet();
        let mut out = Vec::new();
        let t = Time::from_millis(1);
        r.on_data(t, &seg(0, Ecn::Ect1), &mut out); // accelerate, pending
        r.on_data(t, &seg(1, Ecn::Ect0), &mut out); // brake: flush the accelerate first
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].echo), (1, Echo::Accelerate));
        r.on_data(t, &seg(2, Ecn::Ect0), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].seq, out[1].echo), (3, Echo::Brake));
    }

    #[test]
    fn out_of_order_segments_get_immediate_sack() {
        let mut r = per_packet();
        let mut out = Vec::new();
        let t = Time::from_millis(1);
        r.on_data(t, &seg(0, Ecn::NotEct), &mut out);
        r.on_data(t, &seg(2, Ecn::NotEct), &mut out);
        r.on_data(t, &seg(3, Ecn::NotEct), &mut out);
        r.on_data(t, &seg(5, Ecn::NotEct), &mut out);
        assert_eq!(out.len(), 3);
        let last = out[2];
        assert_eq!(last.seq, 1);
        assert_eq!(
            last.sack_blocks(),
            &[SackBlock { start: 5, end: 6 }, SackBlock { start: 2, end: 4 }]
        );
        // Filling the hole acks everything up to the next hole at once.
        r.on_data(t, &seg(1, Ecn::NotEct), &mut out);
        assert_eq!(out.last().unwrap().seq, 4);
        assert_eq!(r.rcv_nxt(), 4);
        r.on_data(t, &seg(4, Ecn::NotEct), &mut out);
        assert_eq!(r.rcv_nxt(), 6);
        assert_eq!(r.stats.delivered_segments, 6);
    }

    #[test]
    fn classic_ece_is_sticky_until_cwr() {
        let mut r = Receiver::new(
            0,
            ReceiverConfig {
                ack_every: 1,
                ..Default::default()
            },
        );
        let mut out = Vec::new();
        let t = Time::from_millis(1);
        r.on_data(t, &seg(0, Ecn::Ce), &mut out);
        r.on_data(t, &seg(1, Ecn::Ect0), &mut out);
        let mut cwr = seg(2, Ecn::Ect0);
        cwr.cwr = true;
        r.on_data(t, &cwr, &mut out);
        let echoes: Vec<Echo> = out.iter().map(|a| a.echo).collect();
        assert_eq!(echoes, vec![Echo::Ce, Echo::Ce, Echo::None]);
    }

    /// What an ACK says: (cumulative ACK, echo, TSecr in ms, receiver timestamp in ns, SACK blocks).
    fn said(a: &Packet) -> (u32, Echo, u64, u64, Vec<(u32, u32)>) {
        let blocks = a.sack_blocks().iter().map(|b| (b.start, b.end)).collect();
        (a.seq, a.echo, a.ts.0 / 1_000_000, a.rx_ts.0, blocks)
    }

    fn receiver(echo: EchoMode, ack_every: u32) -> Receiver {
        Receiver::new(
            7,
            ReceiverConfig {
                echo,
                ack_every,
                ..Default::default()
            },
        )
    }

    /// The delayed-ACK timer is armed by the first unacknowledged segment only (a later one does
    /// not push it back), fires exactly at its deadline and not before, and the ACK it sends
    /// echoes the newest covered segment's send time and arrival (rounded down to 1 ms).
    #[test]
    fn delayed_ack_timer_is_armed_once_and_fires_at_its_deadline() {
        let mut r = receiver(EchoMode::PerPacket, 3);
        let mut out = Vec::new();
        r.on_data(Time::from_nanos(1_200_000), &seg(0, Ecn::Ect1), &mut out);
        assert_eq!(r.next_wakeup(), Some(Time::from_nanos(41_200_000)));
        r.on_data(Time::from_nanos(5_700_000), &seg(1, Ecn::Ect1), &mut out);
        assert_eq!(r.next_wakeup(), Some(Time::from_nanos(41_200_000)), "not pushed back");
        r.on_timer(Time::from_nanos(41_199_999), &mut out);
        assert!(out.is_empty(), "not before the deadline");
        assert_eq!(r.next_wakeup(), Some(Time::from_nanos(41_200_000)));
        r.on_timer(Time::from_nanos(41_200_000), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(said(&out[0]), (2, Echo::Accelerate, 1, 5_000_000, vec![]));
        assert_eq!((out[0].flow, out[0].feedback), (7, [0; 6]));
        assert_eq!(r.next_wakeup(), None);
        // Nothing pending: the timer has nothing to send.
        r.on_timer(Time::from_millis(100), &mut out);
        assert_eq!(out.len(), 1);
        // The third segment of a new round is the one that is acknowledged at once.
        for q in 2..5 {
            r.on_data(Time::from_millis(200), &seg(q, Ecn::Ect1), &mut out);
        }
        assert_eq!(out.len(), 2);
        assert_eq!(said(&out[1]), (5, Echo::Accelerate, 4, 200_000_000, vec![]));
        assert_eq!(r.next_wakeup(), None);
        assert_eq!((r.stats.acks, r.stats.packets, r.stats.delivered_segments), (2, 5, 5));
        assert_eq!(r.stats.bytes, 5 * u64::from(MTU));
    }

    /// The receiver timestamp is the arrival time rounded down to the configured granularity;
    /// a zero granularity keeps it exact.
    #[test]
    fn receiver_timestamps_are_rounded_down_to_the_granularity() {
        for (g, want) in [(Dur::from_micros(250), 3_750_000), (Dur::ZERO, 3_999_999)] {
            let mut r = Receiver::new(
                0,
                ReceiverConfig {
                    ack_every: 1,
                    ts_granularity: g,
                    ..Default::default()
                },
            );
            let mut out = Vec::new();
            r.on_data(Time::from_nanos(3_999_999), &seg(0, Ecn::NotEct), &mut out);
            assert_eq!(out[0].rx_ts, Time::from_nanos(want), "granularity {g:?}");
        }
    }

    /// Per-packet echo maps each codepoint to its own echo.
    #[test]
    fn per_packet_echo_of_every_codepoint() {
        let mut r = receiver(EchoMode::PerPacket, 1);
        let mut out = Vec::new();
        for (q, ecn) in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce, Ecn::NotEct]
            .into_iter()
            .enumerate()
        {
            r.on_data(Time::from_millis(1), &seg(q as u32, ecn), &mut out);
        }
        let echoes: Vec<Echo> = out.iter().map(|a| a.echo).collect();
        assert_eq!(
            echoes,
            [Echo::None, Echo::Accelerate, Echo::Brake, Echo::Ce, Echo::None]
        );
    }

    /// Classic echo: CE sets ECE (even on a segment that also carries CWR), CWR alone clears it.
    #[test]
    fn classic_ce_with_cwr_still_sets_ece() {
        let mut r = receiver(EchoMode::Classic, 1);
        let mut out = Vec::new();
        let mut ce_cwr = seg(0, Ecn::Ce);
        ce_cwr.cwr = true;
        r.on_data(Time::from_millis(1), &ce_cwr, &mut out);
        r.on_data(Time::from_millis(1), &seg(1, Ecn::Ect0), &mut out);
        let mut cwr = seg(2, Ecn::Ect0);
        cwr.cwr = true;
        r.on_data(Time::from_millis(1), &cwr, &mut out);
        r.on_data(Time::from_millis(1), &seg(3, Ecn::Ect0), &mut out);
        let echoes: Vec<Echo> = out.iter().map(|a| a.echo).collect();
        assert_eq!(echoes, [Echo::Ce, Echo::Ce, Echo::None, Echo::None]);
    }

    /// Out-of-order arrivals, hand-worked: a block grows at its end and at its start, two blocks
    /// merge when the segment between them arrives, a segment inside a block and one below
    /// `rcv_nxt` are duplicates, and each ACK lists the block of the triggering segment first, then
    /// the highest others, at most three.
    #[test]
    fn out_of_order_blocks_grow_merge_and_are_reported_latest_first() {
        let mut r = receiver(EchoMode::PerPacket, 2);
        let mut out = Vec::new();
        let t = Time::from_millis(1);
        let mut last = |r: &mut Receiver, q: u32| {
            out.clear();
            r.on_data(t, &seg(q, Ecn::NotEct), &mut out);
            assert_eq!(out.len(), 1, "segment {q}: one immediate ACK");
            let a = said(&out[0]);
            (a.0, a.4)
        };
        assert_eq!(last(&mut r, 2), (0, vec![(2, 3)]));
        assert_eq!(last(&mut r, 3), (0, vec![(2, 4)]), "grows at its end");
        assert_eq!(last(&mut r, 6), (0, vec![(6, 7), (2, 4)]));
        assert_eq!(last(&mut r, 5), (0, vec![(5, 7), (2, 4)]), "grows at its start");
        assert_eq!(last(&mut r, 9), (0, vec![(9, 10), (5, 7), (2, 4)]));
        assert_eq!(
            last(&mut r, 12),
            (0, vec![(12, 13), (9, 10), (5, 7)]),
            "three blocks at most"
        );
        assert_eq!(
            last(&mut r, 3),
            (0, vec![(2, 4), (12, 13), (9, 10)]),
            "a duplicate inside a block reports that block first"
        );
        assert_eq!(r.stats.duplicates, 1);
        assert_eq!(
            last(&mut r, 4),
            (0, vec![(2, 7), (12, 13), (9, 10)]),
            "4 merges 2..4 and 5..7"
        );
        assert_eq!(last(&mut r, 8), (0, vec![(8, 10), (12, 13), (2, 7)]));
        assert_eq!(last(&mut r, 7), (0, vec![(2, 10), (12, 13)]));
        // Segment 0 is in order and fills part of the gap (RFC 5681 §4.2): ACKed at once.
        assert_eq!(last(&mut r, 0), (1, vec![(12, 13), (2, 10)]));
        assert_eq!(r.rcv_nxt(), 1);
        // Segment 1 fills the hole: everything up to 10 is delivered and acknowledged at once.
        assert_eq!(last(&mut r, 1), (10, vec![(12, 13)]));
        assert_eq!(r.rcv_nxt(), 10);
        assert_eq!(r.stats.delivered_segments, 10);
        assert_eq!(last(&mut r, 4), (10, vec![(12, 13)]), "below rcv_nxt: a duplicate");
        assert_eq!(r.stats.duplicates, 2);
        // 10 arrives in order with a block still above (the hole at 11 stays): ACKed at once.
        assert_eq!(last(&mut r, 10), (11, vec![(12, 13)]));
        assert_eq!(last(&mut r, 11), (13, vec![]));
        assert_eq!(r.stats.delivered_segments, 13);
        assert_eq!(r.stats.packets, 15);
        assert_eq!(r.stats.acks, 15);
    }

    fn explicit_seg(seq: u32, kind: crate::packet::ExplicitKind, feedback: f32) -> Packet {
        let mut p = seg(seq, Ecn::NotEct);
        p.set_explicit(crate::packet::ExplicitHeader {
            kind,
            cwnd: 10_000.0,
            rtt: 0.05,
            feedback,
        });
        p
    }

    /// One ACK for two segments echoes the sum of their XCP feedback, or the smaller of their
    /// RCP rates; the next ACK starts afresh.
    #[test]
    fn explicit_feedback_of_the_covered_segments_adds_up_or_takes_the_minimum() {
        use crate::packet::ExplicitKind::{Rcp, Xcp};
        for (kind, a, b, want) in [(Xcp, 300.0, -100.0, 200.0), (Rcp, 5e6, 2e6, 2e6), (Rcp, 2e6, 5e6, 2e6)] {
            let mut r = receiver(EchoMode::PerPacket, 2);
            let mut out = Vec::new();
            let t = Time::from_millis(1);
            r.on_data(t, &explicit_seg(0, kind, a), &mut out);
            r.on_data(t, &explicit_seg(1, kind, b), &mut out);
            r.on_data(t, &seg(2, Ecn::NotEct), &mut out);
            r.on_data(t, &explicit_seg(3, kind, a), &mut out);
            r.on_data(t, &seg(4, Ecn::NotEct), &mut out);
            r.on_data(t, &seg(5, Ecn::NotEct), &mut out);
            assert_eq!(out.len(), 3);
            assert_eq!(out[0].xfb(), want, "{kind:?}");
            assert_eq!(out[1].xfb(), a, "{kind:?}: only segment 3's");
            assert!(out[2].xfb().is_nan(), "{kind:?}: none");
        }
    }

    #[derive(Debug, Clone, Default)]
    struct Counting {
        seen: Vec<u32>,
    }

    impl ReceiverHook for Counting {
        fn on_data(&mut self, _now: Time, pkt: &Packet) {
            self.seen.push(pkt.seq);
        }
        fn feedback(&mut self, now: Time) -> [u8; 6] {
            let n = self.seen.len() as u8;
            [n, *self.seen.last().unwrap() as u8, (now.0 / 1_000_000) as u8, 0, 0, 9]
        }
        fn clone_box(&self) -> Box<dyn ReceiverHook> {
            Box::new(self.clone())
        }
    }

    /// A hook sees every data packet (duplicates and out-of-order ones too) and fills the
    /// feedback of every ACK; a clone of the receiver carries its own copy of the hook.
    #[test]
    fn a_hook_sees_every_packet_and_fills_every_ack() {
        let mut r = receiver(EchoMode::PerPacket, 2).with_hook(Box::<Counting>::default());
        let mut out = Vec::new();
        r.on_data(Time::from_millis(1), &seg(0, Ecn::NotEct), &mut out);
        r.on_data(Time::from_millis(2), &seg(2, Ecn::NotEct), &mut out);
        r.on_data(Time::from_millis(3), &seg(0, Ecn::NotEct), &mut out);
        let mut c = r.clone();
        c.on_data(Time::from_millis(4), &seg(1, Ecn::NotEct), &mut out);
        let fb: Vec<[u8; 6]> = out.iter().map(|a| a.feedback).collect();
        assert_eq!(fb, [[2, 2, 2, 0, 0, 9], [3, 0, 3, 0, 0, 9], [4, 1, 4, 0, 0, 9]]);
        r.on_data(Time::from_millis(5), &seg(1, Ecn::NotEct), &mut out);
        assert_eq!(
            out[3].feedback,
            [4, 1, 5, 0, 0, 9],
            "the original's hook did not see the clone's"
        );
    }
}
