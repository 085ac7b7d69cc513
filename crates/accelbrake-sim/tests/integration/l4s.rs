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

/// RFC 9332 §2.1 derives k = 2 from the steady-state windows of Reno and a DCTCP-like control
/// (1.22/√p_C = 2/p_CL with p_C = (p_CL/k)², k = 2/1.22 rounded up): the coupling balances
/// *windows*. Rates then differ by the ratio of the flows' RTTs, and the Classic flow's includes
/// PI2's 15-ms target while the L4S flow's stays near the propagation RTT, so at short RTTs the
/// L4S flow's rate share grows (at 20 ms about 35/21). The test asks for windows (rate × the
/// flow's mean RTT) within a factor 2 across RTTs, and prints the rate ratio beside it.
#[test]
fn dualpi2_coupling_balances_classic_and_l4s_windows_within_a_factor_two_across_rtts() {
    for rtt_ms in [20.0, 50.0, 100.0] {
        let flows = json!([
            {"scheme": "cubic", "fwd": [0], "rev": [1]},
            {"scheme": "prague", "fwd": [0], "rev": [1]}
        ]);
        let queue = json!({"type": "dualpi2", "packets": 10000});
        let r = run(&path(24.0, rtt_ms, queue, flows, 90.0, 100.0));
        let rates = flow_rates(&r, 2, 30.0, 90.0);
        let rtt = |i: usize| rtt_ms + r.summary.flows[i].queueing_delay_ms.mean;
        let ratio = rates[1] / rates[0];
        let windows = (rates[1] * rtt(1)) / (rates[0] * rtt(0));
        println!(
            "RTT {rtt_ms} ms: Cubic {:.2} Mbit/s at {:.1} ms, Prague {:.2} Mbit/s at {:.1} ms; \
             rate ratio {ratio:.2}, window ratio {windows:.2}",
            rates[0],
            rtt(0),
            rates[1],
            rtt(1)
        );
        assert!((0.5..=2.0).contains(&windows), "RTT {rtt_ms}: window ratio {windows}");
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

/// Prague's start-up over DualPI2 at 24 Mbit/s, 100 ms (BDP 200 packets). Linux Prague paces from
/// the handshake's RTT (tcp_prague.c v0.7 `prague_init`), at twice the window's rate while below
/// half of ssthresh, so the initial window does not arrive as a burst for the 1-ms step to mark.
/// The queue first builds once that paced rate 2·W/RTT exceeds the link, at W = BDP/2, and the
/// first CE echo returns a round later: the window peaks above BDP/2, the first mark halves it
/// (`prague_alpha_mode = 0`) to no less than BDP/2, and growth of one segment per round
/// (RTT above the 25-ms target: unscaled) fills the link within BDP/2 rounds, 10 s.
#[test]
fn prague_paces_its_initial_window_and_leaves_slow_start_near_the_bdp() {
    let (mbps, rtt_ms) = (24.0, 100.0);
    let bdp = mbps * 1e6 * rtt_ms / 1e3 / 8.0 / 1500.0;
    let flows = json!([{"scheme": "prague", "fwd": [0], "rev": [1]}]);
    let queue = json!({"type": "dualpi2", "packets": 10000});
    let r = run(&path(mbps, rtt_ms, queue, flows, 30.0, 100.0));
    let t = &r.tables["flows_ts"];
    let (ts, cwnd) = (col(t, "t_s"), col(t, "cwnd"));
    let peak = (0..ts.len())
        .filter(|&i| ts[i] < 2.0)
        .map(|i| cwnd[i])
        .fold(0.0, f64::max);
    let after = (0..ts.len())
        .filter(|&i| ts[i] >= 1.0 && ts[i] < 5.0)
        .map(|i| cwnd[i])
        .fold(f64::INFINITY, f64::min);
    let util_full = flow_rates(&r, 1, 12.0, 30.0)[0] / mbps;
    let util_ramp = flow_rates(&r, 1, 0.0, 12.0)[0] / mbps;
    let p95 = r.summary.flows[0].queueing_delay_ms.p95;
    println!(
        "Prague start-up, BDP {bdp:.0}: peak window {peak}, window after the exit {after}, \
         utilisation 0-12 s {util_ramp:.3}, 12-30 s {util_full:.3}, queueing delay p95 {p95:.2} ms"
    );
    assert!(
        peak >= bdp / 2.0,
        "slow start ended at {peak} packets, below BDP/2 = {}",
        bdp / 2.0
    );
    assert!(after >= bdp / 2.0, "the first mark left {after} packets, below BDP/2");
    assert!(util_full >= 0.95, "link not full within BDP/2 rounds: {util_full}");
    // From at least BDP/2 at the exit, a linear ramp to the BDP over 10 s averages 3/4 of the
    // link; with the first second's slow start and the full last 2 s, 0-12 s is above 0.7.
    assert!(util_ramp >= 0.7, "0-12 s utilisation {util_ramp}");
    assert!(p95 <= 3.0, "queueing delay p95 {p95} ms");
}
