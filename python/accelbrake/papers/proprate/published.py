"""PropRate: TCP Congestion Control Beyond Bandwidth-Delay Product for Mobile Cellular
Networks (CoNEXT 2017):
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

from accelbrake.experiments.published import (
    PAPER_SETUP,
    Difference,
    Published,
    Result,
)

#: The paper.
CITATION = (
    "TCP Congestion Control Beyond Bandwidth-Delay Product for Mobile Cellular Networks (PropRate; Leong "
    "et al., CoNEXT 2017)"
)

_P = Published

#: The buffer-delay targets (ms) of Fig. 8's feedback-loop check.
NFL_TARGETS = (40.0, 80.0, 120.0)


PUBLISHED: dict[str, list[Published]] = {
    "proprate-fig7": [
        _P(
            "proprate-fig7",
            "PropRate",
            "PR(L) < PR(M) < PR(H) in throughput and in mean queueing delay",
            "proprate-l",
            "PR(L), PR(M), PR(H) trade delay for throughput (Fig. 7)",
            claim=True,
        ),
        *[
            _P(
                "proprate-fig7",
                name,
                f"{name} outside the others' Pareto frontier (throughput vs p95 one-way delay)",
                ours,
                "PropRate outperforms the other algorithms on the throughput/delay plane (Fig. 7)",
                claim=True,
            )
            for name, ours in (("PR(L)", "proprate-l"), ("PR(M)", "proprate-m"), ("PR(H)", "proprate-h"))
        ],
    ],
    "proprate-frontier": [
        _P(
            "proprate-frontier",
            "PropRate",
            "throughput (nearly) non-decreasing in t̄_buff (each step ≥ 0.97 × the previous)",
            "proprate",
            "a smooth frontier as t̄_buff goes from 12 to 120 ms",
            claim=True,
        ),
        _P(
            "proprate-frontier",
            "PropRate",
            "median queueing delay increasing in t̄_buff",
            "proprate",
            "a smooth frontier as t̄_buff goes from 12 to 120 ms",
            claim=True,
        ),
        _P(
            "proprate-frontier",
            "PropRate",
            "the frontier spans a real throughput range (t̄_buff 120 ms > 1.2 × 12 ms)",
            "proprate",
            "PropRate can be tuned over a range of throughput/latency trade-offs",
            claim=True,
        ),
    ],
    "proprate-nfl": [
        *[
            _P(
                "proprate-nfl",
                "PropRate",
                f"median queueing delay / t̄_buff, t̄_buff {t:g} ms, with the loop (Verizon LTE uplink)",
                "proprate",
                "with the negative-feedback loop the achieved buffer delay tracks the target",
                1.0,
                tolerance=0.15,
                why="±15 %, as the Rust test proprate_feedback_loop_brings_the_delay_to_the_target",
            )
            for t in NFL_TARGETS
        ],
        *[
            _P(
                "proprate-nfl",
                "PropRate",
                f"mean queueing delay / t̄_buff, t̄_buff {t:g} ms, with the loop (12 ↔ 24 Mbit/s)",
                "proprate",
                "with the negative-feedback loop the achieved buffer delay tracks the target",
                1.0,
                tolerance=0.25,
                why="±25 %, as the Rust test",
            )
            for t in NFL_TARGETS
        ],
    ],
    "proprate-contention": [
        _P(
            "proprate-contention",
            "PropRate",
            "second / first flow throughput, PR(M)",
            "proprate-m",
            "close to 100 %",
            1.0,
        ),
        _P(
            "proprate-contention",
            "PropRate",
            "second / first flow throughput, PR(H)",
            "proprate-h",
            "close to 100 %",
            1.0,
        ),
        _P("proprate-contention", "BBR", "second / first flow throughput", "bbr", "close to 100 %", 1.0),
        _P(
            "proprate-contention",
            "CUBIC",
            "second / first flow throughput",
            "cubic",
            "23 %",
            0.23,
        ),
    ],
}


#: Reproduction id → one-line title, in the order ``reproduce all`` runs them.
TITLES: dict[str, str] = {
    "proprate-fig7": "PropRate Fig. 7: PR(L/M/H) and the others on the throughput/delay plane",
    "proprate-frontier": "PropRate Fig. 11: t̄_buff 12-120 ms, the performance frontier",
    "proprate-nfl": "PropRate Fig. 8: the negative-feedback loop brings the buffer delay to the target",
    "proprate-contention": "PropRate Fig. 10: a second flow of the same scheme after 30 s",
}


#: Published results (by id) that cannot be reproduced yet, and why.
UNAVAILABLE: dict[str, str] = {}


_R = Result

#: The paper's results, in its order: one verdict each in ``reproduce all``.
RESULTS: tuple[Result, ...] = (
    _R(
        "proprate",
        "proprate/fig7",
        "Fig. 7, §5.1",
        "PR(L)/PR(M)/PR(H) are ordered points that trade delay for throughput, ahead of Cubic, BBR, "
        "Sprout, Verus, Vegas, Westwood",
        repro="proprate-fig7",
        difference=Difference(
            PAPER_SETUP,
            "the p95 delays are set by the trace's outages, during which PropRate's in-flight cap stays "
            "queued; the paper uses its own ISP traces and does not state its buffer (here 1000 packets)",
            "proprate-nfl",
        ),
    ),
    _R(
        "proprate",
        "proprate/fig8",
        "Fig. 8, §5.2",
        "with the negative-feedback loop the achieved buffer delay tracks the target (20-120 ms)",
        repro="proprate-nfl",
    ),
    _R(
        "proprate",
        "proprate/fig10",
        "Fig. 10, §5.4",
        "a second flow of the same scheme after 30 s: PropRate and BBR get about the first flow's "
        "throughput, Cubic much less",
        repro="proprate-contention",
        difference=Difference(
            PAPER_SETUP,
            "how much a late Cubic flow gets depends on the buffer, which the paper does not state; ours "
            "gets least on the constant 12 Mbit/s link",
            "proprate-contention",
        ),
    ),
    _R(
        "proprate",
        "proprate/fig11",
        "Fig. 11, §5.3",
        "sweeping t̄_buff 12-120 ms traces a smooth throughput/delay frontier",
        repro="proprate-frontier",
    ),
)
