//! BBR v3, after the IETF CCWG draft "BBR Congestion Control" (draft-ietf-ccwg-bbr, the v3
//! algorithm) with the constants of Google's v3 Linux code (`net/ipv4/tcp_bbr.c` on the
//! google/bbr `v3` branch). Scheme name `bbr3`; BBR v1 stays in [`super::bbr`].
//!
//! Model: `max_bw` = max of delivery-rate samples over the last two bandwidth-probing cycles;
//! `min_rtt` = min RTT over 10 s; short-term lower bounds `bw_lo`, `inflight_lo` (cut by β = 0.7
//! after a round with loss, outside bandwidth probing); long-term upper bound `inflight_hi` (set
//! when a probe sees more than 2 % loss, grown slowly otherwise). States: STARTUP (pacing gain
//! 2.77, cwnd gain 2; ends after 3 rounds without 25 % bandwidth growth, or on high loss / ECN) →
//! DRAIN (pacing gain 0.35 until in-flight ≤ BDP) → PROBE_BW, a cycle DOWN (0.9) → CRUISE (1.0,
//! cwnd ≤ inflight_hi − 15 % headroom) → REFILL (1.0, one round) → UP (1.25, cwnd gain 2.25) →
//! DOWN, the next probe 2–3 s (or at most 63 rounds, Reno coexistence) later; PROBE_RTT every
//! 5 s without a lower RTT sample: cwnd 0.5·BDP for 200 ms and a round.
//!
//! Simplifications (also in docs/l4s.md, "BBRv3"):
//! - Linux's per-packet `rs->lost` and `rs->tx_in_flight` (losses and in-flight data of the one
//!   sampled packet) are not in [`AckInfo`]. "Inflight too high" compares the losses counted since
//!   the round started with 2 % of `tx_in_flight`, taken as the segments delivered while the
//!   sampled segment was in flight (`RateSample::delivered`) plus this ACK's losses; the same
//!   figure sets inflight_hi (Linux computes the exact level at which the loss rate crossed 2 %,
//!   `bbr_inflight_hi_from_lost_skb`).
//! - Full-bandwidth detection compares the max filter at round starts (Linux v3 compares each
//!   ACK's bandwidth sample and counts rounds).
//! - STARTUP's high-loss exit counts ACKs that reported new losses as loss events (Linux and the
//!   draft count discontiguous lost ranges); the exit needs 6 of them in a round with more than
//!   2 % loss, as `bbr_full_loss_cnt`.
//! - No ACK-aggregation allowance (`extra_acked`), no idle-restart handling, no TLP-recovery hook
//!   and no ECN re-probe gain (`bbr_ecn_reprobe_gain`): the simulator's links do not aggregate
//!   ACKs, the flows here are bulk and there is no TLP.
//! - ECN is used only with `bbr3.ecn = true` (Linux uses it only on routes flagged as
//!   shallow-threshold ECN with precise ACKs, `bbr_can_use_ecn`); it reads the per-ACK CE echo,
//!   which is exact only with an exactly echoing receiver (an L4S queue's).
//! - The send quantum is one segment (cwnd allowance 3 segments, as `bbr.tso_segs = 1`).
//! - Float arithmetic on the ns clock instead of Linux's fixed point on µs.

