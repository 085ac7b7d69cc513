//! The XCP router (Katabi, Handley, Rohrs, "Congestion Control for High Bandwidth-Delay Product
//! Networks", SIGCOMM 2002, §3.5 and Appendix A) and XCP_w, the per-packet variant the ABC paper
//! compares against (Goyal et al., NSDI 2020, §7.3 and Appendix F).
//!
//! **`xcp`** (the paper's router), on a drop-tail buffer. On every arriving data packet with an XCP
//! header it accumulates, for the current control interval:
//! `y += s` (all packets), `A += rtt·s/cwnd`, `B += rtt²·s/cwnd`, `Σs`; and it tracks the smallest
//! queue an arrival saw. At the end of the interval (a queue timer, every `d`):
//!
//! * `d = B/A`, the mean RTT of the flows (ns-2 `xcpq.cc`; the paper: "the average RTT");
//! * efficiency controller `φ = α·d·S − β·Q`, with `S = C − y/T` the spare bandwidth over the interval
//!   `T` just ended, `C` the link's capacity over that interval (the router knows its link schedule,
//!   as the ABC router does: on a trace every opportunity counts), `Q` the persistent queue (bytes);
//! * fairness controller: shuffled traffic `h = max(0, γ·y − |φ|)`,
//!   `ξp = (h + φ⁺)/(T·A)`, `ξn = (h + φ⁻)/(T·Σs)` (sums over the interval of length `T`);
//!
//! and on every departing data packet with a header it writes
//! `H_feedback = min(H_feedback, p − n)`, `p = ξp·rtt²·s/cwnd`, `n = ξn·rtt·s`. Residues (Appendix A):
//! the router hands out at most `h + φ⁺` positive and `h + φ⁻` negative bytes per interval; once a
//! budget is spent, that half of the feedback is zero until the next interval.
//!
//! **`xcp-w`** (ABC paper §7.3: XCP_w "recomputes aggregate feedback on each packet based on the
//! rate and delay measurements from the past RTT"): no timer. On every departure it recomputes
//! `φ = α·d·(μ − y) − β·Q` from sliding windows, measured by default as the authors' router
//! (`xcp_packet_queue.cc` of the ABC artifact, the code behind the paper's XCP_w numbers) does:
//! * d: the mean RTT of the last d's arrivals' headers (B/A, as XCP; the artifact: the mean of
//!   100 ms + sojourn over the last d's departures);
//! * y: the arrivals of the last d (those the buffer drops too) / d;
//! * μ (`capacity = rtt`): the link's opportunities over the last d, used or wasted, / d (the
//!   artifact counts its dequeue calls, empty ones too, over the last avg_rtt); `capacity =
//!   window`: over the last `window_ms` as ABC's μ (20 ms; XCP_w's earlier form);
//! * Q: the smallest queue a departure left behind over the last `queue_window_ms` (100 ms; the
//!   artifact's hard-coded base RTT, XCP's "last propagation delay"); `queue_sample = arrival` and
//!   `queue_window_ms = 0`: the smallest an arrival found over the last d (the earlier form);
//!
//! and gives the departing packet
//! * by default XCP's fairness controller, with `ξp`, `ξn` from sums over the last d's departures
//!   and this one (`fc_sums = departures`; over the arrivals, which in overload outnumber the
//!   departures, only the fraction departures/arrivals of φ is handed out per RTT) and Appendix
//!   A's residues over the sliding d (`residues`: what the last d's departures got counts against
//!   h + φ⁺ and h + φ⁻); or
//! * `equal_share`: `φ/N`, N the data packets that departed in the last d with this one, no
//!   fairness controller and no shuffling (the artifact); and optionally
//! * `outstanding`: φ minus the feedback this router already granted during the last `d`, which the
//!   senders have not turned into traffic yet (our addition, off by default; see
//!   `docs/explicit-schemes.md`).
//!
//! μ over the last d needs the link schedule at each dequeue ([`Queue::observe_link`]); a Wi-Fi link
//! does not offer it (the router cannot see the MAC's capacity), so there μ is the link's estimate
//! over `window_ms`.
//!
//! Choices and deviations (see `docs/explicit-schemes.md`):
//! * Q is the minimum queue seen by arrivals over the interval just ended, not over "the last
//!   propagation delay" (which a router cannot know); ns-2 does the same per interval.
//! * ns-2 multiplies ξp and ξn by an "experimental" 1.1; we do not.
//! * Packets without an XCP header (other schemes, ACKs) pass unchanged and count only in y and Q.
//! * y and the header sums count every arrival, also those the full buffer drops (ns-2 and the
//!   artifact do the same).

use super::{Fifo, Limit, LimitRule, LinkInfo, LinkSchedule, Queue, QueueKind, QueueStats};
use crate::packet::{ExplicitKind, Packet};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Stability bound of XCP's efficiency controller (Katabi et al. §3.5, Theorem 1):
/// `0 < α < π/(4√2)` with `β = α²√2`.
pub const ALPHA_BOUND: f64 = std::f64::consts::PI / (4.0 * std::f64::consts::SQRT_2);

const SHARED: &[Param] = &[
    Param::real("alpha", 0.55, Unit::None, 0.0, 10.0)
        .open(true, false)
        .doc(
            "α, efficiency-controller gain on spare bandwidth (original XCP: 0.4)",
            "ABC paper App. F (0.55, \"highest permissible stable\"); Katabi et al. §3.5: 0.4",
        ),
    Param::real("beta", 0.4, Unit::None, 0.0, 10.0)
        .doc(
            "β, efficiency-controller gain on the persistent queue (original XCP: 0.226)",
            "ABC paper App. F; Katabi et al. §3.5: 0.226 = 0.4²·√2",
        ),
    Param::real("gamma", 0.1, Unit::None, 0.0, 1.0)
        .doc("γ, fraction of traffic shuffled per interval by the fairness controller", "Katabi et al. §3.5: 0.1"),
    Param::real("init_interval_ms", 50.0, Unit::Ms, 1.0, 1e6)
        .doc("control interval before any RTT is known", "ns-2 xcpq.cc initial control interval"),
];

/// The `xcp` queue's parameters (`xcp.<key>`).
pub const PARAMS: &[Param] = &[
    SHARED[0],
    SHARED[1],
    SHARED[2],
    SHARED[3],
    super::packets_param(super::abc::BUFFER_PACKETS),
    super::BYTES_PARAM,
];

