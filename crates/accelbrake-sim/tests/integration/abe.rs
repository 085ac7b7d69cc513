//! ABE (RFC 8511; Khademi et al. 2017): the buffer rule and the paper's trends.

use crate::common::*;
use serde_json::json;

/// One NewReno flow with loss backoff `beta` on a 10 Mbit/s, 100 ms RTT drop-tail link with
/// `buffer` packets.
fn reno_on_droptail(beta: f64, buffer: u64) -> f64 {
    let v = json!({
        "duration_ms": 120000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "droptail", "packets": buffer}, "delay_ms": 50},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "infinite"}, "delay_ms": 50}
        ],
        "flows": [{"scheme": "newreno", "fwd": [0], "rev": [1], "params": {"beta": beta}}]
    });
    // Skip slow start: utilisation over the last 100 s.
    let r = run(&v);
    flow_rates(&r, 1, 20.0, 120.0)[0] / 10.0
}

/// Fluid-model utilisation of a Reno sawtooth between β·(B + b) and B + b (+1 segment per RTT;
/// RTTs stretch while the queue is non-empty), B = BDP, both in packets.
fn sawtooth_utilisation(bdp: f64, b: f64, beta: f64) -> f64 {
    let (w_hi, w_lo) = (bdp + b, beta * (bdp + b));
    if w_lo >= bdp {
        return 1.0;
    }
    let below = (bdp * bdp - w_lo * w_lo) / 2.0; // packets sent while W < B
    let t_queue = (w_hi * w_hi - bdp * bdp) / (2.0 * bdp); // base RTTs spent with a queue
    (below + bdp * t_queue) / (bdp * ((bdp - w_lo) + t_queue))
}

#[test]
fn buffer_rule_bdp_times_one_minus_beta_over_beta_fills_the_link() {
    // ABE eq. 1: b ≥ BDP·(1 − β)/β. BDP = 10 Mbit/s × 100 ms = 83.3 packets of 1500 B.
    let bdp: f64 = 10e6 * 0.1 / 8.0 / 1500.0;
    for beta in [0.5f64, 0.7, 0.8] {
        let b = (bdp * (1.0 - beta) / beta).ceil() as u64;
        let full = reno_on_droptail(beta, b);
        let half = reno_on_droptail(beta, (b / 2).max(1));
        println!(
            "beta {beta}: buffer {b} packets → utilisation {full:.3}; {} packets → {half:.3}",
            b / 2
        );
        assert!(full >= 0.95, "beta {beta}, buffer {b}: {full}");
        let predicted = sawtooth_utilisation(bdp, (b / 2).max(1) as f64, beta);
        println!("  half buffer: fluid model predicts {predicted:.3}");
        assert!(
            half < full - 0.02,
            "beta {beta}: half buffer should lose utilisation ({half} vs {full})"
        );
        assert!(
            (half - predicted).abs() < 0.03,
            "beta {beta}: {half} vs fluid model {predicted}"
        );
    }
}
