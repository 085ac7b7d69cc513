//! End-to-end delay-aware schemes: C2TCP, PropRate, BBR, Copa against the papers' claims.

use crate::common::*;
use serde_json::{json, Value};

/// The C2TCP paper's setup on a trace: min RTT 20 ms (10 ms each way), 150 KB drop-tail buffer,
/// ACKs over an uncongested 100 Mbit/s link.
/// One run with the trace offset pinned to 0 (the flow meets the trace's first line): these tests
/// check a claim on one fixed run, as they were calibrated; with the offset drawn from the seed the
/// PropRate target and guard claims move by more than their tolerances on some offsets (seeds 1–5:
/// median 121–138 ms at t̄_buff 120 ms; the PR(H) > PR(M) mean ordering flips at seed 1), which the
/// reproductions report as the spread over seeds. The cause is not the base delay (a single flow's
/// RD_min is the true one at every offset) but where the trace's outages fall: they dominate the
/// mean and move T through the Eq. 9 loop (docs/delay-schemes.md, PropRate).
fn c2tcp_setup(scheme: &str, params: Value, trace_name: &str, buffer_bytes: u64, secs: f64) -> accelbrake_sim::Summary {
    let v = json!({
        "duration_ms": secs * 1000.0, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "trace", "path": trace(trace_name), "offset_ms": 0}, "queue": {"type": "droptail", "bytes": buffer_bytes}, "delay_ms": 10},
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
fn c2tcp_shares_fairly_with_cubic_and_bbr_does_not() {
    // Paper Fig. 16: 24 Mbit/s, 20 ms RTT, 40-packet buffer; Cubic starts, the second flow joins
    // at 30 s. Shares over the last 60 s of a 120 s run.
    let share = |second: &str, params: Value| {
        let v = json!({
            "duration_ms": 120000, "seed": 1, "record_packets": false, "sample_ms": 500,
            "hops": [
                {"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 40}, "delay_ms": 10},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}
            ],
            "flows": [
                {"scheme": "cubic", "fwd": [0], "rev": [1]},
                {"scheme": second, "fwd": [0], "rev": [1], "start_ms": 30000, "params": params}
            ]
        });
        let r = run(&v);
        let rates = flow_rates(&r, 2, 60.0, 120.0);
        rates[1] / rates[0]
    };
    // The paper runs C2TCP with Target 50, 80 and 100 ms. Here the RTT never exceeds 40 ms, so the
    // tuner holds α at its maximum whatever the Target and the three runs coincide (1.08 each).
    for target in [50, 80, 100] {
        let c2 = share("c2tcp", json!({"target_ms": target}));
        println!("second flow / Cubic throughput: C2TCP (Target {target} ms) {c2:.2}");
        assert!((0.6..=1.4).contains(&c2), "C2TCP share {c2}");
    }
    // C2TCP's detector on every ACK (the digest's reading of the JSAC patch) is not friendly.
    let every_ack = share("c2tcp", json!({"cubic_holdoff": 0}));
    let (cubic, bbr) = (share("cubic", json!({})), share("bbr", json!({})));
    println!("C2TCP on every ACK {every_ack:.2}, Cubic {cubic:.2}, BBR {bbr:.2}");
    assert!(every_ack > 2.0, "C2TCP on every ACK: {every_ack}");
    assert!((0.6..=1.4).contains(&cubic), "Cubic share {cubic}");
    assert!(bbr > 2.0, "BBR should take most of the link: {bbr}");
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

/// The eight bundled cellular traces (the project's "8 traces").
const CELLULAR: [&str; 8] = [
    "ATT-LTE-driving.down",
    "ATT-LTE-driving.up",
    "TMobile-LTE-short.down",
    "TMobile-LTE-short.up",
    "TMobile-UMTS-driving.down",
    "Verizon-EVDO-driving.down",
    "Verizon-LTE-short.down",
    "Verizon-LTE-short.up",
];

/// PropRate's paper setup on a trace (§5: 20 ms propagation delay, finite drop-tail buffer, here
/// 1000 packets so the buffer is not what bounds the delay), 140 s.
fn proprate(params: Value, trace_name: &str) -> accelbrake_sim::Summary {
    c2tcp_setup("proprate", params, trace_name, 1000 * 1500, 140.0)
}

/// Mean over `traces` of (throughput Mbit/s, median queueing delay ms, mean queueing delay ms).
fn proprate_means(target_ms: f64, traces: &[&str]) -> (f64, f64, f64) {
    let n = traces.len() as f64;
    let runs: Vec<_> = traces
        .iter()
        .map(|t| proprate(json!({"target_ms": target_ms}), t))
        .collect();
    let m = |f: &dyn Fn(&accelbrake_sim::Summary) -> f64| runs.iter().map(f).sum::<f64>() / n;
    (
        m(&|s| s.throughput_mbps),
        m(&|s| s.queueing_delay_ms.p50),
        m(&|s| s.queueing_delay_ms.mean),
    )
}

#[test]
fn proprate_presets_are_ordered_in_throughput_and_delay() {
    // Paper Fig. 7: PR(L), PR(M), PR(H) (t̄_buff 20 / 40 / 80 ms) are distinct points, each trading
    // delay for throughput. Means over the 8 cellular traces.
    let pts: Vec<_> = [20.0, 40.0, 80.0]
        .iter()
        .map(|&t| proprate_means(t, &CELLULAR))
        .collect();
    for (name, (thr, p50, mean)) in ["PR(L)", "PR(M)", "PR(H)"].iter().zip(&pts) {
        println!("{name}: {thr:.2} Mbit/s, queueing delay median {p50:.1} ms, mean {mean:.1} ms");
    }
    for w in pts.windows(2) {
        assert!(w[1].0 > w[0].0, "throughput ordered: {pts:?}");
        assert!(w[1].1 > w[0].1 && w[1].2 > w[0].2, "delay ordered: {pts:?}");
    }
}

#[test]
fn proprate_frontier_is_monotone_in_the_target() {
    // Paper Fig. 11: sweeping t̄_buff from 12 to 120 ms traces a smooth frontier. Means over the
    // four LTE "short" traces; throughput may wobble by a few per cent between neighbours.
    let traces = [
        "TMobile-LTE-short.down",
        "TMobile-LTE-short.up",
        "Verizon-LTE-short.down",
        "Verizon-LTE-short.up",
    ];
    let targets = [12.0, 16.0, 20.0, 30.0, 40.0, 60.0, 80.0, 100.0, 120.0];
    let pts: Vec<_> = targets.iter().map(|&t| proprate_means(t, &traces)).collect();
    for (t, (thr, p50, mean)) in targets.iter().zip(&pts) {
        println!("t̄_buff {t:>5} ms: {thr:.2} Mbit/s, queueing delay median {p50:.1} ms, mean {mean:.1} ms");
    }
    for w in pts.windows(2) {
        assert!(w[1].0 >= 0.97 * w[0].0, "throughput (nearly) non-decreasing: {pts:?}");
        assert!(w[1].1 > w[0].1, "median delay increasing: {pts:?}");
    }
    assert!(pts[8].0 > 1.2 * pts[0].0, "the frontier spans a real throughput range");
}

#[test]
fn proprate_feedback_loop_brings_the_delay_to_the_target() {
    // Paper Fig. 8: with the negative-feedback loop the achieved buffer delay tracks t̄_buff on a
    // mobile trace. On the LTE traces the *mean* is dominated by outages (seconds at ~0 capacity
    // with the in-flight cap's worth of packets queued), so the target is checked on the median
    // there and on the mean on the 12 ↔ 24 Mbit/s square wave, which has no outages.
    // §3.1 expects t̄_buff ≤ L_max − RTT: L_max is 100 ms (the presets') up to 80 ms, 200 ms above.
    let q = |target: f64, feedback: bool, trace_name: &str| {
        let lmax = if target > 80.0 { 200.0 } else { 100.0 };
        let params = json!({"target_ms": target, "lmax_ms": lmax, "feedback": feedback as u8});
        let s = proprate(params, trace_name);
        (s.queueing_delay_ms.p50, s.queueing_delay_ms.mean)
    };
    for target in [40.0, 80.0, 120.0] {
        let (on, off) = (
            q(target, true, "Verizon-LTE-short.up"),
            q(target, false, "Verizon-LTE-short.up"),
        );
        let (w_on, w_off) = (
            q(target, true, "bw12_24_5_5.mahi"),
            q(target, false, "bw12_24_5_5.mahi"),
        );
        println!(
            "t̄_buff {target} ms, Verizon-LTE-short.up: median {:.1} ms with the loop, {:.1} without \
             (mean {:.1} / {:.1}); bw12_24_5_5: mean {:.1} / {:.1}",
            on.0, off.0, on.1, off.1, w_on.1, w_off.1
        );
        assert!((on.0 / target - 1.0).abs() <= 0.15, "median {} vs {target}", on.0);
        assert!(
            (w_on.1 / target - 1.0).abs() <= 0.25,
            "square wave mean {} vs {target}",
            w_on.1
        );
        assert!(
            (on.0 / target - 1.0).abs() <= (off.0 / target - 1.0).abs() + 0.05,
            "the loop should not move the median away from the target: {on:?} vs {off:?}"
        );
    }
}

#[test]
fn proprate_readings_guard_and_monitor_rebase() {
    // The two readings docs/delay-schemes.md defends. (a) A guard of 2·ρ·min RTT caps the queue
    // at about one min RTT, so PR(M) and PR(H) coincide; sized at min RTT + t̄_buff they do not.
    let q = |params: Value, trace_name: &str| proprate(params, trace_name).queueing_delay_ms.mean;
    let (m_min, h_min) = (
        q(json!({"target_ms": 40, "guard_target": 0}), "Verizon-LTE-short.up"),
        q(json!({"target_ms": 80, "guard_target": 0}), "Verizon-LTE-short.up"),
    );
    let (m, h) = (
        q(json!({"target_ms": 40}), "Verizon-LTE-short.up"),
        q(json!({"target_ms": 80}), "Verizon-LTE-short.up"),
    );
    println!(
        "mean queueing PR(M) / PR(H): guard at min RTT {m_min:.1} / {h_min:.1} ms; at min RTT + target {m:.1} / {h:.1} ms"
    );
    assert!(
        m_min < 25.0 && h_min < 25.0,
        "min-RTT guard caps the delay near one min RTT"
    );
    assert!(h > 1.5 * h_min && h > m, "the default guard lets PR(H) reach further");
    // (b) A Monitor rebase of RD_min while a queue stands raises the achieved delay.
    let constant = |rebase: u8| {
        let v = json!({
            "duration_ms": 60000, "seed": 1, "record_packets": false,
            "hops": [
                {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}
            ],
            "flows": [{"scheme": "proprate", "fwd": [0], "rev": [1], "params": {"target_ms": 40, "monitor_rebase": rebase}}]
        });
        run(&v).summary.queueing_delay_ms.mean
    };
    let (with, without) = (constant(1), constant(0));
    println!(
        "constant 12 Mbit/s, t̄_buff 40 ms: mean queueing {with:.1} ms with the Monitor rebase, {without:.1} without"
    );
    assert!((without / 40.0 - 1.0).abs() <= 0.1, "without the rebase: {without}");
    assert!(
        with > 1.3 * without,
        "the rebase inflates the delay: {with} vs {without}"
    );
}

#[test]
fn proprate_second_flow_gets_its_share_with_the_monitor_rebase() {
    // Paper Fig. 10 (§5.4): a second flow of the same scheme after 30 s, both for another 60 s; the
    // second / first throughput ratio over those 60 s is "close to 100 %" for PropRate. On a
    // constant 12 Mbit/s link (not the paper's traces), seeds 1–3. Without the Monitor rebase of
    // RD_min the newcomer, whose RD_min holds the incumbent's queue, takes most of the link
    // (docs/delay-schemes.md).
    let ratio = |scheme: &str, rebase: u8, seed: u64| {
        let flow = json!({"scheme": scheme, "fwd": [0], "rev": [1], "params": {"monitor_rebase": rebase}});
        let mut second = flow.clone();
        second["start_ms"] = json!(30000);
        let v = json!({
            "duration_ms": 90000, "seed": seed, "record_packets": false, "sample_ms": 1000,
            "hops": [
                {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
                {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}
            ],
            "flows": [flow, second]
        });
        let r = flow_rates(&run(&v), 2, 30.0, 90.0);
        r[1] / r[0]
    };
    for scheme in ["proprate-m", "proprate-h"] {
        let with: Vec<f64> = (1..=3).map(|s| ratio(scheme, 1, s)).collect();
        let without = ratio(scheme, 0, 1);
        println!(
            "{scheme}: second / first, 30-90 s: {with:.2?} with the rebase (seeds 1-3), {without:.2} without (seed 1)"
        );
        for r in &with {
            assert!((0.8..=1.25).contains(r), "{scheme}: ratio {r} with the rebase");
        }
        assert!(
            without > 2.0,
            "{scheme}: without the rebase the newcomer wins: {without}"
        );
    }
}

/// BBR's mean cwnd (segments) after the first 10 s, and its p95 per-packet delay (ms), with the
/// ACK-aggregation allowance (`bbr.ack_aggregation`, Linux ≥ 5.1) on or off, over a 250-packet
/// drop-tail `data` link and an ACK link, 50 ms each way.
fn bbr_cwnd_with_ack_aggregation(data: Value, ack: Value, on: bool) -> (f64, f64) {
    let v = json!({
        "duration_ms": 30000, "seed": 1, "record_packets": false,
        "hops": [
            {"name": "data", "link": data, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 50},
            {"name": "ack", "link": ack, "queue": {"type": "infinite"}, "delay_ms": 50}
        ],
        "flows": [{"scheme": "bbr", "fwd": [0], "rev": [1], "params": {"ack_aggregation": on}}]
    });
    let r = run(&v);
    let t = &r.tables["flows_ts"];
    let (ts, cwnd) = (col(t, "t_s"), col(t, "cwnd"));
    let late: Vec<f64> = (0..ts.len()).filter(|&i| ts[i] >= 10.0).map(|i| cwnd[i]).collect();
    (
        late.iter().sum::<f64>() / late.len() as f64,
        r.summary.per_packet_delay_ms.p95,
    )
}

#[test]
fn bbr_ack_aggregation_allowance_is_small_with_even_acks_and_large_with_bursty_ones() {
    // tcp_bbr.c `bbr_update_ack_aggregation`: on a constant 24 Mbit/s link with ACKs over an
    // uncongested 100 Mbit/s one, ACKs come as evenly as the data leaves the bottleneck: each
    // epoch sees at most a delayed ACK's 2 segments beyond bw · epoch, so the allowance is a few
    // segments against a cwnd of ~400 (2 BDP). On the Verizon uplink trace (ABC paper's cellular
    // setup, ACKs over 12 Mbit/s), the link delivers in bursts, so ACKs are aggregated and the
    // allowance grows towards its bw · 100 ms cap (the cause of the +47 % p95 gap between `run`
    // and `emulate` for BBR, docs/emulation.md).
    let constant = |mbps: f64| json!({"type": "constant", "mbps": mbps});
    let verizon = json!({"type": "trace", "path": trace("Verizon-LTE-short.up"), "offset_ms": 0});
    let (c_off, _) = bbr_cwnd_with_ack_aggregation(constant(24.0), constant(100.0), false);
    let (c_on, _) = bbr_cwnd_with_ack_aggregation(constant(24.0), constant(100.0), true);
    let (v_off, p_off) = bbr_cwnd_with_ack_aggregation(verizon.clone(), constant(12.0), false);
    let (v_on, p_on) = bbr_cwnd_with_ack_aggregation(verizon, constant(12.0), true);
    println!("mean cwnd constant: off {c_off:.1}, on {c_on:.1}; Verizon: off {v_off:.1}, on {v_on:.1}; Verizon p95 delay {p_off:.0} → {p_on:.0} ms");
    assert!(c_on >= c_off, "the allowance only adds: {c_off} → {c_on}");
    assert!(c_on - c_off <= 8.0, "constant link, even ACKs: {c_off} → {c_on}");
    assert!(v_on - v_off >= 20.0, "bursty ACKs: {v_off} → {v_on}");
    assert!(p_on > p_off, "a larger cwnd keeps more queued: {p_off} → {p_on} ms");
}
