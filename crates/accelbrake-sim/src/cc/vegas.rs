//! TCP Vegas as Linux implements it (`net/ipv4/tcp_vegas.c`, Brakmo & Peterson, IEEE JSAC 1995).
//!
//! Per ACK (`tcp_vegas_pkts_acked`): every RTT sample `vrtt = rtt_us + 1` (µs, "never allow zero
//! rtt or baseRTT") lowers `baseRTT` (minimum ever, reset only by a restart) and this round's
//! `minRTT`, and counts one sample (`cntRTT`).
//!
//! Once per RTT (`tcp_vegas_cong_avoid`, when the cumulative ACK passes `beg_snd_nxt`, the
//! `snd_nxt` at the start of the round), with at least 3 samples in the round (else Reno), in
//! integer arithmetic:
//! - `target = cwnd·baseRTT/minRTT`, `diff = cwnd·(minRTT − baseRTT)/baseRTT`;
//! - slow start and `diff > γ`: `cwnd = min(cwnd, target + 1)`, `ssthresh = min(ssthresh, cwnd)`;
//! - otherwise slow start: `tcp_slow_start`;
//! - congestion avoidance: `diff > β` → `cwnd − 1` (and `ssthresh = min(ssthresh, cwnd)`),
//!   `diff < α` → `cwnd + 1`, else hold;
//! - `cwnd ≥ 2`, then `ssthresh = max(ssthresh, ¾·cwnd)` (`tcp_current_ssthresh`).
//!
//! Between round ends the window only grows in slow start (`tcp_slow_start` per ACK).
//!
//! **Diff is divided by baseRTT**, as Linux does (`diff = snd_cwnd * (rtt - baseRTT) / baseRTT`).
//! The Vegas paper's Diff = (Expected − Actual)·baseRTT = `cwnd·(RTT − baseRTT)/RTT` divides by
//! the RTT; set `diff_by_rtt = 1` for that (see `shared/reference/algorithms.md` §9).
//!
//! Vegas runs only in the Open state (`tcp_vegas_state`): in fast recovery the window is held at
//! ssthresh (Linux does PRR there and never calls `cong_avoid`), after an RTO Reno slow start
//! runs (`tcp_reno_cong_avoid`), and the first ACK back outside recovery restarts Vegas with a
//! fresh round (`vegas_enable`). Loss and RTO reductions are Reno's (`.ssthresh =
//! tcp_reno_ssthresh`, `.undo_cwnd = tcp_reno_undo_cwnd`), computed as in [`super::newreno`].
//!
//! A transmission with nothing else in flight (`CA_EVENT_TX_START`, which Linux also raises for
//! the first retransmission after an RTO, when everything outstanding is marked lost) re-initialises
//! Vegas (`tcp_vegas_init`): `baseRTT` is forgotten and Vegas is switched on again.
//!
//! Deviations:
//! - Growth (slow start and the `+1`) needs `AckInfo::cwnd_limited`; Linux's Vegas branch grows
//!   even when the window is not used (only its Reno fallback checks `tcp_is_cwnd_limited`).
//! - `ssthresh = min(ssthresh, cwnd)` on slow-start exit and decrease is current Linux (since the
//!   slow-start test became `cwnd < ssthresh`); older kernels wrote `cwnd − 1` with a
//!   `cwnd <= ssthresh` test. Both leave slow start; the reported ssthresh differs by one.
//! - Linux's Disorder state (duplicate ACKs before recovery) also switches Vegas off; `AckInfo`
//!   does not show it, so only fast recovery / RTO recovery do here.
//! - An ECN echo (Linux CWR state for about one RTT) halves like a loss and restarts Vegas on
//!   the next ACK outside recovery (Vegas is not ECN-capable in the scenarios, so this is moot).
//! - Reductions use FlightSize (RFC 5681 eq. 4, as the transport reports it), not Linux's cwnd.
//! - RTT samples are truncated to whole µs (`rtt_us`) like Linux; the `+1` is kept.

