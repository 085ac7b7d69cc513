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
    assert!(r.summary.utilization > 0.5);
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
