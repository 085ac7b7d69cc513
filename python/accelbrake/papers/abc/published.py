"""ABC: A Simple Explicit Congestion Controller for Wireless Networks (NSDI 2020):
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
    EXPLAINED,
    HYPOTHESIS,
    OPEN,
    PAPER_SETUP,
    Difference,
    Published,
    Result,
)

#: The paper.
CITATION = "ABC: A Simple Explicit Congestion Controller for Wireless Networks (Goyal et al., NSDI 2020)"

_P = Published


def _table(scheme: str, ours: str | None, util: float, p95: float) -> list[Published]:
    return [
        Published("abc-table", scheme, "norm. utilisation", ours, f"{util:g}", util),
        Published("abc-table", scheme, "norm. p95 per-packet delay", ours, f"{p95:g}", p95),
    ]


PUBLISHED: dict[str, list[Published]] = {
    # Averages over the paper's 8 LTE traces normalised to ABC (ABC = 78 % utilisation, 242 ms p95
    # per-packet delay).
    "abc-table": [
        Published("abc-table", "ABC", "utilisation", "abc", "78 %", 0.78),
        Published("abc-table", "ABC", "p95 per-packet delay (ms)", "abc", "242 ms", 242.0),
        *_table("XCP", "xcp", 0.97, 2.04),
        *_table("Cubic+CoDel", "cubic+codel", 0.67, 0.84),
        *_table("Copa", "copa", 0.66, 0.85),
        *_table("Cubic", "cubic", 1.18, 4.78),
        *_table("PCC-Vivace", "pcc-vivace", 1.12, 4.93),
        *_table("BBR", "bbr", 0.96, 2.83),
        *_table("Sprout", "sprout", 0.55, 1.08),
        *_table("Verus", "verus", 0.72, 2.01),
    ],
    "abc-fig7": [
        Published(
            "abc-fig7",
            "ABC",
            "outside the others' Pareto frontier, (a) downlink",
            "abc",
            "ABC lies outside the Pareto frontier of all other schemes",
            claim=True,
        ),
        Published(
            "abc-fig7",
            "ABC",
            "outside the others' Pareto frontier, (b) uplink",
            "abc",
            "ABC lies outside the Pareto frontier of all other schemes",
            claim=True,
        ),
        Published("abc-fig7", "XCP", "point on the plane", "xcp", "in the figure"),
        Published("abc-fig7", "XCP_w", "point on the plane", "xcp-w", "in the figure"),
        # §7.3: "We also compared with two other explicit schemes, RCP and VCP" (their points are in
        # the figure; Appendix F / Fig. 18 gives the numbers, see abc-fig18).
        Published("abc-fig7", "RCP", "point on the plane", "rcp", "in the figure"),
        Published("abc-fig7", "VCP", "point on the plane", "vcp", "in the figure"),
        *(
            Published(
                "abc-fig7",
                name,
                "utilisation below ABC's (per trace)",
                ours,
                "ABC consistently outperformed both [RCP and VCP], achieving 20% more utilization on average",
                claim=True,
            )
            for name, ours in (("RCP", "rcp"), ("VCP", "vcp"))
        ),
    ],
    # Fig. 1 (§1): one Verizon LTE trace, four schemes drawn over time; its caption's claims.
    "abc-fig1": [
        Published(
            "abc-fig1",
            "Cubic",
            "high utilisation: Cubic's utilisation above Cubic+CoDel's",
            "cubic",
            "Cubic has high utilization",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "Cubic",
            "very high delays: Cubic's p95 per-packet delay above 2× ABC's",
            "cubic",
            "very high delays (up to 1500 milliseconds)",
            claim=True,
        ),
        Published("abc-fig1", "Cubic", "largest per-packet delay (ms)", "cubic", "up to 1500 ms", 1500.0),
        Published(
            "abc-fig1",
            "Verus",
            "high delays: Verus's p95 per-packet delay above ABC's",
            "verus",
            "Verus ... incurs high delays",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "Verus",
            "large rate variations: std of Verus's 100 ms throughput bins above ABC's",
            "verus",
            "Verus has large rate variations",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "Cubic+CoDel",
            "underutilised: Cubic+CoDel's utilisation below ABC's",
            "cubic+codel",
            "leaves the link underutilized when capacity increases",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "Cubic+CoDel",
            "low queueing delay: Cubic+CoDel's p95 queueing delay below half of Cubic's",
            "cubic+codel",
            "reduces queuing delays significantly",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "ABC",
            "close to 100 % utilisation: ABC's utilisation ≥ 90 %",
            "abc",
            "ABC achieves close to 100% utilization",
            claim=True,
        ),
        Published(
            "abc-fig1",
            "ABC",
            "queueing delay similar to Cubic+CoDel's: ABC's p95 queueing delay within 2× of Cubic+CoDel's",
            "abc",
            "low queuing delays (similar to that of Cubic+CoDel)",
            claim=True,
        ),
    ],
    "abc-fig8": [
        Published(
            "abc-fig8",
            "Cubic+CoDel",
            "ABC utilisation / scheme's",
            "cubic+codel",
            "~50 % higher utilisation for ABC",
            1.5,
        ),
        Published(
            "abc-fig8", "Copa", "ABC utilisation / scheme's", "copa", "~50 % higher utilisation for ABC", 1.5
        ),
        *[
            Published(
                "abc-fig8",
                name,
                "scheme's p95 delay / ABC's",
                ours,
                "[ABC achieves 50% higher throughput than Cubic+Codel and Copa,] while only incurring 17% "
                "higher 95th percentile packet delays (§7.3)",
                1 / 1.17,
                why="1/1.17 = 0.85: the paper's 17 % higher p95 delay for ABC, as the scheme's over ABC's",
            )
            for name, ours in (("Cubic+CoDel", "cubic+codel"), ("Copa", "copa"))
        ],
        Published("abc-fig8", "Cubic", "scheme's p95 delay / ABC's", "cubic", "~380 % higher p95 delay", 4.8),
        Published(
            "abc-fig8",
            "PCC-Vivace",
            "scheme's p95 delay / ABC's",
            "pcc-vivace",
            "~394 % higher p95 delay (§7.3)",
            4.94,
        ),
        Published(
            "abc-fig8",
            "BBR",
            "scheme's mean delay / ABC's (fig 17)",
            "bbr",
            "70–240 % higher mean delay",
            low=1.7,
            high=3.4,
        ),
        Published(
            "abc-fig8",
            "Cubic",
            "scheme's mean delay / ABC's (fig 17)",
            "cubic",
            "70–240 % higher mean delay",
            low=1.7,
            high=3.4,
        ),
        Published(
            "abc-fig8",
            "PCC-Vivace",
            "scheme's mean delay / ABC's (fig 17)",
            "pcc-vivace",
            "70–240 % higher mean delay",
            low=1.7,
            high=3.4,
        ),
    ],
    "abc-fig19": [
        Published(
            "abc-fig19",
            "ABC",
            "utilisation",
            "abc",
            "≈ 100 %",
            1.0,
            tolerance=0.10,
            why="±10 %: utilisation cannot exceed 100 %, so ±20 % would accept 80 %, not the caption's "
            "'close to 100 %'",
        ),
        Published(
            "abc-fig19",
            "XCP_w",
            "utilisation",
            "xcp-w",
            "≈ 100 %",
            1.0,
            tolerance=0.10,
            why="±10 %, as ABC's row",
        ),
        Published(
            "abc-fig19",
            "RCP",
            "utilisation below ABC's",
            "rcp",
            "RCP lags and under-utilises the link after capacity drops",
            claim=True,
        ),
    ],
    # Fig. 18 (Appendix F, §7.3): the explicit schemes on the paper's traces, ratios over the trace
    # averages (of the seed means). Per-packet delay = RTT + queueing, as in Figs. 7-8.
    "abc-fig18": [
        Published(
            "abc-fig18",
            "XCP",
            "scheme's utilisation / ABC's",
            "xcp",
            "XCP achieves similar average throughput to ABC",
            1.0,
        ),
        Published(
            "abc-fig18",
            "XCP",
            "scheme's p95 delay / ABC's",
            "xcp",
            "105 % higher 95th percentile delays",
            2.05,
        ),
        Published(
            "abc-fig18",
            "XCP_w",
            "scheme's p95 delay / ABC's",
            "xcp-w",
            "XCP_w … 40 % higher 95th percentile delays",
            1.4,
        ),
        Published(
            "abc-fig18",
            "RCP",
            "ABC utilisation / scheme's",
            "rcp",
            "ABC ≈ 20 % more utilisation than RCP",
            1.2,
        ),
        Published(
            "abc-fig18",
            "VCP",
            "ABC utilisation / scheme's",
            "vcp",
            "ABC ≈ 20 % more utilisation than VCP",
            1.2,
        ),
    ],
    # §7.6 on Fig. 7b's setup (Verizon LTE uplink): PK-ABC "reduces 95th percentile per-packet-delays
    # from 97 ms to 28 ms" at ~90 % utilisation. Those values can only be queueing delays (per-packet
    # delay there includes the 100 ms propagation RTT), so p95 queueing delay is compared.
    "abc-pk": [
        Published("abc-pk", "ABC", "p95 queueing delay (ms)", "abc", "97 ms", 97.0),
        Published("abc-pk", "PK-ABC", "p95 queueing delay (ms)", "pk-abc", "28 ms", 28.0),
        Published(
            "abc-pk",
            "PK-ABC",
            "utilisation",
            "pk-abc",
            "~90 %",
            0.9,
            tolerance=0.10,
            why="±10 %: a utilisation",
        ),
    ],
    "abc-fig3": [
        Published(
            "abc-fig3",
            "ABC (with AI)",
            "mean Jain index, ≥ 2 flows active",
            "abc",
            "fair shares (≈ 1)",
            1.0,
        ),
        Published(
            "abc-fig3",
            "ABC (no AI)",
            "less fair than with AI",
            "abc-no-ai",
            "without additive increase no convergence to fairness",
            claim=True,
        ),
    ],
    "abc-fairness": [
        Published(
            "abc-fairness", "ABC", f"Jain index, {n} flows", "abc", "within 5 % of 1", 1.0, low=0.95, high=1.0
        )
        for n in (2, 4, 8, 16, 32)
    ],
    "abc-fig12": [
        Published(
            "abc-fig12",
            "ABC",
            "throughput ratio ∝ RTT ratio (linear fit R²)",
            "abc",
            "throughput ratio grows about linearly with the RTT ratio",
            claim=True,
        ),
    ],
    "abc-table1": [
        Published("abc-table1", "ABC", f"flow with RTT {rtt} ms (Mbit/s)", "abc", f"{v:g}", v)
        for rtt, v in zip((20, 40, 60, 80, 100, 120), (6.62, 4.94, 4.27, 3.0, 2.75, 2.40), strict=True)
    ],
    "abc-fig21": [
        Published(
            "abc-fig21",
            "ABC",
            f"outside the others' Pareto frontier, RTT {rtt} ms",
            "abc",
            "ABC achieves a better throughput/delay trade-off than all other schemes",
            claim=True,
        )
        for rtt in (20, 50, 100, 200)
    ],
    "abc-fig15": [
        Published(
            "abc-fig15",
            "ABC",
            "utilisation rises with η",
            "abc",
            "increasing η increases utilisation",
            claim=True,
        ),
        Published(
            "abc-fig15",
            "ABC",
            "p95 delay rises with η",
            "abc",
            "... but also increases the delay",
            claim=True,
        ),
    ],
}


def _wifi_frontier(section: str, tag: str) -> list[Published]:
    text = "All versions of ABC outperform all prior schemes and sit outside the pareto frontier (Fig. 9)"
    rows = [
        Published(
            section,
            f"ABC_{dt}",
            f"{tag}: outside the Pareto frontier of the others",
            f"abc-dt{dt}",
            text,
            claim=True,
        )
        for dt in (20, 60, 100)
    ]
    return rows


_UP_TO_29 = "up to 29 % higher throughput than Cubic+Codel, Copa and Vegas (ABC d_t = 100 ms, §7.3)"
_SLIGHTLY = (
    "PCC-Vivace, Cubic and BBR achieve slightly higher throughput (4 %) than this ABC configuration (§7.3)"
)
_DELAY_67 = "their delay values are considerably higher (67 %–6×) (§7.3)"

PUBLISHED.update(
    {
        "abc-fig5": [
            Published(
                "abc-fig5",
                "ABC router",
                "slope of mean inter-ACK time vs batch size / (S/R)",
                "abc",
                "a line with slope S/R (Fig. 5 caption, Eq. 7)",
                1.0,
                tolerance=0.05,
                why="a property of the link model: ±5 %",
            ),
        ],
        "abc-fig6": [
            Published(
                "abc-fig6",
                "ABC router",
                "estimate / true capacity",
                "abc",
                "within 5 % of the true link capacities (§5.1, Fig. 6)",
                1.0,
                tolerance=0.05,
                why="the paper's own bound",
            ),
            Published(
                "abc-fig6",
                "ABC router",
                "estimate / cap (2 × sending rate)",
                "abc",
                "on the dashed cap line where it lies below the capacity (Fig. 6)",
                1.0,
                tolerance=0.05,
                why="the paper's own bound",
            ),
        ],
        "abc-fig9": [
            *_wifi_frontier("abc-fig9", "single user"),
            *_wifi_frontier("abc-fig9", "two users"),
            *[
                Published(
                    "abc-fig9",
                    name,
                    f"single user: ABC_100 throughput / {name}",
                    ours,
                    _UP_TO_29,
                    low=1.0,
                    high=1.29,
                )
                for name, ours in (("Cubic+CoDel", "cubic+codel"), ("Copa", "copa"), ("Vegas", "vegas"))
            ],
            *[
                Published("abc-fig9", name, "single user: throughput / ABC_100", ours, _SLIGHTLY, 1.04)
                for name, ours in (("Cubic", "cubic"), ("BBR", "bbr"), ("PCC-Vivace", "pcc-vivace"))
            ],
            *[
                Published(
                    "abc-fig9", name, "single user: p95 delay / ABC_100", ours, _DELAY_67, low=1.67, high=6.0
                )
                for name, ours in (("Cubic", "cubic"), ("BBR", "bbr"), ("PCC-Vivace", "pcc-vivace"))
            ],
            Published(
                "abc-fig9",
                "BBR",
                "single user: p95 delay / ABC_100 (abstract)",
                "bbr",
                "ABC achieves 2.2× lower delays than BBR on a Wi-Fi path (abstract)",
                2.2,
            ),
            *[
                Published(
                    "abc-fig9",
                    name,
                    f"two users: ABC_100 throughput / {name}",
                    ours,
                    f"{v:g}: ABC achieves "
                    "38 %, 41 % and 31 % higher average throughput than Cubic+Codel, Copa and Vegas (§7.3)",
                    v,
                )
                for name, ours, v in (
                    ("Cubic+CoDel", "cubic+codel", 1.38),
                    ("Copa", "copa", 1.41),
                    ("Vegas", "vegas", 1.31),
                )
            ],
        ],
        "abc-fig16": [*_wifi_frontier("abc-fig16", "single user")],
    }
)

# ABC beside other traffic: Figs. 11, 13 and 20 of the ABC paper.
# Thresholds that are ours (the paper states a claim, not a number) say so.
PUBLISHED.update(
    {
        "abc-fig13": [
            Published(
                "abc-fig13",
                "ABC vs Cubic",
                "ABC / Cubic mean long-flow throughput, coexistence router",
                "coexist",
                "the ABC and Cubic long flows' mean throughputs differ by less than 5 % (§7.5)",
                1.0,
                low=0.95,
                high=1.05,
            ),
            Published(
                "abc-fig13",
                "ABC",
                "relative std of the ABC long flows' throughputs",
                "coexist",
                "standard deviation of the ABC flows under 10 % (§7.5)",
                low=0.0,
                high=0.10,
            ),
            Published(
                "abc-fig13",
                "Cubic vs ABC",
                "Cubic / ABC mean long-flow throughput, RCP zombie-list weights",
                "zombie",
                "with RCP's zombie list, Cubic flows get 17-165 % more than ABC flows, more as the "
                "load grows (§7.5, Fig. 13b)",
                low=1.17,
                high=2.65,
            ),
        ],
        "abc-fig11": [
            Published(
                "abc-fig11",
                "ABC",
                "p95 per-packet delay, 16 flows / 1 flow",
                "abc",
                "utilisation and delay nearly constant from 1 to 16 flows (§7.5, Fig. 11)",
                1.0,
                low=0.8,
                high=1.2,
                why='±20 %: our reading of "nearly constant"',
            ),
            Published(
                "abc-fig11",
                "ABC",
                "utilisation, 16 flows / 1 flow",
                "abc",
                "utilisation nearly constant from 1 to 16 flows (Fig. 11)",
                1.0,
                low=0.9,
                high=1.1,
                why="±10 %: a utilisation",
            ),
        ],
        "abc-fig20": [
            Published(
                "abc-fig20",
                "ABC",
                "utilisation with 200 application-limited flows / alone",
                "abc-apps",
                "still high utilisation beside 200 application-limited flows (Appendix, Fig. 20)",
                1.0,
                low=0.95,
                high=1.05,
                why="±5 %: ours (the paper states no number)",
            ),
            Published(
                "abc-fig20",
                "ABC (backlogged flow)",
                "the backlogged flow's p95 per-packet delay with 200 application-limited flows / alone",
                "abc-apps",
                "still low delay beside 200 application-limited flows (Appendix, Fig. 20)",
                1.0,
                low=0.8,
                high=1.2,
                why="±20 %: ours (the paper states no number)",
            ),
            Published(
                "abc-fig20",
                "ABC (all packets)",
                "p95 per-packet delay of all packets with 200 application-limited flows / alone",
                "abc-apps",
                "still low delay beside 200 application-limited flows (Appendix, Fig. 20)",
                1.0,
                low=0.8,
                high=1.2,
                why="±20 %: ours (the paper states no number)",
            ),
        ],
    }
)

# ABC Fig. 10 (§7.4): an ABC hop in series with a wired drop-tail hop and on-off Cubic.
PUBLISHED["abc-fig10"] = [
    *[
        Published(
            "abc-fig10",
            "ABC",
            f"ABC throughput / ideal rate, {region}",
            "abc-cubic",
            "ABC tracks the ideal rate closely, even as the bottleneck shifts (§7.4)",
            1.0,
            why="±20 % default: the paper shows a time series",
        )
        for region in ("no cross traffic", "cross, wireless bottleneck", "cross, wired bottleneck")
    ],
    Published(
        "abc-fig10",
        "ABC",
        "lower delay without cross traffic",
        "abc-cubic",
        "ABC reduces queuing delays in the absence of cross traffic (Fig. 10 caption)",
        claim=True,
    ),
]


PUBLISHED.update(
    {
        "abc-fig2": [
            _P(
                "abc-fig2",
                "ABC (enqueue rate)",
                "p95 queueing delay, enqueue-rate f(t) / dequeue-rate f(t)",
                "abc-enqueue",
                "calculating f(t) based on enqueue rate increases 95th percentile queuing delay by 2×",
                2.0,
            ),
        ],
        "abc-fig14": [
            _P(
                "abc-fig14",
                "BBR",
                "excessive queuing: BBR's p95 queueing delay above 2× ABC's",
                "bbr",
                "BBR overshoots the link capacity, causing excessive queuing",
                claim=True,
            ),
            _P(
                "abc-fig14",
                "BBR",
                "overshoots: BBR's sending rate above the link's capacity (utilisation of the sent "
                "packets > 1)",
                "bbr",
                "BBR overshoots the link capacity",
                claim=True,
            ),
        ],
        "abc-stability": [
            _P(
                "abc-stability",
                "ABC",
                "stable above the bound: throughput CV (100 ms bins) < 0.05 at every δ > 2/3·τ",
                "abc",
                "ABC is globally asymptotically stable if δ > 2/3·τ (Theorem 1)",
                claim=True,
            ),
            _P(
                "abc-stability",
                "ABC",
                "turns unstable below the bound: throughput CV > 0.1 at some δ < 2/3·τ",
                "abc",
                "if δ is very small, ABC reacts too forcefully to queue build up, causing "
                "under-utilization and "
                "oscillations (§4.2)",
                claim=True,
            ),
            _P(
                "abc-stability",
                "ABC",
                "under-utilisation below the bound: utilisation at the smallest δ below that at δ = 133 ms",
                "abc",
                "if δ is very small, ABC reacts too forcefully ..., causing under-utilization (§4.2)",
                claim=True,
            ),
        ],
    }
)


PUBLISHED["abc-fig4"] = [
    _P(
        "abc-fig4",
        "ABC (w_cubic)",
        "tracks the ideal rate: throughput ≥ 0.85 × min(wireless, wired) in every 5 s step "
        "(after its first s)",
        "abc-cubic",
        "ABC tracks the bottleneck whichever link it is (Fig. 4)",
        claim=True,
    ),
    _P(
        "abc-fig4",
        "ABC (w_cubic)",
        "wireless link the bottleneck: w_abc ≤ w_cubic (w_abc limits) over most (> 50 %) of each such "
        "step's last 2 s",
        "abc-cubic",
        "when the wireless link is the bottleneck, ABC uses w_abc",
        claim=True,
    ),
    _P(
        "abc-fig4",
        "ABC (w_cubic)",
        "wired link the bottleneck: w_cubic < w_abc (w_cubic limits) over most (> 50 %) of each such "
        "step's last 2 s",
        "abc-cubic",
        "when the wired link is the bottleneck, ABC becomes limited by w_cubic and behaves like a Cubic flow",
        claim=True,
    ),
]


PUBLISHED["abc-fig7c"] = [
    _P(
        "abc-fig7c",
        "ABC",
        "outside the others' Pareto frontier, (c) uplink + downlink",
        "abc",
        "ABC lies outside the Pareto frontier of all other schemes (Fig. 7c: uplink+downlink, two ABC "
        "bottlenecks)",
        claim=True,
    )
]


#: Reproduction id → one-line title, in the order ``reproduce all`` runs them.
TITLES: dict[str, str] = {
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
    "abc-fig13": (
        "3 ABC + 3 Cubic long flows and Poisson 10 KB Cubic short flows on 96 Mbit/s: the coexistence "
        "router vs one shared ABC queue"
    ),
    "abc-fig11": "1-16 ABC flows on a Verizon trace: utilisation and p95 delay (and why the delay grows)",
    "abc-fig20": "a backlogged ABC flow beside 200 application-limited ABC flows",
    "abc-fig10": (
        "an ABC wireless hop in series with a 12 Mbit/s wired drop-tail hop and on-off Cubic cross traffic"
    ),
    "abc-fig2": "f(t) from the enqueue rate instead of the dequeue rate: p95 queueing delay",
    "abc-fig4": "ABC wireless hop in series with a wired drop-tail hop: w_abc or w_cubic limits",
    "abc-fig7c": "utilisation vs p95 delay through Verizon LTE uplink and downlink in series",
    "abc-fig14": "BBR vs ABC on Fig. 1's Verizon LTE trace: BBR overshoots and queues",
    "abc-stability": "Theorem 1: δ swept across 2/3·τ, oscillation below the bound",
}


#: Published results (by id) that cannot be reproduced yet, and why.
UNAVAILABLE: dict[str, str] = {
    "abc-wifi": "the Wi-Fi results are reproduced as abc-fig5, abc-fig6, abc-fig9 and abc-fig16",
    "abc-fig17": "included in abc-fig8 (mean delay ratios)",
}


_R = Result

#: The paper's results, in its order: one verdict each in ``reproduce all``.
RESULTS: tuple[Result, ...] = (
    _R(
        "abc",
        "abc/headline",
        "results table, §1 (emulation of §7.3)",
        "8-trace averages normalised to ABC (ABC's own utilisation and p95 per-packet delay absolute)",
        repro="abc-table",
        difference=Difference(
            HYPOTHESIS,
            "Verus and Sprout reach more utilisation than published and Verus and PCC-Vivace more delay: "
            "Verus keeps the buffer full (its R·D_min bound acts one queueing delay late), PCC-Vivace "
            "holds its rate above capacity after a timeout; 5 of the paper's 8 traces are bundled",
            "docs/cellular-schemes.md",
        ),
    ),
    _R(
        "abc",
        "abc/fig1",
        "Fig. 1, §1",
        "on a Verizon LTE trace: Cubic high utilisation and very high delays, Verus rate variations and "
        "high delay, Cubic+CoDel underutilises, ABC ≈ 100 % utilisation with CoDel-like delay",
        repro="abc-fig1",
        difference=Difference(
            OPEN,
            "ABC's utilisation on this trace is just under the 0.9 we read as close to 100 %, and "
            "Cubic's peak per-bin p95 delay is about twice the figure's scale",
        ),
    ),
    _R(
        "abc",
        "abc/fig2",
        "Fig. 2, §3.1.1",
        "computing f(t) from the enqueue rate instead of the dequeue rate raises the p95 queueing delay",
        repro="abc-fig2",
        difference=Difference(
            OPEN,
            "the enqueue-rate variant raises the delay less than the paper's factor on the bundled trace",
        ),
    ),
    _R(
        "abc",
        "abc/fig3",
        "Fig. 3, §3.1.3",
        "5 flows joining and leaving on 24 Mbit/s: fair shares with additive increase, none without",
        repro="abc-fig3",
    ),
    _R(
        "abc",
        "abc/fig4",
        "Fig. 4, §4",
        "ABC wireless hop in series with a wired drop-tail hop: ABC follows w_cubic when the wired hop "
        "is the bottleneck, w_abc when the wireless one is",
        repro="abc-fig4",
    ),
    _R(
        "abc",
        "abc/fig5",
        "Fig. 5, §5.1",
        "inter-ACK time vs A-MPDU batch size: a line of slope S/R",
        repro="abc-fig5",
    ),
    _R(
        "abc",
        "abc/fig6",
        "Fig. 6, §5.1",
        "the router's Wi-Fi link-rate estimate is within 5 % of the true capacity",
        repro="abc-fig6",
        difference=Difference(OPEN, "one of the 18 rate/MCS points is outside 5 %"),
    ),
    _R(
        "abc",
        "abc/fig7a",
        "Fig. 7a, §7.3",
        "Verizon LTE downlink: ABC lies outside the Pareto frontier of all other schemes",
        repro="abc-fig7",
        rows=("(a) downlink",),
    ),
    _R(
        "abc",
        "abc/fig7b",
        "Fig. 7b, §7.3",
        "Verizon LTE uplink: ABC lies outside the Pareto frontier of all other schemes",
        repro="abc-fig7",
        rows=("(b) uplink",),
    ),
    _R(
        "abc",
        "abc/fig7c",
        "Fig. 7c, §7.3",
        "uplink + downlink through two ABC bottlenecks: ABC outside the Pareto frontier",
        repro="abc-fig7c",
    ),
    _R(
        "abc",
        "abc/fig8",
        "Fig. 8, §7.3",
        "8 traces: ABC ≈ Copa and Cubic+CoDel p95 delay with more utilisation; Cubic and PCC much higher "
        "p95 delay",
        repro="abc-fig8",
        rows=("ABC utilisation", "p95 delay"),
        difference=Difference(
            HYPOTHESIS,
            "as the headline table: PCC-Vivace keeps the buffer full after timeouts",
            "docs/cellular-schemes.md",
        ),
    ),
    _R(
        "abc",
        "abc/fig9",
        "Fig. 9, §7.3 (Wi-Fi); abstract",
        "Wi-Fi MCS 1 ↔ 7: ABC outside the frontier, more throughput than Cubic+CoDel/Copa/Vegas with far "
        "less delay than the others; two users likewise; lower delay than BBR (abstract)",
        repro="abc-fig9",
        difference=Difference(
            PAPER_SETUP,
            "the paper gives no RTT for its Wi-Fi runs and no d_t for the abstract's BBR ratio; the rows "
            "are judged at a 20 ms RTT, and the RTT sweep in abc-fig9 shows which rows move with it",
            "abc-fig9",
        ),
    ),
    _R(
        "abc",
        "abc/fig10",
        "Fig. 10, §7.4",
        "ABC wireless hop + 12 Mbit/s wired hop with on-off Cubic cross traffic: ABC tracks the ideal rate",
        repro="abc-fig10",
        difference=Difference(
            PAPER_SETUP,
            "while the wired hop is the bottleneck ABC runs as Cubic and converges to its share slowly; "
            "the paper notes the same deviation there",
            "abc-fig10",
        ),
    ),
    _R(
        "abc",
        "abc/fig11",
        "Fig. 11, §7.5",
        "1-16 flows of one scheme on a Verizon trace: ABC keeps utilisation and delay nearly constant",
        repro="abc-fig11",
        difference=Difference(
            EXPLAINED,
            "the p95 delay grows with the number of flows because of the window floor and the additive "
            "increase; with Linux's floor of 2 segments (abc.min_window=2) most of the growth goes",
            "tests/test_mix.py::test_fig11_delay_growth_comes_from_the_window_floor_and_the_additive_increase",
        ),
    ),
    _R(
        "abc",
        "abc/fig12",
        "Fig. 12, §7.5",
        "two flows, RTTs 20-120 ms vs 20 ms: the throughput ratio grows about linearly with the RTT ratio",
        repro="abc-fig12",
    ),
    _R(
        "abc",
        "abc/table1",
        "Table 1, §7.5",
        "six flows with RTT 20-120 ms: throughput falls as the RTT grows",
        repro="abc-table1",
        difference=Difference(OPEN, "one of the six flows' throughputs is outside ±20 %"),
    ),
    _R(
        "abc",
        "abc/fig13",
        "Fig. 13, §7.5",
        "3 ABC + 3 Cubic long flows with Poisson short flows: ABC and Cubic throughputs close, ABC "
        "flows' spread small; RCP's zombie list gives Cubic more",
        repro="abc-fig13",
        difference=Difference(
            EXPLAINED,
            "the gap at 30 % load is the start-up transient (the ratio is 1.00 from 10 s on); RCP's "
            "zombie list at 10 % load is just under the paper's range, which grows with a load the paper "
            "gives only on its axis",
            "abc-fig13",
        ),
    ),
    _R(
        "abc",
        "abc/fairness",
        "§7.5, coexistence among ABC flows",
        "2-32 ABC flows on 24 Mbit/s: Jain index within 5 % of 1",
        repro="abc-fairness",
    ),
    _R(
        "abc",
        "abc/pk",
        "§7.6",
        "PK-ABC (link rate one RTT ahead) lowers the p95 delay at about the same utilisation",
        repro="abc-pk",
        difference=Difference(OPEN, "one of PK-ABC's numbers is outside ±20 %"),
    ),
    _R(
        "abc",
        "abc/theorem1",
        "Theorem 1, §4.2 and Appendix C",
        "ABC is globally asymptotically stable when δ > 2/3·τ; below it the loop oscillates",
        repro="abc-stability",
    ),
    _R(
        "abc",
        "abc/fig14",
        "Fig. 14, Appendix A",
        "same setup as Fig. 1: BBR overshoots the link capacity and queues excessively",
        repro="abc-fig14",
    ),
    _R(
        "abc",
        "abc/fig15",
        "Fig. 15, Appendix B",
        "η trades throughput for delay: both rise with η",
        repro="abc-fig15",
    ),
    _R(
        "abc",
        "abc/fig16",
        "Fig. 16, Appendix D",
        "Wi-Fi, Brownian MCS in [3, 7]: ABC outside the others' frontier",
        repro="abc-fig16",
    ),
    _R(
        "abc",
        "abc/fig17",
        "Fig. 17, Appendix E",
        "8 traces, mean per-packet delay: BBR, PCC and Cubic well above ABC",
        repro="abc-fig8",
        rows=("(fig 17)",),
        difference=Difference(HYPOTHESIS, "as the headline table and Fig. 8", "docs/cellular-schemes.md"),
    ),
    _R(
        "abc",
        "abc/fig18",
        "Fig. 18, Appendix F",
        "XCP ≈ ABC throughput with higher p95 delay, XCP_w somewhat higher; ABC more utilisation than "
        "RCP and VCP",
        repro="abc-fig18",
    ),
    _R(
        "abc",
        "abc/fig19",
        "Fig. 19, Appendix F",
        "capacity 12 ↔ 24 Mbit/s every 500 ms: ABC and XCP_w ≈ 100 % utilisation, RCP under-utilises",
        repro="abc-fig19",
    ),
    _R(
        "abc",
        "abc/fig20",
        "Fig. 20, Appendix G",
        "1 backlogged + 200 application-limited ABC flows: still high utilisation and low delay",
        repro="abc-fig20",
        difference=Difference(
            HYPOTHESIS,
            "the p95 over all packets grows because the application-limited flows' packets sample the "
            "trace uniformly while the backlogged flow's crowd into its fast stretches (not measured "
            "apart); the backlogged flow's own p95 is reproduced",
            "docs/coexistence.md",
        ),
    ),
    _R(
        "abc",
        "abc/fig21",
        "Fig. 21, Appendix G",
        "propagation RTT 20/50/100/200 ms: ABC still outside the others' frontier",
        repro="abc-fig21",
    ),
)
