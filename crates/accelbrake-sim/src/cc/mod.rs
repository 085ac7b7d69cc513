//! Congestion controllers.
//!
//! A controller is a small state machine behind the [`CongestionControl`] trait. It never sees the
//! connection, the clock or the event loop: the transport calls it with `now` and plain values on
//! each event (segment sent, ACK with its echoed mark, congestion event, RTO) and reads back a window
//! (in segments) and an optional pacing rate. The same code can therefore drive a real-time endpoint.
//!
//! Windows are in **segments** of [`crate::packet::MSS`] payload bytes; the transport sends while
//! `pipe < floor(window)`.
//!
//! | scheme name | file | notes |
//! |---|---|---|
//! | `newreno` | `newreno.rs` | RFC 5681 slow start / congestion avoidance, halving on loss |
//! | `cubic` | `cubic.rs` | Linux `tcp_cubic` incl. HyStart |
//! | `abc` | `abc.rs` | ABC sender, paper Eq. 3 |
//! | `abc-cubic` | `abc.rs` | ABC §4.1: min(w_abc, w_cubic) |
//! | `newreno-abe` | `newreno.rs` | ABE (RFC 8511): ECN echo → β_ecn = 0.8; ECN on |
//! | `cubic-abe` | `cubic.rs` | ABE: ECN echo → β_ecn = 0.85; ECN on |
//! | `c2tcp` | `c2tcp.rs` | C2TCP on Cubic (JSAC kernel patch + user-space tuner) |
//! | `proprate`, `proprate-l/m/h` | `proprate.rs` | PropRate (target buffer delay 40 ms; presets 20/40/80) |
//! | `bbr` | `bbr.rs` | BBR v1 (Linux tcp_bbr, without the long-term policer model) |
//! | `copa` | `copa.rs` | Copa (genericCC reference code; δ = 0.5, competitive mode) |
//! | `vegas` | `vegas.rs` | Linux tcp_vegas (α 2, β 4, γ 1; diff divided by baseRTT) |
//! | `westwood` | `westwood.rs` | Linux tcp_westwood (Westwood+) |
//! | `ledbat` | `ledbat.rs` | RFC 6817, target 100 ms |

use crate::error::{Error, Result};
use crate::packet::Echo;
use crate::time::{Dur, Time};
use std::collections::BTreeMap;

pub mod abc;
pub mod bbr;
pub mod c2tcp;
pub mod copa;
pub mod cubic;
pub mod ledbat;
pub mod newreno;
pub mod proprate;
pub mod vegas;
pub mod westwood;

/// A delivery-rate sample (Linux `tcp_rate.c`, as BBR uses it): segments delivered between the
/// transmission of the most recently sent segment this ACK covers and now, over the longer of the
/// send and ACK intervals.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Delivery rate, bytes per second (segments × MSS / interval).
    pub delivery_rate: f64,
    /// Segments delivered over the interval.
    pub delivered: u64,
    /// max(send interval, ACK interval).
    pub interval: Dur,
    /// `delivered` count when the sampled segment was sent (for round-trip counting).
    pub prior_delivered: u64,
    /// The sampled segment was sent while the application limited the sender.
    pub is_app_limited: bool,
}

/// Everything a controller learns from one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckInfo {
    /// Segments newly delivered by this ACK (cumulatively acknowledged or newly SACKed). This is
    /// byte counting (RFC 3465) in units of full segments. Zero for a pure duplicate ACK.
    pub acked: u32,
    /// Mark echoed by the receiver for the segments this ACK covers.
    pub echo: Echo,
    /// RTT sample from the timestamp echo, if any.
    pub rtt: Option<Dur>,
    /// Smallest RTT sample seen so far on the connection.
    pub min_rtt: Option<Dur>,
    /// Smoothed RTT (RFC 6298), if there is one.
    pub srtt: Option<Dur>,
    /// Segments in flight (RFC 6675 `pipe`) after this ACK was processed.
    pub in_flight: u32,
    /// Whether the sender used the whole window at the last transmission opportunity (Linux
    /// `tcp_is_cwnd_limited`). Controllers should not grow a window that is not being used.
    pub cwnd_limited: bool,
    /// Whether the connection is in loss recovery (fast recovery or after an RTO).
    pub in_recovery: bool,
    /// Segments newly marked lost while processing this ACK.
    pub lost: u32,
    /// Segments delivered (acknowledged or SACKed) over the connection so far, this ACK included.
    pub delivered: u64,
    /// Lowest unacknowledged segment after this ACK (sequence numbers count segments).
    pub snd_una: u32,
    /// Next new segment the sender will send.
    pub snd_nxt: u32,
    /// Delivery-rate sample, when this ACK delivered something and the sample is valid.
    pub rate: Option<RateSample>,
    /// One-way delay of the segment that triggered this ACK: the receiver's timestamp (its clock
    /// quantised to the receiver's timestamp granularity) minus the segment's send time. Sender
    /// and receiver clocks agree here; controllers should still use it relative to its minimum,
    /// as LEDBAT and PropRate do with real clocks.
    pub one_way_delay: Option<Dur>,
}

