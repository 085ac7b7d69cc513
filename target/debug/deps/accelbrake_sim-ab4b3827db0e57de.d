/work/main/target/debug/deps/accelbrake_sim-ab4b3827db0e57de.d: crates/accelbrake-sim/src/lib.rs crates/accelbrake-sim/src/cc/mod.rs crates/accelbrake-sim/src/cc/abc.rs crates/accelbrake-sim/src/cc/cubic.rs crates/accelbrake-sim/src/cc/newreno.rs crates/accelbrake-sim/src/engine.rs crates/accelbrake-sim/src/error.rs crates/accelbrake-sim/src/link.rs crates/accelbrake-sim/src/metrics.rs crates/accelbrake-sim/src/packet.rs crates/accelbrake-sim/src/queue/mod.rs crates/accelbrake-sim/src/queue/abc.rs crates/accelbrake-sim/src/receiver.rs crates/accelbrake-sim/src/rng.rs crates/accelbrake-sim/src/scenario.rs crates/accelbrake-sim/src/sched.rs crates/accelbrake-sim/src/sender.rs crates/accelbrake-sim/src/time.rs

/work/main/target/debug/deps/libaccelbrake_sim-ab4b3827db0e57de.rmeta: crates/accelbrake-sim/src/lib.rs crates/accelbrake-sim/src/cc/mod.rs crates/accelbrake-sim/src/cc/abc.rs crates/accelbrake-sim/src/cc/cubic.rs crates/accelbrake-sim/src/cc/newreno.rs crates/accelbrake-sim/src/engine.rs crates/accelbrake-sim/src/error.rs crates/accelbrake-sim/src/link.rs crates/accelbrake-sim/src/metrics.rs crates/accelbrake-sim/src/packet.rs crates/accelbrake-sim/src/queue/mod.rs crates/accelbrake-sim/src/queue/abc.rs crates/accelbrake-sim/src/receiver.rs crates/accelbrake-sim/src/rng.rs crates/accelbrake-sim/src/scenario.rs crates/accelbrake-sim/src/sched.rs crates/accelbrake-sim/src/sender.rs crates/accelbrake-sim/src/time.rs

crates/accelbrake-sim/src/lib.rs:
crates/accelbrake-sim/src/cc/mod.rs:
crates/accelbrake-sim/src/cc/abc.rs:
crates/accelbrake-sim/src/cc/cubic.rs:
crates/accelbrake-sim/src/cc/newreno.rs:
crates/accelbrake-sim/src/engine.rs:
crates/accelbrake-sim/src/error.rs:
crates/accelbrake-sim/src/link.rs:
crates/accelbrake-sim/src/metrics.rs:
crates/accelbrake-sim/src/packet.rs:
crates/accelbrake-sim/src/queue/mod.rs:
crates/accelbrake-sim/src/queue/abc.rs:
crates/accelbrake-sim/src/receiver.rs:
crates/accelbrake-sim/src/rng.rs:
crates/accelbrake-sim/src/scenario.rs:
crates/accelbrake-sim/src/sched.rs:
crates/accelbrake-sim/src/sender.rs:
crates/accelbrake-sim/src/time.rs:
