//! C2TCP, Cellular Controlled Delay TCP (Abbasloo, Xu, Chao, IEEE JSAC 2019), on top of
//! [`Cubic`] by composition.
//!
//! Sources:
//! - Paper §III-B Condition Detector (Alg. 1: Good / Normal / Bad, Setpoint = Interval =
//!   α·minRTT, Interval/√N for consecutive Bad conditions), §III-C Action Enforcer (Alg. 2: extra
//!   additive increase in Good, `ssthresh = recalc_ssthresh(); cwnd = 1` in Bad), §III-D Tuner
//!   (Alg. 3, every 0.5 s, α ∈ [1, 10] from the application's Target), §IV eq. 10.
//! - Reference kernel patch (Linux 4.13.1 `tcp_cubic.c`, `c2tcp_pkts_acked`; digest in
//!   `shared/reference/algorithms.md` §1) and its user-space tuner `Soheil-ab/c2tcp`
//!   `src/server-standalone.cc` / `src/define.h` (master).
//!
//! Per ACK (`detect`), with `setpoint = interval = floor(minRTT_ms · α)`: Good (`rtt ≤
//! setpoint`) resets the detector and adds `setpoint / rtt` to Cubic's AI credit; the first ACK
//! above starts an interval (Normal); still above after it: Bad, `cwnd = 1` with Cubic's ssthresh
//! reduction, next check after `interval/√N`. Loss and RTO handling are Cubic's, unchanged. The
//! tuner (user space in the reference) runs inside `on_ack` on the first ACK at least
//! `tuner_period` after the previous tuning, from the mean RTT of the ACKs in between.
//!
//! Deviations / readings (the JSAC-version kernel patch is followed where it and the paper differ):
//! - Good is `rtt_ms ≤ setpoint_ms` in whole ms (reference `codel_time_after_eq`); paper Alg. 1:
//!   `rtt < Setpoint`. The setpoint is `floor(floor(minRTT_ms) · α·100 / 100)` ms, so it is 0 while
//!   minRTT < 1 ms (or before any sample): then every RTT of 1 ms or more is above it and the
//!   interval is 0.
//! - Good increase: integer credit `floor(setpoint_ms / max(rtt_ms, 1))` into the shared
//!   `snd_cwnd_cnt` (reference); paper eq. 1 adds the fraction `(Setpoint/RTT)/cwnd` per ACK.
//!   As in the reference, the `cnt ≥ cwnd` test also converts credit Cubic itself accumulated
//!   (Cubic counts up to its `cnt`, which can be far above cwnd) into immediate growth.
//! - 1/√N is CoDel's fixed-point Newton step, one step per increment of N (reference, Linux
//!   `codel_Newton_step`): 1, 0.5, 0.5625, 0.488, 0.4415, … instead of the exact 1, 0.707, 0.577,
//!   0.5, 0.447 of the paper. `next_time` is computed from `now` (not from the previous
//!   `next_time`) and truncated to whole ms, as the reference's µs → ms read-back does. Times are
//!   ns here, CoDel units (1.024 µs) in the reference.
//! - The reference also saves `prior_ssthresh` at a Bad trigger; the simulator has no undo for
//!   it (Cubic's spurious-RTO undo uses its own saved state).
//! - During fast recovery the simulator's Cubic holds cwnd at ssthresh, while Linux's PRR rewrites
//!   `snd_cwnd` on every ACK and sets it to ssthresh at the exit. The net effect is reproduced: no
//!   Good credit is applied then, and a Bad trigger sets cwnd to the new (reduced) ssthresh
//!   instead of 1. After an RTO (Linux `TCP_CA_Loss`, no PRR) C2TCP acts as outside recovery.
//! - Which ACKs C2TCP sees (`cubic_holdoff`, default on). The author's `tcp_c2tcp` module (a
//!   Cubic copy whose `cubictcp_acked` ends with the `c2tcp_pkts_acked` call) runs C2TCP only
//!   after that hook's two early returns: ACKs without an RTT sample (here: pure duplicate ACKs)
//!   and every ACK in the first second of a Cubic epoch ("discard delay samples right after fast
//!   recovery") update neither minRTT, nor the tuner's average, nor the detector. The digest reads
//!   the JSAC master patch as running on every ACK, a missing sample counting as rtt = 0 ms (Good,
//!   credit `setpoint / 1`): `cubic_holdoff = 0`. We follow the code we could read, and the paper
//!   agrees with it on the one experiment that tells them apart: friendliness with Cubic (Fig. 16,
//!   24 Mbit/s, 20 ms, 40 packets): the newcomer's throughput over Cubic's is 1.08 with the
//!   hold-off and 3.36 without (the tuner holds α at 10 there, so without the hold-off the Good
//!   credit and the `cnt ≥ cwnd` conversion act on every ACK after each loss).
//! - C2TCP runs before Cubic's per-ACK processing; in Linux it runs after HyStart's delay-sample
//!   bookkeeping (same `pkts_acked` hook) and before `cong_avoid`. Only the HyStart bookkeeping
//!   moves relative to it; HyStart never runs at the cwnd of 1 a trigger leaves.
//! - Tuner: the master `server-standalone.cc` rule in integer α·100 with the average and Target
//!   in whole ms, α carried over between periods: avg > Target → `α -= 2(avg − T)α/avg`, floored at
//!   `alpha_min`; 0 < avg < Target → `α += ((T − avg)α/2)/avg`, capped at `alpha_max`; no samples →
//!   unchanged. The average is the exact mean of the period's samples (reference: running integer
//!   mean in µs). Paper Alg. 3 prints `α ← (Target − avg)/(2 avg)` without the factor α (eq. 10
//!   gives the multiplicative rule used here); the `v2.0-jsac-19` tuner re-initialises
//!   `α = Target/minRTT` every period.
//! - `target_ms = 0` means Target = 2 × minRTT (master README), fixed at the first tuning with a
//!   minRTT of at least 1 ms.
//! - `alpha_init` defaults to 1.5 (run scripts); the master kernel starts at
//!   `TCP_C2TCP_ALPHA_INIT` = 2.0 until the tuner's first write. One value is used here.
//! - `interval_ms` optionally fixes the interval (the IFIP version has an absolute interval
//!   sysctl); by default interval = setpoint (master).
//! - minRTT is this module's all-time minimum of RTT samples (reference `c2tcp_min_urtt`).

