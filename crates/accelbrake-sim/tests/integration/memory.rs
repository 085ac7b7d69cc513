//! Bounded memory: with per-packet records off, a run's peak memory does not grow with the number
//! of packets it simulates. What remains proportional to the duration is the time series: one row
//! per flow and per hop every `sample_ms` (about 250 bytes per bin for one flow and two hops, i.e.
//! ~9 MB per simulated hour at the default 100 ms; nothing with `sample_ms` = 60 s). Each run is
//! measured in a fresh child process (this test binary, running the ignored helper below) by its
//! peak resident set (`VmHWM`, Linux).

use serde_json::json;

/// The 100 Mbit/s dumbbell of `docs/bench/cubic-100mbps-long.json`.
fn long_run(secs: f64, records: bool, sample_ms: f64) -> serde_json::Value {
    json!({"duration_ms": secs * 1000.0, "seed": 1, "record_packets": records, "sample_ms": sample_ms,
        "hops": [{"link": {"type": "constant", "mbps": 100}, "queue": {"type": "droptail", "packets": 250}, "delay_ms": 50},
                 {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 50}],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1]}]})
}

fn vm_hwm_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
#[ignore = "helper: run in a child process by the memory tests"]
fn child_reports_peak_memory() {
    let (Ok(secs), Ok(out)) = (
        std::env::var("ACCELBRAKE_MEM_SECS"),
        std::env::var("ACCELBRAKE_MEM_OUT"),
    ) else {
        return;
    };
    let records = std::env::var("ACCELBRAKE_MEM_RECORDS").is_ok();
    let sample: f64 = std::env::var("ACCELBRAKE_MEM_SAMPLE_MS").map_or(100.0, |v| v.parse().unwrap());
    let v = long_run(secs.parse().unwrap(), records, sample);
    let s = accelbrake_sim::Scenario::from_json(&v.to_string()).unwrap();
    let r = accelbrake_sim::simulate(&s).unwrap();
    // A sanity bound on the run (not on Cubic): ten seconds of it reach about 0.48 of the link,
    // a minute more.
    assert!(r.summary.utilization > 0.4);
    std::fs::write(
        out,
        format!("{} {}", vm_hwm_kib().unwrap_or(0), r.summary.flows[0].packets_sent),
    )
    .unwrap();
}

