//! Python controllers and steered runs: the PyO3 side of `accelbrake_sim::cc::external`.
//!
//! A Python controller arrives as a *spec* object (built by `accelbrake.controllers`) with
//! `check(params)`, `build(params, flow, seed, stream)` and `hooks` (the callbacks the class
//! overrides). [`PyCallbacks`] calls the instance's bound methods and reads back `cwnd`,
//! `pacing_rate` and `ssthresh` after each call. The first exception is kept (so it can be
//! chained or, for `KeyboardInterrupt`, re-raised as is) and reported as `ControllerError` naming
//! the controller, the flow and the callback.
//!
//! Runs with Python controllers run on the calling thread with the GIL held (each callback needs
//! it); Ctrl-C then surfaces as a `KeyboardInterrupt` inside a callback, which is re-raised.

use accelbrake_sim::cc::external::{
    BuildInfo, Call, Callbacks, External, ExternalFactory, ExternalQueueFactory, Externals, Failure, Output,
    SteerFactory, SteerHandle, SteerMode, SteerStats,
};
use accelbrake_sim::cc::{AckInfo, CongestionControl, CongestionKind};
use accelbrake_sim::packet::{Ecn, Packet};
use accelbrake_sim::params::{Given, Value};
use accelbrake_sim::queue::external::{ExternalQueue, QueueCallbacks, Verdict};
use accelbrake_sim::queue::{Limit, LinkInfo, Queue};
use accelbrake_sim::time::Time;
use accelbrake_sim::{Error, Scenario, Simulation};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::{create_exception, intern};
use std::sync::{Arc, Mutex};

use crate::SimulationError;

create_exception!(
    accelbrake._core,
    ControllerError,
    SimulationError,
    "A Python controller raised an exception or returned an invalid window or rate."
);

/// The first Python exception raised by a controller of a run.
type Slot = Arc<Mutex<Option<PyErr>>>;

/// What a controller sees on each ACK (`accelbrake.Ack`). Times are integer nanoseconds
/// (`*_ns`, exact) with float-second views (`rtt`, `min_rtt`, `srtt`, `one_way_delay`).
#[pyclass(frozen, module = "accelbrake._core", name = "Ack")]
pub struct Ack {
    /// Segments newly delivered (cumulatively ACKed or SACKed); 0 for a duplicate ACK.
    #[pyo3(get)]
    acked: u32,
    /// Echoed mark: "none", "accelerate", "brake" or "ce".
    #[pyo3(get)]
    echo: &'static str,
    /// RTT sample (ns), if any.
    #[pyo3(get)]
    rtt_ns: Option<u64>,
    /// Smallest RTT sample so far (ns).
    #[pyo3(get)]
    min_rtt_ns: Option<u64>,
    /// Smoothed RTT (ns).
    #[pyo3(get)]
    srtt_ns: Option<u64>,
    /// Segments in flight after this ACK.
    #[pyo3(get)]
    in_flight: u32,
    /// Whether the sender used its whole window at the last opportunity.
    #[pyo3(get)]
    cwnd_limited: bool,
    /// Whether the connection is in loss recovery.
    #[pyo3(get)]
    in_recovery: bool,
    /// Segments newly marked lost.
    #[pyo3(get)]
    lost: u32,
    /// Segments delivered so far.
    #[pyo3(get)]
    delivered: u64,
    /// Lowest unacknowledged segment.
    #[pyo3(get)]
    snd_una: u32,
    /// Next new segment.
    #[pyo3(get)]
    snd_nxt: u32,
    /// Delivery-rate sample (bytes/s), if valid.
    #[pyo3(get)]
    delivery_rate: Option<f64>,
    /// The sample's segment was sent while application-limited.
    #[pyo3(get)]
    app_limited: bool,
    /// One-way delay of the segment that triggered the ACK (ns).
    #[pyo3(get)]
    one_way_delay_ns: Option<u64>,
}

fn secs(ns: Option<u64>) -> Option<f64> {
    ns.map(|n| n as f64 * 1e-9)
}

