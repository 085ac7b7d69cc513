//! Building a [`Simulation`] from a [`Scenario`]: each hop's link (trace or rate schedule, trace
//! files loaded once and shared) and queue (from the queue registry), and each flow's controller
//! (from the scheme registry), sender, receiver and paths; then the first events.
//!
//! Random streams are derived from the scenario's seed, one per consumer (see `QUEUE_STREAMS`,
//! `CC_STREAMS`), so that adding a flow or a hop does not change the others' randomness.

use super::{EndpointCounters, Event, Flow, Hop, Live, RunStats, Simulation};
use crate::cc;
use crate::error::{Error, Result};
use crate::link::{Link, RateLink, Step, Trace, TraceLink};
use crate::measure::{FlowMetrics, HopMetrics, Recorder};
use crate::packet::Ecn;
use crate::queue::Queue;
use crate::receiver::{EchoMode, Receiver, ReceiverConfig};
use crate::rng::Rng;
use crate::scenario::{AppSpec, FlowSpec, LinkSpec, QueueSpec, Scenario};
use crate::sched::{DelayLine, EventQueue};
use crate::sender::{App, Sender};
use crate::time::{Dur, Rate, Time};
use crate::warning::{FlowContext, FlowOnHop, QueueContext, Warning};
use crate::wifi::{Discipline, PerUserQueue, WifiLink};
use std::collections::HashMap;
use std::sync::Arc;

fn load_trace(path: &str, traces: &mut HashMap<String, Arc<Trace>>) -> Result<Arc<Trace>> {
    Ok(match traces.get(path) {
        Some(t) => t.clone(),
        None => {
            let t = Arc::new(Trace::load(path)?);
            traces.insert(path.to_string(), t.clone());
            t
        }
    })
}

/// The offset of the trace links without `offset_ms` (see [`crate::scenario::TRACE_OFFSET`]): one
/// draw from the scenario's `TRACE_OFFSET_STREAM`, uniform in whole ms over `[0, P)` with `P` the
/// longest period among the wrapping trace links that take it; 0 if there are none.
fn drawn_offset_ms(scenario: &Scenario, traces: &mut HashMap<String, Arc<Trace>>) -> Result<u64> {
    let mut period = 0;
    for h in &scenario.hops {
        if let LinkSpec::Trace {
            path,
            once: false,
            offset_ms: None,
        } = &h.link
        {
            period = period.max(load_trace(path, traces)?.period_ms());
        }
    }
    Ok(if period == 0 {
        0
    } else {
        Rng::stream(scenario.seed, TRACE_OFFSET_STREAM).below(period)
    })
}

/// How long after its stop time a stopped flow is counted as active by the memory estimate: time
/// to drain its queue and recover losses, with two backed-off minimum RTOs (1 s, RFC 6298 (2.4)).
const STOP_DRAIN: f64 = 3.0;
/// A finite flow is counted as active for `FINITE_SLACK` times its transfer time alone on its
/// bottleneck (its size at the bottleneck's mean rate plus slow-start rounds of its propagation
/// RTT from an initial window of 10 segments, RFC 6928), plus [`STOP_DRAIN`] for losses. The
/// factor stands for sharing the bottleneck; a flow that takes longer (starved) has more rows
/// than estimated, so the estimate is a guide, not a bound, for finite flows.
const FINITE_SLACK: f64 = 4.0;

