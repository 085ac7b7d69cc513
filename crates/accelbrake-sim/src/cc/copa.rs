//! Copa (Arun & Balakrishnan, NSDI 2018), following the authors' code `venkatarun95/genericCC`
//! (`markoviancc.cc`, `rtt-window.cc`, `estimators.cc`, `ctcp.hh`) in the configuration the paper
//! and the ABC evaluation used, `do_ss:auto:0.5`. Digest: `shared/reference/algorithms.md` §4.
//!
//! Per RTT sample (`RTTWindow::new_rtt_sample`): `srtt` (EWMA, 1/16), `RTTmin` = windowed
//! minimum over `max(10 s, 20·RTTmin)`, `RTTstanding` = minimum over `min(that, srtt/2)`, and the
//! minimum and maximum over `min(that, 4·srtt)` for the mode switch. Queueing delay
//! `dq = RTTstanding − RTTmin`; target rate `λt = 1/(δ·dq)`, i.e. target window
//! `RTTstanding/(δ·dq)` (∞ when dq = 0).
//!
//! Per ACK, after 19 ACKs of probing (`2·num_probe_pkts − 1`; the initial window is 10):
//! - slow start (code `do_ss`, paper §2.1): `cwnd += 1` per ACK until `cwnd ≥ target`;
//! - then `cwnd ± v/(δ·cwnd)`: up if `cwnd/RTTstanding ≤ λt` (paper §2.1), else down;
//! - velocity `v` (paper §2.2): once per RTT (code: `now > last update + latest RTT`), if the net
//!   direction of the per-ACK steps in the past RTT equals the previous direction, the
//!   direction's streak grows and `v` doubles (`2·floor(v)`) once the streak reaches
//!   `velocity_rtts` RTTs; otherwise `v = 1` and the direction flips. Per ACK `v` is halved if
//!   `v > δ·cwnd` and floored at 1 (code);
//! - `cwnd ≥ 2`; pacing at `2·cwnd/RTTstanding` (paper §2.1; code `intersend = 0.5·RTT/cwnd`).
//!
//! Mode switch (code `is_copa`, `update_delta`; paper §2.3): "Copa-only" (default mode, δ = 0.5)
//! if the minimum RTT over the last `4·srtt` is within 10 % of the way from RTTmin to the maximum
//! RTT over that window, i.e. the queue nearly emptied; otherwise competitive mode: `1/δ += 1`
//! once per RTT, `δ ×= 2` on a loss (at most once per RTT), `δ ≤ 0.5`.
//!
//! Losses and timeouts (code): `ReduceOnLoss` — every 2 RTTs once more than 20 packets were
//! counted, `cwnd ×= 0.7` if more than 30 % of them were lost; no other window reaction to
//! loss (the transport's recovery still retransmits). `onTimeout` is empty; the genericCC sender
//! re-initialises Copa (`init()`) after 2 s without an ACK, which [`Copa::on_rto`] mirrors.
//!
//! Paper vs code, and what is used here:
//! - Velocity doubling: genericCC doubles at the first RTT that confirms a new direction
//!   (`velocity_rtts = 2`, the default: the ABC paper ran genericCC); the paper doubles only
//!   after the direction has been the same for 3 RTTs (`velocity_rtts = 3`). With 3 the smaller
//!   oscillation often keeps the queue from emptying and Copa locks into competitive mode
//!   (measured over 12 Mbit/s: one flow at 20 ms RTT, three flows at 50 ms; with 2 only several
//!   flows at 20 ms RTT do). The code's cap `v ≤ δ·cwnd` is used either way.
//! - Direction: the paper compares cwnd with its value one RTT earlier; the code (used) counts
//!   up and down steps over the RTT.
//! - Increase test: paper `λ ≤ λt` (used); the code increases only if `cwnd < target` (ties go
//!   down; they only occur with exact float equality).
//! - Loss in competitive mode: the code doubles δ on every ACK that reveals a loss (it passes
//!   an RTT of 0 to `update_delta`); the digest's and paper's once per RTT is used.
//!
//! Deviations:
//! - `is_copa` uses `≤` where the code has `<`: with the deterministic simulator's jitter-free
//!   RTTs an empty queue gives min = max = RTTmin, which the code's strict test would call
//!   competitive traffic.
//! - Byte counting: an ACK for `n` segments counts as `n` of genericCC's per-packet ACKs (one
//!   step of `n·v/(δ·cwnd)`, `n` in the direction count, `+n` in slow start, `n` probe ACKs).
//! - Window growth needs `AckInfo::cwnd_limited` (genericCC grows without bound when idle).
//! - Leaving slow start starts velocity afresh (`v = 1`, direction up, a new RTT period); the
//!   code's first period after slow start inherits stale counters and starts at `v = 2`.
//! - Losses are the transport's (`AckInfo::lost`, RFC 6675), not genericCC's sequence gaps; an
//!   ACK delivering `n` segments and revealing `l` losses counts `n + l` packets in
//!   `ReduceOnLoss`, evaluated once per ACK. ECN marks are ignored (Copa is not ECN-capable).
//! - Pacing counts wire bytes: `2·cwnd·MTU/RTTstanding` (genericCC's packets are 1440 bytes).
//! - The windowed filters also drop samples equal to a newer one (same extreme, bounded memory).
//! - The RTO re-initialisation needs 2 s since the last ACK at the time an RTO fires (RTOs are
//!   the only timer a controller sees); a full re-init also forgets RTTmin, as `init()` does.
//!
//! Transport framing (genericCC `ctcp.hh`, `receiver.cc`; the ABC paper §7 ran "the UDP
//! implementations provided by the authors"), against the simulator's TCP-like transport:
//! - ACKs: genericCC's receiver ACKs every packet. The flow setting `flows[].delayed_ack = false`
//!   gives that; the ABC cellular reproductions set it for Copa (`reproduce.py`
//!   `COPA_PER_PACKET_ACKS`); elsewhere Copa gets the default delayed ACKs.
//! - Packets: genericCC sends 1440-byte UDP datagrams (1468 B IP, 1472 B in a Mahimahi
//!   1504-byte opportunity, ≤ 97.9 % byte utilisation); here every data packet is `MTU` bytes.
//! - Window and losses: genericCC sends while `seq < largest ACKed + 1 + cwnd` and never
//!   retransmits; here the window bounds the RFC 6675 pipe and lost segments are retransmitted.

