//! Errors. Every error names what was wrong (file and line, or parameter key) and what was
//! expected; none is a panic.

use std::fmt;

/// A simulator error. All variants are fatal for the run that produced them; nothing is retried.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A trace file could not be read or parsed.
    Trace {
        /// File path.
        path: String,
        /// 1-based line number, 0 if the error concerns the whole file.
        line: usize,
        /// What was wrong and what was expected.
        msg: String,
    },
    /// A scenario or scheme parameter is invalid.
    Param {
        /// Dotted key, e.g. `hops[0].queue.delta_ms` or `abc.eta`.
        key: String,
        /// What was wrong and what was expected.
        msg: String,
    },
    /// The scenario document itself is malformed (JSON syntax or shape).
    Scenario {
        /// Where in the document, e.g. `hops[1].link` (empty: the document as a whole).
        path: String,
        /// What was wrong and what was expected.
        msg: String,
    },
    /// The run was stopped before its end because its stop flag was set (Ctrl-C); no result.
    Interrupted,
}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Trace { path, line: 0, msg } => write!(f, "trace file {path}: {msg}"),
            Error::Trace { path, line, msg } => write!(f, "trace file {path}, line {line}: {msg}"),
            Error::Param { key, msg } => write!(f, "parameter {key}: {msg}"),
            Error::Scenario { path, msg } if path.is_empty() => write!(f, "scenario: {msg}"),
            Error::Scenario { path, msg } => write!(f, "scenario: {path}: {msg}"),
            Error::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for Error {}

/// A " (did you mean 'x'?)" suffix for the closest known name, or "": at most 3 edits, and fewer
/// than half the name's length unless the name begins the suggestion (so `mtu` does not suggest
/// `beta`, but `target` suggests `target_ms`).
pub fn did_you_mean(name: &str, known: &[&str]) -> String {
    let best = known.iter().map(|k| (levenshtein(name, k), *k)).min_by_key(|(d, _)| *d);
    let len = name.chars().count();
    match best {
        Some((d, k)) if d <= 3 && (2 * d < len.max(2) || k.starts_with(name)) => format!(" (did you mean '{k}'?)"),
        _ => String::new(),
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Check that `v` is finite and within `[lo, hi]`.
pub(crate) fn check_range(key: &str, v: f64, lo: f64, hi: f64, what: &str) -> Result<()> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else if v.is_finite() && v > hi && !what.contains("at most") {
        // Above the bound: say the bound (`what` often only states the lower end, "≥ 0").
        Err(Error::Param {
            key: key.into(),
            msg: format!("got {v}; expected {what}, at most {hi}"),
        })
    } else {
        Err(Error::Param {
            key: key.into(),
            msg: format!("got {v}; expected {what}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("cubc", &["cubic", "abc"]), " (did you mean 'cubic'?)");
        assert_eq!(did_you_mean("zzzzzzzz", &["cubic", "abc"]), "");
        assert_eq!(did_you_mean("mtu", &["beta", "alpha"]), "");
        assert_eq!(did_you_mean("target", &["target_ms"]), " (did you mean 'target_ms'?)");
        assert_eq!(did_you_mean("targt_ms", &["target_ms"]), " (did you mean 'target_ms'?)");
    }
}
