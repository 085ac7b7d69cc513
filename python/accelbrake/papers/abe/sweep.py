"""The ABE paper's single-flow sweep of β_ecn (figures 4–7).

ABE (Alternative Backoff with ECN, RFC 8511; Khademi et al., IFIP Networking 2017) lets a sender
back off less on an ECN mark (β_ecn) than on a loss (β), because an AQM that marks keeps the queue
short anyway. The paper's setup, reproduced here:

* one long-lived flow over a 10 Mbit/s bottleneck (a constant link; the ACKs go back over a
  10 Mbit/s link with an infinite queue), RTT 100, 200 or 400 ms (half of it each way);
* CoDel (target 5 ms, interval 100 ms) or PIE (qdelay_ref 20 ms, t_update 30 ms, α 0.125,
  β 1.25, max_burst 100 ms), 1000-packet limit, ECN on (the AQM marks);
* NewReno-ABE and Cubic-ABE, β_ecn from 0.5 to 0.95 in steps of 0.05, β_ecn also applied when a
  mark ends slow start (the core's ``abe_slow_start``, on by default);
* Cubic with its fast-convergence mode off (the paper's footnote 11, §IV-B: "to provide
  conservative results").

Each run gives throughput, utilisation and the median and 90th percentile of the bottleneck's
queueing delay over the data packets that left it (from the ``hop_packets`` table, Mahimahi's
percentile: the sorted value at index floor(q·N)). :func:`run_sweep` runs the grid through the
experiment runner (a local process pool or Ray; resumable in the output folder),
:func:`write_outputs` writes ``abe.csv``, ``abe.parquet``, ``metadata.json`` and the plots,
:func:`paper_comparison` sets our gains next to the paper's.

>>> sc = abe_scenario("newreno-abe", "codel", rtt_ms=400, beta_ecn=0.8, duration_s=600)
>>> sc["hops"][0]["queue"]["target_ms"], sc["flows"][0]["params"]["beta_ecn"]
(5.0, 0.8)
>>> abe_scenario("cubic-abe", "pie", rtt_ms=100, beta_ecn=0.85)["flows"][0]["params"]["fast_convergence"] == 0
True
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelbrake._io import atomic_path, atomic_write_json
from accelbrake.papers.abe.published import PAPER_DELAY_CHANGES, PAPER_GAINS
from accelbrake.scenarios import ScenarioError, build_scenario
from accelbrake.tables import render_table

if TYPE_CHECKING:
    import pandas as pd

    from accelbrake.experiments.executors import Executor

__all__ = [
    "AQMS",
    "BETAS",
    "PAPER_DELAY_CHANGES",
    "PAPER_GAINS",
    "QUICK_BETAS",
    "RTTS_MS",
    "SCHEMES",
    "abe_scenario",
    "format_comparison",
    "format_table",
    "paper_comparison",
    "plot_abe",
    "run_sweep",
    "write_outputs",
]

#: Bottleneck rate, Mbit/s (both directions).
BOTTLENECK_MBPS = 10.0
#: Queue limit of the AQM, packets.
LIMIT_PACKETS = 1000
#: Round-trip propagation delays, ms.
RTTS_MS: tuple[int, ...] = (100, 200, 400)
#: β_ecn values of the full sweep: 0.5, 0.55, ..., 0.95.
BETAS: tuple[float, ...] = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))
#: β_ecn values of ``--quick``: the paper's reference points.
QUICK_BETAS: tuple[float, ...] = (0.5, 0.7, 0.8, 0.85, 0.95)
#: Simulated time per run, s (long RTTs need many sawtooth cycles), and with ``--quick``.
DURATION_S = 600.0
QUICK_DURATION_S = 120.0
#: The ABE schemes (controller names in the core) and their labels.
SCHEMES: dict[str, str] = {"newreno-abe": "NewReno", "cubic-abe": "Cubic"}
#: The AQMs as ``--queue`` specs (the paper's parameters, ECN marking on) and their labels.
AQMS: dict[str, str] = {
    "codel": f"codel target=5ms,interval=100ms,packets={LIMIT_PACKETS},ecn=1",
    "pie": "pie qdelay_ref=20ms,t_update=30ms,alpha=0.125,beta=1.25,max_burst=100ms,"
    f"packets={LIMIT_PACKETS},ecn=1",
}
AQM_LABELS = {"codel": "CoDel", "pie": "PIE"}

_SET_PREFIX = {"newreno-abe": "newreno-abe", "cubic-abe": "cubic-abe"}
#: Settings of the paper's runs beside β_ecn: its footnote 11 (§IV-B) turns Cubic's fast
#: convergence off for all its Cubic experiments.
_FIXED_SETS: dict[str, tuple[str, ...]] = {
    "newreno-abe": (),
    "cubic-abe": ("cubic-abe.fast_convergence=false",),
}


#: Columns of ``abe.csv``, in order.
COLUMNS = (
    "scheme",
    "aqm",
    "rtt_ms",
    "beta_ecn",
    "duration_s",
    "throughput_mbps",
    "goodput_mbps",
    "utilization",
    "queueing_delay_p50_ms",
    "queueing_delay_p90_ms",
    "queueing_delay_mean_ms",
    "packets",
    "ce_marks",
    "drops",
    "retransmits",
    "timeouts",
)


def abe_scenario(
    scheme: str,
    aqm: str,
    rtt_ms: float,
    beta_ecn: float,
    duration_s: float = DURATION_S,
    *,
    seed: int = 0,
    record_packets: bool = True,
    mbps: float = BOTTLENECK_MBPS,
) -> dict[str, Any]:
    """The scenario of one point of the sweep (see the module docstring); ``mbps`` the bottleneck's
    (and the ACK link's) rate, 10 Mbit/s as in Figs. 4-7 unless given (Fig. 8: 20 Mbit/s; §IV-C:
    1-100 Mbit/s)."""
    if scheme not in SCHEMES:
        raise ScenarioError(f"scheme '{scheme}': expected one of {', '.join(SCHEMES)}", key="scheme")
    if aqm not in AQMS:
        raise ScenarioError(f"aqm '{aqm}': expected one of {', '.join(AQMS)}", key="aqm")
    return build_scenario(
        scheme,
        trace=mbps,
        ack_mbps=mbps,
        delay_ms=rtt_ms / 2.0,
        buffer_packets=LIMIT_PACKETS,
        duration_s=duration_s,
        seed=seed,
        sets=[f"{_SET_PREFIX[scheme]}.beta_ecn={beta_ecn!r}", *_FIXED_SETS[scheme]],
        record_packets=record_packets,
        sample_ms=1000.0,
        queue=AQMS[aqm],
    )


def parse_betas(text: str | Iterable[float]) -> tuple[float, ...]:
    """``"0.5,0.7,0.8"`` → ``(0.5, 0.7, 0.8)``; each in (0, 1). Raises ``ValueError`` naming the item."""
    items = [x.strip() for x in text.split(",")] if isinstance(text, str) else list(text)
    out: list[float] = []
    for item in items:
        if item == "":
            continue
        try:
            v = float(item)
        except (TypeError, ValueError):
            raise ValueError(f"expected numbers in (0, 1) like 0.5,0.8, got '{item}'") from None
        if not (0.0 < v < 1.0):
            raise ValueError(f"expected numbers in (0, 1) like 0.5,0.8, got '{item}'")
        out.append(round(v, 6))
    if not out:
        raise ValueError("expected at least one beta_ecn, like 0.5,0.8")
    return tuple(sorted(set(out)))


def _describe(key: tuple[str, str, int, float]) -> str:
    scheme, aqm, rtt, beta = key
    return f"{scheme} with {aqm}, RTT {rtt} ms, beta_ecn {beta:g}"


def run_sweep(
    *,
    duration_s: float = DURATION_S,
    betas: Sequence[float] = BETAS,
    rtts_ms: Sequence[int] = RTTS_MS,
    schemes: Sequence[str] = tuple(SCHEMES),
    aqms: Sequence[str] = tuple(AQMS),
    seed: int = 0,
    jobs: int | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
    executor: Executor | None = None,
    log: Callable[[str], Any] | None = None,
    counts: dict[str, int] | None = None,
) -> tuple[pd.DataFrame, dict[str, dict[str, Any]]]:
    """Run every scheme × AQM × RTT × β_ecn; return the table (one row per run, :data:`COLUMNS`)
    and the scenarios by ``"scheme aqm rtt=... beta_ecn=..."``. ``counts``, if given, receives
    ``total``, ``ran`` and ``reused`` (runs read back from ``out_dir``).

    The runs go through :func:`accelbrake.experiments.runner.run_scenarios` on ``executor``
    (default: a local process pool of ``jobs`` workers); with ``out_dir`` each finished run is kept
    in ``out_dir/runs/`` and a rerun skips it. ``log`` gets one line: runs, already done, executor."""
    import pandas as pd

    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.runner import Task, run_scenarios

    tasks: list[Task] = []
    scenarios: dict[str, dict[str, Any]] = {}
    for scheme in schemes:
        for aqm in aqms:
            for rtt in rtts_ms:
                for beta in betas:
                    sc = abe_scenario(scheme, aqm, rtt, beta, duration_s, seed=seed)
                    key = (scheme, aqm, int(rtt), float(beta))
                    labels = {"scheme": scheme, "aqm": aqm, "rtt_ms": int(rtt), "beta_ecn": float(beta)}
                    tasks.append(Task(key, sc, _describe(key), labels))
                    scenarios[f"{scheme} {aqm} rtt={rtt}ms beta_ecn={beta:g}"] = sc
    outcome = run_scenarios(
        tasks,
        out_dir,
        kind="hop_quantiles",
        executor=executor or LocalExecutor(jobs),
        progress=progress,
        desc="abe-sweep",
        echo=log,
    )
    if counts is not None:
        counts.update(total=outcome.total, ran=outcome.ran, reused=outcome.skipped)
    rows = [_row(t.key, duration_s, outcome.results[t.key]) for t in tasks]  # type: ignore[arg-type]
    return pd.DataFrame(rows, columns=list(COLUMNS)), scenarios


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _row(key: tuple[str, str, int, float], duration_s: float, res: dict[str, Any]) -> dict[str, Any]:
    scheme, aqm, rtt, beta = key
    s = res["summary"]
    hop = s["hops"][0]
    flow = s["flows"][0]
    qd = hop.get("queueing_delay_ms") or {}
    return {
        "scheme": scheme,
        "aqm": aqm,
        "rtt_ms": rtt,
        "beta_ecn": beta,
        "duration_s": float(duration_s),
        "throughput_mbps": _num(s.get("throughput_mbps")),
        "goodput_mbps": _num(flow.get("goodput_mbps")),
        "utilization": _num(s.get("utilization")),
        # The summary's median of the bottleneck's queueing delay (data only: hop 0 carries no
        # ACKs); the 90th percentile is not in the summary and comes from hop_packets.
        "queueing_delay_p50_ms": _num(qd.get("p50")),
        "queueing_delay_p90_ms": _num(res["hop_delay_ms"].get("p90")),
        "queueing_delay_mean_ms": _num(qd.get("mean")),
        "packets": int(hop.get("packets", 0)),
        "ce_marks": int(hop.get("marks", 0)),
        "drops": int(hop.get("drops", 0)),
        "retransmits": int(flow.get("retransmits", 0)),
        "timeouts": int(flow.get("timeouts", 0)),
    }


# ---------------------------------------------------------------------------------------------
# Comparison with the paper


def _lookup(table: pd.DataFrame, scheme: str, aqm: str, rtt: int, beta: float, col: str) -> float | None:
    sel = table[
        (table["scheme"] == scheme)
        & (table["aqm"] == aqm)
        & (table["rtt_ms"] == rtt)
        & ((table["beta_ecn"] - beta).abs() < 1e-9)
    ]
    if sel.empty:
        return None
    return float(sel[col].iloc[0])


def paper_comparison(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Our numbers next to the paper's (:data:`PAPER_GAINS`, :data:`PAPER_DELAY_CHANGES`).

    One dict per comparison: ``what``, ``ours`` (percent or ms; ``None`` if the sweep lacks a
    needed β_ecn or RTT), ``paper``, ``paper_text``, ``unit``, ``ratio`` (ours / paper) and
    ``missing`` (what the sweep would need).
    """
    out: list[dict[str, Any]] = []
    for g in PAPER_GAINS:
        hi = _lookup(table, g.scheme, g.aqm, g.rtt_ms, g.beta, "throughput_mbps")
        lo = _lookup(table, g.scheme, g.aqm, g.rtt_ms, g.base, "throughput_mbps")
        ours = 100.0 * (hi / lo - 1.0) if hi is not None and lo and lo > 0 else None
        missing = [b for b, v in ((g.base, lo), (g.beta, hi)) if v is None]
        out.append(
            {
                "what": f"{SCHEMES[g.scheme]} {AQM_LABELS[g.aqm]}, RTT {g.rtt_ms} ms: throughput with "
                f"beta_ecn {g.beta:g} vs {g.base:g}",
                "scheme": g.scheme,
                "aqm": g.aqm,
                "rtt_ms": g.rtt_ms,
                "metric": "throughput_gain",
                "beta_ecn": g.beta,
                "base_beta_ecn": g.base,
                "unit": "%",
                "ours": ours,
                "paper": g.paper_pct,
                "paper_text": f"{g.paper_pct:+g} %",
                "ratio": ours / g.paper_pct if ours is not None else None,
                "missing": missing,
            }
        )
    for d in PAPER_DELAY_CHANGES:
        col = f"queueing_delay_{d.stat}_ms"
        hi = _lookup(table, d.scheme, d.aqm, d.rtt_ms, d.beta, col)
        lo = _lookup(table, d.scheme, d.aqm, d.rtt_ms, d.base, col)
        ours = hi - lo if hi is not None and lo is not None else None
        missing = [b for b, v in ((d.base, lo), (d.beta, hi)) if v is None]
        name = "median" if d.stat == "p50" else "90th-percentile"
        out.append(
            {
                "what": f"{SCHEMES[d.scheme]} {AQM_LABELS[d.aqm]}, RTT {d.rtt_ms} ms: {name} queueing delay, "
                f"beta_ecn {d.base:g} -> {d.beta:g}",
                "scheme": d.scheme,
                "aqm": d.aqm,
                "rtt_ms": d.rtt_ms,
                "metric": f"queueing_delay_{d.stat}_change",
                "beta_ecn": d.beta,
                "base_beta_ecn": d.base,
                "unit": "ms",
                "ours": ours,
                "paper": d.paper_ms,
                "paper_text": d.paper_text,
                "ratio": ours / d.paper_ms if ours is not None else None,
                "missing": missing,
            }
        )
    return out


