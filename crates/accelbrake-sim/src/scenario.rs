//! Scenario description: hops (queue → link → delay), flows over chains of hops, run settings.
//!
//! A scenario is plain data (serde), usually written as JSON by the Python layer. Units are those a
//! networking person expects: milliseconds and Mbit/s. [`Scenario::validate`] checks every value and
//! names the offending key; nothing panics on bad input.
//!
//! ```json
//! {"duration_ms": 140000, "seed": 1,
//!  "hops": [{"name": "uplink", "link": {"type": "trace", "path": "traces/Verizon-LTE-short.up"},
//!            "queue": {"type": "abc", "packets": 250}, "delay_ms": 50},
//!           {"name": "ack-link", "link": {"type": "constant", "mbps": 12},
//!            "queue": {"type": "infinite"}, "delay_ms": 50}],
//!  "flows": [{"scheme": "abc", "fwd": [0], "rev": [1]}]}
//! ```

use crate::cc::{self, Params};
use crate::error::{Error, Result};
use crate::queue::abc::{AbcRouterConfig, DelaySource, RateSource};
use crate::queue::codel::CodelConfig;
use crate::queue::pie::PieConfig;
use crate::queue::Limit;
use crate::time::Dur;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn default_one() -> u32 {
    1
}
fn default_sample() -> f64 {
    100.0
}
fn default_true() -> bool {
    true
}

/// A whole simulation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Simulated time, ms.
    pub duration_ms: f64,
    /// Master seed for every random stream.
    #[serde(default)]
    pub seed: u64,
    /// The hops flows can cross.
    pub hops: Vec<HopSpec>,
    /// The flows.
    pub flows: Vec<FlowSpec>,
    /// Bin width of time series, ms.
    #[serde(default = "default_sample")]
    pub sample_ms: f64,
    /// Keep per-packet records (deliveries and per-hop departures).
    #[serde(default = "default_true")]
    pub record_packets: bool,
}

/// One hop: a queue feeding a link, then a propagation delay.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HopSpec {
    /// Name used in outputs.
    #[serde(default)]
    pub name: String,
    /// The link.
    pub link: LinkSpec,
    /// The queue in front of the link.
    pub queue: QueueSpec,
    /// One-way propagation delay after the link, ms (like `mm-delay`).
    #[serde(default)]
    pub delay_ms: f64,
}

/// A link.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum LinkSpec {
    /// A Mahimahi trace file.
    Trace {
        /// File path.
        path: String,
        /// Play the trace once instead of wrapping around (`mm-link --once`).
        #[serde(default)]
        once: bool,
    },
    /// A constant rate.
    Constant {
        /// Rate, Mbit/s.
        mbps: f64,
    },
    /// Piecewise-constant rate: `[[start_ms, mbps], ...]`, first at 0.
    Schedule {
        /// Steps.
        steps: Vec<(f64, f64)>,
        /// Repeat every this many ms.
        #[serde(default)]
        repeat_ms: Option<f64>,
    },
}

