//! The VCP sender (Xia, Subramanian, Stoica, Kalyanaraman, "One More Bit Is Enough", SIGCOMM 2005,
//! §3.2–3.3 and §4; ns-2 `vcp-src.cc`).
//!
//! Routers write the path's load code into the ECN bits; the receiver echoes every packet's code
//! (as ABC's receiver does). Per ACK of `n` segments, with `rtt` the smoothed RTT:
//! * **01 low load — multiplicative increase**: `w += n·((1 + ξ)^min(rtt/t_ρ, 2.5) − 1)`, so the
//!   window grows by the factor `(1 + ξ)^(rtt/t_ρ)` per RTT (RTT-scaled MI, §3.3),
//!   `ξ = κ·(1/ρ₀ − 1) = 0.0625` with κ = 0.25 and ρ₀ = 80 %;
//! * **10 high load — additive increase**: `w += n·α·(rtt/t_ρ)²/w`, i.e. `α·(rtt/t_ρ)²` segments per
//!   RTT (RTT-scaled AI, §3.3);
//! * **11 overload — multiplicative decrease**: `w ← β·w` once, then the window is frozen for one
//!   `t_ρ` (the router's code still describes the load before the decrease) and for one further
//!   srtt an overload echo is treated as high load (§3.2; ns-2).
//! * Loss: Reno (halve); RTO: one segment (§3.2: VCP "falls back to TCP" on loss), restored when
//!   the transport finds the RTO spurious (`undo_rto`, on, see `on_spurious_rto`).
//!
//! Choices (see `docs/explicit-schemes.md`): ns-2 makes the AI term linear below 20 ms and above
//! 500 ms of RTT and scales it by 100 ms, not t_ρ; we keep the paper's square law of rtt/t_ρ
//! (`ai_scale = ns2` is ns-2's). After an MD we freeze on every ACK for t_ρ; ns-2 only ignores
//! overload echoes then (`freeze = overload`). `rtt_scaling = none` drops the RTT scaling of MI
//! and AI (×(1+ξ) and +α per RTT), as the ABC paper describes the VCP it compared with (§8: "it
//! can take 12 RTTs to double the window", 1.0625¹² ≈ 2). No slow start: the initial window is
//! RFC 6928's 10 segments and MI does the ramp (the paper's §3.2 MI phase). A legacy-ECN reaction
//! of the transport to the echoed 11 is ignored: 11 is VCP's overload code.

use super::{AckInfo, CongestionControl, CongestionKind, Marking, Scheme};
use crate::packet::Echo;
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// The VCP sender's parameters (`vcp.<key>`; the router's are the `vcp` queue's).
pub const PARAMS: &[Param] = &[
    Param::real("initial_window", 10.0, Unit::Segments, 1.0, 1e6).doc("initial window", "RFC 6928 initial window"),
    Param::real("kappa", 0.25, Unit::None, 0.0, 10.0)
        .open(true, false)
        .doc("κ, MI gain: ξ = κ·(1/0.8 − 1)", "ABC paper App. F; Xia et al. §4: 0.25"),
    Param::real("alpha", 1.0, Unit::Segments, 0.0, 1e3)
        .open(true, false)
        .doc("α, AI step per RTT of t_ρ", "ABC paper App. F; Xia et al. §4: 1.0"),
    Param::real("beta", 0.875, Unit::None, 0.0, 1.0)
        .open(true, true)
        .doc("β, MD factor", "ABC paper App. F; Xia et al. §4: 0.875"),
    Param::real("sender_t_rho_ms", 200.0, Unit::Ms, 1.0, 1e6)
        .doc("t_ρ as the sender scales MI/AI and freezes after MD", "Xia et al. §4: 200 ms"),
    Param::real("min_window", 1.0, Unit::Segments, 1.0, 1e6).doc("smallest window", "TCP: one segment"),
    Param::flag("undo_rto", true).doc(
        "restore the window an RTO cut when the RTO proves spurious (Eifel), as every other window sender here",
        "Linux tcp_try_undo_loss (ca_ops->undo_cwnd); off: the window restarts from one segment",
    ),
    Param::choice("freeze", "all", &["all", "overload"]).doc(
        "after an MD, for t_ρ ignore every ACK (all) or only overload echoes (overload, ns-2)",
        "Xia et al. §3.2 (freeze for t_ρ); ns-2 vcp-src.cc MD_TIMER_FIRST",
    ),
    Param::choice("ai_scale", "t_rho", &["t_rho", "ns2"]).doc(
        "AI's RTT scaling: α·(rtt/t_ρ)² (t_rho) or ns-2's α·(rtt/100 ms)², linear below 20 ms and above 500 ms",
        "Xia et al. §3.3; ns-2 vcp-src.cc rtt_update (TYPICAL_RTT)",
    ),
    Param::choice("rtt_scaling", "paper", &["paper", "none"]).doc(
        "paper: MI (1+ξ)^(rtt/t_ρ), AI scaled; none: ×(1+ξ) and +α per RTT (ABC paper §8: '12 RTTs to double')",
        "Xia et al. §3.3; ABC paper §8",
    ),
];

