//! PropRate (Leong et al., CoNEXT 2017, "TCP Congestion Control Beyond Bandwidth-Delay Product for
//! Mobile Cellular Networks"; `shared/papers/004_45eb44a4243ad2c4.txt`, digest
//! `shared/reference/algorithms.md` §2). No reference code is public: the paper is the spec. Section
//! numbers follow the paper's cross-references: §3 Algorithm Design, §3.1 Setting Parameters, §3.2
//! Updating the Threshold T, §4 Implementation, §4.1 Buffer Regulation, §4.2 Bandwidth Estimation,
//! §4.3 Kernel Implementation, §6 Discussion.
//!
//! States (§4, §4.1): **Slow Start** sends a back-to-back burst of 10 segments and takes ρ from its
//! receiver timestamps (packet train); no estimate (fewer than two distinct stamps) → double the
//! burst. **Buffer Fill** paces at σ_f = k_f·ρ until `t_buff ≥ T` → **Buffer Drain** at σ_d = k_d·ρ
//! until `t_buff < T` → Fill; after `RTT·ρ` segments sent in Drain (a packet count, not a timer) →
//! **Monitor**: a burst of n segments, then σ_m = σ_d/2; burst rate ≥ ρ → take it as ρ, Fill;
//! otherwise Drain. Losses leave the rate alone (§4.3); an RTO returns to Slow Start. Outage guard
//! (§6): at most 2 × BDP in flight, `window() = max(2·ρ·RTT/MSS, 4)` segments, RTT = min RTT +
//! t̄_buff by default (`guard_target = 0`: min RTT; `guard_srtt = 1`: smoothed RTT).
//!
//! Signals: `t_buff = RD − RD_min` (§4.1) with RD = `AckInfo::one_way_delay` (which already carries
//! the receiver's timestamp granularity) and RD_min its minimum over the recent past, kept as 10
//! buckets over `base_history_s` (RFC 6817 §3.4.2 `BASE_HISTORY`, 10 one-minute buckets). ρ (§4.2)
//! comes from **`AckInfo::acked` over receiver timestamps** `t_r = now − rtt + one_way_delay` (the
//! ACK's TSval), not from `AckInfo::rate`, which is clocked by ACK arrivals at the sender and so
//! is hurt by delayed uplink ACKs, the case PropRate is built for: the window rate is
//! `segments × MSS / span` over a sliding window and ρ is its EWMA (gain 1/8). RTT in the formulas
//! is the RTT without buffer delay (§3.1): `AckInfo::min_rtt`.
//!
//! Formulas (ms; t̄_buff = `target_ms`, L_max = `lmax_ms`; T starts at t̄_buff, §3.1):
//! * Eq. 6: buffer-emptied regime iff `2T < L_max − RTT` (⇔ U < 1; evaluated with the current T,
//!   "U is also a function of T").
//! * Eq. 7 (full): `k_f = (1.5T + RTT)/(T + RTT)`, `k_d = (0.5T + RTT)/(T + RTT)`.
//! * Eq. 8 (emptied): `U = (2T/(L_max − RTT))^(1/4)`, `k_f = ((2/U)T + RTT)/(T + RTT)`,
//!   `t_f = D_max/(k_f − 1)`, `D_max = U³(L_max − RTT)` (Eq. 4),
//!   `k_d = (RTT − ((1−U)/U)·k_f·t_f) / ((1/U)T + RTT − ((1−U)/U)·t_f)`.
//! * Eq. 9 (§3.2): per BDP window of ACKed segments `t_actual ← 7/8·t_actual + 1/8·t_sample`; then
//!   Fill & `t_actual > t̄`: `T −= ln(t_actual − t̄)`; Drain & `t_actual < t̄`: `T += ln(t̄ − t_actual)`.
//!   `feedback = 0` freezes T (t_actual is still tracked).
//!
//! Presets (§5): PR(L) `target_ms` 20 (emptied), PR(M) 40 (about the crossover), PR(H) 80 (full),
//! all `lmax_ms` 100 (a crossover at 40 ms with RTT 20 ms): [`PROPRATE_L`], [`PROPRATE_M`], [`PROPRATE_H`].
//!
//! Readings of ambiguous or garbled text:
//! * §3.2 as extracted *increments* T by `log(t_actual − t̄)` in Fill when `t_actual > t̄` and
//!   *decrements* it in Drain when below: positive feedback with ms and `log ≥ 0` (negative only if
//!   the log of a sub-second difference in seconds is negative). We keep the (state, condition)
//!   pairs and the negative-feedback sign (Fill & above → lower T so Fill ends sooner; Drain & below
//!   → raise T so Drain ends sooner), with ms, `ln(max(diff, 1))`, T in [1 ms, 10 s] (digest §2).
//! * t_sample ("for each BDP window of packets … the instantaneous buffer delay") is the latest
//!   t_buff when a window of `ρ·RTT/MSS` ACKed segments completes; the first sample seeds t_actual;
//!   T is updated before this ACK's Fill/Drain decision.
//! * Rate window (§4.2: "either 50 consecutive and distinct timestamps … or 200 ms (if there are
//!   fewer than 50 …) … maximum length … 500 ms"): the window reaches back over the last 50
//!   distinct stamps *and* at least 200 ms, at most 500 ms — the only reading in which it "can
//!   become as long as a few seconds when the throughput is low" and needs the cap. Until a
//!   window is complete after a (re)seed, ρ keeps its seeded (train) value.
//! * Monitor's n is not given: default 10 as in Slow Start, sent back to back; σ_m applies after.
//!   "We update \[the\] congestion detection module" on a good probe (§4) is read as ρ := the
//!   burst's rate *and* RD_min := the burst's smallest one-way delay (`monitor_rebase = 1`, the
//!   default). The paper resolves it: §4.1 introduces Monitor for the case where
//!   "the measured buffer delay remains above T" because "the underlying one-way delay suddenly
//!   increases", and says that "cross traffic would also be observed as … a possible increase in
//!   the baseline one-way delay". Updating ρ alone leaves t_buff above T, so Fill would end at the
//!   next ACK and Monitor could not do what it is there for. This decides Fig. 10 (two flows):
//!   a newcomer takes the incumbent's standing queue as its RD_min, holds the queue at that plus
//!   its T, and without a rebase the incumbent sees t_buff > T for good, cycles Drain → Monitor →
//!   one ACK of Fill → Drain, and its T is driven to the floor by Eq. 9 (Fill & t_actual > t̄); on a
//!   constant 12 Mbit/s link PR(M)'s newcomer then gets 5.7× the incumbent's throughput, 1.05× with
//!   the rebase (docs/delay-schemes.md, `scripts/proprate_contention.py`). The cost, single flow:
//!   by the paper's own sawtooth model a Drain phase sends `k_d·ρ·2(T + RTT) = (T + 2·RTT)·ρ`
//!   segments, more than the `RTT·ρ` cap, so Monitor is entered in most cycles, and a rebase while
//!   the queue is not empty raises RD_min and with it the achieved delay: on a constant 12 Mbit/s
//!   link, 20 ms RTT, t̄_buff 40 ms, mean queueing 58.8 ms with the rebase and 40.0 ms without
//!   (feedback on). `monitor_rebase = 0` keeps the earlier reading (ρ only).
//! * BDP in the 2 × BDP guard (§6, "estimated BDP"). The digest reads it as ρ × min RTT
//!   (`guard_target = 0`); then the queue can hold at most about one min RTT of delay, targets above
//!   the min RTT are out of reach and PR(M) = PR(H) on a 20 ms path (mean queueing 16.3 / 16.1 ms on
//!   Verizon-LTE-short.up), which contradicts the paper's own claims that the cap has "negligible
//!   impact on flows in the normal case" and that PR(L/M/H) are distinct points (Fig. 7). We size
//!   it at the operating point the application asked for, ρ × (min RTT + t̄_buff): a flow at its
//!   target has one such BDP in flight, the cap is hit only when the queue holds more than
//!   min RTT + 2·t̄_buff, i.e. in an outage. `guard_srtt = 1` (smoothed RTT) feeds queue growth back
//!   into the cap and overshoots the targets 1.4–5× on the LTE traces.
//! * Eq. 8's k_d is negative, or its denominator non-positive, when `RTT < ((1−U)/U)·k_f·t_f` (e.g.
//!   PR(L) with RTT 20 ms: no k_d ≥ 0 reaches that U); then `kd_min` (0.1, not from the paper) is
//!   used. Re-deriving Eq. 8 from the paper's sawtooth model (switching lag `RTT + T`) gives `T`,
//!   not `T/U`, in the denominator; we keep the printed formula.
//!
//! Deviations:
//! * Dispatch: the paper sends from a timer, rounding the per-tick count up in Fill and down in
//!   Drain/Monitor with a carry (§4.3); the simulator's sender paces `pacing_rate()` in ~1 ms bursts
//!   of at least 2 segments. `pacing_rate() = k·ρ·MTU/MSS` (ρ counts payload, the sender wire bytes).
//! * Bursts are unpaced with `window() = in_flight + segments left` (Monitor: also ≤ the guard);
//!   while a Slow Start burst's ACKs are awaited the window is held at the segments in flight. A
//!   burst cut short (RTO window, application) without an estimate is repeated, not doubled.
//! * After a spurious RTO (not in the paper) ρ is kept and the flow resumes in Drain.
//! * Sanity bounds, not from the paper: pacing ≥ one MTU per 100 ms, bursts ≤ 10 240 segments.