/// The time-series rows the flows of `scenario` will have (a flow has a row in each bin it is
/// active in, from its start bin to the bin it retires in): a flow that runs to the end has a row
/// in every bin from its start; a stopped one until [`STOP_DRAIN`] after its stop; a finite one
/// for its estimated lifetime ([`FINITE_SLACK`]); one that starts after the end, none.
fn estimate_flow_rows(scenario: &Scenario, hops: &[Hop], caps: &[f64], end: Time, bin: Dur) -> f64 {
    let end_s = end.secs_f64();
    let bin_s = bin.secs_f64().max(1e-9);
    let run_s = end_s.max(1e-9);
    let mut rows = 0.0;
    for f in &scenario.flows {
        let start = f.start_ms / 1e3;
        if start >= end_s || f.count == 0 {
            continue;
        }
        let prop_rtt: f64 = f
            .fwd
            .iter()
            .chain(f.rev.iter())
            .map(|&h| hops[h].delay.secs_f64())
            .sum::<f64>()
            + f.extra_delay_ms / 1e3;
        let mut last = end_s;
        if let Some(stop) = f.stop_ms {
            last = last.min(stop / 1e3 + STOP_DRAIN);
        }
        if let AppSpec::Finite { bytes } = f.app {
            // Bottleneck: the least mean rate along the data path (bytes/s).
            let rate = f.fwd.iter().map(|&h| caps[h] / run_s).fold(f64::INFINITY, f64::min);
            let segs = (bytes as f64 / crate::packet::MSS as f64).max(1.0);
            let rounds = (segs / 10.0 + 1.0).log2().ceil() + 1.0;
            let transfer = if rate > 0.0 { bytes as f64 / rate } else { end_s };
            last = last.min(start + FINITE_SLACK * (transfer + rounds * prop_rtt) + STOP_DRAIN);
        }
        let first_bin = (start / bin_s).floor();
        let last_bin = ((last / bin_s).ceil() - 1.0).max(first_bin);
        rows += f64::from(f.count) * (last_bin - first_bin + 1.0);
    }
    rows
}

/// Refuse a run whose recorded data would exceed the scenario's `memory_budget_mb`, before any
/// of it is allocated (an allocation failure mid-run would abort the process). The estimate (see
/// [`crate::measure::estimate_recorded_bytes`]) takes the data packets as the capacity of each
/// flow's least-capacity hop over the run in full-size packets, one ACK per data packet, and the
/// flows' time-series rows from when each flow is active ([`estimate_flow_rows`]).
fn check_memory_budget(scenario: &Scenario, hops: &[Hop], end: Time, bin: Dur) -> Result<()> {
    let nflows: u64 = scenario.flows.iter().map(|f| u64::from(f.count)).sum();
    let mut bottlenecks: Vec<usize> = Vec::new();
    let (mut fwd_hops, mut rev_hops) = (0u64, 0u64);
    let caps: Vec<f64> = hops.iter().map(|h| h.link.capacity_between(Time::ZERO, end)).collect();
    for f in &scenario.flows {
        if let Some(b) = f.fwd.iter().copied().min_by(|&a, &b| caps[a].total_cmp(&caps[b])) {
            if !bottlenecks.contains(&b) {
                bottlenecks.push(b);
            }
        }
        fwd_hops = fwd_hops.max(f.fwd.len() as u64);
        rev_hops = rev_hops.max(f.rev.len() as u64);
    }
    let data_packets: f64 = bottlenecks.iter().map(|&h| caps[h] / crate::packet::MTU as f64).sum();
    let nbins = end.0.div_ceil(bin.0.max(1)).max(1);
    let flow_rows = estimate_flow_rows(scenario, hops, &caps, end, bin);
    crate::scenario::series_rows_within_limit(
        scenario.sample_ms,
        scenario.duration_ms,
        nflows,
        hops.len(),
        flow_rows + (nbins * hops.len() as u64) as f64,
    )?;
    let est = crate::measure::estimate_recorded_bytes(
        nbins,
        flow_rows,
        nflows,
        hops.len() as u64,
        data_packets,
        (fwd_hops + rev_hops) as f64,
        scenario.record_packets,
    );
    let budget = scenario.memory_budget_mb * 1e6;
    if est > budget {
        let mb = est / 1e6;
        let msg = if scenario.record_packets {
            format!(
                "the run would record about {mb:.0} MB (per-packet records of ~{data_packets:.3e} data packets \
                 and their departures, plus time series), over the memory budget of {} MB; turn \
                 per-packet records off (record_packets = false; `accelbrake run` without --packets), \
                 shorten the run, or raise memory_budget_mb (--memory-budget-mb)",
                scenario.memory_budget_mb
            )
        } else {
            format!(
                "the run's time series and flows would take about {mb:.0} MB (~{flow_rows:.3e} flow rows \
                 for {nflows} flows, {nbins} bins × {} hops), over the memory budget of {} MB; use a larger sample_ms (--sample), shorten the \
                 run, or raise memory_budget_mb (--memory-budget-mb)",
                hops.len(),
                scenario.memory_budget_mb
            )
        };
        return Err(Error::Param {
            key: "memory_budget_mb".into(),
            msg,
        });
    }
    // The budget is the user's; the process's own limits bound it too. The recorded data grows in
    // vectors that reallocate (a growing vector briefly holds its old and new buffers), and the
    // run's queues, events and the caller's copies of the results need room besides: the data must
    // fit in half of what is left.
    if let Some((left, why)) = crate::headroom::headroom() {
        if 2.0 * est > left {
            return Err(Error::Param {
                key: "memory_budget_mb".into(),
                msg: format!(
                    "the run would record about {:.0} MB{}, but this process may take only {:.0} MB more ({why}); it needs about twice what it records. Raise the limit, shorten the run, use a larger sample_ms (--sample){}",
                    est / 1e6,
                    if scenario.record_packets { " with per-packet records" } else { "" },
                    left / 1e6,
                    if scenario.record_packets {
                        ", or turn per-packet records off (without --packets)"
                    } else {
                        ""
                    },
                ),
            });
        }
    }
    Ok(())
}

