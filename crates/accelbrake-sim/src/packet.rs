//! Packets on the wire.
//!
//! A [`Packet`] is a small `Copy` record (no payload bytes): it travels through queues, links and
//! delay lines by value, so the per-packet path never allocates. Sequence numbers count *segments*
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

/// A packet in flight. Plain data, `Copy`, about 100 bytes.
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
    /// When it entered the queue of its current hop.
    pub enqueued_at: Time,
    /// Sum of queueing delays (including waiting for a link slot) over the hops crossed so far, ns.
    pub queued_ns: u64,
}

impl Packet {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets are copied by value through queues and delay lines: keep them within 80 bytes.
    #[test]
    fn a_packet_is_at_most_80_bytes() {
        assert!(std::mem::size_of::<Packet>() <= 80, "{}", std::mem::size_of::<Packet>());
    }
}
