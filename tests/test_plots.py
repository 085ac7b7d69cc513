"""plot_run / plot_compare write real image files atomically."""

from __future__ import annotations

import accelbrake
import pandas as pd
import pytest
from accelbrake import _io
from accelbrake.plots import plot_compare, plot_run


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_plot_run(small_result, tmp_path, ext):
    path = plot_run(small_result, tmp_path / f"run.{ext}", cwnd=True)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") if ext == "png" else b"<svg" in data[:2000]
    assert "abc" in small_result.scheme
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(_io.TEMP_PREFIX)]


def test_plot_run_without_packets_and_many_flows(tmp_path):
    sc = accelbrake.build_scenario("newreno", trace="const:24", duration_s=3, flows=10, record_packets=False)
    path = plot_run(accelbrake.simulate(sc), tmp_path / "q.png")
    assert path.stat().st_size > 0


def test_plot_rejects_unknown_format(small_result, tmp_path):
    with pytest.raises(ValueError, match=r"\.gif"):
        plot_run(small_result, tmp_path / "x.gif")
    assert list(tmp_path.iterdir()) == []


def test_plot_compare(tmp_path):
    table = pd.DataFrame(
        {
            "trace": ["a.up", "a.up", "b.up", "b.up"],
            "scheme": ["abc", "cubic", "abc", "cubic"],
            "utilization_pct": [90.0, 97.0, 85.0, 96.0],
            "per_packet_delay_p95_ms": [180.0, 800.0, 200.0, 700.0],
        }
    )
    assert plot_compare(table, tmp_path / "c.png").stat().st_size > 0
