//! The XCP sender (Katabi, Handley, Rohrs, SIGCOMM 2002, §3.1–3.3; ns-2 `xcp-end-sys.cc`).
//!
//! Every data segment carries the congestion header (H_cwnd = the window in bytes, H_rtt = the
//! smoothed RTT, H_feedback = the desired change, "unconstrained" here); routers lower H_feedback
//! and the receiver echoes it. On every ACK: `cwnd = max(cwnd + H_feedback, s)` (§3.3), with the
//! feedback of the segments a delayed ACK covers summed by the receiver. On loss: Reno (§3.3 "XCP
//! … falls back to TCP's loss response"): halve; on an RTO, one segment.
//!
//! Choices (see `docs/explicit-schemes.md`):
//! * Windows are in segments of 1500-byte packets (H_cwnd = window·1500 B, the size a router counts).
//! * H_feedback starts "unconstrained" (ns-2 writes −1 for that); an ACK whose feedback is still
//!   unconstrained (no XCP router on the path) leaves the window alone: such a sender grows only by
//!   feedback.
//! * H_rtt is the RFC 6298 smoothed RTT (ns-2 keeps its own 0.6/0.4 average); 0 before the first
//!   sample, which routers read as "no estimate" (§3.1).
//! * No slow start: the initial window is RFC 6928's 10 segments; XCP's positive feedback then
//!   fills the spare bandwidth within a few control intervals (§3.5).

use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::packet::{ExplicitHeader, ExplicitKind, MTU};
use crate::params::{Config, Param, Unit, Values};
use crate::time::Time;

/// Feedback at or above this is "unconstrained" (no XCP router lowered it).
pub const UNCONSTRAINED: f64 = 1e30;

/// The XCP sender's parameters (`xcp.<key>`; the routers' are the `xcp`/`xcp-w` queues').
pub const PARAMS: &[Param] = &[
    Param::real("initial_window", 10.0, Unit::Segments, 1.0, 1e6).doc("initial window", "RFC 6928 initial window"),
    Param::real("min_window", 1.0, Unit::Segments, 1.0, 1e6)
        .doc("smallest window feedback can reach", "Katabi et al. §3.3: cwnd = max(cwnd + H_feedback, s)"),
];

/// XCP over the XCP router.
pub const XCP: Scheme = Scheme {
    name: "xcp",
    display: "XCP",
    family: "xcp",
    summary: "XCP sender (cwnd += H_feedback per ACK) over the XCP router",
    source: "Katabi et al., SIGCOMM 2002; ABC paper (NSDI 2020) §7.3, App. F",
    marking: Marking::Explicit,
    queue: "xcp",
    pairs: &["xcp-w"],
    params: &[PARAMS],
    preset: &[],
    style: ("#8c564b", "v"),
    build: |v, _now, _rng| Ok(Box::new(Xcp::new(XcpSenderConfig::checked(v)?))),
    warnings: None,
};

/// XCP_w: the same sender over the per-packet XCP_w router.
pub const XCP_W: Scheme = Scheme {
    name: "xcp-w",
    display: "XCP_w",
    summary: "XCP sender over the XCP_w router (feedback recomputed on every packet)",
    source: "ABC paper (NSDI 2020) §7.3, App. F; artifact xcp_packet_queue.cc",
    queue: "xcp-w",
    pairs: &["xcp"],
    style: ("#c49c94", "^"),
    build: |v, _now, _rng| Ok(Box::new(Xcp::new(XcpSenderConfig::checked(v)?).named("xcp-w"))),
    ..XCP
};

/// XCP sender parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpSenderConfig {
    /// Initial window, segments.
    pub initial_window: f64,
    /// Smallest window, segments.
    pub min_window: f64,
}

crate::default_from_table!(XcpSenderConfig);

impl Config for XcpSenderConfig {
    const PREFIX: &'static str = "xcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> XcpSenderConfig {
        XcpSenderConfig {
            initial_window: v.real("initial_window"),
            min_window: v.real("min_window"),
        }
    }
}

/// The XCP sender.
#[derive(Clone, Debug)]
pub struct Xcp {
    name: &'static str,
    cfg: XcpSenderConfig,
    w: f64,
    srtt: f64,
}

impl Xcp {
    /// A new XCP sender.
    pub fn new(cfg: XcpSenderConfig) -> Xcp {
        Xcp {
            name: "xcp",
            cfg,
            w: cfg.initial_window.max(cfg.min_window),
            srtt: 0.0,
        }
    }

