//! NewReno: RFC 5681 slow start and congestion avoidance with RFC 3465 byte counting, computed the
//! way Linux `tcp_reno_cong_avoid` does it (integer window, `snd_cwnd_cnt` credit counter).
//!
//! Sources:
//! - RFC 5681 §3.1: slow start while `cwnd < ssthresh`, congestion avoidance of about one segment
//!   per window of ACKs, eq. 4 `ssthresh = max(FlightSize / 2, 2 * SMSS)` on loss, loss window
//!   of one segment after a retransmission timeout, ssthresh held constant on repeated timeouts.
//! - RFC 6582 (NewReno fast recovery) and RFC 6675 (SACK recovery) are run by the transport; during
//!   recovery the window is held at ssthresh and the transport keeps `pipe < cwnd`.
//! - RFC 3465: `AckInfo::acked` counts newly delivered segments, not ACKs.
//! - RFC 6928: initial window of 10 segments.
//! - Linux `net/ipv4/tcp_cong.c`: [`tcp_slow_start`], [`tcp_cong_avoid_ai`], `tcp_reno_cong_avoid`.
//! - RFC 8511 (ABE) is why ECN has its own multiplicative decrease `beta_ecn` (equal to `beta`
//!   until ABE is enabled).
//!
//! After an RTO the connection is in RFC 5681 loss recovery (Linux `TCP_CA_Loss`), which is not a
//! window-reduction state: the window slow-starts from one segment even though
//! `AckInfo::in_recovery` is set. Only fast recovery (after [`CongestionKind::Loss`]) holds it.

use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::time::Time;

/// Initial window in segments (RFC 6928; Linux `TCP_INIT_CWND`).
pub const INITIAL_WINDOW: u32 = 10;
/// Window after a retransmission timeout: the loss window of one segment (RFC 5681 §3.1).
pub const LOSS_WINDOW: u32 = 1;
/// Smallest slow-start threshold after a reduction, in segments (RFC 5681 eq. 4: `2 * SMSS`;
/// Linux `tcp_reno_ssthresh` `max(cwnd >> 1, 2U)`).
pub const MIN_SSTHRESH: u32 = 2;
/// Multiplicative decrease on loss (RFC 5681 eq. 4: FlightSize / 2).
pub const BETA: f64 = 0.5;
/// Multiplicative decrease on an ECN mark (RFC 3168 §6.1.2: react as to a loss; RFC 8511 ABE
/// would raise it, e.g. to 0.8).
pub const BETA_ECN: f64 = 0.5;
/// An infinite slow-start threshold (initial value; Linux uses `TCP_INFINITE_SSTHRESH`).
pub const INFINITE_SSTHRESH: u32 = u32::MAX;
/// Largest accepted initial window, in segments (a sanity bound, not from a standard).
pub(crate) const MAX_INITIAL_WINDOW: u32 = 1_000_000;

/// Linux `tcp_slow_start` (tcp_cong.c): grow `cwnd` by `acked` but not past `ssthresh`; return the
/// ACKed segments left over for congestion avoidance. Does nothing if `cwnd >= ssthresh`.
pub fn tcp_slow_start(cwnd: &mut u32, ssthresh: u32, acked: u32) -> u32 {
    if *cwnd >= ssthresh {
        return acked;
    }
    let grown = cwnd.saturating_add(acked).min(ssthresh);
    let used = grown - *cwnd;
    *cwnd = grown;
    acked - used
}

/// Linux `tcp_cong_avoid_ai` (tcp_cong.c): additive increase of one segment per `w` segments
/// ACKed, with the credit counter `cwnd_cnt` (`snd_cwnd_cnt`). A `w` of zero is treated as one.
pub fn tcp_cong_avoid_ai(cwnd: &mut u32, cwnd_cnt: &mut u32, w: u32, acked: u32) {
    let w = w.max(1);
    // "If credits accumulated at a higher w, apply them gently now."
    if *cwnd_cnt >= w {
        *cwnd_cnt = 0;
        *cwnd = cwnd.saturating_add(1);
    }
    *cwnd_cnt = cwnd_cnt.saturating_add(acked);
    if *cwnd_cnt >= w {
        let delta = *cwnd_cnt / w;
        *cwnd_cnt -= delta * w;
        *cwnd = cwnd.saturating_add(delta);
    }
}

