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
//! Every scheme is one row of [`SCHEMES`] (a [`Scheme`]: name, display name, how its packets carry
//! congestion signals, its default bottleneck queue, its parameter table and a factory), declared in
//! its own file and listed once in the `registry!` below. Scheme lists, parameter checking, the
//! engine's choice of ECN codepoint and receiver, and the Python catalog all derive from it; see
//! `docs/adding-a-scheme.md`.

use crate::error::{did_you_mean, Error, Result};
use crate::packet::Echo;
use crate::params::{self, Given, Param, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// Smallest burst (segments) the pacer releases at once: Linux's `tcp_min_tso_segs` (2) with TSO
/// autosizing. See [`CongestionControl::pacing_min_burst`].
pub const PACING_MIN_BURST: u32 = 2;

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
    /// Explicit feedback echoed by the receiver (XCP: the summed H_feedback of the covered
    /// segments, bytes; RCP: the path's rate, bytes/s), if the ACK carries any.
    pub explicit: Option<f64>,
    /// What the scheme's receiver hook put in the ACK ([`crate::receiver::ReceiverHook`]); all
    /// zero without one.
    pub feedback: [u8; 6],
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
        PACING_MIN_BURST
    }

    /// The RTT the connection's handshake measured, given once when the flow starts, before its
    /// first segment. The simulator has no SYN exchange: this is the flow's propagation RTT, what
    /// a SYN and SYN-ACK crossing idle links measure (their transmission times, queues met by a
    /// flow that joins a busy link, and a trace link's wait for a delivery opportunity are not
    /// included). Linux seeds `srtt` from the SYN-ACK (`tcp_synack_rtt_meas`) before the
    /// controller's `init`; the sender's own estimator here starts empty, so a controller that
    /// reads srtt before its first ACK (Prague's initial pacing rate) takes it from here.
    #[allow(unused_variables)]
    fn on_handshake(&mut self, rtt: Dur) {}

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

    /// The explicit congestion header (XCP, RCP) to put on the data segment being sent now; only
    /// asked of [`Marking::Explicit`] schemes.
    #[allow(unused_variables)]
    fn explicit_header(&mut self, now: Time) -> Option<crate::packet::ExplicitHeader> {
        None
    }

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

    /// When the controller's own timer should fire next (Sprout's heartbeat), or `None`. The
    /// transport wakes at that time and calls [`CongestionControl::on_timer`].
    fn next_timer(&self) -> Option<Time> {
        None
    }

    /// The controller's timer is due (`now ≥ next_timer()`).
    #[allow(unused_variables)]
    fn on_timer(&mut self, now: Time) {}

    /// Flags for `feedback[0]` of the data packet about to be sent (before [`on_sent`]): Sprout
    /// marks its heartbeats ([`crate::packet::HEARTBEAT`]). Default none.
    ///
    /// [`on_sent`]: CongestionControl::on_sent
    fn data_flags(&self) -> u8 {
        0
    }

    /// The receiver-side half of the scheme, for schemes whose receiver computes feedback that
    /// rides on its ACKs (Sprout's delivery forecast). Asked once when the flow is built.
    fn receiver_hook(&self) -> Option<Box<dyn crate::receiver::ReceiverHook>> {
        None
    }

    /// Whether the transport should detect **lost retransmissions** as Linux's RACK does
    /// (RFC 8985 §6.2; Linux `tcp_rack_detect_loss`, on by default since 4.4 with
    /// `tcp_recovery = 1`): a retransmission is lost once a segment sent more than a reordering
    /// window (min RTT / 4) after it has been delivered; and an RTO marks lost only the first
    /// outstanding segment and those sent more than the latest RTT plus that window ago (Linux ≥
    /// 4.18 `tcp_timeout_mark_lost`). Without it (the default, RFC 6675 alone) only the RTO
    /// recovers a lost retransmission, and an RTO marks every outstanding segment lost. Asked once when the flow is built; PCC-Vivace
    /// turns it on with `pcc-vivace.rack` (`docs/cellular-schemes.md`).
    fn detects_lost_retransmissions(&self) -> bool {
        false
    }

    /// Whether the transport should bring the window down in fast recovery by Linux's
    /// proportional rate reduction (RFC 6937 PRR-SSRB, `tcp_cwnd_reduction`, Linux ≥ 3.2): the
    /// window falls from its value at the loss to ssthresh in proportion to the data delivered
    /// during recovery. Without it (the default) the controller's reduced window applies at once
    /// (RFC 6675). Asked once when the flow is built; Cubic turns it on with `cubic.prr`.
    fn reduces_proportionally(&self) -> bool {
        false
    }

    /// Whether the transport should compute its retransmission timeout as Linux does
    /// (`tcp_rtt_estimator`, `__tcp_set_rto`): SRTT plus the largest 4 × mean deviation seen over
    /// the last window of data, that term never below the 200-ms minimum. Without it (the default)
    /// RFC 6298's max(SRTT + 4·RTTVAR, 200 ms), which on a path whose queueing delay swings is far
    /// shorter and fires where Linux's does not (`docs/emulation.md`). Asked once when the flow is
    /// built; Cubic and NewReno turn it on with `linux_rto`.
    fn computes_rto_as_linux(&self) -> bool {
        false
    }

    /// Whether the transport should answer an ECN echo as Linux does (`tcp_enter_cwr`): enter the
    /// CWR state, bring the window down to the controller's reduced one by PRR over the round
    /// (RFC 6937, `tcp_cwnd_reduction`) and not grow it until the round ends
    /// (`tcp_may_raise_cwnd`). Without it the reduced window applies at once and grows on the next
    /// ACK (RFC 3168 §6.1.2 read literally). Asked once when the flow is built; Cubic and NewReno
    /// turn it on with `ecn_cwr` (default on: measured against the kernel in `docs/aqm.md`); the
    /// flow option `ecn_prr` turns it on for any scheme.
    fn reduces_ecn_as_linux(&self) -> bool {
        false
    }
}

