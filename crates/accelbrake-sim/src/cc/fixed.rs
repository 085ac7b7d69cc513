//! `fixed`: a constant congestion window, optionally paced at `window / RTT`.
//!
//! Not a congestion controller anyone deploys, but the simplest reference a simulator can have: on
//! a link of capacity `C` with propagation RTT `R`, a window of `W` segments delivers
//! `min(C, W·MTU/R)`, and a window above the bandwidth-delay product makes the RTT `W·MTU/C` —
//! analytic results `tests/integration/properties.rs` checks the transport and links against. It is
//! also the worked example of `docs/adding-a-scheme.md`: this file and one line of the registry in
//! `cc/mod.rs` are all a scheme needs.
//!
//! Losses and ECN marks are ignored (the transport still retransmits); an RTO does not shrink the
//! window.

use super::{AckInfo, CongestionControl, Marking, Scheme};
use crate::packet::MSS;
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// The parameters (keys `fixed.<name>`).
pub const PARAMS: &[Param] = &[
    Param::real("window", 10.0, Unit::Segments, 1.0, 1e6).doc("the constant window", "RFC 6928 initial window"),
    Param::flag("paced", false).doc("pace at window·MSS / latest RTT instead of sending in bursts", "our choice"),
];

/// The registry row.
pub const FIXED: Scheme = Scheme {
    name: "fixed",
    display: "Fixed window",
    family: "fixed",
    summary: "constant window (analytic reference: throughput = min(C, W/RTT))",
    source: "none: a reference for tests and teaching",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#525252", "."),
    build: |v, _now, _rng| Ok(Box::new(Fixed::new(FixedConfig::checked(v)?))),
    warnings: None,
};

/// The configuration read from [`PARAMS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedConfig {
    /// The window, segments.
    pub window: f64,
    /// Pace at `window / RTT`.
    pub paced: bool,
}

crate::default_from_table!(FixedConfig);

impl Config for FixedConfig {
    const PREFIX: &'static str = "fixed";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> FixedConfig {
        FixedConfig {
            window: v.real("window"),
            paced: v.flag("paced"),
        }
    }
}

/// The controller.
#[derive(Clone, Debug)]
pub struct Fixed {
    cfg: FixedConfig,
    rtt: Option<Dur>,
}

impl Fixed {
    /// A controller with this configuration.
    pub fn new(cfg: FixedConfig) -> Fixed {
        Fixed { cfg, rtt: None }
    }
}

impl CongestionControl for Fixed {
    fn name(&self) -> &'static str {
        "fixed"
    }

    fn window(&self) -> f64 {
        self.cfg.window
    }

    fn pacing_rate(&self) -> Option<f64> {
        let rtt = self.rtt.filter(|_| self.cfg.paced)?;
        Some(self.cfg.window * f64::from(MSS) / rtt.secs_f64().max(1e-6))
    }

    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt = Some(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;

    fn rtt_ack(rtt: Option<Dur>) -> AckInfo {
        AckInfo {
            acked: 1,
            rtt,
            ..AckInfo::default()
        }
    }

    #[test]
    fn the_window_is_constant_and_unpaced_by_default() {
        let mut cc = Fixed::new(FixedConfig::default());
        assert_eq!((cc.name(), cc.window()), ("fixed", 10.0));
        cc.on_ack(Time::ZERO, &rtt_ack(Some(Dur::from_millis(50))));
        assert_eq!((cc.window(), cc.pacing_rate()), (10.0, None));
    }

    #[test]
    fn paced_at_window_times_mss_over_the_latest_rtt() {
        let mut cc = Fixed::new(FixedConfig {
            window: 12.0,
            paced: true,
        });
        assert_eq!(cc.pacing_rate(), None, "no RTT yet");
        cc.on_ack(Time::ZERO, &rtt_ack(Some(Dur::from_millis(50))));
        // 12 · 1448 B / 0.05 s.
        assert_eq!(cc.pacing_rate(), Some(347_520.0));
        cc.on_ack(Time::ZERO, &rtt_ack(None));
        assert_eq!(cc.pacing_rate(), Some(347_520.0), "an ACK without a sample keeps the last");
        cc.on_ack(Time::ZERO, &rtt_ack(Some(Dur::from_millis(20))));
        assert_eq!(cc.pacing_rate(), Some(868_800.0), "the latest sample, not the smallest");
        // A zero RTT is floored at 1 µs: 12 · 1448 / 1e-6.
        cc.on_ack(Time::ZERO, &rtt_ack(Some(Dur::ZERO)));
        assert_eq!(cc.pacing_rate(), Some(17_376_000_000.0));
        assert_eq!(cc.window(), 12.0);
    }

    #[test]
    fn parameters_are_read_and_checked() {
        let mut p = Params::from([("window".to_string(), 3.0), ("paced".to_string(), 1.0)]);
        assert_eq!(
            FixedConfig::from_params(&mut p).unwrap(),
            FixedConfig {
                window: 3.0,
                paced: true
            }
        );
        let mut p = Params::from([("window".to_string(), 0.5)]);
        assert!(FixedConfig::from_params(&mut p).is_err());
        let given = crate::params::Given::from([("window".to_string(), crate::params::Value::Num(4.0))]);
        let cc = crate::cc::build("fixed", &given, Time::ZERO, crate::rng::Rng::stream(1, 0)).unwrap();
        assert_eq!((cc.name(), cc.window(), cc.pacing_rate()), ("fixed", 4.0, None));
    }
}
