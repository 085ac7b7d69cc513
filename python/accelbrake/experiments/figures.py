"""Plots of a sweep (matplotlib object API on Agg; PNG and SVG, written atomically).

Every plot gives a scheme the same colour and marker (:func:`scheme_style`): presets have fixed
ones, variants take the next free ones in matrix order.

* :func:`plot_tradeoff`: utilisation vs 95th-percentile per-packet delay, delay axis logarithmic
  and inverted (better is up and right), the Pareto frontier drawn (ABC paper Fig. 7 style); one
  panel per setting of the other axes, plus the mean over traces.
* :func:`plot_bars`: per-trace utilisation and p95 per-packet delay bars (ABC Fig. 8 style).
* :func:`plot_cdfs`: CDFs of the per-packet delay, one panel per trace.
* :func:`plot_fairness`: Jain's index over time among the active flows of multi-flow runs.
* :func:`plot_timeseries`: one run: capacity shaded under throughput, per-packet delay, queue, cwnd.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# matplotlib is imported where a plot is drawn, not with this module: the tables and comparisons
# use this module's pandas helpers in processes that never draw (a reproduction's main process
# hands its plots to worker processes), and the import costs ~0.4 s.

from accelbrake import catalog
from accelbrake._io import atomic_path
from accelbrake.scenarios import expanded_flows
from accelbrake.schemes import SCHEMES as _PRESETS
from accelbrake.schemes import display_name as _display_name

__all__ = [
    "AXES",
    "DISPLAY_NAMES",
    "aggregate",
    "pareto_frontier",
    "plot_bars",
    "plot_cdfs",
    "plot_fairness",
    "plot_timeseries",
    "plot_tradeoff",
    "run_level",
    "scheme_style",
]

#: Matrix axes besides the scheme and the seed (columns of ``results``).
AXES = ("trace", "delay_ms", "buffer_packets", "flows", "start_interval_s", "flow_rtts_ms")

#: Display names of the presets (as the papers write them), from the core's registry.
DISPLAY_NAMES = {name: _display_name(name) for name in _PRESETS}

#: Plot styles of pairings that the papers draw apart from their scheme (Cubic+CoDel beside Cubic).
#: A scheme's own colour and marker come from its registry row (``catalog.scheme(name).color``).
_PAIR_STYLES: dict[str, tuple[str, str]] = {
    "cubic+codel": ("#2ca02c", "s"),
    "cubic+pie": ("#98df8a", "s"),
    "newreno+codel": ("#006d2c", "D"),
    "newreno+pie": ("#74c476", "D"),
    "newreno-abe+pie": ("#e7ba52", "^"),
    "cubic-abe+pie": ("#e7cb94", "^"),
}


def _fixed_style(scheme: str) -> tuple[str, str] | None:
    if scheme in _PAIR_STYLES:
        return _PAIR_STYLES[scheme]
    if "+" in scheme:
        return None
    try:
        s = catalog.scheme(scheme)
    except KeyError:
        return None
    return (s.color, s.marker)


_SPARE_COLOURS = [
    "#e6550d",
    "#3182bd",
    "#31a354",
    "#756bb1",
    "#636363",
    "#fd8d3c",
    "#6baed6",
    "#a1d99b",
    "#9e9ac8",
    "#969696",
    "#843c39",
    "#7b4173",
]
_SPARE_MARKERS = "o*sD^vPXh<>p"


def scheme_style(schemes: Sequence[str]) -> dict[str, tuple[str, str]]:
    """``{scheme: (colour, marker)}``: fixed for presets, then distinct ones in order for the rest."""
    fixed = {s: st for s in schemes if (st := _fixed_style(s)) is not None}
    used = {st[0] for st in fixed.values()}
    spare = [c for c in _SPARE_COLOURS if c not in used] or _SPARE_COLOURS
    out: dict[str, tuple[str, str]] = {}
    i = 0
    for s in schemes:
        if s in fixed:
            out[s] = fixed[s]
        else:
            out[s] = (spare[i % len(spare)], _SPARE_MARKERS[i % len(_SPARE_MARKERS)])
            i += 1
    return out


def display_name(scheme: str, labels: dict[str, str] | None = None) -> str:
    """The label of a matrix scheme (``labels`` from the experiment) or a preset's display name."""
    if labels and labels.get(scheme) and labels[scheme] != scheme:
        return labels[scheme]
    return DISPLAY_NAMES.get(scheme) or _display_name(scheme)


