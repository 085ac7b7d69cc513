//! How much more memory this process may take before an allocation fails: the room left under its
//! address-space limit (`RLIMIT_AS`, `ulimit -v`) and under its cgroup's `memory.max` (Linux; read
//! from `/proc` and `/sys/fs/cgroup`, no system calls). The memory budget check refuses a run that
//! would not fit, with a clear error, instead of aborting the process mid-run when an allocation
//! fails ("memory allocation of N bytes failed" and SIGABRT).

/// The tightest limit on further allocation, as `(bytes left, what sets it)`, or `None` when no
/// limit is set or it cannot be read (any other system than Linux).
pub fn headroom() -> Option<(f64, String)> {
    let mut best: Option<(f64, String)> = None;
    let mut consider = |left: f64, why: String| {
        if best.as_ref().is_none_or(|(b, _)| left < *b) {
            best = Some((left.max(0.0), why));
        }
    };
    if let Some((limit, used)) = address_space() {
        consider(
            limit - used,
            format!(
                "its address-space limit (RLIMIT_AS, `ulimit -v`) of {:.0} MB, {:.0} MB of it in use",
                limit / 1e6,
                used / 1e6
            ),
        );
    }
    if let Some((limit, used)) = cgroup_memory() {
        consider(
            limit - used,
            format!(
                "its cgroup's memory limit (memory.max) of {:.0} MB, {:.0} MB of it in use",
                limit / 1e6,
                used / 1e6
            ),
        );
    }
    best
}

/// The soft `RLIMIT_AS` and the process's current virtual size (`VmSize`), in bytes.
fn address_space() -> Option<(f64, f64)> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..].split_whitespace().next()?;
    let limit: f64 = soft.parse().ok()?; // "unlimited" does not parse: no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((limit, kb * 1024.0))
}

/// The memory limit of the process's cgroup (v2 `memory.max`, the smallest on the way up to the
/// root) and that cgroup's current use (`memory.current`), in bytes.
fn cgroup_memory() -> Option<(f64, f64)> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?;
    let mut dir = std::path::PathBuf::from("/sys/fs/cgroup").join(rel.trim_start_matches('/'));
    let mut best: Option<(f64, f64)> = None;
    loop {
        let max = std::fs::read_to_string(dir.join("memory.max")).ok();
        let cur = std::fs::read_to_string(dir.join("memory.current")).ok();
        if let (Some(max), Some(cur)) = (max, cur) {
            if let (Ok(max), Ok(cur)) = (max.trim().parse::<f64>(), cur.trim().parse::<f64>()) {
                if best.is_none_or(|(m, c)| max - cur < m - c) {
                    best = Some((max, cur));
                }
            }
        }
        if dir == std::path::Path::new("/sys/fs/cgroup") || !dir.pop() {
            break;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    #[test]
    fn headroom_is_none_or_a_finite_non_negative_number_with_its_reason() {
        if let Some((left, why)) = super::headroom() {
            assert!(left.is_finite() && left >= 0.0);
            assert!(why.contains("limit"));
        }
    }
}
