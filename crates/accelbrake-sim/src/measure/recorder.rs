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

/// Bytes one flow counted in its open time-series bin (the bin its latest count fell in). Time
/// only moves forward, so a flow's counts fall in its bins in order and only the open bin is
/// held: when a count falls in a later bin, or when the bin's row is written, the open bin's bytes
/// go to the flow's [`PendingRow`] for that bin (`FlowMetrics::close_bins_before`) and the bin
/// starts over. The cost per flow is two words whatever the run's length, and a packet adds to its
/// flow's own entry instead of to a per-flow vector spanning the run (the per-flow bin
/// vectors were a quarter of the memory at 1000 flows and a cache miss per packet, and building
/// the table looked every row's figures up in them, another miss per row and column).
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenBin {
    /// The bin `bytes` belong to.
    bin: usize,
    /// Bytes counted in `bin` and not yet written to its row.
    bytes: u64,
}

impl OpenBin {
    /// Open bin `b` (a later bin than the open one): return the open bin and its bytes, if any
    /// (to be written to its row).
    fn open(&mut self, b: usize) -> Option<(usize, u64)> {
        let out = std::mem::replace(self, OpenBin { bin: b, bytes: 0 });
        (out.bytes > 0).then_some((out.bin, out.bytes))
    }

    /// Take the open bin's bytes if the bin is before `b` (`usize::MAX`: whatever the bin).
    #[inline]
    fn take_before(&mut self, b: usize) -> Option<(usize, u64)> {
        if self.bin < b && self.bytes > 0 {
            let x = std::mem::take(&mut self.bytes);
            Some((self.bin, x))
        } else {
            None
        }
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
    /// Data bytes (IP) received over the run.
    pub rx_bytes: u64,
    /// Data bytes (IP) received in the open time-series bin (`flows_ts.throughput_mbps`).
    pub rx_bin: OpenBin,
    /// Wire bytes of this flow's data packets that left the run's bottleneck link in the open
    /// time-series bin (the same point where the link's capacity is measured;
    /// `flows_ts.egress_mbps`).
    pub egress_bin: OpenBin,
    /// The flow's `flows_ts` row of the bin being sampled, held until the bin has ended: its
    /// figures are filled in as its bin closes, and it joins the table at the next sample (or
    /// at the end of the run), so the table's columns are only ever appended to.
    pub(crate) pending: Option<PendingRow>,
    /// When the last data packet arrived at the receiver.
    pub last_rx: Time,
    /// Per-packet delays (propagation RTT + queueing delay) of the packets received in the open
    /// bin, whose mean and 95th percentile (index floor(0.95·n)) go to the flow's row when the bin
    /// closes (NaN in a row whose bin had no packets).
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
            + self.delay_bins.heap_bytes()
            + self.retired.as_ref().map_or(0, |_| std::mem::size_of::<RetiredStats>())
    }

    /// The flow has finished and nothing of it is left in the network: nothing more will be
    /// recorded for it. Fix its delay figures (`prop_rtt` is its propagation RTT, the offset of
    /// the per-packet delay) and free the distributions (its open bins were written to its row
    /// by `FlowMetrics::close_bins_before` before).
    pub(crate) fn retire(&mut self, prop_rtt: Dur) {
        if self.retired.is_some() {
            return;
        }
        self.delay_bins.buf = Vec::new();
        self.retired = Some(Box::new(RetiredStats {
            queueing: self.qdelay_ns.stats(0),
            per_packet: self.qdelay_ns.stats(prop_rtt.0),
            one_way: self.owd_ns.stats(0),
        }));
        let exact = matches!(self.qdelay_ns, Dist::Exact(_));
        self.qdelay_ns = Dist::new(exact);
        self.owd_ns = Dist::new(exact);
    }

    /// Close the flow's open bins before bin `b` (`usize::MAX`: all of them) into its pending
    /// row: at the sample that ends their bin, when the flow retires and at the end of the run.
    pub(crate) fn close_bins_before(&mut self, b: usize) {
        if let Some(closed) = self.rx_bin.take_before(b) {
            self.put_rx(closed);
        }
        if let Some(closed) = self.egress_bin.take_before(b) {
            self.put_egress(closed);
        }
        if let Some(closed) = self.delay_bins.close_before(b) {
            self.put_delays(closed);
        }
    }

    /// A delivery falls in bin `b`, later than the open one: close the open bin's bytes and delays
    /// into the pending row and open `b` (once per bin: off the per-packet path).
    #[cold]
    #[inline(never)]
    fn open_rx_bin(&mut self, b: usize) {
        if b != self.rx_bin.bin {
            if let Some(closed) = self.rx_bin.open(b) {
                self.put_rx(closed);
            }
        }
        if b != self.delay_bins.current {
            if let Some(closed) = self.delay_bins.open(b) {
                self.put_delays(closed);
            }
        }
    }