/// Linux `tcp_reno_cong_avoid` (tcp_cong.c) once the cwnd-limited and recovery checks have
/// passed: slow start ([`tcp_slow_start`]) while `cwnd < ssthresh`, then additive increase of one
/// segment per window of ACKed segments ([`tcp_cong_avoid_ai`] with `w = cwnd`) for what is left.
pub fn tcp_reno_cong_avoid(cwnd: &mut u32, cwnd_cnt: &mut u32, ssthresh: u32, acked: u32) {
    let mut acked = acked;
    if *cwnd < ssthresh {
        acked = tcp_slow_start(cwnd, ssthresh, acked);
        if acked == 0 {
            return;
        }
    }
    let w = *cwnd;
    tcp_cong_avoid_ai(cwnd, cwnd_cnt, w, acked);
}

/// Linux `tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd` (which Cubic uses too), after a
/// spurious RTO: `cwnd = max(cwnd, prior_cwnd)`, `ssthresh = max(ssthresh, prior_ssthresh)`.
pub fn tcp_undo_cwnd_reduction(cwnd: &mut u32, ssthresh: &mut u32, prior: (u32, u32)) {
    let (prior_cwnd, prior_ssthresh) = prior;
    *cwnd = (*cwnd).max(prior_cwnd);
    *ssthresh = (*ssthresh).max(prior_ssthresh);
}

/// A Reno-family slow-start threshold as reported by [`CongestionControl::ssthresh`]: `None`
/// while it is still [`INFINITE_SSTHRESH`].
pub fn reported_ssthresh(ssthresh: u32) -> Option<f64> {
    (ssthresh != INFINITE_SSTHRESH).then_some(f64::from(ssthresh))
}

/// The Reno family's initial window, a whole number of segments (RFC 6928: 10).
pub(crate) const INITIAL_WINDOW_PARAM: Param = Param::whole("initial_window", INITIAL_WINDOW as u64, Unit::Segments, 1, MAX_INITIAL_WINDOW as u64)
    .doc("initial window", "RFC 6928 (Linux TCP_INIT_CWND)");

/// ABE's slow-start reading, shared by NewReno and Cubic.
pub(crate) const ABE_SLOW_START_PARAM: Param = Param::flag("abe_slow_start", true).doc(
    "answer an ECN mark that ends slow start with beta_ecn (off: with beta, like a loss)",
    "ABE paper (Khademi et al., CoNEXT 2017); RFC 8511 leaves it open",
);

/// NewReno's parameters (keys `newreno.<name>`).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("beta", BETA, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("multiplicative decrease on loss and RTO: ssthresh = max(beta·FlightSize, 2)", "RFC 5681 eq. 4"),
    Param::real("beta_ecn", BETA_ECN, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("multiplicative decrease on an ECN congestion event (ABE: 0.8)", "RFC 3168 §6.1.2; RFC 8511 §3.1"),
    ABE_SLOW_START_PARAM,
    super::RACK_PARAM,
    super::LINUX_RTO_PARAM,
    super::ECN_CWR_PARAM,
    Param::whole("initial_ssthresh", 0, Unit::Segments, MIN_SSTHRESH as u64, INFINITE_SSTHRESH as u64 - 1)
        .unset()
        .doc(
            "slow-start threshold at the start (unset: infinite, slow start until the first loss)",
            "RFC 5681 §3.1 (\"arbitrarily high\", may be reduced); Linux route metric ssthresh; ns-3 InitialSlowStartThreshold",
        ),
];

/// NewReno over drop-tail (RFC 5681 / RFC 6582).
pub const NEWRENO: Scheme = Scheme {
    name: "newreno",
    display: "NewReno",
    family: "newreno",
    summary: "RFC 5681 slow start and congestion avoidance, halving on loss",
    source: "RFC 5681, RFC 6582, Linux tcp_cong.c",
    marking: Marking::None,
    queue: "droptail",
    pairs: &["codel", "pie"],
    params: &[PARAMS],
    preset: &[],
    style: ("#17becf", "o"),
    build: |v, _now, _rng| Ok(Box::new(NewReno::new(NewRenoConfig::checked(v)?))),
    warnings: None,
};

