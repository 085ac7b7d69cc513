//! CoDel, Controlled Delay (RFC 8289; Linux `include/net/codel.h`, `codel_impl.h`, `net/sched/sch_codel.c`).
//!
//! A FIFO with tail drop at the limit, plus dequeue-side dropping driven by the sojourn time of the
//! departing packet:
//!
//! * `dodequeue` (RFC 8289 §5.3, Linux `codel_should_drop`): pop the head; if its sojourn is below
//!   `target`, or the bytes left in the queue are at most one `mtu`, forget `first_above_time`.
//!   Otherwise the first such packet arms `first_above_time = now + interval`, and once
//!   `now ≥ first_above_time` the sojourn has stayed above target for a whole interval: `ok_to_drop`.
//! * Dropping state (RFC 8289 §5.5–5.7, Linux `codel_dequeue`): when `ok_to_drop` first holds, drop
//!   the packet, enter the dropping state and schedule `drop_next = now + interval/√count`, where
//!   `count` restarts at 1, or at `count − lastcount` when the previous dropping episode ended
//!   recently (`delta > 1` and `now − drop_next < 16·interval`). While dropping, every time
//!   `now ≥ drop_next` the head is dropped, `count` grows by one and `drop_next += interval/√count`
//!   (from the *old* `drop_next`); the `while` loop drops several packets in one dequeue when the
//!   schedule is behind. A packet with `ok_to_drop` false ends the dropping state.
//! * ECN (RFC 8289 §5, Linux `params->ecn`): with `ecn` on, an ECN-capable packet is marked CE
//!   instead of dropped and is returned; a marked packet ends the `while` loop, as in Linux.
//!
//! Choices (see `docs/aqm.md`):
//! * Control law: the RFC's `interval / sqrt(count)` in `f64`, rounded to the nearest nanosecond,
//!   not Linux's Q0.32 Newton-step reciprocal square root (which is within ~0.1 % after a few steps).
//! * The "less than one packet" threshold is a configured `mtu` (default 1514 bytes, Linux
//!   `psched_mtu()` = device MTU 1500 + 14-byte Ethernet header), not the RFC's `maxpacket`
//!   (largest packet seen, kept only as a statistic here). It compares the bytes left in the queue
//!   *after* the head is removed, as both the RFC and Linux do.
//! * `first_above_time` is reached with `now ≥ first_above_time` (RFC); Linux uses `now >`.
//! * Re-entry test `now − drop_next < 16·interval` with a negative difference counting as "recent"
//!   (Linux's signed `codel_time_before`); times are exact nanoseconds, not Linux's 1024-ns units.

use super::{Fifo, Limit, LimitRule, LinkInfo, Queue, QueueKind, QueueStats};
use crate::params::{Config, Param, Unit, Values};
use crate::error::{Error, Result};
use crate::packet::{Ecn, Packet};
use crate::time::{Dur, Time};

/// Default "one packet" threshold: 1514 bytes (Linux `sch_codel.c`: `psched_mtu()` of an Ethernet
/// device, 1500 + 14).
pub const DEFAULT_MTU: u32 = 1514;
/// Default buffer: 1000 packets (Linux `sch_codel.c`: `DEFAULT_CODEL_LIMIT`).
pub const DEFAULT_LIMIT_PACKETS: u64 = 1000;
/// Re-entry window in intervals: the old drop rate is reused if the dropping state is re-entered
/// within this many intervals of the last scheduled drop (RFC 8289 §5.6; Linux `codel_dequeue`).
pub const REENTRY_INTERVALS: u64 = 16;

/// CoDel parameters (Linux `struct codel_params`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelConfig {
    /// Target sojourn time (default 5 ms, RFC 8289 §4.4).
    pub target: Dur,
    /// Interval the sojourn must stay above target before dropping, and the base of the control law
    /// (default 100 ms, RFC 8289 §4.3).
    pub interval: Dur,
    /// Bytes: never drop while the queue (after removing the head) holds at most this much
    /// (default 1514, Linux `psched_mtu()`; the RFC's `maxpacket`).
    pub mtu: u32,
    /// Mark ECN-capable packets CE instead of dropping them (default off, Linux `codel`).
    pub ecn: bool,
    /// Buffer limit, tail drop on enqueue (default 1000 packets, Linux `sch_codel.c`).
    pub limit: Limit,
}

