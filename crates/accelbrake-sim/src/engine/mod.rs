//! The simulation: hops, flows, events, and measurement.
//!
//! A [`Simulation`] is built from a [`Scenario`] and run to its end with [`Simulation::run`]. Each
//! hop is `queue → link → propagation delay`; a flow's data crosses its `fwd` hops in order and its
//! ACKs its `rev` hops. Endpoints and queues are sans-IO state machines: the loop hands them `now`
//! and packets, and asks them when they want to be woken.
//!
//! This file holds the run-time types and the public API; the rest is split by job:
//! * `build.rs`: building hops (links, queues) and flows from a [`Scenario`] ([`Simulation::new`]);
//! * `run.rs`: the event loop ([`Simulation::run_until`]) and packet movement through hops;
//! * `invariants.rs`: conservation and consistency checks ([`Simulation::check_invariants`]).
//!
//! Measurement lives in [`crate::measure`], which does not know these types: the loop hands it
//! packets and sample values, and [`Simulation::result`] hands it counters.

mod arena;
mod build;
mod invariants;
mod run;

use crate::error::Result;
use crate::link::Link;
use crate::measure::summary::{summarize, FlowInput, HopInput, RunInfo};
use crate::measure::table::{build_tables, Table};
use crate::measure::{FlowMetrics, HopMetrics, Recorder, Summary};
use crate::packet::Packet;
use crate::queue::{Fifo, Queue, QueueStats};
use crate::receiver::{Receiver, ReceiverStats};
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::sched::{DelayLine, EventQueue};
use crate::sender::{Sender, SenderStats};
use crate::time::{Dur, Time};
use crate::warning::Warning;
use arena::{Arena, ArenaAcks, Held, PacketId, Parked, READ_AHEAD};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

#[doc(hidden)]
pub use arena::ArenaRing;
pub use run::STOP_CHECK_EVENTS;

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
    /// Packet partly sent (trace link).
    tx: Option<Packet>,
    /// Rate link: the packet on the wire, in the arena.
    tx_id: Option<PacketId>,
    /// A drop-tail/infinite queue ([`Queue::as_fifo`]) on a rate link: the hop queues arena ids
    /// here, with the queue's limit, and `queue` stays empty (its name is still the hop's).
    fifo: Option<Fifo<Held>>,
    /// Window the queue wants capacity over.
    cap_window: Option<Dur>,
    /// [`crate::queue::Queue::capacity_lookahead`]: measure the capacity window this far ahead.
    lookahead: Option<Dur>,
    /// [`crate::queue::Queue::observes_link`]: show the queue the link before each dequeue.
    observes_link: bool,
    /// When a `QueueTimer` event is pending for this hop.
    queue_wake: Option<Time>,
    /// Packets that left the link and are propagating to the next hop.
    line: DelayLine<Parked>,
    /// Packets in the hop (queued or on the link) and since when that count holds.
    occupancy: u64,
    occupancy_since: Time,
    pub(crate) m: HopMetrics,
}

impl Hop {
    /// Packets queued (in the hop's own FIFO of ids, or in its queue).
    pub(crate) fn queued_packets(&self) -> usize {
        self.fifo.as_ref().map_or_else(|| self.queue.len_packets(), Fifo::len)
    }
    /// Bytes queued.
    pub(crate) fn queued_bytes(&self) -> u64 {
        self.fifo.as_ref().map_or_else(|| self.queue.len_bytes(), Fifo::bytes)
    }
    /// The queue's counters.
    pub(crate) fn queue_stats(&self) -> QueueStats {
        self.fifo.as_ref().map_or_else(|| self.queue.stats(), |f| f.stats)
    }
    /// Packets on the link: the rate link's transmission, a trace link's partly sent packet, or
    /// a Wi-Fi link's batch.
    pub(crate) fn on_link(&self) -> u64 {
        u64::from(self.tx.is_some()) + u64::from(self.tx_id.is_some()) + self.link.held()
    }
}

/// A flow's endpoints: built when the flow starts (or when the first time-series bin it has a row
/// in is sampled, whichever comes first), not when the run is built, and dropped when it retires,
/// so that a run's memory follows its concurrent flows, not every flow it will ever have (issue
/// 14). Controllers of external schemes ([`crate::cc::external`]) are the exception: they are built with
/// the simulation, as before, and kept to the end (their factories may fail and are called in
/// flow order from [`Simulation::with_externals`]).
pub(crate) struct Live {
    pub(crate) sender: Sender,
    pub(crate) receiver: Receiver,
}

/// What a flow's summary row needs from its endpoints; kept when the endpoints are dropped.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EndpointCounters {
    pub(crate) completed_at: Option<Time>,
    pub(crate) sender: SenderStats,
    pub(crate) receiver: ReceiverStats,
}

/// A flow at run time.
pub(crate) struct Flow {
    pub(crate) scheme: String,
    /// Index of the scenario's `flows[]` entry this flow was expanded from (its endpoints are
    /// built from it).
    spec: u32,
    /// Its endpoints while it exists: `None` before it starts and after it retires.
    pub(crate) live: Option<Box<Live>>,
    /// An external scheme's flow: endpoints built with the simulation and never dropped.
    external: bool,
    /// The endpoints' counters as they were when they were dropped (zero before the flow starts).
    kept: EndpointCounters,
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
    launch_line: DelayLine<Parked>,
    /// ACKs that reached the sender host, waiting out its jitter.
    ack_line: DelayLine<Parked>,
    /// Data packets and ACKs of this flow inside the network (queues, links, delay lines).
    pub(crate) in_network: u64,
    pub(crate) m: FlowMetrics,
}

