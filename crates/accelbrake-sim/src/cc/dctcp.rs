//! DCTCP, Data Center TCP (RFC 8257; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010;
//! Linux `net/ipv4/tcp_dctcp.c`).
//!
//! * The receiver echoes the mark of every segment exactly (RFC 8257 §3.2: it acknowledges at once
//!   when the CE state of arriving segments changes): the per-packet echo of [`Marking::L4s`].
//! * Once per window of data (RFC 8257 §3.3, Linux `dctcp_update_alpha`: when `snd_una` passes the
//!   `snd_nxt` of the last update) the sender updates `α ← (1 − g)·α + g·F`, where `F` is the
//!   fraction of the segments delivered over that window that were echoed CE.
//! * On the first CE echo of a window (the transport calls [`CongestionKind::Ecn`] at most once per
//!   RTT, as Linux enters CWR at most once per window) `cwnd ← max(cwnd·(1 − α/2), 2)` (RFC 8257
//!   §3.3 step 9; Linux `dctcp_ssthresh`). A loss halves the window as Reno does (RFC 8257 §3.4;
//!   Linux `dctcp_react_to_loss`).
//! * Growth is Reno's (`tcp_reno_cong_avoid`), and the window does not grow for the round after a
//!   reduction (Linux `tcp_cong_control`: no `cong_avoid` while in CWR).
//!
//! Codepoint: RFC 8257 leaves the ECT codepoint to the deployment (§3.1 uses ECT(0) inside a data
//! centre). Here DCTCP sends ECT(1), the L4S identifier (RFC 9331 §4.3 lists DCTCP among the
//! scalable controls), so that a DualPI2 bottleneck serves it from its L4S queue; over a step
//! queue (DualPI2 with only L4S traffic) it is the DCTCP of the paper.
//!
//! Deviations: the CWR round reduces the window at once rather than through PRR (Linux spreads it
//! over the round with `tcp_cwnd_reduction`; the simulator does so only with `flows[].ecn_prr`).

use super::newreno::{reported_ssthresh, tcp_reno_cong_avoid, INFINITE_SSTHRESH, INITIAL_WINDOW_PARAM, MIN_SSTHRESH};
use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::packet::Echo;
use crate::params::{Config, Param, Unit, Values};
use crate::time::Time;

/// EWMA gain g (RFC 8257 §3.3 recommends 1/16; Linux `dctcp_shift_g = 4`).
pub const G: f64 = 1.0 / 16.0;
/// Initial α (RFC 8257 §3.3: "initialized to 1"; Linux `dctcp_alpha_on_init = DCTCP_MAX_ALPHA`).
pub const ALPHA_INIT: f64 = 1.0;

/// DCTCP's parameters (keys `dctcp.<name>`).
pub const PARAMS: &[Param] = &[
    INITIAL_WINDOW_PARAM,
    Param::real("g", G, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("EWMA gain of the marked fraction α", "RFC 8257 §3.3 (1/16); Linux dctcp_shift_g = 4"),
    Param::real("alpha_init", ALPHA_INIT, Unit::None, 0.0, 1.0)
        .doc("α at the start", "RFC 8257 §3.3; Linux dctcp_alpha_on_init = 1024/1024"),
];

/// DCTCP (RFC 8257), ECT(1) so that a DualQ AQM serves it as L4S.
pub const DCTCP: Scheme = Scheme {
    name: "dctcp",
    display: "DCTCP",
    family: "dctcp",
    summary: "Data Center TCP: cwnd·(1 − α/2) once per RTT, α the EWMA of the CE-marked fraction",
    source: "RFC 8257; Alizadeh et al., SIGCOMM 2010; Linux tcp_dctcp.c",
    marking: Marking::L4s,
    queue: "dualpi2",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    // Okabe–Ito sky blue (colour-blind safe, distinct from every other row).
    style: ("#56B4E9", "s"),
    build: |v, _now, _rng| Ok(Box::new(Dctcp::new(DctcpConfig::checked(v)?))),
    warnings: None,
};

/// DCTCP parameters (see [`PARAMS`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// `initial_window`, segments.
    pub initial_window: u32,
    /// `g`: EWMA gain.
    pub g: f64,
    /// `alpha_init`: α at the start.
    pub alpha_init: f64,
}

crate::default_from_table!(DctcpConfig);

impl Config for DctcpConfig {
    const PREFIX: &'static str = "dctcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> DctcpConfig {
        DctcpConfig {
            initial_window: v.whole("initial_window"),
            g: v.real("g"),
            alpha_init: v.real("alpha_init"),
        }
    }
}

/// The DCTCP controller.
#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    cwnd: u32,
    cwnd_cnt: u32,
    ssthresh: u32,
    /// α, the estimated fraction of marked segments.
    alpha: f64,
    /// `snd_nxt` when the current observation window started (`next_seq`).
    next_seq: u32,
    /// Segments delivered / echoed CE in the current observation window.
    delivered: u64,
    delivered_ce: u64,
    /// In CWR (no growth) until `snd_una` reaches this; `Some(None)` until the next ACK sets it.
    cwr_until: Option<Option<u32>>,
    /// In fast recovery after a loss.
    in_recovery: bool,
    /// After an RTO, until new data is acknowledged: a further RTO keeps ssthresh.
    rto_backoff: bool,
}

