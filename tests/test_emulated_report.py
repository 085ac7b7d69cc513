"""The report of an emulated sweep (`sweep --emulate`): plots, the page, and the point-by-point
comparison with the simulated sweep of the same experiment. The emulated table is made here from the
simulated runs with known factors (no root or emulator needed), so the verdicts are known."""

from __future__ import annotations

import pandas as pd
import pytest
from accelbrake.experiments.emulated import emulated_aggregate, write_emulated_report
from accelbrake.experiments.figures import run_level
from accelbrake.experiments.runner import run_sweep
from accelbrake.experiments.spec import parse_experiment


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("emu") / "o"
    doc = {
        "name": "small",
        "matrix": {"schemes": ["cubic", "vegas"], "traces": ["const:12", "const:24"], "seeds": [0, 1]},
        "run": {"duration_s": 3},
    }
    exp = parse_experiment(doc)
    run_sweep(exp, out, progress=False)
    return exp, out


def _emulated_csv(exp, out, util_factor, p95_factor):
    """emulated.csv as `sweep --emulate` writes it, from the simulated runs times the factors."""
    sim = run_level(pd.read_parquet(out / "results.parquet"))
    rows = []
    for p in exp.points():
        lab = p.labels()
        same = (sim["scheme"] == lab["scheme"]) & (sim["trace"] == lab["trace"])
        r = sim[same & (sim["seed"] == lab["seed"])]
        assert len(r) == 1
        r = r.iloc[0]
        f_u = util_factor(lab)
        rows.append(
            {
                **lab,
                "transport": "user",
                "utilization": r["link_utilization"] * f_u,
                "throughput_mbps": r["link_throughput_mbps"] * f_u,
                "capacity_mbps": 12.0,
                "per_packet_delay_p50_ms": 50.0,
                "per_packet_delay_p95_ms": r["run_per_packet_delay_p95_ms"] * p95_factor(lab),
                "queueing_delay_p95_ms": 1.0,
                "drops": 0,
                "marks": 0,
                "timing_error_p99_us": 30.0,
            }
        )
    pd.DataFrame(rows).to_csv(out / "emulated.csv", index=False)
    return rows


def test_emulated_report_compares_each_point_with_the_simulator(simulated):
    exp, out = simulated
    # Cubic agrees (utilisation +2 %, p95 -5 %); Vegas differs (utilisation -10 %, p95 +30 %).
    _emulated_csv(
        exp,
        out,
        lambda lab: 1.02 if lab["scheme"] == "cubic" else 0.90,
        lambda lab: 0.95 if lab["scheme"] == "cubic" else 1.30,
    )
    page = write_emulated_report(out, title="small, emulated")
    cmp = pd.read_csv(out / "emulated-vs-sim.csv")
    assert len(cmp) == 8, "every emulated point found its simulated run"
    by = cmp.set_index(["scheme", "trace", "seed"]).sort_index()
    assert by.loc["cubic", "utilization_ratio"].round(6).eq(1.02).all()
    assert by.loc["vegas", "p95_ratio"].round(6).eq(1.30).all()
    assert by.loc["cubic", "utilization_agrees"].all() and by.loc["cubic", "p95_agrees"].all()
    assert not by.loc["vegas", "utilization_agrees"].any() and not by.loc["vegas", "p95_agrees"].any()
    text = page.read_text()
    assert "4 of 8 utilisations and 4 of 8 p95 delays agree" in text
    assert text.count("data:image/png;base64,") == 2
    assert (out / "plots" / "emulated-tradeoff.png").stat().st_size > 10_000
    assert (out / "plots" / "emulated-per-trace.png").is_file()


def test_emulated_aggregate_means_over_seeds(simulated):
    exp, out = simulated
    rows = pd.DataFrame(_emulated_csv(exp, out, lambda lab: 1.0 + 0.1 * lab["seed"], lambda lab: 1.0))
    agg = emulated_aggregate(rows)
    assert len(agg) == 4 and set(agg["seeds"]) == {2}
    for _, a in agg.iterrows():
        pts = rows[(rows["scheme"] == a["scheme"]) & (rows["trace"] == a["trace"])]
        assert a["utilization_mean"] == pytest.approx(pts["utilization"].mean())
        assert a["utilization_std"] == pytest.approx(pts["utilization"].std())