/// Peak RSS (KiB) and data packets of a run of `secs` simulated seconds in a fresh process.
fn measure(secs: f64, records: bool, sample_ms: f64) -> (u64, u64) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{secs}-{records}-{sample_ms}.txt"));
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "memory::child_reports_peak_memory",
        "--ignored",
        "--test-threads=1",
    ])
    .env("ACCELBRAKE_MEM_SECS", secs.to_string())
    .env("ACCELBRAKE_MEM_OUT", &out)
    .env("ACCELBRAKE_MEM_SAMPLE_MS", sample_ms.to_string())
    .stdout(std::process::Stdio::null());
    if records {
        cmd.env("ACCELBRAKE_MEM_RECORDS", "1");
    }
    assert!(cmd.status().unwrap().success());
    let text = std::fs::read_to_string(&out).unwrap();
    let mut it = text.split_whitespace().map(|x| x.parse::<u64>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn memory_does_not_grow_with_duration_when_records_are_off() {
    if vm_hwm_kib().is_none() {
        return; // not Linux: nothing to measure with
    }
    let (short, n_short) = measure(10.0, false, 100.0);
    let (long, n_long) = measure(60.0, false, 100.0);
    assert!(n_long > 5 * n_short, "{n_short} vs {n_long} packets");
    // Per-packet storage would add ≥ 24 bytes per packet, i.e. > 10 MB over these 0.4 M packets.
    let growth = long.saturating_sub(short);
    assert!(
        growth < 2048,
        "peak RSS grew by {growth} KiB from 10 s to 60 s simulated ({short} → {long} KiB)"
    );
    // The measurement does see per-packet growth: with records on, it is there.
    let (with_records, _) = measure(60.0, true, 100.0);
    assert!(
        with_records > long + 10_240,
        "records on: {with_records} KiB, records off: {long} KiB"
    );
}

#[test]
#[ignore = "long: 10 vs 60 simulated minutes at 100 Mbit/s (~40 s); scripts/bench.py --long measures the same"]
fn one_simulated_hour_runs_in_bounded_memory() {
    // Time series every minute: nothing grows with the duration.
    let (ten, _) = measure(600.0, false, 60_000.0);
    let (hour, n) = measure(3600.0, false, 60_000.0);
    eprintln!("100 Mbit/s, records off, 60 s bins: 10 min {ten} KiB, 60 min {hour} KiB peak RSS ({n} data packets)");
    assert!(hour.saturating_sub(ten) < 1024, "{ten} → {hour} KiB");
    // Default 100 ms bins: the time series add ~250 bytes per bin (30 000 more bins).
    let (ten, _) = measure(600.0, false, 100.0);
    let (hour, _) = measure(3600.0, false, 100.0);
    eprintln!("100 Mbit/s, records off, 100 ms bins: 10 min {ten} KiB, 60 min {hour} KiB peak RSS");
    assert!(hour.saturating_sub(ten) < 30_000 * 400 / 1024, "{ten} → {hour} KiB");
}

/// One backlogged Cubic flow and `n` finite 10 KB Cubic flows, one every 50 ms from 0.2 s, on
/// 24 Mbit/s with a 100 ms RTT (the shape of the ABC paper's Fig. 13 short flows), 100 ms bins.
fn short_flows(n: usize, secs: f64, records: bool) -> serde_json::Value {
    let mut flows = vec![json!({"scheme": "cubic", "fwd": [0], "rev": [1]})];
    for i in 0..n {
        flows.push(
            json!({"scheme": "cubic", "fwd": [0], "rev": [1], "start_ms": 200.0 + 50.0 * i as f64,
                          "app": {"type": "finite", "bytes": 10000}}),
        );
    }
    json!({"duration_ms": secs * 1000.0, "seed": 3, "record_packets": records, "sample_ms": 100.0,
        "hops": [{"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 200}, "delay_ms": 50},
                 {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 50}],
        "flows": flows})
}

/// A finished flow's per-flow memory is freed once nothing of it is left in the
/// network (its summary row stays, with the same figures), and it has time-series rows only for
/// the bins it was active in. Per-packet records are on so that the figures fixed at retirement
/// can be checked against every packet's delay.
#[test]
fn finished_flows_retire_free_their_memory_and_keep_their_figures() {
    use accelbrake_sim::metrics::Column;
    let n = 200;
    let s = accelbrake_sim::Scenario::from_json(&short_flows(n, 15.0, true).to_string()).unwrap();
    let mut sim = accelbrake_sim::Simulation::new(&s).unwrap();
    sim.run();
    sim.check_invariants().unwrap();
    // Retired flows have dropped their endpoints; which flows completed is
    // checked against the summary below.
    let completed: Vec<usize> = (1..=n).filter(|&f| sim.flow_retired(f)).collect();
    assert!(
        completed.len() > n * 9 / 10,
        "{} of {n} short flows completed",
        completed.len()
    );
    for &f in &completed {
        assert!(!sim.flow_built(f), "retired flow {f} still holds its endpoints");
        // What is left: a few per-bin counters and the fixed figures, not the per-packet delays.
        let b = sim.flow_metrics_heap_bytes(f);
        assert!(b < 512, "retired flow {f} still holds {b} heap bytes");
    }
    assert!(!sim.flow_retired(0), "the backlogged flow never finishes");
    let long = sim.flow_metrics_heap_bytes(0);
    assert!(long > 100_000, "the measure sees a live flow's memory: {long} bytes");
    let r = sim.result();
    let done: Vec<usize> = (1..=n).filter(|&f| r.summary.flows[f].completion_s.is_some()).collect();
    assert_eq!(done, completed, "the flows that completed are exactly the retired ones");
    // Figures fixed at retirement = the exact figures from every delivered packet.
    let pk = &r.tables["packets"];
    let (Some(Column::I64(flow)), Some(Column::F64(q)), Some(Column::F64(d))) = (
        pk.get("flow"),
        pk.get("queueing_delay_ms"),
        pk.get("per_packet_delay_ms"),
    ) else {
        panic!("packets table columns")
    };
    let pct = |mut v: Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((p * v.len() as f64) as usize).min(v.len() - 1)]
    };
    for &f in completed.iter().step_by(7) {
        let fq: Vec<f64> = (0..flow.len()).filter(|&i| flow[i] == f as i64).map(|i| q[i]).collect();
        let fd: Vec<f64> = (0..flow.len()).filter(|&i| flow[i] == f as i64).map(|i| d[i]).collect();
        let fs = &r.summary.flows[f];
        assert_eq!(fs.queueing_delay_ms.count, fq.len() as u64);
        for (p, got) in [(0.5, fs.queueing_delay_ms.p50), (0.95, fs.queueing_delay_ms.p95)] {
            assert!((got - pct(fq.clone(), p)).abs() < 1e-9, "flow {f} queueing p{p}: {got}");
        }
        let want = pct(fd.clone(), 0.95);
        assert!(
            (fs.per_packet_delay_ms.p95 - want).abs() < 1e-9,
            "flow {f} per-packet p95"
        );
    }
    // Time-series rows: a short flow only from its start bin to the bin it retired in.
    let ts = &r.tables["flows_ts"];
    let (Some(Column::F64(t)), Some(Column::I64(fl))) = (ts.get("t_s"), ts.get("flow")) else {
        panic!("flows_ts columns")
    };
    let bins = 150;
    let rows_of = |f: usize| (0..t.len()).filter(|&i| fl[i] == f as i64).count();
    assert_eq!(rows_of(0), bins, "the backlogged flow has a row in every bin");
    for &f in &completed {
        let start = r.summary.flows[f].start_s;
        let done = start + r.summary.flows[f].completion_s.unwrap();
        let rows: Vec<f64> = (0..t.len()).filter(|&i| fl[i] == f as i64).map(|i| t[i]).collect();
        assert!(!rows.is_empty(), "flow {f} has no rows");
        assert!(
            rows[0] <= start + 1e-9 && rows[0] > start - 0.1,
            "flow {f} first row {} vs start {start}",
            rows[0]
        );
        // Retirement comes after completion (the last ACKs and duplicates leave the network first),
        // within a few RTTs.
        assert!(
            *rows.last().unwrap() < done + 1.0,
            "flow {f} rows until {:?}, done at {done}",
            rows.last()
        );
    }
    assert!(t.len() < bins + completed.len() * 20, "{} rows", t.len());
}

