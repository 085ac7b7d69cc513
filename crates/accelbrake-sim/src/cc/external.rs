//! Controllers implemented outside the core (in Python, through the PyO3 layer), and controllers
//! steered from outside between steps of a run (reinforcement-learning environments).
//!
//! The core stays pure Rust: it defines the interfaces, a binding implements them.
//!
//! * [`Callbacks`]: the calls of [`CongestionControl`] as one fallible method; [`External`] is the
//!   [`CongestionControl`] that forwards to it, caches the window and pacing rate each call
//!   returns, and on the first error records it in a shared [`Failure`] (which also serves as the
//!   run's stop flag) and from then on holds its last window and makes no more calls.
//! * [`ExternalFactory`] / [`Externals`]: named factories a [`crate::Simulation`] resolves
//!   `flows[].scheme` against before the built-in registry ([`crate::Simulation::with_externals`]).
//! * [`Steered`]: a controller whose window or pacing rate is set from outside through a
//!   [`SteerHandle`] (alone, or scaling a built-in controller's output as Orca does with Cubic), and
//!   that gathers the statistics of each monitor interval.
//!
//! None of this is on the path of a run without external controllers: [`crate::Simulation::new`]
//! builds only registry controllers, and the event loop does not know about any of it.

use super::{AckInfo, CcMetrics, CongestionControl, CongestionKind};
use crate::error::{Error, Result};
use crate::params::Given;
use crate::time::Time;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One call of the controller interface, as [`Callbacks::call`] receives it.
#[derive(Clone, Copy, Debug)]
pub enum Call<'a> {
    /// [`CongestionControl::on_sent`].
    Sent {
        /// Segments in flight, this one included.
        in_flight: u32,
    },
    /// [`CongestionControl::on_ack`].
    Ack(&'a AckInfo),
    /// [`CongestionControl::on_congestion_event`].
    Congestion {
        /// Loss or ECN.
        kind: CongestionKind,
        /// FlightSize at the event.
        in_flight: u32,
    },
    /// [`CongestionControl::on_recovery_exit`].
    RecoveryExit,
    /// [`CongestionControl::on_rto`].
    Rto {
        /// Segments in flight when the timer fired.
        in_flight: u32,
    },
    /// [`CongestionControl::on_spurious_rto`].
    SpuriousRto,
}

impl Call<'_> {
    /// The callback's name, as the Python base class spells it.
    pub fn hook(&self) -> &'static str {
        match self {
            Call::Sent { .. } => "on_sent",
            Call::Ack(_) => "on_ack",
            Call::Congestion { .. } => "on_congestion_event",
            Call::RecoveryExit => "on_recovery_exit",
            Call::Rto { .. } => "on_rto",
            Call::SpuriousRto => "on_spurious_rto",
        }
    }
}

/// What an external controller reports after each call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Output {
    /// Congestion window, segments.
    pub window: f64,
    /// Pacing rate, bytes per second, if paced.
    pub pacing_rate: Option<f64>,
    /// Slow-start threshold, segments, if it has one.
    pub ssthresh: Option<f64>,
}

/// A controller implemented outside the core. `call` runs one callback and returns the state
/// after it, or an error message (which stops the run, see [`Failure`]).
pub trait Callbacks: Send {
    /// Run one callback at `now`.
    fn call(&mut self, now: Time, call: Call<'_>) -> std::result::Result<Output, String>;
    /// Whether it wants [`Call::Sent`] (one call per segment sent: skipped unless asked for).
    fn wants_sent(&self) -> bool {
        false
    }
}

/// The first error of any external controller of a run. Its `flag` is the run's stop flag
/// ([`crate::Simulation::run_until_interruptible`]): the run stops within
/// [`crate::engine::STOP_CHECK_EVENTS`] events of the failure.
#[derive(Debug, Default)]
pub struct Failure {
    /// Set on the first failure.
    pub flag: AtomicBool,
    msg: Mutex<Option<String>>,
}

impl Failure {
    /// Record a failure (the first one wins).
    pub fn set(&self, msg: String) {
        let mut m = self.msg.lock().unwrap_or_else(|e| e.into_inner());
        if m.is_none() {
            *m = Some(msg);
        }
        self.flag.store(true, Ordering::Relaxed);
    }
    /// The first failure's message, if any.
    pub fn message(&self) -> Option<String> {
        self.msg.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Intern a name so that [`CongestionControl::name`] can return it (each distinct name is kept
/// once for the life of the process).
pub fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.iter().find(|n| **n == name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(n);
    n
}

/// The [`CongestionControl`] of an external controller: forwards every call to its
/// [`Callbacks`] and caches the window and pacing rate they return.
pub struct External {
    name: &'static str,
    flow: u32,
    cb: Box<dyn Callbacks>,
    out: Output,
    wants_sent: bool,
    failed: bool,
    failure: Arc<Failure>,
}

impl External {
    /// Wrap `cb` (flow index `flow`, for error messages); `init` is its state before any call.
    pub fn new(name: &str, flow: u32, cb: Box<dyn Callbacks>, init: Output, failure: Arc<Failure>) -> External {
        let wants_sent = cb.wants_sent();
        External {
            name: intern(name),
            flow,
            cb,
            out: init,
            wants_sent,
            failed: false,
            failure,
        }
    }

    fn forward(&mut self, now: Time, call: Call<'_>) {
        if self.failed {
            return;
        }
        match self.cb.call(now, call) {
            Ok(o)
                if o.window.is_finite()
                    && o.window >= 0.0
                    && o.pacing_rate.is_none_or(|r| r.is_finite() && r > 0.0) =>
            {
                self.out = o
            }
            Ok(o) => self.fail(
                call,
                format!(
                    "invalid output: cwnd = {} (expected a finite number ≥ 0 of segments), pacing_rate = {:?} \
                     (expected None or a finite rate > 0 bytes/s)",
                    o.window, o.pacing_rate
                ),
            ),
            Err(msg) => self.fail(call, msg),
        }
    }

    fn fail(&mut self, call: Call<'_>, msg: String) {
        self.failed = true;
        self.failure.set(format!(
            "controller '{}' (flow {}) failed in {}: {msg}",
            self.name,
            self.flow,
            call.hook()
        ));
    }
}

impl CongestionControl for External {
    fn name(&self) -> &'static str {
        self.name
    }
    fn window(&self) -> f64 {
        self.out.window
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.out.pacing_rate
    }
    fn ssthresh(&self) -> Option<f64> {
        self.out.ssthresh
    }
    fn on_sent(&mut self, now: Time, in_flight: u32) {
        if self.wants_sent {
            self.forward(now, Call::Sent { in_flight });
        }
    }
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.forward(now, Call::Ack(ack));
    }
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, in_flight: u32) {
        self.forward(now, Call::Congestion { kind, in_flight });
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.forward(now, Call::RecoveryExit);
    }
    fn on_rto(&mut self, now: Time, in_flight: u32) {
        self.forward(now, Call::Rto { in_flight });
    }
    fn on_spurious_rto(&mut self, now: Time) {
        self.forward(now, Call::SpuriousRto);
    }
}

/// What a factory needs to build one flow's controller.
#[derive(Clone, Copy, Debug)]
pub struct BuildInfo<'a> {
    /// Flow index (flows of an entry with `count` > 1 each have their own).
    pub flow: u32,
    /// `flows[].params` as given.
    pub params: &'a Given,
    /// When the flow starts.
    pub start: Time,
    /// The scenario's seed and the flow's controller stream id (for [`crate::rng::Rng::stream`]).
    pub seed: u64,
    /// See `seed`.
    pub stream: u64,
}

