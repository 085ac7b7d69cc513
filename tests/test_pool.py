"""The worker pool under pressure: a worker that dies (out of memory) fails only its run, the sweep
goes on and ends with a summary and a non-zero exit, a rerun redoes only that run, and no worker
outlives its sweep (SIGTERM, or the sweep killed outright)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from accelbrake._pool import death_reason
from conftest import PACKAGE_PARENT

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("pgrep") is None, reason="needs Linux, procfs, pgrep"
)


def _env() -> dict[str, str]:
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p)
    env.pop("ACCELBRAKE_DEBUG", None)
    return env


def _alive(session: int) -> list[str]:
    """Processes (not zombies) left in the session ``session``."""
    out = []
    for pid in subprocess.run(["pgrep", "-s", str(session)], capture_output=True, text=True).stdout.split():
        stat = Path(f"/proc/{pid}/stat")
        try:
            if stat.read_text().split(")")[-1].split()[0] != "Z":
                out.append(pid)
        except OSError:
            pass
    return out


def _workers(group: int) -> list[str]:
    """The pool's worker processes (spawned interpreters) in the process group ``group``."""
    out = subprocess.run(
        ["pgrep", "-g", str(group), "-f", "spawn_main"], capture_output=True, text=True
    ).stdout
    return out.split()


def _sweep(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "accelbrake.cli", "sweep", *args, "--no-progress", "--no-report"],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _no_process_left(session: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while _alive(session) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _alive(session)
    if left:
        os.killpg(session, signal.SIGKILL)
    assert not left, f"processes left running: {left}"


def test_death_reasons_name_the_likely_cause():
    assert "out-of-memory killer" in death_reason(-signal.SIGKILL)
    abort = death_reason(-signal.SIGABRT, 600)
    assert "failed memory allocation" in abort and "600 MB" in abort
    assert "SIGSEGV" in death_reason(-signal.SIGSEGV)
    assert "status 3" in death_reason(3)


def test_a_run_that_cannot_fit_fails_alone_and_a_rerun_redoes_only_it(tmp_path):
    # Two runs fit in 600 MB (24 Mbit/s); the 1 Gbit/s run with per-packet records needs ~1 GB.
    (tmp_path / "exp.toml").write_text(
        'name = "oom"\n[matrix]\nschemes = ["cubic"]\ntraces = ["const:24", "const:1000"]\nseeds = [0]\n'
        "[run]\nduration_s = 60\nrecord_packets = true\nmemory_budget_mb = 100000\n"
    )
    out = tmp_path / "out"
    proc = _sweep(["exp.toml", "--out", str(out), "--jobs", "2", "--worker-memory-mb", "600"], tmp_path)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err
    assert "1 run failed:" in err and "cubic, on const:1000" in err, err
    # Refused before it allocates (its estimate exceeds what the worker's RLIMIT_AS leaves), or,
    # where an estimate falls short, the worker's death named by the pool.
    assert "RLIMIT_AS" in err or "SIGABRT" in err or "SIGKILL" in err, err
    assert "Traceback" not in err and "BrokenProcessPool" not in err, err
    failures = json.loads((out / "failures.json").read_text())["failed_runs"]
    assert [f["run"] for f in failures] == ["cubic, on const:1000, delay 50 ms, buffer 250, seed 0"]
    done = sorted(p.name for p in (out / "runs").glob("*.json"))
    assert len(done) == 1, "the run that fits was written"
    assert not (out / "results.parquet").exists(), "no tables from an incomplete sweep"
    _no_process_left(proc.pid)

    # Without the limit the failed run fits: only it runs again, and the tables are written.
    proc = _sweep(["exp.toml", "--out", str(out), "--jobs", "2"], tmp_path)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "2 runs (1 already done" in err and "running 1 on" in err, err
    assert not (out / "failures.json").exists()
    assert (out / "results.parquet").is_file()
    _no_process_left(proc.pid)


def _start_long_sweep(tmp_path: Path) -> subprocess.Popen:
    (tmp_path / "long.toml").write_text(
        'name = "long"\n[matrix]\nschemes = ["cubic"]\ntraces = ["const:96"]\nseeds = 4\n'
        "[run]\nduration_s = 3000\n"
    )
    proc = _sweep(["long.toml", "--out", str(tmp_path / "out"), "--jobs", "2"], tmp_path)
    deadline = time.monotonic() + 60
    while len(_workers(proc.pid)) < 2 and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    time.sleep(1.0)
    return proc


def test_sigterm_stops_the_sweep_and_its_workers(tmp_path):
    proc = _start_long_sweep(tmp_path)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)  # to the sweep alone, as a job scheduler would
    _, err = proc.communicate(timeout=30)
    print(f"sweep exited {1000 * (time.monotonic() - t0):.0f} ms after SIGTERM")
    assert proc.returncode == 143, err
    assert "accelbrake: terminated" in err and "Traceback" not in err, err
    _no_process_left(proc.pid)