def format_comparison(comparison: Sequence[dict[str, Any]]) -> str:
    """One line per comparison: ``<what>: ours +21.3 %, paper +24 %, ratio 0.89``."""
    lines = ["Comparison with the ABE paper (ours, paper, ratio ours/paper):"]
    for c in comparison:
        if c["ours"] is None:
            need = ", ".join(f"{b:g}" for b in c["missing"]) or "?"
            lines.append(
                f"  {c['what']}: ours n/a (the sweep has no beta_ecn {need}), "
                f"paper {c['paper_text']}, ratio n/a"
            )
            continue
        ours = f"{c['ours']:+.1f} {c['unit']}"
        bound = " (of the bound)" if c["paper_text"].startswith("<") else ""
        lines.append(f"  {c['what']}: ours {ours}, paper {c['paper_text']}, ratio {c['ratio']:.2f}{bound}")
    return "\n".join(lines)


def format_table(table: pd.DataFrame) -> str:
    """Throughput, and median / 90th-percentile queueing delay, by scheme × AQM × RTT × β_ecn."""
    betas = sorted(table["beta_ecn"].unique())
    groups = table.groupby(["scheme", "aqm", "rtt_ms"], sort=False)
    heads = [("scheme", ""), ("AQM", ""), ("RTT", "ms")]
    t_headers = heads + [
        ("throughput (Mbit/s) by beta_ecn" if i == 0 else "", f"{b:g}") for i, b in enumerate(betas)
    ]
    d_headers = heads + [
        ("queueing delay p50/p90 (ms) by beta_ecn" if i == 0 else "", f"{b:g}") for i, b in enumerate(betas)
    ]
    t_rows, d_rows = [], []
    for (scheme, aqm, rtt), g in groups:
        by_beta = {round(float(r.beta_ecn), 6): r for r in g.itertuples()}
        head = [SCHEMES.get(str(scheme), str(scheme)), AQM_LABELS.get(str(aqm), str(aqm)), str(rtt)]
        t_cells, d_cells = [], []
        for b in betas:
            r = by_beta.get(round(float(b), 6))
            if r is None:
                t_cells.append("-")
                d_cells.append("-")
            else:
                t_cells.append(f"{r.throughput_mbps:.2f}")
                d_cells.append(f"{r.queueing_delay_p50_ms:.1f}/{r.queueing_delay_p90_ms:.1f}")
        t_rows.append(head + t_cells)
        d_rows.append(head + d_cells)
    return "\n\n".join([render_table(t_headers, t_rows, left=2), render_table(d_headers, d_rows, left=2)])


