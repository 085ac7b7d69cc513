//! The ABC router (paper §3.1.2 and Algorithm 1; artifact `cellular_packet_queue.cc`).
//!
//! Drop-tail buffer; on every dequeued ABC packet (ECN-capable) it recomputes
//!
//! * the target rate `tr = η·μ − (μ/δ)·(x − d_t)⁺` (Eq. 1), with μ the link capacity over the last
//!   `T` (the router knows the link schedule: every opportunity byte counts, used or wasted) and x
//!   the queueing delay;
//! * the accelerate fraction `f = min(tr / (2·cr), 1)` (Eq. 2), cr being the **dequeue** rate of ABC
//!   packets over the last `T` (or the enqueue rate, for the Fig. 2 ablation);
//!
//! and then runs the token bucket of Algorithm 1: `token = min(token + f, limit)`; an accelerate
//! packet keeps its mark only if `token > 1` (spending one token), otherwise it becomes a brake.
//! Brakes stay brakes; legacy CE (11) is never touched; non-ECT packets pass unmarked.
//!
//! Choices where the paper and the artifact differ (see `docs/abc.md`):
//! * Eq. 1 as in the paper (η multiplies μ). The artifact multiplies the dequeue rate by η and adds
//!   0.49 tokens per wasted opportunity, which is the same law on average.
//! * x is the artifact's estimate: bytes queued (including the departing packet) divided by μ, not
//!   the departing packet's sojourn time (selectable with `delay_source = sojourn`).
//! * Only ECN-capable packets count in cr and receive marks, as in the artifact; all queued packets
//!   count in x.
//! * Tokens start at 0 (Algorithm 1); the artifact starts at 5.

use super::{Fifo, Limit, LimitRule, LinkInfo, LinkSchedule, Queue, QueueKind, QueueStats};
use crate::params::{Config, Param, Unit, Values};
use crate::error::{Error, Result};
use crate::packet::{Ecn, Packet};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// How x (queueing delay) is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelaySource {
    /// Queue length in bytes (including the departing packet) / μ. Artifact behaviour.
    QueueLength,
    /// Sojourn time of the departing packet.
    Sojourn,
}

/// Which rate Eq. 2 divides by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateSource {
    /// Dequeue rate (the paper's design).
    Dequeue,
    /// Enqueue rate (the ablation of Fig. 2).
    Enqueue,
}

/// ABC router parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbcRouterConfig {
    /// η: target utilisation (paper §7.2: 0.98; artifact literal 0.98).
    pub eta: f64,
    /// δ: time to drain the excess queue (paper §7.2 and artifact `exp.sh`: 133 ms).
    pub delta: Dur,
    /// d_t: queueing-delay threshold (artifact `exp.sh`: qdelay_ref = 50 ms).
    pub dt: Dur,
    /// T: window for μ and cr (artifact: 20 ms).
    pub window: Dur,
    /// Token bucket limit (artifact: 5).
    pub token_limit: f64,
    /// Rate used in Eq. 2.
    pub rate_source: RateSource,
    /// How x is measured.
    pub delay_source: DelaySource,
    /// Buffer limit (artifact experiments: 250 packets).
    pub limit: Limit,
    /// PK-ABC (§7.6): measure μ over the window ending this far in the future (the router knows
    /// the trace); `None` for ABC.
    pub lookahead: Option<Dur>,
    /// PK-ABC only: the fraction of the coming change of μ the router knows,
    /// `μ = μ_now + knowledge·(μ_ahead − μ_now)` (1: PK-ABC; 0: ABC's μ measured now). Ours
    ///: a partial oracle, to measure how much of PK-ABC's gain a forecast of a given
    /// error keeps.
    pub knowledge: f64,
    /// Predictive ABC (beyond the paper): forecast μ this far ahead from the μ it has measured,
    /// without the trace (see [`Forecast`]); `None` for ABC.
    pub forecast: Option<Forecast>,
}

/// The predictive ABC router's online forecast of μ (our addition; `docs/explicit-schemes.md`):
/// a least-squares line through the μ samples of the last `history`, extrapolated `horizon` ahead
/// and clamped to `[0, μ_now]` when `falls_only` (it only ever anticipates drops, never rises: a
/// rise mispredicted costs queue, a drop mispredicted costs only a little throughput), or to
/// `[0, 2·μ_now]` otherwise. It sees only what the router measured: no trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Forecast {
    /// How far ahead (one RTT).
    pub horizon: Dur,
    /// How much history the trend is fitted over.
    pub history: Dur,
    /// Only anticipate drops.
    pub falls_only: bool,
    /// Weight of the forecast against μ measured now: `μ + gain·(forecast − μ)`.
    pub gain: f64,
    /// Which forecaster.
    pub model: ForecastModel,
    /// Sprout model: the quantile (fraction) of the rate forecast.
    pub quantile: f64,
    /// Where the forecast replaces μ.
    pub apply: Apply,
}

/// Where predictive ABC uses its forecast of μ (Eq. 1: `tr = η·μ − (μ/δ)·(x − d_t)⁺`, `x = Q/μ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// Everywhere, as PK-ABC uses its μ.
    Both,
    /// Only in the queueing-delay estimate `x = Q/μ` (the forecast drain time of the queue).
    Delay,
    /// Only in the target rate's μ (`x` from μ measured now).
    Target,
}

/// Predictive ABC's forecaster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForecastModel {
    /// The damped least-squares trend of [`AbcQueue::forecast`] (`history`, `gain`, `falls_only`).
    Trend,
    /// The learned linear model of [`Learned`] (weights [`LEARNED_WEIGHTS`]), damped and clamped
    /// as the trend ([`AbcQueue::damp`]); ignores `history`.
    Learned,
    /// Sprout's stochastic model of the delivery rate ([`Stochastic`]): a quantile of the rate one
    /// horizon ahead, damped and clamped as the trend; ignores `history`.
    Sprout,
}

/// The Sprout-style forecaster's model constants (its [`crate::cc::sprout::SproutConfig`]):
/// σ = 200 opportunities/s per √s and the outage escape rate 1/s as the Sprout paper (§3.1); the
/// rate grid reaches 2000 opportunities/s (24 Mbit/s; the `keithw/sprout` receiver.hh 04bd2ae
/// value, as the paper's 1000/s would cap the 12.8 Mbit/s TMobile-LTE-driving trace) in 256 bins.
pub fn sprout_model() -> crate::cc::sprout::SproutConfig {
    crate::cc::sprout::SproutConfig {
        max_rate: 2000.0,
        ..Default::default()
    }
}

/// Predictive ABC's Sprout-style forecaster (our use of the Sprout paper's model, §3.1): the
/// delivery opportunities of the link, counted per 20 ms tick, are the observations of Sprout's
/// Bayesian filter (a Poisson process whose rate does a Brownian motion, with an outage state);
/// after every tick the posterior is diffused `ceil(horizon / tick)` more ticks and the
/// `quantile` of the rate read off it. The router learns the opportunities from μ alone: it is
/// asked for a packet at every opportunity (with an empty queue too), μ counts the last `T`, so
/// the bytes of the current millisecond are μ·T less the bytes of the previous `T − 1 ms`, which
/// it remembers.
#[derive(Clone, Debug)]
pub struct Stochastic {
    fc: crate::cc::sprout::Forecaster,
    /// Opportunity bytes of each of the last `T` milliseconds (index: ms mod T).
    ring: Vec<f64>,
    /// T, s (μ·T = the window's bytes).
    window_s: f64,
    last_ms: Option<u64>,
    /// Start (ms) and bytes so far of the tick being counted.
    tick_start: u64,
    tick_bytes: f64,
    /// Ticks the posterior is diffused for the forecast, and the quantile (fraction).
    ahead: usize,
    quantile: f64,
    /// The forecast (bytes/s) after the last complete tick.
    mu_f: Option<f64>,
}

impl Stochastic {
    /// Tick length, ms (Sprout: 20).
    pub const TICK_MS: u64 = crate::cc::sprout::TICK_MS as u64;
    /// Most ticks run at one opportunity after a silence (3000 × 20 ms = 60 s).
    pub const MAX_CATCHUP_TICKS: u64 = 3000;

    /// A forecaster for a μ window of `window`, `horizon` ahead. The opportunity counts are exact
    /// for a whole number of milliseconds (the default T = 20 ms; trace links deliver on whole
    /// milliseconds); another window is rounded to whole milliseconds (at least one), which makes
    /// them approximate.
    pub fn new(window: Dur, horizon: Dur, quantile: f64) -> Stochastic {
        let w = ((window.0 as f64 / 1e6).round() as usize).max(1);
        Stochastic {
            fc: crate::cc::sprout::Forecaster::new(sprout_model()),
            ring: vec![0.0; w],
            window_s: window.secs_f64(),
            last_ms: None,
            tick_start: 0,
            tick_bytes: 0.0,
            ahead: (horizon.0.div_ceil(Self::TICK_MS * 1_000_000)) as usize,
            quantile,
            mu_f: None,
        }
    }

