//! Python bindings: the `accelbrake._core` module.
//!
//! The only crate that knows Python. Scenarios come in as JSON text (built by `accelbrake.scenarios`),
//! results go out as a summary JSON string plus columnar tables whose columns are raw little-endian
//! buffers (`float64` / `int64`) that the Python side wraps with `numpy.frombuffer` without copying
//! element by element. Core errors become `accelbrake.SimulationError` (a `ValueError`) here, in one
//! place.

use accelbrake_sim::metrics::Column;
use accelbrake_sim::{Error, Scenario};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

mod external;
mod vecenv;

/// How often the calling thread looks for signals (Ctrl-C) while a simulation runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

create_exception!(
    accelbrake._core,
    SimulationError,
    PyValueError,
    "Invalid scenario, parameter or trace file."
);

/// A `SimulationError` carrying the typed fields of the core error as attributes: `kind`
/// (`"trace"`, `"param"`, `"scenario"` or `"internal"`), `key` (dotted scenario key), `path` and
/// `line` (trace file), each `None` when it does not apply.
pub(crate) fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let (kind, key, path, line) = match &e {
        Error::Trace { path, line, .. } => ("trace", None, Some(path.clone()), Some(*line)),
        Error::Param { key, .. } => ("param", Some(key.clone()), None, None),
        Error::Scenario { path, .. } => ("scenario", Some(path.clone()).filter(|p| !p.is_empty()), None, None),
        // Only `run_interruptibly` sets the flag, and it raises the pending KeyboardInterrupt
        // itself; should this ever surface otherwise, it is still a KeyboardInterrupt.
        Error::Interrupted => return PyKeyboardInterrupt::new_err("interrupted"),
    };
    typed_error(py, e.to_string(), kind, key, path, line)
}

fn typed_error(
    py: Python<'_>,
    msg: String,
    kind: &str,
    key: Option<String>,
    path: Option<String>,
    line: Option<usize>,
) -> PyErr {
    let err = SimulationError::new_err(msg);
    let v = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it did, the
    // message alone still describes the problem.
    let _ = v.setattr("kind", kind);
    let _ = v.setattr("key", key);
    let _ = v.setattr("path", path);
    let _ = v.setattr("line", line);
    err
}

/// Run `f`, turning a panic (a bug in the core) into a `SimulationError` of kind `"internal"`
/// instead of letting it cross into Python as a `PanicException`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> accelbrake_sim::Result<T>) -> Result<accelbrake_sim::Result<T>, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("internal error (a bug in accelbrake, please report it with the scenario): {what}")
    })
}

/// Unpack [`guarded`]'s result into a Python result.
pub(crate) fn unguard<T>(py: Python<'_>, r: Result<accelbrake_sim::Result<T>, String>) -> PyResult<T> {
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_py(py, e)),
        Err(msg) => Err(typed_error(py, msg, "internal", None, None, None)),
    }
}

/// Run a scenario so that Ctrl-C stops it: the simulation runs on a scoped thread with a stop flag
/// while the calling thread, without the GIL, waits for it and every [`SIGNAL_POLL`] takes the GIL
/// to run Python's signal handlers (`check_signals`). If a handler raises (KeyboardInterrupt from
/// SIGINT, or whatever a user handler raises), the flag is set, the simulation stops within
/// `STOP_CHECK_EVENTS` events, and that exception is returned. Signals are only delivered to
/// Python's main thread; called from another thread, this simply waits for the run.
fn run_interruptibly(py: Python<'_>, scenario: &Scenario) -> PyResult<accelbrake_sim::SimResult> {
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("accelbrake-sim".into())
            // As much stack as a main thread usually has; the run itself does not recurse deeply.
            .stack_size(8 << 20)
            .spawn_scoped(s, || {
                let r = guarded(|| accelbrake_sim::simulate_interruptible(scenario, &stop));
                // The receiver outlives the scope, so this cannot fail.
                let _ = tx.send(r);
            })
            .map_err(|e| SimulationError::new_err(format!("cannot start the simulation thread: {e}")))?;
        let mut pending: Option<PyErr> = None;
        let mut rx = Some(rx);
        let r = loop {
            // A `Receiver` may move between threads but not be shared: hand it over and back.
            let (back, got) = py.detach(|| {
                let rx = rx.take().expect("put back each time");
                let got = rx.recv_timeout(SIGNAL_POLL);
                (rx, got)
            });
            rx = Some(back);
            match got {
                Ok(r) => break r,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if pending.is_none() {
                        if let Err(e) = py.check_signals() {
                            stop.store(true, Ordering::Relaxed);
                            pending = Some(e);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // The worker ended without sending: only a panic outside `guarded` does that.
                    break Err("internal error (a bug in accelbrake, please report it with the scenario): the simulation thread ended without a result".to_string());
                }
            }
        };
        // The worker has sent its result (or died): joining cannot block for long.
        let _ = worker.join();
        match pending {
            // Interrupted (or finished anyway just as the signal came): the signal's exception wins.
            Some(e) => Err(e),
            None => unguard(py, r),
        }
    })
}

