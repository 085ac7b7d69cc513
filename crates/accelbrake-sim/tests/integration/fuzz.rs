//! Fuzzing the input parsers with proptest (stable Rust; a bounded number of cases in CI, more with
//! `PROPTEST_CASES=N`): trace files and scenarios, valid or not, never panic; accepted scenarios
//! run with every invariant intact.

use crate::common::trace;
use crate::hostile::scratch;
use crate::properties::cases;
use accelbrake_sim::link::Trace;
use accelbrake_sim::time::{Dur, Time};
use accelbrake_sim::{Error, Scenario, Simulation};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Lines a trace fuzzer splices together: good values and every kind of garbage.
fn trace_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u64..50).prop_map(|v| v.to_string()),
        1 => any::<u64>().prop_map(|v| v.to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => prop::sample::select(vec![
            "", " ", "\r", "\t7", "1.5", "1e3", "0x10", "+3", "-0", "NaN", "٣", "\u{feff}1", "1 2", "x", "\0",
            "99999999999999999999999", "1000000001",
        ])
        .prop_map(str::to_string),
        1 => prop::collection::vec(any::<u8>(), 0..6).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

proptest! {
    #![proptest_config(cases(256))]

    /// Any text: a trace or an error naming a line that exists; never a panic.
    #[test]
    fn trace_parser_never_panics(lines in prop::collection::vec(trace_line(), 0..30), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        match Trace::parse("fuzz", &text) {
            Ok(t) => {
                prop_assert!(!t.ms.is_empty());
                prop_assert!(t.ms.windows(2).all(|w| w[0] <= w[1]));
                prop_assert!(*t.ms.last().unwrap() > 0);
            }
            Err(Error::Trace { path, line, msg }) => {
                prop_assert_eq!(path, "fuzz");
                prop_assert!(line <= lines.len(), "line {} of {}", line, lines.len());
                prop_assert!(!msg.is_empty());
            }
            Err(e) => prop_assert!(false, "not a trace error: {e}"),
        }
    }

    /// Arbitrary bytes as a trace file.
    #[test]
    fn trace_files_of_random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let path = scratch(&format!("fuzz-{}.trace", std::process::id()), &bytes);
        let _ = Trace::load(&path);
    }
}

/// Values a scenario fuzzer puts in place of a valid one.
fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-3i64..400).prop_map(Value::from),
        prop::num::f64::NORMAL.prop_map(Value::from),
        prop::sample::select(vec![
            -1.0,
            0.0,
            1e-12,
            0.5,
            1e6,
            1e9,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN_POSITIVE
        ])
        .prop_map(Value::from),
        prop::sample::select(vec![
            "",
            "x",
            "cubic",
            "abc",
            "trace",
            "constant",
            "schedule",
            "droptail",
            "infinite",
            "codel",
            "pie",
            "bulk",
            "finite",
            "rate",
            "enqueue",
            "sojourn",
            "/dev/null",
            "/",
        ])
        .prop_map(Value::from),
        Just(json!([])),
        Just(json!({})),
        Just(json!([[0, 1]])),
        Just(json!([[0, 0], [1, -1]])),
        Just(json!([0, 0, 0])),
        Just(json!({"type": "droptail"})),
    ]
}

