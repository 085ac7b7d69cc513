"""``accelbrake reproduce all``: every reproduction of the papers, one index page of verdicts.

Runs every reproduction id of the selected papers (:data:`accelbrake.papers.TITLES`;
``--paper abc|abe|c2tcp|proprate``) into ``OUT/<id>`` (``OUT/<id>-quick``): resumable, since each
sweep keeps its finished runs and a rerun only reads them back. On the local process pool two ids
run at a time (:data:`DRIVERS`), each in a process of its own with the pool's workers and drawing
its own report, so that one id's serial parts overlap the other's runs; on Ray, one after the other,
the reports at the end. Then it judges the papers' catalogue of published results
(each paper's ``RESULTS``, :mod:`accelbrake.papers`): one verdict per catalogue entry, from the comparison
rows of the reproduction that covers it, and "not implemented" (with the reason) for an entry no
reproduction covers yet. It writes

* ``OUT/verdicts.csv`` / ``verdicts.json``: one row per catalogue entry (paper, where, claim,
  reproduction id, verdict, detail, reason);
* ``OUT/rows.csv``: every comparison row of every reproduction (our number, the published one,
  ratio, tolerance, verdict);
* ``OUT/index.html``: per paper, per figure: the paper's claim, our plot, our numbers, the verdict;

and ends with one line per paper: "ABC: N of M reproduced; of the K that differ, A explained by
experiment, B with the cause in the paper's setup, C hypotheses, D open; J not implemented", the
statuses read from each result's ``difference`` in its paper's data (a result that differs with no
status recorded counts as open).

An entry's verdict: ``reproduced`` when every judged row (a number within its tolerance or range, a
claim whose direction holds) reproduces; ``differs`` when any judged row differs or any claim fails
(the detail says how many of how many reproduce); ``not implemented`` when no reproduction exists
(or only rows for schemes not implemented here); ``not compared`` when the reproduction shows only
numbers the paper gives as a figure; ``failed`` when its reproduction did not run (the reason is
given).
"""

from __future__ import annotations

import html
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from accelbrake._io import atomic_path, atomic_write_json
from accelbrake.experiments import verdicts as V
from accelbrake.experiments.published import STATUSES, Result, selects
from accelbrake.papers import BY_KEY, CITATIONS, RESULTS, SHORT, TITLES, UNAVAILABLE, reproduction
from accelbrake.papers import paper_of as _paper

__all__ = [
    "FAILED",
    "VERDICTS",
    "catalogue_verdicts",
    "ids_for",
    "paper_of",
    "paper_summary",
    "run_all",
    "write_index",
]

FAILED = "failed"
#: The verdicts of a catalogue entry.
VERDICTS = (V.REPRODUCED, V.DIFFERS, V.WITHIN_NOISE, V.NOT_IMPLEMENTED, V.NOT_COMPARED, V.NO_DATA, FAILED)

_JUDGED_OK = (V.REPRODUCED, V.HOLDS)
_JUDGED_BAD = (V.DIFFERS, V.FAILS)


def paper_of(rid: str) -> str:
    """The paper key of a reproduction id."""
    return _paper(rid).key


def ids_for(paper: str | None = None) -> list[str]:
    """The runnable reproduction ids of ``paper`` (all papers with ``None``), in TITLES order."""
    if paper is not None and paper not in BY_KEY:
        raise ValueError(f"--paper {paper}: expected one of {', '.join(BY_KEY)}")
    return [rid for rid in TITLES if paper is None or paper_of(rid) == paper]


def _selected(entry: Result, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if selects(entry.rows, str(r.get("scheme", "")), str(r.get("metric", "")))]