/// The `rack` parameter of the schemes that can ask the transport for Linux's RACK loss detection
/// ([`CongestionControl::detects_lost_retransmissions`]): Cubic, NewReno and PCC-Vivace.
pub(crate) const RACK_PARAM: Param = Param::flag("rack", false).doc(
    "transport with Linux's RACK: lost retransmissions detected, an RTO marks only segments sent over an RTT ago (off: RFC 6675 alone, as the other TCP schemes)",
    "RFC 8985; Linux tcp_rack_detect_loss, tcp_timeout_mark_lost (≥ 4.18); docs/cellular-schemes.md, docs/emulation.md",
);

/// The `linux_rto` parameter of the schemes that can ask the transport for Linux's RTO
/// ([`CongestionControl::computes_rto_as_linux`]): Cubic and NewReno.
pub(crate) const LINUX_RTO_PARAM: Param = Param::flag("linux_rto", false).doc(
    "transport with Linux's RTO: SRTT + the largest 4·mean deviation of the last window, that term ≥ 200 ms (off: RFC 6298's max(SRTT + 4·RTTVAR, 200 ms), as the other schemes)",
    "Linux tcp_rtt_estimator, __tcp_set_rto (tcp_input.c, tcp.h); docs/emulation.md",
);

/// The `ecn_cwr` parameter of Cubic and NewReno ([`CongestionControl::reduces_ecn_as_linux`]).
pub(crate) const ECN_CWR_PARAM: Param = Param::flag("ecn_cwr", true).doc(
    "answer an ECN echo as Linux does: CWR state, the window brought down by PRR over the round, no growth until it ends (off: the reduced window at once, growth on the next ACK)",
    "Linux tcp_enter_cwr, tcp_cwnd_reduction (RFC 6937), tcp_may_raise_cwnd; docs/aqm.md",
);

