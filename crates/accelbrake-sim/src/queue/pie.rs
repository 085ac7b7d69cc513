//! PIE, Proportional Integral controller Enhanced (RFC 8033; Linux `net/sched/sch_pie.c`,
//! `include/net/pie.h`).
//!
//! A FIFO with tail drop at the limit, plus random early drop on enqueue with a probability `p`
//! that a periodic timer updates:
//!
//! * Every `t_update` (RFC 8033 §4.2, Linux `pie_calculate_probability`):
//!   `Δp = α·(qdelay − qdelay_ref) + β·(qdelay − qdelay_old)` (delays in seconds, α and β in 1/s),
//!   divided by 2048, 512, 128, 32, 8 or 2 while `p` is below 1e-6, 1e-5, 1e-4, 1e-3, 1e-2 or 0.1;
//!   an increase is capped at 0.02 once `p ≥ 0.1` (§5.5); Linux adds 0.02 more while
//!   `qdelay > 250 ms`; when `qdelay` and `qdelay_old` are both 0 `p` decays by `p/64` (Linux);
//!   `p` is clamped to [0, 1]; the burst allowance shrinks by `t_update` (§4.4); and when `p == 0`
//!   with both delays under `qdelay_ref/2` the burst allowance and the estimator are reset (§4.4,
//!   Linux `pie_vars_init`).
//! * On enqueue (RFC 8033 §4.1, Linux `pie_drop_early`): no early drop while burst allowance is
//!   left, nor when `qdelay_old < qdelay_ref/2` and `p < 0.2`, nor when fewer than 2 packets (byte
//!   mode: 2 MTU) are queued; otherwise drop with probability `p` (byte mode: `p·size/mtu`), or with
//!   `derandomize` through the accumulated probability of §5.4 (no drop while the sum is below
//!   0.85, a forced drop at 8.5). With `ecn`, an ECN-capable packet chosen for an early drop is
//!   marked CE and accepted while `p ≤ ecn_prob_max` (§5.1, Linux: 10 %).
//!
//! Queueing delay (§4.3): by default (`dq_rate_estimator = false`, Linux's default) the sojourn
//! time of the **last dequeued packet**, 0 if that dequeue emptied the queue (Linux
//! `pie_process_dequeue`). With the estimator, `qdelay = backlog / avg_dq_rate`, the departure rate
//! measured over cycles of 16 KiB (§5.2, Linux's EWMA with weight 1/8).
//!
//! Choices (see `docs/aqm.md`): floating point instead of Linux's fixed-point `MAX_PROB` scaling
//! (α = 2/16, β = 20/16 there); the first update at `t_update` (Linux arms its timer 500 ms after
//! setup); the burst allowance shrinks by `t_update` per update (RFC; Linux subtracts the time
//! between dequeues); the "delay is low" test of §4.1 uses the RFC's `qdelay_old` (Linux: the
//! latest sample); the accumulated probability is reset after every early drop *or mark* and on tail
//! drops (Linux does not reset it after a forced mark), and derandomisation is an option (Linux always
//! applies it). Randomness comes only from the [`Rng`] given to [`PieQueue::new`], one draw per
//! random decision.

use super::{Fifo, Limit, LimitRule, LinkInfo, Queue, QueueKind, QueueStats};
use crate::params::{Config, Param, Unit, Values};
use crate::error::{Error, Result};
use crate::packet::{Ecn, Packet};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// α = 0.125 per second (RFC 8033 §4.2; Linux `alpha = 2` in units of 1/16).
pub const DEFAULT_ALPHA: f64 = 0.125;
/// β = 1.25 per second (RFC 8033 §4.2; Linux `beta = 20` in units of 1/16).
pub const DEFAULT_BETA: f64 = 1.25;
/// Mark instead of drop only while p ≤ 10 % (RFC 8033 §5.1 `mark_ecnth`; Linux `MAX_PROB / 10`).
pub const DEFAULT_ECN_PROB_MAX: f64 = 0.10;
/// Buffer: 1000 packets (Linux `pie_params_init`).
pub const DEFAULT_LIMIT_PACKETS: u64 = 1000;
/// MTU for byte mode and the 2-MTU threshold: 1514 bytes (Linux `psched_mtu()` of Ethernet).
pub const DEFAULT_MTU: u32 = 1514;
/// No early drop while `qdelay_old < qdelay_ref/2` and `p` is below this (RFC 8033 §4.1; Linux
/// `MAX_PROB / 5`).
pub const LOW_DELAY_PROB: f64 = 0.2;
/// Above this `p` an increase of `p` is capped at [`MAX_PROB_STEP`] (RFC 8033 §5.5).
pub const CAP_PROB: f64 = 0.1;
/// Largest increase of `p` per update once `p ≥ 10 %` (RFC 8033 §5.5; Linux `MAX_PROB / 50`), and
/// the extra increase while `qdelay > 250 ms` (Linux).
pub const MAX_PROB_STEP: f64 = 0.02;
/// Queueing delay above which Linux adds [`MAX_PROB_STEP`] per update ("non-linear drop").
pub const HIGH_DELAY: Dur = Dur::from_millis(250);
/// Decay divisor when the queue has been idle for two updates: `p −= p/64` (Linux; RFC 8033 §4.2
/// writes `p *= 0.98` and notes that 1 − 1/64 is sufficient).
pub const DECAY_DIVISOR: f64 = 64.0;
/// Auto-tuning of Δp (RFC 8033 §4.2; Linux shifts α and β): while `p` is below the first value, Δp
/// is divided by the second.
pub const DELTA_SCALE: [(f64, f64); 6] = [
    (1e-6, 2048.0),
    (1e-5, 512.0),
    (1e-4, 128.0),
    (1e-3, 32.0),
    (1e-2, 8.0),
    (1e-1, 2.0),
];
/// Derandomisation: no early drop while the accumulated probability is below this (RFC 8033 §5.4;
/// Linux `MAX_PROB / 100 * 85`).
pub const ACCU_PROB_LOW: f64 = 0.85;
/// Derandomisation: a forced drop once the accumulated probability reaches this (RFC 8033 §5.4;
/// Linux `MAX_PROB / 2 * 17`).
pub const ACCU_PROB_HIGH: f64 = 8.5;
/// Departure-rate measurement cycle and minimum backlog to start one: 16 KiB (RFC 8033 §5.2
/// `DQ_THRESHOLD`; Linux `QUEUE_THRESHOLD`).
pub const DQ_THRESHOLD: u64 = 16384;
/// EWMA weight of a new departure-rate sample (Linux `avg − avg/8 + rate/8`).
pub const DQ_RATE_WEIGHT: f64 = 0.125;