use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::packet::MTU;
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Default δ (genericCC `default_delta = 0.5`, config `auto:0.5`; paper §2.1).
pub const DEFAULT_DELTA: f64 = 0.5;
/// Initial window, packets (genericCC `num_probe_pkts = 10`).
pub const INITIAL_WINDOW: f64 = 10.0;
/// ACKs before the first window update (genericCC `update_intersend_time`: `2·num_probe_pkts − 1`).
pub const PROBE_ACKS: u64 = 19;
/// Smallest window (genericCC `_the_window = max(2.0, _the_window)`).
pub const MIN_WINDOW: f64 = 2.0;
/// Smallest RTTmin window (genericCC `rtt-window.cc`: `max(10e3 ms, 20·min_rtt)`).
pub const MIN_RTT_WINDOW: Dur = Dur::from_secs(10);
/// RTTmin window in multiples of RTTmin (genericCC `rtt-window.cc`).
pub const MIN_RTT_WINDOW_RTTS: u64 = 20;
/// srtt EWMA gain (genericCC `RTTWindow::srtt_alpha = 1/16`).
pub const SRTT_GAIN: f64 = 1.0 / 16.0;
/// Mode-switch window in srtts (genericCC `is_copa_min/max` windows `4·srtt`; paper: 5 RTTs).
pub const MODE_WINDOW_SRTTS: f64 = 4.0;
/// "Queue nearly empty" threshold as a fraction of the window's RTT range (genericCC `is_copa`
/// `0.1`; paper §2.3 "10 %").
pub const EMPTY_QUEUE_FRACTION: f64 = 0.1;
/// `ReduceOnLoss`: evaluate every this many RTTs (genericCC `estimators.cc`).
pub const LOSS_PERIOD_RTTS: u64 = 2;
/// `ReduceOnLoss`: evaluate only after more than this many packets (genericCC).
pub const LOSS_MIN_PACKETS: u64 = 20;
/// `ReduceOnLoss`: loss rate that triggers the reduction (genericCC `0.3`).
pub const LOSS_RATE_THRESHOLD: f64 = 0.3;
/// `ReduceOnLoss`: multiplicative decrease (genericCC `markoviancc.cc` `_the_window *= 0.7`).
pub const LOSS_DECREASE: f64 = 0.7;
/// ACK silence after which the sender re-initialises Copa (genericCC `ctcp.hh`
/// `cur_time - last_ack_time > 2000` ms).
pub const RESTART_SILENCE: Dur = Dur::from_secs(2);

/// Copa parameters. (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct CopaConfig {
    /// `delta`: δ in default mode and the cap in competitive mode, in (0, 1]. Default 0.5.
    pub delta: f64,
    /// `competitive`: switch to competitive mode when the queue does not empty (genericCC
    /// `auto`). Default on; off = constant δ.
    pub competitive: bool,
    /// `velocity_rtts`: completed RTTs in the same direction, counting the one in which it
    /// changed, after which `v` doubles once per RTT. Default 2 (genericCC: it doubles at the
    /// first RTT that confirms a new direction); the paper (§2.2) says 3.
    pub velocity_rtts: u32,
    /// `initial_window`: initial window in packets, ≥ 2. Default 10 (genericCC).
    pub initial_window: f64,
    /// `pacing_gain`: pacing rate over `cwnd/RTTstanding`; 0 disables pacing. Default 2.
    pub pacing_gain: f64,
}

/// Copa's parameters (keys `copa.<name>`).
pub const PARAMS: &[Param] = &[
    Param::real("delta", DEFAULT_DELTA, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("δ in default mode, its cap in competitive mode", "Copa paper (NSDI 2018) §2; genericCC"),
    Param::flag("competitive", true)
        .doc("switch to competitive mode when the queue does not empty (off: constant δ)", "Copa paper §2.2; genericCC 'auto'"),
    Param::whole("velocity_rtts", 2, Unit::None, 1, 1000)
        .doc("RTTs in one direction before the velocity doubles (paper §2.2 says 3)", "genericCC reference code"),
    Param::real("initial_window", INITIAL_WINDOW, Unit::Packets, MIN_WINDOW, 1e6)
        .doc("initial window", "genericCC"),
    Param::real("pacing_gain", 2.0, Unit::None, 0.0, 100.0)
        .doc("pacing rate over cwnd/RTTstanding (0: no pacing)", "Copa paper §2.1 (pace at 2·cwnd/RTT)"),
];

/// Copa over drop-tail.
pub const COPA: Scheme = Scheme {
    name: "copa",
    display: "Copa",
    family: "copa",
    summary: "Copa (δ = 0.5, competitive mode)",
    source: "Arun & Balakrishnan, NSDI 2018; genericCC reference code",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#ee3377", "D"),
    build: |v, now, _rng| Ok(Box::new(Copa::new(CopaConfig::checked(v)?, now))),
    warnings: None,
};

crate::default_from_table!(CopaConfig);

impl Config for CopaConfig {
    const PREFIX: &'static str = "copa";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> CopaConfig {
        CopaConfig {
            delta: v.real("delta"),
            competitive: v.flag("competitive"),
            velocity_rtts: v.whole("velocity_rtts"),
            initial_window: v.real("initial_window"),
            pacing_gain: v.real("pacing_gain"),
        }
    }
}

/// Windowed minimum or maximum over time (genericCC `ExtremeWindow`): a monotone deque; samples
/// older than `max_time` are dropped, except that the newest is always kept.
#[derive(Clone, Debug)]
struct ExtremeWindow {
    find_min: bool,
    max_time: Dur,
    vals: VecDeque<(Time, Dur)>,
}

impl ExtremeWindow {
    fn new(find_min: bool) -> ExtremeWindow {
        ExtremeWindow {
            find_min,
            max_time: MIN_RTT_WINDOW,
            vals: VecDeque::new(),
        }
    }

    fn new_sample(&mut self, v: Dur, now: Time) {
        while let Some(&(_, back)) = self.vals.back() {
            // The code pops only strictly worse samples; popping equal ones too gives the same
            // extreme at all times and bounds the deque when the RTT is constant.
            if (self.find_min && back >= v) || (!self.find_min && back <= v) {
                self.vals.pop_back();
            } else {
                break;
            }
        }
        self.vals.push_back((now, v));
        // `vals.front().first < now - max_time`, keeping at least one sample.
        while self.vals.len() > 1 && self.vals.front().is_some_and(|&(t, _)| t + self.max_time < now) {
            self.vals.pop_front();
        }
    }

    fn get(&self) -> Option<Dur> {
        self.vals.front().map(|&(_, v)| v)
    }
}

