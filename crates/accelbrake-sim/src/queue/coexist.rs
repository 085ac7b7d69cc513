//! ABC's coexistence router (ABC paper §4.3, §7.5, Fig. 13): ABC and non-ABC packets wait in two
//! separate queues that share the link by weight, and ABC's μ is only its own share.
//!
//! * **Classification**: a data packet is ABC's when it carries ECT(1) or ECT(0) (accelerate or
//!   brake), non-ABC otherwise. The artifact classifies by source port instead; here non-ABC
//!   flows must therefore not use classic ECN at this hop (their ECT(0) would read as an ABC brake).
//! * **Rates**: each queue keeps a Space-Saving summary (Metwally, Agrawal & El Abbadi, ICDT 2005)
//!   of the bytes its flows had **served** during the current update period, with K counters.
//!   The top-K flows' rates are their counters over the period; the rest of the queue's served rate
//!   is one aggregate ("short flows"): queue rate − Σ top-K rates, floored at 0.
//! * **Demands**: (1 + X)·rate for each top-K flow (X = 10 %, ABC paper §4.3), the aggregate's
//!   rate for the short flows.
//! * **Weights**: every update period, max-min water-filling of the link's capacity over the period
//!   among all demands of both queues; a queue's weight is the sum of its allocations over the sum
//!   of all allocations (unchanged when nothing was served).
//! * **Scheduling** (`variant = paper`): work-conserving weighted fair service by bytes: the next
//!   packet comes from the non-empty queue with the smallest served-bytes/weight; a queue that is
//!   empty while the other is served earns no credit (its counter is brought level).
//! * **ABC's μ**: the ABC sub-queue is the ABC router of [`super::abc`], given `w_abc·μ` as its
//!   link capacity.
//!
//! `variant = artifact` follows the authors' `weighted_packet_queue.cc` as their artifact digest
//! describes it, where it differs from the paper: the non-ABC weight from the water-fill is clamped
//! to `[0.8, 1.2]×` an EWMA (gain 0.25/1000 per departure) of the non-ABC queue's actual share of
//! departures and then to `[0.05, 0.95]`, and each opportunity serves the non-ABC queue with
//! probability w (seeded), ABC otherwise, falling back to the other queue when the chosen one is
//! empty. Deviations: the artifact measures rates with an exact per-port EWMA (α = 0.25/1000), here
//! Space-Saving as in the paper; it multiplies demands by 1.1 by port number, here (1 + X) on every
//! top-K flow; it recomputes w on every dequeue, here every `update_ms`. See docs/coexistence.md.

use super::abc::{AbcQueue, AbcRouterConfig};
use super::{Fifo, LimitRule, LinkInfo, LinkSchedule, Queue, QueueKind, QueueStats};
use crate::packet::Packet;
use crate::params::{Config, Param, Unit, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// One Space-Saving counter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Counter {
    /// The flow.
    pub flow: u32,
    /// Its count (an overestimate of its true weight by at most `error`).
    pub count: u64,
    /// The count it inherited when it replaced the minimum counter.
    pub error: u64,
}

/// Space-Saving (Metwally et al., "Efficient computation of frequent and top-k elements in data
/// streams", ICDT 2005): K counters; a tracked item adds its weight; an untracked one replaces the
/// counter with the least count m and starts at m + weight (error m). Guarantees: any item whose
/// true weight exceeds N/K (N the total weight) is tracked, and every count overestimates the
/// item's true weight by at most its error ≤ the minimum count.
///
/// The K counters sit in a plain vector scanned in O(K) per item (K is small here); the paper's
/// Stream-Summary list would make it O(1).
#[derive(Clone, Debug)]
pub struct SpaceSaving {
    k: usize,
    counters: Vec<Counter>,
    total: u64,
}

impl SpaceSaving {
    /// A summary with `k ≥ 1` counters.
    pub fn new(k: usize) -> SpaceSaving {
        SpaceSaving {
            k: k.max(1),
            counters: Vec::with_capacity(k.max(1)),
            total: 0,
        }
    }

    /// Count `weight` for `flow`.
    pub fn add(&mut self, flow: u32, weight: u64) {
        self.total += weight;
        if let Some(c) = self.counters.iter_mut().find(|c| c.flow == flow) {
            c.count += weight;
            return;
        }
        if self.counters.len() < self.k {
            self.counters.push(Counter {
                flow,
                count: weight,
                error: 0,
            });
            return;
        }
        // Replace the minimum (the first one on ties: deterministic).
        let mut m = 0;
        for (i, c) in self.counters.iter().enumerate() {
            if c.count < self.counters[m].count {
                m = i;
            }
        }
        let min = self.counters[m].count;
        self.counters[m] = Counter {
            flow,
            count: min + weight,
            error: min,
        };
    }

