//! Programs run behind the link (`shell`'s program and `--outer` command) live in a PID namespace
//! of their own, so that nothing they start outlives the emulator, even when it is killed with
//! SIGKILL.
//!
//! `PR_SET_PDEATHSIG` alone reaches only the emulator's direct child: a program's own children
//! (a shell script's background jobs, a server's workers) were re-parented and survived a
//! `kill -9` of the emulator, keeping the namespace alive. A PID namespace ends with its init:
//! when its PID 1 exits the kernel kills every other process in it (pid_namespaces(7)). So:
//!
//! ```text
//! emulator ──fork+exec──► accelbrake-emu __init (I)  PDEATHSIG=KILL, unshare(CLONE_NEWPID) before exec
//!                           └─fork─► PID 1 of the new namespace (P1)  PDEATHSIG=KILL
//!                                     └─fork+exec─► the program (PID 2) and everything it starts
//! ```
//!
//! The emulator dies → I gets SIGKILL (its death signal) → P1 gets SIGKILL (its death signal,
//! which the kernel delivers to a namespace init from outside it) → the kernel kills the whole
//! namespace. SIGINT, SIGTERM and SIGHUP sent to I are passed to P1 and from there to every process
//! of the namespace, as a terminal's Ctrl-C reaches the whole foreground job (an init receives only
//! signals it handles, so P1 installs handlers; the program is not an init and keeps the default
//! actions, so Ctrl-C works for programs without handlers). When the
//! program exits, P1 exits with its status (its leftovers die with the namespace) and I with P1's:
//! the emulator sees the program's own exit status (128 + signal if it was killed).

use nix::sys::signal::{self, SigHandler, SigSet, SigmaskHow, Signal};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::{fork, ForkResult, Pid};
use std::ffi::CString;

/// The hidden subcommand that runs `I` (see the module doc).
pub const INIT_SUBCOMMAND: &str = "__init";

const FORWARDED: [Signal; 3] = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];

extern "C" fn ignore(_: libc::c_int) {}

fn blocked() -> SigSet {
    let mut s = SigSet::empty();
    for sig in FORWARDED {
        s.add(sig);
    }
    s.add(Signal::SIGCHLD);
    s
}

fn status_code(st: WaitStatus) -> Option<i32> {
    match st {
        WaitStatus::Exited(_, c) => Some(c),
        WaitStatus::Signaled(_, s, _) => Some(128 + s as i32),
        _ => None,
    }
}

/// Wait for `child`, passing the forwarded signals on and reaping every other child (an init
/// adopts orphans); returns `child`'s exit status. `to_all`: pass them to every process of the
/// namespace (`kill(-1, sig)` from its init), as a terminal's Ctrl-C reaches the whole foreground
/// job (a shell script's running command as well as the shell); else to `child` only.
fn supervise(child: Pid, set: &SigSet, to_all: bool) -> i32 {
    loop {
        let sig = set.wait().unwrap_or(Signal::SIGCHLD);
        if sig != Signal::SIGCHLD {
            let target = if to_all { Pid::from_raw(-1) } else { child };
            let _ = signal::kill(target, sig);
            continue;
        }
        loop {
            match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) | Err(_) => break,
                Ok(st) => {
                    if st.pid() == Some(child) {
                        if let Some(code) = status_code(st) {
                            return code;
                        }
                    }
                }
            }
        }
    }
}

/// `accelbrake-emu __init -- PROGRAM ARGS...`: `I` of the module doc. Run only by
/// [`crate::netns::Netns::command_isolated`], which unshares the PID namespace before the exec.
pub fn init_main(program: &[String]) -> i32 {
    if program.is_empty() {
        eprintln!("accelbrake-emu {INIT_SUBCOMMAND}: no program given");
        return 2;
    }
    let args: Vec<CString> = match program.iter().map(|a| CString::new(a.as_bytes())).collect() {
        Ok(a) => a,
        Err(_) => {
            eprintln!("accelbrake-emu: '{}': an argument holds a NUL byte", program[0]);
            return 2;
        }
    };
    let set = blocked();
    // Handlers (never run: the signals stay blocked and are taken by sigwait) so that an init
    // receives them from outside its namespace.
    for sig in FORWARDED.iter().chain([Signal::SIGCHLD].iter()) {
        let act = signal::SigAction::new(
            SigHandler::Handler(ignore),
            signal::SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        // SAFETY: installing a handler that does nothing.
        let _ = unsafe { signal::sigaction(*sig, &act) };
    }
    if signal::sigprocmask(SigmaskHow::SIG_BLOCK, Some(&set), None).is_err() {
        return 126;
    }
    // A pipe whose write end only I holds: P1 sees it hang up if I is already gone when P1 has
    // set its death signal (P1's getppid() is 0 either way: its parent is outside its namespace).
    let Ok((alive_r, alive_w)) = nix::unistd::pipe() else {
        return 126;
    };
    // SAFETY: this process is single-threaded (just exec'd), so fork is sound.
    match unsafe { fork() } {
        Err(e) => {
            eprintln!("accelbrake-emu: fork: {e}");
            126
        }
        Ok(ForkResult::Parent { child }) => {
            drop(alive_r);
            let code = supervise(child, &set, false);
            drop(alive_w);
            code
        }
        Ok(ForkResult::Child) => {
            // P1: PID 1 of the new namespace; dies (and takes the namespace with it) with I.
            drop(alive_w);
            // SAFETY: prctl with integer arguments.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
            let mut fds = [nix::poll::PollFd::new(
                std::os::fd::AsFd::as_fd(&alive_r),
                nix::poll::PollFlags::POLLIN,
            )];
            if nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO).unwrap_or(0) > 0 {
                std::process::exit(137); // I is gone (hang-up): so is the emulator.
            }
            drop(alive_r);
            // SAFETY: still single-threaded.
            match unsafe { fork() } {
                Err(e) => {
                    eprintln!("accelbrake-emu: fork: {e}");
                    std::process::exit(126)
                }
                Ok(ForkResult::Parent { child }) => std::process::exit(supervise(child, &set, true)),
                Ok(ForkResult::Child) => {
                    // The program: default signal actions and an empty mask.
                    for sig in FORWARDED.iter().chain([Signal::SIGCHLD].iter()) {
                        // SAFETY: restoring the default disposition.
                        let _ = unsafe { signal::signal(*sig, SigHandler::SigDfl) };
                    }
                    let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None);
                    let e = nix::unistd::execvp(&args[0], &args).unwrap_err();
                    eprintln!("accelbrake-emu: cannot run '{}': {e}", program[0]);
                    std::process::exit(if e == nix::errno::Errno::ENOENT { 127 } else { 126 })
                }
            }
        }
    }
}
