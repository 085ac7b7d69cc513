//! Hostile inputs: every bad trace file or scenario value gives a typed error naming the file and
//! line or the key — never a panic, never a hang.

use accelbrake_sim::link::Trace;
use accelbrake_sim::{Error, Scenario};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A scratch file under cargo's per-target temporary directory.
pub fn scratch(name: &str, bytes: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn trace_err(bytes: &[u8]) -> (usize, String) {
    let path = scratch("t.trace", bytes);
    match Trace::load(&path) {
        Err(Error::Trace { path: p, line, msg }) => {
            assert_eq!(p, path, "the error names the file");
            (line, msg)
        }
        other => panic!("expected a trace error, got {other:?}"),
    }
}

#[test]
fn bad_trace_files_name_the_file_and_line() {
    // (contents, line the error must name)
    let cases: &[(&[u8], usize)] = &[
        (b"", 0),                          // empty
        (b"\n\n  \n", 0),                  // only blank lines
        (b"12\nabc\n", 2),                 // non-numeric
        (b"1.5\n", 1),                     // not an integer
        (b"5\n3\n", 2),                    // decreasing
        (b"0\n0\n0\n", 0),                 // all zero (Mahimahi needs a last timestamp > 0)
        (b"-4\n", 1),                      // negative
        (b"1\n99999999999999999999\n", 2), // huge: overflows u64
        (b"1\n2000000000\n", 2),           // huge: above the 11.6-day cap
        (b"1\n2\n3 garbage\n", 3),         // trailing garbage on a line
        (b"1\n2\nEOF\n", 3),               // trailing garbage line
        (b"1\n\n2\n", 2),                  // blank line in the middle
        (b"1\r\n2\r\nx\r\n", 3),           // CRLF with garbage
        (b"\xef\xbb\xbf1\n", 1),           // UTF-8 byte-order mark
        (b"1\n2\x00\n", 2),                // NUL byte
    ];
    for (bytes, line) in cases {
        let (got, msg) = trace_err(bytes);
        assert_eq!(got, *line, "{:?}: {msg}", String::from_utf8_lossy(bytes));
        assert!(!msg.is_empty());
    }
    // Not UTF-8: named as a whole-file problem, not a panic.
    let (line, msg) = trace_err(b"1\n\xff\xfe\n");
    assert_eq!(line, 0, "{msg}");
    // A directory and a missing file.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .to_string_lossy()
        .into_owned();
    assert!(matches!(Trace::load(&dir), Err(Error::Trace { line: 0, .. })));
    assert!(matches!(
        Trace::load("/nonexistent/x.up"),
        Err(Error::Trace { line: 0, .. })
    ));
}

#[test]
fn odd_but_valid_traces_are_accepted() {
    let ok = |bytes: &[u8]| Trace::load(&scratch("ok.trace", bytes)).unwrap().ms;
    assert_eq!(ok(b"1\r\n1\r\n3\r\n"), vec![1, 1, 3]); // CRLF
    assert_eq!(ok(b"0\n0\n7"), vec![0, 0, 7]); // no final newline, zeros before the end
    assert_eq!(ok(b"  4 \n5\n\n\n"), vec![4, 5]); // spaces, trailing blank lines
}

#[test]
fn a_huge_trace_loads_quickly() {
    // 5 million opportunities (~45 MB): parses in well under the time of a real run.
    let mut text = String::with_capacity(50_000_000);
    for i in 0..5_000_000u64 {
        text.push_str(&(1 + i / 10).to_string());
        text.push('\n');
    }
    let path = scratch("huge.trace", text.as_bytes());
    let t0 = Instant::now();
    let t = Trace::load(&path).unwrap();
    assert_eq!(t.ms.len(), 5_000_000);
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
}

/// A one-hop scenario on `link`, with `queue`.
fn on_link(link: Value, queue: Value, secs: f64) -> Value {
    json!({"duration_ms": secs * 1000.0, "seed": 1, "record_packets": false,
           "hops": [{"link": link, "queue": queue, "delay_ms": 10},
                    {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10}],
           "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1]}]})
}

#[test]
fn dense_traces_do_not_hang() {
    // Two million opportunities in every millisecond (24 Tbit/s) with one slow flow: the link
    // wastes almost all of them. Serving them one by one would take minutes per simulated second.
    let mut text = String::new();
    for _ in 0..2_000_000 {
        text.push_str("1\n");
    }
    let path = scratch("dense.trace", text.as_bytes());
    for queue in [
        json!({"type": "droptail", "packets": 100}),
        json!({"type": "abc", "packets": 100}),
    ] {
        let mut v = on_link(json!({"type": "trace", "path": path}), queue, 2.0);
        v["flows"][0]["app"] = json!({"type": "rate", "mbps": 1});
        let t0 = Instant::now();
        let r = accelbrake_sim::simulate(&Scenario::from_json(&v.to_string()).unwrap()).unwrap();
        assert!(r.summary.utilization < 1e-6);
        assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    }
}

fn scenario_err(v: &Value) -> Error {
    match Scenario::from_json(&v.to_string()) {
        Err(e) => e,
        Ok(s) => match accelbrake_sim::Simulation::new(&s) {
            Err(e) => e,
            Ok(_) => panic!("accepted: {v}"),
        },
    }
}

#[test]
fn bad_scenario_values_name_the_key() {
    let base = on_link(
        json!({"type": "constant", "mbps": 10}),
        json!({"type": "droptail", "packets": 100}),
        1.0,
    );
    // (JSON pointer, bad value, text the error must contain)
    let cases: Vec<(&str, Value, &str)> = vec![
        ("/duration_ms", json!(-1), "duration_ms"),
        ("/duration_ms", json!(0), "duration_ms"),
        ("/duration_ms", json!(1e300), "duration_ms"),
        ("/duration_ms", json!("60s"), "duration_ms"),
        ("/seed", json!(-1), "seed"),
        ("/sample_ms", json!(0), "sample_ms"),
        ("/hops/0/delay_ms", json!(-5), "hops[0].delay_ms"),
        ("/hops/0/link/mbps", json!(0), "hops[0].link.mbps"),
        ("/hops/0/link/mbps", json!(-3), "hops[0].link.mbps"),
        ("/hops/0/link/mbps", json!(1e9), "hops[0].link.mbps"),
        ("/hops/0/link/type", json!("fibre"), "fibre"),
        (
            "/hops/0/link",
            json!({"type": "trace", "path": ""}),
            "hops[0].link.path",
        ),
        (
            "/hops/0/link",
            json!({"type": "trace", "path": "/no/such/trace"}),
            "/no/such/trace",
        ),
        (
            "/hops/0/link",
            json!({"type": "schedule", "steps": []}),
            "hops[0].link.steps",
        ),
        (
            "/hops/0/link",
            json!({"type": "schedule", "steps": [[5, 10]]}),
            "hops[0].link.steps",
        ),
        (
            "/hops/0/link",
            json!({"type": "schedule", "steps": [[0, 10], [0, 5]]}),
            "hops[0].link.steps",
        ),
        (
            "/hops/0/link",
            json!({"type": "schedule", "steps": [[0, 0]]}),
            "hops[0].link.steps",
        ),
        (
            "/hops/0/link",
            json!({"type": "schedule", "steps": [[0, -1]]}),
            "hops[0].link.steps[0][1]",
        ),
        ("/hops/0/queue/packets", json!(0), "hops[0].queue.packets"),
        ("/hops/0/queue/packets", json!(-1), "hops[0].queue"),
        ("/hops/0/queue/type", json!("red"), "red"),
        ("/hops/0/queue", json!({"type": "droptail"}), "hops[0].queue"),
        (
            "/hops/0/queue",
            json!({"type": "droptail", "bytes": 10}),
            "hops[0].queue.bytes",
        ),
        ("/hops/0/queue", json!({"type": "abc", "eta": -1}), "hops[0].queue"),
        (
            "/hops/0/queue",
            json!({"type": "abc", "rate_source": "magic"}),
            "hops[0].queue.rate_source",
        ),
        (
            "/hops/0/queue",
            json!({"type": "pie", "beta": -1}),
            "hops[0].queue.beta",
        ),
        ("/hops", json!([]), "hops"),
        ("/flows", json!([]), "flows"),
        ("/flows/0/scheme", json!("cubc"), "did you mean 'cubic'"),
        ("/flows/0/scheme", json!(""), "flows[0].scheme"),
        ("/flows/0/fwd", json!([7]), "flows[0].fwd"),
        ("/flows/0/fwd", json!([-1]), "flows[0].fwd"),
        ("/flows/0/count", json!(0), "flows[0].count"),
        ("/flows/0/count", json!(1e7), "flows[0].count"),
        ("/flows/0/start_ms", json!(-1), "flows[0].start_ms"),
        ("/flows/0/stop_ms", json!(-1), "flows[0].stop_ms"),
        ("/flows/0/extra_delay_ms", json!(-1), "flows[0].extra_delay_ms"),
        ("/flows/0/host_jitter_us", json!(-1), "flows[0].host_jitter_us"),
        (
            "/flows/0/rx_ts_granularity_us",
            json!(-1),
            "flows[0].rx_ts_granularity_us",
        ),
        (
            "/flows/0/rx_ts_granularity_us",
            json!(1e300),
            "flows[0].rx_ts_granularity_us",
        ),
        (
            "/flows/0/app",
            json!({"type": "finite", "bytes": 0}),
            "flows[0].app.bytes",
        ),
        ("/flows/0/app", json!({"type": "rate", "mbps": -1}), "flows[0].app.mbps"),
        ("/flows/0/params", json!({"beta": 7}), "beta"),
        ("/flows/0/params", json!({"no_such_knob": 1}), "no_such_knob"),
        ("/flows/0/colour", json!("blue"), "colour"),
        ("/unknown_top_level", json!(1), "unknown_top_level"),
    ];
    for (ptr, bad, want) in cases {
        let mut v = base.clone();
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        let target = if parent.is_empty() {
            &mut v
        } else {
            v.pointer_mut(parent).unwrap()
        };
        match target {
            Value::Object(m) => {
                m.insert(key.to_string(), bad.clone());
            }
            Value::Array(a) => a[key.parse::<usize>().unwrap()] = bad.clone(),
            _ => unreachable!(),
        }
        let e = scenario_err(&v).to_string();
        assert!(e.contains(want), "{ptr} = {bad}: error '{e}' does not mention '{want}'");
    }
}

#[test]
fn time_series_that_would_not_fit_in_memory_are_refused() {
    // A week at 1 ms bins is 6·10^8 rows per flow: refused up front, not an allocation failure.
    let mut v = on_link(
        json!({"type": "constant", "mbps": 10}),
        json!({"type": "droptail", "packets": 100}),
        7.0 * 24.0 * 3600.0,
    );
    v["sample_ms"] = json!(1);
    let e = scenario_err(&v).to_string();
    assert!(e.contains("sample_ms"), "{e}");
}

#[test]
fn scenario_json_syntax_errors_give_line_and_column() {
    let e = Scenario::from_json("{\"duration_ms\": 1000,\n \"hops\": [,]}").unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, Error::Scenario { .. }) && s.contains("line 2"), "{s}");
    // Shape errors name the path and suggest a spelling instead of a position.
    let e = Scenario::from_json(r#"{"duration_ms": 1000, "hops": [{"link": {"type": "constnt", "mbps": 1}, "queue": {"type": "infinite"}}], "flows": []}"#)
        .unwrap_err();
    match e {
        Error::Scenario { path, msg } => {
            assert_eq!(path, "hops[0].link.type");
            assert!(
                msg.contains("unknown type 'constnt' (did you mean 'constant'?)"),
                "{msg}"
            );
            assert!(!msg.contains("column"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    // NaN and infinities are not JSON; deeply nested input is refused by the parser, not the stack.
    assert!(Scenario::from_json("{\"duration_ms\": NaN}").is_err());
    assert!(Scenario::from_json("{\"duration_ms\": Infinity}").is_err());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(Scenario::from_json(&deep).is_err());
}

#[test]
fn unbounded_windows_are_capped_at_tcps_maximum() {
    // An ABC sender with no ABC router on its path is never braked, and on a data path that is
    // all but instantaneous (found by the Python fuzzer with an empty forward path, now refused)
    // its window doubles every RTT: within one simulated second the scoreboard needed over 5 GB.
    // TCP's window cannot exceed 2^30 bytes (RFC 7323), which now bounds it.
    let v = json!({"duration_ms": 1000, "record_packets": false,
        "hops": [{"link": {"type": "constant", "mbps": 1e6}, "queue": {"type": "infinite"}, "delay_ms": 0},
                 {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "codel"}, "delay_ms": 20}],
        "flows": [{"scheme": "abc", "fwd": [0], "rev": [1]}]});
    let r = crate::common::run(&v);
    let in_flight = crate::common::icol(&r.tables["flows_ts"], "in_flight");
    let max = *in_flight.iter().max().unwrap();
    assert!(max > 100_000, "the window did grow ({max})");
    assert!(max <= i64::from(accelbrake_sim::sender::MAX_WINDOW), "{max}");
}

fn param_err(v: &Value) -> (String, String) {
    match scenario_err(v) {
        Error::Param { key, msg } => (key, msg),
        other => panic!("expected a parameter error, got {other:?}"),
    }
}

#[test]
fn a_flow_with_an_empty_data_path_is_refused() {
    // A flow crossing no hop reported 570 Mbit/s on a 24 Mbit/s bottleneck.
    let mut v = on_link(
        json!({"type": "constant", "mbps": 24}),
        json!({"type": "droptail", "packets": 100}),
        1.0,
    );
    v["flows"][0]["fwd"] = json!([]);
    let (key, msg) = param_err(&v);
    assert_eq!(key, "flows[0].fwd", "{msg}");
    assert!(msg.contains("empty data path"), "{msg}");
}

#[test]
fn flows_starting_at_or_after_the_end_are_warned_about() {
    // Such flows gave silent all-zero rows. Now the summary carries a warning
    // naming flows[i].start_ms and the duration (not an error: a shortened run of an experiment
    // whose flows join later is legitimate).
    for start in [1000.0, 5000.0] {
        let mut v = on_link(
            json!({"type": "constant", "mbps": 24}),
            json!({"type": "droptail", "packets": 100}),
            1.0,
        );
        v["flows"] = json!([{"scheme": "cubic", "fwd": [0], "rev": [1]},
                            {"scheme": "cubic", "fwd": [0], "rev": [1], "start_ms": start}]);
        let r = crate::common::run(&v);
        let w: Vec<_> = r
            .summary
            .warnings
            .iter()
            .filter(|w| w.code == "flow-starts-after-end")
            .collect();
        assert_eq!(w.len(), 1, "{:?}", r.summary.warnings);
        assert_eq!(w[0].parameter, "flows[1].start_ms");
        assert!(w[0].message.contains("duration_ms = 1000 ms"), "{}", w[0].message);
    }
    // Just before the end is still a flow, without the warning.
    let mut v = on_link(
        json!({"type": "constant", "mbps": 24}),
        json!({"type": "droptail", "packets": 100}),
        1.0,
    );
    v["flows"][0]["start_ms"] = json!(999.0);
    let r = crate::common::run(&v);
    assert!(r.summary.warnings.iter().all(|w| w.code != "flow-starts-after-end"));
}

#[cfg(unix)]
#[test]
fn trace_paths_must_be_regular_files() {
    // A FIFO blocked forever and /dev/zero was read until memory ran out.
    let msg = |path: &str| match Trace::load(path) {
        Err(Error::Trace { line: 0, msg, .. }) => msg,
        other => panic!("{path}: expected a trace error, got {other:?}"),
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("trace.fifo");
    let _ = std::fs::remove_file(&fifo);
    let ok = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    let t0 = Instant::now();
    let m = msg(&fifo.to_string_lossy());
    assert!(m.contains("FIFO"), "{m}");
    assert!(t0.elapsed() < Duration::from_secs(2));
    let m = msg("/dev/zero");
    assert!(m.contains("character device"), "{m}");
    let m = msg(&dir.to_string_lossy());
    assert!(m.contains("directory"), "{m}");
    // Bounded size: a sparse file just over the limit is refused without reading it.
    let big = dir.join("big.trace");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(accelbrake_sim::link::MAX_TRACE_BYTES + 1).unwrap();
    let m = msg(&big.to_string_lossy());
    assert!(m.contains("at most"), "{m}");
    std::fs::remove_file(&big).unwrap();
}

#[test]
fn seeds_are_exact_u64() {
    // Seeds above 2^53 were rounded on the way (through a float) and 2^64 − 1 was
    // refused. The core's seed is a u64 parsed exactly, and runs differ between neighbours.
    let mut v = on_link(
        json!({"type": "constant", "mbps": 10}),
        json!({"type": "droptail", "packets": 100}),
        0.2,
    );
    for seed in [(1u64 << 53) + 1, u64::MAX] {
        v["seed"] = json!(seed);
        let s = Scenario::from_json(&v.to_string()).unwrap();
        assert_eq!(s.seed, seed);
        let r = accelbrake_sim::simulate(&s).unwrap();
        assert_eq!(r.summary.seed, seed);
    }
    // The catalog's range (documentation of the key) covers every u64.
    let cat = accelbrake_sim::catalog::catalog();
    let seed = cat["network"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "seed")
        .unwrap();
    assert_eq!(seed["max"].as_f64().unwrap(), u64::MAX as f64, "{seed}");
}

/// Issue: `run --trace const:1000 --duration 60` with records peaked near 1 GB, and longer runs
/// aborted the process on a failed allocation. The memory budget refuses them before the run.
#[test]
fn runs_over_the_memory_budget_are_refused_before_they_start() {
    let key_msg = |v: &Value| match accelbrake_sim::Simulation::new(&Scenario::from_json(&v.to_string()).unwrap()) {
        Err(Error::Param { key, msg }) => Some((key, msg)),
        Err(e) => panic!("expected a parameter error, got {e}"),
        Ok(_) => None,
    };
    // An hour at 1 Gbit/s with per-packet records: ~3·10^8 packets, far over 2 GiB.
    let mut v = on_link(
        json!({"type": "constant", "mbps": 1000}),
        json!({"type": "droptail", "packets": 250}),
        3600.0,
    );
    v["record_packets"] = json!(true);
    let (key, msg) = key_msg(&v).expect("refused");
    assert_eq!(key, "memory_budget_mb");
    assert!(
        msg.contains("record_packets = false") && msg.contains("--memory-budget-mb"),
        "{msg}"
    );
    // The same without records: time series only, within the budget.
    v["record_packets"] = json!(false);
    assert!(key_msg(&v).is_none());
    // A budget raised on purpose lets the recorded run be built.
    v["record_packets"] = json!(true);
    v["memory_budget_mb"] = json!(1e6);
    assert!(key_msg(&v).is_none());
    // A week in 100 ms bins without records: the time series alone exceed the budget.
    let mut w = on_link(
        json!({"type": "constant", "mbps": 10}),
        json!({"type": "droptail", "packets": 250}),
        7.0 * 86400.0,
    );
    w["sample_ms"] = json!(100.0);
    let (key, msg) = key_msg(&w).expect("refused");
    assert_eq!(key, "memory_budget_mb");
    assert!(msg.contains("sample_ms"), "{msg}");
    // Nonsense budgets are refused by validation.
    for bad in [json!(0), json!(-1), json!(f64::MAX)] {
        let mut b = on_link(
            json!({"type": "constant", "mbps": 10}),
            json!({"type": "droptail", "packets": 250}),
            1.0,
        );
        b["memory_budget_mb"] = bad.clone();
        match Scenario::from_json(&b.to_string()) {
            Err(Error::Param { key, .. }) => assert_eq!(key, "memory_budget_mb"),
            other => panic!("{bad}: expected a parameter error, got {other:?}"),
        }
    }
}

/// Issue: a value above a range's upper end was reported as "expected a delay ≥ 0 ms".
#[test]
fn values_above_a_range_name_the_upper_bound() {
    let mut v = on_link(
        json!({"type": "constant", "mbps": 1e9}),
        json!({"type": "droptail", "packets": 250}),
        1.0,
    );
    match Scenario::from_json(&v.to_string()) {
        Err(Error::Param { key, msg }) => {
            assert_eq!(key, "hops[0].link.mbps");
            assert!(msg.contains("at most 1000000"), "{msg}");
        }
        other => panic!("expected a parameter error, got {other:?}"),
    }
    v["hops"][0]["link"] = json!({"type": "constant", "mbps": 10});
    v["hops"][0]["delay_ms"] = json!(1e9);
    match Scenario::from_json(&v.to_string()) {
        Err(Error::Param { key, msg }) => {
            assert_eq!(key, "hops[0].delay_ms");
            assert!(msg.contains("≥ 0 ms, at most 10000000"), "{msg}");
        }
        other => panic!("expected a parameter error, got {other:?}"),
    }
    // Below the range: the lower end is what the message already says.
    v["hops"][0]["delay_ms"] = json!(-1);
    match Scenario::from_json(&v.to_string()) {
        Err(Error::Param { msg, .. }) => assert!(!msg.contains("at most"), "{msg}"),
        other => panic!("expected a parameter error, got {other:?}"),
    }
}

/// The budget counts the time-series rows flows will have (from their start,
/// until their stop or estimated completion), not every flow in every bin, so an hour of 20,000
/// short flows is built; and it still refuses a run whose flows alone are too many.
#[test]
fn the_memory_budget_counts_the_rows_flows_keep() {
    let build = |v: &Value| Scenario::from_json(&v.to_string()).and_then(|s| accelbrake_sim::Simulation::new(&s));
    let mut v = on_link(
        json!({"type": "constant", "mbps": 96}),
        json!({"type": "droptail", "packets": 250}),
        3600.0,
    );
    v["sample_ms"] = json!(100.0);
    let long = v["flows"][0].clone();
    let mut short = long.clone();
    short["app"] = json!({"type": "finite", "bytes": 10000});
    short["count"] = json!(20_000);
    short["start_ms"] = json!(1000.0);
    v["flows"] = json!([long.clone(), short]);
    // Counting every flow in every bin: 36,000 bins × 20,001 flows × 320 B = 230 GB, refused
    // before; each short flow is counted for a few seconds instead (~13 MB of rows per second of
    // lifetime for all of them), well under 2 GiB.
    assert!(build(&v).is_ok(), "{:?}", build(&v).err().map(|e| e.to_string()));
    // As backlogged flows from 1 s to the end: 7.2·10^8 rows, over the row limit (validation).
    v["flows"][1]["app"] = json!({"type": "bulk"});
    let Err(Error::Param { key, .. }) = build(&v) else {
        panic!("20,000 backlogged flows for an hour in 100 ms bins must be refused")
    };
    assert_eq!(key, "sample_ms");
    // 1,000 of them: 3.6·10^7 rows, under the row limit but ~11.5 GB, over the budget.
    v["flows"][1]["count"] = json!(1000);
    let Err(Error::Param { key, msg }) = build(&v) else {
        panic!("1,000 backlogged flows for an hour in 100 ms bins must be refused")
    };
    assert_eq!(key, "memory_budget_mb");
    assert!(msg.contains("1001 flows") && msg.contains("sample_ms"), "{msg}");
    // 20,000 that stop after 2 s are built: rows until 3 s after the stop.
    v["flows"][1]["count"] = json!(20_000);
    v["flows"][1]["stop_ms"] = json!(3000.0);
    assert!(build(&v).is_ok());
    // Flows that start after the end have no rows: only their fixed cost is counted.
    v["flows"][1]["start_ms"] = json!(4e6);
    v["flows"][1]["stop_ms"] = json!(5e6);
    assert!(build(&v).is_ok());
    // ... which is enough to refuse them with a small budget (20,000 × 3 kB = 60 MB > 10 MB).
    v["memory_budget_mb"] = json!(10.0);
    let Err(Error::Param { key, .. }) = build(&v) else {
        panic!("20,000 flows over a 10 MB budget must be refused")
    };
    assert_eq!(key, "memory_budget_mb");
}
