//! The real-time loop: two namespaces joined by two TUN devices, one thread, epoll + timerfd on
//! `CLOCK_MONOTONIC` (absolute expirations, nanosecond resolution, timer slack 1 ns).
//!
//! Packets the inner namespace sends go *up* (inner → outer), packets the outer one sends go *down*.
//! Each wake-up: take the clock, use the opportunities due (both directions), deliver the packets
//! whose propagation delay is over, then sleep until the earliest of the next delivery, the next
//! opportunity while a packet waits, the queues' timers and the deadline. A packet read from a TUN
//! device is stamped with the clock when it is read; the opportunities due before it are used
//! first. Deliveries are scheduled from the *trace's* opportunity time plus the delay, not from
//! when the loop got round to it, so lateness does not accumulate.

use crate::direction::{Delivery, Direction};
use crate::netns::{tun_in, Netns, INNER_ADDR, OUTER_ADDR};
use accelbrake_sim::time::Time;
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollTimeout};
use nix::sys::signal::Signal;
use nix::sys::signalfd::SignalFd;
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::io::{self, Write};
use std::os::fd::AsFd;

const TOK_INNER: u64 = 1;
const TOK_OUTER: u64 = 2;
const TOK_TIMER: u64 = 3;
const TOK_SIGNAL: u64 = 4;
/// Packets read from one device per wake-up before the link is served again (bounds the
/// time a burst can hold the loop; 64 frames of 1500 bytes are 8 ms at 96 Mbit/s).
const READ_BATCH: usize = 64;

/// Nanoseconds on `CLOCK_MONOTONIC`.
pub fn monotonic_ns() -> u64 {
    let t = nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC");
    t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64
}

/// The emulator's clock, shared by the endpoints: ns since `t0` on `CLOCK_MONOTONIC`.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// `CLOCK_MONOTONIC` reading of time zero.
    pub t0: u64,
}

impl Clock {
    /// Time now.
    pub fn now(&self) -> Time {
        Time(monotonic_ns().saturating_sub(self.t0))
    }
}

/// Which way a delivery went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Inner → outer (`--trace`).
    Up,
    /// Outer → inner (`--ack-trace`).
    Down,
}

/// The emulated link between two fresh namespaces.
pub struct Emulator {
    /// Where the program under test runs (Mahimahi's shell side).
    pub inner: Netns,
    /// The other end.
    pub outer: Netns,
    tun_inner: tun::Device,
    tun_outer: tun::Device,
    /// Inner → outer.
    pub up: Direction,
    /// Outer → inner.
    pub down: Direction,
    t0: u64,
}

impl Emulator {
    /// Create the namespaces and devices (`tag` makes device names unique, e.g. the pid).
    pub fn new(up: Direction, down: Direction, tag: &str) -> io::Result<Emulator> {
        let inner = Netns::new()?;
        let outer = Netns::new()?;
        let tun_inner = tun_in(&inner, &format!("ab{tag}i"), INNER_ADDR, OUTER_ADDR)?;
        let tun_outer = tun_in(&outer, &format!("ab{tag}o"), OUTER_ADDR, INNER_ADDR)?;
        // Timer slack 1 ns: the kernel may otherwise defer our wake-ups by 50 µs (its default).
        // SAFETY: prctl with integer arguments only.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
        Ok(Emulator {
            inner,
            outer,
            tun_inner,
            tun_outer,
            up,
            down,
            t0: monotonic_ns(),
        })
    }

    /// Emulator time now.
    pub fn now(&self) -> Time {
        self.clock().now()
    }

    /// The emulator's clock (ns since its start), for endpoints on other threads.
    pub fn clock(&self) -> Clock {
        Clock { t0: self.t0 }
    }

    /// Restart the emulator clock at 0 (before the first packet; traces start at the first run).
    pub fn reset_clock(&mut self) {
        self.t0 = monotonic_ns();
    }

