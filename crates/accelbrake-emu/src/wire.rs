//! The user-space transport's datagrams: the core's data segments and ACKs ([`Packet`]) as UDP
//! payloads (pure, every platform; the sockets are in `udp.rs`).
//!
//! A data segment keeps the simulator's size on the wire: its IP packet is `pkt.size` bytes (1500
//! for a full segment: 20 IP + 8 UDP + 1472 payload, where the simulator counts 20 IP + 32 TCP
//! with timestamps + 1448 payload), so the emulated link carries exactly what the simulated one
//! does. The fields the simulator's receiver reads (segment number, send time, CWR, the
//! controller's data flags, XCP/RCP's explicit header) lead the payload; the rest is padding. The
//! ECN codepoint is the IP header's own (set with `IP_TOS`, read with `IP_RECVTOS`), so routers
//! mark it as they would a TCP segment.
//!
//! An ACK is 52 IP bytes without SACK blocks or feedback — the simulator's `ACK_BYTES` (a TCP
//! ACK with timestamps) — and grows by 8 bytes per SACK block and 6 for the receiver hook's or
//! XCP's feedback, as TCP's SACK option grows an ACK (RFC 2018: 2 + 8·n bytes; the simulator keeps
//! every ACK at 52 bytes, a deviation of at most 30 bytes per ACK on the ACK link).
//!
//! Layout (little endian):
//!
//! ```text
//! data: 0 magic 0xAB | 1 kind 0 | 2 flags (bit 0 CWR) | 3 data flags (Sprout's heartbeat, flight end)
//!       4..8 segment | 8..16 send time, ns | 16..32 explicit header (kind u32 0 = none, H_cwnd f32,
//!       H_rtt f32, H_feedback f32) | zero padding to the segment's size
//! ack:  0 magic 0xAB | 1 kind 1 | 2 flags (bits 0-1 echo, bit 2 CWR, bits 3-4 SACK blocks, bit 5
//!       feedback present) | 3 zero | 4..8 cumulative ACK | 8..16 timestamp echo, ns | 16..24 the
//!       receiver's timestamp, ns | [6 feedback bytes] | SACK blocks (start u32, end u32)...
//! ```

use accelbrake_sim::packet::{Echo, Ecn, ExplicitHeader, ExplicitKind, Packet, SackBlock, MAX_SACK_BLOCKS};
use accelbrake_sim::time::Time;

/// IPv4 (20) + UDP (8) header bytes around every payload.
pub const IP_UDP_HEADER: u32 = 28;
/// First payload byte of every datagram of ours.
pub const MAGIC: u8 = 0xAB;
const KIND_DATA: u8 = 0;
const KIND_ACK: u8 = 1;
/// Payload bytes a data segment needs for its fields.
pub const DATA_FIELDS: usize = 32;
/// Payload bytes of an ACK without SACK blocks or feedback (52 IP bytes in all).
pub const ACK_FIELDS: usize = 24;

/// A data segment's UDP payload, `pkt.size − 28` bytes long, into `out` (cleared first).
pub fn encode_data(pkt: &Packet, out: &mut Vec<u8>) {
    out.clear();
    let len = (pkt.size.saturating_sub(IP_UDP_HEADER) as usize).max(DATA_FIELDS);
    out.resize(len, 0);
    out[0] = MAGIC;
    out[1] = KIND_DATA;
    out[2] = u8::from(pkt.cwr);
    out[3] = pkt.feedback[0];
    out[4..8].copy_from_slice(&pkt.seq.to_le_bytes());
    out[8..16].copy_from_slice(&pkt.ts.0.to_le_bytes());
    if let Some(h) = pkt.explicit() {
        out[16..20].copy_from_slice(&(h.kind as u32).to_le_bytes());
        out[20..24].copy_from_slice(&h.cwnd.to_le_bytes());
        out[24..28].copy_from_slice(&h.rtt.to_le_bytes());
        out[28..32].copy_from_slice(&h.feedback.to_le_bytes());
    }
}

