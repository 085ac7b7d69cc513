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
 * Fixed point: windows in units of 1/65536 segment (no floating point in BPF).
 */
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* The kernel types we touch, only the fields used; CO-RE relocates them against the running
 * kernel's BTF (so no vmlinux.h is needed to build). */
struct sock {
	unsigned long sk_pacing_rate;
	__u32 sk_pacing_status;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	struct {
		__u8 pending;
	} icsk_ack;
	__u64 icsk_ca_priv[13];
} __attribute__((preserve_access_index));

struct tcp_sock {
	__u32 snd_cwnd;
	__u32 snd_ssthresh;
	__u32 rcv_nxt;
	__u8 ecn_flags;
} __attribute__((preserve_access_index));

struct rate_sample {
	long rtt_us;
	__u32 acked_sacked;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cwnd_event)(struct sock *sk, int ev);
	void (*cong_control)(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs);
	__u32 (*undo_cwnd)(struct sock *sk);
	char name[16];
	__u32 flags;
	void (*init)(struct sock *sk);
} __attribute__((preserve_access_index));

/* Kernel constants (include/net/tcp.h, net/ipv4/tcp_input.c, include/net/inet_connection_sock.h). */
#define TCP_CONG_NEEDS_ECN 0x2      /* the CA wants ECT on its data and CE events */
#define TCP_ECN_DEMAND_CWR 0x4      /* receiver: set ECE on outgoing ACKs */
#define FLAG_ECE 0x40               /* tcp_ack() flag: this ACK carries ECE */
#define ICSK_ACK_TIMER 2            /* a delayed ACK is scheduled */
#define ICSK_ACK_NOW 16             /* send an ACK at once */
#define CA_EVENT_ECN_NO_CE 4        /* data arrived with ECT, not CE */
#define CA_EVENT_ECN_IS_CE 5        /* data arrived with CE */
#define SK_PACING_NEEDED 1          /* TCP's internal pacing (no fq qdisc needed) */
#define TCP_INFINITE_SSTHRESH 0x7fffffff

#define FP_SHIFT 16
#define FP_ONE (1ULL << FP_SHIFT)
#define W_MAX (65535ULL << FP_SHIFT) /* keeps every product below 2^64 */

/* Set by the loader from the simulator's registry (`accelbrake params abc`) before loading. */
struct abc_config {
	__u32 initial_window_fp; /* abc.initial_window, 1/65536 segments */
	__u32 min_window_fp;     /* abc.min_window */
	__u32 additive_increase; /* abc.additive_increase (0/1) */
	__u32 ai_per_segment;    /* abc.ai_per_segment (0/1) */
	__u32 pacing_gain_fp;    /* abc.pacing_gain, 1/65536 */
	__u32 mtu;               /* bytes per segment in the pacing rate (simulator: MTU = 1500) */
};

const volatile struct abc_config cfg = {
	.initial_window_fp = 10 << FP_SHIFT,
	.min_window_fp = 6 << FP_SHIFT,
	.additive_increase = 1,
	.ai_per_segment = 0,
	.pacing_gain_fp = 2 << FP_SHIFT,
	.mtu = 1500,
};

/* Per-connection state, in icsk_ca_priv (at most 104 bytes). */
struct abc {
	__u64 w;            /* w_abc, fixed point */
	__u32 rtt_us;       /* latest RTT sample, 0 before the first */
	__u32 prior_rcv_nxt;/* receiver: rcv_nxt when the CE state was last updated */
	__u32 ce_state;     /* receiver: CE state of the last data segment */
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline struct abc *abc_of(const struct sock *sk)
{
	return (struct abc *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

SEC("struct_ops")
void BPF_PROG(abc_init, struct sock *sk)
{
	struct abc *ca = abc_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ca->w = cfg.initial_window_fp;
	ca->rtt_us = 0;
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = 0;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	tp->snd_cwnd = (__u32)(ca->w >> FP_SHIFT);
	/* TCP paces by itself at sk_pacing_rate (still ~0 = unlimited until the first RTT sample). */
	sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
void BPF_PROG(abc_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct abc *ca = abc_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 n = rs->acked_sacked;
	__u64 w = ca->w;
	long rtt = rs->rtt_us;

	if (rtt > 0)
		ca->rtt_us = (__u32)rtt;
	if (n == 0)
		return;
	if (n > 65535)
		n = 65535;
	if (flag & FLAG_ECE)
		w = w > (n << FP_SHIFT) ? w - (n << FP_SHIFT) : 0; /* brake */
	else
		w += n << FP_SHIFT; /* accelerate */
	if (cfg.additive_increase) {
		__u64 per_ack = cfg.ai_per_segment ? n : 1;
		__u64 wd = w > FP_ONE ? w : FP_ONE; /* as max(w, 1) */
		w += (per_ack << (2 * FP_SHIFT)) / wd;
	}
	if (w < cfg.min_window_fp)
		w = cfg.min_window_fp;
	if (w > W_MAX)
		w = W_MAX;
	ca->w = w;
	tp->snd_cwnd = (__u32)(w >> FP_SHIFT);
	if (cfg.pacing_gain_fp && ca->rtt_us) {
		/* gain·w·MTU/RTT bytes/s: (w·gain >> 16) · MTU · 1e6 / rtt >> 16, 1e6 = 15625·64. */
		__u64 wg = (w * cfg.pacing_gain_fp) >> FP_SHIFT;
		__u64 rate = (wg * cfg.mtu * 15625 / ca->rtt_us) >> (FP_SHIFT - 6);
		sk->sk_pacing_rate = rate;
	}
}

/* Receiver: keep each ACK's ECE equal to the CE state of the data it acknowledges. */
static void abc_echo(struct sock *sk, __u32 new_state)
{
	struct abc *ca = abc_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	struct inet_connection_sock *icsk = (struct inet_connection_sock *)sk;

	if (ca->ce_state != new_state) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			/* The delayed ACK covers data of the old state: send it now, with the old ECE. */
			if (ca->ce_state)
				tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
			else
				tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
			bpf_tcp_send_ack(tp, ca->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = new_state;
	if (new_state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

SEC("struct_ops")
void BPF_PROG(abc_cwnd_event, struct sock *sk, int ev)
{
	if (ev == CA_EVENT_ECN_IS_CE)
		abc_echo(sk, 1);
	else if (ev == CA_EVENT_ECN_NO_CE)
		abc_echo(sk, 0);
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