/// NewReno with ABE (RFC 8511): ECN on, an ECN echo reduces the window by β_ecn = 0.8.
pub const NEWRENO_ABE: Scheme = Scheme {
    name: "newreno-abe",
    display: "NewReno-ABE",
    summary: "ABE (RFC 8511): ECN on, β_ecn = 0.8 on an ECN echo",
    source: "RFC 8511 §3.1",
    marking: Marking::Ecn,
    queue: "codel",
    pairs: &["pie"],
    preset: &[("beta_ecn", 0.8)],
    style: ("#8c6d31", "v"),
    ..NEWRENO
};

/// NewReno parameters (see [`PARAMS`] for ranges, defaults and sources).
#[derive(Clone, Debug, PartialEq)]
pub struct NewRenoConfig {
    /// `initial_window`: initial window in segments.
    pub initial_window: u32,
    /// `beta`: multiplicative decrease on loss and RTO, `ssthresh = max(beta * FlightSize, 2)`.
    pub beta: f64,
    /// `beta_ecn`: multiplicative decrease on an ECN congestion event.
    pub beta_ecn: f64,
    /// `abe_slow_start`: use `beta_ecn` also when an ECN mark ends slow start (the ABE paper's
    /// reading, default on); off = RFC 8511 authors' reading: a mark during slow start is answered
    /// with `beta` like a loss.
    pub abe_slow_start: bool,
    /// `linux_rto`: the transport computes its RTO as Linux does
    /// ([`CongestionControl::computes_rto_as_linux`]); off: RFC 6298.
    pub linux_rto: bool,
    /// `rack`: the transport detects lost retransmissions and marks losses on an RTO as Linux's
    /// RACK does ([`CongestionControl::detects_lost_retransmissions`]); off: RFC 6675 alone.
    pub rack: bool,
    /// `ecn_cwr`: the transport answers an ECN echo with Linux's CWR state and PRR
    /// ([`CongestionControl::reduces_ecn_as_linux`]); off: the reduced window at once (as
    /// FreeBSD's NewReno, which also holds the window until the round ends).
    pub ecn_cwr: bool,
    /// `initial_ssthresh`: the slow-start threshold at the start, segments; `None` = infinite
    /// (RFC 5681's "arbitrarily high", Linux's default). A path whose capacity is known can be
    /// given it to end slow start without an overshoot (as in the side-by-side with htsim,
    /// whose TCP starts with a finite threshold).
    pub initial_ssthresh: Option<u32>,
}

crate::default_from_table!(NewRenoConfig);

impl Config for NewRenoConfig {
    const PREFIX: &'static str = "newreno";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> NewRenoConfig {
        NewRenoConfig {
            initial_window: v.whole("initial_window"),
            beta: v.real("beta"),
            beta_ecn: v.real("beta_ecn"),
            abe_slow_start: v.flag("abe_slow_start"),
            linux_rto: v.flag("linux_rto"),
            rack: v.flag("rack"),
            ecn_cwr: v.flag("ecn_cwr"),
            initial_ssthresh: v.opt_whole("initial_ssthresh").map(|n| n as u32),
        }
    }
}

/// NewReno congestion controller (window in whole segments, like Linux `snd_cwnd`).
#[derive(Clone, Debug)]
pub struct NewReno {
    /// Parameters.
    cfg: NewRenoConfig,
    /// Congestion window, segments.
    cwnd: u32,
    /// Congestion-avoidance credit: segments ACKed since the last increase (`snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// Slow-start threshold, segments; [`INFINITE_SSTHRESH`] until the first reduction.
    ssthresh: u32,
    /// In RTO loss recovery (Linux `TCP_CA_Loss`): the window may grow although the transport
    /// reports `in_recovery`.
    in_loss: bool,
    /// An RTO fired and no new data has been ACKed since: a further RTO keeps ssthresh.
    rto_backoff: bool,
    /// Window and threshold before the last RTO, for undo (Linux `prior_cwnd`, `prior_ssthresh`).
    prior: (u32, u32),
}