    /// Run until `deadline` (emulator time), or until `on_signal` returns true for a signal read
    /// from `signals`. Every delivery is passed to `record`.
    pub fn run(
        &mut self,
        deadline: Option<Time>,
        signals: Option<&mut SignalFd>,
        mut on_signal: impl FnMut(Signal) -> bool,
        mut record: impl FnMut(Dir, &Delivery),
    ) -> io::Result<Time> {
        let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).map_err(io::Error::from)?;
        let timer = TimerFd::new(
            ClockId::CLOCK_MONOTONIC,
            TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
        )
        .map_err(io::Error::from)?;
        let ev = |tok| EpollEvent::new(EpollFlags::EPOLLIN, tok);
        epoll.add(fd(&self.tun_inner), ev(TOK_INNER)).map_err(io::Error::from)?;
        epoll.add(fd(&self.tun_outer), ev(TOK_OUTER)).map_err(io::Error::from)?;
        epoll.add(timer.as_fd(), ev(TOK_TIMER)).map_err(io::Error::from)?;
        let mut signals = signals;
        if let Some(s) = signals.as_ref() {
            epoll.add(s.as_fd(), ev(TOK_SIGNAL)).map_err(io::Error::from)?;
        }
        let mut events = [EpollEvent::empty(); 8];
        let mut buf = vec![0u8; 65536];
        let mut stop = false;
        loop {
            let now = self.now();
            self.up.serve(now)?;
            self.down.serve(now)?;
            let (tin, tout) = (&self.tun_inner, &self.tun_outer);
            self.up.deliver(now, |b| send(tout, b), |d| record(Dir::Up, d))?;
            self.down.deliver(now, |b| send(tin, b), |d| record(Dir::Down, d))?;
            if stop || deadline.is_some_and(|d| now >= d) {
                self.up.finish(now)?;
                self.down.finish(now)?;
                return Ok(now);
            }
            let wake = [self.up.next_wake(), self.down.next_wake(), deadline]
                .into_iter()
                .flatten()
                .min();
            match wake {
                Some(t) => {
                    let abs = self.t0 + t.0;
                    let ts = TimeSpec::new((abs / 1_000_000_000) as i64, (abs % 1_000_000_000) as i64);
                    timer
                        .set(Expiration::OneShot(ts), TimerSetTimeFlags::TFD_TIMER_ABSTIME)
                        .map_err(io::Error::from)?;
                }
                None => timer.unset().map_err(io::Error::from)?,
            }
            let n = match epoll.wait(&mut events, EpollTimeout::NONE) {
                Ok(n) => n,
                Err(nix::errno::Errno::EINTR) => 0,
                Err(e) => return Err(e.into()),
            };
            for e in &events[..n] {
                match e.data() {
                    TOK_INNER | TOK_OUTER => {
                        let up = e.data() == TOK_INNER;
                        for _ in 0..READ_BATCH {
                            let dev = if up { &self.tun_inner } else { &self.tun_outer };
                            match dev.recv(&mut buf) {
                                Ok(len) => {
                                    let t = self.now();
                                    let d = if up { &mut self.up } else { &mut self.down };
                                    d.arrive(t, &buf[..len])?;
                                }
                                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                                Err(e) => return Err(e),
                            }
                        }
                    }
                    TOK_TIMER => {
                        let mut b = [0u8; 8];
                        let _ = nix::unistd::read(timer.as_fd(), &mut b);
                    }
                    TOK_SIGNAL => {
                        if let Some(s) = signals.as_mut() {
                            while let Ok(Some(info)) = s.read_signal() {
                                if let Ok(sig) = Signal::try_from(info.ssi_signo as i32) {
                                    stop |= on_signal(sig);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The device's descriptor (the `tun` crate implements `AsRawFd` only).
fn fd(dev: &tun::Device) -> std::os::fd::BorrowedFd<'_> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor stays open while `dev` is borrowed.
    unsafe { std::os::fd::BorrowedFd::borrow_raw(dev.as_raw_fd()) }
}

/// Write one packet to a TUN device. A full device queue (the receiving stack is not keeping up)
/// drops the packet, as a real link would; other errors are fatal.
fn send(dev: &tun::Device, b: &[u8]) -> io::Result<()> {
    match dev.send(b) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) || e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The per-packet table header (CSV, one row per delivery; times in ns since the emulator started).
/// The TCP columns are empty for other packets; `tcp_flags` is the flags byte (ECE = 64, CWR = 128).
pub const PACKETS_HEADER: &str =
    "dir,size,arrived_ns,opportunity_ns,due_ns,written_ns,ecn_in,ecn_out,tcp_seq,tcp_ack,tcp_flags,tcp_payload";

/// One row of the per-packet table.
pub fn write_packet_row(w: &mut impl Write, dir: Dir, d: &Delivery) -> io::Result<()> {
    let e = |x: Option<accelbrake_sim::packet::Ecn>| x.map_or(-1, |e| e as i32);
    let tcp = d.tcp.map_or(",,,".to_string(), |t| {
        format!("{},{},{},{}", t.seq, t.ack, t.flags, t.payload)
    });
    writeln!(
        w,
        "{},{},{},{},{},{},{},{},{}",
        if dir == Dir::Up { "up" } else { "down" },
        d.size,
        d.arrived.0,
        d.opportunity.0,
        d.due.0,
        d.written.0,
        e(d.ecn_in),
        e(d.ecn_out),
        tcp
    )
}
