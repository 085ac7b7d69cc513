//! BBR v1, ported from Linux `net/ipv4/tcp_bbr.c` (v6.x) with the windowed max filter of
//! `lib/win_minmax.c`. Scheme name `bbr`.
//!
//! Model: `bw` = windowed max of delivery-rate samples over 10 round trips; `min_rtt` = min RTT
//! over 10 s. Modes STARTUP (gain 2/ln 2 until the bandwidth stops growing 25 % per round for
//! 3 rounds) → DRAIN (pace at 1/2.89 until in-flight ≤ BDP) → PROBE_BW (pacing-gain cycle
//! [5/4, 3/4, 1 ×6], cwnd gain 2); PROBE_RTT (cwnd 4 for ≥ 200 ms and a round) when `min_rtt`
//! has not been refreshed for 10 s. Pacing rate = gain · bw · (1 − 1 %); cwnd target =
//! gain · BDP + 3 · quantum, rounded up to even (+2 in the 5/4 phase).
//! Losses only cost cwnd (`cwnd −= lost`, packet conservation in the first round of recovery,
//! the pre-recovery cwnd restored on exit).
//!
//! Transport mapping: `AckInfo::rate` is Linux's `rate_sample` (`None` = invalid sample,
//! `delivered < 0`), `AckInfo::acked`/`lost`/`rtt`/`delivered`/`in_flight` are `acked_sacked`,
//! `losses`, `rtt_us`, `tp->delivered` and `tcp_packets_in_flight` after the ACK. Linux's
//! `icsk_ca_state` is tracked from the hooks: `on_congestion_event(Loss)` = `TCP_CA_Recovery`,
//! `on_rto` = `TCP_CA_Loss`, `on_recovery_exit`/`on_spurious_rto` = back to `TCP_CA_Open`.
//!
//! Deviations from Linux:
//! - The long-term bandwidth (policer) model (`bbr_lt_bw_sampling`, `lt_use_bw`; in Linux since
//!   4.9) is off by default, `bbr.lt_bw = true` turns it on (`tp->lost` = sum of
//!   `AckInfo::lost`; an RTO counts one loss as in `bbr_set_state`).
//! - The ACK-aggregation cwnd allowance (`bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`;
//!   Linux ≥ 5.1, "tcp_bbr: adapt cwnd based on ack aggregation estimation") is off by default,
//!   `bbr.ack_aggregation = true` turns it on: once the pipe is full, the cwnd target gains the
//!   max over 5–10 rounds of the segments acked beyond `bw × epoch` (at most cwnd, and at most
//!   bw × 100 ms). Off by default because the ABC paper's BBR ran a 4.13–4.19 kernel (its
//!   artifact's modules need that API; the paper names no version); on, it is what `emulate`
//!   meets in a current kernel (docs/emulation.md). Ignored with `kernel4`. Float
//!   arithmetic on the ns clock instead of Linux's µs and fixed point.
//! - `bbr.kernel4 = true` gives the Linux 4.9–4.19 code where it differs from v6: min_rtt
//!   refreshed by an equal sample (`rtt_us <= min_rtt_us`, `<` only in recent kernels), no pacing
//!   margin (added with EDT in 4.20), TSO autosizing for the quantum, no +2 cwnd in the 5/4 phase
//!   and no EDT term in the in-flight checks (both 4.20/5.1). See docs/delay-schemes.md.
//! - [`CongestionControl::pacing_rate`] is in wire bytes/s (`× MTU / MSS`), because the transport
//!   spaces whole packets; Linux's EDT pacing spaces payload bytes at `sk_pacing_rate`.
//! - Bandwidth is an `f64` in bytes/s taken from `RateSample::delivery_rate`, gains are `f64`
//!   (with Linux's fixed-point values, e.g. 739/256); the BDP is rounded up as in `bbr_bdp`, with
//!   a 1e-6 segment tolerance for float noise. cwnd is a whole number of segments.
//! - Quantum: `tso_segs` (default 1, i.e. an allowance of 3 segments) replaces
//!   `bbr_tso_segs_goal`; `tso_segs = 0` selects Linux's autosizing from the pacing rate.
//! - No EDT: `bbr_packets_in_net_at_edt` assumes the next departure is now (no pacing backlog).
//! - `rs->prior_in_flight` (in flight before the ACK) is `in_flight + acked + lost`.
//! - `rs->is_ack_delayed` is unknown, taken as false (an expired min_rtt takes any sample).
//! - PROBE_RTT sets `tp->app_limited` in Linux; here the controller marks the samples itself:
//!   a sample whose `prior_delivered` lies in `[delivered at PROBE_RTT entry, delivered +
//!   in_flight at the last PROBE_RTT ACK]` is treated as app-limited.
//! - Idle restart (`CA_EVENT_TX_START` with `tp->app_limited`) is detected as `on_sent` with
//!   `in_flight == 1` outside loss recovery (the pipe was empty, so the application had no data).
//! - `icsk_retransmits` (repeated RTO without progress keeps the saved cwnd) is approximated by
//!   "no ACK delivered data since the last RTO". ECN is ignored apart from saving cwnd (Linux's
//!   `ssthresh` hook on `TCP_CA_CWR`); the CWR state itself is not tracked.
//! - The PROBE_BW start phase is drawn from the `Rng` passed to [`Bbr::new`] (Linux:
//!   `get_random_u32_below`).

use super::newreno::{INITIAL_WINDOW, INITIAL_WINDOW_PARAM};
use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, RateSample, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::packet::{MSS, MTU};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// Fixed-point unit of gains (tcp_bbr.c `BBR_UNIT = 1 << BBR_SCALE`, `BBR_SCALE = 8`).
const BBR_UNIT: f64 = 256.0;
/// STARTUP pacing and cwnd gain ≈ 2/ln 2 (tcp_bbr.c `bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1`).
pub const HIGH_GAIN: f64 = 739.0 / BBR_UNIT;
/// DRAIN pacing gain (tcp_bbr.c `bbr_drain_gain = BBR_UNIT * 1000 / 2885`).
pub const DRAIN_GAIN: f64 = 88.0 / BBR_UNIT;
/// PROBE_BW cwnd gain (tcp_bbr.c `bbr_cwnd_gain = BBR_UNIT * 2`).
pub const CWND_GAIN: f64 = 2.0;
/// Phases of the PROBE_BW gain cycle (tcp_bbr.c `CYCLE_LEN`).
pub const CYCLE_LEN: usize = 8;
/// PROBE_BW pacing gains (tcp_bbr.c `bbr_pacing_gain[]`).
pub const PACING_GAIN_CYCLE: [f64; CYCLE_LEN] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The start phase is drawn among this many phases (tcp_bbr.c `bbr_cycle_rand = 7`).
const CYCLE_RAND: u64 = 7;
/// bw max-filter window in round trips (tcp_bbr.c `bbr_bw_rtts = CYCLE_LEN + 2`).
pub const BW_RTTS: u32 = CYCLE_LEN as u32 + 2;
/// min_rtt filter window (tcp_bbr.c `bbr_min_rtt_win_sec = 10`).
pub const MIN_RTT_WIN: Dur = Dur::from_secs(10);
/// Time at the minimum window in PROBE_RTT (tcp_bbr.c `bbr_probe_rtt_mode_ms = 200`).
pub const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// Smallest cwnd, and the cwnd in PROBE_RTT (tcp_bbr.c `bbr_cwnd_min_target = 4`).
pub const CWND_MIN_TARGET: u32 = 4;
/// The pipe is full when bw grew less than this per round (tcp_bbr.c `bbr_full_bw_thresh`, 5/4).
const FULL_BW_THRESH: f64 = 1.25;
/// ... for this many rounds (tcp_bbr.c `bbr_full_bw_cnt = 3`).
const FULL_BW_CNT: u32 = 3;
/// Pace this much below the estimate (tcp_bbr.c `bbr_pacing_margin_percent = 1`).
pub const PACING_MARGIN_PERCENT: f64 = 1.0;
/// Below this pacing rate (bytes/s) the TSO goal is 1 segment (tcp_bbr.c `bbr_min_tso_rate`,
/// 1.2 Mbit/s, `>> 3`).
const MIN_TSO_RATE: f64 = 1_200_000.0 / 8.0;
/// Bytes per burst = pacing rate >> `sk_pacing_shift` (10, i.e. about 1 ms; tcp_bbr.c
/// `bbr_tso_segs_goal`).
const PACING_SHIFT_DIV: f64 = 1024.0;
/// Burst byte cap: `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER` (65536 − 1 − 320 on x86-64).
const GSO_MAX_BYTES: f64 = 65_215.0;
/// Burst segment cap (tcp_bbr.c `bbr_tso_segs_goal`: `min(segs, 0x7F)`).
const MAX_TSO_SEGS: u32 = 0x7F;
/// Long-term (policer) sampling interval, minimum round trips (tcp_bbr.c `bbr_lt_intvl_min_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
/// Loss rate that ends a long-term interval, 50/256 ≈ 20 % (tcp_bbr.c `bbr_lt_loss_thresh`).
const LT_LOSS_THRESH: f64 = 50.0 / BBR_UNIT;
/// Two intervals' rates this close (1/8) mean "policed" (tcp_bbr.c `bbr_lt_bw_ratio`).
const LT_BW_RATIO: f64 = 1.0 / 8.0;
/// ... or this close in bytes/s, 4 kbit/s (tcp_bbr.c `bbr_lt_bw_diff = 4000 / 8`).
const LT_BW_DIFF: f64 = 4000.0 / 8.0;
/// Round trips to use `lt_bw` before re-probing (tcp_bbr.c `bbr_lt_bw_max_rtts`).
const LT_BW_MAX_RTTS: u32 = 48;
/// BDP before any RTT sample, and "still in the initial window" (Linux `TCP_INIT_CWND`).
const TCP_INIT_CWND: u32 = INITIAL_WINDOW;
/// Nominal RTT for the initial pacing rate (tcp_bbr.c `bbr_init_pacing_rate_from_rtt`).
const DEFAULT_RTT: Dur = Dur::from_millis(1);
/// Gain applied to the max extra-acked when adding it to the cwnd target (tcp_bbr.c
/// `bbr_extra_acked_gain = BBR_UNIT`, Linux ≥ 5.1).
const EXTRA_ACKED_GAIN: f64 = 1.0;
/// Length, in round trips, of each of the two halves of the extra-acked max filter (tcp_bbr.c
/// `bbr_extra_acked_win_rtts = 5`): the max covers the last 5–10 rounds.
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// Saturation of the round counter of the extra-acked window (tcp_bbr.c: `min(0x1F, ...)`, a
/// 5-bit field).
const EXTRA_ACKED_WIN_RTTS_MAX: u32 = 0x1F;
/// An aggregation epoch restarts once this many segments were acked in it (tcp_bbr.c
/// `bbr_ack_epoch_acked_reset_thresh = 1U << 20`).
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// `ack_epoch_acked` saturates here (tcp_bbr.c: `min_t(u32, 0xFFFFF, ...)`, a 20-bit field).
const ACK_EPOCH_ACKED_MAX: u32 = 0xF_FFFF;
/// The allowance is at most bw × this (tcp_bbr.c `bbr_extra_acked_max_us = 100 * 1000`).
pub const EXTRA_ACKED_MAX: Dur = Dur::from_millis(100);