# ---------------------------------------------------------------------------------------------
# Plots


def plot_abe(table: pd.DataFrame, out_dir: str | os.PathLike[str], *, dpi: int = 150) -> list[Path]:
    """Draw ``abe-throughput.png/.svg`` and ``abe-delay.png/.svg`` into ``out_dir``.

    Both are 2×2 grids, rows NewReno / Cubic, columns CoDel / PIE, x = β_ecn, one line per RTT:
    throughput (Mbit/s, with the 10 Mbit/s capacity dotted), and queueing delay at the bottleneck
    (median solid, 90th percentile dashed).
    """
    out = Path(out_dir)
    written = []
    for kind in ("throughput", "delay"):
        fig = _abe_figure(table, kind)
        for ext in ("png", "svg"):
            written.append(_save(fig, out / f"abe-{kind}.{ext}", dpi))
    return written


def _save(fig: Any, path: Path, dpi: int) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from accelbrake.plots import format_options

    FigureCanvasAgg(fig)
    fmt = path.suffix.lstrip(".")
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight", **format_options(fmt))
    return path


def _abe_figure(table: pd.DataFrame, kind: str) -> Any:
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    schemes = [s for s in SCHEMES if s in set(table["scheme"])] or list(SCHEMES)
    aqms = [a for a in AQMS if a in set(table["aqm"])] or list(AQMS)
    rtts = sorted(table["rtt_ms"].unique())
    fig = Figure(figsize=(5.2 * len(aqms), 3.6 * len(schemes)), layout="constrained")
    # Throughput shares one scale; PIE's delays are several times CoDel's, so each panel has its own.
    axes = fig.subplots(len(schemes), len(aqms), sharex=True, sharey=kind == "throughput", squeeze=False)
    colors = {rtt: f"C{i}" for i, rtt in enumerate(rtts)}
    for i, scheme in enumerate(schemes):
        for j, aqm in enumerate(aqms):
            ax = axes[i][j]
            sub = table[(table["scheme"] == scheme) & (table["aqm"] == aqm)]
            for rtt in rtts:
                d = sub[sub["rtt_ms"] == rtt].sort_values("beta_ecn")
                if d.empty:
                    continue
                x = d["beta_ecn"].to_numpy()
                if kind == "throughput":
                    ax.plot(
                        x, d["throughput_mbps"], marker="o", ms=3.5, color=colors[rtt], label=f"RTT {rtt} ms"
                    )
                else:
                    ax.plot(x, d["queueing_delay_p50_ms"], marker="o", ms=3.5, color=colors[rtt])
                    ax.plot(x, d["queueing_delay_p90_ms"], marker="^", ms=3.5, ls="--", color=colors[rtt])
            if kind == "throughput":
                ax.axhline(BOTTLENECK_MBPS, color="0.4", ls=":", lw=1.0)
                ax.set_ylim(0, BOTTLENECK_MBPS * 1.05)
            else:
                ax.set_ylim(bottom=0)
            ax.set_title(f"{SCHEMES[scheme]}-ABE, {AQM_LABELS[aqm]}", loc="left", fontsize="medium")
            ax.grid(True, alpha=0.3)
            if i == len(schemes) - 1:
                ax.set_xlabel("beta_ecn")
            if j == 0:
                ax.set_ylabel("throughput (Mbit/s)" if kind == "throughput" else "queueing delay (ms)")
    if kind == "throughput":
        axes[0][0].legend(loc="lower right", fontsize="small")
        fig.suptitle(
            f"ABE: throughput of one flow over a {BOTTLENECK_MBPS:g} Mbit/s bottleneck", fontsize="medium"
        )
    else:
        handles = [Line2D([], [], color=colors[r], label=f"RTT {r} ms") for r in rtts] + [
            Line2D([], [], color="0.3", marker="o", label="median"),
            Line2D([], [], color="0.3", marker="^", ls="--", label="90th percentile"),
        ]
        axes[0][0].legend(handles=handles, loc="upper left", fontsize="small")
        fig.suptitle("ABE: queueing delay at the bottleneck (data packets)", fontsize="medium")
    return fig


