//! The event loop: events are popped in (time, insertion) order and dispatched to the hops'
//! queues and links, the flows' senders and receivers, and the recorder. Packets move
//! `queue → link → propagation delay line → next hop` (Mahimahi's `LinkQueue::rationalize` on trace
//! links, serialisation at the current rate on rate links); endpoints are woken when they ask.

use super::{ArenaAcks, Event, Held, Hop, PacketId, Parked, Simulation, READ_AHEAD};
use crate::error::{Error, Result};
use crate::link::Link;
use crate::measure::{FlowSample, HopSample};
use crate::packet::Kind;
use crate::queue::LinkInfo;
use crate::time::{Dur, Time};
use std::sync::atomic::{AtomicBool, Ordering};

/// How many events run between two looks at the stop flag: a power of two, so the test is a mask.
/// At the slowest plausible rate (~1 M events/s with many flows and packet records) that is ~65 ms
/// between looks; at several M events/s a few ms. One relaxed load per 65 536 events costs nothing
/// measurable.
pub const STOP_CHECK_EVENTS: u64 = 1 << 16;

impl Simulation {
    /// Run until the scenario's duration.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Process every event before `until` (capped at the scenario's end): a run covers the
    /// half-open interval `[0, duration)`, the same interval capacity is counted over.
    pub fn run_until(&mut self, until: Time) {
        let done = self.run_inner(until, None);
        debug_assert!(done, "a run without a stop flag cannot be interrupted");
    }

    /// [`Simulation::run`], but stop early with [`Error::Interrupted`] once `stop` is set (by
    /// another thread, e.g. on Ctrl-C). The flag is looked at before the first event and then every
    /// [`STOP_CHECK_EVENTS`] events. An interrupted simulation stays consistent but is
    /// incomplete: its [`Simulation::result`] describes only the events processed so far.
    pub fn run_interruptible(&mut self, stop: &AtomicBool) -> Result<()> {
        self.run_until_interruptible(self.end, stop)
    }

    /// [`Simulation::run_until`] with a stop flag, as [`Simulation::run_interruptible`].
    pub fn run_until_interruptible(&mut self, until: Time, stop: &AtomicBool) -> Result<()> {
        if self.run_inner(until, Some(stop)) {
            Ok(())
        } else {
            Err(Error::Interrupted)
        }
    }

