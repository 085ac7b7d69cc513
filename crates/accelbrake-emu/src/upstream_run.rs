//! `emulate --upstream SCHEME`: run the authors' sender and receiver ([`accelbrake_emu::upstream`])
//! in the emulator's two namespaces over the same link, queue and delay as every other `emulate`,
//! and report `run`'s figures from the link's own per-packet records (so a UDP program is measured
//! exactly as kernel TCP is: utilisation of the trace's opportunities, per-packet and queueing
//! delay of the data packets that crossed the link).

use crate::cli::{emit, merge, run_timed, setup, summary, Opts};
use accelbrake_emu::netns::{Netns, INNER_ADDR, OUTER_ADDR};
use accelbrake_emu::upstream::{self, Plan, Program, Side};
use serde_json::json;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

/// How long the listening side is given to bind its socket before the other side starts.
const LISTEN_GRACE: Duration = Duration::from_millis(300);

/// The programs' folder, or why there is none.
fn dir() -> Result<PathBuf, String> {
    upstream::programs_dir().ok_or_else(|| {
        "--upstream: no folder for the authors' programs (set ACCELBRAKE_UPSTREAM_DIR or HOME; `make upstream` builds them)"
            .to_string()
    })
}

/// Options that do not go with `--upstream` are refused before anything runs.
pub(crate) fn validate(o: &Opts, scheme: &str) -> Result<(), String> {
    if o.scheme.is_some() {
        return Err("--upstream runs the authors' programs: give it without --scheme".into());
    }
    if o.flows != 1 {
        return Err("--upstream: one flow (the authors' programs are one connection each)".into());
    }
    if !upstream::SCHEMES.contains(&scheme) {
        return Err(format!(
            "--upstream: no authors' program for '{scheme}' (expected one of {})",
            upstream::SCHEMES.join(", ")
        ));
    }
    Ok(())
}

/// With `--rt`, the authors' programs run at nice −20: a CFS weight about 87 times a normal
/// process's, so that other work on the machine barely slows them, without the risk of a
/// real-time policy (a program that spins would take a whole core from everything else).
const RT_NICE: libc::c_int = -20;

fn spawn(p: &Program, inner: &Netns, outer: &Netns, log: &Path, what: &str, rt: bool) -> Result<Child, String> {
    let ns = match p.side {
        Side::Inner => inner,
        Side::Outer => outer,
    };
    let prog = p.path.to_string_lossy();
    let mut c = ns
        .command_isolated(&prog, &p.args)
        .map_err(|e| format!("--upstream: cannot run {prog}: {e}"))?;
    for (k, v) in &p.env {
        c.env(k, v);
    }
    if rt {
        use std::os::unix::process::CommandExt;
        // SAFETY: setpriority is async-signal-safe; it changes only the child's own nice value,
        // which its pid-namespace init and the program inherit.
        unsafe {
            c.pre_exec(|| {
                if libc::setpriority(libc::PRIO_PROCESS, 0, RT_NICE) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let err = std::fs::File::create(log).map_err(|e| format!("--upstream: {}: {e}", log.display()))?;
    let out: Stdio = if p.quiet {
        Stdio::null()
    } else {
        err.try_clone().map_err(|e| e.to_string())?.into()
    };
    c.current_dir(log.parent().unwrap_or(Path::new("/")))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    c.spawn()
        .map_err(|e| format!("--upstream: cannot start the {what} {prog}: {e}"))
}

/// The last lines a program wrote (for an error message).
fn tail(log: &Path) -> String {
    let t = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = t.lines().rev().take(5).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

fn stop(c: &mut Child) -> Option<i32> {
    if let Ok(Some(st)) = c.try_wait() {
        return st.code();
    }
    let _ = c.kill();
    let _ = c.wait();
    None
}

pub(crate) fn emulate(o: &Opts, scheme: &str, secs: f64) -> Result<i32, String> {
    let dir = dir()?;
    let work = std::env::temp_dir().join(format!("accelbrake-upstream-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("--upstream: {}: {e}", work.display()))?;
    let inner = Ipv4Addr::from(INNER_ADDR).to_string();
    let outer = Ipv4Addr::from(OUTER_ADDR).to_string();
    let plan: Plan = upstream::plan(scheme, &dir, &inner, &outer, &work)?;
    let (mut emu, mut sig) = setup(o)?;
    let (log1, log2) = (work.join("first.log"), work.join("second.log"));
    let mut first = spawn(&plan.first, &emu.inner, &emu.outer, &log1, "listening side", o.rt)?;
    std::thread::sleep(LISTEN_GRACE);
    if let Ok(Some(st)) = first.try_wait() {
        let _ = std::fs::remove_dir_all(&work);
        return Err(format!(
            "--upstream {scheme}: {} exited at once ({st}): {}",
            plan.first.path.display(),
            tail(&log1)
        ));
    }
    // Time zero: the connecting side starts.
    emu.reset_clock();
    let mut second = match spawn(&plan.second, &emu.inner, &emu.outer, &log2, "connecting side", o.rt) {
        Ok(c) => c,
        Err(e) => {
            stop(&mut first);
            return Err(e);
        }
    };
    let run = run_timed(o, &mut emu, &mut sig, secs);
    let early = [second.try_wait().ok().flatten(), first.try_wait().ok().flatten()];
    stop(&mut second);
    stop(&mut first);
    let (c, end) = run?;
    let mut v = summary(o, &emu, &c, end);
    let sizes: Vec<u32> = c.up.iter().map(|d| d.size).collect();
    let data = sizes.iter().filter(|&&s| s > accelbrake_emu::flows::DATA_MIN_BYTES);
    let (n_data, max_size) = (data.clone().count(), sizes.iter().copied().max().unwrap_or(0));
    let mean_data = if n_data > 0 {
        data.map(|&s| s as f64).sum::<f64>() / n_data as f64
    } else {
        f64::NAN
    };
    merge(
        &mut v,
        json!({
            "transport": "upstream",
            "cc": scheme,
            "upstream_dir": dir,
            "upstream_nice": if o.rt { RT_NICE } else { 0 },
            "upstream_command": {
                "first": command_line(&plan.first),
                "second": command_line(&plan.second),
            },
            "uplink_packets": sizes.len(),
            "small_packets": sizes.len() - n_data,
            "mean_data_packet_bytes": mean_data,
            "max_packet_bytes": max_size,
            "exited_early": early.iter().flatten().map(|s| s.to_string()).collect::<Vec<_>>(),
        }),
    );
    if c.up.is_empty() {
        let msg = format!(
            "--upstream {scheme}: no packet crossed the link; the programs said: [{}] [{}]",
            tail(&log1),
            tail(&log2)
        );
        let _ = std::fs::remove_dir_all(&work);
        return Err(msg);
    }
    let _ = std::fs::remove_dir_all(&work);
    emit(o, &v)?;
    Ok(0)
}

fn command_line(p: &Program) -> String {
    let env: Vec<String> = p.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut parts = env;
    parts.push(p.path.to_string_lossy().into_owned());
    parts.extend(p.args.iter().cloned());
    parts.join(" ")
}
