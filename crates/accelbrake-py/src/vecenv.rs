//! Batch stepping for `accelbrake.gym_vector`: N steered simulations advanced by one monitor
//! interval (MI) each in one call, with the observation features, the reward and the action rule
//! of `accelbrake.gym.CongestionEnv` computed here instead of in Python.
//!
//! The arithmetic follows `accelbrake/gym.py` operation for operation (same order of f64
//! operations, features clipped in f64 and then rounded to f32), so that a lane gives the same
//! observations and rewards as a `CongestionEnv` with the same scenario and actions; the Python
//! tests compare the two. Arrays cross the boundary as raw little-endian bytes (`bytes` in,
//! `bytearray` out) that the Python side views with `numpy.frombuffer`: numpy in and out without
//! a numpy dependency here (the buffer protocol is not in Python 3.10's limited API).
//!
//! Lanes are independent, so with `threads > 1` they are split over that many threads (scoped,
//! per call); results do not depend on the number of threads. Lanes with Python controllers
//! among the competing flows need the GIL for every callback and always run on the calling thread.

use accelbrake_sim::cc::external::{Externals, SteerFactory, SteerHandle, SteerMode, SteerStats};
use accelbrake_sim::time::{Dur, Time};
use accelbrake_sim::{Scenario, Simulation};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::SimulationError;

/// Payload bytes per segment (the core's MSS), as `accelbrake.gym.MSS`.
const MSS: f64 = 1448.0;
/// Aurora's rate step (PCC-RL `delta_scale` · 0.025), as `accelbrake.gym.AURORA_DELTA`.
const AURORA_DELTA: f64 = 0.025;
/// Values per lane in the info array (see [`VecStepper::step`]).
pub const INFO_FIELDS: usize = 8;

/// The observation features of `accelbrake.gym.FEATURES`, with their clip ranges.
#[derive(Clone, Copy, Debug)]
enum Feature {
    LatencyGradient,
    LatencyRatio,
    SendingRatio,
    ThroughputNorm,
    Loss,
    WindowNorm,
    ThroughputMbps,
    LatencyMs,
}