use super::{AckInfo, CcMetrics, CongestionControl, Marking, Scheme};
use super::base_delay::{BaseDelayHistory, Bucketing};
use crate::params::{Config, Param, Unit, Values};
use crate::packet::{MSS, MTU};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Slow-start burst, segments (§4: 10 packets, after Google's initial window of 10 \[8\]).
pub const INITIAL_BURST: u32 = 10;
/// Monitor burst n, segments (§4 gives no value; we reuse the slow-start burst).
pub const MONITOR_BURST: u32 = 10;
/// Largest burst after slow-start doubling (sanity bound, not from the paper).
pub const MAX_BURST: u32 = 10_240;
/// Rate window: distinct receiver timestamps (§4.2, "50 bursts" after Xu et al. \[25\]).
pub const RATE_WINDOW_STAMPS: usize = 50;
/// Rate window: shortest span (§4.2: 200 ms).
pub const RATE_WINDOW_MIN: Dur = Dur::from_millis(200);
/// Rate window: longest span (§4.2: 500 ms).
pub const RATE_WINDOW_MAX: Dur = Dur::from_millis(500);
/// EWMA gain of ρ over window rates (§4.2 says EWMA without a gain; 1/8 as in Eq. 9).
pub const RATE_GAIN: f64 = 0.125;
/// Eq. 9: `t_actual = 7/8·t_actual + 1/8·t_sample`.
pub const T_ACTUAL_GAIN: f64 = 0.125;
/// Smallest threshold T, ms (digest §2: keep T ≥ 1 ms).
pub const T_MIN_MS: f64 = 1.0;
/// Largest threshold T, ms (sanity bound, not from the paper).
pub const T_MAX_MS: f64 = 10_000.0;
/// In-flight cap in estimated BDPs (§6 "Rate-Based Fragility": 2 × BDP).
pub const GUARD_BDPS: f64 = 2.0;
/// Smallest window, segments (task spec: the guard is at least 4 segments).
pub const MIN_WINDOW: f64 = 4.0;
/// Default floor of k_d when Eq. 8 has no non-negative solution (not from the paper).
pub const KD_MIN: f64 = 0.1;
/// RD_min history, seconds (RFC 6817 §3.4.2 `BASE_HISTORY`: 10 minutes).
pub const BASE_HISTORY_S: f64 = 600.0;
/// RD_min buckets over the history (RFC 6817: one per minute of 10).
pub const BASE_BUCKETS: usize = 10;
/// Smallest pacing rate, bytes/s: one MTU per 100 ms (sanity bound, not from the paper).
pub const MIN_RATE: f64 = MTU as f64 / 0.1;

/// PropRate parameters. (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct PropRateConfig {
    /// `target_ms`: target average buffer delay t̄_buff, ms, in (0, 10000]. Default 40 (PR(M)).
    pub target_ms: f64,
    /// `lmax_ms`: maximum tolerable latency L_max, ms, in (0, 100000]. Default 100.
    pub lmax_ms: f64,
    /// `feedback`: the negative-feedback loop on T (§3.2), 0/1. Default 1.
    pub feedback: bool,
    /// `initial_burst`: first slow-start burst, segments, in [1, 10240]. Default 10 (§4).
    pub initial_burst: u32,
    /// `monitor_burst`: Monitor burst n, segments, in [2, 10240]. Default 10 (not in the paper).
    pub monitor_burst: u32,
    /// `kd_min`: floor of k_d, in (0, 1). Default 0.1 (not in the paper).
    pub kd_min: f64,
    /// `base_history_s`: how long RD_min is remembered, seconds, in (0, 1e6]. Default 600.
    pub base_history_s: f64,
    /// `guard_srtt`: size the 2 × BDP guard with the smoothed RTT, 0/1. Default 0. Wins over
    /// `guard_target` (see the module doc).
    pub guard_srtt: bool,
    /// `guard_target`: size the 2 × BDP guard with min RTT + t̄_buff, the RTT of the operating point
    /// the application asked for, 0/1. Default 1 (see the module doc); 0 (and `guard_srtt` 0): min RTT.
    pub guard_target: bool,
    /// `monitor_rebase`: a good Monitor probe resets RD_min to the probe's smallest one-way delay,
    /// 0/1. Default 1 (PropRate paper §4/§4.1, see the module doc; 0 favours a late-coming flow).
    pub monitor_rebase: bool,
}

/// PropRate's parameters (keys `proprate.<name>`).
pub const PARAMS: &[Param] = &[
    Param::real("target_ms", 40.0, Unit::Ms, 0.0, 1e4)
        .open(true, false)
        .doc("target average buffer delay t̄_buff (presets L/M/H: 20/40/80)", "PropRate paper (CoNEXT 2017) §5"),
    Param::real("lmax_ms", 100.0, Unit::Ms, 0.0, 1e5)
        .open(true, false)
        .doc("maximum tolerable latency L_max", "PropRate paper §3.2"),
    Param::flag("feedback", true).doc("the negative-feedback loop on T", "PropRate paper §3.2"),
    Param::whole("initial_burst", INITIAL_BURST as u64, Unit::Segments, 1, MAX_BURST as u64)
        .doc("first slow-start burst", "PropRate paper §4"),
    Param::whole("monitor_burst", MONITOR_BURST as u64, Unit::Segments, 2, MAX_BURST as u64)
        .doc("Monitor burst n", "not in the paper: our choice"),
    Param::real("kd_min", KD_MIN, Unit::None, 0.0, 1.0).open(true, true).doc("floor of k_d", "not in the paper: our choice"),
    Param::real("base_history_s", BASE_HISTORY_S, Unit::S, 0.0, 1e6)
        .open(true, false)
        .doc("how long RD_min is remembered", "our choice (LEDBAT-style, RFC 6817 §2.4.2)"),
    Param::flag("guard_srtt", false)
        .doc("size the 2 × BDP guard with the smoothed RTT (wins over guard_target)", "reading of PropRate paper §3.3"),
    Param::flag("guard_target", true)
        .doc("size the 2 × BDP guard at min RTT + t̄_buff (off, with guard_srtt off: min RTT)", "reading of PropRate paper §3.3"),
    Param::flag("monitor_rebase", true)
        .doc("a good Monitor probe resets RD_min to the probe's smallest one-way delay", "PropRate paper §4 (Monitor), §4.1 (risen base delay, cross traffic)"),
];

