//! One direction of the emulated link: the simulator's own trace link and queue/AQM, driven by
//! real-time clock readings instead of simulated events, followed by a fixed propagation delay.
//!
//! Clock-free like the core: every method takes `now` (ns since the emulator started), so the
//! direction is tested here without a network or a clock.

use crate::ip::{self, Ports, TcpSeg};
use accelbrake_sim::link::{TraceLink, OPPORTUNITY_BYTES, TUN_OVERHEAD};
use accelbrake_sim::packet::{Ecn, Packet};
use accelbrake_sim::queue::{LinkInfo, Queue};
use accelbrake_sim::time::{Dur, Time, NS_PER_MS};
use std::collections::VecDeque;
use std::io::Write;

/// Where a packet is, per slot.
#[derive(Clone, Debug)]
struct Slot {
    bytes: Vec<u8>,
    arrived: Time,
    ecn_in: Option<Ecn>,
}

/// A packet that left the queue and is on its way (propagation delay).
#[derive(Clone, Copy, Debug)]
struct InFlight {
    due: Time,
    opportunity: Time,
    slot: u32,
    ecn: Ecn,
    /// H_feedback after the queue, for a data segment of the user-space transport that carries an
    /// XCP/RCP header ([`crate::wire`]).
    feedback: Option<f32>,
}

/// What happened to one packet, for the per-packet table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Delivery {
    /// IP bytes.
    pub size: u32,
    /// When it was read from the sending side's TUN device.
    pub arrived: Time,
    /// The trace opportunity that carried its last byte (its nominal departure).
    pub opportunity: Time,
    /// When the schedule says it should come out: `opportunity + delay`.
    pub due: Time,
    /// When it was written to the receiving side's TUN device.
    pub written: Time,
    /// ECN codepoint on arrival (`None`: not IP).
    pub ecn_in: Option<Ecn>,
    /// ECN codepoint on delivery (after the queue's marking).
    pub ecn_out: Option<Ecn>,
    /// Its TCP header fields, if it is a TCP/IPv4 segment.
    pub tcp: Option<TcpSeg>,
    /// Its protocol and ports, if it is TCP or UDP over IPv4 (which flow it belongs to).
    pub ports: Option<Ports>,
}

/// How an ABC router's accelerate/brake are written in the IP header's ECN field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Marks {
    /// The simulator's and the ABC paper's (§4.2) encoding: the sender sends accelerate = ECT(1),
    /// the router turns it into brake = ECT(0); CE keeps its legacy meaning. The queue sees the
    /// codepoints as they are.
    #[default]
    Ect,
    /// The ABC authors' Mahimahi router and Linux module (`tcp_abc.c`), for kernel TCP endpoints,
    /// whose receivers can echo CE but cannot tell ECT(0) from ECT(1): any ECT codepoint is
    /// accelerate and is left as the sender set it; brake is written as CE. The queue sees
    /// accelerate for every ECT packet; its brake leaves as CE.
    Ce,
}

/// Counters of one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counters {
    /// Packets read.
    pub arrived: u64,
    /// Packets dropped by the queue (at enqueue or by the AQM).
    pub dropped: u64,
    /// Packets delivered.
    pub delivered: u64,
    /// IP bytes delivered.
    pub delivered_bytes: u64,
    /// Packets whose ECN codepoint the queue changed.
    pub rewritten: u64,
}

/// One direction: trace link + queue + delay line, with optional Mahimahi-format log.
pub struct Direction {
    link: TraceLink,
    /// A copy of the link that only enumerates opportunities, for the log's `#` lines.
    ticker: TraceLink,
    queue: Box<dyn Queue>,
    cap_window: Option<Dur>,
    /// The queue's [`Queue::observes_link`], asked once.
    observes: bool,
    in_transit: Option<Packet>,
    delay: Dur,
    slots: Vec<Slot>,
    free: Vec<u32>,
    line: VecDeque<InFlight>,
    drops: Vec<Packet>,
    log: Option<Box<dyn Write + Send>>,
    marks: Marks,
    /// Counters.
    pub counters: Counters,
}

