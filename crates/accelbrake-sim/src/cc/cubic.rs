//! CUBIC, following Linux `net/ipv4/tcp_cubic.c` (v6.12+, where `bictcp_update` keeps
//! `last_time` in microseconds) including HyStart, with RFC 9438 for the formulas.
//!
//! Sources:
//! - Linux `tcp_cubic.c`: `bictcp_update` (per-ACK target and `cnt`), `cubictcp_recalc_ssthresh`
//!   (multiplicative decrease and fast convergence), `cubictcp_state` (reset on RTO),
//!   `cubictcp_cwnd_event` (idle restart), `cubictcp_acked` / `hystart_update` (HyStart).
//! - Linux `tcp_cong.c`: `tcp_slow_start`, `tcp_cong_avoid_ai` (shared with
//!   [`super::newreno`]); `tcp_input.c` `tcp_enter_loss` (when an RTO reduces ssthresh).
//! - RFC 9438 (CUBIC): eq. 1 `W_cubic(t) = C (t - K)^3 + W_max` ([`w_cubic`]), eq. 2
//!   `K = cbrt(W_max (1 - β) / C)` ([`k`]), §4.3 Reno-friendly region, §4.6 β = 0.7,
//!   §4.7 fast convergence, §5 C = 0.4.
//! - HyStart: Ha & Rhee, "Taming the elephants" (Computer Networks 2011), as coded in Linux.
//!
//! Deviations from Linux, all deliberate:
//! - The cubic target is computed in `f64` (exact cube root, time in nanoseconds) instead of
//!   Linux's fixed point (`cubic_root` table + Newton step, ~0.2% error; time in jiffies scaled to
//!   1/1024 s). The window itself stays an integer count of segments, as `snd_cwnd` is, and
//!   `cnt` / the target are integers as in Linux.
//! - `delay_min` is the connection's minimum RTT (`AckInfo::min_rtt`) combined with this module's
//!   own samples; Linux keeps only its own samples, skipping those in the first second of an epoch.
//! - A HyStart round ends, as in Linux, when the ACKs pass the data that was outstanding when the
//!   round began (`snd_una > end_seq` with `end_seq = snd_nxt`). Without sequence numbers this is
//!   counted: the round ends once `min(cwnd, in_flight + 1)` further segments have been ACKed,
//!   both taken at the round start (in a cwnd-limited flow that is one window of data).
//! - HyStart's ACK-train cushion for TSO/GRO (`hystart_ack_delay`) is zero: the simulator has no
//!   segmentation offload. The sender is unpaced, so the train threshold is `delay_min / 2`.
//! - On an RTO the window is one segment (Linux: `packets_in_flight + 1`, normally 1).
//! - An RTO during fast recovery or a repeated RTO without progress keeps ssthresh (as
//!   `tcp_enter_loss` does); an RTO during an ECN window reduction (Linux `TCP_CA_CWR`) is not
//!   distinguished and recomputes it.
//! - During fast recovery the window is held at ssthresh (no PRR); after an RTO it slow-starts
//!   although `AckInfo::in_recovery` is set, because Linux's `TCP_CA_Loss` is not a reduction state.

use super::newreno::{ABE_SLOW_START_PARAM, INFINITE_SSTHRESH, INITIAL_WINDOW_PARAM, LOSS_WINDOW, MIN_SSTHRESH, reported_ssthresh, tcp_cong_avoid_ai, tcp_slow_start, tcp_undo_cwnd_reduction};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::error::{Error, Result};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// Fixed-point scale of beta (tcp_cubic.c `BICTCP_BETA_SCALE`).
const BETA_SCALE: u64 = 1024;
/// Multiplicative decrease: tcp_cubic.c `beta = 717` (/1024 ≈ 0.7002); RFC 9438 §4.6 β = 0.7.
pub const BETA_CUBIC: f64 = 717.0 / 1024.0;
/// Cubic scaling constant, segments/s³: RFC 9438 §5 C = 0.4 (tcp_cubic.c `bic_scale = 41`,
/// `41 * 10 / 1024 ≈ 0.4004`).
pub const C_CUBIC: f64 = 0.4;
/// Smallest `cnt`: at most one segment of growth per two ACKed (tcp_cubic.c `max(ca->cnt, 2U)`).
const CNT_MIN: u32 = 2;
/// Cap on `cnt` while no maximum is known, "increase cwnd 5% per RTT" (tcp_cubic.c).
const CNT_CAP_NO_MAX: u32 = 20;
/// `cnt = 100 * cwnd` when the target is not above cwnd, "very small increment" (tcp_cubic.c).
const CNT_FLAT_FACTOR: u64 = 100;
/// Recompute `cnt` at least this often when cwnd is unchanged (tcp_cubic.c `USEC_PER_SEC / 32`).
const UPDATE_HOLD: Dur = Dur::from_micros(1_000_000 / 32);
/// Run the cubic function at most once per this interval (tcp_cubic.c `USEC_PER_MSEC`).
const UPDATE_MIN_GAP: Dur = Dur::from_millis(1);
/// Delay samples are discarded for this long after an epoch starts (tcp_cubic.c `HZ`).
const DELAY_SAMPLE_HOLDOFF: Dur = Dur::from_secs(1);
/// Smallest delay sample (tcp_cubic.c: `if (delay == 0) delay = 1` microsecond).
const MIN_DELAY_SAMPLE: Dur = Dur::from_micros(1);

/// Within [`DELAY_SAMPLE_HOLDOFF`] of the start of the current epoch.
fn in_holdoff(epoch_start: Option<Time>, now: Time) -> bool {
    epoch_start.is_some_and(|e| now.saturating_since(e) < DELAY_SAMPLE_HOLDOFF)
}

/// `hystart_detect` bit: ACK-train detection (tcp_cubic.c `HYSTART_ACK_TRAIN`).
pub const HYSTART_ACK_TRAIN: u32 = 0x1;
/// `hystart_detect` bit: delay-increase detection (tcp_cubic.c `HYSTART_DELAY`).
pub const HYSTART_DELAY: u32 = 0x2;
/// RTT samples per round before the delay test runs (tcp_cubic.c `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Lower clamp of the delay threshold `delay_min / 8` (tcp_cubic.c `HYSTART_DELAY_MIN`, 4 ms).
const HYSTART_DELAY_MIN: Dur = Dur::from_millis(4);
/// Upper clamp of the delay threshold (tcp_cubic.c `HYSTART_DELAY_MAX`, 16 ms).
const HYSTART_DELAY_MAX: Dur = Dur::from_millis(16);
/// HyStart runs only from this window on (tcp_cubic.c `hystart_low_window = 16`).
pub const HYSTART_LOW_WINDOW: u32 = 16;
/// ACKs closer than this form a train (tcp_cubic.c `hystart_ack_delta_us = 2000`).
pub const HYSTART_ACK_DELTA: Dur = Dur::from_millis(2);

/// RFC 9438 eq. 2: time in seconds for the cubic curve to climb back to `w_max` after a
/// reduction to `beta * w_max`, `K = cbrt(w_max (1 - beta) / c)`. Zero if that is not positive.
pub fn k(w_max: f64, beta: f64, c: f64) -> f64 {
    let x = w_max * (1.0 - beta) / c;
    if x > 0.0 {
        libm::cbrt(x)
    } else {
        0.0
    }
}

/// RFC 9438 eq. 1: the cubic window (segments) `t_secs` after a reduction from `w_max`,
/// `W_cubic(t) = c (t - K)^3 + w_max` with `K` from [`k`].
pub fn w_cubic(t_secs: f64, w_max: f64, beta: f64, c: f64) -> f64 {
    let d = t_secs - k(w_max, beta, c);
    c * d * d * d + w_max
}