impl NewReno {
    /// A controller in slow start with the configured initial window and ssthresh (infinite
    /// unless `initial_ssthresh` is given).
    pub fn new(cfg: NewRenoConfig) -> NewReno {
        NewReno {
            cwnd: cfg.initial_window.max(1),
            cwnd_cnt: 0,
            ssthresh: cfg.initial_ssthresh.unwrap_or(INFINITE_SSTHRESH),
            in_loss: false,
            rto_backoff: false,
            prior: (0, 0),
            cfg,
        }
    }

    /// The parameters in use.
    pub fn config(&self) -> &NewRenoConfig {
        &self.cfg
    }

    /// Whether the window is below ssthresh (Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// `max(floor(beta * flight), 2)` (RFC 5681 eq. 4 generalised to any beta).
    fn reduced(beta: f64, flight: u32) -> u32 {
        ((beta * f64::from(flight)).floor() as u32).max(MIN_SSTHRESH)
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    fn computes_rto_as_linux(&self) -> bool {
        self.cfg.linux_rto
    }

    fn detects_lost_retransmissions(&self) -> bool {
        self.cfg.rack
    }

    /// `newreno.ecn_cwr` (default on): Linux's CWR + PRR answer to an ECN echo.
    fn reduces_ecn_as_linux(&self) -> bool {
        self.cfg.ecn_cwr
    }

    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if ack.acked == 0 {
            return;
        }
        self.rto_backoff = false;
        // Linux tcp_is_cwnd_limited; fast recovery holds the window (RFC 6675).
        if !ack.cwnd_limited || (ack.in_recovery && !self.in_loss) {
            return;
        }
        tcp_reno_cong_avoid(&mut self.cwnd, &mut self.cwnd_cnt, self.ssthresh, ack.acked);
    }

    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, in_flight: u32) {
        // ABE (RFC 8511 §3): ECN echo → cwnd = max(beta_ecn · FlightSize, 2).
        let in_slow_start = self.cwnd < self.ssthresh;
        let beta = match kind {
            CongestionKind::Loss => self.cfg.beta,
            CongestionKind::Ecn if in_slow_start && !self.cfg.abe_slow_start => self.cfg.beta,
            CongestionKind::Ecn => self.cfg.beta_ecn,
        };
        self.ssthresh = Self::reduced(beta, in_flight);
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
        self.in_loss = false;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.in_loss = false;
    }

    fn on_rto(&mut self, _now: Time, in_flight: u32) {
        if !self.rto_backoff {
            self.prior = (self.cwnd, self.ssthresh);
        }
        // RFC 5681 §3.1: ssthresh is held constant when the timer fires again for the same data.
        if !self.rto_backoff {
            self.ssthresh = Self::reduced(self.cfg.beta, in_flight);
        }
        self.cwnd = LOSS_WINDOW;
        self.cwnd_cnt = 0;
        self.in_loss = true;
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
pub(crate) mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::error::Error;
    use crate::packet::Echo;
    use crate::time::Dur;

    /// An ACK for `acked` segments with RTT (and minimum RTT) `rtt`, cwnd-limited, nothing left
    /// in flight, outside recovery.
    pub(crate) fn stretch_ack(acked: u32, rtt: Dur) -> AckInfo {
        AckInfo {
            acked,
            echo: Echo::None,
            rtt: Some(rtt),
            min_rtt: Some(rtt),
            srtt: Some(rtt),
            in_flight: 0,
            cwnd_limited: true,
            in_recovery: false,
            ..AckInfo::default()
        }
    }

    /// A fluid ACK clock shared with the Cubic tests: every round trip, each segment sent in the
    /// previous round is ACKed individually (spread evenly over `spread * rtt` from the start of
    /// the round) and the sender refills the window after each ACK.
    pub(crate) struct Flow {
        /// Current time.
        pub now: Time,
        /// Segments outstanding.
        pub pipe: u32,
        /// Smallest RTT seen.
        pub min_rtt: Option<Dur>,
        /// Reported as `AckInfo::cwnd_limited`.
        pub cwnd_limited: bool,
        /// Reported as `AckInfo::in_recovery`.
        pub in_recovery: bool,
    }

    impl Flow {
        /// A flow that has just sent its initial window at time zero.
        pub fn new(cc: &dyn CongestionControl) -> Flow {
            Flow {
                now: Time::ZERO,
                pipe: cc.window().floor() as u32,
                min_rtt: None,
                cwnd_limited: true,
                in_recovery: false,
            }
        }

        /// The ACK for one segment with RTT sample `rtt`, as seen after it left the pipe.
        pub fn ack(&mut self, rtt: Dur) -> AckInfo {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.pipe = self.pipe.saturating_sub(1);
            AckInfo {
                min_rtt: self.min_rtt,
                in_flight: self.pipe,
                cwnd_limited: self.cwnd_limited,
                in_recovery: self.in_recovery,
                ..stretch_ack(1, rtt)
            }
        }

        /// One round trip of `rtt`; returns the number of ACKs delivered.
        pub fn round(&mut self, cc: &mut dyn CongestionControl, rtt: Dur, spread: f64) -> u32 {
            let start = self.now;
            let n = self.pipe;
            for i in 0..n {
                let off = rtt.nanos() as f64 * spread * f64::from(i) / f64::from(n);
                self.now = start + Dur::from_nanos(off as u64);
                let ack = self.ack(rtt);
                cc.on_ack(self.now, &ack);
                while f64::from(self.pipe) < cc.window().floor() {
                    self.pipe += 1;
                    cc.on_sent(self.now, self.pipe);
                }
            }
            self.now = start + rtt;
            n
        }
    }

    const RTT: Dur = Dur::from_millis(100);

    fn reno() -> NewReno {
        NewReno::new(NewRenoConfig::default())
    }

    #[test]
    fn slow_start_doubles_per_round() {
        let mut cc = reno();
        let mut flow = Flow::new(&cc);
        for expected in [20.0, 40.0, 80.0, 160.0] {
            flow.round(&mut cc, RTT, 1.0);
            assert_eq!(cc.window(), expected);
        }
        assert!(cc.in_slow_start());
        assert_eq!(cc.metrics().ssthresh, None);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_leftover_goes_to_avoidance() {
        let mut cwnd = 8;
        assert_eq!(tcp_slow_start(&mut cwnd, 10, 5), 3);
        assert_eq!(cwnd, 10);
        let mut cnt = 0;
        tcp_cong_avoid_ai(&mut cwnd, &mut cnt, 10, 25);
        assert_eq!((cwnd, cnt), (12, 5));
    }

    /// `initial_ssthresh` ends slow start there (10 → 20 → 30, then one segment per window), and
    /// is reported as the controller's ssthresh from the start; unset, slow start goes on.
    #[test]
    fn a_given_initial_ssthresh_ends_slow_start_at_it() {
        let given = NewRenoConfig {
            initial_ssthresh: Some(30),
            ..NewRenoConfig::default()
        };
        let mut cc = NewReno::new(given);
        assert_eq!(cc.ssthresh(), Some(30.0));
        let mut flow = Flow::new(&cc);
        for expected in [20.0, 30.0, 31.0, 32.0] {
            flow.round(&mut cc, RTT, 1.0);
            assert_eq!(cc.window(), expected);
        }
        assert!(!cc.in_slow_start());
        assert_eq!(reno().ssthresh(), None, "infinite by default");
        // From the parameter table: 30 is taken; below RFC 5681's 2 segments is refused by name.
        use crate::params::{Given, Value};
        let ok = Given::from([("initial_ssthresh".to_string(), Value::Num(30.0))]);
        assert_eq!(NewRenoConfig::from_given(&ok).unwrap().initial_ssthresh, Some(30));
        let low = Given::from([("initial_ssthresh".to_string(), Value::Num(1.0))]);
        let err = NewRenoConfig::from_given(&low).unwrap_err().to_string();
        assert!(err.contains("initial_ssthresh"), "{err}");
        // The largest finite threshold is one below the value that means "infinite".
        let top = f64::from(INFINITE_SSTHRESH - 1);
        let ok = Given::from([("initial_ssthresh".to_string(), Value::Num(top))]);
        assert_eq!(NewRenoConfig::from_given(&ok).unwrap().initial_ssthresh, Some(INFINITE_SSTHRESH - 1));
        let inf = Given::from([("initial_ssthresh".to_string(), Value::Num(top + 1.0))]);
        assert!(NewRenoConfig::from_given(&inf).is_err());
    }

    #[test]
    fn reno_cong_avoid_slow_starts_to_ssthresh_then_adds_one_per_window() {
        let (mut cwnd, mut cnt) = (8, 0);
        tcp_reno_cong_avoid(&mut cwnd, &mut cnt, 10, 25);
        assert_eq!((cwnd, cnt), (12, 3), "2 to reach ssthresh, then 23 of credit at w = 10");
        tcp_reno_cong_avoid(&mut cwnd, &mut cnt, 10, 9);
        assert_eq!((cwnd, cnt), (13, 0));
    }

    #[test]
    fn undo_keeps_the_larger_of_the_current_and_prior_values() {
        let (mut cwnd, mut ssthresh) = (1, 20);
        tcp_undo_cwnd_reduction(&mut cwnd, &mut ssthresh, (40, 10));
        assert_eq!((cwnd, ssthresh), (40, 20));
        assert_eq!(reported_ssthresh(INFINITE_SSTHRESH), None);
        assert_eq!(reported_ssthresh(7), Some(7.0));
    }

    #[test]
    fn congestion_avoidance_grows_one_segment_per_window_of_acks() {
        let mut cc = reno();
        let mut flow = Flow::new(&cc);
        flow.round(&mut cc, RTT, 1.0);
        flow.round(&mut cc, RTT, 1.0);
        cc.on_congestion_event(flow.now, CongestionKind::Loss, 40);
        cc.on_recovery_exit(flow.now);
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        flow.pipe = 20;
        for expected in 21..=30 {
            flow.round(&mut cc, RTT, 1.0);
            assert_eq!(cc.window(), f64::from(expected));
        }
    }

    #[test]
    fn loss_halves_flight_size_and_ecn_uses_beta_ecn() {
        let mut cc = reno();
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 41);
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 3);
        assert_eq!(cc.window(), 2.0, "never below 2 segments");

        let mut p = Params::new();
        p.insert("beta_ecn".into(), 0.8);
        let mut cc = NewReno::new(NewRenoConfig::from_params(&mut p).unwrap());
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
        assert_eq!(cc.window(), 80.0);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 80);
        assert_eq!(cc.window(), 40.0);
    }

    #[test]
    fn window_is_held_during_fast_recovery() {
        let mut cc = reno();
        let mut flow = Flow::new(&cc);
        cc.on_congestion_event(flow.now, CongestionKind::Loss, 10);
        flow.in_recovery = true;
        flow.pipe = 10;
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 5.0);
    }

    #[test]
    fn rto_sets_loss_window_then_slow_starts_and_repeated_rto_keeps_ssthresh() {
        let mut cc = reno();
        let mut flow = Flow::new(&cc);
        flow.round(&mut cc, RTT, 1.0);
        cc.on_rto(flow.now, 20);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(10.0)));
        cc.on_rto(flow.now, 1);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(10.0)));
        // Slow start during RTO recovery although the transport reports in_recovery.
        flow.in_recovery = true;
        flow.pipe = 1;
        flow.round(&mut cc, RTT, 1.0);
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 4.0);
        cc.on_rto(flow.now, 4);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(2.0)));
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut cc = reno();
        let mut flow = Flow::new(&cc);
        flow.cwnd_limited = false;
        flow.round(&mut cc, RTT, 1.0);
        assert_eq!(cc.window(), 10.0);
    }

    #[test]
    fn parameter_validation_names_the_key_and_leaves_unknown_keys() {
        for bad in [-0.5, 0.0, 1.5, f64::NAN, f64::INFINITY] {
            let mut p = Params::new();
            p.insert("beta".into(), bad);
            match NewRenoConfig::from_params(&mut p) {
                Err(Error::Param { key, msg }) => {
                    assert_eq!(key, "newreno.beta");
                    assert!(msg.contains("expected"), "{msg}");
                }
                other => panic!("beta {bad} accepted: {other:?}"),
            }
        }
        let mut p = Params::new();
        p.insert("initial_window".into(), 2.5);
        let err = NewRenoConfig::from_params(&mut p).unwrap_err();
        assert!(matches!(err, Error::Param { key, .. } if key == "newreno.initial_window"));

        let mut p = Params::new();
        p.insert("initial_window".into(), 4.0);
        p.insert("bogus".into(), 1.0);
        let cfg = NewRenoConfig::from_params(&mut p).unwrap();
        assert_eq!(cfg.initial_window, 4);
        assert_eq!(p.keys().collect::<Vec<_>>(), ["bogus"]);
        assert_eq!(NewReno::new(cfg).window(), 4.0);
    }

    #[test]
    fn controller_is_send() {
        fn is_send<T: Send>() {}
        is_send::<NewReno>();
    }

    #[test]
    fn abe_backs_off_by_beta_ecn_on_an_ecn_echo_and_by_beta_on_loss() {
        let mut p = Params::from([("beta_ecn".into(), 0.8)]);
        let cfg = NewRenoConfig::from_params(&mut p).unwrap();
        let mut cc = NewReno::new(cfg.clone());
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
        assert_eq!(cc.window(), 80.0, "max(0.8 · FlightSize, 2)");
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert_eq!(cc.window(), 50.0);
        cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 2);
        assert_eq!(cc.window(), 2.0, "never below 2 segments");
    }

    #[test]
    fn abe_slow_start_flag_chooses_the_paper_or_the_rfc_reading() {
        // A fresh flow is in slow start (ssthresh infinite).
        let mut paper = NewReno::new(NewRenoConfig {
            beta_ecn: 0.8,
            ..NewRenoConfig::default()
        });
        paper.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 40);
        assert_eq!(paper.window(), 32.0, "paper: beta_ecn also ends slow start");
        let mut rfc = NewReno::new(NewRenoConfig {
            beta_ecn: 0.8,
            abe_slow_start: false,
            ..NewRenoConfig::default()
        });
        rfc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 40);
        assert_eq!(rfc.window(), 20.0, "RFC authors: slow-start marks use beta");
        // Once in congestion avoidance both use beta_ecn.
        rfc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 40);
        assert_eq!(rfc.window(), 32.0);
    }

    /// Linux `tcp_reno_cong_avoid`: slow start only while `cwnd < ssthresh` (`tcp_in_slow_start`);
    /// an ACK that slow start uses up returns early, while at `cwnd == ssthresh` the (possibly
    /// empty) rest goes to `tcp_cong_avoid_ai`, which first applies credit accumulated at a
    /// higher `w` ("apply them gently now").
    #[test]
    fn reno_cong_avoid_at_ssthresh_goes_to_avoidance_even_with_nothing_acked() {
        let (mut cwnd, mut cnt) = (10, 12);
        tcp_reno_cong_avoid(&mut cwnd, &mut cnt, 10, 0);
        assert_eq!((cwnd, cnt), (11, 0), "credit 12 ≥ w = 10: +1, credit cleared");
        let (mut cwnd, mut cnt) = (9, 12);
        tcp_reno_cong_avoid(&mut cwnd, &mut cnt, 10, 1);
        assert_eq!((cwnd, cnt), (10, 12), "slow start used the whole ACK: no avoidance step");
    }

    #[test]
    fn slow_start_is_cwnd_below_ssthresh_and_the_controller_reports_itself() {
        let cfg = NewRenoConfig {
            initial_window: 4,
            ..NewRenoConfig::default()
        };
        let mut cc = NewReno::new(cfg.clone());
        assert_eq!(cc.config(), &cfg);
        assert_eq!(cc.name(), "newreno");
        assert!(!cc.computes_rto_as_linux(), "RFC 6298's RTO by default");
        let linux = NewRenoConfig {
            linux_rto: true,
            ..NewRenoConfig::default()
        };
        assert!(NewReno::new(linux).computes_rto_as_linux());
        assert!(!cc.detects_lost_retransmissions(), "RFC 6675 alone by default");
        let rack = NewRenoConfig {
            rack: true,
            ..NewRenoConfig::default()
        };
        assert!(NewReno::new(rack).detects_lost_retransmissions());
        assert!(cc.in_slow_start());
        // cwnd = ssthresh = 5 after a loss: congestion avoidance (Linux tcp_in_slow_start).
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!((cc.window(), cc.ssthresh()), (5.0, Some(5.0)));
        assert!(!cc.in_slow_start());
    }

    /// RFC 5681 §3.1 / Linux `tcp_enter_loss`: the state before the *first* of repeated RTOs is
    /// what a spurious-RTO undo (`tcp_undo_cwnd_reduction`) restores; after the undo the next RTO
    /// is a new episode that recomputes ssthresh.
    #[test]
    fn spurious_rto_undo_restores_the_state_before_the_first_of_repeated_rtos() {
        let mut cc = reno();
        cc.on_congestion_event(Time::ZERO, CongestionKind::Loss, 40);
        cc.on_recovery_exit(Time::ZERO);
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        cc.on_rto(Time::ZERO, 20);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(10.0)));
        cc.on_rto(Time::ZERO, 20);
        cc.on_spurious_rto(Time::ZERO);
        // max(1, 20) and max(10, 20).
        assert_eq!((cc.window(), cc.ssthresh()), (20.0, Some(20.0)));
        // Out of RTO recovery: an ACK in (fast) recovery holds the window.
        cc.on_ack(
            Time::ZERO,
            &AckInfo {
                in_recovery: true,
                ..stretch_ack(3, RTT)
            },
        );
        assert_eq!(cc.window(), 20.0);
        // A new RTO episode: ssthresh from this FlightSize, max(30 / 2, 2).
        cc.on_rto(Time::ZERO, 30);
        assert_eq!((cc.window(), cc.ssthresh()), (1.0, Some(15.0)));
    }

    /// The end of RTO recovery (Linux leaving `TCP_CA_Loss`) ends the exception that lets the
    /// window grow while the transport reports `in_recovery`.
    #[test]
    fn recovery_exit_ends_rto_recovery() {
        let mut cc = reno();
        cc.on_rto(Time::ZERO, 10);
        let in_recovery = AckInfo {
            in_recovery: true,
            ..stretch_ack(1, RTT)
        };
        cc.on_ack(Time::ZERO, &in_recovery);
        assert_eq!(cc.window(), 2.0, "slow start in RTO recovery");
        cc.on_recovery_exit(Time::ZERO);
        cc.on_ack(Time::ZERO, &in_recovery);
        assert_eq!(cc.window(), 2.0, "held once RTO recovery is over");
    }

    /// The ABE row (RFC 8511) is its own scheme: ECN-marked packets over CoDel, β_ecn = 0.8
    /// from its preset, and its own name, source and plot style.
    #[test]
    fn newreno_abe_row_marks_ecn_and_builds_with_beta_ecn_0_8() {
        let abe = NEWRENO_ABE;
        assert_eq!((abe.name, abe.display, abe.family), ("newreno-abe", "NewReno-ABE", "newreno"));
        assert_eq!((abe.marking, abe.queue), (Marking::Ecn, "codel"));
        assert_eq!(abe.pairs, &["pie"]);
        assert_eq!(abe.preset, &[("beta_ecn", 0.8)]);
        assert!(abe.source.contains("RFC 8511"), "{}", abe.source);
        assert_ne!(abe.summary, NEWRENO.summary);
        assert_ne!(abe.style, NEWRENO.style);
        let build = |s: &Scheme| {
            let v = s.values(&Default::default()).unwrap();
            let mut cc = (s.build)(&v, Time::ZERO, crate::rng::Rng::stream(0, 0)).unwrap();
            cc.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
            cc.window()
        };
        assert_eq!(build(&NEWRENO_ABE), 80.0, "max(0.8 · 100, 2)");
        assert_eq!(build(&NEWRENO), 50.0);
    }
}