use super::newreno::{INITIAL_WINDOW, INITIAL_WINDOW_PARAM};
use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, Scheme};
use crate::packet::{Echo, MSS, MTU};
use crate::params::{Config, Param, Unit, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// STARTUP pacing gain 4·ln 2 ≈ 2.77 (draft-ietf-ccwg-bbr `BBRStartupPacingGain`; tcp_bbr.c v3
/// `bbr_startup_pacing_gain = BBR_UNIT * 277 / 100 + 1`).
pub const STARTUP_PACING_GAIN: f64 = 2.77;
/// STARTUP cwnd gain (draft `BBRStartupCwndGain = 2`; v3 `bbr_startup_cwnd_gain = BBR_UNIT * 2`).
pub const STARTUP_CWND_GAIN: f64 = 2.0;
/// DRAIN pacing gain (draft `BBRDrainPacingGain = 0.35`, below 1/`BBRStartupCwndGain` = 0.5 so
/// the STARTUP queue drains within a round; v3 `bbr_drain_gain = BBR_UNIT * 1000 / 2885` ≈ 0.347).
pub const DRAIN_PACING_GAIN: f64 = 0.35;
/// PROBE_BW cwnd gain (draft `BBR.cwnd_gain = 2`; v3 `bbr_cwnd_gain = BBR_UNIT * 2`).
pub const CWND_GAIN: f64 = 2.0;
/// Extra cwnd gain in PROBE_BW_UP (draft: cwnd_gain 2.25 in UP; v3 `bbr_bw_probe_cwnd_gain = 1`,
/// in units of 1/4).
pub const PROBE_UP_CWND_GAIN: f64 = 0.25;
/// PROBE_BW_UP pacing gain (draft 1.25; v3 `bbr_pacing_gain[BBR_BW_PROBE_UP] = 5/4`).
pub const UP_PACING_GAIN: f64 = 1.25;
/// PROBE_BW_DOWN pacing gain (draft 0.9; v3 `bbr_pacing_gain[BBR_BW_PROBE_DOWN] = 91/100`).
pub const DOWN_PACING_GAIN: f64 = 0.9;
/// Multiplicative cut of the lower bounds on loss, 1 − 0.3 (draft `BBRBeta = 0.7`; v3
/// `bbr_beta = BBR_UNIT * 30 / 100`, applied as `BBR_UNIT - bbr_beta`).
pub const BETA: f64 = 0.7;
/// Loss rate above which a probe went too far (draft `BBRLossThresh = 2%`; v3 `bbr_loss_thresh =
/// BBR_UNIT * 2 / 100`).
pub const LOSS_THRESH: f64 = 0.02;
/// Headroom left below inflight_hi when cruising (draft `BBRHeadroom = 0.15`; v3
/// `bbr_inflight_headroom = BBR_UNIT * 15 / 100`).
pub const HEADROOM: f64 = 0.15;
/// CE ratio above which a probe went too far (v3 `bbr_ecn_thresh = BBR_UNIT / 2`).
pub const ECN_THRESH: f64 = 0.5;
/// EWMA gain of the CE ratio (v3 `bbr_ecn_alpha_gain = BBR_UNIT / 16`).
pub const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
/// Initial ECN alpha (v3 `bbr_ecn_alpha_init = BBR_UNIT`).
const ECN_ALPHA_INIT: f64 = 1.0;
/// On CE, inflight_lo ×= 1 − factor·alpha (v3 `bbr_ecn_factor = BBR_UNIT / 3`).
const ECN_FACTOR: f64 = 1.0 / 3.0;
/// STARTUP exits after this many rounds with CE ratio ≥ threshold (v3 `bbr_full_ecn_cnt = 2`).
const FULL_ECN_CNT: u32 = 2;
/// STARTUP exits after this many loss events in a lossy round (v3 `bbr_full_loss_cnt = 6`; draft
/// `BBRStartupFullLossCnt = 6`).
const FULL_LOSS_CNT: u32 = 6;
/// Bandwidth growth that counts as growth (draft / v3 `bbr_full_bw_thresh = 5/4`).
const FULL_BW_THRESH: f64 = 1.25;
/// Rounds without growth that mean the pipe is full (draft / v3 `bbr_full_bw_cnt = 3`).
const FULL_BW_CNT: u32 = 3;
/// min_rtt filter window (draft `MinRTTFilterLen = 10 s`; v3 `bbr_min_rtt_win_sec = 10`).
pub const MIN_RTT_WIN: Dur = Dur::from_secs(10);
/// PROBE_RTT interval (draft `ProbeRTTInterval = 5 s`; v3 `bbr_probe_rtt_win_ms = 5000`).
pub const PROBE_RTT_INTERVAL: Dur = Dur::from_secs(5);
/// Time at the PROBE_RTT cwnd (draft `ProbeRTTDuration = 200 ms`; v3 `bbr_probe_rtt_mode_ms`).
pub const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// PROBE_RTT cwnd as a fraction of the BDP (draft `BBRProbeRTTCwndGain = 0.5`; v3
/// `bbr_probe_rtt_cwnd_gain = BBR_UNIT / 2`).
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// Smallest cwnd (draft `BBRMinPipeCwnd = 4`; v3 `bbr_cwnd_min_target = 4`).
pub const MIN_PIPE_CWND: f64 = 4.0;
/// Fixed part of the wait before probing (v3 `bbr_bw_probe_base_us = 2 s`; draft: 2 s + rand).
const BW_PROBE_BASE: Dur = Dur::from_secs(2);
/// Random part of that wait, uniform (v3 `bbr_bw_probe_rand_us = 1 s`).
const BW_PROBE_RAND_NS: u64 = 1_000_000_000;
/// Reno-coexistence probe bound in rounds (v3 `bbr_bw_probe_max_rounds = 63`).
const BW_PROBE_MAX_ROUNDS: u64 = 63;
/// Random head start of the Reno-coexistence round count (v3 `bbr_bw_probe_rand_rounds = 2`).
const BW_PROBE_RAND_ROUNDS: u64 = 2;
/// Pace this much below the model (v3 `bbr_pacing_margin_percent = 1`).
const PACING_MARGIN: f64 = 0.01;
/// cwnd allowance for one quantum in the sender, one in the network, one at the receiver, in
/// segments (v3 `bbr_quantization_budget`: 3 · tso_segs_goal, one segment here).
const QUANTIZATION_BUDGET: f64 = 3.0;
/// Nominal RTT for the initial pacing rate (v3 `bbr_init_pacing_rate_from_rtt`).
const DEFAULT_RTT: Dur = Dur::from_millis(1);

/// BBRv3's parameters (keys `bbr3.<name>`).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("startup_pacing_gain", STARTUP_PACING_GAIN, Unit::None, 1.0, 10.0)
        .doc("STARTUP pacing gain", "draft-ietf-ccwg-bbr BBRStartupPacingGain = 4 ln 2; tcp_bbr.c v3 277/100"),
    Param::real("drain_gain", DRAIN_PACING_GAIN, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("DRAIN pacing gain", "draft-ietf-ccwg-bbr BBRDrainPacingGain = 0.35 (tcp_bbr.c v3: 1000/2885)"),
    Param::real("down_gain", DOWN_PACING_GAIN, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("PROBE_BW_DOWN pacing gain", "draft-ietf-ccwg-bbr 0.9 (tcp_bbr.c v3: 91/100)"),
    Param::real("loss_thresh_percent", LOSS_THRESH * 100.0, Unit::Percent, 0.0, 100.0)
        .open(true, false)
        .doc("loss rate in a round above which bandwidth probing stops", "draft-ietf-ccwg-bbr BBRLossThresh; tcp_bbr.c v3 bbr_loss_thresh = 2 %"),
    Param::real("beta", BETA, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("factor on bw_lo, inflight_lo (and inflight_hi's floor) after a lossy round", "draft-ietf-ccwg-bbr BBRBeta; tcp_bbr.c v3 1 − bbr_beta (30 %)"),
    Param::real("headroom", HEADROOM, Unit::None, 0.0, 1.0)
        .open(false, true)
        .doc("fraction of inflight_hi left free while cruising", "draft-ietf-ccwg-bbr BBRHeadroom; tcp_bbr.c v3 bbr_inflight_headroom = 15 %"),
    Param::real("probe_rtt_ms", 200.0, Unit::Ms, 0.0, 60_000.0)
        .doc("PROBE_RTT duration (0: no PROBE_RTT)", "draft-ietf-ccwg-bbr ProbeRTTDuration; tcp_bbr.c v3 bbr_probe_rtt_mode_ms"),
    Param::real("probe_rtt_interval_s", 5.0, Unit::S, 0.0, 3600.0)
        .open(true, false)
        .doc("PROBE_RTT when no lower RTT was seen for this long", "draft-ietf-ccwg-bbr ProbeRTTInterval; tcp_bbr.c v3 bbr_probe_rtt_win_ms = 5000"),
    Param::flag("ecn", false).doc(
        "use CE echoes (alpha EWMA 1/16, 50 % threshold, inflight_lo × (1 − alpha/3)); needs an exactly echoing receiver",
        "tcp_bbr.c v3 bbr_ecn_*; off as in Linux without the route's ecn_low flag",
    ),
];

/// BBR v3 over drop-tail.
pub const BBR3: Scheme = Scheme {
    name: "bbr3",
    display: "BBRv3",
    family: "bbr3",
    summary: "BBR v3 (draft-ietf-ccwg-bbr): model with loss/ECN bounds inflight_hi/lo, ProbeBW DOWN/CRUISE/REFILL/UP",
    source: "draft-ietf-ccwg-bbr; Cardwell et al., BBRv3, IETF 117/118; Google tcp_bbr.c v3",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    // Okabe–Ito vermillion (colour-blind safe, used by no other row).
    style: ("#D55E00", "*"),
    build: |v, now, rng| Ok(Box::new(Bbr3::new(Bbr3Config::checked(v)?, now, rng))),
    warnings: None,
};

/// BBRv3 parameters (see [`PARAMS`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3Config {
    /// `initial_window`, segments.
    pub initial_window: u32,
    /// `startup_pacing_gain`.
    pub startup_pacing_gain: f64,
    /// `drain_gain`.
    pub drain_gain: f64,
    /// `down_gain`.
    pub down_gain: f64,
    /// `loss_thresh_percent` as a fraction.
    pub loss_thresh: f64,
    /// `beta`.
    pub beta: f64,
    /// `headroom`.
    pub headroom: f64,
    /// `probe_rtt_ms`.
    pub probe_rtt: Dur,
    /// `probe_rtt_interval_s`.
    pub probe_rtt_interval: Dur,
    /// `ecn`.
    pub ecn: bool,
}

crate::default_from_table!(Bbr3Config);

impl Config for Bbr3Config {
    const PREFIX: &'static str = "bbr3";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> Bbr3Config {
        Bbr3Config {
            initial_window: v.whole("initial_window"),
            startup_pacing_gain: v.real("startup_pacing_gain"),
            drain_gain: v.real("drain_gain"),
            down_gain: v.real("down_gain"),
            loss_thresh: v.real("loss_thresh_percent") / 100.0,
            beta: v.real("beta"),
            headroom: v.real("headroom"),
            probe_rtt: v.ms("probe_rtt_ms"),
            probe_rtt_interval: v.secs("probe_rtt_interval_s"),
            ecn: v.flag("ecn"),
        }
    }
}

/// BBRv3's state (draft §4.1: Startup, Drain, ProbeBW_{DOWN, CRUISE, REFILL, UP}, ProbeRTT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Doubling the rate each round.
    Startup,
    /// Draining the STARTUP queue.
    Drain,
    /// Pacing below the model to drain the queue and leave room for others.
    Down,
    /// Pacing at the model with headroom below inflight_hi.
    Cruise,
    /// One round at the model with the lower bounds reset, before probing.
    Refill,
    /// Probing for more bandwidth.
    Up,
    /// Cutting in-flight data to re-measure min_rtt.
    ProbeRtt,
}

