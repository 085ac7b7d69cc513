//! ABC's coexistence router (ABC paper §4.3, §7.5, Fig. 13): ABC and non-ABC packets wait in two
//! separate queues that share the link by weight, and ABC's μ is only its own share.
//!
//! * **Classification**: a data packet is ABC's when it carries ECT(1) or ECT(0) (accelerate or
//!   brake), non-ABC otherwise. The artifact classifies by source port instead; here non-ABC
//!   flows must therefore not use classic ECN at this hop (their ECT(0) would read as an ABC brake).
//! * **Rates**: each queue keeps a Space-Saving summary (Metwally, Agrawal & El Abbadi, ICDT 2005)
//!   of the bytes its flows had **served** during the current update period, with K counters.
//!   The top-K flows' rates are their guaranteed counts (count − error) over the period; the rest
//!   of the queue's served rate is one aggregate ("short flows"): queue rate − Σ top-K rates.
//! * **Demands**: (1 + X)·rate for each top-K flow (X = 10 %, ABC paper §4.3), the aggregate's
//!   rate for the short flows.
//! * **Weights**: every update period, max-min allocation of the link's capacity over the period:
//!   each short-flow aggregate gets its demand (it stands for many flows below the water level),
//!   the top-K flows of both queues water-fill the rest; a queue's weight is the sum of its
//!   allocations over the sum of all allocations (unchanged when nothing was served).
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
//! empty; its rates are the artifact's exact per-flow EWMAs of arrivals ([`ArrivalRates`],
//! α = 0.25/1000), water-filled over their own sum. Deviations: it multiplies demands by 1.1 by
//! port number (its long flows), here (1 + X) on each queue's top-K flows by rate; flows are told
//! apart by ECN codepoint, not port; it recomputes w on every dequeue, here every `update_ms`. See
//! docs/coexistence.md.
//!
//! `variant = rcp-zombie` is the baseline the paper compares against in Fig. 13b: RCP's way of
//! sharing a link with other traffic, which sets each queue's weight in proportion to its number of
//! flows, counted with SRED's zombie list (Ott, Lakshman & Wong, INFOCOM 1999): each arriving data
//! packet is compared with a random entry of its queue's list of M recent flows ("zombies"); a hit
//! moves the EWMA P(hit) towards 1, a miss towards 0 and, with probability p, writes the packet's
//! flow over that entry; 1/P(hit) estimates the number of active flows (for flows of unequal
//! rates, the effective number 1/Σ sᵢ² of their packet shares sᵢ). M = 1000 and p = 0.25 as in
//! the artifact's `weighted_packet_queue.cc` (per the authors' artifact digest), the EWMA gain
//! p/M as in SRED; weights N_q / (N_0 + N_1) every `update_ms`, served as in the paper variant
//! (weighted fair service), and ABC's μ its share. The ABC paper (§4.3) explains why this is unfair
//! to ABC: many short Cubic flows raise the Cubic queue's count and so its weight, and the long
//! Cubic flows take what the short ones cannot use.

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

impl Counter {
    /// The count less its error: a lower bound of the flow's true weight (exact since it took the
    /// counter).
    pub fn guaranteed(&self) -> u64 {
        self.count - self.error
    }
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

/// SRED's zombie list (Ott, Lakshman & Wong, "SRED: Stabilized RED", INFOCOM 1999): M recently
/// seen flows and the EWMA of the probability that an arriving packet's flow is the one in a
/// randomly chosen entry; 1/P(hit) estimates the number of active flows.
#[derive(Clone, Debug)]
pub struct ZombieList {
    slots: Vec<Option<u32>>,
    /// Probability that a miss overwrites the entry it was compared with.
    replace: f64,
    /// EWMA gain per arrival (SRED: p/M).
    gain: f64,
    /// EWMA of P(hit).
    hit: f64,
    /// Arrivals since the last [`ZombieList::take_arrivals`].
    arrivals: u64,
}

impl ZombieList {
    /// A list of `m` empty entries with replacement probability `p` (gain p/m).
    pub fn new(m: usize, p: f64) -> ZombieList {
        ZombieList {
            slots: vec![None; m.max(1)],
            replace: p,
            gain: p / m.max(1) as f64,
            hit: 0.0,
            arrivals: 0,
        }
    }

