//! DualPI2, the DualQ Coupled AQM of L4S (RFC 9332; the L4S team's Linux
//! `net/sched/sch_dualpi2.c`, whose defaults are those of mainline Linux's `dualpi2` qdisc).
//!
//! * **Classification** (RFC 9332 §2.5.1; Linux `dualpi2_skb_classify` with `ecn_mask = ECT(1)`):
//!   ECT(1) and CE packets go to the L4S queue, everything else to the Classic queue. ABC's
//!   accelerate packets are ECT(1), so they are L4S here.
//! * **Base probability** (RFC 9332 §A.2 Figure 4; Linux `calculate_probability`): every `tupdate`,
//!   `p' ← p' + α·(q − target) + β·(q − q_prev)`, with `q` the larger of the two queues' head
//!   sojourn times in seconds (Linux; the RFC's pseudocode uses the Classic queue's), α and β in
//!   1/s, clamped to [0, 1] (to [0, 1/k] without drop-on-overload).
//! * **Coupling** (RFC 9332 §2.1): a Classic packet is dropped, or CE-marked if ECN-capable, with
//!   probability `p_C = p'²` (two independent rolls of p', Linux `dualpi2_squared_roll`); an L4S
//!   packet is CE-marked with probability `p_CL = k·p'`.
//! * **Native L4S AQM** (Linux): an L4S packet whose sojourn exceeds the step threshold (1 ms) at
//!   dequeue is CE-marked, if at least two L4S packets were queued when it arrived (Linux
//!   `apply_step`), so the L4S marking probability is effectively max(step, k·p').
//! * **Overload** (RFC 9332 §4.2.1; Linux `must_drop`): once `k·p' > 1`, L4S packets are dropped
//!   with probability p'² (else marked), and ECN-capable Classic packets are dropped instead of
//!   marked. Nothing is dropped or marked by the PI2 part while less than two MTUs are queued.
//!   The PI2 drop or mark is decided at dequeue (`drop_early` off, Linux's default).
//! * **Scheduler** (Linux `dualpi2_qdisc_dequeue`, RFC 9332 §2.4's weighted round robin with
//!   Classic protection): a byte credit; the L4S queue goes first unless the Classic queue has a
//!   packet and the credit is positive. Serving L4S while Classic waits adds `wc·size`, serving
//!   Classic while L4S waits subtracts `wl·size` (`wc = c_protection` %, `wl = 100 − wc`); with
//!   one queue empty the credit returns to `MTU·(wc − wl)`. With the default 10 % this gives the
//!   Classic queue about 10 % of the link when both are backlogged.
//! * **Limit**: tail drop at 10000 packets for the two queues together.
//!
//! Deviations (docs/l4s.md): the gains are applied in real numbers as RFC 9332 Figure 4 writes
//! them (the L4S team's integer scaling divides them by about 2 in the tree quoted); the first
//! update runs one `tupdate` after the start (Linux's first is ½ s after the qdisc is created,
//! which is long before traffic); GSO splitting does not arise (no GSO packets).