/// Cubic's parameters (keys `cubic.<name>`; Linux `tcp_cubic` module parameters).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("beta", BETA_CUBIC, Unit::None, 0.0, 1.0)
        .open(true, true)
        .doc("multiplicative decrease (used at 1/1024 resolution, as Linux)", "tcp_cubic.c beta = 717/1024; RFC 9438 §4.6"),
    Param::real("c", C_CUBIC, Unit::None, 0.0, 1e6)
        .open(true, false)
        .doc("cubic scaling constant, segments/s³", "RFC 9438 §5 (tcp_cubic.c bic_scale = 41)"),
    Param::flag("fast_convergence", true).doc("release bandwidth faster when the maximum shrinks", "RFC 9438 §4.7; tcp_cubic.c"),
    Param::flag("tcp_friendliness", true).doc("never grow slower than an emulated Reno flow", "RFC 9438 §4.3; tcp_cubic.c"),
    Param::flag("hystart", true).doc("hybrid slow start", "Ha & Rhee 2011; tcp_cubic.c hystart = 1"),
    Param::whole("hystart_detect", (HYSTART_ACK_TRAIN | HYSTART_DELAY) as u64, Unit::None, 0, 3)
        .doc("HyStart detectors, bit set: 1 ACK train, 2 delay increase", "tcp_cubic.c hystart_detect = 3"),
    Param::whole("hystart_low_window", HYSTART_LOW_WINDOW as u64, Unit::Segments, 0, u32::MAX as u64)
        .doc("HyStart acts only from this window on", "tcp_cubic.c hystart_low_window = 16"),
    Param::real("hystart_ack_delta_ms", 2.0, Unit::Ms, 0.0, 1000.0)
        .doc("largest ACK spacing within an ACK train", "tcp_cubic.c hystart_ack_delta_us = 2000"),
    Param::real("beta_ecn", 0.85, Unit::None, 0.0, 1.0)
        .open(true, false)
        .unset()
        .doc("ABE decrease on an ECN echo (unset: answered like a loss, as Linux; cubic-abe: 0.85)", "RFC 8511; ABE paper's Cubic value 0.85"),
    ABE_SLOW_START_PARAM,
    super::RACK_PARAM,
    Param::flag("prr", false).doc(
        "transport with Linux's proportional rate reduction in fast recovery (off: the reduced window at once, RFC 6675)",
        "RFC 6937; Linux tcp_cwnd_reduction (≥ 3.2); docs/emulation.md",
    ),
    super::LINUX_RTO_PARAM,
    super::ECN_CWR_PARAM,
];

/// Linux Cubic over drop-tail.
pub const CUBIC: Scheme = Scheme {
    name: "cubic",
    display: "Cubic",
    family: "cubic",
    summary: "Linux tcp_cubic incl. HyStart",
    source: "RFC 9438; Linux net/ipv4/tcp_cubic.c",
    marking: Marking::None,
    queue: "droptail",
    pairs: &["codel", "pie"],
    params: &[PARAMS],
    preset: &[],
    style: ("#1f77b4", "o"),
    build: |v, now, _rng| Ok(Box::new(Cubic::new(CubicConfig::checked(v)?, now))),
    warnings: None,
};

/// Cubic with ABE (RFC 8511): ECN on, an ECN echo reduces the window by β_ecn = 0.85.
pub const CUBIC_ABE: Scheme = Scheme {
    name: "cubic-abe",
    display: "Cubic-ABE",
    summary: "ABE (RFC 8511) on Cubic: ECN on, β_ecn = 0.85 on an ECN echo",
    source: "RFC 8511; ABE paper (CoNEXT 2017) and FreeBSD's Cubic value",
    marking: Marking::Ecn,
    queue: "codel",
    pairs: &["pie"],
    preset: &[("beta_ecn", 0.85)],
    style: ("#bd9e39", "v"),
    ..CUBIC
};

/// CUBIC parameters (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct CubicConfig {
    /// `initial_window`: initial window in segments.
    pub initial_window: u32,
    /// `beta`: multiplicative decrease, in (0, 1), used at 1/1024 resolution like Linux.
    pub beta: f64,
    /// `c`: cubic scaling constant in segments/s³.
    pub c: f64,
    /// `fast_convergence`: release bandwidth faster when the maximum shrinks.
    pub fast_convergence: bool,
    /// `tcp_friendliness`: never grow slower than an emulated Reno flow.
    pub tcp_friendliness: bool,
    /// `hystart`: hybrid slow start.
    pub hystart: bool,
    /// `hystart_detect`: bit set of [`HYSTART_ACK_TRAIN`] and [`HYSTART_DELAY`].
    pub hystart_detect: u32,
    /// `hystart_low_window`: HyStart only acts from this window (segments) on.
    pub hystart_low_window: u32,
    /// `hystart_ack_delta_ms`: largest ACK spacing within an ACK train.
    pub hystart_ack_delta: Dur,
    /// `beta_ecn`: ABE (RFC 8511). `None`: an ECN echo is answered like a loss (Linux).
    /// `Some(b)`: `ssthresh = cwnd = max(b · FlightSize, 2)` on an ECN echo; W_max is updated as
    /// for a loss.
    pub beta_ecn: Option<f64>,
    /// `abe_slow_start`: apply `beta_ecn` also when a mark ends slow start (ABE paper, default);
    /// off = RFC 8511 authors' reading (slow-start marks use `beta`).
    pub abe_slow_start: bool,
    /// `rack`: the transport detects lost retransmissions and marks losses on an RTO as Linux's
    /// RACK does ([`CongestionControl::detects_lost_retransmissions`]); off: RFC 6675 alone.
    pub rack: bool,
    /// `prr`: the transport reduces the window in fast recovery by PRR (RFC 6937) as Linux does
    /// ([`CongestionControl::reduces_proportionally`]); off: the reduced window at once.
    pub prr: bool,
    /// `linux_rto`: the transport computes its RTO as Linux does
    /// ([`CongestionControl::computes_rto_as_linux`]); off: RFC 6298.
    pub linux_rto: bool,
    /// `ecn_cwr`: the transport answers an ECN echo with Linux's CWR state and PRR
    /// ([`CongestionControl::reduces_ecn_as_linux`]); off: the reduced window at once.
    pub ecn_cwr: bool,
}

crate::default_from_table!(CubicConfig);

impl Config for CubicConfig {
    const PREFIX: &'static str = "cubic";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> CubicConfig {
        CubicConfig {
            initial_window: v.whole("initial_window"),
            beta: v.real("beta"),
            c: v.real("c"),
            fast_convergence: v.flag("fast_convergence"),
            tcp_friendliness: v.flag("tcp_friendliness"),
            hystart: v.flag("hystart"),
            hystart_detect: v.whole("hystart_detect"),
            hystart_low_window: v.whole("hystart_low_window"),
            hystart_ack_delta: v.ms("hystart_ack_delta_ms"),
            beta_ecn: v.opt_real("beta_ecn"),
            abe_slow_start: v.flag("abe_slow_start"),
            rack: v.flag("rack"),
            prr: v.flag("prr"),
            linux_rto: v.flag("linux_rto"),
            ecn_cwr: v.flag("ecn_cwr"),
        }
    }

    /// Linux keeps beta in 1/1024 units: it must round to 1..=1023 of them.
    fn check(&self) -> Result<()> {
        if (1.0..=1023.0).contains(&(self.beta * 1024.0).round()) {
            Ok(())
        } else {
            Err(Error::Param {
                key: format!("{}.beta", Self::PREFIX),
                msg: format!("got {}; expected a number in (0, 1) (resolution 1/1024), e.g. 0.7", self.beta),
            })
        }
    }
}