use super::newreno::{INFINITE_SSTHRESH, INITIAL_WINDOW_PARAM, LOSS_WINDOW, MIN_SSTHRESH, reported_ssthresh, tcp_reno_cong_avoid, tcp_slow_start, tcp_undo_cwnd_reduction};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::error::{Error, Result};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// Lower bound of extra segments queued in the network (Linux `tcp_vegas.c` `alpha = 2`).
pub const ALPHA: u32 = 2;
/// Upper bound of extra segments queued (Linux `tcp_vegas.c` `beta = 4`).
pub const BETA: u32 = 4;
/// Slow-start exit threshold on diff (Linux `tcp_vegas.c` `gamma = 1`).
pub const GAMMA: u32 = 1;
/// Fewer RTT samples than this in a round: behave like Reno (Linux `cntRTT <= 2`).
pub const MIN_SAMPLES: u32 = 3;
/// Smallest window after a Vegas adjustment (Linux `if (tp->snd_cwnd < 2) tp->snd_cwnd = 2`).
pub const MIN_WINDOW: u32 = 2;
/// "No sample yet" for baseRTT / minRTT (Linux `0x7fffffff`).
const NO_RTT: u64 = 0x7fff_ffff;

/// Vegas parameters. (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct VegasConfig {
    /// `initial_window`: initial window in segments. Default 10 (RFC 6928, Linux).
    pub initial_window: u32,
    /// `alpha`: grow while diff < alpha (segments). Default 2 (Linux module parameter).
    pub alpha: u32,
    /// `beta`: shrink while diff > beta (segments), ≥ alpha. Default 4 (Linux).
    pub beta: u32,
    /// `gamma`: leave slow start when diff > gamma (segments). Default 1 (Linux).
    pub gamma: u32,
    /// `diff_by_rtt`: divide diff by the round's minRTT (Vegas paper) instead of baseRTT
    /// (Linux). Default off (0).
    pub diff_by_rtt: bool,
}

/// Largest accepted α/β/γ, segments (a sanity bound).
const MAX_DIFF: u64 = 1_000_000;

/// Vegas's parameters (keys `vegas.<name>`; Linux `tcp_vegas` module parameters).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::whole("alpha", ALPHA as u64, Unit::Segments, 0, MAX_DIFF).doc("grow while diff < alpha", "tcp_vegas.c alpha = 2"),
    Param::whole("beta", BETA as u64, Unit::Segments, 0, MAX_DIFF)
        .doc("shrink while diff > beta; at least alpha (left out: max(4, alpha))", "tcp_vegas.c beta = 4"),
    Param::whole("gamma", GAMMA as u64, Unit::Segments, 0, MAX_DIFF).doc("leave slow start when diff > gamma", "tcp_vegas.c gamma = 1"),
    Param::flag("diff_by_rtt", false)
        .doc("divide diff by the round's minimum RTT (Vegas paper) instead of baseRTT (Linux)", "Brakmo & Peterson 1995; Linux tcp_vegas.c"),
];

/// Vegas over drop-tail.
pub const VEGAS: Scheme = Scheme {
    name: "vegas",
    display: "Vegas",
    family: "vegas",
    summary: "Linux tcp_vegas (α 2, β 4, γ 1; diff divided by baseRTT)",
    source: "Brakmo & Peterson 1995; Linux net/ipv4/tcp_vegas.c",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#fc8d62", "h"),
    build: |v, now, _rng| Ok(Box::new(Vegas::new(VegasConfig::checked(v)?, now))),
    warnings: None,
};

crate::default_from_table!(VegasConfig);

impl Config for VegasConfig {
    const PREFIX: &'static str = "vegas";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> VegasConfig {
        let alpha = v.whole("alpha");
        // Left out, beta follows alpha up so that the hold band is never empty.
        let beta = if v.is_given("beta") {
            v.whole("beta")
        } else {
            v.whole("beta").max(alpha)
        };
        VegasConfig {
            initial_window: v.whole("initial_window"),
            alpha,
            beta,
            gamma: v.whole("gamma"),
            diff_by_rtt: v.flag("diff_by_rtt"),
        }
    }

    /// beta below alpha would make the hold band empty and diff in between ambiguous.
    fn check(&self) -> Result<()> {
        if self.beta >= self.alpha {
            Ok(())
        } else {
            Err(Error::Param {
                key: "vegas.beta".into(),
                msg: format!("got {}; expected a whole number of segments ≥ alpha ({})", self.beta, self.alpha),
            })
        }
    }
}

