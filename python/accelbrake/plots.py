"""Pictures of runs, drawn with matplotlib's object API on the Agg canvas (no pyplot state, no GUI).

* :func:`plot_run`: the ABC paper's Fig. 1 layout — link capacity (shaded) against each flow's
  throughput, then the per-packet delay of every delivered packet; optionally the windows.
* :func:`mahimahi_figure` (``plot_run(..., view="mahimahi")``): Mahimahi's own view — capacity,
  ingress and egress of the bottleneck link, then the queueing delay on a linear axis.
* :func:`plot_compare`: Pantheon-style utilisation vs 95th-percentile per-packet delay, one point
  per (trace, scheme), delay axis inverted and logarithmic ("better" is up and to the right).

Files are PNG, SVG or PDF by extension and written atomically.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from accelbrake._io import atomic_path

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["mahimahi_figure", "plot_compare", "plot_run", "run_figure", "save_figure"]


class RunResult(Protocol):
    """What a run's pictures read from it (:class:`accelbrake.results.Result` has it; declared here
    so that drawing does not depend on the results module, which draws through this one)."""

    summary: dict[str, Any]
    scenario: dict[str, Any]

    @property
    def flows_ts(self) -> pd.DataFrame: ...
    @property
    def hops_ts(self) -> pd.DataFrame: ...
    @property
    def packets(self) -> pd.DataFrame: ...
    @property
    def bottleneck_hop(self) -> int: ...
    @property
    def scheme(self) -> str: ...
    @property
    def link_name(self) -> str: ...


_FORMATS = ("png", "svg", "pdf")
#: Scatter points drawn at most per flow (a deterministic subsample beyond).
_MAX_POINTS = 200_000


def _format_of(path: Path) -> str:
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in _FORMATS:
        raise ValueError(f"plot file {path}: unknown format '{path.suffix}'; use .png, .svg or .pdf")
    return fmt


def _save(fig: Figure, path: str | os.PathLike[str], dpi: int) -> Path:
    dest = Path(path)
    fmt = _format_of(dest)
    FigureCanvasAgg(fig)
    with atomic_path(dest) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi, bbox_inches="tight", **format_options(fmt))
    return dest


#: zlib level of the PNGs we write: 3 instead of Pillow's 6 takes ~30 % less time to encode and
#: gives files of the same size (±2 %, measured on a report's plots); `reproduce all` writes ~350.
PNG_COMPRESS_LEVEL = 3


def format_options(fmt: str) -> dict[str, Any]:
    """``savefig`` options of a format: the PNG compression level (:data:`PNG_COMPRESS_LEVEL`)."""
    return {"pil_kwargs": {"compress_level": PNG_COMPRESS_LEVEL}} if fmt == "png" else {}


def _to_end(t: Any, y: Any, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Samples of a step function (value over ``[t_i, t_i+1)``) extended to ``end`` for drawing."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    if len(t) and math.isfinite(end) and end > t[-1]:
        return np.append(t, end), np.append(y, y[-1])
    return t, y


def _bottleneck(result: RunResult) -> tuple[float, pd.DataFrame, dict[str, Any]]:
    """The run's end (s), the bottleneck hop's time series and its summary row. A sample taken
    exactly at the end of the run covers an empty bin; it is left out."""
    s = result.summary
    b = result.bottleneck_hop
    end = float(s.get("duration_s", 0.0)) or math.inf
    hts = result.hops_ts
    hts = hts[(hts["hop"] == b) & (hts["t_s"] < end - 1e-9)]
    hop = s["hops"][b] if b < len(s.get("hops", [])) else {}
    return end, hts, hop


def _flow_end(result: RunResult, flow: dict[str, Any], end: float) -> float:
    """When a flow's lines end: its ``stop_ms``, or when its finite transfer completed, else the
    end of the run."""
    from accelbrake.scenarios import expanded_flows

    flows = expanded_flows(result.scenario)
    i = int(flow.get("id", 0))
    sc = flows[i] if i < len(flows) else {}
    stop = end
    if sc.get("stop_ms") is not None:
        stop = min(stop, float(sc["stop_ms"]) / 1000.0)
    done = flow.get("completion_s")
    if done is not None and math.isfinite(float(done)):
        stop = min(stop, float(done))
    return stop


def _legend(ax: Any) -> None:
    """The legend beside the axes, right of the data (never over it)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small")


