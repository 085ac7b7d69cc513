//! Per-flow figures of a multi-flow `emulate` (`--flows N`), from the data direction's own
//! delivery records: pure, clock-free, tested on every platform.
//!
//! Flow `i` of N has its own socket pair; its receiver listens on `base_port + i` in the outer
//! namespace (kernel TCP and the user-space transport alike), so a data packet's flow is its
//! destination port. Per-packet timing is taken exactly as for one flow (and for the link-level
//! figures): queueing delay = the trace opportunity that carried the packet − when the loop read
//! it from the sender's TUN device, for packets over 100 IP bytes (data); per-packet delay = that
//! plus the propagation RTT (the ABC paper's convention, as `run`). A flow's throughput is the
//! simulator's (`measure/summary.rs`, `FlowSummary::throughput_mbps`): IP bytes of its data packets
//! delivered to the receiver's side, over its active time (its start to the end of the run).

use crate::direction::Delivery;
use accelbrake_sim::time::{Time, NS_PER_MS, NS_PER_S};

/// Data packets are the deliveries larger than this many IP bytes (pure ACKs, SYNs and the
/// user-space transport's ACK datagrams are smaller; a data segment is 1500 bytes).
pub const DATA_MIN_BYTES: u32 = 100;

/// Nearest-rank percentile of sorted values (index ⌊q·N⌋, as `mm-throughput-graph`); NaN if empty.
pub fn pct(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)]
}

/// Mean; NaN if empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Queueing delay of one delivery, ms: its opportunity − its arrival (0 if it was read after the
/// opportunity it used, which the loop's stamping allows by a few µs).
pub fn queueing_ms(d: &Delivery) -> f64 {
    (d.opportunity.0 - d.arrived.0.min(d.opportunity.0)) as f64 / NS_PER_MS as f64
}

/// p50, p95 and mean of a set of delays, ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dist {
    /// Median (nearest rank).
    pub p50: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Mean.
    pub mean: f64,
}

impl Dist {
    /// Of `v` (sorted here).
    pub fn of(mut v: Vec<f64>) -> Dist {
        v.sort_by(f64::total_cmp);
        Dist {
            p50: pct(&v, 0.5),
            p95: pct(&v, 0.95),
            mean: mean(&v),
        }
    }
}

/// Which flow a packet belongs to: the flows' protocol, the first receiver port, their count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowPorts {
    /// IP protocol of the flows' packets ([`crate::ip::PROTO_TCP`] or [`crate::ip::PROTO_UDP`]).
    pub proto: u8,
    /// Flow 0's receiver port; flow `i` uses `base + i`.
    pub base: u16,
    /// Number of flows.
    pub n: usize,
}

impl FlowPorts {
    /// The flow of a data-direction delivery (its destination port), or `None` (another protocol,
    /// another port, not TCP/UDP over IPv4).
    pub fn flow_of(&self, d: &Delivery) -> Option<usize> {
        let p = d.ports?;
        let i = usize::from(p.dst.checked_sub(self.base)?);
        (p.proto == self.proto && i < self.n).then_some(i)
    }
}

/// One flow's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowFigures {
    /// Flow index.
    pub id: usize,
    /// When its sender started (emulator time).
    pub start: Time,
    /// Its data packets the link delivered.
    pub data_packets: u64,
    /// Their IP bytes.
    pub data_bytes: u64,
    /// `data_bytes` over its active time (start to `end`), Mbit/s.
    pub throughput_mbps: f64,
    /// Queueing delay of its data packets, ms.
    pub queueing_delay_ms: Dist,
    /// Per-packet delay of its data packets (queueing + propagation RTT), ms.
    pub per_packet_delay_ms: Dist,
}

/// The figures of each flow of `ports` (flow `i` started at `starts[i]`) from the data
/// direction's deliveries `up` of a run that ended at `end`, with propagation RTT `rtt_ms`.
/// Deliveries of no flow (other traffic, ACK-sized packets) are left out.
pub fn per_flow(ports: &FlowPorts, starts: &[Time], up: &[Delivery], end: Time, rtt_ms: f64) -> Vec<FlowFigures> {
    let mut q: Vec<Vec<f64>> = vec![Vec::new(); ports.n];
    let mut bytes = vec![0u64; ports.n];
    for d in up.iter().filter(|d| d.size > DATA_MIN_BYTES) {
        if let Some(i) = ports.flow_of(d) {
            q[i].push(queueing_ms(d));
            bytes[i] += u64::from(d.size);
        }
    }
    q.into_iter()
        .zip(bytes)
        .enumerate()
        .map(|(id, (qd, b))| {
            let start = starts.get(id).copied().unwrap_or(Time::ZERO);
            // The simulator's active time, floored at 1 ns (a flow that never started).
            let active = (end.0.saturating_sub(start.0) as f64 / NS_PER_S as f64).max(1e-9);
            FlowFigures {
                id,
                start,
                data_packets: qd.len() as u64,
                data_bytes: b,
                throughput_mbps: b as f64 * 8.0 / active / 1e6,
                per_packet_delay_ms: Dist::of(qd.iter().map(|x| x + rtt_ms).collect()),
                queueing_delay_ms: Dist::of(qd),
            }
        })
        .collect()
}

