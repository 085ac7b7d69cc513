//! The packet arena: every packet in the network lives in one slot of a `Vec<Packet>`
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
//! * Slots are handed out in ring order ([`Arena`]): consecutive packets sit in consecutive slots,
//!   so each hop reads its packets in memory order, as the by-value engine's rings did. The arena
//!   never holds more than 5/2 times the most packets ever in it at once (or 4 × [`MIN_GROW`]
//!   slots).
//! * `Simulation::check_conservation` holds the census: the arena holds exactly as many packets
//!   as there are ids in the FIFOs, transmission slots and delay lines.
//! * Reading a packet in place costs a cache miss when the arena outgrows the cache (at 1 Gbit/s
//!   with a BDP buffer, ~17 000 packets in flight, ~1.3 MB; at 10 Gbit/s ~170 000, 13 MB): the
//!   engine prefetches ([`prefetch`]) the packet [`READ_AHEAD`] places behind the head of a FIFO or
//!   delay line when it takes the head, and the slot [`READ_AHEAD`] places after the one it hands
//!   out, so that those misses overlap other work instead of stalling it.
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

/// How many places ahead the engine prefetches: the packet that many places behind the head of a
/// FIFO or delay line it takes a packet from, and the slot that many places after the one it hands
/// out. 4 was measured best of 2, 3, 4, 6 and 8 at 10 Gbit/s (farm-bench, the 10- and 100-flow
/// dumbbells); closer is too late, farther is evicted again before it is read.
pub(crate) const READ_AHEAD: usize = 4;

