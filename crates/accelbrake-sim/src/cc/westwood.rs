//! TCP Westwood+, following Linux `net/ipv4/tcp_westwood.c`: Reno growth, and after a loss the
//! window is set from an end-to-end bandwidth estimate, `cwnd = ssthresh = BWE · RTT_min`.
//!
//! Sources:
//! - Linux `tcp_westwood.c`: `westwood_update_window` (one bandwidth sample per window of
//!   `max(RTT, 50 ms)`), `westwood_filter` / `westwood_do_filter` (two cascaded `(7a + b)/8`
//!   filters, the first sample fills both), `update_rtt_min`, `tcp_westwood_bw_rttmin`
//!   (`max(bw_est · rtt_min / mss, 2)`), `tcp_westwood_event` (`CA_EVENT_COMPLETE_CWR`: ssthresh
//!   and cwnd from the estimate; `CA_EVENT_LOSS`: ssthresh from the estimate, re-seed rtt_min),
//!   `tcp_westwood_init`; the ops table uses `tcp_reno_ssthresh`, `tcp_reno_cong_avoid`,
//!   `tcp_reno_undo_cwnd`.
//! - Linux `tcp_cong.c`: [`tcp_slow_start`](super::newreno::tcp_slow_start),
//!   [`tcp_cong_avoid_ai`](super::newreno::tcp_cong_avoid_ai) (shared with [`super::newreno`]); `tcp_input.c` `tcp_end_cwnd_reduction` (raises `CA_EVENT_COMPLETE_CWR`
//!   when fast recovery or CWR ends) and `tcp_enter_loss` (raises `CA_EVENT_LOSS` on an RTO).
//! - Mascolo et al., "TCP Westwood: bandwidth estimation for TCP" (MobiCom 2001) and Grieco &
//!   Mascolo (CCR 2004) for Westwood+: the estimate is applied when three duplicate ACKs arrive
//!   (`ssthresh = BWE · RTTmin / seg_size; if cwnd > ssthresh then cwnd = ssthresh`); this is the
//!   optional `bw_on_entry` mode.
//!
//! Timeline of a fast recovery as in Linux (the default): on entry `tcp_reno_ssthresh` halves the
//! *window* (`max(cwnd / 2, 2)`, not FlightSize) and the window is held there during recovery;
//! when recovery ends, `cwnd = ssthresh = max(floor(bw_est · rtt_min / MSS), 2)`, which may be
//! above or below the halved window. An ECN echo starts the same reduction (Linux `TCP_CA_CWR`),
//! completed once the data outstanding at the mark has been delivered. An RTO sets
//! `ssthresh = max(bw_est · rtt_min / MSS, 2)`, `cwnd = 1`, and re-seeds `rtt_min` from the next
//! RTT sample; the end of RTO recovery does nothing (Linux's `TCP_CA_Loss` exit does not raise
//! `CA_EVENT_COMPLETE_CWR`).
//!
//! Deviations from Linux, all deliberate:
//! - Bandwidth in `f64` bytes per second and time in nanoseconds; Linux keeps `bw_est` as an
//!   integer number of bytes per jiffy (truncating in `bk / delta` and in the filter's `>> 3`) and
//!   RTTs in jiffies.
//! - `bk` grows by `AckInfo::acked · MSS` (segments newly delivered, cumulatively or by SACK).
//!   Linux counts the advance of `snd_una` and, on the slow path, credits one MSS per duplicate
//!   ACK and debits it from the next cumulative ACK (`westwood_acked_count`); with SACK-based
//!   delivery counting that accounting is not needed.
//! - The window test uses this ACK's RTT sample. Depending on the kernel version, Linux may run
//!   `in_ack_event` before `pkts_acked` stores the new sample (a one-ACK lag).
//! - No PRR: the window is set to ssthresh at the start of fast recovery or CWR and held (as in
//!   [`super::newreno`]).
//! - The end of an ECN window reduction (Linux: `snd_una` passes `high_seq`) is counted: CWR ends
//!   once FlightSize + 1 segments have been delivered after the echo.
//! - An RTO during an ECN reduction is not distinguished from one in the open state (Linux
//!   `tcp_enter_loss` keeps ssthresh only for RTOs during fast recovery or repeated RTOs, which are
//!   handled as in Linux).
//! - On an RTO the window is one segment (Linux: `packets_in_flight + 1`, normally 1).