fn build_link(
    spec: &LinkSpec,
    key: &str,
    traces: &mut HashMap<String, Arc<Trace>>,
    drawn_offset_ms: u64,
    wifi: (Time, Rng),
) -> Result<Link> {
    if let Some(cfg) = spec.wifi_config(key)? {
        return Ok(Link::Wifi(Box::new(WifiLink::new(&cfg, key, wifi.0, wifi.1)?)));
    }
    Ok(match spec {
        LinkSpec::Trace { path, once, offset_ms } => {
            let tr = load_trace(path, traces)?;
            let offset = match (offset_ms, once) {
                (Some(o), _) => *o,
                (None, true) => 0,
                (None, false) => drawn_offset_ms,
            };
            Link::Trace(TraceLink::with_offset(tr, *once, offset))
        }
        LinkSpec::Constant { mbps } => {
            Link::Rate(RateLink::constant(Rate::from_mbps(*mbps)).map_err(|e| rekey(e, key))?)
        }
        LinkSpec::Schedule { steps, repeat_ms } => {
            let steps = steps
                .iter()
                .map(|&(t, r)| Step {
                    at: Time(Dur::from_millis_f64(t).0),
                    rate: Rate::from_mbps(r),
                })
                .collect();
            Link::Rate(RateLink::schedule(steps, repeat_ms.map(Dur::from_millis_f64)).map_err(|e| rekey(e, key))?)
        }
        LinkSpec::Wifi { .. } => unreachable!("handled above"),
    })
}

fn rekey(e: Error, key: &str) -> Error {
    match e {
        Error::Param { key: k, msg } => Error::Param {
            key: format!("{key}.{}", k.trim_start_matches("link.")),
            msg,
        },
        other => other,
    }
}

/// Random stream ids: flows' host jitter uses `1 + flow`, queues `QUEUE_STREAMS + hop`,
/// congestion controllers `CC_STREAMS + flow`, the trace offset `TRACE_OFFSET_STREAM` (a stream of
/// its own, so that drawing it changes no other stream).
const QUEUE_STREAMS: u64 = 1 << 32;
const CC_STREAMS: u64 = 2 << 32;
const TRACE_OFFSET_STREAM: u64 = 3 << 32;
/// Wi-Fi links (backoff, jitter, Brownian MCS walks): `WIFI_STREAMS + hop`; the per-user queues
/// of hop `h`: `WIFI_QUEUE_STREAMS + (h << 16) + user`.
const WIFI_STREAMS: u64 = 4 << 32;
const WIFI_QUEUE_STREAMS: u64 = 5 << 32;

