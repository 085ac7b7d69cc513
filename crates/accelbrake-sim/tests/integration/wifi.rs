//! Wi-Fi (802.11n A-MPDU) links in whole runs: the engine drives the link, the ABC router reads
//! the estimator, invariants hold, bad input names the key, per-user queues share airtime.

use crate::common::{col, icol, run};
use accelbrake_sim::Scenario;
use serde_json::{json, Value};

/// `flows` over a Wi-Fi downlink with `queue`, ACKs over 100 Mbit/s; 25 ms each way.
fn wifi(link: Value, queue: Value, flows: Value, secs: f64) -> Value {
    json!({
        "duration_ms": secs * 1000.0,
        "seed": 3,
        "record_packets": false,
        "hops": [
            {"name": "wifi", "link": link, "queue": queue, "delay_ms": 25},
            {"name": "ack", "link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 25}
        ],
        "flows": flows
    })
}

fn abc_queue() -> Value {
    json!({"type": "abc", "packets": 250, "dt_ms": 60})
}

#[test]
fn a_backlogged_udp_like_flow_fills_the_link_to_its_ground_truth() {
    // A rate-limited sender above capacity keeps the queue backlogged: throughput = truth ± 2 %.
    let link = json!({"type": "wifi", "users": [{"mcs": {"type": "fixed", "mcs": 4}}]});
    let v = wifi(
        link,
        json!({"type": "droptail", "packets": 1000}),
        // HyStart off: the test is about the link, and HyStart's ACK-train exit (its rounds start
        // with a flight, as in Linux) can leave Cubic below the link's rate for the first seconds.
        json!([{"scheme": "cubic", "fwd": [0], "rev": [1], "params": {"hystart": false}}]),
        20.0,
    );
    let r = run(&v);
    let hop = &r.summary.hops[0];
    assert!(hop.utilization > 0.97 && hop.utilization < 1.02, "{hop:?}");
    let t = &r.tables["wifi_batches"];
    assert!(col(t, "truth_mbps")
        .iter()
        .all(|&x| (x - col(t, "truth_mbps")[0]).abs() < 1e-9));
}

#[test]
fn abc_over_wifi_tracks_an_alternating_mcs_with_low_delay() {
    let link = json!({"type": "wifi", "users": [{"mcs": {"type": "alternate", "values": [1, 7], "period_ms": 2000}}]});
    let abc = run(&wifi(
        link.clone(),
        abc_queue(),
        json!([{"scheme": "abc", "fwd": [0], "rev": [1]}]),
        20.0,
    ));
    let cubic = run(&wifi(
        link,
        json!({"type": "droptail", "packets": 250}),
        json!([{"scheme": "cubic", "fwd": [0], "rev": [1]}]),
        20.0,
    ));
    let (a, c) = (&abc.summary, &cubic.summary);
    eprintln!(
        "abc: util {:.3} p95 {:.1} ms; cubic: util {:.3} p95 {:.1} ms",
        a.utilization, a.per_packet_delay_ms.p95, c.utilization, c.per_packet_delay_ms.p95
    );
    assert!(a.utilization > 0.6, "{}", a.utilization);
    assert!(a.per_packet_delay_ms.p95 < c.per_packet_delay_ms.p95);
    // The estimate follows the MCS: high at MCS 7, low at MCS 1.
    let t = &abc.tables["wifi_batches"];
    let (mcs, mu) = (icol(t, "mcs"), col(t, "mu_hat_mbps"));
    let mean = |m: i64| {
        let v: Vec<f64> = mcs.iter().zip(mu).filter(|(&x, _)| x == m).map(|(_, &y)| y).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean(7) > 2.0 * mean(1), "{} vs {}", mean(7), mean(1));
}

#[test]
fn per_user_queues_give_each_user_its_own_router_and_airtime() {
    let link = json!({"type": "wifi", "queues": "per-user", "users": [
        {"mcs": {"type": "fixed", "mcs": 7}}, {"mcs": {"type": "fixed", "mcs": 2}}]});
    let flows = json!([{"scheme": "cubic", "fwd": [0], "rev": [1], "count": 2}]);
    let r = run(&wifi(link, json!({"type": "droptail", "packets": 200}), flows, 20.0));
    let t = &r.tables["wifi_batches"];
    let users = icol(t, "user");
    let n0 = users.iter().filter(|&&u| u == 0).count() as f64;
    assert!((n0 / users.len() as f64 - 0.5).abs() < 0.05, "{n0} of {}", users.len());
    // Batches take turns, so backlogged users move the same bytes (802.11's performance
    // anomaly), the MCS 7 user in far less airtime.
    let f = &r.summary.flows;
    assert!(
        (f[0].throughput_mbps / f[1].throughput_mbps - 1.0).abs() < 0.02,
        "{f:?}"
    );
    let air = col(t, "airtime_us");
    let mean_air = |u: i64| {
        let v: Vec<f64> = users
            .iter()
            .zip(air)
            .filter(|(&x, _)| x == u)
            .map(|(_, &a)| a)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(mean_air(1) > 2.0 * mean_air(0), "{} vs {}", mean_air(0), mean_air(1));
}

#[test]
fn bad_wifi_input_names_the_key() {
    let cases = [
        (json!({"type": "wifi", "users": []}), "hops[0].link.users"),
        (
            json!({"type": "wifi", "users": [{"mcs": {"type": "fixed", "mcs": 8}}]}),
            "hops[0].link.users[0].mcs.mcs",
        ),
        (
            json!({"type": "wifi", "width_mhz": 80, "users": [{"mcs": {"type": "fixed", "mcs": 1}}]}),
            "hops[0].link.width_mhz",
        ),
        (
            json!({"type": "wifi", "queues": "fair", "users": [{"mcs": {"type": "fixed", "mcs": 1}}]}),
            "hops[0].link.queues",
        ),
        (
            json!({"type": "wifi", "users": [{"mcs": {"type": "fixed", "mcs": 1}, "max_batch": 0}]}),
            "hops[0].link.users[0].max_batch",
        ),
        (
            json!({"type": "wifi", "users": [{"mcs": {"type": "brownian", "min": 3, "max": 7, "period_ms": 10}}]}),
            "hops[0].link.users[0].mcs.period_ms",
        ),
    ];
    for (link, key) in cases {
        let v = wifi(
            link,
            abc_queue(),
            json!([{"scheme": "abc", "fwd": [0], "rev": [1]}]),
            1.0,
        );
        let e = Scenario::from_json(&v.to_string())
            .and_then(|s| accelbrake_sim::Simulation::new(&s).map(|_| ()))
            .unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

#[test]
fn wifi_runs_are_deterministic() {
    let link = json!({"type": "wifi", "jitter_us": 200, "users": [{"mcs": {"type": "brownian", "min": 3, "max": 7, "period_ms": 2000}}]});
    let v = wifi(
        link,
        abc_queue(),
        json!([{"scheme": "abc", "fwd": [0], "rev": [1]}]),
        8.0,
    );
    let (a, b) = (run(&v), run(&v));
    assert_eq!(a.summary.throughput_mbps, b.summary.throughput_mbps);
    assert_eq!(
        col(&a.tables["wifi_batches"], "mu_hat_mbps"),
        col(&b.tables["wifi_batches"], "mu_hat_mbps")
    );
}