/// Kind of congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Packet loss detected by SACK / duplicate ACKs (entering fast recovery).
    Loss,
    /// An ECN congestion mark (legacy CE echoed as ECE), at most once per RTT.
    Ecn,
}

/// Snapshot of a controller's state for time series.
#[derive(Clone, Copy, Debug, Default)]
pub struct CcMetrics {
    /// Congestion window (segments).
    pub cwnd: f64,
    /// Slow-start threshold (segments), `None` if infinite.
    pub ssthresh: Option<f64>,
    /// Pacing rate (bytes per second), if paced.
    pub pacing_rate: Option<f64>,
    /// ABC's `w_abc`, if the controller has one.
    pub w_abc: Option<f64>,
    /// ABC-Cubic's `w_cubic`, if the controller has one.
    pub w_cubic: Option<f64>,
}

/// The congestion-controller interface. All hooks have no-op defaults except the window.
pub trait CongestionControl: Send {
    /// Scheme name (as given on the command line).
    fn name(&self) -> &'static str;

    /// Congestion window in segments. The sender keeps `pipe < floor(window())`.
    fn window(&self) -> f64;

    /// Pacing rate in bytes per second, or `None` to send as fast as the window allows.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// Smallest burst (segments) the pacer may release at once. Default 2: Linux's
    /// `tcp_min_tso_segs` with TSO autosizing. A controller that dispatches single packets from a
    /// timer (PropRate) returns 1.
    fn pacing_min_burst(&self) -> u32 {
        crate::sender::PACING_MIN_BURST
    }

    /// A segment (new or retransmitted) was sent; `in_flight` includes it.
    #[allow(unused_variables)]
    fn on_sent(&mut self, now: Time, in_flight: u32) {}

    /// An ACK arrived (including duplicate ACKs, with `acked == 0`).
    #[allow(unused_variables)]
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {}

    /// A congestion event: called once when fast recovery starts (loss) or when a legacy ECN mark
    /// is echoed outside recovery (at most once per RTT). `in_flight` is FlightSize at the event.
    #[allow(unused_variables)]
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, in_flight: u32) {}

    /// Fast recovery ended (the recovery point was cumulatively acknowledged).
    #[allow(unused_variables)]
    fn on_recovery_exit(&mut self, now: Time) {}

    /// The retransmission timer fired.
    #[allow(unused_variables)]
    fn on_rto(&mut self, now: Time, in_flight: u32) {}

    /// The last RTO turned out to be spurious (the original transmissions were acknowledged):
    /// undo its window reduction.
    #[allow(unused_variables)]
    fn on_spurious_rto(&mut self, now: Time) {}

    /// State for time series.
    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            ssthresh: self.ssthresh(),
            pacing_rate: self.pacing_rate(),
            ..CcMetrics::default()
        }
    }

    /// Slow-start threshold in segments, `None` while infinite or for controllers without one.
    fn ssthresh(&self) -> Option<f64> {
        None
    }
}

/// Parameter overrides for a controller: `name -> value` (numbers as f64, flags as 0/1).
pub type Params = BTreeMap<String, f64>;

/// Take a parameter out of `params`, or return `default`.
pub(crate) fn take(params: &mut Params, key: &str, default: f64) -> f64 {
    params.remove(key).unwrap_or(default)
}

/// Fail if any parameter was not consumed by the controller's constructor.
pub(crate) fn reject_unknown(scheme: &str, params: &Params, known: &[&str]) -> Result<()> {
    if let Some(k) = params.keys().next() {
        return Err(Error::Param {
            key: format!("{scheme}.{k}"),
            msg: format!("unknown parameter; {scheme} accepts: {}", known.join(", ")),
        });
    }
    Ok(())
}