/// A queue.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueSpec {
    /// Drop-tail with a packet or byte limit.
    Droptail {
        /// Limit in packets.
        #[serde(default)]
        packets: Option<u64>,
        /// Limit in bytes.
        #[serde(default)]
        bytes: Option<u64>,
    },
    /// Never drops.
    Infinite,
    /// CoDel (RFC 8289). Defaults: Linux `codel` (target 5 ms, interval 100 ms, 1000 packets).
    Codel {
        /// Limit in packets (default 1000).
        #[serde(default)]
        packets: Option<u64>,
        /// Limit in bytes.
        #[serde(default)]
        bytes: Option<u64>,
        /// Target sojourn time, ms (default 5).
        #[serde(default)]
        target_ms: Option<f64>,
        /// Interval, ms (default 100).
        #[serde(default)]
        interval_ms: Option<f64>,
        /// Bytes below which CoDel never drops (default 1514).
        #[serde(default)]
        mtu: Option<u32>,
        /// Mark ECT packets CE instead of dropping them.
        #[serde(default)]
        ecn: bool,
    },
    /// PIE (RFC 8033 with Linux `sch_pie` defaults).
    Pie {
        /// Limit in packets (default 1000).
        #[serde(default)]
        packets: Option<u64>,
        /// Limit in bytes.
        #[serde(default)]
        bytes: Option<u64>,
        /// Target queueing delay, ms (default 15).
        #[serde(default)]
        qdelay_ref_ms: Option<f64>,
        /// Probability update period, ms (default 15).
        #[serde(default)]
        t_update_ms: Option<f64>,
        /// Burst allowance, ms (default 150).
        #[serde(default)]
        max_burst_ms: Option<f64>,
        /// α, 1/s (default 0.125).
        #[serde(default)]
        alpha: Option<f64>,
        /// β, 1/s (default 1.25).
        #[serde(default)]
        beta: Option<f64>,
        /// Mark ECT packets CE instead of dropping while p ≤ `ecn_prob_max`.
        #[serde(default)]
        ecn: bool,
        /// Largest p at which ECN marks instead of dropping (default 0.1).
        #[serde(default)]
        ecn_prob_max: Option<f64>,
        /// Derandomised drops (RFC 8033 §5.1).
        #[serde(default)]
        derandomize: bool,
        /// Scale p by packet size.
        #[serde(default)]
        bytemode: bool,
        /// Use Linux's departure-rate estimator instead of timestamps.
        #[serde(default)]
        dq_rate_estimator: bool,
    },
    /// ABC router.
    Abc {
        /// Limit in packets (default 250).
        #[serde(default)]
        packets: Option<u64>,
        /// Limit in bytes.
        #[serde(default)]
        bytes: Option<u64>,
        /// η (default 0.98).
        #[serde(default)]
        eta: Option<f64>,
        /// δ, ms (default 133).
        #[serde(default)]
        delta_ms: Option<f64>,
        /// d_t, ms (default 50).
        #[serde(default)]
        dt_ms: Option<f64>,
        /// T, ms (default 20).
        #[serde(default)]
        window_ms: Option<f64>,
        /// Token limit (default 5).
        #[serde(default)]
        token_limit: Option<f64>,
        /// `dequeue` (default) or `enqueue`.
        #[serde(default)]
        rate_source: Option<String>,
        /// `qlen` (default) or `sojourn`.
        #[serde(default)]
        delay_source: Option<String>,
    },
}

/// What the flow's application does.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum AppSpec {
    /// Always has data.
    Bulk,
    /// Sends this many bytes, then ends.
    Finite {
        /// Payload bytes.
        bytes: u64,
    },
    /// Application data arrives at this rate.
    Rate {
        /// Mbit/s of payload.
        mbps: f64,
    },
}

/// One flow (or `count` identical flows).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Congestion-control scheme (see `cc::SCHEMES`).
    pub scheme: String,
    /// Scheme parameter overrides.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Hops of the data path, in order.
    pub fwd: Vec<usize>,
    /// Hops of the ACK path, in order.
    pub rev: Vec<usize>,
    /// Extra one-way delay at the sender for data, ms (per-flow RTT differences).
    #[serde(default)]
    pub extra_delay_ms: f64,
    /// Start time, ms.
    #[serde(default)]
    pub start_ms: f64,
    /// Stop time (no new data after it), ms.
    #[serde(default)]
    pub stop_ms: Option<f64>,
    /// Application.
    #[serde(default = "default_app")]
    pub app: AppSpec,
    /// How many identical flows.
    #[serde(default = "default_one")]
    pub count: u32,
    /// ECN on for non-ABC schemes (sends ECT(0), RFC 3168 receiver). ABC schemes always use ECN.
    #[serde(default)]
    pub ecn: bool,
    /// Delayed ACKs (ACK every 2nd segment / 40 ms).
    #[serde(default = "default_true")]
    pub delayed_ack: bool,
    /// Sender host jitter, µs: each ACK is processed after a uniform random delay in
    /// `[0, host_jitter_us]` (order preserved), drawn from the flow's seeded stream. Models OS
    /// scheduling noise and breaks the phase locking a perfectly deterministic simulation shows
    /// between paced flows and deterministic markers (Floyd & Jacobson 1991). 0 disables it.
    #[serde(default = "default_jitter")]
    pub host_jitter_us: f64,
    /// Receiver timestamp clock granularity, µs (Linux TSval: 1000). Quantises the one-way
    /// delay samples delay-based controllers (LEDBAT, PropRate) see.
    #[serde(default = "default_rx_granularity")]
    pub rx_ts_granularity_us: f64,
}

