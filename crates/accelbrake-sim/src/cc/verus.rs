//! Verus (Zaki et al., SIGCOMM 2015), following the authors' code `yzaki/verus`
//! (`src/verus_server.cpp`, `src/verus.hpp`). Digest and deviations: `docs/cellular-schemes.md`.
//!
//! Verus learns a **delay profile**: for every window `w` it has sent with, an EWMA (weight 0.875
//! on the old value) of the RTTs of packets sent with that window. A smooth curve `D(w)` is fitted
//! to it every second (the code: alglib `spline1dfitpenalized` with `M = max_w/N` basis functions,
//! `N` = 15 lowered until `M ≥ 5`, `ρ = 2`). Every **epoch** (ε = 5 ms):
//!
//! - `D_max` = the largest RTT seen in the epoch (no ACK in it: the larger of the previous
//!   `D_maxLast` and the time since the last ACK);
//! - if `D_maxLast/D_min > R`: `D_est ← max(D_min, D_est − δ2)` (except right after slow start);
//!   else if `D_max − D_maxLast > 0`: `D_est ← max(D_min, D_est − δ1)`; else `D_est += δ2`;
//! - the window `W` = (the first integer `w ≥ 2` with `D(w) > D_est`) − 1, at least 1; no such
//!   `w` restarts slow start (code: "can't map delay on delay curve");
//! - `D_maxLast ← 0.2·D_maxLast + 0.8·D_max`.
//!
//! Slow start: `W += 1` per ACK until an RTT above 500 ms (then `W = 0.7·w_sent`, a loss phase,
//! `D_est = 0.75·R·D_min`) or a loss that leaves `W > 20`. On a loss: `W = min(W, 0.7·w_lost)`
//! (the window the lost packet was sent with) and `D_est` = the delay at the new `W` (raw profile
//! in slow start, `D(W)` after), once per loss phase; a loss in slow start that leaves `W ≤ 20`
//! does not end it, one that leaves more does, and the first fit then drops the profile points
//! at windows `≥ max(100, w_lost)` (`curveStop`). During a loss phase the profile is not updated and
//! `W += 1/W` per ACK (and `D_est ≤ D(W)`); it ends at the first ACK of a packet sent with
//! `w ≤ W`.
//!
//! Transport (see `docs/cellular-schemes.md`): the window is the transport's congestion window.
//! Verus sends `S = max(0, W + W_crt·(2 − n)/(n − 1))` packets per epoch (`n = ⌈RTT/ε⌉`, `W_crt` in
//! flight), whose fixed point keeps about `W` in flight; the transport keeps exactly `W` in flight,
//! clocked by ACKs. Epochs are processed when the controller is next called (ACK or send), each
//! elapsed epoch in turn (an epoch without ACKs uses the time since the last ACK, as the code
//! does). Losses are the transport's (RFC 6675), acting at once by default; `verus.loss_timer_ms =
//! 150` makes them act 150 ms later, as Verus's missing-packet timer (`MISSING_PKT_EXPIRY`).
//! The code carries each packet's `w` in its header; here an RTT sample is matched to the packet
//! it measures by its echoed send time (`now − rtt`), and packets an RTO forgot add no sample.

use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind, Marking, Scheme};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// Epoch, ms (`EPOCH 5e3` µs; paper §3).
pub const EPOCH_MS: f64 = 5.0;
/// δ1, ms (`DELTA1`).
pub const DELTA1_MS: f64 = 1.0;
/// δ2, ms (`DELTA2`).
pub const DELTA2_MS: f64 = 2.0;
/// R = D_max/D_min bound. 6 in the latest `yzaki/verus` `verus.hpp` (the version with
/// `MAX_W_DELAY_CURVE`) and in the copy vendored with C2TCP (`Soheil-ab/c2tcp@v2.0-jsac-19`,
/// `verus/src/verus.hpp`); earlier `yzaki/verus` versions had 2.0 and 4.0.
pub const R: f64 = 6.0;
/// Multiplicative decrease (`VERUS_M_DECREASE`).
pub const MD: f64 = 0.7;
/// Curve refit period, s (`CURVE_TIMER 1e6` µs).
pub const REFIT_S: f64 = 1.0;
/// Slow-start exit RTT, ms (`SS_EXIT_THRESHOLD 500.0`).
pub const SS_EXIT_MS: f64 = 500.0;
/// A loss ends slow start only if the decreased window is above this, in whole packets
/// (`removeExpiredPacketsFromSeqQueue`: `if (slowStart && (int)wBar > 20)`); at or below it the
/// decrease is applied, a loss phase starts and slow start goes on.
pub const SS_LOSS_EXIT_W: i64 = 20;
/// Smallest `curveStop`: on a loss that ends slow start, the profile points of windows
/// `≥ max(100, w_lost)` are dropped at the next fit (`curveStop = fmax (100, pdu->w)`, and
/// `delayProfile_thread`'s `if (i < curveStop) … else wList[i] = -1`).
pub const CURVE_STOP_MIN: usize = 100;
/// D_min raise, ms, when the `> R` rule has brought `D_est` down to `D_min` with fewer than 2
/// packets in flight (main loop: `if (dEst == dMin && wCrt < 2) dMin += 10;`).
pub const DMIN_RAISE_MS: f64 = 10.0;
/// EWMA weight on the old value for the profile points (`ewma(.., 0.875)`; the code also averages the RTT
/// so, as `dTBar`, which no decision here reads).
pub const EWMA_OLD: f64 = 0.875;
/// Weight of the old `D_maxLast` (`ewma(dMaxLast, dMax, 0.2)`).
pub const DMAX_OLD: f64 = 0.2;
/// Largest window in the profile (`MAX_W_DELAY_CURVE 40000`).
pub const MAX_W: usize = 40_000;
/// Initial points per basis function of the spline (`N = 15.0`).
pub const KNOT_SPACING: f64 = 15.0;
/// alglib `spline1dfitpenalized` ρ (`2.0`).
pub const RHO: f64 = 2.0;
/// The code's missing-packet expiry, ms (`MISSING_PKT_EXPIRY 150.0`, in every `verus.hpp`
/// version, including the one Pantheon pinned): a packet missing this long is lost. The code's
/// missing packet is stamped when an ACK beyond it first shows the gap and checked once per epoch
/// (`removeExpiredPacketsFromSeqQueue` in the main loop). Option `verus.loss_timer_ms` (off by
/// default, see [`PARAMS`]): the timer starts at the transport's loss signal (SACK: a few ACKs
/// after the gap) and is checked at each epoch boundary (in slow start, at each ACK or send).
pub const MISSING_PKT_EXPIRY_MS: f64 = 150.0;
/// Most loss signals waiting for their timer (memory bound; the transport signals once per
/// recovery episode, so a handful at most are pending within 150 ms).
const MAX_PENDING_LOSSES: usize = 1024;

/// Verus's parameters (keys `verus.<name>`).
pub const PARAMS: &[Param] = &[
    Param::real("epoch_ms", EPOCH_MS, Unit::Ms, 0.1, 1000.0).doc("epoch ε", "yzaki/verus verus.hpp EPOCH; paper §3"),
    Param::real("delta1_ms", DELTA1_MS, Unit::Ms, 0.0, 1000.0).doc("δ1: D_est decrease when D_max rose", "verus.hpp DELTA1"),
    Param::real("delta2_ms", DELTA2_MS, Unit::Ms, 0.0, 1000.0)
        .doc("δ2: D_est increase, and decrease above R·D_min", "verus.hpp DELTA2"),
    Param::real("r", R, Unit::None, 1.0, 100.0)
        .open(true, false)
        .doc("R: bound on D_maxLast/D_min (earlier yzaki/verus versions: 2 and 4)", "verus.hpp VERUS_R, latest yzaki/verus and C2TCP v2.0-jsac-19"),
    Param::real("md", MD, Unit::None, 0.0, 1.0).open(true, true).doc("multiplicative decrease on loss", "verus.hpp VERUS_M_DECREASE; paper §3"),
    Param::real("refit_s", REFIT_S, Unit::S, 0.01, 100.0).doc("delay-profile refit period", "verus.hpp CURVE_TIMER"),
    Param::real("ss_exit_ms", SS_EXIT_MS, Unit::Ms, 1.0, 1e5).doc("slow start ends at an RTT above this", "verus.hpp SS_EXIT_THRESHOLD"),
    Param::real("rho", RHO, Unit::None, -15.0, 15.0).doc("smoothing ρ of the penalised spline (penalty 10^ρ)", "verus_server.cpp spline1dfitpenalized(.., 2.0)"),
    // Off by default (deviation, docs/cellular-schemes.md "The 150 ms loss timer"): the code's
    // 150 ms, over this transport, lets D_est climb past the saturated profile for 150 ms and the
    // window jump to thousands of packets, which the transport sends at once (the UDP code's
    // socket buffer would refuse them: ENOBUFS, itself a decrease).
    Param::real("loss_timer_ms", 0.0, Unit::Ms, 0.0, 10_000.0).doc(
        "a loss acts this long after the transport detects it (the code's missing-packet expiry is 150); 0: at once",
        "verus.hpp MISSING_PKT_EXPIRY 150.0; verus_server.cpp removeExpiredPacketsFromSeqQueue; default 0: deviation",
    ),
];

/// Verus over drop-tail.
pub const VERUS: Scheme = Scheme {
    name: "verus",
    display: "Verus",
    family: "verus",
    summary: "Verus: delay profile (window → delay spline, refitted each second) and 5 ms epochs",
    source: "Zaki et al., SIGCOMM 2015; yzaki/verus reference code",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#d6616b", "h"),
    build: |v, now, _rng| Ok(Box::new(Verus::new(VerusConfig::checked(v)?, now))),
    warnings: None,
};

