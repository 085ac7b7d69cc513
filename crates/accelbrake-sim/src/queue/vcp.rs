//! The VCP router (Xia, Subramanian, Stoica, Kalyanaraman, "One More Bit Is Enough", SIGCOMM 2005,
//! §3–4; ns-2 `vcp-queue.cc`; the ABC artifact's `vcp_packet_queue.cc`).
//!
//! Drop-tail buffer. Every `t_ρ` (a queue timer, 200 ms) it measures the load factor
//!
//! `ρ = (λ + κ_q·q̃) / (γ·C·t_ρ)`
//!
//! with λ the bytes that arrived during the period, q̃ the persistent queue (an EWMA of the queue,
//! new-sample weight 0.25, sampled at every period end; ns-2), C·t_ρ the link's capacity over the
//! period (the router knows its link schedule, every trace opportunity counts), γ the target
//! utilisation. It quantises ρ into the 2-bit code carried **in the ECN bits** (§3.1):
//! `ρ < 80 %` → 01 low load, `80 % ≤ ρ < 100 %` → 10 high load, `ρ ≥ 100 %` → 11 overload. Every
//! departing ECN-capable packet takes the larger of its code and the router's (the path maximum);
//! non-ECT packets pass untouched.
//!
//! `artifact_overload`: the artifact only sends 11 during the first 100 ms after each update and 10
//! afterwards (`vcp_packet_queue.cc:70-73`); off by default.

use super::{Fifo, Limit, LimitRule, LinkInfo, LinkSchedule, Queue, QueueKind, QueueStats};
use crate::packet::{Ecn, Packet};
use crate::params::{Config, Param, Unit, Values};
use crate::time::{Dur, Time};

/// The `vcp` queue's parameters (`vcp.<key>`).
pub const PARAMS: &[Param] = &[
    Param::real("t_rho_ms", 200.0, Unit::Ms, 1.0, 1e6)
        .doc("t_ρ, load-factor measurement period", "Xia et al. SIGCOMM 2005 §4: 200 ms; artifact vcp_packet_queue.cc"),
    Param::real("gamma", 0.98, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("γ, target utilisation", "Xia et al. §4: 0.98; artifact: 0.98"),
    Param::real("kappa_q", 0.5, Unit::None, 0.0, 10.0)
        .doc("κ_q, weight of the persistent queue in ρ", "Xia et al. §4: 0.5; artifact: 0.5"),
    Param::real("q_weight", 0.25, Unit::None, 0.0, 1.0)
        .open(true, false)
        .doc("weight of a new sample in the persistent-queue EWMA", "ns-2 vcp-queue.cc"),
    Param::flag("artifact_overload", false)
        .doc("send overload (11) only in the first half-period after an update, as the artifact", "ABC artifact vcp_packet_queue.cc:70-73"),
    super::packets_param(super::abc::BUFFER_PACKETS),
    super::BYTES_PARAM,
];

/// Code thresholds on ρ (Xia et al. §3.1: 80 % and 100 %).
pub const LOW_LOAD: f64 = 0.8;
/// Overload threshold on ρ.
pub const OVERLOAD: f64 = 1.0;

/// VCP's router.
pub const VCP: QueueKind = QueueKind {
    name: "vcp",
    display: "VCP router",
    summary: "load factor over t_ρ quantised into a 2-bit code in the ECN bits (max along the path)",
    source: "Xia et al., SIGCOMM 2005; ns-2 vcp-queue.cc; ABC artifact vcp_packet_queue.cc",
    params: PARAMS,
    limit: LimitRule::Optional,
    aliases: &[],
    build: |v, _rng| Box::new(VcpQueue::new(VcpConfig::from_values(v))),
    warnings: None,
};

/// VCP router parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VcpConfig {
    /// t_ρ.
    pub t_rho: Dur,
    /// γ.
    pub gamma: f64,
    /// κ_q.
    pub kappa_q: f64,
    /// EWMA weight.
    pub q_weight: f64,
    /// The artifact's half-period overload.
    pub artifact_overload: bool,
    /// Buffer.
    pub limit: Limit,
}

crate::default_from_table!(VcpConfig);

