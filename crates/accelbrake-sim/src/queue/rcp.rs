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
}