/// PIE parameters (Linux `struct pie_params`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieConfig {
    /// Target queueing delay (default 15 ms, RFC 8033 §4.2; Linux `target`).
    pub qdelay_ref: Dur,
    /// Probability update period (default 15 ms, RFC 8033 §4.2; Linux `tupdate`).
    pub t_update: Dur,
    /// Burst allowance after a reset: no early drops until it is used up (default 150 ms,
    /// RFC 8033 §4.4).
    pub max_burst: Dur,
    /// α, per second (default 0.125, RFC 8033 §4.2).
    pub alpha: f64,
    /// β, per second (default 1.25, RFC 8033 §4.2).
    pub beta: f64,
    /// Mark ECN-capable packets CE instead of early-dropping them while `p ≤ ecn_prob_max`
    /// (default off, Linux).
    pub ecn: bool,
    /// Highest `p` at which ECN marking replaces dropping (default 0.10, RFC 8033 §5.1; Linux).
    pub ecn_prob_max: f64,
    /// Derandomised dropping through the accumulated probability (default off, RFC 8033 §5.4;
    /// Linux always does it).
    pub derandomize: bool,
    /// Scale `p` by `size / mtu` and count the 2-packet threshold in bytes (default off, Linux).
    pub bytemode: bool,
    /// Buffer limit, tail drop on enqueue (default 1000 packets, Linux).
    pub limit: Limit,
    /// Estimate the queueing delay as backlog / departure rate (RFC 8033 §5.2) instead of the
    /// sojourn time of the last dequeued packet (default off, Linux).
    pub dq_rate_estimator: bool,
    /// MTU in bytes for byte mode and the 2-MTU threshold (default 1514, Linux `psched_mtu()`).
    pub mtu: u32,
}

/// PIE's parameters (keys `pie.<key>`, fields of a `pie` queue; RFC 8033 with Linux `sch_pie` defaults).
pub const PARAMS: &[Param] = &[
    Param::real("qdelay_ref_ms", 15.0, Unit::Ms, 1e-6, 1e7)
        .doc("target queueing delay", "RFC 8033 §4.2; Linux target")
        .aliases(&["target"]),
    Param::real("t_update_ms", 15.0, Unit::Ms, 1e-3, 1e7)
        .doc("probability update period", "RFC 8033 §4.2; Linux tupdate")
        .aliases(&["tupdate"]),
    Param::real("max_burst_ms", 150.0, Unit::Ms, 0.0, 1e7).doc("burst allowance after a reset", "RFC 8033 §4.4"),
    Param::real("alpha", DEFAULT_ALPHA, Unit::PerS, 0.0, 1e6).doc("α, weight of the delay error", "RFC 8033 §4.2"),
    Param::real("beta", DEFAULT_BETA, Unit::PerS, 0.0, 1e6).doc("β, weight of the delay trend", "RFC 8033 §4.2"),
    Param::flag("ecn", false).doc("mark ECN-capable packets CE while p ≤ ecn_prob_max", "Linux pie ecn (off)"),
    Param::real("ecn_prob_max", DEFAULT_ECN_PROB_MAX, Unit::None, 0.0, 1.0)
        .doc("largest drop probability at which PIE marks instead of dropping", "RFC 8033 §5.1; Linux"),
    Param::flag("derandomize", false).doc("derandomised drops through the accumulated probability", "RFC 8033 §5.4"),
    Param::flag("bytemode", false).doc("scale the probability by packet size", "Linux pie bytemode (off)"),
    Param::flag("dq_rate_estimator", false)
        .doc("queueing delay from the departure rate instead of timestamps", "RFC 8033 §5.2; Linux dq_rate_estimator"),
    super::packets_param(DEFAULT_LIMIT_PACKETS),
    super::BYTES_PARAM,
];

/// PIE (RFC 8033).
pub const PIE: QueueKind = QueueKind {
    name: "pie",
    display: "PIE",
    summary: "PIE with Linux defaults, drops or marks at enqueue, timer-driven",
    source: "RFC 8033; Linux net/sched/sch_pie.c",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &[],
    build: |v, rng| Box::new(PieQueue::new(PieConfig::from_values(v), rng)),
    warnings: None,
};

crate::default_from_table!(PieConfig);

impl Config for PieConfig {
    const PREFIX: &'static str = "pie";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> PieConfig {
        PieConfig {
            qdelay_ref: v.ms("qdelay_ref_ms"),
            t_update: v.ms("t_update_ms"),
            max_burst: v.ms("max_burst_ms"),
            alpha: v.real("alpha"),
            beta: v.real("beta"),
            ecn: v.flag("ecn"),
            ecn_prob_max: v.real("ecn_prob_max"),
            derandomize: v.flag("derandomize"),
            bytemode: v.flag("bytemode"),
            limit: super::limit_of(v),
            dq_rate_estimator: v.flag("dq_rate_estimator"),
            mtu: DEFAULT_MTU,
        }
    }
}

impl PieConfig {
    /// Check ranges; errors name the key under `prefix` (e.g. `hops[0].queue`).
    pub fn validate(&self, prefix: &str) -> Result<()> {
        let bad = |k: &str, msg: &str| {
            Err(Error::Param {
                key: format!("{prefix}.{k}"),
                msg: msg.into(),
            })
        };
        if self.qdelay_ref.0 == 0 {
            return bad("qdelay_ref", "expected a positive time (ms)");
        }
        if self.t_update.0 == 0 {
            return bad("t_update", "expected a positive time (ms)");
        }
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return bad("alpha", "expected a number ≥ 0 (per second)");
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return bad("beta", "expected a number ≥ 0 (per second)");
        }
        if !(self.ecn_prob_max.is_finite() && (0.0..=1.0).contains(&self.ecn_prob_max)) {
            return bad("ecn_prob_max", "expected a probability in [0, 1]");
        }
        if self.mtu == 0 {
            return bad("mtu", "expected a positive number of bytes");
        }
        Ok(())
    }
}

/// Controller state (Linux `struct pie_vars`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PieVars {
    /// Drop probability `p`, in [0, 1].
    pub prob: f64,
    /// Current queueing-delay estimate: the sojourn of the last dequeued packet (0 if it emptied the
    /// queue), or with the rate estimator the value computed at the last update.
    pub qdelay: Dur,
    /// The queueing delay used by the last update (RFC 8033 `qdelay_old_`).
    pub qdelay_old: Dur,
    /// Burst allowance left; no early drops while it is positive.
    pub burst_allowance: Dur,
    /// Accumulated drop probability for derandomisation.
    pub accu_prob: f64,
    /// Bytes dequeued in the current rate-measurement cycle (`None`: no cycle running).
    pub dq_count: Option<u64>,
    /// Start of the current rate-measurement cycle.
    pub dq_tstamp: Time,
    /// Average departure rate, bytes per second (0: no estimate yet).
    pub avg_dq_rate: f64,
    /// When the next probability update is due.
    pub next_update: Time,
}

/// PIE-specific counters (Linux `struct pie_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieStats {
    /// Packets dropped early by the controller.
    pub early_drops: u64,
    /// Packets dropped because the buffer was full.
    pub overlimit: u64,
    /// Packets marked CE instead of dropped.
    pub ecn_mark: u64,
}

/// The PIE queue.
#[derive(Clone, Debug)]
pub struct PieQueue {
    fifo: Fifo,
    params: PieConfig,
    vars: PieVars,
    pstats: PieStats,
    rng: Rng,
}

