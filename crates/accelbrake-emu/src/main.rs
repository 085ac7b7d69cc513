//! `accelbrake-emu`: real packets through the simulator's links and queues (Linux, root).
//!
//! ```text
//! accelbrake-emu shell    LINK-OPTIONS [--outer 'CMD'] -- PROGRAM [ARGS...]
//! accelbrake-emu emulate  LINK-OPTIONS --cc cubic --duration 10          (kernel TCP)
//! accelbrake-emu emulate  LINK-OPTIONS --scheme copa [--scheme-args k=v,...] --duration 10
//!                                      (the user-space transport: any scheme of the registry)
//! accelbrake-emu saturate LINK-OPTIONS --rate-mbps 30 --duration 3
//! accelbrake-emu check
//! LINK-OPTIONS: --trace FILE [--ack-trace FILE] [--delay MS] [--queue TYPE] [--queue-args k=v,...]
//!               [--ack-queue TYPE] [--ack-queue-args k=v,...] [--seed N]
//!               [--log FILE] [--ack-log FILE] [--packets FILE.csv]
//! accelbrake-emu emulate  LINK-OPTIONS --upstream copa|sprout|verus|pcc-vivace --duration 10
//!                                      (the authors' own programs, built by `make upstream`)
//! emulate --cc also: [--tcp-info FILE.csv] (the kernel sender's TCP_INFO every 10 ms)
//! ```
//! The Python CLI (`accelbrake shell`, `accelbrake emulate`) calls this binary.

#[cfg(target_os = "linux")]
mod cli;
#[cfg(target_os = "linux")]
mod upstream_run;

#[cfg(target_os = "linux")]
fn main() {
    std::process::exit(cli::main(std::env::args().skip(1).collect()));
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("accelbrake-emu: the emulator needs Linux (network namespaces and TUN devices)");
    std::process::exit(3);
}