#[pymethods]
impl Ack {
    /// RTT sample, seconds.
    #[getter]
    fn rtt(&self) -> Option<f64> {
        secs(self.rtt_ns)
    }
    /// Smallest RTT so far, seconds.
    #[getter]
    fn min_rtt(&self) -> Option<f64> {
        secs(self.min_rtt_ns)
    }
    /// Smoothed RTT, seconds.
    #[getter]
    fn srtt(&self) -> Option<f64> {
        secs(self.srtt_ns)
    }
    /// One-way delay, seconds.
    #[getter]
    fn one_way_delay(&self) -> Option<f64> {
        secs(self.one_way_delay_ns)
    }
    fn __repr__(&self) -> String {
        format!(
            "Ack(acked={}, rtt_ns={:?}, in_flight={}, lost={}, echo='{}', in_recovery={})",
            self.acked, self.rtt_ns, self.in_flight, self.lost, self.echo, self.in_recovery
        )
    }
}

impl From<&AckInfo> for Ack {
    fn from(a: &AckInfo) -> Ack {
        use accelbrake_sim::packet::Echo;
        Ack {
            acked: a.acked,
            echo: match a.echo {
                Echo::None => "none",
                Echo::Accelerate => "accelerate",
                Echo::Brake => "brake",
                Echo::Ce => "ce",
            },
            rtt_ns: a.rtt.map(|d| d.0),
            min_rtt_ns: a.min_rtt.map(|d| d.0),
            srtt_ns: a.srtt.map(|d| d.0),
            in_flight: a.in_flight,
            cwnd_limited: a.cwnd_limited,
            in_recovery: a.in_recovery,
            lost: a.lost,
            delivered: a.delivered,
            snd_una: a.snd_una,
            snd_nxt: a.snd_nxt,
            delivery_rate: a.rate.map(|r| r.delivery_rate),
            app_limited: a.rate.is_some_and(|r| r.is_app_limited),
            one_way_delay_ns: a.one_way_delay.map(|d| d.0),
        }
    }
}

/// One flow's Python controller instance and its overridden callbacks (bound methods).
struct PyCallbacks {
    obj: Py<PyAny>,
    on_sent: Option<Py<PyAny>>,
    on_ack: Option<Py<PyAny>>,
    on_congestion_event: Option<Py<PyAny>>,
    on_recovery_exit: Option<Py<PyAny>>,
    on_rto: Option<Py<PyAny>>,
    on_spurious_rto: Option<Py<PyAny>>,
    slot: Slot,
}

fn read_output(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Output> {
    let _ = py;
    let window: f64 = obj.getattr(intern!(py, "cwnd"))?.extract()?;
    let pacing_rate: Option<f64> = obj.getattr(intern!(py, "pacing_rate"))?.extract()?;
    let ssthresh: Option<f64> = obj.getattr(intern!(py, "ssthresh"))?.extract()?;
    Ok(Output {
        window,
        pacing_rate,
        ssthresh,
    })
}

fn describe(py: Python<'_>, e: &PyErr) -> String {
    let ty = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    format!("{ty}: {}", e.value(py))
}

impl Callbacks for PyCallbacks {
    fn call(&mut self, now: Time, call: Call<'_>) -> Result<Output, String> {
        Python::attach(|py| {
            let t = now.0;
            let r: PyResult<()> = (|| {
                match call {
                    Call::Ack(a) => {
                        if let Some(m) = &self.on_ack {
                            m.call1(py, (t, Ack::from(a)))?;
                        }
                    }
                    Call::Sent { in_flight } => {
                        if let Some(m) = &self.on_sent {
                            m.call1(py, (t, in_flight))?;
                        }
                    }
                    Call::Congestion { kind, in_flight } => {
                        if let Some(m) = &self.on_congestion_event {
                            let k = match kind {
                                CongestionKind::Loss => "loss",
                                CongestionKind::Ecn => "ecn",
                            };
                            m.call1(py, (t, k, in_flight))?;
                        }
                    }
                    Call::RecoveryExit => {
                        if let Some(m) = &self.on_recovery_exit {
                            m.call1(py, (t,))?;
                        }
                    }
                    Call::Rto { in_flight } => {
                        if let Some(m) = &self.on_rto {
                            m.call1(py, (t, in_flight))?;
                        }
                    }
                    Call::SpuriousRto => {
                        if let Some(m) = &self.on_spurious_rto {
                            m.call1(py, (t,))?;
                        }
                    }
                }
                Ok(())
            })();
            match r.and_then(|()| read_output(py, self.obj.bind(py))) {
                Ok(o) => Ok(o),
                Err(e) => {
                    let msg = describe(py, &e);
                    let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.is_none() {
                        *slot = Some(e);
                    }
                    Err(msg)
                }
            }
        })
    }
    fn wants_sent(&self) -> bool {
        self.on_sent.is_some()
    }
}

/// A Python controller class behind its spec object.
struct PyFactory {
    name: String,
    spec: Py<PyAny>,
    slot: Slot,
}

fn given_to_dict<'py>(py: Python<'py>, params: &Given) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in params {
        match v {
            Value::Flag(b) => d.set_item(k, *b)?,
            Value::Num(x) => d.set_item(k, *x)?,
            Value::Word(s) => d.set_item(k, s)?,
        }
    }
    Ok(d)
}