/// VCP over the VCP router.
pub const VCP: Scheme = Scheme {
    name: "vcp",
    display: "VCP",
    family: "vcp",
    summary: "VCP sender (MI/AI/MD on the 2-bit load code) over the VCP router",
    source: "Xia et al., SIGCOMM 2005; ABC paper (NSDI 2020) §7.3, App. F",
    marking: Marking::Vcp,
    queue: "vcp",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#332288", ">"),
    build: |v, _now, _rng| Ok(Box::new(Vcp::new(VcpSenderConfig::checked(v)?))),
    warnings: None,
};

/// VCP sender parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VcpSenderConfig {
    /// Initial window.
    pub initial_window: f64,
    /// κ.
    pub kappa: f64,
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// t_ρ.
    pub t_rho: Dur,
    /// Smallest window.
    pub min_window: f64,
    /// Undo the RTO's cut when Eifel detection finds it spurious.
    pub undo_rto: bool,
    /// After an MD, freeze only on overload echoes (ns-2), not on every ACK.
    pub freeze_overload_only: bool,
    /// ns-2's AI scaling (t_d = 100 ms, linear outside 20–500 ms) instead of (rtt/t_ρ)².
    pub ai_ns2: bool,
    /// The paper's RTT scaling of MI and AI (off: ×(1+ξ) and +α per RTT).
    pub rtt_scaling: bool,
}

crate::default_from_table!(VcpSenderConfig);

impl Config for VcpSenderConfig {
    const PREFIX: &'static str = "vcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> VcpSenderConfig {
        VcpSenderConfig {
            initial_window: v.real("initial_window"),
            kappa: v.real("kappa"),
            alpha: v.real("alpha"),
            beta: v.real("beta"),
            t_rho: v.ms("sender_t_rho_ms"),
            min_window: v.real("min_window"),
            undo_rto: v.flag("undo_rto"),
            freeze_overload_only: v.word("freeze") == "overload",
            ai_ns2: v.word("ai_scale") == "ns2",
            rtt_scaling: v.word("rtt_scaling") == "paper",
        }
    }
}

/// ns-2's AI scaling (`vcp-src.cc` `rtt_update`): `(rtt/t_d)²` with `t_d` = `TYPICAL_RTT` = 100 ms,
/// linear below 20 ms (`·0.2`) and above 500 ms (`(d − 5) + 25`).
pub fn ns2_ai_scale(rtt: Dur) -> f64 {
    let d = rtt.secs_f64() / 0.1;
    if d <= 0.2 {
        d * 0.2
    } else if d <= 5.0 {
        d * d
    } else {
        d - 5.0 + 25.0
    }
}

/// The VCP sender.
#[derive(Clone, Debug)]
pub struct Vcp {
    cfg: VcpSenderConfig,
    w: f64,
    frozen_until: Time,
    ai_until: Time,
    /// The window before the RTO that is being recovered from, for its undo.
    prior: Option<f64>,
}

impl Vcp {
    /// A new VCP sender.
    pub fn new(cfg: VcpSenderConfig) -> Vcp {
        Vcp {
            cfg,
            w: cfg.initial_window.max(cfg.min_window),
            frozen_until: Time::ZERO,
            ai_until: Time::ZERO,
            prior: None,
        }
    }

