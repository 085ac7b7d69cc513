//! Sprout (Winstein, Sivaraman, Balakrishnan, NSDI 2013), following the reference code
//! `keithw/sprout` (`src/sprout/receiver.{hh,cc}`, `process.cc`, `network/sproutconn.cc`). Digest,
//! paper/code constants and deviations: `docs/cellular-schemes.md`.
//!
//! **Receiver** ([`Forecaster`], a [`ReceiverHook`]): the link delivers packets as a Poisson
//! process whose rate λ does a Brownian motion (σ = 200 packets/s per √s) on the code's grid: 257
//! bins of 1000/256 packets/s from 0, each at its midpoint; the lowest (1.95 packets/s) is the
//! outage state, left at 1/s. Every 20 ms tick the posterior is
//! diffused (Gaussian kernel cut at ±5σ, the lowest and highest bins taking its tails as the
//! code's edge bins do; from the outage bin, mass stays with probability e^(−1/s·τ)), multiplied by the Poisson likelihood of the tick's packet count, and normalised.
//! The forecast is, for each of the next 8 ticks, the **5th percentile** of the cumulative number
//! of deliveries from now to the end of that tick (at most 30 per tick). Every ACK carries the
//! current forecast.
//!
//! **Sender** ([`Sprout`]): on each forecast it sets its queue estimate to the packets in flight
//! (sent minus received-or-lost, as `sproutconn.cc` does with the receiver's count); each tick
//! since the forecast arrived takes that tick's forecast deliveries off the estimate. It may have
//! `forecast[now + 5 ticks] − forecast[now] − queue estimate` more packets in flight: 5 ticks =
//! the 100 ms delay target. No reaction to loss (the transport still retransmits).
//!
//! The forecast's count distribution is the code's (`ProcessForecastInterval`, [`CountTable`]):
//! for each starting bin the exact distribution of the cumulative count, the process evolved tick
//! by tick, per-tick counts of 30 or more dropped. Deviations (details in the docs): per-tick forecast increments above
//! 31 are sent as 31 (5 bits each in
//! the ACK). Heartbeats: a full-size packet, marked so the receiver does not count it, when
//! nothing was sent for 50 ms (the code's heartbeats are small). On a constant link the window
//! allows a standing queue of at most `F/C − RTT` (F the forecast over the target, C the link
//! rate): the queue estimate counts the packets still propagating (analysis and test in
//! `docs/cellular-schemes.md` and `tests/integration/cellular.rs`).

use super::{AckInfo, CcMetrics, CongestionControl, Marking, Scheme};
use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::params::{Config, Param, Unit, Values};
use crate::receiver::ReceiverHook;
use crate::time::{Dur, Time};
use std::sync::{Arc, Mutex, OnceLock};

/// Tick, ms (`TICK_LENGTH = 20`; paper §3.1 "every 20 ms").
pub const TICK_MS: f64 = 20.0;
/// Rate bins (paper §3.1: 256; another `keithw/sprout` receiver.hh, 04bd2ae: 64). As the code's
/// `SampledFunction( bins, maximum_rate, 0 )`: bins of width `maximum_rate/bins` starting at 0,
/// `bins + 1` of them (`int((max − min)/width) + 1`), each at its midpoint rate
/// (`from_bin_mid`: `(i + 0.5)·width`), so the outage bin 0 has 1.95 packets/s and the top one
/// 1001.95.
pub const BINS: u32 = 256;
/// Largest rate, packets/s (paper §3.1: 1000; receiver.hh 04bd2ae: 2000).
pub const MAX_RATE: f64 = 1000.0;
/// Brownian-motion σ, packets/s per √s (paper §3.1: 200; receiver.hh 04bd2ae: 300).
pub const SIGMA: f64 = 200.0;
/// Outage escape rate, 1/s (paper §3.1: λ_z = 1; receiver.hh 04bd2ae: 5).
pub const OUTAGE_ESCAPE: f64 = 1.0;
/// Forecast ticks (algorithms digest of the alfalfa code: 8; receiver.hh 04bd2ae: 10). Eight 5-bit
/// increments fit in the ACK's 6 feedback bytes.
pub const FORECAST_TICKS: usize = 8;
/// Delay target in ticks (`TARGET_DELAY_TICKS = 5`: 100 ms; paper §3.4).
pub const TARGET_TICKS: usize = 5;
/// Forecast percentile (paper §3.3 and `lower_quantile(.., 0.05)`).
pub const QUANTILE: f64 = 0.05;
/// Largest count per tick the forecast considers (`MAX_ARRIVALS_PER_TICK = 30`).
pub const MAX_PER_TICK: u32 = 30;
/// Heartbeat interval, ms (sprout's sender sends at least every 50 ms; research notes).
pub const HEARTBEAT_MS: f64 = 50.0;
/// Tag of a Sprout forecast in an ACK's feedback bytes.
const TAG: u8 = 0x5a;

/// Sprout's parameters (keys `sprout.<name>`).
pub const PARAMS: &[Param] = &[
    Param::real("target_ticks", TARGET_TICKS as f64, Unit::None, 1.0, (FORECAST_TICKS - 1) as f64)
        .doc("delay target in 20 ms ticks (5 = 100 ms)", "sproutconn.cc TARGET_DELAY_TICKS; paper §3.4"),
    Param::real("quantile", QUANTILE * 100.0, Unit::Percent, 0.1, 99.9)
        .doc("forecast percentile of the cumulative deliveries", "paper §3.3 (95 % confidence); receiver.cc lower_quantile 0.05"),
    Param::real("sigma", SIGMA, Unit::PerS, 0.0, 1e5)
        .open(true, false)
        .doc("Brownian-motion σ of the delivery rate, packets/s per √s (receiver.hh 04bd2ae: 300)", "paper §3.1"),
    Param::real("max_rate", MAX_RATE, Unit::PerS, 1.0, 1e6)
        .doc("largest delivery rate modelled, packets/s (receiver.hh 04bd2ae: 2000)", "paper §3.1"),
    Param::whole("bins", BINS as u64, Unit::None, 4, 4096).doc("rate bins: width max_rate/bins from 0, bins + 1 of them at their midpoints (receiver.hh 04bd2ae: 64)", "paper §3.1; SampledFunction"),
    Param::real("outage_escape", OUTAGE_ESCAPE, Unit::PerS, 0.0, 1e4)
        .doc("rate of leaving the outage (λ = 0) state, 1/s (receiver.hh 04bd2ae: 5)", "paper §3.1 (λ_z)"),
    Param::flag("exact_ticks", false).doc(
        "observe every tick with arrivals as an exact count, as the code does (off: a tick the sender limited is a lower bound, this model's deviation; on matches the authors' program at 100 ms RTT)",
        "receiver.cc Receiver::advance_to",
    ),
    Param::flag("cumulative_drain", false).doc(
        "each elapsed tick drains the queue estimate by the forecast's cumulative count, as the code does (off: by that tick's increment, as the paper describes)",
        "sproutconn.cc update_queue_estimate",
    ),
];