    /// Record μ (bytes/s over the window) at an opportunity at `now`.
    pub fn observe(&mut self, now: Time, mu: f64) {
        let m = now.0 / 1_000_000;
        let w = self.ring.len() as u64;
        match self.last_ms {
            None => self.tick_start = m - m % Self::TICK_MS,
            Some(last) if m != last => {
                self.tick_bytes += self.ring[(last % w) as usize];
                // The ticks completed since the last opportunity: the first holds what was counted,
                // the others (a silence) none. A silence longer than MAX_CATCHUP_TICKS ticks
                // (60 s) is taken as that long: the filter has long settled in its outage state.
                let ticks = (m.saturating_sub(self.tick_start) / Self::TICK_MS).min(Self::MAX_CATCHUP_TICKS);
                for _ in 0..ticks {
                    let count = (self.tick_bytes / f64::from(crate::link::OPPORTUNITY_BYTES)).round();
                    self.fc.evolve();
                    self.fc.observe(count as u32);
                    self.tick_bytes = 0.0;
                }
                let ticked = ticks > 0;
                if ticked {
                    // Aligned to the tick that holds `m` (also after a capped silence).
                    self.tick_start = m - m % Self::TICK_MS;
                }
                // The milliseconds in between had no opportunity (the router would have been asked).
                for j in (last + 1).max(m.saturating_sub(w))..m {
                    self.ring[(j % w) as usize] = 0.0;
                }
                if ticked {
                    self.mu_f = Some(self.rate_ahead());
                }
            }
            Some(_) => {}
        }
        let slot = (m % w) as usize;
        self.ring[slot] = 0.0;
        let others: f64 = self.ring.iter().sum();
        self.ring[slot] = (mu * self.window_s - others).max(0.0);
        self.last_ms = Some(m);
    }

    /// The `quantile` of the rate `ahead` ticks after the last complete tick, bytes/s.
    fn rate_ahead(&self) -> f64 {
        let mut f = self.fc.clone();
        for _ in 0..self.ahead {
            f.evolve();
        }
        // The first bin where the cumulative probability reaches the quantile (the top bin if
        // rounding keeps it just below).
        let (mut cum, mut at) = (0.0, 0.0);
        for (rate, p) in f.posterior() {
            at = rate;
            cum += p;
            if cum >= self.quantile {
                break;
            }
        }
        at * f64::from(crate::link::OPPORTUNITY_BYTES)
    }

    /// The forecast (bytes/s), or `None` before the first complete tick.
    pub fn forecast(&self) -> Option<f64> {
        self.mu_f
    }
}

/// Time constants (ms) of the learned forecaster's exponentially weighted means of μ; the last
/// one, m_L, normalises. Provenance: `scripts/predict_abc_fit.py` (`TAUS_MS`).
pub const LEARNED_TAUS_MS: [f64; 4] = [10.0, 40.0, 160.0, 1000.0];

/// Weights of the learned forecaster, `μ(t + 100 ms) ≈ m_L·(w₀ + w₁·μ/m_L + w₂·m₁₀/m_L +
/// w₃·m₄₀/m_L + w₄·m₁₆₀/m_L + w₅·min(gap, 100 ms)/100 ms)`. Provenance: a ridge fit (λ = 10⁻³,
/// each trace weighted equally) of PK-ABC's μ one RTT ahead on the six robustness traces
/// (TMobile-LTE-short.up/.down, ATT-LTE-driving.up/.down, TMobile-UMTS-driving.down,
/// Verizon-EVDO-driving.down; first 600 s each), none of them the ABC paper's; regenerate with
/// `scripts/predict_abc_fit.py`.
pub const LEARNED_WEIGHTS: [f64; 6] = [0.318368, 0.113912, -0.209925, 0.352319, 0.399486, -0.646176];

/// State of the learned forecaster: exponentially weighted means of the μ samples, one sample per
/// millisecond with a delivery opportunity (the router is asked for a packet at every
/// opportunity, also with an empty queue). A later call in the same millisecond replaces that
/// millisecond's sample (μ then counts more of the millisecond's opportunities), as the offline fit
/// sees each millisecond once, complete.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Learned {
    /// Means after the last sample.
    means: [f64; 4],
    /// Means before the last sample (to replace it).
    before: [f64; 4],
    /// Millisecond of the last sample and the gap (ms) to the one before it.
    last_ms: Option<u64>,
    gap_ms: f64,
    /// μ of the last sample.
    mu: f64,
}

impl Learned {
    /// Record μ (bytes/s) sampled at `now`.
    pub fn observe(&mut self, now: Time, mu: f64) {
        let ms = now.0 / 1_000_000;
        match self.last_ms {
            None => {
                self.means = [mu; 4];
                self.before = self.means;
                self.gap_ms = 0.0;
            }
            Some(last) => {
                if ms != last {
                    self.before = self.means;
                    self.gap_ms = (ms - last) as f64;
                }
                if self.gap_ms == 0.0 {
                    // Still the first millisecond: the sample is the mean.
                    self.means = [mu; 4];
                    self.before = self.means;
                } else {
                    for (k, tau) in LEARNED_TAUS_MS.iter().enumerate() {
                        let a = 1.0 - (-self.gap_ms / tau).exp();
                        self.means[k] = self.before[k] + a * (mu - self.before[k]);
                    }
                }
            }
        }
        self.last_ms = Some(ms);
        self.mu = mu;
    }

    /// The forecast of μ one RTT ahead (bytes/s, ≥ 0); μ itself while m_L = 0.
    pub fn forecast(&self) -> f64 {
        let ml = self.means[3];
        if ml <= 0.0 {
            return self.mu;
        }
        let w = LEARNED_WEIGHTS;
        let r = w[0]
            + w[1] * self.mu / ml
            + w[2] * self.means[0] / ml
            + w[3] * self.means[1] / ml
            + w[4] * self.means[2] / ml
            + w[5] * self.gap_ms.min(100.0) / 100.0;
        (ml * r).max(0.0)
    }
}

/// The artifact experiments' buffer, packets (`exp.sh`: 250); also the ABC paper's cellular setup.
pub const BUFFER_PACKETS: u64 = 250;