/// Peak memory grows with concurrent flows, not with arrivals: four times as many short flows
/// (at the same arrival rate, over a run four times as long) cost little more than their
/// per-flow state and summary rows (before retirement each kept its delay distributions, ~10 KB,
/// and a time-series row per bin of the run).
#[test]
fn memory_per_finished_flow_is_small() {
    let heap = |n: usize, secs: f64| {
        let s = accelbrake_sim::Scenario::from_json(&short_flows(n, secs, false).to_string()).unwrap();
        let mut sim = accelbrake_sim::Simulation::new(&s).unwrap();
        sim.run();
        let bytes: usize = (0..sim.flow_count()).map(|f| sim.flow_metrics_heap_bytes(f)).sum();
        let rows = sim.result().tables["flows_ts"].columns[0].1.len();
        (bytes, rows)
    };
    let (b1, r1) = heap(100, 6.0);
    let (b4, r4) = heap(400, 21.0);
    let per_flow = (b4 as f64 - b1 as f64) / 300.0;
    assert!(
        per_flow < 300.0,
        "{per_flow:.0} heap bytes of measurements per extra finished flow"
    );
    let rows_per_flow = (r4 - r1) as f64 / 300.0;
    assert!(
        rows_per_flow < 8.0,
        "{rows_per_flow:.1} time-series rows per extra short flow"
    );
}

