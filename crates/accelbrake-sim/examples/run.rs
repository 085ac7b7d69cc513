//! Run a scenario JSON file and print the summary as JSON: `cargo run --release --example run -- FILE`.
//!
//! Options (before or after the file):
//! * `--bench`: print one JSON line of run statistics instead of the summary (wall time of build +
//!   run + summary, events, packets, and peak resident memory; used by `scripts/bench.py`).
//! * `--duration-ms X`, `--sample-ms X`: override the scenario's duration or time-series bin.
fn main() {
    let mut args = std::env::args().skip(1);
    let (mut path, mut bench, mut duration, mut sample) = (None, false, None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => bench = true,
            "--duration-ms" => duration = args.next().and_then(|v| v.parse::<f64>().ok()),
            "--sample-ms" => sample = args.next().and_then(|v| v.parse::<f64>().ok()),
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: run [--bench] [--duration-ms X] [--sample-ms X] SCENARIO.json");
        std::process::exit(2)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2)
    });
    let mut scenario = accelbrake_sim::Scenario::from_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    if let Some(d) = duration {
        scenario.duration_ms = d;
    }
    if let Some(b) = sample {
        scenario.sample_ms = b;
    }
    let t0 = std::time::Instant::now();
    let mut sim = accelbrake_sim::Simulation::new(&scenario).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    sim.run();
    if let Err(e) = sim.check_invariants() {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let r = sim.result();
    let wall = t0.elapsed().as_secs_f64();
    let s = &r.summary;
    let data_packets: u64 = s.flows.iter().map(|f| f.packets_sent).sum();
    if bench {
        let line = serde_json::json!({
            "wall_s": wall,
            "simulated_s": s.duration_s,
            "events": s.events,
            "hop_departures": s.hop_departures,
            "data_packets": data_packets,
            "utilization": s.utilization,
            "throughput_mbps": s.throughput_mbps,
            "queueing_delay_ms": s.queueing_delay_ms,
            "peak_rss_kib": peak_rss_kib(),
        });
        println!("{line}");
        return;
    }
    println!("{}", serde_json::to_string_pretty(s).unwrap());
    eprintln!(
        "wall {:.3} s, {} events, {} hop departures, {} data packets, {:.0} data packets/s, {:.0} events/s",
        wall,
        s.events,
        s.hop_departures,
        data_packets,
        data_packets as f64 / wall,
        s.events as f64 / wall
    );
}

/// Peak resident set size of this process in KiB (Linux `VmHWM`), if known. Not `getrusage`: its
/// `ru_maxrss` also counts the parent's memory at fork/exec time (the old mm's high-water mark
/// is carried over at `execve`), which would report the benchmark driver's size instead.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
