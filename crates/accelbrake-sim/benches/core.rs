//! Micro-benchmarks of the hot path (not part of the test run):
//! `cargo bench -p accelbrake-sim --bench core` (add `-- NAME` to pick one).
//!
//! * `event_queue`: a hold model — pop the earliest event and push one a random time later, with
//!   10 000 events pending (a 1 Gbit/s run keeps about that many).
//! * `queue_link`: one packet through a drop-tail queue and a 96 Mbit/s rate link (enqueue,
//!   dequeue, transmission end time), and through a Mahimahi trace link.
//! * `ack_processing`: a sender and a receiver wired back to back with no network: per data
//!   packet, the receiver's ACK generation and the sender's ACK processing (SACK scoreboard,
//!   RTT estimation, Cubic) and its next transmission.
//! * `whole_run`: one simulated second of the 96 Mbit/s Cubic dumbbell.
//!
//! One group per hot-path component on its own (figures in docs/performance.md):
//! * `event_queue/hold_16`: pop + push with 16 events pending (a one-flow dumbbell keeps ~7).
//! * `event_queue/timers_hold_1k` and `heap_hold_1k`: pop + push of a timer 40–700 ms later with
//!   1,100 timers pending (a 1000-flow dumbbell's RTO and delayed-ACK timers), through the timer
//!   wheel (`push_timer`) and, for comparison, through the binary heap (`push`).
//! * `link`: a constant-rate link's transmission end of a full segment (precomputed) and of an
//!   odd size (computed), and a rate schedule's.
//! * `queue`: enqueue + dequeue of one packet through a drop-tail queue and an ABC router queue.
//! * `sender/newreno_ack`: one ACK of two segments into a NewReno sender and the two segments it
//!   then sends (SACK scoreboard, rate sampler, RTT estimator, controller, pacer).
//! * `receiver/in_order`: one in-order data segment into a receiver (an ACK every second one).
//! * `arena`: one packet in and the oldest out of a FIFO of `held` packets, as a drop-tail hop
//!   moves them: through the packet arena by id (`ids_N`, with the engine's prefetch;
//!   `ids_N_no_prefetch` without) and, for comparison, by value in a `VecDeque<Packet>`
//!   (`by_value_N`). N = 1k (one flow at 96 Mbit/s), 17k (10 flows at 1 Gbit/s with a BDP
//!   buffer), 170k (10 Gbit/s).

use accelbrake_sim::cc;
use accelbrake_sim::link::{RateLink, Step, Trace, TraceLink};
use accelbrake_sim::packet::{Echo, Ecn, Packet, MTU};
use accelbrake_sim::queue::{DropTail, Limit, LinkInfo, Queue};
use accelbrake_sim::receiver::{Receiver, ReceiverConfig};
use accelbrake_sim::rng::Rng;
use accelbrake_sim::sched::EventQueue;
use accelbrake_sim::sender::{App, Sender};
use accelbrake_sim::time::{Dur, Rate, Time};
use accelbrake_sim::Scenario;
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::collections::VecDeque;
use std::sync::Arc;

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(1));
    g.bench_function("hold_10k", |b| {
        let mut rng = Rng::stream(1, 1);
        let mut q = EventQueue::new();
        for i in 0..10_000u32 {
            q.push(Time(rng.below(100_000_000)), i);
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.push(t + Dur(1 + rng.below(100_000_000)), black_box(e));
        });
    });
    g.finish();
}

fn queue_link(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue_link");
    g.throughput(Throughput::Elements(1));
    g.bench_function("droptail_rate_link", |b| {
        let mut q = DropTail::new(Limit::Packets(250));
        let link = RateLink::constant(Rate::from_mbps(96.0)).unwrap();
        let mut drops = Vec::new();
        let mut now = Time::ZERO;
        let mut seq = 0;
        b.iter(|| {
            seq += 1;
            let _ = q.enqueue(now, Packet::data(0, seq, MTU, Ecn::NotEct, now));
            let p = q.dequeue(now, LinkInfo::default(), &mut drops).unwrap();
            now = link.finish_time(now, black_box(p).size);
        });
    });
    g.bench_function("droptail_trace_link", |b| {
        let text: String = (1..=1000).map(|m| format!("{m}\n{m}\n")).collect();
        let mut link = TraceLink::new(Arc::new(Trace::parse("bench", &text).unwrap()), false);
        let mut q = DropTail::new(Limit::Packets(250));
        let mut drops = Vec::new();
        let mut tx = None;
        let mut seq = 0;
        b.iter(|| {
            seq += 1;
            let now = link.next_opportunity().unwrap();
            let _ = q.enqueue(now, Packet::data(0, seq, MTU, Ecn::NotEct, now));
            let mut sent = 0;
            link.serve(
                now,
                &mut tx,
                |_| q.dequeue(now, LinkInfo::default(), &mut drops),
                |p| sent += black_box(p).size,
            );
            sent
        });
    });
    g.finish();
}

