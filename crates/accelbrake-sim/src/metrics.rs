//! Measurement: per-packet records, time series and summaries.
//!
//! Delay conventions (every number says which it is):
//! * **queueing delay**: time from entering a hop's queue to leaving its link, summed over the data
//!   path's hops. On a trace link this includes waiting for a delivery opportunity, exactly what
//!   Mahimahi logs as a packet's delay.
//! * **per-packet delay**: the flow's propagation RTT + the packet's queueing delay (the ABC paper's
//!   convention: 100 ms + Mahimahi queueing delay).
//! * **one-way delay**: from the sender's transmission to arrival at the receiver.
//!
//! Percentiles follow Mahimahi's `mm-delay-graph`: the sorted value at index `floor(q·N)`.
//! With per-packet records on, they are exact (every value is kept and sorted). With records off
//! they come from a fixed-size log-bucket histogram ([`Sketch`]) so that memory does not grow with
//! the run's length: p50/p95/p99 are then within a relative error of 2^-9 (0.2 %) of the exact
//! value (and exact below 256 ns); count, mean and max stay exact.
//! Utilisation is Mahimahi's: bytes that left the link (with the 4-byte TUN header on trace links)
//! over the link's capacity bytes (every opportunity, used or wasted) over the run.

use crate::engine::{Flow, Hop, Simulation};
use crate::packet::{Kind, Packet};
use crate::time::{Dur, Time};
use serde::Serialize;
use std::collections::BTreeMap;

/// Sub-buckets per power of two in a [`Sketch`] (2^8): bucket width ≤ value / 256.
const SKETCH_SUB_BITS: u32 = 8;
const SKETCH_SUB: usize = 1 << SKETCH_SUB_BITS;
/// Groups: values below 256 (width 1), then one group per power of two up to 2^64.
const SKETCH_GROUPS: usize = 64 - SKETCH_SUB_BITS as usize + 1;

/// Bound on the relative error of a [`Sketch`] percentile: |reported − exact| ≤ exact · 2^-9.
pub const SKETCH_REL_ERROR: f64 = 1.0 / (2 * SKETCH_SUB) as f64;

/// A streaming distribution of non-negative integers (nanoseconds) in bounded memory: an
/// HDR-histogram-style log-bucket layout. Values below 256 get a bucket each; a value in
/// `[2^e, 2^(e+1))`, e ≥ 8, falls in one of 256 equal buckets of width `2^(e-8)` over that octave,
/// so a bucket is never wider than 1/256 of any value in it. A percentile reports the midpoint of
/// the bucket holding the exact order statistic (clamped to the exact min and max), hence is within
/// half a bucket, i.e. a relative error of at most 2^-9 ≈ 0.195 % ([`SKETCH_REL_ERROR`]).
/// Count, sum (hence mean), min and max are exact. Memory: 57 group slots plus 2 KiB per octave
/// actually used (nanosecond delays between 1 µs and 100 s touch at most 28), whatever the count.
#[derive(Clone, Debug)]
pub struct Sketch {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    groups: Vec<Option<Box<[u64; SKETCH_SUB]>>>,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            groups: Vec::new(),
        }
    }
}

impl Sketch {
    /// (group, sub-bucket) of a value.
    fn bucket(v: u64) -> (usize, usize) {
        if v < SKETCH_SUB as u64 {
            return (0, v as usize);
        }
        let e = 63 - v.leading_zeros(); // ≥ 8
        let shift = e - SKETCH_SUB_BITS;
        debug_assert!((shift as usize) < SKETCH_GROUPS);
        ((shift + 1) as usize, ((v >> shift) as usize) - SKETCH_SUB)
    }

    /// Lowest value and width of a bucket.
    fn bounds(g: usize, sub: usize) -> (u64, u64) {
        if g == 0 {
            (sub as u64, 1)
        } else {
            (((SKETCH_SUB + sub) as u64) << (g - 1), 1u64 << (g - 1))
        }
    }