def entry_verdict(
    entry: Result, comps: dict[str, dict[str, Any]], failures: dict[str, str]
) -> dict[str, Any]:
    """The verdict row of one catalogue entry (see the module docstring)."""
    numbers = BY_KEY[entry.paper].numbers(entry)
    base = {
        "paper": entry.paper,
        "key": entry.key,
        "where": entry.where,
        "claim": entry.claim + (f" ({numbers})" if numbers else ""),
        "id": entry.repro,
        "status": "",
        "cause": "",
        "evidence": "",
        "edge": "",
    }
    if not entry.repro:
        return {**base, "verdict": V.NOT_IMPLEMENTED, "detail": "", "reason": entry.why}
    if entry.repro not in TITLES:
        why = UNAVAILABLE.get(entry.repro, f"no reproduction '{entry.repro}'")
        return {**base, "verdict": V.NOT_IMPLEMENTED, "detail": "", "reason": why}
    if entry.repro in failures:
        return {**base, "verdict": FAILED, "detail": "", "reason": failures[entry.repro]}
    if entry.repro not in comps:
        return {**base, "verdict": V.NO_DATA, "detail": "", "reason": "not run (another --paper?)"}
    rows = _selected(entry, comps[entry.repro]["rows"])
    if not rows:
        return {
            **base,
            "verdict": V.NO_DATA,
            "detail": "",
            "reason": f"no comparison row of {entry.repro} matches {', '.join(entry.rows)}",
        }
    n = Counter(r["verdict"] for r in rows)
    ok = sum(n[v] for v in _JUDGED_OK)
    bad = sum(n[v] for v in _JUDGED_BAD)
    judged = ok + bad + n[V.NO_DATA] + n[V.WITHIN_NOISE]
    extra = f"; {n[V.NOT_IMPLEMENTED]} for schemes not implemented" if n[V.NOT_IMPLEMENTED] else ""
    detail = f"{ok} of {judged} rows reproduced or hold{extra}" if judged else ""
    noted = sorted({q for r in rows if (q := r.get("qualifier"))})
    if noted and not bad:
        detail += f" ({', '.join(noted)})"
    if bad:
        verdict = V.DIFFERS
        d = entry.difference
        base = {
            **base,
            "status": d.status if d else "open",
            "cause": d.cause if d else "no status recorded",
            "evidence": d.evidence if d else "",
        }
    elif n[V.WITHIN_NOISE]:
        verdict = V.WITHIN_NOISE
    elif n[V.NO_DATA]:
        verdict = V.NO_DATA
    elif ok:
        verdict = V.REPRODUCED
    elif n[V.NOT_IMPLEMENTED]:
        verdict = V.NOT_IMPLEMENTED
        detail = f"{n[V.NOT_IMPLEMENTED]} rows for schemes not implemented here"
    else:
        verdict = V.NOT_COMPARED
        detail = f"{len(rows)} numbers the paper gives only as a figure"
    base["edge"] = ", ".join(noted)
    return {**base, "verdict": verdict, "detail": detail, "reason": ""}


def catalogue_verdicts(
    comps: dict[str, dict[str, Any]], failures: dict[str, str] | None = None, paper: str | None = None
) -> list[dict[str, Any]]:
    """One verdict row per catalogue entry of ``paper`` (every paper with ``None``)."""
    return [entry_verdict(e, comps, failures or {}) for e in RESULTS if paper is None or e.paper == paper]


_STATUS_WORDS = {
    "explained by experiment": ("explained by experiment", "explained by experiment"),
    "cause in the paper's setup": (
        "with the cause in the paper's setup",
        "with the cause in the paper's setup",
    ),
    "hypothesis": ("hypothesis", "hypotheses"),
    "open": ("open", "open"),
}


def paper_summary(rows: Sequence[dict[str, Any]]) -> str:
    """``N of M reproduced; of the K that differ, A explained by experiment, B with the cause in the
    paper's setup, C hypotheses, D open; J not implemented`` (and the rest, when there is any)."""
    n = Counter(r["verdict"] for r in rows)
    text = f"{n[V.REPRODUCED]} of {len(rows)} reproduced"
    if n[V.DIFFERS]:
        st = Counter(r.get("status") or "open" for r in rows if r["verdict"] == V.DIFFERS)
        parts = [f"{st[s]} {_STATUS_WORDS[s][st[s] != 1]}" for s in STATUSES if st[s]]
        text += f"; of the {n[V.DIFFERS]} that differ, {', '.join(parts)}"
    if n[V.NOT_IMPLEMENTED]:
        text += f"; {n[V.NOT_IMPLEMENTED]} not implemented"
    rest = [f"{n[v]} {v}" for v in (V.WITHIN_NOISE, V.NOT_COMPARED, V.NO_DATA, FAILED) if n[v]]
    return text + (f" ({', '.join(rest)})" if rest else "")


# ---------------------------------------------------------------------------------------------
# Running


