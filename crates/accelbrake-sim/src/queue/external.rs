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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;
    use crate::queue::Limit;
    use std::collections::VecDeque;
    use std::sync::Mutex;

    /// What a callback saw: (hook, seq, len_packets, len_bytes, link capacity).
    type Calls = Arc<Mutex<Vec<(&'static str, u32, usize, u64, f64)>>>;

    /// Answers each hook from its own script (Pass once a script runs out) and records the calls.
    struct Scripted {
        enq: VecDeque<Result<Verdict, String>>,
        deq: VecDeque<Result<Verdict, String>>,
        calls: Calls,
        wants: (bool, bool),
    }

    impl QueueCallbacks for Scripted {
        fn on_enqueue(&mut self, _now: Time, pkt: &Packet, n: usize, b: u64) -> Result<Verdict, String> {
            self.calls.lock().unwrap().push(("enq", pkt.seq, n, b, 0.0));
            self.enq.pop_front().unwrap_or(Ok(Verdict::Pass))
        }
        fn on_dequeue(
            &mut self,
            _now: Time,
            pkt: &Packet,
            n: usize,
            b: u64,
            link: LinkInfo,
        ) -> Result<Verdict, String> {
            self.calls.lock().unwrap().push(("deq", pkt.seq, n, b, link.capacity));
            self.deq.pop_front().unwrap_or(Ok(Verdict::Pass))
        }
        fn wants_enqueue(&self) -> bool {
            self.wants.0
        }
        fn wants_dequeue(&self) -> bool {
            self.wants.1
        }
    }

    /// A callback that keeps the trait's defaults for `wants_*`.
    struct Defaults(Calls);

    impl QueueCallbacks for Defaults {
        fn on_enqueue(&mut self, _now: Time, pkt: &Packet, n: usize, b: u64) -> Result<Verdict, String> {
            self.0.lock().unwrap().push(("enq", pkt.seq, n, b, 0.0));
            Ok(Verdict::Pass)
        }
        fn on_dequeue(
            &mut self,
            _now: Time,
            pkt: &Packet,
            n: usize,
            b: u64,
            _link: LinkInfo,
        ) -> Result<Verdict, String> {
            self.0.lock().unwrap().push(("deq", pkt.seq, n, b, 0.0));
            Ok(Verdict::Pass)
        }
    }

    fn queue(
        limit: Limit,
        enq: Vec<Result<Verdict, String>>,
        deq: Vec<Result<Verdict, String>>,
        wants: (bool, bool),
    ) -> (ExternalQueue, Calls, Arc<Failure>) {
        let calls = Calls::default();
        let failure = Arc::new(Failure::default());
        let cb = Scripted {
            enq: enq.into(),
            deq: deq.into(),
            calls: calls.clone(),
            wants,
        };
        let q = ExternalQueue::new("py-red", 2, limit, Box::new(cb), failure.clone());
        (q, calls, failure)
    }

    fn pkt(seq: u32, ecn: Ecn) -> Packet {
        Packet::data(0, seq, MTU, ecn, Time::ZERO)
    }

    const LINK: LinkInfo = LinkInfo {
        capacity: 1e6,
        overhead: 0,
    };

    #[test]
    fn enqueue_verdicts_pass_drop_and_mark_and_the_callback_sees_the_queue_before() {
        let (mut q, calls, failure) = queue(
            Limit::Packets(10),
            vec![
                Ok(Verdict::Pass),
                Ok(Verdict::Drop),
                Ok(Verdict::Mark(Ecn::Ce)),
                Ok(Verdict::Mark(Ecn::Ce)),
                Ok(Verdict::Mark(Ecn::Ect0)),
            ],
            vec![],
            (true, true),
        );
        assert_eq!(q.name(), "py-red");
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::NotEct)).is_ok());
        assert_eq!(q.enqueue(Time::ZERO, pkt(1, Ecn::Ect0)).unwrap_err().seq, 1, "Drop");
        assert!(q.enqueue(Time::ZERO, pkt(2, Ecn::Ect0)).is_ok(), "marked CE");
        assert_eq!(
            q.enqueue(Time::ZERO, pkt(3, Ecn::NotEct)).unwrap_err().seq,
            3,
            "a mark on a not-ECT packet drops it"
        );
        assert!(
            q.enqueue(Time::ZERO, pkt(4, Ecn::Ect0)).is_ok(),
            "marked with the codepoint it has"
        );
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 3 * u64::from(MTU)));
        let s = q.stats();
        assert_eq!(
            (s.enqueued, s.dropped, s.marked),
            (3, 2, 1),
            "a mark that changes nothing is not counted"
        );
        let seen: Vec<_> = calls.lock().unwrap().iter().map(|c| (c.1, c.2, c.3)).collect();
        assert_eq!(
            seen,
            [(0, 0, 0), (1, 1, 1500), (2, 1, 1500), (3, 2, 3000), (4, 2, 3000)]
        );
        let mut drops = Vec::new();
        let out: Vec<_> = std::iter::from_fn(|| q.dequeue(Time::ZERO, LINK, &mut drops))
            .take(10)
            .map(|p| (p.seq, p.ecn))
            .collect();
        assert_eq!(out, [(0, Ecn::NotEct), (2, Ecn::Ce), (4, Ecn::Ect0)]);
        assert!(drops.is_empty() && failure.message().is_none());
    }

    #[test]
    fn a_full_buffer_drops_without_asking() {
        let (mut q, calls, _) = queue(Limit::Packets(1), vec![], vec![], (true, true));
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::Ect0)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1, Ecn::Ect0)).is_err());
        assert_eq!(calls.lock().unwrap().len(), 1);
        assert_eq!((q.stats().enqueued, q.stats().dropped), (1, 1));
    }

    #[test]
    fn dequeue_verdicts_drop_at_the_head_and_mark() {
        let (mut q, calls, _) = queue(
            Limit::Infinite,
            vec![],
            vec![
                Ok(Verdict::Drop),
                Ok(Verdict::Mark(Ecn::Ce)),
                Ok(Verdict::Mark(Ecn::Ce)),
                Ok(Verdict::Pass),
            ],
            (true, true),
        );
        for (seq, ecn) in [(0, Ecn::Ect0), (1, Ecn::Ect0), (2, Ecn::NotEct), (3, Ecn::NotEct)] {
            assert!(q.enqueue(Time::ZERO, pkt(seq, ecn)).is_ok());
        }
        calls.lock().unwrap().clear();
        let mut drops = Vec::new();
        // Head 0 dropped, 1 marked and sent.
        assert_eq!(
            q.dequeue(Time::ZERO, LINK, &mut drops).map(|p| (p.seq, p.ecn)),
            Some((1, Ecn::Ce))
        );
        assert_eq!(drops.iter().map(|p| p.seq).collect::<Vec<_>>(), [0]);
        // 2 is not ECN-capable: the mark drops it; 3 passes.
        assert_eq!(q.dequeue(Time::ZERO, LINK, &mut drops).map(|p| p.seq), Some(3));
        assert_eq!(drops.iter().map(|p| p.seq).collect::<Vec<_>>(), [0, 2]);
        assert!(q.dequeue(Time::ZERO, LINK, &mut drops).is_none());
        let s = q.stats();
        assert_eq!((s.enqueued, s.dequeued, s.dropped, s.marked), (4, 2, 2, 1));
        // The callback sees the queue with the head still in it, and the link.
        let seen: Vec<_> = calls
            .lock()
            .unwrap()
            .iter()
            .map(|c| (c.0, c.1, c.2, c.3, c.4))
            .collect();
        assert_eq!(
            seen,
            [
                ("deq", 0, 4, 6000, 1e6),
                ("deq", 1, 3, 4500, 1e6),
                ("deq", 2, 2, 3000, 1e6),
                ("deq", 3, 1, 1500, 1e6)
            ]
        );
    }

    #[test]
    fn an_error_is_recorded_once_and_the_queue_becomes_a_plain_fifo() {
        let (mut q, calls, failure) = queue(Limit::Infinite, vec![Err("boom".into())], vec![], (true, true));
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::Ect0)).is_ok(), "the packet is kept");
        assert_eq!(
            failure.message().as_deref(),
            Some("queue 'py-red' (hops[2]) failed in on_enqueue: boom")
        );
        assert!(failure.flag.load(std::sync::atomic::Ordering::Relaxed));
        assert!(q.enqueue(Time::ZERO, pkt(1, Ecn::Ect0)).is_ok());
        let mut drops = Vec::new();
        assert_eq!(q.dequeue(Time::ZERO, LINK, &mut drops).map(|p| p.seq), Some(0));
        assert_eq!(calls.lock().unwrap().len(), 1, "no callback after the failure");

        let (mut q, calls, failure) = queue(Limit::Infinite, vec![], vec![Err("bad".into())], (true, true));
        for seq in 0..2 {
            assert!(q.enqueue(Time::ZERO, pkt(seq, Ecn::Ect0)).is_ok());
        }
        assert_eq!(
            q.dequeue(Time::ZERO, LINK, &mut drops).map(|p| p.seq),
            Some(0),
            "the head leaves"
        );
        assert_eq!(
            failure.message().as_deref(),
            Some("queue 'py-red' (hops[2]) failed in on_dequeue: bad")
        );
        assert_eq!(q.dequeue(Time::ZERO, LINK, &mut drops).map(|p| p.seq), Some(1));
        assert_eq!(calls.lock().unwrap().iter().filter(|c| c.0 == "deq").count(), 1);
        assert_eq!((q.stats().dequeued, q.stats().dropped), (2, 0));
    }

    #[test]
    fn hooks_that_are_not_wanted_are_not_called() {
        let drops = |n| (0..n).map(|_| Ok(Verdict::Drop)).collect::<Vec<_>>();
        let (mut q, calls, _) = queue(Limit::Infinite, drops(2), drops(2), (false, true));
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::Ect0)).is_ok(), "not asked: passes");
        assert!(q.dequeue(Time::ZERO, LINK, &mut Vec::new()).is_none(), "asked: dropped");
        assert_eq!(calls.lock().unwrap().iter().map(|c| c.0).collect::<Vec<_>>(), ["deq"]);
        let (mut q, calls, _) = queue(Limit::Infinite, drops(2), drops(2), (true, false));
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::Ect0)).is_err(), "asked: dropped");
        assert!(q.enqueue(Time::ZERO, pkt(1, Ecn::Ect0)).is_err());
        assert!(q.enqueue(Time::ZERO, pkt(2, Ecn::Ect0)).is_ok(), "script ran out: Pass");
        assert_eq!(
            q.dequeue(Time::ZERO, LINK, &mut Vec::new()).map(|p| p.seq),
            Some(2),
            "not asked"
        );
        assert_eq!(calls.lock().unwrap().len(), 3);
        // By default both hooks are wanted.
        let calls = Calls::default();
        let mut q = ExternalQueue::new(
            "py-x",
            0,
            Limit::Infinite,
            Box::new(Defaults(calls.clone())),
            Arc::default(),
        );
        assert!(q.enqueue(Time::ZERO, pkt(0, Ecn::Ect0)).is_ok());
        assert!(q.dequeue(Time::ZERO, LINK, &mut Vec::new()).is_some());
        assert_eq!(
            calls.lock().unwrap().iter().map(|c| c.0).collect::<Vec<_>>(),
            ["enq", "deq"]
        );
    }
}
