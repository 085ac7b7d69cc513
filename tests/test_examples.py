"""The example scripts under examples/ run as they are, from an empty directory."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import PACKAGE_PARENT, REPO

SCRIPTS = sorted((REPO / "examples").glob("*.py"))


def test_there_are_example_scripts():
    assert SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_PARENT), MPLBACKEND="Agg")
    r = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "out")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written, "the example wrote nothing"
    assert all(p.stat().st_size > 0 for p in written)