/// Run a scenario given as JSON. Returns `{"summary": str (JSON), "tables": {name: {column: (dtype, bytes)}}}`.
/// Ctrl-C stops the run within a fraction of a second and raises `KeyboardInterrupt`.
///
/// `controllers` (`{scheme name: spec}`, see `accelbrake.controllers`) adds Python controllers;
/// a run that uses them runs on the calling thread with the GIL held.
#[pyfunction]
#[pyo3(signature = (scenario_json, controllers=None))]
fn simulate(py: Python<'_>, scenario_json: &str, controllers: Option<&Bound<'_, PyDict>>) -> PyResult<Py<PyDict>> {
    let result = match controllers.filter(|d| !d.is_empty()) {
        Some(c) => external::simulate_with(py, scenario_json, c)?,
        None => {
            let scenario = unguard(py, guarded(|| Scenario::from_json(scenario_json)))?;
            run_interruptibly(py, &scenario)?
        }
    };
    result_to_py(py, &result)
}

/// A run's summary and tables as Python objects (see [`simulate`]).
pub(crate) fn result_to_py(py: Python<'_>, result: &accelbrake_sim::SimResult) -> PyResult<Py<PyDict>> {
    let summary = serde_json::to_string(&result.summary)
        .map_err(|e| SimulationError::new_err(format!("cannot serialise the summary: {e}")))?;
    let out = PyDict::new(py);
    out.set_item("summary", summary)?;
    let tables = PyDict::new(py);
    for (name, table) in &result.tables {
        let cols = PyDict::new(py);
        for (col, data) in &table.columns {
            let (dtype, bytes): (&str, Vec<u8>) = match data {
                Column::F64(v) => ("<f8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
                Column::I64(v) => ("<i8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            };
            let pair = PyTuple::new(
                py,
                [dtype.into_pyobject(py)?.into_any(), PyBytes::new(py, &bytes).into_any()],
            )?;
            cols.set_item(col, pair)?;
        }
        tables.set_item(name, cols)?;
    }
    out.set_item("tables", tables)?;
    Ok(out.unbind())
}

/// Check a scenario without running it (reads nothing but the JSON); raises on the first problem.
/// `controllers` as for [`simulate`].
#[pyfunction]
#[pyo3(signature = (scenario_json, controllers=None))]
fn validate(py: Python<'_>, scenario_json: &str, controllers: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    match controllers.filter(|d| !d.is_empty()) {
        Some(c) => external::validate_with(py, scenario_json, c),
        None => {
            unguard(py, guarded(|| Scenario::from_json(scenario_json)))?;
            Ok(())
        }
    }
}

/// Parse a Mahimahi trace file: returns `(opportunities, period_ms, mean_mbps)`.
#[pyfunction]
fn trace_info(py: Python<'_>, path: &str) -> PyResult<(usize, u64, f64)> {
    let t = unguard(py, guarded(|| accelbrake_sim::link::Trace::load(path)))?;
    Ok((t.ms.len(), t.period_ms(), t.mean_mbps()))
}

/// Congestion-control schemes the core knows, in listing order.
#[pyfunction]
fn schemes() -> Vec<&'static str> {
    accelbrake_sim::cc::names()
}

/// The registry as JSON text: schemes, queues, links and the default network, each parameter
/// with its default, unit, range, doc and source.
#[pyfunction]
fn catalog() -> String {
    accelbrake_sim::catalog::catalog().to_string()
}

/// The JSON Schema of a scenario document, as JSON text.
#[pyfunction]
fn schema() -> String {
    serde_json::to_string_pretty(&accelbrake_sim::catalog::schema()).unwrap_or_default()
}

/// The `accelbrake._core` module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("ControllerError", m.py().get_type::<external::ControllerError>())?;
    m.add_class::<external::Ack>()?;
    m.add_class::<external::QueuePacket>()?;
    m.add_class::<external::Stepper>()?;
    m.add_class::<vecenv::VecStepper>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