impl Config for VcpConfig {
    const PREFIX: &'static str = "vcp";
    const TABLES: &'static [&'static [Param]] = &[PARAMS];
    fn from_values(v: &Values) -> VcpConfig {
        VcpConfig {
            t_rho: v.ms("t_rho_ms"),
            gamma: v.real("gamma"),
            kappa_q: v.real("kappa_q"),
            q_weight: v.real("q_weight"),
            artifact_overload: v.flag("artifact_overload"),
            limit: super::limit_of(v),
        }
    }
}

/// The code of a load factor (§3.1): 01 low load, 10 high load, 11 overload.
pub fn code(rho: f64) -> Ecn {
    if rho < LOW_LOAD {
        Ecn::Ect1
    } else if rho < OVERLOAD {
        Ecn::Ect0
    } else {
        Ecn::Ce
    }
}

/// The VCP router queue.
#[derive(Clone, Debug)]
pub struct VcpQueue {
    fifo: Fifo,
    cfg: VcpConfig,
    start: Time,
    bytes_in: f64,
    q_avg: f64,
    rho: f64,
    code: Ecn,
}

impl VcpQueue {
    /// A new VCP queue (low load until the first period ends).
    pub fn new(cfg: VcpConfig) -> VcpQueue {
        VcpQueue {
            fifo: Fifo::new(cfg.limit),
            cfg,
            start: Time::ZERO,
            bytes_in: 0.0,
            q_avg: 0.0,
            rho: 0.0,
            code: Ecn::Ect1,
        }
    }

    /// The last load factor.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// The code stamped at `now`.
    pub fn code_at(&self, now: Time) -> Ecn {
        if self.cfg.artifact_overload && self.code == Ecn::Ce && now >= self.start + Dur(self.cfg.t_rho.0 / 2) {
            Ecn::Ect0
        } else {
            self.code
        }
    }
}