/// Ask the CPU to fetch the cache line holding the start of `p` (`prefetcht0`). A hint only: it
/// neither reads nor writes `p` as far as the program can tell, and it does nothing on targets
/// other than x86-64.
#[inline(always)]
fn prefetch(p: &Packet) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs the `sse` target feature, which every x86-64 CPU has (it is
    // part of the x86-64 baseline that Rust's x86_64 targets assume); the call is unsafe only
    // because of that feature rule. A prefetch cannot fault and has no effect on memory, and the
    // address comes from a reference anyway. This is the crate's one `unsafe` block
    // (`#![deny(unsafe_code)]` in lib.rs): safe Rust has no prefetch, and without it the packet
    // arena was 5–14 % slower than packets by value at 10 Gbit/s (docs/performance.md).
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(p).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Slots looked at from the cursor before the arena grows instead (see [`Arena`]).
const SCAN: usize = 8;

/// Slots the arena starts with, and grows by at least.
const MIN_GROW: usize = 64;

/// A slab of packets, handed out in ring order.
///
/// Slots are handed out at a cursor that walks the slab in order and wraps around, skipping
/// slots still held. Packets leave the network roughly in the order they entered it (a slot lives
/// from a data segment's sending to its ACK's processing, about one RTT for every packet of a
/// path), so the cursor mostly finds its slot free, consecutive packets sit in consecutive slots,
/// and every hop reads its packets in memory order, as the by-value engine's rings did.
/// (A free list reused slots in an order that drifts further from the packets' order on every
/// round trip; at 10 Gbit/s, ~170 000 packets in flight, 13 MB of slots, that made most reads
/// cache misses and the run 1.7–2.1× slower than by value.)
///
/// When the [`SCAN`] slots from the cursor are all held and at least half of all slots are, the
/// arena grows by a quarter of its size (at least [`MIN_GROW`] slots) and the cursor moves into
/// the new slots; with fewer held, the cursor walks on to the next free slot. It grows at 1/2
/// held, to 5/4 of its size: so it never holds more than 5/2 times the most packets ever in it at
/// once, or 4 × [`MIN_GROW`] slots, whichever is more. (Measured with growth to 3/2 at 10 Gbit/s
/// with 100 flows: growing at 2/3 held took 52 MB instead of 63 but 1.02–1.10× the CPU of packets
/// by value, against 0.94 at 1/2 held; doubling at 1/2 held took 71 MB for 0.96. Growing to 5/4
/// instead of 3/2 runs at the same speed and holds 34 641 slots instead of 37 360 for a peak of
/// 16 676 packets at 1 Gbit/s.)
#[derive(Debug, Default)]
pub(crate) struct Arena {
    slots: Vec<Packet>,
    /// Which slots hold a packet.
    live: Vec<bool>,
    /// Where the next slot is looked for.
    cursor: usize,
    /// Packets held.
    held: usize,
}

impl Arena {
    /// A free slot at or after the cursor; the cursor is left on it. If the first [`SCAN`]
    /// slots are held, the arena grows when at least half its slots are held, else the walk goes
    /// on to the next free slot (there is one; each held slot is passed over at most once per
    /// lap, and with less than half held a lap hands out more slots than it passes, so this is
    /// O(1) amortised).
    #[inline]
    fn find_free(&mut self) -> usize {
        let n = self.slots.len();
        let mut i = self.cursor;
        for _ in 0..SCAN.min(n) {
            if !self.live[i] {
                self.cursor = i;
                return i;
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
        if self.held * 2 >= n {
            return self.grow();
        }
        self.cursor = i;
        self.walk()
    }

    /// [`Arena::find_free`] past its first [`SCAN`] slots.
    #[cold]
    #[inline(never)]
    fn walk(&mut self) -> usize {
        let n = self.slots.len();
        let mut i = self.cursor;
        while self.live[i] {
            i = if i + 1 == n { 0 } else { i + 1 };
        }
        self.cursor = i;
        i
    }

    /// Add a quarter as many slots as there are (at least [`MIN_GROW`]); the first new one.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) -> usize {
        let n = self.slots.len();
        let add = (n / 4).max(MIN_GROW);
        self.slots
            .resize(n + add, Packet::data(0, 0, 0, crate::packet::Ecn::NotEct, Time::ZERO));
        self.live.resize(n + add, false);
        self.cursor = n;
        n
    }

    /// Mark the slot at the cursor held and move the cursor past it.
    #[inline]
    fn commit(&mut self, i: usize) -> PacketId {
        debug_assert!(!self.live[i], "free slot {i} was live");
        self.live[i] = true;
        self.held += 1;
        self.cursor = if i + 1 == self.slots.len() { 0 } else { i + 1 };
        // The slot handed out a few packets from now was written about a lap ago: fetch it
        // while this packet is built.
        if let Some(p) = self.slots.get(i + READ_AHEAD) {
            prefetch(p);
        }
        PacketId(u32::try_from(i).expect("more than 2^32 packets in flight at once"))
    }

    /// Store a packet entering the network; its id is valid until [`Arena::free`] or
    /// [`Arena::take`].
    #[inline]
    pub(crate) fn alloc(&mut self, pkt: Packet) -> PacketId {
        let i = self.find_free();
        self.slots[i] = pkt;
        self.commit(i)
    }

    /// Let `write` build a packet in a free slot; its id if it did (it returns true), else the
    /// slot stays free (and the cursor on it). The packet is written where it stays, not built
    /// elsewhere and copied.
    #[inline]
    pub(crate) fn alloc_with(&mut self, write: impl FnOnce(&mut Packet) -> bool) -> Option<PacketId> {
        let i = self.find_free();
        if !write(&mut self.slots[i]) {
            return None;
        }
        Some(self.commit(i))
    }

    /// A slot for a new packet, which the caller overwrites entirely (its old contents are stale).
    #[inline]
    pub(crate) fn alloc_slot(&mut self) -> (PacketId, &mut Packet) {
        let i = self.find_free();
        let id = self.commit(i);
        (id, &mut self.slots[i])
    }

    #[inline]
    fn check(&self, id: PacketId) {
        debug_assert!(
            self.live.get(id.0 as usize).copied().unwrap_or(false),
            "packet id {} used after it was freed",
            id.0
        );
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
        self.live[id.0 as usize] = false;
        self.held -= 1;
    }

    /// Copy the packet out and free its slot (for a queue or link that holds packets by value).
    #[inline]
    pub(crate) fn take(&mut self, id: PacketId) -> Packet {
        let p = *self.get(id);
        self.free(id);
        p
    }

    /// Prefetch a packet that will be needed soon (a few places behind the head of a FIFO or a
    /// delay line): its cache miss then overlaps the work until it is read.
    #[inline]
    pub(crate) fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id.0 as usize) {
            prefetch(p);
        }
    }

    /// Packets held now.
    pub(crate) fn len(&self) -> usize {
        self.held
    }

    /// Slots allocated: the most packets ever held at once.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.slots.len()
    }
}

/// Packets through the arena as one hop moves them, for the criterion micro-benchmark
/// `arena` in `benches/core.rs` (one micro-benchmark per hot-path component). Not an
/// API: hidden from the docs, and it may change with the engine.
///
/// It keeps `held` packets in a FIFO of ids; [`ArenaRing::step`] is one packet in and the oldest
/// out, as a drop-tail hop does: a packet built in its slot, the head's id taken (with the
/// engine's prefetch of the packet [`READ_AHEAD`] places behind it when `prefetch` is on), its
/// size read in place and its slot freed.
#[doc(hidden)]
pub struct ArenaRing {
    arena: Arena,
    fifo: std::collections::VecDeque<PacketId>,
    prefetch: bool,
}

