//! The TCP-like sender: segments, SACK scoreboard, RFC 6675 loss recovery, RFC 6298 RTO, pacing.
//!
//! * Sequence numbers count segments. New data is sent while `pipe < floor(cwnd)` (RFC 6675), where
//!   pipe counts segments sent and neither acknowledged, SACKed nor marked lost (plus retransmissions).
//! * Loss detection (RFC 6675 `IsLost` with DupThresh = 3): a segment is lost once three segments
//!   above it are SACKed. Detected losses start fast recovery (one congestion event per recovery,
//!   recovery point = highest segment sent); lost segments are retransmitted before new data.
//!   A lost retransmission is only recovered by the RTO (no RACK), as in RFC 6675.
//! * RTO per RFC 6298 with Linux's 200 ms minimum (`TCP_RTO_MIN`) and 1 s initial value,
//!   exponential backoff up to 120 s (`TCP_RTO_MAX`). On expiry every unSACKed outstanding segment
//!   is marked lost and retransmitted under the controller's loss window.
//! * After an RTO only one segment is sent until an ACK of new data arrives, whatever the
//!   controller's window (Linux `tcp_enter_loss` sets `snd_cwnd = in_flight + 1`; the ABC
//!   artifact's `cong_control` restores `w_abc` on the next ACK).
//! * Spurious RTOs are detected with timestamps (Eifel, RFC 3522; Linux `tcp_try_undo_loss`) and
//!   undone: the controller restores its window, untransmitted "lost" segments are in flight again.
//! * RTT samples come from the ACK's timestamp echo (RFC 7323 style, so Karn's rule is not needed).
//! * ECN: the controller is told about a legacy CE echo at most once per RTT (RFC 3168 §6.1.2) and
//!   the next data segment carries CWR.
//! * Pacing: if the controller gives a rate, segments leave in bursts of about 1 ms of data (at
//!   least 2 segments, Linux's TSO autosizing) spaced so the average is the pacing rate.
//!
//! The parts, each in its own file: `rtt.rs` (RFC 6298 estimator), `rate.rs` (delivery-rate
//! sampler, Linux `tcp_rate.c`), `pacer.rs` (burst pacing), `scoreboard.rs` (RFC 6675 SACK
//! scoreboard). This file ties them to the congestion controller and the application.

mod pacer;
mod rate;
mod rtt;
mod scoreboard;

#[cfg(test)]
use crate::cc::RateSample;
/// Linux `tcp_min_tso_segs`: paced senders release at least this many segments at once.
pub use crate::cc::PACING_MIN_BURST;
use crate::cc::{AckInfo, CongestionControl, CongestionKind};
use crate::packet::{Echo, Ecn, Packet, HEADER_BYTES, MSS};
use crate::time::{Dur, Time};
use pacer::Pacer;
use rate::{RateSampler, RateState};
use rtt::RttEstimator;
pub use rtt::{RTO_INITIAL, RTO_MAX, RTO_MIN};
use scoreboard::Scoreboard;

/// Largest window in segments: TCP's window can never exceed 2^30 bytes (RFC 7323 §2.3, window
/// scale shift ≤ 14). Besides being TCP's limit, it bounds a flow's scoreboard memory (~30 MB)
/// when a controller's window grows without bound (e.g. ABC with no ABC router on its path).
pub const MAX_WINDOW: u32 = (1 << 30) / MSS;

/// What the application gives the sender.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum App {
    /// Always has data.
    Bulk,
    /// A transfer of this many payload bytes, then the flow ends.
    Finite {
        /// Payload bytes.
        bytes: u64,
    },
    /// Data arrives at a constant rate (bytes per second of payload).
    RateLimited {
        /// Payload bytes per second.
        bytes_per_sec: f64,
    },
    /// Data arrives at a constant rate during `on`, then none during `off`, repeating from the
    /// flow's start (an on/off source; the connection stays open through the off periods).
    OnOff {
        /// Payload bytes per second while on.
        bytes_per_sec: f64,
        /// Length of each on period.
        on: Dur,
        /// Length of each off period.
        off: Dur,
    },
}

impl App {
    /// Payload bytes an application-limited source has produced `t` after the flow's start;
    /// `None` for bulk and finite applications.
    fn produced(self, t: Dur) -> Option<f64> {
        match self {
            App::RateLimited { bytes_per_sec } => Some(t.secs_f64() * bytes_per_sec),
            App::OnOff { bytes_per_sec, on, off } => {
                let period = on.0 + off.0;
                let on_time = (t.0 / period) * on.0 + (t.0 % period).min(on.0);
                Some(Dur(on_time).secs_f64() * bytes_per_sec)
            }
            App::Bulk | App::Finite { .. } => None,
        }
    }

    /// When (after the flow's start) an application-limited source has produced `bytes`.
    fn when_produced(self, bytes: f64) -> Option<Dur> {
        match self {
            App::RateLimited { bytes_per_sec } => Some(Dur::from_secs_f64(bytes / bytes_per_sec)),
            App::OnOff { bytes_per_sec, on, off } => {
                let need = Dur::from_secs_f64(bytes / bytes_per_sec).0;
                // Whole on periods first, then the rest within the next one.
                let (full, rest) = (need / on.0, need % on.0);
                let (full, rest) = if rest == 0 && full > 0 {
                    (full - 1, on.0)
                } else {
                    (full, rest)
                };
                Some(Dur(full * (on.0 + off.0) + rest))
            }
            App::Bulk | App::Finite { .. } => None,
        }
    }
}

/// Sender counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data packets sent (including retransmissions).
    pub packets_sent: u64,
    /// Bytes sent on the wire.
    pub bytes_sent: u64,
    /// Retransmitted packets.
    pub retransmits: u64,
    /// Fast-recovery episodes.
    pub recoveries: u64,
    /// RTO expiries.
    pub timeouts: u64,
    /// RTOs found spurious and undone (Eifel detection).
    pub spurious_timeouts: u64,
    /// ECN congestion reactions.
    pub ecn_reactions: u64,
    /// ACKs received.
    pub acks: u64,
}

/// A sender.
pub struct Sender {
    flow: u32,
    /// The congestion controller.
    pub cc: Box<dyn CongestionControl>,
    ecn: Ecn,
    app: App,
    /// Segments the application has made available so far (`u32::MAX` for bulk).
    avail: u32,
    /// Total segments for a finite flow.
    total: Option<u32>,
    last_size: u32,
    started: Option<Time>,
    stopped: bool,
    /// Outstanding segments `snd_una..snd_nxt` and their RFC 6675 state.
    sb: Scoreboard,
    /// Delivery-rate sampling.
    rate: RateSampler,
    /// RTT, RTO and backoff.
    rtt: RttEstimator,
    pacer: Pacer,
    recovery_point: Option<u32>,
    /// One retransmission is due regardless of the window (entering fast recovery).
    fast_retransmit: bool,
    ecn_recover: u32,
    send_cwr: bool,
    /// Linux CWR state after an ECN reduction (`tcp_enter_cwr`), with PRR (RFC 6937) spreading
    /// the reduction over the round; `None` when not in CWR or when `prr_ecn` is off.
    cwr: Option<Cwr>,
    /// Model Linux's CWR/PRR response to ECN (`tcp_enter_cwr`, RFC 6937 PRR): an ECN reduction is
    /// spread over the round instead of applied at once.
    pub prr_ecn: bool,
    /// Model Linux's PRR (RFC 6937) in fast recovery too (`tcp_enter_recovery`,
    /// `tcp_cwnd_reduction`): after a loss the window comes down to ssthresh in proportion to
    /// what is delivered, instead of being ssthresh at once (off: RFC 6675 with the controller's
    /// window, as before). The controller asks for it with
    /// [`CongestionControl::reduces_proportionally`].
    pub prr_loss: bool,
    /// Ask the controller for an explicit congestion header (XCP, RCP) on every data segment
    /// ([`crate::cc::Marking::Explicit`]); off for everything else, which then pays nothing.
    pub explicit: bool,
    /// Detect lost retransmissions as Linux's RACK does ([`Sender::set_rack`]).
    rack: bool,
    rto_at: Option<Time>,
    /// When the last RTO fired, until the first ACK of new data after it (Eifel detection).
    rto_fired: Option<Time>,
    cwnd_limited: bool,
    /// When a finite flow finished (all data acknowledged).
    pub completed_at: Option<Time>,
    /// Counters.
    pub stats: SenderStats,
    #[cfg(test)]
    rate_sample_for_test: Option<RateSample>,
    #[cfg(test)]
    last_one_way_delay_for_test: Option<Dur>,
}

/// Linux `tcp_init_cwnd_reduction` / `tcp_cwnd_reduction` (RFC 6937 PRR, SSRB) state of a CWR
/// round: from the ECN reaction until `snd_una` passes `high_seq` (`tcp_end_cwnd_reduction`).
#[derive(Clone, Copy, Debug)]
struct Cwr {
    /// Loss recovery (`prr_loss`, Linux `tcp_enter_recovery`) rather than ECN's CWR: ends when
    /// recovery does.
    loss: bool,
    high_seq: u32,
    prior_cwnd: u32,
    ssthresh: u32,
    prr_delivered: u32,
    prr_out: u32,
    /// `snd_cwnd = in_flight + sndcnt` after the last ACK.
    cwnd: u32,
}

