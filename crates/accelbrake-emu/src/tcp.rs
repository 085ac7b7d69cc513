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
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

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
///
/// With `info`, a second thread samples the connected socket's `TCP_INFO` every `info.period` into
/// `info.sink` ([`TcpInfoLog`]); the returned handle ends once `stop` is set (join it before
/// reading the table: unlike the writer, which may block on a full socket once the link has
/// stopped, the sampler never waits on the network).
pub fn start_sender(
    inner: &Netns,
    cc: &str,
    stop: Arc<AtomicBool>,
    port: u16,
    start: StartAt,
    info: Option<TcpInfoLog>,
) -> io::Result<Option<JoinHandle<io::Result<()>>>> {
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
    // The connected socket goes to the sampler (if any) once the handshake is done.
    let (tx, rx) = mpsc::channel::<Arc<TcpStream>>();
    let sampler = info.map(|log| {
        let stop = stop.clone();
        std::thread::spawn(move || sample_tcp_info(&log, &rx, &stop))
    });
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
        let s = Arc::new(TcpStream::from(fd));
        let _ = tx.send(s.clone());
        let buf = vec![0x5au8; 1 << 16];
        while !stop.load(Ordering::Relaxed) {
            if (&*s).write(&buf).is_err() {
                break;
            }
        }
        let _ = s.shutdown(std::net::Shutdown::Both);
    });
    Ok(sampler)
}