    /// The event loop; false if `stop` was seen set (the run is then left where it stopped).
    fn run_inner(&mut self, until: Time, stop: Option<&AtomicBool>) -> bool {
        let until = until.min(self.end);
        while let Some(t) = self.events.peek_time() {
            if t >= until {
                break;
            }
            if self.stats.events.is_multiple_of(STOP_CHECK_EVENTS) && stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return false;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            debug_assert!(t >= self.now, "time went backwards");
            self.now = t;
            self.stats.events += 1;
            self.dispatch(ev);
            // Debug builds (tests) re-check every invariant now and then.
            #[cfg(debug_assertions)]
            if self.stats.events.is_multiple_of(4096) {
                if let Err(e) = self.check_invariants() {
                    panic!("invariant violated at {}: {e}", self.now);
                }
            }
        }
        self.now = self.now.max(until);
        true
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Propagated(h) => {
                let line = &mut self.hops[h as usize].line;
                let pkt = line.pop(&mut self.events, self.now, Event::Propagated(h));
                if let Some(n) = line.nth(READ_AHEAD) {
                    // Due from this line a few events from now: fetch it meanwhile.
                    self.arena.prefetch(n.id);
                }
                if let Some(p) = pkt {
                    self.arrive(p.id);
                }
            }
            Event::Launched(f) => {
                let pkt = self.flows[f as usize]
                    .launch_line
                    .pop(&mut self.events, self.now, Event::Launched(f));
                if let Some(p) = pkt {
                    self.arrive(p.id);
                }
            }
            Event::Process(f) => {
                let pkt = self.flows[f as usize]
                    .ack_line
                    .pop(&mut self.events, self.now, Event::Process(f));
                if let Some(p) = pkt {
                    self.process_ack(p.id);
                }
            }
            Event::Link(h) => self.link_due(h as usize),
            Event::QueueTimer(h) => {
                let hop = &mut self.hops[h as usize];
                if hop.queue_wake != Some(self.now) {
                    return; // stale
                }
                hop.queue_wake = None;
                hop.queue.on_timer(self.now, &hop.link);
                self.schedule_queue(h as usize);
            }
            Event::Start(f) => {
                self.ensure_live(f as usize);
                self.flows[f as usize].live().sender.start(self.now);
                self.pump_sender(f as usize);
            }
            Event::Stop(f) => {
                // Built already unless it retired (a flow that finished before its stop time:
                // nothing to stop); `Start` comes first even at the same instant.
                self.ensure_live(f as usize);
                let fl = &mut self.flows[f as usize];
                let Some(l) = fl.live.as_deref_mut() else { return };
                l.sender.stop(self.now);
                self.pump_sender(f as usize);
                self.maybe_retire(f as usize);
            }
            Event::SenderWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.sender_wake != Some(self.now) {
                    return; // stale
                }
                fl.sender_wake = None;
                // A timer still pending when the flow retired finds no endpoints: nothing of the
                // flow is left to act on.
                let Some(l) = fl.live.as_deref_mut() else { return };
                l.sender.on_timer(self.now);
                self.pump_sender(f as usize);
            }
            Event::ReceiverWake(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.receiver_wake != Some(self.now) {
                    return;
                }
                fl.receiver_wake = None;
                let Some(l) = fl.live.as_deref_mut() else { return };
                let mut ids = std::mem::take(&mut self.ack_ids);
                let mut sink = ArenaAcks {
                    arena: &mut self.arena,
                    ids: &mut ids,
                };
                l.receiver.on_timer(self.now, &mut sink);
                self.send_acks(f as usize, &mut ids);
                self.ack_ids = ids;
                self.schedule_receiver(f as usize);
            }
            Event::Sample => {
                // A flow has a row in the bin starting now if it is active at some time in the bin:
                // it starts before the bin ends and has not retired (rows only for
                // flows with something to report; a retired flow's row would repeat its final
                // state with zero rates, and a flow that starts later has nothing yet).
                let bin_end = self.now + self.rec.bin;
                // Each flow's row of the bin that ends now joins the table, then its row of the
                // bin starting now is sampled: rows stay in (bin, flow) order. A flow with a row
                // in this bin that starts later in it gets its endpoints now (the row samples the
                // controller's initial state, as when every flow was built with the simulation;
                // each controller draws from its own stream, so the order of building is free).
                // One pass over the flows (a second pass re-read every flow's entry).
                for i in 0..self.flows.len() {
                    self.rec.write_row(&mut self.flows[i].m);
                    let f = &self.flows[i];
                    if f.start >= bin_end || f.m.retired.is_some() {
                        continue;
                    }
                    if f.live.is_none() {
                        self.ensure_live(i);
                    }
                    let f = &mut self.flows[i];
                    let s = &f.live.as_deref().expect("built above").sender;
                    let m = s.cc.metrics();
                    let sample = FlowSample {
                        cwnd: m.cwnd,
                        w_abc: m.w_abc,
                        w_cubic: m.w_cubic,
                        srtt: s.srtt(),
                        pacing_rate: m.pacing_rate,
                        in_flight: s.pipe(),
                    };
                    self.rec.sample_flow(self.now, i, sample, &mut f.m);
                }
                let hops = self.hops.iter().map(|h| HopSample {
                    queue_packets: h.queued_packets(),
                    queue_bytes: h.queued_bytes(),
                    gauge: h.queue.gauge(),
                });
                self.rec.sample_hops(self.now, hops);
                let next = self.now + self.rec.bin;
                if next < self.end {
                    self.events.push_timer(next, Event::Sample);
                }
            }
        }
    }

    /// Let the sender transmit everything it may now, then arm its timer.
    pub(super) fn pump_sender(&mut self, f: usize) {
        let now = self.now;
        let mut sent = false;
        if self.flows[f].live.is_none() {
            return; // retired (a steered flow's `wake_sender` after its end)
        }
        loop {
            // The sender writes the packet into its arena slot, where it stays until its endpoint.
            let sender = &mut self.flows[f].live().sender;
            let Some(id) = self.arena.alloc_with(|p| sender.poll_transmit_into(now, p)) else {
                break;
            };
            sent = true;
            self.stats.data_packets += 1;
            let fl = &mut self.flows[f];
            fl.in_network += 1;
            let d = fl.extra_delay;
            if d > Dur::ZERO {
                fl.launch_line
                    .push(&mut self.events, now + d, Parked::new(id), Event::Launched(f as u32));
            } else {
                self.arrive(id);
            }
        }
        let fl = &mut self.flows[f];
        if let Some(t) = fl.live().sender.next_wakeup(now) {
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
                self.events.push_timer(t, Event::SenderWake(f as u32));
            }
        }
    }

    /// Arm the queue's timer event if it wants one earlier than the pending one.
    pub(super) fn schedule_queue(&mut self, h: usize) {
        let hop = &mut self.hops[h];
        if let Some(t) = hop.queue.next_timer() {
            let t = t.max(self.now);
            if hop.queue_wake.is_none_or(|s| t < s) {
                hop.queue_wake = Some(t);
                self.events.push_timer(t, Event::QueueTimer(h as u32));
            }
        }
    }

    fn schedule_receiver(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if let Some(t) = fl.live.as_deref().and_then(|l| l.receiver.next_wakeup()) {
            let t = t.max(self.now);
            if fl.receiver_wake.is_none_or(|s| t < s) {
                fl.receiver_wake = Some(t);
                self.events.push_timer(t, Event::ReceiverWake(f as u32));
            }
        }
    }

    /// Send the ACKs (already in the arena) that flow `f`'s receiver just wrote.
    fn send_acks(&mut self, f: usize, ids: &mut Vec<PacketId>) {
        for id in ids.drain(..) {
            self.flows[f].in_network += 1;
            self.arrive(id);
        }
    }

    /// A packet reaches the next hop of its path, or its endpoint. It is read in place in the
    /// arena; it leaves the arena if the hop's queue holds packets by value (not a plain FIFO on
    /// a rate link), if it is dropped, or at its endpoint.
    fn arrive(&mut self, id: PacketId) {
        let now = self.now;
        let pkt = self.arena.get_mut(id);
        let f = pkt.flow as usize;
        let kind = pkt.kind;
        let path = match kind {
            Kind::Data => &self.flows[f].fwd,
            Kind::Ack => &self.flows[f].rev,
        };
        if let Some(&h) = path.get(pkt.hop as usize) {
            let h = h as usize;
            let hop = &mut self.hops[h];
            hop.m.arrived += 1;
            let size = pkt.size;
            let wire = hop.link.wire_bytes(size);
            self.rec.ingress(now, wire, &mut hop.m);
            pkt.enqueued_at = now;
            let accepted = if let Some(fifo) = hop.fifo.as_mut() {
                // The id, not the packet, joins the hop's FIFO.
                match fifo.push(now, Held::new(id, size)) {
                    Ok(()) => true,
                    Err(_) => {
                        self.arena.free(id);
                        false
                    }
                }
            } else {
                // A queue that holds packets by value: the packet leaves the arena.
                let pkt = self.arena.take(id);
                // A plain FIFO without the virtual call (`Queue::as_fifo`).
                let r = match hop.queue.as_fifo() {
                    Some(q) => q.push(now, pkt),
                    None => hop.queue.enqueue(now, pkt),
                };
                r.is_ok()
            };
            let hop = &mut self.hops[h];
            if accepted {
                Self::occupancy_change(hop, now, true);
                if matches!(hop.link, Link::Rate(_)) && hop.tx_id.is_none() {
                    self.start_tx(h);
                } else if let Link::Wifi(w) = &hop.link {
                    if !w.busy() {
                        self.start_batch(h);
                    }
                }
            } else {
                self.dropped(h, f, kind);
            }
            self.schedule_queue(h);
            return;
        }
        // Past the last hop: deliver to the endpoint.
        let fl = &mut self.flows[f];
        fl.in_network -= 1;
        match kind {
            Kind::Data => {
                // Copied out of the arena (written long ago: no store-forwarding stall) so that the
                // receiver can write its ACKs into the arena, the first into this very slot.
                let pkt = self.arena.take(id);
                self.rec.delivered(now, &pkt, fl.prop_rtt, &mut fl.m);
                let mut ids = std::mem::take(&mut self.ack_ids);
                let mut sink = ArenaAcks {
                    arena: &mut self.arena,
                    ids: &mut ids,
                };
                fl.live().receiver.on_data(now, &pkt, &mut sink);
                self.send_acks(f, &mut ids);
                self.ack_ids = ids;
                self.schedule_receiver(f);
                self.maybe_retire(f);
            }
            Kind::Ack => {
                if fl.jitter > Dur::ZERO {
                    // Host jitter, FIFO per flow: ACKs are never reordered by it.
                    let t = (now + Dur(fl.rng.below(fl.jitter.0 + 1))).max(fl.ack_ready);
                    fl.ack_ready = t;
                    fl.in_network += 1;
                    fl.ack_line
                        .push(&mut self.events, t, Parked::new(id), Event::Process(f as u32));
                } else {
                    self.process_ack(id);
                }
            }
        }
    }

    fn process_ack(&mut self, id: PacketId) {
        let pkt = self.arena.get(id);
        let f = pkt.flow as usize;
        let fl = &mut self.flows[f];
        if fl.jitter > Dur::ZERO {
            fl.in_network -= 1;
        }
        fl.live().sender.on_ack(self.now, pkt);
        self.arena.free(id);
        self.pump_sender(f);
        self.maybe_retire(f);
    }

    /// Retire flow `f` if it is over and nothing of it is left in the network (queues, links,
    /// delay lines). Over means either
    /// * finished: a finite flow whose data was all acknowledged, or
    /// * stopped: past its `stop_ms` (it sends no new data) with every segment it sent
    ///   acknowledged (`snd_una = snd_nxt`: nothing left to retransmit either).
    ///
    /// Nothing more can then happen to it, so its delay figures are fixed and its per-flow memory
    /// freed ([`crate::measure::FlowMetrics::retire`]) and its endpoints dropped (their counters
    /// kept for its summary row, see [`super::Flow::counters`]). Its summary row stays; it has no
    /// time-series rows after the bin it retired in. Memory then grows with concurrent flows, not
    /// arrivals.
    #[inline(always)]
    fn maybe_retire(&mut self, f: usize) {
        // Only finished or stopped flows get past this test: the rest stays out of the packet path.
        if let Some(l) = self.flows[f].live.as_deref() {
            if l.sender.completed_at.is_some() || l.sender.is_stopped() {
                self.retire_if_idle(f);
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn retire_if_idle(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        if fl.in_network != 0 || fl.m.retired.is_some() {
            return;
        }
        let s = &fl.live().sender;
        if s.completed_at.is_none() && s.snd_una() != s.snd_nxt() {
            return; // stopped with data still to recover (lost, to be retransmitted on RTO)
        }
        fl.m.close_bins_before(usize::MAX);
        fl.m.retire(fl.prop_rtt);
        fl.launch_line.shrink();
        fl.ack_line.shrink();
        self.drop_live(f);
    }

    /// A packet of flow `f` was dropped at hop `h` (it is gone: out of the arena or the queue).
    fn dropped(&mut self, h: usize, f: usize, kind: Kind) {
        self.hops[h].m.drops += 1;
        let fl = &mut self.flows[f];
        fl.in_network -= 1;
        if kind == Kind::Data {
            fl.m.data_drops += 1;
        } else {
            fl.m.ack_drops += 1;
        }
        self.maybe_retire(f);
    }

    fn link_info(hop: &mut Hop, now: Time) -> LinkInfo {
        let overhead = hop.link.wire_bytes(0);
        match hop.cap_window {
            Some(w) if hop.lookahead.is_some() => LinkInfo {
                capacity: Self::future_capacity(&hop.link, now, w, hop.lookahead),
                overhead,
            },
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

    /// Capacity (bytes/s) over the window `w` ending `lookahead` from now (PK-ABC).
    fn future_capacity(link: &Link, now: Time, w: Dur, lookahead: Option<Dur>) -> f64 {
        let end = now + lookahead.unwrap_or(Dur::ZERO);
        let w = if w.0 == 0 { Dur(1) } else { w };
        link.capacity_between(end - w, end) / w.secs_f64()
    }

    /// Rate link: the next packet for the wire, in the arena.
    fn dequeue(&mut self, h: usize) -> Option<PacketId> {
        let now = self.now;
        let hop = &mut self.hops[h];
        if let Some(f) = hop.fifo.as_mut() {
            // What `DropTail::dequeue` does, on ids.
            let r = f.pop().map(|e| e.id);
            if let Some(n) = f.nth(READ_AHEAD) {
                self.arena.prefetch(n.id);
            }
            return r;
        }
        let info = Self::link_info(hop, now);
        if hop.observes_link {
            hop.queue.observe_link(now, &hop.link);
        }
        let mut drops = std::mem::take(&mut self.drops);
        let p = hop.queue.dequeue(now, info, &mut drops);
        for d in drops.drain(..) {
            Self::occupancy_change(&mut self.hops[h], now, false);
            self.dropped(h, d.flow as usize, d.kind);
        }
        self.drops = drops;
        // Out of a queue that holds packets by value: back into the arena.
        p.map(|p| self.arena.alloc(p))
    }

    /// Rate link: put the next queued packet on the wire.
    fn start_tx(&mut self, h: usize) {
        let Some(id) = self.dequeue(h) else { return };
        let hop = &mut self.hops[h];
        let Link::Rate(l) = &hop.link else {
            unreachable!("start_tx on a trace link")
        };
        let done = l.finish_time(self.now, self.arena.get(id).size);
        hop.tx_id = Some(id);
        if done != Time::MAX {
            self.events.push(done, Event::Link(h as u32));
        }
    }

    fn link_due(&mut self, h: usize) {
        match self.hops[h].link {
            Link::Rate(_) => {
                if let Some(id) = self.hops[h].tx_id.take() {
                    self.depart(h, id);
                }
                self.start_tx(h);
            }
            Link::Trace(_) => self.trace_opportunities(h),
            Link::Wifi(_) => {
                self.finish_batch(h);
                self.start_batch(h);
            }
        }
    }

    /// Wi-Fi link, air free: form the next A-MPDU (pulling from the hop's queue or its users'
    /// queues with the link's estimate as the router's capacity) and schedule its block ACK.
    fn start_batch(&mut self, h: usize) {
        let now = self.now;
        let mut drops = std::mem::take(&mut self.drops);
        let hop = &mut self.hops[h];
        // No `observe_link` here: a Wi-Fi router cannot see the MAC's true capacity, only the
        // link's estimate (the capacity given to `dequeue`).
        let Link::Wifi(link) = &mut hop.link else {
            unreachable!("start_batch on a non-Wi-Fi link")
        };
        let queue = &mut hop.queue;
        let overhead = crate::wifi::subframe_bytes(0);
        let end = link.start_batch(now, |user, capacity| {
            let info = LinkInfo { capacity, overhead };
            match user {
                None => queue.dequeue(now, info, &mut drops),
                Some(u) => queue.dequeue_user(now, u, info, &mut drops),
            }
        });
        for d in drops.drain(..) {
            Self::occupancy_change(&mut self.hops[h], now, false);
            self.dropped(h, d.flow as usize, d.kind);
        }
        self.drops = drops;
        if let Some(t) = end {
            self.events.push(t, Event::Link(h as u32));
        }
    }

    /// Wi-Fi link: the block ACK of the batch on the air; its frames leave the hop now.
    fn finish_batch(&mut self, h: usize) {
        let now = self.now;
        let mut departed = std::mem::take(&mut self.out);
        if let Link::Wifi(link) = &mut self.hops[h].link {
            link.finish_batch(now, |p| departed.push(p));
        }
        for p in departed.drain(..) {
            let id = self.arena.alloc(p);
            self.depart(h, id);
        }
        self.out = departed;
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
        let lookahead = hop.lookahead;
        let observes = hop.observes_link;
        link.serve(
            now,
            &mut hop.tx,
            |l| {
                if observes {
                    queue.observe_link(now, &*l);
                }
                let capacity = match (cap_window, lookahead) {
                    (None, _) => 0.0,
                    (Some(w), None) => l.capacity_bytes(now, w) as f64 / w.secs_f64(),
                    (Some(w), Some(a)) => {
                        // PK-ABC: the opportunities in the window ending one lookahead ahead.
                        let end = now + a;
                        let w = if w.0 == 0 { Dur(1) } else { w };
                        l.opportunity_bytes_between(end - w, end) as f64 / w.secs_f64()
                    }
                };
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
            self.dropped(h, d.flow as usize, d.kind);
        }
        for p in departed.drain(..) {
            let id = self.arena.alloc(p);
            self.depart(h, id);
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
    fn depart(&mut self, h: usize, id: PacketId) {
        let now = self.now;
        self.stats.hop_departures += 1;
        let pkt = self.arena.get_mut(id);
        let hop = &mut self.hops[h];
        Self::occupancy_change(hop, now, false);
        let sojourn = now - pkt.enqueued_at;
        hop.m.sojourn_sum_ns += u128::from(sojourn.0);
        pkt.queued_ns += sojourn.0;
        let wire = hop.link.wire_bytes(pkt.size);
        self.rec.departed(h, now, pkt, sojourn, wire, &mut hop.m);
        if h == self.rec.egress_hop && pkt.kind == Kind::Data {
            self.rec.egress(now, wire, &mut self.flows[pkt.flow as usize].m);
        }
        let hop = &mut self.hops[h];
        pkt.hop += 1;
        hop.line.push(
            &mut self.events,
            now + hop.delay,
            Parked::new(id),
            Event::Propagated(h as u32),
        );
    }
}