/// The ABC router's parameters (keys `abc.<key>` on the command line, fields of an `abc` queue).
pub const PARAMS: &[Param] = &[
    Param::real("eta", 0.98, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("η, target utilisation", "ABC paper §7.2; artifact literal 0.98"),
    Param::real("delta_ms", 133.0, Unit::Ms, 1e-3, 1e7)
        .doc("δ, time to drain the excess queue", "ABC paper §7.2 (and §3.1.4: for a 100 ms RTT); artifact exp.sh"),
    Param::real("dt_ms", 50.0, Unit::Ms, 0.0, 1e7)
        .doc("d_t, queueing-delay threshold", "artifact exp.sh qdelay_ref = 50")
        .aliases(&["qdelay_ref"]),
    Param::real("window_ms", 20.0, Unit::Ms, 1e-3, 1e7).doc("T, window for measuring μ and cr", "artifact: 20 ms"),
    Param::real("token_limit", 5.0, Unit::None, 1.0, 1e6).doc("token bucket limit (Algorithm 1)", "artifact: 5"),
    Param::choice("rate_source", "dequeue", &["dequeue", "enqueue"])
        .doc("rate Eq. 2 divides by: dequeue (the design) or enqueue (Fig. 2 ablation)", "ABC paper §3.1.2, Fig. 2"),
    Param::choice("delay_source", "qlen", &["qlen", "sojourn"])
        .doc("queueing delay x from queue length / μ (artifact) or the packet's sojourn", "artifact; ABC paper §3.1.2"),
    super::packets_param(BUFFER_PACKETS),
    super::BYTES_PARAM,
];

/// The ABC router (Mahimahi's `cellular` queue in the artifact).
pub const ABC: QueueKind = QueueKind {
    name: "abc",
    display: "ABC router",
    summary: "drop-tail plus accelerate/brake marking on dequeue (Eq. 1-2, Algorithm 1)",
    source: "ABC paper (NSDI 2020) §3.1; artifact's Mahimahi cellular queue",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &["cellular"],
    build: |v, _rng| Box::new(AbcQueue::new(AbcRouterConfig::from_values(v))),
    warnings: Some(warnings),
};

/// PK-ABC's router parameters: ABC's plus the lookahead.
pub const PK_PARAMS: &[Param] = &[
    PARAMS[0],
    PARAMS[1],
    PARAMS[2],
    PARAMS[3],
    PARAMS[4],
    PARAMS[5],
    PARAMS[6],
    Param::real("lookahead_ms", 100.0, Unit::Ms, 0.0, 1e7).doc(
        "how far ahead μ is read from the link schedule (one RTT)",
        "ABC paper §7.6: \"the expected link rate 1 RTT in the future\"; 100 ms = the setup's min RTT",
    ),
    Param::real("knowledge", 1.0, Unit::None, 0.0, 1.0).doc(
        "fraction of the change of μ over the lookahead the router knows: μ_now + k·(μ_ahead − μ_now); 1 = PK-ABC, 0 = ABC's μ",
        "ours: a partial oracle whose error is (1 − k) times that of μ measured now, to measure how good a forecast must be",
    ),
    PARAMS[7],
    PARAMS[8],
];

/// PK-ABC (ABC paper §7.6): the ABC router with perfect knowledge of the link one RTT ahead.
pub const PK_ABC: QueueKind = QueueKind {
    name: "pk-abc",
    display: "PK-ABC router",
    summary: "ABC router whose μ is the trace's capacity one RTT in the future (perfect knowledge)",
    source: "ABC paper (NSDI 2020) §7.6; not in the artifact",
    params: PK_PARAMS,
    aliases: &["pkabc"],
    build: |v, _rng| Box::new(AbcQueue::new(AbcRouterConfig::from_values(v))),
    ..ABC
};

/// Predictive ABC's router parameters: ABC's plus the forecast's.
pub const PREDICT_PARAMS: &[Param] = &[
    PARAMS[0],
    PARAMS[1],
    PARAMS[2],
    PARAMS[3],
    PARAMS[4],
    PARAMS[5],
    PARAMS[6],
    Param::real("horizon_ms", 100.0, Unit::Ms, 0.0, 1e7)
        .doc("how far ahead μ is forecast (one RTT)", "as PK-ABC (ABC paper §7.6); the setup's min RTT"),
    Param::real("history_ms", 200.0, Unit::Ms, 1.0, 1e7)
        .doc("history the μ trend is fitted over", "our choice, picked after runs on all five bundled paper traces (none held out)"),
    Param::flag("falls_only", true).doc("only anticipate drops of μ, never rises", "our choice"),
    Param::choice("model", "trend", &["trend", "learned", "sprout"]).doc(
        "forecaster: least-squares trend over history, linear model fitted on the robustness traces, or Sprout's stochastic model (gain and falls_only apply to all)",
        "ours; learned weights from scripts/predict_abc_fit.py (robustness traces only, none of the ABC paper's)",
    ),
    Param::real("gain", 0.25, Unit::None, 0.0, 1.0)
        .doc("weight of the forecast against μ measured now", "our choice, picked after runs on all five bundled paper traces (none held out)"),
    Param::real("quantile", 50.0, Unit::Percent, 0.1, 99.9).doc(
        "model = sprout: percentile of the forecast rate distribution",
        "ours (Sprout paper §3.3 uses the 5th percentile of cumulative deliveries)",
    ),
    Param::choice("apply", "both", &["both", "delay", "target"]).doc(
        "where the forecast replaces μ in Eq. 1: everywhere (as PK-ABC), only in x = Q/μ, or only in the target rate",
        "ours",
    ),
    PARAMS[7],
    PARAMS[8],
];

/// Predictive ABC (beyond the paper): forecasts μ one RTT ahead from its own measurements.
pub const ABC_PREDICT: QueueKind = QueueKind {
    name: "abc-predict",
    display: "predictive ABC router",
    summary: "ABC router whose μ is an online trend forecast one RTT ahead (no trace knowledge)",
    source: "ours (an honest online predictor towards PK-ABC, ABC paper §7.6)",
    params: PREDICT_PARAMS,
    aliases: &[],
    build: |v, _rng| Box::new(AbcQueue::new(AbcRouterConfig::from_values(v))),
    ..ABC
};

/// Where the buffer bound comes from.
pub const BUFFER_SOURCE: &str = "ABC paper (Goyal et al., NSDI 2020) §3.1.2, Eq. (1): the target rate drains \
     only the queueing delay above d_t, so the buffer must hold d_t·μ for the router to brake before it drops";

/// Where the δ bound comes from.
pub const DELTA_SOURCE: &str = "ABC paper (Goyal et al., NSDI 2020) §3.1.4, Theorem 1 (Eq. 4): ABC is globally \
     asymptotically stable if δ > 2/3·τ, τ the largest round-trip propagation delay of the ABC flows (Appendix C)";

/// The ABC router's operating range, checked when ABC flows cross it:
/// * a buffer smaller than `d_t·μ` (μ the link's mean capacity) overflows before the queueing delay
///   reaches d_t, where Eq. 1 starts braking: the window runs away (measured: about 2 drops per
///   delivered packet with 20 packets on the 5.96 Mbit/s Verizon uplink, d_t·μ = 24.8 packets);
/// * δ ≤ ⅔·τ, outside Theorem 1's stability criterion (τ: the largest propagation RTT of the ABC
///   flows crossing the hop).
fn warnings(cx: &crate::warning::QueueContext<'_>) -> Vec<crate::warning::Warning> {
    use crate::warning::{num, Warning};
    let Some(worst) = cx.flows.iter().filter(|f| f.abc).reduce(|a, b| if b.prop_rtt > a.prop_rtt { b } else { a })
    else {
        return Vec::new();
    };
    let v = cx.values;
    let mut out = Vec::new();
    let dt_ms = v.real("dt_ms");
    let need_wire = dt_ms / 1e3 * cx.link_rate;
    let mbps = num(cx.link_rate * 8.0 / 1e6, 3);
    let buffer = match super::limit_of(v) {
        Limit::Packets(p) => Some(("packets", "packets", p as f64, need_wire / cx.wire_bytes_per_packet)),
        Limit::Bytes(b) => Some((
            "bytes",
            "bytes",
            b as f64,
            need_wire * f64::from(crate::packet::MTU) / cx.wire_bytes_per_packet,
        )),
        Limit::Infinite => None,
    };
    if let Some((name, unit, value, bound)) = buffer {
        if value < bound {
            out.push(Warning {
                code: "abc-buffer-below-dt-mu",
                subject: cx.subject(),
                parameter: cx.key(name),
                value,
                bound,
                unit,
                source: BUFFER_SOURCE,
                message: format!(
                    "ABC router buffer {} {unit} is smaller than d_t·μ = {} ms × {mbps} Mbit/s = {} {unit}: \
                     the queue overflows before ABC brakes and the window runs away (measured: ~2 drops per \
                     delivered packet)",
                    num(value, 0),
                    num(dt_ms, 3),
                    num(bound, 1)
                ),
            });
        }
    }
    let delta = v.real("delta_ms");
    let tau = worst.prop_rtt.millis_f64();
    // δ ≤ ⅔·τ, compared as 3δ ≤ 2τ so that the bound itself is exact.
    if 3.0 * delta <= 2.0 * tau {
        out.push(Warning {
            code: "abc-delta-below-stability-bound",
            subject: cx.subject(),
            parameter: cx.key("delta_ms"),
            value: delta,
            bound: 2.0 * tau / 3.0,
            unit: "ms",
            source: DELTA_SOURCE,
            message: format!(
                "ABC router δ = {} ms is not above 2/3 of the largest propagation RTT of its ABC flows \
                 (flows[{}]: {} ms, bound {} ms): outside the paper's stability criterion, expect oscillations \
                 and under-utilisation",
                num(delta, 3),
                worst.index,
                num(tau, 3),
                num(2.0 * tau / 3.0, 2)
            ),
        });
    }
    out
}

crate::default_from_table!(AbcRouterConfig);

impl Config for AbcRouterConfig {
    const PREFIX: &'static str = "abc";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> AbcRouterConfig {
        AbcRouterConfig {
            eta: v.real("eta"),
            delta: v.ms("delta_ms"),
            dt: v.ms("dt_ms"),
            window: v.ms("window_ms"),
            token_limit: v.real("token_limit"),
            rate_source: match v.word("rate_source") {
                "enqueue" => RateSource::Enqueue,
                _ => RateSource::Dequeue,
            },
            delay_source: match v.word("delay_source") {
                "sojourn" => DelaySource::Sojourn,
                _ => DelaySource::QueueLength,
            },
            limit: super::limit_of(v),
            lookahead: v.table().iter().any(|p| p.name == "lookahead_ms").then(|| v.ms("lookahead_ms")),
            knowledge: if v.table().iter().any(|p| p.name == "knowledge") {
                v.real("knowledge")
            } else {
                1.0
            },
            forecast: v.table().iter().any(|p| p.name == "horizon_ms").then(|| Forecast {
                horizon: v.ms("horizon_ms"),
                history: v.ms("history_ms"),
                falls_only: v.flag("falls_only"),
                gain: v.real("gain"),
                model: match v.word("model") {
                    "learned" => ForecastModel::Learned,
                    "sprout" => ForecastModel::Sprout,
                    _ => ForecastModel::Trend,
                },
                quantile: v.real("quantile") / 100.0,
                apply: match v.word("apply") {
                    "delay" => Apply::Delay,
                    "target" => Apply::Target,
                    _ => Apply::Both,
                },
            }),
        }
    }
}

impl AbcRouterConfig {
    /// Check ranges; errors name the key under `prefix` (e.g. `hops[0].queue`).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let bad = |k: &str, msg: &str| {
            Err(Error::Param {
                key: format!("{prefix}.{k}"),
                msg: msg.into(),
            })
        };
        if !(self.eta.is_finite() && self.eta > 0.0 && self.eta <= 1.0) {
            return bad("eta", "expected a number in (0, 1]");
        }
        if self.delta.0 == 0 {
            return bad("delta", "expected a positive time (ms)");
        }
        if self.window.0 == 0 {
            return bad("window", "expected a positive time (ms)");
        }
        if !(self.token_limit.is_finite() && self.token_limit >= 1.0) {
            return bad("token_limit", "expected a number ≥ 1");
        }

        Ok(())
    }
}

/// Values of the last computation, for time series and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AbcState {
    /// μ, bytes/s.
    pub mu: f64,
    /// cr (or the enqueue rate), bytes/s.
    pub cr: f64,
    /// x, seconds.
    pub x: f64,
    /// Target rate, bytes/s.
    pub tr: f64,
    /// Accelerate fraction.
    pub f: f64,
    /// Tokens after marking.
    pub tokens: f64,
}

/// A sliding-window byte counter over `(now - window, now]`.
#[derive(Clone, Debug, Default)]
struct RateWindow {
    samples: VecDeque<(Time, u32)>,
    bytes: u64,
}

impl RateWindow {
    fn add(&mut self, now: Time, bytes: u32) {
        self.samples.push_back((now, bytes));
        self.bytes += bytes as u64;
    }
    fn rate(&mut self, now: Time, window: Dur) -> f64 {
        let horizon = now - window;
        while let Some(&(t, b)) = self.samples.front() {
            if t > horizon || now.0 < window.0 {
                break;
            }
            self.samples.pop_front();
            self.bytes -= b as u64;
        }
        self.bytes as f64 / window.secs_f64()
    }
}