impl PyFactory {
    fn param_error(&self, py: Python<'_>, e: &PyErr) -> Error {
        let key = e
            .value(py)
            .getattr("key")
            .ok()
            .and_then(|k| k.extract::<Option<String>>().ok().flatten());
        Error::Param {
            key: match key {
                Some(k) => format!("{}.{k}", self.name),
                None => self.name.clone(),
            },
            msg: e.value(py).to_string(),
        }
    }
}

impl ExternalFactory for PyFactory {
    fn check(&self, params: &Given) -> accelbrake_sim::Result<()> {
        Python::attach(|py| {
            let d = given_to_dict(py, params).map_err(|e| self.param_error(py, &e))?;
            self.spec
                .call_method1(py, "check", (d,))
                .map_err(|e| self.param_error(py, &e))?;
            Ok(())
        })
    }

    fn build(&self, info: BuildInfo<'_>, failure: &Arc<Failure>) -> accelbrake_sim::Result<Box<dyn CongestionControl>> {
        Python::attach(|py| {
            let built = (|| -> PyResult<(PyCallbacks, Output)> {
                let d = given_to_dict(py, info.params)?;
                let obj = self
                    .spec
                    .call_method1(py, "build", (d, info.flow, info.seed, info.stream))?;
                let hooks: Vec<String> = self.spec.getattr(py, "hooks")?.extract(py)?;
                let bound = obj.bind(py);
                let get = |name: &str| -> PyResult<Option<Py<PyAny>>> {
                    Ok(if hooks.iter().any(|h| h == name) {
                        Some(bound.getattr(name)?.unbind())
                    } else {
                        None
                    })
                };
                let cb = PyCallbacks {
                    on_sent: get("on_sent")?,
                    on_ack: get("on_ack")?,
                    on_congestion_event: get("on_congestion_event")?,
                    on_recovery_exit: get("on_recovery_exit")?,
                    on_rto: get("on_rto")?,
                    on_spurious_rto: get("on_spurious_rto")?,
                    obj: obj.clone_ref(py),
                    slot: self.slot.clone(),
                };
                let init = read_output(py, bound)?;
                Ok((cb, init))
            })();
            match built {
                Ok((cb, init)) => {
                    let e = External::new(&self.name, info.flow, Box::new(cb), init, failure.clone());
                    Ok(Box::new(e) as Box<dyn CongestionControl>)
                }
                Err(e) => Err(Error::Param {
                    key: self.name.clone(),
                    msg: format!("building the controller failed: {}", describe(py, &e)),
                }),
            }
        })
    }
}

/// What a Python queue sees of a packet (`accelbrake.QueuePacket`, read-only).
#[pyclass(frozen, module = "accelbrake._core", name = "QueuePacket")]
pub struct QueuePacket {
    /// Flow index.
    #[pyo3(get)]
    flow: u32,
    /// Data: segment number; ACK: cumulative ACK.
    #[pyo3(get)]
    seq: u32,
    /// Size on the wire (IP bytes).
    #[pyo3(get)]
    size: u32,
    /// Whether it is a pure ACK.
    #[pyo3(get)]
    is_ack: bool,
    /// ECN codepoint: "not-ect", "ect1" (ABC accelerate), "ect0" (ABC brake), "ce".
    #[pyo3(get)]
    ecn: &'static str,
    /// Time in this queue so far (ns; 0 on enqueue).
    #[pyo3(get)]
    sojourn_ns: u64,
}