fn build_queue(spec: &QueueSpec, key: &str, seed: u64, hop: usize) -> Result<Box<dyn Queue>> {
    let (kind, values) = spec.resolve(key)?;
    Ok((kind.build)(&values, Rng::stream(seed, QUEUE_STREAMS + hop as u64)))
}

/// The warnings of every scheme's and queue's operating-range check ([`crate::warning`]): flows in
/// scenario order (an entry with `count` > 1 once), then hops.
fn collect_warnings(scenario: &Scenario, hops: &[Hop], end: Time) -> Result<Vec<Warning>> {
    let rates: Vec<f64> = hops.iter().map(|h| h.link.mean_rate(end)).collect();
    let mut out = Vec::new();
    let mut on_hop: Vec<Vec<FlowOnHop>> = vec![Vec::new(); hops.len()];
    for (i, spec) in scenario.flows.iter().enumerate() {
        let Ok(scheme) = cc::lookup(&spec.scheme) else {
            // An external controller (validated already): no operating-range check.
            continue;
        };
        let prop_rtt = spec
            .fwd
            .iter()
            .chain(spec.rev.iter())
            .fold(Dur::from_millis_f64(spec.extra_delay_ms), |acc, &h| acc + hops[h].delay);
        for &h in &spec.fwd {
            on_hop[h].push(FlowOnHop {
                index: i,
                scheme: scheme.name,
                abc: scheme.marking == cc::Marking::Abc,
                prop_rtt,
            });
        }
        if spec.start_ms >= scenario.duration_ms {
            // Not an error: a shortened run (`--set run.duration_s=6` on an experiment whose
            // flows join later) is legitimate, but the flow's all-zero rows must not be silent.
            out.push(Warning {
                code: "flow-starts-after-end",
                subject: format!("flows[{i}]"),
                parameter: format!("flows[{i}].start_ms"),
                value: spec.start_ms,
                bound: scenario.duration_ms,
                unit: "ms",
                source: "the scenario's duration_ms",
                message: format!(
                    "flows[{i}] starts at {} ms, not before the run ends (duration_ms = {} ms): it sends \
                     nothing, its summary row is all zero and it has no time-series rows",
                    spec.start_ms, scenario.duration_ms
                ),
            });
        }
        if let Some(check) = scheme.warnings {
            let values = scheme.values(&spec.params)?;
            let bottleneck_rate = spec.fwd.iter().map(|&h| rates[h]).fold(f64::INFINITY, f64::min);
            out.extend(check(&FlowContext {
                index: i,
                values: &values,
                prop_rtt,
                bottleneck_rate,
            }));
        }
    }
    for (i, h) in scenario.hops.iter().enumerate() {
        let Ok((kind, values)) = h.queue.resolve(&format!("hops[{i}].queue")) else {
            continue; // an external queue (validated already): no operating-range check
        };
        if let Some(check) = kind.warnings {
            out.extend(check(&QueueContext {
                index: i,
                values: &values,
                link_rate: rates[i],
                wire_bytes_per_packet: f64::from(hops[i].link.wire_bytes(crate::packet::MTU)),
                flows: &on_hop[i],
            }));
        }
    }
    Ok(out)
}

