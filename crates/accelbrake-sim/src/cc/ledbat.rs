//! LEDBAT, Low Extra Delay Background Transport (RFC 6817): a window controller that keeps the
//! one-way queuing delay it adds near a target and yields to standard TCP.
//!
//! Sources (RFC 6817):
//! - §2.4.2 (the complete sender algorithm, pseudo-code): per ACK, `update_base_delay` /
//!   `update_current_delay`, `queuing_delay = FILTER(current_delays) − MIN(base_delays)`,
//!   `off_target = (TARGET − queuing_delay) / TARGET`,
//!   `cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd`,
//!   `cwnd = min(cwnd, flightsize + ALLOWED_INCREASE · MSS)`, `cwnd = max(cwnd, MIN_CWND · MSS)`;
//!   on data loss, at most once per RTT, `cwnd = min(cwnd, max(cwnd / 2, MIN_CWND · MSS))`; if no
//!   ACK arrives within a CTO, `cwnd = 1 · MSS`. Base delays are kept as `BASE_HISTORY` minima
//!   each over one minute (`round_to_minute(now) != round_to_minute(last_rollover)` starts a new
//!   one), initialised to +∞.
//! - §2.5: TARGET = 100 ms (MUST be ≤ 100 ms), GAIN = 1 (MUST be ≤ 1), ALLOWED_INCREASE = 1,
//!   BASE_HISTORY = 10, INIT_CWND = MIN_CWND = 2; §2.5.1: FILTER = minimum of the last
//!   CURRENT_FILTER (about 4) samples.
//!
//! Windows are in segments, so the byte rule `cwnd += GAIN · off_target · bytes_acked · MSS / cwnd`
//! becomes `cwnd += GAIN · off_target · acked / cwnd` with `acked = AckInfo::acked`.
//!
//! Slow start: RFC 6817 leaves it optional (and no more aggressive than TCP's). This module has
//! none: it starts at INIT_CWND = 2 segments and applies the LEDBAT rule from the first ACK, so an
//! empty path is probed at about one segment per RTT. `initial_window` can raise the start.
//!
//! Delay samples: `AckInfo::one_way_delay` (receiver timestamp − send time). Only differences to
//! the base delay matter, so a constant clock offset would cancel.
//!
//! Deviations and choices where the RFC is silent:
//! - If the transport supplies no one-way delay (a flow's ACKs carry `one_way_delay: None`), RTT
//!   samples (`AckInfo::rtt`) stand in for it, which also counts reverse-path queuing. Once a
//!   one-way delay is seen the controller switches to one-way delays for good and clears the
//!   delay histories so the two are never mixed.
//! - Until the first delay sample the window is only capped and floored, not grown.
//! - `flightsize` ("data outstanding before this ACK was received") is the transport's pipe before
//!   the ACK: `in_flight + acked + lost` (`AckInfo::in_flight` is the pipe after the ACK; segments
//!   newly marked lost are counted back because the transport retransmits them).
//! - "At most once per RTT" uses the smoothed RTT (`AckInfo::srtt`, else the latest sample) of the
//!   most recent ACK; without any RTT every loss event reduces.
//! - An ECN congestion echo is answered like a loss (RFC 6817 defines no ECN response; RFC 3168
//!   asks for the loss response).
//! - The transport's RTO stands in for the CTO. After it the window is 1 segment, and the next
//!   ACK raises it to MIN_CWND through the per-ACK floor (the pseudo-code as written). A spurious
//!   RTO (detected by the transport) restores the window from before it; the RFC has no undo.