/// The ABC router queue.
#[derive(Clone, Debug)]
pub struct AbcQueue {
    fifo: Fifo,
    cfg: AbcRouterConfig,
    tokens: f64,
    rate: RateWindow,
    state: AbcState,
    /// Predictive ABC: recent (time, μ) samples, at most one per ms.
    mu_hist: VecDeque<(Time, f64)>,
    /// Predictive ABC, learned model.
    learned: Learned,
    /// Predictive ABC, Sprout model (built only for it: it holds the model's tables).
    stochastic: Option<Box<Stochastic>>,
    /// PK-ABC with `knowledge` < 1: μ over ABC's window ending now (bytes/s), from
    /// [`Queue::observe_link`] (never set otherwise).
    mu_now: Option<f64>,
}

impl AbcQueue {
    /// A new ABC queue.
    pub fn new(cfg: AbcRouterConfig) -> AbcQueue {
        AbcQueue {
            fifo: Fifo::new(cfg.limit),
            cfg,
            tokens: 0.0,
            rate: RateWindow::default(),
            state: AbcState::default(),
            mu_hist: VecDeque::new(),
            learned: Learned::default(),
            stochastic: match cfg.forecast {
                Some(f) if f.model == ForecastModel::Sprout => {
                    Some(Box::new(Stochastic::new(cfg.window, f.horizon, f.quantile)))
                }
                _ => None,
            },
            mu_now: None,
        }
    }

    /// PK-ABC knowing only part of the future (`knowledge` < 1): it needs μ measured now too.
    fn partial_oracle(&self) -> bool {
        self.cfg.lookahead.is_some() && self.cfg.knowledge < 1.0
    }

    /// Values of the last computation.
    pub fn state(&self) -> AbcState {
        self.state
    }

    /// Predictive ABC: record μ measured now and return its forecast `f.horizon` ahead.
    pub fn forecast(&mut self, now: Time, mu: f64, f: Forecast) -> f64 {
        if self.mu_hist.back().is_none_or(|&(t, _)| now >= t + Dur::from_millis(1)) {
            self.mu_hist.push_back((now, mu));
        }
        let from = now - f.history;
        while self.mu_hist.front().is_some_and(|&(t, _)| t < from) {
            self.mu_hist.pop_front();
        }
        let n = self.mu_hist.len() as f64;
        if n < 3.0 {
            return mu;
        }
        // Least squares, times relative to now (s).
        let (mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0);
        for &(t, m) in &self.mu_hist {
            let x = -(now - t).secs_f64();
            sx += x;
            sy += m;
            sxx += x * x;
            sxy += x * m;
        }
        let den = n * sxx - sx * sx;
        if den <= 0.0 {
            return mu;
        }
        let slope = (n * sxy - sx * sy) / den;
        let icpt = (sy - slope * sx) / n;
        Self::damp(mu, icpt + slope * f.horizon.secs_f64(), f)
    }

    /// A raw forecast `raw` of μ made usable: `μ + gain·(raw − μ)`, clamped to `[0, μ]` with
    /// `falls_only`, else to `[0, 2μ]`.
    pub fn damp(mu: f64, raw: f64, f: Forecast) -> f64 {
        let ahead = mu + f.gain * (raw - mu);
        let hi = if f.falls_only { mu } else { 2.0 * mu };
        ahead.clamp(0.0, hi)
    }

    /// Eq. 1: target rate (bytes/s) for capacity `mu` (bytes/s) and queueing delay `x`.
    pub fn target_rate(&self, mu: f64, x: f64) -> f64 {
        let excess = (x - self.cfg.dt.secs_f64()).max(0.0);
        self.cfg.eta * mu - mu / self.cfg.delta.secs_f64() * excess
    }

    /// Eq. 2: accelerate fraction for target rate `tr` and measured rate `cr` (bytes/s).
    pub fn accel_fraction(tr: f64, cr: f64) -> f64 {
        if cr <= 0.0 {
            return if tr > 0.0 { 1.0 } else { 0.0 };
        }
        (tr / (2.0 * cr)).clamp(0.0, 1.0)
    }
}

