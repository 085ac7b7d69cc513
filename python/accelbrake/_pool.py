"""Run many simulations, in worker processes when asked, with a tqdm progress bar on stderr.

The pool is our own rather than :class:`concurrent.futures.ProcessPoolExecutor`, for three things
that one cannot do:

* **A dead worker costs one run, not the sweep.** Each worker runs one task at a time, so when a
  worker dies (the kernel's out-of-memory killer, an aborted allocation, a signal) the pool knows
  which run it was running, reports *that* run as failed with the reason, starts a new worker and
  goes on. (A ``ProcessPoolExecutor`` marks itself broken and fails every pending run with a
  ``BrokenProcessPool`` that names none of them.)
* **No worker outlives its sweep.** Workers ask the kernel to kill them when their parent dies
  (Linux ``PR_SET_PDEATHSIG``), stop when their pipe closes, and are terminated on Ctrl-C, SIGTERM
  or any error in the parent.
* **An optional per-worker memory limit** (``RLIMIT_AS``), so that one run that cannot fit fails
  alone instead of pushing the machine into swap or the whole sweep into the OOM killer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from accelbrake._core import SimulationError

#: A worker: ``worker(key, scenario_json) -> (key, result, None)`` or ``(key, None, error text)``.
Worker = Callable[[Any, str], tuple[Any, Any, str | None]]

#: ``on_failure(key, reason)``: a run failed (its error, or why its worker died).
OnFailure = Callable[[Any, str], None]


def run_tasks(
    tasks: Sequence[tuple[Any, str]],
    worker: Worker,
    *,
    jobs: int,
    progress: bool,
    describe: Callable[[Any], str] = str,
    desc: str = "simulating",
    on_result: Callable[[Any, Any], None] | None = None,
    on_failure: OnFailure | None = None,
    memory_mb: float | None = None,
) -> dict[Any, Any]:
    """Run ``(key, scenario_json)`` tasks through ``worker``; return ``{key: result}``.

    With ``on_result``, each result is handed to ``on_result(key, result)`` as soon as it arrives
    (in the calling process) instead of being collected, and the returned dict is empty.

    A failed run (the worker's error, or the death of the process running it) is handed to
    ``on_failure(key, reason)`` and the other runs go on; without ``on_failure`` the first failure
    stops everything and raises :class:`SimulationError` ``"<describe(key)>: <reason>"``.

    With ``jobs > 1`` (or a ``memory_mb`` limit) the tasks run in spawned worker processes, so
    ``worker`` must be a picklable module-level function (or a :func:`functools.partial` of one);
    ``memory_mb`` caps each worker's address space.
    """
    from tqdm import tqdm

    results: dict[Any, Any] = {}

    def fail(key: Any, reason: str) -> None:
        if on_failure is None:
            raise SimulationError(f"{describe(key)}: {reason}")
        on_failure(key, reason)

    bar = tqdm(total=len(tasks), desc=desc, unit="run", file=sys.stderr, disable=not progress)
    try:
        if memory_mb is None and (jobs <= 1 or len(tasks) <= 1):
            for key, js in tasks:
                k, result, err = worker(key, js)
                if err is not None:
                    fail(k, err)
                else:
                    _deliver(results, on_result, k, result)
                bar.update()
            return results
        with _pool_for(min(jobs, len(tasks)), memory_mb) as pool:
            for k, result, err in pool.map(tasks, worker):
                if err is not None:
                    fail(k, err)
                else:
                    _deliver(results, on_result, k, result)
                bar.update()
        return results
    finally:
        bar.close()


#: keep_workers(): whether this process keeps its workers between run_tasks calls, and the pool.
_KEPT: dict[str, Any] = {"on": False, "pool": None}


def keep_workers() -> None:
    """From now on, the :func:`run_tasks` calls of this process share one set of worker processes
    (started as needed, daemonic: they end with this process) instead of each starting its own.
    For a process that runs many sweeps one after the other (``reproduce all``'s drivers, each
    running ~20 reproductions): each new worker is an interpreter start plus accelbrake's imports,
    a quarter of the workers' CPU time there. A failure in a call ends the kept workers (the next
    call starts new ones), as a pool of its own would have ended."""
    _KEPT["on"] = True


@contextlib.contextmanager
def workers_started(n: int, memory_mb: float | None = None) -> Iterator[None]:
    """Start ``n`` worker processes now and let the :func:`run_tasks` calls of this process inside
    the block share them (as :func:`keep_workers` does); end them when the block ends.

    For a command that knows it will run simulations but has work to do first (``accelbrake
    reproduce`` imports pandas and plans its runs, ~0.5 s): the workers start their interpreters
    and import accelbrake meanwhile, on the cores the command leaves idle, instead of after it.
    Inside a process that keeps its workers already, nothing changes."""
    if _KEPT["on"]:
        yield
        return
    _KEPT["on"] = True
    pool = _KEPT["pool"] = _Pool(n, memory_mb, daemon=True)
    try:
        for _ in range(max(1, n)):
            pool._spawn()
        yield
    finally:
        _KEPT["on"] = False
        pool = _KEPT["pool"]
        _KEPT["pool"] = None
        if pool is not None:
            pool.close(graceful=True)


@contextlib.contextmanager
def _pool_for(n: int, memory_mb: float | None) -> Iterator[_Pool]:
    """A pool of ``n`` workers for one :func:`run_tasks` call: its own, or the kept one."""
    if not _KEPT["on"]:
        with _Pool(n, memory_mb) as pool:
            yield pool
        return
    pool = _KEPT["pool"]
    if pool is not None and pool._memory_mb != memory_mb:
        pool.close(graceful=True)
        pool = None
    if pool is None:
        pool = _KEPT["pool"] = _Pool(n, memory_mb, daemon=True)
    pool._n = max(1, n)  # this call's share (more workers start if needed; extra ones wait)
    try:
        yield pool
    except BaseException:
        _KEPT["pool"] = None
        pool.close(graceful=False)
        raise


def _deliver(
    results: dict[Any, Any], on_result: Callable[[Any, Any], None] | None, key: Any, result: Any
) -> None:
    if on_result is None:
        results[key] = result
    else:
        on_result(key, result)


# ---------------------------------------------------------------------------------------------
# The pool


def death_reason(exitcode: int | None, memory_mb: float | None = None) -> str:
    """Why a worker process ended, in words (``exitcode`` as :attr:`multiprocessing.Process.exitcode`)."""
    limit = f" (each worker is limited to {memory_mb:g} MB)" if memory_mb is not None else ""
    if exitcode is None:
        return "its worker process vanished"
    if exitcode < 0:
        sig = -exitcode
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        if sig == signal.SIGKILL:
            return (
                f"its worker process was killed ({name}), most likely by the kernel's out-of-memory "
                f"killer: the run needs more memory than the machine could give{limit}"
            )
        if sig == signal.SIGABRT:
            return (
                f"its worker process aborted ({name}), most likely a failed memory allocation: the run "
                f"needs more memory than it was allowed{limit}"
            )
        return f"its worker process was killed by {name}"
    return f"its worker process exited with status {exitcode} before returning a result"


def _worker_main(conn: Any, memory_mb: float | None, parent: int) -> None:
    """A worker process: run the ``(worker, key, scenario_json)`` tasks received on ``conn`` until
    ``None`` or the pipe closes."""
    # The parent decides about Ctrl-C (it terminates us); a SIGINT to the terminal's process group
    # must not make a worker die with a traceback first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    too_low = None
    if memory_mb is not None:
        import resource

        too_low = _limit_too_low(memory_mb)
        if too_low is None:
            limit = int(memory_mb * 1024 * 1024)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        worker, key, js = task
        if too_low is not None:
            out = (key, None, too_low)
            with contextlib.suppress(OSError, ValueError):
                conn.send(out)
            continue
        try:
            out = worker(key, js)
        except MemoryError:
            out = (key, None, "out of memory in the worker (MemoryError)")
        except Exception as e:  # noqa: BLE001 - reported as the run's failure
            out = (key, None, f"{type(e).__name__}: {e}")
        try:
            conn.send(out)
        except (OSError, ValueError):
            return


#: Address space a run takes beyond the worker's own, before its data: the simulation thread's
#: stack (8 MiB, ``crates/accelbrake-py``), the 64 MiB that glibc's malloc reserves for the arena
#: of a new thread on 64-bit Linux (``HEAP_MAX_SIZE``, reserved, not used, but counted by
#: ``RLIMIT_AS``) and a margin for the run's first allocations.
_RUN_OVERHEAD_MB = 8 + 64 + 24


def _limit_too_low(memory_mb: float) -> str | None:
    """Why a worker limited to ``memory_mb`` of address space could run nothing (the reason every
    run it is given then fails with), or ``None``. The worker first imports what its runs import
    (numpy, pyarrow, the simulator) so that their address space is counted, not failed on."""
    import importlib

    for module in ("numpy", "accelbrake._worker", "accelbrake.results"):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return None  # not Linux: the limit is applied as given
    need_mib = kb / 1024 + _RUN_OVERHEAD_MB
    if memory_mb >= need_mib:
        return None
    return (
        f"--worker-memory-mb {memory_mb:g} is too low for a worker to run a simulation: a worker takes "
        f"{kb / 1024:.0f} MB of address space before it runs anything (Python, numpy, the "
        f"simulator) and a run's thread {_RUN_OVERHEAD_MB} MB more; give at least {need_mib:.0f} "
        "(plus what the run records)"
    )


def _die_with_parent(owner: int) -> None:
    """Ask Linux to SIGKILL this process when its parent (the pool's owner, ``owner``: workers are
    spawned by it directly) dies, and exit now if the owner is already gone; an idle worker also
    stops when its pipe closes."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    try:
        os.kill(owner, 0)
    except ProcessLookupError:
        os._exit(1)
    except PermissionError:
        pass


