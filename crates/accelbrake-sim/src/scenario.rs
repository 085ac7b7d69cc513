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

use crate::cc;
use crate::error::{check_range, Error, Result};
use crate::params::{Given, Param, Unit, Value, Values};
use crate::queue::{self, QueueKind};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The network that `accelbrake run`, `build_scenario` and experiment files build when not told
/// otherwise: the ABC paper's cellular setup (Mahimahi `mm-delay 50 mm-link TRACE bw12.mahi` with
/// a 250-packet buffer; ABC paper §7.2, artifact `exp.sh`). Defined here only; the Python layer reads
/// it from the catalog.
pub const NETWORK: &[Param] = &[
    Param::real("delay_ms", 50.0, Unit::Ms, 0.0, 1e7).doc(
        "one-way propagation delay, applied in each direction (min RTT = 2·delay)",
        "ABC paper §7.2 (min RTT 100 ms); artifact exp.sh mm-delay 50",
    ),
    Param::whole(
        "buffer_packets",
        queue::abc::BUFFER_PACKETS,
        Unit::Packets,
        1,
        1_000_000_000,
    )
    .doc(
        "data bottleneck buffer, packets",
        "ABC paper §7.2 (250 MTU-sized packets); artifact exp.sh",
    ),
    Param::real("duration_s", 140.0, Unit::S, 1e-9, 7.0 * 24.0 * 3600.0)
        .open(true, false)
        .doc(
            "simulated time (the bundled Verizon LTE trace's length)",
            "artifact: 140 s runs",
        ),
    Param::real("ack_mbps", 12.0, Unit::Mbps, 0.0, 1e6)
        .open(true, false)
        .doc(
            "rate of the constant ACK link when there is no ACK trace",
            "artifact bw12.mahi",
        ),
    Param::real("sample_ms", DEFAULT_SAMPLE_MS, Unit::Ms, 1.0, 1e7).doc("time-series bin width", "our choice"),
    Param::whole("flows", 1, Unit::None, 1, 100_000).doc(
        "identical bulk flows sharing the bottleneck",
        "ABC paper §7.3 (one backlogged flow)",
    ),
    Param::real("memory_budget_mb", DEFAULT_MEMORY_BUDGET_MB, Unit::None, 1.0, 1e9).doc(
        "most memory, in MB, a run's recorded data may take (time series: flows' rows while they \
         are active and hops' rows; a fixed part per flow; per-packet records when on): a run \
         estimated above it is refused before it starts",
        "our choice: 2 GiB, a quarter of a small laptop's memory",
    ),
    Param::whole("seed", 0, Unit::None, 0, u64::MAX).doc(
        "master random seed: one repeated run; draws where in the trace the flows start (unless \
         link.offset pins it), host jitter and randomised controllers/queues",
        "trace phase: Mahimahi mm-link replays from the shell's start, before the sender connects",
    ),
];

/// How a seed places the flows in the trace when a trace link gives no `offset_ms`; stated once
/// here for the docs and the catalog.
pub const TRACE_OFFSET: &str = "uniform in whole ms over [0, P) with P the period of the scenario's longest \
wrapping trace, one draw per scenario from the seed's own stream, shared by its trace links without \
offset_ms (one Mahimahi shell starts all its traces at once); once-played traces start at 0. \
Source: Mahimahi mm-link replays from the shell's start, and the ABC artifact's start-tcp.sh \
connects iperf from inside the shell some unmeasured time later; neither the ABC paper (NSDI 2020, \
§7.2) nor its artifact fixes the phase, and a trace replayed in a loop has no preferred one, so a \
seed draws it over a whole period";

/// Largest `offset_ms` accepted (as the largest trace timestamp).
pub const MAX_TRACE_OFFSET_MS: u64 = 1_000_000_000;

/// Default bin width of time series, ms.
pub const DEFAULT_SAMPLE_MS: f64 = 100.0;

/// The bundled trace of the ABC artifact's experiments (140 s, 5.96 Mbit/s), relative to the
/// repository root.
pub const DEFAULT_TRACE: &str = "traces/Verizon-LTE-short.up";

fn default_one() -> u32 {
    1
}
fn default_sample() -> f64 {
    DEFAULT_SAMPLE_MS
}
fn default_true() -> bool {
    true
}

