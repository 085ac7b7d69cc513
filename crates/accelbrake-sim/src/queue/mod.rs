//! Queues and AQMs behind one trait.
//!
//! A queue never owns the clock: the hop calls [`Queue::enqueue`] when a packet arrives and
//! [`Queue::dequeue`] when its link can take a packet, passing `now` and what the router knows about
//! the link ([`LinkInfo`]). Drops decided at dequeue time (AQMs) are pushed into the `drops` buffer.
//!
//! | type | file | notes |
//! |---|---|---|
//! | `droptail` | this file | tail drop by packets or bytes |
//! | `infinite` | this file | never drops (Mahimahi's default) |
//! | `abc` | `abc.rs` | ABC router: drop-tail + accelerate/brake marking on dequeue |
//! | `codel` | `codel.rs` | CoDel (RFC 8289), drops/marks at dequeue |
//! | `pie` | `pie.rs` | PIE (RFC 8033, Linux defaults), drops/marks at enqueue, timer-driven |

use crate::packet::Packet;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

pub mod abc;
pub mod codel;
pub mod pie;

/// What the router knows about its link when it dequeues.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkInfo {
    /// Link capacity over the queue's [`Queue::capacity_window`], bytes per second
    /// (0 if the queue asked for none).
    pub capacity: f64,
    /// Bytes the link charges per packet on top of its IP size (4 on Mahimahi trace links), so a
    /// queue can count its own departures in the same units as `capacity`.
    pub overhead: u32,
}

/// Counters every queue keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueStats {
    /// Packets accepted.
    pub enqueued: u64,
    /// Packets handed to the link.
    pub dequeued: u64,
    /// Packets dropped (at enqueue or dequeue).
    pub dropped: u64,
    /// Packets marked (ABC brake, or CE).
    pub marked: u64,
    /// Most packets ever queued at once.
    pub max_packets: u64,
}

/// The queue interface.
pub trait Queue: Send {
    /// Queue type name.
    fn name(&self) -> &'static str;
    /// Offer a packet; `Err(pkt)` gives it back if it was dropped.
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet>;
    /// Take the next packet for the link, pushing any packets dropped on the way into `drops`.
    fn dequeue(&mut self, now: Time, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet>;
    /// Packets queued.
    fn len_packets(&self) -> usize;
    /// Bytes queued.
    fn len_bytes(&self) -> u64;
    /// Counters.
    fn stats(&self) -> QueueStats;
    /// If the queue needs the link capacity on dequeue, over which window.
    fn capacity_window(&self) -> Option<Dur> {
        None
    }
    /// Time series value specific to this queue (ABC: the last accelerate fraction f; PIE: the
    /// drop probability).
    fn gauge(&self) -> Option<f64> {
        None
    }
    /// When the queue's own timer (e.g. PIE's probability update) next needs to run.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Run the queue's timer; called at (or after) the time [`Queue::next_timer`] returned.
    #[allow(unused_variables)]
    fn on_timer(&mut self, now: Time) {}
}

/// Buffer limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// At most this many packets.
    Packets(u64),
    /// At most this many bytes.
    Bytes(u64),
    /// No limit.
    Infinite,
}

/// A FIFO with a limit: the building block of drop-tail and of AQMs.
#[derive(Clone, Debug)]
pub struct Fifo {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: Limit,
    /// Counters.
    pub stats: QueueStats,
}

impl Fifo {
    /// An empty FIFO.
    pub fn new(limit: Limit) -> Fifo {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            stats: QueueStats::default(),
        }
    }

    /// Whether `pkt` would fit.
    pub fn fits(&self, pkt: &Packet) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.q.len() as u64) < n,
            Limit::Bytes(b) => self.bytes + pkt.size as u64 <= b,
            Limit::Infinite => true,
        }
    }

    /// Tail-drop enqueue, stamping the enqueue time.
    pub fn push(&mut self, now: Time, mut pkt: Packet) -> Result<(), Packet> {
        if !self.fits(&pkt) {
            self.stats.dropped += 1;
            return Err(pkt);
        }
        pkt.enqueued_at = now;
        self.bytes += pkt.size as u64;
        self.q.push_back(pkt);
        self.stats.enqueued += 1;
        self.stats.max_packets = self.stats.max_packets.max(self.q.len() as u64);
        Ok(())
    }

    /// Remove the head.
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        self.stats.dequeued += 1;
        Some(p)
    }

    /// The head, if any.
    pub fn peek(&self) -> Option<&Packet> {
        self.q.front()
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Drop-tail queue (by packets, by bytes, or unlimited).
#[derive(Clone, Debug)]
pub struct DropTail {
    fifo: Fifo,
}

impl DropTail {
    /// A drop-tail queue with the given limit.
    pub fn new(limit: Limit) -> DropTail {
        DropTail { fifo: Fifo::new(limit) }
    }
}

impl Queue for DropTail {
    fn name(&self) -> &'static str {
        match self.fifo.limit {
            Limit::Infinite => "infinite",
            _ => "droptail",
        }
    }
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        self.fifo.push(now, pkt)
    }
    fn dequeue(&mut self, _now: Time, _link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        self.fifo.pop()
    }
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn stats(&self) -> QueueStats {
        self.fifo.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, MTU};

    fn pkt(seq: u32) -> Packet {
        Packet::data(0, seq, MTU, Ecn::NotEct, Time::ZERO)
    }

    #[test]
    fn droptail_by_packets_drops_the_overflow_and_keeps_fifo_order() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.enqueue(Time::ZERO, pkt(0)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_ok());
        assert_eq!(q.enqueue(Time::ZERO, pkt(2)).unwrap_err().seq, 2);
        let mut d = Vec::new();
        assert_eq!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap().seq, 0);
        assert_eq!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap().seq, 1);
        assert!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).is_none());
        let s = q.stats();
        assert_eq!((s.enqueued, s.dequeued, s.dropped, s.max_packets), (2, 2, 1, 2));
    }

    #[test]
    fn droptail_by_bytes_counts_sizes() {
        let mut q = DropTail::new(Limit::Bytes(3100));
        assert!(q.enqueue(Time::ZERO, pkt(0)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(2)).is_err());
        let ack = Packet::ack(0, 1, crate::packet::Echo::None, Time::ZERO, Time::ZERO);
        assert!(q.enqueue(Time::ZERO, ack).is_ok());
        assert_eq!(q.len_bytes(), 3052);
    }

    #[test]
    fn infinite_never_drops() {
        let mut q = DropTail::new(Limit::Infinite);
        for i in 0..10_000 {
            assert!(q.enqueue(Time::ZERO, pkt(i)).is_ok());
        }
        assert_eq!(q.len_packets(), 10_000);
    }
}
