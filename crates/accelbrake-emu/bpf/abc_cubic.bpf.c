// SPDX-License-Identifier: GPL-2.0
/*
 * ABC with a Cubic window (ABC paper §4.1; the authors' tcp_abccubic.c; our simulator's
 * `abc-cubic`, crates/accelbrake-sim/src/cc/abc.rs `AbcCubic`) as a BPF struct_ops TCP congestion
 * control, for `accelbrake emulate --scheme abc-cubic`.
 *
 * Two windows: w_abc follows ABC's accelerate/brake rule (abc.h, as abc.bpf.c), w_cubic is Linux's
 * own Cubic, run through the kernel's cubictcp_* kfuncs on w_cubic swapped into snd_cwnd around
 * each call; the connection sends by min(w_abc, w_cubic) and paces at gain·min/RTT.
 *   - Cubic grows (cubictcp_cong_avoid, slow start then the cubic curve) on every ACK outside loss
 *     recovery; ABC's brakes (ECE, which also puts Linux into its CWR state) do not touch it.
 *   - Loss: entering Recovery applies Cubic's multiplicative decrease to w_cubic only
 *     (cubictcp_recalc_ssthresh: β = 717/1024, fast convergence); an RTO (Loss) does the same,
 *     resets Cubic (cubictcp_state) and restarts w_cubic at 1 segment.
 *   - When the connection is cwnd-limited, and after a loss, both windows are capped at
 *     2 × packets in flight (not below abc.min_window) so the one not in control cannot run away
 *     (§4.1; the artifact uses 2 × in-flight + 5, the simulator 2 × in-flight).
 * Brakes are CE on the wire, as for abc.bpf.c: like tcp_abccubic.c, ECE is read as brake only and
 * no legacy-ECN reaction exists here (the simulator's w_cubic also reacts to legacy CE, which the
 * kernel encoding cannot tell from a brake).
 * Deviation: no undo of a spurious loss response (undo_cwnd keeps the window).
 */
#include "abc.h"

char _license[] SEC("license") = "GPL";

enum tcp_ca_event { CA_EVENT_TX_START = 0 };

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;

/* icsk_ca_priv: Cubic's own state first (struct bictcp, 64 bytes on Linux 6.x, where the kfuncs
 * expect it), then ours. */
struct abc_cubic {
	__u64 cubic[8];
	struct abc abc;
	__u32 w_cubic; /* segments */
};

_Static_assert(sizeof(struct abc_cubic) <= 13 * 8, "icsk_ca_priv holds 104 bytes");

static inline struct abc_cubic *ca_of(const struct sock *sk)
{
	return (struct abc_cubic *)inet_csk(sk)->icsk_ca_priv;
}

static inline __u32 in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* Both windows at most 2 × in flight (not below min_window). */
static inline void cap(struct abc_cubic *ca, __u32 flight)
{
	__u64 c = 2ULL * flight;
	__u64 min_w = cfg.min_window_fp >> FP_SHIFT;

	if (c < min_w)
		c = min_w;
	if (ca->abc.w > (c << FP_SHIFT))
		ca->abc.w = c << FP_SHIFT;
	if (ca->w_cubic > c)
		ca->w_cubic = (__u32)c;
}

static inline void apply(struct sock *sk, struct abc_cubic *ca)
{
	__u64 w = ca->abc.w;
	__u64 wc = (__u64)ca->w_cubic << FP_SHIFT;

	if (wc < w)
		w = wc;
	if (w < FP_ONE)
		w = FP_ONE;
	tcp_sk(sk)->snd_cwnd = (__u32)(w >> FP_SHIFT);
	abc_pace(sk, &ca->abc, w);
}

SEC("struct_ops")
void BPF_PROG(abcc_init, struct sock *sk)
{
	struct abc_cubic *ca = ca_of(sk);

	cubictcp_init(sk);
	abc_start(sk, &ca->abc);
	ca->w_cubic = tcp_sk(sk)->snd_cwnd; /* Linux's initial window (10), as tcp_abccubic.c */
	apply(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(abcc_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct abc_cubic *ca = ca_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	long rtt = rs->rtt_us;
	__u32 n = rs->acked_sacked;

	if (rtt > 0)
		ca->abc.rtt_us = (__u32)rtt;
	if (n == 0)
		return;
	abc_update(&ca->abc, n, flag & FLAG_ECE);
	if (BPF_CORE_READ_BITFIELD(inet_csk(sk), icsk_ca_state) < TCP_CA_RECOVERY) {
		tp->snd_cwnd = ca->w_cubic;
		cubictcp_cong_avoid(sk, ack, n);
		ca->w_cubic = tp->snd_cwnd;
	}
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		cap(ca, in_flight(tp));
	apply(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(abcc_set_state, struct sock *sk, __u8 new_state)
{
	struct abc_cubic *ca = ca_of(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u8 old = BPF_CORE_READ_BITFIELD(inet_csk(sk), icsk_ca_state);
	__u32 saved = tp->snd_cwnd, s;

	if ((new_state != TCP_CA_RECOVERY && new_state != TCP_CA_LOSS) || old >= TCP_CA_RECOVERY)
		return;
	tp->snd_cwnd = ca->w_cubic;
	s = cubictcp_recalc_ssthresh(sk);
	tp->snd_ssthresh = s;
	if (new_state == TCP_CA_LOSS) {
		cubictcp_state(sk, new_state);
		ca->w_cubic = 1;
	} else {
		ca->w_cubic = s;
	}
	tp->snd_cwnd = saved;
	cap(ca, in_flight(tp));
	apply(sk, ca);
}

SEC("struct_ops")
void BPF_PROG(abcc_cwnd_event, struct sock *sk, int ev)
{
	abc_echo(sk, &ca_of(sk)->abc, ev);
	if (ev == CA_EVENT_TX_START)
		cubictcp_cwnd_event(sk, CA_EVENT_TX_START);
}

SEC("struct_ops")
void BPF_PROG(abcc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC("struct_ops")
__u32 BPF_PROG(abcc_ssthresh, struct sock *sk)
{
	/* Unchanged: Linux also asks on entering CWR (an ECE, here ABC's brake), which must not cut
	 * w_cubic; the loss response is in set_state. */
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(abcc_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops abc_cubic = {
	.init = (void *)abcc_init,
	.cong_control = (void *)abcc_cong_control,
	.set_state = (void *)abcc_set_state,
	.cwnd_event = (void *)abcc_cwnd_event,
	.pkts_acked = (void *)abcc_pkts_acked,
	.ssthresh = (void *)abcc_ssthresh,
	.undo_cwnd = (void *)abcc_undo_cwnd,
	.flags = TCP_CONG_NEEDS_ECN,
	.name = "ABCNAMEPLACEHLD",
};
