//! L4S: DCTCP's steady state on a step-marking queue (Alizadeh et al., SIGCOMM 2010 §3.3), the
//! DualPI2 coupling's rate balance between a Classic and an L4S flow (RFC 9332 §2.1), and TCP
//! Prague's queue near the 1 ms step at 24 Mbit/s.

use crate::common::*;
use serde_json::{json, Value};

/// One bottleneck of `mbps` with `queue`, `rtt_ms` propagation RTT, ACKs at the same rate.
fn path(mbps: f64, rtt_ms: f64, queue: Value, flows: Value, secs: f64, sample_ms: f64) -> Value {
    json!({
        "duration_ms": secs * 1000.0, "seed": 1, "record_packets": false, "sample_ms": sample_ms,
        "hops": [
            {"link": {"type": "constant", "mbps": mbps}, "queue": queue, "delay_ms": rtt_ms / 2.0},
            {"link": {"type": "constant", "mbps": mbps}, "queue": {"type": "infinite"}, "delay_ms": rtt_ms / 2.0}
        ],
        "flows": flows
    })
}

fn percentile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// DCTCP paper §3.3 for N synchronised flows over a queue that marks above K packets:
/// W* = (C·RTT + K)/N, α ≈ √(2/W*), window oscillation D = W*·α/2 ≈ √(W*/2), queue between
/// Q_max = K + N and Q_min = Q_max − N·D; and full throughput when K > C·RTT/7.
#[test]
fn dctcp_steady_state_on_a_step_queue_follows_the_papers_analysis() {
    let (mbps, rtt_ms, k) = (50.0, 10.0, 20u64);
    let queue = json!({"type": "dualpi2", "step_packets": k, "packets": 10000});
    let flows = json!([{"scheme": "dctcp", "fwd": [0], "rev": [1]}]);
    let r = run(&path(mbps, rtt_ms, queue, flows, 30.0, 1.0));
    let bdp = mbps * 1e6 * rtt_ms / 1e3 / 8.0 / 1500.0;
    let w_star = bdp + k as f64;
    let d = (w_star / 2.0).sqrt();
    let (q_max, q_min) = (k as f64 + 1.0, k as f64 + 1.0 - d);
    let t = &r.tables["hops_ts"];
    let (ts, hop, qp) = (col(t, "t_s"), icol(t, "hop"), icol(t, "queue_packets"));
    let q: Vec<f64> = (0..ts.len())
        .filter(|&i| hop[i] == 0 && ts[i] >= 10.0)
        .map(|i| qp[i] as f64)
        .collect();
    let (lo, hi) = (percentile(q.clone(), 0.05), percentile(q, 0.95));
    let util = flow_rates(&r, 1, 10.0, 30.0)[0] / mbps;
    println!(
        "DCTCP K={k}, BDP={bdp:.1}: queue p5 {lo} p95 {hi} (paper: {q_min:.1}..{q_max:.1}), utilisation {util:.3}"
    );
    assert!(
        util > 0.95,
        "K = {k} > C·RTT/7 = {:.1}: full throughput expected, got {util}",
        bdp / 7.0
    );
    assert!((hi - q_max).abs() <= 0.25 * q_max, "queue top {hi} vs K + N = {q_max}");
    let amplitude = hi - lo;
    assert!(
        (amplitude - d).abs() <= 0.5 * d,
        "queue oscillation {amplitude} vs the paper's N·D = √(W*/2) = {d:.2}"
    );
}

/// RFC 9332 §2.1: with k = 2 the coupling p_C = (p_CL/k)² gives a Cubic flow in the Classic
/// queue and an L4S flow roughly equal rates; across RTTs they stay within a factor 2.
#[test]
fn dualpi2_coupling_balances_classic_and_l4s_within_a_factor_two_across_rtts() {
    for rtt_ms in [20.0, 50.0, 100.0] {
        let flows = json!([
            {"scheme": "cubic", "fwd": [0], "rev": [1]},
            {"scheme": "prague", "fwd": [0], "rev": [1]}
        ]);
        let queue = json!({"type": "dualpi2", "packets": 10000});
        let r = run(&path(24.0, rtt_ms, queue, flows, 90.0, 100.0));
        let rates = flow_rates(&r, 2, 30.0, 90.0);
        let ratio = rates[1] / rates[0];
        println!(
            "RTT {rtt_ms} ms: Cubic {:.2} Mbit/s, Prague {:.2} Mbit/s, ratio {ratio:.2}",
            rates[0], rates[1]
        );
        assert!((0.5..=2.0).contains(&ratio), "RTT {rtt_ms}: ratio {ratio}");
        assert!(rates[0] + rates[1] > 0.9 * 24.0, "RTT {rtt_ms}: the two fill the link");
    }
}

/// Prague alone over DualPI2 at 24 Mbit/s: after its ramp it fills the link and its queue
/// stays near the 1 ms step (p95 ≤ 3 ms).
#[test]
fn prague_keeps_the_l4s_queue_near_one_ms_at_24_mbps() {
    for rtt_ms in [20.0, 100.0] {
        let flows = json!([{"scheme": "prague", "fwd": [0], "rev": [1]}]);
        let queue = json!({"type": "dualpi2", "packets": 10000});
        let r = run(&path(24.0, rtt_ms, queue, flows, 60.0, 100.0));
        let util = flow_rates(&r, 1, 30.0, 60.0)[0] / 24.0;
        let s = &r.summary;
        let p95 = s.flows[0].queueing_delay_ms.p95;
        let p50 = s.flows[0].queueing_delay_ms.p50;
        println!(
            "Prague RTT {rtt_ms} ms: utilisation (30-60 s) {util:.3}, queueing delay p50 {p50:.2} p95 {p95:.2} ms"
        );
        assert!(util >= 0.9, "RTT {rtt_ms}: {util}");
        assert!(p95 <= 3.0 && p50 <= 1.5, "RTT {rtt_ms}: p50 {p50} p95 {p95}");
    }
}