use super::cubic::{self, Cubic, CubicConfig};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::codel_law::{control_law_rec_inv_sqrt, newton_step};
use crate::error::{Error, Result};
use crate::time::{Dur, Time, NS_PER_MS};

/// Fixed-point scale of α (reference `TCP_C2TCP_X_SCALE` = 100; tuner `target_ratio`).
const ALPHA_SCALE: u64 = 100;
/// Initial α: 1.5 (reference `run.sh` / `run-c2tcp.sh` `initial_alpha=150`; kernel default
/// `TCP_C2TCP_ALPHA_INIT` = 200).
pub const ALPHA_INIT: f64 = 1.5;
/// Lower bound of α (reference `define.h` `TARGET_RATIO_MIN` = 100; paper Alg. 3 `min_alpha`).
pub const ALPHA_MIN: f64 = 1.0;
/// Upper bound of α (reference `define.h` `TARGET_RATIO_MAX` = 1000; paper Alg. 3 `max_alpha`).
pub const ALPHA_MAX: f64 = 10.0;
/// Application Target (average delay), ms: paper §VII "we set Target to 50ms"; `define.h`
/// `target=50`, `run.sh` `target=50`.
pub const TARGET_MS: u32 = 50;
/// Tuning cycle: paper §III-D "a tuning cycle of half a second".
pub const TUNER_PERIOD: Dur = Dur::from_millis(500);
/// Largest accepted Target / interval / tuning period in ms (a sanity bound, not from the paper).
const MAX_MS: f64 = 3_600_000.0;

/// C2TCP parameters. Keys (without the `c2tcp.` prefix) are in [`PARAMS`]; the
/// Cubic keys ([`cubic::PARAMS`]) are accepted too and configure the underlying Cubic.
#[derive(Clone, Debug, PartialEq)]
pub struct C2tcpConfig {
    /// The underlying Cubic (Linux defaults).
    pub cubic: CubicConfig,
    /// `target_ms`: the application's Target average delay in whole ms; 0 = 2 × minRTT (master
    /// README). Default 50 ms (paper §VII).
    pub target_ms: u32,
    /// `alpha_init`: initial α (resolution 0.01), within [`alpha_min`, `alpha_max`]. Default 1.5.
    ///
    /// [`alpha_min`]: C2tcpConfig::alpha_min
    /// [`alpha_max`]: C2tcpConfig::alpha_max
    pub alpha_init: f64,
    /// `alpha_min`: smallest α the tuner sets. Default 1.
    pub alpha_min: f64,
    /// `alpha_max`: largest α the tuner sets. Default 10.
    pub alpha_max: f64,
    /// `interval_ms`: fixed detector interval; `None` (default) = the setpoint (master patch).
    pub interval: Option<Dur>,
    /// `tuner_period_ms`: tuning cycle. Default 500 ms (paper §III-D).
    pub tuner_period: Dur,
    /// `tuner`: adjust α from the Target (flag). Default on.
    pub tuner: bool,
    /// `cubic_holdoff`: C2TCP sees only the ACKs whose delay sample Cubic's `pkts_acked` hook keeps
    /// (with an RTT sample, not in the first second of a Cubic epoch), as in the author's
    /// `tcp_c2tcp` module where the C2TCP call ends that hook (flag). Default on; off = every ACK
    /// (the digest's reading of the JSAC kernel patch). See the module doc.
    pub cubic_holdoff: bool,
}

/// C2TCP's own parameters (keys `c2tcp.<name>`); Cubic's follow them (also as `c2tcp.<name>`).
pub const PARAMS: &[Param] = &[
    Param::whole("target_ms", TARGET_MS as u64, Unit::Ms, 0, MAX_MS as u64)
        .doc("the application's Target average delay, whole ms (0: 2 × minRTT)", "C2TCP paper §VII; author's README"),
    Param::real("alpha_init", ALPHA_INIT, Unit::None, 0.01, 1000.0)
        .doc("initial α (resolution 0.01), within [alpha_min, alpha_max]", "C2TCP author's tuner"),
    Param::real("alpha_min", ALPHA_MIN, Unit::None, 0.01, 1000.0).doc("smallest α the tuner sets", "C2TCP author's tuner"),
    Param::real("alpha_max", ALPHA_MAX, Unit::None, 0.01, 1000.0).doc("largest α the tuner sets", "C2TCP author's tuner"),
    Param::real("interval_ms", 100.0, Unit::Ms, 0.0, MAX_MS)
        .open(true, false)
        .unset()
        .doc("fixed detector interval (unset: the setpoint, as the kernel patch)", "C2TCP JSAC kernel patch"),
    Param::real("tuner_period_ms", 500.0, Unit::Ms, 0.0, MAX_MS)
        .open(true, false)
        .doc("tuning cycle", "C2TCP paper §III-D"),
    Param::flag("tuner", true).doc("adjust α from the Target", "C2TCP paper §III-D"),
    Param::flag("cubic_holdoff", true)
        .doc("see only the ACKs whose delay sample Cubic keeps (off: every ACK)", "author's tcp_c2tcp module"),
];

/// C2TCP on Cubic over drop-tail.
pub const C2TCP: Scheme = Scheme {
    name: "c2tcp",
    display: "C2TCP",
    family: "c2tcp",
    summary: "C2TCP on Cubic (JSAC kernel patch + user-space tuner)",
    source: "Abbasloo et al., IEEE JSAC 2019; author's kernel patch and tuner",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS, cubic::PARAMS],
    preset: &[],
    style: ("#393b79", "X"),
    build: |v, now, _rng| Ok(Box::new(C2tcp::new(C2tcpConfig::checked(v)?, now))),
    warnings: Some(warnings),
};

/// Where the Target-vs-minimum-RTT bound comes from.
pub const TARGET_SOURCE: &str = "C2TCP paper (Abbasloo, Xu, Chao; IEEE JSAC 2019) §III-B.3 \"Setpoint and Initial \
     Interval Values\": Setpoint \"should not be smaller than intrinsic minimum RTT of the network\"; Target is an \
     average e2e delay, which includes that minimum RTT (§III-D, §VIII-B)";

