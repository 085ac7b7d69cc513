//! PCC-Vivace as the ABC paper ran it: the PCC kernel module (`PCCproject/PCC-Kernel`, branch
//! `vivace`, `src/tcp_pcc.c`) with its "Vivace-latency" utility. Digest and paper/code comparison:
//! `docs/cellular-schemes.md`; research notes `shared/reference/wave2-schemes-and-emulation.md` §3.
//!
//! The sender paces at a rate `r` (bytes/s) and holds `cwnd = max(4, 2·r·srtt/MSS)`
//! (`pcc_set_cwnd`). Time is cut into **monitor intervals** (MIs): an MI ends for sending once it
//! has sent at least 50 packets (`PCC_INTERVAL_MIN_PACKETS`) and a packet sent in it has been
//! acknowledged or lost (about one RTT), and ends for receiving once all but the last 10
//! (`PCC_IGNORE_PACKETS`) of its packets are accounted for. The first 10 acknowledgements of an MI
//! are not counted (they belong to the previous one). Per MI:
//!
//! - utility (`pcc_calc_utility_vivace`, kernel, default): `u = r·(1 − 900·dRTT/dT − 11·L)`, with
//!   `dRTT/dT` = (srtt at the MI's last ACK − srtt at its first) / the MI's sending time, set to 0
//!   when `|ΔRTT| < 2·MSS/throughput` or `|dRTT/dT| < 3 %` (`PCC_LAT_INFL_FILTER`), and, in slow
//!   start, when negative; `L` = lost / (lost + delivered), taken as 0 in slow start below 10 %;
//! - or (`utility = vivace-paper`, Vivace paper NSDI 2018 §4 and `PCC-Uspace`
//!   `pcc_utility_manager.cpp`): `u = x^0.9 − 900·x·max(0, dRTT/dT) − 11.35·x·L` with `x` in
//!   Mbit/s of 2^20 bit, scaled to bytes/s (`u·2^17`) so that the same gradient step applies.
//!
//! States (`pcc_decide_*`):
//! - **slow start**: one MI at a time; while the utility rises, `r ×= 1.5`; when it falls, go back
//!   to the previous rate and probe;
//! - **probing**: four MIs at `r·(1 ± 5 %)`, the order of each pair random; if both pairs prefer
//!   the same direction, move to that pair's winning rate and start moving; otherwise probe again;
//! - **moving**: one MI per step; gradient `g = (u − u_prev)/(r − r_prev)` (0 if the rates differ
//!   by less than 2 %), step `= 25·amp·g·10^3` bytes/s (kernel fixed point: `grad·25·amp/1000` with
//!   `grad` scaled by 10^6); `amp` starts at 2 and grows by 1 per step in the same direction once a
//!   swing buffer (up to 2) is used up; the step is bounded by `change_bound·r` (10 %, +7 % each
//!   time the bound binds, back to 10 % otherwise), and is at least `2.2 %·r`; the rate never
//!   falls below 2 packets per srtt. A step whose direction differs from the last decision goes
//!   back to probing. The kernel never updates its "last decision" (it stays "up"), so every
//!   downward step returns to probing; kept as in the code (documented in `docs/cellular-schemes.md`).
//! - **loss state**: after an RTO, the rate is held and no MI is measured until recovery ends
//!   (kernel `pcc_set_state` on `TCP_CA_Loss`); then the probing intervals are set up again, but
//!   the state is left as it was: in the moving state one MI at `r(1 ± ε)` follows, judged as a
//!   moving step.
//! - **RACK** (`rack`, off by default as for every other TCP scheme here): the transport detects
//!   lost retransmissions as Linux's RACK does and an RTO marks lost only the segments sent over
//!   an RTT ago (the `detects_lost_retransmissions` hook); measured in `docs/cellular-schemes.md`.
//!
//! Deviations: floating point instead of the kernel's integer fixed point (the kernel truncates
//! `dRTT/dT` and `L` to per-mille); an MI's packets are counted with the transport's delivered and
//! lost counters as the kernel does, with the RTO "spare" correction.

use super::{AckInfo, CcMetrics, CongestionControl, Marking, Scheme};
use crate::error::{Error, Result};
use crate::packet::MSS;
use crate::params::{Config, Param, Unit, Values};
use crate::rng::Rng;
use crate::time::{Dur, Time};

/// Initial rate, bytes/s (kernel `pcc_init`: `PCC_RATE_MIN·512` = 524 288 B/s).
pub const INITIAL_RATE: f64 = 1024.0 * 512.0;
/// Smallest rate, bytes/s (kernel `PCC_RATE_MIN`).
pub const MIN_RATE: f64 = 1024.0;
/// Probing amplitude (kernel `PCC_PROBING_EPS/PCC_PROBING_EPS_PART` = 5/100).
pub const PROBING_EPS: f64 = 0.05;
/// Smallest MI, packets (kernel `PCC_INTERVAL_MIN_PACKETS`).
pub const MI_MIN_PACKETS: u32 = 50;
/// Acknowledgements ignored at each end of an MI (kernel `PCC_IGNORE_PACKETS`, hard-coded 10).
pub const IGNORE_PACKETS: u64 = 10;
/// Gradient step size (kernel `PCC_GRAD_STEP_SIZE` = 25, on a gradient scaled by 10^6 and a step
/// divided by 10^3: 25·10^3 bytes/s per unit of du/dr and of amplifier).
pub const GRAD_STEP: f64 = 25.0 * 1000.0;
/// Swing buffer (kernel `PCC_MAX_SWING_BUFFER`).
pub const MAX_SWING_BUFFER: i32 = 2;
/// Starting amplifier (kernel `PCC_AMP_MIN`).
pub const AMP_MIN: i32 = 2;
/// Latency inflation below this is ignored (kernel `PCC_LAT_INFL_FILTER` = 30 ‰).
pub const LAT_INFL_FILTER: f64 = 0.03;
/// Rates closer than this give no gradient (kernel `PCC_MIN_RATE_DIFF_RATIO_FOR_GRAD` = 20 ‰).
pub const MIN_RATE_DIFF_FOR_GRAD: f64 = 0.02;
/// Smallest step, fraction of the rate (kernel: `1.1 ×` the 2 % above).
pub const MIN_STEP: f64 = 0.022;
/// First bound on a change (kernel `PCC_MIN_CHANGE_BOUND` = 100 ‰).
pub const MIN_CHANGE_BOUND: f64 = 0.10;
/// Growth of the bound each time it binds (kernel `PCC_CHANGE_BOUND_STEP` = 70 ‰).
pub const CHANGE_BOUND_STEP: f64 = 0.07;
/// Smallest rate in packets per srtt (kernel `PCC_RATE_MIN_PACKETS_PER_RTT`).
pub const MIN_PACKETS_PER_RTT: f64 = 2.0;
/// Slow-start growth per MI (kernel `pcc_decide_slow_start`: `rate += rate/2`).
pub const SLOW_START_GAIN: f64 = 1.5;
/// Loss below this is ignored in slow start (kernel: `loss_ratio < 100` ‰).
pub const SLOW_START_LOSS_IGNORED: f64 = 0.1;
/// Bits in the paper utility's Mbit (PCC-Uspace: 2^20).
pub const PAPER_MBIT: f64 = 1_048_576.0;

/// The utilities (`pcc-vivace.utility`).
pub const UTILITIES: &[&str] = &["vivace-latency", "vivace-paper"];