#[pymethods]
impl QueuePacket {
    fn __repr__(&self) -> String {
        format!(
            "QueuePacket(flow={}, seq={}, size={}, is_ack={}, ecn='{}', sojourn_ns={})",
            self.flow, self.seq, self.size, self.is_ack, self.ecn, self.sojourn_ns
        )
    }
}

fn queue_packet(p: &Packet, now: Time) -> QueuePacket {
    QueuePacket {
        flow: p.flow,
        seq: p.seq,
        size: p.size,
        is_ack: p.kind == accelbrake_sim::packet::Kind::Ack,
        ecn: match p.ecn {
            Ecn::NotEct => "not-ect",
            Ecn::Ect1 => "ect1",
            Ecn::Ect0 => "ect0",
            Ecn::Ce => "ce",
        },
        sojourn_ns: now.0.saturating_sub(p.enqueued_at.0),
    }
}

fn verdict(v: &Bound<'_, PyAny>) -> PyResult<Verdict> {
    if v.is_none() {
        return Ok(Verdict::Pass);
    }
    let s: String = v.extract().map_err(|_| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "expected None or one of 'pass', 'drop', 'mark', 'brake', 'accelerate', got {v}"
        ))
    })?;
    Ok(match s.as_str() {
        "pass" => Verdict::Pass,
        "drop" => Verdict::Drop,
        "mark" | "ce" => Verdict::Mark(Ecn::Ce),
        "brake" => Verdict::Mark(Ecn::BRAKE),
        "accelerate" => Verdict::Mark(Ecn::ACCELERATE),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "expected None or one of 'pass', 'drop', 'mark', 'brake', 'accelerate', got '{other}'"
            )))
        }
    })
}

/// One hop's Python queue instance.
struct PyQueueCallbacks {
    on_enqueue: Option<Py<PyAny>>,
    on_dequeue: Option<Py<PyAny>>,
    slot: Slot,
}

impl PyQueueCallbacks {
    fn decide(
        &self,
        m: &Py<PyAny>,
        args: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyTuple>>,
    ) -> Result<Verdict, String> {
        Python::attach(|py| {
            let r = args(py).and_then(|a| m.bind(py).call1(a)).and_then(|v| verdict(&v));
            r.map_err(|e| {
                let msg = describe(py, &e);
                let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
                if slot.is_none() {
                    *slot = Some(e);
                }
                msg
            })
        })
    }
}

/// The arguments of a Python queue's `on_enqueue`/`on_dequeue`: `(now_ns, packet, len_packets,
/// len_bytes)`.
fn queue_args<'py>(
    py: Python<'py>,
    now: Time,
    pkt: &Packet,
    len_packets: usize,
    len_bytes: u64,
) -> PyResult<Bound<'py, PyTuple>> {
    let p = Py::new(py, queue_packet(pkt, now))?;
    PyTuple::new(
        py,
        [
            now.0.into_pyobject(py)?.into_any(),
            p.into_bound(py).into_any(),
            len_packets.into_pyobject(py)?.into_any(),
            len_bytes.into_pyobject(py)?.into_any(),
        ],
    )
}

impl QueueCallbacks for PyQueueCallbacks {
    fn on_enqueue(&mut self, now: Time, pkt: &Packet, len_packets: usize, len_bytes: u64) -> Result<Verdict, String> {
        let Some(m) = &self.on_enqueue else {
            return Ok(Verdict::Pass);
        };
        self.decide(m, |py| queue_args(py, now, pkt, len_packets, len_bytes))
    }
    fn on_dequeue(
        &mut self,
        now: Time,
        pkt: &Packet,
        len_packets: usize,
        len_bytes: u64,
        _link: LinkInfo,
    ) -> Result<Verdict, String> {
        let Some(m) = &self.on_dequeue else {
            return Ok(Verdict::Pass);
        };
        self.decide(m, |py| queue_args(py, now, pkt, len_packets, len_bytes))
    }
    fn wants_enqueue(&self) -> bool {
        self.on_enqueue.is_some()
    }
    fn wants_dequeue(&self) -> bool {
        self.on_dequeue.is_some()
    }
}

