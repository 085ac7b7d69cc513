//! The packet arena (issue 21): every packet in the network lives in one slot of a `Vec<Packet>`
//! owned by the [`super::Simulation`], and the hops move 4-byte [`PacketId`]s instead of 80-byte
//! packets (htsim passes pointers to pooled packets the same way).
//!
//! Invariants:
//! * A packet is written into its slot when it enters the network and read in place from then
//!   on. Data segments are built in the slot by the sender ([`Arena::alloc_with`] with
//!   [`crate::sender::Sender::poll_transmit_into`]) and ACKs by the receiver ([`ArenaAcks`], a
//!   [`crate::receiver::AckSink`]): a packet built field by field elsewhere and then copied
//!   stalls on the copy's wide loads (failed store-to-load forwarding). A packet coming back out
//!   of a queue or link that holds packets by value is copied in ([`Arena::alloc`]).
//! * On the common path only ids move: drop-tail/infinite FIFOs of rate links ([`Held`]: the id
//!   and the size, 8 bytes, in a [`crate::queue::Fifo`]), the transmission slot of rate links,
//!   and every delay line ([`Parked`]: the id and the due time; 24 bytes with the line's sequence
//!   number, against 88 for a packet). Queues that do not offer [`crate::queue::Queue::as_fifo`]
//!   (the AQMs) and trace/Wi-Fi links keep taking packets by value through their unchanged
//!   interfaces: the packet is copied out of the arena at their door ([`Arena::take`]) and back
//!   in when they hand it on.
//! * A slot is freed exactly once, when its packet leaves the id path: delivered (a data segment
//!   is copied out first, so that the receiver can write its ACKs into the arena; that copy reads
//!   bytes written long before, so it does not stall), processed by its sender (an ACK), dropped,
//!   or handed to a queue or link that holds packets by value. An id is never used after that:
//!   debug builds check every access ([`Arena::get`]) and every free.
//! * Freed slots are reused last-freed first (a plain stack: deterministic, and the reused slot
//!   is the one most likely still in cache), so the arena never holds more slots than the most
//!   packets that were ever in it at once: its memory is bounded by the run's peak of packets on
//!   the id path, as the FIFOs' and delay lines' own buffers were before. (A first-freed-first
//!   free list was 5.6 % slower at 1 Gbit/s.)
//! * `Simulation::check_conservation` holds the census: the arena holds exactly as many packets
//!   as there are ids in the FIFOs, transmission slots and delay lines.
//! * Reading a packet in place costs a cache miss when the arena outgrows the cache (at 1 Gbit/s
//!   with a BDP buffer, ~17 000 packets in flight, ~1.3 MB): the by-value engine streamed packets
//!   through its FIFOs and delay lines in order, which the hardware prefetches. When a delay line's
//!   head is taken, the next head's packet is read ahead ([`Arena::touch`]) so that its miss
//!   overlaps the work until it is due.
//!
//! Ids are not observable in any output: the arena changes where packets are kept, not what
//! happens to them, so every run's output is byte-identical to the by-value engine's.

use crate::packet::Packet;
use crate::queue::Queued;
use crate::sched::Due;
use crate::time::Time;

/// Index of a packet's slot in the [`Arena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PacketId(u32);

/// A packet waiting in a hop's FIFO: its id, and its size so the FIFO counts bytes without
/// reading the packet (8 bytes instead of 80).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    pub(crate) id: PacketId,
    size: u32,
}

impl Held {
    pub(crate) fn new(id: PacketId, size: u32) -> Held {
        Held { id, size }
    }
}

impl Queued for Held {
    #[inline]
    fn size(&self) -> u32 {
        self.size
    }
    /// The engine stamps `enqueued_at` in the arena before it offers the packet.
    #[inline]
    fn stamp(&mut self, _now: Time) {}
}

/// A packet waiting on a delay line: its id and its due time (a line entry is 24 bytes with
/// its sequence number, instead of 88).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parked {
    due: Time,
    pub(crate) id: PacketId,
}

impl Parked {
    pub(crate) fn new(id: PacketId) -> Parked {
        Parked { due: Time::ZERO, id }
    }
}

