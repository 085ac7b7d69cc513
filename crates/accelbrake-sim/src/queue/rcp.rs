//! The RCP router (Dukkipati & McKeown, "Why flow-completion time is the right metric for
//! congestion control" / "Processor Sharing Flows in the Internet"; ns-2 `rcp.cc`; the ABC
//! artifact's `rcp_packet_queue.cc`, mode 3).
//!
//! Drop-tail buffer. Every `T = min(interval, d)` (a queue timer) it updates one rate for all flows:
//!
//! `R ← R·[1 + (T/d)·(α(γC − y) − β·q/d)/(γC)]`
//!
//! with C the link capacity over the last T (the router knows its link schedule; on a trace every
//! opportunity counts, as for ABC's μ), y the input rate over the last T, q the instantaneous queue
//! (bytes) and d the mean RTT: the byte-weighted mean of the RTTs carried by the packets of the last
//! interval, smoothed with gain T/d (ns-2 `rcp.cc`). R is clamped to `[min_rate, γC]` (ns-2 clamps to
//! γC; the artifact floors at 0.05 packets/ms). Every departing data packet with an RCP header gets
//! `rate = min(rate, R)`.

use super::{Fifo, Limit, LimitRule, LinkInfo, LinkSchedule, Queue, QueueKind, QueueStats};
use crate::packet::{ExplicitKind, Packet};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// The `rcp` queue's parameters (`rcp.<key>`).
pub const PARAMS: &[Param] = &[
    Param::real("alpha", 0.5, Unit::None, 0.0, 10.0)
        .open(true, false)
        .doc("α, gain on spare capacity (original RCP: 0.1)", "ABC paper App. F; Dukkipati & McKeown / ns-2 scripts: 0.1"),
    Param::real("beta", 0.25, Unit::None, 0.0, 10.0)
        .doc("β, gain on the queue (original RCP: 1)", "ABC paper App. F; Dukkipati & McKeown / ns-2 scripts: 1"),
    Param::real("gamma", 0.95, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("γ, target utilisation", "ns-2 rcp.cc PHI 0.95; ABC artifact rcp_packet_queue.cc η = 0.95"),
    Param::real("interval_ms", 100.0, Unit::Ms, 1e-3, 1e6)
        .doc("T, longest rate-update interval (T = min(interval, d))", "ABC artifact rcp_packet_queue.cc: 100 ms; ns-2 min(timeslot, d)"),
    Param::real("init_rtt_ms", 100.0, Unit::Ms, 1e-3, 1e6)
        .doc("d before any RTT is carried", "ABC artifact: 100 ms base RTT"),
    Param::real("initial_rate_mbps", 6.0, Unit::Mbps, 1e-3, 1e6)
        .doc("R at the start", "ABC artifact rcp_packet_queue.cc: 0.5 packets/ms of 1500 B"),
    Param::real("min_rate_mbps", 0.6, Unit::Mbps, 1e-6, 1e6)
        .doc("floor of R", "ABC artifact rcp_packet_queue.cc: 0.05 packets/ms of 1500 B"),
    super::packets_param(super::abc::BUFFER_PACKETS),
    super::BYTES_PARAM,
];

/// RCP's router.
pub const RCP: QueueKind = QueueKind {
    name: "rcp",
    display: "RCP router",
    summary: "one explicit rate for all flows, updated every min(T, mean RTT)",
    source: "Dukkipati & McKeown; ns-2 rcp.cc; ABC artifact rcp_packet_queue.cc (mode 3)",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &[],
    build: |v, _rng| Box::new(RcpQueue::new(RcpConfig::from_values(v))),
    warnings: None,
};

/// RCP router parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpConfig {
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// γ.
    pub gamma: f64,
    /// Longest update interval.
    pub interval: Dur,
    /// d before any RTT is known.
    pub init_rtt: Dur,
    /// Initial rate, bytes/s.
    pub initial_rate: f64,
    /// Floor, bytes/s.
    pub min_rate: f64,
    /// Buffer.
    pub limit: Limit,
}

crate::default_from_table!(RcpConfig);