/// C2TCP's operating range: a Target (`target_ms`, when non-zero and the tuner is on) below the
/// flow's minimum RTT cannot be met, since every RTT includes the propagation RTT. The tuner then
/// pins α at `alpha_min`, the setpoint at minRTT, and nearly every interval is Bad (cwnd = 1):
/// measured here, a 50 ms Target at a 100 ms RTT delivers 9–48 % utilisation.
fn warnings(cx: &crate::warning::FlowContext<'_>) -> Vec<crate::warning::Warning> {
    let target = cx.values.whole("target_ms");
    let rtt = cx.prop_rtt.millis_f64();
    if target == 0 || !cx.values.flag("tuner") || f64::from(target) >= rtt {
        return Vec::new();
    }
    let num = crate::warning::num;
    vec![crate::warning::Warning {
        code: "c2tcp-target-below-min-rtt",
        subject: cx.subject(),
        parameter: cx.key("target_ms"),
        value: f64::from(target),
        bound: rtt,
        unit: "ms",
        source: TARGET_SOURCE,
        message: format!(
            "C2TCP Target {target} ms is below the flow's minimum RTT ({} ms propagation): the average delay \
             cannot reach it, the tuner holds α at alpha_min and C2TCP keeps resetting cwnd to 1 \
             (measured: a 50 ms Target at 100 ms RTT delivers 9-48 % utilisation)",
            num(rtt, 3)
        ),
    }]
}

crate::default_from_table!(C2tcpConfig);

impl Config for C2tcpConfig {
    const PREFIX: &'static str = "c2tcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS, cubic::PARAMS];

    fn from_values(v: &Values) -> C2tcpConfig {
        C2tcpConfig {
            cubic: CubicConfig::from_values(v),
            target_ms: v.whole("target_ms"),
            alpha_init: v.real("alpha_init"),
            alpha_min: v.real("alpha_min"),
            alpha_max: v.real("alpha_max"),
            interval: v.opt_real("interval_ms").map(Dur::from_millis_f64),
            tuner_period: v.ms("tuner_period_ms"),
            tuner: v.flag("tuner"),
            cubic_holdoff: v.flag("cubic_holdoff"),
        }
    }

    fn check(&self) -> Result<()> {
        // Cubic's own checks, named as this scheme's keys.
        self.cubic.check().map_err(|e| match e {
            Error::Param { key, msg } => Error::Param {
                key: key.replacen("cubic.", "c2tcp.", 1),
                msg,
            },
            other => other,
        })?;
        let bad = |k: &str, v: f64, what: &str| {
            Err(Error::Param {
                key: format!("c2tcp.{k}"),
                msg: format!("got {v}; expected {what}"),
            })
        };
        if self.alpha_max < self.alpha_min {
            return bad("alpha_max", self.alpha_max, "≥ alpha_min, ≤ 1000");
        }
        if !(self.alpha_min..=self.alpha_max).contains(&self.alpha_init) {
            return bad("alpha_init", self.alpha_init, "a number in [alpha_min, alpha_max]");
        }
        Ok(())
    }
}

/// Network condition as last classified by the Condition Detector (paper §III-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The last RTT was at or below the setpoint.
    Good,
    /// Above the setpoint, but not yet for a whole interval.
    Normal,
    /// Above the setpoint for a whole interval; the window was reset.
    Bad,
}

/// α in units of 1/100, rounded.
fn scaled(alpha: f64) -> u64 {
    (alpha * ALPHA_SCALE as f64).round().max(0.0) as u64
}

/// `ms` whole milliseconds, saturating.
fn ms_dur(ms: u64) -> Dur {
    Dur::from_nanos(ms.saturating_mul(NS_PER_MS))
}

/// Whole milliseconds of `d`, truncated.
fn whole_ms(d: Dur) -> u64 {
    d.nanos() / NS_PER_MS
}

/// `t` truncated to whole milliseconds (the reference stores `next_time` in µs and reads it back
/// as `MS2TIME(next_time / USEC_PER_MSEC)`).
fn truncate_ms(t: Time) -> Time {
    Time::from_nanos(t.nanos() / NS_PER_MS * NS_PER_MS)
}

/// C2TCP congestion controller: Cubic plus the Condition Detector, Action Enforcer and Tuner.
#[derive(Clone, Debug)]
pub struct C2tcp {
    /// Parameters.
    cfg: C2tcpConfig,
    /// The underlying loss-based TCP.
    cubic: Cubic,
    /// α × 100 (reference `c2tcp_alpha`).
    alpha: u64,
    /// All-time minimum RTT sample (reference `c2tcp_min_urtt`).
    min_rtt: Option<Dur>,
    /// When the current run of above-setpoint ACKs began plus one interval (`first_above_time`;
    /// `None` = 0, no run).
    first_above: Option<Time>,
    /// The next Bad trigger needs an ACK after this (whole ms; `next_time`).
    next_time: Time,
    /// Consecutive Bad detections plus one (`cnt_rtt`, the paper's N).
    cnt_rtt: u32,
    /// 1/√cnt_rtt in 16-bit fixed point (`rec_inv_sqrt`).
    rec_inv_sqrt: u16,
    /// Last classification.
    condition: Condition,
    /// Bad triggers so far.
    bad_triggers: u64,
    /// In RTO loss recovery (mirrors Cubic's `TCP_CA_Loss` flag): the window may change although
    /// the transport reports `in_recovery`.
    in_loss: bool,
    /// The Target in whole ms once known (0 while `target_ms = 0` awaits a minRTT).
    target_ms: u64,
    /// Last tuning (or the start).
    last_tune: Time,
    /// Sum of the RTT samples since the last tuning, ns.
    rtt_sum: u64,
    /// Number of RTT samples since the last tuning.
    rtt_cnt: u64,
}

