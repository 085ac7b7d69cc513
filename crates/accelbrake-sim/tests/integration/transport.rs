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

#[test]
fn paced_rate_limited_flows_make_progress() {
    // Regression: a paced sender whose application ran dry used to ask to be woken at the current
    // time forever (review finding). ABC and BBR pace; the application rate is below and above
    // the link rate.
    for (scheme, mbps) in [("abc", 5.0), ("abc", 40.0), ("bbr", 5.0), ("bbr", 20.0)] {
        let queue = if scheme == "abc" {
            json!({"type": "abc", "packets": 250})
        } else {
            json!({"type": "droptail", "packets": 250})
        };
        let v = json!({
            "duration_ms": 10000, "seed": 1, "record_packets": false,
            "hops": [
                {"link": {"type": "constant", "mbps": 48}, "queue": queue, "delay_ms": 20},
                {"link": {"type": "constant", "mbps": 48}, "queue": {"type": "infinite"}, "delay_ms": 20}
            ],
            "flows": [{"scheme": scheme, "fwd": [0], "rev": [1], "app": {"type": "rate", "mbps": mbps}}]
        });
        let r = run(&v);
        let g = r.summary.flows[0].goodput_mbps;
        println!(
            "{scheme} at {mbps} Mbit/s offered: goodput {g:.2}, events {}",
            r.summary.events
        );
        assert!(g > 0.9 * mbps * 1448.0 / 1448.0 * 0.95, "{scheme} {mbps}: {g}");
        assert!(
            r.summary.events < 2_000_000,
            "{scheme} {mbps}: {} events",
            r.summary.events
        );
    }
}

#[test]
fn a_stopped_flow_never_reports_more_than_the_link() {
    // Data queued at the stop time still arrives; the throughput's time base must include it.
    let v = json!({
        "duration_ms": 5000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "infinite"}, "delay_ms": 10}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1], "stop_ms": 2000}]
    });
    let r = run(&v);
    let f = &r.summary.flows[0];
    assert!(
        f.throughput_mbps <= 10.0 * 1.0001 && f.goodput_mbps <= 10.0,
        "{} / {}",
        f.throughput_mbps,
        f.goodput_mbps
    );
}

#[test]
fn flow_time_series_bins_line_up_with_a_rate_step() {
    // A link that steps from 10 to 40 Mbit/s at 4.1 s: the 4.1 s row must show the new rate
    // (review finding: float truncation shifted some rows by one bin).
    let v = json!({
        "duration_ms": 8000, "seed": 1, "record_packets": false,
        "hops": [
            {"link": {"type": "schedule", "steps": [[0, 10], [4100, 40]]}, "queue": {"type": "droptail", "packets": 2000}, "delay_ms": 5},
            {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 5}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1]}]
    });
    let r = run(&v);
    let h = &r.tables["hops_ts"];
    let (ts, hop, cap, thr) = (
        col(h, "t_s"),
        icol(h, "hop"),
        col(h, "capacity_mbps"),
        col(h, "throughput_mbps"),
    );
    let row = |t: f64| {
        (0..ts.len())
            .find(|&i| hop[i] == 0 && (ts[i] - t).abs() < 1e-9)
            .unwrap()
    };
    assert!((cap[row(4.0)] - 10.0).abs() < 1e-6 && (cap[row(4.1)] - 40.0).abs() < 1e-6);
    // Backlogged with a deep buffer: the link is busy, so the flow rows equal the link rows
    // shifted by the 5 ms propagation delay; at least the 4.2 s row must show the higher rate.
    let f = &r.tables["flows_ts"];
    let (fts, fthr) = (col(f, "t_s"), col(f, "throughput_mbps"));
    let frow = |t: f64| (0..fts.len()).find(|&i| (fts[i] - t).abs() < 1e-9).unwrap();
    assert!(
        fthr[frow(4.0)] < 11.0 && fthr[frow(4.2)] > 35.0,
        "{} {}",
        fthr[frow(4.0)],
        fthr[frow(4.2)]
    );
    assert!(thr[row(4.2)] > 35.0);
    let distinct = (0..fts.len())
        .filter(|&i| fts[i] > 4.05 && fts[i] < 4.15)
        .map(|i| fthr[i])
        .next()
        .unwrap();
    assert!(distinct > 30.0, "the 4.1 s flow row shows its own bin ({distinct})");
}
