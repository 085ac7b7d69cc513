"""Where the runs of a sweep execute: a local process pool or a Ray cluster.

Both take ``(key, scenario_json)`` tasks, run each with :func:`accelbrake._worker.run_task` of a
``kind`` (a sweep's ``point``, or the ``summary`` / ``hop_quantiles`` of ``compare`` and the ABE
sweep), and hand every result to ``on_result(key, payload)`` in the calling process as soon as it
arrives, so the runner can write it to disk at once (and an
interrupted sweep keeps what finished). The simulation is deterministic, so the payloads — and the
tables built from them — are the same bit for bit whichever executor ran them.
"""

from __future__ import annotations

import contextlib
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
OnFailure = Callable[[str, str], None]


class Executor(Protocol):
    """Runs tasks. A failed run (its error, or the death of the process running it) goes to
    ``on_failure(key, reason)`` and the others go on; without ``on_failure`` the first failure
    raises :class:`~accelbrake.SimulationError`."""

    name: str

    def run(
        self,
        tasks: Sequence[Task],
        on_result: OnResult,
        describe: Callable[[str], str],
        kind: str = "point",
        on_failure: OnFailure | None = None,
    ) -> None:
        """Run the tasks with :func:`accelbrake._worker.run_task` of ``kind``."""

    def describe(self) -> str: ...


class LocalExecutor:
    """A process pool on this machine (``jobs`` workers; 1 runs in this process unless
    ``worker_memory_mb`` asks for a memory limit, which needs a worker process).

    A worker that dies (out of memory, killed) fails only the run it was running; a new worker
    takes its place (see :mod:`accelbrake._pool`)."""

    name = "local"

    def __init__(self, jobs: int | None = None, worker_memory_mb: float | None = None) -> None:
        self.jobs = jobs or os.cpu_count() or 1
        self.worker_memory_mb = worker_memory_mb

    def started(self) -> contextlib.AbstractContextManager[None]:
        """A block in which this executor's worker processes are started already (at its start:
        see :func:`accelbrake._pool.workers_started`); with one job and no memory limit the runs
        go on in this process, and nothing is started."""
        from accelbrake._pool import workers_started

        if self.jobs <= 1 and self.worker_memory_mb is None:
            return contextlib.nullcontext()
        return workers_started(self.jobs, self.worker_memory_mb)

    def describe(self) -> str:
        limit = f", {self.worker_memory_mb:g} MB each" if self.worker_memory_mb is not None else ""
        return f"local process pool, {self.jobs} worker{'s' * (self.jobs != 1)}{limit}"

    def run(
        self,
        tasks: Sequence[Task],
        on_result: OnResult,
        describe: Callable[[str], str],
        kind: str = "point",
        on_failure: OnFailure | None = None,
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
            on_failure=on_failure,
            memory_mb=self.worker_memory_mb,
        )


def no_cluster_message(address: str | None, error: BaseException) -> str:
    """Our explanation when Ray finds no cluster at ``--address``."""
    where = "on this machine" if address in (None, "auto") else f"at {address}"
    return (
        f"--executor ray --address {address}: no Ray cluster is running {where} (Ray says: "
        f"{' '.join(str(error).split())}). Start one first with 'ray start --head' (and 'ray start "
        "--address HEAD:6379' on the other machines), or give the head's address as --address "
        "HOST:6379; or drop --address to let accelbrake start a Ray instance on this machine only, "
        "or drop --executor ray to use the local process pool (the default, no Ray needed)."
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
        on_failure: OnFailure | None = None,
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
            try:
                ray.init(address=self.address, **kwargs)
            except ConnectionError as e:
                raise SimulationError(no_cluster_message(self.address, e)) from None
            started = True
        try:
            blobs_ref = ray.put(_trace_blobs(tasks)) if self.ship_traces else None
            remote = ray.remote(num_cpus=1, max_retries=2)(run_task)
            window = max(4, 2 * int(ray.cluster_resources().get("CPU", 1)))
            queue = list(tasks)
            pending: list[Any] = []
            key_of: dict[Any, str] = {}
            try:
                while queue or pending:
                    while queue and len(pending) < window:
                        key, js = queue.pop(0)
                        ref = remote.remote(key, js, blobs_ref, kind)
                        key_of[ref] = key
                        pending.append(ref)
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        key = key_of.pop(ref)
                        try:
                            _, payload, err = ray.get(ref)
                        except (ray.exceptions.RayError, MemoryError) as e:
                            # The task's worker died (out of memory, killed) even after Ray's
                            # retries: that run fails, the others go on.
                            payload, err = None, f"its Ray worker failed: {type(e).__name__}: {e}"
                        if err is not None:
                            if on_failure is None:
                                raise SimulationError(f"{describe(key)}: {err}")
                            on_failure(key, err)
                            continue
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


def make_executor(
    name: str,
    *,
    jobs: int | None = None,
    address: str | None = None,
    worker_memory_mb: float | None = None,
) -> Executor:
    """``local`` (process pool, ``jobs`` workers, each limited to ``worker_memory_mb`` if given)
    or ``ray`` (``address`` or a local instance)."""
    if name == "local":
        if address is not None:
            raise SimulationError("--address is for --executor ray")
        return LocalExecutor(jobs, worker_memory_mb)
    if worker_memory_mb is not None:
        raise SimulationError("--worker-memory-mb is for --executor local (Ray has its own memory monitor)")
    if name == "ray":
        return RayExecutor(address, jobs)
    raise SimulationError(f"unknown executor '{name}'; choose one of {', '.join(EXECUTORS)}")