/// CoDel's parameters (keys `codel.<key>`, fields of a `codel` queue; Linux `sch_codel` defaults).
pub const PARAMS: &[Param] = &[
    Param::real("target_ms", 5.0, Unit::Ms, 1e-6, 1e7).doc("target sojourn time", "RFC 8289 §4.4"),
    Param::real("interval_ms", 100.0, Unit::Ms, 1e-6, 1e7)
        .doc("interval the sojourn must stay above target, base of the control law", "RFC 8289 §4.3"),
    Param::whole("mtu", DEFAULT_MTU as u64, Unit::Bytes, 0, 1_000_000)
        .doc("never drop while at most this many bytes remain queued", "Linux psched_mtu(); RFC 8289 maxpacket"),
    Param::flag("ecn", false).doc("mark ECN-capable packets CE instead of dropping", "Linux codel ecn (off)"),
    super::packets_param(DEFAULT_LIMIT_PACKETS),
    super::BYTES_PARAM,
];

/// CoDel (RFC 8289).
pub const CODEL: QueueKind = QueueKind {
    name: "codel",
    display: "CoDel",
    summary: "CoDel, drops or marks at dequeue",
    source: "RFC 8289; Linux net/sched/sch_codel.c",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &[],
    build: |v, _rng| Box::new(CodelQueue::new(CodelConfig::from_values(v))),
    warnings: None,
};

crate::default_from_table!(CodelConfig);

impl Config for CodelConfig {
    const PREFIX: &'static str = "codel";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> CodelConfig {
        CodelConfig {
            target: v.ms("target_ms"),
            interval: v.ms("interval_ms"),
            mtu: v.whole("mtu"),
            ecn: v.flag("ecn"),
            limit: super::limit_of(v),
        }
    }
}

impl CodelConfig {
    /// Check ranges; errors name the key under `prefix` (e.g. `hops[0].queue`).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let bad = |k: &str, msg: &str| {
            Err(Error::Param {
                key: format!("{prefix}.{k}"),
                msg: msg.into(),
            })
        };
        if self.target.0 == 0 {
            return bad("target", "expected a positive time (ms)");
        }
        if self.interval.0 == 0 {
            return bad("interval", "expected a positive time (ms)");
        }
        Ok(())
    }
}

/// Control-law state (Linux `struct codel_vars`, without `rec_inv_sqrt`: the law uses `f64` sqrt).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops (or marks) in the current dropping episode, the control-law index.
    pub count: u32,
    /// `count` when the current (or last) dropping episode was entered.
    pub lastcount: u32,
    /// Whether the queue is in the dropping state.
    pub dropping: bool,
    /// When the sojourn will have been above target for one interval (`None`: it is below).
    pub first_above_time: Option<Time>,
    /// When the next drop is due while dropping.
    pub drop_next: Time,
    /// Sojourn time of the last packet examined.
    pub ldelay: Dur,
}

/// CoDel-specific counters (Linux `struct codel_stats`). Tail drops are
/// `QueueStats::dropped − drop_count`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelStats {
    /// Packets dropped by the control law at dequeue.
    pub drop_count: u64,
    /// Packets marked CE by the control law.
    pub ecn_mark: u64,
    /// Largest packet seen at dequeue, bytes (the RFC's `maxpacket`; informational).
    pub maxpacket: u32,
}

/// The CoDel queue.
#[derive(Clone, Debug)]
pub struct CodelQueue {
    fifo: Fifo,
    params: CodelConfig,
    vars: CodelVars,
    cstats: CodelStats,
}

impl CodelQueue {
    /// An empty CoDel queue.
    pub fn new(cfg: CodelConfig) -> CodelQueue {
        CodelQueue {
            fifo: Fifo::new(cfg.limit),
            params: cfg,
            vars: CodelVars::default(),
            cstats: CodelStats::default(),
        }
    }

    /// The parameters.
    pub fn config(&self) -> &CodelConfig {
        &self.params
    }

    /// The control-law state.
    pub fn vars(&self) -> CodelVars {
        self.vars
    }

    /// CoDel-specific counters.
    pub fn codel_stats(&self) -> CodelStats {
        self.cstats
    }