# ---------------------------------------------------------------------------------------------
# Tables behind the plots


def run_level(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run and matrix scheme (the run-level columns of ``results``, from its first flow).

    Two matrix schemes whose scenarios coincide share one simulation (one ``run_id``) but keep a
    row each, so neither disappears from the aggregates."""
    keys = ["run_id", "scheme"] if "scheme" in results.columns else ["run_id"]
    if not results.index.is_unique:
        results = results.reset_index(drop=True)
    # The row of each run's lowest flow number (its first such row), in the order the runs first
    # appear: as a stable sort by (keys, flow) then each group's head, without sorting every row
    # (seconds for abc-fig13's 600 000 rows, and the report calls this a dozen times).
    first = results.groupby(keys, sort=False)["flow"].idxmin()
    return results.loc[first.to_numpy()].reset_index(drop=True)


#: Metrics aggregated over seeds: column of :func:`run_level` → short name.
METRICS = {
    "link_utilization": "utilization",
    "link_throughput_mbps": "throughput_mbps",
    "run_per_packet_delay_p95_ms": "p95_delay_ms",
    "run_per_packet_delay_mean_ms": "mean_delay_ms",
    "run_queueing_delay_p95_ms": "p95_queueing_ms",
    "jain_index": "jain",
}


def aggregate(results: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation and count over seeds of each run-level metric, per scheme × point."""
    return aggregate_runs(run_level(results), METRICS)


def aggregate_runs(runs: pd.DataFrame, metrics: dict[str, str]) -> pd.DataFrame:
    """Mean, standard deviation and count over seeds of ``runs``' columns ``metrics`` (column →
    short name: ``<short>_mean``, ``_std``, ``_n``), per scheme × the axes ``runs`` has, and the
    number of seeds."""
    keys = ["scheme", *[a for a in AXES if a in runs.columns]]
    g = runs.groupby(keys, sort=False, dropna=False)
    parts = []
    for col, short in metrics.items():
        s = g[col].agg(["mean", "std", "count"])
        s.columns = [f"{short}_mean", f"{short}_std", f"{short}_n"]
        parts.append(s)
    out = pd.concat(parts, axis=1).reset_index()
    out["seeds"] = g["seed"].nunique().to_numpy()
    return out


def varying_axes(table: pd.DataFrame, axes: Sequence[str] = AXES) -> list[str]:
    """The axes that take more than one value."""
    return [a for a in axes if a in table and table[a].nunique(dropna=False) > 1]


def _panel_title(key: Any, cols: Sequence[str]) -> str:
    if not cols:
        return ""
    key = key if isinstance(key, tuple) else (key,)
    units = {
        "delay_ms": " ms one-way",
        "buffer_packets": " pkts",
        "flows": " flows",
        "start_interval_s": " s apart",
        "flow_rtts_ms": " ms RTTs",
    }
    parts = []
    for c, v in zip(cols, key, strict=True):
        parts.append(
            str(v) if c == "trace" else f"{v:g}{units[c]}" if isinstance(v, float | int) else f"{v}{units[c]}"
        )
    return ", ".join(parts)


def pareto_frontier(x: Sequence[float], y: Sequence[float]) -> list[int]:
    """Indices of the points no other point beats on both axes (lower x = delay, higher y), by x."""
    pts = sorted(
        (float(a), -float(b), i)
        for i, (a, b) in enumerate(zip(x, y, strict=True))
        if math.isfinite(a) and math.isfinite(b)
    )
    out: list[int] = []
    best = -math.inf
    for _x, nb, i in pts:
        if -nb > best:
            out.append(i)
            best = -nb
    return out


# ---------------------------------------------------------------------------------------------
# Saving


#: Also write an SVG beside each PNG (``--svg``); set for the duration of a report by
#: :func:`svg_output`. PNG only by default: SVGs of the time series are large and slow to write.
SVG = False


@contextlib.contextmanager
def svg_output(on: bool) -> Iterator[None]:
    """Within the block, :func:`save` writes an SVG beside each PNG when ``on``."""
    global SVG
    before, SVG = SVG, on
    try:
        yield
    finally:
        SVG = before


def save(fig: Figure, stem: Path, dpi: int = 110) -> list[Path]:
    """Write ``stem.png`` (and ``stem.svg`` inside :func:`svg_output(True) <svg_output>`); return the
    paths."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from accelbrake.plots import format_options

    FigureCanvasAgg(fig)
    out = []
    for fmt in ("png", "svg") if SVG else ("png",):
        dest = stem.with_suffix(f".{fmt}")
        with atomic_path(dest) as tmp:
            fig.savefig(
                tmp,
                format=fmt,
                dpi=dpi,
                metadata={"Date": None} if fmt == "svg" else None,
                **format_options(fmt),
            )
        out.append(dest)
    return out


def _log_x(ax: Any) -> None:
    """Logarithmic x axis labelled at 1, 2, 5 × 10^k in plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _log_delay_axis(ax: Any) -> None:
    _log_x(ax)
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)


