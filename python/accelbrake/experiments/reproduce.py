"""``accelbrake reproduce ID...``: run a named experiment and compare it with a paper, row by row.

A reproduction (:class:`Reproduction`) is an experiment document (the same TOML schema as
``accelbrake sweep``; quick or full, traces replaceable), run with the sweep runner, plus a
comparison that turns the runs into rows (:mod:`accelbrake.experiments.rows`: value, published value,
ratio ours/published, spread over seeds and a verdict from :mod:`accelbrake.experiments.verdicts`).
A reproduction that is not a sweep runs its scenarios itself (``direct``). The reproductions of each
paper live in :mod:`accelbrake.papers`; this module runs any of them and knows none.

``--quick`` shortens the runs (and uses a 2-trace subset of a trace set, named in the output) for a
first look; its numbers are not the reproduction.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from accelbrake._io import atomic_path, atomic_write_json
from accelbrake._text import did_you_mean
from accelbrake.experiments import verdicts as V
from accelbrake.experiments.spec import ExperimentError, apply_overrides, parse_experiment, quick_document
from accelbrake.experiments.tracesets import TraceSet
from accelbrake.tables import render_table

__all__ = [
    "DirectOutcome",
    "Reproduction",
    "compare",
    "expand_traces",
    "file_document",
    "format_comparison",
    "no_compare",
    "no_document",
    "resolve_ids",
    "run_reproduction",
    "runs_text",
    "set_traces",
    "summarise",
    "sweep_document",
]


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


def file_document(path: Path) -> Callable[[bool, list[str] | None], dict[str, Any]]:
    """The document of a reproduction kept as an experiment file (``path``, TOML): the file as
    written (without its ``[quick]`` table), or with ``quick`` that table applied
    (:func:`accelbrake.experiments.spec.quick_document`); ``traces`` replace ``matrix.traces``."""

    def build(quick: bool, traces: list[str] | None) -> dict[str, Any]:
        from accelbrake.experiments.spec import _parse_toml

        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ExperimentError(f"{path}: {e}", key=str(path)) from None
        doc = _parse_toml(text, str(path))
        doc = quick_document(doc) if quick else {k: v for k, v in doc.items() if k != "quick"}
        if traces:
            doc.setdefault("matrix", {})["traces"] = list(traces)
        return doc

    return build


def sweep_document(
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
    """An experiment document over one network: ``schemes`` × ``traces`` × ``buffers`` at one
    ``delay_ms``, ACKs over 100 Mbit/s, ``full_s`` per run (``quick_s`` with ``quick``) and
    ``seeds`` = (quick, full) seeds; ``variants`` is the document's ``[schemes]`` table, ``run``
    more keys of its ``[run]`` table."""
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


@dataclass(frozen=True)
class Reproduction:
    """A named experiment: its document (quick or full, optional trace override) and its comparison."""

    id: str
    title: str
    setup: str
    document: Callable[[bool, list[str] | None], dict[str, Any]]
    compare: Callable[[pd.DataFrame, Path], list[dict[str, Any]]]
    unavailable: tuple[str, ...] = ()
    reference: str = ""
    """The scheme others are normalised to and the report compares against (``abc``)."""
    paper: str = ""
    """The citation of the paper the published numbers come from."""
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
    main_plot: str = "tradeoff"
    """The report section whose first plot stands for it on the ``reproduce all`` index
    (``tradeoff``, ``fairness``, ``timeseries``: experiments about behaviour over time show a run)."""


def set_traces(quick: bool, override: list[str] | None, tset: TraceSet) -> tuple[list[str], str]:
    """The traces of a reproduction that averages over a trace set, and how to name them."""
    if override:
        return override, f"{len(override)} traces given with --traces (not {tset.label})"
    if quick:
        return tset.paths(quick=True), f"{tset.quick_label} ({tset.label}), --quick"
    return tset.paths(), tset.label


def no_document(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    raise ExperimentError("this reproduction runs its scenarios directly (no experiment document)")


def no_compare(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
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
    if _seeds_per_point(results) == 1:
        # One seed per point: every judged row is from single runs; say so where the comparison
        # did not (a spread needs at least two seeds).
        for r in rows:
            if r.get("kind") in ("number", "claim") and not r.get("spread_text"):
                r["runs"] = 1
                r["spread_text"] = "1 run"
    return {
        "id": rep.id,
        "title": rep.title,
        "source": f"{rep.paper}, {rep.cite}" if rep.cite else rep.paper,
        "setup": rep.setup,
        "rows": rows,
        "unavailable": list(rep.unavailable),
        "summary": summarise(rows),
    }


def _seeds_per_point(results: pd.DataFrame) -> int | None:
    """The most seeds any point (scheme × trace × other axes) of a sweep's results was run with."""
    if "seed" not in results.columns or "run_id" not in results.columns or results.empty:
        return None
    keys = [c for c in ("scheme", "trace", "delay_ms", "buffer_packets", "flows") if c in results.columns]
    runs = results.drop_duplicates("run_id")
    return int(runs.groupby(keys, sort=False)["seed"].nunique().max()) if keys else None


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
        ("seed spread", "std (95 % int.)"),
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
                r.get("spread_text", ""),
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
        "range (at the edge: within 1 % of the band's edge; within the noise: outside the band but "
        "the 95 % interval over seeds reaches it); direction holds/fails = a qualitative claim",
        "",
    ]
    lines.append(render_table(headers, rows, left=2, left_also=(4, 7, 8)))
    for u in comp.get("unavailable", []):
        lines.append(f"not available yet: {u}")
    lines.append(f"{comp['id']}: {comp.get('summary') or summarise(comp['rows'])}")
    return "\n".join(lines)


def resolve_ids(
    ids: Sequence[str], reproductions: Mapping[str, Reproduction], unavailable: Mapping[str, str]
) -> list[Reproduction]:
    """Look the ids up in ``reproductions``; an unknown id, or one of ``unavailable`` (id → why),
    raises an error naming it (with the reason)."""
    out = []
    for i in ids:
        key = i.strip().lower()
        if key in reproductions:
            out.append(reproductions[key])
        elif key in unavailable:
            raise ExperimentError(f"reproduce {i}: not available yet: {unavailable[key]}", key=i)
        else:
            known = [*reproductions, *unavailable]
            hint = did_you_mean(key, known)
            raise ExperimentError(
                f"reproduce: unknown id '{i}'{hint}; available: {', '.join(reproductions)}", key=i
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