/// Builds the controllers of one external scheme name.
pub trait ExternalFactory: Send + Sync {
    /// Check `params` (errors name `flows[i].params.<key>`-style keys relative to `params`).
    fn check(&self, params: &Given) -> Result<()>;
    /// Build one flow's controller.
    fn build(&self, info: BuildInfo<'_>, failure: &Arc<Failure>) -> Result<Box<dyn CongestionControl>>;
}

/// Builds the queues of one external queue type.
pub trait ExternalQueueFactory: Send + Sync {
    /// Check the queue's fields (`hops[i].queue` without `type`).
    fn check(&self, params: &Given) -> Result<()>;
    /// Build hop `hop`'s queue.
    fn build(
        &self,
        hop: usize,
        params: &Given,
        seed: u64,
        failure: &Arc<Failure>,
    ) -> Result<Box<dyn crate::queue::Queue>>;
}

/// External schemes and queue types by name, and the failure slot their controllers and queues
/// share in one run.
#[derive(Clone, Default)]
pub struct Externals {
    map: BTreeMap<String, Arc<dyn ExternalFactory>>,
    queues: BTreeMap<String, Arc<dyn ExternalQueueFactory>>,
    /// The run's failure slot (shared by every external controller of the run).
    pub failure: Arc<Failure>,
}

impl Externals {
    /// No external schemes.
    pub fn new() -> Externals {
        Externals::default()
    }
    /// Add (or replace) a scheme name. Built-in names cannot be shadowed.
    pub fn insert(&mut self, name: &str, factory: Arc<dyn ExternalFactory>) -> Result<()> {
        if super::lookup(name).is_ok() {
            return Err(Error::Param {
                key: "scheme".into(),
                msg: format!("'{name}' is a built-in scheme; give the external controller another name"),
            });
        }
        self.map.insert(name.to_string(), factory);
        Ok(())
    }
    /// The factory of a name, if external.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn ExternalFactory>> {
        self.map.get(name)
    }
    /// Add (or replace) a queue type. Built-in queue types cannot be shadowed.
    pub fn insert_queue(&mut self, name: &str, factory: Arc<dyn ExternalQueueFactory>) -> Result<()> {
        if crate::queue::lookup(name, "type").is_ok() {
            return Err(Error::Param {
                key: "queue".into(),
                msg: format!("'{name}' is a built-in queue type; give the external queue another name"),
            });
        }
        self.queues.insert(name.to_string(), factory);
        Ok(())
    }
    /// The factory of a queue type, if external.
    pub fn get_queue(&self, name: &str) -> Option<&Arc<dyn ExternalQueueFactory>> {
        self.queues.get(name)
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty() && self.queues.is_empty()
    }
}

/// What a [`Steered`] controller does with the value set through its [`SteerHandle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SteerMode {
    /// The value is the pacing rate (bytes/s); the window is a safety cap of
    /// `max(4, 2 · rate · max(srtt, min RTT))` segments (the transport needs one).
    Rate,
    /// The value is the congestion window (segments); no pacing.
    Window,
    /// The value multiplies the inner controller's window (and pacing rate, if any): Orca's
    /// `cwnd = 2^(2a) · cwnd_cubic`, with Cubic's own state left as it is.
    Scale,
}

/// One monitor interval's (or the run's) statistics of a steered flow, from the ACKs it saw.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SteerStats {
    /// Segments sent (new and retransmitted).
    pub sent: u64,
    /// Segments newly delivered (cumulatively ACKed or SACKed).
    pub acked: u64,
    /// Segments newly marked lost.
    pub lost: u64,
    /// ACKs that carried an RTT sample, and their sum, min, max (seconds), first and last.
    pub rtt_count: u64,
    /// See `rtt_count`.
    pub rtt_sum: f64,
    /// See `rtt_count`.
    pub rtt_min: f64,
    /// See `rtt_count`.
    pub rtt_max: f64,
    /// See `rtt_count`.
    pub rtt_first: f64,
    /// See `rtt_count`.
    pub rtt_last: f64,
    /// Sum of (time of sample − interval start, RTT) products and of squared times, for the
    /// least-squares latency gradient: `Σt`, `Σt²`, `Σt·rtt` (t in seconds).
    pub t_sum: f64,
    /// See `t_sum`.
    pub t2_sum: f64,
    /// See `t_sum`.
    pub t_rtt_sum: f64,
    /// ECN / ABC brake echoes among the ACKed segments' marks (ACKs with a mark).
    pub marked_acks: u64,
    /// Congestion events (loss or ECN) and retransmission timeouts.
    pub congestion_events: u64,
    /// See `congestion_events`.
    pub rtos: u64,
    /// Smallest RTT seen on the connection so far (seconds), if any.
    pub min_rtt: Option<f64>,
    /// Smoothed RTT at the last ACK (seconds), if any.
    pub srtt: Option<f64>,
    /// Segments in flight at the last ACK.
    pub in_flight: u32,
    /// Start of the interval.
    pub since: Time,
}

