//! Parameter tables: the one place where a controller's or queue's parameters are declared.
//!
//! Every configurable part (a congestion controller, a queue) declares a `&'static [Param]`: name,
//! kind, default, unit, valid range, a one-line doc and the source of the default. From that table
//! alone this module
//!
//! * parses and checks what a scenario gives ([`parse`]): unknown names (with "did you mean"),
//!   wrong kinds and out-of-range values are errors that name the key and what was expected;
//! * fills in defaults, so a config's `Default` is the table's defaults ([`Values::defaults`]);
//! * describes itself for the catalog ([`Param::to_json`]) that the Python layer turns into
//!   `--set` keys, `--help` text and `docs/parameters.md`.
//!
//! The typed config of each part reads a checked [`Values`] with `real`, `whole`, `flag`, `ms`,
//! ... getters; nothing else in the crate spells a default.

use crate::error::{did_you_mean, Error, Result};
use crate::time::Dur;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A value as written in a scenario: a number, a flag or a word.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Value {
    /// `true` / `false`.
    Flag(bool),
    /// Any JSON number.
    Num(f64),
    /// A word (a choice such as `"dequeue"`).
    Word(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Flag(b) => write!(f, "{b}"),
            Value::Num(x) => write!(f, "{x}"),
            Value::Word(s) => write!(f, "'{s}'"),
        }
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Num(x)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Flag(b)
    }
}

/// Parameter overrides as given in a scenario (`flows[].params`, a queue's fields).
pub type Given = BTreeMap<String, Value>;

/// What a parameter holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A finite real number.
    Real,
    /// A whole number.
    Whole,
    /// A flag: `true`/`false` (also 1/0).
    Flag,
    /// One of these words.
    Choice(&'static [&'static str]),
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Real => "real",
            Kind::Whole => "whole",
            Kind::Flag => "flag",
            Kind::Choice(_) => "choice",
        }
    }
}

/// The unit a parameter is given in (scenario files use the bare number in this unit; the CLI
/// accepts other units of the same dimension and converts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A pure number.
    None,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
    /// Microseconds.
    Us,
    /// Segments (MSS-sized).
    Segments,
    /// Packets.
    Packets,
    /// Bytes.
    Bytes,
    /// Per second (a gain in 1/s).
    PerS,
    /// Percent.
    Percent,
    /// Megabit per second (10^6 bit/s).
    Mbps,
}

impl Unit {
    /// The unit as printed (`""` for a pure number).
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Us => "us",
            Unit::Segments => "segments",
            Unit::Packets => "packets",
            Unit::Bytes => "bytes",
            Unit::PerS => "1/s",
            Unit::Percent => "%",
            Unit::Mbps => "Mbit/s",
        }
    }
}

/// One end of a valid range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The value itself is allowed.
    Incl(f64),
    /// Only values strictly beyond it are allowed.
    Excl(f64),
}

impl Bound {
    /// The bound's number.
    pub const fn value(self) -> f64 {
        match self {
            Bound::Incl(x) | Bound::Excl(x) => x,
        }
    }
}

/// A parameter's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    /// A number (also for whole numbers).
    Num(f64),
    /// A flag.
    Flag(bool),
    /// A word of a [`Kind::Choice`].
    Word(&'static str),
    /// No value: the parameter is optional and its doc says what leaving it out means.
    Unset,
}

/// One parameter of a controller or queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// Name in scenario files (`flows[].params` keys, queue fields), e.g. `delta_ms`.
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Default.
    pub default: DefaultValue,
    /// Unit of the number in scenario files.
    pub unit: Unit,
    /// Smallest valid value (numbers only).
    pub min: Bound,
    /// Largest valid value (numbers only).
    pub max: Bound,
    /// One line saying what it does.
    pub doc: &'static str,
    /// Where the default comes from (paper, RFC, reference code).
    pub source: &'static str,
    /// Other accepted spellings of the short key (e.g. the artifact's `qdelay_ref` for `dt`).
    pub aliases: &'static [&'static str],
}

impl Param {
    /// A real-valued parameter in `[min, max]` (adjust with [`Param::open`]).
    pub const fn real(name: &'static str, default: f64, unit: Unit, min: f64, max: f64) -> Param {
        Param {
            name,
            kind: Kind::Real,
            default: DefaultValue::Num(default),
            unit,
            min: Bound::Incl(min),
            max: Bound::Incl(max),
            doc: "",
            source: "",
            aliases: &[],
        }
    }

