"""The demo figure on the docs' home page and in the README is what the demo produces now.

Two links (see :mod:`accelbrake.papers.demo`): the PNG was drawn from the committed numbers in
docs/data/demo-tradeoff.csv (its ``Source`` chunk carries that file's SHA-256), and those numbers are
what ``accelbrake reproduce abc-table --quick`` gives with today's code (the simulator is
deterministic, so to 1e-9). When either fails, run ``make results`` and commit docs/.
"""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from accelbrake.papers import demo

HINT = "the demo figure is stale: run `make results` and commit docs/data and docs/figures"


def test_the_figure_was_drawn_from_the_committed_numbers():
    assert demo.source_of() == f"{demo.DATA.name} sha256={demo.digest(demo.DATA)}", HINT


def test_the_docs_show_the_figure():
    for page in ("README.md", "docs/index.md"):
        text = (demo.ROOT / page).read_text(encoding="utf-8")
        assert "figures/demo-tradeoff.png" in text, f"{page} no longer shows the demo figure"


def test_the_committed_numbers_are_what_the_demo_produces_now(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "accelbrake",
            "reproduce",
            demo.REPRODUCTION,
            "--quick",
            "--no-report",
            "--no-progress",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    fresh = demo.points(run_dir)
    fresh.to_csv(tmp_path / "fresh.csv", index=False)  # through CSV, as the committed numbers went
    fresh = pd.read_csv(tmp_path / "fresh.csv")
    committed = pd.read_csv(demo.DATA)
    assert list(fresh.columns) == list(committed.columns), HINT
    names = list(zip(fresh["scheme"], fresh["trace"], strict=True))
    assert names == list(zip(committed["scheme"], committed["trace"], strict=True)), HINT
    for col in fresh.columns[2:]:
        assert fresh[col].to_numpy(float) == pytest.approx(
            committed[col].to_numpy(float), rel=1e-9, abs=1e-12
        ), f"{col}: {HINT}"


def test_a_damaged_figure_is_caught(tmp_path):
    # The check above can fail: a figure drawn from other numbers carries another digest.
    other = tmp_path / "demo-tradeoff.csv"
    data = pd.read_csv(demo.DATA)
    data.loc[0, "utilization_mean"] *= 0.5
    data.to_csv(other, index=False)
    png = demo.draw(other, tmp_path / "demo-tradeoff.png")
    assert demo.source_of(png) != f"{demo.DATA.name} sha256={demo.digest(demo.DATA)}"