    /// The counters (at most K, in no particular order).
    pub fn counters(&self) -> &[Counter] {
        &self.counters
    }

    /// Total weight counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The least count when all K counters are in use, else 0.
    pub fn min_count(&self) -> u64 {
        if self.counters.len() < self.k {
            0
        } else {
            self.counters.iter().map(|c| c.count).min().unwrap_or(0)
        }
    }

    /// Forget everything (a new measurement period).
    pub fn clear(&mut self) {
        self.counters.clear();
        self.total = 0;
    }
}

/// Max-min fair (water-filling) allocation of `capacity` among `demands`: every demand below the
/// water level gets its demand, the others the level, and the level is as high as the capacity
/// allows. When the demands add up to at most the capacity, each gets its demand. Non-finite or
/// negative demands count as 0.
pub fn water_fill(capacity: f64, demands: &[f64]) -> Vec<f64> {
    let d: Vec<f64> = demands
        .iter()
        .map(|&x| if x.is_finite() && x > 0.0 { x } else { 0.0 })
        .collect();
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by(|&a, &b| d[a].total_cmp(&d[b]).then(a.cmp(&b)));
    let mut out = vec![0.0; d.len()];
    let mut left = capacity.max(0.0);
    let mut n = d.len();
    for &i in &order {
        let fair = left / n as f64;
        let give = d[i].min(fair);
        out[i] = give;
        left -= give;
        n -= 1;
    }
    out
}

/// How the two queues share the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// ABC paper §4.3: weighted fair service, weights from the water-fill as they are.
    Paper,
    /// The authors' artifact: weights clamped around the measured share, probabilistic service.
    Artifact,
}

/// The coexistence router's own parameters (`abc-coexist.<key>`); the ABC sub-queue takes the ABC
/// router's parameters too.
pub const PARAMS: &[Param] = &[
    super::abc::PARAMS[0],
    super::abc::PARAMS[1],
    super::abc::PARAMS[2],
    super::abc::PARAMS[3],
    super::abc::PARAMS[4],
    super::abc::PARAMS[5],
    super::abc::PARAMS[6],
    Param::whole("top_k", 10, Unit::None, 1, 10_000).doc(
        "K, flows tracked per queue by Space-Saving (the rest count as one short-flow aggregate)",
        "ABC paper §4.3 gives no K; our choice after the sweep in docs/coexistence.md (K = 10 and 30 alike)",
    ),
    Param::real("update_ms", 500.0, Unit::Ms, 1.0, 1e6).doc(
        "period of the rate measurement and weight update (longer than the flows' RTTs)",
        "ABC paper §4.3 gives no period; our choice after the sweep in docs/coexistence.md (Fig. 13 setup)",
    ),
    Param::real("headroom", 0.1, Unit::None, 0.0, 10.0)
        .doc("X: a top-K flow demands (1 + X) times its rate", "ABC paper §4.3: X = 10 %"),
    Param::choice("variant", "paper", &["paper", "artifact"]).doc(
        "paper: weighted fair service by the water-fill's weights; artifact: weight clamped to \
         [0.8, 1.2]× its measured share and [0.05, 0.95], probabilistic service",
        "ABC paper §4.3; artifact weighted_packet_queue.cc",
    ),
    super::abc::PARAMS[7],
    super::abc::PARAMS[8],
];

/// ABC's coexistence router.
pub const COEXIST: QueueKind = QueueKind {
    name: "abc-coexist",
    display: "ABC coexistence router",
    summary: "separate ABC and non-ABC queues served by max-min weights; ABC's μ is its share (§4.3)",
    source: "ABC paper (NSDI 2020) §4.3; Space-Saving (Metwally et al. 2005); artifact weighted_packet_queue.cc",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &["weighted"],
    build: |v, rng| Box::new(CoexistQueue::new(CoexistConfig::from_values(v), rng)),
    warnings: None,
};

/// Coexistence router parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoexistConfig {
    /// The ABC sub-queue (its limit is also the non-ABC queue's).
    pub abc: AbcRouterConfig,
    /// K.
    pub top_k: usize,
    /// Update period.
    pub update: Dur,
    /// X.
    pub headroom: f64,
    /// Variant.
    pub variant: Variant,
}