/// A Python queue class behind its spec object (`check(params)`, `build(params, hop, seed)` →
/// `(instance, packets, bytes)`, `hooks`).
struct PyQueueFactory {
    name: String,
    spec: Py<PyAny>,
    slot: Slot,
}

impl PyQueueFactory {
    fn param_error(&self, py: Python<'_>, e: &PyErr) -> Error {
        PyFactory {
            name: self.name.clone(),
            spec: self.spec.clone_ref(py),
            slot: self.slot.clone(),
        }
        .param_error(py, e)
    }
}

impl ExternalQueueFactory for PyQueueFactory {
    fn check(&self, params: &Given) -> accelbrake_sim::Result<()> {
        Python::attach(|py| {
            let d = given_to_dict(py, params).map_err(|e| self.param_error(py, &e))?;
            self.spec
                .call_method1(py, "check", (d,))
                .map_err(|e| self.param_error(py, &e))?;
            Ok(())
        })
    }

    fn build(
        &self,
        hop: usize,
        params: &Given,
        seed: u64,
        failure: &Arc<Failure>,
    ) -> accelbrake_sim::Result<Box<dyn Queue>> {
        Python::attach(|py| {
            let built = (|| -> PyResult<(PyQueueCallbacks, Limit)> {
                let d = given_to_dict(py, params)?;
                let (obj, packets, bytes): (Py<PyAny>, Option<u64>, Option<u64>) =
                    self.spec.call_method1(py, "build", (d, hop, seed))?.extract(py)?;
                let hooks: Vec<String> = self.spec.getattr(py, "hooks")?.extract(py)?;
                let bound = obj.bind(py);
                let get = |name: &str| -> PyResult<Option<Py<PyAny>>> {
                    Ok(if hooks.iter().any(|h| h == name) {
                        Some(bound.getattr(name)?.unbind())
                    } else {
                        None
                    })
                };
                let limit = match (bytes, packets) {
                    (Some(b), _) => Limit::Bytes(b),
                    (None, Some(p)) => Limit::Packets(p),
                    (None, None) => Limit::Infinite,
                };
                Ok((
                    PyQueueCallbacks {
                        on_enqueue: get("on_enqueue")?,
                        on_dequeue: get("on_dequeue")?,
                        slot: self.slot.clone(),
                    },
                    limit,
                ))
            })();
            match built {
                Ok((cb, limit)) => Ok(Box::new(ExternalQueue::new(
                    &self.name,
                    hop,
                    limit,
                    Box::new(cb),
                    failure.clone(),
                )) as Box<dyn Queue>),
                Err(e) => Err(Error::Param {
                    key: format!("hops[{hop}].queue"),
                    msg: format!("building queue '{}' failed: {}", self.name, describe(py, &e)),
                }),
            }
        })
    }
}

/// Externals from `{name: spec}` (controller specs, and queue specs with `kind == "queue"`).
pub fn externals(py: Python<'_>, controllers: Option<&Bound<'_, PyDict>>, slot: &Slot) -> PyResult<Externals> {
    let mut x = Externals::new();
    if let Some(d) = controllers {
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let is_queue = v
                .getattr("kind")
                .ok()
                .and_then(|k| k.extract::<String>().ok())
                .is_some_and(|k| k == "queue");
            if is_queue {
                let f = PyQueueFactory {
                    name: name.clone(),
                    spec: v.unbind(),
                    slot: slot.clone(),
                };
                x.insert_queue(&name, Arc::new(f)).map_err(|e| crate::to_py(py, e))?;
                continue;
            }
            let f = PyFactory {
                name: name.clone(),
                spec: v.unbind(),
                slot: slot.clone(),
            };
            x.insert(&name, Arc::new(f)).map_err(|e| crate::to_py(py, e))?;
        }
    }
    Ok(x)
}

