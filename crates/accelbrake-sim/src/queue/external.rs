//! Queues whose decisions are made outside the core (in Python, through the PyO3 layer).
//!
//! An [`ExternalQueue`] is a FIFO with a limit ([`Fifo`]) that asks its [`QueueCallbacks`] about
//! each packet when it arrives and when it is about to leave: pass it, drop it, or mark it (set an
//! ECN codepoint; a mark on a packet that is not ECN-capable drops it, as an RFC 3168 AQM does).
//! The first error is recorded in the run's [`Failure`] (which stops the run); from then on the
//! queue is a plain drop-tail FIFO.

use super::{Fifo, LinkInfo, Queue, QueueStats};
use crate::cc::external::{intern, Failure};
use crate::packet::{Ecn, Packet};
use crate::time::Time;
use std::sync::Arc;

/// What to do with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through unchanged.
    Pass,
    /// Drop it.
    Drop,
    /// Set this ECN codepoint (a packet that is not ECN-capable is dropped instead).
    Mark(Ecn),
}

/// The decisions of an external queue.
pub trait QueueCallbacks: Send {
    /// A packet arrives and fits in the buffer; `len_*` is the queue before it.
    fn on_enqueue(&mut self, now: Time, pkt: &Packet, len_packets: usize, len_bytes: u64) -> Result<Verdict, String>;
    /// `pkt` is at the head and about to leave; `len_*` is the queue with it.
    fn on_dequeue(
        &mut self,
        now: Time,
        pkt: &Packet,
        len_packets: usize,
        len_bytes: u64,
        link: LinkInfo,
    ) -> Result<Verdict, String>;
    /// Whether `on_enqueue` is worth calling (false: always pass).
    fn wants_enqueue(&self) -> bool {
        true
    }
    /// Whether `on_dequeue` is worth calling (false: always pass).
    fn wants_dequeue(&self) -> bool {
        true
    }
}

/// A FIFO whose enqueue and dequeue decisions an external [`QueueCallbacks`] makes.
pub struct ExternalQueue {
    name: &'static str,
    hop: usize,
    fifo: Fifo,
    cb: Box<dyn QueueCallbacks>,
    enq: bool,
    deq: bool,
    failed: bool,
    failure: Arc<Failure>,
}

impl ExternalQueue {
    /// A queue named `name` at hop `hop` (for error messages) with buffer limit `limit`.
    pub fn new(
        name: &str,
        hop: usize,
        limit: super::Limit,
        cb: Box<dyn QueueCallbacks>,
        failure: Arc<Failure>,
    ) -> Self {
        ExternalQueue {
            name: intern(name),
            hop,
            fifo: Fifo::new(limit),
            enq: cb.wants_enqueue(),
            deq: cb.wants_dequeue(),
            cb,
            failed: false,
            failure,
        }
    }

    fn fail(&mut self, hook: &str, msg: String) {
        self.failed = true;
        self.failure.set(format!(
            "queue '{}' (hops[{}]) failed in {hook}: {msg}",
            self.name, self.hop
        ));
    }

    /// Apply a mark; false if the packet must be dropped instead (not ECN-capable).
    fn mark(&mut self, pkt: &mut Packet, ecn: Ecn) -> bool {
        if !pkt.ecn.is_ect() {
            return false;
        }
        if pkt.ecn != ecn {
            pkt.ecn = ecn;
            self.fifo.stats.marked += 1;
        }
        true
    }
}

impl Queue for ExternalQueue {
    fn name(&self) -> &'static str {
        self.name
    }

    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Result<(), Packet> {
        if self.enq && !self.failed && self.fifo.fits(&pkt) {
            let (n, b) = (self.fifo.len(), self.len_bytes());
            match self.cb.on_enqueue(now, &pkt, n, b) {
                Ok(Verdict::Pass) => {}
                Ok(Verdict::Drop) => {
                    self.fifo.stats.dropped += 1;
                    return Err(pkt);
                }
                Ok(Verdict::Mark(e)) => {
                    if !self.mark(&mut pkt, e) {
                        self.fifo.stats.dropped += 1;
                        return Err(pkt);
                    }
                }
                Err(msg) => self.fail("on_enqueue", msg),
            }
        }
        self.fifo.push(now, pkt)
    }

    fn dequeue(&mut self, now: Time, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        loop {
            let (n, b) = (self.fifo.len(), self.len_bytes());
            let mut pkt = self.fifo.pop()?;
            if !self.deq || self.failed {
                return Some(pkt);
            }
            match self.cb.on_dequeue(now, &pkt, n, b, link) {
                Ok(Verdict::Pass) => return Some(pkt),
                Ok(Verdict::Drop) => {}
                Ok(Verdict::Mark(e)) => {
                    if self.mark(&mut pkt, e) {
                        return Some(pkt);
                    }
                }
                Err(msg) => {
                    self.fail("on_dequeue", msg);
                    return Some(pkt);
                }
            }
            // Dropped at the head: counted as dequeued by the FIFO, so move it to drops.
            self.fifo.stats.dequeued -= 1;
            self.fifo.stats.dropped += 1;
            drops.push(pkt);
        }
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn stats(&self) -> QueueStats {
        self.fifo.stats
    }
}