/// Names accepted by [`build`].
pub const SCHEMES: &[&str] = &[
    "newreno",
    "cubic",
    "abc",
    "abc-cubic",
    "newreno-abe",
    "cubic-abe",
    "westwood",
    "ledbat",
    "c2tcp",
    "bbr",
    "copa",
    "vegas",
    "proprate",
    "proprate-l",
    "proprate-m",
    "proprate-h",
];

/// Whether a scheme needs ECN at the endpoints (ECT(0) on data, RFC 3168 receiver).
pub fn needs_ecn(scheme: &str) -> bool {
    matches!(scheme, "newreno-abe" | "cubic-abe")
}

/// Whether a scheme sends ABC-marked (accelerate) packets and needs the per-packet echo.
pub fn is_abc(scheme: &str) -> bool {
    matches!(scheme, "abc" | "abc-cubic")
}

/// Build a controller by scheme name with parameter overrides (see each scheme's `*Config`).
/// `rng` is the flow's own random stream, for controllers that draw random numbers (BBR).
pub fn build(scheme: &str, params: &Params, now: Time, rng: crate::rng::Rng) -> Result<Box<dyn CongestionControl>> {
    let mut p = params.clone();
    let cc: Box<dyn CongestionControl> = match scheme {
        "newreno" | "newreno-abe" => {
            if scheme == "newreno-abe" {
                // RFC 8511 §3.1 recommends beta_ecn = 0.8 for Reno-like TCP.
                p.entry("beta_ecn".into()).or_insert(0.8);
            }
            let cfg = newreno::NewRenoConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, newreno::NewRenoConfig::KEYS)?;
            Box::new(newreno::NewReno::new(cfg))
        }
        "cubic" | "cubic-abe" => {
            if scheme == "cubic-abe" {
                // The ABE paper's Cubic setting (and FreeBSD's default for Cubic with ABE): 0.85.
                p.entry("beta_ecn".into()).or_insert(0.85);
            }
            let cfg = cubic::CubicConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, cubic::CubicConfig::KEYS)?;
            Box::new(cubic::Cubic::new(cfg, now))
        }
        "abc" | "abc-cubic" => {
            let cfg = abc::AbcConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, abc::AbcConfig::KEYS)?;
            if scheme == "abc" {
                Box::new(abc::Abc::new(cfg))
            } else {
                Box::new(abc::AbcCubic::new(cfg, now))
            }
        }
        "c2tcp" => {
            let cfg = c2tcp::C2tcpConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, c2tcp::C2tcpConfig::KEYS)?;
            Box::new(c2tcp::C2tcp::new(cfg, now))
        }
        "proprate" | "proprate-l" | "proprate-m" | "proprate-h" => {
            if scheme != "proprate" {
                if let Some(preset) = proprate::PropRateConfig::preset(scheme) {
                    p.entry("target_ms".into()).or_insert(preset.target_ms);
                }
            }
            let cfg = proprate::PropRateConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, proprate::PropRateConfig::KEYS)?;
            Box::new(proprate::PropRate::new(cfg, now))
        }
        "bbr" => {
            let cfg = bbr::BbrConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, bbr::BbrConfig::KEYS)?;
            Box::new(bbr::Bbr::new(cfg, now, rng))
        }
        "copa" => {
            let cfg = copa::CopaConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, copa::CopaConfig::KEYS)?;
            Box::new(copa::Copa::new(cfg, now))
        }
        "vegas" => {
            let cfg = vegas::VegasConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, vegas::VegasConfig::KEYS)?;
            Box::new(vegas::Vegas::new(cfg, now))
        }
        "westwood" => {
            let cfg = westwood::WestwoodConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, westwood::WestwoodConfig::KEYS)?;
            Box::new(westwood::Westwood::new(cfg, now))
        }
        "ledbat" => {
            let cfg = ledbat::LedbatConfig::from_params(&mut p)?;
            reject_unknown(scheme, &p, ledbat::LedbatConfig::KEYS)?;
            Box::new(ledbat::Ledbat::new(cfg, now))
        }
        other => {
            return Err(Error::Param {
                key: "scheme".into(),
                msg: format!(
                    "unknown scheme '{other}'{}; available: {}",
                    crate::error::did_you_mean(other, SCHEMES),
                    SCHEMES.join(", ")
                ),
            })
        }
    };
    Ok(cc)
}