def test_workers_die_with_a_killed_sweep(tmp_path):
    proc = _start_long_sweep(tmp_path)
    proc.send_signal(signal.SIGKILL)  # no clean-up possible in the sweep itself
    proc.communicate(timeout=30)
    _no_process_left(proc.pid)


_HANDOFF_WORKER = """
import os, time
def work(key, d):
    open(os.path.join(d, f"start-{key}"), "w").close()
    time.sleep(0.2)
    return key, key, None
"""

_HANDOFF_MAIN = """
import os, sys, time
sys.path.insert(0, sys.argv[1])
from handoff_worker import work
from accelbrake._pool import run_tasks
d = sys.argv[1]
waited = []
def on_result(key, result):
    if waited:
        return
    # The caller is busy with the first result (a sweep writes its files here): the freed worker
    # must already have its next task.
    t0 = time.monotonic()
    while not os.path.exists(os.path.join(d, "start-2")) and time.monotonic() - t0 < 5:
        time.sleep(0.01)
    waited.append(os.path.exists(os.path.join(d, "start-2")))
if __name__ == "__main__":
    run_tasks([(i, d) for i in range(4)], work, jobs=2, progress=False, on_result=on_result)
    print("next task started while the caller handled a result:", waited[0])
"""


def test_a_freed_worker_gets_its_next_task_before_the_caller_handles_the_result(tmp_path):
    """A worker used to sit idle while the sweep wrote the previous run's files."""
    (tmp_path / "handoff_worker.py").write_text(_HANDOFF_WORKER)
    (tmp_path / "main.py").write_text(_HANDOFF_MAIN)
    r = subprocess.run(
        [sys.executable, str(tmp_path / "main.py"), str(tmp_path)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "handled a result: True" in r.stdout, r.stdout + r.stderr


def test_the_plot_fork_server_ends_without_teardown_and_preloads_the_module():
    """The plot workers' fork server (which holds the command's stdout/stderr) used to spend
    0.3-0.7 s tearing down matplotlib and pandas after the command had exited."""
    from accelbrake.experiments.report import plot_pool_context

    ctx = plot_pool_context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        assert "accelbrake._forkserver_exit" in forkserver._forkserver._preload_modules
    code = (
        "import accelbrake._forkserver_exit\n"
        "class A:\n"
        "    def __del__(self):\n"
        "        print('torn down', flush=True)\n"
        "a = A()\n"
        "raise SystemExit(3)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "torn down" not in r.stdout, (r.returncode, r.stdout, r.stderr)


KEEP_SCRIPT = """
import os
from accelbrake import _pool as P

def pid(key, js):
    return key, os.getpid(), None

if __name__ == "__main__":
    P.keep_workers()
    tasks = [(i, "") for i in range(6)]
    a = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
    b = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
    one = set(P.run_tasks(tasks, pid, jobs=1, memory_mb=None, progress=False).values())
    try:
        P.run_tasks(tasks, pid, jobs=2, progress=False, on_result=lambda k, r: 1 / 0)
    except ZeroDivisionError:
        pass
    c = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
    print(len(a), a == b, one == {os.getpid()}, len(c), bool(a & c))
"""


def test_kept_workers_serve_one_sweep_after_another_and_end_with_their_process(tmp_path):
    """keep_workers() (reproduce all's drivers): successive run_tasks calls get the same worker
    processes; a failure in a call ends them (the next call starts new ones); the process still
    exits at once, its daemonic workers with it."""
    script = tmp_path / "keep.py"
    script.write_text(KEEP_SCRIPT)
    p = subprocess.Popen(
        [sys.executable, str(script)], env=_env(), stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0
    assert out.split() == ["2", "True", "True", "2", "False"]
    time.sleep(0.5)
    assert _alive(p.pid) == []


STARTED_SCRIPT = """
import os
from accelbrake import _pool as P

def pid(key, js):
    return key, os.getpid(), None

if __name__ == "__main__":
    tasks = [(i, "") for i in range(6)]
    with P.workers_started(2):
        # started at the block's start, before any run
        before = {s.proc.pid for s in P._KEPT["pool"]._slots if s.proc.is_alive()}
        a = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
        b = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
    alive = {p for p in before if os.path.exists(f"/proc/{p}")}
    c = set(P.run_tasks(tasks, pid, jobs=2, progress=False).values())
    print(len(before), a == before, a == b, len(alive), len(c), bool(a & c))
"""


def test_workers_started_before_the_runs_serve_them_and_end_with_the_block(tmp_path):
    """workers_started() (``accelbrake reproduce``): the workers exist as the block starts (they
    import accelbrake while the command plans its runs), the block's run_tasks calls use exactly
    them, and they end with the block; a later call gets a pool of its own."""
    script = tmp_path / "started.py"
    script.write_text(STARTED_SCRIPT)
    p = subprocess.run([sys.executable, str(script)], env=_env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["2", "True", "True", "0", "2", "False"]