fn default_rx_granularity() -> f64 {
    1000.0
}

fn default_jitter() -> f64 {
    DEFAULT_HOST_JITTER_US
}

/// Default sender host jitter, µs.
pub const DEFAULT_HOST_JITTER_US: f64 = 100.0;

fn default_app() -> AppSpec {
    AppSpec::Bulk
}

/// Check that `v` is finite and within `[lo, hi]`.
pub(crate) fn check_range(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(Error::Param {
            key: key.into(),
            msg: format!("got {v}; expected {what}"),
        })
    }
}

/// Most flows in one scenario.
const MAX_FLOWS: u64 = 100_000;
/// Most time-series rows (flows + hops) × bins: 5·10^7 rows of the flow table are about 4 GB.
const MAX_SERIES_ROWS: f64 = 5e7;

/// Longest simulated duration accepted (one week).
const MAX_DURATION_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

impl Scenario {
    /// Parse JSON, naming the problem on failure.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path.is_empty() || path == "." {
                Error::Scenario(inner.to_string())
            } else {
                Error::Scenario(format!("{path}: {inner}"))
            }
        })?;
        s.validate()?;
        Ok(s)
    }

    /// Check every value (everything but trace file contents).
    pub fn validate(&self) -> Result<()> {
        check_range(
            "duration_ms",
            self.duration_ms,
            1e-6,
            MAX_DURATION_MS,
            "a positive duration in ms (at most one week)",
        )?;
        check_range("sample_ms", self.sample_ms, 1.0, MAX_DURATION_MS, "a bin width ≥ 1 ms")?;
        if self.hops.is_empty() {
            return Err(Error::Param {
                key: "hops".into(),
                msg: "at least one hop is needed".into(),
            });
        }
        if self.hops.len() > 255 {
            return Err(Error::Param {
                key: "hops".into(),
                msg: "at most 255 hops".into(),
            });
        }
        for (i, h) in self.hops.iter().enumerate() {
            let k = format!("hops[{i}]");
            check_range(&format!("{k}.delay_ms"), h.delay_ms, 0.0, 1e7, "a delay ≥ 0 ms")?;
            match &h.link {
                LinkSpec::Trace { path, .. } => {
                    if path.is_empty() {
                        return Err(Error::Param {
                            key: format!("{k}.link.path"),
                            msg: "empty trace path".into(),
                        });
                    }
                }
                LinkSpec::Constant { mbps } => {
                    check_range(&format!("{k}.link.mbps"), *mbps, 1e-6, 1e6, "a rate > 0 Mbit/s")?
                }
                LinkSpec::Schedule { steps, repeat_ms } => {
                    if steps.is_empty() {
                        return Err(Error::Param {
                            key: format!("{k}.link.steps"),
                            msg: "at least one [start_ms, mbps] step".into(),
                        });
                    }
                    for (j, (t, r)) in steps.iter().enumerate() {
                        check_range(
                            &format!("{k}.link.steps[{j}][0]"),
                            *t,
                            0.0,
                            MAX_DURATION_MS,
                            "a start time ≥ 0 ms",
                        )?;
                        check_range(&format!("{k}.link.steps[{j}][1]"), *r, 0.0, 1e6, "a rate ≥ 0 Mbit/s")?;
                    }
                    if let Some(p) = repeat_ms {
                        check_range(
                            &format!("{k}.link.repeat_ms"),
                            *p,
                            1e-6,
                            MAX_DURATION_MS,
                            "a positive period in ms",
                        )?;
                    }
                }
            }
            queue_limit(&h.queue, &format!("{k}.queue"))?;
            match &h.queue {
                QueueSpec::Abc { .. } => {
                    abc_config(&h.queue, &format!("{k}.queue"))?;
                }
                QueueSpec::Codel { .. } => {
                    codel_config(&h.queue, &format!("{k}.queue"))?;
                }
                QueueSpec::Pie { .. } => {
                    pie_config(&h.queue, &format!("{k}.queue"))?;
                }
                _ => {}
            }
        }
        if self.flows.is_empty() {
            return Err(Error::Param {
                key: "flows".into(),
                msg: "at least one flow is needed".into(),
            });
        }
        // Time series hold one row per flow and per hop per bin: refuse what would not fit in
        // memory before allocating it (an allocation failure would abort the process).
        let nflows: u64 = self.flows.iter().map(|f| u64::from(f.count)).sum();
        if nflows > MAX_FLOWS {
            return Err(Error::Param {
                key: "flows".into(),
                msg: format!("{nflows} flows in all; at most {MAX_FLOWS}"),
            });
        }
        let rows = (self.duration_ms / self.sample_ms).ceil() * (nflows + self.hops.len() as u64) as f64;
        if rows > MAX_SERIES_ROWS {
            return Err(Error::Param {
                key: "sample_ms".into(),
                msg: format!(
                    "{} ms bins over {} ms for {} flows and {} hops make {rows:.3e} time-series rows; \
                     at most {MAX_SERIES_ROWS:.0e} (use a larger sample_ms)",
                    self.sample_ms,
                    self.duration_ms,
                    nflows,
                    self.hops.len()
                ),
            });
        }
        for (i, f) in self.flows.iter().enumerate() {
            let k = format!("flows[{i}]");
            if !cc::SCHEMES.contains(&f.scheme.as_str()) {
                return Err(Error::Param {
                    key: format!("{k}.scheme"),
                    msg: format!(
                        "unknown scheme '{}'{}; available: {}",
                        f.scheme,
                        crate::error::did_you_mean(&f.scheme, cc::SCHEMES),
                        cc::SCHEMES.join(", ")
                    ),
                });
            }
            cc::build(
                &f.scheme,
                &f.params,
                crate::time::Time::ZERO,
                crate::rng::Rng::stream(0, 0),
            )?;
            for (name, path) in [("fwd", &f.fwd), ("rev", &f.rev)] {
                if path.len() > 255 {
                    return Err(Error::Param {
                        key: format!("{k}.{name}"),
                        msg: "at most 255 hops per path".into(),
                    });
                }
                for &h in path.iter() {
                    if h >= self.hops.len() {
                        return Err(Error::Param {
                            key: format!("{k}.{name}"),
                            msg: format!("hop index {h} out of range (there are {} hops)", self.hops.len()),
                        });
                    }
                }
            }
            check_range(
                &format!("{k}.extra_delay_ms"),
                f.extra_delay_ms,
                0.0,
                1e7,
                "a delay ≥ 0 ms",
            )?;
            check_range(
                &format!("{k}.host_jitter_us"),
                f.host_jitter_us,
                0.0,
                1e6,
                "a jitter between 0 and 10^6 µs",
            )?;
            check_range(
                &format!("{k}.rx_ts_granularity_us"),
                f.rx_ts_granularity_us,
                0.0,
                1e6,
                "a clock granularity between 0 and 10^6 µs",
            )?;
            check_range(
                &format!("{k}.start_ms"),
                f.start_ms,
                0.0,
                MAX_DURATION_MS,
                "a start time ≥ 0 ms",
            )?;
            if let Some(s) = f.stop_ms {
                check_range(
                    &format!("{k}.stop_ms"),
                    s,
                    f.start_ms,
                    MAX_DURATION_MS,
                    "a stop time ≥ start_ms",
                )?;
            }
            if f.count == 0 || f.count > 100_000 {
                return Err(Error::Param {
                    key: format!("{k}.count"),
                    msg: "expected 1 to 100000 flows".into(),
                });
            }
            match f.app {
                AppSpec::Finite { bytes: 0 } => {
                    return Err(Error::Param {
                        key: format!("{k}.app.bytes"),
                        msg: "expected a positive size".into(),
                    })
                }
                AppSpec::Rate { mbps } => check_range(&format!("{k}.app.mbps"), mbps, 1e-9, 1e6, "a rate > 0 Mbit/s")?,
                _ => {}
            }
        }
        Ok(())
    }
}

