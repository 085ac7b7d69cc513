//! The recorder: what a run measures while it goes. Per-hop and per-flow counters and delay
//! distributions ([`HopMetrics`], [`FlowMetrics`]), time-series samples taken every bin, and, if
//! asked for, one record per delivered data packet and per hop departure.
//!
//! The engine hands in plain values (packets, sojourns, per-flow and per-hop sample values); the
//! recorder knows nothing of the engine's types. Delay conventions: see [`crate::measure`].

use super::sketch::{Dist, Stats};
use crate::packet::{Kind, Packet};
use crate::time::{Dur, Time};

/// Bytes a time-series row of one flow costs until the run's tables reach Python: the sampled
/// columns, the per-bin counters and delay figures, the table's computed columns and the copy
/// handed to Python. Calibrated with `scripts/memory.py` (peak RSS of whole `accelbrake run`
/// processes: one Cubic flow at 96 Mbit/s grew 16 MB from 60 s to 3600 s, about 450 bytes per
/// bin for one flow and two hops), rounded up.
pub const FLOW_ROW_BYTES: f64 = 320.0;
/// Bytes a time-series row of one hop costs (as [`FLOW_ROW_BYTES`]).
pub const HOP_ROW_BYTES: f64 = 192.0;
/// Bytes a delivered data packet costs with per-packet records: its delivery record, its table
/// row and the copy handed to Python, and its exact-percentile entries. Calibrated with
/// `scripts/memory.py`: 60 s of Cubic at 96 Mbit/s with records took 131 MB more than without,
/// about 273 bytes per data packet with its two departures (data hop, ACK hop); the two
/// constants below give 320, rounded up.
pub const DELIVERY_BYTES: f64 = 128.0;
/// Bytes one hop departure costs with per-packet records (record, table row, copy).
pub const DEPARTURE_BYTES: f64 = 96.0;

/// Bytes a flow costs for the whole run whatever it does, before its endpoints are built and
/// after they are dropped: its run-time entry (paths, counters, measurement state), its scenario
/// entry (the caller's and the simulation's copies) and its summary row. Calibrated with the `run`
/// example (`--bench`, peak RSS) on an abc-fig13 scenario with every one of its 14,494 short flows
/// moved past the end of the run: 44.7 MB, against 4.1 MB for its 6 long flows alone, i.e. 2.8 kB
/// per flow; rounded up.
pub const FLOW_FIXED_BYTES: f64 = 3072.0;

/// Estimated bytes of a run's recorded data: `flow_rows` time-series rows of flows (a flow has a
/// row only in the bins it is active in), `nhops` hops' rows over `nbins`
/// bins, the fixed cost of `nflows` flows ([`FLOW_FIXED_BYTES`]), and with `record_packets` the
/// records of `data_packets` deliveries and of their departures from `hops_per_packet` hops (data
/// and ACK paths).
pub fn estimate_recorded_bytes(
    nbins: u64,
    flow_rows: f64,
    nflows: u64,
    nhops: u64,
    data_packets: f64,
    hops_per_packet: f64,
    record_packets: bool,
) -> f64 {
    let series = flow_rows * FLOW_ROW_BYTES + nbins as f64 * nhops as f64 * HOP_ROW_BYTES;
    let flows = nflows as f64 * FLOW_FIXED_BYTES;
    let records = if record_packets {
        data_packets * (DELIVERY_BYTES + hops_per_packet * DEPARTURE_BYTES)
    } else {
        0.0
    };
    series + flows + records
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
    /// Wire bytes that arrived at the hop (offered to its queue, dropped or not) per time bin:
    /// Mahimahi's "ingress" (`mm-throughput-graph`).
    pub ingress_bins: Vec<u64>,
}

/// Per-bin byte counters of one flow, held from the first bin the flow touched on (time only moves
/// forward, so bins are touched in order). The first touch allocates zeroed room up to the run's
/// last bin (one allocation, as the whole-run vector had; pages are mapped only when written), so
/// every later bin is a plain index, and a retired flow gives back the bins after its last count
/// ([`Bins::shrink`]): a short flow of a long run keeps a few
/// counters, not one per bin of the run (issue 21: memory bounded by concurrent flows).
#[derive(Clone, Debug, Default)]
pub struct Bins {
    /// Bin of `v[0]`.
    first: usize,
    v: Vec<u64>,
}

