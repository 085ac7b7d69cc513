"""``accelbrake report RESULTS_DIR``: one self-contained HTML file for a finished sweep.

The report holds the tables (means ± standard deviation over seeds), every plot (PNG embedded as
base64; the SVGs sit next to them in ``RESULTS_DIR/plots/``), the comparison with the paper when
``reproduce`` wrote one (``comparison.json``), and the provenance (version, git commit, machine).
It needs no network and no other file, so it can be mailed or archived as is.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake._io import atomic_write_text
from accelbrake.experiments import figures as F
from accelbrake.experiments.runner import load_results
from accelbrake.experiments.verdicts import DEFAULT_TOLERANCE
from accelbrake.tables import MISSING, render_table

__all__ = ["EarlyPlots", "build_report", "make_plots", "run_warnings", "warnings_text"]

#: Per-run time-series plots drawn at most (first seed of every scheme at whole points: see
#: :func:`timeseries_runs`).
MAX_TIMESERIES = 12


def _pm(mean: float, sd: float, n: int, digits: int = 1, scale: float = 1.0) -> str:
    if mean is None or not math.isfinite(float(mean)):
        return MISSING
    text = f"{scale * float(mean):.{digits}f}"
    if n > 1 and sd is not None and math.isfinite(float(sd)):
        text += f" ± {scale * float(sd):.{digits}f}"
    return text


def run_warnings(out: Path, results: pd.DataFrame) -> list[tuple[dict[str, Any], list[str]]]:
    """The distinct warnings of a sweep's runs (the summaries' ``warnings``), each with the runs
    it affects, described as "label on trace, delay, buffer, seed (run id)"; in order of first
    appearance. Read once per process and sweep: the report and the console's warnings line ask
    for the same runs (each read is a run file)."""
    try:
        stamp = (out / "metadata.json").stat().st_mtime_ns
    except OSError:
        stamp = None
    # unique() keeps the order of first appearance (iterating the column's 600 000 Arrow strings
    # one by one took a fifth of abc-fig13's report).
    key = (str(out.resolve()), stamp, tuple(results["run_id"].unique().tolist()))
    if stamp is not None and key in _WARNINGS_READ:
        return _WARNINGS_READ[key]
    found = _read_warnings(out, results)
    if stamp is not None:
        _WARNINGS_READ.clear()
        _WARNINGS_READ[key] = found
    return found


#: The last sweep's warnings read by :func:`run_warnings` (key: folder, tables' time stamp, runs).
_WARNINGS_READ: dict[tuple[Any, ...], list[tuple[dict[str, Any], list[str]]]] = {}


def _read_warnings(out: Path, results: pd.DataFrame) -> list[tuple[dict[str, Any], list[str]]]:
    from accelbrake.experiments.runner import run_fact

    runs = results.drop_duplicates("run_id")
    found: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for _, r in runs.iterrows():
        rid = str(r["run_id"])
        warnings = run_fact(out, rid, "warnings")
        if warnings is None:
            continue
        for w in warnings:
            fields = ("code", "parameter", "value", "bound", "unit", "message")
            key = json.dumps({k: w.get(k) for k in fields}, sort_keys=True)
            parts = [str(r.get("label") or r.get("scheme"))]
            point = (("trace", "on {}"), ("delay_ms", "delay {:g} ms"), ("buffer_packets", "buffer {}"))
            for col, fmt in point:
                if col in r and r[col] is not None and r[col] == r[col]:
                    parts.append(fmt.format(r[col]))
            if "seed" in r and r["seed"] == r["seed"]:
                parts.append(f"seed {r['seed']}")
            found.setdefault(key, (w, []))[1].append(f"{', '.join(parts)} ({rid})")
    return list(found.values())


def warnings_text(out_dir: str | os.PathLike[str]) -> str:
    """The distinct warnings of a finished sweep in ``out_dir``, one line each with the number of
    runs it affects (the report lists the runs); empty when there is none or no finished sweep."""
    from accelbrake.results import format_warning

    out = Path(out_dir)
    try:
        results, _ = load_results(out)
    except FileNotFoundError:  # not a finished sweep: nothing to say here
        return ""
    lines = []
    for w, runs in run_warnings(out, results):
        n = len(runs)
        lines.append(f"{format_warning(w)} (affects {n} run{'s' if n != 1 else ''})")
    return "\n".join(lines)


def _warnings_html(warnings: list[tuple[dict[str, Any], list[str]]]) -> str:
    e = html.escape

    def num(x: Any) -> str:
        return f"{float(x):.4g}" if isinstance(x, int | float) else str(x)

    parts = [
        "<p class=\"note\">Settings outside a scheme's or queue's known operating range. The runs still "
        'ran; read their numbers with this in mind.</p><ul class="warnings">'
    ]
    for w, runs in warnings:
        unit = str(w.get("unit", ""))
        value = f"{num(w.get('value'))} {unit}"
        bound = f"{num(w.get('bound'))} {unit}"
        plural = "s" if len(runs) != 1 else ""
        parts.append(
            f"<li><b>{e(str(w.get('parameter', '?')))}</b> = {e(value)} (bound {e(bound)}): "
            f"{e(str(w.get('message', '')))}<br>"
            f'<span class="note">Source: {e(str(w.get("source", "?")))}. '
            f"Affects {len(runs)} run{plural}: {e('; '.join(runs))}</span></li>"
        )
    parts.append("</ul>")
    return "\n".join(parts)


def _quantiles(out: Path, run_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """Each run's per-packet delay quantile function (from this process's sweep, else its file)."""
    from accelbrake.experiments.runner import run_fact

    return {rid: np.asarray(run_fact(out, rid, "delay_quantiles_ms") or [], dtype=float) for rid in run_ids}


def _scenario(out: Path, rid: str) -> dict[str, Any]:
    return json.loads((out / "runs" / f"{rid}.json").read_text(encoding="utf-8"))["scenario"]


class _PlotCache:
    """Which plots in ``plots/`` are up to date: ``plots/.cache.json`` maps each plot's stem to a
    key of everything it is drawn from (the data, titles, labels, formats and the accelbrake
    version). A plot whose key matches and whose files exist is not drawn again (a resumed or
    re-reported sweep redraws nothing that did not change)."""

    NAME = ".cache.json"

    def __init__(self, plots: Path, svg: bool) -> None:
        self.path = plots / self.NAME
        self.svg = svg
        try:
            self.keys: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.keys = {}
        self.plots = plots

    def key(self, *parts: Any) -> str:
        import hashlib

        from accelbrake import __version__

        text = json.dumps([__version__, self.svg, *parts], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def fresh(self, stem: str, key: str) -> bool:
        files = [self.plots / f"{stem}.png", *([self.plots / f"{stem}.svg"] if self.svg else [])]
        return self.keys.get(stem) == key and all(f.is_file() for f in files)

    def save(self, drawn: dict[str, str]) -> None:
        self.keys.update(drawn)
        from accelbrake._io import atomic_write_json

        atomic_write_json(self.path, self.keys)


def make_plots(
    out: Path,
    results: pd.DataFrame,
    meta: dict[str, Any],
    *,
    max_timeseries: int = MAX_TIMESERIES,
    jobs: int | None = None,
    svg: bool = False,
    early: EarlyPlots | None = None,
) -> list[tuple[str, str, Path]]:
    """Draw the plots the report shows into ``out/plots`` (PNG; SVG beside each with ``svg``);
    return ``(section, caption, png path)`` in report order.

    Every plot is one job in a pool of ``jobs`` processes (default: every CPU), the summary plots
    first (they take longest); plots whose inputs did not change since they were drawn (see
    :class:`_PlotCache`) are kept. With ``early`` (an :class:`EarlyPlots` that drew run plots while
    the sweep ran) its pool draws the rest, and the run plots it started are not drawn again."""
    made, wait = _start_plots(
        out, results, meta, max_timeseries=max_timeseries, jobs=jobs, svg=svg, early=early
    )
    wait()
    return made


def _start_plots(
    out: Path,
    results: pd.DataFrame,
    meta: dict[str, Any],
    *,
    max_timeseries: int,
    jobs: int | None,
    svg: bool,
    early: EarlyPlots | None,
) -> tuple[list[tuple[str, str, Path]], Callable[[], None]]:
    """:func:`make_plots` without the wait: the plots are being drawn when this returns; call the
    returned function to wait for them (and write the plot cache)."""
    labels = meta.get("experiment", {}).get("labels", {})
    plots = out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    cache = _PlotCache(plots, svg)
    drawn: dict[str, str] = {}
    runs = F.run_level(results)
    schemes = list(dict.fromkeys(runs["scheme"]))
    made: list[tuple[str, str, Path]] = []
    todo: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
    started = early.started if early is not None else {}

    def draw(stem: str, key: str, job: Callable[..., None], job_args: Callable[[], tuple[Any, ...]]) -> None:
        """Draw ``stem`` unless the early pool started it from the same inputs (``key``) or the
        cache has it; an early plot from other inputs is dropped first."""
        if started.get(stem, (None,))[0] != key:
            if early is not None:
                early.forget(stem)
            if not cache.fresh(stem, key):
                todo.append((job, job_args()))
        drawn[stem] = key

    for section, caption, stem, key, job_args in _summary_plots(
        out, results, labels, meta.get("reference_scheme"), cache, svg, runs
    ):
        draw(stem, key, _summary_job, job_args)
        made.append((section, caption, plots / f"{stem}.png"))

    style = F.scheme_style(schemes)
    ts_made: list[tuple[str, str, Path]] = []
    for _, r in timeseries_runs(runs, max_timeseries).iterrows():
        spec = _timeseries_spec(r, labels, style)
        stem, title, colour = spec["stem"], spec["title"], spec["colour"]
        key = cache.key("timeseries", r["run_id"], title, colour)
        args = (str(out), r["run_id"], title, colour, svg, stem)
        draw(stem, key, _timeseries_job, lambda args=args: args)
        ts_made.append(("timeseries", spec["caption"], plots / f"{stem}.png"))
    if early is not None:
        wait_jobs = early.finish(todo, keep=set(drawn))
    else:
        wait_jobs = _start_jobs(todo, jobs)

    def wait() -> None:
        wait_jobs()
        cache.save(drawn)

    return made + ts_made, wait


def _summary_plots(
    out: Path,
    results: pd.DataFrame,
    labels: dict[str, str],
    ref: str | None,
    cache: _PlotCache,
    svg: bool,
    runs: pd.DataFrame | None = None,
) -> list[tuple[str, str, str, str, Callable[[], tuple[Any, ...]]]]:
    """The report's summary plots of ``results``, in report order: ``(section, caption, stem,
    cache key, job arguments)``; the arguments of :func:`_summary_job` are a function, computed only
    for a plot that is drawn. Used by the report and, as soon as the results table exists, by
    :meth:`EarlyPlots.on_results` (the same keys: a plot started there is not drawn again)."""
    agg = F.aggregate(results)
    runs = F.run_level(results) if runs is None else runs
    data_key = cache.key("data", _frame_digest(results), labels, ref, F.__name__)
    plans: list[tuple[str, str, str, str, Callable[[], tuple[Any, ...]]]] = []

    def plan(section: str, caption: str, stem: str, *args: Any) -> None:
        def job_args() -> tuple[Any, ...]:
            # An argument given as a function is computed only for a plot that is drawn.
            return (stem, str(out), svg, labels, *(a() if callable(a) else a for a in args))

        plans.append((section, caption, stem, cache.key(stem, data_key), job_args))

    plan(
        "tradeoff",
        "Utilisation vs 95th-percentile per-packet delay (seed means, bars ±1 sd); "
        "the delay axis is logarithmic and inverted, so better is up and to the right. Solid line: "
        "Pareto frontier of all schemes; dashed: without the reference scheme.",
        "tradeoff",
        agg,
        ref,
    )
    plan(
        "bars",
        "Per trace (and other settings): utilisation and p95 per-packet delay, "
        "seed means with ±1 sd error bars (ABC paper Fig. 8 style).",
        "per-trace",
        agg,
    )
    # The quantiles go with the job: the worker need not parse every run's file for them.
    plan(
        "cdf",
        "CDF of the per-packet delay of every delivered packet (quantile functions averaged over seeds).",
        "delay-cdf",
        runs,
        lambda: _quantiles(out, list(runs["run_id"])),
    )
    multi = runs[runs["flows"] > 1]
    if len(multi):
        plan(
            "fairness",
            "Jain's fairness index of the active flows' throughputs in each "
            "time-series bin (first seed of each multi-flow point).",
            "fairness",
            multi,
            list(dict.fromkeys(runs["scheme"])),
        )
    return plans


def _timeseries_spec(r: Any, labels: dict[str, str], style: dict[str, tuple[str, str]]) -> dict[str, str]:
    """A run plot's file stem, title, caption and colour from its :func:`F.run_level` row (or a
    mapping with the same keys)."""
    name = F.display_name(r["scheme"], labels)
    point = f"{r['trace']}, {r['delay_ms']:g} ms one-way, {r['buffer_packets']} packets"
    if r["flows"] > 1:
        point += f", {r['flows']} flows"
    title = (
        f"{name} on {point}, seed {r['seed']}: utilisation {100 * r['link_utilization']:.1f} %, "
        f"p95 per-packet delay {r['run_per_packet_delay_p95_ms']:.0f} ms"
    )
    # Named by scheme, trace and seed (and the run id, which tells the other settings apart).
    trace = _slug(Path(str(r["trace"])).name)
    return {
        "stem": f"run-{_slug(name)}-{trace}-seed{r['seed']}-{str(r['run_id'])[:8]}",
        "title": title,
        "caption": f"{name} on {point}, seed {r['seed']} (run {r['run_id']}).",
        "colour": style[r["scheme"]][0],
    }


class EarlyPlots:
    """Run plots drawn while the sweep is still running.

    Which runs the report plots (:func:`timeseries_runs`) depends only on the matrix, so it is known
    before the first run; each of those runs' plot is handed to a pool of plot workers as soon as
    the run's files are written (:meth:`on_run`), filling the cores the sweep leaves idle (its tail,
    the main process writing files), and the report then draws only the summary plots.
    :func:`make_plots` reuses a plot started here only when its cache key (inputs, title, colour)
    is the one it computes itself; a plot started here that the report does not show (a run with no
    flow rows) is deleted."""

    def __init__(
        self,
        out: Path,
        planned: Any,
        labels: dict[str, str],
        *,
        jobs: int | None,
        svg: bool,
        max_timeseries: int = MAX_TIMESERIES,
    ) -> None:
        import concurrent.futures as cf

        self.out = out
        self.svg = svg
        self.labels = labels
        (out / "plots").mkdir(parents=True, exist_ok=True)
        self.cache = _PlotCache(out / "plots", svg)
        self.style = F.scheme_style(list(dict.fromkeys(planned["scheme"])))
        chosen = timeseries_runs(planned, max_timeseries)
        self.wanted: dict[str, list[Any]] = {}
        for _, r in chosen.iterrows():
            self.wanted.setdefault(str(r["run_id"]), []).append(r)
        #: stem → (cache key, future or None when the plot was fresh already)
        self.started: dict[str, tuple[str, Any]] = {}
        n = max(1, jobs or os.cpu_count() or 1)
        self.pool = cf.ProcessPoolExecutor(max_workers=n, mp_context=plot_pool_context())

    @classmethod
    def for_sweep(
        cls, exp: Any, out: Path, *, jobs: int | None, svg: bool, max_timeseries: int = MAX_TIMESERIES
    ) -> EarlyPlots:
        """For the sweep of experiment ``exp`` into ``out``: the planned runs from its matrix."""
        from accelbrake.experiments.runner import planned

        rows = []
        seen = set()
        for p in exp.points():
            _sc, rid = planned(exp, p)
            if (rid, p.scheme) not in seen:  # run_level's rows: one per run and matrix scheme
                seen.add((rid, p.scheme))
                rows.append({"run_id": rid, **p.labels()})
        labels = {sch.name: sch.label for sch in exp.schemes}
        return cls(out, pd.DataFrame(rows), labels, jobs=jobs, svg=svg, max_timeseries=max_timeseries)

    def on_run(self, rid: str, doc: dict[str, Any]) -> None:
        """A run's files are written: start its plot if the report shows it."""
        summary = doc["summary"]
        for r in self.wanted.get(rid, ()):
            ppd = summary.get("per_packet_delay_ms") or {}
            row = {
                **r.to_dict(),
                "link_utilization": _num(summary.get("utilization")),
                "run_per_packet_delay_p95_ms": _num(ppd.get("p95")),
            }
            spec = _timeseries_spec(row, self.labels, self.style)
            key = self.cache.key("timeseries", rid, spec["title"], spec["colour"])
            if self.cache.fresh(spec["stem"], key):
                self.started[spec["stem"]] = (key, None)
                continue
            args = (str(self.out), rid, spec["title"], spec["colour"], self.svg, spec["stem"])
            self.started[spec["stem"]] = (key, self.pool.submit(_timeseries_job, *args))

    def on_results(self, results: pd.DataFrame, reference: str | None) -> None:
        """The sweep's results table is assembled (its files are not written yet): start the
        report's summary plots (``reference``: the reference scheme the report will be given).
        Called while the sweep writes its tables, it never raises: a plot it could not start is
        drawn (or its error reported) by the report."""
        try:
            plans = _summary_plots(self.out, results, self.labels, reference, self.cache, self.svg)
            for _sec, _cap, stem, key, job_args in plans:
                self.forget(stem)
                if self.cache.fresh(stem, key):
                    self.started[stem] = (key, None)
                else:
                    self.started[stem] = (key, self.pool.submit(_summary_job, *job_args()))
        except Exception:  # noqa: BLE001 - the report starts what is missing, and says why
            pass

    def forget(self, stem: str) -> None:
        """The report draws ``stem`` from other inputs than a plot started here: that plot is
        cancelled, or waited for if it is being drawn (so that it cannot overwrite the new one)."""
        _key, fut = self.started.pop(stem, (None, None))
        if fut is not None and not fut.cancel():
            try:
                fut.result()
            except Exception:  # noqa: BLE001 - its file is drawn again anyway
                pass

    def finish(
        self, todo: Sequence[tuple[Callable[..., None], tuple[Any, ...]]], keep: set[str]
    ) -> Callable[[], None]:
        """Draw ``todo`` on the pool too; return a function that waits for every plot (raising the
        first error), deletes plots started here that the report does not show (``keep``: the
        stems it shows), and shuts the pool down."""
        futures = [self.pool.submit(fn, *a) for fn, a in todo]
        futures += [f for _k, f in self.started.values() if f is not None]

        def wait() -> None:
            try:
                for fut in futures:
                    fut.result()
            finally:
                self.close()
            for stem in set(self.started) - keep:
                for suffix in (".png", ".svg"):
                    (self.out / "plots" / f"{stem}{suffix}").unlink(missing_ok=True)

        return wait

    def close(self) -> None:
        """Stop the pool (cancelling plots not started)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def _num(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _frame_digest(frame: pd.DataFrame) -> str:
    """SHA-256 of a table's columns, dtypes and values (pandas' row hashes: 10× faster than the
    JSON text the plot cache used to hash, which took 0.15 s per 44 000 rows)."""
    import hashlib

    h = hashlib.sha256(json.dumps([list(map(str, frame.columns)), list(map(str, frame.dtypes))]).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()


def timeseries_runs(runs: pd.DataFrame, limit: int) -> pd.DataFrame:
    """The runs whose time series the report draws: the first seed of each scheme at whole points
    (trace and other settings) in matrix order, every scheme of a point together so that a reader
    compares schemes on the same trace, as many points as ``limit`` plots allow (at least the first
    point's first ``limit`` schemes)."""
    if limit <= 0 or runs.empty:
        return runs.head(0)
    keys = [c for c in F.AXES if c in runs.columns]
    first = runs[
        runs["seed"] == runs.groupby(["scheme", *keys], sort=False, dropna=False)["seed"].transform("min")
    ]
    points = [p for _, p in first.groupby(keys, sort=False, dropna=False)] if keys else [first]
    chosen: list[pd.DataFrame] = []
    n = 0
    for point in points:
        if n + len(point) > limit:
            break
        chosen.append(point)
        n += len(point)
    if not chosen:
        return points[0].head(limit)
    return pd.concat(chosen)


def _summary_job(stem: str, out: str, svg: bool, labels: dict[str, str], *args: Any) -> None:
    """Draw one summary plot (in a worker process) to ``plots/<stem>.png``."""
    dest = Path(out) / "plots" / stem
    with F.svg_output(svg):
        if stem == "tradeoff":
            agg, ref = args
            F.plot_tradeoff(agg, dest, labels=labels, reference=ref)
        elif stem == "per-trace":
            (agg,) = args
            F.plot_bars(agg, dest, labels=labels)
        elif stem == "delay-cdf":
            runs, quantiles = args
            F.plot_cdfs(quantiles, runs, dest, labels=labels)
        elif stem == "fairness":
            multi, schemes = args
            series = []
            first = multi[
                multi["seed"] == multi.groupby(["scheme", *F.AXES], sort=False)["seed"].transform("min")
            ]
            cols = F.varying_axes(multi) or ["flows"]
            cols = [c for c in cols if c != "scheme"]
            for _, r in first.iterrows():
                ts = pd.read_parquet(Path(out) / "runs" / f"{r['run_id']}.flows.parquet")
                t, j = F.jain_over_time(ts, _scenario(Path(out), r["run_id"]))
                title = F._panel_title(tuple(r[c] for c in cols), cols) or f"{r['flows']} flows"
                series.append((title, r["scheme"], t, j))
            F.plot_fairness(series, dest, schemes=schemes, labels=labels)
        else:  # pragma: no cover - the stems are this module's own
            raise ValueError(f"unknown summary plot {stem!r}")


def _slug(text: str) -> str:
    """``Cubic+CoDel`` → ``cubic+codel``; anything but letters, digits, ``+-`` becomes ``-`` (a dot
    would read as a file suffix)."""
    import re

    return re.sub(r"[^a-z0-9+-]+", "-", text.lower()).strip("-") or "x"


def _timeseries_job(
    out: str, rid: str, title: str, colour: str, svg: bool = False, stem: str | None = None
) -> None:
    """Draw one run's time series (in a worker process) to ``plots/<stem>.png``."""
    d = Path(out) / "runs"
    flows = pd.read_parquet(d / f"{rid}.flows.parquet")
    hops = pd.read_parquet(d / f"{rid}.hops.parquet")
    with F.svg_output(svg):
        F.plot_timeseries(
            flows,
            hops,
            _scenario(Path(out), rid),
            Path(out) / "plots" / (stem or f"run-{rid}"),
            title=title,
            colour=colour,
        )


def plot_pool_context() -> Any:
    """The plot workers' start method: forked from a server that has imported the plotting code once
    (forkserver with preload), or spawned where there is no forkserver."""
    import multiprocessing as mp

    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    # matplotlib too: figures imports it only where it draws (the main process never does).
    ctx.set_forkserver_preload(
        [
            "accelbrake.experiments.report",
            "matplotlib.figure",
            "matplotlib.backends.backend_agg",
            "matplotlib.ticker",
            # Last: makes the fork server skip its interpreter teardown when it stops.
            "accelbrake._forkserver_exit",
        ]
    )
    return ctx


def prestart_plot_workers() -> None:
    """Start the plot workers' fork server now, so that it imports the plotting code (~0.5 s of
    one core) while the runs are still going instead of when the report starts. Best effort."""
    ctx = plot_pool_context()
    if ctx.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except OSError:  # pragma: no cover - the pool starts it later anyway
        pass


def _start_jobs(
    todo: Sequence[tuple[Callable[..., None], tuple[Any, ...]]], jobs: int | None
) -> Callable[[], None]:
    """Start ``fn(*args)`` for each ``(fn, args)`` of ``todo``, in order, in a process pool of
    ``jobs`` workers (default: CPUs; matplotlib drawing is CPU-bound and independent per figure);
    return a function that waits for them all (and raises the first error). With one worker or one
    job, the jobs run in this process when the returned function is called."""
    n = min(jobs or os.cpu_count() or 1, len(todo))
    if n <= 1:

        def run_here() -> None:
            for fn, a in todo:
                fn(*a)

        return run_here
    import concurrent.futures as cf

    ctx = plot_pool_context()
    pool = cf.ProcessPoolExecutor(max_workers=n, mp_context=ctx)
    futures = [pool.submit(fn, *a) for fn, a in todo]

    def wait() -> None:
        try:
            for fut in futures:
                fut.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return wait


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1320px;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:right;white-space:nowrap}
th{background:#f3f3f3;white-space:normal;vertical-align:bottom;min-width:3.5em}td.l,th.l{text-align:left}
td.l{white-space:normal;overflow-wrap:anywhere;min-width:6em}
tr.ni td{color:#888;font-style:italic}tr.differs td{background:#fdeaea}tr.reproduced td{background:#eaf6ea}
.scroll{overflow-x:auto}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.88em;color:#444}.note{font-size:.88em;color:#555}
.na{color:#a33}dl.meta{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;font-size:.88em}
dl.meta dt{font-weight:600}dl.meta dd{margin:0}
"""


def _table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    left: int = 1,
    row_class: Callable[[int], str] | None = None,
    table_id: str = "",
    left_also: Sequence[int] = (),
) -> str:
    """An HTML table (in a horizontally scrolling box); the first ``left`` columns and those in
    ``left_also`` are left-aligned."""
    e = html.escape

    def cls(i: int) -> str:
        return ' class="l"' if i < left or i in left_also else ""

    head = "".join(f"<th{cls(i)}>{e(h)}</th>" for i, h in enumerate(headers))
    body = []
    for k, r in enumerate(rows):
        rc = row_class(k) if row_class else ""
        cells = "".join(f"<td{cls(i)}>{e(c)}</td>" for i, c in enumerate(r))
        body.append(f'<tr class="{rc}">{cells}</tr>' if rc else f"<tr>{cells}</tr>")
    tid = f' id="{e(table_id)}"' if table_id else ""
    return (
        f'<div class="scroll"><table{tid}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}">'


def _point_table(agg: pd.DataFrame, labels: dict[str, str]) -> str:
    cols = F.varying_axes(agg) or ["trace"]
    headers = [
        "scheme",
        *cols,
        "seeds",
        "utilisation %",
        "throughput Mbit/s",
        "p95 per-packet delay ms",
        "mean per-packet delay ms",
        "p95 queueing delay ms",
    ]
    multi = bool((agg["flows"] > 1).any())
    if multi:
        headers.append("Jain index")
    rows = []
    for _, r in agg.iterrows():
        row = [
            F.display_name(r["scheme"], labels),
            *[_axis_text(c, r[c]) for c in cols],
            str(int(r["seeds"])),
        ]
        n = int(r["seeds"])
        row += [
            _pm(r["utilization_mean"], r["utilization_std"], n, 1, 100),
            _pm(r["throughput_mbps_mean"], r["throughput_mbps_std"], n, 2),
            _pm(r["p95_delay_ms_mean"], r["p95_delay_ms_std"], n, 0),
            _pm(r["mean_delay_ms_mean"], r["mean_delay_ms_std"], n, 0),
            _pm(r["p95_queueing_ms_mean"], r["p95_queueing_ms_std"], n, 0),
        ]
        if multi:
            row.append(_pm(r["jain_mean"], r["jain_std"], n, 3))
        rows.append(row)
    return _table(headers, rows, left=1 + len(cols), table_id="per-point")


def _axis_text(col: str, v: Any) -> str:
    if col == "trace" or col == "flow_rtts_ms":
        return str(v)
    return f"{v:g}" if isinstance(v, float | int | np.integer | np.floating) else str(v)


def scheme_means(results: pd.DataFrame) -> pd.DataFrame:
    """Per scheme: each seed's mean over the other axes, then mean and sd of that over seeds."""
    runs = F.run_level(results)
    cols = list(F.METRICS)
    per_seed = runs.groupby(["scheme", "seed"], sort=False)[cols].mean().reset_index()
    g = per_seed.groupby("scheme", sort=False)
    out = g[cols].mean().add_suffix("_mean").join(g[cols].std().add_suffix("_std"))
    out["seeds"] = g["seed"].nunique()
    out["points"] = runs.groupby("scheme", sort=False).size() // out["seeds"]
    return out.reset_index()


def _scheme_table(results: pd.DataFrame, labels: dict[str, str]) -> str:
    m = scheme_means(results)
    headers = [
        "scheme",
        "points",
        "seeds",
        "utilisation %",
        "throughput Mbit/s",
        "p95 per-packet delay ms",
        "mean per-packet delay ms",
    ]
    rows = []
    for _, r in m.iterrows():
        n = int(r["seeds"])
        rows.append(
            [
                F.display_name(r["scheme"], labels),
                str(int(r["points"])),
                str(n),
                _pm(r["link_utilization_mean"], r["link_utilization_std"], n, 1, 100),
                _pm(r["link_throughput_mbps_mean"], r["link_throughput_mbps_std"], n, 2),
                _pm(r["run_per_packet_delay_p95_ms_mean"], r["run_per_packet_delay_p95_ms_std"], n, 0),
                _pm(r["run_per_packet_delay_mean_ms_mean"], r["run_per_packet_delay_mean_ms_std"], n, 0),
            ]
        )
    return _table(headers, rows, table_id="per-scheme")


#: Verdict → row class of the comparison table (differs / direction fails red, reproduced / holds
#: green, rows without a comparison grey).
_VERDICT_CLASS = {
    "reproduced": "reproduced",
    "direction holds": "reproduced",
    "differs": "differs",
    "direction fails": "differs",
    "no data": "differs",
}


def _comparison_html(comp: dict[str, Any]) -> str:
    e = html.escape
    parts = []
    for rep in comp.get("reproductions", []):
        parts.append(f"<h3>{e(rep['id'])}: {e(rep['title'])}</h3>")
        parts.append(
            f'<p class="note">Published numbers from {e(rep["source"])}. {e(rep.get("setup", ""))}</p>'
        )
        parts.append(
            '<p class="note">Verdicts: <b>reproduced</b> = ratio ours/published within the tolerance '
            f"(±{100 * DEFAULT_TOLERANCE:g} % unless the row says otherwise and why) or inside a "
            "published range; <b>differs</b> otherwise; <b>direction holds/fails</b> = a qualitative "
            "claim of the paper.</p>"
        )
        rows = []
        for c in rep["rows"]:
            rows.append(
                [
                    c["scheme"],
                    c["metric"],
                    c["ours_text"],
                    c["published_text"],
                    c["ratio_text"],
                    c.get("tolerance_text", ""),
                    c.get("verdict_text", c.get("verdict", "")),
                    c.get("note", ""),
                ]
            )

        def cls(k: int, rep: dict[str, Any] = rep) -> str:
            return _VERDICT_CLASS.get(rep["rows"][k].get("verdict", ""), "ni")

        parts.append(
            _table(
                [
                    "scheme",
                    "metric",
                    "ours",
                    "published",
                    "ratio ours/published",
                    "tolerance",
                    "verdict",
                    "note",
                ],
                rows,
                left=2,
                left_also=(6, 7),
                row_class=cls,
                table_id=f"comparison-{rep['id']}",
            )
        )
        for line in rep.get("unavailable", []):
            parts.append(f'<p class="na">not available yet: {e(line)}</p>')
        if rep.get("summary"):
            parts.append(f'<p class="summary"><b>{e(rep["id"])}: {e(rep["summary"])}</b></p>')
    return "\n".join(parts)


def build_report(
    out_dir: str | os.PathLike[str],
    html_path: str | os.PathLike[str] | None = None,
    *,
    max_timeseries: int = MAX_TIMESERIES,
    jobs: int | None = None,
    svg: bool = False,
    early: EarlyPlots | None = None,
) -> Path:
    """Draw the plots and write ``report.html`` (or ``html_path``) for the sweep in ``out_dir``
    (time-series plots in ``jobs`` processes, default every CPU; SVGs beside the PNGs with
    ``svg``; with ``early``, the run plots it started during the sweep are used)."""
    out = Path(out_dir)
    results, meta = load_results(out)
    comp_path = out / "comparison.json"
    comp = json.loads(comp_path.read_text(encoding="utf-8")) if comp_path.is_file() else None
    if comp and comp.get("reference_scheme"):
        meta["reference_scheme"] = comp["reference_scheme"]
    exp = meta.get("experiment", {})
    labels = exp.get("labels", {})
    # The plots are drawn in worker processes while this process writes the page's tables; it
    # waits for them where the page embeds them.
    plots, wait_plots = _start_plots(
        out, results, meta, max_timeseries=max_timeseries, jobs=jobs, svg=svg, early=early
    )
    agg = F.aggregate(results)
    e = html.escape
    title = f"accelbrake: {exp.get('name', out.name)}"
    doc = exp.get("document", {})
    run_doc = doc.get("run", {}) if isinstance(doc, dict) else {}
    n_runs = int(results["run_id"].nunique())
    body = [f"<h1>{e(title)}</h1>"]
    if exp.get("description"):
        body.append(f"<p>{e(exp['description'])}</p>")
    body.append(
        f'<p class="note">{n_runs} runs, {len(results)} flow rows; '
        f"{e(str(run_doc.get('duration_s', '?')))} s simulated per run. Delays: <b>per-packet delay</b> = "
        "propagation RTT + queueing delay (the ABC paper's convention); <b>queueing delay</b> = time in the "
        "bottleneck queue incl. waiting for a delivery opportunity; <b>utilisation</b> = bytes that left the "
        "bottleneck / its capacity. Rates in Mbit/s, delays in ms; ± is one standard deviation "
        "over seeds.</p>"
    )
    warnings = run_warnings(out, results)
    if warnings:
        body.append(f'<h2 id="warnings">Warnings ({len(warnings)})</h2>')
        body.append(_warnings_html(warnings))
    if comp:
        body.append('<h2 id="comparison">Comparison with the paper</h2>')
        body.append(_comparison_html(comp))
    body.append('<h2 id="schemes">Per scheme (mean over the matrix)</h2>')
    body.append(_scheme_table(results, labels))
    body.append('<h2 id="points">Per scheme and setting</h2>')
    body.append(_point_table(agg, labels))
    sections = {
        "tradeoff": "Throughput–delay trade-off",
        "bars": "Per trace",
        "cdf": "Delay distribution",
        "fairness": "Fairness over time",
        "timeseries": "Time series of single runs",
    }
    seen = set()
    wait_plots()

    def svg_note(png: Path) -> str:
        return f" SVG: plots/{e(png.stem)}.svg" if svg else ""

    for sec, caption, png in plots:
        if sec not in seen:
            body.append(f'<h2 id="{sec}">{e(sections[sec])}</h2>')
            if sec == "timeseries":
                total = len(F.run_level(results).groupby(["scheme", *F.AXES], sort=False))
                shown = sum(1 for s, _, _ in plots if s == "timeseries")
                body.append(
                    f'<p class="note">First seed of each scheme and setting ({shown} of {total} shown); '
                    f"per-run tables are in runs/&lt;run_id&gt;.flows.parquet and .hops.parquet.</p>"
                )
            seen.add(sec)
        body.append(
            f'<figure id="fig-{e(png.stem)}">{_img(png, caption)}'
            f"<figcaption>{e(caption)}{svg_note(png)}</figcaption></figure>"
        )
    m = meta.get("machine", {})
    body.append('<h2 id="provenance">Provenance</h2><dl class="meta">')
    for k, v in (
        ("accelbrake", meta.get("accelbrake_version")),
        ("git commit", meta.get("git_commit")),
        ("executor", meta.get("executor")),
        ("wall time", f"{meta.get('wall_s', '?')} s"),
        ("machine", f"{m.get('host')} — {m.get('platform')}, {m.get('cpus')} CPUs, Python {m.get('python')}"),
        ("experiment file", exp.get("source")),
        ("results", str(out)),
        ("created", meta.get("created_utc")),
    ):
        body.append(f"<dt>{e(str(k))}</dt><dd>{e(str(v))}</dd>")
    body.append("</dl>")
    body.append(
        f"<details><summary>experiment document</summary><pre>{e(json.dumps(doc, indent=2))}</pre></details>"
    )
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + f'\n<p class="note">Written by accelbrake report, {e(stamp)}.</p>\n</body>\n</html>\n'
    )
    dest = Path(html_path) if html_path else out / "report.html"
    atomic_write_text(dest, page)
    return dest


def summary_text(results: pd.DataFrame, labels: dict[str, str] | None = None) -> str:
    """The per-point table (means ± sd over seeds) as aligned text, for the terminal."""
    agg = F.aggregate(results)
    cols = F.varying_axes(agg) or ["trace"]
    multi = bool((agg["flows"] > 1).any())
    headers = [
        ("scheme", ""),
        *[(c, "") for c in cols],
        ("seeds", ""),
        ("utilisation", "%"),
        ("throughput", "Mbit/s"),
        ("per-packet delay", "p95 ms"),
        ("", "mean ms"),
    ]
    if multi:
        headers.append(("Jain", ""))
    rows = []
    for _, r in agg.iterrows():
        n = int(r["seeds"])
        row = [
            F.display_name(r["scheme"], labels),
            *[_axis_text(c, r[c]) for c in cols],
            str(n),
            _pm(r["utilization_mean"], r["utilization_std"], n, 1, 100),
            _pm(r["throughput_mbps_mean"], r["throughput_mbps_std"], n, 2),
            _pm(r["p95_delay_ms_mean"], r["p95_delay_ms_std"], n, 0),
            _pm(r["mean_delay_ms_mean"], r["mean_delay_ms_std"], n, 0),
        ]
        if multi:
            row.append(_pm(r["jain_mean"], r["jain_std"], n, 3))
        rows.append(row)
    note = (
        "per-packet delay = propagation RTT + queueing delay; utilisation = bytes that left the bottleneck / "
        "its capacity; ± = one standard deviation over seeds"
    )
    return render_table(headers, rows, left=1 + len(cols)) + "\n" + note
