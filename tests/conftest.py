"""Shared fixtures. The package is used as installed (``pip install -e .`` / ``maturin develop``);
if it is not importable, the repository's ``python/`` folder is used, which works once the
extension has been built into it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

try:
    import accelbrake._core  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the package was installed
    sys.path.insert(0, str(REPO / "python"))

import accelbrake  # noqa: E402

#: Directory holding the `accelbrake` package that the tests import (for subprocesses).
PACKAGE_PARENT = Path(accelbrake.__file__).resolve().parents[1]
TRACE_UP = REPO / "traces" / "Verizon-LTE-short.up"
TRACE_DOWN = REPO / "traces" / "Verizon-LTE-short.down"


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def trace_up() -> Path:
    """The bundled Verizon LTE uplink trace."""
    assert TRACE_UP.is_file()
    return TRACE_UP


@pytest.fixture(scope="session")
def small_scenario() -> dict:
    """A 10 s ABC run on the bundled trace, the artifact's topology, with per-packet records."""
    return accelbrake.build_scenario("abc", trace=str(TRACE_UP), duration_s=10, record_packets=True)


@pytest.fixture(scope="session")
def small_result(small_scenario):
    """The result of :func:`small_scenario` (run once per test run)."""
    return accelbrake.simulate(small_scenario)


def _run_cli(
    *args: str, cwd: Path | None = None, timeout: float = 120, module: str = "accelbrake.cli"
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m MODULE ARGS`` (default ``accelbrake.cli``) in a fresh interpreter."""
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p)
    env.pop("ACCELBRAKE_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd or REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="session")
def run_cli():
    """``run_cli(*args, cwd=None, module="accelbrake.cli")``: run the command line in a fresh interpreter."""
    return _run_cli