/// State shared between a [`Steered`] controller and whoever steers it.
#[derive(Debug)]
pub struct SteerState {
    /// Mode (fixed at construction).
    pub mode: SteerMode,
    /// The value in force (f64 bits): rate (bytes/s), window (segments) or scale.
    value: AtomicU64,
    stats: Mutex<(SteerStats, SteerStats)>,
}

impl SteerState {
    /// The value in force.
    pub fn value(&self) -> f64 {
        f64::from_bits(self.value.load(Ordering::Relaxed))
    }
    /// Set the value; it applies from the next use of the window or pacing rate. (Call
    /// [`crate::Simulation::wake_sender`] afterwards so that the sender acts on it at once.)
    pub fn set_value(&self, v: f64) {
        self.value.store(v.to_bits(), Ordering::Relaxed);
    }
    /// Take the statistics of the interval that ends at `now` and start a new one.
    pub fn take_interval(&self, now: Time) -> SteerStats {
        let mut g = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        let (ivl, tot) = &mut *g;
        let mut out = *ivl;
        out.min_rtt = tot.min_rtt;
        out.srtt = tot.srtt;
        out.in_flight = tot.in_flight;
        *ivl = SteerStats {
            since: now,
            ..SteerStats::default()
        };
        out
    }
    /// Statistics since the flow started.
    pub fn total(&self) -> SteerStats {
        self.stats.lock().unwrap_or_else(|e| e.into_inner()).1
    }
    fn update(&self, f: impl Fn(&mut SteerStats)) {
        let mut g = self.stats.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g.0);
        f(&mut g.1);
    }
}

/// The steering end of a [`Steered`] controller.
pub type SteerHandle = Arc<SteerState>;

/// A controller steered from outside between steps of a run ([`SteerMode`]).
pub struct Steered {
    inner: Option<Box<dyn CongestionControl>>,
    state: SteerHandle,
    /// RTT used for the rate mode's window cap: srtt, else min RTT, else 100 ms.
    rtt: f64,
}

impl Steered {
    /// A steered controller with initial `value`, over `inner` (needed for
    /// [`SteerMode::Scale`]); returns it and its handle.
    pub fn new(mode: SteerMode, value: f64, inner: Option<Box<dyn CongestionControl>>) -> (Steered, SteerHandle) {
        let state = Arc::new(SteerState {
            mode,
            value: AtomicU64::new(value.to_bits()),
            stats: Mutex::new(Default::default()),
        });
        let s = Steered {
            inner,
            state: state.clone(),
            rtt: 0.1,
        };
        (s, state)
    }

    fn each_inner(&mut self, f: impl FnOnce(&mut Box<dyn CongestionControl>)) {
        if let Some(i) = self.inner.as_mut() {
            f(i);
        }
    }
}

impl CongestionControl for Steered {
    fn name(&self) -> &'static str {
        "steered"
    }
    fn window(&self) -> f64 {
        let v = self.state.value();
        match (self.state.mode, &self.inner) {
            (SteerMode::Rate, _) => (2.0 * v * self.rtt / f64::from(crate::packet::MSS)).max(4.0),
            (SteerMode::Scale, Some(inner)) => inner.window() * v,
            (SteerMode::Window, _) | (SteerMode::Scale, None) => v,
        }
    }
    fn pacing_rate(&self) -> Option<f64> {
        let v = self.state.value();
        match (self.state.mode, &self.inner) {
            (SteerMode::Rate, _) => Some(v),
            (SteerMode::Scale, Some(inner)) => inner.pacing_rate().map(|r| r * v),
            _ => None,
        }
    }
    fn pacing_min_burst(&self) -> u32 {
        self.inner
            .as_ref()
            .map_or(super::PACING_MIN_BURST, |i| i.pacing_min_burst())
    }
    fn ssthresh(&self) -> Option<f64> {
        self.inner.as_ref().and_then(|i| i.ssthresh())
    }
    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.window(),
            ssthresh: self.ssthresh(),
            pacing_rate: self.pacing_rate(),
            ..CcMetrics::default()
        }
    }
    fn on_sent(&mut self, now: Time, in_flight: u32) {
        self.each_inner(|i| i.on_sent(now, in_flight));
        self.state.update(|s| s.sent += 1);
    }
    fn on_ack(&mut self, now: Time, ack: &AckInfo) {
        self.each_inner(|i| i.on_ack(now, ack));
        if let Some(r) = ack.srtt.or(ack.min_rtt) {
            self.rtt = r.secs_f64();
        }
        let rtt = ack.rtt.map(|d| d.secs_f64());
        let marked = matches!(ack.echo, crate::packet::Echo::Ce | crate::packet::Echo::Brake);
        self.state.update(|s| {
            s.acked += u64::from(ack.acked);
            s.lost += u64::from(ack.lost);
            s.marked_acks += u64::from(marked);
            if let Some(r) = rtt {
                if s.rtt_count == 0 {
                    s.rtt_min = r;
                    s.rtt_max = r;
                    s.rtt_first = r;
                }
                s.rtt_count += 1;
                s.rtt_sum += r;
                s.rtt_min = s.rtt_min.min(r);
                s.rtt_max = s.rtt_max.max(r);
                s.rtt_last = r;
                let t = (now - s.since).secs_f64();
                s.t_sum += t;
                s.t2_sum += t * t;
                s.t_rtt_sum += t * r;
            }
            s.min_rtt = ack.min_rtt.map(|d| d.secs_f64());
            s.srtt = ack.srtt.map(|d| d.secs_f64());
            s.in_flight = ack.in_flight;
        });
    }
    fn on_congestion_event(&mut self, now: Time, kind: CongestionKind, in_flight: u32) {
        self.each_inner(|i| i.on_congestion_event(now, kind, in_flight));
        self.state.update(|s| s.congestion_events += 1);
    }
    fn on_recovery_exit(&mut self, now: Time) {
        self.each_inner(|i| i.on_recovery_exit(now));
    }
    fn on_rto(&mut self, now: Time, in_flight: u32) {
        self.each_inner(|i| i.on_rto(now, in_flight));
        self.state.update(|s| s.rtos += 1);
    }
    fn on_spurious_rto(&mut self, now: Time) {
        self.each_inner(|i| i.on_spurious_rto(now));
    }
}