    /// Add one value.
    pub fn push(&mut self, v: u64) {
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let (g, sub) = Sketch::bucket(v);
        if self.groups.len() <= g {
            self.groups.resize_with(g + 1, || None);
        }
        self.groups[g].get_or_insert_with(|| Box::new([0; SKETCH_SUB]))[sub] += 1;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Heap bytes held (for the bounded-memory tests).
    pub fn heap_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Option<Box<[u64; SKETCH_SUB]>>>()
            + self.groups.iter().flatten().count() * SKETCH_SUB * 8
    }

    /// The values at ranks `ranks` (ascending, each < count), each approximated by its bucket's
    /// midpoint clamped to [min, max].
    fn at_ranks<const N: usize>(&self, ranks: [u64; N]) -> [u64; N] {
        let mut out = [0; N];
        let mut k = 0;
        let mut seen = 0u64;
        'walk: for (g, grp) in self.groups.iter().enumerate() {
            let Some(grp) = grp else { continue };
            for (sub, &c) in grp.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                seen += c;
                while ranks[k] < seen {
                    let (lo, w) = Sketch::bounds(g, sub);
                    out[k] = (lo + w / 2).clamp(self.min, self.max);
                    k += 1;
                    if k == N {
                        break 'walk;
                    }
                }
            }
        }
        out
    }

    /// Summary statistics in ms, each value shifted by `offset_ns` (as [`Stats::of_ns`]).
    pub fn stats(&self, offset_ns: u64) -> Stats {
        let n = self.count;
        if n == 0 {
            return Stats::of_ns(&[], 0);
        }
        let rank = |q: f64| ((q * n as f64) as u64).min(n - 1);
        let [p50, p95, p99] = self.at_ranks([rank(0.5), rank(0.95), rank(0.99)]);
        let ms = |v: u64| ((v + offset_ns) as f64) / 1e6;
        Stats {
            count: n,
            mean: (self.sum as f64 / n as f64 + offset_ns as f64) / 1e6,
            p50: ms(p50),
            p95: ms(p95),
            p99: ms(p99),
            max: ms(self.max),
        }
    }
}

/// A set of nanosecond values: every value (exact percentiles; used when per-packet records are
/// on) or a [`Sketch`] (bounded memory; records off).
#[derive(Clone, Debug)]
pub enum Dist {
    /// All values.
    Exact(Vec<u64>),
    /// A log-bucket histogram.
    Sketch(Sketch),
}

impl Default for Dist {
    fn default() -> Self {
        Dist::Sketch(Sketch::default())
    }
}

impl Dist {
    /// Exact if `exact`, else a sketch.
    pub fn new(exact: bool) -> Dist {
        if exact {
            Dist::Exact(Vec::new())
        } else {
            Dist::default()
        }
    }

    /// Add a value.
    #[inline]
    pub fn push(&mut self, v: u64) {
        match self {
            Dist::Exact(x) => x.push(v),
            Dist::Sketch(s) => s.push(v),
        }
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        match self {
            Dist::Exact(x) => x.len() as u64,
            Dist::Sketch(s) => s.count(),
        }
    }

    /// Summary statistics in ms, each value shifted by `offset_ns`.
    pub fn stats(&self, offset_ns: u64) -> Stats {
        match self {
            Dist::Exact(x) => Stats::of_ns(x, offset_ns),
            Dist::Sketch(s) => s.stats(offset_ns),
        }
    }
}

/// Per-hop measurements.
#[derive(Clone, Debug, Default)]
pub struct HopMetrics {
    /// Packets that reached this hop's queue (accepted or not).
    pub arrived: u64,
    /// Packets dropped (all flows, data and ACKs).
    pub drops: u64,
    /// Wire bytes that left the link.
    pub departed_bytes: u64,
    /// Packets that left the link.
    pub departed_pkts: u64,
    /// Sum of every departed packet's sojourn (queue + link, data and ACKs), ns.
    pub sojourn_sum_ns: u128,
    /// Time integral of the packets in the hop (queued or on the link), packet·ns.
    pub occupancy_area: u128,
    /// Sojourn of every data packet through this hop, ns.
    pub data_sojourn_ns: Dist,
    /// Departed wire bytes per time bin.
    pub bins: Vec<u64>,
}