/// BBR parameters. (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct BbrConfig {
    /// `initial_window`: initial cwnd in segments. Default 10 (RFC 6928, Linux).
    pub initial_window: u32,
    /// `cwnd_gain`: PROBE_BW cwnd gain, > 0. Default 2 (`bbr_cwnd_gain`).
    pub cwnd_gain: f64,
    /// `bw_rtts`: bw max-filter window in round trips, ≥ 1. Default 10 (`bbr_bw_rtts`).
    pub bw_rtts: u32,
    /// `min_rtt_win_s`: min_rtt filter window in seconds, > 0. Default 10 (`bbr_min_rtt_win_sec`).
    pub min_rtt_win: Dur,
    /// `probe_rtt_ms`: PROBE_RTT duration; 0 disables PROBE_RTT. Default 200
    /// (`bbr_probe_rtt_mode_ms`).
    pub probe_rtt: Dur,
    /// `pacing_margin_percent`: pace this much below gain·bw, in [0, 100). Default 1.
    pub pacing_margin_percent: f64,
    /// `tso_segs`: quantum in segments (cwnd allowance 3·quantum); 0 = Linux's
    /// `bbr_tso_segs_goal` (about 1 ms of data at the pacing rate, at least 1–2). Default 1.
    pub tso_segs: u32,
    /// `lt_bw`: the long-term bandwidth (token-bucket policer) model, `bbr_lt_bw_sampling`
    /// (in every Linux BBR v1 since 4.9). Default off (historical port behaviour).
    pub lt_bw: bool,
    /// `kernel4`: Linux 4.9–4.19 `tcp_bbr.c` where it differs from v6: min_rtt refreshed by an
    /// equal sample (`<=`), no pacing margin (`pacing_margin_percent` ignored), TSO autosizing
    /// (`tso_segs` ignored), no +2 cwnd in the 5/4 phase, no EDT term in the in-flight checks.
    pub kernel4: bool,
    /// `ack_aggregation`: the ACK-aggregation cwnd allowance of Linux ≥ 5.1
    /// (`bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`). Default off: the ABC paper's
    /// BBR ran on a 4.13–4.19 kernel (docs/delay-schemes.md). Ignored with `kernel4`.
    pub ack_aggregation: bool,
}

/// BBR's parameters (keys `bbr.<name>`; Linux `tcp_bbr` module parameters).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("cwnd_gain", CWND_GAIN, Unit::None, 0.0, 100.0)
        .open(true, false)
        .doc("PROBE_BW cwnd gain", "tcp_bbr.c bbr_cwnd_gain = 2"),
    Param::whole("bw_rtts", BW_RTTS as u64, Unit::None, 1, 10_000)
        .doc("bandwidth max-filter window, round trips", "tcp_bbr.c bbr_bw_rtts = CYCLE_LEN + 2"),
    Param::real("min_rtt_win_s", 10.0, Unit::S, 0.0, 3600.0)
        .open(true, false)
        .doc("min_rtt filter window", "tcp_bbr.c bbr_min_rtt_win_sec = 10"),
    Param::real("probe_rtt_ms", 200.0, Unit::Ms, 0.0, 60_000.0)
        .doc("PROBE_RTT duration (0: no PROBE_RTT)", "tcp_bbr.c bbr_probe_rtt_mode_ms = 200"),
    Param::real("pacing_margin_percent", PACING_MARGIN_PERCENT, Unit::Percent, 0.0, 100.0)
        .open(false, true)
        .doc("pace this much below gain·bw", "tcp_bbr.c bbr_pacing_margin_percent = 1"),
    Param::whole("tso_segs", 1, Unit::Segments, 0, MAX_TSO_SEGS as u64)
        .doc("send quantum (cwnd allowance 3·quantum); 0: Linux's bbr_tso_segs_goal", "no TSO in the simulator: 1 segment"),
    Param::flag("lt_bw", false).doc(
        "long-term (policer) bandwidth model: on ≥ 20 % loss over 2 consistent intervals, pace at their average for 48 rounds",
        "tcp_bbr.c bbr_lt_bw_sampling (on in Linux since 4.9); off: historical port behaviour",
    ),
    Param::flag("kernel4", false).doc(
        "Linux 4.9–4.19 behaviour: min_rtt refreshed on <=, no pacing margin, TSO autosizing, no +2 in the 5/4 phase, no EDT",
        "tcp_bbr.c before 4.20 (EDT, pacing margin) and 5.1 (quantization budget); min_rtt <= until v6",
    ),
    Param::flag("ack_aggregation", false).doc(
        "ACK-aggregation cwnd allowance (Linux ≥ 5.1): cwnd target + max extra-acked over 5–10 rounds, at most cwnd and bw·100 ms; ignored with kernel4",
        "tcp_bbr.c bbr_update_ack_aggregation / bbr_ack_aggregation_cwnd (5.1); off: the ABC paper's 4.13–4.19 kernel",
    ),
];

/// BBR v1 over drop-tail.
pub const BBR: Scheme = Scheme {
    name: "bbr",
    display: "BBR",
    family: "bbr",
    summary: "BBR v1 (Linux tcp_bbr; long-term policer model and ACK-aggregation allowance off)",
    source: "Cardwell et al. 2016; Linux net/ipv4/tcp_bbr.c",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#9467bd", "^"),
    build: |v, now, rng| Ok(Box::new(Bbr::new(BbrConfig::checked(v)?, now, rng))),
    warnings: None,
};

crate::default_from_table!(BbrConfig);

impl Config for BbrConfig {
    const PREFIX: &'static str = "bbr";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> BbrConfig {
        BbrConfig {
            initial_window: v.whole("initial_window"),
            cwnd_gain: v.real("cwnd_gain"),
            bw_rtts: v.whole("bw_rtts"),
            min_rtt_win: v.secs("min_rtt_win_s"),
            probe_rtt: v.ms("probe_rtt_ms"),
            pacing_margin_percent: v.real("pacing_margin_percent"),
            tso_segs: v.whole("tso_segs"),
            lt_bw: v.flag("lt_bw"),
            kernel4: v.flag("kernel4"),
            ack_aggregation: v.flag("ack_aggregation"),
        }
    }
}

/// BBR's operating mode (tcp_bbr.c `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up quickly, gain 2/ln 2.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Cruise at bw with the pacing-gain cycle.
    ProbeBw,
    /// Cut in-flight to 4 segments to measure min_rtt.
    ProbeRtt,
}

/// The Linux `icsk_ca_state`s BBR distinguishes (Open/Disorder/CWR are all `Open`), ordered as in
/// Linux so that `>= Recovery` means loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

/// One entry of the max filter: value `v` measured in round `t`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct MinmaxSample {
    t: u64,
    v: f64,
}

/// Kathleen Nichols' windowed max filter (Linux `lib/win_minmax.c`): best, 2nd and 3rd best
/// values in sub-windows of the window.
#[derive(Clone, Copy, Debug, Default)]
struct MaxFilter {
    s: [MinmaxSample; 3],
}

impl MaxFilter {
    fn get(&self) -> f64 {
        self.s[0].v
    }

    fn reset(&mut self, t: u64, v: f64) {
        self.s = [MinmaxSample { t, v }; 3];
    }

    /// `minmax_running_max`.
    fn running_max(&mut self, win: u64, t: u64, v: f64) {
        let val = MinmaxSample { t, v };
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        // `minmax_subwin_update`.
        let dt = t.saturating_sub(self.s[0].t);
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if t.saturating_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

/// BBR v1 congestion controller (Linux `struct bbr` plus the `tcp_sock` fields it drives).
#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    rng: Rng,
    /// `snd_cwnd`, segments.
    cwnd: u32,
    /// `sk_pacing_rate`, payload bytes/s.
    pacing_rate: f64,
    /// `snd_ssthresh`, set on entering DRAIN (informational).
    ssthresh: Option<u32>,
    mode: Mode,
    /// Current `icsk_ca_state` (from the hooks) and the one BBR last acted on (`prev_ca_state`).
    ca_state: CaState,
    prev_ca_state: CaState,
    /// `min_rtt_us` (`None` = `~0U`) and when it was last refreshed.
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// Max filter of bw samples (bytes/s) by round count.
    bw: MaxFilter,
    /// Round trips counted so far (`rtt_cnt`).
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    /// Start of the current gain-cycle phase (`cycle_mstamp`) and the phase (`cycle_idx`).
    cycle_stamp: Time,
    cycle_idx: usize,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    full_bw: f64,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    /// `tp->delivered` and `tp->delivered_mstamp` as of the last ACK.
    delivered: u64,
    delivered_stamp: Time,
    /// Last smoothed RTT reported by the transport (`tp->srtt_us`).
    srtt: Option<Dur>,
    /// `prior_delivered` range of samples sent while PROBE_RTT marked the flow app-limited.
    app_limited_range: Option<(u64, u64)>,
    /// An RTO fired and no ACK delivered data since (`icsk_retransmits != 0`).
    rto_retrans: bool,
    /// `tp->lost`: segments marked lost so far (sum of `AckInfo::lost`).
    lost_total: u64,
    /// Long-term model (`lt_is_sampling`, `lt_rtt_cnt`, `lt_use_bw`, `lt_bw` in bytes/s, and the
    /// interval start `lt_last_stamp` in whole ms, `lt_last_delivered`, `lt_last_lost`).
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_stamp_ms: u64,
    lt_last_delivered: u64,
    lt_last_lost: u64,
    /// ACK-aggregation estimator (Linux ≥ 5.1): start of the current aggregation epoch
    /// (`ack_epoch_mstamp`) and segments acked in it (`ack_epoch_acked`); rounds into the current
    /// half of the extra-acked window (`extra_acked_win_rtts`), which half (`extra_acked_win_idx`)
    /// and the max extra-acked segments of each half (`extra_acked[2]`).
    ack_epoch_stamp: Time,
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    extra_acked: [u32; 2],
}

impl Bbr {
    /// A controller in STARTUP at `now` (tcp_bbr.c `bbr_init`). `rng` draws the PROBE_BW start
    /// phase.
    pub fn new(cfg: BbrConfig, now: Time, rng: Rng) -> Bbr {
        let mut b = Bbr {
            rng,
            cwnd: cfg.initial_window.max(1),
            pacing_rate: 0.0,
            ssthresh: None,
            mode: Mode::Startup,
            ca_state: CaState::Open,
            prev_ca_state: CaState::Open,
            min_rtt: None,
            min_rtt_stamp: now,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_stamp: now,
            cycle_idx: 0,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0.0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            delivered: 0,
            delivered_stamp: now,
            srtt: None,
            app_limited_range: None,
            rto_retrans: false,
            lost_total: 0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_stamp_ms: now.nanos() / 1_000_000,
            lt_last_delivered: 0,
            lt_last_lost: 0,
            ack_epoch_stamp: now,
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            extra_acked: [0; 2],
            cfg,
        };
        b.init_pacing_rate_from_rtt(None);
        b
    }

    /// Current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// Bandwidth estimate (max filter), bytes/s.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }
    /// min_rtt estimate.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt
    }

    /// `bbr_bw`: the long-term rate while the policer model is in use, else the max filter.
    fn bbr_bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_bw_to_pacing_rate`: bytes/s for `bw` bytes/s at `gain`, less the margin (none
    /// before Linux 4.20).
    fn bw_to_pacing_rate(&self, bw: f64, gain: f64) -> f64 {
        let margin = if self.cfg.kernel4 { 0.0 } else { self.cfg.pacing_margin_percent };
        bw * gain * (100.0 - margin) / 100.0
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain × cwnd / srtt (1 ms without a sample).
    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<Dur>) {
        let rtt = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                s.max(Dur::from_micros(1))
            }
            None => DEFAULT_RTT,
        };
        let bw = f64::from(self.cwnd) * f64::from(MSS) / rtt.secs_f64();
        self.pacing_rate = self.bw_to_pacing_rate(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: before the pipe is full the rate only rises.
    fn set_pacing_rate(&mut self, bw: f64, gain: f64) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && self.srtt.is_some() {
            self.init_pacing_rate_from_rtt(self.srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Quantum in segments (`bbr_tso_segs_goal`, or the configured `tso_segs`).
    fn tso_segs_goal(&self) -> u32 {
        if self.cfg.tso_segs > 0 && !self.cfg.kernel4 {
            return self.cfg.tso_segs;
        }
        let bytes = (self.pacing_rate / PACING_SHIFT_DIV).floor().min(GSO_MAX_BYTES);
        let min = if self.pacing_rate < MIN_TSO_RATE { 1 } else { 2 };
        ((bytes / f64::from(MSS)).floor().max(0.0) as u32)
            .max(min)
            .min(MAX_TSO_SEGS)
    }

    /// `bbr_save_cwnd`: remember cwnd before recovery or PROBE_RTT cut it.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_bdp`: `gain × bw × min_rtt` in segments, rounded up.
    fn bdp(&self, bw: f64, gain: f64) -> u32 {
        let Some(min_rtt) = self.min_rtt else {
            return TCP_INIT_CWND; // "be safe: cap at default initial cwnd"
        };
        let segs = bw * min_rtt.secs_f64() * gain / f64::from(MSS);
        // Round up like Linux, but let float noise (20.000000000000004) stay at 20.
        if segs.is_finite() && segs > 0.0 {
            (segs - 1e-6).ceil().clamp(0.0, f64::from(u32::MAX)) as u32
        } else {
            0
        }
    }

