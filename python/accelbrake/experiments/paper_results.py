"""The catalogue of the four papers' published results, as data (``accelbrake reproduce all``).

One :class:`Result` per published figure, table, theorem or stated number: which paper, where in it
(figure/table and section), what it claims, and which reproduction id judges it. ``reproduce all``
writes one verdict row per entry (:func:`accelbrake.experiments.reproduce_all.catalogue_verdicts`),
so a figure that no reproduction covers shows up as "not implemented" with its reason, never as a
gap. ``tests/test_reproduce_all.py`` checks that every entry has a row in the verdict table and that
every entry's id is a known reproduction (runnable or listed as not available yet).

An entry's ``rows`` selects the rows of its reproduction's comparison that belong to it: every
row whose ``metric`` (or ``scheme``) contains one of the strings; empty means all rows. An entry
that no id covers carries its reason in ``why`` (``repro`` is then empty).

Light on purpose (no pandas): the command line lists it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPERS", "RESULTS", "SHORT", "Result", "by_paper"]

#: Paper key → its citation (title, authors, venue), as the index page names it.
PAPERS: dict[str, str] = {
    "abc": "ABC: A Simple Explicit Congestion Controller for Wireless Networks (Goyal et al., NSDI 2020)",
    "abe": "Alternative Backoff: Achieving Low Latency and High Throughput with ECN and AQM (ABE; "
    "Khademi et al., IFIP Networking 2017; RFC 8511)",
    "c2tcp": "C2TCP: A Flexible Cellular TCP to Meet Stringent Delay Requirements (Abbasloo, Xu, Chao; "
    "IEEE JSAC 2019)",
    "proprate": "TCP Congestion Control Beyond Bandwidth-Delay Product for Mobile Cellular Networks "
    "(PropRate; Leong et al., CoNEXT 2017)",
}

#: Paper key → its short name.
SHORT: dict[str, str] = {"abc": "ABC", "abe": "ABE", "c2tcp": "C2TCP", "proprate": "PropRate"}


@dataclass(frozen=True)
class Result:
    """One published result."""

    paper: str
    """Key of :data:`PAPERS`."""
    key: str
    """Unique name, ``abc/fig7a``."""
    where: str
    """Figure/table and section in the paper (``Fig. 7a, §7.3``)."""
    claim: str
    """What the paper states (its numbers or claim, in our words)."""
    repro: str = ""
    """The reproduction id that judges it (``accelbrake reproduce ID``); empty when none does."""
    rows: tuple[str, ...] = ()
    """Substrings selecting the comparison rows of ``repro`` that belong to this result."""
    why: str = ""
    """Why no reproduction covers it (when ``repro`` is empty)."""


_R = Result

RESULTS: tuple[Result, ...] = (
    # ---- ABC (NSDI 2020)
    _R(
        "abc",
        "abc/headline",
        "results table, §1 (emulation of §7.3)",
        "8-trace averages normalised to ABC (78 %, 242 ms p95): XCP 0.97/2.04, Cubic+CoDel 0.67/0.84, Copa "
        "0.66/0.85, Cubic 1.18/4.78, PCC-Vivace 1.12/4.93, BBR 0.96/2.83, Sprout 0.55/1.08, Verus 0.72/2.01",
        "abc-table",
    ),
    _R(
        "abc",
        "abc/fig1",
        "Fig. 1, §1",
        "on a Verizon LTE trace: Cubic high utilisation and delays up to 1500 ms, Verus rate variations "
        "and high delay, Cubic+CoDel underutilises, ABC ≈ 100 % utilisation with CoDel-like delay",
        "abc-fig1",
    ),
    _R(
        "abc",
        "abc/fig2",
        "Fig. 2, §3.1.1",
        "computing f(t) from the enqueue rate instead of the dequeue rate raises the p95 queueing delay 2×",
        "abc-fig2",
    ),
    _R(
        "abc",
        "abc/fig3",
        "Fig. 3, §3.1.3",
        "5 flows joining and leaving on 24 Mbit/s: fair shares with additive increase, none without",
        "abc-fig3",
    ),
    _R(
        "abc",
        "abc/fig4",
        "Fig. 4, §4",
        "ABC wireless hop in series with a wired drop-tail hop: ABC follows w_cubic when the wired hop is "
        "the bottleneck, w_abc when the wireless one is",
        "abc-fig4",
    ),
    _R(
        "abc",
        "abc/fig5",
        "Fig. 5, §5.1",
        "inter-ACK time vs A-MPDU batch size: a line of slope S/R",
        "abc-fig5",
    ),
    _R(
        "abc",
        "abc/fig6",
        "Fig. 6, §5.1",
        "the router's Wi-Fi link-rate estimate is within 5 % of the true capacity",
        "abc-fig6",
    ),
    _R(
        "abc",
        "abc/fig7a",
        "Fig. 7a, §7.3",
        "Verizon LTE downlink: ABC lies outside the Pareto frontier of all other schemes",
        "abc-fig7",
        ("(a) downlink",),
    ),
    _R(
        "abc",
        "abc/fig7b",
        "Fig. 7b, §7.3",
        "Verizon LTE uplink: ABC lies outside the Pareto frontier of all other schemes",
        "abc-fig7",
        ("(b) uplink",),
    ),
    _R(
        "abc",
        "abc/fig7c",
        "Fig. 7c, §7.3",
        "uplink + downlink through two ABC bottlenecks: ABC outside the Pareto frontier",
        "abc-fig7c",
    ),
    _R(
        "abc",
        "abc/fig8",
        "Fig. 8, §7.3",
        "8 traces: ABC ≈ Copa and Cubic+CoDel p95 delay with ~50 % more utilisation; Cubic and PCC ~380 % "
        "higher p95 delay",
        "abc-fig8",
        ("ABC utilisation", "p95 delay"),
    ),
    _R(
        "abc",
        "abc/fig9",
        "Fig. 9, §7.3 (Wi-Fi); abstract",
        "Wi-Fi MCS 1 ↔ 7: ABC outside the frontier, up to 29 % more throughput than Cubic+CoDel/Copa/Vegas, "
        "others 67 %–6× more delay; two users 38/41/31 % more throughput; 2.2× lower delay than BBR",
        "abc-fig9",
    ),
    _R(
        "abc",
        "abc/fig10",
        "Fig. 10, §7.4",
        "ABC wireless hop + 12 Mbit/s wired hop with on-off Cubic cross traffic: ABC tracks the ideal rate",
        "abc-fig10",
    ),
    _R(
        "abc",
        "abc/fig11",
        "Fig. 11, §7.5",
        "1-16 flows of one scheme on a Verizon trace: ABC keeps utilisation and delay nearly constant",
        "abc-fig11",
    ),
    _R(
        "abc",
        "abc/fig12",
        "Fig. 12, §7.5",
        "two flows, RTTs 20-120 ms vs 20 ms: the throughput ratio grows about linearly with the RTT ratio",
        "abc-fig12",
    ),
    _R(
        "abc",
        "abc/table1",
        "Table 1, §7.5",
        "six flows with RTT 20/40/60/80/100/120 ms get 6.62/4.94/4.27/3.0/2.75/2.40 Mbit/s",
        "abc-table1",
    ),
    _R(
        "abc",
        "abc/fig13",
        "Fig. 13, §7.5",
        "3 ABC + 3 Cubic long flows with Poisson short flows: ABC and Cubic throughputs within 5 %, ABC "
        "flows' std < 10 %; RCP's zombie list gives Cubic 17-165 % more",
        "abc-fig13",
    ),
    _R(
        "abc",
        "abc/fairness",
        "§7.5, coexistence among ABC flows",
        "2-32 ABC flows on 24 Mbit/s: Jain index within 5 % of 1",
        "abc-fairness",
    ),
    _R(
        "abc",
        "abc/pk",
        "§7.6",
        "PK-ABC (link rate one RTT ahead) lowers the p95 delay from 97 ms to 28 ms at ~90 % utilisation",
        "abc-pk",
    ),
    _R(
        "abc",
        "abc/theorem1",
        "Theorem 1, §4.2 and Appendix C",
        "ABC is globally asymptotically stable when δ > 2/3·τ; below it the loop oscillates",
        "abc-stability",
    ),
    _R(
        "abc",
        "abc/fig14",
        "Fig. 14, Appendix A",
        "same setup as Fig. 1: BBR overshoots the link capacity and queues excessively",
        "abc-fig14",
    ),
    _R(
        "abc",
        "abc/fig15",
        "Fig. 15, Appendix B",
        "η trades throughput for delay: both rise with η",
        "abc-fig15",
    ),
    _R(
        "abc",
        "abc/fig16",
        "Fig. 16, Appendix D",
        "Wi-Fi, Brownian MCS in [3, 7]: ABC outside the others' frontier",
        "abc-fig16",
    ),
    _R(
        "abc",
        "abc/fig17",
        "Fig. 17, Appendix E",
        "8 traces, mean per-packet delay: BBR, PCC and Cubic 70-240 % higher than ABC",
        "abc-fig8",
        ("(fig 17)",),
    ),
    _R(
        "abc",
        "abc/fig18",
        "Fig. 18, Appendix F",
        "XCP ≈ ABC throughput with 105 % higher p95 delay, XCP_w 40 % higher; ABC ~20 % more utilisation "
        "than RCP and VCP",
        "abc-fig18",
    ),
    _R(
        "abc",
        "abc/fig19",
        "Fig. 19, Appendix F",
        "capacity 12 ↔ 24 Mbit/s every 500 ms: ABC and XCP_w ≈ 100 % utilisation, RCP under-utilises",
        "abc-fig19",
    ),
    _R(
        "abc",
        "abc/fig20",
        "Fig. 20, Appendix G",
        "1 backlogged + 200 application-limited ABC flows: still high utilisation and low delay",
        "abc-fig20",
    ),
    _R(
        "abc",
        "abc/fig21",
        "Fig. 21, Appendix G",
        "propagation RTT 20/50/100/200 ms: ABC still outside the others' frontier",
        "abc-fig21",
    ),
    # ---- ABE (IFIP Networking 2017, RFC 8511)
    _R(
        "abe",
        "abe/buffer-rule",
        "Eq. 1, §III",
        "full utilisation needs a buffer b ≥ BDP·(1 − β)/β",
        "abe-buffer",
    ),
    _R(
        "abe",
        "abe/fig4",
        "Fig. 4, §IV-B",
        "NewReno, RTT 400 ms: β_ecn 0.8 gives +24 % (CoDel) / +23 % (PIE) throughput over β_ecn 0.5",
        "abe-figures",
        ("Fig. 4:",),
    ),
    _R(
        "abe",
        "abe/fig5",
        "Fig. 5, §IV-B",
        "NewReno, CoDel, RTT 100 ms: β_ecn 0.5 → 0.85 adds only +1 ms (median) / < 2 ms (90th pct.) "
        "queueing delay",
        "abe-figures",
        ("Fig. 5:",),
    ),
    _R(
        "abe",
        "abe/fig6",
        "Fig. 6, §IV-B",
        "Cubic, RTT 400 ms: β_ecn 0.85 / 0.95 give +15 % / +25 % (CoDel) and +10 % / +15 % (PIE) over 0.7",
        "abe-figures",
        ("Fig. 6:",),
    ),
    _R(
        "abe",
        "abe/fig7",
        "Fig. 7, §IV-B",
        "Cubic, RTT 100 ms: β_ecn 0.85/0.95 add 2.5/5 ms median and < 1 ms 90th-percentile queueing delay "
        "over 0.7 (CoDel and PIE)",
        "abe-figures",
        ("Fig. 7:",),
    ),
    _R(
        "abe",
        "abe/fig8",
        "Fig. 8, §IV-B",
        "NewReno over CoDel at 20 Mbit/s: throughput improves with β_ecn, more so at larger RTTs; the "
        "median RTT basically unaffected by β_ecn",
        "abe-fig8",
    ),
    _R(
        "abe",
        "abe/fig9-10",
        "Figs. 9 and 10, §IV-C",
        "convergence time ratio ρ = T(β_ecn)/T(β) of two flows: median close to or below 1; Cubic: "
        "generally fewer than half of the cases faster; NewReno with PIE: every β_ecn faster in more "
        "than half of the cases, best at 0.75",
        "abe-convergence",
    ),
    _R(
        "abe",
        "abe/fig11-12",
        "Figs. 11 and 12, §IV-D",
        "10 Cubic ECN flows vs 10 NewReno non-ECN flows over CoDel/PIE: throughput ratio ≤ 2.5 at "
        "β_ecn 0.9, 1.25-2 for β_ecn 0.7-0.85",
        "abe-fairness",
    ),
    # ---- C2TCP (IEEE JSAC 2019)
    _R(
        "c2tcp",
        "c2tcp/table1",
        "Table I, §VII-D",
        "normalised to C2TCP: BBR 1.22/2.44/2.31, Verus 1.12/3.82/3.22, Cubic 1.28/8.95/8.54, Sprout "
        "1.13/1.94/1.64, Westwood 1.26/6.89/6.78, PCC-Vivace 1.04/10.05/10.52 (throughput/avg/p95 delay)",
        "c2tcp-table1",
    ),
    _R(
        "c2tcp",
        "c2tcp/fig15",
        "Fig. 15, §VII-E (mobile edge)",
        "min RTT 4 ms, trace capacity ×3: C2TCP with Target 10 ms keeps its delay near the Target",
        "c2tcp-edge",
    ),
    _R(
        "c2tcp",
        "c2tcp/fig16",
        "Fig. 16, §VII-F",
        "a second flow joins a Cubic flow at 30 s on 24 Mbit/s: C2TCP, Cubic, Westwood share fairly; BBR "
        "and Verus take nearly all",
        "c2tcp-friendliness",
    ),
    _R(
        "c2tcp",
        "c2tcp/fig17",
        "Fig. 17, §VII-F",
        "C2TCP against NewReno, and two C2TCP flows, share fairly",
        "c2tcp-friendliness",
    ),
    _R(
        "c2tcp",
        "c2tcp/fig18",
        "Fig. 18, §VII-G",
        "Target 25-75 ms: the average delay follows the Target",
        "c2tcp-target",
        ("grows with Target",),
    ),
    _R(
        "c2tcp",
        "c2tcp/eq9",
        "Eq. 9, §V",
        "steady state: average RTT < 1.5 × Setpoint",
        "c2tcp-target",
        ("Eq. 9",),
    ),
    _R(
        "c2tcp",
        "c2tcp/fig19",
        "Fig. 19, §VII-G",
        "buffer 75 KB-1.5 MB: C2TCP's delay does not grow with the buffer, Cubic's does",
        "c2tcp-buffer",
    ),
    # ---- PropRate (CoNEXT 2017)
    _R(
        "proprate",
        "proprate/fig7",
        "Fig. 7, §5.1",
        "PR(L)/PR(M)/PR(H) (t̄_buff 20/40/80 ms) are ordered points that trade delay for throughput, "
        "ahead of Cubic, BBR, Sprout, Verus, Vegas, Westwood",
        "proprate-fig7",
    ),
    _R(
        "proprate",
        "proprate/fig8",
        "Fig. 8, §5.2",
        "with the negative-feedback loop the achieved buffer delay tracks the target (20-120 ms)",
        "proprate-nfl",
    ),
    _R(
        "proprate",
        "proprate/fig10",
        "Fig. 10, §5.4",
        "a second flow of the same scheme after 30 s: PropRate and BBR get ≈ 100 % of the first flow's "
        "throughput, Cubic 23 %",
        "proprate-contention",
    ),
    _R(
        "proprate",
        "proprate/fig11",
        "Fig. 11, §5.3",
        "sweeping t̄_buff 12-120 ms traces a smooth throughput/delay frontier",
        "proprate-frontier",
    ),
)


def by_paper(paper: str | None = None) -> list[Result]:
    """The entries of one paper (all with ``None``), in catalogue order."""
    return [r for r in RESULTS if paper is None or r.paper == paper]