def run_all(
    out_dir: str | os.PathLike[str],
    *,
    quick: bool,
    paper: str | None = None,
    ids: Sequence[str] | None = None,
    executor: Any = None,
    progress: bool = True,
    report: bool = True,
    echo: Callable[[str], Any] = print,
    log: Callable[[str], Any] | None = None,
    csv: bool = False,
) -> dict[str, Any]:
    """Run every reproduction of ``paper`` (all papers with ``None``) into ``out_dir``, judge the
    catalogue and write the verdict tables and the index page. Returns ``{"verdicts", "comparisons",
    "failures", "wall_s", "summary"}`` (``summary``: paper → its "N of M" line). A reproduction that
    fails is reported (``failures``) and the others still run. ``ids``: only these reproductions
    (the catalogue entries of the others then say "no data")."""
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.reproduce import run_reproduction, runs_text
    from accelbrake.experiments.spec import ExperimentError
    from accelbrake.scenarios import ScenarioError

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    comps: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    folders: dict[str, str] = {}
    reports: list[Path] = []
    todo = list(ids if ids is not None else ids_for(paper))
    local = executor is None or isinstance(executor, LocalExecutor)
    jobs = (executor.jobs if executor is not None else None) or os.cpu_count() or 1
    if local and min(DRIVERS, jobs, len(todo)) > 1:
        _run_concurrently(
            out,
            todo,
            quick=quick,
            executor=executor or LocalExecutor(),
            progress=progress,
            report=report,
            echo=echo,
            log=log,
            results=(comps, failures, folders),
            csv=csv,
        )
        todo = []
    for rid in todo:
        rep = reproduction(rid)
        sub = rid + ("-quick" if quick else "")
        t1 = time.monotonic()
        try:
            comp, rep_path, outcome = run_reproduction(
                rep,
                out / sub,
                quick=quick,
                executor=executor,
                progress=progress,
                # The reports are drawn after all runs, several at a time (below): drawn one by one
                # between the sweeps they left a core idle for most of their time.
                report=False,
                echo=log or (lambda _m: None),
                csv=csv,
            )
        except (ExperimentError, ScenarioError, RuntimeError, OSError, ValueError, KeyError) as e:
            failures[rid] = f"{type(e).__name__}: {e}"
            echo(f"{rid}: failed: {failures[rid]}")
            continue
        comps[rid] = comp
        folders[rid] = sub
        if report and rep.direct is None:
            reports.append(out / sub)
        echo(f"{rid}: {runs_text(outcome)}, {time.monotonic() - t1:.1f} s; {comp['summary']}")
    if reports:
        _build_reports(reports, getattr(executor, "jobs", None), echo)
    wall = time.monotonic() - t0
    verdicts = catalogue_verdicts(comps, failures, paper)
    papers = [paper] if paper else list(BY_KEY)
    summary = {p: paper_summary([v for v in verdicts if v["paper"] == p]) for p in papers}
    _write_tables(out, verdicts, comps, folders, quick, wall, summary)
    write_index(out, verdicts, comps, folders, quick=quick, wall_s=wall, summary=summary)
    return {
        "verdicts": verdicts,
        "comparisons": comps,
        "failures": failures,
        "wall_s": wall,
        "summary": summary,
    }


#: Reproductions run at the same time by ``reproduce all`` on the local process pool, each with
#: the whole pool's workers: one id's serial parts (planning, tables, comparison, report, and the
#: direct reproductions that run in one process) overlap the other's runs, so no core idles.
DRIVERS = 2

#: The ids that take longest, started first so that the others fill the second driver beside them
#: instead of leaving them to finish alone (in a full `reproduce all`, abc-fig13 takes 60 %
#: of the wall time, abe-figures and c2tcp-table1 come next). The outputs keep the catalogue order.
LONG_FIRST = ("abc-fig13", "abe-figures", "c2tcp-table1")


