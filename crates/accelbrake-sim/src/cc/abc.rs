//! The ABC sender (paper §3.1.1, §3.1.3 Eq. 3, §4.1; artifact `tcp_abc.c`, `tcp_abccubic.c`).
//!
//! `abc`: on every ACK, for the `n` segments it newly delivers (byte counting),
//! `w ← w + n` if they were marked accelerate, `w ← w − n` if brake (or legacy CE), plus the additive
//! increase `1 / w` per ACK (Eq. 3 "on each ACK"; the artifact's counter of ACK events that adds 1
//! when it passes `w`). No slow start and no loss response: like the
//! artifact, drops are repaired by the transport without touching `w`. Paced at `2·w·MTU / RTT`
//! (the artifact's `w·100·29e6/rtt_us` ≈ 2·w·1448/RTT, using the latest RTT sample).
//!
//! `abc-cubic` (§4.1): keeps `w_abc` (as above) and `w_cubic` (Linux Cubic, reacting to drops and
//! legacy CE) and sends by `min(w_abc, w_cubic)`; when the sender is window-limited both are capped
//! at `2 × in-flight` so that the window that is not in control cannot run away.
//!
//! Deviations from the artifact (see `docs/abc.md`):
//! * Additive increase `1 / w` per ACK is continuous; the artifact's integer counter adds a whole
//!   segment once `w` ACK events have passed. `ai_per_segment = 1` adds `n / w` instead (Eq. 3 with
//!   byte counting applied to the increase too), which leaves the Fig. 3 flows less fair (docs).
//! * The artifact only brakes while `w > 5 + n` (a floor of about 6); we clamp at `min_window` = 6.
//! * The §4.1 cap is `2 × in-flight` as in the paper; the artifact uses `2 × in-flight + 5`.

use super::cubic::{Cubic, CubicConfig};
use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, Scheme};
use crate::error::{Error, Result};
use crate::params::{Config, Param, Unit, Values};
use crate::packet::{Echo, MTU};
use crate::time::Time;

/// The ABC sender's parameters (keys `abc.<name>`; the router's are the `abc` queue's).
pub const PARAMS: &[Param] = &[
    Param::real("initial_window", 10.0, Unit::Segments, 1.0, 1e6)
        .doc("initial window (at least min_window)", "Linux initial cwnd, RFC 6928"),
    Param::real("min_window", 6.0, Unit::Segments, 1.0, 1e6)
        .doc("smallest window brakes can reach", "artifact tcp_abc.c: brakes only while w > 5 + n"),
    Param::flag("additive_increase", true).doc("Eq. 3's additive increase (off: the Fig. 3a ablation)", "ABC paper §3.1.3 Eq. 3"),
    Param::flag("ai_per_segment", false)
        .doc("additive increase n/w per ACK of n segments instead of 1/w per ACK", "ABC paper Eq. 3 (\"on each ACK\")"),
    Param::real("pacing_gain", 2.0, Unit::None, 0.0, 1e6)
        .doc("pacing rate = gain·w/RTT (0: no pacing)", "artifact tcp_abc.c: w·100·29e6/rtt_us ≈ 2·w·MSS/RTT"),
];

/// ABC's sender over an ABC router.
pub const ABC: Scheme = Scheme {
    name: "abc",
    display: "ABC",
    family: "abc",
    summary: "ABC sender (paper Eq. 3) over the ABC router",
    source: "ABC paper (NSDI 2020) §3.1; artifact tcp_abc.c",
    marking: Marking::Abc,
    queue: "abc",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#d62728", "*"),
    build: |v, _now, _rng| Ok(Box::new(Abc::new(AbcConfig::checked(v)?))),
    warnings: None,
};

/// PK-ABC (§7.6): the ABC sender over the PK-ABC router, which knows the link one RTT ahead.
pub const PK_ABC: Scheme = Scheme {
    name: "pk-abc",
    display: "PK-ABC",
    summary: "ABC sender over the PK-ABC router (μ from the trace one RTT ahead)",
    source: "ABC paper (NSDI 2020) §7.6",
    queue: "pk-abc",
    style: ("#e377c2", "X"),
    build: |v, _now, _rng| Ok(Box::new(Abc::new(AbcConfig::checked(v)?).named("pk-abc"))),
    ..ABC
};