/// Where and how often the kernel sender's state is sampled (`emulate --tcp-info FILE`): one CSV
/// shared by the flows' samplers, rows under [`TCP_INFO_HEADER`].
#[derive(Clone)]
pub struct TcpInfoLog {
    /// The emulator's clock (`t_s` of each row).
    pub clock: Clock,
    /// Time between samples (10 ms for `emulate`).
    pub period: std::time::Duration,
    /// The flow's index (`flow` column).
    pub flow: usize,
    /// The table (header already written).
    pub sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

/// Columns of the `TCP_INFO` table. Where a column means what a column of the simulator's per-flow
/// time series (`flows_ts`) means, it has its name and unit: `cwnd` (packets, the kernel's
/// `snd_cwnd`), `srtt_ms`, `pacing_mbps`, `in_flight` (packets: `tcp_packets_in_flight()` =
/// unacked − sacked − lost + retrans). The others are the kernel's `struct tcp_info` fields
/// (include/uapi/linux/tcp.h) under their names without `tcpi_`, in packets (`unacked`, `sacked`,
/// `lost`, `retrans`: segments now; `total_retrans`: ever), bytes (`bytes_*`, `snd_wnd`: the
/// receiver's window, `notsent_bytes`) or ms (`*_ms`); `ssthresh` is empty while it is the
/// kernel's "infinite" (initial slow start); `ca_state` is `tcp_ca_state` (0 Open, 1 Disorder,
/// 2 CWR, 3 Recovery, 4 Loss); `delivery_mbps` is the kernel's delivery-rate sample
/// (`tcpi_delivery_rate`, what BBR's model takes in), `app_limited` its flag.
pub const TCP_INFO_HEADER: &str = "t_s,flow,cwnd,ssthresh,srtt_ms,rttvar_ms,min_rtt_ms,rto_ms,pacing_mbps,\
delivery_mbps,app_limited,in_flight,unacked,sacked,lost,retrans,total_retrans,ca_state,delivered,bytes_acked,\
bytes_sent,bytes_retrans,dsack_dups,reord_seen,snd_wnd,notsent_bytes,rwnd_limited_ms,sndbuf_limited_ms,mss";

/// `TCP_INFO` of a socket.
pub struct TcpInfo {
    /// The kernel's `struct tcp_info` (it fills what it has; fields an older kernel lacks stay 0).
    pub info: libc::tcp_info,
    /// `tcpi_delivery_rate_app_limited`: bit 0 of byte 7 (a bit-field glibc's layout, and so
    /// `libc`'s, leaves as padding).
    pub app_limited: bool,
}

/// `TCP_INFO` of a socket.
pub fn tcp_info(fd: std::os::fd::RawFd) -> io::Result<TcpInfo> {
    // SAFETY: tcp_info is plain integers (all-zero is valid); the kernel writes at most `len` bytes.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the struct is at least 8 bytes, all of them written (zeroed, then by the kernel).
    let byte7 = unsafe { *(&info as *const libc::tcp_info).cast::<u8>().add(7) };
    Ok(TcpInfo {
        info,
        app_limited: byte7 & 1 != 0,
    })
}

/// The kernel's "no ssthresh yet" (`TCP_INFINITE_SSTHRESH`, include/net/tcp.h).
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// One row of the table (no newline).
pub fn tcp_info_row(t: Time, flow: usize, ti: &TcpInfo) -> String {
    let i = &ti.info;
    let mbps = |bytes_per_s: u64| {
        if bytes_per_s == u64::MAX {
            String::new() // ~0U: no pacing rate
        } else {
            format!("{}", bytes_per_s as f64 * 8.0 / 1e6)
        }
    };
    let ssthresh = if i.tcpi_snd_ssthresh >= INFINITE_SSTHRESH {
        String::new()
    } else {
        i.tcpi_snd_ssthresh.to_string()
    };
    let in_flight = (i.tcpi_unacked + i.tcpi_retrans).saturating_sub(i.tcpi_sacked + i.tcpi_lost);
    let app_limited = u8::from(ti.app_limited);
    format!(
        "{},{flow},{},{ssthresh},{},{},{},{},{},{},{app_limited},{in_flight},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        t.0 as f64 / 1e9,
        i.tcpi_snd_cwnd,
        i.tcpi_rtt as f64 / 1e3,
        i.tcpi_rttvar as f64 / 1e3,
        i.tcpi_min_rtt as f64 / 1e3,
        i.tcpi_rto as f64 / 1e3,
        mbps(i.tcpi_pacing_rate),
        mbps(i.tcpi_delivery_rate),
        i.tcpi_unacked,
        i.tcpi_sacked,
        i.tcpi_lost,
        i.tcpi_retrans,
        i.tcpi_total_retrans,
        i.tcpi_ca_state,
        i.tcpi_delivered,
        i.tcpi_bytes_acked,
        i.tcpi_bytes_sent,
        i.tcpi_bytes_retrans,
        i.tcpi_dsack_dups,
        i.tcpi_reord_seen,
        i.tcpi_snd_wnd,
        i.tcpi_notsent_bytes,
        i.tcpi_rwnd_limited as f64 / 1e3,
        i.tcpi_sndbuf_limited as f64 / 1e3,
        i.tcpi_snd_mss,
    )
}

/// The sampler: waits for the connected socket, then one row every `log.period` (at multiples of
/// it on the emulator's clock) until `stop`.
fn sample_tcp_info(log: &TcpInfoLog, rx: &mpsc::Receiver<Arc<TcpStream>>, stop: &AtomicBool) -> io::Result<()> {
    let s = loop {
        match rx.recv_timeout(log.period) {
            Ok(s) => break s,
            Err(RecvTimeoutError::Timeout) if !stop.load(Ordering::Relaxed) => {}
            Err(_) => return Ok(()), // stopped before connecting, or the connect failed
        }
    };
    let fd = std::os::fd::AsRawFd::as_raw_fd(&*s);
    let period = log.period.as_nanos().max(1) as u64;
    while !stop.load(Ordering::Relaxed) {
        let now = log.clock.now();
        let info = tcp_info(fd).map_err(|e| io::Error::other(format!("getsockopt(TCP_INFO): {e}")))?;
        let row = tcp_info_row(now, log.flow, &info);
        {
            let mut w = log.sink.lock().map_err(|_| io::Error::other("a sampler panicked"))?;
            writeln!(w, "{row}")?;
        }
        let next = (now.0 / period + 1) * period;
        std::thread::sleep(std::time::Duration::from_nanos(next.saturating_sub(log.clock.now().0)));
    }
    Ok(())
}

/// The non-zero `TcpExt` counters of a `/proc/net/netstat` text (name → value, names as the
/// kernel's, e.g. `TCPHystartTrainDetect`, `TCPFullUndo`, `TCPLossProbes`).
pub fn tcp_ext_counters(netstat: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut lines = netstat.lines();
    let mut out = serde_json::Map::new();
    while let (Some(names), Some(values)) = (lines.next(), lines.next()) {
        let (Some(n), Some(v)) = (names.strip_prefix("TcpExt:"), values.strip_prefix("TcpExt:")) else {
            continue;
        };
        for (k, x) in n.split_whitespace().zip(v.split_whitespace()) {
            if let Ok(x) = x.parse::<u64>() {
                if x != 0 {
                    out.insert(k.to_string(), serde_json::Value::from(x));
                }
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_ext_counters_pairs_names_with_values_and_keeps_the_non_zero_ones() {
        let text = "TcpExt: SyncookiesSent TCPHystartDelayDetect TCPFullUndo\n\
                    TcpExt: 0 1 3\n\
                    IpExt: InNoRoutes InTruncatedPkts\n\
                    IpExt: 7 0\n";
        let m = tcp_ext_counters(text);
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(m["TCPHystartDelayDetect"], 1);
        assert_eq!(m["TCPFullUndo"], 3);
        assert!(!m.contains_key("InNoRoutes"), "IpExt is not TcpExt");
    }

    #[test]
    fn a_tcp_info_row_has_the_headers_columns_in_the_tables_units() {
        // SAFETY: plain integers.
        let mut i: libc::tcp_info = unsafe { std::mem::zeroed() };
        i.tcpi_snd_cwnd = 40;
        i.tcpi_snd_ssthresh = INFINITE_SSTHRESH;
        i.tcpi_rtt = 123_456; // µs
        i.tcpi_pacing_rate = 1_500_000; // bytes/s = 12 Mbit/s
        i.tcpi_delivery_rate = u64::MAX;
        i.tcpi_unacked = 30;
        i.tcpi_sacked = 4;
        i.tcpi_lost = 2;
        i.tcpi_retrans = 1;
        i.tcpi_ca_state = 3;
        let row = tcp_info_row(
            Time(2_500_000_000),
            1,
            &TcpInfo {
                info: i,
                app_limited: true,
            },
        );
        let cols: Vec<&str> = TCP_INFO_HEADER.split(',').collect();
        let vals: Vec<&str> = row.split(',').collect();
        assert_eq!(cols.len(), vals.len());
        let get = |c: &str| vals[cols.iter().position(|x| *x == c).unwrap()];
        assert_eq!(get("t_s"), "2.5");
        assert_eq!(get("flow"), "1");
        assert_eq!(get("cwnd"), "40");
        assert_eq!(get("ssthresh"), "", "infinite ssthresh is empty");
        assert_eq!(get("srtt_ms"), "123.456");
        assert_eq!(get("pacing_mbps"), "12");
        assert_eq!(get("delivery_mbps"), "");
        assert_eq!(get("app_limited"), "1");
        // tcp_packets_in_flight(): 30 − (4 + 2) + 1.
        assert_eq!(get("in_flight"), "25");
        assert_eq!(get("ca_state"), "3");
    }
}