impl Feature {
    fn parse(name: &str) -> Option<Feature> {
        Some(match name {
            "latency_gradient" => Feature::LatencyGradient,
            "latency_ratio" => Feature::LatencyRatio,
            "sending_ratio" => Feature::SendingRatio,
            "throughput_norm" => Feature::ThroughputNorm,
            "loss" => Feature::Loss,
            "window_norm" => Feature::WindowNorm,
            "throughput_mbps" => Feature::ThroughputMbps,
            "latency_ms" => Feature::LatencyMs,
            _ => return None,
        })
    }
    /// (low, high) of the observation space, as `FEATURES[name][1:]`.
    fn bounds(self) -> (f64, f64) {
        match self {
            Feature::LatencyGradient => (-10.0, 10.0),
            Feature::LatencyRatio => (0.0, 100.0),
            Feature::SendingRatio => (0.0, 1000.0),
            Feature::ThroughputNorm | Feature::Loss | Feature::WindowNorm => (0.0, 1.0),
            Feature::ThroughputMbps => (0.0, 1e5),
            Feature::LatencyMs => (0.0, 1e6),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Reward {
    Aurora,
    /// Orca's reward: ζ, β, and whether the released code's form is used instead of the paper's.
    Orca {
        zeta: f64,
        beta: f64,
        code: bool,
    },
}

/// What every lane shares: the preset's rules.
#[derive(Clone, Debug)]
struct Rules {
    mode: SteerMode,
    initial: f64,
    features: Vec<Feature>,
    history: usize,
    reward: Reward,
    action_scale: f64,
    rate_bounds: (f64, f64),
    mi: f64,
}

/// One MI of the agent's flow (`accelbrake.gym.MonitorInterval`, the fields the rules use).
struct Mi {
    duration: f64,
    sent: u64,
    acked: u64,
    lost: u64,
    rtt_count: u64,
    rtt_sum: f64,
    rtt_first: f64,
    rtt_last: f64,
    min_rtt: Option<f64>,
    window: f64,
    rate: Option<f64>,
    value: f64,
}

impl Mi {
    fn new(s: &SteerStats, now: Time, window: f64, rate: Option<f64>, value: f64) -> Mi {
        Mi {
            duration: (now.secs_f64() - s.since.secs_f64()).max(1e-9),
            sent: s.sent,
            acked: s.acked,
            lost: s.lost,
            rtt_count: s.rtt_count,
            rtt_sum: s.rtt_sum,
            rtt_first: s.rtt_first,
            rtt_last: s.rtt_last,
            min_rtt: s.min_rtt,
            window,
            rate,
            value,
        }
    }
    fn throughput(&self) -> f64 {
        (self.acked as f64 * MSS) / self.duration
    }
    fn latency(&self) -> Option<f64> {
        (self.rtt_count > 0).then(|| self.rtt_sum / self.rtt_count as f64)
    }
    fn loss(&self) -> f64 {
        if self.sent > 0 {
            (self.lost as f64 / self.sent as f64).min(1.0)
        } else {
            0.0
        }
    }
}

/// One environment: its simulation and the running state `CongestionEnv` keeps.
struct Lane {
    sim: Option<Simulation>,
    handle: Option<SteerHandle>,
    failure: Option<Arc<accelbrake_sim::cc::external::Failure>>,
    /// Whether a competing flow runs a Python controller (needs the GIL).
    python: bool,
    agent: usize,
    min_latency: f64,
    last_latency: f64,
    max_throughput: f64,
    max_window: f64,
    /// Fallback for the smallest latency before any RTT sample (`2·delay_ms` of the network).
    fallback_min_latency: f64,
    k: u64,
    t: f64,
    done: bool,
    /// `history` rows of features, oldest first.
    hist: Vec<f32>,
    reward: f64,
    info: [f64; INFO_FIELDS],
    /// A core error or panic message from the last advance, reported by the caller.
    error: Option<String>,
}

impl Lane {
    fn empty(rules: &Rules) -> Lane {
        Lane {
            sim: None,
            handle: None,
            failure: None,
            python: false,
            agent: 0,
            min_latency: f64::INFINITY,
            last_latency: 0.0,
            max_throughput: 0.0,
            max_window: 0.0,
            fallback_min_latency: 1e-3,
            k: 0,
            t: 0.0,
            done: true,
            hist: vec![0.0; rules.features.len() * rules.history],
            reward: 0.0,
            info: [0.0; INFO_FIELDS],
            error: None,
        }
    }

    /// `CongestionEnv.apply_action`.
    fn apply_action(&self, rules: &Rules, action: f64) -> f64 {
        let a = action.clamp(-1.0, 1.0) * rules.action_scale;
        match rules.mode {
            SteerMode::Rate => {
                let v = self.handle.as_ref().map_or(rules.initial, |h| h.value());
                let v = if a >= 0.0 {
                    v * (1.0 + AURORA_DELTA * a)
                } else {
                    v / (1.0 - AURORA_DELTA * a)
                };
                v.max(rules.rate_bounds.0).min(rules.rate_bounds.1)
            }
            _ => 2.0f64.powf(2.0 * a),
        }
    }

    /// `CongestionEnv._advance` and the reward of `CongestionEnv.step`: run one MI, update the
    /// running state, shift the history, compute the reward and the info values.
    fn advance(&mut self, rules: &Rules) {
        let (Some(sim), Some(handle)) = (self.sim.as_mut(), self.handle.as_ref()) else {
            self.error = Some("internal error: a lane without a simulation was stepped".into());
            return;
        };
        self.k += 1;
        let end = sim.end().secs_f64();
        self.t = (self.k as f64 * rules.mi).min(end);
        let until = Time(Dur::from_secs_f64(self.t.max(0.0)).0);
        let never = AtomicBool::new(false);
        let flag = self.failure.as_ref().map_or(&never, |f| &f.flag);
        let r = crate::guarded(|| sim.run_until_interruptible(until, flag).or(Ok(())));
        if let Some(msg) = self
            .failure
            .as_ref()
            .filter(|f| f.flag.load(Ordering::Relaxed))
            .and_then(|f| f.message())
        {
            self.error = Some(msg);
            return;
        }
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                self.error = Some(e.to_string());
                return;
            }
            Err(msg) => {
                self.error = Some(msg);
                return;
            }
        }
        self.done = sim.now() >= sim.end();
        let (window, rate) = match sim.sender(self.agent) {
            Some(s) => (s.cc.window(), s.cc.pacing_rate()),
            None => (0.0, None),
        };
        let now = sim.now();
        let stats = handle.take_interval(now);
        let mi = Mi::new(&stats, now, window, rate, handle.value());
        if let Some(m) = mi.min_rtt {
            self.min_latency = self.min_latency.min(m);
        } else if !self.min_latency.is_finite() {
            self.min_latency = self.fallback_min_latency;
        }
        let lat = mi.latency();
        if let Some(l) = lat {
            self.last_latency = l;
        } else if self.last_latency == 0.0 {
            self.last_latency = self.min_latency;
        }
        let thr = mi.throughput();
        self.max_throughput = self.max_throughput.max(thr);
        self.max_window = self.max_window.max(mi.window);
        let lat_or = lat.unwrap_or(self.last_latency);
        let nf = rules.features.len();
        self.hist.copy_within(nf.., 0);
        let row = self.hist.len() - nf;
        for (j, f) in rules.features.iter().enumerate() {
            let x = match f {
                Feature::LatencyGradient => {
                    if mi.rtt_count < 2 {
                        0.0
                    } else {
                        (mi.rtt_last - mi.rtt_first) / mi.duration
                    }
                }
                Feature::LatencyRatio => lat_or / self.min_latency,
                Feature::SendingRatio => {
                    if mi.sent > 0 {
                        mi.sent as f64 / mi.acked.max(1) as f64
                    } else {
                        1.0
                    }
                }
                Feature::ThroughputNorm => thr / self.max_throughput.max(1.0),
                Feature::Loss => mi.loss(),
                Feature::WindowNorm => mi.window / self.max_window.max(1.0),
                Feature::ThroughputMbps => thr * 8e-6,
                Feature::LatencyMs => lat_or * 1e3,
            };
            let (lo, hi) = f.bounds();
            // numpy.clip: NaN stays NaN.
            self.hist[row + j] = if x.is_nan() { f32::NAN } else { x.max(lo).min(hi) as f32 };
        }
        let reward = match rules.reward {
            Reward::Aurora => 10.0 * (mi.acked as f64 / mi.duration) - 1e3 * lat_or - 2e3 * mi.loss(),
            Reward::Orca { zeta, beta, code } => {
                let d_min = self.min_latency;
                let d = lat_or;
                let lost_rate = (mi.lost as f64 * MSS) / mi.duration;
                let norm = (thr - zeta * lost_rate) / self.max_throughput.max(1.0);
                if code {
                    norm * if beta * d_min < d { beta * d_min / d } else { 1.0 }
                } else {
                    norm * (d_min / if d <= beta * d_min { d_min } else { d })
                }
            }
        };
        self.reward = if reward.is_finite() { reward } else { 0.0 };
        self.info = [
            self.t,
            thr * 8e-6,
            (mi.sent as f64 * MSS) / mi.duration * 8e-6,
            lat.map_or(f64::NAN, |l| l * 1e3),
            mi.loss(),
            mi.window,
            match mi.rate {
                Some(r) if r != 0.0 => r * 8e-6,
                _ => f64::NAN,
            },
            mi.value,
        ];
    }

    /// Apply `action` and advance one MI (`CongestionEnv.step`).
    fn step(&mut self, rules: &Rules, action: f64) {
        let v = self.apply_action(rules, action);
        if let (Some(h), Some(sim)) = (self.handle.as_ref(), self.sim.as_mut()) {
            h.set_value(v);
            sim.wake_sender(self.agent);
        }
        self.advance(rules);
    }
}

/// What [`VecStepper::step`] returns: observations, rewards, episode-over flags and info values.
type StepOut<'py> = (
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
);