#: Room around a grid of panels, inches: left of and below each panel for its tick labels and axis
#: label, above it for its title (and above the grid for the figure's title), right of the grid.
GRID_MARGINS = {"left": 0.75, "right": 0.2, "bottom": 0.62, "top": 0.62, "wspace": 0.8, "hspace": 0.88}


def _grid(n: int, width: float = 4.6, height: float = 3.6) -> tuple[Figure, list[Any]]:
    """A figure of ``n`` panels, at most 3 per row, each ``width`` × ``height`` inches with its
    margins; finish it with :func:`_grid_legend`.

    The layout is fixed (:data:`GRID_MARGINS`), not matplotlib's "constrained" one, which measured
    every tick label of every panel several times per drawing: that was ~40 % of these plots' time
    (the report's trade-off grid and delay CDFs, drawn after the last run, while the user waits)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(width * cols, height * rows))
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel().tolist()
    for ax in axes[n:]:
        ax.set_visible(False)
    _place_grid(fig, rows, cols)
    return fig, axes[:n]


def _place_grid(fig: Figure, rows: int, cols: int, right: float = 0.0, bottom: float = 0.0) -> None:
    """Place a grid's panels in its figure, ``right`` and ``bottom`` inches more left free."""
    m = GRID_MARGINS
    w, h = fig.get_size_inches()
    left_in, right_in = m["left"], m["right"] + right
    bottom_in, top_in = m["bottom"] + bottom, m["top"]
    aw = (w - left_in - right_in - (cols - 1) * m["wspace"]) / cols
    ah = (h - bottom_in - top_in - (rows - 1) * m["hspace"]) / rows
    fig.subplots_adjust(
        left=left_in / w,
        right=1 - right_in / w,
        bottom=bottom_in / h,
        top=1 - top_in / h,
        wspace=m["wspace"] / aw,
        hspace=m["hspace"] / ah,
    )


def _grid_legend(fig: Figure, handles: list[Any], names: list[str], *, below: bool, ncol: int = 1) -> None:
    """The figure's legend of a :func:`_grid`, right of the panels (``below``: under them, in at
    most ``ncol`` columns, fewer if they would be wider than the figure), the figure grown by the
    legend's size so that the panels keep theirs and nothing overlaps."""
    gs = fig.axes[0].get_subplotspec().get_gridspec()
    rows, cols = gs.get_geometry()
    w, h = fig.get_size_inches()
    pad = 0.1
    renderer = fig.canvas.get_renderer()
    if below:
        ncol = max(1, ncol)
        while True:
            leg = fig.legend(handles, names, loc="lower center", ncol=ncol, fontsize="small")
            box = leg.get_window_extent(renderer)
            if ncol == 1 or box.width / fig.dpi + pad <= w:
                break
            leg.remove()
            ncol -= 1
    else:
        leg = fig.legend(handles, names, loc="upper right", fontsize="small")
        box = leg.get_window_extent(renderer)
    if below:
        extra = box.height / fig.dpi + pad
        # One column still wider than the figure: the figure grows to the right (the panels
        # keep their size).
        wider = max(0.0, box.width / fig.dpi + pad - w)
        fig.set_size_inches(w + wider, h + extra)
        _place_grid(fig, rows, cols, right=wider, bottom=extra)
        leg.set_bbox_to_anchor((0.5, pad / 2 / (h + extra)), transform=fig.transFigure)
    else:
        extra = box.width / fig.dpi + pad
        fig.set_size_inches(w + extra, h)
        _place_grid(fig, rows, cols, right=extra)
        top = 1 - GRID_MARGINS["top"] / h
        leg.set_bbox_to_anchor((1 - pad / 2 / (w + extra), top), transform=fig.transFigure)