/// Jain's fairness index of the flows' throughputs (the simulator's [`accelbrake_sim::measure::jain`]).
pub fn jain_index(flows: &[FlowFigures]) -> f64 {
    accelbrake_sim::measure::jain(&flows.iter().map(|f| f.throughput_mbps).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::{Ports, PROTO_TCP, PROTO_UDP};

    fn d(size: u32, proto: u8, dst: u16, arrived_ms: u64, opp_ms: u64) -> Delivery {
        Delivery {
            size,
            arrived: Time(arrived_ms * NS_PER_MS),
            opportunity: Time(opp_ms * NS_PER_MS),
            due: Time(opp_ms * NS_PER_MS),
            written: Time(opp_ms * NS_PER_MS),
            ecn_in: None,
            ecn_out: None,
            tcp: None,
            ports: Some(Ports { proto, src: 40000, dst }),
        }
    }

    #[test]
    fn packets_are_told_apart_by_protocol_and_receiver_port() {
        let p = FlowPorts {
            proto: PROTO_TCP,
            base: 5201,
            n: 3,
        };
        assert_eq!(p.flow_of(&d(1500, PROTO_TCP, 5201, 0, 0)), Some(0));
        assert_eq!(p.flow_of(&d(1500, PROTO_TCP, 5203, 0, 0)), Some(2));
        assert_eq!(p.flow_of(&d(1500, PROTO_TCP, 5204, 0, 0)), None, "past the last flow");
        assert_eq!(p.flow_of(&d(1500, PROTO_TCP, 5200, 0, 0)), None, "below the first");
        assert_eq!(p.flow_of(&d(1500, PROTO_UDP, 5201, 0, 0)), None, "other protocol");
        let mut x = d(1500, PROTO_TCP, 5201, 0, 0);
        x.ports = None;
        assert_eq!(p.flow_of(&x), None, "not TCP/UDP over IPv4");
    }

    #[test]
    fn per_flow_figures_split_the_links_records_exactly() {
        let p = FlowPorts {
            proto: PROTO_UDP,
            base: 5203,
            n: 2,
        };
        // Flow 0: queueing 0, 10, 20 ms (and one ACK-sized packet, not data); flow 1: 40 ms,
        // started at 1 s; plus a packet of no flow.
        let up = vec![
            d(1500, PROTO_UDP, 5203, 0, 0),
            d(1500, PROTO_UDP, 5203, 5, 15),
            d(1500, PROTO_UDP, 5203, 5, 25),
            d(60, PROTO_UDP, 5203, 0, 90),
            d(1500, PROTO_UDP, 5204, 1000, 1040),
            d(1500, PROTO_UDP, 5299, 0, 500),
        ];
        let end = Time(2 * NS_PER_S);
        let f = per_flow(&p, &[Time::ZERO, Time(NS_PER_S)], &up, end, 100.0);
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].data_packets, f[0].data_bytes), (3, 4500));
        assert_eq!((f[1].data_packets, f[1].data_bytes), (1, 1500));
        // Over their own active times: 2 s and 1 s.
        assert!((f[0].throughput_mbps - 4500.0 * 8.0 / 2.0 / 1e6).abs() < 1e-12);
        assert!((f[1].throughput_mbps - 1500.0 * 8.0 / 1.0 / 1e6).abs() < 1e-12);
        // Nearest rank: index floor(q·N) of [0, 10, 20] → p50 10, p95 20.
        assert_eq!(
            f[0].queueing_delay_ms,
            Dist {
                p50: 10.0,
                p95: 20.0,
                mean: 10.0
            }
        );
        assert_eq!(
            f[0].per_packet_delay_ms,
            Dist {
                p50: 110.0,
                p95: 120.0,
                mean: 110.0
            }
        );
        assert_eq!(f[1].per_packet_delay_ms.p95, 140.0);
        assert_eq!(f[1].start, Time(NS_PER_S));
        // A flow that never sent: zero throughput, NaN delays; Jain over (x, 0) = 1/2.
        let lone = per_flow(&p, &[Time::ZERO, Time::ZERO], &up[..3], end, 0.0);
        assert_eq!(lone[1].data_packets, 0);
        assert!(lone[1].per_packet_delay_ms.p95.is_nan());
        assert!((jain_index(&lone) - 0.5).abs() < 1e-12);
        let even: Vec<FlowFigures> = (0..2).map(|id| FlowFigures { id, ..f[0].clone() }).collect();
        assert_eq!(jain_index(&even), 1.0);
    }

    #[test]
    fn a_flow_starting_after_the_end_does_not_divide_by_zero() {
        let p = FlowPorts {
            proto: PROTO_TCP,
            base: 5201,
            n: 1,
        };
        let f = per_flow(&p, &[Time(5 * NS_PER_S)], &[], Time(NS_PER_S), 0.0);
        assert_eq!(f[0].throughput_mbps, 0.0);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<f64> = (0..20).map(f64::from).collect();
        assert_eq!((pct(&v, 0.5), pct(&v, 0.95), pct(&v, 1.0)), (10.0, 19.0, 19.0));
        assert!(pct(&[], 0.5).is_nan() && mean(&[]).is_nan());
    }
}