/// N steered simulations stepped together (`accelbrake.gym_vector.CongestionVectorEnv`).
#[pyclass(unsendable, module = "accelbrake._core")]
pub struct VecStepper {
    rules: Rules,
    lanes: Vec<Lane>,
    agent: String,
    inner: Option<String>,
    controllers: Option<Py<PyDict>>,
    /// The episode scenario every lane uses unless `reset_lane` is given another, parsed once.
    template: Box<Scenario>,
    threads: usize,
}

fn arg_error(msg: String) -> PyErr {
    SimulationError::new_err(msg)
}

/// The externals of one lane: the Python controllers (if any) and a fresh steered factory.
fn lane_externals(
    py: Python<'_>,
    rules: &Rules,
    agent: &str,
    inner: Option<&str>,
    controllers: Option<&Py<PyDict>>,
) -> PyResult<(Externals, Arc<SteerFactory>)> {
    let slot = Arc::default();
    let controllers = controllers.map(|c| c.bind(py).clone());
    let mut x = crate::external::externals(py, controllers.as_ref(), &slot)?;
    let f = Arc::new(crate::unguard(
        py,
        Ok(SteerFactory::new(rules.mode, rules.initial, inner)),
    )?);
    crate::unguard(py, Ok(x.insert(agent, f.clone())))?;
    Ok((x, f))
}