/// Where the ACKs stand relative to a bandwidth probe (draft `BBR.ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

/// The BBRv3 controller.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    cfg: Bbr3Config,
    rng: Rng,
    state: State,
    cwnd: f64,
    prior_cwnd: f64,
    /// Payload bytes/s.
    pacing_rate: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    // Round counting.
    delivered: u64,
    next_round_delivered: u64,
    round_start: bool,
    // Bandwidth model: two-cycle max filter, short-term lower bound, latest round's max.
    bw_hi: [f64; 2],
    bw_lo: f64,
    bw_latest: f64,
    bw: f64,
    // In-flight bounds, segments.
    inflight_hi: f64,
    inflight_lo: f64,
    inflight_latest: f64,
    // RTT.
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Dur>,
    probe_rtt_min_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Samples whose `prior_delivered` is below this were sent in PROBE_RTT: app-limited.
    app_limited_until: u64,
    srtt: Option<Dur>,
    // Full pipe.
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    // ProbeBW cycle.
    ack_phase: AckPhase,
    cycle_stamp: Time,
    bw_probe_wait: Dur,
    rounds_since_bw_probe: u64,
    bw_probe_samples: bool,
    /// The last probe ended on too much loss/ECN (v3 `prev_probe_too_high`).
    prev_probe_too_high: bool,
    /// The last probe stopped on reaching that probe's inflight_hi (v3 `stopped_risky_probe`).
    stopped_risky_probe: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: f64,
    bw_probe_up_cnt: f64,
    // Congestion signals in the current round.
    loss_in_round: bool,
    lost_in_round: u64,
    loss_events_in_round: u32,
    delivered_in_round: u64,
    ce_in_round: u64,
    ecn_alpha: f64,
    startup_ecn_rounds: u32,
    // Recovery.
    in_recovery: bool,
    packet_conservation: bool,
    recovery_round_end: u64,
}

