"""``accelbrake reproduce ID...``: named experiments from the papers (ABC, NSDI 2020; C2TCP, JSAC 2019).

Each reproduction is an experiment document (the same TOML schema as ``accelbrake sweep``), run
with the sweep runner, plus a comparison of our numbers with the published ones
(:mod:`accelbrake.experiments.published`): value, published value, ratio ours/published and a
verdict (:mod:`accelbrake.experiments.verdicts`: reproduced, differs, direction holds/fails). Schemes
the paper compares against that do not exist here are listed as "not implemented"; parts of a
figure that need something the simulator lacks say "not available yet" and why.

Reproductions that average over traces run on a named trace set
(:mod:`accelbrake.experiments.tracesets`): the ABC paper's averages on its own traces (5 of its 8
are bundled), the other cellular traces in a robustness table of their own, C2TCP Table I on the
C2TCP paper's traces. ``--quick`` shortens the runs (and uses a 2-trace subset of the set, named in
the output) for a first look; its numbers are not the reproduction.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake import catalog
from accelbrake._io import atomic_path, atomic_write_json
from accelbrake._text import did_you_mean
from accelbrake.experiments import abe_repro as ABE_REPRO
from accelbrake.experiments import elsewhere as ELSEWHERE
from accelbrake.experiments import figures as F
from accelbrake.experiments import mixed as M
from accelbrake.experiments import verdicts as V
from accelbrake.experiments import wifi as W
from accelbrake.experiments.catalog import TITLES, UNAVAILABLE
from accelbrake.experiments.published import (
    PAPER,
    PAPER_ABE,
    PAPER_C2TCP,
    PAPER_PROPRATE,
    PUBLISHED,
    Published,
)
from accelbrake.experiments.spec import ExperimentError, apply_overrides, parse_experiment
from accelbrake.experiments.tracesets import ABC_PAPER, C2TCP_PAPER, CELLULAR_ROBUSTNESS, TraceSet
from accelbrake.tables import MISSING, render_table

#: The ABC paper's cellular setup (§7), which is also the default network of the core's catalog.
_DELAY_MS = catalog.network_default("delay_ms")
_BUFFER = int(catalog.network_default("buffer_packets"))
_ACK_MBPS = catalog.network_default("ack_mbps")

__all__ = [
    "REPRODUCTIONS",
    "UNAVAILABLE",
    "Reproduction",
    "compare",
    "format_comparison",
    "outside_pareto_frontier",
    "summarise",
]

#: The bundled Verizon LTE traces (``traces/``): Fig. 7's default and the quick subset of the paper's set.
BUNDLED_TRACES = ("traces/Verizon-LTE-short.down", "traces/Verizon-LTE-short.up")

#: The ABC paper's comparators that exist here, in the order of its tables (XCP runs over its own
#: router: see EXPLICIT_SCHEMES).
CELLULAR_SCHEMES = ("abc", "cubic+codel", "copa", "cubic", "pcc-vivace", "bbr", "sprout", "verus")
#: Fig. 1's schemes, in its panel order (a) Cubic, (b) Verus, (c) Cubic+CoDel, (d) ABC.
FIG1_SCHEMES = ("cubic", "verus", "cubic+codel", "abc")
#: The explicit schemes of the ABC paper's §7.3 and Appendix F (Fig. 18), each over its own router.
EXPLICIT_SCHEMES = ("xcp", "xcp-w", "rcp", "vcp")
#: Cubic+CoDel as in the ABC artifact (exp.sh: target 50 ms, interval 100 ms, 250 packets).
ARTIFACT_CODEL = "codel target=50,interval=100"
#: Copa as the ABC paper ran it: the authors' UDP implementation (genericCC, §7 "we used the UDP
#: implementations provided by the authors"), whose receiver sends one ACK per packet
#: (genericCC `receiver.cc`: "For each packet received, acks back"), so no delayed ACKs.
COPA_PER_PACKET_ACKS = ("flow.delayed_ack=false",)


def expand_traces(items: Sequence[str]) -> list[str]:
    """``--traces`` items: files as given, folders replaced by their trace files (every file but
    ``README*``, ``*.md``, ``SHA256SUMS`` and hidden ones; subfolders are not entered)."""
    out: list[str] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out.extend(
                str(f)
                for f in sorted(p.iterdir())
                if f.is_file()
                and not f.name.startswith((".", "README"))
                and f.suffix != ".md"
                and f.name != "SHA256SUMS"
            )
        else:
            out.append(item)
    return out


# ---------------------------------------------------------------------------------------------
# Comparison rows


def _num_text(v: float | None, digits: int = 2) -> str:
    if v is None or not math.isfinite(v):
        return MISSING
    return f"{v:.{digits}f}"


def _row(
    pub: Published, ours: float | bool | None, *, digits: int = 2, note: str = "", percent: bool = False
) -> dict[str, Any]:
    """One comparison row with its verdict (:func:`accelbrake.experiments.verdicts.judge`); ``ours``
    is a number, a yes/no answer to a claim, or ``None``."""
    claim = pub.claim is not None
    has_range = pub.low is not None and pub.high is not None
    quantitative = not claim and (pub.value is not None or has_range)
    v = V.judge(
        ours,
        value=pub.value,
        low=pub.low,
        high=pub.high,
        claim=pub.claim,
        tolerance=pub.tolerance,
        implemented=pub.ours is not None,
    )
    row: dict[str, Any] = {
        "scheme": pub.scheme,
        "our_scheme": pub.ours,
        "metric": pub.metric,
        "published": pub.value,
        "published_text": pub.text,
        "ours": None,
        "ours_text": MISSING,
        "ratio": v.ratio,
        "ratio_text": V.ratio_text(v.ratio, pub.tolerance),
        "kind": "claim" if claim else "number" if quantitative else "info",
        "verdict": v.verdict,
        "verdict_text": v.text,
        "tolerance": pub.tolerance if pub.tolerance is not None else V.DEFAULT_TOLERANCE,
        "tolerance_text": V.tolerance_text(pub.tolerance, pub.low, pub.high) if quantitative else "",
        "note": note,
    }
    if not quantitative or v.verdict == V.NOT_IMPLEMENTED:
        row["tolerance"] = None
        row["tolerance_text"] = ""
    if pub.why:
        row["note"] = f"{pub.why}; {note}" if note else pub.why
    if v.verdict == V.NOT_IMPLEMENTED:
        return {
            **row,
            "ours_text": "not implemented",
            "note": note or f"{pub.scheme} is not implemented in accelbrake",
        }
    if v.verdict == V.NO_DATA:
        return {**row, "note": note or "no value (missing runs?)"}
    if claim:
        return {
            **row,
            "ours": bool(ours),
            "ours_text": "yes" if ours else "no",
            "published_text": f"{'yes' if pub.claim else 'no'}: {pub.text}",
        }
    x = float(ours)  # type: ignore[arg-type]
    return {**row, "ours": x, "ours_text": f"{100 * x:.1f} %" if percent else _num_text(x, digits)}


def _info(
    scheme: str, metric: str, ours: float, digits: int = 2, published: str = "figure only"
) -> dict[str, Any]:
    """A row of our numbers the paper gives only as a figure (no ratio, verdict ``not compared``)."""
    return {
        "scheme": scheme,
        "our_scheme": None,
        "metric": metric,
        "published": None,
        "published_text": published,
        "ours": ours,
        "ours_text": _num_text(ours, digits),
        "ratio": None,
        "ratio_text": "n/a",
        "kind": "info",
        "verdict": V.NOT_COMPARED,
        "verdict_text": V.NOT_COMPARED,
        "tolerance": None,
        "tolerance_text": "",
        "note": "",
    }


def _scheme_trace_means(results: pd.DataFrame, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Seed means per scheme × trace (× extra axes) of the run-level metrics."""
    runs = F.run_level(results)
    cols = ["link_utilization", "run_per_packet_delay_p95_ms", "run_per_packet_delay_mean_ms", "jain_index"]
    return runs.groupby(["scheme", "trace", *extra], sort=False)[cols].mean().reset_index()


def _over_traces(results: pd.DataFrame) -> pd.DataFrame:
    """Per scheme: the mean over traces of the seed means."""
    m = _scheme_trace_means(results)
    return m.groupby("scheme", sort=False)[[c for c in m.columns if c not in ("scheme", "trace")]].mean()


def _outside_frontier(d: pd.DataFrame, ref: str = "abc") -> tuple[bool | None, str]:
    """Whether ``ref``'s point is not dominated by any other scheme's (no other has at least its
    utilisation with at most its p95 delay); also the dominating schemes."""
    if ref not in set(d["scheme"]):
        return None, f"no {ref} run"
    r = d[d["scheme"] == ref].iloc[0]
    beats = d[
        (d["scheme"] != ref)
        & (d["link_utilization"] >= r["link_utilization"])
        & (d["run_per_packet_delay_p95_ms"] <= r["run_per_packet_delay_p95_ms"])
    ]
    if len(beats):
        return False, "dominated by " + ", ".join(F.display_name(s) for s in beats["scheme"])
    return True, ""