    /// `bbr_quantization_budget`: + 3 quanta, round up to even, +2 in the 5/4 phase.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut c = cwnd.saturating_add(3 * self.tso_segs_goal());
        c = c.saturating_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 && !self.cfg.kernel4 {
            c = c.saturating_add(2);
        }
        c
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt` with no pacing backlog (see module doc).
    fn packets_in_net_at_edt(&self, inflight_now: u32) -> u32 {
        if self.pacing_gain > 1.0 && !self.cfg.kernel4 {
            inflight_now.saturating_add(self.tso_segs_goal())
        } else {
            inflight_now
        }
    }

    /// The delivery-rate sample of `ack`, if valid, with PROBE_RTT's app-limited marking.
    fn sample(&self, ack: &AckInfo) -> Option<RateSample> {
        let mut rs = ack
            .rate
            .filter(|r| r.interval > Dur::ZERO && r.delivery_rate.is_finite() && r.delivery_rate >= 0.0)?;
        rs.is_app_limited |= self
            .app_limited_range
            .is_some_and(|(a, b)| (a..=b).contains(&rs.prior_delivered));
        Some(rs)
    }

    /// Whether the ACK-aggregation allowance is modelled (`bbr.ack_aggregation`, not with
    /// `kernel4`: it came with Linux 5.1).
    fn ack_aggregation_on(&self) -> bool {
        self.cfg.ack_aggregation && !self.cfg.kernel4
    }

    /// `bbr_extra_acked`: the max of the two halves of the window, segments.
    fn extra_acked_max(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_update_ack_aggregation`: the windowed max of the data acked beyond what `bw` predicts
    /// since the start of the aggregation epoch. An epoch restarts when the ACKs fell behind the
    /// expected rate (`ack_epoch_acked <= expected_acked`) or after 2^20 segments; the excess is
    /// capped at cwnd. Linux works in whole µs and fixed-point bw (packets/µs << 24); here the
    /// expected segments are `floor(bw · epoch / MSS)` in `f64` on the ns clock (1e-6 segment
    /// tolerance for float noise, as in [`Bbr::bdp`]).
    fn update_ack_aggregation(&mut self, acked: u32, rs: Option<RateSample>) {
        if !self.ack_aggregation_on() || acked == 0 || rs.is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(EXTRA_ACKED_WIN_RTTS_MAX);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch = self.delivered_stamp.saturating_since(self.ack_epoch_stamp);
        let mut expected = floor_segs(self.bbr_bw() * epoch.secs_f64() / f64::from(MSS));
        if u64::from(self.ack_epoch_acked) <= expected
            || self.ack_epoch_acked.saturating_add(acked) >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = self.delivered_stamp;
            expected = 0;
        }
        self.ack_epoch_acked = self.ack_epoch_acked.saturating_add(acked).min(ACK_EPOCH_ACKED_MAX);
        let extra = u64::from(self.ack_epoch_acked).saturating_sub(expected);
        let extra = extra.min(u64::from(self.cwnd)) as u32;
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    /// `bbr_ack_aggregation_cwnd`: gain × max extra-acked, at most bw × 100 ms, only once the pipe
    /// was found full.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.ack_aggregation_on() || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = floor_segs(self.bbr_bw() * EXTRA_ACKED_MAX.secs_f64() / f64::from(MSS));
        let aggr = floor_segs(EXTRA_ACKED_GAIN * f64::from(self.extra_acked_max()));
        aggr.min(max_aggr).min(u64::from(u32::MAX)) as u32
    }

    /// The current ACK-aggregation cwnd allowance in segments (0 when `bbr.ack_aggregation` is
    /// off or before the pipe was full).
    pub fn ack_aggregation_allowance(&self) -> u32 {
        self.ack_aggregation_cwnd()
    }

    /// `bbr_update_bw`: count rounds, feed the max filter.
    fn update_bw(&mut self, rs: Option<RateSample>, losses: u32) {
        self.round_start = false;
        let Some(rs) = rs else { return };
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = self.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if self.cfg.lt_bw {
            self.lt_bw_sampling(&rs, losses);
        }
        if !rs.is_app_limited || rs.delivery_rate >= self.max_bw() {
            self.bw
                .running_max(u64::from(self.cfg.bw_rtts), self.rtt_cnt, rs.delivery_rate);
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_stamp.nanos() / 1_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost_total;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_interval_done`: two consistent intervals mean a policer.
    fn lt_bw_interval_done(&mut self, bw: f64) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw || diff <= LT_BW_DIFF {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval();
    }

    /// `bbr_lt_bw_sampling`: `losses` and `is_app_limited` of the current sample.
    fn lt_bw_sampling_with(&mut self, losses: u32, is_app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval();
            self.lt_is_sampling = true;
        }
        if is_app_limited {
            return self.reset_lt_bw_sampling();
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            return self.reset_lt_bw_sampling();
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost_total.saturating_sub(self.lt_last_lost) as f64;
        let delivered = self.delivered.saturating_sub(self.lt_last_delivered) as f64;
        if delivered == 0.0 || lost < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_stamp.nanos() / 1_000_000).saturating_sub(self.lt_last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        self.lt_bw_interval_done(delivered * f64::from(MSS) / (t_ms as f64 / 1000.0));
    }

    fn lt_bw_sampling(&mut self, rs: &RateSample, losses: u32) {
        self.lt_bw_sampling_with(losses, rs.is_app_limited);
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, prior_in_flight: u32, losses: u32) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| self.delivered_stamp.saturating_since(self.cycle_stamp) > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.packets_in_net_at_edt(prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            full_length && (losses > 0 || inflight >= self.inflight(bw, self.pacing_gain))
        } else {
            full_length || inflight <= self.inflight(bw, 1.0)
        }
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_stamp;
    }

    /// `bbr_reset_probe_bw_mode`: random start phase, never the 3/4 phase.
    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.below(CYCLE_RAND) as usize;
        self.advance_cycle_phase();
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: once per round, did bw grow 25 %?
    fn check_full_bw_reached(&mut self, rs: Option<RateSample>) {
        if self.full_bw_reached || !self.round_start || rs.is_none_or(|s| s.is_app_limited) {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt = self.full_bw_cnt.saturating_add(1);
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, in_flight: u32) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = Some(self.inflight(self.max_bw(), 1.0));
        }
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(in_flight) <= self.inflight(self.max_bw(), 1.0) {
            self.reset_probe_bw_mode();
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_stamp.is_none_or(|t| now <= t) {
            return;
        }
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    /// `bbr_update_min_rtt`: the min_rtt filter and PROBE_RTT.
    fn update_min_rtt(&mut self, now: Time, ack: &AckInfo, rs: Option<RateSample>) {
        let expired = now > self.min_rtt_stamp + self.cfg.min_rtt_win;
        if let Some(rtt) = ack.rtt {
            let lower = self.min_rtt.is_none_or(|m| rtt < m || (self.cfg.kernel4 && rtt == m));
            if lower || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        let mark = self.delivered.saturating_add(u64::from(ack.in_flight)).max(1);
        if self.cfg.probe_rtt > Dur::ZERO && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.app_limited_range = Some((self.delivered, mark));
        }
        if self.mode == Mode::ProbeRtt {
            // Linux: tp->app_limited = (delivered + in_flight) ?: 1.
            if let Some((_, m)) = &mut self.app_limited_range {
                *m = mark;
            }
            if self.probe_rtt_done_stamp.is_none() && ack.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = Some(now + self.cfg.probe_rtt);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = self.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now);
                }
            }
        }
        if rs.is_some_and(|s| s.delivered > 0) {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt_use_bw => (1.0, self.cfg.cwnd_gain),
            Mode::ProbeBw => (PACING_GAIN_CYCLE[self.cycle_idx], self.cfg.cwnd_gain),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd and whether packet conservation
    /// decided it.
    fn set_cwnd_to_recover_or_restore(&mut self, ack: &AckInfo) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, self.ca_state);
        let mut cwnd = self.cwnd;
        if ack.lost > 0 {
            cwnd = cwnd.saturating_sub(ack.lost).max(1);
        }
        let conserve = ack.in_flight.saturating_add(ack.acked);
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of recovery: packet conservation, starting a round now.
            self.packet_conservation = true;
            self.next_rtt_delivered = self.delivered;
            cwnd = conserve;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // Leaving recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max(conserve), true)
        } else {
            (cwnd, false)
        }
    }

    /// `bbr_set_cwnd`.
    fn set_cwnd(&mut self, ack: &AckInfo, bw: f64, gain: f64) {
        if ack.acked > 0 {
            let (mut cwnd, conserving) = self.set_cwnd_to_recover_or_restore(ack);
            if !conserving {
                // Linux ≥ 5.1: the ACK-aggregation allowance, before the quantization budget.
                let target = self.bdp(bw, gain).saturating_add(self.ack_aggregation_cwnd());
                let target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = cwnd.saturating_add(ack.acked).min(target);
                } else if cwnd < target || self.delivered < u64::from(TCP_INIT_CWND) {
                    cwnd = cwnd.saturating_add(ack.acked);
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
            self.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    /// In wire bytes/s: the transport spaces whole packets (headers included), Linux's EDT pacing
    /// (`tcp_update_skb_after_send`) spaces payload bytes at `sk_pacing_rate`.
    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate * f64::from(MTU) / f64::from(MSS))
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: sending again after the pipe ran empty.
    fn on_sent(&mut self, now: Time, in_flight: u32) {
        if in_flight != 1 || self.ca_state != CaState::Open {
            return;
        }
        self.idle_restart = true;
        // Linux ≥ 5.1 (`bbr_cwnd_event`): a new aggregation epoch starts.
        self.ack_epoch_stamp = now;
        self.ack_epoch_acked = 0;
        match self.mode {
            Mode::ProbeBw => self.set_pacing_rate(self.bbr_bw(), 1.0),
            Mode::ProbeRtt => self.check_probe_rtt_done(now),
            _ => {}
        }
    }

    /// `bbr_main`.
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        if ack.acked > 0 {
            self.delivered_stamp = now;
            self.rto_retrans = false;
        }
        if !ack.in_recovery {
            self.ca_state = CaState::Open; // the transport says recovery is over
        }
        self.delivered = ack.delivered;
        self.lost_total += u64::from(ack.lost);
        if ack.srtt.is_some() {
            self.srtt = ack.srtt;
        }
        let rs = self.sample(ack);
        let prior_in_flight = ack.in_flight.saturating_add(ack.acked).saturating_add(ack.lost);
        // bbr_update_model
        self.update_bw(rs, ack.lost);
        self.update_ack_aggregation(ack.acked, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(prior_in_flight, ack.lost) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(ack.in_flight);
        self.update_min_rtt(now, ack, rs);
        self.update_gains();
        let bw = self.bbr_bw();
        self.set_pacing_rate(bw, self.pacing_gain);
        self.set_cwnd(ack, bw, self.cwnd_gain);
    }

    /// `tcp_enter_recovery` → `bbr_ssthresh` (save cwnd), state `TCP_CA_Recovery`.
    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, _in_flight: u32) {
        if self.ca_state != CaState::Open {
            return;
        }
        self.save_cwnd();
        if kind == CongestionKind::Loss {
            self.ca_state = CaState::Recovery;
        }
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.ca_state = CaState::Open;
    }

    /// `tcp_enter_loss`: save cwnd (not during recovery or a repeated RTO), cwnd = in-flight + 1
    /// = 1, then `bbr_set_state(TCP_CA_Loss)`.
    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        if self.ca_state == CaState::Open || (self.ca_state == CaState::Loss && !self.rto_retrans) {
            self.save_cwnd();
        }
        self.cwnd = 1;
        self.ca_state = CaState::Loss;
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        self.rto_retrans = true;
        if self.cfg.lt_bw {
            self.lt_bw_sampling_with(1, false);
        }
    }

    /// `tcp_try_undo_loss` → `bbr_undo_cwnd` (reset full-bw detection), state back to Open; the
    /// next ACK restores the saved cwnd.
    fn on_spurious_rto(&mut self, _now: Time) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        if self.cfg.lt_bw {
            self.reset_lt_bw_sampling();
        }
        self.ca_state = CaState::Open;
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            ssthresh: self.ssthresh.map(f64::from),
            pacing_rate: self.pacing_rate(),
            ..CcMetrics::default()
        }
    }
}

/// `floor` of a non-negative segment count, letting float noise (9.999999999) reach the whole
/// number; 0 for NaN or negative values.
fn floor_segs(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        (x + 1e-6).floor().min(u64::MAX as f64) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;

    const RTT: Dur = Dur::from_millis(100);
    const MS: Dur = Dur::from_millis(1);
    fn ms(n: u64) -> Dur {
        Dur::from_millis(n)
    }

    /// `n` segments per RTT, in bytes/s.
    fn per_rtt(n: f64) -> f64 {
        n * f64::from(MSS) / RTT.secs_f64()
    }
    /// Expected pacing rate: gain × bw less the 1 % margin.
    fn pace(bw: f64, gain: f64) -> f64 {
        bw * gain * 0.99
    }
    fn assert_close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} != {b}");
    }
    fn bbr(seed: u64) -> Bbr {
        Bbr::new(BbrConfig::default(), Time::ZERO, Rng::stream(seed, 0))
    }

    /// Clock and delivery counter; builds ACKs with RTT samples of 100 ms.
    #[derive(Default)]
    struct Drive {
        now: Time,
        delivered: u64,
        app_limited: bool,
        in_recovery: bool,
    }

    impl Drive {
        /// After `dt`: `acked` segments delivered; rate sample `bw` for a segment sent when
        /// `prior` segments had been delivered; `in_flight` left; `lost` newly lost.
        fn mk(&mut self, dt: Dur, acked: u32, prior: u64, bw: f64, in_flight: u32, lost: u32) -> AckInfo {
            self.now += dt;
            self.delivered += u64::from(acked);
            let rate = RateSample {
                delivery_rate: bw,
                delivered: self.delivered - prior.min(self.delivered),
                interval: RTT,
                prior_delivered: prior,
                is_app_limited: self.app_limited,
            };
            AckInfo {
                acked,
                rtt: Some(RTT),
                min_rtt: Some(RTT),
                srtt: Some(RTT),
                in_flight,
                cwnd_limited: true,
                in_recovery: self.in_recovery,
                lost,
                delivered: self.delivered,
                rate: Some(rate),
                ..AckInfo::default()
            }
        }
        fn ack(&mut self, cc: &mut Bbr, dt: Dur, acked: u32, prior: u64, bw: f64, in_flight: u32) {
            let a = self.mk(dt, acked, prior, bw, in_flight, 0);
            cc.on_ack(self.now, &a);
        }
        /// One round trip: `n` one-segment ACKs spread over the RTT, all sampling segments sent at
        /// the round start (so the first one starts a round).
        fn round(&mut self, cc: &mut Bbr, n: u32, bw: f64, in_flight: u32) {
            let prior = self.delivered;
            for _ in 0..n {
                self.ack(cc, Dur::from_nanos(RTT.nanos() / u64::from(n)), 1, prior, bw, in_flight);
            }
        }
        /// One ACK that starts a round.
        fn round_ack(&mut self, cc: &mut Bbr, dt: Dur, bw: f64, in_flight: u32) {
            let prior = self.delivered;
            self.ack(cc, dt, 1, prior, bw, in_flight);
        }
    }

    /// PROBE_BW cwnd target at bw = 10 segments/RTT: 2 × 10 + 3 → 24, +2 in phase 0.
    fn probe_bw_target(cc: &Bbr) -> f64 {
        24.0 + 2.0 * f64::from(cc.cycle_idx == 0)
    }

    /// Flat 10 segments/RTT: full pipe on round 4's first ACK, DRAIN, then PROBE_BW on the third.
    fn to_probe_bw(seed: u64) -> (Bbr, Drive) {
        let mut cc = bbr(seed);
        let mut d = Drive::default();
        let bw = per_rtt(10.0);
        for _ in 0..3 {
            d.round(&mut cc, 10, bw, 30);
            assert!(!cc.full_bw_reached);
        }
        // 10 → 20 → 30 → 32: growth stops at the target ceil(10 × 739/256) + 3 = 32.
        assert_eq!(cc.window(), 32.0);
        let prior = d.delivered;
        d.ack(&mut cc, ms(10), 1, prior, bw, 30);
        assert!(cc.full_bw_reached);
        assert_eq!(cc.mode(), Mode::Drain);
        assert_eq!(cc.metrics().ssthresh, Some(14.0), "BDP 10 + 3, rounded up to even");
        assert_close(cc.pacing_rate, pace(bw, DRAIN_GAIN));
        assert_eq!((cc.window(), cc.cwnd_gain), (32.0, HIGH_GAIN));
        d.ack(&mut cc, ms(10), 1, prior, bw, 15);
        assert_eq!(cc.mode(), Mode::Drain, "15 in flight > 14");
        d.ack(&mut cc, ms(10), 1, prior, bw, 14);
        assert_eq!(cc.mode(), Mode::ProbeBw);
        (cc, d)
    }

    #[test]
    fn initial_pacing_is_high_gain_times_init_cwnd_over_1ms_then_over_first_srtt() {
        let mut cc = bbr(1);
        assert_close(cc.pacing_rate, pace(10.0 * 1448.0 / 0.001, HIGH_GAIN));
        assert_close(cc.pacing_rate().unwrap(), cc.pacing_rate * 1500.0 / 1448.0);
        let dup = AckInfo {
            srtt: Some(Dur::from_millis(50)),
            ..AckInfo::default()
        };
        cc.on_ack(Time::from_millis(50), &dup);
        assert_close(cc.pacing_rate, pace(10.0 * 1448.0 / 0.05, HIGH_GAIN));
        assert_eq!((cc.window(), cc.mode(), cc.rtt_cnt), (10.0, Mode::Startup, 0));
    }

    #[test]
    fn startup_doubles_cwnd_and_pacing_rate_each_round() {
        let mut cc = bbr(1);
        let mut d = Drive::default();
        for (r, n) in [10u32, 20, 40, 80].into_iter().enumerate() {
            d.round(&mut cc, n, per_rtt(f64::from(n)), n);
            assert_eq!(cc.rtt_cnt, r as u64 + 1);
            assert_eq!(cc.window(), f64::from(2 * n));
            assert_close(cc.pacing_rate, pace(per_rtt(f64::from(n)), HIGH_GAIN));
            assert_eq!(cc.mode(), Mode::Startup);
        }
    }

    #[test]
    fn three_flat_rounds_fill_the_pipe_then_drain_then_probe_bw_at_random_phase() {
        let (cc, _) = to_probe_bw(1);
        let mut r = Rng::stream(1, 0);
        let start = (CYCLE_LEN - 1 - r.below(7) as usize + 1) % CYCLE_LEN;
        assert_eq!(cc.cycle_idx, start);
        assert_eq!((cc.pacing_gain, cc.cwnd_gain), (PACING_GAIN_CYCLE[start], 2.0));
        assert_close(cc.pacing_rate, pace(per_rtt(10.0), PACING_GAIN_CYCLE[start]));
        assert_eq!(cc.window(), probe_bw_target(&cc), "min(32 + 1, target)");
        let mut seen = [false; CYCLE_LEN];
        for seed in 0..100 {
            seen[to_probe_bw(seed).0.cycle_idx] = true;
        }
        assert_eq!(
            seen,
            [true, false, true, true, true, true, true, true],
            "never starts at 3/4"
        );
    }

    #[test]
    fn gain_cycle_visits_phases_in_order_one_min_rtt_each() {
        let (mut cc, mut d) = to_probe_bw(3);
        let bw = per_rtt(10.0);
        let (mut idx, mut since, mut visited) = (cc.cycle_idx, d.now, vec![cc.cycle_idx]);
        for _ in 0..9 * 11 {
            // Phase 0 needs prior in-flight + 1 ≥ 2 × ... = ceil(12.5) + 3 → 16, + 2 = 18.
            let in_flight = if cc.cycle_idx == 0 { 17 } else { 14 };
            let prior = d.delivered - 5;
            d.ack(&mut cc, ms(10), 1, prior, bw, in_flight);
            if cc.cycle_idx != idx {
                assert_eq!(d.now.saturating_since(since), ms(110), "phase {idx} lasted > min_rtt");
                assert_eq!(cc.cycle_idx, (idx + 1) % CYCLE_LEN);
                (idx, since) = (cc.cycle_idx, d.now);
                visited.push(idx);
            } else if d.now.saturating_since(since) >= ms(20) {
                assert_eq!(cc.window(), probe_bw_target(&cc));
            }
            assert_eq!(cc.pacing_gain, PACING_GAIN_CYCLE[idx]);
            assert_close(cc.pacing_rate, pace(bw, PACING_GAIN_CYCLE[idx]));
        }
        assert_eq!(visited.len(), 10);
        assert!(visited.contains(&0) && visited.contains(&1));
    }

    #[test]
    fn probe_phase_waits_for_inflight_or_loss_and_drain_phase_ends_at_bdp() {
        let (mut cc, mut d) = to_probe_bw(3);
        let bw = per_rtt(10.0);
        while cc.cycle_idx != 0 {
            let prior = d.delivered - 5;
            d.ack(&mut cc, ms(10), 1, prior, bw, 14);
        }
        for _ in 0..30 {
            let prior = d.delivered - 5;
            d.ack(&mut cc, ms(10), 1, prior, bw, 14); // 14 + 1 + 1 < 18
        }
        assert_eq!(cc.cycle_idx, 0, "300 ms at 5/4 without reaching 1.25 BDP");
        let prior = d.delivered - 5;
        let a = d.mk(ms(10), 1, prior, bw, 14, 1);
        cc.on_ack(d.now, &a);
        assert_eq!(cc.cycle_idx, 1, "a loss ends the probe");
        d.ack(&mut cc, ms(10), 1, prior, bw, 14); // prior in-flight 15 > 14
        assert_eq!(cc.cycle_idx, 1);
        d.ack(&mut cc, ms(10), 1, prior, bw, 13); // prior in-flight 14 ≤ BDP + 3 → 14
        assert_eq!(cc.cycle_idx, 2, "in-flight back at BDP ends the 3/4 phase early");
    }

    /// From PROBE_BW, ACK once per round until min_rtt (set by the first ACK at 10 ms) expires at
    /// 10.01 s: PROBE_RTT. Then in-flight reaches 4 at 30 ms later. Returns the saved cwnd.
    fn to_probe_rtt(cc: &mut Bbr, d: &mut Drive) -> f64 {
        let bw = per_rtt(10.0);
        while d.now + ms(100) <= Time::from_millis(10_010) {
            d.round_ack(cc, ms(100), bw, 20);
            assert_eq!(cc.mode(), Mode::ProbeBw);
        }
        let saved = cc.window();
        d.round_ack(cc, ms(100), bw, 20);
        assert_eq!((cc.mode(), cc.window()), (Mode::ProbeRtt, 4.0));
        assert_eq!((cc.pacing_gain, cc.cwnd_gain), (1.0, 1.0));
        assert_close(cc.pacing_rate, pace(bw, 1.0));
        let prior = d.delivered - 1;
        d.ack(cc, ms(10), 1, prior, bw, 10);
        d.ack(cc, ms(10), 1, prior, bw, 4); // arms the 200 ms timer and a round
        saved
    }

    #[test]
    fn probe_rtt_after_10s_holds_cwnd_4_for_200ms_and_then_a_round() {
        let (mut cc, mut d) = to_probe_bw(5);
        let saved = to_probe_rtt(&mut cc, &mut d);
        let bw = per_rtt(10.0);
        let prior = d.delivered - 1; // not a round start
        for _ in 0..25 {
            d.ack(&mut cc, ms(10), 1, prior, bw, 4);
            assert_eq!((cc.mode(), cc.window()), (Mode::ProbeRtt, 4.0));
        }
        d.round_ack(&mut cc, ms(10), bw, 4);
        assert_eq!(cc.mode(), Mode::ProbeBw, "250 ms and a round");
        assert_eq!(
            cc.window(),
            (saved + 1.0).min(probe_bw_target(&cc)),
            "saved cwnd restored"
        );
        // 9.9 s after the exit (10.2 s after min_rtt was last refreshed on entering PROBE_RTT).
        d.round_ack(&mut cc, ms(9_900), bw, 20);
        assert_eq!(cc.mode(), Mode::ProbeBw, "min_rtt stamp refreshed on exit");
    }

    #[test]
    fn kernel4_refreshes_min_rtt_on_equal_samples_without_margin_or_phase0_bonus() {
        let cfg = BbrConfig { kernel4: true, ..BbrConfig::default() };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(5, 0));
        let mut d = Drive::default();
        let bw = per_rtt(10.0);
        for _ in 0..4 {
            d.round(&mut cc, 10, bw, 30);
        }
        while cc.mode() != Mode::ProbeBw {
            d.round_ack(&mut cc, ms(10), bw, 10);
        }
        assert_close(cc.pacing_rate, bw * cc.pacing_gain);
        // 20 s of equal 100 ms samples: min_rtt keeps being refreshed, so no PROBE_RTT.
        for _ in 0..200 {
            d.round_ack(&mut cc, ms(100), bw, 20);
            assert_eq!(cc.mode(), Mode::ProbeBw);
            // 2 × BDP 10 + 3 autosized quanta (2 segments above 1.2 Mbit/s in the 5/4 phase): 26,
            // and no +2 in phase 0 (28).
            assert!(cc.window() <= 26.0, "{}", cc.window());
        }
        // The default (v6, strict <) enters PROBE_RTT after 10 s of equal samples.
        let (mut cc, mut d) = to_probe_bw(5);
        to_probe_rtt(&mut cc, &mut d);
    }

    /// Rounds of 10 one-segment ACKs at `bw`, two of them reporting a loss (20 %).
    fn lossy_round(d: &mut Drive, cc: &mut Bbr, bw: f64) {
        let prior = d.delivered;
        for i in 0..10 {
            let a = d.mk(ms(10), 1, prior, bw, 20, u32::from(i % 5 == 4));
            cc.on_ack(d.now, &a);
        }
    }

    #[test]
    fn lt_bw_paces_at_the_policed_rate_after_two_lossy_intervals_then_reprobes() {
        let cfg = BbrConfig { lt_bw: true, ..BbrConfig::default() };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(5, 0));
        let mut d = Drive::default();
        let bw = per_rtt(10.0);
        for _ in 0..4 {
            d.round(&mut cc, 10, bw, 30);
        }
        while cc.mode() != Mode::ProbeBw {
            d.round_ack(&mut cc, ms(10), bw, 10);
        }
        let mut rounds = 0;
        while !cc.lt_use_bw {
            lossy_round(&mut d, &mut cc, bw);
            rounds += 1;
            assert!(rounds <= 12, "two intervals of ≥ 4 rounds");
        }
        assert!((cc.lt_bw - bw).abs() < 0.05 * bw, "{} vs {bw}", cc.lt_bw);
        assert_eq!(cc.pacing_gain, 1.0);
        assert_close(cc.pacing_rate, pace(cc.lt_bw, 1.0));
        for _ in 0..47 {
            d.round(&mut cc, 10, bw, 20);
            assert!(cc.lt_use_bw);
        }
        d.round(&mut cc, 10, bw, 20);
        assert!(!cc.lt_use_bw, "48 rounds, then back to gain cycling");
        // Without the model the same losses change nothing.
        let (mut cc, mut d) = to_probe_bw(5);
        for _ in 0..12 {
            lossy_round(&mut d, &mut cc, bw);
            assert!(!cc.lt_use_bw);
        }
    }

    #[test]
    fn probe_rtt_round_done_early_still_waits_200ms() {
        let (mut cc, mut d) = to_probe_bw(6);
        to_probe_rtt(&mut cc, &mut d);
        let armed = d.now;
        let bw = per_rtt(10.0);
        d.round_ack(&mut cc, ms(50), bw, 4);
        let prior = d.delivered - 1;
        d.ack(&mut cc, ms(150), 1, prior, bw, 4);
        assert_eq!((d.now.saturating_since(armed), cc.mode()), (ms(200), Mode::ProbeRtt));
        d.ack(&mut cc, MS, 1, prior, bw, 4);
        assert_eq!(cc.mode(), Mode::ProbeBw);
    }

    #[test]
    fn probe_rtt_samples_count_as_app_limited() {
        let (mut cc, mut d) = to_probe_bw(7);
        to_probe_rtt(&mut cc, &mut d);
        let bw = per_rtt(10.0);
        for _ in 0..12 {
            d.round_ack(&mut cc, ms(10), bw / 4.0, 4);
        }
        assert_eq!(
            cc.max_bw(),
            bw,
            "12 rounds of low samples sent in PROBE_RTT did not expire it"
        );
    }

    #[test]
    fn bw_filter_keeps_the_max_for_10_rounds_then_expires() {
        let mut cc = bbr(1);
        let mut d = Drive::default();
        d.round_ack(&mut cc, RTT, 100_000.0, 5);
        for round in 2..=11 {
            d.round_ack(&mut cc, RTT, 50_000.0, 5);
            assert_eq!((cc.rtt_cnt, cc.max_bw()), (round, 100_000.0));
        }
        d.round_ack(&mut cc, RTT, 50_000.0, 5);
        assert_eq!((cc.rtt_cnt, cc.max_bw()), (12, 50_000.0));
        // Falling samples 100k − 5k·(r − 1): sub-window picks are round 4 (dt > 10/4) and round 7
        // (dt > 10/2); when round 1 expires at round 12 the max is round 4's 85k.
        let mut cc = bbr(1);
        for r in 1..=12 {
            d.round_ack(&mut cc, RTT, 100_000.0 - 5_000.0 * (r as f64 - 1.0), 5);
        }
        assert_eq!((cc.rtt_cnt, cc.max_bw()), (12, 85_000.0));
    }

    #[test]
    fn app_limited_samples_only_raise_the_max_and_skip_full_bw_checks() {
        let mut cc = bbr(1);
        let mut d = Drive::default();
        d.round_ack(&mut cc, RTT, 100_000.0, 5);
        d.app_limited = true;
        for _ in 2..=15 {
            d.round_ack(&mut cc, RTT, 50_000.0, 5);
        }
        assert_eq!(cc.max_bw(), 100_000.0);
        assert!(!cc.full_bw_reached, "app-limited rounds are not flat rounds");
        d.round_ack(&mut cc, RTT, 120_000.0, 5);
        assert_eq!(cc.max_bw(), 120_000.0);
        d.app_limited = false;
        for _ in 17..=26 {
            d.round_ack(&mut cc, RTT, 60_000.0, 5);
        }
        assert_eq!(cc.max_bw(), 120_000.0);
        d.round_ack(&mut cc, RTT, 60_000.0, 5);
        assert_eq!(cc.max_bw(), 60_000.0);
    }

    #[test]
    fn recovery_conserves_packets_for_a_round_and_restores_cwnd_on_exit() {
        let (mut cc, mut d) = to_probe_bw(2);
        let bw = per_rtt(10.0);
        let c0 = cc.window();
        cc.on_congestion_event(d.now, CongestionKind::Loss, 20);
        d.in_recovery = true;
        let a = d.mk(MS, 1, d.delivered - 1, bw, 10, 1);
        cc.on_ack(d.now, &a);
        assert_eq!(cc.window(), 11.0, "in_flight 10 + acked 1");
        let start = d.delivered; // the recovery round ends when this is delivered
        for (acked, in_flight, lost, expect) in [(2, 9, 0, 11.0), (1, 12, 0, 13.0), (1, 10, 2, 11.0)] {
            let a = d.mk(MS, acked, start - 1, bw, in_flight, lost);
            cc.on_ack(d.now, &a);
            assert_eq!(cc.window(), expect);
        }
        d.ack(&mut cc, MS, 1, start, bw, 5);
        assert_eq!(cc.window(), 12.0, "round over: grow by acked toward the target");
        cc.on_recovery_exit(d.now);
        d.in_recovery = false;
        d.ack(&mut cc, MS, 1, start, bw, 5);
        assert_eq!(cc.window(), (c0 + 1.0).min(probe_bw_target(&cc)));
    }

    #[test]
    fn rto_sets_cwnd_1_and_exit_or_undo_restores_it() {
        for spurious in [false, true] {
            let (mut cc, mut d) = to_probe_bw(2);
            let bw = per_rtt(10.0);
            let c0 = cc.window();
            cc.on_rto(d.now, 20);
            assert_eq!(cc.window(), 1.0);
            if spurious {
                cc.on_spurious_rto(d.now);
            } else {
                d.in_recovery = true;
                let p = d.delivered;
                d.ack(&mut cc, MS, 1, p, bw, 0);
                assert_eq!(cc.window(), 4.0, "1 + 1, at least 4");
                d.ack(&mut cc, MS, 3, p, bw, 0);
                assert_eq!(cc.window(), 7.0);
                cc.on_recovery_exit(d.now);
                d.in_recovery = false;
            }
            let p = d.delivered;
            d.ack(&mut cc, MS, 1, p, bw, 5);
            assert_eq!(cc.window(), (c0 + 1.0).min(probe_bw_target(&cc)));
            assert!(cc.full_bw_reached);
        }
    }

    #[test]
    fn idle_restart_paces_at_bw_and_skips_probe_rtt() {
        let (mut cc, mut d) = to_probe_bw(4);
        let bw = per_rtt(10.0);
        while cc.cycle_idx != 0 {
            d.round_ack(&mut cc, ms(50), bw, 20);
        }
        assert_close(cc.pacing_rate, pace(bw, 1.25));
        d.now = Time::from_secs(11);
        cc.on_sent(d.now, 1);
        assert_close(cc.pacing_rate, pace(bw, 1.0));
        d.round_ack(&mut cc, RTT, bw, 1);
        assert_eq!(
            cc.mode(),
            Mode::ProbeBw,
            "the expired min_rtt was refreshed by this sample"
        );
        d.round_ack(&mut cc, RTT, bw, 1);
        assert_eq!(cc.mode(), Mode::ProbeBw);
    }

    #[test]
    fn linux_tso_autosizing_sets_the_quantum_from_the_pacing_rate() {
        // 1000 segments/RTT: pacing 2.887 × 14.48 MB/s × 0.99 >> 10 = 40412 B → 27 segments.
        for (tso_segs, n, expect) in [(0, 10.0, 16.0), (0, 1000.0, 1082.0), (1, 1000.0, 1004.0)] {
            let mut cc = Bbr::new(
                BbrConfig {
                    tso_segs,
                    ..BbrConfig::default()
                },
                Time::ZERO,
                Rng::stream(1, 0),
            );
            let mut d = Drive::default();
            for _ in 0..4 {
                d.round(&mut cc, 10, per_rtt(n), 100);
            }
            assert_eq!(cc.metrics().ssthresh, Some(expect), "tso_segs {tso_segs}, bw {n}/RTT");
        }
    }

    #[test]
    fn bdp_rounds_up_but_not_float_noise() {
        let mut cc = bbr(1);
        assert_eq!(cc.bdp(per_rtt(10.0), 2.0), 10, "no RTT sample yet: TCP_INIT_CWND");
        cc.min_rtt = Some(RTT);
        assert_eq!(cc.bdp(per_rtt(10.0), 1.1), 11, "10 × 1.1 = 11.000000000000002");
        assert_eq!(cc.bdp(per_rtt(10.5), 1.0), 11);
    }

    #[test]
    fn params_are_validated_and_named() {
        let mut p = Params::new();
        assert_eq!(BbrConfig::from_params(&mut p).unwrap(), BbrConfig::default());
        p.insert("probe_rtt_ms".into(), 0.0);
        p.insert("cwnd_gain".into(), 2.5);
        p.insert("other".into(), 1.0);
        let c = BbrConfig::from_params(&mut p).unwrap();
        assert_eq!((c.probe_rtt, c.cwnd_gain, p.len()), (Dur::ZERO, 2.5, 1));
        for (k, v) in [
            ("cwnd_gain", 0.0),
            ("bw_rtts", 0.5),
            ("pacing_margin_percent", 100.0),
            ("tso_segs", 200.0),
        ] {
            let mut p = Params::from([(k.to_string(), v)]);
            let e = BbrConfig::from_params(&mut p).unwrap_err().to_string();
            assert!(e.contains(&format!("bbr.{k}")) && e.contains("expected"), "{e}");
        }
    }

    #[test]
    fn arbitrary_inputs_never_panic_and_keep_a_usable_window() {
        let mut rng = Rng::stream(9, 9);
        let mut cc = bbr(9);
        let mut now = Time::ZERO;
        for i in 0..20_000u64 {
            now += Dur::from_micros(rng.below(300_000));
            let pick = |r: &mut Rng, xs: &[u64]| xs[r.below(xs.len() as u64) as usize];
            let big = [0, 1, 3, 1000, u64::from(u32::MAX)];
            let rate = RateSample {
                delivery_rate: [0.0, 1e3, 1e9, f64::NAN, f64::INFINITY, -1.0][rng.below(6) as usize],
                delivered: pick(&mut rng, &big),
                interval: Dur::from_nanos(pick(&mut rng, &[0, 1, 100_000_000])),
                prior_delivered: pick(&mut rng, &[0, i, u64::MAX]),
                is_app_limited: rng.below(2) == 0,
            };
            let a = AckInfo {
                acked: pick(&mut rng, &big) as u32,
                lost: pick(&mut rng, &big) as u32,
                in_flight: pick(&mut rng, &big) as u32,
                rtt: [None, Some(Dur::ZERO), Some(RTT), Some(Dur::MAX)][rng.below(4) as usize],
                srtt: [None, Some(Dur::ZERO), Some(RTT)][rng.below(3) as usize],
                in_recovery: rng.below(2) == 0,
                delivered: pick(&mut rng, &[0, i, u64::MAX]),
                rate: (rng.below(4) != 0).then_some(rate),
                ..AckInfo::default()
            };
            match rng.below(12) {
                0 => cc.on_rto(now, 5),
                1 => cc.on_congestion_event(now, CongestionKind::Loss, 5),
                2 => cc.on_recovery_exit(now),
                3 => cc.on_spurious_rto(now),
                4 => cc.on_sent(now, 1),
                _ => cc.on_ack(now, &a),
            }
            assert!(cc.window() >= 1.0);
            assert!(cc.pacing_rate.is_finite());
        }
    }

    #[test]
    fn getters_and_metrics_report_the_state() {
        let mut cc = bbr(1);
        assert_eq!((cc.min_rtt(), cc.metrics().ssthresh), (None, None));
        let mut d = Drive::default();
        d.round(&mut cc, 10, per_rtt(10.0), 10);
        assert_eq!(cc.min_rtt(), Some(RTT));
        let m = cc.metrics();
        assert_eq!((m.cwnd, m.pacing_rate), (20.0, cc.pacing_rate()));
        assert_close(m.pacing_rate.unwrap(), pace(per_rtt(10.0), HIGH_GAIN) * 1500.0 / 1448.0);
    }

    #[test]
    fn tso_goal_is_a_millisecond_of_pacing_at_least_one_or_two_segments() {
        // tcp_bbr.c `bbr_tso_segs_goal`: min(rate >> sk_pacing_shift, GSO max) / MSS, at least 1
        // below bbr_min_tso_rate (1.2 Mbit/s = 150 000 B/s) and 2 from it on.
        let mut cc = Bbr::new(
            BbrConfig {
                tso_segs: 0,
                ..BbrConfig::default()
            },
            Time::ZERO,
            Rng::stream(1, 0),
        );
        for (rate, segs) in [
            (100_000.0, 1),
            (150_000.0, 2),
            (10_000_000.0, 6),    // 9765 B → 6 segments
            (1e12, 45),            // 65 215 B cap → 45 segments
        ] {
            cc.pacing_rate = rate;
            assert_eq!(cc.tso_segs_goal(), segs, "pacing {rate} B/s");
        }
        // tso_segs ≥ 1 fixes the quantum, except with kernel4 (autosizing).
        let mut cc = bbr(1);
        cc.pacing_rate = 10_000_000.0;
        assert_eq!(cc.tso_segs_goal(), 1);
        cc.cfg.kernel4 = true;
        assert_eq!(cc.tso_segs_goal(), 6);
    }

    #[test]
    fn save_cwnd_keeps_the_larger_saved_value_in_recovery_and_probe_rtt() {
        // tcp_bbr.c `bbr_save_cwnd`: outside recovery and PROBE_RTT remember cwnd, else the max.
        let mut cc = bbr(1);
        cc.cwnd = 20;
        cc.save_cwnd();
        assert_eq!(cc.prior_cwnd, 20);
        cc.cwnd = 8;
        cc.save_cwnd();
        assert_eq!(cc.prior_cwnd, 8, "Open: overwritten");
        cc.prior_cwnd = 20;
        for (prev, mode) in [
            (CaState::Recovery, Mode::ProbeBw),
            (CaState::Loss, Mode::ProbeBw),
            (CaState::Open, Mode::ProbeRtt),
        ] {
            (cc.prev_ca_state, cc.mode) = (prev, mode);
            cc.save_cwnd();
            assert_eq!(cc.prior_cwnd, 20, "{prev:?}, {mode:?}: max(20, 8)");
        }
        cc.cwnd = 30;
        cc.save_cwnd();
        assert_eq!(cc.prior_cwnd, 30);
    }

    #[test]
    fn ecn_saves_cwnd_without_entering_recovery() {
        let (mut cc, _) = to_probe_bw(2);
        let c0 = cc.cwnd;
        cc.prior_cwnd = 0;
        cc.on_congestion_event(Time::from_secs(1), CongestionKind::Ecn, 20);
        assert_eq!((cc.prior_cwnd, cc.ca_state), (c0, CaState::Open));
        cc.prior_cwnd = 0;
        cc.on_congestion_event(Time::from_secs(1), CongestionKind::Loss, 20);
        assert_eq!((cc.prior_cwnd, cc.ca_state), (c0, CaState::Recovery));
        // Already in recovery: nothing more is saved.
        cc.prior_cwnd = 0;
        cc.on_congestion_event(Time::from_secs(1), CongestionKind::Loss, 20);
        assert_eq!((cc.prior_cwnd, cc.ca_state), (0, CaState::Recovery));
    }

    #[test]
    fn sending_after_idle_in_probe_rtt_ends_it_once_the_200ms_are_over() {
        // tcp_bbr.c `bbr_cwnd_event(CA_EVENT_TX_START)`: in PROBE_RTT, `bbr_check_probe_rtt_done`.
        let (mut cc, mut d) = to_probe_bw(5);
        to_probe_rtt(&mut cc, &mut d);
        let armed = d.now;
        cc.on_sent(armed + ms(200), 1);
        assert_eq!(cc.mode(), Mode::ProbeRtt, "not after the stamp yet");
        assert!(cc.idle_restart);
        cc.on_sent(armed + ms(201), 2);
        assert_eq!(cc.mode(), Mode::ProbeRtt, "the pipe was not empty");
        cc.on_sent(armed + ms(201), 1);
        assert_eq!(cc.mode(), Mode::ProbeBw);
        assert_eq!(cc.min_rtt_stamp, armed + ms(201));
    }

    #[test]
    fn max_filter_sub_windows_follow_win_minmax_at_their_boundaries() {
        // lib/win_minmax.c with a window of 8 rounds: the 2nd best is replaced after win/4 = 2
        // rounds, the 3rd after win/2 = 4, the best expires after win = 8 (all strict).
        let s = |f: &MaxFilter| f.s.map(|x| (x.t, x.v));
        let mut f = MaxFilter::default();
        f.reset(0, 100.0);
        f.running_max(8, 2, 90.0);
        assert_eq!(s(&f), [(0, 100.0); 3], "dt = 2 is not > win/4");
        f.running_max(8, 3, 90.0);
        assert_eq!(s(&f), [(0, 100.0), (3, 90.0), (3, 90.0)]);
        f.running_max(8, 4, 80.0);
        assert_eq!(s(&f), [(0, 100.0), (3, 90.0), (3, 90.0)], "dt = 4 is not > win/2");
        f.running_max(8, 5, 80.0);
        assert_eq!(s(&f), [(0, 100.0), (3, 90.0), (5, 80.0)]);
        // A value between the 2nd and 3rd best replaces the 3rd.
        let mut g = f;
        g.running_max(8, 6, 85.0);
        assert_eq!(s(&g), [(0, 100.0), (3, 90.0), (6, 85.0)]);
        f.running_max(8, 8, 70.0);
        assert_eq!(s(&f), [(0, 100.0), (3, 90.0), (5, 80.0)], "dt = 8 is not > win");
        f.running_max(8, 9, 70.0);
        assert_eq!(s(&f), [(3, 90.0), (5, 80.0), (9, 70.0)]);
        assert_eq!(f.get(), 90.0);
        // 10 rounds after the best (at 3): the next one (5) is 8 old, not > win: one shift.
        f.running_max(8, 13, 60.0);
        assert_eq!(s(&f), [(5, 80.0), (9, 70.0), (13, 60.0)]);
        // Two shifts when the next best has expired too.
        f.running_max(8, 18, 50.0);
        assert_eq!(s(&f), [(13, 60.0), (18, 50.0), (18, 50.0)]);
        // The 3rd best exactly `win` old is not a restart: one shift, at 13 rounds after the best.
        let mut g = f;
        g.running_max(8, 26, 10.0);
        assert_eq!(s(&g), [(18, 50.0), (18, 50.0), (26, 10.0)]);
        // Everything older than the window: a fresh start, even with a smaller value.
        f.running_max(8, 27, 10.0);
        assert_eq!(s(&f), [(27, 10.0); 3]);
        // A new best replaces all three.
        f.running_max(8, 28, 20.0);
        assert_eq!(s(&f), [(28, 20.0); 3]);
    }

    #[test]
    fn sample_validity_and_the_probe_rtt_app_limited_range() {
        let mut cc = bbr(1);
        let rs = |interval: Dur, rate: f64, prior: u64, app: bool| AckInfo {
            rate: Some(RateSample {
                delivery_rate: rate,
                delivered: 1,
                interval,
                prior_delivered: prior,
                is_app_limited: app,
            }),
            ..AckInfo::default()
        };
        // Linux: a sample with `interval_us <= 0` or `delivered < 0` is invalid; a rate of 0 is valid.
        assert!(cc.sample(&rs(Dur::ZERO, 1e3, 0, false)).is_none());
        assert!(cc.sample(&rs(RTT, f64::NAN, 0, false)).is_none());
        assert!(cc.sample(&rs(RTT, -1.0, 0, false)).is_none());
        assert_eq!(cc.sample(&rs(RTT, 0.0, 0, false)).map(|r| r.delivery_rate), Some(0.0));
        // PROBE_RTT's app-limited mark covers prior_delivered in [5, 9].
        cc.app_limited_range = Some((5, 9));
        for (prior, app) in [(4, false), (5, true), (9, true), (10, false)] {
            assert_eq!(cc.sample(&rs(RTT, 1e3, prior, false)).unwrap().is_app_limited, app, "{prior}");
        }
        assert!(cc.sample(&rs(RTT, 1e3, 4, true)).unwrap().is_app_limited, "marked by the sender");
    }

    #[test]
    fn an_app_limited_sample_equal_to_the_max_refreshes_it() {
        // tcp_bbr.c `bbr_update_bw`: `!rs->is_app_limited || bw >= bbr_max_bw(sk)`.
        let mut cc = bbr(1);
        let mut d = Drive::default();
        d.round_ack(&mut cc, RTT, 100_000.0, 5);
        d.app_limited = true;
        for _ in 2..=11 {
            d.round_ack(&mut cc, RTT, 100_000.0, 5);
        }
        d.app_limited = false;
        // Round 12: the max was refreshed in round 11, so a lower sample does not replace it.
        d.round_ack(&mut cc, RTT, 50_000.0, 5);
        assert_eq!((cc.rtt_cnt, cc.max_bw()), (12, 100_000.0));
    }

    #[test]
    fn lt_bw_intervals_agree_within_an_eighth_or_4_kbit_per_s() {
        // tcp_bbr.c `bbr_lt_bw_interval_done`: |bw − lt_bw| ≤ lt_bw/8 or ≤ 4000/8 B/s → policed.
        let cfg = BbrConfig {
            lt_bw: true,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(1, 0));
        cc.lt_rtt_cnt = 5;
        cc.lt_bw_interval_done(100_000.0);
        assert_eq!((cc.lt_bw, cc.lt_use_bw, cc.lt_rtt_cnt), (100_000.0, false, 0), "first interval");
        // No earlier interval (lt_bw = 0): even a rate within 4 kbit/s of 0 starts one.
        let mut first = cc.clone();
        first.lt_bw = 0.0;
        first.lt_bw_interval_done(400.0);
        assert_eq!((first.lt_bw, first.lt_use_bw), (400.0, false));
        cc.lt_bw_interval_done(113_000.0);
        assert_eq!((cc.lt_bw, cc.lt_use_bw), (113_000.0, false), "13 % apart: a new first interval");
        cc.lt_bw = 100_000.0;
        cc.lt_rtt_cnt = 5;
        cc.lt_bw_interval_done(112_500.0);
        assert_eq!((cc.lt_bw, cc.lt_use_bw, cc.lt_rtt_cnt), (106_250.0, true, 0), "exactly 1/8");
        assert_eq!(cc.pacing_gain, 1.0);
        for (lt, bw, policed) in [(1_000.0, 1_500.0, true), (1_000.0, 1_501.0, false)] {
            (cc.lt_bw, cc.lt_use_bw) = (lt, false);
            cc.lt_bw_interval_done(bw);
            assert_eq!(cc.lt_use_bw, policed, "{lt} vs {bw}");
        }
    }

    #[test]
    fn lt_bw_sampling_takes_4_to_16_rounds_with_a_loss_rate_of_at_least_50_over_256() {
        let cfg = BbrConfig {
            lt_bw: true,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(1, 0));
        (cc.delivered, cc.lost_total, cc.delivered_stamp) = (100, 10, Time::from_millis(1_000));
        cc.lt_bw_sampling_with(0, false);
        assert!(!cc.lt_is_sampling, "starts at a loss");
        cc.lt_bw_sampling_with(1, false);
        assert!(cc.lt_is_sampling);
        assert_eq!((cc.lt_last_stamp_ms, cc.lt_last_delivered, cc.lt_last_lost, cc.lt_rtt_cnt), (1_000, 100, 10, 0));
        // 256 delivered and 50 lost (exactly bbr_lt_loss_thresh) over 400 ms, in 3 rounds: too few.
        cc.round_start = true;
        (cc.delivered, cc.lost_total, cc.delivered_stamp) = (356, 60, Time::from_millis(1_400));
        for _ in 0..3 {
            cc.lt_bw_sampling_with(1, false);
        }
        assert_eq!((cc.lt_rtt_cnt, cc.lt_bw), (3, 0.0));
        // The 4th round ends the interval: 256 · 1448 B / 0.4 s.
        cc.lt_bw_sampling_with(1, false);
        assert_eq!((cc.lt_bw, cc.lt_rtt_cnt), (256.0 * 1448.0 / 0.4, 0));
        assert_eq!((cc.lt_last_stamp_ms, cc.lt_last_delivered, cc.lt_last_lost), (1_400, 356, 60));
        // Below the loss threshold (49 of 256) nothing is done, even after 16 rounds.
        (cc.delivered, cc.lost_total, cc.delivered_stamp) = (612, 109, Time::from_millis(1_800));
        for _ in 0..16 {
            cc.lt_bw_sampling_with(1, false);
        }
        assert_eq!((cc.lt_rtt_cnt, cc.lt_bw, cc.lt_is_sampling), (16, 256.0 * 1448.0 / 0.4, true));
        // A 17th round restarts sampling from scratch.
        cc.lt_bw_sampling_with(1, false);
        assert_eq!((cc.lt_is_sampling, cc.lt_bw, cc.lt_rtt_cnt), (false, 0.0, 0));
        // An interval shorter than 1 ms (still at 1.8 s) gives no sample; an app-limited one
        // restarts.
        cc.lt_bw_sampling_with(1, false);
        cc.lt_rtt_cnt = 4;
        (cc.delivered, cc.lost_total) = (cc.delivered + 10, cc.lost_total + 100);
        cc.lt_bw_sampling_with(1, false);
        assert_eq!((cc.lt_rtt_cnt, cc.lt_bw, cc.lt_is_sampling), (5, 0.0, true));
        // 1 ms is enough: 10 segments in 1 ms.
        cc.delivered_stamp = Time::from_millis(1_801);
        cc.lt_bw_sampling_with(1, false);
        assert_eq!((cc.lt_bw, cc.lt_rtt_cnt), (10.0 * 1448.0 / 0.001, 0));
        cc.lt_bw_sampling_with(1, true);
        assert!(!cc.lt_is_sampling);
    }

    #[test]
    fn quantization_budget_adds_three_quanta_rounds_up_to_even_and_two_in_phase_0() {
        // tcp_bbr.c `bbr_quantization_budget`: cwnd + 3·tso_segs_goal, (cwnd + 1) & ~1U, and
        // +2 when probing (PROBE_BW phase 0; from Linux 5.1, so not with kernel4).
        let mut cc = Bbr::new(
            BbrConfig {
                tso_segs: 2,
                ..BbrConfig::default()
            },
            Time::ZERO,
            Rng::stream(1, 0),
        );
        assert_eq!((cc.quantization_budget(11), cc.quantization_budget(10)), (18, 16));
        cc.cfg.tso_segs = 1;
        assert_eq!((cc.quantization_budget(11), cc.quantization_budget(10)), (14, 14));
        (cc.mode, cc.cycle_idx) = (Mode::ProbeBw, 0);
        assert_eq!(cc.quantization_budget(11), 16);
        cc.cycle_idx = 1;
        assert_eq!(cc.quantization_budget(11), 14);
        (cc.mode, cc.cycle_idx) = (Mode::Startup, 0);
        assert_eq!(cc.quantization_budget(11), 14);
        (cc.mode, cc.cfg.kernel4, cc.pacing_rate) = (Mode::ProbeBw, true, 100_000.0);
        assert_eq!(cc.quantization_budget(11), 14, "kernel4: autosized quantum 1, no +2");
    }

    #[test]
    fn packets_in_net_at_edt_add_a_quantum_only_while_pacing_above_bw() {
        // tcp_bbr.c `bbr_packets_in_net_at_edt` with no pacing backlog: + tso_segs_goal when
        // `pacing_gain > BBR_UNIT` (Linux ≥ 4.20: not with kernel4).
        let mut cc = Bbr::new(
            BbrConfig {
                tso_segs: 2,
                ..BbrConfig::default()
            },
            Time::ZERO,
            Rng::stream(1, 0),
        );
        for (gain, expect) in [(1.25, 12), (1.0, 10), (0.75, 10)] {
            cc.pacing_gain = gain;
            assert_eq!(cc.packets_in_net_at_edt(10), expect, "gain {gain}");
        }
        (cc.pacing_gain, cc.cfg.kernel4) = (1.25, true);
        assert_eq!(cc.packets_in_net_at_edt(10), 10);
    }

    #[test]
    fn bdp_of_an_unusable_bandwidth_is_zero() {
        let mut cc = bbr(1);
        cc.min_rtt = Some(RTT);
        assert_eq!(cc.bdp(per_rtt(7.0), 1.0), 7);
        for bw in [f64::INFINITY, f64::NAN, 0.0, -1.0] {
            assert_eq!(cc.bdp(bw, 1.0), 0, "bw {bw}");
        }
    }

    #[test]
    fn probe_rtt_ms_zero_never_enters_probe_rtt() {
        let cfg = BbrConfig {
            probe_rtt: Dur::ZERO,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(5, 0));
        let mut d = Drive::default();
        let bw = per_rtt(10.0);
        for _ in 0..4 {
            d.round(&mut cc, 10, bw, 30);
        }
        while cc.mode() != Mode::ProbeBw {
            d.round_ack(&mut cc, ms(10), bw, 10);
        }
        // 20 s of equal samples: min_rtt expires every 10 s and is refreshed by the next sample.
        let stamp = cc.min_rtt_stamp;
        for _ in 0..200 {
            d.round_ack(&mut cc, ms(100), bw, 20);
            assert_eq!(cc.mode(), Mode::ProbeBw);
        }
        assert!(cc.min_rtt_stamp > stamp + Dur::from_secs(10));
    }

    #[test]
    fn idle_restart_ends_with_the_first_sample_that_delivered_data() {
        // tcp_bbr.c `bbr_update_min_rtt`: `if (rs->delivered > 0) bbr->idle_restart = 0;`.
        let (mut cc, mut d) = to_probe_bw(4);
        cc.on_sent(d.now, 1);
        assert!(cc.idle_restart);
        let mut a = d.mk(MS, 1, d.delivered, per_rtt(10.0), 1, 0);
        a.rate = a.rate.map(|r| RateSample { delivered: 0, ..r });
        cc.on_ack(d.now, &a);
        assert!(cc.idle_restart, "a sample of 0 segments");
        d.round_ack(&mut cc, MS, per_rtt(10.0), 1);
        assert!(!cc.idle_restart);
    }

    #[test]
    fn growth_under_25_percent_per_round_counts_as_a_flat_round() {
        // tcp_bbr.c `bbr_check_full_bw_reached`: bw ≥ full_bw · 5/4 restarts the count, else
        // three such rounds fill the pipe. 5 % per round: full at the 4th round.
        let mut cc = bbr(1);
        let mut d = Drive::default();
        for r in 0..4 {
            assert!(!cc.full_bw_reached);
            d.round(&mut cc, 10, per_rtt(10.0 * 1.05f64.powi(r)), 30);
        }
        assert!(cc.full_bw_reached);
        assert_eq!((cc.full_bw, cc.full_bw_cnt), (per_rtt(10.0), 3));
    }

    #[test]
    fn min_rtt_expires_strictly_after_its_window() {
        let (mut cc, mut d) = to_probe_bw(5);
        let (stamp, bw) = (cc.min_rtt_stamp, per_rtt(10.0));
        let dt = (stamp + MIN_RTT_WIN).saturating_since(d.now);
        d.round_ack(&mut cc, dt, bw, 20);
        assert_eq!((cc.mode(), cc.min_rtt_stamp), (Mode::ProbeBw, stamp), "exactly 10 s");
        d.round_ack(&mut cc, Dur::from_nanos(1), bw, 20);
        assert_eq!((cc.mode(), cc.min_rtt_stamp), (Mode::ProbeRtt, d.now));
    }

    #[test]
    fn gains_per_mode_and_the_policer_model_pacing_at_one() {
        // tcp_bbr.c `bbr_update_gains` (`lt_use_bw`: pacing gain BBR_UNIT in PROBE_BW).
        let cfg = BbrConfig {
            cwnd_gain: 2.5,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(1, 0));
        for (mode, idx, lt, gains) in [
            (Mode::Startup, 0, false, (HIGH_GAIN, HIGH_GAIN)),
            (Mode::Drain, 0, false, (DRAIN_GAIN, HIGH_GAIN)),
            (Mode::ProbeBw, 0, false, (1.25, 2.5)),
            (Mode::ProbeBw, 1, false, (0.75, 2.5)),
            (Mode::ProbeBw, 0, true, (1.0, 2.5)),
            (Mode::ProbeRtt, 0, false, (1.0, 1.0)),
        ] {
            (cc.mode, cc.cycle_idx, cc.lt_use_bw) = (mode, idx, lt);
            cc.update_gains();
            assert_eq!((cc.pacing_gain, cc.cwnd_gain), gains, "{mode:?}, phase {idx}, lt {lt}");
        }
    }

    #[test]
    fn min_rtt_takes_only_lower_samples_before_it_expires() {
        let mut cc = bbr(1);
        let mut d = Drive::default();
        d.round_ack(&mut cc, RTT, 100_000.0, 5);
        for (rtt, min) in [(80, 80), (120, 80), (79, 79)] {
            let mut a = d.mk(MS, 1, d.delivered, 100_000.0, 5, 0);
            a.rtt = Some(ms(rtt));
            cc.on_ack(d.now, &a);
            assert_eq!(cc.min_rtt(), Some(ms(min)), "sample {rtt} ms");
        }
    }

    #[test]
    fn before_the_pipe_is_full_cwnd_grows_above_target_only_for_the_first_10_delivered() {
        // tcp_bbr.c `bbr_set_cwnd`: `else if (cwnd < target_cwnd || tp->delivered < TCP_INIT_CWND)`.
        // No min_rtt yet: target = bdp 10 + 3 → 14, below cwnd 20.
        let mut cc = bbr(1);
        let a = AckInfo {
            acked: 1,
            ..AckInfo::default()
        };
        (cc.cwnd, cc.delivered) = (20, 9);
        cc.set_cwnd(&a, 0.0, HIGH_GAIN);
        assert_eq!(cc.cwnd, 21);
        cc.delivered = 10;
        cc.set_cwnd(&a, 0.0, HIGH_GAIN);
        assert_eq!(cc.cwnd, 21);
    }

    #[test]
    fn sending_into_an_empty_pipe_in_recovery_is_not_an_idle_restart() {
        let (mut cc, d) = to_probe_bw(4);
        cc.on_congestion_event(d.now, CongestionKind::Loss, 1);
        cc.on_sent(d.now, 1);
        assert!(!cc.idle_restart);
        assert_eq!(cc.name(), "bbr");
    }

    #[test]
    fn loss_state_hooks_follow_tcp_enter_loss_and_undo() {
        let (mut cc, mut d) = to_probe_bw(2);
        let bw = per_rtt(10.0);
        // An ACK that delivers nothing does not count as progress after an RTO.
        cc.on_rto(d.now, 20);
        let stamp = cc.delivered_stamp;
        let dup = AckInfo {
            in_recovery: true,
            ..d.mk(MS, 0, d.delivered, bw, 0, 0)
        };
        cc.on_ack(d.now, &dup);
        assert!(cc.rto_retrans);
        assert_eq!(cc.delivered_stamp, stamp);
        // Progress in the Loss state: a second RTO saves the grown cwnd (Linux `tcp_enter_loss`:
        // `icsk_ca_state == TCP_CA_Loss && !icsk_retransmits`).
        d.in_recovery = true;
        let p = d.delivered;
        d.ack(&mut cc, MS, 5, p, bw, 0);
        assert_eq!((cc.cwnd, cc.rto_retrans), (6, false));
        cc.prior_cwnd = 2;
        cc.on_rto(d.now, 5);
        assert_eq!(cc.prior_cwnd, 6);
        // `tcp_try_undo_loss` → `bbr_undo_cwnd`: full-bw detection restarts, back to Open.
        cc.full_bw_cnt = 2;
        cc.on_spurious_rto(d.now);
        assert_eq!((cc.ca_state, cc.full_bw, cc.full_bw_cnt), (CaState::Open, 0.0, 0));
        // In recovery (not Loss) an RTO saves nothing; recovery exit is Open at once.
        let (mut cc, d) = to_probe_bw(2);
        cc.on_congestion_event(d.now, CongestionKind::Loss, 20);
        cc.prior_cwnd = 0;
        cc.on_rto(d.now, 20);
        assert_eq!(cc.prior_cwnd, 0);
        let (mut cc, d) = to_probe_bw(2);
        cc.on_congestion_event(d.now, CongestionKind::Loss, 20);
        cc.on_recovery_exit(d.now);
        assert_eq!(cc.ca_state, CaState::Open);
    }

    #[test]
    fn spurious_rto_restarts_the_policer_model() {
        let cfg = BbrConfig {
            lt_bw: true,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(1, 0));
        (cc.lt_bw, cc.lt_use_bw, cc.lt_is_sampling) = (1e5, true, true);
        cc.on_spurious_rto(Time::ZERO);
        assert_eq!((cc.lt_bw, cc.lt_use_bw, cc.lt_is_sampling), (0.0, false, false));
    }

    /// A controller with `bbr.ack_aggregation` on, bw 10 segments per 100 ms (0.1 segment/ms),
    /// cwnd 100.
    fn aggregating() -> Bbr {
        let cfg = BbrConfig {
            ack_aggregation: true,
            ..BbrConfig::default()
        };
        let mut cc = Bbr::new(cfg, Time::ZERO, Rng::stream(1, 0));
        cc.bw.reset(0, per_rtt(10.0));
        cc.cwnd = 100;
        cc
    }

    /// One ACK of `acked` segments at `t_ms` through `bbr_update_ack_aggregation`.
    fn agg(cc: &mut Bbr, t_ms: u64, acked: u32, round_start: bool) {
        cc.delivered_stamp = Time::from_millis(t_ms);
        cc.round_start = round_start;
        let rs = RateSample {
            delivery_rate: per_rtt(10.0),
            delivered: 1,
            interval: RTT,
            prior_delivered: 0,
            is_app_limited: false,
        };
        cc.update_ack_aggregation(acked, Some(rs));
    }

    #[test]
    fn ack_aggregation_epoch_counts_acked_beyond_bw_times_epoch() {
        // tcp_bbr.c `bbr_update_ack_aggregation`: expected_acked = bw · (delivered_mstamp −
        // ack_epoch_mstamp); the epoch restarts when ack_epoch_acked <= expected_acked.
        let mut cc = aggregating();
        // 10 ms: expected 0.1 · 10 = 1 ≥ 0 acked so far → new epoch at 10 ms; 5 acked, extra 5.
        agg(&mut cc, 10, 5, false);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked, cc.extra_acked), (Time::from_millis(10), 5, [5, 0]));
        // 30 ms: expected 0.1 · 20 = 2 < 5 → same epoch; 9 acked, extra 9 − 2 = 7.
        agg(&mut cc, 30, 4, false);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked, cc.extra_acked), (Time::from_millis(10), 9, [7, 0]));
        // 100 ms: expected 0.1 · 90 = 9, not below the 9 acked → new epoch; extra 1 < 7 kept.
        agg(&mut cc, 100, 1, false);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked, cc.extra_acked), (Time::from_millis(100), 1, [7, 0]));
        // 115 ms: expected 1 (1.5 rounded down) ≥ 1 → new epoch again; 12 acked → extra 12.
        agg(&mut cc, 115, 12, false);
        assert_eq!((cc.ack_epoch_stamp, cc.extra_acked_max()), (Time::from_millis(115), 12));
        // 2^20 acked in an epoch restart it (bbr_ack_epoch_acked_reset_thresh), even ahead of bw.
        cc.ack_epoch_acked = (1 << 20) - 5;
        agg(&mut cc, 116, 5, false);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked), (Time::from_millis(116), 5));
        // An ACK that delivers nothing, or an invalid rate sample, leaves the estimator alone.
        let before = (cc.ack_epoch_stamp, cc.ack_epoch_acked, cc.extra_acked);
        agg(&mut cc, 200, 0, false);
        cc.update_ack_aggregation(5, None);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked, cc.extra_acked), before);
        // Off (the default), nothing is tracked.
        let mut off = bbr(1);
        off.bw.reset(0, per_rtt(10.0));
        agg(&mut off, 10, 5, false);
        assert_eq!((off.ack_epoch_acked, off.extra_acked), (0, [0, 0]));
    }

    #[test]
    fn ack_aggregation_extra_is_capped_at_cwnd() {
        // tcp_bbr.c: `extra_acked = min(extra_acked, tcp_snd_cwnd(tp))`.
        let mut cc = aggregating();
        cc.cwnd = 4;
        agg(&mut cc, 10, 9, false);
        assert_eq!((cc.ack_epoch_acked, cc.extra_acked_max()), (9, 4));
    }

    #[test]
    fn ack_aggregation_max_covers_5_to_10_rounds() {
        // Two halves of bbr_extra_acked_win_rtts = 5 rounds each: the 5th round start flips to
        // the other half and clears it. Each ACK comes 1 s after the last, so it starts an epoch
        // and its extra is its own acked count.
        let mut cc = aggregating();
        agg(&mut cc, 1_000, 8, true); // round 1, half 0: 8
        for r in 2..=4 {
            agg(&mut cc, 1_000 * r, 1, true);
        }
        assert_eq!((cc.extra_acked_win_rtts, cc.extra_acked_win_idx, cc.extra_acked), (4, 0, [8, 0]));
        agg(&mut cc, 5_000, 2, true); // round 5: half 1, cleared, then 2
        assert_eq!((cc.extra_acked_win_rtts, cc.extra_acked_win_idx, cc.extra_acked), (0, 1, [8, 2]));
        assert_eq!(cc.extra_acked_max(), 8, "still remembered after 5 rounds");
        agg(&mut cc, 5_500, 3, false); // same round: max within the half
        for r in 6..=9 {
            agg(&mut cc, 1_000 * r, 1, true);
        }
        assert_eq!(cc.extra_acked_max(), 8, "9 rounds");
        agg(&mut cc, 10_000, 1, true); // round 10: half 0 cleared, the 8 forgotten
        assert_eq!((cc.extra_acked_win_idx, cc.extra_acked), (0, [1, 3]));
        assert_eq!(cc.extra_acked_max(), 3);
        // The round counter saturates at 0x1F, so any value ≥ 5 flips at the next round.
        cc.extra_acked_win_rtts = 40;
        agg(&mut cc, 11_000, 1, true);
        assert_eq!((cc.extra_acked_win_rtts, cc.extra_acked_win_idx), (0, 1));
    }

    #[test]
    fn ack_aggregation_allowance_is_capped_at_bw_times_100_ms_and_waits_for_a_full_pipe() {
        // tcp_bbr.c `bbr_ack_aggregation_cwnd`: only with full_bw_reached; min(gain · extra,
        // bw · bbr_extra_acked_max_us); `bbr_set_cwnd` adds it to the BDP before the
        // quantization budget.
        let mut cc = aggregating();
        cc.extra_acked = [7, 3];
        assert_eq!(cc.ack_aggregation_allowance(), 0, "STARTUP: pipe not full yet");
        cc.full_bw_reached = true;
        assert_eq!(cc.ack_aggregation_allowance(), 7);
        // bw · 100 ms = 10 segments caps an extra of 50.
        cc.extra_acked = [50, 3];
        assert_eq!(cc.ack_aggregation_allowance(), 10);
        // 25 segments per 100 ms: the cap is 25.
        cc.bw.reset(0, per_rtt(25.0));
        assert_eq!(cc.ack_aggregation_allowance(), 25);
        cc.bw.reset(0, per_rtt(10.0));
        // cwnd target in PROBE_BW (phase 1, gain 2, min_rtt 100 ms): BDP 20 + 10 + 3 = 33 → 34
        // (even); without the allowance 24.
        (cc.mode, cc.cycle_idx, cc.min_rtt) = (Mode::ProbeBw, 1, Some(RTT));
        let a = AckInfo {
            acked: 1,
            in_flight: 10,
            ..AckInfo::default()
        };
        cc.set_cwnd(&a, cc.bbr_bw(), 2.0);
        assert_eq!(cc.cwnd, 34);
        let mut off = cc.clone();
        off.cfg.ack_aggregation = false;
        off.cwnd = 100;
        off.set_cwnd(&a, off.bbr_bw(), 2.0);
        assert_eq!((off.ack_aggregation_allowance(), off.cwnd), (0, 24));
        // kernel4 (before Linux 5.1) has no allowance.
        off.cfg = BbrConfig {
            kernel4: true,
            ..cc.cfg.clone()
        };
        assert_eq!(off.ack_aggregation_allowance(), 0);
    }

    #[test]
    fn idle_restart_starts_a_new_aggregation_epoch() {
        // tcp_bbr.c `bbr_cwnd_event(CA_EVENT_TX_START)`: ack_epoch_mstamp = now, acked = 0.
        let mut cc = aggregating();
        agg(&mut cc, 10, 5, false);
        cc.on_sent(Time::from_millis(50), 1);
        assert_eq!((cc.ack_epoch_stamp, cc.ack_epoch_acked), (Time::from_millis(50), 0));
    }
}
