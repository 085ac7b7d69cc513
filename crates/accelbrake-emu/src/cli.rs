//! Argument parsing and the four subcommands of `accelbrake-emu`.

use accelbrake_emu::bpf::{self, AbcCc, AbeConfig, BpfConfig, CcConfig, Variant};
use accelbrake_emu::direction::{Delivery, Direction, Marks};
use accelbrake_emu::emulator::{write_packet_row, Dir, Emulator, PACKETS_HEADER};
use accelbrake_emu::flows::{self, mean, pct, Dist, FlowFigures, FlowPorts};
use accelbrake_emu::ip::{PROTO_TCP, PROTO_UDP};
use accelbrake_emu::netns::{self, OUTER_ADDR};
use accelbrake_emu::tcp;
use accelbrake_emu::udp;
use accelbrake_sim::link::{Trace, TraceLink, TUN_OVERHEAD};
use accelbrake_sim::params::Given;
use accelbrake_sim::queue::{self, Queue};
use accelbrake_sim::rng::Rng;
use accelbrake_sim::time::{Dur, Time, NS_PER_MS, NS_PER_S};
use nix::sys::signal::{SigSet, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Exit status for bad usage (as `accelbrake` itself).
const EXIT_USAGE: i32 = 2;
/// Exit status when the emulator cannot run here (not root, no namespaces or TUN).
const EXIT_UNAVAILABLE: i32 = 3;
/// Most flows `emulate --flows` runs (each has its own sockets, and on the user-space transport
/// two threads; their receiver ports are consecutive).
const MAX_FLOWS: usize = 64;

pub(crate) struct Opts {
    trace: Option<String>,
    ack_trace: Option<String>,
    delay_ms: f64,
    queue: String,
    queue_args: String,
    ack_queue: String,
    ack_queue_args: String,
    seed: u64,
    log: Option<String>,
    ack_log: Option<String>,
    packets: Option<String>,
    /// `emulate --tcp-info FILE.csv`: the kernel sender's `TCP_INFO` every 10 ms.
    tcp_info: Option<String>,
    duration_s: Option<f64>,
    cc: String,
    cc_args: String,
    pub(crate) scheme: Option<String>,
    scheme_args: String,
    receiver_cc: Option<String>,
    marks: Option<Marks>,
    rate_mbps: f64,
    outer: Option<String>,
    json: Option<String>,
    ecn: bool,
    pub(crate) rt: bool,
    /// `emulate --flows N`: N bulk flows over the link, each its own socket/port pair.
    pub(crate) flows: usize,
    /// `emulate --start-interval S`: flow i starts i·S seconds after flow 0.
    start_interval_s: f64,
    program: Vec<String>,
    /// `emulate --upstream SCHEME`: the authors' own programs (`crate::upstream_run`).
    pub(crate) upstream: Option<String>,
}

fn usage_err(msg: String) -> i32 {
    eprintln!("accelbrake-emu: {msg}");
    EXIT_USAGE
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        trace: None,
        ack_trace: None,
        delay_ms: 0.0,
        queue: "infinite".into(),
        queue_args: String::new(),
        ack_queue: "infinite".into(),
        ack_queue_args: String::new(),
        seed: 1,
        log: None,
        ack_log: None,
        packets: None,
        tcp_info: None,
        duration_s: None,
        cc: "cubic".into(),
        cc_args: String::new(),
        scheme: None,
        scheme_args: String::new(),
        receiver_cc: None,
        marks: None,
        rate_mbps: 0.0,
        outer: None,
        json: None,
        ecn: false,
        rt: false,
        flows: 1,
        start_interval_s: 0.0,
        program: Vec::new(),
        upstream: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            o.program = args[i + 1..].to_vec();
            break;
        }
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut val = || -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{key} needs a value"))
        };
        let num = |k: &str, v: String, lo: f64, hi: f64| -> Result<f64, String> {
            let x: f64 = v.parse().map_err(|_| format!("{k}: expected a number, got '{v}'"))?;
            if !(x.is_finite() && x >= lo && x <= hi) {
                return Err(format!("{k}: {x} is outside [{lo}, {hi}]"));
            }
            Ok(x)
        };
        match key.as_str() {
            "--trace" => o.trace = Some(val()?),
            "--ack-trace" => o.ack_trace = Some(val()?),
            "--delay" => o.delay_ms = num("--delay", val()?, 0.0, 10_000.0)?,
            "--queue" => {
                // "TYPE" or "TYPE k=v,k=v" (the `accelbrake run --queue` form).
                let v = val()?;
                let mut it = v.trim().splitn(2, char::is_whitespace);
                o.queue = it.next().unwrap_or("").to_string();
                if let Some(rest) = it.next() {
                    o.queue_args = rest.trim().to_string();
                }
            }
            "--queue-args" => o.queue_args = val()?,
            "--ack-queue" => {
                let v = val()?;
                let mut it = v.trim().splitn(2, char::is_whitespace);
                o.ack_queue = it.next().unwrap_or("").to_string();
                if let Some(rest) = it.next() {
                    o.ack_queue_args = rest.trim().to_string();
                }
            }
            "--ecn" => o.ecn = true,
            "--rt" => o.rt = true,
            "--ack-queue-args" => o.ack_queue_args = val()?,
            "--seed" => o.seed = num("--seed", val()?, 0.0, 9e15)? as u64,
            "--log" => o.log = Some(val()?),
            "--ack-log" => o.ack_log = Some(val()?),
            "--packets" => o.packets = Some(val()?),
            "--tcp-info" => o.tcp_info = Some(val()?),
            "--duration" => o.duration_s = Some(num("--duration", val()?, 0.001, 86_400.0)?),
            "--cc" => o.cc = val()?,
            "--cc-args" => o.cc_args = val()?,
            "--scheme" => o.scheme = Some(val()?),
            "--scheme-args" => o.scheme_args = val()?,
            "--receiver-cc" => o.receiver_cc = Some(val()?),
            "--marks" => {
                o.marks = Some(match val()?.as_str() {
                    "ect" => Marks::Ect,
                    "ce" => Marks::Ce,
                    other => return Err(format!("--marks: expected 'ect' or 'ce', got '{other}'")),
                })
            }
            "--flows" => {
                let v = val()?;
                o.flows = match v.parse::<usize>() {
                    Ok(n) if (1..=MAX_FLOWS).contains(&n) => n,
                    _ => {
                        return Err(format!(
                            "--flows: expected a whole number from 1 to {MAX_FLOWS}, got '{v}'"
                        ))
                    }
                }
            }
            "--start-interval" => o.start_interval_s = num("--start-interval", val()?, 0.0, 86_400.0)?,
            "--rate-mbps" => o.rate_mbps = num("--rate-mbps", val()?, 0.001, 10_000.0)?,
            "--outer" => o.outer = Some(val()?),
            "--json" => o.json = Some(val()?),
            "--upstream" => o.upstream = Some(val()?),
            _ => return Err(format!("unknown option '{a}' (see `accelbrake-emu --help`)")),
        }
        i += 1;
    }
    Ok(o)
}

