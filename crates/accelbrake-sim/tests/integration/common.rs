//! Scenario builders and measurements shared by the integration tests.

use accelbrake_sim::metrics::{Column, SimResult, Table};
use accelbrake_sim::{Scenario, Simulation};
use serde_json::{json, Value};

/// Path of a bundled trace (`traces/` at the repository root).
pub fn trace(name: &str) -> String {
    format!("{}/../../traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The ABC paper's cellular setup: `data` link with `queue`, ACKs over constant 12 Mbit/s, 50 ms each way.
pub fn cellular(scheme: &str, queue: Value, data: Value, secs: f64) -> Value {
    json!({
        "duration_ms": secs * 1000.0,
        "seed": 1,
        "record_packets": false,
        "hops": [
            {"name": "data", "link": data, "queue": queue, "delay_ms": 50},
            {"name": "ack", "link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 50}
        ],
        "flows": [{"scheme": scheme, "fwd": [0], "rev": [1]}]
    })
}

/// Build, run (checking packet conservation) and summarise.
pub fn run(v: &Value) -> SimResult {
    let s = Scenario::from_json(&v.to_string()).expect("valid scenario");
    let mut sim = Simulation::new(&s).expect("builds");
    let end = sim.now() + accelbrake_sim::time::Dur::from_millis_f64(s.duration_ms / 2.0);
    sim.run_until(end);
    sim.check_invariants().expect("invariants mid-run");
    sim.run();
    sim.check_invariants().expect("invariants at the end");
    sim.result()
}

/// A float column of a table.
pub fn col<'a>(t: &'a Table, name: &str) -> &'a [f64] {
    match t.get(name) {
        Some(Column::F64(v)) => v,
        other => panic!("column {name}: {other:?}"),
    }
}

/// An integer column of a table.
pub fn icol<'a>(t: &'a Table, name: &str) -> &'a [i64] {
    match t.get(name) {
        Some(Column::I64(v)) => v,
        other => panic!("column {name}: {other:?}"),
    }
}

/// Mean throughput (Mbit/s) of each flow over `[t0, t1)` seconds from the `flows_ts` bins; a bin
/// without a row for a flow (before its start bin, after it retired) counts as 0.
pub fn flow_rates(r: &SimResult, nflows: usize, t0: f64, t1: f64) -> Vec<f64> {
    let t = &r.tables["flows_ts"];
    let (ts, fl, th) = (col(t, "t_s"), icol(t, "flow"), col(t, "throughput_mbps"));
    let mut sum = vec![0.0; nflows];
    let mut bins: Vec<u64> = Vec::new();
    for i in 0..ts.len() {
        if ts[i] >= t0 - 1e-9 && ts[i] < t1 - 1e-9 {
            sum[fl[i] as usize] += th[i];
            bins.push(ts[i].to_bits());
        }
    }
    bins.sort_unstable();
    bins.dedup();
    let n = bins.len().max(1) as f64;
    sum.iter().map(|s| s / n).collect()
}