/// A whole simulation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Simulated time, ms.
    pub duration_ms: f64,
    /// Master seed for every random stream: where in its trace a trace link is when the flows
    /// start (unless the link's `offset_ms` pins it), host jitter, randomised controllers and
    /// queues. Different seeds are the repeated runs of one experiment.
    #[serde(default)]
    pub seed: u64,
    /// The hops flows can cross.
    pub hops: Vec<HopSpec>,
    /// The flows.
    pub flows: Vec<FlowSpec>,
    /// Bin width of time series, ms.
    #[serde(default = "default_sample")]
    pub sample_ms: f64,
    /// Keep per-packet records (deliveries and per-hop departures) and exact percentiles. Off by
    /// default: the records grow with simulated time, while without them every figure is kept in
    /// bounded memory (percentiles from a log-bucket sketch, relative error ≤ 0.2 %).
    #[serde(default)]
    pub record_packets: bool,
    /// Most memory the run's recorded data may take, MB: before the run, the time series and
    /// (with `record_packets`) the per-packet records are estimated from the duration, the bin
    /// width and the links' capacity, and a run whose estimate exceeds this is refused.
    #[serde(default = "default_memory_budget")]
    pub memory_budget_mb: f64,
}

/// Default [`Scenario::memory_budget_mb`]: 2 GiB.
pub const DEFAULT_MEMORY_BUDGET_MB: f64 = 2048.0;

fn default_memory_budget() -> f64 {
    DEFAULT_MEMORY_BUDGET_MB
}

/// One hop: a queue feeding a link, then a propagation delay.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
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
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum LinkSpec {
    /// A Mahimahi trace file.
    Trace {
        /// File path.
        path: String,
        /// Play the trace once instead of wrapping around (`mm-link --once`).
        #[serde(default)]
        once: bool,
        /// How far into the trace the link is when the simulation (and a flow starting at 0)
        /// starts, whole ms: Mahimahi's `mm-link` starts replaying its traces when the shell
        /// starts, and the sender inside connects some unknown time later. A value pins it (0:
        /// the flows meet the trace's first line, as before seeds drew offsets); a wrapping trace
        /// takes it modulo its period. Absent: drawn from the scenario's seed, uniform in whole
        /// ms over `[0, period)` of the longest wrapping trace,
        /// one draw shared by every trace link of the scenario that has no value (one shell, one
        /// clock); a `once` trace without a value starts at 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(range(min = 0, max = 1_000_000_000))]
        offset_ms: Option<u64>,
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
    /// An 802.11n A-MPDU aggregation link (downlink to one or more users; see `docs/wifi.md`).
    Wifi {
        /// The receivers, each with its MCS schedule and batch limit M.
        users: Vec<crate::wifi::WifiUserSpec>,
        /// `shared` (one FIFO, the hop's queue, for every user; the paper's experiments) or
        /// `per-user` (one queue of the hop's type per user, batches round-robin).
        #[serde(default = "default_wifi_queues")]
        queues: String,
        /// Channel width, 20 or 40 MHz.
        #[serde(default = "default_wifi_width")]
        width_mhz: u32,
        /// Short (400 ns) guard interval.
        #[serde(default)]
        short_gi: bool,
        /// Extra overhead per batch, uniform in [0, jitter_us] µs (a crowded channel).
        #[serde(default)]
        jitter_us: f64,
        /// Window T of ABC's link-rate estimator, ms (ABC paper §5.1: 40 ms).
        #[serde(default = "default_wifi_window")]
        estimator_window_ms: f64,
        /// User of each flow, by flow id (flows with `count` > 1 take consecutive ids); default:
        /// flow id modulo the number of users.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user_of_flow: Option<Vec<u32>>,
    },
}

fn default_wifi_queues() -> String {
    "shared".into()
}
fn default_wifi_width() -> u32 {
    20
}
fn default_wifi_window() -> f64 {
    crate::wifi::DEFAULT_WINDOW_MS
}

impl LinkSpec {
    /// The checked config of a Wi-Fi link (`None` for other links); `key` names it in errors.
    pub fn wifi_config(&self, key: &str) -> Result<Option<crate::wifi::WifiConfig>> {
        let LinkSpec::Wifi {
            users,
            queues,
            width_mhz,
            short_gi,
            jitter_us,
            estimator_window_ms,
            user_of_flow,
        } = self
        else {
            return Ok(None);
        };
        use crate::wifi::{Discipline, Phy, WifiConfig};
        if users.is_empty() {
            return Err(Error::Param {
                key: format!("{key}.users"),
                msg: "at least one user: [{\"mcs\": {\"type\": \"fixed\", \"mcs\": 7}}]".into(),
            });
        }
        let discipline = match queues.as_str() {
            "shared" => Discipline::Shared,
            "per-user" => Discipline::PerUser,
            other => {
                return Err(Error::Param {
                    key: format!("{key}.queues"),
                    msg: format!("got '{other}'; expected 'shared' or 'per-user'"),
                })
            }
        };
        if *width_mhz != 20 && *width_mhz != 40 {
            return Err(Error::Param {
                key: format!("{key}.width_mhz"),
                msg: format!("got {width_mhz}; expected 20 or 40 (802.11n channel widths)"),
            });
        }
        check_range(&format!("{key}.jitter_us"), *jitter_us, 0.0, 1e6, "a time ≥ 0 µs")?;
        check_range(
            &format!("{key}.estimator_window_ms"),
            *estimator_window_ms,
            0.001,
            1e6,
            "a positive time in ms",
        )?;
        Ok(Some(WifiConfig {
            phy: Phy {
                width_mhz: *width_mhz,
                short_gi: *short_gi,
            },
            discipline,
            users: users.clone(),
            user_of_flow: user_of_flow.clone(),
            jitter: crate::time::Dur::from_micros_f64(*jitter_us),
            window: crate::time::Dur::from_millis_f64(*estimator_window_ms),
        }))
    }
}

/// A queue: its type (a row of [`crate::queue::QUEUES`]) and that type's parameters as fields,
/// e.g. `{"type": "codel", "target_ms": 5, "packets": 1000}`. Fields are checked against the
/// type's parameter table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct QueueSpec {
    /// Queue type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The type's parameters.
    #[serde(flatten)]
    pub params: Given,
}