/// Sprout over drop-tail.
pub const SPROUT: Scheme = Scheme {
    name: "sprout",
    display: "Sprout",
    family: "sprout",
    summary: "Sprout: receiver's Bayesian delivery forecast (5th percentile), sender window = forecast − queue",
    source: "Winstein et al., NSDI 2013; keithw/sprout reference code",
    marking: Marking::None,
    queue: "droptail",
    pairs: &[],
    params: &[PARAMS],
    preset: &[],
    style: ("#882255", "*"),
    build: |v, _now, _rng| Ok(Box::new(Sprout::new(SproutConfig::checked(v)?))),
    warnings: None,
};

/// The configuration read from [`PARAMS`].
#[derive(Clone, Debug, PartialEq)]
pub struct SproutConfig {
    /// Delay target, ticks.
    pub target_ticks: usize,
    /// Forecast percentile (fraction).
    pub quantile: f64,
    /// σ, packets/s per √s.
    pub sigma: f64,
    /// Largest rate, packets/s.
    pub max_rate: f64,
    /// Bins.
    pub bins: u32,
    /// Outage escape rate, 1/s.
    pub outage_escape: f64,
    /// Every tick with arrivals is an exact observation (the code's rule).
    pub exact_ticks: bool,
    /// The queue estimate drains by the cumulative count per tick (the code's rule).
    pub cumulative_drain: bool,
}

crate::default_from_table!(SproutConfig);

impl Config for SproutConfig {
    const PREFIX: &'static str = "sprout";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];

    fn from_values(v: &Values) -> SproutConfig {
        SproutConfig {
            target_ticks: v.real("target_ticks").round() as usize,
            quantile: v.real("quantile") / 100.0,
            sigma: v.real("sigma"),
            max_rate: v.real("max_rate"),
            bins: v.whole("bins"),
            outage_escape: v.real("outage_escape"),
            exact_ticks: v.flag("exact_ticks"),
            cumulative_drain: v.flag("cumulative_drain"),
        }
    }

    fn check(&self) -> Result<()> {
        if self.max_rate * TICK_MS / 1000.0 > 4.0 * f64::from(MAX_PER_TICK) {
            return Err(Error::Param {
                key: "sprout.max_rate".into(),
                msg: format!(
                    "{} packets/s is far above the forecast's {MAX_PER_TICK} packets per 20 ms tick",
                    self.max_rate
                ),
            });
        }
        Ok(())
    }
}

/// Standard normal CDF (Abramowitz & Stegun 7.1.26 for erf, |error| < 1.5e-7).
fn phi(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// The receiver's model (code `Process` + `Receiver`).
#[derive(Clone, Debug)]
pub struct Forecaster {
    cfg: SproutConfig,
    tick: Dur,
    /// Posterior over the rate bins.
    p: Vec<f64>,
    /// Gaussian kernel: mass moving by `d − k` bins, `d` in `0..=2k`.
    kernel: Vec<f64>,
    /// Mass moving by `d − k` bins *or further down* (`tails[d].0`) / *or further up*
    /// (`tails[d].1`): the edge bins take the Gaussian's tails, as the code's `SampledFunction`
    /// (its edge bins reach ±∞), so no mass leaves the grid.
    tails: Vec<(f64, f64)>,
    /// ln k! for small k.
    ln_fact: Vec<f64>,
    /// Start of the current tick (`None` before the first packet).
    time: Option<Time>,
    count: u32,
    /// The last packet ended the sender's flight: ticks without arrivals until then are not
    /// evidence of a slow link (the code's `time_to_next`, renewed by heartbeats).
    idle_until: Option<Time>,
    /// The last arrival of the current tick ended the sender's flight.
    last_flagged: bool,
    /// The previous tick ended with the sender still sending (its last arrival not flagged).
    prev_busy: bool,
    /// A heartbeat arrived in the current tick (counted only with `exact_ticks`).
    heartbeat_this_tick: bool,
    cached: Option<(Time, [u32; FORECAST_TICKS])>,
    /// The count distributions the forecast reads (code `ProcessForecastInterval`), shared by
    /// every forecaster of the same configuration; `None` only while it is being built.
    table: Option<Arc<CountTable>>,
}

/// For every horizon of `1..=FORECAST_TICKS` ticks and every starting rate bin, the distribution of
/// the number of deliveries over the horizon (code `ProcessForecastInterval`): the process starts
/// certain in the bin; each tick's count is Poisson at the rates the process is then spread over
/// (counts of `MAX_PER_TICK` or more are dropped, as the code's `tick_upper_limit`), convolved into
/// the running total, and the process is evolved one tick.
pub struct CountTable {
    /// `dist[tick][bin][count]`.
    dist: Vec<Vec<Vec<f64>>>,
}

/// The built tables, one per configuration.
type TableCache = Vec<(SproutConfig, Arc<CountTable>)>;

impl std::fmt::Debug for CountTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CountTable({} horizons × {} bins)", self.dist.len(), self.dist.first().map_or(0, Vec::len))
    }
}

impl CountTable {
    fn build(proto: &Forecaster) -> CountTable {
        let n = proto.p.len();
        let tau = proto.tick.secs_f64();
        let per_tick = MAX_PER_TICK as usize;
        let mut dist: Vec<Vec<Vec<f64>>> = (0..FORECAST_TICKS).map(|_| Vec::with_capacity(n)).collect();
        for b in 0..n {
            let mut comp = proto.clone();
            comp.p.iter_mut().for_each(|x| *x = 0.0);
            comp.p[b] = 1.0;
            let mut cum = vec![1.0];
            for slot in dist.iter_mut() {
                let mut this = vec![0.0; per_tick];
                for (r, &pr) in comp.p.iter().enumerate() {
                    if pr < 1e-15 {
                        continue;
                    }
                    let m = comp.rate(r) * tau;
                    for (k, t) in this.iter_mut().enumerate() {
                        *t += pr * proto.poisson(m, k);
                    }
                }
                let mut next = vec![0.0; cum.len() + per_tick - 1];
                for (i, &a) in cum.iter().enumerate() {
                    if a == 0.0 {
                        continue;
                    }
                    for (k, &t) in this.iter().enumerate() {
                        next[i + k] += a * t;
                    }
                }
                cum = next;
                slot.push(cum.clone());
                comp.evolve();
            }
        }
        CountTable { dist }
    }

    /// The table for `cfg`, built once per configuration and process.
    fn for_config(proto: &Forecaster) -> Arc<CountTable> {
        static CACHE: OnceLock<Mutex<TableCache>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
        let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = guard.iter().find(|(c, _)| *c == proto.cfg) {
            return Arc::clone(t);
        }
        let t = Arc::new(CountTable::build(proto));
        // A handful of configurations per process at most; keep memory bounded regardless.
        if guard.len() >= 8 {
            guard.remove(0);
        }
        guard.push((proto.cfg.clone(), Arc::clone(&t)));
        t
    }
}