use super::newreno::{INFINITE_SSTHRESH, INITIAL_WINDOW_PARAM, LOSS_WINDOW, MIN_SSTHRESH, reported_ssthresh, tcp_reno_cong_avoid, tcp_undo_cwnd_reduction};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::packet::MSS;
use crate::time::{Dur, Time};

/// Shortest bandwidth-sampling window (tcp_westwood.c `TCP_WESTWOOD_RTT_MIN = HZ/20`, 50 ms).
pub const RTT_WINDOW_MIN: Dur = Dur::from_millis(50);
/// RTT assumed before the first sample (tcp_westwood.c `TCP_WESTWOOD_INIT_RTT = 20*HZ`, 20 s).
pub const INIT_RTT: Dur = Dur::from_secs(20);
/// Weight of the old value in the low-pass filter, in eighths (tcp_westwood.c
/// `westwood_do_filter`: `(7a + b) >> 3`).
const FILTER_OLD_EIGHTHS: f64 = 7.0;
/// Largest accepted `min_window_ms` (a sanity bound, not from Linux).
const MAX_MIN_WINDOW_MS: f64 = 60_000.0;

/// Westwood+ parameters (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct WestwoodConfig {
    /// `initial_window`: initial window in segments. Default 10 (RFC 6928; Linux `TCP_INIT_CWND`).
    pub initial_window: u32,
    /// `min_window_ms`: shortest bandwidth-sampling window in ms, (0, 60000]. Default 50
    /// (`TCP_WESTWOOD_RTT_MIN`).
    pub min_window_ms: f64,
    /// `bw_on_entry`: apply `ssthresh = BWE · RTT_min` (and `cwnd = min(cwnd, ssthresh)`) when fast
    /// recovery or CWR starts, as in the Westwood papers, instead of Linux's Reno halving on entry
    /// and `cwnd = ssthresh = BWE · RTT_min` at the end. Default off (Linux).
    pub bw_on_entry: bool,
}

/// Westwood+'s parameters (keys `westwood.<name>`).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("min_window_ms", 50.0, Unit::Ms, 0.0, MAX_MIN_WINDOW_MS)
        .open(true, false)
        .doc("shortest bandwidth-sampling window", "tcp_westwood.c TCP_WESTWOOD_RTT_MIN = HZ/20"),
    Param::flag("bw_on_entry", false)
        .doc("ssthresh = BWE·RTT_min when recovery starts (Westwood papers) instead of at its end (Linux)", "Mascolo et al. 2001; Linux tcp_westwood.c"),
];

/// Westwood+ over drop-tail.
pub const WESTWOOD: Scheme = Scheme {
    name: "westwood",
    display: "Westwood",
    family: "westwood",
    summary: "Linux tcp_westwood (Westwood+)",
    source: "Grieco & Mascolo 2004; Linux net/ipv4/tcp_westwood.c",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#7f7f7f", "<"),
    build: |v, now, _rng| Ok(Box::new(Westwood::new(WestwoodConfig::checked(v)?, now))),
    warnings: None,
};

crate::default_from_table!(WestwoodConfig);

impl Config for WestwoodConfig {
    const PREFIX: &'static str = "westwood";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> WestwoodConfig {
        WestwoodConfig {
            initial_window: v.whole("initial_window"),
            min_window_ms: v.real("min_window_ms"),
            bw_on_entry: v.flag("bw_on_entry"),
        }
    }
}