    /// RFC 8289 §5.7 control law: `t + interval / √count`, rounded to the nearest nanosecond
    /// (`count` 0 is treated as 1).
    /// The shared law, [`crate::codel_law::control_law`].
    pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
        crate::codel_law::control_law(t, interval, count)
    }

    /// RFC 8289 `dodequeue`: pop the head and decide whether it may be dropped.
    fn dodequeue(&mut self, now: Time) -> (Option<Packet>, bool) {
        let Some(pkt) = self.fifo.pop() else {
            self.vars.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(pkt.enqueued_at);
        self.vars.ldelay = sojourn;
        self.cstats.maxpacket = self.cstats.maxpacket.max(pkt.size);
        if sojourn < self.params.target || self.fifo.bytes() <= u64::from(self.params.mtu) {
            // Went below: stay below for at least an interval before dropping.
            self.vars.first_above_time = None;
            return (Some(pkt), false);
        }
        match self.vars.first_above_time {
            None => {
                // Just went above: ok to drop if it stays above for an interval.
                self.vars.first_above_time = Some(now + self.params.interval);
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), now >= t),
        }
    }

    /// Mark `pkt` CE if ECN is on and it is ECN-capable; returns whether it was marked.
    fn try_mark(&mut self, pkt: &mut Packet) -> bool {
        if self.params.ecn && pkt.ecn.is_ect() {
            pkt.ecn = Ecn::Ce;
            self.fifo.stats.marked += 1;
            self.cstats.ecn_mark += 1;
            true
        } else {
            false
        }
    }

    /// Drop a packet already popped: it was not handed to the link.
    fn drop_packet(&mut self, pkt: Packet, drops: &mut Vec<Packet>) {
        self.fifo.stats.dequeued = self.fifo.stats.dequeued.saturating_sub(1);
        self.fifo.stats.dropped += 1;
        self.cstats.drop_count += 1;
        drops.push(pkt);
    }
}

