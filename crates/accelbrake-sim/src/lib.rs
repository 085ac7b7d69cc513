//! # accelbrake-sim
//!
//! A deterministic packet-level simulator for explicit and delay-aware congestion control on
//! wireless links: ABC (Accel-Brake Control, NSDI 2020) with its router, sender and receiver, and the
//! schemes it is compared with.
//!
//! Layers, bottom up:
//! * [`time`]: integer-nanosecond [`time::Time`] and [`time::Dur`]; [`rng`]: seeded streams.
//! * [`sched`]: the event queue, ordered by (time, insertion order) — same-time events run FIFO.
//! * [`packet`]: compact `Copy` packets with ECN codepoints and ACK echo fields.
//! * [`link`]: Mahimahi trace links and rate-schedule links; [`queue`]: queues/AQMs incl. the ABC
//!   router, behind one trait; [`wifi`]: the 802.11n A-MPDU link and ABC's Wi-Fi link-rate estimator.
//! * [`sender`] / [`receiver`]: a TCP-like transport (SACK, RFC 6675 recovery, RFC 6298 RTO, delayed
//!   ACKs, ECN echo, pacing); [`cc`]: congestion controllers behind a small trait.
//! * Algorithm pieces shared by a queue and a controller, or by several controllers:
//!   [`codel_law`] (CoDel's `interval/√count` control law), [`cc::base_delay`] (RFC 6817 base-delay
//!   history).
//! * [`scenario`]: the serde description of a run; [`engine`]: the event loop; [`measure`]:
//!   per-packet records, time series, summaries (also reachable as [`metrics`]).
//!
//! Determinism: the same scenario (and seed) gives bit-identical results. Nothing reads the wall
//! clock or OS entropy, and no hash-map iteration order reaches the results.
//!
//! ```
//! use accelbrake_sim::scenario::Scenario;
//! let s = Scenario::from_json(r#"{"duration_ms": 2000,
//!     "hops": [{"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 100}, "delay_ms": 10},
//!              {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 10}],
//!     "flows": [{"scheme": "cubic", "fwd": [0], "rev": [1]}]}"#).unwrap();
//! let r = accelbrake_sim::simulate(&s).unwrap();
//! assert!(r.summary.utilization > 0.5);
//! ```

// One `unsafe` block, allowed where it is: the prefetch hint in `engine::arena::prefetch`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod catalog;
pub mod cc;
pub mod codel_law;
pub mod engine;
pub mod error;
pub mod headroom;
pub mod link;
pub mod measure;
pub mod metrics;
pub mod packet;
pub mod params;
pub mod queue;
pub mod receiver;
pub mod rng;
pub mod scenario;
pub mod sched;
mod search;
pub mod sender;
pub mod time;
pub mod warning;
pub mod wifi;

pub use engine::{simulate, simulate_interruptible, SimResult, Simulation};
pub use error::{Error, Result};
pub use measure::Summary;
pub use scenario::Scenario;
pub use warning::Warning;
