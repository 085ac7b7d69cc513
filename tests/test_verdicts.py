"""Verdicts of `reproduce` comparisons: the pure verdict function, its use in comparison rows, and
abc-fig7's per-trace Pareto-frontier check."""

from __future__ import annotations

import pandas as pd
import pytest
from accelbrake.experiments import reproduce as R
from accelbrake.experiments import rows as RW
from accelbrake.experiments import verdicts as V
from accelbrake.experiments.published import Published
from accelbrake.papers.abc import reproductions as ABCR


@pytest.mark.parametrize("ratio", [0.5, 2.7])
def test_far_off_ratios_are_differs_with_the_ratio(ratio):
    v = V.judge(ratio * 4.78, value=4.78)
    assert v.verdict == V.DIFFERS
    assert v.ratio == pytest.approx(ratio)
    assert f"{ratio:.2f}" in v.text


def test_comparison_rows_with_ratios_half_and_2_7_say_differs():
    pubs = [Published("abc-table", "Cubic", "norm. p95 per-packet delay", "cubic", "4.78", 4.78)] * 2
    rows = [RW.row(pubs[0], 0.5 * 4.78), RW.row(pubs[1], 2.7 * 4.78)]
    assert [r["verdict"] for r in rows] == [V.DIFFERS, V.DIFFERS]
    assert [r["ratio_text"] for r in rows] == ["0.50", "2.70"]
    text = R.format_comparison(
        {"id": "x", "title": "t", "setup": "s", "source": "p", "rows": rows, "summary": R.summarise(rows)}
    )
    assert " ok" not in text and "differs (ratio 0.50)" in text and "differs (ratio 2.70)" in text
    assert text.splitlines()[-1] == "x: 0 of 2 reproduced"


@pytest.mark.parametrize(
    ("ratio", "verdict"),
    [
        (0.8, V.REPRODUCED),
        (1.2, V.REPRODUCED),
        (1.0, V.REPRODUCED),
        (0.7999, V.DIFFERS),
        (1.2001, V.DIFFERS),
    ],
)
def test_default_tolerance_boundary_at_20_percent(ratio, verdict):
    assert V.DEFAULT_TOLERANCE == 0.20
    # published values whose ratio is not exact in floating point (0.96 / 0.8 = 1.2000000000000002)
    for pub in (0.8, 0.78, 242.0, 4.78):
        assert V.judge(ratio * pub, value=pub).verdict == verdict, (ratio, pub)
    assert V.judge(0.96, value=0.8).verdict == V.REPRODUCED


def test_ratio_near_the_bound_shows_a_third_decimal():
    assert V.ratio_text(1.1959) == "1.196" and V.ratio_text(1.204) == "1.204"
    assert V.ratio_text(1.1749) == "1.17" and V.ratio_text(0.5) == "0.50"
    assert V.ratio_text(0.951, 0.05) == "0.951" and V.ratio_text(None) == "n/a"
    assert V.judge(1.204, value=1.0).text == "differs (ratio 1.204)"


def test_row_tolerance_replaces_the_default():
    assert V.judge(0.9, value=1.0, tolerance=0.05).verdict == V.DIFFERS
    assert V.judge(0.96, value=1.0, tolerance=0.05).verdict == V.REPRODUCED
    assert V.tolerance_text(0.05) == "±5 %" and V.tolerance_text() == "±20 %"


def test_ranges_claims_missing_and_not_implemented():
    assert V.judge(2.0, low=1.7, high=3.4).verdict == V.REPRODUCED
    v = V.judge(1.2, low=1.7, high=3.4)
    assert v.verdict == V.DIFFERS and "outside 1.7–3.4" in v.text
    assert V.judge(0.9, value=1.0, low=0.95, high=1.0).verdict == V.DIFFERS
    assert V.judge(True, claim=True).verdict == V.HOLDS
    assert V.judge(False, claim=True).verdict == V.FAILS
    assert V.judge(None, value=1.0).verdict == V.NO_DATA
    assert V.judge(float("nan"), value=1.0).verdict == V.NO_DATA
    assert V.judge(1.0, value=1.0, implemented=False).verdict == V.NOT_IMPLEMENTED
    assert V.judge(1.0).verdict == V.NOT_COMPARED


