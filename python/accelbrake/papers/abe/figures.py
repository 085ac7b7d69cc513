"""The ABE paper's Fig. 8 and Figs. 9-10 as reproductions: ``abe-fig8`` and
``abe-convergence``.

**Fig. 8** (§IV-B): one NewReno-ABE flow over CoDel at 20 Mbit/s, throughput against β_ecn for several
RTT_path; the claims are that throughput improves with β_ecn, more so for larger RTT_path, and
(text, "not shown to save space") that the median RTT was basically unaffected by β_ecn. The figure
itself is missing from our text of the paper, so its RTTs are assumed to be §IV-B's 100/200/400 ms.
The setup is otherwise :mod:`accelbrake.papers.abe.sweep`'s (CoDel target 5 ms, interval 100 ms,
1000-packet limit, ECN marking, the ACK link at the bottleneck's rate).

**Figs. 9-10** (§IV-C): two flows of one scheme, the second started 30 s after the first; from that
start on, the running Jain index F(t) of the bytes each flow received since then; the convergence
time T is when F(t) first reaches θ = 0.95 (:func:`accelbrake._worker.convergence_time`). For each
capacity × RTT, ρ = T(β_ecn) / T(β) with β the default backoff (Cubic 0.7 with fast convergence off,
footnote 11; NewReno 0.5). The paper plots the CDF of ρ over C ∈ {1, 5, 10, 20, 40, 100} Mbit/s ×
RTT ∈ {10, 20, 40, 60, 80, 160, 240, 320} ms and CoDel and PIE: 384 Cubic experiments (48 × 2 AQMs ×
4 β_ecn: 0.75, 0.8, 0.85, 0.9) and 576 NewReno ones (48 × 2 × 6: 0.6, 0.7, 0.75, 0.8, 0.85, 0.9; the
paper also ran 0.55, 0.65 and 0.95 and omitted them from the plots).

Deviations (also in docs/reproductions.md):

* **Reduced grid by default.** The paper's grid is 1152 runs (with the default-β runs); the default
  grid is :data:`CONV_SUBSET` (C ∈ {1, 10} Mbit/s × all 8 RTTs: 384 runs); the paper's grid is
  ``grid="paper"`` (``scripts/abe_convergence.py --grid paper``).
* **Capped simulated time.** Each run lasts 30 s + :data:`CONV_CAP_S` (``--quick``:
  :data:`QUICK_CAP_S`); a run whose F(t) stays below θ until then "did not converge" and is counted
  as such: ρ = ∞ when only the β_ecn run did not converge, ρ ≤ T(β_ecn)/cap when only the default
  did (that bound is used), and the pair is left out when neither did. The paper ran "long enough to
  ensure convergence".
* One run per point (seed 0), as the paper's plot has one ρ per experiment.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import rows as R
from accelbrake.experiments.published import Published
from accelbrake.papers.abe.published import FIG8_RTT_UNAFFECTED_MS, FIG8_RTTS, PUBLISHED, RHO_CLOSE

__all__ = [
    "CONV_BETAS",
    "CONV_CAP_S",
    "CONV_DEFAULT_BETA",
    "CONV_PAPER_GRID",
    "CONV_SUBSET",
    "FIG8_BETAS",
    "FIG8_RTTS",
    "convergence_scenario",
    "rho_table",
    "run_convergence",
    "run_fig8",
]

# ---------------------------------------------------------------------------------------------
# Fig. 8

#: Fig. 8's bottleneck, Mbit/s (its caption).
FIG8_MBPS = 20.0
#: β_ecn of the full run: §IV-B's 0.5-0.95 in steps of 0.05; quick: the ends and the middle.
FIG8_BETAS: tuple[float, ...] = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
FIG8_QUICK_BETAS: tuple[float, ...] = (0.5, 0.8, 0.95)
FIG8_QUICK_RTTS: tuple[int, ...] = (100, 400)
#: Simulated time per run, s (full: as abe-figures' 600 s would cost 4× more at 20 Mbit/s; 300 s
#: holds ≥ 6 NewReno sawtooth cycles at 400 ms), and with ``--quick``.
FIG8_DURATION_S = 300.0
FIG8_QUICK_DURATION_S = 20.0
_SEC8 = "abe-fig8"


def _fig8_published(rtts: Sequence[int]) -> list[Published]:
    """The published claims of Fig. 8 (:mod:`accelbrake.papers.abe.published`) for the RTTs run."""
    return [
        p
        for p in PUBLISHED[_SEC8]
        if not p.metric.startswith("Fig. 8: RTT ") or int(p.metric.split("RTT ")[1].split(" ms")[0]) in rtts
    ]


def fig8_verdicts(d: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of abe-fig8 from its table ``d`` (columns rtt_ms, beta_ecn, throughput_mbps,
    median_rtt_ms): per RTT our throughputs (info), then the claims."""
    rows: list[dict[str, Any]] = []
    rtts = sorted(int(r) for r in d["rtt_ms"].unique())
    gains: dict[int, float] = {}
    for rtt in rtts:
        g = d[d["rtt_ms"] == rtt].sort_values("beta_ecn")
        tp = g["throughput_mbps"].to_numpy(float)
        r = R.info(
            "NewReno",
            f"Fig. 8: RTT {rtt} ms: throughput Mbit/s at β_ecn " + "/".join(f"{b:g}" for b in g["beta_ecn"]),
            float(tp[-1]),
            2,
            "in the figure",
        )
        r["ours_text"] = " / ".join(f"{x:.2f}" for x in tp)
        rows.append(r)
        gains[rtt] = 100.0 * (tp[-1] / tp[0] - 1.0) if tp[0] > 0 else math.nan
    for pub in _fig8_published(rtts):
        if "grows with RTT" in pub.metric:
            vals = [gains[r] for r in rtts]
            ok = bool(len(vals) > 1 and np.all(np.diff(vals) > 0))
            rows.append(
                R.row(pub, ok, note=" → ".join(f"RTT {r} ms {gains[r]:+.1f} %" for r in rtts), runs=1)
            )
            continue
        rtt = int(pub.metric.split("RTT ")[1].split(" ms")[0])
        g = d[d["rtt_ms"] == rtt].sort_values("beta_ecn")
        if "median RTT" in pub.metric:
            m = g["median_rtt_ms"].to_numpy(float)
            spread = float(np.nanmax(m) - np.nanmin(m))
            note = f"median RTT {np.nanmin(m):.1f}-{np.nanmax(m):.1f} ms (spread {spread:.1f} ms)"
            rows.append(R.row(pub, spread < FIG8_RTT_UNAFFECTED_MS, note=note, runs=1))
        else:
            tp = g["throughput_mbps"].to_numpy(float)
            # Improves: the largest β_ecn beats 0.5, and no step down by more than 1 % of capacity
            # (noise between neighbouring β_ecn values is not a trend).
            ok = bool(tp[-1] > tp[0] and np.all(np.diff(tp) > -0.01 * FIG8_MBPS))
            rows.append(
                R.row(pub, ok, note=f"{tp[0]:.2f} → {tp[-1]:.2f} Mbit/s ({gains[rtt]:+.1f} %)", runs=1)
            )
    return rows


