"""Comparison rows: our number beside the published one, with its verdict and the spread over seeds.

The lab's part of every reproduction's comparison (:mod:`accelbrake.papers` holds the papers'):

* :func:`row`: one published value (:class:`~accelbrake.experiments.published.Published`) against our
  number or yes/no answer, judged by :func:`accelbrake.experiments.verdicts.judge`. Given ``seeds``
  (our number per seed), the row carries the spread over seeds (std and the 95 % interval of the
  mean) and "differs" needs the whole interval outside the tolerance band (outside the noise).
  Given ``emulated`` (the same number measured through the real-time emulator, or from the
  authors' code), the row carries it beside ours with its own ratio and verdict.
  A row from a single run (one seed, or a deterministic run) says "1 run" in its spread column.
* :func:`info`: our number where the paper gives only a figure (verdict ``not compared``).
* Reductions the comparisons share: seed means per scheme and trace, their mean over traces, and
  whether a scheme lies outside the others' Pareto frontier.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments import verdicts as V
from accelbrake.experiments.published import Published
from accelbrake.tables import MISSING

__all__ = [
    "frontier_util_at",
    "info",
    "num_text",
    "outside_frontier",
    "outside_pareto_frontier",
    "over_traces",
    "row",
    "by_seed",
    "run_documents",
    "scheme_trace_means",
    "spread",
]


def spread(values: Sequence[float] | None) -> tuple[float, float, float] | None:
    """The spread of ``values`` (our number per seed): (std, low, high) with low–high the 95 %
    interval of their mean (Student's t); ``None`` with fewer than two finite values."""
    if values is None:
        return None
    x = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if len(x) < 2:
        return None
    a = np.asarray(x)
    std = float(a.std(ddof=1))
    half = V.t95(len(a) - 1) * std / math.sqrt(len(a))
    mean = float(a.mean())
    return std, mean - half, mean + half


def num_text(v: float | None, digits: int = 2) -> str:
    if v is None or not math.isfinite(v):
        return MISSING
    return f"{v:.{digits}f}"


def row(
    pub: Published,
    ours: float | bool | None,
    *,
    digits: int = 2,
    note: str = "",
    percent: bool = False,
    seeds: Sequence[float] | None = None,
    runs: int | None = None,
    emulated: float | bool | None = None,
) -> dict[str, Any]:
    """One comparison row with its verdict (:func:`accelbrake.experiments.verdicts.judge`); ``ours``
    is a number, a yes/no answer to a claim, or ``None``. ``seeds``: our number per seed (same
    normalisation as ``ours``), for the spread and the noise test; ``runs``: how many seeds (or
    deterministic runs) ``ours`` comes from when ``seeds`` is not given (1: the spread column says
    "1 run"); ``emulated``: the same number measured another way (the real-time emulator, the
    authors' code), judged on its own."""
    claim = pub.claim is not None
    has_range = pub.low is not None and pub.high is not None
    quantitative = not claim and (pub.value is not None or has_range)
    sp = spread(seeds) if quantitative else None
    if seeds is not None:
        runs = sum(1 for x in seeds if x is not None and math.isfinite(float(x)))
    v = V.judge(
        ours,
        value=pub.value,
        low=pub.low,
        high=pub.high,
        claim=pub.claim,
        tolerance=pub.tolerance,
        implemented=pub.ours is not None,
        interval=sp[1:] if sp else None,
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
        "qualifier": v.qualifier,
        "tolerance": pub.tolerance if pub.tolerance is not None else V.DEFAULT_TOLERANCE,
        "tolerance_text": V.tolerance_text(pub.tolerance, pub.low, pub.high) if quantitative else "",
        "seed_std": sp[0] if sp else None,
        "seed_ci_low": sp[1] if sp else None,
        "seed_ci_high": sp[2] if sp else None,
        "runs": runs,
        "spread_text": _spread_text(sp, digits, percent) or ("1 run" if runs == 1 else ""),
        "note": note,
    }
    if emulated is not None:
        e = V.judge(
            emulated,
            value=pub.value,
            low=pub.low,
            high=pub.high,
            claim=pub.claim,
            tolerance=pub.tolerance,
            implemented=pub.ours is not None,
        )
        row["emulated"] = emulated
        row["emulated_ratio"] = e.ratio
        row["emulated_verdict"] = e.verdict
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
    return {**row, "ours": x, "ours_text": f"{100 * x:.1f} %" if percent else num_text(x, digits)}


def _spread_text(sp: tuple[float, float, float] | None, digits: int, percent: bool) -> str:
    """``± 0.03 (0.91–1.02)``: the std over seeds and the 95 % interval of the mean."""
    if sp is None:
        return ""
    if percent:
        return f"± {100 * sp[0]:.1f} % ({100 * sp[1]:.1f}–{100 * sp[2]:.1f} %)"
    return f"± {sp[0]:.{digits}f} ({sp[1]:.{digits}f}–{sp[2]:.{digits}f})"


def info(
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
        "ours_text": num_text(ours, digits),
        "ratio": None,
        "ratio_text": "n/a",
        "kind": "info",
        "verdict": V.NOT_COMPARED,
        "verdict_text": V.NOT_COMPARED,
        "tolerance": None,
        "tolerance_text": "",
        "note": "",
    }


def scheme_trace_means(results: pd.DataFrame, extra: Sequence[str] = ()) -> pd.DataFrame:
    """Seed means per scheme × trace (× extra axes) of the run-level metrics."""
    runs = F.run_level(results)
    cols = ["link_utilization", "run_per_packet_delay_p95_ms", "run_per_packet_delay_mean_ms", "jain_index"]
    return runs.groupby(["scheme", "trace", *extra], sort=False)[cols].mean().reset_index()


def over_traces(results: pd.DataFrame) -> pd.DataFrame:
    """Per scheme: the mean over traces of the seed means."""
    m = scheme_trace_means(results)
    return m.groupby("scheme", sort=False)[[c for c in m.columns if c not in ("scheme", "trace")]].mean()


def outside_frontier(d: pd.DataFrame, ref: str = "abc") -> tuple[bool | None, str]:
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


def frontier_util_at(front: pd.DataFrame, delay: float) -> float:
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
    fu = frontier_util_at(front, dl)
    names = ", ".join(F.display_name(s) for s in front["scheme"])
    where = (
        f"the others' frontier ({names}) reaches no delay that low"
        if fu == -math.inf
        else f"the others' frontier ({names}) reaches {100 * fu:.1f} % there"
    )
    note = f"{F.display_name(ref)} {100 * u:.1f} % at {dl:.0f} ms; {where}"
    return u > fu, note


def by_seed(results: pd.DataFrame, reduce: Any) -> list[Any]:
    """``reduce`` applied to each seed's runs alone: the k-th seed of every scheme × trace (× other
    axes) together, so that a number computed from seed means can be computed seed by seed for its
    spread. Seeds are matched by their rank within each point, so seeds drawn per trace still pair."""
    if "seed" not in results.columns or results.empty:
        return []
    keys = [c for c in ("scheme", "trace", "delay_ms", "buffer_packets", "flows") if c in results.columns]
    runs = results.drop_duplicates("run_id")[[*keys, "seed", "run_id"]].copy()
    runs["_k"] = runs.groupby(keys, sort=False)["seed"].rank(method="dense").astype(int)
    rank = dict(zip(runs["run_id"], runs["_k"], strict=True))
    k = results["run_id"].map(rank)
    return [reduce(results[k == i]) for i in sorted(set(rank.values()))]


def run_documents(results: pd.DataFrame, out: Path) -> list[tuple[pd.Series, dict[str, Any], dict[str, Any]]]:
    """(run row, summary, scenario) of every run of a sweep written to ``out``."""
    from accelbrake._io import loads

    runs = results.drop_duplicates("run_id")
    docs = []
    for _, r in runs.iterrows():
        d = loads((out / "runs" / f"{r['run_id']}.json").read_bytes())
        docs.append((r, d["summary"], d["scenario"]))
    return docs