# ---------------------------------------------------------------------------------------------
# The comparisons


def _cmp_table(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _over_traces(results)
    u = m["link_utilization"]
    d = m["run_per_packet_delay_p95_ms"]
    rows = []
    for pub in PUBLISHED["abc-table"]:
        if pub.ours is None:
            rows.append(_row(pub, None))
        elif pub.metric == "utilisation":
            rows.append(_row(pub, float(u["abc"]), percent=True))
        elif pub.metric.startswith("p95"):
            rows.append(_row(pub, float(d["abc"]), digits=0))
        elif pub.metric == "norm. utilisation":
            rows.append(_row(pub, float(u[pub.ours] / u["abc"])))
        else:
            rows.append(_row(pub, float(d[pub.ours] / d["abc"])))
    return rows


def _cmp_fig8(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _over_traces(results)
    rows = []
    for pub in PUBLISHED["abc-fig8"]:
        if pub.ours is None:
            rows.append(_row(pub, None))
            continue
        if pub.metric.startswith("ABC utilisation"):
            v = m.loc["abc", "link_utilization"] / m.loc[pub.ours, "link_utilization"]
        elif "p95" in pub.metric:
            v = m.loc[pub.ours, "run_per_packet_delay_p95_ms"] / m.loc["abc", "run_per_packet_delay_p95_ms"]
        else:
            v = m.loc[pub.ours, "run_per_packet_delay_mean_ms"] / m.loc["abc", "run_per_packet_delay_mean_ms"]
        rows.append(_row(pub, float(v)))
    for s in ("xcp", "xcp-w"):
        if s in m.index:
            name = F.display_name(s)
            u = float(m.loc[s, "link_utilization"] / m.loc["abc", "link_utilization"])
            d = float(m.loc[s, "run_per_packet_delay_p95_ms"] / m.loc["abc", "run_per_packet_delay_p95_ms"])
            rows.append(_info(name, "scheme's utilisation / ABC's", u))
            rows.append(
                _info(name, "scheme's p95 delay / ABC's", d, published="in the figure; see abc-fig18")
            )
    return rows


def _frontier_util_at(front: pd.DataFrame, delay: float) -> float:
    """The utilisation of the others' Pareto frontier at ``delay``: its points joined by straight
    lines on a logarithmic delay axis (as our Fig. 7 plots draw it), flat beyond its highest delay,
    and ``-inf`` below its lowest (no other scheme reaches that delay)."""
    xs = np.log(front["run_per_packet_delay_p95_ms"].to_numpy(dtype=float))
    ys = front["link_utilization"].to_numpy(dtype=float)
    x = math.log(delay)
    if x < xs[0]:
        return -math.inf
    if x >= xs[-1]:
        return float(ys[-1])
    return float(np.interp(x, xs, ys))


def outside_pareto_frontier(d: pd.DataFrame, ref: str = "abc") -> tuple[bool | None, str]:
    """Whether ``ref`` sits outside the Pareto frontier of the other schemes in ``d`` (one row per
    scheme, one trace: ``link_utilization`` and ``run_per_packet_delay_p95_ms``): above the line
    through the others' non-dominated points at its own delay, i.e. higher utilisation than the
    frontier reaches at that delay, or a delay no other scheme reaches (the ABC paper, Fig. 7, §7.3:
    "sits well outside the Pareto frontier of the existing schemes"). Also a note with the numbers."""
    if ref not in set(d["scheme"]):
        return None, f"no {ref} run"
    r = d[d["scheme"] == ref].iloc[0]
    others = d[d["scheme"] != ref].reset_index(drop=True)
    if not len(others):
        return None, "no other scheme to compare with"
    idx = F.pareto_frontier(others["run_per_packet_delay_p95_ms"], others["link_utilization"])
    front = others.iloc[idx]
    u, dl = float(r["link_utilization"]), float(r["run_per_packet_delay_p95_ms"])
    fu = _frontier_util_at(front, dl)
    names = ", ".join(F.display_name(s) for s in front["scheme"])
    where = (
        f"the others' frontier ({names}) reaches no delay that low"
        if fu == -math.inf
        else f"the others' frontier ({names}) reaches {100 * fu:.1f} % there"
    )
    note = f"{F.display_name(ref)} {100 * u:.1f} % at {dl:.0f} ms; {where}"
    return u > fu, note


def _cmp_fig7(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """Per trace: ABC against the other schemes on the same trace (never across traces), one
    frontier verdict per trace of each direction."""
    m = _scheme_trace_means(results)
    rows = []
    for pub in PUBLISHED["abc-fig7"]:
        if pub.ours is None:
            rows.append(_row(pub, None))
            continue
        if pub.metric == "point on the plane":
            for t in dict.fromkeys(m["trace"]):
                d = m[(m["trace"] == t) & (m["scheme"] == pub.ours)]
                if not len(d):
                    continue
                row = _info(
                    pub.scheme,
                    f"utilisation / p95 per-packet delay ms, {Path(str(t)).name}",
                    float(d["link_utilization"].iloc[0]),
                    3,
                    pub.text,
                )
                row["ours_text"] = (
                    f"{float(d['link_utilization'].iloc[0]):.3f} / "
                    f"{float(d['run_per_packet_delay_p95_ms'].iloc[0]):.0f}"
                )
                row["trace"] = str(t)
                rows.append(row)
            continue
        if pub.metric.startswith("utilisation below ABC's"):
            # §7.3 / App. F: ABC "consistently outperformed" RCP and VCP in utilisation.
            for t in dict.fromkeys(m["trace"]):
                here = m[m["trace"] == t].set_index("scheme")["link_utilization"]
                if pub.ours not in here or "abc" not in here:
                    continue
                u, ua = float(here[pub.ours]), float(here["abc"])
                row = _row(pub, bool(u < ua), note=f"{pub.scheme} {100 * u:.1f} %, ABC {100 * ua:.1f} %")
                row["metric"] = f"{pub.metric}, {Path(str(t)).name}"
                row["trace"] = str(t)
                rows.append(row)
            continue
        suffix = ".down" if "downlink" in pub.metric else ".up"
        traces = [t for t in dict.fromkeys(m["trace"]) if str(t).endswith(suffix)]
        if not traces:
            rows.append(_row(pub, None, note=f"no {suffix} trace in the sweep"))
            continue
        for t in traces:
            ok, note = outside_pareto_frontier(m[m["trace"] == t])
            row = _row(pub, ok, note=note)
            row["metric"] = f"{pub.metric}, {Path(str(t)).name}"
            row["trace"] = str(t)
            rows.append(row)
    return rows


def _cmp_fig21(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        _scheme_trace_means(results, ["delay_ms"])
        .groupby(["scheme", "delay_ms"], sort=False)
        .mean(numeric_only=True)
    )
    m = m.reset_index()
    rows = []
    for pub in PUBLISHED["abc-fig21"]:
        rtt = float(pub.metric.rsplit("RTT ", 1)[1].split()[0])
        d = m[(2 * m["delay_ms"] - rtt).abs() < 1e-6]
        ok, note = _outside_frontier(d) if len(d) else (None, f"no run with RTT {rtt:g} ms")
        rows.append(_row(pub, ok, note=note))
    return rows


def _bin_stats(out: Path, run_ids: Sequence[str]) -> tuple[float, float]:
    """Over the runs' 100 ms bins (flow 0): the mean standard deviation of the throughput (rate
    variation) and the largest per-bin p95 per-packet delay (the peak of Fig. 1's delay panel)."""
    stds, peaks = [], []
    for rid in run_ids:
        ts = pd.read_parquet(out / "runs" / f"{rid}.flows.parquet")
        ts = ts[ts["flow"] == 0]
        stds.append(float(ts["throughput_mbps"].std()))
        peaks.append(float(ts["delay_p95_ms"].max()))
    return (float(np.mean(stds)) if stds else math.nan, float(np.mean(peaks)) if peaks else math.nan)


def _cmp_fig1(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    cols = ["link_utilization", "run_per_packet_delay_p95_ms", "run_queueing_delay_p95_ms"]
    m = runs.groupby("scheme", sort=False)[cols].mean()
    bins = {s: _bin_stats(out, list(runs.loc[runs["scheme"] == s, "run_id"])) for s in m.index}
    u, d, q = m["link_utilization"], m["run_per_packet_delay_p95_ms"], m["run_queueing_delay_p95_ms"]
    need = set(FIG1_SCHEMES)
    if not need <= set(m.index):
        missing = ", ".join(sorted(need - set(m.index)))
        return [_row(pub, None, note=f"missing runs: {missing}") for pub in PUBLISHED["abc-fig1"]]
    checks: list[tuple[bool | float, str]] = [
        (
            bool(u["cubic"] > u["cubic+codel"]),
            f"utilisation Cubic {u['cubic']:.2f}, Cubic+CoDel {u['cubic+codel']:.2f}",
        ),
        (
            bool(d["cubic"] > 2 * d["abc"]),
            f"p95 per-packet delay Cubic {d['cubic']:.0f} ms, ABC {d['abc']:.0f} ms",
        ),
        (bins["cubic"][1], "largest per-bin p95 per-packet delay (100 ms bins)"),
        (
            bool(d["verus"] > d["abc"]),
            f"p95 per-packet delay Verus {d['verus']:.0f} ms, ABC {d['abc']:.0f} ms",
        ),
        (
            bool(bins["verus"][0] > bins["abc"][0]),
            f"std of 100 ms throughput bins: Verus {bins['verus'][0]:.2f}, ABC {bins['abc'][0]:.2f} Mbit/s",
        ),
        (
            bool(u["cubic+codel"] < u["abc"]),
            f"utilisation Cubic+CoDel {u['cubic+codel']:.2f}, ABC {u['abc']:.2f}",
        ),
        (
            bool(q["cubic+codel"] < 0.5 * q["cubic"]),
            f"p95 queueing delay Cubic+CoDel {q['cubic+codel']:.0f} ms, Cubic {q['cubic']:.0f} ms",
        ),
        (bool(u["abc"] >= 0.9), f"ABC utilisation {u['abc']:.3f}"),
        (
            bool(q["abc"] <= 2 * q["cubic+codel"]),
            f"p95 queueing delay ABC {q['abc']:.0f} ms, Cubic+CoDel {q['cubic+codel']:.0f} ms",
        ),
    ]
    rows = []
    for pub, (ours, note) in zip(PUBLISHED["abc-fig1"], checks, strict=True):
        rows.append(_row(pub, ours, note=note, digits=0))
    return rows


def _cmp_fig19(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = _over_traces(results)
    rows = []
    for pub in PUBLISHED["abc-fig19"]:
        if pub.ours is None or pub.ours not in m.index:
            rows.append(_row(pub, None))
            continue
        v = float(m.loc[pub.ours, "link_utilization"])
        if pub.claim is not None:
            a = float(m.loc["abc", "link_utilization"])
            note = f"{F.display_name(pub.ours)} {100 * v:.1f} % vs ABC {100 * a:.1f} %"
            rows.append(_row(pub, v < a, note=note))
        else:
            rows.append(_row(pub, v, percent=True))
    for s in ("xcp", "vcp"):
        if s in m.index:
            rows.append(_info(F.display_name(s), "utilisation", float(m.loc[s, "link_utilization"]), 3))
    return rows


def _cmp_fig18(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """Fig. 18: trace averages of the seed means; every ratio against ABC's."""
    m = _over_traces(results)
    u, d = m["link_utilization"], m["run_per_packet_delay_p95_ms"]
    rows = []
    for pub in PUBLISHED["abc-fig18"]:
        if pub.ours is None or pub.ours not in m.index:
            rows.append(_row(pub, None))
        elif pub.metric.startswith("ABC utilisation"):
            rows.append(_row(pub, float(u["abc"] / u[pub.ours])))
        elif pub.metric.startswith("scheme's utilisation"):
            rows.append(_row(pub, float(u[pub.ours] / u["abc"])))
        else:
            rows.append(_row(pub, float(d[pub.ours] / d["abc"])))
    for s in m.index:
        name = "ABC η=0.94" if s == "abc-eta-0.94" else F.display_name(s)
        r = _info(
            name,
            "utilisation / mean per-packet delay ms (Fig. 18's axes)",
            float(u[s]),
            3,
        )
        r["ours_text"] = f"{float(u[s]):.3f} / {float(m.loc[s, 'run_per_packet_delay_mean_ms']):.0f}"
        rows.append(r)
    return rows


def _cmp_pk(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """§7.6: p95 queueing delay (the only reading under which 97 and 28 ms are possible) and
    utilisation, per scheme (seed means on the one trace); the per-packet p95 in the note."""
    runs = F.run_level(results)
    m = runs.groupby("scheme", sort=False)[
        ["link_utilization", "queueing_delay_p95_ms", "run_per_packet_delay_p95_ms"]
    ].mean()
    rows = []
    for pub in PUBLISHED["abc-pk"]:
        if pub.ours is None or pub.ours not in m.index:
            rows.append(_row(pub, None))
        elif pub.metric == "utilisation":
            rows.append(_row(pub, float(m.loc[pub.ours, "link_utilization"]), percent=True))
        else:
            pp = float(m.loc[pub.ours, "run_per_packet_delay_p95_ms"])
            note = f"p95 per-packet delay (RTT + queueing): {pp:.0f} ms"
            rows.append(_row(pub, float(m.loc[pub.ours, "queueing_delay_p95_ms"]), digits=0, note=note))
    if {"abc", "pk-abc"} <= set(m.index):
        rows.append(
            _info("ABC", "utilisation", float(m.loc["abc", "link_utilization"]), 3, "~90 % (as PK-ABC)")
        )
    # Beyond the paper: predictive ABC, and ABC with a lower η as a utilisation-matched reference
    # (a predictor only helps if it beats simply aiming lower).
    q = m["queueing_delay_p95_ms"]
    for s in ("abc-predict", "abc-eta-0.94"):
        if s not in m.index:
            continue
        name = "ABC η=0.94" if s == "abc-eta-0.94" else F.display_name(s)
        r = _info(
            name,
            "utilisation / p95 queueing delay ms",
            float(m.loc[s, "link_utilization"]),
            3,
            "not in the paper",
        )
        r["ours_text"] = f"{float(m.loc[s, 'link_utilization']):.3f} / {float(q[s]):.0f}"
        rows.append(r)
        if {"abc", "pk-abc"} <= set(m.index) and q["abc"] > q["pk-abc"]:
            frac = float((q["abc"] - q[s]) / (q["abc"] - q["pk-abc"]))
            r = _info(
                name,
                "fraction of the ABC→PK-ABC p95 queueing-delay gap closed",
                frac,
                2,
                "not in the paper",
            )
            r["note"] = "not at equal utilisation: compare with the utilisation above"
            rows.append(r)
    return rows


def _mean_active_jain(out: Path, run_ids: Sequence[str]) -> float:
    vals = []
    for rid in run_ids:
        ts = pd.read_parquet(out / "runs" / f"{rid}.flows.parquet")
        sc = json.loads((out / "runs" / f"{rid}.json").read_text(encoding="utf-8"))["scenario"]
        _t, j = F.jain_over_time(ts, sc)
        vals.append(float(np.nanmean(j)) if np.isfinite(j).any() else math.nan)
    return float(np.mean(vals)) if vals else math.nan


def _cmp_fig3(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    j = {
        s: _mean_active_jain(out, list(runs.loc[runs["scheme"] == s, "run_id"])) for s in ("abc", "abc-no-ai")
    }
    a, b = PUBLISHED["abc-fig3"]
    return [
        _row(a, j["abc"], digits=3),
        _info(
            "ABC (no AI)",
            "mean Jain index, ≥ 2 flows active",
            j["abc-no-ai"],
            3,
            "no convergence to fairness",
        ),
        _row(
            b,
            j["abc-no-ai"] < j["abc"],
            note=f"mean Jain {j['abc-no-ai']:.3f} without AI vs {j['abc']:.3f} with",
        ),
    ]


def _cmp_fairness(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    by_n = runs.groupby("flows")["jain_index"].mean()
    rows = []
    for pub in PUBLISHED["abc-fairness"]:
        n = int(pub.metric.split(", ")[1].split()[0])
        rows.append(_row(pub, float(by_n[n]) if n in by_n.index else None, digits=3))
    return rows


def _cmp_fig12(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """Flow 0 has the longer RTT, flow 1 the 20 ms one: the short/long throughput ratio against the
    RTT ratio, and whether a line fits it (the paper: it grows about linearly)."""
    per = results.groupby(["flow_rtts_ms", "flow"], sort=False)["throughput_mbps"].mean().unstack("flow")
    xs, ys, rows = [], [], []
    for key, r in per.iterrows():
        long_rtt, short_rtt = (float(v) for v in str(key).split("/"))
        ratio = float(r[1] / r[0]) if r[0] > 0 else math.nan
        xs.append(long_rtt / short_rtt)
        ys.append(ratio)
        rows.append(
            _info(
                "ABC",
                f"short/long-RTT throughput ratio, RTTs {long_rtt:g} and {short_rtt:g} ms "
                f"(RTT ratio {xs[-1]:g})",
                ratio,
            )
        )
    x, y = np.asarray(xs), np.asarray(ys)
    if len(x) >= 3 and np.all(np.isfinite(y)):
        slope, icpt = np.polyfit(x, y, 1)
        r2 = 1 - float(np.sum((y - (slope * x + icpt)) ** 2)) / max(float(np.sum((y - y.mean()) ** 2)), 1e-12)
        note = (
            f"fit: ratio = {slope:.2f} × RTT ratio + {icpt:.2f}, R² {r2:.3f} "
            "(counted linear if R² ≥ 0.9, slope > 0)"
        )
        rows.append(_row(PUBLISHED["abc-fig12"][0], bool(r2 >= 0.9 and slope > 0), note=note))
    else:
        rows.append(_row(PUBLISHED["abc-fig12"][0], None, note="needs at least 3 RTT settings"))
    return rows


def _cmp_table1(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    per = results.groupby("flow")["throughput_mbps"].mean()
    return [_row(pub, float(per.get(i, math.nan))) for i, pub in enumerate(PUBLISHED["abc-table1"])]


def _cmp_fig15(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    m = runs.groupby("scheme", sort=False)[["link_utilization", "run_per_packet_delay_p95_ms"]].mean()
    etas = [(float(s.split("eta-")[1]), s) for s in m.index]
    etas.sort()
    rows = [
        _info(f"ABC η={e:g}", "utilisation / p95 per-packet delay ms", m.loc[s, "link_utilization"], 3)
        for e, s in etas
    ]
    for r, (_e, s) in zip(rows, etas, strict=True):
        r["ours_text"] = f"{m.loc[s, 'link_utilization']:.3f} / {m.loc[s, 'run_per_packet_delay_p95_ms']:.0f}"
    u = [m.loc[s, "link_utilization"] for _, s in etas]
    d = [m.loc[s, "run_per_packet_delay_p95_ms"] for _, s in etas]
    pu, pd_ = PUBLISHED["abc-fig15"]
    rows.append(
        _row(
            pu,
            bool(np.all(np.diff(u) > 0)),
            note="strictly increasing over " + ", ".join(f"{e:g}" for e, _ in etas),
        )
    )
    rows.append(_row(pd_, bool(np.all(np.diff(d) > 0)), note="strictly increasing"))
    return rows


# ---------------------------------------------------------------------------------------------
# Experiment documents


def _cellular(
    name: str,
    description: str,
    schemes: Sequence[str],
    traces: Sequence[str],
    duration: float,
    seeds: int,
    *,
    delays: Sequence[float] = (_DELAY_MS,),
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": name,
        "description": description,
        "matrix": {
            "schemes": list(schemes),
            "traces": list(traces),
            "delay_ms": list(delays),
            "buffer_packets": [_BUFFER],
            "seeds": seeds,
        },
        "run": {"duration_s": duration, "ack_mbps": _ACK_MBPS, "sample_ms": 100.0},
    }
    per_scheme: dict[str, Any] = {}
    if "cubic+codel" in schemes:
        per_scheme["cubic+codel"] = {"queue": ARTIFACT_CODEL}
    if "copa" in schemes:
        per_scheme["copa"] = {"set": list(COPA_PER_PACKET_ACKS)}
    if per_scheme:
        doc["schemes"] = per_scheme
    return doc


_CELL_SETUP = (
    "ABC paper cellular setup: trace drives the data link, ACKs over a constant 12 Mbit/s link, 50 ms "
    "one-way delay each way (min RTT 100 ms), 250-packet buffer, one backlogged flow; Cubic+CoDel "
    "uses the ABC artifact's CoDel (target 50 ms, interval 100 ms); Copa ACKs every packet (genericCC's "
    "UDP receiver, which the paper ran); delay = per-packet delay "
    "(RTT + queueing)."
)


@dataclass(frozen=True)
class Reproduction:
    """A named experiment: its document (quick or full, optional trace override) and its comparison."""

    id: str
    title: str
    setup: str
    document: Callable[[bool, list[str] | None], dict[str, Any]]
    compare: Callable[[pd.DataFrame, Path], list[dict[str, Any]]]
    unavailable: tuple[str, ...] = ()
    reference: str = "abc"
    paper: str = PAPER
    cite: str = ""
    """Where in ``paper`` the published numbers are: table or figure, and section."""
    direct: Callable[[Path, bool, float | None, Any], tuple[Any, ...]] | None = None
    """A reproduction that is not a sweep (the Wi-Fi link's Figs. 5 and 6): runs its scenarios
    itself into the folder (quick, duration override in s, the executor of ``--executor/--jobs`` or
    ``None`` for the default local pool; those that simulate in their own process ignore it) and
    returns (rows, number of runs), or
    (rows, number of runs, runs reused) when it keeps its runs in the folder and reads finished
    ones back (``abe-figures``, ``abe-fairness``)."""
    digest: Callable[[dict[str, Any]], Any] | None = None
    """What ``compare`` needs of a run's document, kept as each run is written (``run_sweep``'s
    ``digest``) so that the comparison need not parse the documents again (``abc-fig13``)."""


def _set_traces(quick: bool, override: list[str] | None, tset: TraceSet) -> tuple[list[str], str]:
    """The traces of a reproduction that averages over a trace set, and how to name them."""
    if override:
        return override, f"{len(override)} traces given with --traces (not {tset.label})"
    if quick:
        return tset.paths(quick=True), f"{tset.quick_label} ({tset.label}), --quick"
    return tset.paths(), tset.label


def _doc_table(
    rid: str, title: str, tset: TraceSet = ABC_PAPER, schemes: Sequence[str] = CELLULAR_SCHEMES
) -> Callable[[bool, list[str] | None], dict[str, Any]]:
    def doc(quick: bool, traces: list[str] | None) -> dict[str, Any]:
        chosen, which = _set_traces(quick, traces, tset)
        return _cellular(
            rid + ("-quick" if quick else ""),
            f"{title} on {which}",
            schemes,
            chosen,
            60.0 if quick else 140.0,
            2 if quick else 3,
        )

    return doc


def _doc_fig7(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return _cellular(
        "abc-fig7" + ("-quick" if quick else ""),
        "ABC Fig. 7: Verizon LTE downlink and uplink",
        (*CELLULAR_SCHEMES, "vegas", *EXPLICIT_SCHEMES),
        traces or list(BUNDLED_TRACES),
        60.0 if quick else 140.0,
        2 if quick else 3,
    )


def _doc_fig1(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return _cellular(
        "abc-fig1" + ("-quick" if quick else ""),
        "ABC Fig. 1: Cubic, Verus, Cubic+CoDel and ABC on a Verizon LTE trace over time",
        FIG1_SCHEMES,
        traces or ["traces/Verizon-LTE-short.down"],
        30.0 if quick else 140.0,
        1 if quick else 3,
    )


def _doc_fig21(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return _cellular(
        "abc-fig21" + ("-quick" if quick else ""),
        "ABC Fig. 21: propagation RTT 20/50/100/200 ms",
        (*CELLULAR_SCHEMES, "vegas"),
        traces or ["traces/Verizon-LTE-short.up"],
        60.0 if quick else 140.0,
        2 if quick else 3,
        delays=(10.0, 25.0, 50.0, 100.0),
    )


def _doc_fig19(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    doc = _cellular(
        "abc-fig19" + ("-quick" if quick else ""),
        "ABC Fig. 19: capacity 12/24 Mbit/s every 500 ms",
        ("abc", "xcp-w", "rcp", "xcp", "vcp"),
        traces or ["traces/bw12_24_5_5.mahi"],
        30.0 if quick else 140.0,
        2 if quick else 3,
    )
    return doc


def _doc_pk(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    doc = _cellular(
        "abc-pk" + ("-quick" if quick else ""),
        "ABC §7.6: ABC vs PK-ABC on Fig. 7b's setup (Verizon LTE uplink); predictive ABC beside them",
        ("abc", "pk-abc", "abc-predict", "abc-eta-0.94"),
        traces or ["traces/Verizon-LTE-short.up"],
        60.0 if quick else 140.0,
        2 if quick else 3,
    )
    doc["schemes"] = {"abc-eta-0.94": {"scheme": "abc", "label": "ABC η=0.94", "set": ["abc.eta=0.94"]}}
    return doc


def _doc_fig3(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    step = 5.0 if quick else 20.0
    starts = [i * step for i in range(5)]
    stops = [10 * step - i * step for i in range(5)]
    return {
        "name": "abc-fig3" + ("-quick" if quick else ""),
        "description": "ABC Fig. 3: 5 ABC flows, same RTT, 24 Mbit/s, start and leave one by one; "
        "with and without additive increase",
        "matrix": {
            "schemes": ["abc", "abc-no-ai"],
            "traces": traces or ["const:24"],
            "delay_ms": [_DELAY_MS],
            "buffer_packets": [_BUFFER],
            "seeds": 2 if quick else 3,
        },
        "run": {"duration_s": 10 * step, "flow_starts_s": starts, "flow_stops_s": stops, "ack_mbps": 100.0},
        "schemes": {
            "abc-no-ai": {"scheme": "abc", "label": "ABC without AI", "set": ["abc.additive_increase=false"]}
        },
    }


def _doc_fairness(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    return {
        "name": "abc-fairness" + ("-quick" if quick else ""),
        "description": "2-32 ABC flows on a fixed 24 Mbit/s link",
        "matrix": {
            "schemes": ["abc"],
            "traces": traces or ["const:24"],
            "delay_ms": [_DELAY_MS],
            "buffer_packets": [_BUFFER],
            "flows": [2, 4, 8, 16, 32],
            "seeds": 2 if quick else 3,
        },
        "run": {"duration_s": 20.0 if quick else 60.0, "ack_mbps": 100.0},
    }


def _doc_rtt(
    name: str, description: str, rtts: list[list[float]]
) -> Callable[[bool, list[str] | None], dict[str, Any]]:
    def doc(quick: bool, traces: list[str] | None) -> dict[str, Any]:
        return {
            "name": name + ("-quick" if quick else ""),
            "description": description,
            "matrix": {
                "schemes": ["abc"],
                "traces": traces or ["const:24"],
                "delay_ms": [10.0],
                "buffer_packets": [_BUFFER],
                "flow_rtts_ms": rtts,
                "seeds": 2 if quick else 3,
            },
            "run": {"duration_s": 20.0 if quick else 60.0, "ack_mbps": 100.0},
        }

    return doc


def _doc_fig15(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    etas = (0.85, 0.9, 0.95, 0.98)
    doc = _cellular(
        "abc-fig15" + ("-quick" if quick else ""),
        "ABC Fig. 15: η trades throughput for delay",
        [f"abc-eta-{e:g}" for e in etas],
        traces or ["traces/Verizon-LTE-short.up"],
        60.0 if quick else 140.0,
        2 if quick else 3,
    )
    doc["schemes"] = {
        f"abc-eta-{e:g}": {"scheme": "abc", "label": f"ABC η={e:g}", "set": [f"abc.eta={e}"]} for e in etas
    }
    return doc


_RTT_SETUP = (
    "24 Mbit/s constant link, 10 ms one-way base delay (the longer RTTs add extra one-way delay at "
    "the sender), 250-packet ABC router buffer, ACKs over 100 Mbit/s."
)

_C2TCP_SETUP = (
    "C2TCP paper setup (§VII): trace drives the data link, 10 ms one-way delay each way (min RTT "
    "20 ms), 150 KB drop-tail buffer (in bytes; the buffer_packets column shows its 100 full-size "
    "packets), ACKs over an uncongested 100 Mbit/s link, Target 50 ms, one backlogged flow. Delay = "
    "queueing delay, the paper's Table I metric (§VII-B: \"average and 95th percentile queuing "
    "delay\"): each packet's time in the bottleneck queue including the wait for a delivery "
    "opportunity (Mahimahi's per-packet queueing delay); Avg. Delay = mean over all delivered packets, "
    "95th%tile = 95th percentile over them, as the authors' mm-throughput-graph-modified computes "
    "both. The other reading, RTT + queueing delay (per-packet delay), is in the note and the CSV "
    "column ours_rtt_plus_queueing. Per-trace seed means normalised to C2TCP, then averaged over "
    "traces (the paper's Table I method). " + C2TCP_PAPER.describe()
)


def _doc_c2tcp_table(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    chosen, which = _set_traces(quick, traces, C2TCP_PAPER)
    return {
        "name": "c2tcp-table1" + ("-quick" if quick else ""),
        "description": f"C2TCP Table I on {which}",
        "matrix": {
            "schemes": ["c2tcp", "bbr", "cubic", "westwood", "verus", "sprout", "pcc-vivace"],
            "traces": chosen,
            "delay_ms": [10.0],
            "buffer_packets": [100],
            "seeds": 2 if quick else 3,
        },
        "run": {"duration_s": 60.0 if quick else 140.0, "ack_mbps": 100.0, "set": ["queue.bytes=150000"]},
    }


#: C2TCP Table I metric → (queueing-delay column, RTT + queueing column) of :func:`F.run_level`
#: (one flow per run, so its flow-0 row is the run's).
_C2TCP_COLUMNS = {
    "norm. throughput": ("link_throughput_mbps", None),
    "norm. average queueing delay": ("queueing_delay_mean_ms", "run_per_packet_delay_mean_ms"),
    "norm. p95 queueing delay": ("queueing_delay_p95_ms", "run_per_packet_delay_p95_ms"),
}


def _cmp_c2tcp_table(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = F.run_level(results)
    cols = sorted({c for pair in _C2TCP_COLUMNS.values() for c in pair if c})
    m = runs.groupby(["scheme", "trace"], sort=False)[cols].mean()
    ref = m.xs("c2tcp", level="scheme")

    def norm(scheme: str, col: str) -> float:
        # Per trace normalised to C2TCP, then the mean over traces (Table I).
        return float((m.xs(scheme, level="scheme")[col] / ref[col]).mean())

    rows = []
    for pub in PUBLISHED["c2tcp-table1"]:
        if pub.ours is None or pub.ours not in m.index.get_level_values("scheme"):
            rows.append(_row(pub, None))
            continue
        col, alt = _C2TCP_COLUMNS[pub.metric]
        if alt is None:
            rows.append(_row(pub, norm(pub.ours, col)))
            continue
        other = norm(pub.ours, alt)
        row = _row(pub, norm(pub.ours, col), note=f"RTT + queueing delay: {other:.2f}")
        row["ours_rtt_plus_queueing"] = other
        rows.append(row)
    return rows


def _cmp_table_robustness(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    """The headline table's numbers on traces the paper did not use: our values only, with the
    paper's (on its own traces) as context, never as a reproduction target."""
    m = _over_traces(results)
    u = m["link_utilization"]
    d = m["run_per_packet_delay_p95_ms"]
    rows = []
    for pub in PUBLISHED["abc-table"]:
        if pub.ours is None or pub.ours not in m.index:
            continue
        context = f"paper, on its own traces: {pub.text}"
        if pub.metric == "utilisation":
            rows.append(_info(pub.scheme, pub.metric, float(u["abc"]), 3, context))
            rows[-1]["ours_text"] = f"{100 * float(u['abc']):.1f} %"
        elif pub.metric.startswith("p95"):
            rows.append(_info(pub.scheme, pub.metric, float(d["abc"]), 0, context))
        elif pub.metric == "norm. utilisation":
            rows.append(_info(pub.scheme, pub.metric, float(u[pub.ours] / u["abc"]), 2, context))
        else:
            rows.append(_info(pub.scheme, pub.metric, float(d[pub.ours] / d["abc"]), 2, context))
    for r in rows:
        r["note"] = "not the paper's traces: no comparison"
    return rows


#: The row builders the Wi-Fi comparisons use (:mod:`accelbrake.experiments.wifi`).
_WIFI = W.Helpers(row=_row, info=_info, frontier=outside_pareto_frontier)
#: The same row builders for the mixed-traffic reproductions.
_MIXED = W.Helpers(row=_row, info=_info, frontier=outside_pareto_frontier)


def _no_document(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    raise ExperimentError("this reproduction runs its scenarios directly (no experiment document)")


def _no_compare(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    raise ExperimentError("this reproduction compares as it runs")


@dataclass(frozen=True)
class DirectOutcome:
    """What a direct (non-sweep) reproduction ran, shaped like the sweep runner's outcome."""

    total: int
    ran: int
    skipped: int = 0
    complete: bool = True
    wall_s: float = 0.0
    """Wall time of the runs, s (the console prints it as for a sweep)."""
    resumable: bool = True
    """Whether it keeps its runs in the folder and reuses them (Figs. 5, 6 and 10 do not: they run
    everything each time)."""


def runs_text(outcome: Any) -> str:
    """How many runs a reproduction ran and reused, for the console: "135 runs (135 now, 0
    reused)", or "21 runs (all run now: this reproduction keeps no run files to reuse)"."""
    if not getattr(outcome, "resumable", True):
        return f"{outcome.total} runs (all run now: this reproduction keeps no run files to reuse)"
    return f"{outcome.total} runs ({outcome.ran} now, {outcome.skipped} reused)"


def _direct_duration(rep: Reproduction, overrides: Sequence[str]) -> float | None:
    """The only overrides a direct reproduction takes: ``run.duration_s=X`` and ``matrix.seeds=1``."""
    secs = None
    for item in overrides:
        key, _, value = item.partition("=")
        key = key.strip()
        if key == "run.duration_s":
            try:
                secs = float(value)
            except ValueError:
                raise ExperimentError(f"--set {item}: expected a number of seconds", key=key) from None
            if not (math.isfinite(secs) and secs >= 3.0):
                raise ExperimentError(f"--set {item}: expected at least 3 s", key=key)
        elif key == "matrix.seeds" and value.strip() in ("1", "[0]"):
            continue
        else:
            raise ExperimentError(
                f"--set {item}: {rep.id} runs its scenarios directly and takes only run.duration_s", key=key
            )
    return secs


#: Every reproduction by id (ids and titles from :mod:`accelbrake.experiments.catalog`).
REPRODUCTIONS: dict[str, Reproduction] = {
    r.id: r
    for r in (
        Reproduction(
            "c2tcp-table1",
            TITLES["c2tcp-table1"],
            _C2TCP_SETUP,
            _doc_c2tcp_table,
            _cmp_c2tcp_table,
            ("jitter (Table I's third column) is not compared",),
            cite="Table I, §VII-D (metrics: §VII-B)",
            reference="c2tcp",
            paper=PAPER_C2TCP,
        ),
        Reproduction(
            "abc-table",
            TITLES["abc-table"],
            _CELL_SETUP
            + " Averages over traces of the seed means, then normalised to ABC. "
            + ABC_PAPER.describe(),
            _doc_table("abc-table", "ABC paper headline table", schemes=(*CELLULAR_SCHEMES, "xcp")),
            _cmp_table,
            cite="the results table in §1 (Introduction), summarising the 8-trace emulation of §7.3 "
            "and Fig. 8",
        ),
        Reproduction(
            "abc-table-robustness",
            TITLES["abc-table-robustness"],
            _CELL_SETUP + " Averages over traces of the seed means, then normalised to ABC, as abc-table, on "
            "traces the paper did not use (never averaged with its traces; the paper's numbers are "
            "shown as context, not compared). " + CELLULAR_ROBUSTNESS.describe(),
            _doc_table("abc-table-robustness", "ABC headline table, robustness", CELLULAR_ROBUSTNESS),
            _cmp_table_robustness,
        ),
        Reproduction(
            "abc-fig7",
            TITLES["abc-fig7"],
            _CELL_SETUP,
            _doc_fig7,
            _cmp_fig7,
            (
                "(c) uplink+downlink with two ABC bottlenecks in series: experiment files describe one "
                "data bottleneck per run (a two-hop topology needs a scenario file; not in the matrix "
                "yet)",
            ),
            cite="Fig. 7a and 7b, §7.3",
        ),
        Reproduction(
            "abc-fig1",
            TITLES["abc-fig1"],
            _CELL_SETUP.replace("trace drives", "Verizon-LTE-short.down drives")
            + " Claims are read from Fig. 1's caption; each scheme's time series (throughput vs "
            "capacity, delay) is drawn in the report.",
            _doc_fig1,
            _cmp_fig1,
            cite="Fig. 1, §1",
        ),
        Reproduction(
            "abc-fig8",
            TITLES["abc-fig8"],
            _CELL_SETUP + " " + ABC_PAPER.describe(),
            _doc_table(
                "abc-fig8",
                "ABC Fig. 8/17: per-trace utilisation and delay",
                schemes=(*CELLULAR_SCHEMES, "xcp", "xcp-w"),
            ),
            _cmp_fig8,
            cite="Fig. 8 (§7.3) and Fig. 17 (Appendix E)",
        ),
        Reproduction(
            "abc-fig19",
            TITLES["abc-fig19"],
            _CELL_SETUP.replace("trace drives", "bw12_24_5_5.mahi drives"),
            _doc_fig19,
            _cmp_fig19,
            cite="Fig. 19, Appendix F",
        ),
        Reproduction(
            "abc-fig18",
            TITLES["abc-fig18"],
            _CELL_SETUP + " Each explicit scheme runs over its own router with the ABC paper's parameters "
            "(Appendix F: XCP and XCP_w α = 0.55, β = 0.4; RCP α = 0.5, β = 0.25; VCP α = 1, β = 0.875, "
            "κ = 0.25). Averages over traces of the seed means. " + ABC_PAPER.describe(),
            _doc_table("abc-fig18", "ABC Fig. 18: explicit schemes", schemes=("abc", *EXPLICIT_SCHEMES)),
            _cmp_fig18,
            cite="Fig. 18 and Appendix F; §7.3",
        ),
        Reproduction(
            "abc-pk",
            TITLES["abc-pk"],
            _CELL_SETUP.replace("trace drives", "Verizon-LTE-short.up drives")
            + " Beside them (not in the paper): predictive ABC (abc-predict, a damped trend forecast of μ "
            "one RTT ahead from the router's own measurements) and ABC with η = 0.94, the "
            "utilisation-matched reference a predictor has to beat."
            + " PK-ABC: the ABC router with μ read from the trace over the 20 ms window that ends one RTT "
            "(100 ms) ahead. The paper's 97 ms and 28 ms can only be p95 queueing delays (per-packet delay "
            "includes the 100 ms propagation RTT), so p95 queueing delay is compared; the per-packet p95 "
            "is in each row's note.",
            _doc_pk,
            _cmp_pk,
            cite="§7.6 (on Fig. 7b's setup)",
        ),
        Reproduction(
            "abc-fig3",
            TITLES["abc-fig3"],
            "24 Mbit/s constant link, 50 ms one-way (RTT 100 ms), 250 packets; flows start every step "
            "and leave in reverse order (full: 20 s steps, 200 s; quick: 5 s steps, 50 s); Jain index "
            "per 100 ms bin among the active flows, averaged over bins with ≥ 2 flows.",
            _doc_fig3,
            _cmp_fig3,
            cite="Fig. 3, §3.1.3",
        ),
        Reproduction(
            "abc-fairness",
            TITLES["abc-fairness"],
            "24 Mbit/s constant link, 50 ms one-way, 250 packets, all flows start at 0; Jain index of "
            "the flows' throughputs over the whole run (full: 60 s, quick: 20 s).",
            _doc_fairness,
            _cmp_fairness,
            cite='§7.5, "Coexistence among ABC flows"',
        ),
        Reproduction(
            "abc-fig12",
            TITLES["abc-fig12"],
            _RTT_SETUP,
            _doc_rtt(
                "abc-fig12",
                "ABC Fig. 12: RTT unfairness, two flows",
                [[float(r), 20.0] for r in (20, 40, 60, 80, 100, 120)],
            ),
            _cmp_fig12,
            cite='Fig. 12, §7.5 ("RTT unfairness")',
        ),
        Reproduction(
            "abc-table1",
            TITLES["abc-table1"],
            _RTT_SETUP,
            _doc_rtt(
                "abc-table1",
                "ABC Table 1: six flows with different RTTs",
                [[20.0, 40.0, 60.0, 80.0, 100.0, 120.0]],
            ),
            _cmp_table1,
            cite='Table 1, §7.5 ("RTT unfairness")',
        ),
        Reproduction(
            "abc-fig21",
            TITLES["abc-fig21"],
            _CELL_SETUP.replace(
                "50 ms one-way delay each way (min RTT 100 ms)",
                "10/25/50/100 ms one-way delay (RTT 20/50/100/200 ms)",
            ),
            _doc_fig21,
            _cmp_fig21,
            cite="Fig. 21, Appendix G",
        ),
        Reproduction(
            "abc-fig5",
            TITLES["abc-fig5"],
            W.SETUP.split("; the ABC router")[0] + ". One rate-limited flow at MCS 4 (39 Mbit/s) per run, "
            f"payload rates {', '.join(f'{r:g}' for r in W.FIG5_RATES if r)} Mbit/s and a backlogged Cubic "
            "flow (30 s each; quick 5 s); the mean inter-ACK time per batch size (sizes seen ≥ 20 times) and "
            "the least-squares line through them.",
            _no_document,
            _no_compare,
            cite="Fig. 5, §5.1",
            direct=lambda out, quick, secs, _ex: W.run_fig5(_WIFI, out, quick, secs),
        ),
        Reproduction(
            "abc-fig6",
            TITLES["abc-fig6"],
            W.SETUP.split("; the ABC router")[0] + ". One rate-limited flow per run at 15–90 % of the link's "
            "true capacity, MCS 1, 4 and 7 (three links); the time average of 30 s of the estimator's "
            "predictions (quick: 4 s) against the truth, or against the cap (2 × the sending rate) where "
            "that lies below the truth.",
            _no_document,
            _no_compare,
            cite="Fig. 6, §5.1",
            direct=lambda out, quick, secs, _ex: W.run_fig6(_WIFI, out, quick, secs),
        ),
        Reproduction(
            "abc-fig9",
            TITLES["abc-fig9"],
            W.SETUP + " Two users: one flow per user, both alternating 1 <-> 7 in step, one FIFO; the sum "
            "of throughputs and the mean of the flows' p95 delays. The matrix crosses the one- and "
            "two-user links with 1 and 2 flows; only 1×1 and 2×2 are compared.",
            W.doc_fig9,
            lambda results, out: W.cmp_fig9(_WIFI, results, out),
            cite="Fig. 9 and §7.3 (Wi-Fi); abstract (2.2× lower delays than BBR)",
        ),
        Reproduction(
            "abc-fig16",
            TITLES["abc-fig16"],
            W.SETUP + " MCS: a random walk in [3, 7] starting at 5, one ±1 step every 2 s (reflected at "
            "the bounds), drawn from the run's seed.",
            W.doc_fig16,
            lambda results, out: W.cmp_fig16(_WIFI, results, out),
            cite="Fig. 16, Appendix D",
        ),
        Reproduction(
            "abc-fig15",
            TITLES["abc-fig15"],
            _CELL_SETUP + " η ∈ {0.85, 0.9, 0.95, 0.98} on Verizon-LTE-short.up.",
            _doc_fig15,
            _cmp_fig15,
            cite="Fig. 15, Appendix B",
        ),
        # ABC beside other traffic: experiments/mixed.py.
        Reproduction(
            "abc-fig13",
            TITLES["abc-fig13"],
            M.SETUP_FIG13,
            M.doc_fig13,
            lambda results, out: M.cmp_fig13(_MIXED, results, out),
            (
                "two short-flow loads (10 % and 30 %), the paper sweeps more (RCP's zombie-list "
                "baseline is judged against the paper's whole 17-165 % range at each load)",
            ),
            cite="Fig. 13, §4.3 and §7.5",
            digest=M.digest_fig13,
        ),
        Reproduction(
            "abc-fig11",
            TITLES["abc-fig11"],
            M.SETUP_FIG11,
            M.doc_fig11,
            lambda results, out: M.cmp_fig11(_MIXED, results, out),
            cite="Fig. 11, §7.5",
        ),
        Reproduction(
            "abc-fig20",
            TITLES["abc-fig20"],
            M.SETUP_FIG20,
            M.doc_fig20,
            lambda results, out: M.cmp_fig20(_MIXED, results, out),
            cite="Fig. 20, Appendix",
        ),
        Reproduction(
            "c2tcp-friendliness",
            TITLES["c2tcp-friendliness"],
            M.SETUP_C2TCP,
            M.doc_c2tcp_friendliness,
            lambda results, out: M.cmp_c2tcp_friendliness(_MIXED, results, out),
            ("Verus and PCC-Vivace beside Cubic, and C2TCP beside NewReno and C2TCP, are not run",),
            cite="Figs. 16 and 17, §VII",
            reference="c2tcp",
            paper=PAPER_C2TCP,
        ),
        Reproduction(
            "abc-fig10",
            TITLES["abc-fig10"],
            M.SETUP_FIG10,
            _no_document,
            _no_compare,
            cite="Fig. 10, §7.4",
            direct=lambda out, quick, secs, _ex: M.run_fig10(_MIXED, out, quick, secs),
        ),
    )
}


# ---------------------------------------------------------------------------------------------
# Results that used to be computed only elsewhere (Rust tests, scripts, by hand):
# accelbrake.experiments.elsewhere. A block of its own, appended to REPRODUCTIONS in TITLES order.

_ELSEWHERE_CITES = {
    "abc-fig2": ("Fig. 2, §3.1.1", PAPER),
    "abc-fig4": ("Fig. 4, §4", PAPER),
    "abc-fig7c": ("Fig. 7c, §7.3", PAPER),
    "abc-fig14": ("Fig. 14, Appendix A", PAPER),
    "abc-stability": ("Theorem 1, §4.2 and Appendix C", PAPER),
    "c2tcp-target": ("Fig. 18, §VIII; Eq. 9, §V", PAPER_C2TCP),
    "c2tcp-buffer": ("Fig. 19, §VIII", PAPER_C2TCP),
    "proprate-fig7": ("Fig. 7, §5.1", PAPER_PROPRATE),
    "proprate-frontier": ("Fig. 11, §5.3", PAPER_PROPRATE),
    "proprate-nfl": ("Fig. 8, §5.2", PAPER_PROPRATE),
    "proprate-contention": ("Fig. 10, §5.4", PAPER_PROPRATE),
    "abe-buffer": ("Eq. 1 and Fig. 1, §III", PAPER_ABE),
}


def _elsewhere(rid: str) -> Reproduction:
    cite, paper = _ELSEWHERE_CITES[rid]
    ref = {"c2tcp": "c2tcp", "proprate": "proprate-m", "abe": "newreno"}.get(rid.split("-", 1)[0], "abc")
    return Reproduction(
        rid,
        TITLES[rid],
        ELSEWHERE.SETUPS[rid],
        partial(ELSEWHERE.CELLULAR_DOCS[rid], _cellular)
        if rid in ELSEWHERE.CELLULAR_DOCS
        else ELSEWHERE.DOCS[rid],
        lambda results, out, rid=rid: ELSEWHERE.compare(rid, _WIFI, results, out),
        reference=ref,
        paper=paper,
        cite=cite,
    )


REPRODUCTIONS.update({rid: _elsewhere(rid) for rid in _ELSEWHERE_CITES})
REPRODUCTIONS["abe-figures"] = Reproduction(
    "abe-figures",
    TITLES["abe-figures"],
    "ABE paper setup (§IV-B), as `accelbrake abe-sweep`: one long-lived flow, 10 Mbit/s bottleneck and "
    "ACK link, RTT 100/200/400 ms (half each way), CoDel (target 5 ms, interval 100 ms) or PIE (qdelay_ref "
    "20 ms, t_update 30 ms, α 0.125, β 1.25, max_burst 100 ms), 1000-packet limit, ECN marking; NewReno-ABE "
    "and Cubic-ABE, β_ecn 0.5-0.95 (quick: 0.5, 0.7, 0.8, 0.85, 0.95 at RTT 100 and 400 ms), 600 s per run "
    "(quick: 120 s). Queueing delay = time in the bottleneck queue and on its link, data packets.",
    _no_document,
    _no_compare,
    reference="newreno-abe",
    paper=PAPER_ABE,
    cite="Figs. 4-7, §IV-B",
    direct=lambda out, quick, secs, ex: ELSEWHERE.run_abe_figures(_WIFI, out, quick, secs, executor=ex),
)
REPRODUCTIONS["abe-fairness"] = Reproduction(
    "abe-fairness",
    TITLES["abe-fairness"],
    "ABE paper §IV-D: the abe-sweep bottleneck (10 Mbit/s, CoDel or PIE with ECN marking, 1000 packets) "
    "shared by 10 Cubic-ABE flows with ECN (β_ecn 0.7-0.9) and 10 NewReno flows without ECN, all from "
    "t = 0; RTT 20/80/160/320 ms; 330 s, seeds 0-2 (quick: 120 s, seed 0). Ratio = the ECN group's "
    "throughput over the non-ECN group's, over the whole run (the paper: after slow start).",
    _no_document,
    _no_compare,
    reference="cubic-abe",
    paper=PAPER_ABE,
    cite="Figs. 11 and 12, §IV-D",
    direct=lambda out, quick, secs, ex: ELSEWHERE.run_abe_fairness(_WIFI, out, quick, secs, executor=ex),
)

REPRODUCTIONS["abe-fig8"] = Reproduction(
    "abe-fig8",
    TITLES["abe-fig8"],
    "ABE paper §IV-B, Fig. 8: one NewReno-ABE flow, 20 Mbit/s bottleneck and ACK link, CoDel (target 5 ms, "
    "interval 100 ms, ECN marking, 1000 packets), RTT 100/200/400 ms (the figure's RTTs are not in our "
    "text of the paper: §IV-B's set), β_ecn 0.5-0.95, 300 s per run (quick: β_ecn 0.5/0.8/0.95, RTT "
    "100/400 ms, 20 s). Median RTT = RTT_path + the bottleneck's median queueing delay (the paper's "
    "footnote 10).",
    _no_document,
    _no_compare,
    reference="newreno-abe",
    paper=PAPER_ABE,
    cite="Fig. 8, §IV-B",
    direct=lambda out, quick, secs, ex: ABE_REPRO.run_fig8(_WIFI, out, quick, secs, executor=ex),
)
REPRODUCTIONS["abe-convergence"] = Reproduction(
    "abe-convergence",
    TITLES["abe-convergence"],
    "ABE paper §IV-C: two flows of one scheme (Cubic-ABE without fast convergence, NewReno-ABE) through "
    "the ABE bottleneck (CoDel or PIE with ECN marking, 1000 packets), the second started 30 s after the "
    "first; T = time from that start until Jain's index of the bytes received since then reaches 0.95; "
    "ρ = T(β_ecn)/T(β), β 0.7 (Cubic) / 0.5 (NewReno), β_ecn as plotted (Cubic 0.75-0.9, NewReno "
    "0.6-0.9). Reduced grid: 1 and 10 Mbit/s × all 8 RTTs 10-320 ms (16 of the paper's 48 combinations; "
    "the paper's grid: scripts/abe_convergence.py --grid paper), 60 s after the second start, a run "
    "still below 0.95 then counted as not converged (quick: 10 Mbit/s × 20 ms, one β_ecn per scheme, 20 s).",
    _no_document,
    _no_compare,
    reference="newreno-abe",
    paper=PAPER_ABE,
    cite="Figs. 9 and 10, §IV-C",
    direct=lambda out, quick, secs, ex: ABE_REPRO.run_convergence(_WIFI, out, quick, secs, executor=ex),
)


#: The plot that stands for a reproduction on the ``reproduce all`` index: the report's section
#: (``tradeoff``, ``fairness``, ``timeseries``: the first run plot in the report's order). The
#: default is the throughput-delay trade-off; experiments about behaviour over time show a run.
MAIN_PLOTS: dict[str, str] = {
    "abc-fig1": "timeseries",  # Fig. 1: each scheme over time on one trace
    "abc-fig19": "timeseries",  # capacity alternating every 500 ms
    "abc-fig3": "fairness",  # flows joining and leaving: Jain index over time
    "abc-fig4": "timeseries",  # which window limits, over time
    "abc-fig14": "timeseries",  # BBR overshooting over time
    "abc-stability": "timeseries",  # oscillation (or not) over time
    "proprate-nfl": "timeseries",  # the buffer delay converging to the target
}


def main_plot(rid: str) -> str:
    """The report section whose first plot stands for ``rid`` on the index (:data:`MAIN_PLOTS`)."""
    return MAIN_PLOTS.get(rid, "tradeoff")


def quick_title(title: str, quick: bool, n_traces: int) -> str:
    """A reproduction's title as its run shows it: a ``--quick`` run of a title that counts the
    paper's traces ("(5 of 8)") says how many it ran instead of leaving that count to stand."""
    import re

    if not quick or not re.search(r"\d+ of \d+", title):
        return title
    return f"{title}; --quick: {n_traces} of them"


def compare(rep: Reproduction, results: pd.DataFrame, out: Path) -> dict[str, Any]:
    """The comparison document of a finished reproduction (written to ``comparison.json``), with the
    verdict counts (``summary``: the "N of M reproduced" line)."""
    rows = rep.compare(results, out)
    return {
        "id": rep.id,
        "title": rep.title,
        "source": f"{rep.paper}, {rep.cite}" if rep.cite else rep.paper,
        "setup": rep.setup,
        "rows": rows,
        "unavailable": list(rep.unavailable),
        "summary": summarise(rows),
    }


def summarise(rows: Sequence[dict[str, Any]]) -> str:
    """The "N of M reproduced" line of a comparison's rows (numbers and claims counted apart)."""
    return V.summary(
        [r["verdict"] for r in rows if r.get("kind") == "number"],
        [r["verdict"] for r in rows if r.get("kind") == "claim"],
    )


def format_comparison(comp: dict[str, Any]) -> str:
    """The comparison as an aligned text table with a verdict per row, ending with the
    "N of M reproduced" line."""
    headers = [
        ("scheme", ""),
        ("metric", ""),
        ("ours", ""),
        ("published", ""),
        ("ratio", "ours/pub."),
        ("tolerance", ""),
        ("verdict", ""),
        ("note", ""),
    ]
    rows = []
    for r in comp["rows"]:
        pub = r["published_text"]
        if len(pub) > 48:
            pub = pub[:45] + "..."
        rows.append(
            [
                r["scheme"],
                r["metric"],
                r["ours_text"],
                pub,
                r["ratio_text"],
                r.get("tolerance_text", ""),
                r.get("verdict_text", r.get("verdict", "")),
                r.get("note", ""),
            ]
        )
    lines = [
        f"{comp['id']}: {comp['title']}",
        f"  setup: {comp['setup']}",
        f"  published: {comp['source']}",
        "  verdicts: reproduced = ratio ours/published within the tolerance "
        f"(±{100 * V.DEFAULT_TOLERANCE:g} % unless the row says otherwise) or inside a published "
        "range; direction holds/fails = a qualitative claim",
        "",
    ]
    lines.append(render_table(headers, rows, left=2, left_also=(3, 6, 7)))
    for u in comp.get("unavailable", []):
        lines.append(f"not available yet: {u}")
    lines.append(f"{comp['id']}: {comp.get('summary') or summarise(comp['rows'])}")
    return "\n".join(lines)


def resolve_ids(ids: Sequence[str]) -> list[Reproduction]:
    """Look the ids up; an unknown or unavailable id raises an error naming it (with the reason)."""
    out = []
    for i in ids:
        key = i.strip().lower()
        if key in REPRODUCTIONS:
            out.append(REPRODUCTIONS[key])
        elif key in UNAVAILABLE:
            raise ExperimentError(f"reproduce {i}: not available yet: {UNAVAILABLE[key]}", key=i)
        else:
            known = [*REPRODUCTIONS, *UNAVAILABLE]
            hint = did_you_mean(key, known)
            raise ExperimentError(
                f"reproduce: unknown id '{i}'{hint}; available: {', '.join(REPRODUCTIONS)}", key=i
            )
    return out


def run_reproduction(
    rep: Reproduction,
    out_dir: str | os.PathLike[str],
    *,
    quick: bool,
    traces: list[str] | None = None,
    overrides: Sequence[str] = (),
    executor: Any = None,
    progress: bool = True,
    report: bool = True,
    svg: bool = False,
    echo: Callable[[str], Any] = print,
    csv: bool = False,
) -> tuple[dict[str, Any], Path | None, Any]:
    """Run one reproduction into ``out_dir``; write ``comparison.json``/``.csv`` and the report
    (and, with ``csv``, the sweep's ``results.csv`` beside its Parquet tables).

    ``overrides`` are ``--set`` items as for ``accelbrake sweep`` (``run.duration_s=5``). Returns
    ``(comparison, report path or None, sweep outcome)``."""
    from accelbrake.experiments.report import build_report
    from accelbrake.experiments.runner import run_sweep

    out = Path(out_dir)
    if rep.direct is not None:
        if traces:
            raise ExperimentError(
                f"reproduce {rep.id}: --traces does not apply (its scenarios are built in)", key=rep.id
            )
        t0 = time.monotonic()
        rows, n, *reused = rep.direct(out, quick, _direct_duration(rep, overrides), executor)
        wall_s = time.monotonic() - t0
        comp = {
            "id": rep.id,
            "title": rep.title,
            "source": f"{rep.paper}, {rep.cite}" if rep.cite else rep.paper,
            "setup": rep.setup,
            "rows": rows,
            "unavailable": list(rep.unavailable),
            "summary": summarise(rows),
            "quick": quick,
            "reference_scheme": rep.reference,
        }
        atomic_write_json(
            out / "comparison.json", {"reproductions": [comp], "reference_scheme": rep.reference}
        )
        with atomic_path(out / "comparison.csv") as tmp:
            pd.DataFrame(rows).to_csv(tmp, index=False)
        if reused:
            outcome = DirectOutcome(total=n, ran=n - reused[0], skipped=reused[0], wall_s=wall_s)
        else:
            outcome = DirectOutcome(total=n, ran=n, wall_s=wall_s, resumable=False)
        return comp, None, outcome
    source = f"reproduce {rep.id}{' --quick' if quick else ''}"
    doc = apply_overrides(rep.document(quick, traces), overrides, source=source)
    exp = parse_experiment(doc, source=source)
    jobs = getattr(executor, "jobs", None)
    early = None
    if report:
        from accelbrake.experiments.report import EarlyPlots, prestart_plot_workers

        prestart_plot_workers()
        # The runs' plots are drawn as their runs finish, while the sweep goes on.
        early = EarlyPlots.for_sweep(exp, out, jobs=jobs, svg=svg)
    try:
        outcome = run_sweep(
            exp,
            out,
            executor=executor,
            progress=progress,
            echo=echo,
            on_run=early.on_run if early else None,
            digest=rep.digest,
            csv=csv,
            # The summary plots start as soon as the results table exists, while the tables are
            # written and compared (with the reference scheme the report is given below).
            on_results=(lambda results: early.on_results(results, rep.reference)) if early else None,
        )
        if outcome.results is None:
            why = outcome.failures_text() or f"{outcome.missing} runs missing"
            raise ExperimentError(f"reproduce {rep.id}: {why}", key=rep.id)
        comp = compare(rep, outcome.results, out)
        comp["title"] = quick_title(rep.title, quick, len(exp.traces))
        comp["quick"] = quick
        comp["reference_scheme"] = rep.reference
        atomic_write_json(
            out / "comparison.json", {"reproductions": [comp], "reference_scheme": rep.reference}
        )
        with atomic_path(out / "comparison.csv") as tmp:
            pd.DataFrame(comp["rows"]).to_csv(tmp, index=False)
        path = build_report(out, jobs=jobs, svg=svg, early=early) if report else None
    finally:
        if early is not None:
            early.close()
    return comp, path, outcome