impl Queue for VcpQueue {
    fn name(&self) -> &'static str {
        "vcp"
    }
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Packet> {
        // The load counts every arrival, also one the buffer then drops (ns-2 vcp-queue.cc:
        // "the drop-tail2 enque function may actually drop the packet", counted before it).
        self.bytes_in += f64::from(pkt.size);
        self.fifo.push(now, pkt)
    }
    fn dequeue(&mut self, now: Time, _link: LinkInfo, _drops: &mut Vec<Packet>) -> Option<Packet> {
        let mut pkt = self.fifo.pop()?;
        if pkt.ecn.is_ect() {
            let c = self.code_at(now);
            if (c as u8) > (pkt.ecn as u8) {
                pkt.ecn = c;
                self.fifo.stats.marked += 1;
            }
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
        Some(self.rho)
    }
    fn next_timer(&self) -> Option<Time> {
        Some(self.start + self.cfg.t_rho)
    }
    fn on_timer(&mut self, now: Time, link: &dyn LinkSchedule) {
        if now < self.start + self.cfg.t_rho {
            return;
        }
        let mtu = f64::from(crate::packet::MTU);
        let cap = link.capacity_between(self.start, now) * mtu / (mtu + f64::from(link.overhead()));
        let w = self.cfg.q_weight;
        self.q_avg = (1.0 - w) * self.q_avg + w * self.fifo.bytes() as f64;
        self.rho = if cap > 0.0 {
            (self.bytes_in + self.cfg.kappa_q * self.q_avg) / (self.cfg.gamma * cap)
        } else if self.bytes_in + self.q_avg > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        self.code = code(self.rho);
        self.start = now;
        self.bytes_in = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::MTU;
    use crate::queue::ConstantSchedule;

    /// Run one period in which `n` packets arrive and leave (empty queue), on a 1.5 MB/s link.
    fn period(q: &mut VcpQueue, t0: u64, n: u32) -> Ecn {
        let mut d = Vec::new();
        for i in 0..n {
            q.enqueue(Time::from_millis(t0), Packet::data(0, i, MTU, Ecn::Ect1, Time::ZERO)).unwrap();
            q.dequeue(Time::from_millis(t0), LinkInfo::default(), &mut d).unwrap();
        }
        q.on_timer(Time::from_millis(t0 + 200), &ConstantSchedule(1.5e6));
        let mut p = Packet::data(0, 0, MTU, Ecn::Ect1, Time::ZERO);
        q.enqueue(Time::from_millis(t0 + 200), p).unwrap();
        p = q.dequeue(Time::from_millis(t0 + 200), LinkInfo::default(), &mut d).unwrap();
        p.ecn
    }

    #[test]
    fn each_load_regime_produces_its_code() {
        // γ·C·t_ρ = 0.98·1.5e6·0.2 = 294 000 B = 196 packets of 1500 B.
        let mut q = VcpQueue::new(VcpConfig::default());
        assert_eq!(period(&mut q, 0, 100), Ecn::Ect1, "ρ = 0.51: low load");
        // 157 packets → ρ = 0.8010 (the packet of the previous check adds 1500 B).
        assert_eq!(period(&mut q, 200, 156), Ecn::Ect0, "ρ = {}", q.rho());
        assert!((q.rho() - 157.0 / 196.0).abs() < 1e-9);
        assert_eq!(period(&mut q, 400, 195), Ecn::Ce, "ρ = {}: overload", q.rho());
        assert_eq!(period(&mut q, 600, 150), Ecn::Ect1, "ρ = {}", q.rho());
        // Codes only rise along the path, and non-ECT passes untouched.
        let mut d = Vec::new();
        q.code = Ecn::Ect0;
        q.enqueue(Time::from_millis(800), Packet::data(0, 0, MTU, Ecn::Ce, Time::ZERO)).unwrap();
        assert_eq!(q.dequeue(Time::from_millis(800), LinkInfo::default(), &mut d).unwrap().ecn, Ecn::Ce);
        q.enqueue(Time::from_millis(800), Packet::data(0, 0, MTU, Ecn::NotEct, Time::ZERO)).unwrap();
        assert_eq!(q.dequeue(Time::from_millis(800), LinkInfo::default(), &mut d).unwrap().ecn, Ecn::NotEct);
    }

    #[test]
    fn the_persistent_queue_counts_and_the_artifact_halves_overload() {
        let mut q = VcpQueue::new(VcpConfig {
            artifact_overload: true,
            ..VcpConfig::default()
        });
        for i in 0..200 {
            q.enqueue(Time::ZERO, Packet::data(0, i, MTU, Ecn::Ect1, Time::ZERO)).unwrap();
        }
        q.on_timer(Time::from_millis(200), &ConstantSchedule(1.5e6));
        // λ = 300 000 B, q̃ = 0.25·300 000: ρ = (300 000 + 0.5·75 000)/294 000.
        assert!((q.rho() - 337_500.0 / 294_000.0).abs() < 1e-9);
        assert_eq!(q.code_at(Time::from_millis(250)), Ecn::Ce);
        assert_eq!(q.code_at(Time::from_millis(300)), Ecn::Ect0);
    }

    #[test]
    fn the_load_counts_arrivals_the_full_buffer_drops() {
        // ns-2 vcp-queue.cc counts an arrival before the drop-tail enqueue that may drop it.
        let mut q = VcpQueue::new(VcpConfig {
            limit: crate::queue::Limit::Packets(2),
            ..VcpConfig::default()
        });
        let results: Vec<bool> = (0..5)
            .map(|i| q.enqueue(Time::ZERO, Packet::data(0, i, MTU, Ecn::Ect1, Time::ZERO)).is_ok())
            .collect();
        assert_eq!(results, [true, true, false, false, false]);
        assert_eq!(q.bytes_in, 5.0 * f64::from(MTU));
    }

    use crate::queue::WireSchedule as Wire;

    fn close(x: f64, want: f64) -> bool {
        (x - want).abs() <= 1e-12 * want.abs().max(1.0)
    }

    #[test]
    fn codes_at_the_thresholds_and_config() {
        // §3.1: [0, 80 %) low load, [80 %, 100 %) high load, ≥ 100 % overload.
        assert_eq!(code(0.7999), Ecn::Ect1);
        assert_eq!(code(0.8), Ecn::Ect0);
        assert_eq!(code(0.9999), Ecn::Ect0);
        assert_eq!(code(1.0), Ecn::Ce);
        let mut v = Values::defaults(&[PARAMS]);
        v.set("t_rho_ms", crate::params::Val::Num(100.0));
        v.set("artifact_overload", crate::params::Val::Flag(true));
        let c = VcpConfig::from_values(&v);
        assert_eq!((c.t_rho, c.artifact_overload, c.gamma, c.kappa_q, c.q_weight), (Dur::from_millis(100), true, 0.98, 0.5, 0.25));
    }

    #[test]
    fn load_factor_by_hand_with_link_overhead_persistent_queue_and_outage() {
        let mut q = VcpQueue::new(VcpConfig::default());
        let mut d = Vec::new();
        assert_eq!((q.name(), q.next_timer(), q.rho()), ("vcp", Some(Time::from_millis(200)), 0.0));
        // 1.504 MB/s of wire bytes at 4 bytes per packet: C·t_ρ = 300 000 IP bytes per period.
        let link = Wire(1_504_000.0, 4);
        // Period 1: 100 packets arrive, 60 leave (60 000 B stay queued).
        for i in 0..100 {
            q.enqueue(Time::ZERO, Packet::data(0, i, MTU, Ecn::Ect1, Time::ZERO)).unwrap();
        }
        for _ in 0..60 {
            q.dequeue(Time::ZERO, LinkInfo::default(), &mut d).unwrap();
        }
        assert_eq!((q.len_packets(), q.len_bytes(), q.stats().dequeued), (40, 60_000, 60));
        q.on_timer(Time::from_millis(100), &link);
        assert_eq!((q.rho(), q.next_timer()), (0.0, Some(Time::from_millis(200))), "not due yet");
        q.on_timer(Time::from_millis(200), &link);
        // q̃ = 0.25·60 000 = 15 000; ρ = (150 000 + 0.5·15 000)/(0.98·300 000).
        assert!(close(q.rho(), 157_500.0 / 294_000.0), "{}", q.rho());
        assert_eq!(q.gauge(), Some(q.rho()));
        assert_eq!(q.next_timer(), Some(Time::from_millis(400)));
        // Period 2: 100 arrive, 80 leave: 90 000 B queued; q̃ = 0.75·15 000 + 0.25·90 000 = 33 750.
        for i in 0..100 {
            q.enqueue(Time::from_millis(300), Packet::data(0, i, MTU, Ecn::Ect1, Time::ZERO)).unwrap();
        }
        for _ in 0..80 {
            q.dequeue(Time::from_millis(300), LinkInfo::default(), &mut d).unwrap();
        }
        q.on_timer(Time::from_millis(400), &link);
        assert!(close(q.rho(), (150_000.0 + 0.5 * 33_750.0) / 294_000.0), "{}", q.rho());
        assert_eq!(q.stats().marked, 0, "low load: 01 packets keep 01");
        // Period 3: an outage (no capacity) with a queue is overload.
        q.on_timer(Time::from_millis(600), &Wire(0.0, 4));
        assert_eq!((q.rho(), q.code_at(Time::from_millis(700))), (f64::INFINITY, Ecn::Ce));
        // Only raised codes count as marks.
        assert_eq!(q.dequeue(Time::from_millis(700), LinkInfo::default(), &mut d).unwrap().ecn, Ecn::Ce);
        q.enqueue(Time::from_millis(700), Packet::data(0, 0, MTU, Ecn::Ce, Time::ZERO)).unwrap();
        for _ in 0..60 {
            q.dequeue(Time::from_millis(700), LinkInfo::default(), &mut d).unwrap();
        }
        assert_eq!(q.stats().marked, 60, "the last packet was already 11");
        // An outage with nothing arriving or queued is no load.
        let mut idle = VcpQueue::new(VcpConfig::default());
        idle.on_timer(Time::from_millis(200), &Wire(0.0, 4));
        assert_eq!(idle.rho(), 0.0);
    }

    #[test]
    fn only_the_artifact_option_turns_overload_into_high_load_and_only_overload() {
        let at = |artifact_overload: bool, code: Ecn| {
            let mut q = VcpQueue::new(VcpConfig {
                artifact_overload,
                ..VcpConfig::default()
            });
            q.start = Time::from_millis(200);
            q.code = code;
            (q.code_at(Time::from_millis(299)), q.code_at(Time::from_millis(300)))
        };
        assert_eq!(at(false, Ecn::Ce), (Ecn::Ce, Ecn::Ce));
        assert_eq!(at(true, Ecn::Ce), (Ecn::Ce, Ecn::Ect0));
        assert_eq!(at(true, Ecn::Ect1), (Ecn::Ect1, Ecn::Ect1));
        assert_eq!(at(true, Ecn::Ect0), (Ecn::Ect0, Ecn::Ect0));
    }
}