impl C2tcp {
    /// A controller in Cubic's slow start; the first tuning cycle begins at `now`.
    pub fn new(cfg: C2tcpConfig, now: Time) -> C2tcp {
        C2tcp {
            cubic: Cubic::new(cfg.cubic.clone(), now),
            alpha: scaled(cfg.alpha_init),
            min_rtt: None,
            first_above: None,
            next_time: Time::ZERO,
            cnt_rtt: 1,
            rec_inv_sqrt: u16::MAX,
            condition: Condition::Good,
            bad_triggers: 0,
            in_loss: false,
            target_ms: u64::from(cfg.target_ms),
            last_tune: now,
            rtt_sum: 0,
            rtt_cnt: 0,
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &C2tcpConfig {
        &self.cfg
    }

    /// The underlying Cubic.
    pub fn cubic(&self) -> &Cubic {
        &self.cubic
    }

    /// Current α (resolution 0.01).
    pub fn alpha(&self) -> f64 {
        self.alpha as f64 / ALPHA_SCALE as f64
    }

    /// Current setpoint `floor(minRTT_ms · α)` in whole ms.
    pub fn setpoint(&self) -> Dur {
        ms_dur(self.setpoint_ms())
    }

    /// Last classification of the network condition.
    pub fn condition(&self) -> Condition {
        self.condition
    }

    /// Number of Bad triggers (window resets) so far.
    pub fn bad_triggers(&self) -> u64 {
        self.bad_triggers
    }

    /// The time after which the next Bad trigger may happen, while above the setpoint.
    pub fn next_time(&self) -> Option<Time> {
        self.first_above.map(|_| self.next_time)
    }

    /// Setpoint in whole ms: `floor(floor(minRTT_ms) · α100 / 100)` (reference).
    fn setpoint_ms(&self) -> u64 {
        let min_ms = self.min_rtt.map_or(0, whole_ms);
        min_ms.saturating_mul(self.alpha) / ALPHA_SCALE
    }

    /// Whether the simulator's Cubic is holding its window (fast recovery, not RTO recovery).
    fn holding(&self, ack: &AckInfo) -> bool {
        ack.in_recovery && !self.in_loss
    }

    /// The Condition Detector and Action Enforcer for one ACK (reference `c2tcp_pkts_acked`).
    fn detect(&mut self, now: Time, ack: &AckInfo) {
        // No RTT sample: rtt_us = -1 truncates to 0 ms in the reference.
        let rtt_ms = ack.rtt.map_or(0, whole_ms);
        let setpoint_ms = self.setpoint_ms();
        let interval = self.cfg.interval.unwrap_or(ms_dur(setpoint_ms));
        if rtt_ms <= setpoint_ms {
            // Good: reset the detector, extra additive increase Setpoint/RTT per cwnd.
            self.condition = Condition::Good;
            self.first_above = None;
            self.cnt_rtt = 1;
            let credit = setpoint_ms / rtt_ms.max(1);
            if !self.holding(ack) {
                self.cubic.add_cwnd_credit(u32::try_from(credit).unwrap_or(u32::MAX));
            }
        } else if self.first_above.is_none() {
            // Normal: the first ACK above the setpoint starts an interval.
            self.condition = Condition::Normal;
            let t = truncate_ms(now + interval);
            self.first_above = Some(t);
            self.next_time = t;
            self.cnt_rtt = 1;
            self.rec_inv_sqrt = newton_step(u16::MAX, self.cnt_rtt);
        } else if now > self.next_time {
            // Bad: above the setpoint for a whole interval (or interval/√N since the last one).
            self.condition = Condition::Bad;
            self.bad_triggers += 1;
            self.next_time = truncate_ms(control_law_rec_inv_sqrt(now, interval, self.rec_inv_sqrt));
            self.cnt_rtt = self.cnt_rtt.saturating_add(1);
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.cnt_rtt);
            let ssthresh = self.cubic.reduce_ssthresh();
            // In fast recovery Linux's PRR overrides cwnd and ends at ssthresh (module doc).
            self.cubic.set_window(if self.holding(ack) { ssthresh } else { 1 });
        }
    }

    /// The Tuner (reference `server-standalone.cc` `CntThread`; paper Alg. 3, eq. 10).
    fn tune(&mut self) {
        // No samples: average 0, which leaves α unchanged below.
        let avg_ms = self.rtt_sum.checked_div(self.rtt_cnt).unwrap_or(0) / NS_PER_MS;
        self.rtt_sum = 0;
        self.rtt_cnt = 0;
        if self.target_ms == 0 {
            // "target = 0 means Target = 2 × minRTT".
            self.target_ms = self.min_rtt.map_or(0, whole_ms).saturating_mul(2);
        }
        let (t, avg, a) = (i128::from(self.target_ms), i128::from(avg_ms), i128::from(self.alpha));
        let new = if t < avg {
            // alpha_2 = alpha_1 (1 - 2 (avg - T) / avg), floored at the minimum.
            (a - 2 * (avg - t) * a / avg).max(i128::from(scaled(self.cfg.alpha_min)))
        } else if avg < t && avg != 0 {
            // alpha_2 = alpha_1 (1 + (T - avg) / (2 avg)), capped at the maximum.
            (a + (t - avg) * a / 2 / avg).min(i128::from(scaled(self.cfg.alpha_max)))
        } else {
            a
        };
        self.alpha = u64::try_from(new.max(0)).unwrap_or(u64::MAX);
    }
}

impl CongestionControl for C2tcp {
    fn name(&self) -> &'static str {
        "c2tcp"
    }