impl Due for Parked {
    #[inline]
    fn due(&self) -> Time {
        self.due
    }
    #[inline]
    fn set_due(&mut self, t: Time) {
        self.due = t;
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

    /// Let `write` build a packet in a free slot; its id if it did (it returns true), else the
    /// slot stays free. The packet is written where it stays, not built elsewhere and copied.
    #[inline]
    pub(crate) fn alloc_with(&mut self, write: impl FnOnce(&mut Packet) -> bool) -> Option<PacketId> {
        let i = match self.free.last() {
            Some(&i) => i,
            None => {
                let i = u32::try_from(self.slots.len()).expect("more than 2^32 packets in flight at once");
                self.slots
                    .push(Packet::data(0, 0, 0, crate::packet::Ecn::NotEct, Time::ZERO));
                #[cfg(debug_assertions)]
                self.live.push(false);
                self.free.push(i);
                i
            }
        };
        if !write(&mut self.slots[i as usize]) {
            return None;
        }
        self.free.pop();
        #[cfg(debug_assertions)]
        {
            debug_assert!(!self.live[i as usize], "free slot {i} was live");
            self.live[i as usize] = true;
        }
        Some(PacketId(i))
    }

    /// A slot for a new packet, which the caller overwrites entirely (its old contents are stale).
    #[inline]
    pub(crate) fn alloc_slot(&mut self) -> (PacketId, &mut Packet) {
        let Some(id) = self.alloc_with(|_| true) else {
            unreachable!("alloc_with always allocates when its writer agrees")
        };
        (id, &mut self.slots[id.0 as usize])
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

    /// Copy the packet out and free its slot (for a queue or link that holds packets by value).
    #[inline]
    pub(crate) fn take(&mut self, id: PacketId) -> Packet {
        let p = *self.get(id);
        self.free(id);
        p
    }

    /// Read a packet that will be needed soon (the next head of a delay line or of a FIFO), so
    /// that its cache miss overlaps the work until then instead of stalling it (a load whose
    /// value is kept with `black_box`; safe Rust has no prefetch instruction).
    #[inline]
    pub(crate) fn touch(&self, id: PacketId) {
        std::hint::black_box(self.get(id).flow);
    }

    /// Packets held now.
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots allocated: the most packets ever held at once.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }
}

/// A receiver's ACKs written straight into the arena ([`crate::receiver::AckSink`]): the ids
/// are collected in `ids`, in the order the receiver sent them.
pub(crate) struct ArenaAcks<'a> {
    pub(crate) arena: &'a mut Arena,
    pub(crate) ids: &'a mut Vec<PacketId>,
}

impl crate::receiver::AckSink for ArenaAcks<'_> {
    #[inline]
    fn next_ack(&mut self) -> &mut Packet {
        let (id, slot) = self.arena.alloc_slot();
        self.ids.push(id);
        slot
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
    fn a_writer_that_sends_nothing_leaves_its_slot_free() {
        let mut a = Arena::default();
        assert_eq!(a.alloc_with(|_| false), None);
        assert_eq!((a.len(), a.slots()), (0, 1), "one slot made, and free");
        let id = a
            .alloc_with(|p| {
                *p = pkt(5);
                true
            })
            .expect("written");
        assert_eq!(
            (a.get(id).seq, a.len(), a.slots()),
            (5, 1, 1),
            "the same slot, now held"
        );
        assert_eq!(a.alloc_with(|_| false), None);
        assert_eq!((a.len(), a.slots()), (1, 2));
        // ACKs written through the sink land in the arena, in order, reusing the free slot.
        let mut ids = Vec::new();
        let mut sink = ArenaAcks {
            arena: &mut a,
            ids: &mut ids,
        };
        for s in [7, 8] {
            *crate::receiver::AckSink::next_ack(&mut sink) = pkt(s);
        }
        assert_eq!(ids.iter().map(|i| a.get(*i).seq).collect::<Vec<_>>(), [7, 8]);
        assert_eq!((ids[0], a.len(), a.slots()), (PacketId(1), 3, 3));
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
        assert_eq!(std::mem::size_of::<Held>(), 8);
        assert_eq!(std::mem::size_of::<(u64, Parked)>(), 24);
    }
}