/// Valid scenarios touching every part of the schema.
fn bases() -> Vec<Value> {
    vec![
        json!({"duration_ms": 2000, "seed": 1, "sample_ms": 100, "record_packets": true,
            "hops": [
                {"name": "up", "link": {"type": "trace", "path": trace("Verizon-LTE-short.up"), "once": false},
                 "queue": {"type": "abc", "packets": 100, "eta": 0.98, "delta_ms": 133, "dt_ms": 50, "window_ms": 20,
                           "token_limit": 5, "rate_source": "dequeue", "delay_source": "qlen"}, "delay_ms": 20},
                {"name": "down", "link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 20}],
            "flows": [
                {"scheme": "abc", "fwd": [0], "rev": [1], "params": {}, "start_ms": 0, "count": 1},
                {"scheme": "cubic", "fwd": [0], "rev": [1], "app": {"type": "finite", "bytes": 100000},
                 "extra_delay_ms": 5, "host_jitter_us": 100, "delayed_ack": true, "rx_ts_granularity_us": 1000}]}),
        json!({"duration_ms": 1500, "seed": 2, "record_packets": false,
            "hops": [
                {"link": {"type": "schedule", "steps": [[0, 10], [500, 0], [700, 20]], "repeat_ms": 1000},
                 "queue": {"type": "pie", "packets": 200, "qdelay_ref_ms": 15, "t_update_ms": 15, "max_burst_ms": 150,
                           "alpha": 0.125, "beta": 1.25, "ecn": true, "ecn_prob_max": 0.1}, "delay_ms": 10},
                {"link": {"type": "constant", "mbps": 30}, "queue": {"type": "codel", "bytes": 100000, "target_ms": 5,
                          "interval_ms": 100, "mtu": 1514, "ecn": false}, "delay_ms": 10}],
            "flows": [
                {"scheme": "bbr", "fwd": [0], "rev": [1], "stop_ms": 1000},
                {"scheme": "newreno", "fwd": [0, 1], "rev": [1], "app": {"type": "rate", "mbps": 3}, "ecn": true},
                {"scheme": "copa", "fwd": [0], "rev": [], "count": 2, "start_ms": 200}]}),
        json!({"duration_ms": 1000,
            "hops": [{"link": {"type": "trace", "path": trace("bw12.mahi"), "once": true},
                      "queue": {"type": "droptail", "bytes": 30000}}],
            "flows": [{"scheme": "ledbat", "fwd": [0], "rev": []}, {"scheme": "vegas", "fwd": [0], "rev": [0]}]}),
    ]
}

/// JSON pointers of every value in `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

/// Run an accepted scenario in 1 ms steps, checking invariants, until its end or an event budget
/// (hostile rates can make a short run very long; that is work, not a hang).
fn run_bounded(s: &Scenario) -> Result<(), String> {
    let Ok(mut sim) = Simulation::new(s) else {
        return Ok(()); // e.g. a trace path the fuzzer invented: a typed error, fine
    };
    let end = Time(Dur::from_millis_f64(s.duration_ms).0);
    let mut t = Time::ZERO;
    while t < end && sim.stats.events < 200_000 {
        t += Dur::from_millis(1);
        sim.run_until(t);
        sim.check_invariants()?;
    }
    let r = sim.result();
    serde_json::to_string(&r.summary).map_err(|e| e.to_string())?;
    Ok(())
}

proptest! {
    #![proptest_config(cases(96))]

    /// Replace, delete or add one value anywhere in a valid scenario: the result is a typed error
    /// or a scenario that runs with every invariant intact; never a panic.
    #[test]
    fn scenario_mutations_never_panic(
        base in 0usize..3,
        pick in any::<prop::sample::Index>(),
        op in 0u8..5,
        scale in prop::sample::select(vec![0.0f64, 1e-6, 1e-3, 0.1, 0.5, 2.0, 10.0, 1e3, 1e6]),
        value in hostile_value(),
        extra in hostile_value(),
    ) {
        let mut v = bases()[base].clone();
        let mut ptrs = Vec::new();
        pointers(&v, String::new(), &mut ptrs);
        let ptr = pick.get(&ptrs).clone();
        if let Some((parent, key)) = ptr.rsplit_once('/') {
            let parent = v.pointer_mut(parent).unwrap();
            match (op, parent) {
                (0, p) => *p.pointer_mut(&format!("/{key}")).unwrap() = value,
                // Scale a number (mostly valid but extreme values: where overflows hide).
                (3 | 4, p) => {
                    let x = p.pointer_mut(&format!("/{key}")).unwrap();
                    if let Some(n) = x.as_f64() {
                        *x = if x.is_u64() && scale.fract() == 0.0 && n * scale < 1.8e19 {
                            Value::from((n * scale) as u64)
                        } else {
                            Value::from(n * scale)
                        };
                    }
                }
                (1, Value::Object(m)) => {
                    m.remove(key);
                }
                (1, Value::Array(a)) => {
                    a.remove(key.parse::<usize>().unwrap());
                }
                (_, Value::Object(m)) => {
                    m.insert(format!("{key}_x"), value);
                }
                (_, Value::Array(a)) => a.push(value),
                _ => {}
            }
        } else {
            v = value; // the whole document
        }
        if let Some(m) = v.as_object_mut() {
            if op == 2 {
                m.insert("flows_extra".into(), extra);
            }
        }
        let text = v.to_string();
        match Scenario::from_json(&text) {
            Ok(mut s) => {
                // Keep accepted runs short.
                s.duration_ms = s.duration_ms.min(2000.0);
                if s.flows.iter().map(|f| f.count).sum::<u32>() <= 50 {
                    run_bounded(&s).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
                }
            }
            Err(Error::Scenario { msg, .. }) | Err(Error::Param { msg, .. }) | Err(Error::Trace { msg, .. }) => {
                prop_assert!(!msg.is_empty());
            }
            Err(Error::Interrupted) => prop_assert!(false, "parsing cannot be interrupted"),
        }
    }

    /// Random bytes and random JSON-looking text as a scenario.
    #[test]
    fn scenario_text_never_panics(bytes in prop::collection::vec(
        prop_oneof![any::<u8>(), prop::sample::select(b"{}[]\":,0123456789.-eE truefalsnl".to_vec())], 0..120)) {
        let _ = Scenario::from_json(&String::from_utf8_lossy(&bytes));
    }
}