use super::newreno::LOSS_WINDOW;
use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, Scheme};
use super::base_delay::{BaseDelayHistory, Bucketing};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// TARGET queuing delay, ms (RFC 6817 §2.5: 100 ms, MUST be ≤ 100 ms).
pub const TARGET_MS: f64 = 100.0;
/// GAIN (RFC 6817 §2.5: 1, MUST be ≤ 1).
pub const GAIN: f64 = 1.0;
/// ALLOWED_INCREASE, segments (RFC 6817 §2.5: SHOULD be 1, MUST be > 0).
pub const ALLOWED_INCREASE: f64 = 1.0;
/// MIN_CWND, segments (RFC 6817 §2.5: SHOULD be 2).
pub const MIN_CWND: f64 = 2.0;
/// INIT_CWND, segments (RFC 6817 §2.5: SHOULD be 2).
pub const INIT_CWND: f64 = 2.0;
/// BASE_HISTORY, number of one-minute minima (RFC 6817 §2.5: 10).
pub const BASE_HISTORY: u32 = 10;
/// CURRENT_FILTER, number of recent samples whose minimum is the current delay (RFC 6817 §2.5.1:
/// "4 ... or those in the last RTT"; the digest's value 4).
pub const CURRENT_FILTER: u32 = 4;
/// Length of one base-delay bucket (RFC 6817 §2.4.2 `round_to_minute`).
pub const BASE_BUCKET: Dur = Dur::from_secs(60);
/// Largest accepted target, ms (beyond the RFC's 100 ms for experiments; a sanity bound).
const MAX_TARGET_MS: f64 = 10_000.0;
/// Largest accepted window-type parameter, segments (a sanity bound).
const MAX_WINDOW: f64 = 1e6;
/// Largest accepted history / filter length (a sanity bound).
const MAX_HISTORY: u32 = 10_000;

/// LEDBAT parameters. (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct LedbatConfig {
    /// `target_ms`: TARGET queuing delay in ms, (0, 10000]. Default 100 (RFC 6817 §2.5, which
    /// requires ≤ 100).
    pub target_ms: f64,
    /// `gain`: GAIN, (0, 1]. Default 1.
    pub gain: f64,
    /// `allowed_increase`: ALLOWED_INCREASE in segments, (0, 1e6]. Default 1.
    pub allowed_increase: f64,
    /// `min_cwnd`: MIN_CWND in segments, [1, 1e6]. Default 2.
    pub min_cwnd: f64,
    /// `initial_window`: INIT_CWND in segments, [1, 1e6]. Default 2.
    pub initial_window: f64,
    /// `base_history`: BASE_HISTORY, number of one-minute base-delay minima, [1, 10000].
    /// Default 10.
    pub base_history: u32,
    /// `current_filter`: CURRENT_FILTER, number of recent samples in the current-delay minimum,
    /// [1, 10000]. Default 4.
    pub current_filter: u32,
}

/// LEDBAT's parameters (keys `ledbat.<name>`; RFC 6817 §2.5 names in capitals).
pub const PARAMS: &[Param] = &[
    Param::real("target_ms", TARGET_MS, Unit::Ms, 0.0, MAX_TARGET_MS)
        .open(true, false)
        .doc("TARGET queueing delay (the RFC requires ≤ 100)", "RFC 6817 §2.5"),
    Param::real("gain", GAIN, Unit::None, 0.0, 1.0).open(true, false).doc("GAIN", "RFC 6817 §2.5"),
    Param::real("allowed_increase", ALLOWED_INCREASE, Unit::Segments, 0.0, MAX_WINDOW)
        .open(true, false)
        .doc("ALLOWED_INCREASE", "RFC 6817 §2.5"),
    Param::real("min_cwnd", MIN_CWND, Unit::Segments, 1.0, MAX_WINDOW).doc("MIN_CWND", "RFC 6817 §2.5"),
    Param::real("initial_window", INIT_CWND, Unit::Segments, 1.0, MAX_WINDOW).doc("INIT_CWND", "RFC 6817 §2.5"),
    Param::whole("base_history", BASE_HISTORY as u64, Unit::None, 1, MAX_HISTORY as u64)
        .doc("BASE_HISTORY: one-minute base-delay minima kept", "RFC 6817 §2.5"),
    Param::whole("current_filter", CURRENT_FILTER as u64, Unit::None, 1, MAX_HISTORY as u64)
        .doc("CURRENT_FILTER: recent samples in the current-delay minimum", "RFC 6817 §2.5.1"),
];

