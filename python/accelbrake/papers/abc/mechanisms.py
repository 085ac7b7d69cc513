"""The ABC paper's mechanism checks: results first checked by the core's Rust tests or by hand, each
an experiment document run by the sweep runner with a verdict per number or claim.

* ``abc-fig2``: f(t) from the enqueue rate instead of the dequeue rate (§3.1.1);
* ``abc-fig4``: an ABC wireless hop in series with a wired drop-tail hop, w_abc or w_cubic limits
  (§4; the experiment file ``files/abc-fig4.toml``);
* ``abc-fig7c``: uplink and downlink, two cellular bottlenecks in series (§7.3);
* ``abc-fig14``: BBR against ABC on Fig. 1's trace (Appendix A);
* ``abc-stability``: Theorem 1's bound δ > 2/3·τ (§4.2, Appendix C).

The scenarios are the Rust tests' (same links, delays, buffers, durations and parameters); the
sweep draws each run's trace offset from its seed (the tests pin it to 0), so the numbers are seed
means, not the tests' single run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments import rows as R
from accelbrake.experiments.reproduce import file_document
from accelbrake.papers.abc.published import PUBLISHED
from accelbrake.papers.abc.setup import cellular

#: δ values of abc-stability (ms), across Theorem 1's bound 2/3·τ (τ = 100 ms: 66.7 ms).
STABILITY_DELTAS = (2.5, 5.0, 10.0, 20.0, 33.0, 50.0, 67.0, 100.0, 133.0, 200.0, 400.0)


STABILITY_RTT_MS = 100.0


def doc_abc_fig2(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    doc = cellular(
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


def doc_abc_fig14(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return cellular(
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


DOCS: dict[str, Callable[[bool, list[str] | None], dict[str, Any]]] = {
    "abc-fig2": doc_abc_fig2,
    "abc-fig14": doc_abc_fig14,
}


DOCS.update(
    {
        "abc-stability": doc_abc_stability,
    }
)


SETUPS = {
    "abc-fig2": "ABC paper cellular setup on Verizon-LTE-short.up (the Rust probe's); p95 queueing delay.",
    "abc-fig14": "ABC paper cellular setup on Verizon-LTE-short.down (Fig. 1's setup); BBR and ABC.",
    "abc-stability": "one ABC flow on a constant 24 Mbit/s link, 50 ms one-way (τ = 100 ms, bound 2/3·τ = "
    "66.7 ms), 250-packet ABC router with d_t = 0 (so δ acts on every queue; with d_t = 50 ms one flow's "
    "queue never reaches d_t); δ swept from 2.5 to 400 ms (quick: 5, 10, 67, 133); oscillation = coefficient "
    "of variation of the flow's throughput over 100 ms bins after the first 5 s. Theorem 1 is a sufficient "
    "condition for a fluid model: it says where stability is guaranteed, not where oscillation starts.",
}


def _cmp_abc_fig2(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        F.run_level(results)
        .groupby("scheme", sort=False)[["queueing_delay_p95_ms", "link_utilization"]]
        .mean()
    )
    q, u = m["queueing_delay_p95_ms"], m["link_utilization"]
    (pub,) = PUBLISHED["abc-fig2"]
    note = (
        f"p95 queueing delay {q['abc']:.0f} ms (dequeue) → {q['abc-enqueue']:.0f} ms (enqueue); utilisation "
        f"{u['abc']:.3f} → {u['abc-enqueue']:.3f}"
    )
    return [R.row(pub, float(q["abc-enqueue"] / q["abc"]), note=note)]


def _cmp_abc_fig14(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    m = runs.groupby("scheme", sort=False)[
        ["run_queueing_delay_p95_ms", "link_utilization", "packets_sent", "delivered_packets", "drops"]
    ].mean()
    q = m["run_queueing_delay_p95_ms"]
    a, b = PUBLISHED["abc-fig14"]
    sent_over = float(m.loc["bbr", "drops"]) > 0
    return [
        R.row(
            a,
            bool(q["bbr"] > 2 * q["abc"]),
            note=f"p95 queueing delay BBR {q['bbr']:.0f} ms, ABC {q['abc']:.0f} ms",
        ),
        R.row(
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


def _cmp_abc_stability(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    bound = 2.0 / 3.0 * STABILITY_RTT_MS
    pts = []
    for s, g in runs.groupby("scheme", sort=False):
        d = float(str(s).rsplit("-", 1)[1])
        pts.append((d, _throughput_cv(out, list(g["run_id"])), float(g["link_utilization"].mean())))
    pts.sort()
    rows = []
    for d, cv, u in pts:
        r = R.info(
            f"ABC δ={d:g} ms",
            f"{'below' if d < bound else 'above'} 2/3·τ: throughput CV / utilisation",
            cv,
            3,
            "Theorem 1",
        )
        r["ours_text"] = f"{cv:.3f} / {u:.3f}"
        rows.append(r)
    a, b, c = PUBLISHED["abc-stability"]
    above = [(d, cv) for d, cv, _ in pts if d > bound]
    below = [(d, cv) for d, cv, _ in pts if d < bound]
    unstable = [d for d, cv in below if cv > 0.1]
    rows.append(
        R.row(
            a,
            bool(above) and all(cv < 0.05 for _, cv in above),
            note=f"largest CV above: {max(cv for _, cv in above):.3f}",
        )
        if above
        else R.row(a, None, note="no δ above the bound")
    )
    where = (
        f"unstable at δ ≤ {max(unstable):g} ms ({max(unstable) / STABILITY_RTT_MS:.3g}·τ), "
        "stable from the next δ on"
        if unstable
        else "no δ below the bound oscillates"
    )
    rows.append(
        R.row(b, bool(unstable), note=where) if below else R.row(b, None, note="no δ below the bound")
    )
    u = {d: x for d, _, x in pts}
    if 133.0 in u and pts[0][0] < bound:
        lo = pts[0][0]
        rows.append(R.row(c, bool(u[lo] < u[133.0]), note=f"δ={lo:g}: {u[lo]:.3f}, δ=133: {u[133.0]:.3f}"))
    return rows


COMPARE = {
    "abc-fig2": _cmp_abc_fig2,
    "abc-fig14": _cmp_abc_fig14,
    "abc-stability": _cmp_abc_stability,
}


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


doc_abc_fig4 = file_document(FILES / "abc-fig4.toml")


SETUPS["abc-fig4"] = (
    "Experiment file files/abc-fig4.toml: one abc-cubic flow (ABC's §4.1 sender keeping w_abc and w_cubic) "
    "through an ABC wireless hop whose rate steps every 5 s (6, 18, 9, 24, 4, 15, 8, 20 Mbit/s) and then a "
    "12 Mbit/s wired drop-tail hop (100 packets); 25 ms one-way each way, ACKs over 100 Mbit/s, 40 s, seed 1 "
    "(the Rust probe's scenario). Ideal rate = the slower link's."
)


DOCS["abc-fig4"] = doc_abc_fig4


def _cmp_abc_fig4(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    import tomllib

    doc = tomllib.loads((FILES / "abc-fig4.toml").read_text(encoding="utf-8"))
    steps = _steps_of(doc)
    wired = float(str(doc["matrix"]["traces"][0]).split(":")[1])
    runs = F.run_level(results)
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
        r = R.info(
            "ABC (w_cubic)",
            f"{t0:g}-{t1:g} s, wireless {rate:g} Mbit/s ({'wireless' if rate < wired else 'wired'} the "
            "bottleneck): throughput / ideal, share of time w_abc limits",
            x / ideal,
            3,
        )
        r["ours_text"] = f"{x / ideal:.3f} / {100 * lim:.0f} %"
        rows.append(r)
    a, b, c = PUBLISHED["abc-fig4"]
    rows.append(R.row(a, bool(min(of_ideal) >= 0.85), note=f"lowest {min(of_ideal):.3f} × ideal"))
    rows.append(
        R.row(
            b, bool(min(abc_ok) > 0.5), note=f"w_abc limits {100 * min(abc_ok):.0f}-{100 * max(abc_ok):.0f} %"
        )
    )
    rows.append(
        R.row(
            c,
            bool(min(cubic_ok) > 0.5),
            note=f"w_cubic limits {100 * min(cubic_ok):.0f}-{100 * max(cubic_ok):.0f} %",
        )
    )
    return rows


COMPARE["abc-fig4"] = _cmp_abc_fig4


FIG7C_SCHEMES = ("abc", "cubic+codel", "copa", "cubic", "pcc-vivace", "bbr", "sprout", "verus", "vegas")


def doc_abc_fig7c(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    up, down = (traces or ["traces/Verizon-LTE-short.up", "traces/Verizon-LTE-short.down"])[:2]
    doc = cellular(
        "abc-fig7c" + ("-quick" if quick else ""),
        "ABC Fig. 7c: Verizon LTE uplink then downlink, each with the scheme's queue",
        FIG7C_SCHEMES,
        [up],
        60.0 if quick else 140.0,
        1 if quick else 3,
    )
    doc["hops"] = [{"name": "downlink", "link": down, "queue": "same", "delay_ms": 0.0}]
    return doc


DOCS["abc-fig7c"] = doc_abc_fig7c


SETUPS["abc-fig7c"] = (
    "ABC paper cellular setup with two bottlenecks in series: Verizon-LTE-short.up drives the first data "
    "hop and Verizon-LTE-short.down the second (an experiment document with a [[hops]] table), each with "
    "the scheme's queue (ABC routers for ABC, CoDel for Cubic+CoDel, drop-tail for the others; 250 "
    "packets); 50 ms one-way before the first hop and 50 ms on the 12 Mbit/s ACK link (min RTT 100 ms); "
    "utilisation of the slower hop (lower mean capacity), p95 per-packet delay."
)


def _cmp_abc_fig7c(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        F.run_level(results)
        .groupby("scheme", sort=False)[["link_utilization", "run_per_packet_delay_p95_ms"]]
        .mean()
    )
    rows = []
    for s in m.index:
        r = R.info(
            F.display_name(s), "utilisation / p95 per-packet delay ms", float(m.loc[s, "link_utilization"]), 3
        )
        r["ours_text"] = f"{m.loc[s, 'link_utilization']:.3f} / {m.loc[s, 'run_per_packet_delay_p95_ms']:.0f}"
        rows.append(r)
    ok, note = R.outside_pareto_frontier(m.reset_index())
    rows.append(R.row(PUBLISHED["abc-fig7c"][0], ok, note=note))
    return rows


COMPARE["abc-fig7c"] = _cmp_abc_fig7c
