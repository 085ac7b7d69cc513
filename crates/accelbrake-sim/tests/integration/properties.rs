//! Property tests (proptest, a fixed number of cases so CI stays short; set `PROPTEST_CASES` for
//! longer runs): textbook results and conservation laws over random scenarios.

use crate::common::*;
use crate::hostile::scratch;
use accelbrake_sim::link::{Trace, TraceLink};
use accelbrake_sim::time::Time;
use accelbrake_sim::Scenario;
use proptest::prelude::*;
use serde_json::json;
use std::sync::Arc;

/// Cases per property: `PROPTEST_CASES` if set, else `default`.
pub fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases(12))]

    /// One backlogged NewReno flow on a constant-rate link with a buffer of one bandwidth-delay
    /// product keeps the link busy: after a loss the window halves from 2·BDP to BDP, which still
    /// fills the pipe (Villamizar & Song 1994; Appenzeller et al., SIGCOMM 2004, §2).
    #[test]
    fn newreno_with_a_bdp_buffer_fills_the_link(mbps in 2.0f64..40.0, rtt_ms in 10u32..120) {
        let bdp = (mbps * 1e6 / 8.0 * f64::from(rtt_ms) / 1e3 / 1500.0).ceil().max(4.0) as u64;
        let one_way = f64::from(rtt_ms) / 2.0;
        let v = json!({
            "duration_ms": 40_000, "seed": 2, "record_packets": false,
            "hops": [
                {"link": {"type": "constant", "mbps": mbps}, "queue": {"type": "droptail", "packets": bdp}, "delay_ms": one_way},
                {"link": {"type": "constant", "mbps": 1000}, "queue": {"type": "infinite"}, "delay_ms": one_way}
            ],
            "flows": [{"scheme": "newreno", "fwd": [0], "rev": [1]}]
        });
        let r = run(&v);
        // The whole run, slow start included.
        let u = r.summary.utilization;
        prop_assert!(u > 0.95 && u <= 1.0 + 1e-9, "utilisation {u} at {mbps:.1} Mbit/s, RTT {rtt_ms} ms, buffer {bdp}");
    }

    /// Whatever the trace, the schemes and the buffer, no link carries more than its
    /// opportunities: every hop's departed bytes ≤ its trace's opportunity bytes over the run.
    #[test]
    fn delivered_bytes_never_exceed_the_trace(
        gaps in prop::collection::vec(0u64..4, 1..40),
        scheme in prop::sample::select(vec!["cubic", "abc", "bbr", "newreno", "copa", "vegas"]),
        packets in 2u64..300,
        queue in prop::sample::select(vec!["droptail", "abc", "codel", "pie"]),
    ) {
        let mut ms = Vec::new();
        let mut t = 0;
        for g in gaps {
            t += g;
            ms.push(t);
        }
        if t == 0 {
            ms.push(1);
        }
        let text: String = ms.iter().map(|m| format!("{m}\n")).collect();
        let path = scratch(&format!("prop-{}.trace", std::process::id()), text.as_bytes());
        let v = json!({
            "duration_ms": 3000, "seed": 5, "record_packets": false,
            "hops": [
                {"link": {"type": "trace", "path": path}, "queue": {"type": queue, "packets": packets}, "delay_ms": 20},
                {"link": {"type": "trace", "path": path}, "queue": {"type": "infinite"}, "delay_ms": 20}
            ],
            "flows": [{"scheme": scheme, "fwd": [0], "rev": [1], "count": 2}]
        });
        let r = run(&v); // checks every invariant (capacity included) mid-run and at the end
        let trace = Arc::new(Trace::parse("p", &text).unwrap());
        for h in &r.summary.hops {
            // The link as the run built it: at the offset the seed drew.
            let link = TraceLink::with_offset(trace.clone(), false, h.trace_offset_ms.unwrap());
            let opportunity = link.opportunity_bytes_between(Time::ZERO, Time::from_millis(3000)) as f64;
            let departed = h.throughput_mbps * 1e6 / 8.0 * 3.0;
            prop_assert!(departed <= opportunity + 1e-6 * opportunity, "hop {}: {departed} > {opportunity}", h.id);
            prop_assert!(h.utilization <= 1.0 + 1e-12);
        }
    }

    /// Little's law, L = λ·W, for every hop: the time-averaged number of packets in the hop equals
    /// the departure rate times the mean sojourn, up to the packets still inside at the end.
    #[test]
    fn littles_law_holds_for_every_hop(
        mbps in 1.0f64..30.0,
        flows in 1u32..6,
        packets in 5u64..400,
        scheme in prop::sample::select(vec!["cubic", "newreno", "bbr", "vegas"]),
    ) {
        let secs = 20.0;
        let v = json!({
            "duration_ms": secs * 1000.0, "seed": 3, "record_packets": false, "sample_ms": 10,
            "hops": [
                {"link": {"type": "constant", "mbps": mbps}, "queue": {"type": "droptail", "packets": packets}, "delay_ms": 15},
                {"link": {"type": "constant", "mbps": mbps}, "queue": {"type": "infinite"}, "delay_ms": 15}
            ],
            "flows": [{"scheme": scheme, "fwd": [0], "rev": [1], "count": flows}]
        });
        let r = run(&v);
        for h in &r.summary.hops {
            let lambda = h.packets as f64 / secs;
            let l = h.mean_occupancy_packets;
            let lw = lambda * h.mean_sojourn_ms / 1e3;
            // L·T = Σ sojourns of departed packets + time spent inside by the packets still there
            // at the end. Those are at most max_queue + 1, each inside for at most the time to
            // send max_queue + 1 full packets ahead of it (a FIFO at a constant rate).
            let inside = (h.max_queue_packets + 1) as f64;
            let slack = inside * inside * 1500.0 * 8.0 / (mbps * 1e6) / secs;
            prop_assert!(l - lw >= -1e-9 * l && l - lw <= slack + 1e-9 * l, "hop {}: L = {l}, λW = {lw}, slack {slack}", h.id);
            if h.id == 0 {
                // The sampled queue-length series (every 10 ms) agrees with the exact time
                // average within sampling error.
                let t = &r.tables["hops_ts"];
                let (hop, q) = (icol(t, "hop"), icol(t, "queue_packets"));
                let s: Vec<f64> = hop.iter().zip(q).filter(|(h, _)| **h == 0).map(|(_, q)| *q as f64).collect();
                let sampled = s.iter().sum::<f64>() / s.len() as f64;
                // The exact average also counts the packet on the link (≤ 1).
                prop_assert!((sampled - l).abs() <= 0.1 * l + 1.5, "sampled {sampled}, exact {l}");
            }
        }
    }
}

