"""The ABE experiment (accelbrake.papers.abe.sweep and `accelbrake abe-sweep`)."""

from __future__ import annotations

import json

import accelbrake
import numpy as np
import pandas as pd
import pytest
from accelbrake._worker import quantile, run_hop_quantiles
from accelbrake.papers.abe import sweep as abe


@pytest.mark.parametrize("scheme", ["newreno-abe", "cubic-abe"])
def test_codel_scenario_is_the_papers_setup(scheme):
    sc = abe.abe_scenario(scheme, "codel", rtt_ms=400, beta_ecn=0.8, duration_s=600)
    data, ack = sc["hops"]
    assert data["link"] == {"type": "constant", "mbps": 10.0}
    assert ack["link"] == {"type": "constant", "mbps": 10.0}
    assert ack["queue"] == {"type": "infinite"}
    assert data["delay_ms"] == ack["delay_ms"] == 200.0
    assert data["queue"] == {
        "type": "codel",
        "target_ms": 5.0,
        "interval_ms": 100.0,
        "packets": 1000,
        "ecn": True,
    }
    (flow,) = sc["flows"]
    assert flow["scheme"] == scheme
    # footnote 11 of the ABE paper: Cubic's fast convergence off
    expected = {"beta_ecn": 0.8} | ({"fast_convergence": 0.0} if scheme == "cubic-abe" else {})
    assert flow["params"] == expected
    assert flow["ecn"] is True
    assert sc["duration_ms"] == 600_000.0
    assert sc["record_packets"] is True


def test_pie_scenario_is_the_papers_setup():
    sc = abe.abe_scenario("cubic-abe", "pie", rtt_ms=100, beta_ecn=0.85, duration_s=120)
    assert sc["hops"][0]["queue"] == {
        "type": "pie",
        "qdelay_ref_ms": 20.0,
        "t_update_ms": 30.0,
        "alpha": 0.125,
        "beta": 1.25,
        "max_burst_ms": 100.0,
        "packets": 1000,
        "ecn": True,
    }
    assert sc["hops"][0]["delay_ms"] == 50.0
    assert sc["flows"][0]["params"] == {"beta_ecn": 0.85, "fast_convergence": 0.0}


