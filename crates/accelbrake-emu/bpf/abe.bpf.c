// SPDX-License-Identifier: GPL-2.0
/*
 * ABE, Alternative Backoff with ECN (RFC 8511; Khademi et al., "Alternative Backoff: Achieving Low
 * Latency and High Throughput with ECN and AQM", IFIP Networking 2017), on Linux's own Cubic or
 * Reno, as a BPF struct_ops TCP congestion control for `accelbrake emulate --scheme cubic-abe` /
 * `newreno-abe`. Built twice by build.rs: Cubic by default, Reno with -DABE_RENO.
 *
 * Everything but the ECN response is the kernel's: the window growth, the loss response, HyStart,
 * undo and PRR are tcp_cubic.c's / tcp_cong.c's (called as kfuncs) and tcp_input.c's. The only
 * change is RFC 8511 §3: when an ECN echo makes Linux enter CWR (tcp_enter_cwr), the slow-start
 * threshold PRR then reduces the window to is
 *     ssthresh = max(β_ecn · FlightSize, 2)
 * instead of the loss response's (Cubic: 717/1024 · cwnd; Reno: cwnd / 2). FlightSize is
 * `packets_out`, as the simulator's `cubic-abe` / `newreno-abe` take it (snd_nxt − snd_una).
 *
 * How CWR is told from loss: Linux asks `ssthresh` in tcp_init_cwnd_reduction for both, then calls
 * `set_state` with the state it enters (TCP_CA_CWR for an ECN echo, TCP_CA_Recovery for a loss)
 * before PRR takes its first step; set_state(CWR) replaces the threshold. The loss path and Cubic's
 * W_max update (cubictcp_recalc_ssthresh, which also runs on the ECN path) are untouched, as in
 * the simulator, where an ABE echo updates W_max "as for a loss".
 *
 * ECN is negotiated as for the kernel's own Cubic (net.ipv4.tcp_ecn = 1, which `emulate` sets for
 * these schemes), not by TCP_CONG_NEEDS_ECN: that flag puts ECT on the SYN, and a listener whose
 * congestion control does not need ECN then refuses ECN (tcp_ecn_create_request), so a classic
 * receiver would never echo a mark.
 *
 * Parameters (the `.rodata` block the loader fills from the simulator's registry):
 *   beta_ecn (1/1024), abe_slow_start (apply β_ecn when a mark ends slow start too; off: the loss
 *   β there, the RFC 8511 authors' reading), fast_convergence (Cubic only; the kernel's tcp_cubic
 *   module parameter is global, so "off" is applied here per connection by setting W_max back to
 *   the window the reduction started from, which is what tcp_cubic.c does when it is off).
 */
#include <linux/types.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

/* The kernel types touched, only the fields used; CO-RE relocates them against the running
 * kernel's BTF. */
struct sock {
	__u32 sk_pacing_status;
} __attribute__((preserve_access_index));

struct inet_connection_sock {
	__u8 icsk_ca_state : 5;
	__u64 icsk_ca_priv[13];
} __attribute__((preserve_access_index));

struct tcp_sock {
	__u32 snd_cwnd;
	__u32 snd_ssthresh;
	__u32 packets_out;
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
	__u32 (*undo_cwnd)(struct sock *sk);
	char name[16];
	__u32 flags;
	void (*init)(struct sock *sk);
} __attribute__((preserve_access_index));

/* include/net/tcp.h, include/net/inet_connection_sock.h */
#define TCP_CA_CWR 2
#define BETA_SCALE 1024 /* tcp_cubic.c BICTCP_BETA_SCALE; β_ecn is kept at this resolution */

/* Filled by the loader (crates/accelbrake-emu/src/bpf.rs `AbeConfig`, same field order). */
struct abe_config {
	__u32 beta_ecn_1024;    /* β_ecn · 1024, 1..1023 */
	__u32 abe_slow_start;   /* 0/1 */
	__u32 fast_convergence; /* 0/1, Cubic only */
};