impl Direction {
    /// A direction following `link`, queueing in `queue`, delaying each packet by `delay` after
    /// the opportunity that carried it. `log`: Mahimahi link log (`mm-link --uplink-log` format).
    pub fn new(
        mut link: TraceLink,
        queue: Box<dyn Queue>,
        delay: Dur,
        log: Option<Box<dyn Write + Send>>,
    ) -> std::io::Result<Direction> {
        let cap_window = queue.capacity_window();
        if let Some(w) = cap_window {
            link.keep_window(w);
        }
        let observes = queue.observes_link();
        let mut d = Direction {
            ticker: link.clone(),
            link,
            queue,
            cap_window,
            observes,
            in_transit: None,
            delay,
            slots: Vec::new(),
            free: Vec::new(),
            line: VecDeque::new(),
            drops: Vec::new(),
            log,
            marks: Marks::Ect,
            counters: Counters::default(),
        };
        if let Some(l) = d.log.as_mut() {
            // Mahimahi `link_queue.cc`: the header lines, times in ms relative to the base.
            writeln!(l, "# mahimahi mm-link (accelbrake-emu) [{}]", d.queue.name())?;
            writeln!(l, "# queue: {}", d.queue.name())?;
            writeln!(l, "# init timestamp: 0")?;
            writeln!(l, "# base timestamp: 0")?;
        }
        Ok(d)
    }

    /// The same direction writing ABC marks with `marks`.
    pub fn with_marks(mut self, marks: Marks) -> Direction {
        self.marks = marks;
        self
    }

    /// The codepoint the queue sees for a packet that arrived with `wire`.
    fn to_queue(&self, wire: Option<Ecn>) -> Ecn {
        match (self.marks, wire) {
            (_, None) => Ecn::NotEct,
            (Marks::Ce, Some(Ecn::Ect0 | Ecn::Ect1)) => Ecn::ACCELERATE,
            (_, Some(e)) => e,
        }
    }

    /// The codepoint written for a packet that arrived with `wire` and left the queue with `q`.
    fn to_wire(&self, wire: Ecn, q: Ecn) -> Ecn {
        match self.marks {
            Marks::Ect => q,
            Marks::Ce => match (wire, q) {
                (Ecn::Ect0 | Ecn::Ect1, Ecn::ACCELERATE) => wire,
                (Ecn::Ect0 | Ecn::Ect1, Ecn::BRAKE) => Ecn::Ce,
                _ => q,
            },
        }
    }

    fn ms(t: Time) -> u64 {
        t.0 / NS_PER_MS
    }

    /// A packet read at `now` from the sending side. Opportunities due by `now` are used first (they
    /// came before this packet).
    pub fn arrive(&mut self, now: Time, bytes: &[u8]) -> std::io::Result<()> {
        self.serve(now)?;
        self.counters.arrived += 1;
        let ecn_in = ip::ecn_of(bytes);
        let slot = match self.free.pop() {
            Some(s) => {
                let sl = &mut self.slots[s as usize];
                sl.bytes.clear();
                sl.bytes.extend_from_slice(bytes);
                sl.arrived = now;
                sl.ecn_in = ecn_in;
                s
            }
            None => {
                self.slots.push(Slot {
                    bytes: bytes.to_vec(),
                    arrived: now,
                    ecn_in,
                });
                (self.slots.len() - 1) as u32
            }
        };
        if let Some(l) = self.log.as_mut() {
            writeln!(l, "{} + {}", Self::ms(now), bytes.len() as u32 + TUN_OVERHEAD)?;
        }
        let mut pkt = Packet::data(0, slot, bytes.len() as u32, self.to_queue(ecn_in), now);
        // XCP/RCP headers of the user-space transport's segments ride in the UDP payload; the
        // routers see them as the simulator's do.
        if let Some(h) = crate::wire::explicit_of_ip(bytes) {
            pkt.set_explicit(h);
        }
        if let Err(p) = self.queue.enqueue(now, pkt) {
            self.counters.dropped += 1;
            self.free.push(p.seq);
        }
        Ok(())
    }