    /// One arriving packet of `flow`; `r1` chooses the entry and `r2` decides the overwrite (both
    /// uniform in [0, 1)). An empty entry is always filled (and counts as a miss).
    pub fn observe(&mut self, flow: u32, r1: f64, r2: f64) {
        let j = ((r1 * self.slots.len() as f64) as usize).min(self.slots.len() - 1);
        let hit = self.slots[j] == Some(flow);
        if !hit && (self.slots[j].is_none() || r2 < self.replace) {
            self.slots[j] = Some(flow);
        }
        self.hit += self.gain * (f64::from(u8::from(hit)) - self.hit);
        self.arrivals += 1;
    }

    /// The EWMA of P(hit).
    pub fn hit_probability(&self) -> f64 {
        self.hit
    }

    /// Estimated number of active flows, 1/P(hit); `None` before the first hit.
    pub fn flows(&self) -> Option<f64> {
        (self.hit > 0.0).then(|| 1.0 / self.hit)
    }

    /// Arrivals since the last call (and reset).
    pub fn take_arrivals(&mut self) -> u64 {
        std::mem::take(&mut self.arrivals)
    }
}

/// Artifact variant: each queue's per-flow arrival rates as `weighted_packet_queue.cc` keeps them
/// (its `category1`/`category2` maps, one entry per source port): on every arrival (before the
/// drop check) the flow's entry grows by α, and on every dequeue every entry decays by (1 − α),
/// α = 0.25/1000; an entry is thus an EWMA of the flow's share of arrivals per departure. The decay
/// is kept as one common scale factor (O(1) per dequeue instead of the artifact's loop over every
/// flow), entries live in ordered maps (sums in a fixed order: deterministic), and entries that
/// have decayed below [`RATE_FLOOR`] are dropped at each weight update (memory stays bounded; the
/// artifact keeps every port it has seen).
#[derive(Clone, Debug)]
pub struct ArrivalRates {
    stored: [std::collections::BTreeMap<u32, f64>; 2],
    scale: f64,
}

/// Entries of [`ArrivalRates`] below this share of arrivals per departure are forgotten.
pub const RATE_FLOOR: f64 = 1e-9;

impl Default for ArrivalRates {
    fn default() -> ArrivalRates {
        ArrivalRates {
            stored: Default::default(),
            scale: 1.0,
        }
    }
}

impl ArrivalRates {
    /// A packet of `flow` arrives at queue `q`.
    pub fn arrive(&mut self, q: usize, flow: u32) {
        *self.stored[q].entry(flow).or_insert(0.0) += ARTIFACT_SHARE_GAIN / self.scale;
    }

    /// A packet departs: every entry decays by (1 − α).
    pub fn depart(&mut self) {
        self.scale *= 1.0 - ARTIFACT_SHARE_GAIN;
        if self.scale < 1e-100 {
            self.renormalize();
        }
    }

    /// Fold the common scale into the entries and forget those below [`RATE_FLOOR`].
    pub fn renormalize(&mut self) {
        let scale = self.scale;
        for m in &mut self.stored {
            m.retain(|_, v| {
                *v *= scale;
                *v >= RATE_FLOOR
            });
        }
        self.scale = 1.0;
    }

