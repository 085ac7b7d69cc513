"""Published numbers that ``accelbrake reproduce`` compares against, as data.

Every value names the reproduction it belongs to (``section``, the id of ``accelbrake reproduce``;
the paper, table or figure and section it comes from are on the reproduction) and the paper's own
wording (``text``). ``scheme`` is the paper's name; ``ours`` is the matrix
scheme we compare it with, or ``None`` when the scheme is not implemented here (such rows are
printed as "not implemented", never filled in). A value is a number (``value``), a range
(``low``–``high``) or a qualitative claim (``claim``: checked as yes/no). A number is reproduced
when the ratio ours/published lies within ``tolerance`` (±20 % unless the row states another, with
the reason in ``why``; see :mod:`accelbrake.experiments.verdicts`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPER", "PAPER_ABE", "PAPER_C2TCP", "PAPER_PROPRATE", "PUBLISHED", "Published"]

#: The paper the ABC numbers come from.
PAPER = "ABC: A Simple Explicit Congestion Controller for Wireless Networks (Goyal et al., NSDI 2020)"


@dataclass(frozen=True)
class Published:
    """One published number or claim."""

    section: str
    """The reproduction id (``abc-table``)."""
    scheme: str
    """The paper's scheme name (``Cubic+CoDel``)."""
    metric: str
    """What is compared (``norm. utilisation``); see :mod:`accelbrake.experiments.reproduce`."""
    ours: str | None
    """Our matrix scheme, or ``None`` if not implemented here."""
    text: str
    """The published value as the paper states it."""
    value: float | None = None
    low: float | None = None
    high: float | None = None
    claim: bool | None = None
    """For a qualitative claim: the published answer (``True``: "ABC lies outside the frontier")."""
    tolerance: float | None = None
    """The ratio ours/published within 1 ± this is reproduced; ``None``: the default ±20 %."""
    why: str = ""
    """Why this row has its own tolerance (shown next to it)."""


def _table(scheme: str, ours: str | None, util: float, p95: float) -> list[Published]:
    return [
        Published("abc-table", scheme, "norm. utilisation", ours, f"{util:g}", util),
        Published("abc-table", scheme, "norm. p95 per-packet delay", ours, f"{p95:g}", p95),
    ]


#: The paper the C2TCP numbers come from.
PAPER_C2TCP = (
    "C2TCP: A Flexible Cellular TCP to Meet Stringent Delay Requirements (Abbasloo, Xu, Chao; IEEE JSAC 2019)"
)


def _c2tcp_row(scheme: str, ours: str | None, thr: float, avg: float, p95: float) -> list[Published]:
    sec = "c2tcp-table1"
    return [
        Published(sec, scheme, "norm. throughput", ours, f"{thr:g}", thr),
        Published(sec, scheme, "norm. average queueing delay", ours, f"{avg:g}", avg),
        Published(sec, scheme, "norm. p95 queueing delay", ours, f"{p95:g}", p95),
    ]


#: The paper the PropRate numbers come from.
PAPER_PROPRATE = (
    "TCP Congestion Control Beyond Bandwidth-Delay Product for Mobile Cellular Networks (PropRate; "
    "Leong et al., CoNEXT 2017)"
)

#: The paper the ABE numbers come from.
PAPER_ABE = (
    "Alternative Backoff: Achieving Low Latency and High Throughput with ECN and AQM (ABE; Khademi et al., "
    "IFIP Networking 2017; RFC 8511)"
)

PUBLISHED: dict[str, list[Published]] = {
    # C2TCP Table I: per-trace values normalised to C2TCP, averaged over traces (jitter not compared);
    # its delays are queueing delays (§VII-B: "average and 95th percentile queuing delay").
    "c2tcp-table1": [
        *_c2tcp_row("BBR", "bbr", 1.22, 2.44, 2.31),
        *_c2tcp_row("Verus", "verus", 1.12, 3.82, 3.22),
        *_c2tcp_row("Cubic", "cubic", 1.28, 8.95, 8.54),
        *_c2tcp_row("Sprout", "sprout", 1.13, 1.94, 1.64),
        *_c2tcp_row("Westwood", "westwood", 1.26, 6.89, 6.78),
        *_c2tcp_row("PCC-Vivace", "pcc-vivace", 1.04, 10.05, 10.52),
    ],
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
        Published(
            "abc-fig8",
            "Cubic+CoDel",
            "scheme's p95 delay / ABC's",
            "cubic+codel",
            "ABC ≈ Cubic+CoDel delay",
            1.0,
        ),
        Published("abc-fig8", "Copa", "scheme's p95 delay / ABC's", "copa", "ABC ≈ Copa delay", 1.0),
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

# ABC beside other traffic: Figs. 11, 13 and 20 of the ABC paper and C2TCP's
# friendliness figure. Thresholds that are ours (the paper states a claim, not a number) say so.
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
        "c2tcp-friendliness": [
            *[
                Published(
                    "c2tcp-friendliness",
                    name,
                    f"{name} / Cubic throughput, 60-120 s",
                    ours,
                    "shares fairly with Cubic (Figs. 16, 17)",
                    1.0,
                    low=0.6,
                    high=1.4,
                    why="0.6-1.4: the band of the core's integration test (the paper shows a figure)",
                )
                for name, ours in (("C2TCP", "c2tcp"), ("Cubic", "cubic"), ("Westwood", "westwood"))
            ],
            Published(
                "c2tcp-friendliness",
                "BBR",
                "BBR / Cubic throughput, 60-120 s (> 2: takes most of the link)",
                "bbr",
                "BBR takes nearly all the bandwidth from Cubic (Figs. 16, 17)",
                low=2.0,
                high=1e9,
                why='> 2: our reading of "nearly all" (the paper shows a figure)',
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