/// `k=v,k=v` arguments as registry values.
fn given_of(args: &str, opt: &str) -> Result<Given, String> {
    let mut given = Given::new();
    for kv in args.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("{opt}: expected key=value, got '{kv}'"))?;
        use accelbrake_sim::params::Value as P;
        let v = match v {
            "true" => P::Flag(true),
            "false" => P::Flag(false),
            _ => v.parse::<f64>().map(P::Num).unwrap_or_else(|_| P::Word(v.to_string())),
        };
        given.insert(key.to_string(), v);
    }
    Ok(given)
}

/// The parameters of our BPF congestion control `--cc` (`--cc-args`, registry keys of the scheme
/// without its family prefix: ABC's sender, or ABE's β_ecn), with the simulator's checks.
fn abc_config(o: &Opts) -> Result<CcConfig, String> {
    let given = given_of(&o.cc_args, "--cc-args")?;
    let abe = Variant::of_scheme(&o.cc).is_some_and(Variant::is_abe);
    if abe {
        AbeConfig::from_registry(&o.cc, &given).map(CcConfig::Abe)
    } else {
        BpfConfig::from_registry(&o.cc, &given).map(CcConfig::Abc)
    }
    .map_err(|e| format!("--cc-args: {e}"))
}

/// The user-space transport's sender and receiver of flow `at.id` for `--scheme` (`--scheme-args
/// k=v,...`: the scheme's registry keys without the family prefix, checked as `run` checks them).
fn user_endpoints(
    o: &Opts,
    at: udp::Placement,
) -> Result<(accelbrake_sim::sender::Sender, accelbrake_sim::receiver::Receiver), String> {
    let scheme = o.scheme.as_deref().unwrap_or_default();
    let given = given_of(&o.scheme_args, "--scheme-args")?;
    udp::endpoints(scheme, &given, o.seed, o.ecn, at.id, at.start).map_err(|e| format!("--scheme {scheme}: {e}"))
}

/// When flow `i` starts: `i · --start-interval` (emulator time).
fn flow_start(o: &Opts, i: usize) -> Time {
    Time((i as f64 * o.start_interval_s * NS_PER_S as f64).round() as u64)
}

/// Where flow `i` of the user-space transport runs: port `udp::PORT + i`, its start.
fn user_placement(o: &Opts, i: usize) -> udp::Placement {
    udp::Placement {
        id: i as u32,
        port: udp::PORT + i as u16,
        start: flow_start(o, i),
    }
}

/// Whether `--cc` asks for an ABC congestion control in eBPF (`abc`, `abc-cubic`).
fn wants_abc(o: &Opts) -> bool {
    o.scheme.is_none() && Variant::of_scheme(&o.cc).is_some()
}

/// Whether `--cc` is one of ABC's (not ABE's) BPF congestion controls, whose receiver echoes each
/// packet's mark.
fn wants_abc_echo(o: &Opts) -> bool {
    wants_abc(o) && !Variant::of_scheme(&o.cc).is_some_and(Variant::is_abe)
}

/// How ABC marks are written: `--marks`, else CE for kernel ABC endpoints (the only marks a kernel
/// receiver can echo), else the simulator's ECT(1)/ECT(0).
fn marks(o: &Opts) -> Marks {
    o.marks
        .unwrap_or(if wants_abc_echo(o) { Marks::Ce } else { Marks::Ect })
}

/// Build a queue from its type name and `k=v,k=v` arguments, with the simulator's checks.
fn build_queue(kind: &str, args: &str, opt: &str, seed: u64, stream: u64) -> Result<Box<dyn Queue>, String> {
    let k = queue::lookup(kind, opt).map_err(|e| e.to_string())?;
    let given = given_of(args, &format!("{opt}-args"))?;
    let values = k.values(&given, opt).map_err(|e| e.to_string())?;
    Ok((k.build)(&values, Rng::stream(seed, stream)))
}