/// Predictive ABC (beyond the paper): the ABC sender over the predictive ABC router.
pub const ABC_PREDICT: Scheme = Scheme {
    name: "abc-predict",
    display: "ABC (predictive)",
    summary: "ABC sender over the predictive ABC router (μ forecast one RTT ahead, no trace knowledge)",
    source: "ours, towards PK-ABC of the ABC paper §7.6",
    queue: "abc-predict",
    style: ("#aec7e8", "d"),
    build: |v, _now, _rng| Ok(Box::new(Abc::new(AbcConfig::checked(v)?).named("abc-predict"))),
    ..ABC
};

/// ABC §4.1: `min(w_abc, w_cubic)` over the ABC router.
pub const ABC_CUBIC: Scheme = Scheme {
    name: "abc-cubic",
    display: "ABC (w_cubic)",
    summary: "ABC §4.1 sender keeping w_abc and w_cubic, sending by their minimum",
    source: "ABC paper §4.1; artifact tcp_abccubic.c",
    style: ("#ff7f0e", "P"),
    build: |v, now, _rng| Ok(Box::new(AbcCubic::new(AbcConfig::checked(v)?, now))),
    ..ABC
};

/// ABC sender parameters (see [`PARAMS`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AbcConfig {
    /// Initial window in segments.
    pub initial_window: f64,
    /// Smallest window in segments.
    pub min_window: f64,
    /// Additive increase of Eq. 3 (switch off for the Fig. 3a ablation).
    pub additive_increase: bool,
    /// Additive increase `n / w` per ACK of `n` segments instead of `1 / w` per ACK.
    pub ai_per_segment: bool,
    /// Pacing gain over `w / RTT`; 0 disables pacing.
    pub pacing_gain: f64,
}

crate::default_from_table!(AbcConfig);

impl Config for AbcConfig {
    const PREFIX: &'static str = "abc";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> AbcConfig {
        AbcConfig {
            initial_window: v.real("initial_window"),
            min_window: v.real("min_window"),
            additive_increase: v.flag("additive_increase"),
            ai_per_segment: v.flag("ai_per_segment"),
            pacing_gain: v.real("pacing_gain"),
        }
    }

    fn check(&self) -> Result<()> {
        if self.initial_window >= self.min_window {
            Ok(())
        } else {
            Err(Error::Param {
                key: "abc.initial_window".into(),
                msg: format!(
                    "got {}; expected a number of segments ≥ min_window ({})",
                    self.initial_window, self.min_window
                ),
            })
        }
    }
}

/// The ABC window rule, shared by both variants.
#[derive(Clone, Debug)]
struct AbcWindow {
    w: f64,
    cfg: AbcConfig,
}

impl AbcWindow {
    fn on_ack(&mut self, ack: &AckInfo) {
        let n = ack.acked as f64;
        if n == 0.0 {
            return;
        }
        match ack.echo {
            Echo::Accelerate => self.w += n,
            Echo::Brake | Echo::Ce => self.w -= n,
            Echo::None => {}
        }
        if self.cfg.additive_increase {
            let per_ack = if self.cfg.ai_per_segment { n } else { 1.0 };
            self.w += per_ack / self.w.max(1.0);
        }
        self.w = self.w.max(self.cfg.min_window);
    }
}

fn pacing(gain: f64, window: f64, ack_rtt: Option<f64>) -> Option<f64> {
    match ack_rtt {
        Some(rtt) if gain > 0.0 && rtt > 0.0 => Some(gain * window * MTU as f64 / rtt),
        _ => None,
    }
}

/// Basic ABC sender (`abc`).
#[derive(Clone, Debug)]
pub struct Abc {
    name: &'static str,
    win: AbcWindow,
    rtt: Option<f64>,
}

impl Abc {
    /// A new sender.
    pub fn new(cfg: AbcConfig) -> Abc {
        Abc {
            name: "abc",
            win: AbcWindow {
                w: cfg.initial_window,
                cfg,
            },
            rtt: None,
        }
    }

    /// The same sender under another scheme's name (PK-ABC's and predictive ABC's rows).
    pub fn named(self, name: &'static str) -> Abc {
        Abc { name, ..self }
    }
}

impl CongestionControl for Abc {
    fn name(&self) -> &'static str {
        self.name
    }
    fn window(&self) -> f64 {
        self.win.w
    }
    fn pacing_rate(&self) -> Option<f64> {
        pacing(self.win.cfg.pacing_gain, self.win.w, self.rtt)
    }
    fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt = Some(r.secs_f64());
        }
        self.win.on_ack(ack);
    }
    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.win.w,
            pacing_rate: self.pacing_rate(),
            w_abc: Some(self.win.w),
            ..Default::default()
        }
    }
}

