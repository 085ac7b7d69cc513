//! The schemes' own programs (`emulate --upstream SCHEME`): the authors' Copa (genericCC), Sprout
//! (sproutbt2), Verus and PCC-Vivace, built by `make upstream` as external programs, launched as
//! the Pantheon harness launches them (its wrappers' command lines and environment), the data
//! sender behind the link (inner namespace) and the receiver outside it, so that the data crosses
//! the trace link, queue and delay exactly as `run`'s and kernel TCP's data does.
//!
//! This module only says what to run (pure, tested on every platform); `cli.rs` runs it.

use std::path::{Path, PathBuf};

/// The schemes with an upstream program, by our scheme names.
pub const SCHEMES: [&str; 4] = ["copa", "sprout", "verus", "pcc-vivace"];

/// The UDP port the programs' listening side binds (any free port would do).
pub const PORT: u16 = 9000;

/// Where `make upstream` installs the programs: `$ACCELBRAKE_UPSTREAM_DIR`, else
/// `$XDG_DATA_HOME/accelbrake/upstream`, else `$HOME/.local/share/accelbrake/upstream`.
pub fn programs_dir() -> Option<PathBuf> {
    dir_from(|k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from))
}

fn dir_from(env: impl Fn(&str) -> Option<PathBuf>) -> Option<PathBuf> {
    if let Some(d) = env("ACCELBRAKE_UPSTREAM_DIR") {
        return Some(d);
    }
    if let Some(d) = env("XDG_DATA_HOME") {
        return Some(d.join("accelbrake").join("upstream"));
    }
    env("HOME").map(|h| h.join(".local/share/accelbrake/upstream"))
}

/// Which end of the link a program runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Behind the link (the data sender's side): the inner namespace.
    Inner,
    /// Outside the link: the outer namespace.
    Outer,
}

/// One program to start.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Which namespace.
    pub side: Side,
    /// The executable.
    pub path: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Send its standard output to /dev/null (Copa's sender prints a line per ACK).
    pub quiet: bool,
}

/// The two programs of a scheme, in the order they start: the listening side first, then (once
/// it listens) the side that connects, whose start is time zero of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Starts first and listens on [`PORT`].
    pub first: Program,
    /// Connects to the first.
    pub second: Program,
}

