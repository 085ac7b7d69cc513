//! Packets on the wire.
//!
//! A [`Packet`] is a small `Copy` record (no payload bytes). The engine keeps each packet in one
//! slot of its packet arena while it is in the network and moves 4-byte ids through drop-tail
//! FIFOs, transmission slots and delay lines; queues with their own logic (the AQMs)
//! and trace/Wi-Fi links take packets by value. The per-packet path never allocates. Sequence numbers count *segments*
//! (every data segment carries [`MSS`] payload bytes except possibly the last of a finite flow).

use crate::time::Time;

/// TCP payload bytes per full segment (1500-byte IP packet minus 52 bytes of IP+TCP headers with
/// timestamps), as in the ABC artifact's `tcp_abc.c` (hard-coded 1448).
pub const MSS: u32 = 1448;
/// IP+TCP header bytes (20 IP + 20 TCP + 12 timestamp option).
pub const HEADER_BYTES: u32 = 52;
/// Size on the wire of a full data segment.
pub const MTU: u32 = MSS + HEADER_BYTES;
/// Size on the wire of a pure ACK.
pub const ACK_BYTES: u32 = HEADER_BYTES;

/// The two ECN bits of the IP header.
///
/// Standard meaning (RFC 3168): `NotEct` 00, `Ect1` 01, `Ect0` 10, `Ce` 11. ABC (paper §4.2) re-reads
/// them: an ABC sender sends **accelerate = 01** (`Ect1`); an ABC router turns it into **brake = 10**
/// (`Ect0`); `Ce` (11) keeps its legacy meaning and is never rewritten by an ABC router.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// 00: not ECN-capable.
    NotEct = 0b00,
    /// 01: ECT(1); ABC's *accelerate*.
    Ect1 = 0b01,
    /// 10: ECT(0); ABC's *brake*.
    Ect0 = 0b10,
    /// 11: congestion experienced (legacy AQM mark).
    Ce = 0b11,
}

impl Ecn {
    /// ABC name for `Ect1`.
    pub const ACCELERATE: Ecn = Ecn::Ect1;
    /// ABC name for `Ect0`.
    pub const BRAKE: Ecn = Ecn::Ect0;

    /// Whether the packet is ECN-capable (any codepoint but 00).
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

/// What a receiver echoes back about the data segments an ACK covers.
///
/// With the per-packet (DCTCP-style) echo of ABC every ACK covers segments that all carried the same
/// mark, so one value per ACK is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Echo {
    /// No ECN information (non-ECT data, or a classic receiver with nothing to report).
    #[default]
    None = 0,
    /// The covered segments arrived as ABC accelerate (01).
    Accelerate = 1,
    /// The covered segments arrived as ABC brake (10).
    Brake = 2,
    /// Congestion experienced (legacy CE, 11; or RFC 3168 ECE).
    Ce = 3,
}

/// Data segment or pure ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A data segment from sender to receiver.
    Data,
    /// A pure ACK from receiver to sender.
    Ack,
}

/// Data packets: `feedback[0]` flag set when the window is full after this packet, so the sender
/// goes quiet until an ACK opens it (Sprout's receiver does not take the silence that follows as
/// evidence of a slow link).
pub const FLIGHT_END: u8 = 1;
/// Data packets: `feedback[0]` flag set by the controller ([`crate::cc::CongestionControl::data_flags`])
/// on a heartbeat, a packet sent only to show the receiver the sender is alive (Sprout); Sprout's
/// receiver does not count it as a delivery.
pub const HEARTBEAT: u8 = 2;

/// Up to this many SACK blocks are carried per ACK (RFC 2018 allows 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// One SACK block: segments `[start, end)` were received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// First received segment.
    pub start: u32,
    /// One past the last received segment.
    pub end: u32,
}

/// Which explicit congestion header a data packet carries (XCP, RCP), and so how a receiver
/// combines the feedback of the segments one ACK covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ExplicitKind {
    /// XCP (Katabi et al., SIGCOMM 2002 §3.1): `feedback` is a window change in bytes; the
    /// feedback of the covered segments adds up.
    Xcp = 1,
    /// RCP (Dukkipati & McKeown): `feedback` is a rate in bytes/s; the smallest one is echoed.
    Rcp = 2,
}