impl Bins {
    /// Add `x` to bin `b` of `nbins`.
    #[inline]
    pub fn add(&mut self, b: usize, nbins: usize, x: u64) {
        match self.v.get_mut(b.wrapping_sub(self.first)) {
            Some(c) => *c += x,
            None => self.grow(b, nbins, x),
        }
    }

    /// [`Bins::add`] to a bin not held yet.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, b: usize, nbins: usize, x: u64) {
        if self.v.is_empty() {
            // Zeroed room to the run's last bin in one allocation (zero pages are mapped only
            // when written, as with the whole-run vector before), so later bins take the fast path.
            self.first = b;
            self.v = vec![0; nbins.saturating_sub(b).max(1)];
        } else if b < self.first {
            // Not reached (time moves forward); kept correct anyway.
            let n = self.first - b;
            self.v.splice(0..0, std::iter::repeat_n(0, n));
            self.first = b;
        }
        let i = b - self.first;
        if i >= self.v.len() {
            self.v.resize(i + 1, 0);
        }
        self.v[i] += x;
    }

    /// Give back the room for bins never reached (a retired flow): trailing empty bins read as 0
    /// either way.
    pub fn shrink(&mut self) {
        let used = self.v.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
        self.v.truncate(used);
        self.v.shrink_to_fit();
    }

    /// The count of bin `b` (0 outside the bins touched).
    #[inline]
    pub fn get(&self, b: usize) -> u64 {
        b.checked_sub(self.first)
            .and_then(|i| self.v.get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Sum over every bin.
    pub fn total(&self) -> u64 {
        self.v.iter().sum()
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.v.capacity() * 8
    }
}

/// A flow's delay figures fixed when the flow retired (`FlowMetrics::retire`): what the summary
/// reads from the per-flow distributions, which are then freed.
#[derive(Clone, Copy, Debug)]
pub struct RetiredStats {
    /// Queueing delay, ms.
    pub queueing: Stats,
    /// Per-packet delay (propagation RTT + queueing delay), ms.
    pub per_packet: Stats,
    /// One-way delay, ms.
    pub one_way: Stats,
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
    pub bins: Bins,
    /// Wire bytes of this flow's data packets that left the run's bottleneck link, per time bin
    /// (the same point where the link's capacity is measured).
    pub egress_bins: Bins,
    /// When the last data packet arrived at the receiver.
    pub last_rx: Time,
    /// Per-bin per-packet delay (propagation RTT + queueing delay) of the packets received in
    /// each bin: mean and 95th percentile (index floor(0.95·n)), ms; NaN for a bin without
    /// packets. Filled as bins close, and at the end of the run.
    pub delay_bins: DelayBins,
    /// Set when the flow retired (finished, nothing of it left in the network): its delay figures,
    /// computed from `qdelay_ns` and `owd_ns` before they were freed.
    pub retired: Option<Box<RetiredStats>>,
}

impl FlowMetrics {
    /// Record a delivered packet's queueing and one-way delays, ns.
    #[inline]
    pub(crate) fn push_delays(&mut self, queued_ns: u64, owd_ns: u64) {
        self.qdelay_ns.push(queued_ns);
        self.owd_ns.push(owd_ns);
    }

    /// Heap bytes held by these measurements (distributions, per-bin series, the delay buffer).
    pub fn heap_bytes(&self) -> usize {
        self.qdelay_ns.heap_bytes()
            + self.owd_ns.heap_bytes()
            + self.bins.heap_bytes()
            + self.egress_bins.heap_bytes()
            + self.delay_bins.heap_bytes()
            + self.retired.as_ref().map_or(0, |_| std::mem::size_of::<RetiredStats>())
    }

    /// The flow has finished and nothing of it is left in the network: nothing more will be
    /// recorded for it. Fix its delay figures (`prop_rtt` is its propagation RTT, the offset of
    /// the per-packet delay), close its last delay bin and free the distributions.
    pub(crate) fn retire(&mut self, prop_rtt: Dur) {
        if self.retired.is_some() {
            return;
        }
        self.delay_bins.close();
        self.delay_bins.shrink();
        self.bins.shrink();
        self.egress_bins.shrink();
        self.retired = Some(Box::new(RetiredStats {
            queueing: self.qdelay_ns.stats(0),
            per_packet: self.qdelay_ns.stats(prop_rtt.0),
            one_way: self.owd_ns.stats(0),
        }));
        let exact = matches!(self.qdelay_ns, Dist::Exact(_));
        self.qdelay_ns = Dist::new(exact);
        self.owd_ns = Dist::new(exact);
    }

    /// Queueing delay, ms (as [`Dist::stats`] with no offset).
    pub fn queueing_stats(&self) -> Stats {
        self.retired
            .as_ref()
            .map_or_else(|| self.qdelay_ns.stats(0), |r| r.queueing)
    }

    /// Per-packet delay = `prop_rtt` + queueing delay, ms.
    pub fn per_packet_stats(&self, prop_rtt: Dur) -> Stats {
        self.retired
            .as_ref()
            .map_or_else(|| self.qdelay_ns.stats(prop_rtt.0), |r| r.per_packet)
    }

    /// One-way delay, ms.
    pub fn one_way_stats(&self) -> Stats {
        self.retired
            .as_ref()
            .map_or_else(|| self.owd_ns.stats(0), |r| r.one_way)
    }
}

/// Mean and 95th percentile of the per-packet delay of the packets a flow received in each time
/// bin. Only the current bin's delays are held (bounded by the packets one bin can carry), and
/// the per-bin figures from the first bin with a packet to the last, so the memory is one pair of
/// floats per bin of the flow's activity whatever the packet count.
#[derive(Clone, Debug, Default)]
pub struct DelayBins {
    /// Bin the buffered delays belong to.
    current: usize,
    /// Per-packet delays received in the current bin, ns.
    buf: Vec<u64>,
    /// Bin of `mean_ms[0]` and `p95_ms[0]`.
    first: usize,
    /// Mean per bin from `first` on, ms (NaN for a bin without packets).
    mean_ms: Vec<f64>,
    /// 95th percentile per bin from `first` on, ms.
    p95_ms: Vec<f64>,
}

impl DelayBins {
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.buf.capacity() + self.mean_ms.capacity() + self.p95_ms.capacity()) * 8
    }

    fn push(&mut self, bin: usize, nbins: usize, delay_ns: u64) {
        if bin != self.current {
            self.close();
            self.current = bin;
        }
        if self.mean_ms.capacity() == 0 {
            self.reserve(bin, nbins);
        }
        self.buf.push(delay_ns);
    }

    /// Room up to the run's last bin at once, from `bin` on (see [`Bins`]).
    #[cold]
    #[inline(never)]
    fn reserve(&mut self, bin: usize, nbins: usize) {
        self.first = bin;
        self.mean_ms.reserve_exact(nbins.saturating_sub(bin).max(1));
        self.p95_ms.reserve_exact(nbins.saturating_sub(bin).max(1));
    }

    /// Give back the room reserved for bins never reached and the buffer (a retired flow).
    fn shrink(&mut self) {
        self.buf = Vec::new();
        self.mean_ms.shrink_to_fit();
        self.p95_ms.shrink_to_fit();
    }

    /// Fold the buffered delays into their bin's mean and 95th percentile.
    pub(crate) fn close(&mut self) {
        let n = self.buf.len();
        if n == 0 {
            return;
        }
        let sum: u128 = self.buf.iter().map(|&d| u128::from(d)).sum();
        let k = ((0.95 * n as f64) as usize).min(n - 1);
        let (_, p95, _) = self.buf.select_nth_unstable(k);
        let p95 = *p95 as f64 / 1e6;
        if self.mean_ms.is_empty() {
            self.first = self.current;
        }
        // Bins close in time order, so `current` ≥ `first`.
        let i = self.current - self.first;
        if i >= self.mean_ms.len() {
            self.mean_ms.resize(i + 1, f64::NAN);
            self.p95_ms.resize(i + 1, f64::NAN);
        }
        self.mean_ms[i] = sum as f64 / n as f64 / 1e6;
        self.p95_ms[i] = p95;
        self.buf.clear();
    }

    /// Mean per-packet delay of bin `b`, ms (NaN for a bin without packets).
    pub fn mean_ms(&self, b: usize) -> f64 {
        Self::at(&self.mean_ms, self.first, b)
    }

    /// 95th percentile of the per-packet delay of bin `b`, ms (NaN for a bin without packets).
    pub fn p95_ms(&self, b: usize) -> f64 {
        Self::at(&self.p95_ms, self.first, b)
    }

    fn at(v: &[f64], first: usize, b: usize) -> f64 {
        b.checked_sub(first).and_then(|i| v.get(i)).copied().unwrap_or(f64::NAN)
    }
}

