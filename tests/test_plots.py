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


@pytest.mark.parametrize("panels", [1, 3, 5, 8])
def test_summary_grids_keep_every_text_inside_and_the_legend_off_the_panels(tmp_path, monkeypatch, panels):
    """The report's grids of panels (trade-off, delay CDFs) have a fixed layout, not matplotlib's
    constrained one (it was ~40 % of their drawing time). Whatever the number of panels
    and the length of the names: every text is inside the figure, no panel's ticks, labels or title
    run into another panel's, and the legend (right of the grid, or under it) covers no panel."""
    import numpy as np
    from accelbrake.experiments import figures as F

    figs = []
    monkeypatch.setattr(F, "save", lambda fig, stem, dpi=110: figs.append(fig) or [])
    schemes = ["abc", "cubic", "a-variant-with-a-rather-long-display-name-for-the-legend"]
    traces = [f"Some-Carrier-LTE-driving-{i}.down" for i in range(panels)]
    rows = [
        {
            "scheme": s,
            "trace": t,
            "utilization_mean": 0.5 + 0.1 * j,
            "utilization_std": 0.02,
            "p95_delay_ms_mean": 100.0 * (1 + i + 3 * j),
            "p95_delay_ms_std": 5.0,
            "run_id": f"{i}-{j}",
            "seed": 0,
        }
        for i, t in enumerate(traces)
        for j, s in enumerate(schemes)
    ]
    table = pd.DataFrame(rows)
    F.plot_tradeoff(table, tmp_path / "t", labels={}, reference="abc")
    quantiles = {r["run_id"]: np.geomspace(100, 3000, 21) * (1 + 0.1 * k) for k, r in enumerate(rows)}
    F.plot_cdfs(quantiles, table, tmp_path / "c", labels={})
    for fig in figs:
        r = fig.canvas.get_renderer()
        fig.draw(r)
        whole = fig.bbox
        panels_ = [ax for ax in fig.axes if ax.get_visible()]
        boxes = [ax.get_tightbbox(r) for ax in panels_]
        for b in boxes:
            assert (
                b.x0 >= whole.x0 - 1
                and b.x1 <= whole.x1 + 1
                and b.y0 >= whole.y0 - 1
                and b.y1 <= whole.y1 + 1
            )
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not a.overlaps(b), "two panels' labels run into each other"
        (legend,) = fig.legends
        lb = legend.get_window_extent(r)
        assert lb.x0 >= whole.x0 - 1 and lb.x1 <= whole.x1 + 1 and lb.y0 >= whole.y0 - 1
        for ax in panels_:
            assert not lb.overlaps(ax.get_tightbbox(r)), "the legend covers a panel"
        title = fig._suptitle.get_window_extent(r)
        assert title.y1 <= whole.y1 + 1 and all(not title.overlaps(b) for b in boxes)
        assert title.x0 >= whole.x0 - 1 and title.x1 <= whole.x1 + 1
