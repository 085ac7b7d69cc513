//! The cellular end-to-end baselines (issue 13): Sprout, Verus and PCC-Vivace on a constant
//! 12 Mbit/s link with 100 ms RTT and the ABC setup's 250-packet drop-tail buffer.

use crate::common::*;
use serde_json::json;

/// One flow of `scheme` for `secs` on a constant 12 Mbit/s link, 50 ms each way, 250-packet buffer.
pub fn constant_12(scheme: &str, secs: f64) -> accelbrake_sim::Summary {
    let v = json!({
        "duration_ms": secs * 1000.0, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 50},
            {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 50}
        ],
        "flows": [{"scheme": scheme, "fwd": [0], "rev": [1]}]
    });
    run(&v).summary
}

#[test]
fn pcc_vivace_uses_a_constant_link() {
    let s = constant_12("pcc-vivace", 60.0);
    println!(
        "pcc-vivace: utilisation {:.3}, queueing delay mean {:.1} ms p95 {:.1} ms",
        s.utilization, s.queueing_delay_ms.mean, s.queueing_delay_ms.p95
    );
    assert!(s.utilization >= 0.8, "PCC-Vivace utilisation {}", s.utilization);
}

#[test]
fn verus_uses_a_constant_link() {
    let s = constant_12("verus", 60.0);
    println!(
        "verus: utilisation {:.3}, queueing delay mean {:.1} ms p95 {:.1} ms",
        s.utilization, s.queueing_delay_ms.mean, s.queueing_delay_ms.p95
    );
    assert!(s.utilization >= 0.8, "Verus utilisation {}", s.utilization);
}

#[test]
fn sprout_keeps_the_delay_under_its_target_and_below_cubic() {
    let (s, c) = (constant_12("sprout", 60.0), constant_12("cubic", 60.0));
    println!(
        "sprout: utilisation {:.3}, queueing delay mean {:.1} ms p95 {:.1} ms; cubic: utilisation {:.3}, mean {:.1} ms p95 {:.1} ms",
        s.utilization, s.queueing_delay_ms.mean, s.queueing_delay_ms.p95,
        c.utilization, c.queueing_delay_ms.mean, c.queueing_delay_ms.p95
    );
    assert!(
        s.queueing_delay_ms.p95 <= 130.0,
        "Sprout p95 queueing delay {} ms vs its 100 ms target",
        s.queueing_delay_ms.p95
    );
    assert!(
        s.queueing_delay_ms.mean < c.queueing_delay_ms.mean,
        "Sprout below Cubic"
    );
    assert!(s.queueing_delay_ms.p95 < c.queueing_delay_ms.p95, "Sprout below Cubic");
    assert!(s.utilization > 0.5, "Sprout utilisation {}", s.utilization);
}
