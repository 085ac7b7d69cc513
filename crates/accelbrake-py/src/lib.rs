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
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

create_exception!(
    accelbrake._core,
    SimulationError,
    PyValueError,
    "Invalid scenario, parameter or trace file."
);

fn to_py(e: Error) -> PyErr {
    SimulationError::new_err(e.to_string())
}

/// Run a scenario given as JSON. Returns `{"summary": str (JSON), "tables": {name: {column: (dtype, bytes)}}}`.
#[pyfunction]
fn simulate(py: Python<'_>, scenario_json: &str) -> PyResult<Py<PyDict>> {
    let scenario = Scenario::from_json(scenario_json).map_err(to_py)?;
    let result = py.detach(|| accelbrake_sim::simulate(&scenario)).map_err(to_py)?;
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
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<()> {
    Scenario::from_json(scenario_json).map_err(to_py)?;
    Ok(())
}

/// Parse a Mahimahi trace file: returns `(opportunities, period_ms, mean_mbps)`.
#[pyfunction]
fn trace_info(path: &str) -> PyResult<(usize, u64, f64)> {
    let t = accelbrake_sim::link::Trace::load(path).map_err(to_py)?;
    Ok((t.ms.len(), t.period_ms(), t.mean_mbps()))
}

/// Congestion-control schemes the core knows.
#[pyfunction]
fn schemes() -> Vec<&'static str> {
    accelbrake_sim::cc::SCHEMES.to_vec()
}

/// The `accelbrake._core` module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