impl ArenaRing {
    /// A ring holding `held` packets (at least 1).
    pub fn new(held: usize, prefetch: bool) -> ArenaRing {
        let mut r = ArenaRing {
            arena: Arena::default(),
            fifo: std::collections::VecDeque::new(),
            prefetch,
        };
        for seq in 0..held.max(1) {
            r.push(seq as u32);
        }
        r
    }

    fn push(&mut self, seq: u32) {
        let id = self.arena.alloc_with(|p| {
            *p = Packet::data(
                0,
                seq,
                crate::packet::MTU,
                crate::packet::Ecn::NotEct,
                Time(u64::from(seq)),
            );
            true
        });
        self.fifo.push_back(id.expect("the writer always writes"));
    }

    /// One packet in, the oldest out; the size read from the oldest.
    #[inline]
    pub fn step(&mut self, seq: u32) -> u32 {
        self.push(seq);
        let id = self.fifo.pop_front().expect("the ring holds a packet");
        if self.prefetch {
            if let Some(&next) = self.fifo.get(READ_AHEAD) {
                self.arena.prefetch(next);
            }
        }
        let size = self.arena.get(id).size;
        self.arena.free(id);
        size
    }

    /// Slots the arena has (for the benchmark's report).
    pub fn slots(&self) -> usize {
        self.arena.slots.len()
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

    /// An arena of MIN_GROW slots, all held (packet `s` in slot `s`), the cursor back at 0.
    fn full_arena() -> (Arena, Vec<PacketId>) {
        let mut a = Arena::default();
        let ids: Vec<PacketId> = (0..MIN_GROW as u32).map(|s| a.alloc(pkt(s))).collect();
        assert_eq!((a.len(), a.slots(), a.cursor), (MIN_GROW, MIN_GROW, 0));
        (a, ids)
    }

    #[test]
    fn slots_are_handed_out_in_ring_order() {
        let mut a = Arena::default();
        let ids: Vec<PacketId> = (0..3).map(|s| a.alloc(pkt(s))).collect();
        assert_eq!(ids, [PacketId(0), PacketId(1), PacketId(2)]);
        assert_eq!(
            (a.len(), a.slots()),
            (3, MIN_GROW),
            "the first allocation makes MIN_GROW slots"
        );
        assert_eq!(ids.iter().map(|i| a.get(*i).seq).collect::<Vec<_>>(), [0, 1, 2]);
        // A freed slot waits for the cursor's next lap: the next packet takes the next slot.
        a.free(ids[1]);
        assert_eq!(a.alloc(pkt(3)), PacketId(3));
        for s in 4..MIN_GROW as u32 {
            assert_eq!(a.alloc(pkt(s)), PacketId(s), "consecutive packets, consecutive slots");
        }
        // Lap two: slot 0 is held, slot 1 (freed above) is the next free one.
        assert_eq!(a.alloc(pkt(100)), ids[1]);
        assert_eq!(a.get(ids[1]).seq, 100, "the reused slot holds the new packet");
        assert_eq!((a.len(), a.slots()), (MIN_GROW, MIN_GROW));
        // Every slot held: the arena grows by MIN_GROW and the cursor moves into the new slots.
        assert_eq!(a.alloc(pkt(101)), PacketId(MIN_GROW as u32));
        assert_eq!((a.len(), a.slots()), (MIN_GROW + 1, 2 * MIN_GROW));
    }

    #[test]
    fn past_scan_held_slots_the_cursor_walks_on_while_less_than_half_are_held() {
        let (mut a, ids) = full_arena();
        // Slots 0..=9 stay held (more than SCAN in a row from the cursor, back at 0), the rest
        // are freed: 10 of 64 held, so the cursor walks past them instead of growing.
        for &id in &ids[10..] {
            a.free(id);
        }
        assert_eq!(a.alloc(pkt(1000)), PacketId(10));
        assert_eq!((a.len(), a.slots()), (11, MIN_GROW));
    }

    #[test]
    fn the_walk_wraps_around_the_end_of_the_slab() {
        let (mut a, ids) = full_arena();
        // Held: slots 0, 1 and 50..=63 (16 of 64, under half); the cursor at 50. The first SCAN
        // slots from it are held, so it walks on, past the end, to slot 2.
        for &id in &ids[2..50] {
            a.free(id);
        }
        a.cursor = 50;
        assert_eq!(a.alloc(pkt(1000)), PacketId(2));
        assert_eq!((a.len(), a.slots()), (17, MIN_GROW));
    }

    #[test]
    fn from_half_held_it_grows_by_a_quarter_instead_of_walking() {
        let (mut a, ids) = full_arena();
        // 40 of 64 held (from half on), in a row from the cursor (back at 0): it grows.
        for &id in &ids[40..] {
            a.free(id);
        }
        assert_eq!(a.alloc(pkt(1000)), PacketId(MIN_GROW as u32));
        assert_eq!(a.slots(), 2 * MIN_GROW, "64 → 128: by MIN_GROW while a quarter is less");
        // Always full: 64 → 128 → 192 → 256 → 320 → 400 slots, each growth when the next packet
        // finds none (by a quarter from 256 on).
        let mut b = Arena::default();
        for want in [64, 128, 192, 256, 320, 400] {
            while b.len() < want {
                b.alloc(pkt(0));
                assert_eq!(b.slots(), want, "{} held", b.len());
            }
        }
    }

    /// A hop's FIFO of ids counts the packets' bytes from the size next to each id.
    #[test]
    fn a_fifo_of_ids_counts_bytes_and_drops_at_a_byte_limit() {
        let mut a = Arena::default();
        let mut f: crate::queue::Fifo<Held> = crate::queue::Fifo::new(crate::queue::Limit::Bytes(3000));
        for s in 0..3 {
            let id = a.alloc(pkt(s));
            let r = f.push(Time::ZERO, Held::new(id, MTU));
            assert_eq!(
                r.is_ok(),
                s < 2,
                "two {MTU}-byte packets fit 3000 bytes, a third does not"
            );
        }
        assert_eq!((f.len(), f.bytes()), (2, 2 * u64::from(MTU)));
        assert_eq!(f.pop().map(|h| a.get(h.id).seq), Some(0));
        assert_eq!(f.bytes(), u64::from(MTU));
    }

    /// Random lifetimes (a deterministic stream): ids stay valid and distinct, and the slab stays
    /// within 5/2 times the most packets held at once (or 4 × MIN_GROW).
    #[test]
    fn memory_stays_within_five_halves_of_the_peak() {
        let mut rng = crate::rng::Rng::stream(7, 21);
        let mut a = Arena::default();
        let mut held: Vec<(PacketId, u32)> = Vec::new();
        let mut peak = 0;
        for s in 0..200_000u32 {
            // Phases: the number held drifts up to ~3 000, down, and up again.
            let grow = (s / 40_000) % 2 == 0;
            if held.is_empty() || rng.below(100) < if grow { 60 } else { 40 } {
                held.push((a.alloc(pkt(s)), s));
            } else {
                // Mostly the oldest (FIFO-like), sometimes any.
                let k = if rng.below(10) < 8 {
                    0
                } else {
                    rng.below(held.len() as u64) as usize
                };
                let (id, seq) = held.remove(k);
                assert_eq!(a.take(id).seq, seq);
            }
            peak = peak.max(held.len());
            assert_eq!(a.len(), held.len());
            assert!(
                2 * a.slots() <= (5 * peak).max(8 * MIN_GROW),
                "{} slots for a peak of {peak}",
                a.slots()
            );
        }
        assert!(peak > 1000, "the test reached {peak} packets held");
    }

    /// The micro-benchmark's ring: every step reads back a packet that was written, and the
    /// slab stays within the arena's bound.
    #[test]
    fn the_benchmark_ring_moves_packets_through_the_arena() {
        for prefetch in [true, false] {
            let mut r = ArenaRing::new(1_000, prefetch);
            for s in 0..10_000u32 {
                assert_eq!(r.step(s), MTU);
            }
            assert_eq!(r.arena.len(), 1_000);
            assert!((1_000..=2_502).contains(&r.slots()), "{} slots", r.slots());
        }
    }

    #[test]
    fn a_writer_that_sends_nothing_leaves_its_slot_free() {
        let mut a = Arena::default();
        assert_eq!(a.alloc_with(|_| false), None);
        assert_eq!(a.len(), 0, "nothing held");
        let id = a
            .alloc_with(|p| {
                *p = pkt(5);
                true
            })
            .expect("written");
        assert_eq!(
            (id, a.get(id).seq, a.len()),
            (PacketId(0), 5, 1),
            "the slot the refusal left free"
        );
        assert_eq!(a.alloc_with(|_| false), None);
        assert_eq!(a.len(), 1);
        // ACKs written through the sink land in the arena, in order, in the next slots.
        let mut ids = Vec::new();
        let mut sink = ArenaAcks {
            arena: &mut a,
            ids: &mut ids,
        };
        for s in [7, 8] {
            *crate::receiver::AckSink::next_ack(&mut sink) = pkt(s);
        }
        assert_eq!(ids.iter().map(|i| a.get(*i).seq).collect::<Vec<_>>(), [7, 8]);
        assert_eq!((ids[0], ids[1], a.len()), (PacketId(1), PacketId(2), 3));
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