    /// ξ = κ·(1/ρ₀ − 1), ρ₀ = 80 % (§3.3).
    pub fn xi(&self) -> f64 {
        self.cfg.kappa * (1.0 / crate::queue::vcp::LOW_LOAD - 1.0)
    }
}

impl CongestionControl for Vcp {
    fn name(&self) -> &'static str {
        "vcp"
    }
    fn window(&self) -> f64 {
        self.w
    }
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        // Out of recovery, the last RTO can no longer be undone.
        if !ack.in_recovery {
            self.prior = None;
        }
        let n = f64::from(ack.acked);
        if n == 0.0 {
            return;
        }
        // After an MD: frozen for t_ρ (the router's code still describes the load before the
        // decrease); ns-2 freezes only on overload echoes and lets 01/10 increase (`freeze`).
        if now < self.frozen_until && (!self.cfg.freeze_overload_only || ack.echo == Echo::Ce) {
            return;
        }
        let Some(rtt) = ack.srtt.or(ack.rtt) else { return };
        let r = rtt.secs_f64() / self.cfg.t_rho.secs_f64();
        let code = match ack.echo {
            Echo::Ce if now < self.ai_until => Echo::Brake,
            e => e,
        };
        let ai = if self.cfg.ai_ns2 { ns2_ai_scale(rtt) } else { r * r };
        match code {
            Echo::Accelerate if self.cfg.rtt_scaling => self.w += n * ((1.0 + self.xi()).powf(r.min(2.5)) - 1.0),
            Echo::Accelerate => self.w += n * self.xi(),
            Echo::Brake if self.cfg.rtt_scaling => self.w += n * self.cfg.alpha * ai / self.w,
            Echo::Brake => self.w += n * self.cfg.alpha / self.w,
            Echo::Ce => {
                self.w *= self.cfg.beta;
                self.frozen_until = now + self.cfg.t_rho;
                self.ai_until = self.frozen_until + rtt;
            }
            Echo::None => {}
        }
        self.w = self.w.max(self.cfg.min_window);
    }
    fn on_congestion_event(&mut self, _now: Time, kind: CongestionKind, _in_flight: u32) {
        if kind == CongestionKind::Loss {
            self.w = (self.w / 2.0).max(self.cfg.min_window);
        }
    }
    fn on_rto(&mut self, _now: Time, _in_flight: u32) {
        // A repeated RTO (backoff) keeps the window of before the first one to restore.
        if self.prior.is_none() {
            self.prior = Some(self.w);
        }
        self.w = self.cfg.min_window;
    }
    /// The transport's Eifel detection found the RTO spurious (the segments were delayed, e.g.
    /// queued through an outage, not lost): restore the window, as Linux's `tcp_try_undo_loss`
    /// does through every congestion module's `undo_cwnd` (`max(cwnd, prior_cwnd)`).
    /// Without it VCP restarts from one segment after every outage longer than the RTO and
    /// regrows by MI at ×(1+ξ)^(rtt/t_ρ) per RTT, about 20 RTTs to double.
    fn on_spurious_rto(&mut self, _now: Time) {
        if self.cfg.undo_rto {
            if let Some(p) = self.prior.take() {
                self.w = self.w.max(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(echo: Echo, n: u32) -> AckInfo {
        AckInfo {
            acked: n,
            echo,
            srtt: Some(Dur::from_millis(100)),
            ..AckInfo::default()
        }
    }

    #[test]
    fn mi_ai_md_by_hand() {
        let mut v = Vcp::new(VcpSenderConfig::default());
        assert!((v.xi() - 0.0625).abs() < 1e-12);
        // MI at rtt = t_ρ/2: +(1.0625^0.5 − 1) per segment.
        v.on_ack(Time::ZERO, &ack(Echo::Accelerate, 2));
        let mi = 2.0 * (1.0625f64.sqrt() - 1.0);
        assert!((v.window() - (10.0 + mi)).abs() < 1e-12);
        // AI: α·(0.5)²/w per segment.
        let w0 = v.window();
        v.on_ack(Time::ZERO, &ack(Echo::Brake, 1));
        assert!((v.window() - (w0 + 0.25 / w0)).abs() < 1e-12);
        // MD: ×0.875, then frozen for t_ρ = 200 ms, then 11 counts as AI for one srtt.
        let w1 = v.window();
        let t = Time::from_millis(1000);
        v.on_ack(t, &ack(Echo::Ce, 1));
        assert!((v.window() - 0.875 * w1).abs() < 1e-12);
        let w2 = v.window();
        v.on_ack(t + Dur::from_millis(150), &ack(Echo::Ce, 1));
        v.on_ack(t + Dur::from_millis(150), &ack(Echo::Accelerate, 1));
        assert_eq!(v.window(), w2, "frozen for t_ρ");
        v.on_ack(t + Dur::from_millis(250), &ack(Echo::Ce, 1));
        assert!((v.window() - (w2 + 0.25 / w2)).abs() < 1e-12, "overload as AI for one srtt");
        v.on_ack(t + Dur::from_millis(301), &ack(Echo::Ce, 1));
        assert!(v.window() < w2, "then MD again");
        // The MI exponent is capped at 2.5 (rtt = 1 s = 5 t_ρ).
        let mut v = Vcp::new(VcpSenderConfig::default());
        let mut a = ack(Echo::Accelerate, 1);
        a.srtt = Some(Dur::from_secs(1));
        v.on_ack(Time::ZERO, &a);
        assert!((v.window() - (10.0 + 1.0625f64.powf(2.5) - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn ai_step_scales_with_alpha_and_freeze_and_ai_windows_end_exactly() {
        let mut p = Values::defaults(&[PARAMS]);
        p.set("alpha", crate::params::Val::Num(2.0));
        p.set("initial_window", crate::params::Val::Num(20.0));
        let mut v = Vcp::new(VcpSenderConfig::from_values(&p));
        assert_eq!((v.name(), v.window()), ("vcp", 20.0));
        // AI with α = 2, n = 3, rtt/t_ρ = 0.5: w += 3·2·0.25/20 = 0.075.
        v.on_ack(Time::ZERO, &ack(Echo::Brake, 3));
        assert!((v.window() - 20.075).abs() < 1e-12, "{}", v.window());
        // An ACK that acknowledges nothing changes nothing, not even on overload.
        v.on_ack(Time::ZERO, &ack(Echo::Ce, 0));
        assert_eq!(v.window(), 20.075);
        // MD at t = 1 s: frozen until exactly 1.2 s, overload read as AI until exactly 1.3 s.
        let t = Time::from_millis(1000);
        v.on_ack(t, &ack(Echo::Ce, 1));
        let w = v.window();
        assert!((w - 0.875 * 20.075).abs() < 1e-12);
        v.on_ack(t + Dur::from_millis(200), &ack(Echo::Ce, 1));
        let w_ai = w + 2.0 * 0.25 / w;
        assert!((v.window() - w_ai).abs() < 1e-12, "AI at the end of the freeze: {}", v.window());
        v.on_ack(t + Dur::from_millis(300), &ack(Echo::Ce, 1));
        assert!((v.window() - 0.875 * w_ai).abs() < 1e-12, "MD again at the end of the AI window");
    }

    #[test]
    fn only_a_loss_halves_and_an_rto_resets() {
        let mut v = Vcp::new(VcpSenderConfig::default());
        v.on_congestion_event(Time::ZERO, CongestionKind::Ecn, 10);
        assert_eq!(v.window(), 10.0, "11 is VCP's overload code, not a legacy ECN signal");
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 10);
        assert_eq!(v.window(), 5.0);
        v.on_rto(Time::ZERO, 5);
        assert_eq!(v.window(), 1.0);
    }

    fn with(kv: &[(&str, crate::params::Val)]) -> Vcp {
        let mut p = Values::defaults(&[PARAMS]);
        for (k, v) in kv {
            p.set(k, *v);
        }
        Vcp::new(VcpSenderConfig::from_values(&p))
    }

    #[test]
    fn a_spurious_rto_restores_the_window_and_a_real_one_does_not() {
        // After an outage the transport's Eifel check finds the RTO spurious; the
        // window of before the RTO comes back (Linux undo_cwnd: max(cwnd, prior)).
        let mut v = Vcp::new(VcpSenderConfig::default());
        assert!(VcpSenderConfig::default().undo_rto);
        v.w = 40.0;
        v.on_rto(Time::ZERO, 40);
        assert_eq!(v.window(), 1.0);
        // A backed-off second RTO keeps the first one's window to restore.
        v.on_rto(Time::from_millis(400), 1);
        let mut in_rec = ack(Echo::Accelerate, 1);
        in_rec.in_recovery = true;
        v.on_ack(Time::from_millis(900), &in_rec);
        assert!(v.window() > 1.0 && v.window() < 1.1, "MI from one segment: {}", v.window());
        v.on_spurious_rto(Time::from_millis(900));
        assert_eq!(v.window(), 40.0);
        // Undone once only.
        v.w = 30.0;
        v.on_spurious_rto(Time::from_millis(950));
        assert_eq!(v.window(), 30.0);
        // An RTO whose recovery ended (an ACK out of recovery) is not undone later.
        v.on_rto(Time::from_secs(2), 30);
        v.on_ack(Time::from_secs(3), &ack(Echo::Accelerate, 1));
        let w = v.window();
        v.on_spurious_rto(Time::from_secs(3));
        assert_eq!(v.window(), w);
        // Off: the window stays at one segment.
        let mut off = with(&[("undo_rto", crate::params::Val::Flag(false))]);
        off.w = 40.0;
        off.on_rto(Time::ZERO, 40);
        off.on_spurious_rto(Time::from_millis(500));
        assert_eq!(off.window(), 1.0);
    }

    #[test]
    fn ns2_freeze_lets_low_and_high_load_through_but_not_overload() {
        use crate::params::Val::Word;
        let t = Time::from_secs(1);
        for (freeze, moves) in [("all", false), ("overload", true)] {
            let mut v = with(&[("freeze", Word(freeze))]);
            v.on_ack(t, &ack(Echo::Ce, 1));
            let w = v.window();
            assert!((w - 8.75).abs() < 1e-12);
            v.on_ack(t + Dur::from_millis(100), &ack(Echo::Ce, 1));
            assert_eq!(v.window(), w, "{freeze}: overload frozen");
            v.on_ack(t + Dur::from_millis(100), &ack(Echo::Accelerate, 1));
            let mi = 1.0625f64.sqrt() - 1.0;
            assert_eq!(v.window(), if moves { w + mi } else { w }, "{freeze}: low load");
        }
    }

    #[test]
    fn ai_scales_and_the_unscaled_variant_by_hand() {
        use crate::params::Val::Word;
        // ns-2: (rtt/100 ms)², linear below 20 ms and above 500 ms.
        assert!((ns2_ai_scale(Dur::from_millis(150)) - 2.25).abs() < 1e-12);
        assert!((ns2_ai_scale(Dur::from_millis(10)) - 0.02).abs() < 1e-12);
        assert!((ns2_ai_scale(Dur::from_millis(20)) - 0.04).abs() < 1e-12);
        assert!((ns2_ai_scale(Dur::from_millis(500)) - 25.0).abs() < 1e-12);
        assert!((ns2_ai_scale(Dur::from_millis(700)) - 27.0).abs() < 1e-12);
        let mut v = with(&[("ai_scale", Word("ns2"))]);
        v.on_ack(Time::ZERO, &ack(Echo::Brake, 2));
        assert!((v.window() - (10.0 + 2.0 * 1.0 / 10.0)).abs() < 1e-12, "rtt = t_d: α per RTT");
        // rtt_scaling = none: ×(1 + ξ) and +α per RTT whatever the RTT.
        let mut v = with(&[("rtt_scaling", Word("none"))]);
        v.on_ack(Time::ZERO, &ack(Echo::Accelerate, 2));
        assert!((v.window() - 10.125).abs() < 1e-12, "{}", v.window());
        v.on_ack(Time::ZERO, &ack(Echo::Brake, 1));
        assert!((v.window() - (10.125 + 1.0 / 10.125)).abs() < 1e-12);
        // Twelve RTTs of MI double the window (ABC paper §8): each RTT one ACK for the window.
        let mut v = with(&[("rtt_scaling", Word("none"))]);
        for _ in 0..12 {
            let n = v.window().round() as u32;
            v.on_ack(Time::ZERO, &ack(Echo::Accelerate, n));
        }
        assert!(v.window() > 20.0 && v.window() < 22.0, "{}", v.window());
    }
}
