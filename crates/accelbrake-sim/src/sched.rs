//! The event queue.
//!
//! Events are ordered by `(time, sequence number)`: the sequence number is assigned at insertion and
//! only grows, so events scheduled for the same nanosecond run in the order they were scheduled
//! (FIFO). Together with seeded randomness this makes every run a deterministic function of its
//! scenario. Events are plain values; popping and pushing never allocates beyond the heap's own
//! amortised growth.

use crate::time::Time;
use std::collections::VecDeque;

/// A pending event: `key` is `(time << 64) | seq`, so one 128-bit comparison orders entries by
/// time and then by sequence number (keys are unique: every entry has its own sequence number).
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

fn key(time: Time, seq: u64) -> u128 {
    (u128::from(time.0) << 64) | u128::from(seq)
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        Time((self.key >> 64) as u64)
    }
}

/// A binary min-heap of entries whose root can be handed out lazily.
///
/// [`Heap::take`] does not remove the earliest entry at once: it hands out a copy and marks the
/// root as taken. Handling an event nearly always schedules another one (the next packet of a
/// delay line, the end of the next transmission), and that insertion then overwrites the taken
/// root and sifts it down: one pass down the heap instead of a removal (down and up) plus an
/// insertion (up).
struct Heap<E> {
    v: Vec<Entry<E>>,
    /// The root (`v[0]`) was handed out and is no longer pending.
    taken: bool,
}

impl<E: Copy> Heap<E> {
    fn new() -> Self {
        Heap {
            v: Vec::new(),
            taken: false,
        }
    }

    /// Key of the earliest pending entry.
    #[inline]
    fn first_key(&self) -> Option<u128> {
        if self.taken {
            // The next earliest is one of the taken root's children.
            let kids = self.v.get(1..3.min(self.v.len())).unwrap_or(&[]);
            kids.iter().map(|e| e.key).min()
        } else {
            self.v.first().map(|e| e.key)
        }
    }

    fn len(&self) -> usize {
        self.v.len() - usize::from(self.taken)
    }

    fn iter(&self) -> impl Iterator<Item = &Entry<E>> {
        self.v[usize::from(self.taken)..].iter()
    }

    /// Hand out the root (the heap must be settled and not empty).
    #[inline]
    fn take(&mut self) -> Entry<E> {
        debug_assert!(!self.taken);
        self.taken = true;
        self.v[0]
    }

    /// Drop a root handed out by `take` that no insertion has overwritten.
    #[inline]
    fn settle(&mut self) {
        if self.taken {
            self.taken = false;
            let last = self.v.pop().expect("a taken root exists");
            if !self.v.is_empty() {
                self.sift_down(0, last.key, last.event);
            }
        }
    }

    /// Insert the entry `(key, event)`. Key and event come as two values, not as an `Entry`: a
    /// 32-byte `Entry` argument is passed in memory, and the callee's 16-byte load of its second
    /// half (the event and padding) waited for the caller's narrower store of the event to land
    /// (a failed store-to-load forward: 40 % of this function's samples).
    #[inline]
    fn insert(&mut self, key: u128, event: E) {
        if self.taken {
            // Overwrite the root handed out by `take` and move the new entry down.
            self.taken = false;
            self.sift_down(0, key, event);
        } else {
            self.v.push(Entry { key, event });
            self.sift_up(self.v.len() - 1, key, event);
        }
    }

    /// Put `(key, event)` into the hole at `i` (its value is overwritten), moving it up to its
    /// place.
    fn sift_up(&mut self, mut i: usize, key: u128, event: E) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.v[parent].key <= key {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = Entry { key, event };
    }

    /// Put `(key, event)` into the hole at `i` (its value is overwritten), moving it down to its
    /// place. The entry comes in as values, not read back from the slot just written.
    fn sift_down(&mut self, mut i: usize, key: u128, event: E) {
        let n = self.v.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.v[r].key < self.v[l].key { r } else { l };
            if key <= self.v[c].key {
                break;
            }
            self.v[i] = self.v[c];
            i = c;
        }
        self.v[i] = Entry { key, event };
    }
}

