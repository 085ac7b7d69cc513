//! The simulation loop: hops, flows, events, and measurement.
//!
//! A [`Simulation`] is built from a [`Scenario`] and run to its end with [`Simulation::run`]. Each
//! hop is `queue → link → propagation delay`; a flow's data crosses its `fwd` hops in order and its
//! ACKs its `rev` hops. Endpoints and queues are sans-IO state machines: the loop hands them `now`
//! and packets, and asks them when they want to be woken.

use crate::cc;
use crate::error::{Error, Result};
use crate::link::{Link, RateLink, Step, Trace, TraceLink};
use crate::measure::summary::{summarize, FlowInput, HopInput, RunInfo};
use crate::measure::table::{build_tables, Table};
use crate::measure::{FlowMetrics, FlowSample, HopMetrics, HopSample, Recorder, Summary};
use crate::packet::{Ecn, Kind, Packet};
use crate::queue::{LinkInfo, Queue};
use crate::receiver::{EchoMode, Receiver, ReceiverConfig};
use crate::rng::Rng;
use crate::scenario::{AppSpec, LinkSpec, QueueSpec, Scenario};
use crate::sched::{DelayLine, EventQueue};
use crate::sender::{App, Sender};
use crate::time::{Dur, Rate, Time};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// An event. Events are small (no packets inside): packets wait on FIFO [`DelayLine`]s and only
/// each line's head has an event, so the heap moves 24-byte entries.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// The head of hop `h`'s propagation delay line reaches the next hop of its path (or its
    /// endpoint past the last hop).
    Propagated(u32),
    /// The head of flow `f`'s extra-delay line (data sent with `extra_delay_ms`) enters the network.
    Launched(u32),
    /// The head of flow `f`'s ACK line (ACKs that reached the sender host) is processed after the
    /// host's jitter.
    Process(u32),
    /// A hop's link is due: trace opportunity or end of a transmission.
    Link(u32),
    /// A hop's queue timer is due.
    QueueTimer(u32),
    /// A flow starts.
    Start(u32),
    /// A flow stops sending new data.
    Stop(u32),
    /// Sender timer (RTO, pacing, application data).
    SenderWake(u32),
    /// Receiver timer (delayed ACK).
    ReceiverWake(u32),
    /// Take a time-series sample.
    Sample,
}

/// A hop at run time.
pub(crate) struct Hop {
    pub(crate) name: String,
    pub(crate) queue: Box<dyn Queue>,
    pub(crate) link: Link,
    pub(crate) delay: Dur,
    /// Packet on the wire (rate link) or partly sent (trace link).
    tx: Option<Packet>,
    /// Window the queue wants capacity over.
    cap_window: Option<Dur>,
    /// When a `QueueTimer` event is pending for this hop.
    queue_wake: Option<Time>,
    /// Packets that left the link and are propagating to the next hop.
    line: DelayLine<Packet>,
    /// Packets in the hop (queued or on the link) and since when that count holds.
    occupancy: u64,
    occupancy_since: Time,
    pub(crate) m: HopMetrics,
}

/// A flow at run time.
pub(crate) struct Flow {
    pub(crate) scheme: String,
    pub(crate) sender: Sender,
    pub(crate) receiver: Receiver,
    pub(crate) fwd: Vec<u32>,
    pub(crate) rev: Vec<u32>,
    pub(crate) extra_delay: Dur,
    pub(crate) start: Time,
    pub(crate) stop: Option<Time>,
    /// Propagation RTT (sum of hop delays both ways plus the extra delay).
    pub(crate) prop_rtt: Dur,
    sender_wake: Option<Time>,
    receiver_wake: Option<Time>,
    /// Upper bound of the sender host's ACK-processing jitter.
    jitter: Dur,
    /// The flow's random stream.
    rng: Rng,
    /// When the last jittered ACK will be processed.
    ack_ready: Time,
    /// Data packets waiting out the flow's extra delay before the first hop.
    launch_line: DelayLine<Packet>,
    /// ACKs that reached the sender host, waiting out its jitter.
    ack_line: DelayLine<Packet>,
    /// Data packets and ACKs of this flow inside the network (queues, links, delay lines).
    pub(crate) in_network: u64,
    pub(crate) m: FlowMetrics,
}

