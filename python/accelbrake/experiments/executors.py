"""Where the runs of a sweep execute: a local process pool or a Ray cluster.

Both take ``(key, scenario_json)`` tasks, run each with :func:`accelbrake._worker.run_task` of a
``kind`` (a sweep's ``point``, or the ``summary`` / ``hop_quantiles`` of ``compare`` and the ABE
sweep), and hand every result to ``on_result(key, payload)`` in the calling process as soon as it
arrives, so the runner can write it to disk at once (and an
interrupted sweep keeps what finished). The simulation is deterministic, so the payloads — and the
tables built from them — are the same bit for bit whichever executor ran them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from accelbrake._core import SimulationError

__all__ = ["EXECUTORS", "Executor", "LocalExecutor", "RayExecutor", "make_executor"]

Task = tuple[str, str]
OnResult = Callable[[str, dict[str, Any]], None]


class Executor(Protocol):
    """Runs tasks; raises :class:`~accelbrake.SimulationError` on the first failed run."""

    name: str

    def run(
        self,
        tasks: Sequence[Task],
        on_result: OnResult,
        describe: Callable[[str], str],
        kind: str = "point",
    ) -> None:
        """Run the tasks with :func:`accelbrake._worker.run_task` of ``kind``."""

    def describe(self) -> str: ...


class LocalExecutor:
    """A process pool on this machine (``jobs`` workers; 1 runs in this process)."""

    name = "local"

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1

    def describe(self) -> str:
        return f"local process pool, {self.jobs} worker{'s' * (self.jobs != 1)}"

    def run(
        self,
        tasks: Sequence[Task],
        on_result: OnResult,
        describe: Callable[[str], str],
        kind: str = "point",
    ) -> None:
        import functools

        from accelbrake._pool import run_tasks
        from accelbrake._worker import run_task

        run_tasks(
            tasks,
            functools.partial(run_task, kind=kind),
            jobs=self.jobs,
            progress=False,
            describe=describe,
            on_result=on_result,
        )


class RayExecutor:
    """Ray tasks, one CPU each, on a running cluster (``address``, e.g. ``"auto"`` or
    ``"ray://head:10001"``) or on a local Ray instance started for the sweep (``jobs`` CPUs).

    If Ray is already initialised in this process (``ray.init(...)`` by the caller), that instance
    is used and left running. With an ``address`` the trace files travel with the tasks (through
    Ray's object store), so the workers need the ``accelbrake`` package but not the traces.
    """

    name = "ray"

    def __init__(self, address: str | None = None, jobs: int | None = None, ship_traces: bool | None = None):
        try:
            import ray  # noqa: F401
        except ImportError:
            raise SimulationError(
                "--executor ray needs Ray: pip install 'accelbrake[ray]' (or pip install ray)"
            ) from None
        self.address = address
        self.jobs = jobs
        self.ship_traces = address is not None if ship_traces is None else ship_traces

    def describe(self) -> str:
        where = f"cluster at {self.address}" if self.address else "local Ray instance"
        return f"Ray ({where})"

    def run(
        self,
        tasks: Sequence[Task],
        on_result: OnResult,
        describe: Callable[[str], str],
        kind: str = "point",
    ) -> None:
        import ray

        from accelbrake._worker import run_task

        if not tasks:
            return
        started = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": "ERROR",
            }
            if self.address is None:
                kwargs["num_cpus"] = self.jobs or os.cpu_count() or 1
            ray.init(address=self.address, **kwargs)
            started = True
        try:
            blobs_ref = ray.put(_trace_blobs(tasks)) if self.ship_traces else None
            remote = ray.remote(num_cpus=1, max_retries=2)(run_task)
            window = max(4, 2 * int(ray.cluster_resources().get("CPU", 1)))
            queue = list(tasks)
            pending: list[Any] = []
            try:
                while queue or pending:
                    while queue and len(pending) < window:
                        key, js = queue.pop(0)
                        pending.append(remote.remote(key, js, blobs_ref, kind))
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        key, payload, err = ray.get(ref)
                        if err is not None:
                            raise SimulationError(f"{describe(key)}: {err}")
                        on_result(key, payload)
            except BaseException:
                for ref in pending:
                    ray.cancel(ref, force=True)
                raise
        finally:
            if started:
                ray.shutdown()


def _trace_blobs(tasks: Sequence[Task]) -> dict[str, tuple[str, bytes]]:
    """Every trace file the tasks read: path → (sha256, content)."""
    blobs: dict[str, tuple[str, bytes]] = {}
    for _key, js in tasks:
        for hop in json.loads(js).get("hops", []):
            link = hop.get("link", {})
            path = link.get("path")
            if link.get("type") == "trace" and path and path not in blobs:
                content = Path(path).read_bytes()
                blobs[path] = (hashlib.sha256(content).hexdigest(), content)
    return blobs


#: Executor names for ``--executor``.
EXECUTORS = ("local", "ray")


def make_executor(name: str, *, jobs: int | None = None, address: str | None = None) -> Executor:
    """``local`` (process pool, ``jobs`` workers) or ``ray`` (``address`` or a local instance)."""
    if name == "local":
        if address is not None:
            raise SimulationError("--address is for --executor ray")
        return LocalExecutor(jobs)
    if name == "ray":
        return RayExecutor(address, jobs)
    raise SimulationError(f"unknown executor '{name}'; choose one of {', '.join(EXECUTORS)}")