def test_summary_counts_numbers_and_claims_apart():
    line = V.summary(
        [V.REPRODUCED, V.REPRODUCED, V.DIFFERS, V.NOT_IMPLEMENTED, V.NOT_IMPLEMENTED],
        [V.HOLDS, V.FAILS],
    )
    assert line == (
        "2 of 3 reproduced; qualitative claims: 1 of 2 hold; "
        "2 published values for schemes not implemented here"
    )
    assert V.summary([V.NO_DATA, V.REPRODUCED]) == "1 of 2 reproduced (1 without data)"


def test_no_row_says_ok():
    pub = Published("abc-table", "ABC", "utilisation", "abc", "78 %", 0.78)
    for ours in (0.78, 0.3, None):
        assert RW.row(pub, ours)["verdict"] != "ok"
    claim = Published("abc-fig7", "ABC", "outside", "abc", "outside", claim=True)
    assert RW.row(claim, True)["verdict"] == V.HOLDS
    assert RW.row(claim, False)["verdict"] == V.FAILS


# --- abc-fig7: per trace, outside the others' Pareto frontier ----------------------------------


def _results(points: dict[str, dict[str, tuple[float, float]]]) -> pd.DataFrame:
    """Synthetic per-flow results: trace → scheme → (utilisation, p95 delay ms), one seed."""
    rows = []
    for t, by_scheme in points.items():
        for s, (u, d) in by_scheme.items():
            rows.append(
                {
                    "run_id": f"{s}-{t}",
                    "scheme": s,
                    "trace": t,
                    "flow": 0,
                    "link_utilization": u,
                    "run_per_packet_delay_p95_ms": d,
                    "run_per_packet_delay_mean_ms": d / 2,
                    "jain_index": 1.0,
                }
            )
    return pd.DataFrame(rows)


def test_frontier_is_the_line_between_the_others_not_just_their_points():
    d = pd.DataFrame(
        {
            "scheme": ["abc", "copa", "bbr"],
            "link_utilization": [0.70, 0.50, 0.95],
            "run_per_packet_delay_p95_ms": [300.0, 150.0, 600.0],
        }
    )
    # not dominated by Copa or BBR alone, but below the line between them (at 300 ms on a log
    # axis, halfway: 0.725)
    ok, note = RW.outside_pareto_frontier(d)
    assert ok is False and "72.5 %" in note
    d.loc[0, "link_utilization"] = 0.76
    assert RW.outside_pareto_frontier(d)[0] is True
    # a delay lower than any other scheme reaches: outside
    d.loc[0, ["link_utilization", "run_per_packet_delay_p95_ms"]] = [0.3, 120.0]
    assert RW.outside_pareto_frontier(d)[0] is True
    # beyond the others' highest delay the frontier is flat at its highest utilisation
    d.loc[0, ["link_utilization", "run_per_packet_delay_p95_ms"]] = [0.9, 900.0]
    assert RW.outside_pareto_frontier(d)[0] is False


def test_fig7_compares_like_with_like_per_trace():
    # Two traces per direction. On A ABC beats every scheme; on B every other scheme beats it. With
    # ABC of A against the others of B (or the reverse) the answers would swap.
    good = {"abc": (0.80, 250.0), "copa": (0.55, 240.0), "bbr": (0.78, 700.0), "cubic": (0.90, 1200.0)}
    bad = {"abc": (0.40, 600.0), "copa": (0.85, 200.0), "bbr": (0.95, 300.0), "cubic": (0.97, 900.0)}
    res = _results(
        {
            "traces/A.down": good,
            "traces/B.down": bad,
            "traces/C.up": bad,
            "traces/D.up": good,
        }
    )
    rows = [r for r in ABCR._cmp_fig7(res, None) if r.get("trace")]  # type: ignore[arg-type]
    by_trace = {r["trace"]: r for r in rows}
    assert len(rows) == 4 == len(by_trace)
    assert by_trace["traces/A.down"]["verdict"] == V.HOLDS
    assert by_trace["traces/B.down"]["verdict"] == V.FAILS
    assert by_trace["traces/C.up"]["verdict"] == V.FAILS
    assert by_trace["traces/D.up"]["verdict"] == V.HOLDS
    for t, r in by_trace.items():
        assert t.rsplit("/", 1)[1] in r["metric"]
        assert ("downlink" in r["metric"]) == t.endswith(".down")
        # the note quotes this trace's ABC point, not the other trace's
        u, d = (good if t in ("traces/A.down", "traces/D.up") else bad)["abc"]
        assert f"{100 * u:.1f} % at {d:.0f} ms" in r["note"]