impl Config for RcpConfig {
    const PREFIX: &'static str = "rcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> RcpConfig {
        RcpConfig {
            alpha: v.real("alpha"),
            beta: v.real("beta"),
            gamma: v.real("gamma"),
            interval: v.ms("interval_ms"),
            init_rtt: v.ms("init_rtt_ms"),
            initial_rate: v.real("initial_rate_mbps") * 1e6 / 8.0,
            min_rate: v.real("min_rate_mbps") * 1e6 / 8.0,
            limit: super::limit_of(v),
        }
    }
}

/// One rate update: the new R (bytes/s) from R, T and d (s), C and y (bytes/s), q (bytes).
pub fn update(cfg: &RcpConfig, r: f64, t: f64, d: f64, c: f64, y: f64, q: f64) -> f64 {
    let target = cfg.gamma * c;
    if target <= 0.0 {
        return cfg.min_rate;
    }
    let r = r * (1.0 + (t / d) * (cfg.alpha * (target - y) - cfg.beta * q / d) / target);
    r.min(target).max(cfg.min_rate)
}

/// The RCP router queue.
#[derive(Clone, Debug)]
pub struct RcpQueue {
    fifo: Fifo,
    cfg: RcpConfig,
    rate: f64,
    d: f64,
    start: Time,
    bytes_in: f64,
    rtt_bytes: f64,
    rtt_sum: f64,
}

impl RcpQueue {
    /// A new RCP queue.
    pub fn new(cfg: RcpConfig) -> RcpQueue {
        RcpQueue {
            fifo: Fifo::new(cfg.limit),
            cfg,
            rate: cfg.initial_rate,
            d: cfg.init_rtt.secs_f64(),
            start: Time::ZERO,
            bytes_in: 0.0,
            rtt_bytes: 0.0,
            rtt_sum: 0.0,
        }
    }

    /// The current rate R, bytes/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The current mean-RTT estimate d, s.
    pub fn rtt(&self) -> f64 {
        self.d
    }

    fn period(&self) -> Dur {
        let d = Dur::from_micros((self.d * 1e6).round() as u64);
        self.cfg.interval.min(d).max(Dur::from_millis(1))
    }
}