/// PropRate over drop-tail (target 40 ms).
pub const PROPRATE: Scheme = Scheme {
    name: "proprate",
    display: "PropRate",
    family: "proprate",
    summary: "PropRate, target buffer delay 40 ms",
    source: "Leong et al., CoNEXT 2017",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#9c9ede", "p"),
    build: |v, now, _rng| Ok(Box::new(PropRate::new(PropRateConfig::checked(v)?, now))),
    warnings: None,
};

/// PropRate(L): target 20 ms (PropRate paper §5).
pub const PROPRATE_L: Scheme = Scheme {
    name: "proprate-l",
    display: "PropRate(L)",
    summary: "PropRate preset L: target buffer delay 20 ms",
    preset: &[("target_ms", 20.0)],
    style: ("#637939", "p"),
    ..PROPRATE
};

/// PropRate(M): target 40 ms (PropRate paper §5).
pub const PROPRATE_M: Scheme = Scheme {
    name: "proprate-m",
    display: "PropRate(M)",
    summary: "PropRate preset M: target buffer delay 40 ms",
    preset: &[("target_ms", 40.0)],
    style: ("#8ca252", "p"),
    ..PROPRATE
};

/// PropRate(H): target 80 ms (PropRate paper §5).
pub const PROPRATE_H: Scheme = Scheme {
    name: "proprate-h",
    display: "PropRate(H)",
    summary: "PropRate preset H: target buffer delay 80 ms",
    preset: &[("target_ms", 80.0)],
    style: ("#b5cf6b", "p"),
    ..PROPRATE
};

crate::default_from_table!(PropRateConfig);

impl Config for PropRateConfig {
    const PREFIX: &'static str = "proprate";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> PropRateConfig {
        PropRateConfig {
            target_ms: v.real("target_ms"),
            lmax_ms: v.real("lmax_ms"),
            feedback: v.flag("feedback"),
            initial_burst: v.whole("initial_burst"),
            monitor_burst: v.whole("monitor_burst"),
            kd_min: v.real("kd_min"),
            base_history_s: v.real("base_history_s"),
            guard_srtt: v.flag("guard_srtt"),
            guard_target: v.flag("guard_target"),
            monitor_rebase: v.flag("monitor_rebase"),
        }
    }
}

impl PropRateConfig {
    /// The config of a PropRate scheme row (`proprate`, `proprate-l`, `-m` or `-h`) with its
    /// preset applied; `None` for other names.
    pub fn preset(scheme: &str) -> Option<PropRateConfig> {
        let row = super::lookup(scheme).ok().filter(|s| s.family == "proprate")?;
        row.values(&crate::params::Given::new()).ok().map(|v| PropRateConfig::from_values(&v))
    }
}

/// Operating regime (§3, Eq. 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// The buffer is never emptied (Eq. 7).
    Full,
    /// The buffer is emptied periodically, utilisation U < 1 (Eq. 8).
    Emptied,
}

/// Rate multipliers for a threshold T.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// Regime chosen by Eq. 6 for this T.
    pub regime: Regime,
    /// Utilisation U (1 in the buffer-full regime).
    pub u: f64,
    /// Buffer Fill multiplier, > 1.
    pub k_f: f64,
    /// Buffer Drain multiplier, in [kd_min, 1).
    pub k_d: f64,
}

/// k_f and k_d for threshold `t_ms`, RTT without buffer delay `rtt_ms` and `lmax_ms` (Eqs. 4, 6–8);
/// k_d is floored at `kd_min`.
pub fn gains(t_ms: f64, rtt_ms: f64, lmax_ms: f64, kd_min: f64) -> Gains {
    let t = t_ms.max(T_MIN_MS);
    let rtt = rtt_ms.max(0.0);
    let span = lmax_ms - rtt;
    // Eq. 6 with T for t̄_buff: emptied iff 2T < L_max − RTT (⇔ U < 1).
    if span.is_nan() || 2.0 * t >= span {
        return Gains {
            regime: Regime::Full,
            u: 1.0,
            k_f: (1.5 * t + rtt) / (t + rtt),
            k_d: ((0.5 * t + rtt) / (t + rtt)).max(kd_min),
        };
    }
    let u = libm::pow(2.0 * t / span, 0.25);
    let k_f = (2.0 / u * t + rtt) / (t + rtt);
    let d_max = u * u * u * span; // Eq. 4
    let t_f = d_max / (k_f - 1.0); // k_f − 1 = (2/U − 1)·T/(T + RTT) > 0
    let c = (1.0 - u) / u;
    let num = rtt - c * k_f * t_f;
    let den = t / u + rtt - c * t_f;
    let k_d = if num > 0.0 && den > 0.0 { num / den } else { 0.0 };
    Gains {
        regime: Regime::Emptied,
        u,
        k_f,
        k_d: k_d.max(kd_min),
    }
}

/// Controller state (§4, Fig. 5b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Bursts to get a first ρ.
    SlowStart,
    /// Sending at k_f·ρ.
    Fill,
    /// Sending at k_d·ρ.
    Drain,
    /// Re-estimating ρ with a burst, then σ_d/2.
    Monitor,
}

/// Sliding window of (receiver timestamp, cumulative segments) for the receive rate (§4.2).
#[derive(Clone, Debug, Default)]
struct RateWindow {
    stamps: VecDeque<(Time, u64)>,
    total: u64,
    /// Segments delivered by ACKs without a receiver timestamp, credited to the next one.
    unstamped: u64,
    /// Entries have been dropped for age: the 500 ms cap is in force.
    aged: bool,
}

impl RateWindow {
    fn clear(&mut self) {
        *self = RateWindow::default();
    }

    /// Credit `segs` to receiver time `rx`; on a new distinct timestamp return the window rate
    /// (payload bytes/s) if the window is complete.
    fn push(&mut self, rx: Time, segs: u32) -> Option<f64> {
        self.total = self
            .total
            .saturating_add(u64::from(segs))
            .saturating_add(self.unstamped);
        self.unstamped = 0;
        match self.stamps.back_mut() {
            // Same (or, reordered, an older) timestamp: merge into the newest entry.
            Some(back) if rx <= back.0 => {
                back.1 = self.total;
                return None;
            }
            _ => self.stamps.push_back((rx, self.total)),
        }
        while self.stamps.len() > 1
            && self
                .stamps
                .front()
                .is_some_and(|f| rx.saturating_since(f.0) > RATE_WINDOW_MAX)
        {
            self.stamps.pop_front();
            self.aged = true;
        }
        self.rate()
    }

    fn rate(&self) -> Option<f64> {
        let n = self.stamps.len();
        let &(t_new, c_new) = self.stamps.back()?;
        // Entries at least 200 ms older than the newest form a prefix.
        let old = self
            .stamps
            .partition_point(|e| t_new.saturating_since(e.0) >= RATE_WINDOW_MIN);
        let base = match (n.checked_sub(RATE_WINDOW_STAMPS + 1), old.checked_sub(1)) {
            (Some(a), Some(b)) => a.min(b),
            _ if self.aged => 0,
            _ => return None,
        };
        let &(t0, c0) = self.stamps.get(base)?;
        let span = t_new.saturating_since(t0).secs_f64();
        (span > 0.0).then(|| (c_new - c0) as f64 * f64::from(MSS) / span)
    }
}

/// A back-to-back burst whose receiver timestamps give a packet-train rate estimate.
#[derive(Clone, Copy, Debug, Default)]
struct Probe {
    size: u32,
    sent: u32,
    first_sent: Option<Time>,
    last_sent: Time,
    /// Segments of the burst acknowledged.
    acked: u32,
    first_rx: Option<Time>,
    last_rx: Time,
    /// Segments credited to ACKs after the first one of the burst.
    segs_after_first: u64,
    min_owd: Option<Dur>,
}

impl Probe {
    fn new(size: u32) -> Probe {
        Probe {
            size,
            ..Probe::default()
        }
    }

    fn remaining(&self) -> u32 {
        self.size.saturating_sub(self.sent)
    }

    fn on_sent(&mut self, now: Time) {
        self.sent += 1;
        self.first_sent.get_or_insert(now);
        self.last_sent = now;
    }