/// The explicit congestion header of XCP (H_cwnd, H_rtt, H_feedback; Katabi et al. §3.1) or RCP
/// (rate, RTT). It is carried **in the SACK-block area** of a data packet, which data packets never
/// use ([`Packet::sack`] is ACK-only), so the packet keeps its size and packets without a header
/// pay nothing: see [`Packet::set_explicit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExplicitHeader {
    /// XCP or RCP.
    pub kind: ExplicitKind,
    /// H_cwnd: the sender's window in bytes (XCP); unused by RCP.
    pub cwnd: f32,
    /// H_rtt: the sender's RTT estimate in seconds, 0 if it has none yet.
    pub rtt: f32,
    /// XCP: H_feedback, the window change in bytes (routers only lower it). RCP: the rate in bytes/s
    /// (each router writes the minimum of it and its own rate).
    pub feedback: f32,
}

/// What an ACK carries when it echoes no explicit feedback ([`Packet::xfb`]).
pub const NO_FEEDBACK: f32 = f32::NAN;

/// A packet in flight. Plain data, `Copy`, 80 bytes (a test holds that: explicit headers live in
/// space that exists already). The engine writes it once into its arena slot and moves its id.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    /// Data: segment number. ACK: cumulative ACK (next expected segment).
    pub seq: u32,
    /// Size on the wire in bytes (IP packet).
    pub size: u32,
    /// Data or ACK.
    pub kind: Kind,
    /// IP ECN codepoint (rewritten by routers).
    pub ecn: Ecn,
    /// ACK only: echoed mark of the covered segments.
    pub echo: Echo,
    /// ACK only: the CWR flag was seen (RFC 3168), or data only: sender sets CWR.
    pub cwr: bool,
    /// Index of the next hop on this packet's path (advanced by the engine).
    pub hop: u8,
    /// Number of valid entries in `sack`.
    pub n_sack: u8,
    /// ACK only: SACK blocks, most recent first.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// Data: when the sender transmitted it. ACK: timestamp echo (the send time of the data
    /// segment that triggered the ACK), used for RTT samples as with TCP timestamps.
    pub ts: Time,
    /// ACK only: the receiver's timestamp for the segment whose send time `ts` echoes (its
    /// arrival, on the receiver's clock quantised to the receiver's timestamp granularity).
    pub rx_ts: Time,
    /// ACK: feedback a scheme's receiver hook computed (Sprout's delivery forecast; see
    /// [`crate::receiver::ReceiverHook`]); all zero when there is none. Data: byte 0 holds
    /// [`FLIGHT_END`] when the sender's window was full after this packet (Sprout's
    /// `time_to_next > 0`). Six bytes fit in what was padding, so the packet stays 80 bytes.
    pub feedback: [u8; 6],
    /// When it entered the queue of its current hop. It means nothing between hops: every hop
    /// sets it again on arrival, and nothing reads it at an endpoint. A [`crate::sched::DelayLine`]
    /// of packets keeps a packet's due time here ([`crate::sched::Due`]); the engine's lines hold
    /// arena ids with the due time next to them, and leave it as the last hop set it.
    pub enqueued_at: Time,
    /// Sum of queueing delays (including waiting for a link slot) over the hops crossed so far, ns.
    pub queued_ns: u64,
}

/// `feedback[4]` of an ACK that carries explicit feedback ([`Packet::xfb`]).
const XFB_PRESENT: u8 = 1;

impl Packet {
    /// ACK only: the explicit feedback the receiver echoes (XCP: the sum of the covered segments'
    /// H_feedback, bytes; RCP: their smallest rate, bytes/s); [`NO_FEEDBACK`] (NaN) if none. It
    /// shares the ACK's [`Packet::feedback`] bytes with receiver hooks (f32 bits in bytes 0–3, byte
    /// 4 marks it present): a flow has either an explicit-feedback scheme or a hook, never both.
    pub fn xfb(&self) -> f32 {
        if self.feedback[4] == XFB_PRESENT {
            f32::from_le_bytes([self.feedback[0], self.feedback[1], self.feedback[2], self.feedback[3]])
        } else {
            NO_FEEDBACK
        }
    }

    /// Set the echoed explicit feedback ([`Packet::xfb`]); NaN ([`NO_FEEDBACK`]) leaves the
    /// feedback bytes as they are.
    pub fn set_xfb(&mut self, v: f32) {
        if !v.is_nan() {
            self.feedback[..4].copy_from_slice(&v.to_le_bytes());
            self.feedback[4] = XFB_PRESENT;
        }
    }