impl Queue for CodelQueue {
    fn name(&self) -> &'static str {
        "codel"
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) -> std::result::Result<(), Packet> {
        self.fifo.push(now, pkt)
    }

    /// RFC 8289 §5.5 `dequeue`, with Linux's ECN handling.
    fn dequeue(&mut self, now: Time, _link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        let (mut cur, mut ok_to_drop) = self.dodequeue(now);
        let Some(mut pkt) = cur else {
            // An empty queue takes us out of the dropping state.
            self.vars.dropping = false;
            return None;
        };
        if self.vars.dropping {
            if !ok_to_drop {
                // Sojourn below target: leave the dropping state.
                self.vars.dropping = false;
            }
            // Time for the next drop(s); a large backlog may need several now.
            while self.vars.dropping && now >= self.vars.drop_next {
                self.vars.count = self.vars.count.saturating_add(1);
                if self.try_mark(&mut pkt) {
                    self.vars.drop_next = Self::control_law(self.vars.drop_next, self.params.interval, self.vars.count);
                    return Some(pkt);
                }
                self.drop_packet(pkt, drops);
                (cur, ok_to_drop) = self.dodequeue(now);
                let Some(next) = cur else {
                    self.vars.dropping = false;
                    return None;
                };
                pkt = next;
                if ok_to_drop {
                    self.vars.drop_next = Self::control_law(self.vars.drop_next, self.params.interval, self.vars.count);
                } else {
                    self.vars.dropping = false;
                }
            }
        } else if ok_to_drop {
            // Above target for a whole interval: enter the dropping state.
            if !self.try_mark(&mut pkt) {
                self.drop_packet(pkt, drops);
                (cur, _) = self.dodequeue(now);
            } else {
                cur = Some(pkt);
            }
            self.vars.dropping = true;
            // Re-entering soon after the last episode: resume near the drop rate that controlled
            // the queue then (RFC 8289 §5.6).
            let delta = self.vars.count.saturating_sub(self.vars.lastcount);
            let recent =
                now.saturating_since(self.vars.drop_next) < self.params.interval.saturating_mul(REENTRY_INTERVALS);
            self.vars.count = if delta > 1 && recent { delta } else { 1 };
            self.vars.drop_next = Self::control_law(now, self.params.interval, self.vars.count);
            self.vars.lastcount = self.vars.count;
            return cur;
        }
        Some(pkt)
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
    /// The control-law index: `count` while in the dropping state, 0 otherwise.
    fn gauge(&self) -> Option<f64> {
        Some(if self.vars.dropping {
            f64::from(self.vars.count)
        } else {
            0.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;

    const MS: u64 = 1_000_000;

    fn pkt(seq: u32, ecn: Ecn) -> Packet {
        Packet::data(0, seq, MTU, ecn, Time::ZERO)
    }

    /// What one dequeue did.
    #[derive(Debug)]
    struct Step {
        t_ms: u64,
        out: Option<Packet>,
        dropped: Vec<u32>,
        vars: CodelVars,
    }

    /// The constant overload: at every whole millisecond `t` in `from..=to`, enqueue two packets,
    /// then dequeue one (if `dequeue_at(t)`). Returns the dequeues that dropped or marked.
    fn overload(
        q: &mut CodelQueue,
        seq: &mut u32,
        from: u64,
        to: u64,
        ecn: fn(u32) -> Ecn,
        dequeue_at: impl Fn(u64) -> bool,
    ) -> Vec<Step> {
        let mut events = Vec::new();
        for t_ms in from..=to {
            let now = Time::from_millis(t_ms);
            for _ in 0..2 {
                q.enqueue(now, pkt(*seq, ecn(*seq))).unwrap();
                *seq += 1;
            }
            if !dequeue_at(t_ms) {
                continue;
            }
            let marked_before = q.stats().marked;
            let mut d = Vec::new();
            let out = q.dequeue(now, LinkInfo::default(), &mut d);
            if !d.is_empty() || q.stats().marked > marked_before {
                events.push(Step {
                    t_ms,
                    out,
                    dropped: d.iter().map(|p| p.seq).collect(),
                    vars: q.vars(),
                });
            }
        }
        events
    }

    fn not_ect(_: u32) -> Ecn {
        Ecn::NotEct
    }

    fn ns(ms: f64) -> u64 {
        (ms * MS as f64).round() as u64
    }

    #[test]
    fn config_defaults_and_validation() {
        let c = CodelConfig::default();
        assert_eq!(c.target, Dur::from_millis(5));
        assert_eq!(c.interval, Dur::from_millis(100));
        assert_eq!((c.mtu, c.ecn, c.limit), (1514, false, Limit::Packets(1000)));
        assert!(c.validate("q").is_ok());
        let e = CodelConfig { target: Dur::ZERO, ..c }
            .validate("hops[0].queue")
            .unwrap_err();
        assert!(
            matches!(e, Error::Param { ref key, .. } if key == "hops[0].queue.target"),
            "{e:?}"
        );
        let e = CodelConfig {
            interval: Dur::ZERO,
            ..c
        }
        .validate("q")
        .unwrap_err();
        assert!(
            matches!(e, Error::Param { ref key, .. } if key == "q.interval"),
            "{e:?}"
        );
    }

    /// Hand-worked schedule. Two packets arrive per ms (at t ms, seq 2t and 2t+1) and one leaves per
    /// ms, so without drops the packet leaving at t ms is seq t, enqueued at ⌊t/2⌋ ms: its sojourn is
    /// ⌈t/2⌉ ms. It first reaches the 5 ms target at t = 9 ms, which arms
    /// first_above_time = 109 ms; the sojourn never falls back, so the first drop is at 109 ms
    /// (count 1, drop_next = 209). Then drop_next += 100/√count ms:
    /// 209 (count 2) → 279.710678, 280 (3) → 337.445705, 338 (4) → 387.445705,
    /// 388 (5) → 432.167065, 433 (6) → 472.991894, 473 (7) → 510.788341.
    /// Dequeues happen on whole ms, so each drop happens at ⌈drop_next⌉.
    #[test]
    fn overload_first_drop_after_one_interval_then_sqrt_schedule() {
        let mut q = CodelQueue::new(CodelConfig::default());
        let mut seq = 0;
        let ev = overload(&mut q, &mut seq, 0, 8, not_ect, |_| true);
        assert!(ev.is_empty());
        assert_eq!(q.vars().first_above_time, None, "sojourn 4 ms at t = 8");
        let ev = overload(&mut q, &mut seq, 9, 9, not_ect, |_| true);
        assert!(ev.is_empty());
        assert_eq!(q.vars().first_above_time, Some(Time::from_millis(109)));
        let ev = overload(&mut q, &mut seq, 10, 520, not_ect, |_| true);
        let times: Vec<u64> = ev.iter().map(|e| e.t_ms).collect();
        assert_eq!(times, [109, 209, 280, 338, 388, 433, 473, 511]);
        // One drop per event; the first drops the head (seq 109, the packet leaving at 109 ms).
        assert!(ev.iter().all(|e| e.dropped.len() == 1));
        assert_eq!(ev[0].dropped, [109]);
        assert_eq!(ev[0].out.unwrap().seq, 110);
        assert_eq!((ev[0].vars.count, ev[0].vars.drop_next), (1, Time::from_millis(209)));
        // Gaps of drop_next: exactly interval/√count, rounded to the ns.
        let gaps_ms = [
            100.0 / 2f64.sqrt(),
            100.0 / 3f64.sqrt(),
            50.0,
            100.0 / 5f64.sqrt(),
            100.0 / 6f64.sqrt(),
        ];
        for (k, gap) in gaps_ms.iter().enumerate() {
            let (a, b) = (ev[k].vars, ev[k + 1].vars);
            assert_eq!(b.count, a.count + 1);
            assert_eq!(b.drop_next.0 - a.drop_next.0, ns(*gap), "gap {k}");
        }
        assert_eq!(ev[1].vars.drop_next, Time(279_710_678));
        assert_eq!(ev[4].vars.drop_next, Time(432_167_065));
        assert!(ev.iter().all(|e| e.vars.dropping));
        assert_eq!(q.gauge(), Some(8.0));
        let s = q.stats();
        assert_eq!((s.dropped, q.codel_stats().drop_count, s.marked), (8, 8, 0));
        assert_eq!(s.enqueued, 2 * 521);
        assert_eq!(s.dequeued, 521, "dropped packets do not count as dequeued");
        assert_eq!(q.len_packets() as u64, s.enqueued - s.dequeued - s.dropped);
    }

    #[test]
    fn late_dequeue_drops_several_packets_in_one_call() {
        // As above up to the drop at 209 ms (count 2, drop_next 279.71 ms); then the link stalls
        // until 400 ms. Drops are due at 279.71, 337.45 and 387.45 ms; the next one at 432.17 ms.
        let mut q = CodelQueue::new(CodelConfig::default());
        let mut seq = 0;
        let ev = overload(&mut q, &mut seq, 0, 400, not_ect, |t| t <= 209 || t == 400);
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[2].t_ms, 400);
        assert_eq!(ev[2].dropped.len(), 3);
        assert!(ev[2].out.is_some());
        assert_eq!(ev[2].vars.count, 5);
        assert_eq!(ev[2].vars.drop_next, Time(432_167_065));
    }

    #[test]
    fn leaves_dropping_state_when_sojourn_falls_below_target() {
        let mut q = CodelQueue::new(CodelConfig::default());
        let mut seq = 0;
        overload(&mut q, &mut seq, 0, 150, not_ect, |_| true);
        assert!(q.vars().dropping);
        assert_eq!(q.vars().count, 1);
        // Drain at 150 ms, before the next drop (209 ms): packets enqueued up to 145 ms have a
        // sojourn ≥ 5 ms and keep the state; the first one from 146 ms (4 ms) ends it.
        let now = Time::from_millis(150);
        let mut d = Vec::new();
        let mut last = None;
        while q.vars().dropping {
            last = q.dequeue(now, LinkInfo::default(), &mut d);
        }
        assert!(d.is_empty());
        let p = last.unwrap();
        assert_eq!(p.enqueued_at, Time::from_millis(146));
        assert_eq!(q.vars().first_above_time, None);
        assert_eq!(q.gauge(), Some(0.0));
        assert_eq!(q.vars().count, 1, "count is kept for a later re-entry");
    }

    #[test]
    fn reentry_within_16_intervals_resumes_near_the_previous_count() {
        let mut q = CodelQueue::new(CodelConfig::default());
        let mut seq = 0;
        let ev = overload(&mut q, &mut seq, 0, 440, not_ect, |_| true);
        let last = ev.last().unwrap();
        assert_eq!((last.t_ms, last.vars.count, last.vars.lastcount), (433, 6, 1));
        // Drain at 440 ms (next drop due 472.99 ms) until the sojourn is below target: the packet
        // that ends the state was enqueued at 436 ms; nine newer ones stay queued.
        let now = Time::from_millis(440);
        let mut d = Vec::new();
        while q.vars().dropping {
            q.dequeue(now, LinkInfo::default(), &mut d);
        }
        assert!(d.is_empty());
        assert_eq!(q.len_packets(), 9);
        // Overload again: at 441 ms the head (from 436 ms) has a 5 ms sojourn, arming
        // first_above_time = 541 ms; at 541 ms the state is re-entered with
        // count = count − lastcount = 6 − 1 = 5 since 541 − 472.99 ms < 1600 ms.
        let ev = overload(&mut q, &mut seq, 441, 541, not_ect, |_| true);
        assert_eq!(ev.len(), 1);
        let e = &ev[0];
        assert_eq!(e.t_ms, 541);
        assert_eq!((e.vars.count, e.vars.lastcount), (5, 5));
        assert_eq!(e.vars.drop_next.0 - 541 * MS, ns(100.0 / 5f64.sqrt()));
    }

    #[test]
    fn reentry_after_16_intervals_restarts_at_one() {
        let mut q = CodelQueue::new(CodelConfig::default());
        let mut seq = 0;
        overload(&mut q, &mut seq, 0, 440, not_ect, |_| true);
        assert_eq!(q.vars().count, 6);
        // Empty the queue (an empty queue ends the dropping state), stay idle for 3 s.
        let mut d = Vec::new();
        while q.dequeue(Time::from_millis(440), LinkInfo::default(), &mut d).is_some() {}
        assert!(!q.vars().dropping);
        let mut seq2 = seq;
        let ev = overload(&mut q, &mut seq2, 3440, 3700, not_ect, |_| true);
        // Sojourn ⌈(t − 3440)/2⌉ ms reaches 5 ms at 3449 ms: re-entry at 3549 ms with count 1.
        assert_eq!(ev[0].t_ms, 3549);
        assert_eq!((ev[0].vars.count, ev[0].vars.lastcount), (1, 1));
        assert_eq!(ev[0].vars.drop_next, Time::from_millis(3649));
    }

    #[test]
    fn no_drop_while_at_most_one_mtu_remains_queued() {
        // One packet stays behind the departing one: 1500 bytes ≤ 1514 after the dequeue, so even
        // a 10 ms sojourn (2 × target) for 20 s never drops.
        let run = |lag: u32| {
            let mut q = CodelQueue::new(CodelConfig::default());
            let mut d = Vec::new();
            for i in 0..lag {
                q.enqueue(Time::ZERO, pkt(i, Ecn::NotEct)).unwrap();
            }
            for k in 1..=2000u64 {
                let now = Time::from_millis(10 * k);
                q.enqueue(now, pkt(k as u32 + lag, Ecn::NotEct)).unwrap();
                q.dequeue(now, LinkInfo::default(), &mut d).unwrap();
            }
            d.len()
        };
        assert_eq!(run(1), 0);
        // Two packets behind (3000 bytes > 1514) with a 20 ms sojourn: CoDel does drop.
        assert!(run(2) > 0);
    }

    #[test]
    fn ecn_marks_ect_packets_on_the_same_schedule_and_drops_nothing() {
        let cfg = CodelConfig {
            ecn: true,
            ..CodelConfig::default()
        };
        let mut q = CodelQueue::new(cfg);
        let mut seq = 0;
        let ev = overload(&mut q, &mut seq, 0, 400, |_| Ecn::Ect0, |_| true);
        let times: Vec<u64> = ev.iter().map(|e| e.t_ms).collect();
        assert_eq!(times, [109, 209, 280, 338, 388]);
        for e in &ev {
            assert!(e.dropped.is_empty());
            assert_eq!(e.out.unwrap().ecn, Ecn::Ce);
        }
        // The first mark is on the packet that would have been dropped (seq 109).
        assert_eq!(ev[0].out.unwrap().seq, 109);
        let s = q.stats();
        assert_eq!((s.dropped, s.marked, q.codel_stats().ecn_mark), (0, 5, 5));
        assert_eq!(q.vars().count, 5);
    }

    #[test]
    fn ecn_still_drops_non_ect_packets() {
        let cfg = CodelConfig {
            ecn: true,
            ..CodelConfig::default()
        };
        let mut q = CodelQueue::new(cfg);
        let mut seq = 0;
        // Odd sequence numbers are not ECN-capable; seq 109 leaves at 109 ms and is dropped, the
        // next one (110, ECT) is returned unmarked.
        let ev = overload(
            &mut q,
            &mut seq,
            0,
            209,
            |s| if s % 2 == 1 { Ecn::NotEct } else { Ecn::Ect1 },
            |_| true,
        );
        assert_eq!(ev[0].t_ms, 109);
        assert_eq!(ev[0].dropped, [109]);
        assert_eq!(ev[0].out.unwrap().seq, 110);
        assert_eq!(ev[0].out.unwrap().ecn, Ecn::Ect1);
        // At 209 ms the departing packet (seq 210, ECT) is marked instead.
        assert_eq!(ev[1].t_ms, 209);
        assert!(ev[1].dropped.is_empty());
        assert_eq!(ev[1].out.unwrap().ecn, Ecn::Ce);
        assert_eq!((q.stats().dropped, q.stats().marked), (1, 1));
    }

    #[test]
    fn tail_drops_at_the_limit_and_empty_dequeue_is_none() {
        let mut q = CodelQueue::new(CodelConfig {
            limit: Limit::Packets(2),
            ..CodelConfig::default()
        });
        let mut d = Vec::new();
        assert!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).is_none());
        q.enqueue(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        assert_eq!(q.enqueue(Time::ZERO, pkt(2, Ecn::NotEct)).unwrap_err().seq, 2);
        assert_eq!((q.stats().dropped, q.codel_stats().drop_count), (1, 0));
        assert_eq!(q.len_bytes(), 2 * MTU as u64);
        assert_eq!(q.name(), "codel");
        // A dequeue "before" the enqueue time counts as a zero sojourn, without panicking.
        let mut q = CodelQueue::new(CodelConfig::default());
        q.enqueue(Time::from_millis(5), pkt(3, Ecn::NotEct)).unwrap();
        assert_eq!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap().seq, 3);
        assert_eq!(q.vars().ldelay, Dur::ZERO);
    }

    #[test]
    fn arbitrary_inputs_never_panic() {
        // Odd configurations and times that jump backwards, in a debug build.
        let cfgs = [
            CodelConfig::default(),
            CodelConfig {
                target: Dur::ZERO,
                interval: Dur::ZERO,
                mtu: 0,
                ecn: true,
                limit: Limit::Bytes(0),
            },
            CodelConfig {
                target: Dur(1),
                interval: Dur::MAX,
                mtu: u32::MAX,
                ecn: true,
                limit: Limit::Infinite,
            },
            CodelConfig {
                target: Dur(1),
                interval: Dur(1),
                mtu: 0,
                ecn: false,
                limit: Limit::Packets(50),
            },
        ];
        for (i, cfg) in cfgs.into_iter().enumerate() {
            let mut q = CodelQueue::new(cfg);
            let mut rng = crate::rng::Rng::stream(i as u64, 1);
            let mut d = Vec::new();
            for k in 0..20_000u32 {
                let now = Time(rng.below(1 << 40));
                let ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][rng.below(4) as usize];
                if rng.below(3) > 0 {
                    let _ = q.enqueue(
                        now,
                        Packet {
                            size: rng.below(3000) as u32,
                            ..pkt(k, ecn)
                        },
                    );
                } else {
                    let _ = q.dequeue(now, LinkInfo::default(), &mut d);
                }
                let _ = q.gauge();
            }
            let s = q.stats();
            assert_eq!(
                q.len_packets() as u64,
                s.enqueued - s.dequeued - q.codel_stats().drop_count
            );
        }
    }

    #[test]
    fn reentry_is_recent_strictly_within_16_intervals_of_the_last_drop_due() {
        // State after an episode: count 6, lastcount 1, next drop was due at 10 s. Three packets
        // queued for 10 ms, above target for an interval already: the state is re-entered.
        let reenter = |after: Dur| {
            let cfg = CodelConfig {
                ecn: true,
                ..CodelConfig::default()
            };
            let mut q = CodelQueue::new(cfg);
            assert_eq!(q.config(), &cfg);
            let due = Time::from_secs(10);
            let now = due + after;
            q.vars.count = 6;
            q.vars.lastcount = 1;
            q.vars.drop_next = due;
            q.vars.first_above_time = Some(now);
            for i in 0..3 {
                q.enqueue(now - Dur::from_millis(10), pkt(i, Ecn::NotEct)).unwrap();
            }
            q.dequeue(now, LinkInfo::default(), &mut Vec::new());
            assert!(q.vars.dropping);
            q.vars.count
        };
        let sixteen = Dur::from_millis(1600);
        assert_eq!(reenter(sixteen - Dur::from_nanos(1)), 5, "count − lastcount");
        assert_eq!(reenter(sixteen), 1, "16 intervals is no longer recent");
    }
}
