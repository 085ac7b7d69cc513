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


def _steps(ax):
    """(x, y) of every step line drawn on ``ax``, by label."""
    return {ln.get_label(): (ln.get_xdata(), ln.get_ydata()) for ln in ax.get_lines()}


def _capacity(ax):
    """The shaded capacity band's outline: (x, y) of its upper edge."""
    import numpy as np

    (band,) = ax.collections[:1]
    verts = band.get_paths()[0].vertices
    top = verts[verts[:, 1] > 0]
    return np.asarray(top[:, 0]), np.asarray(top[:, 1])


def test_no_plotted_flow_throughput_exceeds_the_plotted_capacity(trace_up):
    """On a varying cellular trace with two competing flows, every flow's plotted throughput at
    any time is within the plotted capacity at that time (both measured at the bottleneck link)."""
    import numpy as np
    from accelbrake.plots import run_figure

    sc = accelbrake.build_scenario("cubic", trace=str(trace_up), duration_s=20, flows=2)
    r = accelbrake.simulate(sc)
    ax = run_figure(r).axes[0]
    cx, cy = _capacity(ax)
    flows = {k: v for k, v in _steps(ax).items() if k.startswith("flow ")}
    assert len(flows) == 2
    for label, (x, y) in flows.items():
        x, y = np.asarray(x, float), np.asarray(y, float)
        assert y.max() > 0, label
        # The capacity in force at each throughput sample (both are steps on the same bins).
        cap = np.interp(x, cx, cy)
        assert (y <= cap * (1 + 1e-9) + 1e-9).all(), (label, float((y - cap).max()))


def test_a_flows_lines_end_when_it_stops(tmp_path):
    sc = accelbrake.build_scenario("cubic", trace="const:24", duration_s=6)
    sc["flows"].append({**sc["flows"][0], "stop_ms": 3000})
    r = accelbrake.simulate(sc)
    from accelbrake.plots import run_figure

    lines = _steps(run_figure(r).axes[0])
    (x1,) = [v[0] for k, v in lines.items() if k.startswith("flow 1 ")]
    (x0,) = [v[0] for k, v in lines.items() if k.startswith("flow 0 ")]
    assert max(x1) <= 3.0 + 1e-9 and max(x0) == pytest.approx(6.0)


def test_mahimahi_view_has_capacity_ingress_egress_and_linear_queueing_delay(trace_up, tmp_path):
    import numpy as np

    sc = accelbrake.build_scenario("cubic", trace=str(trace_up), duration_s=10)
    r = accelbrake.simulate(sc)
    fig = r.plot(view="mahimahi")
    top, bottom = fig.axes[:2]
    labels = list(_steps(top))
    assert any(k.startswith("ingress") for k in labels) and any(k.startswith("egress") for k in labels)
    assert bottom.get_yscale() == "linear" and "queueing delay" in bottom.get_ylabel()
    h = r.hops_ts[r.hops_ts["hop"] == r.bottleneck_hop]
    # What arrives at the bottleneck is at least what leaves it, over the run.
    assert h["ingress_mbps"].sum() >= h["throughput_mbps"].sum() > 0
    assert np.isfinite(h["ingress_mbps"]).all()
    path = plot_run(r, tmp_path / "mm.png", view="mahimahi")
    assert path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="view"):
        r.plot(view="nope")


def test_result_in_a_notebook(small_result, tmp_path):
    html = small_result._repr_html_()
    assert html.count("<tr>") == 1 + len(small_result.summary["flows"])
    assert "utilisation (%)" in html and "abc" in html
    fig = small_result.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 0 and len(fig.axes) >= 2