/// Per-flow measurements.
#[derive(Clone, Debug, Default)]
pub struct FlowMetrics {
    /// Data packets dropped in the network.
    pub data_drops: u64,
    /// ACKs dropped in the network.
    pub ack_drops: u64,
    /// Total queueing delay of every data packet delivered, ns.
    pub qdelay_ns: Dist,
    /// One-way delay of every data packet delivered, ns.
    pub owd_ns: Dist,
    /// Data bytes (IP) received per time bin.
    pub bins: Vec<u64>,
    /// When the last data packet arrived at the receiver.
    pub last_rx: Time,
}

/// A column of a table.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Column {
    /// Floats.
    F64(Vec<f64>),
    /// Integers.
    I64(Vec<i64>),
}

impl Column {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
        }
    }
    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A columnar table (a pandas DataFrame on the Python side).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Table {
    /// Named columns of equal length.
    pub columns: Vec<(String, Column)>,
}

impl Table {
    fn f64(&mut self, name: &str, v: Vec<f64>) {
        self.columns.push((name.into(), Column::F64(v)));
    }
    fn i64(&mut self, name: &str, v: Vec<i64>) {
        self.columns.push((name.into(), Column::I64(v)));
    }
    /// Look a column up.
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

#[derive(Default)]
struct FlowSamples {
    t: Vec<f64>,
    flow: Vec<i64>,
    cwnd: Vec<f64>,
    w_abc: Vec<f64>,
    w_cubic: Vec<f64>,
    srtt_ms: Vec<f64>,
    pacing_mbps: Vec<f64>,
    in_flight: Vec<i64>,
}

#[derive(Default)]
struct HopSamples {
    t: Vec<f64>,
    hop: Vec<i64>,
    queue_pkts: Vec<i64>,
    queue_bytes: Vec<i64>,
    gauge: Vec<f64>,
}

#[derive(Default)]
struct Deliveries {
    flow: Vec<i64>,
    seq: Vec<i64>,
    sent_ns: Vec<i64>,
    recv_ns: Vec<i64>,
    queued_ns: Vec<i64>,
}

#[derive(Default)]
struct Departures {
    hop: Vec<i64>,
    flow: Vec<i64>,
    is_ack: Vec<i64>,
    seq: Vec<i64>,
    enq_ns: Vec<i64>,
    deq_ns: Vec<i64>,
    size: Vec<i64>,
}

/// Collects measurements during a run.
pub struct Recorder {
    /// Time-series bin width.
    pub bin: Dur,
    nbins: usize,
    record_packets: bool,
    fs: FlowSamples,
    hs: HopSamples,
    deliveries: Deliveries,
    departures: Departures,
    /// Queueing delay of every delivered data packet, all flows, ns.
    all_q: Dist,
    /// Per-packet delay (propagation RTT + queueing delay) of every delivered data packet, ns.
    all_d: Dist,
}

impl Recorder {
    pub(crate) fn new(bin: Dur, end: Time, record_packets: bool, _hops: usize, _flows: usize) -> Recorder {
        let nbins = (end.0.div_ceil(bin.0.max(1))).max(1) as usize;
        Recorder {
            bin,
            nbins,
            record_packets,
            fs: FlowSamples::default(),
            hs: HopSamples::default(),
            deliveries: Deliveries::default(),
            departures: Departures::default(),
            all_q: Dist::new(record_packets),
            all_d: Dist::new(record_packets),
        }
    }

    /// Empty per-hop measurements (exact distributions iff per-packet records are on).
    pub(crate) fn hop_metrics(&self) -> HopMetrics {
        HopMetrics {
            data_sojourn_ns: Dist::new(self.record_packets),
            ..HopMetrics::default()
        }
    }

    /// Empty per-flow measurements.
    pub(crate) fn flow_metrics(&self) -> FlowMetrics {
        FlowMetrics {
            qdelay_ns: Dist::new(self.record_packets),
            owd_ns: Dist::new(self.record_packets),
            ..FlowMetrics::default()
        }
    }

    fn bin_of(&self, t: Time) -> usize {
        ((t.0 / self.bin.0) as usize).min(self.nbins - 1)
    }

