//! The user-space transport: any of the core's congestion controllers over the real emulated
//! link, on UDP sockets.
//!
//! The sender and the receiver are the simulator's own (`accelbrake_sim::sender::Sender` with its
//! SACK scoreboard, RFC 6675 recovery, RFC 6298 RTO, pacer and delivery-rate sampler around the
//! scheme's controller; `accelbrake_sim::receiver::Receiver` with delayed ACKs, SACK blocks and the
//! scheme's echo), built exactly as the engine builds a flow (`engine/build.rs`: the scheme's
//! marking picks the data codepoint, the echo mode and the explicit header; its receiver hook;
//! delayed ACKs every 2 segments / 40 ms; 1 ms receiver timestamps). Only their packets are real:
//! each data segment and ACK is one UDP datagram ([`crate::wire`]) from a socket in the inner
//! namespace (sender) to one in the outer namespace (receiver) and back, across the emulated link.
//!
//! Each endpoint is one thread with its own real-time loop, as the emulator's: epoll over its
//! socket and a timerfd on `CLOCK_MONOTONIC` (absolute expirations). Every wake-up takes the clock
//! (the emulator's: ns since its start), hands the datagrams read to the sender (`on_ack`) or the
//! receiver (`on_data`) stamped with the time they were read, runs the timers that are due
//! (RTO, pacing, the controller's own timer, the delayed ACK), sends what may be sent
//! (`poll_transmit` until it says no), and sleeps until the next wake-up the sender or receiver
//! asks for. The controller gets `now`, the ACKs and the losses exactly as in the simulator.
//!
//! ECN: the data codepoint is written with `IP_TOS` (for UDP Linux puts the ECN bits into the
//! header as given) and read on arrival from the `IP_TOS` control message (`IP_RECVTOS`), so the
//! receiver echoes the mark each packet carried after the routers: ABC's accelerate/brake
//! (ECT(1)/ECT(0), the simulator's encoding, `--marks ect`), VCP's load codes, legacy CE.
//!
//! Deviations from the simulator: there is no host jitter model (the machine provides real
//! jitter); a datagram the local stack refuses (`ENOBUFS`/`EAGAIN`) is lost as a link loss would
//! be and counted (`local_drops`); clocks are shared (one process), as in the simulator.