fn create(path: &str, opt: &str) -> Result<Box<dyn Write + Send>, String> {
    let f = std::fs::File::create(path).map_err(|e| format!("{opt} {path}: cannot create: {e}"))?;
    Ok(Box::new(BufWriter::new(f)))
}

/// The two directions from the options.
fn directions(o: &Opts) -> Result<(Direction, Direction), String> {
    let up_path = o
        .trace
        .as_deref()
        .ok_or("--trace FILE is required (a Mahimahi trace)")?;
    let down_path = o.ack_trace.as_deref().unwrap_or(up_path);
    let load = |p: &str, opt: &str| Trace::load(p).map(Arc::new).map_err(|e| format!("{opt}: {e}"));
    let (up_t, down_t) = (load(up_path, "--trace")?, load(down_path, "--ack-trace")?);
    // Streams as the simulator numbers hop queues (any fixed numbers would do: one seed, two streams).
    let up_q = build_queue(&o.queue, &o.queue_args, "--queue", o.seed, 1)?;
    let down_q = build_queue(&o.ack_queue, &o.ack_queue_args, "--ack-queue", o.seed, 2)?;
    let delay = Dur::from_millis_f64(o.delay_ms);
    let up_log = o.log.as_deref().map(|p| create(p, "--log")).transpose()?;
    let down_log = o.ack_log.as_deref().map(|p| create(p, "--ack-log")).transpose()?;
    let io = |e: std::io::Error| format!("writing a link log: {e}");
    let m = marks(o);
    Ok((
        Direction::new(TraceLink::new(up_t, false), up_q, delay, up_log)
            .map_err(io)?
            .with_marks(m),
        Direction::new(TraceLink::new(down_t, false), down_q, delay, down_log)
            .map_err(io)?
            .with_marks(m),
    ))
}

/// Check the traces and queues without creating anything.
fn validate(o: &Opts) -> Result<(), String> {
    let up = o
        .trace
        .as_deref()
        .ok_or("--trace FILE is required (a Mahimahi trace)")?;
    Trace::load(up).map_err(|e| format!("--trace: {e}"))?;
    if let Some(p) = o.ack_trace.as_deref() {
        Trace::load(p).map_err(|e| format!("--ack-trace: {e}"))?;
    }
    build_queue(&o.queue, &o.queue_args, "--queue", o.seed, 1)?;
    build_queue(&o.ack_queue, &o.ack_queue_args, "--ack-queue", o.seed, 2)?;
    let secs = o.duration_s.unwrap_or(DEFAULT_DURATION_S);
    let last = flow_start(o, o.flows - 1);
    if o.flows > 1 && last.0 as f64 >= secs * NS_PER_S as f64 {
        return Err(format!(
            "--start-interval: flow {} would start at {:.3} s, not before the end of the run (--duration {secs})",
            o.flows - 1,
            last.0 as f64 / NS_PER_S as f64
        ));
    }
    if let Some(s) = &o.upstream {
        crate::upstream_run::validate(o, s)?;
    }
    if o.scheme.is_some() {
        user_endpoints(o, udp::Placement::ONE)?;
        if o.receiver_cc.is_some() || !o.cc_args.is_empty() {
            return Err(
                "--scheme (the user-space transport) takes --scheme-args, not --cc-args or --receiver-cc".into(),
            );
        }
    } else if !o.scheme_args.is_empty() {
        return Err("--scheme-args: give --scheme too (the user-space transport's scheme)".into());
    }
    if wants_abc(o) {
        abc_config(o)?;
    } else if !o.cc_args.is_empty() {
        return Err(
            "--cc-args: only our BPF congestion controls (--cc abc, abc-cubic, cubic-abe, newreno-abe) take parameters"
                .into(),
        );
    }
    Ok(())
}

/// Register ABC in eBPF when `--cc abc` asks for it (kept while the returned value lives).
/// `Err` is the reason it cannot be done here (status 3, as other missing capabilities).
fn register_abc(o: &Opts) -> Result<Option<AbcCc>, String> {
    let Some(variant) = Variant::of_scheme(&o.cc).filter(|_| wants_abc(o)) else {
        return Ok(None);
    };
    let cfg = abc_config(o)?;
    bpf::load(variant, &cfg).map(Some)
}