fn ack_processing(c: &mut Criterion) {
    let mut g = c.benchmark_group("ack_processing");
    g.throughput(Throughput::Elements(1));
    g.bench_function("cubic_back_to_back", |b| {
        let cc = cc::build("cubic", &Default::default(), Time::ZERO, Rng::stream(1, 2)).unwrap();
        let mut s = Sender::new(0, cc, Ecn::NotEct, App::Bulk);
        let mut r = Receiver::new(0, ReceiverConfig::default());
        let mut acks = Vec::new();
        let mut now = Time::ZERO;
        s.start(now);
        let mut in_flight = std::collections::VecDeque::new();
        b.iter(|| {
            // 1 µs per packet, a 10 ms "RTT" made of the in-flight FIFO.
            now += Dur::from_micros(1);
            while let Some(p) = s.poll_transmit(now) {
                in_flight.push_back(p);
            }
            if let Some(p) = in_flight.pop_front() {
                r.on_data(now, &p, &mut acks);
            }
            for a in acks.drain(..) {
                s.on_ack(now, &a);
            }
            if let Some(t) = s.next_wakeup(now) {
                if t <= now {
                    s.on_timer(now);
                }
            }
        });
    });
    g.finish();
}

fn event_queue_small(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(1));
    g.bench_function("hold_16", |b| {
        let mut rng = Rng::stream(1, 1);
        let mut q = EventQueue::new();
        for i in 0..16u32 {
            q.push(Time(rng.below(100_000_000)), i);
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.push(t + Dur(1 + rng.below(100_000_000)), black_box(e));
        });
    });
    g.finish();
}

fn timers(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.throughput(Throughput::Elements(1));
    for (name, wheel) in [("timers_hold_1k", true), ("heap_hold_1k", false)] {
        g.bench_function(name, |b| {
            let mut rng = Rng::stream(1, 2);
            let mut q = EventQueue::new();
            let later = |rng: &mut Rng| Dur::from_millis(40) + Dur(rng.below(660_000_000));
            for i in 0..1_100u32 {
                let t = Time::ZERO + later(&mut rng);
                if wheel {
                    q.push_timer(t, i);
                } else {
                    q.push(t, i);
                }
            }
            b.iter(|| {
                let (t, e) = q.pop().unwrap();
                let t = t + later(&mut rng);
                if wheel {
                    q.push_timer(t, black_box(e));
                } else {
                    q.push(t, black_box(e));
                }
            });
        });
    }
    g.finish();
}

fn link(c: &mut Criterion) {
    let mut g = c.benchmark_group("link");
    g.throughput(Throughput::Elements(1));
    let constant = RateLink::constant(Rate::from_mbps(96.0)).unwrap();
    g.bench_function("constant_full_segment", |b| {
        let mut now = Time::ZERO;
        b.iter(|| {
            now = constant.finish_time(now, black_box(MTU));
            now
        });
    });
    g.bench_function("constant_odd_size", |b| {
        let mut now = Time::ZERO;
        b.iter(|| {
            now = constant.finish_time(now, black_box(777));
            now
        });
    });
    let steps = vec![
        Step {
            at: Time::ZERO,
            rate: Rate::from_mbps(96.0),
        },
        Step {
            at: Time::from_millis(500),
            rate: Rate::from_mbps(24.0),
        },
    ];
    let schedule = RateLink::schedule(steps, Some(Dur::from_millis(1000))).unwrap();
    g.bench_function("schedule_full_segment", |b| {
        let mut now = Time::ZERO;
        b.iter(|| {
            now = schedule.finish_time(now, black_box(MTU));
            now
        });
    });
    g.finish();
}