/// PCC-Vivace's parameters (keys `pcc-vivace.<name>`).
pub const PARAMS: &[Param] = &[
    Param::choice("utility", "vivace-latency", UTILITIES).doc(
        "vivace-latency: r(1 − a·dRTT/dT − b·L) (kernel module the ABC paper ran); vivace-paper: x^0.9 − a·x·dRTT/dT − b·x·L",
        "PCC-Kernel vivace tcp_pcc.c; Vivace paper (NSDI 2018) §4",
    ),
    Param::real("latency_coef", 900.0, Unit::None, 0.0, 1e6)
        .doc("coefficient a of the latency-inflation term", "PCC-Kernel tcp_pcc.c; Vivace paper §4 (b = 900)"),
    Param::real("loss_coef", 11.0, Unit::None, 0.0, 1e6)
        .unset()
        .doc(
            "coefficient b of the loss term (unset: 11 for vivace-latency, 11.35 for vivace-paper)",
            "PCC-Kernel tcp_pcc.c (11); Vivace paper §4 / PCC-Uspace (11.35)",
        ),
    Param::whole("mi_packets", MI_MIN_PACKETS as u64, Unit::Packets, 11, 100_000)
        .doc("smallest monitor interval", "PCC-Kernel PCC_INTERVAL_MIN_PACKETS"),
    Param::real("probe_eps", PROBING_EPS * 100.0, Unit::Percent, 0.1, 50.0)
        .doc("probing amplitude ε: probes at r(1 ± ε)", "PCC-Kernel PCC_PROBING_EPS; Vivace paper §4.1"),
    Param::real("initial_rate", INITIAL_RATE * 8.0 / 1e6, Unit::Mbps, 0.01, 1e5)
        .doc("initial rate (524 288 B/s)", "PCC-Kernel pcc_init (PCC_RATE_MIN·512)"),
    super::RACK_PARAM,
];

/// PCC-Vivace over drop-tail.
pub const PCC_VIVACE: Scheme = Scheme {
    name: "pcc-vivace",
    display: "PCC-Vivace",
    family: "pcc-vivace",
    summary: "PCC-Vivace, kernel module's Vivace-latency utility (monitor intervals, gradient ascent on the rate)",
    source: "Dong et al., NSDI 2018; PCCproject/PCC-Kernel vivace branch (the ABC paper's PCC)",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#a65628", "p"),
    build: |v, _now, rng| Ok(Box::new(PccVivace::new(PccConfig::checked(v)?, rng))),
    warnings: None,
};

/// Which utility.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utility {
    /// The kernel module's `r(1 − a·dRTT/dT − b·L)`.
    Latency,
    /// The NSDI'18 paper's `x^0.9 − a·x·dRTT/dT − b·x·L` (x in Mbit/s of 2^20 bit).
    Paper,
}

/// The configuration read from [`PARAMS`].
#[derive(Clone, Debug, PartialEq)]
pub struct PccConfig {
    /// The utility.
    pub utility: Utility,
    /// Latency-inflation coefficient.
    pub latency_coef: f64,
    /// Loss coefficient.
    pub loss_coef: f64,
    /// Smallest MI in packets.
    pub mi_packets: u32,
    /// Probing amplitude (fraction).
    pub probe_eps: f64,
    /// Initial rate, bytes/s.
    pub initial_rate: f64,
    /// Ask the transport to detect lost retransmissions (RACK).
    pub rack: bool,
}

crate::default_from_table!(PccConfig);

impl Config for PccConfig {
    const PREFIX: &'static str = "pcc-vivace";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> PccConfig {
        let utility = match v.word("utility") {
            "vivace-paper" => Utility::Paper,
            _ => Utility::Latency,
        };
        let loss_coef = v.opt_real("loss_coef").unwrap_or(match utility {
            Utility::Latency => 11.0,
            Utility::Paper => 11.35,
        });
        PccConfig {
            utility,
            latency_coef: v.real("latency_coef"),
            loss_coef,
            mi_packets: v.whole("mi_packets"),
            probe_eps: v.real("probe_eps") / 100.0,
            initial_rate: v.real("initial_rate") * 1e6 / 8.0,
            rack: v.flag("rack"),
        }
    }

    fn check(&self) -> Result<()> {
        if u64::from(self.mi_packets) <= IGNORE_PACKETS {
            return Err(Error::Param {
                key: "pcc-vivace.mi_packets".into(),
                msg: format!("must exceed the {IGNORE_PACKETS} packets ignored at each end of an interval"),
            });
        }
        Ok(())
    }
}

/// Statistics of one monitor interval (kernel `struct pcc_interval`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interval {
    /// Its sending rate, bytes/s.
    pub rate: f64,
    /// Packets sent before it began (`packets_sent_base`); 0: not started.
    pub sent_base: u64,
    /// Packets sent when its sending ended; 0: still sending.
    pub sent_end: u64,
    /// When its sending began and ended.
    pub send_start: Time,
    /// When its sending ended.
    pub send_end: Time,
    /// First and last counted ACK.
    pub recv_start: Time,
    /// Last counted ACK.
    pub recv_end: Time,
    /// srtt at the first and last counted ACK.
    pub start_rtt: Dur,
    /// srtt at the last counted ACK.
    pub end_rtt: Dur,
    /// Packets lost and delivered while counting.
    pub lost: u64,
    /// Packets delivered while counting.
    pub delivered: u64,
    /// Its utility once computed.
    pub utility: f64,
}

/// The state (kernel `start_mode`, `moving`, probing otherwise, `loss_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Slow start.
    Starting,
    /// Four probing MIs.
    Probing,
    /// Gradient ascent.
    Moving,
}

/// The PCC-Vivace controller.
#[derive(Clone, Debug)]
pub struct PccVivace {
    cfg: PccConfig,
    rng: Rng,
    mode: Mode,
    loss_state: bool,
    intervals: [Interval; 4],
    send_index: usize,
    recv_index: usize,
    wait: bool,
    rate: f64,
    last_rate: f64,
    pacing: f64,
    amplifier: i32,
    swing_buffer: i32,
    change_bound: f64,
    /// Packets sent (`data_segs_out`).
    sent: u64,
    /// Packets lost so far (`tp->lost`).
    lost: u64,
    delivered: u64,
    lost_base: u64,
    delivered_base: u64,
    counted: u64,
    spare: i64,
    srtt: Option<Dur>,
    in_flight: u32,
    decisions: u64,
    /// The last RTO was undone as spurious: leave the loss state on this ACK.
    undo_pending: bool,
}

impl PccVivace {
    /// A controller at its initial rate.
    pub fn new(cfg: PccConfig, rng: Rng) -> PccVivace {
        let rate = cfg.initial_rate;
        let mut p = PccVivace {
            cfg,
            rng,
            mode: Mode::Starting,
            loss_state: false,
            intervals: [Interval::default(); 4],
            send_index: 0,
            recv_index: 0,
            wait: false,
            rate,
            last_rate: rate,
            pacing: rate,
            amplifier: AMP_MIN,
            swing_buffer: 0,
            change_bound: MIN_CHANGE_BOUND,
            sent: 0,
            lost: 0,
            delivered: 0,
            lost_base: 0,
            delivered_base: 0,
            counted: 0,
            spare: 0,
            srtt: None,
            in_flight: 0,
            decisions: 0,
            undo_pending: false,
        };
        // pcc_init: utility of "the previous MI" is −∞; the first MIs are set up as probing pairs
        // (so slow start begins at r(1 ± ε)).
        p.intervals[0].utility = f64::NEG_INFINITY;
        p.setup_probing();
        p.start_interval(Time::ZERO);
        p
    }

    /// Current base rate, bytes/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }
    /// The state.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The gradient amplifier.
    pub fn amplifier(&self) -> i32 {
        self.amplifier
    }
    /// Decisions taken so far (probing rounds, steps).
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    fn srtt_or_default(&self) -> Dur {
        // pcc_get_rtt: 1 ms "LAN RTT" before the first sample.
        self.srtt.unwrap_or(Dur::from_millis(1)).max(Dur::from_micros(1))
    }