/// One alternative per queue type of the registry, with its parameters as fields.
impl JsonSchema for QueueSpec {
    fn schema_name() -> Cow<'static, str> {
        "QueueSpec".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let one_of: Vec<serde_json::Value> = queue::QUEUES
            .iter()
            .map(|q| {
                let mut props = serde_json::Map::new();
                props.insert("type".into(), serde_json::json!({"const": q.name}));
                for p in q.params {
                    props.insert(p.name.into(), p.json_schema());
                }
                serde_json::json!({
                    "title": q.display,
                    "description": format!("{} ({})", q.summary, q.source),
                    "type": "object",
                    "properties": props,
                    "required": ["type"],
                    "additionalProperties": false,
                })
            })
            .collect();
        json_to_schema(serde_json::json!({"description": "A queue in front of the link.", "oneOf": one_of}))
    }
}

fn json_to_schema(v: serde_json::Value) -> Schema {
    // Every value built here is a JSON object, which is always a valid schema.
    Schema::try_from(v).unwrap_or_default()
}

/// `scheme`: one of the registry's names.
fn scheme_names(_: &mut SchemaGenerator) -> Schema {
    json_to_schema(serde_json::json!({
        "description": "Congestion-control scheme.",
        "enum": cc::names(),
    }))
}

/// `params` of a flow: the parameters of its scheme (an if/then per scheme).
fn flow_params_by_scheme(schema: &mut Schema) {
    let cases: Vec<serde_json::Value> = cc::SCHEMES
        .iter()
        .map(|s| {
            let mut props = serde_json::Map::new();
            for p in s.params.iter().flat_map(|t| t.iter()) {
                props.insert(p.name.into(), p.json_schema());
            }
            serde_json::json!({
                "if": {"properties": {"scheme": {"const": s.name}}, "required": ["scheme"]},
                "then": {"properties": {"params": {"type": "object", "properties": props, "additionalProperties": false}}},
            })
        })
        .collect();
    schema.insert("allOf".into(), serde_json::Value::Array(cases));
}

impl QueueSpec {
    /// A queue of `kind` with these parameters.
    pub fn new(kind: &str, params: &[(&str, Value)]) -> QueueSpec {
        QueueSpec {
            kind: kind.into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        }
    }

    /// The queue's registry row and checked values; errors name `key` (e.g. `hops[0].queue`).
    pub fn resolve(&self, key: &str) -> Result<(&'static QueueKind, Values)> {
        let kind = queue::lookup(&self.kind, &format!("{key}.type"))?;
        let v = kind.values(&self.params, key)?;
        Ok((kind, v))
    }
}

/// What the flow's application does.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
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
    /// An on/off source: payload at `mbps` for `on_ms`, then nothing for `off_ms`, repeating from
    /// the flow's start (one connection throughout).
    Onoff {
        /// Mbit/s of payload while on.
        mbps: f64,
        /// Length of each on period, ms.
        on_ms: f64,
        /// Length of each off period, ms.
        off_ms: f64,
    },
}