def run_fig8(
    out: Path, quick: bool, secs: float | None, *, executor: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Run Fig. 8 into ``out`` (resumable) and judge it. Full: β_ecn 0.5-0.95 × RTT 100/200/400 ms,
    :data:`FIG8_DURATION_S`; quick: β_ecn 0.5/0.8/0.95 × RTT 100/400 ms, :data:`FIG8_QUICK_DURATION_S`."""
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.runner import Task, run_scenarios
    from accelbrake.papers.abe import sweep as abe

    dur = secs or (FIG8_QUICK_DURATION_S if quick else FIG8_DURATION_S)
    rtts = FIG8_QUICK_RTTS if quick else FIG8_RTTS
    betas = FIG8_QUICK_BETAS if quick else FIG8_BETAS
    tasks = []
    for rtt in rtts:
        for b in betas:
            sc = abe.abe_scenario("newreno-abe", "codel", rtt, b, dur, record_packets=False, mbps=FIG8_MBPS)
            labels = {"rtt_ms": rtt, "beta_ecn": b}
            tasks.append(Task((rtt, b), sc, f"abe-fig8 RTT {rtt} ms β_ecn {b:g}", labels))
    outcome = run_scenarios(tasks, out, kind="summary", executor=executor or LocalExecutor(), progress=False)
    table = []
    for t in tasks:
        rtt, b = t.key  # type: ignore[misc]
        s = outcome.results[t.key]
        qd = (s["hops"][0].get("queueing_delay_ms") or {}).get("p50")
        table.append(
            {
                "rtt_ms": rtt,
                "beta_ecn": b,
                "throughput_mbps": float(s.get("throughput_mbps") or 0.0),
                # The paper's estimate (footnote 10): RTT = RTT_path + queueing delay; the median of
                # the bottleneck's queueing delay over the data packets (the ACK link never queues).
                "median_rtt_ms": rtt + float(qd) if qd is not None else math.nan,
            }
        )
    d = pd.DataFrame(table)
    d.to_csv(out / "abe-fig8.csv", index=False)
    plot_fig8(d, out / "abe-fig8.png")
    return fig8_verdicts(d), outcome.total


# ---------------------------------------------------------------------------------------------
# Figs. 9 and 10

#: The paper's grid (§IV-C): capacities (Mbit/s) and RTT_path (ms).
CONV_PAPER_GRID: tuple[tuple[float, int], ...] = tuple(
    (c, r) for c in (1.0, 5.0, 10.0, 20.0, 40.0, 100.0) for r in (10, 20, 40, 60, 80, 160, 240, 320)
)
#: The default grid: 16 of the 48 combinations, 1 and 10 Mbit/s at all 8 RTTs (384 runs). Chosen on
#: the paper's grid run in full (docs/reproductions.md): it gives the same five verdicts as the 48
#: combinations and each curve's share of faster cases within 4 points on average, at about a sixth
#: of the simulated packets (the cost grows with the capacity); the first choice, 5 and 20 Mbit/s ×
#: 10/40/80 ms, flipped one verdict.
CONV_SUBSET: tuple[tuple[float, int], ...] = tuple(
    (c, r) for c in (1.0, 10.0) for r in (10, 20, 40, 60, 80, 160, 240, 320)
)
#: ``--quick``: one combination.
CONV_QUICK: tuple[tuple[float, int], ...] = ((10.0, 20),)
#: The default backoff β per scheme (§IV-C) and the plotted β_ecn values (Figs. 9 and 10).
CONV_DEFAULT_BETA: dict[str, float] = {"cubic-abe": 0.7, "newreno-abe": 0.5}
CONV_BETAS: dict[str, tuple[float, ...]] = {
    "cubic-abe": (0.75, 0.8, 0.85, 0.9),
    "newreno-abe": (0.6, 0.7, 0.75, 0.8, 0.85, 0.9),
}
CONV_QUICK_BETAS: dict[str, tuple[float, ...]] = {"cubic-abe": (0.85,), "newreno-abe": (0.75,)}
CONV_AQMS = ("codel", "pie")
#: The second flow's start, s (§IV-C: "a delay of 30 seconds in between").
CONV_GAP_S = 30.0
#: Simulated time after the second start before a run counts as "did not converge", s. On the
#: paper's grid run with a 120 s cap, 60 s leaves 16 of the default grid's 384 runs unconverged
#: (6 at 120 s) and changes no verdict, at 90 instead of 150 s of simulated time per run.
CONV_CAP_S = 60.0
QUICK_CAP_S = 20.0
#: Bin width of the flows' byte counts (the resolution of T), ms: a tenth of the RTT within 1-10 ms.
#: At small BDPs T is a few RTTs (the new flow's initial window and slow start alone bring F(t) to θ),
#: so a fixed 10 ms bin would quantise ρ into steps of 0.25 there.
CONV_BIN_MAX_MS = 10.0


def conv_bin_ms(rtt_ms: float) -> float:
    """The bin width of a run at ``rtt_ms``: RTT/10, at least 1 ms, at most :data:`CONV_BIN_MAX_MS`."""
    return min(CONV_BIN_MAX_MS, max(1.0, rtt_ms / 10.0))


_SEC = "abe-convergence"
_NAMES = {"cubic-abe": "Cubic", "newreno-abe": "NewReno"}
_AQM = {"codel": "CoDel", "pie": "PIE"}


def convergence_scenario(
    scheme: str, aqm: str, mbps: float, rtt_ms: int, beta: float, cap_s: float, seed: int = 0
) -> dict[str, Any]:
    """Two flows of ``scheme`` (β_ecn ``beta``; Cubic without fast convergence, footnote 11) through
    the ABE bottleneck (CoDel or PIE with ECN, 1000 packets) at ``mbps``, the second started
    :data:`CONV_GAP_S` after the first; the run ends ``cap_s`` after the second start."""
    from accelbrake.papers.abe import sweep as abe

    sc = abe.abe_scenario(
        scheme, aqm, rtt_ms, beta, CONV_GAP_S + cap_s, seed=seed, record_packets=False, mbps=mbps
    )
    sc["sample_ms"] = conv_bin_ms(rtt_ms)
    params: dict[str, Any] = {"beta_ecn": beta}
    if scheme == "cubic-abe":
        params["fast_convergence"] = False
    flow = {"scheme": scheme, "params": params, "fwd": [0], "rev": [1], "ecn": True}
    sc["flows"] = [dict(flow), {**flow, "start_ms": 1000.0 * CONV_GAP_S}]
    return sc


def rho_table(d: pd.DataFrame, cap_s: float) -> pd.DataFrame:
    """ρ = T(β_ecn) / T(β) per scheme × AQM × capacity × RTT × β_ecn from the runs' table ``d``
    (columns scheme, aqm, mbps, rtt_ms, beta_ecn, convergence_s with NaN for "did not converge").

    Censored pairs (see the module docstring): only T(β_ecn) missing → ρ = ∞; only T(β) missing →
    ρ = T(β_ecn)/cap (an upper bound, below 1); both missing → left out (``status`` says which)."""
    out = []
    for (scheme, aqm, mbps, rtt), g in d.groupby(["scheme", "aqm", "mbps", "rtt_ms"], sort=False):
        base = CONV_DEFAULT_BETA[str(scheme)]
        sel = g[(g["beta_ecn"] - base).abs() < 1e-9]
        if sel.empty:
            continue
        tb = float(sel["convergence_s"].iloc[0])
        for r in g.itertuples():
            if abs(float(r.beta_ecn) - base) < 1e-9:
                continue
            te = float(r.convergence_s)
            if math.isfinite(te) and math.isfinite(tb):
                rho, status = (te / tb if tb > 0 else math.inf), "both converged"
            elif math.isfinite(tb):
                rho, status = math.inf, "β_ecn run did not converge"
            elif math.isfinite(te):
                rho, status = te / cap_s, "default run did not converge"
            else:
                rho, status = math.nan, "neither converged"
            out.append(
                {
                    "scheme": scheme,
                    "aqm": aqm,
                    "mbps": mbps,
                    "rtt_ms": rtt,
                    "beta_ecn": float(r.beta_ecn),
                    "t_default_s": tb,
                    "t_beta_ecn_s": te,
                    "rho": rho,
                    "status": status,
                }
            )
    return pd.DataFrame(
        out,
        columns=[
            "scheme",
            "aqm",
            "mbps",
            "rtt_ms",
            "beta_ecn",
            "t_default_s",
            "t_beta_ecn_s",
            "rho",
            "status",
        ],
    )


def _curves(rho: pd.DataFrame) -> pd.DataFrame:
    """Per scheme × AQM × β_ecn (one CDF of the figures): the cases, the median ρ and the share of
    cases faster than the default (ρ < 1), over the pairs where at least one run converged."""
    rows = []
    for (scheme, aqm, b), g in rho.groupby(["scheme", "aqm", "beta_ecn"], sort=False):
        v = g["rho"].to_numpy(float)
        v = v[~np.isnan(v)]
        rows.append(
            {
                "scheme": scheme,
                "aqm": aqm,
                "beta_ecn": b,
                "cases": len(v),
                "median_rho": float(np.median(v)) if len(v) else math.nan,
                "faster": float(np.mean(v < 1.0)) if len(v) else math.nan,
                "not_converged": int((g["status"] != "both converged").sum()),
            }
        )
    return pd.DataFrame(rows)


def _conv_published() -> list[Published]:
    """The published claims of Figs. 9-10 (:mod:`accelbrake.papers.abe.published`)."""
    return list(PUBLISHED[_SEC])


def convergence_verdicts(rho: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of abe-convergence from the ρ table: one info row per curve (median ρ, share faster,
    cases not converged), then the claims (a claim whose curves are not in ``rho`` has no data)."""
    cur = _curves(rho)
    rows: list[dict[str, Any]] = []
    for c in cur.itertuples():
        fig = "Fig. 9" if c.scheme == "cubic-abe" else "Fig. 10"
        r = R.info(
            _NAMES[str(c.scheme)],
            f"{fig} ({_AQM[str(c.aqm)]}), β_ecn {c.beta_ecn:g}: median ρ",
            float(c.median_rho),
            2,
            "CDF in the figure",
        )
        r["note"] = (
            f"{int(c.cases)} cases, {100 * c.faster:.0f} % faster (ρ < 1), {int(c.not_converged)} with a "
            "run that did not converge"
        )
        rows.append(r)
    for pub in _conv_published():
        m = pub.metric
        if m.startswith("Figs. 9-10"):
            ok: bool | None = bool(np.mean(cur["median_rho"] <= RHO_CLOSE) > 0.5) if len(cur) else None
            note = f"{int((cur['median_rho'] <= RHO_CLOSE).sum())} of {len(cur)} curves"
        elif m.startswith("Fig. 9"):
            aqm = "codel" if "CoDel" in m else "pie"
            c = cur[(cur["scheme"] == "cubic-abe") & (cur["aqm"] == aqm)]
            ok = bool(np.mean(c["faster"] < 0.5) > 0.5) if len(c) else None
            note = ", ".join(
                f"{b:g}: {100 * f:.0f} %" for b, f in zip(c["beta_ecn"], c["faster"], strict=True)
            )
        else:
            c = cur[(cur["scheme"] == "newreno-abe") & (cur["aqm"] == "pie")]
            note = ", ".join(
                f"{b:g}: {100 * f:.0f} %" for b, f in zip(c["beta_ecn"], c["faster"], strict=True)
            )
            if c.empty:
                ok = None
            elif "every" in m:
                ok = bool(np.all(c["faster"] > 0.5))
            else:
                best = c[c["faster"] == c["faster"].max()]
                ok = bool(len(c) > 1 and (best["beta_ecn"] - 0.75).abs().min() < 1e-9)
                if ok and len(best) > 1:
                    note += " (tied)"
        # One run per point (seed 0): the paper's plot has one ρ per experiment.
        rows.append(R.row(pub, ok, note=note, runs=1))
    return rows


def run_convergence(
    out: Path,
    quick: bool,
    secs: float | None,
    *,
    grid: str = "subset",
    executor: Any = None,
) -> tuple[list[dict[str, Any]], int]:
    """Run Figs. 9-10 into ``out`` (resumable) and judge them. ``grid``: ``"subset"``
    (:data:`CONV_SUBSET`, the default) or ``"paper"`` (:data:`CONV_PAPER_GRID`); ``--quick``:
    :data:`CONV_QUICK` with one β_ecn per scheme and a :data:`QUICK_CAP_S` cap. ``secs`` overrides
    the cap (the simulated time after the second start)."""
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.runner import Task, run_scenarios

    if grid not in ("subset", "paper"):
        raise ValueError(f"grid '{grid}': expected subset or paper")
    cap = secs or (QUICK_CAP_S if quick else CONV_CAP_S)
    combos = CONV_QUICK if quick else (CONV_PAPER_GRID if grid == "paper" else CONV_SUBSET)
    betas = CONV_QUICK_BETAS if quick else CONV_BETAS
    tasks = []
    for scheme in ("cubic-abe", "newreno-abe"):
        for aqm in CONV_AQMS:
            for mbps, rtt in combos:
                for b in (CONV_DEFAULT_BETA[scheme], *betas[scheme]):
                    key = (scheme, aqm, mbps, rtt, b)
                    labels = {"scheme": scheme, "aqm": aqm, "mbps": mbps, "rtt_ms": rtt, "beta_ecn": b}
                    sc = convergence_scenario(scheme, aqm, mbps, rtt, b, cap)
                    desc = f"abe-convergence {scheme} {aqm} {mbps:g} Mbit/s RTT {rtt} ms β_ecn {b:g}"
                    tasks.append(Task(key, sc, desc, labels))
    outcome = run_scenarios(
        tasks, out, kind="convergence", executor=executor or LocalExecutor(), progress=False
    )
    table = []
    for t in tasks:
        scheme, aqm, mbps, rtt, b = t.key  # type: ignore[misc]
        res = outcome.results[t.key]
        conv = res.get("convergence_s")
        table.append(
            {
                "scheme": scheme,
                "aqm": aqm,
                "mbps": mbps,
                "rtt_ms": rtt,
                "beta_ecn": b,
                "convergence_s": float(conv) if conv is not None else math.nan,
            }
        )
    d = pd.DataFrame(table)
    d.to_csv(out / "abe-convergence.csv", index=False)
    rho = rho_table(d, cap)
    rho.to_csv(out / "abe-convergence-rho.csv", index=False)
    plot_rho(rho, out / "abe-convergence.png")
    return convergence_verdicts(rho), outcome.total


# ---------------------------------------------------------------------------------------------
# Plots (the index page shows the first PNG of a reproduction's folder)


def plot_fig8(d: pd.DataFrame, path: Path, dpi: int = 110) -> Path:
    """Throughput (left) and median RTT above RTT_path (right) against β_ecn, one line per RTT."""
    from matplotlib.figure import Figure

    from accelbrake.papers.abe.sweep import _save

    fig = Figure(figsize=(9, 3.4))
    ax1, ax2 = fig.subplots(1, 2)
    for rtt, g in d.groupby("rtt_ms"):
        g = g.sort_values("beta_ecn")
        ax1.plot(g["beta_ecn"], g["throughput_mbps"], marker="o", label=f"RTT {rtt} ms")
        ax2.plot(g["beta_ecn"], g["median_rtt_ms"] - float(rtt), marker="o", label=f"RTT {rtt} ms")
    ax1.axhline(FIG8_MBPS, color="grey", ls=":", lw=1)
    ax1.set(xlabel="β_ecn", ylabel="throughput (Mbit/s)", title="NewReno-ABE, CoDel, 20 Mbit/s")
    ax2.set(xlabel="β_ecn", ylabel="median RTT − RTT_path (ms)", title="median RTT")
    ax1.legend(fontsize=8)
    return _save(fig, path, dpi)


def plot_rho(rho: pd.DataFrame, path: Path, dpi: int = 110) -> Path:
    """CDFs of ρ per β_ecn (the paper's Figs. 9 and 10): rows Cubic / NewReno, columns CoDel / PIE;
    ρ = ∞ (only the β_ecn run did not converge) drawn at the right edge."""
    from matplotlib.figure import Figure

    from accelbrake.papers.abe.sweep import _save

    fig = Figure(figsize=(9, 6))
    axes = fig.subplots(2, 2, sharex=True, sharey=True)
    for i, scheme in enumerate(("cubic-abe", "newreno-abe")):
        for j, aqm in enumerate(CONV_AQMS):
            ax = axes[i][j]
            sel = rho[(rho["scheme"] == scheme) & (rho["aqm"] == aqm)]
            for b, g in sel.groupby("beta_ecn"):
                v = np.sort(g["rho"].to_numpy(float))
                v = v[~np.isnan(v)]
                if not len(v):
                    continue
                v = np.minimum(v, 100.0)
                ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=f"β_ecn {b:g}")
            ax.axvline(1.0, color="grey", ls=":", lw=1)
            ax.set_xscale("log")
            ax.set_title(f"{_NAMES[scheme]}, {_AQM[aqm]}", fontsize=10)
            if i == 1:
                ax.set_xlabel("ρ = T(β_ecn) / T(β)")
            if j == 0:
                ax.set_ylabel("CDF")
            ax.legend(fontsize=7)
    return _save(fig, path, dpi)