    /// An ACK for `segs` segments echoing a segment sent at `sent_at`, received at `rx`.
    fn on_ack(&mut self, sent_at: Time, rx: Time, segs: u32, owd: Dur) {
        let Some(first) = self.first_sent else { return };
        if sent_at < first || sent_at > self.last_sent {
            return;
        }
        self.acked = self.acked.saturating_add(segs);
        self.min_owd = Some(self.min_owd.map_or(owd, |m| m.min(owd)));
        match self.first_rx {
            None => {
                self.first_rx = Some(rx);
                self.last_rx = rx;
            }
            Some(_) => {
                self.segs_after_first += u64::from(segs);
                self.last_rx = self.last_rx.max(rx);
            }
        }
    }

    /// Nothing more will be learnt: all of it ACKed, a later segment ACKed, or nothing in flight.
    fn done(&self, sent_at: Option<Time>, in_flight: u32) -> bool {
        self.sent > 0 && (self.acked >= self.sent || in_flight == 0 || sent_at.is_some_and(|s| s > self.last_sent))
    }

    /// Packet-train rate, payload bytes/s: segments after the first ACK over the receiver span.
    fn rate(&self) -> Option<f64> {
        let span = self.last_rx.saturating_since(self.first_rx?).secs_f64();
        (span > 0.0 && self.segs_after_first > 0).then(|| self.segs_after_first as f64 * f64::from(MSS) / span)
    }
}

/// The PropRate sender.
#[derive(Clone, Debug)]
pub struct PropRate {
    cfg: PropRateConfig,
    state: State,
    /// Threshold T, ms.
    t_ms: f64,
    /// Receive rate ρ, payload bytes/s (None until the first slow-start estimate).
    rho: Option<f64>,
    rate_win: RateWindow,
    /// Minimum one-way delay over the recent past, in buckets (RFC 6817 style).
    base: BaseDelayHistory,
    /// Latest buffer-delay estimate t_buff, ms.
    t_buff_ms: Option<f64>,
    /// Eq. 9 average, ms.
    t_actual_ms: Option<f64>,
    /// Segments ACKed in the current BDP window of the feedback loop.
    nfl_acked: u64,
    probe: Probe,
    /// Current slow-start burst size.
    burst: u32,
    /// Segments sent since entering Drain.
    drain_sent: u32,
    in_flight: u32,
    min_rtt: Option<Dur>,
    srtt: Option<Dur>,
    /// An RTO sent us back to Slow Start from a rate-controlled state (for spurious-RTO undo).
    rto_undo: bool,
}