/// Linux `struct bictcp` up to `unused`: the state `bictcp_reset` zeroes (plus `found`).
#[derive(Clone, Debug, Default)]
struct Bic {
    /// Grow cwnd by one per `cnt` segments ACKed.
    cnt: u32,
    /// Window before the last reduction, after fast convergence (`last_max_cwnd`, W_max).
    last_max_cwnd: u32,
    /// cwnd when `cnt` was last computed.
    last_cwnd: u32,
    /// When `cnt` was last computed (`None` after a reset).
    last_time: Option<Time>,
    /// Window at the origin (plateau) of the cubic function.
    origin_point: u32,
    /// Seconds from the epoch start to the origin point (`bic_K`).
    k_secs: f64,
    /// Minimum delay (`delay_min`).
    delay_min: Option<Dur>,
    /// Start of the current congestion-avoidance epoch (`None`: none yet, Linux `0`).
    epoch_start: Option<Time>,
    /// Segments ACKed in the epoch, for the Reno emulation (`ack_cnt`).
    ack_cnt: u64,
    /// Emulated Reno window (`tcp_cwnd`).
    tcp_cwnd: u64,
    /// HyStart found the exit point in this slow start (`found`).
    found: bool,
}

/// CUBIC congestion controller (Linux `struct bictcp` plus the `tcp_sock` fields it drives).
#[derive(Clone, Debug)]
pub struct Cubic {
    /// Parameters.
    cfg: CubicConfig,
    /// `beta` in units of 1/1024 (tcp_cubic.c `beta`).
    beta_1024: u64,
    /// Reno-emulation scale `8 (1024 + beta) / 3 / (1024 - beta)` (tcp_cubic.c `beta_scale`).
    beta_scale: u64,
    /// Congestion window, segments (`snd_cwnd`).
    cwnd: u32,
    /// Congestion-avoidance credit (`snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// Slow-start threshold, segments (`snd_ssthresh`); [`INFINITE_SSTHRESH`] initially.
    ssthresh: u32,
    /// Cubic function state.
    bic: Bic,
    /// Delay samples taken this HyStart round (`sample_cnt`).
    sample_cnt: u32,
    /// Start of the HyStart round (`round_start`).
    round_start: Time,
    /// Last ACK of the current ACK train (`last_ack`).
    last_ack: Time,
    /// Smallest delay sample this round (`curr_rtt`).
    curr_rtt: Option<Dur>,
    /// The round ends when `delivered` reaches this (stands for `end_seq`, see module doc).
    round_end: u64,
    /// Segments ACKed over the connection's life (stands for `snd_una`).
    delivered: u64,
    /// Last transmission (`lsndtime`).
    last_send: Option<Time>,
    /// In RTO loss recovery (`TCP_CA_Loss`): the window grows despite `in_recovery`.
    in_loss: bool,
    /// In fast recovery after a loss event (`TCP_CA_Recovery`).
    in_fast_recovery: bool,
    /// An RTO fired and nothing was ACKed since (`icsk_retransmits != 0`).
    rto_backoff: bool,
    /// Window and threshold before the last RTO, for undo (Linux `prior_cwnd`, `prior_ssthresh`).
    prior: (u32, u32),
}