/// How a scheme's data packets carry congestion signals, which decides their ECN codepoint and the
/// receiver's echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marking {
    /// Not ECN-capable unless the flow asks for ECN (`flows[].ecn`); RFC 3168 echo then.
    None,
    /// Always ECT(0) with an RFC 3168 receiver (ABE reacts to CE marks).
    Ecn,
    /// ABC: packets leave the sender marked accelerate; the receiver echoes every packet's mark.
    Abc,
    /// XCP, RCP: data packets carry an explicit congestion header ([`crate::packet::ExplicitHeader`])
    /// that routers lower and the receiver echoes; not ECN-capable.
    Explicit,
    /// VCP: the 2-bit load-factor code in the ECN bits (01 low load, 10 high load, 11 overload;
    /// Xia et al., SIGCOMM 2005 §3); packets leave as 01, routers raise the code to the path's
    /// maximum and the receiver echoes every packet's code (as ABC's receiver does).
    Vcp,
    /// L4S (RFC 9331): data packets carry ECT(1), the L4S identifier, so that a DualQ AQM
    /// (RFC 9332) classifies them into its low-latency queue; the receiver echoes every packet's
    /// mark and sends an ACK at once when the mark changes (DCTCP's state machine, RFC 8257 §3.2;
    /// AccECN's change-triggered ACKs), so each ACK tells exactly how many of the segments it
    /// covers arrived CE. A scheme that wants AccECN's counter (TCP Prague) adds it through its
    /// receiver hook.
    L4s,
}

impl Marking {
    fn name(self) -> &'static str {
        match self {
            Marking::None => "none",
            Marking::Ecn => "ecn",
            Marking::Abc => "abc",
            Marking::Explicit => "explicit",
            Marking::Vcp => "vcp",
            Marking::L4s => "l4s",
        }
    }
}

/// The factory of a scheme: builds the controller from checked parameter values at `now`, with
/// the flow's own random stream. Errors name `family.param`.
pub type Factory = fn(&Values, Time, Rng) -> Result<Box<dyn CongestionControl>>;

/// One row of the scheme registry.
#[derive(Clone, Copy)]
pub struct Scheme {
    /// Name in scenarios and on the command line (`flows[].scheme`).
    pub name: &'static str,
    /// Name as the papers write it (plot labels, tables).
    pub display: &'static str,
    /// Parameter family: the prefix of its parameter keys (`cubic` for `cubic` and `cubic-abe`).
    pub family: &'static str,
    /// One line saying what it is.
    pub summary: &'static str,
    /// What it follows (paper, RFC, reference code).
    pub source: &'static str,
    /// How its packets carry congestion signals.
    pub marking: Marking,
    /// Queue type it is normally run over (the preset's data bottleneck).
    pub queue: &'static str,
    /// Other queue types commonly paired with it, each listed as the preset `name+queue`.
    pub pairs: &'static [&'static str],
    /// Parameter tables: its own, then those of a scheme it builds on (C2TCP: Cubic's).
    pub params: &'static [&'static [Param]],
    /// Defaults this scheme changes from its tables (e.g. `cubic-abe`: `beta_ecn` 0.85).
    pub preset: &'static [(&'static str, f64)],
    /// Plot colour and marker (matplotlib), so a scheme looks the same in every figure.
    pub style: (&'static str, &'static str),
    /// Builds the controller.
    pub build: Factory,
    /// Its operating-range check, if it has one: warnings about a flow's settings
    /// ([`crate::warning`]). `None`: no known bounds.
    pub warnings: Option<crate::warning::FlowCheck>,
}