def _stat(d: dict[str, Any] | None, key: str) -> float:
    v = (d or {}).get(key)
    return float("nan") if v is None else float(v)


def plot_run(
    result: RunResult,
    path: str | os.PathLike[str],
    *,
    cwnd: bool = False,
    title: str | None = None,
    dpi: int = 150,
    view: str = "paper",
) -> Path:
    """Draw one run like the ABC paper's Fig. 1 and write it to ``path`` (``.png``/``.svg``/``.pdf``).

    Top: the bottleneck link's capacity (shaded) and each flow's throughput leaving that link
    (``egress_mbps``, so measured at the same point as the capacity), Mbit/s, per ``sample_ms``
    bin. Bottom: per-packet delay (propagation RTT + queueing delay, ms) of every
    delivered packet against its arrival time, with each flow's 95th percentile; without packet
    records (the default), each flow's per-bin 95th percentile and mean of the same delay. With
    ``cwnd``, a third panel shows the congestion windows (and ABC's ``w_abc``/``w_cubic`` when
    the scheme has them), in segments.
    Returns the path written.
    """
    _format_of(Path(path))
    return _save(run_figure(result, cwnd=cwnd, title=title, view=view), path, dpi)


def save_figure(fig: Figure, path: str | os.PathLike[str], dpi: int = 150) -> Path:
    """Write a figure to ``path`` (``.png``/``.svg``/``.pdf`` by extension), atomically."""
    return _save(fig, path, dpi)