    /// The same sender under another scheme's name (XCP_w's rows and tables).
    pub fn named(self, name: &'static str) -> Xcp {
        Xcp { name, ..self }
    }
}

impl CongestionControl for Xcp {
    fn name(&self) -> &'static str {
        self.name
    }
    fn window(&self) -> f64 {
        self.w
    }
    fn explicit_header(&mut self, _now: Time) -> Option<ExplicitHeader> {
        Some(ExplicitHeader {
            kind: ExplicitKind::Xcp,
            cwnd: (self.w * f64::from(MTU)) as f32,
            rtt: self.srtt as f32,
            feedback: f32::MAX,
        })
    }
    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if let Some(s) = ack.srtt {
            self.srtt = s.secs_f64();
        }
        if let Some(fb) = ack.explicit {
            if fb.is_finite() && fb < UNCONSTRAINED {
                self.w = (self.w + fb / f64::from(MTU)).max(self.cfg.min_window);
            }
        }
    }
    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, _in_flight: u32) {
        if kind == CongestionKind::Loss {
            self.w = (self.w / 2.0).max(self.cfg.min_window);
        }
    }
    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        self.w = self.cfg.min_window;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[test]
    fn window_follows_the_echoed_feedback_and_halves_on_loss() {
        let mut x = Xcp::new(XcpSenderConfig::default());
        let h = x.explicit_header(Time::ZERO).unwrap();
        assert_eq!((h.cwnd, h.rtt), (15_000.0, 0.0));
        let ack = |fb: Option<f64>| AckInfo {
            acked: 1,
            explicit: fb,
            srtt: Some(Dur::from_millis(100)),
            ..AckInfo::default()
        };
        x.on_ack(Time::ZERO, &ack(Some(3000.0)));
        assert_eq!(x.window(), 12.0);
        assert_eq!(x.explicit_header(Time::ZERO).unwrap().rtt, 0.1);
        x.on_ack(Time::ZERO, &ack(Some(-1500.0 * 20.0)));
        assert_eq!(x.window(), 1.0, "never below one segment");
        x.on_ack(Time::ZERO, &ack(Some(f64::from(f32::MAX))));
        assert_eq!(x.window(), 1.0, "unconstrained feedback changes nothing");
        x.on_ack(Time::ZERO, &ack(Some(1500.0 * 9.0)));
        x.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!(x.window(), 5.0);
    }

    #[test]
    fn only_a_loss_halves_an_rto_resets_and_unconstrained_feedback_is_ignored() {
        let mut v = Values::defaults(&[PARAMS]);
        v.set("initial_window", crate::params::Val::Num(40.0));
        v.set("min_window", crate::params::Val::Num(2.0));
        let mut x = Xcp::new(XcpSenderConfig::from_values(&v));
        assert_eq!(x.window(), 40.0);
        // An ECN echo is not a loss: XCP reacts to its routers' feedback, not to CE (§3.3).
        x.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 40);
        assert_eq!(x.window(), 40.0);
        x.on_congestion_event(Time::ZERO, CongestionKind::Loss, 40);
        assert_eq!(x.window(), 20.0);
        // Feedback exactly at the "unconstrained" bound is still unconstrained.
        let ack = |fb: f64| AckInfo {
            acked: 1,
            explicit: Some(fb),
            ..AckInfo::default()
        };
        x.on_ack(Time::ZERO, &ack(UNCONSTRAINED));
        assert_eq!(x.window(), 20.0);
        x.on_ack(Time::ZERO, &ack(-750.0));
        assert_eq!(x.window(), 19.5);
        x.on_rto(Time::ZERO, 19);
        assert_eq!(x.window(), 2.0, "an RTO leaves one min_window");
        // XCP_w's sender is the same controller under its own name.
        let w = Xcp::new(XcpSenderConfig::default()).named("xcp-w");
        assert_eq!((w.name(), w.window(), x.name()), ("xcp-w", 10.0, "xcp"));
        let built = (XCP_W.build)(&Values::defaults(&[PARAMS]), Time::ZERO, crate::rng::Rng::stream(0, 0)).unwrap();
        assert_eq!((built.name(), XCP_W.name, XCP_W.queue, XCP_W.pairs), ("xcp-w", "xcp-w", "xcp-w", &["xcp"][..]));
        // Its catalog row describes it, not XCP.
        assert!(XCP_W.display != XCP.display && XCP_W.summary != XCP.summary && XCP_W.style != XCP.style);
        assert!(XCP_W.source.contains("xcp_packet_queue.cc") && !XCP.source.contains("xcp_packet_queue.cc"));
    }
}
