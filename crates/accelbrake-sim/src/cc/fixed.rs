//! `fixed`: a constant congestion window, optionally paced at `window / RTT`.
//!
//! Not a congestion controller anyone deploys, but the simplest reference a simulator can have: on
//! a link of capacity `C` with propagation RTT `R`, a window of `W` segments delivers
//! `min(C, W·MTU/R)`, and a window above the bandwidth-delay product makes the RTT `W·MTU/C` —
//! analytic results the tests check the transport and links against. It is also the
//! worked example of `docs/adding-a-scheme.md`: this file and one line of the registry in
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
    use crate::scenario::Scenario;

    /// A fixed window on a constant link: throughput W·MSS/RTT below the BDP, the link rate above
    /// it, with W − BDP segments standing in the queue.
    #[test]
    fn throughput_is_window_over_rtt_until_the_link_is_full() {
        // 12 Mbit/s, 100 ms RTT: BDP = 1.5e6 bytes/s · 0.1 s / 1448 ≈ 103.6 segments.
        let run = |w: f64| {
            let s = Scenario::from_json(&format!(
                r#"{{"duration_ms": 30000, "record_packets": false,
                "hops": [{{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}},
                         {{"link": {{"type": "constant", "mbps": 100}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}}],
                "flows": [{{"scheme": "fixed", "params": {{"window": {w}}}, "fwd": [0], "rev": [1],
                            "delayed_ack": false, "host_jitter_us": 0}}]}}"#
            ))
            .unwrap();
            crate::simulate(&s).unwrap().summary
        };
        let small = run(20.0);
        // 20 packets of MTU bytes per RTT; the RTT is 100 ms of propagation plus the 1 ms it takes
        // to serialise one 1500-byte packet at 12 Mbit/s (ACKs at 100 Mbit/s add ~4 µs).
        let rate = small.flows[0].throughput_mbps;
        let expect = 20.0 * f64::from(crate::packet::MTU) * 8.0 / 0.101 / 1e6;
        assert!((rate / expect - 1.0).abs() < 0.01, "{rate} vs {expect}");
        let big = run(150.0);
        assert!(big.utilization > 0.98, "{}", big.utilization);
        // The window fills the pipe: RTT = W·MTU / C = 150 ms, so each packet spends 150 − 100 = 50 ms
        // in the queue and on the link (the queueing delay, as Mahimahi counts it).
        let q = big.flows[0].queueing_delay_ms.p50;
        assert!((q - 50.0).abs() < 1.0, "median queueing {q} ms");
    }
}