/// The index of the agent's flow (entries with `count` > 1 expanded).
fn agent_index(scenario: &Scenario, agent: &str) -> PyResult<usize> {
    let mut first = 0usize;
    let mut found = Vec::new();
    for fl in &scenario.flows {
        if fl.scheme == agent {
            found.extend(first..first + fl.count as usize);
        }
        first += fl.count as usize;
    }
    if found.len() != 1 {
        return Err(arg_error(format!(
            "scenario: expected exactly one flow with scheme '{agent}' (the agent's), found {}",
            found.len()
        )));
    }
    Ok(found[0])
}

impl VecStepper {
    fn mode(name: &str) -> PyResult<SteerMode> {
        match name {
            "rate" => Ok(SteerMode::Rate),
            "window" => Ok(SteerMode::Window),
            "scale" => Ok(SteerMode::Scale),
            other => Err(arg_error(format!(
                "mode: expected 'rate', 'window' or 'scale', got '{other}'"
            ))),
        }
    }

    fn check_lane(&self, i: usize) -> PyResult<()> {
        if i >= self.lanes.len() {
            return Err(arg_error(format!(
                "lane: expected an index below {}, got {i}",
                self.lanes.len()
            )));
        }
        Ok(())
    }

    fn take_error(&mut self) -> PyResult<()> {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            if let Some(msg) = lane.error.take() {
                lane.sim = None;
                lane.done = true;
                return Err(arg_error(format!("environment {i}: {msg}")));
            }
        }
        Ok(())
    }
}