/// Westwood+ congestion controller (window in whole segments, like Linux `snd_cwnd`).
#[derive(Clone, Debug)]
pub struct Westwood {
    /// Parameters.
    cfg: WestwoodConfig,
    /// Shortest sampling window.
    min_window: Dur,
    /// Congestion window, segments.
    cwnd: u32,
    /// Congestion-avoidance credit (`snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// Slow-start threshold, segments; [`INFINITE_SSTHRESH`] until the first reduction.
    ssthresh: u32,
    /// First, lightly smoothed bandwidth estimate, bytes/s (`bw_ns_est`).
    bw_ns_est: f64,
    /// Bandwidth estimate, bytes/s (`bw_est`).
    bw_est: f64,
    /// Start of the current sampling window (`rtt_win_sx`).
    rtt_win_sx: Time,
    /// Bytes delivered in the current sampling window (`bk`).
    bk: u64,
    /// Latest RTT sample (`rtt`), [`INIT_RTT`] before the first.
    rtt: Dur,
    /// Minimum RTT (`rtt_min`).
    rtt_min: Dur,
    /// Re-seed `rtt_min` from the next sample (`reset_rtt_min`).
    reset_rtt_min: bool,
    /// In fast recovery (Linux `TCP_CA_Recovery`): window held, estimate applied at the end.
    in_fast_recovery: bool,
    /// In an ECN window reduction (Linux `TCP_CA_CWR`): segments still to be delivered before it
    /// ends.
    cwr_remaining: Option<u32>,
    /// In RTO loss recovery (Linux `TCP_CA_Loss`): the window may grow although the transport
    /// reports `in_recovery`.
    in_loss: bool,
    /// An RTO fired and no new data has been ACKed since: a further RTO keeps ssthresh.
    rto_backoff: bool,
    /// Window and threshold before the last reduction, for undo (`prior_cwnd`, `prior_ssthresh`).
    prior: (u32, u32),
}

