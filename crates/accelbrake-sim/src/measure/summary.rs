//! Run summaries: per-hop, per-flow and run-wide figures ([`Summary`]), computed from plain
//! inputs the engine hands over (counters, the recorder's distributions, each link's capacity),
//! and Jain's fairness index. Utilisation is Mahimahi's: bytes that left the link over the link's
//! capacity bytes over the run.

use super::recorder::{FlowMetrics, HopMetrics, Recorder};
use super::sketch::Stats;
use crate::time::{Dur, Time};
use serde::Serialize;

/// Summary of one hop.
#[derive(Clone, Debug, Serialize)]
pub struct HopSummary {
    /// Hop index.
    pub id: usize,
    /// Name.
    pub name: String,
    /// Queue type.
    pub queue: String,
    /// Mean link capacity over the run, Mbit/s.
    pub capacity_mbps: f64,
    /// Bytes that left the link per second, Mbit/s (wire bytes, all packets).
    pub throughput_mbps: f64,
    /// Departed bytes / capacity bytes (Mahimahi's utilisation).
    pub utilization: f64,
    /// Packets dropped.
    pub drops: u64,
    /// Packets marked (ABC brake / CE).
    pub marks: u64,
    /// Packets that left the link.
    pub packets: u64,
    /// Most packets queued at once.
    pub max_queue_packets: u64,
    /// Time-averaged packets in the hop (queued or on the link).
    pub mean_occupancy_packets: f64,
    /// Mean sojourn (queue + link) of every packet that left the link, data and ACKs, ms.
    pub mean_sojourn_ms: f64,
    /// Queueing delay (sojourn incl. waiting for an opportunity) of data packets at this hop, ms.
    pub queueing_delay_ms: Stats,
    /// For a trace link: how far into its trace the link was at time 0, ms (pinned by the link's
    /// `offset_ms` or drawn from the seed); absent for rate links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_offset_ms: Option<u64>,
}

/// Summary of one flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Flow index.
    pub id: usize,
    /// Scheme.
    pub scheme: String,
    /// When it started, s.
    pub start_s: f64,
    /// Propagation RTT, ms.
    pub prop_rtt_ms: f64,
    /// Data bytes (IP) received per second over the flow's active time, Mbit/s.
    pub throughput_mbps: f64,
    /// Payload delivered in order per second, Mbit/s.
    pub goodput_mbps: f64,
    /// Data packets sent (with retransmissions).
    pub packets_sent: u64,
    /// Retransmissions.
    pub retransmits: u64,
    /// Data packets dropped in the network.
    pub drops: u64,
    /// RTO expiries.
    pub timeouts: u64,
    /// A finite flow's completion time: from its start until all its data was acknowledged, s.
    pub completion_s: Option<f64>,
    /// Sum of queueing delays along the data path, ms.
    pub queueing_delay_ms: Stats,
    /// Per-packet delay = propagation RTT + queueing delay (ABC paper convention), ms.
    pub per_packet_delay_ms: Stats,
    /// One-way delay sender → receiver, ms.
    pub one_way_delay_ms: Stats,
}

/// Summary of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Simulated duration, s.
    pub duration_s: f64,
    /// Seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Packet departures from hops (the "simulated packets" of the speed figures).
    pub hop_departures: u64,
    /// Index of the bottleneck: the hop of flow 0's data path with the least capacity.
    pub bottleneck_hop: usize,
    /// Utilisation of the bottleneck hop.
    pub utilization: f64,
    /// Data bytes (IP) all flows received over the measurement window (the first flow's start
    /// to the last flow's end), Mbit/s. Not the sum of the flows' rates: each of those is over
    /// its own active time, so staggered flows would add up to more than the link carried.
    pub throughput_mbps: f64,
    /// Per-packet delay over all flows' packets, ms.
    pub per_packet_delay_ms: Stats,
    /// Queueing delay over all flows' packets, ms.
    pub queueing_delay_ms: Stats,
    /// Jain's fairness index of the flows' throughputs.
    pub jain_index: f64,
    /// Hops.
    pub hops: Vec<HopSummary>,
    /// Flows.
    pub flows: Vec<FlowSummary>,
    /// Settings outside a scheme's or queue's known operating range, each naming the parameter,
    /// the bound and its source ([`crate::warning`]); empty when there is none.
    pub warnings: Vec<crate::warning::Warning>,
}