/// The `xcp-w` queue's parameters (`xcp-w.<key>`).
pub const PARAMS_W: &[Param] = &[
    SHARED[0],
    SHARED[1],
    SHARED[2],
    SHARED[3],
    Param::real("window_ms", 20.0, Unit::Ms, 1e-3, 1e7).doc(
        "with capacity = window (and on a Wi-Fi link): window over which the link capacity μ is measured",
        "as the ABC router's μ (artifact cellular_packet_queue.cc: 20 ms)",
    ),
    Param::flag("equal_share", false).doc(
        "per-packet feedback φ/N, N the last d's departures (no fairness controller, no shuffling) instead of XCP's fairness controller",
        "ABC artifact xcp_packet_queue.cc (the code behind the ABC paper's XCP_w numbers)",
    ),
    Param::choice("fc_sums", "departures", &["departures", "arrivals"]).doc(
        "without equal_share: the fairness controller's sums Σ rtt·s/cwnd, Σ s over the last d's departures (the packets that get the feedback) or arrivals",
        "our reading (docs/explicit-schemes.md): Katabi et al. §3.5 sizes ξp, ξn so that the packets of one interval receive h + φ in total",
    ),
    Param::flag("residues", true).doc(
        "without equal_share: cap the positive (negative) feedback granted over the last d at h + φ⁺ (h + φ⁻), as Appendix A's residues cap an interval's",
        "Katabi et al. App. A, over XCP_w's sliding RTT (our reading, docs/explicit-schemes.md)",
    ),
    Param::choice("capacity", "rtt", &["rtt", "window"]).doc(
        "μ: `window` = the link's capacity over the last window_ms (as ABC); `rtt` = over the last mean RTT d",
        "rtt: ABC paper §7.3 (\"rate and delay measurements from the past RTT\"), artifact xcp_packet_queue.cc",
    ),
    Param::real("queue_window_ms", 100.0, Unit::Ms, 0.0, 1e7).doc(
        "window of the persistent queue Q (its minimum): the path's propagation RTT; 0 = the last mean RTT d",
        "artifact xcp_packet_queue.cc: 100 ms, its hard-coded base RTT (exp.sh's setup); Katabi et al. §3.5: over the last propagation delay",
    ),
    Param::choice("queue_sample", "departure", &["departure", "arrival"]).doc(
        "when Q is sampled: the queue an arrival finds, or the queue a departure leaves",
        "artifact xcp_packet_queue.cc: after each dequeue",
    ),
    Param::flag("outstanding", false).doc(
        "subtract from φ the feedback already granted during the last RTT",
        "our choice (docs/explicit-schemes.md)",
    ),
    super::packets_param(super::abc::BUFFER_PACKETS),
    super::BYTES_PARAM,
];

/// XCP's router.
pub const XCP: QueueKind = QueueKind {
    name: "xcp",
    display: "XCP router",
    summary: "XCP efficiency and fairness controllers over a control interval of one mean RTT",
    source: "Katabi et al., SIGCOMM 2002, §3.5 and App. A; ns-2 xcpq.cc",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &[],
    build: |v, _rng| Box::new(XcpQueue::new(XcpConfig::from_values(v))),
    warnings: Some(warnings),
};

/// Where the α bound comes from.
pub const ALPHA_SOURCE: &str = "Katabi et al., SIGCOMM 2002, §3.5, Theorem 1: the efficiency controller is \
     stable for 0 < α < π/(4√2) ≈ 0.555 with β = α²√2";

/// XCP's operating range: α at or above the stability bound (the ABC paper's 0.55 is just below).
fn warnings(cx: &crate::warning::QueueContext<'_>) -> Vec<crate::warning::Warning> {
    use crate::warning::{num, Warning};
    let alpha = cx.values.real("alpha");
    if alpha < ALPHA_BOUND {
        return Vec::new();
    }
    let i = cx.index;
    vec![Warning {
        code: "xcp-alpha-above-stability-bound",
        subject: format!("hops[{i}]"),
        parameter: format!("hops[{i}].queue.alpha"),
        value: alpha,
        bound: ALPHA_BOUND,
        unit: "",
        source: ALPHA_SOURCE,
        message: format!(
            "XCP router α = {} is not below π/(4√2) = {}: outside XCP's stability bound, expect the \
             queue and the windows to oscillate",
            num(alpha, 3),
            num(ALPHA_BOUND, 3)
        ),
    }]
}

/// XCP_w's router.
pub const XCP_W: QueueKind = QueueKind {
    name: "xcp-w",
    display: "XCP_w router",
    summary: "XCP recomputing its feedback on every packet from the last RTT's measurements",
    source: "ABC paper (NSDI 2020) §7.3, App. F; artifact xcp_packet_queue.cc",
    params: PARAMS_W,
    limit: LimitRule::Optional,
    aliases: &["xcpw", "xcp_w"],
    build: |v, _rng| Box::new(XcpQueue::new(XcpConfig::from_values(v))),
    warnings: Some(warnings),
};

/// XCP router parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XcpConfig {
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// γ (shuffling).
    pub gamma: f64,
    /// Control interval before any RTT is known.
    pub init_interval: Dur,
    /// XCP_w: per-packet recomputation with μ over this window; `None`: the paper's XCP.
    pub per_packet: Option<Dur>,
    /// XCP_w: the artifact's equal share φ/N.
    pub equal_share: bool,
    /// XCP_w: subtract the feedback granted over the last RTT.
    pub outstanding: bool,
    /// XCP_w: μ over the last mean RTT instead of `per_packet`'s window.
    pub capacity_rtt: bool,
    /// XCP_w: the fairness controller's sums over the last d's departures instead of arrivals.
    pub fc_departures: bool,
    /// XCP_w: Appendix A's residues over the sliding d.
    pub residues: bool,
    /// XCP_w: window of Q's minimum; `None`: the last mean RTT.
    pub queue_window: Option<Dur>,
    /// XCP_w: Q sampled at departures (the queue left behind) instead of arrivals.
    pub queue_at_departure: bool,
    /// Buffer.
    pub limit: Limit,
}

crate::default_from_table!(XcpConfig);

impl Config for XcpConfig {
    const PREFIX: &'static str = "xcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> XcpConfig {
        let has = |n: &str| v.table().iter().any(|p| p.name == n);
        XcpConfig {
            alpha: v.real("alpha"),
            beta: v.real("beta"),
            gamma: v.real("gamma"),
            init_interval: v.ms("init_interval_ms"),
            per_packet: has("window_ms").then(|| v.ms("window_ms")),
            equal_share: has("equal_share") && v.flag("equal_share"),
            outstanding: has("outstanding") && v.flag("outstanding"),
            capacity_rtt: has("capacity") && v.word("capacity") == "rtt",
            fc_departures: has("fc_sums") && v.word("fc_sums") == "departures",
            residues: has("residues") && v.flag("residues"),
            queue_window: if has("queue_window_ms") && v.real("queue_window_ms") > 0.0 {
                Some(v.ms("queue_window_ms"))
            } else {
                None
            },
            queue_at_departure: has("queue_sample") && v.word("queue_sample") == "departure",
            limit: super::limit_of(v),
        }
    }
}

impl XcpConfig {
    /// XCP_w's defaults.
    pub fn per_packet_default() -> XcpConfig {
        XcpConfig::from_values(&Values::defaults(&[PARAMS_W]))
    }
}

/// The controllers' outputs for one interval (or, for XCP_w, the last packet).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpState {
    /// d, the control interval / mean RTT, seconds.
    pub d: f64,
    /// C (or μ), bytes/s.
    pub capacity: f64,
    /// Input rate y, bytes/s.
    pub input_rate: f64,
    /// Persistent queue Q, bytes.
    pub queue: f64,
    /// φ, bytes.
    pub phi: f64,
    /// Shuffled traffic h, bytes.
    pub shuffle: f64,
    /// ξp.
    pub xi_p: f64,
    /// ξn.
    pub xi_n: f64,
}

/// Sums over arrivals (one interval, or a sliding window for XCP_w).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Sums {
    /// All arriving bytes.
    y: f64,
    /// Σ rtt·s/cwnd over header packets.
    a: f64,
    /// Σ rtt²·s/cwnd.
    b: f64,
    /// Σ s over header packets.
    s: f64,
}

impl Sums {
    fn add(&mut self, o: &Sums, sign: f64) {
        self.y += sign * o.y;
        self.a += sign * o.a;
        self.b += sign * o.b;
        self.s += sign * o.s;
    }
}

/// XCP_w: a departure of the last d, what it was granted (net, positive and negative part) and its
/// header's contribution to the fairness controller's sums.
#[derive(Clone, Copy, Debug)]
struct Departure {
    t: Time,
    fb: f64,
    pos: f64,
    neg: f64,
    c: Sums,
}

