//! Queues and AQMs behind one trait.
//!
//! A queue never owns the clock: the hop calls [`Queue::enqueue`] when a packet arrives and
//! [`Queue::dequeue`] when its link can take a packet, passing `now` and what the router knows about
//! the link ([`LinkInfo`]). Drops decided at dequeue time (AQMs) are pushed into the `drops` buffer.
//!
//! Every queue type is one row of [`QUEUES`] (a [`QueueKind`]: name, parameter table, buffer-limit
//! rule and factory), declared in its own file (drop-tail and infinite here) and listed once in the
//! `registry!` below; scenario checking, the engine and the Python catalog derive from it.

use crate::error::{did_you_mean, Error};
use crate::packet::Packet;
use crate::params::{self, Given, Param, Unit, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// How a queue type's buffer limit is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitRule {
    /// No limit and no `packets`/`bytes` parameters.
    None,
    /// `packets` or `bytes` must be given.
    Required,
    /// `packets` or `bytes` may be given; otherwise the `packets` default applies.
    Optional,
}

/// The factory of a queue type: builds the queue from checked values with its own random stream.
pub type QueueFactory = fn(&Values, Rng) -> Box<dyn Queue>;

/// One row of the queue registry.
#[derive(Clone, Copy)]
pub struct QueueKind {
    /// Type name in scenarios (`hops[].queue.type`) and the `--set` prefix of its parameters.
    pub name: &'static str,
    /// Name as the papers write it.
    pub display: &'static str,
    /// One line saying what it is.
    pub summary: &'static str,
    /// What it follows.
    pub source: &'static str,
    /// Its parameters, `packets` and `bytes` included when it has a limit.
    pub params: &'static [Param],
    /// How its buffer limit is given.
    pub limit: LimitRule,
    /// Other spellings of the type name (Mahimahi's `cellular` for the ABC router).
    pub aliases: &'static [&'static str],
    /// Builds the queue.
    pub build: QueueFactory,
    /// Its operating-range check, if it has one: warnings about a hop's settings
    /// ([`crate::warning`]). `None`: no known bounds.
    pub warnings: Option<crate::warning::QueueCheck>,
}

impl std::fmt::Debug for QueueKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueKind")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// `packets`: the buffer limit in packets, with this default.
pub const fn packets_param(default: u64) -> Param {
    Param::whole("packets", default, Unit::Packets, 1, 1_000_000_000)
        .doc("buffer limit in packets (or give bytes)", "")
        .aliases(&["limit"])
}

/// `packets` without a default (drop-tail: a limit must be given).
pub const PACKETS_REQUIRED: Param = packets_param(0).unset();

/// `bytes`: the buffer limit in bytes, instead of packets.
pub const BYTES_PARAM: Param = Param::whole("bytes", 0, Unit::Bytes, 1500, 1_000_000_000_000)
    .unset()
    .doc("buffer limit in bytes, instead of packets", "");

impl QueueKind {
    /// Check a queue's fields (`given`, without `type`) and its limit rule; `prefix` names the
    /// queue in errors (`hops[0].queue`).
    pub fn values(&self, given: &Given, prefix: &str) -> crate::error::Result<Values> {
        let owner = format!("the {} queue", self.name);
        let v = params::parse(prefix, &owner, &[self.params], given)?;
        if self.limit == LimitRule::None {
            return Ok(v);
        }
        match (v.is_given("packets"), v.is_given("bytes")) {
            (true, true) => Err(Error::Param {
                key: prefix.into(),
                msg: "give either packets or bytes, not both".into(),
            }),
            (false, false) if self.limit == LimitRule::Required => Err(Error::Param {
                key: prefix.into(),
                msg: format!("a {} queue needs a limit: packets=N or bytes=N", self.name),
            }),
            _ => Ok(v),
        }
    }

    /// The queue type as a catalog entry.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "display": self.display,
            "summary": self.summary,
            "source": self.source,
            "limit": match self.limit {
                LimitRule::None => "none",
                LimitRule::Required => "required",
                LimitRule::Optional => "optional",
            },
            "aliases": self.aliases,
            "params": self.params.iter().map(Param::to_json).collect::<Vec<_>>(),
        })
    }
}

/// The buffer limit in checked values: `bytes` if given, else `packets`, else none.
pub fn limit_of(v: &Values) -> Limit {
    let has = |n: &str| v.table().iter().any(|p| p.name == n);
    if has("bytes") {
        if let Some(b) = v.opt_whole("bytes") {
            return Limit::Bytes(b);
        }
    }
    if has("packets") {
        if let Some(p) = v.opt_whole("packets") {
            return Limit::Packets(p);
        }
    }
    Limit::Infinite
}

