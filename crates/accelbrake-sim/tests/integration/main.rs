//! Integration tests: whole scenarios against the properties the papers state.
//! One binary (`mod` per topic) so the crate is linked once.

mod abe;
mod bbr3;
mod cellular;
mod common;
mod delay;
mod determinism;
mod explicit;
mod fuzz;
mod hostile;
mod interrupt;
mod l4s;
mod memory;
mod paper;
mod properties;
mod transport;
mod wifi;