/// Jain's index (Σx)² / (n·Σx²), 1 for perfect fairness.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

/// What the summary needs to know about the run itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunInfo {
    /// End of the run.
    pub(crate) end: Time,
    /// The scenario's seed.
    pub(crate) seed: u64,
    /// Events processed.
    pub(crate) events: u64,
    /// Packet departures from hops.
    pub(crate) hop_departures: u64,
}

/// One hop as the summary sees it: plain values, its measurements, and its link's capacity.
pub(crate) struct HopInput<'a> {
    /// Name.
    pub(crate) name: &'a str,
    /// Queue type.
    pub(crate) queue: &'a str,
    /// Packets the queue marked.
    pub(crate) marks: u64,
    /// Most packets queued at once.
    pub(crate) max_queue_packets: u64,
    /// Time integral of the hop's occupancy up to the end, packet·ns.
    pub(crate) occupancy_area: u128,
    /// The hop's measurements.
    pub(crate) m: &'a HopMetrics,
    /// Link capacity in bytes over `[from, to)`.
    pub(crate) capacity_between: &'a dyn Fn(Time, Time) -> f64,
    /// A trace link's offset into its trace, ms.
    pub(crate) trace_offset_ms: Option<u64>,
}

/// One flow as the summary sees it.
pub(crate) struct FlowInput<'a> {
    /// Scheme name.
    pub(crate) scheme: &'a str,
    /// Start time.
    pub(crate) start: Time,
    /// Stop time, if any.
    pub(crate) stop: Option<Time>,
    /// Propagation RTT.
    pub(crate) prop_rtt: Dur,
    /// Data path (hop indices).
    pub(crate) fwd: &'a [u32],
    /// When a finite flow completed.
    pub(crate) completed_at: Option<Time>,
    /// Segments the receiver delivered in order.
    pub(crate) delivered_segments: u64,
    /// Data packets sent.
    pub(crate) packets_sent: u64,
    /// Retransmissions.
    pub(crate) retransmits: u64,
    /// RTO expiries.
    pub(crate) timeouts: u64,
    /// The flow's measurements.
    pub(crate) m: &'a FlowMetrics,
}