def test_without_a_simulated_sweep_the_page_has_no_comparison(simulated, tmp_path):
    exp, out = simulated
    _emulated_csv(exp, out, lambda lab: 1.0, lambda lab: 1.0)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "emulated.csv").write_bytes((out / "emulated.csv").read_bytes())
    (alone / "emulated-vs-sim.csv").write_text("stale\n")
    page = write_emulated_report(alone)
    assert "Emulated vs simulated" not in page.read_text()
    assert not (alone / "emulated-vs-sim.csv").exists(), "a stale comparison is removed"


def test_missing_table_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="emulated.csv"):
        write_emulated_report(tmp_path)


def test_each_schemes_first_run_is_drawn_from_its_link_log(simulated, tmp_path):
    """sweep --emulate keeps each run's data-link log (OUT/emulated/<run_id>.log); the page draws each
    scheme's first run from it, as Mahimahi's graphs would, and says nothing of runs without a log.
    A run id of digits only stays text."""
    exp, out = simulated
    rows = _emulated_csv(exp, out, lambda lab: 1.0, lambda lab: 1.0)
    dest = tmp_path / "logs"
    (dest / "emulated").mkdir(parents=True)
    for i, r in enumerate(rows):
        r["run_id"] = f"{i:016d}" if i == 0 else f"{i:015d}a"
    for i, r in enumerate(rows):
        if r["scheme"] == "cubic" and i > 0:
            continue  # only cubic's first run has a log
        if r["scheme"] == "vegas" and i == 1:
            continue  # vegas: its first run (i=1) has none, its second does
        lines = ["# base timestamp: 0"]
        for t in range(0, 3000, 10):
            lines += [f"{t} + 1504", f"{t} # 1504", f"{t} - 1504 {t % 50}"]
        (dest / "emulated" / f"{r['run_id']}.log").write_text("\n".join(lines) + "\n")
    pd.DataFrame(rows).to_csv(dest / "emulated.csv", index=False)
    text = write_emulated_report(dest).read_text()
    assert "Time series of single emulated runs" in text
    pngs = sorted(p.name for p in (dest / "plots").glob("emulated-run-*.png"))
    first_vegas = next(r["run_id"] for i, r in enumerate(rows) if r["scheme"] == "vegas" and i > 1)
    assert pngs == sorted([f"emulated-run-{'0' * 16}.png", f"emulated-run-{first_vegas}.png"])
    assert text.count("data:image/png;base64,") == 4


def _png_size(path):
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[16:24]
    return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")


def test_a_kernel_runs_sender_window_is_drawn_below_its_link(simulated, tmp_path):
    """sweep --emulate keeps a kernel-TCP run's TCP_INFO (OUT/emulated/<run_id>.tcp_info.csv, as
    `emulate --tcp-info` writes it); that run's plot gets a third panel with the sender's window, a
    run without one keeps two."""
    exp, out = simulated
    rows = _emulated_csv(exp, out, lambda lab: 1.0, lambda lab: 1.0)
    dest = tmp_path / "kernel"
    (dest / "emulated").mkdir(parents=True)
    for i, r in enumerate(rows):
        r["run_id"] = f"{i:015d}k"
        lines = ["# base timestamp: 0"]
        for t in range(0, 3000, 10):
            lines += [f"{t} + 1504", f"{t} # 1504", f"{t} - 1504 {t % 50}"]
        (dest / "emulated" / f"{r['run_id']}.log").write_text("\n".join(lines) + "\n")
    cubic = next(r["run_id"] for r in rows if r["scheme"] == "cubic")
    vegas = next(r["run_id"] for r in rows if r["scheme"] == "vegas")
    t = [k / 100 for k in range(300)]
    pd.DataFrame(
        {
            "t_s": t,
            "flow": 0,
            "cwnd": [10 + k // 5 for k in range(300)],
            "ssthresh": [float("nan")] * 150 + [40.0] * 150,
            "in_flight": [9 + k // 5 for k in range(300)],
        }
    ).to_csv(dest / "emulated" / f"{cubic}.tcp_info.csv", index=False)
    pd.DataFrame(rows).to_csv(dest / "emulated.csv", index=False)
    text = write_emulated_report(dest).read_text()
    assert "congestion window" in text
    w_k, h_k = _png_size(dest / "plots" / f"emulated-run-{cubic}.png")
    w_u, h_u = _png_size(dest / "plots" / f"emulated-run-{vegas}.png")
    assert w_k == w_u and h_k == pytest.approx(h_u * 8.4 / 6.0, abs=2), (h_k, h_u)