impl Queue for RcpQueue {
    fn name(&self) -> &'static str {
        "rcp"
    }
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        // Every arrival counts, also one the buffer then drops: the input traffic is what
        // arrives (ns-2 rcp-queue.cc: do_on_packet_arrival before the drop-tail enque).
        let s = f64::from(pkt.size);
        self.bytes_in += s;
        if let Some(h) = pkt.explicit().filter(|h| h.kind == ExplicitKind::Rcp && h.rtt > 0.0) {
            self.rtt_bytes += s;
            self.rtt_sum += f64::from(h.rtt) * s;
        }
        self.fifo.push(now, pkt)
    }
    fn dequeue(&mut self, _now: Time, _link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        let mut pkt = self.fifo.pop()?;
        if pkt.explicit().is_some_and(|h| h.kind == ExplicitKind::Rcp) {
            pkt.lower_feedback(self.rate as f32);
        }
        Some(pkt)
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
    fn gauge(&self) -> Option<f64> {
        Some(self.rate * 8.0 / 1e6)
    }
    fn next_timer(&self) -> Option<Time> {
        Some(self.start + self.period())
    }
    fn on_timer(&mut self, now: Time, link: &dyn LinkSchedule) {
        if now < self.start + self.period() {
            return;
        }
        let t = (now - self.start).secs_f64();
        if self.rtt_bytes > 0.0 {
            // ns-2 rcp.cc: the byte-weighted mean RTT of the interval, smoothed with gain T/d.
            let sample = self.rtt_sum / self.rtt_bytes;
            let g = (t / self.d).min(1.0);
            self.d += g * (sample - self.d);
        }
        let mtu = f64::from(crate::packet::MTU);
        let c = link.capacity_between(self.start, now) * mtu / (mtu + f64::from(link.overhead())) / t;
        let y = self.bytes_in / t;
        let q = self.fifo.bytes() as f64;
        self.rate = update(&self.cfg, self.rate, t, self.d, c, y, q);
        self.start = now;
        self.bytes_in = 0.0;
        self.rtt_bytes = 0.0;
        self.rtt_sum = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_update_by_hand() {
        let cfg = RcpConfig::default();
        // C = 1.5 MB/s, γC = 1.425 MB/s; y = 1 MB/s, q = 15 000 B, T = d = 0.1 s, R = 0.5 MB/s:
        // R·[1 + 1·(0.5·425 000 − 0.25·150 000)/1 425 000] = 0.5e6·(1 + 175 000/1 425 000).
        let r = update(&cfg, 0.5e6, 0.1, 0.1, 1.5e6, 1.0e6, 15_000.0);
        assert!((r - 0.5e6 * (1.0 + 175_000.0 / 1_425_000.0)).abs() < 1e-6, "{r}");
        // Clamped to γC and floored at min_rate.
        assert_eq!(update(&cfg, 2e6, 0.1, 0.1, 1.5e6, 0.0, 0.0), 1.425e6);
        assert_eq!(update(&cfg, 1e5, 0.1, 0.1, 1.5e6, 1e7, 1e6), cfg.min_rate);
        assert_eq!(update(&cfg, 1e5, 0.1, 0.1, 0.0, 0.0, 0.0), cfg.min_rate);
    }

    #[test]
    fn the_input_rate_counts_arrivals_the_full_buffer_drops() {
        // ns-2 rcp-queue.cc: do_on_packet_arrival (input traffic, RTT sums) before the enqueue.
        let mut q = RcpQueue::new(RcpConfig {
            limit: crate::queue::Limit::Packets(2),
            ..RcpConfig::default()
        });
        let mut dropped = 0;
        for i in 0..5 {
            let mut p = Packet::data(0, i, crate::packet::MTU, crate::packet::Ecn::NotEct, Time::ZERO);
            p.set_explicit(crate::packet::ExplicitHeader {
                kind: ExplicitKind::Rcp,
                cwnd: 10.0,
                rtt: 0.1,
                feedback: f32::MAX,
            });
            dropped += usize::from(q.enqueue(Time::ZERO, p).is_err());
        }
        assert_eq!(dropped, 3);
        let s = f64::from(crate::packet::MTU);
        assert_eq!((q.bytes_in, q.rtt_bytes), (5.0 * s, 5.0 * s));
        assert!((q.rtt_sum - 5.0 * f64::from(0.1_f32) * s).abs() < 1e-9);
    }

    use crate::packet::{Ecn, ExplicitHeader, MTU};

    use crate::queue::WireSchedule as Wire;

    fn header_pkt(kind: ExplicitKind, size: u32, rtt: f32) -> Packet {
        let mut p = Packet::data(0, 0, size, Ecn::NotEct, Time::ZERO);
        p.set_explicit(ExplicitHeader {
            kind,
            cwnd: 0.0,
            rtt,
            feedback: f32::MAX,
        });
        p
    }

    fn rcp_pkt(size: u32, rtt: f32) -> Packet {
        header_pkt(ExplicitKind::Rcp, size, rtt)
    }

    fn close(x: f64, want: f64) -> bool {
        (x - want).abs() <= 1e-9 * want.abs().max(1.0)
    }

    #[test]
    fn config_in_bytes_per_second() {
        let c = RcpConfig::default();
        // 6 Mbit/s = 750 000 B/s (0.5 packets/ms), 0.6 Mbit/s = 75 000 B/s (0.05 packets/ms).
        assert_eq!((c.initial_rate, c.min_rate), (750_000.0, 75_000.0));
        assert_eq!((c.interval, c.init_rtt), (Dur::from_millis(100), Dur::from_millis(100)));
    }

    #[test]
    fn rate_updates_by_hand_over_three_intervals() {
        let cfg = RcpConfig::default();
        let mut q = RcpQueue::new(cfg);
        let mut d = Vec::new();
        assert_eq!((q.name(), q.rate(), q.rtt()), ("rcp", 750_000.0, 0.1));
        assert_eq!(q.next_timer(), Some(Time::from_millis(100)));
        // Interval 1: RTTs 40 ms (2 × 1500 B) and 100 ms (1000 B) carried; an RCP packet without
        // an RTT, an XCP packet and a plain one count only in y. y = 8500 B.
        for p in [
            rcp_pkt(MTU, 0.04),
            rcp_pkt(MTU, 0.04),
            rcp_pkt(1000, 0.1),
            rcp_pkt(MTU, 0.0),
            header_pkt(ExplicitKind::Xcp, MTU, 0.2),
            Packet::data(1, 0, MTU, Ecn::NotEct, Time::ZERO),
        ] {
            q.enqueue(Time::ZERO, p).unwrap();
        }
        assert_eq!((q.len_packets(), q.len_bytes(), q.stats().enqueued), (6, 8500, 6));
        let out: Vec<Packet> = (0..6).map(|_| q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap()).collect();
        // RCP packets carry min(rate, R); the XCP header and the plain packet pass untouched.
        assert!(out[..4].iter().all(|p| p.explicit().unwrap().feedback == 750_000.0));
        assert_eq!(out[4].explicit().unwrap().feedback, f32::MAX);
        assert!(out[5].explicit().is_none());
        // Not due before T = min(100 ms, d = 100 ms).
        let link = Wire(1_504_000.0, 4); // 1.5 MB/s of IP bytes in 1500-byte packets
        q.on_timer(Time::from_millis(99), &link);
        assert_eq!((q.rate(), q.rtt()), (750_000.0, 0.1));
        q.on_timer(Time::from_millis(100), &link);
        // d: the byte-weighted mean (2·1500·0.04 + 1000·0.1)/4000 = 0.055 s, gain min(T/d, 1) = 1;
        // C = 1.5e6, y = 85 000 B/s, q = 0.
        let sample = (2.0 * 1500.0 * f64::from(0.04f32) + 1000.0 * f64::from(0.1f32)) / 4000.0;
        assert!(close(q.rtt(), sample), "{}", q.rtt());
        let r1 = update(&cfg, 750_000.0, 0.1, sample, 1.5e6, 85_000.0, 0.0);
        assert!(close(q.rate(), r1) && r1 > 1.3e6, "{} {r1}", q.rate());
        assert!(close(q.gauge().unwrap(), r1 * 8.0 / 1e6));
        // Next update after min(100 ms, 55 ms).
        assert_eq!(q.next_timer(), Some(Time::from_millis(155)));
        // Interval 2 (T = 55 ms): one packet with RTT 200 ms stays queued: d = 0.2 (gain 1),
        // y = 1500 B/0.055 s, q = 1500 B.
        q.enqueue(Time::from_millis(120), rcp_pkt(MTU, 0.2)).unwrap();
        q.on_timer(Time::from_millis(155), &link);
        let d2 = f64::from(0.2f32);
        assert!(close(q.rtt(), d2), "{}", q.rtt());
        let r2 = update(&cfg, r1, 0.055, d2, 1.5e6, 1500.0 / 0.055, 1500.0);
        assert!(close(q.rate(), r2), "{} {r2}", q.rate());
        assert_eq!(q.next_timer(), Some(Time::from_millis(255)));
        // Interval 3 (T = min(100 ms, 200 ms)): RTT 100 ms, smoothed with gain T/d = 0.5:
        // d = 0.2 + 0.5·(0.1 − 0.2) = 0.15; y = 15 000 B/s, q = 3000 B.
        q.enqueue(Time::from_millis(200), rcp_pkt(MTU, 0.1)).unwrap();
        q.on_timer(Time::from_millis(255), &link);
        let d3 = d2 + 0.1 / d2 * (f64::from(0.1f32) - d2);
        assert!(close(q.rtt(), d3) && (d3 - 0.15).abs() < 1e-6, "{}", q.rtt());
        let r3 = update(&cfg, r2, 0.1, d3, 1.5e6, 15_000.0, 3000.0);
        assert!(close(q.rate(), r3), "{} {r3}", q.rate());
        // Interval 4 without arrivals keeps d; the queued packets get the new rate.
        q.on_timer(Time::from_millis(355), &link);
        assert!(close(q.rtt(), d3));
        let r4 = update(&cfg, r3, 0.1, d3, 1.5e6, 0.0, 3000.0);
        assert!(close(q.rate(), r4));
        let p = q.dequeue(Time::from_millis(355), LinkInfo::default(), &mut d).unwrap();
        assert_eq!(p.explicit().unwrap().feedback, r4 as f32);
    }
}
