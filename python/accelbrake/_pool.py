"""Run many simulations, in a process pool when asked, with a tqdm progress bar on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from accelbrake._core import SimulationError

#: A worker: ``worker(key, scenario_json) -> (key, result, None)`` or ``(key, None, error text)``.
Worker = Callable[[Any, str], tuple[Any, Any, str | None]]


def run_tasks(
    tasks: Sequence[tuple[Any, str]],
    worker: Worker,
    *,
    jobs: int,
    progress: bool,
    describe: Callable[[Any], str] = str,
    desc: str = "simulating",
    on_result: Callable[[Any, Any], None] | None = None,
) -> dict[Any, Any]:
    """Run ``(key, scenario_json)`` tasks through ``worker``; return ``{key: result}``.

    With ``on_result``, each result is handed to ``on_result(key, result)`` as soon as it arrives
    (in the calling process) instead of being collected, and the returned dict is empty.

    With ``jobs > 1`` the tasks run in a :class:`concurrent.futures.ProcessPoolExecutor` (forkserver
    where available, else spawn), so ``worker`` must be a picklable module-level function (or a
    :func:`functools.partial` of one). The first failure cancels the rest and raises
    :class:`SimulationError` ``"<describe(key)>: <error>"``.
    """
    from tqdm import tqdm

    results: dict[Any, Any] = {}
    bar = tqdm(total=len(tasks), desc=desc, unit="run", file=sys.stderr, disable=not progress)
    try:
        if jobs <= 1 or len(tasks) <= 1:
            for key, js in tasks:
                k, result, err = worker(key, js)
                if err is not None:
                    raise SimulationError(f"{describe(k)}: {err}")
                _deliver(results, on_result, k, result)
                bar.update()
            return results
        import concurrent.futures as cf
        import multiprocessing as mp

        methods = mp.get_all_start_methods()
        ctx = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        with cf.ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=ctx) as pool:
            futures = [pool.submit(worker, key, js) for key, js in tasks]
            try:
                for fut in cf.as_completed(futures):
                    k, result, err = fut.result()
                    if err is not None:
                        raise SimulationError(f"{describe(k)}: {err}")
                    _deliver(results, on_result, k, result)
                    bar.update()
            except KeyboardInterrupt:
                _terminate_workers(pool)
                raise
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
        return results
    finally:
        bar.close()


def _terminate_workers(pool: Any) -> None:
    """Ctrl-C: stop the pool's workers now. They got the SIGINT too (it goes to the terminal's
    whole process group) and stop their current run, but each would then start the calls already
    queued for it, which cancelling the futures cannot withdraw, and the pool's shutdown would wait
    for those. The futures are left alone: on Python 3.11 the pool's manager thread fails noisily
    when it marks a cancelled future broken."""
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    # Before the shutdown, which forgets them.
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False)
    for proc in procs:
        try:
            proc.terminate()
        except (OSError, ValueError):  # already gone or closed
            pass


def _deliver(
    results: dict[Any, Any], on_result: Callable[[Any, Any], None] | None, key: Any, result: Any
) -> None:
    if on_result is None:
        results[key] = result
    else:
        on_result(key, result)