impl Forecaster {
    /// A forecaster with a uniform prior.
    pub fn new(cfg: SproutConfig) -> Forecaster {
        // `bins + 1` bins of width `max_rate/bins` (see [`BINS`]).
        let n = cfg.bins as usize + 1;
        let tick = Dur::from_millis_f64(TICK_MS);
        let h = cfg.max_rate / cfg.bins as f64;
        let s = cfg.sigma * tick.secs_f64().sqrt();
        let k = ((5.0 * s / h).ceil() as usize).max(1);
        let kernel = (0..=2 * k)
            .map(|d| {
                let off = (d as f64 - k as f64) * h;
                phi((off + h / 2.0) / s) - phi((off - h / 2.0) / s)
            })
            .collect();
        let tails = (0..=2 * k)
            .map(|d| {
                let off = (d as f64 - k as f64) * h;
                (phi((off + h / 2.0) / s), 1.0 - phi((off - h / 2.0) / s))
            })
            .collect();
        let mut ln_fact = vec![0.0; 1024];
        for i in 1..ln_fact.len() {
            ln_fact[i] = ln_fact[i - 1] + (i as f64).ln();
        }
        let mut f = Forecaster {
            tick,
            p: vec![1.0 / n as f64; n],
            kernel,
            tails,
            ln_fact,
            time: None,
            count: 0,
            idle_until: None,
            last_flagged: false,
            prev_busy: false,
            heartbeat_this_tick: false,
            cached: None,
            table: None,
            cfg,
        };
        f.table = Some(CountTable::for_config(&f));
        f
    }

    /// Poisson probability of `k` events at mean `m` (code `poissonpdf`).
    fn poisson(&self, m: f64, k: usize) -> f64 {
        if m <= 0.0 {
            return if k == 0 { 1.0 } else { 0.0 };
        }
        (k as f64 * m.ln() - m - self.ln_fact[k]).exp()
    }

    /// The rate of bin `b`: its midpoint (code `from_bin_mid`), so the outage bin 0 is half a bin
    /// (1.95 packets/s), not 0: one arrival in a tick does not rule the outage out.
    fn rate(&self, b: usize) -> f64 {
        (b as f64 + 0.5) * self.cfg.max_rate / self.cfg.bins as f64
    }

    /// The posterior probability of each rate bin, and the bins' rates (packets/s).
    pub fn posterior(&self) -> Vec<(f64, f64)> {
        (0..self.p.len()).map(|b| (self.rate(b), self.p[b])).collect()
    }

    /// Mean of the posterior rate, packets/s.
    pub fn mean_rate(&self) -> f64 {
        self.posterior().iter().map(|(r, p)| r * p).sum()
    }

    /// Diffuse the posterior over one tick (code `Process::evolve`).
    pub fn evolve(&mut self) {
        let n = self.p.len();
        let k = (self.kernel.len() - 1) / 2;
        let stay_out = (-self.cfg.outage_escape * self.tick.secs_f64()).exp();
        let mut next = vec![0.0; n];
        for (i, &pi) in self.p.iter().enumerate() {
            if pi < 1e-300 {
                continue;
            }
            let lo = i.saturating_sub(k);
            let hi = (i + k).min(n - 1);
            for (j, slot) in next.iter_mut().enumerate().take(hi + 1).skip(lo) {
                let d = j + k - i;
                let g = if j == 0 {
                    self.tails[d].0
                } else if j == n - 1 {
                    self.tails[d].1
                } else {
                    self.kernel[d]
                };
                let z = if i == 0 {
                    if j == 0 {
                        stay_out
                    } else {
                        1.0 - stay_out
                    }
                } else {
                    1.0
                };
                *slot += z * pi * g;
            }
        }
        self.p = next;
        self.normalise();
    }

    /// ln k!: the table below 1024, Stirling's formula to its ½·ln(2πk) term above (error about
    /// 1/(12k) < 1e-4).
    fn ln_factorial(&self, k: usize) -> f64 {
        if k < self.ln_fact.len() {
            self.ln_fact[k]
        } else {
            let kf = k as f64;
            kf * kf.ln() - kf + 0.5 * (2.0 * std::f64::consts::PI * kf).ln()
        }
    }

    /// Multiply by the likelihood of `count` deliveries in a tick (code `Process::observe`).
    pub fn observe(&mut self, count: u32) {
        let tau = self.tick.secs_f64();
        let k = count as usize;
        let ln_k = self.ln_factorial(k);
        for b in 0..self.p.len() {
            let m = self.rate(b) * tau;
            let like = if m <= 0.0 {
                if k == 0 {
                    1.0
                } else {
                    0.0
                }
            } else {
                (k as f64 * m.ln() - m - ln_k).exp()
            };
            self.p[b] *= like;
        }
        self.normalise();
    }

    /// Multiply by the probability of at least `count` deliveries in a tick: the count of a tick
    /// in which the sender stopped or started is a lower bound on what the link could deliver.
    pub fn observe_at_least(&mut self, count: u32) {
        if count == 0 {
            return;
        }
        let tau = self.tick.secs_f64();
        for b in 0..self.p.len() {
            let m = self.rate(b) * tau;
            // P(N ≥ k) = 1 − Σ_{j<k} e^−m m^j / j!
            let mut term = (-m).exp();
            let mut below = 0.0;
            for j in 0..count {
                below += term;
                term *= m / f64::from(j + 1);
            }
            self.p[b] *= (1.0 - below).max(0.0);
        }
        self.normalise();
    }

    fn normalise(&mut self) {
        let s: f64 = self.p.iter().sum();
        if s > 0.0 && s.is_finite() {
            for x in self.p.iter_mut() {
                *x /= s;
            }
        } else {
            // Nothing the model allows explains the observation: start again from the prior.
            let n = self.p.len() as f64;
            self.p.iter_mut().for_each(|x| *x = 1.0 / n);
        }
    }

    /// Advance to `now`: every whole tick before it is evolved and observed (code
    /// `Receiver::advance_to`).
    pub fn advance_to(&mut self, now: Time) {
        let Some(mut t) = self.time else {
            self.time = Some(now);
            return;
        };
        while t + self.tick < now {
            self.evolve();
            if self.count == 0 && self.heartbeat_this_tick {
                // `exact_ticks`: a tick whose only arrival was a heartbeat is observed as one
                // delivery, as the code does. Its receiver adds `len / 1400.0` per arrival
                // (`Receiver::recv`) and observes `0 < count < 1` as 1 (`Receiver::advance_to`);
                // the client's heartbeat, sent every `fallback_interval` = 50 ms while its window
                // is empty (`sproutbt2.cc`), carries a few bytes of header and so counts so.
                self.observe(1);
            } else if self.count == 0 {
                // Silence is evidence unless the sender said it would be quiet (code:
                // `time_to_next`, renewed by heartbeats).
                let idle = self.idle_until.is_some_and(|u| t + self.tick <= u);
                if !idle {
                    self.observe(0);
                }
            } else if self.cfg.exact_ticks || (self.prev_busy && !self.last_flagged) {
                // The sender was sending before and after this tick: the link was the limit.
                // (`exact_ticks`: the code observes every tick with arrivals so, even one the
                // sender's window limited.)
                self.observe(self.count);
            } else {
                self.observe_at_least(self.count);
            }
            if self.count > 0 {
                self.prev_busy = !self.last_flagged;
            }
            self.count = 0;
            self.heartbeat_this_tick = false;
            t += self.tick;
        }
        self.time = Some(t);
    }