def test_outside_the_band_but_inside_the_noise_is_not_differs():
    # ratio 1.3 (outside ±20 %): without seeds it differs; with a 95 % interval reaching the band
    # it is "within the noise"; with an interval wholly outside the band it differs again.
    assert V.judge(1.3, value=1.0).verdict == V.DIFFERS
    v = V.judge(1.3, value=1.0, interval=(1.1, 1.5))
    assert v.verdict == V.WITHIN_NOISE and "95 % interval" in v.text
    assert V.judge(1.3, value=1.0, interval=(1.25, 1.35)).verdict == V.DIFFERS
    # a range: the interval must reach the range
    assert V.judge(2.5, low=1.0, high=2.0, interval=(1.9, 3.1)).verdict == V.WITHIN_NOISE
    assert V.judge(2.5, low=1.0, high=2.0, interval=(2.2, 2.8)).verdict == V.DIFFERS


def test_a_ratio_within_one_percent_of_the_band_edge_says_so():
    v = V.judge(1.198, value=1.0)
    assert v.verdict == V.REPRODUCED and v.qualifier == V.AT_EDGE and "at the edge" in v.text
    assert V.judge(0.805, value=1.0).qualifier == V.AT_EDGE
    assert V.judge(1.15, value=1.0).qualifier == ""
    # a published range is judged as it stands (its edge is often a bound of the quantity)
    assert V.judge(0.999, value=1.0, low=0.95, high=1.0).qualifier == ""


def test_seed_spread_is_the_std_and_the_t_interval_of_the_mean():
    std, lo, hi = RW.spread([1.0, 2.0, 3.0])
    assert std == pytest.approx(1.0)
    assert (lo, hi) == pytest.approx((2.0 - 4.303 / 3**0.5, 2.0 + 4.303 / 3**0.5))
    assert RW.spread([1.0]) is None and RW.spread(None) is None
    pub = Published("abc-table", "Cubic", "norm. p95 per-packet delay", "cubic", "4.78", 4.78)
    row = RW.row(pub, 6.0, seeds=[5.0, 6.0, 7.0])
    assert row["verdict"] == V.WITHIN_NOISE and row["seed_std"] == pytest.approx(1.0)
    assert row["spread_text"].startswith("± 1.00")
    assert RW.row(pub, 6.0)["verdict"] == V.DIFFERS


def test_a_row_from_one_run_says_so_and_differs_outside_the_band():
    pub = Published("abc-table", "Cubic", "norm. p95 per-packet delay", "cubic", "4.78", 4.78)
    one = RW.row(pub, 6.0, seeds=[6.0])
    assert one["spread_text"] == "1 run" and one["runs"] == 1 and one["seed_std"] is None
    # No spread: nothing to call noise, so outside the band is "differs".
    assert one["verdict"] == V.DIFFERS
    assert RW.row(pub, 6.0, runs=1)["spread_text"] == "1 run"
    claim = Published("abc-fig7", "ABC", "outside", "abc", "ABC lies outside", claim=True)
    assert RW.row(claim, True, runs=1)["spread_text"] == "1 run"
    # Several seeds: the spread, not the count; unknown: blank.
    assert RW.row(pub, 6.0, seeds=[5.0, 6.0, 7.0])["spread_text"].startswith("± ")
    assert RW.row(pub, 6.0)["spread_text"] == ""
    # Inside the band with a spread that leaves it: still reproduced (outside the band is needed).
    ok = RW.row(pub, 4.8, seeds=[3.0, 4.8, 6.6])
    assert ok["verdict"] == V.REPRODUCED


def test_by_seed_pairs_the_kth_seed_of_every_point():
    import pandas as pd

    res = pd.DataFrame(
        {
            "run_id": ["a", "b", "c", "d"],
            "scheme": ["x", "x", "x", "x"],
            "trace": ["t1", "t1", "t2", "t2"],
            "seed": [7, 3, 11, 12],
            "v": [1.0, 2.0, 3.0, 4.0],
        }
    )
    assert RW.by_seed(res, lambda d: sorted(d["v"])) == [[2.0, 3.0], [1.0, 4.0]]