/// The buffer limit of a queue spec.
pub(crate) fn queue_limit(q: &QueueSpec, key: &str) -> Result<Limit> {
    let (packets, bytes, default) = match q {
        QueueSpec::Infinite => return Ok(Limit::Infinite),
        QueueSpec::Droptail { packets, bytes } => (*packets, *bytes, None),
        QueueSpec::Abc { packets, bytes, .. } => (*packets, *bytes, Some(Limit::Packets(250))),
        QueueSpec::Codel { packets, bytes, .. } | QueueSpec::Pie { packets, bytes, .. } => {
            (*packets, *bytes, Some(Limit::Packets(1000)))
        }
    };
    match (packets, bytes) {
        (Some(_), Some(_)) => Err(Error::Param {
            key: key.into(),
            msg: "give either packets or bytes, not both".into(),
        }),
        (Some(0), None) => Err(Error::Param {
            key: format!("{key}.packets"),
            msg: "expected a limit ≥ 1 packet".into(),
        }),
        (None, Some(b)) if b < 1500 => Err(Error::Param {
            key: format!("{key}.bytes"),
            msg: "expected a limit ≥ 1500 bytes".into(),
        }),
        (Some(p), None) => Ok(Limit::Packets(p)),
        (None, Some(b)) => Ok(Limit::Bytes(b)),
        (None, None) => default.ok_or_else(|| Error::Param {
            key: key.into(),
            msg: "a drop-tail queue needs a limit: packets=N or bytes=N".into(),
        }),
    }
}