impl Bbr3 {
    /// A controller in STARTUP.
    pub fn new(cfg: Bbr3Config, now: Time, rng: Rng) -> Bbr3 {
        let iw = f64::from(cfg.initial_window.max(1));
        let mut b = Bbr3 {
            rng,
            state: State::Startup,
            cwnd: iw,
            prior_cwnd: iw,
            pacing_rate: cfg.startup_pacing_gain * iw * f64::from(MSS) / DEFAULT_RTT.secs_f64() * (1.0 - PACING_MARGIN),
            pacing_gain: cfg.startup_pacing_gain,
            cwnd_gain: STARTUP_CWND_GAIN,
            delivered: 0,
            next_round_delivered: 0,
            round_start: false,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            bw: 0.0,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            inflight_latest: 0.0,
            min_rtt: None,
            min_rtt_stamp: now,
            probe_rtt_min: None,
            probe_rtt_min_stamp: now,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            app_limited_until: 0,
            srtt: None,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_now: false,
            full_bw_reached: false,
            ack_phase: AckPhase::Init,
            cycle_stamp: now,
            bw_probe_wait: BW_PROBE_BASE,
            rounds_since_bw_probe: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0.0,
            bw_probe_up_cnt: f64::INFINITY,
            loss_in_round: false,
            lost_in_round: 0,
            loss_events_in_round: 0,
            delivered_in_round: 0,
            ce_in_round: 0,
            ecn_alpha: ECN_ALPHA_INIT,
            startup_ecn_rounds: 0,
            in_recovery: false,
            packet_conservation: false,
            recovery_round_end: 0,
            cfg,
        };
        b.enter_startup();
        b
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// The long-term in-flight bound (segments; infinite until a probe saw too much loss).
    pub fn inflight_hi(&self) -> f64 {
        self.inflight_hi
    }

    /// Whether STARTUP judged the pipe full.
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// `bw · min_rtt · gain` in segments (draft `BBRBDPMultiple`); the initial window before any
    /// RTT sample.
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            Some(rtt) => (bw * rtt.secs_f64() / f64::from(MSS) * gain).ceil(),
            None => f64::from(self.cfg.initial_window),
        }
    }

    /// Target in-flight data with the quantization budget (v3 `bbr_inflight` +
    /// `bbr_quantization_budget`: + 3 quanta, rounded up to even, + 2 in PROBE_BW_UP).
    fn inflight(&self, bw: f64, gain: f64) -> f64 {
        let mut w = self.bdp(bw, gain) + QUANTIZATION_BUDGET;
        w = (w / 2.0).ceil() * 2.0;
        if self.state == State::Up {
            w += 2.0;
        }
        w
    }

    /// inflight_hi less the headroom (draft `BBRInflightWithHeadroom`).
    fn inflight_with_headroom(&self) -> f64 {
        if self.inflight_hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (self.cfg.headroom * self.inflight_hi).max(1.0);
        (self.inflight_hi - headroom).max(MIN_PIPE_CWND)
    }

    fn target_inflight(&self) -> f64 {
        self.bdp(self.bw, 1.0).min(self.cwnd)
    }

    fn is_probing_bw(&self) -> bool {
        matches!(self.state, State::Startup | State::Refill | State::Up)
    }

    fn in_probe_bw(&self) -> bool {
        matches!(self.state, State::Down | State::Cruise | State::Refill | State::Up)
    }

    fn enter_startup(&mut self) {
        self.state = State::Startup;
        self.pacing_gain = self.cfg.startup_pacing_gain;
        self.cwnd_gain = STARTUP_CWND_GAIN;
    }

    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    fn set_phase(&mut self, s: State) {
        self.state = s;
        self.pacing_gain = match s {
            State::Down => self.cfg.down_gain,
            State::Up => UP_PACING_GAIN,
            _ => 1.0,
        };
        self.cwnd_gain = if s == State::Up { CWND_GAIN + PROBE_UP_CWND_GAIN } else { CWND_GAIN };
    }

    /// Draft `BBRStartProbeBW_DOWN`: a new cycle, the next probe 2–3 s away.
    fn start_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = f64::INFINITY;
        // v3 `bbr_pick_probe_wait`: 0 or 1 rounds already counted (`bbr_bw_probe_rand_rounds`).
        self.rounds_since_bw_probe = self.rng.below(BW_PROBE_RAND_ROUNDS);
        self.bw_probe_wait = BW_PROBE_BASE + Dur::from_nanos(self.rng.below(BW_PROBE_RAND_NS));
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.set_phase(State::Down);
    }

    fn start_refill(&mut self) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0.0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.set_phase(State::Refill);
    }

    fn start_up(&mut self, now: Time) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = self.max_bw();
        self.cycle_stamp = now;
        self.set_phase(State::Up);
        self.raise_inflight_hi_slope();
    }

    /// Draft `BBRRaiseInflightHiSlope`: inflight_hi grows 1, 2, 4, ... segments per round.
    fn raise_inflight_hi_slope(&mut self) {
        let growth = f64::from(1u32 << self.bw_probe_up_rounds.min(30));
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / growth).max(1.0);
    }

    /// Draft `BBRProbeInflightHiUpward`.
    fn probe_inflight_hi_upward(&mut self, acked: u32, cwnd_limited: bool) {
        if !cwnd_limited || self.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += f64::from(acked);
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = (self.bw_probe_up_acks / self.bw_probe_up_cnt).floor();
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// Loss (or CE) in this round beyond the threshold (v3 `bbr_is_inflight_too_high`; see the
    /// module's simplifications for `tx_in_flight`).
    fn is_inflight_too_high(&self, tx_in_flight: f64) -> bool {
        if self.lost_in_round > 0 && self.lost_in_round as f64 > tx_in_flight * self.cfg.loss_thresh {
            return true;
        }
        self.cfg.ecn
            && self.delivered_in_round > 0
            && self.ce_in_round as f64 > self.delivered_in_round as f64 * ECN_THRESH
    }

    /// Draft `BBRHandleInflightTooHigh`.
    fn handle_inflight_too_high(&mut self, now: Time, tx_in_flight: f64, app_limited: bool) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_hi = tx_in_flight.max(self.target_inflight() * self.cfg.beta);
        }
        if self.state == State::Up {
            self.start_down(now);
        }
    }

    /// Draft `BBRAdaptUpperBounds` (`BBRAdaptLongTermModel`).
    /// Returns whether it started a new probe (v3 `bbr_adapt_upper_bounds`).
    fn adapt_upper_bounds(&mut self, now: Time, ack: &AckInfo, tx_in_flight: f64, app_limited: bool) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.ack_phase = AckPhase::Init;
            self.bw_probe_samples = false;
            if self.in_probe_bw() && !app_limited {
                // The max filter spans the current and the previous probing cycle.
                self.bw_hi[0] = self.bw_hi[1];
                self.bw_hi[1] = 0.0;
            }
            // v3: a probe stopped at inflight_hi without loss probes again at once, holding
            // inflight_hi for a round before accelerating.
            if self.in_probe_bw() && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_refill();
                return true;
            }
        }
        if self.is_inflight_too_high(tx_in_flight) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(now, tx_in_flight, app_limited);
            }
            return false;
        }
        if self.inflight_hi.is_infinite() {
            return false;
        }
        if tx_in_flight > self.inflight_hi {
            self.inflight_hi = tx_in_flight;
        }
        if self.state == State::Up {
            self.probe_inflight_hi_upward(ack.acked, ack.cwnd_limited);
        }
        false
    }

    /// Draft `BBRAdaptLowerBoundsFromCongestion` at the end of a round, with v3's ECN cut.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bw() {
            return;
        }
        let ecn_in_round = self.cfg.ecn && self.ce_in_round > 0;
        if !(self.loss_in_round || ecn_in_round) {
            return;
        }
        if self.bw_lo.is_infinite() {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo.is_infinite() {
            self.inflight_lo = self.cwnd;
        }
        if ecn_in_round {
            self.inflight_lo *= 1.0 - ECN_FACTOR * self.ecn_alpha;
        }
        if self.loss_in_round {
            self.bw_lo = self.bw_latest.max(self.cfg.beta * self.bw_lo);
            self.inflight_lo = self.inflight_latest.max(self.cfg.beta * self.inflight_lo);
        }
    }

    /// Draft `BBRCheckFullBWReached` (on the max filter, as v3 `bbr_check_full_bw_reached`).
    fn check_full_bw_reached(&mut self, app_limited: bool) {
        if self.full_bw_now || !self.round_start || app_limited {
            return;
        }
        let bw = self.max_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.reset_full_bw();
            self.full_bw = bw;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// STARTUP exits on loss (draft `BBRCheckStartupHighLoss`) or ECN (v3
    /// `bbr_check_ecn_too_high_in_startup`), evaluated at the end of a round.
    fn check_startup_congestion(&mut self, tx_in_flight: f64) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        if self.loss_events_in_round >= FULL_LOSS_CNT && self.is_inflight_too_high(tx_in_flight) {
            self.full_bw_reached = true;
            self.inflight_hi = self.bdp(self.max_bw(), 1.0).max(self.inflight_latest);
            return;
        }
        if self.cfg.ecn && self.delivered_in_round > 0 {
            let ratio = self.ce_in_round as f64 / self.delivered_in_round as f64;
            self.startup_ecn_rounds = if ratio >= ECN_THRESH { self.startup_ecn_rounds + 1 } else { 0 };
            if self.startup_ecn_rounds >= FULL_ECN_CNT {
                self.full_bw_reached = true;
                self.inflight_hi = self.inflight(self.max_bw(), 1.0);
            }
        }
    }

    fn has_elapsed_in_phase(&self, now: Time, d: Dur) -> bool {
        now.saturating_since(self.cycle_stamp) > d
    }

    /// Draft `BBRIsTimeToProbeBW`: the wall-clock wait or the Reno-coexistence round bound.
    fn is_time_to_probe_bw(&mut self, now: Time) -> bool {
        let reno_rounds = (self.target_inflight().max(1.0) as u64).min(BW_PROBE_MAX_ROUNDS);
        if self.has_elapsed_in_phase(now, self.bw_probe_wait) || self.rounds_since_bw_probe >= reno_rounds {
            self.start_refill();
            return true;
        }
        false
    }

    /// Draft `BBRUpdateProbeBWCyclePhase`.
    fn update_cycle_phase(&mut self, now: Time, in_flight: f64, cwnd_limited: bool) {
        if !self.full_bw_reached || !self.in_probe_bw() {
            return;
        }
        match self.state {
            State::Down => {
                if self.is_time_to_probe_bw(now) {
                    return;
                }
                // Draft `BBRIsTimeToCruise`.
                if in_flight <= self.inflight_with_headroom() && in_flight <= self.inflight(self.max_bw(), 1.0) {
                    // v3 `bbr_start_bw_probe_cruise`.
                    self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
                    self.set_phase(State::Cruise);
                }
            }
            State::Cruise => {
                self.is_time_to_probe_bw(now);
            }
            State::Refill if self.round_start => {
                self.bw_probe_samples = true;
                self.start_up(now);
            }
            State::Up => {
                // v3: (1) inflight reached the inflight_hi the last lossy probe set; (2) draft
                // `BBRIsTimeToGoDown`: inflight_hi limits growth, or the bandwidth plateaued.
                if self.prev_probe_too_high && in_flight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    self.prev_probe_too_high = false;
                    self.start_down(now);
                } else if cwnd_limited && self.cwnd >= self.inflight_hi {
                    self.reset_full_bw();
                    self.full_bw = self.max_bw();
                } else if self.full_bw_now {
                    self.prev_probe_too_high = false;
                    self.start_down(now);
                }
            }
            _ => {}
        }
    }

    /// Draft `BBRUpdateMinRTT` and `BBRCheckProbeRTT`.
    fn update_min_rtt(&mut self, now: Time, ack: &AckInfo) {
        let probe_rtt_expired = now.saturating_since(self.probe_rtt_min_stamp) > self.cfg.probe_rtt_interval;
        if let Some(rtt) = ack.rtt {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now.saturating_since(self.min_rtt_stamp) > MIN_RTT_WIN;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p < m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if self.cfg.probe_rtt > Dur::ZERO && self.state != State::ProbeRtt && probe_rtt_expired {
            self.state = State::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = PROBE_RTT_CWND_GAIN;
            self.save_cwnd();
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state == State::ProbeRtt {
            // Draft `BBRHandleProbeRTT`: samples sent now are app-limited.
            self.app_limited_until = self.delivered + u64::from(ack.in_flight) + 1;
            let probe_cwnd = self.probe_rtt_cwnd();
            match self.probe_rtt_done {
                None if f64::from(ack.in_flight) <= probe_cwnd => {
                    self.probe_rtt_done = Some(now + self.cfg.probe_rtt);
                    self.probe_rtt_round_done = false;
                    self.start_round();
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.probe_rtt_min_stamp = now;
                        self.cwnd = self.cwnd.max(self.prior_cwnd);
                        self.reset_lower_bounds();
                        if self.full_bw_reached {
                            self.start_down(now);
                            self.set_phase(State::Cruise);
                        } else {
                            self.enter_startup();
                        }
                    }
                }
                None => {}
            }
        }
    }

    fn probe_rtt_cwnd(&self) -> f64 {
        self.bdp(self.bw, PROBE_RTT_CWND_GAIN).max(MIN_PIPE_CWND)
    }

    fn save_cwnd(&mut self) {
        self.prior_cwnd = if !self.in_recovery && self.state != State::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// Draft `BBRSetPacingRate`: gain · bw less the 1 % margin, never lowered before the pipe
    /// was first judged full.
    fn set_pacing_rate(&mut self) {
        if self.bw <= 0.0 {
            return;
        }
        let rate = self.pacing_gain * self.bw * (1.0 - PACING_MARGIN);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Draft `BBRSetCwnd` with `BBRBoundCwndForProbeRTT` and `BBRBoundCwndForModel`.
    fn set_cwnd(&mut self, ack: &AckInfo) {
        let max_inflight = self.inflight(self.bw, self.cwnd_gain);
        let acked = f64::from(ack.acked);
        if ack.lost > 0 {
            self.cwnd = (self.cwnd - f64::from(ack.lost)).max(1.0);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(f64::from(ack.in_flight) + acked);
        } else if self.full_bw_reached {
            self.cwnd = (self.cwnd + acked).min(max_inflight);
        } else if self.cwnd < max_inflight || self.delivered < u64::from(INITIAL_WINDOW.max(self.cfg.initial_window)) {
            self.cwnd += acked;
        }
        self.cwnd = self.cwnd.max(MIN_PIPE_CWND);
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        let mut cap = match self.state {
            State::Down | State::Refill | State::Up => self.inflight_hi,
            State::Cruise | State::ProbeRtt => self.inflight_with_headroom(),
            _ => f64::INFINITY,
        };
        cap = cap.min(self.inflight_lo).max(MIN_PIPE_CWND);
        self.cwnd = self.cwnd.min(cap).floor();
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    /// In wire bytes/s: the transport spaces whole packets.
    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate * f64::from(MTU) / f64::from(MSS))
    }

    /// Draft `BBRUpdateOnACK`: model and state, then pacing rate and cwnd.
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.delivered = ack.delivered;
        if self.in_recovery && !ack.in_recovery {
            // The transport says recovery (fast recovery or after an RTO) is over.
            self.on_recovery_exit(now);
        }
        if ack.srtt.is_some() && self.srtt.is_none() && self.bw <= 0.0 {
            // v3 `bbr_init_pacing_rate_from_rtt` once the first RTT is known.
            let srtt = ack.srtt.unwrap_or(DEFAULT_RTT).max(Dur::from_micros(1));
            self.pacing_rate = self.cfg.startup_pacing_gain * self.cwnd * f64::from(MSS) / srtt.secs_f64()
                * (1.0 - PACING_MARGIN);
        }
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        let rs = ack.rate.filter(|r| r.delivery_rate.is_finite() && r.delivery_rate >= 0.0 && r.interval > Dur::ZERO);
        let app_limited = rs.is_none_or(|r| r.is_app_limited || r.prior_delivered < self.app_limited_until);
        let prior_in_flight = f64::from(ack.in_flight) + f64::from(ack.acked) + f64::from(ack.lost);
        // Linux's `rs->tx_in_flight`, the data in flight when the sampled segment left: the
        // segments delivered while it was in flight plus those lost meanwhile (see the module's
        // simplifications); without a sample, the data in flight before this ACK.
        let tx_in_flight = match rs {
            Some(r) => r.delivered as f64 + f64::from(ack.lost),
            None => f64::from(ack.in_flight) + f64::from(ack.acked) + f64::from(ack.lost),
        };

        // Round counting (draft `BBRUpdateRound`).
        self.round_start = false;
        if let Some(r) = rs {
            if r.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = self.delivered;
                self.round_start = true;
                self.rounds_since_bw_probe += 1;
            }
        }
        if self.in_recovery && self.packet_conservation && self.delivered >= self.recovery_round_end {
            self.packet_conservation = false;
        }

        // Congestion signals of the round (draft `BBRUpdateLatestDeliverySignals`,
        // `BBRUpdateCongestionSignals`).
        if let Some(r) = rs {
            self.bw_latest = self.bw_latest.max(r.delivery_rate);
            self.inflight_latest = self.inflight_latest.max(r.delivered as f64);
            if r.delivery_rate >= self.max_bw() || !app_limited {
                self.bw_hi[1] = self.bw_hi[1].max(r.delivery_rate);
            }
        }
        if ack.lost > 0 {
            self.loss_in_round = true;
            self.loss_events_in_round += 1;
        }
        self.lost_in_round += u64::from(ack.lost);
        self.delivered_in_round += u64::from(ack.acked);
        if ack.echo == Echo::Ce {
            self.ce_in_round += u64::from(ack.acked);
        }

        self.check_full_bw_reached(app_limited);
        let probe_started = self.full_bw_reached && self.adapt_upper_bounds(now, ack, tx_in_flight, app_limited);
        if self.round_start {
            self.check_startup_congestion(tx_in_flight);
            self.adapt_lower_bounds();
            if self.cfg.ecn && self.delivered_in_round > 0 {
                // v3 `bbr_update_ecn_alpha`, once per round.
                let ratio = self.ce_in_round as f64 / self.delivered_in_round as f64;
                self.ecn_alpha += ECN_ALPHA_GAIN * (ratio - self.ecn_alpha);
            }
            self.loss_in_round = false;
            self.lost_in_round = 0;
            self.loss_events_in_round = 0;
            self.delivered_in_round = 0;
            self.ce_in_round = 0;
        }
        // Draft `BBRCheckStartupDone` and `BBRCheckDrainDone`.
        if self.state == State::Startup && self.full_bw_reached {
            self.state = State::Drain;
            self.pacing_gain = self.cfg.drain_gain;
            self.cwnd_gain = STARTUP_CWND_GAIN;
        }
        if self.state == State::Drain && f64::from(ack.in_flight) <= self.inflight(self.max_bw(), 1.0) {
            self.start_down(now);
        }
        if !probe_started {
            self.update_cycle_phase(now, prior_in_flight, ack.cwnd_limited);
        }
        self.update_min_rtt(now, ack);
        if self.round_start {
            // Draft `BBRAdvanceLatestDeliverySignals`.
            if let Some(r) = rs {
                self.bw_latest = r.delivery_rate;
                self.inflight_latest = r.delivered as f64;
            }
        }
        // Draft `BBRBoundBWForModel`.
        self.bw = self.max_bw().min(self.bw_lo);
        self.set_pacing_rate();
        self.set_cwnd(ack);
    }

    /// Entering fast recovery (draft §4.6.4.4): save cwnd, packet conservation for a round.
    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, in_flight: u32) {
        if kind != CongestionKind::Loss || self.in_recovery {
            return;
        }
        self.save_cwnd();
        self.in_recovery = true;
        self.packet_conservation = true;
        self.recovery_round_end = self.delivered + u64::from(in_flight);
        self.cwnd = (f64::from(in_flight) + 1.0).max(MIN_PIPE_CWND).min(self.cwnd.max(MIN_PIPE_CWND));
    }

    /// Leaving recovery restores the saved cwnd (draft `BBRRestoreCwnd`).
    fn on_recovery_exit(&mut self, _now: Time) {
        self.in_recovery = false;
        self.packet_conservation = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// RTO (draft §4.6.4.4): save cwnd, one segment in flight.
    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        self.save_cwnd();
        self.in_recovery = true;
        self.packet_conservation = false;
        self.cwnd = 1.0;
    }

    fn on_spurious_rto(&mut self, _now: Time) {
        self.in_recovery = false;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics { cwnd: self.cwnd, pacing_rate: self.pacing_rate(), ..CcMetrics::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;

    const RTT: Dur = Dur::from_millis(100);
    /// 1000 segments/s: a BDP of 100 segments at 100 ms.
    const BW: f64 = 1000.0 * MSS as f64;

    /// A path of fixed bandwidth and RTT, driven one ACK of one segment at a time.
    struct Path {
        now: Time,
        delivered: u64,
    }

    impl Path {
        fn ack(&mut self, cc: &mut Bbr3, in_flight: u32, lost: u32, rtt: Dur) {
            self.now += Dur::from_millis(1);
            self.delivered += 1;
            let rate = RateSample {
                delivery_rate: BW,
                delivered: u64::from(in_flight),
                interval: RTT,
                prior_delivered: self.delivered.saturating_sub(u64::from(in_flight)),
                is_app_limited: false,
            };
            let ack = AckInfo {
                acked: 1,
                rtt: Some(rtt),
                srtt: Some(rtt),
                in_flight,
                cwnd_limited: true,
                lost,
                delivered: self.delivered,
                rate: Some(rate),
                ..AckInfo::default()
            };
            cc.on_ack(self.now, &ack);
        }
    }

    fn fresh() -> (Bbr3, Path) {
        (Bbr3::new(Bbr3Config::default(), Time::ZERO, Rng::stream(1, 0)), Path { now: Time::ZERO, delivered: 0 })
    }

    #[test]
    fn defaults_are_the_drafts_and_linux_v3_constants() {
        let c = Bbr3Config::default();
        assert_eq!((c.startup_pacing_gain, c.drain_gain, c.down_gain), (2.77, 0.35, 0.9));
        assert_eq!((c.loss_thresh, c.beta, c.headroom, c.ecn), (0.02, 0.7, 0.15, false));
        assert_eq!((c.probe_rtt, c.probe_rtt_interval), (Dur::from_millis(200), Dur::from_secs(5)));
    }

    #[test]
    fn its_plot_colour_is_used_by_no_other_scheme() {
        let others = crate::cc::SCHEMES.iter().filter(|s| s.name != "bbr3" && s.style.0.eq_ignore_ascii_case(BBR3.style.0));
        assert_eq!(others.count(), 0);
    }

    #[test]
    fn a_flat_bandwidth_ends_startup_and_drain_then_cruises_at_the_bdp() {
        let (mut cc, mut p) = fresh();
        assert_eq!(cc.state(), State::Startup);
        // 100 segments per round at a constant rate: no 25 % growth.
        for _ in 0..600 {
            p.ack(&mut cc, 100, 0, RTT);
        }
        assert!(cc.full_bw_reached());
        assert!(matches!(cc.state(), State::Down | State::Cruise), "{:?}", cc.state());
        // cwnd ≤ 2·BDP + quantization budget; pacing at bw · (1 − 1 %) in CRUISE, 0.9 in DOWN.
        assert!(cc.window() <= 2.0 * 100.0 + 4.0, "cwnd {}", cc.window());
        let pacing = cc.pacing_rate().unwrap() * f64::from(MSS) / f64::from(MTU);
        assert!((BW * 0.9 * 0.99 - 1e-6..=BW * 0.99 + 1e-6).contains(&pacing), "pacing {pacing}");
        assert!(cc.inflight_hi().is_infinite(), "no loss: no upper bound");
    }

    #[test]
    fn heavy_loss_in_startup_sets_inflight_hi_and_exits() {
        let (mut cc, mut p) = fresh();
        for _ in 0..150 {
            p.ack(&mut cc, 100, 0, RTT);
        }
        assert_eq!(cc.state(), State::Startup, "growth not yet judged flat");
        // A round with 8 loss events of 2 segments (16 % of 100 in flight) > 2 %, ≥ 6 events.
        for i in 0..200 {
            p.ack(&mut cc, 100, if i < 8 { 2 } else { 0 }, RTT);
        }
        assert!(cc.full_bw_reached());
        assert!(cc.inflight_hi().is_finite() && cc.inflight_hi() >= 100.0, "inflight_hi {}", cc.inflight_hi());
    }

    #[test]
    fn probe_rtt_after_five_seconds_cuts_cwnd_to_half_a_bdp() {
        let (mut cc, mut p) = fresh();
        for _ in 0..600 {
            p.ack(&mut cc, 100, 0, RTT);
        }
        // RTT samples above the minimum for over 5 s.
        let mut entered = false;
        for _ in 0..6000 {
            p.ack(&mut cc, 100, 0, RTT + Dur::from_millis(10));
            if cc.state() == State::ProbeRtt {
                entered = true;
                // 0.5 · BDP (100 segments), never below 4.
                assert!(cc.window() <= 50.0, "cwnd {} in PROBE_RTT", cc.window());
                break;
            }
        }
        assert!(entered, "PROBE_RTT 5 s after the last min RTT sample");
    }
}