/// The configuration read from [`PARAMS`].
#[derive(Clone, Debug, PartialEq)]
pub struct VerusConfig {
    /// Epoch.
    pub epoch: Dur,
    /// δ1, ms.
    pub delta1_ms: f64,
    /// δ2, ms.
    pub delta2_ms: f64,
    /// R.
    pub r: f64,
    /// Multiplicative decrease.
    pub md: f64,
    /// Refit period.
    pub refit: Dur,
    /// Slow-start exit RTT, ms.
    pub ss_exit_ms: f64,
    /// ρ.
    pub rho: f64,
    /// Delay from the transport's loss signal to the decrease (zero: at once).
    pub loss_timer: Dur,
}

crate::default_from_table!(VerusConfig);

impl Config for VerusConfig {
    const PREFIX: &'static str = "verus";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> VerusConfig {
        VerusConfig {
            epoch: v.ms("epoch_ms"),
            delta1_ms: v.real("delta1_ms"),
            delta2_ms: v.real("delta2_ms"),
            r: v.real("r"),
            md: v.real("md"),
            refit: Dur::from_secs_f64(v.real("refit_s")),
            ss_exit_ms: v.real("ss_exit_ms"),
            rho: v.real("rho"),
            loss_timer: v.ms("loss_timer_ms"),
        }
    }
}

/// A penalised regression spline: piecewise linear on `m` uniform knots over `[x0, x1]` (a
/// P-spline of degree 1), fitted by least squares with a second-difference penalty `λ`; linear
/// extrapolation beyond the knots.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    x0: f64,
    h: f64,
    c: Vec<f64>,
}

impl Curve {
    /// Fit `m ≥ 2` knots to the points `(x, y)` with penalty `lambda`. `None` if there are no
    /// points or they span no width.
    pub fn fit(x: &[f64], y: &[f64], m: usize, lambda: f64) -> Option<Curve> {
        let m = m.max(2);
        let (x0, x1) = x.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if x.is_empty() || x1 <= x0 {
            return None;
        }
        let h = (x1 - x0) / (m - 1) as f64;
        // Normal equations in band storage: a[i][k] = A[i][i + k − 2], k = 0..5.
        let mut a = vec![[0.0f64; 5]; m];
        let mut b = vec![0.0f64; m];
        for (&xi, &yi) in x.iter().zip(y) {
            let u = ((xi - x0) / h).clamp(0.0, (m - 1) as f64);
            let j = (u.floor() as usize).min(m - 2);
            let t = u - j as f64;
            let (wj, wk) = (1.0 - t, t);
            a[j][2] += wj * wj;
            a[j][3] += wj * wk;
            a[j + 1][1] += wj * wk;
            a[j + 1][2] += wk * wk;
            b[j] += wj * yi;
            b[j + 1] += wk * yi;
        }
        // Penalty λ·Σ (c[k−1] − 2c[k] + c[k+1])².
        for k in 1..m - 1 {
            let idx = [k - 1, k, k + 1];
            let coef = [1.0, -2.0, 1.0];
            for (p, &i) in idx.iter().enumerate() {
                for (q, &j) in idx.iter().enumerate() {
                    let off = j as isize - i as isize + 2;
                    a[i][off as usize] += lambda * coef[p] * coef[q];
                }
            }
        }
        // A tiny ridge keeps knots with no points and no curvature determined.
        for row in a.iter_mut() {
            row[2] += 1e-9;
        }
        // Banded Gaussian elimination (symmetric positive definite: no pivoting).
        for i in 0..m {
            let piv = a[i][2];
            if piv.abs() < 1e-300 {
                return None;
            }
            for r in 1..=2 {
                if i + r >= m {
                    break;
                }
                let f = a[i + r][2 - r] / piv;
                if f == 0.0 {
                    continue;
                }
                for k in 0..=2 {
                    // A[i+r][i+k] −= f·A[i][i+k]
                    let col = 2 + k - r;
                    a[i + r][col] -= f * a[i][2 + k];
                }
                b[i + r] -= f * b[i];
            }
        }
        let mut c = vec![0.0f64; m];
        for i in (0..m).rev() {
            let mut s = b[i];
            for k in 1..=2 {
                if i + k < m {
                    s -= a[i][2 + k] * c[i + k];
                }
            }
            c[i] = s / a[i][2];
        }
        Some(Curve { x0, h, c })
    }

    /// The curve at `x`.
    pub fn at(&self, x: f64) -> f64 {
        let m = self.c.len();
        let u = (x - self.x0) / self.h;
        let j = if u < 0.0 { 0 } else { (u.floor() as usize).min(m - 2) };
        let t = u - j as f64;
        self.c[j] + t * (self.c[j + 1] - self.c[j])
    }

    /// The first integer `w` in `[2, max_w]` with `D(w) > d`, minus 1; `None` if there is none.
    pub fn window_for(&self, d: f64, max_w: usize) -> Option<f64> {
        let m = self.c.len();
        let last = self.x0 + self.h * (m - 1) as f64;
        let mut w = 2usize;
        // Inside the knots: scan segment by segment, skipping segments entirely at or below d.
        while (w as f64) <= last && w <= max_w {
            let u = (w as f64 - self.x0) / self.h;
            let j = (u.max(0.0).floor() as usize).min(m - 2);
            let seg_end = (self.x0 + self.h * (j + 1) as f64).floor() as usize;
            if self.c[j].max(self.c[j + 1]) > d || (w as f64) < self.x0 {
                if self.at(w as f64) > d {
                    return Some(w as f64 - 1.0);
                }
                w += 1;
            } else {
                w = (seg_end + 1).max(w + 1);
            }
        }
        // Beyond the knots: linear extrapolation; a curve that no longer rises maps no window.
        let slope = (self.c[m - 1] - self.c[m - 2]) / self.h;
        if slope <= 0.0 {
            return None;
        }
        let x = last + (d - self.c[m - 1]) / slope;
        let first = (x.floor() as usize + 1).max(w);
        (first <= max_w).then_some(first as f64 - 1.0)
    }
}

/// The Verus controller.
#[derive(Clone, Debug)]
pub struct Verus {
    cfg: VerusConfig,
    /// Delay profile: EWMA of RTT (ms) per window; negative = no sample.
    w_list: Vec<f64>,
    max_w_seen: usize,
    curve: Option<Curve>,
    next_refit: Option<Time>,
    /// Profile points at windows `≥` this are dropped by the next fit, which then resets it
    /// (code `curveStop`, `MAX_W_DELAY_CURVE` when unset).
    curve_stop: usize,
    w_bar: f64,
    d_est: f64,
    d_min: f64,
    d_max_last: Option<f64>,
    epoch_delays_max: Option<f64>,
    next_epoch: Time,
    last_ack: Time,
    slow_start: bool,
    exit_slow_start: bool,
    loss_phase: bool,
    /// Send time and window of the packets sent and not yet matched to an RTT sample, in sending
    /// order (the code carries `w` in each packet's header; here an RTT sample is matched to its
    /// packet by its send time, `now − rtt`, the timestamp it echoes).
    sent_w: VecDeque<(Time, u32)>,
    /// The window of the newest packet passed over without an RTT sample of its own (lost, or
    /// covered by another packet's ACK): the stand-in for the lost packet's window on a loss.
    skipped_w: Option<u32>,
    /// Packets in flight as the transport last reported them (the code's `wCrt`).
    in_flight: u32,
    /// Losses the transport signalled whose timer has not expired: (expiry, window of the lost
    /// packet), oldest first (the code's `missingsequence_queue`).
    pending_losses: VecDeque<(Time, u32)>,
    restarts: u64,
}

impl Verus {
    /// A controller starting in slow start at `now`.
    pub fn new(cfg: VerusConfig, now: Time) -> Verus {
        Verus {
            next_epoch: now + cfg.epoch,
            cfg,
            w_list: Vec::new(),
            max_w_seen: 0,
            curve: None,
            next_refit: None,
            curve_stop: MAX_W,
            w_bar: 1.0,
            d_est: 0.0,
            d_min: f64::INFINITY,
            d_max_last: None,
            epoch_delays_max: None,
            last_ack: now,
            slow_start: true,
            exit_slow_start: false,
            loss_phase: false,
            sent_w: VecDeque::new(),
            skipped_w: None,
            in_flight: 0,
            pending_losses: VecDeque::new(),
            restarts: 0,
        }
    }

    /// The window W.
    pub fn w_bar(&self) -> f64 {
        self.w_bar
    }
    /// D_est, ms.
    pub fn d_est(&self) -> f64 {
        self.d_est
    }
    /// Whether in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    /// Whether in a loss phase.
    pub fn in_loss_phase(&self) -> bool {
        self.loss_phase
    }
    /// The fitted delay profile.
    pub fn curve(&self) -> Option<&Curve> {
        self.curve.as_ref()
    }
    /// Slow-start restarts (no window maps to D_est, too few windows to fit, or an RTO before any RTT
    /// sample).
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// Record one RTT sample (ms) of a packet sent with window `w` (code
    /// `updateUponReceivingPacket`).
    pub fn profile_sample(&mut self, w: usize, delay_ms: f64) {
        let w = w.clamp(1, MAX_W - 1);
        if self.w_list.len() <= w {
            self.w_list.resize(w + 1, -1.0);
        }
        let old = self.w_list[w];
        self.w_list[w] = if old < 0.0 {
            delay_ms
        } else {
            EWMA_OLD * old + (1.0 - EWMA_OLD) * delay_ms
        };
        self.max_w_seen = self.max_w_seen.max(w);
    }