use crate::emulator::Clock;
use crate::netns::{Netns, OUTER_ADDR};
use crate::wire;
use accelbrake_sim::cc::{self, Marking};
use accelbrake_sim::packet::{Ecn, Packet};
use accelbrake_sim::params::Given;
use accelbrake_sim::receiver::{EchoMode, Receiver, ReceiverConfig};
use accelbrake_sim::rng::Rng;
use accelbrake_sim::sender::{App, Sender};
use accelbrake_sim::time::{Dur, Time};
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::socket::{self, sockopt, ControlMessageOwned, MsgFlags, SockaddrIn};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::io::{self, IoSliceMut};
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::os::fd::{AsFd, AsRawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Port the receiver listens on (flow `i` of `emulate --flows N`: `PORT + i`).
pub const PORT: u16 = 5203;
/// Random stream of flow 0's controller: the engine's `CC_STREAMS + flow` (`engine/build.rs`), so
/// a randomised controller draws what it draws in `run` with the same seed; flow `i`'s is
/// `CC_STREAM_FLOW0 + i`.
const CC_STREAM_FLOW0: u64 = 2 << 32;
/// Longest sleep of an endpoint loop (it also checks the stop flag then).
const MAX_SLEEP: Dur = Dur(50_000_000);

/// The sender and receiver of flow `id` of `scheme`, starting at `start`, as the engine builds
/// flow `id` of a scenario with default flow settings (`build_live`: the controller is built with
/// the flow's start time and its own random stream; `ecn` = the flow's `ecn` option for schemes
/// that do not choose). Errors name the scheme or `family.param`.
pub fn endpoints(
    scheme: &str,
    given: &Given,
    seed: u64,
    ecn: bool,
    id: u32,
    start: Time,
) -> Result<(Sender, Receiver), String> {
    let s = cc::lookup(scheme).map_err(|e| e.to_string())?;
    let values = s.values(given).map_err(|e| e.to_string())?;
    let controller =
        (s.build)(&values, start, Rng::stream(seed, CC_STREAM_FLOW0 + u64::from(id))).map_err(|e| e.to_string())?;
    // engine/build.rs: VCP's low-load code 01 is ABC's accelerate; both echo per packet.
    let abc = matches!(s.marking, Marking::Abc | Marking::Vcp);
    // L4S schemes send ECT(1), the same codepoint as ABC's accelerate, and echo per packet.
    let l4s = s.marking == Marking::L4s;
    let codepoint = if abc || l4s {
        Ecn::Ect1
    } else if ecn || s.marking == Marking::Ecn {
        Ecn::Ect0
    } else {
        Ecn::NotEct
    };
    let rcfg = ReceiverConfig {
        echo: if abc || l4s {
            EchoMode::PerPacket
        } else {
            EchoMode::Classic
        },
        ..ReceiverConfig::default()
    };
    let mut receiver = Receiver::new(id, rcfg);
    if let Some(hook) = controller.receiver_hook() {
        receiver = receiver.with_hook(hook);
    }
    // The transport options a controller asks for, as engine/build.rs passes them (RACK, PRR in
    // fast recovery, Linux's RTO; all off unless the scheme's parameters turn them on).
    let (rack, prr, linux_rto) = (
        controller.detects_lost_retransmissions(),
        controller.reduces_proportionally(),
        controller.computes_rto_as_linux(),
    );
    let mut sender = Sender::new(id, controller, codepoint, App::Bulk);
    sender.set_rack(rack);
    sender.prr_loss = prr;
    sender.set_linux_rto(linux_rto);
    sender.explicit = s.marking == Marking::Explicit;
    Ok((sender, receiver))
}

/// What the endpoints report when they stop.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Sender counters (packets, retransmissions, recoveries, RTOs).
    pub sender: accelbrake_sim::sender::SenderStats,
    /// Segments the receiver delivered in order.
    pub delivered_segments: u64,
    /// Data datagrams the receiver read (duplicates included).
    pub received_packets: u64,
    /// ACKs the receiver sent.
    pub acks_sent: u64,
    /// Datagrams refused by the local stack (lost before the link).
    pub local_drops: u64,
    /// ACKs that echoed a brake / a CE mark (as the sender read them).
    pub brake_echoes: u64,
    /// ACKs with a CE echo.
    pub ce_echoes: u64,
    /// The controller's window at the end, segments.
    pub final_cwnd: f64,
    /// Datagrams read that were not ours (ignored).
    pub foreign: u64,
}

/// Where and when a flow runs: its receiver's port and its sender's start (emulator time). Flow
/// `i` of `emulate --flows N` uses `PORT + i` and starts at `i · --start-interval`.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Flow index (the packets' flow id, the threads' names).
    pub id: u32,
    /// The receiver's UDP port in the outer namespace.
    pub port: u16,
    /// When the sender starts.
    pub start: Time,
}

impl Placement {
    /// Flow 0 of a one-flow run: port [`PORT`], starting at once.
    pub const ONE: Placement = Placement {
        id: 0,
        port: PORT,
        start: Time::ZERO,
    };
}

/// The running flow: two endpoint threads.
pub struct Flow {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<io::Result<()>>>,
    report: Arc<Mutex<Report>>,
}