/// The arrival's contribution.
fn contribution(pkt: &Packet) -> Sums {
    let s = f64::from(pkt.size);
    let mut c = Sums {
        y: s,
        ..Sums::default()
    };
    if let Some(h) = pkt.explicit().filter(|h| h.kind == ExplicitKind::Xcp) {
        let (rtt, cwnd) = (f64::from(h.rtt), f64::from(h.cwnd));
        if rtt > 0.0 && cwnd > 0.0 {
            c.a = rtt * s / cwnd;
            c.b = rtt * rtt * s / cwnd;
            c.s = s;
        }
    }
    c
}

/// The control interval for a mean RTT of `d` seconds: whole microseconds (headers carry the RTT as
/// an `f32`, whose rounding would otherwise show as nanosecond jitter), never below 1 ms so that a
/// mis-set header cannot spin the timer.
fn interval(d: f64) -> Dur {
    Dur::from_micros((d * 1e6).round() as u64).max(Dur::from_millis(1))
}

/// Link capacity (wire bytes, or bytes/s) as IP bytes of full-size packets: a Mahimahi opportunity
/// of 1504 bytes carries one 1500-byte packet, and the router counts arrivals in IP bytes.
fn ip_bytes(wire: f64, overhead: u32) -> f64 {
    let mtu = f64::from(crate::packet::MTU);
    wire * mtu / (mtu + f64::from(overhead))
}

/// The controllers' arithmetic, shared by both variants (pure functions, unit-tested by hand).
pub mod law {
    /// φ = α·d·(C − y) − β·Q (bytes), d in s, rates in bytes/s, Q in bytes.
    pub fn phi(alpha: f64, beta: f64, d: f64, capacity: f64, input_rate: f64, queue: f64) -> f64 {
        alpha * d * (capacity - input_rate) - beta * queue
    }
    /// h = max(0, γ·y − |φ|), y in bytes over the interval.
    pub fn shuffle(gamma: f64, y_bytes: f64, phi: f64) -> f64 {
        (gamma * y_bytes - phi.abs()).max(0.0)
    }
    /// (ξp, ξn) for interval length `t` (s) and the interval's sums `a` = Σ rtt·s/cwnd and
    /// `s` = Σ s.
    pub fn xi(h: f64, phi: f64, t: f64, a: f64, s: f64) -> (f64, f64) {
        let xp = if a > 0.0 { (h + phi.max(0.0)) / (t * a) } else { 0.0 };
        let xn = if s > 0.0 { (h + (-phi).max(0.0)) / (t * s) } else { 0.0 };
        (xp, xn)
    }
    /// (positive, negative) feedback of one packet: (ξp·rtt²·s/cwnd, ξn·rtt·s).
    pub fn per_packet(xp: f64, xn: f64, rtt: f64, s: f64, cwnd: f64) -> (f64, f64) {
        (xp * rtt * rtt * s / cwnd, xn * rtt * s)
    }
}

/// The XCP / XCP_w router queue.
#[derive(Clone, Debug)]
pub struct XcpQueue {
    fifo: Fifo,
    cfg: XcpConfig,
    /// Current control interval (XCP) or RTT window (XCP_w).
    d: Dur,
    /// XCP: start of the current interval and its sums; smallest queue seen by an arrival.
    start: Time,
    cur: Sums,
    min_q: Option<u64>,
    /// XCP: what the departing packets of this interval may still receive (App. A residues).
    pos_left: f64,
    neg_left: f64,
    /// XCP_w: arrivals in the last d with their contributions and queue; departures with feedback.
    arrivals: VecDeque<(Time, Sums, u64)>,
    win: Sums,
    departures: VecDeque<Departure>,
    /// XCP_w: the header sums of `departures`, and the positive and negative feedback they got.
    dwin: Sums,
    granted: f64,
    granted_pos: f64,
    granted_neg: f64,
    /// XCP_w: queue samples (time, bytes) for Q when not the arrivals' over the last d.
    qsamples: VecDeque<(Time, u64)>,
    /// XCP_w with `capacity = rtt`: the link's capacity over the last d, bytes/s (IP bytes), once
    /// the link has been observed (never on a Wi-Fi link).
    cap_rtt: Option<f64>,
    state: XcpState,
}

impl XcpQueue {
    /// A new XCP (or XCP_w) queue.
    pub fn new(cfg: XcpConfig) -> XcpQueue {
        XcpQueue {
            fifo: Fifo::new(cfg.limit),
            cfg,
            d: cfg.init_interval,
            start: Time::ZERO,
            cur: Sums::default(),
            min_q: None,
            pos_left: 0.0,
            neg_left: 0.0,
            arrivals: VecDeque::new(),
            win: Sums::default(),
            departures: VecDeque::new(),
            dwin: Sums::default(),
            granted: 0.0,
            granted_pos: 0.0,
            granted_neg: 0.0,
            qsamples: VecDeque::new(),
            cap_rtt: None,
            state: XcpState::default(),
        }
    }

    /// The controllers' last outputs.
    pub fn state(&self) -> XcpState {
        self.state
    }

    /// XCP: end the interval at `now` given the link's capacity over it (bytes); exposed for
    /// hand-worked tests.
    pub fn end_interval(&mut self, now: Time, capacity_bytes: f64) {
        let t = (now - self.start).secs_f64().max(1e-9);
        let sums = std::mem::take(&mut self.cur);
        let d = if sums.a > 0.0 { sums.b / sums.a } else { self.d.secs_f64() };
        let q = self.min_q.take().unwrap_or(self.fifo.bytes()) as f64;
        let capacity = capacity_bytes / t;
        let input_rate = sums.y / t;
        let phi = law::phi(self.cfg.alpha, self.cfg.beta, d, capacity, input_rate, q);
        let h = law::shuffle(self.cfg.gamma, sums.y, phi);
        let (xi_p, xi_n) = law::xi(h, phi, t, sums.a, sums.s);
        self.pos_left = h + phi.max(0.0);
        self.neg_left = h + (-phi).max(0.0);
        self.state = XcpState {
            d,
            capacity,
            input_rate,
            queue: q,
            phi,
            shuffle: h,
            xi_p,
            xi_n,
        };
        self.start = now;
        self.d = interval(d);
    }

    fn prune(&mut self, now: Time) {
        let horizon = now - self.d;
        while let Some(&(t, c, _)) = self.arrivals.front() {
            if t > horizon {
                break;
            }
            self.win.add(&c, -1.0);
            self.arrivals.pop_front();
        }
        while let Some(&x) = self.departures.front() {
            if x.t > horizon {
                break;
            }
            self.granted -= x.fb;
            self.granted_pos -= x.pos;
            self.granted_neg -= x.neg;
            self.dwin.add(&x.c, -1.0);
            self.departures.pop_front();
        }
        if self.arrivals.is_empty() {
            self.win = Sums::default();
        }
        if self.departures.is_empty() {
            self.dwin = Sums::default();
            (self.granted, self.granted_pos, self.granted_neg) = (0.0, 0.0, 0.0);
        }
    }

    /// XCP_w: Q, the smallest queue (bytes) over its window.
    fn persistent_queue(&mut self, now: Time) -> u64 {
        if !self.cfg.queue_at_departure && self.cfg.queue_window.is_none() {
            return self.arrivals.iter().map(|x| x.2).min().unwrap_or(self.fifo.bytes());
        }
        let horizon = now - self.cfg.queue_window.unwrap_or(self.d);
        while self.qsamples.front().is_some_and(|&(t, _)| t <= horizon) {
            self.qsamples.pop_front();
        }
        if self.cfg.queue_at_departure {
            self.qsamples.push_back((now, self.fifo.bytes()));
        }
        self.qsamples.iter().map(|x| x.1).min().unwrap_or(self.fifo.bytes())
    }