impl Westwood {
    /// A controller in slow start with the configured initial window, infinite ssthresh and an
    /// empty bandwidth filter; the first sampling window starts at `now` (`tcp_westwood_init`).
    pub fn new(cfg: WestwoodConfig, now: Time) -> Westwood {
        let min_window = Dur::from_millis_f64(cfg.min_window_ms).max(Dur::from_nanos(1));
        Westwood {
            min_window,
            cwnd: cfg.initial_window.max(1),
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            rtt_win_sx: now,
            bk: 0,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            reset_rtt_min: true,
            in_fast_recovery: false,
            cwr_remaining: None,
            in_loss: false,
            rto_backoff: false,
            prior: (0, 0),
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &WestwoodConfig {
        &self.cfg
    }

    /// Bandwidth estimate `bw_est`, bytes per second (0 before the first sample).
    pub fn bw_est(&self) -> f64 {
        self.bw_est
    }

    /// First-stage estimate `bw_ns_est`, bytes per second.
    pub fn bw_ns_est(&self) -> f64 {
        self.bw_ns_est
    }

    /// Minimum RTT used for the loss response ([`INIT_RTT`] before any sample).
    pub fn rtt_min(&self) -> Dur {
        self.rtt_min
    }

    /// Whether the window is below ssthresh (Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// `tcp_westwood_bw_rttmin`: `max(floor(bw_est · rtt_min / MSS), 2)` segments.
    pub fn bw_rttmin(&self) -> u32 {
        let bdp_bytes = self.bw_est * self.rtt_min.nanos() as f64 / 1e9;
        // `as u32` saturates (and maps NaN to 0), so no input can overflow here.
        ((bdp_bytes / f64::from(MSS)).floor() as u32).max(MIN_SSTHRESH)
    }

    /// `westwood_filter`: feed one bandwidth sample of `bk` bytes over `delta`.
    fn filter(&mut self, delta: Dur) {
        let sample = self.bk as f64 * 1e9 / delta.nanos().max(1) as f64;
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            // "If the filter is empty fill it with the first sample of bandwidth".
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (FILTER_OLD_EIGHTHS * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (FILTER_OLD_EIGHTHS * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// `westwood_update_window`: close the sampling window once it is longer than
    /// `max(rtt, 50 ms)` (strictly, as Linux's `delta > max(...)`).
    fn update_window(&mut self, now: Time) {
        let delta = now.saturating_since(self.rtt_win_sx);
        if self.rtt.nanos() > 0 && delta > self.rtt.max(self.min_window) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = now;
        }
    }

    /// `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// `CA_EVENT_COMPLETE_CWR`: `cwnd = ssthresh = bw_rttmin` (in the default Linux mode).
    fn complete_cwr(&mut self) {
        if !self.cfg.bw_on_entry {
            self.ssthresh = self.bw_rttmin();
            self.cwnd = self.ssthresh;
            self.cwnd_cnt = 0;
        }
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        // tcp_westwood_pkts_acked: keep the latest (non-zero) RTT sample.
        if let Some(rtt) = ack.rtt.filter(|r| r.nanos() > 0) {
            self.rtt = rtt;
        }
        // tcp_westwood_ack: close the window if due, then count this ACK's bytes into the next.
        self.update_window(now);
        self.bk = self.bk.saturating_add(u64::from(ack.acked) * u64::from(MSS));
        self.update_rtt_min();

        // End of an ECN window reduction (tcp_end_cwnd_reduction → CA_EVENT_COMPLETE_CWR).
        if let Some(left) = self.cwr_remaining {
            let left = left.saturating_sub(ack.acked);
            if left == 0 {
                self.cwr_remaining = None;
                self.complete_cwr();
            } else {
                self.cwr_remaining = Some(left);
            }
        }

        if ack.acked == 0 {
            return;
        }
        self.rto_backoff = false;
        // tcp_is_cwnd_limited; no growth during fast recovery or CWR (tcp_cong_control).
        let reducing = (ack.in_recovery && !self.in_loss) || self.cwr_remaining.is_some();
        if !ack.cwnd_limited || reducing {
            return;
        }
        tcp_reno_cong_avoid(&mut self.cwnd, &mut self.cwnd_cnt, self.ssthresh, ack.acked);
    }

    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, in_flight: u32) {
        // tcp_enter_recovery / tcp_enter_cwr: remember the state for undo, then reduce.
        self.prior = (self.cwnd, self.ssthresh);
        if self.cfg.bw_on_entry {
            // Westwood papers: ssthresh = BWE · RTTmin; cwnd = min(cwnd, ssthresh).
            self.ssthresh = self.bw_rttmin();
            self.cwnd = self.cwnd.min(self.ssthresh);
        } else {
            // tcp_reno_ssthresh: max(cwnd >> 1, 2); PRR would bring cwnd there (see Deviations).
            self.ssthresh = (self.cwnd >> 1).max(MIN_SSTHRESH);
            self.cwnd = self.ssthresh;
        }
        self.cwnd_cnt = 0;
        self.in_loss = false;
        match kind {
            CongestionKind::Loss => {
                self.in_fast_recovery = true;
                self.cwr_remaining = None;
            }
            // CWR ends when `snd_una` passes `high_seq = snd_nxt`: FlightSize + 1 deliveries.
            CongestionKind::Ecn => self.cwr_remaining = Some(in_flight.saturating_add(1)),
        }
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // Fast recovery ends with CA_EVENT_COMPLETE_CWR; RTO recovery (TCP_CA_Loss) does not.
        if self.in_fast_recovery {
            self.complete_cwr();
        }
        self.in_fast_recovery = false;
        self.in_loss = false;
    }

    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        // tcp_enter_loss recomputes ssthresh (and raises CA_EVENT_LOSS) unless this RTO repeats
        // one without progress or interrupts fast recovery.
        if !self.rto_backoff && !self.in_fast_recovery {
            self.prior = (self.cwnd, self.ssthresh);
            // CA_EVENT_LOSS overrides tcp_reno_ssthresh with the estimate and re-seeds rtt_min.
            self.ssthresh = self.bw_rttmin();
            self.reset_rtt_min = true;
        }
        self.cwnd = LOSS_WINDOW;
        self.cwnd_cnt = 0;
        self.in_loss = true;
        self.in_fast_recovery = false;
        self.cwr_remaining = None;
        self.rto_backoff = true;
    }

    /// `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`: `cwnd = max(cwnd, prior_cwnd)`,
    /// `ssthresh = max(ssthresh, prior_ssthresh)`.
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
    use crate::cc::newreno::tests::Flow;
    use crate::error::Error;

    fn westwood() -> Westwood {
        Westwood::new(WestwoodConfig::default(), Time::ZERO)
    }

    /// Deliver an ACK at `ms` for `acked` segments with RTT sample `rtt_ms`, cwnd-limited, outside
    /// recovery.
    fn ack_at(cc: &mut Westwood, ms: u64, acked: u32, rtt_ms: Option<u64>) {
        let info = AckInfo {
            acked,
            rtt: rtt_ms.map(Dur::from_millis),
            in_flight: 10,
            cwnd_limited: true,
            ..AckInfo::default()
        };
        cc.on_ack(Time::from_millis(ms), &info);
    }

    /// Two bandwidth samples: 362000 B/s, then 724000 B/s; minimum RTT 80 ms.
    fn two_samples() -> Westwood {
        let mut cc = westwood();
        ack_at(&mut cc, 100, 50, Some(100)); // delta 100 ms is not > max(100, 50): no sample
        assert_eq!(cc.bw_est(), 0.0);
        ack_at(&mut cc, 200, 50, Some(100)); // 50 · 1448 B / 0.2 s = 362000 B/s
        ack_at(&mut cc, 300, 50, Some(100));
        ack_at(&mut cc, 400, 50, Some(80)); // 100 · 1448 B / 0.2 s = 724000 B/s
        cc
    }

    #[test]
    fn filter_is_seeded_by_the_first_sample_then_smooths_twice_by_eighths() {
        let mut cc = westwood();
        ack_at(&mut cc, 100, 50, Some(100));
        ack_at(&mut cc, 200, 50, Some(100));
        assert_eq!((cc.bw_ns_est(), cc.bw_est()), (362_000.0, 362_000.0));
        ack_at(&mut cc, 300, 50, Some(100));
        assert_eq!(cc.bw_est(), 362_000.0, "window not over yet");
        // This ACK's RTT sample (80 ms) is used for the window test: 200 ms > 80 ms.
        ack_at(&mut cc, 400, 50, Some(80));
        // bw_ns = (7 · 362000 + 724000) / 8 = 407250; bw = (7 · 362000 + 407250) / 8 = 367656.25.
        assert_eq!((cc.bw_ns_est(), cc.bw_est()), (407_250.0, 367_656.25));
        assert_eq!(cc.rtt_min(), Dur::from_millis(80));
        // floor(367656.25 B/s · 0.08 s / 1448 B) = floor(20.3125) = 20.
        assert_eq!(cc.bw_rttmin(), 20);
        // Slow start meanwhile: 10 + 4 · 50.
        assert_eq!(cc.window(), 210.0);
    }

    #[test]
    fn sampling_window_is_at_least_50_ms_when_the_rtt_is_shorter() {
        let mut cc = westwood();
        for ms in [10, 20, 30, 40, 50] {
            ack_at(&mut cc, ms, 1, Some(10));
        }
        assert_eq!(cc.bw_est(), 0.0, "50 ms is not > 50 ms");
        ack_at(&mut cc, 64, 1, Some(10));
        // 5 · 1448 B / 0.064 s; the ACK that closes the window counts into the next one.
        assert_eq!(cc.bw_est(), 113_125.0);
        assert_eq!(cc.rtt_min(), Dur::from_millis(10));
    }

    #[test]
    fn an_empty_sample_leaves_the_filter_empty_for_the_next_to_seed() {
        let mut cc = westwood();
        ack_at(&mut cc, 10, 0, Some(10));
        ack_at(&mut cc, 100, 0, None); // closes a window with bk = 0
        assert_eq!((cc.bw_ns_est(), cc.bw_est()), (0.0, 0.0));
        ack_at(&mut cc, 110, 10, Some(10));
        ack_at(&mut cc, 200, 0, None); // 10 · 1448 B / 0.1 s
        assert_eq!((cc.bw_ns_est(), cc.bw_est()), (144_800.0, 144_800.0));
    }

    #[test]
    fn fast_recovery_halves_the_window_then_exit_sets_cwnd_and_ssthresh_to_bw_times_rtt_min() {
        let mut cc = two_samples();
        cc.on_congestion_event(Time::from_millis(400), CongestionKind::Loss, 150);
        // tcp_reno_ssthresh halves cwnd (210), not FlightSize.
        assert_eq!((cc.window(), cc.ssthresh()), (105.0, Some(105.0)));
        let held = AckInfo {
            acked: 5,
            rtt: Some(Dur::from_millis(100)),
            cwnd_limited: true,
            in_recovery: true,
            ..AckInfo::default()
        };
        cc.on_ack(Time::from_millis(420), &held);
        assert_eq!(cc.window(), 105.0, "held during recovery");
        cc.on_recovery_exit(Time::from_millis(450));
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        // Reno congestion avoidance from there: +1 after 20 ACKed segments.
        ack_at(&mut cc, 460, 19, Some(100));
        assert_eq!(cc.window(), 20.0);
        ack_at(&mut cc, 470, 1, Some(100));
        assert_eq!(cc.window(), 21.0);
    }

    #[test]
    fn without_an_estimate_the_loss_window_is_two_segments() {
        let mut cc = westwood();
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!(cc.window(), 5.0);
        cc.on_recovery_exit(Time::ZERO);
        assert_eq!((cc.window(), cc.ssthresh()), (2.0, Some(2.0)));
    }

    #[test]
    fn bw_on_entry_applies_the_estimate_when_recovery_starts() {
        let cfg = WestwoodConfig {
            bw_on_entry: true,
            ..WestwoodConfig::default()
        };
        let mut cc = Westwood::new(cfg.clone(), Time::ZERO);
        for (ms, rtt) in [(100, 100), (200, 100), (300, 100), (400, 80)] {
            ack_at(&mut cc, ms, 50, Some(rtt));
        }
        cc.on_congestion_event(Time::from_millis(400), CongestionKind::Loss, 150);
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        cc.on_recovery_exit(Time::from_millis(500));
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        // A window already below the estimate is kept (paper: "if cwnd > ssthresh").
        let mut cc = Westwood::new(cfg, Time::ZERO);
        for (ms, rtt) in [(100, 100), (200, 100), (300, 100), (400, 80)] {
            ack_at(&mut cc, ms, 50, Some(rtt));
        }
        cc.on_rto(Time::from_millis(400), 100);
        cc.on_recovery_exit(Time::from_millis(500));
        ack_at(&mut cc, 450, 4, Some(100)); // slow start 1 → 5; rtt_min re-seeded to 100 ms
        cc.on_congestion_event(Time::from_millis(460), CongestionKind::Loss, 5);
        // floor(367656.25 · 0.1 / 1448) = floor(25.39) = 25.
        assert_eq!((cc.window(), cc.ssthresh()), (5.0, Some(25.0)));
    }

    #[test]
    fn rto_sets_ssthresh_from_the_estimate_and_one_segment_and_reseeds_rtt_min() {
        let mut cc = two_samples();
        cc.on_rto(Time::from_millis(400), 150);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(20.0)));
        // A repeated RTO keeps ssthresh.
        cc.on_rto(Time::from_millis(401), 150);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(20.0)));
        // Slow start during RTO recovery; rtt_min is re-seeded from the next sample (120 > 80 ms).
        let ack = AckInfo {
            acked: 1,
            rtt: Some(Dur::from_millis(120)),
            cwnd_limited: true,
            in_recovery: true,
            ..AckInfo::default()
        };
        cc.on_ack(Time::from_millis(450), &ack);
        assert_eq!(cc.window(), 2.0);
        assert_eq!(cc.rtt_min(), Dur::from_millis(120));
        // Leaving RTO recovery does not apply the estimate (no CA_EVENT_COMPLETE_CWR).
        cc.on_recovery_exit(Time::from_millis(460));
        assert_eq!((cc.window(), cc.ssthresh()), (2.0, Some(20.0)));
        // Undo restores the state from before the RTO (tcp_reno_undo_cwnd).
        cc.on_spurious_rto(Time::from_millis(470));
        assert_eq!(cc.window(), 210.0);
        assert_eq!(cc.ssthresh(), None);
    }

    #[test]
    fn ecn_reduction_ends_with_the_estimate_after_flight_size_plus_one_deliveries() {
        let mut cc = westwood();
        ack_at(&mut cc, 50, 5, Some(100)); // slow start 10 → 15
        ack_at(&mut cc, 125, 0, None); // 5 · 1448 B / 0.125 s = 57920 B/s
        assert_eq!(cc.bw_est(), 57_920.0);
        // 57920 B/s · 0.1 s / 1448 B = 4 segments.
        assert_eq!(cc.bw_rttmin(), 4);
        cc.on_congestion_event(Time::from_millis(125), CongestionKind::Ecn, 4);
        assert_eq!((cc.window(), cc.ssthresh()), (7.0, Some(7.0)));
        for ms in [130, 140, 150, 160] {
            ack_at(&mut cc, ms, 1, Some(100));
            assert_eq!(cc.window(), 7.0, "held during CWR");
        }
        ack_at(&mut cc, 170, 1, Some(100));
        assert_eq!((cc.window(), cc.ssthresh()), (4.0, Some(4.0)));
    }

    #[test]
    fn growth_is_reno_slow_start_then_one_segment_per_round() {
        let mut cc = westwood();
        let mut flow = Flow::new(&cc);
        let rtt = Dur::from_millis(100);
        for expected in [20.0, 40.0, 80.0] {
            flow.round(&mut cc, rtt, 1.0);
            assert_eq!(cc.window(), expected);
        }
        assert!(cc.bw_est() > 0.0);
        cc.on_congestion_event(flow.now, CongestionKind::Loss, 80);
        cc.on_recovery_exit(flow.now);
        let w = cc.window();
        flow.pipe = w as u32;
        for k in 1..=3 {
            flow.round(&mut cc, rtt, 1.0);
            assert_eq!(cc.window(), w + f64::from(k));
        }
        // No growth when the window is not used.
        flow.cwnd_limited = false;
        flow.round(&mut cc, rtt, 1.0);
        assert_eq!(cc.window(), w + 3.0);
    }

    #[test]
    fn extreme_inputs_do_not_panic_and_saturate() {
        let mut cc = westwood();
        let huge = AckInfo {
            acked: u32::MAX,
            rtt: Some(Dur::from_secs(1_000_000)),
            in_flight: u32::MAX,
            cwnd_limited: true,
            ..AckInfo::default()
        };
        cc.on_ack(Time::from_secs(1), &huge);
        cc.on_ack(Time::MAX, &huge);
        cc.on_ack(Time::ZERO, &huge); // time going backwards
        assert!(cc.window().is_finite() && cc.bw_est().is_finite());
        cc.on_congestion_event(Time::MAX, CongestionKind::Loss, u32::MAX);
        cc.on_recovery_exit(Time::MAX);
        assert!(cc.window() >= 2.0);
        cc.on_rto(Time::MAX, u32::MAX);
        assert_eq!(cc.window(), 1.0);
    }

    #[test]
    fn parameters_are_validated_and_unknown_keys_left() {
        for (key, bad) in [
            ("min_window_ms", 0.0),
            ("min_window_ms", f64::NAN),
            ("bw_on_entry", 2.0),
        ] {
            let mut p = Params::from([(key.to_string(), bad)]);
            match WestwoodConfig::from_params(&mut p) {
                Err(Error::Param { key: k, msg }) => {
                    assert_eq!(k, format!("westwood.{key}"));
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("{key} = {bad} accepted: {other:?}"),
            }
        }
        let mut p = Params::from([
            ("min_window_ms".to_string(), 20.0),
            ("bw_on_entry".to_string(), 1.0),
            ("bogus".to_string(), 1.0),
        ]);
        let cfg = WestwoodConfig::from_params(&mut p).unwrap();
        assert_eq!(
            (cfg.min_window_ms, cfg.bw_on_entry, cfg.initial_window),
            (20.0, true, 10)
        );
        assert_eq!(p.keys().collect::<Vec<_>>(), ["bogus"]);
        let cc = Westwood::new(cfg, Time::ZERO);
        assert_eq!(cc.name(), "westwood");
        assert_eq!(cc.metrics().ssthresh, None);
    }

    #[test]
    fn slow_start_is_cwnd_below_ssthresh_and_config_is_kept() {
        let cfg = WestwoodConfig {
            min_window_ms: 20.0,
            ..WestwoodConfig::default()
        };
        let mut cc = Westwood::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        assert!(cc.in_slow_start());
        // cwnd = ssthresh = max(10 >> 1, 2) = 5: congestion avoidance (Linux tcp_in_slow_start).
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!((cc.window(), cc.ssthresh()), (5.0, Some(5.0)));
        assert!(!cc.in_slow_start());
        // An RTO during fast recovery keeps ssthresh (Linux tcp_enter_loss): cwnd 1 < 5.
        cc.on_rto(Time::ZERO, 5);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(5.0)));
        assert!(cc.in_slow_start());
    }

    /// `tcp_westwood_pkts_acked` keeps only positive RTT samples (`if (sample->rtt_us > 0)`).
    #[test]
    fn a_zero_rtt_sample_is_ignored() {
        let mut cc = westwood();
        ack_at(&mut cc, 10, 1, Some(80));
        ack_at(&mut cc, 20, 1, Some(0));
        assert_eq!(cc.rtt_min(), Dur::from_millis(80));
    }

    /// No growth during an ECN window reduction (Linux `TCP_CA_CWR`), even on ACKs outside
    /// recovery that deliver a whole window's worth of credit.
    #[test]
    fn the_window_is_held_through_cwr() {
        let mut cc = westwood();
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 20);
        assert_eq!((cc.window(), cc.ssthresh()), (5.0, Some(5.0)));
        ack_at(&mut cc, 10, 10, Some(100));
        assert_eq!(cc.window(), 5.0, "CWR: 10 of 21 deliveries");
    }
}