/// The ABC router configuration of an `abc` queue spec.
pub(crate) fn abc_config(q: &QueueSpec, key: &str) -> Result<AbcRouterConfig> {
    let QueueSpec::Abc {
        eta,
        delta_ms,
        dt_ms,
        window_ms,
        token_limit,
        rate_source,
        delay_source,
        ..
    } = q
    else {
        return Err(Error::Param {
            key: key.into(),
            msg: "not an abc queue".into(),
        });
    };
    let d = AbcRouterConfig::default();
    let ms = |name: &str, v: Option<f64>, def: Dur, lo: f64| opt_ms(&format!("{key}.{name}"), v, def, lo);
    let cfg = AbcRouterConfig {
        eta: eta.unwrap_or(d.eta),
        delta: ms("delta_ms", *delta_ms, d.delta, 1e-3)?,
        dt: ms("dt_ms", *dt_ms, d.dt, 0.0)?,
        window: ms("window_ms", *window_ms, d.window, 1e-3)?,
        token_limit: token_limit.unwrap_or(d.token_limit),
        rate_source: match rate_source.as_deref() {
            None | Some("dequeue") => RateSource::Dequeue,
            Some("enqueue") => RateSource::Enqueue,
            Some(o) => {
                return Err(Error::Param {
                    key: format!("{key}.rate_source"),
                    msg: format!("'{o}'; expected 'dequeue' or 'enqueue'"),
                })
            }
        },
        delay_source: match delay_source.as_deref() {
            None | Some("qlen") => DelaySource::QueueLength,
            Some("sojourn") => DelaySource::Sojourn,
            Some(o) => {
                return Err(Error::Param {
                    key: format!("{key}.delay_source"),
                    msg: format!("'{o}'; expected 'qlen' or 'sojourn'"),
                })
            }
        },
        limit: queue_limit(q, key)?,
    };
    cfg.validate(key)?;
    Ok(cfg)
}