    fn setup_probing(&mut self) {
        let hi = self.rate * (1.0 + self.cfg.probe_eps);
        let lo = self.rate * (1.0 - self.cfg.probe_eps);
        let bits = self.rng.below(4);
        for i in (0..4).step_by(2) {
            let (a, b) = if (bits >> (i / 2)) & 1 == 1 { (lo, hi) } else { (hi, lo) };
            self.intervals[i].rate = a;
            self.intervals[i + 1].rate = b;
            self.intervals[i].sent_base = 0;
            self.intervals[i + 1].sent_base = 0;
        }
        self.send_index = 0;
        self.recv_index = 0;
        self.wait = false;
    }

    fn setup_moving(&mut self) {
        self.intervals[0].sent_base = 0;
        self.intervals[0].rate = self.rate;
        self.send_index = 0;
        self.recv_index = 0;
        self.wait = false;
    }

    fn start_interval(&mut self, now: Time) {
        let mut rate = self.rate;
        if !self.wait {
            let sent = self.sent;
            let iv = &mut self.intervals[self.send_index];
            iv.sent_end = 0;
            iv.lost = 0;
            iv.delivered = 0;
            iv.sent_base = sent.max(1);
            iv.send_start = now;
            rate = iv.rate;
        }
        self.pacing = rate.max(MIN_RATE);
    }

    /// The utility of an MI (kernel `pcc_calc_utility_vivace`, or the paper's).
    pub fn utility(&self, iv: &Interval) -> f64 {
        if iv.delivered == 0 {
            return 0.0;
        }
        let mss = f64::from(MSS);
        let send_dur = (iv.send_end.saturating_since(iv.send_start)).secs_f64();
        let recv_dur = (iv.recv_end.saturating_since(iv.recv_start)).secs_f64();
        let throughput = if recv_dur > 0.0 {
            iv.delivered as f64 * mss / recv_dur
        } else {
            0.0
        };
        let rtt_diff = iv.end_rtt.secs_f64() - iv.start_rtt.secs_f64();
        let thresh = if throughput > 0.0 { 2.0 * mss / throughput } else { 0.0 };
        let mut lat_infl = if send_dur > 0.0 { rtt_diff / send_dur } else { 0.0 };
        if rtt_diff.abs() < thresh || lat_infl.abs() < LAT_INFL_FILTER {
            lat_infl = 0.0;
        }
        let starting = self.mode == Mode::Starting;
        if lat_infl < 0.0 && starting {
            lat_infl = 0.0;
        }
        let mut loss = iv.lost as f64 / (iv.lost + iv.delivered) as f64;
        if starting && loss < SLOW_START_LOSS_IGNORED {
            loss = 0.0;
        }
        self.utility_of(iv.rate, lat_infl, loss)
    }

    /// The utility of sending at `rate` (bytes/s) with latency inflation `dRTT/dT` and loss rate `L`.
    pub fn utility_of(&self, rate: f64, lat_infl: f64, loss: f64) -> f64 {
        let (a, b) = (self.cfg.latency_coef, self.cfg.loss_coef);
        match self.cfg.utility {
            Utility::Latency => rate * (1.0 - a * lat_infl - b * loss),
            Utility::Paper => {
                let to_bytes = PAPER_MBIT / 8.0;
                let x = rate / to_bytes;
                (x.powf(0.9) - a * x * lat_infl.max(0.0) - b * x * loss) * to_bytes
            }
        }
    }

    /// kernel `pcc_calc_util_grad`: du/dr, or 0 if the rates are within 2 %.
    pub fn gradient(r1: f64, u1: f64, r2: f64, u2: f64) -> f64 {
        if r1 <= 0.0 || ((r2 - r1) / r1).abs() < MIN_RATE_DIFF_FOR_GRAD {
            return 0.0;
        }
        (u2 - u1) / (r2 - r1)
    }

    fn update_step_params(&mut self, step: f64) {
        if (step > 0.0) == (self.rate > self.last_rate) {
            if self.swing_buffer > 0 {
                self.swing_buffer -= 1;
            } else {
                self.amplifier += 1;
            }
        } else {
            self.swing_buffer = (self.swing_buffer + 1).min(MAX_SWING_BUFFER);
            self.amplifier = AMP_MIN;
            self.change_bound = MIN_CHANGE_BOUND;
        }
    }

    fn apply_change_bound(&mut self, step: f64) -> f64 {
        if self.rate <= 0.0 {
            return step;
        }
        let sign = if step > 0.0 { 1.0 } else { -1.0 };
        let mut s = step.abs();
        if s / self.rate > self.change_bound {
            s = self.rate * self.change_bound;
            self.change_bound += CHANGE_BOUND_STEP;
        } else {
            self.change_bound = MIN_CHANGE_BOUND;
        }
        sign * s
    }

    /// One moving step given this MI's utility `u` (kernel `pcc_decide_rate_moving` and
    /// `pcc_decide_moving`): returns the new rate.
    fn decide_moving(&mut self, now: Time, u: f64) {
        let prev_u = self.intervals[0].utility;
        self.intervals[0].utility = u;
        let grad = Self::gradient(self.rate, u, self.last_rate, prev_u);
        let mut step = grad * GRAD_STEP;
        self.update_step_params(step);
        step *= f64::from(self.amplifier);
        step = self.apply_change_bound(step);
        let min_step = self.rate * MIN_STEP;
        if step >= 0.0 && step < min_step {
            step = min_step;
        } else if step < 0.0 && step > -min_step {
            step = -min_step;
        }
        let mut new_rate = self.rate + step;
        // The kernel's last_decision is initialised to "up" and never updated.
        let up = new_rate > self.rate;
        let floor = MIN_PACKETS_PER_RTT * f64::from(MSS) / self.srtt_or_default().secs_f64();
        new_rate = new_rate.max(floor);
        self.last_rate = self.rate;
        self.rate = new_rate;
        if !up {
            self.mode = Mode::Probing;
            self.setup_probing();
        } else {
            self.setup_moving();
        }
        self.decisions += 1;
        self.start_interval(now);
    }

    /// Slow start given this MI's utility (kernel `pcc_decide_slow_start`).
    fn decide_slow_start(&mut self, now: Time, u: f64) {
        let prev_u = self.intervals[0].utility;
        if u > prev_u {
            self.last_rate = self.rate;
            self.rate *= SLOW_START_GAIN;
            self.intervals[0].utility = u;
            self.intervals[0].rate = self.rate;
            self.send_index = 0;
            self.recv_index = 0;
            self.wait = false;
        } else {
            std::mem::swap(&mut self.rate, &mut self.last_rate);
            self.mode = Mode::Probing;
            self.setup_probing();
        }
        self.decisions += 1;
        self.start_interval(now);
    }

    /// The four probing MIs are done (kernel `pcc_decide`, `pcc_decide_rate`).
    fn decide_probing(&mut self, now: Time, u: [f64; 4]) {
        for (iv, &x) in self.intervals.iter_mut().zip(u.iter()) {
            iv.utility = x;
        }
        let iv = &self.intervals;
        let run1 = iv[0].utility > iv[1].utility;
        let run2 = iv[2].utility > iv[3].utility;
        let same_order = iv[0].rate == iv[2].rate;
        let agree = (run1 == run2) == same_order;
        let new_rate = if agree {
            let w = if run2 { 2 } else { 3 };
            self.last_rate = self.intervals[w].rate;
            self.intervals[0].utility = self.intervals[w].utility;
            self.intervals[w].rate
        } else {
            self.rate
        };
        if new_rate != self.rate {
            // Kernel order (`pcc_decide`): the moving interval is set up before `rate` takes the
            // winner's value, so the first moving MI is sent at the old base rate, and its
            // utility is then judged as the winner's (zero gradient: the 2.2 % minimum step up).
            self.mode = Mode::Moving;
            self.setup_moving();
            self.rate = new_rate;
        } else {
            self.setup_probing();
        }
        self.decisions += 1;
        self.start_interval(now);
    }