/// LEDBAT over drop-tail.
pub const LEDBAT: Scheme = Scheme {
    name: "ledbat",
    display: "LEDBAT",
    family: "ledbat",
    summary: "LEDBAT, target 100 ms",
    source: "RFC 6817",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#bcbd22", ">"),
    build: |v, now, _rng| Ok(Box::new(Ledbat::new(LedbatConfig::checked(v)?, now))),
    warnings: None,
};

crate::default_from_table!(LedbatConfig);

impl Config for LedbatConfig {
    const PREFIX: &'static str = "ledbat";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> LedbatConfig {
        LedbatConfig {
            target_ms: v.real("target_ms"),
            gain: v.real("gain"),
            allowed_increase: v.real("allowed_increase"),
            min_cwnd: v.real("min_cwnd"),
            initial_window: v.real("initial_window"),
            base_history: v.whole("base_history"),
            current_filter: v.whole("current_filter"),
        }
    }
}

/// Where the delay samples come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// `AckInfo::one_way_delay`.
    OneWay,
    /// `AckInfo::rtt` (the transport supplies no one-way delay).
    Rtt,
}

/// LEDBAT congestion controller (window in fractional segments).
#[derive(Clone, Debug)]
pub struct Ledbat {
    /// Parameters.
    cfg: LedbatConfig,
    /// TARGET.
    target: Dur,
    /// Congestion window, segments.
    cwnd: f64,
    /// One-minute minima, oldest first (`base_delays`; missing entries are +∞), with the minute
    /// of the last rollover (`round_to_minute(last_rollover)`).
    base_delays: BaseDelayHistory,
    /// The last CURRENT_FILTER samples, oldest first (`current_delays`).
    current_delays: VecDeque<Dur>,
    /// Where delay samples come from, fixed by the first sample.
    source: Option<Source>,
    /// Latest smoothed RTT (for "once per RTT").
    srtt: Option<Dur>,
    /// Time of the last loss reduction.
    last_reduction: Option<Time>,
    /// Latest queuing-delay estimate.
    queuing_delay: Option<Dur>,
    /// An RTO fired and no new data has been ACKed since.
    rto_backoff: bool,
    /// Window before the last RTO, for undo.
    prior_cwnd: f64,
}

