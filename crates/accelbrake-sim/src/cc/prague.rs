//! TCP Prague, the L4S scalable congestion control (draft-briscoe-iccrg-prague-congestion-control;
//! the L4S team's Linux `net/ipv4/tcp_prague.c`, v0.7, in its fractional-window mode).
//!
//! * **ECT(1) and Accurate ECN** (RFC 9331 §4; draft-ietf-tcpm-accurate-ecn): packets carry the
//!   L4S identifier. The receiver counts CE-marked packets as they arrive and every ACK carries the
//!   counter's three low bits (the ACE field); the sender takes the difference from the last ACK,
//!   modulo 8, as the number of newly CE-marked packets (`rs->ece_delta` in Linux). The counter
//!   starts at 5 (AccECN §3.2.1) and the receiver ACKs at once when a CE packet follows a non-CE
//!   one (AccECN's change-triggered ACK), so no ACK covers eight or more marks and the 3-bit field
//!   never wraps ambiguously. The AccECN TCP option (byte counters) is not modelled.
//! * **α** (`prague_update_alpha`): once per round (`snd_una` past the round's `snd_nxt`), and once
//!   RTT-independent also no sooner than `rtt_target` after the last update,
//!   `α ← (1 − g)·α + g·F` with `F` the CE-marked fraction of the round's delivered segments and
//!   g = 1/16; α is not updated before the first CE mark (no AQM seen yet).
//! * **Reduction** (`prague_enter_cwr`): on entering CWR (at most once per round, as the transport
//!   calls [`CongestionKind::Ecn`]; once RTT-independent also at most once per `rtt_target`), the
//!   fractional window loses `W·α/2`. The first CE mark of the connection halves it instead
//!   (`prague_alpha_mode = 0`). A loss halves it (`prague_enter_loss`) and stops growth until
//!   recovery ends.
//! * **Growth** (`prague_update_cwnd`): on every ACK, even in CWR, by the *non-marked* segments
//!   it acknowledges: slow start while below ssthresh, otherwise `ai/W` per segment, where
//!   `ai = (srtt / rtt_target)²` once the flow is RTT-independent (`rtt_transition` rounds after
//!   slow start) and its srtt is below `rtt_target`, else 1 (`prague_rate_scaled_ai_ack_increase`).
//!   The socket window follows the fractional one by one segment per ACK (`adjust:`), and a
//!   step down sets ssthresh, which is what ends slow start.
//! * **Pacing** (`prague_update_pacing_rate`): `MTU·max(W, in flight)/srtt`, twice that while the
//!   window is below half of ssthresh; bursts of at most 250 µs of data
//!   (`prague_burst_shift = 12`). The initial window is paced from the handshake's RTT
//!   (`prague_init` with the SYN-ACK's `srtt_us`; here the flow's propagation RTT, see
//!   [`CongestionControl::on_handshake`]).
//!
//! Not modelled (docs/l4s.md): the rate-based mode below 4 MTUs of window
//! (`prague_cwnd_mode = 2` switches to it), MTU reduction at very low rates, the ±3 % pacing
//! variation of the rate mode, undo, and the fall-back to Reno when AccECN is not negotiated
//! (there is no handshake; every simulated receiver here speaks AccECN). The draft's detection of
//! a Classic ECN bottleneck, and a Reno-like response to it, is not in the Linux code and is not
//! modelled: over a Classic ECN AQM Prague answers its rare marks with W·α/2.