fn read_f64s(b: &[u8], n: usize, what: &str) -> PyResult<Vec<f64>> {
    if b.len() != 8 * n {
        return Err(arg_error(format!(
            "{what}: expected {n} float64 values ({} bytes), got {} bytes",
            8 * n,
            b.len()
        )));
    }
    Ok(b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

#[pymethods]
impl VecStepper {
    /// `n` lanes over the scenario `scenario_json` (its flow with scheme `agent` is steered).
    /// `features` are names of `accelbrake.gym.FEATURES`; `reward` is `"aurora"` or `"orca"`
    /// with `reward_params` (`zeta`, `beta`, `form`), already checked by the Python side.
    #[new]
    #[pyo3(signature = (n, scenario_json, agent, mode, initial, inner, features, history, reward, reward_params, action_scale, rate_bounds, mi, controllers=None, threads=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: usize,
        scenario_json: &str,
        agent: &str,
        mode: &str,
        initial: f64,
        inner: Option<&str>,
        features: Vec<String>,
        history: usize,
        reward: &str,
        reward_params: &Bound<'_, PyDict>,
        action_scale: f64,
        rate_bounds: (f64, f64),
        mi: f64,
        controllers: Option<&Bound<'_, PyDict>>,
        threads: usize,
    ) -> PyResult<VecStepper> {
        if n == 0 {
            return Err(arg_error("num_envs: expected at least 1 environment".into()));
        }
        if history == 0 {
            return Err(arg_error("history: expected ≥ 1".into()));
        }
        if !(mi.is_finite() && mi > 0.0) {
            return Err(arg_error(format!("mi: expected a duration > 0 s, got {mi}")));
        }
        let features = features
            .iter()
            .map(|f| Feature::parse(f).ok_or_else(|| arg_error(format!("features: unknown '{f}'"))))
            .collect::<PyResult<Vec<_>>>()?;
        if features.is_empty() {
            return Err(arg_error("features: expected at least one".into()));
        }
        let num = |k: &str, d: f64| -> PyResult<f64> {
            Ok(match reward_params.get_item(k)? {
                Some(v) => v.extract()?,
                None => d,
            })
        };
        let reward = match reward {
            "aurora" => Reward::Aurora,
            "orca" => {
                let form: String = match reward_params.get_item("form")? {
                    Some(v) => v.extract()?,
                    None => "paper".into(),
                };
                Reward::Orca {
                    zeta: num("zeta", 5.0)?,
                    beta: num("beta", 1.25)?,
                    code: form == "code",
                }
            }
            other => {
                return Err(arg_error(format!(
                    "reward: the batch stepper computes 'aurora' or 'orca', got '{other}'"
                )))
            }
        };
        let rules = Rules {
            mode: Self::mode(mode)?,
            initial,
            features,
            history,
            reward,
            action_scale,
            rate_bounds,
            mi,
        };
        let controllers = controllers.filter(|d| !d.is_empty()).map(|d| d.clone().unbind());
        let (x, _) = lane_externals(py, &rules, agent, inner, controllers.as_ref())?;
        let template = crate::unguard(py, crate::guarded(|| Scenario::from_json_with(scenario_json, Some(&x))))?;
        agent_index(&template, agent)?;
        Ok(VecStepper {
            lanes: (0..n).map(|_| Lane::empty(&rules)).collect(),
            rules,
            agent: agent.to_string(),
            inner: inner.map(str::to_string),
            controllers,
            template: Box::new(template),
            threads: threads.max(1),
        })
    }

    /// Number of lanes.
    #[getter]
    fn num_envs(&self) -> usize {
        self.lanes.len()
    }

    /// Observation values per lane (`len(features) · history`).
    #[getter]
    fn obs_size(&self) -> usize {
        self.rules.features.len() * self.rules.history
    }

    /// Start a new episode in lane `i`: the template scenario with `seed` (or `scenario_json`
    /// instead, e.g. with randomised link parameters), run to the end of the first MI
    /// (`CongestionEnv.reset`). `fallback_min_latency` (s) stands for the smallest latency until
    /// an RTT sample arrives.
    /// Returns the lane's first observation (float32 bytes) and info values (float64 bytes).
    #[pyo3(signature = (i, seed, fallback_min_latency, scenario_json=None))]
    fn reset_lane<'py>(
        &mut self,
        py: Python<'py>,
        i: usize,
        seed: u64,
        fallback_min_latency: f64,
        scenario_json: Option<&str>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        self.check_lane(i)?;
        let (x, f) = lane_externals(
            py,
            &self.rules,
            &self.agent,
            self.inner.as_deref(),
            self.controllers.as_ref(),
        )?;
        let mut sc = match scenario_json {
            Some(js) => crate::unguard(py, crate::guarded(|| Scenario::from_json_with(js, Some(&x))))?,
            None => (*self.template).clone(),
        };
        sc.seed = seed;
        let agent = agent_index(&sc, &self.agent)?;
        let sim = crate::unguard(py, crate::guarded(|| Simulation::with_externals(&sc, Some(&x))))?;
        let handle = f
            .handle()
            .ok_or_else(|| arg_error("internal error: the agent's controller was not built".into()))?;
        let python = self.controllers.is_some();
        let lane = &mut self.lanes[i];
        *lane = Lane::empty(&self.rules);
        lane.sim = Some(sim);
        lane.handle = Some(handle);
        lane.failure = Some(x.failure.clone());
        lane.python = python;
        lane.agent = agent;
        lane.fallback_min_latency = fallback_min_latency;
        lane.done = false;
        lane.advance(&self.rules);
        self.take_error()?;
        let lane = &self.lanes[i];
        let obs: Vec<u8> = lane.hist.iter().flat_map(|x| x.to_le_bytes()).collect();
        let info: Vec<u8> = lane.info.iter().flat_map(|x| x.to_le_bytes()).collect();
        Ok((PyBytes::new(py, &obs), PyBytes::new(py, &info)))
    }

    /// Step every lane whose `mask` byte is 1 with its action (float64 bytes, one per lane) and
    /// write every lane's observation (float32), reward (float64), episode-over flag (uint8) and
    /// info values (float64, [`INFO_FIELDS`] per lane: time_s, throughput_mbps, send_mbps,
    /// latency_ms, loss, cwnd, pacing_mbps, value; NaN for none) into fresh `bytearray`s.
    /// Lanes not stepped report their current observation with reward 0.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyBytes>,
        mask: &Bound<'py, PyBytes>,
    ) -> PyResult<StepOut<'py>> {
        let n = self.lanes.len();
        let acts = read_f64s(actions.as_bytes(), n, "actions")?;
        let mask = mask.as_bytes();
        if mask.len() != n {
            return Err(arg_error(format!("mask: expected {n} bytes, got {}", mask.len())));
        }
        for (i, (lane, &m)) in self.lanes.iter().zip(mask).enumerate() {
            if m != 0 && (lane.sim.is_none() || lane.done) {
                return Err(arg_error(format!(
                    "environment {i}: the episode is over or not started; reset it first"
                )));
            }
        }
        let rules = &self.rules;
        let python = self.lanes.iter().any(|l| l.python);
        let work = |lanes: &mut [Lane], acts: &[f64], mask: &[u8]| {
            for ((lane, &a), &m) in lanes.iter_mut().zip(acts).zip(mask) {
                if m != 0 {
                    lane.step(rules, a);
                } else {
                    lane.reward = 0.0;
                }
            }
        };
        if python || self.threads == 1 || n == 1 {
            work(&mut self.lanes, &acts, mask);
        } else {
            let chunk = n.div_ceil(self.threads.min(n));
            let lanes = &mut self.lanes;
            py.detach(|| {
                std::thread::scope(|s| {
                    let mut parts = lanes.chunks_mut(chunk).zip(acts.chunks(chunk)).zip(mask.chunks(chunk));
                    // The calling thread steps the first part itself: one thread fewer to start.
                    let first = parts.next();
                    for ((l, a), m) in parts {
                        s.spawn(move || work(l, a, m));
                    }
                    if let Some(((l, a), m)) = first {
                        work(l, a, m);
                    }
                });
            });
        }
        self.take_error()?;
        let obs_n = self.rules.features.len() * self.rules.history;
        let obs = PyByteArray::new_with(py, n * obs_n * 4, |buf| {
            for (lane, out) in self.lanes.iter().zip(buf.chunks_exact_mut(obs_n * 4)) {
                for (x, o) in lane.hist.iter().zip(out.chunks_exact_mut(4)) {
                    o.copy_from_slice(&x.to_le_bytes());
                }
            }
            Ok(())
        })?;
        let rew = PyByteArray::new_with(py, n * 8, |buf| {
            for (lane, o) in self.lanes.iter().zip(buf.chunks_exact_mut(8)) {
                o.copy_from_slice(&lane.reward.to_le_bytes());
            }
            Ok(())
        })?;
        let done = PyByteArray::new_with(py, n, |buf| {
            for (lane, o) in self.lanes.iter().zip(buf.iter_mut()) {
                *o = u8::from(lane.done);
            }
            Ok(())
        })?;
        let info = PyByteArray::new_with(py, n * INFO_FIELDS * 8, |buf| {
            for (lane, out) in self.lanes.iter().zip(buf.chunks_exact_mut(INFO_FIELDS * 8)) {
                for (x, o) in lane.info.iter().zip(out.chunks_exact_mut(8)) {
                    o.copy_from_slice(&x.to_le_bytes());
                }
            }
            Ok(())
        })?;
        Ok((obs, rew, done, info))
    }

    /// Summary and tables of lane `i`'s episode so far, as `simulate` returns them.
    fn result(&mut self, py: Python<'_>, i: usize) -> PyResult<Py<PyDict>> {
        self.check_lane(i)?;
        match self.lanes[i].sim.as_mut() {
            Some(sim) => {
                let r = sim.result();
                crate::result_to_py(py, &r)
            }
            None => Err(arg_error(format!(
                "environment {i}: no episode to report; reset it first"
            ))),
        }
    }
}