/// Copa sender (window in fractional packets).
#[derive(Clone, Debug)]
pub struct Copa {
    cfg: CopaConfig,
    cwnd: f64,
    /// Current δ.
    delta: f64,
    /// Competitive (genericCC `LOSS_SENSITIVE_MODE`) rather than default mode.
    competitive: bool,
    /// genericCC `slow_start`.
    slow_start: bool,
    /// Segments ACKed since (re)initialisation (`num_pkts_acked`).
    acked_total: u64,
    /// Smoothed RTT, seconds (α = 1/16).
    srtt: Option<f64>,
    /// Latest RTT sample.
    latest_rtt: Dur,
    min_rtt: ExtremeWindow,
    standing_rtt: ExtremeWindow,
    mode_min: ExtremeWindow,
    mode_max: ExtremeWindow,
    /// Velocity `v` (`update_amt`).
    velocity: f64,
    /// Previous direction, +1 or −1 (`prev_update_dir`).
    prev_dir: i8,
    /// Completed RTT periods in the current direction, including the one in which it changed.
    streak: u32,
    /// Net up (+) minus down (−) steps in the current period (`update_dir`).
    net_steps: i64,
    /// Start of the current velocity period (`last_update_time`).
    last_update: Time,
    /// Last δ increase in competitive mode / last default-mode reset (`prev_delta_update_time`).
    prev_delta_update: Option<Time>,
    /// Last loss-driven δ doubling (`prev_delta_update_time_loss`).
    prev_delta_loss: Option<Time>,
    /// `ReduceOnLoss` counters: lost, counted, start of the period.
    rol: (u64, u64, Time),
    /// RTTstanding at the last window update, seconds (pacing; `None` before the first update).
    pacing_rtt: Option<f64>,
    /// Last ACK arrival.
    last_ack: Time,
}