    pub(crate) fn delivered(&mut self, now: Time, pkt: &Packet, f: &mut Flow) {
        f.m.qdelay_ns.push(pkt.queued_ns);
        self.all_q.push(pkt.queued_ns);
        self.all_d.push(pkt.queued_ns + f.prop_rtt.0);
        f.m.owd_ns.push((now - pkt.ts).0);
        f.m.last_rx = now;
        let b = self.bin_of(now);
        if f.m.bins.is_empty() {
            f.m.bins = vec![0; self.nbins];
        }
        f.m.bins[b] += pkt.size as u64;
        if self.record_packets {
            let d = &mut self.deliveries;
            d.flow.push(pkt.flow as i64);
            d.seq.push(pkt.seq as i64);
            d.sent_ns.push(pkt.ts.0 as i64);
            d.recv_ns.push(now.0 as i64);
            d.queued_ns.push(pkt.queued_ns as i64);
        }
    }

    pub(crate) fn departed(&mut self, h: usize, now: Time, pkt: &Packet, sojourn: Dur, wire: u32, m: &mut HopMetrics) {
        m.departed_bytes += wire as u64;
        m.departed_pkts += 1;
        if m.bins.is_empty() {
            m.bins = vec![0; self.nbins];
        }
        m.bins[self.bin_of(now)] += wire as u64;
        if pkt.kind == Kind::Data {
            m.data_sojourn_ns.push(sojourn.0);
        }
        if self.record_packets {
            let d = &mut self.departures;
            d.hop.push(h as i64);
            d.flow.push(pkt.flow as i64);
            d.is_ack.push(i64::from(pkt.kind == Kind::Ack));
            d.seq.push(pkt.seq as i64);
            d.enq_ns.push(pkt.enqueued_at.0 as i64);
            d.deq_ns.push(now.0 as i64);
            d.size.push(pkt.size as i64);
        }
    }

    pub(crate) fn sample(&mut self, now: Time, hops: &[Hop], flows: &[Flow]) {
        let t = now.secs_f64();
        for (i, f) in flows.iter().enumerate() {
            let m = f.sender.cc.metrics();
            let s = &mut self.fs;
            s.t.push(t);
            s.flow.push(i as i64);
            s.cwnd.push(m.cwnd);
            s.w_abc.push(m.w_abc.unwrap_or(f64::NAN));
            s.w_cubic.push(m.w_cubic.unwrap_or(f64::NAN));
            s.srtt_ms.push(f.sender.srtt().map_or(f64::NAN, |d| d.millis_f64()));
            s.pacing_mbps.push(m.pacing_rate.map_or(f64::NAN, |r| r * 8.0 / 1e6));
            s.in_flight.push(f.sender.pipe() as i64);
        }
        for (i, h) in hops.iter().enumerate() {
            let s = &mut self.hs;
            s.t.push(t);
            s.hop.push(i as i64);
            s.queue_pkts.push(h.queue.len_packets() as i64);
            s.queue_bytes.push(h.queue.len_bytes() as i64);
            s.gauge.push(h.queue.gauge().unwrap_or(f64::NAN));
        }
    }
}

/// Mean, median and tail of a set of values (ms).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Stats {
    /// Number of samples.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median (index floor(0.5·N) of the sorted values).
    pub p50: f64,
    /// 95th percentile (Mahimahi: index floor(0.95·N)).
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// Statistics of nanosecond values, reported in ms, each shifted by `offset_ns`.
    pub fn of_ns(values: &[u64], offset_ns: u64) -> Stats {
        if values.is_empty() {
            return Stats {
                count: 0,
                mean: f64::NAN,
                p50: f64::NAN,
                p95: f64::NAN,
                p99: f64::NAN,
                max: f64::NAN,
            };
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let at = |q: f64| ((v[((q * n as f64) as usize).min(n - 1)] + offset_ns) as f64) / 1e6;
        let sum: u128 = v.iter().map(|&x| x as u128).sum();
        Stats {
            count: n as u64,
            mean: (sum as f64 / n as f64 + offset_ns as f64) / 1e6,
            p50: at(0.5),
            p95: at(0.95),
            p99: at(0.99),
            max: ((v[n - 1] + offset_ns) as f64) / 1e6,
        }
    }
}

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
    /// When a finite flow completed, s.
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
    /// Sum of flows' throughput, Mbit/s.
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
}