    /// Rates of the MIs the next decision will measure (for tests driving a synthetic utility).
    pub fn pending_rates(&self) -> Vec<f64> {
        match self.mode {
            Mode::Probing => self.intervals.iter().map(|i| i.rate).collect(),
            _ => vec![self.intervals[0].rate],
        }
    }

    /// Take the next decision as if the pending MIs had measured `utility(rate)` (tests).
    pub fn decide_with(&mut self, now: Time, utility: impl Fn(f64) -> f64) {
        match self.mode {
            Mode::Probing => {
                let u = [0, 1, 2, 3].map(|i| utility(self.intervals[i].rate));
                self.decide_probing(now, u);
            }
            Mode::Starting => {
                let u = utility(self.intervals[0].rate);
                self.decide_slow_start(now, u)
            }
            Mode::Moving => {
                let u = utility(self.intervals[0].rate);
                self.decide_moving(now, u)
            }
        }
    }

    fn counted_now(&self) -> u64 {
        (self.delivered as i64 + self.lost as i64 - self.spare).max(0) as u64
    }

    /// Kernel `pcc_process`, once per ACK.
    fn process(&mut self, now: Time) {
        if !self.loss_state {
            if !self.wait {
                let counted = self.counted;
                let sent = self.sent;
                let min = u64::from(self.cfg.mi_packets);
                let iv = &mut self.intervals[self.send_index];
                if sent.saturating_sub(iv.sent_base) >= min && counted > iv.sent_base {
                    iv.sent_end = sent;
                    iv.send_end = now;
                    self.send_index += 1;
                    if self.send_index == 4 || self.mode != Mode::Probing {
                        self.wait = true;
                    }
                    self.start_interval(now);
                }
            }
            let before = self.counted;
            self.counted = self.counted_now();
            let srtt = self.srtt_or_default();
            let (dl, dd) = (self.lost - self.lost_base, self.delivered - self.delivered_base);
            let idx = self.recv_index.min(3);
            let counted = self.counted;
            let iv = &mut self.intervals[idx];
            if iv.sent_base != 0 {
                if before > IGNORE_PACKETS + iv.sent_base {
                    iv.recv_end = now;
                    iv.end_rtt = srtt;
                    if iv.lost + iv.delivered == 0 {
                        iv.recv_start = now;
                        iv.start_rtt = srtt;
                    }
                    iv.lost += dl;
                    iv.delivered += dd;
                }
                if iv.sent_end != 0 && iv.sent_end - IGNORE_PACKETS.min(iv.sent_end) < counted {
                    self.recv_index += 1;
                    match self.mode {
                        Mode::Starting => {
                            let u = self.utility(&self.intervals[0]);
                            self.decide_slow_start(now, u);
                        }
                        Mode::Moving => {
                            let u = self.utility(&self.intervals[0]);
                            self.decide_moving(now, u);
                        }
                        Mode::Probing if self.recv_index == 4 => {
                            let u = [0, 1, 2, 3].map(|i| self.utility(&self.intervals[i]));
                            self.decide_probing(now, u);
                        }
                        Mode::Probing => {}
                    }
                }
            }
        }
        self.lost_base = self.lost;
        self.delivered_base = self.delivered;
    }
}

impl CongestionControl for PccVivace {
    fn name(&self) -> &'static str {
        "pcc-vivace"
    }

    /// Kernel `pcc_set_cwnd`: `max(4, 2·rate·srtt/MSS)`.
    fn window(&self) -> f64 {
        let w = 2.0 * self.pacing * self.srtt_or_default().secs_f64() / f64::from(MSS);
        w.floor().max(4.0)
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing)
    }

    /// `pcc-vivace.rack`: detect lost retransmissions as Linux's RACK does (the kernel module
    /// ran over Linux TCP, where RACK is on by default); off by default, as for every other TCP
    /// scheme here. Measured either way in `docs/cellular-schemes.md`.
    fn detects_lost_retransmissions(&self) -> bool {
        self.cfg.rack
    }

    fn on_sent(&mut self, _now: Time, in_flight: u32) {
        self.sent += 1;
        self.in_flight = in_flight;
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        if let Some(s) = ack.srtt {
            self.srtt = Some(s);
        }
        self.lost += u64::from(ack.lost);
        self.delivered = ack.delivered;
        self.in_flight = ack.in_flight;
        if std::mem::take(&mut self.undo_pending) {
            self.leave_loss_state(now);
        }
        self.process(now);
    }

    fn on_rto(&mut self, now: Time, _in_flight: u32) {
        // pcc_set_state(TCP_CA_Loss): hold the rate, stop measuring.
        if !self.loss_state {
            self.loss_state = true;
            self.wait = true;
            self.start_interval(now);
        }
    }

    fn on_recovery_exit(&mut self, now: Time) {
        self.leave_loss_state(now);
    }

    /// An undone (spurious) RTO ends the loss state too: Linux `tcp_try_undo_loss` goes back to
    /// `TCP_CA_Open`, so `pcc_set_state` leaves its loss state. The transport reports the undo
    /// before this ACK's counts; the kernel resynchronises with them (`tcp_fastretrans_alert`
    /// runs after the ACK's SACK and cumulative processing), so the exit waits for `on_ack`.
    fn on_spurious_rto(&mut self, _now: Time) {
        self.undo_pending = self.loss_state;
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            pacing_rate: Some(self.pacing),
            ..CcMetrics::default()
        }
    }
}