/// One flow's state at a sampling instant, as the engine reads it from the sender.
#[derive(Clone, Copy, Debug)]
pub struct FlowSample {
    /// Congestion window, segments.
    pub cwnd: f64,
    /// ABC's accel-brake window, if the scheme has one.
    pub w_abc: Option<f64>,
    /// The Cubic window of a dual-window scheme, if any.
    pub w_cubic: Option<f64>,
    /// Smoothed RTT.
    pub srtt: Option<Dur>,
    /// Pacing rate, bytes per second.
    pub pacing_rate: Option<f64>,
    /// Segments in flight.
    pub in_flight: u32,
}

/// One hop's state at a sampling instant.
#[derive(Clone, Copy, Debug)]
pub struct HopSample {
    /// Packets queued.
    pub queue_packets: usize,
    /// Bytes queued.
    pub queue_bytes: u64,
    /// The queue's gauge (ABC's target rate fraction), if it has one.
    pub gauge: Option<f64>,
}

/// Flow time-series columns.
#[derive(Default)]
pub(super) struct FlowSamples {
    pub(super) t: Vec<f64>,
    pub(super) flow: Vec<i64>,
    pub(super) cwnd: Vec<f64>,
    pub(super) w_abc: Vec<f64>,
    pub(super) w_cubic: Vec<f64>,
    pub(super) srtt_ms: Vec<f64>,
    pub(super) pacing_mbps: Vec<f64>,
    pub(super) in_flight: Vec<i64>,
}