impl Queue for AbcQueue {
    fn name(&self) -> &'static str {
        if self.cfg.lookahead.is_some() {
            "pk-abc"
        } else if self.cfg.forecast.is_some() {
            "abc-predict"
        } else {
            "abc"
        }
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) -> std::result::Result<(), Packet> {
        let ect = pkt.ecn.is_ect();
        let size = pkt.size;
        self.fifo.push(now, pkt)?;
        if ect && self.cfg.rate_source == RateSource::Enqueue {
            self.rate.add(now, size);
        }
        Ok(())
    }

    fn dequeue(&mut self, now: Time, link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        let learned = matches!(self.cfg.forecast, Some(Forecast { model: ForecastModel::Learned, .. }));
        if learned {
            // Every opportunity, also with an empty queue: the model was fitted on all of them.
            self.learned.observe(now, link.capacity);
        }
        if let Some(s) = self.stochastic.as_mut() {
            s.observe(now, link.capacity);
        }
        let mut pkt = self.fifo.pop()?;
        if !pkt.ecn.is_ect() {
            return Some(pkt);
        }
        let wire = pkt.size + link.overhead;
        if self.cfg.rate_source == RateSource::Dequeue {
            self.rate.add(now, wire);
        }
        let cr = self.rate.rate(now, self.cfg.window);
        let mu = match self.cfg.forecast {
            Some(f) if learned => Self::damp(link.capacity, self.learned.forecast(), f),
            Some(f) if self.stochastic.is_some() => {
                let raw = self.stochastic.as_ref().and_then(|s| s.forecast()).unwrap_or(link.capacity);
                Self::damp(link.capacity, raw, f)
            }
            Some(f) => self.forecast(now, link.capacity, f),
            // PK-ABC's partial oracle: ABC's μ plus the known part of the change one lookahead on.
            None => match self.mu_now {
                Some(now) => now + self.cfg.knowledge * (link.capacity - now),
                None => link.capacity,
            },
        };
        // Where the forecast enters (predictive ABC's `apply`): the delay estimate x, the target
        // rate's μ, or both (ABC and PK-ABC: the one μ in both).
        let (mu, mu_t) = match self.cfg.forecast.map(|f| f.apply) {
            Some(Apply::Delay) => (mu, link.capacity),
            Some(Apply::Target) => (link.capacity, mu),
            _ => (mu, mu),
        };
        let x = match self.cfg.delay_source {
            DelaySource::QueueLength => {
                let queued = self.fifo.bytes() + self.fifo.len() as u64 * link.overhead as u64 + wire as u64;
                if mu > 0.0 {
                    queued as f64 / mu
                } else {
                    f64::INFINITY
                }
            }
            DelaySource::Sojourn => (now - pkt.enqueued_at).secs_f64(),
        };
        let tr = if mu_t > 0.0 { self.target_rate(mu_t, x) } else { 0.0 };
        let f = Self::accel_fraction(tr, cr);
        // Algorithm 1.
        self.tokens = (self.tokens + f).min(self.cfg.token_limit);
        if pkt.ecn == Ecn::ACCELERATE {
            if self.tokens > 1.0 {
                self.tokens -= 1.0;
            } else {
                pkt.ecn = Ecn::BRAKE;
                self.fifo.stats.marked += 1;
            }
        }
        self.state = AbcState {
            mu: mu_t,
            cr,
            x,
            tr,
            f,
            tokens: self.tokens,
        };
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
    fn capacity_window(&self) -> Option<Dur> {
        Some(self.cfg.window)
    }
    fn capacity_lookahead(&self) -> Option<Dur> {
        self.cfg.lookahead
    }
    fn observes_link(&self) -> bool {
        self.partial_oracle()
    }
    fn observe_link(&mut self, now: Time, link: &dyn LinkSchedule) {
        // μ as ABC measures it now (the engine's `capacity_rate` over the same window).
        let w = self.cfg.window.max(Dur(1));
        self.mu_now = Some(link.capacity_recent(now, w) / w.secs_f64());
    }
    fn gauge(&self) -> Option<f64> {
        Some(self.state.f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;

    fn accel(seq: u32) -> Packet {
        Packet::data(0, seq, MTU, Ecn::ACCELERATE, Time::ZERO)
    }

    fn link(mbps: f64) -> LinkInfo {
        LinkInfo {
            capacity: mbps * 1e6 / 8.0,
            overhead: 0,
        }
    }

    #[test]
    fn the_forecast_extrapolates_a_falling_line_and_never_a_rise() {
        let f = Forecast {
            horizon: Dur::from_millis(100),
            history: Dur::from_millis(200),
            falls_only: true,
            gain: 1.0,
            model: ForecastModel::Trend,
            quantile: 0.5,
            apply: Apply::Both,
        };
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        // μ falls by 1 MB/s per second: at t = 100 ms μ = 1.4 MB/s, in 100 ms it will be 1.3.
        let mut last = 0.0;
        for ms in 0..=100 {
            last = q.forecast(Time::from_millis(ms), 1.5e6 - 1e3 * ms as f64, f);
        }
        assert!((last - 1.3e6).abs() < 1.0, "{last}");
        // A rising μ is never anticipated with falls_only; half the gain, half the anticipation.
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        for ms in 0..=100 {
            last = q.forecast(Time::from_millis(ms), 1.0e6 + 1e3 * ms as f64, f);
        }
        assert!((last - 1.1e6).abs() < 1.0, "{last}");
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        for ms in 0..=100 {
            last = q.forecast(Time::from_millis(ms), 1.5e6 - 1e3 * ms as f64, Forecast { gain: 0.5, ..f });
        }
        assert!((last - 1.35e6).abs() < 1.0, "{last}");
    }

    #[test]
    fn the_learned_forecast_is_the_fitted_linear_model() {
        let w = LEARNED_WEIGHTS;
        let mut l = Learned::default();
        // Nothing seen yet: no forecast but μ (0).
        assert_eq!(l.forecast(), 0.0);
        // First sample: every mean is that μ, no gap.
        l.observe(Time::from_millis(5), 1000.0);
        assert_eq!(l.means, [1000.0; 4]);
        let at_rest = 1000.0 * (w[0] + w[1] + w[2] + w[3] + w[4]);
        assert!((l.forecast() - at_rest).abs() < 1e-9, "{}", l.forecast());
        // A later call in the same millisecond replaces the sample.
        l.observe(Time::from_millis(5) + Dur(300_000), 2000.0);
        assert_eq!(l.means, [2000.0; 4]);
        // Constant μ, 10 ms after the last opportunity: the means stay, the gap term enters.
        l.observe(Time::from_millis(15), 2000.0);
        assert_eq!((l.means, l.gap_ms), ([2000.0; 4], 10.0));
        let f = 2000.0 * (w[0] + w[1] + w[2] + w[3] + w[4] + w[5] * 0.1);
        assert!((l.forecast() - f).abs() < 1e-9, "{} vs {f}", l.forecast());
        // By hand with the shipped weights: 0.318368 + 0.113912 − 0.209925 + 0.352319 + 0.399486
        // − 0.646176·0.1 = 0.9095424.
        assert!((l.forecast() - 1819.0848).abs() < 1e-6, "{}", l.forecast());
        // A new μ one ms later: m_k ← m_k + (1 − e^(−1/τ_k))·(μ − m_k); replacing it (second call in
        // the same ms) starts again from the means before it, with the same gap.
        l.observe(Time::from_millis(16), 0.0);
        l.observe(Time::from_millis(16) + Dur(1), 4000.0);
        let m: Vec<f64> = LEARNED_TAUS_MS.iter().map(|tau| 2000.0 + (1.0 - (-1.0 / tau).exp()) * 2000.0).collect();
        assert_eq!(l.means.to_vec(), m);
        assert_eq!(l.gap_ms, 1.0);
        let r = w[0] + w[1] * 4000.0 / m[3] + w[2] * m[0] / m[3] + w[3] * m[1] / m[3] + w[4] * m[2] / m[3] + w[5] * 0.01;
        assert!((l.forecast() - m[3] * r).abs() < 1e-9);
        // Hand-worked: τ = 10 ms, 1 ms: 1 − e^(−0.1) = 0.0951626; m₁₀ = 2190.325.
        assert!((l.means[0] - 2190.3252).abs() < 1e-3, "{}", l.means[0]);
        // The gap term saturates at 100 ms; an outage never forecasts below 0.
        l.observe(Time::from_millis(10_000), 0.0);
        assert_eq!(l.gap_ms, 9984.0);
        assert!(l.forecast() >= 0.0);
        let mut long = Learned::default();
        long.observe(Time::ZERO, 1000.0);
        long.observe(Time::from_millis(500), 1000.0);
        let f = 1000.0 * (w[0] + w[1] + w[2] + w[3] + w[4] + w[5]);
        assert!((long.forecast() - f.max(0.0)).abs() < 1e-9);
    }

    #[test]
    fn the_learned_router_samples_mu_at_every_opportunity() {
        // With an empty queue the router still records μ (the model was fitted on every
        // opportunity); the trend model does not.
        let mut cfg = AbcRouterConfig::default();
        let f = Forecast {
            horizon: Dur::from_millis(100),
            history: Dur::from_millis(200),
            falls_only: true,
            gain: 0.25,
            model: ForecastModel::Learned,
            quantile: 0.5,
            apply: Apply::Both,
        };
        cfg.forecast = Some(f);
        let mut q = AbcQueue::new(cfg);
        let mut d = Vec::new();
        assert!(q.dequeue(Time::from_millis(3), link(12.0), &mut d).is_none());
        assert_eq!(q.learned.means, [1.5e6; 4]);
        q.enqueue(Time::from_millis(4), accel(0)).unwrap();
        q.dequeue(Time::from_millis(4), link(12.0), &mut d).unwrap();
        assert_eq!(q.learned.gap_ms, 1.0);
        assert_eq!(q.state().mu, AbcQueue::damp(1.5e6, q.learned.forecast(), f));
        cfg.forecast = Some(Forecast { model: ForecastModel::Trend, ..f });
        let mut q = AbcQueue::new(cfg);
        assert!(q.dequeue(Time::from_millis(3), link(12.0), &mut d).is_none());
        assert_eq!((q.learned, q.mu_hist.len()), (Learned::default(), 0));
    }

    #[test]
    fn a_long_silence_runs_at_most_sixty_seconds_of_ticks() {
        const B: f64 = 1504.0;
        let mut s = Stochastic::new(Dur::from_millis(20), Dur::from_millis(100), 0.05);
        s.observe(Time::from_millis(47), B / 0.02);
        // 100 s later: the ticks from 40 ms on are run, capped at 3000 (60 s), and the tick being
        // counted is the one that holds the new opportunity.
        s.observe(Time::from_millis(100_047), B / 0.02);
        assert_eq!(s.tick_start, 100_040);
        let capped = s.forecast().unwrap();
        let mut t = Stochastic::new(Dur::from_millis(20), Dur::from_millis(100), 0.05);
        t.observe(Time::from_millis(47), B / 0.02);
        t.observe(Time::from_millis(60_047), B / 0.02);
        assert_eq!(t.tick_start, 60_040);
        assert_eq!(t.forecast().unwrap(), capped, "3000 ticks either way");
        let mut u = Stochastic::new(Dur::from_millis(20), Dur::from_millis(100), 0.05);
        u.observe(Time::from_millis(47), B / 0.02);
        u.observe(Time::from_millis(30_047), B / 0.02);
        assert_eq!(u.tick_start, 30_040);
    }

    #[test]
    fn the_sprout_forecast_counts_opportunities_per_tick_from_mu() {
        use crate::cc::sprout::Forecaster;
        const B: f64 = 1504.0;
        let mut s = Stochastic::new(Dur::from_millis(20), Dur::from_millis(100), 0.05);
        assert_eq!((s.ring.len(), s.ahead), (20, 5));
        assert_eq!((sprout_model().max_rate, sprout_model().sigma), (2000.0, 200.0));
        // Ticks are the 20 ms multiples: a first opportunity at 47 ms is in the tick from 40 ms.
        let mut late = Stochastic::new(Dur::from_millis(20), Dur::from_millis(100), 0.05);
        late.observe(Time::from_millis(47), B / 0.02);
        assert_eq!(late.tick_start, 40);
        late.observe(Time::from_millis(59), 2.0 * B / 0.02);
        assert!(late.forecast().is_none(), "tick 40–59 not complete yet");
        late.observe(Time::from_millis(60), 3.0 * B / 0.02);
        assert!(late.forecast().is_some());
        // Two opportunities in each ms 0..19, one in each ms 20..39: μ over (t − 20 ms, t].
        let per_ms = |ms: u64| if ms < 20 { 2.0 } else if ms < 40 { 1.0 } else { 0.0 };
        for ms in 0..40u64 {
            let lo = ms.saturating_sub(19);
            let bytes: f64 = (lo..=ms).map(|j| per_ms(j) * B).sum();
            // A first call sees one opportunity of the ms, the last one all of them.
            s.observe(Time::from_millis(ms), (bytes - per_ms(ms) * B + B) / 0.02);
            s.observe(Time::from_millis(ms), bytes / 0.02);
            assert_eq!(s.ring[(ms % 20) as usize], per_ms(ms) * B, "ms {ms}");
            // The first tick completes when a later tick's ms is seen.
            assert_eq!(s.forecast().is_some(), ms >= 20);
        }
        // Then nothing until 100 ms (an outage): ticks 40–59 and 60–79 saw no opportunity.
        s.observe(Time::from_millis(100), B / 0.02);
        let mut f = Forecaster::new(sprout_model());
        for count in [40, 20, 0, 0, 0] {
            f.evolve();
            f.observe(count);
        }
        for _ in 0..5 {
            f.evolve();
        }
        // The 5th percentile of the rate 5 ticks on, read off the posterior by hand.
        let mut cum = 0.0;
        let rate = f
            .posterior()
            .into_iter()
            .find(|&(_, p)| {
                cum += p;
                cum >= 0.05
            })
            .unwrap()
            .0;
        assert_eq!(s.forecast(), Some(rate * B));
        assert_eq!(s.ring.iter().sum::<f64>(), B, "only ms 100 is left in the window");
        // After 60 ms without opportunities the forecast is well below the last busy tick's
        // 1000 opportunities/s.
        assert!(rate < 500.0, "{rate}");
    }

    #[test]
    fn damp_blends_and_clamps_the_raw_forecast() {
        let f = |gain, falls_only| Forecast {
            horizon: Dur::from_millis(100),
            history: Dur::from_millis(200),
            falls_only,
            gain,
            model: ForecastModel::Trend,
            quantile: 0.5,
            apply: Apply::Both,
        };
        assert_eq!(AbcQueue::damp(1000.0, 1500.0, f(0.5, false)), 1250.0);
        assert_eq!(AbcQueue::damp(1000.0, 600.0, f(0.25, false)), 900.0);
        assert_eq!(AbcQueue::damp(1000.0, 5000.0, f(1.0, false)), 2000.0, "at most 2μ");
        assert_eq!(AbcQueue::damp(1000.0, 1500.0, f(1.0, true)), 1000.0, "falls only: at most μ");
        assert_eq!(AbcQueue::damp(1000.0, 600.0, f(0.5, true)), 800.0);
        assert_eq!(AbcQueue::damp(1000.0, -500.0, f(1.0, true)), 0.0);
    }

    #[test]
    fn each_model_and_apply_reaches_eq1() {
        let given = |pairs: &[(&str, &str)]| {
            let g: crate::params::Given =
                pairs.iter().map(|(k, v)| (k.to_string(), crate::params::Value::Word(v.to_string()))).collect();
            AbcRouterConfig::from_values(&ABC_PREDICT.values(&g, "q").unwrap())
        };
        let d = given(&[]).forecast.unwrap();
        assert_eq!((d.model, d.apply, d.quantile, d.gain, d.falls_only), (ForecastModel::Trend, Apply::Both, 0.5, 0.25, true));
        let c = given(&[("model", "learned"), ("apply", "delay")]);
        assert_eq!((c.forecast.unwrap().model, c.forecast.unwrap().apply), (ForecastModel::Learned, Apply::Delay));
        let c = given(&[("model", "sprout"), ("apply", "target")]);
        assert_eq!((c.forecast.unwrap().model, c.forecast.unwrap().apply), (ForecastModel::Sprout, Apply::Target));
        let g = crate::params::Given::from([("quantile".to_string(), 5.0.into())]);
        assert_eq!(AbcRouterConfig::from_values(&ABC_PREDICT.values(&g, "q").unwrap()).forecast.unwrap().quantile, 0.05);

        // At the last dequeue one packet stays behind the departing one (x counts both: 3000 bytes);
        // μ measured now 1.5 MB/s (12 Mbit/s).
        let cap = 1.5e6;
        let run = |model, apply, mus: &[f64]| {
            let f = Forecast {
                horizon: Dur::from_millis(100),
                history: Dur::from_millis(200),
                falls_only: false,
                gain: 1.0,
                model,
                quantile: 0.5,
                apply,
            };
            let mut q = router(|c| c.forecast = Some(f));
            let mut d = Vec::new();
            let n = mus.len() as u64;
            for (i, &m) in mus.iter().enumerate() {
                let t = Time::from_millis(10 * i as u64);
                q.enqueue(t, accel(2 * i as u32)).unwrap();
                if i as u64 + 1 == n {
                    q.enqueue(t, accel(2 * i as u32 + 1)).unwrap();
                }
                q.dequeue(t, link_bytes(m, 0), &mut d).unwrap();
            }
            q
        };
        // μ falling 0.1 MB/s every 10 ms: the trend forecasts 1.0 MB/s more in 100 ms.
        let falling = [cap + 0.3e6, cap + 0.2e6, cap + 0.1e6, cap];
        let q = run(ForecastModel::Trend, Apply::Both, &falling);
        let fc = cap - 1.0e6;
        let s = q.state();
        assert!((s.mu - fc).abs() < 1e-3, "{s:?}");
        assert!((s.x - 3000.0 / fc).abs() < 1e-9, "{s:?}");
        let q = run(ForecastModel::Trend, Apply::Delay, &falling);
        let s = q.state();
        assert!(s.mu == cap && (s.x - 3000.0 / fc).abs() < 1e-9, "x only: {s:?}");
        let q = run(ForecastModel::Trend, Apply::Target, &falling);
        let s = q.state();
        assert!((s.mu - fc).abs() < 1e-3 && s.x == 3000.0 / cap, "target only: {s:?}");
        assert_eq!(s.tr, q.target_rate(s.mu, s.x));
        // The learned model, from the same samples.
        let q = run(ForecastModel::Learned, Apply::Both, &falling);
        let mut l = Learned::default();
        for (i, &m) in falling.iter().enumerate() {
            l.observe(Time::from_millis(10 * i as u64), m);
        }
        assert_eq!(q.state().mu, l.forecast().clamp(0.0, 2.0 * cap));
        assert_ne!(q.state().mu, cap);
        // Sprout: no forecast before a tick is complete (μ itself), then the model's.
        let q = run(ForecastModel::Sprout, Apply::Both, &[cap; 2]);
        assert_eq!(q.state().mu, cap);
        let q = run(ForecastModel::Sprout, Apply::Both, &[cap; 4]);
        let raw = q.stochastic.as_ref().unwrap().forecast().unwrap();
        assert_eq!(q.state().mu, raw.clamp(0.0, 2.0 * cap));
        assert_ne!(raw, cap);
    }

    #[test]
    fn target_rate_follows_eq1() {
        let q = AbcQueue::new(AbcRouterConfig::default());
        let mu = 1.5e6; // 12 Mbit/s in bytes/s
        assert!((q.target_rate(mu, 0.010) - 0.98 * mu).abs() < 1e-6);
        // 50 ms over d_t drains at μ·(50/133).
        let tr = q.target_rate(mu, 0.100);
        assert!((tr - (0.98 * mu - mu * 0.050 / 0.133)).abs() < 1e-6);
        assert_eq!(AbcQueue::accel_fraction(1.0, 1.0), 0.5);
        assert_eq!(AbcQueue::accel_fraction(5.0, 1.0), 1.0);
        assert_eq!(AbcQueue::accel_fraction(-1.0, 1.0), 0.0);
    }

    #[test]
    fn token_bucket_marks_a_fraction_f_accelerate() {
        // Dequeue 1000 packets at exactly the link rate with an empty queue: cr ≈ μ, so
        // f = η/2 = 0.49 and about 49 % of the packets keep their accelerate mark.
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let mut accels = 0;
        let mut t = Time::from_millis(100);
        for i in 0..1000 {
            q.enqueue(t, accel(i)).unwrap();
            let p = q.dequeue(t, link(12.0), &mut d).unwrap();
            if p.ecn == Ecn::ACCELERATE {
                accels += 1;
            } else {
                assert_eq!(p.ecn, Ecn::BRAKE);
            }
            t += Dur::from_millis(1);
        }
        assert!((480..=500).contains(&accels), "accelerates: {accels}");
        assert!((q.state().f - 0.49).abs() < 0.02, "{:?}", q.state());
    }

    #[test]
    fn long_queue_brakes_everything_and_ce_is_untouched() {
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        // 250 packets at 12 Mbit/s = 250 ms of queue: tr < 0, f = 0.
        for i in 0..250 {
            q.enqueue(t, accel(i)).unwrap();
        }
        let mut ce = accel(999);
        ce.ecn = Ecn::Ce;
        assert!(q.enqueue(t, ce).is_err(), "buffer of 250 is full");
        // While more than d_t + 0.98·δ ≈ 180 ms (180 packets) stay queued, tr < 0 and f = 0.
        let mut brakes = 0;
        for _ in 0..60 {
            if q.dequeue(t, link(12.0), &mut d).unwrap().ecn == Ecn::BRAKE {
                brakes += 1;
            }
            assert_eq!(q.state().f, 0.0);
        }
        assert_eq!(brakes, 60);
        q.enqueue(t, ce).unwrap();
        while let Some(p) = q.dequeue(t, link(12.0), &mut d) {
            if p.seq == 999 {
                assert_eq!(p.ecn, Ecn::Ce);
            }
        }
    }

    #[test]
    fn tokens_never_exceed_the_limit_and_non_ect_passes_unmarked() {
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        let mut plain = accel(0);
        plain.ecn = Ecn::NotEct;
        q.enqueue(t, plain).unwrap();
        assert_eq!(q.dequeue(t, link(100.0), &mut d).unwrap().ecn, Ecn::NotEct);
        for i in 0..50 {
            q.enqueue(
                t,
                Packet {
                    ecn: Ecn::BRAKE,
                    ..accel(i)
                },
            )
            .unwrap();
            q.dequeue(t, link(1000.0), &mut d).unwrap();
            assert!(q.state().tokens <= 5.0);
        }
        assert_eq!(q.state().tokens, 5.0);
    }

    /// A router with `cfg`'s fields changed by `f`.
    fn router(f: impl FnOnce(&mut AbcRouterConfig)) -> AbcQueue {
        let mut cfg = AbcRouterConfig::default();
        f(&mut cfg);
        AbcQueue::new(cfg)
    }

    fn link_bytes(capacity: f64, overhead: u32) -> LinkInfo {
        LinkInfo { capacity, overhead }
    }

    #[test]
    fn eq2_without_a_measured_rate_accelerates_all_or_nothing() {
        // cr = 0 (an outage, or nothing enqueued lately with the enqueue-rate variant).
        assert_eq!(AbcQueue::accel_fraction(1.0, 0.0), 1.0);
        assert_eq!(AbcQueue::accel_fraction(1e-9, 0.0), 1.0);
        assert_eq!(AbcQueue::accel_fraction(0.0, 0.0), 0.0);
        assert_eq!(AbcQueue::accel_fraction(-1.0, 0.0), 0.0);
        assert_eq!(AbcQueue::accel_fraction(0.0, 1.0), 0.0);
        assert_eq!(AbcQueue::accel_fraction(3.0, 4.0), 0.375);
    }

    #[test]
    fn enqueue_rate_variant_counts_only_recent_ect_arrivals() {
        let mut q = router(|c| c.rate_source = RateSource::Enqueue);
        let mut d = Vec::new();
        // Enqueued at t = 0, dequeued 50 ms later: the 20 ms window no longer holds the arrival,
        // so cr = 0 and Eq. 2 gives f = 1 (tr > 0 with a short queue).
        q.enqueue(Time::ZERO, accel(0)).unwrap();
        let p = q.dequeue(Time::from_millis(50), link(12.0), &mut d).unwrap();
        let s = q.state();
        assert_eq!((s.cr, s.f, s.tokens), (0.0, 1.0, 1.0), "{s:?}");
        assert_eq!(p.ecn, Ecn::BRAKE, "one token is not more than one");
        // Two arrivals within the window (one not ECN-capable, not counted): cr = 1500 B / 20 ms,
        // counted at enqueue, not again at dequeue.
        let t = Time::from_millis(100);
        let mut plain = accel(1);
        plain.ecn = Ecn::NotEct;
        q.enqueue(t, plain).unwrap();
        q.enqueue(t, accel(2)).unwrap();
        assert_eq!(q.dequeue(t, link(12.0), &mut d).unwrap().ecn, Ecn::NotEct);
        q.dequeue(t, link(12.0), &mut d).unwrap();
        assert_eq!(q.state().cr, 1500.0 / 0.02);
    }

    #[test]
    fn link_overhead_counts_in_cr_and_in_x() {
        // Mahimahi trace links charge 4 bytes per packet: the departing packet counts 1504 bytes
        // in cr, and every queued packet 1504 bytes in x.
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        for i in 0..3 {
            q.enqueue(t, accel(i)).unwrap();
        }
        let mu = 1.5e6;
        q.dequeue(t, link_bytes(mu, 4), &mut d).unwrap();
        let s = q.state();
        assert_eq!(s.mu, mu);
        assert_eq!(s.cr, 1504.0 / 0.02);
        assert_eq!(s.x, (3.0 * 1504.0) / mu);
        assert_eq!(s.tr, 0.98 * mu);
        assert_eq!(s.f, (0.98 * mu / (2.0 * s.cr)).min(1.0));
        q.dequeue(t, link_bytes(mu, 4), &mut d).unwrap();
        let s = q.state();
        assert_eq!((s.cr, s.x), (2.0 * 1504.0 / 0.02, 2.0 * 1504.0 / mu));
    }

    #[test]
    fn rate_window_keeps_exactly_the_last_t() {
        // Window (now − T, now]: a departure exactly T ago no longer counts.
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let mut cr = Vec::new();
        for ms in [0, 10, 20, 30, 45, 65] {
            let t = Time::from_millis(ms);
            q.enqueue(t, accel(ms as u32)).unwrap();
            q.dequeue(t, link(12.0), &mut d).unwrap();
            cr.push(q.state().cr / (1500.0 / 0.02));
        }
        // At 20 ms (now = T) the departure at 0 has left; at 45 only 30 and 45 remain; at 65 only 65.
        assert_eq!(cr, vec![1.0, 2.0, 2.0, 2.0, 2.0, 1.0]);
        // Before a whole window has passed nothing is dropped from it.
        let mut q = AbcQueue::new(router(|c| c.window = Dur::from_millis(30)).cfg);
        for ms in [0, 10, 29] {
            let t = Time::from_millis(ms);
            q.enqueue(t, accel(0)).unwrap();
            q.dequeue(t, link(12.0), &mut d).unwrap();
        }
        assert_eq!(q.state().cr, 3.0 * 1500.0 / 0.03);
    }

    #[test]
    fn token_bucket_keeps_an_accelerate_only_above_one_token() {
        // Plenty of capacity: f = 1 on every dequeue. Algorithm 1: the first packet brings the
        // bucket to exactly 1 token, which is not more than 1, so it turns into a brake.
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        let mut marks = Vec::new();
        let mut tokens = Vec::new();
        for i in 0..4 {
            q.enqueue(t, accel(i)).unwrap();
            marks.push(q.dequeue(t, link(1000.0), &mut d).unwrap().ecn);
            tokens.push(q.state().tokens);
            assert_eq!(q.state().f, 1.0);
        }
        assert_eq!(
            marks,
            vec![Ecn::BRAKE, Ecn::ACCELERATE, Ecn::ACCELERATE, Ecn::ACCELERATE]
        );
        assert_eq!(tokens, vec![1.0, 1.0, 1.0, 1.0]);
        assert_eq!(q.stats().marked, 1, "one accelerate turned into a brake");
        // Brakes pass as brakes and collect tokens without being counted as marks.
        for i in 0..3 {
            q.enqueue(
                t,
                Packet {
                    ecn: Ecn::BRAKE,
                    ..accel(i)
                },
            )
            .unwrap();
            assert_eq!(q.dequeue(t, link(1000.0), &mut d).unwrap().ecn, Ecn::BRAKE);
        }
        assert_eq!((q.state().tokens, q.stats().marked), (4.0, 1));
        q.enqueue(t, accel(9)).unwrap();
        assert_eq!(q.dequeue(t, link(1000.0), &mut d).unwrap().ecn, Ecn::ACCELERATE);
        assert_eq!(q.state().tokens, 4.0, "min(4 + 1, 5) − 1");
    }

    #[test]
    fn marks_count_every_accelerate_turned_into_a_brake() {
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        // A 100-packet queue at 12 Mbit/s is 100 ms: x − d_t = 50 ms, tr = 0.98μ − μ·50/133 > 0.
        for i in 0..250 {
            q.enqueue(t, accel(i)).unwrap();
        }
        let mut brakes = 0;
        while let Some(p) = q.dequeue(t, link(12.0), &mut d) {
            if p.ecn == Ecn::BRAKE {
                brakes += 1;
            }
        }
        assert!(brakes > 0 && brakes < 250, "{brakes}");
        assert_eq!(q.stats().marked, brakes);
        assert_eq!(q.stats().dequeued, 250);
    }

    #[test]
    fn no_capacity_means_infinite_delay_and_no_accelerates() {
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        let mut d = Vec::new();
        let t = Time::from_millis(100);
        q.enqueue(t, accel(0)).unwrap();
        assert_eq!(q.dequeue(t, link(0.0), &mut d).unwrap().ecn, Ecn::BRAKE);
        let s = q.state();
        assert_eq!(
            (s.mu, s.x, s.tr, s.f, s.tokens),
            (0.0, f64::INFINITY, 0.0, 0.0, 0.0),
            "{s:?}"
        );
        assert_eq!(q.gauge(), Some(0.0), "the gauge is the last f");
    }

    #[test]
    fn sojourn_delay_source_uses_the_packets_wait() {
        let mut q = router(|c| c.delay_source = DelaySource::Sojourn);
        let mut d = Vec::new();
        q.enqueue(Time::from_millis(10), accel(0)).unwrap();
        q.enqueue(Time::from_millis(10), accel(1)).unwrap();
        q.dequeue(Time::from_millis(80), link(12.0), &mut d).unwrap();
        let s = q.state();
        assert_eq!(s.x, 0.07);
        // 70 ms waited: 20 ms over d_t.
        assert_eq!(s.tr, q.target_rate(1.5e6, 0.07));
        assert_eq!(s.tr, 0.98 * 1.5e6 - 1.5e6 / 0.133 * (0.07 - 0.05));
    }

    #[test]
    fn target_rate_is_eta_mu_up_to_dt_and_brakes_past_it() {
        let q = router(|c| {
            c.eta = 0.5;
            c.delta = Dur::from_millis(100);
            c.dt = Dur::from_millis(40);
        });
        assert_eq!(q.target_rate(1000.0, 0.0), 500.0);
        assert_eq!(q.target_rate(1000.0, 0.04), 500.0);
        // 60 ms above d_t drains μ·0.06/0.1 = 600.
        assert!((q.target_rate(1000.0, 0.1) - (500.0 - 600.0)).abs() < 1e-9);
    }

    #[test]
    fn config_from_values_and_validation() {
        let given = |k: &str, v: crate::params::Value| {
            let g = crate::params::Given::from([(k.to_string(), v)]);
            AbcRouterConfig::from_values(&ABC.values(&g, "q").unwrap())
        };
        use crate::params::Value::Word;
        assert_eq!(
            given("rate_source", Word("enqueue".into())).rate_source,
            RateSource::Enqueue
        );
        assert_eq!(
            given("rate_source", Word("dequeue".into())).rate_source,
            RateSource::Dequeue
        );
        assert_eq!(
            given("delay_source", Word("sojourn".into())).delay_source,
            DelaySource::Sojourn
        );
        assert_eq!(
            given("delay_source", Word("qlen".into())).delay_source,
            DelaySource::QueueLength
        );
        let d = AbcRouterConfig::default();
        assert_eq!(
            (d.eta, d.delta, d.dt, d.window, d.token_limit, d.limit),
            (
                0.98,
                Dur::from_millis(133),
                Dur::from_millis(50),
                Dur::from_millis(20),
                5.0,
                Limit::Packets(250)
            )
        );
        assert!(d.validate("q").is_ok());
        let key = |f: fn(&mut AbcRouterConfig)| {
            let mut c = AbcRouterConfig::default();
            f(&mut c);
            match c.validate("hops[0].queue") {
                Err(Error::Param { key, .. }) => key,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(key(|c| c.eta = 0.0), "hops[0].queue.eta");
        assert_eq!(key(|c| c.eta = -0.5), "hops[0].queue.eta");
        assert_eq!(key(|c| c.eta = 1.01), "hops[0].queue.eta");
        assert_eq!(key(|c| c.eta = f64::NAN), "hops[0].queue.eta");
        assert_eq!(key(|c| c.eta = f64::INFINITY), "hops[0].queue.eta");
        assert_eq!(key(|c| c.delta = Dur::ZERO), "hops[0].queue.delta");
        assert_eq!(key(|c| c.window = Dur::ZERO), "hops[0].queue.window");
        assert_eq!(key(|c| c.token_limit = f64::INFINITY), "hops[0].queue.token_limit");
        assert_eq!(key(|c| c.token_limit = 0.999), "hops[0].queue.token_limit");
        let mut edge = AbcRouterConfig {
            eta: 1.0,
            token_limit: 1.0,
            ..d
        };
        edge.delta = Dur(1);
        edge.window = Dur(1);
        assert!(edge.validate("q").is_ok());
    }

    #[test]
    fn pk_abc_knowledge_blends_mu_now_with_mu_one_lookahead_ahead() {
        use crate::queue::ConstantSchedule;
        let pk = |k: f64| AbcRouterConfig {
            lookahead: Some(Dur::from_millis(100)),
            knowledge: k,
            ..AbcRouterConfig::default()
        };
        // A quarter of the change known: μ_now 1 MB/s, μ ahead 2 MB/s → 1.25 MB/s in Eq. 1.
        let mut q = AbcQueue::new(pk(0.25));
        assert!(q.observes_link());
        q.observe_link(Time::from_millis(500), &ConstantSchedule(1e6));
        q.enqueue(Time::from_millis(500), accel(0)).unwrap();
        let info = LinkInfo {
            capacity: 2e6,
            overhead: 0,
        };
        q.dequeue(Time::from_millis(500), info, &mut Vec::new()).unwrap();
        assert!((q.state().mu - 1.25e6).abs() < 1e-6, "{}", q.state().mu);
        // x = queued bytes / μ uses the same blend: 1500 B / 1.25 MB/s.
        assert!((q.state().x - 1500.0 / 1.25e6).abs() < 1e-12, "{}", q.state().x);
        // k = 1 (PK-ABC's default) reads no link state of now; ABC and predictive ABC have no k.
        let mut full = AbcQueue::new(pk(1.0));
        assert!(!full.observes_link());
        full.enqueue(Time::ZERO, accel(0)).unwrap();
        full.dequeue(Time::ZERO, info, &mut Vec::new()).unwrap();
        assert_eq!(full.state().mu, 2e6);
        assert!(!AbcQueue::new(AbcRouterConfig::default()).observes_link());
        assert_eq!(AbcRouterConfig::default().knowledge, 1.0);
        let v = Values::defaults(&[PK_PARAMS]);
        assert_eq!(AbcRouterConfig::from_values(&v).knowledge, 1.0);
    }

    #[test]
    fn queue_interface_reports_the_router() {
        let mut q = AbcQueue::new(AbcRouterConfig::default());
        assert_eq!(q.name(), "abc");
        assert_eq!(q.capacity_window(), Some(Dur::from_millis(20)));
        q.enqueue(Time::ZERO, accel(0)).unwrap();
        q.enqueue(Time::ZERO, accel(1)).unwrap();
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
        q.dequeue(Time::from_millis(1), link(1000.0), &mut Vec::new()).unwrap();
        assert_eq!((q.len_packets(), q.len_bytes()), (1, 1500));
        assert_eq!(q.gauge(), Some(1.0));
        assert_eq!(q.gauge(), Some(q.state().f));
        let s = q.stats();
        assert_eq!((s.enqueued, s.dequeued, s.max_packets), (2, 1, 2));
        // Built from the registry row with a byte limit.
        let g = crate::params::Given::from([("bytes".to_string(), 3000.0.into())]);
        let mut b = (ABC.build)(&ABC.values(&g, "q").unwrap(), crate::rng::Rng::stream(1, 0));
        assert_eq!(b.name(), "abc");
        for i in 0..3 {
            let r = b.enqueue(Time::ZERO, accel(i));
            assert_eq!(r.is_ok(), i < 2);
        }
    }

    /// An ABC-router hop (`queue` fields, `link`) in front of a 12 Mbit/s ACK link, both with
    /// `delay` ms, crossed by `flows` (JSON objects without the paths).
    fn abc_warnings(link: &str, queue: &str, delay: f64, flows: &[&str]) -> Vec<crate::warning::Warning> {
        let flows: Vec<String> = flows
            .iter()
            .map(|f| format!(r#"{{{f}, "fwd": [0], "rev": [1]}}"#))
            .collect();
        crate::warning::of_scenario(&format!(
            r#"{{"duration_ms": 100,
            "hops": [{{"link": {link}, "queue": {{"type": "abc"{queue}}}, "delay_ms": {delay}}},
                     {{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "infinite"}}, "delay_ms": {delay}}}],
            "flows": [{}]}}"#,
            flows.join(", ")
        ))
    }

    const RATE12: &str = r#"{"type": "constant", "mbps": 12}"#;
    const ABC_FLOW: &str = r#""scheme": "abc""#;

    #[test]
    fn warns_when_the_buffer_is_below_dt_times_mu_and_only_then() {
        // 12 Mbit/s × 50 ms = 75 000 bytes = 50 packets of 1500 bytes.
        let w = abc_warnings(RATE12, r#", "packets": 49"#, 50.0, &[ABC_FLOW]);
        assert_eq!(w.len(), 1, "{w:?}");
        let w = &w[0];
        assert_eq!(w.code, "abc-buffer-below-dt-mu");
        assert_eq!((w.subject.as_str(), w.parameter.as_str()), ("hops[0]", "hops[0].queue.packets"));
        assert_eq!((w.value, w.bound, w.unit), (49.0, 50.0, "packets"));
        assert!(w.source.contains("§3.1.2") && w.source.contains("NSDI 2020"), "{}", w.source);
        assert!(w.message.contains("49 packets") && w.message.contains("50 packets"), "{}", w.message);
        assert!(w.message.contains("50 ms × 12 Mbit/s"), "{}", w.message);
        assert_eq!(abc_warnings(RATE12, r#", "packets": 50"#, 50.0, &[ABC_FLOW]), vec![]);
        assert_eq!(abc_warnings(RATE12, r#", "packets": 51"#, 50.0, &[ABC_FLOW]), vec![]);
        // d_t scales the bound; a byte limit is compared in bytes.
        let w = abc_warnings(RATE12, r#", "packets": 99, "dt_ms": 100"#, 50.0, &[ABC_FLOW]);
        assert_eq!((w.len(), w[0].bound), (1, 100.0));
        let w = abc_warnings(RATE12, r#", "bytes": 74999"#, 50.0, &[ABC_FLOW]);
        assert_eq!((w.len(), w[0].parameter.as_str(), w[0].bound, w[0].unit), (1, "hops[0].queue.bytes", 75000.0, "bytes"));
        assert_eq!(abc_warnings(RATE12, r#", "bytes": 75000"#, 50.0, &[ABC_FLOW]), vec![]);
        // Without ABC senders the router is a drop-tail queue: nothing to say.
        assert_eq!(abc_warnings(RATE12, r#", "packets": 5"#, 50.0, &[r#""scheme": "cubic""#]), vec![]);
    }

    #[test]
    fn the_buffer_bound_of_a_trace_link_is_its_mean_rate_in_opportunities() {
        // One 1504-byte opportunity per ms: 50 packets in d_t = 50 ms.
        let path = std::env::temp_dir().join(format!("accelbrake-warn-{}.trace", std::process::id()));
        std::fs::write(&path, "1\n").unwrap();
        let link = format!(r#"{{"type": "trace", "path": {:?}}}"#, path.to_str().unwrap());
        let w = abc_warnings(&link, r#", "packets": 49"#, 50.0, &[ABC_FLOW]);
        let none = abc_warnings(&link, r#", "packets": 50"#, 50.0, &[ABC_FLOW]);
        std::fs::remove_file(&path).ok();
        assert_eq!((w.len(), w[0].bound), (1, 50.0), "{w:?}");
        assert_eq!(none, vec![]);
    }

    #[test]
    fn warns_when_delta_is_at_or_below_two_thirds_of_the_largest_abc_rtt() {
        // Propagation RTT 150 ms: the bound is δ = 100 ms.
        for (delta, fires) in [(99.0, true), (100.0, true), (100.001, false), (133.0, false)] {
            let q = format!(r#", "delta_ms": {delta}"#);
            let w = abc_warnings(RATE12, &q, 75.0, &[ABC_FLOW]);
            assert_eq!(w.len(), usize::from(fires), "δ = {delta}: {w:?}");
            if fires {
                let w = &w[0];
                assert_eq!(w.code, "abc-delta-below-stability-bound");
                assert_eq!(w.parameter, "hops[0].queue.delta_ms");
                assert_eq!((w.value, w.bound, w.unit), (delta, 100.0, "ms"));
                assert!(w.source.contains("§3.1.4") && w.source.contains("2/3"), "{}", w.source);
            }
        }
        // The paper's δ = 133 ms at its 100 ms RTT is fine; τ is the largest RTT of the ABC flows
        // (here flows[1], 100 + 60 ms), a non-ABC flow's longer RTT does not count.
        let flows = [
            ABC_FLOW,
            r#""scheme": "abc-cubic", "extra_delay_ms": 60"#,
            r#""scheme": "cubic", "extra_delay_ms": 500"#,
        ];
        let w = abc_warnings(RATE12, r#", "delta_ms": 106"#, 50.0, &flows);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.contains("flows[1]"), "{}", w[0].message);
        assert_eq!(abc_warnings(RATE12, r#", "delta_ms": 107"#, 50.0, &flows), vec![]);
        // Of two ABC flows with the same largest RTT the message names the first.
        let w = abc_warnings(RATE12, r#", "delta_ms": 50"#, 50.0, &[ABC_FLOW, ABC_FLOW]);
        assert!(w[0].message.contains("flows[0]: 100 ms"), "{}", w[0].message);
    }
}