impl std::fmt::Debug for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheme")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Scheme {
    /// Check `given` against the scheme's tables, then apply its preset to what was not given.
    pub fn values(&self, given: &Given) -> Result<Values> {
        let mut v = params::parse(self.family, self.family, self.params, given)?;
        for (name, x) in self.preset {
            if !given.contains_key(*name) {
                let p = v.table().iter().find(|p| p.name == *name).copied();
                let p = p.unwrap_or_else(|| panic!("preset of {}: no parameter {name}", self.name));
                let key = format!("{}.{name}", self.family);
                v.set(name, p.check(&key, &params::Value::Num(*x))?);
            }
        }
        Ok(v)
    }

    /// The scheme as a catalog entry: its row and every parameter with the default it uses.
    pub fn to_json(&self) -> serde_json::Value {
        let params: Vec<serde_json::Value> = self
            .params
            .iter()
            .flat_map(|t| t.iter())
            .map(|p| {
                let mut j = p.to_json();
                if let Some((_, x)) = self.preset.iter().find(|(n, _)| *n == p.name) {
                    j["default"] = serde_json::json!(x);
                }
                j
            })
            .collect();
        serde_json::json!({
            "name": self.name,
            "display": self.display,
            "family": self.family,
            "summary": self.summary,
            "source": self.source,
            "marking": self.marking.name(),
            "receiver": match self.marking {
                Marking::Abc | Marking::Vcp => "abc-echo",
                Marking::L4s => "per-packet-echo",
                Marking::Explicit => "explicit-echo",
                Marking::None | Marking::Ecn => "tcp",
            },
            "queue": self.queue,
            "pairs": self.pairs,
            "color": self.style.0,
            "marker": self.style.1,
            "params": params,
        })
    }
}

/// Declares the scheme files (`pub mod`) and lists their rows in [`SCHEMES`], in listing order:
/// one line per file.
macro_rules! registry {
    ($($file:ident => [$($row:ident),* $(,)?]),* $(,)?) => {
        $(pub mod $file;)*
        /// Every scheme, in listing order.
        pub static SCHEMES: &[&Scheme] = &[$($(&$file::$row),*),*];
    };
}

/// RFC 6817's base-delay history, shared by LEDBAT and PropRate (not a scheme).
pub mod base_delay;

// The same files as plain (never compiled) `mod` items, so that source walkers that do not expand
// macros, such as cargo-mutants (docs/testing.md), find them; `rustfmt::skip` keeps `cargo fmt`
// from formatting them through these items. Keep in step with `registry!` below (a unit test checks).
#[cfg(any())]
#[rustfmt::skip]
mod abc;
#[cfg(any())]
#[rustfmt::skip]
mod bbr;
#[cfg(any())]
#[rustfmt::skip]
mod bbr3;
#[cfg(any())]
#[rustfmt::skip]
mod c2tcp;
#[cfg(any())]
#[rustfmt::skip]
mod copa;
#[cfg(any())]
#[rustfmt::skip]
mod cubic;
#[cfg(any())]
#[rustfmt::skip]
mod fixed;
#[cfg(any())]
#[rustfmt::skip]
mod ledbat;
#[cfg(any())]
#[rustfmt::skip]
mod newreno;
#[cfg(any())]
#[rustfmt::skip]
mod proprate;
#[cfg(any())]
#[rustfmt::skip]
mod vegas;
#[cfg(any())]
#[rustfmt::skip]
mod westwood;
#[cfg(any())]
#[rustfmt::skip]
mod xcp;
#[cfg(any())]
#[rustfmt::skip]
mod rcp;
#[cfg(any())]
#[rustfmt::skip]
mod pcc;
#[cfg(any())]
#[rustfmt::skip]
mod verus;
#[cfg(any())]
#[rustfmt::skip]
mod sprout;
#[cfg(any())]
#[rustfmt::skip]
mod vcp;
#[cfg(any())]
#[rustfmt::skip]
mod dctcp;
#[cfg(any())]
#[rustfmt::skip]
mod prague;

// Controllers implemented outside the core (Python) or steered from outside (not schemes).
pub mod external;

registry! {
    abc => [ABC, ABC_CUBIC, PK_ABC, ABC_PREDICT],
    cubic => [CUBIC, CUBIC_ABE],
    newreno => [NEWRENO, NEWRENO_ABE],
    bbr => [BBR],
    bbr3 => [BBR3],
    copa => [COPA],
    vegas => [VEGAS],
    westwood => [WESTWOOD],
    ledbat => [LEDBAT],
    c2tcp => [C2TCP],
    proprate => [PROPRATE, PROPRATE_L, PROPRATE_M, PROPRATE_H],
    fixed => [FIXED],
    xcp => [XCP, XCP_W],
    rcp => [RCP],
    pcc => [PCC_VIVACE],
    verus => [VERUS],
    sprout => [SPROUT],
    vcp => [VCP],
    dctcp => [DCTCP],
    prague => [PRAGUE],
}