impl PccVivace {
    /// Kernel `pcc_set_state` on leaving `TCP_CA_Loss`.
    fn leave_loss_state(&mut self, now: Time) {
        if self.loss_state {
            // Leaving TCP_CA_Loss: resynchronise the counters (the kernel's "spare").
            let spare = self.delivered as i64 + self.lost as i64 + i64::from(self.in_flight) - self.sent as i64;
            self.spare = spare;
            self.loss_state = false;
            // The kernel sets up probing intervals but leaves `start_mode` and `moving` as they
            // were: in the moving state only the first of them (at r(1 ± ε)) is sent, then
            // `pcc_decide_moving` judges it; in slow start, `pcc_decide_slow_start`.
            self.setup_probing();
            self.start_interval(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcc() -> PccVivace {
        PccVivace::new(PccConfig::default(), Rng::stream(1, 1))
    }

    fn interval(rate: f64, rtt0_ms: f64, rtt1_ms: f64, delivered: u64, lost: u64) -> Interval {
        Interval {
            rate,
            sent_base: 1,
            sent_end: 100,
            send_start: Time::ZERO,
            send_end: Time::from_millis(100),
            recv_start: Time::from_millis(100),
            recv_end: Time::from_millis(200),
            start_rtt: Dur::from_micros_f64(rtt0_ms * 1000.0),
            end_rtt: Dur::from_micros_f64(rtt1_ms * 1000.0),
            lost,
            delivered,
            utility: 0.0,
        }
    }

    #[test]
    fn vivace_latency_utility_by_hand() {
        let mut p = pcc();
        p.mode = Mode::Probing;
        // 1 MB/s, RTT 100 → 105 ms over a 100 ms MI: dRTT/dT = 0.05; 1 % loss.
        // u = 1e6 · (1 − 900·0.05 − 11·0.01) = 1e6 · (−44.11).
        let u = p.utility(&interval(1e6, 100.0, 105.0, 99, 1));
        assert!((u - 1e6 * (1.0 - 45.0 - 0.11)).abs() < 1.0, "{u}");
        // 2 % inflation is below the 3 % filter: only the loss term remains.
        let u = p.utility(&interval(1e6, 100.0, 102.0, 99, 1));
        assert!((u - 1e6 * (1.0 - 0.11)).abs() < 1.0, "{u}");
        // A change below 2 packets' serialisation time at the throughput is ignored too:
        // throughput 99·1448 B / 0.1 s = 1.43 MB/s → 2 MSS = 2.0 ms; 1.5 ms over 10 ms MI = 15 %.
        let mut iv = interval(1e6, 100.0, 101.5, 99, 0);
        iv.send_end = Time::from_millis(10);
        assert_eq!(p.utility(&iv), 1e6);
        // Slow start ignores loss below 10 % and falling RTT.
        p.mode = Mode::Starting;
        assert_eq!(p.utility(&interval(1e6, 105.0, 100.0, 95, 5)), 1e6);
        // No delivery: utility 0.
        assert_eq!(p.utility(&interval(1e6, 100.0, 100.0, 0, 10)), 0.0);
    }

    #[test]
    fn paper_utility_by_hand() {
        let mut given = crate::params::Given::new();
        given.insert("utility".into(), crate::params::Value::Word("vivace-paper".into()));
        let v = crate::cc::lookup("pcc-vivace").unwrap().values(&given).unwrap();
        let p = PccVivace::new(PccConfig::checked(&v).unwrap(), Rng::stream(1, 1));
        assert_eq!(p.cfg.loss_coef, 11.35);
        // x = 8 Mbit/s of 2^20 bit = 1 048 576 B/s; dRTT/dT = 0.05; L = 0.01.
        let x: f64 = 8.0;
        let want = (x.powf(0.9) - 900.0 * x * 0.05 - 11.35 * x * 0.01) * PAPER_MBIT / 8.0;
        let got = p.utility_of(PAPER_MBIT, 0.05, 0.01);
        assert!((got - want).abs() < 1e-6 * want.abs(), "{got} vs {want}");
    }

    #[test]
    fn gradient_step_by_hand() {
        let mut p = pcc();
        p.mode = Mode::Moving;
        p.rate = 1e6;
        p.last_rate = 1.05e6;
        p.intervals[0].utility = 1.04e6;
        p.srtt = Some(Dur::from_millis(100));
        // g = (1.04e6 − 1e6)/(1.05e6 − 1e6) = 0.8; step = 0.8 · 25 000 · amp 2 = 40 000 B/s, within
        // the 10 % bound and above the 2.2 % minimum: 1e6 → 1.04e6, still moving (up).
        p.decide_moving(Time::ZERO, 1e6);
        assert!((p.rate - 1.04e6).abs() < 1e-6, "{}", p.rate);
        assert_eq!(p.mode, Mode::Moving);
        assert_eq!(p.amplifier, AMP_MIN, "direction changed against the last move: amp reset");
        // A huge gradient is bounded by 10 % of the rate, then 17 % the next time.
        p.intervals[0].utility = 0.0;
        p.last_rate = 0.5e6;
        p.decide_moving(Time::ZERO, 1e9);
        assert!((p.rate - 1.04e6 * 1.10).abs() < 1e-3, "{}", p.rate);
        assert!((p.change_bound - 0.17).abs() < 1e-12);
        // A tiny negative gradient steps down by the 2.2 % minimum and goes back to probing.
        let r = p.rate;
        p.last_rate = r * 0.9;
        p.intervals[0].utility = 1e6 + 1.0;
        p.decide_moving(Time::ZERO, 1e6);
        assert!((p.rate - r * (1.0 - MIN_STEP)).abs() < 1e-6, "{} vs {}", p.rate, r);
        assert_eq!(p.mode, Mode::Probing);
    }

    #[test]
    fn probing_moves_only_when_both_pairs_agree() {
        let mut p = pcc();
        p.mode = Mode::Probing;
        p.rate = 1e6;
        p.setup_probing();
        // Utility = rate: the higher rate wins both pairs, whatever their order → move to 1.05e6.
        p.decide_with(Time::ZERO, |r| r);
        assert_eq!(p.mode, Mode::Moving);
        assert!((p.rate - 1.05e6).abs() < 1e-6);
        // pcc_decide sets up the moving interval before the rate changes: its MI is sent at the
        // old rate.
        assert_eq!(p.pending_rates(), vec![1e6]);
        assert_eq!(p.pacing_rate(), Some(1e6));
        // Disagreeing pairs: stay.
        let mut p = pcc();
        p.mode = Mode::Probing;
        p.rate = 1e6;
        p.setup_probing();
        let (first, third) = (p.intervals[0].rate, p.intervals[2].rate);
        let u = [first, 0.0, 0.0, third];
        let rates: Vec<f64> = p.intervals.iter().map(|i| i.rate).collect();
        p.decide_probing(Time::ZERO, u);
        let _ = rates;
        assert_eq!(p.rate, 1e6);
        assert_eq!(p.mode, Mode::Probing);
    }

    /// Gradient ascent on the utility of a 1.5 MB/s (12 Mbit/s) link: below capacity u = r; above,
    /// the queue grows at r − C, so dRTT/dT = (r − C)/C and u = r(1 − 900(r − C)/C) (filtered at 3 %).
    #[test]
    fn converges_near_capacity_on_a_synthetic_utility() {
        let c = 1.5e6;
        let mut p = pcc();
        p.srtt = Some(Dur::from_millis(100));
        let util = |r: f64| {
            let infl = ((r - c) / c).max(0.0);
            let infl = if infl < LAT_INFL_FILTER { 0.0 } else { infl };
            r.min(c) * (1.0 - 900.0 * infl)
        };
        let mut rates = Vec::new();
        for _ in 0..400 {
            p.decide_with(Time::ZERO, util);
            rates.push(p.rate);
        }
        assert_ne!(p.mode, Mode::Starting, "slow start ended");
        let modes: Vec<_> = rates.iter().take(60).map(|r| (r / 1e3).round()).collect();
        println!("{modes:?}");
        let tail = &rates[200..];
        let mean = tail.iter().sum::<f64>() / tail.len() as f64;
        assert!(mean > 0.85 * c && mean < 1.1 * c, "mean rate {mean} vs capacity {c}");
        assert!(tail.iter().all(|&r| r < 1.3 * c && r > 0.6 * c), "{tail:?}");
    }

    #[test]
    fn window_is_twice_rate_times_srtt() {
        let mut p = pcc();
        assert_eq!(p.window(), 4.0, "1 ms default RTT: the 4-packet floor");
        p.srtt = Some(Dur::from_millis(100));
        let want = (2.0 * p.pacing * 0.1 / f64::from(MSS)).floor();
        assert_eq!(p.window(), want);
    }

    #[test]
    fn parameters_are_validated_and_named() {
        let mut given = crate::params::Given::new();
        given.insert("mi_packets".into(), crate::params::Value::Num(5.0));
        let e = crate::cc::build("pcc-vivace", &given, Time::ZERO, Rng::stream(1, 1))
            .err()
            .unwrap();
        assert!(e.to_string().contains("pcc-vivace.mi_packets"), "{e}");
        let mut given = crate::params::Given::new();
        given.insert("utility".into(), crate::params::Value::Word("allegro".into()));
        let e = crate::cc::build("pcc-vivace", &given, Time::ZERO, Rng::stream(1, 1))
            .err()
            .unwrap();
        assert!(e.to_string().contains("pcc-vivace.utility"), "{e}");
    }

    // Mutation-testing additions (docs/testing.md).

    #[test]
    fn configuration_and_accessors() {
        // pcc_init: PCC_RATE_MIN·512 = 524 288 B/s, given in Mbit/s (4.194304).
        let cfg = PccConfig::default();
        assert!((cfg.initial_rate - INITIAL_RATE).abs() < 1e-6, "{}", cfg.initial_rate);
        assert_eq!((cfg.mi_packets, cfg.probe_eps, cfg.loss_coef), (50, 0.05, 11.0));
        // An MI must outlast the 10 packets ignored at each end (unreachable through the table,
        // whose smallest mi_packets is 11; checked on the configuration itself).
        let e = PccConfig { mi_packets: 10, ..cfg.clone() }.check().err().unwrap();
        assert!(e.to_string().contains("pcc-vivace.mi_packets"), "{e}");
        assert!(PccConfig { mi_packets: 11, ..cfg.clone() }.check().is_ok());
        // Lost-retransmission detection (RACK) is asked of the transport only with `rack`.
        assert!(!cfg.rack && !pcc().detects_lost_retransmissions());
        let rack = PccVivace::new(PccConfig { rack: true, ..cfg }, Rng::stream(1, 1));
        assert!(rack.detects_lost_retransmissions());
        let mut p = pcc();
        assert!((p.rate() - INITIAL_RATE).abs() < 1e-6);
        assert_eq!((p.amplifier(), p.decisions(), p.mode()), (AMP_MIN, 0, Mode::Starting));
        p.decide_with(Time::ZERO, |_| 1.0);
        assert_eq!(p.decisions(), 1);
        assert_eq!(p.name(), "pcc-vivace");
        p.amplifier = 5;
        assert_eq!(p.amplifier(), 5);
    }

    #[test]
    fn probing_pairs_are_r_plus_and_minus_eps_in_a_random_order_per_pair() {
        // pcc_setup_intervals_probing: each pair is r(1 + ε), r(1 − ε) or the reverse, one random
        // bit per pair (bit i/2 of a draw in 0..4 from the controller's stream).
        let mut p = pcc();
        let mut r = Rng::stream(1, 1);
        let _ = r.below(4); // new()'s draw
        p.rate = 1e6;
        let (hi, lo) = (1e6 * 1.05, 1e6 * 0.95);
        let mut seen = [[false; 2]; 2];
        for _ in 0..16 {
            for iv in p.intervals.iter_mut() {
                iv.sent_base = 7;
            }
            p.send_index = 3;
            p.wait = true;
            p.setup_probing();
            let bits = r.below(4);
            for (pair, seen) in seen.iter_mut().enumerate() {
                let lo_first = (bits >> pair) & 1 == 1;
                let want = if lo_first { (lo, hi) } else { (hi, lo) };
                assert_eq!((p.intervals[2 * pair].rate, p.intervals[2 * pair + 1].rate), want);
                seen[usize::from(lo_first)] = true;
            }
            assert!(p.intervals.iter().all(|iv| iv.sent_base == 0), "every MI not started");
            assert_eq!((p.send_index, p.recv_index, p.wait), (0, 0, false));
        }
        assert_eq!(seen, [[true; 2]; 2], "both orders of both pairs occur");
    }

    #[test]
    fn starting_an_interval_paces_at_its_rate_unless_waiting() {
        // pcc_start_interval: the MI's counters reset, its packets counted from `sent` (at least
        // 1: 0 means not started), and the pacing rate is the MI's; while waiting, the base rate.
        let mut p = pcc();
        assert_eq!(p.pacing_rate(), Some(p.intervals[0].rate));
        assert_ne!(p.intervals[0].rate, p.rate(), "slow start begins at r(1 ± ε)");
        assert_eq!((p.intervals[0].sent_base, p.intervals[0].send_start), (1, Time::ZERO));
        p.sent = 40;
        p.send_index = 1;
        p.intervals[1].lost = 3;
        p.intervals[1].delivered = 4;
        p.intervals[1].sent_end = 9;
        p.start_interval(Time::from_millis(7));
        let iv = p.intervals[1];
        assert_eq!((iv.sent_base, iv.send_start, iv.lost, iv.delivered, iv.sent_end), (40, Time::from_millis(7), 0, 0, 0));
        assert_eq!(p.pacing_rate(), Some(iv.rate));
        p.wait = true;
        p.send_index = 2;
        p.start_interval(Time::from_millis(9));
        assert_eq!(p.pacing_rate(), Some(p.rate()));
        assert_eq!(p.intervals[2].sent_base, 0, "not started while waiting");
        // Never below PCC_RATE_MIN.
        p.rate = 10.0;
        p.start_interval(Time::from_millis(9));
        assert_eq!(p.pacing_rate(), Some(MIN_RATE));
    }

    #[test]
    fn utility_filters_at_their_boundaries() {
        let mut p = pcc();
        p.mode = Mode::Probing;
        let base = |rtt0_ms: f64, rtt1_ms: f64| {
            let mut iv = interval(1e6, rtt0_ms, rtt1_ms, 1000, 0);
            iv.send_end = Time::from_secs(1);
            iv.recv_start = Time::from_secs(1);
            iv.recv_end = Time::from_secs(2);
            iv
        };
        // dRTT/dT = 10 ms / 1 s = 1 %: below the 3 % filter, though far above 2 MSS/throughput
        // (2·1448 B / 1.448 MB/s = 2 ms).
        assert_eq!(p.utility(&base(100.0, 110.0)), 1e6);
        // Exactly 3 % (30 ms over 1 s) is not below the filter: u = r(1 − 900·0.03).
        let u = p.utility(&base(0.0, 30.0));
        assert!((u - 1e6 * (1.0 - 27.0)).abs() < 1e-3, "{u}");
        // ΔRTT exactly 2 MSS/throughput is not below it: 128 packets over 1/8 s = 1/512 s per
        // 2 MSS; ΔRTT = 1/512 s over a 1/32 s MI = 6.25 % → u = r(1 − 900·0.0625).
        let mut iv = interval(1e6, 125.0, 125.0 + 1000.0 / 512.0, 128, 0);
        iv.send_end = Time::ZERO + Dur::from_secs_f64(1.0 / 32.0);
        iv.recv_start = Time::from_secs(1);
        iv.recv_end = Time::from_secs(1) + Dur::from_millis(125);
        let u = p.utility(&iv);
        assert!((u - 1e6 * (1.0 - 900.0 * 0.0625)).abs() < 1e-3, "{u}");
        // One counted ACK (no receive time): no throughput, so no ΔRTT filter; 5 % inflation counts.
        let mut iv = base(100.0, 150.0);
        iv.recv_start = iv.recv_end;
        let u = p.utility(&iv);
        assert!((u - 1e6 * (1.0 - 45.0)).abs() < 1e-3, "{u}");
        // No sending time: no inflation measured.
        let mut iv = base(100.0, 150.0);
        iv.send_end = iv.send_start;
        assert_eq!(p.utility(&iv), 1e6);
        // In slow start a rising RTT still counts (only a falling one is ignored) and a loss rate
        // of exactly 10 % is not ignored: u = r(1 − 900·0.05 − 11·0.1).
        p.mode = Mode::Starting;
        let u = p.utility(&base(100.0, 150.0));
        assert!((u - 1e6 * (1.0 - 45.0)).abs() < 1e-3, "{u}");
        let mut iv = base(100.0, 100.0);
        iv.delivered = 900;
        iv.lost = 100;
        let u = p.utility(&iv);
        assert!((u - 1e6 * (1.0 - 1.1)).abs() < 1e-3, "{u}");
    }

    #[test]
    fn gradient_needs_rates_two_percent_apart() {
        // pcc_calc_util_grad: no gradient when |r2 − r1|/r1 < 2 %; exactly 2 % (50 → 51) gives one.
        assert_eq!(PccVivace::gradient(50.0, 0.0, 51.0, 3.0), 3.0);
        assert_eq!(PccVivace::gradient(1e6, 0.0, 1.01e6, 5e4), 0.0, "1 % apart");
        assert_eq!(PccVivace::gradient(1e6, 0.0, 0.99e6, 5e4), 0.0, "1 % below");
        assert!((PccVivace::gradient(1e6, 1e6, 1.05e6, 1.04e6) - 0.8).abs() < 1e-9);
        assert_eq!(PccVivace::gradient(0.0, 0.0, 1e6, 5e4), 0.0, "no rate");
    }

    #[test]
    fn amplifier_and_swing_buffer_by_hand() {
        // pcc_update_step_params: a step in the direction of the last move grows the amplifier by
        // one once the swing buffer is used up; a step against it refills the buffer (at most 2)
        // and resets the amplifier and the change bound.
        let mut p = pcc();
        p.rate = 1.1e6;
        p.last_rate = 1e6; // the last move was up
        let mut trace = Vec::new();
        for step in [1.0, 1.0, -1.0, 0.0, -1.0, -1.0, 1.0, 1.0, 1.0] {
            p.change_bound = 0.3;
            p.update_step_params(step);
            trace.push((p.amplifier, p.swing_buffer, p.change_bound == MIN_CHANGE_BOUND));
        }
        let want = [
            (3, 0, false),
            (4, 0, false),
            (2, 1, true),
            (2, 2, true), // a zero step is not "up"
            (2, 2, true), // the buffer holds at most 2
            (2, 2, true),
            (2, 1, false),
            (2, 0, false),
            (3, 0, false),
        ];
        assert_eq!(trace, want);
        // The last move counts as up only if the rate rose: with r = r_prev a negative step goes
        // the same way (no reset).
        let mut p = pcc();
        p.rate = 1e6;
        p.last_rate = 1e6;
        p.update_step_params(-1.0);
        assert_eq!((p.amplifier, p.swing_buffer), (AMP_MIN + 1, 0));
    }

    #[test]
    fn the_change_bound_binds_only_above_it() {
        // A step of exactly 10 % of the rate is within the bound: kept, bound back to 10 %.
        let mut p = pcc();
        p.rate = 1e6;
        p.change_bound = MIN_CHANGE_BOUND;
        assert_eq!(p.apply_change_bound(1e5), 1e5);
        assert_eq!(p.change_bound, MIN_CHANGE_BOUND);
        assert_eq!(p.apply_change_bound(-2e5), -1e5, "bounded, sign kept");
        assert!((p.change_bound - 0.17).abs() < 1e-12);
    }

    #[test]
    fn moving_steps_by_hand() {
        let mut p = pcc();
        p.mode = Mode::Moving;
        p.srtt = Some(Dur::from_millis(100));
        // No gradient (the rates 1 % apart): the smallest step, 2.2 % up, and still moving.
        p.rate = 1e6;
        p.last_rate = 1.01e6;
        p.intervals[0].utility = 5e5;
        p.decide_moving(Time::ZERO, 1e6);
        assert!((p.rate() - 1.022e6).abs() < 1e-6, "{}", p.rate());
        assert_eq!(p.mode(), Mode::Moving);
        assert_eq!(p.decisions(), 1);
        assert_eq!(p.pending_rates(), vec![p.rate()]);
        // A step down never goes below 2 packets per srtt: 2·1448 B / 0.1 s = 28 960 B/s.
        p.rate = 1e4;
        p.last_rate = 2e4;
        p.intervals[0].utility = 0.0;
        p.decide_moving(Time::ZERO, 1e9);
        assert!((p.rate() - 28_960.0).abs() < 1e-6, "{}", p.rate());
        assert_eq!(p.decisions(), 2);
    }

    #[test]
    fn slow_start_by_hand() {
        // pcc_decide_slow_start: while the utility rises, r ×= 1.5 (524 288 → 786 432 → 1 179 648 B/s);
        // at the first MI that does not beat the last, back to the previous rate and probe.
        let mut p = pcc();
        p.decide_with(Time::ZERO, |_| 10.0);
        assert_eq!((p.rate(), p.last_rate, p.mode()), (786_432.0, INITIAL_RATE, Mode::Starting));
        assert_eq!(p.pacing_rate(), Some(786_432.0), "the next MI at the new rate");
        p.decide_with(Time::ZERO, |_| 20.0);
        assert_eq!(p.rate(), 1_179_648.0);
        p.decide_with(Time::ZERO, |_| 20.0);
        assert_eq!((p.rate(), p.last_rate, p.mode()), (786_432.0, 1_179_648.0, Mode::Probing));
        let mut rates = p.pending_rates();
        rates.sort_by(f64::total_cmp);
        assert_eq!(rates, [786_432.0 * 0.95, 786_432.0 * 0.95, 786_432.0 * 1.05, 786_432.0 * 1.05]);
        assert_eq!(p.decisions(), 3);
    }

    #[test]
    fn probing_decides_on_strict_preferences() {
        // pcc_decide: a pair prefers its first MI only if that utility is strictly higher; both
        // pairs at (r+, r−) here, so they agree when both prefer the same rate.
        let probe = |u: [f64; 4]| {
            let mut p = pcc();
            p.mode = Mode::Probing;
            p.rate = 1e6;
            for (iv, r) in p.intervals.iter_mut().zip([1.05e6, 0.95e6, 1.05e6, 0.95e6]) {
                iv.rate = r;
            }
            p.decide_probing(Time::ZERO, u);
            (p.mode(), p.rate(), p.decisions())
        };
        assert_eq!(probe([2.0, 1.0, 2.0, 1.0]), (Mode::Moving, 1.05e6, 1));
        assert_eq!(probe([1.0, 2.0, 1.0, 2.0]), (Mode::Moving, 0.95e6, 1));
        // A tie is no preference for the first: the pairs disagree, probe again.
        assert_eq!(probe([1.0, 1.0, 2.0, 1.0]), (Mode::Probing, 1e6, 1));
        assert_eq!(probe([2.0, 1.0, 1.0, 1.0]), (Mode::Probing, 1e6, 1));
    }

    /// An ACK of one more delivered segment at `ms` (srtt 100 ms).
    fn ack1(delivered: u64, lost: u32) -> AckInfo {
        AckInfo {
            acked: 1,
            srtt: Some(Dur::from_millis(100)),
            delivered,
            lost,
            ..AckInfo::default()
        }
    }

    #[test]
    fn a_slow_start_monitor_interval_by_hand() {
        // pcc_process with 50-packet MIs: the first MI (packets 1..) ends for sending once ≥ 50 are
        // sent and a packet of it is accounted for (here: 60 sent, the 3rd ACK, when the count of
        // the previous ACK, 2, exceeds its base 1); it is counted from the ACK after the first
        // 10 + base (before = 12 > 11: the 13th ACK) and ends for receiving when all but the last
        // 10 of its 60 packets are accounted for (count 51 > 50).
        let mut p = pcc();
        let r0 = p.intervals[0].rate;
        for _ in 0..60 {
            p.on_sent(Time::ZERO, 1);
        }
        let t = |k: u64| Time::from_millis(100 + k);
        for k in 1..=2 {
            p.on_ack(t(k), &ack1(k, 0));
        }
        assert_eq!((p.intervals[0].sent_end, p.wait), (0, false));
        p.on_ack(t(3), &ack1(3, 0));
        assert_eq!((p.intervals[0].sent_end, p.intervals[0].send_end, p.send_index), (60, t(3), 1));
        assert!(p.wait, "slow start measures one MI at a time");
        assert_eq!(p.pacing_rate(), Some(p.rate()), "waiting: the base rate");
        for k in 4..=12 {
            p.on_ack(t(k), &ack1(k, 0));
        }
        assert_eq!(p.intervals[0].delivered, 0, "the first 10 + base are not counted");
        p.on_ack(t(13), &ack1(13, 0));
        assert_eq!((p.intervals[0].delivered, p.intervals[0].recv_start), (1, t(13)));
        for k in 14..=50 {
            p.on_ack(t(k), &ack1(k, 0));
        }
        assert_eq!(p.decisions(), 0);
        assert_eq!((p.intervals[0].delivered, p.intervals[0].recv_end), (38, t(50)));
        assert_eq!((p.intervals[0].recv_start, p.intervals[0].lost), (t(13), 0), "set at the first counted ACK only");
        p.on_ack(t(51), &ack1(51, 0));
        // Decided: u = r0 (no inflation, no loss) > −∞, so r = 1.5 · 524 288; the next MI starts at
        // the 60th packet.
        assert_eq!(p.decisions(), 1);
        assert_eq!(p.intervals[0].utility, r0);
        assert_eq!(p.rate(), 786_432.0);
        assert_eq!((p.intervals[0].sent_base, p.wait, p.pacing_rate()), (60, false, Some(786_432.0)));
        assert_eq!(p.counted_now(), 51);
        assert_eq!(p.window(), (2.0 * 786_432.0 * 0.1 / f64::from(MSS)).floor());
        assert_eq!(p.metrics().cwnd, p.window());
        assert_eq!(p.metrics().pacing_rate, Some(786_432.0));
    }

    #[test]
    fn probing_mis_follow_each_other_without_waiting() {
        // In probing the next MI starts as soon as one ends for sending (pcc_process waits only
        // after the 4th, or in the other modes).
        let mut p = pcc();
        p.mode = Mode::Probing;
        for _ in 0..60 {
            p.on_sent(Time::ZERO, 1);
        }
        for k in 1..=3 {
            p.on_ack(Time::from_millis(100 + k), &ack1(k, 0));
        }
        assert_eq!((p.send_index, p.wait), (1, false));
        assert_eq!((p.intervals[1].sent_base, p.intervals[1].send_start), (60, Time::from_millis(103)));
        assert_eq!(p.pacing_rate(), Some(p.intervals[1].rate));
    }

    #[test]
    fn an_rto_holds_the_rate_and_recovery_resynchronises_the_count() {
        // pcc_set_state(TCP_CA_Loss): hold the rate, measure nothing; on leaving it the counters
        // are resynchronised: spare = delivered + lost + in flight − sent.
        let mut p = pcc();
        p.mode = Mode::Moving;
        for _ in 0..60 {
            p.on_sent(Time::ZERO, 1);
        }
        p.on_ack(Time::from_millis(101), &ack1(1, 0));
        p.on_rto(Time::from_millis(300), 50);
        assert!(p.loss_state && p.wait);
        assert_eq!(p.pacing_rate(), Some(p.rate()));
        let counted = p.counted;
        let mut a = ack1(20, 5);
        a.in_flight = 30;
        p.on_ack(Time::from_millis(400), &a);
        assert_eq!(p.counted, counted, "nothing measured in the loss state");
        assert_eq!(p.decisions(), 0);
        // A second RTO changes nothing.
        p.wait = false;
        p.on_rto(Time::from_millis(450), 30);
        assert!(!p.wait);
        p.on_recovery_exit(Time::from_millis(500));
        assert!(!p.loss_state);
        assert_eq!(p.spare, 20 + 5 + 30 - 60);
        assert_eq!(p.counted_now(), 30, "20 + 5 − (−5)");
        // The kernel sets up probing intervals but stays in the moving state: one MI at r(1 ± ε)
        // is sent, then the sender waits for its ACKs (start_next_send_interval with `moving`).
        assert_eq!(p.mode(), Mode::Moving);
        let r = p.rate();
        let first = p.intervals[0].rate;
        assert!((first - r * 1.05).abs() < 1e-6 || (first - r * 0.95).abs() < 1e-6);
        assert_eq!(p.pacing_rate(), Some(first));
        assert_eq!((p.intervals[0].sent_base, p.intervals[0].send_start), (60, Time::from_millis(500)));
        for _ in 0..50 {
            p.on_sent(Time::from_millis(500), 1);
        }
        // The first ACK brings the count past the MI's start, the second ends its sending.
        p.on_ack(Time::from_millis(600), &ack1(21 + 50, 5));
        assert!(!p.wait && p.send_index == 0);
        p.on_ack(Time::from_millis(610), &ack1(21 + 51, 0));
        assert!(p.wait && p.send_index == 1, "moving: one MI, then wait");
        assert_eq!(p.pacing_rate(), Some(r));
        // Leaving recovery again without an RTO changes nothing; slow start stays slow start.
        p.spare = 0;
        p.on_recovery_exit(Time::from_millis(600));
        assert_eq!(p.spare, 0);
        let mut q = pcc();
        q.on_rto(Time::ZERO, 0);
        q.on_recovery_exit(Time::ZERO);
        assert_eq!(q.mode(), Mode::Starting);
        // The count never goes below zero.
        q.spare = 100;
        assert_eq!(q.counted_now(), 0);
    }

    /// Linux `tcp_try_undo_loss` returns to `TCP_CA_Open`, so an undone RTO ends PCC's loss
    /// state (before: the rate stayed frozen until some later recovery ended), resynchronised
    /// with the counts of the ACK that revealed it.
    #[test]
    fn an_undone_rto_ends_the_loss_state_on_that_ack() {
        let mut p = pcc();
        p.mode = Mode::Moving;
        for _ in 0..60 {
            p.on_sent(Time::ZERO, 1);
        }
        p.on_ack(Time::from_millis(101), &ack1(1, 0));
        p.on_rto(Time::from_millis(300), 59);
        assert!(p.loss_state);
        p.on_spurious_rto(Time::from_millis(350));
        assert!(p.loss_state, "left on the ACK, with its counts");
        let mut a = ack1(40, 0);
        a.in_flight = 20;
        p.on_ack(Time::from_millis(350), &a);
        assert!(!p.loss_state && !p.undo_pending);
        assert_eq!(p.spare, 40 + 20 - 60);
        assert_eq!(p.mode(), Mode::Moving);
        // Outside the loss state an undo changes nothing.
        p.on_spurious_rto(Time::from_millis(400));
        assert!(!p.undo_pending);
    }

    #[test]
    fn probing_decides_after_the_fourth_mi_is_accounted_for() {
        // pcc_process in probing: an MI accounted for moves the receive index on; only the 4th
        // one leads to pcc_decide. MI i: packets 60i + 1..= 60(i + 1), all sent (waiting).
        let mut p = pcc();
        p.mode = Mode::Probing;
        for (i, iv) in p.intervals.iter_mut().enumerate() {
            iv.sent_base = 1 + 60 * i as u64;
            iv.sent_end = 60 * (i as u64 + 1);
        }
        p.wait = true;
        p.sent = 240;
        p.recv_index = 2;
        // Count 200 > 180 − 10: MI 2 is accounted for; the third, no decision yet.
        p.on_ack(Time::from_millis(100), &ack1(200, 0));
        assert_eq!((p.recv_index, p.decisions()), (3, 0));
        // Count 229 ≤ 240 − 10: MI 3 not yet; 231 > 230: decided.
        p.on_ack(Time::from_millis(101), &ack1(229, 0));
        assert_eq!((p.recv_index, p.decisions()), (3, 0));
        p.on_ack(Time::from_millis(102), &ack1(231, 0));
        assert_eq!(p.decisions(), 1);
        assert_eq!(p.recv_index, 0, "a new probing round or a move");
    }

    #[test]
    fn an_mi_counts_each_loss_once() {
        // The per-ACK increments of tp->lost and delivered go to the MI being counted: a loss at
        // the 30th ACK counts once, and the next ACKs add only their deliveries.
        let mut p = pcc();
        for _ in 0..60 {
            p.on_sent(Time::ZERO, 1);
        }
        for k in 1..=29 {
            p.on_ack(Time::from_millis(100 + k), &ack1(k, 0));
        }
        p.on_ack(Time::from_millis(130), &ack1(30, 1));
        assert_eq!((p.intervals[0].lost, p.intervals[0].delivered), (1, 18));
        for k in 31..=33 {
            p.on_ack(Time::from_millis(100 + k), &ack1(k, 0));
        }
        assert_eq!((p.intervals[0].lost, p.intervals[0].delivered), (1, 21));
        assert_eq!(p.counted_now(), 34, "33 delivered + 1 lost");
    }
}