/// Builds the [`Steered`] controller of one flow (an entry with `count` 1): `flows[].params` go
/// to the inner scheme, if there is one. The handle of the controller built last is kept for the
/// steering side ([`SteerFactory::handle`]).
pub struct SteerFactory {
    mode: SteerMode,
    initial: f64,
    inner: Option<&'static super::Scheme>,
    handle: Mutex<Option<SteerHandle>>,
}

impl SteerFactory {
    /// A factory of steered controllers with `initial` value over `inner` (a scheme name, needed
    /// for [`SteerMode::Scale`]).
    pub fn new(mode: SteerMode, initial: f64, inner: Option<&str>) -> Result<SteerFactory> {
        let inner = inner.map(super::lookup).transpose()?;
        if mode == SteerMode::Scale && inner.is_none() {
            return Err(Error::Param {
                key: "inner".into(),
                msg: "the scale mode scales a built-in controller's window: name one (e.g. cubic)".into(),
            });
        }
        if !(initial.is_finite() && initial > 0.0) {
            return Err(Error::Param {
                key: "initial".into(),
                msg: format!("expected a finite value > 0, got {initial}"),
            });
        }
        Ok(SteerFactory {
            mode,
            initial,
            inner,
            handle: Mutex::new(None),
        })
    }
    /// The handle of the controller built last.
    pub fn handle(&self) -> Option<SteerHandle> {
        self.handle.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl ExternalFactory for SteerFactory {
    fn check(&self, params: &Given) -> Result<()> {
        match self.inner {
            Some(s) => s.values(params).map(|_| ()),
            None if params.is_empty() => Ok(()),
            None => Err(Error::Param {
                key: "params".into(),
                msg: "a steered flow without an inner controller takes no parameters".into(),
            }),
        }
    }
    fn build(&self, info: BuildInfo<'_>, _failure: &Arc<Failure>) -> Result<Box<dyn CongestionControl>> {
        let inner = match self.inner {
            Some(s) => Some((s.build)(
                &s.values(info.params)?,
                info.start,
                crate::rng::Rng::stream(info.seed, info.stream),
            )?),
            None => None,
        };
        let (c, h) = Steered::new(self.mode, self.initial, inner);
        *self.handle.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
        Ok(Box::new(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::Simulation;

    const SCENARIO: &str = r#"{"duration_ms": 3000,
        "hops": [{"link": {"type": "constant", "mbps": 12}, "queue": {"type": "droptail", "packets": 50}, "delay_ms": 20},
                 {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "infinite"}, "delay_ms": 20}],
        "flows": [{"scheme": "SCHEME", "fwd": [0], "rev": [1]}]}"#;

    /// Callbacks that forward to a built-in controller (and fail on call `fail_at`, if set).
    struct Wrap {
        inner: Box<dyn CongestionControl>,
        calls: u64,
        fail_at: Option<u64>,
    }

    impl Callbacks for Wrap {
        fn call(&mut self, now: Time, call: Call<'_>) -> std::result::Result<Output, String> {
            self.calls += 1;
            if self.fail_at == Some(self.calls) {
                return Err("boom".into());
            }
            match call {
                Call::Sent { in_flight } => self.inner.on_sent(now, in_flight),
                Call::Ack(a) => self.inner.on_ack(now, a),
                Call::Congestion { kind, in_flight } => self.inner.on_congestion_event(now, kind, in_flight),
                Call::RecoveryExit => self.inner.on_recovery_exit(now),
                Call::Rto { in_flight } => self.inner.on_rto(now, in_flight),
                Call::SpuriousRto => self.inner.on_spurious_rto(now),
            }
            Ok(Output {
                window: self.inner.window(),
                pacing_rate: self.inner.pacing_rate(),
                ssthresh: self.inner.ssthresh(),
            })
        }
    }

    struct WrapFactory(Option<u64>);

    impl ExternalFactory for WrapFactory {
        fn check(&self, _params: &Given) -> Result<()> {
            Ok(())
        }
        fn build(&self, info: BuildInfo<'_>, failure: &Arc<Failure>) -> Result<Box<dyn CongestionControl>> {
            let inner = super::super::build("cubic", &Given::new(), info.start, crate::rng::Rng::stream(0, 0))?;
            let init = Output {
                window: inner.window(),
                pacing_rate: inner.pacing_rate(),
                ssthresh: inner.ssthresh(),
            };
            let cb = Wrap {
                inner,
                calls: 0,
                fail_at: self.0,
            };
            Ok(Box::new(External::new(
                "wrapped",
                info.flow,
                Box::new(cb),
                init,
                failure.clone(),
            )))
        }
    }

    fn scenario(scheme: &str) -> String {
        SCENARIO.replace("SCHEME", scheme)
    }

    #[test]
    fn an_external_wrapping_cubic_is_cubic_bit_for_bit() {
        let reference = crate::simulate(&Scenario::from_json(&scenario("cubic")).unwrap()).unwrap();
        let mut x = Externals::new();
        x.insert("wrapped", Arc::new(WrapFactory(None))).unwrap();
        let s = Scenario::from_json_with(&scenario("wrapped"), Some(&x)).unwrap();
        let mut sim = Simulation::with_externals(&s, Some(&x)).unwrap();
        sim.run_until_interruptible(sim.end(), &x.failure.flag).unwrap();
        assert_eq!(sim.check_invariants(), Ok(()));
        let r = sim.result();
        let a = serde_json::to_value(&reference.summary).unwrap().to_string();
        let b = serde_json::to_value(&r.summary)
            .unwrap()
            .to_string()
            .replace("\"wrapped\"", "\"cubic\"");
        assert_eq!(a, b);
        assert!(x.failure.message().is_none());
    }

    #[test]
    fn a_failing_external_stops_the_run_with_its_message() {
        let mut x = Externals::new();
        x.insert("wrapped", Arc::new(WrapFactory(Some(100)))).unwrap();
        let s = Scenario::from_json_with(&scenario("wrapped"), Some(&x)).unwrap();
        let mut sim = Simulation::with_externals(&s, Some(&x)).unwrap();
        let r = sim.run_until_interruptible(sim.end(), &x.failure.flag);
        assert!(matches!(r, Err(Error::Interrupted)) || sim.now() == sim.end());
        let msg = x.failure.message().unwrap();
        assert!(msg.starts_with("controller 'wrapped' (flow 0) failed in on_"), "{msg}");
        assert!(msg.ends_with(": boom"), "{msg}");
    }

    #[test]
    fn unknown_scheme_without_externals_and_builtin_names_refused() {
        assert!(Scenario::from_json(&scenario("wrapped")).is_err());
        let mut x = Externals::new();
        assert!(x.insert("cubic", Arc::new(WrapFactory(None))).is_err());
    }

    #[test]
    fn steered_rate_and_window_follow_the_value() {
        for (mode, value, inner) in [
            (SteerMode::Rate, 500_000.0, None),
            (SteerMode::Window, 20.0, None),
            (SteerMode::Scale, 0.5, Some("cubic")),
        ] {
            let f = Arc::new(SteerFactory::new(mode, value, inner).unwrap());
            let mut x = Externals::new();
            x.insert("agent", f.clone()).unwrap();
            let s = Scenario::from_json_with(&scenario("agent"), Some(&x)).unwrap();
            let mut sim = Simulation::with_externals(&s, Some(&x)).unwrap();
            let h = f.handle().unwrap();
            sim.run_until(Time::from_millis(1000));
            let _ = h.take_interval(sim.now());
            sim.run_until(Time::from_millis(2000));
            let st = h.take_interval(sim.now());
            assert_eq!(st.since, Time::from_millis(1000));
            assert!(
                st.acked > 0 && st.rtt_count > 0 && st.rtt_min >= 0.04,
                "{mode:?}: {st:?}"
            );
            let cc = &sim.sender(0).expect("an external flow is built with the simulation").cc;
            match mode {
                SteerMode::Rate => {
                    // 500 kB/s = 4 Mbit/s of payload: about 345 segments per second.
                    assert!((330..=360).contains(&st.acked), "{st:?}");
                    assert_eq!(cc.pacing_rate(), Some(500_000.0));
                }
                SteerMode::Window => assert_eq!(cc.window(), 20.0),
                SteerMode::Scale => assert!(cc.window() > 0.0),
            }
            h.set_value(value * 2.0);
            sim.wake_sender(0);
            assert_eq!(h.value(), value * 2.0);
            sim.run_until(sim.end());
            assert_eq!(sim.check_invariants(), Ok(()));
        }
        assert!(SteerFactory::new(SteerMode::Scale, 1.0, None).is_err());
        assert!(SteerFactory::new(SteerMode::Rate, f64::NAN, None).is_err());
    }

    // ---- Unit tests of each piece, by hand (mutation testing). ----

    fn out(window: f64, pacing_rate: Option<f64>, ssthresh: Option<f64>) -> Output {
        Output {
            window,
            pacing_rate,
            ssthresh,
        }
    }

    /// Callbacks that log each call (`"<ns> <hook> <fields>"`) and return the outputs of
    /// `script` in turn (the last one repeats).
    struct Script {
        log: Arc<Mutex<Vec<String>>>,
        script: Vec<std::result::Result<Output, String>>,
        sent: bool,
    }

    impl Callbacks for Script {
        fn call(&mut self, now: Time, call: Call<'_>) -> std::result::Result<Output, String> {
            let what = match call {
                Call::Sent { in_flight } => format!("{in_flight}"),
                Call::Ack(a) => format!("{}", a.acked),
                Call::Congestion { kind, in_flight } => format!("{kind:?} {in_flight}"),
                Call::RecoveryExit | Call::SpuriousRto => String::new(),
                Call::Rto { in_flight } => format!("{in_flight}"),
            };
            self.log
                .lock()
                .unwrap()
                .push(format!("{} {} {what}", now.0, call.hook()));
            if self.script.len() > 1 {
                self.script.remove(0)
            } else {
                self.script[0].clone()
            }
        }
        fn wants_sent(&self) -> bool {
            self.sent
        }
    }

    fn scripted(
        sent: bool,
        script: Vec<std::result::Result<Output, String>>,
        failure: &Arc<Failure>,
    ) -> (External, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let cb = Script {
            log: log.clone(),
            script,
            sent,
        };
        let e = External::new("ext-unit", 3, Box::new(cb), out(10.0, None, None), failure.clone());
        (e, log)
    }

    fn ack(acked: u32) -> AckInfo {
        AckInfo {
            acked,
            ..AckInfo::default()
        }
    }

    #[test]
    fn an_external_forwards_each_call_by_name_and_caches_what_it_returns() {
        let failure = Arc::new(Failure::default());
        let script = (11..=17)
            .map(|w| Ok(out(f64::from(w), Some(1e3 * f64::from(w)), Some(2.0))))
            .collect();
        let (mut e, log) = scripted(true, script, &failure);
        // The initial state until the first call.
        assert_eq!(e.name(), "ext-unit");
        assert_eq!((e.window(), e.pacing_rate(), e.ssthresh()), (10.0, None, None));
        e.on_sent(Time(1), 5);
        assert_eq!(
            (e.window(), e.pacing_rate(), e.ssthresh()),
            (11.0, Some(11e3), Some(2.0))
        );
        e.on_ack(Time(2), &ack(3));
        assert_eq!(e.window(), 12.0);
        e.on_congestion_event(Time(3), CongestionKind::Ecn, 7);
        e.on_recovery_exit(Time(4));
        e.on_rto(Time(5), 9);
        e.on_spurious_rto(Time(6));
        e.on_congestion_event(Time(7), CongestionKind::Loss, 8);
        assert_eq!((e.window(), e.pacing_rate()), (17.0, Some(17e3)));
        assert_eq!(
            *log.lock().unwrap(),
            [
                "1 on_sent 5",
                "2 on_ack 3",
                "3 on_congestion_event Ecn 7",
                "4 on_recovery_exit ",
                "5 on_rto 9",
                "6 on_spurious_rto ",
                "7 on_congestion_event Loss 8",
            ]
        );
        assert!(failure.message().is_none() && !failure.flag.load(Ordering::Relaxed));
        // Without `wants_sent`, sending is not reported.
        let (mut quiet, log) = scripted(false, vec![Ok(out(20.0, None, None))], &failure);
        quiet.on_sent(Time(1), 1);
        assert!(log.lock().unwrap().is_empty());
        assert_eq!(quiet.window(), 10.0);
        quiet.on_ack(Time(2), &ack(1));
        assert_eq!(*log.lock().unwrap(), ["2 on_ack 1"]);
        // Nor by default.
        struct Plain(Arc<Mutex<u32>>);
        impl Callbacks for Plain {
            fn call(&mut self, _: Time, _: Call<'_>) -> std::result::Result<Output, String> {
                *self.0.lock().unwrap() += 1;
                Ok(out(1.0, None, None))
            }
        }
        let calls = Arc::new(Mutex::new(0));
        let mut plain = External::new(
            "ext-plain",
            0,
            Box::new(Plain(calls.clone())),
            out(2.0, None, None),
            failure,
        );
        plain.on_sent(Time(1), 1);
        assert_eq!((*calls.lock().unwrap(), plain.window()), (0, 2.0));
        plain.on_rto(Time(2), 1);
        assert_eq!((*calls.lock().unwrap(), plain.window()), (1, 1.0));
    }

    /// The output check at its boundaries: a window must be finite and ≥ 0 (0 passes), a pacing
    /// rate None or finite and > 0 (0 fails). A failing call records the first failure with the
    /// controller's name, flow and hook, keeps the last good state and ends the calls.
    #[test]
    fn outputs_are_checked_at_their_bounds_and_a_failure_freezes_the_controller() {
        for good in [
            out(0.0, None, None),
            out(5.0, Some(1e-300), None),
            out(f64::MAX, Some(f64::MAX), None),
        ] {
            let failure = Arc::new(Failure::default());
            let (mut e, _) = scripted(false, vec![Ok(good)], &failure);
            e.on_ack(Time(1), &ack(1));
            assert_eq!(
                (e.window(), e.pacing_rate()),
                (good.window, good.pacing_rate),
                "{good:?}"
            );
            assert!(failure.message().is_none(), "{good:?}");
        }
        for bad in [
            out(-1e-9, None, None),
            out(-1.0, Some(1.0), None),
            out(f64::INFINITY, None, None),
            out(f64::NAN, None, None),
            out(5.0, Some(0.0), None),
            out(5.0, Some(-1.0), None),
            out(5.0, Some(f64::INFINITY), None),
            out(5.0, Some(f64::NAN), None),
        ] {
            let failure = Arc::new(Failure::default());
            let (mut e, log) = scripted(false, vec![Ok(out(6.0, Some(9.0), Some(4.0))), Ok(bad)], &failure);
            e.on_ack(Time(1), &ack(1));
            assert_eq!(e.window(), 6.0);
            e.on_rto(Time(2), 4);
            assert_eq!(
                (e.window(), e.pacing_rate(), e.ssthresh()),
                (6.0, Some(9.0), Some(4.0)),
                "{bad:?}"
            );
            assert!(failure.flag.load(Ordering::Relaxed), "{bad:?}");
            assert_eq!(
                failure.message().unwrap(),
                format!(
                    "controller 'ext-unit' (flow 3) failed in on_rto: invalid output: cwnd = {} (expected a finite \
                     number ≥ 0 of segments), pacing_rate = {:?} (expected None or a finite rate > 0 bytes/s)",
                    bad.window, bad.pacing_rate
                )
            );
            // No more calls.
            e.on_ack(Time(3), &ack(1));
            e.on_spurious_rto(Time(4));
            assert_eq!(log.lock().unwrap().len(), 2, "{bad:?}");
        }
        // An error message: the first failure of the run wins.
        let failure = Arc::new(Failure::default());
        let (mut a, _) = scripted(false, vec![Err("first".into())], &failure);
        let (mut b, _) = scripted(false, vec![Err("second".into())], &failure);
        a.on_recovery_exit(Time(1));
        b.on_ack(Time(2), &ack(1));
        assert_eq!(
            failure.message().as_deref(),
            Some("controller 'ext-unit' (flow 3) failed in on_recovery_exit: first")
        );
        assert_eq!((a.window(), b.window()), (10.0, 10.0));
    }

    #[test]
    fn names_are_interned_once() {
        let a = intern("ext-intern-a");
        let b = intern("ext-intern-b");
        let a2 = intern(&String::from("ext-intern-a"));
        assert_eq!((a, b, a2), ("ext-intern-a", "ext-intern-b", "ext-intern-a"));
        assert!(std::ptr::eq(a, a2));
        assert!(!std::ptr::eq(a, b));
    }

    struct NoQueue;

    impl ExternalQueueFactory for NoQueue {
        fn check(&self, _params: &Given) -> Result<()> {
            Ok(())
        }
        fn build(&self, _: usize, _: &Given, _: u64, _: &Arc<Failure>) -> Result<Box<dyn crate::queue::Queue>> {
            Err(Error::Param {
                key: "queue".into(),
                msg: "none".into(),
            })
        }
    }

    #[test]
    fn externals_hold_schemes_and_queues_but_never_built_in_names() {
        let mut x = Externals::new();
        assert!(x.is_empty());
        x.insert_queue("ext-q", Arc::new(NoQueue)).unwrap();
        assert!(!x.is_empty(), "a queue alone");
        assert!(x.get_queue("ext-q").is_some() && x.get_queue("ext-r").is_none());
        assert!(x.get("ext-q").is_none());
        let mut y = Externals::new();
        y.insert("ext-s", Arc::new(WrapFactory(None))).unwrap();
        assert!(!y.is_empty(), "a scheme alone");
        assert!(y.get("ext-s").is_some() && y.get("ext-t").is_none());
        assert!(y.get_queue("ext-s").is_none());
        let e = y.insert("cubic", Arc::new(WrapFactory(None))).unwrap_err();
        assert!(
            matches!(&e, Error::Param { key, msg } if key == "scheme" && msg.contains("'cubic' is a built-in scheme")),
            "{e}"
        );
        let e = y.insert_queue("droptail", Arc::new(NoQueue)).unwrap_err();
        assert!(
            matches!(&e, Error::Param { key, msg } if key == "queue" && msg.contains("'droptail' is a built-in queue type")),
            "{e}"
        );
        assert!(y.get("cubic").is_none() && y.get_queue("droptail").is_none());
    }

    /// A built-in stand-in that logs the hooks it gets: window 10, pacing 2000 B/s, ssthresh 7,
    /// bursts of 1.
    struct Inner(Arc<Mutex<Vec<&'static str>>>);

    impl CongestionControl for Inner {
        fn name(&self) -> &'static str {
            "inner"
        }
        fn window(&self) -> f64 {
            10.0
        }
        fn pacing_rate(&self) -> Option<f64> {
            Some(2000.0)
        }
        fn pacing_min_burst(&self) -> u32 {
            1
        }
        fn ssthresh(&self) -> Option<f64> {
            Some(7.0)
        }
        fn on_sent(&mut self, _: Time, _: u32) {
            self.0.lock().unwrap().push("sent");
        }
        fn on_ack(&mut self, _: Time, _: &AckInfo) {
            self.0.lock().unwrap().push("ack");
        }
        fn on_congestion_event(&mut self, _: Time, _: CongestionKind, _: u32) {
            self.0.lock().unwrap().push("congestion");
        }
        fn on_recovery_exit(&mut self, _: Time) {
            self.0.lock().unwrap().push("recovery_exit");
        }
        fn on_rto(&mut self, _: Time, _: u32) {
            self.0.lock().unwrap().push("rto");
        }
        fn on_spurious_rto(&mut self, _: Time) {
            self.0.lock().unwrap().push("spurious_rto");
        }
    }

    fn ms_dur(x: u64) -> Option<crate::time::Dur> {
        Some(crate::time::Dur::from_millis(x))
    }

    /// Each mode's window and pacing rate, by hand. Rate mode: the cap
    /// `max(4, 2 · rate · RTT / MSS)` with RTT = srtt, else min RTT, else 100 ms.
    #[test]
    fn steered_window_and_pacing_rate_of_each_mode_by_hand() {
        let mss = f64::from(crate::packet::MSS);
        let (mut r, h) = Steered::new(SteerMode::Rate, 1e6, None);
        assert_eq!(h.mode, SteerMode::Rate);
        assert_eq!(r.name(), "steered");
        assert_eq!(r.window(), 2.0 * 1e6 * 0.1 / mss);
        assert_eq!(
            (r.pacing_rate(), r.ssthresh(), r.pacing_min_burst()),
            (Some(1e6), None, 2)
        );
        let m = r.metrics();
        assert_eq!((m.cwnd, m.pacing_rate, m.ssthresh), (r.window(), Some(1e6), None));
        let with = |srtt, min_rtt| AckInfo {
            srtt,
            min_rtt,
            ..AckInfo::default()
        };
        r.on_ack(Time(1), &with(ms_dur(30), ms_dur(20)));
        assert_eq!(r.window(), 2.0 * 1e6 * 0.03 / mss);
        r.on_ack(Time(2), &with(None, ms_dur(20)));
        assert_eq!(r.window(), 2.0 * 1e6 * 0.02 / mss);
        r.on_ack(Time(3), &with(None, None));
        assert_eq!(r.window(), 2.0 * 1e6 * 0.02 / mss, "kept");
        h.set_value(1000.0);
        assert_eq!((r.window(), r.pacing_rate()), (4.0, Some(1000.0)), "the floor of 4");
        h.set_value(150_000.0); // 2 · 150 000 · 0.02 / 1448 = 4.14…
        assert_eq!(r.window(), 6000.0 / mss);

        let log = Arc::new(Mutex::new(Vec::new()));
        let (s, h) = Steered::new(SteerMode::Scale, 0.5, Some(Box::new(Inner(log.clone()))));
        assert_eq!(
            (s.window(), s.pacing_rate(), s.ssthresh(), s.pacing_min_burst()),
            (5.0, Some(1000.0), Some(7.0), 1)
        );
        h.set_value(3.0);
        let m = s.metrics();
        assert_eq!((m.cwnd, m.pacing_rate, m.ssthresh), (30.0, Some(6000.0), Some(7.0)));
        // Scale without an inner controller (SteerFactory refuses it): the value itself.
        let (s, _) = Steered::new(SteerMode::Scale, 3.0, None);
        assert_eq!((s.window(), s.pacing_rate()), (3.0, None));
        // Window mode: the value, unpaced, whatever the inner controller paces at.
        let (w, h) = Steered::new(SteerMode::Window, 20.0, Some(Box::new(Inner(log.clone()))));
        assert_eq!((w.window(), w.pacing_rate(), w.ssthresh()), (20.0, None, Some(7.0)));
        h.set_value(12.5);
        assert_eq!((w.window(), h.value()), (12.5, 12.5));
        let (w, _) = Steered::new(SteerMode::Window, 20.0, None);
        assert_eq!((w.window(), w.pacing_rate(), w.ssthresh()), (20.0, None, None));
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    /// Interval and running statistics after a hand-made sequence of calls (times in s from the
    /// interval's start; the least-squares sums use them), and every hook passed on to the inner
    /// controller.
    #[test]
    fn steered_statistics_worked_by_hand() {
        use crate::packet::Echo;
        let log = Arc::new(Mutex::new(Vec::new()));
        let (mut c, h) = Steered::new(SteerMode::Window, 8.0, Some(Box::new(Inner(log.clone()))));
        let secs = |x: f64| Time((x * 1e9) as u64);
        for k in 1..=3 {
            c.on_sent(Time(k), k as u32);
        }
        let a = |acked, lost, echo, rtt, min_rtt, srtt, in_flight| AckInfo {
            acked,
            lost,
            echo,
            rtt,
            min_rtt,
            srtt,
            in_flight,
            ..AckInfo::default()
        };
        c.on_ack(secs(1.0), &a(2, 0, Echo::Ce, ms_dur(50), ms_dur(40), ms_dur(45), 5));
        c.on_ack(secs(1.5), &a(1, 1, Echo::Brake, ms_dur(30), ms_dur(30), ms_dur(43), 4));
        c.on_ack(secs(2.0), &a(1, 0, Echo::Accelerate, None, ms_dur(30), ms_dur(44), 3));
        c.on_congestion_event(secs(2.0), CongestionKind::Loss, 3);
        c.on_recovery_exit(secs(2.0));
        c.on_rto(secs(2.0), 3);
        c.on_spurious_rto(secs(2.0));
        assert_eq!(
            *log.lock().unwrap(),
            [
                "sent",
                "sent",
                "sent",
                "ack",
                "ack",
                "ack",
                "congestion",
                "recovery_exit",
                "rto",
                "spurious_rto"
            ]
        );
        let st = h.take_interval(secs(2.0));
        let t = h.total();
        for s in [st, t] {
            assert_eq!((s.sent, s.acked, s.lost, s.marked_acks), (3, 4, 1, 2), "{s:?}");
            assert_eq!(
                (s.congestion_events, s.rtos, s.rtt_count, s.in_flight),
                (1, 1, 2, 3),
                "{s:?}"
            );
            assert_eq!(
                (s.rtt_min, s.rtt_max, s.rtt_first, s.rtt_last),
                (0.03, 0.05, 0.05, 0.03),
                "{s:?}"
            );
            assert!(close(s.rtt_sum, 0.08), "{s:?}");
            // t = 1.0 and 1.5 s: Σt = 2.5, Σt² = 3.25, Σt·rtt = 0.05 + 0.045.
            assert!(
                close(s.t_sum, 2.5) && close(s.t2_sum, 3.25) && close(s.t_rtt_sum, 0.095),
                "{s:?}"
            );
            assert_eq!(
                (s.min_rtt, s.srtt, s.since),
                (Some(0.03), Some(0.044), Time::ZERO),
                "{s:?}"
            );
        }
        // A new interval from 2 s: its first sample sets min, max and first; its times count
        // from 2 s; the running totals go on from 0.
        c.on_ack(secs(2.5), &a(1, 0, Echo::None, ms_dur(60), ms_dur(30), ms_dur(46), 2));
        let st = h.take_interval(secs(3.0));
        assert_eq!(st.since, secs(2.0));
        assert_eq!(
            (
                st.sent,
                st.acked,
                st.lost,
                st.marked_acks,
                st.rtt_count,
                st.congestion_events
            ),
            (0, 1, 0, 0, 1, 0)
        );
        assert_eq!(
            (st.rtt_min, st.rtt_max, st.rtt_first, st.rtt_last),
            (0.06, 0.06, 0.06, 0.06)
        );
        assert!(
            close(st.t_sum, 0.5) && close(st.t2_sum, 0.25) && close(st.t_rtt_sum, 0.03),
            "{st:?}"
        );
        let t = h.total();
        assert_eq!(
            (t.acked, t.rtt_count, t.rtt_min, t.rtt_max, t.rtt_first, t.rtt_last),
            (5, 3, 0.03, 0.06, 0.05, 0.06)
        );
        assert!(
            close(t.rtt_sum, 0.14) && close(t.t_sum, 5.0) && close(t.t2_sum, 9.5),
            "{t:?}"
        );
        assert!(close(t.t_rtt_sum, 0.095 + 0.15), "{t:?}");
        // An interval without ACKs still reports the connection's RTTs and flight.
        let st = h.take_interval(secs(4.0));
        assert_eq!((st.acked, st.rtt_count, st.since), (0, 0, secs(3.0)));
        assert_eq!((st.min_rtt, st.srtt, st.in_flight), (Some(0.03), Some(0.046), 2));
    }

    #[test]
    fn steer_factory_checks_its_settings_and_keeps_the_last_handle() {
        let e = SteerFactory::new(SteerMode::Scale, 1.0, None).err().unwrap();
        assert!(matches!(&e, Error::Param { key, .. } if key == "inner"), "{e}");
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = SteerFactory::new(SteerMode::Window, bad, None).err().unwrap();
            assert!(matches!(&e, Error::Param { key, .. } if key == "initial"), "{bad}: {e}");
        }
        assert!(SteerFactory::new(SteerMode::Window, 1.0, Some("no-such-scheme")).is_err());
        // Without an inner controller: no parameters.
        let f = SteerFactory::new(SteerMode::Window, 1e-300, None).unwrap();
        assert!(f.handle().is_none());
        assert!(f.check(&Given::new()).is_ok());
        let mut p = Given::new();
        p.insert("initial_window".into(), 4.0.into());
        let e = f.check(&p).unwrap_err();
        assert!(matches!(&e, Error::Param { key, .. } if key == "params"), "{e}");
        // With one: its parameters, which reach the controller built.
        let f = SteerFactory::new(SteerMode::Scale, 2.0, Some("cubic")).unwrap();
        assert!(f.check(&p).is_ok());
        let mut bad = Given::new();
        bad.insert("initial_window".into(), 0.0.into());
        assert!(f.check(&bad).is_err());
        let failure = Arc::new(Failure::default());
        let info = |params| BuildInfo {
            flow: 0,
            params,
            start: Time::ZERO,
            seed: 1,
            stream: 2,
        };
        let c = f.build(info(&p), &failure).unwrap();
        assert_eq!(
            (c.name(), c.window()),
            ("steered", 8.0),
            "cubic's initial window 4, scaled by 2"
        );
        let h1 = f.handle().unwrap();
        assert_eq!(h1.value(), 2.0);
        assert!(f.build(info(&bad), &failure).is_err());
        let _c2 = f.build(info(&Given::new()), &failure).unwrap();
        let h2 = f.handle().unwrap();
        assert!(!Arc::ptr_eq(&h1, &h2), "the handle of the controller built last");
        h2.set_value(3.0);
        assert_eq!((c.window(), h1.value()), (8.0, 2.0));
    }
}