/// Counters about the run itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    /// Events processed.
    pub events: u64,
    /// Packets that crossed a hop (one count per packet per hop departure).
    pub hop_departures: u64,
    /// Data packets sent by all senders.
    pub data_packets: u64,
}

/// A simulation built from a scenario.
pub struct Simulation {
    pub(crate) now: Time,
    pub(crate) end: Time,
    events: EventQueue<Event>,
    pub(crate) hops: Vec<Hop>,
    pub(crate) flows: Vec<Flow>,
    pub(crate) rec: Recorder,
    pub(crate) scenario: Scenario,
    out: Vec<Packet>,
    drops: Vec<Packet>,
    /// Run counters.
    pub stats: RunStats,
}

fn build_link(spec: &LinkSpec, key: &str, traces: &mut HashMap<String, Arc<Trace>>) -> Result<Link> {
    Ok(match spec {
        LinkSpec::Trace { path, once } => {
            let tr = match traces.get(path) {
                Some(t) => t.clone(),
                None => {
                    let t = Arc::new(Trace::load(path)?);
                    traces.insert(path.clone(), t.clone());
                    t
                }
            };
            Link::Trace(TraceLink::new(tr, *once))
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
/// congestion controllers `CC_STREAMS + flow`.
const QUEUE_STREAMS: u64 = 1 << 32;
const CC_STREAMS: u64 = 2 << 32;

fn build_queue(spec: &QueueSpec, key: &str, seed: u64, hop: usize) -> Result<Box<dyn Queue>> {
    let (kind, values) = spec.resolve(key)?;
    Ok((kind.build)(&values, Rng::stream(seed, QUEUE_STREAMS + hop as u64)))
}

impl Simulation {
    /// Build a simulation (reads trace files).
    pub fn new(scenario: &Scenario) -> Result<Simulation> {
        scenario.validate()?;
        let end = Time(Dur::from_millis_f64(scenario.duration_ms).0);
        let bin = Dur::from_millis_f64(scenario.sample_ms);
        let mut traces = HashMap::new();
        let mut hops = Vec::new();
        for (i, h) in scenario.hops.iter().enumerate() {
            let key = format!("hops[{i}]");
            let mut link = build_link(&h.link, &format!("{key}.link"), &mut traces)?;
            let queue = build_queue(&h.queue, &format!("{key}.queue"), scenario.seed, i)?;
            let cap_window = queue.capacity_window();
            if let (Some(w), Link::Trace(t)) = (cap_window, &mut link) {
                t.keep_window(w);
            }
            let name = if h.name.is_empty() {
                format!("hop{i}")
            } else {
                h.name.clone()
            };
            hops.push(Hop {
                name,
                queue,
                link,
                delay: Dur::from_millis_f64(h.delay_ms),
                tx: None,
                queue_wake: None,
                line: DelayLine::default(),
                occupancy: 0,
                occupancy_since: Time::ZERO,
                cap_window,
                m: HopMetrics::default(),
            });
        }
        let mut flows = Vec::new();
        for spec in scenario.flows.iter() {
            for _ in 0..spec.count {
                let id = flows.len() as u32;
                let start = Time(Dur::from_millis_f64(spec.start_ms).0);
                let cc_rng = Rng::stream(scenario.seed, CC_STREAMS + id as u64);
                let scheme = cc::lookup(&spec.scheme)?;
                let controller = (scheme.build)(&scheme.values(&spec.params)?, start, cc_rng)?;
                let abc = scheme.marking == cc::Marking::Abc;
                let ecn = if abc {
                    Ecn::ACCELERATE
                } else if spec.ecn || scheme.marking == cc::Marking::Ecn {
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
                };
                let rcfg = ReceiverConfig {
                    echo: if abc { EchoMode::PerPacket } else { EchoMode::Classic },
                    ack_every: if spec.delayed_ack { 2 } else { 1 },
                    ts_granularity: Dur::from_micros_f64(spec.rx_ts_granularity_us).max(Dur(1)),
                    ..ReceiverConfig::default()
                };
                let extra_delay = Dur::from_millis_f64(spec.extra_delay_ms);
                let fwd: Vec<u32> = spec.fwd.iter().map(|&h| h as u32).collect();
                let rev: Vec<u32> = spec.rev.iter().map(|&h| h as u32).collect();
                let prop_rtt = fwd
                    .iter()
                    .chain(rev.iter())
                    .fold(extra_delay, |acc, &h| acc + hops[h as usize].delay);
                flows.push(Flow {
                    scheme: spec.scheme.clone(),
                    sender: Sender::new(id, controller, ecn, app),
                    receiver: Receiver::new(id, rcfg),
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
        let rec = Recorder::new(bin, end, scenario.record_packets, hops.len(), flows.len());
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
            stats: RunStats::default(),
        };
        for (i, f) in sim.flows.iter().enumerate() {
            sim.events.push(f.start, Event::Start(i as u32));
            if let Some(s) = f.stop {
                sim.events.push(s, Event::Stop(i as u32));
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
        sim.events.push(Time::ZERO, Event::Sample);
        Ok(sim)
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Run until the scenario's duration.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Process every event before `until` (capped at the scenario's end): a run covers the
    /// half-open interval `[0, duration)`, the same interval capacity is counted over.
    pub fn run_until(&mut self, until: Time) {
        let until = until.min(self.end);
        while let Some(t) = self.events.peek_time() {
            if t >= until {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            debug_assert!(t >= self.now, "time went backwards");
            self.now = t;
            self.stats.events += 1;
            self.dispatch(ev);
            // Debug builds (tests) re-check every invariant now and then.
            #[cfg(debug_assertions)]
            if self.stats.events % 4096 == 0 {
                if let Err(e) = self.check_invariants() {
                    panic!("invariant violated at {}: {e}", self.now);
                }
            }
        }
        self.now = self.now.max(until);
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Propagated(h) => {
                let pkt = self.hops[h as usize]
                    .line
                    .pop(&mut self.events, self.now, Event::Propagated(h));
                if let Some(pkt) = pkt {
                    self.arrive(pkt);
                }
            }
            Event::Launched(f) => {
                let pkt = self.flows[f as usize]
                    .launch_line
                    .pop(&mut self.events, self.now, Event::Launched(f));
                if let Some(pkt) = pkt {
                    self.arrive(pkt);
                }
            }
            Event::Process(f) => {
                let pkt = self.flows[f as usize]
                    .ack_line
                    .pop(&mut self.events, self.now, Event::Process(f));
                if let Some(pkt) = pkt {
                    self.process_ack(pkt);
                }
            }
            Event::Link(h) => self.link_due(h as usize),
            Event::QueueTimer(h) => {
                let hop = &mut self.hops[h as usize];
                if hop.queue_wake != Some(self.now) {
                    return; // stale
                }
                hop.queue_wake = None;
                hop.queue.on_timer(self.now);
                self.schedule_queue(h as usize);
            }
            Event::Start(f) => {
                self.flows[f as usize].sender.start(self.now);
                self.pump_sender(f as usize);
            }
            Event::Stop(f) => {
                self.flows[f as usize].sender.stop(self.now);
                self.pump_sender(f as usize);
            }
            Event::SenderWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.sender_wake != Some(self.now) {
                    return; // stale
                }
                fl.sender_wake = None;
                fl.sender.on_timer(self.now);
                self.pump_sender(f as usize);
            }
            Event::ReceiverWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.receiver_wake != Some(self.now) {
                    return;
                }
                fl.receiver_wake = None;
                let mut out = std::mem::take(&mut self.out);
                fl.receiver.on_timer(self.now, &mut out);
                self.send_acks(f as usize, &mut out);
                self.out = out;
                self.schedule_receiver(f as usize);
            }
            Event::Sample => {
                let flows = self.flows.iter().map(|f| {
                    let m = f.sender.cc.metrics();
                    FlowSample {
                        cwnd: m.cwnd,
                        w_abc: m.w_abc,
                        w_cubic: m.w_cubic,
                        srtt: f.sender.srtt(),
                        pacing_rate: m.pacing_rate,
                        in_flight: f.sender.pipe(),
                    }
                });
                let hops = self.hops.iter().map(|h| HopSample {
                    queue_packets: h.queue.len_packets(),
                    queue_bytes: h.queue.len_bytes(),
                    gauge: h.queue.gauge(),
                });
                self.rec.sample(self.now, flows, hops);
                let next = self.now + self.rec.bin;
                if next < self.end {
                    self.events.push(next, Event::Sample);
                }
            }
        }
    }

    /// Let the sender transmit everything it may now, then arm its timer.
    fn pump_sender(&mut self, f: usize) {
        let now = self.now;
        let mut sent = false;
        while let Some(pkt) = self.flows[f].sender.poll_transmit(now) {
            sent = true;
            self.stats.data_packets += 1;
            let fl = &mut self.flows[f];
            fl.in_network += 1;
            let d = fl.extra_delay;
            if d > Dur::ZERO {
                fl.launch_line
                    .push(&mut self.events, now + d, pkt, Event::Launched(f as u32));
            } else {
                self.arrive(pkt);
            }
        }
        let fl = &mut self.flows[f];
        if let Some(t) = fl.sender.next_wakeup(now) {
            // Safety net against a sender that asks to be woken now but then sends nothing: that
            // would repeat forever at one timestamp. Such a request is a bug (unless a wake-up for
            // now is already pending, e.g. an RTO due at the instant the flow stops, which that
            // pending event handles); move on by 1 µs.
            debug_assert!(
                sent || t > now || fl.sender_wake == Some(now),
                "sender {f} asked to be woken at {t} but sent nothing at {now}"
            );
            let t = if !sent && t <= now {
                now + Dur::from_micros(1)
            } else {
                t.max(now)
            };
            if fl.sender_wake.is_none_or(|s| t < s) {
                fl.sender_wake = Some(t);
                self.events.push(t, Event::SenderWake(f as u32));
            }
        }
    }

    /// Arm the queue's timer event if it wants one earlier than the pending one.
    fn schedule_queue(&mut self, h: usize) {
        let hop = &mut self.hops[h];
        if let Some(t) = hop.queue.next_timer() {
            let t = t.max(self.now);
            if hop.queue_wake.is_none_or(|s| t < s) {
                hop.queue_wake = Some(t);
                self.events.push(t, Event::QueueTimer(h as u32));
            }
        }
    }

    fn schedule_receiver(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if let Some(t) = fl.receiver.next_wakeup() {
            let t = t.max(self.now);
            if fl.receiver_wake.is_none_or(|s| t < s) {
                fl.receiver_wake = Some(t);
                self.events.push(t, Event::ReceiverWake(f as u32));
            }
        }
    }

    fn send_acks(&mut self, f: usize, out: &mut Vec<Packet>) {
        for ack in out.drain(..) {
            self.flows[f].in_network += 1;
            self.arrive(ack);
        }
    }

    /// A packet reaches the next hop of its path, or its endpoint.
    fn arrive(&mut self, mut pkt: Packet) {
        let f = pkt.flow as usize;
        let path = match pkt.kind {
            Kind::Data => &self.flows[f].fwd,
            Kind::Ack => &self.flows[f].rev,
        };
        if let Some(&h) = path.get(pkt.hop as usize) {
            let h = h as usize;
            let hop = &mut self.hops[h];
            hop.m.arrived += 1;
            pkt.enqueued_at = self.now;
            match hop.queue.enqueue(self.now, pkt) {
                Ok(()) => {
                    Self::occupancy_change(hop, self.now, true);
                    if matches!(hop.link, Link::Rate(_)) && hop.tx.is_none() {
                        self.start_tx(h);
                    }
                }
                Err(p) => self.dropped(h, p),
            }
            self.schedule_queue(h);
            return;
        }
        // Past the last hop: deliver to the endpoint.
        let now = self.now;
        let fl = &mut self.flows[f];
        fl.in_network -= 1;
        match pkt.kind {
            Kind::Data => {
                self.rec.delivered(now, &pkt, fl.prop_rtt, &mut fl.m);
                let mut out = std::mem::take(&mut self.out);
                fl.receiver.on_data(now, &pkt, &mut out);
                self.send_acks(f, &mut out);
                self.out = out;
                self.schedule_receiver(f);
            }
            Kind::Ack => {
                if fl.jitter > Dur::ZERO {
                    // Host jitter, FIFO per flow: ACKs are never reordered by it.
                    let t = (now + Dur(fl.rng.below(fl.jitter.0 + 1))).max(fl.ack_ready);
                    fl.ack_ready = t;
                    fl.in_network += 1;
                    fl.ack_line.push(&mut self.events, t, pkt, Event::Process(f as u32));
                } else {
                    self.process_ack(pkt);
                }
            }
        }
    }

    fn process_ack(&mut self, pkt: Packet) {
        let f = pkt.flow as usize;
        let fl = &mut self.flows[f];
        if fl.jitter > Dur::ZERO {
            fl.in_network -= 1;
        }
        fl.sender.on_ack(self.now, &pkt);
        self.pump_sender(f);
    }

    fn dropped(&mut self, h: usize, pkt: Packet) {
        self.hops[h].m.drops += 1;
        let fl = &mut self.flows[pkt.flow as usize];
        fl.in_network -= 1;
        if pkt.is_data() {
            fl.m.data_drops += 1;
        } else {
            fl.m.ack_drops += 1;
        }
    }

    fn link_info(hop: &mut Hop, now: Time) -> LinkInfo {
        let overhead = hop.link.wire_bytes(0);
        match hop.cap_window {
            Some(w) => LinkInfo {
                capacity: hop.link.capacity_rate(now, w),
                overhead,
            },
            None => LinkInfo {
                capacity: 0.0,
                overhead,
            },
        }
    }

    fn dequeue(&mut self, h: usize) -> Option<Packet> {
        let now = self.now;
        let hop = &mut self.hops[h];
        let info = Self::link_info(hop, now);
        let mut drops = std::mem::take(&mut self.drops);
        let p = hop.queue.dequeue(now, info, &mut drops);
        for d in drops.drain(..) {
            Self::occupancy_change(&mut self.hops[h], now, false);
            self.dropped(h, d);
        }
        self.drops = drops;
        p
    }

    /// Rate link: put the next queued packet on the wire.
    fn start_tx(&mut self, h: usize) {
        let Some(pkt) = self.dequeue(h) else { return };
        let hop = &mut self.hops[h];
        let Link::Rate(l) = &hop.link else {
            unreachable!("start_tx on a trace link")
        };
        let done = l.finish_time(self.now, pkt.size);
        hop.tx = Some(pkt);
        if done != Time::MAX {
            self.events.push(done, Event::Link(h as u32));
        }
    }

    fn link_due(&mut self, h: usize) {
        match self.hops[h].link {
            Link::Rate(_) => {
                if let Some(pkt) = self.hops[h].tx.take() {
                    self.depart(h, pkt);
                }
                self.start_tx(h);
            }
            Link::Trace(_) => self.trace_opportunities(h),
        }
    }

    /// Trace link: use every opportunity due now (Mahimahi `LinkQueue::rationalize`).
    fn trace_opportunities(&mut self, h: usize) {
        let now = self.now;
        let mut drops = std::mem::take(&mut self.drops);
        let mut departed = std::mem::take(&mut self.out);
        let hop = &mut self.hops[h];
        let Link::Trace(link) = &mut hop.link else {
            unreachable!("trace_opportunities on a rate link")
        };
        let queue = &mut hop.queue;
        let cap_window = hop.cap_window;
        link.serve(
            now,
            &mut hop.tx,
            |l| {
                let capacity = cap_window.map_or(0.0, |w| l.capacity_bytes(now, w) as f64 / w.secs_f64());
                queue.dequeue(
                    now,
                    LinkInfo {
                        capacity,
                        overhead: crate::link::TUN_OVERHEAD,
                    },
                    &mut drops,
                )
            },
            |p| departed.push(p),
        );
        let next = link.next_opportunity();
        for d in drops.drain(..) {
            Self::occupancy_change(&mut self.hops[h], now, false);
            self.dropped(h, d);
        }
        for p in departed.drain(..) {
            self.depart(h, p);
        }
        self.drops = drops;
        self.out = departed;
        if let Some(t) = next {
            self.events.push(t, Event::Link(h as u32));
        }
    }

    /// A packet was accepted into hop `hop` (`up`) or left it (departed or dropped by an AQM):
    /// integrate the occupancy over time (for the time-averaged queue length).
    fn occupancy_change(hop: &mut Hop, now: Time, up: bool) {
        hop.m.occupancy_area += u128::from(hop.occupancy) * u128::from((now - hop.occupancy_since).0);
        hop.occupancy_since = now;
        if up {
            hop.occupancy += 1;
        } else {
            debug_assert!(hop.occupancy > 0, "hop {} occupancy would go negative", hop.name);
            hop.occupancy -= 1;
        }
    }

    /// Time integral of hop `h`'s occupancy (packets queued or on the link) up to now, packet·ns.
    pub(crate) fn occupancy_area(&self, h: usize) -> u128 {
        let hop = &self.hops[h];
        hop.m.occupancy_area + u128::from(hop.occupancy) * u128::from((self.now - hop.occupancy_since).0)
    }

    /// A packet leaves hop `h`'s link now; it reaches the next hop after the propagation delay.
    fn depart(&mut self, h: usize, mut pkt: Packet) {
        let now = self.now;
        self.stats.hop_departures += 1;
        let hop = &mut self.hops[h];
        Self::occupancy_change(hop, now, false);
        let sojourn = now - pkt.enqueued_at;
        hop.m.sojourn_sum_ns += u128::from(sojourn.0);
        pkt.queued_ns += sojourn.0;
        self.rec
            .departed(h, now, &pkt, sojourn, hop.link.wire_bytes(pkt.size), &mut hop.m);
        pkt.hop += 1;
        hop.line
            .push(&mut self.events, now + hop.delay, pkt, Event::Propagated(h as u32));
    }

    /// Check packet conservation: every packet a flow put into the network is in a queue, on a
    /// link, or on a delay line, and the per-flow counters agree with that census.
    pub fn check_conservation(&self) -> std::result::Result<(), String> {
        let counted: u64 = self.flows.iter().map(|f| f.in_network).sum();
        let queued: u64 = self.hops.iter().map(|h| h.queue.len_packets() as u64).sum();
        let on_links = self.hops.iter().filter(|h| h.tx.is_some()).count() as u64;
        let travelling = (self.hops.iter().map(|h| h.line.len()).sum::<usize>()
            + self
                .flows
                .iter()
                .map(|f| f.launch_line.len() + f.ack_line.len())
                .sum::<usize>()) as u64;
        if counted != queued + on_links + travelling {
            return Err(format!(
                "packet conservation violated: flows count {counted} packets in the network, found {queued} queued + {on_links} on links + {travelling} in delay lines"
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let sent = f.sender.stats.packets_sent;
            let acks = f.receiver.stats.acks;
            let accounted =
                f.receiver.stats.packets + f.m.data_drops + f.sender.stats.acks + f.m.ack_drops + f.in_network;
            if sent + acks != accounted {
                return Err(format!(
                    "flow {i}: {sent} data packets + {acks} ACKs sent, but {} data delivered + {} data dropped + {} ACKs delivered + {} ACKs dropped + {} in the network",
                    f.receiver.stats.packets, f.m.data_drops, f.sender.stats.acks, f.m.ack_drops, f.in_network
                ));
            }
        }
        for h in &self.hops {
            // Accepted packets either left, are still queued, or were dropped by an AQM at dequeue.
            let s = h.queue.stats();
            if s.enqueued < s.dequeued + h.queue.len_packets() as u64 {
                return Err(format!(
                    "hop {}: {} packets accepted but {} dequeued and {} queued",
                    h.name,
                    s.enqueued,
                    s.dequeued,
                    h.queue.len_packets()
                ));
            }
        }
        Ok(())
    }

    /// Check every invariant a run promises, at any point of the run:
    /// * packet conservation per flow and in the network as a whole ([`Self::check_conservation`]);
    /// * per hop: every packet that arrived was dropped, is queued, is on the link, or departed;
    ///   the queue's own counters agree; an empty queue holds no bytes;
    /// * no link carried more bytes than its capacity (trace opportunities or rate integral) since
    ///   the start;
    /// * no pending event lies in the past and the clock is within the run.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        self.check_conservation()?;
        if self.now > self.end {
            return Err(format!("clock {} past the end {}", self.now, self.end));
        }
        if let Some(t) = self.events.peek_time() {
            if t < self.now {
                return Err(format!("event pending at {t}, before now {}", self.now));
            }
        }
        let lines = self.hops.iter().map(|h| (h.name.as_str(), &h.line)).chain(
            self.flows
                .iter()
                .flat_map(|f| [("flow launch line", &f.launch_line), ("flow ACK line", &f.ack_line)]),
        );
        for (name, line) in lines {
            if !line.is_ordered_from(self.now) {
                return Err(format!(
                    "{name}: delay line out of order or holding a value due before now"
                ));
            }
        }
        for h in &self.hops {
            let queued = h.queue.len_packets() as u64;
            let on_link = u64::from(h.tx.is_some());
            let m = &h.m;
            if m.arrived != m.departed_pkts + m.drops + queued + on_link {
                return Err(format!(
                    "hop {}: {} packets arrived but {} departed + {} dropped + {queued} queued + {on_link} on the link",
                    h.name, m.arrived, m.departed_pkts, m.drops
                ));
            }
            let s = h.queue.stats();
            if s.dequeued != m.departed_pkts + on_link || s.dropped != m.drops {
                return Err(format!(
                    "hop {}: queue counts {} dequeued / {} dropped, the hop {} departed + {on_link} on the link / {} dropped",
                    h.name, s.dequeued, s.dropped, m.departed_pkts, m.drops
                ));
            }
            if h.occupancy != queued + on_link {
                return Err(format!(
                    "hop {}: occupancy {} but {queued} queued + {on_link} on the link",
                    h.name, h.occupancy
                ));
            }
            if (queued == 0) != (h.queue.len_bytes() == 0) {
                return Err(format!(
                    "hop {}: {queued} packets but {} bytes queued",
                    h.name,
                    h.queue.len_bytes()
                ));
            }
            // Capacity over [0, now]: an opportunity (or the end of a transmission) at `now` has
            // already been used, hence the 1 ns.
            let cap = h.link.capacity_between(Time::ZERO, self.now + Dur(1));
            if m.departed_bytes as f64 > cap * (1.0 + 1e-9) + 1.0 {
                return Err(format!(
                    "hop {}: {} bytes left the link, more than its capacity {cap:.0} bytes",
                    h.name, m.departed_bytes
                ));
            }
        }
        Ok(())
    }

    /// Events scheduled so far.
    pub fn events_scheduled(&self) -> u64 {
        self.events.scheduled()
    }

    /// Turn the run's measurements into a summary and tables (call after [`Simulation::run`]).
    pub fn result(&mut self) -> SimResult {
        let end = self.now;
        let run = RunInfo {
            end,
            seed: self.scenario.seed,
            events: self.stats.events,
            hop_departures: self.stats.hop_departures,
        };
        let capacity: Vec<_> = self
            .hops
            .iter()
            .map(|h| move |from: Time, to: Time| h.link.capacity_between(from, to))
            .collect();
        let hops: Vec<HopInput> = self
            .hops
            .iter()
            .zip(&capacity)
            .enumerate()
            .map(|(i, (h, cap))| {
                let s = h.queue.stats();
                HopInput {
                    name: &h.name,
                    queue: h.queue.name(),
                    marks: s.marked,
                    max_queue_packets: s.max_packets,
                    occupancy_area: self.occupancy_area(i),
                    m: &h.m,
                    capacity_between: cap,
                }
            })
            .collect();
        let flows: Vec<FlowInput> = self
            .flows
            .iter()
            .map(|f| FlowInput {
                scheme: &f.scheme,
                start: f.start,
                stop: f.stop,
                prop_rtt: f.prop_rtt,
                fwd: &f.fwd,
                completed_at: f.sender.completed_at,
                delivered_segments: f.receiver.stats.delivered_segments,
                packets_sent: f.sender.stats.packets_sent,
                retransmits: f.sender.stats.retransmits,
                timeouts: f.sender.stats.timeouts,
                m: &f.m,
            })
            .collect();
        let summary = summarize(&self.rec, &run, &hops, &flows);
        let tables = build_tables(&mut self.rec, end, &hops, &flows);
        SimResult { summary, tables }
    }
}

/// Everything a run produces.
pub struct SimResult {
    /// Summary figures.
    pub summary: Summary,
    /// Tables: `flows_ts`, `hops_ts`, and with packet records `packets` and `hop_packets`.
    pub tables: BTreeMap<String, Table>,
}

/// Build, run and summarise a scenario in one call.
pub fn simulate(scenario: &Scenario) -> Result<SimResult> {
    let mut sim = Simulation::new(scenario)?;
    sim.run();
    debug_assert_eq!(sim.check_invariants(), Ok(()));
    Ok(sim.result())
}