impl Cubic {
    /// A controller in slow start (infinite ssthresh) whose first HyStart round begins at `now`.
    pub fn new(cfg: CubicConfig, now: Time) -> Cubic {
        let beta_1024 = ((cfg.beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1);
        Cubic {
            beta_1024,
            beta_scale: 8 * (BETA_SCALE + beta_1024) / 3 / (BETA_SCALE - beta_1024),
            cwnd: cfg.initial_window.max(1),
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            bic: Bic::default(),
            sample_cnt: 0,
            round_start: now,
            last_ack: now,
            curr_rtt: None,
            // Linux: end_seq = snd_nxt = snd_una, so the first HyStart update starts a round.
            round_end: 0,
            delivered: 0,
            last_send: None,
            in_loss: false,
            in_fast_recovery: false,
            rto_backoff: false,
            prior: (0, 0),
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &CubicConfig {
        &self.cfg
    }

    /// Whether Linux `bictcp_acked` would take `ack`'s delay sample: it carries an RTT and the
    /// epoch is not in its first second ("discard delay samples right after fast recovery").
    pub fn takes_delay_sample(&self, now: Time, ack: &AckInfo) -> bool {
        ack.rtt.is_some() && !in_holdoff(self.bic.epoch_start, now)
    }

    /// Whether the window is below ssthresh (Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Clamp the window to at most `max_segments` (rounded down, but never below 2 segments); a
    /// smaller window is left alone, and a NaN cap is ignored. Used by ABC-Cubic (paper §4.1) to
    /// keep `w_cubic` within twice the data in flight.
    pub fn cap_window(&mut self, max_segments: f64) {
        if max_segments.is_nan() {
            return;
        }
        let cap = (max_segments.floor().min(f64::from(u32::MAX)) as u32).max(2);
        self.cwnd = self.cwnd.min(cap);
    }

    /// Cubic's own multiplicative decrease outside any recovery state (the `ssthresh` hook,
    /// tcp_cubic.c `cubictcp_recalc_ssthresh`: ends the epoch, updates W_max with fast
    /// convergence): `ssthresh = max(beta · cwnd, 2)`. The window is left alone. Returns the new
    /// ssthresh. Used by C2TCP's action enforcer (reference patch `c2tcp_pkts_acked`).
    pub fn reduce_ssthresh(&mut self) -> u32 {
        self.ssthresh = self.recalc_ssthresh();
        self.ssthresh
    }

    /// Set the window to `cwnd` segments (at least 1) and clear the additive-increase credit
    /// `snd_cwnd_cnt`, without entering any recovery state (C2TCP: `snd_cwnd = 1; snd_cwnd_cnt = 0`).
    pub fn set_window(&mut self, cwnd: u32) {
        self.cwnd = cwnd.max(1);
        self.cwnd_cnt = 0;
    }

    /// Add `credit` to the additive-increase credit `snd_cwnd_cnt` shared with Cubic's own
    /// `tcp_cong_avoid_ai`; each whole window of credit grows cwnd by one segment (C2TCP's
    /// good-condition increase, reference patch `c2tcp_pkts_acked`).
    pub fn add_cwnd_credit(&mut self, credit: u32) {
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(credit);
        let w = self.cwnd.max(1);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd = self.cwnd.saturating_add(delta);
        }
    }
    /// tcp_cubic.c `bictcp_hystart_reset`: start a HyStart round of `round_len` segments.
    fn hystart_reset(&mut self, now: Time, round_len: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.round_end = self.delivered.saturating_add(round_len);
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// HyStart found the end of slow start: ssthresh = cwnd.
    fn hystart_exit(&mut self) {
        self.bic.found = true;
        self.ssthresh = self.cwnd;
    }

    /// tcp_cubic.c `hystart_update` with one delay sample.
    fn hystart_update(&mut self, now: Time, delay: Dur, in_flight: u32) {
        if self.delivered >= self.round_end {
            let len = u64::from(self.cwnd).min(u64::from(in_flight) + 1);
            self.hystart_reset(now, len);
        }
        // tcp_cubic.c since 2024 (in 6.18, and backported to the stable branches): rounds are
        // tracked from the first ACK and the window is tested only here, after the round reset,
        // so every round starts with a flight. Before, the first round started when cwnd reached
        // hystart_low_window, inside a flight, and its first delay samples carried that flight's
        // queue (at 400 ms RTT over CoDel: a false delay exit at 144 segments; docs/aqm.md).
        if self.cwnd < self.cfg.hystart_low_window {
            return;
        }
        let delay_min = self.bic.delay_min.unwrap_or(delay);
        if self.cfg.hystart_detect & HYSTART_ACK_TRAIN != 0
            && now.saturating_since(self.last_ack) <= self.cfg.hystart_ack_delta
        {
            self.last_ack = now;
            // Unpaced sender (SK_PACING_NONE): the train must span half the minimum delay.
            let threshold = Dur::from_nanos(delay_min.nanos() / 2);
            if now.saturating_since(self.round_start) > threshold {
                self.hystart_exit();
            }
        }
        if self.cfg.hystart_detect & HYSTART_DELAY != 0 {
            let curr = self.curr_rtt.map_or(delay, |c| c.min(delay));
            self.curr_rtt = Some(curr);
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let eighth = Dur::from_nanos(delay_min.nanos() / 8);
                if curr > delay_min + eighth.clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX) {
                    self.hystart_exit();
                }
            }
        }
    }

    /// tcp_cubic.c `cubictcp_acked`: delay bookkeeping and HyStart, before the window update.
    fn pkts_acked(&mut self, now: Time, ack: &AckInfo) {
        let bic = &mut self.bic;
        if let Some(m) = ack.min_rtt {
            bic.delay_min = Some(bic.delay_min.map_or(m, |d| d.min(m)));
        }
        let Some(rtt) = ack.rtt else { return };
        // "Discard delay samples right after fast recovery."
        if in_holdoff(bic.epoch_start, now) {
            return;
        }
        let delay = rtt.max(MIN_DELAY_SAMPLE);
        bic.delay_min = Some(bic.delay_min.map_or(delay, |d| d.min(delay)));
        if !bic.found && self.cfg.hystart && self.in_slow_start() {
            self.hystart_update(now, delay, ack.in_flight);
        }
    }

    /// tcp_cubic.c `bictcp_update`: compute `cnt` for this ACK.
    fn bictcp_update(&mut self, now: Time, acked: u32) {
        let (cwnd, w, c) = (self.cwnd, u64::from(self.cwnd), self.cfg.c);
        let bic = &mut self.bic;
        bic.ack_cnt = bic.ack_cnt.saturating_add(u64::from(acked));
        let since = bic.last_time.map(|t| now.saturating_since(t));
        if bic.last_cwnd == cwnd && since.is_some_and(|d| d <= UPDATE_HOLD) {
            return;
        }
        // The cubic function runs at most once per UPDATE_MIN_GAP; Reno emulation on every ACK.
        let run_cubic = match (bic.epoch_start, since) {
            (Some(_), Some(d)) => d >= UPDATE_MIN_GAP,
            _ => true,
        };
        if run_cubic {
            bic.last_cwnd = cwnd;
            bic.last_time = Some(now);
            let epoch_start = match bic.epoch_start {
                Some(e) => e,
                None => {
                    // First ACK of the epoch: sync the Reno emulation, place the origin.
                    bic.epoch_start = Some(now);
                    bic.ack_cnt = u64::from(acked);
                    bic.tcp_cwnd = w;
                    if bic.last_max_cwnd <= cwnd {
                        (bic.k_secs, bic.origin_point) = (0.0, cwnd);
                    } else {
                        let gap = f64::from(bic.last_max_cwnd - cwnd);
                        (bic.k_secs, bic.origin_point) = (libm::cbrt(gap / c), bic.last_max_cwnd);
                    }
                    now
                }
            };
            // Aim one minimum delay ahead: t = now - epoch_start + delay_min.
            let t = now.saturating_since(epoch_start) + bic.delay_min.unwrap_or(Dur::ZERO);
            let t = t.secs_f64();
            let offs = (t - bic.k_secs).abs();
            let delta = (c * offs * offs * offs).floor() as u64;
            let origin = u64::from(bic.origin_point);
            let target = if t < bic.k_secs {
                origin.saturating_sub(delta)
            } else {
                origin.saturating_add(delta)
            };
            let cnt = if target > w {
                w / (target - w)
            } else {
                CNT_FLAT_FACTOR * w
            };
            bic.cnt = u32::try_from(cnt).unwrap_or(u32::MAX);
            if bic.last_max_cwnd == 0 {
                bic.cnt = bic.cnt.min(CNT_CAP_NO_MAX);
            }
        }
        if self.cfg.tcp_friendliness {
            // Reno emulation (RFC 9438 §4.3): tcp_cwnd grows by one per `delta` segments ACKed.
            let delta = ((w * self.beta_scale) >> 3).max(1);
            if bic.ack_cnt > delta {
                let n = (bic.ack_cnt - 1) / delta;
                bic.ack_cnt -= n * delta;
                bic.tcp_cwnd = bic.tcp_cwnd.saturating_add(n);
            }
            if bic.tcp_cwnd > w {
                let max_cnt = u32::try_from(w / (bic.tcp_cwnd - w)).unwrap_or(u32::MAX);
                bic.cnt = bic.cnt.min(max_cnt);
            }
        }
        bic.cnt = bic.cnt.max(CNT_MIN);
    }

    /// tcp_cubic.c `cubictcp_recalc_ssthresh`: end the epoch, update W_max (with fast
    /// convergence) and return `max(cwnd * beta, 2)`.
    fn recalc_ssthresh(&mut self) -> u32 {
        self.bic.epoch_start = None;
        let w = u64::from(self.cwnd);
        self.bic.last_max_cwnd = if self.cwnd < self.bic.last_max_cwnd && self.cfg.fast_convergence {
            (w * (BETA_SCALE + self.beta_1024) / (2 * BETA_SCALE)) as u32
        } else {
            self.cwnd
        };
        ((w * self.beta_1024 / BETA_SCALE) as u32).max(MIN_SSTHRESH)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// `cubic.rack`: Linux's RACK loss detection in the transport (on by default in Linux since
    /// 4.4; off here, as for every TCP scheme, so that the papers' comparisons run one transport).
    /// Measured against the kernel in `docs/emulation.md`.
    fn detects_lost_retransmissions(&self) -> bool {
        self.cfg.rack
    }

    /// `cubic.prr`: PRR in fast recovery, as Linux (off here by default, as for every scheme).
    fn reduces_proportionally(&self) -> bool {
        self.cfg.prr
    }

    fn computes_rto_as_linux(&self) -> bool {
        self.cfg.linux_rto
    }

    /// `cubic.ecn_cwr` (default on): Linux's CWR + PRR answer to an ECN echo.
    fn reduces_ecn_as_linux(&self) -> bool {
        self.cfg.ecn_cwr
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    fn on_sent(&mut self, now: Time, in_flight: u32) {
        // cubictcp_cwnd_event(CA_EVENT_TX_START): sending resumes after the pipe ran empty; shift
        // the epoch by the idle time so the cubic curve does not jump.
        if in_flight <= 1 {
            if let (Some(e), Some(last)) = (self.bic.epoch_start, self.last_send) {
                let idle = now.saturating_since(last);
                if idle > Dur::ZERO {
                    self.bic.epoch_start = Some((e + idle).min(now));
                }
            }
        }
        self.last_send = Some(now);
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        if ack.acked == 0 {
            return;
        }
        self.delivered = self.delivered.saturating_add(u64::from(ack.acked));
        self.rto_backoff = false;
        self.pkts_acked(now, ack);
        // cubictcp_cong_avoid: tcp_is_cwnd_limited; fast recovery holds the window (RFC 6675).
        if !ack.cwnd_limited || (ack.in_recovery && !self.in_loss) {
            return;
        }
        let mut acked = ack.acked;
        if self.in_slow_start() {
            acked = tcp_slow_start(&mut self.cwnd, self.ssthresh, acked);
            if acked == 0 {
                return;
            }
        }
        self.bictcp_update(now, acked);
        let cnt = self.bic.cnt;
        tcp_cong_avoid_ai(&mut self.cwnd, &mut self.cwnd_cnt, cnt, acked);
    }

    /// Linux uses `snd_cwnd`, not FlightSize, for CUBIC's reduction; `in_flight` is unused.
    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, in_flight: u32) {
        let in_slow_start = self.cwnd < self.ssthresh;
        let abe = match (kind, self.cfg.beta_ecn) {
            (CongestionKind::Ecn, Some(b)) if self.cfg.abe_slow_start || !in_slow_start => Some(b),
            _ => None,
        };
        self.ssthresh = self.recalc_ssthresh();
        if let Some(b) = abe {
            // RFC 8511 §3 with FlightSize; recalc_ssthresh above still updated W_max.
            self.ssthresh = ((b * f64::from(in_flight)) as u32).max(MIN_SSTHRESH);
        }
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
        self.in_loss = false;
        self.in_fast_recovery = kind == CongestionKind::Loss;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.in_loss = false;
        self.in_fast_recovery = false;
    }

    fn on_rto(&mut self, now: Time, in_flight: u32) {
        if !self.rto_backoff {
            self.prior = (self.cwnd, self.ssthresh);
        }
        // tcp_enter_loss: "Reduce ssthresh if it has not yet been made inside this window."
        if !self.rto_backoff && !self.in_fast_recovery {
            self.ssthresh = self.recalc_ssthresh();
        }
        self.cwnd = LOSS_WINDOW;
        self.cwnd_cnt = 0;
        // cubictcp_state(TCP_CA_Loss); the round ends past the data outstanding now (end_seq).
        self.bic = Bic::default();
        self.hystart_reset(now, u64::from(in_flight) + 1);
        self.in_loss = true;
        self.in_fast_recovery = false;
        self.rto_backoff = true;
    }

    /// Linux `tcp_undo_cwnd_reduction` after a spurious RTO: `cwnd = max(cwnd, prior_cwnd)`
    /// (`tcp_reno_undo_cwnd`, which Cubic uses too), `ssthresh = max(ssthresh, prior_ssthresh)`.
    fn on_spurious_rto(&mut self, _now: Time) {
        tcp_undo_cwnd_reduction(&mut self.cwnd, &mut self.ssthresh, self.prior);
        self.in_loss = false;
        self.rto_backoff = false;
    }

    fn ssthresh(&self) -> Option<f64> {
        reported_ssthresh(self.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::cc::newreno::tests::{stretch_ack, Flow};
    use crate::error::Error;

    const RTT: Dur = Dur::from_millis(100);
    const LOSS: CongestionKind = CongestionKind::Loss;

    fn cubic() -> Cubic {
        Cubic::new(CubicConfig::default(), Time::ZERO)
    }

    #[test]
    fn rack_is_asked_of_the_transport_only_with_the_parameter() {
        assert!(!cubic().detects_lost_retransmissions(), "RFC 6675 alone by default");
        let rack = Cubic::new(with("rack", 1.0).unwrap(), Time::ZERO);
        assert!(rack.detects_lost_retransmissions() && !rack.reduces_proportionally());
        assert!(!cubic().reduces_proportionally(), "the reduced window at once by default");
        assert!(Cubic::new(with("prr", 1.0).unwrap(), Time::ZERO).reduces_proportionally());
        assert!(!cubic().computes_rto_as_linux(), "RFC 6298's RTO by default");
        assert!(Cubic::new(with("linux_rto", 1.0).unwrap(), Time::ZERO).computes_rto_as_linux());
    }

    fn with(key: &str, v: f64) -> Result<CubicConfig> {
        CubicConfig::from_params(&mut Params::from([(key.to_string(), v)]))
    }

    /// A fresh controller grown to exactly `w` segments by one stretch ACK in slow start.
    fn grown_to(cfg: CubicConfig, w: u32, rtt: Dur) -> Cubic {
        let mut cc = Cubic::new(cfg, Time::ZERO);
        cc.on_ack(Time::ZERO, &stretch_ack(w - cc.cwnd, rtt));
        assert_eq!(cc.cwnd, w);
        cc
    }

    /// After a loss at `w_max`: the window after each of `rounds` fluid rounds of `rtt`, keyed by
    /// the time since the epoch started (the first ACK after recovery).
    fn after_loss(cfg: CubicConfig, w_max: u32, rtt: Dur, rounds: u32) -> Vec<(f64, f64)> {
        let mut cc = grown_to(cfg, w_max, rtt);
        cc.on_congestion_event(Time::ZERO, LOSS, w_max);
        cc.on_recovery_exit(Time::ZERO);
        let mut flow = Flow::new(&cc);
        let mut out = Vec::new();
        for j in 1..=rounds {
            flow.round(&mut cc, rtt, 1.0);
            out.push((f64::from(j) * rtt.secs_f64(), cc.window()));
        }
        out
    }

    #[test]
    fn rfc9438_helpers_match_the_formula() {
        assert!((k(100.0, 0.7, 0.4) - 75f64.cbrt()).abs() < 1e-12);
        assert!((w_cubic(0.0, 100.0, 0.7, 0.4) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k(100.0, 0.7, 0.4), 100.0, 0.7, 0.4) - 100.0).abs() < 1e-9);
        assert_eq!(k(f64::NAN, 0.7, 0.4), 0.0);
    }

    #[test]
    fn slow_start_doubles_per_round_without_a_false_hystart_exit() {
        let mut cc = cubic();
        let mut flow = Flow::new(&cc);
        for expected in [20.0, 40.0, 80.0, 160.0, 320.0] {
            flow.round(&mut cc, RTT, 0.1);
            assert_eq!(cc.window(), expected);
        }
        assert!(cc.in_slow_start());
        assert_eq!(cc.metrics().ssthresh, None);
    }

    #[test]
    fn loss_multiplies_by_0_7_and_fast_convergence_lowers_last_max() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        assert_eq!(
            (cc.window(), cc.ssthresh(), cc.bic.last_max_cwnd),
            (70.0, Some(70.0), 100)
        );
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 70);
        // Fast convergence: W_max = 70 * (1 + 0.7) / 2.
        assert_eq!((cc.window(), cc.bic.last_max_cwnd), (49.0, 59));

        let mut cc = grown_to(with("fast_convergence", 0.0).unwrap(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        cc.on_congestion_event(Time::ZERO, LOSS, 70);
        assert_eq!((cc.window(), cc.bic.last_max_cwnd), (49.0, 70));
        for _ in 0..10 {
            cc.on_congestion_event(Time::ZERO, LOSS, 2);
        }
        assert_eq!(cc.window(), 2.0, "never below 2 segments");
    }

    #[test]
    fn rto_sets_loss_window_and_resets_cubic_state() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_rto(Time::ZERO, 100);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(70.0)));
        let bic = &cc.bic;
        assert_eq!((bic.last_max_cwnd, bic.epoch_start, bic.delay_min), (0, None, None));
        cc.on_rto(Time::ZERO, 100);
        assert_eq!(cc.ssthresh(), Some(70.0), "repeated RTO keeps ssthresh");
        // Slow start during RTO recovery although the transport reports in_recovery.
        let mut flow = Flow::new(&cc);
        flow.in_recovery = true;
        flow.round(&mut cc, RTT, 1.0);
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 4.0);
        // An RTO during fast recovery does not reduce ssthresh a second time.
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        cc.on_rto(Time::ZERO, 70);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(70.0)));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_or_in_fast_recovery() {
        let mut cc = cubic();
        let mut flow = Flow::new(&cc);
        flow.cwnd_limited = false;
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 10.0);

        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        let mut flow = Flow::new(&cc);
        flow.in_recovery = true;
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 70.0);
    }

    #[test]
    fn growth_after_loss_follows_the_cubic_curve() {
        // W_max = 1000, RTT = delay_min = 100 ms: Reno emulation stays far below the curve. Linux
        // aims at W(t + delay_min) and needs one RTT of ACKs to get there, so cwnd(t) ≈ W(t).
        assert!((k(1000.0, BETA_CUBIC, C_CUBIC) - 9.08).abs() < 0.01);
        let samples = after_loss(CubicConfig::default(), 1000, RTT, 140);
        for (t, cwnd) in samples.into_iter().skip(9).step_by(10) {
            let w = w_cubic(t, 1000.0, BETA_CUBIC, C_CUBIC);
            assert!((cwnd - w).abs() <= 0.01 * w + 2.0, "t {t}: cwnd {cwnd}, W(t) {w}");
        }
    }

    #[test]
    fn reno_friendly_region_dominates_for_small_windows_and_short_rtts() {
        // W_max = 20, RTT 10 ms. RFC 9438 eq. 4: W_est = β W_max + 3 (1 - β) / (1 + β) t / RTT.
        let rtt = Dur::from_millis(10);
        let alpha = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);
        let friendly = after_loss(CubicConfig::default(), 20, rtt, 200);
        let pure = after_loss(with("tcp_friendliness", 0.0).unwrap(), 20, rtt, 200);
        for ((t, cwnd), (_, cubic_only)) in friendly.into_iter().zip(pure).skip(49).step_by(50) {
            let est = 20.0 * BETA_CUBIC + alpha * t / rtt.secs_f64();
            let cub = w_cubic(t, 20.0, BETA_CUBIC, C_CUBIC);
            assert!(est > cub + 10.0, "t {t}: W_est {est} should dominate W_cubic {cub}");
            assert!((cwnd - est).abs() <= 0.1 * est, "t {t}: cwnd {cwnd}, W_est {est}");
            assert!((cubic_only - cub).abs() <= 3.0, "t {t}: cubic-only {cubic_only}, {cub}");
        }
    }

    /// Slow start with bursty ACKs (no ACK train) whose RTT becomes `later_rtt` after two rounds
    /// at 100 ms; runs until HyStart ends slow start or four more rounds have passed.
    fn hystart_with_rtt(later_rtt: Dur) -> Cubic {
        let mut cc = cubic();
        let mut flow = Flow::new(&cc);
        flow.round(&mut cc, RTT, 0.3);
        flow.round(&mut cc, RTT, 0.3);
        for _ in 0..4 {
            flow.round(&mut cc, later_rtt, 0.3);
            if !cc.in_slow_start() {
                break;
            }
        }
        cc
    }

    #[test]
    fn hystart_delay_exit_triggers_only_above_delay_min_plus_threshold() {
        // Threshold: clamp(100 ms / 8, 4 ms, 16 ms) = 12.5 ms.
        let cc = hystart_with_rtt(Dur::from_millis(120));
        assert!(!cc.in_slow_start() && cc.bic.found);
        // ssthresh is the window at the exit; the rest of that round's ACKs are congestion
        // avoidance, which may have added a segment since.
        let exit = cc.ssthresh().unwrap();
        assert!(exit <= cc.window() && cc.window() <= exit + 1.0, "{exit} vs {}", cc.window());
        assert!((40.0..160.0).contains(&exit), "exit at {exit}");
        let cc = hystart_with_rtt(Dur::from_millis(110));
        assert!(cc.in_slow_start());
        assert_eq!(cc.window(), 640.0);
    }

    #[test]
    fn hystart_ack_train_exit_needs_a_train_longer_than_half_the_min_rtt() {
        let run = |detect: f64, spread: f64| {
            let mut cc = Cubic::new(with("hystart_detect", detect).unwrap(), Time::ZERO);
            let mut flow = Flow::new(&cc);
            for _ in 0..6 {
                flow.round(&mut cc, RTT, spread);
            }
            (cc.in_slow_start(), cc.window())
        };
        // ACKs spread over the whole RTT: spacing <= 2 ms from 50 segments per round on.
        let (ss, w) = run(1.0, 1.0);
        assert!(!ss && (80.0..=320.0).contains(&w), "exit at {w}");
        assert_eq!(run(1.0, 0.3), (true, 640.0), "30 ms trains are too short");
        assert_eq!(run(2.0, 1.0), (true, 640.0), "train detection disabled");
    }

    #[test]
    fn idle_restart_shifts_the_epoch() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        let mut flow = Flow::new(&cc);
        flow.round(&mut cc, RTT, 1.0);
        let e = cc.bic.epoch_start.unwrap();
        cc.on_sent(flow.now, 5);
        cc.on_sent(flow.now + Dur::from_secs(3), 1);
        assert_eq!(cc.bic.epoch_start, Some(e + Dur::from_secs(3)));
    }

    #[test]
    fn cap_window_clamps_but_never_below_two() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.cap_window(50.7);
        assert_eq!(cc.window(), 50.0);
        cc.cap_window(f64::NAN);
        cc.cap_window(1e12);
        assert_eq!(cc.window(), 50.0);
        cc.cap_window(-3.0);
        assert_eq!(cc.window(), 2.0);
        assert!(cc.in_slow_start());
    }

    #[test]
    fn parameter_validation_names_the_key() {
        let rejected = |key: &str, v: f64| match with(key, v) {
            Err(Error::Param { key, msg }) if msg.contains("expected") => key,
            other => panic!("{key} = {v}: {other:?}"),
        };
        for v in [-0.7, 0.0, 1.0, f64::NAN, 0.9999] {
            assert_eq!(rejected("beta", v), "cubic.beta");
        }
        for (key, v) in [
            ("c", 0.0),
            ("hystart_detect", 4.0),
            ("hystart", 2.0),
            ("initial_window", 0.0),
        ] {
            assert_eq!(rejected(key, v), format!("cubic.{key}"));
        }
        let mut p = Params::from([("beta".into(), 0.8), ("hystart_ack_delta_ms".into(), 1.5)]);
        p.insert("alpha".into(), 1.0);
        let cfg = CubicConfig::from_params(&mut p).unwrap();
        assert_eq!((cfg.beta, cfg.hystart_ack_delta), (0.8, Dur::from_micros(1500)));
        assert_eq!(p.keys().collect::<Vec<_>>(), ["alpha"]);
        let cc = Cubic::new(cfg, Time::ZERO);
        assert_eq!((cc.beta_1024, cc.beta_scale), (819, 23));
        assert_eq!((cubic().beta_1024, cubic().beta_scale), (717, 15));
    }

    #[test]
    fn controller_is_send() {
        fn is_send<T: Send>() {}
        is_send::<Cubic>();
    }

    #[test]
    fn cubic_abe_uses_beta_ecn_times_flight_size_on_ecn_only() {
        let mut p = Params::from([("beta_ecn".into(), 0.85)]);
        let cfg = CubicConfig::from_params(&mut p).unwrap();
        assert_eq!(cfg.beta_ecn, Some(0.85));
        let mut cc = Cubic::new(cfg, Time::ZERO);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
        assert_eq!(cc.window(), 85.0);
        // Loss still uses beta = 717/1024 of cwnd (Linux).
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 85);
        assert_eq!(cc.window(), (85.0f64 * 717.0 / 1024.0).floor());
        // Without ABE an ECN echo is a loss.
        let mut plain = Cubic::new(CubicConfig::default(), Time::ZERO);
        plain.cap_window(100.0);
        plain.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
        assert_eq!(
            plain.window(),
            7.0,
            "10 · 717/1024 → 7: initial window 10, cap only lowers"
        );
        let mut bad = Params::from([("beta_ecn".into(), 1.5)]);
        assert!(CubicConfig::from_params(&mut bad)
            .unwrap_err()
            .to_string()
            .contains("cubic.beta_ecn"));
    }

    #[test]
    fn bictcp_update_by_hand_including_the_hold_between_updates() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        cc.on_recovery_exit(Time::ZERO);
        assert_eq!((cc.cwnd, cc.bic.last_max_cwnd, cc.bic.delay_min), (70, 100, Some(RTT)));
        let t0 = Time::from_secs(10);
        cc.bictcp_update(t0, 1);
        // The epoch starts: K = cbrt((100 − 70) / 0.4) = cbrt(75) ≈ 4.217 s, origin 100. The target
        // is one delay_min ahead, t = 0.1 s: 0.4·(4.217 − 0.1)³ ≈ 27.9 → 100 − 27 = 73, so
        // cnt = 70 / (73 − 70) = 23. Reno emulation: one segment per (70·15) >> 3 = 131 ACKed.
        let b = &cc.bic;
        assert_eq!(
            (b.epoch_start, b.origin_point, b.cnt, b.tcp_cwnd, b.ack_cnt, b.last_time, b.last_cwnd),
            (Some(t0), 100, 23, 70, 1, Some(t0), 70)
        );
        assert!((b.k_secs - 75f64.cbrt()).abs() < 1e-12);
        // With cwnd unchanged, nothing is recomputed within 1/32 s of the last computation.
        cc.bictcp_update(t0 + Dur::from_millis(1), 2);
        cc.bictcp_update(t0 + Dur::from_micros(31_250), 1);
        assert_eq!((cc.bic.ack_cnt, cc.bic.last_time), (4, Some(t0)));
        let t1 = t0 + Dur::from_micros(31_251);
        cc.bictcp_update(t1, 1);
        assert_eq!((cc.bic.ack_cnt, cc.bic.last_time, cc.bic.cnt), (5, Some(t1), 23));
        // A changed cwnd is recomputed at once, but the cubic function at most once per ms.
        cc.cwnd = 71;
        cc.bictcp_update(t1 + Dur::from_micros(999), 1);
        assert_eq!(cc.bic.last_time, Some(t1));
        cc.bictcp_update(t1 + Dur::from_millis(1), 1);
        assert_eq!((cc.bic.last_time, cc.bic.last_cwnd), (Some(t1 + Dur::from_millis(1)), 71));
        // 0.4·(4.217 − 0.1323)³ ≈ 27.3 → target 73, cnt = 71 / (73 − 71) = 35.
        assert_eq!(cc.bic.cnt, 35);
    }

    #[test]
    fn reno_emulation_by_hand() {
        // cwnd 10 → loss → 7 (10·717/1024), W_max 10; delay_min 10 ms.
        let mut cc = cubic();
        cc.on_congestion_event(Time::ZERO, LOSS, 10);
        cc.on_recovery_exit(Time::ZERO);
        cc.bic.delay_min = Some(Dur::from_millis(10));
        assert_eq!((cc.cwnd, cc.bic.last_max_cwnd, cc.beta_scale), (7, 10, 15));
        let t0 = Time::from_secs(1);
        cc.bictcp_update(t0, 26);
        // Cubic: K = cbrt(3 / 0.4) ≈ 1.957 s, t = 0.01 s: 0.4·1.947³ ≈ 2.95 → target 10 − 2 = 8,
        // cnt = 7 / (8 − 7) = 7. Reno: one segment per (7·15) >> 3 = 13 ACKed: of 26, n = 25 / 13
        // = 1 segment, 13 left over; tcp_cwnd 8 > 7 caps cnt at 7 / (8 − 7) = 7.
        let b = &cc.bic;
        assert_eq!((b.cnt, b.tcp_cwnd, b.ack_cnt), (7, 8, 13));
        // 40 ms later, one more ACK: 14 > 13, n = 1, tcp_cwnd 9: cnt = min(7, 7 / 2 = 3) = 3.
        cc.bictcp_update(t0 + Dur::from_millis(40), 1);
        let b = &cc.bic;
        assert_eq!((b.cnt, b.tcp_cwnd, b.ack_cnt), (3, 9, 1));
        // Without the Reno emulation cnt follows the cubic target alone.
        let mut pure = Cubic::new(with("tcp_friendliness", 0.0).unwrap(), Time::ZERO);
        pure.on_congestion_event(Time::ZERO, LOSS, 10);
        pure.bic.delay_min = Some(Dur::from_millis(10));
        pure.bictcp_update(t0, 26);
        pure.bictcp_update(t0 + Dur::from_millis(40), 1);
        assert_eq!((pure.bic.cnt, pure.bic.tcp_cwnd), (7, 7));
    }

    #[test]
    fn delay_samples_are_skipped_for_one_second_after_the_epoch_starts() {
        let cfg = with("hystart_low_window", 8.0).unwrap();
        let mut cc = Cubic::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        let mut flow = Flow::new(&cc);
        let ack = flow.ack(RTT);
        assert!(cc.takes_delay_sample(Time::ZERO, &ack), "no epoch yet");
        assert!(!cc.takes_delay_sample(Time::ZERO, &AckInfo { rtt: None, ..ack }));
        cc.on_congestion_event(Time::ZERO, LOSS, 10);
        let e = Time::from_secs(5);
        cc.bictcp_update(e, 1);
        assert_eq!(cc.bic.epoch_start, Some(e));
        assert!(!cc.takes_delay_sample(e + Dur::from_nanos(999_999_999), &ack));
        assert!(cc.takes_delay_sample(e + Dur::from_secs(1), &ack));
        // In the hold-off the sample does not lower delay_min; min_rtt from the transport still does.
        let before = cc.bic.delay_min;
        let late = AckInfo {
            rtt: Some(Dur::from_millis(1)),
            min_rtt: None,
            ..ack
        };
        cc.pkts_acked(e + Dur::from_millis(500), &late);
        assert_eq!(cc.bic.delay_min, before);
        cc.pkts_acked(e + Dur::from_secs(1), &late);
        assert_eq!(cc.bic.delay_min, Some(Dur::from_millis(1)));
        let zero = AckInfo {
            rtt: Some(Dur::ZERO),
            min_rtt: None,
            ..ack
        };
        cc.pkts_acked(e + Dur::from_secs(2), &zero);
        assert_eq!(cc.bic.delay_min, Some(Dur::from_micros(1)), "a zero sample counts as 1 µs");
    }

    #[test]
    fn idle_restart_only_when_the_pipe_is_empty() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        cc.on_congestion_event(Time::ZERO, LOSS, 100);
        let mut flow = Flow::new(&cc);
        flow.round(&mut cc, RTT, 1.0);
        let e = cc.bic.epoch_start.unwrap();
        cc.on_sent(flow.now, 5);
        // Two segments still in flight: not a restart.
        cc.on_sent(flow.now + Dur::from_secs(3), 2);
        assert_eq!(cc.bic.epoch_start, Some(e));
        // The shifted epoch never lies in the future.
        let now = flow.now + Dur::from_secs(4);
        cc.bic.epoch_start = Some(now - Dur::from_millis(10));
        cc.on_sent(now + Dur::from_secs(1), 0);
        assert_eq!(cc.bic.epoch_start, Some(now + Dur::from_secs(1)));
    }

    #[test]
    fn c2tcp_hooks_set_the_window_the_credit_and_ssthresh() {
        let mut cc = cubic();
        cc.add_cwnd_credit(25);
        assert_eq!((cc.cwnd, cc.cwnd_cnt), (12, 5), "25 credit at cwnd 10: two segments, 5 left");
        cc.add_cwnd_credit(6);
        assert_eq!((cc.cwnd, cc.cwnd_cnt), (12, 11));
        cc.add_cwnd_credit(1);
        assert_eq!((cc.cwnd, cc.cwnd_cnt), (13, 0));
        cc.add_cwnd_credit(5);
        cc.set_window(0);
        assert_eq!((cc.cwnd, cc.cwnd_cnt), (1, 0), "at least one segment, credit cleared");
        cc.set_window(40);
        assert_eq!(cc.window(), 40.0);
        // ssthresh = 40·717/1024 = 28; the window stays; W_max and the epoch are updated.
        cc.bic.epoch_start = Some(Time::ZERO);
        assert_eq!(cc.reduce_ssthresh(), 28);
        assert_eq!(
            (cc.window(), cc.ssthresh(), cc.bic.last_max_cwnd, cc.bic.epoch_start),
            (40.0, Some(28.0), 40, None)
        );
    }

    /// A controller in slow start at cwnd 32 with HyStart detectors `detect` and delay_min 100 ms.
    fn hystart_at_32(detect: u32) -> Cubic {
        let mut cc = Cubic::new(with("hystart_detect", f64::from(detect)).unwrap(), Time::ZERO);
        cc.cwnd = 32;
        cc.bic.delay_min = Some(RTT);
        cc
    }

    #[test]
    fn hystart_ack_train_by_hand() {
        let t0 = Time::from_secs(1);
        let mut cc = hystart_at_32(HYSTART_ACK_TRAIN);
        // The first sample starts a round of min(cwnd, in_flight + 1) = 21 segments.
        cc.hystart_update(t0, RTT, 20);
        assert_eq!((cc.round_start, cc.last_ack, cc.round_end), (t0, t0, 21));
        // ACKs 2 ms apart form a train; it must span more than delay_min / 2 = 50 ms.
        for k in 1..=25 {
            cc.hystart_update(t0 + Dur::from_millis(2 * k), RTT, 20);
        }
        assert!(!cc.bic.found && cc.in_slow_start(), "a 50 ms train is not longer than 50 ms");
        cc.hystart_update(t0 + Dur::from_nanos(50_000_001), RTT, 20);
        assert!(cc.bic.found);
        assert_eq!(cc.ssthresh(), Some(32.0));
        // A gap over 2 ms breaks the train: later ACKs are compared with the last ACK in it.
        let mut cc = hystart_at_32(HYSTART_ACK_TRAIN);
        cc.hystart_update(t0, RTT, 20);
        cc.hystart_update(t0 + Dur::from_nanos(2_000_001), RTT, 20);
        for k in 2..40 {
            cc.hystart_update(t0 + Dur::from_millis(2 * k), RTT, 20);
        }
        assert!(!cc.bic.found);
        assert_eq!(cc.last_ack, t0);
    }

    #[test]
    fn hystart_delay_detection_by_hand() {
        // Threshold delay_min + clamp(100 ms / 8, 4 ms, 16 ms) = 112.5 ms, tested from the ninth
        // sample of a round on (the first 8 are only counted), on the round's smallest sample.
        let run = |detect: u32, sample: Dur, n: u64| {
            let mut cc = hystart_at_32(detect);
            for k in 0..n {
                cc.hystart_update(Time::from_secs(1) + Dur::from_millis(10 * k), sample, 20);
            }
            cc.bic.found
        };
        let above = Dur::from_millis(114);
        assert!(!run(HYSTART_DELAY, above, 8));
        assert!(run(HYSTART_DELAY, above, 9));
        assert!(!run(HYSTART_DELAY, Dur::from_micros(112_500), 20), "not above the threshold");
        assert!(!run(HYSTART_ACK_TRAIN, above, 20), "delay detection is off");
        assert!(run(HYSTART_ACK_TRAIN | HYSTART_DELAY, above, 9));
        // One low sample in the round keeps it below the threshold.
        let mut cc = hystart_at_32(HYSTART_DELAY);
        cc.hystart_update(Time::from_secs(1), Dur::from_millis(101), 20);
        for k in 1..20 {
            cc.hystart_update(Time::from_secs(1) + Dur::from_millis(10 * k), above, 20);
        }
        assert_eq!((cc.bic.found, cc.curr_rtt), (false, Some(Dur::from_millis(101))));
    }

    #[test]
    fn fast_convergence_only_below_the_previous_maximum() {
        // A loss at exactly the previous W_max keeps it; just below, W_max = w·(1 + β) / 2.
        let mut cc = cubic();
        cc.set_window(100);
        cc.bic.last_max_cwnd = 100;
        assert_eq!((cc.reduce_ssthresh(), cc.bic.last_max_cwnd), (70, 100));
        cc.set_window(99);
        cc.bic.last_max_cwnd = 100;
        assert_eq!((cc.reduce_ssthresh(), cc.bic.last_max_cwnd), (69, 99 * (1024 + 717) / 2048));
    }

    #[test]
    fn abe_slow_start_flag_chooses_beta_ecn_or_beta_for_a_mark_in_slow_start() {
        let abe = |slow_start: f64| {
            let mut p = Params::from([
                ("beta_ecn".into(), 0.85),
                ("abe_slow_start".into(), slow_start),
            ]);
            let cfg = CubicConfig::from_params(&mut p).unwrap();
            let mut cc = Cubic::new(cfg, Time::ZERO);
            cc.set_window(100);
            cc
        };
        // In slow start (cwnd 100 < ssthresh ∞): the ABE paper's reading uses β_ecn·FlightSize,
        // the RFC authors' reading Cubic's β·cwnd.
        let mut cc = abe(1.0);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 80);
        assert_eq!(cc.window(), 68.0, "0.85 · 80");
        let mut cc = abe(0.0);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 80);
        assert_eq!(cc.window(), 70.0, "100 · 717/1024");
        // Out of slow start (cwnd = ssthresh counts as out) both readings use β_ecn.
        cc.set_window(70);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 60);
        assert_eq!(cc.window(), 51.0, "0.85 · 60");
    }

    #[test]
    fn rto_starts_a_hystart_round_past_the_data_in_flight() {
        let mut cc = grown_to(CubicConfig::default(), 100, RTT);
        let delivered = cc.delivered;
        cc.on_rto(Time::from_secs(2), 5);
        let t = Time::from_secs(2);
        assert_eq!((cc.round_end, cc.round_start, cc.last_ack), (delivered + 6, t, t));
    }
}