def _grid_title(fig: Figure, text: str) -> None:
    """The title of a :func:`_grid` figure, in the top margin whatever the figure's height, in a
    smaller font if it would be wider than the figure (one panel)."""
    w, h = fig.get_size_inches()
    title = fig.suptitle(text, y=1 - 0.08 / h, va="top")
    width = title.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
    if width > w - 0.2:
        title.set_fontsize(max(6.0, title.get_fontsize() * (w - 0.2) / width))


# ---------------------------------------------------------------------------------------------
# Plots


def plot_tradeoff(
    agg: pd.DataFrame, stem: Path, *, labels: dict[str, str] | None = None, reference: str | None = None
) -> list[Path]:
    """Utilisation vs p95 per-packet delay, per panel (other axes) plus the mean over traces.

    Points are seed means with ±1 standard deviation bars; the solid line is the Pareto frontier of
    every point in the panel, the dashed one that of the schemes other than ``reference``
    (default: the first scheme), so a reference outside it is visible at a glance.
    """
    schemes = list(dict.fromkeys(agg["scheme"]))
    style = scheme_style(schemes)
    reference = reference or schemes[0]
    cols = varying_axes(agg)
    groups = list(agg.groupby(cols, sort=False)) if cols else [((), agg)]
    panels: list[tuple[str, pd.DataFrame]] = [(_panel_title(k, cols), d) for k, d in groups]
    if "trace" in cols and len(panels) > 1:
        rest = [c for c in cols if c != "trace"]
        num = [f"{m}_mean" for m in ("utilization", "p95_delay_ms")]
        if rest:
            for k, d in agg.groupby(rest, sort=False):
                mean = d.groupby("scheme", sort=False)[num].mean().reset_index()
                panels.append((f"mean over traces, {_panel_title(k, rest)}", mean))
        else:
            mean = agg.groupby("scheme", sort=False)[num].mean().reset_index()
            panels.append(("mean over traces", mean))
    fig, axes = _grid(len(panels))
    for ax, (title, d) in zip(axes, panels, strict=True):
        x = d["p95_delay_ms_mean"].to_numpy(float)
        y = 100 * d["utilization_mean"].to_numpy(float)
        xerr = d["p95_delay_ms_std"].to_numpy(float) if "p95_delay_ms_std" in d else np.full(len(d), np.nan)
        yerr = (
            100 * d["utilization_std"].to_numpy(float) if "utilization_std" in d else np.full(len(d), np.nan)
        )
        # The ±1 sd bars of the whole panel as one collection: matplotlib's errorbar() per point
        # made this plot the slowest of the report (most of its time went to setting up the
        # artists of 9 × 6 small error bars).
        bars, bar_colours = [], []
        for s, row_x, row_y, ex, ey in zip(d["scheme"], x, y, xerr, yerr, strict=True):
            for seg in ([((row_x - ex, row_y), (row_x + ex, row_y))] if np.isfinite(ex) else []) + (
                [((row_x, row_y - ey), (row_x, row_y + ey))] if np.isfinite(ey) else []
            ):
                bars.append(seg)
                bar_colours.append(style[s][0])
        if bars:
            from matplotlib.collections import LineCollection

            ax.add_collection(LineCollection(bars, colors=bar_colours, linewidths=1.0, zorder=2.5))
        for s, row_x, row_y in zip(d["scheme"], x, y, strict=True):
            colour, marker = style[s]
            ax.plot(
                [row_x],
                [row_y],
                color=colour,
                marker=marker,
                markersize=11 if s == reference else 8,
                markeredgecolor="black",
                markeredgewidth=0.5,
                linestyle="none",
                label=display_name(s, labels),
                zorder=3,
            )
        front = pareto_frontier(x, y)
        if len(front) > 1:
            ax.plot(x[front], y[front], color="0.35", linewidth=1.0, zorder=2, label="Pareto frontier")
        others = [i for i, s in enumerate(d["scheme"]) if s != reference]
        if len(others) > 1 and len(others) < len(d):
            of = [others[i] for i in pareto_frontier(x[others], y[others])]
            if len(of) > 1:
                ax.plot(
                    x[of],
                    y[of],
                    color="0.35",
                    linestyle="--",
                    linewidth=0.9,
                    zorder=2,
                    label=f"frontier without {display_name(reference, labels)}",
                )
        _log_delay_axis(ax)
        ax.set_xlabel("p95 per-packet delay (ms, log, inverted)")
        ax.set_ylabel("utilisation (%)")
        ax.set_title(title or "all runs", fontsize="medium", y=TITLE_Y)
    handles, names = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    _grid_legend(fig, handles, names, below=False)
    _grid_title(fig, "utilisation vs 95th-percentile per-packet delay (better: up and right)")
    return save(fig, stem)


