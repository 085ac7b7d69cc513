"""accelbrake.bulk: many short runs, summaries written batch by batch; the same table on one or
several workers; the numbers of a plain run; resume skips finished batches."""

from __future__ import annotations

import pandas as pd
import pytest
from accelbrake import simulate
from accelbrake.bulk import run_bulk
from accelbrake.experiments.executors import LocalExecutor
from accelbrake.experiments.runner import planned
from accelbrake.experiments.spec import parse_experiment


def _exp():
    return parse_experiment(
        {
            "name": "bulk",
            "matrix": {
                "schemes": ["cubic", "bbr"],
                "traces": ["const:12", "const:24"],
                "seeds": [0, 1, 2, 3, 4],
            },
            "run": {"duration_s": 0.5},
        }
    )


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    out = tmp_path_factory.mktemp("bulk") / "o"
    outcome = run_bulk(_exp(), out, executor=LocalExecutor(1), batch=6, progress=False)
    return out, outcome


def test_rows_in_matrix_order_written_as_parts(one_worker):
    out, outcome = one_worker
    assert outcome.complete and outcome.ran == 20 and outcome.rows == 20 and outcome.peak_rss_mb > 0
    assert sorted(p.name for p in (out / "parts").iterdir()) == [f"part-{i:06d}.parquet" for i in range(4)]
    df = pd.read_parquet(out / "results.parquet")
    assert list(df["run_index"]) == list(range(20))
    exp = _exp()
    points = list(exp.points())
    assert list(df["scheme"]) == [p.scheme for p in points]
    assert list(df["flow_scheme"]) == [p.scheme for p in points]


def test_same_table_on_two_workers(one_worker, tmp_path):
    out, _ = one_worker
    two = run_bulk(_exp(), tmp_path / "two", executor=LocalExecutor(2), batch=6, progress=False)
    assert two.complete
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "results.parquet"),
        pd.read_parquet(tmp_path / "two" / "results.parquet"),
        check_exact=True,
    )


def test_rows_hold_the_numbers_of_a_plain_run_and_the_sweep_run_id(one_worker):
    out, _ = one_worker
    df = pd.read_parquet(out / "results.parquet")
    exp = _exp()
    p = list(exp.points())[7]
    sc, rid = planned(exp, p)
    flow = simulate(exp.scenario(p)).summary["flows"][0]
    row = df.iloc[7]
    assert row["run_id"] == rid
    assert row["throughput_mbps"] == flow["throughput_mbps"]
    assert row["per_packet_delay_ms_p95"] == flow["per_packet_delay_ms"]["p95"]


def test_resume_runs_only_the_missing_batch(one_worker, tmp_path):
    import shutil

    out, _ = one_worker
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "parts" / "part-000002.parquet").unlink()
    (copy / "results.parquet").unlink()
    again = run_bulk(_exp(), copy, executor=LocalExecutor(1), batch=6, progress=False)
    assert again.complete and again.ran == 6 and again.skipped == 14
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "results.parquet"), pd.read_parquet(copy / "results.parquet"), check_exact=True
    )