impl Copa {
    /// A controller at the start of a connection (genericCC `init()`); `now` starts the clocks
    /// for the ACK-silence restart.
    pub fn new(cfg: CopaConfig, now: Time) -> Copa {
        Copa {
            cwnd: cfg.initial_window,
            delta: cfg.delta,
            competitive: false,
            slow_start: true,
            acked_total: 0,
            srtt: None,
            latest_rtt: Dur::ZERO,
            min_rtt: ExtremeWindow::new(true),
            standing_rtt: ExtremeWindow::new(true),
            mode_min: ExtremeWindow::new(true),
            mode_max: ExtremeWindow::new(false),
            velocity: 1.0,
            prev_dir: 1,
            streak: 0,
            net_steps: 0,
            last_update: now,
            prev_delta_update: None,
            prev_delta_loss: None,
            rol: (0, 0, now),
            pacing_rtt: None,
            last_ack: now,
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &CopaConfig {
        &self.cfg
    }

    /// Current δ.
    pub fn delta(&self) -> f64 {
        self.delta
    }

    /// Current velocity `v`.
    pub fn velocity(&self) -> f64 {
        self.velocity
    }

    /// Whether Copa is in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }

    /// Whether Copa is in competitive mode (the queue did not nearly empty in the last 4·srtt).
    pub fn is_competitive(&self) -> bool {
        self.competitive
    }

    /// RTTstanding (minimum RTT over the last srtt/2).
    pub fn standing_rtt(&self) -> Option<Dur> {
        self.standing_rtt.get()
    }

    /// RTTmin (minimum RTT over the last max(10 s, 20·RTTmin)).
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt.get()
    }

    /// Target window `RTTstanding/(δ·dq)` in packets; infinite while dq = 0, `None` before the
    /// first RTT sample.
    pub fn target_window(&self) -> Option<f64> {
        let standing = self.standing_rtt.get()?;
        let dq = standing - self.min_rtt.get()?;
        if dq == Dur::ZERO {
            return Some(f64::INFINITY);
        }
        Some(standing.secs_f64() / (self.delta * dq.secs_f64()))
    }

    /// `RTTWindow::new_rtt_sample`.
    fn rtt_sample(&mut self, rtt: Dur, now: Time) {
        let s = rtt.secs_f64();
        let srtt = self.srtt.map_or(s, |old| SRTT_GAIN * s + (1.0 - SRTT_GAIN) * old);
        self.srtt = Some(srtt);
        self.latest_rtt = rtt;
        let long = self
            .min_rtt
            .get()
            .map_or(Dur::MAX, |m| MIN_RTT_WINDOW.max(m.saturating_mul(MIN_RTT_WINDOW_RTTS)));
        let srtt = Dur::from_secs_f64(srtt);
        self.min_rtt.max_time = long;
        self.standing_rtt.max_time = long.min(Dur(srtt.0 / 2));
        let mode = long.min(Dur::from_secs_f64(srtt.secs_f64() * MODE_WINDOW_SRTTS));
        self.mode_min.max_time = mode;
        self.mode_max.max_time = mode;
        for w in [
            &mut self.min_rtt,
            &mut self.standing_rtt,
            &mut self.mode_min,
            &mut self.mode_max,
        ] {
            w.new_sample(rtt, now);
        }
    }

    /// genericCC `RTTWindow::is_copa` (with `≤`, see the module doc).
    fn queue_emptied(&self) -> bool {
        match (self.min_rtt.get(), self.mode_min.get(), self.mode_max.get()) {
            (Some(min), Some(lo), Some(hi)) => {
                let threshold = min.secs_f64() + EMPTY_QUEUE_FRACTION * (hi.secs_f64() - min.secs_f64());
                lo.secs_f64() <= threshold
            }
            _ => true,
        }
    }

    /// genericCC `update_delta` (AUTO mode) for an ACK at `now` with RTT `rtt`; `loss` if the
    /// ACK revealed a loss.
    fn update_delta(&mut self, now: Time, rtt: Dur, loss: bool) {
        let default = self.cfg.delta;
        if !self.cfg.competitive {
            self.delta = default;
            return;
        }
        self.competitive = !self.queue_emptied();
        let elapsed = |t: Option<Time>| t.is_none_or(|t| t + rtt < now);
        if !self.competitive {
            if self.prev_delta_update.is_none() || elapsed(self.prev_delta_loss) {
                self.delta = default;
                self.prev_delta_update = Some(now);
            }
            return;
        }
        if self.prev_delta_update.is_none() {
            self.delta = default;
        }
        if loss && elapsed(self.prev_delta_loss) {
            // Multiplicative decrease of 1/δ, at most once per RTT (digest; paper §2.3).
            self.delta *= 2.0;
            self.prev_delta_loss = Some(now);
        } else if elapsed(self.prev_delta_update) {
            // Additive increase of 1/δ by one per RTT.
            self.delta = 1.0 / (1.0 / self.delta + 1.0);
            self.prev_delta_update = Some(now);
        }
        self.delta = self.delta.min(default);
    }

    /// genericCC `update_intersend_time` for `n` ACKed segments.
    fn update_window(&mut self, now: Time, n: u32, cwnd_limited: bool) {
        let (Some(target), Some(standing)) = (self.target_window(), self.standing_rtt.get()) else {
            return;
        };
        let n_f = f64::from(n);
        if self.slow_start {
            if cwnd_limited {
                self.cwnd += n_f;
            }
            if self.cwnd >= target {
                self.slow_start = false;
                // Velocity starts afresh (see the module doc).
                self.velocity = 1.0;
                self.prev_dir = 1;
                self.streak = 0;
                self.net_steps = 0;
                self.last_update = now;
            }
        } else {
            if self.last_update + self.latest_rtt < now {
                if i64::from(self.prev_dir) * self.net_steps > 0 {
                    self.streak = self.streak.saturating_add(1);
                    if self.streak >= self.cfg.velocity_rtts {
                        self.velocity = 2.0 * self.velocity.floor();
                    }
                } else {
                    self.velocity = 1.0;
                    self.prev_dir = -self.prev_dir;
                    self.streak = 1;
                }
                self.last_update = now;
                self.net_steps = 0;
            }
            if self.velocity > self.cwnd * self.delta {
                self.velocity /= 2.0;
            }
            self.velocity = self.velocity.max(1.0);
            // Paper §2.1: increase if the current rate cwnd/RTTstanding ≤ λt.
            let step = n_f * self.velocity / (self.delta * self.cwnd);
            if self.cwnd <= target {
                self.net_steps = self.net_steps.saturating_add(i64::from(n));
                if cwnd_limited {
                    self.cwnd += step;
                }
            } else {
                self.net_steps = self.net_steps.saturating_sub(i64::from(n));
                self.cwnd -= step;
            }
        }
        self.cwnd = self.cwnd.max(MIN_WINDOW);
        if self.cwnd.is_finite() {
            self.pacing_rtt = Some(standing.secs_f64());
        } else {
            self.cwnd = self.cfg.initial_window;
        }
    }

    /// `ReduceOnLoss::update` for one ACK: `lost` newly lost and `acked` delivered segments.
    fn reduce_on_loss(&mut self, now: Time, lost: u32, acked: u32) -> bool {
        let (l, p, since) = &mut self.rol;
        *l += u64::from(lost);
        *p += u64::from(lost) + u64::from(acked);
        if now > *since + self.latest_rtt.saturating_mul(LOSS_PERIOD_RTTS) && *p > LOSS_MIN_PACKETS {
            let rate = *l as f64 / *p as f64;
            *since = now;
            *l = 0;
            *p = 0;
            return rate > LOSS_RATE_THRESHOLD;
        }
        false
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        "copa"
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    /// `gain · cwnd · MTU / RTTstanding` (paper §2.1: 2·cwnd/RTTstanding).
    fn pacing_rate(&self) -> Option<f64> {
        let rtt = self.pacing_rtt?;
        (self.cfg.pacing_gain > 0.0 && rtt > 0.0).then(|| self.cfg.pacing_gain * self.cwnd * f64::from(MTU) / rtt)
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.last_ack = now;
        let n = ack.acked;
        // genericCC onACK: RTT filters, update_delta(false), update_intersend_time, then the
        // losses this ACK revealed: update_delta(true) and ReduceOnLoss.
        if let Some(rtt) = ack.rtt.filter(|_| n > 0) {
            self.rtt_sample(rtt, now);
            self.update_delta(now, rtt, false);
            if self.acked_total >= PROBE_ACKS {
                self.update_window(now, n, ack.cwnd_limited);
            }
        }
        if ack.lost > 0 && self.srtt.is_some() {
            self.update_delta(now, self.latest_rtt, true);
        }
        if self.reduce_on_loss(now, ack.lost, n) {
            self.cwnd = (self.cwnd * LOSS_DECREASE).max(MIN_WINDOW);
        }
        self.acked_total = self.acked_total.saturating_add(u64::from(n));
    }

    /// Copa has no per-event loss reaction (genericCC `onDupACK` is empty); losses act through
    /// `AckInfo::lost` (δ in competitive mode, `ReduceOnLoss`). ECN is not used.
    fn on_congestion_event(&mut self, _now: Time, _kind: CongestionKind, _in_flight: u32) {}

    /// genericCC `onTimeout` is empty; its sender re-runs `init()` after 2 s without ACKs.
    fn on_rto(&mut self, now: Time, _in_flight: u32) {
        if now.saturating_since(self.last_ack) >= RESTART_SILENCE {
            *self = Copa::new(self.cfg.clone(), now);
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

    const MS: Dur = Dur::from_millis(1);
    const R100: Dur = Dur::from_millis(100);

    fn copa(cfg: CopaConfig) -> Copa {
        Copa::new(cfg, Time::ZERO)
    }

    fn constant_delta() -> CopaConfig {
        CopaConfig {
            competitive: false,
            ..CopaConfig::default()
        }
    }

    fn ack(rtt: Dur) -> AckInfo {
        ack_of(rtt, 0, true)
    }

    /// One segment ACKed with RTT `rtt`, `lost` segments newly marked lost.
    fn ack_of(rtt: Dur, lost: u32, cwnd_limited: bool) -> AckInfo {
        AckInfo {
            acked: 1,
            rtt: Some(rtt),
            lost,
            cwnd_limited,
            ..AckInfo::default()
        }
    }

    /// The 19 probe ACKs, 1 ms apart from t = 100 ms, all with RTT 100 ms. Returns the time of
    /// the last one.
    fn probe(cc: &mut Copa) -> Time {
        let mut now = Time::from_millis(100);
        for i in 0..PROBE_ACKS {
            now = Time::from_millis(100 + i);
            cc.on_ack(now, &ack(R100));
        }
        now
    }

    /// An ACK clock: from `now` to `until`, ACKs spaced `rtt / cwnd` apart, each with RTT `rtt`.
    fn clock(cc: &mut Copa, mut now: Time, until: Time, rtt: Dur, mut each: impl FnMut(Time, &Copa)) -> Time {
        while now < until {
            assert!(cc.window() < 1e4, "window ran away at {now}: {cc:?}");
            now += Dur((rtt.0 as f64 / cc.window()) as u64);
            cc.on_ack(now, &ack(rtt));
            each(now, cc);
        }
        now
    }

    #[test]
    fn probes_for_19_acks_then_slow_starts_and_paces_at_twice_cwnd_over_standing_rtt() {
        let mut cc = copa(CopaConfig::default());
        let now = probe(&mut cc);
        assert_eq!((cc.window(), cc.pacing_rate()), (10.0, None));
        assert_eq!(cc.target_window(), Some(f64::INFINITY), "dq = 0");
        cc.on_ack(now + MS, &ack(R100));
        assert_eq!(cc.window(), 11.0);
        assert!(cc.in_slow_start());
        // 2 · 11 · 1500 B / 0.1 s.
        assert_eq!(cc.pacing_rate(), Some(330_000.0));
        assert_eq!(cc.metrics().pacing_rate, Some(330_000.0));
        assert_eq!(cc.metrics().cwnd, 11.0);
    }

    #[test]
    fn fixed_queueing_delay_converges_to_target_rate_times_rtt() {
        // RTTmin 100 ms, then every RTT is 110 ms: dq = 10 ms, λt = 1/(0.5 · 10 ms) = 200 pkt/s,
        // target window λt · RTTstanding = 200 · 0.110 = 22 packets.
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        let rtt = Dur::from_millis(110);
        let now = clock(&mut cc, now, Time::from_secs(5), rtt, |_, _| {});
        assert!(!cc.in_slow_start());
        assert!((cc.target_window().unwrap() - 22.0).abs() < 1e-9);
        let (mut lo, mut hi, mut sum, mut n) = (f64::MAX, 0.0f64, 0.0, 0.0);
        // Stop before the 100 ms samples leave the 10 s RTTmin window (t ≈ 10.1 s).
        let now = clock(&mut cc, now, Time::from_millis(9_500), rtt, |_, cc| {
            lo = lo.min(cc.window());
            hi = hi.max(cc.window());
            sum += cc.window();
            n += 1.0;
        });
        // The window crosses the target on every ACK: steps of v/(δ·cwnd) = 1/11 around 22.
        assert!((sum / n - 22.0).abs() < 0.05, "mean {}", sum / n);
        assert!(lo > 21.8 && hi < 22.2, "{lo}..{hi}");
        // Once they have left, RTTmin = RTTstanding: dq = 0 and the window grows again.
        assert_eq!(cc.min_rtt(), Some(R100));
        clock(&mut cc, now, Time::from_millis(10_300), rtt, |_, _| {});
        assert_eq!(cc.min_rtt(), Some(rtt));
        assert_eq!(cc.target_window(), Some(f64::INFINITY));
    }

    #[test]
    fn closed_loop_keeps_about_one_over_delta_packets_queued_at_full_rate() {
        // A FIFO bottleneck of 1000 packets/s (12 Mbit/s) behind 50 ms: a BDP of 50 packets. The
        // sender keeps pipe < floor(cwnd) and paces at Copa's rate. Copa's equilibrium λ = μ with
        // λ = 1/(δ·dq) gives dq = 1/(δ·μ) = 2 ms, i.e. 1/δ = 2 packets queued (paper §2.1; the
        // queue oscillates around it).
        let mut cc = copa(CopaConfig::default());
        let (service, base) = (Dur::from_millis(1), Dur::from_millis(50));
        let (mut now, mut free_at, mut next_send) = (Time::ZERO, Time::ZERO, Time::ZERO);
        // (ACK arrival, send time, queueing delay), in sending order.
        let mut flight: VecDeque<(Time, Time, Dur)> = VecDeque::new();
        let (mut acks, mut queue, mut competitive, mut min_delta) = (0.0, 0.0, 0.0, 1.0f64);
        while now < Time::from_secs(9) {
            let ack_at = flight.front().map_or(Time::MAX, |a| a.0);
            if (flight.len() as f64) < cc.window().floor() && next_send.max(now) <= ack_at {
                now = next_send.max(now);
                let start = free_at.max(now);
                free_at = start + service;
                flight.push_back((free_at + base, now, start.saturating_since(now)));
                let gap = f64::from(MTU) / cc.pacing_rate().unwrap_or(f64::INFINITY);
                next_send = now + Dur::from_secs_f64(gap);
            } else if let Some((at, sent, q)) = flight.pop_front() {
                now = at;
                cc.on_ack(at, &ack(at.saturating_since(sent)));
                if now >= Time::from_secs(3) {
                    acks += 1.0;
                    queue += q.secs_f64() / service.secs_f64();
                    competitive += f64::from(u8::from(cc.is_competitive()));
                    min_delta = min_delta.min(cc.delta());
                }
            } else {
                break;
            }
        }
        // genericCC's velocity swings the window widely enough to empty the queue each cycle
        // (measured: 93 % utilisation, 3.3 packets queued on average).
        let (rate, mean_queue) = (acks / 6.0, queue / acks);
        assert!(rate > 900.0, "utilisation {rate} pkt/s of 1000");
        assert!((1.5..=4.0).contains(&mean_queue), "mean queue {mean_queue} packets");
        // The mode test sees a lone Copa flow (at most a few ACKs flicker to competitive, too
        // briefly to change δ).
        assert!(competitive / acks < 0.05, "competitive on {competitive} of {acks} ACKs");
        assert_eq!(min_delta, 0.5);
    }

    /// After probing at 100 ms, leave slow start by hand at cwnd 100 (constant δ = 0.5), then
    /// ACK every 1 ms with RTT `rtt` until `stop`. Returns v for each velocity period (read at
    /// the ACK that opened it) and the window at the end of each period.
    fn periods(cfg: CopaConfig, rtt: Dur, stop: impl Fn(&Copa) -> bool) -> (Copa, Vec<f64>, Vec<f64>) {
        let mut cc = copa(cfg);
        let mut now = probe(&mut cc);
        cc.slow_start = false;
        cc.cwnd = 100.0;
        cc.last_update = now;
        let (mut vs, mut ends) = (vec![cc.velocity()], vec![]);
        while !stop(&cc) {
            let (before, start) = (cc.window(), cc.last_update);
            now += MS;
            cc.on_ack(now, &ack(rtt));
            if cc.last_update != start {
                vs.push(cc.velocity());
                ends.push(before);
            }
        }
        (cc, vs, ends)
    }

    #[test]
    fn velocity_doubles_once_per_rtt_after_two_or_three_rtts_in_the_same_direction() {
        // RTT 101 ms over RTTmin 100 ms: target 101/(0.5 · 1 ms) = 202 > cwnd, every step is up.
        // Periods end at the first ACK more than one latest RTT (101 ms) after the last
        // boundary, i.e. every 102 ACKs.
        let paper = CopaConfig {
            velocity_rtts: 3,
            ..constant_delta()
        };
        let (_, vs, ends) = periods(paper, Dur::from_millis(101), |cc| cc.window() > 150.0);
        // Paper: the period in which the direction was set counts as the first; v doubles from
        // the third on.
        assert_eq!(vs[..6], [1.0, 1.0, 1.0, 2.0, 4.0, 8.0]);
        // First period: 101 steps of +v/(δ·cwnd) = 2/cwnd from 100, i.e. cwnd² grows by
        // ≈ 4 per step: √(10000 + 404) = 102.0.
        assert!((ends[0] - 102.0).abs() < 0.01, "{}", ends[0]);
        // The second ACK-period: 102 steps, √(102² + 408) = 103.98.
        assert!((ends[1] - 103.98).abs() < 0.01, "{}", ends[1]);

        // genericCC (the default) doubles at the first RTT that confirms the direction.
        let (_, vs, _) = periods(constant_delta(), Dur::from_millis(101), |cc| cc.window() > 150.0);
        assert_eq!(vs[..5], [1.0, 1.0, 2.0, 4.0, 8.0]);
    }

    #[test]
    fn velocity_is_halved_once_per_ack_while_above_delta_cwnd() {
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        cc.slow_start = false;
        cc.last_update = now;
        cc.cwnd = 20.0;
        cc.velocity = 16.0;
        // dq = 0 (RTTstanding still 100 ms): up. v = 16 > δ·cwnd = 10 → 8, then
        // cwnd += 8/(0.5 · 20) = 0.8.
        cc.on_ack(now + MS, &ack(Dur::from_millis(101)));
        assert_eq!((cc.velocity(), cc.window()), (8.0, 20.8));
        // v = 8 ≤ 0.5 · 20.8: kept; cwnd += 8/10.4.
        cc.on_ack(now + MS.saturating_mul(2), &ack(Dur::from_millis(101)));
        assert_eq!(cc.velocity(), 8.0);
        assert!((cc.window() - (20.8 + 8.0 / 10.4)).abs() < 1e-12);
    }

    #[test]
    fn direction_change_resets_velocity_to_one() {
        let (mut cc, vs, _) = periods(constant_delta(), Dur::from_millis(101), |cc| cc.velocity() >= 8.0);
        assert_eq!(vs.last(), Some(&8.0));
        // Now RTT 200 ms: dq ≈ 100 ms, target ≈ 4 packets: the window falls. At the first
        // period whose net direction is down, v = 1 and the direction flips.
        let mut now = cc.last_update;
        while cc.prev_dir == 1 {
            now += MS;
            cc.on_ack(now, &ack(Dur::from_millis(200)));
        }
        assert_eq!((cc.velocity(), cc.streak), (1.0, 1));
        let at_flip = cc.window();
        // Still falling: v doubles at the next RTT (genericCC), and again at the one after.
        let mut seen = vec![];
        while seen.len() < 2 {
            let start = cc.last_update;
            now += MS;
            cc.on_ack(now, &ack(Dur::from_millis(200)));
            if cc.last_update != start {
                seen.push(cc.velocity());
            }
        }
        assert_eq!(seen, [2.0, 4.0]);
        assert!(cc.window() < at_flip - 4.0, "{at_flip} → {}", cc.window());
    }

    #[test]
    fn competitive_mode_raises_one_over_delta_per_rtt_and_doubles_delta_on_loss() {
        // A queue that never drains: every RTT after probing is 120 ms over RTTmin 100 ms.
        let mut cc = copa(CopaConfig::default());
        let mut now = probe(&mut cc);
        let rtt = Dur::from_millis(120);
        let mut changes: Vec<(Time, f64)> = vec![];
        while changes.len() < 3 {
            now += MS;
            cc.on_ack(now, &ack(rtt));
            if cc.delta() != changes.last().map_or(0.5, |c| c.1) {
                changes.push((now, cc.delta()));
            }
        }
        assert!(cc.is_competitive());
        let deltas: Vec<f64> = changes.iter().map(|c| c.1).collect();
        assert_eq!(deltas, [1.0 / 3.0, 0.25, 0.2]);
        // Once per RTT: the first ACK more than 120 ms after the previous update.
        assert_eq!(changes[1].0.saturating_since(changes[0].0), Dur::from_millis(121));
        assert_eq!(changes[2].0.saturating_since(changes[1].0), Dur::from_millis(121));
        // A loss doubles δ, but not twice within an RTT.
        now += MS;
        cc.on_ack(now, &ack_of(rtt, 1, true));
        assert_eq!(cc.delta(), 0.4);
        now += Dur::from_millis(5);
        cc.on_ack(now, &ack_of(rtt, 1, true));
        assert_eq!(cc.delta(), 0.4);
        // δ never exceeds the default.
        now += Dur::from_millis(200);
        cc.on_ack(now, &ack_of(rtt, 1, true));
        assert_eq!(cc.delta(), 0.5);

        // With the mode switch off δ stays put.
        let mut cc = copa(constant_delta());
        let mut now = probe(&mut cc);
        for _ in 0..2000 {
            now += MS;
            cc.on_ack(now, &ack(rtt));
        }
        assert_eq!((cc.delta(), cc.is_competitive()), (0.5, false));
    }

    #[test]
    fn an_empty_queue_with_jitter_free_rtts_is_default_mode() {
        // Every RTT equals RTTmin: min = max over 4·srtt, and the queue is empty (≤ threshold;
        // genericCC's strict < would call this competitive and shrink δ).
        let mut cc = copa(CopaConfig::default());
        let mut now = probe(&mut cc);
        for _ in 0..1000 {
            now += MS;
            cc.on_ack(now, &ack(R100));
            assert!(!cc.is_competitive());
        }
        assert_eq!(cc.delta(), 0.5);
    }

    #[test]
    fn more_than_30_percent_loss_over_two_rtts_cuts_the_window_by_30_percent() {
        // Probe ACKs 10 ms apart from 100 ms, RTT 100 ms, each reporting one lost segment.
        // ReduceOnLoss first evaluates at the first ACK after 2 RTTs (t > 200 ms) with more than
        // 20 packets counted: t = 210 ms, 12 delivered + 12 lost, 50 % > 30 %: 10 → 7.
        let mut cc = copa(constant_delta());
        for i in 0..12 {
            cc.on_ack(Time::from_millis(100 + 10 * i), &ack_of(R100, 1, true));
            assert_eq!(cc.window(), if i < 11 { 10.0 } else { 7.0 }, "ACK {i}");
        }
        // A quarter of that does not: at t = 260 ms, 17 delivered + 4 lost = 21 > 20 packets,
        // loss rate 0.19.
        let mut cc = copa(constant_delta());
        for i in 0..17 {
            let lost = u32::from(i % 4 == 3);
            cc.on_ack(Time::from_millis(100 + 10 * i), &ack_of(R100, lost, true));
        }
        assert_eq!((cc.window(), cc.rol.1), (10.0, 0), "evaluated, not reduced");
    }

    #[test]
    fn timeout_reinitialises_only_after_two_seconds_without_acks() {
        let mut cc = copa(CopaConfig::default());
        let now = probe(&mut cc);
        for i in 1..=5 {
            cc.on_ack(now + MS.saturating_mul(i), &ack(R100));
        }
        assert_eq!(cc.window(), 15.0);
        let last = now + MS.saturating_mul(5);
        cc.on_rto(last + Dur::from_millis(1_999), 15);
        cc.on_congestion_event(last, CongestionKind::Loss, 15);
        assert_eq!((cc.window(), cc.min_rtt()), (15.0, Some(R100)));
        cc.on_rto(last + Dur::from_secs(2), 15);
        assert_eq!((cc.window(), cc.min_rtt(), cc.pacing_rate()), (10.0, None, None));
        assert!(cc.in_slow_start());
        assert_eq!(cc.acked_total, 0, "probing again");
    }

    #[test]
    fn window_does_not_grow_when_not_cwnd_limited_but_still_falls() {
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        cc.on_ack(now + MS, &ack_of(R100, 0, false));
        assert_eq!(cc.window(), 10.0);
        cc.slow_start = false;
        cc.min_rtt.new_sample(Dur::from_millis(50), now);
        // RTTstanding 100 ms over RTTmin 50 ms: target 100/(0.5 · 50) = 4 < 10: one step down
        // of 1/(0.5 · 10) = 0.2.
        cc.on_ack(now + MS.saturating_mul(2), &ack_of(R100, 0, false));
        assert!((cc.window() - 9.8).abs() < 1e-12, "{}", cc.window());
    }

    #[test]
    fn parameters_are_validated_and_named() {
        let mut p = Params::from([
            ("delta".into(), 0.1),
            ("competitive".into(), 0.0),
            ("velocity_rtts".into(), 2.0),
            ("pacing_gain".into(), 0.0),
            ("other".into(), 1.0),
        ]);
        let cfg = CopaConfig::from_params(&mut p).unwrap();
        assert_eq!(
            (cfg.delta, cfg.competitive, cfg.velocity_rtts, cfg.pacing_gain),
            (0.1, false, 2, 0.0)
        );
        assert_eq!(p.keys().collect::<Vec<_>>(), ["other"]);
        for (k, v) in [
            ("delta", 0.0),
            ("delta", 1.5),
            ("delta", f64::NAN),
            ("competitive", 0.5),
            ("velocity_rtts", 0.0),
            ("initial_window", 1.0),
            ("pacing_gain", -1.0),
        ] {
            let mut p = Params::from([(k.to_string(), v)]);
            match CopaConfig::from_params(&mut p) {
                Err(Error::Param { key, msg }) => {
                    assert_eq!(key, format!("copa.{k}"));
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("{k} = {v} accepted: {other:?}"),
            }
        }
        let mut cc = copa(cfg);
        let now = probe(&mut cc);
        cc.on_ack(now + MS, &ack(R100));
        assert_eq!(
            (cc.name(), cc.pacing_rate()),
            ("copa", None),
            "pacing_gain 0 disables pacing"
        );
    }

    #[test]
    fn extreme_windows_keep_the_min_or_max_of_the_last_max_time_inclusive() {
        let ms = Dur::from_millis;
        let at = Time::from_millis;
        // Max filter (genericCC `ExtremeWindow`, the mode switch's maximum), 10 ms window.
        let mut w = ExtremeWindow::new(false);
        w.max_time = ms(10);
        w.new_sample(ms(5), at(0));
        w.new_sample(ms(3), at(4));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(5)), 2), "a smaller sample queues behind");
        // An equal sample replaces the older equal one; the 5 ms sample, exactly 10 ms old, stays.
        w.new_sample(ms(3), at(10));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(5)), 2));
        // At 11 ms it is older than the window: the next best, 3 ms (sampled at 10 ms), is the max.
        w.new_sample(ms(2), at(11));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(3)), 2));
        // A larger sample pops every smaller one.
        w.new_sample(ms(4), at(12));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(4)), 1));
        // Min filter: a larger sample queues behind, an equal one replaces.
        let mut w = ExtremeWindow::new(true);
        w.max_time = ms(10);
        w.new_sample(ms(5), at(0));
        w.new_sample(ms(7), at(4));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(5)), 2));
        w.new_sample(ms(5), at(6));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(5)), 1));
        // The newest sample is kept even when the window is shorter than the gap.
        w.max_time = Dur::ZERO;
        w.new_sample(ms(9), at(100));
        assert_eq!((w.get(), w.vals.len()), (Some(ms(9)), 1));
    }

    #[test]
    fn config_is_the_one_given() {
        let cfg = CopaConfig {
            delta: 0.25,
            velocity_rtts: 3,
            ..constant_delta()
        };
        assert_eq!(copa(cfg.clone()).config(), &cfg);
    }

    #[test]
    fn rtt_sample_updates_srtt_by_a_sixteenth_and_sizes_the_windows_from_it() {
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        assert!((cc.srtt.unwrap() - 0.1).abs() < 1e-15);
        // genericCC `RTTWindow`: srtt = 15/16 · 100 ms + 1/16 · 116 ms = 101 ms; RTTstanding over
        // srtt/2, the mode switch over 4·srtt, RTTmin over max(10 s, 20 · 100 ms) = 10 s.
        cc.on_ack(now + MS, &ack(Dur::from_millis(116)));
        assert!((cc.srtt.unwrap() - 0.101).abs() < 1e-15, "{:?}", cc.srtt);
        assert_eq!(cc.latest_rtt, Dur::from_millis(116));
        assert_eq!((cc.standing_rtt(), cc.min_rtt()), (Some(R100), Some(R100)));
        assert_eq!(cc.standing_rtt.max_time, Dur::from_micros(50_500));
        assert_eq!(cc.mode_min.max_time, Dur::from_micros(404_000));
        assert_eq!(cc.mode_max.max_time, Dur::from_micros(404_000));
        assert_eq!(cc.min_rtt.max_time, Dur::from_secs(10));
        // An RTTmin of 1 s stretches the RTTmin window to 20 s (and caps the others there).
        let mut cc = copa(constant_delta());
        cc.on_ack(Time::from_secs(1), &ack(Dur::from_secs(1)));
        cc.on_ack(Time::from_secs(2), &ack(Dur::from_secs(1)));
        assert_eq!(cc.min_rtt.max_time, Dur::from_secs(20));
        assert_eq!(cc.mode_max.max_time, Dur::from_secs(4));
    }

    #[test]
    fn queue_emptied_when_the_recent_minimum_is_within_a_tenth_of_the_range_above_rttmin() {
        let ms = Dur::from_millis;
        let mut cc = copa(CopaConfig::default());
        assert!(cc.queue_emptied(), "no samples: default mode");
        // RTTmin 100 ms, maximum 200 ms over the mode window: the threshold is 110 ms.
        cc.min_rtt.new_sample(ms(100), Time::ZERO);
        cc.mode_max.new_sample(ms(200), Time::ZERO);
        for (lo, emptied) in [(105, true), (115, false)] {
            cc.mode_min = ExtremeWindow::new(true);
            cc.mode_min.new_sample(ms(lo), Time::ZERO);
            assert_eq!(cc.queue_emptied(), emptied, "minimum {lo} ms");
        }
    }

    #[test]
    fn reduce_on_loss_needs_more_than_two_rtts_more_than_20_packets_and_more_than_30_percent() {
        let segs = |acked, lost| AckInfo {
            acked,
            lost,
            ..ack(R100)
        };
        // Exactly 20 packets counted after 2 RTTs: not evaluated yet (genericCC `> 20`).
        let mut cc = copa(constant_delta());
        cc.on_ack(Time::from_millis(100), &segs(1, 0));
        cc.on_ack(Time::from_millis(210), &segs(9, 10));
        assert_eq!((cc.window(), cc.rol), ((10.0), (10, 20, Time::ZERO)));
        // The 21st packet: 10 of 21 lost (48 %): 10 → 7.
        cc.on_ack(Time::from_millis(220), &segs(1, 0));
        assert_eq!((cc.window(), cc.rol), (7.0, (0, 0, Time::from_millis(220))));
        // 30 packets at exactly 2 RTTs (200 ms) after the period start: not evaluated yet.
        let mut cc = copa(constant_delta());
        cc.on_ack(Time::from_millis(100), &segs(1, 0));
        cc.on_ack(Time::from_millis(200), &segs(20, 9));
        assert_eq!(cc.rol, (9, 30, Time::ZERO));
        // 1 ns later: a loss rate of exactly 9/30 = 30 % is not above the threshold.
        cc.on_ack(Time::from_nanos(200_000_001), &segs(0, 0));
        assert_eq!((cc.window(), cc.rol.1), (10.0, 0));
    }

    #[test]
    fn default_mode_restores_delta_once_an_rtt_has_passed_since_the_last_loss_doubling() {
        // Competitive as in the test above, down to δ = 1/5.
        let mut cc = copa(CopaConfig::default());
        let mut now = probe(&mut cc);
        while cc.delta() > 0.21 {
            now += MS;
            cc.on_ack(now, &ack(Dur::from_millis(120)));
        }
        // A loss doubles δ to 2/5.
        now += MS;
        cc.on_ack(now, &ack_of(Dur::from_millis(120), 1, true));
        assert_eq!((cc.delta(), cc.is_competitive()), (0.4, true));
        let loss = now;
        // The queue empties (an RTT sample at RTTmin): default mode, but δ stays for an RTT
        // (100 ms, this ACK's RTT) after the loss (genericCC `prev_delta_update_time_loss`).
        cc.on_ack(loss + MS, &ack(R100));
        assert_eq!((cc.delta(), cc.is_competitive()), (0.4, false));
        cc.on_ack(loss + R100, &ack(R100));
        assert_eq!(cc.delta(), 0.4, "exactly one RTT later");
        cc.on_ack(loss + R100 + MS, &ack(R100));
        assert_eq!((cc.delta(), cc.is_competitive()), (0.5, false));
        // Without a loss, default mode restores δ at once.
        let mut cc = copa(CopaConfig::default());
        let mut now = probe(&mut cc);
        while cc.delta() == 0.5 {
            now += MS;
            cc.on_ack(now, &ack(Dur::from_millis(120)));
        }
        assert_eq!(cc.delta(), 1.0 / 3.0);
        cc.on_ack(now + MS, &ack(R100));
        assert_eq!((cc.delta(), cc.is_competitive()), (0.5, false));
    }

    #[test]
    fn velocity_is_kept_at_exactly_delta_cwnd_and_a_period_without_net_direction_resets_it() {
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        cc.slow_start = false;
        cc.last_update = now;
        cc.cwnd = 20.0;
        cc.velocity = 10.0;
        // v = δ·cwnd = 10 is not above it: kept; up (dq = 0) by 10/(0.5 · 20) = 1.
        cc.on_ack(now + MS, &ack(R100));
        assert_eq!((cc.velocity(), cc.window()), (10.0, 21.0));
        // A period that ends with as many down steps as up steps (net 0) is no confirmation of
        // the direction (genericCC: `update_dir` is not > 0): v = 1 and the direction flips.
        cc.streak = 1;
        cc.velocity = 4.0;
        cc.net_steps = 0;
        cc.on_ack(now + Dur::from_millis(102), &ack(R100));
        assert_eq!((cc.velocity(), cc.prev_dir, cc.streak), (1.0, -1, 1));
        assert_eq!((cc.net_steps, cc.last_update), (1, now + Dur::from_millis(102)));
        assert!((cc.window() - (21.0 + 1.0 / 10.5)).abs() < 1e-12);
    }

    #[test]
    fn only_acks_that_deliver_data_give_rtt_samples() {
        let mut cc = copa(constant_delta());
        let now = probe(&mut cc);
        let dup = AckInfo {
            acked: 0,
            ..ack(Dur::from_millis(300))
        };
        cc.on_ack(now + MS, &dup);
        assert_eq!((cc.latest_rtt, cc.srtt), (R100, Some(0.1)));
        assert_eq!((cc.window(), cc.acked_total), (10.0, 19));
    }

    #[test]
    fn an_rtt_of_zero_gives_no_pacing_rate() {
        // RTTstanding 0 (a zero-delay path): cwnd/RTTstanding is undefined, so no pacing.
        let mut cc = copa(constant_delta());
        for i in 0..=PROBE_ACKS {
            cc.on_ack(Time::from_millis(i), &ack(Dur::ZERO));
        }
        assert_eq!((cc.window(), cc.pacing_rtt), (11.0, Some(0.0)));
        assert_eq!(cc.pacing_rate(), None);
    }
}