/// The error of a failed run: the controller's exception (KeyboardInterrupt as is), else the
/// core error.
fn failure_error(py: Python<'_>, x: &Externals, slot: &Slot) -> Option<PyErr> {
    let msg = x.failure.message()?;
    let cause = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(c) = &cause {
        if c.is_instance_of::<PyKeyboardInterrupt>(py) {
            return cause;
        }
    }
    let err = ControllerError::new_err(msg.clone());
    let v = err.value(py);
    // "controller 'NAME' (flow F) failed in HOOK: ..."
    let name = msg.split('\'').nth(1).map(str::to_string);
    let what = if msg.starts_with("queue ") {
        "queue"
    } else {
        "controller"
    };
    let hook = msg
        .split(" failed in ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .map(str::to_string);
    let _ = v.setattr("kind", what);
    let _ = v.setattr("key", py.None());
    let _ = v.setattr("path", py.None());
    let _ = v.setattr("line", py.None());
    let _ = v.setattr("controller", name);
    let _ = v.setattr("callback", hook);
    if let Some(c) = cause {
        err.set_cause(py, Some(c));
    }
    Some(err)
}

/// Run a scenario with Python controllers on this thread (GIL held).
pub fn simulate_with(
    py: Python<'_>,
    scenario_json: &str,
    controllers: &Bound<'_, PyDict>,
) -> PyResult<accelbrake_sim::SimResult> {
    let slot: Slot = Arc::default();
    let x = externals(py, Some(controllers), &slot)?;
    let scenario = crate::unguard(py, crate::guarded(|| Scenario::from_json_with(scenario_json, Some(&x))))?;
    let mut sim = crate::unguard(py, crate::guarded(|| Simulation::with_externals(&scenario, Some(&x))))?;
    let end = sim.end();
    let r = crate::guarded(|| {
        // Interrupted here means a controller failed: reported below.
        let _ = sim.run_until_interruptible(end, &x.failure.flag);
        Ok(())
    });
    crate::unguard(py, r)?;
    if let Some(e) = failure_error(py, &x, &slot) {
        return Err(e);
    }
    Ok(sim.result())
}

/// Check a scenario with Python controllers.
pub fn validate_with(py: Python<'_>, scenario_json: &str, controllers: &Bound<'_, PyDict>) -> PyResult<()> {
    let slot: Slot = Arc::default();
    let x = externals(py, Some(controllers), &slot)?;
    crate::unguard(py, crate::guarded(|| Scenario::from_json_with(scenario_json, Some(&x))))?;
    Ok(())
}

fn stats_dict<'py>(py: Python<'py>, s: &SteerStats, now: Time) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("start", s.since.secs_f64())?;
    d.set_item("end", now.secs_f64())?;
    d.set_item("sent", s.sent)?;
    d.set_item("acked", s.acked)?;
    d.set_item("lost", s.lost)?;
    d.set_item("rtt_count", s.rtt_count)?;
    d.set_item("rtt_sum", s.rtt_sum)?;
    d.set_item("rtt_min", s.rtt_min)?;
    d.set_item("rtt_max", s.rtt_max)?;
    d.set_item("rtt_first", s.rtt_first)?;
    d.set_item("rtt_last", s.rtt_last)?;
    d.set_item("t_sum", s.t_sum)?;
    d.set_item("t2_sum", s.t2_sum)?;
    d.set_item("t_rtt_sum", s.t_rtt_sum)?;
    d.set_item("marked_acks", s.marked_acks)?;
    d.set_item("congestion_events", s.congestion_events)?;
    d.set_item("rtos", s.rtos)?;
    d.set_item("min_rtt", s.min_rtt)?;
    d.set_item("srtt", s.srtt)?;
    d.set_item("in_flight", s.in_flight)?;
    Ok(d)
}

/// A simulation run step by step, with one flow steered from Python (`accelbrake.gym`): the
/// flow whose scheme is `agent` gets a steered controller (mode `rate`: pacing rate in bytes/s;
/// `window`: window in segments; `scale`: a factor on the window of the built-in `inner`).
#[pyclass(unsendable, module = "accelbrake._core")]
pub struct Stepper {
    sim: Simulation,
    x: Externals,
    slot: Slot,
    handle: SteerHandle,
    agent: usize,
}