/// The launch plan of `scheme` with its programs in `dir`; `inner` and `outer` are the two
/// namespaces' addresses; `log_dir` is a writable folder for Verus's logs. `Err` names what is
/// missing (and says to run `make upstream`).
pub fn plan(scheme: &str, dir: &Path, inner: &str, outer: &str, log_dir: &Path) -> Result<Plan, String> {
    let port = PORT.to_string();
    let exe = |rel: &str| -> Result<PathBuf, String> {
        let p = dir.join(rel);
        if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "the authors' program {} is not built (run `make upstream`, which installs them there)",
                p.display()
            ))
        }
    };
    let prog = |side, path, args: Vec<String>, env: Vec<(String, String)>| Program {
        side,
        path,
        args,
        env,
        quiet: false,
    };
    Ok(match scheme {
        // Pantheon's copa wrapper: receiver first (`receiver PORT`); the sender with
        // MIN_RTT=1000000 and one deterministic "on" period of 10^6 ms, Copa's markovian
        // controller with delta_conf=do_ss:auto:0.1 (slow start, delta 0.1 with automatic mode
        // switching), its stdout discarded.
        "copa" => {
            let rx = exe("copa/receiver")?;
            let tx = exe("copa/sender")?;
            let args = [
                format!("serverip={outer}"),
                format!("serverport={port}"),
                "offduration=1".into(),
                "onduration=1000000".into(),
                "traffic_params=deterministic,num_cycles=1".into(),
                "cctype=markovian".into(),
                "delta_conf=do_ss:auto:0.1".into(),
            ];
            Plan {
                first: prog(Side::Outer, rx, vec![port], vec![]),
                second: Program {
                    quiet: true,
                    ..prog(
                        Side::Inner,
                        tx,
                        args.to_vec(),
                        vec![("MIN_RTT".into(), "1000000".into())],
                    )
                },
            }
        }
        // Pantheon's sprout wrapper: `sproutbt2 PORT` receives, `sproutbt2 IP PORT` sends, both
        // with SPROUT_MODEL_IN naming the model shipped with the source.
        "sprout" => {
            let bin = exe("sprout/sproutbt2")?;
            let model = exe("sprout/sprout.model")?;
            let env = vec![("SPROUT_MODEL_IN".to_string(), model.to_string_lossy().into_owned())];
            Plan {
                first: prog(Side::Outer, bin.clone(), vec![port.clone()], env.clone()),
                second: prog(Side::Inner, bin, vec![outer.into(), port], env),
            }
        }
        // Pantheon's verus wrapper: the sender (verus_server) first, `-name DIR -p PORT -t 75`;
        // the receiver (verus_client) connects: `verus_client IP -p PORT`. The server sends its
        // data to the client, so it runs behind the link.
        "verus" => {
            let tx = exe("verus/verus_server")?;
            let rx = exe("verus/verus_client")?;
            let name = log_dir.to_string_lossy().into_owned();
            Plan {
                first: prog(
                    Side::Inner,
                    tx,
                    vec![
                        "-name".into(),
                        name,
                        "-p".into(),
                        port.clone(),
                        "-t".into(),
                        "75".into(),
                    ],
                    vec![],
                ),
                second: prog(Side::Outer, rx, vec![inner.into(), "-p".into(), port], vec![]),
            }
        }
        // Pantheon's vivace wrapper: `vivace_receiver PORT` first, then `vivace_sender IP PORT`,
        // each with LD_LIBRARY_PATH at its own folder (the authors' libudt.so).
        "pcc-vivace" => {
            let rx = exe("pcc-vivace/receiver/vivace_receiver")?;
            let tx = exe("pcc-vivace/sender/vivace_sender")?;
            let lib = |p: &Path| {
                vec![(
                    "LD_LIBRARY_PATH".to_string(),
                    p.parent().unwrap_or(Path::new(".")).to_string_lossy().into_owned(),
                )]
            };
            let (rx_env, tx_env) = (lib(&rx), lib(&tx));
            Plan {
                first: prog(Side::Outer, rx, vec![port.clone()], rx_env),
                second: prog(Side::Inner, tx, vec![outer.into(), port], tx_env),
            }
        }
        other => {
            return Err(format!(
                "--upstream: no authors' program for '{other}' (expected one of {})",
                SCHEMES.join(", ")
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty folder under the system's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("accelbrake-upstream-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A folder laid out as `make upstream` installs (empty files stand for the programs).
    fn fake_dir(name: &str) -> PathBuf {
        let d = scratch(name);
        for rel in [
            "copa/receiver",
            "copa/sender",
            "sprout/sproutbt2",
            "sprout/sprout.model",
            "verus/verus_server",
            "verus/verus_client",
            "pcc-vivace/receiver/vivace_receiver",
            "pcc-vivace/sender/vivace_sender",
        ] {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"").unwrap();
        }
        d
    }

    #[test]
    fn the_data_sender_runs_behind_the_link_for_every_scheme() {
        let d = fake_dir("sides");
        for s in SCHEMES {
            let p = plan(s, &d, "10.0.0.2", "10.0.0.1", Path::new("/var/empty")).unwrap();
            let sender = if s == "verus" { &p.first } else { &p.second };
            assert_eq!(sender.side, Side::Inner, "{s}");
            let other = if s == "verus" { &p.second } else { &p.first };
            assert_eq!(other.side, Side::Outer, "{s}");
            // The connecting side names the listening side's address and our port.
            let target = if s == "verus" { "10.0.0.2" } else { "10.0.0.1" };
            assert!(
                p.second.args.iter().any(|a| a.ends_with(target)),
                "{s}: {:?}",
                p.second.args
            );
            assert!(p.first.args.iter().any(|a| a == &PORT.to_string()), "{s}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn copa_is_launched_with_pantheons_arguments() {
        let d = fake_dir("copa");
        let p = plan("copa", &d, "i", "o", Path::new("/")).unwrap();
        assert!(p.second.args.contains(&"cctype=markovian".to_string()));
        assert!(p.second.args.contains(&"delta_conf=do_ss:auto:0.1".to_string()));
        assert_eq!(p.second.env, vec![("MIN_RTT".to_string(), "1000000".to_string())]);
        assert!(p.second.quiet);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_program_says_to_run_make_upstream() {
        let d = scratch("missing");
        let e = plan("sprout", &d, "i", "o", Path::new("/")).unwrap_err();
        assert!(e.contains("make upstream") && e.contains("sproutbt2"), "{e}");
        let e = plan("bbr", &d, "i", "o", Path::new("/")).unwrap_err();
        assert!(e.contains("copa, sprout, verus, pcc-vivace"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_programs_folder_follows_the_environment() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| PathBuf::from(v))
        };
        assert_eq!(
            dir_from(env(&[("ACCELBRAKE_UPSTREAM_DIR", "/a"), ("HOME", "/h")])),
            Some(PathBuf::from("/a"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_DATA_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/accelbrake/upstream"))
        );
        assert_eq!(
            dir_from(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/share/accelbrake/upstream"))
        );
        assert_eq!(dir_from(env(&[])), None);
    }
}