def plot_bars(agg: pd.DataFrame, stem: Path, *, labels: dict[str, str] | None = None) -> list[Path]:
    """Per-trace grouped bars of utilisation and p95 per-packet delay (seed mean ± std), Fig. 8 style.

    Other varying axes become separate bar groups (``trace, 25 ms one-way``)."""
    schemes = list(dict.fromkeys(agg["scheme"]))
    style = scheme_style(schemes)
    cols = varying_axes(agg) or ["trace"]
    groups = [(_panel_title(k, cols), d) for k, d in agg.groupby(cols, sort=False)]
    n, m = len(groups), len(schemes)
    width = 0.8 / max(m, 1)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(7.0, 0.9 + n * (0.35 * m + 0.5)), 6.5), layout="constrained")
    ax_u, ax_d = fig.subplots(2, 1, sharex=True)
    for j, s in enumerate(schemes):
        colour, _ = style[s]
        u, ue, dl, de = [], [], [], []
        for _title, d in groups:
            row = d[d["scheme"] == s]

            def get(c: str, row: pd.DataFrame = row) -> float:
                return float(row[c].iloc[0]) if len(row) else np.nan

            u.append(100 * get("utilization_mean"))
            ue.append(100 * get("utilization_std"))
            dl.append(get("p95_delay_ms_mean"))
            de.append(get("p95_delay_ms_std"))
        xs = np.arange(n) + (j - (m - 1) / 2) * width
        ue_arr = np.nan_to_num(np.array(ue))
        de_arr = np.nan_to_num(np.array(de))
        ax_u.bar(
            xs,
            u,
            width,
            yerr=ue_arr,
            color=colour,
            edgecolor="black",
            linewidth=0.4,
            capsize=2,
            label=display_name(s, labels),
        )
        ax_d.bar(xs, dl, width, yerr=de_arr, color=colour, edgecolor="black", linewidth=0.4, capsize=2)
    ax_u.set_ylabel("utilisation (%)")
    ax_u.set_ylim(0, 105)
    ax_d.set_ylabel("p95 per-packet delay (ms)")
    if (agg["p95_delay_ms_mean"].max() or 1) / max(agg["p95_delay_ms_mean"].min(), 1e-9) > 20:
        ax_d.set_yscale("log")
    ax_d.set_xticks(np.arange(n), [t for t, _ in groups], rotation=30, ha="right", fontsize="small")
    for ax in (ax_u, ax_d):
        ax.grid(True, axis="y", alpha=0.3)
    fig.legend(loc="outside lower center", ncol=min(m, 6), fontsize="small")
    fig.suptitle("per trace: utilisation and 95th-percentile per-packet delay (bars: ±1 sd over seeds)")
    return save(fig, stem)


def plot_cdfs(
    quantiles: dict[str, np.ndarray], runs: pd.DataFrame, stem: Path, *, labels: dict[str, str] | None = None
) -> list[Path]:
    """CDFs of the per-packet delay: one panel per setting of the other axes, one line per scheme.

    ``quantiles`` maps run_id to the run's quantile function (:data:`~accelbrake._worker.CDF_LEVELS`
    levels); over seeds the quantile functions are averaged."""
    schemes = list(dict.fromkeys(runs["scheme"]))
    style = scheme_style(schemes)
    cols = varying_axes(runs) or ["trace"]
    groups = list(runs.groupby(cols, sort=False))
    fig, axes = _grid(len(groups), 4.4, 3.3)
    for ax, (key, d) in zip(axes, groups, strict=True):
        for s in schemes:
            qs = [quantiles[r] for r in d.loc[d["scheme"] == s, "run_id"] if len(quantiles.get(r, ())) > 0]
            if not qs:
                continue
            q = np.mean(np.vstack(qs), axis=0)
            levels = np.linspace(0, 1, len(q))
            colour, _ = style[s]
            ax.plot(q, levels, color=colour, linewidth=1.3, label=display_name(s, labels))
        _log_x(ax)
        ax.set_ylim(0, 1)
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("per-packet delay (ms, log)")
        ax.set_ylabel("CDF")
        ax.set_title(_panel_title(key, cols), fontsize="medium", y=TITLE_Y)
    handles, names = axes[0].get_legend_handles_labels()
    _grid_legend(fig, handles, names, below=True, ncol=min(len(names), 6))
    _grid_title(fig, "per-packet delay (propagation RTT + queueing), all packets of all flows")
    return save(fig, stem)


