"""The ABE paper's Fig. 8 and Figs. 9-10 as reproductions (abe-fig8, abe-convergence)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from accelbrake import _worker
from accelbrake import papers as P
from accelbrake.papers import BY_KEY, RESULTS
from accelbrake.papers.abe import figures as A
from accelbrake.scenarios import ScenarioError

conv = _worker.convergence_time


def _jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def test_convergence_time_on_a_hand_worked_series():
    # Bins end every second; the second flow starts at t0 = 2 s. Bytes since t0:
    #   t=3: (10, 0)  F = 0.5;  t=4: (20, 5)  F = 625/850 = 0.735;  t=5: (30, 15)  F = 2025/2250 = 0.9;
    #   t=6: (40, 30) F = 4900/5000 = 0.98 >= 0.95  ->  T = 6 - 2 = 4 s.
    t = [1, 2, 3, 4, 5, 6, 7]
    f1 = [100, 110, 120, 130, 140, 150, 160]
    f2 = [0, 0, 0, 5, 15, 30, 40]
    assert _jain([30, 15]) == pytest.approx(0.9) and _jain([40, 30]) == pytest.approx(0.98)
    assert conv(t, [f1, f2], t0_s=2.0) == pytest.approx(4.0)
    # A higher threshold is reached later (t=7: (50, 40), F = 8100/8200 = 0.988), or never.
    assert conv(t, [f1, f2], t0_s=2.0, theta=0.985) == pytest.approx(5.0)
    assert conv(t, [f1, f2], t0_s=2.0, theta=0.999) is None
    # Bytes before t0 do not count: 20 vs 60 in total (F = 0.8), but 10 vs 10 since t0 (F = 1).
    assert conv([1, 2, 3], [[0, 10, 20], [0, 50, 60]], t0_s=2.0) == pytest.approx(1.0)
    # Bins where nobody received anything since t0 are not judged (0/0), and the answer is a bin end.
    assert conv([1, 2, 3, 4], [[0, 0, 0, 7], [0, 0, 0, 7]], t0_s=1.0) == pytest.approx(3.0)


def test_convergence_time_rejects_malformed_input():
    with pytest.raises(ValueError, match="no flows"):
        conv([1, 2], [], t0_s=0.0)
    with pytest.raises(ValueError, match="one cumulative count per bin end"):
        conv([1, 2], [[1, 2], [1]], t0_s=0.0)


def test_convergence_scenario_is_the_papers_setup():
    sc = A.convergence_scenario("cubic-abe", "pie", 20.0, 40, 0.8, cap_s=60.0)
    first, second = sc["flows"]
    assert first.get("start_ms", 0.0) == 0.0 and second["start_ms"] == 30_000.0
    for f in (first, second):
        assert f["scheme"] == "cubic-abe" and f["ecn"] is True
        # Footnote 11: Cubic's fast convergence off.
        assert f["params"] == {"beta_ecn": 0.8, "fast_convergence": False}
    assert sc["duration_ms"] == pytest.approx(90_000.0)
    assert sc["sample_ms"] == 4.0  # RTT/10
    assert A.conv_bin_ms(5) == 1.0 and A.conv_bin_ms(320) == A.CONV_BIN_MAX_MS
    nr = A.convergence_scenario("newreno-abe", "codel", 5.0, 10, 0.5, cap_s=10.0)
    assert "fast_convergence" not in nr["flows"][0]["params"]
    with pytest.raises(ScenarioError, match="aqm 'red'"):
        A.convergence_scenario("newreno-abe", "red", 5.0, 10, 0.5, cap_s=10.0)


def test_convergence_grids_match_the_paper():
    # 48 combinations; 384 Cubic ρ values = 48 × 2 AQMs × 4 β_ecn, 576 NewReno = 48 × 2 × 6 (§IV-C).
    assert (
        len(A.CONV_PAPER_GRID) == 48
        and set(A.CONV_SUBSET) <= set(A.CONV_PAPER_GRID)
        and len(A.CONV_SUBSET) == 16
    )
    assert 48 * 2 * len(A.CONV_BETAS["cubic-abe"]) == 384
    assert 48 * 2 * len(A.CONV_BETAS["newreno-abe"]) == 576
    for scheme, betas in A.CONV_BETAS.items():
        assert all(b > A.CONV_DEFAULT_BETA[scheme] for b in betas)


def test_worker_convergence_of_a_real_run():
    """Two NewReno flows: T is a multiple of the bin after the second start and before the run's end;
    a run ending too early for F(t) to reach θ reports None."""
    sc = A.convergence_scenario("newreno-abe", "codel", 10.0, 20, 0.5, cap_s=20.0)
    _, res, err = _worker.run_task(1, json.dumps(sc), kind="convergence")
    assert err is None and res["t0_s"] == 30.0 and res["end_s"] == 50.0
    t = res["convergence_s"]
    assert t is not None and 0.0 < t <= 20.0
    assert t / res["bin_s"] == pytest.approx(round(t / res["bin_s"]), abs=1e-6)
    short = A.convergence_scenario("newreno-abe", "codel", 10.0, 20, 0.5, cap_s=0.01)
    _, res, err = _worker.run_task(1, json.dumps(short), kind="convergence")
    assert err is None and res["convergence_s"] is None


def _runs(rows: list[tuple[str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"scheme": s, "aqm": "pie", "mbps": 10.0, "rtt_ms": rtt, "beta_ecn": b, "convergence_s": t}
            for s, rtt, b, t in rows
        ]
    )


def test_rho_counts_runs_that_did_not_converge():
    nan = math.nan
    d = _runs(
        [
            ("newreno-abe", 10, 0.5, 4.0),
            ("newreno-abe", 10, 0.75, 2.0),  # both converged: ρ 0.5
            ("newreno-abe", 10, 0.9, nan),  # the β_ecn run did not: ρ = ∞
            ("newreno-abe", 20, 0.5, nan),
            ("newreno-abe", 20, 0.75, 30.0),  # the default did not: ρ ≤ 30/cap
            ("newreno-abe", 20, 0.9, nan),  # neither: left out of the statistics
        ]
    )
    rho = A.rho_table(d, cap_s=60.0).set_index(["rtt_ms", "beta_ecn"])
    assert rho.loc[(10, 0.75), "rho"] == pytest.approx(0.5)
    assert rho.loc[(10, 0.9), "rho"] == math.inf
    assert rho.loc[(20, 0.75), "rho"] == pytest.approx(0.5)
    assert math.isnan(rho.loc[(20, 0.9), "rho"]) and rho.loc[(20, 0.9), "status"] == "neither converged"
    assert len(rho) == 4  # no ρ for the default runs themselves


def test_convergence_verdicts_follow_the_claims():
    # NewReno with PIE: β_ecn 0.75 faster in both cases, 0.9 in one of two; Cubic slower everywhere.
    rows = [
        ("newreno-abe", 10, 0.5, 4.0),
        ("newreno-abe", 10, 0.75, 2.0),
        ("newreno-abe", 10, 0.9, 3.0),
        ("newreno-abe", 20, 0.5, 4.0),
        ("newreno-abe", 20, 0.75, 3.0),
        ("newreno-abe", 20, 0.9, 8.0),
        ("cubic-abe", 10, 0.7, 1.0),
        ("cubic-abe", 10, 0.8, 2.0),
        ("cubic-abe", 20, 0.7, 1.0),
        ("cubic-abe", 20, 0.8, 1.1),
    ]
    out = A.convergence_verdicts(A.rho_table(_runs(rows), cap_s=60.0))
    by = {r["metric"]: r for r in out}
    assert by["Fig. 10 (PIE), β_ecn 0.75: median ρ"]["ours"] == pytest.approx((0.5 + 0.75) / 2)
    assert (
        by["Fig. 10 (PIE): β_ecn 0.75 has the largest share of faster cases"]["verdict"] == "direction holds"
    )
    every = "Fig. 10 (PIE): every plotted β_ecn converges faster (ρ < 1) in more than half of the cases"
    assert by[every]["verdict"] == "direction fails"  # 0.9: one of two is not more than half
    cubic = "Fig. 9 (PIE): for most β_ecn fewer than half of the cases converge faster (ρ < 1)"
    assert by[cubic]["verdict"] == "direction holds"
    # Median ρ per curve: NewReno 0.75 → 0.625, 0.9 → (0.75 + 2)/2 = 1.375, Cubic 0.8 → 1.55: 1 of 3 ≤ 1.25.
    most = [r for r in out if r["metric"].startswith("Figs. 9-10")][0]
    assert most["verdict"] == "direction fails" and most["note"] == "1 of 3 curves"
    # CoDel has no curves here: its Cubic claim has no data rather than a verdict.
    assert by[cubic.replace("PIE", "CoDel")]["verdict"] == "no data"


def test_fig8_verdicts():
    rows = []
    for rtt, tps in ((100, (15.0, 17.0, 19.0)), (400, (12.0, 15.0, 18.5))):
        for b, tp in zip((0.5, 0.8, 0.95), tps, strict=True):
            rows.append(
                {"rtt_ms": rtt, "beta_ecn": b, "throughput_mbps": tp, "median_rtt_ms": rtt + 1.0 + 10 * b}
            )
    out = A.fig8_verdicts(pd.DataFrame(rows))
    by = {r["metric"]: r for r in out}
    assert by["Fig. 8: RTT 100 ms: throughput improves with β_ecn"]["verdict"] == "direction holds"
    assert by["Fig. 8: the gain of the largest β_ecn over 0.5 grows with RTT"]["verdict"] == "direction holds"
    # The median RTT moves 4.5 ms: under the 5 ms bound.
    assert by["Fig. 8: RTT 400 ms: median RTT moves < 5 ms across β_ecn"]["verdict"] == "direction holds"
    # A drop between neighbouring β_ecn values larger than 1 % of capacity is not "improves"; gains that
    # shrink with RTT fail the second claim; a median RTT moving 7 ms fails the third.
    d = pd.DataFrame(rows)
    d.loc[(d["rtt_ms"] == 400) & (d["beta_ecn"] == 0.8), "throughput_mbps"] = 11.0
    d.loc[(d["rtt_ms"] == 400) & (d["beta_ecn"] == 0.95), "throughput_mbps"] = 12.5
    d.loc[(d["rtt_ms"] == 100) & (d["beta_ecn"] == 0.95), "median_rtt_ms"] = 113.0
    by = {r["metric"]: r for r in A.fig8_verdicts(d)}
    assert by["Fig. 8: RTT 400 ms: throughput improves with β_ecn"]["verdict"] == "direction fails"
    assert by["Fig. 8: the gain of the largest β_ecn over 0.5 grows with RTT"]["verdict"] == "direction fails"
    assert by["Fig. 8: RTT 100 ms: median RTT moves < 5 ms across β_ecn"]["verdict"] == "direction fails"


def test_catalogue_rows_point_at_the_new_ids():
    entries = {r.key: r for r in RESULTS}
    assert entries["abe/fig8"].repro == "abe-fig8" and not entries["abe/fig8"].why
    assert entries["abe/fig9-10"].repro == "abe-convergence" and not entries["abe/fig9-10"].why
    for rid in ("abe-fig8", "abe-convergence"):
        rep = P.reproductions()[rid]
        assert rep.direct is not None and rep.paper == BY_KEY["abe"].citation


def test_quick_reproductions_judge_every_claim(tmp_path):
    """The --quick variants end to end (a few seconds): every claim row gets a verdict, the tables
    are written."""
    (tmp_path / "f8").mkdir()
    rows, n = A.run_fig8(tmp_path / "f8", True, None)
    assert n == len(A.FIG8_QUICK_RTTS) * len(A.FIG8_QUICK_BETAS)
    claims = [r for r in rows if r["kind"] == "claim"]
    assert len(claims) == 2 * len(A.FIG8_QUICK_RTTS) + 1
    assert all(r["verdict"] in ("direction holds", "direction fails") for r in claims)
    assert (tmp_path / "f8" / "abe-fig8.csv").is_file() and (tmp_path / "f8" / "abe-fig8.png").is_file()
    (tmp_path / "c").mkdir()
    rows, n = A.run_convergence(tmp_path / "c", True, None)
    assert n == 2 * 2 * 2  # schemes × AQMs × (default + one β_ecn)
    claims = [r for r in rows if r["kind"] == "claim"]
    assert len(claims) == 5
    assert all(r["verdict"] in ("direction holds", "direction fails") for r in claims)
    rho = pd.read_csv(tmp_path / "c" / "abe-convergence-rho.csv")
    assert len(rho) == 4 and (tmp_path / "c" / "abe-convergence.png").is_file()
    with pytest.raises(ValueError, match="grid 'all'"):
        A.run_convergence(tmp_path / "c", True, None, grid="all")


def test_convergence_is_deterministic(tmp_path):
    """Same scenarios, same seed: byte-identical tables from two fresh folders."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        A.run_convergence(tmp_path / name, True, 5.0)
    for f in ("abe-convergence.csv", "abe-convergence-rho.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