impl Cwr {
    /// `tcp_init_cwnd_reduction`: a reduction from `prior_cwnd` towards `ssthresh` until
    /// `high_seq` is acknowledged (ECN's CWR) or recovery ends (`loss`).
    fn start(loss: bool, high_seq: u32, prior_cwnd: u32, ssthresh: u32) -> Cwr {
        Cwr {
            loss,
            high_seq,
            prior_cwnd: prior_cwnd.max(1),
            ssthresh,
            prr_delivered: 0,
            prr_out: 0,
            cwnd: prior_cwnd,
        }
    }

    /// `tcp_cwnd_reduction` (RFC 6937, PRR-SSRB) on an ACK that delivered `acked` segments (newly
    /// acknowledged or SACKed) with `pipe` segments in flight after it; `advanced`: it moved
    /// snd_una.
    fn reduce(&mut self, pipe: u32, acked: u32, advanced: bool) {
        self.prr_delivered += acked;
        let sndcnt = if pipe > self.ssthresh {
            let d = u64::from(self.ssthresh) * u64::from(self.prr_delivered) + u64::from(self.prior_cwnd) - 1;
            (d / u64::from(self.prior_cwnd)) as i64 - i64::from(self.prr_out)
        } else {
            let delta = i64::from(self.ssthresh - pipe);
            let s =
                (i64::from(self.prr_delivered) - i64::from(self.prr_out)).max(i64::from(acked)) + i64::from(advanced);
            s.min(delta)
        };
        let sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.cwnd = (i64::from(pipe) + sndcnt).max(1) as u32;
    }
}

impl Sender {
    /// A sender for `flow`; `ecn` is the codepoint put on data (NotEct, ECT(0) for classic ECN,
    /// ECT(1) = accelerate for ABC).
    pub fn new(flow: u32, cc: Box<dyn CongestionControl>, ecn: Ecn, app: App) -> Sender {
        let (avail, total, last_size) = match app {
            App::Bulk => (u32::MAX, None, MSS),
            App::Finite { bytes } => {
                let segs = bytes.div_ceil(MSS as u64).clamp(1, u32::MAX as u64 - 1) as u32;
                let last = (bytes - (segs as u64 - 1) * MSS as u64).clamp(1, MSS as u64) as u32;
                (segs, Some(segs), last)
            }
            App::RateLimited { .. } | App::OnOff { .. } => (0, None, MSS),
        };
        Sender {
            flow,
            cc,
            ecn,
            app,
            avail,
            total,
            last_size,
            started: None,
            stopped: false,
            sb: Scoreboard::default(),
            rate: RateSampler::default(),
            rtt: RttEstimator::default(),
            pacer: Pacer::default(),
            recovery_point: None,
            fast_retransmit: false,
            ecn_recover: 0,
            send_cwr: false,
            cwr: None,
            prr_ecn: false,
            prr_loss: false,
            explicit: false,
            rack: false,
            rto_at: None,
            rto_fired: None,
            cwnd_limited: true,
            completed_at: None,
            stats: SenderStats::default(),
            #[cfg(test)]
            rate_sample_for_test: None,
            #[cfg(test)]
            last_one_way_delay_for_test: None,
        }
    }

    /// The ECN codepoint this sender puts on its data segments.
    pub fn ecn(&self) -> Ecn {
        self.ecn
    }

    /// Start sending at `now`.
    pub fn start(&mut self, now: Time) {
        self.started = Some(now);
        self.pacer.release_at(now);
    }

    /// Stop sending new data (the flow's stop time); outstanding data is still recovered.
    pub fn stop(&mut self, now: Time) {
        self.update_app(now);
        self.stopped = true;
        self.avail = self.avail.min(self.sb.snd_nxt());
    }

    /// Whether the flow's stop time has passed ([`Sender::stop`]): it sends no new data.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Give back the heap memory of the scoreboard (a finished flow's, [`crate::engine`] retirement).
    pub(crate) fn shrink(&mut self) {
        self.sb.shrink();
    }