def jain_over_time(ts: pd.DataFrame, scenario: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Jain's index of the active flows' throughputs in each time-series bin (NaN with < 2 active).

    A flow is active from its start to its stop (or the end of the run)."""
    end = float(scenario.get("duration_ms", 0.0)) / 1000.0
    # Flow ids as the core numbers them: an entry with ``count: n`` is n consecutive flows.
    flows = [f for f in scenario.get("flows", []) for _ in range(int(f.get("count", 1)))]
    starts = {i: float(f.get("start_ms", 0.0)) / 1000.0 for i, f in enumerate(flows)}
    stops = {
        i: (float(f["stop_ms"]) / 1000.0 if f.get("stop_ms") is not None else end)
        for i, f in enumerate(flows)
    }
    piv = ts.pivot_table(index="t_s", columns="flow", values="throughput_mbps", aggfunc="first").sort_index()
    t = piv.index.to_numpy(float)
    # A flow has no rows before its start bin or after it retired: its rate there is 0.
    x = np.nan_to_num(piv.to_numpy(float), nan=0.0)
    active = np.zeros_like(x, dtype=bool)
    for j, f in enumerate(piv.columns):
        active[:, j] = (t >= starts.get(int(f), 0.0)) & (t < stops.get(int(f), end))
    xs = np.where(active, x, 0.0)
    n = active.sum(axis=1)
    s1 = xs.sum(axis=1)
    s2 = (xs**2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        jain = np.where((n >= 2) & (s2 > 0), s1**2 / (n * s2), np.nan)
    return t, jain


def plot_fairness(
    series: list[tuple[str, str, np.ndarray, np.ndarray]],
    stem: Path,
    *,
    schemes: Sequence[str],
    labels: dict[str, str] | None = None,
) -> list[Path]:
    """Jain's index over time: ``series`` of ``(panel title, scheme, t, jain)``, one panel per title."""
    style = scheme_style(list(schemes))
    titles = list(dict.fromkeys(s[0] for s in series))
    fig, axes = _grid(len(titles), 4.6, 3.0)
    for ax, title in zip(axes, titles, strict=True):
        for tt, s, t, j in series:
            if tt != title:
                continue
            colour, _ = style[s]
            ax.plot(t, j, color=colour, linewidth=1.1, label=display_name(s, labels), drawstyle="steps-post")
        ax.set_ylim(0, 1.05)
        ax.axhline(0.95, color="0.5", linestyle=":", linewidth=0.8)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("Jain index (active flows)")
        ax.set_title(title, fontsize="medium", y=TITLE_Y)
        ax.grid(True, alpha=0.3)
    handles, names = [], []
    for ax in axes:
        for h, n in zip(*ax.get_legend_handles_labels(), strict=True):
            if n not in names:
                handles.append(h)
                names.append(n)
    _grid_legend(fig, handles, names, below=True, ncol=min(max(len(names), 1), 6))
    _grid_title(fig, "Jain index of the active flows per bin (dotted: 0.95)")
    return save(fig, stem)


#: Every axes title sits at the top of its axes (``y`` given, so matplotlib does not place it
#: itself: that measures the tick labels of every axes sharing the x axis on each draw, about a
#: tenth of a run plot's drawing time; no plot here has ticks or labels above its axes to avoid).
TITLE_Y = 1.0

#: Flows drawn at most in one run's time series (those that sent most).
MAX_FLOW_LINES = 24


def plot_timeseries(
    flows: pd.DataFrame, hops: pd.DataFrame, scenario: dict[str, Any], stem: Path, *, title: str, colour: str
) -> list[Path]:
    """One run: bottleneck capacity (shaded) under the flows' throughput leaving that link;
    per-packet delay per bin (mean, and 95th percentile dashed); bottleneck queue length;
    congestion windows."""
    end = float(scenario.get("duration_ms", 0.0)) / 1000.0
    # A fixed layout (not "constrained", which measures every text and takes most of the drawing
    # time): the legends sit in the right margin, beside the data.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 8.5))
    fig.subplots_adjust(left=0.075, right=0.80, top=0.925, bottom=0.06, hspace=0.32)
    ax_t, ax_d, ax_q, ax_w = fig.subplots(4, 1, sharex=True)
    h0 = hops[hops["hop"] == 0]
    h0 = h0[h0["t_s"] < end - 1e-9]
    ax_t.fill_between(h0["t_s"], h0["capacity_mbps"], step="post", color="0.8", linewidth=0, label="capacity")
    fl = flows[flows["t_s"] < end - 1e-9]
    per_flow = dict(tuple(fl.groupby("flow", sort=True)))
    ids = list(per_flow)
    total = len(ids)
    ycol = "egress_mbps" if "egress_mbps" in fl.columns else "throughput_mbps"
    if total > MAX_FLOW_LINES:
        # Thousands of short flows (the ABC paper's Fig. 13) would be thousands of lines nobody can
        # read, and take minutes to draw: the flows that sent most, in flow order.
        sent = fl.groupby("flow", sort=True)[ycol].sum()
        ids = sorted(sent.nlargest(MAX_FLOW_LINES).index)
        ax_t.text(
            0.99,
            0.97,
            f"the {len(ids)} flows that sent most, of {total}",
            transform=ax_t.transAxes,
            ha="right",
            va="top",
            fontsize="x-small",
        )
    many = len(ids) > 6
    palette = [colour] if len(ids) == 1 else [f"C{i % 10}" for i in range(len(ids))]
    sc_flows = expanded_flows(scenario)
    for i, f in enumerate(ids):
        d = per_flow[f]
        stop_ms = sc_flows[int(f)].get("stop_ms") if int(f) < len(sc_flows) else None
        if stop_ms is not None:  # a flow's lines end when it stops
            d = d[d["t_s"] < float(stop_ms) / 1000.0 - 1e-9]
        c = palette[i % len(palette)]
        lab = None if many else f"flow {f}"
        # Bytes leaving the bottleneck (where the capacity is measured, ycol), not the receiver's
        # rate a propagation delay later, which would poke above the capacity band.
        ax_t.step(d["t_s"], d[ycol], where="post", color=c, linewidth=0.9, label=lab)
        ax_d.step(
            d["t_s"],
            d["delay_mean_ms"],
            where="post",
            color=c,
            linewidth=0.9,
            label=None if many else f"flow {f} mean",
        )
        ax_d.step(
            d["t_s"],
            d["delay_p95_ms"],
            where="post",
            color=c,
            linewidth=0.7,
            linestyle="--",
            label=None if many else f"flow {f} p95",
        )
        ax_w.step(d["t_s"], d["cwnd"], where="post", color=c, linewidth=0.9)
    ax_q.step(h0["t_s"], h0["queue_packets"], where="post", color="0.25", linewidth=0.9)
    ax_t.set_ylabel("Mbit/s")
    ax_t.set_title("throughput vs bottleneck capacity (shaded)", loc="left", fontsize="small", y=TITLE_Y)
    ax_d.set_ylabel("ms")
    ax_d.set_title(
        "per-packet delay per bin (RTT + queueing): mean, p95 dashed", loc="left", fontsize="small", y=TITLE_Y
    )
    ax_q.set_ylabel("packets")
    ax_q.set_title("bottleneck queue length", loc="left", fontsize="small", y=TITLE_Y)
    ax_w.set_ylabel("segments")
    ax_w.set_title("congestion window", loc="left", fontsize="small", y=TITLE_Y)
    ax_w.set_xlabel("time (s)")
    for ax in (ax_t, ax_d, ax_q, ax_w):
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    ax_w.set_xlim(0, end or None)
    if not many:  # beside the axes, never over the data
        for ax in (ax_t, ax_d):
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="x-small")
    fig.suptitle(title, fontsize="medium")
    return save(fig, stem, dpi=90)