impl Dctcp {
    /// A controller in slow start.
    pub fn new(cfg: DctcpConfig) -> Dctcp {
        Dctcp {
            cwnd: cfg.initial_window.max(1),
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            alpha: cfg.alpha_init,
            next_seq: 0,
            delivered: 0,
            delivered_ce: 0,
            cwr_until: None,
            in_recovery: false,
            rto_backoff: false,
            cfg,
        }
    }

    /// The current α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn window(&self) -> f64 {
        f64::from(self.cwnd)
    }

    fn ssthresh(&self) -> Option<f64> {
        reported_ssthresh(self.ssthresh)
    }

    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if ack.acked == 0 {
            return;
        }
        self.rto_backoff = false;
        // RFC 8257 §3.3 steps 1-2: count delivered and CE-echoed segments.
        self.delivered += u64::from(ack.acked);
        if ack.echo == Echo::Ce {
            self.delivered_ce += u64::from(ack.acked);
        }
        // Steps 3-6: once per window of data, fold the marked fraction into α.
        if ack.snd_una >= self.next_seq {
            if self.delivered > 0 {
                let f = self.delivered_ce as f64 / self.delivered as f64;
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
            }
            self.next_seq = ack.snd_nxt;
            self.delivered = 0;
            self.delivered_ce = 0;
        }
        match self.cwr_until {
            Some(None) => self.cwr_until = Some(Some(ack.snd_nxt)),
            Some(Some(end)) if ack.snd_una >= end => self.cwr_until = None,
            _ => {}
        }
        if !ack.cwnd_limited || self.in_recovery || self.cwr_until.is_some() {
            return;
        }
        tcp_reno_cong_avoid(&mut self.cwnd, &mut self.cwnd_cnt, self.ssthresh, ack.acked);
    }

    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, _in_flight: u32) {
        let w = f64::from(self.cwnd);
        self.ssthresh = match kind {
            // Linux dctcp_ssthresh: cwnd − cwnd·α/2, at least 2.
            CongestionKind::Ecn => ((w * (1.0 - self.alpha / 2.0)).floor() as u32).max(MIN_SSTHRESH),
            // Linux dctcp_react_to_loss: half the window (RFC 8257 §3.4).
            CongestionKind::Loss => (self.cwnd / 2).max(MIN_SSTHRESH),
        };
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
        match kind {
            CongestionKind::Ecn => self.cwr_until = Some(None),
            CongestionKind::Loss => self.in_recovery = true,
        }
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.in_recovery = false;
    }

    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        if !self.rto_backoff {
            self.ssthresh = (self.cwnd / 2).max(MIN_SSTHRESH);
        }
        self.cwnd = 1;
        self.cwnd_cnt = 0;
        self.in_recovery = false;
        self.cwr_until = None;
        self.rto_backoff = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(acked: u32, echo: Echo, una: u32, nxt: u32) -> AckInfo {
        AckInfo {
            acked,
            echo,
            snd_una: una,
            snd_nxt: nxt,
            cwnd_limited: true,
            ..AckInfo::default()
        }
    }

    /// α follows the EWMA of the marked fraction per window: with every segment marked it stays 1,
    /// with half marked it moves g of the way to 1/2 each window.
    #[test]
    fn alpha_is_the_ewma_of_the_marked_fraction_per_window() {
        let mut d = Dctcp::new(DctcpConfig::default());
        // Window 1 (next_seq 0: the first ACK closes it with nothing counted before).
        d.on_ack(Time::ZERO, &ack(1, Echo::None, 1, 10));
        let a0 = d.alpha();
        assert!((a0 - (1.0 - G) * 1.0 - G * 0.0).abs() < 1e-12, "{a0}");
        // One window of 10 segments, 5 marked.
        for i in 0..10 {
            let e = if i % 2 == 0 { Echo::Ce } else { Echo::None };
            d.on_ack(Time::ZERO, &ack(1, e, 2 + i, 20));
        }
        // The update fired at snd_una = 10 with 9 segments counted (1..=9 of which 5 were CE).
        let expected = (1.0 - G) * a0 + G * (5.0 / 9.0);
        assert!((d.alpha() - expected).abs() < 1e-12, "{} vs {expected}", d.alpha());
    }

    /// The reduction is cwnd·(1 − α/2) (RFC 8257 §3.3), a loss halves, and no growth in the CWR
    /// round.
    #[test]
    fn a_mark_cuts_by_alpha_over_two_and_a_loss_by_half() {
        let mut d = Dctcp::new(DctcpConfig {
            initial_window: 100,
            alpha_init: 0.5,
            ..DctcpConfig::default()
        });
        d.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 100);
        assert_eq!(d.window(), 75.0);
        d.on_ack(Time::ZERO, &ack(2, Echo::None, 2, 102));
        assert_eq!(d.window(), 75.0, "no growth while in CWR");
        d.on_ack(Time::ZERO, &ack(2, Echo::None, 102, 180));
        d.on_ack(Time::ZERO, &ack(75, Echo::None, 177, 260));
        assert!(d.window() > 75.0, "grows again after the round");
        let w = d.window();
        d.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!(d.window(), (w / 2.0).floor());
    }
}