/// Hop time-series columns.
#[derive(Default)]
pub(super) struct HopSamples {
    pub(super) t: Vec<f64>,
    pub(super) hop: Vec<i64>,
    pub(super) queue_pkts: Vec<i64>,
    pub(super) queue_bytes: Vec<i64>,
    pub(super) gauge: Vec<f64>,
}

/// One record per delivered data packet.
#[derive(Default)]
pub(super) struct Deliveries {
    pub(super) flow: Vec<i64>,
    pub(super) seq: Vec<i64>,
    pub(super) sent_ns: Vec<i64>,
    pub(super) recv_ns: Vec<i64>,
    pub(super) queued_ns: Vec<i64>,
}

/// One record per hop departure.
#[derive(Default)]
pub(super) struct Departures {
    pub(super) hop: Vec<i64>,
    pub(super) flow: Vec<i64>,
    pub(super) is_ack: Vec<i64>,
    pub(super) seq: Vec<i64>,
    pub(super) enq_ns: Vec<i64>,
    pub(super) deq_ns: Vec<i64>,
    pub(super) size: Vec<i64>,
}

/// Collects measurements during a run.
pub struct Recorder {
    /// Time-series bin width.
    pub bin: Dur,
    /// The hop whose per-flow egress is counted ([`FlowMetrics::egress_bins`]): the run's
    /// bottleneck (the least-capacity hop of flow 0's data path over the run).
    pub(crate) egress_hop: usize,
    pub(super) nbins: usize,
    /// The bin `bin_of` found last and the times `[from, to)` it covers: time only moves forward,
    /// so nearly every lookup is this bin and costs two comparisons instead of a division.
    cur_bin: (usize, u64, u64),
    pub(super) record_packets: bool,
    pub(super) fs: FlowSamples,
    pub(super) hs: HopSamples,
    pub(super) deliveries: Deliveries,
    pub(super) departures: Departures,
    /// Queueing delay of every delivered data packet, all flows, ns.
    pub(super) all_q: Dist,
    /// Per-packet delay (propagation RTT + queueing delay) of every delivered data packet, ns.
    pub(super) all_d: Dist,
}