    /// XCP_w: the feedback of a departing packet at `now`, with μ = `capacity` (bytes/s).
    fn per_packet_feedback(&mut self, now: Time, capacity: f64, pkt: &Packet) -> Option<(f64, f64)> {
        self.prune(now);
        let h = pkt.explicit().filter(|h| h.kind == ExplicitKind::Xcp)?;
        let d = if self.win.a > 0.0 { self.win.b / self.win.a } else { self.d.secs_f64() };
        self.d = interval(d);
        let t = self.d.secs_f64();
        let q = self.persistent_queue(now) as f64;
        let capacity = self.cap_rtt.unwrap_or(capacity);
        let input_rate = self.win.y / t;
        let mut phi = law::phi(self.cfg.alpha, self.cfg.beta, d, capacity, input_rate, q);
        if self.cfg.outstanding {
            phi -= self.granted;
        }
        let (rtt, cwnd, s) = (f64::from(h.rtt), f64::from(h.cwnd), f64::from(pkt.size));
        let ((pos, neg), shuffle, xi_p, xi_n) = if self.cfg.equal_share {
            let n = (self.departures.len() + 1) as f64;
            ((phi.max(0.0) / n, (-phi).max(0.0) / n), 0.0, 0.0, 0.0)
        } else {
            let sh = law::shuffle(self.cfg.gamma, self.win.y, phi);
            // The packets that receive the feedback: the last d's departures and this one (so
            // that the feedback of one d sums to h + φ⁺ and h + φ⁻), or the last d's arrivals,
            // which in overload outnumber them (also counting those the buffer dropped) and so
            // hand out only the fraction departures/arrivals of φ.
            let sums = if self.cfg.fc_departures {
                let mut s = self.dwin;
                s.add(&contribution(pkt), 1.0);
                s
            } else {
                self.win
            };
            let (xp, xn) = law::xi(sh, phi, t, sums.a, sums.s);
            let pn = if rtt > 0.0 && cwnd > 0.0 {
                let (mut p, mut n) = law::per_packet(xp, xn, rtt, s, cwnd);
                if self.cfg.residues {
                    // Appendix A over the sliding d: what the last d's departures got counts
                    // against this d's budgets h + φ⁺ and h + φ⁻.
                    p = p.min((sh + phi.max(0.0) - self.granted_pos).max(0.0));
                    n = n.min((sh + (-phi).max(0.0) - self.granted_neg).max(0.0));
                }
                (p, n)
            } else {
                (0.0, 0.0)
            };
            (pn, sh, xp, xn)
        };
        self.state = XcpState {
            d,
            capacity,
            input_rate,
            queue: q,
            phi,
            shuffle,
            xi_p,
            xi_n,
        };
        Some((pos, neg))
    }

    /// XCP: the feedback of a departing packet from this interval's ξp, ξn and residues.
    fn interval_feedback(&mut self, pkt: &Packet) -> Option<f64> {
        let h = pkt.explicit().filter(|h| h.kind == ExplicitKind::Xcp)?;
        let (rtt, cwnd, s) = (f64::from(h.rtt), f64::from(h.cwnd), f64::from(pkt.size));
        if rtt <= 0.0 || cwnd <= 0.0 {
            return Some(0.0);
        }
        let (mut p, mut n) = law::per_packet(self.state.xi_p, self.state.xi_n, rtt, s, cwnd);
        // Appendix A: what is left of this interval's budgets.
        p = p.min(self.pos_left.max(0.0));
        n = n.min(self.neg_left.max(0.0));
        self.pos_left -= p;
        self.neg_left -= n;
        Some(p - n)
    }
}