/// With `--rt`, run the calling thread (the link loop; threads started before keep their policy)
/// under `SCHED_FIFO` so that other processes on the machine cannot delay packets by hogging the
/// CPU. Priority 10 of 1–99: above every normal process, below the kernel's own real-time threads
/// (which use 50 and up).
fn realtime(o: &Opts) -> Result<(), String> {
    if !o.rt {
        return Ok(());
    }
    let p = libc::sched_param { sched_priority: 10 };
    // SAFETY: plain system call on the calling thread with a valid parameter block.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } != 0 {
        return Err(format!("--rt: SCHED_FIFO refused: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Block the signals we handle and read them from a signalfd instead (children get a clean mask).
fn signals() -> Result<SignalFd, String> {
    let mut set = SigSet::empty();
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP, Signal::SIGCHLD] {
        set.add(s);
    }
    // A signal inherited as ignored (e.g. SIGINT of a background job) would never reach the
    // signalfd: take the default disposition back, then block so that it is only read from there.
    for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: setting a default disposition installs no handler.
        unsafe { nix::sys::signal::signal(s, nix::sys::signal::SigHandler::SigDfl) }
            .map_err(|e| format!("resetting {s}: {e}"))?;
    }
    set.thread_block().map_err(|e| format!("blocking signals: {e}"))?;
    SignalFd::with_flags(&set, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC).map_err(|e| format!("signalfd: {e}"))
}

pub fn main(args: Vec<String>) -> i32 {
    let Some(cmd) = args.first() else {
        return usage_err("give a subcommand: shell, emulate, saturate or check".into());
    };
    if cmd == accelbrake_emu::pidns::INIT_SUBCOMMAND {
        let rest = args[1..].strip_prefix(&["--".to_string()]).unwrap_or(&args[1..]);
        return accelbrake_emu::pidns::init_main(rest);
    }
    if cmd == "--help" || cmd == "-h" {
        println!("usage: accelbrake-emu shell|emulate|saturate|check [options] (see docs/emulation.md)");
        return 0;
    }
    if !["shell", "emulate", "saturate", "check"].contains(&cmd.as_str()) {
        return usage_err(format!(
            "unknown subcommand '{cmd}'; expected shell, emulate, saturate or check"
        ));
    }
    let o = match parse(&args[1..]) {
        Ok(o) => o,
        Err(e) => return usage_err(e),
    };
    // Bad options are reported (status 2) before anything needs root.
    if cmd != "emulate" && (o.flows != 1 || o.start_interval_s != 0.0) {
        return usage_err(format!(
            "--flows/--start-interval: only `emulate` runs several flows (not `{cmd}`)"
        ));
    }
    if o.tcp_info.is_some() && (cmd != "emulate" || o.scheme.is_some()) {
        return usage_err("--tcp-info: only `emulate` with kernel TCP (--cc) has a kernel sender to sample".into());
    }
    if cmd != "check" {
        if let Err(e) = validate(&o) {
            return usage_err(e);
        }
    }
    if let Some(why) = netns::unavailable() {
        eprintln!("accelbrake-emu: unavailable here: {why}");
        return EXIT_UNAVAILABLE;
    }
    // ABC in eBPF: registered before anything else is set up; where it cannot be (not compiled
    // in, no libbpf, the kernel refuses it) the reason comes with status 3.
    let abc = match register_abc(&o) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("accelbrake-emu: unavailable here: {e}");
            return EXIT_UNAVAILABLE;
        }
    };
    let cc_name = abc.as_ref().map_or(o.cc.clone(), |a| a.name().to_string());
    if cmd == "check" {
        match &abc {
            Some(a) => println!("ok ({} in eBPF registered as '{}' and unregistered)", o.cc, a.name()),
            None => println!("ok"),
        }
        return 0;
    }
    let r = match cmd.as_str() {
        "shell" => shell(&o, &cc_name),
        "emulate" => emulate(&o, &cc_name, abc.is_some() && wants_abc_echo(&o)),
        _ => saturate(&o),
    };
    drop(abc);
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("accelbrake-emu: {e}");
            1
        }
    }
}

/// Per-packet table writer (optional).
fn packet_table(o: &Opts) -> Result<Option<Box<dyn Write + Send>>, String> {
    let Some(p) = o.packets.as_deref() else { return Ok(None) };
    let mut w = create(p, "--packets")?;
    writeln!(w, "{PACKETS_HEADER}").map_err(|e| format!("--packets {p}: {e}"))?;
    Ok(Some(w))
}

pub(crate) fn setup(o: &Opts) -> Result<(Emulator, SignalFd), String> {
    let ecn = o.ecn || wants_abc(o);
    let (up, down) = directions(o)?;
    let sig = signals()?;
    let emu = Emulator::new(up, down, &std::process::id().to_string())
        .map_err(|e| format!("setting up namespaces and TUN devices: {e}"))?;
    if ecn {
        // Kernel TCP asks for ECN on its connections (RFC 3168), in both namespaces (ABC's
        // congestion control asks for it by itself, TCP_CONG_NEEDS_ECN; set anyway, as the
        // authors' scripts do).
        for ns in [&emu.inner, &emu.outer] {
            ns.sysctl("/proc/sys/net/ipv4/tcp_ecn", "1")
                .map_err(|e| format!("--ecn: {e}"))?;
        }
    }
    if wants_abc_echo(o) {
        // Linux ≥ 6.7 defers the ACKs of segments processed from a socket's backlog (while the
        // application holds the socket) to tcp_release_cb: segments of one batch then share one
        // ACK, which merges their CE states and breaks the per-packet echo (measured: about 1 %
        // of ACKs covered data of both states). 0 sends them as the segments are processed.
        for ns in [&emu.inner, &emu.outer] {
            let p = "/proc/sys/net/ipv4/tcp_backlog_ack_defer";
            if std::path::Path::new(p).exists() {
                ns.sysctl(p, "0").map_err(|e| format!("--cc {}: {e}", o.cc))?;
            }
        }
    }
    Ok((emu, sig))
}

