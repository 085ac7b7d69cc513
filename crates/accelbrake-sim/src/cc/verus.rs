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
//! does). Losses are the transport's (RFC 6675) instead of Verus's 150 ms missing-packet timer.

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
/// EWMA weight on the old value for the profile points and the RTT (`ewma(.., 0.875)`).
pub const EWMA_OLD: f64 = 0.875;
/// Weight of the old `D_maxLast` (`ewma(dMaxLast, dMax, 0.2)`).
pub const DMAX_OLD: f64 = 0.2;
/// Largest window in the profile (`MAX_W_DELAY_CURVE 40000`).
pub const MAX_W: usize = 40_000;
/// Initial points per basis function of the spline (`N = 15.0`).
pub const KNOT_SPACING: f64 = 15.0;
/// alglib `spline1dfitpenalized` ρ (`2.0`).
pub const RHO: f64 = 2.0;

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
    style: ("#7f7f7f", "h"),
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
    d_tbar: f64,
    d_max_last: Option<f64>,
    epoch_delays_max: Option<f64>,
    next_epoch: Time,
    last_ack: Time,
    slow_start: bool,
    exit_slow_start: bool,
    loss_phase: bool,
    /// Windows of the packets in flight, in sending order, and the send count of the first.
    sent_w: VecDeque<u32>,
    sent_base: u64,
    /// Packets in flight as the transport last reported them (the code's `wCrt`).
    in_flight: u32,
    lost_total: u64,
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
            d_tbar: 0.0,
            d_max_last: None,
            epoch_delays_max: None,
            last_ack: now,
            slow_start: true,
            exit_slow_start: false,
            loss_phase: false,
            sent_w: VecDeque::new(),
            sent_base: 0,
            in_flight: 0,
            lost_total: 0,
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
    /// Slow-start restarts (no window maps to D_est, or an RTO).
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
        let mut n = KNOT_SPACING;
        while (max_i as f64) / n < 5.0 {
            n -= 1.0;
            if n < 1.0 {
                return false;
            }
        }
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
        self.d_tbar = 0.0;
        self.d_min = f64::INFINITY;
        self.d_max_last = None;
        self.epoch_delays_max = None;
        self.slow_start = true;
        self.exit_slow_start = false;
        self.loss_phase = false;
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
            self.next_epoch = now + self.cfg.epoch;
            return;
        }
        let mut n = 0;
        while self.next_epoch <= now && n < 10_000 {
            let t = self.next_epoch;
            self.next_epoch = t + self.cfg.epoch;
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

    /// The window the `k`-th packet counted by delivered + lost was sent with.
    fn w_of_counted(&mut self, counted: u64) -> Option<u32> {
        let mut w = None;
        while self.sent_base < counted {
            match self.sent_w.pop_front() {
                Some(x) => w = Some(x),
                None => break,
            }
            self.sent_base += 1;
        }
        w.or_else(|| self.sent_w.front().copied())
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
        self.sent_w.push_back(self.w_bar.max(1.0) as u32);
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.advance(now);
        self.lost_total += u64::from(ack.lost);
        self.in_flight = ack.in_flight;
        let w_sent = self.w_of_counted(ack.delivered + self.lost_total).unwrap_or(1);
        let Some(rtt) = ack.rtt else { return };
        let delay = rtt.millis_f64();
        self.last_ack = now;
        if self.slow_start && delay > self.cfg.ss_exit_ms {
            self.leave_slow_start_by_rtt(now, f64::from(w_sent));
        }
        if self.loss_phase && f64::from(w_sent) <= self.w_bar {
            self.epoch_delays_max = None;
            self.loss_phase = false;
            self.exit_slow_start = false;
        }
        self.epoch_delays_max = Some(self.epoch_delays_max.map_or(delay, |d| d.max(delay)));
        self.d_tbar = if self.d_tbar <= 0.0 {
            delay
        } else {
            EWMA_OLD * self.d_tbar + (1.0 - EWMA_OLD) * delay
        };
        self.d_min = self.d_min.min(delay);
        if !self.loss_phase {
            self.profile_sample(w_sent as usize, delay);
        } else {
            self.w_bar += 1.0 / self.w_bar;
            if let Some(c) = &self.curve {
                self.d_est = self.d_est.min(c.at(self.w_bar));
            }
        }
        if self.slow_start {
            self.w_bar += f64::from(ack.acked);
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
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, _in_flight: u32) {
        if kind != CongestionKind::Loss {
            return;
        }
        let w_lost = self.sent_w.front().copied().unwrap_or(self.w_bar as u32);
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

    /// The code's timeout sets D_est back to D_min (research notes; the receive-timeout branch);
    /// here on the transport's RTO, with W from the profile at D_min.
    fn on_rto(&mut self, now: Time, _in_flight: u32) {
        self.sent_w.clear();
        if self.slow_start || self.d_min.is_infinite() {
            self.restart_slow_start(now);
            return;
        }
        self.d_est = self.d_min;
        self.loss_phase = false;
        self.exit_slow_start = false;
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
        let mut v = Verus::new(VerusConfig::default(), Time::ZERO);
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
        let mut v = Verus::new(VerusConfig::default(), Time::ZERO);
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
            v.on_ack(Time::from_millis(300), &ss_ack(100, i, 0));
        }
        assert!((v.w_bar() - 40.0).abs() < 1e-9, "{}", v.w_bar());
        // Packet 48 (sent with W = 40) is lost: W = min(40, 28) = 28 > 20, slow start ends,
        // curveStop = max(100, 40) = 100 (no point dropped here), and the profile is fitted.
        v.on_sent(t, 1);
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
        let mut v = Verus::new(VerusConfig::default(), Time::ZERO);
        for w in 1..=200usize {
            v.profile_sample(w, profile(w));
        }
        v.d_min = 100.0;
        v.w_bar = 200.0;
        v.sent_w.push_back(150);
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
        v.sent_w.push_back(150);
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert!(v.refit());
        assert_eq!(v.w_list.len(), 201);
    }

    #[test]
    fn slow_start_exit_and_loss_decrease() {
        let mut v = Verus::new(VerusConfig::default(), Time::ZERO);
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
        let mut v = Verus::new(VerusConfig::default(), Time::ZERO);
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
        v.sent_w.push_back(140);
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
        v.sent_w.push_back(140);
        v.on_congestion_event(Time::ZERO, CongestionKind::Loss, 100);
        assert_eq!(v.w_bar(), 50.0);
    }
}