use super::newreno::{INFINITE_SSTHRESH, INITIAL_WINDOW_PARAM};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::packet::{Ecn, Packet, MTU};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// EWMA gain g (tcp_prague.c `PRAGUE_SHIFT_G = 4`; the draft §2.3: 1/16).
pub const G: f64 = 1.0 / 16.0;
/// RTT below which Prague behaves as if its RTT were this (tcp_prague.c `RTT_TARGET`, 25 ms).
pub const RTT_TARGET_MS: f64 = 25.0;
/// Rounds after slow start before the flow becomes RTT-independent (`DEFAULT_RTT_TRANSITION`).
pub const RTT_TRANSITION: u64 = 4;
/// Above this srtt the additive increase is not scaled (tcp_prague.c `MAX_SCALED_RTT`, 100 ms).
pub const MAX_SCALED_RTT: Dur = Dur::from_millis(100);
/// Smallest window (tcp_prague.c `MIN_CWND_RTT`).
pub const MIN_CWND: u32 = 2;
/// Longest burst the pacer may send, s (tcp_prague.c `prague_burst_shift = 12`: 2⁻¹² s).
pub const BURST_SECONDS: f64 = 1.0 / 4096.0;
/// Initial value of the receiver's CE-packet counter (AccECN §3.2.1: r.cep starts at 5).
pub const CEP_INIT: u32 = 5;

/// Prague's parameters (keys `prague.<name>`; tcp_prague.c module parameters and constants).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("g", G, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("EWMA gain of α", "tcp_prague.c PRAGUE_SHIFT_G = 4; draft-briscoe-iccrg-prague §2.3"),
    Param::real("rtt_target_ms", RTT_TARGET_MS, Unit::Ms, 0.0, 10_000.0)
        .doc(
            "RTT independence: below this RTT grow and reduce as if the RTT were this (0: off)",
            "tcp_prague.c RTT_TARGET (prague_rtt_target)",
        ),
    Param::whole("rtt_transition", RTT_TRANSITION, Unit::None, 0, 1_000_000)
        .doc("rounds after slow start before the flow becomes RTT-independent", "tcp_prague.c DEFAULT_RTT_TRANSITION"),
    Param::flag("alpha_init_one", false).doc(
        "start with α = 1 instead of halving the window at the first CE mark",
        "tcp_prague.c prague_alpha_mode (0: half cwnd at 1st mark)",
    ),
    Param::flag("paced", true).doc(
        "pace at MTU·W/srtt (twice that in early slow start)",
        "tcp_prague.c prague_update_pacing_rate (SK_PACING_NEEDED)",
    ),
];

/// TCP Prague.
pub const PRAGUE: Scheme = Scheme {
    name: "prague",
    display: "TCP Prague",
    family: "prague",
    summary: "L4S scalable control: ECT(1), Accurate ECN, W·α/2 per round, RTT-independent below 25 ms, paced",
    source: "draft-briscoe-iccrg-prague-congestion-control; RFC 9331; L4S team Linux tcp_prague.c",
    marking: Marking::L4s,
    queue: "dualpi2",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    // Okabe–Ito blue (colour-blind safe, distinct from every other row).
    style: ("#E69F00", "H"),
    build: |v, _now, _rng| Ok(Box::new(Prague::new(PragueConfig::checked(v)?))),
    warnings: None,
};

/// Prague parameters (see [`PARAMS`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PragueConfig {
    /// `initial_window`, segments.
    pub initial_window: u32,
    /// `g`.
    pub g: f64,
    /// `rtt_target_ms`.
    pub rtt_target: Dur,
    /// `rtt_transition`.
    pub rtt_transition: u64,
    /// `alpha_init_one`.
    pub alpha_init_one: bool,
    /// `paced`.
    pub paced: bool,
}

crate::default_from_table!(PragueConfig);

impl Config for PragueConfig {
    const PREFIX: &'static str = "prague";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> PragueConfig {
        PragueConfig {
            initial_window: v.whole("initial_window"),
            g: v.real("g"),
            rtt_target: v.ms("rtt_target_ms"),
            rtt_transition: u64::from(v.whole("rtt_transition")),
            alpha_init_one: v.flag("alpha_init_one"),
            paced: v.flag("paced"),
        }
    }
}

/// The receiver half of Accurate ECN: counts CE packets and puts the ACE field (the counter's
/// three low bits) in `feedback[0]` of every ACK.
#[derive(Clone, Debug)]
pub struct AccEcnReceiver {
    cep: u32,
}

