"""ABE: Alternative Backoff with ECN (IFIP Networking 2017; RFC 8511):
every published result of the paper, written once.

The citation; each published value (number, range or yes/no claim) with the paper's words, its
tolerance and why (:class:`~accelbrake.experiments.published.Published`, grouped by the reproduction
id that compares it); the reproduction ids and their titles; and the paper's results
(:class:`~accelbrake.experiments.published.Result`: figure/table and section, the claim in words,
the id that judges it and, for a known difference, its status and evidence). Everything else that
quotes these numbers (the index page, the docs tables, the claims of ``reproduce all``) is generated
from here. Light on purpose (no pandas): the command line lists it.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelbrake.experiments.published import (
    HYPOTHESIS,
    OPEN,
    Difference,
    Published,
    Result,
)

#: The paper.
CITATION = (
    "Alternative Backoff: Achieving Low Latency and High Throughput with ECN and AQM (ABE; Khademi et "
    "al., IFIP Networking 2017; RFC 8511)"
)

_P = Published


@dataclass(frozen=True)
class PaperGain:
    """A throughput gain the paper reports: β_ecn ``beta`` over ``base`` at ``rtt_ms``."""

    scheme: str
    aqm: str
    rtt_ms: int
    beta: float
    base: float
    paper_pct: float


@dataclass(frozen=True)
class PaperDelayChange:
    """A change of queueing delay the paper reports going from β_ecn ``base`` to ``beta``: ``paper_ms``
    is the change it states (``"+1 ms"``) or, when ``bound``, the bound it states (``"< 2 ms"``)."""

    fig: str
    scheme: str
    aqm: str
    rtt_ms: int
    base: float
    beta: float
    stat: str  # "p50" or "p90"
    paper_ms: float
    paper_text: str
    bound: bool = False


#: Throughput gains at RTT 400 ms (paper §5: figures 4–7).
PAPER_GAINS: tuple[PaperGain, ...] = (
    PaperGain("newreno-abe", "codel", 400, 0.8, 0.5, 24.0),
    PaperGain("newreno-abe", "pie", 400, 0.8, 0.5, 23.0),
    PaperGain("cubic-abe", "codel", 400, 0.85, 0.7, 15.0),
    PaperGain("cubic-abe", "pie", 400, 0.85, 0.7, 10.0),
    PaperGain("cubic-abe", "codel", 400, 0.95, 0.7, 25.0),
    PaperGain("cubic-abe", "pie", 400, 0.95, 0.7, 15.0),
)
#: Changes of the median and 90th-percentile queueing delay at RTT 100 ms (§IV-B): Fig. 5 (NewReno,
#: CoDel, β_ecn 0.5 → 0.85) and Fig. 7 (Cubic, CoDel and PIE, β_ecn 0.7 → 0.85 and 0.7 → 0.95).
DELAY_CHANGES: tuple[PaperDelayChange, ...] = (
    PaperDelayChange("Fig. 5", "newreno-abe", "codel", 100, 0.5, 0.85, "p50", 1.0, "+1 ms"),
    PaperDelayChange("Fig. 5", "newreno-abe", "codel", 100, 0.5, 0.85, "p90", 2.0, "< 2 ms", bound=True),
    *(
        c
        for aqm in ("codel", "pie")
        for c in (
            PaperDelayChange("Fig. 7", "cubic-abe", aqm, 100, 0.7, 0.85, "p50", 2.5, "+2.5 ms"),
            PaperDelayChange("Fig. 7", "cubic-abe", aqm, 100, 0.7, 0.85, "p90", 1.0, "< 1 ms", bound=True),
            PaperDelayChange("Fig. 7", "cubic-abe", aqm, 100, 0.7, 0.95, "p50", 5.0, "+5 ms"),
            PaperDelayChange("Fig. 7", "cubic-abe", aqm, 100, 0.7, 0.95, "p90", 1.0, "< 1 ms", bound=True),
        )
    ),
)
#: The ones ``accelbrake abe-sweep`` prints beside its table: Fig. 5's (NewReno with CoDel).
PAPER_DELAY_CHANGES: tuple[PaperDelayChange, ...] = tuple(d for d in DELAY_CHANGES if d.fig == "Fig. 5")


ABE_BUFFER_BETAS = (0.5, 0.7, 0.9)


ABE_BUFFER_FRACTIONS = (0.25, 0.5, 1.0, 2.0)


#: 10 Mbit/s × 100 ms in 1500-byte packets.
ABE_BUFFER_BDP = 10e6 * 0.1 / 8 / 1500


def _abe_rule(beta: float) -> float:
    return ABE_BUFFER_BDP * (1.0 - beta) / beta


def _abe_buffers(beta: float) -> dict[float, int]:
    return {f: max(1, round(f * _abe_rule(beta))) for f in ABE_BUFFER_FRACTIONS}


PUBLISHED: dict[str, list[Published]] = {}
PUBLISHED["abe-buffer"] = [
    *[
        _P(
            "abe-buffer",
            "NewReno",
            f"β {b:g}: utilisation ≥ 0.98 with b ≥ BDP·(1 − β)/β (1× and 2× the rule, "
            f"{_abe_buffers(b)[1.0]} and {_abe_buffers(b)[2.0]} packets)",
            "newreno",
            "U = 1 needs b ≥ δ(1 − β)/β; larger b merely adds queueing delay (Eq. 1, §III)",
            claim=True,
        )
        for b in ABE_BUFFER_BETAS
    ],
    *[
        _P(
            "abe-buffer",
            "NewReno",
            f"β {b:g}: below the rule (0.5×, {_abe_buffers(b)[0.5]} packets) utilisation lower than at "
            "the rule",
            "newreno",
            "a smaller buffer needs a larger β to sustain U = 1 (Eq. 2, §III)",
            claim=True,
        )
        for b in ABE_BUFFER_BETAS
    ],
]


#: Reproduction id → one-line title, in the order ``reproduce all`` runs them.
TITLES: dict[str, str] = {
    "abe-buffer": "ABE Eq. 1: NewReno's utilisation with buffers around BDP·(1 − β)/β, β 0.5/0.7/0.9",
    "abe-figures": "ABE Figs. 4-7: β_ecn vs throughput and queueing delay, NewReno and Cubic, CoDel and PIE",
    "abe-fairness": "ABE Figs. 11-12: 10 ECN Cubic-ABE flows vs 10 non-ECN NewReno flows, throughput ratio",
    "abe-fig8": "ABE Fig. 8: NewReno-ABE over CoDel at 20 Mbit/s, throughput and median RTT vs β_ecn",
    "abe-convergence": (
        "ABE Figs. 9-10: convergence time ratio ρ = T(β_ecn)/T(β) of two flows started 30 s apart (Cubic "
        "and NewReno, CoDel and PIE)"
    ),
}


#: Published results (by id) that cannot be reproduced yet, and why.
UNAVAILABLE: dict[str, str] = {}


_R = Result

#: The paper's results, in its order: one verdict each in ``reproduce all``.
RESULTS: tuple[Result, ...] = (
    _R(
        "abe",
        "abe/buffer-rule",
        "Eq. 1, §III",
        "full utilisation needs a buffer b ≥ BDP·(1 − β)/β",
        repro="abe-buffer",
        difference=Difference(
            HYPOTHESIS,
            "the runs start in slow start and the utilisation is over the whole run, so a slow-start "
            "overshoot into timeouts weighs on it; Eq. 1 assumes congestion avoidance",
        ),
    ),
    _R(
        "abe",
        "abe/fig4",
        "Fig. 4, §IV-B",
        "NewReno, RTT 400 ms: β_ecn 0.8 gives more throughput than β_ecn 0.5 (CoDel and PIE)",
        repro="abe-figures",
        rows=("Fig. 4:",),
        difference=Difference(OPEN, ""),
    ),
    _R(
        "abe",
        "abe/fig5",
        "Fig. 5, §IV-B",
        "NewReno, CoDel, RTT 100 ms: β_ecn 0.5 → 0.85 adds only little queueing delay (median, 90th pct.)",
        repro="abe-figures",
        rows=("Fig. 5:",),
        difference=Difference(OPEN, ""),
    ),
    _R(
        "abe",
        "abe/fig6",
        "Fig. 6, §IV-B",
        "Cubic, RTT 400 ms: β_ecn 0.85 / 0.95 give more throughput than 0.7 (CoDel and PIE)",
        repro="abe-figures",
        rows=("Fig. 6:",),
        difference=Difference(OPEN, ""),
    ),
    _R(
        "abe",
        "abe/fig7",
        "Fig. 7, §IV-B",
        "Cubic, RTT 100 ms: β_ecn 0.85/0.95 add a few ms of median and little 90th-percentile queueing "
        "delay over 0.7 (CoDel and PIE)",
        repro="abe-figures",
        rows=("Fig. 7:",),
        difference=Difference(OPEN, ""),
    ),
    _R(
        "abe",
        "abe/fig8",
        "Fig. 8, §IV-B",
        "NewReno over CoDel at 20 Mbit/s: throughput improves with β_ecn, more so at larger RTTs; the "
        "median RTT basically unaffected by β_ecn",
        repro="abe-fig8",
    ),
    _R(
        "abe",
        "abe/fig9-10",
        "Figs. 9 and 10, §IV-C",
        "convergence time ratio ρ = T(β_ecn)/T(β) of two flows: median close to or below 1; Cubic: "
        "generally fewer than half of the cases faster; NewReno with PIE: every β_ecn faster in more "
        "than half of the cases, best at 0.75",
        repro="abe-convergence",
        difference=Difference(
            HYPOTHESIS,
            "at small BDPs the new flow's initial window and slow start alone bring the index to 0.95 "
            "within a few RTTs, so ρ compares tens of milliseconds; the paper's Linux hosts have their "
            "own initial windows and pacing",
            "scripts/abe_convergence.py --grid paper",
        ),
    ),
    _R(
        "abe",
        "abe/fig11-12",
        "Figs. 11 and 12, §IV-D",
        "10 Cubic ECN flows vs 10 NewReno non-ECN flows over CoDel/PIE: the ECN group gets more, more so "
        "with a larger β_ecn",
        repro="abe-fairness",
        difference=Difference(
            HYPOTHESIS,
            "at short RTTs the 20 flows share a BDP of a few packets and the ECN response at windows of "
            "one or two packets decides the share (the same with NewReno on both sides), not ABE's "
            "β_ecn; the paper measures after slow start, we over the whole run",
        ),
    ),
)


_NAMES = {"newreno-abe": "NewReno", "cubic-abe": "Cubic"}
_AQMS = {"codel": "CoDel", "pie": "PIE"}


def _figures_4_7() -> list[tuple[Published, tuple[str, str, int, float, float, str]]]:
    """The ABE paper's numbers of Figs. 4-7 with what they compare: (scheme, aqm, RTT, β_ecn, base β_ecn,
    column). Throughput gains (%) are judged at ±20 %; a delay change the paper states in ms within
    ±1 ms (its resolution), one it states as "< X ms" as a claim."""
    out: list[tuple[Published, tuple[str, str, int, float, float, str]]] = []
    for g in PAPER_GAINS:
        fig = "Fig. 4" if g.scheme == "newreno-abe" else "Fig. 6"
        name = _NAMES[g.scheme]
        pub = Published(
            "abe-figures",
            name,
            f"{fig}: {name} throughput gain % with {_AQMS[g.aqm]}, RTT {g.rtt_ms} ms, β_ecn "
            f"{g.beta:g} over {g.base:g}",
            g.scheme,
            f"{g.paper_pct:+g} %",
            g.paper_pct,
        )
        out.append((pub, (g.scheme, g.aqm, g.rtt_ms, g.beta, g.base, "throughput_mbps")))
    for d in DELAY_CHANGES:
        name = _NAMES[d.scheme]
        what = "median" if d.stat == "p50" else "90th-percentile"
        metric = (
            f"{d.fig}: {name} {what} queueing delay change ms with {_AQMS[d.aqm]}, RTT {d.rtt_ms} ms, β_ecn "
            f"{d.base:g} → {d.beta:g}"
        )
        if d.bound:
            pub = Published(
                "abe-figures", name, metric + f" below {d.paper_ms:g} ms", d.scheme, d.paper_text, claim=True
            )
        else:
            pub = Published(
                "abe-figures",
                name,
                metric,
                d.scheme,
                d.paper_text,
                d.paper_ms,
                low=d.paper_ms - 1.0,
                high=d.paper_ms + 1.0,
            )
        out.append((pub, (d.scheme, d.aqm, d.rtt_ms, d.beta, d.base, f"queueing_delay_{d.stat}_ms")))
    return out


#: Figs. 4-7: each published value with what it compares (scheme, AQM, RTT, β_ecn, base β_ecn, column).
ABE_FIGURES = _figures_4_7()
PUBLISHED["abe-figures"] = [pub for pub, _ in ABE_FIGURES]


ABE_FAIRNESS_RTTS = (20, 80, 160, 320)

ABE_FAIRNESS_BETAS = (0.7, 0.75, 0.8, 0.85, 0.9)


def _fairness() -> list[Published]:
    rows = []
    for aqm, fig in (("codel", "Fig. 11"), ("pie", "Fig. 12")):
        name = "CoDel" if aqm == "codel" else "PIE"
        for b in ABE_FAIRNESS_BETAS:
            if b >= 0.9:
                text, lo, hi = "on average limited to a factor of 2.5 for β_ecn = 0.9 (§IV-D)", 1.0, 2.5
            else:
                text, lo, hi = "between 1.25 and 2 for β_ecn between 0.7 and 0.85 (§IV-D)", 1.25, 2.0
            rows.append(
                Published(
                    "abe-fairness",
                    "Cubic-ABE vs NewReno",
                    f"{fig} ({name}): ECN / non-ECN throughput ratio, mean over RTTs, β_ecn {b:g}",
                    "cubic-abe",
                    text,
                    low=lo,
                    high=hi,
                )
            )
        rows.append(
            Published(
                "abe-fairness",
                "Cubic-ABE vs NewReno",
                f"{fig} ({name}): a larger β_ecn increases the throughput ratio",
                "cubic-abe",
                "generally a larger β_ecn value increased the throughput ratio (§IV-D)",
                claim=True,
            )
        )
    return rows


PUBLISHED["abe-fairness"] = _fairness()


#: RTT_path of Fig. 8, ms: §IV-B's set (the figure itself is not in our text of the paper).
FIG8_RTTS: tuple[int, ...] = (100, 200, 400)
#: "Basically unaffected": the median RTT moves by less than this across β_ecn, ms (CoDel's 5 ms
#: target, the queueing delay the AQM aims at; our reading of the paper's words).
FIG8_RTT_UNAFFECTED_MS = 5.0

PUBLISHED["abe-fig8"] = [
    *[
        Published(
            "abe-fig8",
            "NewReno",
            f"Fig. 8: RTT {rtt} ms: throughput improves with β_ecn",
            "newreno-abe",
            "throughput improves with higher β_ecn (Fig. 8 caption)",
            claim=True,
        )
        for rtt in FIG8_RTTS
    ],
    Published(
        "abe-fig8",
        "NewReno",
        "Fig. 8: the gain of the largest β_ecn over 0.5 grows with RTT",
        "newreno-abe",
        "more so for large RTT_path (Fig. 8 caption)",
        claim=True,
    ),
    *[
        Published(
            "abe-fig8",
            "NewReno",
            f"Fig. 8: RTT {rtt} ms: median RTT moves < {FIG8_RTT_UNAFFECTED_MS:g} ms across β_ecn",
            "newreno-abe",
            "the median RTT was basically unaffected by β_ecn (§IV-B)",
            claim=True,
        )
        for rtt in FIG8_RTTS
    ],
]


#: "Close to 1": a median ρ up to this counts (our reading of "close to, or smaller than, 1").
RHO_CLOSE = 1.25

PUBLISHED["abe-convergence"] = [
    Published(
        "abe-convergence",
        "Cubic and NewReno",
        f"Figs. 9-10: most curves (scheme × AQM × β_ecn) have a median ρ ≤ {RHO_CLOSE:g}",
        "cubic-abe",
        "in most cases the median ρ is close to, or smaller than, 1 (§IV-C)",
        claim=True,
    ),
    *[
        Published(
            "abe-convergence",
            "Cubic",
            f"Fig. 9 ({name}): for most β_ecn fewer than half of the cases converge faster (ρ < 1)",
            "cubic-abe",
            "for CUBIC no value of β_ecn could significantly improve it (generally, less than half "
            "of the cases converged faster than the default case) (§IV-C)",
            claim=True,
        )
        for name in ("CoDel", "PIE")
    ],
    Published(
        "abe-convergence",
        "NewReno",
        "Fig. 10 (PIE): every plotted β_ecn converges faster (ρ < 1) in more than half of the cases",
        "newreno-abe",
        "with PIE all the plotted values improve convergence in more than half of the cases (§IV-C)",
        claim=True,
    ),
    Published(
        "abe-convergence",
        "NewReno",
        "Fig. 10 (PIE): β_ecn 0.75 has the largest share of faster cases",
        "newreno-abe",
        "a particularly good result for β_ecn = 0.75 (§IV-C)",
        claim=True,
    ),
]
