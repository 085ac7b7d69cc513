"""Sweeps of very many short runs with bounded memory: summaries only, written as they finish.

A regular sweep (:func:`accelbrake.experiments.runner.run_sweep`) keeps every run's files (its
document and two Parquet time series) and assembles the tables in memory at the end: right for
thousands of runs, not for 10⁵-10⁶. :func:`run_bulk` is the same matrix run for its summary
numbers alone:

* the matrix is walked lazily, one batch of ``batch`` runs at a time: only that batch's scenarios
  and rows are ever in the driver's memory, whatever the number of runs;
* each finished batch is written at once to ``OUT/parts/part-NNNNNN.parquet`` (atomically), one
  row per run × flow (the point's labels, the run's ``run_id``, its ``run_index`` in the matrix
  order, the flow's index ``flow`` and controller ``flow_scheme``, its summary figures flattened
  to columns such as ``per_packet_delay_ms_p95``, and the run's ``run_utilization`` and
  ``run_jain_index``);
* a sweep run again skips the batches whose part exists (an interrupted sweep loses only the batch
  in flight); a batch with a failed run is not written (its failures go to
  ``OUT/failures.json``) and is retried whole next time;
* when every batch is there, ``OUT/results.parquet`` is the parts concatenated in matrix order,
  streamed part by part (one row group each), and ``OUT/metadata.json`` says what ran.

Rows are in matrix order whatever the executor and the number of workers, and the simulation is
deterministic, so the table is the same bit for bit on a process pool or a Ray cluster.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from accelbrake._io import atomic_path, atomic_write_json, dumps_compact
from accelbrake.experiments.executors import Executor, LocalExecutor
from accelbrake.experiments.spec import Experiment, RunPoint

__all__ = ["BulkOutcome", "flow_rows", "run_bulk"]

PARTS = "parts"


@dataclass
class BulkOutcome:
    """What :func:`run_bulk` did."""

    out: Path
    total: int
    """Runs in the matrix."""
    ran: int
    """Runs executed now."""
    skipped: int
    """Runs of batches finished before."""
    wall_s: float
    complete: bool
    """Whether every batch is written (then ``results.parquet`` is too)."""
    rows: int = 0
    """Rows of ``results.parquet`` (when complete)."""
    peak_rss_mb: float = 0.0
    """This process's peak resident memory (the workers are other processes)."""
    failed: list[tuple[int, str, str]] = field(default_factory=list)
    """(run index, description, reason) of the failed runs."""

    @property
    def runs_per_s(self) -> float:
        return self.ran / self.wall_s if self.wall_s > 0 else 0.0


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}_{k}" if prefix else str(k), v, out)
    elif value is None or isinstance(value, (bool, int, float, str)):
        out[prefix] = value
    # Lists (a run's warnings, per-hop entries) have no place in a flat row.