impl Flow {
    /// Start the receiver in `outer` (on `at.port`) and the sender in `inner`, both on `clock`;
    /// the sender starts at `at.start` (at once for a time already past).
    ///
    /// `rt`: run both endpoint threads under `SCHED_FIFO` at this priority (`emulate --rt` uses 9,
    /// just below the link loop's 10), so that a loaded machine does not add scheduling delay to
    /// the controller's ACK clock and RTT samples.
    pub fn start(
        inner: &Netns,
        outer: &Netns,
        sender: Sender,
        receiver: Receiver,
        clock: Clock,
        rt: Option<i32>,
        at: Placement,
    ) -> io::Result<Flow> {
        let stop = Arc::new(AtomicBool::new(false));
        let report = Arc::new(Mutex::new(Report::default()));
        let addr = SocketAddrV4::new(Ipv4Addr::from(OUTER_ADDR), at.port);
        let rx = outer.run(move || -> io::Result<UdpSocket> {
            let s = UdpSocket::bind(addr)?;
            socket::setsockopt(&s, sockopt::IpRecvTos, &true).map_err(io::Error::from)?;
            // Root may exceed net.core.rmem_max: a briefly descheduled endpoint loses nothing.
            let _ = socket::setsockopt(&s, sockopt::RcvBufForce, &(4 << 20));
            s.set_nonblocking(true)?;
            Ok(s)
        })??;
        let tos = i32::from(sender_codepoint(&sender) as u8);
        let tx = inner.run(move || -> io::Result<UdpSocket> {
            let s = UdpSocket::bind("0.0.0.0:0")?;
            s.connect(addr)?;
            // For UDP, Linux writes IP_TOS's ECN bits into every datagram's header as given.
            socket::setsockopt(&s, sockopt::Ipv4Tos, &tos).map_err(io::Error::from)?;
            let _ = socket::setsockopt(&s, sockopt::RcvBufForce, &(4 << 20));
            let _ = socket::setsockopt(&s, sockopt::SndBufForce, &(4 << 20));
            s.set_nonblocking(true)?;
            Ok(s)
        })??;
        let (st, rep) = (stop.clone(), report.clone());
        let name = |role: &str| match at.id {
            0 => format!("udp-{role}"),
            i => format!("udp-{role}-{i}"),
        };
        let r = std::thread::Builder::new().name(name("receiver")).spawn(move || {
            realtime(rt)?;
            receiver_loop(rx, receiver, clock, &st, &rep, at.id)
        })?;
        let (st, rep) = (stop.clone(), report.clone());
        let s = std::thread::Builder::new().name(name("sender")).spawn(move || {
            realtime(rt)?;
            sender_loop(tx, sender, clock, &st, &rep, at)
        })?;
        Ok(Flow {
            stop,
            threads: vec![r, s],
            report,
        })
    }

    /// Stop both endpoints and return their report (or the first error of a loop).
    pub fn stop(self) -> io::Result<Report> {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            t.join().map_err(|_| io::Error::other("endpoint thread panicked"))??;
        }
        let r = self.report.lock().map_err(|_| io::Error::other("report lock"))?.clone();
        Ok(r)
    }
}

/// `SCHED_FIFO` at `prio` for the calling thread, if asked.
fn realtime(prio: Option<i32>) -> io::Result<()> {
    let Some(p) = prio else { return Ok(()) };
    let param = libc::sched_param { sched_priority: p };
    // SAFETY: plain system call on the calling thread (pid 0) with a valid parameter block.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::other(format!(
            "--rt: SCHED_FIFO refused for an endpoint: {e}"
        )));
    }
    Ok(())
}

fn sender_codepoint(s: &Sender) -> Ecn {
    s.ecn()
}

/// One endpoint's epoll + timerfd.
struct Waker {
    epoll: Epoll,
    timer: TimerFd,
    clock: Clock,
}

impl Waker {
    fn new(sock: &UdpSocket, clock: Clock) -> io::Result<Waker> {
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )?;
        epoll.add(sock.as_fd(), EpollEvent::new(EpollFlags::EPOLLIN, 1))?;
        epoll.add(timer.as_fd(), EpollEvent::new(EpollFlags::EPOLLIN, 2))?;
        Ok(Waker { epoll, timer, clock })
    }

    /// Sleep until a datagram arrives or `wake` (emulator time; at most [`MAX_SLEEP`] from now).
    fn wait(&self, now: Time, wake: Option<Time>) -> io::Result<()> {
        let t = wake.map_or(now + MAX_SLEEP, |w| w.min(now + MAX_SLEEP));
        let abs = self.clock.t0 + t.0;
        let ts = TimeSpec::new((abs / 1_000_000_000) as i64, (abs % 1_000_000_000) as i64);
        self.timer
            .set(Expiration::OneShot(ts), TimerSetTimeFlags::TFD_TIMER_ABSTIME)?;
        let mut ev = [EpollEvent::empty(); 2];
        match self.epoll.wait(&mut ev, EpollTimeout::NONE) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
        let mut b = [0u8; 8];
        let _ = nix::unistd::read(self.timer.as_fd(), &mut b);
        Ok(())
    }
}