    /// A whole-number parameter in `[min, max]`.
    pub const fn whole(name: &'static str, default: u64, unit: Unit, min: u64, max: u64) -> Param {
        Param {
            name,
            kind: Kind::Whole,
            default: DefaultValue::Num(default as f64),
            unit,
            min: Bound::Incl(min as f64),
            max: Bound::Incl(max as f64),
            doc: "",
            source: "",
            aliases: &[],
        }
    }

    /// A flag.
    pub const fn flag(name: &'static str, default: bool) -> Param {
        Param {
            name,
            kind: Kind::Flag,
            default: DefaultValue::Flag(default),
            unit: Unit::None,
            min: Bound::Incl(0.0),
            max: Bound::Incl(1.0),
            doc: "",
            source: "",
            aliases: &[],
        }
    }

    /// One of `choices`.
    pub const fn choice(name: &'static str, default: &'static str, choices: &'static [&'static str]) -> Param {
        Param {
            name,
            kind: Kind::Choice(choices),
            default: DefaultValue::Word(default),
            unit: Unit::None,
            min: Bound::Incl(0.0),
            max: Bound::Incl(0.0),
            doc: "",
            source: "",
            aliases: &[],
        }
    }

    /// Exclude the lower (`lo`) and/or upper (`hi`) end of the range.
    pub const fn open(mut self, lo: bool, hi: bool) -> Param {
        if lo {
            self.min = Bound::Excl(self.min.value());
        }
        if hi {
            self.max = Bound::Excl(self.max.value());
        }
        self
    }

    /// No default: the parameter is optional.
    pub const fn unset(mut self) -> Param {
        self.default = DefaultValue::Unset;
        self
    }

    /// Its doc line and the source of its default.
    pub const fn doc(mut self, doc: &'static str, source: &'static str) -> Param {
        self.doc = doc;
        self.source = source;
        self
    }

    /// Other spellings of its short key.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Param {
        self.aliases = aliases;
        self
    }

    /// The short key used on the command line: the name without a `_ms`, `_s` or `_us` suffix
    /// that repeats its unit (`delta_ms` → `delta`; the CLI takes units).
    pub fn key(&self) -> &'static str {
        let suffix = match self.unit {
            Unit::Ms => "_ms",
            Unit::S => "_s",
            Unit::Us => "_us",
            _ => return self.name,
        };
        self.name.strip_suffix(suffix).unwrap_or(self.name)
    }

    /// What a valid value looks like, e.g. `a number in (0, 1]` or `a time in ms in [0, 1e7]`.
    pub fn expected(&self) -> String {
        match self.kind {
            Kind::Flag => "true or false (or 1/0)".into(),
            Kind::Choice(c) => format!("one of {}", quoted(c)),
            Kind::Real | Kind::Whole => {
                let what = match (self.kind, self.unit) {
                    (Kind::Whole, Unit::None) => "a whole number".to_string(),
                    (Kind::Whole, u) => format!("a whole number of {}", u.symbol()),
                    (_, Unit::Ms) => "a time in ms".to_string(),
                    (_, Unit::S) => "a time in s".to_string(),
                    (_, Unit::Us) => "a time in µs".to_string(),
                    (_, Unit::None) => "a number".to_string(),
                    (_, Unit::Percent) => "a percentage".to_string(),
                    (_, u) => format!("a number of {}", u.symbol()),
                };
                let lo = match self.min {
                    Bound::Incl(x) => format!("[{}", num(x)),
                    Bound::Excl(x) => format!("({}", num(x)),
                };
                let hi = match self.max {
                    Bound::Incl(x) => format!("{}]", num(x)),
                    Bound::Excl(x) => format!("{})", num(x)),
                };
                format!("{what} in {lo}, {hi}")
            }
        }
    }

    fn in_range(&self, x: f64) -> bool {
        let lo = match self.min {
            Bound::Incl(m) => x >= m,
            Bound::Excl(m) => x > m,
        };
        let hi = match self.max {
            Bound::Incl(m) => x <= m,
            Bound::Excl(m) => x < m,
        };
        x.is_finite() && lo && hi
    }

    /// Check one given value; `key` names it in the error.
    pub fn check(&self, key: &str, v: &Value) -> Result<Val> {
        let bad = || Error::Param {
            key: key.to_string(),
            msg: format!("got {v}; expected {}", self.expected()),
        };
        match (self.kind, v) {
            (Kind::Flag, Value::Flag(b)) => Ok(Val::Flag(*b)),
            (Kind::Flag, Value::Num(x)) if *x == 0.0 || *x == 1.0 => Ok(Val::Flag(*x == 1.0)),
            (Kind::Real, Value::Num(x)) if self.in_range(*x) => Ok(Val::Num(*x)),
            (Kind::Whole, Value::Num(x)) if self.in_range(*x) && x.fract() == 0.0 => Ok(Val::Num(*x)),
            (Kind::Choice(c), Value::Word(w)) => match c.iter().find(|k| **k == w.as_str()) {
                Some(k) => Ok(Val::Word(k)),
                None => Err(Error::Param {
                    key: key.to_string(),
                    msg: format!("got '{w}'{}; expected one of {}", did_you_mean(w, c), quoted(c)),
                }),
            },
            _ => Err(bad()),
        }
    }

    fn default_val(&self) -> Option<Val> {
        match self.default {
            DefaultValue::Num(x) => Some(Val::Num(x)),
            DefaultValue::Flag(b) => Some(Val::Flag(b)),
            DefaultValue::Word(w) => Some(Val::Word(w)),
            DefaultValue::Unset => None,
        }
    }

    /// The parameter as a JSON Schema property (for the published scenario schema).
    pub fn json_schema(&self) -> serde_json::Value {
        use serde_json::json;
        let unit = match self.unit {
            Unit::None => String::new(),
            u => format!(" [{}]", u.symbol()),
        };
        let source = if self.source.is_empty() {
            String::new()
        } else {
            format!(" (default: {})", self.source)
        };
        let mut j = match self.kind {
            Kind::Flag => json!({"anyOf": [{"type": "boolean"}, {"enum": [0, 1]}]}),
            Kind::Choice(c) => json!({"enum": c}),
            Kind::Real | Kind::Whole => {
                let mut j = json!({"type": if self.kind == Kind::Whole { "integer" } else { "number" }});
                match self.min {
                    Bound::Incl(x) => j["minimum"] = json!(x),
                    Bound::Excl(x) => j["exclusiveMinimum"] = json!(x),
                }
                match self.max {
                    Bound::Incl(x) => j["maximum"] = json!(x),
                    Bound::Excl(x) => j["exclusiveMaximum"] = json!(x),
                }
                j
            }
        };
        j["description"] = json!(format!("{}{unit}{source}", self.doc));
        match self.default {
            DefaultValue::Num(x) => j["default"] = json!(x),
            DefaultValue::Flag(b) => j["default"] = json!(b),
            DefaultValue::Word(w) => j["default"] = json!(w),
            DefaultValue::Unset => {}
        }
        j
    }

    /// The parameter as a catalog entry (JSON object).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let default = match self.default {
            DefaultValue::Num(x) => json!(x),
            DefaultValue::Flag(b) => json!(b),
            DefaultValue::Word(w) => json!(w),
            DefaultValue::Unset => serde_json::Value::Null,
        };
        let (min, max, min_open, max_open) = match self.kind {
            Kind::Real | Kind::Whole => (
                json!(self.min.value()),
                json!(self.max.value()),
                matches!(self.min, Bound::Excl(_)),
                matches!(self.max, Bound::Excl(_)),
            ),
            _ => (serde_json::Value::Null, serde_json::Value::Null, false, false),
        };
        let choices = match self.kind {
            Kind::Choice(c) => json!(c),
            _ => json!([]),
        };
        json!({
            "name": self.name,
            "key": self.key(),
            "kind": self.kind.name(),
            "default": default,
            "unit": self.unit.symbol(),
            "min": min,
            "max": max,
            "min_open": min_open,
            "max_open": max_open,
            "choices": choices,
            "expected": self.expected(),
            "doc": self.doc,
            "source": self.source,
            "aliases": self.aliases,
        })
    }
}

