"""Reproductions of results that used to be computed only elsewhere.

Before, these published results were checked only inside the Rust integration tests
(``crates/accelbrake-sim/tests/integration/delay.rs``: C2TCP's Target and buffer, PropRate's frontier,
feedback loop and presets), by a script (``scripts/proprate_contention.py``) or by hand with a sweep
(ABC's enqueue-rate ablation). Each is now an experiment document run by the sweep runner (process
pool or Ray, resumable) with a verdict per number or claim; the Rust tests stay.

The scenarios are the tests' (same links, delays, buffers, durations and parameters); the sweep draws
each run's trace offset from its seed (the tests pin it to 0), so the numbers are seed means, not
the tests' single run. The comparison functions get the row builders of
:mod:`accelbrake.experiments.reproduce` passed in (:class:`accelbrake.experiments.wifi.Helpers`), as
the Wi-Fi reproductions do; that module imports this one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments.published import Published
from accelbrake.experiments.wifi import Helpers

__all__ = ["DOCS", "PUBLISHED_ELSEWHERE", "SETUPS", "compare"]

_C2TCP_TRACE = "traces/Verizon-LTE-short.up"
#: The four LTE "short" traces of PropRate's frontier test (delay.rs).
LTE_SHORT = (
    "traces/TMobile-LTE-short.down",
    "traces/TMobile-LTE-short.up",
    "traces/Verizon-LTE-short.down",
    "traces/Verizon-LTE-short.up",
)
C2TCP_TARGETS = (25.0, 50.0, 75.0, 100.0)
#: Fig. 19's buffers, 75 KB to 1.5 MB, as full-size (1500-byte) packets.
C2TCP_BUFFERS = (50, 100, 200, 500, 1000)
FRONTIER_TARGETS = (12.0, 16.0, 20.0, 30.0, 40.0, 60.0, 80.0, 100.0, 120.0)
NFL_TARGETS = (40.0, 80.0, 120.0)
#: δ values of abc-stability (ms), across Theorem 1's bound 2/3·τ (τ = 100 ms: 66.7 ms).
STABILITY_DELTAS = (2.5, 5.0, 10.0, 20.0, 33.0, 50.0, 67.0, 100.0, 133.0, 200.0, 400.0)
STABILITY_RTT_MS = 100.0


def _sweep(
    name: str,
    description: str,
    schemes: Sequence[str],
    traces: Sequence[str],
    *,
    quick: bool,
    delay_ms: float,
    buffers: Sequence[int],
    variants: dict[str, Any] | None = None,
    run: dict[str, Any] | None = None,
    full_s: float = 140.0,
    quick_s: float = 40.0,
    seeds: tuple[int, int] = (1, 3),
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": name + ("-quick" if quick else ""),
        "description": description,
        "matrix": {
            "schemes": list(schemes),
            "traces": list(traces),
            "delay_ms": [delay_ms],
            "buffer_packets": list(buffers),
            "seeds": seeds[0] if quick else seeds[1],
        },
        "run": {"duration_s": quick_s if quick else full_s, "ack_mbps": 100.0, **(run or {})},
    }
    if variants:
        doc["schemes"] = variants
    return doc


# ---------------------------------------------------------------------------------------------
# Published values

_P = Published
PUBLISHED_ELSEWHERE: dict[str, list[Published]] = {
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
            "overshoots: BBR's sending rate above the link's capacity (utilisation of the sent packets > 1)",
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
            "if δ is very small, ABC reacts too forcefully to queue build up, causing under-utilization and "
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
    "c2tcp-target": [
        _P(
            "c2tcp-target",
            "C2TCP",
            "mean per-packet delay grows with Target",
            "c2tcp",
            "average delay follows the Target (25-75 ms)",
            claim=True,
        ),
        *[
            _P(
                "c2tcp-target",
                "C2TCP",
                f"mean per-packet delay / Target, Target {t:g} ms (Eq. 9)",
                "c2tcp",
                "RTT_avg < 1.5 × Setpoint (Eq. 9)",
                low=0.0,
                high=1.5,
            )
            for t in C2TCP_TARGETS
        ],
    ],
    "c2tcp-buffer": [
        _P(
            "c2tcp-buffer",
            "C2TCP",
            "mean per-packet delay, 1.5 MB buffer / 75 KB buffer",
            "c2tcp",
            "C2TCP's delay is insensitive to the buffer size (75 KB-1.5 MB)",
            1.0,
            tolerance=0.25,
            why="±25 %, as the Rust test c2tcp_delay_does_not_grow_with_the_buffer",
        ),
        _P(
            "c2tcp-buffer",
            "Cubic",
            "Cubic's mean per-packet delay grows with the buffer (1.5 MB ≥ 3 × 75 KB)",
            "cubic",
            "Cubic's delay grows with the buffer",
            claim=True,
        ),
    ],
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

# ---------------------------------------------------------------------------------------------
# Experiment documents

_C2TCP_SET = ["queue.bytes=150000"]


def doc_c2tcp_target(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    variants = {
        f"c2tcp-target-{t:g}": {
            "scheme": "c2tcp",
            "label": f"C2TCP Target {t:g} ms",
            "set": [f"c2tcp.target={t:g}"],
        }
        for t in C2TCP_TARGETS
    }
    return _sweep(
        "c2tcp-target",
        "C2TCP Fig. 18: Target 25-100 ms on the C2TCP setup",
        list(variants),
        traces or [_C2TCP_TRACE],
        quick=quick,
        delay_ms=10.0,
        buffers=[100],
        variants=variants,
        run={"set": _C2TCP_SET},
    )


def doc_c2tcp_buffer(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return _sweep(
        "c2tcp-buffer",
        "C2TCP Fig. 19: buffers 75 KB-1.5 MB (50-1000 full-size packets), C2TCP and Cubic",
        ["c2tcp", "cubic"],
        traces or [_C2TCP_TRACE],
        quick=quick,
        delay_ms=10.0,
        buffers=[C2TCP_BUFFERS[0], C2TCP_BUFFERS[-1]] if quick else list(C2TCP_BUFFERS),
    )


def doc_proprate_fig7(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    schemes = [
        "proprate-l",
        "proprate-m",
        "proprate-h",
        "cubic",
        "bbr",
        "sprout",
        "verus",
        "ledbat",
        "vegas",
        "westwood",
    ]
    return _sweep(
        "proprate-fig7",
        "PropRate Fig. 7: PR(L/M/H) and the others on a mobile LTE trace",
        [*schemes, "pcc-vivace"],
        traces or ["traces/Verizon-LTE-short.up"],
        quick=quick,
        delay_ms=10.0,
        buffers=[1000],
    )


def doc_proprate_frontier(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    targets = (12.0, 40.0, 120.0) if quick else FRONTIER_TARGETS
    variants = {
        f"proprate-{t:g}": {
            "scheme": "proprate",
            "label": f"PropRate t̄_buff {t:g} ms",
            "set": [f"proprate.target={t:g}"],
        }
        for t in targets
    }
    return _sweep(
        "proprate-frontier",
        "PropRate Fig. 11: t̄_buff 12-120 ms on the four LTE short traces",
        list(variants),
        traces or (list(LTE_SHORT[2:]) if quick else list(LTE_SHORT)),
        quick=quick,
        delay_ms=10.0,
        buffers=[1000],
        variants=variants,
        seeds=(1, 1),
    )


def doc_proprate_nfl(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    variants = {}
    for t in NFL_TARGETS:
        lmax = 200.0 if t > 80.0 else 100.0
        for fb in (True, False):
            variants[f"proprate-{t:g}-{'loop' if fb else 'noloop'}"] = {
                "scheme": "proprate",
                "label": f"PropRate {t:g} ms {'with' if fb else 'without'} the loop",
                "set": [
                    f"proprate.target={t:g}",
                    f"proprate.lmax={lmax:g}",
                    f"proprate.feedback={str(fb).lower()}",
                ],
            }
    return _sweep(
        "proprate-nfl",
        "PropRate Fig. 8: the negative-feedback loop, t̄_buff 40/80/120 ms, with and without",
        list(variants),
        traces or ["traces/Verizon-LTE-short.up", "traces/bw12_24_5_5.mahi"],
        quick=quick,
        delay_ms=10.0,
        buffers=[1000],
        variants=variants,
        seeds=(1, 1),
    )


def doc_proprate_contention(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    doc = _sweep(
        "proprate-contention",
        "PropRate Fig. 10: a second flow of the same scheme after 30 s, both for another 60 s",
        ["proprate-m", "proprate-h", "bbr", "cubic"],
        traces or ["traces/Verizon-LTE-short.up", "traces/TMobile-LTE-short.up", "const:12"],
        quick=quick,
        delay_ms=10.0,
        buffers=[1000],
        full_s=90.0,
        quick_s=90.0,
        seeds=(1, 5),
    )
    doc["matrix"]["seeds"] = [1] if quick else [1, 2, 3, 4, 5]
    doc["run"].update({"flow_starts_s": [0.0, 30.0], "sample_ms": 1000.0})
    return doc


def doc_abc_fig2(
    _cellular: Callable[..., dict[str, Any]], quick: bool, traces: list[str] | None
) -> dict[str, Any]:
    doc = _cellular(
        "abc-fig2" + ("-quick" if quick else ""),
        "ABC Fig. 2: f(t) from the dequeue rate (the design) and from the enqueue rate",
        ("abc", "abc-enqueue"),
        traces or ["traces/Verizon-LTE-short.up"],
        60.0 if quick else 140.0,
        1 if quick else 3,
    )
    doc["schemes"] = {
        "abc-enqueue": {"scheme": "abc", "label": "ABC (enqueue rate)", "set": ["abc.rate_source=enqueue"]}
    }
    return doc


def doc_abc_fig14(
    _cellular: Callable[..., dict[str, Any]], quick: bool, traces: list[str] | None
) -> dict[str, Any]:
    return _cellular(
        "abc-fig14" + ("-quick" if quick else ""),
        "ABC Fig. 14: BBR and ABC on Fig. 1's Verizon LTE trace",
        ("abc", "bbr"),
        traces or ["traces/Verizon-LTE-short.down"],
        30.0 if quick else 140.0,
        1 if quick else 3,
    )


def doc_abc_stability(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    deltas = (5.0, 10.0, 67.0, 133.0) if quick else STABILITY_DELTAS
    # d_t = 0: the target rate reacts to every queue (x = queueing delay); with the artifact's
    # d_t = 50 ms the queue of one flow on a constant link never reaches d_t and δ never acts.
    variants = {
        f"abc-delta-{d:g}": {
            "scheme": "abc",
            "label": f"ABC δ={d:g} ms",
            "set": [f"abc.delta={d:g}", "abc.dt=0"],
        }
        for d in deltas
    }
    return {
        "name": "abc-stability" + ("-quick" if quick else ""),
        "description": "ABC Theorem 1: δ swept across 2/3·τ on a constant 24 Mbit/s link, RTT 100 ms",
        "matrix": {
            "schemes": list(variants),
            "traces": traces or ["const:24"],
            "delay_ms": [STABILITY_RTT_MS / 2],
            "buffer_packets": [250],
            "seeds": 1,
        },
        "run": {"duration_s": 20.0 if quick else 60.0, "ack_mbps": 100.0, "sample_ms": 100.0},
        "schemes": variants,
    }


#: Documents built on the ABC paper's cellular setup: they take its builder
#: (:func:`accelbrake.experiments.reproduce._cellular`, passed in: that module imports this one).
CELLULAR_DOCS: dict[str, Callable[..., dict[str, Any]]] = {
    "abc-fig2": doc_abc_fig2,
    "abc-fig14": doc_abc_fig14,
}

DOCS = {
    "abc-stability": doc_abc_stability,
    "c2tcp-target": doc_c2tcp_target,
    "c2tcp-buffer": doc_c2tcp_buffer,
    "proprate-fig7": doc_proprate_fig7,
    "proprate-frontier": doc_proprate_frontier,
    "proprate-nfl": doc_proprate_nfl,
    "proprate-contention": doc_proprate_contention,
}

_C2TCP_SETUP = (
    "C2TCP paper setup (§VII): Verizon-LTE-short.up drives the data link, 10 ms one-way delay each way "
    "(min RTT 20 ms), drop-tail buffer, ACKs over 100 Mbit/s; the Rust test's scenario, seed means "
    "(offset drawn from the seed). Delay = per-packet delay (RTT + queueing), as the Rust test and "
    "Fig. 18's 'average e2e delay'."
)
_PROPRATE_SETUP = (
    "PropRate paper setup (§5): trace-driven link, 10 ms one-way delay each way (20 ms propagation), "
    "1000-packet drop-tail buffer (so the buffer does not bound the delay), ACKs over 100 Mbit/s."
)
SETUPS = {
    "abc-fig2": "ABC paper cellular setup on Verizon-LTE-short.up (the Rust probe's); p95 queueing delay.",
    "abc-fig14": "ABC paper cellular setup on Verizon-LTE-short.down (Fig. 1's setup); BBR and ABC.",
    "abc-stability": "one ABC flow on a constant 24 Mbit/s link, 50 ms one-way (τ = 100 ms, bound 2/3·τ = "
    "66.7 ms), 250-packet ABC router with d_t = 0 (so δ acts on every queue; with d_t = 50 ms one flow's "
    "queue never reaches d_t); δ swept from 2.5 to 400 ms (quick: 5, 10, 67, 133); oscillation = coefficient "
    "of variation of the flow's throughput over 100 ms bins after the first 5 s. Theorem 1 is a sufficient "
    "condition for a fluid model: it says where stability is guaranteed, not where oscillation starts.",
    "c2tcp-target": _C2TCP_SETUP + " 150 KB buffer, Target 25/50/75/100 ms.",
    "c2tcp-buffer": _C2TCP_SETUP + " Buffers 50-1000 full-size packets (75 KB-1.5 MB; quick: the two ends).",
    "proprate-fig7": _PROPRATE_SETUP + " Verizon-LTE-short.up (a mobile trace); p95 one-way delay. LEDBAT is "
    "not implemented here.",
    "proprate-frontier": _PROPRATE_SETUP + " t̄_buff 12-120 ms (quick: 12, 40, 120), means over the four LTE "
    "short traces (quick: the two Verizon ones).",
    "proprate-nfl": _PROPRATE_SETUP
    + " t̄_buff 40/80/120 ms (L_max 200 ms above 80) with and without the loop, "
    "on Verizon-LTE-short.up (median: its outages dominate the mean) and the 12 ↔ 24 Mbit/s square "
    "wave (mean).",
    "proprate-contention": _PROPRATE_SETUP
    + " A second flow of the same scheme at 30 s, shares over the last "
    "60 s of 90 s; Verizon/TMobile LTE short uplinks and a constant 12 Mbit/s link, seeds 1-5 "
    "(quick: seed 1).",
}

# ---------------------------------------------------------------------------------------------
# Comparisons


def _runs(results: pd.DataFrame) -> pd.DataFrame:
    return F.run_level(results)


def _cmp_c2tcp_target(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        _runs(results)
        .groupby("scheme", sort=False)[["run_per_packet_delay_mean_ms", "link_throughput_mbps"]]
        .mean()
    )
    ts = sorted((float(s.rsplit("-", 1)[1]), s) for s in m.index)
    d = [float(m.loc[s, "run_per_packet_delay_mean_ms"]) for _, s in ts]
    pubs = PUBLISHED_ELSEWHERE["c2tcp-target"]
    rows = [
        H.row(
            pubs[0],
            bool(np.all(np.diff(d) > 0)),
            note=", ".join(f"{t:g} ms → {x:.1f} ms" for (t, _), x in zip(ts, d, strict=True)),
        )
    ]
    by_t = dict(ts)
    for pub in pubs[1:]:
        t = float(pub.metric.split("Target ")[1].split()[0])
        s = by_t.get(t)
        if s is None:
            rows.append(H.row(pub, None, note="not in this run"))
            continue
        x = float(m.loc[s, "run_per_packet_delay_mean_ms"])
        thr = float(m.loc[s, "link_throughput_mbps"])
        rows.append(H.row(pub, x / t, note=f"mean per-packet delay {x:.1f} ms, {thr:.2f} Mbit/s"))
    return rows


def _cmp_c2tcp_buffer(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _runs(results).groupby(["scheme", "buffer_packets"])["run_per_packet_delay_mean_ms"].mean()
    rows = []
    for s in ("c2tcp", "cubic"):
        for b, v in m[s].items():
            rows.append(
                H.info(
                    F.display_name(s), f"mean per-packet delay ms, buffer {int(b) * 1.5:g} KB", float(v), 1
                )
            )
    c, k = m["c2tcp"], m["cubic"]
    lo, hi = min(c.index), max(c.index)
    a, b = PUBLISHED_ELSEWHERE["c2tcp-buffer"]
    rows.append(H.row(a, float(c[hi] / c[lo]), note=f"{c[lo]:.1f} → {c[hi]:.1f} ms"))
    rows.append(H.row(b, bool(k[hi] >= 3 * k[lo]), note=f"{k[lo]:.1f} → {k[hi]:.1f} ms"))
    return rows


def _cmp_proprate_fig7(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    m = runs.groupby("scheme", sort=False)[
        ["link_throughput_mbps", "link_utilization", "queueing_delay_mean_ms", "one_way_delay_p95_ms"]
    ].mean()
    rows = []
    for s in m.index:
        r = H.info(
            F.display_name(s),
            "throughput Mbit/s / p95 one-way delay ms",
            float(m.loc[s, "link_throughput_mbps"]),
        )
        r["ours_text"] = f"{m.loc[s, 'link_throughput_mbps']:.2f} / {m.loc[s, 'one_way_delay_p95_ms']:.0f}"
        rows.append(r)
    pubs = PUBLISHED_ELSEWHERE["proprate-fig7"]
    pr = ["proprate-l", "proprate-m", "proprate-h"]
    thr = [float(m.loc[s, "link_throughput_mbps"]) for s in pr]
    dl = [float(m.loc[s, "queueing_delay_mean_ms"]) for s in pr]
    ok = bool(np.all(np.diff(thr) > 0) and np.all(np.diff(dl) > 0))
    rows.append(
        H.row(
            pubs[0],
            ok,
            note="throughput "
            + " < ".join(f"{x:.2f}" for x in thr)
            + " Mbit/s; mean queueing "
            + " < ".join(f"{x:.0f}" for x in dl)
            + " ms",
        )
    )
    d = pd.DataFrame(
        {
            "scheme": list(m.index),
            "link_utilization": m["link_utilization"].to_numpy(),
            "run_per_packet_delay_p95_ms": m["one_way_delay_p95_ms"].to_numpy(),
        }
    )
    others = d[~d["scheme"].isin(pr)]
    for pub in pubs[1:4]:
        one = pd.concat([others, d[d["scheme"] == pub.ours]])
        ok, note = H.frontier(one, ref=pub.ours)
        rows.append(H.row(pub, ok, note=note.replace(" ms", " ms p95 one-way")))
    return rows


def _cmp_proprate_frontier(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    m = runs.groupby("scheme", sort=False)[["link_throughput_mbps", "queueing_delay_p50_ms"]].mean()
    ts = sorted((float(s.rsplit("-", 1)[1]), s) for s in m.index)
    thr = [float(m.loc[s, "link_throughput_mbps"]) for _, s in ts]
    p50 = [float(m.loc[s, "queueing_delay_p50_ms"]) for _, s in ts]
    rows = []
    for (t, _), a, b in zip(ts, thr, p50, strict=True):
        r = H.info("PropRate", f"t̄_buff {t:g} ms: throughput Mbit/s / median queueing delay ms", a)
        r["ours_text"] = f"{a:.2f} / {b:.1f}"
        rows.append(r)
    p1, p2, p3 = PUBLISHED_ELSEWHERE["proprate-frontier"]
    rows.append(H.row(p1, bool(all(y >= 0.97 * x for x, y in zip(thr, thr[1:], strict=False)))))
    rows.append(H.row(p2, bool(all(y > x for x, y in zip(p50, p50[1:], strict=False)))))
    rows.append(H.row(p3, bool(thr[-1] > 1.2 * thr[0]), note=f"{thr[0]:.2f} → {thr[-1]:.2f} Mbit/s"))
    return rows


def _cmp_proprate_nfl(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    m = runs.groupby(["scheme", "trace"], sort=False)[
        ["queueing_delay_p50_ms", "queueing_delay_mean_ms"]
    ].mean()
    rows = []
    pubs = PUBLISHED_ELSEWHERE["proprate-nfl"]
    for pub in pubs:
        t = float(pub.metric.split("t̄_buff ")[1].split()[0])
        square = "12 ↔ 24" in pub.metric
        tr = next((x for x in m.index.get_level_values("trace") if ("bw12_24" in str(x)) == square), None)
        col = "queueing_delay_mean_ms" if square else "queueing_delay_p50_ms"
        key_on, key_off = (f"proprate-{t:g}-loop", tr), (f"proprate-{t:g}-noloop", tr)
        if tr is None or key_on not in m.index:
            rows.append(H.row(pub, None, note="not in this run"))
            continue
        on = float(m.loc[key_on, col])
        off = float(m.loc[key_off, col]) if key_off in m.index else math.nan
        rows.append(H.row(pub, on / t, note=f"{on:.1f} ms with the loop, {off:.1f} ms without"))
    return rows


def _share(out: Path, run_ids: Sequence[str], t0: float) -> float:
    vals = []
    for rid in run_ids:
        ts = pd.read_parquet(out / "runs" / f"{rid}.flows.parquet")
        w = ts[ts["t_s"] >= t0 - 1e-9]
        if w.empty:  # the run ended before the second flow started (a shortened run): it got nothing
            w = ts[ts["flow"] == 0]
        r = w.groupby("flow")["throughput_mbps"].mean()
        if r.get(0, 0.0) > 0:
            vals.append(float(r.get(1, 0.0) / r[0]))
    return float(np.mean(vals)) if vals else math.nan


def _cmp_proprate_contention(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    rows = []
    for pub in PUBLISHED_ELSEWHERE["proprate-contention"]:
        sel = runs[runs["scheme"] == pub.ours]
        per_trace = {
            Path(str(t)).name: _share(out, list(g["run_id"]), 30.0)
            for t, g in sel.groupby("trace", sort=False)
        }
        v = float(np.mean(list(per_trace.values()))) if per_trace else None
        note = "; ".join(f"{k} {x:.2f}" for k, x in per_trace.items())
        rows.append(H.row(pub, v, note=f"mean over links and seeds: {note}"))
    return rows


def _cmp_abc_fig2(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _runs(results).groupby("scheme", sort=False)[["queueing_delay_p95_ms", "link_utilization"]].mean()
    q, u = m["queueing_delay_p95_ms"], m["link_utilization"]
    (pub,) = PUBLISHED_ELSEWHERE["abc-fig2"]
    note = (
        f"p95 queueing delay {q['abc']:.0f} ms (dequeue) → {q['abc-enqueue']:.0f} ms (enqueue); utilisation "
        f"{u['abc']:.3f} → {u['abc-enqueue']:.3f}"
    )
    return [H.row(pub, float(q["abc-enqueue"] / q["abc"]), note=note)]


def _cmp_abc_fig14(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    m = runs.groupby("scheme", sort=False)[
        ["run_queueing_delay_p95_ms", "link_utilization", "packets_sent", "delivered_packets", "drops"]
    ].mean()
    q = m["run_queueing_delay_p95_ms"]
    a, b = PUBLISHED_ELSEWHERE["abc-fig14"]
    sent_over = float(m.loc["bbr", "drops"]) > 0
    return [
        H.row(
            a,
            bool(q["bbr"] > 2 * q["abc"]),
            note=f"p95 queueing delay BBR {q['bbr']:.0f} ms, ABC {q['abc']:.0f} ms",
        ),
        H.row(
            b,
            sent_over,
            note=f"BBR: {m.loc['bbr', 'drops']:.0f} drops at the 250-packet buffer (sent more than the "
            "link carried), "
            f"utilisation {m.loc['bbr', 'link_utilization']:.3f}",
        ),
    ]


def _throughput_cv(out: Path, run_ids: Sequence[str]) -> float:
    vals = []
    for rid in run_ids:
        f = pd.read_parquet(out / "runs" / f"{rid}.flows.parquet")
        x = f[(f["flow"] == 0) & (f["t_s"] >= 5.0)]["throughput_mbps"]
        vals.append(float(x.std() / x.mean()) if x.mean() > 0 else math.nan)
    return float(np.mean(vals)) if vals else math.nan


def _cmp_abc_stability(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = _runs(results)
    bound = 2.0 / 3.0 * STABILITY_RTT_MS
    pts = []
    for s, g in runs.groupby("scheme", sort=False):
        d = float(str(s).rsplit("-", 1)[1])
        pts.append((d, _throughput_cv(out, list(g["run_id"])), float(g["link_utilization"].mean())))
    pts.sort()
    rows = []
    for d, cv, u in pts:
        r = H.info(
            f"ABC δ={d:g} ms",
            f"{'below' if d < bound else 'above'} 2/3·τ: throughput CV / utilisation",
            cv,
            3,
            "Theorem 1",
        )
        r["ours_text"] = f"{cv:.3f} / {u:.3f}"
        rows.append(r)
    a, b, c = PUBLISHED_ELSEWHERE["abc-stability"]
    above = [(d, cv) for d, cv, _ in pts if d > bound]
    below = [(d, cv) for d, cv, _ in pts if d < bound]
    unstable = [d for d, cv in below if cv > 0.1]
    rows.append(
        H.row(
            a,
            bool(above) and all(cv < 0.05 for _, cv in above),
            note=f"largest CV above: {max(cv for _, cv in above):.3f}",
        )
        if above
        else H.row(a, None, note="no δ above the bound")
    )
    where = (
        f"unstable at δ ≤ {max(unstable):g} ms ({max(unstable) / STABILITY_RTT_MS:.3g}·τ), "
        "stable from the next δ on"
        if unstable
        else "no δ below the bound oscillates"
    )
    rows.append(
        H.row(b, bool(unstable), note=where) if below else H.row(b, None, note="no δ below the bound")
    )
    u = {d: x for d, _, x in pts}
    if 133.0 in u and pts[0][0] < bound:
        lo = pts[0][0]
        rows.append(H.row(c, bool(u[lo] < u[133.0]), note=f"δ={lo:g}: {u[lo]:.3f}, δ=133: {u[133.0]:.3f}"))
    return rows


_COMPARE = {
    "abc-fig2": _cmp_abc_fig2,
    "abc-fig14": _cmp_abc_fig14,
    "abc-stability": _cmp_abc_stability,
    "c2tcp-target": _cmp_c2tcp_target,
    "c2tcp-buffer": _cmp_c2tcp_buffer,
    "proprate-fig7": _cmp_proprate_fig7,
    "proprate-frontier": _cmp_proprate_frontier,
    "proprate-nfl": _cmp_proprate_nfl,
    "proprate-contention": _cmp_proprate_contention,
}


def compare(rid: str, H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """The comparison rows of reproduction ``rid``."""
    return _COMPARE[rid](H, results, out)


# ---------------------------------------------------------------------------------------------
# The ABE paper's Figs. 4-7: the abe-sweep grid (accelbrake.experiments.abe) with a verdict per number


def _abe_published() -> list[tuple[Published, tuple[str, str, int, float, float, str]]]:
    """The ABE paper's numbers of Figs. 4-7 with what they compare: (scheme, aqm, RTT, β_ecn, base β_ecn,
    column). Throughput gains (%) are judged at ±20 %; a delay change the paper states in ms within
    ±1 ms (its resolution), one it states as "< X ms" as a claim."""
    from accelbrake.experiments import abe

    out: list[tuple[Published, tuple[str, str, int, float, float, str]]] = []
    for g in abe.PAPER_GAINS:
        fig = "Fig. 4" if g.scheme == "newreno-abe" else "Fig. 6"
        name = abe.SCHEMES[g.scheme]
        pub = _P(
            "abe-figures",
            name,
            f"{fig}: {name} throughput gain % with {abe.AQM_LABELS[g.aqm]}, RTT {g.rtt_ms} ms, β_ecn "
            f"{g.beta:g} over {g.base:g}",
            g.scheme,
            f"{g.paper_pct:+g} %",
            g.paper_pct,
        )
        out.append((pub, (g.scheme, g.aqm, g.rtt_ms, g.beta, g.base, "throughput_mbps")))
    # Fig. 5 (NewReno, CoDel) and Fig. 7 (Cubic, CoDel and PIE), RTT 100 ms: changes of the median and
    # 90th-percentile queueing delay (§IV-B).
    changes = [
        ("Fig. 5", "newreno-abe", "codel", 0.5, 0.85, "p50", 1.0, "+1 ms"),
        ("Fig. 5", "newreno-abe", "codel", 0.5, 0.85, "p90", None, "< 2 ms"),
    ]
    for aqm in ("codel", "pie"):
        changes += [
            ("Fig. 7", "cubic-abe", aqm, 0.7, 0.85, "p50", 2.5, "+2.5 ms"),
            ("Fig. 7", "cubic-abe", aqm, 0.7, 0.85, "p90", None, "< 1 ms"),
            ("Fig. 7", "cubic-abe", aqm, 0.7, 0.95, "p50", 5.0, "+5 ms"),
            ("Fig. 7", "cubic-abe", aqm, 0.7, 0.95, "p90", None, "< 1 ms"),
        ]
    for fig, scheme, aqm, base, beta, stat, ms, text in changes:
        name = abe.SCHEMES[scheme]
        what = "median" if stat == "p50" else "90th-percentile"
        metric = (
            f"{fig}: {name} {what} queueing delay change ms with {abe.AQM_LABELS[aqm]}, RTT 100 ms, β_ecn "
            f"{base:g} → {beta:g}"
        )
        if ms is None:
            bound = float(text.split("<")[1].split()[0])
            pub = _P("abe-figures", name, metric + f" below {bound:g} ms", scheme, text, claim=True)
        else:
            pub = _P("abe-figures", name, metric, scheme, text, ms, low=ms - 1.0, high=ms + 1.0)
        out.append((pub, (scheme, aqm, 100, beta, base, f"queueing_delay_{stat}_ms")))
    return out


def run_abe_figures(
    H: Helpers, out: Path, quick: bool, secs: float | None, *, executor: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Run the ABE grid into ``out`` (resumable: ``out/runs``) and judge Figs. 4-7's numbers. Full: the
    paper's grid (β_ecn 0.5-0.95, RTT 100/200/400 ms, 600 s); quick: the β_ecn values and RTTs the
    numbers need, 120 s."""
    from accelbrake.experiments import abe

    dur = secs or (abe.QUICK_DURATION_S if quick else abe.DURATION_S)
    counts: dict[str, int] = {}
    table, scenarios = abe.run_sweep(
        duration_s=dur,
        betas=abe.QUICK_BETAS if quick else abe.BETAS,
        rtts_ms=(100, 400) if quick else abe.RTTS_MS,
        out_dir=out,
        progress=False,
        counts=counts,
        executor=executor,
    )
    abe.write_outputs(
        table,
        abe.paper_comparison(table),
        out,
        settings={"duration_s": dur, "quick": quick},
        scenarios=scenarios,
    )
    rows = []
    for pub, (scheme, aqm, rtt, beta, base, col) in _abe_published():
        hi = abe._lookup(table, scheme, aqm, rtt, beta, col)
        lo = abe._lookup(table, scheme, aqm, rtt, base, col)
        if hi is None or lo is None:
            rows.append(H.row(pub, None, note="not in this grid"))
            continue
        if col == "throughput_mbps":
            rows.append(H.row(pub, 100.0 * (hi / lo - 1.0), note=f"{lo:.2f} → {hi:.2f} Mbit/s", digits=1))
        elif pub.claim is not None:
            bound = float(pub.text.split("<")[1].split()[0])
            rows.append(H.row(pub, hi - lo < bound, note=f"{lo:.1f} → {hi:.1f} ms"))
        else:
            rows.append(H.row(pub, hi - lo, note=f"{lo:.1f} → {hi:.1f} ms", digits=1))
    return rows, len(table), counts.get("reused", 0)