#[pymethods]
impl Stepper {
    #[new]
    #[pyo3(signature = (scenario_json, agent, mode, initial, inner=None, controllers=None))]
    fn new(
        py: Python<'_>,
        scenario_json: &str,
        agent: &str,
        mode: &str,
        initial: f64,
        inner: Option<&str>,
        controllers: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Stepper> {
        let slot: Slot = Arc::default();
        let mut x = externals(py, controllers, &slot)?;
        let mode = match mode {
            "rate" => SteerMode::Rate,
            "window" => SteerMode::Window,
            "scale" => SteerMode::Scale,
            other => {
                return Err(SimulationError::new_err(format!(
                    "mode: expected 'rate', 'window' or 'scale', got '{other}'"
                )))
            }
        };
        let f = Arc::new(crate::unguard(py, Ok(SteerFactory::new(mode, initial, inner)))?);
        crate::unguard(py, Ok(x.insert(agent, f.clone())))?;
        let scenario = crate::unguard(py, crate::guarded(|| Scenario::from_json_with(scenario_json, Some(&x))))?;
        let agents: Vec<usize> = scenario
            .flows
            .iter()
            .scan(0usize, |i, fl| {
                let first = *i;
                *i += fl.count as usize;
                Some((first, fl))
            })
            .filter(|(_, fl)| fl.scheme == agent)
            .flat_map(|(i, fl)| (i..i + fl.count as usize).collect::<Vec<_>>())
            .collect();
        if agents.len() != 1 {
            return Err(SimulationError::new_err(format!(
                "scenario: expected exactly one flow with scheme '{agent}' (the agent's), found {}",
                agents.len()
            )));
        }
        let sim = crate::unguard(py, crate::guarded(|| Simulation::with_externals(&scenario, Some(&x))))?;
        let handle = f
            .handle()
            .ok_or_else(|| SimulationError::new_err("internal error: the agent's controller was not built"))?;
        Ok(Stepper {
            sim,
            x,
            slot,
            handle,
            agent: agents[0],
        })
    }

    /// Run every event before `t` seconds (capped at the end); returns whether the run is over.
    fn run_until(&mut self, py: Python<'_>, t: f64) -> PyResult<bool> {
        let until = Time(accelbrake_sim::time::Dur::from_secs_f64(t.max(0.0)).0);
        let sim = &mut self.sim;
        let flag = &self.x.failure.flag;
        crate::unguard(
            py,
            crate::guarded(|| {
                let _ = sim.run_until_interruptible(until, flag);
                Ok(())
            }),
        )?;
        if let Some(e) = failure_error(py, &self.x, &self.slot) {
            return Err(e);
        }
        Ok(self.sim.now() >= self.sim.end())
    }

    /// Simulated time, seconds.
    #[getter]
    fn now(&self) -> f64 {
        self.sim.now().secs_f64()
    }

    /// End of the run, seconds.
    #[getter]
    fn end(&self) -> f64 {
        self.sim.end().secs_f64()
    }

    /// The agent's value in force (rate bytes/s, window segments or scale).
    #[getter]
    fn value(&self) -> f64 {
        self.handle.value()
    }

    /// Set the agent's value and let its sender act on it now.
    fn set_value(&mut self, v: f64) -> PyResult<()> {
        if !(v.is_finite() && v > 0.0) {
            return Err(SimulationError::new_err(format!(
                "action: the value must be finite and > 0, got {v}"
            )));
        }
        self.handle.set_value(v);
        self.sim.wake_sender(self.agent);
        Ok(())
    }

    /// Window (segments) and pacing rate (bytes/s or None) the agent's sender uses now.
    fn window_and_rate(&self) -> (f64, Option<f64>) {
        let Some(s) = self.sim.sender(self.agent) else {
            return (0.0, None); // unreachable: an external scheme's sender exists for the whole run
        };
        let cc = &s.cc;
        (cc.window(), cc.pacing_rate())
    }

    /// The agent's statistics since the last call (a dict), starting a new interval.
    fn take_interval<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let now = self.sim.now();
        let s = self.handle.take_interval(now);
        stats_dict(py, &s, now)
    }

    /// The agent's statistics since it started.
    fn total<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.handle.total(), self.sim.now())
    }

    /// Summary and tables of the run so far, as `simulate` returns them.
    fn result(&mut self, py: Python<'_>) -> PyResult<Py<PyDict>> {
        let r = self.sim.result();
        crate::result_to_py(py, &r)
    }
}