    /// Use every opportunity due by `now` (and run the queue's timer if due).
    pub fn serve(&mut self, now: Time) -> std::io::Result<()> {
        while let Some(t) = self.queue.next_timer() {
            if t > now {
                break;
            }
            self.queue.on_timer(t, &self.link);
        }
        if let Some(l) = self.log.as_mut() {
            while let Some(t) = self.ticker.next_opportunity() {
                if t > now {
                    break;
                }
                self.ticker.take_opportunity();
                writeln!(l, "{} # {}", Self::ms(t), OPPORTUNITY_BYTES)?;
            }
        }
        let Direction {
            link,
            queue,
            cap_window,
            observes,
            in_transit,
            delay,
            slots,
            line,
            drops,
            log,
            ..
        } = self;
        let mut err = Ok(());
        link.serve_timed(
            now,
            in_transit,
            |l| {
                if *observes {
                    queue.observe_link(now, &*l);
                }
                let capacity = cap_window.map_or(0.0, |w| l.capacity_bytes(now, w) as f64 / w.secs_f64());
                let info = LinkInfo {
                    capacity,
                    overhead: TUN_OVERHEAD,
                };
                queue.dequeue(now, info, drops)
            },
            |at, p| {
                let s = &slots[p.seq as usize];
                if let Some(l) = log.as_mut() {
                    let r = writeln!(
                        l,
                        "{} - {} {}",
                        Self::ms(at),
                        s.bytes.len() as u32 + TUN_OVERHEAD,
                        Self::ms(at).saturating_sub(Self::ms(s.arrived))
                    );
                    if r.is_err() {
                        err = r;
                    }
                }
                line.push_back(InFlight {
                    due: at + *delay,
                    opportunity: at,
                    slot: p.seq,
                    ecn: p.ecn,
                    feedback: p.explicit().map(|h| h.feedback),
                });
            },
        );
        for d in self.drops.drain(..) {
            self.counters.dropped += 1;
            self.free.push(d.seq);
        }
        err
    }

    /// Hand every packet due by `now` to `write` (ECN rewritten if the queue changed it) and report
    /// each through `record`.
    pub fn deliver(
        &mut self,
        now: Time,
        mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
        mut record: impl FnMut(&Delivery),
    ) -> std::io::Result<()> {
        while let Some(f) = self.line.front().copied() {
            if f.due > now {
                break;
            }
            self.line.pop_front();
            let out = self.slots[f.slot as usize].ecn_in.map(|w| self.to_wire(w, f.ecn));
            let s = &mut self.slots[f.slot as usize];
            let mut ecn_out = s.ecn_in;
            if let Some(o) = out {
                if s.ecn_in != Some(o) && ip::set_ecn(&mut s.bytes, o) {
                    self.counters.rewritten += 1;
                    ecn_out = Some(o);
                }
            }
            if let Some(fb) = f.feedback {
                if crate::wire::explicit_of_ip(&s.bytes).is_some_and(|h| h.feedback.to_bits() != fb.to_bits()) {
                    crate::wire::set_explicit_feedback(&mut s.bytes, fb);
                }
            }
            let r = write(&s.bytes);
            self.counters.delivered += 1;
            self.counters.delivered_bytes += s.bytes.len() as u64;
            record(&Delivery {
                size: s.bytes.len() as u32,
                arrived: s.arrived,
                opportunity: f.opportunity,
                due: f.due,
                written: now,
                ecn_in: s.ecn_in,
                ecn_out,
                tcp: ip::tcp_of(&s.bytes),
                ports: ip::ports_of(&s.bytes),
            });
            self.free.push(f.slot);
            r?;
        }
        Ok(())
    }