def run_figure(
    result: RunResult, *, cwnd: bool = False, title: str | None = None, view: str = "paper"
) -> Figure:
    """The figure :func:`plot_run` writes (see there), not saved: for notebooks (``Result.plot()``).
    ``view="mahimahi"`` gives :func:`mahimahi_figure` instead."""
    if view == "mahimahi":
        return mahimahi_figure(result, title=title)
    if view != "paper":
        raise ValueError(f"view: expected 'paper' or 'mahimahi', got {view!r}")
    s = result.summary
    flows = s.get("flows", [])
    many = len(flows) > 8
    colors = [f"C{i % 10}" for i in range(len(flows))]

    nrows = 3 if cwnd else 2
    fig = Figure(figsize=(10, 3.2 * nrows), layout="constrained")
    axes = fig.subplots(nrows, 1, sharex=True, squeeze=False)[:, 0]

    # Capacity and throughput.
    ax = axes[0]
    end, hts, hop = _bottleneck(result)
    if len(hts):
        ax.fill_between(
            *_to_end(hts["t_s"], hts["capacity_mbps"], end),
            step="post",
            color="0.75",
            alpha=0.8,
            linewidth=0,
            label=f"link capacity (mean {_stat(hop, 'capacity_mbps'):.2f} Mbit/s)",
        )
    fts = result.flows_ts
    fts = fts[fts["t_s"] < end - 1e-9]
    # Each flow's bytes leaving the bottleneck link, per bin: measured where the capacity is, so
    # the flows stay within the band (the receiver's rate, a propagation delay later, would not).
    col = "egress_mbps" if "egress_mbps" in fts.columns else "throughput_mbps"
    for i, f in enumerate(flows):
        stop = _flow_end(result, f, end)
        d = fts[(fts["flow"] == f["id"]) & (fts["t_s"] < stop - 1e-9)]
        label = None if many else f"flow {f['id']} {f['scheme']} ({_stat(f, 'throughput_mbps'):.2f} Mbit/s)"
        ax.step(
            *_to_end(d["t_s"], d[col], stop),
            where="post",
            color=colors[i],
            linewidth=1.0,
            label=label,
        )
    # Runs that mix schemes: each scheme's flows together, per bin (thick).
    scheme_of = {int(f["id"]): str(f.get("scheme")) for f in flows}
    if len(set(scheme_of.values())) > 1 and len(fts):
        # Bins where no flow of a scheme has a row (none active) count as 0.
        by = (
            fts.assign(scheme=fts["flow"].map(scheme_of))
            .groupby(["scheme", "t_s"])[col]
            .sum()
            .unstack("scheme", fill_value=0.0)
        )
        for j, scheme in enumerate(dict.fromkeys(scheme_of.values())):
            if scheme not in by.columns:
                continue
            d = by[scheme]
            ax.step(
                *_to_end(d.index.to_series(), d, end),
                where="post",
                color=f"C{j % 10}",
                linewidth=2.4,
                alpha=0.9,
                label=f"all {scheme} flows",
            )
    ax.set_ylabel("Mbit/s")
    ax.set_ylim(bottom=0)
    ax.set_title("throughput at the bottleneck link vs its capacity", loc="left", fontsize="medium")
    _legend(ax)
    ax.grid(True, alpha=0.3)

    # Per-packet delay.
    ax = axes[1]
    pk = result.packets
    if len(pk):
        lo, hi = math.inf, 0.0
        for i, f in enumerate(flows):
            d = pk[pk["flow"] == f["id"]]
            if not len(d):
                continue
            step = max(1, len(d) // _MAX_POINTS)
            x = d["recv_s"].to_numpy()[::step]
            y = d["per_packet_delay_ms"].to_numpy()[::step]
            lo, hi = min(lo, float(np.min(y))), max(hi, float(np.max(y)))
            ax.scatter(x, y, s=1.5, color=colors[i], alpha=0.5, linewidths=0, rasterized=True)
            p95 = _stat(f.get("per_packet_delay_ms"), "p95")
            label = None if many else f"flow {f['id']} p95 {p95:.0f} ms"
            ax.axhline(p95, color=colors[i], linestyle="--", linewidth=1.0, label=label)
        rtts = sorted({_stat(f, "prop_rtt_ms") for f in flows})
        if rtts and not many:
            ax.axhline(
                rtts[0], color="0.3", linestyle=":", linewidth=1.0, label=f"propagation RTT {rtts[0]:g} ms"
            )
        if hi > 0 and lo > 0 and hi / lo > 20:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel("per-packet delay (ms)")
        ax.set_title(
            "per-packet delay = propagation RTT + queueing delay, by arrival time",
            loc="left",
            fontsize="medium",
        )
    elif "delay_p95_ms" in fts.columns and fts["delay_p95_ms"].notna().any():
        # No per-packet records (the default): the core's per-bin figures of the same delay.
        for i, f in enumerate(flows):
            stop = _flow_end(result, f, end)
            d = fts[(fts["flow"] == f["id"]) & (fts["t_s"] < stop - 1e-9)]
            tag = "" if many else f"flow {f['id']} "
            ax.step(
                d["t_s"],
                d["delay_p95_ms"],
                where="post",
                color=colors[i],
                linewidth=1.0,
                label=None if many else f"{tag}p95 per bin",
            )
            ax.step(
                d["t_s"],
                d["delay_mean_ms"],
                where="post",
                color=colors[i],
                linewidth=0.8,
                linestyle=":",
                label=None if many else f"{tag}mean per bin",
            )
        ax.set_ylim(bottom=0)
        ax.set_ylabel("per-packet delay (ms)")
        ax.set_title(
            "per-packet delay = propagation RTT + queueing delay, per bin of arrivals",
            loc="left",
            fontsize="medium",
        )
    else:
        if len(hts):
            ax.step(hts["t_s"], hts["queue_packets"], where="post", color="C3", linewidth=1.0, label="queue")
        ax.set_ylabel("bottleneck queue (packets)")
        ax.set_ylim(bottom=0)
        ax.set_title("bottleneck queue length (no per-packet records)", loc="left", fontsize="medium")
    _legend(ax)
    ax.grid(True, alpha=0.3)

    # Windows.
    if cwnd:
        ax = axes[2]
        for i, f in enumerate(flows):
            stop = _flow_end(result, f, end)
            d = fts[(fts["flow"] == f["id"]) & (fts["t_s"] < stop - 1e-9)]
            tag = "" if many else f"flow {f['id']} "
            ax.step(
                d["t_s"],
                d["cwnd"],
                where="post",
                color=colors[i],
                linewidth=1.0,
                label=None if many else f"{tag}cwnd",
            )
            for col, style in (("w_abc", "--"), ("w_cubic", ":")):
                if col in d and d[col].notna().any():
                    ax.step(
                        d["t_s"], d[col], where="post", color=colors[i], linestyle=style, linewidth=0.9,
                        label=None if many else f"{tag}{col}",
                    )  # fmt: skip
        ax.set_ylabel("window (segments)")
        ax.set_ylim(bottom=0)
        _legend(ax)
        ax.grid(True, alpha=0.3)

    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(0, float(s.get("duration_s", 0)) or None)
    if title is None:
        ppd = _stat(s.get("per_packet_delay_ms"), "p95")
        title = (
            f"{result.scheme} on {result.link_name}: utilisation {100 * _stat(s, 'utilization'):.1f}%, "
            f"p95 per-packet delay {ppd:.0f} ms"
        )
    fig.suptitle(title)
    return fig


def mahimahi_figure(result: RunResult, *, title: str | None = None) -> Figure:
    """The run as Mahimahi's own graphs show it (``mm-throughput-graph`` over ``mm-delay-graph``):
    top, the bottleneck link's capacity (shaded), the traffic arriving at it (ingress, all flows,
    dropped packets included) and leaving it (egress), Mbit/s per ``sample_ms`` bin; bottom, the
    queueing delay on a linear axis (every delivered packet with per-packet records, else each
    flow's per-bin mean and 95th percentile)."""
    s = result.summary
    end, hts, hop = _bottleneck(result)
    fig = Figure(figsize=(10, 6.4), layout="constrained")
    ax, axd = fig.subplots(2, 1, sharex=True)
    if len(hts):
        ax.fill_between(
            *_to_end(hts["t_s"], hts["capacity_mbps"], end),
            step="post",
            color="0.8",
            linewidth=0,
            label=f"capacity (mean {_stat(hop, 'capacity_mbps'):.2f} Mbit/s)",
        )
        if "ingress_mbps" in hts.columns:
            ax.step(*_to_end(hts["t_s"], hts["ingress_mbps"], end), where="post", color="C0", linewidth=1.0,
                    label="ingress (arriving at the bottleneck)")  # fmt: skip
        ax.step(*_to_end(hts["t_s"], hts["throughput_mbps"], end), where="post", color="C3", linewidth=1.0,
                label=f"egress (leaving it; mean {_stat(hop, 'throughput_mbps'):.2f} Mbit/s)")  # fmt: skip
    ax.set_ylabel("Mbit/s")
    ax.set_ylim(bottom=0)
    ax.set_title("throughput (as mm-throughput-graph)", loc="left", fontsize="medium")
    _legend(ax)
    ax.grid(True, alpha=0.3)

    flows = s.get("flows", [])
    colors = [f"C{i % 10}" for i in range(len(flows))]
    many = len(flows) > 8
    pk = result.packets
    if len(pk):
        for i, f in enumerate(flows):
            d = pk[pk["flow"] == f["id"]]
            step = max(1, len(d) // _MAX_POINTS)
            lab = None if many else f"flow {f['id']} {f['scheme']}"
            x, y = d["recv_s"].to_numpy()[::step], d["queueing_delay_ms"].to_numpy()[::step]
            axd.scatter(x, y, s=1.5, color=colors[i], alpha=0.5, linewidths=0, rasterized=True, label=lab)
        axd.set_title("queueing delay of every delivered packet (as mm-delay-graph)", loc="left",
                      fontsize="medium")  # fmt: skip
    else:
        fts = result.flows_ts
        for i, f in enumerate(flows):
            stop = _flow_end(result, f, end)
            d = fts[(fts["flow"] == f["id"]) & (fts["t_s"] < stop - 1e-9)]
            rtt = _stat(f, "prop_rtt_ms")
            rtt = rtt if math.isfinite(rtt) else 0.0
            tag = "" if many else f"flow {f['id']} "
            axd.step(d["t_s"], d["delay_p95_ms"] - rtt, where="post", color=colors[i], linewidth=1.0,
                     label=None if many else f"{tag}p95 per bin")  # fmt: skip
            axd.step(d["t_s"], d["delay_mean_ms"] - rtt, where="post", color=colors[i], linewidth=0.8,
                     linestyle=":", label=None if many else f"{tag}mean per bin")  # fmt: skip
        axd.set_title("queueing delay per bin of arrivals (per-packet delay − propagation RTT)", loc="left",
                      fontsize="medium")  # fmt: skip
    axd.set_ylabel("queueing delay (ms)")
    axd.set_ylim(bottom=0)
    axd.set_xlabel("time (s)")
    axd.set_xlim(0, float(s.get("duration_s", 0)) or None)
    axd.grid(True, alpha=0.3)
    _legend(axd)
    if title is None:
        qd = _stat(s.get("queueing_delay_ms"), "p95")
        title = (
            f"{result.scheme} on {result.link_name}, Mahimahi's view: utilisation "
            f"{100 * _stat(s, 'utilization'):.1f}%, p95 queueing delay {qd:.0f} ms"
        )
    fig.suptitle(title)
    return fig


def plot_compare(table: pd.DataFrame, path: str | os.PathLike[str], *, dpi: int = 150) -> Path:
    """Utilisation (%) vs 95th-percentile per-packet delay (ms) of a comparison table.

    ``table`` needs the columns ``scheme``, ``trace``, ``utilization_pct`` and
    ``per_packet_delay_p95_ms`` (as printed by ``accelbrake compare``). One marker per trace, one
    colour per scheme; the large markers are the per-scheme means. The delay axis is logarithmic
    and inverted, so better is up and to the right.
    """
    _format_of(Path(path))
    fig = Figure(figsize=(7, 5), layout="constrained")
    ax = fig.subplots()
    markers = "osD^vP*Xh<>"
    traces = list(dict.fromkeys(table["trace"]))
    for i, (scheme, d) in enumerate(table.groupby("scheme", sort=False)):
        color = f"C{i % 10}"
        for j, tr in enumerate(traces):
            e = d[d["trace"] == tr]
            ax.scatter(
                e["per_packet_delay_p95_ms"], e["utilization_pct"], color=color,
                marker=markers[j % len(markers)], s=30, alpha=0.7,
            )  # fmt: skip
        x, y = d["per_packet_delay_p95_ms"].mean(), d["utilization_pct"].mean()
        ax.scatter([x], [y], color=color, marker="o", s=120, edgecolors="black", label=str(scheme), zorder=3)
        ax.annotate(str(scheme), (x, y), textcoords="offset points", xytext=(6, 6))
    if len(traces) > 1:
        for j, tr in enumerate(traces):
            ax.scatter([], [], color="0.4", marker=markers[j % len(markers)], label=Path(str(tr)).name)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.invert_xaxis()
    ax.set_xlabel("95th-percentile per-packet delay (ms, log scale)")
    ax.set_ylabel("utilisation (%)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title("utilisation vs delay (better: up and right)")
    return _save(fig, path, dpi)