use super::{Fifo, Limit, LimitRule, LinkInfo, Queue, QueueKind, QueueStats};
use crate::packet::{Ecn, Packet};
use crate::params::{Config, Param, Unit, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Linux `dualpi2_reset_default`: `limit = 10000` packets ("holds 125 ms at 1G").
pub const DEFAULT_LIMIT_PACKETS: u64 = 10_000;
/// `psched_mtu()` of an Ethernet device (1500 + 14), used for the 2-MTU floor and the credit.
pub const DEFAULT_MTU: u32 = 1514;

/// DualPI2's parameters (keys `dualpi2.<name>`; Linux `sch_dualpi2` defaults).
pub const PARAMS: &[Param] = &[
    Param::real("target_ms", 15.0, Unit::Ms, 0.0, 1e6)
        .open(true, false)
        .doc("PI2 target queueing delay", "RFC 9332 §A.1; Linux sch_dualpi2 pi2.target = 15 ms"),
    Param::real("tupdate_ms", 16.0, Unit::Ms, 0.0, 1e6)
        .open(true, false)
        .doc("PI2 update interval", "Linux sch_dualpi2 pi2.tupdate = 16 ms; RFC 9332 §A.1 min(target, RTT_max/3)"),
    Param::real("alpha", 0.16, Unit::PerS, 0.0, 1e6)
        .doc("PI2 integral gain", "Linux sch_dualpi2 (~0.16 Hz); RFC 9332 §A.1 0.1·Tupdate/RTT_max²"),
    Param::real("beta", 3.2, Unit::PerS, 0.0, 1e6)
        .doc("PI2 proportional gain", "Linux sch_dualpi2 (~3.2 Hz); RFC 9332 §A.1 0.3/RTT_max"),
    Param::real("coupling", 2.0, Unit::None, 0.0, 1e3)
        .open(true, false)
        .doc("coupling factor k: p_CL = k·p', p_C = p'²", "RFC 9332 §2.1 (k = 2); Linux coupling_factor = 2"),
    Param::real("step_thresh_ms", 1.0, Unit::Ms, 0.0, 1e6)
        .doc("L4S step: CE-mark an L4S packet whose sojourn exceeds this", "Linux sch_dualpi2 step.thresh = 1 ms; RFC 9332 §A.1"),
    Param::whole("step_packets", 0, Unit::Packets, 1, 1_000_000_000)
        .unset()
        .doc("L4S step in packets instead: mark while more than this many L4S packets are queued", "Linux sch_dualpi2 step.in_packets"),
    Param::real("c_protection", 10.0, Unit::Percent, 0.0, 100.0)
        .doc("weight wc of the Classic queue in the scheduler (wl = 100 − wc)", "Linux sch_dualpi2 c_protection wc = 10"),
    Param::flag("drop_overload", true).doc(
        "on overload (k·p' > 1) drop L4S packets with p'² instead of letting the queues grow",
        "Linux sch_dualpi2 drop_overload = true; RFC 9332 §4.2.1",
    ),
    Param::flag("drop_early", false)
        .doc("decide PI2 drops at enqueue instead of dequeue", "Linux sch_dualpi2 drop_early = false"),
    Param::whole("mtu", DEFAULT_MTU as u64, Unit::Bytes, 0, 1_000_000)
        .doc("never drop or mark by PI2 while less than two of these are queued; the scheduler's credit unit", "Linux psched_mtu()"),
    super::packets_param(DEFAULT_LIMIT_PACKETS),
    super::BYTES_PARAM,
];

/// DualPI2 (RFC 9332).
pub const DUALPI2: QueueKind = QueueKind {
    name: "dualpi2",
    display: "DualPI2",
    summary: "L4S DualQ Coupled AQM: ECT(1)/CE to a 1-ms step queue, the rest to PI2 at 15 ms, coupled p_CL = k·p', p_C = p'²",
    source: "RFC 9332; L4S team Linux net/sched/sch_dualpi2.c",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &["dualq"],
    build: |v, rng| Box::new(DualPi2::new(DualPi2Config::from_values(v), rng)),
    warnings: None,
};

/// DualPI2 parameters (see [`PARAMS`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DualPi2Config {
    /// `target_ms`.
    pub target: Dur,
    /// `tupdate_ms`.
    pub tupdate: Dur,
    /// `alpha`, 1/s.
    pub alpha: f64,
    /// `beta`, 1/s.
    pub beta: f64,
    /// `coupling`, k.
    pub k: f64,
    /// `step_thresh_ms`.
    pub step_thresh: Dur,
    /// `step_packets`.
    pub step_packets: Option<u64>,
    /// `c_protection`, percent.
    pub wc: f64,
    /// `drop_overload`.
    pub drop_overload: bool,
    /// `drop_early`.
    pub drop_early: bool,
    /// `mtu`, bytes.
    pub mtu: u32,
    /// Buffer limit, both queues together.
    pub limit: Limit,
}

crate::default_from_table!(DualPi2Config);

impl Config for DualPi2Config {
    const PREFIX: &'static str = "dualpi2";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> DualPi2Config {
        DualPi2Config {
            target: v.ms("target_ms"),
            tupdate: v.ms("tupdate_ms").max(Dur(1)),
            alpha: v.real("alpha"),
            beta: v.real("beta"),
            k: v.real("coupling"),
            step_thresh: v.ms("step_thresh_ms"),
            step_packets: v.opt_whole("step_packets"),
            wc: v.real("c_protection"),
            drop_overload: v.flag("drop_overload"),
            drop_early: v.flag("drop_early"),
            mtu: v.whole("mtu"),
            limit: super::limit_of(v),
        }
    }
}

/// Counters specific to DualPI2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DualPi2Stats {
    /// Packets classified L4S / Classic.
    pub packets_in_l: u64,
    /// Packets classified Classic.
    pub packets_in_c: u64,
    /// CE marks by the step.
    pub step_marks: u64,
    /// CE marks by the coupled or squared probability.
    pub pi2_marks: u64,
    /// Drops by PI2 (not tail drops).
    pub pi2_drops: u64,
}

