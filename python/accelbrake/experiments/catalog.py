"""The named reproductions (``accelbrake reproduce ID``): ids, titles and the blocks not available
yet. Light on purpose (no pandas, no matplotlib), so the command line can list them in its help;
the experiments themselves are in :mod:`accelbrake.experiments.reproduce`.
"""

from __future__ import annotations

__all__ = ["TITLES", "UNAVAILABLE"]

#: Reproduction id → one-line title, in the order they are listed and run by ``reproduce all``.
TITLES: dict[str, str] = {
    "c2tcp-table1": "C2TCP Table I: throughput and queueing delay normalised to C2TCP, averaged over "
    "the paper's traces (NYC 6 of 8 scenarios + Boston Mahimahi 5 of 6)",
    "abc-table": "headline table: averages over the paper's traces (5 of 8) normalised to ABC",
    "abc-table-robustness": "headline table on 6 other cellular traces (not the paper's; no comparison)",
    "abc-fig7": "utilisation vs p95 delay on Verizon LTE, (a) downlink, (b) uplink",
    "abc-fig1": "Cubic, Verus, Cubic+CoDel and ABC over time on a Verizon LTE trace (Fig. 1's claims)",
    "abc-fig8": "per-trace utilisation and delay over the paper's traces, 5 of 8 (and fig 17's mean delay)",
    "abc-fig19": "capacity alternating 12/24 Mbit/s every 500 ms (ABC, XCP_w, RCP; XCP, VCP shown)",
    "abc-fig18": "explicit schemes (XCP, XCP_w, RCP, VCP) vs ABC over the paper's traces (5 of 8)",
    "abc-pk": "PK-ABC (μ from the trace one RTT ahead) vs ABC on Fig. 7b's setup",
    "abc-fig3": "5 ABC flows joining and leaving: fairness with and without additive increase",
    "abc-fairness": "2-32 ABC flows on 24 Mbit/s: Jain index",
    "abc-fig12": "RTT unfairness: two flows, flow 1 RTT 20-120 ms, flow 2 RTT 20 ms",
    "abc-table1": "RTT unfairness: six flows with RTT 20/40/60/80/100/120 ms",
    "abc-fig21": "propagation RTT 20, 50, 100, 200 ms on a Verizon trace",
    "abc-fig5": "Wi-Fi: inter-ACK time vs A-MPDU batch size, slope S/R",
    "abc-fig6": "Wi-Fi: ABC's link-rate estimate vs true capacity at several sending rates and MCS values",
    "abc-fig9": "Wi-Fi, MCS 1 <-> 7 every 2 s: throughput and p95 delay, one user and two users on one FIFO",
    "abc-fig16": "Wi-Fi, Brownian MCS in [3, 7]: throughput and p95 delay, one user",
    "abc-fig15": "η trades throughput for delay",
    # ABC beside other traffic.
    "abc-fig13": "3 ABC + 3 Cubic long flows and Poisson 10 KB Cubic short flows on 96 Mbit/s: the "
    "coexistence router vs one shared ABC queue",
    "abc-fig11": "1-16 ABC flows on a Verizon trace: utilisation and p95 delay (and why the delay grows)",
    "abc-fig20": "a backlogged ABC flow beside 200 application-limited ABC flows",
    "c2tcp-friendliness": "C2TCP, Cubic, Westwood and BBR joining a Cubic flow after 30 s "
    "(C2TCP Figs. 16-17)",
    "abc-fig10": "an ABC wireless hop in series with a 12 Mbit/s wired drop-tail hop and on-off Cubic "
    "cross traffic",
    # Results computed elsewhere before (Rust tests, scripts, by hand): accelbrake.experiments.elsewhere.
    "abc-fig2": "f(t) from the enqueue rate instead of the dequeue rate: p95 queueing delay",
    "abc-fig4": "ABC wireless hop in series with a wired drop-tail hop: w_abc or w_cubic limits",
    "abc-fig7c": "utilisation vs p95 delay through Verizon LTE uplink and downlink in series",
    "abc-fig14": "BBR vs ABC on Fig. 1's Verizon LTE trace: BBR overshoots and queues",
    "abc-stability": "Theorem 1: δ swept across 2/3·τ, oscillation below the bound",
    "c2tcp-target": "C2TCP Fig. 18: Target 25-100 ms, the average delay follows it (and Eq. 9)",
    "c2tcp-buffer": "C2TCP Fig. 19: buffer 75 KB-1.5 MB, C2TCP's delay stays, Cubic's grows",
    "proprate-fig7": "PropRate Fig. 7: PR(L/M/H) and the others on the throughput/delay plane",
    "proprate-frontier": "PropRate Fig. 11: t̄_buff 12-120 ms, the performance frontier",
    "proprate-nfl": "PropRate Fig. 8: the negative-feedback loop brings the buffer delay to the target",
    "proprate-contention": "PropRate Fig. 10: a second flow of the same scheme after 30 s",
    "abe-buffer": "ABE Eq. 1: NewReno's utilisation with buffers around BDP·(1 − β)/β, β 0.5/0.7/0.9",
    "abe-figures": "ABE Figs. 4-7: β_ecn vs throughput and queueing delay, NewReno and Cubic, CoDel and PIE",
    "abe-fairness": "ABE Figs. 11-12: 10 ECN Cubic-ABE flows vs 10 non-ECN NewReno flows, throughput ratio",
    "abe-fig8": "ABE Fig. 8: NewReno-ABE over CoDel at 20 Mbit/s, throughput and median RTT vs β_ecn",
    "abe-convergence": "ABE Figs. 9-10: convergence time ratio ρ = T(β_ecn)/T(β) of two flows started 30 s "
    "apart (Cubic and NewReno, CoDel and PIE)",
}

#: Published results (by id) that cannot be reproduced yet, and why.
UNAVAILABLE: dict[str, str] = {
    "abc-wifi": "the Wi-Fi results are reproduced as abc-fig5, abc-fig6, abc-fig9 and abc-fig16",
    "abc-fig17": "included in abc-fig8 (mean delay ratios)",
    "c2tcp-edge": "needs the C2TCP paper's Fig. 11 (right) trace, Times Square LTE without cross traffic, "
    "which is not bundled (traces/c2tcp-nyc/README.md), with its capacity tripled (46 Mbit/s mean); trace "
    "links cannot be scaled yet",
}