def _run_concurrently(
    out: Path,
    ids: Sequence[str],
    *,
    quick: bool,
    executor: Any,
    progress: bool,
    report: bool,
    echo: Callable[[str], Any],
    log: Callable[[str], Any] | None,
    results: tuple[dict[str, Any], dict[str, str], dict[str, str]],
    csv: bool = False,
) -> None:
    """Run ``ids`` :data:`DRIVERS` at a time, each in a driver process of its own (the pool of
    :mod:`accelbrake._pool`: a driver that dies fails its id alone, none outlives this process)
    that runs the id's sweep on a local pool of ``executor.jobs`` workers and draws its report.
    Fills ``results`` (comparisons, failures, folders) in ``ids`` order."""
    from accelbrake._pool import run_tasks
    from accelbrake.experiments.reproduce import runs_text

    comps, failures, folders = results
    done: dict[str, tuple[str, Any]] = {}
    settings = {
        "out": str(out),
        "quick": quick,
        "jobs": executor.jobs,
        "memory_mb": getattr(executor, "worker_memory_mb", None),
        "report": report,
        "log": log is not None,
        "csv": csv,
    }

    def on_result(rid: str, res: dict[str, Any]) -> None:
        if res.get("failure"):
            done[rid] = ("failure", res["failure"])
            echo(f"{rid}: failed: {res['failure']}")
            return
        done[rid] = ("ok", res)
        echo(
            f"{rid}: {runs_text(_Counts(**res['outcome']))}, {res['seconds']:.1f} s; {res['comp']['summary']}"
        )

    def on_failure(rid: str, reason: str) -> None:
        done[rid] = ("failure", reason)
        echo(f"{rid}: failed: {reason}")

    order = sorted(ids, key=lambda rid: LONG_FIRST.index(rid) if rid in LONG_FIRST else len(LONG_FIRST))
    run_tasks(
        [(rid, json.dumps(settings)) for rid in order],
        _drive,
        jobs=min(DRIVERS, len(ids)),
        progress=progress,
        desc="reproductions",
        on_result=on_result,
        on_failure=on_failure,
    )
    for rid in ids:
        kind, res = done.get(rid, ("failure", "did not run"))
        if kind == "failure":
            failures[rid] = res
        else:
            comps[rid] = res["comp"]
            folders[rid] = rid + ("-quick" if quick else "")


class _Counts:
    """A driver's run counts, shaped like the runner's outcome for :func:`runs_text`."""

    def __init__(self, total: int, ran: int, skipped: int, resumable: bool) -> None:
        self.total, self.ran, self.skipped, self.resumable = total, ran, skipped, resumable


def _drive(rid: str, settings_json: str) -> tuple[str, dict[str, Any] | None, str | None]:
    """One reproduction in a driver process (see :func:`_run_concurrently`): its runs, comparison
    and report. Returns ``(rid, {"comp", "outcome", "seconds"} or {"failure"}, None)``."""
    import sys

    from accelbrake._pool import keep_workers
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.reproduce import run_reproduction
    from accelbrake.experiments.spec import ExperimentError
    from accelbrake.scenarios import ScenarioError

    # A driver runs one reproduction after another: their sweeps share the driver's workers.
    keep_workers()
    cfg = json.loads(settings_json)
    rep = reproduction(rid)
    t1 = time.monotonic()
    sub = Path(cfg["out"]) / (rid + ("-quick" if cfg["quick"] else ""))
    try:
        comp, _path, outcome = run_reproduction(
            rep,
            sub,
            quick=cfg["quick"],
            executor=LocalExecutor(cfg["jobs"], cfg["memory_mb"]),
            progress=False,
            report=cfg["report"] and rep.direct is None,
            echo=(lambda m: print(m, file=sys.stderr, flush=True)) if cfg["log"] else (lambda _m: None),
            csv=cfg["csv"],
        )
    except (ExperimentError, ScenarioError, RuntimeError, OSError, ValueError, KeyError) as e:
        return rid, {"failure": f"{type(e).__name__}: {e}"}, None
    counts = {
        "total": outcome.total,
        "ran": outcome.ran,
        "skipped": outcome.skipped,
        "resumable": getattr(outcome, "resumable", True),
    }
    return rid, {"comp": comp, "outcome": counts, "seconds": time.monotonic() - t1}, None