impl Default for AccEcnReceiver {
    fn default() -> Self {
        AccEcnReceiver { cep: CEP_INIT }
    }
}

impl crate::receiver::ReceiverHook for AccEcnReceiver {
    fn on_data(&mut self, _now: Time, pkt: &Packet) {
        if pkt.ecn == Ecn::Ce {
            self.cep = self.cep.wrapping_add(1);
        }
    }
    fn feedback(&mut self, _now: Time) -> [u8; 6] {
        [(self.cep & 7) as u8, 0, 0, 0, 0, 0]
    }
    fn clone_box(&self) -> Box<dyn crate::receiver::ReceiverHook> {
        Box::new(self.clone())
    }
}

/// The TCP Prague controller.
#[derive(Clone, Debug)]
pub struct Prague {
    cfg: PragueConfig,
    /// The socket window (`snd_cwnd`), segments.
    cwnd: u32,
    /// The fractional window (`frac_cwnd`), segments.
    frac: f64,
    ssthresh: u32,
    alpha: f64,
    /// The sender's copy of the CE counter (`s.cep`), and the last ACE seen.
    s_cep: u32,
    saw_ce: bool,
    in_loss: bool,
    /// Rounds since slow start ended (`round`).
    round: u64,
    /// `snd_nxt` at the start of the round, and the counters then.
    next_seq: u32,
    round_delivered: u64,
    round_ce: u64,
    delivered_ce: u64,
    alpha_stamp: Time,
    cwr_stamp: Option<Time>,
    srtt: Option<Dur>,
    in_flight: u32,
    ai: f64,
}

