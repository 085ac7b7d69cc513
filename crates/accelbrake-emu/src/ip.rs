//! IP header access for the emulated link: the ECN codepoint of IPv4 and IPv6 packets, and its
//! rewrite with an incremental IPv4 header-checksum update (RFC 1624, eqn. 3).
//!
//! Pure functions on byte slices (no OS access), so they are tested on every platform.

use accelbrake_sim::packet::Ecn;

/// The ECN codepoint of a raw IP packet (IPv4: low two bits of the TOS byte, RFC 3168 §5; IPv6:
/// low two bits of the traffic class), or `None` if it is not a well-formed IPv4/IPv6 header.
pub fn ecn_of(pkt: &[u8]) -> Option<Ecn> {
    let bits = match version(pkt)? {
        4 => pkt[1] & 0b11,
        _ => (pkt[1] >> 4) & 0b11,
    };
    Some(match bits {
        0b00 => Ecn::NotEct,
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        _ => Ecn::Ce,
    })
}

/// 4 or 6 if `pkt` starts with a complete header of that version (IPv4: 20 bytes or the IHL,
/// whichever is larger; IPv6: 40 bytes).
fn version(pkt: &[u8]) -> Option<u8> {
    let v = pkt.first()? >> 4;
    match v {
        4 => {
            let ihl = (pkt[0] & 0x0f) as usize * 4;
            (ihl >= 20 && pkt.len() >= ihl).then_some(4)
        }
        6 => (pkt.len() >= 40).then_some(6),
        _ => None,
    }
}

/// One's-complement 16-bit addition (RFC 1071).
fn ones_add(a: u16, b: u16) -> u16 {
    let s = a as u32 + b as u32;
    ((s & 0xffff) + (s >> 16)) as u16
}

/// The IPv4 header checksum computed from scratch (RFC 791: the one's complement of the
/// one's-complement sum of the header's 16-bit words, the checksum field taken as 0). For tests
/// and for checking a rewrite.
pub fn ipv4_header_checksum(hdr: &[u8]) -> u16 {
    let ihl = (hdr[0] & 0x0f) as usize * 4;
    let mut sum = 0u16;
    for i in (0..ihl).step_by(2) {
        if i == 10 {
            continue;
        }
        sum = ones_add(sum, u16::from_be_bytes([hdr[i], hdr[i + 1]]));
    }
    !sum
}

/// Set the ECN codepoint of a raw IP packet in place. IPv4's header checksum is updated
/// incrementally, `HC' = ~(~HC + ~m + m')` (RFC 1624 eqn. 3, which, unlike RFC 1141's eqn. 2, never
/// produces the -0 form 0xffff... from a header whose sum is +0), m and m' being the old and new 16-bit
/// word holding the TOS byte. Returns `false` (and leaves the packet alone) if it is not IPv4/IPv6.
pub fn set_ecn(pkt: &mut [u8], ecn: Ecn) -> bool {
    match version(pkt) {
        Some(4) => {
            let old = u16::from_be_bytes([pkt[0], pkt[1]]);
            pkt[1] = (pkt[1] & !0b11) | ecn as u8;
            let new = u16::from_be_bytes([pkt[0], pkt[1]]);
            let hc = u16::from_be_bytes([pkt[10], pkt[11]]);
            let hc2 = !ones_add(ones_add(!hc, !old), new);
            pkt[10..12].copy_from_slice(&hc2.to_be_bytes());
            true
        }
        Some(_) => {
            pkt[1] = (pkt[1] & !0b0011_0000) | ((ecn as u8) << 4);
            true
        }
        None => false,
    }
}

/// The TCP header fields the per-packet table keeps, for checking an echo packet by packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSeg {
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Flags byte (CWR 0x80, ECE 0x40, URG, ACK 0x10, PSH, RST, SYN, FIN).
    pub flags: u8,
    /// Payload bytes.
    pub payload: u32,
}

/// TCP ECE flag (RFC 3168 §6.1).
pub const TCP_ECE: u8 = 0x40;
/// TCP CWR flag.
pub const TCP_CWR: u8 = 0x80;