@dataclass
class _Slot:
    proc: Any
    conn: Any
    task: tuple[Any, str] | None = None


class _Pool:
    """``n`` worker processes, one task each at a time; see the module's docstring."""

    def __init__(self, n: int, memory_mb: float | None, *, daemon: bool = False) -> None:
        import multiprocessing as mp

        # Spawn, not forkserver: a forked-server worker's parent is the fork server, which the
        # kernel does not kill with the sweep (a SIGKILLed sweep left it and its workers running
        # under load); spawned workers are the sweep's own children, so PR_SET_PDEATHSIG reaches
        # them. The cost is one interpreter start per worker (workers are reused across runs).
        self._ctx = mp.get_context("spawn")
        self._n = max(1, n)
        self._memory_mb = memory_mb
        self._daemon = daemon
        self._slots: list[_Slot] = []

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close(graceful=exc[0] is None)

    def _spawn(self) -> _Slot:
        parent_conn, child_conn = self._ctx.Pipe()
        # Not a daemon: the pool ends its workers explicitly (and the kernel does if this process
        # dies); but the workers kept by keep_workers() are, so that multiprocessing ends them when
        # this process exits (it would wait for non-daemonic children for ever).
        proc = self._ctx.Process(
            target=_worker_main,
            args=(child_conn, self._memory_mb, os.getpid()),
            name="accelbrake-worker",
            daemon=self._daemon,
        )
        proc.start()
        child_conn.close()
        slot = _Slot(proc, parent_conn)
        self._slots.append(slot)
        return slot

    def map(self, tasks: Sequence[tuple[Any, str]], worker: Worker) -> Any:
        """Yield ``(key, result, error)`` for every task run by ``worker``, in completion order."""
        from multiprocessing.connection import wait

        queue = list(reversed(tasks))
        while len(self._slots) < min(self._n, len(queue)):
            self._spawn()
        idle = list(self._slots[: self._n])
        busy: dict[Any, _Slot] = {}

        def refill() -> None:
            while queue and idle:
                slot = idle.pop()
                slot.task = queue.pop()
                try:
                    slot.conn.send((worker, *slot.task))
                except (OSError, ValueError):  # died while idle: replace it, retry the task
                    queue.append(slot.task)
                    self._retire(slot)
                    idle.append(self._spawn())
                    continue
                busy[slot.conn] = slot

        while queue or busy:
            refill()
            ready = wait([*busy, *(s.proc.sentinel for s in busy.values())])
            outs = []
            for slot in list(busy.values()):
                if slot.conn not in ready and slot.proc.sentinel not in ready:
                    continue
                key = slot.task[0] if slot.task else None
                out = None
                if slot.conn in ready or slot.conn.poll():
                    with contextlib.suppress(EOFError, OSError):
                        out = slot.conn.recv()
                del busy[slot.conn]
                if out is None:
                    slot.proc.join(timeout=5)
                    out = (key, None, death_reason(slot.proc.exitcode, self._memory_mb))
                    self._retire(slot)
                    if queue:
                        idle.append(self._spawn())
                else:
                    slot.task = None
                    idle.append(slot)
                outs.append(out)
            # The freed workers get their next task before the caller handles these results (a
            # sweep writes each run's files then: ~25 ms during which a worker used to sit idle).
            refill()
            yield from outs

    def _retire(self, slot: _Slot) -> None:
        with contextlib.suppress(OSError, ValueError):
            slot.conn.close()
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join(timeout=5)
        self._slots.remove(slot)

    def close(self, *, graceful: bool) -> None:
        """End every worker: ask idle ones to stop (``graceful``), terminate the rest; wait."""
        for slot in self._slots:
            if graceful and slot.task is None:
                with contextlib.suppress(OSError, ValueError):
                    slot.conn.send(None)
            else:
                with contextlib.suppress(OSError, ValueError):
                    slot.proc.terminate()
        for slot in self._slots:
            slot.proc.join(timeout=2)
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join(timeout=2)
            with contextlib.suppress(OSError, ValueError):
                slot.conn.close()
        self._slots.clear()
