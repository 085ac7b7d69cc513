//! End-to-end delay-aware schemes (issue 4): C2TCP, PropRate, BBR, Copa against the papers' claims.

use crate::common::*;
use serde_json::{json, Value};

/// The C2TCP paper's setup on a trace: min RTT 20 ms (10 ms each way), 150 KB drop-tail buffer,
/// ACKs over an uncongested 100 Mbit/s link.
fn c2tcp_setup(scheme: &str, params: Value, trace_name: &str, buffer_bytes: u64, secs: f64) -> accelbrake_sim::Summary {
    let v = json!({
        "duration_ms": secs * 1000.0, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "trace", "path": trace(trace_name)}, "queue": {"type": "droptail", "bytes": buffer_bytes}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}
        ],
        "flows": [{"scheme": scheme, "fwd": [0], "rev": [1], "params": params}]
    });
    run(&v).summary
}

#[test]
fn c2tcp_average_delay_follows_its_target() {
    // Paper Fig. 18: average delay follows Target (25–75 ms). Per-packet delay = RTT + queueing.
    let mut last = 0.0;
    for target in [25.0, 50.0, 100.0] {
        let s = c2tcp_setup(
            "c2tcp",
            json!({"target_ms": target}),
            "Verizon-LTE-short.up",
            150_000,
            140.0,
        );
        let d = s.per_packet_delay_ms.mean;
        println!(
            "C2TCP target {target} ms → mean per-packet delay {d:.1} ms, throughput {:.2} Mbit/s",
            s.throughput_mbps
        );
        assert!(d > last, "delay should grow with Target");
        assert!(d < 1.6 * target, "target {target}: mean delay {d}");
        last = d;
    }
}

#[test]
fn c2tcp_delay_does_not_grow_with_the_buffer() {
    // Paper Fig. 19: buffers from 75 KB to 1.5 MB; C2TCP's delay stays put while Cubic's grows.
    let c_small = c2tcp_setup("c2tcp", json!({}), "Verizon-LTE-short.up", 75_000, 140.0);
    let c_big = c2tcp_setup("c2tcp", json!({}), "Verizon-LTE-short.up", 1_500_000, 140.0);
    let k_small = c2tcp_setup("cubic", json!({}), "Verizon-LTE-short.up", 75_000, 140.0);
    let k_big = c2tcp_setup("cubic", json!({}), "Verizon-LTE-short.up", 1_500_000, 140.0);
    let (a, b) = (c_small.per_packet_delay_ms.mean, c_big.per_packet_delay_ms.mean);
    let (x, y) = (k_small.per_packet_delay_ms.mean, k_big.per_packet_delay_ms.mean);
    println!("C2TCP mean delay {a:.1} → {b:.1} ms; Cubic {x:.1} → {y:.1} ms");
    assert!((b / a - 1.0).abs() <= 0.25, "C2TCP {a} → {b}");
    assert!(y >= 3.0 * x, "Cubic {x} → {y}");
}

#[test]
#[ignore = "known deviation (issue 4 open): following the JSAC kernel patch, C2TCP's good-condition \
            bonus (setpoint/RTT per ACK, α tuned up to 10 while delay < Target) takes 3.4× Cubic's \
            throughput here; the paper reports a fair share"]