/// A duration option in ms: `None` → `default`; otherwise checked (`lo` ≤ value) and converted.
fn opt_ms(key: &str, v: Option<f64>, default: Dur, lo: f64) -> Result<Dur> {
    match v {
        None => Ok(default),
        Some(x) => {
            check_range(
                key,
                x,
                lo,
                1e7,
                if lo > 0.0 {
                    "a positive time in ms"
                } else {
                    "a time ≥ 0 ms"
                },
            )?;
            Ok(Dur::from_millis_f64(x))
        }
    }
}

/// The CoDel configuration of a `codel` queue spec.
pub(crate) fn codel_config(q: &QueueSpec, key: &str) -> Result<CodelConfig> {
    let QueueSpec::Codel {
        target_ms,
        interval_ms,
        mtu,
        ecn,
        ..
    } = q
    else {
        return Err(Error::Param {
            key: key.into(),
            msg: "not a codel queue".into(),
        });
    };
    let d = CodelConfig::default();
    let cfg = CodelConfig {
        target: opt_ms(&format!("{key}.target_ms"), *target_ms, d.target, 1e-6)?,
        interval: opt_ms(&format!("{key}.interval_ms"), *interval_ms, d.interval, 1e-6)?,
        mtu: mtu.unwrap_or(d.mtu),
        ecn: *ecn,
        limit: queue_limit(q, key)?,
    };
    cfg.validate(key)?;
    Ok(cfg)
}

/// The PIE configuration of a `pie` queue spec.
pub(crate) fn pie_config(q: &QueueSpec, key: &str) -> Result<PieConfig> {
    let QueueSpec::Pie {
        qdelay_ref_ms,
        t_update_ms,
        max_burst_ms,
        alpha,
        beta,
        ecn,
        ecn_prob_max,
        derandomize,
        bytemode,
        dq_rate_estimator,
        ..
    } = q
    else {
        return Err(Error::Param {
            key: key.into(),
            msg: "not a pie queue".into(),
        });
    };
    let d = PieConfig::default();
    let real = |name: &str, v: Option<f64>, def: f64, hi: f64| -> Result<f64> {
        let x = v.unwrap_or(def);
        check_range(&format!("{key}.{name}"), x, 0.0, hi, &format!("a number in [0, {hi}]"))?;
        Ok(x)
    };
    let cfg = PieConfig {
        qdelay_ref: opt_ms(&format!("{key}.qdelay_ref_ms"), *qdelay_ref_ms, d.qdelay_ref, 1e-6)?,
        t_update: opt_ms(&format!("{key}.t_update_ms"), *t_update_ms, d.t_update, 1e-3)?,
        max_burst: opt_ms(&format!("{key}.max_burst_ms"), *max_burst_ms, d.max_burst, 0.0)?,
        alpha: real("alpha", *alpha, d.alpha, 1e6)?,
        beta: real("beta", *beta, d.beta, 1e6)?,
        ecn: *ecn,
        ecn_prob_max: real("ecn_prob_max", *ecn_prob_max, d.ecn_prob_max, 1.0)?,
        derandomize: *derandomize,
        bytemode: *bytemode,
        limit: queue_limit(q, key)?,
        dq_rate_estimator: *dq_rate_estimator,
        mtu: d.mtu,
    };
    cfg.validate(key)?;
    Ok(cfg)
}

/// Scheme parameters as `Params`.
pub(crate) fn params(f: &FlowSpec) -> Params {
    f.params.clone()
}