/// Timer slots are `2^SLOT_SHIFT` ns wide (1.05 ms).
const SLOT_SHIFT: u32 = 22;
/// Slots in the ring: timers due within ~1.07 s of the current slot wait in a slot's bucket.
const SLOTS: usize = 256;

/// Most timers a drained bucket keeps room for (16 × 32 bytes).
const BUCKET_KEEP: usize = 16;

/// The pending timers: a bucketed wheel in front of a small heap.
///
/// Time is cut into slots of `2^SLOT_SHIFT` ns. The timers of the current slot (and of any
/// earlier one) are in `active`, a binary heap in `(time, seq)` order; a timer of one of the next
/// `SLOTS - 1` slots waits unsorted in that slot's bucket of a ring, and a later one in the
/// `overflow` heap. When `active` runs empty, the next slot with timers becomes current and its
/// timers (the bucket's, and any of the overflow's due by its end) move into `active`.
/// Invariant: every timer outside `active` is due at or after the current slot's end, and
/// `active` is empty only if no timer is pending; so `active`'s root is the earliest timer, and
/// timers pop in exactly the order of one heap. With many flows (1000 flows: ~1,100 pending
/// RTO and delayed-ACK timers) a timer costs a push onto a bucket and a few steps of a heap of
/// a slot's timers, instead of ~10 levels of a heap of every timer.
struct Timers<E> {
    active: Heap<E>,
    /// The current slot (`time >> SLOT_SHIFT`).
    slot: u64,
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `i` set iff `buckets[i]` is not empty.
    occupied: [u64; SLOTS / 64],
    /// Timers in the buckets.
    in_buckets: usize,
    overflow: Heap<E>,
}

impl<E: Copy> Timers<E> {
    fn new() -> Self {
        Timers {
            active: Heap::new(),
            slot: 0,
            buckets: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: [0; SLOTS / 64],
            in_buckets: 0,
            overflow: Heap::new(),
        }
    }

    /// The earliest pending timer.
    #[inline]
    fn first(&self) -> Option<&Entry<E>> {
        self.active.v.first()
    }

    fn len(&self) -> usize {
        self.active.v.len() + self.in_buckets + self.overflow.v.len()
    }

    fn iter(&self) -> impl Iterator<Item = &Entry<E>> {
        self.active
            .v
            .iter()
            .chain(self.buckets.iter().flatten())
            .chain(self.overflow.v.iter())
    }

    #[inline]
    fn insert(&mut self, key: u128, event: E) {
        let slot = ((key >> 64) as u64) >> SLOT_SHIFT;
        if self.active.v.is_empty() {
            // Nothing pending at all (invariant): this timer's slot becomes the current one.
            self.slot = slot;
            self.active.insert(key, event);
        } else if slot <= self.slot {
            self.active.insert(key, event);
        } else if slot - self.slot < SLOTS as u64 {
            let i = slot as usize % SLOTS;
            self.buckets[i].push(Entry { key, event });
            self.occupied[i / 64] |= 1 << (i % 64);
            self.in_buckets += 1;
        } else {
            self.overflow.insert(key, event);
        }
    }

    /// Remove and return the earliest timer (there must be one).
    #[inline]
    fn pop(&mut self) -> Entry<E> {
        let e = self.active.take();
        self.active.settle();
        if self.active.v.is_empty() && self.len() > 0 {
            self.advance();
        }
        e
    }