def _build_reports(folders: Sequence[Path], jobs: int | None, echo: Callable[[str], Any]) -> None:
    """Each reproduction's report (``report.html`` and its plots), several reports at a time in a
    pool of ``jobs`` processes (default: every CPU), each drawing its own plots in turn."""
    from accelbrake.experiments.report import build_report, plot_pool_context

    n = min(jobs or os.cpu_count() or 1, len(folders))
    t0 = time.monotonic()
    if n <= 1:
        for f in folders:
            build_report(f, jobs=1)
    else:
        import concurrent.futures as cf

        with cf.ProcessPoolExecutor(max_workers=n, mp_context=plot_pool_context()) as pool:
            for fut in [pool.submit(build_report, f, jobs=1) for f in folders]:
                fut.result()
    echo(f"reports: {len(folders)} drawn in {time.monotonic() - t0:.1f} s")


_ROW_COLUMNS = (
    "scheme",
    "metric",
    "ours",
    "ours_text",
    "seed_std",
    "seed_ci_low",
    "seed_ci_high",
    "runs",
    "published",
    "published_text",
    "ratio",
    "tolerance_text",
    "verdict",
    "qualifier",
    "emulated",
    "emulated_ratio",
    "emulated_verdict",
    "note",
)


def _write_tables(
    out: Path,
    verdicts: list[dict[str, Any]],
    comps: dict[str, dict[str, Any]],
    folders: dict[str, str],
    quick: bool,
    wall: float,
    summary: dict[str, str],
) -> None:
    import pandas as pd

    with atomic_path(out / "verdicts.csv") as tmp:
        pd.DataFrame(
            verdicts,
            columns=[
                "paper",
                "key",
                "where",
                "claim",
                "id",
                "verdict",
                "detail",
                "reason",
                "edge",
                "status",
                "cause",
                "evidence",
            ],
        ).to_csv(tmp, index=False)
    rows = [
        {"id": rid, "paper": paper_of(rid), **{k: r.get(k) for k in _ROW_COLUMNS}}
        for rid, comp in comps.items()
        for r in comp["rows"]
    ]
    with atomic_path(out / "rows.csv") as tmp:
        pd.DataFrame(rows, columns=["id", "paper", *_ROW_COLUMNS]).to_csv(tmp, index=False)
    atomic_write_json(
        out / "verdicts.json",
        {
            "quick": quick,
            "wall_s": round(wall, 1),
            "summary": summary,
            "verdicts": verdicts,
            "reproductions": {
                rid: {
                    "folder": folders[rid],
                    "title": c["title"],
                    "source": c["source"],
                    "summary": c["summary"],
                }
                for rid, c in comps.items()
            },
        },
    )


# ---------------------------------------------------------------------------------------------
# The index page

#: Plot stems preferred as an entry's picture, best first (the report's summary plots).
_PLOT_ORDER = ("frontier", "tradeoff", "summary", "per-trace", "fairness", "scatter")