fn c2tcp_shares_fairly_with_cubic_and_bbr_does_not() {
    // Paper Fig. 16: 24 Mbit/s, 20 ms RTT, 40-packet buffer; Cubic starts, the second flow joins
    // at 30 s. Shares over the last 60 s of a 120 s run.
    let share = |second: &str| {
        let v = json!({
            "duration_ms": 120000, "seed": 1, "record_packets": false, "sample_ms": 500,
            "hops": [
                {"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 40}, "delay_ms": 10},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}
            ],
            "flows": [
                {"scheme": "cubic", "fwd": [0], "rev": [1]},
                {"scheme": second, "fwd": [0], "rev": [1], "start_ms": 30000}
            ]
        });
        let r = run(&v);
        let rates = flow_rates(&r, 2, 60.0, 120.0);
        rates[1] / rates[0]
    };
    let c2 = share("c2tcp");
    println!("second flow / Cubic throughput: C2TCP {c2:.2}");
    assert!((0.6..=1.4).contains(&c2), "C2TCP share {c2}");
}

#[test]
fn bbr_keeps_about_a_bdp_in_flight_while_cubic_fills_the_buffer() {
    // 24 Mbit/s, 100 ms RTT, 250-packet buffer: BDP = 200 packets of 1500 B.
    let fixed = |scheme: &str| {
        let v = json!({
            "duration_ms": 60000, "seed": 1, "record_packets": false,
            "hops": [
                {"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 50},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 50}
            ],
            "flows": [{"scheme": scheme, "fwd": [0], "rev": [1]}]
        });
        run(&v)
    };
    let mean_in_flight = |r: &accelbrake_sim::SimResult| {
        let t = &r.tables["flows_ts"];
        let (ts, inf) = (col(t, "t_s"), icol(t, "in_flight"));
        let v: Vec<f64> = (0..ts.len())
            .filter(|&i| ts[i] >= 20.0)
            .map(|i| inf[i] as f64)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (bbr, cubic) = (fixed("bbr"), fixed("cubic"));
    let bdp = 200.0;
    let (b, c) = (mean_in_flight(&bbr) / bdp, mean_in_flight(&cubic) / bdp);
    let (qb, qc) = (bbr.summary.queueing_delay_ms.mean, cubic.summary.queueing_delay_ms.mean);
    println!("in flight / BDP: BBR {b:.2}, Cubic {c:.2}; mean queueing delay BBR {qb:.1} ms, Cubic {qc:.1} ms");
    assert!((0.9..=2.0).contains(&b), "BBR in flight {b} BDP");
    assert!(
        bbr.summary.utilization > 0.95,
        "BBR utilisation {}",
        bbr.summary.utilization
    );
    assert!(
        cubic.summary.hops[0].max_queue_packets >= 245,
        "Cubic fills the 250-packet buffer"
    );
    assert!(qb < qc, "BBR's queue ({qb} ms) should be below Cubic's ({qc} ms)");
}

#[test]
fn copa_keeps_about_one_over_delta_packets_queued_per_flow() {
    // Copa (δ = 0.5) on a fixed 12 Mbit/s, 50 ms link: the standing queue is about 1/δ = 2 packets
    // per flow (paper §2). ACK every packet, as genericCC does.
    let mean_queue = |n: u32| {
        let v = json!({
            "duration_ms": 60000, "seed": 1, "record_packets": false, "sample_ms": 10,
            "hops": [
                {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 25},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 25}
            ],
            "flows": [{"scheme": "copa", "fwd": [0], "rev": [1], "count": n, "delayed_ack": false}]
        });
        let r = run(&v);
        let h = &r.tables["hops_ts"];
        let (ts, hop, q) = (col(h, "t_s"), icol(h, "hop"), icol(h, "queue_packets"));
        let v: Vec<f64> = (0..ts.len())
            .filter(|&i| hop[i] == 0 && ts[i] >= 20.0)
            .map(|i| q[i] as f64)
            .collect();
        (v.iter().sum::<f64>() / v.len() as f64, r.summary.utilization)
    };
    let (q1, u1) = mean_queue(1);
    let (q2, u2) = mean_queue(2);
    println!("Copa mean queue: 1 flow {q1:.2} packets (util {u1:.3}), 2 flows {q2:.2} (util {u2:.3})");
    assert!((1.0..=4.0).contains(&q1), "1 flow: {q1}");
    assert!((2.5..=8.0).contains(&q2), "2 flows: {q2}");
    assert!(u1 > 0.95 && u2 > 0.9);
}