    /// `active` ran empty with timers left: make the next slot with timers current.
    #[cold]
    #[inline(never)]
    fn advance(&mut self) {
        let from_bucket = self.next_occupied().map(|d| self.slot + d);
        let from_overflow = self.overflow.v.first().map(|e| e.time().0 >> SLOT_SHIFT);
        let next = match (from_bucket, from_overflow) {
            (Some(b), Some(o)) => b.min(o),
            (b, o) => b.or(o).expect("a timer is pending"),
        };
        self.slot = next;
        if from_bucket == Some(next) {
            let i = next as usize % SLOTS;
            self.occupied[i / 64] &= !(1 << (i % 64));
            self.in_buckets -= self.buckets[i].len();
            let mut b = std::mem::take(&mut self.buckets[i]);
            for e in b.drain(..) {
                self.active.insert(e.key, e.event);
            }
            // Keep a small buffer for the bucket's next use (no allocation per slot), not a
            // large one: buckets keeping their largest ever size held 0.3 MB more at 1000 flows.
            if b.capacity() <= BUCKET_KEEP {
                self.buckets[i] = b;
            }
        }
        while self
            .overflow
            .v
            .first()
            .is_some_and(|e| e.time().0 >> SLOT_SHIFT <= next)
        {
            let e = self.overflow.take();
            self.overflow.settle();
            self.active.insert(e.key, e.event);
        }
    }

    /// Slots from the current one to the next slot whose bucket holds timers (1 to
    /// `SLOTS - 1`), if any does.
    fn next_occupied(&self) -> Option<u64> {
        if self.in_buckets == 0 {
            return None;
        }
        let start = (self.slot as usize + 1) % SLOTS;
        // Scan the ring from `start`: the words from start's to the end, then from the first.
        let first_set_from = |i: usize, end: usize| -> Option<usize> {
            let mut w = i / 64;
            let mut bits = self.occupied[w] & (!0u64 << (i % 64));
            loop {
                if bits != 0 {
                    let j = w * 64 + bits.trailing_zeros() as usize;
                    return (j < end).then_some(j);
                }
                w += 1;
                if w * 64 >= end {
                    return None;
                }
                bits = self.occupied[w];
            }
        };
        let i = first_set_from(start, SLOTS).or_else(|| first_set_from(0, start))?;
        Some(((i + SLOTS - start) % SLOTS) as u64 + 1)
    }
}