    /// The window below which the next fit keeps the profile points (code `curveStop`).
    pub fn curve_stop(&self) -> usize {
        self.curve_stop
    }

    /// Refit the delay profile (code `delayProfile_thread`); false when there are too few windows
    /// (the code restarts slow start then). Points at windows `≥ curveStop` are dropped from the
    /// profile for good, and `curveStop` is reset.
    pub fn refit(&mut self) -> bool {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let mut max_i = 1usize;
        let stop = self.curve_stop;
        for (w, d) in self.w_list.iter_mut().enumerate().skip(1) {
            if *d >= 0.0 {
                if w < stop {
                    xs.push(w as f64);
                    ys.push(*d);
                    max_i = w;
                } else {
                    *d = -1.0;
                }
            }
        }
        if stop < self.w_list.len() {
            self.w_list.truncate(stop);
            self.max_w_seen = max_i.min(self.max_w_seen);
        }
        self.curve_stop = MAX_W;
        // N = 15 lowered by one until max_i/N ≥ 5 (at N = 1 at the least; the code's loop, bounded).
        let Some(n) = (1..=KNOT_SPACING as u32).rev().map(f64::from).find(|&n| (max_i as f64) / n >= 5.0) else {
            return false;
        };
        let m = ((max_i as f64) / n).floor() as usize;
        // alglib scales ρ internally; here the penalty is 10^ρ per point and basis function.
        let lambda = 10f64.powf(self.cfg.rho) * xs.len() as f64 / m as f64 * 1e-2;
        if let Some(c) = Curve::fit(&xs, &ys, m, lambda) {
            self.curve = Some(c);
            true
        } else {
            false
        }
    }

    fn restart_slow_start(&mut self, now: Time) {
        self.restarts += 1;
        self.w_list.clear();
        self.max_w_seen = 0;
        self.curve = None;
        self.next_refit = None;
        self.curve_stop = MAX_W;
        self.w_bar = 1.0;
        self.d_est = 0.0;
        self.d_min = f64::INFINITY;
        self.d_max_last = None;
        self.epoch_delays_max = None;
        self.slow_start = true;
        self.exit_slow_start = false;
        self.loss_phase = false;
        self.pending_losses.clear();
        self.next_epoch = now + self.cfg.epoch;
    }

    /// Leave slow start on an RTT above the threshold (receiver thread, `SS_EXIT_THRESHOLD`):
    /// `W = 0.7·w_sent`, `D_est = 0.75·R·D_min`, a loss phase, and the `> R` rule waits for the
    /// loss phase to end (`exitSlowStart`), as the C2TCP copy.
    fn leave_slow_start_by_rtt(&mut self, now: Time, w_sent: f64) {
        self.w_bar = (self.cfg.md * w_sent).max(1.0);
        self.d_est = 0.75 * self.d_min * self.cfg.r;
        self.exit_slow_start = true;
        self.loss_phase = true;
        self.end_slow_start(now);
    }

    /// Slow start is over: the profile thread fits as soon as it sees that, then every second.
    fn end_slow_start(&mut self, now: Time) {
        self.slow_start = false;
        if !self.refit() {
            self.restart_slow_start(now);
            return;
        }
        self.next_refit = Some(now + self.cfg.refit);
        self.next_epoch = now + self.cfg.epoch;
    }

    /// The raw profile's delay at window `w`, or at the nearest smaller window with a sample.
    fn raw_profile_at(&self, w: usize) -> Option<f64> {
        let top = w.min(self.w_list.len().checked_sub(1)?);
        self.w_list[..=top].iter().rev().copied().find(|&d| d >= 0.0)
    }

    /// W for D_est (code `calcDelayCurve`): from the curve, or from the raw profile before the
    /// first fit. `None`: no window maps (restart).
    fn window_for(&self, d: f64) -> Option<f64> {
        match &self.curve {
            Some(c) => c.window_for(d, MAX_W - 1),
            None => {
                for w in 2..self.w_list.len() {
                    if self.w_list[w] > d {
                        return Some(w as f64 - 1.0);
                    }
                }
                Some(1.0)
            }
        }
    }

    /// One epoch ending at `t` (code `main` loop). `false` if it restarted slow start.
    pub fn epoch(&mut self, t: Time) -> bool {
        let d_max = match self.epoch_delays_max.take() {
            Some(d) => d,
            None => {
                let buffering = t.saturating_since(self.last_ack).millis_f64();
                self.d_max_last.unwrap_or(buffering).max(buffering)
            }
        };
        let last = *self.d_max_last.get_or_insert(d_max);
        let delta = d_max - last;
        if last / self.d_min > self.cfg.r {
            if !self.exit_slow_start {
                self.d_est = (self.d_est - self.cfg.delta2_ms).max(self.d_min);
                // The queue is drained (< 2 in flight) and the delay still R times D_min: the
                // path's base delay has risen, so D_min rises (code `dMin += 10`). (With ≥ 2 in
                // flight the code also skips the epoch's sends, `dMinStop`; here W maps from
                // D_est = D_min, which keeps the transport from sending until fewer than W are in
                // flight.)
                if self.d_est == self.d_min && self.in_flight < 2 {
                    self.d_min += DMIN_RAISE_MS;
                }
            }
        } else if delta > 0.0001 {
            self.d_est = (self.d_est - self.cfg.delta1_ms).max(self.d_min);
        } else {
            self.d_est += self.cfg.delta2_ms;
        }
        match self.window_for(self.d_est) {
            Some(w) => self.w_bar = w.max(1.0),
            // D_est lies above a profile that stopped rising (a full drop-tail buffer caps the
            // delay): one more than the largest window seen. The code restarts slow start when
            // its cubic spline's extrapolation never reaches D_est (see docs/cellular-schemes.md).
            None if self.flat_top() => self.w_bar = (self.max_w_seen + 1) as f64,
            None => {
                self.restart_slow_start(t);
                return false;
            }
        }
        self.d_max_last = Some(DMAX_OLD * last + (1.0 - DMAX_OLD) * d_max);
        true
    }

    /// Whether the fitted profile reaches its largest delay at its largest window (flat or
    /// saturated at the top), i.e. D_est above it is not reachable by any window.
    fn flat_top(&self) -> bool {
        self.curve.as_ref().is_some_and(|c| c.c.len() >= 2 && c.c[c.c.len() - 1] >= c.c[c.c.len() - 2] - 1e-9)
    }

    /// Run the epochs and refits due by `now`.
    fn advance(&mut self, now: Time) {
        if self.slow_start {
            self.expire_losses(now);
            if self.slow_start {
                self.next_epoch = now + self.cfg.epoch;
                return;
            }
        }
        let mut n = 0;
        while self.next_epoch <= now && n < 10_000 {
            let t = self.next_epoch;
            self.next_epoch = t + self.cfg.epoch;
            // The main loop checks the missing packets first, then runs the epoch.
            self.expire_losses(t);
            if let Some(r) = self.next_refit.filter(|&r| r <= t) {
                self.next_refit = Some(r + self.cfg.refit);
                if !self.refit() {
                    self.restart_slow_start(t);
                    return;
                }
            }
            if !self.epoch(t) {
                return;
            }
            n += 1;
        }
        if self.next_epoch <= now {
            self.next_epoch = now + self.cfg.epoch;
        }
    }

    /// A loss, as the code's `removeExpiredPacketsFromSeqQueue` (for the first expired packet):
    /// once per loss phase `W = min(W, 0.7·w_lost)` and `D_est` = the delay at the new `W` (the raw
    /// profile in slow start, `dEst = wList[(int)wBar]`; the fitted one after, `calcDelayCurveInv`),
    /// so the next epoch maps `D_est` to about that window instead of back to the one before the
    /// loss. Then, in slow start, the loss ends it only if `(int)W > 20`, and the next fit drops
    /// the profile points at windows `≥ max(100, w_lost)` (`curveStop`); at or below 20 slow
    /// start goes on from the decreased window (in a loss phase: no profile samples, `W += 1/W`
    /// besides slow start's `W += 1` per ACK, until an ACK of a packet sent with `w ≤ W`).
    fn apply_loss(&mut self, now: Time, w_lost: u32) {
        if !self.loss_phase {
            self.loss_phase = true;
            self.w_bar = self.w_bar.min(self.cfg.md * f64::from(w_lost)).max(1.0);
            if self.slow_start {
                self.d_est = self.raw_profile_at(self.w_bar as usize).unwrap_or(self.d_est);
            } else if let Some(c) = &self.curve {
                self.d_est = c.at(self.w_bar);
            }
        }
        if self.slow_start && (self.w_bar as i64) > SS_LOSS_EXIT_W {
            self.curve_stop = (w_lost as usize).max(CURVE_STOP_MIN);
            self.end_slow_start(now);
        }
    }

    /// The main loop's check of the missing packets at `t` (`removeExpiredPacketsFromSeqQueue`):
    /// if the oldest pending loss has expired, it acts (`apply_loss`, with its window),
    /// and every pending loss expired by `t` is dropped with it (the code's `timerExpiry` lets only
    /// the first expired packet of a check act). Losses still pending act at a later check, if
    /// the loss phase has ended by then.
    fn expire_losses(&mut self, t: Time) {
        let Some(&(due, w_lost)) = self.pending_losses.front() else { return };
        if due > t {
            return;
        }
        while self.pending_losses.front().is_some_and(|&(d, _)| d <= t) {
            self.pending_losses.pop_front();
        }
        self.apply_loss(t, w_lost);
    }