# ---------------------------------------------------------------------------------------------
# Outputs


def write_outputs(
    table: pd.DataFrame,
    comparison: Sequence[dict[str, Any]],
    out_dir: str | os.PathLike[str],
    *,
    settings: dict[str, Any],
    scenarios: dict[str, dict[str, Any]],
) -> list[Path]:
    """Write ``abe.csv``, ``abe.parquet``, ``metadata.json`` and the four plots, each atomically."""
    import numpy as np
    import pandas as pd

    from accelbrake import __version__
    from accelbrake.results import git_commit

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with atomic_path(out / "abe.csv") as tmp:
        table.to_csv(tmp, index=False)
    written.append(out / "abe.csv")
    with atomic_path(out / "abe.parquet") as tmp:
        table.to_parquet(tmp, index=False)
    written.append(out / "abe.parquet")
    meta = {
        "experiment": "abe-sweep",
        "paper": "Khademi et al., Alternative Backoff: Achieving Low Latency and High Throughput with ECN "
        "and AQM (IFIP Networking 2017), figures 4-7",
        "accelbrake_version": __version__,
        "git_commit": git_commit(),
        "argv": list(sys.argv),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "settings": settings,
        "columns": {
            "throughput_mbps": "the flow's throughput at the bottleneck, Mbit/s, over the whole run",
            "goodput_mbps": "new data delivered to the receiver, Mbit/s",
            "utilization": "bytes that left the bottleneck link / its capacity",
            "queueing_delay_p50_ms": "median queueing delay of data packets at the bottleneck (summary)",
            "queueing_delay_p90_ms": "90th percentile of the same, from hop_packets (index floor(0.9 N))",
            "queueing_delay_mean_ms": "mean of the same",
            "ce_marks": "packets the AQM marked CE",
            "drops": "packets the AQM dropped (early or at the limit)",
        },
        "paper_comparison": list(comparison),
        "scenarios": scenarios,
    }
    written.append(atomic_write_json(out / "metadata.json", meta))
    written.extend(plot_abe(table, out))
    return written