impl PropRate {
    /// A sender in Slow Start with `T = target_ms`.
    pub fn new(cfg: PropRateConfig, _now: Time) -> PropRate {
        let history = cfg.base_history_s.clamp(1e-3, 1e6);
        PropRate {
            state: State::SlowStart,
            t_ms: cfg.target_ms.clamp(T_MIN_MS, T_MAX_MS),
            rho: None,
            rate_win: RateWindow::default(),
            base: BaseDelayHistory::new(
                Dur::from_secs_f64(history / BASE_BUCKETS as f64),
                BASE_BUCKETS,
                Bucketing::FromFirstSample,
            ),
            t_buff_ms: None,
            t_actual_ms: None,
            nfl_acked: 0,
            probe: Probe::new(cfg.initial_burst.max(1)),
            burst: cfg.initial_burst.max(1),
            drain_sent: 0,
            in_flight: 0,
            min_rtt: None,
            srtt: None,
            rto_undo: false,
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &PropRateConfig {
        &self.cfg
    }

    /// Current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Threshold T, ms.
    pub fn threshold_ms(&self) -> f64 {
        self.t_ms
    }

    /// Receive-rate estimate ρ, payload bytes/s.
    pub fn receive_rate(&self) -> Option<f64> {
        self.rho
    }

    /// Latest buffer-delay estimate t_buff, ms.
    pub fn buffer_delay_ms(&self) -> Option<f64> {
        self.t_buff_ms
    }

    /// Average buffer delay t_actual of Eq. 9, ms.
    pub fn average_buffer_delay_ms(&self) -> Option<f64> {
        self.t_actual_ms
    }

    /// k_f and k_d for the current T and RTT.
    pub fn gains(&self) -> Gains {
        gains(self.t_ms, self.rtt_ms(), self.cfg.lmax_ms, self.cfg.kd_min)
    }

    fn rtt_ms(&self) -> f64 {
        self.min_rtt.map_or(0.0, |r| r.millis_f64())
    }

    /// Estimated BDP ρ·RTT in segments.
    fn bdp(&self) -> Option<f64> {
        let rtt = self.min_rtt?.secs_f64();
        Some(self.rho? * rtt / f64::from(MSS))
    }

    /// The 2 × BDP in-flight guard (§6), at least [`MIN_WINDOW`].
    fn guard(&self) -> f64 {
        let rtt = if self.cfg.guard_srtt {
            self.srtt.or(self.min_rtt)
        } else if self.cfg.guard_target {
            self.min_rtt.map(|r| r + Dur::from_millis_f64(self.cfg.target_ms))
        } else {
            self.min_rtt
        };
        match (rtt, self.rho) {
            (Some(rtt), Some(rho)) => (GUARD_BDPS * rho * rtt.secs_f64() / f64::from(MSS)).max(MIN_WINDOW),
            _ => MIN_WINDOW,
        }
    }

    fn enter(&mut self, state: State) {
        self.state = state;
        match state {
            State::SlowStart => self.probe = Probe::new(self.burst),
            State::Drain => self.drain_sent = 0,
            State::Monitor => self.probe = Probe::new(self.cfg.monitor_burst),
            State::Fill => {}
        }
    }

    /// A Slow Start or Monitor burst has been answered.
    fn finish_probe(&mut self, now: Time) {
        let estimate = self.probe.rate();
        match (self.state, estimate) {
            (State::SlowStart, Some(r)) => {
                self.rho = Some(r);
                self.rate_win.clear();
                self.rto_undo = false;
                self.enter(State::Fill);
            }
            (State::SlowStart, None) => {
                // "If this is not sufficient … the number of packets is doubled" (§4).
                if self.probe.remaining() == 0 {
                    self.burst = self.burst.saturating_mul(2).min(MAX_BURST);
                }
                self.enter(State::SlowStart);
            }
            (State::Monitor, Some(r)) if self.rho.is_none_or(|old| r >= old) => {
                self.rho = Some(r);
                self.rate_win.clear();
                if let (Some(m), true) = (self.probe.min_owd, self.cfg.monitor_rebase) {
                    self.base.reset(now, m);
                }
                self.enter(State::Fill);
            }
            (State::Monitor, _) => self.enter(State::Drain),
            _ => {}
        }
    }

    /// One BDP window of the negative-feedback loop (§3.2, Eq. 9).
    fn feedback(&mut self, t_sample: f64) {
        let ta = self
            .t_actual_ms
            .map_or(t_sample, |a| a + T_ACTUAL_GAIN * (t_sample - a));
        self.t_actual_ms = Some(ta);
        if !self.cfg.feedback {
            return;
        }
        let target = self.cfg.target_ms;
        match self.state {
            State::Fill if ta > target => self.t_ms -= libm::log((ta - target).max(1.0)),
            State::Drain if ta < target => self.t_ms += libm::log((target - ta).max(1.0)),
            _ => {}
        }
        self.t_ms = self.t_ms.clamp(T_MIN_MS, T_MAX_MS);
    }
}

impl CongestionControl for PropRate {
    fn name(&self) -> &'static str {
        "proprate"
    }

    fn window(&self) -> f64 {
        let burst = f64::from(self.in_flight) + f64::from(self.probe.remaining());
        match self.state {
            State::SlowStart => burst.max(1.0),
            State::Monitor if self.probe.remaining() > 0 => burst.min(self.guard()).max(1.0),
            _ => self.guard(),
        }
    }

    /// PropRate dispatches single packets from its timer (paper §4).
    fn pacing_min_burst(&self) -> u32 {
        1
    }

    fn pacing_rate(&self) -> Option<f64> {
        let rho = self.rho?;
        let g = self.gains();
        let k = match self.state {
            State::SlowStart => return None,
            State::Monitor if self.probe.remaining() > 0 => return None,
            State::Fill => g.k_f,
            State::Drain => g.k_d,
            State::Monitor => g.k_d / 2.0,
        };
        Some((k * rho * f64::from(MTU) / f64::from(MSS)).max(MIN_RATE))
    }

    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.in_flight = in_flight;
        match self.state {
            State::SlowStart | State::Monitor => {
                if self.probe.remaining() > 0 {
                    self.probe.on_sent(now);
                }
            }
            State::Drain => {
                self.drain_sent = self.drain_sent.saturating_add(1);
                // §4.1: "The cap is set at RTT * ρ" packets sent in Drain.
                let cap = self.bdp().map_or(1.0, |b| b.ceil().max(1.0));
                if f64::from(self.drain_sent) >= cap {
                    self.enter(State::Monitor);
                }
            }
            State::Fill => {}
        }
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.in_flight = ack.in_flight;
        self.min_rtt = ack.min_rtt.or(self.min_rtt);
        self.srtt = ack.srtt.or(self.srtt);
        let owd = ack.one_way_delay;
        if let Some(d) = owd {
            self.base.update(now, d);
        }
        // Send time of the echoed segment and its receiver timestamp (the ACK's TSval).
        let stamps = match (ack.acked > 0, ack.rtt, owd) {
            (true, Some(rtt), Some(d)) => {
                let sent = now - rtt;
                Some((sent, sent + d))
            }
            _ => None,
        };
        if ack.acked > 0 {
            match stamps {
                Some((_, rx)) => {
                    if let Some(r) = self.rate_win.push(rx, ack.acked) {
                        if let (Some(rho), false) = (self.rho.as_mut(), self.state == State::SlowStart) {
                            *rho += RATE_GAIN * (r - *rho);
                        }
                    }
                }
                None => self.rate_win.unstamped = self.rate_win.unstamped.saturating_add(u64::from(ack.acked)),
            }
        }
        // The ACK that ends Slow Start belongs to the burst, not to the feedback loop's windows.
        let rate_controlled = self.state != State::SlowStart;
        if matches!(self.state, State::SlowStart | State::Monitor) && ack.acked > 0 {
            if let (Some((sent, rx)), Some(d)) = (stamps, owd) {
                self.probe.on_ack(sent, rx, ack.acked, d);
            }
            if self.probe.done(stamps.map(|s| s.0), ack.in_flight) {
                self.finish_probe(now);
            }
        }
        let fresh = match (owd, self.base.min()) {
            (Some(d), Some(m)) => Some((d - m).millis_f64()),
            _ => None,
        };
        if fresh.is_some() {
            self.t_buff_ms = fresh;
        }
        // §3.2: once per BDP window of packets.
        if rate_controlled && self.state != State::SlowStart && ack.acked > 0 {
            self.nfl_acked = self.nfl_acked.saturating_add(u64::from(ack.acked));
            if let (Some(bdp), Some(tb)) = (self.bdp(), self.t_buff_ms) {
                if self.nfl_acked as f64 >= bdp.max(1.0) {
                    self.nfl_acked = 0;
                    self.feedback(tb);
                }
            }
        }
        // §4.1: switch at T.
        if let Some(tb) = fresh {
            match self.state {
                State::Fill if tb >= self.t_ms => self.enter(State::Drain),
                State::Drain if tb < self.t_ms => self.enter(State::Fill),
                _ => {}
            }
        }
    }

    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        // §4: "if there is a retransmission timeout, the implementation returns to the Slow Start
        // state". The sender marks everything outstanding lost, so nothing is in the pipe.
        self.rto_undo |= self.state != State::SlowStart;
        self.in_flight = 0;
        self.burst = self.cfg.initial_burst.max(1);
        self.enter(State::SlowStart);
    }

    fn on_spurious_rto(&mut self, _now: Time) {
        if std::mem::take(&mut self.rto_undo) && self.rho.is_some() {
            self.enter(State::Drain);
        }
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            pacing_rate: self.pacing_rate(),
            ..CcMetrics::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::error::Error;

    /// Bottleneck spacing 1.2 ms per segment: ρ = 1448 B / 1.2 ms.
    const RHO: f64 = 1448.0 / 0.0012;
    /// ρ · MTU/MSS: the pacing rate for k = 1, bytes/s.
    const WIRE: f64 = 1500.0 / 0.0012;

    fn us(x: u64) -> Time {
        Time::from_nanos(x * 1000)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    fn with(f: impl FnOnce(&mut PropRateConfig)) -> PropRate {
        let mut cfg = PropRateConfig::default();
        f(&mut cfg);
        PropRate::new(cfg, Time::ZERO)
    }

    /// ACK of `acked` segments at `now` echoing a segment sent at `sent` and received at `rx` (µs):
    /// rtt = now − sent, one-way delay = rx − sent; min RTT 40 ms.
    fn ack(acked: u32, now: u64, sent: u64, rx: u64, in_flight: u32) -> AckInfo {
        AckInfo {
            acked,
            rtt: Some(Dur::from_micros(now - sent)),
            min_rtt: Some(Dur::from_millis(40)),
            in_flight,
            cwnd_limited: true,
            one_way_delay: Some(Dur::from_micros(rx - sent)),
            ..AckInfo::default()
        }
    }

    /// A back-to-back burst of `n` sent at `t0` reaches the receiver 20 ms later, one segment every
    /// `gap` µs, stamped by a receiver clock of granularity `q` µs; delayed ACKs (one per pair)
    /// echo the pair's first segment and return 20 ms after its second.
    fn burst(cc: &mut PropRate, t0: u64, n: u32, gap: u64, q: u64) {
        for i in 1..=n {
            cc.on_sent(us(t0), i);
        }
        for k in 0..u64::from(n / 2) {
            let (rx, now) = ((t0 + 20_000 + 2 * k * gap) / q * q, t0 + 40_000 + (2 * k + 1) * gap);
            cc.on_ack(us(now), &ack(2, now, t0, rx, n - 2 * (k as u32 + 1)));
        }
    }

    /// Default PropRate after a slow-start burst at ρ = RHO (t_buff at exit 9.6 ms < T).
    fn filled() -> PropRate {
        let mut cc = with(|_| {});
        burst(&mut cc, 0, 10, 1200, 1);
        cc
    }

    #[test]
    fn slow_start_takes_rho_from_the_burst_train_then_fills_at_k_f_rho() {
        let mut cc = with(|_| {});
        assert_eq!(
            (cc.state(), cc.window(), cc.pacing_rate()),
            (State::SlowStart, 10.0, None)
        );
        burst(&mut cc, 0, 10, 1200, 1);
        // Train: 8 segments after the first ACK over 9.6 ms of receiver time.
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), RHO) && close(cc.buffer_delay_ms().unwrap(), 9.6));
        // T = 40, RTT = 40, L_max = 100: 2T ≥ L_max − RTT → Eq. 7: k_f = 100/80, k_d = 60/80.
        assert!(close(cc.pacing_rate().unwrap(), 1.25 * WIRE));
        // 2 × BDP guard at the operating point: 2 · ρ · (40 + 40) ms / 1448 = 2 · 80/1.2 segments.
        assert!(close(cc.window(), 2.0 * 80.0 / 1.2));
        // The digest's reading, BDP = ρ · min RTT: 2 · 40/1.2 segments.
        let mut cc = with(|c| c.guard_target = false);
        burst(&mut cc, 0, 10, 1200, 1);
        assert!(close(cc.window(), 2.0 * 40.0 / 1.2));
        // With T = 5 ms the same exit ACK (t_buff 9.6 ≥ T) goes straight on to Drain.
        let mut cc = with(|c| c.target_ms = 5.0);
        burst(&mut cc, 0, 10, 1200, 1);
        assert_eq!(cc.state(), State::Drain);
    }

    #[test]
    fn slow_start_doubles_the_burst_until_it_yields_an_estimate() {
        let mut cc = with(|_| {});
        // A 10 ms receiver clock stamps the whole 1 ms burst alike: no estimate.
        burst(&mut cc, 0, 10, 100, 10_000);
        assert_eq!(
            (cc.state(), cc.window(), cc.receive_rate()),
            (State::SlowStart, 20.0, None)
        );
        burst(&mut cc, 50_000, 20, 1200, 1);
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), RHO), "18 segments over 21.6 ms");
    }

    #[test]
    fn fill_and_drain_switch_at_t_and_pace_at_k_times_rho() {
        let mut cc = filled();
        // One-way delay 60 ms over the 20 ms base: t_buff = 40 ≥ T.
        cc.on_ack(us(110_000), &ack(1, 110_000, 30_000, 90_000, 20));
        assert_eq!(cc.state(), State::Drain);
        assert!(close(cc.pacing_rate().unwrap(), 0.75 * WIRE));
        cc.on_ack(us(111_000), &ack(1, 111_000, 31_000, 90_999, 20));
        assert_eq!(cc.state(), State::Fill, "t_buff 39.999 < T");
        assert!(close(cc.pacing_rate().unwrap(), 1.25 * WIRE));
        assert_eq!(
            cc.threshold_ms(),
            40.0,
            "no feedback window completed (2 of 33.3 segments)"
        );
    }

    /// Drain (entered at 110 ms with 20 in flight), then RTT·ρ = 33.3 → 34 segments sent.
    fn monitoring(rebase: bool) -> PropRate {
        let mut cc = with(|c| c.monitor_rebase = rebase);
        burst(&mut cc, 0, 10, 1200, 1);
        cc.on_ack(us(110_000), &ack(1, 110_000, 30_000, 90_000, 20));
        for i in 1..=33 {
            cc.on_sent(us(120_000), 20 + i);
        }
        assert_eq!(cc.state(), State::Drain);
        cc.on_sent(us(120_000), 54);
        assert_eq!(cc.state(), State::Monitor);
        // The probe burst is unpaced and limited to 10 more segments (under the 133.3 guard).
        assert_eq!((cc.window(), cc.pacing_rate()), (64.0, None));
        for i in 1..=10 {
            cc.on_sent(us(150_000), 54 + i);
        }
        assert!(close(cc.window(), 2.0 * 80.0 / 1.2));
        assert!(close(cc.pacing_rate().unwrap(), 0.75 / 2.0 * WIRE), "σ_m = σ_d / 2");
        cc
    }

    /// The probe's 5 ACKs: one-way delay 70 ms (the base rose by 50 ms), `gap` µs per segment.
    fn answer_probe(cc: &mut PropRate, gap: u64) {
        for k in 0..5u64 {
            let rx = 150_000 + 70_000 + 2 * k * gap;
            cc.on_ack(
                us(rx + gap + 20_000),
                &ack(2, rx + gap + 20_000, 150_000, rx, 50 - 2 * k as u32),
            );
        }
    }

    #[test]
    fn monitor_with_a_faster_probe_takes_its_rate_resets_the_base_and_fills() {
        let mut cc = monitoring(true);
        answer_probe(&mut cc, 1000);
        // 8 segments over 8 ms = 1.448 MB/s ≥ ρ; RD_min := 70 ms, so t_buff = 78 − 70 = 8 < T.
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), 1.448e6) && close(cc.buffer_delay_ms().unwrap(), 8.0));
        assert!(close(cc.pacing_rate().unwrap(), 1.25 * 1.5e6));
        // Without the rebase the risen base keeps t_buff = 78 − 20 ≥ T: Fill, then at once Drain.
        let mut cc = monitoring(false);
        answer_probe(&mut cc, 1000);
        assert_eq!(cc.state(), State::Drain);
        assert!(close(cc.receive_rate().unwrap(), 1.448e6) && close(cc.buffer_delay_ms().unwrap(), 58.0));
    }

    #[test]
    fn monitor_with_a_slower_probe_returns_to_drain_keeping_rho() {
        let mut cc = monitoring(true);
        answer_probe(&mut cc, 2000);
        assert_eq!(cc.state(), State::Drain, "724 kB/s < ρ");
        assert!(close(cc.receive_rate().unwrap(), RHO));
        assert!(close(cc.buffer_delay_ms().unwrap(), 66.0), "RD_min still 20 ms");
        assert!(close(cc.pacing_rate().unwrap(), 0.75 * WIRE));
    }

    #[test]
    fn feedback_lowers_t_when_the_average_is_above_target_in_fill_unless_off() {
        for on in [true, false] {
            let mut cc = with(|c| c.feedback = on);
            burst(&mut cc, 0, 10, 1200, 1);
            // A whole BDP window (34 ≥ 33.3 segments): t_sample = t_actual = 50 > 40.
            cc.on_ack(us(110_000), &ack(34, 110_000, 30_000, 100_000, 0));
            assert_eq!(cc.average_buffer_delay_ms(), Some(50.0));
            let t = if on { 40.0 - 10f64.ln() } else { 40.0 };
            assert!(close(cc.threshold_ms(), t), "feedback {on}: {}", cc.threshold_ms());
            assert_eq!(cc.state(), State::Drain);
        }
    }

    #[test]
    fn feedback_raises_t_when_the_average_is_below_target_in_drain() {
        let mut cc = filled();
        cc.on_ack(us(110_000), &ack(34, 110_000, 30_000, 70_000, 0)); // t_actual = 20, Fill: no change
        assert_eq!(cc.threshold_ms(), 40.0);
        cc.on_ack(us(111_000), &ack(1, 111_000, 31_000, 92_000, 0)); // t_buff 41 → Drain
        assert_eq!(cc.state(), State::Drain);
        cc.on_ack(us(112_000), &ack(33, 112_000, 32_000, 93_000, 0)); // window: t_actual = 22.625
        assert!(close(cc.average_buffer_delay_ms().unwrap(), 22.625));
        assert!(close(cc.threshold_ms(), 40.0 + 17.375f64.ln()));
        assert_eq!(cc.state(), State::Fill, "t_buff 41 < T = 42.86");
    }

    #[test]
    fn guard_is_two_bdp_but_at_least_four_and_pacing_has_a_floor() {
        let mut cc = with(|_| {});
        burst(&mut cc, 0, 10, 100_000, 1); // ρ = 8 · 1448 / 0.8 s = 14 480 B/s
        assert!(close(cc.receive_rate().unwrap(), 14_480.0));
        assert_eq!(cc.state(), State::Drain, "t_buff 800 ms");
        assert_eq!(cc.window(), 4.0, "2 · 0.8 segments");
        assert_eq!(cc.pacing_rate(), Some(MIN_RATE), "0.75 · 15 000 B/s is under the floor");
        // guard_srtt (winning over the default guard_target): 2 · ρ · SRTT with SRTT 1 s = 20
        // segments (min RTT stays 40 ms for the rest).
        let mut cc = with(|c| c.guard_srtt = true);
        burst(&mut cc, 0, 10, 100_000, 1);
        cc.on_ack(
            us(2_000_000),
            &AckInfo {
                srtt: Some(Dur::from_secs(1)),
                ..ack(0, 2_000_000, 0, 20_000, 0)
            },
        );
        assert!(close(cc.window(), 20.0));
    }

    #[test]
    fn gains_follow_eqs_7_and_8() {
        let g = gains(40.0, 40.0, 100.0, KD_MIN);
        assert_eq!((g.regime, g.k_f, g.k_d), (Regime::Full, 1.25, 0.75));
        let g = gains(80.0, 20.0, 100.0, KD_MIN);
        assert_eq!((g.regime, g.k_f, g.k_d), (Regime::Full, 1.4, 0.6));
        // T = 20, RTT = 40, L_max = 120: U = 2^(−1/4), k_f = (40·2^(1/4) + 40)/60, D_max = 80·2^(−3/4),
        // t_f = 103.528, (1−U)/U = 2^(1/4) − 1, k_d = 11.4115 / 44.1959.
        let g = gains(20.0, 40.0, 120.0, KD_MIN);
        assert_eq!(g.regime, Regime::Emptied);
        assert!(close(g.u, 0.840_896_415_253_714_5) && close(g.k_f, 1.459_471_410_001_814));
        assert!(close(g.k_d, 0.258_201_927_560_341_16));
        // PR(L) at RTT = 20 ms: Eq. 8 gives k_d = −0.067, so the floor applies.
        assert_eq!(
            (gains(20.0, 20.0, 100.0, KD_MIN).k_d, gains(20.0, 20.0, 100.0, 0.05).k_d),
            (KD_MIN, 0.05)
        );
        assert_eq!(gains(20.0, 150.0, 100.0, KD_MIN).regime, Regime::Full, "RTT ≥ L_max");
    }

    #[test]
    fn presets_order_the_thresholds_and_regimes() {
        let t: Vec<f64> = ["proprate-l", "proprate-m", "proprate-h"]
            .iter()
            .map(|s| PropRate::new(PropRateConfig::preset(s).unwrap(), Time::ZERO).threshold_ms())
            .collect();
        assert_eq!(t, [20.0, 40.0, 80.0]);
        assert!(PropRateConfig::preset("proprate-x").is_none());
        // RTT 20 ms, L_max 100 ms: PR(L) empties the buffer, PR(M) sits on the crossover, PR(H) full.
        let regime = |t| gains(t, 20.0, 100.0, KD_MIN).regime;
        assert_eq!(
            [regime(20.0), regime(40.0), regime(80.0)],
            [Regime::Emptied, Regime::Full, Regime::Full]
        );
    }

    #[test]
    fn rate_window_spans_50_stamps_and_200_ms_capped_at_500_ms() {
        // One stamp per ms: 1 segment each up to 150 ms, then 3 each.
        let mut w = RateWindow::default();
        for i in 0..200 {
            assert_eq!(w.push(us(i * 1000), if i > 150 { 3 } else { 1 }), None, "{i} ms");
        }
        // At 200 ms the 200 ms bound (stamp 0) is older than the 50-stamp one (stamp 150):
        // 150 + 3 · 50 segments over 200 ms.
        assert!(close(w.push(us(200_000), 3).unwrap(), 300.0 * 1448.0 / 0.2));
        let mut w = RateWindow::default();
        for i in 0..=25 {
            assert_eq!(w.push(us(i * 20_000), 1), None, "26 stamps in 500 ms: not enough");
        }
        // At 520 ms the oldest stamp ages out: 500 ms cap, stamps 20..520 ms, 25 segments after the base.
        assert!(close(w.push(us(520_000), 1).unwrap(), 25.0 * 1448.0 / 0.5));
        assert_eq!(w.push(us(520_000), 3), None, "same stamp merges");
    }

    #[test]
    fn rho_is_an_ewma_of_the_window_rate() {
        let mut cc = filled();
        for i in 0..=201u64 {
            let rx = 100_000 + i * 1000;
            cc.on_ack(us(rx + 20_000), &ack(1, rx + 20_000, rx - 20_000, rx, 10));
            if i < 200 {
                assert!(close(cc.receive_rate().unwrap(), RHO), "window not complete at {i} ms");
            }
        }
        let r1 = RHO + (1.448e6 - RHO) / 8.0;
        assert!(close(cc.receive_rate().unwrap(), r1 + (1.448e6 - r1) / 8.0));
    }

    #[test]
    fn rto_restarts_slow_start_and_a_spurious_one_resumes_draining() {
        let mut cc = filled();
        cc.on_rto(us(500_000), 30);
        assert_eq!(
            (cc.state(), cc.window(), cc.pacing_rate()),
            (State::SlowStart, 10.0, None)
        );
        cc.on_spurious_rto(us(510_000));
        assert_eq!(cc.state(), State::Drain);
        assert!(close(cc.pacing_rate().unwrap(), 0.75 * WIRE));
        // A real RTO: the next burst re-estimates ρ.
        cc.on_rto(us(600_000), 30);
        burst(&mut cc, 600_000, 10, 2400, 1);
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), RHO / 2.0));
        cc.on_spurious_rto(us(700_000));
        assert_eq!(cc.state(), State::Fill, "undo only right after an RTO");
    }

    #[test]
    fn missing_or_extreme_inputs_do_not_panic() {
        let mut cc = with(|_| {});
        let (max, none) = (Some(Dur::MAX), AckInfo::default());
        let odd = AckInfo {
            acked: u32::MAX,
            rtt: max,
            min_rtt: max,
            one_way_delay: max,
            ..none
        };
        cc.on_sent(Time::MAX, u32::MAX);
        for now in [Time::ZERO, Time::MAX] {
            for a in [none, odd, AckInfo { acked: 1, ..none }] {
                cc.on_ack(now, &a);
            }
            cc.on_rto(now, 0);
            cc.on_spurious_rto(now);
        }
        assert!(cc.window() >= 1.0 && cc.window().is_finite());
        assert!(cc.pacing_rate().is_none_or(|r| r.is_finite() && r > 0.0) && cc.metrics().cwnd >= 1.0);
    }

    #[test]
    fn parameters_are_validated_by_key_and_unknown_keys_left() {
        for (k, v) in [
            ("target_ms", 0.0),
            ("lmax_ms", f64::NAN),
            ("feedback", 2.0),
            ("kd_min", 1.0),
        ] {
            let mut p = Params::from([(k.to_string(), v)]);
            match PropRateConfig::from_params(&mut p) {
                Err(Error::Param { key, msg }) => assert!(key == format!("proprate.{k}") && msg.contains("expected")),
                other => panic!("{k} = {v} accepted: {other:?}"),
            }
        }
        let mut p = Params::from([("target_ms".into(), 20.0), ("feedback".into(), 0.0), ("x".into(), 1.0)]);
        let cfg = PropRateConfig::from_params(&mut p).unwrap();
        assert_eq!((cfg.target_ms, cfg.feedback, cfg.lmax_ms), (20.0, false, 100.0));
        assert_eq!(p.keys().collect::<Vec<_>>(), ["x"]);
        assert_eq!(PropRate::new(cfg, Time::ZERO).name(), "proprate");
    }

    #[test]
    fn the_preset_rows_have_their_own_names_targets_and_colours() {
        // PropRate paper §5: PR(L/M/H) are targets of 20/40/80 ms; each row says so in the catalog.
        for (row, name, display, letter, target, colour) in [
            (&PROPRATE_L, "proprate-l", "PropRate(L)", 'L', 20.0, "#637939"),
            (&PROPRATE_M, "proprate-m", "PropRate(M)", 'M', 40.0, "#8ca252"),
            (&PROPRATE_H, "proprate-h", "PropRate(H)", 'H', 80.0, "#b5cf6b"),
        ] {
            assert_eq!((row.name, row.display, row.family), (name, display, "proprate"));
            assert_eq!(
                row.summary,
                format!("PropRate preset {letter}: target buffer delay {target} ms")
            );
            assert_eq!(row.preset, [("target_ms", target)]);
            assert_eq!(row.style, (colour, "p"));
            assert_eq!(PropRateConfig::preset(name).unwrap().target_ms, target);
        }
        assert_eq!((PROPRATE.display, PROPRATE.summary), ("PropRate", "PropRate, target buffer delay 40 ms"));
    }

    #[test]
    fn config_metrics_and_single_packet_dispatch() {
        let cfg = PropRateConfig {
            target_ms: 25.0,
            ..PropRateConfig::default()
        };
        let cc = PropRate::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        assert_eq!(cc.pacing_min_burst(), 1, "§4: single packets from a timer");
        let cc = filled();
        let m = cc.metrics();
        assert_eq!((m.cwnd, m.pacing_rate, m.ssthresh), (cc.window(), cc.pacing_rate(), None));
        assert!(close(m.pacing_rate.unwrap(), 1.25 * WIRE) && close(m.cwnd, 2.0 * 80.0 / 1.2));
    }

    #[test]
    fn rate_window_boundaries_exactly_500_ms_old_and_a_single_stamp() {
        // §4.2's 500 ms cap drops only stamps *more* than 500 ms older than the newest: at 500 ms
        // the stamp at 0 still bounds the window (51 segments over 0.5 s), not the 50-stamp one.
        let mut w = RateWindow::default();
        w.push(us(0), 1);
        for i in 0..50 {
            w.push(us(450_000 + i * 1000), 1);
        }
        assert!(close(w.push(us(500_000), 1).unwrap(), 51.0 * 1448.0 / 0.5));
        // After the cap dropped every older stamp, one stamp spans no time: no rate.
        let mut w = RateWindow::default();
        w.push(us(0), 1);
        assert_eq!(w.push(us(600_000), 1), None);
    }

    #[test]
    fn a_probe_ends_when_all_of_it_is_acked_and_has_not_begun_before_its_first_segment() {
        // Slow start with 5 more segments in flight than the burst (say, retransmissions): the
        // burst is complete at the ACK that covers its 10th segment, not when the pipe empties.
        let mut cc = with(|_| {});
        for i in 1..=10 {
            cc.on_sent(us(0), i + 5);
        }
        for k in 0..4u64 {
            let (rx, now) = (20_000 + 2 * k * 1200, 40_000 + (2 * k + 1) * 1200);
            cc.on_ack(us(now), &ack(2, now, 0, rx, 5 + 10 - 2 * (k as u32 + 1)));
            assert_eq!(cc.state(), State::SlowStart, "ACK {k}");
        }
        cc.on_ack(us(40_000 + 9 * 1200), &ack(2, 40_000 + 9 * 1200, 0, 20_000 + 8 * 1200, 5));
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), RHO));
        // Monitor entered (RTT·ρ = 33.3 → 34 segments sent in Drain), and an ACK of Drain data
        // arrives before the probe's first segment: the probe has not begun, so it is not over.
        let mut cc = filled();
        cc.on_ack(us(110_000), &ack(1, 110_000, 30_000, 90_000, 20));
        for i in 1..=34 {
            cc.on_sent(us(120_000), 20 + i);
        }
        assert_eq!(cc.state(), State::Monitor);
        cc.on_ack(us(121_000), &ack(1, 121_000, 81_000, 141_000, 53));
        assert_eq!((cc.state(), cc.window(), cc.pacing_rate()), (State::Monitor, 63.0, None));
    }

    #[test]
    fn drain_holds_at_t_buff_equal_to_t_and_a_bdp_window_of_exactly_bdp_segments_feeds_back() {
        // §4.1: Drain until t_buff < T; at t_buff = T (40 ms) it stays.
        let mut cc = filled();
        cc.on_ack(us(110_000), &ack(1, 110_000, 30_000, 90_000, 20));
        assert_eq!(cc.state(), State::Drain);
        cc.on_ack(us(111_000), &ack(1, 111_000, 31_000, 91_000, 20));
        assert_eq!(cc.state(), State::Drain, "t_buff 40 = T is not below T");
        // §3.2: one t_sample per BDP window of ACKed segments. ρ = 8 · 1448 B / 8 ms and min RTT
        // 40 ms: BDP = 40 segments exactly; the 40th ACKed segment completes the window.
        let mut cc = with(|_| {});
        burst(&mut cc, 0, 10, 1000, 1);
        assert_eq!((cc.state(), cc.bdp()), (State::Fill, Some(40.0)));
        cc.on_ack(us(100_000), &ack(39, 100_000, 60_000, 90_000, 10));
        assert_eq!(cc.average_buffer_delay_ms(), None);
        cc.on_ack(us(101_000), &ack(1, 101_000, 61_000, 91_000, 10));
        assert_eq!(cc.average_buffer_delay_ms(), Some(10.0), "t_sample = t_buff = 30 − 20 ms");
    }

    #[test]
    fn rate_window_reaches_back_exactly_50_stamps_when_they_span_more_than_200_ms() {
        // One stamp every 5 ms, 1 segment each, the last 5 stamps 5 segments: at 295 ms the
        // 50th stamp before the newest (45 ms, cumulative 10) is older than the 200 ms bound
        // (95 ms), so the window is 45..295 ms: (80 − 10) segments over 0.25 s.
        let mut w = RateWindow::default();
        let mut last = None;
        for i in 0..60u64 {
            last = w.push(us(i * 5000), if i < 55 { 1 } else { 5 });
        }
        assert!(close(last.unwrap(), 70.0 * 1448.0 / 0.25), "{last:?}");
    }

    #[test]
    fn a_probe_counts_only_acks_of_its_own_segments() {
        // An ACK of Drain data sent before the probe (120 ms) arriving during it is not the
        // probe's: the train is still the probe's 8 ms, 1.448 MB/s ≥ ρ → Fill.
        let mut cc = monitoring(true);
        cc.on_ack(us(200_000), &ack(1, 200_000, 120_000, 190_000, 50));
        assert_eq!(cc.state(), State::Monitor);
        answer_probe(&mut cc, 1000);
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), 1.448e6));
        // A segment sent after the probe (at σ_m, 160 ms) is not part of it, and its ACK ends the
        // probe without counting: 3 of its ACKs give 4 segments after the first over 4 ms =
        // 1.448 MB/s.
        let mut cc = monitoring(true);
        cc.on_sent(us(160_000), 51);
        for k in 0..3u64 {
            let rx = 220_000 + 2 * k * 1000;
            cc.on_ack(us(rx + 21_000), &ack(2, rx + 21_000, 150_000, rx, 50 - 2 * k as u32));
        }
        assert_eq!(cc.state(), State::Monitor);
        cc.on_ack(us(260_000), &ack(2, 260_000, 160_000, 240_000, 40));
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), 1.448e6));
    }

    #[test]
    fn a_probe_ends_when_nothing_is_left_in_flight() {
        // Slow start: the 5th pair of the burst is lost (the 4th ACK reports an empty pipe); the
        // 3 ACKs after the first give 6 segments over 7.2 ms = ρ.
        let mut cc = with(|_| {});
        for i in 1..=10 {
            cc.on_sent(us(0), i);
        }
        for k in 0..4u64 {
            let (rx, now) = (20_000 + 2 * k * 1200, 40_000 + (2 * k + 1) * 1200);
            let in_flight = if k == 3 { 0 } else { 10 - 2 * (k as u32 + 1) };
            cc.on_ack(us(now), &ack(2, now, 0, rx, in_flight));
        }
        assert_eq!(cc.state(), State::Fill);
        assert!(close(cc.receive_rate().unwrap(), RHO));
    }

    #[test]
    fn only_acks_that_deliver_data_end_a_probe_or_a_bdp_window() {
        // Slow start: the whole burst is marked lost (pipe 0) by a duplicate ACK. It delivered
        // nothing, so it does not end the burst (no doubling); the window is the empty pipe.
        let mut cc = with(|_| {});
        for i in 1..=10 {
            cc.on_sent(us(0), i);
        }
        let dup = AckInfo {
            acked: 0,
            ..ack(0, 40_000, 0, 20_000, 0)
        };
        cc.on_ack(us(40_000), &dup);
        assert_eq!((cc.state(), cc.window()), (State::SlowStart, 1.0));
        // Fill with BDP 40 and 39 segments of the window ACKed; a duplicate ACK lowers the min RTT
        // to 20 ms (BDP 20 < 39) but completes no window; the next delivering ACK does.
        let mut cc = with(|_| {});
        burst(&mut cc, 0, 10, 1000, 1);
        cc.on_ack(us(100_000), &ack(39, 100_000, 60_000, 90_000, 10));
        let lower = |a: AckInfo| AckInfo {
            min_rtt: Some(Dur::from_millis(20)),
            ..a
        };
        cc.on_ack(us(101_000), &lower(ack(0, 101_000, 61_000, 91_000, 10)));
        assert_eq!((cc.bdp(), cc.average_buffer_delay_ms()), (Some(20.0), None));
        cc.on_ack(us(102_000), &lower(ack(1, 102_000, 62_000, 92_000, 10)));
        assert_eq!(cc.average_buffer_delay_ms(), Some(10.0));
    }
}