impl Prague {
    /// A controller in slow start.
    pub fn new(cfg: PragueConfig) -> Prague {
        let w = cfg.initial_window.max(1);
        Prague {
            cwnd: w,
            frac: f64::from(w),
            ssthresh: INFINITE_SSTHRESH,
            alpha: if cfg.alpha_init_one { 1.0 } else { 0.0 },
            s_cep: CEP_INIT,
            saw_ce: false,
            in_loss: false,
            round: 0,
            next_seq: 0,
            round_delivered: 0,
            round_ce: 0,
            delivered_ce: 0,
            alpha_stamp: Time::ZERO,
            cwr_stamp: None,
            srtt: None,
            in_flight: 0,
            ai: 1.0,
            cfg,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The fractional window.
    pub fn frac_window(&self) -> f64 {
        self.frac
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn rtt_independent(&self) -> bool {
        !self.in_slow_start() && self.round >= self.cfg.rtt_transition && self.cfg.rtt_target > Dur::ZERO
    }

    /// `prague_ai_ack_increase`: the per-segment additive increase, scaled by (srtt/target)² once
    /// RTT-independent.
    fn update_ai(&mut self) {
        self.ai = match self.srtt {
            Some(rtt) if self.round >= self.cfg.rtt_transition && rtt <= MAX_SCALED_RTT && rtt < self.cfg.rtt_target => {
                let r = rtt.secs_f64() / self.cfg.rtt_target.secs_f64();
                r * r
            }
            _ => 1.0,
        };
    }

    fn new_round(&mut self, ack: &AckInfo) {
        self.next_seq = ack.snd_nxt;
        self.round_delivered = ack.delivered;
        self.round_ce = self.delivered_ce;
        if !self.in_slow_start() {
            self.round += 1;
        }
        self.update_ai();
    }

    /// The newly CE-marked packets the ACK's ACE field reports (AccECN §3.2.2.5: the difference
    /// modulo 8).
    fn ace_delta(&mut self, ack: &AckInfo) -> u32 {
        let ace = u32::from(ack.feedback[0]) & 7;
        let d = ace.wrapping_sub(self.s_cep) & 7;
        self.s_cep = self.s_cep.wrapping_add(d);
        d
    }
}

impl CongestionControl for Prague {
    fn name(&self) -> &'static str {
        "prague"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    fn ssthresh(&self) -> Option<f64> {
        (self.ssthresh != INFINITE_SSTHRESH).then_some(f64::from(self.ssthresh))
    }

    fn receiver_hook(&self) -> Option<Box<dyn crate::receiver::ReceiverHook>> {
        Some(Box::new(AccEcnReceiver::default()))
    }

    fn pacing_rate(&self) -> Option<f64> {
        if !self.cfg.paced {
            return None;
        }
        let srtt = self.srtt?.secs_f64().max(1e-6);
        let mut rate = f64::from(MTU) * self.frac.max(f64::from(self.in_flight)) / srtt;
        if self.cwnd < self.ssthresh / 2 {
            // tcp_prague.c: `if (snd_cwnd < snd_ssthresh / 2) rate <<= 1` (true throughout the
            // first slow start, whose ssthresh is infinite).
            rate *= 2.0;
        }
        Some(rate)
    }

    fn pacing_min_burst(&self) -> u32 {
        // max_tso_burst = max(1, rate/MTU >> prague_burst_shift): 250 µs of data.
        let pps = self.pacing_rate().unwrap_or(0.0) / f64::from(MTU);
        ((pps * BURST_SECONDS).floor() as u32).max(1)
    }

    fn on_handshake(&mut self, rtt: Dur) {
        // prague_init runs after the handshake with `tp->srtt_us` from the SYN-ACK and sets the
        // initial pacing rate from it ("If we have an initial RTT estimate, ensure we have an
        // initial pacing rate", tcp_prague.c v0.7), so the initial window leaves paced at
        // 2·IW·MTU/srtt rather than in one burst that DualPI2's 1-ms step would mark.
        if rtt > Dur::ZERO {
            self.srtt = Some(rtt);
        }
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.srtt = ack.srtt.or(self.srtt);
        self.in_flight = ack.in_flight;
        // prague_update_cwnd.
        let ce = self.ace_delta(ack);
        self.delivered_ce += u64::from(ce);
        let mut acked = f64::from(ack.acked) - f64::from(ce);
        if ce > 0 {
            if !self.saw_ce && !self.cfg.alpha_init_one {
                self.frac = (self.frac / 2.0).max(1.0 / 1048576.0);
            }
            self.saw_ce = true;
        }
        if acked > 0.0 && !self.in_loss && ack.cwnd_limited {
            if self.in_slow_start() {
                let grown = (f64::from(self.cwnd) + acked).min(f64::from(self.ssthresh));
                acked -= grown - f64::from(self.cwnd);
                self.cwnd = grown as u32;
                self.frac = f64::from(self.cwnd);
            }
            if acked > 0.0 {
                self.frac += acked * self.ai / self.frac.max(1e-9);
            }
        }
        // adjust: the socket window moves one segment per ACK towards ⌈frac⌉.
        let target = (self.frac.ceil() as u32).max(MIN_CWND);
        if self.cwnd > target {
            self.cwnd -= 1;
            self.ssthresh = self.cwnd;
            self.update_ai();
        } else if self.cwnd < target {
            self.cwnd += 1;
            self.update_ai();
        }
        // prague_should_update_ewma: a round has passed (and, RTT-independent, rtt_target).
        if ack.snd_una >= self.next_seq
            && (!self.rtt_independent() || now.saturating_since(self.alpha_stamp) >= self.cfg.rtt_target)
        {
            if self.saw_ce {
                let delivered = ack.delivered.saturating_sub(self.round_delivered).max(1);
                let f = ((self.delivered_ce - self.round_ce) as f64 / delivered as f64).min(1.0);
                self.alpha = ((1.0 - self.cfg.g) * self.alpha + self.cfg.g * f).min(1.0);
                self.alpha_stamp = now;
            }
            self.new_round(ack);
        }
    }

    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, _in_flight: u32) {
        match kind {
            CongestionKind::Ecn => {
                // prague_enter_cwr: once RTT-independent, at most once per rtt_target.
                if self.rtt_independent() && self.cwr_stamp.is_some_and(|t| now.saturating_since(t) < self.cfg.rtt_target) {
                    return;
                }
                self.cwr_stamp = Some(now);
                self.frac -= self.alpha * self.frac / 2.0;
            }
            CongestionKind::Loss => {
                // prague_enter_loss.
                self.frac -= self.frac / 2.0;
                self.in_loss = true;
            }
        }
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.in_loss = false;
    }

    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        // CA_EVENT_LOSS → prague_enter_loss; the stack restarts from one segment.
        self.frac -= self.frac / 2.0;
        self.frac = self.frac.max(f64::from(MIN_CWND));
        self.cwnd = 1;
        self.in_loss = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receiver::ReceiverHook;

    fn ack(acked: u32, ace: u32, una: u32, nxt: u32, delivered: u64) -> AckInfo {
        AckInfo {
            acked,
            feedback: [(ace & 7) as u8, 0, 0, 0, 0, 0],
            snd_una: una,
            snd_nxt: nxt,
            delivered,
            cwnd_limited: true,
            srtt: Some(Dur::from_millis(100)),
            ..AckInfo::default()
        }
    }

    /// The ACE field counts CE packets modulo 8 from 5; the sender recovers each increment.
    #[test]
    fn accecn_counter_round_trips_through_the_ace_field() {
        let mut r = AccEcnReceiver::default();
        let mut p = Prague::new(PragueConfig::default());
        let mut total = 0;
        for i in 0..50u32 {
            let ecn = if i % 3 == 0 { Ecn::Ce } else { Ecn::Ect1 };
            r.on_data(Time::ZERO, &Packet::data(0, i, MTU, ecn, Time::ZERO));
            let fb = r.feedback(Time::ZERO);
            let a = AckInfo {
                feedback: fb,
                ..AckInfo::default()
            };
            total += p.ace_delta(&a);
        }
        assert_eq!(total, 17);
    }

    /// The first mark halves the window, then a CWR entry removes W·α/2 (here α = 1 by
    /// `alpha_init_one`, so half).
    #[test]
    fn first_mark_halves_then_cwr_removes_alpha_half() {
        let mut p = Prague::new(PragueConfig {
            initial_window: 40,
            ..PragueConfig::default()
        });
        p.on_ack(Time::ZERO, &ack(1, CEP_INIT + 1, 1, 41, 1));
        assert!((p.frac_window() - 20.0).abs() < 1e-9, "{}", p.frac_window());
        let mut q = Prague::new(PragueConfig {
            initial_window: 40,
            alpha_init_one: true,
            ..PragueConfig::default()
        });
        q.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 40);
        assert!((q.frac_window() - 20.0).abs() < 1e-9);
        // The socket window steps down one per ACK and sets ssthresh (ends slow start); the ACK
        // reports its segment CE, so it brings no growth.
        q.on_ack(Time::ZERO, &ack(1, CEP_INIT + 1, 1, 41, 1));
        assert!((q.frac_window() - 20.0).abs() < 1e-9, "α = 1 from the start: no extra halving");
        assert_eq!(q.window(), 39.0);
        assert_eq!(q.ssthresh(), Some(39.0));
    }

    /// Below rtt_target the additive increase is (srtt/target)² per window once RTT-independent.
    #[test]
    fn rtt_independence_scales_the_increase() {
        let mut p = Prague::new(PragueConfig::default());
        p.ssthresh = 10;
        p.round = RTT_TRANSITION;
        p.srtt = Some(Dur::from_millis(5));
        p.update_ai();
        assert!((p.ai - 0.04).abs() < 1e-12, "{}", p.ai);
        p.srtt = Some(Dur::from_millis(50));
        p.update_ai();
        assert_eq!(p.ai, 1.0);
    }
}