/// Flow `id`'s endpoints (controller, sender, receiver) from its scenario entry. The controller's
/// random stream is the flow's own (`CC_STREAMS + id`), so building it at the flow's start instead
/// of with the simulation draws exactly the same numbers.
///
/// `handshake_rtt` is the flow's propagation RTT, given to the controller as its handshake's RTT
/// sample ([`cc::CongestionControl::on_handshake`]).
fn build_live(
    spec: &FlowSpec,
    id: u32,
    seed: u64,
    externals: Option<&cc::external::Externals>,
    handshake_rtt: Dur,
) -> Result<Live> {
    let start = Time(Dur::from_millis_f64(spec.start_ms).0);
    let cc_rng = Rng::stream(seed, CC_STREAMS + id as u64);
    let (mut controller, marking) = match externals.and_then(|x| x.get(&spec.scheme).map(|f| (x, f))) {
        Some((x, factory)) => {
            let info = cc::external::BuildInfo {
                flow: id,
                params: &spec.params,
                start,
                seed,
                stream: CC_STREAMS + id as u64,
            };
            (factory.build(info, &x.failure)?, cc::Marking::None)
        }
        None => {
            let scheme = cc::lookup(&spec.scheme)?;
            (
                (scheme.build)(&scheme.values(&spec.params)?, start, cc_rng)?,
                scheme.marking,
            )
        }
    };
    controller.on_handshake(handshake_rtt);
    // VCP's low-load code 01 is ABC's accelerate codepoint; both echo per packet.
    let abc = matches!(marking, cc::Marking::Abc | cc::Marking::Vcp);
    let l4s = marking == cc::Marking::L4s;
    let ecn = if abc || l4s {
        // ABC's accelerate and the L4S identifier are the same codepoint, ECT(1).
        Ecn::Ect1
    } else if spec.ecn || marking == cc::Marking::Ecn {
        Ecn::Ect0
    } else {
        Ecn::NotEct
    };
    let app = match spec.app {
        AppSpec::Bulk => App::Bulk,
        AppSpec::Finite { bytes } => App::Finite { bytes },
        AppSpec::Rate { mbps } => App::RateLimited {
            bytes_per_sec: mbps * 1e6 / 8.0,
        },
        AppSpec::Onoff { mbps, on_ms, off_ms } => App::OnOff {
            bytes_per_sec: mbps * 1e6 / 8.0,
            on: Dur::from_millis_f64(on_ms).max(Dur(1)),
            off: Dur::from_millis_f64(off_ms),
        },
    };
    let rcfg = ReceiverConfig {
        echo: if abc || l4s {
            EchoMode::PerPacket
        } else {
            EchoMode::Classic
        },
        ack_every: if spec.delayed_ack { 2 } else { 1 },
        ts_granularity: Dur::from_micros_f64(spec.rx_ts_granularity_us).max(Dur(1)),
        ..ReceiverConfig::default()
    };
    let mut receiver = Receiver::new(id, rcfg);
    if let Some(hook) = controller.receiver_hook() {
        receiver = receiver.with_hook(hook);
    }
    let rack = controller.detects_lost_retransmissions();
    let prr = controller.reduces_proportionally();
    let linux_rto = controller.computes_rto_as_linux();
    let ecn_cwr = spec.ecn_prr || controller.reduces_ecn_as_linux();
    let mut sender = Sender::new(id, controller, ecn, app);
    sender.set_rack(rack);
    sender.set_linux_rto(linux_rto);
    sender.prr_loss = prr;
    sender.prr_ecn = ecn_cwr;
    sender.explicit = marking == cc::Marking::Explicit;
    Ok(Live { sender, receiver })
}

impl Simulation {
    /// Build flow `f`'s endpoints if they are not built yet (its start, or the first time-series
    /// sample it has a row in). A registry scheme's controller was built once from the same
    /// parameters by [`Simulation::with_externals`], so this cannot fail.
    pub(super) fn ensure_live(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if fl.live.is_some() || fl.m.retired.is_some() {
            return;
        }
        let spec = &self.scenario.flows[fl.spec as usize];
        let live = build_live(spec, f as u32, self.scenario.seed, None, fl.prop_rtt)
            .expect("the flow's parameters were checked by building its controller with the simulation");
        fl.live = Some(Box::new(live));
    }

    /// Drop retired flow `f`'s endpoints (not an external scheme's), keeping their counters.
    pub(super) fn drop_live(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if fl.external {
            let l = fl.live();
            l.sender.shrink();
            l.receiver.shrink();
            return;
        }
        fl.kept = fl.counters();
        fl.live = None;
    }