// Queues whose decisions are made outside the core (Python); not a queue type of the registry.
pub mod external;

/// Declares the queue files (`pub mod`) and lists their rows in [`QUEUES`], one line per file.
macro_rules! registry {
    ($($file:ident => [$($row:ident),* $(,)?]),* $(,)?) => {
        $(pub mod $file;)*
        /// Every queue type, in listing order.
        pub static QUEUES: &[&QueueKind] = &[&DROPTAIL, &INFINITE, $($(&$file::$row),*),*];
    };
}

// The same files as plain (never compiled) `mod` items, so that source walkers that do not expand
// macros, such as cargo-mutants (docs/testing.md), find them; `rustfmt::skip` keeps `cargo fmt`
// from formatting them through these items. Keep in step with `registry!` below (a unit test checks).
#[cfg(any())]
#[rustfmt::skip]
mod abc;
#[cfg(any())]
#[rustfmt::skip]
mod codel;
#[cfg(any())]
#[rustfmt::skip]
mod pie;
#[cfg(any())]
#[rustfmt::skip]
mod xcp;
#[cfg(any())]
#[rustfmt::skip]
mod rcp;
#[cfg(any())]
#[rustfmt::skip]
mod vcp;
#[cfg(any())]
#[rustfmt::skip]
mod coexist;
#[cfg(any())]
#[rustfmt::skip]
mod dualpi2;

registry! {
    abc => [ABC, PK_ABC, ABC_PREDICT],
    codel => [CODEL],
    pie => [PIE],
    xcp => [XCP, XCP_W],
    rcp => [RCP],
    vcp => [VCP],
    coexist => [COEXIST],
    dualpi2 => [DUALPI2],
}

/// Queue type names, in listing order.
pub fn names() -> Vec<&'static str> {
    QUEUES.iter().map(|q| q.name).collect()
}

/// The registry row of a queue type; the error (under `key`) lists the types and suggests one.
pub fn lookup(name: &str, key: &str) -> crate::error::Result<&'static QueueKind> {
    QUEUES.iter().copied().find(|q| q.name == name).ok_or_else(|| {
        let names = names();
        Error::Param {
            key: key.into(),
            msg: format!(
                "unknown queue type '{name}'{}; available: {}",
                did_you_mean(name, &names),
                names.join(", ")
            ),
        }
    })
}

/// Drop-tail: tail drop by packets or bytes.
pub const DROPTAIL: QueueKind = QueueKind {
    name: "droptail",
    display: "drop-tail",
    summary: "tail drop by packets or bytes",
    source: "Mahimahi DropTailQueue",
    params: &[PACKETS_REQUIRED, BYTES_PARAM],
    limit: LimitRule::Required,
    aliases: &["drop-tail", "fifo"],
    build: |v, _rng| Box::new(DropTail::new(limit_of(v))),
    warnings: None,
};

