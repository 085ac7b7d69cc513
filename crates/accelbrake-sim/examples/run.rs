//! Run a scenario JSON file and print the summary as JSON: `cargo run --release --example run -- FILE`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    let scenario = accelbrake_sim::Scenario::from_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t0 = std::time::Instant::now();
    let mut sim = accelbrake_sim::Simulation::new(&scenario).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    sim.run();
    if let Err(e) = sim.check_conservation() {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let r = sim.result();
    let wall = t0.elapsed().as_secs_f64();
    println!("{}", serde_json::to_string_pretty(&r.summary).unwrap());
    eprintln!(
        "wall {:.3} s, {} events, {} hop departures, {:.0} packets/s",
        wall,
        r.summary.events,
        r.summary.hop_departures,
        r.summary.hop_departures as f64 / wall
    );
}