const volatile struct abe_config cfg = {
	.beta_ecn_1024 = 870, /* ≈ 0.85, overwritten by the loader */
	.abe_slow_start = 1,
	.fast_convergence = 1,
};

/* icsk_ca_priv: the kernel Cubic's `struct bictcp` first (its kfuncs expect it there; 64 bytes
 * on Linux 6.x, `last_max_cwnd` its second u32), then ours. */
struct abe {
	__u32 bictcp[16];
	__u32 in_slow_start; /* the window was below ssthresh when the last reduction began */
	__u32 prior_cwnd;    /* ... and this large */
};

_Static_assert(sizeof(struct abe) <= 13 * 8, "icsk_ca_priv holds 104 bytes");

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline struct abe *ca_of(const struct sock *sk)
{
	return (struct abe *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* Before the loss response the kernel computes: remember where the reduction starts from. */
static inline void note_reduction(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abe *ca = ca_of(sk);

	ca->in_slow_start = tp->snd_cwnd < tp->snd_ssthresh;
	ca->prior_cwnd = tp->snd_cwnd;
}

/* set_state: on entering CWR (an ECN echo), RFC 8511's threshold replaces the loss one. */
static inline void abe_set_state(struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct abe *ca = ca_of(sk);
	__u8 old = BPF_CORE_READ_BITFIELD((struct inet_connection_sock *)sk, icsk_ca_state);
	__u64 s;

	if (new_state != TCP_CA_CWR || old >= TCP_CA_CWR)
		return;
	if (ca->in_slow_start && !cfg.abe_slow_start)
		return;
	s = (__u64)tp->packets_out * cfg.beta_ecn_1024 / BETA_SCALE;
	tp->snd_ssthresh = s > 2 ? (__u32)s : 2;
}

#ifndef ABE_RENO

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
enum tcp_ca_event { CA_EVENT_TX_START = 0 };
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
void BPF_PROG(abe_init, struct sock *sk)
{
	cubictcp_init(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(abe_ssthresh, struct sock *sk)
{
	struct abe *ca = ca_of(sk);
	__u32 s;

	note_reduction(sk);
	s = cubictcp_recalc_ssthresh(sk);
	/* tcp_cubic.c with fast_convergence = 0: last_max_cwnd = snd_cwnd. */
	if (!cfg.fast_convergence)
		ca->bictcp[1] = ca->prior_cwnd;
	return s;
}

SEC("struct_ops")
void BPF_PROG(abe_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(abe_state, struct sock *sk, __u8 new_state)
{
	abe_set_state(sk, new_state);
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(abe_cwnd_event, struct sock *sk, int ev)
{
	cubictcp_cwnd_event(sk, (enum tcp_ca_event)ev);
}

SEC("struct_ops")
void BPF_PROG(abe_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC("struct_ops")
__u32 BPF_PROG(abe_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops cubic_abe = {
	.init = (void *)abe_init,
	.ssthresh = (void *)abe_ssthresh,
	.cong_avoid = (void *)abe_cong_avoid,
	.set_state = (void *)abe_state,
	.cwnd_event = (void *)abe_cwnd_event,
	.pkts_acked = (void *)abe_acked,
	.undo_cwnd = (void *)abe_undo_cwnd,
	.name = "ABENAMEPLACEHLD",
};

#else /* ABE_RENO */

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
__u32 BPF_PROG(abe_ssthresh, struct sock *sk)
{
	note_reduction(sk);
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(abe_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(abe_state, struct sock *sk, __u8 new_state)
{
	abe_set_state(sk, new_state);
}

SEC("struct_ops")
__u32 BPF_PROG(abe_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops reno_abe = {
	.ssthresh = (void *)abe_ssthresh,
	.cong_avoid = (void *)abe_cong_avoid,
	.set_state = (void *)abe_state,
	.undo_cwnd = (void *)abe_undo_cwnd,
	.name = "ABENAMEPLACEHLD",
};

#endif