    /// A packet arrived at `now`; `flight_end`: the sender's window was full after it, so it
    /// promises nothing but a heartbeat within [`HEARTBEAT_MS`].
    pub fn on_packet(&mut self, now: Time, flight_end: bool) {
        self.advance_to(now);
        self.count += 1;
        self.last_flagged = flight_end;
        self.idle_until = flight_end.then(|| now + Dur::from_millis_f64(HEARTBEAT_MS) + self.tick);
    }

    /// A heartbeat arrived at `now`: the sender is alive and idle; not a delivery, except that
    /// with `exact_ticks` a tick with nothing else is observed as one (see `advance_to`).
    pub fn on_heartbeat(&mut self, now: Time) {
        self.advance_to(now);
        self.heartbeat_this_tick = self.cfg.exact_ticks;
        self.last_flagged = true;
        self.prev_busy = false;
        self.idle_until = Some(now + Dur::from_millis_f64(HEARTBEAT_MS) + self.tick);
    }

    /// The forecast: for each of the next ticks, the `quantile` of the cumulative deliveries
    /// (code `Receiver::forecast`, `lower_quantile`).
    pub fn forecast(&mut self) -> [u32; FORECAST_TICKS] {
        let time = self.time.unwrap_or(Time::ZERO);
        if let Some((t, f)) = self.cached {
            if t == time {
                return f;
            }
        }
        let table = Arc::clone(self.table.as_ref().expect("count table built with the forecaster"));
        let mut out = [0u32; FORECAST_TICKS];
        let bins: Vec<(usize, f64)> = self.p.iter().copied().enumerate().filter(|&(_, p)| p > 1e-12).collect();
        for (i, slot) in out.iter_mut().enumerate() {
            // Smallest k with P(count ≤ k) ≥ quantile (code `lower_quantile`, which returns one
            // past the table when the kept mass never reaches it).
            let rows: Vec<(&[f64], f64)> = bins.iter().map(|&(b, p)| (table.dist[i][b].as_slice(), p)).collect();
            let len = rows.first().map_or(0, |r| r.0.len());
            let mut sum = 0.0;
            *slot = len as u32 + 1;
            for k in 0..len {
                sum += rows.iter().map(|(r, p)| p * r[k]).sum::<f64>();
                if sum >= self.cfg.quantile {
                    *slot = k as u32;
                    break;
                }
            }
        }
        // Cumulative counts never decrease with the horizon.
        for i in 1..FORECAST_TICKS {
            out[i] = out[i].max(out[i - 1]);
        }
        self.cached = Some((time, out));
        out
    }
}

/// Pack a cumulative forecast into ACK feedback: a tag, then 8 per-tick increments of 5 bits.
pub fn encode(cum: &[u32; FORECAST_TICKS]) -> [u8; 6] {
    let mut bits: u64 = 0;
    let mut prev = 0;
    for (i, &c) in cum.iter().enumerate() {
        let inc = u64::from(c.saturating_sub(prev).min(31));
        prev = c;
        bits |= inc << (5 * i);
    }
    let b = bits.to_le_bytes();
    [TAG, b[0], b[1], b[2], b[3], b[4]]
}

/// Unpack ACK feedback into a cumulative forecast; `None` if it carries none.
pub fn decode(fb: &[u8; 6]) -> Option<[u32; FORECAST_TICKS]> {
    if fb[0] != TAG {
        return None;
    }
    let bits = u64::from_le_bytes([fb[1], fb[2], fb[3], fb[4], fb[5], 0, 0, 0]);
    let mut out = [0u32; FORECAST_TICKS];
    let mut sum = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        sum += ((bits >> (5 * i)) & 31) as u32;
        *slot = sum;
    }
    Some(out)
}

/// The receiver hook: a [`Forecaster`] whose forecast rides on every ACK.
#[derive(Clone, Debug)]
pub struct SproutReceiver(pub Forecaster);

impl ReceiverHook for SproutReceiver {
    fn on_data(&mut self, now: Time, pkt: &Packet) {
        if pkt.feedback[0] & crate::packet::HEARTBEAT != 0 {
            self.0.on_heartbeat(now);
        } else {
            self.0.on_packet(now, pkt.feedback[0] & crate::packet::FLIGHT_END != 0);
        }
    }
    fn feedback(&mut self, now: Time) -> [u8; 6] {
        self.0.advance_to(now);
        encode(&self.0.forecast())
    }
    fn clone_box(&self) -> Box<dyn ReceiverHook> {
        Box::new(self.clone())
    }
}

/// The sender (code `SproutConnection`).
#[derive(Clone, Debug)]
pub struct Sprout {
    cfg: SproutConfig,
    tick: Dur,
    forecast: [u32; FORECAST_TICKS],
    forecast_at: Option<Time>,
    cur_tick: usize,
    /// Packets believed queued or in flight.
    queue_est: f64,
    in_flight: u32,
    forecasts: u64,
    /// Last transmission (heartbeat clock).
    last_sent: Option<Time>,
    /// A heartbeat is due: one packet may go out whatever the forecast.
    heartbeat: bool,
}

impl Sprout {
    /// A sender whose first forecast is the prior's (code: `operative_forecast(conn.forecast())`).
    pub fn new(cfg: SproutConfig) -> Sprout {
        let forecast = Forecaster::new(cfg.clone()).forecast();
        Sprout {
            cfg,
            tick: Dur::from_millis_f64(TICK_MS),
            forecast,
            forecast_at: None,
            cur_tick: 0,
            queue_est: 0.0,
            in_flight: 0,
            forecasts: 0,
            last_sent: None,
            heartbeat: false,
        }
    }

    /// The operative forecast (cumulative packets per tick).
    pub fn forecast(&self) -> &[u32; FORECAST_TICKS] {
        &self.forecast
    }
    /// The queue estimate, packets.
    pub fn queue_estimate(&self) -> f64 {
        self.queue_est
    }
    /// Forecasts received.
    pub fn forecasts(&self) -> u64 {
        self.forecasts
    }

    /// Code `update_queue_estimate`: each elapsed tick drains its forecast deliveries. (The code
    /// subtracts the cumulative count `counts(tick)`; the per-tick increment is used here, as the
    /// paper describes.)
    fn update_queue(&mut self, now: Time) {
        let Some(at) = self.forecast_at else { return };
        let elapsed = (now.saturating_since(at).0 / self.tick.0.max(1)) as usize;
        let new_tick = elapsed.min(FORECAST_TICKS - 1);
        while self.cur_tick < new_tick {
            let c = self.cur_tick;
            let inc = if self.cfg.cumulative_drain {
                self.forecast[c]
            } else {
                self.forecast[c] - if c == 0 { 0 } else { self.forecast[c - 1] }
            };
            self.queue_est = (self.queue_est - f64::from(inc)).max(0.0);
            self.cur_tick += 1;
        }
    }

    /// Packets that may still be sent (code `window_size` / 1440 bytes).
    pub fn allowance(&self) -> f64 {
        let cur = self.cur_tick;
        let end = (cur + self.cfg.target_ticks).min(FORECAST_TICKS - 1);
        let deliver = f64::from(self.forecast[end] - self.forecast[cur]);
        (deliver - self.queue_est).max(0.0)
    }
}