/// A deterministic priority queue of events, ordered by `(time, seq)`.
///
/// A heap and a timer wheel share one sequence counter: events scheduled with
/// [`EventQueue::push`] (the packet path: link transmissions, delay-line heads) go to the heap,
/// and timers scheduled with [`EventQueue::push_timer`] (per-flow RTO and delayed-ACK timers,
/// samples), which are many with many flows but rarely due, to the wheel (`Timers`). Each pop
/// takes the earlier of the two; keys are unique, so events pop in exactly the `(time, seq)`
/// order of a single heap, while the frequent packet-path events move through a heap of a few
/// entries whatever the number of flows.
pub struct EventQueue<E> {
    main: Heap<E>,
    timers: Timers<E>,
    seq: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            main: Heap::new(),
            timers: Timers::new(),
            seq: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedule `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: Time, event: E) {
        let key = key(time, self.seq);
        self.seq += 1;
        self.main.insert(key, event);
    }

    /// Schedule `event` at `time`, as [`EventQueue::push`] (same order), for an event that is
    /// one of many pending timers and seldom the next to run: it waits in the timer wheel.
    #[inline]
    pub fn push_timer(&mut self, time: Time, event: E) {
        let key = key(time, self.seq);
        self.seq += 1;
        self.timers.insert(key, event);
    }

    /// Take the next sequence number without scheduling anything: the caller keeps `(time, seq)`
    /// with a value of its own (e.g. a packet on a delay line) and hands it to
    /// [`EventQueue::push_reserved`] later. The event then runs exactly where a plain
    /// [`EventQueue::push`] at this moment would have put it.
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let s = self.seq;
        self.seq += 1;
        s
    }

    /// Schedule `event` at `time` under a sequence number from [`EventQueue::reserve_seq`].
    #[inline]
    pub fn push_reserved(&mut self, time: Time, seq: u64, event: E) {
        debug_assert!(seq < self.seq, "sequence number {seq} was never reserved");
        self.main.insert(key(time, seq), event);
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.main.settle();
        let e = match (self.main.v.first(), self.timers.first()) {
            (Some(m), Some(t)) if t.key < m.key => self.timers.pop(),
            (Some(_), _) => self.main.take(),
            (None, Some(_)) => self.timers.pop(),
            (None, None) => return None,
        };
        Some((e.time(), e.event))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        let k = match (self.main.first_key(), self.timers.first().map(|e| e.key)) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(Time((k >> 64) as u64))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.main.len() + self.timers.len()
    }

    /// Whether no events are pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Total events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }

    /// Iterate over pending events (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = &E> {
        self.main.iter().chain(self.timers.iter()).map(|e| &e.event)
    }
}

/// A value that can wait on a [`DelayLine`]: the line keeps the value's due time in the value
/// itself ([`crate::packet::Packet`]: in `enqueued_at`, which means nothing while a packet is
/// between hops), so an entry is the value and a sequence number.
pub trait Due {
    /// The due time stored by [`Due::set_due`].
    fn due(&self) -> Time;
    /// Store the due time.
    fn set_due(&mut self, t: Time);
}

/// A FIFO of values that fall due in (time, sequence) order, such as the packets on one hop's
/// propagation delay: only its head has an event in the [`EventQueue`], so a delay line holding
/// thousands of packets costs the heap one entry instead of thousands of ~100-byte ones.
///
/// Each value keeps the sequence number reserved when it was pushed, so events run in exactly
/// the order they would if every value had been pushed into the event queue on its own. The due
/// time lives in the value ([`Due`]): an entry is 88 bytes for an 80-byte packet, not 96. The
/// engine's lines hold packet ids with their due time, 24-byte entries (its packet arena, issue
/// 21: at 1 Gbit/s × 100 ms a line holds thousands of packets).
pub struct DelayLine<T> {
    q: VecDeque<(u64, T)>,
}

impl<T> Default for DelayLine<T> {
    fn default() -> Self {
        DelayLine { q: VecDeque::new() }
    }
}

impl<T: Due> DelayLine<T> {
    /// Give back spare heap capacity (contents unchanged).
    pub(crate) fn shrink(&mut self) {
        self.q.shrink_to_fit();
    }

    /// Append `value`, due at `time` (not earlier than the last value's time), and schedule
    /// `head_event` for it if it is now the head. The value's due time is set to `time`.
    #[inline]
    pub fn push<E: Copy>(&mut self, events: &mut EventQueue<E>, time: Time, mut value: T, head_event: E) {
        debug_assert!(
            self.q.back().is_none_or(|b| b.1.due() <= time),
            "delay line is not FIFO: {time:?} after {:?}",
            self.q.back().map(|b| b.1.due())
        );
        let seq = events.reserve_seq();
        if self.q.is_empty() {
            events.push_reserved(time, seq, head_event);
        }
        value.set_due(time);
        self.q.push_back((seq, value));
    }

    /// Whether the values are due in order and none is due before `now` (checked by
    /// `Simulation::check_invariants`; `push` only debug-asserts the order).
    pub fn is_ordered_from(&self, now: Time) -> bool {
        self.q.front().is_none_or(|f| f.1.due() >= now)
            && self
                .q
                .iter()
                .zip(self.q.iter().skip(1))
                .all(|(a, b)| a.1.due() <= b.1.due())
    }

    /// Remove the head, which is due at `now` (its event has just run), and schedule
    /// `head_event` for the next value if there is one. The value comes back with its due time
    /// (`now`) set.
    #[inline]
    pub fn pop<E: Copy>(&mut self, events: &mut EventQueue<E>, now: Time, head_event: E) -> Option<T> {
        let (_, v) = self.q.pop_front()?;
        debug_assert_eq!(v.due(), now, "delay line head popped at the wrong time");
        if let Some((s, next)) = self.q.front() {
            events.push_reserved(next.due(), *s, head_event);
        }
        Some(v)
    }
}

impl<T> DelayLine<T> {
    /// The value `k` places behind the head (0: the head, the next to fall due), if any: the
    /// engine prefetches the packet it will take a few events from now.
    #[inline]
    pub fn nth(&self, k: usize) -> Option<&T> {
        self.q.get(k).map(|e| &e.1)
    }

    /// Values on the line.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether the line is empty.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test values carry their due time next to them.
    impl<T> Due for (Time, T) {
        fn due(&self) -> Time {
            self.0
        }
        fn set_due(&mut self, t: Time) {
            self.0 = t;
        }
    }

    #[test]
    fn emptiness_follows_pushes_and_pops_of_both_heaps() {
        let mut q = EventQueue::new();
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        q.push(Time(3), 'a');
        q.push_timer(Time(1), 't');
        assert!(!q.is_empty() && q.len() == 2);
        assert_eq!(q.pop(), Some((Time(1), 't')));
        assert!(!q.is_empty());
        assert_eq!(q.pop(), Some((Time(3), 'a')));
        assert!(q.is_empty() && q.pop().is_none());

        let mut line = DelayLine::default();
        assert!(line.is_empty() && line.nth(0).is_none());
        line.push(&mut q, Time(10), (Time::ZERO, 'x'), 'h');
        assert!(!line.is_empty() && line.len() == 1);
        assert_eq!(line.nth(0), Some(&(Time(10), 'x')));
        assert!(line.nth(1).is_none(), "one value on the line");
        assert_eq!(
            line.pop(&mut q, Time(10), 'h'),
            Some((Time(10), 'x')),
            "popped with its due time"
        );
        assert!(line.is_empty());
    }

    #[test]
    fn delay_line_order_check() {
        let mut q = EventQueue::new();
        let mut line = DelayLine::default();
        assert!(line.is_ordered_from(Time(100)));
        line.push(&mut q, Time(10), (Time::ZERO, 'a'), ());
        line.push(&mut q, Time(20), (Time::ZERO, 'b'), ());
        // Places behind the head, in the order they fall due.
        assert_eq!(
            (line.nth(0), line.nth(1), line.nth(2)),
            (Some(&(Time(10), 'a')), Some(&(Time(20), 'b')), None)
        );
        assert!(line.is_ordered_from(Time(10)));
        assert!(!line.is_ordered_from(Time(11)), "the head is overdue");
        // Out of order only in release builds (push debug-asserts FIFO order).
        line.q.push_back((99, (Time(15), 'c')));
        assert!(!line.is_ordered_from(Time(0)));
    }

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time(5), 'a');
        q.push(Time(1), 'b');
        q.push(Time(5), 'c');
        q.push(Time(1), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn reserved_sequence_numbers_keep_their_place() {
        // 'x' is reserved between 'a' and 'c' but pushed last: it still runs between them.
        let mut q = EventQueue::new();
        q.push(Time(5), 'a');
        let s = q.reserve_seq();
        q.push(Time(5), 'c');
        q.push_reserved(Time(5), s, 'x');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'x', 'c']);
    }

    /// A packet's entry on a delay line is the packet and a sequence number: its due time lives
    /// in the packet.
    #[test]
    fn a_packet_on_a_delay_line_takes_88_bytes() {
        assert_eq!(std::mem::size_of::<(u64, crate::packet::Packet)>(), 88);
    }

    #[test]
    fn delay_line_interleaves_like_individual_events() {
        // Same pushes into a delay line and into a plain queue pop in the same order.
        let mut plain = EventQueue::new();
        let mut q: EventQueue<Option<u32>> = EventQueue::new();
        let mut line = DelayLine::default();
        let pushes = [
            (3, true, 1),
            (3, false, 2),
            (4, true, 3),
            (4, true, 4),
            (4, false, 5),
            (9, true, 6),
        ];
        for &(t, on_line, v) in &pushes {
            plain.push(Time(t), v);
            if on_line {
                line.push(&mut q, Time(t), (Time::ZERO, v), None);
            } else {
                q.push(Time(t), Some(v));
            }
        }
        let mut got = Vec::new();
        while let Some((t, e)) = q.pop() {
            got.push(match e {
                Some(v) => v,
                None => line.pop(&mut q, t, None).unwrap().1,
            });
        }
        let want: Vec<u32> = std::iter::from_fn(|| plain.pop().map(|(_, e)| e)).collect();
        assert_eq!(got, want);
        assert!(line.is_empty());
    }

    /// A timer scheduled past the wheel's ring waits in the overflow heap; once the ring has moved
    /// on, a later timer can sit in a bucket while the earlier one is still in the overflow: the
    /// earlier pops first. (The ring holds `SLOTS` = 256 slots from the current one.)
    #[test]
    fn timers_past_the_ring_pop_before_later_ones_in_it() {
        let slot = |n: u64| Time(n << SLOT_SHIFT);
        let mut q = EventQueue::new();
        q.push_timer(slot(0), 'a'); // the current slot: the active heap
        q.push_timer(slot(200), 'b'); // within the ring: a bucket
        q.push_timer(slot(300), 'o'); // past the ring: overflow
        let t = &q.timers;
        assert_eq!(
            (t.active.v.len(), t.in_buckets, t.overflow.v.len()),
            (1, 1, 1),
            "where each waits"
        );
        assert_eq!(q.pop(), Some((slot(0), 'a')));
        // The wheel moved to slot 200 ('b' is active now); 400 is within the ring from there.
        q.push_timer(slot(400), 'c');
        let t = &q.timers;
        assert_eq!(
            (t.active.v.len(), t.in_buckets, t.overflow.v.len()),
            (1, 1, 1),
            "after the move"
        );
        q.push(slot(250), 'm');
        assert_eq!(q.len(), 4);
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'm', 'o', 'c']);
        // Empty again: the next timer starts the wheel over, even at an earlier slot.
        q.push_timer(slot(3), 'd');
        q.push_timer(slot(2), 'e');
        assert_eq!(q.peek_time(), Some(slot(2)));
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['e', 'd']);
    }

    /// Random pushes, timer pushes, reserved pushes and pops (with and without a push right
    /// after, which overwrites the taken root) pop in exactly (time, seq) order, and `peek_time`, `len` and
    /// `iter` agree with a sorted model at every step.
    #[test]
    fn heap_matches_a_sorted_model() {
        // Times within one timer slot, across many slots of the wheel, and past its ring.
        for (stream, spread) in [(0, 50), (1, 5 << SLOT_SHIFT), (2, (3 * SLOTS as u64) << SLOT_SHIFT)] {
            matches_a_sorted_model(stream, spread);
        }
    }

    fn matches_a_sorted_model(stream: u64, spread: u64) {
        let mut rng = crate::rng::Rng::stream(3, stream);
        let mut q: EventQueue<u64> = EventQueue::new();
        let mut model = std::collections::BTreeSet::new();
        let mut reserved = Vec::new();
        let mut now = 0u64;
        for step in 0..20_000 {
            match rng.below(8) {
                0..=2 => {
                    // Now and then at the very instant, or a long way off.
                    let t = match rng.below(10) {
                        0 => now,
                        1 => now + rng.below(spread * 40),
                        _ => now + rng.below(spread),
                    };
                    let s = q.scheduled();
                    if rng.below(3) == 0 {
                        q.push_timer(Time(t), s);
                    } else {
                        q.push(Time(t), s);
                    }
                    model.insert((t, s));
                }
                3 => reserved.push((now + rng.below(spread), q.reserve_seq())),
                4 if !reserved.is_empty() => {
                    let (t, s) = reserved.swap_remove(rng.below(reserved.len() as u64) as usize);
                    let t = t.max(now);
                    q.push_reserved(Time(t), s, s);
                    model.insert((t, s));
                }
                _ => {
                    let want = model.pop_first();
                    let got = q.pop().map(|(t, e)| (t.0, e));
                    assert_eq!(got, want, "step {step}");
                    if let Some((t, _)) = want {
                        now = t;
                    }
                }
            }
            assert_eq!(q.peek_time().map(|t| t.0), model.first().map(|e| e.0), "step {step}");
            assert_eq!(q.len(), model.len());
            if step % 50 != 0 {
                continue;
            }
            let mut pending: Vec<u64> = q.iter().copied().collect();
            pending.sort_unstable();
            let mut want: Vec<u64> = model.iter().map(|e| e.1).collect();
            want.sort_unstable();
            assert_eq!(pending, want, "step {step}");
        }
    }
}