/// TCP Vegas (window in whole segments, like Linux `snd_cwnd`).
#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// Congestion window, segments.
    cwnd: u32,
    /// Reno congestion-avoidance credit (`snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// Slow-start threshold; [`INFINITE_SSTHRESH`] until the first reduction.
    ssthresh: u32,
    /// `doing_vegas_now`.
    doing_vegas: bool,
    /// `beg_snd_nxt`; `None` after a restart from idle, when the next ACK ends the round (it
    /// necessarily covers the segment whose transmission restarted Vegas).
    beg_snd_nxt: Option<u32>,
    /// `baseRTT`, µs + 1.
    base_rtt: u64,
    /// `minRTT` of the current round, µs + 1.
    min_rtt: u64,
    /// `cntRTT`: RTT samples in the current round.
    cnt_rtt: u32,
    /// The last ACK was outside recovery (Linux `TCP_CA_Open`).
    open: bool,
    /// In RTO loss recovery (Linux `TCP_CA_Loss`): Reno slow start although `in_recovery`.
    in_loss: bool,
    /// An RTO fired and no new data was ACKed since: a further RTO keeps ssthresh.
    rto_backoff: bool,
    /// Window and threshold before the last RTO, for undo.
    prior: (u32, u32),
}

/// Linux `after(a, b)`: sequence `a` is later than `b` (modulo 2³²).
fn after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