impl Recorder {
    pub(crate) fn new(bin: Dur, end: Time, record_packets: bool, _hops: usize, _flows: usize) -> Recorder {
        let nbins = (end.0.div_ceil(bin.0.max(1))).max(1) as usize;
        Recorder {
            bin,
            egress_hop: 0,
            nbins,
            cur_bin: (0, 0, 0),
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

    fn bin_of(&mut self, t: Time) -> usize {
        let (b, from, to) = self.cur_bin;
        if from <= t.0 && t.0 < to {
            return b;
        }
        let b = ((t.0 / self.bin.0) as usize).min(self.nbins - 1);
        let from = b as u64 * self.bin.0;
        let to = if b + 1 == self.nbins {
            u64::MAX
        } else {
            from + self.bin.0
        };
        self.cur_bin = (b, from, to);
        b
    }

    /// A data packet of a flow with propagation RTT `prop_rtt` reached its receiver at `now`.
    pub(crate) fn delivered(&mut self, now: Time, pkt: &Packet, prop_rtt: Dur, m: &mut FlowMetrics) {
        m.push_delays(pkt.queued_ns, (now - pkt.ts).0);
        self.all_q.push(pkt.queued_ns);
        self.all_d.push(pkt.queued_ns + prop_rtt.0);
        m.last_rx = now;
        let b = self.bin_of(now);
        m.bins.add(b, self.nbins, pkt.size as u64);
        m.delay_bins.push(b, self.nbins, pkt.queued_ns + prop_rtt.0);
        if self.record_packets {
            let d = &mut self.deliveries;
            d.flow.push(pkt.flow as i64);
            d.seq.push(pkt.seq as i64);
            d.sent_ns.push(pkt.ts.0 as i64);
            d.recv_ns.push(now.0 as i64);
            d.queued_ns.push(pkt.queued_ns as i64);
        }
    }

    /// A packet of `wire` bytes arrived at a hop at `now` (before its queue admits or drops it).
    pub(crate) fn ingress(&mut self, now: Time, wire: u32, m: &mut HopMetrics) {
        if m.ingress_bins.is_empty() {
            m.ingress_bins = vec![0; self.nbins];
        }
        m.ingress_bins[self.bin_of(now)] += wire as u64;
    }

    /// A packet left hop `h`'s link at `now` after `sojourn` in the hop, `wire` bytes on the link.
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

    /// A data packet of the flow with measurements `m` left the egress hop's link at `now`,
    /// `wire` bytes on the link.
    #[inline]
    pub(crate) fn egress(&mut self, now: Time, wire: u32, m: &mut FlowMetrics) {
        let b = self.bin_of(now);
        m.egress_bins.add(b, self.nbins, wire as u64);
    }

    /// Close every flow's current delay bin (at the end of the run).
    pub(crate) fn close_delay_bins<'a>(&self, flows: impl IntoIterator<Item = &'a mut FlowMetrics>) {
        for m in flows {
            m.delay_bins.close();
        }
    }

    /// A time-series sample at `now`: the state of the flows given (index, state), in index order,
    /// then every hop's.
    pub(crate) fn sample(
        &mut self,
        now: Time,
        flows: impl IntoIterator<Item = (usize, FlowSample)>,
        hops: impl IntoIterator<Item = HopSample>,
    ) {
        let t = now.secs_f64();
        for (i, m) in flows {
            let s = &mut self.fs;
            s.t.push(t);
            s.flow.push(i as i64);
            s.cwnd.push(m.cwnd);
            s.w_abc.push(m.w_abc.unwrap_or(f64::NAN));
            s.w_cubic.push(m.w_cubic.unwrap_or(f64::NAN));
            s.srtt_ms.push(m.srtt.map_or(f64::NAN, |d| d.millis_f64()));
            s.pacing_mbps.push(m.pacing_rate.map_or(f64::NAN, |r| r * 8.0 / 1e6));
            s.in_flight.push(m.in_flight as i64);
        }
        for (i, h) in hops.into_iter().enumerate() {
            let s = &mut self.hs;
            s.t.push(t);
            s.hop.push(i as i64);
            s.queue_pkts.push(h.queue_packets as i64);
            s.queue_bytes.push(h.queue_bytes as i64);
            s.gauge.push(h.gauge.unwrap_or(f64::NAN));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    #[test]
    fn deliveries_fill_bins_and_both_delay_conventions() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(1000), true, 1, 1);
        let mut m = rec.flow_metrics();
        let mut p = Packet::data(0, 7, 1500, Ecn::NotEct, Time::from_millis(10));
        p.queued_ns = Dur::from_millis(5).0;
        rec.delivered(Time::from_millis(150), &p, Dur::from_millis(100), &mut m);
        rec.close_delay_bins([&mut m]);
        assert_eq!((m.bins.get(0), m.bins.get(1), m.bins.get(9)), (0, 1500, 0));
        assert_eq!(
            m.bins.heap_bytes(),
            9 * 8,
            "room from the first bin touched to the last"
        );
        assert_eq!(m.last_rx, Time::from_millis(150));
        assert_eq!(m.qdelay_ns.stats(0).p50, 5.0);
        assert_eq!(m.owd_ns.stats(0).p50, 140.0);
        assert_eq!(rec.all_d.stats(0).p50, 105.0, "per-packet delay = prop RTT + queueing");
        assert_eq!(rec.deliveries.seq, vec![7]);
    }

    #[test]
    fn delay_bins_hold_each_bins_mean_and_mahimahi_p95() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(400), false, 1, 1);
        let mut m = rec.flow_metrics();
        // Bin 0: queueing 1..=20 ms on a 100 ms path, so per-packet delays 101..=120 ms.
        for q in 1..=20u64 {
            let mut p = Packet::data(0, q as u32, 1500, Ecn::NotEct, Time::ZERO);
            p.queued_ns = Dur::from_millis(q).0;
            rec.delivered(Time::from_millis(10 + q), &p, Dur::from_millis(100), &mut m);
        }
        // Bin 2: one packet; bin 1 has none.
        let mut p = Packet::data(0, 99, 1500, Ecn::NotEct, Time::ZERO);
        p.queued_ns = Dur::from_millis(7).0;
        rec.delivered(Time::from_millis(250), &p, Dur::from_millis(100), &mut m);
        rec.close_delay_bins([&mut m]);
        let db = &m.delay_bins;
        assert_eq!(db.mean_ms(0), 110.5);
        // floor(0.95·20) = 19: the largest of 20 values.
        assert_eq!(db.p95_ms(0), 120.0);
        assert!(db.mean_ms(1).is_nan() && db.p95_ms(1).is_nan());
        assert_eq!((db.mean_ms(2), db.p95_ms(2)), (107.0, 107.0));
        assert!(db.mean_ms(3).is_nan());
        // Closing twice changes nothing.
        m.delay_bins.close();
        assert_eq!(m.delay_bins.p95_ms(2), 107.0);
    }

    #[test]
    fn egress_counts_wire_bytes_per_bin() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(300), false, 1, 1);
        let mut m = rec.flow_metrics();
        rec.egress(Time::from_millis(50), 1500, &mut m);
        rec.egress(Time::from_millis(99), 1500, &mut m);
        rec.egress(Time::from_millis(100), 40, &mut m);
        assert_eq!(
            (m.egress_bins.get(0), m.egress_bins.get(1), m.egress_bins.get(2)),
            (3000, 40, 0)
        );
        assert_eq!(m.egress_bins.total(), 3040);
    }

    #[test]
    fn the_estimate_grows_with_bins_and_with_records_only_when_on() {
        let off = estimate_recorded_bytes(1000, 1000.0, 1, 2, 1e6, 2.0, false);
        assert_eq!(off, 1000.0 * (FLOW_ROW_BYTES + 2.0 * HOP_ROW_BYTES) + FLOW_FIXED_BYTES);
        // Flows count by their rows, not by the run's bins: 10^4 flows of 3 rows each.
        let many = estimate_recorded_bytes(1000, 3e4, 10_000, 2, 1e6, 2.0, false);
        assert_eq!(
            many,
            3e4 * FLOW_ROW_BYTES + 1000.0 * 2.0 * HOP_ROW_BYTES + 1e4 * FLOW_FIXED_BYTES
        );
        let on = estimate_recorded_bytes(1000, 1000.0, 1, 2, 1e6, 2.0, true);
        assert_eq!(on - off, 1e6 * (DELIVERY_BYTES + 2.0 * DEPARTURE_BYTES));
    }

    #[test]
    fn samples_keep_flows_then_hops_in_index_order() {
        let mut rec = Recorder::new(Dur::from_millis(10), Time::from_millis(100), false, 1, 2);
        let f = |cwnd| FlowSample {
            cwnd,
            w_abc: None,
            w_cubic: Some(3.0),
            srtt: Some(Dur::from_millis(20)),
            pacing_rate: Some(1e6),
            in_flight: 4,
        };
        let h = HopSample {
            queue_packets: 2,
            queue_bytes: 3000,
            gauge: None,
        };
        rec.sample(Time::from_millis(10), [(0, f(1.0)), (1, f(2.0))], [h]);
        assert_eq!(rec.fs.flow, vec![0, 1]);
        assert_eq!(rec.fs.cwnd, vec![1.0, 2.0]);
        assert!(rec.fs.w_abc[0].is_nan());
        assert_eq!(rec.fs.srtt_ms[0], 20.0);
        assert_eq!(rec.fs.pacing_mbps[0], 8.0);
        assert_eq!(rec.hs.queue_bytes, vec![3000]);
        assert!(rec.deliveries.seq.is_empty());
    }
}