# ---------------------------------------------------------------------------------------------
# The ABE paper's Figs. 11 and 12: 10 ECN Cubic-ABE flows against 10 non-ECN NewReno flows

ABE_FAIRNESS_BETAS = (0.7, 0.75, 0.8, 0.85, 0.9)
ABE_FAIRNESS_RTTS = (20, 80, 160, 320)


def _abe_fairness_published() -> list[Published]:
    rows = []
    for aqm, fig in (("codel", "Fig. 11"), ("pie", "Fig. 12")):
        name = "CoDel" if aqm == "codel" else "PIE"
        for b in ABE_FAIRNESS_BETAS:
            if b >= 0.9:
                text, lo, hi = "on average limited to a factor of 2.5 for β_ecn = 0.9 (§IV-D)", 1.0, 2.5
            else:
                text, lo, hi = "between 1.25 and 2 for β_ecn between 0.7 and 0.85 (§IV-D)", 1.25, 2.0
            rows.append(
                _P(
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
            _P(
                "abe-fairness",
                "Cubic-ABE vs NewReno",
                f"{fig} ({name}): a larger β_ecn increases the throughput ratio",
                "cubic-abe",
                "generally a larger β_ecn value increased the throughput ratio (§IV-D)",
                claim=True,
            )
        )
    return rows


def abe_fairness_scenario(aqm: str, rtt_ms: int, beta: float, duration_s: float, seed: int) -> dict[str, Any]:
    """Figs. 11/12: the ABE sweep's bottleneck (10 Mbit/s, CoDel or PIE with ECN marking, 1000 packets)
    with 10 Cubic-ABE flows (ECN, β_ecn ``beta``) and 10 NewReno flows without ECN, all from t = 0."""
    from accelbrake.experiments import abe

    sc = abe.abe_scenario("cubic-abe", aqm, rtt_ms, beta, duration_s, seed=seed, record_packets=False)
    sc["flows"] = [
        {
            "scheme": "cubic-abe",
            "params": {"beta_ecn": beta},
            "fwd": [0],
            "rev": [1],
            "ecn": True,
            "count": 10,
        },
        {"scheme": "newreno", "fwd": [0], "rev": [1], "ecn": False, "count": 10},
    ]
    return sc


def run_abe_fairness(
    H: Helpers, out: Path, quick: bool, secs: float | None, *, executor: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Run Figs. 11/12 into ``out`` (resumable) and judge them. Full: RTT 20/80/160/320 ms, 330 s (the
    paper's ~5 minutes after slow start plus 30 s), seeds 0-2; quick: 120 s, seed 0."""
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.runner import Task, run_scenarios

    dur = secs or (120.0 if quick else 330.0)
    seeds = (0,) if quick else (0, 1, 2)
    tasks = []
    for aqm in ("codel", "pie"):
        for rtt in ABE_FAIRNESS_RTTS:
            for b in ABE_FAIRNESS_BETAS:
                for seed in seeds:
                    key = (aqm, rtt, b, seed)
                    labels = {"aqm": aqm, "rtt_ms": rtt, "beta_ecn": b, "seed": seed}
                    sc = abe_fairness_scenario(aqm, rtt, b, dur, seed)
                    tasks.append(
                        Task(key, sc, f"abe-fairness {aqm} RTT {rtt} ms β_ecn {b:g} seed {seed}", labels)
                    )
    outcome = run_scenarios(tasks, out, kind="summary", executor=executor or LocalExecutor(), progress=False)
    table = []
    for t in tasks:
        aqm, rtt, b, seed = t.key  # type: ignore[misc]
        fl = outcome.results[t.key]["flows"]
        ecn = sum(float(f["throughput_mbps"] or 0.0) for f in fl[:10])
        non = sum(float(f["throughput_mbps"] or 0.0) for f in fl[10:])
        table.append(
            {
                "aqm": aqm,
                "rtt_ms": rtt,
                "beta_ecn": b,
                "seed": seed,
                "ratio": ecn / non if non > 0 else math.nan,
            }
        )
    d = pd.DataFrame(table)
    d.to_csv(out / "abe-fairness.csv", index=False)
    per = d.groupby(["aqm", "beta_ecn", "rtt_ms"])["ratio"].mean()
    rows = []
    for aqm in ("codel", "pie"):
        for b in ABE_FAIRNESS_BETAS:
            vals = per[aqm][b]
            r = H.info(
                "Cubic-ABE vs NewReno",
                f"{'CoDel' if aqm == 'codel' else 'PIE'}, β_ecn {b:g}: ratio at RTT "
                + "/".join(str(x) for x in vals.index)
                + " ms",
                float(vals.mean()),
                2,
                "in the figure",
            )
            r["ours_text"] = " / ".join(f"{x:.2f}" for x in vals)
            rows.append(r)
    means = d.groupby(["aqm", "beta_ecn"])["ratio"].mean()
    for pub in _abe_fairness_published():
        aqm = "codel" if "CoDel" in pub.metric else "pie"
        m = means[aqm]
        if pub.claim is not None:
            ok = bool(
                m[max(ABE_FAIRNESS_BETAS)] > m[min(ABE_FAIRNESS_BETAS)]
                and np.all(np.diff(m.to_numpy()) > -0.05)
            )
            rows.append(H.row(pub, ok, note=" → ".join(f"{x:.2f}" for x in m)))
        else:
            b = float(pub.metric.rsplit("β_ecn ", 1)[1])
            rows.append(H.row(pub, float(m[b])))
    return rows, outcome.total, outcome.skipped


# ---------------------------------------------------------------------------------------------
# ABC Fig. 4: two bottlenecks in series, as data (files/abc-fig4.toml, the [[hops]] table)

#: The experiment files of reproductions that are data, not code.
FILES = Path(__file__).resolve().parent / "files"


def _steps_of(doc: dict[str, Any]) -> list[tuple[float, float]]:
    """(start s, Mbit/s) of the wireless hop's rate steps in abc-fig4.toml."""
    text = next(h["link"] for h in doc["hops"] if h.get("name") == "wireless")
    out = []
    for item in text.split(":", 1)[1].split(","):
        t, r = item.split("=")
        out.append((float(t), float(r)))
    return out


def doc_abc_fig4(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    import tomllib

    doc = tomllib.loads((FILES / "abc-fig4.toml").read_text(encoding="utf-8"))
    if quick:
        doc["name"] += "-quick"
    if traces:
        doc["matrix"]["traces"] = traces
    return doc


PUBLISHED_ELSEWHERE["abc-fig4"] = [
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
SETUPS["abc-fig4"] = (
    "Experiment file files/abc-fig4.toml: one abc-cubic flow (ABC's §4.1 sender keeping w_abc and w_cubic) "
    "through an ABC wireless hop whose rate steps every 5 s (6, 18, 9, 24, 4, 15, 8, 20 Mbit/s) and then a "
    "12 Mbit/s wired drop-tail hop (100 packets); 25 ms one-way each way, ACKs over 100 Mbit/s, 40 s, seed 1 "
    "(the Rust probe's scenario). Ideal rate = the slower link's."
)
DOCS["abc-fig4"] = doc_abc_fig4


def _cmp_abc_fig4(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    import tomllib

    doc = tomllib.loads((FILES / "abc-fig4.toml").read_text(encoding="utf-8"))
    steps = _steps_of(doc)
    wired = float(str(doc["matrix"]["traces"][0]).split(":")[1])
    runs = _runs(results)
    frames = [pd.read_parquet(out / "runs" / f"{rid}.flows.parquet") for rid in runs["run_id"]]
    rows, of_ideal, abc_ok, cubic_ok = [], [], [], []
    for i, (t0, rate) in enumerate(steps):
        t1 = steps[i + 1][0] if i + 1 < len(steps) else float(doc["run"]["duration_s"])
        ideal = min(rate, wired)
        thr, limits = [], []
        for f in frames:
            f = f[f["flow"] == 0]
            w = f[(f["t_s"] >= t0 + 1.0 - 1e-9) & (f["t_s"] < t1 - 1e-9)]
            thr.append(float(w["throughput_mbps"].mean()))
            last = f[(f["t_s"] >= t1 - 2.0 - 1e-9) & (f["t_s"] < t1 - 1e-9)]
            limits.append(float((last["w_abc"] <= last["w_cubic"]).mean()))
        x, lim = float(np.mean(thr)), float(np.mean(limits))
        of_ideal.append(x / ideal)
        (abc_ok if rate < wired else cubic_ok).append(lim if rate < wired else 1.0 - lim)
        r = H.info(
            "ABC (w_cubic)",
            f"{t0:g}-{t1:g} s, wireless {rate:g} Mbit/s ({'wireless' if rate < wired else 'wired'} the "
            "bottleneck): throughput / ideal, share of time w_abc limits",
            x / ideal,
            3,
        )
        r["ours_text"] = f"{x / ideal:.3f} / {100 * lim:.0f} %"
        rows.append(r)
    a, b, c = PUBLISHED_ELSEWHERE["abc-fig4"]
    rows.append(H.row(a, bool(min(of_ideal) >= 0.85), note=f"lowest {min(of_ideal):.3f} × ideal"))
    rows.append(
        H.row(
            b, bool(min(abc_ok) > 0.5), note=f"w_abc limits {100 * min(abc_ok):.0f}-{100 * max(abc_ok):.0f} %"
        )
    )
    rows.append(
        H.row(
            c,
            bool(min(cubic_ok) > 0.5),
            note=f"w_cubic limits {100 * min(cubic_ok):.0f}-{100 * max(cubic_ok):.0f} %",
        )
    )
    return rows


_COMPARE["abc-fig4"] = _cmp_abc_fig4


# ---------------------------------------------------------------------------------------------
# ABC Fig. 7c: uplink then downlink, two cellular bottlenecks in series ([[hops]] with queue "same")

FIG7C_SCHEMES = ("abc", "cubic+codel", "copa", "cubic", "pcc-vivace", "bbr", "sprout", "verus", "vegas")


def doc_abc_fig7c(
    _cellular: Callable[..., dict[str, Any]], quick: bool, traces: list[str] | None
) -> dict[str, Any]:
    up, down = (traces or ["traces/Verizon-LTE-short.up", "traces/Verizon-LTE-short.down"])[:2]
    doc = _cellular(
        "abc-fig7c" + ("-quick" if quick else ""),
        "ABC Fig. 7c: Verizon LTE uplink then downlink, each with the scheme's queue",
        FIG7C_SCHEMES,
        [up],
        60.0 if quick else 140.0,
        1 if quick else 3,
    )
    doc["hops"] = [{"name": "downlink", "link": down, "queue": "same", "delay_ms": 0.0}]
    return doc


CELLULAR_DOCS["abc-fig7c"] = doc_abc_fig7c
PUBLISHED_ELSEWHERE["abc-fig7c"] = [
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
SETUPS["abc-fig7c"] = (
    "ABC paper cellular setup with two bottlenecks in series: Verizon-LTE-short.up drives the first data "
    "hop and Verizon-LTE-short.down the second (an experiment document with a [[hops]] table), each with "
    "the scheme's queue (ABC routers for ABC, CoDel for Cubic+CoDel, drop-tail for the others; 250 "
    "packets); 50 ms one-way before the first hop and 50 ms on the 12 Mbit/s ACK link (min RTT 100 ms); "
    "utilisation of the slower hop (lower mean capacity), p95 per-packet delay."
)


def _cmp_abc_fig7c(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        _runs(results)
        .groupby("scheme", sort=False)[["link_utilization", "run_per_packet_delay_p95_ms"]]
        .mean()
    )
    rows = []
    for s in m.index:
        r = H.info(
            F.display_name(s), "utilisation / p95 per-packet delay ms", float(m.loc[s, "link_utilization"]), 3
        )
        r["ours_text"] = f"{m.loc[s, 'link_utilization']:.3f} / {m.loc[s, 'run_per_packet_delay_p95_ms']:.0f}"
        rows.append(r)
    ok, note = H.frontier(m.reset_index())
    rows.append(H.row(PUBLISHED_ELSEWHERE["abc-fig7c"][0], ok, note=note))
    return rows


_COMPARE["abc-fig7c"] = _cmp_abc_fig7c


# ---------------------------------------------------------------------------------------------
# The ABE paper's buffer rule (Eq. 1): full utilisation needs b ≥ BDP·(1 − β)/β

ABE_BUFFER_BETAS = (0.5, 0.7, 0.9)
ABE_BUFFER_FRACTIONS = (0.25, 0.5, 1.0, 2.0)
#: 10 Mbit/s × 100 ms in 1500-byte packets.
ABE_BUFFER_BDP = 10e6 * 0.1 / 8 / 1500


def _abe_rule(beta: float) -> float:
    return ABE_BUFFER_BDP * (1.0 - beta) / beta


def _abe_buffers(beta: float) -> dict[float, int]:
    return {f: max(1, round(f * _abe_rule(beta))) for f in ABE_BUFFER_FRACTIONS}


def doc_abe_buffer(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    variants = {
        f"newreno-beta-{b:g}": {
            "scheme": "newreno",
            "label": f"NewReno β={b:g}",
            "set": [f"newreno.beta={b:g}"],
        }
        for b in ABE_BUFFER_BETAS
    }
    buffers = sorted({n for b in ABE_BUFFER_BETAS for n in _abe_buffers(b).values()})
    return _sweep(
        "abe-buffer",
        "ABE Eq. 1: one NewReno flow, β 0.5/0.7/0.9, drop-tail buffers at 0.25-2 × BDP·(1 − β)/β",
        list(variants),
        traces or ["const:10"],
        quick=quick,
        delay_ms=50.0,
        buffers=buffers,
        variants=variants,
        full_s=120.0,
        quick_s=60.0,
        seeds=(1, 1),
    )


DOCS["abe-buffer"] = doc_abe_buffer
PUBLISHED_ELSEWHERE["abe-buffer"] = [
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
SETUPS["abe-buffer"] = (
    "ABE paper §III (Eq. 1; its Fig. 1's path): one NewReno flow over a constant 10 Mbit/s link with a "
    "drop-tail buffer, RTT 100 ms (50 ms each way; BDP 83.3 packets), ACKs over 100 Mbit/s, β "
    "(newreno.beta) 0.5, 0.7, 0.9, "
    "buffers 0.25, 0.5, 1 and 2 × BDP·(1 − β)/β; 120 s (quick 60 s) from slow start; utilisation of the "
    "link over the whole run."
)


def _cmp_abe_buffer(H: Helpers, results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _runs(results).groupby(["scheme", "buffer_packets"])["link_utilization"].mean()
    rows = []
    u: dict[float, dict[float, float]] = {}
    for b in ABE_BUFFER_BETAS:
        s = f"newreno-beta-{b:g}"
        u[b] = {f: float(m.get((s, n), math.nan)) for f, n in _abe_buffers(b).items()}
        r = H.info(
            f"NewReno β={b:g}",
            "utilisation at "
            + ", ".join(f"{f:g}×" for f in ABE_BUFFER_FRACTIONS)
            + f" the rule ({_abe_rule(b):.1f} packets)",
            u[b][1.0],
            3,
            "Fig. 1 (model and simulation)",
        )
        r["ours_text"] = " / ".join(f"{u[b][f]:.3f}" for f in ABE_BUFFER_FRACTIONS)
        rows.append(r)
    pubs = PUBLISHED_ELSEWHERE["abe-buffer"]
    for pub, b in zip(pubs[:3], ABE_BUFFER_BETAS, strict=True):
        ok = u[b][1.0] >= 0.98 and u[b][2.0] >= 0.98
        rows.append(H.row(pub, bool(ok), note=f"{u[b][1.0]:.3f} and {u[b][2.0]:.3f}"))
    for pub, b in zip(pubs[3:], ABE_BUFFER_BETAS, strict=True):
        rows.append(H.row(pub, bool(u[b][0.5] < u[b][1.0]), note=f"{u[b][0.5]:.3f} vs {u[b][1.0]:.3f}"))
    return rows


_COMPARE["abe-buffer"] = _cmp_abe_buffer