fn queues(c: &mut Criterion) {
    let mut g = c.benchmark_group("queue");
    g.throughput(Throughput::Elements(1));
    let mut given = accelbrake_sim::params::Given::new();
    given.insert("packets".into(), accelbrake_sim::params::Value::Num(250.0));
    for name in ["droptail", "abc"] {
        let kind = accelbrake_sim::queue::lookup(name, "queue").unwrap();
        let values = kind.values(&given, "queue").unwrap();
        g.bench_function(name, |b| {
            let mut q = (kind.build)(&values, Rng::stream(1, 3));
            let mut drops = Vec::new();
            let info = LinkInfo {
                capacity: 12e6,
                overhead: 0,
            };
            let mut now = Time::ZERO;
            let mut seq = 0;
            b.iter(|| {
                seq += 1;
                now += Dur::from_micros(125);
                let _ = q.enqueue(now, Packet::data(0, seq, MTU, Ecn::ACCELERATE, now));
                let p = q.dequeue(now, info, &mut drops);
                drops.clear();
                black_box(p)
            });
        });
    }
    g.finish();
}

fn sender(c: &mut Criterion) {
    let mut g = c.benchmark_group("sender");
    g.throughput(Throughput::Elements(1));
    g.bench_function("newreno_ack", |b| {
        let cc = cc::build("newreno", &Default::default(), Time::ZERO, Rng::stream(1, 2)).unwrap();
        let mut s = Sender::new(0, cc, Ecn::NotEct, App::Bulk);
        s.start(Time::ZERO);
        let mut now = Time::ZERO;
        let mut sent = std::collections::VecDeque::new();
        while let Some(p) = s.poll_transmit(now) {
            sent.push_back(p);
        }
        b.iter(|| {
            // An ACK of the two oldest segments, echoing the older one's send time; then the
            // sender fills its window again, up to 1000 segments in flight (the window grows
            // past that; the flight is held there, so each ACK releases the two it acked).
            now += Dur::from_micros(10);
            let first = sent.pop_front().unwrap();
            let second = sent.pop_front();
            let cum = second.map_or(first.seq + 1, |p| p.seq + 1);
            let ack = Packet::ack(0, cum, Echo::None, first.ts, now);
            s.on_ack(now, black_box(&ack));
            while sent.len() < 1000 {
                match s.poll_transmit(now) {
                    Some(p) => sent.push_back(p),
                    None => break,
                }
            }
        });
    });
    g.finish();
}

fn receiver(c: &mut Criterion) {
    let mut g = c.benchmark_group("receiver");
    g.throughput(Throughput::Elements(1));
    g.bench_function("in_order", |b| {
        let mut r = Receiver::new(0, ReceiverConfig::default());
        let mut acks = Vec::new();
        let mut seq = 0;
        let mut now = Time::ZERO;
        b.iter(|| {
            now += Dur::from_micros(10);
            let p = Packet::data(0, seq, MTU, Ecn::NotEct, now);
            seq += 1;
            r.on_data(now, black_box(&p), &mut acks);
            acks.clear();
        });
    });
    g.finish();
}

fn arena(c: &mut Criterion) {
    let mut g = c.benchmark_group("arena");
    g.throughput(Throughput::Elements(1));
    for (label, held) in [("1k", 1_000), ("17k", 17_000), ("170k", 170_000)] {
        for prefetch in [true, false] {
            let name = if prefetch {
                format!("ids_{label}")
            } else {
                format!("ids_{label}_no_prefetch")
            };
            g.bench_function(name, |b| {
                let mut r = accelbrake_sim::engine::ArenaRing::new(held, prefetch);
                let mut seq = held as u32;
                b.iter(|| {
                    seq = seq.wrapping_add(1);
                    black_box(r.step(seq))
                });
            });
        }
        g.bench_function(format!("by_value_{label}"), |b| {
            let mut q: VecDeque<Packet> = (0..held as u32)
                .map(|s| Packet::data(0, s, MTU, Ecn::NotEct, Time(u64::from(s))))
                .collect();
            let mut seq = held as u32;
            b.iter(|| {
                seq = seq.wrapping_add(1);
                q.push_back(Packet::data(0, seq, MTU, Ecn::NotEct, Time(u64::from(seq))));
                black_box(q.pop_front().expect("the ring holds a packet").size)
            });
        });
    }
    g.finish();
}

fn whole_run(c: &mut Criterion) {
    let text = include_str!("../../../docs/bench/cubic-96mbps.json");
    let mut s = Scenario::from_json(text).unwrap();
    s.duration_ms = 1000.0;
    let mut g = c.benchmark_group("whole_run");
    g.sample_size(20);
    g.bench_function("cubic_96mbps_1s", |b| {
        b.iter(|| accelbrake_sim::simulate(black_box(&s)).unwrap().summary.hop_departures)
    });
    g.finish();
}

criterion_group!(
    benches,
    event_queue,
    event_queue_small,
    timers,
    queue_link,
    link,
    queues,
    sender,
    receiver,
    ack_processing,
    arena,
    whole_run
);
criterion_main!(benches);
