"""The PropRate paper's reproductions (``accelbrake reproduce proprate-...``): experiment documents
and the comparisons that turn their runs into rows beside the published values of
:mod:`accelbrake.papers.proprate.published`.

* ``proprate-fig7``: PR(L/M/H) and the other schemes on the throughput/delay plane (Fig. 7);
* ``proprate-frontier``: t̄_buff 12-120 ms, the performance frontier (Fig. 11);
* ``proprate-nfl``: the negative-feedback loop brings the buffer delay to the target (Fig. 8);
* ``proprate-contention``: a second flow of the same scheme after 30 s (Fig. 10).

The scenarios are those of the core's Rust tests (same links, delays, buffers and parameters); the
sweep draws each run's trace offset from its seed, so the numbers are seed means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments import rows as R
from accelbrake.experiments.reproduce import Reproduction, file_document, sweep_document
from accelbrake.papers.proprate.published import CITATION, NFL_TARGETS, PUBLISHED, TITLES

_R = partial(Reproduction, paper=CITATION, reference="proprate-m")

#: The four LTE "short" traces of PropRate's frontier test (delay.rs).
LTE_SHORT = (
    "traces/TMobile-LTE-short.down",
    "traces/TMobile-LTE-short.up",
    "traces/Verizon-LTE-short.down",
    "traces/Verizon-LTE-short.up",
)


FRONTIER_TARGETS = (12.0, 16.0, 20.0, 30.0, 40.0, 60.0, 80.0, 100.0, 120.0)


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
    return sweep_document(
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
    return sweep_document(
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


#: The experiment files of reproductions that are data, not code.
FILES = Path(__file__).resolve().parent / "files"


DOCS = {
    "proprate-fig7": file_document(FILES / "proprate-fig7.toml"),
    "proprate-frontier": doc_proprate_frontier,
    "proprate-nfl": doc_proprate_nfl,
    "proprate-contention": file_document(FILES / "proprate-contention.toml"),
}


_PROPRATE_SETUP = (
    "PropRate paper setup (§5): trace-driven link, 10 ms one-way delay each way (20 ms propagation), "
    "1000-packet drop-tail buffer (so the buffer does not bound the delay), ACKs over 100 Mbit/s."
)


SETUPS = {
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


def _cmp_proprate_fig7(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    m = runs.groupby("scheme", sort=False)[
        ["link_throughput_mbps", "link_utilization", "queueing_delay_mean_ms", "one_way_delay_p95_ms"]
    ].mean()
    rows = []
    for s in m.index:
        r = R.info(
            F.display_name(s),
            "throughput Mbit/s / p95 one-way delay ms",
            float(m.loc[s, "link_throughput_mbps"]),
        )
        r["ours_text"] = f"{m.loc[s, 'link_throughput_mbps']:.2f} / {m.loc[s, 'one_way_delay_p95_ms']:.0f}"
        rows.append(r)
    pubs = PUBLISHED["proprate-fig7"]
    pr = ["proprate-l", "proprate-m", "proprate-h"]
    thr = [float(m.loc[s, "link_throughput_mbps"]) for s in pr]
    dl = [float(m.loc[s, "queueing_delay_mean_ms"]) for s in pr]
    ok = bool(np.all(np.diff(thr) > 0) and np.all(np.diff(dl) > 0))
    rows.append(
        R.row(
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
        ok, note = R.outside_pareto_frontier(one, ref=pub.ours)
        rows.append(R.row(pub, ok, note=note.replace(" ms", " ms p95 one-way")))
    return rows


def _cmp_proprate_frontier(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    m = runs.groupby("scheme", sort=False)[["link_throughput_mbps", "queueing_delay_p50_ms"]].mean()
    ts = sorted((float(s.rsplit("-", 1)[1]), s) for s in m.index)
    thr = [float(m.loc[s, "link_throughput_mbps"]) for _, s in ts]
    p50 = [float(m.loc[s, "queueing_delay_p50_ms"]) for _, s in ts]
    rows = []
    for (t, _), a, b in zip(ts, thr, p50, strict=True):
        r = R.info("PropRate", f"t̄_buff {t:g} ms: throughput Mbit/s / median queueing delay ms", a)
        r["ours_text"] = f"{a:.2f} / {b:.1f}"
        rows.append(r)
    p1, p2, p3 = PUBLISHED["proprate-frontier"]
    rows.append(R.row(p1, bool(all(y >= 0.97 * x for x, y in zip(thr, thr[1:], strict=False)))))
    rows.append(R.row(p2, bool(all(y > x for x, y in zip(p50, p50[1:], strict=False)))))
    rows.append(R.row(p3, bool(thr[-1] > 1.2 * thr[0]), note=f"{thr[0]:.2f} → {thr[-1]:.2f} Mbit/s"))
    return rows


def _cmp_proprate_nfl(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    m = runs.groupby(["scheme", "trace"], sort=False)[
        ["queueing_delay_p50_ms", "queueing_delay_mean_ms"]
    ].mean()
    rows = []
    pubs = PUBLISHED["proprate-nfl"]
    for pub in pubs:
        t = float(pub.metric.split("t̄_buff ")[1].split()[0])
        square = "12 ↔ 24" in pub.metric
        tr = next((x for x in m.index.get_level_values("trace") if ("bw12_24" in str(x)) == square), None)
        col = "queueing_delay_mean_ms" if square else "queueing_delay_p50_ms"
        key_on, key_off = (f"proprate-{t:g}-loop", tr), (f"proprate-{t:g}-noloop", tr)
        if tr is None or key_on not in m.index:
            rows.append(R.row(pub, None, note="not in this run"))
            continue
        on = float(m.loc[key_on, col])
        off = float(m.loc[key_off, col]) if key_off in m.index else math.nan
        rows.append(R.row(pub, on / t, note=f"{on:.1f} ms with the loop, {off:.1f} ms without"))
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


def _cmp_proprate_contention(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    rows = []
    for pub in PUBLISHED["proprate-contention"]:
        sel = runs[runs["scheme"] == pub.ours]
        per_trace = {
            Path(str(t)).name: _share(out, list(g["run_id"]), 30.0)
            for t, g in sel.groupby("trace", sort=False)
        }
        v = float(np.mean(list(per_trace.values()))) if per_trace else None
        note = "; ".join(f"{k} {x:.2f}" for k, x in per_trace.items())
        rows.append(R.row(pub, v, note=f"mean over links and seeds: {note}"))
    return rows


COMPARE = {
    "proprate-fig7": _cmp_proprate_fig7,
    "proprate-frontier": _cmp_proprate_frontier,
    "proprate-nfl": _cmp_proprate_nfl,
    "proprate-contention": _cmp_proprate_contention,
}


#: Where in the paper each reproduction's numbers are.
_CITES = {
    "proprate-fig7": "Fig. 7, §5.1",
    "proprate-frontier": "Fig. 11, §5.3",
    "proprate-nfl": "Fig. 8, §5.2",
    "proprate-contention": "Fig. 10, §5.4",
}
_MAIN_PLOTS = {"proprate-nfl": "timeseries"}  # the buffer delay converging to the target

#: Every PropRate reproduction by id, in the order of :data:`accelbrake.papers.proprate.published.TITLES`.
REPRODUCTIONS: dict[str, Reproduction] = {
    rid: _R(
        rid,
        TITLES[rid],
        SETUPS[rid],
        DOCS[rid],
        COMPARE[rid],
        cite=_CITES[rid],
        main_plot=_MAIN_PLOTS.get(rid, "tradeoff"),
    )
    for rid in TITLES
}
