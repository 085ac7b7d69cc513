//! The packet arena (issue 21): every packet in the network lives in one slot of a `Vec<Packet>`
//! owned by the [`super::Simulation`], and the hops move 4-byte [`PacketId`]s instead of 80-byte
//! packets.
//!
//! Invariants:
//! * A packet is written into a slot once when it enters the network ([`Arena::alloc`]: the
//!   sender's data segment, the receiver's ACK, or a packet coming back out of a queue or link
//!   that holds packets by value) and read in place from then on: drop-tail/infinite FIFOs of rate
//!   links, the tx slot of rate links and every delay line hold only ids with the few fields the hops
//!   read and update ([`Transit`], 32 bytes); the packet is brought up to date from them when it leaves.
//! * The slot is freed exactly once, when the packet leaves the network (delivered to its
//!   endpoint, dropped, or handed by value to a queue that does not offer
//!   [`crate::queue::Queue::as_fifo`] or to a trace/Wi-Fi link); an id is never used after that
//!   (debug builds check every access, [`Arena::get`]).
//! * Freed slots are reused last-freed first (a plain stack: deterministic, and the slot reused
//!   is the one most likely still in cache), so the arena never holds more slots than the most
//!   packets that were ever in it at once: its memory is bounded by the run's peak of packets
//!   in flight, as the queues' and delay lines' own buffers were before.
//!
//! Ids are not observable in any output: the arena changes where packets are kept, not what
//! happens to them, so every run's output is byte-identical to the by-value engine's.

use crate::packet::{Kind, Packet};
use crate::queue::Queued;
use crate::sched::Due;
use crate::time::Time;

/// Index of a packet's slot in the [`Arena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PacketId(u32);

/// What the hops need of a packet in transit, carried by value with its id (32 bytes instead of
/// the packet's 80): the hops read and update these fields only, and the packet in the arena is
/// brought up to date from them when it leaves the id path ([`Arena::sync`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transit {
    /// As [`Packet::enqueued_at`]: when it entered its current hop's queue, and its due time while
    /// it waits on a delay line ([`Due`]).
    pub(crate) enqueued_at: Time,
    /// As [`Packet::queued_ns`].
    pub(crate) queued_ns: u64,
    /// Its slot.
    pub(crate) id: PacketId,
    /// As [`Packet::flow`].
    pub(crate) flow: u32,
    /// As [`Packet::size`].
    pub(crate) size: u32,
    /// As [`Packet::hop`].
    pub(crate) hop: u8,
    /// As [`Packet::kind`].
    pub(crate) kind: Kind,
}

impl Queued for Transit {
    #[inline]
    fn size(&self) -> u32 {
        self.size
    }
    #[inline]
    fn stamp(&mut self, now: Time) {
        self.enqueued_at = now;
    }
}

impl Due for Transit {
    #[inline]
    fn due(&self) -> Time {
        self.enqueued_at
    }
    #[inline]
    fn set_due(&mut self, t: Time) {
        self.enqueued_at = t;
    }
}

/// A slab of packets with a free list.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    slots: Vec<Packet>,
    /// Free slots, the last freed on top.
    free: Vec<u32>,
    /// Debug builds: which slots hold a packet (use after free and double free are caught).
    #[cfg(debug_assertions)]
    live: Vec<bool>,
}