    fn window(&self) -> f64 {
        self.cubic.window()
    }

    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.cubic.on_sent(now, in_flight);
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        // The tuner reads the statistics of the cycle that ended before this ACK.
        if self.cfg.tuner && now.saturating_since(self.last_tune) >= self.cfg.tuner_period {
            self.tune();
            self.last_tune = now;
        }
        // `tcp_c2tcp`: `c2tcp_pkts_acked` (minRTT, the tuner's average, detector, enforcer) is the
        // last call of `cubictcp_acked`, after its two early returns.
        if !self.cfg.cubic_holdoff || self.cubic.takes_delay_sample(now, ack) {
            if let Some(rtt) = ack.rtt {
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
                if self.cfg.tuner && rtt > Dur::ZERO {
                    self.rtt_sum = self.rtt_sum.saturating_add(rtt.nanos());
                    self.rtt_cnt += 1;
                }
            }
            self.detect(now, ack);
        }
        self.cubic.on_ack(now, ack);
    }

    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, in_flight: u32) {
        self.cubic.on_congestion_event(now, kind, in_flight);
        self.in_loss = false;
    }

    fn on_recovery_exit(&mut self, now: Time) {
        self.cubic.on_recovery_exit(now);
        self.in_loss = false;
    }

    fn on_rto(&mut self, now: Time, in_flight: u32) {
        self.cubic.on_rto(now, in_flight);
        self.in_loss = true;
    }

    fn on_spurious_rto(&mut self, now: Time) {
        self.cubic.on_spurious_rto(now);
        self.in_loss = false;
    }

    fn ssthresh(&self) -> Option<f64> {
        self.cubic.ssthresh()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::cc::newreno::tests::{stretch_ack, Flow};

    const LOSS: CongestionKind = CongestionKind::Loss;

    fn ms(t: u64) -> Time {
        Time::from_millis(t)
    }

    /// C2TCP with a fixed α and no tuner.
    fn fixed(alpha: f64) -> C2tcp {
        let cfg = C2tcpConfig {
            alpha_init: alpha,
            tuner: false,
            ..C2tcpConfig::default()
        };
        C2tcp::new(cfg, Time::ZERO)
    }

    /// An ACK for one segment with RTT `rtt_ms`; `limited` = cwnd-limited (Cubic may grow).
    fn ack(rtt_ms: f64, limited: bool) -> AckInfo {
        AckInfo {
            cwnd_limited: limited,
            ..stretch_ack(1, Dur::from_millis_f64(rtt_ms))
        }
    }

    /// A pure duplicate ACK: nothing delivered, no RTT sample.
    fn dup_ack(in_recovery: bool) -> AckInfo {
        AckInfo {
            acked: 0,
            rtt: None,
            in_recovery,
            ..stretch_ack(0, Dur::ZERO)
        }
    }

    /// α = 2, minRTT 10 ms (setpoint = interval = 20 ms), grown to cwnd 100 in slow start.
    fn at_100() -> C2tcp {
        let mut cc = fixed(2.0);
        // Good (10 ≤ 20): credit 20/10 = 2 < cwnd; slow start 10 + 90.
        cc.on_ack(ms(0), &stretch_ack(90, Dur::from_millis(10)));
        assert_eq!((cc.window(), cc.setpoint()), (100.0, Dur::from_millis(20)));
        cc
    }

    #[test]
    fn good_condition_adds_setpoint_over_rtt_per_ack_to_the_cwnd_credit() {
        // α = 4, minRTT 20 ms → setpoint 80 ms. Not cwnd-limited: Cubic itself does not grow.
        let mut cc = fixed(4.0);
        let mut windows = Vec::new();
        // rtt 20: credit 80/20 = 4 per ACK: 4, 8, 12 ≥ 10 → cwnd 11 (credit 2), 6, 10, 14 ≥ 11 →
        // cwnd 12 (credit 3); rtt 30: +2 → 5; rtt 80 (= setpoint, still Good): +1 → 6.
        for rtt in [20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 30.0, 80.0] {
            cc.on_ack(ms(0), &ack(rtt, false));
            assert_eq!(cc.condition(), Condition::Good);
            windows.push(cc.window());
        }
        assert_eq!(windows, [10.0, 10.0, 11.0, 11.0, 11.0, 12.0, 12.0, 12.0]);
        assert_eq!(cc.setpoint(), Dur::from_millis(80));
        // 81 ms is above the setpoint: Normal, no credit.
        cc.on_ack(ms(1), &ack(81.0, false));
        assert_eq!((cc.condition(), cc.window()), (Condition::Normal, 12.0));
        // A duplicate ACK has no RTT sample: `cubictcp_acked` returns before C2TCP sees it.
        let mut every_ack = cc.clone();
        every_ack.cfg.cubic_holdoff = false;
        cc.on_ack(ms(2), &dup_ack(false));
        assert_eq!((cc.condition(), cc.window()), (Condition::Normal, 12.0));
        // Credit 6, then +4 per ACK: 10, 14 ≥ 12 → cwnd 13 (credit 2); 6, 10, 14 ≥ 13 → cwnd 14.
        for expected in [12.0, 13.0, 13.0, 13.0, 14.0] {
            cc.on_ack(ms(3), &ack(20.0, false));
            assert_eq!(cc.window(), expected);
        }
        // Seen by C2TCP (`cubic_holdoff = 0`): 0 ms, Good, credit 80/1: 6 + 80 = 86 → +7, credit 2.
        every_ack.on_ack(ms(2), &dup_ack(false));
        assert_eq!((every_ack.condition(), every_ack.window()), (Condition::Good, 19.0));
        // Credit 2, then +4 per ACK: 6, 10, 14, 18 < 19; 22 ≥ 19 → cwnd 20.
        for expected in [19.0, 19.0, 19.0, 19.0, 20.0] {
            every_ack.on_ack(ms(3), &ack(20.0, false));
            assert_eq!(every_ack.window(), expected);
        }
    }

    #[test]
    fn detector_is_blind_in_the_first_second_of_a_cubic_epoch_unless_told_otherwise() {
        // α = 2, minRTT 10 ms: setpoint = interval = 20 ms. A loss ends the epoch; the first
        // congestion-avoidance ACK starts a new one, and for 1 s Cubic (and so C2TCP) drops the
        // delay samples.
        for holdoff in [true, false] {
            let mut cc = at_100();
            cc.cfg.cubic_holdoff = holdoff;
            cc.on_congestion_event(ms(10), LOSS, 100);
            cc.on_recovery_exit(ms(20));
            cc.on_ack(ms(30), &ack(10.0, true)); // epoch starts at 30 ms
                                                 // RTT 50 ms > setpoint for 0.9 s: seen, this is Normal then Bad after 20 ms.
            for t in (40..=930).step_by(10) {
                cc.on_ack(ms(t), &ack(50.0, true));
            }
            let triggers = cc.bad_triggers();
            assert_eq!(triggers > 0, !holdoff, "holdoff {holdoff}: {triggers} Bad triggers");
            // After the first second the samples count again.
            for t in (1040..=1100).step_by(10) {
                cc.on_ack(ms(t), &ack(50.0, true));
            }
            assert!(cc.bad_triggers() > triggers, "holdoff {holdoff}");
        }
    }

    #[test]
    fn good_condition_increase_comes_on_top_of_cubic_slow_start() {
        let mut cc = fixed(4.0);
        let mut cubic = Cubic::new(CubicConfig::default(), Time::ZERO);
        let mut both = Vec::new();
        for _ in 0..3 {
            cc.on_ack(ms(0), &ack(20.0, true));
            cubic.on_ack(ms(0), &ack(20.0, true));
            both.push((cc.window(), cubic.window()));
        }
        // Credit 4 per ACK before Cubic's +1: (4 → 11), (8 → 12), (12 ≥ 12 → 13, then 14).
        assert_eq!(both, [(11.0, 11.0), (12.0, 12.0), (14.0, 13.0)]);
    }

    #[test]
    fn bad_condition_after_one_interval_sets_cwnd_1_and_cubic_ssthresh() {
        let mut cc = at_100();
        // rtt 30 > setpoint 20: Normal; the interval (20 ms) runs to 1020 ms.
        cc.on_ack(ms(1000), &ack(30.0, false));
        assert_eq!(cc.condition(), Condition::Normal);
        assert_eq!(cc.next_time(), Some(ms(1020)));
        for t in [1010, 1020] {
            cc.on_ack(ms(t), &ack(30.0, false));
            assert_eq!(
                (cc.condition(), cc.window(), cc.ssthresh()),
                (Condition::Normal, 100.0, None)
            );
        }
        // After the interval: Bad. ssthresh = Cubic's max(100 · 717/1024, 2) = 70, cwnd = 1.
        cc.on_ack(ms(1021), &ack(30.0, false));
        assert_eq!(cc.condition(), Condition::Bad);
        assert_eq!((cc.window(), cc.ssthresh(), cc.bad_triggers()), (1.0, Some(70.0), 1));
        assert!(cc.cubic().in_slow_start());
        assert_eq!(cc.metrics().ssthresh, Some(70.0));
        // Next trigger: now + 20 ms · 0.99998 = 1040.9997 ms, truncated to 1040 ms.
        assert_eq!(cc.next_time(), Some(ms(1040)));
        // One RTT at or below the setpoint resets the detector: credit 20/10 = 2 → cwnd 3, then
        // slow start +1.
        cc.on_ack(ms(1030), &ack(10.0, true));
        assert_eq!(
            (cc.condition(), cc.next_time(), cc.window()),
            (Condition::Good, None, 4.0)
        );
    }

    #[test]
    fn consecutive_bad_conditions_come_at_interval_over_sqrt_n() {
        // α = 10, minRTT 10 ms: setpoint = interval = 100 ms. Then RTT 200 ms, an ACK every ms.
        let mut cc = fixed(10.0);
        cc.on_ack(ms(0), &ack(10.0, false));
        let mut triggers = Vec::new();
        for t in 1000..=1400 {
            let before = cc.bad_triggers();
            cc.on_ack(ms(t), &ack(200.0, false));
            if cc.bad_triggers() > before {
                triggers.push(t);
                assert_eq!(cc.window(), 1.0);
            }
        }
        // First detection at 1000 → next 1100; trigger at 1101 → next ⌊1101 + 100·0.99998⌋ = 1200;
        // 1201 → ⌊1201 + 50.0015⌋ = 1251; 1252 → ⌊1252 + 56.25⌋ = 1308; 1309 → ⌊1309 + 48.78⌋ =
        // 1357; 1358 → 1402.
        assert_eq!(triggers, [1101, 1201, 1252, 1309, 1358]);
        assert_eq!(cc.next_time(), Some(ms(1402)));
        // ssthresh from cwnd 10 → 7, then from cwnd 1 → the floor of 2.
        assert_eq!(cc.ssthresh(), Some(2.0));
        // A good RTT resets N: the next run starts with a full interval again.
        cc.on_ack(ms(1401), &ack(50.0, false));
        assert_eq!(cc.next_time(), None);
        cc.on_ack(ms(1500), &ack(200.0, false));
        assert_eq!(cc.next_time(), Some(ms(1600)));
        cc.on_ack(ms(1601), &ack(200.0, false));
        assert_eq!((cc.bad_triggers(), cc.next_time()), (6, Some(ms(1700))));
        // interval_ms fixes the interval independently of the setpoint (here 100 ms).
        cc.cfg.interval = Some(Dur::from_millis(5));
        cc.on_ack(ms(1701), &ack(50.0, false));
        cc.on_ack(ms(1710), &ack(200.0, false));
        assert_eq!(cc.next_time(), Some(ms(1715)));
    }

    #[test]
    fn in_fast_recovery_bad_lowers_ssthresh_and_cwnd_to_it_and_good_adds_nothing() {
        let mut cc = at_100();
        cc.on_congestion_event(ms(500), LOSS, 100);
        assert_eq!((cc.window(), cc.ssthresh()), (70.0, Some(70.0)));
        let recovering = |rtt| AckInfo {
            in_recovery: true,
            ..ack(rtt, true)
        };
        cc.on_ack(ms(600), &recovering(10.0));
        cc.on_ack(ms(600), &dup_ack(true));
        assert_eq!((cc.condition(), cc.window()), (Condition::Good, 70.0));
        cc.on_ack(ms(1000), &recovering(30.0));
        cc.on_ack(ms(1021), &recovering(30.0));
        // ssthresh = max(70 · 717/1024, 2) = 49; Linux's PRR would end recovery at ssthresh.
        assert_eq!((cc.window(), cc.ssthresh(), cc.bad_triggers()), (49.0, Some(49.0), 1));
        cc.on_recovery_exit(ms(1100));
        // After an RTO (Linux TCP_CA_Loss, no PRR) C2TCP acts although in_recovery is set.
        cc.on_rto(ms(2000), 49);
        assert_eq!(cc.window(), 1.0);
        cc.on_ack(
            ms(2100),
            &AckInfo {
                cwnd_limited: false,
                ..recovering(10.0)
            },
        );
        assert_eq!(cc.window(), 3.0, "credit 20/10 = 2 at cwnd 1");
    }

    /// Drive `cc` through slow start, a loss with fast recovery, congestion avoidance, an RTO and
    /// its undo; the window and ssthresh after each step.
    fn cubic_script(cc: &mut dyn CongestionControl) -> Vec<(f64, Option<f64>)> {
        let rtt = Dur::from_millis(100);
        let mut trace = Vec::new();
        // One sub-millisecond RTT sample: minRTT rounds to 0 ms, so the setpoint is 0.
        cc.on_ack(Time::ZERO, &ack(0.5, false));
        let mut flow = Flow::new(cc);
        let mut step = |cc: &mut dyn CongestionControl, flow: &mut Flow, n: usize| {
            for _ in 0..n {
                flow.round(cc, rtt, 0.5);
                trace.push((cc.window(), cc.metrics().ssthresh));
            }
        };
        step(cc, &mut flow, 5);
        cc.on_congestion_event(flow.now, LOSS, flow.pipe);
        flow.in_recovery = true;
        cc.on_ack(flow.now, &dup_ack(true));
        step(cc, &mut flow, 1);
        flow.in_recovery = false;
        cc.on_recovery_exit(flow.now);
        step(cc, &mut flow, 40);
        cc.on_rto(flow.now, flow.pipe);
        flow.pipe = 1;
        flow.in_recovery = true;
        step(cc, &mut flow, 3);
        cc.on_spurious_rto(flow.now);
        flow.in_recovery = false;
        step(cc, &mut flow, 10);
        trace
    }

    #[test]
    fn with_the_detector_never_firing_c2tcp_is_exactly_cubic() {
        // Every later RTT (100 ms) is above the 0 ms setpoint but the interval never ends: the
        // detector stays Normal and C2TCP must leave Cubic alone (the tuner may move α freely).
        let cfg = C2tcpConfig {
            interval: Some(Dur::from_millis(3_600_000)),
            ..C2tcpConfig::default()
        };
        let mut c2 = C2tcp::new(cfg, Time::ZERO);
        let mut cubic = Cubic::new(CubicConfig::default(), Time::ZERO);
        let ours = cubic_script(&mut c2);
        let theirs = cubic_script(&mut cubic);
        assert_eq!(ours, theirs);
        assert!(
            ours.iter().any(|&(w, s)| s.is_some() && w > 50.0),
            "the script left slow start"
        );
        assert_eq!(
            (c2.bad_triggers(), c2.condition(), c2.setpoint()),
            (0, Condition::Normal, Dur::ZERO)
        );
        assert_eq!(c2.alpha(), ALPHA_MIN, "the tuner ran (avg 100 ms > Target 50 ms)");
    }

    #[test]
    fn c2tcp_keeps_a_smaller_window_than_cubic_when_the_rtt_stays_high() {
        // A persistent standing queue: RTT 60 ms after a 20 ms minimum (α = 1.5 → setpoint 30 ms).
        let mut c2 = C2tcp::new(C2tcpConfig::default(), Time::ZERO);
        let mut cubic = Cubic::new(CubicConfig::default(), Time::ZERO);
        for cc in [&mut c2 as &mut dyn CongestionControl, &mut cubic] {
            cc.on_ack(Time::ZERO, &ack(20.0, false));
            let mut flow = Flow::new(cc);
            for _ in 0..100 {
                flow.round(cc, Dur::from_millis(60), 1.0);
            }
        }
        assert!(c2.bad_triggers() > 10);
        assert!(
            c2.window() * 10.0 < cubic.window(),
            "{} vs {}",
            c2.window(),
            cubic.window()
        );
    }

    /// Tuner test: one tuning period (500 ms) of five ACKs 100 ms apart with RTT `rtt_ms` (none:
    /// duplicate ACKs) starting at `start_ms`.
    fn period(cc: &mut C2tcp, start_ms: u64, rtt_ms: Option<f64>) {
        for i in 0..5 {
            let a = rtt_ms.map_or(dup_ack(false), |r| ack(r, false));
            cc.on_ack(ms(start_ms + 100 * i), &a);
        }
    }

    #[test]
    fn tuner_raises_alpha_below_target_and_lowers_it_above_within_bounds() {
        let mut cc = C2tcp::new(C2tcpConfig::default(), Time::ZERO);
        assert_eq!(cc.alpha(), 1.5);
        // α·100 after the period that ends at 500 k ms, from that period's average RTT:
        // 20 ms: 150 + ((50 - 20) · 150 / 2) / 20 = 262; 100 ms: 262 - 2 · 50 · 262 / 100 = 0 →
        // floor 100; 100 ms: stays 100; 10 ms: 100 + (40 · 100 / 2) / 10 = 300; 1 ms: 300 + 7350
        // → cap 1000; 50 ms = Target: unchanged; 75 ms: 1000 - 2 · 25 · 1000 / 75 = 334; no
        // samples: unchanged.
        let rtts = [20.0, 100.0, 100.0, 10.0, 1.0, 50.0, 75.0, -1.0];
        let expected = [2.62, 1.0, 1.0, 3.0, 10.0, 10.0, 3.34, 3.34];
        let mut got = Vec::new();
        for (k, &rtt) in rtts.iter().enumerate() {
            period(&mut cc, 500 * k as u64, (rtt > 0.0).then_some(rtt));
            assert_eq!(cc.alpha(), if k == 0 { 1.5 } else { expected[k - 1] }, "period {k}");
            cc.on_ack(ms(500 * (k as u64 + 1)), &dup_ack(false));
            // This ACK (no RTT sample) ends period k; the next period's ACKs start at the same time.
            got.push(cc.alpha());
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn tuner_with_target_zero_aims_at_twice_the_min_rtt_and_can_be_switched_off() {
        let cfg = C2tcpConfig {
            target_ms: 0,
            ..C2tcpConfig::default()
        };
        let mut cc = C2tcp::new(cfg, Time::ZERO);
        cc.on_ack(ms(0), &ack(20.0, false));
        for t in [100, 200, 300] {
            cc.on_ack(ms(t), &ack(30.0, false));
        }
        // Average (20 + 3 · 30) / 4 = 27.5 → 27 ms; Target 2 · 20 = 40: 150 + (13 · 150 / 2) / 27.
        cc.on_ack(ms(500), &dup_ack(false));
        assert_eq!(cc.alpha(), 1.86);
        let mut off = fixed(1.5);
        period(&mut off, 0, Some(20.0));
        period(&mut off, 500, Some(20.0));
        assert_eq!(off.alpha(), 1.5);
    }

    #[test]
    fn parameters_are_validated_and_cubic_keys_are_accepted() {
        let with = |pairs: &[(&str, f64)]| {
            let mut p: Params = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            C2tcpConfig::from_params(&mut p).map(|c| (c, p))
        };
        let (d, rest) = with(&[("extra", 1.0)]).unwrap();
        assert_eq!(d, C2tcpConfig::default());
        assert_eq!(rest.keys().collect::<Vec<_>>(), ["extra"]);
        let (c, _) = with(&[
            ("target_ms", 100.0),
            ("alpha_init", 3.0),
            ("interval_ms", 40.0),
            ("tuner_period_ms", 250.0),
            ("tuner", 0.0),
            ("beta", 0.8),
        ])
        .unwrap();
        assert_eq!(
            (c.target_ms, c.alpha_init, c.interval),
            (100, 3.0, Some(Dur::from_millis(40)))
        );
        assert_eq!(
            (c.tuner_period, c.tuner, c.cubic.beta),
            (Dur::from_millis(250), false, 0.8)
        );
        for (key, v) in [
            ("alpha_init", 0.5),
            ("alpha_init", 11.0),
            ("alpha_min", 0.0),
            ("alpha_max", 0.5),
            ("target_ms", 1.5),
            ("target_ms", -1.0),
            ("interval_ms", 0.0),
            ("tuner_period_ms", f64::NAN),
            ("tuner", 2.0),
            ("beta", 1.0),
        ] {
            match with(&[(key, v)]) {
                Err(Error::Param { key: k, msg }) => {
                    assert_eq!(k, format!("c2tcp.{key}"));
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("{key} = {v}: {other:?}"),
            }
        }
        // Every Cubic parameter is also a C2TCP parameter.
        let names: Vec<&str> = C2tcpConfig::TABLES.iter().flat_map(|t| t.iter().map(|p| p.name)).collect();
        for p in cubic::PARAMS {
            assert!(names.contains(&p.name), "{}", p.name);
        }
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let cfg = C2tcpConfig {
            alpha_init: 1000.0,
            alpha_max: 1000.0,
            tuner_period: Dur::from_nanos(1),
            ..C2tcpConfig::default()
        };
        let mut cc = C2tcp::new(cfg, Time::ZERO);
        let (max, one) = (Dur::MAX, Dur::from_nanos(1));
        for (t, rtt) in [(0, max), (1, Dur::ZERO), (2, max), (u64::MAX, one)] {
            cc.on_ack(Time::from_nanos(t), &stretch_ack(u32::MAX, rtt));
            cc.on_ack(Time::MAX, &dup_ack(true));
            cc.on_congestion_event(Time::MAX, LOSS, u32::MAX);
            cc.on_rto(Time::MAX, 0);
        }
        assert!(cc.window() >= 1.0);
        assert_eq!(cc.name(), "c2tcp");
        fn is_send<T: Send>() {}
        is_send::<C2tcp>();
    }

    /// A one-flow scenario over 50 + 50 ms hops (propagation RTT 100 ms, plus `extra` ms) with
    /// C2TCP's `params`.
    fn c2tcp_warnings(params: &str, extra: f64) -> Vec<crate::warning::Warning> {
        crate::warning::of_scenario(&format!(
            r#"{{"duration_ms": 100,
            "hops": [{{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "droptail", "packets": 100}}, "delay_ms": 50}},
                     {{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}}],
            "flows": [{{"scheme": "cubic", "fwd": [0], "rev": [1]}},
                      {{"scheme": "c2tcp", "params": {params}, "fwd": [0], "rev": [1], "extra_delay_ms": {extra}}}]}}"#
        ))
    }

    #[test]
    fn warns_when_the_target_is_below_the_minimum_rtt_and_only_then() {
        let w = c2tcp_warnings(r#"{"target_ms": 99}"#, 0.0);
        assert_eq!(w.len(), 1, "{w:?}");
        let w = &w[0];
        assert_eq!(w.code, "c2tcp-target-below-min-rtt");
        assert_eq!(w.subject, "flows[1]");
        assert_eq!(w.parameter, "flows[1].params.target_ms");
        assert_eq!((w.value, w.bound, w.unit), (99.0, 100.0, "ms"));
        assert!(w.source.contains("§III-B") && w.source.contains("JSAC"), "{}", w.source);
        assert!(w.message.contains("99 ms") && w.message.contains("100 ms"), "{}", w.message);
        // At the bound and above it: none.
        assert_eq!(c2tcp_warnings(r#"{"target_ms": 100}"#, 0.0), vec![]);
        assert_eq!(c2tcp_warnings(r#"{"target_ms": 101}"#, 0.0), vec![]);
        // The paper's default Target (50 ms) at its 20 ms RTT is fine, at the ABC setup's 100 ms not.
        assert_eq!(c2tcp_warnings("{}", 0.0).len(), 1);
        // The flow's extra delay counts in its RTT.
        let w = c2tcp_warnings(r#"{"target_ms": 100}"#, 0.5);
        assert_eq!((w.len(), w[0].bound), (1, 100.5));
        // Target 0 (2 × minRTT) and a run without the tuner never warn.
        assert_eq!(c2tcp_warnings(r#"{"target_ms": 0}"#, 0.0), vec![]);
        assert_eq!(c2tcp_warnings(r#"{"target_ms": 50, "tuner": false}"#, 0.0), vec![]);
    }

    #[test]
    fn alpha_bounds_may_coincide_and_config_is_kept() {
        // `alpha_max < alpha_min` is the error: equal bounds (a fixed α) are accepted.
        let mut p = Params::from([
            ("alpha_init".to_string(), 2.0),
            ("alpha_min".to_string(), 2.0),
            ("alpha_max".to_string(), 2.0),
        ]);
        let cfg = C2tcpConfig::from_params(&mut p).expect("alpha_min = alpha_max = alpha_init");
        assert_eq!((cfg.alpha_min, cfg.alpha_max), (2.0, 2.0));
        let cc = C2tcp::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        assert_eq!(cc.alpha(), 2.0);
    }

    #[test]
    fn a_zero_rtt_sample_does_not_count_in_the_tuners_average() {
        // Tuner on, Target 50 ms, α 1.5. Samples 20 ms and 0 ms: only the positive one counts, so
        // the average is 20 ms and α·100 = 150 + ((50 − 20) · 150 / 2) / 20 = 262 (not the
        // 150 + ((50 − 10) · 150 / 2) / 10 = 450 of an average of 10 ms).
        let mut cc = C2tcp::new(C2tcpConfig::default(), Time::ZERO);
        cc.on_ack(ms(100), &ack(20.0, false));
        cc.on_ack(ms(200), &ack(0.0, false));
        cc.on_ack(ms(500), &dup_ack(false));
        assert_eq!(cc.alpha(), 2.62);
    }

    #[test]
    fn sending_after_idle_shifts_cubics_epoch_and_so_the_detectors_holdoff() {
        // Linux `cubictcp_cwnd_event(CA_EVENT_TX_START)`: C2TCP must pass `on_sent` on to Cubic,
        // whose epoch (and with it the 1 s delay-sample hold-off) moves by the idle time.
        let mut cc = at_100();
        cc.on_congestion_event(ms(10), LOSS, 100);
        cc.on_recovery_exit(ms(20));
        cc.on_sent(ms(25), 70);
        cc.on_ack(ms(30), &ack(10.0, true)); // the epoch starts at 30 ms
        cc.on_sent(ms(40), 70);
        // 1000 ms idle, then the pipe restarts: epoch 30 + 1000 = 1030 ms.
        cc.on_sent(ms(1040), 1);
        let late = ack(50.0, true);
        assert!(!cc.cubic().takes_delay_sample(ms(1500), &late), "in the hold-off of the shifted epoch");
        cc.on_ack(ms(1500), &late);
        assert_eq!((cc.condition(), cc.next_time()), (Condition::Good, None), "C2TCP did not see it");
        assert!(cc.cubic().takes_delay_sample(ms(2030), &late));
        cc.on_ack(ms(2030), &late);
        assert_eq!((cc.condition(), cc.next_time()), (Condition::Normal, Some(ms(2050))));
    }
}
