//! The RCP sender (Dukkipati & McKeown; ns-2 `rcp-host.cc`): paces at the rate the routers echo.
//!
//! Every data segment carries an RCP header (the smoothed RTT, and the rate field starting
//! "unconstrained"); each router on the path writes the minimum of it and its rate R, the receiver
//! echoes it, and the sender paces at the latest echoed rate. RCP has no congestion window and no
//! slow start: before the first echo the sender sends its initial window (RFC 6928's 10 segments)
//! unpaced. Choices (see `docs/explicit-schemes.md`):
//! * our transport is window-based, so the window is capped at `window_gain · R · srtt` (2 by
//!   default): a safety bound on data in flight that does not bind while R is right;
//! * losses are repaired by the transport without changing the rate (RCP leaves rate control to
//!   the routers); an echo that is still "unconstrained" (no RCP router on the path) is ignored.

use super::{AckInfo, CongestionControl, Marking, Scheme};
use crate::packet::{ExplicitHeader, ExplicitKind, MTU};
use crate::params::{Config, Param, Unit, Values};
use crate::time::Time;

/// The RCP sender's parameters (`rcp.<key>`; the router's are the `rcp` queue's).
pub const PARAMS: &[Param] = &[
    Param::real("initial_window", 10.0, Unit::Segments, 1.0, 1e6)
        .doc("segments sent before the first rate echo", "RFC 6928 initial window"),
    Param::real("window_gain", 2.0, Unit::None, 1.0, 1e6)
        .doc("cap on data in flight, in units of the echoed rate × srtt", "our choice (RCP has no window)"),
];

/// RCP over the RCP router.
pub const RCP: Scheme = Scheme {
    name: "rcp",
    display: "RCP",
    family: "rcp",
    summary: "RCP sender pacing at the echoed router rate, over the RCP router",
    source: "Dukkipati & McKeown; ABC paper (NSDI 2020) §7.3, App. F",
    marking: Marking::Explicit,
    queue: "rcp",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#66c2a5", "<"),
    build: |v, _now, _rng| Ok(Box::new(Rcp::new(RcpSenderConfig::checked(v)?))),
    warnings: None,
};

/// RCP sender parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpSenderConfig {
    /// Segments before the first echo.
    pub initial_window: f64,
    /// In-flight cap over rate × srtt.
    pub window_gain: f64,
}

crate::default_from_table!(RcpSenderConfig);

impl Config for RcpSenderConfig {
    const PREFIX: &'static str = "rcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> RcpSenderConfig {
        RcpSenderConfig {
            initial_window: v.real("initial_window"),
            window_gain: v.real("window_gain"),
        }
    }
}

/// The RCP sender.
#[derive(Clone, Debug)]
pub struct Rcp {
    cfg: RcpSenderConfig,
    rate: Option<f64>,
    srtt: f64,
}

impl Rcp {
    /// A new RCP sender.
    pub fn new(cfg: RcpSenderConfig) -> Rcp {
        Rcp {
            cfg,
            rate: None,
            srtt: 0.0,
        }
    }
}

impl CongestionControl for Rcp {
    fn name(&self) -> &'static str {
        "rcp"
    }
    fn window(&self) -> f64 {
        match self.rate {
            Some(r) if self.srtt > 0.0 => (self.cfg.window_gain * r * self.srtt / f64::from(MTU)).max(2.0),
            _ => self.cfg.initial_window,
        }
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.rate
    }
    fn pacing_min_burst(&self) -> u32 {
        1
    }
    fn explicit_header(&mut self, _now: Time) -> Option<ExplicitHeader> {
        Some(ExplicitHeader {
            kind: ExplicitKind::Rcp,
            cwnd: 0.0,
            rtt: self.srtt as f32,
            feedback: f32::MAX,
        })
    }
    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if let Some(s) = ack.srtt {
            self.srtt = s.secs_f64();
        }
        if let Some(r) = ack.explicit {
            if r.is_finite() && r > 0.0 && r < super::xcp::UNCONSTRAINED {
                self.rate = Some(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    #[test]
    fn paces_at_the_echoed_rate_and_caps_the_window() {
        let mut r = Rcp::new(RcpSenderConfig::default());
        assert_eq!((r.window(), r.pacing_rate()), (10.0, None));
        r.on_ack(
            Time::ZERO,
            &AckInfo {
                explicit: Some(1.5e6),
                srtt: Some(Dur::from_millis(100)),
                ..AckInfo::default()
            },
        );
        assert_eq!(r.pacing_rate(), Some(1.5e6));
        assert_eq!(r.window(), 200.0); // 2 × 1.5 MB/s × 0.1 s / 1500 B
        assert_eq!(r.explicit_header(Time::ZERO).unwrap().rtt, 0.1);
    }

    #[test]
    fn echoes_outside_the_valid_range_are_ignored_and_the_window_has_a_floor() {
        let mut v = Values::defaults(&[PARAMS]);
        v.set("window_gain", crate::params::Val::Num(3.0));
        v.set("initial_window", crate::params::Val::Num(4.0));
        let mut r = Rcp::new(RcpSenderConfig::from_values(&v));
        assert_eq!((r.name(), r.window(), r.pacing_min_burst()), ("rcp", 4.0, 1));
        let h = r.explicit_header(Time::ZERO).unwrap();
        assert_eq!((h.kind, h.cwnd, h.rtt, h.feedback), (ExplicitKind::Rcp, 0.0, 0.0, f32::MAX));
        let echo = |x: f64| AckInfo {
            explicit: Some(x),
            ..AckInfo::default()
        };
        // A rate but no RTT estimate yet: still the initial window.
        r.on_ack(Time::ZERO, &echo(1.5e6));
        assert_eq!((r.pacing_rate(), r.window()), (Some(1.5e6), 4.0));
        // Zero, negative, non-finite and "unconstrained" (no RCP router) echoes change nothing.
        for x in [0.0, -5.0, f64::NAN, f64::INFINITY, super::super::xcp::UNCONSTRAINED] {
            r.on_ack(Time::ZERO, &echo(x));
            assert_eq!(r.pacing_rate(), Some(1.5e6), "{x}");
        }
        // 3 × 1.5 MB/s × 0.1 s / 1500 B = 300 segments; a slow rate floors at 2 segments.
        r.on_ack(
            Time::ZERO,
            &AckInfo {
                srtt: Some(Dur::from_millis(100)),
                ..AckInfo::default()
            },
        );
        assert!((r.window() - 300.0).abs() < 1e-9, "{}", r.window());
        r.on_ack(Time::ZERO, &echo(1000.0));
        assert_eq!((r.pacing_rate(), r.window()), (Some(1000.0), 2.0));
    }
}