impl CoexistConfig {
    /// From checked values of the `abc-coexist` table.
    pub fn from_values(v: &Values) -> CoexistConfig {
        CoexistConfig {
            abc: AbcRouterConfig::from_values(v),
            top_k: v.whole("top_k") as usize,
            update: v.ms("update_ms"),
            headroom: v.real("headroom"),
            variant: match v.word("variant") {
                "artifact" => Variant::Artifact,
                _ => Variant::Paper,
            },
        }
    }
}

/// Floor of a weight in the paper variant's service order (a zero weight would never be served
/// while the other queue has packets; the scheduler stays work conserving either way).
const MIN_WEIGHT: f64 = 1e-3;
/// Artifact: weight clamps (`weighted_packet_queue.cc`, per the authors' artifact digest).
const ARTIFACT_SHARE_CLAMP: (f64, f64) = (0.8, 1.2);
const ARTIFACT_WEIGHT_CLAMP: (f64, f64) = (0.05, 0.95);
/// Artifact: EWMA gain of the non-ABC queue's measured share, per departure (α = 0.25/1000).
const ARTIFACT_SHARE_GAIN: f64 = 0.25 / 1000.0;

/// Index of the queues.
const OTHER: usize = 0;
const ABCQ: usize = 1;

/// The coexistence router.
pub struct CoexistQueue {
    cfg: CoexistConfig,
    other: Fifo,
    abc: AbcQueue,
    /// Weights (non-ABC, ABC), summing to 1.
    weights: [f64; 2],
    /// Bytes served by each queue (paper variant's service order).
    served: [f64; 2],
    /// Space-Saving of each queue over the current period.
    tops: [SpaceSaving; 2],
    period_start: Time,
    /// Artifact: EWMA of the non-ABC queue's share of departures.
    share: f64,
    rng: Rng,
    stats: QueueStats,
}

impl CoexistQueue {
    /// A new coexistence router.
    pub fn new(cfg: CoexistConfig, rng: Rng) -> CoexistQueue {
        CoexistQueue {
            other: Fifo::new(cfg.abc.limit),
            abc: AbcQueue::new(cfg.abc),
            weights: [0.5, 0.5],
            served: [0.0, 0.0],
            tops: [SpaceSaving::new(cfg.top_k), SpaceSaving::new(cfg.top_k)],
            period_start: Time::ZERO,
            share: 0.5,
            rng,
            stats: QueueStats::default(),
            cfg,
        }
    }

    /// The current weights (non-ABC, ABC).
    pub fn weights(&self) -> [f64; 2] {
        self.weights
    }

    fn is_abc(pkt: &Packet) -> bool {
        pkt.ecn == crate::packet::Ecn::ACCELERATE || pkt.ecn == crate::packet::Ecn::BRAKE
    }

    /// The demands of one queue over a period of `secs`: (1 + X)·rate for each top-K flow, then
    /// the short-flow aggregate.
    fn demands(&self, q: usize, secs: f64) -> Vec<f64> {
        let top = &self.tops[q];
        let mut out: Vec<f64> = top
            .counters()
            .iter()
            .map(|c| (1.0 + self.cfg.headroom) * c.count as f64 / secs)
            .collect();
        let tracked: u64 = top.counters().iter().map(|c| c.count).sum();
        out.push(top.total().saturating_sub(tracked) as f64 / secs);
        out
    }

    /// Recompute the weights from the period's measurements and capacity (bytes/s).
    fn update_weights(&mut self, secs: f64, capacity: f64) {
        let d0 = self.demands(OTHER, secs);
        let d1 = self.demands(ABCQ, secs);
        let all: Vec<f64> = d0.iter().chain(d1.iter()).copied().collect();
        let alloc = water_fill(capacity, &all);
        let a0: f64 = alloc[..d0.len()].iter().sum();
        let a1: f64 = alloc[d0.len()..].iter().sum();
        if a0 + a1 > 0.0 {
            let mut w0 = a0 / (a0 + a1);
            if self.cfg.variant == Variant::Artifact {
                let (lo, hi) = ARTIFACT_SHARE_CLAMP;
                w0 = w0.clamp(lo * self.share, (hi * self.share).max(lo * self.share));
                w0 = w0.clamp(ARTIFACT_WEIGHT_CLAMP.0, ARTIFACT_WEIGHT_CLAMP.1);
            }
            self.weights = [w0, 1.0 - w0];
        }
        self.tops[OTHER].clear();
        self.tops[ABCQ].clear();
    }