fn shell(o: &Opts, cc: &str) -> Result<i32, String> {
    if o.program.is_empty() {
        return Err("shell: give the program to run after `--` (e.g. `-- iperf3 -c 100.64.0.1`)".into());
    }
    let (mut emu, mut sig) = setup(o)?;
    let mut table = packet_table(o)?;
    let base = std::net::Ipv4Addr::from(OUTER_ADDR).to_string();
    let outer_child = match &o.outer {
        Some(c) => Some(
            emu.outer
                .command_isolated("sh", &["-c".to_string(), c.clone()])
                .map_err(|e| format!("--outer: {e}"))?
                .spawn()
                .map_err(|e| format!("--outer: cannot start 'sh -c {c}': {e}"))?,
        ),
        None => None,
    };
    let mut child = emu
        .inner
        .command_isolated(&o.program[0], &o.program[1..])
        .map_err(|e| format!("cannot run '{}': {e}", o.program[0]))?
        // Mahimahi's variable for the address of the other side.
        .env("MAHIMAHI_BASE", &base)
        .env("ACCELBRAKE_PEER", &base)
        // The congestion control `--cc` registered (e.g. `abc`), for `iperf3 -C "$ACCELBRAKE_CC"`.
        .env("ACCELBRAKE_CC", cc)
        .spawn()
        .map_err(|e| format!("cannot run '{}': {e}", o.program[0]))?;
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    realtime(o)?;
    emu.reset_clock();
    let mut status = None;
    let deadline = o.duration_s.map(|s| Time((s * NS_PER_S as f64) as u64));
    let mut werr = Ok(());
    emu.run(
        deadline,
        Some(&mut sig),
        |s| match s {
            Signal::SIGCHLD => {
                if let Ok(Some(st)) = child.try_wait() {
                    status = Some(st);
                    return true;
                }
                false
            }
            other => {
                let _ = nix::sys::signal::kill(pid, other);
                true
            }
        },
        |d, p| {
            if let Some(t) = table.as_mut() {
                if let Err(e) = write_packet_row(t, d, p) {
                    werr = Err(e);
                }
            }
        },
    )
    .map_err(|e| format!("emulated link: {e}"))?;
    werr.map_err(|e| format!("--packets: {e}"))?;
    if let Some(t) = table.as_mut() {
        t.flush().map_err(|e| format!("--packets: {e}"))?;
    }
    let st = match status {
        Some(s) => s,
        None => {
            // Interrupted or out of time: give the program a moment, then end it.
            let t_end = std::time::Instant::now() + std::time::Duration::from_secs(2);
            loop {
                if let Ok(Some(s)) = child.try_wait() {
                    break s;
                }
                if std::time::Instant::now() > t_end {
                    let _ = child.kill();
                    break child.wait().map_err(|e| e.to_string())?;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
    };
    if let Some(mut c) = outer_child {
        let _ = c.kill();
        let _ = c.wait();
    }
    use std::os::unix::process::ExitStatusExt;
    Ok(st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)))
}

/// What `emulate` and `saturate` keep per uplink delivery.
#[derive(Default)]
pub(crate) struct Collected {
    pub(crate) up: Vec<Delivery>,
    /// Pure TCP ACKs delivered in the ACK direction, and those with ECE set.
    acks: u64,
    ece_acks: u64,
}

pub(crate) fn run_timed(
    o: &Opts,
    emu: &mut Emulator,
    sig: &mut SignalFd,
    secs: f64,
) -> Result<(Collected, Time), String> {
    let mut table = packet_table(o)?;
    realtime(o)?;
    let mut c = Collected::default();
    let mut werr = Ok(());
    let end = emu
        .run(
            Some(Time((secs * NS_PER_S as f64) as u64)),
            Some(sig),
            |s| s != Signal::SIGCHLD,
            |d, p| {
                if d == Dir::Up {
                    c.up.push(*p);
                } else if let Some(t) = p.tcp.filter(|t| t.payload == 0 && t.flags & 0x02 == 0) {
                    c.acks += 1;
                    c.ece_acks += u64::from(t.flags & accelbrake_emu::ip::TCP_ECE != 0);
                }
                if let Some(t) = table.as_mut() {
                    if let Err(e) = write_packet_row(t, d, p) {
                        werr = Err(e);
                    }
                }
            },
        )
        .map_err(|e| format!("emulated link: {e}"))?;
    werr.map_err(|e| format!("--packets: {e}"))?;
    if let Some(t) = table.as_mut() {
        t.flush().map_err(|e| format!("--packets: {e}"))?;
    }
    Ok((c, end))
}

pub(crate) fn emit(o: &Opts, v: &Value) -> Result<(), String> {
    let text = serde_json::to_string_pretty(v).expect("json");
    println!("{text}");
    if let Some(p) = &o.json {
        std::fs::write(p, text + "\n").map_err(|e| format!("--json {p}: {e}"))?;
    }
    Ok(())
}

/// `emulate`'s duration without `--duration`, s.
const DEFAULT_DURATION_S: f64 = 10.0;

fn emulate(o: &Opts, cc: &str, bpf_abc: bool) -> Result<i32, String> {
    let secs = o.duration_s.unwrap_or(DEFAULT_DURATION_S);
    if let Some(s) = &o.upstream {
        return crate::upstream_run::emulate(o, s, secs);
    }
    if o.scheme.is_some() {
        return emulate_user(o, secs);
    }
    let (mut emu, mut sig) = setup(o)?;
    // ABC's echo lives in the receiver's congestion control: both ends run it, unless
    // `--receiver-cc` says otherwise (e.g. `cubic`: RFC 3168's latched ECE, for comparison).
    let rx_cc = o.receiver_cc.as_deref().or(bpf_abc.then_some(cc));
    // Flow i: receiver on port PORT + i, its own sender socket, started at i · --start-interval.
    let received = (0..o.flows)
        .map(|i| tcp::start_receiver(&emu.outer, rx_cc, tcp::PORT + i as u16).map_err(|e| format!("receiver: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let stop = Arc::new(AtomicBool::new(false));
    let info_sink = match &o.tcp_info {
        Some(p) => {
            let mut w = create(p, "--tcp-info")?;
            writeln!(w, "{}", tcp::TCP_INFO_HEADER).map_err(|e| format!("--tcp-info {p}: {e}"))?;
            Some(Arc::new(std::sync::Mutex::new(w)))
        }
        None => None,
    };
    emu.reset_clock();
    let mut samplers = Vec::new();
    for i in 0..o.flows {
        let at = flow_start(o, i);
        let start = (at > Time::ZERO).then_some((emu.clock(), at));
        let info = info_sink.as_ref().map(|sink| tcp::TcpInfoLog {
            clock: emu.clock(),
            period: std::time::Duration::from_millis(TCP_INFO_PERIOD_MS),
            flow: i,
            sink: sink.clone(),
        });
        samplers.extend(
            tcp::start_sender(&emu.inner, cc, stop.clone(), tcp::PORT + i as u16, start, info)
                .map_err(|e| e.to_string())?,
        );
    }
    let run = run_timed(o, &mut emu, &mut sig, secs);
    stop.store(true, Ordering::Relaxed);
    for h in samplers {
        h.join()
            .map_err(|_| "--tcp-info: a sampler panicked".to_string())?
            .map_err(|e| format!("--tcp-info: {e}"))?;
    }
    if let (Some(p), Some(sink)) = (&o.tcp_info, &info_sink) {
        let mut w = sink.lock().map_err(|_| "--tcp-info: a sampler panicked".to_string())?;
        w.flush().map_err(|e| format!("--tcp-info {p}: {e}"))?;
    }
    let (c, end) = run?;
    // The sender's namespace's TCP counters (its own: the receiver is in the other one), e.g.
    // HyStart's exits and the undone reductions.
    let tcp_ext = emu
        .inner
        .run(|| std::fs::read_to_string("/proc/thread-self/net/netstat"))
        .ok()
        .and_then(Result::ok)
        .map(|t| tcp::tcp_ext_counters(&t))
        .unwrap_or_default();
    let dur = end.0 as f64 / NS_PER_S as f64;
    let mut v = summary(o, &emu, &c, end);
    let bytes: Vec<u64> = received.iter().map(|r| r.load(Ordering::Relaxed)).collect();
    let extra = json!({
        "transport": "kernel-tcp",
        "cc": o.cc,
        "cc_registered": cc,
        "receiver_cc": rx_cc,
        "ece_acks": c.ece_acks,
        "acks": c.acks,
        "goodput_mbps": bytes.iter().sum::<u64>() as f64 * 8.0 / dur / 1e6,
        "sender_tcp_ext": tcp_ext,
    });
    merge(&mut v, extra);
    if o.flows > 1 {
        let ports = FlowPorts {
            proto: PROTO_TCP,
            base: tcp::PORT,
            n: o.flows,
        };
        let figs = per_flow_figures(o, &ports, &c, end);
        let rows = figs
            .iter()
            .zip(&bytes)
            .map(|(f, &b)| {
                let mut r = flow_json(f);
                let active = (end.0.saturating_sub(f.start.0) as f64 / NS_PER_S as f64).max(1e-9);
                merge(&mut r, json!({"goodput_mbps": b as f64 * 8.0 / active / 1e6}));
                r
            })
            .collect();
        merge(&mut v, multi_flow_json(o, &figs, rows));
    }
    emit(o, &v)?;
    Ok(0)
}

/// How often `--tcp-info` samples each kernel sender, ms (the simulator's time series bins are
/// coarser; 10 ms resolves a 100-ms RTT's worth of window changes).
const TCP_INFO_PERIOD_MS: u64 = 10;

/// Each flow's figures from the data direction's records (`accelbrake_emu::flows`).
fn per_flow_figures(o: &Opts, ports: &FlowPorts, c: &Collected, end: Time) -> Vec<FlowFigures> {
    let starts: Vec<Time> = (0..o.flows).map(|i| flow_start(o, i)).collect();
    flows::per_flow(ports, &starts, &c.up, end, 2.0 * o.delay_ms)
}

fn dist_json(d: &Dist) -> Value {
    json!({"p50": d.p50, "p95": d.p95, "mean": d.mean})
}

/// One flow's row of the summary (the transports add their own counters).
fn flow_json(f: &FlowFigures) -> Value {
    json!({
        "id": f.id,
        "start_s": f.start.0 as f64 / NS_PER_S as f64,
        "throughput_mbps": f.throughput_mbps,
        "per_packet_delay_ms": dist_json(&f.per_packet_delay_ms),
        "queueing_delay_ms": dist_json(&f.queueing_delay_ms),
        "data_packets": f.data_packets,
    })
}

/// What a multi-flow summary adds to the link-level figures: the flows and Jain's index of
/// their throughputs. (A one-flow summary is left as it was.)
fn multi_flow_json(o: &Opts, figs: &[FlowFigures], rows: Vec<Value>) -> Value {
    json!({
        "flow_count": o.flows,
        "start_interval_s": o.start_interval_s,
        "jain_index": flows::jain_index(figs),
        "flows": rows,
    })
}

/// `emulate --scheme S`: the user-space transport ([`udp`]) running the core's sender and receiver
/// around scheme S's controller over the link.
fn emulate_user(o: &Opts, secs: f64) -> Result<i32, String> {
    let ends = (0..o.flows)
        .map(|i| user_endpoints(o, user_placement(o, i)))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut emu, mut sig) = setup(o)?;
    emu.reset_clock();
    let mut running = Vec::with_capacity(o.flows);
    for (i, (sender, receiver)) in ends.into_iter().enumerate() {
        let at = user_placement(o, i);
        match udp::Flow::start(
            &emu.inner,
            &emu.outer,
            sender,
            receiver,
            emu.clock(),
            o.rt.then_some(9),
            at,
        ) {
            Ok(f) => running.push(f),
            Err(e) => {
                for f in running {
                    let _ = f.stop();
                }
                return Err(format!("user-space transport: flow {i}: {e}"));
            }
        }
    }
    let run = run_timed(o, &mut emu, &mut sig, secs);
    let reps: Result<Vec<udp::Report>, String> = running
        .into_iter()
        .map(|f| f.stop().map_err(|e| format!("user-space transport: {e}")))
        .collect();
    let (c, end) = run?;
    let reps = reps?;
    let rep = if let [one] = reps.as_slice() {
        one.clone()
    } else {
        total(&reps)
    };
    let dur = end.0 as f64 / NS_PER_S as f64;
    let mut v = summary(o, &emu, &c, end);
    let s = rep.sender;
    let extra = json!({
        "transport": "user-udp",
        "cc": o.scheme,
        "scheme_args": o.scheme_args,
        "acks": rep.acks_sent,
        "ece_acks": rep.ce_echoes,
        "brake_acks": rep.brake_echoes,
        "goodput_mbps": rep.delivered_segments as f64 * accelbrake_sim::packet::MSS as f64 * 8.0 / dur / 1e6,
        "sender": {
            "packets_sent": s.packets_sent, "retransmits": s.retransmits, "recoveries": s.recoveries,
            "timeouts": s.timeouts, "spurious_timeouts": s.spurious_timeouts,
            "ecn_reactions": s.ecn_reactions, "acks": s.acks, "final_cwnd": rep.final_cwnd,
        },
        "receiver": {"packets": rep.received_packets, "delivered_segments": rep.delivered_segments},
        "local_drops": rep.local_drops,
        "foreign_datagrams": rep.foreign,
    });
    merge(&mut v, extra);
    if o.flows > 1 {
        let ports = FlowPorts {
            proto: PROTO_UDP,
            base: udp::PORT,
            n: o.flows,
        };
        let figs = per_flow_figures(o, &ports, &c, end);
        let rows = figs
            .iter()
            .zip(&reps)
            .map(|(f, r)| {
                let mut row = flow_json(f);
                let active = (end.0.saturating_sub(f.start.0) as f64 / NS_PER_S as f64).max(1e-9);
                let s = &r.sender;
                merge(
                    &mut row,
                    json!({
                        "goodput_mbps": r.delivered_segments as f64 * accelbrake_sim::packet::MSS as f64 * 8.0 / active / 1e6,
                        "sender": {
                            "packets_sent": s.packets_sent, "retransmits": s.retransmits, "recoveries": s.recoveries,
                            "timeouts": s.timeouts, "spurious_timeouts": s.spurious_timeouts,
                            "ecn_reactions": s.ecn_reactions, "acks": s.acks, "final_cwnd": r.final_cwnd,
                        },
                        "local_drops": r.local_drops,
                    }),
                );
                row
            })
            .collect();
        merge(&mut v, multi_flow_json(o, &figs, rows));
    }
    emit(o, &v)?;
    Ok(0)
}

/// The flows' reports added up (counters summed, `final_cwnd` the sum of the windows): the
/// top-level `sender` / `receiver` of a multi-flow summary.
fn total(reps: &[udp::Report]) -> udp::Report {
    let mut t = udp::Report::default();
    for r in reps {
        let (a, b) = (&mut t.sender, &r.sender);
        a.packets_sent += b.packets_sent;
        a.retransmits += b.retransmits;
        a.recoveries += b.recoveries;
        a.timeouts += b.timeouts;
        a.spurious_timeouts += b.spurious_timeouts;
        a.ecn_reactions += b.ecn_reactions;
        a.acks += b.acks;
        t.delivered_segments += r.delivered_segments;
        t.received_packets += r.received_packets;
        t.acks_sent += r.acks_sent;
        t.local_drops += r.local_drops;
        t.brake_echoes += r.brake_echoes;
        t.ce_echoes += r.ce_echoes;
        t.final_cwnd += r.final_cwnd;
        t.foreign += r.foreign;
    }
    t
}

pub(crate) fn merge(v: &mut Value, extra: Value) {
    if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
}

/// The figures `run` reports, from the data direction's deliveries (both transports).
pub(crate) fn summary(o: &Opts, emu: &Emulator, c: &Collected, end: Time) -> Value {
    let cap = emu.up.link().opportunity_bytes_between(Time::ZERO, end) as f64;
    let wire: u64 = c.up.iter().map(|d| (d.size + TUN_OVERHEAD) as u64).sum();
    let rtt_ms = 2.0 * o.delay_ms;
    let mut qd: Vec<f64> =
        c.up.iter()
            .filter(|d| d.size > flows::DATA_MIN_BYTES)
            .map(flows::queueing_ms)
            .collect();
    qd.sort_by(f64::total_cmp);
    let ppd: Vec<f64> = qd.iter().map(|q| q + rtt_ms).collect();
    let dur = end.0 as f64 / NS_PER_S as f64;
    json!({
        "mode": "emulate",
        "marks_encoding": match self::marks(o) { Marks::Ect => "ect", Marks::Ce => "ce" },
        "duration_s": dur,
        "trace": o.trace, "ack_trace": o.ack_trace.clone().or(o.trace.clone()),
        "delay_ms": o.delay_ms, "queue": o.queue, "queue_args": o.queue_args,
        "capacity_mbps": cap * 8.0 / dur / 1e6,
        "throughput_mbps": wire as f64 * 8.0 / dur / 1e6,
        "utilization": if cap > 0.0 { wire as f64 / cap } else { f64::NAN },
        "per_packet_delay_ms": {"p50": pct(&ppd, 0.5), "p95": pct(&ppd, 0.95), "mean": mean(&ppd)},
        "queueing_delay_ms": {"p50": pct(&qd, 0.5), "p95": pct(&qd, 0.95), "mean": mean(&qd)},
        "data_packets": qd.len(),
        "drops": emu.up.counters.dropped,
        "marks": emu.up.counters.rewritten,
        "timing_error_us": timing(&c.up),
    })
}

/// Per-packet timing error: when each packet was written minus when the trace schedule says
/// (opportunity + delay), µs.
fn timing(up: &[Delivery]) -> Value {
    let mut e: Vec<f64> = up.iter().map(|d| (d.written.0 as f64 - d.due.0 as f64) / 1e3).collect();
    e.sort_by(f64::total_cmp);
    json!({"p50": pct(&e, 0.5), "p99": pct(&e, 0.99), "max": e.last().copied().unwrap_or(f64::NAN), "n": e.len()})
}

/// UDP blaster: inner → outer at `--rate-mbps` with 1500-byte IP packets (one opportunity each).
fn saturate(o: &Opts) -> Result<i32, String> {
    let secs = o.duration_s.unwrap_or(3.0);
    if o.rate_mbps <= 0.0 {
        return Err("saturate: give --rate-mbps (above the trace's peak rate)".into());
    }
    let (mut emu, mut sig) = setup(o)?;
    let port = 5202;
    let outer_addr = std::net::SocketAddrV4::new(OUTER_ADDR.into(), port);
    let rx = emu
        .outer
        .run(|| std::net::UdpSocket::bind(outer_addr))
        .and_then(|r| r)
        .map_err(|e| format!("UDP receiver: {e}"))?;
    let tx = emu
        .inner
        .run(|| std::net::UdpSocket::bind("0.0.0.0:0"))
        .and_then(|r| r)
        .map_err(|e| format!("UDP sender: {e}"))?;
    let got = Arc::new(AtomicU64::new(0));
    let g = got.clone();
    rx.set_read_timeout(Some(std::time::Duration::from_millis(200))).ok();
    // A 4 MiB receive buffer (root may exceed net.core.rmem_max) so that a briefly descheduled
    // receiver thread does not lose datagrams the link delivered.
    let _ = nix::sys::socket::setsockopt(&rx, nix::sys::socket::sockopt::RcvBufForce, &(4 << 20));
    std::thread::spawn(move || {
        let mut b = [0u8; 2048];
        loop {
            match rx.recv(&mut b) {
                Ok(_) => {
                    g.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => break,
            }
        }
    });
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    let rate = o.rate_mbps;
    emu.reset_clock();
    std::thread::spawn(move || {
        // 1472-byte payload + 8 UDP + 20 IP = 1500 bytes (+4 TUN = one 1504-byte opportunity).
        let payload = [0u8; 1472];
        let start = std::time::Instant::now();
        let mut sent = 0u64;
        while !st.load(Ordering::Relaxed) {
            let allowed = (start.elapsed().as_secs_f64() * rate * 1e6 / 8.0 / 1500.0) as u64 + 1;
            while sent < allowed {
                if tx.send_to(&payload, outer_addr).is_err() {
                    break;
                }
                sent += 1;
            }
            std::thread::sleep(std::time::Duration::from_micros(500));
        }
    });
    let (c, end) = run_timed(o, &mut emu, &mut sig, secs)?;
    stop.store(true, Ordering::Relaxed);
    // Per-100 ms bins after a 300 ms warm-up (the queue fills), up to the last whole bin.
    let bin = 100 * NS_PER_MS;
    let first = 3;
    let last = end.0 / bin;
    let mut bins = Vec::new();
    let mut worst: f64 = 0.0;
    let mut worst_written: f64 = 0.0;
    for k in first..last {
        let (a, b) = (Time(k * bin), Time((k + 1) * bin));
        let opp = emu.up.link().opportunity_bytes_between(a, b);
        let del: u64 =
            c.up.iter()
                .filter(|d| d.opportunity >= a && d.opportunity < b)
                .map(|d| (d.size + TUN_OVERHEAD) as u64)
                .sum();
        let err = if opp > 0 {
            (del as f64 - opp as f64) / opp as f64
        } else {
            0.0
        };
        worst = worst.max(err.abs());
        // The same bin by when packets were actually written (minus the delay): what a receiver sees.
        let delay = Dur::from_millis_f64(o.delay_ms).0;
        let wr: u64 =
            c.up.iter()
                .filter(|d| (a.0..b.0).contains(&d.written.0.saturating_sub(delay)))
                .map(|d| (d.size + TUN_OVERHEAD) as u64)
                .sum();
        if opp > 0 {
            worst_written = worst_written.max((wr as f64 - opp as f64).abs() / opp as f64);
        }
        bins.push(json!([k * 100, opp, del, wr]));
    }
    let v = json!({
        "mode": "saturate",
        "trace": o.trace, "rate_mbps": rate, "duration_s": end.0 as f64 / NS_PER_S as f64,
        "bins_100ms": bins,
        "bins_columns": ["start_ms", "opportunity_bytes", "delivered_bytes_by_schedule", "delivered_bytes_by_write_time"],
        "worst_bin_error": worst,
        "worst_bin_error_by_write_time": worst_written,
        "delivered_packets": c.up.len(),
        "received_packets": got.load(Ordering::Relaxed),
        "drops": emu.up.counters.dropped,
        "timing_error_us": timing(&c.up),
    });
    emit(o, &v)?;
    Ok(0)
}
