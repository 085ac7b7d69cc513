//! Anonymous network namespaces and TUN devices.
//!
//! Namespaces are created with `unshare(CLONE_NEWNET)` on a short-lived thread and kept alive only
//! by an open `/proc/thread-self/ns/net` descriptor; TUN devices are not persistent. Nothing is
//! named in `/run/netns` and nothing outlives the process: when it exits — normally, on Ctrl-C or
//! killed — the kernel closes the descriptors and removes the devices and namespaces. Programs run
//! inside get `PR_SET_PDEATHSIG` so they do not outlive it either.

use nix::sched::{setns, unshare, CloneFlags};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Addresses of the two ends (RFC 6598 shared address space, as Mahimahi uses for its shells).
pub const INNER_ADDR: [u8; 4] = [100, 64, 0, 2];
/// The outer end's address.
pub const OUTER_ADDR: [u8; 4] = [100, 64, 0, 1];

/// Why the emulator cannot run here, or `None` if it can (root, `/dev/net/tun`, namespaces).
pub fn unavailable() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (network namespaces and TUN devices)".into());
    }
    if std::fs::metadata("/dev/net/tun").is_err() {
        return Some("/dev/net/tun is missing (no TUN support)".into());
    }
    match Netns::new() {
        Ok(_) => None,
        Err(e) => Some(format!("cannot create a network namespace: {e}")),
    }
}

/// An anonymous network namespace, alive while this value (or a process inside) exists.
#[derive(Debug)]
pub struct Netns {
    fd: OwnedFd,
}

impl Netns {
    /// A new, empty namespace (loopback down, no devices).
    pub fn new() -> io::Result<Netns> {
        std::thread::spawn(|| -> io::Result<Netns> {
            unshare(CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
            let f = File::open("/proc/thread-self/ns/net")?;
            Ok(Netns { fd: f.into() })
        })
        .join()
        .map_err(|_| io::Error::other("namespace thread panicked"))?
    }

    /// Run `f` on a thread inside this namespace (sockets and devices it creates belong here).
    pub fn run<T: Send>(&self, f: impl FnOnce() -> T + Send) -> io::Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| -> io::Result<T> {
                setns(self.fd.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)?;
                Ok(f())
            })
            .join()
            .map_err(|_| io::Error::other("namespace thread panicked"))?
        })
    }

    /// Enter this namespace on the calling thread (for long-lived endpoint threads).
    pub fn enter(&self) -> io::Result<()> {
        setns(self.fd.as_fd(), CloneFlags::CLONE_NEWNET).map_err(io::Error::from)
    }

    /// A command that runs inside this namespace and dies with this process.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        let fd = self.fd.as_raw_fd();
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: between fork and exec we call only async-signal-safe system calls (setns, prctl,
        // sigprocmask).
        unsafe {
            c.pre_exec(move || {
                // The emulator blocks the signals it reads through a signalfd; the program must not
                // inherit that mask (or Ctrl-C would not reach it).
                let mut empty: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut empty);
                libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
                if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The emulator died before the death signal was set: go too.
                if libc::getppid() != parent {
                    return Err(io::Error::other("the emulator exited"));
                }
                Ok(())
            });
        }
        c
    }

    /// A command that runs `program` inside this namespace in a PID namespace of its own, under
    /// a small init (`accelbrake-emu __init`, [`crate::pidns`]): the program and everything it
    /// starts die with this process, even when it is killed with SIGKILL. Exit status and the
    /// signals SIGINT/SIGTERM/SIGHUP pass through.
    pub fn command_isolated(&self, program: &str, args: &[String]) -> io::Result<Command> {
        let exe = std::env::current_exe()?;
        let mut c = self.command(&exe.to_string_lossy());
        c.arg(crate::pidns::INIT_SUBCOMMAND).arg("--").arg(program).args(args);
        // SAFETY: unshare is async-signal-safe; it only sets the PID namespace of this process's
        // future children.
        unsafe {
            c.pre_exec(|| {
                if libc::unshare(libc::CLONE_NEWPID) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Ok(c)
    }

    /// Write a sysctl of this namespace (`/proc/sys/net/...` shows the opener's namespace).
    pub fn sysctl(&self, path: &str, value: &str) -> io::Result<()> {
        let p = path.to_string();
        let v = value.to_string();
        self.run(move || std::fs::write(&p, v))?
            .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
    }
}

/// A TUN device named `name` in `ns`, point-to-point from `addr` to `peer`, up, without packet
/// information header (the `tun` crate's default on Linux), non-blocking. The loopback of `ns` is brought up too, and IPv6 is disabled
/// on the device so that only the programs' own traffic crosses the link.
pub fn tun_in(ns: &Netns, name: &str, addr: [u8; 4], peer: [u8; 4]) -> io::Result<tun::Device> {
    // IPv6 router solicitations and the like would otherwise cross the emulated link.
    let _ = ns.sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
    let st = ns
        .command("ip")
        .args(["link", "set", "lo", "up"])
        .status()
        .map_err(|e| io::Error::new(e.kind(), format!("running `ip link set lo up` (iproute2): {e}")))?;
    if !st.success() {
        return Err(io::Error::other(format!("`ip link set lo up` failed: {st}")));
    }
    let name = name.to_string();
    let dev = ns.run(move || -> io::Result<tun::Device> {
        let mut cfg = tun::Configuration::default();
        cfg.tun_name(&name)
            .address(std::net::Ipv4Addr::from(addr))
            .destination(std::net::Ipv4Addr::from(peer))
            .netmask(std::net::Ipv4Addr::new(255, 255, 255, 255))
            .mtu(1500)
            .up();
        let dev = tun::create(&cfg).map_err(|e| io::Error::other(format!("TUN device {name}: {e}")))?;
        dev.set_nonblock()?;
        // The `tun` crate opens /dev/net/tun without O_CLOEXEC: a program run in the shell would
        // inherit the device and keep it (and the emulated link's namespace) alive after the
        // emulator is gone.
        set_cloexec(dev.as_raw_fd())?;
        Ok(dev)
    })??;
    Ok(dev)
}

/// Mark `fd` close-on-exec.
fn set_cloexec(fd: std::os::fd::RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own; F_GETFD/F_SETFD touch only its flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tun_devices_are_not_inherited_by_programs() {
        if let Some(why) = unavailable() {
            eprintln!("skipped: {why}");
            return;
        }
        let ns = Netns::new().unwrap();
        let dev = tun_in(&ns, "abtest0", INNER_ADDR, OUTER_ADDR).unwrap();
        let flags = unsafe { libc::fcntl(dev.as_raw_fd(), libc::F_GETFD) };
        assert!(flags >= 0 && flags & libc::FD_CLOEXEC != 0, "TUN fd flags {flags:#x}");
        // And a program started in the namespace holds no descriptor of /dev/net/tun.
        let out = ns.command("sh").args(["-c", "ls -l /proc/self/fd"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && !text.contains("/dev/net/tun"), "{text}");
    }
}