/// Infinite: never drops (Mahimahi's default queue).
pub const INFINITE: QueueKind = QueueKind {
    name: "infinite",
    display: "infinite",
    summary: "never drops (Mahimahi's default)",
    source: "Mahimahi InfiniteQueue",
    params: &[],
    limit: LimitRule::None,
    aliases: &["inf"],
    build: |_v, _rng| Box::new(DropTail::new(Limit::Infinite)),
    warnings: None,
};

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
    /// Take the next packet of `user` for a multi-user link with per-user queues
    /// ([`crate::wifi::PerUserQueue`]); a queue without users serves its head.
    fn dequeue_user(&mut self, now: Time, _user: usize, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        self.dequeue(now, link, drops)
    }
    /// The queue as a plain [`Fifo`], if that is all it is (drop-tail, infinite). On a rate link
    /// the engine then queues packet ids in a `Fifo` of its own with this one's limit (its packet
    /// arena), and this queue stays empty; on a trace link it pushes and pops through
    /// this one directly, without a virtual call that takes and returns the 80-byte packet by
    /// value each way (2–3 % of a drop-tail run's CPU). A queue that returns it must
    /// behave exactly as its `Fifo`'s `push`/`pop` (no timers, marks, or drops at dequeue), and
    /// answer the same from the start of the run (the engine asks once, when it builds the hop).
    fn as_fifo(&mut self) -> Option<&mut Fifo> {
        None
    }
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
    /// When the queue's own timer (PIE's probability update, XCP's control interval, RCP's rate
    /// update, VCP's load-factor period) next needs to run.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Run the queue's timer; called at (or after) the time [`Queue::next_timer`] returned.
    /// `link` answers what the router knows about its link's capacity over any interval (the
    /// router knows the link schedule, as ABC's does); the queue still never owns the clock.
    #[allow(unused_variables)]
    fn on_timer(&mut self, now: Time, link: &dyn LinkSchedule) {}
    /// If the queue wants [`LinkInfo::capacity`] measured over the window that ends this far in
    /// the **future** (PK-ABC, ABC paper §7.6: the link rate one RTT ahead, known from the trace),
    /// instead of the window that ends now.
    fn capacity_lookahead(&self) -> Option<Dur> {
        None
    }
    /// If the queue reads the link schedule before it is asked for packets
    /// ([`Queue::observe_link`]); asked once, when the hop is built, so that queues which do not
    /// pay nothing per dequeue.
    fn observes_link(&self) -> bool {
        false
    }
    /// Called at `now`, before the dequeues of `now`, when [`Queue::observes_link`]: what the link
    /// could carry over any interval (XCP_w: its capacity over the last mean RTT, as the ABC
    /// artifact's `xcp_packet_queue.cc` counts dequeue opportunities over it).
    #[allow(unused_variables)]
    fn observe_link(&mut self, now: Time, link: &dyn LinkSchedule) {}
}

/// The link as a router's timer sees it: capacity over any interval, from the schedule.
pub trait LinkSchedule {
    /// Bytes the link can carry in `[from, to)` (trace: opportunity bytes, every opportunity
    /// counted, used or wasted; rate link: the integral of the rate). `from`/`to` may lie in the
    /// future.
    fn capacity_between(&self, from: Time, to: Time) -> f64;
    /// Bytes the link charges per packet on top of its IP size (see [`LinkInfo::overhead`]).
    fn overhead(&self) -> u32;
    /// Capacity bytes of the `window` ending now as a router measuring its own link counts them
    /// (ABC's μ, [`LinkInfo::capacity`]): on a trace link the opportunities in `(now − window,
    /// now]` taken so far (of several at one millisecond, those already served); by default the
    /// schedule's `(now − window, now]`.
    fn capacity_recent(&self, now: Time, window: Dur) -> f64 {
        schedule_recent(self, now, window)
    }
}

/// A schedule's capacity bytes in `(now − window, now]` (the default of
/// [`LinkSchedule::capacity_recent`]).
pub fn schedule_recent<S: LinkSchedule + ?Sized>(s: &S, now: Time, window: Dur) -> f64 {
    let end = now + Dur(1);
    s.capacity_between(end - window, end)
}

/// A constant-rate link schedule (bytes/s), for unit tests of router timers.
#[derive(Clone, Copy, Debug)]
pub struct ConstantSchedule(pub f64);

impl LinkSchedule for ConstantSchedule {
    fn capacity_between(&self, from: Time, to: Time) -> f64 {
        if to <= from {
            0.0
        } else {
            self.0 * (to - from).secs_f64()
        }
    }
    fn overhead(&self) -> u32 {
        0
    }
}

/// A constant-rate link schedule (bytes/s) that charges a per-packet overhead (bytes; a Mahimahi
/// trace link charges 4), for unit tests of routers that count wire bytes.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct WireSchedule(pub f64, pub u32);

#[cfg(test)]
impl LinkSchedule for WireSchedule {
    fn capacity_between(&self, from: Time, to: Time) -> f64 {
        ConstantSchedule(self.0).capacity_between(from, to)
    }
    fn overhead(&self) -> u32 {
        self.1
    }
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

/// What a [`Fifo`] holds: a packet, or (in the engine's drop-tail hops on rate links) a handle to
/// a packet that stays in the engine's packet arena, with the packet's size next to it so the
/// FIFO can count bytes without reading the packet.
pub trait Queued {
    /// Size on the wire in bytes (IP packet).
    fn size(&self) -> u32;
    /// Stamp the enqueue time (a handle's packet is stamped by the engine, in the arena).
    fn stamp(&mut self, now: Time);
}

impl Queued for Packet {
    #[inline]
    fn size(&self) -> u32 {
        self.size
    }
    #[inline]
    fn stamp(&mut self, now: Time) {
        self.enqueued_at = now;
    }
}

/// A FIFO with a limit: the building block of drop-tail and of AQMs. It holds packets
/// (`Fifo<Packet>`, what every queue uses) or, in the engine, arena handles ([`Queued`]).
#[derive(Clone, Debug)]
pub struct Fifo<T = Packet> {
    q: VecDeque<T>,
    bytes: u64,
    limit: Limit,
    /// Counters.
    pub stats: QueueStats,
}

impl<T: Queued> Fifo<T> {
    /// An empty FIFO.
    pub fn new(limit: Limit) -> Fifo<T> {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            stats: QueueStats::default(),
        }
    }