def main(
    out_dir: str | os.PathLike[str] = "results/abe",
    *,
    quick: bool = False,
    duration_s: float | None = None,
    betas: Sequence[float] | None = None,
    jobs: int | None = None,
    seed: int = 0,
    progress: bool = True,
    echo: Callable[[str], Any] = print,
    executor: Executor | None = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Run the sweep, print the tables and the paper comparison, write the outputs; return the
    table and the comparison (``accelbrake abe-sweep``). The runs are kept in ``out_dir/runs/``,
    so a rerun with the same settings skips the finished ones."""
    dur = float(duration_s) if duration_s is not None else (QUICK_DURATION_S if quick else DURATION_S)
    beta_list = tuple(betas) if betas is not None else (QUICK_BETAS if quick else BETAS)
    t0 = time.monotonic()
    table, scenarios = run_sweep(
        duration_s=dur,
        betas=beta_list,
        seed=seed,
        jobs=jobs,
        progress=progress,
        out_dir=out_dir,
        executor=executor,
        log=lambda m: print(m, file=sys.stderr),
    )
    wall = time.monotonic() - t0
    comparison = paper_comparison(table)
    settings = {
        "bottleneck_mbps": BOTTLENECK_MBPS,
        "ack_link_mbps": BOTTLENECK_MBPS,
        "queue_limit_packets": LIMIT_PACKETS,
        "rtts_ms": list(RTTS_MS),
        "betas": list(beta_list),
        "duration_s": dur,
        "seed": seed,
        "quick": quick,
        "schemes": list(SCHEMES),
        "aqms": dict(AQMS),
        "runs": len(table),
        "wall_s": round(wall, 2),
    }
    echo(
        f"{len(table)} runs: one flow, {BOTTLENECK_MBPS:g} Mbit/s bottleneck, {dur:g} s each, "
        f"limit {LIMIT_PACKETS} packets, ECN marking; CoDel target 5 ms interval 100 ms; "
        f"PIE qdelay_ref 20 ms t_update 30 ms alpha 0.125 beta 1.25 max_burst 100 ms ({wall:.1f} s wall)"
    )
    echo("")
    echo(format_table(table))
    echo("")
    echo(format_comparison(comparison))
    echo("queueing delay = time from entering the bottleneck queue to leaving its link, data packets only")
    write_outputs(table, comparison, out_dir, settings=settings, scenarios=scenarios)
    return table, comparison
