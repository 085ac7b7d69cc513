//! Transport behaviour on simple links.

use crate::common::*;
use serde_json::json;

#[test]
fn newreno_fills_a_bdp_buffer_on_a_constant_link() {
    // 12 Mbit/s, 40 ms RTT: BDP = 40 packets; a BDP of buffer keeps a Reno flow at ~100 %.
    let v = json!({
        "duration_ms": 30000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 40}, "delay_ms": 20},
            {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 20}
        ],
        "flows": [{"scheme": "newreno", "fwd": [0], "rev": [1]}]
    });
    let r = run(&v);
    println!("newreno util {:.3}", r.summary.utilization);
    assert!(r.summary.utilization > 0.95, "{}", r.summary.utilization);
    assert!(r.summary.flows[0].retransmits > 0);
}

#[test]
fn finite_flow_completes_in_about_the_expected_time() {
    // 1 MB over 96 Mbit/s with 20 ms RTT and a large buffer: slow start from 10 segments needs
    // about log2(690/10) ≈ 6 RTTs plus the transfer itself.
    let v = json!({
        "duration_ms": 5000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 96}, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 96}, "queue": {"type": "infinite"}, "delay_ms": 10}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1], "app": {"type": "finite", "bytes": 1000000}}]
    });
    let r = run(&v);
    let c = r.summary.flows[0].completion_s.expect("completes");
    assert!((0.1..0.3).contains(&c), "completion {c}");
}

#[test]
fn rate_limited_application_gets_its_rate() {
    let v = json!({
        "duration_ms": 20000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 100}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 24}, "queue": {"type": "infinite"}, "delay_ms": 10}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1], "app": {"type": "rate", "mbps": 3}}]
    });
    let r = run(&v);
    let g = r.summary.flows[0].goodput_mbps;
    assert!((2.85..3.05).contains(&g), "goodput {g}");
    assert_eq!(r.summary.hops[0].drops, 0);
}

#[test]
fn both_directions_trace_driven_and_per_flow_rtts() {
    // Data over the Verizon uplink, ACKs over the Verizon downlink (both Mahimahi traces); two
    // Cubic flows whose RTTs differ by 100 ms through the per-flow extra delay.
    let v = json!({
        "duration_ms": 60000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "trace", "path": trace("Verizon-LTE-short.up")}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 20},
            {"link": {"type": "trace", "path": trace("Verizon-LTE-short.down")}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 20}
        ],
        "flows": [
            {"scheme": "cubic", "fwd": [0], "rev": [1]},
            {"scheme": "cubic", "fwd": [0], "rev": [1], "extra_delay_ms": 100}
        ]
    });
    let r = run(&v);
    let f = &r.summary.flows;
    assert_eq!((f[0].prop_rtt_ms, f[1].prop_rtt_ms), (40.0, 140.0));
    // Every data packet of flow 1 carries the extra 100 ms in its one-way delay.
    assert!(f[1].one_way_delay_ms.p50 > f[0].one_way_delay_ms.p50 + 90.0);
    assert!(r.summary.hops[1].packets > 1000, "ACKs crossed the downlink trace");
    assert!(r.summary.utilization > 0.9, "{}", r.summary.utilization);
}