    /// Build a simulation (reads trace files).
    pub fn new(scenario: &Scenario) -> Result<Simulation> {
        Simulation::with_externals(scenario, None)
    }

    /// [`Simulation::new`], with `flows[].scheme` also looked up among `externals` (controllers
    /// implemented outside the core, see [`cc::external`]). Their first failure is recorded in
    /// `externals.failure`, whose flag a caller passes to
    /// [`Simulation::run_until_interruptible`].
    pub fn with_externals(scenario: &Scenario, externals: Option<&cc::external::Externals>) -> Result<Simulation> {
        scenario.validate_with(externals)?;
        let end = Time(Dur::from_millis_f64(scenario.duration_ms).0);
        let bin = Dur::from_millis_f64(scenario.sample_ms);
        let mut traces = HashMap::new();
        let drawn = drawn_offset_ms(scenario, &mut traces)?;
        let mut hops = Vec::new();
        for (i, h) in scenario.hops.iter().enumerate() {
            let key = format!("hops[{i}]");
            let wifi_rng = Rng::stream(scenario.seed, WIFI_STREAMS + i as u64);
            let mut link = build_link(&h.link, &format!("{key}.link"), &mut traces, drawn, (end, wifi_rng))?;
            let mut queue = match externals.and_then(|x| x.get_queue(&h.queue.kind).map(|f| (x, f))) {
                Some((x, f)) => f.build(i, &h.queue.params, scenario.seed, &x.failure)?,
                None => build_queue(&h.queue, &format!("{key}.queue"), scenario.seed, i)?,
            };
            if let Link::Wifi(w) = &link {
                if w.discipline() == Discipline::PerUser {
                    let (kind, values) = h.queue.resolve(&format!("{key}.queue"))?;
                    let inner = (0..w.users())
                        .map(|u| {
                            (kind.build)(
                                &values,
                                Rng::stream(scenario.seed, WIFI_QUEUE_STREAMS + ((i as u64) << 16) + u as u64),
                            )
                        })
                        .collect();
                    let map = h.link.wifi_config("")?.and_then(|c| c.user_of_flow);
                    queue = Box::new(PerUserQueue::new(inner, map));
                }
            }
            let cap_window = queue.capacity_window();
            let queue_lookahead = queue.capacity_lookahead();
            let observes_link = queue.observes_link();
            if let (Some(w), Link::Trace(t)) = (cap_window, &mut link) {
                t.keep_window(w);
            }
            let name = if h.name.is_empty() {
                format!("hop{i}")
            } else {
                h.name.clone()
            };
            // A plain FIFO on a rate link queues arena ids in the hop: the engine then
            // moves 8-byte entries instead of 80-byte packets. Trace and Wi-Fi links take packets
            // from the queue by value, so their FIFOs keep the queue's own.
            let fifo = match (&link, queue.as_fifo()) {
                (Link::Rate(_), Some(f)) => Some(crate::queue::Fifo::new(f.limit())),
                _ => None,
            };
            hops.push(Hop {
                name,
                queue,
                link,
                delay: Dur::from_millis_f64(h.delay_ms),
                tx: None,
                tx_id: None,
                fifo,
                queue_wake: None,
                line: DelayLine::default(),
                occupancy: 0,
                occupancy_since: Time::ZERO,
                cap_window,
                lookahead: queue_lookahead,
                observes_link,
                m: HopMetrics::default(),
            });
        }
        check_memory_budget(scenario, &hops, end, bin)?;
        let warnings = collect_warnings(scenario, &hops, end)?;
        // Sized once: a Vec grown by doubling holds up to twice its flows while it moves them (a
        // run with 10^4 Poisson arrivals has 10^4 flows of ~1.3 kB each).
        let mut flows = Vec::with_capacity(scenario.flows.iter().map(|s| s.count as usize).sum());
        for (k, spec) in scenario.flows.iter().enumerate() {
            let external = externals.is_some_and(|x| x.get(&spec.scheme).is_some());
            if !external && spec.count > 0 {
                // The endpoints are built when the flow starts (`Simulation::build_live`): build
                // one here and drop it, so that bad parameters are still refused before the run.
                // Whether a controller builds depends only on its parameters (`start` and the
                // random stream do not make it fail), so one per entry is enough.
                drop(build_live(spec, flows.len() as u32, scenario.seed, None, Dur::ZERO)?);
            }
            for _ in 0..spec.count {
                let id = flows.len() as u32;
                let start = Time(Dur::from_millis_f64(spec.start_ms).0);
                let extra_delay = Dur::from_millis_f64(spec.extra_delay_ms);
                let fwd: Vec<u32> = spec.fwd.iter().map(|&h| h as u32).collect();
                let rev: Vec<u32> = spec.rev.iter().map(|&h| h as u32).collect();
                let prop_rtt = fwd
                    .iter()
                    .chain(rev.iter())
                    .fold(extra_delay, |acc, &h| acc + hops[h as usize].delay);
                let live = if external {
                    Some(Box::new(build_live(spec, id, scenario.seed, externals, prop_rtt)?))
                } else {
                    None
                };
                flows.push(Flow {
                    scheme: spec.scheme.clone(),
                    spec: k as u32,
                    live,
                    external,
                    kept: EndpointCounters::default(),
                    fwd,
                    rev,
                    extra_delay,
                    start,
                    stop: spec.stop_ms.map(|s| Time(Dur::from_millis_f64(s).0)),
                    prop_rtt,
                    sender_wake: None,
                    receiver_wake: None,
                    jitter: Dur::from_micros_f64(spec.host_jitter_us),
                    rng: Rng::stream(scenario.seed, 1 + id as u64),
                    ack_ready: Time::ZERO,
                    launch_line: DelayLine::default(),
                    ack_line: DelayLine::default(),
                    in_network: 0,
                    m: FlowMetrics::default(),
                });
            }
        }
        let mut rec = Recorder::new(bin, end, scenario.record_packets, hops.len(), flows.len());
        // Per-flow egress is counted at the hop the summary calls the bottleneck: the
        // least-capacity hop of flow 0's data path over the run (first one on a tie).
        if let Some(f0) = flows.first() {
            let cap = |h: usize| hops[h].link.capacity_between(Time::ZERO, end);
            let mut best: Option<(usize, f64)> = None;
            for &h in f0.fwd.iter() {
                let c = cap(h as usize);
                if best.is_none_or(|(_, b)| c < b) {
                    best = Some((h as usize, c));
                }
            }
            rec.egress_hop = best.map_or(0, |(h, _)| h);
        }
        for h in hops.iter_mut() {
            h.m = rec.hop_metrics();
        }
        for f in flows.iter_mut() {
            f.m = rec.flow_metrics();
        }
        let mut sim = Simulation {
            now: Time::ZERO,
            end,
            events: EventQueue::new(),
            hops,
            flows,
            rec,
            scenario: scenario.clone(),
            out: Vec::new(),
            drops: Vec::new(),
            arena: Default::default(),
            ack_ids: Vec::new(),
            stats: RunStats::default(),
            warnings,
        };
        for (i, f) in sim.flows.iter().enumerate() {
            sim.events.push_timer(f.start, Event::Start(i as u32));
            if let Some(s) = f.stop {
                sim.events.push_timer(s, Event::Stop(i as u32));
            }
        }
        for i in 0..sim.hops.len() {
            if let Link::Trace(t) = &sim.hops[i].link {
                if let Some(t0) = t.next_opportunity() {
                    sim.events.push(t0, Event::Link(i as u32));
                }
            }
        }
        for h in 0..sim.hops.len() {
            sim.schedule_queue(h);
        }
        sim.events.push_timer(Time::ZERO, Event::Sample);
        Ok(sim)
    }
}
