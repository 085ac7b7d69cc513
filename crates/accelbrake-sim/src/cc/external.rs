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
}