impl Queue for XcpQueue {
    fn name(&self) -> &'static str {
        if self.cfg.per_packet.is_some() {
            "xcp-w"
        } else {
            "xcp"
        }
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        // Every arrival counts in y and the header sums, also one the buffer then drops: the input
        // traffic is what arrives (ns-2 xcpq.cc: do_on_packet_arrival before the enque that may
        // drop; the ABC artifact's xcp_packet_queue.cc records arrivals before its drop check).
        let c = contribution(&pkt);
        let q = self.fifo.bytes();
        if self.cfg.per_packet.is_some() {
            self.arrivals.push_back((now, c, q));
            self.win.add(&c, 1.0);
            if !self.cfg.queue_at_departure && self.cfg.queue_window.is_some() {
                self.qsamples.push_back((now, q));
            }
        } else {
            self.cur.add(&c, 1.0);
            self.min_q = Some(self.min_q.map_or(q, |m| m.min(q)));
        }
        self.fifo.push(now, pkt)
    }

    fn dequeue(&mut self, now: Time, link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        let mut pkt = self.fifo.pop()?;
        if self.cfg.per_packet.is_none() {
            if let Some(fb) = self.interval_feedback(&pkt) {
                pkt.lower_feedback(fb as f32);
            }
            return Some(pkt);
        }
        let c = contribution(&pkt);
        match self.per_packet_feedback(now, ip_bytes(link.capacity, link.overhead), &pkt) {
            Some((pos, neg)) => {
                let fb = pos - neg;
                pkt.lower_feedback(fb as f32);
                self.departures.push_back(Departure { t: now, fb, pos, neg, c });
                self.dwin.add(&c, 1.0);
                self.granted += fb;
                self.granted_pos += pos;
                self.granted_neg += neg;
            }
            None if pkt.is_data() => self.departures.push_back(Departure {
                t: now,
                fb: 0.0,
                pos: 0.0,
                neg: 0.0,
                c: Sums::default(),
            }),
            None => {}
        }
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn stats(&self) -> QueueStats {
        self.fifo.stats
    }
    fn capacity_window(&self) -> Option<Dur> {
        // Also with `capacity = rtt`: a Wi-Fi link shows the router only its estimate, over this
        // window (the engine calls `observe_link` on trace and rate links only).
        self.cfg.per_packet
    }
    fn gauge(&self) -> Option<f64> {
        Some(self.state.phi)
    }
    fn next_timer(&self) -> Option<Time> {
        match self.cfg.per_packet {
            Some(_) => None,
            None => Some(self.start + self.d),
        }
    }
    fn observes_link(&self) -> bool {
        self.cfg.per_packet.is_some() && self.cfg.capacity_rtt
    }
    fn observe_link(&mut self, now: Time, link: &dyn LinkSchedule) {
        // The opportunities of (now − d, now], over the full d (early in a run, as the artifact's
        // count over its first avg_rtt, an underestimate).
        let end = now + Dur(1);
        let bytes = link.capacity_between(end - self.d, end);
        self.cap_rtt = Some(ip_bytes(bytes, link.overhead()) / self.d.secs_f64());
    }
    fn on_timer(&mut self, now: Time, link: &dyn LinkSchedule) {
        if self.cfg.per_packet.is_none() && now >= self.start + self.d {
            let cap = link.capacity_between(self.start, now);
            self.end_interval(now, ip_bytes(cap, link.overhead()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, ExplicitHeader, MTU};

    /// XCP_w's earlier form (μ over 20 ms, Q over the last d's arrivals, XCP's
    /// fairness controller over the arrivals, no residues): the hand-worked tests below were
    /// written for it and keep these options' arithmetic covered.
    fn w_before() -> XcpConfig {
        XcpConfig {
            equal_share: false,
            capacity_rtt: false,
            fc_departures: false,
            residues: false,
            queue_window: None,
            queue_at_departure: false,
            ..XcpConfig::per_packet_default()
        }
    }

    fn xcp_pkt(seq: u32, cwnd: f32, rtt: f32) -> Packet {
        let mut p = Packet::data(0, seq, MTU, Ecn::NotEct, Time::ZERO);
        p.set_explicit(ExplicitHeader {
            kind: ExplicitKind::Xcp,
            cwnd,
            rtt,
            feedback: f32::MAX,
        });
        p
    }

    #[test]
    fn warns_at_and_above_the_alpha_bound_only() {
        // The bound itself is outside the range (0 < α < π/(4√2)): written with all its digits it warns.
        for (alpha, fires) in [(0.55, false), (0.555, false), (ALPHA_BOUND, true), (0.556, true), (1.5, true)] {
            let w = crate::warning::of_scenario(&format!(
                r#"{{"duration_ms": 100,
                "hops": [{{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "xcp", "alpha": {alpha}}}, "delay_ms": 50}},
                         {{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}}],
                "flows": [{{"scheme": "xcp", "fwd": [0], "rev": [1]}}]}}"#
            ));
            assert_eq!(w.len(), usize::from(fires), "α = {alpha}: {w:?}");
            if fires {
                assert_eq!((w[0].code, w[0].parameter.as_str()), ("xcp-alpha-above-stability-bound", "hops[0].queue.alpha"));
                assert!((w[0].bound - 0.5554).abs() < 1e-3 && w[0].source.contains("§3.5"));
            }
        }
    }

    #[test]
    fn control_interval_arithmetic_by_hand() {
        // α = 0.55, β = 0.4, γ = 0.1. One interval of T = 0.1 s on a 1.5 MB/s (12 Mbit/s) link:
        // 50 packets of 1500 B arrive, each from a flow with cwnd 15 000 B and rtt 0.1 s, with 3000 B
        // queued as the smallest queue.
        let mut q = XcpQueue::new(XcpConfig::default());
        let t0 = Time::ZERO;
        for _ in 0..2 {
            q.enqueue(t0, xcp_pkt(0, 15_000.0, 0.1)).unwrap();
        }
        for i in 0..50 {
            q.enqueue(t0, xcp_pkt(i, 15_000.0, 0.1)).unwrap();
            let mut d = Vec::new();
            q.dequeue(t0, LinkInfo::default(), &mut d).unwrap();
        }
        // min queue seen by arrivals: 0 (first), so force Q by hand below.
        q.min_q = Some(3000);
        q.end_interval(Time::from_millis(100), 1.5e6 * 0.1);
        let s = q.state();
        // y = 52·1500 = 78 000 B; input rate 780 000 B/s; A = 52·(0.1·1500/15000) = 0.52,
        // B = 52·0.001 = 0.052; d = B/A = 0.1 s.
        assert!((s.d - 0.1).abs() < 1e-8);
        assert!((s.input_rate - 780_000.0).abs() < 1e-6);
        // φ = 0.55·0.1·(1 500 000 − 780 000) − 0.4·3000 = 39 600 − 1200 = 38 400 B.
        assert!((s.phi - 38_400.0).abs() < 1e-2, "{s:?}");
        // h = max(0, 0.1·78 000 − 38 400) = 0.
        assert_eq!(s.shuffle, 0.0);
        // ξp = 38 400/(0.1·0.52) = 738 461.5…; ξn = 0.
        assert!((s.xi_p / (38_400.0 / 0.052) - 1.0).abs() < 1e-6);
        assert_eq!(s.xi_n, 0.0);
        // A departing packet of that flow gets p = ξp·0.01·1500/15000 = 738.46 B.
        let mut d = Vec::new();
        q.enqueue(Time::from_millis(100), xcp_pkt(99, 15_000.0, 0.1)).unwrap();
        let p = q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap();
        let fb = p.explicit().unwrap().feedback as f64;
        assert!((fb - 738.4615).abs() < 1e-2, "{fb}");
        // 52 such packets (one interval's worth) hand out 52·738.46 = 38 400 B = φ: the residue
        // bound stops the 53rd.
        let mut total = fb;
        for i in 0..60 {
            q.enqueue(Time::from_millis(100), xcp_pkt(i, 15_000.0, 0.1)).unwrap();
            let p = q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap();
            total += p.explicit().unwrap().feedback as f64;
        }
        assert!((total - 38_400.0).abs() < 1.0, "{total}");
    }

    #[test]
    fn overload_gives_negative_feedback_proportional_to_rtt_and_size() {
        // Input 2× capacity: φ < 0, every packet gets n = ξn·rtt·s regardless of cwnd.
        let mut q = XcpQueue::new(XcpConfig::default());
        let mut d = Vec::new();
        for i in 0..100 {
            q.enqueue(Time::ZERO, xcp_pkt(i, 30_000.0, 0.1)).unwrap();
        }
        q.end_interval(Time::from_millis(100), 75_000.0);
        let s = q.state();
        // y = 150 000 B in 0.1 s = 1.5 MB/s vs C = 0.75 MB/s; Q = 0 (first arrival saw none).
        assert!((s.phi - 0.55 * 0.1 * (750_000.0 - 1_500_000.0)).abs() < 1e-2);
        let (a, b) = (
            q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap(),
            q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap(),
        );
        let fa = a.explicit().unwrap().feedback;
        assert!(fa < 0.0 && fa == b.explicit().unwrap().feedback);
        // ξn = (h + |φ|)/(T·Σs): h = max(0, 15 000 − 41 250) = 0; n = ξn·0.1·1500 = |φ|/100.
        assert!((f64::from(fa) + 41_250.0 / 100.0).abs() < 1e-2, "{fa}");
    }

    #[test]
    fn the_timer_runs_every_mean_rtt_and_packets_without_header_pass() {
        let mut q = XcpQueue::new(XcpConfig::default());
        assert_eq!(q.next_timer(), Some(Time::from_millis(50)));
        q.enqueue(Time::ZERO, xcp_pkt(0, 15_000.0, 0.08)).unwrap();
        q.on_timer(Time::from_millis(50), &crate::queue::ConstantSchedule(1.5e6));
        assert_eq!(q.next_timer(), Some(Time::from_millis(130)));
        let plain = Packet::data(1, 0, MTU, Ecn::NotEct, Time::ZERO);
        q.enqueue(Time::from_millis(60), plain).unwrap();
        let mut d = Vec::new();
        q.dequeue(Time::from_millis(60), LinkInfo::default(), &mut d).unwrap();
        let out = q.dequeue(Time::from_millis(60), LinkInfo::default(), &mut d).unwrap();
        assert!(out.explicit().is_none());
    }

    #[test]
    fn xcp_w_equal_share_divides_phi_among_the_last_rtts_departures() {
        let mut cfg = w_before();
        cfg.equal_share = true;
        let mut q = XcpQueue::new(cfg);
        let mut d = Vec::new();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        // 10 packets arrive and leave at t = 10 ms (rtt 50 ms ⇒ d = 50 ms); y = 15 000 B / 0.05 s.
        let t = Time::from_millis(10);
        let mut last = 0.0;
        for i in 0..10 {
            q.enqueue(t, xcp_pkt(i, 15_000.0, 0.05)).unwrap();
        }
        for i in 0..10 {
            let p = q.dequeue(t, link, &mut d).unwrap();
            last = p.explicit().unwrap().feedback as f64;
            let phi = 0.55 * 0.05 * (1.5e6 - 300_000.0) - 0.4 * 0.0;
            assert!((last - phi / (i + 1) as f64).abs() < 1e-2, "{i}: {last}");
        }
        assert!(last > 0.0);
    }

    #[test]
    fn y_and_the_header_sums_count_arrivals_the_full_buffer_drops() {
        // ns-2 xcpq.cc (do_on_packet_arrival before the enqueue) and the ABC artifact's
        // xcp_packet_queue.cc (arrivals recorded before its drop check) count what arrives.
        for per_packet in [false, true] {
            let mut cfg = if per_packet {
                XcpConfig::per_packet_default()
            } else {
                XcpConfig::from_values(&Values::defaults(&[PARAMS]))
            };
            cfg.limit = Limit::Packets(2);
            let mut q = XcpQueue::new(cfg);
            let dropped = (0..5).filter(|&i| q.enqueue(Time::ZERO, xcp_pkt(i, 10.0, 0.1)).is_err()).count();
            assert_eq!(dropped, 3);
            let sums = if per_packet { q.win } else { q.cur };
            let s = f64::from(MTU);
            assert_eq!((sums.y, sums.s), (5.0 * s, 5.0 * s), "per_packet {per_packet}");
            assert!((sums.a / (5.0 * f64::from(0.1_f32) * s / 10.0) - 1.0).abs() < 1e-9, "{}", sums.a);
        }
    }

    use crate::queue::WireSchedule as Wire;

    /// Equal up to the rounding of the headers' f32 fields.
    fn close(x: f64, want: f64) -> bool {
        (x - want).abs() <= 1e-6 * want.abs().max(1.0)
    }

    fn feedback(p: &Packet) -> f64 {
        f64::from(p.explicit().unwrap().feedback)
    }

    #[test]
    fn configs_from_their_tables() {
        let xcp = XcpConfig::default();
        assert_eq!((xcp.alpha, xcp.beta, xcp.gamma), (0.55, 0.4, 0.1));
        assert_eq!((xcp.init_interval, xcp.per_packet), (Dur::from_millis(50), None));
        assert!(!xcp.equal_share && !xcp.outstanding);
        assert!(!xcp.capacity_rtt && !xcp.fc_departures && !xcp.residues && !xcp.queue_at_departure);
        assert_eq!(xcp.queue_window, None);
        // XCP_w measures as the ABC artifact's router (xcp_packet_queue.cc): μ over the last d, Q
        // the smallest queue a departure left over the last 100 ms; its feedback is XCP's
        // fairness controller over the last d's departures, with residues.
        let w = XcpConfig::per_packet_default();
        assert_eq!(w.per_packet, Some(Dur::from_millis(20)));
        assert!(!w.equal_share && !w.outstanding && w.capacity_rtt, "{w:?}");
        assert!(w.queue_at_departure && w.queue_window == Some(Dur::from_millis(100)), "{w:?}");
        assert!(w.fc_departures && w.residues, "{w:?}");
        let mut v = Values::defaults(&[PARAMS_W]);
        v.set("outstanding", crate::params::Val::Flag(true));
        v.set("equal_share", crate::params::Val::Flag(false));
        v.set("capacity", crate::params::Val::Word("window"));
        v.set("fc_sums", crate::params::Val::Word("arrivals"));
        v.set("residues", crate::params::Val::Flag(false));
        v.set("queue_window_ms", crate::params::Val::Num(0.0));
        v.set("queue_sample", crate::params::Val::Word("arrival"));
        let w = XcpConfig::from_values(&v);
        assert_eq!(w, XcpConfig { outstanding: true, ..w_before() });
    }

    #[test]
    fn queue_interface_of_both_variants() {
        let mut q = XcpQueue::new(XcpConfig::default());
        assert_eq!((q.name(), q.capacity_window()), ("xcp", None));
        let mut w = XcpQueue::new(XcpConfig::per_packet_default());
        assert_eq!((w.name(), w.capacity_window(), w.next_timer()), ("xcp-w", Some(Dur::from_millis(20)), None));
        for i in 0..3 {
            q.enqueue(Time::ZERO, xcp_pkt(i, 15_000.0, 0.1)).unwrap();
            w.enqueue(Time::ZERO, xcp_pkt(i, 15_000.0, 0.1)).unwrap();
        }
        assert_eq!((q.len_packets(), q.len_bytes(), q.stats().enqueued), (3, 4500, 3));
        q.end_interval(Time::from_millis(100), 0.0);
        // φ = 0.55·0.1·(0 − 45 000) − 0.4·0 = −2475 B.
        assert!(close(q.gauge().unwrap(), -2475.0), "{:?}", q.gauge());
        // XCP_w does nothing on a timer.
        w.on_timer(Time::from_millis(100), &crate::queue::ConstantSchedule(1.5e6));
        assert_eq!(w.state(), XcpState::default());
    }

    #[test]
    fn arrivals_without_a_usable_header_count_only_in_the_input_rate() {
        let mut q = XcpQueue::new(XcpConfig::default());
        q.enqueue(Time::ZERO, xcp_pkt(0, 15_000.0, 0.1)).unwrap();
        q.enqueue(Time::ZERO, xcp_pkt(1, 15_000.0, 0.0)).unwrap(); // no RTT estimate yet (§3.1)
        q.enqueue(Time::ZERO, xcp_pkt(2, 0.0, 0.1)).unwrap();
        let mut rcp = Packet::data(1, 3, MTU, Ecn::NotEct, Time::ZERO);
        rcp.set_explicit(ExplicitHeader {
            kind: ExplicitKind::Rcp,
            cwnd: 15_000.0,
            rtt: 0.1,
            feedback: f32::MAX,
        });
        q.enqueue(Time::ZERO, rcp).unwrap();
        q.enqueue(Time::ZERO, Packet::data(2, 4, MTU, Ecn::NotEct, Time::ZERO)).unwrap();
        q.end_interval(Time::from_millis(100), 0.0);
        let s = q.state();
        // y = 5·1500 = 7500 B over T = 0.1 s; only the first packet counts in A = 0.1·1500/15 000
        // = 0.01, B = 0.001 (d = 0.1 s) and Σs = 1500. With C = 0: φ = 0.55·0.1·(0 − 75 000)
        // = −4125, h = max(0, 750 − 4125) = 0, ξp = 0, ξn = 4125/(0.1·1500) = 27.5.
        assert!(close(s.input_rate, 75_000.0) && close(s.d, 0.1), "{s:?}");
        assert!(close(s.phi, -4125.0) && s.shuffle == 0.0 && s.xi_p == 0.0, "{s:?}");
        assert!(close(s.xi_n, 27.5), "{s:?}");
    }

    #[test]
    fn timer_ends_an_interval_only_when_due_and_counts_the_links_ip_bytes() {
        let mut q = XcpQueue::new(XcpConfig::default());
        for i in 0..10 {
            q.enqueue(Time::ZERO, xcp_pkt(i, 15_000.0, 0.08)).unwrap();
        }
        // 1.504 MB/s of wire bytes with 4 bytes per packet = 1.5 MB/s of IP bytes.
        let link = Wire(1_504_000.0, 4);
        q.on_timer(Time::from_millis(40), &link);
        assert_eq!((q.state(), q.next_timer()), (XcpState::default(), Some(Time::from_millis(50))));
        q.on_timer(Time::from_millis(50), &link);
        let s = q.state();
        // T = 0.05 s, y = 15 000 B: 300 000 B/s; d = B/A = 0.08 s; Q = 0 (the first arrival's);
        // φ = 0.55·0.08·(1.5e6 − 3e5) = 52 800 B.
        assert!(close(s.capacity, 1.5e6) && close(s.input_rate, 300_000.0) && close(s.d, 0.08), "{s:?}");
        assert!(close(s.phi, 52_800.0), "{s:?}");
        assert_eq!(q.next_timer(), Some(Time::from_millis(130)));
        // An interval without arrivals keeps d, takes Q from the queue (15 000 B) and has no
        // header packet to share φ among: φ = 0.55·0.08·1.5e6 − 0.4·15 000 = 60 000 B, ξp = ξn = 0.
        q.on_timer(Time::from_millis(130), &link);
        let s = q.state();
        assert!(close(s.d, 0.08) && close(s.capacity, 1.5e6) && s.input_rate == 0.0, "{s:?}");
        assert!(close(s.queue, 15_000.0) && close(s.phi, 60_000.0), "{s:?}");
        assert_eq!((s.xi_p, s.xi_n), (0.0, 0.0));
        assert_eq!(q.next_timer(), Some(Time::from_millis(210)));
    }

    #[test]
    fn negative_budget_of_an_interval_is_handed_out_once() {
        // As in the overload test: φ = −41 250 B over 100 packets of 412.5 B each (h = 0).
        let mut q = XcpQueue::new(XcpConfig::default());
        let mut d = Vec::new();
        for i in 0..101 {
            q.enqueue(Time::ZERO, xcp_pkt(i, 30_000.0, 0.1)).unwrap();
        }
        q.end_interval(Time::from_millis(100), 75_750.0);
        // y = 151 500 B: φ = 0.55·0.1·(757 500 − 1 515 000) = −41 662.5 B = 101 × 412.5.
        assert!(close(q.state().phi, -41_662.5), "{:?}", q.state());
        let mut total = 0.0;
        for _ in 0..101 {
            total += feedback(&q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap());
        }
        assert!((total + 41_662.5).abs() < 0.1, "{total}");
        // The budget is spent: the next packet of this interval gets nothing (up to rounding), and
        // one without a window (cwnd 0) gets 0 whatever the budget.
        q.enqueue(Time::from_millis(100), xcp_pkt(0, 30_000.0, 0.1)).unwrap();
        q.enqueue(Time::from_millis(100), xcp_pkt(0, 0.0, 0.1)).unwrap();
        let spent = feedback(&q.dequeue(Time::from_millis(100), LinkInfo::default(), &mut d).unwrap());
        assert!(spent.abs() < 1e-6, "{spent}");
        q.end_interval(Time::from_millis(200), 1e9);
        assert!(q.state().xi_p > 0.0);
        assert_eq!(feedback(&q.dequeue(Time::from_millis(200), LinkInfo::default(), &mut d).unwrap()), 0.0);
    }

    #[test]
    fn xcp_w_fairness_controller_by_hand_over_a_sliding_rtt() {
        let mut q = XcpQueue::new(w_before());
        let mut d = Vec::new();
        // μ = 290 000 B/s of IP bytes, given in wire bytes of a link with 4 bytes per packet.
        let link = LinkInfo {
            capacity: 290_000.0 * 1504.0 / 1500.0,
            overhead: 4,
        };
        let t1 = Time::from_millis(10);
        for i in 0..10 {
            q.enqueue(t1, xcp_pkt(i, 15_000.0, 0.05)).unwrap();
        }
        let fb = feedback(&q.dequeue(t1, link, &mut d).unwrap());
        let s = q.state();
        // Window: y = 15 000 B, A = 10·0.05·1500/15 000 = 0.05, B = 0.0025 ⇒ d = 0.05 s;
        // y/d = 300 000 B/s; Q = 0 (the first arrival's). φ = 0.55·0.05·(290 000 − 300 000) = −275;
        // h = 0.1·15 000 − 275 = 1225; ξp = 1225/(0.05·0.05) = 490 000; ξn = 1500/(0.05·15 000) = 2;
        // feedback = 490 000·0.05²·1500/15 000 − 2·0.05·1500 = 122.5 − 150 = −27.5 B.
        assert!(close(s.capacity, 290_000.0) && close(s.d, 0.05) && close(s.input_rate, 300_000.0), "{s:?}");
        assert!(close(s.phi, -275.0) && close(s.shuffle, 1225.0), "{s:?}");
        assert!(close(s.xi_p, 490_000.0) && close(s.xi_n, 2.0), "{s:?}");
        assert!((fb + 27.5).abs() < 1e-4, "{fb}");
        // One RTT later (t = 60 ms: the arrivals at 10 ms are exactly d old and leave the window)
        // another flow's packet (cwnd 30 000 B, rtt 0.1 s) arrives behind the 9 left (13 500 B).
        let t2 = Time::from_millis(60);
        q.enqueue(t2, xcp_pkt(10, 30_000.0, 0.1)).unwrap();
        let fb = feedback(&q.dequeue(t2, link, &mut d).unwrap());
        let s = q.state();
        // Window: that packet only: A = 0.1·1500/30 000 = 0.005, B = 0.0005 ⇒ d = 0.1 s, y/d =
        // 15 000 B/s, Q = 13 500 B. φ = 0.55·0.1·(290 000 − 15 000) − 0.4·13 500 = 9725, h = 0,
        // ξp = 9725/(0.1·0.005) = 19 450 000, ξn = 0; the departing packet (rtt 0.05 s, cwnd
        // 15 000 B) gets 19 450 000·0.05²·1500/15 000 = 4862.5 B.
        assert!(close(s.d, 0.1) && close(s.input_rate, 15_000.0) && close(s.queue, 13_500.0), "{s:?}");
        assert!(close(s.phi, 9725.0) && s.shuffle == 0.0 && s.xi_n == 0.0, "{s:?}");
        assert!((s.xi_p / 19_450_000.0 - 1.0).abs() < 1e-6, "{s:?}");
        assert!((fb - 4862.5).abs() < 1e-3, "{fb}");
        // A packet without a window gets 0.
        q.enqueue(t2, xcp_pkt(11, 0.0, 0.1)).unwrap();
        for _ in 0..9 {
            q.dequeue(t2, link, &mut d).unwrap();
        }
        assert_eq!(feedback(&q.dequeue(t2, link, &mut d).unwrap()), 0.0);
    }

    #[test]
    fn xcp_w_outstanding_subtracts_the_feedback_granted_in_the_last_rtt() {
        let mut cfg = w_before();
        cfg.equal_share = true;
        cfg.outstanding = true;
        let mut q = XcpQueue::new(cfg);
        let mut d = Vec::new();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        let t1 = Time::from_millis(10);
        for i in 0..10 {
            q.enqueue(t1, xcp_pkt(i, 15_000.0, 0.05)).unwrap();
        }
        // φ = 0.55·0.05·(1.5e6 − 300 000) = 33 000 B: the first departure gets all of it, the next
        // ones get (33 000 − 33 000)/n = 0 while it is outstanding.
        let fbs: Vec<f64> = (0..3).map(|_| feedback(&q.dequeue(t1, link, &mut d).unwrap())).collect();
        assert!((fbs[0] - 33_000.0).abs() < 1e-2 && fbs[1] == 0.0 && fbs[2] == 0.0, "{fbs:?}");
        // At 60 ms the arrivals and grants of 10 ms are one RTT (50 ms) old and leave the windows:
        // none left, so d stays 50 ms, y = 0, Q = the queue after this departure (6 packets),
        // φ = 0.55·0.05·1.5e6 − 0.4·9000 = 37 650 B, all of it to this packet (n = 1).
        let fb = feedback(&q.dequeue(Time::from_millis(60), link, &mut d).unwrap());
        let s = q.state();
        assert!(close(s.d, 0.05) && s.input_rate == 0.0 && close(s.queue, 9000.0), "{s:?}");
        assert!((fb - 37_650.0).abs() < 1e-2, "{fb}");
    }

    #[test]
    fn xcp_w_equal_share_counts_data_without_a_header_but_not_acks() {
        let mut cfg = w_before();
        cfg.equal_share = true;
        let mut q = XcpQueue::new(cfg);
        let mut d = Vec::new();
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        let t = Time::from_millis(10);
        q.enqueue(t, xcp_pkt(0, 15_000.0, 0.05)).unwrap();
        q.enqueue(t, Packet::data(1, 0, MTU, Ecn::NotEct, Time::ZERO)).unwrap();
        q.enqueue(t, Packet::ack(2, 0, crate::packet::Echo::None, Time::ZERO, Time::ZERO)).unwrap();
        q.enqueue(t, xcp_pkt(1, 15_000.0, 0.05)).unwrap();
        let first = feedback(&q.dequeue(t, link, &mut d).unwrap());
        assert!(q.dequeue(t, link, &mut d).unwrap().explicit().is_none());
        assert!(q.dequeue(t, link, &mut d).unwrap().explicit().is_none());
        let last = feedback(&q.dequeue(t, link, &mut d).unwrap());
        // The same φ (no arrival in between) over n = 3 departures of data (the ACK not counted).
        assert!(first > 0.0 && (last - first / 3.0).abs() < 1e-2, "{first} {last}");
    }

    /// A link that carries nothing before 80 ms and 1.5 MB/s from then on.
    struct StepAt80;
    impl LinkSchedule for StepAt80 {
        fn capacity_between(&self, from: Time, to: Time) -> f64 {
            let from = from.max(Time::from_millis(80));
            if to <= from {
                0.0
            } else {
                1.5e6 * (to - from).secs_f64()
            }
        }
        fn overhead(&self) -> u32 {
            0
        }
    }

    #[test]
    fn xcp_w_measures_capacity_over_the_last_rtt_and_q_over_100_ms_of_departures() {
        // The ABC artifact's XCP_w (xcp_packet_queue.cc): μ = the opportunities of the last mean
        // RTT d (empty ones too) / d, Q = the smallest queue left behind by a departure in the
        // last 100 ms (both our defaults), feedback φ/N (`equal_share`).
        let eq = XcpConfig {
            equal_share: true,
            ..XcpConfig::per_packet_default()
        };
        let mut q = XcpQueue::new(eq);
        assert!(q.observes_link());
        let mut d = Vec::new();
        // What a 20 ms window sees at 100 ms (1.5 MB/s); the router must not use it.
        let link = LinkInfo {
            capacity: 1.5e6,
            overhead: 0,
        };
        let t = Time::from_millis(100);
        for i in 0..10 {
            q.enqueue(Time::from_millis(90), xcp_pkt(i, 15_000.0, 0.05)).unwrap();
        }
        // d = 50 ms (the initial interval): (50, 100] ms carried 1.5e6·0.02 = 30 000 B ⇒ μ =
        // 600 000 B/s. y = 15 000 B / 0.05 s = 300 000 B/s; after the first departure 9 packets
        // (13 500 B) are left: φ = 0.55·0.05·(600 000 − 300 000) − 0.4·13 500 = 8250 − 5400
        // = 2850 B, all of it to this packet (N = 1).
        q.observe_link(t, &StepAt80);
        let fb = feedback(&q.dequeue(t, link, &mut d).unwrap());
        let s = q.state();
        assert!((s.capacity - 600_000.0).abs() < 0.1 && close(s.d, 0.05) && close(s.input_rate, 300_000.0), "{s:?}");
        assert!(close(s.queue, 13_500.0) && (fb - 2850.0).abs() < 1e-2, "{fb} {s:?}");
        // Next departure: Q = 12 000 B, φ = 8250 − 4800 = 3450 B over N = 2: 1725 B.
        let fb = feedback(&q.dequeue(t, link, &mut d).unwrap());
        assert!(close(q.state().queue, 12_000.0) && (fb - 1725.0).abs() < 1e-2, "{fb}");
        // 150 ms later the samples of 100 ms have left Q's window (100 ms) and, with d = 50 ms,
        // the arrivals and departures have left theirs: Q = the 7 packets left now (10 500 B),
        // μ over (200, 250] = 1.5e6, y = 0: φ = 0.55·0.05·1.5e6 − 0.4·10 500 = 41 250 − 4200.
        let t = Time::from_millis(250);
        q.observe_link(t, &StepAt80);
        let fb = feedback(&q.dequeue(t, link, &mut d).unwrap());
        let s = q.state();
        assert!(close(s.capacity, 1.5e6) && close(s.queue, 10_500.0) && s.input_rate == 0.0, "{s:?}");
        assert!((fb - 37_050.0).abs() < 1e-2, "{fb}");
        // Without an observation (a Wi-Fi link) μ is the capacity the link gives the router.
        let mut q = XcpQueue::new(eq);
        q.enqueue(t, xcp_pkt(0, 15_000.0, 0.05)).unwrap();
        q.dequeue(t, link, &mut d).unwrap();
        assert!(close(q.state().capacity, 1.5e6));
        // The paper's XCP has no use for the hook.
        assert!(!XcpQueue::new(XcpConfig::default()).observes_link());
        assert!(!XcpQueue::new(XcpConfig { capacity_rtt: false, ..XcpConfig::per_packet_default() }).observes_link());
    }

    #[test]
    fn xcp_w_fairness_controller_over_departures_with_residues_hands_out_phi_once_per_rtt() {
        // The default, XCP's fairness controller (equal_share = false). 10 packets (cwnd 15 000 B, rtt 50 ms)
        // arrive at 10 ms on a 1.5 MB/s link: y = 300 000 B/s, d = 0.05 s.
        let run = |fc_departures: bool, residues: bool| -> (f64, f64) {
            let cfg = XcpConfig {
                equal_share: false,
                fc_departures,
                residues,
                ..XcpConfig::per_packet_default()
            };
            let mut q = XcpQueue::new(cfg);
            let mut d = Vec::new();
            let link = LinkInfo {
                capacity: 1.5e6,
                overhead: 0,
            };
            let t = Time::from_millis(10);
            for i in 0..10 {
                q.enqueue(t, xcp_pkt(i, 15_000.0, 0.05)).unwrap();
            }
            let a = feedback(&q.dequeue(t, link, &mut d).unwrap());
            let b = feedback(&q.dequeue(t, link, &mut d).unwrap());
            (a, b)
        };
        // First departure: Q = 13 500 B, φ = 0.55·0.05·1.2e6 − 0.4·13 500 = 27 600 B, h = 0.
        // Over the departures (this one only: A = 0.05·1500/15 000 = 0.005) ξp = 27 600/(0.05·0.005)
        // and p = ξp·0.05²·1500/15 000 = 27 600 B: all of φ, as φ/N with N = 1. Second: Q = 12 000,
        // φ = 28 200 B over two departures: p = 14 100 B, but 27 600 B of the last d's budget
        // h + φ⁺ = 28 200 B are spent, so the residue leaves 600 B.
        let (a, b) = run(true, true);
        assert!((a - 27_600.0).abs() < 1e-2 && (b - 600.0).abs() < 1e-2, "{a} {b}");
        let (a, b) = run(true, false);
        assert!((a - 27_600.0).abs() < 1e-2 && (b - 14_100.0).abs() < 1e-2, "{a} {b}");
        // Over the 10 arrivals (A = 0.05) each departure gets φ/10: 2760 B, then 2820 B.
        let (a, b) = run(false, false);
        assert!((a - 2760.0).abs() < 1e-2 && (b - 2820.0).abs() < 1e-2, "{a} {b}");
    }
}
