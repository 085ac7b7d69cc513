//! # accelbrake-emu
//!
//! Real packets through the simulator's own links and routers (Linux only). Two network namespaces
//! are joined by TUN devices; one real-time event loop (epoll + timerfd on `CLOCK_MONOTONIC`,
//! nanosecond resolution) reads every packet one side sends, passes it through the *same*
//! [`accelbrake_sim::link::TraceLink`] and [`accelbrake_sim::queue::Queue`] (drop-tail, CoDel, PIE,
//! the ABC router, …) the simulator uses, holds it for the propagation delay, rewrites its ECN bits
//! if the queue marked it ([`ip::set_ecn`], RFC 1624 incremental checksum) and writes it to the other
//! side. This is Mahimahi's `mm-delay D mm-link UP DOWN` (Netravali et al., USENIX ATC 2015) with
//! our queues and a nanosecond clock.
//!
//! * [`ip`]: ECN codepoint read/rewrite (pure, every platform).
//! * [`direction`]: one direction of the link (pure, clock-free, every platform).
//! * [`flows`]: per-flow figures of a multi-flow `emulate` from the link's records (pure).
//! * `netns`, `emulator`, `tcp` (Linux only): namespaces and TUN devices, the event loop, kernel
//!   TCP bulk endpoints.
//! * [`wire`]: the user-space transport's datagrams (pure); `udp` (Linux only): its endpoints, the
//!   core's own sender and receiver around any controller of the registry, on UDP sockets.
//! * `bpf` (Linux only): the ABC congestion control in eBPF (`bpf/abc.bpf.c`), registered as a
//!   kernel TCP congestion control for `emulate --cc abc`.
//!
//! See `docs/emulation.md` for the design and its deviations from Mahimahi.

pub mod direction;
pub mod flows;
pub mod ip;
pub mod wire;

#[cfg(target_os = "linux")]
pub mod bpf;
#[cfg(target_os = "linux")]
pub mod emulator;
#[cfg(target_os = "linux")]
pub mod netns;
#[cfg(target_os = "linux")]
pub mod pidns;
#[cfg(target_os = "linux")]
pub mod tcp;
#[cfg(target_os = "linux")]
pub mod udp;
pub mod upstream;