impl CongestionControl for Sprout {
    fn name(&self) -> &'static str {
        "sprout"
    }

    fn window(&self) -> f64 {
        let hb = if self.heartbeat { 1.0 } else { 0.0 };
        f64::from(self.in_flight) + self.allowance().max(hb)
    }

    fn next_timer(&self) -> Option<Time> {
        let at = self.last_sent? + Dur::from_millis_f64(HEARTBEAT_MS);
        (!self.heartbeat).then_some(at)
    }

    fn on_timer(&mut self, _now: Time) {
        self.heartbeat = true;
    }

    fn data_flags(&self) -> u8 {
        if self.heartbeat && self.allowance() < 1.0 {
            crate::packet::HEARTBEAT
        } else {
            0
        }
    }

    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.last_sent = Some(now);
        self.heartbeat = false;
        self.queue_est += 1.0;
        self.in_flight = in_flight;
        self.update_queue(now);
    }

    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.in_flight = ack.in_flight;
        if let Some(f) = decode(&ack.feedback) {
            self.forecast = f;
            self.forecast_at = Some(now);
            self.cur_tick = 0;
            self.queue_est = f64::from(ack.in_flight);
            self.forecasts += 1;
        }
        self.update_queue(now);
    }

    fn receiver_hook(&self) -> Option<Box<dyn ReceiverHook>> {
        Some(Box::new(SproutReceiver(Forecaster::new(self.cfg.clone()))))
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

    fn feed(f: &mut Forecaster, per_tick: &[u32], t0: Time) -> Time {
        let mut t = t0;
        for &n in per_tick {
            for i in 0..n {
                f.on_packet(t + Dur::from_micros(u64::from(i) * 20_000 / u64::from(n.max(1))), false);
            }
            t += Dur::from_millis(20);
        }
        f.advance_to(t + Dur::from_millis(1));
        t
    }

    #[test]
    fn constant_rate_forecast_is_below_the_mean_and_near_it() {
        // 500 packets/s = 10 per tick for 4 s.
        let mut f = Forecaster::new(SproutConfig::default());
        feed(&mut f, &[10; 200], Time::ZERO);
        let mean = f.mean_rate();
        assert!((mean - 500.0).abs() < 40.0, "posterior mean {mean}");
        let fc = f.forecast();
        // Expected deliveries over 5 ticks at the mean: 50; the 5th percentile is below but not far.
        let five = f64::from(fc[4]);
        assert!(five < 50.0 && five > 25.0, "{fc:?}");
        for i in 1..FORECAST_TICKS {
            assert!(fc[i] >= fc[i - 1], "cumulative: {fc:?}");
            let mean_i = 10.0 * (i + 1) as f64;
            assert!(f64::from(fc[i]) < mean_i, "tick {i}: {} ≥ mean {mean_i}", fc[i]);
        }
    }

    #[test]
    fn forecast_collapses_in_an_outage_and_recovers() {
        let mut f = Forecaster::new(SproutConfig::default());
        let t = feed(&mut f, &[10; 100], Time::ZERO);
        let before = f.forecast();
        let mean_before = f.mean_rate();
        // 200 ms with no delivery.
        let t = feed(&mut f, &[0; 10], t);
        let during = f.forecast();
        assert_eq!(during[TARGET_TICKS - 1], 0, "{during:?}");
        let mean_during = f.mean_rate();
        assert!(mean_during < 0.2 * mean_before, "posterior mean {mean_before} → {mean_during}");
        assert!(before[TARGET_TICKS - 1] > 20, "{before:?}");
        // Deliveries resume: the forecast comes back.
        feed(&mut f, &[10; 25], t);
        let after = f.forecast();
        assert!(after[TARGET_TICKS - 1] > 15, "{after:?}");
    }

    #[test]
    fn counts_the_sender_limited_are_lower_bounds_and_promised_silence_is_no_evidence() {
        let mut f = Forecaster::new(SproutConfig::default());
        let mut t = feed(&mut f, &[10; 100], Time::ZERO);
        let before = f.mean_rate();
        // The sender now sends 2 packets per tick and says each time that its window is full.
        for _ in 0..50 {
            f.on_packet(t + Dur::from_millis(5), false);
            f.on_packet(t + Dur::from_millis(6), true);
            t += Dur::from_millis(20);
        }
        f.advance_to(t + Dur::from_millis(1));
        let after = f.mean_rate();
        assert!(after > 0.8 * before, "censored ticks: {before} → {after}");
        // Promised silence (a flight end then nothing for 60 ms < 50 ms + tick... then longer).
        let mut g = Forecaster::new(SproutConfig::default());
        let t = feed(&mut g, &[10; 100], Time::ZERO);
        let m0 = g.mean_rate();
        g.on_packet(t, true);
        g.advance_to(t + Dur::from_millis(60));
        assert!(g.mean_rate() > 0.8 * m0, "silence within the promise is no evidence");
        g.advance_to(t + Dur::from_millis(300));
        assert!(g.mean_rate() < 0.5 * m0, "silence beyond it is: {m0} → {}", g.mean_rate());
    }

    #[test]
    fn diffusion_keeps_the_mass_on_the_grid() {
        // All mass at the top rate (1001.95 packets/s). One tick of Brownian motion (σ√τ = 28.3):
        // the code's edge bins reach ±∞, so the moves above the top stay in the top bin and the
        // mean falls by E[max(0, −X)] = σ√τ/√(2π) ≈ 11.3; dropping them and renormalising would
        // condition on moving down (mean − 22.6).
        let mut f = Forecaster::new(SproutConfig::default());
        let n = f.p.len();
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[n - 1] = 1.0;
        f.evolve();
        let mean = f.mean_rate();
        assert!((mean - (1001.95 - 11.3)).abs() < 2.0, "mean after one tick {mean}");
        assert!(f.p[n - 1] > 0.45, "top bin keeps the upward half: {}", f.p[n - 1]);
        // And at the bottom edge: from bin 1 the whole downward tail lands in the outage bin
        // (≈ 0.45; about 0.1 if it were dropped and the rest renormalised).
        let mut g = Forecaster::new(SproutConfig::default());
        g.p.iter_mut().for_each(|x| *x = 0.0);
        g.p[1] = 1.0;
        g.evolve();
        assert!(g.p[0] > 0.3, "the outage bin takes the downward tail: {}", g.p[0]);
    }

    #[test]
    fn the_grid_is_the_codes_and_the_outage_bin_has_half_a_bin() {
        // keithw/sprout `SampledFunction( 256, 1000, 0 )`: 257 bins of 1000/256 = 3.90625 packets/s,
        // at their midpoints: 1.953125, 5.859375, …, 1001.953125.
        let f = Forecaster::new(SproutConfig::default());
        let post = f.posterior();
        assert_eq!(post.len(), 257);
        assert_eq!(post[0].0, 1.953125);
        assert_eq!(post[1].0, 5.859375);
        assert_eq!(post[256].0, 1001.953125);
        // Half the mass in the outage bin, half at bin 10 (41.02 packets/s); one arrival in a tick.
        // Poisson likelihoods of 1 arrival: bin 0 m = 0.0390625, m·e^−m = 0.037566; bin 10
        // m = 0.8203125, 0.361179. So the outage keeps 0.037566 / (0.037566 + 0.361179) = 0.0942
        // (with a rate of 0 one arrival would rule it out).
        let mut f = Forecaster::new(SproutConfig::default());
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[0] = 0.5;
        f.p[10] = 0.5;
        f.observe(1);
        assert!((f.p[0] - 0.0942).abs() < 5e-4, "{}", f.p[0]);
        // No arrival: bin 0 e^−0.039 = 0.96169, bin 10 e^−0.8203 = 0.44029 → 0.6860.
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[0] = 0.5;
        f.p[10] = 0.5;
        f.observe(0);
        assert!((f.p[0] - 0.6860).abs() < 5e-4, "{}", f.p[0]);
    }

    #[test]
    fn forecast_is_the_exact_count_quantile() {
        // With (almost) no Brownian motion and no outage escape, a rate known for certain forecasts
        // the 5th percentile of a Poisson count: bin 128 is at 128.5·1000/256 = 501.95 packets/s,
        // 10.04 per tick; P(N ≤ k) ≥ 5 % first at k = 5 (1 tick), 39 (5 ticks: mean 50.2), 66
        // (8 ticks: 80.3).
        let cfg = SproutConfig {
            sigma: 1e-3,
            outage_escape: 0.0,
            ..SproutConfig::default()
        };
        let mut f = Forecaster::new(cfg);
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[128] = 1.0;
        let fc = f.forecast();
        assert_eq!((fc[0], fc[4], fc[7]), (5, 39, 66), "{fc:?}");
        // With the paper's σ the spread of the rate widens the count distribution: a lower quantile
        // over the longer horizons.
        let mut g = Forecaster::new(SproutConfig::default());
        g.p.iter_mut().for_each(|x| *x = 0.0);
        g.p[128] = 1.0;
        let gc = g.forecast();
        assert!(gc[4] <= 39 && gc[7] < 66, "{gc:?}");
        assert_eq!(gc[0], 5, "the first tick's count is from the certain rate (evolved after)");
    }

    #[test]
    fn forecast_round_trips_through_the_ack() {
        let cum = [3, 7, 12, 20, 29, 40, 52, 90];
        let back = decode(&encode(&cum)).unwrap();
        assert_eq!(back, [3, 7, 12, 20, 29, 40, 52, 83], "increments saturate at 31");
        assert_eq!(decode(&[0; 6]), None);
    }

    #[test]
    fn sender_window_is_forecast_minus_queue() {
        let mut s = Sprout::new(SproutConfig::default());
        let fc = [10, 20, 30, 40, 50, 60, 70, 80];
        let ack = AckInfo {
            in_flight: 15,
            feedback: encode(&fc),
            ..AckInfo::default()
        };
        s.on_ack(Time::ZERO, &ack);
        // cnt[5] − cnt[0] = 50 expected deliveries over the target, 15 queued: 35 more.
        assert_eq!(s.allowance(), 35.0);
        assert_eq!(s.window(), 50.0);
        s.on_sent(Time::ZERO, 16);
        assert_eq!(s.window(), 50.0, "a send uses the allowance, not the window");
        // 41 ms later, no new forecast: one more packet sent (17 queued), and two ticks have
        // drained 10 + 10 (floored at 0); the target now looks from tick 2 to tick 7: 80 − 30.
        s.on_sent(Time::from_millis(41), 17);
        assert_eq!(s.queue_estimate(), 0.0);
        assert_eq!(s.allowance(), 50.0);
        assert_eq!(s.window(), 67.0);
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut given = crate::params::Given::new();
        given.insert("max_rate".into(), crate::params::Value::Num(1e5));
        let e = crate::cc::build("sprout", &given, Time::ZERO, crate::rng::Rng::stream(1, 1))
            .err()
            .unwrap();
        assert!(e.to_string().contains("sprout.max_rate"), "{e}");
    }

    // Mutation-testing additions (docs/testing.md).

    #[test]
    fn phi_is_the_standard_normal_cdf() {
        // Abramowitz & Stegun 7.1.26: |erf error| < 1.5e-7, so Φ within 1e-7 of the tabulated values.
        for (z, want) in [(0.0, 0.5), (1.0, 0.841_344_746), (-1.0, 0.158_655_254), (1.96, 0.975_002_105), (-3.0, 0.001_349_898)] {
            assert!((phi(z) - want).abs() < 1e-7, "Φ({z}) = {}", phi(z));
        }
    }

    #[test]
    fn from_the_outage_the_mass_stays_with_probability_e_to_the_minus_escape_tau() {
        // Bin 0 (the outage) keeps e^(−1/s · 20 ms) = 0.980199 of its mass times the kernel's share
        // at or below it, Φ(h/2σ√τ) = Φ(0.069053) = 0.527526; the rest, (1 − 0.980199) times the
        // kernel above it, moves up. Normalised: 0.980199·0.527526 / (that + 0.019801·0.472474)
        // = 0.982228.
        let mut f = Forecaster::new(SproutConfig::default());
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[0] = 1.0;
        f.evolve();
        assert!((f.p[0] - 0.982_228).abs() < 1e-5, "{}", f.p[0]);
        assert!(f.p[1] > 0.0 && f.p[1] < 0.01, "{}", f.p[1]);
    }

    #[test]
    fn configuration_bounds_are_named() {
        let scheme = crate::cc::lookup("sprout").unwrap();
        let check = |name: &str, x: f64| {
            let mut given = crate::params::Given::new();
            given.insert(name.into(), crate::params::Value::Num(x));
            scheme.values(&given).and_then(|v| SproutConfig::checked(&v)).map(|_| ())
        };
        // 6000 packets/s is exactly 4 × 30 per 20 ms tick: accepted; above, refused.
        assert!(check("max_rate", 6000.0).is_ok());
        let e = check("max_rate", 6001.0).err().unwrap();
        assert!(e.to_string().contains("sprout.max_rate"), "{e}");
        // The target is at most the forecast's last tick (7).
        assert!(check("target_ticks", 7.0).is_ok());
        let e = check("target_ticks", 8.0).err().unwrap();
        assert!(e.to_string().contains("sprout.target_ticks"), "{e}");
        let f = Forecaster::new(SproutConfig::default());
        assert_eq!(format!("{:?}", f.table.as_ref().unwrap()), "CountTable(8 horizons × 257 bins)");
        assert_eq!((f.poisson(0.0, 0), f.poisson(0.0, 3)), (1.0, 0.0));
    }

    #[test]
    fn ln_factorial_by_table_and_by_stirling() {
        // ln Γ(k + 1): 6071.280413 (k = 1023, the table's last), 6078.211885 (1024, Stirling's
        // first), 13206.524351 (2000).
        let f = Forecaster::new(SproutConfig::default());
        assert!((f.ln_factorial(1023) - 6_071.280_413).abs() < 1e-5, "{}", f.ln_factorial(1023));
        assert!((f.ln_factorial(1024) - 6_078.211_885).abs() < 1e-4, "{}", f.ln_factorial(1024));
        assert!((f.ln_factorial(2000) - 13_206.524_351).abs() < 1e-4, "{}", f.ln_factorial(2000));
        assert_eq!((f.ln_factorial(0), f.ln_factorial(1)), (0.0, 0.0));
    }

    #[test]
    fn at_least_observations_by_hand() {
        // P(N ≥ k) = 1 − Σ_{j<k} e^−m m^j/j!: bin 0 (m = 0.0390625 per tick) and bin 10
        // (m = 0.8203125), half the mass each. k = 2: 0.00074336 and 0.19852725 → bin 0 keeps
        // 0.0037304; k = 1: 0.0383094 and 0.5597060 → 0.0640609. k = 0 tells nothing.
        let start = || {
            let mut f = Forecaster::new(SproutConfig::default());
            f.p.iter_mut().for_each(|x| *x = 0.0);
            f.p[0] = 0.5;
            f.p[10] = 0.5;
            f
        };
        let mut f = start();
        f.observe_at_least(2);
        assert!((f.p[0] - 0.003_730_4).abs() < 1e-6, "{}", f.p[0]);
        let mut f = start();
        f.observe_at_least(1);
        assert!((f.p[0] - 0.064_060_9).abs() < 1e-6, "{}", f.p[0]);
        // k = 3: 9.6476e-6 and 0.0503875 → 1.9143e-4.
        let mut f = start();
        f.observe_at_least(3);
        assert!((f.p[0] - 1.914_31e-4).abs() < 1e-8, "{}", f.p[0]);
        let mut f = start();
        f.observe_at_least(0);
        assert_eq!((f.p[0], f.p[10]), (0.5, 0.5));
    }

    #[test]
    fn an_unexplainable_observation_restarts_from_the_prior() {
        // No mass left (or an overflow): the posterior goes back to the uniform prior, 1/257 a bin.
        let mut f = Forecaster::new(SproutConfig::default());
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.normalise();
        assert!(f.p.iter().all(|&x| x == 1.0 / 257.0));
        f.p[3] = f64::INFINITY;
        f.normalise();
        assert!(f.p.iter().all(|&x| x == 1.0 / 257.0));
        // Otherwise it sums to 1.
        f.p[3] = 3.0;
        f.normalise();
        assert!((f.p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_heartbeat_promises_silence_for_50_ms_and_a_tick() {
        // After a heartbeat at t + 1 ms the sender may stay silent until t + 71 ms: the ticks ending
        // at t + 20, 40 and 60 ms are diffused only (no observation of 0 deliveries).
        let mut g = Forecaster::new(SproutConfig::default());
        feed(&mut g, &[10; 50], Time::ZERO);
        let t = g.time.unwrap();
        g.on_heartbeat(t + Dur::from_millis(1));
        let mut h = g.clone();
        // A tick ends only once `now` is past it.
        g.advance_to(t + Dur::from_millis(20));
        assert_eq!((g.time, &g.p), (Some(t), &h.p));
        g.advance_to(t + Dur::from_millis(61));
        for _ in 0..3 {
            h.evolve();
        }
        assert_eq!(g.time, Some(t + Dur::from_millis(60)));
        assert_eq!(g.p, h.p, "no evidence within the promise");
        // The tick ending at t + 80 ms ends after the promise (t + 71 ms): silence is evidence.
        g.advance_to(t + Dur::from_millis(81));
        h.evolve();
        h.observe(0);
        assert_eq!(g.p, h.p);
    }

    #[test]
    fn a_quantile_the_kept_counts_never_reach_is_one_past_the_table() {
        // lower_quantile returns one past the table when the mass of counts below 30 per tick
        // (the rest is dropped) stays under the quantile: at the top rate (20.04 per tick) about
        // 1.8 % of the first tick's mass is dropped, so the 99.9th percentile is 30 + 1.
        let cfg = SproutConfig {
            quantile: 0.999,
            ..SproutConfig::default()
        };
        let mut f = Forecaster::new(cfg);
        let n = f.p.len();
        f.p.iter_mut().for_each(|x| *x = 0.0);
        f.p[n - 1] = 1.0;
        assert_eq!(f.forecast()[0], 31);
    }

    #[test]
    fn cumulative_drain_subtracts_each_ticks_cumulative_count_as_the_code() {
        // sproutconn.cc update_queue_estimate: `queue -= 1440 * counts(tick)` per elapsed tick,
        // counts cumulative; the default drains by the increments.
        let drained = |cumulative_drain: bool| {
            let mut s = Sprout::new(SproutConfig {
                cumulative_drain,
                ..SproutConfig::default()
            });
            s.forecast = [3, 7, 12, 20, 29, 40, 52, 60];
            s.forecast_at = Some(Time::ZERO);
            s.cur_tick = 0;
            s.queue_est = 50.0;
            s.update_queue(Time::from_millis(41)); // two whole ticks
            50.0 - s.queue_est
        };
        assert_eq!(drained(false), 7.0, "3 + 4");
        assert_eq!(drained(true), 10.0, "3 + 7");
    }

    #[test]
    fn with_exact_ticks_every_tick_with_arrivals_is_an_exact_count_as_in_the_code() {
        // receiver.cc `advance_to` observes `round(count)` for any tick with arrivals, even one
        // the sender's window limited (its last packet flagged, the previous tick idle).
        let tick = Dur::from_millis(20);
        let t0 = Time::from_millis(1);
        let cfg = SproutConfig {
            exact_ticks: true,
            ..SproutConfig::default()
        };
        for (prev_busy, flagged) in [(false, true), (false, false), (true, true)] {
            let mut f = Forecaster::new(cfg.clone());
            f.advance_to(t0);
            f.prev_busy = prev_busy;
            let mut exact = f.clone();
            let mut bound = f.clone();
            for i in 0..3 {
                f.on_packet(t0, flagged && i == 2);
            }
            f.advance_to(t0 + tick + Dur::from_nanos(1));
            exact.evolve();
            exact.observe(3);
            bound.evolve();
            bound.observe_at_least(3);
            assert_eq!(f.p, exact.p, "prev_busy {prev_busy}, flagged {flagged}");
            assert_ne!(f.p, bound.p, "the default rule would have given a lower bound here");
        }
    }

    #[test]
    fn with_exact_ticks_a_tick_with_only_a_heartbeat_is_one_delivery_as_in_the_code() {
        // receiver.cc: `recv` adds `len / 1400.0` for every arrival, a heartbeat's few header
        // bytes included, and `advance_to` observes `0 < count < 1` as 1. Without `exact_ticks`
        // the model leaves a heartbeat uncounted (the tick is a promised silence).
        let tick = Dur::from_millis(20);
        let t0 = Time::from_millis(1);
        for exact_ticks in [true, false] {
            let cfg = SproutConfig {
                exact_ticks,
                ..SproutConfig::default()
            };
            let mut f = Forecaster::new(cfg);
            f.advance_to(t0);
            let mut one = f.clone();
            let mut skipped = f.clone();
            f.on_heartbeat(t0 + Dur::from_millis(5));
            f.advance_to(t0 + tick + Dur::from_nanos(1));
            one.evolve();
            one.observe(1);
            skipped.evolve();
            if exact_ticks {
                assert_eq!(f.p, one.p, "a heartbeat-only tick is observed as one delivery");
            } else {
                assert_eq!(f.p, skipped.p, "a heartbeat is no delivery and its tick no evidence");
            }
            // The next tick, with neither data nor heartbeat, is inside the heartbeat's promised
            // 50 ms of silence and observes nothing either way.
            let mut evolved = f.clone();
            f.advance_to(t0 + tick + tick + Dur::from_nanos(1));
            evolved.evolve();
            assert_eq!(f.p, evolved.p);
        }
    }

    #[test]
    fn a_tick_is_an_exact_count_only_between_two_busy_ticks() {
        // Code `Receiver::advance_to`: a tick's count is what the link delivered (`observe`) only
        // when the sender was sending before it (the previous tick ended unflagged) and after it
        // (its last packet unflagged); otherwise it is a lower bound (`observe_at_least`).
        let tick = Dur::from_millis(20);
        let t0 = Time::from_millis(1);
        // `advance_to` over one tick of 3 packets whose last is `flagged`, after a tick that left
        // `prev_busy`; and the same by hand with the rule `exact`.
        let run = |prev_busy: bool, flagged: bool, exact: bool| {
            let mut f = Forecaster::new(SproutConfig::default());
            f.advance_to(t0);
            f.prev_busy = prev_busy;
            let mut g = f.clone();
            for i in 0..3 {
                f.on_packet(t0, flagged && i == 2);
            }
            f.advance_to(t0 + tick + Dur::from_nanos(1));
            g.evolve();
            if exact {
                g.observe(3);
            } else {
                g.observe_at_least(3);
            }
            assert_eq!(f.p, g.p, "prev_busy {prev_busy}, flagged {flagged}");
            assert_eq!(f.prev_busy, !flagged);
        };
        run(true, false, true);
        run(false, false, false);
        run(true, true, false);
        run(false, true, false);
        // The two rules tell these counts apart (else the test above would prove nothing).
        let mut a = Forecaster::new(SproutConfig::default());
        let mut b = a.clone();
        a.observe(3);
        b.observe_at_least(3);
        assert_ne!(a.p, b.p);
    }

    #[test]
    fn the_receiver_hook_counts_data_and_not_heartbeats() {
        use crate::packet::{Ecn, FLIGHT_END, HEARTBEAT};
        let mut r = SproutReceiver(Forecaster::new(SproutConfig::default()));
        let t = Time::from_millis(5);
        let mut pkt = Packet::data(0, 0, 1500, Ecn::NotEct, t);
        r.on_data(t, &pkt);
        assert_eq!((r.0.count, r.0.last_flagged), (1, false));
        pkt.feedback[0] = FLIGHT_END;
        r.on_data(t, &pkt);
        assert_eq!((r.0.count, r.0.last_flagged), (2, true));
        pkt.feedback[0] = HEARTBEAT;
        r.0.prev_busy = true;
        r.on_data(t, &pkt);
        assert_eq!((r.0.count, r.0.prev_busy), (2, false), "a heartbeat is no delivery");
        assert_eq!(r.0.idle_until, Some(t + Dur::from_millis(70)));
        assert_eq!(decode(&r.feedback(t)), Some(r.0.forecast()));
    }

    #[test]
    fn the_sender_starts_from_the_priors_forecast_and_takes_each_one_received() {
        let cfg = SproutConfig::default();
        let mut s = Sprout::new(cfg.clone());
        assert_eq!(s.forecast(), &Forecaster::new(cfg).forecast());
        assert_eq!(s.forecasts(), 0);
        let fc = [1, 2, 3, 4, 5, 6, 7, 8];
        s.on_ack(Time::ZERO, &AckInfo { feedback: encode(&fc), ..AckInfo::default() });
        assert_eq!((s.forecast(), s.forecasts()), (&fc, 1));
        assert_eq!(s.name(), "sprout");
        assert!(s.receiver_hook().is_some(), "the forecaster rides with the receiver");
        assert_eq!(s.metrics().cwnd, s.window());
    }

    #[test]
    fn heartbeats_and_the_end_of_the_forecast() {
        let mut s = Sprout::new(SproutConfig::default());
        assert_eq!(s.next_timer(), None, "nothing sent yet");
        // A forecast of nothing: no allowance, 3 in flight.
        s.on_ack(Time::ZERO, &AckInfo { in_flight: 3, feedback: encode(&[0; 8]), ..AckInfo::default() });
        assert_eq!((s.allowance(), s.queue_estimate()), (0.0, 3.0));
        s.on_sent(Time::from_millis(10), 3);
        assert_eq!(s.next_timer(), Some(Time::from_millis(60)), "a heartbeat 50 ms after the last send");
        assert_eq!((s.window(), s.data_flags()), (3.0, 0));
        s.on_timer(Time::from_millis(60));
        assert_eq!(s.next_timer(), None, "due");
        assert_eq!(s.window(), 4.0, "one packet may go");
        assert_eq!(s.data_flags(), crate::packet::HEARTBEAT);
        s.on_sent(Time::from_millis(60), 4);
        assert_eq!((s.data_flags(), s.next_timer()), (0, Some(Time::from_millis(110))));
        // An allowance of exactly one packet: a due heartbeat goes as data.
        let mut s = Sprout::new(SproutConfig::default());
        s.on_ack(Time::ZERO, &AckInfo { feedback: encode(&[0, 0, 0, 0, 0, 1, 1, 1]), ..AckInfo::default() });
        s.on_sent(Time::ZERO, 0);
        s.on_ack(Time::ZERO, &AckInfo { feedback: encode(&[0, 0, 0, 0, 0, 1, 1, 1]), ..AckInfo::default() });
        s.on_timer(Time::from_millis(50));
        assert_eq!((s.allowance(), s.data_flags()), (1.0, 0));
        // 500 ms after a forecast its last tick is current: ticks 0..=6 drained 2 + 3 + … + 8 = 35
        // of the 31 queued (floored at 0), and the allowance looks no further than the last tick.
        let mut s = Sprout::new(SproutConfig::default());
        let fc = [2, 5, 9, 14, 20, 27, 35, 44];
        s.on_ack(Time::ZERO, &AckInfo { in_flight: 30, feedback: encode(&fc), ..AckInfo::default() });
        s.on_sent(Time::from_millis(500), 31);
        assert_eq!(s.queue_estimate(), 0.0);
        assert_eq!(s.allowance(), 0.0);
        let mut s = Sprout::new(SproutConfig::default());
        s.on_ack(Time::ZERO, &AckInfo { in_flight: 30, feedback: encode(&fc), ..AckInfo::default() });
        s.on_sent(Time::from_millis(45), 31);
        // Two ticks drained: 2 + 3 = 5 → 31 − 5 = 26; allowance from tick 2 to 7: 44 − 9 − 26 = 9.
        assert_eq!((s.queue_estimate(), s.allowance()), (26.0, 9.0));
    }
}
