//! Measurement: per-packet records, time series and summaries. Nothing here knows the engine:
//! the engine hands in packets, counters and sample values, and gets a [`Summary`] and tables back.
//!
//! * [`sketch`]: delay distributions ([`Dist`]: exact or a bounded-memory [`Sketch`]) and their
//!   [`Stats`];
//! * [`recorder`]: the [`Recorder`] collecting during a run, and the per-hop/per-flow
//!   [`HopMetrics`]/[`FlowMetrics`];
//! * [`summary`]: the run's [`Summary`];
//! * [`table`]: columnar [`Table`]s of the time series and packet records.
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

pub mod recorder;
pub mod sketch;
pub mod summary;
pub mod table;

pub use recorder::{
    estimate_recorded_bytes, DelayBins, FlowMetrics, FlowSample, HopMetrics, HopSample, OpenBin, PendingRow, Recorder,
    RetiredStats,
};
pub use sketch::{Dist, Sketch, Stats, SKETCH_REL_ERROR};
pub use summary::{jain, FlowSummary, HopSummary, Summary};
pub use table::{Column, Table};