/// A flow's endpoints (sender, receiver, controller) are built when it
/// starts (or when the bin it first has a row in is sampled), not with the simulation, and
/// dropped when it retires; bad parameters of a flow that starts late are still refused up front.
#[test]
fn flows_are_built_when_they_start_and_dropped_when_they_retire() {
    let n = 100;
    let s = accelbrake_sim::Scenario::from_json(&short_flows(n, 10.0, false).to_string()).unwrap();
    let mut sim = accelbrake_sim::Simulation::new(&s).unwrap();
    assert!((0..=n).all(|f| !sim.flow_built(f)), "no flow is built before the run");
    // Flow i (1-based) starts at 150 + 50 i ms; run to 1 s: samples at 0..=0.9 s cover starts < 1 s.
    sim.run_until(accelbrake_sim::time::Time::from_millis(1000));
    for f in 1..=n {
        let start_ms = 150 + 50 * f as u64;
        if start_ms >= 1000 {
            assert!(
                !sim.flow_built(f),
                "flow {f} (start {start_ms} ms) built before its bin"
            );
        } else if !sim.flow_retired(f) {
            assert!(
                sim.flow_built(f),
                "flow {f} (start {start_ms} ms) started but not built"
            );
        }
    }
    sim.run();
    sim.check_invariants().unwrap();
    assert!(sim.flow_built(0), "the backlogged flow lives to the end");
    let live = (1..=n).filter(|&f| sim.flow_built(f)).count();
    assert!(live < 5, "{live} finished short flows still hold their endpoints");

    // A bad parameter of a flow that would be built only at 9 s is refused when the run is built.
    let mut v = short_flows(1, 10.0, false);
    v["flows"][1]["start_ms"] = json!(9000.0);
    v["flows"][1]["params"] = json!({"beta": 7.0});
    let built = accelbrake_sim::Scenario::from_json(&v.to_string()).and_then(|s| accelbrake_sim::Simulation::new(&s));
    let e = built.err().expect("refused");
    assert!(e.to_string().contains("flows[1].params.beta"), "{e}");
}

/// A flow stopped with `stop_ms` retires once everything it sent is
/// acknowledged and nothing of it is in the network; its summary keeps its figures and it has no
/// time-series rows after the bin it retired in.
#[test]
fn stopped_flows_retire() {
    use accelbrake_sim::metrics::Column;
    let v = json!({"duration_ms": 6000.0, "seed": 2, "sample_ms": 100.0,
        "hops": [{"link": {"type": "constant", "mbps": 24}, "queue": {"type": "droptail", "packets": 100}, "delay_ms": 20},
                 {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 20}],
        "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1]},
                  {"scheme": "cubic", "fwd": [0], "rev": [1], "start_ms": 500.0, "stop_ms": 2000.0}]});
    let s = accelbrake_sim::Scenario::from_json(&v.to_string()).unwrap();
    let mut sim = accelbrake_sim::Simulation::new(&s).unwrap();
    sim.run_until(accelbrake_sim::time::Time::from_millis(1999));
    assert!(!sim.flow_retired(1), "retired before its stop time");
    sim.run();
    sim.check_invariants().unwrap();
    assert!(
        sim.flow_retired(1),
        "a stopped flow with nothing left in the network retires"
    );
    assert!(!sim.flow_built(1));
    assert!(!sim.flow_retired(0));
    // What is left: its per-bin counters over its ~16 bins and the fixed figures.
    assert!(
        sim.flow_metrics_heap_bytes(1) < 1024,
        "{}",
        sim.flow_metrics_heap_bytes(1)
    );
    assert!(
        sim.flow_metrics_heap_bytes(0) > 10_000,
        "a live flow: {}",
        sim.flow_metrics_heap_bytes(0)
    );
    let r = sim.result();
    let f1 = &r.summary.flows[1];
    assert!(
        f1.packets_sent > 100 && f1.completion_s.is_none(),
        "{} packets",
        f1.packets_sent
    );
    assert!(f1.queueing_delay_ms.count > 100);
    let ts = &r.tables["flows_ts"];
    let (Some(Column::F64(t)), Some(Column::I64(fl))) = (ts.get("t_s"), ts.get("flow")) else {
        panic!("flows_ts columns")
    };
    let rows: Vec<f64> = (0..t.len()).filter(|&i| fl[i] == 1).map(|i| t[i]).collect();
    // From its start bin (0.5 s) to the bin it retired in: within a few RTTs (40 ms propagation,
    // at most 100 packets of queue at 24 Mbit/s = 50 ms) of its stop at 2 s.
    assert!((rows[0] - 0.5).abs() < 1e-9, "{rows:?}");
    let last = *rows.last().unwrap();
    assert!((1.9..=2.2).contains(&last), "last row at {last} s");
    assert_eq!(rows.len(), ((last - 0.5) / 0.1).round() as usize + 1, "contiguous rows");
}