/// The TCP header of an IPv4 packet (first fragment, complete header), or `None`.
pub fn tcp_of(pkt: &[u8]) -> Option<TcpSeg> {
    if version(pkt)? != 4 || pkt[9] != 6 {
        return None;
    }
    let frag = u16::from_be_bytes([pkt[6], pkt[7]]) & 0x1fff;
    let ihl = (pkt[0] & 0x0f) as usize * 4;
    let total = (u16::from_be_bytes([pkt[2], pkt[3]]) as usize).min(pkt.len());
    let t = pkt.get(ihl..total)?;
    if frag != 0 || t.len() < 20 {
        return None;
    }
    let doff = (t[12] >> 4) as usize * 4;
    if doff < 20 || doff > t.len() {
        return None;
    }
    Some(TcpSeg {
        seq: u32::from_be_bytes([t[4], t[5], t[6], t[7]]),
        ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
        flags: t[13],
        payload: (t.len() - doff) as u32,
    })
}

/// IP protocol number of TCP.
pub const PROTO_TCP: u8 = 6;
/// IP protocol number of UDP.
pub const PROTO_UDP: u8 = 17;

/// The transport ports of a packet: what tells the flows of a multi-flow `emulate` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ports {
    /// IP protocol ([`PROTO_TCP`], [`PROTO_UDP`]).
    pub proto: u8,
    /// Source port.
    pub src: u16,
    /// Destination port.
    pub dst: u16,
}