/// Send one datagram; a refusal by the local stack is a loss (counted), other errors are fatal.
fn send(sock: &UdpSocket, b: &[u8], to: Option<SocketAddrV4>, drops: &mut u64) -> io::Result<()> {
    let r = match to {
        Some(a) => sock.send_to(b, a),
        None => sock.send(b),
    };
    match r {
        Ok(_) => Ok(()),
        Err(e)
            if e.kind() == io::ErrorKind::WouldBlock
                || e.raw_os_error() == Some(libc::ENOBUFS)
                || e.raw_os_error() == Some(libc::ECONNREFUSED) =>
        {
            *drops += 1;
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn sender_loop(
    sock: UdpSocket,
    mut sender: Sender,
    clock: Clock,
    stop: &AtomicBool,
    report: &Mutex<Report>,
    at: Placement,
) -> io::Result<()> {
    let waker = Waker::new(&sock, clock)?;
    let mut buf = vec![0u8; 65536];
    let mut out = Vec::with_capacity(1500);
    let (mut drops, mut foreign, mut brakes, mut ces) = (0u64, 0u64, 0u64, 0u64);
    // A later flow (`--start-interval`) waits for its start; nothing is addressed to it before.
    loop {
        let now = clock.now();
        if now >= at.start || stop.load(Ordering::Relaxed) {
            break;
        }
        waker.wait(now, Some(at.start))?;
    }
    sender.start(clock.now());
    while !stop.load(Ordering::Relaxed) {
        // ACKs, each at the time it was read.
        loop {
            match sock.recv(&mut buf) {
                Ok(n) => {
                    let now = clock.now();
                    match wire::decode(&buf[..n], Ecn::NotEct, now) {
                        Some(mut a) if !a.is_data() => {
                            a.flow = at.id;
                            brakes += u64::from(a.echo == accelbrake_sim::packet::Echo::Brake);
                            ces += u64::from(a.echo == accelbrake_sim::packet::Echo::Ce);
                            sender.on_ack(now, &a);
                        }
                        _ => foreign += 1,
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // An ICMP error from before the receiver was up: nothing to read.
                Err(e) if e.raw_os_error() == Some(libc::ECONNREFUSED) => continue,
                Err(e) => return Err(e),
            }
        }
        let now = clock.now();
        sender.on_timer(now);
        while let Some(p) = sender.poll_transmit(now) {
            wire::encode_data(&p, &mut out);
            send(&sock, &out, None, &mut drops)?;
        }
        let wake = sender.next_wakeup(now).map(|t| t.max(now + Dur(1_000)));
        waker.wait(now, wake)?;
    }
    let mut r = report.lock().map_err(|_| io::Error::other("report lock"))?;
    r.sender = sender.stats;
    r.local_drops += drops;
    r.foreign += foreign;
    r.brake_echoes = brakes;
    r.ce_echoes = ces;
    r.final_cwnd = sender.cc.window();
    Ok(())
}

fn receiver_loop(
    sock: UdpSocket,
    mut receiver: Receiver,
    clock: Clock,
    stop: &AtomicBool,
    report: &Mutex<Report>,
    id: u32,
) -> io::Result<()> {
    let waker = Waker::new(&sock, clock)?;
    let mut buf = vec![0u8; 65536];
    let mut acks: Vec<Packet> = Vec::new();
    let mut out = Vec::with_capacity(64);
    let mut peer: Option<SocketAddrV4> = None;
    let (mut drops, mut foreign) = (0u64, 0u64);
    let fd = sock.as_raw_fd();
    while !stop.load(Ordering::Relaxed) {
        loop {
            let mut cmsg = nix::cmsg_space!(libc::c_int);
            let mut iov = [IoSliceMut::new(&mut buf)];
            let (n, tos, from) =
                match socket::recvmsg::<SockaddrIn>(fd, &mut iov, Some(&mut cmsg), MsgFlags::MSG_DONTWAIT) {
                    Ok(m) => {
                        let mut tos = 0u8;
                        if let Ok(c) = m.cmsgs() {
                            for c in c {
                                if let ControlMessageOwned::Ipv4Tos(t) = c {
                                    tos = t;
                                }
                            }
                        }
                        (m.bytes, tos, m.address.map(|a| SocketAddrV4::new(a.ip(), a.port())))
                    }
                    Err(nix::errno::Errno::EAGAIN) => break,
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(e) => return Err(e.into()),
                };
            let now = clock.now();
            match wire::decode(&buf[..n], wire::ecn_of_tos(tos), now) {
                Some(mut p) if p.is_data() => {
                    p.flow = id;
                    if peer.is_none() {
                        peer = from;
                    }
                    receiver.on_data(now, &p, &mut acks);
                }
                _ => foreign += 1,
            }
            for a in acks.drain(..) {
                wire::encode_ack(&a, &mut out);
                send(&sock, &out, peer, &mut drops)?;
            }
        }
        let now = clock.now();
        receiver.on_timer(now, &mut acks);
        for a in acks.drain(..) {
            wire::encode_ack(&a, &mut out);
            send(&sock, &out, peer, &mut drops)?;
        }
        waker.wait(now, receiver.next_wakeup())?;
    }
    let mut r = report.lock().map_err(|_| io::Error::other("report lock"))?;
    r.delivered_segments = receiver.stats.delivered_segments;
    r.received_packets = receiver.stats.packets;
    r.acks_sent = receiver.stats.acks;
    r.local_drops += drops;
    r.foreign += foreign;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_follow_the_engine_choices() {
        let (s, _) = endpoints("abc", &Given::new(), 1, false, 0, Time::ZERO).unwrap();
        assert_eq!(s.ecn(), Ecn::ACCELERATE);
        assert!(!s.explicit);
        let (s, _) = endpoints("xcp", &Given::new(), 1, false, 0, Time::ZERO).unwrap();
        assert!(s.explicit && s.ecn() == Ecn::NotEct);
        let (s, _) = endpoints("copa", &Given::new(), 1, true, 0, Time::ZERO).unwrap();
        assert_eq!(s.ecn(), Ecn::Ect0);
        let e = endpoints(
            "copa",
            &Given::from([("nope".into(), accelbrake_sim::params::Value::Num(1.0))]),
            1,
            false,
            0,
            Time::ZERO,
        )
        .err()
        .unwrap();
        assert!(e.contains("copa.nope"), "{e}");
        assert!(endpoints("kopa", &Given::new(), 1, false, 0, Time::ZERO)
            .err()
            .unwrap()
            .contains("scheme"));
    }

    #[test]
    fn endpoints_pass_the_transport_options_the_scheme_asks_for() {
        let (s, _) = endpoints("cubic", &Given::new(), 1, false, 0, Time::ZERO).unwrap();
        assert_eq!((s.rack_and_linux_rto(), s.prr_loss), ((false, false), false));
        let on = accelbrake_sim::params::Value::Flag(true);
        let given = Given::from([
            ("rack".into(), on.clone()),
            ("prr".into(), on.clone()),
            ("linux_rto".into(), on),
        ]);
        let (s, _) = endpoints("cubic", &given, 1, false, 0, Time::ZERO).unwrap();
        assert_eq!((s.rack_and_linux_rto(), s.prr_loss), ((true, true), true));
    }

    #[test]
    fn flow_i_sends_and_acks_as_the_engines_flow_i() {
        let start = Time(2_000_000_000);
        let (mut s, mut r) = endpoints("cubic", &Given::new(), 1, false, 2, start).unwrap();
        s.start(start);
        let p = s.poll_transmit(start).expect("an initial window to send");
        assert_eq!((p.flow, p.ts), (2, start));
        let mut acks = Vec::new();
        r.on_data(start, &p, &mut acks);
        r.on_timer(start + Dur(50_000_000), &mut acks);
        assert!(!acks.is_empty() && acks.iter().all(|a| a.flow == 2));
        assert_eq!(Placement::ONE.port, PORT);
    }
}