    /// The buffer limit.
    pub fn limit(&self) -> Limit {
        self.limit
    }

    /// Whether `pkt` would fit.
    pub fn fits(&self, pkt: &T) -> bool {
        match self.limit {
            Limit::Packets(n) => (self.q.len() as u64) < n,
            Limit::Bytes(b) => self.bytes + pkt.size() as u64 <= b,
            Limit::Infinite => true,
        }
    }

    /// Tail-drop enqueue, stamping the enqueue time.
    #[inline]
    pub fn push(&mut self, now: Time, mut pkt: T) -> Result<(), T> {
        if !self.fits(&pkt) {
            self.stats.dropped += 1;
            return Err(pkt);
        }
        pkt.stamp(now);
        self.bytes += pkt.size() as u64;
        self.q.push_back(pkt);
        self.stats.enqueued += 1;
        self.stats.max_packets = self.stats.max_packets.max(self.q.len() as u64);
        Ok(())
    }

    /// Remove the head.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size() as u64;
        self.stats.dequeued += 1;
        Some(p)
    }

    /// The entry `k` places behind the head (0: the head), if any: the engine prefetches the
    /// packet it will send a few packets from now.
    #[inline]
    pub fn nth(&self, k: usize) -> Option<&T> {
        self.q.get(k)
    }

    /// The head, if any.
    pub fn peek(&self) -> Option<&T> {
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
    fn as_fifo(&mut self) -> Option<&mut Fifo> {
        Some(&mut self.fifo)
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

/// The files listed in `source`'s `registry!` block each have a `#[cfg(any())]` `mod` item (so
/// that cargo-mutants finds them), and no other file has one.
#[cfg(test)]
pub(crate) fn assert_registry_files_are_visible(source: &str) {
    let block = source.split("registry! {").nth(1).expect("a registry! block");
    let block = &block[..block.find("\n}").expect("the block's end")];
    let mut listed: Vec<&str> = block
        .lines()
        .filter_map(|l| l.split_once("=>").map(|(f, _)| f.trim()))
        .collect();
    let mut visible: Vec<&str> = source
        .split("#[cfg(any())]\n#[rustfmt::skip]\nmod ")
        .skip(1)
        .map(|rest| &rest[..rest.find(';').expect("mod item")])
        .collect();
    listed.sort_unstable();
    visible.sort_unstable();
    assert_eq!(visible, listed, "cfg(any()) mod items and registry! entries differ");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_recent_is_the_window_ending_with_now_included() {
        // m bytes at each whole millisecond m: (3 ms, 5 ms] holds 4 + 5, [3 ms, 5 ms) would be 3 + 4.
        struct ByMs;
        impl LinkSchedule for ByMs {
            fn capacity_between(&self, from: Time, to: Time) -> f64 {
                (0..10u64)
                    .filter(|&m| from <= Time::from_millis(m) && Time::from_millis(m) < to)
                    .map(|m| m as f64)
                    .sum()
            }
            fn overhead(&self) -> u32 {
                0
            }
        }
        assert_eq!(ByMs.capacity_recent(Time::from_millis(5), Dur::from_millis(2)), 9.0);
        assert_eq!(schedule_recent(&ByMs, Time::from_millis(5), Dur::from_millis(3)), 12.0);
    }

    #[test]
    fn every_queue_file_is_visible_to_cargo_mutants() {
        assert_registry_files_are_visible(include_str!("mod.rs"));
    }
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

    /// `as_fifo` promises that the queue is its FIFO and nothing else (the engine then bypasses
    /// `enqueue`/`dequeue`): drop-tail and infinite make it, with the same buffer the trait
    /// methods use; every other registered queue keeps the trait path.
    #[test]
    fn only_plain_fifos_offer_their_fifo_and_it_is_the_buffer_the_trait_uses() {
        for kind in QUEUES {
            let g = match kind.limit {
                LimitRule::None => given(&[]),
                _ => given(&[("packets", 2.0)]),
            };
            let mut q = (kind.build)(&kind.values(&g, "q").unwrap(), Rng::stream(1, 0));
            let plain = matches!(kind.name, "droptail" | "infinite");
            assert_eq!(q.as_fifo().is_some(), plain, "{}", kind.name);
            if plain {
                q.as_fifo().unwrap().push(Time::ZERO, pkt(0)).unwrap();
                assert!(q.enqueue(Time::ZERO, pkt(1)).is_ok());
                assert_eq!(q.len_packets(), 2);
                let mut d = Vec::new();
                assert_eq!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap().seq, 0);
                assert_eq!(q.as_fifo().unwrap().pop().unwrap().seq, 1);
                assert_eq!((q.stats().enqueued, q.stats().dequeued), (2, 2));
            }
        }
    }

    #[test]
    fn infinite_never_drops() {
        let mut q = DropTail::new(Limit::Infinite);
        for i in 0..10_000 {
            assert!(q.enqueue(Time::ZERO, pkt(i)).is_ok());
        }
        assert_eq!(q.len_packets(), 10_000);
    }

    fn given(pairs: &[(&str, f64)]) -> Given {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), params::Value::Num(*v)))
            .collect()
    }

    #[test]
    fn limit_rules_and_limit_of() {
        let droptail = lookup("droptail", "q").unwrap();
        let v = droptail.values(&given(&[("packets", 5.0)]), "hops[0].queue").unwrap();
        assert_eq!(limit_of(&v), Limit::Packets(5));
        let v = droptail.values(&given(&[("bytes", 3000.0)]), "hops[0].queue").unwrap();
        assert_eq!(limit_of(&v), Limit::Bytes(3000));
        for (g, msg) in [
            (
                given(&[("packets", 5.0), ("bytes", 3000.0)]),
                "give either packets or bytes, not both",
            ),
            (given(&[]), "a droptail queue needs a limit: packets=N or bytes=N"),
        ] {
            match droptail.values(&g, "hops[0].queue") {
                Err(Error::Param { key, msg: m }) => assert_eq!((key.as_str(), m.as_str()), ("hops[0].queue", msg)),
                other => panic!("{other:?}"),
            }
        }
        // Optional: the packets default applies; both given is still an error.
        let codel = lookup("codel", "q").unwrap();
        let v = codel.values(&given(&[]), "q").unwrap();
        assert_eq!(limit_of(&v), Limit::Packets(super::codel::DEFAULT_LIMIT_PACKETS));
        assert_eq!(
            limit_of(&codel.values(&given(&[("bytes", 1500.0)]), "q").unwrap()),
            Limit::Bytes(1500)
        );
        assert!(codel
            .values(&given(&[("packets", 5.0), ("bytes", 3000.0)]), "q")
            .is_err());
        // None: no limit parameters at all.
        let inf = lookup("infinite", "q").unwrap();
        assert_eq!(limit_of(&inf.values(&given(&[]), "q").unwrap()), Limit::Infinite);
        assert!(inf.values(&given(&[("packets", 5.0)]), "q").is_err());
    }

    #[test]
    fn registry_rows_build_names_lookup_and_catalog() {
        let names = names();
        assert_eq!(names.len(), QUEUES.len());
        assert_eq!(names[..3], ["droptail", "infinite", "abc"]);
        match lookup("codle", "hops[1].queue.type") {
            Err(Error::Param { key, msg }) => {
                assert_eq!(key, "hops[1].queue.type");
                assert!(msg.starts_with("unknown queue type 'codle'"), "{msg}");
                assert!(msg.contains("codel") && msg.contains(&names.join(", ")), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        let rng = || Rng::stream(1, 0);
        let droptail = lookup("droptail", "q").unwrap();
        let mut q = (droptail.build)(&droptail.values(&given(&[("packets", 1.0)]), "q").unwrap(), rng());
        assert_eq!(q.name(), "droptail");
        assert!(q.enqueue(Time::ZERO, pkt(0)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_err(), "built with its limit");
        let inf = lookup("infinite", "q").unwrap();
        let q = (inf.build)(&inf.values(&given(&[]), "q").unwrap(), rng());
        assert_eq!(q.name(), "infinite");
        let j = droptail.to_json();
        assert_eq!(
            (&j["name"], &j["display"], &j["summary"], &j["source"], &j["limit"]),
            (
                &serde_json::json!("droptail"),
                &serde_json::json!("drop-tail"),
                &serde_json::json!(DROPTAIL.summary),
                &serde_json::json!("Mahimahi DropTailQueue"),
                &serde_json::json!("required")
            )
        );
        assert_eq!(j["aliases"], serde_json::json!(["drop-tail", "fifo"]));
        let params: Vec<_> = j["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        assert_eq!(params, [serde_json::json!("packets"), serde_json::json!("bytes")]);
        assert_eq!(inf.to_json()["limit"], "none");
        assert_eq!(lookup("codel", "q").unwrap().to_json()["limit"], "optional");
        assert_eq!(format!("{droptail:?}"), r#"QueueKind { name: "droptail", .. }"#);
    }

    #[test]
    fn the_queue_trait_defaults_and_the_constant_schedule() {
        let mut q = DropTail::new(Limit::Infinite);
        assert!(q.enqueue(Time::ZERO, pkt(7)).is_ok());
        let mut d = Vec::new();
        assert_eq!(
            q.dequeue_user(Time::ZERO, 3, LinkInfo::default(), &mut d)
                .map(|p| p.seq),
            Some(7)
        );
        assert_eq!(
            (q.capacity_window(), q.gauge(), q.next_timer(), q.capacity_lookahead()),
            (None, None, None, None)
        );
        let s = ConstantSchedule(1000.0);
        assert_eq!(
            s.capacity_between(Time::from_millis(500), Time::from_millis(2500)),
            2000.0
        );
        assert_eq!(s.capacity_between(Time::from_millis(500), Time::from_millis(500)), 0.0);
        assert_eq!(s.capacity_between(Time::from_millis(600), Time::from_millis(500)), 0.0);
        assert_eq!(s.overhead(), 0);
    }

    #[test]
    fn fifo_limits_at_their_exact_bounds_and_counts() {
        // Bytes: 2 × 1500 = 3000 fits a 3000-byte limit exactly; one more byte does not.
        let mut f = Fifo::new(Limit::Bytes(3000));
        assert!(f.is_empty() && f.peek().is_none());
        assert!(f.push(Time::from_millis(1), pkt(0)).is_ok());
        assert!(f.push(Time::from_millis(2), pkt(1)).is_ok());
        assert_eq!((f.len(), f.bytes(), f.is_empty()), (2, 3000, false));
        // Places behind the head, in FIFO order.
        assert_eq!((f.nth(0).map(|p| p.seq), f.nth(1).map(|p| p.seq)), (Some(0), Some(1)));
        assert!(f.nth(2).is_none());
        assert_eq!(f.push(Time::from_millis(3), pkt(2)).unwrap_err().seq, 2);
        assert_eq!(
            f.peek().map(|p| (p.seq, p.enqueued_at)),
            Some((0, Time::from_millis(1)))
        );
        assert_eq!(f.pop().map(|p| (p.seq, p.enqueued_at)), Some((0, Time::from_millis(1))));
        assert_eq!((f.len(), f.bytes()), (1, 1500));
        let s = f.stats;
        assert_eq!((s.enqueued, s.dequeued, s.dropped, s.max_packets), (2, 1, 1, 2));
        // Packets: exactly n fit.
        let mut f = Fifo::new(Limit::Packets(1));
        assert!(f.fits(&pkt(0)));
        assert!(f.push(Time::ZERO, pkt(0)).is_ok());
        assert!(!f.fits(&pkt(1)));
        assert_eq!(DropTail::new(Limit::Packets(1)).name(), "droptail");
        assert_eq!(DropTail::new(Limit::Infinite).name(), "infinite");
    }

    #[test]
    fn limit_of_reads_only_the_limit_parameters_a_table_has() {
        // A table with `packets` only, or `bytes` only: the other is not looked up.
        let parse = |table: &'static [Param], g: &Given| params::parse("q", "q", &[table], g).unwrap();
        const PACKETS_ONLY: &[Param] = &[packets_param(7)];
        const BYTES_ONLY: &[Param] = &[BYTES_PARAM];
        assert_eq!(limit_of(&parse(PACKETS_ONLY, &given(&[]))), Limit::Packets(7));
        assert_eq!(limit_of(&parse(BYTES_ONLY, &given(&[]))), Limit::Infinite);
        assert_eq!(
            limit_of(&parse(BYTES_ONLY, &given(&[("bytes", 2000.0)]))),
            Limit::Bytes(2000)
        );
    }
}