/// The protocol and ports of a TCP or UDP packet over IPv4 (first fragment, with at least the
/// four port bytes), or `None`.
pub fn ports_of(pkt: &[u8]) -> Option<Ports> {
    if version(pkt)? != 4 || !matches!(pkt[9], PROTO_TCP | PROTO_UDP) {
        return None;
    }
    if u16::from_be_bytes([pkt[6], pkt[7]]) & 0x1fff != 0 {
        return None;
    }
    let ihl = (pkt[0] & 0x0f) as usize * 4;
    let t = pkt.get(ihl..ihl + 4)?;
    Some(Ports {
        proto: pkt[9],
        src: u16::from_be_bytes([t[0], t[1]]),
        dst: u16::from_be_bytes([t[2], t[3]]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20-byte IPv4 header (a real TCP segment from 10.64.0.2 to 10.64.0.1) with its checksum.
    fn header(tos: u8) -> Vec<u8> {
        let mut h = vec![
            0x45, tos, 0x05, 0xdc, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06, 0, 0, 10, 64, 0, 2, 10, 64, 0, 1,
        ];
        let c = ipv4_header_checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        h
    }

    const ALL: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];

    #[test]
    fn reads_the_ecn_bits_of_ipv4_and_ipv6() {
        for (i, e) in ALL.iter().enumerate() {
            assert_eq!(ecn_of(&header(0xb8 | i as u8)), Some(*e));
            let mut v6 = vec![0u8; 40];
            v6[0] = 0x6b; // traffic class 0xb?: DSCP bits around the ECN field
            v6[1] = 0x80 | ((i as u8) << 4) | 0x05;
            assert_eq!(ecn_of(&v6), Some(*e));
        }
        assert_eq!(ecn_of(&[0x45, 0, 0]), None, "truncated IPv4");
        assert_eq!(ecn_of(&[0x20; 60]), None, "not IP");
        assert_eq!(ecn_of(&[]), None);
    }

    #[test]
    fn rewrite_keeps_the_ipv4_checksum_valid_and_the_dscp() {
        for from in ALL {
            for to in ALL {
                let mut h = header(0xb8 | from as u8);
                assert!(set_ecn(&mut h, to));
                assert_eq!(ecn_of(&h), Some(to));
                assert_eq!(h[1] & !0b11, 0xb8, "DSCP untouched");
                let stored = u16::from_be_bytes([h[10], h[11]]);
                assert_eq!(stored, ipv4_header_checksum(&h), "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn incremental_update_equals_a_full_recompute_on_many_headers() {
        // Deterministic pseudo-random headers (64-bit LCG, Knuth MMIX constants), then the corner case of RFC 1624 §3.
        let mut x: u64 = 1;
        for _ in 0..20_000 {
            let mut h = vec![0u8; 20];
            for b in h.iter_mut() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *b = (x >> 56) as u8;
            }
            h[0] = 0x45;
            let c = ipv4_header_checksum(&h);
            h[10..12].copy_from_slice(&c.to_be_bytes());
            let to = ALL[(x >> 20) as usize % 4];
            set_ecn(&mut h, to);
            assert_eq!(u16::from_be_bytes([h[10], h[11]]), ipv4_header_checksum(&h));
        }
        // Force the corner: make the header's checksum come out as 0x0000 before the rewrite.
        let mut h = header(0x01);
        let c = ipv4_header_checksum(&h);
        // Adjust the identification field so that the checksum becomes 0.
        let id = u16::from_be_bytes([h[4], h[5]]);
        let id2 = ones_add(id, c);
        h[4..6].copy_from_slice(&id2.to_be_bytes());
        let c = ipv4_header_checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(c, 0, "the constructed header has checksum 0x0000");
        set_ecn(&mut h, Ecn::Ect0);
        assert_eq!(u16::from_be_bytes([h[10], h[11]]), ipv4_header_checksum(&h));
    }

    #[test]
    fn ipv6_rewrite_touches_only_the_ecn_bits_and_non_ip_is_left_alone() {
        let mut v6 = vec![0u8; 40];
        v6[0] = 0x6b;
        v6[1] = 0xa5;
        assert!(set_ecn(&mut v6, Ecn::Ce));
        assert_eq!((v6[0], v6[1]), (0x6b, 0xb5));
        let mut junk = vec![0x11u8; 30];
        assert!(!set_ecn(&mut junk, Ecn::Ce));
        assert_eq!(junk, vec![0x11u8; 30]);
    }

    #[test]
    fn reads_the_tcp_fields_of_an_ipv4_segment() {
        let mut p = header(0xb8 | 0b10);
        p[2..4].copy_from_slice(&(20u16 + 20 + 100).to_be_bytes());
        let mut t = vec![0u8; 20];
        t[4..8].copy_from_slice(&1000u32.to_be_bytes());
        t[8..12].copy_from_slice(&77u32.to_be_bytes());
        t[12] = 5 << 4;
        t[13] = TCP_ECE | 0x10;
        p.extend_from_slice(&t);
        p.extend_from_slice(&[0u8; 100]);
        let s = tcp_of(&p).unwrap();
        assert_eq!((s.seq, s.ack, s.flags, s.payload), (1000, 77, 0x50, 100));
        p[9] = 17; // UDP
        assert_eq!(tcp_of(&p), None);
        assert_eq!(tcp_of(&p[..30]), None, "truncated");
    }

    #[test]
    fn reads_the_ports_of_tcp_and_udp_over_ipv4_only() {
        let mut p = header(0);
        p.extend_from_slice(&[0x14, 0x51, 0xc3, 0x50, 0, 0, 0, 0]); // 5201 -> 50000
        let tcp = Ports {
            proto: PROTO_TCP,
            src: 5201,
            dst: 50000,
        };
        assert_eq!(ports_of(&p), Some(tcp));
        p[9] = PROTO_UDP;
        assert_eq!(
            ports_of(&p),
            Some(Ports {
                proto: PROTO_UDP,
                ..tcp
            })
        );
        assert_eq!(ports_of(&p[..23]), None, "ports cut off");
        p[9] = 1; // ICMP
        assert_eq!(ports_of(&p), None);
        p[9] = PROTO_UDP;
        p[7] = 0x10; // a later fragment: no transport header
        assert_eq!(ports_of(&p), None);
        p[7] = 0;
        p[0] = 0x46; // IHL 24: the ports move by 4 bytes
        p.splice(20..20, [0u8; 4]);
        assert_eq!(
            ports_of(&p),
            Some(Ports {
                proto: PROTO_UDP,
                ..tcp
            })
        );
        let mut v6 = vec![0u8; 48];
        v6[0] = 0x60;
        assert_eq!(ports_of(&v6), None, "IPv6 is not split into flows");
    }
}
