//! End-to-end tests of the emulated link: real packets between two namespaces. They need root,
//! `/dev/net/tun` and network namespaces; elsewhere each test prints why it is skipped and passes.
//! Emulations are a few seconds each and run one at a time (the link is real-time). Pass/fail is
//! decided on counts, not on timing (timing figures: `scripts/emu_accuracy.py`).

use serde_json::Value;
use std::process::Command;
use std::sync::Mutex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_accelbrake-emu"))
}

fn trace(name: &str) -> String {
    format!("{}/../../traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Whether the emulator can run here; if not, say why (the test then passes as skipped).
fn available(test: &str) -> bool {
    let out = bin().arg("check").output().expect("run accelbrake-emu");
    if out.status.code() == Some(3) {
        eprintln!("SKIPPED {test}: {}", String::from_utf8_lossy(&out.stderr).trim());
        return false;
    }
    assert!(
        out.status.success(),
        "check failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

fn run_json(args: &[&str]) -> Value {
    let out = bin().args(args).output().expect("run accelbrake-emu");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON summary")
}

/// Saturate the link with 1500-byte UDP datagrams above its peak rate: every opportunity of the
/// trace carries one packet, so per 100 ms the delivered bytes equal the opportunity bytes (1 %
/// allowed), and the receiver in the other namespace gets what the link delivered.
fn saturates(trace_file: &str, rate_mbps: &str) {
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace(trace_file);
    let v = run_json(&[
        "saturate",
        "--trace",
        &t,
        "--rate-mbps",
        rate_mbps,
        "--duration",
        "2",
        "--queue",
        "droptail packets=400",
    ]);
    let bins = v["bins_100ms"].as_array().unwrap();
    assert!(bins.len() >= 15, "{} bins", bins.len());
    let mut opp_total = 0u64;
    for b in bins {
        let (opp, del) = (b[1].as_u64().unwrap(), b[2].as_u64().unwrap());
        opp_total += opp;
        let err = (del as f64 - opp as f64).abs() / (opp.max(1) as f64);
        assert!(
            err <= 0.01,
            "bin at {} ms: opportunities {opp} B, delivered {del} B",
            b[0]
        );
    }
    assert!(opp_total > 0);
    let (delivered, received) = (
        v["delivered_packets"].as_u64().unwrap(),
        v["received_packets"].as_u64().unwrap(),
    );
    assert!(
        received as f64 >= 0.99 * delivered as f64 && received <= delivered,
        "receiver got {received} of {delivered} delivered packets"
    );
    eprintln!("{trace_file}: timing error (µs) {}", v["timing_error_us"]);
}

#[test]
fn delivers_what_a_12_mbps_trace_allows() {
    if available("delivers_what_a_12_mbps_trace_allows") {
        saturates("bw12.mahi", "18");
    }
}

#[test]
fn delivers_what_a_cellular_trace_allows() {
    if available("delivers_what_a_cellular_trace_allows") {
        // The first seconds of this trace peak below 40 Mbit/s over 100 ms.
        saturates("Verizon-LTE-short.down", "60");
    }
}

#[test]
fn kernel_tcp_runs_over_the_link_and_the_summary_is_consistent() {
    if !available("kernel_tcp_runs_over_the_link_and_the_summary_is_consistent") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let v = run_json(&[
        "emulate",
        "--trace",
        &t,
        "--delay",
        "10",
        "--queue",
        "droptail packets=50",
        "--cc",
        "reno",
        "--duration",
        "2",
    ]);
    let u = v["utilization"].as_f64().unwrap();
    assert!(u > 0.3 && u <= 1.0 + 1e-9, "utilisation {u}");
    let p95 = v["per_packet_delay_ms"]["p95"].as_f64().unwrap();
    let q95 = v["queueing_delay_ms"]["p95"].as_f64().unwrap();
    assert!((p95 - q95 - 20.0).abs() < 1e-6, "per-packet = queueing + 2 × 10 ms");
    // A 50-packet buffer at 1 packet/ms holds at most ~51 ms of queueing.
    assert!(q95 <= 55.0, "queueing p95 {q95} ms");
}

/// The user-space transport (`--scheme`): the simulator's sender and receiver around Copa's
/// controller, over UDP across the link. Every data packet the link delivered reached the
/// receiver (apart from those still on their way at the end), and its summary has the same
/// definitions as kernel TCP's.
#[test]
fn the_user_space_transport_runs_our_controllers_over_the_link() {
    if !available("the_user_space_transport_runs_our_controllers_over_the_link") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let v = run_json(&[
        "emulate",
        "--trace",
        &t,
        "--delay",
        "10",
        "--queue",
        "droptail packets=50",
        "--scheme",
        "copa",
        "--duration",
        "2",
    ]);
    assert_eq!(v["transport"], "user-udp");
    let u = v["utilization"].as_f64().unwrap();
    assert!(u > 0.3 && u <= 1.0 + 1e-9, "utilisation {u}");
    let p95 = v["per_packet_delay_ms"]["p95"].as_f64().unwrap();
    let q95 = v["queueing_delay_ms"]["p95"].as_f64().unwrap();
    assert!((p95 - q95 - 20.0).abs() < 1e-6, "per-packet = queueing + 2 × 10 ms");
    let delivered = v["data_packets"].as_u64().unwrap();
    let received = v["receiver"]["packets"].as_u64().unwrap();
    let sent = v["sender"]["packets_sent"].as_u64().unwrap();
    // 20 ms of link (10 ms delay + a little loop latency) at 1 packet/ms is ~20 packets in flight.
    assert!(
        received <= delivered && delivered <= received + 40,
        "link {delivered}, receiver {received}"
    );
    assert!(delivered <= sent, "link {delivered} > sent {sent}");
    assert_eq!(v["foreign_datagrams"], 0);
    let acks = v["sender"]["acks"].as_u64().unwrap();
    assert!(
        acks > received / 3,
        "delayed ACKs: about one per 2 segments ({acks} for {received})"
    );
}

/// ABC's sender and per-packet echo in user space over the emulated ABC router, with the
/// simulator's marks (accelerate ECT(1), brake ECT(0)) in the real IP header: the router brakes
/// and the brakes come back to the sender in the ACKs, so the queue stays short.
#[test]
fn abc_in_user_space_reads_the_routers_brakes_from_the_ip_header() {
    if !available("abc_in_user_space_reads_the_routers_brakes_from_the_ip_header") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let v = run_json(&[
        "emulate",
        "--trace",
        &t,
        "--delay",
        "20",
        "--queue",
        "abc packets=250",
        "--scheme",
        "abc",
        "--duration",
        "3",
    ]);
    assert_eq!(v["marks_encoding"], "ect");
    let marks = v["marks"].as_u64().unwrap();
    let brakes = v["brake_acks"].as_u64().unwrap();
    assert!(marks > 50, "the router braked {marks} packets");
    assert!(
        brakes > 10 && brakes <= marks,
        "{brakes} brake echoes for {marks} brakes"
    );
    assert_eq!(v["drops"], 0, "ABC keeps a 250-packet queue from overflowing");
    let q95 = v["queueing_delay_ms"]["p95"].as_f64().unwrap();
    assert!(q95 < 150.0, "queueing p95 {q95} ms (the ABC router's target is 60 ms)");
}

/// XCP on the user-space transport over the emulated XCP router: the router reads the header from
/// the UDP payload and lowers H_feedback, so the sender's window settles near the BDP and the
/// 250-packet queue neither overflows nor stands (without the feedback written back, the sender
/// would take its own requested increases and fill the queue).
#[test]
fn xcp_headers_ride_in_the_payload_and_the_router_lowers_them() {
    if !available("xcp_headers_ride_in_the_payload_and_the_router_lowers_them") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let v = run_json(&[
        "emulate",
        "--trace",
        &t,
        "--delay",
        "20",
        "--queue",
        "xcp packets=250",
        "--scheme",
        "xcp",
        "--duration",
        "4",
    ]);
    assert_eq!(v["drops"], 0);
    let u = v["utilization"].as_f64().unwrap();
    assert!(u > 0.5, "utilisation {u}");
    let q95 = v["queueing_delay_ms"]["p95"].as_f64().unwrap();
    assert!(
        q95 < 60.0,
        "queueing p95 {q95} ms: the feedback did not hold the queue down"
    );
    // BDP: 1 packet/ms × 40 ms; XCP's window ends within a few BDPs (an uncontrolled one grows
    // by its own requests every RTT).
    let w = v["sender"]["final_cwnd"].as_f64().unwrap();
    assert!(w < 150.0, "final window {w} segments");
}

/// Processes whose command line is exactly `cmd` (from `/proc`, no tool needed).
fn processes(cmd: &str) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    dir.filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).replace('\0', " ").trim_end() == cmd)
        .count()
}

/// A program's own children (here a shell's background job and its foreground command) die with
/// the emulator even when it is killed with SIGKILL: the program runs in a PID namespace whose
/// init dies with the emulator (`pidns.rs`). With `PR_SET_PDEATHSIG` alone only the direct child
/// died and both sleeps survived.
#[test]
fn grandchildren_of_the_shells_program_die_with_a_killed_emulator() {
    if !available("grandchildren_of_the_shells_program_die_with_a_killed_emulator") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let (a, b) = (
        format!("sleep 900.{}1", std::process::id()),
        format!("sleep 900.{}2", std::process::id()),
    );
    let mut emu = bin()
        .args([
            "shell",
            "--trace",
            &t,
            "--outer",
            &format!("{a} & {a}"),
            "--",
            "sh",
            "-c",
        ])
        .arg(format!("{b} & {b}; true"))
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while processes(&a) + processes(&b) < 4 && t0.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!((processes(&a), processes(&b)), (2, 2), "the programs did not start");
    emu.kill().unwrap(); // SIGKILL
    emu.wait().unwrap();
    let t0 = std::time::Instant::now();
    while processes(&a) + processes(&b) > 0 && t0.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!((processes(&a), processes(&b)), (0, 0), "left behind after kill -9");
}

/// The program's exit status, a missing program (127) and Ctrl-C (130) pass through the init.
#[test]
fn the_programs_exit_status_and_signals_pass_through_its_init() {
    if !available("the_programs_exit_status_and_signals_pass_through_its_init") {
        return;
    }
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = trace("bw12.mahi");
    let st = bin()
        .args(["shell", "--trace", &t, "--", "sh", "-c", "exit 7"])
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(7));
    let st = bin()
        .args(["shell", "--trace", &t, "--", "/nonexistent/prog"])
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&st.stderr).contains("/nonexistent/prog"));
    // The program is PID 2 of its namespace (its init is 1).
    let out = bin()
        .args(["shell", "--trace", &t, "--", "sh", "-c", "echo $$"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2");
    let marker = format!("sleep 901.{}", std::process::id());
    let mut emu = bin()
        .args(["shell", "--trace", &t, "--", "sh", "-c"])
        .arg(&marker)
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while processes(&marker) == 0 && t0.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    send_signal(emu.id(), 2); // SIGINT
    let st = emu.wait().unwrap();
    assert_eq!(st.code(), Some(130), "Ctrl-C: 128 + SIGINT");
    assert_eq!(processes(&marker), 0);
}

fn send_signal(pid: u32, sig: i32) {
    let st = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn bad_options_name_the_parameter_without_needing_root() {
    let out = bin()
        .args(["emulate", "--trace", "/nonexistent/x.trace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--trace") && err.contains("/nonexistent/x.trace"), "{err}");
    let t = trace("bw12.mahi");
    let out = bin()
        .args(["emulate", "--trace", &t, "--queue", "codle"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--queue") && err.contains("codel"), "{err}");
    let out = bin()
        .args(["emulate", "--trace", &t, "--queue", "droptail pakets=3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = bin()
        .args(["emulate", "--trace", &t, "--delay", "-1"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--delay"));
    let out = bin().args(["shell", "--trace", &t]).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    for (args, want) in [
        (vec!["--scheme", "kopa"], "--scheme kopa"),
        (vec!["--scheme", "copa", "--scheme-args", "dleta=0.5"], "copa.dleta"),
        (vec!["--scheme", "copa", "--scheme-args", "delta=-3"], "copa.delta"),
        (vec!["--scheme-args", "delta=0.5"], "--scheme-args"),
    ] {
        let out = bin().args(["emulate", "--trace", &t]).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