def flow_rows(index: int, rid: str, point: RunPoint, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of one run: one per flow, the point's labels first."""
    base = {"run_id": rid, "run_index": index, **point.labels()}
    base["run_utilization"] = summary.get("utilization")
    base["run_jain_index"] = summary.get("jain_index")
    rows = []
    for flow in summary.get("flows") or []:
        row = dict(base)
        flat: dict[str, Any] = {}
        _flatten("", flow, flat)
        for k, v in flat.items():
            # The flow's `id` is its index; its `scheme` is the controller it ran (the point's
            # `scheme` label is the experiment's name for the scheme): both kept apart.
            row["flow" if k == "id" else "flow_" + k if k in base else k] = v
        rows.append(row)
    return rows


def _peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 / (1024 if sys.platform == "darwin" else 1)


def _part(out: Path, i: int) -> Path:
    return out / PARTS / f"part-{i:06d}.parquet"


def _write_part(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def _combine(out: Path, n_parts: int) -> int:
    """``results.parquet`` from the parts, streamed: a first pass reads only their schemas (a
    column a part lacks, e.g. a scheme-specific figure, is null there), a second copies each part
    as one row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paths = [_part(out, i) for i in range(n_parts)]
    schema = pa.unify_schemas([pq.read_schema(p) for p in paths], promote_options="permissive")
    rows = 0
    with atomic_path(out / "results.parquet") as tmp:
        with pq.ParquetWriter(tmp, schema) as w:
            for p in paths:
                t = pq.read_table(p)
                for name in schema.names:
                    if name not in t.column_names:
                        t = t.append_column(name, pa.nulls(len(t), schema.field(name).type))
                w.write_table(t.select(schema.names).cast(schema))
                rows += len(t)
    return rows


def _batches(exp: Experiment, batch: int) -> Iterator[list[tuple[int, RunPoint]]]:
    it = enumerate(exp.points())
    while True:
        chunk = list(islice(it, batch))
        if not chunk:
            return
        yield chunk


def _run_batch(
    executor: Executor, exp: Experiment, chunk: list[tuple[int, RunPoint]], bar: Any
) -> tuple[list[dict[str, Any]], list[tuple[int, str, str]]]:
    """Run one batch; its rows in matrix order, and its failures."""
    from accelbrake.experiments.runner import run_id

    points = dict(chunk)
    tasks = []
    rids: dict[int, str] = {}
    for idx, p in chunk:
        sc = exp.scenario(p)
        rids[idx] = run_id(sc)
        tasks.append((idx, dumps_compact(sc)))
    rows_of: dict[int, list[dict[str, Any]]] = {}
    failed: list[tuple[int, str, str]] = []

    def on_result(idx: int, summary: dict[str, Any]) -> None:
        rows_of[idx] = flow_rows(idx, rids[idx], points[idx], summary)
        bar.update()

    def on_failure(idx: int, reason: str) -> None:
        failed.append((idx, points[idx].describe(), reason))
        bar.update()

    executor.run(tasks, on_result, lambda idx: points[idx].describe(), "summary", on_failure)
    return [r for idx, _p in chunk for r in rows_of.get(idx, [])], failed


def run_bulk(
    exp: Experiment,
    out_dir: str | os.PathLike[str],
    *,
    executor: Executor | None = None,
    batch: int = 2000,
    progress: bool = True,
    echo: Callable[[str], Any] | None = None,
) -> BulkOutcome:
    """Run every run of ``exp`` for its summary (see the module's doc); ``executor`` defaults to
    a process pool with one worker per core."""
    if not (isinstance(batch, int) and batch >= 1):
        raise ValueError(f"batch: expected a number of runs ≥ 1, got {batch!r}")
    # Scenarios a regular parse keeps for a sweep are not needed here (each batch builds its own):
    # build the Experiment with parse_experiment(..., keep_scenarios=False) to never hold them.
    exp._planned.clear()
    out = Path(out_dir)
    (out / PARTS).mkdir(parents=True, exist_ok=True)
    executor = executor or LocalExecutor()
    total = exp.size()
    n_parts = (total + batch - 1) // batch
    t0 = time.monotonic()
    ran = skipped = 0
    failed: list[tuple[int, str, str]] = []
    if echo:
        echo(f"{exp.name}: {total} runs in {n_parts} batches of {batch} on {executor.describe()}")
    from tqdm import tqdm

    bar = tqdm(total=total, desc=exp.name, unit="run", file=sys.stderr, disable=not progress, smoothing=0.1)
    started = getattr(executor, "started", None)
    try:
        with started() if started is not None else contextlib.nullcontext():
            for i, chunk in enumerate(_batches(exp, batch)):
                if _part(out, i).is_file():
                    skipped += len(chunk)
                    bar.update(len(chunk))
                    continue
                rows, batch_failed = _run_batch(executor, exp, chunk, bar)
                ran += len(chunk)
                if batch_failed:
                    failed.extend(batch_failed)
                    continue
                _write_part(_part(out, i), rows)
    finally:
        bar.close()
    if failed:
        atomic_write_json(
            out / "failures.json",
            {
                "failed_runs": [{"run_index": i, "run": d, "reason": why} for i, d, why in failed],
                "note": "their batches have no part in parts/; running the sweep again retries them",
            },
        )
    else:
        (out / "failures.json").unlink(missing_ok=True)
    complete = all(_part(out, i).is_file() for i in range(n_parts))
    outcome = BulkOutcome(out, total, ran, skipped, time.monotonic() - t0, complete, failed=failed)
    if complete:
        outcome.rows = _combine(out, n_parts)
        atomic_write_json(
            out / "metadata.json",
            {
                "experiment": exp.name,
                "runs": total,
                "rows": outcome.rows,
                "batch": batch,
                "executor": executor.describe(),
                "ran_now": ran,
                "wall_s_now": round(outcome.wall_s, 3),
            },
        )
    outcome.peak_rss_mb = _peak_rss_mb()
    return outcome