impl Vegas {
    /// A controller in slow start with Vegas on (`tcp_vegas_init`). `now` is unused (Vegas keeps
    /// no clock) and taken for a uniform constructor signature.
    pub fn new(cfg: VegasConfig, _now: Time) -> Vegas {
        Vegas {
            cwnd: cfg.initial_window.max(1),
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            doing_vegas: true,
            beg_snd_nxt: Some(0),
            base_rtt: NO_RTT,
            min_rtt: NO_RTT,
            cnt_rtt: 0,
            open: true,
            in_loss: false,
            rto_backoff: false,
            prior: (0, 0),
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &VegasConfig {
        &self.cfg
    }

    /// `cwnd < ssthresh` (Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Whether the Vegas adjustment is on (`doing_vegas_now`).
    pub fn doing_vegas(&self) -> bool {
        self.doing_vegas
    }

    /// baseRTT (including Linux's +1 µs), if any sample was taken since the last restart.
    pub fn base_rtt(&self) -> Option<Dur> {
        (self.base_rtt != NO_RTT).then(|| Dur::from_micros(self.base_rtt))
    }

    /// `vegas_enable`: start a fresh round at `snd_nxt`.
    fn enable(&mut self, snd_nxt: Option<u32>) {
        self.doing_vegas = true;
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
    }

    /// `tcp_reno_cong_avoid` (the cwnd-limited check is done by the caller).
    fn reno(&mut self, acked: u32) {
        tcp_reno_cong_avoid(&mut self.cwnd, &mut self.cwnd_cnt, self.ssthresh, acked);
    }

    /// The once-per-RTT Vegas adjustment with `cnt_rtt ≥ 3`.
    fn adjust(&mut self, acked: u32, cwnd_limited: bool) {
        let rtt = self.min_rtt.max(1);
        let base = self.base_rtt.max(1);
        let cwnd = u64::from(self.cwnd);
        // target_cwnd = snd_cwnd * baseRTT / rtt.
        let target = cwnd.saturating_mul(base) / rtt;
        // diff = snd_cwnd * (rtt - baseRTT) / baseRTT (Linux); the paper divides by rtt.
        let divisor = if self.cfg.diff_by_rtt { rtt } else { base };
        let diff = cwnd.saturating_mul(rtt.saturating_sub(base)) / divisor;
        if diff > u64::from(self.cfg.gamma) && self.in_slow_start() {
            // "Set cwnd to match the actual rate exactly ... Then we add 1."
            let t = u32::try_from(target.saturating_add(1)).unwrap_or(u32::MAX);
            self.cwnd = self.cwnd.min(t);
            self.ssthresh = self.ssthresh.min(self.cwnd);
        } else if self.in_slow_start() {
            if cwnd_limited {
                tcp_slow_start(&mut self.cwnd, self.ssthresh, acked);
            }
        } else if diff > u64::from(self.cfg.beta) {
            self.cwnd = self.cwnd.saturating_sub(1);
            self.ssthresh = self.ssthresh.min(self.cwnd);
        } else if diff < u64::from(self.cfg.alpha) && cwnd_limited {
            self.cwnd = self.cwnd.saturating_add(1);
        }
        self.cwnd = self.cwnd.max(MIN_WINDOW);
        // tcp_current_ssthresh outside CWR/Recovery: max(ssthresh, (cwnd >> 1) + (cwnd >> 2)).
        self.ssthresh = self.ssthresh.max((self.cwnd >> 1) + (self.cwnd >> 2));
    }

    /// `max(FlightSize / 2, 2)` (RFC 5681 eq. 4; Linux `tcp_reno_ssthresh` uses cwnd).
    fn reduced(flight: u32) -> u32 {
        (flight / 2).max(MIN_SSTHRESH)
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    /// `CA_EVENT_TX_START`: sending with nothing else in flight re-initialises Vegas.
    fn on_sent(&mut self, _now: Time, in_flight: u32) {
        if in_flight <= 1 {
            self.base_rtt = NO_RTT;
            self.enable(None);
        }
    }

    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if ack.acked == 0 {
            return;
        }
        self.rto_backoff = false;
        // tcp_vegas_pkts_acked (runs before the state change and cong_avoid in tcp_ack).
        if let Some(rtt) = ack.rtt {
            let vrtt = (rtt.nanos() / 1_000).saturating_add(1);
            self.base_rtt = self.base_rtt.min(vrtt);
            self.min_rtt = self.min_rtt.min(vrtt);
            self.cnt_rtt = self.cnt_rtt.saturating_add(1);
        }
        // tcp_vegas_state: back to Open → vegas_enable.
        if ack.in_recovery {
            self.open = false;
        } else if !self.open {
            self.open = true;
            self.in_loss = false;
            self.enable(Some(ack.snd_nxt));
        }
        // Fast recovery: Linux reduces by PRR and never calls cong_avoid; the window stays put.
        if ack.in_recovery && !self.in_loss {
            return;
        }
        if !self.doing_vegas {
            if ack.cwnd_limited {
                self.reno(ack.acked);
            }
            return;
        }
        let round_end = self.beg_snd_nxt.is_none_or(|beg| after(ack.snd_una, beg));
        if round_end {
            self.beg_snd_nxt = Some(ack.snd_nxt);
            if self.cnt_rtt < MIN_SAMPLES {
                if ack.cwnd_limited {
                    self.reno(ack.acked);
                }
            } else {
                self.adjust(ack.acked, ack.cwnd_limited);
            }
            self.cnt_rtt = 0;
            self.min_rtt = NO_RTT;
        } else if self.in_slow_start() && ack.cwnd_limited {
            tcp_slow_start(&mut self.cwnd, self.ssthresh, ack.acked);
        }
    }

    fn on_congestion_event(&mut self, _now: Time, _kind: CongestionKind, in_flight: u32) {
        // tcp_reno_ssthresh; the state leaves Open (Recovery or CWR) → vegas_disable.
        self.ssthresh = Self::reduced(in_flight);
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
        self.in_loss = false;
        self.open = false;
        self.doing_vegas = false;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        // The next ACK (outside recovery) re-enables Vegas with its snd_nxt.
        self.in_loss = false;
    }

    fn on_rto(&mut self, _now: Time, in_flight: u32) {
        // tcp_enter_loss: ssthresh once per episode, cwnd = 1, state Loss → vegas_disable.
        if !self.rto_backoff {
            self.prior = (self.cwnd, self.ssthresh);
            self.ssthresh = Self::reduced(in_flight);
        }
        self.cwnd = LOSS_WINDOW;
        self.cwnd_cnt = 0;
        self.in_loss = true;
        self.rto_backoff = true;
        self.open = false;
        self.doing_vegas = false;
    }

    /// `tcp_reno_undo_cwnd` and `prior_ssthresh`; the state returns to Open on the next ACK.
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
    use crate::error::Error;

    const BASE: u64 = 100;

    fn vegas() -> Vegas {
        Vegas::new(VegasConfig::default(), Time::ZERO)
    }

    /// One ACK of one segment with RTT `rtt_ms`, leaving `una`/`nxt` as the sequence state.
    fn ack(una: u32, nxt: u32, rtt_ms: u64) -> AckInfo {
        AckInfo {
            acked: 1,
            rtt: Some(Dur::from_millis(rtt_ms)),
            cwnd_limited: true,
            snd_una: una,
            snd_nxt: nxt,
            ..AckInfo::default()
        }
    }

    /// Drive whole rounds: ACK every segment of the current flight one by one, refilling the
    /// window after each ACK, with RTT samples cycling through `rtts`. Returns the window after
    /// the round-ending ACK of each round (the first ACK beyond the round's `beg_snd_nxt`).
    struct Conn {
        una: u32,
        nxt: u32,
    }

    impl Conn {
        fn new(cc: &mut Vegas) -> Conn {
            let mut c = Conn { una: 0, nxt: 0 };
            c.fill(cc);
            c
        }

        fn fill(&mut self, cc: &mut Vegas) {
            while self.nxt - self.una < cc.cwnd {
                self.nxt += 1;
                cc.on_sent(Time::ZERO, self.nxt - self.una);
            }
        }

        /// ACK segments until the ACK that ends the current Vegas round has been processed; RTT
        /// samples are `rtt_ms[i]` for the i-th ACK (the last value repeats).
        fn round(&mut self, cc: &mut Vegas, rtt_ms: &[u64]) -> u32 {
            let beg = cc.beg_snd_nxt;
            let mut i = 0;
            loop {
                self.una += 1;
                let rtt = rtt_ms[i.min(rtt_ms.len() - 1)];
                i += 1;
                cc.on_ack(Time::ZERO, &ack(self.una, self.nxt, rtt));
                let ended = beg.is_none_or(|b| after(self.una, b));
                self.fill(cc);
                if ended {
                    return cc.cwnd;
                }
            }
        }
    }

    #[test]
    fn slow_start_doubles_while_diff_is_within_gamma() {
        let mut cc = vegas();
        let mut c = Conn::new(&mut cc);
        // The first transmission restarted Vegas: the first ACK ends round 0 with one sample,
        // so Reno slow start: 10 → 11.
        assert_eq!(c.round(&mut cc, &[BASE]), 11);
        // Round 1: segments 10..=20 sent, 9 ACKs of round 0's flight grow cwnd to 20, and the
        // ACK of segment 10 ends the round with 10 samples, diff = 0 → tcp_slow_start → 21.
        assert_eq!(c.round(&mut cc, &[BASE]), 21);
        assert!(cc.in_slow_start());
        assert_eq!(cc.base_rtt(), Some(Dur::from_micros(100_001)));
    }

    #[test]
    fn slow_start_exit_sets_cwnd_to_the_actual_rate_plus_one() {
        let mut cc = vegas();
        let mut c = Conn::new(&mut cc);
        c.round(&mut cc, &[BASE]);
        // Round 1 ends at cwnd 21 (above). Round 2 sees minRTT 150 ms:
        assert_eq!(c.round(&mut cc, &[BASE]), 21);
        // Round 2 began at beg_snd_nxt = 30 with segment 11 the lowest unACKed: the ACKs of
        // segments 11..=29 (19) grow cwnd 21 → 40 by slow start, then the ACK of segment 30 ends
        // the round (20 samples, minRTT 150.001 ms, baseRTT 100.001 ms):
        //   diff   = 40·50000/100001 = 19 (19.9998) > γ = 1
        //   target = 40·100001/150001 = 26 (26.67), cwnd = min(40, 26 + 1) = 27,
        //   ssthresh = min(∞, 27) = 27 (then max(27, 13 + 6) = 27).
        assert_eq!(c.round(&mut cc, &[150]), 27);
        assert_eq!(cc.ssthresh(), Some(27.0));
        assert!(!cc.in_slow_start());
    }

    /// A connection in congestion avoidance: baseRTT learnt at 100 ms, cwnd and ssthresh set.
    fn in_avoidance(cfg: VegasConfig, cwnd: u32) -> (Vegas, Conn) {
        let mut cc = Vegas::new(cfg, Time::ZERO);
        let mut c = Conn::new(&mut cc);
        c.round(&mut cc, &[BASE]);
        cc.cwnd = cwnd;
        cc.ssthresh = 10;
        c.fill(&mut cc);
        (cc, c)
    }

    #[test]
    fn avoidance_adds_holds_and_removes_one_segment_per_round() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 20);
        // Finish the round that was running when the window was set (its samples are at BASE:
        // diff 0 < α → +1); ssthresh = max(10, (21>>1) + (21>>2)) = 15 (tcp_current_ssthresh).
        assert_eq!(c.round(&mut cc, &[BASE]), 21);
        assert_eq!(cc.ssthresh(), Some(15.0));
        // minRTT 105 ms: diff = 21·5000/100001 = 1 < α = 2 → 22; ssthresh max(15, 11 + 5) = 16.
        assert_eq!(c.round(&mut cc, &[110, 105, 120]), 22);
        assert_eq!(cc.ssthresh(), Some(16.0));
        // minRTT 112 ms: diff = 22·12000/100001 = 2 → hold.
        assert_eq!(c.round(&mut cc, &[112]), 22);
        // minRTT 120 ms: diff = 22·20000/100001 = 4 = β → hold.
        assert_eq!(c.round(&mut cc, &[120]), 22);
        // minRTT 125 ms: diff = 22·25000/100001 = 5 > β → 21; ssthresh = max(min(16, 21), 15).
        assert_eq!(c.round(&mut cc, &[125]), 21);
        assert_eq!(cc.ssthresh(), Some(16.0));
        // No change between round ends in congestion avoidance.
        let before = cc.cwnd;
        c.una += 1;
        cc.on_ack(Time::ZERO, &ack(c.una, c.nxt, 300));
        assert_eq!(cc.cwnd, before);
    }