def test_sweep_constants():
    assert abe.BETAS == (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
    assert abe.QUICK_BETAS == (0.5, 0.7, 0.8, 0.85, 0.95)
    assert abe.RTTS_MS == (100, 200, 400)
    # every beta the paper compares is in both sweeps
    needed = {g.beta for g in abe.PAPER_GAINS} | {g.base for g in abe.PAPER_GAINS}
    needed |= {d.beta for d in abe.PAPER_DELAY_CHANGES} | {d.base for d in abe.PAPER_DELAY_CHANGES}
    assert needed <= set(abe.QUICK_BETAS) <= set(abe.BETAS)


@pytest.mark.parametrize(("text", "betas"), [("0.8,0.5", (0.5, 0.8)), ("0.5, 0.5,0.95,", (0.5, 0.95))])
def test_parse_betas(text, betas):
    assert abe.parse_betas(text) == betas


@pytest.mark.parametrize("text", ["", "0.5,x", "0,0.5", "1.0", "-0.5", "nan"])
def test_parse_betas_rejects(text):
    with pytest.raises(ValueError, match="in \\(0, 1\\)|at least one"):
        abe.parse_betas(text)


def test_quantile_is_mahimahis():
    assert quantile([5, 1, 4, 2, 3], 0.5) == 3.0  # index floor(2.5) = 2
    assert quantile(np.arange(10.0), 0.9) == 9.0
    assert quantile(np.arange(10.0), 0.95) == 9.0
    assert np.isnan(quantile([], 0.5))


def test_worker_percentiles_agree_with_the_summary():
    sc = abe.abe_scenario("newreno-abe", "pie", rtt_ms=100, beta_ecn=0.7, duration_s=15)
    _, res, err = run_hop_quantiles("k", json.dumps(sc), hop=0, quantiles=(0.5, 0.9, 0.95))
    assert err is None
    hop = res["summary"]["hops"][0]
    stats = res["hop_delay_ms"]
    assert stats["count"] == hop["packets"] == hop["queueing_delay_ms"]["count"]
    assert stats["p50"] == pytest.approx(hop["queueing_delay_ms"]["p50"], abs=1e-6)
    assert stats["p95"] == pytest.approx(hop["queueing_delay_ms"]["p95"], abs=1e-6)
    assert stats["p50"] <= stats["p90"] <= stats["p95"]


def test_worker_reports_errors_as_text():
    _, res, err = run_hop_quantiles("k", "{}")
    assert res is None and "duration_ms" in err


def _table(values: dict[tuple[str, str, int, float], tuple[float, float, float]]) -> pd.DataFrame:
    rows = [
        {"scheme": s, "aqm": a, "rtt_ms": r, "beta_ecn": b, "throughput_mbps": t,
         "queueing_delay_p50_ms": p50, "queueing_delay_p90_ms": p90}
        for (s, a, r, b), (t, p50, p90) in values.items()
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_paper_comparison_arithmetic_and_missing_points():
    table = _table(
        {
            ("newreno-abe", "codel", 400, 0.5): (5.0, 1, 1),
            ("newreno-abe", "codel", 400, 0.8): (6.2, 1, 1),
            ("newreno-abe", "codel", 100, 0.5): (9.0, 2.0, 4.0),
            ("newreno-abe", "codel", 100, 0.85): (9.5, 3.0, 5.0),
        }
    )
    comp = {(c["scheme"], c["aqm"], c["metric"], c["beta_ecn"]): c for c in abe.paper_comparison(table)}
    assert len(comp) == len(abe.PAPER_GAINS) + len(abe.PAPER_DELAY_CHANGES)
    g = comp[("newreno-abe", "codel", "throughput_gain", 0.8)]
    assert g["ours"] == pytest.approx(24.0)
    assert g["paper"] == 24.0
    assert g["ratio"] == pytest.approx(1.0)
    p50 = comp[("newreno-abe", "codel", "queueing_delay_p50_change", 0.85)]
    assert p50["ours"] == pytest.approx(1.0) and p50["ratio"] == pytest.approx(1.0)
    p90 = comp[("newreno-abe", "codel", "queueing_delay_p90_change", 0.85)]
    assert p90["ours"] == pytest.approx(1.0) and p90["ratio"] == pytest.approx(0.5)
    missing = comp[("cubic-abe", "pie", "throughput_gain", 0.95)]
    assert missing["ours"] is None and missing["ratio"] is None and missing["missing"] == [0.7, 0.95]
    text = abe.format_comparison(list(comp.values()))
    line = (
        "NewReno CoDel, RTT 400 ms: throughput with beta_ecn 0.8 vs 0.5: "
        + "ours +24.0 %, paper +24 %, ratio 1.00"
    )
    assert line in text
    assert "ours n/a (the sweep has no beta_ecn 0.7, 0.95), paper +15 %" in text
    assert "paper < 2 ms, ratio 0.50 (of the bound)" in text


def test_abe_sweep_cli_writes_everything(run_cli, tmp_path):
    out = tmp_path / "abe"
    r = run_cli(
        "abe-sweep", "--quick", "--duration", "20", "--betas", "0.5,0.8", "--out", str(out), "--jobs", "2"
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    for name in ("abe.csv", "abe.parquet", "metadata.json", "abe-throughput.png", "abe-throughput.svg",
                 "abe-delay.png", "abe-delay.svg"):  # fmt: skip
        assert (out / name).stat().st_size > 0, name
    assert (out / "abe-throughput.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (out / "abe-delay.svg").read_bytes()[:2000]
    assert not [p for p in out.iterdir() if p.name.startswith(".accelbrake-tmp-")]

    table = pd.read_csv(out / "abe.csv")
    assert len(table) == 2 * 2 * 3 * 2
    assert set(table["scheme"]) == {"newreno-abe", "cubic-abe"}
    assert set(table["aqm"]) == {"codel", "pie"}
    assert set(table["rtt_ms"]) == {100, 200, 400}
    assert set(table["beta_ecn"]) == {0.5, 0.8}
    for col in ("throughput_mbps", "utilization", "queueing_delay_p50_ms", "queueing_delay_p90_ms"):
        assert table[col].notna().all(), col
    assert (table["throughput_mbps"] > 0).all() and (table["throughput_mbps"] <= 10.0).all()
    assert (table["queueing_delay_p90_ms"] >= table["queueing_delay_p50_ms"]).all()
    assert (table["ce_marks"] > 0).all()
    assert (table["duration_s"] == 20).all()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "abe.parquet"), table, check_dtype=False)

    meta = json.loads((out / "metadata.json").read_text())
    assert meta["settings"]["betas"] == [0.5, 0.8]
    assert meta["settings"]["duration_s"] == 20
    assert meta["accelbrake_version"] == accelbrake.__version__
    assert len(meta["scenarios"]) == 24
    assert len(meta["paper_comparison"]) == 8

    text = r.stdout
    assert "Comparison with the ABE paper (ours, paper, ratio ours/paper):" in text
    assert "NewReno CoDel, RTT 400 ms: throughput with beta_ecn 0.8 vs 0.5: ours " in text
    assert "paper +24 %, ratio " in text and "paper +23 %, ratio " in text
    assert "Cubic CoDel, RTT 400 ms: throughput with beta_ecn 0.85 vs 0.7: ours n/a" in text
    assert "median queueing delay, beta_ecn 0.5 -> 0.85" in text
    assert "throughput (Mbit/s) by beta_ecn" in text


def test_abe_sweep_cli_rejects_bad_betas(capsys):
    from accelbrake import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["abe-sweep", "--betas", "0.5,1.2"])
    assert e.value.code == 2
    assert "--betas" in capsys.readouterr().err


def test_newreno_abe_gains_throughput_at_long_rtt():
    """ABE paper fig. 4: RTT 400 ms, CoDel, 600 s — beta_ecn 0.8 beats 0.5 by 24 % (we measured +21 %)."""

    def tput(beta: float) -> float:
        sc = abe.abe_scenario("newreno-abe", "codel", 400, beta, 600, record_packets=False)
        return accelbrake.simulate(sc).summary["throughput_mbps"]

    low, high = tput(0.5), tput(0.8)
    assert high >= 1.15 * low, (low, high)
    assert high <= 10.0