/// The DualPI2 queue.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    cfg: DualPi2Config,
    l: Fifo,
    /// Per L4S packet: whether the step applies (two or more L4S packets queued on arrival).
    l_step: VecDeque<bool>,
    c: Fifo,
    /// Base probability p'.
    prob: f64,
    /// The delay the last update saw, s.
    qdelay_old: f64,
    next_update: Time,
    credit: f64,
    stats: QueueStats,
    /// DualPI2's own counters.
    pub dstats: DualPi2Stats,
    rng: Rng,
}

impl DualPi2 {
    /// An empty DualPI2 queue drawing its random numbers from `rng`.
    pub fn new(cfg: DualPi2Config, rng: Rng) -> DualPi2 {
        let mut q = DualPi2 {
            l: Fifo::new(Limit::Infinite),
            l_step: VecDeque::new(),
            c: Fifo::new(Limit::Infinite),
            prob: 0.0,
            qdelay_old: 0.0,
            next_update: Time::ZERO + cfg.tupdate,
            credit: 0.0,
            stats: QueueStats::default(),
            dstats: DualPi2Stats::default(),
            rng,
            cfg,
        };
        q.reset_credit();
        q
    }

    fn reset_credit(&mut self) {
        self.credit = f64::from(self.cfg.mtu) * (self.cfg.wc - (100.0 - self.cfg.wc));
    }

    /// The base probability p'.
    pub fn base_prob(&self) -> f64 {
        self.prob
    }

    fn is_l4s(pkt: &Packet) -> bool {
        matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce)
    }

    fn fits(&self, pkt: &Packet) -> bool {
        let n = (self.l.len() + self.c.len()) as u64;
        match self.cfg.limit {
            Limit::Packets(max) => n < max,
            Limit::Bytes(b) => self.l.bytes() + self.c.bytes() + u64::from(pkt.size) <= b,
            Limit::Infinite => true,
        }
    }

    fn roll(&mut self, p: f64) -> bool {
        p > 0.0 && self.rng.next_f64() < p
    }

    fn mark(&mut self, pkt: &mut Packet) {
        if pkt.ecn.is_ect() && pkt.ecn != Ecn::Ce {
            pkt.ecn = Ecn::Ce;
            self.stats.marked += 1;
        }
    }

    /// Linux `must_drop`: the PI2 part's drop (true) or mark for a packet leaving (or, with
    /// `drop_early`, entering) with `backlog` bytes queued besides it.
    fn must_drop(&mut self, pkt: &mut Packet, backlog: u64) -> bool {
        if backlog < 2 * u64::from(self.cfg.mtu) {
            return false;
        }
        let p = self.prob;
        let l_prob = p * self.cfg.k;
        let overloaded = l_prob > 1.0;
        if Self::is_l4s(pkt) {
            if overloaded {
                if self.cfg.drop_overload && self.roll(p) && self.roll(p) {
                    self.dstats.pi2_drops += 1;
                    return true;
                }
                self.mark(pkt);
                self.dstats.pi2_marks += 1;
            } else if self.roll(l_prob) {
                self.mark(pkt);
                self.dstats.pi2_marks += 1;
            }
        } else if self.roll(p) && self.roll(p) {
            if pkt.ecn.is_ect() && !overloaded {
                self.mark(pkt);
                self.dstats.pi2_marks += 1;
            } else {
                self.dstats.pi2_drops += 1;
                return true;
            }
        }
        false
    }

    fn head_sojourn(q: &Fifo, now: Time) -> f64 {
        q.peek().map_or(0.0, |p| now.saturating_since(p.enqueued_at).secs_f64())
    }

    /// Linux `calculate_probability` (RFC 9332 Figure 4).
    fn update_prob(&mut self, now: Time) {
        let qdelay = Self::head_sojourn(&self.c, now).max(Self::head_sojourn(&self.l, now));
        let target = self.cfg.target.secs_f64();
        let delta = self.cfg.alpha * (qdelay - target) + self.cfg.beta * (qdelay - self.qdelay_old);
        let cap = if self.cfg.drop_overload { 1.0 } else { 1.0 / self.cfg.k };
        self.prob = (self.prob + delta).clamp(0.0, cap);
        self.qdelay_old = qdelay;
    }
}

