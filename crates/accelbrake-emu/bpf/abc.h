/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two ABC congestion controls (abc.bpf.c, abc_cubic.bpf.c) share: the kernel types they
 * touch, the configuration block the loader fills from the simulator's registry, the ABC window
 * rule and pacing, and the receiver's per-packet echo. See abc.bpf.c for the algorithm.
 */
#ifndef ACCELBRAKE_ABC_H
#define ACCELBRAKE_ABC_H

#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* The kernel types we touch, only the fields used; CO-RE relocates them against the running
 * kernel's BTF (so no vmlinux.h is needed to build). */
struct sock {
	unsigned long sk_pacing_rate;
	__u32 sk_pacing_status;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	__u8 icsk_ca_state : 5;
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
	__u32 packets_out;
	__u32 sacked_out;
	__u32 lost_out;
	__u32 retrans_out;
	__u8 is_cwnd_limited : 1;
} __attribute__((preserve_access_index));

struct rate_sample {
	long rtt_us;
	__u32 acked_sacked;
} __attribute__((preserve_access_index));

struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
} __attribute__((preserve_access_index));

struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, int ev);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
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
#define TCP_CA_CWR 2
#define TCP_CA_RECOVERY 3
#define TCP_CA_LOSS 4

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

/* Per-connection ABC state (in icsk_ca_priv, 104 bytes in all). */
struct abc {
	__u64 w;             /* w_abc, fixed point */
	__u32 rtt_us;        /* latest RTT sample, 0 before the first */
	__u32 prior_rcv_nxt; /* receiver: rcv_nxt when the CE state was last updated */
	__u32 ce_state;      /* receiver: CE state of the last data segment */
};

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static inline void abc_start(struct sock *sk, struct abc *ca)
{
	ca->w = cfg.initial_window_fp;
	ca->rtt_us = 0;
	ca->prior_rcv_nxt = tcp_sk(sk)->rcv_nxt;
	ca->ce_state = 0;
	/* TCP paces by itself at sk_pacing_rate (still ~0 = unlimited until the first RTT sample). */
	sk->sk_pacing_status = SK_PACING_NEEDED;
}

/* The ABC window rule for an ACK newly delivering `n` segments, `ece`: brake. */
static inline void abc_update(struct abc *ca, __u64 n, bool ece)
{
	__u64 w = ca->w;

	if (n == 0)
		return;
	if (n > 65535)
		n = 65535;
	if (ece)
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
}

/* Pacing at gain·w·MTU/RTT bytes/s for window `w` (fixed point). */
static inline void abc_pace(struct sock *sk, const struct abc *ca, __u64 w)
{
	if (cfg.pacing_gain_fp && ca->rtt_us) {
		/* (w·gain >> 16) · MTU · 1e6 / rtt >> 16, with 1e6 = 15625·64. */
		__u64 wg = (w * cfg.pacing_gain_fp) >> FP_SHIFT;
		sk->sk_pacing_rate = (wg * cfg.mtu * 15625 / ca->rtt_us) >> (FP_SHIFT - 6);
	}
}

static inline void abc_demand_cwr(struct tcp_sock *tp, __u32 state)
{
	if (state)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/* Receiver: keep each ACK's ECE equal to the CE state of the data it acknowledges. */
static inline void abc_echo(struct sock *sk, struct abc *ca, int ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct inet_connection_sock *icsk = inet_csk(sk);
	__u32 new_state;

	if (ev == CA_EVENT_ECN_IS_CE)
		new_state = 1;
	else if (ev == CA_EVENT_ECN_NO_CE)
		new_state = 0;
	else
		return;
	if (ca->ce_state != new_state) {
		if (icsk->icsk_ack.pending & ICSK_ACK_TIMER) {
			/* The delayed ACK covers data of the old state: send it now, with the old ECE. */
			abc_demand_cwr(tp, ca->ce_state);
			bpf_tcp_send_ack(tp, ca->prior_rcv_nxt);
		}
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	}
	ca->prior_rcv_nxt = tp->rcv_nxt;
	ca->ce_state = new_state;
	abc_demand_cwr(tp, new_state);
}

#endif