impl Arena {
    /// Store a packet entering the network; its id is valid until [`Arena::free`] or
    /// [`Arena::take`].
    #[inline]
    pub(crate) fn alloc(&mut self, pkt: Packet) -> PacketId {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = pkt;
            #[cfg(debug_assertions)]
            {
                debug_assert!(!self.live[i as usize], "free slot {i} was live");
                self.live[i as usize] = true;
            }
            return PacketId(i);
        }
        let i = u32::try_from(self.slots.len()).expect("more than 2^32 packets in flight at once");
        self.slots.push(pkt);
        #[cfg(debug_assertions)]
        self.live.push(true);
        PacketId(i)
    }

    #[inline]
    fn check(&self, id: PacketId) {
        #[cfg(debug_assertions)]
        debug_assert!(
            self.live.get(id.0 as usize).copied().unwrap_or(false),
            "packet id {} used after it was freed",
            id.0
        );
        let _ = id;
    }

    /// The packet `id` (read in place).
    #[inline]
    pub(crate) fn get(&self, id: PacketId) -> &Packet {
        self.check(id);
        &self.slots[id.0 as usize]
    }

    /// The packet `id`, to update in place (a hop's stamps, the next-hop index).
    #[inline]
    pub(crate) fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.check(id);
        &mut self.slots[id.0 as usize]
    }

    /// The packet left the network: its slot is free for the next packet.
    #[inline]
    pub(crate) fn free(&mut self, id: PacketId) {
        self.check(id);
        #[cfg(debug_assertions)]
        {
            self.live[id.0 as usize] = false;
        }
        self.free.push(id.0);
    }

    /// A packet enters the network: stored in a free slot, and its transit fields returned.
    #[inline]
    pub(crate) fn enter(&mut self, pkt: Packet) -> Transit {
        let t = Transit {
            enqueued_at: pkt.enqueued_at,
            queued_ns: pkt.queued_ns,
            id: PacketId(0),
            flow: pkt.flow,
            size: pkt.size,
            hop: pkt.hop,
            kind: pkt.kind,
        };
        Transit { id: self.alloc(pkt), ..t }
    }

    /// The packet of `t`, brought up to date with the fields the hops changed.
    #[inline]
    pub(crate) fn sync(&mut self, t: &Transit) -> &Packet {
        let p = self.get_mut(t.id);
        p.enqueued_at = t.enqueued_at;
        p.queued_ns = t.queued_ns;
        p.hop = t.hop;
        p
    }

    /// The packet of `t` leaves the id path (to a queue or link that holds packets by value):
    /// brought up to date, copied out, and its slot freed.
    #[inline]
    pub(crate) fn leave(&mut self, t: &Transit) -> Packet {
        let p = *self.sync(t);
        self.free(t.id);
        p
    }

    /// Copy the packet out and free its slot (for a queue or link that holds packets by value).
    #[inline]
    pub(crate) fn take(&mut self, id: PacketId) -> Packet {
        let p = *self.get(id);
        self.free(id);
        p
    }

    /// Packets held now.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots allocated: the most packets ever held at once.
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
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
    fn slots_are_reused_last_freed_first_and_never_grow_past_the_peak() {
        let mut a = Arena::default();
        let ids: Vec<PacketId> = (0..4).map(|s| a.alloc(pkt(s))).collect();
        assert_eq!((a.len(), a.slots()), (4, 4));
        assert_eq!(ids.iter().map(|i| a.get(*i).seq).collect::<Vec<_>>(), [0, 1, 2, 3]);
        a.free(ids[1]);
        a.free(ids[3]);
        assert_eq!((a.len(), a.slots()), (2, 4));
        // Last freed first: slot 3, then slot 1, then a new slot.
        assert_eq!(a.alloc(pkt(10)), ids[3]);
        assert_eq!(a.alloc(pkt(11)), ids[1]);
        assert_eq!(a.get(ids[1]).seq, 11, "the reused slot holds the new packet");
        assert_eq!(a.alloc(pkt(12)), PacketId(4));
        assert_eq!((a.len(), a.slots()), (5, 5));
        // A steady stream (one in, one out) stays in one slot however long it runs.
        let mut b = Arena::default();
        let mut held = std::collections::VecDeque::new();
        for s in 0..10_000 {
            held.push_back(b.alloc(pkt(s)));
            if held.len() > 3 {
                let id = held.pop_front().unwrap();
                assert_eq!(b.take(id).seq, s - 3, "FIFO order, read in place");
            }
        }
        assert_eq!((b.len(), b.slots()), (3, 4), "bounded by the peak in flight (4)");
    }

    #[test]
    fn updates_in_place_are_seen_by_later_reads() {
        let mut a = Arena::default();
        let id = a.alloc(pkt(7));
        a.get_mut(id).hop += 1;
        a.get_mut(id).queued_ns += 5;
        let p = a.take(id);
        assert_eq!((p.seq, p.hop, p.queued_ns), (7, 1, 5));
        assert_eq!(a.len(), 0);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "used after it was freed")]
    fn a_freed_id_is_caught_in_debug_builds() {
        let mut a = Arena::default();
        let id = a.alloc(pkt(1));
        a.free(id);
        let _ = a.get(id);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "used after it was freed")]
    fn a_double_free_is_caught_in_debug_builds() {
        let mut a = Arena::default();
        let id = a.alloc(pkt(1));
        a.free(id);
        a.free(id);
    }

    /// The point of the arena: what the hops move is small.
    #[test]
    fn hops_move_small_entries() {
        assert_eq!(std::mem::size_of::<PacketId>(), 4);
        assert_eq!(std::mem::size_of::<Transit>(), 32);
        assert_eq!(std::mem::size_of::<(u64, Transit)>(), 40, "a delay line entry");
    }

    #[test]
    fn transit_fields_are_written_back_when_the_packet_leaves_the_id_path() {
        let mut a = Arena::default();
        let mut t = a.enter(pkt(9));
        assert_eq!((t.flow, t.size, t.hop, t.kind, a.len()), (0, MTU, 0, Kind::Data, 1));
        t.hop += 2;
        t.queued_ns += 40;
        t.enqueued_at = Time(77);
        assert_eq!(a.get(t.id).hop, 0, "the arena copy is not touched in transit");
        let p = *a.sync(&t);
        assert_eq!((p.seq, p.hop, p.queued_ns, p.enqueued_at), (9, 2, 40, Time(77)));
        let q = a.leave(&t);
        assert_eq!((q.seq, q.hop, a.len()), (9, 2, 0));
    }
}