/// A plain `name → number` parameter map (flags as 0/1), for Rust callers and tests
/// ([`crate::params::Config::from_params`]).
pub type Params = std::collections::BTreeMap<String, f64>;

/// Scheme names, in listing order.
pub fn names() -> Vec<&'static str> {
    SCHEMES.iter().map(|s| s.name).collect()
}

/// The registry row of a scheme; the error (key `scheme`) lists the names and suggests one.
pub fn lookup(name: &str) -> Result<&'static Scheme> {
    SCHEMES.iter().copied().find(|s| s.name == name).ok_or_else(|| {
        let names = names();
        Error::Param {
            key: "scheme".into(),
            msg: format!(
                "unknown scheme '{name}'{}; available: {}",
                did_you_mean(name, &names),
                names.join(", ")
            ),
        }
    })
}

/// Build a controller by scheme name with parameter overrides (see each scheme's table).
/// `rng` is the flow's own random stream, for controllers that draw random numbers (BBR).
pub fn build(scheme: &str, given: &Given, now: Time, rng: Rng) -> Result<Box<dyn CongestionControl>> {
    let s = lookup(scheme)?;
    (s.build)(&s.values(given)?, now, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Value;

    #[test]
    fn every_scheme_file_is_visible_to_cargo_mutants() {
        crate::queue::assert_registry_files_are_visible(include_str!("mod.rs"));
    }

    /// A controller that implements only the two required methods.
    struct Bare;

    impl CongestionControl for Bare {
        fn name(&self) -> &'static str {
            "bare"
        }
        fn window(&self) -> f64 {
            7.0
        }
    }

    /// One that reports a slow-start threshold and a pacing rate.
    struct Reporting;

    impl CongestionControl for Reporting {
        fn name(&self) -> &'static str {
            "reporting"
        }
        fn window(&self) -> f64 {
            9.5
        }
        fn ssthresh(&self) -> Option<f64> {
            Some(4.0)
        }
        fn pacing_rate(&self) -> Option<f64> {
            Some(1e6)
        }
    }

    #[test]
    fn the_trait_defaults_are_unpaced_bursts_of_two_and_no_extras() {
        let mut cc = Bare;
        assert_eq!(cc.pacing_rate(), None);
        assert_eq!(cc.pacing_min_burst(), 2, "Linux tcp_min_tso_segs");
        assert_eq!(cc.ssthresh(), None);
        assert_eq!(cc.next_timer(), None);
        assert_eq!(cc.data_flags(), 0);
        assert!(cc.receiver_hook().is_none());
        assert!(cc.explicit_header(Time::ZERO).is_none());
        let fields = |m: CcMetrics| (m.cwnd, m.ssthresh, m.pacing_rate, m.w_abc, m.w_cubic);
        assert_eq!(fields(cc.metrics()), (7.0, None, None, None, None));
        // The default metrics report what the controller's own methods say.
        assert_eq!(fields(Reporting.metrics()), (9.5, Some(4.0), Some(1e6), None, None));
    }

    #[test]
    fn lookup_names_and_build_follow_the_registry() {
        let names = names();
        assert_eq!(names.len(), SCHEMES.len());
        assert_eq!(names[..3], ["abc", "abc-cubic", "pk-abc"]);
        assert!(names.contains(&"ledbat") && names.contains(&"proprate-h"));
        for name in ["cubic", "ledbat", "proprate-m"] {
            assert_eq!(lookup(name).unwrap().name, name);
        }
        match lookup("ledbta") {
            Err(Error::Param { key, msg }) => {
                assert_eq!(key, "scheme");
                assert!(msg.starts_with("unknown scheme 'ledbta'"), "{msg}");
                assert!(msg.contains("ledbat") && msg.contains(&names.join(", ")), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        let given = Given::from([("initial_window".to_string(), Value::Num(5.0))]);
        let cc = build("ledbat", &given, Time::ZERO, Rng::stream(1, 0)).unwrap();
        assert_eq!((cc.name(), cc.window()), ("ledbat", 5.0));
        assert_eq!(
            format!("{:?}", lookup("ledbat").unwrap()),
            r#"Scheme { name: "ledbat", .. }"#
        );
        assert!(build(
            "ledbat",
            &Given::from([("gain".to_string(), Value::Num(2.0))]),
            Time::ZERO,
            Rng::stream(1, 0)
        )
        .is_err());
    }

    #[test]
    fn a_preset_changes_the_default_but_not_a_given_value() {
        let l = lookup("proprate-l").unwrap();
        assert_eq!(l.values(&Given::new()).unwrap().real("target_ms"), 20.0);
        let given = Given::from([("target_ms".to_string(), Value::Num(30.0))]);
        assert_eq!(l.values(&given).unwrap().real("target_ms"), 30.0);
        assert_eq!(
            lookup("proprate")
                .unwrap()
                .values(&Given::new())
                .unwrap()
                .real("target_ms"),
            40.0
        );
    }

    #[test]
    fn catalog_entries_carry_the_row_its_marking_receiver_and_preset_defaults() {
        let j = lookup("cubic-abe").unwrap().to_json();
        assert_eq!(j["name"], "cubic-abe");
        assert_eq!(j["display"], "Cubic-ABE");
        assert_eq!(j["family"], "cubic");
        assert_eq!(j["summary"], cubic::CUBIC_ABE.summary);
        assert_eq!(j["source"], cubic::CUBIC_ABE.source);
        assert_eq!(
            (j["marking"].as_str(), j["receiver"].as_str()),
            (Some("ecn"), Some("tcp"))
        );
        assert_eq!(j["queue"], "codel");
        assert_eq!(j["pairs"], serde_json::json!(["pie"]));
        assert_eq!(
            (j["color"].as_str(), j["marker"].as_str()),
            (Some("#bd9e39"), Some("v"))
        );
        let param = |j: &serde_json::Value, name: &str| {
            j["params"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .cloned()
                .unwrap()
        };
        // A preset's value is the default the catalog shows (PropRate's table says 40 ms).
        assert_eq!(
            param(&lookup("proprate-l").unwrap().to_json(), "target_ms")["default"],
            20.0
        );
        assert_eq!(
            param(&lookup("proprate").unwrap().to_json(), "target_ms")["default"],
            40.0
        );
        for (scheme, marking, receiver) in [
            ("cubic", "none", "tcp"),
            ("abc", "abc", "abc-echo"),
            ("xcp", "explicit", "explicit-echo"),
            ("rcp", "explicit", "explicit-echo"),
            ("vcp", "vcp", "abc-echo"),
        ] {
            let j = lookup(scheme).unwrap().to_json();
            assert_eq!(
                (j["marking"].as_str(), j["receiver"].as_str()),
                (Some(marking), Some(receiver)),
                "{scheme}"
            );
        }
    }

    #[test]
    fn a_preset_is_checked_against_its_own_parameter() {
        // A preset value valid for its parameter (x in [0, 10]) but not for the table's other one
        // (a flag): the preset names which parameter it sets.
        const TABLE: &[Param] = &[
            Param::flag("on", false).doc("a flag", "test"),
            Param::real("x", 1.0, params::Unit::None, 0.0, 10.0).doc("a number", "test"),
        ];
        const ROW: Scheme = Scheme {
            name: "test-row",
            display: "Test",
            family: "test",
            summary: "a row for this test",
            source: "none",
            marking: Marking::None,
            queue: "droptail",
            pairs: &[],
            params: &[TABLE],
            preset: &[("x", 5.0)],
            style: ("#000000", "o"),
            build: |_v, _now, _rng| Ok(Box::new(Bare)),
            warnings: None,
        };
        let v = ROW.values(&Given::new()).unwrap();
        assert_eq!((v.real("x"), v.flag("on")), (5.0, false));
    }
}
