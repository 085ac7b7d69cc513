//! Warnings: a run that sits outside a scheme's or a queue's known operating range still runs, but
//! its summary says so ([`crate::Summary::warnings`]).
//!
//! Each check lives next to the scheme or queue it concerns, as an optional hook on its registry
//! row: [`crate::cc::Scheme::warnings`] gets a [`FlowContext`] (the flow's checked parameters, its
//! propagation RTT, the mean capacity of its bottleneck), [`crate::queue::QueueKind::warnings`] a
//! [`QueueContext`] (the queue's checked parameters, the mean capacity of its link, the flows whose
//! data cross it). The engine builds the contexts and collects what the hooks return, so a new
//! scheme adds its warnings in its own file.
//!
//! A warning names the parameter (its scenario key), the value, the bound it crosses and the
//! source of that bound (paper, section, table or figure).

use crate::params::Values;
use crate::time::Dur;
use serde::Serialize;

/// One warning about a run's settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Warning {
    /// Stable identifier of the check (`c2tcp-target-below-min-rtt`).
    pub code: &'static str,
    /// What it concerns, as the scenario names it: `flows[0]`, `hops[1]`.
    pub subject: String,
    /// The parameter's scenario key (`flows[0].params.target_ms`, `hops[0].queue.delta_ms`).
    pub parameter: String,
    /// The parameter's value, in `unit`.
    pub value: f64,
    /// The bound the value crosses, in `unit`.
    pub bound: f64,
    /// Unit of `value` and `bound` (`ms`, `packets`, `bytes`).
    pub unit: &'static str,
    /// Where the bound comes from: paper, venue, section, table or figure.
    pub source: &'static str,
    /// One line for people: what is outside the range and what it does.
    pub message: String,
}

/// What a scheme's check knows about one flow (one entry of the scenario's `flows`).
#[derive(Clone, Copy, Debug)]
pub struct FlowContext<'a> {
    /// Index of the flow in the scenario's `flows` (a `count` > 1 entry is checked once).
    pub index: usize,
    /// The flow's checked parameters (its scheme's tables, preset applied).
    pub values: &'a Values,
    /// Propagation RTT of the flow's paths (hop delays both ways plus the extra delay): the
    /// smallest RTT the flow can see.
    pub prop_rtt: Dur,
    /// Mean capacity of the slowest hop of the flow's data path, bytes per second.
    pub bottleneck_rate: f64,
}

impl FlowContext<'_> {
    /// `flows[i]`.
    pub fn subject(&self) -> String {
        format!("flows[{}]", self.index)
    }

    /// The scenario key of a parameter: `flows[i].params.<name>`.
    pub fn key(&self, name: &str) -> String {
        format!("flows[{}].params.{name}", self.index)
    }
}

/// A flow whose data cross a hop, as a queue's check sees it.
#[derive(Clone, Copy, Debug)]
pub struct FlowOnHop {
    /// Index of the flow in the scenario's `flows`.
    pub index: usize,
    /// Its scheme's name.
    pub scheme: &'static str,
    /// Whether it is an ABC sender (its packets carry accelerate/brake marks).
    pub abc: bool,
    /// Its propagation RTT.
    pub prop_rtt: Dur,
}

/// What a queue's check knows about one hop.
#[derive(Clone, Debug)]
pub struct QueueContext<'a> {
    /// Index of the hop in the scenario's `hops`.
    pub index: usize,
    /// The queue's checked parameters.
    pub values: &'a Values,
    /// Mean capacity of the hop's link, bytes per second: a trace's mean rate (every opportunity
    /// counted), or a rate link's mean over the run.
    pub link_rate: f64,
    /// Bytes the link charges for one MTU-sized packet (MTU plus the trace link's framing), to turn
    /// a rate in bytes into packets.
    pub wire_bytes_per_packet: f64,
    /// The flows whose data path crosses this hop.
    pub flows: &'a [FlowOnHop],
}

impl QueueContext<'_> {
    /// `hops[i]`.
    pub fn subject(&self) -> String {
        format!("hops[{}]", self.index)
    }

    /// The scenario key of a queue parameter: `hops[i].queue.<name>`.
    pub fn key(&self, name: &str) -> String {
        format!("hops[{}].queue.{name}", self.index)
    }
}

/// A scheme's check: the warnings about one flow.
pub type FlowCheck = fn(&FlowContext<'_>) -> Vec<Warning>;

/// A queue type's check: the warnings about one hop.
pub type QueueCheck = fn(&QueueContext<'_>) -> Vec<Warning>;

/// `x` with at most `digits` decimals, trailing zeros dropped (`24.77`, `50`).
pub fn num(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The warnings of a scenario given as JSON (built, not run), for the checks' tests.
#[cfg(test)]
pub(crate) fn of_scenario(json: &str) -> Vec<Warning> {
    let s = crate::Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    crate::Simulation::new(&s).expect("builds").warnings().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_drop_trailing_zeros() {
        assert_eq!(num(24.773, 1), "24.8");
        assert_eq!(num(50.0, 3), "50");
        assert_eq!(num(100.0, 0), "100");
    }

    #[test]
    fn a_run_inside_every_range_has_no_warnings_and_the_summary_says_so() {
        let json = r#"{"duration_ms": 200,
            "hops": [{"link": {"type": "constant", "mbps": 12}, "queue": {"type": "abc"}, "delay_ms": 50},
                     {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 50}],
            "flows": [{"scheme": "abc", "fwd": [0], "rev": [1]}, {"scheme": "c2tcp", "params": {"target_ms": 100}, "fwd": [0], "rev": [1]}]}"#;
        assert_eq!(of_scenario(json), vec![]);
        let r = crate::simulate(&crate::Scenario::from_json(json).unwrap()).unwrap();
        let j = serde_json::to_value(&r.summary).unwrap();
        assert_eq!(j["warnings"], serde_json::json!([]));
    }
}