    /// A new data segment.
    pub fn data(flow: u32, seq: u32, size: u32, ecn: Ecn, now: Time) -> Packet {
        Packet {
            flow,
            seq,
            size,
            kind: Kind::Data,
            ecn,
            echo: Echo::None,
            cwr: false,
            hop: 0,
            n_sack: 0,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            ts: now,
            rx_ts: Time::ZERO,
            feedback: [0; 6],
            enqueued_at: now,
            queued_ns: 0,
        }
    }

    /// A new pure ACK.
    pub fn ack(flow: u32, cum_ack: u32, echo: Echo, ts_echo: Time, now: Time) -> Packet {
        Packet {
            flow,
            seq: cum_ack,
            size: ACK_BYTES,
            kind: Kind::Ack,
            ecn: Ecn::NotEct,
            echo,
            cwr: false,
            hop: 0,
            n_sack: 0,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            ts: ts_echo,
            rx_ts: Time::ZERO,
            feedback: [0; 6],
            enqueued_at: now,
            queued_ns: 0,
        }
    }

    /// Whether this is a data segment.
    pub fn is_data(&self) -> bool {
        self.kind == Kind::Data
    }

    /// The SACK blocks carried.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }

    /// Data only: write an explicit congestion header into the (unused) SACK-block area. Layout:
    /// `sack[0] = (cwnd, rtt)`, `sack[1] = (feedback, kind)` as raw `f32`/`u32` bits; `n_sack`
    /// stays 0, so nothing reads it as SACK.
    pub fn set_explicit(&mut self, h: ExplicitHeader) {
        debug_assert!(self.is_data(), "explicit headers ride on data packets");
        self.sack[0] = SackBlock {
            start: h.cwnd.to_bits(),
            end: h.rtt.to_bits(),
        };
        self.sack[1] = SackBlock {
            start: h.feedback.to_bits(),
            end: h.kind as u32,
        };
    }

    /// Data only: the explicit congestion header, if the sender wrote one.
    #[inline]
    pub fn explicit(&self) -> Option<ExplicitHeader> {
        if !self.is_data() {
            return None;
        }
        let kind = match self.sack[1].end {
            1 => ExplicitKind::Xcp,
            2 => ExplicitKind::Rcp,
            _ => return None,
        };
        Some(ExplicitHeader {
            kind,
            cwnd: f32::from_bits(self.sack[0].start),
            rtt: f32::from_bits(self.sack[0].end),
            feedback: f32::from_bits(self.sack[1].start),
        })
    }

    /// Data only: a router lowers the header's feedback (XCP: `H_feedback = min(H_feedback, fb)`;
    /// RCP: `rate = min(rate, R)`). No-op without a header.
    #[inline]
    pub fn lower_feedback(&mut self, fb: f32) {
        if let Some(h) = self.explicit() {
            self.sack[1].start = h.feedback.min(fb).to_bits();
        }
    }
}

/// A packet on a delay line keeps its due time in `enqueued_at`, which means nothing between
/// hops (see [`Packet::enqueued_at`]).
impl crate::sched::Due for Packet {
    #[inline]
    fn due(&self) -> Time {
        self.enqueued_at
    }
    #[inline]
    fn set_due(&mut self, t: Time) {
        self.enqueued_at = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_stays_80_bytes_with_the_explicit_header() {
        assert_eq!(std::mem::size_of::<Packet>(), 80);
    }

    #[test]
    fn explicit_header_round_trips_and_only_ever_lowers() {
        let mut p = Packet::data(0, 1, MTU, Ecn::NotEct, Time::ZERO);
        assert_eq!(p.explicit(), None);
        let h = ExplicitHeader {
            kind: ExplicitKind::Xcp,
            cwnd: 15000.0,
            rtt: 0.1,
            feedback: 300.0,
        };
        p.set_explicit(h);
        assert_eq!(p.explicit(), Some(h));
        assert_eq!(p.n_sack, 0);
        p.lower_feedback(500.0);
        assert_eq!(p.explicit().unwrap().feedback, 300.0);
        p.lower_feedback(-20.0);
        assert_eq!(p.explicit().unwrap().feedback, -20.0);
        let a = Packet::ack(0, 1, Echo::None, Time::ZERO, Time::ZERO);
        assert!(a.explicit().is_none() && a.xfb().is_nan());
    }

    /// Packets are copied by value through AQM queues and trace/Wi-Fi links: keep them within 80
    /// bytes.
    #[test]
    fn a_packet_is_at_most_80_bytes() {
        assert!(std::mem::size_of::<Packet>() <= 80, "{}", std::mem::size_of::<Packet>());
    }
}