    /// When this direction next needs the loop: the next delivery, the next opportunity while
    /// something waits for one, the queue's timer.
    pub fn next_wake(&self) -> Option<Time> {
        let mut w = self.line.front().map(|f| f.due);
        if self.in_transit.is_some() || self.queue.len_packets() > 0 {
            w = min_opt(w, self.link.next_opportunity());
        }
        min_opt(w, self.queue.next_timer())
    }

    /// Write the log's `#` lines up to `now` and flush it (at the end of a run).
    pub fn finish(&mut self, now: Time) -> std::io::Result<()> {
        self.serve(now)?;
        if let Some(l) = self.log.as_mut() {
            l.flush()?;
        }
        Ok(())
    }

    /// The trace link (for opportunity counts).
    pub fn link(&self) -> &TraceLink {
        &self.link
    }

    /// The queue's counters (drops, marks).
    pub fn queue(&self) -> &dyn Queue {
        self.queue.as_ref()
    }
}

fn min_opt(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use accelbrake_sim::link::Trace;
    use accelbrake_sim::queue::{DropTail, Limit};
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn v4(len: usize, tos: u8) -> Vec<u8> {
        let mut p = vec![0u8; len];
        p[0] = 0x45;
        p[1] = tos;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[8] = 64;
        p[9] = 17;
        let c = ip::ipv4_header_checksum(&p);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p
    }

    #[test]
    fn packets_leave_at_trace_opportunities_plus_delay_and_the_log_is_mahimahi_format() {
        // One opportunity every ms ("1": 12 Mbit/s), 10 ms propagation.
        let trace = Arc::new(Trace::parse("t", "1\n").unwrap());
        let log = Shared::default();
        let mut d = Direction::new(
            TraceLink::new(trace, false),
            Box::new(DropTail::new(Limit::Packets(10))),
            Dur::from_millis(10),
            Some(Box::new(log.clone())),
        )
        .unwrap();
        let ms = |m: u64| Time(m * NS_PER_MS);
        d.arrive(Time(500_000), &v4(1500, 0)).unwrap();
        d.arrive(Time(600_000), &v4(1500, 0)).unwrap();
        assert_eq!(d.next_wake(), Some(ms(1)));
        d.serve(ms(1)).unwrap();
        assert_eq!(
            d.next_wake(),
            Some(ms(2)),
            "second packet waits for the next opportunity"
        );
        d.serve(ms(2)).unwrap();
        assert_eq!(d.next_wake(), Some(ms(11)));
        let mut out = Vec::new();
        let mut rec = Vec::new();
        d.deliver(
            ms(11),
            |b| {
                out.push(b.len());
                Ok(())
            },
            |r| rec.push(*r),
        )
        .unwrap();
        assert_eq!(out, vec![1500]);
        assert_eq!(rec[0].opportunity, ms(1));
        assert_eq!(rec[0].due, ms(11));
        d.deliver(
            ms(12),
            |b| {
                out.push(b.len());
                Ok(())
            },
            |r| rec.push(*r),
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        d.finish(ms(3)).unwrap();
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            body,
            [
                "0 + 1504",
                "0 + 1504",
                "1 # 1504",
                "1 - 1504 1",
                "2 # 1504",
                "2 - 1504 2",
                "3 # 1504"
            ]
        );
        assert!(text.contains("# base timestamp: 0"));
    }

    #[test]
    fn small_packets_share_an_opportunity_and_overflow_is_dropped() {
        let trace = Arc::new(Trace::parse("t", "1\n").unwrap());
        let mut d = Direction::new(
            TraceLink::new(trace, false),
            Box::new(DropTail::new(Limit::Packets(3))),
            Dur::ZERO,
            None,
        )
        .unwrap();
        for _ in 0..4 {
            d.arrive(Time::ZERO, &v4(100, 0)).unwrap();
        }
        assert_eq!(d.counters.dropped, 1);
        d.serve(Time(NS_PER_MS)).unwrap();
        let mut n = 0;
        d.deliver(
            Time(NS_PER_MS),
            |_| {
                n += 1;
                Ok(())
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(n, 3, "three 104-byte frames fit in one 1504-byte opportunity");
    }

    #[test]
    fn a_marking_queue_rewrites_the_ip_header_with_a_valid_checksum() {
        // The ABC router starts with no tokens (Algorithm 1), so its first accelerate packet
        // becomes a brake; a tiny η keeps it braking.
        let kind = accelbrake_sim::queue::lookup("abc", "q").unwrap();
        let mut given = accelbrake_sim::params::Given::new();
        given.insert("eta".into(), 1e-6.into());
        let q = (kind.build)(
            &kind.values(&given, "q").unwrap(),
            accelbrake_sim::rng::Rng::stream(1, 1),
        );
        let trace = Arc::new(Trace::parse("t", "1\n").unwrap());
        let mut d = Direction::new(TraceLink::new(trace, false), q, Dur::ZERO, None).unwrap();
        d.arrive(Time::ZERO, &v4(1500, 0b01)).unwrap();
        d.serve(Time(NS_PER_MS)).unwrap();
        let mut got = Vec::new();
        d.deliver(
            Time(NS_PER_MS),
            |b| {
                got = b.to_vec();
                Ok(())
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(ip::ecn_of(&got), Some(Ecn::BRAKE));
        assert_eq!(u16::from_be_bytes([got[10], got[11]]), ip::ipv4_header_checksum(&got));
        assert_eq!(d.counters.rewritten, 1);
    }

    /// Through an ABC router with `eta`, `Marks::Ce`: each packet's (ECN in, ECN out).
    fn through_abc_ce(eta: f64, ecn_in: &[u8]) -> Vec<(u8, u8)> {
        let kind = accelbrake_sim::queue::lookup("abc", "q").unwrap();
        let mut given = accelbrake_sim::params::Given::new();
        given.insert("eta".into(), eta.into());
        let q = (kind.build)(
            &kind.values(&given, "q").unwrap(),
            accelbrake_sim::rng::Rng::stream(1, 1),
        );
        let trace = Arc::new(Trace::parse("t", "1\n").unwrap());
        let mut d = Direction::new(TraceLink::new(trace, false), q, Dur::ZERO, None)
            .unwrap()
            .with_marks(Marks::Ce);
        let mut out = Vec::new();
        for (i, e) in ecn_in.iter().enumerate() {
            let t = Time(i as u64 * NS_PER_MS);
            d.arrive(t, &v4(1500, *e)).unwrap();
            d.serve(Time(t.0 + NS_PER_MS)).unwrap();
            d.deliver(
                Time(t.0 + NS_PER_MS),
                |b| {
                    assert_eq!(u16::from_be_bytes([b[10], b[11]]), ip::ipv4_header_checksum(b));
                    Ok(())
                },
                |r| out.push((r.ecn_in.unwrap() as u8, r.ecn_out.unwrap() as u8)),
            )
            .unwrap();
        }
        out
    }

    #[test]
    fn kernel_marks_brake_is_ce_and_accelerate_keeps_the_senders_ect() {
        // A braking router (tiny η): every ECT packet, ECT(0) as Linux sends or ECT(1), leaves as
        // CE; CE stays CE; not-ECT is untouched.
        let got = through_abc_ce(1e-6, &[0b10, 0b01, 0b11, 0b00, 0b10]);
        assert_eq!(got, vec![(2, 3), (1, 3), (3, 3), (0, 0), (2, 3)]);
        // An accelerating router (η = 1 on an idle 12 Mbit/s link: tokens build up): ECT(0) packets
        // keep ECT(0) when accelerated, become CE when braked, never ECT(1).
        let got = through_abc_ce(1.0, &[0b10; 60]);
        let accel = got.iter().filter(|p| **p == (2, 2)).count();
        let brake = got.iter().filter(|p| **p == (2, 3)).count();
        assert_eq!(accel + brake, 60, "{got:?}");
        assert!(accel >= 20 && brake >= 1, "accelerates {accel}, brakes {brake}");
    }
}