/// An ACK's UDP payload into `out` (cleared first).
pub fn encode_ack(pkt: &Packet, out: &mut Vec<u8>) {
    out.clear();
    out.resize(ACK_FIELDS, 0);
    out[0] = MAGIC;
    out[1] = KIND_ACK;
    let n = pkt.n_sack.min(MAX_SACK_BLOCKS as u8);
    let fb = pkt.feedback != [0; 6];
    out[2] = (pkt.echo as u8) | (u8::from(pkt.cwr) << 2) | (n << 3) | (u8::from(fb) << 5);
    out[4..8].copy_from_slice(&pkt.seq.to_le_bytes());
    out[8..16].copy_from_slice(&pkt.ts.0.to_le_bytes());
    out[16..24].copy_from_slice(&pkt.rx_ts.0.to_le_bytes());
    if fb {
        out.extend_from_slice(&pkt.feedback);
    }
    for b in &pkt.sack[..n as usize] {
        out.extend_from_slice(&b.start.to_le_bytes());
        out.extend_from_slice(&b.end.to_le_bytes());
    }
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_bits(u32_at(b, i))
}

/// A datagram of ours back as the core's packet, `None` for anything else (wrong magic, too short,
/// malformed). `ecn` is the codepoint the IP header arrived with; `now` stamps `enqueued_at`.
pub fn decode(payload: &[u8], ecn: Ecn, now: Time) -> Option<Packet> {
    if payload.len() < ACK_FIELDS.min(DATA_FIELDS) || payload[0] != MAGIC {
        return None;
    }
    let size = payload.len() as u32 + IP_UDP_HEADER;
    match payload[1] {
        KIND_DATA if payload.len() >= DATA_FIELDS => {
            let mut p = Packet::data(0, u32_at(payload, 4), size, ecn, Time(u64_at(payload, 8)));
            p.enqueued_at = now;
            p.cwr = payload[2] & 1 != 0;
            p.feedback[0] = payload[3];
            let kind = match u32_at(payload, 16) {
                1 => Some(ExplicitKind::Xcp),
                2 => Some(ExplicitKind::Rcp),
                _ => None,
            };
            if let Some(kind) = kind {
                p.set_explicit(ExplicitHeader {
                    kind,
                    cwnd: f32_at(payload, 20),
                    rtt: f32_at(payload, 24),
                    feedback: f32_at(payload, 28),
                });
            }
            Some(p)
        }
        KIND_ACK => {
            let f = payload[2];
            let echo = match f & 3 {
                0 => Echo::None,
                1 => Echo::Accelerate,
                2 => Echo::Brake,
                _ => Echo::Ce,
            };
            let n = ((f >> 3) & 3) as usize;
            let fb = f & (1 << 5) != 0;
            let need = ACK_FIELDS + if fb { 6 } else { 0 } + 8 * n;
            if n > MAX_SACK_BLOCKS || payload.len() != need {
                return None;
            }
            let mut p = Packet::ack(0, u32_at(payload, 4), echo, Time(u64_at(payload, 8)), now);
            p.size = size;
            p.cwr = f & (1 << 2) != 0;
            p.rx_ts = Time(u64_at(payload, 16));
            let mut i = ACK_FIELDS;
            if fb {
                p.feedback.copy_from_slice(&payload[i..i + 6]);
                i += 6;
            }
            for k in 0..n {
                p.sack[k] = SackBlock {
                    start: u32_at(payload, i),
                    end: u32_at(payload, i + 4),
                };
                i += 8;
            }
            p.n_sack = n as u8;
            Some(p)
        }
        _ => None,
    }
}