/// The `fixed` scheme (a constant window W) on a constant link: throughput W·MTU/RTT below the
/// bandwidth-delay product; above it the link is full and the RTT is W·MTU/C.
#[test]
fn fixed_window_throughput_is_window_over_rtt_until_the_link_is_full() {
    // 12 Mbit/s, 100 ms propagation RTT: the pipe holds about 101 packets.
    let run = |w: f64| {
        let s = Scenario::from_json(&format!(
            r#"{{"duration_ms": 30000, "record_packets": false,
            "hops": [{{"link": {{"type": "constant", "mbps": 12}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}},
                     {{"link": {{"type": "constant", "mbps": 100}}, "queue": {{"type": "infinite"}}, "delay_ms": 50}}],
            "flows": [{{"scheme": "fixed", "params": {{"window": {w}}}, "fwd": [0], "rev": [1],
                        "delayed_ack": false, "host_jitter_us": 0}}]}}"#
        ))
        .unwrap();
        accelbrake_sim::simulate(&s).unwrap().summary
    };
    let small = run(20.0);
    // 20 packets of MTU bytes per RTT; the RTT is 100 ms of propagation plus the 1 ms it takes
    // to serialise one 1500-byte packet at 12 Mbit/s (ACKs at 100 Mbit/s add ~4 µs).
    let rate = small.flows[0].throughput_mbps;
    let expect = 20.0 * f64::from(accelbrake_sim::packet::MTU) * 8.0 / 0.101 / 1e6;
    assert!((rate / expect - 1.0).abs() < 0.01, "{rate} vs {expect}");
    let big = run(150.0);
    assert!(big.utilization > 0.98, "{}", big.utilization);
    // The window fills the pipe: RTT = W·MTU / C = 150 ms, so each packet spends 150 − 100 = 50 ms
    // in the queue and on the link (the queueing delay, as Mahimahi counts it).
    let q = big.flows[0].queueing_delay_ms.p50;
    assert!((q - 50.0).abs() < 1.0, "median queueing {q} ms");
}