/// One flow (or `count` identical flows).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = flow_params_by_scheme)]
pub struct FlowSpec {
    /// Congestion-control scheme (a row of [`crate::cc::SCHEMES`]).
    #[schemars(schema_with = "scheme_names")]
    pub scheme: String,
    /// Scheme parameter overrides (numbers, flags as true/false or 1/0, words), checked against
    /// the scheme's parameter table.
    #[serde(default)]
    pub params: Given,
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
    /// Linux's CWR state after an ECN reduction (`tcp_enter_cwr` → `tcp_cwnd_reduction`):
    /// Proportional Rate Reduction (RFC 6937) spreads the reduction over the round and the window
    /// does not grow until the round ends (`tcp_may_raise_cwnd`). Off by default (the window
    /// drops at once and grows on); see docs/aqm.md "ABE at 400 ms".
    #[serde(default)]
    pub ecn_prr: bool,
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

/// serde's "unknown field `x`, expected one of `a`, `b` at line 1 column 9" as
/// "unknown key 'x' (did you mean 'a'?); expected one of a, b" (also for unknown `type`s).
fn explain_shape_error(text: &str) -> String {
    let text = match text.rfind(" at line ") {
        Some(i) if text[i..].contains(" column ") => &text[..i],
        _ => text,
    };
    for (prefix, label) in [
        ("unknown field `", "unknown key"),
        ("unknown variant `", "unknown type"),
    ] {
        let Some(rest) = text.strip_prefix(prefix) else {
            continue;
        };
        let Some((name, expected)) = rest.split_once('`') else {
            continue;
        };
        let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        return format!(
            "{label} '{name}'{}; expected one of {}",
            crate::error::did_you_mean(name, &known),
            known.join(", ")
        );
    }
    text.to_string()
}

/// A parameter error keyed `from` or `from.<name>` re-keyed under `to` (`cubic.beta` →
/// `flows[0].params.beta`).
fn rekey(e: Error, from: &str, to: &str) -> Error {
    match e {
        Error::Param { key, msg } => {
            let key = if key == from {
                to.to_string()
            } else if let Some(rest) = key.strip_prefix(&format!("{from}.")) {
                format!("{to}.{rest}")
            } else {
                key
            };
            Error::Param { key, msg }
        }
        other => other,
    }
}

/// Most flows in one scenario.
const MAX_FLOWS: u64 = 100_000;
/// Most time-series rows (flows' and hops'): 5·10^7 rows of the flow table are about 4 GB.
const MAX_SERIES_ROWS: f64 = 5e7;

/// Refuse `rows` time-series rows (flows' rows in the bins they are active in, hops' in every
/// bin) above [`MAX_SERIES_ROWS`], before they are allocated (an allocation failure would abort
/// the process).
pub(crate) fn series_rows_within_limit(
    sample_ms: f64,
    duration_ms: f64,
    nflows: u64,
    nhops: usize,
    rows: f64,
) -> Result<()> {
    if rows > MAX_SERIES_ROWS {
        return Err(Error::Param {
            key: "sample_ms".into(),
            msg: format!(
                "{sample_ms} ms bins over {duration_ms} ms for {nflows} flows and {nhops} hops make \
                 {rows:.3e} time-series rows; at most {MAX_SERIES_ROWS:.0e} (use a larger sample_ms)"
            ),
        });
    }
    Ok(())
}

/// Longest simulated duration accepted (one week).
const MAX_DURATION_MS: f64 = 7.0 * 24.0 * 3600.0 * 1000.0;

impl Scenario {
    /// Parse JSON, naming the problem on failure.
    pub fn from_json(text: &str) -> Result<Scenario> {
        Scenario::from_json_with(text, None)
    }