/// Everything a run produces.
pub struct SimResult {
    /// Summary figures.
    pub summary: Summary,
    /// Tables: `flows_ts`, `hops_ts`, and with packet records `packets` and `hop_packets`.
    pub tables: BTreeMap<String, Table>,
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

impl Simulation {
    /// Turn the run's measurements into a summary and tables (call after [`Simulation::run`]).
    pub fn result(&mut self) -> SimResult {
        let end = self.now;
        let dur = end.secs_f64().max(1e-12);
        let bin = self.rec.bin;
        let nb = self.rec.nbins;
        let mut hop_sums = Vec::new();
        for (i, h) in self.hops.iter().enumerate() {
            let cap = h.link.capacity_between(Time::ZERO, end);
            let s = h.queue.stats();
            hop_sums.push(HopSummary {
                id: i,
                name: h.name.clone(),
                queue: h.queue.name().to_string(),
                capacity_mbps: cap * 8.0 / dur / 1e6,
                throughput_mbps: h.m.departed_bytes as f64 * 8.0 / dur / 1e6,
                utilization: if cap > 0.0 {
                    h.m.departed_bytes as f64 / cap
                } else {
                    f64::NAN
                },
                drops: h.m.drops,
                marks: s.marked,
                packets: h.m.departed_pkts,
                max_queue_packets: s.max_packets,
                mean_occupancy_packets: self.occupancy_area(i) as f64 / (end.0.max(1) as f64),
                mean_sojourn_ms: if h.m.departed_pkts > 0 {
                    h.m.sojourn_sum_ns as f64 / h.m.departed_pkts as f64 / 1e6
                } else {
                    f64::NAN
                },
                queueing_delay_ms: h.m.data_sojourn_ns.stats(0),
            });
        }
        let mut flow_sums = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            // Active period: from the start to completion (finite flows), or to the stop time
            // extended to the last delivery (data in flight at the stop still arrives), or to the
            // end of the run.
            let fin = match (f.sender.completed_at, f.stop) {
                (Some(c), _) => c,
                (None, Some(stop)) => stop.max(f.m.last_rx),
                (None, None) => end,
            }
            .min(end);
            let active = fin.saturating_since(f.start).secs_f64().max(1e-9);
            let rx: u64 = f.m.bins.iter().sum();
            let goodput_bytes = f.receiver.stats.delivered_segments as f64 * crate::packet::MSS as f64;
            let prop = f.prop_rtt.0;
            flow_sums.push(FlowSummary {
                id: i,
                scheme: f.scheme.clone(),
                start_s: f.start.secs_f64(),
                prop_rtt_ms: f.prop_rtt.millis_f64(),
                throughput_mbps: rx as f64 * 8.0 / active / 1e6,
                goodput_mbps: goodput_bytes * 8.0 / active / 1e6,
                packets_sent: f.sender.stats.packets_sent,
                retransmits: f.sender.stats.retransmits,
                drops: f.m.data_drops,
                timeouts: f.sender.stats.timeouts,
                completion_s: f.sender.completed_at.map(|c| c.saturating_since(f.start).secs_f64()),
                queueing_delay_ms: f.m.qdelay_ns.stats(0),
                per_packet_delay_ms: f.m.qdelay_ns.stats(prop),
                one_way_delay_ms: f.m.owd_ns.stats(0),
            });
        }
        let bottleneck = self.flows.first().and_then(|f| {
            f.fwd.iter().map(|&h| h as usize).min_by(|&a, &b| {
                hop_sums[a]
                    .capacity_mbps
                    .partial_cmp(&hop_sums[b].capacity_mbps)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
        });
        let tputs: Vec<f64> = flow_sums.iter().map(|f| f.throughput_mbps).collect();
        let summary = Summary {
            duration_s: dur,
            seed: self.scenario.seed,
            events: self.stats.events,
            hop_departures: self.stats.hop_departures,
            bottleneck_hop: bottleneck.unwrap_or(0),
            utilization: bottleneck.map_or(f64::NAN, |b| hop_sums[b].utilization),
            throughput_mbps: tputs.iter().sum(),
            per_packet_delay_ms: self.rec.all_d.stats(0),
            queueing_delay_ms: self.rec.all_q.stats(0),
            jain_index: jain(&tputs),
            hops: hop_sums,
            flows: flow_sums,
        };

        let mut tables = BTreeMap::new();
        // Flow time series: samples at bin starts plus the received rate over each bin.
        let fs = std::mem::take(&mut self.rec.fs);
        let mut rx_mbps = Vec::with_capacity(fs.t.len());
        for (&t, &fl) in fs.t.iter().zip(fs.flow.iter()) {
            // Samples sit at bin starts; round (not truncate) back to the bin index.
            let from = Time((t * 1e9).round() as u64);
            let b = (from.0 / bin.0) as usize;
            let span = ((from + bin).min(end.max(from + Dur(1))) - from).secs_f64().max(1e-12);
            let bins = &self.flows[fl as usize].m.bins;
            let bytes = if b < nb { bins.get(b).copied().unwrap_or(0) } else { 0 };
            rx_mbps.push(bytes as f64 * 8.0 / span / 1e6);
        }
        let mut t = Table::default();
        t.f64("t_s", fs.t);
        t.i64("flow", fs.flow);
        t.f64("throughput_mbps", rx_mbps);
        t.f64("cwnd", fs.cwnd);
        t.f64("w_abc", fs.w_abc);
        t.f64("w_cubic", fs.w_cubic);
        t.f64("srtt_ms", fs.srtt_ms);
        t.f64("pacing_mbps", fs.pacing_mbps);
        t.i64("in_flight", fs.in_flight);
        tables.insert("flows_ts".to_string(), t);

        let hs = std::mem::take(&mut self.rec.hs);
        let mut cap = Vec::with_capacity(hs.t.len());
        let mut thr = Vec::with_capacity(hs.t.len());
        for (&t, &h) in hs.t.iter().zip(hs.hop.iter()) {
            let from = Time((t * 1e9).round() as u64);
            let to = (from + bin).min(end.max(from + Dur(1)));
            let span = (to - from).secs_f64().max(1e-12);
            let hop = &self.hops[h as usize];
            cap.push(hop.link.capacity_between(from, to) * 8.0 / span / 1e6);
            let b = (from.0 / bin.0) as usize;
            thr.push(hop.m.bins.get(b).copied().unwrap_or(0) as f64 * 8.0 / span / 1e6);
        }
        let mut t = Table::default();
        t.f64("t_s", hs.t);
        t.i64("hop", hs.hop);
        t.f64("capacity_mbps", cap);
        t.f64("throughput_mbps", thr);
        t.i64("queue_packets", hs.queue_pkts);
        t.i64("queue_bytes", hs.queue_bytes);
        t.f64("abc_f", hs.gauge);
        tables.insert("hops_ts".to_string(), t);

        if self.rec.record_packets {
            let d = std::mem::take(&mut self.rec.deliveries);
            let prop: Vec<i64> = d
                .flow
                .iter()
                .map(|&f| self.flows[f as usize].prop_rtt.0 as i64)
                .collect();
            let mut t = Table::default();
            t.f64("sent_s", d.sent_ns.iter().map(|&x| x as f64 / 1e9).collect());
            t.f64("recv_s", d.recv_ns.iter().map(|&x| x as f64 / 1e9).collect());
            t.f64(
                "queueing_delay_ms",
                d.queued_ns.iter().map(|&x| x as f64 / 1e6).collect(),
            );
            t.f64(
                "per_packet_delay_ms",
                d.queued_ns
                    .iter()
                    .zip(prop.iter())
                    .map(|(&q, &p)| (q + p) as f64 / 1e6)
                    .collect(),
            );
            t.f64(
                "one_way_delay_ms",
                d.recv_ns
                    .iter()
                    .zip(d.sent_ns.iter())
                    .map(|(&r, &s)| (r - s) as f64 / 1e6)
                    .collect(),
            );
            t.i64("flow", d.flow);
            t.i64("seq", d.seq);
            tables.insert("packets".to_string(), t);
            let d = std::mem::take(&mut self.rec.departures);
            let mut t = Table::default();
            t.i64("hop", d.hop);
            t.i64("flow", d.flow);
            t.i64("is_ack", d.is_ack);
            t.i64("seq", d.seq);
            t.f64("enqueue_s", d.enq_ns.iter().map(|&x| x as f64 / 1e9).collect());
            t.f64("dequeue_s", d.deq_ns.iter().map(|&x| x as f64 / 1e9).collect());
            t.f64(
                "queueing_delay_ms",
                d.deq_ns
                    .iter()
                    .zip(d.enq_ns.iter())
                    .map(|(&a, &b)| (a - b) as f64 / 1e6)
                    .collect(),
            );
            t.i64("size", d.size);
            tables.insert("hop_packets".to_string(), t);
        }
        SimResult { summary, tables }
    }
}

/// Build, run and summarise a scenario in one call.
pub fn simulate(scenario: &crate::scenario::Scenario) -> crate::error::Result<SimResult> {
    let mut sim = Simulation::new(scenario)?;
    sim.run();
    debug_assert_eq!(sim.check_invariants(), Ok(()));
    Ok(sim.result())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Sketch percentiles against exact ones (Mahimahi index) on several distributions.
    #[test]
    fn sketch_percentiles_are_within_the_documented_bound() {
        let mut rng = Rng::stream(7, 0);
        let shapes: [&dyn Fn(&mut Rng) -> u64; 5] = [
            &|r| r.below(300),                                              // exact region and the first octave
            &|r| 1_000 + r.below(200_000_000),                              // uniform µs .. 200 ms
            &|r| (-(1.0 - r.next_f64()).ln() * 3e7) as u64,                 // exponential, mean 30 ms
            &|r| (1e3 * (r.next_f64() * 25.0).exp()) as u64,                // log-uniform 1 µs .. 72 s
            &|r| if r.below(10) == 0 { 5_000_000_000 } else { 40_000_000 }, // two spikes
        ];
        for (i, shape) in shapes.iter().enumerate() {
            for n in [1usize, 2, 3, 10, 99, 1000, 54_321] {
                let v: Vec<u64> = (0..n).map(|_| shape(&mut rng)).collect();
                let mut sk = Sketch::default();
                v.iter().for_each(|&x| sk.push(x));
                for offset in [0, 100_000_000] {
                    let (e, a) = (Stats::of_ns(&v, offset), sk.stats(offset));
                    assert_eq!((e.count, e.max), (a.count, a.max), "shape {i} n {n}");
                    assert!(
                        (e.mean - a.mean).abs() <= 1e-9 * e.mean.abs().max(1.0),
                        "shape {i} n {n}"
                    );
                    for (x, y) in [(e.p50, a.p50), (e.p95, a.p95), (e.p99, a.p99)] {
                        let exact_ns = x * 1e6 - offset as f64;
                        // Reported values are whole ns, so allow half a ns of rounding as well.
                        assert!(
                            (x - y).abs() * 1e6 <= exact_ns * SKETCH_REL_ERROR + 0.5 + 1e-6,
                            "shape {i} n {n}: exact {x} ms, sketch {y} ms"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sketch_memory_does_not_grow_with_the_count() {
        let mut sk = Sketch::default();
        let mut rng = Rng::stream(1, 1);
        for _ in 0..100_000 {
            sk.push(1_000 + rng.below(1_000_000_000));
        }
        // 1 µs .. 1 s spans 21 octaves (2^9 .. 2^30 ns): at most 21 groups of 2 KiB, however many
        // values.
        let bound = 21 * 2048 + 64 * 16;
        assert!(sk.heap_bytes() <= bound, "{} bytes", sk.heap_bytes());
        for _ in 0..2_000_000 {
            sk.push(1_000 + rng.below(1_000_000_000));
        }
        assert!(sk.heap_bytes() <= bound, "{} bytes", sk.heap_bytes());
        // Extremes land in valid buckets.
        sk.push(0);
        sk.push(u64::MAX / 2);
        assert_eq!(sk.stats(0).max, (u64::MAX / 2) as f64 / 1e6);
    }

    #[test]
    fn empty_distributions_report_nan() {
        let s = Dist::new(false).stats(0);
        assert_eq!(s.count, 0);
        assert!(s.p50.is_nan() && s.mean.is_nan());
    }
}