fn num(x: f64) -> String {
    if x.abs() >= 1e6 && x.fract() == 0.0 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn quoted(c: &[&str]) -> String {
    c.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ")
}

/// A checked value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// A number (also whole numbers).
    Num(f64),
    /// A flag.
    Flag(bool),
    /// A word of a choice.
    Word(&'static str),
}

/// Checked parameter values with defaults filled in, read by a typed config.
#[derive(Clone, Debug)]
pub struct Values {
    table: Vec<Param>,
    vals: Vec<Option<Val>>,
    given: Vec<bool>,
}

impl Values {
    /// The defaults of `tables` (a config's own table, then any it extends).
    pub fn defaults(tables: &[&'static [Param]]) -> Values {
        let table: Vec<Param> = tables.iter().flat_map(|t| t.iter().copied()).collect();
        Values {
            vals: table.iter().map(Param::default_val).collect(),
            given: vec![false; table.len()],
            table,
        }
    }

    /// The parameters these values are for.
    pub fn table(&self) -> &[Param] {
        &self.table
    }

    fn slot(&self, name: &str) -> usize {
        // A name missing from the table is a bug in the config that reads it (every config is
        // built from its defaults by a unit test), not bad input.
        self.table
            .iter()
            .position(|p| p.name == name)
            .unwrap_or_else(|| panic!("parameter '{name}' is not in its table"))
    }

    /// Whether the parameter has a value (given or defaulted).
    pub fn is_set(&self, name: &str) -> bool {
        self.vals[self.slot(name)].is_some()
    }

    /// Whether the scenario gave the parameter (rather than its default applying).
    pub fn is_given(&self, name: &str) -> bool {
        self.given[self.slot(name)]
    }

    /// Set a value (already checked), e.g. a scheme preset's default.
    pub fn set(&mut self, name: &str, v: Val) {
        let i = self.slot(name);
        self.vals[i] = Some(v);
    }

    /// An optional number.
    pub fn opt_real(&self, name: &str) -> Option<f64> {
        match self.vals[self.slot(name)] {
            Some(Val::Num(x)) => Some(x),
            _ => None,
        }
    }

    /// A number (the parameter must have a default).
    pub fn real(&self, name: &str) -> f64 {
        self.opt_real(name)
            .unwrap_or_else(|| panic!("parameter '{name}' has no value"))
    }

    /// A whole number as `u32`.
    pub fn whole(&self, name: &str) -> u32 {
        self.real(name) as u32
    }

    /// An optional whole number as `u64`.
    pub fn opt_whole(&self, name: &str) -> Option<u64> {
        self.opt_real(name).map(|x| x as u64)
    }

    /// A flag.
    pub fn flag(&self, name: &str) -> bool {
        match self.vals[self.slot(name)] {
            Some(Val::Flag(b)) => b,
            _ => panic!("parameter '{name}' is not a flag with a value"),
        }
    }

    /// A word of a choice.
    pub fn word(&self, name: &str) -> &'static str {
        match self.vals[self.slot(name)] {
            Some(Val::Word(w)) => w,
            _ => panic!("parameter '{name}' is not a choice with a value"),
        }
    }

    /// A time given in ms.
    pub fn ms(&self, name: &str) -> Dur {
        Dur::from_millis_f64(self.real(name))
    }

    /// A time given in seconds.
    pub fn secs(&self, name: &str) -> Dur {
        Dur::from_secs_f64(self.real(name))
    }
}

/// Check `given` against `table` and fill in defaults. `prefix` names the owner in errors
/// (`cubic` → `cubic.beta`; `hops[0].queue` → `hops[0].queue.eta`); `owner` is its name in the
/// "unknown parameter" message (`cubic`, `the codel queue`).
pub fn parse(prefix: &str, owner: &str, tables: &[&'static [Param]], given: &Given) -> Result<Values> {
    let mut out = Values::defaults(tables);
    let table = out.table.clone();
    for (name, v) in given {
        let key = format!("{prefix}.{name}");
        let Some(i) = table.iter().position(|p| p.name == name) else {
            let names: Vec<&str> = table.iter().map(|p| p.name).collect();
            return Err(Error::Param {
                key,
                msg: if names.is_empty() {
                    format!("unknown parameter; {owner} takes none")
                } else {
                    format!(
                        "unknown parameter{}; {owner} accepts: {}",
                        did_you_mean(name, &names),
                        names.join(", ")
                    )
                },
            });
        };
        out.vals[i] = Some(table[i].check(&key, v)?);
        out.given[i] = true;
    }
    Ok(out)
}

/// A typed configuration read from parameter tables.
pub trait Config: Sized {
    /// Key prefix in errors (`cubic` → `cubic.beta`).
    const PREFIX: &'static str;
    /// Its parameter tables: its own, then any it extends.
    const TABLES: &'static [&'static [Param]];

    /// The config from checked values (every parameter of [`Config::TABLES`] present or unset).
    fn from_values(v: &Values) -> Self;

    /// Checks that involve more than one parameter (each single range is in the table).
    fn check(&self) -> Result<()> {
        Ok(())
    }

    /// The config from checked values, cross-checked.
    fn checked(v: &Values) -> Result<Self> {
        let c = Self::from_values(v);
        c.check()?;
        Ok(c)
    }

    /// Parse and check `given` (unknown names are errors).
    fn from_given(given: &Given) -> Result<Self> {
        Self::checked(&parse(Self::PREFIX, Self::PREFIX, Self::TABLES, given)?)
    }

    /// Take this config's parameters out of a plain `name → number` map (flags as 0/1), leaving
    /// other names in place, and parse them. For Rust callers and tests.
    fn from_params(p: &mut BTreeMap<String, f64>) -> Result<Self> {
        let mut given = Given::new();
        for t in Self::TABLES {
            for param in t.iter() {
                if let Some(x) = p.remove(param.name) {
                    given.insert(param.name.to_string(), Value::Num(x));
                }
            }
        }
        Self::from_given(&given)
    }
}

/// Implement `Default` for a [`Config`] from its parameter tables, so the tables are the only
/// place that holds the defaults.
#[macro_export]
macro_rules! default_from_table {
    ($t:ty) => {
        impl ::std::default::Default for $t {
            fn default() -> Self {
                <$t as $crate::params::Config>::from_values(&$crate::params::Values::defaults(
                    <$t as $crate::params::Config>::TABLES,
                ))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &[Param] = &[
        Param::real("beta", 0.7, Unit::None, 0.0, 1.0).open(true, false),
        Param::whole("iw", 10, Unit::Segments, 1, 100),
        Param::flag("on", true),
        Param::choice("src", "a", &["a", "b"]),
        Param::real("delta_ms", 133.0, Unit::Ms, 0.0, 1e7).open(true, false),
        Param::real("opt", 0.0, Unit::None, 0.0, 1.0).unset(),
    ];

    fn given(pairs: &[(&str, Value)]) -> Given {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn defaults_fill_in_and_given_values_win() {
        let v = parse("x", "x", &[T], &given(&[("beta", 0.5.into())])).unwrap();
        assert_eq!(v.real("beta"), 0.5);
        assert_eq!(v.whole("iw"), 10);
        assert!(v.flag("on"));
        assert_eq!(v.word("src"), "a");
        assert_eq!(v.ms("delta_ms"), Dur::from_millis(133));
        assert_eq!(v.opt_real("opt"), None);
    }

    #[test]
    fn ranges_kinds_and_names_are_enforced_with_the_key() {
        let err = |pairs: &[(&str, Value)]| match parse("hops[0].queue", "q", &[T], &given(pairs)) {
            Err(Error::Param { key, msg }) => (key, msg),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(&[("beta", 0.0.into())]),
            ("hops[0].queue.beta".into(), "got 0; expected a number in (0, 1]".into())
        );
        assert_eq!(
            err(&[("iw", 1.5.into())]).1,
            "got 1.5; expected a whole number of segments in [1, 100]"
        );
        assert_eq!(err(&[("on", 2.0.into())]).1, "got 2; expected true or false (or 1/0)");
        assert!(err(&[("src", Value::Word("c".into()))])
            .1
            .contains("expected one of 'a', 'b'"));
        assert!(err(&[("beta", f64::NAN.into())]).1.contains("expected"));
        let (k, m) = err(&[("bta", 0.5.into())]);
        assert_eq!(k, "hops[0].queue.bta");
        assert!(m.contains("did you mean 'beta'"), "{m}");
        // Flags also take 0/1.
        let v = parse("x", "x", &[T], &given(&[("on", 0.0.into())])).unwrap();
        assert!(!v.flag("on"));
    }

    #[test]
    fn short_keys_drop_a_repeated_unit() {
        assert_eq!(T[4].key(), "delta");
        assert_eq!(T[0].key(), "beta");
        assert_eq!(T[4].expected(), "a time in ms in (0, 1e7]");
    }
}
