//! Kernel TCP bulk endpoints for `emulate`: a sender in the inner namespace writing as fast as the
//! socket takes data, with the kernel congestion control chosen by `TCP_CONGESTION`, and a receiver
//! in the outer namespace that reads and counts.

use crate::emulator::Clock;
use crate::netns::{Netns, OUTER_ADDR};
use accelbrake_sim::time::Time;
use nix::sys::socket::{self, sockopt, AddressFamily, SockFlag, SockType, SockaddrIn};
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Port the receiver listens on (flow `i` of `emulate --flows N`: `PORT + i`).
pub const PORT: u16 = 5201;

/// Congestion controls the kernel offers (`net.ipv4.tcp_available_congestion_control`).
pub fn available_congestion_controls() -> Vec<String> {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Start the receiver: listens on `port` in `outer`, then counts bytes on a thread into the
/// returned counter. With `cc`, the listening socket (and so the accepted one) uses that
/// congestion control: a receiver-side echo such as ABC's (or DCTCP's) lives in the receiver's
/// congestion control.
pub fn start_receiver(outer: &Netns, cc: Option<&str>, port: u16) -> io::Result<Arc<AtomicU64>> {
    let cc = cc.map(str::to_string);
    let l = outer.run(move || -> io::Result<TcpListener> {
        let fd = socket::socket(AddressFamily::Inet, SockType::Stream, SockFlag::SOCK_CLOEXEC, None)?;
        socket::setsockopt(&fd, sockopt::ReuseAddr, &true)?;
        if let Some(cc) = &cc {
            socket::setsockopt(&fd, sockopt::TcpCongestion, &OsString::from(cc))
                .map_err(|e| io::Error::other(format!("receiver: setting TCP_CONGESTION {cc} failed: {e}")))?;
        }
        let addr = SockaddrIn::from(SocketAddrV4::new(Ipv4Addr::from(OUTER_ADDR), port));
        socket::bind(std::os::fd::AsRawFd::as_raw_fd(&fd), &addr)?;
        socket::listen(&fd, socket::Backlog::new(4).expect("backlog"))?;
        Ok(TcpListener::from(fd))
    })??;
    let count = Arc::new(AtomicU64::new(0));
    let c = count.clone();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut buf = vec![0u8; 1 << 16];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            c.fetch_add(n as u64, Ordering::Relaxed);
        }
    });
    Ok(count)
}

/// When a sender starts: at once, or at emulator time `.1` on clock `.0` (`emulate
/// --start-interval`: flow `i` connects at `i · interval`).
pub type StartAt = Option<(Clock, Time)>;

/// Start the sender: a socket in `inner` using congestion control `cc` (an error names it and lists
/// what the kernel offers), connecting (at `start`) to the receiver on `port` and writing until
/// `stop` is set.
pub fn start_sender(inner: &Netns, cc: &str, stop: Arc<AtomicBool>, port: u16, start: StartAt) -> io::Result<()> {
    let avail = available_congestion_controls();
    if !avail.iter().any(|a| a == cc) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--cc {cc}: the kernel offers {} (net.ipv4.tcp_available_congestion_control)",
                avail.join(", ")
            ),
        ));
    }
    let cc_name = cc.to_string();
    let fd = inner.run(move || -> io::Result<std::os::fd::OwnedFd> {
        let fd = socket::socket(AddressFamily::Inet, SockType::Stream, SockFlag::SOCK_CLOEXEC, None)?;
        socket::setsockopt(&fd, sockopt::TcpCongestion, &OsString::from(&cc_name))
            .map_err(|e| io::Error::other(format!("--cc {cc_name}: setting TCP_CONGESTION failed: {e}")))?;
        Ok(fd)
    })??;
    std::thread::spawn(move || {
        if let Some((clock, at)) = start {
            if !sleep_until(clock, at, &stop) {
                return;
            }
        }
        let addr = SockaddrIn::from(SocketAddrV4::new(Ipv4Addr::from(OUTER_ADDR), port));
        if socket::connect(std::os::fd::AsRawFd::as_raw_fd(&fd), &addr).is_err() {
            return;
        }
        let mut s = TcpStream::from(fd);
        let buf = vec![0x5au8; 1 << 16];
        while !stop.load(Ordering::Relaxed) {
            if s.write(&buf).is_err() {
                break;
            }
        }
        let _ = s.shutdown(std::net::Shutdown::Both);
    });
    Ok(())
}

/// Sleep until emulator time `at` (false if `stop` was set first; checked every 50 ms).
pub fn sleep_until(clock: Clock, at: Time, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = clock.now();
        if now >= at {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_nanos((at.0 - now.0).min(50_000_000)));
    }
}