/// Offset of our payload in a raw IPv4/UDP packet, if `ip` is one (no fragment, a whole UDP
/// header) carrying a data segment of ours with an explicit header.
fn explicit_offset(ip: &[u8]) -> Option<usize> {
    if ip.len() < 20 || ip[0] >> 4 != 4 || ip[9] != 17 {
        return None;
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let frag = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
    let off = ihl + 8;
    (ihl >= 20 && frag == 0 && ip.len() >= off + DATA_FIELDS && ip[off] == MAGIC && ip[off + 1] == KIND_DATA)
        .then_some(off)
        .filter(|&o| matches!(u32_at(ip, o + 16), 1 | 2))
}

/// The XCP/RCP header of a raw IPv4 packet that is one of our data segments, for the routers of
/// the emulated link (XCP's and RCP's queues read H_cwnd and H_rtt and lower H_feedback).
pub fn explicit_of_ip(ip: &[u8]) -> Option<ExplicitHeader> {
    let o = explicit_offset(ip)?;
    let kind = if u32_at(ip, o + 16) == 1 {
        ExplicitKind::Xcp
    } else {
        ExplicitKind::Rcp
    };
    Some(ExplicitHeader {
        kind,
        cwnd: f32_at(ip, o + 20),
        rtt: f32_at(ip, o + 24),
        feedback: f32_at(ip, o + 28),
    })
}

/// Write a router's H_feedback back into a raw IPv4 packet of ours (in place) and clear its UDP
/// checksum (0 = none, which IPv4 allows, RFC 768; the IP header checksum is unchanged since the
/// IP header is). Returns whether the packet was one of ours with a header.
pub fn set_explicit_feedback(ip: &mut [u8], feedback: f32) -> bool {
    let Some(o) = explicit_offset(ip) else { return false };
    ip[o + 28..o + 32].copy_from_slice(&feedback.to_le_bytes());
    let ihl = (ip[0] & 0x0f) as usize * 4;
    ip[ihl + 6] = 0;
    ip[ihl + 7] = 0;
    true
}

/// The ECN codepoint of a TOS byte (its two low bits, RFC 3168 §5).
pub fn ecn_of_tos(tos: u8) -> Ecn {
    match tos & 3 {
        0 => Ecn::NotEct,
        1 => Ecn::Ect1,
        2 => Ecn::Ect0,
        _ => Ecn::Ce,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use accelbrake_sim::packet::{ACK_BYTES, MTU};

    #[test]
    fn a_full_segment_is_a_1500_byte_ip_packet_and_round_trips() {
        let mut p = Packet::data(0, 123_456, MTU, Ecn::Ect1, Time(987_654_321));
        p.cwr = true;
        p.feedback[0] = 3;
        let mut b = Vec::new();
        encode_data(&p, &mut b);
        assert_eq!(b.len() as u32 + IP_UDP_HEADER, 1500);
        let q = decode(&b, Ecn::Ect0, Time(5)).unwrap();
        assert_eq!(
            (q.seq, q.ts, q.size, q.cwr, q.feedback[0]),
            (123_456, p.ts, MTU, true, 3)
        );
        assert_eq!(q.ecn, Ecn::Ect0, "the codepoint is the IP header's, not the payload's");
        assert!(q.is_data() && q.explicit().is_none());
    }

    #[test]
    fn the_explicit_header_rides_in_the_payload() {
        let mut p = Packet::data(0, 7, MTU, Ecn::NotEct, Time(1));
        let h = ExplicitHeader {
            kind: ExplicitKind::Xcp,
            cwnd: 15_000.0,
            rtt: 0.1,
            feedback: -250.5,
        };
        p.set_explicit(h);
        let mut b = Vec::new();
        encode_data(&p, &mut b);
        assert_eq!(decode(&b, Ecn::NotEct, Time(0)).unwrap().explicit(), Some(h));
    }

    #[test]
    fn an_ack_is_52_bytes_plus_its_sack_blocks_and_round_trips() {
        let mut a = Packet::ack(0, 42, Echo::Brake, Time(11), Time(12));
        a.rx_ts = Time(13_000_000);
        let mut b = Vec::new();
        encode_ack(&a, &mut b);
        assert_eq!(b.len() as u32 + IP_UDP_HEADER, ACK_BYTES);
        for (n, fb) in [(0usize, true), (1, false), (3, true)] {
            let mut a = a;
            a.echo = [Echo::None, Echo::Accelerate, Echo::Brake, Echo::Ce][n];
            for k in 0..n {
                a.sack[k] = SackBlock {
                    start: 100 + 10 * k as u32,
                    end: 105 + 10 * k as u32,
                };
            }
            a.n_sack = n as u8;
            if fb {
                a.set_xfb(-12.5);
            }
            encode_ack(&a, &mut b);
            assert_eq!(b.len(), ACK_FIELDS + 8 * n + if fb { 6 } else { 0 });
            let q = decode(&b, Ecn::NotEct, Time(99)).unwrap();
            assert!(!q.is_data());
            assert_eq!(
                (q.seq, q.echo, q.ts, q.rx_ts, q.n_sack),
                (42, a.echo, Time(11), a.rx_ts, n as u8)
            );
            assert_eq!(q.sack_blocks(), a.sack_blocks());
            assert_eq!(q.feedback, a.feedback);
            if fb {
                assert_eq!(q.xfb(), -12.5);
            }
        }
    }

    #[test]
    fn routers_read_and_lower_the_explicit_header_in_the_raw_ip_packet() {
        let mut p = Packet::data(0, 7, MTU, Ecn::NotEct, Time(1));
        let h = ExplicitHeader {
            kind: ExplicitKind::Xcp,
            cwnd: 30_000.0,
            rtt: 0.12,
            feedback: 900.0,
        };
        p.set_explicit(h);
        let mut payload = Vec::new();
        encode_data(&p, &mut payload);
        let mut ip = vec![0u8; 28];
        ip[0] = 0x45;
        ip[9] = 17;
        ip[26] = 0x12; // a UDP checksum
        ip.extend_from_slice(&payload);
        assert_eq!(explicit_of_ip(&ip), Some(h));
        assert!(set_explicit_feedback(&mut ip, -40.0));
        assert_eq!(explicit_of_ip(&ip).unwrap().feedback, -40.0);
        assert_eq!(&ip[26..28], &[0, 0], "UDP checksum cleared (none)");
        assert_eq!(
            decode(&ip[28..], Ecn::NotEct, Time(0))
                .unwrap()
                .explicit()
                .unwrap()
                .feedback,
            -40.0
        );
        // Not ours / no header / TCP / a fragment: left alone.
        let mut tcp = ip.clone();
        tcp[9] = 6;
        assert!(explicit_of_ip(&tcp).is_none() && !set_explicit_feedback(&mut tcp, 1.0));
        let mut frag = ip.clone();
        frag[6] = 0x20;
        assert!(explicit_of_ip(&frag).is_none());
        let mut plain = Vec::new();
        encode_data(&Packet::data(0, 1, MTU, Ecn::NotEct, Time(1)), &mut plain);
        let mut ip2 = ip[..28].to_vec();
        ip2.extend_from_slice(&plain);
        assert!(explicit_of_ip(&ip2).is_none());
    }

    #[test]
    fn foreign_or_truncated_datagrams_are_refused() {
        let mut b = Vec::new();
        encode_ack(&Packet::ack(0, 1, Echo::None, Time(0), Time(0)), &mut b);
        assert!(decode(&b[..10], Ecn::NotEct, Time(0)).is_none());
        let mut bad = b.clone();
        bad[0] = 0;
        assert!(decode(&bad, Ecn::NotEct, Time(0)).is_none());
        let mut long = b.clone();
        long.push(0);
        assert!(
            decode(&long, Ecn::NotEct, Time(0)).is_none(),
            "length must match the flags"
        );
        assert!(decode(&[MAGIC; 40][..], Ecn::NotEct, Time(0)).is_none(), "unknown kind");
        assert_eq!(ecn_of_tos(0xb8 | 1), Ecn::Ect1);
        assert_eq!(ecn_of_tos(3), Ecn::Ce);
    }
}