    /// Which queue serves next, both being non-empty.
    fn pick(&mut self) -> usize {
        match self.cfg.variant {
            Variant::Paper => {
                let key = |q: usize| self.served[q] / self.weights[q].max(MIN_WEIGHT);
                if key(ABCQ) < key(OTHER) {
                    ABCQ
                } else {
                    OTHER
                }
            }
            Variant::Artifact => {
                if self.rng.next_f64() < self.weights[OTHER] {
                    OTHER
                } else {
                    ABCQ
                }
            }
        }
    }
}

impl Queue for CoexistQueue {
    fn name(&self) -> &'static str {
        "abc-coexist"
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) -> std::result::Result<(), Packet> {
        let r = if Self::is_abc(&pkt) {
            self.abc.enqueue(now, pkt)
        } else {
            self.other.push(now, pkt)
        };
        match r {
            Ok(()) => {
                self.stats.enqueued += 1;
                let n = (self.other.len() + self.abc.len_packets()) as u64;
                self.stats.max_packets = self.stats.max_packets.max(n);
                Ok(())
            }
            Err(p) => {
                self.stats.dropped += 1;
                Err(p)
            }
        }
    }

    fn dequeue(&mut self, now: Time, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        let has = [!self.other.is_empty(), self.abc.len_packets() > 0];
        let q = match has {
            [false, false] => return None,
            [true, false] => OTHER,
            [false, true] => ABCQ,
            [true, true] => self.pick(),
        };
        let pkt = if q == OTHER {
            self.other.pop()
        } else {
            let share = LinkInfo {
                capacity: link.capacity * self.weights[ABCQ],
                ..link
            };
            self.abc.dequeue(now, share, drops)
        }?;
        let bytes = (pkt.size + link.overhead) as f64;
        self.served[q] += bytes;
        // An idle queue earns no credit: bring its counter level with the one served.
        let o = 1 - q;
        if !has[o] {
            let level = self.served[q] / self.weights[q].max(MIN_WEIGHT) * self.weights[o].max(MIN_WEIGHT);
            self.served[o] = self.served[o].max(level);
        }
        self.tops[q].add(pkt.flow, bytes as u64);
        if self.cfg.variant == Variant::Artifact {
            let x = if q == OTHER { 1.0 } else { 0.0 };
            self.share += ARTIFACT_SHARE_GAIN * (x - self.share);
        }
        self.stats.dequeued += 1;
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.other.len() + self.abc.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.other.bytes() + self.abc.len_bytes()
    }
    fn stats(&self) -> QueueStats {
        QueueStats {
            marked: self.abc.stats().marked,
            ..self.stats
        }
    }
    fn capacity_window(&self) -> Option<Dur> {
        self.abc.capacity_window()
    }
    /// The ABC queue's weight.
    fn gauge(&self) -> Option<f64> {
        Some(self.weights[ABCQ])
    }
    fn next_timer(&self) -> Option<Time> {
        Some(self.period_start + self.cfg.update)
    }
    fn on_timer(&mut self, now: Time, link: &dyn LinkSchedule) {
        let end = self.period_start + self.cfg.update;
        if now < end {
            return;
        }
        let secs = (now - self.period_start).secs_f64();
        let capacity = link.capacity_between(self.period_start, now) / secs;
        self.update_weights(secs, capacity);
        // Service order restarts with the new weights (counters kept across a weight change
        // would hold the old weights' service against the new ones).
        self.served = [0.0, 0.0];
        self.period_start = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::queue::{ConstantSchedule, Limit};

    /// A deterministic skewed stream: flow i has weight ∝ 1/(i+1)² (Zipf-like) plus noise flows.
    fn stream(n: usize, seed: u64) -> Vec<(u32, u64)> {
        let mut rng = Rng::stream(seed, 3);
        (0..n)
            .map(|_| {
                let u = rng.next_f64();
                // Inverse of a heavy head: small ids most often.
                let flow = ((1.0 / (u * 0.999 + 0.001)).sqrt() as u32).min(500) + (rng.below(3) as u32) * 1000;
                (flow, 1 + rng.below(1500))
            })
            .collect()
    }

    #[test]
    fn space_saving_tracks_every_heavy_flow_and_bounds_the_overestimate() {
        for seed in 0..5 {
            for k in [2usize, 5, 10, 40] {
                let items = stream(20_000, seed);
                let mut ss = SpaceSaving::new(k);
                let mut truth = std::collections::BTreeMap::<u32, u64>::new();
                for &(f, w) in &items {
                    ss.add(f, w);
                    *truth.entry(f).or_default() += w;
                }
                let n: u64 = truth.values().sum();
                assert_eq!(ss.total(), n);
                assert!(ss.counters().len() <= k);
                let min = ss.min_count();
                for (&f, &t) in &truth {
                    let c = ss.counters().iter().find(|c| c.flow == f);
                    if t * k as u64 > n {
                        assert!(c.is_some(), "flow {f} with {t} of {n} (> N/K, K = {k}) must be tracked");
                    }
                    if let Some(c) = c {
                        assert!(c.count >= t, "a count never underestimates");
                        assert!(c.count - t <= c.error, "overestimate within the counter's error");
                        assert!(c.error <= min, "error {} ≤ min counter {min}", c.error);
                    }
                }
            }
        }
    }

    #[test]
    fn space_saving_replaces_the_minimum_and_inherits_its_count() {
        let mut ss = SpaceSaving::new(2);
        ss.add(1, 10);
        ss.add(2, 3);
        ss.add(3, 1); // replaces flow 2 (count 3): 3 + 1 with error 3
        let c: Vec<_> = ss.counters().to_vec();
        assert_eq!(c[0], Counter { flow: 1, count: 10, error: 0 });
        assert_eq!(c[1], Counter { flow: 3, count: 4, error: 3 });
        assert_eq!(ss.min_count(), 4);
        ss.clear();
        assert_eq!((ss.total(), ss.counters().len(), ss.min_count()), (0, 0, 0));
    }

    #[test]
    fn water_fill_on_hand_worked_demands() {
        let close = |a: &[f64], b: &[f64]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9);
        // Capacity 10: demand 2 is met, the other two split the remaining 8.
        assert!(close(&water_fill(10.0, &[2.0, 8.0, 8.0]), &[2.0, 4.0, 4.0]));
        // Everything fits: each gets its demand.
        assert!(close(&water_fill(10.0, &[1.0, 2.0, 3.0]), &[1.0, 2.0, 3.0]));
        // Nothing fits: equal shares.
        assert!(close(&water_fill(9.0, &[5.0, 7.0, 100.0]), &[3.0, 3.0, 3.0]));
        // Two small demands met, level (12 - 1 - 2)/2 = 4.5 for the rest; order kept.
        assert!(close(&water_fill(12.0, &[6.0, 1.0, 9.0, 2.0]), &[4.5, 1.0, 4.5, 2.0]));
        // Zero, negative and NaN demands get nothing.
        assert!(close(&water_fill(4.0, &[0.0, -1.0, f64::NAN, 10.0]), &[0.0, 0.0, 0.0, 4.0]));
        assert!(water_fill(4.0, &[]).is_empty());
    }

    fn pkt(flow: u32, ecn: Ecn) -> Packet {
        Packet::data(flow, 0, 1500, ecn, Time::ZERO)
    }

    fn queue(variant: Variant) -> CoexistQueue {
        let mut cfg = CoexistConfig {
            abc: AbcRouterConfig::default(),
            top_k: 4,
            update: Dur::from_millis(100),
            headroom: 0.1,
            variant,
        };
        cfg.abc.limit = Limit::Packets(1000);
        CoexistQueue::new(cfg, Rng::stream(1, 1))
    }

    /// Keep both queues full, serve `n` packets at 12 Mbit/s (1 ms per packet), updating weights
    /// every 100 ms; returns the packets served per queue.
    fn serve(q: &mut CoexistQueue, abc_flows: u32, other_flows: u32, n: u64) -> [u64; 2] {
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        let mut served = [0u64; 2];
        let mut drops = Vec::new();
        for i in 0..n {
            let now = Time::from_millis(i);
            while q.abc.len_packets() < 50 {
                q.enqueue(now, pkt(100 + (i as u32 % abc_flows), Ecn::ACCELERATE)).unwrap();
            }
            while q.other.len() < 50 {
                q.enqueue(now, pkt(i as u32 % other_flows, Ecn::NotEct)).unwrap();
            }
            if q.next_timer().is_some_and(|t| t <= now) {
                q.on_timer(now, &ConstantSchedule(1.5e6));
            }
            let p = q.dequeue(now, link, &mut drops).unwrap();
            served[usize::from(CoexistQueue::is_abc(&p))] += 1;
        }
        served
    }

    #[test]
    fn backlogged_queues_share_by_flow_count_through_the_water_fill() {
        // 3 ABC flows and 3 others, all backlogged: max-min gives each side half.
        let mut q = queue(Variant::Paper);
        let s = serve(&mut q, 3, 3, 20_000);
        let frac = s[1] as f64 / (s[0] + s[1]) as f64;
        assert!((frac - 0.5).abs() < 0.02, "ABC share {frac}");
        // 1 ABC flow against 3 others: max-min gives ABC a quarter.
        let mut q = queue(Variant::Paper);
        let s = serve(&mut q, 1, 3, 20_000);
        let frac = s[1] as f64 / (s[0] + s[1]) as f64;
        assert!((frac - 0.25).abs() < 0.03, "ABC share {frac}");
        assert!((q.weights()[ABCQ] - 0.25).abs() < 0.03, "weights {:?}", q.weights());
    }

    #[test]
    fn artifact_variant_keeps_its_weight_within_the_clamps() {
        let mut q = queue(Variant::Artifact);
        let s = serve(&mut q, 1, 3, 20_000);
        let w = q.weights()[OTHER];
        assert!((ARTIFACT_WEIGHT_CLAMP.0..=ARTIFACT_WEIGHT_CLAMP.1).contains(&w));
        let frac = s[0] as f64 / (s[0] + s[1]) as f64;
        assert!(frac > 0.6 && frac < 0.85, "non-ABC share {frac}");
    }

    #[test]
    fn abc_sees_only_its_share_of_the_capacity_and_an_idle_queue_earns_nothing() {
        let mut q = queue(Variant::Paper);
        q.weights = [0.75, 0.25];
        let mut drops = Vec::new();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        q.enqueue(Time::ZERO, pkt(1, Ecn::ACCELERATE)).unwrap();
        q.dequeue(Time::ZERO, link, &mut drops).unwrap();
        assert!((q.abc.state().mu - 0.25 * 1.5e6).abs() < 1e-6);
        // Only non-ABC traffic for a while: ABC's counter follows, so it gets no burst afterwards.
        for i in 0..100 {
            q.enqueue(Time::ZERO, pkt(2, Ecn::NotEct)).unwrap();
            q.dequeue(Time::from_millis(i), link, &mut drops).unwrap();
        }
        for _ in 0..40 {
            q.enqueue(Time::ZERO, pkt(1, Ecn::ACCELERATE)).unwrap();
            q.enqueue(Time::ZERO, pkt(2, Ecn::NotEct)).unwrap();
        }
        let mut abc = 0;
        for _ in 0..40 {
            let p = q.dequeue(Time::ZERO, link, &mut drops).unwrap();
            abc += usize::from(CoexistQueue::is_abc(&p));
        }
        assert!((8..=12).contains(&abc), "ABC served {abc} of 40 at weight 1/4");
    }

    fn link(overhead: u32) -> LinkInfo {
        LinkInfo {
            capacity: 1.5e6,
            overhead,
        }
    }

    #[test]
    fn classification_counters_and_the_queue_interface() {
        for (ecn, abc) in [(Ecn::NotEct, false), (Ecn::Ect1, true), (Ecn::Ect0, true), (Ecn::Ce, false)] {
            assert_eq!(CoexistQueue::is_abc(&pkt(0, ecn)), abc, "{ecn:?}");
        }
        let mut q = queue(Variant::Paper);
        assert_eq!((q.name(), q.next_timer(), q.gauge()), ("abc-coexist", Some(Time::from_millis(100)), Some(0.5)));
        assert_eq!(q.capacity_window(), Some(AbcRouterConfig::default().window));
        for _ in 0..3 {
            q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        }
        for _ in 0..2 {
            q.enqueue(Time::ZERO, Packet::data(2, 0, 1000, Ecn::ACCELERATE, Time::ZERO)).unwrap();
        }
        assert_eq!((q.len_packets(), q.len_bytes()), (5, 6500));
        let s = q.stats();
        assert_eq!((s.enqueued, s.max_packets, s.dropped), (5, 5, 0));
        // A full sub-queue drops (each holds at most the configured 1000 packets).
        let mut small = queue(Variant::Paper);
        small.cfg.abc.limit = Limit::Packets(1);
        small.other = Fifo::new(Limit::Packets(1));
        small.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        assert!(small.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).is_err());
        assert_eq!((small.stats().enqueued, small.stats().dropped), (1, 1));
        let mut d = Vec::new();
        for _ in 0..5 {
            q.dequeue(Time::ZERO, link(0), &mut d).unwrap();
        }
        assert!(q.dequeue(Time::ZERO, link(0), &mut d).is_none());
        assert_eq!(q.stats().dequeued, 5);
        let marked = q.stats().marked;
        // The ABC sub-queue's marks are the router's: with no capacity an accelerate leaves as a brake.
        let t = Time::from_millis(100);
        q.enqueue(t, pkt(100, Ecn::ACCELERATE)).unwrap();
        let no_capacity = LinkInfo {
            capacity: 0.0,
            overhead: 0,
        };
        assert_eq!(q.dequeue(t, no_capacity, &mut d).unwrap().ecn, Ecn::BRAKE);
        assert_eq!(q.stats().marked, marked + 1);
    }

    #[test]
    fn config_reads_the_variant() {
        let mut v = Values::defaults(&[PARAMS]);
        assert_eq!(CoexistConfig::from_values(&v).variant, Variant::Paper);
        v.set("variant", crate::params::Val::Word("artifact"));
        let c = CoexistConfig::from_values(&v);
        assert_eq!((c.variant, c.top_k, c.update, c.headroom), (Variant::Artifact, 10, Dur::from_millis(500), 0.1));
    }

    #[test]
    fn space_saving_breaks_ties_at_the_first_minimum() {
        let mut ss = SpaceSaving::new(3);
        ss.add(1, 5);
        assert_eq!(ss.min_count(), 0, "a free counter: an untracked flow would start from 0");
        ss.add(2, 5);
        ss.add(3, 5);
        ss.add(4, 1); // all tied at 5: the first (flow 1) goes
        assert_eq!(ss.counters()[0], Counter { flow: 4, count: 6, error: 5 });
        assert_eq!((ss.min_count(), ss.total()), (5, 16));
        ss.add(2, 2);
        assert_eq!(ss.counters()[1].count, 7);
    }

    /// Serve 10 packets of flow 1 and 5 of flow 2 (non-ABC) and 20 of ABC flow 100, with 4 bytes
    /// of link overhead per packet.
    fn serve_by_hand(q: &mut CoexistQueue) {
        for i in 0..35 {
            let p = match i {
                0..=9 => pkt(1, Ecn::NotEct),
                10..=14 => pkt(2, Ecn::NotEct),
                _ => pkt(100, Ecn::ACCELERATE),
            };
            q.enqueue(Time::ZERO, p).unwrap();
        }
        let mut d = Vec::new();
        for _ in 0..35 {
            q.dequeue(Time::from_millis(50), link(4), &mut d).unwrap();
        }
    }

    #[test]
    fn weights_by_hand_from_the_periods_served_bytes() {
        let mut q = queue(Variant::Paper);
        serve_by_hand(&mut q);
        // Served over 0.1 s: flow 1 150 400 B/s, flow 2 75 200, ABC flow 100 300 800 (1504 B each);
        // demands ×1.1: 165 440, 82 720 and 330 880, the short-flow aggregates 0.
        let d0 = q.demands(OTHER, 0.1);
        assert!(d0.len() == 3 && (d0[0] - 165_440.0).abs() < 1e-6 && (d0[1] - 82_720.0).abs() < 1e-6 && d0[2] == 0.0, "{d0:?}");
        q.on_timer(Time::from_millis(99), &ConstantSchedule(300_000.0));
        assert_eq!(q.weights(), [0.5, 0.5], "not due yet");
        q.on_timer(Time::from_millis(100), &ConstantSchedule(300_000.0));
        // Water-fill of 300 000 B/s: 0, 0, then 82 720 (flow 2), then the level
        // (300 000 − 82 720)/2 = 108 640 for flow 1 and for ABC: w_other = 191 360/300 000.
        let w = q.weights();
        assert!((w[OTHER] - 191_360.0 / 300_000.0).abs() < 1e-12 && (w[ABCQ] - 108_640.0 / 300_000.0).abs() < 1e-12, "{w:?}");
        assert_eq!(q.gauge(), Some(w[ABCQ]));
        assert_eq!((q.served, q.next_timer()), ([0.0, 0.0], Some(Time::from_millis(200))));
        assert!(q.tops.iter().all(|t| t.total() == 0));
        // A period in which nothing was served keeps the weights.
        q.on_timer(Time::from_millis(200), &ConstantSchedule(300_000.0));
        assert_eq!(q.weights(), w);
        // A period in which only ABC was served gives it the whole link.
        q.enqueue(Time::from_millis(250), pkt(100, Ecn::ACCELERATE)).unwrap();
        q.dequeue(Time::from_millis(250), link(0), &mut Vec::new()).unwrap();
        q.on_timer(Time::from_millis(300), &ConstantSchedule(300_000.0));
        assert_eq!(q.weights(), [0.0, 1.0]);
    }

    #[test]
    fn artifact_clamps_the_weight_around_its_measured_share() {
        let mut q = queue(Variant::Artifact);
        serve_by_hand(&mut q);
        // The share's EWMA moved by 0.25/1000 per departure: 15 non-ABC, then 20 ABC (in an order
        // drawn by the seeded coin); set it for the hand-worked clamp.
        assert!(q.share != 0.5 && (q.share - 0.5).abs() < 0.01, "{}", q.share);
        q.share = 0.5;
        q.on_timer(Time::from_millis(100), &ConstantSchedule(300_000.0));
        // Water-fill: 0.6379, clamped to [0.8, 1.2]·0.5 = [0.4, 0.6]: 0.6.
        let w = q.weights();
        assert!((w[OTHER] - 0.6).abs() < 1e-12 && (w[ABCQ] - 0.4).abs() < 1e-12, "{w:?}");
        // A tiny measured share: [0.008, 0.012], then the floor 0.05.
        serve_by_hand(&mut q);
        q.share = 0.01;
        q.on_timer(Time::from_millis(200), &ConstantSchedule(300_000.0));
        assert!((q.weights()[OTHER] - 0.05).abs() < 1e-12, "{:?}", q.weights());
        // The EWMA itself: one non-ABC departure from 0.5, then one ABC departure.
        let mut q = queue(Variant::Artifact);
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        q.dequeue(Time::ZERO, link(0), &mut d).unwrap();
        assert!((q.share - (0.5 + 0.25e-3 * 0.5)).abs() < 1e-15, "{}", q.share);
        let s1 = q.share;
        q.enqueue(Time::ZERO, pkt(2, Ecn::ACCELERATE)).unwrap();
        q.dequeue(Time::ZERO, link(0), &mut d).unwrap();
        assert!((q.share - (s1 - 0.25e-3 * s1)).abs() < 1e-15, "{}", q.share);
        // The paper variant keeps no such share.
        let mut p = queue(Variant::Paper);
        p.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        p.dequeue(Time::ZERO, link(0), &mut d).unwrap();
        assert_eq!(p.share, 0.5);
    }

    #[test]
    fn service_order_ties_go_to_the_non_abc_queue_and_idle_credit_is_levelled_in_wire_bytes() {
        let mut q = queue(Variant::Paper);
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, pkt(100, Ecn::ACCELERATE)).unwrap();
        q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        // Both counters 0 at equal weights: the non-ABC queue first, then ABC (now behind).
        assert_eq!(q.dequeue(Time::ZERO, link(4), &mut d).unwrap().flow, 1);
        assert_eq!(q.served, [1504.0, 0.0], "both queues had packets: no levelling");
        assert_eq!(q.dequeue(Time::ZERO, link(4), &mut d).unwrap().flow, 100);
        assert_eq!(q.served, [1504.0, 1504.0]);
        // At weights 3:1, a non-ABC packet served while ABC is idle brings ABC's counter level:
        // max(1504, 3008/0.75·0.25 = 1002.7) = 1504 (a counter is never lowered).
        q.weights = [0.75, 0.25];
        q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        q.dequeue(Time::ZERO, link(4), &mut d).unwrap();
        assert_eq!(q.served, [3008.0, 1504.0]);
        for _ in 0..3 {
            q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
            q.dequeue(Time::ZERO, link(4), &mut d).unwrap();
        }
        // 7520 B served: ABC's counter levelled to 7520/0.75·0.25.
        assert!((q.served[ABCQ] - 7520.0 / 0.75 * 0.25).abs() < 1e-9, "{:?}", q.served);
        // And the other way: an ABC packet while the non-ABC queue is idle.
        q.enqueue(Time::ZERO, pkt(100, Ecn::ACCELERATE)).unwrap();
        q.dequeue(Time::ZERO, link(4), &mut d).unwrap();
        let s = q.served;
        assert!((s[ABCQ] - (7520.0 / 3.0 + 1504.0)).abs() < 1e-9 && (s[OTHER] - 7520.0f64.max(s[ABCQ] / 0.25 * 0.75)).abs() < 1e-9, "{s:?}");
    }
}
