//! Same scenario and seed → identical results; packets are conserved.

use crate::common::*;
use serde_json::json;

#[test]
fn same_scenario_gives_identical_results() {
    let mut v = cellular(
        "abc",
        json!({"type": "abc", "packets": 250}),
        json!({"type": "trace", "path": trace("Verizon-LTE-short.up")}),
        20.0,
    );
    v["record_packets"] = json!(true);
    let a = run(&v);
    let b = run(&v);
    let sa = serde_json::to_string(&a.summary).unwrap();
    let sb = serde_json::to_string(&b.summary).unwrap();
    assert_eq!(sa, sb);
    for (name, ta) in &a.tables {
        let tb = &b.tables[name];
        assert_eq!(
            serde_json::to_string(ta).unwrap(),
            serde_json::to_string(tb).unwrap(),
            "table {name}"
        );
    }
    assert!(a.tables["packets"].columns[0].1.len() > 1000);
}

#[test]
fn conservation_holds_with_drops_several_flows_and_staggered_starts() {
    // Cubic flows on a small buffer force drops, retransmissions and timeouts.
    let v = json!({
        "duration_ms": 15000, "seed": 3, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "droptail", "packets": 20}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "droptail", "packets": 5}, "delay_ms": 10}
        ],
        "flows": [
            {"scheme": "cubic", "fwd": [0], "rev": [1], "count": 3},
            {"scheme": "newreno", "fwd": [0], "rev": [1], "start_ms": 2000, "stop_ms": 9000},
            {"scheme": "cubic", "fwd": [0], "rev": [1], "app": {"type": "finite", "bytes": 300000}, "start_ms": 500}
        ]
    });
    let r = run(&v);
    assert!(r.summary.hops[0].drops > 0, "the scenario should drop packets");
    assert!(r.summary.flows[4].completion_s.is_some(), "the finite flow completes");
    // Delivered bytes never exceed the link capacity.
    assert!(r.summary.hops[0].utilization <= 1.0 + 1e-9);
}