/// The summary of a run from the recorder's run-wide distributions and each hop and flow.
pub(crate) fn summarize(rec: &Recorder, run: &RunInfo, hops: &[HopInput<'_>], flows: &[FlowInput<'_>]) -> Summary {
    let end = run.end;
    let dur = end.secs_f64().max(1e-12);
    let mut hop_sums = Vec::new();
    for (i, h) in hops.iter().enumerate() {
        let cap = (h.capacity_between)(Time::ZERO, end);
        hop_sums.push(HopSummary {
            id: i,
            name: h.name.to_string(),
            queue: h.queue.to_string(),
            trace_offset_ms: h.trace_offset_ms,
            capacity_mbps: cap * 8.0 / dur / 1e6,
            throughput_mbps: h.m.departed_bytes as f64 * 8.0 / dur / 1e6,
            utilization: if cap > 0.0 {
                h.m.departed_bytes as f64 / cap
            } else {
                f64::NAN
            },
            drops: h.m.drops,
            marks: h.marks,
            packets: h.m.departed_pkts,
            max_queue_packets: h.max_queue_packets,
            mean_occupancy_packets: h.occupancy_area as f64 / (end.0.max(1) as f64),
            mean_sojourn_ms: if h.m.departed_pkts > 0 {
                h.m.sojourn_sum_ns as f64 / h.m.departed_pkts as f64 / 1e6
            } else {
                f64::NAN
            },
            queueing_delay_ms: h.m.data_sojourn_ns.stats(0),
        });
    }
    let mut flow_sums = Vec::new();
    // The measurement window of the aggregate: from the first flow's start to the last flow's end.
    let (mut first_start, mut last_fin) = (end, Time::ZERO);
    let mut all_rx: u64 = 0;
    for (i, f) in flows.iter().enumerate() {
        // Active period: from the start to completion (finite flows), or to the stop time
        // extended to the last delivery (data in flight at the stop still arrives), or to the
        // end of the run.
        let fin = match (f.completed_at, f.stop) {
            (Some(c), _) => c,
            (None, Some(stop)) => stop.max(f.m.last_rx),
            (None, None) => end,
        }
        .min(end);
        let active = fin.saturating_since(f.start).secs_f64().max(1e-9);
        let rx: u64 = f.m.rx_bytes;
        first_start = first_start.min(f.start);
        last_fin = last_fin.max(fin);
        all_rx += rx;
        let goodput_bytes = f.delivered_segments as f64 * crate::packet::MSS as f64;
        flow_sums.push(FlowSummary {
            id: i,
            scheme: f.scheme.to_string(),
            start_s: f.start.secs_f64(),
            prop_rtt_ms: f.prop_rtt.millis_f64(),
            throughput_mbps: rx as f64 * 8.0 / active / 1e6,
            goodput_mbps: goodput_bytes * 8.0 / active / 1e6,
            packets_sent: f.packets_sent,
            retransmits: f.retransmits,
            drops: f.m.data_drops,
            timeouts: f.timeouts,
            completion_s: f.completed_at.map(|c| c.saturating_since(f.start).secs_f64()),
            queueing_delay_ms: f.m.queueing_stats(),
            per_packet_delay_ms: f.m.per_packet_stats(f.prop_rtt),
            one_way_delay_ms: f.m.one_way_stats(),
        });
    }
    let bottleneck = flows.first().and_then(|f| {
        f.fwd.iter().map(|&h| h as usize).min_by(|&a, &b| {
            hop_sums[a]
                .capacity_mbps
                .partial_cmp(&hop_sums[b].capacity_mbps)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    });
    let tputs: Vec<f64> = flow_sums.iter().map(|f| f.throughput_mbps).collect();
    Summary {
        duration_s: dur,
        seed: run.seed,
        events: run.events,
        hop_departures: run.hop_departures,
        bottleneck_hop: bottleneck.unwrap_or(0),
        utilization: bottleneck.map_or(f64::NAN, |b| hop_sums[b].utilization),
        throughput_mbps: all_rx as f64 * 8.0 / last_fin.saturating_since(first_start).secs_f64().max(1e-9) / 1e6,
        per_packet_delay_ms: rec.all_d.stats(0),
        queueing_delay_ms: rec.all_q.stats(0),
        jain_index: jain(&tputs),
        hops: hop_sums,
        flows: flow_sums,
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_hog() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert_eq!(jain(&[0.0, 0.0]), 1.0, "nobody got anything: fair");
    }

    #[test]
    fn bottleneck_is_the_least_capacity_hop_of_flow_zeros_path() {
        let rec = Recorder::new(Dur::from_millis(100), Time::from_secs(1), false, 2, 1);
        let (mut m0, m1) = (rec.hop_metrics(), rec.hop_metrics());
        m0.departed_bytes = 500;
        let fast = |a: Time, b: Time| (b - a).secs_f64() * 2000.0;
        let slow = |a: Time, b: Time| (b - a).secs_f64() * 1000.0;
        let hop = |m, capacity_between| HopInput {
            name: "h",
            queue: "droptail",
            marks: 0,
            max_queue_packets: 0,
            occupancy_area: 0,
            m,
            capacity_between,
            trace_offset_ms: None,
        };
        let hops = [hop(&m0, &slow as &dyn Fn(Time, Time) -> f64), hop(&m1, &fast)];
        let fm = rec.flow_metrics();
        let flow = FlowInput {
            scheme: "cubic",
            start: Time::ZERO,
            stop: None,
            prop_rtt: Dur::from_millis(20),
            fwd: &[1, 0],
            completed_at: None,
            delivered_segments: 0,
            packets_sent: 0,
            retransmits: 0,
            timeouts: 0,
            m: &fm,
        };
        let run = RunInfo {
            end: Time::from_secs(1),
            seed: 1,
            events: 0,
            hop_departures: 0,
        };
        let s = summarize(&rec, &run, &hops, &[flow]);
        assert_eq!(s.bottleneck_hop, 0);
        assert_eq!(s.utilization, 0.5);
        assert_eq!(s.hops[1].capacity_mbps, 2000.0 * 8.0 / 1e6);
        assert!(s.per_packet_delay_ms.p50.is_nan());
    }
}