impl Flow {
    /// The endpoints of a flow that has packets in the network or events of its own: built at its
    /// start and kept until it retires, after which it has neither.
    #[inline]
    pub(crate) fn live(&mut self) -> &mut Live {
        self.live
            .as_deref_mut()
            .expect("a flow's endpoints exist from its start until it retires")
    }

    /// Its endpoints' counters, live or kept.
    pub(crate) fn counters(&self) -> EndpointCounters {
        match &self.live {
            Some(l) => EndpointCounters {
                completed_at: l.sender.completed_at,
                sender: l.sender.stats,
                receiver: l.receiver.stats,
            },
            None => self.kept,
        }
    }
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
    /// Every packet in the network that is not held by value inside a queue or a trace/Wi-Fi link.
    arena: Arena,
    /// The ACKs a receiver just wrote into the arena, to send.
    ack_ids: Vec<PacketId>,
    /// Run counters.
    pub stats: RunStats,
    /// Settings outside a scheme's or queue's known operating range ([`crate::warning`]).
    warnings: Vec<Warning>,
}

impl Simulation {
    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }
    /// Settings of this run outside a scheme's or queue's known operating range (also in the
    /// summary's `warnings`).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
    /// Number of flows (entries with `count` > 1 expanded).
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }
    /// The sender of flow `f` (its controller, counters, RTT estimates); `None` before the flow's
    /// endpoints are built (they are built when it starts) and after it retired (they are
    /// dropped). An external scheme's flow has one from the start to the end of the run.
    pub fn sender(&self, f: usize) -> Option<&crate::sender::Sender> {
        self.flows[f].live.as_deref().map(|l| &l.sender)
    }
    /// Whether flow `f`'s endpoints (sender, receiver, controller) exist now (see
    /// [`Simulation::sender`]).
    pub fn flow_built(&self, f: usize) -> bool {
        self.flows[f].live.is_some()
    }
    /// The end of the run (the scenario's duration).
    pub fn end(&self) -> Time {
        self.end
    }
    /// Let flow `f`'s sender act now on a change made from outside the run (a steered
    /// controller's new window or rate, [`crate::cc::external::Steered`]): it sends what the new
    /// window allows and re-arms its timer. For use between [`Simulation::run_until`] calls.
    pub fn wake_sender(&mut self, f: usize) {
        self.pump_sender(f);
    }
    /// Whether flow `f` has retired: finished (a finite flow with all its data acknowledged) or
    /// stopped (past its `stop_ms` with all it sent acknowledged), with nothing of it left in the
    /// network; its delay figures fixed, its per-flow memory and its endpoints freed.
    pub fn flow_retired(&self, f: usize) -> bool {
        self.flows[f].m.retired.is_some()
    }
    /// Heap bytes held by flow `f`'s measurements (distributions and per-bin series).
    pub fn flow_metrics_heap_bytes(&self, f: usize) -> usize {
        self.flows[f].m.heap_bytes()
    }
    /// Events scheduled so far.
    pub fn events_scheduled(&self) -> u64 {
        self.events.scheduled()
    }

    /// Turn the run's measurements into a summary and tables (call after [`Simulation::run`]).
    pub fn result(&mut self) -> SimResult {
        let end = self.now;
        for f in &mut self.flows {
            self.rec.write_row(&mut f.m);
        }
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
                let s = h.queue_stats();
                HopInput {
                    name: &h.name,
                    queue: h.queue.name(),
                    marks: s.marked,
                    max_queue_packets: s.max_packets,
                    occupancy_area: self.occupancy_area(i),
                    m: &h.m,
                    capacity_between: cap,
                    trace_offset_ms: match &h.link {
                        Link::Trace(t) => Some(t.offset_ms()),
                        Link::Rate(_) | Link::Wifi(_) => None,
                    },
                }
            })
            .collect();
        let flows: Vec<FlowInput> = self
            .flows
            .iter()
            .map(|f| {
                let c = f.counters();
                FlowInput {
                    scheme: &f.scheme,
                    start: f.start,
                    stop: f.stop,
                    prop_rtt: f.prop_rtt,
                    fwd: &f.fwd,
                    completed_at: c.completed_at,
                    delivered_segments: c.receiver.delivered_segments,
                    packets_sent: c.sender.packets_sent,
                    retransmits: c.sender.retransmits,
                    timeouts: c.sender.timeouts,
                    m: &f.m,
                }
            })
            .collect();
        let mut summary = summarize(&self.rec, &run, &hops, &flows);
        summary.warnings = self.warnings.clone();
        let mut tables = build_tables(&mut self.rec, end, &hops, &flows);
        if let Some(t) = crate::wifi::batches_table(self.hops.iter().enumerate().filter_map(|(i, h)| match &h.link {
            Link::Wifi(w) => Some((i, w.as_ref())),
            _ => None,
        })) {
            tables.insert("wifi_batches".into(), t);
        }
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

/// [`simulate`] that gives up with [`crate::Error::Interrupted`] soon after `stop` is set (by
/// another thread, e.g. on Ctrl-C): within [`STOP_CHECK_EVENTS`] events of the run, or before the
/// run if the flag is already set when the scenario is built.
pub fn simulate_interruptible(scenario: &Scenario, stop: &AtomicBool) -> Result<SimResult> {
    let mut sim = Simulation::new(scenario)?;
    sim.run_interruptible(stop)?;
    debug_assert_eq!(sim.check_invariants(), Ok(()));
    Ok(sim.result())
}