    /// An egress count falls in bin `b`, later than the open one (as `FlowMetrics::open_rx_bin`).
    #[cold]
    #[inline(never)]
    fn open_egress_bin(&mut self, b: usize) {
        if let Some(closed) = self.egress_bin.open(b) {
            self.put_egress(closed);
        }
    }

    /// The pending row if it is bin `bin`'s. A flow's counts fall in bins it has rows for (it has
    /// a row in every bin from its start to its retirement); counts in a bin without a row (none
    /// known) are not in the table, as before.
    #[inline]
    fn row_of(&mut self, bin: usize) -> Option<&mut PendingRow> {
        self.pending.as_mut().filter(|r| r.bin == bin)
    }

    #[inline]
    fn put_rx(&mut self, (bin, bytes): (usize, u64)) {
        if let Some(r) = self.row_of(bin) {
            r.rx = bytes as f64;
        }
    }

    #[inline]
    fn put_egress(&mut self, (bin, bytes): (usize, u64)) {
        if let Some(r) = self.row_of(bin) {
            r.egress = bytes as f64;
        }
    }

    fn put_delays(&mut self, (bin, mean, p95): (usize, f64, f64)) {
        if let Some(r) = self.row_of(bin) {
            r.delay_mean_ms = mean;
            r.delay_p95_ms = p95;
        }
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

/// The per-packet delays a flow received in its open time-series bin (bounded by the packets one
/// bin can carry), whose mean and 95th percentile go to the flow's row when the bin closes.
#[derive(Clone, Debug, Default)]
pub struct DelayBins {
    /// Bin the buffered delays belong to.
    current: usize,
    /// Per-packet delays received in the current bin, ns.
    buf: Vec<u64>,
}

impl DelayBins {
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity() * 8
    }

    /// Open bin `bin` (a later bin than the buffered delays'): close theirs first and return it
    /// (see `DelayBins::close`).
    fn open(&mut self, bin: usize) -> Option<(usize, f64, f64)> {
        let closed = self.close();
        self.current = bin;
        closed
    }

    /// Close the buffered delays' bin if it is before `b`.
    #[inline]
    fn close_before(&mut self, b: usize) -> Option<(usize, f64, f64)> {
        if self.current < b {
            self.close()
        } else {
            None
        }
    }

    /// Fold the buffered delays into their bin's mean and 95th percentile, ms: `(bin, mean, p95)`,
    /// or None without buffered delays.
    fn close(&mut self) -> Option<(usize, f64, f64)> {
        let n = self.buf.len();
        if n == 0 {
            return None;
        }
        let sum: u128 = self.buf.iter().map(|&d| u128::from(d)).sum();
        let k = ((0.95 * n as f64) as usize).min(n - 1);
        let (_, p95, _) = self.buf.select_nth_unstable(k);
        let p95 = *p95 as f64 / 1e6;
        let mean = sum as f64 / n as f64 / 1e6;
        self.buf.clear();
        Some((self.current, mean, p95))
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

/// One flow's `flows_ts` row while its bin lasts: the state sampled at the bin's start and the
/// figures of the bin, filled in as the bin closes.
#[derive(Clone, Copy, Debug)]
pub struct PendingRow {
    /// The row's bin.
    bin: usize,
    /// Its start, s (the sampling instant).
    t: f64,
    /// Flow index.
    flow: usize,
    /// The sampled state.
    sample: FlowSample,
    /// Data bytes received in the bin (made Mbit/s when the table is built).
    rx: f64,
    /// Wire bytes that left the bottleneck in the bin (made Mbit/s as `rx`).
    egress: f64,
    /// Mean per-packet delay of the packets received in the bin, ms (NaN: none).
    delay_mean_ms: f64,
    /// 95th percentile of the same, ms.
    delay_p95_ms: f64,
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
    /// Data bytes received in the row's bin (made Mbit/s when the table is built).
    pub(super) rx: Vec<f64>,
    /// Wire bytes that left the bottleneck in the row's bin (made Mbit/s as `rx`).
    pub(super) egress: Vec<f64>,
    /// Mean per-packet delay of the packets received in the row's bin, ms (NaN: none).
    pub(super) delay_mean_ms: Vec<f64>,
    /// 95th percentile of the same, ms.
    pub(super) delay_p95_ms: Vec<f64>,
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
    /// The hop whose per-flow egress is counted ([`FlowMetrics::egress_bin`]): the run's
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
        m.rx_bytes += pkt.size as u64;
        if b != m.rx_bin.bin || b != m.delay_bins.current {
            m.open_rx_bin(b);
        }
        m.rx_bin.bytes += pkt.size as u64;
        m.delay_bins.buf.push(pkt.queued_ns + prop_rtt.0);
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
        if b != m.egress_bin.bin {
            m.open_egress_bin(b);
        }
        m.egress_bin.bytes += wire as u64;
    }

    /// Write the flow's pending row (if any) to the table, its open bins closed first: at the
    /// sample after its bin (before the next row is taken), and at the end of the run. Rows
    /// are written in the order they were sampled: by bin, then by flow index.
    pub(crate) fn write_row(&mut self, m: &mut FlowMetrics) {
        let Some(r) = m.pending else { return };
        m.close_bins_before(r.bin + 1);
        let r = m.pending.take().expect("checked above");
        let (c, s) = (&mut self.fs, r.sample);
        c.t.push(r.t);
        c.flow.push(r.flow as i64);
        c.cwnd.push(s.cwnd);
        c.w_abc.push(s.w_abc.unwrap_or(f64::NAN));
        c.w_cubic.push(s.w_cubic.unwrap_or(f64::NAN));
        c.srtt_ms.push(s.srtt.map_or(f64::NAN, |d| d.millis_f64()));
        c.pacing_mbps.push(s.pacing_rate.map_or(f64::NAN, |r| r * 8.0 / 1e6));
        c.in_flight.push(s.in_flight as i64);
        c.rx.push(r.rx);
        c.egress.push(r.egress);
        c.delay_mean_ms.push(r.delay_mean_ms);
        c.delay_p95_ms.push(r.delay_p95_ms);
    }

    /// A flow's time-series row sampled at `now` (a bin start), flow index `i`, state `s`, held in
    /// `m` until its bin ends (`Recorder::write_row`, which must have written the previous one).
    pub(crate) fn sample_flow(&mut self, now: Time, i: usize, s: FlowSample, m: &mut FlowMetrics) {
        debug_assert!(m.pending.is_none(), "flow {i}: the previous row was not written");
        m.pending = Some(PendingRow {
            bin: self.bin_of(now),
            t: now.secs_f64(),
            flow: i,
            sample: s,
            rx: 0.0,
            egress: 0.0,
            delay_mean_ms: f64::NAN,
            delay_p95_ms: f64::NAN,
        });
    }

    /// The hops' time-series rows sampled at `now`, after the flows'.
    pub(crate) fn sample_hops(&mut self, now: Time, hops: impl IntoIterator<Item = HopSample>) {
        let t = now.secs_f64();
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

    fn sample(cwnd: f64) -> FlowSample {
        FlowSample {
            cwnd,
            w_abc: None,
            w_cubic: Some(3.0),
            srtt: Some(Dur::from_millis(20)),
            pacing_rate: Some(1e6),
            in_flight: 4,
        }
    }

    /// Sample flow 0's row at each bin start from `from` to `to` (exclusive), writing the row
    /// before as the engine does.
    fn sample_bins(rec: &mut Recorder, m: &mut FlowMetrics, from: usize, to: usize) {
        for b in from..to {
            rec.write_row(m);
            rec.sample_flow(Time::from_millis(100 * b as u64), 0, sample(1.0), m);
        }
    }

    #[test]
    fn deliveries_fill_bins_and_both_delay_conventions() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(1000), true, 1, 1);
        let mut m = rec.flow_metrics();
        let mut p = Packet::data(0, 7, 1500, Ecn::NotEct, Time::from_millis(10));
        p.queued_ns = Dur::from_millis(5).0;
        sample_bins(&mut rec, &mut m, 0, 2);
        rec.delivered(Time::from_millis(150), &p, Dur::from_millis(100), &mut m);
        sample_bins(&mut rec, &mut m, 2, 10);
        rec.write_row(&mut m);
        assert_eq!(rec.fs.rx[..3], [0.0, 1500.0, 0.0]);
        assert_eq!(rec.fs.t.len(), 10);
        assert_eq!(m.rx_bytes, 1500);
        assert!(m.pending.is_none(), "every row written");
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
        sample_bins(&mut rec, &mut m, 0, 1);
        // Bin 0: queueing 1..=20 ms on a 100 ms path, so per-packet delays 101..=120 ms.
        for q in 1..=20u64 {
            let mut p = Packet::data(0, q as u32, 1500, Ecn::NotEct, Time::ZERO);
            p.queued_ns = Dur::from_millis(q).0;
            rec.delivered(Time::from_millis(10 + q), &p, Dur::from_millis(100), &mut m);
        }
        sample_bins(&mut rec, &mut m, 1, 3);
        // Bin 2: one packet; bin 1 has none.
        let mut p = Packet::data(0, 99, 1500, Ecn::NotEct, Time::ZERO);
        p.queued_ns = Dur::from_millis(7).0;
        rec.delivered(Time::from_millis(250), &p, Dur::from_millis(100), &mut m);
        sample_bins(&mut rec, &mut m, 3, 4);
        rec.write_row(&mut m);
        let (mean, p95) = (&rec.fs.delay_mean_ms, &rec.fs.delay_p95_ms);
        assert_eq!(mean[0], 110.5);
        // floor(0.95·20) = 19: the largest of 20 values.
        assert_eq!(p95[0], 120.0);
        assert!(mean[1].is_nan() && p95[1].is_nan());
        assert_eq!((mean[2], p95[2]), (107.0, 107.0));
        assert!(mean[3].is_nan());
        assert_eq!(rec.fs.rx, vec![30_000.0, 0.0, 1500.0, 0.0]);
        // Writing again changes nothing (no row pending).
        rec.write_row(&mut m);
        assert_eq!(rec.fs.t.len(), 4);
    }

    /// A packet at the very start of a bin may be delivered before that bin's row is sampled
    /// (same instant, earlier event): it counts in the new bin's row, not the previous one.
    #[test]
    fn a_count_before_its_bins_row_is_sampled_goes_to_that_row() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(300), false, 1, 1);
        let mut m = rec.flow_metrics();
        sample_bins(&mut rec, &mut m, 0, 1);
        let p = Packet::data(0, 1, 1000, Ecn::NotEct, Time::ZERO);
        rec.delivered(Time::from_millis(50), &p, Dur::from_millis(100), &mut m);
        rec.delivered(Time::from_millis(100), &p, Dur::from_millis(100), &mut m);
        rec.egress(Time::from_millis(100), 40, &mut m);
        sample_bins(&mut rec, &mut m, 1, 3);
        rec.write_row(&mut m);
        assert_eq!(rec.fs.rx, vec![1000.0, 1000.0, 0.0]);
        assert_eq!(rec.fs.egress, vec![0.0, 40.0, 0.0]);
        assert_eq!(rec.fs.delay_mean_ms[..2], [100.0, 100.0]);
    }

    #[test]
    fn egress_counts_wire_bytes_per_bin() {
        let mut rec = Recorder::new(Dur::from_millis(100), Time::from_millis(300), false, 1, 1);
        let mut m = rec.flow_metrics();
        sample_bins(&mut rec, &mut m, 0, 1);
        rec.egress(Time::from_millis(50), 1500, &mut m);
        rec.egress(Time::from_millis(99), 1500, &mut m);
        sample_bins(&mut rec, &mut m, 1, 2);
        rec.egress(Time::from_millis(100), 40, &mut m);
        sample_bins(&mut rec, &mut m, 2, 3);
        // A retired flow's open bins close into its last row, which is written at the next sample.
        m.close_bins_before(usize::MAX);
        rec.write_row(&mut m);
        assert_eq!(rec.fs.egress, vec![3000.0, 40.0, 0.0]);
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
        let (mut m0, mut m1) = (rec.flow_metrics(), rec.flow_metrics());
        let h = HopSample {
            queue_packets: 2,
            queue_bytes: 3000,
            gauge: None,
        };
        rec.sample_flow(Time::from_millis(10), 0, sample(1.0), &mut m0);
        rec.sample_flow(Time::from_millis(10), 1, sample(2.0), &mut m1);
        rec.sample_hops(Time::from_millis(10), [h]);
        assert!(rec.fs.t.is_empty(), "a flow's row waits for the end of its bin");
        rec.write_row(&mut m0);
        rec.write_row(&mut m1);
        assert_eq!(rec.fs.flow, vec![0, 1]);
        assert_eq!(rec.fs.t, vec![0.01, 0.01]);
        assert_eq!(rec.fs.cwnd, vec![1.0, 2.0]);
        assert!(rec.fs.w_abc[0].is_nan());
        assert_eq!(rec.fs.srtt_ms[0], 20.0);
        assert_eq!(rec.fs.pacing_mbps[0], 8.0);
        assert!(rec.fs.delay_mean_ms[0].is_nan(), "no packets in the bin");
        assert_eq!(rec.hs.queue_bytes, vec![3000]);
        assert!(rec.deliveries.seq.is_empty());
    }
}