impl Queue for DualPi2 {
    fn name(&self) -> &'static str {
        "dualpi2"
    }

    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Result<(), Packet> {
        if !self.fits(&pkt) {
            self.stats.dropped += 1;
            return Err(pkt);
        }
        if self.cfg.drop_early {
            let backlog = self.l.bytes() + self.c.bytes();
            if self.must_drop(&mut pkt, backlog) {
                self.stats.dropped += 1;
                return Err(pkt);
            }
        }
        self.stats.enqueued += 1;
        let r = if Self::is_l4s(&pkt) {
            self.dstats.packets_in_l += 1;
            self.l_step.push_back(self.l.len() > 1);
            self.l.push(now, pkt)
        } else {
            self.dstats.packets_in_c += 1;
            self.c.push(now, pkt)
        };
        let n = (self.l.len() + self.c.len()) as u64;
        self.stats.max_packets = self.stats.max_packets.max(n);
        r
    }

    fn dequeue(&mut self, now: Time, _link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        let (wc, wl) = (self.cfg.wc, 100.0 - self.cfg.wc);
        loop {
            let (qlen_l, qlen_c) = (self.l.len(), self.c.len());
            let (mut pkt, from_l, credit_change) = if qlen_l > 0 && (qlen_c == 0 || self.credit <= 0.0) {
                let p = self.l.pop()?;
                let change = if qlen_c > 0 { wc * f64::from(p.size) } else { 0.0 };
                (p, true, change)
            } else if qlen_c > 0 {
                let p = self.c.pop()?;
                let change = if qlen_l > 0 { -wl * f64::from(p.size) } else { 0.0 };
                (p, false, change)
            } else {
                self.reset_credit();
                return None;
            };
            let apply_step = if from_l { self.l_step.pop_front().unwrap_or(false) } else { false };
            if !self.cfg.drop_early {
                let backlog = self.l.bytes() + self.c.bytes();
                if self.must_drop(&mut pkt, backlog) {
                    self.stats.dropped += 1;
                    drops.push(pkt);
                    continue;
                }
            }
            if from_l {
                let over = match self.cfg.step_packets {
                    Some(n) => self.l.len() as u64 > n,
                    None => now.saturating_since(pkt.enqueued_at) > self.cfg.step_thresh,
                };
                if apply_step && over && pkt.ecn != Ecn::Ce {
                    self.mark(&mut pkt);
                    self.dstats.step_marks += 1;
                }
            }
            self.credit += credit_change;
            self.stats.dequeued += 1;
            return Some(pkt);
        }
    }

    fn len_packets(&self) -> usize {
        self.l.len() + self.c.len()
    }

    fn len_bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }

    fn stats(&self) -> QueueStats {
        self.stats
    }

    /// The base probability p' (Linux's `prob`).
    fn gauge(&self) -> Option<f64> {
        Some(self.prob)
    }

    fn next_timer(&self) -> Option<Time> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: Time, _link: &dyn super::LinkSchedule) {
        if now < self.next_update {
            return;
        }
        self.update_prob(now);
        self.next_update = now + self.cfg.tupdate;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;

    fn pkt(seq: u32, ecn: Ecn) -> Packet {
        Packet::data(0, seq, MTU, ecn, Time::ZERO)
    }

    fn queue(cfg: DualPi2Config) -> DualPi2 {
        DualPi2::new(cfg, Rng::stream(7, 0))
    }

    struct NoLink;
    impl super::super::LinkSchedule for NoLink {
        fn capacity_between(&self, _from: Time, _to: Time) -> f64 {
            0.0
        }
        fn overhead(&self) -> u32 {
            0
        }
    }

    /// ECT(1) and CE go to the L4S queue, ECT(0) and Not-ECT to the Classic one; with both
    /// backlogged and the default 10 % weight, the Classic queue gets about 1 in 10 packets.
    #[test]
    fn classification_and_the_weighted_scheduler() {
        let mut q = queue(DualPi2Config::default());
        for i in 0..200 {
            q.enqueue(Time::ZERO, pkt(i, if i % 2 == 0 { Ecn::Ect1 } else { Ecn::Ect0 })).unwrap();
        }
        q.enqueue(Time::ZERO, pkt(999, Ecn::Ce)).unwrap();
        q.enqueue(Time::ZERO, pkt(1000, Ecn::NotEct)).unwrap();
        assert_eq!((q.dstats.packets_in_l, q.dstats.packets_in_c), (101, 101));
        let mut drops = Vec::new();
        let mut classic = 0;
        for _ in 0..100 {
            let p = q.dequeue(Time::ZERO, LinkInfo::default(), &mut drops).unwrap();
            if !DualPi2::is_l4s(&p) {
                classic += 1;
            }
        }
        assert!((8..=12).contains(&classic), "{classic} Classic packets in 100");
        assert!(drops.is_empty());
    }

    /// The step marks an L4S packet whose sojourn exceeds 1 ms, and not one below.
    #[test]
    fn the_step_marks_l4s_packets_above_one_ms() {
        let mut q = queue(DualPi2Config::default());
        for i in 0..4 {
            q.enqueue(Time::ZERO, pkt(i, Ecn::Ect1)).unwrap();
        }
        let mut drops = Vec::new();
        let t = |us: u64| Time::from_nanos(us * 1000);
        // The first two arrived with fewer than two queued: the step does not apply.
        for us in [2000, 2000] {
            assert_eq!(q.dequeue(t(us), LinkInfo::default(), &mut drops).unwrap().ecn, Ecn::Ect1);
        }
        assert_eq!(q.dequeue(t(900), LinkInfo::default(), &mut drops).unwrap().ecn, Ecn::Ect1);
        assert_eq!(q.dequeue(t(1100), LinkInfo::default(), &mut drops).unwrap().ecn, Ecn::Ce);
        assert_eq!(q.dstats.step_marks, 1);
    }

    /// PI2: with the queue held 10 ms above target, p' grows by α·0.01 per update (plus the
    /// proportional term once); Classic packets then see p'², L4S packets k·p'.
    #[test]
    fn pi2_law_and_the_coupling() {
        let mut q = queue(DualPi2Config::default());
        q.enqueue(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        let mut now = Time::ZERO;
        for _ in 0..10 {
            now = q.next_timer().unwrap();
            q.on_timer(now, &NoLink);
        }
        // The head's sojourn grows with time; recompute the expected p' from the same law.
        let (mut p, mut old) = (0.0f64, 0.0f64);
        for i in 1..=10 {
            let qd = 0.016 * f64::from(i);
            p = (p + 0.16 * (qd - 0.015) + 3.2 * (qd - old)).clamp(0.0, 1.0);
            old = qd;
        }
        assert!((q.base_prob() - p).abs() < 1e-9, "{} vs {p}", q.base_prob());
        let _ = now;
        // Coupling: measured marking frequencies at a fixed p' = 0.2.
        let mut q = queue(DualPi2Config::default());
        q.prob = 0.2;
        let (mut l_marks, mut c_marks) = (0, 0);
        let n = 20_000;
        for i in 0..n {
            let mut a = pkt(i, Ecn::Ect1);
            let mut b = pkt(i, Ecn::Ect0);
            assert!(!q.must_drop(&mut a, 1_000_000));
            assert!(!q.must_drop(&mut b, 1_000_000));
            l_marks += (a.ecn == Ecn::Ce) as u32;
            c_marks += (b.ecn == Ecn::Ce) as u32;
        }
        let (pl, pc) = (f64::from(l_marks) / f64::from(n), f64::from(c_marks) / f64::from(n));
        assert!((pl - 0.4).abs() < 0.02, "p_CL = k·p' = 0.4, measured {pl}");
        assert!((pc - 0.04).abs() < 0.006, "p_C = p'² = 0.04, measured {pc}");
        // Not-ECT Classic packets are dropped with p'²; nothing happens below two MTUs queued.
        let mut dropped = 0;
        for i in 0..n {
            dropped += q.must_drop(&mut pkt(i, Ecn::NotEct), 1_000_000) as u32;
            assert!(!q.must_drop(&mut pkt(i, Ecn::NotEct), 2000));
        }
        assert!((f64::from(dropped) / f64::from(n) - 0.04).abs() < 0.006);
    }

    /// Overload (k·p' > 1): L4S packets are dropped with p'² and ECN-capable Classic packets are
    /// dropped instead of marked.
    #[test]
    fn overload_drops() {
        let mut q = queue(DualPi2Config::default());
        q.prob = 0.7;
        let n = 20_000;
        let (mut l_drops, mut c_marks) = (0, 0);
        for i in 0..n {
            l_drops += q.must_drop(&mut pkt(i, Ecn::Ect1), 1_000_000) as u32;
            let mut b = pkt(i, Ecn::Ect0);
            q.must_drop(&mut b, 1_000_000);
            c_marks += (b.ecn == Ecn::Ce) as u32;
        }
        assert!((f64::from(l_drops) / f64::from(n) - 0.49).abs() < 0.02);
        assert_eq!(c_marks, 0);
    }
}