    /// The rates of queue `q`'s flows, in flow order.
    pub fn rates(&self, q: usize) -> Vec<(u32, f64)> {
        self.stored[q].iter().map(|(&f, &v)| (f, v * self.scale)).collect()
    }
}

/// How the two queues share the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// ABC paper §4.3: weighted fair service, weights from the water-fill as they are.
    Paper,
    /// The authors' artifact: weights clamped around the measured share, probabilistic service.
    Artifact,
    /// RCP's baseline of Fig. 13b: weights ∝ each queue's flow count from a SRED zombie list.
    RcpZombie,
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
        "K, flows tracked per queue by Space-Saving (the rest count as one short-flow aggregate, \
         without headroom: keep K above the number of long flows in a queue)",
        "ABC paper §4.3 gives no K; our choice after the sweep in docs/coexistence.md (K = 10 and 30 alike)",
    ),
    Param::real("update_ms", 500.0, Unit::Ms, 1.0, 1e6).doc(
        "period of the rate measurement and weight update (longer than the flows' RTTs)",
        "ABC paper §4.3 gives no period; our choice after the sweep in docs/coexistence.md (Fig. 13 setup)",
    ),
    Param::real("headroom", 0.1, Unit::None, 0.0, 10.0)
        .doc("X: a top-K flow demands (1 + X) times its rate", "ABC paper §4.3: X = 10 %"),
    Param::choice("variant", "paper", &["paper", "artifact", "rcp-zombie"]).doc(
        "paper: weighted fair service by the water-fill's weights; artifact: weight clamped to \
         [0.8, 1.2]× its measured share and [0.05, 0.95], probabilistic service; rcp-zombie: \
         weights ∝ each queue's flow count from a SRED zombie list (the Fig. 13b baseline)",
        "ABC paper §4.3, §7.5, Fig. 13b; artifact weighted_packet_queue.cc",
    ),
    Param::whole("zombies", 1000, Unit::None, 1, 1_000_000).doc(
        "rcp-zombie: entries M of each queue's zombie list",
        "artifact weighted_packet_queue.cc (per the authors' artifact digest): 1000",
    ),
    Param::real("zombie_p", 0.25, Unit::None, 1e-6, 1.0).doc(
        "rcp-zombie: probability that a miss overwrites the entry (EWMA gain p/M, SRED)",
        "artifact: 0.25; SRED (Ott, Lakshman & Wong, INFOCOM 1999) gain p/M",
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
    /// rcp-zombie: M.
    pub zombies: usize,
    /// rcp-zombie: p.
    pub zombie_p: f64,
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
                "rcp-zombie" => Variant::RcpZombie,
                _ => Variant::Paper,
            },
            zombies: v.whole("zombies") as usize,
            zombie_p: v.real("zombie_p"),
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
    /// rcp-zombie: each queue's zombie list (empty for the other variants).
    zombies: Vec<ZombieList>,
    /// Artifact: per-flow arrival rates (empty for the other variants).
    arrival_rates: ArrivalRates,
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
            zombies: if cfg.variant == Variant::RcpZombie {
                vec![ZombieList::new(cfg.zombies, cfg.zombie_p); 2]
            } else {
                Vec::new()
            },
            arrival_rates: ArrivalRates::default(),
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

    /// The demands of one queue over a period of `secs`: (1 + X)·rate for each top-K flow, and
    /// the short-flow aggregate's rate.
    ///
    /// A top-K flow's rate is its *guaranteed* count, count − error (Metwally et al. §3: the bytes
    /// it had served since it took its counter, never more than its true bytes), not its count.
    /// Once the K counters are in use, Space-Saving's counts add up to the whole stream (a newcomer
    /// inherits the evicted counter's count), so queue rate − Σ counts would be 0 whatever the
    /// short flows sent: their bytes would sit in the inflated counters of the flows that replaced
    /// them and get the (1 + X) headroom that §4.3 gives only the top-K ("the aggregate demand for
    /// the short flows is the same as their throughput"). With guaranteed counts the inherited
    /// bytes — those of flows no longer tracked — count in the aggregate. (Otherwise the
    /// short flows' headroom gives the Cubic queue ~1 Mbit/s of extra weight in Fig. 13.)
    fn demands(&self, q: usize, secs: f64) -> (Vec<f64>, f64) {
        let top = &self.tops[q];
        let out: Vec<f64> = top
            .counters()
            .iter()
            .map(|c| (1.0 + self.cfg.headroom) * c.guaranteed() as f64 / secs)
            .collect();
        let tracked: u64 = top.counters().iter().map(Counter::guaranteed).sum();
        (out, top.total().saturating_sub(tracked) as f64 / secs)
    }

    /// Recompute the weights from the period's measurements and capacity (bytes/s).
    ///
    /// The short-flow aggregates are given their demands first and the top-K flows water-fill
    /// the rest: an aggregate stands for many flows, each far below the water level, and max-min
    /// gives each of those its demand (§4.3: the water-fill "accounts for demand-limited short
    /// flows"). Water-filling an aggregate as if it were one flow caps it at the level: at 30 %
    /// short-flow load in Fig. 13 (28.8 Mbit/s of short flows, a level of ~14) the Cubic queue's
    /// weight then lost half its short flows' rate and its long flows starved. When the
    /// aggregates alone exceed the capacity they share it in proportion and the top-K get nothing.
    fn update_weights(&mut self, secs: f64, capacity: f64) {
        match self.cfg.variant {
            Variant::RcpZombie => return self.update_zombie_weights(),
            Variant::Artifact => return self.update_artifact_weights(),
            Variant::Paper => {}
        }
        let (d0, s0) = self.demands(OTHER, secs);
        let (d1, s1) = self.demands(ABCQ, secs);
        let capacity = capacity.max(0.0);
        let short = s0 + s1;
        let (g0, g1, left) = if short > capacity {
            (capacity * s0 / short, capacity * s1 / short, 0.0)
        } else {
            (s0, s1, capacity - short)
        };
        let all: Vec<f64> = d0.iter().chain(d1.iter()).copied().collect();
        let alloc = water_fill(left, &all);
        let a0: f64 = g0 + alloc[..d0.len()].iter().sum::<f64>();
        let a1: f64 = g1 + alloc[d0.len()..].iter().sum::<f64>();
        if a0 + a1 > 0.0 {
            let w0 = a0 / (a0 + a1);
            self.weights = [w0, 1.0 - w0];
        }
        self.tops[OTHER].clear();
        self.tops[ABCQ].clear();
    }

    /// Artifact: the water-fill over every flow's arrival rate as `weighted_packet_queue.cc` does it
    /// (its weighted_mode 1): the capacity is the sum of all rates, the headroom flows demand
    /// 1.1·rate and get at most the water level, the others their rate; the non-ABC weight is its
    /// flows' share of the allocations, clamped to [0.8, 1.2]× its measured share and [0.05, 0.95].
    /// The artifact gives the headroom by port number (ports ≥ 5197, its long flows); here the
    /// top-K flows of each queue by rate get it, as in the paper variant (K = `top_k`).
    fn update_artifact_weights(&mut self) {
        self.arrival_rates.renormalize();
        let mut demands: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let mut total = 0.0;
        for (q, d) in demands.iter_mut().enumerate() {
            let mut r: Vec<f64> = self.arrival_rates.rates(q).into_iter().map(|(_, v)| v).collect();
            total += r.iter().sum::<f64>();
            r.sort_by(|a, b| b.total_cmp(a));
            for (i, v) in r.iter_mut().enumerate() {
                if i < self.cfg.top_k {
                    *v *= 1.0 + self.cfg.headroom;
                }
            }
            *d = r;
        }
        let all: Vec<f64> = demands[OTHER].iter().chain(demands[ABCQ].iter()).copied().collect();
        let alloc = water_fill(total, &all);
        let a0: f64 = alloc[..demands[OTHER].len()].iter().sum();
        let a1: f64 = alloc[demands[OTHER].len()..].iter().sum();
        if a0 + a1 > 0.0 {
            let (lo, hi) = ARTIFACT_SHARE_CLAMP;
            let w0 = (a0 / (a0 + a1)).clamp(lo * self.share, (hi * self.share).max(lo * self.share));
            let w0 = w0.clamp(ARTIFACT_WEIGHT_CLAMP.0, ARTIFACT_WEIGHT_CLAMP.1);
            self.weights = [w0, 1.0 - w0];
        }
        self.tops[OTHER].clear();
        self.tops[ABCQ].clear();
    }

    /// rcp-zombie: weights ∝ estimated flow counts. A queue with no arrivals in the period has no
    /// flows (weight 0: the other takes the link, and the scheduler stays work conserving); while
    /// a queue's list has seen no hit yet its count is unknown and the weights stay as they are.
    fn update_zombie_weights(&mut self) {
        let active = [self.zombies[OTHER].take_arrivals() > 0, self.zombies[ABCQ].take_arrivals() > 0];
        let n = |q: usize| if active[q] { self.zombies[q].flows() } else { Some(0.0) };
        if let (Some(n0), Some(n1)) = (n(OTHER), n(ABCQ)) {
            if n0 + n1 > 0.0 {
                self.weights = [n0 / (n0 + n1), n1 / (n0 + n1)];
            }
        }
    }

    /// Which queue serves next, both being non-empty.
    fn pick(&mut self) -> usize {
        match self.cfg.variant {
            Variant::Paper | Variant::RcpZombie => {
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
        // Both variants' arrival counts come before the drop check, as in the artifact.
        let q = if Self::is_abc(&pkt) { ABCQ } else { OTHER };
        if !self.zombies.is_empty() {
            let (r1, r2) = (self.rng.next_f64(), self.rng.next_f64());
            self.zombies[q].observe(pkt.flow, r1, r2);
        }
        if self.cfg.variant == Variant::Artifact {
            self.arrival_rates.arrive(q, pkt.flow);
        }
        let r = if q == ABCQ {
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
            self.arrival_rates.depart();
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
            zombies: 100,
            zombie_p: 0.25,
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
            // Bounded: a broken enqueue must fail the test, not hang it.
            for _ in 0..50 {
                if q.abc.len_packets() >= 50 {
                    break;
                }
                q.enqueue(now, pkt(100 + (i as u32 % abc_flows), Ecn::ACCELERATE)).unwrap();
            }
            for _ in 0..50 {
                if q.other.len() >= 50 {
                    break;
                }
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
    fn zombie_list_hand_worked() {
        // M = 2, p = 1 (every miss overwrites), gain p/M = 0.5.
        let mut z = ZombieList::new(2, 1.0);
        assert_eq!(z.flows(), None);
        z.observe(7, 0.1, 0.9); // entry 0 empty: filled with 7, a miss
        assert_eq!(z.hit_probability(), 0.0);
        z.observe(7, 0.2, 0.9); // entry 0 holds 7: a hit
        assert_eq!(z.hit_probability(), 0.5);
        z.observe(8, 0.3, 0.9); // entry 0 holds 7: a miss, overwritten with 8 (0.9 < p = 1)
        assert_eq!(z.hit_probability(), 0.25);
        z.observe(8, 0.99, 0.0); // entry 1 empty: filled, a miss
        assert_eq!(z.hit_probability(), 0.125);
        z.observe(8, 0.99, 0.0); // entry 1 holds 8: a hit
        assert_eq!(z.hit_probability(), 0.5625);
        assert_eq!(z.flows(), Some(1.0 / 0.5625));
        assert_eq!(z.take_arrivals(), 5);
        assert_eq!(z.take_arrivals(), 0);
        // p = 0.5: a miss overwrites only when r2 < 0.5.
        let mut z = ZombieList::new(1, 0.5);
        z.observe(1, 0.0, 0.9);
        z.observe(2, 0.0, 0.7); // miss, kept (0.7 ≥ 0.5)
        z.observe(1, 0.0, 0.7); // hit: 1 is still there
        assert!(z.hit_probability() > 0.0);
        z.observe(2, 0.0, 0.2); // miss, overwritten
        z.observe(2, 0.0, 0.9); // hit on 2
        assert_eq!(z.slots, vec![Some(2)]);
    }

    #[test]
    fn zombie_list_estimates_the_effective_number_of_flows() {
        // In steady state an entry holds flow i with probability sᵢ (its packet share), so
        // P(hit) = Σ sᵢ² and 1/P(hit) is the number of flows when they are equal (SRED).
        let mut rng = Rng::stream(7, 0);
        for (shares, expect) in [(vec![1.0; 5], 5.0), (vec![2.0, 1.0, 1.0], 1.0 / 0.375)] {
            let total: f64 = shares.iter().sum();
            let mut z = ZombieList::new(200, 0.25);
            for _ in 0..400_000 {
                let mut x = rng.next_f64() * total;
                let mut flow = 0u32;
                for (i, w) in shares.iter().enumerate() {
                    flow = i as u32;
                    if x < *w {
                        break;
                    }
                    x -= w;
                }
                let (r1, r2) = (rng.next_f64(), rng.next_f64());
                z.observe(flow, r1, r2);
            }
            let n = z.flows().unwrap();
            assert!((n / expect - 1.0).abs() < 0.08, "{shares:?}: {n} flows, expected {expect}");
        }
    }

    #[test]
    fn rcp_zombie_weights_follow_the_flow_counts() {
        // 1 ABC flow against 3 others, all backlogged: weights ∝ counts, ABC about a quarter.
        let mut q = queue(Variant::RcpZombie);
        let s = serve(&mut q, 1, 3, 30_000);
        let n = [q.zombies[OTHER].flows().unwrap(), q.zombies[ABCQ].flows().unwrap()];
        assert!((n[ABCQ] - 1.0).abs() < 0.01 && (n[OTHER] / 3.0 - 1.0).abs() < 0.15, "counts {n:?}");
        assert!((q.weights()[ABCQ] - 0.25).abs() < 0.04, "weights {:?}", q.weights());
        let frac = s[1] as f64 / (s[0] + s[1]) as f64;
        assert!((frac - 0.25).abs() < 0.05, "ABC share {frac}");
        // The weights are the counts' shares, and a queue without arrivals gets none.
        let n = [q.zombies[OTHER].flows().unwrap(), q.zombies[ABCQ].flows().unwrap()];
        q.zombies[OTHER].observe(0, 0.5, 1.0);
        q.zombies[ABCQ].observe(100, 0.5, 1.0);
        let n2 = [q.zombies[OTHER].flows().unwrap(), q.zombies[ABCQ].flows().unwrap()];
        q.update_zombie_weights();
        let w = q.weights();
        assert!((w[ABCQ] - n2[ABCQ] / (n2[OTHER] + n2[ABCQ])).abs() < 1e-12, "{w:?} {n2:?}");
        assert!((w[OTHER] + w[ABCQ] - 1.0).abs() < 1e-12);
        let before = q.weights();
        q.zombies[ABCQ].observe(100, 0.0, 1.0);
        q.update_zombie_weights(); // no non-ABC arrival since the last update
        assert_eq!(q.weights(), [0.0, 1.0], "counts were {n:?}, weights {before:?}");
        // Other variants keep no lists.
        assert!(queue(Variant::Paper).zombies.is_empty());
    }

    #[test]
    fn short_flows_churning_through_the_counters_form_the_aggregate_without_headroom() {
        // K = 4 counters; 2 long flows (60 % of the packets, 60 each: above N/K = 50, so always
        // tracked) and 40 short flows of 2 packets interleaved, all served within one period. Once
        // the counters are full every short flow replaces the minimum and inherits its count, so
        // the counts add up to everything served.
        let mut q = queue(Variant::Paper);
        let mut drops = Vec::new();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        let (mut long_pkts, mut short_pkts) = (0u32, 0u32);
        for i in 0..200u32 {
            let flow = if i % 5 < 3 {
                long_pkts += 1;
                long_pkts % 2
            } else {
                short_pkts += 1;
                1000 + (short_pkts - 1) / 2
            };
            q.enqueue(Time::ZERO, pkt(flow, Ecn::NotEct)).unwrap();
            q.dequeue(Time::ZERO, link, &mut drops).unwrap();
        }
        let (d, aggregate) = q.demands(OTHER, 1.0);
        let served = 200.0 * 1500.0;
        let long = 120.0 * 1500.0;
        let top: f64 = d.iter().sum();
        // The long flows (tracked throughout, error 0) get (1 + X)·rate; the short flows' bytes,
        // tracked or evicted, are at most (1 + X) of their rate in all and mostly in the aggregate.
        let long_demand: f64 = q.tops[OTHER]
            .counters()
            .iter()
            .filter(|c| c.flow < 2)
            .map(|c| 1.1 * c.guaranteed() as f64)
            .sum();
        assert!((long_demand - 1.1 * long).abs() < 1e-6, "long demand {long_demand}");
        assert!(
            aggregate >= 0.8 * (served - long),
            "short aggregate {aggregate} of {} short bytes",
            served - long
        );
        assert!(top + aggregate <= served + 0.1 * served, "demands {top} + {aggregate}");
        assert!(top + aggregate >= served - 1e-6);
    }

    #[test]
    fn the_short_flow_aggregate_gets_its_demand_before_the_water_fill() {
        // Non-ABC queue: 3 long flows of 100 and 30 short flows of 2 churning through the 4th
        // counter (it ends at 60 < 100, so the long flows stay: aggregate 58, the last short flow
        // tracked with 2); ABC queue: 3 flows of 100. Capacity 300 over 1 s. The aggregate is met
        // first (58), the top-K water-fill the other 242: 2.2 for the tracked short flow, then a
        // level of (242 − 2.2) / 6 ≈ 39.97 for the six long flows (demands 110). Water-filling
        // the aggregate as one flow would cap it at the level 42.5 and give the non-ABC queue
        // 0.575 instead of 0.600.
        let mut q = queue(Variant::Paper);
        for f in 0..3 {
            q.tops[OTHER].add(f, 100);
            q.tops[ABCQ].add(100 + f, 100);
        }
        for f in 0..30 {
            q.tops[OTHER].add(1000 + f, 2);
        }
        let (d, aggregate) = q.demands(OTHER, 1.0);
        assert!((aggregate - 58.0).abs() < 1e-9, "aggregate {aggregate}");
        assert!((d.iter().sum::<f64>() - 1.1 * 302.0).abs() < 1e-9, "top-K demands {d:?}");
        q.update_weights(1.0, 300.0);
        let w0 = (58.0 + 2.2 + 3.0 * (300.0 - 58.0 - 2.2) / 6.0) / 300.0;
        assert!((q.weights()[OTHER] - w0).abs() < 1e-9, "weights {:?}, expected {w0}", q.weights());
        // Aggregates above the capacity share it in proportion; the top-K get nothing.
        for f in 0..3 {
            q.tops[OTHER].add(f, 15);
        }
        for f in 0..300 {
            q.tops[OTHER].add(1000 + f, 1);
            q.tops[ABCQ].add(2000 + f, 1);
        }
        let (s0, s1) = (q.demands(OTHER, 1.0).1, q.demands(ABCQ, 1.0).1);
        assert!(s0 + s1 > 100.0);
        q.update_weights(1.0, 100.0);
        assert!((q.weights()[OTHER] - s0 / (s0 + s1)).abs() < 1e-9, "weights {:?}", q.weights());
    }

    #[test]
    fn artifact_arrival_rates_by_hand() {
        let a = ARTIFACT_SHARE_GAIN;
        let mut r = ArrivalRates::default();
        r.arrive(OTHER, 7);
        r.arrive(OTHER, 7);
        r.arrive(ABCQ, 9);
        r.depart();
        r.arrive(OTHER, 7);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-15;
        let other = r.rates(OTHER);
        assert_eq!(other.len(), 1);
        assert!(close(other[0].1, 2.0 * a * (1.0 - a) + a), "{other:?}");
        assert!(close(r.rates(ABCQ)[0].1, a * (1.0 - a)));
        r.renormalize();
        assert!(close(r.rates(OTHER)[0].1, 2.0 * a * (1.0 - a) + a));
        // Decayed below the floor: forgotten at the next renormalisation.
        for _ in 0..200_000 {
            r.depart();
        }
        r.renormalize();
        assert!(r.rates(OTHER).is_empty() && r.rates(ABCQ).is_empty());
    }

    #[test]
    fn artifact_weights_water_fill_every_flows_arrival_rate() {
        // Non-ABC flows 1, 2, 3 with 3000, 3000, 1000 arrivals, ABC flow 100 with 3000; no
        // departures, so the rates are the counts times α. K = 4: every flow demands 1.1 × rate.
        // In units of 1000 α: demands 3.3, 3.3, 1.1, 3.3 against a capacity of 10 (the sum of the
        // rates): flow 3 gets 1.1, the others (10 − 1.1)/3 = 2.9667 each, so the non-ABC weight
        // is (1.1 + 2 · 2.9667)/10 = 0.70333.
        let mut q = queue(Variant::Artifact);
        for (flow, n, ecn) in [(1, 3000, Ecn::NotEct), (2, 3000, Ecn::NotEct), (3, 1000, Ecn::NotEct)]
            .into_iter()
            .chain([(100, 3000, Ecn::ACCELERATE)])
        {
            for _ in 0..n {
                q.arrival_rates.arrive(usize::from(ecn == Ecn::ACCELERATE), flow);
            }
        }
        let expect = (1.1 + 2.0 * (10.0 - 1.1) / 3.0) / 10.0;
        q.share = expect; // the clamps around the measured share do not bind
        q.update_artifact_weights();
        assert!((q.weights()[OTHER] - expect).abs() < 1e-9, "{:?}", q.weights());
        // The clamps do bind when the measured share is far off: at most 1.2 × 0.5.
        q.share = 0.5;
        q.update_artifact_weights();
        assert!((q.weights()[OTHER] - 0.6).abs() < 1e-12, "{:?}", q.weights());
        // Arrivals count before the drop check, departures decay every rate.
        let mut q = queue(Variant::Artifact);
        q.enqueue(Time::ZERO, pkt(5, Ecn::NotEct)).unwrap();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        q.dequeue(Time::ZERO, link, &mut Vec::new()).unwrap();
        let r = q.arrival_rates.rates(OTHER);
        assert!((r[0].1 - ARTIFACT_SHARE_GAIN * (1.0 - ARTIFACT_SHARE_GAIN)).abs() < 1e-15, "{r:?}");
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
        v.set("variant", crate::params::Val::Word("rcp-zombie"));
        let c = CoexistConfig::from_values(&v);
        assert_eq!((c.variant, c.zombies, c.zombie_p), (Variant::RcpZombie, 1000, 0.25));
    }

    #[test]
    fn zombie_list_boundaries() {
        // r1 = 1 (never drawn, but the index is clamped) picks the last entry; r2 = p exactly does
        // not overwrite (a miss overwrites when r2 < p).
        let mut z = ZombieList::new(2, 0.5);
        z.observe(3, 1.0, 0.9);
        assert_eq!(z.slots, vec![None, Some(3)]);
        z.observe(4, 0.99, 0.5);
        assert_eq!(z.slots, vec![None, Some(3)]);
        z.observe(4, 0.99, 0.49);
        assert_eq!(z.slots, vec![None, Some(4)]);
    }

    #[test]
    fn zombie_weights_without_arrivals() {
        let mut q = queue(Variant::RcpZombie);
        serve(&mut q, 1, 3, 5_000);
        q.update_zombie_weights();
        let w = q.weights();
        // Neither queue had an arrival since: nothing to go by, the weights stay.
        q.update_zombie_weights();
        assert_eq!(q.weights(), w);
        // Only the non-ABC queue had arrivals: it gets the whole link.
        q.zombies[OTHER].observe(0, 0.5, 1.0);
        q.update_zombie_weights();
        assert_eq!(q.weights(), [1.0, 0.0]);
    }

    #[test]
    fn short_flow_aggregate_rate_is_per_second() {
        // K = 1: flow 1 then flow 2 (100 B each) leave a guaranteed 100 tracked and 100 untracked.
        let mut q = queue(Variant::Paper);
        q.cfg.top_k = 1;
        q.tops[OTHER] = SpaceSaving::new(1);
        q.tops[OTHER].add(1, 100);
        q.tops[OTHER].add(2, 100);
        let (d, short) = q.demands(OTHER, 0.5);
        assert_eq!((d, short), (vec![1.1 * 100.0 / 0.5], 200.0));
    }

    #[test]
    fn artifact_weights_headroom_for_the_top_k_only_and_one_sided_queues() {
        // K = 1: only the largest flow of each queue demands 1.1×. Non-ABC 3000, 2800, 1000
        // arrivals, ABC 3000 (units of 1000 α): demands 3.3, 2.8, 1.0 and 3.3 of 9.8. Water-fill:
        // 1.0, then 2.8 (< 8.8/3), then 3.0 each: w = (3.0 + 2.8 + 1.0)/9.8. Were the second
        // flow also given headroom (3.08) it would be capped at 8.8/3 and w = 0.70068.
        let mut q = queue(Variant::Artifact);
        q.cfg.top_k = 1;
        for (flow, n, abc) in [(1, 3000, false), (2, 2800, false), (3, 1000, false), (100, 3000, true)] {
            for _ in 0..n {
                q.arrival_rates.arrive(usize::from(abc), flow);
            }
        }
        let expect = 6.8 / 9.8;
        q.share = expect;
        q.update_artifact_weights();
        assert!((q.weights()[OTHER] - expect).abs() < 1e-9, "{:?}", q.weights());
        // No arrivals at all: the weights stay; arrivals only at the non-ABC queue: all of the
        // water-fill is its, then the clamps (1.2 × 0.9 → 0.95 at most).
        let mut q = queue(Variant::Artifact);
        q.update_artifact_weights();
        assert_eq!(q.weights(), [0.5, 0.5]);
        q.arrival_rates.arrive(OTHER, 1);
        q.share = 0.9;
        q.update_artifact_weights();
        assert_eq!(q.weights()[OTHER], ARTIFACT_WEIGHT_CLAMP.1);
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
        let (d0, s0) = q.demands(OTHER, 0.1);
        assert!(
            d0.len() == 2 && (d0[0] - 165_440.0).abs() < 1e-6 && (d0[1] - 82_720.0).abs() < 1e-6 && s0 == 0.0,
            "{d0:?} {s0}"
        );
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
        // The artifact's water-fill over the flows' arrival rates (10, 5 and 20 packets, each
        // demanding 1.1×, the capacity their sum 35): flow 2 gets 5.5, flow 1 11, ABC the rest,
        // 18.5; w = 16.5/35, inside [0.8, 1.2]·0.5 = [0.4, 0.6].
        let w = q.weights();
        assert!((w[OTHER] - 16.5 / 35.0).abs() < 1e-12 && (w[ABCQ] - 18.5 / 35.0).abs() < 1e-12, "{w:?}");
        // With a measured share of 0.3 the clamp binds: [0.24, 0.36].
        serve_by_hand(&mut q);
        q.share = 0.3;
        q.on_timer(Time::from_millis(200), &ConstantSchedule(300_000.0));
        assert!((q.weights()[OTHER] - 0.36).abs() < 1e-12, "{:?}", q.weights());
        // A tiny measured share: [0.008, 0.012], then the floor 0.05.
        serve_by_hand(&mut q);
        q.share = 0.01;
        q.on_timer(Time::from_millis(300), &ConstantSchedule(300_000.0));
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
