//! The catalog: everything a front end needs to know about the registry, as JSON.
//!
//! Schemes ([`crate::cc::SCHEMES`]), queue types ([`crate::queue::QUEUES`]), link types (from the
//! scenario schema), the default network ([`crate::scenario::NETWORK`]) with every parameter's
//! name, default, unit, range, doc and source; and the JSON Schema of a scenario file, generated
//! from the scenario types. The Python layer builds its `--set` keys, `--help`, plot labels and
//! `docs/parameters.md` from [`catalog`] and prints [`schema`] as `accelbrake schema`.

use crate::params::Param;
use crate::scenario::Scenario;
use serde_json::{json, Value};

/// The JSON Schema (draft 2020-12) of a scenario document.
pub fn schema() -> Value {
    let mut s = serde_json::to_value(schemars::schema_for!(Scenario)).unwrap_or(Value::Null);
    s["title"] = json!("accelbrake scenario");
    s
}

/// Link types with their fields, read from the scenario schema (the serde types are the only
/// declaration of links).
fn links(schema: &Value) -> Vec<Value> {
    let alts = schema["$defs"]["LinkSpec"]["oneOf"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    alts.iter()
        .map(|a| {
            let props = a["properties"].as_object().cloned().unwrap_or_default();
            let fields: Vec<Value> = props
                .iter()
                .filter(|(k, _)| k.as_str() != "type")
                .map(|(k, v)| json!({"name": k, "doc": v["description"], "schema": v}))
                .collect();
            json!({
                "name": a["properties"]["type"]["const"],
                "doc": a["description"],
                "fields": fields,
            })
        })
        .collect()
}

/// The whole catalog.
pub fn catalog() -> Value {
    let schema = schema();
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "schemes": crate::cc::SCHEMES.iter().map(|s| s.to_json()).collect::<Vec<_>>(),
        "queues": crate::queue::QUEUES.iter().map(|q| q.to_json()).collect::<Vec<_>>(),
        "links": links(&schema),
        "network": crate::scenario::NETWORK.iter().map(Param::to_json).collect::<Vec<_>>(),
        "default_trace": crate::scenario::DEFAULT_TRACE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{DefaultValue, Values};

    #[test]
    fn every_scheme_builds_from_its_defaults_and_every_parameter_is_readable() {
        for s in crate::cc::SCHEMES {
            let v = s.values(&Default::default()).unwrap();
            (s.build)(&v, crate::time::Time::ZERO, crate::rng::Rng::stream(0, 0))
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            assert!(
                crate::queue::lookup(s.queue, "q").is_ok(),
                "{}: queue {}",
                s.name,
                s.queue
            );
            for q in s.pairs {
                assert!(crate::queue::lookup(q, "q").is_ok(), "{}: pair {q}", s.name);
            }
        }
        for q in crate::queue::QUEUES {
            let given = if q.limit == crate::queue::LimitRule::Required {
                [("packets".to_string(), crate::params::Value::Num(10.0))].into()
            } else {
                Default::default()
            };
            let v = q.values(&given, "q").unwrap();
            let _ = (q.build)(&v, crate::rng::Rng::stream(0, 0));
        }
    }

    #[test]
    fn every_row_builds_its_own_controller_and_is_told_apart_in_listings_and_plots() {
        // A row that inherits fields from another (`..ABC`) must still build its own controller
        // and carry its own display name, summary and plot style, and its marking must fit.
        let mut seen = std::collections::BTreeSet::new();
        let mut styles = std::collections::BTreeMap::new();
        for s in crate::cc::SCHEMES {
            let v = s.values(&Default::default()).unwrap();
            let cc = (s.build)(&v, crate::time::Time::ZERO, crate::rng::Rng::stream(0, 0)).unwrap();
            // A row with a preset builds its base scheme's controller (cubic-abe: Cubic).
            if s.preset.is_empty() {
                assert_eq!(cc.name(), s.name);
            }
            // (Sources may be shared: PropRate's variants come from one paper.)
            for (what, x) in [("display", s.display), ("summary", s.summary)] {
                assert!(
                    seen.insert((what, x.to_string())),
                    "{}: {what} {x:?} is another row's",
                    s.name
                );
            }
            // Two rows share a colour and marker only for a preset of the same scheme (PropRate's
            // L/M/H; not Cubic and Cubic-ABE, which mark differently, nor ABC and ABC-Cubic).
            let kind = (s.family, format!("{:?}", s.marking), !s.preset.is_empty());
            if let Some(earlier) = styles.insert(format!("{:?}", s.style), kind.clone()) {
                assert!(
                    (earlier.0, &earlier.1) == (kind.0, &kind.1) && (earlier.2 || kind.2),
                    "{}: style {:?} is another row's",
                    s.name,
                    s.style
                );
            }
            // An ABE row (a preset beta_ecn) has its packets marked and a queue that marks them, and
            // its default queue is not also listed as a pairing.
            if s.preset.iter().any(|(k, _)| *k == "beta_ecn") {
                assert_eq!(s.marking, crate::cc::Marking::Ecn, "{}", s.name);
            }
            if s.marking != crate::cc::Marking::None {
                assert!(
                    !["droptail", "infinite"].contains(&s.queue),
                    "{}: queue {}",
                    s.name,
                    s.queue
                );
            }
            assert!(
                !s.pairs.contains(&s.queue),
                "{}: its queue {} is also a pairing",
                s.name,
                s.queue
            );
        }
    }

    #[test]
    fn tables_are_well_formed() {
        let mut all: Vec<(&str, &[Param])> = crate::cc::SCHEMES
            .iter()
            .flat_map(|s| s.params.iter().map(move |t| (s.name, *t)))
            .collect();
        all.extend(crate::queue::QUEUES.iter().map(|q| (q.name, q.params)));
        all.push(("network", crate::scenario::NETWORK));
        for (owner, t) in all {
            let d = Values::defaults(&[t]);
            for (i, p) in t.iter().enumerate() {
                assert!(!p.doc.is_empty(), "{owner}.{}: no doc", p.name);
                assert!(t[..i].iter().all(|q| q.name != p.name), "{owner}.{}: twice", p.name);
                // The default lies in the valid range.
                if let DefaultValue::Num(x) = p.default {
                    let given = crate::params::Value::Num(x);
                    assert!(
                        p.check("k", &given).is_ok(),
                        "{owner}.{}: default {x} out of range",
                        p.name
                    );
                }
                let _ = d.is_set(p.name);
            }
        }
        // The ABC sender and router share the `abc.` prefix: no name may mean both.
        let router: Vec<&str> = crate::queue::abc::PARAMS.iter().map(|p| p.key()).collect();
        for p in crate::cc::abc::PARAMS {
            assert!(
                !router.contains(&p.key()),
                "abc.{} is both a sender and a router key",
                p.key()
            );
        }
    }

    #[test]
    fn catalog_lists_every_row_and_the_schema_every_queue_and_link() {
        let c = catalog();
        assert_eq!(c["schemes"].as_array().unwrap().len(), crate::cc::SCHEMES.len());
        assert_eq!(c["queues"].as_array().unwrap().len(), crate::queue::QUEUES.len());
        let links: Vec<&str> = c["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap())
            .collect();
        assert_eq!(links, ["trace", "constant", "schedule", "wifi"]);
        let s = schema();
        let queues = s["$defs"]["QueueSpec"]["oneOf"].as_array().unwrap();
        assert_eq!(queues.len(), crate::queue::QUEUES.len());
        // Preset defaults show in the catalog: cubic-abe's beta_ecn is 0.85.
        let abe = c["schemes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "cubic-abe")
            .unwrap();
        let beta_ecn = abe["params"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "beta_ecn")
            .unwrap();
        assert_eq!(beta_ecn["default"], json!(0.85));
    }
}