    /// The window of the packet sent at `sent` (the RTT sample's echoed timestamp): the oldest
    /// unmatched packet sent then (several can share a send time), which is consumed; the older
    /// ones, passed over, are forgotten (their window kept in `skipped_w`). `None` if no packet
    /// was sent then (already matched or forgotten).
    fn w_of_sent_at(&mut self, sent: Time) -> Option<u32> {
        let older = self.sent_w.partition_point(|&(t, _)| t < sent);
        if older > 0 {
            self.skipped_w = Some(self.sent_w[older - 1].1);
            self.sent_w.drain(..older);
        }
        match self.sent_w.front() {
            Some(&(t, w)) if t == sent => {
                self.sent_w.pop_front();
                Some(w)
            }
            _ => None,
        }
    }
}

impl CongestionControl for Verus {
    fn name(&self) -> &'static str {
        "verus"
    }

    fn window(&self) -> f64 {
        self.w_bar.max(1.0)
    }

    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.advance(now);
        self.in_flight = in_flight;
        self.sent_w.push_back((now, self.w_bar.max(1.0) as u32));
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.advance(now);
        self.in_flight = ack.in_flight;
        let Some(rtt) = ack.rtt else { return };
        let matched = self.w_of_sent_at(now - rtt);
        let w_sent = matched.unwrap_or(self.w_bar.max(1.0) as u32);
        let delay = rtt.millis_f64();
        self.last_ack = now;
        if self.slow_start && delay > self.cfg.ss_exit_ms {
            self.leave_slow_start_by_rtt(now, f64::from(w_sent));
        }
        if self.loss_phase && matched.is_some_and(|w| f64::from(w) <= self.w_bar) {
            self.epoch_delays_max = None;
            self.loss_phase = false;
            self.exit_slow_start = false;
        }
        self.epoch_delays_max = Some(self.epoch_delays_max.map_or(delay, |d| d.max(delay)));
        self.d_min = self.d_min.min(delay);
        if self.loss_phase {
            self.w_bar += 1.0 / self.w_bar;
            if let Some(c) = &self.curve {
                self.d_est = self.d_est.min(c.at(self.w_bar));
            }
        } else if let Some(w) = matched {
            // A packet the RTO forgot has no window to sample (the code ignores it too: after its
            // timeout the packet is older than `seqLast` and not in the missing queue).
            self.profile_sample(w as usize, delay);
        }
        if self.slow_start {
            self.w_bar += f64::from(ack.acked);
        }
    }

    /// A loss the transport detected (RFC 6675). The code declares a packet lost once it has been
    /// missing for `MISSING_PKT_EXPIRY` (150 ms): with `loss_timer_ms` > 0 (default 0) the loss is
    /// queued and acts at the first epoch boundary after its timer expires
    /// (`expire_losses`); with 0 it acts at once. The window of the lost packet is taken
    /// now (the code stores it with the missing packet).
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, _in_flight: u32) {
        if kind != CongestionKind::Loss {
            return;
        }
        let w_lost = self.skipped_w.take().or_else(|| self.sent_w.front().map(|&(_, w)| w)).unwrap_or(self.w_bar as u32);
        if self.cfg.loss_timer == Dur::ZERO {
            self.apply_loss(now, w_lost);
        } else if self.pending_losses.len() < MAX_PENDING_LOSSES {
            self.pending_losses.push_back((now + self.cfg.loss_timer, w_lost));
        }
    }

    /// The code's timeout (`TimeoutHandler`, C2TCP copy; timer `min(1000, max(5·delay, 150))` ms
    /// since the last ACK), here on the transport's RTO: before any ACK, slow start restarts
    /// (`seqLast == 0`); in slow start, slow start ends (`slowStart = false`, the profile is then
    /// fitted); after it, a loss phase with `D_est = D_min` (`lossPhase = true; dEst = dMin`, the
    /// packets in flight forgotten), so no profile samples until the ACK of a packet sent with
    /// `w ≤ W`. `W` is mapped from `D_min` at once (the code: at the next epoch).
    fn on_rto(&mut self, now: Time, _in_flight: u32) {
        self.sent_w.clear();
        self.skipped_w = None;
        if self.d_min.is_infinite() {
            self.restart_slow_start(now);
            return;
        }
        if self.slow_start {
            self.end_slow_start(now);
            return;
        }
        self.d_est = self.d_min;
        self.loss_phase = true;
        self.pending_losses.clear();
        self.w_bar = self.window_for(self.d_est).unwrap_or(1.0).max(1.0);
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            ..CcMetrics::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default configuration: losses act at the transport's signal (`loss_timer_ms = 0`).
    fn at_once() -> VerusConfig {
        let c = VerusConfig::default();
        assert_eq!(c.loss_timer, Dur::ZERO);
        c
    }

    /// With the code's 150 ms missing-packet expiry (`verus.loss_timer_ms = 150`).
    fn timer_150() -> VerusConfig {
        VerusConfig {
            loss_timer: Dur::from_millis(MISSING_PKT_EXPIRY_MS as u64),
            ..VerusConfig::default()
        }
    }

    #[test]
    fn spline_fits_a_line_and_smooths_noise() {
        // A straight line is fitted exactly (no curvature to penalise).
        let x: Vec<f64> = (1..=100).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|w| 100.0 + 2.0 * w).collect();
        let c = Curve::fit(&x, &y, 7, 100.0).unwrap();
        for w in [1.0, 17.5, 50.0, 100.0, 130.0] {
            assert!((c.at(w) - (100.0 + 2.0 * w)).abs() < 1e-4, "{w}: {}", c.at(w));
        }
        // D(w) = 100 + 2w > 181 first at w = 41 → W = 40.
        assert_eq!(c.window_for(181.0, 1000), Some(40.0));
        // Beyond the data, by extrapolation: D(w) > 400 first at w = 151 → 150.
        assert_eq!(c.window_for(400.0, 1000), Some(150.0));
        assert_eq!(c.window_for(400.0, 120), None, "capped");
        // Alternating ±10 ms noise around the line is smoothed out by the penalty.
        let yn: Vec<f64> = y.iter().enumerate().map(|(i, v)| v + if i % 2 == 0 { 10.0 } else { -10.0 }).collect();
        let c = Curve::fit(&x, &yn, 7, 100.0).unwrap();
        for w in [10.0, 50.0, 90.0] {
            assert!((c.at(w) - (100.0 + 2.0 * w)).abs() < 1.5, "{w}: {}", c.at(w));
        }
        // A flat curve never exceeds a higher delay: no window maps.
        let c = Curve::fit(&x, &vec![100.0; 100], 7, 100.0).unwrap();
        assert_eq!(c.window_for(150.0, 1000), None);
    }

    fn steady() -> Verus {
        // A profile of a 100 ms path whose queue starts at w = 100: D(w) = 100 + max(0, w − 100).
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=200usize {
            v.profile_sample(w, 100.0 + (w as f64 - 100.0).max(0.0));
        }
        v.slow_start = false;
        v.d_min = 100.0;
        v.d_est = 150.0;
        assert!(v.refit());
        v
    }

    #[test]
    fn epoch_decisions_by_hand() {
        let mut v = steady();
        let t = Time::from_millis(5);
        // First epoch: D_maxLast := D_max = 120 ms (ratio 1.2 < R), no rise → D_est += 2 → 152 ms;
        // W = first w with D(w) > 152, minus 1 ≈ 152.
        v.epoch_delays_max = Some(120.0);
        assert!(v.epoch(t));
        assert_eq!(v.d_est(), 152.0);
        assert!((v.w_bar() - 152.0).abs() <= 2.0, "{}", v.w_bar());
        assert!((v.d_max_last.unwrap() - 120.0).abs() < 1e-9);
        // D_max rose (130 > 120): D_est −= δ1 → 151; D_maxLast = 0.2·120 + 0.8·130 = 128.
        v.epoch_delays_max = Some(130.0);
        assert!(v.epoch(t));
        assert_eq!(v.d_est(), 151.0);
        assert!((v.d_max_last.unwrap() - 128.0).abs() < 1e-9);
        // D_maxLast/D_min > R (6): D_est −= δ2, floored at D_min.
        v.d_max_last = Some(700.0);
        v.epoch_delays_max = Some(700.0);
        assert!(v.epoch(t));
        assert_eq!(v.d_est(), 149.0);
        v.d_est = 101.0;
        v.d_max_last = Some(700.0);
        v.epoch_delays_max = Some(700.0);
        v.in_flight = 5;
        assert!(v.epoch(t));
        assert_eq!(v.d_est(), 100.0, "never below D_min");
        assert_eq!(v.d_min, 100.0, "5 in flight: D_min stays");
        // D_est at D_min and fewer than 2 packets in flight: D_min += 10 ms (and D_est follows it
        // up at the next epoch, where it is raised again while the ratio stays above R).
        v.in_flight = 1;
        v.d_max_last = Some(700.0);
        v.epoch_delays_max = Some(700.0);
        assert!(v.epoch(t));
        assert_eq!((v.d_est(), v.d_min), (100.0, 110.0));
        v.epoch_delays_max = Some(700.0);
        assert!(v.epoch(t));
        assert_eq!((v.d_est(), v.d_min), (110.0, 120.0));
        // No ACK in the epoch: D_max = max(D_maxLast, time since the last ACK).
        let mut v = steady();
        v.d_max_last = Some(110.0);
        v.last_ack = Time::ZERO;
        assert!(v.epoch(Time::from_millis(300)));
        assert!((v.d_max_last.unwrap() - (0.2 * 110.0 + 0.8 * 300.0)).abs() < 1e-9);
    }

    fn ss_ack(rtt_ms: u64, delivered: u64, lost: u32) -> AckInfo {
        AckInfo {
            acked: 1,
            rtt: Some(Dur::from_millis(rtt_ms)),
            delivered,
            lost,
            ..AckInfo::default()
        }
    }

    #[test]
    fn a_loss_at_a_small_window_does_not_end_slow_start() {
        // yzaki/verus, C2TCP copy `removeExpiredPacketsFromSeqQueue`: `if (slowStart && (int)wBar
        // > 20)` after the decrease. One packet sent per ACK plus the first: after i ACKs W = i + 1
        // and the oldest outstanding packet (number i + 1) was sent with W = i.
        let mut v = Verus::new(at_once(), Time::ZERO);
        v.on_sent(Time::ZERO, 1);
        for i in 1..=20 {
            v.on_sent(Time::ZERO, 1);
            v.on_ack(Time::from_millis(100), &ss_ack(100, i, 0));
        }
        assert_eq!(v.w_bar(), 21.0);
        // Packet 21 (sent with W = 20) is lost: W = min(21, 0.7·20) = 14, not above 20, so slow start
        // goes on, in a loss phase, with D_est = the raw profile at 14 (100 ms) and no curve.
        let t = Time::from_millis(150);
        v.on_congestion_event(t, CongestionKind::Loss, 1);
        assert!(v.in_slow_start() && v.in_loss_phase());
        assert!((v.w_bar() - 14.0).abs() < 1e-9, "{}", v.w_bar());
        assert_eq!(v.d_est(), 100.0);
        assert!(v.curve().is_none());
        // A second loss of the same phase decreases nothing and, W = 14 being ≤ 20, ends nothing.
        v.on_congestion_event(t, CongestionKind::Loss, 1);
        assert!(v.in_slow_start());
        assert!((v.w_bar() - 14.0).abs() < 1e-9);
        // The ACK of packet 22, sent with W = 14 after the loss (21 delivered + 1 lost), ends the
        // loss phase (14 ≤ W) before the profile update: a sample at 14, then W += 1 → 15.
        v.on_sent(t, 1);
        v.on_ack(Time::from_millis(250), &ss_ack(100, 21, 1));
        assert!(v.in_slow_start() && !v.in_loss_phase());
        assert!((v.w_bar() - 15.0).abs() < 1e-9, "{}", v.w_bar());
        // Slow start goes on one per ACK: packets 23..=47 sent with W = 15..=39, and acked.
        for i in 22..=46u64 {
            v.on_sent(t, 1);
            v.on_ack(Time::from_millis(250), &ss_ack(100, i, 0));
        }
        assert!((v.w_bar() - 40.0).abs() < 1e-9, "{}", v.w_bar());
        // Packet 48 (sent with W = 40) is lost: the ACK of packet 49 (sent 10 ms later) passes it
        // over (W += 1 → 41), then the loss: W = min(41, 0.7·40 = 28) = 28 > 20, slow start ends,
        // curveStop = max(100, 40) = 100 (no point dropped here), and the profile is fitted.
        v.on_sent(t, 1);
        v.on_sent(t + Dur::from_millis(10), 1);
        v.on_ack(Time::from_millis(260), &ss_ack(100, 47, 0));
        assert!((v.w_bar() - 41.0).abs() < 1e-9, "{}", v.w_bar());
        v.on_congestion_event(Time::from_millis(400), CongestionKind::Loss, 1);
        assert!(!v.in_slow_start() && v.in_loss_phase());
        assert!((v.w_bar() - 28.0).abs() < 1e-9, "{}", v.w_bar());
        assert!(v.curve().is_some());
        assert_eq!(v.curve_stop(), MAX_W);
        assert_eq!(v.restarts(), 0);
    }

    #[test]
    fn curve_stop_drops_the_slow_start_overshoot() {
        // Slow start sampled windows 1..=200: 100 ms up to w = 120, then the queue of the overshoot
        // (+10 ms per window). The first lost packet was sent with w = 150: W = min(200, 105) = 105
        // > 20 ends slow start and curveStop = max(100, 150) = 150.
        let profile = |w: usize| 100.0 + 10.0 * (w as f64 - 120.0).max(0.0);
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=200usize {
            v.profile_sample(w, profile(w));
        }
        v.d_min = 100.0;
        v.w_bar = 200.0;
        v.sent_w.push_back((Time::ZERO, 150));
        v.on_congestion_event(Time::from_millis(500), CongestionKind::Loss, 100);
        assert!(!v.in_slow_start());
        assert!((v.w_bar() - 105.0).abs() < 1e-9);
        assert_eq!(v.d_est(), profile(105), "D_est = wList[(int)wBar] in slow start");
        // The fit dropped windows 150..=200 for good (and reset curveStop): the top of the fitted
        // profile is near the kept points' top (390 ms at 149, smoothed by the penalty), far from the
        // 900 ms of window 200; the flat part stays at 100 ms.
        assert_eq!(v.w_list.len(), 150);
        assert!(v.w_list.iter().skip(1).all(|&d| d >= 0.0));
        assert_eq!(v.curve_stop(), MAX_W);
        let c = v.curve().unwrap();
        assert!(c.at(149.0) > 290.0 && c.at(149.0) < 400.0, "D(149) = {}", c.at(149.0));
        assert!((c.at(60.0) - 100.0).abs() < 10.0, "D(60) = {}", c.at(60.0));
        // The next fit keeps every point the profile then has.
        v.profile_sample(170, 400.0);
        assert!(v.refit());
        assert_eq!(v.w_list.len(), 171);
        // Without curveStop (a loss outside slow start) nothing is dropped.
        let mut v = steady();
        v.w_bar = 200.0;
        v.sent_w.push_back((Time::ZERO, 150));
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert!(v.refit());
        assert_eq!(v.w_list.len(), 201);
    }

    #[test]
    fn slow_start_exit_and_loss_decrease() {
        let mut v = Verus::new(at_once(), Time::ZERO);
        let ack = |rtt_ms: u64, delivered: u64| AckInfo {
            acked: 1,
            rtt: Some(Dur::from_millis(rtt_ms)),
            delivered,
            ..AckInfo::default()
        };
        // One packet sent per ACK received (plus the first): every packet carries the window at
        // its sending, which grows by one per ACK.
        v.on_sent(Time::ZERO, 1);
        for i in 1..=100 {
            v.on_sent(Time::ZERO, 1);
            v.on_ack(Time::from_millis(100), &ack(100, i));
        }
        assert!(v.in_slow_start());
        assert_eq!(v.w_bar(), 101.0, "W += 1 per ACK");
        // A loss in slow start: W = 0.7 × the window the oldest outstanding packet was sent with
        // (packet 101 was sent at W = 100), D_est = the raw profile at W = 70 (every packet saw
        // 100 ms), and the profile is fitted.
        v.on_congestion_event(Time::from_millis(100), CongestionKind::Loss, 20);
        assert!(!v.in_slow_start());
        assert!((v.w_bar() - 70.0).abs() < 1e-9, "{}", v.w_bar());
        assert!(v.curve().is_some());
        assert!(v.in_loss_phase());
        assert_eq!(v.d_est(), 100.0);
        // curveStop = max(100, w_lost = 100): the fit dropped the point of window 100 and reset it.
        assert_eq!(v.w_list.len(), 100, "windows 1–99 kept");
        assert_eq!(v.curve_stop(), MAX_W);
        // Leaving on an RTT above 500 ms instead: D_est = 0.75·R·D_min (the C2TCP copy), then, on
        // the same ACK, the loss phase's `D_est = min(D_est, D(W))`.
        let mut v = Verus::new(at_once(), Time::ZERO);
        v.on_sent(Time::ZERO, 1);
        for i in 1..=50 {
            v.on_sent(Time::ZERO, 1);
            v.on_ack(Time::from_millis(100), &ack(100, i));
        }
        v.on_sent(Time::ZERO, 1);
        v.on_ack(Time::from_millis(700), &ack(600, 51));
        assert!(!v.in_slow_start() && v.exit_slow_start);
        let d_w = v.curve().unwrap().at(v.w_bar());
        assert!(d_w < 450.0 && (v.d_est() - d_w).abs() < 1e-9, "{} vs D(W) {d_w}", v.d_est());
        // Steady state: a loss multiplies the sending window by 0.7, once per loss phase.
        let mut v = steady();
        v.w_bar = 150.0;
        v.sent_w.push_back((Time::ZERO, 140));
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert!((v.w_bar() - 98.0).abs() < 1e-9);
        // D_est follows the window down to the fitted profile's delay there (the knee at 100 is
        // smoothed: D(98) ≈ 105 ms), so the next epoch keeps W near 98 instead of mapping the
        // old D_est (150 ms) back to W ≈ 150.
        assert_eq!(v.d_est(), v.curve().unwrap().at(98.0));
        assert!(v.d_est() < 110.0, "D_est {}", v.d_est());
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert!((v.w_bar() - 98.0).abs() < 1e-9, "once per loss phase");
        v.epoch_delays_max = Some(100.0);
        assert!(v.epoch(Time::from_millis(5)));
        assert!(v.w_bar() < 110.0, "after the loss the epoch maps D_est to W = {}", v.w_bar());
        // The decrease never raises W: W = min(W, 0.7·w_lost).
        let mut v = steady();
        v.w_bar = 50.0;
        v.sent_w.push_back((Time::ZERO, 140));
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert_eq!(v.w_bar(), 50.0);
    }

    // Mutation-testing additions (docs/testing.md).

    #[test]
    fn the_knots_span_the_points_and_a_knee_on_a_knot_is_fitted_exactly() {
        // Knots at x0 + j·h, h = (x1 − x0)/(m − 1): points 10..=20 with m = 3 put them at 10, 15
        // and 20, so the V-shape |x − 15| is piecewise linear on the knots and, with no penalty, is
        // fitted exactly: c = [5, 0, 5] (up to the 1e-9 ridge).
        let x: Vec<f64> = (10..=20).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|v| (v - 15.0).abs()).collect();
        let c = Curve::fit(&x, &y, 3, 0.0).unwrap();
        assert_eq!((c.x0, c.h, c.c.len()), (10.0, 5.0, 3));
        for (got, want) in c.c.iter().zip([5.0, 0.0, 5.0]) {
            assert!((got - want).abs() < 1e-6, "{:?}", c.c);
        }
        for v in [10.0, 12.0, 15.0, 17.5, 20.0] {
            assert!((c.at(v) - (v - 15.0f64).abs()).abs() < 1e-6, "D({v}) = {}", c.at(v));
        }
        // Linear extrapolation of the last segment beyond x1: D(23) = 8; below x0 the first one's.
        assert!((c.at(23.0) - 8.0).abs() < 1e-6 && (c.at(8.0) - 7.0).abs() < 1e-6);
        // No points, or points of no width: no curve.
        assert_eq!(Curve::fit(&[], &[], 3, 0.0), None);
        assert_eq!(Curve::fit(&[7.0], &[100.0], 3, 0.0), None);
        assert_eq!(Curve::fit(&[7.0, 7.0], &[100.0, 120.0], 3, 0.0), None);
    }

    #[test]
    fn rho_may_be_negative() {
        // verus.rho ranges over [−15, 15] (penalty 10^ρ).
        let scheme = crate::cc::lookup("verus").unwrap();
        let mut given = crate::params::Given::new();
        given.insert("rho".into(), crate::params::Value::Num(-15.0));
        let v = scheme.values(&given).unwrap();
        assert_eq!(VerusConfig::checked(&v).unwrap().rho, -15.0);
        given.insert("rho".into(), crate::params::Value::Num(-15.5));
        let e = scheme.values(&given).err().unwrap();
        assert!(e.to_string().contains("verus.rho"), "{e}");
    }

    /// The window the specification gives: the first integer `w` in `[2, max_w]` with
    /// `D(w) > d`, minus 1 (code `calcDelayCurve`'s scan), by brute force.
    fn window_by_scan(c: &Curve, d: f64, max_w: usize) -> Option<f64> {
        (2..=max_w).find(|&w| c.at(w as f64) > d).map(|w| w as f64 - 1.0)
    }

    #[test]
    fn window_for_is_the_first_window_above_d_on_any_curve() {
        // Knots at 10, 14, 18, 22 (h = 4: every D(w) below is exact in binary).
        let curve = |c: [f64; 4]| Curve {
            x0: 10.0,
            h: 4.0,
            c: c.to_vec(),
        };
        // A: flat, then +2 and +4 per window. By hand: D(16) = 104 exactly, so d = 104 maps to
        // w = 17 (D must exceed d), W = 16; d = 104.5 also to 16 (the last segment's slope would
        // give 17); d = 123 to the last knot (D(22) = 124), W = 21; beyond it D(24) = 132 > 130.
        let a = curve([100.0, 100.0, 108.0, 124.0]);
        assert_eq!(a.window_for(104.0, 100), Some(16.0));
        assert_eq!(a.window_for(104.5, 100), Some(16.0));
        assert_eq!(a.window_for(123.0, 100), Some(21.0));
        assert_eq!(a.window_for(130.0, 100), Some(23.0));
        assert_eq!(a.window_for(123.0, 21), None, "D first exceeds 123 at 22 > max_w");
        // B: up to 120 at the second knot, then down: d = 110 maps inside the first segment
        // (D(13) = 115), before the segments at or below 110 that the scan skips.
        let b = curve([100.0, 120.0, 100.0, 100.0]);
        assert_eq!(b.window_for(110.0, 100), Some(12.0));
        // C: the peak in the middle segment, after a first segment at or below d.
        let c = curve([100.0, 100.0, 120.0, 100.0]);
        assert_eq!(c.window_for(110.0, 100), Some(16.0));
        // D: the first window after a skipped segment is the answer (D(15) = 110 > 105).
        let dd = curve([100.0, 100.0, 140.0, 100.0]);
        assert_eq!(dd.window_for(105.0, 100), Some(14.0));
        // E: falling first segment: windows below x0 follow its extrapolation (D(2) = 116).
        let e = curve([100.0, 90.0, 90.0, 130.0]);
        assert_eq!(e.window_for(100.5, 100), Some(1.0));
        // The scan skips whole segments at or below d; it must agree with the brute-force scan
        // everywhere (d off the exact values, so no tie is left to rounding).
        for k in [a, b, c, dd, e, curve([130.0, 100.0, 125.0, 90.0])] {
            for i in 0..100 {
                let d = 85.25 + 0.5 * f64::from(i);
                for max_w in [12, 21, 60] {
                    assert_eq!(k.window_for(d, max_w), window_by_scan(&k, d, max_w), "{k:?} d = {d} max_w = {max_w}");
                }
            }
        }
    }

    #[test]
    fn profile_points_are_an_ewma_per_window() {
        // updateUponReceivingPacket: the first sample of a window is taken as is, the next ones
        // through ewma(old, new, 0.875): 0.875·100 + 0.125·180 = 110, then 0.875·110 + 0.125·30 = 100.
        let mut v = Verus::new(at_once(), Time::ZERO);
        v.profile_sample(5, 100.0);
        assert_eq!(v.w_list[5], 100.0);
        v.profile_sample(5, 180.0);
        assert_eq!(v.w_list[5], 110.0);
        v.profile_sample(5, 30.0);
        assert_eq!(v.w_list[5], 100.0);
        assert_eq!(v.w_list[1..5], [-1.0; 4], "windows without a sample stay unset");
        // A first sample of 0 ms is a sample: the next one averages with it.
        v.profile_sample(3, 0.0);
        v.profile_sample(3, 80.0);
        assert_eq!(v.w_list[3], 10.0);
        // Windows are clamped to [1, MAX_W − 1].
        v.profile_sample(0, 50.0);
        assert_eq!(v.w_list[1], 50.0);
        v.profile_sample(MAX_W + 7, 70.0);
        assert_eq!(v.w_list.len(), MAX_W);
        assert_eq!(v.w_list[MAX_W - 1], 70.0);
        assert_eq!(v.max_w_seen, MAX_W - 1);
    }

    #[test]
    fn refit_knot_count_and_penalty() {
        // Profile of windows 1..=max_i (the code's M = max_i/N with N = 15 lowered until M ≥ 5).
        let fitted = |max_i: usize| {
            let mut v = Verus::new(at_once(), Time::ZERO);
            for w in 1..=max_i {
                v.profile_sample(w, 100.0 + w as f64);
            }
            v.refit().then(|| v.curve().unwrap().c.len())
        };
        assert_eq!(fitted(4), None, "fewer than 5 windows: no fit (the code restarts slow start)");
        assert_eq!(fitted(5), Some(5), "N = 1");
        assert_eq!(fitted(9), Some(9), "N = 1 (9/2 < 5)");
        assert_eq!(fitted(30), Some(5), "N = 6");
        assert_eq!(fitted(74), Some(5), "N = 14: 74/15 < 5");
        assert_eq!(fitted(100), Some(6), "N = 15: ⌊100/15⌋");
        // The penalty: λ = 10^ρ · points / M · 10⁻² = 100 · 100 / 6 / 100 on a noisy profile; the
        // fit must be the curve fitted with exactly that λ (and no point dropped: curveStop unset).
        let noisy = |w: usize| 100.0 + (w as f64 - 50.0).max(0.0) + if w.is_multiple_of(2) { 5.0 } else { -5.0 };
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=100 {
            v.profile_sample(w, noisy(w));
        }
        assert!(v.refit());
        let xs: Vec<f64> = (1..=100).map(|w| w as f64).collect();
        let ys: Vec<f64> = (1..=100).map(noisy).collect();
        let want = Curve::fit(&xs, &ys, 6, 100.0 * 100.0 / 6.0 * 1e-2).unwrap();
        let other = Curve::fit(&xs, &ys, 6, 1.0).unwrap();
        let got = v.curve().unwrap();
        for w in [1.0, 20.0, 50.0, 70.0, 100.0] {
            assert!((got.at(w) - want.at(w)).abs() < 1e-9, "D({w}) = {} vs {}", got.at(w), want.at(w));
        }
        assert!((other.at(100.0) - want.at(100.0)).abs() > 1e-3, "λ matters here");
    }

    #[test]
    fn curve_stop_keeps_the_windows_below_it() {
        // Points at windows ≥ curveStop are dropped, the one just below is kept (`i < curveStop`).
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=40 {
            v.profile_sample(w, if w < 30 { 100.0 } else { 1000.0 });
        }
        v.curve_stop = 30;
        assert!(v.refit());
        assert_eq!(v.w_list.len(), 30);
        assert_eq!(v.max_w_seen, 29);
        let c = v.curve().unwrap();
        // Every kept point is at 100 ms: the fit is flat at 100 up to the last kept window.
        assert_eq!((c.x0, c.h), (1.0, 28.0 / 4.0), "knots over 1..=29 (M = ⌊29/5⌋ = 5)");
        assert!((c.at(29.0) - 100.0).abs() < 1e-6, "D(29) = {}", c.at(29.0));
    }

    #[test]
    fn restarts_reset_the_controller_and_are_counted() {
        // An RTO in slow start ends it (`TimeoutHandler`: `slowStart = false`) and the profile is
        // fitted; one that leaves too few windows to fit (M < 5) restarts it, and so does one
        // before any RTT sample (`seqLast == 0`).
        let ss = |acks: u64| {
            let mut v = Verus::new(at_once(), Time::ZERO);
            v.on_sent(Time::ZERO, 1);
            for i in 1..=acks {
                v.on_sent(Time::ZERO, 1);
                v.on_ack(Time::from_millis(100), &ss_ack(100, i, 0));
            }
            v
        };
        let mut v = ss(10);
        assert_eq!((v.w_bar(), v.d_min), (11.0, 100.0));
        v.on_rto(Time::from_millis(400), 0);
        assert_eq!(v.restarts(), 0);
        assert!(!v.in_slow_start() && !v.in_loss_phase() && v.curve().is_some());
        assert_eq!(v.w_bar(), 11.0);
        let mut v = ss(3);
        v.on_rto(Time::from_millis(400), 0);
        assert_eq!(v.restarts(), 1);
        assert!(v.in_slow_start() && !v.in_loss_phase() && v.curve().is_none());
        assert_eq!((v.w_bar(), v.d_est()), (1.0, 0.0));
        assert!(v.w_list.is_empty() && v.d_min.is_infinite() && v.d_max_last.is_none());
        v.on_rto(Time::from_millis(900), 0);
        assert_eq!(v.restarts(), 2);
        // An epoch whose D_est no window of a falling profile maps to restarts it too.
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=100usize {
            v.profile_sample(w, 300.0 - w as f64);
        }
        v.slow_start = false;
        v.d_min = 200.0;
        v.d_est = 400.0;
        assert!(v.refit());
        v.epoch_delays_max = Some(250.0);
        assert!(!v.epoch(Time::from_millis(5)));
        assert_eq!(v.restarts(), 1);
        assert!(v.in_slow_start() && v.curve().is_none() && v.w_bar() == 1.0);
    }

    #[test]
    fn leaving_slow_start_on_a_high_rtt_by_hand() {
        // W = 0.7·w_sent = 35.7, D_est = 0.75·R·D_min = 0.75·6·100 = 450 ms, a loss phase; the fit
        // is made at once, the next refit 1 s and the next epoch 5 ms later.
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=50 {
            v.profile_sample(w, 100.0);
        }
        v.d_min = 100.0;
        let t = Time::from_secs(2);
        v.leave_slow_start_by_rtt(t, 51.0);
        assert!((v.w_bar() - 35.7).abs() < 1e-9, "{}", v.w_bar());
        assert_eq!(v.d_est(), 450.0);
        assert!(!v.in_slow_start() && v.in_loss_phase() && v.exit_slow_start && v.curve().is_some());
        assert_eq!(v.next_refit, Some(t + Dur::from_secs(1)));
        assert_eq!(v.next_epoch, t + Dur::from_millis(5));
    }

    #[test]
    fn verus_window_for_uses_the_raw_profile_before_a_fit_and_caps_the_curve() {
        // Before the first fit: the first window w ≥ 2 whose raw point exceeds d, minus 1; none: 1.
        let mut v = Verus::new(at_once(), Time::ZERO);
        for w in 1..=10usize {
            v.profile_sample(w, 100.0 + 10.0 * w as f64);
        }
        assert_eq!(v.window_for(150.0), Some(5.0), "D(5) = 150 is not above 150; D(6) = 160 is");
        assert_eq!(v.window_for(155.0), Some(5.0));
        assert_eq!(v.window_for(100.0), Some(1.0), "D(2) = 120 > 100");
        assert_eq!(v.window_for(500.0), Some(1.0), "no point above: W = 1");
        // With a curve: windows up to MAX_W − 1 (D(w) = w here: d = 39 998.5 maps to 39 999 − 1,
        // d = 39 999.5 would need w = 40 000).
        v.curve = Some(Curve {
            x0: 1.0,
            h: 1.0,
            c: vec![1.0, 2.0],
        });
        assert_eq!(v.window_for(39_998.5), Some(39_998.0));
        assert_eq!(v.window_for(39_999.5), None);
    }

    #[test]
    fn a_ratio_of_exactly_r_is_not_above_r() {
        // D_maxLast/D_min = 600/100 = R: not above it, and D_max did not rise: D_est += δ2.
        let mut v = steady();
        v.d_max_last = Some(600.0);
        v.epoch_delays_max = Some(600.0);
        assert!(v.epoch(Time::from_millis(5)));
        assert_eq!(v.d_est(), 152.0);
        // Just above R: D_est −= δ2.
        let mut v = steady();
        v.d_max_last = Some(601.0);
        v.epoch_delays_max = Some(601.0);
        assert!(v.epoch(Time::from_millis(5)));
        assert_eq!(v.d_est(), 148.0);
    }

    #[test]
    fn epoch_boundaries_by_hand() {
        // D_min is raised only with fewer than 2 packets in flight (`wCrt < 2`): not with 2.
        let mut v = steady();
        v.d_est = 101.0;
        v.in_flight = 2;
        v.d_max_last = Some(700.0);
        v.epoch_delays_max = Some(700.0);
        assert!(v.epoch(Time::from_millis(5)));
        assert_eq!((v.d_est(), v.d_min), (100.0, 100.0));
        // A rise of D_max by exactly 0.0001 ms is not a rise (`> 0.0001`): D_est += δ2.
        let mut v = steady();
        v.d_max_last = Some(0.0);
        v.epoch_delays_max = Some(0.0001);
        assert!(v.epoch(Time::from_millis(5)));
        assert_eq!(v.d_est(), 152.0);
    }

    #[test]
    fn d_est_above_a_flat_top_maps_past_the_largest_window_and_above_a_falling_one_restarts() {
        // A profile that stops rising (a full drop-tail buffer): D_est above it gives
        // W = largest window seen + 1, no restart.
        let at_top = |c: Vec<f64>| {
            let mut v = steady();
            v.curve = Some(Curve { x0: 1.0, h: 40.0, c });
            v.d_est = 600.0;
            v.epoch_delays_max = Some(120.0);
            let kept = v.epoch(Time::from_millis(5));
            (kept, v.w_bar(), v.restarts())
        };
        assert_eq!(at_top(vec![100.0, 200.0, 300.0, 400.0, 500.0, 500.0]), (true, 201.0, 0));
        // Falling at the end (though above its middle): no window maps, slow start restarts.
        assert_eq!(at_top(vec![100.0, 200.0, 300.0, 400.0, 500.0, 450.0]), (false, 1.0, 1));
    }

    #[test]
    fn advance_runs_every_epoch_and_refit_due() {
        // Steady state from t = 0: epochs at 5 and 10 ms are due at 12 ms. The first has D_max
        // = 120 (no rise) → D_est 152; the second no ACK: D_max = max(D_maxLast 120, 10 ms since
        // the last ACK) = 120 → 154. The refit due at 10 ms runs before the second epoch only.
        let mut v = steady();
        v.next_epoch = Time::from_millis(5);
        v.next_refit = Some(Time::from_millis(10));
        v.last_ack = Time::ZERO;
        v.epoch_delays_max = Some(120.0);
        let before = v.curve().cloned();
        for w in 201..=300usize {
            v.profile_sample(w, 300.0);
        }
        v.advance(Time::from_millis(7));
        assert_eq!(v.d_est(), 152.0);
        assert_eq!(v.curve().cloned(), before, "refit not due yet");
        assert_eq!(v.next_epoch, Time::from_millis(10));
        v.advance(Time::from_millis(12));
        assert_eq!(v.d_est(), 154.0);
        assert_ne!(v.curve().cloned(), before, "refitted at 10 ms");
        assert_eq!(v.next_refit, Some(Time::from_millis(1010)));
        assert_eq!(v.next_epoch, Time::from_millis(15));
        assert_eq!(v.restarts(), 0);
        assert!(!v.in_slow_start());
        // At most 10 000 epochs are caught up at once (50 s of 5 ms epochs out of 60 s); then the
        // next epoch is one after now. With the `> R` rule held (exitSlowStart) only D_maxLast
        // moves: each epoch D_max = the time since the last ACK, D_maxLast = 0.2·old + 0.8·D_max.
        let mut v = steady();
        v.exit_slow_start = true;
        v.d_max_last = Some(1000.0);
        v.next_epoch = Time::from_millis(5);
        v.last_ack = Time::ZERO;
        let now = Time::from_secs(60);
        v.advance(now);
        let mut want = 1000.0f64;
        for k in 1..=10_000u32 {
            want = DMAX_OLD * want + (1.0 - DMAX_OLD) * want.max(5.0 * f64::from(k));
        }
        assert!((v.d_max_last.unwrap() - want).abs() < 1e-6, "{:?} vs {want}", v.d_max_last);
        assert_eq!(v.next_epoch, now + Dur::from_millis(5));
        assert_eq!(v.d_est(), 150.0);
    }

    #[test]
    fn acks_in_a_loss_phase_grow_w_by_one_over_w_and_leave_the_profile_alone() {
        // After a loss (W = 0.7·140 = 98), the ACK of a packet sent with 140 > W does not end the
        // loss phase: no profile sample, W += 1/W, D_est = min(D_est, D(W)).
        let mut v = steady();
        v.w_bar = 150.0;
        v.sent_w.extend([(Time::ZERO, 140); 3]);
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 3);
        assert!((v.w_bar() - 98.0).abs() < 1e-9);
        let d_loss = v.d_est();
        v.on_ack(Time::ZERO, &ss_ack(180, 1, 0));
        assert!(v.in_loss_phase());
        let w = 98.0 + 1.0 / 98.0;
        assert!((v.w_bar() - w).abs() < 1e-9, "{}", v.w_bar());
        assert_eq!(v.w_list[140], 140.0, "no sample in a loss phase");
        assert_eq!(v.d_est(), d_loss.min(v.curve().unwrap().at(w)));
        assert_eq!(v.window(), v.w_bar());
        assert_eq!(v.name(), "verus");
    }

    #[test]
    fn an_rtt_of_exactly_the_threshold_does_not_end_slow_start() {
        // SS_EXIT_THRESHOLD: slow start ends on an RTT above 500 ms, not at 500 ms.
        let mut v = Verus::new(at_once(), Time::ZERO);
        v.on_sent(Time::ZERO, 1);
        for i in 1..=10 {
            v.on_sent(Time::ZERO, 1);
            v.on_ack(Time::from_millis(100), &ss_ack(100, i, 0));
        }
        v.on_sent(Time::ZERO, 1);
        v.on_ack(Time::from_millis(600), &ss_ack(500, 11, 0));
        assert!(v.in_slow_start());
        assert_eq!(v.window(), 12.0);
        v.on_sent(Time::ZERO, 1);
        v.on_ack(Time::from_millis(700), &ss_ack(501, 12, 0));
        assert!(!v.in_slow_start());
    }

    #[test]
    fn a_slow_start_loss_leaving_exactly_20_goes_on() {
        // `(int)wBar > 20`: 0.7·29 = 20.3 truncates to 20, not above: slow start goes on; 0.7·31 =
        // 21.7 → 21 ends it.
        let lose = |w_lost: u32| {
            let mut v = Verus::new(at_once(), Time::ZERO);
            for w in 1..=40usize {
                v.profile_sample(w, 100.0);
            }
            v.w_bar = 40.0;
            v.sent_w.push_back((Time::ZERO, w_lost));
            v.on_congestion_event(Time::from_millis(300), CongestionKind::Loss, 10);
            (v.in_slow_start(), v.in_loss_phase())
        };
        assert_eq!(lose(29), (true, true));
        assert_eq!(lose(31), (false, true));
    }

    #[test]
    fn rtt_samples_go_to_the_window_their_packet_was_sent_with_even_after_an_rto() {
        // The code carries `w` in each packet's header. Here a sample is matched to its packet by
        // the send time it echoes; an RTO forgets the packets in flight, and their late ACKs (the
        // originals were only queued) then add no sample. Before (packets matched by counting
        // delivered + lost), those ACKs were given w = 1 and every later sample the window of
        // another packet, so the profile's small windows carried the delays of a full queue.
        let mut v = steady();
        v.w_bar = 150.0;
        for _ in 0..3 {
            v.on_sent(Time::ZERO, 150);
        }
        v.on_rto(Time::from_millis(300), 3);
        let before = v.w_list.clone();
        for i in 1..=3 {
            let ack = AckInfo { acked: 1, rtt: Some(Dur::from_millis(350)), delivered: i, ..AckInfo::default() };
            v.on_ack(Time::from_millis(350), &ack);
        }
        assert_eq!(v.w_list, before, "no sample from the packets the RTO forgot");
        // Two packets sent at 400 and 410 ms with the window then; the second's ACK (100 ms) goes to
        // its window, the first is passed over (its window kept as the stand-in for a loss).
        v.on_sent(Time::from_millis(400), 1);
        let w1 = v.sent_w.back().unwrap().1;
        v.on_sent(Time::from_millis(410), 2);
        let w2 = v.sent_w.back().unwrap().1 as usize;
        let ack = AckInfo { acked: 1, rtt: Some(Dur::from_millis(100)), delivered: 5, ..AckInfo::default() };
        v.on_ack(Time::from_millis(510), &ack);
        assert_eq!(v.w_list[w2], 0.875 * before[w2] + 0.125 * 100.0, "w2 = {w2}");
        assert_eq!(v.skipped_w, Some(w1));
        assert!(v.sent_w.is_empty());
        for (w, (a, b)) in v.w_list.iter().zip(&before).enumerate() {
            assert!(w == w2 || a == b, "window {w}: {b} → {a}");
        }
    }

    #[test]
    fn a_loss_acts_when_its_150_ms_timer_expires() {
        // The code declares a packet lost once it has been missing for MISSING_PKT_EXPIRY = 150 ms,
        // checked by the main loop before each epoch; until then W, D_est and the profile go on.
        let mut v = steady();
        v.cfg = timer_150();
        v.next_epoch = Time::from_millis(5);
        v.last_ack = Time::ZERO;
        v.w_bar = 150.0;
        v.sent_w.push_back((Time::ZERO, 140));
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert!(!v.in_loss_phase() && v.w_bar() == 150.0, "nothing at the signal");
        // Epochs at 5..=145 ms run as without a loss (no ACK: D_max = the time since the last ACK;
        // the first epoch sets D_maxLast to it, no rise: D_est 150 + δ2 = 152; the 28 after it see
        // it rise: −δ1 each, down to 124).
        v.advance(Time::from_millis(149));
        assert!(!v.in_loss_phase());
        assert_eq!(v.d_est(), 124.0);
        // The epoch at 150 ms: the loss acts first (W = min(W, 0.7·140) = 98, D_est = D(98)), then
        // the epoch (D_max rose: −δ1) maps D_est to a window below 98.
        v.advance(Time::from_millis(150));
        assert!(v.in_loss_phase());
        let d98 = v.curve().unwrap().at(98.0);
        assert!((v.d_est() - (d98 - 1.0).max(v.d_min)).abs() < 1e-9, "{} vs D(98) {d98}", v.d_est());
        assert!(v.w_bar() <= 98.0, "{}", v.w_bar());
        assert!(v.pending_losses.is_empty());
        // Two signals 20 ms apart: the first acts at its expiry and starts a loss phase, so the
        // second, expiring in the same loss phase, decreases nothing more.
        let mut v = steady();
        v.cfg = timer_150();
        v.next_epoch = Time::from_millis(5);
        v.w_bar = 150.0;
        v.sent_w.push_back((Time::ZERO, 140));
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        v.sent_w.push_back((Time::ZERO, 120));
        v.on_congestion_event(Time::from_millis(20), CongestionKind::Loss, 100);
        v.last_ack = Time::from_millis(150);
        v.epoch_delays_max = Some(120.0);
        v.advance(Time::from_millis(150));
        assert!(v.in_loss_phase() && v.pending_losses.len() == 1);
        let w = v.w_bar();
        v.advance(Time::from_millis(170));
        assert!(v.pending_losses.is_empty());
        assert!(v.w_bar() >= w, "no second decrease in the same loss phase: {w} → {}", v.w_bar());
        // An RTO after slow start forgets the pending losses (`TimeoutHandler` clears the missing
        // queue); a restart too.
        let mut v = steady();
        v.cfg = timer_150();
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        v.on_rto(Time::from_millis(100), 0);
        assert!(v.pending_losses.is_empty());
        // At most MAX_PENDING_LOSSES wait (memory bound).
        for _ in 0..MAX_PENDING_LOSSES + 5 {
            v.on_congestion_event(Time::from_millis(200), CongestionKind::Loss, 100);
        }
        assert_eq!(v.pending_losses.len(), MAX_PENDING_LOSSES);
        // In slow start the check runs at each ACK or send: the loss ends slow start 150 ms after
        // the signal (W = 0.7·40 = 28 > 20), not before.
        let mut v = Verus::new(timer_150(), Time::ZERO);
        for w in 1..=40usize {
            v.profile_sample(w, 100.0);
        }
        v.d_min = 100.0;
        v.w_bar = 40.0;
        v.sent_w.push_back((Time::ZERO, 40));
        v.on_congestion_event(Time::from_millis(300), CongestionKind::Loss, 10);
        v.on_sent(Time::from_millis(449), 10);
        assert!(v.in_slow_start() && !v.in_loss_phase());
        assert_eq!(v.next_epoch, Time::from_millis(454), "in slow start the epochs wait");
        v.on_sent(Time::from_millis(450), 10);
        assert!(!v.in_slow_start() && v.in_loss_phase());
        assert!((v.w_bar() - 28.0).abs() < 1e-9, "{}", v.w_bar());
        assert_eq!(v.next_epoch, Time::from_millis(455));
    }

    #[test]
    fn an_rto_after_slow_start_maps_d_min_in_a_loss_phase() {
        // `TimeoutHandler` after slow start: `lossPhase = true; dEst = dMin`, the packets in flight
        // forgotten. Before, the RTO ended the loss phase instead, so the late ACKs of the packets
        // the RTO gave up on went into the profile.
        let mut v = steady();
        v.w_bar = 150.0;
        v.on_rto(Time::from_millis(300), 0);
        assert_eq!(v.d_est(), 100.0, "D_est = D_min");
        let want = v.curve().unwrap().window_for(100.0, MAX_W - 1).unwrap_or(1.0).max(1.0);
        assert_eq!(v.w_bar(), want);
        assert!(v.in_loss_phase() && !v.in_slow_start() && v.sent_w.is_empty());
        assert_eq!(v.restarts(), 0);
        assert_eq!(v.metrics().cwnd, v.window());
        // The loss phase ends at the ACK of a packet sent with w ≤ W, which is sampled.
        let before = v.w_list.clone();
        v.on_sent(Time::from_millis(300), 1);
        let w = v.sent_w.back().unwrap().1 as usize;
        let ack = AckInfo { acked: 1, rtt: Some(Dur::from_millis(100)), delivered: 1, ..AckInfo::default() };
        v.on_ack(Time::from_millis(400), &ack);
        assert!(!v.in_loss_phase());
        assert_eq!(v.w_list[w], 0.875 * before[w] + 0.125 * 100.0);
    }
}
