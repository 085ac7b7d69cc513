// SPDX-License-Identifier: GPL-2.0
/*
 * ABC (Goyal et al., "ABC: A Simple Explicit Congestion Controller for Wireless Networks",
 * NSDI 2020) as a BPF struct_ops TCP congestion control, for `accelbrake emulate --scheme abc`.
 *
 * The same module runs at both ends of the connection:
 *
 * Sender (paper §3.1.1, §3.1.3 Eq. 3; the ABC authors' tcp_abc.c; our simulator's
 * crates/accelbrake-sim/src/cc/abc.rs, whose rules and registry defaults this follows):
 *   on every ACK that newly delivers n segments (rate sample `acked_sacked`, SACKed included)
 *     w <- w - n  if the ACK carries ECE (brake), w <- w + n otherwise (accelerate),
 *     w <- w + 1/w (additive increase, once per ACK; n/w with ai_per_segment),
 *     w <- max(w, min_window);  snd_cwnd = floor(w);
 *   pacing rate = pacing_gain * w * MTU / RTT, RTT = the latest RTT sample.
 *   No slow start, no loss response: `cong_control` is defined, so the kernel runs neither PRR nor
 *   its own window/pacing updates, and ssthresh stays infinite (as tcp_abc.c).
 *
 * Marks on the wire (the ABC authors' Mahimahi router and kernel module): accelerate = the ECT
 * codepoint the sender set, left unchanged; brake = CE. The emulator translates our ABC router's
 * accelerate/brake into these (crates/accelbrake-emu/src/direction.rs, `Marks::Ce`).
 *
 * Receiver: the per-packet echo of DCTCP's receiver (RFC 8257 §3.2, Linux tcp_dctcp.h): every ACK's
 * ECE bit is the CE state of the segments it covers (not RFC 3168's latched ECE). When the CE state
 * of arriving data changes while a delayed ACK is pending, that ACK is sent first with the old
 * state, then an immediate ACK follows with the new one.
 *
 * Fixed point: windows in units of 1/65536 segment (no floating point in BPF). The shared parts
 * are in abc.h; abc_cubic.bpf.c is the §4.1 variant.
 */
#include "abc.h"

char _license[] SEC("license") = "GPL";

static inline struct abc *abc_of(const struct sock *sk)
{
	return (struct abc *)inet_csk(sk)->icsk_ca_priv;
}

SEC("struct_ops")
void BPF_PROG(abc_init, struct sock *sk)
{
	struct abc *ca = abc_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	abc_start(sk, ca);
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd = (__u32)(ca->w >> FP_SHIFT);
}

SEC("struct_ops")
void BPF_PROG(abc_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct abc *ca = abc_of(sk);
	long rtt = rs->rtt_us;

	if (rtt > 0)
		ca->rtt_us = (__u32)rtt;
	if (rs->acked_sacked == 0)
		return;
	abc_update(ca, rs->acked_sacked, flag & FLAG_ECE);
	tcp_sk(sk)->snd_cwnd = (__u32)(ca->w >> FP_SHIFT);
	abc_pace(sk, ca, ca->w);
}

SEC("struct_ops")
void BPF_PROG(abc_cwnd_event, struct sock *sk, int ev)
{
	abc_echo(sk, abc_of(sk), ev);
}

SEC("struct_ops")
__u32 BPF_PROG(abc_ssthresh, struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH; /* tcp_abc.c: no multiplicative decrease */
}

SEC("struct_ops")
__u32 BPF_PROG(abc_undo_cwnd, struct sock *sk)
{
	return (__u32)(abc_of(sk)->w >> FP_SHIFT);
}

/* The name is a 15-character placeholder the loader overwrites ("abc", or "abc_<pid>" when
 * another process has registered "abc"). */
SEC(".struct_ops")
struct tcp_congestion_ops abc = {
	.init = (void *)abc_init,
	.cong_control = (void *)abc_cong_control,
	.cwnd_event = (void *)abc_cwnd_event,
	.ssthresh = (void *)abc_ssthresh,
	.undo_cwnd = (void *)abc_undo_cwnd,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "ABCNAMEPLACEHLD",
};
