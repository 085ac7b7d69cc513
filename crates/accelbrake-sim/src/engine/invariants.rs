//! Run invariants, checkable at any point of a run (debug builds check them every 4096 events):
//! packet conservation per flow and in the network, per-hop accounting against the queue's own
//! counters, links never carrying more than their capacity, and a sane clock and event queue.

use super::Simulation;
use crate::time::{Dur, Time};

impl Simulation {
    /// Check packet conservation: every packet a flow put into the network is in a queue, on a
    /// link, or on a delay line, and the per-flow counters agree with that census.
    pub fn check_conservation(&self) -> std::result::Result<(), String> {
        let counted: u64 = self.flows.iter().map(|f| f.in_network).sum();
        let queued: u64 = self.hops.iter().map(|h| h.queued_packets() as u64).sum();
        let on_links = self.hops.iter().map(super::Hop::on_link).sum::<u64>();
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
        // The arena holds exactly the packets on the id path: rate-link FIFOs and transmissions and
        // every delay line (queues and links that hold packets by value took theirs out).
        let on_ids = self
            .hops
            .iter()
            .map(|h| h.fifo.as_ref().map_or(0, |f| f.len() as u64) + u64::from(h.tx_id.is_some()))
            .sum::<u64>()
            + travelling;
        if self.arena.len() as u64 != on_ids {
            return Err(format!(
                "packet arena holds {} packets, but {on_ids} ids are in FIFOs, on rate links and on delay lines",
                self.arena.len()
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let c = f.counters();
            let sent = c.sender.packets_sent;
            let acks = c.receiver.acks;
            let accounted = c.receiver.packets + f.m.data_drops + c.sender.acks + f.m.ack_drops + f.in_network;
            if sent + acks != accounted {
                return Err(format!(
                    "flow {i}: {sent} data packets + {acks} ACKs sent, but {} data delivered + {} data dropped + {} ACKs delivered + {} ACKs dropped + {} in the network",
                    c.receiver.packets, f.m.data_drops, c.sender.acks, f.m.ack_drops, f.in_network
                ));
            }
        }
        for h in &self.hops {
            // Accepted packets either left, are still queued, or were dropped by an AQM at dequeue.
            let s = h.queue_stats();
            if s.enqueued < s.dequeued + h.queued_packets() as u64 {
                return Err(format!(
                    "hop {}: {} packets accepted but {} dequeued and {} queued",
                    h.name,
                    s.enqueued,
                    s.dequeued,
                    h.queued_packets()
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
            let queued = h.queued_packets() as u64;
            let on_link = h.on_link();
            let m = &h.m;
            if m.arrived != m.departed_pkts + m.drops + queued + on_link {
                return Err(format!(
                    "hop {}: {} packets arrived but {} departed + {} dropped + {queued} queued + {on_link} on the link",
                    h.name, m.arrived, m.departed_pkts, m.drops
                ));
            }
            let s = h.queue_stats();
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
            if (queued == 0) != (h.queued_bytes() == 0) {
                return Err(format!(
                    "hop {}: {queued} packets but {} bytes queued",
                    h.name,
                    h.queued_bytes()
                ));
            }
            // Capacity over [0, now]: an opportunity (or the end of a transmission) at `now` has
            // already been used, hence the 1 ns.
            // A Wi-Fi link's capacity is the mean of a random process (backoff), not a bound.
            let cap = h.link.capacity_between(Time::ZERO, self.now + Dur(1));
            if !matches!(h.link, crate::link::Link::Wifi(_)) && m.departed_bytes as f64 > cap * (1.0 + 1e-9) + 1.0 {
                return Err(format!(
                    "hop {}: {} bytes left the link, more than its capacity {cap:.0} bytes",
                    h.name, m.departed_bytes
                ));
            }
        }
        Ok(())
    }
}
