"""Run an experiment's matrix, resumably, and write its tables.

Layout of a results folder (every file written atomically)::

    OUT/runs/<run_id>.json            one finished run: point, scenario, summary, delay quantiles,
                                      metadata (version, git commit, host, seed); written last, so
                                      its presence means the run is complete (indented, or on one
                                      line when the summary exceeds 1 MB: thousands of flows)
    OUT/runs/<run_id>.flows.parquet   per-flow time series (throughput, cwnd, RTT, binned delay)
    OUT/runs/<run_id>.hops.parquet    per-hop time series (capacity, throughput, queue)
    OUT/results.parquet               the tidy table: one row per run × flow
    OUT/results.csv                   the same table as CSV, only when asked (``csv=True``,
                                      ``--csv``); removed otherwise, so that it never lags behind
    OUT/timeseries.parquet            every run's flow time series, with run_id and the point
    OUT/metadata.json                 experiment, versions, git commit, machine, executor, runs

``run_id`` is a hash of the scenario (which holds the seed), with trace files identified by their
content, the accelbrake version and the compiled simulator: rerunning a sweep skips every run whose
file exists, and a changed trace, parameter or simulator build makes a new run.

:func:`run_scenarios` is the same machinery for front ends that build their own scenarios
(``accelbrake compare``, the ABE sweep): a list of :class:`Task` and a ``kind`` of result (the
core's summary, or the summary and bottleneck delay quantiles) instead of an :class:`Experiment`.
Its run files are ``OUT/runs/<run_id>.json`` holding the result (``run_id`` also hashes the kind);
without an output folder it keeps the results in memory and writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelbrake import __version__
from accelbrake._io import (
    TEMP_PREFIX,
    BackgroundSync,
    _finite,
    atomic_path,
    atomic_write_bytes,
    atomic_write_json,
    canonical_json,
    dumps_compact,
    json_bytes,
    json_fragment,
    loads,
)
from accelbrake.experiments.executors import Executor, LocalExecutor
from accelbrake.experiments.spec import Experiment, ExperimentError, RunPoint

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RUN_COLUMNS",
    "SweepOutcome",
    "Task",
    "TasksOutcome",
    "load_results",
    "run_id",
    "run_scenarios",
    "run_sweep",
]

#: Columns describing the run in ``results`` (then the per-flow columns, then the run-level ones).
RUN_COLUMNS = (
    "run_id",
    "scheme",
    "label",
    "cc",
    "queue",
    "trace",
    "delay_ms",
    "buffer_packets",
    "flows",
    "start_interval_s",
    "flow_rtts_ms",
    "seed",
    "duration_s",
)

_DIGESTS: dict[tuple[str, float, int], str] = {}


def _file_digest(path: str) -> str:
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime, st.st_size)
    if key not in _DIGESTS:
        _DIGESTS[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return _DIGESTS[key]


def core_digest() -> str:
    """SHA-256 of the compiled simulator (the ``_core`` extension file): a rebuilt simulator gives
    new run keys, so a sweep never reuses results of an older core with the same version number."""
    from accelbrake import _core

    path = getattr(_core, "__file__", None)
    return _file_digest(path) if path and os.path.isfile(path) else __version__


def run_id(scenario: Mapping[str, Any], kind: str = "point") -> str:
    """The run's key: 16 hex digits of a SHA-256 over the scenario (trace paths replaced by their
    files' SHA-256, so moving the traces keeps the key), the accelbrake version and the compiled
    simulator's digest (:func:`core_digest`), and the kind of result unless it is a sweep's
    ``point`` (whose keys predate kinds). The scenario is not modified."""
    canon = dict(scenario)
    if isinstance(canon.get("hops"), list):
        canon["hops"] = [_hop_for_key(h) for h in canon["hops"]]
    doc = {"scenario": canon, "version": __version__, "core": core_digest()}
    if kind != "point":
        doc["kind"] = kind
    return hashlib.sha256(canonical_json(doc)).hexdigest()[:16]


def _hop_for_key(hop: Any) -> Any:
    """``hop`` with a trace link's path replaced by ``sha256:<digest of the file>`` (copied, not
    modified; other hops as they are)."""
    link = hop.get("link") if isinstance(hop, Mapping) else None
    if not isinstance(link, Mapping) or link.get("type") != "trace" or not isinstance(link.get("path"), str):
        return hop
    return {**hop, "link": {**link, "path": "sha256:" + _file_digest(link["path"])}}


def planned(exp: Experiment, p: RunPoint) -> tuple[dict[str, Any], str]:
    """The run's scenario and run id (:func:`run_id`), each built once per experiment (abc-fig13's
    scenarios have ~4 750 flows each: building one and hashing it cost as much as simulating it,
    and the check, the sweep and the report each did it). The scenario is shared: do not modify it
    (``exp.scenario(p)`` builds a fresh one)."""
    sc, rid = exp._planned.get(p) or (exp.scenario(p), None)
    if rid is None:
        rid = run_id(sc)
        exp._planned[p] = (sc, rid)
    return sc, rid


@dataclass
class SweepOutcome:
    """What :func:`run_sweep` did."""

    out_dir: Path
    total: int
    """Runs in the matrix (distinct scenarios)."""
    skipped: int
    """Runs already finished in ``out_dir``, not run again."""
    ran: int
    """Runs executed now."""
    wall_s: float
    complete: bool
    """Every run finished (the tables were written)."""
    results: pd.DataFrame | None = None
    executed: list[str] = field(default_factory=list)
    """run_ids executed now, in completion order."""
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    """Runs that failed now: ``(run_id, description, reason)``; also in ``OUT/failures.json``."""

    @property
    def missing(self) -> int:
        return self.total - self.skipped - self.ran

    def failures_text(self) -> str:
        """The failed runs, one per line, and how to retry them ('' when none failed)."""
        if not self.failed:
            return ""
        lines = [f"{len(self.failed)} run{'s' * (len(self.failed) != 1)} failed:"]
        lines += [f"  {d}: {why}" for _rid, d, why in self.failed]
        lines.append(
            f"(listed in {self.out_dir / FAILURES_NAME}; the other runs are kept: run the same command "
            "again to retry only the failed ones)"
        )
        return "\n".join(lines)


def machine() -> dict[str, Any]:
    """The machine the driver runs on."""
    return {
        "host": platform.node(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }


def _runs_dir(out: Path) -> Path:
    return out / "runs"


#: Keys a finished run's JSON must hold.
_RUN_KEYS = ("run_id", "point", "scenario", "summary", "delay_quantiles_ms")


def _parquet_ok(path: Path) -> bool:
    """Whether ``path`` looks like a whole Parquet file: the magic ``PAR1`` at both ends (a file
    cut short by a full disk or a crash lacks the footer)."""
    try:
        size = path.stat().st_size
        if size < 12:
            return False
        with path.open("rb") as f:
            head = f.read(4)
            f.seek(size - 4)
            tail = f.read(4)
    except OSError:
        return False
    return head == b"PAR1" and tail == b"PAR1"


#: A finished run's index file, ``runs/<run_id>.done`` (JSON, written after its document): the
#: document's size and SHA-256, and the small facts the report needs (``warnings``,
#: ``delay_quantiles_ms``), so that resuming a sweep neither parses every run's document (for
#: abc-fig13, 50 documents of 3-11 MB: most of a resumed sweep's time) to know it is whole nor to
#: draw the report. Folders written before it existed fall back to parsing the documents.
FACTS_SUFFIX = ".done"  # not .json: runs/*.json are the run documents


def _facts_path(out: Path, rid: str) -> Path:
    return _runs_dir(out) / f"{rid}{FACTS_SUFFIX}"


def _write_facts(
    out: Path,
    rid: str,
    doc: Mapping[str, Any],
    digest: Any = None,
    *,
    data: bytes | None = None,
    sync: BackgroundSync | None = None,
) -> None:
    """Write the run's index file for its document just written (see :data:`FACTS_SUFFIX`), with
    the sweep's ``digest`` of it if any (tagged with :func:`code_digest`). ``data``: the document's
    bytes as written (else read from the file); ``sync`` as for :func:`atomic_path`."""
    if data is None:
        data = (_runs_dir(out) / f"{rid}.json").read_bytes()
    facts = {
        "run_id": rid,
        "json_bytes": len(data),
        "json_sha256": hashlib.sha256(data).hexdigest(),
        "warnings": (doc.get("summary") or {}).get("warnings") or [],
        "delay_quantiles_ms": doc.get("delay_quantiles_ms"),
    }
    if digest is not None:
        # As Python's JSON text inside the index: it keeps NaN (a mean of no values), which the
        # standard JSON of the index would turn into null.
        facts["digest_json"] = json.dumps(digest)
        facts["digest_code"] = code_digest()
    atomic_write_json(_facts_path(out, rid), facts, indent=None, sync=sync)


_CODE_DIGEST: list[str] = []


def code_digest() -> str:
    """SHA-256 of accelbrake's Python sources (every ``.py`` file of the package, by path): a
    digest stored in a run's index is used only by the code that computed it (any change to the
    Python code, e.g. of a comparison, makes the comparison parse the run documents again)."""
    if not _CODE_DIGEST:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for f in sorted(root.rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
        _CODE_DIGEST.append(h.hexdigest())
    return _CODE_DIGEST[0]


def stored_digest(out: Path, rid: str) -> Any:
    """The sweep's digest of run ``rid`` in ``out`` (see :func:`run_sweep`): from memory when this
    process ran it, else from the run's index when that matches the run's document and was written
    by this very code (:func:`code_digest`); ``None`` otherwise (compute it from the document)."""
    d = memo_fact(out, rid, "digest")
    if d is not None:
        return d
    facts = _read_facts(out, rid, verify=False)
    if facts is not None and facts.get("digest_code") == code_digest() and "digest_json" in facts:
        return json.loads(facts["digest_json"])
    return None


def _read_facts(out: Path, rid: str, *, verify: bool) -> dict[str, Any] | None:
    """The run's index file when it belongs to its current document (same run id and size; with
    ``verify``, also the same SHA-256, i.e. the very bytes that were written whole), else ``None``."""
    try:
        facts = loads(_facts_path(out, rid).read_bytes())
        path = _runs_dir(out) / f"{rid}.json"
        if not isinstance(facts, dict) or facts.get("run_id") != rid:
            return None
        if verify:
            data = path.read_bytes()
            if len(data) != facts.get("json_bytes") or hashlib.sha256(data).hexdigest() != facts.get(
                "json_sha256"
            ):
                return None
        elif path.stat().st_size != facts.get("json_bytes"):
            return None
    except (OSError, ValueError):
        return None
    return facts


def _is_done(out: Path, rid: str) -> bool:
    """Whether the run is stored whole: its JSON (written last) parses, is a run's document for
    this run id, and both time-series files are complete Parquet files. A run that fails any of
    these is run again (its files are overwritten). When the run's index file (:data:`FACTS_SUFFIX`)
    holds the document's SHA-256, matching it stands for parsing: the document is byte for byte the
    one written whole (from a run's document with every key) after its Parquet files."""
    runs = _runs_dir(out)
    if _read_facts(out, rid, verify=True) is not None:
        return _parquet_ok(runs / f"{rid}.flows.parquet") and _parquet_ok(runs / f"{rid}.hops.parquet")
    try:
        doc = loads((runs / f"{rid}.json").read_bytes())
    except (OSError, ValueError):
        return False
    if not isinstance(doc, dict) or doc.get("run_id") != rid or any(k not in doc for k in _RUN_KEYS):
        return False
    if not isinstance(doc["summary"], dict) or not isinstance(doc["scenario"], dict):
        return False
    return _parquet_ok(runs / f"{rid}.flows.parquet") and _parquet_ok(runs / f"{rid}.hops.parquet")


#: Small facts of the runs the last sweep executed in this process (its folder → run id →
#: ``warnings``, ``delay_quantiles_ms``), as stored in their run files: the report takes them from
#: here instead of parsing each run's file again (megabytes for runs with thousands of flows).
#: Holds the last sweep's runs only; :func:`run_fact` falls back to the file.
RUN_FACTS: dict[str, dict[str, dict[str, Any]]] = {}


def memo_fact(out: Path, rid: str, key: str) -> Any:
    """``key`` of :data:`RUN_FACTS` for run ``rid`` in ``out`` (e.g. ``digest``, see
    :func:`run_sweep`), or ``None`` when this process did not run it in the last sweep."""
    return RUN_FACTS.get(str(out.resolve()), {}).get(rid, {}).get(key)


def run_fact(out: Path, rid: str, key: str) -> Any:
    """``key`` (``warnings`` or ``delay_quantiles_ms``) of the finished run ``rid`` in ``out``: from
    :data:`RUN_FACTS` when this process ran it, else from its run file (``warnings`` is the
    summary's). ``None`` when the run file is missing."""
    fact = RUN_FACTS.get(str(out.resolve()), {}).get(rid)
    if fact is not None and key in fact:
        return fact[key]
    fact = _read_facts(out, rid, verify=False)
    if fact is not None and key in fact:
        return fact[key]
    path = _runs_dir(out) / f"{rid}.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text(encoding="utf-8"))
    if key == "warnings":
        return (doc.get("summary") or {}).get("warnings") or []
    return doc.get(key)


def _write_run(
    out: Path,
    rid: str,
    point: RunPoint,
    scenario: dict[str, Any],
    payload: dict[str, Any],
    executor: str,
    commit: str | None,
    sync: BackgroundSync | None = None,
) -> tuple[dict[str, Any], Any, bytes]:
    """Write one run's files; the JSON goes last and marks the run as finished. Returns what
    :func:`write_tables` needs of the run, so that it need not read the files back: the run's
    document as written but for its summary, which is the summary's top level without ``flows``,
    the flows' figures being in ``flow_columns`` (:func:`accelbrake.results.flow_columns`), its
    flow time series as a ``pyarrow.Table`` (the table written to ``<run_id>.flows.parquet``) and
    the document's bytes as written. ``sync`` as for :func:`atomic_path`."""
    import pandas as pd

    from accelbrake.results import arrow_table

    runs = _runs_dir(out)
    # Straight from the core's buffers to Parquet (no DataFrame in between: a third of the main
    # process's time during a sweep went to pandas' conversion).
    flows = arrow_table("flows_ts", payload["flows_ts"])
    _write_arrow(runs / f"{rid}.flows.parquet", flows, sync)
    _write_arrow(runs / f"{rid}.hops.parquet", arrow_table("hops_ts", payload["hops_ts"]), sync)
    text = payload["summary"]
    head, columns = payload.get("summary_head"), payload.get("flow_columns")
    if head is None or columns is None:  # a worker of an older accelbrake
        from accelbrake._worker import split_summary

        head, columns = split_summary(text)
    doc = {
        "run_id": rid,
        "point": point.labels(),
        "seed": point.seed,
        "scenario": scenario,
        "summary": None,  # filled below
        "delay_quantiles_ms": payload["delay_quantiles_ms"],
        "metadata": {
            "accelbrake_version": __version__,
            "git_commit": commit,
            "executor": executor,
            "host": payload.get("host"),
            "wall_s": round(float(payload.get("wall_s", 0.0)), 4),
            "pandas": pd.__version__,
            "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
    }
    # Indented for reading, except a summary of more than 1 MB (thousands of flows: abc-fig13's are
    # 3-11 MB), which Python's pure-Python indenting encoder took 0.3-0.5 s of the main process to
    # write, twice the time the core took to simulate the run. That one is written as the core's
    # text (valid JSON, no NaN) as it came, neither parsed nor encoded again here.
    if len(text) > COMPACT_SUMMARY_CHARS:
        data = json_bytes({**doc, "summary": json_fragment(text)}, indent=None)
    else:
        data = json_bytes({**doc, "summary": loads(text)}, indent=2)
    atomic_write_bytes(runs / f"{rid}.json", data, sync=sync)
    # What the sweep needs of the summary: the run's figures and, by column, the flows' (the
    # worker parsed it, see accelbrake._worker.split_summary).
    doc["summary"] = head
    doc["flow_columns"] = columns
    return doc, flows, data


#: Run documents whose summary (the core's JSON text) is longer than this are written on one line.
COMPACT_SUMMARY_CHARS = 1_000_000


def _write_arrow(path: Path, table: Any, sync: BackgroundSync | None = None) -> None:
    """``table`` (a ``pyarrow.Table``) to ``path`` as Parquet, atomically (``sync`` as for
    :func:`atomic_path`)."""
    import pyarrow.parquet as pq

    with atomic_path(path, sync=sync) as tmp:
        pq.write_table(table, tmp)


def _remove_leftovers(out: Path) -> None:
    """Delete temporary files a killed sweep left in ``runs/`` (never a finished run's files). Only
    called under the folder's lock, so no other sweep is writing there."""
    for f in _runs_dir(out).glob(TEMP_PREFIX + "*"):
        f.unlink(missing_ok=True)


#: Lock file of an output folder: a sweep holds an exclusive ``flock`` on it while it writes.
LOCK_NAME = ".sweep.lock"


@contextlib.contextmanager
def _folder_lock(out: Path) -> Iterator[None]:
    """Hold the output folder's lock for the sweep; fail at once if another sweep holds it. The
    kernel drops the lock when the holder exits, even on SIGKILL, so a killed sweep never blocks
    its resumption. Without ``fcntl`` (Windows) there is no lock."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ExperimentError(
                f"{out}: another sweep is writing to this folder (it holds {out / LOCK_NAME}); "
                "wait for it to finish or choose another --out",
                key="out",
            ) from None
        yield
    finally:
        os.close(fd)


def run_sweep(
    exp: Experiment,
    out_dir: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    progress: bool = True,
    limit: int | None = None,
    echo: Callable[[str], Any] | None = None,
    on_run: Callable[[str, dict[str, Any]], Any] | None = None,
    digest: Callable[[dict[str, Any]], Any] | None = None,
    csv: bool = False,
    on_results: Callable[[pd.DataFrame], Any] | None = None,
) -> SweepOutcome:
    """Run every run of ``exp`` not yet finished in ``out_dir``, then write the tables.

    The tables are Parquet; ``csv`` also writes ``results.csv`` (a stale one from an earlier sweep
    into the same folder is removed when ``csv`` is false).

    ``digest(run_document)``, for each run executed now, is kept in :data:`RUN_FACTS` (read it with
    :func:`memo_fact`): what a comparison needs of a run whose document is too large to parse again.

    ``on_run(run_id, run_document)`` is called after each run executed now has its files written
    (the report starts drawing that run's plot then). ``on_results(results)`` is called with the
    results table as soon as it is assembled, before the tables are written (the report starts its
    summary plots then); not when the tables of an earlier sweep are kept as they are.

    ``limit`` runs at most that many of the missing runs (then the tables are not written and
    ``complete`` is false; run again to finish). Each finished run is written as soon as it
    arrives, so an interrupted sweep (Ctrl-C, a killed process) loses only the runs in flight. A
    run that fails (its error, or its worker dying, e.g. out of memory) is listed in
    :attr:`SweepOutcome.failed` and ``OUT/failures.json`` while the others go on; the tables are
    then not written, and running the sweep again retries only the failed runs. Raises
    :class:`~accelbrake.experiments.spec.ExperimentError` if another sweep is writing to
    ``out_dir`` (the folder is locked for the duration of a sweep).
    """
    out = Path(out_dir)
    with _folder_lock(out):
        return _run_sweep_locked(
            exp, out, executor or LocalExecutor(), progress, limit, echo, on_run, digest, csv, on_results
        )


def _run_sweep_locked(
    exp: Experiment,
    out: Path,
    executor: Executor,
    progress: bool,
    limit: int | None,
    echo: Callable[[str], Any] | None,
    on_run: Callable[[str, dict[str, Any]], Any] | None = None,
    digest: Callable[[dict[str, Any]], Any] | None = None,
    csv: bool = False,
    on_results: Callable[[pd.DataFrame], Any] | None = None,
) -> SweepOutcome:
    from accelbrake.results import git_commit

    t0 = time.monotonic()
    plan: dict[str, tuple[RunPoint, dict[str, Any]]] = {}
    order: list[tuple[str, RunPoint]] = []
    for p in exp.points():
        sc, rid = planned(exp, p)
        plan.setdefault(rid, (p, sc))
        order.append((rid, p))
    todo = [rid for rid in plan if not _is_done(out, rid)]
    skipped = len(plan) - len(todo)
    todo_set = set(todo)
    if limit is not None:
        todo = todo[: max(0, limit)]
    _runs_dir(out).mkdir(parents=True, exist_ok=True)
    _remove_leftovers(out)
    commit = git_commit()
    executed: list[str] = []
    # What the tables need of each run executed now, kept from its payload so that write_tables
    # does not read back the files just written (that was most of the time between the last run
    # and the report): the run's result rows and its flow time series, which the tables hold
    # anyway (not the run's document: a run with thousands of flows has a summary of megabytes).
    fresh: dict[str, tuple[dict[int, RowBlock], Any]] = {}
    # A run shared by matrix schemes whose scenarios coincide has rows for each (see run_level).
    positions: dict[str, list[int]] = {}
    for i, (rid, _p) in enumerate(order):
        positions.setdefault(rid, []).append(i)
    facts: dict[str, dict[str, Any]] = {}
    RUN_FACTS.clear()  # the last sweep's only: memory stays bounded by one sweep's runs
    RUN_FACTS[str(out.resolve())] = facts
    if echo:
        echo(
            f"{exp.name}: {len(plan)} runs ({skipped} already done in {out}), running {len(todo)} on "
            f"{executor.describe()}"
        )

    def on_result(rid: str, payload: dict[str, Any]) -> None:
        p, sc = plan[rid]
        doc, flows, data = _write_run(out, rid, p, sc, payload, executor.name, commit, syncer)
        fresh[rid] = ({i: _run_rows(exp, rid, order[i][1], doc) for i in positions[rid]}, flows)
        facts[rid] = {
            "warnings": (doc["summary"] or {}).get("warnings") or [],
            "delay_quantiles_ms": doc["delay_quantiles_ms"],
        }
        if digest is not None:
            facts[rid]["digest"] = payload["digest"] if "digest" in payload else digest(doc)
        _write_facts(out, rid, doc, facts[rid].get("digest"), data=data, sync=syncer)
        executed.append(rid)
        if on_run is not None:
            on_run(rid, doc)

    failed: list[tuple[str, str, str]] = []

    def on_failure(rid: str, reason: str) -> None:
        failed.append((rid, plan[rid][0].describe(), reason))
        _write_failures(out, failed)

    # The run files are synced to disk in the background (BackgroundSync); all of them are by
    # the time the runs are over, before the tables are written.
    with BackgroundSync() as syncer:
        _execute(
            executor,
            [(rid, dumps_compact(plan[rid][1])) for rid in todo],
            on_result,
            lambda rid: plan[rid][0].describe(),
            kind=_point_kind(digest),
            desc=exp.name,
            progress=progress,
            on_failure=on_failure,
        )
    if not failed:
        (out / FAILURES_NAME).unlink(missing_ok=True)
    # Done before (checked above) or written now: no need to parse every run's document again (for
    # abc-fig13, 50 documents of 3-11 MB). The folder is locked, so nothing else changed them since.
    written = set(executed)
    complete = all(rid in written or rid not in todo_set for rid in plan)
    # The scenarios are not needed any more: free them before the tables are assembled (where the
    # peak memory is); a later sweep of the same experiment builds them again.
    total = len(plan)
    plan.clear()
    exp._planned.clear()
    outcome = SweepOutcome(
        out, total, skipped, len(executed), time.monotonic() - t0, complete, None, executed, failed
    )
    reused = _current_tables(exp, out, order, csv) if complete and not executed else None
    if reused is not None:
        # Nothing ran and the tables are this matrix's: keep them as they are (nothing recomputed).
        outcome.results = reused
    elif complete:
        outcome.results = write_tables(
            exp,
            out,
            order,
            executor=executor,
            commit=commit,
            wall_s=outcome.wall_s,
            stats={"total": total, "skipped": skipped, "ran": len(executed)},
            loaded=fresh,
            csv=csv,
            on_results=on_results,
        )
    return outcome


def _point_kind(digest: Callable[[dict[str, Any]], Any] | None) -> str:
    """The workers' task kind of a sweep's runs: with the sweep's ``digest`` a module-level function,
    computed by the workers (``point+digest=module:function``, see ``accelbrake._worker``) while
    the sweep's process handles other runs; else plain ``point`` (a digest is then computed here)."""
    import importlib

    from accelbrake._worker import DIGEST_KIND

    if digest is None:
        return "point"
    module, name = getattr(digest, "__module__", None), getattr(digest, "__qualname__", "")
    try:
        found = getattr(importlib.import_module(module), name, None) if module and "." not in name else None
    except ImportError:
        found = None
    return f"{DIGEST_KIND}{module}:{name}" if found is digest else "point"


#: A sweep's failed runs of its last attempt (run id, description, reason), if any.
FAILURES_NAME = "failures.json"


def _write_failures(out: Path, failed: Sequence[tuple[str, str, str]]) -> None:
    atomic_write_json(
        out / FAILURES_NAME,
        {
            "failed_runs": [{"run_id": r, "run": d, "reason": why} for r, d, why in failed],
            "note": "these runs have no files in runs/; running the sweep again retries only them",
        },
    )


def _execute(
    executor: Executor,
    tasks: Sequence[tuple[str, str]],
    on_result: Callable[[str, Any], None],
    describe: Callable[[str], str],
    *,
    kind: str,
    desc: str,
    progress: bool,
    on_failure: Callable[[str, str], None] | None = None,
) -> None:
    """Run ``(run_id, scenario_json)`` tasks on ``executor`` with a progress bar on stderr, handing
    each result to ``on_result`` as it arrives."""
    from tqdm import tqdm

    bar = tqdm(
        total=len(tasks),
        desc=desc,
        unit="run",
        file=sys.stderr,
        disable=not progress or not tasks,
        smoothing=0.1,
    )

    def done(rid: str, payload: Any) -> None:
        on_result(rid, payload)
        bar.update()

    failed = None
    if on_failure is not None:

        def failed(rid: str, reason: str) -> None:
            on_failure(rid, reason)
            bar.write(f"run failed: {describe(rid)}: {reason}", file=sys.stderr)
            bar.update()

    try:
        executor.run(tasks, done, describe, kind, failed)
    finally:
        bar.close()


@dataclass(frozen=True)
class Task:
    """One simulation for :func:`run_scenarios`."""

    key: Hashable
    """The front end's name for the run (the key of :attr:`TasksOutcome.results`)."""
    scenario: dict[str, Any]
    describe: str
    """How errors and logs name the run, e.g. ``"cubic on traces/x.up"``."""
    labels: Mapping[str, Any] = field(default_factory=dict)
    """What the run stands for (stored in its run file), e.g. ``{"trace": ..., "scheme": ...}``."""


@dataclass
class TasksOutcome:
    """What :func:`run_scenarios` did."""

    results: dict[Any, Any]
    """Result of every task by its key."""
    run_ids: dict[Any, str]
    out_dir: Path | None
    total: int
    """Distinct runs (tasks with the same scenario run once)."""
    skipped: int
    """Runs already finished in ``out_dir``, read back instead of run."""
    ran: int
    wall_s: float


#: Result kinds :func:`run_scenarios` stores (JSON); a sweep's ``point`` has its own files.
SCENARIO_KINDS = ("summary", "hop_quantiles", "convergence")


def _read_result(out: Path, rid: str, kind: str) -> Any:
    """The stored result of a finished run of ``kind``, or ``None`` (missing or damaged)."""
    try:
        doc = json.loads((_runs_dir(out) / f"{rid}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("kind") != kind or "result" not in doc:
        return None
    return doc["result"]


def run_scenarios(
    tasks: Sequence[Task],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    kind: str = "summary",
    executor: Executor | None = None,
    progress: bool = True,
    desc: str = "simulating",
    echo: Callable[[str], Any] | None = None,
) -> TasksOutcome:
    """Run ``tasks`` on ``executor`` (default: a local process pool) and return their results:
    for ``kind`` ``"summary"`` the core's summary (a dict), for ``"hop_quantiles"``
    ``{"summary": ..., "hop_delay_ms": {"count", "p50", "p90"}}`` (hop 0's data packets).

    With ``out_dir`` the run is resumable as :func:`run_sweep` is: the folder is locked, each
    result is written to ``out_dir/runs/<run_id>.json`` as it arrives, and runs already there are
    read back instead of run. Without it nothing is written. Results read back are the JSON of the
    fresh ones (non-finite floats as ``None``). Raises :class:`~accelbrake.SimulationError` on the
    first failed run.
    """
    if kind not in SCENARIO_KINDS:
        raise ValueError(f"kind '{kind}': expected one of {', '.join(SCENARIO_KINDS)}")
    ex = executor or LocalExecutor()
    if out_dir is None:
        return _run_scenarios(tasks, None, kind, ex, progress, desc, echo)
    out = Path(out_dir)
    with _folder_lock(out):
        return _run_scenarios(tasks, out, kind, ex, progress, desc, echo)


def _run_scenarios(
    tasks: Sequence[Task],
    out: Path | None,
    kind: str,
    executor: Executor,
    progress: bool,
    desc: str,
    echo: Callable[[str], Any] | None,
) -> TasksOutcome:
    t0 = time.monotonic()
    plan: dict[str, Task] = {}
    run_ids: dict[Any, str] = {}
    for t in tasks:
        rid = run_id(t.scenario, kind)
        plan.setdefault(rid, t)
        run_ids[t.key] = rid
    by_rid: dict[str, Any] = {}
    if out is not None:
        for rid in plan:
            res = _read_result(out, rid, kind)
            if res is not None:
                by_rid[rid] = res
        _runs_dir(out).mkdir(parents=True, exist_ok=True)
        _remove_leftovers(out)
    skipped = len(by_rid)
    todo = [rid for rid in plan if rid not in by_rid]
    commit = None
    if out is not None:
        from accelbrake.results import git_commit

        commit = git_commit()
    if echo:
        where = f" ({skipped} already done in {out})" if out is not None else ""
        echo(f"{desc}: {len(plan)} runs{where}, running {len(todo)} on {executor.describe()}")

    def on_result(rid: str, result: Any) -> None:
        by_rid[rid] = result
        if out is not None:
            t = plan[rid]
            doc = {
                "run_id": rid,
                "kind": kind,
                "labels": dict(t.labels),
                "seed": t.scenario.get("seed"),
                "scenario": t.scenario,
                "result": result,
                "metadata": {
                    "accelbrake_version": __version__,
                    "git_commit": commit,
                    "executor": executor.name,
                    "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                },
            }
            atomic_write_json(_runs_dir(out) / f"{rid}.json", doc)

    _execute(
        executor,
        [(rid, dumps_compact(plan[rid].scenario)) for rid in todo],
        on_result,
        lambda rid: plan[rid].describe,
        kind=kind,
        desc=desc,
        progress=progress,
    )
    results = {key: by_rid[rid] for key, rid in run_ids.items()}
    return TasksOutcome(results, run_ids, out, len(plan), skipped, len(todo), time.monotonic() - t0)


#: A run's result rows by column (a list or numpy array per column, equal lengths): what
#: :func:`_run_rows` gives.
RowBlock = dict[str, Any]


def _run_rows(exp: Experiment, rid: str, p: RunPoint, doc: Mapping[str, Any]) -> RowBlock:
    """The results rows of one run, one per flow, by column: from the document's ``flow_columns``
    (as :func:`_write_run` returns it) or else its summary's ``flows`` (as read from the file)."""
    from accelbrake.results import flow_columns

    summary = doc["summary"]
    scenario = doc["scenario"]
    entry = exp.scheme(p.scheme)
    qtype = scenario["hops"][0]["queue"].get("type", "?")
    ppd = summary.get("per_packet_delay_ms") or {}
    qd = summary.get("queueing_delay_ms") or {}

    def num(v: Any) -> float:
        return float("nan") if v is None else float(v)

    run_cols = {
        "run_id": rid,
        "scheme": p.scheme,
        "label": entry.label,
        "cc": str(scenario["flows"][0]["scheme"]),
        "queue": qtype,
        **{k: v for k, v in p.labels().items() if k != "scheme"},
        "duration_s": num(summary.get("duration_s")),
    }
    after = {
        "link_utilization": num(summary.get("utilization")),
        "link_throughput_mbps": num(summary.get("throughput_mbps")),
        "jain_index": num(summary.get("jain_index")),
        "run_per_packet_delay_mean_ms": num(ppd.get("mean")),
        "run_per_packet_delay_p95_ms": num(ppd.get("p95")),
        "run_queueing_delay_p95_ms": num(qd.get("p95")),
    }
    given = doc.get("flow_columns")
    cols = dict(given) if given is not None else flow_columns(summary, summary.get("flows") or [])
    n = len(cols["flow"])
    # One column per name, in the order a row would have them: the run's, the flow's (its own
    # controller, `flow_cc`, last: runs that mix schemes differ from the run-level `cc`), the run's.
    cols["flow_cc"] = cols.pop("scheme")
    block: RowBlock = {k: _repeat(v, n) for k, v in run_cols.items()}
    block.update(cols)
    block.update({k: _repeat(v, n) for k, v in after.items()})
    return block


def _repeat(v: Any, n: int) -> Any:
    """``n`` times ``v``: a numpy array for a float or an int (the dtype pandas infers from such
    values), else a list."""
    import numpy as np

    if type(v) is float:
        return np.full(n, v, dtype=np.float64)
    if type(v) is int and -(2**63) <= v < 2**63:
        return np.full(n, v, dtype=np.int64)
    return [v] * n


def _rows_frame(blocks: Iterable[RowBlock]) -> pd.DataFrame:
    """One table of the blocks' rows, in order: the table ``pd.DataFrame`` would make of their rows
    as dicts (columns in first-seen order, a missing value NaN, the same dtypes) without a dict
    per row."""
    import itertools

    import numpy as np
    import pandas as pd

    nan = float("nan")
    parts: dict[str, list[Any]] = {}
    total = 0
    for block in blocks:
        n = len(next(iter(block.values()), ()))
        if n == 0:
            continue
        for k in block:
            if k not in parts:
                parts[k] = [[nan] * total] if total else []
        for k, ps in parts.items():
            ps.append(block[k] if k in block else [nan] * n)
        total += n

    def joined(ps: list[Any]) -> Any:
        # Arrays of one dtype are joined as they are; anything else as the Python values a row
        # would hold, for pandas to infer the column's dtype from (as it does from rows).
        if ps and all(isinstance(x, np.ndarray) and x.dtype == ps[0].dtype for x in ps):
            return np.concatenate(ps)
        return list(itertools.chain.from_iterable(x.tolist() if isinstance(x, np.ndarray) else x for x in ps))

    return pd.DataFrame(
        {k: _seed_column(joined(ps)) if k == "seed" else joined(ps) for k, ps in parts.items()}
    )


def _seed_column(values: Any) -> Any:
    """Seeds as unsigned 64-bit integers (what the core takes): int64 would overflow at 2^63 and
    a mix of both would become float64, merging seeds 2^53 and 2^53+1."""
    import numpy as np

    return np.asarray(values, dtype=np.uint64)


#: The run's labels each row of ``timeseries.parquet`` starts with (after ``run_id``).
TS_LABELS = ("scheme", "trace", "delay_ms", "buffer_packets", "flows", "seed")


def _timeseries_frame(out: Path, series: Sequence[tuple[Any, dict[str, Any]]]) -> pd.DataFrame:
    """``timeseries.parquet``'s table: each run's flow time series (its Arrow table, or ``None``
    to read it from its file) behind the run's labels (``run_id``, :data:`TS_LABELS`), runs in
    order.

    It is the table that concatenating one pandas frame per run, each given its labels as
    constant columns, makes (and what older versions did, still done when a run's series is read
    back from its file or the runs' tables differ in columns or types); when every run's series
    is in memory with the same schema and every label has the same Python type in every run, it is
    built at once — one Arrow concatenation and conversion, each label column repeated — which
    takes a tenth of the time (0.5 s for abc-table's 135 runs before)."""
    import numpy as np
    import pandas as pd

    if not series:
        return pd.DataFrame()
    tables = [t for t, _ in series]
    keys = list(series[0][1])
    fast = all(t is not None and t.num_rows > 0 for t in tables)
    if fast:
        import pyarrow as pa

        schema = tables[0].schema
        fast = not any(pa.types.is_dictionary(f.type) for f in schema) and all(
            t.schema.equals(schema) for t in tables
        )
    kinds = {k: {type(lab[k]) for _, lab in series} for k in keys}
    fast = fast and all(len(v) == 1 and next(iter(v)) in (str, int, float) for v in kinds.values())
    if fast:
        import pyarrow as pa

        counts = np.array([t.num_rows for t in tables], dtype=np.int64)
        frame = pa.concat_tables(tables).to_pandas()
        for i, k in enumerate(keys):
            vals = [lab[k] for _, lab in series]
            kind = next(iter(kinds[k]))
            if kind is str:
                # The dtype a string label inserted into a frame gets (pandas' default string).
                col: Any = pd.array(
                    np.repeat(np.array(vals, dtype=object), counts), dtype=pd.Series(vals[:1]).dtype
                )
            elif k == "seed":
                col = np.repeat(_seed_column(vals), counts)
            else:
                col = np.repeat(np.array(vals, dtype=np.int64 if kind is int else np.float64), counts)
            frame.insert(i, k, col)
        return frame
    frames = []
    for t, lab in series:
        if t is None:
            f = pd.read_parquet(_runs_dir(out) / f"{lab['run_id']}.flows.parquet")
        else:
            f = t.to_pandas()
        for i, k in enumerate(keys):
            f.insert(i, k, _seed_column([lab[k]] * len(f)) if k == "seed" else lab[k])
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def write_tables(
    exp: Experiment,
    out: Path,
    order: list[tuple[str, RunPoint]],
    *,
    executor: Executor,
    commit: str | None,
    wall_s: float,
    stats: dict[str, int],
    loaded: dict[str, tuple[Mapping[int, RowBlock], Any]] | None = None,
    csv: bool = False,
    on_results: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """Assemble ``results.parquet`` (and ``results.csv`` with ``csv``; without it an old
    ``results.csv`` is removed with the others' update), ``timeseries.parquet`` and
    ``metadata.json`` from the runs:
    those in ``loaded`` (run id → its result rows by position in ``order``, :func:`_run_rows`, and
    its flow time series as :func:`_write_run` returns it, for the runs executed now) from memory,
    the others from their run files. Both give the same tables byte for byte
    (``tests/test_experiments.py``). ``on_results(results)`` is called as soon as the results
    table is assembled, before the time series are and before anything is written (the report
    starts its summary plots then). ``loaded`` is consumed (emptied)."""
    loaded = loaded if loaded is not None else {}
    blocks: list[RowBlock] = []
    # Each run's flow time series (an Arrow table from memory, or None: read from its file) and
    # its labels, in order.
    series: list[tuple[Any, dict[str, Any]]] = []
    runs_meta = []
    for i, (rid, p) in enumerate(order):
        labels = p.labels()
        if rid in loaded and i in loaded[rid][0]:
            run_rows, flows = loaded[rid]
            blocks.append(run_rows[i])
        else:
            doc = json.loads((_runs_dir(out) / f"{rid}.json").read_text(encoding="utf-8"))
            blocks.append(_run_rows(exp, rid, p, doc))
            flows = None
        series.append((flows, {"run_id": rid, **{k: labels[k] for k in TS_LABELS}}))
        runs_meta.append({"run_id": rid, **labels})
    # The run's tables live on in `series` only until the time series are assembled.
    loaded.clear()
    results = _rows_frame(blocks)
    del blocks
    if on_results is not None:
        on_results(results)
    timeseries = _timeseries_frame(out, series)
    del series
    meta = {
        "experiment": {
            "name": exp.name,
            "description": exp.description,
            "source": exp.source,
            "document": exp.document,
            "labels": {s.name: s.label for s in exp.schemes},
        },
        "accelbrake_version": __version__,
        "git_commit": commit,
        "argv": list(sys.argv),
        "machine": machine(),
        "executor": executor.describe(),
        "wall_s": round(wall_s, 2),
        **{f"{k}_runs": v for k, v in stats.items()},
        "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "columns": COLUMN_DOCS,
        "runs": runs_meta,
    }
    # All or nothing: every table is written in full to a temporary file first, and only when all
    # are written are they moved into place, so a failure while writing (a full disk, an error)
    # leaves the previous tables, never a mix of two states. The stack renames in reverse order
    # of entry: metadata.json, entered first, is moved last.
    names = ["metadata.json", "results.parquet", "timeseries.parquet"] + (["results.csv"] if csv else [])
    if not csv:
        # Gone before the new tables appear: a CSV of an earlier sweep must not sit beside them.
        (out / "results.csv").unlink(missing_ok=True)
    with contextlib.ExitStack() as stack:
        tmps = {name: stack.enter_context(atomic_path(out / name)) for name in names}
        results.to_parquet(tmps["results.parquet"], index=False)
        if csv:
            results.to_csv(tmps["results.csv"], index=False)
        timeseries.to_parquet(tmps["timeseries.parquet"], index=False)
        tmps["metadata.json"].write_text(
            json.dumps(_finite(meta), indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )
    return results


#: What the less obvious ``results`` columns mean (also in ``metadata.json`` and docs/experiments.md).
COLUMN_DOCS = {
    "run_id": "hash of scenario (seed, trace contents), version and simulator build; runs/<run_id>.*",
    "scheme": "the name in matrix.schemes (a preset or a variant)",
    "label": "display name",
    "cc": "congestion controller of the run's first flow",
    "flow_cc": "congestion controller of this flow (differs from cc in runs that mix schemes)",
    "queue": "queue type at the data bottleneck",
    "delay_ms": "one-way propagation delay, each direction (min RTT = 2·delay_ms)",
    "flow": "flow number within the run",
    "throughput_mbps": "the flow's throughput at the bottleneck, Mbit/s",
    "utilization": "the flow's throughput / the bottleneck's mean capacity",
    "per_packet_delay_*_ms": "propagation RTT + queueing delay of the flow's packets (ABC paper convention)",
    "queueing_delay_*_ms": "time in the bottleneck queue incl. waiting for a delivery opportunity",
    "link_utilization": "bytes that left the bottleneck / its capacity, all flows (Mahimahi's)",
    "jain_index": "Jain's fairness index of the flows' throughputs over the run",
    "run_per_packet_delay_p95_ms": "95th percentile of the per-packet delay over all flows' packets",
}


def _current_tables(
    exp: Experiment, out: Path, order: list[tuple[str, RunPoint]], csv: bool = False
) -> pd.DataFrame | None:
    """The sweep's tables when they were written for exactly these runs (the same run ids, which
    hash each run's scenario, in the same order), the same experiment document and this version of
    accelbrake, with ``results.csv`` exactly when ``csv`` asks for it; else ``None`` (they must be
    written again)."""
    try:
        results, meta = load_results(out)
    except (OSError, ValueError):
        return None
    if not _parquet_ok(out / "timeseries.parquet") or (out / "results.csv").is_file() != csv:
        return None
    same = (
        [r.get("run_id") for r in meta.get("runs", [])] == [rid for rid, _ in order]
        and meta.get("accelbrake_version") == __version__
        and meta.get("experiment", {}).get("document") == json.loads(json.dumps(exp.document))
    )
    return results if same else None


def load_results(out_dir: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``results.parquet`` and ``metadata.json`` of a finished sweep."""
    import pandas as pd

    out = Path(out_dir)
    if not (out / "results.parquet").is_file() or not (out / "metadata.json").is_file():
        raise FileNotFoundError(2, "not a finished sweep (no results.parquet / metadata.json)", str(out))
    from accelbrake.results import check_results_folder

    meta = check_results_folder(out)
    return pd.read_parquet(out / "results.parquet"), meta