/// ABC with a Cubic window for non-ABC bottlenecks (`abc-cubic`, paper §4.1).
pub struct AbcCubic {
    win: AbcWindow,
    cubic: Cubic,
    rtt: Option<f64>,
}

impl AbcCubic {
    /// A new sender.
    pub fn new(cfg: AbcConfig, now: Time) -> AbcCubic {
        AbcCubic {
            win: AbcWindow {
                w: cfg.initial_window,
                cfg,
            },
            cubic: Cubic::new(CubicConfig::default(), now),
            rtt: None,
        }
    }

    fn cap(&mut self, in_flight: u32) {
        let cap = (2.0 * in_flight as f64).max(self.win.cfg.min_window);
        self.win.w = self.win.w.min(cap);
        self.cubic.cap_window(cap);
    }
}

impl CongestionControl for AbcCubic {
    fn name(&self) -> &'static str {
        "abc-cubic"
    }
    fn window(&self) -> f64 {
        self.win.w.min(self.cubic.window())
    }
    fn pacing_rate(&self) -> Option<f64> {
        pacing(self.win.cfg.pacing_gain, self.window(), self.rtt)
    }
    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.cubic.on_sent(now, in_flight);
    }
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        if let Some(r) = ack.rtt {
            self.rtt = Some(r.secs_f64());
        }
        self.win.on_ack(ack);
        self.cubic.on_ack(now, ack);
        if ack.cwnd_limited {
            self.cap(ack.in_flight);
        }
    }
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, in_flight: u32) {
        self.cubic.on_congestion_event(now, kind, in_flight);
        self.cap(in_flight);
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.cubic.on_recovery_exit(now);
    }
    fn on_rto(&mut self, now: Time, in_flight: u32) {
        self.cubic.on_rto(now, in_flight);
    }
    fn on_spurious_rto(&mut self, now: Time) {
        self.cubic.on_spurious_rto(now);
    }
    fn metrics(&self) -> CcMetrics {
        let m = self.cubic.metrics();
        CcMetrics {
            cwnd: self.window(),
            ssthresh: m.ssthresh,
            pacing_rate: self.pacing_rate(),
            w_abc: Some(self.win.w),
            w_cubic: Some(self.cubic.window()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Dur;

    fn ack(acked: u32, echo: Echo) -> AckInfo {
        AckInfo {
            acked,
            echo,
            rtt: Some(Dur::from_millis(100)),
            min_rtt: Some(Dur::from_millis(100)),
            srtt: Some(Dur::from_millis(100)),
            in_flight: 10,
            cwnd_limited: true,
            in_recovery: false,
            ..AckInfo::default()
        }
    }

    #[test]
    fn accelerate_and_brake_move_the_window_by_one_per_segment() {
        let mut a = Abc::new(AbcConfig {
            additive_increase: false,
            ..Default::default()
        });
        a.on_ack(Time::ZERO, &ack(2, Echo::Accelerate));
        assert_eq!(a.window(), 12.0);
        a.on_ack(Time::ZERO, &ack(1, Echo::Brake));
        assert_eq!(a.window(), 11.0);
        a.on_ack(Time::ZERO, &ack(1, Echo::Ce));
        assert_eq!(a.window(), 10.0);
        a.on_ack(Time::ZERO, &ack(0, Echo::Accelerate));
        assert_eq!(a.window(), 10.0, "duplicate ACKs carry no new feedback");
    }

    #[test]
    fn additive_increase_is_per_ack_unless_per_segment() {
        // Ten ACKs of 2 segments each, alternating accelerate / brake (net 0, w between 20 and 22):
        // 1/w per ACK adds Σ 1/w ≈ 0.47 segment; n/w per ACK twice that (hand-computed sums).
        for (per_segment, expected) in [(false, 20.4724), (true, 20.9356)] {
            let mut a = Abc::new(AbcConfig {
                initial_window: 20.0,
                ai_per_segment: per_segment,
                ..Default::default()
            });
            for i in 0..10 {
                a.on_ack(
                    Time::ZERO,
                    &ack(2, if i % 2 == 0 { Echo::Accelerate } else { Echo::Brake }),
                );
            }
            assert!((a.window() - expected).abs() < 1e-4, "{per_segment}: {}", a.window());
        }
    }

    #[test]
    fn additive_increase_adds_one_segment_per_window_of_acks() {
        let mut a = Abc::new(AbcConfig {
            initial_window: 20.0,
            ..Default::default()
        });
        // Alternate accelerate and brake (f = 1/2): only the additive increase remains.
        for i in 0..20 {
            a.on_ack(
                Time::ZERO,
                &ack(1, if i % 2 == 0 { Echo::Accelerate } else { Echo::Brake }),
            );
        }
        assert!((a.window() - 21.0).abs() < 0.05, "{}", a.window());
    }

    #[test]
    fn steady_state_window_is_one_over_one_minus_two_f() {
        // Paper §3.1.3: with accelerate fraction f, w* = 1 / (1 − 2f). f = 0.45 → w* = 10.
        let mut a = Abc::new(AbcConfig {
            initial_window: 30.0,
            ..Default::default()
        });
        let mut tokens = 0.0;
        for _ in 0..20_000 {
            tokens += 0.45;
            let echo = if tokens >= 1.0 {
                tokens -= 1.0;
                Echo::Accelerate
            } else {
                Echo::Brake
            };
            a.on_ack(Time::ZERO, &ack(1, echo));
        }
        assert!((a.window() - 10.0).abs() < 1.5, "{}", a.window());
    }

    #[test]
    fn brakes_stop_at_the_minimum_window() {
        let mut a = Abc::new(AbcConfig::default());
        for _ in 0..100 {
            a.on_ack(Time::ZERO, &ack(1, Echo::Brake));
        }
        assert!(a.window() >= 6.0 && a.window() < 6.5);
    }

    #[test]
    fn pacing_is_twice_window_over_rtt() {
        let mut a = Abc::new(AbcConfig {
            additive_increase: false,
            ..Default::default()
        });
        a.on_ack(Time::ZERO, &ack(0, Echo::None));
        a.on_ack(Time::ZERO, &ack(1, Echo::Accelerate));
        let expect = 2.0 * 11.0 * 1500.0 / 0.1;
        assert!((a.pacing_rate().unwrap() - expect).abs() < 1e-6);
    }

    #[test]
    fn abc_cubic_sends_by_the_smaller_window_and_caps_both() {
        let mut a = AbcCubic::new(AbcConfig::default(), Time::ZERO);
        // Accelerates grow w_abc; cubic slow start grows w_cubic too, both capped at 2x in-flight.
        for _ in 0..50 {
            let mut k = ack(1, Echo::Accelerate);
            k.in_flight = 12;
            a.on_ack(Time::ZERO, &k);
        }
        let m = a.metrics();
        assert!(m.w_abc.unwrap() <= 24.0 && m.w_cubic.unwrap() <= 24.0, "{m:?}");
        assert_eq!(a.window(), m.w_abc.unwrap().min(m.w_cubic.unwrap()));
        // A loss cuts w_cubic only (×0.7), so it takes control.
        let before = m.w_cubic.unwrap();
        a.on_congestion_event(Time::from_millis(1), CongestionKind::Loss, 24);
        let m = a.metrics();
        assert!(m.w_cubic.unwrap() <= before * 0.7 + 1.0, "{m:?}");
        assert!(a.window() <= m.w_cubic.unwrap());
    }

    #[test]
    fn plain_abc_reports_its_window_and_paces_only_with_an_rtt_and_a_gain() {
        let mut a = Abc::new(AbcConfig::default());
        assert_eq!(a.name(), "abc");
        assert_eq!(a.pacing_rate(), None, "no RTT sample yet");
        let mut k = ack(1, Echo::Accelerate);
        k.rtt = None;
        a.on_ack(Time::ZERO, &k);
        let w = 11.0 + 1.0 / 11.0;
        assert_eq!(a.window(), w);
        assert_eq!(a.pacing_rate(), None, "still no RTT sample");
        a.on_ack(Time::ZERO, &ack(0, Echo::None));
        assert_eq!(a.window(), w, "a duplicate ACK changes nothing");
        let m = a.metrics();
        assert_eq!((m.cwnd, m.w_abc, m.w_cubic, m.ssthresh), (w, Some(w), None, None));
        assert_eq!(m.pacing_rate, Some(2.0 * w * 1500.0 / 0.1));
        // An ACK that echoes no mark only adds the additive increase.
        a.on_ack(Time::ZERO, &ack(1, Echo::None));
        assert_eq!(a.window(), w + 1.0 / w);
        let mut silent = Abc::new(AbcConfig {
            pacing_gain: 0.0,
            ..Default::default()
        });
        silent.on_ack(Time::ZERO, &ack(1, Echo::Accelerate));
        assert_eq!(silent.pacing_rate(), None, "gain 0: no pacing");
        assert_eq!(pacing(2.0, 10.0, Some(0.0)), None, "a zero RTT gives no rate");
        assert_eq!(pacing(3.0, 10.0, Some(0.5)), Some(3.0 * 10.0 * 1500.0 / 0.5));
    }

    #[test]
    fn brakes_clamp_at_min_window_before_the_additive_increase_is_lost() {
        let mut a = Abc::new(AbcConfig {
            initial_window: 7.0,
            ..Default::default()
        });
        // 7 − 3 = 4, plus 1/4, clamped to the minimum 6.
        a.on_ack(Time::ZERO, &ack(3, Echo::Brake));
        assert_eq!(a.window(), 6.0);
        a.on_ack(Time::ZERO, &ack(1, Echo::Accelerate));
        assert_eq!(a.window(), 7.0 + 1.0 / 7.0);
        // A window below one segment divides the increase by 1, not by w.
        let mut tiny = Abc::new(AbcConfig {
            initial_window: 0.5,
            min_window: 0.25,
            ..Default::default()
        });
        tiny.on_ack(Time::ZERO, &ack(1, Echo::None));
        assert_eq!(tiny.window(), 1.5);
    }

    #[test]
    fn config_check_needs_the_initial_window_at_least_the_minimum() {
        let ok = AbcConfig {
            initial_window: 6.0,
            min_window: 6.0,
            ..Default::default()
        };
        assert!(ok.check().is_ok());
        let bad = AbcConfig {
            initial_window: 5.0,
            ..ok
        };
        match bad.check() {
            Err(Error::Param { key, msg }) => {
                assert_eq!(key, "abc.initial_window");
                assert!(msg.contains("min_window (6)"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        let v = AbcConfig::from_params(&mut crate::cc::Params::from([
            ("initial_window".to_string(), 12.0),
            ("min_window".to_string(), 3.0),
            ("additive_increase".to_string(), 0.0),
            ("ai_per_segment".to_string(), 1.0),
            ("pacing_gain".to_string(), 1.5),
        ]))
        .unwrap();
        assert_eq!(
            v,
            AbcConfig {
                initial_window: 12.0,
                min_window: 3.0,
                additive_increase: false,
                ai_per_segment: true,
                pacing_gain: 1.5
            }
        );
    }

    #[test]
    fn abc_cubic_on_ack_moves_both_windows_exactly_and_caps_at_twice_in_flight() {
        let mut a = AbcCubic::new(AbcConfig::default(), Time::ZERO);
        assert_eq!(a.name(), "abc-cubic");
        assert_eq!(a.pacing_rate(), None);
        // Accelerate, 1 segment: w_abc = 10 + 1 + 1/11; Cubic slow start: 11. Cap 2·10 = 20.
        a.on_ack(Time::ZERO, &ack(1, Echo::Accelerate));
        let w_abc = 11.0 + 1.0 / 11.0;
        let m = a.metrics();
        assert_eq!(
            (m.w_abc, m.w_cubic, m.cwnd, a.window()),
            (Some(w_abc), Some(11.0), 11.0, 11.0)
        );
        assert_eq!((m.ssthresh, m.pacing_rate), (None, Some(2.0 * 11.0 * 1500.0 / 0.1)));
        // Brake, 2 segments, not window-limited: w_abc falls below w_cubic, which does not grow.
        let mut k = ack(2, Echo::Brake);
        k.cwnd_limited = false;
        k.rtt = Some(Dur::from_millis(50));
        a.on_ack(Time::from_millis(1), &k);
        let w_abc = w_abc - 2.0 + 1.0 / (w_abc - 2.0);
        let m = a.metrics();
        assert_eq!((m.w_abc, m.w_cubic, a.window()), (Some(w_abc), Some(11.0), w_abc));
        assert_eq!(a.pacing_rate(), Some(2.0 * w_abc * 1500.0 / 0.05));
        // Window-limited with 3 in flight: both are capped at max(2·3, min_window 6) = 6.
        let mut k = ack(1, Echo::Accelerate);
        k.in_flight = 3;
        a.on_ack(Time::from_millis(2), &k);
        let m = a.metrics();
        assert_eq!((m.w_abc, m.w_cubic, a.window()), (Some(6.0), Some(6.0), 6.0));
        // The cap is twice the data in flight when that is above min_window.
        for _ in 0..10 {
            a.on_ack(Time::from_millis(3), &ack(1, Echo::Accelerate));
        }
        let mut k = ack(1, Echo::Accelerate);
        k.in_flight = 4;
        a.on_ack(Time::from_millis(4), &k);
        let m = a.metrics();
        assert_eq!((m.w_abc, m.w_cubic), (Some(8.0), Some(8.0)));
    }

    /// The ABC-Cubic ACK for `in_flight` segments that leaves the cap (2·in-flight) out of play.
    fn cubic_ack(acked: u32, in_recovery: bool) -> AckInfo {
        AckInfo {
            in_flight: 10_000,
            in_recovery,
            ..ack(acked, Echo::None)
        }
    }

    #[test]
    fn abc_cubic_hands_every_loss_event_to_its_cubic_window() {
        // w_cubic is exactly a Linux Cubic driven by the same events: RTO, spurious-RTO undo,
        // recovery exit and the idle restart on sending all reach it.
        let mut a = AbcCubic::new(
            AbcConfig {
                initial_window: 1000.0,
                ..Default::default()
            },
            Time::ZERO,
        );
        let mut r = Cubic::new(CubicConfig::default(), Time::ZERO);
        let ms = Time::from_millis;
        let same = |a: &AbcCubic, r: &Cubic, at: &str| {
            let m = a.metrics();
            assert_eq!(m.w_cubic, Some(r.window()), "{at}");
            assert_eq!(m.ssthresh, r.ssthresh(), "{at}");
            assert_eq!(a.window(), r.window().min(m.w_abc.unwrap()), "{at}");
        };
        for i in 0..30 {
            a.on_sent(ms(i), 10);
            r.on_sent(ms(i), 10);
            a.on_ack(ms(i), &cubic_ack(1, false));
            r.on_ack(ms(i), &cubic_ack(1, false));
        }
        same(&a, &r, "slow start");
        assert_eq!(r.window(), 40.0);
        a.on_congestion_event(ms(100), CongestionKind::Loss, 10_000);
        r.on_congestion_event(ms(100), CongestionKind::Loss, 10_000);
        same(&a, &r, "loss");
        assert_eq!((r.window(), r.ssthresh()), (28.0, Some(28.0)));
        a.on_recovery_exit(ms(200));
        r.on_recovery_exit(ms(200));
        for i in 0..40 {
            let t = ms(200 + 5 * i);
            a.on_sent(t, 20);
            r.on_sent(t, 20);
            a.on_ack(t, &cubic_ack(1, false));
            r.on_ack(t, &cubic_ack(1, false));
        }
        same(&a, &r, "congestion avoidance");
        // Two seconds idle, then sending restarts with an empty pipe: the epoch shifts.
        let mut idle_unaware = r.clone();
        for (t, in_flight) in [(ms(400), 1), (ms(2400), 0)] {
            a.on_sent(t, in_flight);
            r.on_sent(t, in_flight);
        }
        for i in 0..30 {
            let t = ms(2400 + 10 * i);
            a.on_ack(t, &cubic_ack(1, false));
            r.on_ack(t, &cubic_ack(1, false));
            idle_unaware.on_ack(t, &cubic_ack(1, false));
        }
        same(&a, &r, "after idle");
        assert!(idle_unaware.window() > r.window(), "the idle restart must matter here");
        // An RTO after the recovery ended recomputes ssthresh (it would keep it during recovery).
        let before = r.window();
        a.on_rto(ms(3000), 5);
        r.on_rto(ms(3000), 5);
        same(&a, &r, "RTO");
        assert_eq!(a.window(), 1.0);
        assert_eq!(r.ssthresh(), Some(((before as u64 * 717 / 1024) as f64).max(2.0)));
        a.on_spurious_rto(ms(3100));
        r.on_spurious_rto(ms(3100));
        same(&a, &r, "undo");
        assert_eq!(r.window(), before);
        // During fast recovery (no exit yet) an RTO keeps ssthresh.
        a.on_congestion_event(ms(3200), CongestionKind::Loss, 10_000);
        r.on_congestion_event(ms(3200), CongestionKind::Loss, 10_000);
        let kept = r.ssthresh();
        a.on_ack(ms(3250), &cubic_ack(1, true));
        r.on_ack(ms(3250), &cubic_ack(1, true));
        a.on_rto(ms(3300), 5);
        r.on_rto(ms(3300), 5);
        same(&a, &r, "RTO in recovery");
        assert_eq!(r.ssthresh(), kept);
    }
}