    /// Segments in flight (RFC 6675 pipe).
    pub fn pipe(&self) -> u32 {
        self.sb.pipe()
    }
    /// Smoothed RTT.
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }
    /// Minimum RTT seen.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.rtt.min_rtt()
    }
    /// Lowest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.sb.snd_una()
    }
    /// Next new segment.
    pub fn snd_nxt(&self) -> u32 {
        self.sb.snd_nxt()
    }
    /// Whether the sender is in loss recovery.
    pub fn in_recovery(&self) -> bool {
        self.recovery_point.is_some()
    }

    fn update_app(&mut self, now: Time) {
        if let (Some(start), false) = (self.started, self.stopped) {
            if let Some(bytes) = self.app.produced(now - start) {
                self.avail = (bytes / MSS as f64).floor().min(u32::MAX as f64 - 1.0) as u32;
            }
        }
    }

    /// When the sender wants to be woken: RTO, pacing release, or the next application data.
    pub fn next_wakeup(&self, _now: Time) -> Option<Time> {
        let mut t = self.rto_at;
        if let Some(c) = self
            .cc
            .next_timer()
            .filter(|_| self.started.is_some() && self.completed_at.is_none())
        {
            t = Some(t.map_or(c, |r| r.min(c)));
        }
        if self.started.is_some() && self.completed_at.is_none() {
            let lost_pending = self.sb.lost_pending();
            let has_data = lost_pending > 0 || self.sb.snd_nxt() < self.avail;
            // A pending fast retransmit may go out even with a full window.
            let window_open = self.sb.pipe() < self.send_window() || (self.fast_retransmit && lost_pending > 0);
            if window_open {
                let wake = if has_data {
                    Some(self.pacer.next_send())
                } else if let (Some(after), Some(start), false) = (
                    self.app.when_produced((self.avail as f64 + 1.0) * MSS as f64),
                    self.started,
                    self.stopped,
                ) {
                    // Time at which the next segment becomes available, plus 1 µs so that
                    // rounding can never make it look not yet available when woken; never
                    // before the pacer allows the next send.
                    Some((start + after + Dur::from_micros(1)).max(self.pacer.next_send()))
                } else {
                    None
                };
                t = match (t, wake) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        t
    }

    /// Segments that may be in flight: the controller's window, or 1 after an RTO until new data
    /// is acknowledged.
    /// Where a PRR reduction leads: the controller's ssthresh after the congestion event (its
    /// window when it has none).
    fn reduction_target(&self) -> u32 {
        self.cc
            .ssthresh()
            .map_or(self.send_window(), |s| s.floor().max(1.0) as u32)
    }

    fn send_window(&self) -> u32 {
        if self.rto_fired.is_some() {
            1
        } else if let Some(c) = self.cwr {
            c.cwnd.clamp(1, MAX_WINDOW)
        } else {
            // = floor(window) clamped to [1, MAX_WINDOW] (NaN → 0 as before): clamping first and
            // truncating is the same number without a libm `floor` call on the per-packet path.
            self.cc.window().clamp(1.0, MAX_WINDOW as f64) as u32
        }
    }

    /// Detect lost retransmissions as Linux's RACK does (RFC 8985 §6.2, `tcp_rack_detect_loss`,
    /// reordering window min RTT / 4): a retransmission is lost again, and retransmitted again,
    /// once a segment sent more than the window after it is delivered; and on an RTO only the
    /// first outstanding segment and those sent longer than the latest RTT plus the window ago
    /// are marked lost (Linux ≥ 4.18 `tcp_timeout_mark_lost`), not every outstanding one. Off by
    /// default (RFC 6675 alone: only the RTO recovers a lost retransmission, and an RTO marks all
    /// outstanding segments lost); the controller asks for it with
    /// [`CongestionControl::detects_lost_retransmissions`].
    pub fn set_rack(&mut self, on: bool) {
        self.rack = on;
        self.sb.set_rack(on);
    }

    /// Compute the RTO as Linux does (`tcp_rtt_estimator`, `__tcp_set_rto`: SRTT plus the largest
    /// 4 × mean deviation of the last window of data, that term at least the 200-ms minimum)
    /// instead of RFC 6298's max(SRTT + 4·RTTVAR, 200 ms) (`sender::rtt`). Off by default; the
    /// controller asks for it with [`CongestionControl::computes_rto_as_linux`].
    pub fn set_linux_rto(&mut self, on: bool) {
        self.rtt.set_linux(on);
    }

    /// Whether RACK ([`Sender::set_rack`]) and Linux's RTO ([`Sender::set_linux_rto`]) are on.
    pub fn rack_and_linux_rto(&self) -> (bool, bool) {
        (self.rack, self.rtt.is_linux())
    }

    /// The retransmission timer's expiry if (re)armed at `now`.
    fn rto_deadline(&self, now: Time) -> Time {
        now + self.rtt.backed_off_rto()
    }

    /// Produce the next packet to send now, if the window, pacing and application allow.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let mut pkt = Packet::data(0, 0, 0, crate::packet::Ecn::NotEct, now);
        self.poll_transmit_into(now, &mut pkt).then_some(pkt)
    }

    /// [`Sender::poll_transmit`], writing the packet into `pkt` (the engine's arena slot: the
    /// packet is built where it stays, not copied there); false (and `pkt` untouched)
    /// if there is nothing to send.
    #[inline]
    pub fn poll_transmit_into(&mut self, now: Time, pkt: &mut Packet) -> bool {
        if self.started.is_none() {
            return false;
        }
        self.update_app(now);
        if now < self.pacer.next_send() {
            return false;
        }
        let cwnd = self.send_window();
        // RFC 6675 §5 (4.3): the first lost segment is retransmitted on entering recovery even if
        // the reduced window is full (the fast retransmit).
        let fast_rtx = std::mem::take(&mut self.fast_retransmit) && self.sb.lost_pending() > 0;
        if self.sb.pipe() >= cwnd && !fast_rtx {
            self.cwnd_limited = true;
            self.pacer.end_burst();
            return false;
        }
        let (seq, retx) = if let Some(seq) = self.sb.next_lost() {
            (seq, true)
        } else if self.sb.snd_nxt() < self.avail {
            (self.sb.snd_nxt(), false)
        } else {
            self.cwnd_limited = false;
            // Linux tcp_rate_check_app_limited: the application, not the window, limits us.
            self.rate.mark_app_limited(self.sb.pipe());
            self.pacer.end_burst();
            return false;
        };
        let tx = self.rate.on_sent(now, self.sb.snd_nxt() == self.sb.snd_una());
        if retx {
            self.sb.retransmitted(seq, tx);
            self.stats.retransmits += 1;
            // Linux tcp_xmit_retransmit_queue: retransmitting the head re-arms the RTO, so the
            // timer measures from the repair, not from the original loss.
            if seq == self.sb.snd_una() && self.rto_fired.is_none() {
                self.rto_at = Some(self.rto_deadline(now));
            }
        } else {
            self.sb.push(tx);
        }
        if let Some(c) = self.cwr.as_mut() {
            c.prr_out += 1;
        }
        let payload = if Some(seq + 1) == self.total {
            self.last_size
        } else {
            MSS
        };
        *pkt = Packet::data(self.flow, seq, payload + HEADER_BYTES, self.ecn, now);
        if self.explicit {
            if let Some(h) = self.cc.explicit_header(now) {
                pkt.set_explicit(h);
            }
        }
        if self.send_cwr {
            pkt.cwr = true;
            self.send_cwr = false;
        }
        pkt.feedback[0] = self.cc.data_flags();
        if self.sb.pipe() >= cwnd {
            pkt.feedback[0] |= crate::packet::FLIGHT_END;
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += pkt.size as u64;
        self.cc.on_sent(now, self.sb.pipe());
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rto_deadline(now));
        }
        self.pacer
            .on_sent(now, pkt.size, self.cc.pacing_rate(), self.cc.pacing_min_burst());
        true
    }

    /// An ACK arrived.
    pub fn on_ack(&mut self, now: Time, ack: &Packet) {
        self.stats.acks += 1;
        let mut rs = RateState::default();
        let cum = ack.seq.min(self.sb.snd_nxt());
        let advanced = cum > self.sb.snd_una();
        let rate = &mut self.rate;
        // Latest transmission time among the segments this ACK delivers (RACK's `rack.mstamp`).
        let mut newest = Time::ZERO;
        let mut delivered = |tx: &rate::TxRecord| {
            newest = newest.max(tx.sent);
            rate.on_delivered(now, tx, &mut rs)
        };
        let mut acked = self.sb.ack_cumulative(cum, &mut delivered);
        for b in ack.sack_blocks() {
            acked += self.sb.sack(b.start, b.end, &mut delivered);
        }
        if acked > 0 && ack.ts <= now {
            self.rtt.sample_at(now - ack.ts, self.sb.snd_una(), self.sb.snd_nxt());
        }
        if advanced {
            if let Some(fired) = self.rto_fired.take() {
                if ack.ts < fired {
                    self.undo_spurious_rto(now);
                }
            }
        }
        // RFC 6675 loss marking: everything below the DupThresh-th highest SACKed segment.
        let mut lost = self.sb.mark_lost();
        if self.rack && acked > 0 {
            let reo_wnd = self.rtt.min_rtt().map_or(Dur::ZERO, |m| Dur(m.0 / 4));
            lost += self.sb.mark_lost_retransmissions(newest, reo_wnd);
        }
        let newly_lost = lost > 0;
        let (snd_una, snd_nxt) = (self.sb.snd_una(), self.sb.snd_nxt());
        let flight = snd_nxt - snd_una;
        // This ACK started fast recovery with PRR (and already made its reduction step).
        let mut entered_prr = false;
        if newly_lost && self.recovery_point.is_none() {
            self.recovery_point = Some(snd_nxt);
            self.ecn_recover = snd_nxt;
            self.stats.recoveries += 1;
            self.fast_retransmit = true;
            let prior_cwnd = self.send_window();
            self.cc.on_congestion_event(now, CongestionKind::Loss, flight);
            if self.prr_loss {
                // tcp_enter_recovery → tcp_init_cwnd_reduction, then tcp_cwnd_reduction on this
                // same ACK (tcp_cong_control), as Linux does.
                let mut c = Cwr::start(true, snd_nxt, prior_cwnd, self.reduction_target());
                c.reduce(self.sb.pipe(), acked, advanced);
                self.cwr = Some(c);
                entered_prr = true;
            }
        }
        if let Some(rp) = self.recovery_point {
            if snd_una >= rp {
                self.recovery_point = None;
                self.cc.on_recovery_exit(now);
            }
        }
        // Legacy ECN: react at most once per RTT, and not during loss recovery (RFC 3168 §6.1.2).
        if ack.echo == Echo::Ce && self.recovery_point.is_none() && snd_una > self.ecn_recover {
            self.ecn_recover = snd_nxt;
            self.send_cwr = true;
            self.stats.ecn_reactions += 1;
            let prior_cwnd = self.send_window();
            self.cc.on_congestion_event(now, CongestionKind::Ecn, flight);
            if self.prr_ecn {
                self.cwr = Some(Cwr::start(false, snd_nxt, prior_cwnd, self.reduction_target()));
            }
        } else if let Some(c) = self.cwr.as_mut() {
            let ended = if c.loss {
                // Recovery ended on this ACK (above), or an RTO took over.
                self.recovery_point.is_none()
            } else {
                self.recovery_point.is_some() || snd_una >= c.high_seq
            };
            if ended {
                // tcp_end_cwnd_reduction: cwnd = ssthresh (the controller already holds it).
                self.cwr = None;
            } else if acked > 0 && !entered_prr {
                c.reduce(self.sb.pipe(), acked, advanced);
            }
        }
        let info = AckInfo {
            acked,
            echo: ack.echo,
            rtt: if acked > 0 { self.rtt.latest() } else { None },
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            in_flight: self.sb.pipe(),
            cwnd_limited: self.cwnd_limited,
            // Linux tcp_may_raise_cwnd: no window growth in CWR or Recovery.
            in_recovery: self.recovery_point.is_some() || self.cwr.is_some(),
            lost,
            delivered: self.rate.delivered(),
            snd_una,
            snd_nxt,
            rate: self.rate.sample(now, &rs, self.rtt.min_rtt()),
            one_way_delay: (ack.rx_ts >= ack.ts && acked > 0).then(|| ack.rx_ts - ack.ts),
            explicit: self.explicit.then(|| ack.xfb()).filter(|x| !x.is_nan()).map(f64::from),
            feedback: ack.feedback,
        };
        #[cfg(test)]
        {
            self.rate_sample_for_test = info.rate;
            self.last_one_way_delay_for_test = info.one_way_delay;
        }
        self.cc.on_ack(now, &info);
        // RFC 6298 §5.2–5.3: restart the timer on new data acknowledged, stop it when all is.
        if advanced {
            self.rtt.reset_backoff();
            self.rto_at = if snd_una == snd_nxt {
                None
            } else {
                Some(self.rto_deadline(now))
            };
        }
        if let Some(total) = self.total {
            if snd_una >= total && self.completed_at.is_none() {
                self.completed_at = Some(now);
                self.rto_at = None;
            }
        }
    }

    /// Eifel detection (RFC 3522, with timestamps, as Linux does with `tcp_try_undo_loss`): the
    /// first ACK of new data after an RTO echoes a transmission from before the RTO, so the original
    /// segments were not lost. Segments not yet retransmitted are in flight again, the window
    /// reduction is undone, and loss recovery ends.
    fn undo_spurious_rto(&mut self, now: Time) {
        self.stats.spurious_timeouts += 1;
        // SACK-based loss detection must look at these segments again.
        self.sb.undo_lost();
        self.recovery_point = None;
        self.rtt.reset_backoff();
        self.cc.on_spurious_rto(now);
    }

    /// Timers may have expired.
    pub fn on_timer(&mut self, now: Time) {
        if self.cc.next_timer().is_some_and(|c| c <= now) {
            self.cc.on_timer(now);
        }
        let Some(at) = self.rto_at else { return };
        if at > now {
            return;
        }
        let (snd_una, snd_nxt) = (self.sb.snd_una(), self.sb.snd_nxt());
        if snd_una == snd_nxt {
            self.rto_at = None;
            return;
        }
        // RFC 6298 §5.4–5.7 and RFC 5681 §3.1: back off, mark everything outstanding lost.
        self.stats.timeouts += 1;
        let flight = snd_nxt - snd_una;
        self.cc.on_rto(now, flight);
        if self.rack {
            // RACK's timeout marking: the RTT of the latest delivery plus the reordering window.
            let reo_wnd = self.rtt.min_rtt().map_or(Dur::ZERO, |m| Dur(m.0 / 4));
            let rtt = self.rtt.latest().unwrap_or(Dur::ZERO);
            self.sb.mark_timed_out_lost(now, rtt + reo_wnd);
        } else {
            self.sb.mark_all_lost();
        }
        if self.cwr.is_some_and(|c| c.loss) {
            self.cwr = None; // Linux: the Loss state replaces Recovery and its PRR
        }
        self.rto_fired = Some(now);
        self.recovery_point = Some(snd_nxt);
        self.ecn_recover = snd_nxt;
        self.rtt.back_off();
        self.rto_at = Some(self.rto_deadline(now));
        self.pacer.release_at(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::newreno::{NewReno, NewRenoConfig};
    use crate::packet::SackBlock;

    fn sender() -> Sender {
        let mut s = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::NotEct,
            App::Bulk,
        );
        s.start(Time::ZERO);
        s
    }

    fn send_all(s: &mut Sender, now: Time) -> Vec<u32> {
        std::iter::from_fn(|| s.poll_transmit(now)).map(|p| p.seq).collect()
    }

    fn ack(cum: u32, sack: &[(u32, u32)], ts: Time) -> Packet {
        let mut a = Packet::ack(0, cum, Echo::None, ts, ts);
        for (i, &(start, end)) in sack.iter().enumerate() {
            a.sack[i] = SackBlock { start, end };
        }
        a.n_sack = sack.len() as u8;
        a
    }

    #[test]
    fn the_rack_and_linux_rto_switches_reach_the_scoreboard_and_the_estimator() {
        let mut s = sender();
        assert_eq!(s.rack_and_linux_rto(), (false, false));
        s.set_linux_rto(true);
        assert_eq!(s.rack_and_linux_rto(), (false, true));
        s.set_rack(true);
        assert_eq!(s.rack_and_linux_rto(), (true, true));
        s.set_linux_rto(false);
        assert_eq!(s.rack_and_linux_rto(), (true, false));
        // One 50-ms RTT sample: RFC 6298 gives max(50 + 4·25, 200) = 200 ms, Linux 50 + max(2·50,
        // 200) = 250 ms (its minimum bounds the variation term, not the RTO).
        for (linux, want) in [(false, 200), (true, 250)] {
            let mut s = sender();
            s.set_linux_rto(linux);
            send_all(&mut s, Time::ZERO);
            s.on_ack(Time::from_millis(50), &ack(1, &[], Time::ZERO));
            assert_eq!(s.rtt.rto(), Dur::from_millis(want), "linux_rto {linux}");
        }
    }

    #[test]
    fn the_sender_reports_the_codepoint_it_puts_on_data() {
        let mut s = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::Ect1,
            App::Bulk,
        );
        s.start(Time::ZERO);
        assert_eq!(s.ecn(), Ecn::Ect1);
        assert_eq!(s.poll_transmit(Time::ZERO).unwrap().ecn, s.ecn());
        assert_eq!(sender().ecn(), Ecn::NotEct);
    }

    /// RACK for retransmissions (`set_rack`): a retransmission is lost again once a segment sent
    /// more than min RTT / 4 after it is delivered; RFC 6675 alone leaves it to the RTO.
    #[test]
    fn rack_retransmits_a_lost_retransmission_without_waiting_for_the_rto() {
        for rack in [false, true] {
            let mut s = sender();
            s.set_rack(rack);
            send_all(&mut s, Time::ZERO);
            let t = Time::from_millis(100);
            // 0 and 1 acked (min RTT 100 ms: reordering window 25 ms); 3..10 SACKed: 2 is lost.
            s.on_ack(t, &ack(2, &[], Time::ZERO));
            s.on_ack(t, &ack(2, &[(3, 10)], Time::ZERO));
            assert!(s.in_recovery());
            assert_eq!(s.poll_transmit(t).map(|p| p.seq), Some(2), "the fast retransmit");
            // New data 20 ms later (inside the window), then more 50 ms later (outside it).
            let early = send_all(&mut s, Time::from_millis(120));
            assert!(!early.is_empty() && early[0] == 10, "{early:?}");
            let late = send_all(&mut s, Time::from_millis(150));
            assert!(late.is_empty(), "window full: {late:?}");
            // The retransmission of 2 is dropped; the segments sent 20 ms after it arrive.
            let e = early[early.len() - 1] + 1;
            s.on_ack(
                Time::from_millis(220),
                &ack(2, &[(3, 10), (10, e)], Time::from_millis(120)),
            );
            assert_eq!(
                s.sb.lost_pending(),
                0,
                "20 ms < 25 ms: not judged lost yet (rack {rack})"
            );
            assert_eq!(s.stats.retransmits, 1);
            // A later ACK delivers a segment sent 50 ms after the retransmission.
            let next = send_all(&mut s, Time::from_millis(150));
            assert!(!next.is_empty(), "the window reopened");
            let n = next[next.len() - 1] + 1;
            s.on_ack(Time::from_millis(250), &ack(2, &[(3, n)], Time::from_millis(150)));
            let again = send_all(&mut s, Time::from_millis(250));
            assert_eq!(again.first() == Some(&2), rack, "rack {rack}: {again:?}");
            assert_eq!(s.stats.timeouts, 0);
        }
    }

    #[test]
    fn initial_window_is_ten_segments() {
        let mut s = sender();
        assert_eq!(send_all(&mut s, Time::ZERO), (0..10).collect::<Vec<_>>());
        assert_eq!(s.pipe(), 10);
    }

    #[test]
    fn three_sacks_above_a_hole_mark_it_lost_and_retransmit_it_first() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        // Segment 2 is lost: 0 and 1 are acked, then 3, 4, 5 arrive out of order.
        s.on_ack(t, &ack(2, &[], Time::ZERO));
        assert!(!s.in_recovery());
        s.on_ack(t, &ack(2, &[(3, 4)], Time::ZERO));
        s.on_ack(t, &ack(2, &[(3, 5)], Time::ZERO));
        assert!(
            !s.in_recovery(),
            "two SACKed segments above are not enough (DupThresh 3)"
        );
        s.on_ack(t, &ack(2, &[(3, 6)], Time::ZERO));
        assert!(s.in_recovery());
        assert_eq!(s.stats.recoveries, 1);
        // NewReno halves: ssthresh = cwnd = FlightSize/2 = 8/2; pipe = 10 sent − 2 acked − 3 SACKed − 1 lost = 4.
        assert_eq!(s.cc.window(), 4.0);
        assert_eq!(s.pipe(), 4);
        let sent = send_all(&mut s, t);
        assert_eq!(sent, vec![2], "the fast retransmit goes out although pipe = cwnd");
        assert_eq!(s.stats.retransmits, 1);
        // The retransmission fills the hole: everything up to 6 (and beyond) is acked, recovery ends
        // once the recovery point (10) is passed.
        s.on_ack(t, &ack(6, &[], t));
        assert!(s.in_recovery());
        s.on_ack(t, &ack(11, &[], t));
        assert!(!s.in_recovery());
        assert_eq!(s.stats.recoveries, 1);
    }

    #[test]
    fn rto_follows_rfc6298_with_the_linux_minimum() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        assert_eq!(s.next_wakeup(Time::ZERO), Some(Time::ZERO + RTO_INITIAL));
        // A 100 ms sample: SRTT 100, RTTVAR 50 → RTO = max(200 ms, 100 + 4·50) = 300 ms.
        let t = Time::from_millis(100);
        s.on_ack(t, &ack(1, &[], Time::ZERO));
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(s.rtt.rto(), Dur::from_millis(300));
        // Nothing more arrives: the timer fires 300 ms after the last new ACK.
        s.on_timer(Time::from_millis(399));
        assert_eq!(s.stats.timeouts, 0);
        s.on_timer(Time::from_millis(400));
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.cc.window(), 1.0, "loss window after an RTO");
        assert_eq!(
            send_all(&mut s, Time::from_millis(400)),
            vec![1],
            "retransmits from snd_una"
        );
        // Backed off: the next expiry is 2 × RTO later.
        assert_eq!(s.rto_at, Some(Time::from_millis(400 + 600)));
    }

    #[test]
    fn legacy_ce_echo_reacts_once_per_rtt_and_sets_cwr() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        let mut a = ack(1, &[], Time::ZERO);
        a.echo = Echo::Ce;
        s.on_ack(t, &a);
        assert_eq!(s.stats.ecn_reactions, 1);
        a.seq = 9;
        s.on_ack(t, &a);
        assert_eq!(s.stats.ecn_reactions, 1, "at most once per window of data");
        let p = s.poll_transmit(t).unwrap();
        assert!(p.cwr);
    }

    /// With `prr_ecn` (Linux CWR + PRR, RFC 6937) an ECN echo does not cut the send window at once:
    /// over the round that was in flight, about ssthresh new segments go out, one for every
    /// prior_cwnd / ssthresh delivered, and the window equals the controller's once the round ends.
    /// Without it the window drops to ssthresh at the echo and the sender stays silent until the
    /// flight falls below it.
    #[test]
    fn prr_ecn_spreads_the_reduction_over_the_round() {
        let run = |prr: bool| {
            let mut s = sender();
            s.prr_ecn = prr;
            assert_eq!(send_all(&mut s, Time::ZERO).len(), 10);
            let t = Time::from_millis(100);
            let mut a = ack(1, &[], Time::ZERO);
            a.echo = Echo::Ce;
            s.on_ack(t, &a);
            let mut sent_per_ack = vec![send_all(&mut s, t).len()];
            for cum in 2..=10 {
                s.on_ack(t, &ack(cum, &[], Time::ZERO));
                sent_per_ack.push(send_all(&mut s, t).len());
            }
            (sent_per_ack, s.cwr.is_some(), s.send_window(), s.cc.window())
        };
        let (with_prr, in_cwr, window, cc_window) = run(true);
        // NewReno: ssthresh = max(0.5 · FlightSize 9, 2) = 4; PRR sends ~ceil(delivered · 4 / 10).
        assert_eq!(
            with_prr.iter().sum::<usize>(),
            4,
            "ssthresh segments over the round: {with_prr:?}"
        );
        assert!(with_prr.iter().all(|&n| n <= 1), "no burst: {with_prr:?}");
        assert!(!in_cwr, "the round ended when snd_una passed high_seq");
        assert_eq!(window as f64, cc_window);
        let (without, _, _, _) = run(false);
        assert!(
            without[..5].iter().all(|&n| n == 0),
            "silent until the flight drains: {without:?}"
        );
        assert_eq!(with_prr[0], 1, "PRR sends on the first delivery of the round");
    }

    #[test]
    fn finite_flow_sends_a_short_last_segment_and_completes() {
        let mut s = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::NotEct,
            App::Finite { bytes: 3000 },
        );
        s.start(Time::ZERO);
        let pkts: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(
            pkts.iter().map(|p| p.size).collect::<Vec<_>>(),
            vec![1500, 1500, 104 + HEADER_BYTES]
        );
        s.on_ack(Time::from_millis(10), &ack(3, &[], Time::ZERO));
        assert_eq!(s.completed_at, Some(Time::from_millis(10)));
        assert_eq!(s.next_wakeup(Time::from_millis(10)), None);
    }

    #[test]
    fn pacing_releases_bursts_of_two_at_the_average_rate() {
        use crate::cc::abc::{Abc, AbcConfig};
        let mut s = Sender::new(0, Box::new(Abc::new(AbcConfig::default())), Ecn::ACCELERATE, App::Bulk);
        s.start(Time::ZERO);
        // Give the controller an RTT sample of 100 ms: rate = 2 · 10 · 1500 B / 0.1 s = 300 kB/s.
        assert_eq!(send_all(&mut s, Time::ZERO).len(), 10, "no RTT sample yet: unpaced");
        s.on_ack(Time::from_millis(100), &ack(3, &[], Time::ZERO));
        let t = Time::from_millis(100);
        assert_eq!(
            send_all(&mut s, t).len(),
            2,
            "a burst of two although the window allows three"
        );
        let gap = s.pacer.next_send() - t;
        let rate = s.cc.pacing_rate().unwrap();
        assert!((gap.secs_f64() - 2.0 * 1500.0 / rate).abs() < 1e-6, "{gap}");
    }

    #[test]
    fn rate_samples_follow_tcp_rate_c() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        // Two segments acknowledged 100 ms after they were all sent at once: 2 segments over the
        // ACK interval (100 ms, longer than the zero send interval).
        let t = Time::from_millis(100);
        let mut a = ack(2, &[], Time::ZERO);
        a.rx_ts = Time::from_millis(50);
        s.on_ack(t, &a);
        let info_rate = s.rate_sample_for_test.expect("a sample");
        assert_eq!(info_rate.delivered, 2);
        assert_eq!(info_rate.interval, Dur::from_millis(100));
        assert!((info_rate.delivery_rate - 2.0 * 1448.0 / 0.1).abs() < 1e-6);
        assert!(!info_rate.is_app_limited);
        assert_eq!(s.last_one_way_delay_for_test, Some(Dur::from_millis(50)));
        // A rate-limited application that runs out of data: segments sent after that carry the
        // app-limited mark into their samples, until the marked amount is delivered.
        let app = App::RateLimited {
            bytes_per_sec: 1448.0 * 100.0,
        };
        assert_eq!(app.produced(Dur::from_millis(20)), Some(1448.0 * 2.0));
        assert_eq!(app.when_produced(1448.0 * 3.0), Some(Dur::from_millis(30)));
        let mut f = Sender::new(0, Box::new(NewReno::new(NewRenoConfig::default())), Ecn::NotEct, app);
        f.start(Time::ZERO);
        assert_eq!(
            send_all(&mut f, Time::from_millis(20)).len(),
            2,
            "2 segments available after 20 ms"
        );
        assert_eq!(f.rate.app_limited_until(), 2, "delivered 0 + 2 in flight");
        assert_eq!(send_all(&mut f, Time::from_millis(30)), vec![2]);
        f.on_ack(Time::from_millis(120), &ack(3, &[], Time::from_millis(30)));
        let rs = f.rate_sample_for_test.expect("a sample");
        assert!(rs.is_app_limited, "segment 2 was sent app-limited: {rs:?}");
        // Re-marked at 30 ms with 3 in flight; cleared only once more than 3 are delivered.
        assert_eq!(f.rate.app_limited_until(), 3);
    }

    #[test]
    fn on_off_source_produces_only_while_on_and_inverts_exactly() {
        let app = App::OnOff {
            bytes_per_sec: 1000.0,
            on: Dur::from_millis(200),
            off: Dur::from_millis(800),
        };
        let at = |ms: u64| app.produced(Dur::from_millis(ms)).unwrap();
        assert!((at(100) - 100.0).abs() < 1e-9);
        assert!((at(200) - 200.0).abs() < 1e-9);
        assert!((at(900) - 200.0).abs() < 1e-9, "nothing during off");
        assert!((at(1100) - 300.0).abs() < 1e-9);
        assert!((at(5000) - 1000.0).abs() < 1e-9, "5 periods × 200 ms × 1000 B/s");
        // The inverse lands inside an on period (the end of one, not the following off period).
        assert_eq!(app.when_produced(0.0), Some(Dur::ZERO));
        assert_eq!(app.when_produced(200.0), Some(Dur::from_millis(200)));
        assert_eq!(app.when_produced(250.0), Some(Dur::from_millis(1050)));
        assert_eq!(app.when_produced(400.0), Some(Dur::from_millis(1200)));
        for b in [1.0, 199.0, 201.0, 777.0, 1234.5] {
            let t = app.when_produced(b).unwrap();
            assert!((app.produced(t).unwrap() - b).abs() < 1e-6, "{b}");
        }
        assert_eq!(App::Bulk.produced(Dur::from_millis(1)), None);
    }

    /// RFC 7323 §2.3: no window above 2^30 bytes, i.e. floor(2^30 / 1448) = 741 534 segments,
    /// whatever the controller asks for.
    #[test]
    fn the_send_window_is_capped_at_two_to_the_thirty_bytes() {
        use crate::cc::fixed::{Fixed, FixedConfig};
        assert_eq!(MAX_WINDOW, 741_534);
        let huge = |w: f64| {
            let cfg = FixedConfig {
                window: w,
                paced: false,
            };
            Sender::new(0, Box::new(Fixed::new(cfg)), Ecn::NotEct, App::Bulk).send_window()
        };
        assert_eq!(huge(1e6), MAX_WINDOW);
        assert_eq!(huge(741_533.9), 741_533);
    }

    /// `stop`: no new data after the flow's stop time (not even what the application produced
    /// but the window held back), but outstanding data is still recovered.
    #[test]
    fn a_stopped_sender_sends_no_new_data_but_still_retransmits() {
        let app = App::RateLimited {
            bytes_per_sec: 1448.0 * 100.0,
        };
        let mut s = Sender::new(0, Box::new(NewReno::new(NewRenoConfig::default())), Ecn::NotEct, app);
        s.start(Time::ZERO);
        assert!(!s.is_stopped());
        assert_eq!(send_all(&mut s, Time::from_millis(20)), vec![0, 1]);
        s.stop(Time::from_millis(55));
        assert!(s.is_stopped());
        assert!(send_all(&mut s, Time::from_millis(200)).is_empty());
        assert_eq!((s.snd_una(), s.snd_nxt()), (0, 2));
        // An ACK opens the window, nothing new is sent, and the only wakeup is the RTO.
        s.on_ack(Time::from_millis(300), &ack(1, &[], Time::from_millis(20)));
        assert_eq!((s.snd_una(), s.snd_nxt()), (1, 2));
        assert_eq!(s.min_rtt(), Some(Dur::from_millis(280)));
        assert!(send_all(&mut s, Time::from_millis(300)).is_empty());
        let rto = s.rto_at.unwrap();
        assert_eq!(s.next_wakeup(Time::from_millis(300)), Some(rto));
        s.on_timer(rto);
        assert_eq!(send_all(&mut s, rto), vec![1], "the RTO retransmits from snd_una");
    }

    /// A rate-limited source's supply is capped one below `u32::MAX`, the bulk sentinel (as a
    /// finite flow's segment count is).
    #[test]
    fn a_huge_rate_limited_supply_stays_below_the_bulk_sentinel() {
        let app = App::RateLimited { bytes_per_sec: 1e18 };
        let mut s = Sender::new(0, Box::new(NewReno::new(NewRenoConfig::default())), Ecn::NotEct, app);
        s.start(Time::ZERO);
        s.update_app(Time::from_secs(1));
        assert_eq!(s.avail, u32::MAX - 1);
        let f = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::NotEct,
            App::Finite { bytes: u64::MAX },
        );
        assert_eq!(f.total, Some(u32::MAX - 1));
    }

    /// `shrink` gives back the scoreboard's spare capacity once the data is acknowledged.
    #[test]
    fn shrink_gives_back_the_scoreboard_capacity() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(Time::from_millis(100), &ack(2, &[(3, 6)], Time::ZERO));
        s.on_ack(Time::from_millis(100), &ack(10, &[], Time::ZERO));
        let (segs, sacked) = s.sb.capacity();
        assert!(segs >= 10 && sacked >= 1, "{segs} {sacked}");
        s.shrink();
        let (segs_after, sacked_after) = s.sb.capacity();
        assert!(
            segs_after < segs && sacked_after < sacked,
            "{segs_after} {sacked_after}"
        );
        assert_eq!((s.snd_una(), s.pipe()), (10, 0), "contents unchanged");
    }

    /// A controller with a constant window and its own timer (as Sprout's heartbeat), counting
    /// the timer calls it gets.
    struct Timed {
        window: f64,
        at: Option<Time>,
        fired: std::sync::Arc<std::sync::atomic::AtomicU32>,
    }

    impl CongestionControl for Timed {
        fn name(&self) -> &'static str {
            "timed"
        }
        fn window(&self) -> f64 {
            self.window
        }
        fn next_timer(&self) -> Option<Time> {
            self.at
        }
        fn on_timer(&mut self, _now: Time) {
            self.fired.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.at = None;
        }
    }

    /// `next_wakeup`: nothing before the start or after completion; the controller's timer; the
    /// RTO while the window is full; the pacer when there is something to send (new data, or a
    /// lost segment, also with a full window while the fast retransmit is due); the RTO only when
    /// the window is open but there is nothing to send.
    #[test]
    fn next_wakeup_follows_the_window_the_data_and_the_timers() {
        let fired = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let timed = |window: f64, app: App| {
            let cc = Timed {
                window,
                at: Some(Time::from_millis(50)),
                fired: fired.clone(),
            };
            Sender::new(0, Box::new(cc), Ecn::NotEct, app)
        };
        let mut s = timed(4.0, App::Bulk);
        assert_eq!(s.next_wakeup(Time::ZERO), None, "not started");
        s.start(Time::ZERO);
        assert_eq!(s.next_wakeup(Time::ZERO), Some(Time::ZERO), "data to send now");
        assert_eq!(send_all(&mut s, Time::ZERO).len(), 4);
        // Window full: the controller's timer (50 ms) before the RTO (1 s).
        assert_eq!(s.next_wakeup(Time::ZERO), Some(Time::from_millis(50)));
        s.on_timer(Time::from_millis(49));
        assert_eq!(fired.load(std::sync::atomic::Ordering::Relaxed), 0);
        s.on_timer(Time::from_millis(50));
        assert_eq!(fired.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(s.next_wakeup(Time::from_millis(50)), Some(Time::ZERO + RTO_INITIAL));
        // An ACK opens the window: wake when the pacer allows (unpaced: at once).
        let t = Time::from_millis(100);
        s.on_ack(t, &ack(1, &[], Time::ZERO));
        assert_eq!(s.pipe(), 3);
        assert_eq!(s.next_wakeup(t), Some(s.pacer.next_send()));
        assert!(s.pacer.next_send() <= t);

        // A finite flow with everything sent: an open window alone is no reason to wake.
        let mut f = timed(4.0, App::Finite { bytes: 4 * 1448 });
        f.start(Time::ZERO);
        assert_eq!(send_all(&mut f, Time::ZERO).len(), 4);
        f.on_timer(Time::from_millis(50));
        f.on_ack(t, &ack(1, &[], Time::ZERO));
        let rto = f.rto_at.unwrap();
        assert!(rto > t);
        assert_eq!(f.next_wakeup(t), Some(rto));
        // ... but a lost segment is: 1 is lost once 3 segments above it are SACKed (DupThresh 3),
        // with no new data left.
        let mut f = timed(5.0, App::Finite { bytes: 5 * 1448 });
        f.start(Time::ZERO);
        assert_eq!(send_all(&mut f, Time::ZERO).len(), 5);
        f.on_ack(t, &ack(1, &[(2, 5)], Time::ZERO));
        assert_eq!((f.sb.lost_pending(), f.pipe()), (1, 0));
        assert_eq!(f.next_wakeup(t), Some(f.pacer.next_send()));
        assert_eq!(send_all(&mut f, t), vec![1]);
        // Completed: nothing, not even the controller's timer.
        let mut f = timed(4.0, App::Finite { bytes: 1448 });
        f.start(Time::ZERO);
        send_all(&mut f, Time::ZERO);
        f.on_ack(t, &ack(1, &[], Time::ZERO));
        assert_eq!(f.completed_at, Some(t));
        assert_eq!(f.next_wakeup(t), None);
    }

    /// RFC 6675 §5 (4.3): entering recovery with a full reduced window still wakes the sender
    /// for the fast retransmit.
    #[test]
    fn a_due_fast_retransmit_wakes_the_sender_although_the_window_is_full() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        s.on_ack(t, &ack(2, &[(3, 6)], Time::ZERO));
        assert!(s.in_recovery());
        assert_eq!((s.pipe(), s.cc.window()), (4, 4.0));
        assert_eq!(s.next_wakeup(t), Some(s.pacer.next_send()));
        assert_eq!(send_all(&mut s, t), vec![2]);
        assert_eq!(s.next_wakeup(t), s.rto_at, "window full again: only the RTO");
        // Three lost segments (2, 3, 4 below the SACKed 5..8): the window (4) lets the fast
        // retransmit and one more out; with the window full the third waits for an ACK.
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(t, &ack(2, &[(5, 8)], Time::ZERO));
        assert_eq!((s.sb.lost_pending(), s.pipe(), s.cc.window()), (3, 2, 4.0));
        assert_eq!(send_all(&mut s, t), vec![2, 3]);
        assert_eq!((s.sb.lost_pending(), s.pipe()), (1, 4));
        assert_eq!(s.next_wakeup(t), s.rto_at);
        // The "lost" segment was only late: an ACK covers it before the fast retransmit went out.
        // The retransmission is dropped, and the full window (pipe 4 = cwnd 4) sends nothing.
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(t, &ack(2, &[(3, 6)], Time::ZERO));
        s.on_ack(t, &ack(6, &[], Time::ZERO));
        assert_eq!((s.sb.lost_pending(), s.pipe(), s.cc.window()), (0, 4, 4.0));
        assert!(send_all(&mut s, t).is_empty());
        assert_eq!(s.stats.retransmits, 0);
    }

    /// An application-limited sender with an open window wakes 1 µs after its next segment is
    /// produced (the 3rd at 100 segments/s: 30 ms), not earlier.
    #[test]
    fn an_app_limited_sender_wakes_when_its_next_segment_is_produced() {
        let app = App::RateLimited {
            bytes_per_sec: 1448.0 * 100.0,
        };
        let mut s = Sender::new(0, Box::new(NewReno::new(NewRenoConfig::default())), Ecn::NotEct, app);
        s.start(Time::ZERO);
        assert_eq!(send_all(&mut s, Time::from_millis(20)), vec![0, 1]);
        let wake = Time::from_millis(30) + Dur::from_micros(1);
        assert_eq!(s.next_wakeup(Time::from_millis(20)), Some(wake));
        assert_eq!(send_all(&mut s, wake), vec![2]);
    }

    /// Linux `tcp_rate_skb_sent`: the first segment sent with nothing outstanding restarts the
    /// rate sampler's clocks (`first_sent_time = delivered_mstamp = now`), so a sample after an
    /// idle period spans only the new transmission: 1 segment over 100 ms, not over the 1 s idle.
    #[test]
    fn sending_after_idle_restarts_the_rate_sample_clocks() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(Time::from_millis(100), &ack(10, &[], Time::ZERO));
        let t = Time::from_millis(1000);
        assert_eq!(s.poll_transmit(t).map(|p| p.seq), Some(10));
        s.on_ack(Time::from_millis(1100), &ack(11, &[], t));
        let rs = s.rate_sample_for_test.expect("a sample");
        assert_eq!((rs.delivered, rs.interval), (1, Dur::from_millis(100)));
        assert!((rs.delivery_rate - 1448.0 / 0.1).abs() < 1e-6, "{rs:?}");
    }

    /// Linux `tcp_xmit_retransmit_queue`: retransmitting the head (`snd_una`) re-arms the RTO
    /// from now; retransmitting a later hole, or any retransmission after an RTO, does not.
    #[test]
    fn only_a_retransmission_of_the_head_rearms_the_rto() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        // SRTT 100 ms, RTTVAR 50 ms: RTO 300 ms from the ACK at 100 ms.
        s.on_ack(Time::from_millis(100), &ack(2, &[], Time::ZERO));
        assert_eq!(s.rto_at, Some(Time::from_millis(400)));
        s.on_ack(Time::from_millis(150), &ack(2, &[(5, 8)], Time::ZERO));
        assert_eq!(s.rto_at, Some(Time::from_millis(400)), "no new data acknowledged");
        // The SACK's 150 ms sample: SRTT 106.25 ms, RTTVAR 50 ms, RTO 306.25 ms.
        assert_eq!(s.rtt.rto(), Dur::from_micros(306_250));
        assert_eq!(s.poll_transmit(Time::from_millis(160)).map(|p| p.seq), Some(2));
        let rearmed = Some(Time::from_nanos(466_250_000));
        assert_eq!(s.rto_at, rearmed, "the head: re-armed");
        assert_eq!(s.poll_transmit(Time::from_millis(170)).map(|p| p.seq), Some(3));
        assert_eq!(s.rto_at, rearmed, "not the head");
        // After an RTO the head's retransmission keeps the backed-off timer (2 × 306.25 ms).
        s.on_timer(Time::from_nanos(466_250_000));
        let backed_off = s.rto_at;
        assert_eq!(backed_off, Some(Time::from_nanos(1_078_750_000)));
        assert_eq!(s.poll_transmit(Time::from_millis(470)).map(|p| p.seq), Some(2));
        assert_eq!(s.rto_at, backed_off);
    }

    /// The last packet that fills the window carries `FLIGHT_END` (Sprout's flight marker); the
    /// counters add every packet and its wire bytes.
    #[test]
    fn the_packet_that_fills_the_window_ends_the_flight_and_the_counters_add_up() {
        let mut s = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::NotEct,
            App::Finite { bytes: 12 * 1448 },
        );
        s.start(Time::ZERO);
        let pkts: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        let ends: Vec<u8> = pkts.iter().map(|p| p.feedback[0] & crate::packet::FLIGHT_END).collect();
        assert_eq!(ends, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!((s.stats.packets_sent, s.stats.bytes_sent), (10, 10 * 1500));
        s.on_ack(Time::from_millis(100), &ack(1, &[], Time::ZERO));
        // cwnd 11, pipe 9: two more, the second fills the window (and is the flow's last).
        let pkts: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        let ends: Vec<u8> = pkts.iter().map(|p| p.feedback[0] & crate::packet::FLIGHT_END).collect();
        assert_eq!(ends, [0, 1]);
        assert_eq!((s.stats.packets_sent, s.stats.bytes_sent), (12, 12 * 1500));
    }

    /// Eifel detection (RFC 3522): the first ACK of new data after an RTO that echoes a
    /// transmission from before the RTO makes it spurious (undone); one echoing the
    /// retransmission (sent at the RTO's instant) does not.
    #[test]
    fn an_rto_is_undone_only_when_the_ack_echoes_a_transmission_from_before_it() {
        let rto_then = |echo: Time| {
            let mut s = sender();
            send_all(&mut s, Time::ZERO);
            s.on_ack(Time::from_millis(100), &ack(1, &[], Time::ZERO));
            assert_eq!(s.cc.window(), 11.0);
            let fired = Time::from_millis(400);
            s.on_timer(fired);
            assert_eq!((s.stats.timeouts, s.cc.window()), (1, 1.0));
            // The controller is given FlightSize = snd_nxt − snd_una = 9: max(9 / 2, 2).
            assert_eq!(s.cc.ssthresh(), Some(4.0));
            assert_eq!(send_all(&mut s, fired), vec![1]);
            s.on_ack(Time::from_millis(450), &ack(2, &[], echo));
            s
        };
        let s = rto_then(Time::ZERO);
        assert_eq!(s.stats.spurious_timeouts, 1);
        assert!(!s.in_recovery());
        // NewReno undo: max(cwnd, 11), then slow start by the ACKed segment.
        assert_eq!(s.cc.window(), 12.0);
        assert_eq!(s.send_window(), 12, "the one-segment limit after the RTO is over");
        let s = rto_then(Time::from_millis(400));
        assert_eq!(s.stats.spurious_timeouts, 0);
        assert!(s.in_recovery());
        assert_eq!(s.cc.window(), 2.0);
    }

    /// RTT samples come only from ACKs that deliver something (a duplicate ACK's timestamp echo
    /// is of an older segment) and whose echo is not from the future.
    #[test]
    fn duplicate_acks_give_no_rtt_sample() {
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(Time::from_millis(100), &ack(1, &[], Time::ZERO));
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)));
        s.on_ack(Time::from_millis(300), &ack(1, &[], Time::ZERO));
        assert_eq!(s.srtt(), Some(Dur::from_millis(100)), "a duplicate ACK");
        assert_eq!(s.stats.acks, 2);
    }

    /// RFC 3168 §6.1.2 / Linux CWR: after reacting to a CE echo with `snd_nxt` = 10, the next
    /// reaction needs `snd_una` past 10 (Linux leaves CWR only once `snd_una` is after
    /// `high_seq`): an echo at `snd_una` = 10 is ignored, one at 11 is answered.
    #[test]
    fn the_next_ecn_reaction_needs_snd_una_beyond_the_reaction_point() {
        let ce = |cum: u32| {
            let mut a = ack(cum, &[], Time::ZERO);
            a.echo = Echo::Ce;
            a
        };
        let mut s = sender();
        send_all(&mut s, Time::ZERO);
        s.on_ack(Time::from_millis(100), &ce(1));
        assert_eq!((s.stats.ecn_reactions, s.cc.window()), (1, 4.0));
        s.on_ack(Time::from_millis(100), &ce(10));
        assert_eq!(s.stats.ecn_reactions, 1);
        assert!(!send_all(&mut s, Time::from_millis(100)).is_empty());
        s.on_ack(Time::from_millis(200), &ce(11));
        assert_eq!(s.stats.ecn_reactions, 2);
    }

    /// PRR (RFC 6937, Linux `tcp_cwnd_reduction`) worked by hand: 10 segments out, a CE echo on
    /// the ACK of segment 0 (NewReno: ssthresh = max(9 / 2, 2) = 4, prior_cwnd = 10, high_seq =
    /// 10); one segment goes out at once. On each later ACK (one segment delivered), while
    /// pipe > ssthresh: sndcnt = ceil(4 · prr_delivered / 10) − prr_out, at least 0 once
    /// something was sent; cwnd = pipe + sndcnt. At pipe = ssthresh = 4 (the ACK of segment 8):
    /// sndcnt = min(ssthresh − pipe, ...) = 0 — not the first branch, which would give 1.
    #[test]
    fn prr_ecn_windows_worked_by_hand() {
        let mut s = sender();
        s.prr_ecn = true;
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        let mut a = ack(1, &[], Time::ZERO);
        a.echo = Echo::Ce;
        s.on_ack(t, &a);
        assert_eq!(send_all(&mut s, t), vec![10]);
        let mut got = Vec::new();
        for cum in 2..=9 {
            s.on_ack(t, &ack(cum, &[], Time::ZERO));
            let cwnd = s.cwr.expect("in CWR").cwnd;
            got.push((cwnd, send_all(&mut s, t).len()));
        }
        // (prr_delivered, pipe before sending): (1, 9) (2, 8) (3, 7) (4, 7) (5, 6) (6, 5) (7, 5) (8, 4)
        assert_eq!(got, [(9, 0), (8, 0), (8, 1), (7, 0), (6, 0), (6, 1), (5, 0), (4, 0)]);
        let c = s.cwr.unwrap();
        assert_eq!((c.prr_delivered, c.prr_out), (8, 3));
        // snd_una reaches high_seq: CWR ends at the controller's window.
        s.on_ack(t, &ack(10, &[], Time::ZERO));
        assert!(s.cwr.is_none());
        assert_eq!(s.send_window(), 4);
    }

    /// PRR in fast recovery (`prr_loss`; RFC 6937, Linux `tcp_enter_recovery` and
    /// `tcp_cwnd_reduction` on the same ACK), worked by hand. Ten segments out, segment 0 lost; the
    /// SACKs of 1 and 2 grow NewReno's slow-start window to 12 (14 sent). The SACK of 3 marks 0
    /// lost: prior_cwnd 12, ssthresh = FlightSize / 2 = 7, pipe = 14 − 3 SACKed − 1 lost = 10;
    /// prr_delivered 1, pipe > ssthresh: sndcnt = ⌈7 · 1 / 12⌉ − 0 = 1, cwnd 11, and the
    /// retransmission of 0 goes out (prr_out 1, pipe 11). Each later SACK delivers one segment:
    /// sndcnt = ⌈7 · prr_delivered / 12⌉ − prr_out = 1, 0, 1, 0, 1 — a new segment on every other
    /// ACK, where RFC 6675 alone (cwnd 7 at once) sends nothing until pipe < 7.
    #[test]
    fn prr_in_fast_recovery_worked_by_hand() {
        let run = |prr: bool| {
            let mut s = sender();
            s.prr_loss = prr;
            send_all(&mut s, Time::ZERO);
            let t = Time::from_millis(100);
            let mut log = Vec::new();
            for k in 2..=9u32 {
                s.on_ack(t, &ack(0, &[(1, k)], Time::ZERO));
                let sent = send_all(&mut s, t);
                if s.in_recovery() {
                    log.push((s.send_window(), sent));
                }
            }
            (s, log)
        };
        let (mut s, log) = run(true);
        let c = s.cwr.expect("PRR state in recovery");
        assert_eq!((c.prior_cwnd, c.ssthresh, c.prr_delivered, c.prr_out), (12, 7, 6, 4));
        let want: Vec<(u32, Vec<u32>)> = vec![
            (11, vec![0]),
            (11, vec![14]),
            (10, vec![]),
            (10, vec![15]),
            (9, vec![]),
            (9, vec![16]),
        ];
        assert_eq!(log, want);
        // Recovery ends (snd_una passes the recovery point 14): the controller's window again.
        s.on_ack(Time::from_millis(120), &ack(17, &[], Time::ZERO));
        assert!(!s.in_recovery() && s.cwr.is_none());
        assert_eq!(s.send_window(), s.cc.window() as u32);
        let (_, plain) = run(false);
        assert_eq!(
            plain[0],
            (7, vec![0]),
            "RFC 6675 alone: ssthresh at once, the retransmission only"
        );
        assert!(plain[1..].iter().all(|(w, sent)| *w == 7 && sent.len() <= 1));
    }

    /// An RTO during PRR recovery ends the reduction (Linux's Loss state replaces Recovery): the
    /// send window is the RTO's one segment, then the controller's.
    #[test]
    fn an_rto_ends_prr_recovery() {
        let mut s = sender();
        s.prr_loss = true;
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        for k in 2..=4u32 {
            s.on_ack(t, &ack(0, &[(1, k)], Time::ZERO));
            send_all(&mut s, t);
        }
        assert!(s.cwr.is_some_and(|c| c.loss));
        let rto = s.rto_at.expect("armed");
        s.on_timer(rto);
        assert!(s.cwr.is_none());
        assert_eq!(s.send_window(), 1);
    }

    /// A controller that keeps its window and reports a fixed ssthresh.
    struct Held {
        window: f64,
        ssthresh: f64,
    }

    impl CongestionControl for Held {
        fn name(&self) -> &'static str {
            "held"
        }
        fn window(&self) -> f64 {
            self.window
        }
        fn ssthresh(&self) -> Option<f64> {
            Some(self.ssthresh)
        }
    }

    /// PRR's second branch (pipe ≤ ssthresh, RFC 6937 PRR-SSRB; Linux `tcp_cwnd_reduction`):
    /// sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, delivered now) + 1 if snd_una
    /// advanced), worked by hand with ssthresh 20 above a window of 10 and the test choosing
    /// when to send.
    #[test]
    fn prr_below_ssthresh_worked_by_hand() {
        let cc = Held {
            window: 10.0,
            ssthresh: 20.0,
        };
        let mut s = Sender::new(0, Box::new(cc), Ecn::NotEct, App::Bulk);
        s.prr_ecn = true;
        s.start(Time::ZERO);
        send_all(&mut s, Time::ZERO);
        let t = Time::from_millis(100);
        let mut a = ack(1, &[], Time::ZERO);
        a.echo = Echo::Ce;
        s.on_ack(t, &a);
        let c = s.cwr.unwrap();
        assert_eq!((c.high_seq, c.prior_cwnd, c.ssthresh, c.cwnd), (10, 10, 20, 10));
        // 6 delivered, nothing sent: pipe 3, sndcnt = min(20 − 3, max(6 − 0, 6) + 1) = 7.
        s.on_ack(t, &ack(7, &[], Time::ZERO));
        assert_eq!((s.pipe(), s.cwr.unwrap().cwnd), (3, 10));
        assert_eq!(s.poll_transmit(t).map(|p| p.seq), Some(10));
        assert_eq!(s.poll_transmit(t).map(|p| p.seq), Some(11));
        // 1 more delivered (7 in all), 2 sent: pipe 4, sndcnt = min(16, max(7 − 2, 1) + 1) = 6.
        s.on_ack(t, &ack(8, &[], Time::ZERO));
        let c = s.cwr.unwrap();
        assert_eq!((c.prr_delivered, c.prr_out, s.pipe(), c.cwnd), (7, 2, 4, 10));
        // A duplicate ACK (nothing delivered) leaves the PRR state alone.
        s.on_ack(t, &ack(8, &[], Time::ZERO));
        let c = s.cwr.unwrap();
        assert_eq!((c.prr_delivered, c.prr_out, c.cwnd), (7, 2, 10));
        // Nothing sent yet in the round (prr_out 0): at least one segment may go, even at
        // pipe = ssthresh = 3 where min(ssthresh − pipe, ...) = 0.
        let cc = Held {
            window: 10.0,
            ssthresh: 3.0,
        };
        let mut s = Sender::new(0, Box::new(cc), Ecn::NotEct, App::Bulk);
        s.prr_ecn = true;
        s.start(Time::ZERO);
        send_all(&mut s, Time::ZERO);
        s.on_ack(t, &a);
        s.on_ack(t, &ack(7, &[], Time::ZERO));
        assert_eq!((s.pipe(), s.cwr.unwrap().cwnd), (3, 4));
    }

    /// A controller with a window of 10 that keeps the last `AckInfo` it was given.
    struct Recorder(std::sync::Arc<std::sync::Mutex<Option<AckInfo>>>);

    impl CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn window(&self) -> f64 {
            10.0
        }
        fn on_ack(&mut self, _now: Time, ack: &AckInfo) {
            *self.0.lock().unwrap() = Some(*ack);
        }
    }

    /// What the controller is told: an RTT sample and a one-way delay only for an ACK that
    /// delivers something; explicit feedback (XCP, RCP) only when the ACK echoes some.
    #[test]
    fn the_controller_gets_samples_only_from_acks_that_deliver() {
        let last = std::sync::Arc::new(std::sync::Mutex::new(None));
        let mut s = Sender::new(0, Box::new(Recorder(last.clone())), Ecn::NotEct, App::Bulk);
        s.explicit = true;
        s.start(Time::ZERO);
        send_all(&mut s, Time::ZERO);
        let info = |s: &mut Sender, a: &Packet| {
            s.on_ack(Time::from_millis(100), a);
            last.lock().unwrap().expect("on_ack called")
        };
        let mut a = ack(2, &[], Time::ZERO);
        a.rx_ts = Time::from_millis(40);
        a.set_xfb(0.5);
        let i = info(&mut s, &a);
        assert_eq!(
            (i.acked, i.rtt, i.one_way_delay),
            (2, Some(Dur::from_millis(100)), Some(Dur::from_millis(40)))
        );
        assert_eq!(i.explicit, Some(0.5));
        // The duplicate: nothing delivered, no samples; no feedback echoed.
        let mut a = ack(2, &[], Time::ZERO);
        a.rx_ts = Time::from_millis(40);
        let i = info(&mut s, &a);
        assert_eq!((i.acked, i.rtt, i.one_way_delay, i.explicit), (0, None, None, None));
    }

    /// A finite flow completes at the ACK of its last segment, not before, and only once.
    #[test]
    fn a_finite_flow_completes_once_at_the_ack_of_its_last_segment() {
        let mut s = Sender::new(
            0,
            Box::new(NewReno::new(NewRenoConfig::default())),
            Ecn::NotEct,
            App::Finite { bytes: 3 * 1448 },
        );
        s.start(Time::ZERO);
        send_all(&mut s, Time::ZERO);
        s.on_ack(Time::from_millis(10), &ack(2, &[], Time::ZERO));
        assert_eq!(s.completed_at, None);
        assert!(s.rto_at.is_some());
        s.on_ack(Time::from_millis(20), &ack(3, &[], Time::ZERO));
        assert_eq!((s.completed_at, s.rto_at), (Some(Time::from_millis(20)), None));
        s.on_ack(Time::from_millis(30), &ack(3, &[], Time::ZERO));
        assert_eq!(s.completed_at, Some(Time::from_millis(20)));
    }
}
