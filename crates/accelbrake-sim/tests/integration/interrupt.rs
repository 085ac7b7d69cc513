//! Stopping a run early (Ctrl-C): a set stop flag ends a run with `Error::Interrupted`, promptly.

use accelbrake_sim::{simulate_interruptible, Error, Scenario, Simulation};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A run far too long to finish during the test: 10 Cubic flows on 1 Gbit/s for an hour.
fn long_run() -> Scenario {
    let v = json!({
        "duration_ms": 3_600_000, "seed": 1, "record_packets": false,
        "hops": [
            {"name": "bottleneck", "link": {"type": "constant", "mbps": 1000}, "queue": {"type": "droptail", "packets": 8333}, "delay_ms": 50},
            {"name": "ack", "link": {"type": "constant", "mbps": 1000}, "queue": {"type": "infinite"}, "delay_ms": 50}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1], "count": 10}]
    });
    Scenario::from_json(&v.to_string()).expect("valid scenario")
}

#[test]
fn a_flag_already_set_stops_before_the_first_event() {
    let stop = AtomicBool::new(true);
    let t0 = Instant::now();
    let r = simulate_interruptible(&long_run(), &stop);
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.err());
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!(Error::Interrupted.to_string(), "interrupted");
}

#[test]
fn a_flag_set_mid_run_stops_it_within_a_fraction_of_a_second() {
    let scenario = long_run();
    let stop = AtomicBool::new(false);
    let (r, latency) = std::thread::scope(|s| {
        let run = s.spawn(|| {
            let r = simulate_interruptible(&scenario, &stop);
            (r, Instant::now())
        });
        std::thread::sleep(Duration::from_millis(300));
        let set_at = Instant::now();
        stop.store(true, Ordering::Relaxed);
        let (r, done_at) = run.join().expect("no panic");
        (r, done_at.saturating_duration_since(set_at))
    });
    assert!(matches!(r, Err(Error::Interrupted)), "{:?}", r.err());
    // Debug builds run ~10x slower than release; the release target is < 0.5 s.
    assert!(
        latency < Duration::from_millis(500),
        "stopped {latency:?} after the flag was set"
    );
}

#[test]
fn an_interrupted_simulation_stays_consistent_and_an_unset_flag_changes_nothing() {
    let v = json!({
        "duration_ms": 5000, "seed": 3, "record_packets": true,
        "hops": [
            {"name": "data", "link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 20},
            {"name": "ack", "link": {"type": "constant", "mbps": 24}, "queue": {"type": "infinite"}, "delay_ms": 20}
        ],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1], "count": 2}]
    });
    let s = Scenario::from_json(&v.to_string()).expect("valid scenario");
    // Same results with and without a (never set) flag.
    let plain = accelbrake_sim::simulate(&s).expect("runs");
    let with_flag = simulate_interruptible(&s, &AtomicBool::new(false)).expect("runs");
    assert_eq!(
        serde_json::to_string(&plain.summary).unwrap(),
        serde_json::to_string(&with_flag.summary).unwrap()
    );
    assert_eq!(
        serde_json::to_string(&plain.tables).unwrap(),
        serde_json::to_string(&with_flag.tables).unwrap()
    );
    // Interrupted part-way, a simulation still satisfies its invariants and can be resumed.
    let mut sim = Simulation::new(&s).expect("builds");
    let stop = AtomicBool::new(false);
    let half = sim.now() + accelbrake_sim::time::Dur::from_millis_f64(2500.0);
    sim.run_until_interruptible(half, &stop).expect("not interrupted");
    stop.store(true, Ordering::Relaxed);
    // The flag is looked at every STOP_CHECK_EVENTS events: the rest of the run either stops at
    // the next look or finishes first.
    match sim.run_interruptible(&stop) {
        Ok(()) | Err(Error::Interrupted) => {}
        Err(e) => panic!("{e}"),
    }
    sim.check_invariants().expect("invariants after an interrupt");
}
