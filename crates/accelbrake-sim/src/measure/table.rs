//! Columnar tables (pandas DataFrames on the Python side) and how a run's recorded series become
//! them: `flows_ts` and `hops_ts` (one row per flow or hop per sample, with the received rate and
//! the link capacity over the sample's bin), `delay_cdf` (quantiles of the per-packet delay), and
//! with per-packet records `packets` and `hop_packets`.

use super::recorder::Recorder;
use super::summary::{FlowInput, HopInput};
use crate::time::{Dur, Time};
use serde::Serialize;
use std::collections::BTreeMap;

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
    pub(crate) fn f64(&mut self, name: &str, v: Vec<f64>) {
        self.columns.push((name.into(), Column::F64(v)));
    }
    pub(crate) fn i64(&mut self, name: &str, v: Vec<i64>) {
        self.columns.push((name.into(), Column::I64(v)));
    }
    /// Look a column up.
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

/// Levels of the `delay_cdf` table: 0, 0.001, …, 1.
pub const DELAY_CDF_LEVELS: usize = 1001;

/// Turn the recorder's series into the run's tables (taking them out of the recorder). `end` is
/// the end of the run; `hops` and `flows` are indexed as in the samples.
pub(crate) fn build_tables(
    rec: &mut Recorder,
    end: Time,
    hops: &[HopInput<'_>],
    flows: &[FlowInput<'_>],
) -> BTreeMap<String, Table> {
    let bin = rec.bin;
    let mut tables = BTreeMap::new();
    // Flow time series: samples at bin starts plus the received rate over each bin (the rows
    // hold the bin's bytes, written when the bin closed; made Mbit/s here, where the run's end
    // is known).
    let mut fs = std::mem::take(&mut rec.fs);
    // Rows come in runs of one sampling instant (every flow's row of a bin): the span is
    // computed once per run of equal `t` (a libm `round` and the span's arithmetic per
    // row were 84 instructions per data packet at 1000 flows, 2.3 %; the same expression, so
    // the same figures).
    let mut last: Option<(u64, f64)> = None;
    for ((&t, rx), egress) in fs.t.iter().zip(fs.rx.iter_mut()).zip(fs.egress.iter_mut()) {
        let span = match last {
            Some((bits, span)) if bits == t.to_bits() => span,
            _ => {
                // Samples sit at bin starts; round (not truncate) back to the bin index.
                let from = Time((t * 1e9).round() as u64);
                let span = ((from + bin).min(end.max(from + Dur(1))) - from).secs_f64().max(1e-12);
                last = Some((t.to_bits(), span));
                span
            }
        };
        *rx = *rx * 8.0 / span / 1e6;
        *egress = *egress * 8.0 / span / 1e6;
    }
    let mut t = Table::default();
    t.f64("t_s", fs.t);
    t.i64("flow", fs.flow);
    t.f64("throughput_mbps", fs.rx);
    t.f64("egress_mbps", fs.egress);
    t.f64("delay_mean_ms", fs.delay_mean_ms);
    t.f64("delay_p95_ms", fs.delay_p95_ms);
    t.f64("cwnd", fs.cwnd);
    t.f64("w_abc", fs.w_abc);
    t.f64("w_cubic", fs.w_cubic);
    t.f64("srtt_ms", fs.srtt_ms);
    t.f64("pacing_mbps", fs.pacing_mbps);
    t.i64("in_flight", fs.in_flight);
    tables.insert("flows_ts".to_string(), t);

    let hs = std::mem::take(&mut rec.hs);
    let mut cap = Vec::with_capacity(hs.t.len());
    let mut thr = Vec::with_capacity(hs.t.len());
    let mut ing = Vec::with_capacity(hs.t.len());
    for (&t, &h) in hs.t.iter().zip(hs.hop.iter()) {
        let from = Time((t * 1e9).round() as u64);
        let to = (from + bin).min(end.max(from + Dur(1)));
        let span = (to - from).secs_f64().max(1e-12);
        let hop = &hops[h as usize];
        cap.push((hop.capacity_between)(from, to) * 8.0 / span / 1e6);
        let b = (from.0 / bin.0) as usize;
        thr.push(hop.m.bins.get(b).copied().unwrap_or(0) as f64 * 8.0 / span / 1e6);
        ing.push(hop.m.ingress_bins.get(b).copied().unwrap_or(0) as f64 * 8.0 / span / 1e6);
    }
    let mut t = Table::default();
    t.f64("t_s", hs.t);
    t.i64("hop", hs.hop);
    t.f64("capacity_mbps", cap);
    t.f64("throughput_mbps", thr);
    t.f64("ingress_mbps", ing);
    t.i64("queue_packets", hs.queue_pkts);
    t.i64("queue_bytes", hs.queue_bytes);
    t.f64("abc_f", hs.gauge);
    tables.insert("hops_ts".to_string(), t);

    // The distribution of the per-packet delay over all flows' packets at DELAY_CDF_LEVELS
    // evenly spaced levels (exact with per-packet records, else from the sketch).
    let mut t = Table::default();
    let levels: Vec<f64> = (0..DELAY_CDF_LEVELS)
        .map(|i| i as f64 / (DELAY_CDF_LEVELS - 1) as f64)
        .collect();
    let values = rec.all_d.quantiles_ms(&levels);
    if values.is_empty() {
        t.f64("level", Vec::new());
    } else {
        t.f64("level", levels);
    }
    t.f64("per_packet_delay_ms", values);
    tables.insert("delay_cdf".to_string(), t);

    if rec.record_packets {
        let d = std::mem::take(&mut rec.deliveries);
        let prop: Vec<i64> = d.flow.iter().map(|&f| flows[f as usize].prop_rtt.0 as i64).collect();
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
        let d = std::mem::take(&mut rec.departures);
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
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_looked_up_by_name() {
        let mut t = Table::default();
        t.f64("a", vec![1.0, 2.0]);
        t.i64("b", vec![3]);
        assert_eq!(t.get("a").map(Column::len), Some(2));
        assert!(matches!(t.get("b"), Some(Column::I64(v)) if v == &[3]));
        assert!(t.get("c").is_none());
        assert!(Column::F64(vec![]).is_empty());
    }
}