    #[test]
    fn diff_divides_by_base_rtt_like_linux_or_by_rtt_like_the_paper() {
        // cwnd 30, baseRTT 100.001 ms, minRTT 120.001 ms:
        //   Linux: 30·20000/100001 = 5 (5.9999) > β = 4 → 29.
        //   Paper: 30·20000/120001 = 4 (4.9999) → hold at 30.
        let (mut linux, mut c) = in_avoidance(VegasConfig::default(), 30);
        assert_eq!(c.round(&mut linux, &[120]), 29);
        let paper_cfg = VegasConfig {
            diff_by_rtt: true,
            ..VegasConfig::default()
        };
        let (mut paper, mut c) = in_avoidance(paper_cfg, 30);
        assert_eq!(c.round(&mut paper, &[120]), 30);
    }

    #[test]
    fn fewer_than_three_samples_falls_back_to_reno() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 20);
        c.round(&mut cc, &[BASE]);
        assert_eq!(cc.cwnd, 21);
        // A round whose ACKs mostly carry no RTT sample: only the last two do. diff would be 0
        // (Vegas: +1), but with 2 samples Reno's AI runs on the round-ending ACK only: credit
        // 1 of 21, no growth.
        let beg = cc.beg_snd_nxt.unwrap();
        while c.una + 1 < beg {
            c.una += 1;
            cc.on_ack(
                Time::ZERO,
                &AckInfo {
                    rtt: None,
                    ..ack(c.una, c.nxt, 0)
                },
            );
        }
        c.una += 1;
        cc.on_ack(Time::ZERO, &ack(c.una, c.nxt, BASE));
        assert_eq!(cc.cnt_rtt, 1);
        c.una += 1;
        cc.on_ack(Time::ZERO, &ack(c.una, c.nxt, BASE));
        assert_eq!((cc.cwnd, cc.cwnd_cnt, cc.cnt_rtt), (21, 1, 0));
    }

    #[test]
    fn loss_halves_flight_and_vegas_restarts_after_recovery() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 30);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 30);
        assert_eq!((cc.cwnd, cc.ssthresh()), (15, Some(15.0)));
        assert!(!cc.doing_vegas());
        // ACKs during fast recovery leave the window alone.
        for _ in 0..5 {
            c.una += 1;
            cc.on_ack(
                Time::ZERO,
                &AckInfo {
                    in_recovery: true,
                    ..ack(c.una, c.nxt, BASE)
                },
            );
        }
        assert_eq!(cc.cwnd, 15);
        cc.on_recovery_exit(Time::ZERO);
        c.una += 1;
        cc.on_ack(Time::ZERO, &ack(c.una, c.nxt + 7, BASE));
        assert!(cc.doing_vegas());
        assert_eq!((cc.beg_snd_nxt, cc.cnt_rtt), (Some(c.nxt + 7), 0));
        assert_eq!(cc.cwnd, 15);
        assert_eq!(
            cc.base_rtt(),
            Some(Dur::from_micros(100_001)),
            "baseRTT survives recovery"
        );
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 3);
        assert_eq!(cc.cwnd, 2, "never below 2 segments");
    }

    #[test]
    fn rto_sets_one_segment_then_reno_slow_start_and_forgets_base_rtt() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 30);
        cc.on_rto(Time::ZERO, 30);
        assert_eq!((cc.cwnd, cc.ssthresh()), (1, Some(15.0)));
        cc.on_rto(Time::ZERO, 30);
        assert_eq!(cc.ssthresh(), Some(15.0), "repeated RTO keeps ssthresh");
        // The retransmission goes out with nothing else in flight: tcp_vegas_init.
        cc.on_sent(Time::ZERO, 1);
        assert_eq!(cc.base_rtt(), None);
        assert!(cc.doing_vegas());
        // The first ACK ends the restarted round with one sample: Reno slow start 1 → 2, and
        // the new baseRTT is the post-RTO sample.
        c.una += 1;
        cc.on_ack(
            Time::ZERO,
            &AckInfo {
                in_recovery: true,
                ..ack(c.una, c.nxt, 130)
            },
        );
        assert_eq!(cc.cwnd, 2);
        assert_eq!(cc.base_rtt(), Some(Dur::from_micros(130_001)));
        // Spurious RTO: undo to the prior window.
        cc.on_spurious_rto(Time::ZERO);
        assert_eq!((cc.cwnd, cc.ssthresh()), (30, Some(15.0)));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut cc = vegas();
        let mut c = Conn::new(&mut cc);
        for _ in 0..10 {
            c.una += 1;
            cc.on_ack(
                Time::ZERO,
                &AckInfo {
                    cwnd_limited: false,
                    ..ack(c.una, c.nxt, BASE)
                },
            );
        }
        assert_eq!(cc.cwnd, 10);
    }

    #[test]
    fn sequence_comparison_wraps() {
        assert!(after(5, u32::MAX - 2));
        assert!(!after(u32::MAX - 2, 5));
        assert!(!after(7, 7));
    }

    #[test]
    fn parameters_are_validated_and_named() {
        let mut p = Params::from([("alpha".into(), 3.0), ("beta".into(), 6.0), ("diff_by_rtt".into(), 1.0)]);
        let cfg = VegasConfig::from_params(&mut p).unwrap();
        assert_eq!((cfg.alpha, cfg.beta, cfg.gamma, cfg.diff_by_rtt), (3, 6, 1, true));
        assert!(p.is_empty());
        for (k, v) in [
            ("alpha", 1.5),
            ("beta", -1.0),
            ("gamma", f64::NAN),
            ("initial_window", 0.0),
            ("diff_by_rtt", 2.0),
        ] {
            let mut p = Params::from([(k.to_string(), v)]);
            match VegasConfig::from_params(&mut p) {
                Err(Error::Param { key, msg }) => {
                    assert_eq!(key, format!("vegas.{k}"));
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("{k} = {v} accepted: {other:?}"),
            }
        }
        let mut p = Params::from([("alpha".into(), 5.0), ("beta".into(), 4.0)]);
        let err = VegasConfig::from_params(&mut p).unwrap_err();
        assert!(matches!(err, Error::Param { key, .. } if key == "vegas.beta"));
        let mut p = Params::from([("alpha".into(), 6.0)]);
        assert_eq!(
            VegasConfig::from_params(&mut p).unwrap().beta,
            6,
            "beta defaults to max(4, alpha)"
        );
        let cc = Vegas::new(VegasConfig::default(), Time::ZERO);
        assert_eq!((cc.name(), cc.window(), cc.metrics().ssthresh), ("vegas", 10.0, None));
    }

    /// Linux `tcp_vegas_cong_avoid` leaves slow start only when diff > γ: at diff = γ = 1 the
    /// window keeps doubling.
    #[test]
    fn slow_start_continues_at_diff_equal_to_gamma() {
        // α and β do not act in slow start; non-default values tell `config()` apart.
        let cfg = VegasConfig {
            alpha: 3,
            beta: 6,
            ..VegasConfig::default()
        };
        let mut cc = Vegas::new(cfg.clone(), Time::ZERO);
        assert_eq!(cc.config(), &cfg);
        let mut c = Conn::new(&mut cc);
        assert_eq!(c.round(&mut cc, &[BASE]), 11);
        // Round 1 ends at cwnd 20 with minRTT 106.001 ms: diff = 20·6000/100001 = 1 (1.19998)
        // = γ → tcp_slow_start → 21 (diff > γ would set min(20, 20·100001/106001 + 1) = 19).
        assert_eq!(c.round(&mut cc, &[106]), 21);
        assert!(cc.in_slow_start());
        assert_eq!(cc.ssthresh(), None);
    }

    /// Linux runs the Vegas adjustment with `cntRTT > 2`: a round with exactly 3 samples is
    /// Vegas (diff 0 < α → +1), not Reno (which would add credit 1 of 21).
    #[test]
    fn three_samples_are_enough_for_vegas() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 20);
        assert_eq!(c.round(&mut cc, &[BASE]), 21);
        let beg = cc.beg_snd_nxt.unwrap();
        while c.una + 2 < beg {
            c.una += 1;
            cc.on_ack(
                Time::ZERO,
                &AckInfo {
                    rtt: None,
                    ..ack(c.una, c.nxt, 0)
                },
            );
        }
        for _ in 0..3 {
            c.una += 1;
            cc.on_ack(Time::ZERO, &ack(c.una, c.nxt, BASE));
        }
        assert_eq!((cc.cwnd, cc.cwnd_cnt, cc.cnt_rtt), (22, 0, 0));
    }

    /// The end of RTO recovery (Linux leaving `TCP_CA_Loss`) ends the exception that lets Reno
    /// slow start run while the transport reports `in_recovery`.
    #[test]
    fn recovery_exit_ends_rto_recovery() {
        let (mut cc, mut c) = in_avoidance(VegasConfig::default(), 30);
        cc.on_rto(Time::ZERO, 30);
        let mut in_recovery = |cc: &mut Vegas| {
            c.una += 1;
            cc.on_ack(
                Time::ZERO,
                &AckInfo {
                    in_recovery: true,
                    ..ack(c.una, c.nxt, BASE)
                },
            );
            cc.cwnd
        };
        assert_eq!(in_recovery(&mut cc), 2, "Reno slow start in RTO recovery");
        cc.on_recovery_exit(Time::ZERO);
        assert_eq!(in_recovery(&mut cc), 2, "held once RTO recovery is over");
    }
}
