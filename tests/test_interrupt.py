"""Ctrl-C: SIGINT stops a long run within a fraction of a second, from the command line (exit
status 130, "accelbrake: interrupted") and from ``accelbrake.simulate()`` (KeyboardInterrupt)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PACKAGE_PARENT, REPO

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: Seconds from SIGINT to the process's exit that the tests accept (the target is < 0.5 s).
MAX_LATENCY = 1.0


def _env() -> dict[str, str]:
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p)
    env.pop("ACCELBRAKE_DEBUG", None)
    return env


def _wait_until_simulating(proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Wait until the simulation thread (named ``accelbrake-sim``) of ``proc`` exists, then a bit."""
    task_dir = Path(f"/proc/{proc.pid}/task")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if not task_dir.is_dir():  # no procfs: give the interpreter time to import and start
            time.sleep(5.0)
            return
        for comm in task_dir.glob("*/comm"):
            try:
                if comm.read_text().strip() == "accelbrake-sim":
                    time.sleep(0.5)  # well into the event loop
                    return
            except OSError:
                pass
        time.sleep(0.05)
    pytest.fail("the simulation never started")


def _interrupt(proc: subprocess.Popen) -> tuple[float, str]:
    """Send SIGINT to ``proc``; return (seconds until it exited, its stderr)."""
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("still running 30 s after SIGINT")
    return time.monotonic() - t0, err


def test_sigint_stops_a_long_cli_run_with_status_130():
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "accelbrake.cli",
            "run",
            "--trace",
            "const:1000",
            "--duration",
            "600",
            "--no-packets",
        ],
        cwd=REPO,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until_simulating(proc)
    latency, err = _interrupt(proc)
    print(f"accelbrake run: exited {latency * 1000:.0f} ms after SIGINT")
    assert proc.returncode == 130, err
    assert "accelbrake: interrupted" in err
    assert "Traceback" not in err
    assert latency < MAX_LATENCY, latency


SCRIPT = """
import sys, accelbrake
s = accelbrake.build_scenario("cubic", trace="const:1000", duration_s=600, record_packets=False)
try:
    accelbrake.simulate(s)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(42)
print("finished", flush=True)
"""


def test_sigint_raises_keyboardinterrupt_from_simulate():
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_until_simulating(proc)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    latency = time.monotonic() - t0
    print(f"simulate(): exited {latency * 1000:.0f} ms after SIGINT")
    assert proc.returncode == 42, (out, err)
    assert out.strip() == "KeyboardInterrupt"
    assert latency < MAX_LATENCY, latency


@pytest.mark.skipif(not Path("/proc").is_dir() or shutil.which("pgrep") is None, reason="needs procfs, pgrep")
def test_sigint_to_the_process_group_stops_a_process_pool_sweep(tmp_path):
    # As Ctrl-C in a terminal: SIGINT to the sweep and its pool's workers at once.
    proc = subprocess.Popen(
        [sys.executable, "-m", "accelbrake.cli", "sweep", "experiments/abc-vs-cubic.toml"]
        + ["--set", "run.duration_s=3000", "--out", str(tmp_path / "out")]
        + ["--jobs", "2", "--no-progress", "--no-report"],
        cwd=REPO,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # The two workers are up (spawned interpreters of the pool).
        workers = subprocess.run(
            ["pgrep", "-g", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True
        ).stdout.split()
        if len(workers) >= 2:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    time.sleep(2.0)  # into the runs
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("sweep still running 30 s after SIGINT")
    latency = time.monotonic() - t0
    print(f"sweep --jobs 2: exited {latency * 1000:.0f} ms after SIGINT")
    assert proc.returncode == 130, err
    assert "accelbrake: interrupted" in err and "Traceback" not in err, err
    # It says how to resume: where the finished runs are and the command to run again.
    assert f"kept in {tmp_path / 'out'}/; to resume, run the same command again" in err, err
    assert "accelbrake sweep experiments/abc-vs-cubic.toml --set run.duration_s=3000" in err, err
    assert latency < 2 * MAX_LATENCY, latency
    time.sleep(0.5)
    alive = []
    for pid in subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split():
        stat = Path(f"/proc/{pid}/stat")
        if stat.is_file() and stat.read_text().split(")")[-1].split()[0] != "Z":
            alive.append(pid)
    assert not alive, f"processes left running: {alive}"