impl PieQueue {
    /// An empty PIE queue drawing its random numbers from `rng`. The first probability update is
    /// due at `t_update`.
    pub fn new(cfg: PieConfig, rng: Rng) -> PieQueue {
        PieQueue {
            fifo: Fifo::new(cfg.limit),
            params: cfg,
            vars: PieVars {
                prob: 0.0,
                qdelay: Dur::ZERO,
                qdelay_old: Dur::ZERO,
                burst_allowance: cfg.max_burst,
                accu_prob: 0.0,
                dq_count: None,
                dq_tstamp: Time::ZERO,
                avg_dq_rate: 0.0,
                next_update: Time::ZERO + Self::period(&cfg),
            },
            pstats: PieStats::default(),
            rng,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &PieConfig {
        &self.params
    }

    /// The controller state.
    pub fn vars(&self) -> PieVars {
        self.vars
    }

    /// PIE-specific counters.
    pub fn pie_stats(&self) -> PieStats {
        self.pstats
    }

    /// The divisor applied to Δp at drop probability `p` (RFC 8033 §4.2 auto-tuning).
    pub fn delta_divisor(p: f64) -> f64 {
        DELTA_SCALE
            .iter()
            .find(|(below, _)| p < *below)
            .map_or(1.0, |(_, div)| *div)
    }

    /// The update period, at least 1 ns so a zero `t_update` cannot stall the clock.
    fn period(cfg: &PieConfig) -> Dur {
        cfg.t_update.max(Dur(1))
    }

    /// RFC 8033 §4.2 `calculate_drop_prob` (Linux `pie_calculate_probability`).
    fn calculate_drop_prob(&mut self) {
        let backlog = self.fifo.bytes();
        let qdelay = if self.params.dq_rate_estimator {
            if self.vars.avg_dq_rate > 0.0 {
                Dur::from_secs_f64(backlog as f64 / self.vars.avg_dq_rate)
            } else {
                Dur::ZERO
            }
        } else {
            self.vars.qdelay
        };
        let qdelay_old = self.vars.qdelay_old;
        // A zero delay with a non-empty queue means a tiny backlog: no decay this round (Linux).
        let mut decay_allowed = !(qdelay == Dur::ZERO && backlog != 0);

        let target = self.params.qdelay_ref.secs_f64();
        let (q, q_old) = (qdelay.secs_f64(), qdelay_old.secs_f64());
        let p_old = self.vars.prob;
        let mut delta = self.params.alpha * (q - target) + self.params.beta * (q - q_old);
        delta /= Self::delta_divisor(p_old);
        if p_old >= CAP_PROB && delta > MAX_PROB_STEP {
            delta = MAX_PROB_STEP;
        }
        if qdelay > HIGH_DELAY {
            delta += MAX_PROB_STEP;
        }
        let mut p = p_old + delta;
        if p >= 1.0 && delta > 0.0 {
            // Saturated (Linux skips the decay then).
            decay_allowed = false;
        }
        p = p.clamp(0.0, 1.0);
        if qdelay == Dur::ZERO && qdelay_old == Dur::ZERO && decay_allowed {
            p -= p / DECAY_DIVISOR;
        }
        if p.is_nan() {
            p = 0.0;
        }
        self.vars.prob = p.clamp(0.0, 1.0);
        self.vars.qdelay = qdelay;

        // `Dur` subtraction saturates at 0.
        self.vars.burst_allowance = self.vars.burst_allowance - self.params.t_update;
        let half = Dur(self.params.qdelay_ref.0 / 2);
        if qdelay < half
            && qdelay_old < half
            && self.vars.prob == 0.0
            && (!self.params.dq_rate_estimator || self.vars.avg_dq_rate > 0.0)
        {
            self.reset_vars();
        }
        self.vars.qdelay_old = qdelay;
    }

    /// Linux `pie_vars_init` (RFC 8033 §4.4): refill the burst allowance, restart the estimator.
    fn reset_vars(&mut self) {
        self.vars.burst_allowance = self.params.max_burst;
        self.vars.accu_prob = 0.0;
        self.vars.dq_count = None;
        self.vars.avg_dq_rate = 0.0;
    }

    /// RFC 8033 §4.1 / §5.4 (Linux `pie_drop_early`): whether to drop (or mark) an arriving packet
    /// of `size` bytes, given what is queued now.
    fn drop_early(&mut self, size: u32) -> bool {
        let p = self.vars.prob;
        if self.vars.burst_allowance > Dur::ZERO {
            return false;
        }
        if self.vars.qdelay_old < Dur(self.params.qdelay_ref.0 / 2) && p < LOW_DELAY_PROB {
            return false;
        }
        let mtu = u64::from(self.params.mtu);
        if self.params.bytemode {
            if self.fifo.bytes() < 2 * mtu {
                return false;
            }
        } else if self.fifo.len() < 2 {
            return false;
        }
        let local = if self.params.bytemode && mtu > 0 && u64::from(size) <= mtu {
            p * f64::from(size) / mtu as f64
        } else {
            p
        };
        if self.params.derandomize {
            if local <= 0.0 {
                self.vars.accu_prob = 0.0;
                return false;
            }
            self.vars.accu_prob += local;
            if self.vars.accu_prob < ACCU_PROB_LOW {
                return false;
            }
            if self.vars.accu_prob >= ACCU_PROB_HIGH {
                return true;
            }
        }
        local > 0.0 && self.rng.next_f64() < local
    }

    /// Linux `pie_process_dequeue`: update the delay sample or the departure-rate estimate.
    fn process_dequeue(&mut self, now: Time, pkt: &Packet) {
        let backlog = self.fifo.bytes();
        if !self.params.dq_rate_estimator {
            self.vars.qdelay = if backlog == 0 {
                Dur::ZERO
            } else {
                now.saturating_since(pkt.enqueued_at)
            };
            return;
        }
        if backlog >= DQ_THRESHOLD && self.vars.dq_count.is_none() {
            self.vars.dq_tstamp = now;
            self.vars.dq_count = Some(0);
        }
        let Some(count) = self.vars.dq_count else {
            return;
        };
        let count = count + u64::from(pkt.size);
        self.vars.dq_count = Some(count);
        if count < DQ_THRESHOLD {
            return;
        }
        let dtime = now.saturating_since(self.vars.dq_tstamp);
        if dtime == Dur::ZERO {
            return;
        }
        let rate = count as f64 / dtime.secs_f64();
        self.vars.avg_dq_rate = if self.vars.avg_dq_rate > 0.0 {
            self.vars.avg_dq_rate + DQ_RATE_WEIGHT * (rate - self.vars.avg_dq_rate)
        } else {
            rate
        };
        if backlog < DQ_THRESHOLD {
            self.vars.dq_count = None;
        } else {
            self.vars.dq_count = Some(0);
            self.vars.dq_tstamp = now;
        }
    }
}

impl Queue for PieQueue {
    fn name(&self) -> &'static str {
        "pie"
    }

    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> std::result::Result<(), Packet> {
        if !self.fifo.fits(&pkt) {
            self.fifo.stats.dropped += 1;
            self.pstats.overlimit += 1;
            self.vars.accu_prob = 0.0;
            return Err(pkt);
        }
        if self.drop_early(pkt.size) {
            self.vars.accu_prob = 0.0;
            if self.params.ecn && self.vars.prob <= self.params.ecn_prob_max && pkt.ecn.is_ect() {
                pkt.ecn = Ecn::Ce;
                self.fifo.stats.marked += 1;
                self.pstats.ecn_mark += 1;
            } else {
                self.fifo.stats.dropped += 1;
                self.pstats.early_drops += 1;
                return Err(pkt);
            }
        }
        self.fifo.push(now, pkt)
    }

    fn dequeue(&mut self, now: Time, _link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        let pkt = self.fifo.pop()?;
        self.process_dequeue(now, &pkt);
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
    /// The drop probability `p`.
    fn gauge(&self) -> Option<f64> {
        Some(self.vars.prob)
    }
    fn next_timer(&self) -> Option<Time> {
        Some(self.vars.next_update)
    }
    /// Runs the probability update if it is due (earlier calls are ignored), then schedules the next
    /// one `t_update` after `now`.
    fn on_timer(&mut self, now: Time, _link: &dyn super::LinkSchedule) {
        if now < self.vars.next_update {
            return;
        }
        self.calculate_drop_prob();
        self.vars.next_update = now + Self::period(&self.params);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{ACK_BYTES, MTU};

    fn pkt(seq: u32, ecn: Ecn) -> Packet {
        Packet::data(0, seq, MTU, ecn, Time::ZERO)
    }

    fn queue(cfg: PieConfig, seed: u64) -> PieQueue {
        PieQueue::new(cfg, Rng::stream(seed, 7))
    }

    /// A queue frozen at drop probability `p`, past its burst allowance, with a high delay.
    fn frozen(cfg: PieConfig, p: f64, seed: u64) -> PieQueue {
        let mut q = queue(cfg, seed);
        q.vars.prob = p;
        q.vars.burst_allowance = Dur::ZERO;
        q.vars.qdelay_old = Dur::from_millis(20);
        q
    }

    /// Offer `n` packets, each followed by one dequeue, on top of `standing` queued packets; returns
    /// (early drops, CE marks seen on dequeued packets).
    fn offer(q: &mut PieQueue, n: u32, standing: u32, ecn: Ecn) -> (u32, u32) {
        let mut d = Vec::new();
        let now = Time::from_secs(1);
        for i in 0..standing {
            q.fifo.push(now, pkt(i, ecn)).unwrap();
        }
        let (mut drops, mut marks) = (0, 0);
        for i in 0..n {
            if q.enqueue(now, pkt(i, ecn)).is_err() {
                drops += 1;
                continue;
            }
            if q.dequeue(now, LinkInfo::default(), &mut d).unwrap().ecn == Ecn::Ce {
                marks += 1;
            }
        }
        while let Some(p) = q.dequeue(now, LinkInfo::default(), &mut d) {
            marks += u32::from(p.ecn == Ecn::Ce);
        }
        (drops, marks)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-12)
    }

    #[test]
    fn config_defaults_and_validation() {
        let c = PieConfig::default();
        assert_eq!(
            (c.qdelay_ref, c.t_update, c.max_burst),
            (Dur(15_000_000), Dur(15_000_000), Dur(150_000_000))
        );
        assert_eq!((c.alpha, c.beta, c.ecn_prob_max), (0.125, 1.25, 0.10));
        assert!(!c.ecn && !c.derandomize && !c.bytemode && !c.dq_rate_estimator);
        assert_eq!((c.limit, c.mtu), (Limit::Packets(1000), 1514));
        assert!(c.validate("q").is_ok());
        let key = |c: PieConfig| match c.validate("hops[1].queue") {
            Err(Error::Param { key, .. }) => key,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            key(PieConfig {
                t_update: Dur::ZERO,
                ..c
            }),
            "hops[1].queue.t_update"
        );
        assert_eq!(
            key(PieConfig {
                qdelay_ref: Dur::ZERO,
                ..c
            }),
            "hops[1].queue.qdelay_ref"
        );
        assert_eq!(key(PieConfig { alpha: f64::NAN, ..c }), "hops[1].queue.alpha");
        assert_eq!(key(PieConfig { beta: -1.0, ..c }), "hops[1].queue.beta");
        assert_eq!(key(PieConfig { ecn_prob_max: 1.5, ..c }), "hops[1].queue.ecn_prob_max");
    }

    #[test]
    fn delta_divisor_follows_the_rfc_table() {
        let cases = [
            (0.0, 2048.0),
            (9.9e-7, 2048.0),
            (1e-6, 512.0),
            (5e-5, 128.0),
            (1e-4, 32.0),
            (5e-3, 8.0),
            (0.05, 2.0),
            (0.1, 1.0),
            (0.9, 1.0),
        ];
        for (p, div) in cases {
            assert_eq!(PieQueue::delta_divisor(p), div, "p = {p}");
        }
    }

    /// One packet arrives per ms; from 35 ms on one leaves per ms after 35 ms in the queue, so
    /// every delay sample is exactly 35 ms. Updates at 15 and 30 ms see no sample (qdelay 0,
    /// p stays 0, burst allowance refilled). Then, with qdelay_ref 15 ms, α 0.125, β 1.25:
    /// * 45 ms: Δp = 0.125·0.020 + 1.25·(0.035 − 0) = 0.04625, p < 1e-6 → ÷2048:
    ///   p = 2.25830078125e-5;
    /// * 60, 75, 90, 105 ms: Δp = 0.0025, 1e-5 ≤ p < 1e-4 → ÷128 = 1.953125e-5 each:
    ///   4.21142578125e-5, 6.16455078125e-5, 8.11767578125e-5, 1.007080078125e-4;
    /// * 120, 135 ms: p ≥ 1e-4 → ÷32 = 7.8125e-5 each: 1.788330078125e-4, 2.569580078125e-4.
    #[test]
    fn probability_trajectory_under_a_constant_35_ms_delay() {
        let mut q = queue(PieConfig::default(), 1);
        let mut d = Vec::new();
        let mut updates = Vec::new();
        for t in 0..=180u64 {
            let now = Time::from_millis(t);
            q.enqueue(now, pkt(t as u32, Ecn::NotEct)).unwrap();
            if t >= 35 {
                let p = q.dequeue(now, LinkInfo::default(), &mut d).unwrap();
                assert_eq!(now - p.enqueued_at, Dur::from_millis(35));
            }
            if q.next_timer() == Some(now) {
                q.on_timer(now, &crate::queue::ConstantSchedule(0.0));
                updates.push((t, q.vars().prob, q.vars().burst_allowance));
            }
        }
        let times: Vec<u64> = updates.iter().map(|u| u.0).collect();
        assert_eq!(times, (1..=12).map(|k| 15 * k).collect::<Vec<_>>());
        assert_eq!(updates[0].1, 0.0);
        assert_eq!(updates[1].1, 0.0);
        let expected = [
            2.25830078125e-5,
            4.21142578125e-5,
            6.16455078125e-5,
            8.11767578125e-5,
            1.007080078125e-4,
            1.788330078125e-4,
            2.569580078125e-4,
        ];
        for (k, want) in expected.iter().enumerate() {
            assert!(
                close(updates[k + 2].1, *want),
                "update at {} ms: {} vs {want}",
                updates[k + 2].0,
                updates[k + 2].1
            );
        }
        // Burst allowance: refilled at 15 and 30 ms, then 150 − 15 per update: 0 after 180 ms.
        assert_eq!(updates[1].2, Dur::from_millis(150));
        assert_eq!(updates[2].2, Dur::from_millis(135));
        assert_eq!(updates[11].2, Dur::ZERO);
        assert_eq!(q.stats().dropped, 0);
        assert_eq!(q.gauge(), Some(q.vars().prob));
    }

    #[test]
    fn increase_is_capped_at_2_percent_above_10_percent_and_boosted_above_250_ms() {
        // p = 0.15, qdelay 100 ms, qdelay_old 0: raw Δp = 0.125·0.085 + 1.25·0.1 = 0.135625 → 0.02.
        let mut q = queue(PieConfig::default(), 1);
        q.vars.prob = 0.15;
        q.vars.qdelay = Dur::from_millis(100);
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert!(close(q.vars().prob, 0.17));
        // qdelay 300 ms: capped 0.02 plus Linux's 0.02.
        q.vars.qdelay = Dur::from_millis(300);
        q.on_timer(Time::from_millis(30), &crate::queue::ConstantSchedule(0.0));
        assert!(close(q.vars().prob, 0.21));
        // Below 10 % the boost is added after the auto-tuning: p = 0,
        // Δp = (0.125·0.285 + 1.25·0.3)/2048 + 0.02.
        let mut q = queue(PieConfig::default(), 1);
        q.vars.qdelay = Dur::from_millis(300);
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert!(close(q.vars().prob, 0.410625 / 2048.0 + 0.02));
        // Never above 1.
        q.vars.prob = 0.995;
        q.on_timer(Time::from_millis(30), &crate::queue::ConstantSchedule(0.0));
        assert_eq!(q.vars().prob, 1.0);
    }

    #[test]
    fn probability_decays_by_one_64th_when_the_queue_stays_empty_then_resets() {
        let mut q = queue(PieConfig::default(), 1);
        q.vars.prob = 0.5;
        q.vars.burst_allowance = Dur::ZERO;
        // Empty queue, qdelay = qdelay_old = 0: Δp = −0.125·0.015 = −0.001875 (p ≥ 0.1: no
        // scaling), then p −= p/64.
        let p1 = (0.5 - 0.001875) * 63.0 / 64.0;
        let p2 = (p1 - 0.001875) * 63.0 / 64.0;
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert!(close(q.vars().prob, p1), "{}", q.vars().prob);
        assert!(close(p1, 0.490341796875));
        q.on_timer(Time::from_millis(30), &crate::queue::ConstantSchedule(0.0));
        assert!(close(q.vars().prob, p2), "{}", q.vars().prob);
        assert_eq!(q.vars().burst_allowance, Dur::ZERO);
        // Keeps falling to exactly 0, then the reset refills the burst allowance.
        let mut last = q.vars().prob;
        let mut t = 30;
        while q.vars().prob > 0.0 {
            t += 15;
            q.on_timer(Time::from_millis(t), &crate::queue::ConstantSchedule(0.0));
            assert!(q.vars().prob < last);
            last = q.vars().prob;
            assert!(t < 15 * 1000, "no decay to 0 within 1000 updates");
        }
        assert_eq!(q.vars().burst_allowance, Dur::from_millis(150));
    }

    #[test]
    fn reset_needs_p_zero_and_both_delays_below_half_the_target() {
        let mut q = queue(PieConfig::default(), 1);
        q.vars.burst_allowance = Dur::ZERO;
        q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        // qdelay = qdelay_old = 10 ms ≥ 7.5 ms: Δp = 0.125·(−0.005) < 0, p stays 0; no reset.
        q.vars.qdelay = Dur::from_millis(10);
        q.vars.qdelay_old = Dur::from_millis(10);
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert_eq!((q.vars().prob, q.vars().burst_allowance), (0.0, Dur::ZERO));
        // qdelay 5 ms but qdelay_old 10 ms: still no reset.
        q.vars.qdelay = Dur::from_millis(5);
        q.on_timer(Time::from_millis(30), &crate::queue::ConstantSchedule(0.0));
        assert_eq!((q.vars().prob, q.vars().burst_allowance), (0.0, Dur::ZERO));
        assert_eq!(q.vars().qdelay_old, Dur::from_millis(5));
        // Both below 7.5 ms and p = 0: reset.
        q.on_timer(Time::from_millis(45), &crate::queue::ConstantSchedule(0.0));
        assert_eq!(q.vars().burst_allowance, Dur::from_millis(150));
        // p > 0 blocks the reset.
        let mut q = queue(PieConfig::default(), 1);
        q.vars.burst_allowance = Dur::ZERO;
        q.vars.prob = 0.5;
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert_eq!(q.vars().burst_allowance, Dur::ZERO);
    }

    #[test]
    fn burst_allowance_prevents_drops_for_the_first_150_ms() {
        // p ≈ 1 from the start, one packet per ms, no departures. Updates every 15 ms take
        // 15 ms off the 150 ms allowance (p ≠ 0, so no reset): it is gone after the update at
        // 150 ms, and from then on almost every arrival is dropped.
        let mut q = queue(
            PieConfig {
                limit: Limit::Infinite,
                ..PieConfig::default()
            },
            3,
        );
        q.vars.prob = 1.0;
        let mut drops_before = 0;
        let mut drops_after = 0;
        for t in 0..250u64 {
            let now = Time::from_millis(t);
            if q.next_timer() == Some(now) {
                q.on_timer(now, &crate::queue::ConstantSchedule(0.0));
            }
            let dropped = q.enqueue(now, pkt(t as u32, Ecn::NotEct)).is_err();
            if t < 150 {
                assert!(q.vars().burst_allowance > Dur::ZERO);
                drops_before += u32::from(dropped);
            } else {
                drops_after += u32::from(dropped);
            }
        }
        assert_eq!(drops_before, 0);
        // 16 updates of Δp = −0.125·0.015 (no samples, no decay with a backlog): p = 0.97.
        assert!(close(q.vars().prob, 0.97), "{}", q.vars().prob);
        assert!(drops_after >= 90, "{drops_after} of 100");
        assert_eq!(q.pie_stats().early_drops, u64::from(drops_after));
    }

    #[test]
    fn no_early_drop_with_fewer_than_two_packets_or_low_delay_and_p() {
        let mut q = frozen(PieConfig::default(), 1.0, 1);
        let now = Time::ZERO;
        assert!(q.enqueue(now, pkt(0, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(now, pkt(1, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(now, pkt(2, Ecn::NotEct)).is_err(), "2 queued, p = 1");
        // Low delay (qdelay_old < 7.5 ms) and p < 0.2: no early drop.
        let mut q = frozen(PieConfig::default(), 0.19, 1);
        q.vars.qdelay_old = Dur::from_millis(7);
        let (drops, _) = offer(&mut q, 1000, 10, Ecn::NotEct);
        assert_eq!(drops, 0);
        // Low delay but p ≥ 0.2: drops.
        let mut q = frozen(PieConfig::default(), 0.2, 1);
        q.vars.qdelay_old = Dur::ZERO;
        let (drops, _) = offer(&mut q, 1000, 10, Ecn::NotEct);
        assert!(drops > 100);
    }

    #[test]
    fn drop_rate_matches_p() {
        // p = 0.3 over 20 000 arrivals: σ = √(0.3·0.7/20000) ≈ 0.0032; allow 4σ.
        let mut q = frozen(PieConfig::default(), 0.3, 11);
        let n = 20_000;
        let (drops, _) = offer(&mut q, n, 10, Ecn::NotEct);
        let rate = f64::from(drops) / f64::from(n);
        assert!((rate - 0.3).abs() < 0.013, "rate {rate}");
        let s = q.stats();
        assert_eq!(s.dropped, u64::from(drops));
        assert_eq!(q.pie_stats().early_drops, u64::from(drops));
        // Same seed, same decisions.
        let mut q2 = frozen(PieConfig::default(), 0.3, 11);
        assert_eq!(offer(&mut q2, n, 10, Ecn::NotEct).0, drops);
    }

    #[test]
    fn byte_mode_scales_p_by_size_and_counts_the_threshold_in_bytes() {
        let cfg = PieConfig {
            bytemode: true,
            limit: Limit::Infinite,
            ..PieConfig::default()
        };
        // p = 1 for 52-byte packets: local p = 52/1514 ≈ 0.0343.
        let mut q = frozen(cfg, 1.0, 5);
        let now = Time::ZERO;
        for i in 0..3 {
            q.fifo.push(now, pkt(i, Ecn::NotEct)).unwrap();
        }
        let n = 20_000;
        let mut drops = 0;
        for i in 0..n {
            let ack = Packet::ack(0, i, crate::packet::Echo::None, now, now);
            drops += u32::from(q.enqueue(now, ack).is_err());
        }
        let want = f64::from(ACK_BYTES) / 1514.0;
        let rate = f64::from(drops) / f64::from(n);
        assert!((rate - want).abs() < 0.006, "rate {rate} vs {want}");
        // 2 full packets = 3000 bytes < 2·1514: no drop even at p = 1.
        let mut q = frozen(cfg, 1.0, 5);
        q.fifo.push(now, pkt(0, Ecn::NotEct)).unwrap();
        q.fifo.push(now, pkt(1, Ecn::NotEct)).unwrap();
        assert!(q.enqueue(now, pkt(2, Ecn::NotEct)).is_ok());
        // 4500 bytes now; a 1514-byte packet sees p·1514/1514 = 1.
        let big = Packet {
            size: 1514,
            ..pkt(3, Ecn::NotEct)
        };
        assert!(q.enqueue(now, big).is_err());
    }

    #[test]
    fn derandomised_drops_are_spaced_between_7_and_68_arrivals_at_p_one_eighth() {
        // p = 0.125: the sum reaches 0.85 at the 7th arrival after a drop (0.875), so at least 6
        // arrivals pass between drops; at the 68th it reaches 8.5 and the drop is forced.
        let cfg = PieConfig {
            derandomize: true,
            ..PieConfig::default()
        };
        let mut q = frozen(cfg, 0.125, 2);
        let mut d = Vec::new();
        let now = Time::ZERO;
        for i in 0..10 {
            q.fifo.push(now, pkt(i, Ecn::NotEct)).unwrap();
        }
        let mut since = 0;
        let mut gaps = Vec::new();
        for i in 0..20_000 {
            since += 1;
            if q.enqueue(now, pkt(i, Ecn::NotEct)).is_err() {
                gaps.push(since);
                since = 0;
                assert_eq!(q.vars().accu_prob, 0.0);
            } else {
                q.dequeue(now, LinkInfo::default(), &mut d);
            }
        }
        assert!(gaps.len() > 1000);
        assert!(gaps.iter().all(|g| (7..=68).contains(g)), "{:?}", gaps.iter().min());
        assert_eq!(*gaps.iter().min().unwrap(), 7);
    }

    #[test]
    fn derandomised_drop_is_forced_at_accumulated_8_5() {
        let cfg = PieConfig {
            derandomize: true,
            ..PieConfig::default()
        };
        let (mut forced, mut random) = (0, 0);
        for seed in 0..40 {
            for (start, count) in [(8.375, &mut forced), (8.25, &mut random)] {
                let mut q = frozen(cfg, 0.125, seed);
                q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
                q.fifo.push(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
                q.vars.accu_prob = start;
                if q.enqueue(Time::ZERO, pkt(2, Ecn::NotEct)).is_err() {
                    *count += 1;
                }
            }
        }
        // 8.375 + 0.125 = 8.5: always dropped; 8.25 + 0.125 = 8.375: dropped with probability 1/8.
        assert_eq!(forced, 40);
        assert!(random < 15, "{random}");
    }

    #[test]
    fn ecn_marks_up_to_10_percent_then_drops() {
        let cfg = PieConfig {
            ecn: true,
            ..PieConfig::default()
        };
        // p = 0.1: ECT packets chosen for a drop are marked and accepted.
        let mut q = frozen(cfg, 0.1, 9);
        let (drops, marks) = offer(&mut q, 10_000, 10, Ecn::Ect0);
        assert_eq!(drops, 0);
        assert!((800..1200).contains(&marks), "{marks}");
        assert_eq!(q.stats().marked, u64::from(marks));
        assert_eq!(q.pie_stats().ecn_mark, u64::from(marks));
        // ... but non-ECT packets are dropped.
        let mut q = frozen(cfg, 0.1, 9);
        let (drops, marks) = offer(&mut q, 10_000, 10, Ecn::NotEct);
        assert_eq!(marks, 0);
        assert!((800..1200).contains(&drops), "{drops}");
        // p = 0.15 > 10 %: ECT packets are dropped too.
        let mut q = frozen(cfg, 0.15, 9);
        let (drops, marks) = offer(&mut q, 10_000, 10, Ecn::Ect1);
        assert_eq!(marks, 0);
        assert!((1250..1750).contains(&drops), "{drops}");
    }

    #[test]
    fn tail_drops_at_the_limit() {
        let mut q = queue(
            PieConfig {
                limit: Limit::Packets(2),
                ..PieConfig::default()
            },
            1,
        );
        q.enqueue(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        q.enqueue(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        q.vars.accu_prob = 0.5;
        assert_eq!(q.enqueue(Time::ZERO, pkt(2, Ecn::NotEct)).unwrap_err().seq, 2);
        assert_eq!(
            (q.stats().dropped, q.pie_stats().overlimit, q.pie_stats().early_drops),
            (1, 1, 0)
        );
        assert_eq!(q.vars().accu_prob, 0.0);
        assert_eq!(q.name(), "pie");
        let mut d = Vec::new();
        assert_eq!(q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap().seq, 0);
    }

    #[test]
    fn timer_runs_every_t_update_and_ignores_early_calls() {
        let mut q = queue(PieConfig::default(), 1);
        assert_eq!(q.next_timer(), Some(Time::from_millis(15)));
        q.vars.prob = 0.5;
        q.on_timer(Time::from_millis(10), &crate::queue::ConstantSchedule(0.0));
        assert_eq!((q.vars().prob, q.next_timer()), (0.5, Some(Time::from_millis(15))));
        q.on_timer(Time::from_millis(15), &crate::queue::ConstantSchedule(0.0));
        assert!(q.vars().prob < 0.5);
        assert_eq!(q.next_timer(), Some(Time::from_millis(30)));
    }

    #[test]
    fn last_dequeued_sojourn_is_the_delay_sample_and_zero_when_emptied() {
        let mut q = queue(PieConfig::default(), 1);
        let mut d = Vec::new();
        q.enqueue(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        q.enqueue(Time::from_millis(1), pkt(1, Ecn::NotEct)).unwrap();
        q.dequeue(Time::from_millis(20), LinkInfo::default(), &mut d);
        assert_eq!(q.vars().qdelay, Dur::from_millis(20));
        q.dequeue(Time::from_millis(21), LinkInfo::default(), &mut d);
        assert_eq!(q.vars().qdelay, Dur::ZERO);
        // A dequeue time before the enqueue time does not panic.
        q.enqueue(Time::from_millis(50), pkt(2, Ecn::NotEct)).unwrap();
        q.enqueue(Time::from_millis(50), pkt(3, Ecn::NotEct)).unwrap();
        q.dequeue(Time::from_millis(40), LinkInfo::default(), &mut d);
        assert_eq!(q.vars().qdelay, Dur::ZERO);
    }

    #[test]
    fn rate_estimator_gives_backlog_over_departure_rate() {
        // 40 packets queued, then each ms one arrives and one leaves (1500 B/ms = 1.5 MB/s). After
        // the dequeue 39 packets (58 500 B) remain: qdelay = 58 500 / 1.5e6 s = 39 ms. The first
        // 16 KiB cycle counts its starting packet (11 packets in 10 ms, 10 % high); the EWMA
        // forgets it within a second.
        // α = β = 0 keeps p at 0, so nothing is dropped and the rates stay exact.
        let cfg = PieConfig {
            dq_rate_estimator: true,
            alpha: 0.0,
            beta: 0.0,
            ..PieConfig::default()
        };
        let mut q = queue(cfg, 1);
        let mut d = Vec::new();
        for i in 0..40 {
            q.enqueue(Time::ZERO, pkt(i, Ecn::NotEct)).unwrap();
        }
        for t in 1..=1500u64 {
            let now = Time::from_millis(t);
            q.enqueue(now, pkt(t as u32, Ecn::NotEct)).unwrap();
            q.dequeue(now, LinkInfo::default(), &mut d);
            if q.next_timer() == Some(now) {
                q.on_timer(now, &crate::queue::ConstantSchedule(0.0));
            }
        }
        let rate = q.vars().avg_dq_rate;
        assert!((rate - 1.5e6).abs() < 1.5e6 * 0.001, "rate {rate}");
        let qd = q.vars().qdelay.millis_f64();
        let want = q.len_bytes() as f64 / 1.5e6 * 1e3;
        assert!((qd - want).abs() < want * 0.002, "qdelay {qd} ms vs {want}");
    }

    #[test]
    fn arbitrary_inputs_never_panic() {
        // Odd configurations (including ones `validate` rejects) and times that jump backwards.
        let base = PieConfig::default();
        let cfgs = [
            base,
            PieConfig {
                qdelay_ref: Dur::ZERO,
                t_update: Dur::ZERO,
                max_burst: Dur::ZERO,
                alpha: f64::NAN,
                beta: f64::INFINITY,
                ecn: true,
                ecn_prob_max: 2.0,
                derandomize: true,
                bytemode: true,
                limit: Limit::Bytes(0),
                dq_rate_estimator: true,
                mtu: 0,
            },
            PieConfig {
                max_burst: Dur::ZERO,
                alpha: 1e6,
                beta: -1e6,
                ecn: true,
                derandomize: true,
                bytemode: true,
                limit: Limit::Infinite,
                dq_rate_estimator: true,
                ..base
            },
        ];
        for (i, cfg) in cfgs.into_iter().enumerate() {
            let mut q = queue(cfg, i as u64);
            let mut r = Rng::stream(i as u64, 99);
            let mut d = Vec::new();
            for k in 0..20_000u32 {
                let now = Time(r.below(1 << 40));
                let ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][r.below(4) as usize];
                match r.below(4) {
                    0 | 1 => {
                        let _ = q.enqueue(
                            now,
                            Packet {
                                size: r.below(3000) as u32,
                                ..pkt(k, ecn)
                            },
                        );
                    }
                    2 => {
                        let _ = q.dequeue(now, LinkInfo::default(), &mut d);
                    }
                    _ => {
                        let t = q.next_timer().unwrap();
                        assert!(t > Time::ZERO);
                        q.on_timer(t, &crate::queue::ConstantSchedule(0.0));
                    }
                }
                let p = q.gauge().unwrap();
                assert!((0.0..=1.0).contains(&p), "p = {p}");
            }
        }
    }

    #[test]
    fn validation_rejects_negative_or_infinite_gains() {
        let c = PieConfig::default();
        for (alpha, beta, key) in [
            (-1.0, 1.25, "q.alpha"),
            (f64::INFINITY, 1.25, "q.alpha"),
            (0.125, -0.5, "q.beta"),
            (0.125, f64::INFINITY, "q.beta"),
        ] {
            match (PieConfig { alpha, beta, ..c }).validate("q") {
                Err(Error::Param { key: k, .. }) => assert_eq!(k, key),
                other => panic!("{alpha} {beta}: {other:?}"),
            }
        }
        assert!((PieConfig { alpha: 0.0, beta: 0.0, ..c }).validate("q").is_ok());
        let d = PieConfig { ecn: true, ..c };
        assert_eq!(queue(d, 1).config(), &d);
    }

    #[test]
    fn high_delay_boost_only_above_250_ms() {
        // p = 0.5 (≥ 10 %): Δp = 0.125·(q − 15 ms) is capped at 2 %; above 250 ms 2 % more.
        let step = |q: Dur| {
            let mut qu = queue(PieConfig::default(), 1);
            qu.vars.prob = 0.5;
            qu.vars.qdelay = q;
            qu.vars.qdelay_old = q;
            qu.calculate_drop_prob();
            qu.vars.prob
        };
        assert!(close(step(Dur::from_millis(250)), 0.52));
        assert!(close(step(Dur::from_millis(250) + Dur(1)), 0.54));
    }

    #[test]
    fn estimator_without_a_rate_yet_reads_zero_delay() {
        // dq_rate_estimator before the first rate sample: qdelay is 0 whatever is queued, and a
        // zero delay with a backlog allows no decay.
        let cfg = PieConfig {
            dq_rate_estimator: true,
            alpha: 0.0,
            beta: 0.0,
            ..PieConfig::default()
        };
        let mut q = queue(cfg, 1);
        q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        q.vars.prob = 0.5;
        q.calculate_drop_prob();
        assert_eq!((q.vars.qdelay, q.vars.prob), (Dur::ZERO, 0.5));
    }

    #[test]
    fn decay_by_one_64th_also_from_a_saturated_probability() {
        // No gains (Δp = 0), empty queue, both delays 0: p decays by p/64 even at p = 1 (the
        // saturation rule only applies when Δp > 0).
        let cfg = PieConfig {
            alpha: 0.0,
            beta: 0.0,
            ..PieConfig::default()
        };
        let mut q = queue(cfg, 1);
        q.vars.prob = 1.0;
        q.calculate_drop_prob();
        assert_eq!(q.vars.prob, 1.0 - 1.0 / 64.0);
    }

    #[test]
    fn reset_boundaries_half_the_target_and_the_estimators_first_rate() {
        // Whether an update with p staying 0 refills the burst allowance (pie_vars_init).
        let resets = |q: Dur, q_old: Dur, estimator: Option<f64>| {
            let cfg = PieConfig {
                dq_rate_estimator: estimator.is_some(),
                ..PieConfig::default()
            };
            let mut qu = queue(cfg, 1);
            qu.vars.burst_allowance = Dur::ZERO;
            qu.vars.qdelay = q;
            qu.vars.qdelay_old = q_old;
            qu.vars.avg_dq_rate = estimator.unwrap_or(0.0);
            qu.calculate_drop_prob();
            assert_eq!(qu.vars.prob, 0.0);
            qu.vars.burst_allowance == Dur::from_millis(150)
        };
        let ms = Dur::from_millis;
        let half = Dur::from_micros(7500);
        assert!(resets(ms(7), ms(7), None));
        assert!(resets(half - Dur(1), half - Dur(1), None));
        assert!(!resets(half, ms(7), None), "qdelay at half the target");
        assert!(!resets(ms(7), half, None), "qdelay_old at half the target");
        // With the rate estimator (empty queue: qdelay 0) only once a departure rate is known.
        assert!(!resets(Dur::ZERO, Dur::ZERO, Some(0.0)));
        assert!(resets(Dur::ZERO, Dur::ZERO, Some(1e6)));
    }

    #[test]
    fn departure_rate_is_measured_once_16_kib_have_left() {
        // 48 packets of 1024 bytes queued at 0, one leaves per ms. The first departure starts a
        // measurement (backlog ≥ 16 KiB); the 16th, at 15 ms, completes 16 384 bytes exactly.
        let cfg = PieConfig {
            dq_rate_estimator: true,
            ..PieConfig::default()
        };
        let mut q = queue(cfg, 1);
        for i in 0..48 {
            q.enqueue(Time::ZERO, Packet::data(0, i, 1024, Ecn::NotEct, Time::ZERO)).unwrap();
        }
        let mut d = Vec::new();
        for k in 0..15 {
            q.dequeue(Time::from_millis(k), LinkInfo::default(), &mut d).unwrap();
            assert_eq!(q.vars.avg_dq_rate, 0.0, "after {} departures", k + 1);
        }
        assert_eq!(q.vars.dq_count, Some(15 * 1024));
        q.dequeue(Time::from_millis(15), LinkInfo::default(), &mut d).unwrap();
        assert_eq!(q.vars.avg_dq_rate, 16384.0 / 0.015);
        // Backlog still above 16 KiB: the next measurement starts now.
        assert_eq!((q.vars.dq_count, q.vars.dq_tstamp), (Some(0), Time::from_millis(15)));
        // The second completes at 31 ms (16 ms): averaged with weight 1/8. Exactly 16 KiB stay
        // queued, which is not below the threshold: a third measurement starts.
        for k in 16..32 {
            q.dequeue(Time::from_millis(k), LinkInfo::default(), &mut d).unwrap();
        }
        let first = 16384.0 / 0.015;
        assert_eq!(q.vars.avg_dq_rate, first + 0.125 * (16384.0 / 0.016 - first));
        assert_eq!(q.len_bytes(), 16384);
        assert_eq!((q.vars.dq_count, q.vars.dq_tstamp), (Some(0), Time::from_millis(31)));
        // Below 16 KiB after the next completion: measurement stops until the backlog builds up.
        for k in 32..48 {
            q.dequeue(Time::from_millis(k), LinkInfo::default(), &mut d).unwrap();
        }
        assert_eq!(q.vars.dq_count, None);
        assert_eq!((q.len_packets(), q.len_bytes()), (0, 0));
        q.enqueue(Time::from_secs(1), pkt(0, Ecn::NotEct)).unwrap();
        q.enqueue(Time::from_secs(1), pkt(1, Ecn::NotEct)).unwrap();
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 2 * u64::from(MTU)));
    }

    #[test]
    fn byte_mode_needs_two_mtus_queued_and_derandomising_drops_from_0_85() {
        // Byte mode, MTU 1500, p = 1: with exactly 2 MTUs queued an arriving MTU is dropped.
        let cfg = PieConfig {
            bytemode: true,
            mtu: 1500,
            ..PieConfig::default()
        };
        let mut q = frozen(cfg, 1.0, 1);
        q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
        assert!(!q.drop_early(1500), "one MTU queued");
        q.fifo.push(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
        assert!(q.drop_early(1500), "two MTUs queued");
        // Derandomised at p = 0.85: the first arrival brings accu_prob to exactly 0.85, which is
        // not below the low mark, so the random test decides (and drops with some seeds).
        let cfg = PieConfig {
            derandomize: true,
            ..PieConfig::default()
        };
        let drops = (0..20)
            .filter(|&seed| {
                let mut q = frozen(cfg, 0.85, seed);
                q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
                q.fifo.push(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
                let drop = q.drop_early(MTU);
                assert_eq!(q.vars.accu_prob, 0.85);
                drop
            })
            .count();
        assert!(drops > 0 && drops < 20, "{drops}");
    }

    #[test]
    fn low_delay_exemption_needs_qdelay_old_below_half_the_target() {
        // p = 0.19 (< 20 %): exempt from early drops while qdelay_old < 7.5 ms; at exactly 7.5 ms
        // the random test decides (and drops with some seeds).
        let drops = |qdelay_old: Dur| {
            (0..20)
                .filter(|&seed| {
                    let mut q = frozen(PieConfig::default(), 0.19, seed);
                    q.vars.qdelay_old = qdelay_old;
                    q.fifo.push(Time::ZERO, pkt(0, Ecn::NotEct)).unwrap();
                    q.fifo.push(Time::ZERO, pkt(1, Ecn::NotEct)).unwrap();
                    q.drop_early(MTU)
                })
                .count()
        };
        assert_eq!(drops(Dur::from_micros(7499)), 0);
        let at_half = drops(Dur::from_micros(7500));
        assert!(at_half > 0 && at_half < 20, "{at_half}");
    }
}