_QUICK_NOTE = "<b>--quick</b>: shortened runs and trace subsets, a first look, not the reproduction. "

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;width:100%;font-size:.9em}td,th{border:1px solid #ddd;padding:.3em .5em;
vertical-align:top;text-align:left}th{background:#f4f4f4}
.v{font-weight:600;white-space:nowrap}.reproduced{color:#1a7f37}.differs{color:#b35900}
.not-implemented,.not-compared,.no-data{color:#666}.failed{color:#c00}
img{max-width:300px;height:auto}small{color:#555}ul.rows{margin:0;padding-left:1.1em}
td:nth-child(1){width:9%}td:nth-child(2){width:20%}td:nth-child(3){width:11%}td:nth-child(4){width:38%}
"""


#: The report's first figure of a section (``<figure id="fig-STEM">`` after ``<h2 id="SECTION">``).
_FIGURE_RE = r'<figure id="fig-([^"]+)">'


def _plot_for(out: Path, folder: str, section: str = "tradeoff") -> str | None:
    """The plot that stands for the reproduction in ``folder`` on the index: the first figure of
    its report's ``section`` (:func:`accelbrake.experiments.reproduce.main_plot`), else the first
    of :data:`_PLOT_ORDER` that exists, else any."""
    import re

    plots = sorted((out / folder / "plots").glob("*.png")) if (out / folder / "plots").is_dir() else []
    if not plots:
        plots = sorted((out / folder).glob("*.png"))
    if not plots:
        return None
    report = out / folder / "report.html"
    if report.is_file():
        page = report.read_text(encoding="utf-8")
        start = page.find(f'<h2 id="{section}">')
        if start >= 0:
            m = re.search(_FIGURE_RE, page[start:])
            png = out / folder / "plots" / f"{m.group(1)}.png" if m else None
            if png is not None and png.is_file():
                return png.relative_to(out).as_posix()
    for stem in _PLOT_ORDER:
        for p in plots:
            if stem in p.stem:
                return p.relative_to(out).as_posix()
    return plots[0].relative_to(out).as_posix()


def _rows_html(entry: Result, comp: dict[str, Any]) -> str:
    rows = _selected(entry, comp["rows"])
    items = []
    for r in rows[:14]:
        v = r.get("verdict", "")
        items.append(
            f"<li>{html.escape(str(r.get('scheme', '')))}: {html.escape(str(r.get('metric', '')))}: "
            f"ours <b>{html.escape(str(r.get('ours_text', '')))}</b>"
            + (f" <small>{html.escape(str(r['spread_text']))}</small>" if r.get("spread_text") else "")
            + ", paper "
            f"{html.escape(str(r.get('published_text', ''))[:90])} "
            f"<span class='v {v.replace(' ', '-')}'>{html.escape(v)}</span></li>"
        )
    more = f"<li>… {len(rows) - 14} more rows in rows.csv</li>" if len(rows) > 14 else ""
    return f"<ul class='rows'>{''.join(items)}{more}</ul>"


def write_index(
    out: Path,
    verdicts: list[dict[str, Any]],
    comps: dict[str, dict[str, Any]],
    folders: dict[str, str],
    *,
    quick: bool,
    wall_s: float,
    summary: dict[str, str],
) -> Path:
    """``out/index.html``: per paper, per catalogue entry: claim, our plot (the reproduction's main
    plot), our numbers, verdict."""
    e = html.escape
    by_key = {r.key: r for r in RESULTS}
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>accelbrake: reproductions</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>accelbrake reproduce all: every published result, figure by figure</h1>",
        f"<p>{_QUICK_NOTE if quick else ''}"
        f"{len(comps)} reproductions; this invocation took {wall_s:.0f} s (runs finished before are read "
        "back, not rerun). Machine-readable: "
        "<a href='verdicts.csv'>verdicts.csv</a> (one row per published result), "
        "<a href='rows.csv'>rows.csv</a> (every compared number). Verdicts: reproduced = every number "
        f"within its tolerance (±{100 * V.DEFAULT_TOLERANCE:g} % unless stated) or range and every "
        "claim's direction holds; differs = at least one does not.</p>",
    ]
    for p, line in summary.items():
        parts.append(f"<h2 id='{e(p)}'>{e(CITATIONS[p])}</h2><p><b>{e(SHORT[p])}: {e(line)}</b></p>")
        parts.append(
            "<table><tr><th>where</th><th>the paper's claim</th><th>verdict</th><th>our numbers</th>"
            "<th>our plot</th></tr>"
        )
        for v in (x for x in verdicts if x["paper"] == p):
            entry = by_key[v["key"]]
            cls = v["verdict"].replace(" ", "-")
            rid = v["id"]
            if rid in comps:
                folder = folders[rid]
                link = (
                    f"<a href='{e(folder)}/report.html'>{e(rid)}</a>"
                    if (out / folder / "report.html").is_file()
                    else e(rid)
                )
                numbers = f"<small>{link}: {e(comps[rid]['summary'])}</small>{_rows_html(entry, comps[rid])}"
                plot = _plot_for(out, folder, reproduction(rid).main_plot)
                img = f"<a href='{e(plot)}'><img src='{e(plot)}' alt='{e(rid)}'></a>" if plot else ""
            else:
                numbers = e(v["reason"]) if v["reason"] else ""
                img = ""
            detail = f"<br><small>{e(v['detail'])}</small>" if v["detail"] else ""
            if v.get("status"):
                ev = f" ({e(v['evidence'])})" if v.get("evidence") else ""
                detail += f"<br><small><b>{e(v['status'])}</b>: {e(v['cause'])}{ev}</small>"
            parts.append(
                f"<tr id='{e(v['key'])}'><td>{e(v['where'])}</td><td>{e(v['claim'])}</td>"
                f"<td class='v {cls}'>{e(v['verdict'])}{detail}</td><td>{numbers}</td><td>{img}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    path = out / "index.html"
    with atomic_path(path) as tmp:
        Path(tmp).write_text("\n".join(parts), encoding="utf-8")
    return path


def format_verdicts(verdicts: Sequence[dict[str, Any]], summary: dict[str, str]) -> str:
    """The console's closing table: one line per catalogue entry, then one summary line per paper."""
    from accelbrake.tables import render_table

    rows = [
        [v["key"], v["where"], v["id"] or "-", v["verdict"], v["detail"] or v["reason"][:70]]
        for v in verdicts
    ]
    lines = [render_table([("result", ""), ("where", ""), ("id", ""), ("verdict", ""), ("detail", "")], rows)]
    lines.append("")
    lines.extend(f"{SHORT[p]}: {line}" for p, line in summary.items())
    return "\n".join(lines)


def read_verdicts(out_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``verdicts.json`` a run of :func:`run_all` wrote."""
    return json.loads((Path(out_dir) / "verdicts.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# The docs' page of verdicts (docs/reproductions.md, generated by `make results`)

#: Columns of the docs dataset (docs/data/reproduce-all.csv): one row per catalogue entry.
DOC_COLUMNS = (
    "key",
    "paper",
    "where",
    "id",
    "verdict",
    "detail",
    "reason",
    "numbers",
    "status",
    "cause",
    "evidence",
)


def verdict_rows(
    out_dir: str | os.PathLike[str], ids: Sequence[str], *, jobs: int | None = None
) -> list[dict[str, Any]]:
    """Run ``ids`` in full (no HTML reports) into ``out_dir`` and return the verdict rows of the
    catalogue entries they judge; with every id, every entry (those no id judges included). Each row
    also has ``numbers``: its reproduction's "N of M reproduced" line."""
    from accelbrake.experiments.executors import LocalExecutor

    res = run_all(
        out_dir, quick=False, ids=list(ids), executor=LocalExecutor(jobs), progress=False, report=False
    )
    every = set(ids) >= set(TITLES)
    rows = []
    for v in res["verdicts"]:
        if v["id"] in ids or (every and v["id"] not in TITLES):
            comp = res["comparisons"].get(v["id"])
            rows.append(
                {**{k: v.get(k, "") for k in DOC_COLUMNS}, "numbers": comp["summary"] if comp else ""}
            )
    return rows


def render_markdown(d: Any) -> str:
    """The verdict tables of docs/reproductions.md from the dataset (one row per catalogue entry)."""
    by_key = {r.key: r for r in RESULTS}
    out = []
    for p in BY_KEY:
        rows = d[d["paper"] == p]
        if not len(rows):
            continue
        out.append(f"### {CITATIONS[p]}")
        out.append("")
        out.append(f"**{SHORT[p]}: {paper_summary(rows.to_dict('records'))}**")
        out.append("")
        out.append("| where | the paper's claim | id | verdict | detail |")
        out.append("|---|---|---|---|---|")
        for r in rows.itertuples():
            detail = r.detail if isinstance(r.detail, str) and r.detail else r.reason
            detail = detail if isinstance(detail, str) else ""
            rid = f"`{r.id}`" if isinstance(r.id, str) and r.id else "-"
            entry = by_key.get(r.key)
            claim = ""
            if entry is not None:
                nums = BY_KEY[entry.paper].numbers(entry)
                claim = entry.claim + (f" ({nums})" if nums else "")
            status = getattr(r, "status", "")
            if r.verdict == V.DIFFERS and isinstance(status, str) and status:
                cause = r.cause if isinstance(r.cause, str) else ""
                ev = r.evidence if isinstance(r.evidence, str) and r.evidence else ""
                detail += f"; {status}: {cause}" + (f" ({ev})" if ev else "")
            out.append(f"| {r.where} | {claim} | {rid} | {r.verdict} | {detail} |".replace("\n", " "))
        out.append("")
    return "\n".join(out)


def render_summary(d: Any) -> str:
    """The README's lines: per paper, "N of M results reproduced, K differ, J not implemented"."""
    lines = []
    for p in BY_KEY:
        rows = d[d["paper"] == p]
        if len(rows):
            lines.append(f"- {SHORT[p]}: {paper_summary(rows.to_dict('records'))}")
    return "\n".join(lines)