impl Ledbat {
    /// A controller at `initial_window` with empty delay histories. `now` is unused (the minute
    /// buckets are aligned to simulation time zero, like `round_to_minute` to the wall clock).
    pub fn new(cfg: LedbatConfig, _now: Time) -> Ledbat {
        Ledbat {
            target: Dur::from_millis_f64(cfg.target_ms).max(Dur::from_nanos(1)),
            cwnd: cfg.initial_window.max(1.0),
            base_delays: BaseDelayHistory::new(BASE_BUCKET, cfg.base_history as usize, Bucketing::Aligned),
            current_delays: VecDeque::new(),
            source: None,
            srtt: None,
            last_reduction: None,
            queuing_delay: None,
            rto_backoff: false,
            prior_cwnd: 0.0,
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &LedbatConfig {
        &self.cfg
    }

    /// Base delay: the minimum of the one-minute minima, `None` before the first sample.
    pub fn base_delay(&self) -> Option<Dur> {
        self.base_delays.min()
    }

    /// Current delay: the minimum of the last CURRENT_FILTER samples.
    pub fn current_delay(&self) -> Option<Dur> {
        self.current_delays.iter().copied().min()
    }

    /// Latest queuing-delay estimate (current − base delay).
    pub fn queuing_delay(&self) -> Option<Dur> {
        self.queuing_delay
    }

    /// Pick this ACK's delay sample (see the module doc on the RTT fallback).
    fn sample(&mut self, ack: &AckInfo) -> Option<Dur> {
        match (ack.one_way_delay, self.source) {
            (Some(d), Some(Source::OneWay)) => Some(d),
            (Some(d), _) => {
                if self.source == Some(Source::Rtt) {
                    // Switch sources once; never mix RTTs and one-way delays in the minima.
                    self.base_delays.clear();
                    self.current_delays.clear();
                }
                self.source = Some(Source::OneWay);
                Some(d)
            }
            (None, Some(Source::OneWay)) => None,
            (None, _) => {
                let d = ack.rtt?;
                self.source = Some(Source::Rtt);
                Some(d)
            }
        }
    }

    /// RFC 6817 `update_base_delay`.
    fn update_base_delay(&mut self, now: Time, delay: Dur) {
        self.base_delays.update(now, delay);
    }

    /// RFC 6817 `update_current_delay`.
    fn update_current_delay(&mut self, delay: Dur) {
        self.current_delays.push_back(delay);
        while self.current_delays.len() > self.cfg.current_filter as usize {
            self.current_delays.pop_front();
        }
    }
}

impl CongestionControl for Ledbat {
    fn name(&self) -> &'static str {
        "ledbat"
    }

    fn window(&self) -> f64 {
        self.cwnd
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        if let Some(rtt) = ack.srtt.or(ack.rtt) {
            self.srtt = Some(rtt);
        }
        if ack.acked > 0 {
            self.rto_backoff = false;
        }
        if let Some(delay) = self.sample(ack) {
            self.update_base_delay(now, delay);
            self.update_current_delay(delay);
        }
        if let (Some(current), Some(base)) = (self.current_delay(), self.base_delay()) {
            // A current sample can predate the base minimum only after a one-bucket history
            // rolled over; `Dur` subtraction saturates, so the queuing delay is then zero.
            let queuing = current - base;
            self.queuing_delay = Some(queuing);
            let target = self.target.nanos() as f64;
            let off_target = (target - queuing.nanos() as f64) / target;
            self.cwnd += self.cfg.gain * off_target * f64::from(ack.acked) / self.cwnd;
        }
        // flightsize = pipe before this ACK (see the module doc).
        let flightsize = f64::from(ack.in_flight) + f64::from(ack.acked) + f64::from(ack.lost);
        self.cwnd = self.cwnd.min(flightsize + self.cfg.allowed_increase);
        self.cwnd = self.cwnd.max(self.cfg.min_cwnd);
    }

    fn on_congestion_event(&mut self, now: Time, _kind: CongestionKind, _in_flight: u32) {
        // At most once per RTT.
        if let (Some(last), Some(rtt)) = (self.last_reduction, self.srtt) {
            if now.saturating_since(last) < rtt {
                return;
            }
        }
        self.cwnd = self.cwnd.min((self.cwnd / 2.0).max(self.cfg.min_cwnd));
        self.last_reduction = Some(now);
    }

    fn on_rto(&mut self, now: Time, _in_flight: u32) {
        if !self.rto_backoff {
            self.prior_cwnd = self.cwnd;
        }
        // "if no ACKs are received within a CTO: ... cwnd = 1 * MSS".
        self.cwnd = f64::from(LOSS_WINDOW);
        self.last_reduction = Some(now);
        self.rto_backoff = true;
    }

    fn on_spurious_rto(&mut self, _now: Time) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.rto_backoff = false;
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            ..CcMetrics::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::cc::newreno::tests::Flow;
    use crate::error::Error;

    const RTT: Dur = Dur::from_millis(100);

    fn ledbat(initial_window: f64, current_filter: u32) -> Ledbat {
        let cfg = LedbatConfig {
            initial_window,
            current_filter,
            ..LedbatConfig::default()
        };
        Ledbat::new(cfg, Time::ZERO)
    }

    /// An ACK for `acked` segments whose one-way delay is `owd_ms`, with `in_flight` segments left
    /// in the pipe and an RTT (and srtt) of 100 ms.
    fn ack(acked: u32, owd_ms: u64, in_flight: u32) -> AckInfo {
        AckInfo {
            acked,
            rtt: Some(RTT),
            min_rtt: Some(RTT),
            srtt: Some(RTT),
            in_flight,
            cwnd_limited: true,
            one_way_delay: Some(Dur::from_millis(owd_ms)),
            ..AckInfo::default()
        }
    }

    #[test]
    fn window_change_is_gain_times_off_target_times_acked_over_cwnd() {
        // Base delay 20 ms, TARGET 100 ms, cwnd 10, 5 segments ACKed: Δ = off_target · 5 / 10.
        for (owd, expected) in [
            (20, 10.5),  // queuing 0: off_target 1
            (70, 10.25), // queuing 50 ms: 0.5
            (120, 10.0), // at target: 0
            (170, 9.75), // 150 ms: −0.5
            (320, 9.0),  // 300 ms: −2
            (2020, 2.0), // 2 s: −19 → 0.5, floored at MIN_CWND
        ] {
            let mut cc = ledbat(10.0, 1);
            cc.on_ack(Time::ZERO, &ack(0, 20, 100));
            assert_eq!(cc.window(), 10.0);
            cc.on_ack(Time::from_millis(10), &ack(5, owd, 100));
            assert_eq!(cc.window(), expected, "one-way delay {owd} ms");
            assert_eq!(cc.queuing_delay(), Some(Dur::from_millis(owd - 20)));
        }
    }

    #[test]
    fn current_delay_is_the_minimum_of_the_last_four_samples() {
        let mut cc = Ledbat::new(LedbatConfig::default(), Time::ZERO);
        assert_eq!(cc.window(), 2.0, "INIT_CWND");
        for (i, owd) in [20, 70, 70, 70].into_iter().enumerate() {
            cc.on_ack(Time::from_millis(i as u64), &ack(0, owd, 100));
            assert_eq!(
                cc.queuing_delay(),
                Some(Dur::ZERO),
                "the 20 ms sample is still in the filter"
            );
        }
        cc.on_ack(Time::from_millis(4), &ack(4, 70, 100));
        assert_eq!(cc.current_delay(), Some(Dur::from_millis(70)));
        assert_eq!(cc.queuing_delay(), Some(Dur::from_millis(50)));
        // 2 + 1 · 0.5 · 4 / 2.
        assert_eq!(cc.window(), 3.0);
    }

    #[test]
    fn base_delay_is_the_minimum_of_ten_one_minute_buckets_and_rolls_over() {
        let mut cc = Ledbat::new(LedbatConfig::default(), Time::ZERO);
        cc.on_ack(Time::ZERO, &ack(0, 40, 100));
        cc.on_ack(Time::from_secs(30), &ack(0, 60, 100)); // same minute: bucket stays 40
        for minute in 1..=9 {
            cc.on_ack(Time::from_secs(60 * minute), &ack(0, 60, 100));
        }
        assert_eq!(cc.base_delays.len(), 10);
        assert_eq!(cc.base_delay(), Some(Dur::from_millis(40)));
        assert_eq!(cc.queuing_delay(), Some(Dur::from_millis(20)));
        // Minute 10 opens an eleventh bucket: the oldest (40 ms) is forgotten.
        cc.on_ack(Time::from_secs(600), &ack(0, 60, 100));
        assert_eq!(cc.base_delays.len(), 10);
        assert_eq!(cc.base_delay(), Some(Dur::from_millis(60)));
        assert_eq!(cc.queuing_delay(), Some(Dur::ZERO));
        // A lower sample within the minute lowers the newest bucket.
        cc.on_ack(Time::from_secs(610), &ack(0, 50, 100));
        assert_eq!(cc.base_delay(), Some(Dur::from_millis(50)));
    }

    #[test]
    fn window_is_capped_at_flightsize_plus_allowed_increase_and_floored_at_min_cwnd() {
        let mut cc = ledbat(10.0, 1);
        // flightsize before the ACK = 3 left + 1 ACKed: cap 5 (not 10 + 1/10).
        cc.on_ack(Time::ZERO, &ack(1, 20, 3));
        assert_eq!(cc.window(), 5.0);
        // Newly lost segments count back into flightsize: 3 + 1 + 2 + 1 = 7 ≥ 5 + 1/5.
        let lossy = AckInfo {
            lost: 2,
            ..ack(1, 20, 3)
        };
        cc.on_ack(Time::from_millis(1), &lossy);
        assert_eq!(cc.window(), 5.2);
        // Nothing in flight: cap 1, floor MIN_CWND = 2.
        cc.on_ack(Time::from_millis(2), &ack(0, 20, 0));
        assert_eq!(cc.window(), 2.0);
    }

    #[test]
    fn loss_halves_at_most_once_per_rtt_and_not_below_min_cwnd() {
        let mut cc = ledbat(10.0, 1);
        cc.on_ack(Time::ZERO, &ack(0, 20, 100));
        let at = Time::from_millis;
        cc.on_congestion_event(at(1000), CongestionKind::Loss, 10);
        assert_eq!(cc.window(), 5.0);
        cc.on_congestion_event(at(1050), CongestionKind::Loss, 10);
        assert_eq!(cc.window(), 5.0, "within one RTT (100 ms) of the last reduction");
        cc.on_congestion_event(at(1100), CongestionKind::Ecn, 10);
        assert_eq!(cc.window(), 2.5, "ECN answered like loss");
        cc.on_congestion_event(at(1200), CongestionKind::Loss, 10);
        assert_eq!(cc.window(), 2.0, "min(cwnd, max(cwnd / 2, MIN_CWND))");
        // Without any RTT known every event reduces.
        let mut cc = ledbat(10.0, 1);
        cc.on_congestion_event(at(0), CongestionKind::Loss, 10);
        cc.on_congestion_event(at(0), CongestionKind::Loss, 10);
        assert_eq!(cc.window(), 2.5);
    }

    #[test]
    fn rto_sets_one_segment_next_ack_floors_at_min_cwnd_and_undo_restores() {
        let mut cc = ledbat(10.0, 1);
        cc.on_ack(Time::ZERO, &ack(0, 20, 100));
        cc.on_rto(Time::from_secs(1), 10);
        assert_eq!(cc.window(), 1.0);
        cc.on_rto(Time::from_secs(2), 10);
        assert_eq!(cc.window(), 1.0);
        assert_eq!(
            cc.base_delay(),
            Some(Dur::from_millis(20)),
            "the base delay survives an RTO"
        );
        cc.on_ack(Time::from_secs(3), &ack(0, 20, 5));
        assert_eq!(cc.window(), 2.0);
        cc.on_spurious_rto(Time::from_secs(3));
        assert_eq!(cc.window(), 10.0, "window from before the first RTO");
    }

    #[test]
    fn rtt_stands_in_for_a_missing_one_way_delay_until_one_arrives() {
        let mut cc = Ledbat::new(LedbatConfig::default(), Time::ZERO);
        let mut flow = Flow::new(&cc);
        for _ in 0..5 {
            flow.round(&mut cc, RTT, 1.0);
        }
        // Constant RTT: no queuing, about one segment per round, never past flightsize + 1.
        assert_eq!(cc.queuing_delay(), Some(Dur::ZERO));
        assert_eq!(cc.base_delay(), Some(RTT));
        assert!(cc.window() > 5.0 && cc.window() <= 7.0, "{}", cc.window());
        // The first one-way delay replaces the RTT history.
        cc.on_ack(flow.now, &ack(0, 30, 100));
        assert_eq!(cc.base_delay(), Some(Dur::from_millis(30)));
        assert_eq!(cc.current_delays.len(), 1);
        // And later RTT-only ACKs add no samples.
        let rtt_only = AckInfo {
            one_way_delay: None,
            ..ack(0, 0, 100)
        };
        cc.on_ack(flow.now, &rtt_only);
        assert_eq!(cc.current_delays.len(), 1);
    }

    #[test]
    fn no_growth_before_the_first_delay_sample() {
        let mut cc = ledbat(10.0, 4);
        let bare = AckInfo {
            acked: 5,
            in_flight: 100,
            ..AckInfo::default()
        };
        cc.on_ack(Time::ZERO, &bare);
        assert_eq!((cc.window(), cc.queuing_delay()), (10.0, None));
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let mut cc = Ledbat::new(LedbatConfig::default(), Time::ZERO);
        let mut a = ack(u32::MAX, 0, u32::MAX);
        a.lost = u32::MAX;
        cc.on_ack(Time::ZERO, &a);
        a.one_way_delay = Some(Dur::from_nanos(u64::MAX));
        cc.on_ack(Time::MAX, &a);
        cc.on_ack(Time::ZERO, &a);
        assert!(cc.window().is_finite() && cc.window() >= 2.0);
        cc.on_congestion_event(Time::MAX, CongestionKind::Loss, u32::MAX);
        cc.on_rto(Time::MAX, u32::MAX);
        assert_eq!(cc.window(), 1.0);
    }

    #[test]
    fn parameters_are_validated_and_unknown_keys_left() {
        for (key, bad) in [
            ("target_ms", 0.0),
            ("target_ms", f64::INFINITY),
            ("gain", 1.5),
            ("allowed_increase", 0.0),
            ("min_cwnd", 0.5),
            ("initial_window", f64::NAN),
            ("base_history", 0.0),
            ("current_filter", 2.5),
        ] {
            let mut p = Params::from([(key.to_string(), bad)]);
            match LedbatConfig::from_params(&mut p) {
                Err(Error::Param { key: k, msg }) => {
                    assert_eq!(k, format!("ledbat.{key}"));
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("{key} = {bad} accepted: {other:?}"),
            }
        }
        let mut p: Params = PARAMS.iter().map(|k| (k.name.to_string(), 1.0)).collect();
        p.insert("bogus".into(), 1.0);
        let cfg = LedbatConfig::from_params(&mut p).unwrap();
        assert_eq!(p.keys().collect::<Vec<_>>(), ["bogus"]);
        assert_eq!((cfg.target_ms, cfg.base_history, cfg.current_filter), (1.0, 1, 1));
        let cc = Ledbat::new(cfg, Time::ZERO);
        assert_eq!((cc.name(), cc.window()), ("ledbat", 1.0));
    }

    #[test]
    fn only_an_ack_that_delivers_data_ends_the_rto_backoff() {
        // The window saved for undo is the one before the *first* of repeated RTOs; an ACK that
        // delivers nothing (acked = 0) does not end the backoff, one that delivers data does.
        let mut cc = ledbat(10.0, 1);
        cc.on_ack(Time::ZERO, &ack(0, 20, 100));
        cc.on_rto(Time::from_secs(1), 10);
        // acked 0: no growth (off_target 1 · 0 / 1), floored at MIN_CWND.
        cc.on_ack(Time::from_millis(1100), &ack(0, 20, 5));
        assert_eq!(cc.window(), 2.0);
        cc.on_rto(Time::from_secs(2), 10);
        let mut undone = cc.clone();
        undone.on_spurious_rto(Time::from_secs(2));
        assert_eq!(undone.window(), 10.0, "still the window from before the first RTO");
        // 4 segments delivered at cwnd 1, no queuing: 1 + 1 · 1 · 4 / 1 = 5 (cap 20 + 4 + 1).
        cc.on_ack(Time::from_millis(2100), &ack(4, 20, 20));
        assert_eq!(cc.window(), 5.0);
        cc.on_rto(Time::from_secs(3), 10);
        assert_eq!(cc.window(), 1.0);
        cc.on_spurious_rto(Time::from_secs(3));
        assert_eq!(cc.window(), 5.0, "the backoff ended with the delivery: a new RTO saves 5");
    }

    #[test]
    fn config_and_metrics_report_the_controller() {
        let cfg = LedbatConfig {
            target_ms: 25.0,
            current_filter: 3,
            ..LedbatConfig::default()
        };
        let mut cc = Ledbat::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        cc.on_ack(Time::ZERO, &ack(0, 20, 100));
        // Queuing 0 at TARGET 25 ms: 2 + 1 · 1 · 4 / 2 = 4.
        cc.on_ack(Time::from_millis(1), &ack(4, 20, 100));
        assert_eq!(cc.window(), 4.0);
        let m = cc.metrics();
        assert_eq!((m.cwnd, m.pacing_rate), (4.0, None));
    }
}