    /// [`Scenario::from_json`], with `flows[].scheme` also looked up among `externals`
    /// ([`Scenario::validate_with`]).
    pub fn from_json_with(text: &str, externals: Option<&crate::cc::external::Externals>) -> Result<Scenario> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." || path == "?" {
                String::new()
            } else {
                path
            };
            let inner = e.into_inner();
            let msg = match inner.classify() {
                // A shape error: the path says where; serde's position is noise.
                serde_json::error::Category::Data => explain_shape_error(&inner.to_string()),
                _ => inner.to_string(),
            };
            Error::Scenario { path, msg }
        })?;
        s.validate_with(externals)?;
        Ok(s)
    }

    /// Check every value (everything but trace file contents).
    pub fn validate(&self) -> Result<()> {
        self.validate_with(None)
    }

    /// [`Scenario::validate`], with `flows[].scheme` also looked up among `externals` (controllers
    /// implemented outside the core, which check their own parameters).
    pub fn validate_with(&self, externals: Option<&crate::cc::external::Externals>) -> Result<()> {
        check_range(
            "duration_ms",
            self.duration_ms,
            1e-6,
            MAX_DURATION_MS,
            "a positive duration in ms (at most one week)",
        )?;
        check_range("sample_ms", self.sample_ms, 1.0, MAX_DURATION_MS, "a bin width ≥ 1 ms")?;
        check_range(
            "memory_budget_mb",
            self.memory_budget_mb,
            1.0,
            1e9,
            "a memory budget in MB from 1 to 10^9",
        )?;
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
                LinkSpec::Trace { path, offset_ms, .. } => {
                    if path.is_empty() {
                        return Err(Error::Param {
                            key: format!("{k}.link.path"),
                            msg: "empty trace path".into(),
                        });
                    }
                    if let Some(o) = offset_ms {
                        if *o > MAX_TRACE_OFFSET_MS {
                            return Err(Error::Param {
                                key: format!("{k}.link.offset_ms"),
                                msg: format!("expected whole ms from 0 to {MAX_TRACE_OFFSET_MS}, found {o}"),
                            });
                        }
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
                LinkSpec::Wifi { .. } => {
                    h.link.wifi_config(&format!("{k}.link"))?;
                }
            }
            match externals.and_then(|x| x.get_queue(&h.queue.kind)) {
                Some(q) => q
                    .check(&h.queue.params)
                    .map_err(|e| rekey(e, &h.queue.kind, &format!("{k}.queue")))?,
                None => {
                    h.queue.resolve(&format!("{k}.queue"))?;
                }
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
        // A flow has rows only in the bins it is active in: here, without the links' capacities,
        // the flows that are not finite from their start bin to their stop (or the end); finite
        // flows are added by the engine's estimate, which checks the same limit again
        // (`engine::build::check_memory_budget`).
        let bins = (self.duration_ms / self.sample_ms).ceil();
        let flow_rows: f64 = self
            .flows
            .iter()
            .filter(|f| !matches!(f.app, AppSpec::Finite { .. }) && f.start_ms < self.duration_ms)
            .map(|f| {
                let last = f.stop_ms.map_or(self.duration_ms, |s| s.min(self.duration_ms));
                let first_bin = (f.start_ms / self.sample_ms).floor();
                let last_bin = ((last / self.sample_ms).ceil() - 1.0).max(first_bin);
                f64::from(f.count) * (last_bin - first_bin + 1.0)
            })
            .sum();
        series_rows_within_limit(
            self.sample_ms,
            self.duration_ms,
            nflows,
            self.hops.len(),
            bins * self.hops.len() as f64 + flow_rows,
        )?;
        for (i, f) in self.flows.iter().enumerate() {
            let k = format!("flows[{i}]");
            // Parameter errors name the scenario's spelling: flows[i].params.<name>.
            let at = format!("{k}.params");
            if let Some(ext) = externals.and_then(|x| x.get(&f.scheme)) {
                ext.check(&f.params).map_err(|e| rekey(e, &f.scheme, &at))?;
            } else {
                let scheme = cc::lookup(&f.scheme).map_err(|e| rekey(e, "scheme", &format!("{k}.scheme")))?;
                let values = scheme.values(&f.params).map_err(|e| rekey(e, scheme.family, &at))?;
                (scheme.build)(&values, crate::time::Time::ZERO, crate::rng::Rng::stream(0, 0))
                    .map_err(|e| rekey(e, scheme.family, &at))?;
            }
            if f.fwd.is_empty() {
                return Err(Error::Param {
                    key: format!("{k}.fwd"),
                    msg: "empty data path: the flow's packets would cross no hop (give the hop indices \
                          of its data path, e.g. [0])"
                        .into(),
                });
            }
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
                AppSpec::Onoff { mbps, on_ms, off_ms } => {
                    check_range(&format!("{k}.app.mbps"), mbps, 1e-9, 1e6, "a rate > 0 Mbit/s")?;
                    check_range(
                        &format!("{k}.app.on_ms"),
                        on_ms,
                        1e-3,
                        MAX_DURATION_MS,
                        "an on period > 0 ms",
                    )?;
                    check_range(
                        &format!("{k}.app.off_ms"),
                        off_ms,
                        0.0,
                        MAX_DURATION_MS,
                        "an off period ≥ 0 ms",
                    )?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}
